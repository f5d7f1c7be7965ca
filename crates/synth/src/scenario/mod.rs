//! The scenario format: a whole CS2 match written by hand, in JSON or TOML.
//!
//! A scenario is sparse. It names the map and the tick rate, lists every
//! player once (name, steam id, the side they start on, bot or human), and
//! then the rounds, in order. A round gives its result (winner, reason),
//! its timing (freeze time, the time of `round_end`, the delay until the
//! next round), what each player starts it with (money, armor, weapons:
//! only what differs from what the match carried over), each player's
//! keyframed movement, and its events (kills, damage, purchases, grenades,
//! the bomb, chat, disconnects, bot takeovers) at times relative to the
//! round's start. Everything else is derived: health after damage, money
//! after purchases and round rewards, scores, the side switch at half time
//! and in overtime, the CS2 game events and their keys.
//!
//! Times are seconds after the round's `round_start` (`t = 12.5`), or ticks
//! after it (`tick = 800`); a tick is `round(t × tick_rate)`. Positions are
//! world units (x, y, z of the feet), angles degrees. Every key, its unit
//! and its default is documented in `docs/scenarios.md`.
//!
//! [`load`] reads the text and checks it (see `validate`): every error is a
//! [`SynthErrorKind::Scenario`] naming the 1-based line (both formats give
//! one) and the dotted key path (`rounds[1].events[3].victim`).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{SynthError, SynthErrorKind};

pub(crate) mod locate;

/// The text format of a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScenarioFormat {
    /// JSON (`.json`).
    Json,
    /// TOML (`.toml`).
    Toml,
}

impl ScenarioFormat {
    /// The format a file name's extension names (`.json`, `.toml`), if any.
    pub fn from_path(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(ScenarioFormat::Json),
            "toml" => Some(ScenarioFormat::Toml),
            _ => None,
        }
    }
}

/// A match: the map, the players, the rounds and the tables it should give.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Map name as the server reports it (`de_mirage`).
    pub map: String,
    /// Server ticks per second (default 64).
    #[serde(default = "default_tick_rate")]
    pub tick_rate: u32,
    /// Ticks between two written frames (default 1: every tick). Events
    /// between two written ticks are moved to the next written tick.
    #[serde(default = "default_one")]
    pub frame_interval: u32,
    /// The server's name in the demo header (default `gamewire synth`).
    #[serde(default = "default_server_name")]
    pub server_name: String,
    /// The tick of the first written frame, where round 1 starts (default 1).
    #[serde(default = "default_start_tick")]
    pub start_tick: i32,
    /// Write `round_start`, `round_end`, `round_officially_ended` and
    /// `cs_win_panel_match` as game events (default true). Some CS2 demos
    /// leave them out, and readers (demoparser2, demofile-net) derive them
    /// from the game rules' round counters, which are written either way.
    #[serde(default = "default_true")]
    pub round_events: bool,
    /// Write `item_purchase` game events (default true). Current CS2
    /// builds leave them out, and a purchase is then only in the buyer's
    /// state: with `false`, no `item_purchase` is written, and each purchase
    /// is an entry of the pawn's sellback list
    /// (`m_pBuyServices.m_vecSellbackPurchaseEntries`: the item's definition
    /// index, its price, the handle of the item bought), which each round
    /// start empties. With `true` the list is not written.
    #[serde(default = "default_true")]
    pub purchase_events: bool,
    /// Clan names of the two teams.
    #[serde(default)]
    pub teams: TeamNames,
    /// Match rules: half length, overtime, money, timings.
    #[serde(default)]
    pub rules: MatchRules,
    /// Every player who is ever in the match, once; the order is the slot
    /// order (the first player is slot 0).
    pub players: Vec<Player>,
    /// The rounds, in order.
    #[serde(default)]
    pub rounds: Vec<Round>,
    /// The tables the demo must give: table name (as gamewire names it:
    /// `kills`, `rounds`) → its rows in order, each a map of the columns to
    /// compare (columns not listed are not compared).
    #[serde(default)]
    pub expected: BTreeMap<String, Vec<BTreeMap<String, serde_json::Value>>>,
}

