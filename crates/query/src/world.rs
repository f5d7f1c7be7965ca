//! Game-wide and team props. Tables per event and per tick read them by
//! name; they are CS2's: the `CCSGameRules` behind the `CCSGameRulesProxy`
//! entity, and the `CCSTeam` entities. [`player_source`] tells a player prop
//! name from a team or game-wide one.

use crate::friendly_props::{prop_source, PropSource};
use crate::prop_paths::{PropCache, RULES_CLASS};
use crate::table::Cell;
use gamewire_source2::{DemoState, Entity, Value};

/// Game-wide props by friendly name (demoparser2's names): fields of the
/// `CCSGameRules` behind the `CCSGameRulesProxy` entity (`m_pGameRules`).
/// `round_time` is this crate's own name. demoparser2's names whose fields
/// CS2 send tables do not have (`gungame_prog_weap_*`,
/// `survival_start_time`) or that are arrays (`num_player_alive_*`) are left
/// out; raw `CCSGameRulesProxy.m_pGameRules.<field>` reads any field.
pub const RULES_PROPS: &[(&str, &str)] = &[
    ("total_rounds_played", "m_pGameRules.m_totalRoundsPlayed"),
    ("is_bomb_planted", "m_pGameRules.m_bBombPlanted"),
    ("is_bomb_dropped", "m_pGameRules.m_bBombDropped"),
    ("is_freeze_period", "m_pGameRules.m_bFreezePeriod"),
    ("is_warmup_period", "m_pGameRules.m_bWarmupPeriod"),
    ("is_match_started", "m_pGameRules.m_bHasMatchStarted"),
    (
        "is_terrorist_timeout",
        "m_pGameRules.m_bTerroristTimeOutActive",
    ),
    ("is_ct_timeout", "m_pGameRules.m_bCTTimeOutActive"),
    ("game_phase", "m_pGameRules.m_gamePhase"),
    ("round_win_status", "m_pGameRules.m_iRoundWinStatus"),
    ("round_win_reason", "m_pGameRules.m_eRoundWinReason"),
    ("round_start_time", "m_pGameRules.m_fRoundStartTime"),
    ("round_time", "m_pGameRules.m_iRoundTime"),
    ("warmup_period_end", "m_pGameRules.m_fWarmupPeriodEnd"),
    ("warmup_period_start", "m_pGameRules.m_fWarmupPeriodStart"),
    (
        "terrorist_timeout_remaining",
        "m_pGameRules.m_flTerroristTimeOutRemaining",
    ),
    (
        "ct_timeout_remaining",
        "m_pGameRules.m_flCTTimeOutRemaining",
    ),
    (
        "num_terrorist_timeouts",
        "m_pGameRules.m_nTerroristTimeOuts",
    ),
    ("num_ct_timeouts", "m_pGameRules.m_nCTTimeOuts"),
    ("is_technical_timeout", "m_pGameRules.m_bTechnicalTimeOut"),
    (
        "is_waiting_for_resume",
        "m_pGameRules.m_bMatchWaitingForResume",
    ),
    ("match_start_time", "m_pGameRules.m_fMatchStartTime"),
    ("restart_round_time", "m_pGameRules.m_flRestartRoundTime"),
    ("is_game_restart?", "m_pGameRules.m_bGameRestart"),
    ("game_start_time", "m_pGameRules.m_flGameStartTime"),
    (
        "time_until_next_phase_start",
        "m_pGameRules.m_timeUntilNextPhaseStarts",
    ),
    (
        "rounds_played_this_phase",
        "m_pGameRules.m_nRoundsPlayedThisPhase",
    ),
    ("hostages_remaining", "m_pGameRules.m_iHostagesRemaining"),
    ("any_hostages_reached", "m_pGameRules.m_bAnyHostageReached"),
    ("has_bombites", "m_pGameRules.m_bMapHasBombTarget"),
    ("has_rescue_zone", "m_pGameRules.m_bMapHasRescueZone"),
    ("has_buy_zone", "m_pGameRules.m_bMapHasBuyZone"),
    ("is_matchmaking", "m_pGameRules.m_bIsQueuedMatchmaking"),
    ("match_making_mode", "m_pGameRules.m_nQueuedMatchmakingMode"),
    ("is_valve_dedicated_server", "m_pGameRules.m_bIsValveDS"),
    ("spectator_slot_count", "m_pGameRules.m_iSpectatorSlotCount"),
    ("n_best_of_maps", "m_pGameRules.m_numBestOfMaps"),
    ("round_start_count", "m_pGameRules.m_nRoundStartCount"),
    ("round_end_count", "m_pGameRules.m_nRoundEndCount"),
    ("match_end_count", "m_pGameRules.m_nMatchEndCount"),
    ("terrorist_cant_buy", "m_pGameRules.m_bTCantBuy"),
    ("ct_cant_buy", "m_pGameRules.m_bCTCantBuy"),
    ("ct_losing_streak", "m_pGameRules.m_iNumConsecutiveCTLoses"),
    (
        "t_losing_streak",
        "m_pGameRules.m_iNumConsecutiveTerroristLoses",
    ),
    ("round_in_progress", "m_pGameRules.m_bRoundInProgress"),
    ("i_bomb_site?", "m_pGameRules.m_iBombSite"),
];

