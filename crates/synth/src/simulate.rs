//! A scenario played through: the state of the match at every written
//! tick.
//!
//! The scenario is compiled into a schedule of steps at absolute ticks:
//! each round's start, freeze end and end, and its events; steps that
//! events cause later (a grenade's detonation after its flight, a smoke's
//! end, a fire's end) join the schedule when their cause is played. A
//! state machine (`Sim`) plays the steps in order (tick, then kind:
//! round start, freeze end, caused steps, the scenario's events, round
//! end; then the order written) and derives what CS2 derives: health and
//! armor after hits, deaths and the items a dead player drops, money after
//! purchases and rewards, scores per half, the side switch, the bomb, the
//! grenades, and the game events with CS2's names and keys.
//!
//! The frames are computed one at a time ([`ScenarioTimeline::frames`]):
//! for each written tick, the steps up to it are played, then the players'
//! positions and view angles are interpolated between their keyframes and
//! the projectiles placed along their flights. Nothing but the current
//! state is kept, so a match of any length streams in constant memory.
//!
//! The same state machine checks a scenario before anything is written
//! ([`dry_run`]): a step the match forbids at that moment (a dead player
//! acting, a purchase without the money, a plant without the bomb) is a
//! [`Problem`] naming the event's key path.

use std::collections::BTreeMap;

use crate::error::SynthError;
use crate::items::{default_loadout, item, ItemDef, ItemKind};
use crate::scenario::{scenario_error, Action, Round, Scenario, Side, Site, Winner};
use crate::timeline::{
    EventValue, Frame, GameEvent, GrenadeKind, Inferno, Item, MatchInfo, PlantedBomb, PlayerInfo,
    PlayerState, Projectile, Purchase, Rules, TeamState, Timeline,
};
use crate::validate::{
    offset_ticks, player_index, problem, reason_of, seconds_to_ticks, Problem, HITGROUPS,
};

/// The ticks of one round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoundTicks {
    /// `round_start`.
    pub start: i32,
    /// `round_freeze_end`.
    pub freeze_end: i32,
    /// `round_end`.
    pub end: i32,
    /// `round_officially_ended` (the next round's start); `None` for the
    /// last round.
    pub official_end: Option<i32>,
}

/// Units above the feet a grenade leaves the hand by default.
const THROW_HEIGHT: f32 = 64.0;
/// Default flight of a grenade, seconds.
const DEFAULT_FLIGHT: f64 = 1.5;
/// Default smoke duration, seconds.
const SMOKE_DURATION: f64 = 20.0;
/// Default fire duration, seconds.
const FIRE_DURATION: f64 = 7.0;
/// Default decoy duration, seconds.
const DECOY_DURATION: f64 = 15.0;
/// The round reward of the winners, and for a win by the bomb's explosion
/// or a defuse.
const WIN_REWARD: i32 = 3250;
const WIN_REWARD_BOMB: i32 = 3500;
/// The loss bonus: base, step per earlier consecutive loss, cap.
const LOSS_BASE: i32 = 1400;
const LOSS_STEP: i32 = 500;
const LOSS_MAX: i32 = 3400;
/// The missing player of a `userid`-style key, as CS2 writes it.
const NO_PLAYER: i64 = 65535;
/// The missing pawn of a `_pawn` key (the invalid handle).
const NO_PAWN: i64 = -1;

impl Scenario {
    /// The ticks of every round: start, freeze end, end, official end.
    pub fn schedule(&self) -> Vec<RoundTicks> {
        let mut out = Vec::with_capacity(self.rounds.len());
        let mut start = i64::from(self.start_tick);
        for (i, r) in self.rounds.iter().enumerate() {
            let freeze = seconds_to_ticks(
                r.freeze_time.unwrap_or(self.rules.freeze_time),
                self.tick_rate,
            );
            let end = seconds_to_ticks(r.end, self.tick_rate);
            let delay = seconds_to_ticks(
                r.restart_delay.unwrap_or(self.rules.restart_delay),
                self.tick_rate,
            );
            let last = i + 1 == self.rounds.len();
            out.push(RoundTicks {
                start: clamp_tick(start),
                freeze_end: clamp_tick(start + freeze),
                end: clamp_tick(start + end),
                official_end: (!last).then(|| clamp_tick(start + end + delay)),
            });
            start += end + delay;
        }
        out
    }

    /// The last tick of the match: the last round's end plus its restart
    /// delay, rounded up to a written tick.
    fn last_tick(&self) -> i32 {
        let mut t = i64::from(self.start_tick);
        for r in &self.rounds {
            t += seconds_to_ticks(r.end, self.tick_rate)
                + seconds_to_ticks(
                    r.restart_delay.unwrap_or(self.rules.restart_delay),
                    self.tick_rate,
                );
        }
        let first = i64::from(self.start_tick);
        let step = i64::from(self.frame_interval.max(1));
        let frames = (t - first + step - 1) / step;
        clamp_tick(first + frames * step)
    }

    /// The match as a timeline: checks the scenario, then compiles it.
    pub fn timeline(&self) -> Result<ScenarioTimeline, SynthError> {
        crate::validate::check(self).map_err(|p| scenario_error(None, p.key, p.message))?;
        let info = MatchInfo {
            map: self.map.clone(),
            tick_rate: self.tick_rate,
            frame_interval: self.frame_interval.max(1),
            server_name: self.server_name.clone(),
            players: self
                .players
                .iter()
                .enumerate()
                .map(|(i, p)| PlayerInfo {
                    slot: i as u16,
                    name: p.name.clone(),
                    steamid: p.steamid,
                    bot: p.bot,
                })
                .collect(),
            team_names: [self.teams.t.clone(), self.teams.ct.clone()],
            first_tick: self.start_tick,
            last_tick: self.last_tick(),
        };
        Ok(ScenarioTimeline {
            info,
            scenario: self.clone(),
        })
    }
}

fn clamp_tick(t: i64) -> i32 {
    t.clamp(0, i64::from(i32::MAX)) as i32
}

/// A scenario ready to be written: its fixed part and its frames.
#[derive(Debug, Clone)]
pub struct ScenarioTimeline {
    info: MatchInfo,
    scenario: Scenario,
}

impl Timeline for ScenarioTimeline {
    fn info(&self) -> &MatchInfo {
        &self.info
    }

    fn frames(&self) -> Box<dyn Iterator<Item = Frame> + '_> {
        Box::new(Frames {
            sim: Sim::new(&self.scenario),
            next: self.info.first_tick,
            last: self.info.last_tick,
            step: self.info.frame_interval.max(1) as i32,
            done: false,
        })
    }
}

/// Plays a scenario through without writing frames; the first step the
/// match forbids is the problem.
pub fn dry_run(s: &Scenario) -> Result<(), Problem> {
    let mut sim = Sim::new(s);
    sim.run_until(i32::MAX)
}

struct Frames<'s> {
    sim: Sim<'s>,
    next: i32,
    last: i32,
    step: i32,
    done: bool,
}

impl Iterator for Frames<'_> {
    type Item = Frame;

    fn next(&mut self) -> Option<Frame> {
        if self.done || self.next > self.last {
            return None;
        }
        let tick = self.next;
        // The scenario was checked by the same steps, so none fails here;
        // were one to, the frame still carries the state reached so far.
        let _ = self.sim.run_until(tick);
        let frame = self.sim.frame(tick);
        match tick.checked_add(self.step) {
            Some(n) => self.next = n,
            None => self.done = true,
        }
        Some(frame)
    }
}

/// What a scheduled step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    RoundStart(usize),
    FreezeEnd(usize),
    Detonate(u32),
    SmokeEnd(u32),
    FireEnd(u32),
    DecoyEnd(u32),
    Event(usize, usize),
    RoundEnd(usize),
}

impl Step {
    fn rank(self) -> u8 {
        match self {
            Step::RoundStart(_) => 0,
            Step::FreezeEnd(_) => 1,
            Step::Detonate(_) | Step::SmokeEnd(_) | Step::FireEnd(_) | Step::DecoyEnd(_) => 2,
            Step::Event(..) => 3,
            Step::RoundEnd(_) => 4,
        }
    }
}

/// A resolved keyframe: absolute tick, position, yaw, pitch.
#[derive(Debug, Clone, Copy)]
struct AbsKey {
    tick: i32,
    pos: [f32; 3],
    yaw: f32,
    pitch: f32,
}

/// A player's state with what the frames do not show.
#[derive(Debug, Clone)]
struct PState {
    st: PlayerState,
    /// The team (0: the one that starts as T, 1: the other), or none for a
    /// spectator.
    clan: Option<usize>,
    /// Where the player stands when not moved by keys (dead, or without
    /// keys): the position and view at death or at spawn.
    fixed: ([f32; 3], f32, f32),
    /// Whose keys move this pawn (itself, or the bot it took over), and
    /// from which tick the player's own keys take over again.
    path: usize,
    own_keys_from: i32,
    blind_until: i32,
    blind_duration: f32,
    /// The player was alive at the end of the previous round.
    survived: bool,
}

#[derive(Debug, Clone)]
struct Flight {
    proj: Projectile,
    from: [f32; 3],
    to: [f32; 3],
    start: i32,
    land: i32,
    duration: i64,
    /// The scenario event that threw it (round, event).
    cause: (usize, usize),
    landed: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct ClanScore {
    score: i32,
    first_half: i32,
    second_half: i32,
    overtime: i32,
    losses: i32,
}

/// The match's state machine.
struct Sim<'s> {
    s: &'s Scenario,
    ticks: Vec<RoundTicks>,
    /// Per round, per player: the resolved keys (empty: none).
    keys: Vec<Vec<Vec<AbsKey>>>,
    queue: BTreeMap<(i32, u8, u64), Step>,
    seq: u64,
    players: Vec<PState>,
    items: BTreeMap<u32, Item>,
    flights: BTreeMap<u32, Flight>,
    infernos: BTreeMap<u32, Inferno>,
    planted: Option<PlantedBomb>,
    planter: Option<usize>,
    next_id: u32,
    rules: Rules,
    clans: [ClanScore; 2],
    /// Sides are switched from the original ones.
    swapped: bool,
    round: Option<usize>,
    /// Grenades thrown this round, by player (for damage with them later).
    thrown: Vec<Vec<&'static str>>,
    events: Vec<GameEvent>,
    chat: Vec<crate::timeline::ChatLine>,
    spawn: Vec<[f32; 3]>,
}

fn ev(name: &str, keys: Vec<(&str, EventValue)>) -> GameEvent {
    GameEvent {
        name: name.to_string(),
        keys: keys.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    }
}

fn opt_player(p: Option<usize>) -> EventValue {
    p.map(EventValue::Player)
        .unwrap_or(EventValue::Int(NO_PLAYER))
}

fn opt_pawn(p: Option<usize>) -> EventValue {
    p.map(EventValue::Pawn).unwrap_or(EventValue::Int(NO_PAWN))
}

fn lerp(a: f32, b: f32, f: f32) -> f32 {
    a + (b - a) * f
}

