//! Collectors for `events`, `ticks`, `players`, `chat` and `grenades`.

use std::collections::BTreeMap;

use gamewire_source2::cs2::{entity_position, item_name, Cell, TickCollector, UserCommandField};
use gamewire_source2::dota::CombatLogEntry;
use gamewire_source2::econ::EconItem;
use gamewire_source2::gameevent::{EventValue, GameEvent};
use gamewire_source2::Visitor;
use gamewire_source2::{DemoState, Entity, UserCommand, UserMessage, Value};
use rustc_hash::FxHashMap;

use crate::kinds::{event_key_kind, grenade_kind, other_kind, player_kind, widen};
use crate::matches::hitgroup_name;
use crate::props::{
    cell_of_event, event_has_player, event_player, handle_index, identity, other_columns,
    other_prop_in, player_by_handle, player_by_slot, player_source, player_value, OtherSource,
    Paths, PlayerEnts, PlayerSource, World, INTERNAL_KEYS, PLAYER_KEYS,
};
use crate::table::{infer_kind, Kind, Table};

/// Events whose rows demoparser2 builds only after the packet's entities
/// are applied (the entity their `entityid` names is created in the same
/// packet); [`crate::Collectors`] hands them on after the next
/// `PacketEntities` message or at the end of the tick.
pub const ENTITIES_FIRST_EVENTS: &[&str] =
    &["inferno_startburn", "decoy_started", "inferno_expire"];

/// Events the parser reports that no descriptor declares, with their keys
/// and key types: convars (`CNETMsg_SetConVar`) as `server_cvar`, as
/// demoparser2 does.
pub const SYNTHETIC_EVENTS: &[(&str, &[(&str, i32)])] =
    &[("server_cvar", &[("name", 1), ("value", 1)])];

/// Grenade events that carry the grenade's `entityid`, and the grenade type
/// their name implies (inferno events: molotov or incendiary, from the
/// entity).
pub const GRENADE_EVENTS: &[(&str, Option<&str>)] = &[
    ("smokegrenade_detonate", Some("smoke")),
    ("smokegrenade_expired", Some("smoke")),
    ("hegrenade_detonate", Some("he_grenade")),
    ("flashbang_detonate", Some("flashbang")),
    ("decoy_started", Some("decoy")),
    ("decoy_firing", Some("decoy")),
    ("decoy_detonate", Some("decoy")),
    ("inferno_startburn", None),
    ("inferno_expire", None),
    ("inferno_extinguish", None),
];

/// The keys of an event name and their types: a synthetic event's keys
/// (CS2 also declares a `server_cvar` event, with other keys, that the
/// parser reports as synthetic), else its descriptor.
fn declared_keys(state: &DemoState, name: &str) -> Option<Vec<(String, i32)>> {
    if let Some((_, keys)) = SYNTHETIC_EVENTS.iter().find(|(n, _)| *n == name) {
        return Some(keys.iter().map(|(k, t)| (k.to_string(), *t)).collect());
    }
    state
        .event_descriptors
        .by_name(name)
        .map(|d| d.keys.iter().map(|k| (k.name.clone(), k.kind)).collect())
}

/// Whether an event with these keys gets a `grenade_type` column.
fn is_grenade_event(name: &str, keys: &[&str]) -> bool {
    GRENADE_EVENTS.iter().any(|(n, _)| *n == name) && keys.contains(&"entityid")
}

/// The grenade type of an entity: projectile classes ([`grenade_type`];
/// a `CMolotovProjectile` with `m_bIsIncGrenade` is an incendiary), and
/// `CInferno` by `m_nInfernoType` (0 fire → molotov, 1 incendiary-grenade
/// fire → incendiary; CS:GO's `inferno.h`).
pub fn entity_grenade_type(
    state: &DemoState,
    paths: &mut Paths,
    e: &Entity,
) -> Option<&'static str> {
    match state.class_name(e) {
        "CMolotovProjectile" => {
            let inc = paths
                .value(state, e, "m_bIsIncGrenade")
                .and_then(Value::as_i64)
                == Some(1);
            Some(if inc { "incendiary" } else { "molotov" })
        }
        "CInferno" => match paths
            .value(state, e, "m_nInfernoType")
            .and_then(Value::as_i64)
        {
            Some(0) => Some("molotov"),
            Some(1) => Some("incendiary"),
            _ => None,
        },
        class => grenade_type(class),
    }
}

/// `events`: demoparser2's `parse_event` rows. `event_name`, `tick`, the
/// event's keys (without the player keys), `grenade_type` for grenade
/// events, then for each player key (`attacker`, `userid` → `user`,
/// `assister`, `victim`) `<p>_name`, `<p>_steamid` and `<p>_<prop>` for
/// each player prop asked for, then the game-wide props asked for (a team
/// prop as `t_<name>` and `ct_<name>`). `hitgroup` is a name, as in
/// demoparser2. Column types are declared ([`crate::kinds`]).
#[derive(Debug)]
pub struct EventsCollector {
    names: Option<Vec<String>>,
    player_props: Vec<(String, PlayerSource)>,
    other_props: Vec<(String, OtherSource)>,
    needs_world: bool,
    paths: Paths,
    columns: Vec<String>,
    rows: Vec<Vec<(usize, Cell)>>,
    /// Event names seen, in order of first appearance, with their keys.
    seen: Vec<(String, Vec<(String, i32)>)>,
}

impl EventsCollector {
    /// Events with these names (all when `None`), with these player and
    /// game-wide props (names already validated or unknown ones ignored).
    pub fn new(
        names: Option<Vec<String>>,
        player_props: &[String],
        other_props: &[String],
    ) -> Self {
        let player_props: Vec<(String, PlayerSource)> = player_props
            .iter()
            .map(|p| (p.clone(), player_source(p)))
            .collect();
        let other_props: Vec<(String, OtherSource)> = other_props
            .iter()
            .filter_map(|p| other_columns(p))
            .flatten()
            .collect();
        let needs_world = !other_props.is_empty()
            || player_props
                .iter()
                .any(|(_, s)| !matches!(s, PlayerSource::Entity(_)));
        EventsCollector {
            names,
            player_props,
            other_props,
            needs_world,
            paths: Paths::default(),
            columns: vec!["event_name".into(), "tick".into()],
            rows: Vec::new(),
            seen: Vec::new(),
        }
    }

    fn col(&mut self, name: &str) -> usize {
        match self.columns.iter().position(|c| c == name) {
            Some(i) => i,
            None => {
                self.columns.push(name.to_string());
                self.columns.len() - 1
            }
        }
    }

