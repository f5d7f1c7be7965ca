// What the two replay pages (index.html for Source 2 demos, teeworlds.html
// for Teeworlds demos) share: opening a demo (a file picked or dropped, or
// the URL named by `?demo=`), parsing it in a Web Worker (a fresh worker
// after a failure, so a broken module is never reused), the playback clock
// (play, pause, seek, speed; what is drawn at tick t is the last frame at or
// before t), and the base of `window.gamewireViewer`, the state tests and
// scripts read. Each page supplies what differs: its worker, the status
// lines, the projection and the drawing.

export const $ = (id) => document.getElementById(id);

/// True when an ArrayBuffer holds a Teeworlds demo (`TWDEMO` and a NUL).
export function isTeeworldsDemo(bytes) {
  const head = new Uint8Array(bytes, 0, Math.min(7, bytes.byteLength));
  return head.length === 7 && String.fromCharCode(...head) === "TWDEMO\0";
}

/// A replay page. `options`:
/// - `workerUrl`: the parser's worker module;
/// - `request(bytes, name)`: extra fields of the parse request;
/// - `parsingText(name, bytes)`, `loadedText(name, data)`: status lines;
/// - `accept(bytes, name, page)`: false keeps the page from parsing them
///   (the page has said why);
/// - `tickInterval(meta)`: seconds per tick, for playing at speed 1;
/// - `load(page)`: after `page.replay` is set, before the first draw
///   (projections, round bars);
/// - `draw(page)`: draws `page.tick` (and `page.frame`).
export function createReplayPage(options) {
  const waiters = [];
  let worker = null;
  let requestId = 0;
  let lastTime = null;

  const page = {
    replay: null, // { name, meta, a (arrays), ... }
    tick: 0,
    frame: -1,
    playing: false,
    speed: 1,
    error: null,
    loading: null,
    parseInfo: null,
    finished: 0,
    /// Where the demo being opened was fetched from (`?demo=`), if it was.
    sourceUrl: null,

    showError(message) {
      page.error = message;
      $("error").textContent = message || "";
      $("error").hidden = !message;
    },

    setStatus(text) {
      $("status").textContent = text;
    },

    /// Parses `bytes` (an ArrayBuffer) in the worker.
    open(bytes, name) {
      if (options.accept && !options.accept(bytes, name, page)) return;
      if (!worker) newWorker();
      requestId += 1;
      page.loading = { id: requestId, name };
      page.showError(null);
      page.setStatus(options.parsingText(name, bytes));
      const extra = options.request ? options.request(bytes, name) : {};
      worker.postMessage({ id: requestId, bytes, name, ...extra }, [bytes]);
    },

    async openUrl(url, name) {
      page.sourceUrl = url;
      try {
        page.setStatus(`Fetching ${name}…`);
        const response = await fetch(url);
        if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
        page.open(await response.arrayBuffer(), name);
      } catch (e) {
        page.showError(`${name}: ${e.message}`);
        page.finished += 1;
      }
    },

    openFile(file) {
      page.sourceUrl = null;
      file.arrayBuffer().then(
        (bytes) => page.open(bytes, file.name),
        (e) => page.showError(`${file.name}: ${e.message}`),
      );
    },

    /// The last frame at or before `t` (-1 before the first).
    frameAt(t) {
      const ticks = page.replay.a.ticks;
      let lo = 0, hi = ticks.length - 1, found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (ticks[mid] <= t) { found = mid; lo = mid + 1; } else hi = mid - 1;
      }
      return found;
    },

    setTick(t) {
      if (!page.replay) return;
      const m = page.replay.meta;
      page.tick = Math.min(Math.max(Math.round(t), m.first_tick), m.last_tick);
      page.frame = page.frameAt(page.tick);
      $("seek").value = String(page.tick);
      options.draw(page);
    },

    play() {
      if (!page.replay) return;
      if (page.tick >= page.replay.meta.last_tick) page.setTick(page.replay.meta.first_tick);
      page.playing = true;
      lastTime = null;
      $("play").textContent = "Pause";
      requestAnimationFrame(step);
    },

    pause() {
      page.playing = false;
      $("play").textContent = "Play";
    },

    /// What every page's `window.gamewireViewer.state()` holds; the page
    /// adds its own fields.
    baseState() {
      const r = page.replay;
      return {
        loading: page.loading !== null,
        finished: page.finished,
        error: page.error,
        name: r ? r.name : null,
        firstTick: r ? r.meta.first_tick : null,
        lastTick: r ? r.meta.last_tick : null,
        tick: Math.round(page.tick),
        frameTick: r && page.frame >= 0 ? r.a.ticks[page.frame] : null,
        playing: page.playing,
        speed: page.speed,
        parse: page.parseInfo,
      };
    },

    /// `window.gamewireViewer`: the state (`baseState` and `extraState()`)
    /// and the controls, for tests and scripts.
    expose(extraState) {
      window.gamewireViewer = {
        state() {
          return { ...page.baseState(), ...extraState() };
        },
        /// The replay's frame ticks.
        frameTicks() {
          return page.replay ? Array.from(page.replay.a.ticks) : [];
        },
        seek(t) { page.pause(); page.setTick(t); return this.state(); },
        play: () => page.play(),
        pause: () => page.pause(),
        setSpeed(s) { page.speed = s; $("speed").value = String(s); },
        /// Resolves when the parse under way (if any) has finished.
        idle() {
          return page.loading ? new Promise((resolve) => waiters.push(resolve)) : Promise.resolve();
        },
        /// Parses bytes given directly (benchmarks).
        openBytes(bytes, name) { page.open(bytes, name); return this.idle(); },
      };
    },
  };

  function newWorker() {
    if (worker) worker.terminate();
    worker = new Worker(options.workerUrl, { type: "module" });
    worker.onmessage = (event) => {
      if (!page.loading || event.data.id !== page.loading.id) return;
      finish(event.data);
    };
    worker.onerror = (e) => {
      e.preventDefault();
      finish({ error: e.message || "the parser's worker failed" });
    };
  }

  function finish(data) {
    const name = page.loading ? page.loading.name : data.name;
    page.loading = null;
    if (data.error) {
      // A worker that failed may hold a broken module: the next parse gets
      // a fresh one.
      newWorker();
      page.showError(`${name}: ${data.error}`);
      page.setStatus(`Could not open ${name}.`);
    } else {
      page.parseInfo = { parseMs: data.parseMs, bytes: data.bytes };
      page.replay = { name, meta: data.meta, a: data.arrays };
      const seek = $("seek");
      seek.min = String(data.meta.first_tick);
      seek.max = String(data.meta.last_tick);
      seek.disabled = false;
      $("play").disabled = false;
      options.load(page);
      page.setTick(data.meta.first_tick);
      page.pause();
      page.setStatus(options.loadedText(name, data));
    }
    page.finished += 1;
    while (waiters.length) waiters.shift()();
  }

  function step(now) {
    if (!page.playing || !page.replay) return;
    const last = page.replay.meta.last_tick;
    if (lastTime !== null) {
      const next = page.tick + ((now - lastTime) / 1000) * page.speed / options.tickInterval(page.replay.meta);
      page.setTick(next);
      page.tick = next < last ? next : last;
      if (page.tick >= last) page.pause();
    }
    lastTime = now;
    if (page.playing) requestAnimationFrame(step);
  }

  $("file").addEventListener("change", (e) => {
    const file = e.target.files[0];
    if (file) page.openFile(file);
    e.target.value = "";
  });
  $("play").addEventListener("click", () => (page.playing ? page.pause() : page.play()));
  $("seek").addEventListener("input", (e) => { page.pause(); page.setTick(Number(e.target.value)); });
  $("speed").addEventListener("change", (e) => { page.speed = Number(e.target.value); });
  document.addEventListener("dragover", (e) => { e.preventDefault(); document.body.classList.add("dragging"); });
  document.addEventListener("dragleave", () => document.body.classList.remove("dragging"));
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    document.body.classList.remove("dragging");
    const file = e.dataTransfer.files[0];
    if (file) page.openFile(file);
  });
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || !page.replay) return;
    if (e.key === " ") { e.preventDefault(); page.playing ? page.pause() : page.play(); }
  });
  return page;
}

/// Opens the demo the page's address names (`?demo=URL`), as `gamewire
/// view DEMO` serves it (`?demo=demo/<name>`).
export function openFromAddress(page) {
  const url = new URLSearchParams(location.search).get("demo");
  if (url) page.openUrl(url, decodeURIComponent(url.split("/").pop()));
}
