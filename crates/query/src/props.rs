//! Reading props off entities: cached field paths, player resolution from
//! event keys, player props and game-rules props.

use gamewire_source2::cs2::{
    coord_from_cell, prop_source, resolve_prop, Cell, PropCache, PropSource,
};
use gamewire_source2::cs2::{Owner, CELL_PROPS, FRIENDLY_PROPS, OFFSET_PROPS};
use gamewire_source2::gameevent::{EventValue, GameEvent};
use gamewire_source2::{DemoState, Entity, Value};

/// Index bits of a networked handle.
const HANDLE_INDEX_MASK: u64 = 0x3FFF;

/// Field paths of dotted prop names, cached per serializer (the parser
/// crate's [`PropCache`]).
pub type Paths = PropCache;

/// Converts an entity value to a cell.
pub fn cell_of(v: &Value) -> Cell {
    Cell::from_value(v)
}

/// Converts an event value to a cell.
pub fn cell_of_event(v: &EventValue) -> Cell {
    Cell::from_event(v)
}

/// A player an event refers to, as far as it could be resolved.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlayerEnts<'s> {
    /// The controller entity.
    pub controller: Option<&'s Entity>,
    /// The pawn entity.
    pub pawn: Option<&'s Entity>,
    /// The player slot (controller index − 1).
    pub slot: Option<usize>,
}

/// Name and steam id of a resolved player: from the controller, else from
/// the `userinfo` entry of its slot.
pub fn identity(
    state: &DemoState,
    paths: &mut Paths,
    p: &PlayerEnts<'_>,
) -> (Option<String>, Option<u64>) {
    let mut name = p
        .controller
        .and_then(|c| paths.value(state, c, "m_iszPlayerName"))
        .and_then(|v| v.as_str().map(str::to_string));
    let mut steamid = p
        .controller
        .and_then(|c| paths.value(state, c, "m_steamID"))
        .and_then(Value::as_u64);
    if let Some(info) = p.slot.and_then(|s| state.players.get(&s)) {
        if name.is_none() {
            name = Some(info.name.clone());
        }
        if steamid.is_none() {
            steamid = Some(info.steamid);
        }
    }
    (name, steamid)
}

/// The entity index of a networked handle; `None` for the null handle.
pub fn handle_index(raw: u64) -> Option<i32> {
    let index = raw & HANDLE_INDEX_MASK;
    (index != HANDLE_INDEX_MASK).then_some(index as i32)
}

/// The pawn of a controller (`m_hPlayerPawn`).
pub fn pawn_of<'s>(state: &'s DemoState, paths: &mut Paths, c: &Entity) -> Option<&'s Entity> {
    let raw = paths.value(state, c, "m_hPlayerPawn")?.as_u64()?;
    let index = raw & HANDLE_INDEX_MASK;
    if index == HANDLE_INDEX_MASK {
        return None;
    }
    state.entities.get(index as i32)
}

/// The player of a controller slot (event key types 9 and the integer
/// `userid`/`attacker`/`assister` keys): controller entity = slot + 1.
pub fn player_by_slot<'s>(state: &'s DemoState, paths: &mut Paths, v: i64) -> PlayerEnts<'s> {
    if !(0..0xFFFF).contains(&v) {
        return PlayerEnts::default();
    }
    let slot = (v & 0xFF) as usize;
    let controller = state
        .entities
        .get(slot as i32 + 1)
        .filter(|e| state.class_name(e).ends_with("PlayerController"));
    let pawn = controller.and_then(|c| pawn_of(state, paths, c));
    PlayerEnts {
        controller,
        pawn,
        slot: Some(slot),
    }
}

/// The player of a pawn entity index (or handle).
pub fn player_by_pawn<'s>(state: &'s DemoState, paths: &mut Paths, raw: i64) -> PlayerEnts<'s> {
    let index = (raw as u64) & HANDLE_INDEX_MASK;
    if raw < 0 || index == HANDLE_INDEX_MASK {
        return PlayerEnts::default();
    }
    let pawn = state.entities.get(index as i32);
    let controller = state.entities.iter().find(|e| {
        state.class_name(e).ends_with("PlayerController")
            && paths
                .value(state, e, "m_hPlayerPawn")
                .and_then(Value::as_u64)
                .map(|h| h & HANDLE_INDEX_MASK)
                == Some(index)
    });
    PlayerEnts {
        controller,
        pawn,
        slot: controller.and_then(|c| usize::try_from(c.index - 1).ok()),
    }
}