    /// Whether this collector keeps events of this name.
    pub fn wants(&self, name: &str) -> bool {
        self.names
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == name))
    }

    /// Takes one game event.
    pub fn on_event(&mut self, state: &DemoState, ev: &GameEvent) {
        if !self.wants(&ev.name) {
            return;
        }
        if !self.seen.iter().any(|(n, _)| *n == ev.name) {
            let keys = ev.keys.iter().map(|(k, t, _)| (k.clone(), *t)).collect();
            self.seen.push((ev.name.clone(), keys));
        }
        let world = if self.needs_world {
            World::of(state, &mut self.paths)
        } else {
            World::default()
        };
        let mut row: Vec<(usize, Cell)> = vec![
            (0, Cell::Str(ev.name.clone())),
            (1, Cell::Int(i64::from(ev.tick))),
        ];
        for (k, _, v) in &ev.keys {
            if INTERNAL_KEYS.contains(&k.as_str()) {
                continue;
            }
            let cell = match (k.as_str(), v.as_i64()) {
                ("hitgroup", Some(h)) => Cell::Str(
                    hitgroup_name(h)
                        .map(str::to_string)
                        .unwrap_or_else(|| h.to_string()),
                ),
                _ => cell_of_event(v),
            };
            let i = self.col(k);
            row.push((i, cell));
        }
        let keys: Vec<&str> = ev.keys.iter().map(|(k, _, _)| k.as_str()).collect();
        if is_grenade_event(&ev.name, &keys) {
            let from_entity = ev
                .get("entityid")
                .and_then(EventValue::as_i64)
                .and_then(|i| i32::try_from(i).ok())
                .and_then(|i| state.entities.get(i))
                .and_then(|e| entity_grenade_type(state, &mut self.paths, e));
            let default = GRENADE_EVENTS
                .iter()
                .find(|(n, _)| *n == ev.name)
                .and_then(|(_, t)| *t);
            let i = self.col("grenade_type");
            row.push((
                i,
                from_entity
                    .or(default)
                    .map(|t| Cell::Str(t.to_string()))
                    .unwrap_or(Cell::Null),
            ));
        }
        for (key, prefix) in PLAYER_KEYS {
            if !event_has_player(&keys, key) {
                continue;
            }
            let p: PlayerEnts<'_> =
                event_player(state, &mut self.paths, ev, key).unwrap_or_default();
            let resolved = p.controller.is_some() || p.slot.is_some();
            let (name, steamid) = if resolved {
                identity(state, &mut self.paths, &p)
            } else {
                (None, None)
            };
            // demoparser2 knows players by steam id: bots (steam id 0) and
            // unresolved players get null columns, props included.
            let steamid = steamid.filter(|&s| s != 0);
            let name = name.filter(|_| steamid.is_some());
            let p = if steamid.is_some() {
                p
            } else {
                PlayerEnts::default()
            };
            let i = self.col(&format!("{prefix}_name"));
            row.push((i, name.map(Cell::Str).unwrap_or(Cell::Null)));
            let i = self.col(&format!("{prefix}_steamid"));
            row.push((i, steamid.map(Cell::UInt).unwrap_or(Cell::Null)));
            for pi in 0..self.player_props.len() {
                let Some((pname, src)) = self.player_props.get(pi).cloned() else {
                    continue;
                };
                let cell = player_value(state, &mut self.paths, &world, &p, &src);
                let i = self.col(&format!("{prefix}_{pname}"));
                row.push((i, cell));
            }
        }
        for oi in 0..self.other_props.len() {
            let Some((oname, src)) = self.other_props.get(oi).cloned() else {
                continue;
            };
            let cell = other_prop_in(state, &mut self.paths, &world, &src);
            let i = self.col(&oname);
            row.push((i, cell));
        }
        self.rows.push(row);
    }

    /// The declared columns: `event_name`, `tick`, the keys of the events
    /// in the table (the names asked for, else the names seen), the player
    /// columns of the player keys those events have, the game-wide props.
    /// A key name with different types in different events takes the
    /// wider type ([`widen`]); with no names asked for, over every event
    /// the demo declares, so that the type does not depend on which events
    /// a demo happens to have.
    fn schema(&self, state: &DemoState) -> Vec<(String, Option<Kind>)> {
        let scope: Vec<(String, Vec<(String, i32)>)> = match &self.names {
            Some(names) => names
                .iter()
                .filter_map(|n| {
                    declared_keys(state, n)
                        .or_else(|| {
                            self.seen
                                .iter()
                                .find(|(s, _)| s == n)
                                .map(|(_, k)| k.clone())
                        })
                        .map(|k| (n.clone(), k))
                })
                .collect(),
            None => self.seen.clone(),
        };
        let mut universe: Vec<Vec<(String, i32)>> = scope.iter().map(|(_, k)| k.clone()).collect();
        if self.names.is_none() {
            universe.extend(
                state
                    .event_descriptors
                    .values()
                    .map(|d| d.keys.iter().map(|k| (k.name.clone(), k.kind)).collect()),
            );
            universe.extend(
                SYNTHETIC_EVENTS
                    .iter()
                    .map(|(_, keys)| keys.iter().map(|(k, t)| (k.to_string(), *t)).collect()),
            );
        }
        let mut key_kinds: FxHashMap<&str, Kind> = FxHashMap::default();
        for (k, t) in universe.iter().flatten() {
            let kind = if k == "hitgroup" {
                Some(Kind::Str)
            } else {
                event_key_kind(*t)
            };
            if let Some(kind) = kind {
                let merged = key_kinds
                    .get(k.as_str())
                    .map_or(kind, |old| widen(*old, kind));
                key_kinds.insert(k.as_str(), merged);
            }
        }
        let mut schema: Vec<(String, Option<Kind>)> = vec![
            ("event_name".into(), Some(Kind::Str)),
            ("tick".into(), Some(Kind::I64)),
        ];
        let push = |schema: &mut Vec<(String, Option<Kind>)>, name: String, kind: Option<Kind>| {
            if !schema.iter().any(|(n, _)| *n == name) {
                schema.push((name, kind));
            }
        };
        for (_, keys) in &scope {
            for (k, _) in keys {
                if !INTERNAL_KEYS.contains(&k.as_str()) {
                    push(&mut schema, k.clone(), key_kinds.get(k.as_str()).copied());
                }
            }
        }
        let key_names: Vec<(&str, Vec<&str>)> = scope
            .iter()
            .map(|(n, keys)| (n.as_str(), keys.iter().map(|(k, _)| k.as_str()).collect()))
            .collect();
        if key_names.iter().any(|(n, keys)| is_grenade_event(n, keys)) {
            push(&mut schema, "grenade_type".into(), Some(Kind::Str));
        }
        for (key, prefix) in PLAYER_KEYS {
            if !key_names
                .iter()
                .any(|(_, keys)| event_has_player(keys, key))
            {
                continue;
            }
            push(&mut schema, format!("{prefix}_name"), Some(Kind::Str));
            push(&mut schema, format!("{prefix}_steamid"), Some(Kind::U64));
            for (pname, src) in &self.player_props {
                push(
                    &mut schema,
                    format!("{prefix}_{pname}"),
                    player_kind(state, src),
                );
            }
        }
        for (oname, src) in &self.other_props {
            push(&mut schema, oname.clone(), other_kind(state, src));
        }
        // Columns of rows outside the declared scope (none expected).
        for c in &self.columns {
            push(&mut schema, c.clone(), None);
        }
        schema
    }

    /// The table.
    pub fn finish(self, state: &DemoState) -> Table {
        let schema = self.schema(state);
        let to_schema: Vec<Option<usize>> = self
            .columns
            .iter()
            .map(|c| schema.iter().position(|(n, _)| n == c))
            .collect();
        let n = schema.len();
        let rows: Vec<Vec<Cell>> = self
            .rows
            .into_iter()
            .map(|sparse| {
                let mut row = vec![Cell::Null; n];
                for (i, c) in sparse {
                    if let Some(slot) = to_schema
                        .get(i)
                        .copied()
                        .flatten()
                        .and_then(|j| row.get_mut(j))
                    {
                        *slot = c;
                    }
                }
                row
            })
            .collect();
        Table::from_cells_typed("events", &schema, &rows)
    }
}

