// The replay page of Teeworlds 0.7 demos (`.demo`): opens a demo (a file
// picked or dropped, or the one named by `?demo=URL`), has
// teeworlds-worker.js parse it, and draws the game as the players see it
// (from the side, y downwards), tick by tick: tees in their team's colour
// with their aim, name and health, flags, projectiles, lasers, pickups, the
// kill feed and the chat.
//
// What is drawn at tick t is the last snapshot at or before t (a demo
// records a snapshot only when something changed), so a tee's marker sits
// exactly where the snapshot puts it; a projectile is placed at t itself
// along its flight (its snapshot object says where and when it started).
// `window.gamewireViewer` exposes the state for tests and scripts, as the
// Source 2 page does; opening, parsing and playback are shared with it
// (replay-page.js).

import { $, createReplayPage, openFromAddress } from "./replay-page.js";

const TEAM_COLOURS = { 0: "#f05a5a", 1: "#5a8cf0" };
const OTHER_COLOUR = "#e8c25a";
const PICKUP_COLOURS = ["#e04848", "#e8b04a", "#7ad050", "#c08040", "#50c0e0", "#a060e0"];
const WEAPONS = ["hammer", "gun", "shotgun", "grenade", "laser", "ninja"];
const FEED_SECONDS = 6;
const TICK_INTERVAL = 1 / 50;

const canvas = $("map");
const ctx = canvas.getContext("2d");

let drawn = [];
let drawnProjectiles = [];

const page = createReplayPage({
  workerUrl: new URL("./teeworlds-worker.js", import.meta.url),
  parsingText: (name, bytes) => `Parsing ${name} (${(bytes.byteLength / 1e3).toFixed(0)} kB)…`,
  loadedText: (name, data) =>
    `${name}: Teeworlds ${data.meta.kind} demo of ${data.meta.map}, ${data.meta.players.length} players, ` +
    `ticks ${data.meta.first_tick}–${data.meta.last_tick}` +
    (data.meta.cut ? ` (cut short: ${data.meta.cut})` : ""),
  tickInterval: () => TICK_INTERVAL,
  load(page) {
    page.replay.view = projection(page.replay.meta);
  },
  draw,
});

/// The projection of the replay's bounds onto the canvas, keeping the
/// aspect ratio; y grows downwards as in the game.
function projection(meta) {
  let [x0, y0, x1, y1] = meta.bounds;
  // A tee is 28 units wide: a margin of two tiles around what was seen.
  x0 -= 64; y0 -= 64; x1 += 64; y1 += 64;
  const margin = 20;
  const w = canvas.width - 2 * margin, h = canvas.height - 2 * margin;
  const scale = Math.min(w / Math.max(x1 - x0, 1), h / Math.max(y1 - y0, 1));
  const ox = margin + (w - (x1 - x0) * scale) / 2;
  const oy = margin + (h - (y1 - y0) * scale) / 2;
  return { scale, px: (x) => ox + (x - x0) * scale, py: (y) => oy + (y - y0) * scale };
}

const colour = (team) => TEAM_COLOURS[team] || OTHER_COLOUR;

/// A projectile's position at tick t (the game's CalcPos).
function projectileAt(a, i, t) {
  const secs = Math.max(t - a.projectileStartTick[i], 0) * TICK_INTERVAL;
  const d = secs * a.projectileSpeed[i];
  return [
    a.projectileStartX[i] + (a.projectileVelX[i] / 100) * d,
    a.projectileStartY[i] + (a.projectileVelY[i] / 100) * d + (a.projectileCurvature[i] / 10000) * d * d,
  ];
}

function rows(offsets, f) {
  return f < 0 ? [0, 0] : [offsets[f], offsets[f + 1]];
}

