//! CS2 specifics for analysts: the players of a state, the props people ask
//! for by name, and two collectors built on the [`crate::Visitor`] API.
//!
//! - this module: world positions from cells, prop names resolved to field
//!   paths ([`resolve_prop`], cached per serializer in [`PropCache`]), the
//!   players of a state ([`players`], [`PlayerFinder`]) and the cells and
//!   tables the collectors fill;
//! - [`props`]: the player props, demoparser2's names ([`FRIENDLY_PROPS`]) and
//!   how each is read: a pawn, controller or active-weapon field, a button
//!   bit, a computed value (weapon name, inventory, ...) or a velocity;
//! - [`world`]: the other props, game-wide (the game rules) and per team;
//! - [`collect`]: the collectors, [`TickCollector`] (per-player tick rows,
//!   `gamewire ticks`) and [`EventCollector`] (game-event rows,
//!   `gamewire events`).
//!
//! Prop names are dotted paths of variable names from the entity's
//! serializer: `m_iHealth`, `CBodyComponent.m_cellX`,
//! `m_pWeaponServices.m_hActiveWeapon`, array elements as `m_iAmmo.0003`.
//! A friendly name maps to one such path on the player pawn or controller
//! (table from LaihoE/demoparser's README and `prop_controller.rs`).

use crate::entity::Entity;
use crate::fieldpath::FieldPath;
use crate::gameevent::EventValue;
use crate::messages::Game;
use crate::parser::DemoState;
use crate::serializer::{FieldDecoder, FieldModel, SendTables, SerializerId};
use crate::value::Value;

/// Bits of a cell coordinate: cells are 512 units wide.
pub const CELL_BITS: u32 = 9;
/// Half the world size: `cell * 512 - 16384 + offset`.
pub const MAX_COORD: f64 = 16384.0;
/// Entity handle index mask demoparser2 applies to `m_hPlayerPawn`.
pub const PAWN_HANDLE_MASK: u32 = 0x7FF;

/// The body-component props of an entity's cell, per axis (X, Y, Z).
pub const CELL_PROPS: [&str; 3] = [
    "CBodyComponent.m_cellX",
    "CBodyComponent.m_cellY",
    "CBodyComponent.m_cellZ",
];
/// The body-component props of the offset inside the cell, per axis.
pub const OFFSET_PROPS: [&str; 3] = [
    "CBodyComponent.m_vecX",
    "CBodyComponent.m_vecY",
    "CBodyComponent.m_vecZ",
];

/// A world coordinate from a cell index and the offset inside the cell
/// (LaihoE/demoparser `coord_from_cell`, demoinfocs `coordFromCell`).
pub fn coord_from_cell(cell: u64, offset: f32) -> f32 {
    (cell as f64 * f64::from(1u32 << CELL_BITS) - MAX_COORD + f64::from(offset)) as f32
}

/// The width of a position cell in a game: 512 units in CS2 and Deadlock,
/// 128 in Dota 2 (`CELL_BASEENTITY_ORIGIN_CELL_BITS` 9 and 7; the offset
/// inside a cell spans two cells in each).
pub fn cell_width(game: Game) -> f64 {
    match game {
        Game::Dota2 => 128.0,
        Game::Cs2 | Game::Deadlock | Game::Any => f64::from(1u32 << CELL_BITS),
    }
}

/// [`coord_from_cell`] in a game: `cell × cell_width(game) − 16384 +
/// offset`. On the corpus: Deadlock heroes inside the game rules' minimap
/// bounds (±10752), Dota 2 towers at the map's (±7000).
pub fn coord_from_cell_in(game: Game, cell: u64, offset: f32) -> f32 {
    (cell as f64 * cell_width(game) - MAX_COORD + f64::from(offset)) as f32
}

pub mod collect;
pub mod props;
pub mod world;