fn default_tick_rate() -> u32 {
    64
}
fn default_one() -> u32 {
    1
}
fn default_start_tick() -> i32 {
    1
}
fn default_server_name() -> String {
    "gamewire synth".to_string()
}
fn default_true() -> bool {
    true
}

/// The clan names of the team that starts as terrorists and the team that
/// starts as counter-terrorists. Each name follows its team across the side
/// switch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeamNames {
    /// The team that starts as terrorists (default `Team A`).
    #[serde(default = "default_team_t")]
    pub t: String,
    /// The team that starts as counter-terrorists (default `Team B`).
    #[serde(default = "default_team_ct")]
    pub ct: String,
}

fn default_team_t() -> String {
    "Team A".to_string()
}
fn default_team_ct() -> String {
    "Team B".to_string()
}

impl Default for TeamNames {
    fn default() -> Self {
        TeamNames {
            t: default_team_t(),
            ct: default_team_ct(),
        }
    }
}

/// The match's rules (CS2's competitive settings by default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchRules {
    /// Rounds in regulation (`mp_maxrounds`, default 24: MR12). The sides
    /// switch after round `max_rounds / 2`.
    #[serde(default = "default_max_rounds")]
    pub max_rounds: u32,
    /// Rounds in one overtime (`mp_overtime_maxrounds`, default 6: MR3).
    /// The sides switch after each overtime half.
    #[serde(default = "default_ot_rounds")]
    pub overtime_max_rounds: u32,
    /// Money at the start of each half (default 800).
    #[serde(default = "default_start_money")]
    pub start_money: i32,
    /// Money at the start of each overtime half (default 12500).
    #[serde(default = "default_ot_money")]
    pub overtime_start_money: i32,
    /// The most money a player can hold (default 16000).
    #[serde(default = "default_max_money")]
    pub max_money: i32,
    /// Round rewards and kill rewards (default true). When false, money
    /// changes only by purchases and the rounds' `money` values.
    #[serde(default = "default_true")]
    pub economy: bool,
    /// Freeze time of every round, seconds (default 15).
    #[serde(default = "default_freeze_time")]
    pub freeze_time: f64,
    /// Round time after the freeze time, seconds (`m_iRoundTime`, default 115).
    #[serde(default = "default_round_time")]
    pub round_time: f64,
    /// Seconds from `round_end` to the next round's start (default 7).
    #[serde(default = "default_restart_delay")]
    pub restart_delay: f64,
    /// Seconds from the plant to the explosion (default 40).
    #[serde(default = "default_bomb_timer")]
    pub bomb_timer: f64,
}

fn default_max_rounds() -> u32 {
    24
}
fn default_ot_rounds() -> u32 {
    6
}
fn default_start_money() -> i32 {
    800
}
fn default_ot_money() -> i32 {
    12500
}
fn default_max_money() -> i32 {
    16000
}
fn default_freeze_time() -> f64 {
    15.0
}
fn default_round_time() -> f64 {
    115.0
}
fn default_restart_delay() -> f64 {
    7.0
}
fn default_bomb_timer() -> f64 {
    40.0
}

impl Default for MatchRules {
    fn default() -> Self {
        MatchRules {
            max_rounds: default_max_rounds(),
            overtime_max_rounds: default_ot_rounds(),
            start_money: default_start_money(),
            overtime_start_money: default_ot_money(),
            max_money: default_max_money(),
            economy: true,
            freeze_time: default_freeze_time(),
            round_time: default_round_time(),
            restart_delay: default_restart_delay(),
            bomb_timer: default_bomb_timer(),
        }
    }
}

/// A side (or the spectators).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    /// Terrorists (team 2).
    #[serde(rename = "T", alias = "t")]
    T,
    /// Counter-terrorists (team 3).
    #[serde(rename = "CT", alias = "ct")]
    Ct,
    /// Spectators (team 1).
    #[serde(rename = "spectator")]
    Spectator,
}

impl Side {
    /// The team number (2 T, 3 CT, 1 spectator).
    pub fn team_number(self) -> u8 {
        match self {
            Side::T => 2,
            Side::Ct => 3,
            Side::Spectator => 1,
        }
    }
}

