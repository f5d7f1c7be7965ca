// The Teeworlds replay page (web/teeworlds.html) in a real browser:
// Debian's Chromium driven by playwright-core. Run by
// crates/cli/tests/tw_replay.rs, which records a demo on the real 0.7.5
// server, writes the plan (the demo, the ticks to check and the tee
// positions the replay model gives there, a damaged file) and checks the
// screenshot afterwards:
//
//   node web/tests/teeworlds.test.mjs PLAN.json
//
// The page is served from web/ by harness.mjs (shared with the other page
// test); each demo is opened through the file input, played and seeked; at each planned tick
// the tees the page drew must sit where the model puts them. A damaged
// file must show the parser's message, and the page must stay responsive.
// Any error in the browser's console fails the run. Prints "N passed, N
// failed".

import { readFileSync, statSync } from "node:fs";
import { start } from "./harness.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));

const { page, check, viewer, close, finish } = await start("teeworlds.html", plan.chromium);
try {
  const idle = () => viewer(() => window.gamewireViewer.idle());
  const state = () => viewer(() => window.gamewireViewer.state());

  for (const demo of plan.demos) {
    const label = demo.label;
    await page.setInputFiles("#file", demo.path);
    // Opened, or refused with the parser's message (a small file may be
    // done before a poll sees it loading).
    await page.waitForFunction((name) => {
      const s = window.gamewireViewer.state();
      return !s.loading && (s.name === name || (s.error !== null && s.error.includes(name)));
    }, demo.name);
    await idle();
    const s0 = await state();
    if (demo.error) {
      const shown = await page.textContent("#error");
      const visible = await page.isVisible("#error");
      check(visible && shown.includes(demo.name), `${label}: error shown (${shown})`);
      check(s0.error && s0.error.includes(demo.error), `${label}: the parser's message (${s0.error})`);
      const t = Date.now();
      check((await viewer(() => 1 + 1)) === 2 && Date.now() - t < 2000, `${label}: page responsive`);
      console.log(`${label}: error shown: ${s0.error}`);
      continue;
    }
    check(!s0.error, `${label}: no error (${s0.error})`);
    check(s0.name === demo.name && s0.game === "teeworlds", `${label}: opened (${s0.name}, ${s0.game})`);
    // Play: the tick moves on; pause: it stops.
    await viewer(() => { window.gamewireViewer.setSpeed(4); window.gamewireViewer.play(); });
    await page.waitForTimeout(500);
    const s1 = await state();
    await viewer(() => window.gamewireViewer.pause());
    check(s1.playing && s1.tick > s0.tick, `${label}: playing moves the tick (${s0.tick} -> ${s1.tick})`);
    const s2 = await state();
    await page.waitForTimeout(200);
    check((await state()).tick === s2.tick && !s2.playing, `${label}: paused`);
    // Seek to each planned tick: the tees drawn are the model's.
    for (const at of demo.ticks) {
      const s = await viewer((t) => window.gamewireViewer.seek(t), at.tick);
      check(s.tick === at.tick && s.frameTick === at.tick, `${label}: seek to ${at.tick} (${s.tick}, snapshot ${s.frameTick})`);
      const drawn = new Map(s.players.map((p) => [p.clientId, p]));
      let same = drawn.size === at.tees.length;
      for (const want of at.tees) {
        const got = drawn.get(want.clientId);
        if (!got || got.x !== want.x || got.y !== want.y || got.name !== want.name) {
          same = false;
          console.log(`  ${label} tick ${at.tick} tee ${want.clientId}: model ${want.name} ${want.x},${want.y} page ${got ? got.name + " " + got.x + "," + got.y : "none"}`);
        }
        if (got && !(got.px >= 0 && got.px <= 900 && got.py >= 0 && got.py <= 720)) same = false;
      }
      check(same, `${label}: tick ${at.tick}: ${at.tees.length} tees where the model puts them (${drawn.size} drawn)`);
    }
    if (demo.screenshot) {
      const s = await viewer((t) => window.gamewireViewer.seek(t), demo.screenshotTick);
      // By then the clients have spoken: their lines are in the chat.
      check(s.chat.some((line) => line.includes(demo.chat)), `${label}: chat shown (${s.chat.join(" | ")})`);
      await page.screenshot({ path: demo.screenshot });
      check(statSync(demo.screenshot).size > 5000, `${label}: screenshot written`);
    }
  }
} catch (e) {
  await close();
  throw e;
}
await finish();
