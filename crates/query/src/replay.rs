//! A demo as a 2D replay: what a top-down viewer draws at each tick.
//!
//! The replay is built from the query tables of one pass over the demo, not
//! from decoding of its own: `ticks` (players' position, view direction,
//! health, armor, team, life), and for CS2 `grenades` (projectiles in
//! flight), `smokes` and `infernos` (smokes and fires, from start to end),
//! `bomb` (carried, dropped, planted), `kills` (the kill feed) and `rounds`
//! (the round timeline). Deadlock and Dota 2 give the players' (heroes')
//! positions, health and team.
//!
//! The pass is a [`FollowRun`] fed the demo in chunks: the rows of `ticks`
//! and `kills` are turned into the replay's arrays batch by batch as the
//! parse makes them, so the `ticks` table (a row of generic cells per
//! player and tick) is never held whole. A 100 MB demo's replay costs its
//! arrays, about 33 MB, not a table several times that.
//!
//! # Layout
//!
//! Per-tick data is kept as a struct of arrays ([`Frames`]): one vector per
//! field, one entry per player row, the rows of frame `i` being
//! `offsets[i]..offsets[i + 1]`. A browser receives each vector as one typed
//! array (`Float32Array`, `Int16Array`, ...) copied once, with no per-row
//! object; a match of 100 000 ticks and 10 players is about 2.6 MB of floats
//! per field. Projectile positions ([`Projectiles`]) are laid out the same
//! way, one run of rows per flight. Everything small (the roster, the kill
//! feed, rounds, smokes, fires, bomb events) is plain structs, serialisable
//! as JSON.
//!
//! # Ticks kept
//!
//! [`ReplayOptions::every`] keeps every k-th tick the demo has a frame for
//! (a first pass reads the frame ticks without decoding anything else, and
//! the `ticks` table is asked for those ticks only), so the memory of a
//! long demo shrinks k times. Player rows without a position (a player with
//! no pawn, the CSTV client) are left out: nothing is drawn for them.
//!
//! # Extents
//!
//! Smokes and fires are drawn as discs around where they started. Their
//! radii are nominal, not decoded: a CS2 smoke fills about 144 game units
//! around its detonation ([`SMOKE_RADIUS`]); a molotov's fire spreads to
//! about 120 units ([`FIRE_RADIUS`]).

use std::collections::BTreeMap;

use gamewire_source2::{DemoState, Game, Interests, Visitor};

use crate::input::{self, DemoInput};
use crate::run::FollowRun;
use crate::table::{Column, Table};
use crate::{Query, QueryError, RunOptions, TableKind, TickSet};

/// How many bytes of the demo are fed to the parser at a time.
const PUSH_CHUNK: usize = 1 << 20;

/// The nominal radius of a smoke, in game units.
pub const SMOKE_RADIUS: f32 = 144.0;

/// The nominal radius of a molotov or incendiary fire, in game units.
pub const FIRE_RADIUS: f32 = 120.0;

/// The grenade kinds, in the order `Projectiles::kind` numbers them.
pub const GRENADE_KINDS: [&str; 6] = [
    "smoke",
    "he_grenade",
    "flashbang",
    "molotov",
    "incendiary",
    "decoy",
];

/// How a replay is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayOptions {
    /// Keep every k-th frame tick (1: every tick the demo has).
    pub every: u32,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions { every: 1 }
    }
}

/// A player of the roster: one per player slot seen in the `ticks` table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ReplayPlayer {
    /// The player slot.
    pub slot: i64,
    /// The last name seen.
    pub name: String,
    /// The team number of the player's first row (2 T, 3 CT in CS2).
    pub team: i64,
}

/// The players' rows, frame by frame, as a struct of arrays.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Frames {
    /// The tick of each frame, ascending.
    pub ticks: Vec<i32>,
    /// Where each frame's rows start; one more entry than [`Frames::ticks`]
    /// (the last is the number of rows).
    pub offsets: Vec<u32>,
    /// The row's player: an index into `Replay::players`.
    pub player: Vec<u16>,
    /// Position, game units.
    pub x: Vec<f32>,
    /// Position, game units.
    pub y: Vec<f32>,
    /// Position, game units.
    pub z: Vec<f32>,
    /// View direction, degrees (NaN when the game sends none).
    pub yaw: Vec<f32>,
    /// Health (-1 when the game sends none).
    pub health: Vec<i16>,
    /// Armor (-1 when the game sends none).
    pub armor: Vec<i16>,
    /// Team number (0 when unknown).
    pub team: Vec<u8>,
    /// 1 alive, 0 dead, 2 unknown.
    pub alive: Vec<u8>,
}

