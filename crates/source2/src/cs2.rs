//! CS2 specifics: world positions from cells, the friendly prop names that
//! analysts use (those of demoparser2), and two collectors built on the
//! [`Visitor`] API: per-player tick rows and game-event rows.
//!
//! Prop names are dotted paths of variable names from the entity's
//! serializer: `m_iHealth`, `CBodyComponent.m_cellX`,
//! `m_pWeaponServices.m_hActiveWeapon`, array elements as `m_iAmmo.0003`.
//! A friendly name maps to one such path on the player pawn or controller
//! (table from LaihoE/demoparser's README and `prop_controller.rs`).

use crate::entity::{Entity, EntityList};
use crate::fieldpath::FieldPath;
use crate::gameevent::{EventValue, GameEvent};
use crate::parser::{DemoState, Interests, Visitor};
use crate::serializer::{FieldModel, SendTables, SerializerId};
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

/// Which entity of a player a prop lives on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// `CCSPlayerPawn`.
    Pawn,
    /// `CCSPlayerController`.
    Controller,
}

/// How a friendly prop is computed.
#[derive(Debug, Clone, PartialEq)]
pub enum PropSource {
    /// A raw prop.
    Raw(Owner, String),
    /// Element `i` of a vector prop.
    Element(Owner, String, usize),
    /// World coordinate axis 0, 1 or 2 from the body component.
    Position(usize),
    /// `m_lifeState == 0`.
    IsAlive,
}

/// The friendly names and what they read.
pub const FRIENDLY_PROPS: &[(&str, &str)] = &[
    ("X", "pos:0"),
    ("Y", "pos:1"),
    ("Z", "pos:2"),
    ("health", "pawn:m_iHealth"),
    ("armor_value", "pawn:m_ArmorValue"),
    ("team_num", "pawn:m_iTeamNum"),
    ("pitch", "pawn:m_angEyeAngles#0"),
    ("yaw", "pawn:m_angEyeAngles#1"),
    ("is_alive", "alive"),
    ("life_state", "pawn:m_lifeState"),
    ("active_weapon", "pawn:m_pWeaponServices.m_hActiveWeapon"),
    ("has_defuser", "pawn:m_pItemServices.m_bHasDefuser"),
    ("has_helmet", "pawn:m_pItemServices.m_bHasHelmet"),
    ("flash_duration", "pawn:m_flFlashDuration"),
    ("flash_max_alpha", "pawn:m_flFlashMaxAlpha"),
    ("in_bomb_zone", "pawn:m_bInBombZone"),
    ("in_buy_zone", "pawn:m_bInBuyZone"),
    ("is_scoped", "pawn:m_bIsScoped"),
    ("is_defusing", "pawn:m_bIsDefusing"),
    ("is_walking", "pawn:m_bIsWalking"),
    ("spotted", "pawn:m_bSpotted"),
    ("last_place_name", "pawn:m_szLastPlaceName"),
    ("move_type", "pawn:m_MoveType"),
    ("duck_amount", "pawn:m_pMovementServices.m_flDuckAmount"),
    ("ducking", "pawn:m_pMovementServices.m_bDucking"),
    (
        "round_start_equip_value",
        "pawn:m_unRoundStartEquipmentValue",
    ),
    ("current_equip_value", "pawn:m_unCurrentEquipmentValue"),
    ("balance", "controller:m_pInGameMoneyServices.m_iAccount"),
    (
        "start_balance",
        "controller:m_pInGameMoneyServices.m_iStartAccount",
    ),
    (
        "total_cash_spent",
        "controller:m_pInGameMoneyServices.m_iTotalCashSpent",
    ),
    (
        "cash_spent_this_round",
        "controller:m_pInGameMoneyServices.m_iCashSpentThisRound",
    ),
    ("player_name", "controller:m_iszPlayerName"),
    ("player_steamid", "controller:m_steamID"),
    ("score", "controller:m_iScore"),
    ("ping", "controller:m_iPing"),
    ("mvps", "controller:m_iMVPs"),
    ("is_connected", "controller:m_iConnected"),
    ("crosshair_code", "controller:m_szCrosshairCodes"),
    ("rank", "controller:m_iCompetitiveRanking"),
    (
        "kills_total",
        "controller:m_pActionTrackingServices.m_iKills",
    ),
    (
        "deaths_total",
        "controller:m_pActionTrackingServices.m_iDeaths",
    ),
    (
        "assists_total",
        "controller:m_pActionTrackingServices.m_iAssists",
    ),
    (
        "damage_total",
        "controller:m_pActionTrackingServices.m_iDamage",
    ),
];