/// `ticks`: demoparser2's `parse_ticks` rows, those of
/// [`gamewire_source2::cs2::TickCollector`] (`gamewire ticks`): one row per
/// player after every `PacketEntities` message outside full packets
/// (players: pawn present, steam id ≠ 0, not spectator): the props asked for
/// (player, team and game-wide props), then `tick`, `steamid`, `name`.
/// Column types are declared ([`crate::kinds`]).
#[derive(Debug)]
pub struct TicksCollector {
    props: Vec<(String, PlayerSource)>,
    rows: TickCollector,
}

impl TicksCollector {
    /// Rows with these props, at every tick or only at these, of every
    /// player or only of these steam ids.
    pub fn new(props: &[String], ticks: Option<Vec<i32>>, players: Option<Vec<u64>>) -> Self {
        TicksCollector {
            props: props
                .iter()
                .map(|p| (p.clone(), player_source(p)))
                .collect(),
            rows: TickCollector::new(props, ticks).with_players(players),
        }
    }

    /// Takes the state after a `PacketEntities` message.
    pub fn on_packet_entities(&mut self, state: &DemoState) {
        self.rows.on_packet_entities(state);
    }

    /// The table.
    pub fn finish(self, state: &DemoState) -> Table {
        let mut schema: Vec<(String, Option<Kind>)> = self
            .props
            .iter()
            .map(|(n, s)| (n.clone(), player_kind(state, s)))
            .collect();
        schema.push(("tick".into(), Some(Kind::I64)));
        schema.push(("steamid".into(), Some(Kind::U64)));
        schema.push(("name".into(), Some(Kind::Str)));
        Table::from_cells_typed("ticks", &schema, &self.rows.table.rows)
    }
}

/// Columns of `players`.
pub const PLAYERS: &[(&str, Kind)] = &[
    ("slot", Kind::I64),
    ("userid", Kind::I64),
    ("name", Kind::Str),
    ("steamid", Kind::U64),
    ("fake_player", Kind::Bool),
    ("is_hltv", Kind::Bool),
    ("first_tick", Kind::I64),
    ("team_num", Kind::I64),
    ("score", Kind::I64),
    ("kills_total", Kind::I64),
    ("deaths_total", Kind::I64),
    ("assists_total", Kind::I64),
    ("damage_total", Kind::I64),
    ("mvps", Kind::I64),
    ("ping", Kind::I64),
    ("rank", Kind::I64),
];

const PLAYER_CONTROLLER_PROPS: &[&str] = &[
    "m_iTeamNum",
    "m_iScore",
    "m_pActionTrackingServices.m_iKills",
    "m_pActionTrackingServices.m_iDeaths",
    "m_pActionTrackingServices.m_iAssists",
    "m_pActionTrackingServices.m_iDamage",
    "m_iMVPs",
    "m_iPing",
    "m_iCompetitiveRanking",
];

#[derive(Debug, Clone)]
struct SeenPlayer {
    info: gamewire_source2::PlayerInfo,
    first_tick: i32,
    controller: Vec<Cell>,
}

/// `players`: every `userinfo` entry seen (one row per slot and steam id),
/// with the controller's team, score and match stats as last seen.
#[derive(Debug, Default)]
pub struct PlayersCollector {
    seen: BTreeMap<(usize, u64, String), SeenPlayer>,
    paths: Paths,
}

impl PlayersCollector {
    /// Records the current `userinfo` entries.
    pub fn on_userinfo(&mut self, state: &DemoState) {
        for (slot, info) in &state.players {
            self.seen
                .entry((*slot, info.steamid, info.name.clone()))
                .or_insert_with(|| SeenPlayer {
                    info: info.clone(),
                    first_tick: state.tick,
                    controller: Vec::new(),
                });
        }
    }

    /// Refreshes controller values of the players currently connected
    /// (called once per tick).
    pub fn on_tick(&mut self, state: &DemoState) {
        for (slot, info) in &state.players {
            let Some(controller) = state
                .entities
                .get(*slot as i32 + 1)
                .filter(|e| state.class_name(e).ends_with("PlayerController"))
            else {
                continue;
            };
            let values: Vec<Cell> = PLAYER_CONTROLLER_PROPS
                .iter()
                .map(|p| {
                    self.paths
                        .value(state, controller, p)
                        .and_then(Value::as_i64)
                        .map(Cell::Int)
                        .unwrap_or(Cell::Null)
                })
                .collect();
            if let Some(s) = self.seen.get_mut(&(*slot, info.steamid, info.name.clone())) {
                s.controller = values;
            }
        }
    }

