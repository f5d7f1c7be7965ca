//! A Teeworlds 0.7 demo as a replay: what a 2D viewer draws at each
//! recorded snapshot, in a compact layout.
//!
//! # What a demo holds (see [`gamewire_teeworlds::demo`])
//!
//! A demo is a run of tick markers, snapshots (a keyframe at least every
//! 250 ticks, deltas between) and messages. The recorder writes a delta
//! only when something changed, so one snapshot stands for every tick up
//! to the next one; a server records at its snapshot rate (every other
//! tick of 50 per second). The objects a viewer draws, all in world units
//! (32 per map tile, `y` growing downwards):
//!
//! - `character` (type 10), one per living tee, its item id the client id:
//!   position, velocity, aim `angle` (radians times 256), `direction`
//!   (the walking input, -1, 0 or 1), hook, `health`, `armor`, `weapon`,
//!   `emote`. The server fills health, armor and ammo only for the client
//!   that owns the tee, for a spectator following it and for its own
//!   recorder; elsewhere they are zero. So in a server demo they are
//!   known for every tee, in a client demo for the recording player's
//!   own tee only ([`TeeFrame::health`] is -1 where unknown).
//! - `projectile` (type 2): where and when a shot started (`x`, `y`,
//!   `start_tick`), its direction times 100 (`vel_x`, `vel_y`) and its
//!   weapon. Its position at a later tick is computed, as the game computes
//!   it (`CalcPos` in the game's `gamecore.h`): with `t` the seconds since
//!   the start times the weapon's speed, `x + dx * t`, `y + dy * t +
//!   curvature / 10000 * t²` (default tunings: gun 2200 units/s and
//!   curvature 1.25, shotgun 2750 and 1.25, grenade 1000 and 7; a server's
//!   own, from its `sv_tune_params` message, once recorded). The recorder
//!   writes no delta while only projectiles fly (their objects do not
//!   change), so each projectile row keeps its speed and curvature: a
//!   viewer places it at any tick.
//! - `laser` (type 3): a beam segment from (`from_x`, `from_y`) to (`x`,
//!   `y`), started at `start_tick`.
//! - `pickup` (type 4): health, armor, weapons and ninja on the map.
//! - `flag` (type 5): a flag's position and team (capture the flag only);
//!   `game_data_flag` (type 8) says who carries each (a client id, or -1
//!   taken, -2 at its stand, -3 missing).
//!
//! Names and teams are not in 0.7 snapshots (except the recorder's
//! `de_client_info` objects in server demos): they come from the
//! `sv_client_info`, `sv_team` and `sv_client_drop` messages. A client id
//! that another player takes later is a new [`TwPlayer`]. Chat lines
//! (`sv_chat`) and kills (`sv_kill_msg`) are kept with their ticks.
//!
//! # Layout
//!
//! One row per snapshot in [`TwReplay::ticks`]; each kind of object is a
//! struct of arrays (one `Vec` per field, all of one length) with a
//! per-snapshot offset array: the tees of snapshot `i` are rows
//! `tee_offsets[i]..tee_offsets[i + 1]` of [`TwReplay::tees`]. Plain
//! integer arrays rather than a struct per object: a viewer hands each
//! array to JavaScript as one typed array, and a match of thousands of
//! snapshots stays a few megabytes.
//!
//! ```no_run
//! use gamewire_query::tw_replay::TwReplay;
//! let data = std::fs::read("match.demo").unwrap();
//! let replay = TwReplay::from_demo(&data).unwrap();
//! let i = replay.frame_at(1000).unwrap();
//! for tee in replay.tees_of(i) {
//!     println!("{} at ({}, {})", replay.tees.client_id[tee], replay.tees.x[tee], replay.tees.y[tee]);
//! }
//! ```

use std::collections::HashMap;

use gamewire_teeworlds::demo::DemoFileError;
use gamewire_teeworlds::msg::{ints_to_str, GameMessage, Message, SnapObject};
use gamewire_teeworlds::recording::{DemoRecord, DemoRecords};
use gamewire_teeworlds::snapshot::Snapshot;

/// Ticks per second of the game.
pub const TICKS_PER_SECOND: i32 = 50;

