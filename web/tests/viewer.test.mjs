// The replay viewer in a real browser: Debian's Chromium driven by
// playwright-core. Run by crates/wasm/tests/browser.rs, which writes the
// plan (the demos to open, the ticks to check and the positions the
// `ticks` table gives there) and checks the screenshots afterwards:
//
//   node web/tests/viewer.test.mjs PLAN.json
//
// The page is served from web/ by harness.mjs (shared with the other page
// test); each demo is opened as a user would (the sample button, the file input), played and
// seeked; at each planned tick the markers the page drew must sit where
// the `ticks` table puts the players. Damaged and foreign files must show
// the parser's message in the page, which must stay responsive. Any error
// in the browser's console fails the run. Prints "N passed, N failed".

import { readFileSync, statSync } from "node:fs";
import { start } from "./harness.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));

const { page, check, viewer, close, finish } = await start("index.html", plan.chromium);
try {
  const state = () => viewer(() => window.gamewireViewer.state());

  for (const demo of plan.demos) {
    const started = Date.now();
    const before = (await state()).finished;
    if (demo.open === "sample") {
      await page.click("#sample");
    } else {
      await page.setInputFiles("#file", demo.path);
    }
    await page.waitForFunction((n) => window.gamewireViewer.state().finished > n, before, {
      timeout: 120000,
    });
    const s0 = await state();
    const label = demo.label;
    if (demo.error) {
      // A damaged or foreign file: the parser's message in the page, and a
      // page that still answers at once.
      const shown = await page.textContent("#error");
      const visible = await page.isVisible("#error");
      check(visible && shown.includes(demo.name), `${label}: error shown (${shown})`);
      check(s0.error && s0.error.length > demo.name.length + 2, `${label}: error message (${s0.error})`);
      const t = Date.now();
      check((await viewer(() => 1 + 1)) === 2 && Date.now() - t < 2000, `${label}: page responsive`);
      console.log(`${label}: error shown: ${s0.error}`);
      continue;
    }
    check(!s0.error, `${label}: no error (${s0.error})`);
    check(s0.name === demo.name, `${label}: opened (${s0.name})`);
    check(s0.game === demo.game, `${label}: game ${s0.game}`);
    console.log(`${label}: parsed in ${(s0.parse.parseMs / 1000).toFixed(2)} s, opened in ${((Date.now() - started) / 1000).toFixed(2)} s`);
    // Play: the tick moves on; pause: it stops.
    await viewer(() => { window.gamewireViewer.setSpeed(8); window.gamewireViewer.play(); });
    await page.waitForTimeout(700);
    const s1 = await state();
    await viewer(() => window.gamewireViewer.pause());
    // A short demo may reach its end (playing stops there) before the check.
    check(
      s1.tick > s0.tick && (s1.playing || s1.tick === s1.lastTick),
      `${label}: playing moves the tick (${s0.tick} -> ${s1.tick})`,
    );
    const s2 = await state();
    await page.waitForTimeout(200);
    check((await state()).tick === s2.tick && !s2.playing, `${label}: paused`);
    // Seek to each planned tick; the markers drawn equal the table's rows.
    for (const at of demo.ticks) {
      const s = await viewer((t) => window.gamewireViewer.seek(t), at.tick);
      check(s.tick === at.tick && s.frameTick === at.tick, `${label}: seek to ${at.tick} (${s.tick}, frame ${s.frameTick})`);
      const drawn = new Map(s.players.map((p) => [p.slot, p]));
      let same = drawn.size === at.players.length;
      for (const want of at.players) {
        const got = drawn.get(want.slot);
        if (!got || got.x !== Math.fround(want.x) || got.y !== Math.fround(want.y)) {
          same = false;
          console.log(`  ${label} tick ${at.tick} slot ${want.slot}: table ${want.x},${want.y} page ${got ? got.x + "," + got.y : "none"}`);
        }
        if (got && !(got.px >= 0 && got.px <= 900 && got.py >= 0 && got.py <= 720)) same = false;
      }
      check(same, `${label}: tick ${at.tick}: ${at.players.length} players where the ticks table puts them (${drawn.size} drawn)`);
    }
    if (demo.screenshot) {
      await viewer((t) => window.gamewireViewer.seek(t), demo.screenshotTick);
      await page.screenshot({ path: demo.screenshot });
      check(statSync(demo.screenshot).size > 5000, `${label}: screenshot written`);
    }
  }
} catch (e) {
  await close();
  throw e;
}
await finish();