    /// The table.
    pub fn finish(mut self, state: &DemoState) -> Table {
        self.on_userinfo(state);
        self.on_tick(state);
        let mut t = Table::with_schema("players", PLAYERS);
        for s in self.seen.values() {
            let mut row = vec![
                Cell::Int(s.info.slot as i64),
                Cell::Int(i64::from(s.info.userid)),
                Cell::Str(s.info.name.clone()),
                Cell::UInt(s.info.steamid),
                Cell::Bool(s.info.fake_player),
                Cell::Bool(s.info.is_hltv),
                Cell::Int(i64::from(s.first_tick)),
            ];
            row.extend(s.controller.iter().cloned());
            t.push_row(&row);
        }
        t
    }
}

/// Columns of `chat`.
pub const CHAT: &[(&str, Kind)] = &[
    ("tick", Kind::I64),
    ("entity_index", Kind::I64),
    ("name", Kind::Str),
    ("steamid", Kind::U64),
    ("text", Kind::Str),
    ("all_chat", Kind::Bool),
    ("kind", Kind::Str),
];

/// `chat`: `SayText2`/`SayText` user messages.
#[derive(Debug)]
pub struct ChatCollector {
    /// The rows so far.
    pub table: Table,
    paths: Paths,
}

impl Default for ChatCollector {
    fn default() -> Self {
        ChatCollector {
            table: Table::with_schema("chat", CHAT),
            paths: Paths::default(),
        }
    }
}

impl ChatCollector {
    /// Takes one user message.
    pub fn on_message(&mut self, state: &DemoState, msg: &UserMessage<'_>) {
        let Some(chat) = msg.chat() else { return };
        let p = player_by_slot(state, &mut self.paths, i64::from(chat.entity_index) - 1);
        let steamid = if chat.entity_index > 0 {
            identity(state, &mut self.paths, &p).1
        } else {
            None
        };
        self.table.push_row(&[
            Cell::Int(i64::from(state.tick)),
            Cell::Int(i64::from(chat.entity_index)),
            Cell::Str(chat.name),
            steamid.map(Cell::UInt).unwrap_or(Cell::Null),
            Cell::Str(chat.text),
            Cell::Bool(chat.all_chat),
            Cell::Str(chat.kind),
        ]);
    }
}

/// An optional integer as a cell (null for `None`).
fn num<T: Into<i64>>(v: Option<T>) -> Cell {
    v.map(|x| Cell::Int(x.into())).unwrap_or(Cell::Null)
}

/// The item columns `item_drops` and `skins` share.
pub const ITEM_COLUMNS: [(&str, Kind); 10] = [
    ("item_id", Kind::U64),
    ("def_index", Kind::I64),
    ("item_name", Kind::Str),
    ("paint_index", Kind::I64),
    ("paint_seed", Kind::I64),
    ("paint_wear", Kind::I64),
    ("wear", Kind::F32),
    ("rarity", Kind::I64),
    ("quality", Kind::I64),
    ("custom_name", Kind::Str),
];

/// Columns of `item_drops` (one row per item dropped at the end of a
/// match): `tick`, `steamid`, `account_id`, `dropreason`, `inventory`, then
/// [`ITEM_COLUMNS`].
pub fn item_drops_schema() -> Vec<(&'static str, Kind)> {
    let mut s = vec![
        ("tick", Kind::I64),
        ("steamid", Kind::U64),
        ("account_id", Kind::I64),
        ("dropreason", Kind::I64),
        ("inventory", Kind::I64),
    ];
    s.extend(ITEM_COLUMNS);
    s
}

/// Columns of `skins` (one row per item a player had equipped, from the
/// end-of-match summary): `tick`, `steamid`, `name`, `team`, then
/// [`ITEM_COLUMNS`].
pub fn skins_schema() -> Vec<(&'static str, Kind)> {
    let mut s = vec![
        ("tick", Kind::I64),
        ("steamid", Kind::U64),
        ("name", Kind::Str),
        ("team", Kind::I64),
    ];
    s.extend(ITEM_COLUMNS);
    s
}

/// The [`ITEM_COLUMNS`] cells of an item.
fn item_cells(item: &EconItem) -> [Cell; 10] {
    let int = num::<u32>;
    [
        item.item_id.map(Cell::UInt).unwrap_or(Cell::Null),
        int(item.def_index),
        item.def_index
            .and_then(|d| item_name(u64::from(d)))
            .map(|n| Cell::Str(n.to_string()))
            .unwrap_or(Cell::Null),
        int(item.paint_index),
        int(item.paint_seed),
        int(item.paint_wear),
        item.wear().map(Cell::Float).unwrap_or(Cell::Null),
        int(item.rarity),
        int(item.quality),
        item.custom_name
            .clone()
            .map(Cell::Str)
            .unwrap_or(Cell::Null),
    ]
}

/// `item_drops` and `skins`: the economy items of CS2's end-of-match user
/// messages ([`gamewire_source2::econ`]).
#[derive(Debug)]
pub struct EconCollector {
    /// `item_drops`, when asked for.
    pub drops: Option<Table>,
    /// `skins`, when asked for.
    pub skins: Option<Table>,
}

impl EconCollector {
    /// Collects the tables asked for.
    pub fn new(drops: bool, skins: bool) -> Self {
        EconCollector {
            drops: drops.then(|| Table::with_schema("item_drops", &item_drops_schema())),
            skins: skins.then(|| Table::with_schema("skins", &skins_schema())),
        }
    }

    /// Takes one user message.
    pub fn on_message(&mut self, state: &DemoState, msg: &UserMessage<'_>) {
        let tick = Cell::Int(i64::from(state.tick));
        let int = num::<u32>;
        // Each message is decoded only for a table that was asked for.
        if let Some((t, items)) = self
            .drops
            .as_mut()
            .and_then(|t| Some((t, msg.item_drops()?)))
        {
            for item in &items {
                let mut row = vec![
                    tick.clone(),
                    item.steamid().map(Cell::UInt).unwrap_or(Cell::Null),
                    int(item.account_id),
                    int(item.dropreason),
                    int(item.inventory),
                ];
                row.extend(item_cells(item));
                t.push_row(&row);
            }
        }
        if let Some((t, players)) = self
            .skins
            .as_mut()
            .and_then(|t| Some((t, msg.end_of_match_players()?)))
        {
            for p in &players {
                for item in &p.items {
                    let mut row = vec![
                        tick.clone(),
                        p.steamid.map(Cell::UInt).unwrap_or(Cell::Null),
                        p.name.clone().map(Cell::Str).unwrap_or(Cell::Null),
                        num(p.team),
                    ];
                    row.extend(item_cells(item));
                    t.push_row(&row);
                }
            }
        }
    }

