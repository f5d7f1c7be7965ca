//! The players a game event names: its player keys (`userid`,
//! `attacker`, ... as a slot, a pawn handle or an entity index, as
//! demoparser2 reads them, LaihoE/demoparser) resolved to a controller and
//! pawn ([`PlayerEnts`]), their name and steam id, and their props.

use crate::friendly_props::PropSource;
use crate::player_props::{read_player_prop, team_number};
use crate::players::player_classes;
use crate::prop_paths::PropCache;
use crate::table::Cell;
use crate::world::{other_prop_in, PlayerSource, World};
use gamewire_source2::{DemoState, Entity, EventValue, GameEvent, Value};

/// Index bits of a networked handle.
const HANDLE_INDEX_MASK: u64 = 0x3FFF;

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
    paths: &mut PropCache,
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

/// The pawn of a controller: CS2's `m_hPlayerPawn`, Deadlock's
/// `m_hHeroPawn`, Dota 2's `m_hAssignedHero`.
pub fn pawn_of<'s>(state: &'s DemoState, paths: &mut PropCache, c: &Entity) -> Option<&'s Entity> {
    let handle = player_classes(state.game).pawn_handle;
    let raw = paths.value(state, c, handle)?.as_u64()?;
    let index = raw & HANDLE_INDEX_MASK;
    if index == HANDLE_INDEX_MASK {
        return None;
    }
    state.entities.get(index as i32)
}

/// The player of a controller slot (event key types 9 and the integer
/// `userid`/`attacker`/`assister` keys): controller entity = slot + 1.
pub fn player_by_slot<'s>(state: &'s DemoState, paths: &mut PropCache, v: i64) -> PlayerEnts<'s> {
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
pub fn player_by_pawn<'s>(state: &'s DemoState, paths: &mut PropCache, raw: i64) -> PlayerEnts<'s> {
    let index = (raw as u64) & HANDLE_INDEX_MASK;
    if raw < 0 || index == HANDLE_INDEX_MASK {
        return PlayerEnts::default();
    }
    let pawn = state.entities.get(index as i32);
    let handle = player_classes(state.game).pawn_handle;
    let controller = state.entities.iter().find(|e| {
        state.class_name(e).ends_with("PlayerController")
            && paths
                .value(state, e, handle)
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
pub fn player_by_handle<'s>(
    state: &'s DemoState,
    paths: &mut PropCache,
    raw: u64,
) -> PlayerEnts<'s> {
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
pub fn owner_of<'s>(state: &'s DemoState, paths: &mut PropCache, index: i64) -> PlayerEnts<'s> {
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
    paths: &mut PropCache,
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

/// Reads a player prop (friendly or raw) of a resolved player ([`read_player_prop`]; velocity, which needs the player's
/// previous row, is filled in by the ticks collector and null elsewhere).
pub fn player_prop(
    state: &DemoState,
    paths: &mut PropCache,
    p: &PlayerEnts<'_>,
    source: &PropSource,
) -> Cell {
    read_player_prop(state, paths, p.pawn, p.controller, source)
}

/// The team number of a resolved player: the pawn's `m_iTeamNum`, else
/// the controller's.
pub fn team_of(state: &DemoState, paths: &mut PropCache, p: &PlayerEnts<'_>) -> Option<i64> {
    team_number(state, paths, p.pawn, p.controller)
}

/// Reads a player prop of a resolved player. An unresolved player (no
/// controller and no pawn) gets null, game-wide props included, as in
/// demoparser2.
pub fn player_value(
    state: &DemoState,
    paths: &mut PropCache,
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
            .map(Cell::from_value)
            .unwrap_or(Cell::Null),
        PlayerSource::World(s) => other_prop_in(state, paths, world, s),
    }
}