impl Frames {
    /// The number of player rows.
    pub fn rows(&self) -> usize {
        self.player.len()
    }

    /// The row range of frame `i`.
    pub fn frame(&self, i: usize) -> std::ops::Range<usize> {
        let at = |j: usize| self.offsets.get(j).map_or(0, |&o| o as usize);
        at(i)..at(i + 1)
    }
}

/// One grenade's flight.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Flight {
    /// The flight's number (the `grenades` table's `grenade_id`).
    pub id: i64,
    /// The kind: an index into [`GRENADE_KINDS`].
    pub kind: u8,
    /// The thrower's name.
    pub thrower: String,
    /// The thrower's team number.
    pub team: i64,
    /// The tick the projectile appeared.
    pub start_tick: i32,
    /// The tick it was removed (the demo's last tick when still flying).
    pub end_tick: i32,
    /// Its first row in [`Projectiles`].
    pub first_row: u32,
    /// Its number of rows.
    pub rows: u32,
}

/// Projectile positions, one run of rows per flight (ascending ticks).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Projectiles {
    /// The tick of the row.
    pub tick: Vec<i32>,
    /// Position, game units.
    pub x: Vec<f32>,
    /// Position, game units.
    pub y: Vec<f32>,
    /// Position, game units.
    pub z: Vec<f32>,
}

/// A smoke or a fire: a disc from its start to its end.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Area {
    /// The tick it started (the demo's first tick when it started before).
    pub start_tick: i32,
    /// The tick it ended (the demo's last tick when still running).
    pub end_tick: i32,
    /// Where it started, game units.
    pub x: f32,
    /// Where it started, game units.
    pub y: f32,
    /// Where it started, game units.
    pub z: f32,
    /// Its nominal radius ([`SMOKE_RADIUS`], [`FIRE_RADIUS`]).
    pub radius: f32,
    /// The thrower's team number.
    pub team: i64,
    /// The thrower's name.
    pub thrower: String,
}

/// A bomb event: the bomb's state from this tick on.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BombEvent {
    /// The tick.
    pub tick: i32,
    /// The `bomb` table's action (`pickup`, `dropped`, `planted`,
    /// `defused`, `exploded`, `beginplant`, ...).
    pub action: String,
    /// The player's slot (the carrier after a `pickup`).
    pub slot: Option<i64>,
    /// The player's name.
    pub name: String,
    /// The player's position (where the bomb was dropped or planted).
    pub x: f32,
    /// The player's position.
    pub y: f32,
    /// The player's position.
    pub z: f32,
}

/// A kill of the kill feed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ReplayKill {
    /// The tick.
    pub tick: i32,
    /// The killer's name (empty for the world).
    pub killer: String,
    /// The killer's team number.
    pub killer_team: i64,
    /// The victim's name.
    pub victim: String,
    /// The victim's team number.
    pub victim_team: i64,
    /// The weapon's short name.
    pub weapon: String,
    /// A headshot.
    pub headshot: bool,
}

/// A round of the round timeline.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ReplayRound {
    /// The round's number (1, 2, ...).
    pub round: i64,
    /// `round_start` (the demo's first tick when missing).
    pub start_tick: i32,
    /// `round_end` (the next round's start, or the demo's last tick, when
    /// missing).
    pub end_tick: i32,
    /// The winning team number (0 when unknown).
    pub winner_team: i64,
    /// The end reason's name.
    pub reason: String,
}

