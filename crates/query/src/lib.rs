//! Analyst tables over gamewire's Source 2 parser.
//!
//! A [`Query`] names the tables wanted (`events`, `ticks`, `players`,
//! `chat`, `grenades`, `rounds`, `kills`, `damages`, `purchases`,
//! `user_commands`, `item_drops`, `skins`, awpy's `shots`, `bomb`,
//! `smokes`, `infernos`, `flashes`, `footsteps`, Dota 2's `combat_log`,
//! `updated_fields`, the props the demo sends, and `header`, one row per
//! demo) and their options;
//! [`Query::run`] computes all of them in one pass over a demo, asking the
//! parser to decode only what those tables need ([`Query::interests`]), with
//! the [`RunOptions`] of the query (shared send tables, keeping the tables
//! of a demo cut short). The [`input`] stage turns a path (a file, compressed
//! too, standard input, a broadcast directory) into the demo's bytes.
//! Tables are typed columns ([`Column`]) and are written as CSV, JSON Lines
//! or Parquet ([`write`](mod@write)); every table's columns, types and units
//! are listed in [`reference`](mod@reference) (and `docs/tables.md`, generated from it).
//!
//! Beside the tables, the views of a demo the command line prints: the
//! entities at a tick ([`entities`]), the user messages decoded to JSON
//! ([`messages`]), the demo's summary ([`summary`]), its send tables as
//! a tree ([`schema`]) and the props it offers ([`props`]); and the demo
//! writers for files ([`edit`]: rewrite, cut, anonymize).
//!
//! A query is checked before the parse ([`Query::validate`]: an option no
//! table asked for uses is an error) and after it (names the demo does not
//! have, a [`TickSet`] beyond the demo's last tick); every error says what
//! kind of failure it is ([`QueryError::category`]).
//!
//! ```no_run
//! use gamewire_query::{input, Query, TableKind};
//! let demo = input::open("demo.dem".as_ref()).unwrap();
//! let query = Query { tables: vec![TableKind::Kills, TableKind::Rounds], ..Query::default() };
//! for table in query.run_input(&demo).unwrap().tables {
//!     println!("{}: {} rows", table.name, table.rows());
//! }
//! ```
#![forbid(unsafe_code)]

// The modules, bottom up: each uses only modules listed before it, so
// their imports form no circle.
// - the table model and its writers: `error`, `tick_set`, `input`, `table` (Cell, Rows,
//   Column, Table), `raw_events` (the game events as sent, `gamewire
//   events`), `write` (CSV, JSON Lines, Parquet), `spool` (rows kept in a
//   temporary file until a table's columns are known);
// - the reference of every table's columns: `reference` (uses `table`);
// - names: `coords`, `item_names`, `classes`, `prop_paths` (dotted names to
//   field paths), `friendly_props` (demoparser2's names), `world`
//   (game-wide and team props), `players`, `player_props` (reading them),
//   `kinds` (column types), `prop_checks`, `event_players`;
// - collectors, one per table family: `ticks`, `matches` (rounds, kills,
//   damages, purchases), `actions` (shots, bomb, smokes, ...), `grenades`,
//   `events`, `collect` (players, chat, econ, combat log, user commands),
//   `updated_fields`;
// - views of a demo for the command line: `entities` (a snapshot at a
//   tick), `messages` (user messages as JSON), `summary` (`info`),
//   `schema` (the serializer tree; uses `prop_checks`), `props` (the props
//   a demo offers; uses `prop_checks`, `schema`, `run`);
// - Teeworlds 0.7 recordings as tables: `teeworlds` (uses `table`);
// - demos written to files: `edit` (rewrite, cut, anonymize; uses `input`,
//   `run` and the `rounds` query for a cut by round);
// - this file: the query, the visitor that fans a pass out to the
//   collectors (`Collectors`), and the runs.
pub mod actions;
pub mod classes;
pub mod collect;
pub mod coords;
pub mod edit;
pub mod entities;
pub mod error;
pub mod event_players;
pub mod events;
pub mod follow;
pub mod friendly_props;
pub mod grenades;
pub mod input;
pub mod item_names;
pub mod kinds;
pub mod matches;
pub mod messages;
pub mod player_props;
pub mod players;
pub mod prop_checks;
pub mod prop_paths;
pub mod props;
pub mod purchases;
pub mod raw_events;
pub mod reference;
pub mod replay;
pub mod run;
pub mod schema;
pub mod spool;
pub mod stats;
pub mod summary;
pub mod table;
pub mod teeworlds;
pub mod tick_set;
pub mod ticks;
pub mod tw_replay;
pub mod updated_fields;
pub mod world;
pub mod write;