/// Yaw from `a` to `b` the short way round, at fraction `f`, in (-180, 180].
fn lerp_angle(a: f32, b: f32, f: f32) -> f32 {
    let d = (b - a + 540.0).rem_euclid(360.0) - 180.0;
    let v = a + d * f;
    let w = (v + 180.0).rem_euclid(360.0) - 180.0;
    if w == -180.0 {
        180.0
    } else {
        w
    }
}

fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

impl<'s> Sim<'s> {
    fn new(s: &'s Scenario) -> Self {
        let ticks = s.schedule();
        let mut queue = BTreeMap::new();
        let mut seq = 0u64;
        let mut push = |q: &mut BTreeMap<(i32, u8, u64), Step>, tick: i32, step: Step| {
            q.insert((tick, step.rank(), seq), step);
            seq += 1;
        };
        let mut keys = Vec::with_capacity(s.rounds.len());
        for (r, (round, t)) in s.rounds.iter().zip(&ticks).enumerate() {
            push(&mut queue, t.start, Step::RoundStart(r));
            push(&mut queue, t.freeze_end, Step::FreezeEnd(r));
            for (j, e) in round.events.iter().enumerate() {
                let at = offset_ticks(e.t, e.tick, s.tick_rate, "").unwrap_or(0);
                push(
                    &mut queue,
                    clamp_tick(i64::from(t.start) + at),
                    Step::Event(r, j),
                );
            }
            push(&mut queue, t.end, Step::RoundEnd(r));
            keys.push(resolve_keys(s, round, t.start));
        }
        let players = s
            .players
            .iter()
            .enumerate()
            .map(|(i, p)| PState {
                st: PlayerState {
                    connected: p.connected,
                    name: p.name.clone(),
                    team: if p.connected { p.team.team_number() } else { 0 },
                    money: s.rules.start_money,
                    purchases: (!s.purchase_events).then(Vec::new),
                    ..PlayerState::default()
                },
                clan: match p.team {
                    Side::T => Some(0),
                    Side::Ct => Some(1),
                    Side::Spectator => None,
                },
                fixed: ([0.0; 3], 0.0, 0.0),
                path: i,
                own_keys_from: i32::MAX,
                blind_until: 0,
                blind_duration: 0.0,
                survived: false,
            })
            .collect();
        Sim {
            s,
            ticks,
            keys,
            queue,
            seq,
            players,
            items: BTreeMap::new(),
            flights: BTreeMap::new(),
            infernos: BTreeMap::new(),
            planted: None,
            planter: None,
            next_id: 1,
            rules: Rules {
                match_started: true,
                round_time: s.rules.round_time.round() as i32,
                ..Rules::default()
            },
            clans: [ClanScore::default(); 2],
            swapped: false,
            round: None,
            thrown: vec![Vec::new(); s.players.len()],
            events: Vec::new(),
            chat: Vec::new(),
            spawn: vec![[0.0; 3]; s.players.len()],
        }
    }

    /// Adds a round event unless the scenario leaves those out.
    fn round_event(&mut self, e: GameEvent) {
        if self.s.round_events {
            self.events.push(e);
        }
    }

    fn schedule(&mut self, tick: i32, step: Step) {
        self.queue.insert((tick, step.rank(), self.seq), step);
        self.seq += 1;
    }

