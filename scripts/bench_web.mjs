// The viewer's speed and memory (a benchmark, not a test):
//
// 1. Throughput: each corpus demo's replay built in Chromium (the page's
//    worker, WebAssembly; the time the worker measures around
//    Replay.fromBytes) against the same replay built natively
//    (crates/wasm/examples/replay_native.rs, release), interleaved, best of
//    RUNS each; the ratio is wasm's throughput over native's.
// 2. Memory: a looped demo (default target/looped/cs2-100mb.dem, made by
//    scripts/make_looped.sh) fetched and opened by the page, with the
//    renderer processes' resident memory (/proc/PID/status VmRSS, summed,
//    sampled every 50 ms) at its peak.
//
//   scripts/build_web.sh
//   cargo build --release -p gamewire-wasm --example replay_native
//   node scripts/bench_web.mjs [RUNS] [LOOPED_DEMO]
//
// Needs .ci/setup-web.sh start (Chromium, web/pkg, playwright-core).

import { createServer } from "node:http";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir, cpus, loadavg } from "node:os";
import { dirname, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const web = join(root, "web");
const require = createRequire(join(web, "tests", "package.json"));
const { chromium } = require("playwright-core");

const runs = Number(process.argv[2] || 3);
const corpus = process.env.GAMEWIRE_CORPUS || resolve(root, "..", "shared", "corpus");
const looped = process.argv[3] || join(root, "target", "looped", "cs2-100mb.dem");
const native = join(root, "target", "release", "examples", "replay_native");
const demos = ["cs2", "deadlock", "dota2"].flatMap((game) => {
  const dir = join(corpus, game);
  return existsSync(dir)
    ? readdirSync(dir).filter((f) => f.endsWith(".dem")).map((f) => join(dir, f))
    : [];
});

const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };
const files = new Map(demos.concat([looped]).map((p, i) => [`/bench/${i}.dem`, p]));
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
  const file = files.get(path) || normalize(join(web, path === "/" ? "index.html" : path));
  if (!files.has(path) && !file.startsWith(web + sep)) return res.writeHead(403).end();
  try {
    res.writeHead(200, { "Content-Type": TYPES[extname(file)] || "application/octet-stream" });
    res.end(readFileSync(file));
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const base = `http://127.0.0.1:${server.address().port}/`;
const urlOf = (p) => [...files].find(([, f]) => f === p)[0];

const profile = mkdtempSync(join(tmpdir(), "gamewire-bench-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.GAMEWIRE_CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});

/// Memory of this browser's renderer processes (the tab and its worker),
/// in bytes: the descendants of the process started with our profile whose
/// command line says `--type=renderer`. `rss` sums their resident sets
/// (pages shared between them, such as Chromium's own code, counted once
/// per process); `pss` sums their proportional sets (a shared page split
/// between the processes sharing it), which is what the tab costs.
function rendererMemory() {
  const procs = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      procs.set(Number(pid), { cmd, ppid });
    } catch {
      // The process ended.
    }
  }
  const ours = new Set([...procs].filter(([, p]) => p.cmd.includes(profile)).map(([pid]) => pid));
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, p] of procs) {
      if (!ours.has(pid) && ours.has(p.ppid)) { ours.add(pid); grew = true; }
    }
  }
  const total = { rss: 0, pss: 0 };
  for (const pid of ours) {
    if (!procs.get(pid).cmd.includes("--type=renderer")) continue;
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
      const rss = /\nRss:\s+(\d+) kB/.exec(rollup);
      const pss = /\nPss:\s+(\d+) kB/.exec(rollup);
      if (rss) total.rss += Number(rss[1]) * 1024;
      if (pss) total.pss += Number(pss[1]) * 1024;
    } catch {
      // The process ended.
    }
  }
  return total;
}