use std::str::FromStr;

use gamewire_source2::stringtable::StringTable;
use gamewire_source2::{Entity, EntityChange, FieldPath, UserMessage};

pub use gamewire_source2::gameevent::GameEvent;
pub use gamewire_source2::{
    DemoError, DemoState, Game, Interests, NoVisitor, SendTableCache, UserCommand, Visitor,
};

pub use error::{ErrorCategory, QueryError};
pub use input::{DemoInput, DemoSource, DemoStream, InputCut, InputError};
pub use run::{Cut, DemoData, ParseFailure, Parsed, RunOptions};
pub use table::{Cell, Column, Kind, Rows, Table};
pub use tick_set::TickSet;

use actions::{ActionKinds, ActionTables};
use collect::{
    ChatCollector, CombatLogCollector, EconCollector, PlayersCollector, UserCommandsCollector,
};
use events::{EventsCollector, ENTITIES_FIRST_EVENTS, SYNTHETIC_EVENTS};
use grenades::GrenadesCollector;
use matches::MatchTables;
use summary::HeaderCollector;
use ticks::TicksCollector;
use updated_fields::UpdatedFieldsCollector;
use world::{player_source, PlayerSource};

/// A table a query can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TableKind {
    /// Game events with player and game-wide props (`parse_event`).
    Events,
    /// One row per player per tick (`parse_ticks`).
    Ticks,
    /// Players from `userinfo` and their controllers.
    Players,
    /// Chat lines.
    Chat,
    /// Grenade trajectories.
    Grenades,
    /// Rounds.
    Rounds,
    /// Kills.
    Kills,
    /// Damage.
    Damages,
    /// Purchases.
    Purchases,
    /// User commands (the players' input).
    UserCommands,
    /// Shots (`weapon_fire`).
    Shots,
    /// Bomb plants, defuses, drops and pickups.
    Bomb,
    /// Smokes, from detonation to expiry.
    Smokes,
    /// Molotov and incendiary fires, from start to expiry.
    Infernos,
    /// Players blinded by flashbangs (`player_blind`).
    Flashes,
    /// Footsteps (`player_footstep`).
    Footsteps,
    /// Items dropped to players at the end of a match.
    ItemDrops,
    /// The items players had equipped (skins), from the end-of-match
    /// summary.
    Skins,
    /// Dota 2's combat log.
    CombatLog,
    /// The props the demo sends, by name (`list_updated_fields`).
    UpdatedFields,
    /// One row per demo: map, tick rate, build, length, players.
    Header,
}

impl TableKind {
    /// Every table, in output order.
    pub const ALL: [TableKind; 21] = [
        TableKind::Events,
        TableKind::Ticks,
        TableKind::Players,
        TableKind::Chat,
        TableKind::Grenades,
        TableKind::Rounds,
        TableKind::Kills,
        TableKind::Damages,
        TableKind::Purchases,
        TableKind::UserCommands,
        TableKind::Shots,
        TableKind::Bomb,
        TableKind::Smokes,
        TableKind::Infernos,
        TableKind::Flashes,
        TableKind::Footsteps,
        TableKind::ItemDrops,
        TableKind::Skins,
        TableKind::CombatLog,
        TableKind::UpdatedFields,
        TableKind::Header,
    ];

    /// The table's name.
    pub fn name(self) -> &'static str {
        match self {
            TableKind::Events => "events",
            TableKind::Ticks => "ticks",
            TableKind::Players => "players",
            TableKind::Chat => "chat",
            TableKind::Grenades => "grenades",
            TableKind::Rounds => "rounds",
            TableKind::Kills => "kills",
            TableKind::Damages => "damages",
            TableKind::Purchases => "purchases",
            TableKind::UserCommands => "user_commands",
            TableKind::Shots => "shots",
            TableKind::Bomb => "bomb",
            TableKind::Smokes => "smokes",
            TableKind::Infernos => "infernos",
            TableKind::Flashes => "flashes",
            TableKind::Footsteps => "footsteps",
            TableKind::ItemDrops => "item_drops",
            TableKind::Skins => "skins",
            TableKind::CombatLog => "combat_log",
            TableKind::UpdatedFields => "updated_fields",
            TableKind::Header => "header",
        }
    }

    /// The table's columns, types, units and meanings
    /// ([`reference`](mod@reference)); every table has one (a test holds
    /// the two lists together).
    pub fn spec(self) -> Option<&'static reference::TableSpec> {
        reference::spec(self.name())
    }

    /// Parses a comma-separated list of table names.
    pub fn parse_list(list: &str) -> Result<Vec<TableKind>, QueryError> {
        let mut out = Vec::new();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let kind: TableKind = name.parse()?;
            if !out.contains(&kind) {
                out.push(kind);
            }
        }
        Ok(out)
    }
}