/// One player, listed once for the whole match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    /// The name (unique in the match; events refer to players by it).
    pub name: String,
    /// The 64-bit steam id (unique; 0 for bots, the default).
    #[serde(default)]
    pub steamid: u64,
    /// The side at the start of the match.
    pub team: Side,
    /// A bot (default false; a bot's steam id is 0).
    #[serde(default)]
    pub bot: bool,
    /// Connected when the match starts (default true); one who is not
    /// joins with a `connect` event.
    #[serde(default = "default_true")]
    pub connected: bool,
}

/// Who won a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Winner {
    /// Terrorists.
    #[serde(rename = "T", alias = "t")]
    T,
    /// Counter-terrorists.
    #[serde(rename = "CT", alias = "ct")]
    Ct,
    /// Nobody.
    #[serde(rename = "draw")]
    Draw,
}

/// One round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Round {
    /// The winning side.
    pub winner: Winner,
    /// The reason's name (`t_killed`, `ct_killed`, `bomb_exploded`,
    /// `bomb_defused`, `target_saved`, `draw`, `t_surrender`,
    /// `ct_surrender`); by default `bomb_exploded` or `bomb_defused` when
    /// the round has that event, else `ct_killed` for a T win, `t_killed`
    /// for a CT win, `draw` for a draw.
    #[serde(default)]
    pub reason: Option<String>,
    /// Seconds after the round's start at which `round_end` fires.
    pub end: f64,
    /// Freeze time, seconds (default `rules.freeze_time`).
    #[serde(default)]
    pub freeze_time: Option<f64>,
    /// Seconds from `round_end` to the next round's start (default
    /// `rules.restart_delay`); after the last round, to the demo's end.
    #[serde(default)]
    pub restart_delay: Option<f64>,
    /// The terrorist who carries the bomb at the start (default: the first
    /// living terrorist in slot order; `""` for no bomb).
    #[serde(default)]
    pub bomb: Option<String>,
    /// Per player: the state at the round's start where it differs from
    /// what the match carried over, and the keyframed movement.
    #[serde(default)]
    pub players: BTreeMap<String, RoundPlayer>,
    /// The round's events, in time order.
    #[serde(default)]
    pub events: Vec<Event>,
}

/// A player's start of a round and movement in it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundPlayer {
    /// Money at the round's start (default: carried over, plus rewards).
    #[serde(default)]
    pub money: Option<i32>,
    /// Health at the round's start (default 100).
    #[serde(default)]
    pub health: Option<i32>,
    /// Armor at the round's start (default: kept by a survivor, else 0).
    #[serde(default)]
    pub armor: Option<i32>,
    /// Helmet at the round's start (default: kept by a survivor).
    #[serde(default)]
    pub helmet: Option<bool>,
    /// Defuse kit at the round's start (default: kept by a survivor).
    #[serde(default)]
    pub defuser: Option<bool>,
    /// The whole inventory at the round's start, short names (`ak47`,
    /// `knife`, `smokegrenade`); default: a survivor keeps what they held,
    /// anyone else gets the side's knife and pistol.
    #[serde(default)]
    pub weapons: Option<Vec<String>>,
    /// Keyframes: position and view, linearly interpolated between keys
    /// (the view angles the short way round).
    #[serde(default)]
    pub keys: Vec<Key>,
}

/// A keyframe of a player's movement.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Key {
    /// Seconds after the round's start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t: Option<f64>,
    /// Ticks after the round's start (instead of `t`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick: Option<i64>,
    /// Position of the feet, world units (default: the previous key's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pos: Option<[f32; 3]>,
    /// View yaw, degrees (default: the previous key's, else 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yaw: Option<f32>,
    /// View pitch, degrees, positive down (default: the previous key's, else 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pitch: Option<f32>,
}

/// A blinded player of a flashbang.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Blind {
    /// Who is blinded.
    pub player: String,
    /// For how long, seconds.
    pub duration: f32,
}

