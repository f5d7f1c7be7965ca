// The parse, off the page's thread: the WebAssembly build of gamewire
// (pkg/, written by scripts/build_web.sh) turns a demo's bytes into a
// replay, whose arrays go back to the page as transferred buffers (no copy).
import init, { Replay } from "./pkg/gamewire_wasm.js";

const ready = init();

self.onmessage = async (event) => {
  const { id, bytes, name, every } = event.data;
  try {
    await ready;
    const started = performance.now();
    const replay = Replay.fromBytes(new Uint8Array(bytes), name, every || 1);
    const parseMs = performance.now() - started;
    const arrays = {
      ticks: replay.ticks(),
      offsets: replay.offsets(),
      player: replay.player(),
      x: replay.x(),
      y: replay.y(),
      z: replay.z(),
      yaw: replay.yaw(),
      health: replay.health(),
      armor: replay.armor(),
      team: replay.team(),
      alive: replay.alive(),
      projectileTick: replay.projectileTick(),
      projectileX: replay.projectileX(),
      projectileY: replay.projectileY(),
    };
    const meta = JSON.parse(replay.metaJson());
    replay.free();
    const buffers = Object.values(arrays).map((a) => a.buffer);
    self.postMessage({ id, name, meta, arrays, parseMs, bytes: bytes.byteLength }, buffers);
  } catch (e) {
    self.postMessage({ id, name, error: e instanceof Error ? e.message : String(e) });
  }
};