impl FromStr for TableKind {
    type Err = QueryError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(k) = TableKind::ALL.iter().find(|k| k.name() == s) {
            return Ok(*k);
        }
        let names: Vec<&str> = TableKind::ALL.iter().map(|k| k.name()).collect();
        Err(QueryError::UnknownTable {
            name: s.to_string(),
            valid: names.join(", "),
            closest: prop_checks::closest(s, &names).join(", "),
        })
    }
}

/// What to compute, and how to run ([`Query::run`]).
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// The tables, in the order they are returned.
    pub tables: Vec<TableKind>,
    /// `events`: only these event names (all when `None`).
    pub events: Option<Vec<String>>,
    /// `events` and `ticks`: player props (friendly names such as `health`,
    /// `X`, team props such as `team_rounds_total`, game-wide props, or raw
    /// `CCSPlayerPawn.m_iHealth`, `CCSTeam.m_iScore`).
    pub player_props: Vec<String>,
    /// `events`: game-wide props (`total_rounds_played`, `is_bomb_planted`,
    /// `game_time`, or raw `CCSGameRulesProxy.m_pGameRules.<field>`); a team
    /// prop (`team_rounds_total`) gives `t_` and `ct_` columns.
    pub other_props: Vec<String>,
    /// `grenades`: raw props of the projectile entity, one column each
    /// after the fixed ones (demoparser2's `parse_grenades(extra=...)`).
    pub grenade_props: Vec<String>,
    /// `ticks`: only these ticks (all when `None`): ticks and inclusive
    /// ranges ([`TickSet`]). After the run, a set whose every tick lies
    /// beyond the demo's last tick is [`QueryError::TickOutOfRange`].
    pub ticks: Option<TickSet>,
    /// `ticks`: only the rows of these steam ids (all when `None`).
    pub players: Option<Vec<u64>>,
    /// `ticks`: only the rows of human players (bots, whose steam id is 0,
    /// are left out).
    pub humans_only: bool,
    /// Decode the entities of every class. By default, when every table
    /// asked for reads nothing but the players' controllers and pawns,
    /// their teams and the game rules ([`Query::reads_player_classes_only`]),
    /// the entities of other classes are read past, not kept
    /// ([`gamewire_source2::Visitor::wants_class`]): the same tables, faster.
    pub decode_every_class: bool,
    /// How the query runs: shared send tables, keeping a cut demo's tables.
    pub options: RunOptions,
}

impl Query {
    fn wants(&self, k: TableKind) -> bool {
        self.tables.contains(&k)
    }

    /// Whether the tables read no entity but the player row classes
    /// ([`classes::is_player_row_class`]): only `ticks`,
    /// `players`, `events` and tables that read no entity, with props that
    /// follow no handle to another entity (no weapon or inventory prop).
    pub fn reads_player_classes_only(&self) -> bool {
        use TableKind::*;
        self.tables.iter().all(|k| {
            matches!(
                k,
                Ticks
                    | Players
                    | Events
                    | Rounds
                    | Chat
                    | UserCommands
                    | ItemDrops
                    | Skins
                    | CombatLog
                    | Header
            )
        }) && self
            .player_props
            .iter()
            .chain(&self.other_props)
            .all(|p| player_source(p).reads_player_classes_only())
    }

