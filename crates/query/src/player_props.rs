//! Reading player props: the value a [`PropSource`] names, off a player's
//! pawn, controller or active weapon, or computed (weapon name, inventory,
//! spotted-by list, per-round stats, velocity from the previous row).
//! [`read_player_prop`] reads one by name; the `ticks` collector
//! interns the names once (`SourceIds`).

use crate::coords::{coord_from_cell_in, CELL_PROPS, OFFSET_PROPS};
use crate::friendly_props::*;
use crate::item_names::{agent_name, item_name};
use crate::players::PlayerRef;
use crate::prop_paths::{PropCache, PropId};
use crate::table::Cell;
use gamewire_source2::entity::EntityList;
use gamewire_source2::{DemoState, Entity, FieldPath, Value};

/// Index bits of an entity handle.
const HANDLE_INDEX_MASK: u64 = 0x3FFF;

/// The entity a handle points at (`None` for the null handle).
pub fn entity_of_handle(entities: &EntityList, raw: u64) -> Option<&Entity> {
    let index = raw & HANDLE_INDEX_MASK;
    if index == HANDLE_INDEX_MASK {
        return None;
    }
    entities.get(index as i32)
}

/// The weapon a pawn holds (its `m_pWeaponServices.m_hActiveWeapon`).
pub fn active_weapon<'s>(
    state: &'s DemoState,
    cache: &mut PropCache,
    pawn: &Entity,
) -> Option<&'s Entity> {
    cache
        .value(state, pawn, ACTIVE_WEAPON_PROP)
        .and_then(Value::as_u64)
        .and_then(|h| entity_of_handle(&state.entities, h))
}

/// Item definition index of the flashbang, whose count the inventory shows.
const FLASHBANG_ITEM: u64 = 43;
/// Item definition index of the C4.
const C4_ITEM: u64 = 49;
/// The `m_iAmmo` slot of flashbangs.
const FLASHBANG_AMMO_SLOT: &str = "m_pWeaponServices.m_iAmmo.14";

/// See [`Computed::Inventory`]: the item definition indices (of items
/// with a known name).
fn inventory(state: &DemoState, cache: &mut PropCache, pawn: &Entity) -> Vec<u64> {
    let alive = cache
        .value(state, pawn, "m_lifeState")
        .and_then(Value::as_i64)
        == Some(0);
    // The vector's path, resolved once per serializer; its elements are
    // that path plus an index.
    let list_id = cache.id("m_pWeaponServices.m_hMyWeapons");
    let Some(list) = cache.path(state, pawn, list_id).filter(|_| alive) else {
        return Vec::new();
    };
    let len = pawn.get(&list).and_then(Value::as_u64).unwrap_or(0);
    let mut seen: Vec<i32> = Vec::new();
    let mut names = Vec::new();
    let mut element: Vec<i32> = list.as_slice().to_vec();
    element.push(0);
    for i in 0..len.min(gamewire_source2::serializer::MAX_ARRAY_LEN as u64) {
        if let Some(last) = element.last_mut() {
            *last = i as i32;
        }
        let weapon = pawn
            .get(&FieldPath::from_slice(&element))
            .and_then(Value::as_u64)
            .and_then(|h| entity_of_handle(&state.entities, h));
        let Some(weapon) = weapon.filter(|w| !seen.contains(&w.index)) else {
            continue;
        };
        seen.push(weapon.index);
        let Some(index) = cache
            .value(state, weapon, "m_iItemDefinitionIndex")
            .and_then(Value::as_u64)
        else {
            continue;
        };
        if item_name(index).is_none() {
            continue;
        }
        if index == C4_ITEM {
            let owner = cache
                .value(state, weapon, "m_hOwnerEntity")
                .and_then(Value::as_u64)
                .and_then(|h| entity_of_handle(&state.entities, h));
            if owner.map(|o| o.index) != Some(pawn.index) {
                continue;
            }
        }
        if index == FLASHBANG_ITEM
            && cache
                .value(state, pawn, FLASHBANG_AMMO_SLOT)
                .and_then(Value::as_i64)
                == Some(2)
        {
            names.push(index);
        }
        names.push(index);
    }
    names
}

/// The two words of a pawn's `m_bSpottedByMask` (slots 0-31, 32-63).
const SPOTTED_BY_MASK: [&str; 2] = ["m_bSpottedByMask.0", "m_bSpottedByMask.1"];