function draw() {
  const { meta, a, view } = page.replay;
  const t = page.tick;
  const frame = page.frame;
  const s = view.scale;
  ctx.fillStyle = "#1a2430";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  // The map's tiles are not drawn: a faint 32-unit grid stands for them.
  ctx.strokeStyle = "rgba(255,255,255,0.05)";
  ctx.lineWidth = 1;
  if (32 * s >= 6) {
    const [bx0, by0, bx1, by1] = meta.bounds;
    for (let x = Math.floor((bx0 - 64) / 32) * 32; x <= bx1 + 64; x += 32) {
      ctx.beginPath(); ctx.moveTo(view.px(x), 0); ctx.lineTo(view.px(x), canvas.height); ctx.stroke();
    }
    for (let y = Math.floor((by0 - 64) / 32) * 32; y <= by1 + 64; y += 32) {
      ctx.beginPath(); ctx.moveTo(0, view.py(y)); ctx.lineTo(canvas.width, view.py(y)); ctx.stroke();
    }
  }
  // Pickups.
  const [p0, p1] = rows(a.pickupOffsets, frame);
  for (let i = p0; i < p1; i++) {
    const x = view.px(a.pickupX[i]), y = view.py(a.pickupY[i]);
    const r = Math.max(10 * s, 3);
    ctx.fillStyle = PICKUP_COLOURS[a.pickupKind[i]] || OTHER_COLOUR;
    ctx.fillRect(x - r, y - r, 2 * r, 2 * r);
  }
  // Flags: a pole and a pennant in the team's colour.
  const [f0, f1] = rows(a.flagOffsets, frame);
  const flags = [];
  for (let i = f0; i < f1; i++) {
    const x = view.px(a.flagX[i]), y = view.py(a.flagY[i]);
    const h = Math.max(60 * s, 14);
    ctx.strokeStyle = "#ddd";
    ctx.lineWidth = 2;
    ctx.beginPath(); ctx.moveTo(x, y + h / 2); ctx.lineTo(x, y - h / 2); ctx.stroke();
    ctx.fillStyle = colour(a.flagTeam[i]);
    ctx.beginPath(); ctx.moveTo(x, y - h / 2); ctx.lineTo(x + h / 2, y - h / 3); ctx.lineTo(x, y - h / 6); ctx.fill();
    flags.push({ team: a.flagTeam[i], x: a.flagX[i], y: a.flagY[i] });
  }
  // Lasers.
  const [l0, l1] = rows(a.laserOffsets, frame);
  ctx.strokeStyle = "#8fd8ff";
  ctx.lineWidth = 3;
  for (let i = l0; i < l1; i++) {
    ctx.beginPath();
    ctx.moveTo(view.px(a.laserFromX[i]), view.py(a.laserFromY[i]));
    ctx.lineTo(view.px(a.laserX[i]), view.py(a.laserY[i]));
    ctx.stroke();
  }
  // Projectiles, at the tick shown.
  drawnProjectiles = [];
  const [q0, q1] = rows(a.projectileOffsets, frame);
  for (let i = q0; i < q1; i++) {
    const [wx, wy] = projectileAt(a, i, t);
    drawnProjectiles.push({ weapon: WEAPONS[a.projectileWeapon[i]] || String(a.projectileWeapon[i]), x: wx, y: wy });
    ctx.beginPath();
    ctx.arc(view.px(wx), view.py(wy), a.projectileWeapon[i] === 3 ? 5 : 3, 0, 2 * Math.PI);
    ctx.fillStyle = a.projectileWeapon[i] === 3 ? "#ff8c1a" : "#f0f0f0";
    ctx.fill();
  }
  // Tees.
  drawn = [];
  const [t0, t1] = rows(a.teeOffsets, frame);
  for (let i = t0; i < t1; i++) {
    const player = a.teePlayer[i] >= 0 ? meta.players[a.teePlayer[i]] : null;
    const name = player ? player.name : `#${a.teeClientId[i]}`;
    const x = view.px(a.teeX[i]), y = view.py(a.teeY[i]);
    const r = Math.max(14 * s, 6);
    const team = a.teeTeam[i];
    const angle = a.teeAngle[i] / 256;
    drawn.push({
      name, clientId: a.teeClientId[i], x: a.teeX[i], y: a.teeY[i], angle,
      health: a.teeHealth[i], armor: a.teeArmor[i], team,
      weapon: WEAPONS[a.teeWeapon[i]] || String(a.teeWeapon[i]), px: x, py: y,
    });
    if (a.teeHookState[i] > 0) {
      ctx.strokeStyle = "#bbb";
      ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(view.px(a.teeHookX[i]), view.py(a.teeHookY[i])); ctx.stroke();
    }
    ctx.strokeStyle = colour(team);
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(x, y);
    ctx.lineTo(x + Math.cos(angle) * (r + 10), y + Math.sin(angle) * (r + 10));
    ctx.stroke();
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fillStyle = colour(team);
    ctx.fill();
    ctx.strokeStyle = "#000";
    ctx.lineWidth = 1;
    ctx.stroke();
    ctx.fillStyle = "#f0f2f5";
    ctx.font = "12px system-ui, sans-serif";
    ctx.textAlign = "center";
    ctx.fillText(name, x, y - r - 12);
    ctx.textAlign = "start";
    if (a.teeHealth[i] >= 0) {
      ctx.fillStyle = "#333";
      ctx.fillRect(x - 15, y - r - 8, 30, 4);
      ctx.fillStyle = "#5c5";
      ctx.fillRect(x - 15, y - r - 8, 3 * Math.min(a.teeHealth[i], 10), 4);
    }
  }
  page.replay.flags = flags;
  drawLines($("feed"), meta.kills.filter((k) => k.tick <= t && k.tick > t - FEED_SECONDS / TICK_INTERVAL).slice(-8),
    (k) => `${k.killer || "world"} [${WEAPONS[k.weapon] || "world"}] ${k.victim || "?"}`);
  drawLines($("chat"), meta.chat.filter((c) => c.tick <= t).slice(-10),
    (c) => (c.client_id >= 0 ? `${c.name || "#" + c.client_id}: ` : "*** ") + c.message);
  $("clock").textContent = `tick ${Math.round(t)} / ${meta.last_tick}`;
}

function drawLines(list, items, text) {
  const key = items.map((i) => i.tick + text(i)).join("|");
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.textContent = "";
  for (const item of items) {
    const li = document.createElement("li");
    li.textContent = text(item);
    list.appendChild(li);
  }
}

openFromAddress(page);

page.expose(() => ({
  game: page.replay ? "teeworlds" : null,
  /// Every tee drawn (world and canvas positions), the projectiles and
  /// flags drawn.
  players: drawn.map((p) => ({ ...p })),
  projectiles: drawnProjectiles.map((p) => ({ ...p })),
  flags: page.replay && page.replay.flags ? page.replay.flags.map((f) => ({ ...f })) : [],
  kills: Number($("feed").children.length),
  chat: Array.from($("chat").children, (li) => li.textContent),
}));