    /// What the parser must decode for these tables: entities for every
    /// table that reads entity props (names of players come from their
    /// controllers), game events for `events` and the match tables, user
    /// messages for `chat`, `item_drops`, `skins` and `combat_log`; `grenades` reads game events too (the
    /// detonations); send tables when props are named (to check the names).
    pub fn interests(&self) -> Interests {
        use TableKind::*;
        let events = self.tables.iter().any(|k| {
            !matches!(
                k,
                Ticks
                    | Players
                    | Chat
                    | UserCommands
                    | ItemDrops
                    | Skins
                    | CombatLog
                    | UpdatedFields
                    | Header
            )
        });
        Interests {
            entities: self
                .tables
                .iter()
                .any(|k| {
                    !matches!(
                        k,
                        Chat | UserCommands | ItemDrops | Skins | CombatLog | Header
                    )
                }),
            game_events: events,
            user_messages: self.wants(Chat)
                || self.wants(ItemDrops)
                || self.wants(Skins)
                || self.wants(CombatLog),
            // Prop names are checked against the serializers.
            send_tables: !self.player_props.is_empty()
                || !self.other_props.is_empty()
                || !self.grenade_props.is_empty(),
            // The `usercmd_*` props read the players' user commands.
            user_commands: self.wants(UserCommands)
                || (self.wants(Events) || self.wants(Ticks))
                && self.player_props.iter().any(|p| {
                    matches!(player_source(p), PlayerSource::Entity(s) if s.needs_user_commands())
                }),
        }
    }

    /// Checks that every option set is used by a table asked for: an
    /// option no table of the query reads is
    /// [`QueryError::OptionNotUsed`] (a `ticks` set with only the `kills`
    /// table asked for is a mistake, not a filter silently ignored). An
    /// option given as an empty list counts as not set. [`Query::run`] and
    /// the other runs call it before they parse.
    ///
    /// | option | tables |
    /// |---|---|
    /// | `player_props` (`props`) | `events`, `ticks` |
    /// | `other_props` (`other`) | `events` |
    /// | `events` | `events` |
    /// | `ticks` | `ticks` |
    /// | `players` | `ticks` |
    /// | `humans_only` | `ticks` |
    /// | `grenade_props` | `grenades` |
    pub fn validate(&self) -> Result<(), QueryError> {
        use TableKind::*;
        let set = [
            ("props", !self.player_props.is_empty(), &[Events, Ticks][..]),
            ("other", !self.other_props.is_empty(), &[Events][..]),
            (
                "events",
                self.events.as_ref().is_some_and(|e| !e.is_empty()),
                &[Events][..],
            ),
            ("ticks", self.ticks.is_some(), &[Ticks][..]),
            (
                "players",
                self.players.as_ref().is_some_and(|p| !p.is_empty()),
                &[Ticks][..],
            ),
            ("humans_only", self.humans_only, &[Ticks][..]),
            (
                "grenade_props",
                !self.grenade_props.is_empty(),
                &[Grenades][..],
            ),
        ];
        for (option, is_set, users) in set {
            if is_set && !users.iter().any(|k| self.wants(*k)) {
                let tables: Vec<&str> = users.iter().map(|k| k.name()).collect();
                return Err(QueryError::OptionNotUsed {
                    option,
                    tables: tables.join(", "),
                });
            }
        }
        Ok(())
    }

    /// After a run: the error when the query's tick set asks only for
    /// ticks beyond the demo's last tick `last`
    /// ([`QueryError::TickOutOfRange`]).
    pub fn check_ticks(&self, last: i32) -> Result<(), QueryError> {
        match &self.ticks {
            Some(set) if self.wants(TableKind::Ticks) => set.check_last_tick(last),
            _ => Ok(()),
        }
    }

    /// Checks the names a query uses against what a demo declares (event
    /// names, prop names); the error lists the closest valid names.
    pub fn check_names(&self, state: &DemoState) -> Result<(), QueryError> {
        if self.wants(TableKind::Events) {
            if let Some(names) = &self.events {
                let declared: Vec<&str> = state
                    .event_descriptors
                    .names()
                    .chain(SYNTHETIC_EVENTS.iter().map(|(n, _)| *n))
                    .collect();
                for n in names {
                    if !declared.contains(&n.as_str()) {
                        return Err(QueryError::UnknownEvent {
                            name: n.clone(),
                            closest: prop_checks::closest(n, &declared).join(", "),
                        });
                    }
                }
            }
        }
        if self.wants(TableKind::Events) || self.wants(TableKind::Ticks) {
            if let Some(u) = prop_checks::unknown_player_prop(state, &self.player_props) {
                return Err(QueryError::UnknownProp {
                    what: "player",
                    name: u.name,
                    closest: prop_checks::closest_text(&u.closest),
                });
            }
        }
        if self.wants(TableKind::Grenades) {
            for p in &self.grenade_props {
                if !prop_checks::grenade_prop_known(state, p) {
                    let names = prop_checks::grenade_prop_names(state);
                    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
                    return Err(QueryError::UnknownGrenadeProp {
                        name: p.clone(),
                        closest: prop_checks::closest(p, &refs).join(", "),
                    });
                }
            }
        }
        for p in &self.other_props {
            if !prop_checks::other_prop_known(state, p) {
                let names: Vec<&str> = world::other_names()
                    .into_iter()
                    .filter(|n| prop_checks::other_prop_known(state, n))
                    .collect();
                return Err(QueryError::UnknownProp {
                    what: "game-wide",
                    name: p.clone(),
                    closest: prop_checks::closest_text(&prop_checks::close_names(p, &names)),
                });
            }
        }
        Ok(())
    }
}

