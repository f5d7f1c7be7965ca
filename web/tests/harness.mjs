// What the browser tests of the replay pages share: a static server of
// web/, Debian's Chromium started by playwright-core with a fresh profile,
// a page that records console errors, and the pass/fail count.
//
//   const run = await start("index.html", plan.chromium);
//   run.check(ok, "what was checked");
//   ...
//   await run.finish();   // checks the console, prints "N passed, N failed", exits

import { createServer } from "node:http";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, normalize, resolve, sep, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const webRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
};

/// Serves web/ on 127.0.0.1 (a port of the system's choosing); nothing
/// outside it.
function serve() {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const file = normalize(join(webRoot, path.endsWith("/") ? path + "index.html" : path));
    if (!file.startsWith(webRoot + sep)) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = readFileSync(file);
      res.writeHead(200, { "Content-Type": TYPES[extname(file)] || "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((ok) => server.listen(0, "127.0.0.1", () => ok(server)));
}

/// Serves web/, starts Chromium (`chromiumPath`, else /usr/bin/chromium)
/// with a fresh profile, opens `pageName` and waits for the page's
/// `window.gamewireViewer`. Returns the page, `check`, `viewer` (evaluate
/// in the page) and `finish`.
export async function start(pageName, chromiumPath) {
  let passed = 0;
  let failed = 0;
  const check = (ok, what) => {
    if (ok) {
      passed += 1;
    } else {
      failed += 1;
      console.log(`FAIL: ${what}`);
    }
  };
  const server = await serve();
  const base = `http://127.0.0.1:${server.address().port}/`;
  const profile = mkdtempSync(join(tmpdir(), "gamewire-chromium-"));
  // A fresh profile (Playwright's persistent context is how it takes a
  // --user-data-dir of ours).
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 960 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const consoleErrors = [];
  const close = async () => {
    await browser.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  };
  let page;
  try {
    page = await browser.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text());
    });
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    await page.goto(base + pageName);
    await page.waitForFunction(() => window.gamewireViewer !== undefined);
  } catch (e) {
    await close();
    throw e;
  }
  const finish = async () => {
    check(consoleErrors.length === 0, `no console errors (${consoleErrors.join(" | ")})`);
    await close();
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed === 0 ? 0 : 1);
  };
  return {
    page,
    check,
    viewer: (f, arg) => page.evaluate(f, arg),
    close,
    finish,
  };
}