    /// The tables asked for, `item_drops` first.
    pub fn finish(self) -> Vec<Table> {
        [self.drops, self.skins].into_iter().flatten().collect()
    }
}

/// Columns of `combat_log` (one row per Dota 2 combat log entry).
pub const COMBAT_LOG: &[(&str, Kind)] = &[
    ("tick", Kind::I64),
    ("timestamp", Kind::F32),
    ("type", Kind::Str),
    ("attacker_name", Kind::Str),
    ("target_name", Kind::Str),
    ("target_source_name", Kind::Str),
    ("damage_source_name", Kind::Str),
    ("inflictor_name", Kind::Str),
    ("is_attacker_hero", Kind::Bool),
    ("is_attacker_illusion", Kind::Bool),
    ("is_target_hero", Kind::Bool),
    ("is_target_illusion", Kind::Bool),
    ("attacker_team", Kind::I64),
    ("target_team", Kind::I64),
    ("value", Kind::I64),
    ("health", Kind::I64),
    ("stun_duration", Kind::F32),
    ("slow_duration", Kind::F32),
    ("modifier_duration", Kind::F32),
    ("ability_level", Kind::I64),
    ("gold_reason", Kind::I64),
    ("xp_reason", Kind::I64),
    ("location_x", Kind::F32),
    ("location_y", Kind::F32),
];

/// `combat_log`: Dota 2's combat log, names resolved through the
/// `CombatLogNames` string table ([`gamewire_source2::dota`]).
#[derive(Debug)]
pub struct CombatLogCollector {
    /// The rows so far.
    pub table: Table,
}

impl Default for CombatLogCollector {
    fn default() -> Self {
        CombatLogCollector {
            table: Table::with_schema("combat_log", COMBAT_LOG),
        }
    }
}

impl CombatLogCollector {
    /// Takes one user message.
    pub fn on_message(&mut self, state: &DemoState, msg: &UserMessage<'_>) {
        let Some(e) = msg.combat_log() else { return };
        let name = |i: Option<u32>| {
            CombatLogEntry::name(state, i)
                .map(|n| Cell::Str(n.to_string()))
                .unwrap_or(Cell::Null)
        };
        let int = num::<u32>;
        let float = |v: Option<f32>| v.map(Cell::Float).unwrap_or(Cell::Null);
        let flag = |v: Option<bool>| v.map(Cell::Bool).unwrap_or(Cell::Null);
        self.table.push_row(&[
            Cell::Int(i64::from(state.tick)),
            float(e.timestamp),
            Cell::Str(e.kind.clone()),
            name(e.attacker_name),
            name(e.target_name),
            name(e.target_source_name),
            name(e.damage_source_name),
            name(e.inflictor_name),
            flag(e.is_attacker_hero),
            flag(e.is_attacker_illusion),
            flag(e.is_target_hero),
            flag(e.is_target_illusion),
            int(e.attacker_team),
            int(e.target_team),
            int(e.value),
            num(e.health),
            float(e.stun_duration),
            float(e.slow_duration),
            float(e.modifier_duration),
            int(e.ability_level),
            int(e.gold_reason),
            int(e.xp_reason),
            float(e.location_x),
            float(e.location_y),
        ]);
    }
}

/// Columns of `user_commands` (one row per user command).
pub const USER_COMMANDS: &[(&str, Kind)] = &[
    ("tick", Kind::I64),
    ("steamid", Kind::U64),
    ("name", Kind::Str),
    ("player_slot", Kind::I64),
    ("entity_index", Kind::I64),
    ("cmd_number", Kind::I64),
    ("server_tick_executed", Kind::I64),
    ("client_tick", Kind::I64),
    ("viewangle_x", Kind::F32),
    ("viewangle_y", Kind::F32),
    ("viewangle_z", Kind::F32),
    ("forward_move", Kind::F32),
    ("left_move", Kind::F32),
    ("up_move", Kind::F32),
    ("buttonstate_1", Kind::U64),
    ("buttonstate_2", Kind::U64),
    ("buttonstate_3", Kind::U64),
    ("impulse", Kind::I64),
    ("weapon_select", Kind::I64),
    ("mouse_dx", Kind::I64),
    ("mouse_dy", Kind::I64),
    ("consumed_server_angle_changes", Kind::I64),
    ("left_hand_desired", Kind::Bool),
    ("input_history", Kind::Str),
];

/// `user_commands`: every user command, with the player of its slot
/// (name and steam id from the controller, else `userinfo`). View angles
/// and buttons a command does not send are the previous command's
/// ([`gamewire_source2::UserCommand::over`]); `input_history` is JSON
/// ([`gamewire_source2::UserCommand::input_history_json`]).
#[derive(Debug)]
pub struct UserCommandsCollector {
    /// The rows so far.
    pub table: Table,
    paths: Paths,
}

impl Default for UserCommandsCollector {
    fn default() -> Self {
        UserCommandsCollector {
            table: Table::with_schema("user_commands", USER_COMMANDS),
            paths: Paths::default(),
        }
    }
}

impl UserCommandsCollector {
    /// Takes one user command.
    pub fn on_command(&mut self, state: &DemoState, cmd: &UserCommand) {
        use UserCommandField::*;
        let slot = cmd.player_slot.filter(|&s| s >= 0);
        let (name, steamid) = match slot {
            Some(s) => {
                let p = player_by_slot(state, &mut self.paths, i64::from(s));
                identity(state, &mut self.paths, &p)
            }
            None => (None, None),
        };
        let mut row = vec![
            Cell::Int(i64::from(cmd.tick)),
            steamid.map(Cell::UInt).unwrap_or(Cell::Null),
            name.map(Cell::Str).unwrap_or(Cell::Null),
            num(slot),
            num(cmd.pawn.map(|h| h.index)),
            num(cmd.cmd_number),
            num(cmd.server_tick_executed),
            num(cmd.client_tick),
        ];
        // The rest are the command's fields as the `usercmd_*` props read
        // them.
        row.extend(
            [
                ViewAngle(0),
                ViewAngle(1),
                ViewAngle(2),
                ForwardMove,
                LeftMove,
            ]
            .map(|f| f.cell(cmd)),
        );
        row.push(Cell::Float(cmd.up_move));
        row.extend(
            [
                ButtonState(1),
                ButtonState(2),
                ButtonState(3),
                Impulse,
                WeaponSelect,
                MouseDx,
                MouseDy,
                ConsumedServerAngleChanges,
                LeftHandDesired,
                InputHistory,
            ]
            .map(|f| f.cell(cmd)),
        );
        self.table.push_row(&row);
    }
}