/// The player behind an entity handle held by another entity (a grenade's
/// `m_hThrower` points at a pawn).
pub fn player_by_handle<'s>(state: &'s DemoState, paths: &mut Paths, raw: u64) -> PlayerEnts<'s> {
    player_by_pawn(state, paths, raw as i64)
}

/// Event keys that name a player, the column prefix, and the key holding
/// the pawn handle used when the slot key is absent (demoparser2).
pub const PLAYER_KEYS: &[(&str, &str)] = &[
    ("attacker", "attacker"),
    ("userid", "user"),
    ("assister", "assister"),
    ("victim", "victim"),
];

/// Keys demoparser2 drops from event rows (replaced by player columns).
pub const INTERNAL_KEYS: &[&str] = &[
    "userid",
    "attacker",
    "assister",
    "userid_pawn",
    "attacker_pawn",
    "assister_pawn",
    "victim",
    "victim_pawn",
];

/// The player who owns an entity (a grenade projectile, an inferno, a
/// dropped item): its `m_nOwnerId` (what demoparser2 reads), else
/// `m_hOwnerEntity`, else `m_hThrower`, taken as a pawn handle.
pub fn owner_of<'s>(state: &'s DemoState, paths: &mut Paths, index: i64) -> PlayerEnts<'s> {
    let Some(e) = i32::try_from(index)
        .ok()
        .and_then(|i| state.entities.get(i))
    else {
        return PlayerEnts::default();
    };
    let raw = ["m_nOwnerId", "m_hOwnerEntity", "m_hThrower"]
        .iter()
        .find_map(|p| paths.value(state, e, p).and_then(Value::as_u64));
    match raw {
        Some(raw) => player_by_handle(state, paths, raw),
        None => PlayerEnts::default(),
    }
}

/// Whether an event names the player of a key: the key itself, its
/// `_pawn` handle, or for `userid` an `entityid` (see [`event_player`]).
pub fn event_has_player(keys: &[&str], key: &str) -> bool {
    let has = |k: &str| keys.contains(&k);
    has(key) || has(&format!("{key}_pawn")) || (key == "userid" && has("entityid"))
}

/// The player an event key refers to: the slot key; for `userid` in an
/// event without one, the owner of its `entityid` entity (grenade and
/// inferno events, as demoparser2 does); else the key's `_pawn` handle.
pub fn event_player<'s>(
    state: &'s DemoState,
    paths: &mut Paths,
    ev: &GameEvent,
    key: &str,
) -> Option<PlayerEnts<'s>> {
    if let Some(v) = ev.get(key).and_then(EventValue::as_i64) {
        return Some(player_by_slot(state, paths, v));
    }
    if key == "userid" {
        if let Some(v) = ev.get("entityid").and_then(EventValue::as_i64) {
            return Some(owner_of(state, paths, v));
        }
    }
    let pawn_key = format!("{key}_pawn");
    ev.get(&pawn_key)
        .and_then(EventValue::as_i64)
        .map(|v| player_by_pawn(state, paths, v))
}

/// Reads a player prop (friendly or raw) of a resolved player.
pub fn player_prop(
    state: &DemoState,
    paths: &mut Paths,
    p: &PlayerEnts<'_>,
    source: &PropSource,
) -> Cell {
    let on = |owner: Owner| match owner {
        Owner::Pawn => p.pawn,
        Owner::Controller => p.controller,
    };
    match source {
        PropSource::Raw(owner, name) => {
            let primary = on(*owner).and_then(|e| paths.value(state, e, name));
            let value = match primary {
                Some(v) => Some(v),
                None if *owner == Owner::Pawn => {
                    p.controller.and_then(|e| paths.value(state, e, name))
                }
                None => None,
            };
            value.map(cell_of).unwrap_or(Cell::Null)
        }
        PropSource::Element(owner, name, i) => on(*owner)
            .and_then(|e| paths.value(state, e, name))
            .and_then(|v| v.as_floats().and_then(|f| f.get(*i).copied()))
            .map(Cell::Float)
            .unwrap_or(Cell::Null),
        PropSource::Position(axis) => match p.pawn.and_then(|e| position(state, paths, e)) {
            Some(pos) => pos
                .get(*axis)
                .copied()
                .map(Cell::Float)
                .unwrap_or(Cell::Null),
            None => Cell::Null,
        },
        PropSource::IsAlive => {
            let v = p
                .pawn
                .and_then(|e| paths.value(state, e, "m_lifeState"))
                .and_then(Value::as_i64);
            Cell::Bool(v == Some(0))
        }
    }
}