/// The visitor that fans one pass out to the collectors of a query.
#[derive(Debug)]
pub struct Collectors {
    interests: Interests,
    /// Only the player row classes are decoded
    /// ([`Query::reads_player_classes_only`]).
    only_player_classes: bool,
    order: Vec<TableKind>,
    events: Option<EventsCollector>,
    ticks: Option<TicksCollector>,
    players: Option<PlayersCollector>,
    chat: Option<ChatCollector>,
    user_commands: Option<UserCommandsCollector>,
    econ: EconCollector,
    combat_log: Option<CombatLogCollector>,
    updated_fields: Option<UpdatedFieldsCollector>,
    grenades: Option<GrenadesCollector>,
    header: Option<HeaderCollector>,
    matches: MatchTables,
    actions: ActionTables,
    /// [`ENTITIES_FIRST_EVENTS`] waiting for the packet's entities.
    deferred: Vec<GameEvent>,
}

impl Collectors {
    /// The collectors of a query.
    pub fn new(q: &Query) -> Self {
        use TableKind::*;
        Collectors {
            interests: q.interests(),
            only_player_classes: !q.decode_every_class && q.reads_player_classes_only(),
            order: q.tables.clone(),
            events: q
                .wants(Events)
                .then(|| EventsCollector::new(q.events.clone(), &q.player_props, &q.other_props)),
            ticks: q.wants(Ticks).then(|| {
                TicksCollector::new(&q.player_props, q.ticks.clone())
                    .with_players(q.players.clone())
                    .humans_only(q.humans_only)
            }),
            players: q.wants(Players).then(PlayersCollector::default),
            chat: q.wants(Chat).then(ChatCollector::default),
            user_commands: q.wants(UserCommands).then(UserCommandsCollector::default),
            econ: EconCollector::new(q.wants(ItemDrops), q.wants(Skins)),
            combat_log: q.wants(CombatLog).then(CombatLogCollector::default),
            updated_fields: q.wants(UpdatedFields).then(UpdatedFieldsCollector::default),
            grenades: q
                .wants(Grenades)
                .then(|| GrenadesCollector::with_props(&q.grenade_props)),
            header: q.wants(Header).then(HeaderCollector::default),
            matches: MatchTables::new(
                q.wants(Rounds),
                q.wants(Kills),
                q.wants(Damages),
                q.wants(Purchases),
            ),
            actions: ActionTables::new(ActionKinds {
                shots: q.wants(Shots),
                bomb: q.wants(Bomb),
                smokes: q.wants(Smokes),
                infernos: q.wants(Infernos),
                flashes: q.wants(Flashes),
                footsteps: q.wants(Footsteps),
            }),
            deferred: Vec::new(),
        }
    }

    /// Hands an event to every collector that reads events.
    fn dispatch(&mut self, state: &DemoState, event: &GameEvent) {
        if let Some(e) = &mut self.events {
            e.on_event(state, event);
        }
        if let Some(g) = &mut self.grenades {
            g.on_event(state, event);
        }
        if self.matches.any() {
            self.matches.on_event(state, event);
        }
        if self.actions.any() {
            self.actions.on_event(state, event);
        }
    }

    /// Hands on the deferred events (after the packet's entities).
    fn flush(&mut self, state: &DemoState) {
        if self.deferred.is_empty() {
            return;
        }
        for ev in std::mem::take(&mut self.deferred) {
            self.dispatch(state, &ev);
        }
    }

    /// Keeps the `events` rows in a temporary file in `dir`
    /// ([`EventsCollector::spooled`]).
    pub(crate) fn spool_events(&mut self, dir: Option<&std::path::Path>) {
        self.events = self.events.take().map(|e| e.spooled(dir));
    }