/// Columns of `grenades` (one row per grenade per tick it moved).
pub const GRENADES: &[(&str, Kind)] = &[
    ("grenade_id", Kind::I64),
    ("entity_index", Kind::I64),
    ("grenade_type", Kind::Str),
    ("thrower_name", Kind::Str),
    ("thrower_steamid", Kind::U64),
    ("start_tick", Kind::I64),
    ("end_tick", Kind::I64),
    ("detonate_tick", Kind::I64),
    ("detonate_x", Kind::F32),
    ("detonate_y", Kind::F32),
    ("detonate_z", Kind::F32),
    ("tick", Kind::I64),
    ("x", Kind::F32),
    ("y", Kind::F32),
    ("z", Kind::F32),
];

/// The grenade type of a projectile class, `None` for other classes.
/// (CS2 has no incendiary projectile class: an incendiary is a
/// `CMolotovProjectile` with `m_bIsIncGrenade`, see
/// [`entity_grenade_type`].)
pub fn grenade_type(class: &str) -> Option<&'static str> {
    Some(match class {
        "CSmokeGrenadeProjectile" => "smoke",
        "CHEGrenadeProjectile" => "he_grenade",
        "CFlashbangProjectile" => "flashbang",
        "CMolotovProjectile" => "molotov",
        "CDecoyProjectile" => "decoy",
        "CIncendiaryGrenadeProjectile" => "incendiary",
        "CSnowballProjectile" => "snowball",
        _ => return None,
    })
}

/// Detonation events linked to a projectile by their `entityid`, and the
/// grenade type the projectile must have. A decoy's detonation is
/// `decoy_started` (it lands and starts firing).
pub const DETONATIONS: &[(&str, &str)] = &[
    ("smokegrenade_detonate", "smoke"),
    ("hegrenade_detonate", "he_grenade"),
    ("flashbang_detonate", "flashbang"),
    ("decoy_started", "decoy"),
];

/// How long after a projectile was deleted a detonation event can still be
/// linked to it, in ticks (the deletion may come in the packet before the
/// event's).
pub const DETONATE_AFTER_DELETE_TICKS: i32 = 2;

/// How long after a molotov or incendiary projectile was deleted its fire
/// (`inferno_startburn`, `molotov_detonate`) can still be linked to it, in
/// ticks (a quarter second at 64 ticks/s).
pub const FIRE_AFTER_DELETE_TICKS: i32 = 16;

/// A point of a flight: tick, position, the extra props' values.
type Point = (i32, [f32; 3], Vec<Cell>);

#[derive(Debug, Clone)]
struct Flight {
    id: i64,
    entity: i32,
    kind: String,
    thrower_name: Option<String>,
    thrower_steamid: Option<u64>,
    thrower_pawn: Option<i32>,
    start: i32,
    end: Option<i32>,
    detonation: Option<(i32, [f32; 3])>,
    points: Vec<Point>,
}

/// Tracks grenade flights from entity lifetimes: a projectile entity is
/// spawned (start tick), moves (one point per tick, the last position of
/// the tick kept), detonates (a detonation event linked to it), and is
/// deleted (end tick).
#[derive(Debug, Default)]
pub struct GrenadeTracker {
    live: BTreeMap<i32, Flight>,
    done: Vec<Flight>,
    next_id: i64,
}

impl GrenadeTracker {
    /// A projectile entity was created.
    pub fn spawn(
        &mut self,
        entity: i32,
        tick: i32,
        kind: &str,
        thrower: (Option<String>, Option<u64>),
    ) {
        if let Some(old) = self.live.remove(&entity) {
            self.done.push(old);
        }
        self.next_id += 1;
        self.live.insert(
            entity,
            Flight {
                id: self.next_id,
                entity,
                kind: kind.to_string(),
                thrower_name: thrower.0,
                thrower_steamid: thrower.1,
                thrower_pawn: None,
                start: tick,
                end: None,
                detonation: None,
                points: Vec::new(),
            },
        );
    }

    /// Sets the thrower when it becomes known after the spawn.
    pub fn thrower(&mut self, entity: i32, thrower: (Option<String>, Option<u64>)) {
        if let Some(f) = self.live.get_mut(&entity) {
            if f.thrower_name.is_none() && f.thrower_steamid.is_none() {
                f.thrower_name = thrower.0;
                f.thrower_steamid = thrower.1;
            }
        }
    }

    /// Sets the entity index of the thrower's pawn (`m_hThrower`), used to
    /// link a fire to its projectile.
    pub fn thrower_pawn(&mut self, entity: i32, pawn: i32) {
        if let Some(f) = self.live.get_mut(&entity) {
            f.thrower_pawn = Some(pawn);
        }
    }

    /// Changes the grenade type of a live projectile (a molotov projectile
    /// whose `m_bIsIncGrenade` is set is an incendiary).
    pub fn set_kind(&mut self, entity: i32, kind: &str) {
        if let Some(f) = self.live.get_mut(&entity) {
            if f.kind != kind {
                f.kind = kind.to_string();
            }
        }
    }

    /// Whether a live flight lacks its thrower.
    pub fn needs_thrower(&self, entity: i32) -> bool {
        self.live
            .get(&entity)
            .is_some_and(|f| f.thrower_name.is_none() && f.thrower_steamid.is_none())
    }

    /// A live projectile is at `pos` at `tick`.
    pub fn point(&mut self, entity: i32, tick: i32, pos: [f32; 3]) {
        self.point_with(entity, tick, pos, Vec::new());
    }

    /// [`GrenadeTracker::point`], with the values of the extra props
    /// ([`GrenadesCollector::with_props`]) at that tick.
    pub fn point_with(&mut self, entity: i32, tick: i32, pos: [f32; 3], extra: Vec<Cell>) {
        let Some(f) = self.live.get_mut(&entity) else {
            return;
        };
        match f.points.last_mut() {
            Some((t, p, x)) if *t == tick => {
                *p = pos;
                *x = extra;
            }
            _ => f.points.push((tick, pos, extra)),
        }
    }