pub use collect::{is_player_row_class, EventCollector, EventRow, TickCollector};
pub use props::{
    active_weapon, agent_name, computed_cell, entity_of_handle, entity_position, item_name,
    prop_source, read_player_prop, team_number, tick_rate, velocity_cell, Computed, Owner,
    PropSource, UserCommandField, ACTIVE_WEAPON_PROP, AGENT_NAMES, AIRBORNE_GROUND_HANDLE,
    BUTTONS_PROP, FRIENDLY_PROPS, GRENADE_PREFIX, ITEM_NAMES, PLAYER_CLASS_PREFIXES, WEAPON_PREFIX,
};
pub use world::{
    is_weapon_class, other_columns, other_names, other_prop, other_prop_in, other_source,
    player_source, weapon_serializers, OtherSource, PlayerSource, World, RULES_PROPS, TEAM_CT,
    TEAM_PROPS, TEAM_T,
};

/// The field of a serializer a part of a dotted prop name names, with its
/// position: the (last) field of that name, else the table field whose serializer
/// has that name (`CCSPlayer_MovementServices` for `m_pMovementServices`,
/// demoparser2's way of naming nested props; for a polymorphic pointer, any
/// of its types).
pub fn field_named<'t>(
    tables: &'t SendTables,
    ser: SerializerId,
    part: &str,
) -> Option<(usize, &'t crate::serializer::Field)> {
    let s = tables.serializer(ser)?;
    let fields = || {
        s.fields
            .iter()
            .enumerate()
            .filter_map(|(i, &f)| tables.fields.get(f as usize).map(|f| (i, f)))
    };
    // The last field of that name: CS2's pawn flattens `m_vecVelocity` and
    // then `m_vecViewOffset` into top-level `m_vecX`/`m_vecY`/`m_vecZ`, and
    // only the view offset is sent (demoparser2 reads the same one).
    fields()
        .rev()
        .find(|(_, f)| tables.symbol(f.name) == part)
        .or_else(|| {
            fields().find(|(_, f)| match &f.model {
                FieldModel::FixedTable { serializer, poly } => {
                    tables.serializer_name(*serializer) == part
                        || poly.iter().any(|&s| tables.serializer_name(s) == part)
                }
                FieldModel::VariableTable(serializer) => {
                    tables.serializer_name(*serializer) == part
                }
                _ => false,
            })
        })
}

/// The field path of a dotted prop name in a serializer (array elements as
/// numbers; tables by field or serializer name, see [`field_named`]);
/// `None` if it does not exist.
pub fn resolve_prop(tables: &SendTables, root: SerializerId, name: &str) -> Option<FieldPath> {
    resolve_prop_decoder(tables, root, name).map(|(path, _)| path)
}

/// [`resolve_prop`], with the decoder of the value the name reaches: a
/// value field, or an array element named with its index (`None` for an
/// array's length or a table). A name that goes on past a value or an
/// element does not resolve.
pub fn resolve_prop_decoder<'t>(
    tables: &'t SendTables,
    root: SerializerId,
    name: &str,
) -> Option<(FieldPath, Option<&'t FieldDecoder>)> {
    let mut indices: Vec<i32> = Vec::with_capacity(4);
    let mut decoder = None;
    let mut ser = root;
    let mut parts = name.split('.').peekable();
    while let Some(part) = parts.next() {
        let (pos, field) = field_named(tables, ser, part)?;
        indices.push(pos as i32);
        decoder = None;
        match &field.model {
            FieldModel::Value(d) => decoder = Some(d),
            FieldModel::FixedArray { element, .. } | FieldModel::VariableArray(element) => {
                if let Some(next) = parts.next() {
                    indices.push(next.parse().ok()?);
                    decoder = Some(element);
                }
            }
            // A polymorphic pointer named by one of its types reads that
            // type's fields (the entity is expected to hold that type).
            FieldModel::FixedTable { serializer, poly } => {
                ser = poly
                    .iter()
                    .copied()
                    .find(|&s| tables.serializer_name(s) == part)
                    .unwrap_or(*serializer);
            }
            FieldModel::VariableTable(s) => {
                indices.push(parts.next()?.parse().ok()?);
                ser = *s;
            }
        }
        if decoder.is_some() && parts.peek().is_some() {
            return None;
        }
    }
    (!indices.is_empty() && indices.len() <= 7).then(|| (FieldPath::from_slice(&indices), decoder))
}