    /// The `events` table of a spooled run ([`Collectors::spool_events`]),
    /// its rows still in their file; the other tables are not made.
    pub(crate) fn finish_events_spooled(
        mut self,
        state: &DemoState,
    ) -> Option<spool::SpooledTable> {
        self.flush(state);
        self.events.map(|e| e.finish_spooled(state))
    }

    /// The tables, in the order of the query.
    pub fn finish(mut self, state: &DemoState) -> Vec<Table> {
        self.flush(state);
        let mut out: Vec<Table> = Vec::new();
        if let Some(c) = self.events {
            out.push(c.finish(state));
        }
        if let Some(c) = self.ticks {
            out.push(c.finish(state));
        }
        if let Some(c) = self.players {
            out.push(c.finish(state));
        }
        if let Some(c) = self.chat {
            out.push(c.table);
        }
        if let Some(c) = self.user_commands {
            out.push(c.table);
        }
        out.extend(self.econ.finish());
        if let Some(c) = self.combat_log {
            out.push(c.table);
        }
        if let Some(c) = self.updated_fields {
            out.push(c.finish());
        }
        if let Some(c) = self.grenades {
            out.push(c.finish(state));
        }
        out.extend(self.matches.finish());
        out.extend(self.actions.finish());
        if let Some(c) = self.header {
            out.push(c.finish(state));
        }
        let mut ordered = Vec::with_capacity(out.len());
        for k in &self.order {
            if let Some(i) = out.iter().position(|t| t.name == k.name()) {
                ordered.push(out.swap_remove(i));
            }
        }
        ordered
    }
}

impl Visitor for Collectors {
    fn interests(&self) -> Interests {
        self.interests
    }

    fn wants_class(&self, class_name: &str) -> bool {
        !self.only_player_classes || classes::is_player_row_class(class_name)
    }

    /// No table reads a string table the parser does not decode for its
    /// own state anyway (`userinfo` for the players, the class baselines,
    /// Dota 2's `CombatLogNames` for the combat log).
    fn wants_string_table(&self, _name: &str) -> bool {
        false
    }

    fn on_tick_end(&mut self, state: &DemoState, tick: i32) {
        self.flush(state);
        self.matches.on_tick_end(state, tick);
        if let Some(h) = &mut self.header {
            h.on_tick(tick);
        }
        if let Some(p) = &mut self.players {
            p.on_tick(state);
        }
    }

    fn on_entity(
        &mut self,
        state: &DemoState,
        change: EntityChange,
        entity: &Entity,
        paths: &[FieldPath],
    ) {
        if let Some(g) = &mut self.grenades {
            g.on_entity(state, change, entity);
        }
        if let Some(f) = &mut self.updated_fields {
            f.on_entity(state, change, entity, paths);
        }
    }

    fn on_packet_entities(&mut self, state: &DemoState) {
        self.flush(state);
        if let Some(t) = &mut self.ticks {
            t.on_packet_entities(state);
        }
    }

    fn on_game_event(&mut self, state: &DemoState, event: &GameEvent) {
        // demoparser2 reads these after the packet's entities: the entity
        // their `entityid` names is created in the same packet.
        if ENTITIES_FIRST_EVENTS.contains(&event.name.as_str()) {
            self.deferred.push(event.clone());
            return;
        }
        self.dispatch(state, event);
    }

    fn on_user_message(&mut self, state: &DemoState, message: &UserMessage<'_>) {
        if let Some(c) = &mut self.chat {
            c.on_message(state, message);
        }
        self.econ.on_message(state, message);
        if let Some(c) = &mut self.combat_log {
            c.on_message(state, message);
        }
    }

    fn on_user_command(&mut self, state: &DemoState, command: &UserCommand) {
        if let Some(c) = &mut self.user_commands {
            c.on_command(state, command);
        }
    }

    fn on_string_table(&mut self, state: &DemoState, table: &StringTable, _changed: &[usize]) {
        if table.name == "userinfo" {
            if let Some(p) = &mut self.players {
                p.on_userinfo(state);
            }
            if let Some(h) = &mut self.header {
                h.on_userinfo(state);
            }
        }
    }
}

/// The Rust examples of this crate's README and of the project's README,
/// compiled as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;

/// The Rust example of `docs/reference.md` (streaming input), compiled as
/// a doc test.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/reference.md")]
struct ReferenceDoctests;