    fn new_id(&mut self) -> u32 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        id
    }

    /// Plays every step up to and including `tick`.
    fn run_until(&mut self, tick: i32) -> Result<(), Problem> {
        while let Some(entry) = self.queue.first_entry() {
            let (at, _, _) = *entry.key();
            if at > tick {
                break;
            }
            let step = entry.remove();
            self.play(at, step)?;
        }
        Ok(())
    }

    fn side_of_clan(&self, clan: usize) -> u8 {
        let t_clan = if self.swapped { 1 } else { 0 };
        if clan == t_clan {
            2
        } else {
            3
        }
    }

    fn clan_on(&self, team: u8) -> usize {
        let t_clan = if self.swapped { 1 } else { 0 };
        if team == 2 {
            t_clan
        } else {
            1 - t_clan
        }
    }

    /// Game time in seconds at a tick.
    fn time(&self, tick: i32) -> f32 {
        tick as f32 / self.s.tick_rate.max(1) as f32
    }

    // --- where things are -------------------------------------------------

    /// Position, yaw and pitch of a player at a tick.
    fn pose(&self, p: usize, tick: i32) -> ([f32; 3], f32, f32) {
        let Some(ps) = self.players.get(p) else {
            return ([0.0; 3], 0.0, 0.0);
        };
        if !ps.st.alive {
            return ps.fixed;
        }
        let path = if tick >= ps.own_keys_from { p } else { ps.path };
        let keys = self
            .round
            .and_then(|r| self.keys.get(r))
            .and_then(|k| k.get(path))
            .filter(|k| !k.is_empty());
        match keys {
            Some(k) => interpolate(k, tick),
            None => ps.fixed,
        }
    }

    fn flight_pos(f: &Flight, tick: i32) -> [f32; 3] {
        if f.landed || tick >= f.land {
            return f.to;
        }
        let span = (f.land - f.start).max(1) as f32;
        let x = ((tick - f.start) as f32 / span).clamp(0.0, 1.0);
        let horizontal = ((f.to[0] - f.from[0]).powi(2) + (f.to[1] - f.from[1]).powi(2)).sqrt();
        let arc = (horizontal * 0.25).min(150.0);
        [
            lerp(f.from[0], f.to[0], x),
            lerp(f.from[1], f.to[1], x),
            lerp(f.from[2], f.to[2], x) + 4.0 * arc * x * (1.0 - x),
        ]
    }

    // --- the frame ---------------------------------------------------------

    fn frame(&mut self, tick: i32) -> Frame {
        let t_clan = if self.swapped { 1 } else { 0 };
        let team = |number: u8, clan: usize, sim: &Sim<'_>| {
            let c = sim.clans.get(clan).copied().unwrap_or_default();
            TeamState {
                number,
                score: c.score,
                score_first_half: c.first_half,
                score_second_half: c.second_half,
                score_overtime: c.overtime,
                clan_name: if clan == 0 {
                    sim.s.teams.t.clone()
                } else {
                    sim.s.teams.ct.clone()
                },
            }
        };
        let teams = [team(2, t_clan, self), team(3, 1 - t_clan, self)];
        let players = (0..self.players.len())
            .map(|i| {
                let (pos, yaw, pitch) = self.pose(i, tick);
                let ps = &self.players[i];
                let mut st = ps.st.clone();
                st.position = pos;
                st.yaw = yaw;
                st.pitch = pitch;
                st.flash_duration = if tick < ps.blind_until {
                    ps.blind_duration
                } else {
                    0.0
                };
                st
            })
            .collect::<Vec<_>>();
        let items = self
            .items
            .values()
            .map(|it| {
                let mut it = it.clone();
                if let Some(o) = it.owner {
                    if let Some(p) = players.get(o) {
                        it.position = p.position;
                    }
                }
                it
            })
            .collect();
        let projectiles = self
            .flights
            .values()
            .map(|f| {
                let mut p = f.proj.clone();
                p.position = Self::flight_pos(f, tick);
                p
            })
            .collect();
        Frame {
            tick,
            rules: self.rules.clone(),
            teams,
            players,
            items,
            projectiles,
            infernos: self.infernos.values().cloned().collect(),
            planted_bomb: self.planted.clone(),
            events: std::mem::take(&mut self.events),
            chat: std::mem::take(&mut self.chat),
        }
    }

    // --- items -------------------------------------------------------------

    fn give(&mut self, p: usize, def: &ItemDef) -> u32 {
        let id = self.new_id();
        self.items.insert(
            id,
            Item {
                id,
                weapon: def.name.to_string(),
                def_index: def.def_index,
                owner: Some(p),
                position: [0.0; 3],
                clip: def.clip,
            },
        );
        if let Some(ps) = self.players.get_mut(p) {
            ps.st.weapons.push(id);
        }
        id
    }

    fn carried(&self, p: usize) -> impl Iterator<Item = &Item> + '_ {
        let ids = self
            .players
            .get(p)
            .map(|ps| ps.st.weapons.as_slice())
            .unwrap_or(&[]);
        ids.iter().filter_map(|id| self.items.get(id))
    }

    /// The id of an item of that name the player carries (any knife for a
    /// knife).
    fn carried_named(&self, p: usize, name: &str) -> Option<u32> {
        let knife = |n: &str| n == "knife" || n == "knife_t";
        self.carried(p)
            .find(|it| it.weapon == name || (knife(name) && knife(&it.weapon)))
            .map(|it| it.id)
    }

    fn kind_of(it: &Item) -> Option<ItemKind> {
        item(&it.weapon).map(|d| d.kind)
    }

    /// Takes an item from the player's inventory; it lies at `pos` when
    /// `drop_at` is given, else it is gone.
    fn take(&mut self, p: usize, id: u32, drop_at: Option<[f32; 3]>) {
        if let Some(ps) = self.players.get_mut(p) {
            ps.st.weapons.retain(|&w| w != id);
            if ps.st.active_weapon == Some(id) {
                ps.st.active_weapon = None;
            }
        }
        match drop_at {
            Some(pos) => {
                if let Some(it) = self.items.get_mut(&id) {
                    it.owner = None;
                    it.position = pos;
                }
            }
            None => {
                self.items.remove(&id);
            }
        }
        self.pick_active(p);
    }

    /// When the player holds nothing, the best weapon they carry: primary,
    /// pistol, knife, anything.
    fn pick_active(&mut self, p: usize) {
        let Some(ps) = self.players.get(p) else {
            return;
        };
        if ps.st.active_weapon.is_some() {
            return;
        }
        let rank = |k: Option<ItemKind>| match k {
            Some(k) if k.is_primary() => 0,
            Some(ItemKind::Pistol) => 1,
            Some(ItemKind::Knife) => 2,
            _ => 3,
        };
        let best = self
            .carried(p)
            .min_by_key(|it| rank(Self::kind_of(it)))
            .map(|it| it.id);
        if let Some(ps) = self.players.get_mut(p) {
            ps.st.active_weapon = best;
        }
    }

    fn set_active(&mut self, p: usize, id: Option<u32>) {
        if let (Some(ps), Some(id)) = (self.players.get_mut(p), id) {
            ps.st.active_weapon = Some(id);
        }
    }

    fn clear_inventory(&mut self, p: usize) {
        let ids = self
            .players
            .get(p)
            .map(|ps| ps.st.weapons.clone())
            .unwrap_or_default();
        for id in ids {
            self.items.remove(&id);
        }
        if let Some(ps) = self.players.get_mut(p) {
            ps.st.weapons.clear();
            ps.st.active_weapon = None;
        }
    }

    fn bomb_item(&self) -> Option<&Item> {
        self.items.values().find(|it| it.weapon == "c4")
    }

    /// Drops the bomb the player carries, with `bomb_dropped`.
    fn drop_bomb(&mut self, p: usize, pos: [f32; 3]) {
        if let Some(id) = self.carried_named(p, "c4") {
            self.take(p, id, Some(pos));
            self.rules.bomb_dropped = true;
            self.events.push(ev(
                "bomb_dropped",
                vec![
                    ("userid", EventValue::Player(p)),
                    ("userid_pawn", EventValue::Pawn(p)),
                    ("entindex", EventValue::Entity(id)),
                ],
            ));
        }
    }

    // --- steps -------------------------------------------------------------

    fn play(&mut self, tick: i32, step: Step) -> Result<(), Problem> {
        match step {
            Step::RoundStart(r) => self.round_start(tick, r),
            Step::FreezeEnd(r) => {
                self.rules.freeze_period = false;
                self.rules.round_start_time = self.time(tick);
                self.events.push(ev("round_freeze_end", vec![]));
                if r == 0 {
                    self.events.push(ev("round_announce_match_start", vec![]));
                }
                Ok(())
            }
            Step::RoundEnd(r) => {
                self.round_end(r);
                Ok(())
            }
            Step::Event(r, j) => self.event(tick, r, j),
            Step::Detonate(id) => self.detonate(tick, id),
            Step::SmokeEnd(id) => {
                if let Some(f) = self.flights.remove(&id) {
                    self.events.push(ev(
                        "smokegrenade_expired",
                        grenade_keys(f.proj.thrower, id, f.to),
                    ));
                }
                Ok(())
            }
            Step::DecoyEnd(id) => {
                if let Some(f) = self.flights.remove(&id) {
                    self.events
                        .push(ev("decoy_detonate", grenade_keys(f.proj.thrower, id, f.to)));
                }
                Ok(())
            }
            Step::FireEnd(id) => {
                if let Some(fire) = self.infernos.remove(&id) {
                    self.events
                        .push(ev("inferno_expire", fire_keys(id, fire.position)));
                }
                Ok(())
            }
        }
    }

    /// Which half a round is in: (first round of a half, sides swapped,
    /// phase, overtime, second half of regulation).
    fn half_of(&self, r: usize) -> (bool, bool, i32, bool, bool) {
        let max = self.s.rules.max_rounds.max(2) as usize;
        let ot = self.s.rules.overtime_max_rounds.max(2) as usize;
        if r < max {
            let half = r / (max / 2);
            (
                r.is_multiple_of(max / 2),
                half == 1,
                2 + half as i32,
                false,
                half == 1,
            )
        } else {
            let j = r - max;
            let k = j / ot;
            let w = (j % ot) / (ot / 2);
            (
                j.is_multiple_of(ot / 2),
                (1 + k + w) % 2 == 1,
                2 + w as i32,
                true,
                false,
            )
        }
    }

    fn round_start(&mut self, tick: i32, r: usize) -> Result<(), Problem> {
        let Some(round) = self.s.rounds.get(r) else {
            return Ok(());
        };
        if r > 0 {
            self.round_event(ev("round_officially_ended", vec![]));
        }
        // Whatever still lies, flies or burns goes.
        let flights = std::mem::take(&mut self.flights);
        for (id, f) in flights {
            if f.landed && f.proj.kind == GrenadeKind::Smoke {
                self.events.push(ev(
                    "smokegrenade_expired",
                    grenade_keys(f.proj.thrower, id, f.to),
                ));
            }
        }
        let fires = std::mem::take(&mut self.infernos);
        for (id, fire) in fires {
            self.events
                .push(ev("inferno_expire", fire_keys(id, fire.position)));
        }
        self.queue.retain(|_, s| {
            !matches!(
                s,
                Step::Detonate(_) | Step::SmokeEnd(_) | Step::FireEnd(_) | Step::DecoyEnd(_)
            )
        });
        self.items
            .retain(|_, it| it.owner.is_some() && it.weapon != "c4");
        for ps in &mut self.players {
            ps.st.weapons.retain(|id| self.items.contains_key(id));
            if ps
                .st
                .active_weapon
                .is_some_and(|a| !self.items.contains_key(&a))
            {
                ps.st.active_weapon = None;
            }
        }
        self.planted = None;
        self.planter = None;
        for t in &mut self.thrown {
            t.clear();
        }

        let (fresh, swapped, phase, overtime, _) = self.half_of(r);
        self.swapped = swapped;
        let start_money = if overtime {
            self.s.rules.overtime_start_money
        } else {
            self.s.rules.start_money
        };
        if fresh {
            // A half starts afresh: no loss streak carries over.
            for c in &mut self.clans {
                c.losses = 0;
            }
        }
        self.round = Some(r);
        self.rules.freeze_period = true;
        self.rules.game_phase = phase;
        self.rules.round_win_status = 0;
        self.rules.round_win_reason = 0;
        self.rules.bomb_planted = false;
        self.rules.bomb_dropped = false;
        self.rules.round_start_count += 1;
        self.rules.round_start_time = self.time(self.ticks.get(r).map_or(tick, |t| t.freeze_end));
        if r == 0 {
            self.events.push(ev("begin_new_match", vec![]));
        }
        self.round_event(ev(
            "round_start",
            vec![
                (
                    "timelimit",
                    EventValue::Int(i64::from(self.rules.round_time)),
                ),
                ("fraglimit", EventValue::Int(0)),
                ("objective", EventValue::Str("BOMB TARGET".into())),
            ],
        ));

        let mut spawned = Vec::new();
        for p in 0..self.players.len() {
            let first_key = self
                .keys
                .get(r)
                .and_then(|k| k.get(p))
                .and_then(|k| k.first())
                .copied();
            if let Some(k) = first_key {
                if let Some(s) = self.spawn.get_mut(p) {
                    *s = k.pos;
                }
            }
            let spawn = self.spawn.get(p).copied().unwrap_or([0.0; 3]);
            let Some(clan) = self.players.get(p).and_then(|ps| ps.clan) else {
                continue;
            };
            let side = self.side_of_clan(clan);
            let kept = {
                let Some(ps) = self.players.get_mut(p) else {
                    continue;
                };
                ps.path = p;
                ps.own_keys_from = i32::MAX;
                ps.st.controlling_bot = None;
                ps.blind_until = 0;
                // A new round's purchases can be sold back, no earlier one.
                if let Some(list) = &mut ps.st.purchases {
                    list.clear();
                }
                if !ps.st.connected {
                    ps.survived = false;
                    continue;
                }
                ps.st.team = side;
                let kept = ps.survived && !fresh;
                if fresh {
                    ps.st.money = start_money;
                }
                ps.st.alive = true;
                ps.st.health = 100;
                if !kept {
                    ps.st.armor = 0;
                    ps.st.helmet = false;
                    ps.st.defuser = false;
                }
                ps.fixed = match first_key {
                    Some(k) => (k.pos, k.yaw, k.pitch),
                    None => (spawn, ps.fixed.1, ps.fixed.2),
                };
                kept
            };
            if !kept {
                self.clear_inventory(p);
                for w in default_loadout(side) {
                    if let Some(d) = item(w) {
                        self.give(p, d);
                    }
                }
            }
            spawned.push(p);
        }
        // The round's overrides.
        for (name, rp) in &round.players {
            let key = format!("rounds[{r}].players.{name}");
            let p = player_index(self.s, &key, name)?;
            let sets_state = rp.money.is_some()
                || rp.health.is_some()
                || rp.armor.is_some()
                || rp.helmet.is_some()
                || rp.defuser.is_some()
                || rp.weapons.is_some();
            if sets_state && !spawned.contains(&p) {
                return Err(problem(
                    key,
                    format!(
                        "`{name}` does not play round {} (not connected, or a spectator): only keys can be given",
                        r + 1
                    ),
                ));
            }
            if let Some(ws) = &rp.weapons {
                self.clear_inventory(p);
                for w in ws {
                    if let Some(d) = item(w) {
                        self.give(p, d);
                    }
                }
            }
            let Some(ps) = self.players.get_mut(p) else {
                continue;
            };
            if let Some(m) = rp.money {
                ps.st.money = m;
            }
            if let Some(h) = rp.health {
                ps.st.health = h;
            }
            if let Some(a) = rp.armor {
                ps.st.armor = a;
            }
            if let Some(h) = rp.helmet {
                ps.st.helmet = h;
            }
            if let Some(d) = rp.defuser {
                ps.st.defuser = d;
            }
        }
        for &p in &spawned {
            self.pick_active(p);
            self.events.push(ev(
                "player_spawn",
                vec![
                    ("userid", EventValue::Player(p)),
                    ("userid_pawn", EventValue::Pawn(p)),
                ],
            ));
        }
        // The bomb.
        let carrier = match &round.bomb {
            Some(b) if b.is_empty() => None,
            Some(b) => {
                let key = format!("rounds[{r}].bomb");
                let p = player_index(self.s, &key, b)?;
                let ok = self
                    .players
                    .get(p)
                    .is_some_and(|ps| ps.st.alive && ps.st.team == 2);
                if !ok {
                    return Err(problem(
                        key,
                        format!(
                            "`{b}` is not a living terrorist at the start of round {}",
                            r + 1
                        ),
                    ));
                }
                Some(p)
            }
            None => spawned
                .iter()
                .copied()
                .find(|&p| self.players.get(p).is_some_and(|ps| ps.st.team == 2)),
        };
        if let (Some(p), Some(d)) = (carrier, item("c4")) {
            self.give(p, d);
        }
        Ok(())
    }

    fn round_end(&mut self, r: usize) {
        let Some(round) = self.s.rounds.get(r) else {
            return;
        };
        let (name, reason, message) = reason_of(round).unwrap_or(("draw", 10, ""));
        let winner_team: u8 = match round.winner {
            Winner::T => 2,
            Winner::Ct => 3,
            Winner::Draw => 1,
        };
        self.rules.round_win_status = i32::from(winner_team);
        self.rules.round_win_reason = reason;
        self.rules.total_rounds_played += 1;
        self.rules.round_end_count += 1;
        let (_, _, _, overtime, second) = self.half_of(r);
        if winner_team >= 2 {
            let w = self.clan_on(winner_team);
            if let Some(c) = self.clans.get_mut(w) {
                c.score += 1;
                if overtime {
                    c.overtime += 1;
                } else if second {
                    c.second_half += 1;
                } else {
                    c.first_half += 1;
                }
                c.losses = 0;
            }
            let l = 1 - w;
            if let Some(c) = self.clans.get_mut(l) {
                c.losses += 1;
            }
            if self.s.rules.economy {
                let win = if name == "bomb_exploded" || name == "bomb_defused" {
                    WIN_REWARD_BOMB
                } else {
                    WIN_REWARD
                };
                let losses = self.clans.get(l).map_or(1, |c| c.losses);
                let loss = (LOSS_BASE + LOSS_STEP * (losses - 1).max(0)).min(LOSS_MAX);
                let max = self.s.rules.max_money;
                for ps in &mut self.players {
                    if !ps.st.connected {
                        continue;
                    }
                    if ps.clan == Some(w) {
                        ps.st.money = ps.st.money.saturating_add(win).min(max);
                    } else if ps.clan == Some(l) {
                        ps.st.money = ps.st.money.saturating_add(loss).min(max);
                    }
                }
            }
        }
        let connected = self.players.iter().filter(|p| p.st.connected).count();
        self.round_event(ev(
            "round_end",
            vec![
                ("winner", EventValue::Int(i64::from(winner_team))),
                ("reason", EventValue::Int(i64::from(reason))),
                ("message", EventValue::Str(message.to_string())),
                ("legacy", EventValue::Int(0)),
                ("player_count", EventValue::Int(connected as i64)),
                ("nomusic", EventValue::Int(0)),
            ],
        ));
        for ps in &mut self.players {
            ps.survived = ps.st.alive;
        }
        let last = r + 1 == self.s.rounds.len();
        if last {
            self.rules.game_phase = 5;
            self.rules.match_end_count += 1;
            self.round_event(ev("cs_win_panel_match", vec![]));
        } else if self.half_of(r + 1).0 && self.half_of(r + 1).1 != self.swapped {
            self.rules.game_phase = 4;
            self.events.push(ev("announce_phase_end", vec![]));
        }
    }

    // --- the scenario's events ---------------------------------------------

    fn name(&self, p: usize) -> &str {
        self.s.players.get(p).map_or("", |x| x.name.as_str())
    }

    fn alive(&self, p: usize) -> bool {
        self.players.get(p).is_some_and(|ps| ps.st.alive)
    }

    fn must_live(&self, p: usize, key: &str, doing: &str) -> Result<(), Problem> {
        let ps = self.players.get(p);
        if ps.is_some_and(|ps| !ps.st.connected) {
            return Err(problem(
                key,
                format!("`{}` is not connected and cannot {doing}", self.name(p)),
            ));
        }
        if !self.alive(p) {
            let why = self.controlled_by(p).map_or(String::new(), |h| {
                format!(
                    " (`{}` has taken over this bot: name `{}`)",
                    self.name(p),
                    self.name(h)
                )
            });
            return Err(problem(
                key,
                format!("`{}` is dead and cannot {doing}{why}", self.name(p)),
            ));
        }
        Ok(())
    }

    fn controlled_by(&self, bot: usize) -> Option<usize> {
        self.players
            .iter()
            .position(|ps| ps.st.controlling_bot == Some(bot))
    }

    /// The attacker may use the weapon: carries it, or threw that
    /// grenade this round (grenades and fires hurt after the thrower's
    /// death), or the weapon is the world or the planted bomb.
    fn may_use(&self, p: usize, weapon: &str, ek: &str, doing: &str) -> Result<(), Problem> {
        let key = format!("{ek}.attacker");
        let thrown = |g: &[&str]| {
            self.thrown
                .get(p)
                .is_some_and(|t| t.iter().any(|x| g.contains(x)))
        };
        let ok = match weapon {
            "world" | "planted_c4" => true,
            "inferno" => thrown(&["molotov", "incgrenade"]),
            "hegrenade" | "flashbang" | "smokegrenade" | "decoy" | "molotov" | "incgrenade" => {
                thrown(&[weapon]) || self.carried_named(p, weapon).is_some()
            }
            _ => {
                self.must_live(p, &key, doing)?;
                self.carried_named(p, weapon).is_some()
            }
        };
        if ok {
            Ok(())
        } else {
            Err(problem(
                format!("{ek}.weapon"),
                format!(
                    "`{}` does not carry `{weapon}`{}",
                    self.name(p),
                    if weapon == "inferno" {
                        " (no molotov or incendiary thrown this round)"
                    } else {
                        " (buy it, pick it up, or list it in the round's `weapons`)"
                    }
                ),
            ))
        }
    }

    /// The victim and the attacker of a kill or a hit (event key `ek`),
    /// checked: the victim is alive (else `victim` then `dead` is the
    /// message), and an attacker other than the victim may use the weapon
    /// (`doing`, as [`Sim::may_use`] words it).
    fn parties(
        &self,
        ek: &str,
        victim: &str,
        attacker: Option<&str>,
        weapon: &str,
        (dead, doing): (&str, &str),
    ) -> Result<(usize, Option<usize>), Problem> {
        let who = |k: &str, n: &str| player_index(self.s, &format!("{ek}.{k}"), n);
        let v = who("victim", victim)?;
        let a = attacker.map(|n| who("attacker", n)).transpose()?;
        if !self.alive(v) {
            return Err(problem(
                format!("{ek}.victim"),
                format!("`{victim}` {dead}"),
            ));
        }
        if let Some(a) = a {
            if a != v {
                self.may_use(a, weapon, ek, doing)?;
            }
        }
        Ok((v, a))
    }

    fn event(&mut self, tick: i32, r: usize, j: usize) -> Result<(), Problem> {
        let s = self.s;
        let Some(e) = s.rounds.get(r).and_then(|round| round.events.get(j)) else {
            return Ok(());
        };
        let ek = format!("rounds[{r}].events[{j}]");
        let who = |k: &str, n: &str| player_index(s, &format!("{ek}.{k}"), n);
        match &e.action {
            Action::Kill {
                attacker,
                victim,
                assister,
                weapon,
                headshot,
                penetrated,
                wallbang,
                thrusmoke,
                noscope,
                attackerblind,
                assistedflash,
                attackerinair,
                hitgroup,
                dmg_armor,
            } => {
                let (v, a) = self.parties(
                    &ek,
                    victim,
                    attacker.as_deref(),
                    weapon,
                    ("is already dead: a kill of a dead player", "kill"),
                )?;
                let asst = assister
                    .as_deref()
                    .map(|n| who("assister", n))
                    .transpose()?;
                let group = hitgroup
                    .clone()
                    .unwrap_or_else(|| if *headshot { "head" } else { "chest" }.to_string());
                let (vpos, _, _) = self.pose(v, tick);
                let apos = a.map(|a| self.pose(a, tick).0);
                let health = self.players.get(v).map_or(0, |ps| ps.st.health);
                let armor_before = self.players.get(v).map_or(0, |ps| ps.st.armor);
                let armor_taken = (*dmg_armor).min(armor_before);
                let pen = if *wallbang {
                    (*penetrated).max(1)
                } else {
                    *penetrated
                };
                let dist = apos.map_or(0.0, |ap| distance(ap, vpos));
                self.fire(a, v, weapon);
                self.hurt(a, v, weapon, health, armor_taken, &group);
                self.events.push(ev(
                    "player_death",
                    vec![
                        ("userid", EventValue::Player(v)),
                        ("userid_pawn", EventValue::Pawn(v)),
                        ("attacker", opt_player(a)),
                        ("attacker_pawn", opt_pawn(a)),
                        ("assister", opt_player(asst)),
                        ("assister_pawn", opt_pawn(asst)),
                        ("assistedflash", EventValue::Bool(*assistedflash)),
                        ("weapon", EventValue::Str(weapon.clone())),
                        ("headshot", EventValue::Bool(*headshot)),
                        ("penetrated", EventValue::Int(i64::from(pen))),
                        ("noscope", EventValue::Bool(*noscope)),
                        ("thrusmoke", EventValue::Bool(*thrusmoke)),
                        ("attackerblind", EventValue::Bool(*attackerblind)),
                        ("distance", EventValue::Float(dist)),
                        ("dmg_health", EventValue::Int(i64::from(health))),
                        ("dmg_armor", EventValue::Int(i64::from(armor_taken))),
                        ("hitgroup", EventValue::Int(hitgroup_number(&group))),
                        ("attackerinair", EventValue::Bool(*attackerinair)),
                    ],
                ));
                self.die(v, tick);
                let enemies = |x: usize, y: usize, sim: &Sim<'_>| {
                    let tx = sim.players.get(x).map(|p| p.st.team);
                    let ty = sim.players.get(y).map(|p| p.st.team);
                    x != y && tx != ty
                };
                if let Some(a) = a {
                    if enemies(a, v, self) {
                        let reward = item(weapon).map_or(300, |d| d.kill_reward);
                        let max = self.s.rules.max_money;
                        let economy = self.s.rules.economy;
                        if let Some(ps) = self.players.get_mut(a) {
                            ps.st.kills += 1;
                            if economy {
                                ps.st.money = ps.st.money.saturating_add(reward).min(max);
                            }
                        }
                    }
                }
                if let Some(x) = asst {
                    if let Some(ps) = self.players.get_mut(x) {
                        ps.st.assists += 1;
                    }
                }
                if let Some(ps) = self.players.get_mut(v) {
                    ps.st.deaths += 1;
                }
            }
            Action::Damage {
                attacker,
                victim,
                weapon,
                dmg_health,
                dmg_armor,
                hitgroup,
            } => {
                let (v, a) = self.parties(
                    &ek,
                    victim,
                    attacker.as_deref(),
                    weapon,
                    ("is dead: damage to a dead player", "do damage"),
                )?;
                let health = self.players.get(v).map_or(0, |ps| ps.st.health);
                if *dmg_health >= health {
                    return Err(problem(
                        format!("{ek}.dmg_health"),
                        format!(
                            "{dmg_health} takes all of `{victim}`'s {health} health: a hit that kills is a `kill` event"
                        ),
                    ));
                }
                let armor = self.players.get(v).map_or(0, |ps| ps.st.armor);
                let group = hitgroup.clone().unwrap_or_else(|| "chest".to_string());
                self.fire(a, v, weapon);
                self.hurt(a, v, weapon, *dmg_health, (*dmg_armor).min(armor), &group);
            }
            Action::Purchase { player, item: name } => {
                let p = who("player", player)?;
                self.must_live(p, &format!("{ek}.player"), "buy")?;
                let Some(def) = item(name) else {
                    return Ok(());
                };
                let money = self.players.get(p).map_or(0, |ps| ps.st.money);
                if money < def.price {
                    return Err(problem(
                        format!("{ek}.item"),
                        format!(
                            "a purchase without the money: `{player}` has ${money}, `{}` costs ${}",
                            def.name, def.price
                        ),
                    ));
                }
                let team = self.players.get(p).map_or(0, |ps| ps.st.team);
                if def.name == "defuser" && team != 3 {
                    return Err(problem(
                        format!("{ek}.item"),
                        "only a counter-terrorist buys a defuse kit",
                    ));
                }
                if def.kind == ItemKind::C4 || def.kind == ItemKind::Knife {
                    return Err(problem(
                        format!("{ek}.item"),
                        format!("`{}` is not for sale", def.name),
                    ));
                }
                if let Some(ps) = self.players.get_mut(p) {
                    ps.st.money -= def.price;
                }
                let bought = self.receive(p, def, tick);
                if let Some(list) = self
                    .players
                    .get_mut(p)
                    .and_then(|ps| ps.st.purchases.as_mut())
                {
                    list.push(Purchase {
                        def_index: def.def_index,
                        cost: def.price,
                        item: bought,
                    });
                }
                if self.s.purchase_events {
                    self.events.push(ev(
                        "item_purchase",
                        vec![
                            ("userid", EventValue::Player(p)),
                            ("team", EventValue::Int(i64::from(team))),
                            ("loadout", EventValue::Int(0)),
                            ("weapon", EventValue::Str(def.purchase_name())),
                        ],
                    ));
                }
            }
            Action::Pickup { player, item: name } => {
                let p = who("player", player)?;
                self.must_live(p, &format!("{ek}.player"), "pick up")?;
                let Some(def) = item(name) else {
                    return Ok(());
                };
                if def.kind == ItemKind::C4 {
                    return Err(problem(
                        format!("{ek}.item"),
                        "the bomb is picked up with a `bomb_pickup` event",
                    ));
                }
                let (pos, _, _) = self.pose(p, tick);
                let lying = self
                    .items
                    .values()
                    .filter(|it| it.owner.is_none() && it.weapon == def.name)
                    .min_by(|x, y| distance(x.position, pos).total_cmp(&distance(y.position, pos)))
                    .map(|it| it.id);
                match lying {
                    Some(id) => {
                        self.make_room(p, def, tick);
                        if let Some(it) = self.items.get_mut(&id) {
                            it.owner = Some(p);
                        }
                        if let Some(ps) = self.players.get_mut(p) {
                            ps.st.weapons.push(id);
                        }
                        if def.kind.is_primary() || def.kind == ItemKind::Pistol {
                            self.set_active(p, Some(id));
                        }
                        self.pick_active(p);
                    }
                    None => {
                        self.receive(p, def, tick);
                    }
                }
                self.events.push(ev(
                    "item_pickup",
                    vec![
                        ("userid", EventValue::Player(p)),
                        ("item", EventValue::Str(def.name.to_string())),
                        ("silent", EventValue::Bool(false)),
                        ("defindex", EventValue::Int(i64::from(def.def_index))),
                    ],
                ));
            }
            Action::Drop { player, item: name } => {
                let p = who("player", player)?;
                self.must_live(p, &format!("{ek}.player"), "drop anything")?;
                let (pos, _, _) = self.pose(p, tick);
                if name == "c4" {
                    return self.bomb_drop(p, pos, &ek);
                }
                let Some(id) = self.carried_named(p, name) else {
                    return Err(problem(
                        format!("{ek}.item"),
                        format!("`{player}` does not carry `{name}`"),
                    ));
                };
                self.take(p, id, Some(pos));
            }
            Action::BombPickup { player } => {
                let p = who("player", player)?;
                self.must_live(p, &format!("{ek}.player"), "pick up the bomb")?;
                if self.players.get(p).is_some_and(|ps| ps.st.team != 2) {
                    return Err(problem(
                        format!("{ek}.player"),
                        format!("`{player}` is not a terrorist"),
                    ));
                }
                let Some(id) = self
                    .bomb_item()
                    .filter(|it| it.owner.is_none())
                    .map(|it| it.id)
                else {
                    return Err(problem(
                        format!("{ek}.player"),
                        "no bomb lies on the ground",
                    ));
                };
                if let Some(it) = self.items.get_mut(&id) {
                    it.owner = Some(p);
                }
                if let Some(ps) = self.players.get_mut(p) {
                    ps.st.weapons.push(id);
                }
                self.rules.bomb_dropped = false;
                self.events.push(ev(
                    "bomb_pickup",
                    // Every CS2 build declares `bomb_pickup` with the pawn only.
                    vec![("userid_pawn", EventValue::Pawn(p))],
                ));
            }
            Action::BombDrop { player } => {
                let p = who("player", player)?;
                self.must_live(p, &format!("{ek}.player"), "drop the bomb")?;
                let (pos, _, _) = self.pose(p, tick);
                self.bomb_drop(p, pos, &ek)?;
            }
            Action::PlantBegin { player, site } | Action::Plant { player, site } => {
                let p = who("player", player)?;
                self.must_live(p, &format!("{ek}.player"), "plant")?;
                if self.carried_named(p, "c4").is_none() {
                    return Err(problem(
                        format!("{ek}.player"),
                        format!("a plant without the bomb: `{player}` does not carry it"),
                    ));
                }
                let site_n = match site {
                    Site::A => 0,
                    Site::B => 1,
                };
                let planted = matches!(e.action, Action::Plant { .. });
                let name = if planted {
                    "bomb_planted"
                } else {
                    "bomb_beginplant"
                };
                self.events.push(ev(
                    name,
                    vec![
                        ("userid", EventValue::Player(p)),
                        ("userid_pawn", EventValue::Pawn(p)),
                        ("site", EventValue::Int(site_n)),
                    ],
                ));
                if planted {
                    let (pos, _, _) = self.pose(p, tick);
                    if let Some(id) = self.carried_named(p, "c4") {
                        self.take(p, id, None);
                    }
                    self.planted = Some(PlantedBomb {
                        position: pos,
                        site: site_n as i32,
                        blow_time: self.time(tick) + self.s.rules.bomb_timer as f32,
                        defuser: None,
                        defused: false,
                        exploded: false,
                    });
                    self.planter = Some(p);
                    self.rules.bomb_planted = true;
                    self.rules.bomb_dropped = false;
                }
            }
            Action::PlantAbort { player } => {
                let p = who("player", player)?;
                self.must_live(p, &format!("{ek}.player"), "abort a plant")?;
                self.events.push(ev(
                    "bomb_abortplant",
                    vec![
                        ("userid", EventValue::Player(p)),
                        ("userid_pawn", EventValue::Pawn(p)),
                        ("site", EventValue::Int(0)),
                    ],
                ));
            }
            Action::DefuseBegin { player }
            | Action::DefuseAbort { player }
            | Action::Defuse { player } => {
                let p = who("player", player)?;
                self.must_live(p, &format!("{ek}.player"), "defuse")?;
                if self.players.get(p).is_some_and(|ps| ps.st.team != 3) {
                    return Err(problem(
                        format!("{ek}.player"),
                        format!("`{player}` is not a counter-terrorist"),
                    ));
                }
                let live = self
                    .planted
                    .as_ref()
                    .is_some_and(|b| !b.defused && !b.exploded);
                if !live {
                    return Err(problem(
                        format!("{ek}.player"),
                        "no bomb is planted (or it was already defused or exploded)",
                    ));
                }
                let kit = self.players.get(p).is_some_and(|ps| ps.st.defuser);
                let site = i64::from(self.planted.as_ref().map_or(0, |b| b.site));
                let (name, keys) = match e.action {
                    Action::DefuseBegin { .. } => {
                        ("bomb_begindefuse", vec![("haskit", EventValue::Bool(kit))])
                    }
                    Action::DefuseAbort { .. } => ("bomb_abortdefuse", vec![]),
                    _ => ("bomb_defused", vec![("site", EventValue::Int(site))]),
                };
                let mut all = vec![
                    ("userid", EventValue::Player(p)),
                    ("userid_pawn", EventValue::Pawn(p)),
                ];
                all.extend(keys);
                self.events.push(ev(name, all));
                if let Some(b) = &mut self.planted {
                    match e.action {
                        Action::DefuseBegin { .. } => b.defuser = Some(p),
                        Action::DefuseAbort { .. } => b.defuser = None,
                        _ => {
                            b.defuser = Some(p);
                            b.defused = true;
                        }
                    }
                }
            }
            Action::Explode {} => {
                let live = self
                    .planted
                    .as_ref()
                    .is_some_and(|b| !b.defused && !b.exploded);
                if !live {
                    return Err(problem(
                        format!("{ek}.type"),
                        "no bomb is planted (or it was already defused or exploded)",
                    ));
                }
                let site = i64::from(self.planted.as_ref().map_or(0, |b| b.site));
                if let Some(b) = &mut self.planted {
                    b.exploded = true;
                }
                self.events.push(ev(
                    "bomb_exploded",
                    vec![
                        ("userid", opt_player(self.planter)),
                        ("userid_pawn", opt_pawn(self.planter)),
                        ("site", EventValue::Int(site)),
                    ],
                ));
            }
            Action::Throw {
                player,
                grenade,
                to,
                from,
                flight,
                duration,
                ..
            } => {
                let p = who("player", player)?;
                self.must_live(p, &format!("{ek}.player"), "throw")?;
                let Some(def) = item(grenade) else {
                    return Ok(());
                };
                let Some(kind) = def.grenade() else {
                    return Ok(());
                };
                let Some(gid) = self.carried_named(p, def.name) else {
                    return Err(problem(
                        format!("{ek}.grenade"),
                        format!(
                            "`{player}` does not carry `{}` (buy it or list it in the round's `weapons`)",
                            def.name
                        ),
                    ));
                };
                self.take(p, gid, None);
                if let Some(t) = self.thrown.get_mut(p) {
                    t.push(def.name);
                }
                let (pos, _, _) = self.pose(p, tick);
                let start = from.unwrap_or([pos[0], pos[1], pos[2] + THROW_HEIGHT]);
                let air = seconds_to_ticks(flight.unwrap_or(DEFAULT_FLIGHT), self.s.tick_rate);
                let dur = duration.unwrap_or(match kind {
                    GrenadeKind::Smoke => SMOKE_DURATION,
                    GrenadeKind::Molotov | GrenadeKind::Incendiary => FIRE_DURATION,
                    GrenadeKind::Decoy => DECOY_DURATION,
                    _ => 0.0,
                });
                let id = self.new_id();
                let land = clamp_tick(i64::from(tick) + air);
                self.flights.insert(
                    id,
                    Flight {
                        proj: Projectile {
                            id,
                            kind,
                            thrower: p,
                            position: start,
                            smoking: false,
                        },
                        from: start,
                        to: *to,
                        start: tick,
                        land,
                        duration: seconds_to_ticks(dur, self.s.tick_rate),
                        cause: (r, j),
                        landed: false,
                    },
                );
                self.schedule(land, Step::Detonate(id));
                self.events.push(ev(
                    "grenade_thrown",
                    vec![
                        ("userid", EventValue::Player(p)),
                        ("userid_pawn", EventValue::Pawn(p)),
                        ("weapon", EventValue::Str(def.name.to_string())),
                    ],
                ));
            }
            Action::Chat { player, text, all } => {
                let p = who("player", player)?;
                if self.players.get(p).is_some_and(|ps| !ps.st.connected) {
                    return Err(problem(
                        format!("{ek}.player"),
                        format!("`{player}` is not connected and cannot chat"),
                    ));
                }
                self.chat.push(crate::timeline::ChatLine {
                    player: p,
                    text: text.clone(),
                    all_chat: *all,
                });
            }
            Action::Disconnect { player, reason } => {
                let p = who("player", player)?;
                if self.players.get(p).is_some_and(|ps| !ps.st.connected) {
                    return Err(problem(
                        format!("{ek}.player"),
                        format!("`{player}` is not connected"),
                    ));
                }
                if self.alive(p) {
                    let (pos, yaw, pitch) = self.pose(p, tick);
                    self.drop_bomb(p, pos);
                    self.clear_inventory(p);
                    if let Some(ps) = self.players.get_mut(p) {
                        ps.fixed = (pos, yaw, pitch);
                        ps.st.alive = false;
                    }
                }
                let info = self.s.players.get(p);
                let steamid = info.map_or(0, |x| x.steamid);
                let bot = info.is_some_and(|x| x.bot);
                if let Some(ps) = self.players.get_mut(p) {
                    ps.st.connected = false;
                    ps.st.controlling_bot = None;
                    ps.survived = false;
                }
                self.events.push(ev(
                    "player_disconnect",
                    vec![
                        ("userid", EventValue::Player(p)),
                        ("reason", EventValue::Int(i64::from(reason.unwrap_or(2)))),
                        ("name", EventValue::Str(player.clone())),
                        ("networkid", EventValue::Str(network_id(steamid, bot))),
                        ("xuid", EventValue::Int(steamid as i64)),
                        ("PlayerID", EventValue::Int(p as i64)),
                    ],
                ));
            }
            Action::Connect { player, team } => {
                let p = who("player", player)?;
                if self.players.get(p).is_some_and(|ps| ps.st.connected) {
                    return Err(problem(
                        format!("{ek}.player"),
                        format!("`{player}` is already connected"),
                    ));
                }
                let clan = match team {
                    Some(Side::Spectator) => None,
                    Some(side) => Some(self.clan_on(side.team_number())),
                    None => self.players.get(p).and_then(|ps| ps.clan),
                };
                let new_team = clan.map_or(1, |c| self.side_of_clan(c));
                let old_team = self.players.get(p).map_or(0, |ps| ps.st.team);
                let info = self.s.players.get(p);
                let steamid = info.map_or(0, |x| x.steamid);
                let bot = info.is_some_and(|x| x.bot);
                if let Some(ps) = self.players.get_mut(p) {
                    ps.st.connected = true;
                    ps.st.alive = false;
                    ps.clan = clan;
                    ps.st.team = new_team;
                    ps.survived = false;
                }
                self.events.push(ev(
                    "player_connect",
                    vec![
                        ("name", EventValue::Str(player.clone())),
                        ("userid", EventValue::Player(p)),
                        ("networkid", EventValue::Str(network_id(steamid, bot))),
                        ("xuid", EventValue::Int(steamid as i64)),
                        ("address", EventValue::Str(String::new())),
                        ("bot", EventValue::Bool(bot)),
                    ],
                ));
                self.events.push(ev(
                    "player_connect_full",
                    vec![("userid", EventValue::Player(p))],
                ));
                self.events.push(ev(
                    "player_team",
                    vec![
                        ("userid", EventValue::Player(p)),
                        ("userid_pawn", EventValue::Pawn(p)),
                        ("team", EventValue::Int(i64::from(new_team))),
                        ("oldteam", EventValue::Int(i64::from(old_team))),
                        ("disconnect", EventValue::Bool(false)),
                        ("silent", EventValue::Bool(false)),
                        ("isbot", EventValue::Bool(bot)),
                    ],
                ));
            }
            Action::Takeover { player, bot } => {
                let h = who("player", player)?;
                let b = who("bot", bot)?;
                let hk = format!("{ek}.player");
                if self.players.get(h).is_some_and(|ps| !ps.st.connected) {
                    return Err(problem(hk, format!("`{player}` is not connected")));
                }
                if self.alive(h) {
                    return Err(problem(
                        hk,
                        format!("`{player}` is alive; only a dead player takes over a bot"),
                    ));
                }
                self.must_live(b, &format!("{ek}.bot"), "be taken over")?;
                let (ht, bt) = (
                    self.players.get(h).map(|x| x.st.team),
                    self.players.get(b).map(|x| x.st.team),
                );
                if ht != bt {
                    return Err(problem(
                        format!("{ek}.bot"),
                        format!("`{bot}` is not on `{player}`'s side"),
                    ));
                }
                let (pos, yaw, pitch) = self.pose(b, tick);
                let own_from = self
                    .round
                    .and_then(|r| self.keys.get(r))
                    .and_then(|k| k.get(h))
                    .and_then(|k| k.iter().find(|k| k.tick >= tick))
                    .map_or(i32::MAX, |k| k.tick);
                let Some(bs) = self.players.get(b).cloned() else {
                    return Ok(());
                };
                for id in &bs.st.weapons {
                    if let Some(it) = self.items.get_mut(id) {
                        it.owner = Some(h);
                    }
                }
                self.clear_inventory(h);
                if let Some(ps) = self.players.get_mut(h) {
                    ps.st.alive = true;
                    ps.st.health = bs.st.health;
                    ps.st.armor = bs.st.armor;
                    ps.st.helmet = bs.st.helmet;
                    ps.st.defuser = bs.st.defuser;
                    ps.st.weapons = bs.st.weapons.clone();
                    ps.st.active_weapon = bs.st.active_weapon;
                    ps.st.controlling_bot = Some(b);
                    ps.path = b;
                    ps.own_keys_from = own_from;
                    ps.fixed = (pos, yaw, pitch);
                }
                if let Some(ps) = self.players.get_mut(b) {
                    ps.st.alive = false;
                    ps.st.weapons.clear();
                    ps.st.active_weapon = None;
                    ps.fixed = (pos, yaw, pitch);
                }
                self.events.push(ev(
                    "bot_takeover",
                    vec![
                        ("userid", EventValue::Player(h)),
                        ("userid_pawn", EventValue::Pawn(b)),
                        ("botid", EventValue::Player(b)),
                        ("p", EventValue::Float(pitch)),
                        ("y", EventValue::Float(yaw)),
                        ("r", EventValue::Float(0.0)),
                    ],
                ));
            }
        }
        Ok(())
    }

    fn bomb_drop(&mut self, p: usize, pos: [f32; 3], ek: &str) -> Result<(), Problem> {
        if self.carried_named(p, "c4").is_none() {
            return Err(problem(
                format!("{ek}.player"),
                format!("`{}` does not carry the bomb", self.name(p)),
            ));
        }
        self.drop_bomb(p, pos);
        Ok(())
    }

    /// The shot of a hit with a gun, a knife or the Zeus: the attacker
    /// holds that weapon, its clip loses a round, and `weapon_fire` fires.
    fn fire(&mut self, a: Option<usize>, v: usize, weapon: &str) {
        let Some(a) = a.filter(|&a| a != v) else {
            return;
        };
        let Some(def) = item(weapon) else {
            return;
        };
        if matches!(
            def.kind,
            ItemKind::Grenade | ItemKind::C4 | ItemKind::Equipment
        ) {
            return;
        }
        let Some(id) = self.carried_named(a, weapon) else {
            return;
        };
        self.set_active(a, Some(id));
        let name = self
            .items
            .get_mut(&id)
            .map(|it| {
                if let Some(c) = &mut it.clip {
                    *c = (*c - 1).max(0);
                }
                it.weapon.clone()
            })
            .unwrap_or_else(|| def.name.to_string());
        self.events.push(ev(
            "weapon_fire",
            vec![
                ("userid", EventValue::Player(a)),
                ("userid_pawn", EventValue::Pawn(a)),
                ("weapon", EventValue::Str(format!("weapon_{name}"))),
                ("silenced", EventValue::Bool(name.ends_with("_silencer"))),
            ],
        ));
    }

    /// `player_hurt`, and the health, armor and damage counters after it.
    fn hurt(
        &mut self,
        a: Option<usize>,
        v: usize,
        weapon: &str,
        dmg_health: i32,
        dmg_armor: i32,
        group: &str,
    ) {
        let (health, armor, vteam) = match self.players.get_mut(v) {
            Some(ps) => {
                ps.st.health = (ps.st.health - dmg_health).max(0);
                ps.st.armor = (ps.st.armor - dmg_armor).max(0);
                if ps.st.armor == 0 {
                    ps.st.helmet = false;
                }
                (ps.st.health, ps.st.armor, ps.st.team)
            }
            None => (0, 0, 0),
        };
        if let Some(a) = a {
            if let Some(ps) = self.players.get_mut(a) {
                if a != v && ps.st.team != vteam {
                    ps.st.damage = ps.st.damage.saturating_add(dmg_health);
                }
            }
        }
        self.events.push(ev(
            "player_hurt",
            vec![
                ("userid", EventValue::Player(v)),
                ("userid_pawn", EventValue::Pawn(v)),
                ("attacker", opt_player(a)),
                ("attacker_pawn", opt_pawn(a)),
                ("health", EventValue::Int(i64::from(health))),
                ("armor", EventValue::Int(i64::from(armor))),
                ("weapon", EventValue::Str(weapon.to_string())),
                ("dmg_health", EventValue::Int(i64::from(dmg_health))),
                ("dmg_armor", EventValue::Int(i64::from(dmg_armor))),
                ("hitgroup", EventValue::Int(hitgroup_number(group))),
            ],
        ));
    }

    /// A death: the player stays where they fell, drops their best gun
    /// and the bomb; everything else they carried is gone.
    fn die(&mut self, v: usize, tick: i32) {
        let (pos, yaw, pitch) = self.pose(v, tick);
        self.drop_bomb(v, pos);
        let best = self
            .carried(v)
            .filter_map(|it| Some((it.id, Self::kind_of(it)?)))
            .filter(|(_, k)| k.is_primary() || *k == ItemKind::Pistol)
            .min_by_key(|(_, k)| if k.is_primary() { 0 } else { 1 })
            .map(|(id, _)| id);
        if let Some(id) = best {
            self.take(v, id, Some(pos));
        }
        self.clear_inventory(v);
        if let Some(ps) = self.players.get_mut(v) {
            ps.st.alive = false;
            ps.st.health = 0;
            ps.fixed = (pos, yaw, pitch);
            ps.blind_until = 0;
        }
    }

    /// Gives a bought or picked-up item: armor and the kit set the pawn's
    /// values; a gun takes its slot (the one held there drops).
    fn receive(&mut self, p: usize, def: &'static ItemDef, tick: i32) -> Option<u32> {
        match def.name {
            "kevlar" => {
                if let Some(ps) = self.players.get_mut(p) {
                    ps.st.armor = 100;
                }
                None
            }
            "assaultsuit" => {
                if let Some(ps) = self.players.get_mut(p) {
                    ps.st.armor = 100;
                    ps.st.helmet = true;
                }
                None
            }
            "defuser" => {
                if let Some(ps) = self.players.get_mut(p) {
                    ps.st.defuser = true;
                }
                None
            }
            _ => {
                self.make_room(p, def, tick);
                let id = self.give(p, def);
                if def.kind.is_primary() || def.kind == ItemKind::Pistol {
                    self.set_active(p, Some(id));
                }
                self.pick_active(p);
                Some(id)
            }
        }
    }

    /// Drops the gun held in the slot `def` goes to.
    fn make_room(&mut self, p: usize, def: &ItemDef, tick: i32) {
        let same_slot = |k: ItemKind| {
            (def.kind.is_primary() && k.is_primary())
                || (def.kind == ItemKind::Pistol && k == ItemKind::Pistol)
        };
        let old = self
            .carried(p)
            .find(|it| Self::kind_of(it).is_some_and(same_slot))
            .map(|it| it.id);
        if let Some(id) = old {
            let (pos, _, _) = self.pose(p, tick);
            self.take(p, id, Some(pos));
        }
    }

    fn detonate(&mut self, tick: i32, id: u32) -> Result<(), Problem> {
        let Some(f) = self.flights.get(&id).cloned() else {
            return Ok(());
        };
        let p = f.proj.thrower;
        match f.proj.kind {
            GrenadeKind::HighExplosive => {
                self.flights.remove(&id);
                self.events
                    .push(ev("hegrenade_detonate", grenade_keys(p, id, f.to)));
            }
            GrenadeKind::Flashbang => {
                self.flights.remove(&id);
                self.events
                    .push(ev("flashbang_detonate", grenade_keys(p, id, f.to)));
                let (r, j) = f.cause;
                let blinds = match self
                    .s
                    .rounds
                    .get(r)
                    .and_then(|round| round.events.get(j))
                    .map(|e| &e.action)
                {
                    Some(Action::Throw { blinds, .. }) => blinds.clone(),
                    _ => Vec::new(),
                };
                for (k, b) in blinds.iter().enumerate() {
                    let key = format!("rounds[{r}].events[{j}].blinds[{k}].player");
                    let v = player_index(self.s, &key, &b.player)?;
                    if !self.alive(v) {
                        return Err(problem(
                            key,
                            format!(
                                "`{}` is dead when the flashbang detonates and cannot be blinded",
                                b.player
                            ),
                        ));
                    }
                    let until = clamp_tick(
                        i64::from(tick) + seconds_to_ticks(f64::from(b.duration), self.s.tick_rate),
                    );
                    if let Some(ps) = self.players.get_mut(v) {
                        ps.blind_until = until;
                        ps.blind_duration = b.duration;
                    }
                    self.events.push(ev(
                        "player_blind",
                        vec![
                            ("userid", EventValue::Player(v)),
                            ("attacker", EventValue::Player(p)),
                            ("entityid", EventValue::Entity(id)),
                            ("blind_duration", EventValue::Float(b.duration)),
                        ],
                    ));
                }
            }
            GrenadeKind::Smoke => {
                if let Some(fl) = self.flights.get_mut(&id) {
                    fl.landed = true;
                    fl.proj.smoking = true;
                }
                self.events
                    .push(ev("smokegrenade_detonate", grenade_keys(p, id, f.to)));
                self.schedule(clamp_tick(i64::from(tick) + f.duration), Step::SmokeEnd(id));
            }
            GrenadeKind::Decoy => {
                if let Some(fl) = self.flights.get_mut(&id) {
                    fl.landed = true;
                }
                let mut keys = grenade_keys(p, id, f.to);
                keys.retain(|(k, _)| *k != "userid");
                self.events.push(ev("decoy_started", keys));
                self.schedule(clamp_tick(i64::from(tick) + f.duration), Step::DecoyEnd(id));
            }
            GrenadeKind::Molotov | GrenadeKind::Incendiary => {
                self.flights.remove(&id);
                self.events.push(ev(
                    "molotov_detonate",
                    vec![
                        ("userid", EventValue::Player(p)),
                        ("userid_pawn", EventValue::Pawn(p)),
                        ("x", EventValue::Float(f.to[0])),
                        ("y", EventValue::Float(f.to[1])),
                        ("z", EventValue::Float(f.to[2])),
                    ],
                ));
                let fire = self.new_id();
                self.infernos.insert(
                    fire,
                    Inferno {
                        id: fire,
                        thrower: p,
                        position: f.to,
                    },
                );
                self.events
                    .push(ev("inferno_startburn", fire_keys(fire, f.to)));
                self.schedule(
                    clamp_tick(i64::from(tick) + f.duration),
                    Step::FireEnd(fire),
                );
            }
        }
        Ok(())
    }
}