/// The first bytes of every demo (`TWDEMO` and a NUL): what tells a
/// Teeworlds demo from a Source 2 one.
pub use gamewire_teeworlds::demo::MAGIC;

/// The tees of every snapshot (struct of arrays; see the module's
/// documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TeeFrame {
    /// The client id (the character's item id).
    pub client_id: Vec<u8>,
    /// Index into [`TwReplay::players`] of the player, or -1 when no client
    /// info named it.
    pub player: Vec<i32>,
    /// Position (world units).
    pub x: Vec<i32>,
    /// Position (world units, downwards).
    pub y: Vec<i32>,
    /// Velocity (world units per tick times 256).
    pub vel_x: Vec<i32>,
    /// Velocity (world units per tick times 256).
    pub vel_y: Vec<i32>,
    /// Aim angle, radians times 256.
    pub angle: Vec<i32>,
    /// Walking direction: -1, 0 or 1.
    pub direction: Vec<i8>,
    /// Team at that snapshot: -1 spectators, 0 red, 1 blue (0 in games
    /// without teams), or -2 when unknown.
    pub team: Vec<i8>,
    /// Health (0 to 10), -1 when the snapshot does not carry it.
    pub health: Vec<i8>,
    /// Armor (0 to 10), -1 when the snapshot does not carry it.
    pub armor: Vec<i8>,
    /// Weapon: 0 hammer, 1 gun, 2 shotgun, 3 grenade, 4 laser, 5 ninja.
    pub weapon: Vec<i8>,
    /// Emote: 0 normal, 1 pain, 2 happy, 3 surprise, 4 angry, 5 blink.
    pub emote: Vec<i8>,
    /// Hook state (-1 retracted ... 5 grabbed a tee; 0 idle).
    pub hook_state: Vec<i8>,
    /// Hook end position (world units).
    pub hook_x: Vec<i32>,
    /// Hook end position (world units).
    pub hook_y: Vec<i32>,
}

/// The projectiles of every snapshot (struct of arrays).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectileFrame {
    /// The item id.
    pub id: Vec<u16>,
    /// Where the shot started (world units).
    pub start_x: Vec<i32>,
    /// Where the shot started (world units).
    pub start_y: Vec<i32>,
    /// Direction times 100.
    pub vel_x: Vec<i32>,
    /// Direction times 100.
    pub vel_y: Vec<i32>,
    /// The weapon that fired it (1 gun, 2 shotgun, 3 grenade).
    pub weapon: Vec<i8>,
    /// The tick it started.
    pub start_tick: Vec<i32>,
    /// Its weapon's speed (units per second) when it was seen.
    pub speed: Vec<f32>,
    /// Its weapon's curvature when it was seen.
    pub curvature: Vec<f32>,
    /// Position at the snapshot's tick (see the module's documentation).
    pub x: Vec<f32>,
    /// Position at the snapshot's tick.
    pub y: Vec<f32>,
}

/// The laser beams of every snapshot (struct of arrays).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaserFrame {
    /// The item id.
    pub id: Vec<u16>,
    /// Where the segment ends.
    pub x: Vec<i32>,
    /// Where the segment ends.
    pub y: Vec<i32>,
    /// Where it starts.
    pub from_x: Vec<i32>,
    /// Where it starts.
    pub from_y: Vec<i32>,
    /// The tick it started.
    pub start_tick: Vec<i32>,
}

/// The pickups of every snapshot (struct of arrays).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PickupFrame {
    /// The item id.
    pub id: Vec<u16>,
    /// Position.
    pub x: Vec<i32>,
    /// Position.
    pub y: Vec<i32>,
    /// 0 health, 1 armor, 2 grenade, 3 shotgun, 4 laser, 5 ninja (0.7
    /// numbers: `PICKUP_*`).
    pub kind: Vec<i8>,
}

/// The flags of every snapshot (struct of arrays).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlagFrame {
    /// Position.
    pub x: Vec<i32>,
    /// Position.
    pub y: Vec<i32>,
    /// 0 red, 1 blue.
    pub team: Vec<i8>,
}

