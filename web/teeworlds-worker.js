// The parse of a Teeworlds 0.7 demo, off the page's thread: the
// WebAssembly build of gamewire (pkg/, written by scripts/build_web.sh)
// turns the demo's bytes into a replay, whose arrays go back to the page
// as transferred buffers (no copy).
import init, { TeeworldsReplay } from "./pkg/gamewire_wasm.js";

const ready = init();

const ARRAYS = [
  "ticks", "redCarrier", "blueCarrier", "redScore", "blueScore",
  "teeOffsets", "teeClientId", "teePlayer", "teeX", "teeY", "teeAngle", "teeTeam",
  "teeHealth", "teeArmor", "teeWeapon", "teeHookState", "teeHookX", "teeHookY",
  "projectileOffsets", "projectileStartX", "projectileStartY", "projectileVelX",
  "projectileVelY", "projectileWeapon", "projectileStartTick", "projectileSpeed",
  "projectileCurvature",
  "laserOffsets", "laserX", "laserY", "laserFromX", "laserFromY",
  "pickupOffsets", "pickupX", "pickupY", "pickupKind",
  "flagOffsets", "flagX", "flagY", "flagTeam",
];

self.onmessage = async (event) => {
  const { id, bytes, name } = event.data;
  try {
    await ready;
    const started = performance.now();
    const replay = TeeworldsReplay.fromBytes(new Uint8Array(bytes));
    const parseMs = performance.now() - started;
    const arrays = {};
    for (const key of ARRAYS) arrays[key] = replay[key]();
    const meta = JSON.parse(replay.metaJson());
    replay.free();
    const buffers = Object.values(arrays).map((a) => a.buffer);
    self.postMessage({ id, name, meta, arrays, parseMs, bytes: bytes.byteLength }, buffers);
  } catch (e) {
    self.postMessage({ id, name, error: e instanceof Error ? e.message : String(e) });
  }
};