fn grenade_keys(p: usize, id: u32, at: [f32; 3]) -> Vec<(&'static str, EventValue)> {
    vec![
        ("userid", EventValue::Player(p)),
        ("userid_pawn", EventValue::Pawn(p)),
        ("entityid", EventValue::Entity(id)),
        ("x", EventValue::Float(at[0])),
        ("y", EventValue::Float(at[1])),
        ("z", EventValue::Float(at[2])),
    ]
}

fn fire_keys(id: u32, at: [f32; 3]) -> Vec<(&'static str, EventValue)> {
    vec![
        ("entityid", EventValue::Entity(id)),
        ("x", EventValue::Float(at[0])),
        ("y", EventValue::Float(at[1])),
        ("z", EventValue::Float(at[2])),
    ]
}

fn hitgroup_number(name: &str) -> i64 {
    HITGROUPS.iter().find(|h| h.0 == name).map_or(0, |h| h.1)
}

/// `networkid` of the connect events: `BOT` for a bot, else the steam id
/// in the `[U:1:account]` form.
fn network_id(steamid: u64, bot: bool) -> String {
    if bot {
        "BOT".to_string()
    } else {
        format!("[U:1:{}]", steamid & 0xFFFF_FFFF)
    }
}

/// The keys of one player in one round, with absolute ticks and every
/// value filled from the key before.
fn resolve_keys(s: &Scenario, round: &Round, start: i32) -> Vec<Vec<AbsKey>> {
    let mut out = vec![Vec::new(); s.players.len()];
    for (name, rp) in &round.players {
        let Some(p) = s.players.iter().position(|x| &x.name == name) else {
            continue;
        };
        let mut prev = AbsKey {
            tick: start,
            pos: [0.0; 3],
            yaw: 0.0,
            pitch: 0.0,
        };
        let mut keys = Vec::with_capacity(rp.keys.len());
        for k in &rp.keys {
            let at = offset_ticks(k.t, k.tick, s.tick_rate, "").unwrap_or(0);
            let key = AbsKey {
                tick: clamp_tick(i64::from(start) + at),
                pos: k.pos.unwrap_or(prev.pos),
                yaw: k.yaw.unwrap_or(prev.yaw),
                pitch: k.pitch.unwrap_or(prev.pitch),
            };
            keys.push(key);
            prev = key;
        }
        if let Some(slot) = out.get_mut(p) {
            *slot = keys;
        }
    }
    out
}