/// A cell of an output table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Cell {
    /// Missing.
    Null,
    /// Boolean.
    Bool(bool),
    /// Signed integer.
    Int(i64),
    /// Unsigned integer (steam ids).
    UInt(u64),
    /// Float.
    Float(f32),
    /// Text.
    Str(String),
    /// Vector.
    Floats(Vec<f32>),
    /// A list of text (an inventory).
    Strs(Vec<String>),
    /// A list of unsigned integers (item indices, steam ids).
    UInts(Vec<u64>),
}

impl Cell {
    /// The cell for an entity value (vectors as float lists).
    pub fn from_value(v: &Value) -> Cell {
        match v {
            Value::Bool(b) => Cell::Bool(*b),
            Value::I32(x) => Cell::Int(i64::from(*x)),
            Value::I64(x) => Cell::Int(*x),
            Value::U32(x) => Cell::Int(i64::from(*x)),
            Value::U64(x) => Cell::UInt(*x),
            Value::F32(x) => Cell::Float(*x),
            Value::String(s) => Cell::Str(s.to_string()),
            other => match other.as_floats() {
                Some(f) => Cell::Floats(f.to_vec()),
                None => Cell::Str(other.to_string()),
            },
        }
    }

    /// The cell for a game-event value.
    pub fn from_event(v: &EventValue) -> Cell {
        match v {
            EventValue::String(s) => Cell::Str(s.clone()),
            EventValue::Float(f) => Cell::Float(*f),
            EventValue::Int(i) => Cell::Int(i64::from(*i)),
            EventValue::Bool(b) => Cell::Bool(*b),
            EventValue::U64(u) => Cell::UInt(*u),
        }
    }
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cell::Null => Ok(()),
            Cell::Bool(b) => write!(f, "{b}"),
            Cell::Int(i) => write!(f, "{i}"),
            Cell::UInt(u) => write!(f, "{u}"),
            Cell::Float(x) => write!(f, "{x}"),
            Cell::Str(s) => f.write_str(s),
            Cell::Floats(v) => {
                let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                write!(f, "[{}]", parts.join(" "))
            }
            // A JSON array: names may hold spaces (`C4 Explosive`).
            Cell::Strs(v) => f.write_str(&serde_json::to_string(v).map_err(|_| std::fmt::Error)?),
            Cell::UInts(v) => f.write_str(&serde_json::to_string(v).map_err(|_| std::fmt::Error)?),
        }
    }
}

/// A table: column names and rows.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Table {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows, one cell per column.
    pub rows: Vec<Vec<Cell>>,
}

/// A prop name interned in a [`PropCache`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PropId(u32);

/// Field paths of dotted prop names, resolved once per serializer.
///
/// A name is interned once ([`PropCache::id`]); reading a prop by id is two
/// vector lookups and the walk down the entity's state. Reading by name
/// ([`PropCache::value`]) hashes the name first, and allocates nothing once
/// the name is known. The cache follows the demo's send tables: when they
/// are replaced, the resolved paths are dropped.
#[derive(Debug, Default)]
pub struct PropCache {
    ids: rustc_hash::FxHashMap<Box<str>, PropId>,
    names: Vec<Box<str>>,
    /// `paths[serializer][prop]`: `None` until resolved, then the path if
    /// the serializer has the prop.
    paths: Vec<Vec<Option<Option<FieldPath>>>>,
    /// The send tables the paths were resolved against.
    tables: Option<std::sync::Arc<SendTables>>,
    /// The index of the game rules entity, as last found
    /// ([`PropCache::rules_entity`]).
    rules: Option<i32>,
}

/// The class of CS2's game rules entity.
pub(crate) const RULES_CLASS: &str = "CCSGameRulesProxy";

