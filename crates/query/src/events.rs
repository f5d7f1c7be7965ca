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
use crate::spool::{RowSpool, SpooledTable};
use crate::table::{Cell, Kind, KindGuess, Table};
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
    /// The rows in a temporary file instead of `rows`
    /// ([`EventsCollector::spooled`]).
    spool: Option<RowSpool>,
    /// With a spool: what each column's cells hold, for a column whose
    /// kind is not declared.
    guesses: Vec<KindGuess>,
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
            spool: None,
            guesses: Vec::new(),
            seen: Vec::new(),
        }
    }

    /// Keeps the rows in a temporary file in `dir` (the system's temporary
    /// folder when `None`) instead of memory, past the first
    /// [`crate::spool::SPOOL_ROWS`]: the table's columns are the keys of
    /// the events that occur, known only at the end, so its rows cannot be
    /// written as they come. Such a collector ends with
    /// [`EventsCollector::finish_spooled`] ([`crate::Query::run_events_spooled`]
    /// runs one).
    pub(crate) fn spooled(mut self, dir: Option<&std::path::Path>) -> Self {
        self.spool = Some(RowSpool::new(dir));
        self
    }

    /// The rows held in memory: all of them, or with a spool at most
    /// [`crate::spool::SPOOL_ROWS`].
    pub fn rows_in_memory(&self) -> usize {
        match &self.spool {
            Some(spool) => spool.rows_in_memory(),
            None => self.rows.len(),
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
        match &mut self.spool {
            Some(spool) => {
                self.guesses
                    .resize(self.columns.len(), KindGuess::default());
                guess_row(&mut self.guesses, &row);
                spool.push(&row);
            }
            None => self.rows.push(row),
        }
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

    /// The table (of the rows in memory: a spooled collector ends with
    /// [`EventsCollector::finish_spooled`]).
    pub fn finish(self, state: &DemoState) -> Table {
        let schema = self.schema(state);
        let to_schema = self.to_schema(&schema);
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

    /// The schema's column of each collected column.
    fn to_schema(&self, schema: &[(String, Option<Kind>)]) -> Vec<Option<usize>> {
        self.columns
            .iter()
            .map(|c| schema.iter().position(|(n, _)| n == c))
            .collect()
    }

    /// The table of a spooled collector (one that keeps its rows in a
    /// temporary file: [`crate::Query::run_events_spooled`]), its rows
    /// still in their file: the columns and kinds
    /// [`EventsCollector::finish`] gives (a column without a declared kind
    /// takes the kind its cells need), to write with
    /// [`SpooledTable::write`]. A collector without a spool gives its rows
    /// in memory the same way.
    pub fn finish_spooled(self, state: &DemoState) -> SpooledTable {
        let schema = self.schema(state);
        let to_schema = self.to_schema(&schema);
        let (spool, guesses) = match self.spool {
            Some(spool) => (spool, self.guesses),
            None => {
                let mut spool = RowSpool::new(None);
                let mut guesses = vec![KindGuess::default(); self.columns.len()];
                for row in &self.rows {
                    guess_row(&mut guesses, row);
                    spool.push(row);
                }
                (spool, guesses)
            }
        };
        let columns: Vec<(String, Kind)> = schema
            .iter()
            .enumerate()
            .map(|(j, (name, kind))| {
                let guessed = || {
                    to_schema
                        .iter()
                        .position(|s| *s == Some(j))
                        .and_then(|i| guesses.get(i))
                        .map_or(Kind::Str, KindGuess::kind)
                };
                (name.clone(), kind.unwrap_or_else(guessed))
            })
            .collect();
        SpooledTable::new("events", columns, to_schema, spool)
    }
}

/// Takes a row's cells into the guesses of their columns: the cell a
/// column keeps is the row's last for it.
fn guess_row(guesses: &mut [KindGuess], row: &[(usize, Cell)]) {
    for (n, (i, cell)) in row.iter().enumerate() {
        let later = row.get(n + 1..).unwrap_or_default();
        if !later.iter().any(|(j, _)| j == i) {
            if let Some(g) = guesses.get_mut(*i) {
                g.add(cell);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::spool::RowSpool;
    use crate::write::{write_table, Format};
    use crate::{Collectors, Query, RunOptions, TableKind};
    use gamewire_source2::{
        Entity, EntityChange, FieldPath, Interests, UserCommand, UserMessage, Visitor,
    };

    /// A query's collectors, with the most `events` rows they ever held
    /// in memory after an event was handed on.
    struct Watched {
        collectors: Collectors,
        most: usize,
    }

    impl Watched {
        fn look(&mut self) {
            let held = self
                .collectors
                .events
                .as_ref()
                .map_or(0, EventsCollector::rows_in_memory);
            self.most = self.most.max(held);
        }
    }

    impl Visitor for Watched {
        fn interests(&self) -> Interests {
            self.collectors.interests()
        }
        fn wants_class(&self, class_name: &str) -> bool {
            self.collectors.wants_class(class_name)
        }
        fn wants_string_table(&self, name: &str) -> bool {
            self.collectors.wants_string_table(name)
        }
        fn on_tick_start(&mut self, state: &DemoState, tick: i32) {
            self.collectors.on_tick_start(state, tick);
        }
        fn on_tick_end(&mut self, state: &DemoState, tick: i32) {
            self.collectors.on_tick_end(state, tick);
            self.look();
        }
        fn on_entity(
            &mut self,
            state: &DemoState,
            change: EntityChange,
            entity: &Entity,
            paths: &[FieldPath],
        ) {
            self.collectors.on_entity(state, change, entity, paths);
        }
        fn on_packet_entities(&mut self, state: &DemoState) {
            self.collectors.on_packet_entities(state);
            self.look();
        }
        fn on_game_event(&mut self, state: &DemoState, event: &GameEvent) {
            self.collectors.on_game_event(state, event);
            self.look();
        }
        fn on_user_message(&mut self, state: &DemoState, message: &UserMessage<'_>) {
            self.collectors.on_user_message(state, message);
        }
        fn on_user_command(&mut self, state: &DemoState, command: &UserCommand) {
            self.collectors.on_user_command(state, command);
        }
        fn on_string_table(
            &mut self,
            state: &DemoState,
            table: &gamewire_source2::stringtable::StringTable,
            changed: &[usize],
        ) {
            self.collectors.on_string_table(state, table, changed);
        }
    }

    /// Parses `data` with the query's collectors, the `events` rows
    /// spooled with at most `held` of them in memory: the table, and the
    /// most rows held in memory after any event.
    fn spooled_run(query: &Query, data: &[u8], held: usize) -> (SpooledTable, usize) {
        let mut collectors = Collectors::new(query);
        collectors.events = collectors.events.take().map(|e| EventsCollector {
            spool: Some(RowSpool::new(None).with_memory_rows(held)),
            ..e
        });
        let mut watched = Watched {
            collectors,
            most: 0,
        };
        let (state, cut) = RunOptions::default()
            .parse_keeping_cut(data, &mut watched)
            .unwrap();
        assert!(cut.is_none());
        let table = watched.collectors.finish_events_spooled(&state).unwrap();
        (table, watched.most)
    }

    /// The `events` table of a spooled collector holding at most a few rows
    /// in memory, whatever the number of events, is written byte for byte
    /// as the whole table is, in every format: all events, events by name,
    /// with player props and game-wide props.
    #[test]
    fn spooled_events_hold_few_rows_and_write_the_whole_tables_bytes() {
        const HELD: usize = 4;
        let data = std::fs::read(gamewire_corpus::path("cs2/14011.dem")).unwrap();
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let queries = [
            (None, vec![], vec![]),
            (
                Some(strings(&["player_death", "weapon_fire", "player_hurt"])),
                strings(&["health"]),
                vec![],
            ),
            (
                None,
                strings(&["health", "X"]),
                strings(&["total_rounds_played"]),
            ),
        ];
        for (names, props, other) in queries {
            let query = Query {
                tables: vec![TableKind::Events],
                events: names.clone(),
                player_props: props.clone(),
                other_props: other.clone(),
                ..Query::default()
            };
            let whole = query.run(&data).unwrap().tables.remove(0);
            assert!(whole.rows() > 3 * HELD, "{names:?}: {} rows", whole.rows());
            for format in [Format::Csv, Format::Jsonl, Format::Parquet] {
                let (table, most) = spooled_run(&query, &data, HELD);
                assert!(most <= HELD, "{names:?}: {most} rows held");
                assert_eq!(table.rows(), whole.rows());
                let mut want = Vec::new();
                write_table(&whole, format, &mut want).unwrap();
                let got = table.write(format, None, Vec::new()).unwrap();
                assert!(got == want, "{names:?} {props:?} {other:?} as {format:?}");
            }
            // Read back whole, the same table.
            let (table, _) = spooled_run(&query, &data, HELD);
            assert_eq!(table.into_table().unwrap(), whole);
        }
    }
}