/// A bomb site.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Site {
    /// Site A.
    #[serde(rename = "A", alias = "a")]
    A,
    /// Site B.
    #[serde(rename = "B", alias = "b")]
    B,
}

/// An event of a round: when, and what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "serde_json::Map<String, serde_json::Value>")]
#[serde(into = "serde_json::Map<String, serde_json::Value>")]
pub struct Event {
    /// Seconds after the round's start.
    pub t: Option<f64>,
    /// Ticks after the round's start (instead of `t`).
    pub tick: Option<i64>,
    /// What happens.
    pub action: Action,
}

impl TryFrom<serde_json::Map<String, serde_json::Value>> for Event {
    type Error = String;

    fn try_from(mut map: serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        let t = match map.remove("t") {
            None => None,
            Some(v) => Some(v.as_f64().ok_or("`t` must be a number of seconds")?),
        };
        let tick = match map.remove("tick") {
            None => None,
            Some(v) => Some(v.as_i64().ok_or("`tick` must be an integer")?),
        };
        let action = serde_json::from_value(serde_json::Value::Object(map))
            .map_err(|e| strip_json_position(&e.to_string()))?;
        Ok(Event { t, tick, action })
    }
}

impl From<Event> for serde_json::Map<String, serde_json::Value> {
    fn from(e: Event) -> Self {
        let mut map = match serde_json::to_value(&e.action) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => serde_json::Map::new(),
        };
        if let Some(t) = e.t {
            if let Some(n) = serde_json::Number::from_f64(t) {
                map.insert("t".into(), serde_json::Value::Number(n));
            }
        }
        if let Some(tick) = e.tick {
            map.insert("tick".into(), serde_json::Value::from(tick));
        }
        map
    }
}

