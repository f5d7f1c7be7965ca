//! `events`: one row per game event, the one events table of the command
//! line and Python: every game event asked for with all its keys as the game
//! sends them, the players its keys name (name, steam id, slot, and the
//! player props asked for, as demoparser2's `parse_event` reads them,
//! LaihoE/demoparser), and the game-wide props asked for; which events
//! wait for their packet's entities, and the events gamewire adds.

use gamewire_source2::{DemoState, EventValue, GameEvent};
use rustc_hash::FxHashMap;

use crate::event_players::{
    event_has_player, event_player, identity, player_value, PlayerEnts, PLAYER_KEYS,
};
use crate::grenades::entity_grenade_type;
use crate::kinds::{event_key_kind, other_kind, player_kind, widen};
use crate::matches::hitgroup_name;
use crate::prop_paths::PropCache;
use crate::reference::EVENTS;
use crate::table::{Cell, Kind, Table};
use crate::world::{other_columns, other_prop_in, player_source, OtherSource, PlayerSource, World};

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

/// `events`: `event_name`, `tick`, every key of the event as the game
/// sends it (the player keys `userid`, `attacker`, ... and their `_pawn`
/// handles included), `grenade_type` for grenade events, then for each
/// player key (`attacker`, `userid` → `user`, `assister`, `victim`: the key
/// without `id`) `<p>_name`, `<p>_steamid` (0 for bots), `<p>_slot` and
/// `<p>_<prop>` for each player prop asked for, then the game-wide props
/// asked for (a team prop as `t_<name>` and `ct_<name>`). `hitgroup` is a
/// name (`chest`), as in demoparser2. Column types are declared
/// ([`crate::kinds`]); the reference is
/// [`EVENTS`].
#[derive(Debug)]
pub struct EventsCollector {
    names: Option<Vec<String>>,
    player_props: Vec<(String, PlayerSource)>,
    other_props: Vec<(String, OtherSource)>,
    needs_world: bool,
    paths: PropCache,
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
            paths: PropCache::default(),
            columns: EVENTS
                .column_names()
                .iter()
                .map(|c| c.to_string())
                .collect(),
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
            let cell = match (k.as_str(), v.as_i64()) {
                ("hitgroup", Some(h)) => Cell::Str(
                    hitgroup_name(h)
                        .map(str::to_string)
                        .unwrap_or_else(|| h.to_string()),
                ),
                _ => Cell::from_event(v),
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
            // Bots are players too: steam id 0, their name, slot and props.
            let resolved = p.controller.is_some() || p.slot.is_some();
            let (name, steamid) = if resolved {
                identity(state, &mut self.paths, &p)
            } else {
                (None, None)
            };
            // A slot nobody holds is no player.
            let known = p.controller.is_some() || name.is_some() || steamid.is_some();
            let slot = p.slot.filter(|_| known);
            let i = self.col(&format!("{prefix}_name"));
            row.push((i, name.map(Cell::Str).unwrap_or(Cell::Null)));
            let i = self.col(&format!("{prefix}_steamid"));
            row.push((i, steamid.map(Cell::UInt).unwrap_or(Cell::Null)));
            let i = self.col(&format!("{prefix}_slot"));
            row.push((
                i,
                slot.and_then(|s| i64::try_from(s).ok())
                    .map(Cell::Int)
                    .unwrap_or(Cell::Null),
            ));
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
        // `event_name` and `tick` (the reference's fixed columns).
        let mut schema: Vec<(String, Option<Kind>)> = EVENTS
            .columns
            .iter()
            .map(|c| (c.name.to_string(), Some(c.kind)))
            .collect();
        let push = |schema: &mut Vec<(String, Option<Kind>)>, name: String, kind: Option<Kind>| {
            if !schema.iter().any(|(n, _)| *n == name) {
                schema.push((name, kind));
            }
        };
        for (_, keys) in &scope {
            for (k, _) in keys {
                push(&mut schema, k.clone(), key_kinds.get(k.as_str()).copied());
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
            push(&mut schema, format!("{prefix}_slot"), Some(Kind::I64));
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
