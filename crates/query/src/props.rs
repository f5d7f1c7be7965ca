//! Reading props off entities: cached field paths, player resolution from
//! event keys, player props and game-rules props.

use gamewire_source2::cs2::{coord_from_cell, prop_source, resolve_prop, Cell, PropSource};
use gamewire_source2::cs2::{Owner, FRIENDLY_PROPS};
use gamewire_source2::gameevent::{EventValue, GameEvent};
use gamewire_source2::serializer::SerializerId;
use gamewire_source2::{DemoState, Entity, FieldPath, Value};
use rustc_hash::FxHashMap;

/// Index bits of a networked handle.
const HANDLE_INDEX_MASK: u64 = 0x3FFF;

/// Field-path keys of dotted prop names, cached per serializer.
#[derive(Debug, Default)]
pub struct Paths {
    by_serializer: FxHashMap<SerializerId, FxHashMap<String, Option<FieldPath>>>,
}

impl Paths {
    /// The value of a dotted prop on an entity.
    pub fn value<'e>(
        &mut self,
        state: &DemoState,
        entity: &'e Entity,
        name: &str,
    ) -> Option<&'e Value> {
        let tables = state.send_tables.as_ref()?;
        let per = self.by_serializer.entry(entity.serializer).or_default();
        let key = match per.get(name) {
            Some(k) => *k,
            None => {
                let k = resolve_prop(tables, entity.serializer, name);
                per.insert(name.to_string(), k);
                k
            }
        };
        entity.get(&key?)
    }
}

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

/// The player an event key refers to: the slot key, or its `_pawn` handle.
pub fn event_player<'s>(
    state: &'s DemoState,
    paths: &mut Paths,
    ev: &GameEvent,
    key: &str,
) -> Option<PlayerEnts<'s>> {
    if let Some(v) = ev.get(key).and_then(EventValue::as_i64) {
        return Some(player_by_slot(state, paths, v));
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
    const CELLS: [&str; 3] = [
        "CBodyComponent.m_cellX",
        "CBodyComponent.m_cellY",
        "CBodyComponent.m_cellZ",
    ];
    const OFFSETS: [&str; 3] = [
        "CBodyComponent.m_vecX",
        "CBodyComponent.m_vecY",
        "CBodyComponent.m_vecZ",
    ];
    let mut out = [0.0f32; 3];
    for ((c, o), slot) in CELLS.iter().zip(OFFSETS).zip(out.iter_mut()) {
        let cell = paths.value(state, e, c).and_then(Value::as_u64)?;
        let off = paths.value(state, e, o).and_then(Value::as_f32)?;
        *slot = coord_from_cell(cell, off);
    }
    Some(out)
}

/// Game-wide props by friendly name: the `CCSGameRules` behind the
/// `CCSGameRulesProxy` entity (`m_pGameRules`).
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
];

/// How a game-wide prop is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OtherSource {
    /// A dotted path on the `CCSGameRulesProxy` entity.
    Rules(String),
    /// `net_tick × tick_interval` (seconds).
    GameTime,
}

/// Resolves a game-wide prop: a friendly name, `game_time`, or a raw
/// `CCSGameRulesProxy.<path>`; `None` when unknown.
pub fn other_source(name: &str) -> Option<OtherSource> {
    if name == "game_time" {
        return Some(OtherSource::GameTime);
    }
    if let Some((_, path)) = RULES_PROPS.iter().find(|(n, _)| *n == name) {
        return Some(OtherSource::Rules((*path).to_string()));
    }
    name.strip_prefix("CCSGameRulesProxy.")
        .map(|p| OtherSource::Rules(p.to_string()))
}

/// Every game-wide prop name.
pub fn other_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = RULES_PROPS.iter().map(|(n, _)| *n).collect();
    v.push("game_time");
    v
}

/// Reads a game-wide prop.
pub fn other_prop(state: &DemoState, paths: &mut Paths, source: &OtherSource) -> Cell {
    match source {
        OtherSource::GameTime => Cell::Float(state.net_tick as f32 * state.tick_interval),
        OtherSource::Rules(path) => state
            .entities
            .iter()
            .find(|e| state.class_name(e) == "CCSGameRulesProxy")
            .and_then(|e| paths.value(state, e, path))
            .map(cell_of)
            .unwrap_or(Cell::Null),
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

/// Every friendly player prop name.
pub fn player_prop_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = FRIENDLY_PROPS.iter().map(|(n, _)| *n).collect();
    for (n, _) in MATCH_STAT_PROPS {
        if !v.contains(n) {
            v.push(n);
        }
    }
    v
}

/// Whether a player prop name is known: friendly, or a raw path that
/// resolves on the pawn or controller serializer. Demos without those
/// serializers (not CS2) accept every name (values are null).
pub fn player_prop_known(state: &DemoState, name: &str) -> bool {
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
    match prop_source(name) {
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

/// Whether a game-wide prop name is known (raw rules paths must resolve on
/// the proxy's serializer when the demo has one).
pub fn other_prop_known(state: &DemoState, name: &str) -> bool {
    match other_source(name) {
        None => false,
        Some(OtherSource::GameTime) => true,
        Some(OtherSource::Rules(path)) => {
            let Some(tables) = state.send_tables.as_ref() else {
                return true;
            };
            match tables.by_name("CCSGameRulesProxy") {
                Some(s) => resolve_prop(tables, s, &path).is_some(),
                None => true,
            }
        }
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
