//! Match tables from game events: rounds, kills, damages, purchases.
//!
//! Event and key names are those of the CS2 descriptors (`round_start`,
//! `round_freeze_end`, `round_end`, `round_officially_ended`,
//! `player_death`, `player_hurt`, `item_purchase`).

use gamewire_source2::gameevent::{EventValue, GameEvent};
use gamewire_source2::DemoState;

use crate::event_players::{event_player, identity, PlayerEnts};
use crate::item_names::weapon_name;
use crate::prop_paths::PropCache;
use crate::reference;
use crate::table::{Cell, Table};

/// demoparser2's hit group names (`hitgroup` key of `player_hurt` and
/// `player_death`).
pub fn hitgroup_name(v: i64) -> Option<&'static str> {
    Some(match v {
        0 => "generic",
        1 => "head",
        2 => "chest",
        3 => "stomach",
        4 => "left_arm",
        5 => "right_arm",
        6 => "left_leg",
        7 => "right_leg",
        8 => "neck",
        10 => "gear",
        _ => return None,
    })
}

/// CS2 round end reasons (`round_end.reason`, `CSRoundEndReason`), named
/// as awpy names them.
pub fn reason_name(v: i64) -> Option<&'static str> {
    Some(match v {
        1 => "bomb_exploded",
        2 => "vip_escaped",
        3 => "vip_killed",
        4 => "t_escaped",
        5 => "ct_stopped_escape",
        6 => "t_stopped",
        7 => "bomb_defused",
        8 => "t_killed",
        9 => "ct_killed",
        10 => "draw",
        11 => "hostages_rescued",
        12 => "target_saved",
        13 => "hostages_not_rescued",
        14 => "t_not_escaped",
        15 => "vip_not_escaped",
        16 => "game_start",
        17 => "t_surrender",
        18 => "ct_surrender",
        19 => "t_planted",
        20 => "ct_reached_hostage",
        _ => return None,
    })
}

/// Team number → side (`T` for 2, `CT` for 3).
pub fn side_name(team: i64) -> Option<&'static str> {
    match team {
        2 => Some("T"),
        3 => Some("CT"),
        _ => None,
    }
}

pub(crate) fn int(ev: &GameEvent, key: &str) -> Cell {
    ev.get(key)
        .and_then(EventValue::as_i64)
        .map(Cell::Int)
        .unwrap_or(Cell::Null)
}

pub(crate) fn boolean(ev: &GameEvent, key: &str) -> Cell {
    ev.get(key)
        .and_then(EventValue::as_i64)
        .map(|v| Cell::Bool(v != 0))
        .unwrap_or(Cell::Null)
}

pub(crate) fn float(ev: &GameEvent, key: &str) -> Cell {
    match ev.get(key) {
        Some(EventValue::Float(f)) => Cell::Float(*f),
        Some(other) => other
            .as_i64()
            .map(|v| Cell::Float(v as f32))
            .unwrap_or(Cell::Null),
        None => Cell::Null,
    }
}

fn opt_str(s: Option<&str>) -> Cell {
    s.map(|s| Cell::Str(s.to_string())).unwrap_or(Cell::Null)
}

/// Name, steam id, slot and team of the player an event key names.
fn who(state: &DemoState, paths: &mut PropCache, ev: &GameEvent, key: &str) -> [Cell; 4] {
    who_and_pawn(state, paths, ev, key).0
}

/// The player columns of a resolved player: name, steam id (0 for bots),
/// slot and team (the controller's `m_iTeamNum`); all null when the player
/// is not resolved (no controller, and a slot nobody holds).
pub(crate) fn player_cells(
    state: &DemoState,
    paths: &mut PropCache,
    p: &PlayerEnts<'_>,
) -> [Cell; 4] {
    if p.controller.is_none() && p.slot.is_none() {
        return [Cell::Null, Cell::Null, Cell::Null, Cell::Null];
    }
    let (name, steamid) = identity(state, paths, p);
    if p.controller.is_none() && name.is_none() && steamid.is_none() {
        return [Cell::Null, Cell::Null, Cell::Null, Cell::Null];
    }
    let team = p
        .controller
        .and_then(|c| paths.value(state, c, "m_iTeamNum"))
        .and_then(|v| v.as_i64());
    [
        name.map(Cell::Str).unwrap_or(Cell::Null),
        steamid.map(Cell::UInt).unwrap_or(Cell::Null),
        p.slot
            .and_then(|s| i64::try_from(s).ok())
            .map(Cell::Int)
            .unwrap_or(Cell::Null),
        team.map(Cell::Int).unwrap_or(Cell::Null),
    ]
}