/// A player: a client id with a name, as long as the name stays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TwPlayer {
    /// The client id.
    pub client_id: i32,
    /// The name.
    pub name: String,
    /// The clan.
    pub clan: String,
    /// The latest team (-1 spectators, 0 red, 1 blue).
    pub team: i32,
    /// The recording client itself (client demos).
    pub local: bool,
}

/// One chat line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TwChat {
    /// The tick (-1 before the first tick marker).
    pub tick: i32,
    /// The sender's client id (-1 for the server).
    pub client_id: i32,
    /// Index into [`TwReplay::players`] of the sender, -1 if unknown.
    pub player: i32,
    /// 1 all, 2 team, 3 whisper.
    pub mode: i32,
    /// The line.
    pub message: String,
}

/// One kill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TwKill {
    /// The tick.
    pub tick: i32,
    /// The killer's client id.
    pub killer: i32,
    /// The victim's client id.
    pub victim: i32,
    /// Index into [`TwReplay::players`] of the killer, -1 if unknown.
    pub killer_player: i32,
    /// Index into [`TwReplay::players`] of the victim, -1 if unknown.
    pub victim_player: i32,
    /// 0 to 5 a weapon, -1 the world (falling out), -2 self (a kill
    /// command), -3 the game (a team change).
    pub weapon: i32,
}

/// A Teeworlds demo as a replay (see the module's documentation).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TwReplay {
    /// The map's name.
    pub map_name: String,
    /// `server` or `client`.
    pub kind: String,
    /// The tick of each snapshot, in order.
    pub ticks: Vec<i32>,
    /// The carrier of the red flag at each snapshot (a client id, or -1
    /// taken, -2 at its stand, -3 missing; -2 also without a flag game).
    pub red_carrier: Vec<i8>,
    /// The carrier of the blue flag at each snapshot.
    pub blue_carrier: Vec<i8>,
    /// Red's score at each snapshot (0 without teams).
    pub red_score: Vec<i32>,
    /// Blue's score at each snapshot.
    pub blue_score: Vec<i32>,
    /// Rows of [`TwReplay::tees`] per snapshot: `tee_offsets[i]..tee_offsets[i + 1]`.
    pub tee_offsets: Vec<u32>,
    /// Every snapshot's tees.
    pub tees: TeeFrame,
    /// Rows of [`TwReplay::projectiles`] per snapshot.
    pub projectile_offsets: Vec<u32>,
    /// Every snapshot's projectiles.
    pub projectiles: ProjectileFrame,
    /// Rows of [`TwReplay::lasers`] per snapshot.
    pub laser_offsets: Vec<u32>,
    /// Every snapshot's lasers.
    pub lasers: LaserFrame,
    /// Rows of [`TwReplay::pickups`] per snapshot.
    pub pickup_offsets: Vec<u32>,
    /// Every snapshot's pickups.
    pub pickups: PickupFrame,
    /// Rows of [`TwReplay::flags`] per snapshot.
    pub flag_offsets: Vec<u32>,
    /// Every snapshot's flags.
    pub flags: FlagFrame,
    /// Every player seen.
    pub players: Vec<TwPlayer>,
    /// Chat lines, in order.
    pub chat: Vec<TwChat>,
    /// Kills, in order.
    pub kills: Vec<TwKill>,
    /// Smallest and largest positions of tees, projectiles, lasers, pickups
    /// and flags: `[min_x, min_y, max_x, max_y]` (all zero when none).
    pub bounds: [i32; 4],
    /// Why the demo stopped early (it ended inside a chunk), if it did.
    pub cut: Option<String>,
}

/// How a weapon's projectiles fly: speed (units per second) and
/// curvature (the game's tunings of that name).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ballistics {
    /// Units per second along the direction.
    pub speed: f32,
    /// Downward bend: `curvature / 10000 * d²` after a distance `d`.
    pub curvature: f32,
}

/// Gun, shotgun and grenade ballistics of a game.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tunings {
    /// Gun (weapon 1).
    pub gun: Ballistics,
    /// Shotgun (weapon 2).
    pub shotgun: Ballistics,
    /// Grenade (weapon 3).
    pub grenade: Ballistics,
}

impl Default for Tunings {
    /// The game's defaults (`tuning.h`).
    fn default() -> Self {
        let b = |speed, curvature| Ballistics { speed, curvature };
        Tunings {
            gun: b(2200.0, 1.25),
            shotgun: b(2750.0, 1.25),
            grenade: b(1000.0, 7.0),
        }
    }
}