/// What a viewer needs besides the per-tick arrays: small, JSON.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ReplayMeta {
    /// `cs2`, `deadlock`, `dota2` or `unknown`.
    pub game: &'static str,
    /// The map's name.
    pub map: String,
    /// Seconds per tick.
    pub tick_interval: f32,
    /// The first frame tick kept.
    pub first_tick: i32,
    /// The demo's last tick.
    pub last_tick: i32,
    /// [`ReplayOptions::every`].
    pub every: u32,
    /// The roster.
    pub players: Vec<ReplayPlayer>,
    /// Grenade flights.
    pub flights: Vec<Flight>,
    /// Grenade kind names ([`GRENADE_KINDS`]).
    pub grenade_kinds: [&'static str; 6],
    /// Smokes.
    pub smokes: Vec<Area>,
    /// Molotov and incendiary fires.
    pub fires: Vec<Area>,
    /// Bomb events, by tick.
    pub bomb: Vec<BombEvent>,
    /// The kill feed, by tick.
    pub kills: Vec<ReplayKill>,
    /// Rounds.
    pub rounds: Vec<ReplayRound>,
}

/// A demo as a 2D replay.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// Everything small.
    pub meta: ReplayMeta,
    /// The players' rows per frame.
    pub frames: Frames,
    /// Projectile positions.
    pub projectiles: Projectiles,
}

/// The `ticks` props a replay reads, per game (each game's pawn sends a
/// different set: Dota 2's heroes have no eye angles, Deadlock's no armor).
fn player_props(game: Game) -> &'static [&'static str] {
    match game {
        Game::Cs2 => &[
            "X",
            "Y",
            "Z",
            "yaw",
            "health",
            "armor_value",
            "team_num",
            "is_alive",
        ],
        Game::Deadlock => &["X", "Y", "Z", "yaw", "health", "team_num", "is_alive"],
        _ => &["X", "Y", "Z", "health", "team_num", "is_alive"],
    }
}

fn game_name(game: Game) -> &'static str {
    match game {
        Game::Cs2 => "cs2",
        Game::Deadlock => "deadlock",
        Game::Dota2 => "dota2",
        _ => "unknown",
    }
}

/// The first pass: the game and every frame tick, nothing decoded.
#[derive(Default)]
struct FrameTicks {
    ticks: Vec<i32>,
}

impl Visitor for FrameTicks {
    fn interests(&self) -> Interests {
        Interests {
            entities: false,
            game_events: false,
            user_messages: false,
            user_commands: false,
            send_tables: false,
        }
    }

    fn on_tick_start(&mut self, _state: &DemoState, tick: i32) {
        if tick >= 0 && self.ticks.last().is_none_or(|&t| t < tick) {
            self.ticks.push(tick);
        }
    }
}

impl Replay {
    /// A replay of a demo's bytes (gzip, bzip2 or zstd compressed too),
    /// named `name` in errors. A damaged, truncated or foreign file is an
    /// error carrying the parser's message.
    pub fn from_bytes(
        name: &str,
        data: Vec<u8>,
        options: ReplayOptions,
    ) -> Result<Replay, QueryError> {
        let demo = input::from_bytes(name, data)?;
        Replay::from_input(&demo, options)
    }