/// [`who`], and the player's pawn.
pub(crate) fn who_and_pawn<'s>(
    state: &'s DemoState,
    paths: &mut PropCache,
    ev: &GameEvent,
    key: &str,
) -> ([Cell; 4], Option<&'s gamewire_source2::Entity>) {
    let p: PlayerEnts<'s> = event_player(state, paths, ev, key).unwrap_or_default();
    (player_cells(state, paths, &p), p.pawn)
}

/// The `weapon` (short name, [`weapon_name`]) and `weapon_class` (as
/// sent) cells of an event's `weapon` key.
pub(crate) fn weapon_cells(ev: &GameEvent) -> [Cell; 2] {
    match ev.get("weapon") {
        Some(EventValue::String(s)) => {
            [Cell::Str(weapon_name(s).to_string()), Cell::Str(s.clone())]
        }
        _ => [Cell::Null, Cell::Null],
    }
}

#[derive(Debug, Default, Clone)]
struct Round {
    start: Option<i32>,
    freeze_end: Option<i32>,
    end: Option<i32>,
    official_end: Option<i32>,
    winner: Option<i64>,
    reason: Option<i64>,
    message: Option<String>,
}

/// Builds the match tables from events, in one pass.
#[derive(Debug)]
pub struct MatchTables {
    /// `rounds`, when asked for.
    pub rounds: Option<Table>,
    /// `kills`, when asked for.
    pub kills: Option<Table>,
    /// `damages`, when asked for.
    pub damages: Option<Table>,
    /// `purchases`, when asked for.
    pub purchases: Option<Table>,
    open: Option<Round>,
    done: Vec<Round>,
    paths: PropCache,
}

impl MatchTables {
    /// Collects the tables whose flag is set.
    pub fn new(rounds: bool, kills: bool, damages: bool, purchases: bool) -> Self {
        MatchTables {
            rounds: rounds.then(|| reference::ROUNDS.empty_table()),
            kills: kills.then(|| reference::KILLS.empty_table()),
            damages: damages.then(|| reference::DAMAGES.empty_table()),
            purchases: purchases.then(|| reference::PURCHASES.empty_table()),
            open: None,
            done: Vec::new(),
            paths: PropCache::default(),
        }
    }

    /// True when any table is collected.
    pub fn any(&self) -> bool {
        self.rounds.is_some()
            || self.kills.is_some()
            || self.damages.is_some()
            || self.purchases.is_some()
    }

