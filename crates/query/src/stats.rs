//! What a demo holds, counted in one full parse (`gamewire stats`).
//!
//! A [`StatsCollector`] asks the parser for everything it can decode
//! ([`Interests::ALL`]: every entity of every class with all its fields,
//! every string table, every game event, every user message and user
//! command) and counts what comes: entity creates, updates, PVS leaves and
//! deletes and the fields their updates carried, per server class; game
//! events by name; user messages by name; string table updates and the
//! entries they changed; ticks and frames. The parser's own counts (frames
//! by demo command, packet messages by name) are read from the final
//! [`DemoState`]. [`StatsCollector::finish`] gives the [`Stats`], which
//! serialize to the `gamewire stats --format json` object.
//!
//! The counting is kept to a few additions per callback: classes are
//! counted in a vector indexed by class id and user messages by id, both
//! named once at the end, so that `stats` costs little more than a bare
//! full parse (it is the command the benchmarks time as gamewire's whole
//! process full parse).

use std::collections::BTreeMap;
use std::time::Duration;

use gamewire_source2::stringtable::StringTable;
use gamewire_source2::{
    DemoState, Entity, EntityChange, FieldPath, Game, GameEvent, Interests, UserCommand,
    UserMessage, Visitor,
};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// Entity changes of one class (or of all classes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct EntityCounts {
    /// Entities created (or re-created) with their baseline and fields.
    pub created: u64,
    /// Updates in place.
    pub updated: u64,
    /// Entities that left the PVS.
    pub left_pvs: u64,
    /// Entities deleted.
    pub deleted: u64,
    /// Field values decoded: the field paths the creates and updates
    /// carried.
    pub fields: u64,
}

impl EntityCounts {
    fn add(&mut self, other: &EntityCounts) {
        self.created += other.created;
        self.updated += other.updated;
        self.left_pvs += other.left_pvs;
        self.deleted += other.deleted;
        self.fields += other.fields;
    }

    fn is_empty(&self) -> bool {
        *self == EntityCounts::default()
    }
}

/// The ticks of a demo, as the frames gave them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TickCounts {
    /// The first tick of a frame (`None` for a demo without one).
    pub first: Option<i32>,
    /// The last tick of a frame.
    pub last: Option<i32>,
    /// Ticks started: frames whose tick differs from the frame before.
    pub count: u64,
}

/// A string table's traffic.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StringTableCounts {
    /// Entries at the end of the parse.
    pub entries: u64,
    /// Creates and updates of the table that changed entries.
    pub updates: u64,
    /// Entries changed, summed over the updates.
    pub changed: u64,
}

/// What a full parse read: the `gamewire stats` result.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Stats {
    /// The game (`cs2`, `dota2`, `deadlock`, `unknown`).
    pub game: String,
    /// The map, from the header.
    pub map: Option<String>,
    /// Bytes of demo read (after decompression).
    pub bytes: u64,
    /// Wall time of the read and the parse, in seconds.
    pub seconds: f64,
    /// `bytes` per second, in millions.
    pub mb_per_s: f64,
    /// Frames read.
    pub frames: u64,
    /// Ticks.
    pub ticks: TickCounts,
    /// Whether the demo ended with `DEM_Stop`.
    pub reached_stop: bool,
    /// Frames by demo command (`DEM_Packet`, ...).
    pub commands: BTreeMap<String, u64>,
    /// Packet messages by name (`svc_PacketEntities`, `net_Tick`, ...).
    pub net_messages: BTreeMap<String, u64>,
    /// Entity changes of every class together.
    pub entities: EntityCounts,
    /// Entity changes by server class (classes with none left out).
    pub classes: BTreeMap<String, EntityCounts>,
    /// Game events by name.
    pub game_events: BTreeMap<String, u64>,
    /// User messages and protobuf game events by name
    /// (`CsUmServerRankUpdate`, `GeFireBulletsId`, `unknown_<id>`).
    pub user_messages: BTreeMap<String, u64>,
    /// User commands decoded.
    pub user_commands: u64,
    /// String tables by name.
    pub string_tables: BTreeMap<String, StringTableCounts>,
    /// Where the demo was cut short, when it was: everything before was
    /// read and counted.
    pub cut: Option<String>,
}

impl Stats {
    /// Game events of every name.
    pub fn game_event_total(&self) -> u64 {
        self.game_events.values().sum()
    }

    /// User messages of every name.
    pub fn user_message_total(&self) -> u64 {
        self.user_messages.values().sum()
    }

    /// Packet messages of every name.
    pub fn net_message_total(&self) -> u64 {
        self.net_messages.values().sum()
    }
}