/// Resolves a friendly or raw prop name. Raw names are looked up on the
/// pawn first, then on the controller; a `CCSPlayerPawn.` or
/// `CCSPlayerController.` prefix picks one.
pub fn prop_source(name: &str) -> PropSource {
    if let Some((_, spec)) = FRIENDLY_PROPS.iter().find(|(n, _)| *n == name) {
        return parse_spec(spec);
    }
    if let Some(rest) = name.strip_prefix("CCSPlayerPawn.") {
        return PropSource::Raw(Owner::Pawn, rest.to_string());
    }
    if let Some(rest) = name.strip_prefix("CCSPlayerController.") {
        return PropSource::Raw(Owner::Controller, rest.to_string());
    }
    PropSource::Raw(Owner::Pawn, name.to_string())
}

fn parse_spec(spec: &str) -> PropSource {
    if spec == "alive" {
        return PropSource::IsAlive;
    }
    if let Some(axis) = spec.strip_prefix("pos:") {
        return PropSource::Position(axis.parse().unwrap_or(0));
    }
    let (owner, path) = match spec.split_once(':') {
        Some(("controller", p)) => (Owner::Controller, p),
        Some((_, p)) => (Owner::Pawn, p),
        None => (Owner::Pawn, spec),
    };
    match path.split_once('#') {
        Some((p, i)) => PropSource::Element(owner, p.to_string(), i.parse().unwrap_or(0)),
        None => PropSource::Raw(owner, path.to_string()),
    }
}

/// The field path of a dotted prop name in a serializer (array elements as
/// numbers); `None` if it does not exist.
pub fn resolve_prop(tables: &SendTables, root: SerializerId, name: &str) -> Option<FieldPath> {
    let mut indices: Vec<i32> = Vec::with_capacity(4);
    let mut ser = root;
    let mut parts = name.split('.').peekable();
    while let Some(part) = parts.next() {
        let s = tables.serializer(ser)?;
        let (pos, field) = s.fields.iter().enumerate().find_map(|(i, &f)| {
            tables
                .fields
                .get(f as usize)
                .filter(|f| tables.symbol(f.name) == part)
                .map(|f| (i, f))
        })?;
        indices.push(pos as i32);
        match &field.model {
            FieldModel::Value(_) => {
                if parts.peek().is_some() {
                    return None;
                }
            }
            FieldModel::FixedArray { .. } | FieldModel::VariableArray(_) => {
                if let Some(next) = parts.next() {
                    indices.push(next.parse().ok()?);
                }
            }
            FieldModel::FixedTable { serializer, .. } => ser = *serializer,
            FieldModel::VariableTable(s) => {
                indices.push(parts.next()?.parse().ok()?);
                ser = *s;
            }
        }
    }
    (!indices.is_empty() && indices.len() <= 7).then(|| FieldPath::from_slice(&indices))
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
}

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
        entity.get(&path?)
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

/// The prop ids [`players`] reads.
#[derive(Debug, Clone)]
struct PlayerIds {
    pawn: PropId,
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
            pawn: cache.id("m_hPlayerPawn"),
            steamid: cache.id("m_steamID"),
            team: cache.id("m_iTeamNum"),
            name: cache.id("m_iszPlayerName"),
            controller: None,
            controllers: Vec::new(),
            controllers_generation: None,
        }
    }
}

/// The class id of `CCSPlayerController`, if the demo has one; `cached` is
/// the id found last time, checked before the classes are searched again.
fn controller_class(state: &DemoState, cached: &mut Option<u32>) -> Option<u32> {
    const NAME: &str = "CCSPlayerController";
    if let Some(id) = *cached {
        if state
            .classes
            .get(id as usize)
            .is_some_and(|c| c.name == NAME)
        {
            return Some(id);
        }
    }
    *cached = state.classes.iter().find(|c| c.name == NAME).map(|c| c.id);
    *cached
}