/// See [`Computed::SpottedBy`].
fn spotted_by(state: &DemoState, cache: &mut PropCache, pawn: &Entity) -> Vec<u64> {
    let mut out = Vec::new();
    for (word, name) in (0u32..).zip(SPOTTED_BY_MASK) {
        let Some(mask) = cache.value(state, pawn, name).and_then(Value::as_u64) else {
            continue;
        };
        for bit in 0..32 {
            if mask & (1 << bit) == 0 {
                continue;
            }
            let controller = state.entities.get((word * 32 + bit + 1) as i32);
            if let Some(c) = controller {
                let steamid = cache
                    .value(state, c, "m_steamID")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                out.push(steamid);
            }
        }
    }
    out
}

/// Teammate color names by `m_iCompTeammateColor`.
const PLAYER_COLORS: [&str; 5] = ["blue", "green", "yellow", "orange", "purple"];

/// A [`Computed`] prop of a player's pawn and controller.
pub fn computed_cell(
    state: &DemoState,
    cache: &mut PropCache,
    pawn: Option<&Entity>,
    controller: Option<&Entity>,
    which: Computed,
) -> Cell {
    let weapon = |cache: &mut PropCache| pawn.and_then(|p| active_weapon(state, cache, p));
    let cell = match which {
        Computed::Airborne => pawn
            .and_then(|p| cache.value(state, p, "m_hGroundEntity"))
            .and_then(Value::as_u64)
            .map(|h| Cell::Bool(h == AIRBORNE_GROUND_HANDLE)),
        Computed::EntityId => pawn.map(|p| Cell::Int(i64::from(p.index))),
        Computed::UserId => {
            let steamid = controller
                .and_then(|c| cache.value(state, c, "m_steamID"))
                .and_then(Value::as_u64);
            steamid.and_then(|s| {
                state
                    .players
                    .values()
                    .find(|p| p.steamid == s)
                    .map(|p| Cell::Int(i64::from(p.userid)))
            })
        }
        Computed::WeaponName => weapon(cache)
            .and_then(|w| cache.value(state, w, "m_iItemDefinitionIndex"))
            .and_then(Value::as_u64)
            .and_then(item_name)
            .map(|n| Cell::Str(n.to_string())),
        Computed::WeaponOriginalOwner => weapon(cache).and_then(|w| {
            let low = cache
                .value(state, w, "m_OriginalOwnerXuidLow")
                .and_then(Value::as_u64)?;
            let high = cache
                .value(state, w, "m_OriginalOwnerXuidHigh")
                .and_then(Value::as_u64)?;
            Some(Cell::Str(((high << 32) | (low & 0xFFFF_FFFF)).to_string()))
        }),
        Computed::Inventory => pawn.map(|p| {
            let names = inventory(state, cache, p).into_iter().filter_map(item_name);
            Cell::Strs(names.map(str::to_string).collect())
        }),
        Computed::InventoryIds => pawn.map(|p| Cell::UInts(inventory(state, cache, p))),
        Computed::InventoryBitmask => pawn.map(|p| {
            let items = inventory(state, cache, p).into_iter();
            Cell::UInt(items.filter(|&i| i < 64).fold(0, |mask, i| mask | (1 << i)))
        }),
        Computed::SpottedBy => pawn.map(|p| Cell::UInts(spotted_by(state, cache, p))),
        Computed::AgentSkin => controller
            .and_then(|c| cache.value(state, c, "m_nPawnCharacterDefIndex"))
            .and_then(Value::as_u64)
            .and_then(agent_name)
            .map(|n| Cell::Str(n.to_string())),
        Computed::RoundStat(k) => controller.and_then(|c| {
            let field = ROUND_STAT_FIELDS.get(usize::from(k))?;
            let rules = cache.rules_entity(state)?;
            let round = cache
                .value(state, rules, ROUNDS_PLAYED_PROP)
                .and_then(Value::as_u64)?;
            let name = format!("{ROUND_STATS_PROP}.{round:04}.{field}");
            cache.value(state, c, &name).map(Cell::from_value)
        }),
        Computed::PlayerColor => controller
            .and_then(|c| cache.value(state, c, "m_iCompTeammateColor"))
            .and_then(Value::as_i64)
            .map(|v| {
                let name = usize::try_from(v).ok().and_then(|i| PLAYER_COLORS.get(i));
                Cell::Str(name.map_or_else(|| v.to_string(), |n| (*n).to_string()))
            }),
    };
    cell.unwrap_or(Cell::Null)
}

/// Reads a player prop of a pawn and controller, by name (each name
/// hashed once per call: for tables built per event or per row; the
/// per-tick `ticks` collector interns its names instead). A raw pawn prop
/// the pawn does not have is read from the controller. [`PropSource::Velocity`]
/// needs the player's previous row and reads as null here.
pub fn read_player_prop(
    state: &DemoState,
    cache: &mut PropCache,
    pawn: Option<&Entity>,
    controller: Option<&Entity>,
    source: &PropSource,
) -> Cell {
    let ids = SourceIds::new(source, cache);
    read_with_ids(state, cache, pawn, controller, ids)
}