    /// A replay of a demo read by the input stage.
    pub fn from_input(demo: &DemoInput, options: ReplayOptions) -> Result<Replay, QueryError> {
        let run = RunOptions {
            helper_thread: false,
            ..RunOptions::default()
        };
        if let Some(cut) = &demo.cut {
            return Err(input::InputError::Cut(cut.clone()).into());
        }
        let mut first = FrameTicks::default();
        let (state, error) = run.parse_located(&demo.bytes[..], &mut first)?;
        if let Some(e) = error {
            return Err(e.into());
        }
        let game = state.game;
        let every = options.every.max(1);
        let ticks = (every > 1).then(|| {
            TickSet::from_ticks(
                first
                    .ticks
                    .iter()
                    .copied()
                    .step_by(every as usize)
                    .collect(),
            )
        });
        let mut tables = vec![TableKind::Ticks];
        if game == Game::Cs2 {
            tables.extend([
                TableKind::Grenades,
                TableKind::Smokes,
                TableKind::Infernos,
                TableKind::Bomb,
                TableKind::Kills,
                TableKind::Rounds,
            ]);
        }
        let query = Query {
            tables,
            player_props: player_props(game).iter().map(|p| p.to_string()).collect(),
            ticks,
            options: run,
            ..Query::default()
        };
        // One pass, fed in chunks: the rows of `ticks` (and of `kills`)
        // become the replay's arrays as they are made, so a long demo's
        // memory is its replay, not its `ticks` table.
        let mut run = FollowRun::new(&query)?;
        let mut builder = FramesBuilder::default();
        let mut kill_feed = Vec::new();
        let mut take = |batch: Vec<Table>| {
            for t in &batch {
                match t.name.as_str() {
                    "ticks" => builder.add(t),
                    "kills" => kill_feed.extend(kills(t)),
                    _ => {}
                }
            }
        };
        for chunk in demo.bytes.chunks(PUSH_CHUNK) {
            run.push(chunk)?;
            take(run.take_new()?);
        }
        let mut parsed = run.finish()?;
        let rest: Vec<Table> = parsed
            .tables
            .extract_if(.., |t| t.name == "ticks" || t.name == "kills")
            .collect();
        take(rest);
        let (players, frames) = builder.finish();
        let first_tick = first.ticks.first().copied().unwrap_or(0);
        let last_tick = parsed.state.tick.max(first_tick);
        let map = parsed
            .state
            .header
            .as_ref()
            .and_then(|h| h.map_name.clone())
            .unwrap_or_default();
        let find = |name: &str| parsed.tables.iter().find(|t| t.name == name);
        let (flights, projectiles) = match find("grenades") {
            Some(t) => flights(t, last_tick),
            None => (Vec::new(), Projectiles::default()),
        };
        let area = |name: &str, radius: f32| match find(name) {
            Some(t) => areas(t, radius, first_tick, last_tick),
            None => Vec::new(),
        };
        let meta = ReplayMeta {
            game: game_name(game),
            map,
            tick_interval: parsed.state.tick_interval,
            first_tick,
            last_tick,
            every,
            players,
            flights,
            grenade_kinds: GRENADE_KINDS,
            smokes: area("smokes", SMOKE_RADIUS),
            fires: area("infernos", FIRE_RADIUS),
            bomb: find("bomb").map(bomb).unwrap_or_default(),
            kills: kill_feed,
            rounds: find("rounds")
                .map(|t| rounds(t, first_tick, last_tick))
                .unwrap_or_default(),
        };
        Ok(Replay {
            meta,
            frames,
            projectiles,
        })
    }
}

/// A column the query asked for; every table here has its fixed columns
/// (`docs/tables.md`), and a missing one would read as nulls.
fn column<'t>(table: &'t Table, name: &str) -> &'t Column {
    static NONE: Column = Column::I64(Vec::new());
    table.column(name).unwrap_or(&NONE)
}

/// A column read as a number, whatever its numeric type.
fn number(col: &Column, row: usize) -> Option<f64> {
    match col {
        Column::I64(v) => v.get(row).copied().flatten().map(|x| x as f64),
        Column::U64(v) => v.get(row).copied().flatten().map(|x| x as f64),
        Column::F32(v) => v.get(row).copied().flatten().map(f64::from),
        Column::Bool(v) => v
            .get(row)
            .copied()
            .flatten()
            .map(|b| f64::from(u8::from(b))),
        _ => None,
    }
}

fn int(col: &Column, row: usize) -> Option<i64> {
    number(col, row).filter(|x| x.is_finite()).map(|x| x as i64)
}

fn float(col: &Column, row: usize) -> Option<f32> {
    number(col, row).map(|x| x as f32).filter(|x| x.is_finite())
}

fn tick(col: &Column, row: usize) -> Option<i32> {
    int(col, row).and_then(|t| i32::try_from(t).ok())
}

fn text(col: &Column, row: usize) -> String {
    match col {
        Column::Str(v) => v.get(row).cloned().flatten().unwrap_or_default(),
        _ => String::new(),
    }
}

fn boolean(col: &Column, row: usize) -> Option<bool> {
    match col {
        Column::Bool(v) => v.get(row).copied().flatten(),
        other => int(other, row).map(|x| x != 0),
    }
}