/// The world position of an entity from its body component cells.
pub fn position(state: &DemoState, paths: &mut Paths, e: &Entity) -> Option<[f32; 3]> {
    let mut out = [0.0f32; 3];
    for ((c, o), slot) in CELL_PROPS.iter().zip(OFFSET_PROPS).zip(out.iter_mut()) {
        let cell = paths.value(state, e, c).and_then(Value::as_u64)?;
        let off = paths.value(state, e, o).and_then(Value::as_f32)?;
        *slot = coord_from_cell(cell, off);
    }
    Some(out)
}

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
    pub fn of(state: &'s DemoState, paths: &mut Paths) -> World<'s> {
        let mut w = World::default();
        for e in state.entities.iter() {
            match state.class_name(e) {
                "CCSGameRulesProxy" => w.rules = Some(e),
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
pub fn other_prop(state: &DemoState, paths: &mut Paths, source: &OtherSource) -> Cell {
    let world = World::of(state, paths);
    other_prop_in(state, paths, &world, source)
}

/// Reads a game-wide prop from entities already found.
pub fn other_prop_in(
    state: &DemoState,
    paths: &mut Paths,
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
        .map(cell_of)
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
    PlayerSource::Entity(prop_source(player_prop_path(name)))
}

/// The team number of a resolved player: the pawn's `m_iTeamNum`, else
/// the controller's.
pub fn team_of(state: &DemoState, paths: &mut Paths, p: &PlayerEnts<'_>) -> Option<i64> {
    p.pawn
        .and_then(|e| paths.value(state, e, "m_iTeamNum"))
        .or_else(|| {
            p.controller
                .and_then(|e| paths.value(state, e, "m_iTeamNum"))
        })
        .and_then(Value::as_i64)
}

/// Reads a player prop of a resolved player. An unresolved player (no
/// controller and no pawn) gets null, game-wide props included, as in
/// demoparser2.
pub fn player_value(
    state: &DemoState,
    paths: &mut Paths,
    world: &World<'_>,
    p: &PlayerEnts<'_>,
    source: &PlayerSource,
) -> Cell {
    if p.controller.is_none() && p.pawn.is_none() {
        return Cell::Null;
    }
    match source {
        PlayerSource::Entity(s) => player_prop(state, paths, p, s),
        PlayerSource::Team(path) => team_of(state, paths, p)
            .and_then(|n| world.team(n))
            .and_then(|e| paths.value(state, e, path))
            .map(cell_of)
            .unwrap_or(Cell::Null),
        PlayerSource::World(s) => other_prop_in(state, paths, world, s),
    }
}

/// Friendly player props this crate maps itself: the match stats live
/// directly under `m_pActionTrackingServices` in CS2 send tables (there is
/// no `m_matchStats` level), so `gamewire_source2::cs2::FRIENDLY_PROPS`'
/// paths for them do not resolve.
pub const MATCH_STAT_PROPS: &[(&str, &str)] = &[
    (
        "kills_total",
        "CCSPlayerController.m_pActionTrackingServices.m_iKills",
    ),
    (
        "deaths_total",
        "CCSPlayerController.m_pActionTrackingServices.m_iDeaths",
    ),
    (
        "assists_total",
        "CCSPlayerController.m_pActionTrackingServices.m_iAssists",
    ),
    (
        "damage_total",
        "CCSPlayerController.m_pActionTrackingServices.m_iDamage",
    ),
    (
        "headshot_kills_total",
        "CCSPlayerController.m_pActionTrackingServices.m_iHeadShotKills",
    ),
    (
        "utility_damage_total",
        "CCSPlayerController.m_pActionTrackingServices.m_iUtilityDamage",
    ),
    (
        "enemies_flashed_total",
        "CCSPlayerController.m_pActionTrackingServices.m_iEnemiesFlashed",
    ),
    (
        "equipment_value_total",
        "CCSPlayerController.m_pActionTrackingServices.m_iEquipmentValue",
    ),
    (
        "money_saved_total",
        "CCSPlayerController.m_pActionTrackingServices.m_iMoneySaved",
    ),
    (
        "alive_time_total",
        "CCSPlayerController.m_pActionTrackingServices.m_iLiveTime",
    ),
];

/// The name to hand to `prop_source`: the raw path for the match-stat
/// props, the name itself otherwise.
pub fn player_prop_path(name: &str) -> &str {
    MATCH_STAT_PROPS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, p)| *p)
        .unwrap_or(name)
}

/// Every friendly player prop name: pawn and controller props, team props
/// and game-wide props (which player rows repeat).
pub fn player_prop_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = FRIENDLY_PROPS.iter().map(|(n, _)| *n).collect();
    for (n, _) in MATCH_STAT_PROPS.iter().chain(TEAM_PROPS).chain(RULES_PROPS) {
        if !v.contains(n) {
            v.push(n);
        }
    }
    v.push("game_time");
    v
}

/// Whether a dotted path resolves on a class's serializer; true when the
/// demo has no send tables or no such class (not CS2: values are null).
fn resolves_on(state: &DemoState, class: &str, path: &str) -> bool {
    let Some(tables) = state.send_tables.as_ref() else {
        return true;
    };
    match tables.by_name(class) {
        Some(s) => resolve_prop(tables, s, path).is_some(),
        None => true,
    }
}

/// Whether a player prop name is known: friendly, or a raw path that
/// resolves on the pawn, controller, team or rules serializer. Demos
/// without those serializers (not CS2) accept every name (values are null).
pub fn player_prop_known(state: &DemoState, name: &str) -> bool {
    let entity = match player_source(name) {
        PlayerSource::Team(p) => return resolves_on(state, "CCSTeam", &p),
        PlayerSource::World(s) => return other_source_known(state, &s),
        PlayerSource::Entity(s) => s,
    };
    let name = player_prop_path(name);
    if FRIENDLY_PROPS.iter().any(|(n, _)| *n == name) {
        return true;
    }
    let Some(tables) = state.send_tables.as_ref() else {
        return true;
    };
    let (Some(pawn), Some(controller)) = (
        tables.by_name("CCSPlayerPawn"),
        tables.by_name("CCSPlayerController"),
    ) else {
        return true;
    };
    match entity {
        PropSource::Raw(Owner::Pawn, p) | PropSource::Element(Owner::Pawn, p, _) => {
            resolve_prop(tables, pawn, &p).is_some()
                || resolve_prop(tables, controller, &p).is_some()
        }
        PropSource::Raw(Owner::Controller, p) | PropSource::Element(Owner::Controller, p, _) => {
            resolve_prop(tables, controller, &p).is_some()
        }
        PropSource::Position(_) | PropSource::IsAlive => true,
    }
}

fn other_source_known(state: &DemoState, source: &OtherSource) -> bool {
    match source {
        OtherSource::GameTime => true,
        OtherSource::Rules(path) => resolves_on(state, "CCSGameRulesProxy", path),
        OtherSource::Team(_, path) => resolves_on(state, "CCSTeam", path),
    }
}

/// Whether a game-wide prop name is known (raw rules and team paths must
/// resolve on the proxy's or the team's serializer when the demo has one).
pub fn other_prop_known(state: &DemoState, name: &str) -> bool {
    match other_columns(name) {
        None => false,
        Some(cols) => cols.iter().all(|(_, s)| other_source_known(state, s)),
    }
}

/// Up to five names closest to `want` (edit distance, then name).
pub fn closest(want: &str, names: &[&str]) -> Vec<String> {
    fn distance(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.to_lowercase().chars().collect();
        let b: Vec<char> = b.to_lowercase().chars().collect();
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.iter().enumerate() {
            let mut cur = vec![i + 1; b.len() + 1];
            for (j, cb) in b.iter().enumerate() {
                let sub = prev[j] + usize::from(ca != cb);
                let del = prev[j + 1] + 1;
                let ins = cur[j] + 1;
                cur[j + 1] = sub.min(del).min(ins);
            }
            prev = cur;
        }
        prev[b.len()]
    }
    let mut scored: Vec<(usize, &str)> = names.iter().map(|n| (distance(want, n), *n)).collect();
    scored.sort();
    scored.dedup();
    scored
        .into_iter()
        .take(5)
        .map(|(_, n)| n.to_string())
        .collect()
}