/// Counts everything a full parse decodes (see the module docs).
#[derive(Debug, Default)]
pub struct StatsCollector {
    /// Entity changes by class id.
    classes: Vec<EntityCounts>,
    game_events: BTreeMap<String, u64>,
    /// User messages by id, with the game whose ids they are.
    user_messages: FxHashMap<u32, u64>,
    game: Option<Game>,
    user_commands: u64,
    /// String table (updates, entries changed) by table id.
    string_tables: Vec<(u64, u64)>,
    ticks: TickCounts,
}

impl StatsCollector {
    /// A collector with nothing counted.
    pub fn new() -> StatsCollector {
        StatsCollector::default()
    }

    /// The counts, with the parser's own from its final `state`; `bytes`
    /// and `elapsed` are what was read and how long reading and parsing
    /// took; `cut` says where a demo cut short ended.
    pub fn finish(
        self,
        state: &DemoState,
        bytes: u64,
        elapsed: Duration,
        cut: Option<String>,
    ) -> Stats {
        let mut classes: BTreeMap<String, EntityCounts> = BTreeMap::new();
        let mut entities = EntityCounts::default();
        for (id, counts) in self.classes.iter().enumerate() {
            if counts.is_empty() {
                continue;
            }
            entities.add(counts);
            let name = state
                .classes
                .get(id)
                .map_or_else(|| format!("class_{id}"), |c| c.name.clone());
            classes.entry(name).or_default().add(counts);
        }
        let game = self.game.unwrap_or(state.game);
        let mut user_messages = BTreeMap::new();
        for (id, n) in &self.user_messages {
            *user_messages
                .entry(gamewire_source2::visitor::message_name_in(game, *id))
                .or_insert(0) += n;
        }
        let mut string_tables = BTreeMap::new();
        for (id, table) in state.string_tables.iter().enumerate() {
            let (updates, changed) = self.string_tables.get(id).copied().unwrap_or_default();
            let counts = StringTableCounts {
                entries: table.entries.len() as u64,
                updates,
                changed,
            };
            string_tables.insert(table.name.clone(), counts);
        }
        let seconds = elapsed.as_secs_f64();
        Stats {
            game: crate::summary::game_name(state.game).to_string(),
            map: state.map_name().map(String::from),
            bytes,
            seconds,
            mb_per_s: if seconds > 0.0 {
                bytes as f64 / 1e6 / seconds
            } else {
                0.0
            },
            frames: state.frames,
            ticks: self.ticks,
            reached_stop: state.reached_stop,
            commands: state.command_counts.clone(),
            net_messages: state.message_counts.clone(),
            entities,
            classes,
            game_events: self.game_events,
            user_messages,
            user_commands: self.user_commands,
            string_tables,
            cut,
        }
    }
}

impl Visitor for StatsCollector {
    fn interests(&self) -> Interests {
        Interests::ALL
    }

    fn on_tick_start(&mut self, _state: &DemoState, tick: i32) {
        let t = &mut self.ticks;
        t.first.get_or_insert(tick);
        t.last = Some(tick);
        t.count += 1;
    }

    fn on_entity(
        &mut self,
        _state: &DemoState,
        change: EntityChange,
        entity: &Entity,
        paths: &[FieldPath],
    ) {
        let id = entity.class_id as usize;
        if id >= self.classes.len() {
            self.classes.resize(id + 1, EntityCounts::default());
        }
        let Some(c) = self.classes.get_mut(id) else {
            return;
        };
        match change {
            EntityChange::Created => c.created += 1,
            EntityChange::Updated => c.updated += 1,
            EntityChange::LeftPvs => c.left_pvs += 1,
            EntityChange::Deleted => c.deleted += 1,
        }
        c.fields += paths.len() as u64;
    }

    fn on_game_event(&mut self, _state: &DemoState, event: &GameEvent) {
        match self.game_events.get_mut(&event.name) {
            Some(n) => *n += 1,
            None => {
                self.game_events.insert(event.name.clone(), 1);
            }
        }
    }

    fn on_user_message(&mut self, _state: &DemoState, message: &UserMessage<'_>) {
        self.game.get_or_insert(message.game);
        *self.user_messages.entry(message.id).or_insert(0) += 1;
    }

    fn on_user_command(&mut self, _state: &DemoState, _command: &UserCommand) {
        self.user_commands += 1;
    }

    fn on_string_table(&mut self, state: &DemoState, table: &StringTable, changed: &[usize]) {
        let Some(id) = state
            .string_tables
            .iter()
            .position(|t| std::ptr::eq(t, table))
            .or_else(|| {
                state
                    .string_tables
                    .iter()
                    .position(|t| t.name == table.name)
            })
        else {
            return;
        };
        if id >= self.string_tables.len() {
            self.string_tables.resize(id + 1, (0, 0));
        }
        if let Some(t) = self.string_tables.get_mut(id) {
            t.0 += 1;
            t.1 += changed.len() as u64;
        }
    }
}