impl Tunings {
    /// The ballistics of a projectile of `weapon` (the gun's for any other).
    pub fn of(&self, weapon: i32) -> Ballistics {
        match weapon {
            2 => self.shotgun,
            3 => self.grenade,
            _ => self.gun,
        }
    }

    /// A server's tunings (fixed point, value times 100).
    fn from_message(t: &gamewire_teeworlds::msg::SvTuneParams) -> Tunings {
        let b = |speed: i32, curvature: i32| Ballistics {
            speed: speed as f32 / 100.0,
            curvature: curvature as f32 / 100.0,
        };
        Tunings {
            gun: b(t.gun_speed, t.gun_curvature),
            shotgun: b(t.shotgun_speed, t.shotgun_curvature),
            grenade: b(t.grenade_speed, t.grenade_curvature),
        }
    }
}

/// A projectile's position at `tick` (the game's `CalcPos`): `start` and
/// `start_tick` where and when it started, `vel` its direction times 100.
pub fn projectile_position(
    start: (i32, i32),
    vel: (i32, i32),
    ballistics: Ballistics,
    start_tick: i32,
    tick: i32,
) -> (f32, f32) {
    let Ballistics { speed, curvature } = ballistics;
    let t = tick.saturating_sub(start_tick).max(0) as f32 / TICKS_PER_SECOND as f32 * speed;
    (
        start.0 as f32 + vel.0 as f32 / 100.0 * t,
        start.1 as f32 + vel.1 as f32 / 100.0 * t + curvature / 10000.0 * t * t,
    )
}

/// Clamps a small protocol number into an `i8`.
fn small(v: i32) -> i8 {
    v.clamp(i32::from(i8::MIN), i32::from(i8::MAX)) as i8
}

/// Players as the messages and info objects name them.
#[derive(Debug, Default)]
struct Roster {
    players: Vec<TwPlayer>,
    /// Client id to its current player's index.
    current: HashMap<i32, usize>,
}

impl Roster {
    fn info(&mut self, client_id: i32, name: String, clan: String, team: i32, local: bool) {
        if let Some(p) = self
            .current
            .get(&client_id)
            .and_then(|&i| self.players.get_mut(i))
        {
            if p.name == name {
                p.clan = clan;
                p.team = team;
                p.local |= local;
                return;
            }
        }
        self.current.insert(client_id, self.players.len());
        self.players.push(TwPlayer {
            client_id,
            name,
            clan,
            team,
            local,
        });
    }

    fn index(&self, client_id: i32) -> i32 {
        self.current
            .get(&client_id)
            .map_or(-1, |&i| i32::try_from(i).unwrap_or(-1))
    }

    fn get(&self, client_id: i32) -> Option<&TwPlayer> {
        self.current
            .get(&client_id)
            .and_then(|&i| self.players.get(i))
    }

    fn message(&mut self, m: &GameMessage) {
        match m {
            GameMessage::SvClientInfo(i) => {
                self.info(i.client_id, i.name.clone(), i.clan.clone(), i.team, i.local)
            }
            GameMessage::SvTeam(t) => {
                if let Some(p) = self
                    .current
                    .get(&t.client_id)
                    .and_then(|&i| self.players.get_mut(i))
                {
                    p.team = t.team;
                }
            }
            GameMessage::SvClientDrop(d) => {
                self.current.remove(&d.client_id);
            }
            _ => {}
        }
    }
}

/// Offsets of one object kind: the running row count after each snapshot.
fn offset(rows: usize) -> u32 {
    u32::try_from(rows).unwrap_or(u32::MAX)
}