/// Position and view at a tick: the keys around it, linearly (yaw the
/// short way round).
fn interpolate(keys: &[AbsKey], tick: i32) -> ([f32; 3], f32, f32) {
    let i = keys.partition_point(|k| k.tick <= tick);
    let (a, b) = match (i.checked_sub(1).and_then(|j| keys.get(j)), keys.get(i)) {
        (Some(a), Some(b)) => (a, b),
        (Some(a), None) => return (a.pos, a.yaw, a.pitch),
        (None, Some(b)) => return (b.pos, b.yaw, b.pitch),
        (None, None) => return ([0.0; 3], 0.0, 0.0),
    };
    let span = (b.tick - a.tick).max(1) as f32;
    let f = ((tick - a.tick) as f32 / span).clamp(0.0, 1.0);
    (
        [
            lerp(a.pos[0], b.pos[0], f),
            lerp(a.pos[1], b.pos[1], f),
            lerp(a.pos[2], b.pos[2], f),
        ],
        lerp_angle(a.yaw, b.yaw, f),
        lerp(a.pitch, b.pitch, f),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{load, ScenarioFormat};
    use crate::timeline::Timeline;

    const SMALL: &str = r#"
map = "de_dust2"
[rules]
max_rounds = 4
[teams]
t = "Alpha"
ct = "Bravo"

[[players]]
name = "alice"
steamid = 76561198000000001
team = "T"
[[players]]
name = "bob"
team = "T"
bot = true
[[players]]
name = "carol"
steamid = 76561198000000003
team = "CT"
[[players]]
name = "dave"
team = "CT"
bot = true

[[rounds]]
winner = "T"
end = 30
[rounds.players.alice]
keys = [
  { t = 0, pos = [0.0, 0.0, 0.0], yaw = 350 },
  { t = 20, pos = [100.0, 0.0, 0.0], yaw = 10 },
]
[[rounds.events]]
t = 16
type = "purchase"
player = "alice"
item = "kevlar"
[[rounds.events]]
t = 17
type = "damage"
attacker = "carol"
victim = "alice"
weapon = "usp_silencer"
dmg_health = 30
dmg_armor = 5
[[rounds.events]]
t = 20
type = "kill"
attacker = "alice"
victim = "carol"
weapon = "glock"
headshot = true
[[rounds.events]]
t = 21
type = "kill"
attacker = "bob"
victim = "dave"
weapon = "glock"
[[rounds.events]]
t = 22
type = "chat"
player = "alice"
text = "gg"

[[rounds]]
winner = "T"
end = 20
bomb = ""
[[rounds.events]]
t = 16
type = "kill"
attacker = "alice"
victim = "carol"
weapon = "glock"
[[rounds.events]]
t = 17
type = "kill"
attacker = "alice"
victim = "dave"
weapon = "glock"

[[rounds]]
winner = "CT"
end = 20
"#;

    fn frame_at(frames: &[Frame], tick: i32) -> Result<&Frame, String> {
        frames
            .iter()
            .find(|f| f.tick == tick)
            .ok_or_else(|| format!("no frame at tick {tick}"))
    }

    #[test]
    fn derived_state_of_a_small_match() -> Result<(), Box<dyn std::error::Error>> {
        let s = load(SMALL, ScenarioFormat::Toml)?;
        let rounds = s.schedule();
        assert_eq!(rounds.len(), 3);
        assert_eq!(rounds[0].start, 1);
        assert_eq!(rounds[0].freeze_end, 1 + 15 * 64);
        assert_eq!(rounds[0].end, 1 + 30 * 64);
        assert_eq!(rounds[0].official_end, Some(1 + 37 * 64));
        assert_eq!(rounds[1].start, 1 + 37 * 64);
        assert_eq!(rounds[2].official_end, None);
        let tl = s.timeline()?;
        let info = tl.info().clone();
        assert_eq!(info.last_tick, 1 + (37 + 27 + 27) * 64);
        let frames: Vec<Frame> = tl.frames().collect();
        assert_eq!(frames.len() as i32, info.last_tick - info.first_tick + 1);
        let r0 = rounds[0].start;
        let at = |t: i32| r0 + t * 64;
        // Freeze time, spawn loadouts, the bomb.
        let f = frame_at(&frames, r0)?;
        assert!(f.rules.freeze_period);
        assert!(f.events.iter().any(|e| e.name == "round_start"));
        let alice = &f.players[0];
        assert!(alice.alive && alice.health == 100 && alice.money == 800);
        let names: Vec<&str> = alice
            .weapons
            .iter()
            .filter_map(|id| f.items.iter().find(|i| i.id == *id))
            .map(|i| i.weapon.as_str())
            .collect();
        assert_eq!(names, ["knife_t", "glock", "c4"]);
        // The yaw goes from 350 through 0 to 10: half way, 0.
        let f = frame_at(&frames, at(10))?;
        assert!(f.players[0].yaw.abs() < 1e-3, "{}", f.players[0].yaw);
        assert!((f.players[0].position[0] - 50.0).abs() < 1e-3);
        assert!(!f.rules.freeze_period || at(10) < rounds[0].freeze_end);
        // The purchase: armor, and the price taken.
        let f = frame_at(&frames, at(16))?;
        assert_eq!((f.players[0].armor, f.players[0].money), (100, 150));
        assert!(f.events.iter().any(|e| e.name == "item_purchase"));
        // The hit.
        let f = frame_at(&frames, at(17))?;
        assert_eq!((f.players[0].health, f.players[0].armor), (70, 95));
        assert_eq!(f.players[2].damage, 30);
        // The kill: dead, health 0, counted, kill reward.
        let f = frame_at(&frames, at(20))?;
        let names: Vec<&str> = f.events.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["weapon_fire", "player_hurt", "player_death"]);
        // The shot: alice holds her glock, one round fewer in its clip.
        let held = f.players[0]
            .active_weapon
            .and_then(|id| f.items.iter().find(|i| i.id == id))
            .ok_or("alice holds nothing")?;
        assert_eq!((held.weapon.as_str(), held.clip), ("glock", Some(19)));
        assert!(!f.players[2].alive && f.players[2].health == 0);
        assert_eq!((f.players[0].kills, f.players[2].deaths), (1, 1));
        assert_eq!(f.players[0].money, 450);
        // The dead CT's pistol lies on the ground.
        assert!(f
            .items
            .iter()
            .any(|i| i.weapon == "usp_silencer" && i.owner.is_none()));
        let f = frame_at(&frames, at(22))?;
        assert_eq!(f.chat.len(), 1);
        // Round end: score, rewards.
        let f = frame_at(&frames, rounds[0].end)?;
        assert_eq!(f.teams[0].score, 1);
        assert_eq!(f.teams[0].score_first_half, 1);
        assert_eq!(f.rules.round_win_status, 2);
        assert_eq!(f.rules.total_rounds_played, 1);
        assert_eq!(f.players[0].money, 450 + 3250);
        assert_eq!(f.players[2].money, 800 + 1400);
        // Round 2: the survivor keeps armor and weapons; the dead get a new loadout.
        let f = frame_at(&frames, rounds[1].start)?;
        assert_eq!(f.players[0].armor, 95);
        assert!(f.players[2].alive && f.players[2].health == 100);
        assert_eq!(f.players[0].team, 2);
        // After round 2: half time, then the switch.
        let f = frame_at(&frames, rounds[1].end)?;
        assert_eq!(f.rules.game_phase, 4);
        assert!(f.events.iter().any(|e| e.name == "announce_phase_end"));
        let f = frame_at(&frames, rounds[2].start)?;
        assert_eq!(f.players[0].team, 3);
        assert_eq!(f.players[2].team, 2);
        assert_eq!(f.teams[1].clan_name, "Alpha");
        assert_eq!(f.teams[1].score, 2);
        assert_eq!(f.teams[0].clan_name, "Bravo");
        assert_eq!(f.rules.game_phase, 3);
        assert_eq!(f.players[0].money, 800);
        // The last round: won by the CTs (Alpha now), the match ends.
        let f = frame_at(&frames, rounds[2].end)?;
        assert_eq!(f.teams[1].score, 3);
        assert_eq!(f.teams[1].score_second_half, 1);
        assert_eq!(f.rules.game_phase, 5);
        assert!(f.events.iter().any(|e| e.name == "cs_win_panel_match"));
        Ok(())
    }

    #[test]
    fn sides_and_money_through_overtime() -> Result<(), Box<dyn std::error::Error>> {
        let mut text = String::from(
            "map = \"de_nuke\"\n[rules]\nmax_rounds = 2\novertime_max_rounds = 2\n\
             [[players]]\nname = \"a\"\nsteamid = 1\nteam = \"T\"\n\
             [[players]]\nname = \"b\"\nsteamid = 2\nteam = \"CT\"\n",
        );
        for w in ["T", "T", "CT", "T", "CT"] {
            text.push_str(&format!(
                "[[rounds]]\nwinner = \"{w}\"\nend = 20\nbomb = \"\"\n"
            ));
        }
        let s = load(&text, ScenarioFormat::Toml)?;
        let rounds = s.schedule();
        let mut at = BTreeMap::new();
        for f in s.timeline()?.frames() {
            at.insert(f.tick, f);
        }
        let get = |t: i32| at.get(&t).ok_or(format!("no frame at {t}"));
        // Regulation: a is T, then CT; after 1-1 the first overtime half
        // keeps the sides, the second switches them, the next overtime
        // keeps them again.
        let teams: Vec<u8> = rounds
            .iter()
            .map(|r| get(r.start).map(|f| f.players[0].team))
            .collect::<Result<_, _>>()?;
        assert_eq!(teams, [2, 3, 3, 2, 2]);
        // Round 1: a (T) wins; b gets the loss bonus. Round 2 starts a half: 800 again.
        assert_eq!(get(rounds[0].end)?.players[1].money, 800 + 1400);
        assert_eq!(get(rounds[1].start)?.players[0].money, 800);
        // Round 2: b (now T) wins, a (CT) loses: its first loss of the half.
        assert_eq!(get(rounds[1].end)?.players[0].money, 800 + 1400);
        // Overtime halves start with the overtime money.
        assert_eq!(get(rounds[2].start)?.players[0].money, 12500);
        assert_eq!(get(rounds[3].start)?.players[1].money, 12500);
        // Round 3: CT (a) wins in overtime; a's team is team 3 then.
        let f = get(rounds[2].end)?;
        assert_eq!((f.teams[1].score, f.teams[1].score_overtime), (2, 1));
        assert_eq!(f.teams[1].clan_name, "Team A");
        // The end: a won rounds 1, 3 and 4 (as T) ... and 5 went to the CTs (b).
        let f = get(rounds[4].end)?;
        assert_eq!(f.rules.total_rounds_played, 5);
        let a_team = if f.teams[0].clan_name == "Team A" {
            0
        } else {
            1
        };
        assert_eq!(f.teams[a_team].score, 3);
        assert_eq!(f.teams[1 - a_team].score, 2);
        assert_eq!(f.rules.game_phase, 5);
        Ok(())
    }

    #[test]
    fn the_documented_example_plays_as_its_expected_rows_say(
    ) -> Result<(), Box<dyn std::error::Error>> {
        let doc = include_str!("../../../docs/scenarios.md");
        let start = doc.find("```toml\n").ok_or("no TOML example")? + "```toml\n".len();
        let len = doc
            .get(start..)
            .and_then(|d| d.find("\n```"))
            .ok_or("unclosed")?;
        let text = doc.get(start..start + len).ok_or("bad example")?;
        let s = load(text, ScenarioFormat::Toml)?;
        let kills = s.expected().get("kills").ok_or("no expected kills")?;
        let want = kills
            .first()
            .and_then(|r| r.get("tick"))
            .and_then(|t| t.as_i64())
            .ok_or("no tick")?;
        let mut deaths = Vec::new();
        let mut hurt = None;
        let mut chat = 0;
        let mut last = None;
        for f in s.timeline()?.frames() {
            for e in &f.events {
                if e.name == "player_death" {
                    deaths.push(i64::from(f.tick));
                }
            }
            if f.events.iter().any(|e| e.name == "player_hurt") && hurt.is_none() {
                hurt = Some((f.players[0].health, f.players[0].armor, f.players[0].money));
            }
            chat += f.chat.len();
            last = Some(f);
        }
        assert_eq!(deaths, [want]);
        // alice: 100 health, kevlar bought (800 - 650), then 34 and 5 taken.
        assert_eq!(hurt, Some((66, 95, 150)));
        assert_eq!(chat, 1);
        let last = last.ok_or("no frame")?;
        assert_eq!(last.teams[0].score, 1);
        Ok(())
    }

    #[test]
    fn purchases_can_be_written_as_state() -> Result<(), Box<dyn std::error::Error>> {
        let lists = |text: &str| -> Result<_, Box<dyn std::error::Error>> {
            let s = load(text, ScenarioFormat::Toml)?;
            let mut events = 0;
            let mut lists = Vec::new();
            for f in s.timeline()?.frames() {
                events += f
                    .events
                    .iter()
                    .filter(|e| e.name == "item_purchase")
                    .count();
                let list = f.players.first().and_then(|p| p.purchases.clone());
                if lists.last() != Some(&list) {
                    lists.push(list);
                }
            }
            Ok((events, lists))
        };
        // As events: no list.
        assert_eq!(lists(SMALL)?, (1, vec![None]));
        // As state: alice's kevlar, sold back never, gone at the next round.
        let text = SMALL.replace(
            "map = \"de_dust2\"",
            "map = \"de_dust2\"\npurchase_events = false",
        );
        let kevlar = Purchase {
            def_index: 50,
            cost: 650,
            item: None,
        };
        assert_eq!(
            lists(&text)?,
            (0, vec![Some(vec![]), Some(vec![kevlar]), Some(vec![])])
        );
        Ok(())
    }

    #[test]
    fn round_events_can_be_left_out() -> Result<(), Box<dyn std::error::Error>> {
        let text = SMALL.replace(
            "map = \"de_dust2\"",
            "map = \"de_dust2\"\nround_events = false",
        );
        let s = load(&text, ScenarioFormat::Toml)?;
        let mut names = std::collections::BTreeSet::new();
        let mut last = Rules::default();
        for f in s.timeline()?.frames() {
            names.extend(f.events.iter().map(|e| e.name.clone()));
            last = f.rules;
        }
        for gone in [
            "round_start",
            "round_end",
            "round_officially_ended",
            "cs_win_panel_match",
        ] {
            assert!(!names.contains(gone), "{gone}");
        }
        assert!(names.contains("round_freeze_end") && names.contains("player_death"));
        assert_eq!(
            (
                last.round_start_count,
                last.round_end_count,
                last.match_end_count
            ),
            (3, 3, 1)
        );
        Ok(())
    }

    #[test]
    fn frames_with_an_interval_carry_every_event() -> Result<(), Box<dyn std::error::Error>> {
        let text = SMALL.replace(
            "map = \"de_dust2\"",
            "map = \"de_dust2\"\nframe_interval = 7",
        );
        let s = load(&text, ScenarioFormat::Toml)?;
        let tl = s.timeline()?;
        let mut ticks = Vec::new();
        let mut events = 0usize;
        for f in tl.frames() {
            ticks.push(f.tick);
            events += f.events.len();
        }
        assert!(ticks.windows(2).all(|w| w[1] - w[0] == 7));
        assert_eq!(ticks.last().copied(), Some(tl.info().last_tick));
        let dense: usize = load(SMALL, ScenarioFormat::Toml)?
            .timeline()?
            .frames()
            .map(|f| f.events.len())
            .sum();
        assert_eq!(events, dense);
        Ok(())
    }

    #[test]
    fn yaw_goes_the_short_way() {
        assert!((lerp_angle(350.0, 10.0, 0.5) - 0.0).abs() < 1e-4);
        assert!((lerp_angle(170.0, -170.0, 0.5) - 180.0).abs() < 1e-4);
        assert!((lerp_angle(10.0, 50.0, 0.25) - 20.0).abs() < 1e-4);
        assert!((lerp_angle(-90.0, 90.0, 0.0) + 90.0).abs() < 1e-4);
    }

    #[test]
    fn keys_interpolate_and_hold() {
        let k = |tick, x, yaw| AbsKey {
            tick,
            pos: [x, 0.0, 0.0],
            yaw,
            pitch: 0.0,
        };
        let keys = [k(10, 0.0, 0.0), k(20, 100.0, 90.0)];
        assert_eq!(interpolate(&keys, 0).0[0], 0.0);
        assert_eq!(interpolate(&keys, 15).0[0], 50.0);
        assert!((interpolate(&keys, 15).1 - 45.0).abs() < 1e-4);
        assert_eq!(interpolate(&keys, 99).0[0], 100.0);
    }
}