/// serde_json's errors from a `Value` end in " at line 0 column 0"; the
/// position is the enclosing file's, found elsewhere.
fn strip_json_position(s: &str) -> String {
    match s.find(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// What an event does; `type` names the variant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// A kill (`player_death`), after a last hit (`player_hurt`) that takes
    /// the victim's remaining health.
    Kill {
        /// The killer (absent: the world, a fall).
        #[serde(default)]
        attacker: Option<String>,
        /// The victim.
        victim: String,
        /// The assister.
        #[serde(default)]
        assister: Option<String>,
        /// The weapon's short name (`ak47`, `knife`, `hegrenade`,
        /// `inferno`, `world`, `planted_c4`).
        weapon: String,
        /// A headshot.
        #[serde(default)]
        headshot: bool,
        /// Objects the bullet went through (default 0; 1 when `wallbang`).
        #[serde(default)]
        penetrated: i32,
        /// Through a wall (sets `penetrated` to at least 1).
        #[serde(default)]
        wallbang: bool,
        /// Through smoke.
        #[serde(default)]
        thrusmoke: bool,
        /// A scoped weapon fired unscoped.
        #[serde(default)]
        noscope: bool,
        /// The killer was flashed.
        #[serde(default)]
        attackerblind: bool,
        /// The assist was a flash.
        #[serde(default)]
        assistedflash: bool,
        /// The killer was in the air.
        #[serde(default)]
        attackerinair: bool,
        /// Where the last hit landed (default `head` for a headshot, else `chest`).
        #[serde(default)]
        hitgroup: Option<String>,
        /// Armor the last hit took (default 0).
        #[serde(default)]
        dmg_armor: i32,
    },
    /// A hit that does not kill (`player_hurt`).
    Damage {
        /// The attacker (absent: the world).
        #[serde(default)]
        attacker: Option<String>,
        /// The victim.
        victim: String,
        /// The weapon's short name.
        weapon: String,
        /// Health taken (less than the victim's health).
        dmg_health: i32,
        /// Armor taken (default 0).
        #[serde(default)]
        dmg_armor: i32,
        /// Where it landed (default `chest`).
        #[serde(default)]
        hitgroup: Option<String>,
    },
    /// A purchase (`item_purchase`): the item is added, its price taken.
    Purchase {
        /// The buyer.
        player: String,
        /// The item's short name (`ak47`, `vest`, `vesthelm`, `defuser`).
        item: String,
    },
    /// An item taken from the ground, or given (`item_pickup`).
    Pickup {
        /// Who picks it up.
        player: String,
        /// The item's short name.
        item: String,
    },
    /// An item dropped where the player stands.
    Drop {
        /// Who drops it.
        player: String,
        /// The item's short name.
        item: String,
    },
    /// The bomb picked up from the ground (`bomb_pickup`).
    BombPickup {
        /// A terrorist.
        player: String,
    },
    /// The bomb dropped (`bomb_dropped`).
    BombDrop {
        /// The carrier.
        player: String,
    },
    /// A plant begins (`bomb_beginplant`).
    PlantBegin {
        /// The carrier.
        player: String,
        /// The site.
        site: Site,
    },
    /// A plant is aborted (`bomb_abortplant`).
    PlantAbort {
        /// The planter.
        player: String,
    },
    /// The bomb is planted (`bomb_planted`).
    Plant {
        /// The carrier.
        player: String,
        /// The site.
        site: Site,
    },
    /// A defuse begins (`bomb_begindefuse`).
    DefuseBegin {
        /// A counter-terrorist.
        player: String,
    },
    /// A defuse is aborted (`bomb_abortdefuse`).
    DefuseAbort {
        /// The defuser.
        player: String,
    },
    /// The bomb is defused (`bomb_defused`).
    Defuse {
        /// A counter-terrorist.
        player: String,
    },
    /// The bomb explodes (`bomb_exploded`).
    Explode {},
    /// A grenade thrown (`grenade_thrown`): its projectile flies to `to`
    /// in `flight` seconds and detonates there.
    Throw {
        /// The thrower, who carries the grenade.
        player: String,
        /// `hegrenade`, `flashbang`, `smokegrenade`, `molotov`,
        /// `incgrenade` or `decoy`.
        grenade: String,
        /// Where it detonates.
        to: [f32; 3],
        /// Where it leaves the hand (default: the thrower's position, 64
        /// units up).
        #[serde(default)]
        from: Option<[f32; 3]>,
        /// Seconds in the air (default 1.5).
        #[serde(default)]
        flight: Option<f64>,
        /// Seconds a smoke smokes (default 20), a fire burns (default 7)
        /// or a decoy plays (default 15).
        #[serde(default)]
        duration: Option<f64>,
        /// For a flashbang: who is blinded, for how long.
        #[serde(default)]
        blinds: Vec<Blind>,
    },
    /// A chat line.
    Chat {
        /// The sender.
        player: String,
        /// The text.
        text: String,
        /// To every team (default true); false for team chat.
        #[serde(default = "default_true")]
        all: bool,
    },
    /// A player leaves (`player_disconnect`).
    Disconnect {
        /// Who leaves.
        player: String,
        /// The reason code (default 2: left by the user).
        #[serde(default)]
        reason: Option<i32>,
    },
    /// A player joins or comes back (`player_connect`,
    /// `player_connect_full`, `player_team`); alive from the next round.
    Connect {
        /// Who joins.
        player: String,
        /// The side they join (default: their team's current side).
        #[serde(default)]
        team: Option<Side>,
    },
    /// A dead human takes over a living bot of their side (`bot_takeover`).
    Takeover {
        /// The human.
        player: String,
        /// The bot.
        bot: String,
    },
}

impl Action {
    /// The event's `type` as the scenario spells it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Action::Kill { .. } => "kill",
            Action::Damage { .. } => "damage",
            Action::Purchase { .. } => "purchase",
            Action::Pickup { .. } => "pickup",
            Action::Drop { .. } => "drop",
            Action::BombPickup { .. } => "bomb_pickup",
            Action::BombDrop { .. } => "bomb_drop",
            Action::PlantBegin { .. } => "plant_begin",
            Action::PlantAbort { .. } => "plant_abort",
            Action::Plant { .. } => "plant",
            Action::DefuseBegin { .. } => "defuse_begin",
            Action::DefuseAbort { .. } => "defuse_abort",
            Action::Defuse { .. } => "defuse",
            Action::Explode {} => "explode",
            Action::Throw { .. } => "throw",
            Action::Chat { .. } => "chat",
            Action::Disconnect { .. } => "disconnect",
            Action::Connect { .. } => "connect",
            Action::Takeover { .. } => "takeover",
        }
    }
}