impl PropCache {
    /// The id of a prop name, interning it on first use.
    pub fn id(&mut self, name: &str) -> PropId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = PropId(self.names.len() as u32);
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }

    /// The value of an interned prop on an entity.
    #[inline]
    pub fn get<'e>(
        &mut self,
        state: &DemoState,
        entity: &'e Entity,
        id: PropId,
    ) -> Option<&'e Value> {
        let path = self.path(state, entity, id)?;
        entity.get(&path)
    }

    /// The field path of an interned prop in an entity's serializer
    /// (resolved once per serializer); `None` if it has no such prop.
    #[inline]
    pub fn path(&mut self, state: &DemoState, entity: &Entity, id: PropId) -> Option<FieldPath> {
        let tables = state.send_tables.as_ref()?;
        if !self
            .tables
            .as_ref()
            .is_some_and(|t| std::sync::Arc::ptr_eq(t, tables))
        {
            self.paths.clear();
            self.tables = Some(std::sync::Arc::clone(tables));
        }
        let ser = entity.serializer as usize;
        if self.paths.len() <= ser {
            self.paths.resize_with(ser + 1, Vec::new);
        }
        let row = self.paths.get_mut(ser)?;
        let prop = id.0 as usize;
        if row.len() <= prop {
            row.resize(self.names.len().max(prop + 1), None);
        }
        let slot = row.get_mut(prop)?;
        let path = match slot {
            Some(p) => *p,
            None => {
                let p = self
                    .names
                    .get(prop)
                    .and_then(|n| resolve_prop(tables, entity.serializer, n));
                *slot = Some(p);
                p
            }
        };
        path
    }

    /// The `CCSGameRulesProxy` entity of the current state (its index is
    /// remembered; found again when that entity is gone).
    pub fn rules_entity<'s>(&mut self, state: &'s DemoState) -> Option<&'s Entity> {
        if let Some(e) = self.rules.and_then(|i| state.entities.get(i)) {
            if state.class_name(e) == RULES_CLASS {
                return Some(e);
            }
        }
        let e = state
            .entities
            .iter()
            .find(|e| state.class_name(e) == RULES_CLASS)?;
        self.rules = Some(e.index);
        Some(e)
    }

    /// The value of a dotted prop on an entity.
    #[inline]
    pub fn value<'e>(
        &mut self,
        state: &DemoState,
        entity: &'e Entity,
        name: &str,
    ) -> Option<&'e Value> {
        let id = self.id(name);
        self.get(state, entity, id)
    }
}

/// A player as demoparser2 sees one: a controller with a pawn, a steam id
/// and a team other than spectator.
#[derive(Debug, Clone)]
pub struct PlayerRef {
    /// Controller entity index.
    pub controller: i32,
    /// Pawn entity index.
    pub pawn: i32,
    /// Name from the controller.
    pub name: String,
    /// Steam id from the controller.
    pub steamid: u64,
}

/// The players of the current state (demoparser2's rules: pawn handle valid,
/// steam id non-zero, team not spectator). For a call per tick, a
/// [`PlayerFinder`] does the same without searching the classes and every
/// entity each time.
pub fn players(state: &DemoState, cache: &mut PropCache) -> Vec<PlayerRef> {
    let mut ids = PlayerIds::new(cache);
    let mut out = Vec::new();
    players_into(state, cache, &mut ids, &mut out);
    out
}

/// [`players`] for repeated calls: remembers the controller class and the
/// controller entities (until the entity list's
/// [`generation`](crate::entity::EntityList::generation) changes), so a call
/// per tick reads only the controllers' props. Use it with the
/// [`PropCache`] it was made with.
#[derive(Debug, Clone)]
pub struct PlayerFinder {
    ids: PlayerIds,
    found: Vec<PlayerRef>,
}

impl PlayerFinder {
    /// A finder whose prop names are interned in `cache`.
    pub fn new(cache: &mut PropCache) -> Self {
        PlayerFinder {
            ids: PlayerIds::new(cache),
            found: Vec::new(),
        }
    }

    /// The players of the current state, as [`players`] selects them.
    pub fn find(&mut self, state: &DemoState, cache: &mut PropCache) -> &[PlayerRef] {
        players_into(state, cache, &mut self.ids, &mut self.found);
        &self.found
    }
}

