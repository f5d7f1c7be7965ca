//! Match tables from game events: rounds, kills, damages, purchases
//! (rounds and purchases from the entity state when the events are not in
//! the demo).
//!
//! Event and key names are those of the CS2 descriptors (`round_start`,
//! `round_freeze_end`, `round_end`, `round_officially_ended`,
//! `player_death`, `player_hurt`, `item_purchase`).
//!
//! ## Rounds without round events
//!
//! CS2 builds may leave `round_start`, `round_end` and
//! `round_officially_ended` out of the demo (each of them declared in the
//! descriptor list, none ever sent); the round is then only in the game
//! rules (`CCSGameRulesProxy`, fields under `m_pGameRules.`), whose round
//! counters step once per round (demofile-net and demoparser2 derive their
//! round events the same way):
//!
//! | change seen at the end of a tick | what it means |
//! |---|---|
//! | `m_nRoundStartCount` (uint8) steps | a round starts at that tick; the round before it is officially over (`round_officially_ended`) |
//! | `m_bFreezePeriod` true → false | the freeze time ends (`round_freeze_end`) |
//! | `m_nRoundEndCount` (uint8) steps | the round ends (`round_end`) |
//!
//! At a round end the winner is `m_iRoundEndWinnerTeam` and the reason
//! `m_eRoundEndReason` (the event's `winner` and `reason`, same numbers)
//! where the build has them, else `m_iRoundWinStatus` and
//! `m_eRoundWinReason`; the message is `m_sRoundEndMessage` where the
//! build sends it, else the notice CS2 shows for the reason
//! ([`reason_message`]). A counter's first value (the state the demo
//! starts in) is no step: a round under way when the demo starts has no
//! start tick, even when the demo starts at the round's very first tick
//! (nothing tells that from a recording begun in the freeze time; the
//! corpus clip `cs2/14065.dem` starts in a freeze time that began before
//! it).
//!
//! The `rounds` table comes from the round events when the demo has any
//! (`round_start`, `round_end` or `round_officially_ended`), else from the
//! game rules when they show a round (else from `round_freeze_end` alone):
//! both give the same rows on a demo that has both.
//!
//! ## Purchases without purchase events
//!
//! The `purchases` table comes from the `item_purchase` events when the
//! demo has any, else from the buyers' sellback lists (see
//! [`crate::purchases`]).

use gamewire_source2::gameevent::{EventValue, GameEvent};
use gamewire_source2::DemoState;

use crate::event_players::{event_player, identity, PlayerEnts};
use crate::item_names::weapon_name;
use crate::prop_paths::PropCache;
use crate::purchases::StatePurchases;
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

