// The replay page: opens a demo (a file picked or dropped, the bundled
// sample, or the demo `gamewire view` serves), has worker.js parse it, and
// draws the replay top-down on a canvas, tick by tick.
//
// What is drawn at tick t is the last frame at or before t (no
// interpolation), so a player's marker sits exactly where the `ticks`
// table puts the player at that frame. `window.gamewireViewer` exposes the
// state for tests and scripts. Opening, parsing and playback are shared
// with the Teeworlds page (replay-page.js).

import { $, createReplayPage, isTeeworldsDemo, openFromAddress } from "./replay-page.js";

const TEAM_COLOURS = { 2: "#e8b04a", 3: "#6cb4f0" };
const OTHER_COLOUR = "#b9c0cc";
const GRENADE_COLOURS = ["#cfd3da", "#f25c54", "#fafafa", "#ff8c1a", "#ff8c1a", "#9a7cf0"];
const FEED_SECONDS = 6;

const canvas = $("map");
const ctx = canvas.getContext("2d");

let drawn = [];

/// Teeworlds demos play in their own page: one fetched from an address is
/// opened there, one picked or dropped gets a link to it.
function acceptSource2(bytes, name, page) {
  if (!isTeeworldsDemo(bytes)) return true;
  if (page.sourceUrl) {
    location.href = "teeworlds.html?demo=" + encodeURIComponent(page.sourceUrl);
    return false;
  }
  page.showError(null);
  $("error").hidden = false;
  $("error").textContent = `${name} is a Teeworlds demo: open it in the `;
  const link = document.createElement("a");
  link.href = "teeworlds.html";
  link.textContent = "Teeworlds replay";
  $("error").append(link);
  return false;
}

const page = createReplayPage({
  workerUrl: new URL("./worker.js", import.meta.url),
  request: () => ({ every: 1 }),
  accept: acceptSource2,
  parsingText: (name, bytes) => `Parsing ${name} (${(bytes.byteLength / 1e6).toFixed(1)} MB)…`,
  loadedText: (name, data) =>
    `${name}: ${data.meta.game} ${data.meta.map}, ${data.meta.players.length} players, ` +
    `ticks ${data.meta.first_tick}–${data.meta.last_tick} (parsed in ${(data.parseMs / 1000).toFixed(2)} s)`,
  tickInterval: (meta) => (meta.tick_interval > 0 ? meta.tick_interval : 1 / 64),
  load(page) {
    const { meta, a } = page.replay;
    page.replay.view = projection(a, meta);
    buildRounds(meta);
  },
  draw,
});

/// World bounds of every position, and the projection to the canvas
/// (x east to the right, y north up), keeping the aspect ratio.
function projection(a, meta) {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const take = (x, y) => {
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  };
  for (let i = 0; i < a.x.length; i++) take(a.x[i], a.y[i]);
  for (let i = 0; i < a.projectileX.length; i++) take(a.projectileX[i], a.projectileY[i]);
  for (const s of meta.smokes.concat(meta.fires)) take(s.x, s.y);
  if (!isFinite(x0)) { x0 = -1000; x1 = 1000; y0 = -1000; y1 = 1000; }
  const margin = 40;
  const w = canvas.width - 2 * margin, h = canvas.height - 2 * margin;
  const scale = Math.min(w / Math.max(x1 - x0, 1), h / Math.max(y1 - y0, 1));
  const ox = margin + (w - (x1 - x0) * scale) / 2;
  const oy = margin + (h - (y1 - y0) * scale) / 2;
  return {
    scale,
    px: (x) => ox + (x - x0) * scale,
    py: (y) => canvas.height - (oy + (y - y0) * scale),
  };
}

function buildRounds(meta) {
  const bar = $("rounds");
  bar.textContent = "";
  const span = Math.max(meta.last_tick - meta.first_tick, 1);
  for (const r of meta.rounds) {
    const d = document.createElement("div");
    d.style.flex = String(Math.max(r.end_tick - r.start_tick, 1) / span);
    d.className = r.winner_team ? `win${r.winner_team}` : "";
    d.title = `round ${r.round}: ticks ${r.start_tick}–${r.end_tick}${r.reason ? ", " + r.reason : ""}`;
    d.dataset.start = String(r.start_tick);
    d.dataset.end = String(r.end_tick);
    d.onclick = () => page.setTick(r.start_tick);
    bar.appendChild(d);
  }
}

function colour(team) {
  return TEAM_COLOURS[team] || OTHER_COLOUR;
}