fn players_into(
    state: &DemoState,
    cache: &mut PropCache,
    ids: &mut PlayerIds,
    out: &mut Vec<PlayerRef>,
) {
    let Some(class) = controller_class(state, &mut ids.controller) else {
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
        let pawn_handle = cache
            .get(state, e, ids.pawn)
            .and_then(Value::as_u64)
            .unwrap_or(u64::from(PAWN_HANDLE_MASK));
        let pawn = (pawn_handle as u32) & PAWN_HANDLE_MASK;
        if pawn == PAWN_HANDLE_MASK {
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

/// A [`PropSource`] with its prop names interned.
#[derive(Debug, Clone, Copy)]
enum SourceIds {
    Raw(Owner, PropId),
    Element(Owner, PropId, usize),
    Position { cell: PropId, offset: PropId },
    IsAlive(PropId),
    Missing,
}

impl SourceIds {
    fn new(source: &PropSource, cache: &mut PropCache) -> SourceIds {
        match source {
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
        }
    }
}

fn read_prop(
    state: &DemoState,
    entities: &EntityList,
    cache: &mut PropCache,
    player: &PlayerRef,
    source: SourceIds,
) -> Cell {
    let pawn = entities.get(player.pawn);
    let controller = entities.get(player.controller);
    let on = |owner: Owner| match owner {
        Owner::Pawn => pawn,
        Owner::Controller => controller,
    };
    match source {
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
                (Some(c), Some(o)) => Cell::Float(coord_from_cell(c, o)),
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

/// Collects one row per player after every `PacketEntities` message outside
/// full packets (demoparser2's `parse_ticks`): the props asked for, then
/// `tick`, `steamid`, `name`.
#[derive(Debug)]
pub struct TickCollector {
    props: Vec<SourceIds>,
    ticks: Option<Vec<i32>>,
    cache: PropCache,
    player_ids: PlayerIds,
    players: Vec<PlayerRef>,
    /// The collected rows.
    pub table: Table,
}

impl TickCollector {
    /// A collector for these props, optionally only at these ticks.
    pub fn new(props: &[String], ticks: Option<Vec<i32>>) -> Self {
        let mut columns: Vec<String> = props.to_vec();
        columns.extend(["tick", "steamid", "name"].map(String::from));
        let mut cache = PropCache::default();
        TickCollector {
            props: props
                .iter()
                .map(|p| SourceIds::new(&prop_source(p), &mut cache))
                .collect(),
            ticks,
            player_ids: PlayerIds::new(&mut cache),
            cache,
            players: Vec::new(),
            table: Table {
                columns,
                rows: Vec::new(),
            },
        }
    }
}

impl Visitor for TickCollector {
    fn interests(&self) -> Interests {
        Interests {
            entities: true,
            ..Interests::NONE
        }
    }

    fn on_packet_entities(&mut self, state: &DemoState) {
        if state.in_full_packet {
            return;
        }
        if let Some(t) = &self.ticks {
            if !t.contains(&state.tick) {
                return;
            }
        }
        let mut players = std::mem::take(&mut self.players);
        players_into(state, &mut self.cache, &mut self.player_ids, &mut players);
        for p in players.drain(..) {
            let mut row = Vec::with_capacity(self.props.len() + 3);
            for &src in &self.props {
                row.push(read_prop(state, &state.entities, &mut self.cache, &p, src));
            }
            row.push(Cell::Int(i64::from(state.tick)));
            row.push(Cell::UInt(p.steamid));
            row.push(Cell::Str(p.name));
            self.table.rows.push(row);
        }
        self.players = players;
    }
}

/// Keys that name a player (a controller slot), and the column prefix used
/// for them.
const PLAYER_KEYS: &[(&str, &str)] = &[
    ("userid", "user"),
    ("attacker", "attacker"),
    ("assister", "assister"),
    ("victim", "victim"),
];

/// One collected event: name, tick, and its columns.
pub type EventRow = (String, i32, Vec<(String, Cell)>);

/// Collects game events as rows: `event`, `tick`, every key of the event,
/// and for player keys `<prefix>_name` and `<prefix>_steamid` of the player
/// in that slot (from `userinfo`; no entity is decoded).
#[derive(Debug, Default)]
pub struct EventCollector {
    names: Option<Vec<String>>,
    /// Events as (name, tick, key/value pairs).
    pub events: Vec<EventRow>,
    /// Every event name seen, with its count.
    pub counts: std::collections::BTreeMap<String, u64>,
}

impl EventCollector {
    /// Collects the named events (all when `None`).
    pub fn new(names: Option<Vec<String>>) -> Self {
        EventCollector {
            names,
            ..Default::default()
        }
    }

    fn player_columns(&self, state: &DemoState, ev: &GameEvent, out: &mut Vec<(String, Cell)>) {
        for (key, prefix) in PLAYER_KEYS {
            let Some(v) = ev.get(key).and_then(EventValue::as_i64) else {
                continue;
            };
            // The player in that slot, from the `userinfo` string table
            // (the same name and steam id the controller entity carries), so
            // events need no entity decoding.
            let player = state.players.get(&((v & 0xFF) as usize));
            // Bots (steam id 0) are not players to demoparser2: null columns.
            let steamid = player.map(|p| p.steamid).filter(|&s| s != 0);
            let name = player.filter(|_| steamid.is_some()).map(|p| p.name.clone());
            out.push((
                format!("{prefix}_name"),
                name.map(Cell::Str).unwrap_or(Cell::Null),
            ));
            out.push((
                format!("{prefix}_steamid"),
                steamid
                    .map(|s| Cell::Str(s.to_string()))
                    .unwrap_or(Cell::Null),
            ));
        }
    }
}

impl Visitor for EventCollector {
    fn interests(&self) -> Interests {
        Interests {
            game_events: true,
            ..Interests::NONE
        }
    }

    fn on_game_event(&mut self, state: &DemoState, ev: &GameEvent) {
        *self.counts.entry(ev.name.clone()).or_default() += 1;
        if let Some(names) = &self.names {
            if !names.contains(&ev.name) {
                return;
            }
        }
        let mut cols: Vec<(String, Cell)> = ev
            .keys
            .iter()
            .map(|(k, _, v)| (k.clone(), Cell::from_event(v)))
            .collect();
        self.player_columns(state, ev, &mut cols);
        self.events.push((ev.name.clone(), ev.tick, cols));
    }
}