async function wasmParse(page, path) {
  return page.evaluate(async (url) => {
    const bytes = await (await fetch(url)).arrayBuffer();
    await window.gamewireViewer.openBytes(bytes, url.split("/").pop());
    const s = window.gamewireViewer.state();
    if (s.error) throw new Error(s.error);
    return s.parse.parseMs / 1000;
  }, urlOf(path));
}

/// The native build's best of `reps` in one process (warm, as the page's
/// module is after its first runs).
function nativeParse(path, reps = 3) {
  const out = execFileSync(native, [String(reps), path], { encoding: "utf8", maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split("\n").pop()).seconds;
}

try {
  const page = await browser.newPage();
  await page.goto(base);
  await page.waitForFunction(() => window.gamewireViewer !== undefined);
  console.log(`CPU: ${cpus()[0].model} x${cpus().length}; load at start ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  // Warm-up: the first runs of a module's functions are baseline-compiled
  // code; V8 swaps in its optimised code as they run, so time only after.
  for (let i = 0; i < 3; i++) await wasmParse(page, demos[0]);
  console.log("demo | MB | native s | wasm s | native MB/s | wasm MB/s | wasm/native");
  let nativeTotal = 0, wasmTotal = 0, bytesTotal = 0;
  for (const path of demos) {
    let n = Infinity, w = Infinity;
    for (let i = 0; i < runs; i++) {
      n = Math.min(n, nativeParse(path));
      w = Math.min(w, await wasmParse(page, path));
    }
    const mb = statSync(path).size / 1e6;
    nativeTotal += n; wasmTotal += w; bytesTotal += mb;
    console.log(`${path.split(sep).slice(-2).join("/")} | ${mb.toFixed(2)} | ${n.toFixed(3)} | ${w.toFixed(3)} | ${(mb / n).toFixed(1)} | ${(mb / w).toFixed(1)} | ${(n / w * 100).toFixed(0)}%`);
  }
  console.log(`corpus | ${bytesTotal.toFixed(2)} | ${nativeTotal.toFixed(3)} | ${wasmTotal.toFixed(3)} | ${(bytesTotal / nativeTotal).toFixed(1)} | ${(bytesTotal / wasmTotal).toFixed(1)} | ${(nativeTotal / wasmTotal * 100).toFixed(0)}%`);
  console.log(`load after throughput: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);

  if (existsSync(looped)) {
    await page.reload();
    await page.waitForFunction(() => window.gamewireViewer !== undefined);
    const mib = (b) => (b / 2 ** 20).toFixed(0);
    const before = rendererMemory();
    const peak = { ...before };
    const sample = () => {
      const m = rendererMemory();
      peak.rss = Math.max(peak.rss, m.rss);
      peak.pss = Math.max(peak.pss, m.pss);
    };
    const timer = setInterval(sample, 50);
    const started = Date.now();
    const seconds = await wasmParse(page, looped);
    const drawn = await page.evaluate(() => window.gamewireViewer.seek(1e9).players.length);
    clearInterval(timer);
    sample();
    const after = rendererMemory();
    const heap = await page.evaluate(() => (performance.memory ? performance.memory.usedJSHeapSize : 0));
    const n = nativeParse(looped, 2);
    const mb = statSync(looped).size / 1e6;
    console.log(`looped ${looped}: ${mb.toFixed(0)} MB parsed in ${seconds.toFixed(1)} s in wasm (${((Date.now() - started) / 1000).toFixed(1)} s with the fetch), ${n.toFixed(1)} s natively: ${(n / seconds * 100).toFixed(0)}%; ${drawn} players drawn at the end`);
    console.log(`renderer PSS: before ${mib(before.pss)} MiB, peak ${mib(peak.pss)} MiB, after ${mib(after.pss)} MiB (RSS summed: ${mib(before.rss)}, ${mib(peak.rss)}, ${mib(after.rss)}); page JS heap ${mib(heap)} MiB`);
    console.log(`load at end: ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  } else {
    console.log(`no looped demo at ${looped} (scripts/make_looped.sh makes one)`);
  }
} finally {
  await browser.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