    /// Takes one game event.
    pub fn on_event(&mut self, state: &DemoState, ev: &GameEvent) {
        let tick = Cell::Int(i64::from(ev.tick));
        match ev.name.as_str() {
            "round_start" | "round_freeze_end" | "round_end" | "round_officially_ended"
                if self.rounds.is_some() =>
            {
                self.on_round_event(ev)
            }
            "player_death" => {
                if self.kills.is_none() {
                    return;
                }
                let attacker = who(state, &mut self.paths, ev, "attacker");
                let victim = who(state, &mut self.paths, ev, "userid");
                let assister = who(state, &mut self.paths, ev, "assister");
                let pen = int(ev, "penetrated");
                let wallbang = match pen {
                    Cell::Int(n) => Cell::Bool(n > 0),
                    _ => Cell::Null,
                };
                let hit = ev
                    .get("hitgroup")
                    .and_then(EventValue::as_i64)
                    .map(|h| opt_str(hitgroup_name(h)))
                    .unwrap_or(Cell::Null);
                let mut row = vec![tick];
                row.extend(attacker);
                row.extend(victim);
                row.extend(assister);
                row.extend(weapon_cells(ev));
                row.extend([
                    boolean(ev, "headshot"),
                    pen,
                    wallbang,
                    boolean(ev, "assistedflash"),
                    boolean(ev, "noscope"),
                    boolean(ev, "thrusmoke"),
                    boolean(ev, "attackerblind"),
                    boolean(ev, "attackerinair"),
                    float(ev, "distance"),
                    int(ev, "dmg_health"),
                    int(ev, "dmg_armor"),
                    hit,
                ]);
                if let Some(t) = &mut self.kills {
                    t.push_row(&row);
                }
            }
            "player_hurt" => {
                if self.damages.is_none() {
                    return;
                }
                let attacker = who(state, &mut self.paths, ev, "attacker");
                let victim = who(state, &mut self.paths, ev, "userid");
                let hit = ev
                    .get("hitgroup")
                    .and_then(EventValue::as_i64)
                    .map(|h| opt_str(hitgroup_name(h)))
                    .unwrap_or(Cell::Null);
                let mut row = vec![tick];
                row.extend(attacker);
                row.extend(victim);
                row.extend(weapon_cells(ev));
                row.extend([
                    int(ev, "dmg_health"),
                    int(ev, "dmg_armor"),
                    int(ev, "health"),
                    int(ev, "armor"),
                    hit,
                ]);
                if let Some(t) = &mut self.damages {
                    t.push_row(&row);
                }
            }
            "item_purchase" => {
                if self.purchases.is_none() {
                    return;
                }
                let [n, sid, slot, team_now] = who(state, &mut self.paths, ev, "userid");
                let team = match int(ev, "team") {
                    Cell::Null => team_now,
                    t => t,
                };
                let mut row = vec![tick, n, sid, slot, team];
                row.extend(weapon_cells(ev));
                row.push(int(ev, "loadout"));
                if let Some(t) = &mut self.purchases {
                    t.push_row(&row);
                }
            }
            _ => {}
        }
    }

    fn on_round_event(&mut self, ev: &GameEvent) {
        let tick = Some(ev.tick);
        match ev.name.as_str() {
            "round_start" => {
                if let Some(r) = self.open.take() {
                    self.done.push(r);
                }
                self.open = Some(Round {
                    start: tick,
                    ..Round::default()
                });
            }
            "round_freeze_end" => {
                let r = self.open.get_or_insert_with(Round::default);
                r.freeze_end = tick;
            }
            "round_end" => {
                let r = self.open.get_or_insert_with(Round::default);
                r.end = tick;
                r.winner = ev.get("winner").and_then(EventValue::as_i64);
                r.reason = ev.get("reason").and_then(EventValue::as_i64);
                r.message = match ev.get("message") {
                    Some(EventValue::String(s)) => Some(s.clone()),
                    _ => None,
                };
            }
            _ => {
                // round_officially_ended closes the round.
                let mut r = self.open.take().unwrap_or_default();
                r.official_end = tick;
                self.done.push(r);
            }
        }
    }

    /// The finished tables, in the order rounds, kills, damages, purchases.
    pub fn finish(mut self) -> Vec<Table> {
        if let Some(r) = self.open.take() {
            self.done.push(r);
        }
        if let Some(t) = &mut self.rounds {
            let num = |v: Option<i32>| v.map(|x| Cell::Int(i64::from(x))).unwrap_or(Cell::Null);
            for (i, r) in self.done.iter().enumerate() {
                t.push_row(&[
                    Cell::Int(i as i64 + 1),
                    num(r.start),
                    num(r.freeze_end),
                    num(r.end),
                    num(r.official_end),
                    r.winner.map(Cell::Int).unwrap_or(Cell::Null),
                    opt_str(r.winner.and_then(side_name)),
                    r.reason.map(Cell::Int).unwrap_or(Cell::Null),
                    opt_str(r.reason.and_then(reason_name)),
                    r.message.clone().map(Cell::Str).unwrap_or(Cell::Null),
                ]);
            }
        }
        [self.rounds, self.kills, self.damages, self.purchases]
            .into_iter()
            .flatten()
            .collect()
    }
}