impl TwReplay {
    /// Reads a 0.7 demo's bytes. A demo that ends inside a chunk gives what
    /// came before it ([`TwReplay::cut`]); any other error fails.
    pub fn from_demo(data: &[u8]) -> Result<TwReplay, gamewire_teeworlds::Error> {
        let mut records = DemoRecords::new(data)?;
        let header = records.header().clone();
        let mut r = TwReplay {
            map_name: header.map_name,
            kind: header.kind.clone(),
            tee_offsets: vec![0],
            projectile_offsets: vec![0],
            laser_offsets: vec![0],
            pickup_offsets: vec![0],
            flag_offsets: vec![0],
            ..TwReplay::default()
        };
        let server = header.kind == "server";
        let mut roster = Roster::default();
        let mut bounds: Option<[i32; 4]> = None;
        let mut tunings = Tunings::default();
        while let Some(rec) = records.next() {
            match rec {
                DemoRecord::Tick { .. } => {}
                DemoRecord::Snapshot { tick, .. } => {
                    if let Some(snap) = records.snapshot() {
                        r.push_snapshot(tick, snap, server, &mut roster, &tunings, &mut bounds);
                    }
                }
                DemoRecord::Message {
                    tick,
                    message: Ok(Message::Game(m)),
                    ..
                } => {
                    roster.message(&m);
                    match &m {
                        GameMessage::SvChat(c) => r.chat.push(TwChat {
                            tick,
                            client_id: c.client_id,
                            player: roster.index(c.client_id),
                            mode: c.mode,
                            message: c.message.clone(),
                        }),
                        GameMessage::SvKillMsg(k) => r.kills.push(TwKill {
                            tick,
                            killer: k.killer,
                            victim: k.victim,
                            killer_player: roster.index(k.killer),
                            victim_player: roster.index(k.victim),
                            weapon: k.weapon,
                        }),
                        GameMessage::SvTuneParams(t) => tunings = Tunings::from_message(t),
                        _ => {}
                    }
                }
                DemoRecord::Message { .. } => {}
            }
        }
        match records.failure() {
            Some(e) if e.is_truncation() => r.cut = Some(e.to_string()),
            Some(e) => return Err(DemoFileError::clone(e).into()),
            None => {}
        }
        r.players = roster.players;
        r.bounds = bounds.unwrap_or_default();
        Ok(r)
    }