/// Reads a scenario and checks it: the syntax, the keys and their types,
/// and what the match says (every player known, nobody dead acting, time
/// running forward, weapons known, money enough; see `validate`).
pub fn load(text: &str, format: ScenarioFormat) -> Result<Scenario, SynthError> {
    let scenario: Scenario = match format {
        ScenarioFormat::Json => serde_json::from_str(text).map_err(|e| {
            let offset = offset_of_line_col(text, e.line(), e.column());
            let key = locate::Locations::new(text, format)
                .and_then(|l| l.path_at(offset))
                .unwrap_or_default();
            scenario_error(
                (e.line() > 0).then_some(e.line()),
                key,
                strip_json_position(&e.to_string()),
            )
        })?,
        ScenarioFormat::Toml => toml::from_str(text).map_err(|e| {
            let span = e.span();
            let line = span.as_ref().map(|s| line_of_offset(text, s.start));
            let key = span
                .and_then(|s| locate::Locations::new(text, format).and_then(|l| l.path_at(s.start)))
                .unwrap_or_default();
            scenario_error(line, key, e.message().trim().to_string())
        })?,
    };
    if let Err(problem) = crate::validate::check(&scenario) {
        let line = locate::Locations::new(text, format).and_then(|l| l.line_of(&problem.key));
        return Err(scenario_error(line, problem.key, problem.message));
    }
    Ok(scenario)
}

pub(crate) fn scenario_error(line: Option<usize>, key: String, message: String) -> SynthError {
    SynthError {
        kind: SynthErrorKind::Scenario { line, key, message },
    }
}

/// The 1-based line of a byte offset.
pub(crate) fn line_of_offset(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()
        .get(..end)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
        + 1
}

/// The byte offset of a 1-based line and 1-based column (serde_json's).
fn offset_of_line_col(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return (offset + column.saturating_sub(1)).min(text.len());
        }
        offset += l.len();
    }
    text.len()
}

impl Scenario {
    /// The scenario's expected tables: table name → rows in order, each row
    /// the columns to compare.
    pub fn expected(&self) -> &BTreeMap<String, Vec<BTreeMap<String, serde_json::Value>>> {
        &self.expected
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE_ROUND: &str = r#"
map = "de_vertigo"
[[players]]
name = "a"
steamid = 76561198000000001
team = "T"
[[players]]
name = "b"
team = "CT"
bot = true
[[rounds]]
winner = "CT"
end = 20
[rounds.players.a]
keys = [{ tick = 0, pos = [1.0, 2.0, 3.0], yaw = 90 }]
[[rounds.events]]
t = 16
type = "kill"
attacker = "b"
victim = "a"
weapon = "usp_silencer"
[[rounds.events]]
t = 17
type = "explode"
"#;

    #[test]
    fn a_scenario_written_as_json_reads_back_the_same() -> Result<(), Box<dyn std::error::Error>> {
        // The explosion has no planted bomb: parse only, without the checks.
        let s: Scenario = toml::from_str(ONE_ROUND)?;
        assert_eq!(s.tick_rate, 64);
        assert_eq!(s.rounds[0].events[1].action, Action::Explode {});
        assert_eq!(s.rounds[0].events[0].t, Some(16.0));
        let json = serde_json::to_string_pretty(&s)?;
        let back: Scenario = serde_json::from_str(&json)?;
        assert_eq!(back, s);
        Ok(())
    }

    #[test]
    fn formats_by_extension() {
        assert_eq!(
            ScenarioFormat::from_path(Path::new("x/match.TOML")),
            Some(ScenarioFormat::Toml)
        );
        assert_eq!(
            ScenarioFormat::from_path(Path::new("m.json")),
            Some(ScenarioFormat::Json)
        );
        assert_eq!(ScenarioFormat::from_path(Path::new("m.yaml")), None);
    }
}