    /// A detonation event names projectile entity `entity`: links it to
    /// the live flight of that entity whose type is one of `kinds`, else to
    /// the last such flight deleted at most
    /// [`DETONATE_AFTER_DELETE_TICKS`] before. The first detonation of a
    /// flight is kept. Returns the flight's `grenade_id`.
    pub fn detonate(
        &mut self,
        entity: i32,
        tick: i32,
        pos: [f32; 3],
        kinds: &[&str],
    ) -> Option<i64> {
        let fits = |f: &Flight| f.entity == entity && kinds.contains(&f.kind.as_str());
        let flight = match self.live.get_mut(&entity).filter(|f| fits(f)) {
            Some(f) => f,
            None => self.done.iter_mut().rev().find(|f| {
                fits(f)
                    && f.end
                        .is_some_and(|e| e <= tick && e >= tick - DETONATE_AFTER_DELETE_TICKS)
            })?,
        };
        if flight.detonation.is_none() {
            flight.detonation = Some((tick, pos));
        }
        Some(flight.id)
    }

    /// A fire started at `pos` (`inferno_startburn`, or `molotov_detonate`)
    /// from a player whose pawn is `thrower_pawn` (when known): links it to
    /// a molotov or incendiary flight that has not detonated, was spawned
    /// at or before `tick`, is alive or was deleted at most
    /// [`FIRE_AFTER_DELETE_TICKS`] before, and has that thrower (when both
    /// are known); of several, the one whose last point is nearest to
    /// `pos`, then the latest spawned. Returns the flight's `grenade_id`.
    pub fn fire(&mut self, tick: i32, pos: [f32; 3], thrower_pawn: Option<i32>) -> Option<i64> {
        let candidate = |f: &Flight| {
            matches!(f.kind.as_str(), "molotov" | "incendiary")
                && f.detonation.is_none()
                && f.start <= tick
                && f.end
                    .is_none_or(|e| e <= tick && e >= tick - FIRE_AFTER_DELETE_TICKS)
                && match (thrower_pawn, f.thrower_pawn) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                }
        };
        let distance = |f: &Flight| {
            f.points.last().map_or(f32::INFINITY, |(_, p, _)| {
                p.iter()
                    .zip(pos)
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum::<f32>()
            })
        };
        let best = self
            .live
            .values_mut()
            .chain(self.done.iter_mut())
            .filter(|f| candidate(f))
            .min_by(|a, b| distance(a).total_cmp(&distance(b)).then(b.id.cmp(&a.id)))?;
        best.detonation = Some((tick, pos));
        Some(best.id)
    }

    /// A projectile entity was deleted.
    pub fn remove(&mut self, entity: i32, tick: i32) {
        if let Some(mut f) = self.live.remove(&entity) {
            f.end = Some(tick);
            self.done.push(f);
        }
    }

    /// The table: flights in spawn order, points in tick order. Flights
    /// still alive at the end have a null end tick; flights with no linked
    /// detonation have null `detonate_*` columns.
    pub fn finish(self) -> Table {
        self.finish_with(&[])
    }

    /// [`GrenadeTracker::finish`], with extra columns after [`GRENADES`]
    /// for the values each point carries.
    pub fn finish_with(mut self, extra: &[(&str, Kind)]) -> Table {
        self.done
            .extend(std::mem::take(&mut self.live).into_values());
        self.done.sort_by_key(|f| f.id);
        let schema: Vec<(&str, Kind)> = GRENADES.iter().chain(extra).copied().collect();
        let mut t = Table::with_schema("grenades", &schema);
        let int = |v: Option<i32>| v.map_or(Cell::Null, |v| Cell::Int(i64::from(v)));
        for f in &self.done {
            let det = |axis: usize| {
                f.detonation
                    .and_then(|(_, p)| p.get(axis).copied())
                    .map_or(Cell::Null, Cell::Float)
            };
            for (tick, pos, values) in &f.points {
                let mut row = vec![
                    Cell::Int(f.id),
                    Cell::Int(i64::from(f.entity)),
                    Cell::Str(f.kind.clone()),
                    f.thrower_name.clone().map(Cell::Str).unwrap_or(Cell::Null),
                    f.thrower_steamid.map(Cell::UInt).unwrap_or(Cell::Null),
                    Cell::Int(i64::from(f.start)),
                    int(f.end),
                    int(f.detonation.map(|(t, _)| t)),
                    det(0),
                    det(1),
                    det(2),
                    Cell::Int(i64::from(*tick)),
                    Cell::Float(pos[0]),
                    Cell::Float(pos[1]),
                    Cell::Float(pos[2]),
                ];
                row.extend((0..extra.len()).map(|i| values.get(i).cloned().unwrap_or(Cell::Null)));
                t.push_row(&row);
            }
        }
        t
    }
}

/// `grenades` from entities and events: projectile classes, `m_hThrower` →
/// pawn → controller, positions from the body component, detonations from
/// the grenade events ([`DETONATIONS`] by `entityid`; molotov and
/// incendiary fires by thrower and position, [`GrenadeTracker::fire`]).
#[derive(Debug, Default)]
pub struct GrenadesCollector {
    /// The flights.
    pub tracker: GrenadeTracker,
    paths: Paths,
    /// Raw props of the projectile entity, one column each
    /// (demoparser2's `parse_grenades(extra=...)`).
    props: Vec<String>,
}

impl GrenadesCollector {
    /// A collector that also reads these raw props of the projectile
    /// entity (`m_nBounces`, `CBodyComponent.m_vecX`; nested tables by
    /// field or serializer name) at every point.
    pub fn with_props(props: &[String]) -> Self {
        GrenadesCollector {
            props: props.to_vec(),
            ..GrenadesCollector::default()
        }
    }

    /// The table; each extra prop's column type is its field's in the
    /// projectile classes' serializers (from the values where no class
    /// declares it).
    pub fn finish(self, state: &DemoState) -> Table {
        let kinds: Vec<Option<Kind>> = self.props.iter().map(|p| grenade_kind(state, p)).collect();
        let inferred: Vec<Kind> = (0..self.props.len())
            .map(|i| {
                let flights = self.tracker.live.values().chain(&self.tracker.done);
                let cells: Vec<&Cell> = flights
                    .flat_map(|f| f.points.iter().filter_map(move |(_, _, x)| x.get(i)))
                    .collect();
                infer_kind(cells.into_iter())
            })
            .collect();
        let extra: Vec<(&str, Kind)> = self
            .props
            .iter()
            .zip(kinds.iter().zip(inferred))
            .map(|(p, (k, inferred))| (p.as_str(), k.unwrap_or(inferred)))
            .collect();
        self.tracker.finish_with(&extra)
    }