function draw() {
  const { meta, a, view } = page.replay;
  const t = page.tick;
  const frame = page.frame;
  ctx.fillStyle = "#0e1014";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  // Smokes and fires under everything.
  const disc = (s, fill) => {
    ctx.beginPath();
    ctx.arc(view.px(s.x), view.py(s.y), Math.max(s.radius * view.scale, 3), 0, 2 * Math.PI);
    ctx.fillStyle = fill;
    ctx.fill();
  };
  for (const s of meta.smokes) if (s.start_tick <= t && t < s.end_tick) disc(s, "rgba(200,205,215,0.45)");
  for (const f of meta.fires) if (f.start_tick <= t && t < f.end_tick) disc(f, "rgba(255,120,20,0.45)");
  // Grenades in flight: the flight's last row at or before t.
  for (const g of meta.flights) {
    if (g.start_tick > t || t >= g.end_tick || g.rows === 0) continue;
    let row = -1;
    for (let i = g.first_row; i < g.first_row + g.rows; i++) {
      if (a.projectileTick[i] <= t) row = i; else break;
    }
    if (row < 0) continue;
    ctx.beginPath();
    ctx.arc(view.px(a.projectileX[row]), view.py(a.projectileY[row]), 4, 0, 2 * Math.PI);
    ctx.fillStyle = GRENADE_COLOURS[g.kind] || OTHER_COLOUR;
    ctx.fill();
  }
  // Players.
  drawn = [];
  const positions = new Map();
  if (frame >= 0) {
    for (let r = a.offsets[frame]; r < a.offsets[frame + 1]; r++) {
      const p = meta.players[a.player[r]];
      const x = view.px(a.x[r]), y = view.py(a.y[r]);
      const alive = a.alive[r] !== 0;
      const team = a.team[r];
      positions.set(p.slot, [a.x[r], a.y[r], a.z[r]]);
      drawn.push({
        name: p.name, slot: p.slot, x: a.x[r], y: a.y[r], z: a.z[r],
        yaw: a.yaw[r], health: a.health[r], armor: a.armor[r], team, alive,
        px: x, py: y,
      });
      ctx.strokeStyle = colour(team);
      ctx.fillStyle = colour(team);
      if (!alive) {
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.moveTo(x - 5, y - 5); ctx.lineTo(x + 5, y + 5);
        ctx.moveTo(x + 5, y - 5); ctx.lineTo(x - 5, y + 5);
        ctx.stroke();
        continue;
      }
      if (!Number.isNaN(a.yaw[r])) {
        const rad = (a.yaw[r] * Math.PI) / 180;
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.moveTo(x, y);
        ctx.lineTo(x + Math.cos(rad) * 18, y - Math.sin(rad) * 18);
        ctx.stroke();
      }
      ctx.beginPath();
      ctx.arc(x, y, 7, 0, 2 * Math.PI);
      ctx.fill();
      ctx.lineWidth = 1;
      ctx.strokeStyle = "#000";
      ctx.stroke();
      ctx.fillStyle = "#e8ebf0";
      ctx.font = "11px system-ui, sans-serif";
      ctx.fillText(p.name, x + 10, y - 4);
      if (a.health[r] >= 0) {
        ctx.fillStyle = "#333";
        ctx.fillRect(x + 10, y, 30, 4);
        ctx.fillStyle = a.health[r] > 30 ? "#5c5" : "#e44";
        ctx.fillRect(x + 10, y, 30 * Math.min(a.health[r], 100) / 100, 4);
      }
    }
  }
  // The bomb: carried (at its carrier), dropped or planted (where it
  // happened), gone after a defuse or an explosion.
  const bomb = bombAt(meta.bomb, t, positions);
  if (bomb) {
    const x = view.px(bomb.x), y = view.py(bomb.y);
    ctx.fillStyle = bomb.state === "planted" ? "#ff2020" : "#d03030";
    ctx.fillRect(x - 4, y + 8, 8, 8);
    if (bomb.state === "planted") {
      ctx.strokeStyle = "#ff2020";
      ctx.beginPath();
      ctx.arc(x, y + 12, 10 + 4 * Math.sin(t / 8), 0, 2 * Math.PI);
      ctx.stroke();
    }
  }
  page.replay.bomb = bomb;
  drawFeed(meta, t);
  drawRoundMark(meta, t);
  $("clock").textContent = `tick ${Math.round(t)} / ${meta.last_tick}`;
}

function bombAt(events, t, positions) {
  let last = null;
  for (const e of events) {
    if (e.tick > t) break;
    if (["pickup", "dropped", "planted", "defused", "exploded"].includes(e.action)) last = e;
  }
  if (!last || last.action === "defused" || last.action === "exploded") return null;
  if (last.action === "pickup") {
    const at = positions.get(last.slot);
    return at ? { state: "carried", x: at[0], y: at[1], carrier: last.name } : null;
  }
  if (!Number.isFinite(last.x)) return null;
  return { state: last.action, x: last.x, y: last.y };
}

function drawFeed(meta, t) {
  const since = t - FEED_SECONDS / (meta.tick_interval || 1 / 64);
  const feed = $("feed");
  const rows = meta.kills.filter((k) => k.tick <= t && k.tick > since).slice(-8);
  const key = rows.map((k) => k.tick + k.victim).join("|");
  if (feed.dataset.key === key) return;
  feed.dataset.key = key;
  feed.textContent = "";
  for (const k of rows) {
    const li = document.createElement("li");
    const side = (team) => (team === 2 ? "t" : team === 3 ? "ct" : "");
    const killer = document.createElement("span");
    killer.className = side(k.killer_team);
    killer.textContent = k.killer || "world";
    const victim = document.createElement("span");
    victim.className = side(k.victim_team);
    victim.textContent = k.victim;
    li.append(killer, ` [${k.weapon}${k.headshot ? " HS" : ""}] `, victim);
    feed.appendChild(li);
  }
}

function drawRoundMark(meta, t) {
  for (const d of $("rounds").children) {
    d.classList.toggle("current", Number(d.dataset.start) <= t && t <= Number(d.dataset.end));
  }
}

$("sample").addEventListener("click", () => page.openUrl("sample.dem", "sample.dem"));
openFromAddress(page);

page.expose(() => ({
  game: page.replay ? page.replay.meta.game : null,
  /// Every player marker drawn (world and canvas positions).
  players: drawn.map((p) => ({ ...p })),
  bomb: page.replay ? page.replay.bomb || null : null,
  kills: Number($("feed").children.length),
}));