/// The roster and the frames, built from the `ticks` table's rows batch by
/// batch (rows in tick order), so the whole table is never held: only the
/// struct of arrays it becomes.
#[derive(Debug, Default)]
struct FramesBuilder {
    roster: BTreeMap<i64, usize>,
    players: Vec<ReplayPlayer>,
    frames: Frames,
}

impl FramesBuilder {
    /// Adds the rows of one batch of the `ticks` table.
    fn add(&mut self, t: &Table) {
        let (tick_c, slot_c, name_c) = (column(t, "tick"), column(t, "slot"), column(t, "name"));
        let (x_c, y_c, z_c) = (column(t, "X"), column(t, "Y"), column(t, "Z"));
        let yaw_c = t.column("yaw");
        let health_c = column(t, "health");
        let armor_c = t.column("armor_value");
        let team_c = column(t, "team_num");
        let alive_c = column(t, "is_alive");
        let small = |v: Option<i64>| v.map_or(-1, |h| h.clamp(-1, i64::from(i16::MAX)) as i16);
        let f = &mut self.frames;
        for row in 0..t.rows() {
            let (Some(tk), Some(x), Some(y)) =
                (tick(tick_c, row), float(x_c, row), float(y_c, row))
            else {
                continue;
            };
            let slot = int(slot_c, row).unwrap_or(-1);
            let team = int(team_c, row).unwrap_or(0);
            let index = match self.roster.get(&slot) {
                Some(&i) => i,
                None => {
                    let i = self.players.len();
                    if i > usize::from(u16::MAX) {
                        continue;
                    }
                    self.roster.insert(slot, i);
                    self.players.push(ReplayPlayer {
                        slot,
                        name: String::new(),
                        team,
                    });
                    i
                }
            };
            if let Some(p) = self.players.get_mut(index) {
                let name = text(name_c, row);
                if !name.is_empty() {
                    p.name = name;
                }
            }
            if f.ticks.last() != Some(&tk) {
                f.offsets.push(f.player.len() as u32);
                f.ticks.push(tk);
            }
            f.player.push(index as u16);
            f.x.push(x);
            f.y.push(y);
            f.z.push(float(z_c, row).unwrap_or(0.0));
            f.yaw
                .push(yaw_c.and_then(|c| float(c, row)).unwrap_or(f32::NAN));
            f.health.push(small(int(health_c, row)));
            f.armor.push(small(armor_c.and_then(|c| int(c, row))));
            f.team.push(u8::try_from(team).unwrap_or(0));
            f.alive.push(boolean(alive_c, row).map_or(2, u8::from));
        }
    }

    /// The roster and the frames.
    fn finish(mut self) -> (Vec<ReplayPlayer>, Frames) {
        self.frames.offsets.push(self.frames.player.len() as u32);
        (self.players, self.frames)
    }
}

/// Flights and their projectile rows from the `grenades` table (rows of a
/// flight together, ascending ticks).
fn flights(t: &Table, last_tick: i32) -> (Vec<Flight>, Projectiles) {
    let id_c = column(t, "grenade_id");
    let kind_c = column(t, "grenade_type");
    let thrower_c = column(t, "thrower_name");
    let team_c = column(t, "thrower_team");
    let (start_c, end_c) = (column(t, "start_tick"), column(t, "end_tick"));
    let tick_c = column(t, "tick");
    let (x_c, y_c, z_c) = (column(t, "x"), column(t, "y"), column(t, "z"));
    let mut out: Vec<Flight> = Vec::new();
    let mut p = Projectiles::default();
    for row in 0..t.rows() {
        let (Some(id), Some(tk), Some(x), Some(y)) = (
            int(id_c, row),
            tick(tick_c, row),
            float(x_c, row),
            float(y_c, row),
        ) else {
            continue;
        };
        let at = p.tick.len() as u32;
        let same = out.last().is_some_and(|f| f.id == id);
        if !same {
            let kind = text(kind_c, row);
            let start = tick(start_c, row).unwrap_or(tk);
            out.push(Flight {
                id,
                kind: GRENADE_KINDS
                    .iter()
                    .position(|k| *k == kind)
                    .map_or(u8::MAX, |k| k as u8),
                thrower: text(thrower_c, row),
                team: int(team_c, row).unwrap_or(0),
                start_tick: start,
                end_tick: tick(end_c, row).unwrap_or(last_tick),
                first_row: at,
                rows: 0,
            });
        }
        if let Some(f) = out.last_mut() {
            f.rows += 1;
        }
        p.tick.push(tk);
        p.x.push(x);
        p.y.push(y);
        p.z.push(float(z_c, row).unwrap_or(0.0));
    }
    (out, p)
}