    fn thrower(&mut self, state: &DemoState, e: &Entity) -> (Option<String>, Option<u64>) {
        let Some(raw) = self
            .paths
            .value(state, e, "m_hThrower")
            .and_then(Value::as_u64)
        else {
            return (None, None);
        };
        let p = player_by_handle(state, &mut self.paths, raw);
        if p.controller.is_none() {
            return (None, None);
        }
        identity(state, &mut self.paths, &p)
    }

    /// Takes one entity change.
    pub fn on_entity(
        &mut self,
        state: &DemoState,
        change: gamewire_source2::EntityChange,
        e: &Entity,
    ) {
        use gamewire_source2::EntityChange;
        if grenade_type(state.class_name(e)).is_none() {
            return;
        }
        let Some(kind) = entity_grenade_type(state, &mut self.paths, e) else {
            return;
        };
        match change {
            EntityChange::Created => {
                let who = self.thrower(state, e);
                self.tracker.spawn(e.index, state.tick, kind, who);
            }
            EntityChange::Deleted => {
                self.tracker.remove(e.index, state.tick);
                return;
            }
            EntityChange::Updated => {
                if self.tracker.needs_thrower(e.index) {
                    let who = self.thrower(state, e);
                    self.tracker.thrower(e.index, who);
                }
                self.tracker.set_kind(e.index, kind);
            }
            EntityChange::LeftPvs => return,
        }
        if let Some(pawn) = self
            .paths
            .value(state, e, "m_hThrower")
            .and_then(Value::as_u64)
            .and_then(handle_index)
        {
            self.tracker.thrower_pawn(e.index, pawn);
        }
        if let Some(pos) = entity_position(state, &mut self.paths, e) {
            let extra = self
                .props
                .iter()
                .map(|p| {
                    self.paths
                        .value(state, e, p)
                        .map(Cell::from_value)
                        .unwrap_or(Cell::Null)
                })
                .collect();
            self.tracker.point_with(e.index, state.tick, pos, extra);
        }
    }

    /// Takes one game event: links detonations to flights.
    pub fn on_event(&mut self, state: &DemoState, ev: &GameEvent) {
        let float = |k: &str| match ev.get(k) {
            Some(EventValue::Float(f)) => *f,
            _ => f32::NAN,
        };
        let pos = [float("x"), float("y"), float("z")];
        let entity = ev
            .get("entityid")
            .and_then(EventValue::as_i64)
            .and_then(|i| i32::try_from(i).ok());
        if let Some((_, kind)) = DETONATIONS.iter().find(|(n, _)| *n == ev.name) {
            if let Some(entity) = entity {
                self.tracker.detonate(entity, ev.tick, pos, &[kind]);
            }
            return;
        }
        let thrower_pawn = match ev.name.as_str() {
            // The inferno's owner is the thrower's pawn.
            "inferno_startburn" => entity
                .and_then(|i| state.entities.get(i))
                .and_then(|e| {
                    ["m_hOwnerEntity", "m_nOwnerId"]
                        .iter()
                        .find_map(|p| self.paths.value(state, e, p).and_then(Value::as_u64))
                })
                .and_then(handle_index),
            "molotov_detonate" => {
                let p = event_player(state, &mut self.paths, ev, "userid").unwrap_or_default();
                p.pawn.map(|e| e.index)
            }
            _ => return,
        };
        self.tracker.fire(ev.tick, pos, thrower_pawn);
    }
}

/// The value of an event key as an integer (for tests and callers).
pub fn event_int(ev: &GameEvent, key: &str) -> Option<i64> {
    ev.get(key).and_then(EventValue::as_i64)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use gamewire_source2::Game;
    use prost::Message;
    use source2_demo_protobufs as pb;

    fn item(id: u64, def: u32) -> pb::CEconItemPreviewDataBlock {
        pb::CEconItemPreviewDataBlock {
            accountid: Some(7),
            itemid: Some(id),
            defindex: Some(def),
            paintindex: Some(282),
            paintseed: Some(5),
            paintwear: Some(0.5f32.to_bits()),
            ..Default::default()
        }
    }

    #[test]
    fn item_drops_and_skins_from_end_of_match_messages() {
        use pb::ccs_usr_msg_end_of_match_all_players_data::PlayerData;
        let mut state = DemoState::default();
        state.tick = 9000;
        let drops = pb::CCsUsrMsgSendPlayerItemDrops {
            entity_updates: vec![item(11, 7), item(12, 4000)],
        }
        .encode_to_vec();
        let summary = pb::CCsUsrMsgEndOfMatchAllPlayersData {
            allplayerdata: vec![PlayerData {
                xuid: Some(76_561_198_000_000_001),
                name: Some("alice".into()),
                teamnumber: Some(2),
                items: vec![item(0, 1), item(13, 9)],
                ..Default::default()
            }],
            scene: None,
        }
        .encode_to_vec();
        let mut c = EconCollector::new(true, true);
        for (id, payload) in [(361, &drops), (375, &summary), (306, &drops)] {
            c.on_message(
                &state,
                &UserMessage {
                    id,
                    game: Game::Cs2,
                    payload,
                },
            );
        }
        let tables = c.finish();
        assert_eq!(tables[0].name, "item_drops");
        assert_eq!(tables[0].rows(), 2);
        let first = tables[0].row(0);
        assert_eq!(first[0], Cell::Int(9000));
        assert_eq!(first[1], Cell::UInt(76_561_197_960_265_735));
        assert_eq!(first[5], Cell::UInt(11));
        assert_eq!(first[7], Cell::Str("AK-47".into()));
        assert_eq!(first[11], Cell::Float(0.5));
        // An index without a known name: null name.
        assert_eq!(tables[0].row(1)[7], Cell::Null);
        assert_eq!(tables[1].name, "skins");
        // The default item (item id 0) is left out.
        assert_eq!(tables[1].rows(), 1);
        let skin = tables[1].row(0);
        assert_eq!(skin[1], Cell::UInt(76_561_198_000_000_001));
        assert_eq!(skin[2], Cell::Str("alice".into()));
        assert_eq!(skin[3], Cell::Int(2));
        assert_eq!(skin[6], Cell::Str("AWP".into()));
        let kinds: Vec<Kind> = tables[1].columns.iter().map(|(_, c)| c.kind()).collect();
        let want: Vec<Kind> = skins_schema().into_iter().map(|(_, k)| k).collect();
        assert_eq!(kinds, want);
    }
}