/// Team props by friendly name (demoparser2's names): fields of a `CCSTeam`
/// entity. As a player prop, the team is the player's (the pawn's
/// `m_iTeamNum`, else the controller's); as a game-wide prop a name gives
/// two columns, `t_<name>` (team 2) and `ct_<name>` (team 3).
pub const TEAM_PROPS: &[(&str, &str)] = &[
    ("team_rounds_total", "m_iScore"),
    ("team_score_first_half", "m_scoreFirstHalf"),
    ("team_score_second_half", "m_scoreSecondHalf"),
    ("team_score_overtime", "m_scoreOvertime"),
    ("team_name", "m_szTeamname"),
    ("team_clan_name", "m_szClanTeamname"),
    ("team_surrendered", "m_bSurrendered"),
    ("team_match_stat", "m_szTeamMatchStat"),
    ("team_num_map_victories", "m_numMapVictories"),
];

/// The terrorists' team number.
pub const TEAM_T: u8 = 2;
/// The counter-terrorists' team number.
pub const TEAM_CT: u8 = 3;

/// How a game-wide prop is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OtherSource {
    /// A dotted path on the `CCSGameRulesProxy` entity.
    Rules(String),
    /// `net_tick × tick_interval` (seconds).
    GameTime,
    /// A dotted path on the `CCSTeam` entity of a team (2 T, 3 CT).
    Team(u8, String),
}

/// The `CCSTeam` path of a team prop: a friendly name or a raw
/// `CCSTeam.<path>`.
fn team_path(name: &str) -> Option<String> {
    if let Some((_, p)) = TEAM_PROPS.iter().find(|(n, _)| *n == name) {
        return Some((*p).to_string());
    }
    name.strip_prefix("CCSTeam.").map(str::to_string)
}

/// Resolves a game-wide prop that fills one column: a rules name,
/// `game_time`, a raw `CCSGameRulesProxy.<path>`, or one team's prop
/// (`t_team_rounds_total`, `ct_team_name`, `t_CCSTeam.m_iScore`); `None`
/// when unknown.
pub fn other_source(name: &str) -> Option<OtherSource> {
    if name == "game_time" {
        return Some(OtherSource::GameTime);
    }
    if let Some((_, path)) = RULES_PROPS.iter().find(|(n, _)| *n == name) {
        return Some(OtherSource::Rules((*path).to_string()));
    }
    for (prefix, team) in [("t_", TEAM_T), ("ct_", TEAM_CT)] {
        if let Some(p) = name.strip_prefix(prefix).and_then(team_path) {
            return Some(OtherSource::Team(team, p));
        }
    }
    name.strip_prefix("CCSGameRulesProxy.")
        .map(|p| OtherSource::Rules(p.to_string()))
}

/// The columns a game-wide prop name gives: one for most names, two
/// (`t_<name>`, `ct_<name>`) for a team prop, as demoparser2's
/// `parse_event(other=[...])` does; `None` when unknown.
pub fn other_columns(name: &str) -> Option<Vec<(String, OtherSource)>> {
    if let Some(p) = team_path(name) {
        return Some(vec![
            (format!("t_{name}"), OtherSource::Team(TEAM_T, p.clone())),
            (format!("ct_{name}"), OtherSource::Team(TEAM_CT, p)),
        ]);
    }
    other_source(name).map(|s| vec![(name.to_string(), s)])
}

/// Every game-wide prop name (team props once, without `t_`/`ct_`).
pub fn other_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = RULES_PROPS.iter().map(|(n, _)| *n).collect();
    v.push("game_time");
    v.extend(TEAM_PROPS.iter().map(|(n, _)| *n));
    v
}