/// The notice CS2 shows for a round end reason (`round_end.message`; the
/// localization token of the reason).
pub fn reason_message(v: i64) -> Option<&'static str> {
    Some(match v {
        1 => "#SFUI_Notice_Target_Bombed",
        7 => "#SFUI_Notice_Bomb_Defused",
        8 => "#SFUI_Notice_CTs_Win",
        9 => "#SFUI_Notice_Terrorists_Win",
        10 => "#SFUI_Notice_Round_Draw",
        11 => "#SFUI_Notice_All_Hostages_Rescued",
        12 => "#SFUI_Notice_Target_Saved",
        13 => "#SFUI_Notice_Hostages_Not_Rescued",
        16 => "#SFUI_Notice_Game_Commencing",
        17 => "#SFUI_Notice_Terrorists_Surrender",
        18 => "#SFUI_Notice_CTs_Surrender",
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

/// The game rules' round state at the end of a tick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RulesState {
    start_count: i64,
    end_count: i64,
    freeze: bool,
}

/// Property names of the game rules' round state.
const START_COUNT: &str = "m_pGameRules.m_nRoundStartCount";
const END_COUNT: &str = "m_pGameRules.m_nRoundEndCount";
const FREEZE: &str = "m_pGameRules.m_bFreezePeriod";
const END_WINNER: &str = "m_pGameRules.m_iRoundEndWinnerTeam";
const END_REASON: &str = "m_pGameRules.m_eRoundEndReason";
const END_MESSAGE: &str = "m_pGameRules.m_sRoundEndMessage";
const WIN_STATUS: &str = "m_pGameRules.m_iRoundWinStatus";
const WIN_REASON: &str = "m_pGameRules.m_eRoundWinReason";

/// Rounds read from the game rules' round counters (see the module
/// documentation).
#[derive(Debug, Default)]
struct RulesRounds {
    last: Option<RulesState>,
    open: Option<Round>,
    done: Vec<Round>,
}

impl RulesRounds {
    fn on_tick(&mut self, state: &DemoState, paths: &mut PropCache, tick: i32) {
        let Some(rules) = paths.rules_entity(state) else {
            return;
        };
        let mut int = |name: &str| paths.value(state, rules, name).and_then(|v| v.as_i64());
        let (Some(start_count), Some(end_count)) = (int(START_COUNT), int(END_COUNT)) else {
            return;
        };
        let freeze = paths
            .value(state, rules, FREEZE)
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        let now = RulesState {
            start_count,
            end_count,
            freeze,
        };
        let Some(last) = self.last.replace(now) else {
            return;
        };
        if now.end_count != last.end_count {
            let end = self.end_of_round(state, paths);
            let r = self.open.get_or_insert_with(Round::default);
            r.end = Some(tick);
            r.winner = end.winner;
            r.reason = end.reason;
            r.message = end.message;
        }
        if now.start_count != last.start_count {
            if let Some(mut r) = self.open.take() {
                if r.end.is_some() {
                    r.official_end = Some(tick);
                }
                self.done.push(r);
            }
            self.open = Some(Round {
                start: Some(tick),
                ..Round::default()
            });
        }
        if last.freeze && !now.freeze {
            let r = self.open.get_or_insert_with(Round::default);
            r.freeze_end = Some(tick);
        }
    }

    /// Winner, reason and message of the round that just ended.
    fn end_of_round(&self, state: &DemoState, paths: &mut PropCache) -> Round {
        let Some(rules) = paths.rules_entity(state) else {
            return Round::default();
        };
        let mut int = |name: &str| paths.value(state, rules, name).and_then(|v| v.as_i64());
        let winner = int(END_WINNER)
            .filter(|&w| w != 0)
            .or_else(|| int(WIN_STATUS));
        let reason = int(END_REASON)
            .filter(|&r| r != 0)
            .or_else(|| int(WIN_REASON));
        let message = paths
            .value(state, rules, END_MESSAGE)
            .and_then(|v| v.as_str())
            .filter(|m| !m.is_empty())
            .map(str::to_string)
            .or_else(|| reason.and_then(reason_message).map(str::to_string));
        Round {
            winner,
            reason,
            message,
            ..Round::default()
        }
    }

    fn finish(mut self) -> Vec<Round> {
        if let Some(r) = self.open.take() {
            self.done.push(r);
        }
        self.done
    }
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
    /// A `round_start`, `round_end` or `round_officially_ended` was read.
    round_events: bool,
    /// The rounds of the game rules, used when there are no round events.
    from_rules: Option<RulesRounds>,
    /// An `item_purchase` was read.
    purchase_events: bool,
    /// The purchases of the buyers' state, used when there are no purchase
    /// events.
    bought: Option<StatePurchases>,
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
            round_events: false,
            from_rules: rounds.then(RulesRounds::default),
            purchase_events: false,
            bought: purchases.then(StatePurchases::new),
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

    /// Reads the game rules at the end of a tick (the rounds of a demo
    /// without round events).
    pub fn on_tick_end(&mut self, state: &DemoState, tick: i32) {
        if let Some(r) = &mut self.from_rules {
            r.on_tick(state, &mut self.paths, tick);
        }
        if let Some(b) = &mut self.bought {
            b.on_tick(state, &mut self.paths, tick);
        }
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
                self.purchase_events = true;
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
        if ev.name != "round_freeze_end" {
            self.round_events = true;
        }
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
        if let Some(r) = self.from_rules.take() {
            let derived = r.finish();
            if !self.round_events && !derived.is_empty() {
                self.done = derived;
            }
        }
        if let Some(b) = self.bought.take() {
            if !self.purchase_events {
                self.purchases = Some(b.table);
            }
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