/// How a game holds its players: the controller class, the controller's
/// handle of the entity that plays (the pawn, Deadlock's hero pawn, Dota 2's
/// hero) and the index bits of that handle (demoparser2 masks CS2's pawn
/// handle with `0x7FF`).
#[derive(Debug, Clone, Copy)]
struct PlayerClasses {
    controller: &'static str,
    pawn_handle: &'static str,
    handle_mask: u32,
}

/// The [`PlayerClasses`] of a game (CS2's for an unknown game).
fn player_classes(game: Game) -> PlayerClasses {
    match game {
        Game::Deadlock => PlayerClasses {
            controller: "CCitadelPlayerController",
            pawn_handle: "m_hHeroPawn",
            handle_mask: 0x3FFF,
        },
        Game::Dota2 => PlayerClasses {
            controller: "CDOTAPlayerController",
            pawn_handle: "m_hAssignedHero",
            handle_mask: 0x3FFF,
        },
        Game::Cs2 | Game::Any => PlayerClasses {
            controller: "CCSPlayerController",
            pawn_handle: "m_hPlayerPawn",
            handle_mask: PAWN_HANDLE_MASK,
        },
    }
}

/// The prop ids [`players`] reads.
#[derive(Debug, Clone)]
struct PlayerIds {
    /// The controller's handle of its pawn or hero, for the game the ids
    /// were last used with.
    pawn: PropId,
    pawn_game: Game,
    steamid: PropId,
    team: PropId,
    name: PropId,
    /// The controller class id last found.
    controller: Option<u32>,
    /// Indices of the controller entities, valid while the entity list's
    /// generation is `controllers_generation` (entities are created and
    /// deleted rarely; players are read every tick).
    controllers: Vec<i32>,
    controllers_generation: Option<(u64, u32)>,
}

impl PlayerIds {
    fn new(cache: &mut PropCache) -> PlayerIds {
        PlayerIds {
            pawn: cache.id(player_classes(Game::Cs2).pawn_handle),
            pawn_game: Game::Cs2,
            steamid: cache.id("m_steamID"),
            team: cache.id("m_iTeamNum"),
            name: cache.id("m_iszPlayerName"),
            controller: None,
            controllers: Vec::new(),
            controllers_generation: None,
        }
    }
}

/// The class id of the game's player controller class, if the demo has
/// one; `cached` is the id found last time, checked before the classes are
/// searched again.
fn controller_class(state: &DemoState, name: &str, cached: &mut Option<u32>) -> Option<u32> {
    if let Some(id) = *cached {
        if state
            .classes
            .get(id as usize)
            .is_some_and(|c| c.name == name)
        {
            return Some(id);
        }
    }
    *cached = state.classes.iter().find(|c| c.name == name).map(|c| c.id);
    *cached
}