/// A [`PropSource`] with its prop names interned.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SourceIds {
    Raw(Owner, PropId),
    Element(Owner, PropId, usize),
    Position {
        cell: PropId,
        offset: PropId,
    },
    IsAlive(PropId),
    /// A prop of the active weapon: the pawn's weapon handle, then the prop.
    Weapon {
        handle: PropId,
        prop: PropId,
    },
    Button {
        mask: PropId,
        bit: u64,
    },
    Computed(Computed),
    Velocity(Option<usize>),
    UserCommand(UserCommandField),
    /// A prop of the player's team entity: index into the collector's team
    /// paths.
    Team(usize),
    /// A game-wide prop: index into the collector's game-wide sources.
    World(usize),
    Missing,
}

impl SourceIds {
    pub(crate) fn new(source: &PropSource, cache: &mut PropCache) -> SourceIds {
        match source {
            PropSource::Raw(Owner::ActiveWeapon, name) => SourceIds::Weapon {
                handle: cache.id(ACTIVE_WEAPON_PROP),
                prop: cache.id(name),
            },
            PropSource::Raw(owner, name) => SourceIds::Raw(*owner, cache.id(name)),
            PropSource::Element(owner, name, i) => SourceIds::Element(*owner, cache.id(name), *i),
            PropSource::Position(axis) => match (CELL_PROPS.get(*axis), OFFSET_PROPS.get(*axis)) {
                (Some(c), Some(o)) => SourceIds::Position {
                    cell: cache.id(c),
                    offset: cache.id(o),
                },
                _ => SourceIds::Missing,
            },
            PropSource::IsAlive => SourceIds::IsAlive(cache.id("m_lifeState")),
            PropSource::Button(bit) => SourceIds::Button {
                mask: cache.id(BUTTONS_PROP),
                bit: *bit,
            },
            PropSource::Computed(c) => SourceIds::Computed(*c),
            PropSource::Velocity(axis) => SourceIds::Velocity(*axis),
            PropSource::UserCommand(f) => SourceIds::UserCommand(*f),
        }
    }
}

pub(crate) fn read_prop(
    state: &DemoState,
    cache: &mut PropCache,
    player: &PlayerRef,
    source: SourceIds,
) -> Cell {
    let pawn = state.entities.get(player.pawn);
    let controller = state.entities.get(player.controller);
    read_with_ids(state, cache, pawn, controller, source)
}

fn read_with_ids(
    state: &DemoState,
    cache: &mut PropCache,
    pawn: Option<&Entity>,
    controller: Option<&Entity>,
    source: SourceIds,
) -> Cell {
    let on = |owner: Owner| match owner {
        Owner::Pawn => pawn,
        Owner::Controller => controller,
        Owner::ActiveWeapon => None,
    };
    match source {
        SourceIds::Weapon { handle, prop } => {
            let weapon = pawn
                .and_then(|p| cache.get(state, p, handle))
                .and_then(Value::as_u64)
                .and_then(|h| entity_of_handle(&state.entities, h));
            weapon
                .and_then(|w| cache.get(state, w, prop))
                .map(Cell::from_value)
                .unwrap_or(Cell::Null)
        }
        SourceIds::Button { mask, bit } => pawn
            .and_then(|p| cache.get(state, p, mask))
            .and_then(Value::as_u64)
            .map(|m| Cell::Bool(m & bit != 0))
            .unwrap_or(Cell::Null),
        SourceIds::Computed(c) => computed_cell(state, cache, pawn, controller, c),
        SourceIds::UserCommand(f) => pawn
            .and_then(|p| state.user_command_of(p))
            .map(|cmd| f.cell(cmd))
            .unwrap_or(Cell::Null),
        // Filled in by the collector, which knows the previous row and the
        // team and game-wide entities.
        SourceIds::Velocity(_) | SourceIds::Team(_) | SourceIds::World(_) => Cell::Null,
        SourceIds::Raw(owner, id) => {
            let primary = on(owner).and_then(|e| cache.get(state, e, id));
            let value = match primary {
                Some(v) => Some(v),
                None if owner == Owner::Pawn => controller.and_then(|e| cache.get(state, e, id)),
                None => None,
            };
            match value {
                Some(v) => Cell::from_value(v),
                None => Cell::Null,
            }
        }
        SourceIds::Element(owner, id, i) => on(owner)
            .and_then(|e| cache.get(state, e, id))
            .and_then(|v| v.as_floats().and_then(|f| f.get(i).copied()))
            .map(Cell::Float)
            .unwrap_or(Cell::Null),
        SourceIds::Position { cell, offset } => {
            let Some(p) = pawn else { return Cell::Null };
            let cell = cache.get(state, p, cell).and_then(Value::as_u64);
            let off = cache.get(state, p, offset).and_then(Value::as_f32);
            match (cell, off) {
                (Some(c), Some(o)) => Cell::Float(coord_from_cell_in(state.game, c, o)),
                _ => Cell::Null,
            }
        }
        SourceIds::IsAlive(id) => {
            let v = pawn
                .and_then(|e| cache.get(state, e, id))
                .and_then(Value::as_i64);
            Cell::Bool(v == Some(0))
        }
        SourceIds::Missing => Cell::Null,
    }
}