/// The entities game-wide and team props are read from, found once per
/// row (event) or per tick.
#[derive(Debug, Clone, Copy, Default)]
pub struct World<'s> {
    /// The `CCSGameRulesProxy` entity.
    pub rules: Option<&'s Entity>,
    /// `CCSTeam` entities by team number (0 unassigned, 1 spectator, 2 T,
    /// 3 CT).
    pub teams: [Option<&'s Entity>; 4],
}

impl<'s> World<'s> {
    /// Finds the rules and team entities of the current state.
    pub fn of(state: &'s DemoState, paths: &mut PropCache) -> World<'s> {
        let mut w = World::default();
        for e in state.entities.iter() {
            match state.class_name(e) {
                RULES_CLASS => w.rules = Some(e),
                "CCSTeam" => {
                    let n = paths
                        .value(state, e, "m_iTeamNum")
                        .and_then(Value::as_i64)
                        .and_then(|n| usize::try_from(n).ok());
                    if let Some(slot) = n.and_then(|n| w.teams.get_mut(n)) {
                        *slot = Some(e);
                    }
                }
                _ => {}
            }
        }
        w
    }

    /// The team entity of a team number.
    pub fn team(&self, n: i64) -> Option<&'s Entity> {
        usize::try_from(n)
            .ok()
            .and_then(|n| self.teams.get(n).copied().flatten())
    }
}

/// Reads a game-wide prop.
pub fn other_prop(state: &DemoState, paths: &mut PropCache, source: &OtherSource) -> Cell {
    let world = World::of(state, paths);
    other_prop_in(state, paths, &world, source)
}

/// Reads a game-wide prop from entities already found.
pub fn other_prop_in(
    state: &DemoState,
    paths: &mut PropCache,
    world: &World<'_>,
    source: &OtherSource,
) -> Cell {
    let (entity, path) = match source {
        OtherSource::GameTime => return Cell::Float(state.net_tick as f32 * state.tick_interval),
        OtherSource::Rules(path) => (world.rules, path),
        OtherSource::Team(team, path) => (world.team(i64::from(*team)), path),
    };
    entity
        .and_then(|e| paths.value(state, e, path))
        .map(Cell::from_value)
        .unwrap_or(Cell::Null)
}

/// How a player prop is read.
#[derive(Debug, Clone, PartialEq)]
pub enum PlayerSource {
    /// From the player's pawn or controller.
    Entity(PropSource),
    /// A dotted path on the `CCSTeam` entity of the player's team.
    Team(String),
    /// A game-wide prop, repeated in each player row (demoparser2's
    /// `parse_ticks` accepts game-rules names as player props).
    World(OtherSource),
}

impl PlayerSource {
    /// Whether reading it needs no entity but the player row classes
    /// ([`crate::classes::is_player_row_class`]): a team or game-wide prop, or a
    /// player prop that follows no handle to another entity.
    pub fn reads_player_classes_only(&self) -> bool {
        match self {
            PlayerSource::Entity(s) => s.reads_player_classes_only(),
            PlayerSource::Team(_) | PlayerSource::World(_) => true,
        }
    }
}

/// Resolves a player prop name: a team prop (friendly or raw
/// `CCSTeam.<path>`), a game-wide name (rules, `game_time`, raw
/// `CCSGameRulesProxy.<path>`), else a pawn/controller prop (friendly or
/// raw).
pub fn player_source(name: &str) -> PlayerSource {
    if let Some(p) = team_path(name) {
        return PlayerSource::Team(p);
    }
    if name == "game_time"
        || RULES_PROPS.iter().any(|(n, _)| *n == name)
        || name.starts_with("CCSGameRulesProxy.")
    {
        if let Some(s) = other_source(name) {
            return PlayerSource::World(s);
        }
    }
    PlayerSource::Entity(prop_source(name))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::friendly_props::Owner;

    #[test]
    fn team_and_game_wide_names_are_told_apart_from_player_props() {
        assert_eq!(
            player_source("team_name"),
            PlayerSource::Team("m_szTeamname".into())
        );
        assert_eq!(
            player_source("total_rounds_played"),
            PlayerSource::World(OtherSource::Rules(
                "m_pGameRules.m_totalRoundsPlayed".into()
            ))
        );
        assert_eq!(
            player_source("game_time"),
            PlayerSource::World(OtherSource::GameTime)
        );
        assert_eq!(
            player_source("health"),
            PlayerSource::Entity(PropSource::Raw(Owner::Pawn, "m_iHealth".into()))
        );
    }
}