fn players_into(
    state: &DemoState,
    cache: &mut PropCache,
    ids: &mut PlayerIds,
    out: &mut Vec<PlayerRef>,
) {
    let classes = player_classes(state.game);
    if ids.pawn_game != state.game {
        ids.pawn = cache.id(classes.pawn_handle);
        ids.pawn_game = state.game;
    }
    let Some(class) = controller_class(state, classes.controller, &mut ids.controller) else {
        out.clear();
        return;
    };
    let key = (state.entities.generation(), class);
    if ids.controllers_generation != Some(key) {
        ids.controllers.clear();
        ids.controllers.extend(
            state
                .entities
                .iter()
                .filter(|e| e.class_id == class)
                .map(|e| e.index),
        );
        ids.controllers_generation = Some(key);
    }
    let mut found = 0;
    for e in ids
        .controllers
        .iter()
        .filter_map(|&i| state.entities.get(i))
    {
        let mask = classes.handle_mask;
        let pawn_handle = cache
            .get(state, e, ids.pawn)
            .and_then(Value::as_u64)
            .unwrap_or(u64::from(mask));
        let pawn = (pawn_handle as u32) & mask;
        if pawn == mask {
            continue;
        }
        let steamid = cache
            .get(state, e, ids.steamid)
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let team = cache
            .get(state, e, ids.team)
            .and_then(Value::as_i64)
            .unwrap_or(0);
        if steamid == 0 || team == 1 {
            continue;
        }
        let name = cache
            .get(state, e, ids.name)
            .and_then(Value::as_str)
            .unwrap_or("");
        // Entries of the previous call are overwritten in place (their
        // name buffers reused), then the rest is cut.
        match out.get_mut(found) {
            Some(p) => {
                p.controller = e.index;
                p.pawn = pawn as i32;
                p.steamid = steamid;
                p.name.clear();
                p.name.push_str(name);
            }
            None => out.push(PlayerRef {
                controller: e.index,
                pawn: pawn as i32,
                name: name.to_string(),
                steamid,
            }),
        }
        found += 1;
    }
    out.truncate(found);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn item_names_are_sorted_for_the_lookup() {
        assert!(ITEM_NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        for &(i, name) in ITEM_NAMES {
            assert_eq!(item_name(u64::from(i)), Some(name));
        }
        assert_eq!(item_name(7), Some("AK-47"));
        assert_eq!(item_name(49), Some("C4 Explosive"));
        assert_eq!(item_name(6), None);
        assert_eq!(item_name(u64::MAX), None);
    }

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

    #[test]
    fn friendly_names_resolve_to_their_sources() {
        assert_eq!(prop_source("FORWARD"), PropSource::Button(1 << 3));
        assert_eq!(prop_source("INSPECT"), PropSource::Button(1 << 35));
        assert_eq!(prop_source("velocity"), PropSource::Velocity(None));
        assert_eq!(prop_source("velocity_Z"), PropSource::Velocity(Some(2)));
        assert_eq!(
            prop_source("active_weapon_name"),
            PropSource::Computed(Computed::WeaponName)
        );
        assert_eq!(
            prop_source("active_weapon_ammo"),
            PropSource::Raw(Owner::ActiveWeapon, "m_iClip1".into())
        );
        assert_eq!(
            prop_source("max_speed"),
            PropSource::Raw(
                Owner::Pawn,
                "CCSPlayer_MovementServices.m_flMaxspeed".into()
            )
        );
        assert_eq!(
            prop_source("music_kit_id"),
            PropSource::Raw(
                Owner::Controller,
                "CCSPlayerController_InventoryServices.m_unMusicID".into()
            )
        );
        // demoparser2's spelling of weapon and grenade props: the active
        // weapon's raw prop.
        assert_eq!(
            prop_source("Weapon.m_iClip1"),
            PropSource::Raw(Owner::ActiveWeapon, "m_iClip1".into())
        );
        assert_eq!(
            prop_source("Grenade.CBodyComponentBaseAnimGraph.m_vecZ"),
            PropSource::Raw(
                Owner::ActiveWeapon,
                "CBodyComponentBaseAnimGraph.m_vecZ".into()
            )
        );
        // The per-round stats, each its own field.
        assert_eq!(
            prop_source("kills_this_round"),
            PropSource::Computed(Computed::RoundStat(0))
        );
        assert_eq!(
            prop_source("cash_earned_this_round"),
            PropSource::Computed(Computed::RoundStat(
                (props::ROUND_STAT_FIELDS.len() - 1) as u8
            ))
        );
        // Every friendly name's spec parses to what its prefix says.
        for (name, spec) in FRIENDLY_PROPS {
            let want = match spec.split_once(':').map(|(k, _)| k) {
                Some("weapon") => {
                    matches!(prop_source(name), PropSource::Raw(Owner::ActiveWeapon, _))
                }
                Some("controller") => matches!(
                    prop_source(name),
                    PropSource::Raw(Owner::Controller, _)
                        | PropSource::Element(Owner::Controller, ..)
                ),
                Some("button") => matches!(prop_source(name), PropSource::Button(_)),
                Some("computed") => matches!(prop_source(name), PropSource::Computed(_)),
                Some("velocity") => matches!(prop_source(name), PropSource::Velocity(_)),
                _ => true,
            };
            assert!(want, "{name}: {spec}");
        }
        // Names are unique.
        let mut names: Vec<&str> = FRIENDLY_PROPS.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
    }

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