/// Smokes or fires.
fn areas(t: &Table, radius: f32, first: i32, last: i32) -> Vec<Area> {
    let (start_c, end_c) = (column(t, "start_tick"), column(t, "end_tick"));
    let (x_c, y_c, z_c) = (column(t, "x"), column(t, "y"), column(t, "z"));
    let (team_c, thrower_c) = (column(t, "thrower_team"), column(t, "thrower_name"));
    (0..t.rows())
        .filter_map(|row| {
            Some(Area {
                start_tick: tick(start_c, row).unwrap_or(first),
                end_tick: tick(end_c, row).unwrap_or(last),
                x: float(x_c, row)?,
                y: float(y_c, row)?,
                z: float(z_c, row).unwrap_or(0.0),
                radius,
                team: int(team_c, row).unwrap_or(0),
                thrower: text(thrower_c, row),
            })
        })
        .collect()
}

/// Bomb events.
fn bomb(t: &Table) -> Vec<BombEvent> {
    let (tick_c, action_c) = (column(t, "tick"), column(t, "action"));
    let (slot_c, name_c) = (column(t, "slot"), column(t, "name"));
    let (x_c, y_c, z_c) = (column(t, "x"), column(t, "y"), column(t, "z"));
    let mut out: Vec<BombEvent> = (0..t.rows())
        .filter_map(|row| {
            Some(BombEvent {
                tick: tick(tick_c, row)?,
                action: text(action_c, row),
                slot: int(slot_c, row),
                name: text(name_c, row),
                x: float(x_c, row).unwrap_or(f32::NAN),
                y: float(y_c, row).unwrap_or(f32::NAN),
                z: float(z_c, row).unwrap_or(f32::NAN),
            })
        })
        .collect();
    out.sort_by_key(|e| e.tick);
    out
}

/// The kill feed.
fn kills(t: &Table) -> Vec<ReplayKill> {
    let tick_c = column(t, "tick");
    let (killer_c, killer_team_c) = (column(t, "attacker_name"), column(t, "attacker_team"));
    let (victim_c, victim_team_c) = (column(t, "victim_name"), column(t, "victim_team"));
    let (weapon_c, head_c) = (column(t, "weapon"), column(t, "headshot"));
    (0..t.rows())
        .filter_map(|row| {
            Some(ReplayKill {
                tick: tick(tick_c, row)?,
                killer: text(killer_c, row),
                killer_team: int(killer_team_c, row).unwrap_or(0),
                victim: text(victim_c, row),
                victim_team: int(victim_team_c, row).unwrap_or(0),
                weapon: text(weapon_c, row),
                headshot: boolean(head_c, row).unwrap_or(false),
            })
        })
        .collect()
}

/// The round timeline.
fn rounds(t: &Table, first: i32, last: i32) -> Vec<ReplayRound> {
    let (round_c, start_c, end_c) = (
        column(t, "round"),
        column(t, "start_tick"),
        column(t, "end_tick"),
    );
    let (winner_c, reason_c) = (column(t, "winner_team"), column(t, "reason_name"));
    let n = t.rows();
    let starts: Vec<Option<i32>> = (0..n).map(|r| tick(start_c, r)).collect();
    (0..n)
        .map(|row| {
            let start = starts.get(row).copied().flatten().unwrap_or(first);
            let next = starts.get(row + 1).copied().flatten();
            ReplayRound {
                round: int(round_c, row).unwrap_or(row as i64 + 1),
                start_tick: start,
                end_tick: tick(end_c, row).or(next).unwrap_or(last).max(start),
                winner_team: int(winner_c, row).unwrap_or(0),
                reason: text(reason_c, row),
            }
        })
        .collect()
}