/// A velocity cell from a player's position on this row and on its
/// previous row (demoparser2's arithmetic: `current × rate − previous ×
/// rate` in `f32`; the horizontal speed is the length of the X and Y
/// velocities). Null without both positions.
pub fn velocity_cell(
    position: Option<[f32; 3]>,
    previous: Option<[f32; 3]>,
    axis: Option<usize>,
    rate: f32,
) -> Cell {
    let (Some(cur), Some(prev)) = (position, previous) else {
        return Cell::Null;
    };
    let v = |i: usize| match (cur.get(i), prev.get(i)) {
        (Some(c), Some(p)) => Some(c * rate - p * rate),
        _ => None,
    };
    let value = match axis {
        Some(i) => v(i),
        None => match (v(0), v(1)) {
            (Some(x), Some(y)) => Some((x * x + y * y).sqrt()),
            _ => None,
        },
    };
    value.map(Cell::Float).unwrap_or(Cell::Null)
}

/// The tick rate velocities are scaled by: `1 / tick_interval` (64 in CS2).
pub fn tick_rate(state: &DemoState) -> f32 {
    if state.tick_interval > 0.0 {
        1.0 / state.tick_interval
    } else {
        64.0
    }
}

/// The world position of an entity from its body component's cells and
/// offsets ([`CELL_PROPS`], [`OFFSET_PROPS`]), in its game's
/// cells ([`coord_from_cell_in`]).
pub fn entity_position(state: &DemoState, cache: &mut PropCache, e: &Entity) -> Option<[f32; 3]> {
    let ids = position_ids(cache);
    position_with_ids(state, cache, e, &ids)
}

/// The interned cell and offset props of the three axes.
pub(crate) fn position_ids(cache: &mut PropCache) -> [(PropId, PropId); 3] {
    [0, 1, 2].map(|axis| (cache.id(CELL_PROPS[axis]), cache.id(OFFSET_PROPS[axis])))
}

/// The world position of a pawn from interned cell and offset props.
pub(crate) fn position_with_ids(
    state: &DemoState,
    cache: &mut PropCache,
    pawn: &Entity,
    ids: &[(PropId, PropId); 3],
) -> Option<[f32; 3]> {
    let mut out = [0.0f32; 3];
    for (&(cell, offset), slot) in ids.iter().zip(out.iter_mut()) {
        let c = cache.get(state, pawn, cell).and_then(Value::as_u64)?;
        let o = cache.get(state, pawn, offset).and_then(Value::as_f32)?;
        *slot = coord_from_cell_in(state.game, c, o);
    }
    Some(out)
}

/// The team number of a player: the pawn's `m_iTeamNum`, else the
/// controller's.
pub fn team_number(
    state: &DemoState,
    cache: &mut PropCache,
    pawn: Option<&Entity>,
    controller: Option<&Entity>,
) -> Option<i64> {
    pawn.and_then(|e| cache.value(state, e, "m_iTeamNum"))
        .or_else(|| controller.and_then(|e| cache.value(state, e, "m_iTeamNum")))
        .and_then(Value::as_i64)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn velocity_is_the_position_change_times_the_tick_rate() {
        let prev = Some([100.0, 200.0, 0.0]);
        let cur = Some([103.0, 196.0, 0.5]);
        assert_eq!(velocity_cell(cur, prev, Some(0), 64.0), Cell::Float(192.0));
        assert_eq!(velocity_cell(cur, prev, Some(1), 64.0), Cell::Float(-256.0));
        assert_eq!(velocity_cell(cur, prev, Some(2), 64.0), Cell::Float(32.0));
        // Horizontal speed: the length of (192, -256).
        assert_eq!(velocity_cell(cur, prev, None, 64.0), Cell::Float(320.0));
        // A player's first row, or a row without a position: null.
        assert_eq!(velocity_cell(cur, None, None, 64.0), Cell::Null);
        assert_eq!(velocity_cell(None, prev, Some(0), 64.0), Cell::Null);
        assert_eq!(velocity_cell(cur, prev, Some(3), 64.0), Cell::Null);
    }
}