    fn push_snapshot(
        &mut self,
        tick: i32,
        snap: &Snapshot,
        server: bool,
        roster: &mut Roster,
        tunings: &Tunings,
        bounds: &mut Option<[i32; 4]>,
    ) {
        let mut see = |x: i32, y: i32| {
            let b = bounds.get_or_insert([x, y, x, y]);
            *b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
        };
        // Server demos name their players in the snapshot itself.
        if server {
            for item in snap.items() {
                if let Some(SnapObject::DeClientInfo(info)) = item.object() {
                    roster.info(
                        i32::from(item.id),
                        ints_to_str(&info.name),
                        ints_to_str(&info.clan),
                        info.team,
                        info.local,
                    );
                }
            }
        }
        let (mut red, mut blue, mut red_score, mut blue_score) = (-2, -2, 0, 0);
        for item in snap.items() {
            let Some(object) = item.object() else {
                continue;
            };
            match object {
                SnapObject::Character(c) => {
                    let client_id = i32::from(item.id);
                    let player = roster.get(client_id);
                    let known = server || player.is_some_and(|p| p.local);
                    let t = &mut self.tees;
                    t.client_id.push(u8::try_from(item.id).unwrap_or(u8::MAX));
                    t.player.push(roster.index(client_id));
                    t.x.push(c.x);
                    t.y.push(c.y);
                    t.vel_x.push(c.vel_x);
                    t.vel_y.push(c.vel_y);
                    t.angle.push(c.angle);
                    t.direction.push(small(c.direction));
                    t.team.push(player.map_or(-2, |p| small(p.team)));
                    t.health.push(if known { small(c.health) } else { -1 });
                    t.armor.push(if known { small(c.armor) } else { -1 });
                    t.weapon.push(small(c.weapon));
                    t.emote.push(small(c.emote));
                    t.hook_state.push(small(c.hook_state));
                    t.hook_x.push(c.hook_x);
                    t.hook_y.push(c.hook_y);
                    see(c.x, c.y);
                }
                SnapObject::Projectile(p) => {
                    let b = tunings.of(p.r#type);
                    let (x, y) =
                        projectile_position((p.x, p.y), (p.vel_x, p.vel_y), b, p.start_tick, tick);
                    let f = &mut self.projectiles;
                    f.id.push(item.id);
                    f.start_x.push(p.x);
                    f.start_y.push(p.y);
                    f.vel_x.push(p.vel_x);
                    f.vel_y.push(p.vel_y);
                    f.weapon.push(small(p.r#type));
                    f.start_tick.push(p.start_tick);
                    f.speed.push(b.speed);
                    f.curvature.push(b.curvature);
                    f.x.push(x);
                    f.y.push(y);
                    see(p.x, p.y);
                }
                SnapObject::Laser(l) => {
                    let f = &mut self.lasers;
                    f.id.push(item.id);
                    f.x.push(l.x);
                    f.y.push(l.y);
                    f.from_x.push(l.from_x);
                    f.from_y.push(l.from_y);
                    f.start_tick.push(l.start_tick);
                    see(l.x, l.y);
                    see(l.from_x, l.from_y);
                }
                SnapObject::Pickup(p) => {
                    let f = &mut self.pickups;
                    f.id.push(item.id);
                    f.x.push(p.x);
                    f.y.push(p.y);
                    f.kind.push(small(p.r#type));
                    see(p.x, p.y);
                }
                SnapObject::Flag(fl) => {
                    let f = &mut self.flags;
                    f.x.push(fl.x);
                    f.y.push(fl.y);
                    f.team.push(small(fl.team));
                    see(fl.x, fl.y);
                }
                SnapObject::GameDataFlag(g) => {
                    red = g.flag_carrier_red;
                    blue = g.flag_carrier_blue;
                }
                SnapObject::GameDataTeam(g) => {
                    red_score = g.teamscore_red;
                    blue_score = g.teamscore_blue;
                }
                _ => {}
            }
        }
        self.ticks.push(tick);
        self.red_carrier.push(small(red));
        self.blue_carrier.push(small(blue));
        self.red_score.push(red_score);
        self.blue_score.push(blue_score);
        self.tee_offsets.push(offset(self.tees.x.len()));
        self.projectile_offsets
            .push(offset(self.projectiles.x.len()));
        self.laser_offsets.push(offset(self.lasers.x.len()));
        self.pickup_offsets.push(offset(self.pickups.x.len()));
        self.flag_offsets.push(offset(self.flags.x.len()));
    }

    /// Number of snapshots.
    pub fn frames(&self) -> usize {
        self.ticks.len()
    }

    /// The snapshot in force at `tick`: the latest at or before it (`None`
    /// before the first).
    pub fn frame_at(&self, tick: i32) -> Option<usize> {
        self.ticks.partition_point(|&t| t <= tick).checked_sub(1)
    }

    /// Rows of `offsets` for snapshot `frame` (empty when out of range).
    fn rows(offsets: &[u32], frame: usize) -> std::ops::Range<usize> {
        match (offsets.get(frame), offsets.get(frame + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }

    /// Rows of [`TwReplay::tees`] of snapshot `frame`.
    pub fn tees_of(&self, frame: usize) -> std::ops::Range<usize> {
        Self::rows(&self.tee_offsets, frame)
    }

    /// Rows of [`TwReplay::projectiles`] of snapshot `frame`.
    pub fn projectiles_of(&self, frame: usize) -> std::ops::Range<usize> {
        Self::rows(&self.projectile_offsets, frame)
    }

    /// Rows of [`TwReplay::lasers`] of snapshot `frame`.
    pub fn lasers_of(&self, frame: usize) -> std::ops::Range<usize> {
        Self::rows(&self.laser_offsets, frame)
    }

    /// Rows of [`TwReplay::pickups`] of snapshot `frame`.
    pub fn pickups_of(&self, frame: usize) -> std::ops::Range<usize> {
        Self::rows(&self.pickup_offsets, frame)
    }

    /// Rows of [`TwReplay::flags`] of snapshot `frame`.
    pub fn flags_of(&self, frame: usize) -> std::ops::Range<usize> {
        Self::rows(&self.flag_offsets, frame)
    }

    /// The name of player index `player` (as in [`TeeFrame::player`]),
    /// `None` for -1 or out of range.
    pub fn player_name(&self, player: i32) -> Option<&str> {
        usize::try_from(player)
            .ok()
            .and_then(|i| self.players.get(i))
            .map(|p| p.name.as_str())
    }
}
