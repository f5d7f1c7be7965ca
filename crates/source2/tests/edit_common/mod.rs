//! What the edit tests compare: a per-tick digest of everything a demo
//! decodes to (every entity's index, serial, class, activity and field
//! values; every string table; the game events; the user messages).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

use gamewire_source2::stringtable::StringTable;
use gamewire_source2::{
    DemoParser, DemoState, Entity, EntityChange, FieldPath, GameEvent, UserMessage, Visitor,
};

/// The digest of one tick, taken when its frames have all been read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TickDigest {
    pub tick: i32,
    /// Live entities.
    pub entities: usize,
    /// Order-independent sum of every entity's hash.
    pub entity_sum: u64,
    /// Hash of every string table (name, entries) in id order.
    pub tables: u64,
    /// Hashes of the game events of the tick, in order.
    pub events: Vec<u64>,
    /// Hashes of the user messages of the tick, in order.
    pub user_messages: Vec<u64>,
}

fn hasher() -> std::collections::hash_map::DefaultHasher {
    std::collections::hash_map::DefaultHasher::new()
}

/// The hash of an entity: index, serial, class, whether it is active, and
/// each field value (floats by their bits, through `Debug`).
pub fn entity_hash(e: &Entity, text: &mut String) -> u64 {
    let mut h = hasher();
    (e.index, e.serial, e.class_id, e.active).hash(&mut h);
    let mut values = e.values();
    values.sort_by_key(|(k, _)| *k);
    for (k, v) in values {
        text.clear();
        write!(text, "{v:?}").unwrap();
        (k, text.as_str()).hash(&mut h);
    }
    h.finish()
}

/// Hash of every string table.
pub fn tables_hash(state: &DemoState) -> u64 {
    let mut h = hasher();
    for t in &state.string_tables {
        t.name.hash(&mut h);
        for e in &t.entries {
            (&e.key, &e.value).hash(&mut h);
        }
    }
    h.finish()
}

/// The digest visitor: entity hashes kept up to date from the changes,
/// the tables hashed again when one changed.
#[derive(Debug, Default)]
pub struct Digest {
    pub ticks: Vec<TickDigest>,
    entities: HashMap<i32, u64>,
    tables: u64,
    tables_changed: bool,
    events: Vec<u64>,
    user_messages: Vec<u64>,
    text: String,
}

impl Visitor for Digest {
    fn on_entity(
        &mut self,
        _state: &DemoState,
        change: EntityChange,
        entity: &Entity,
        _paths: &[FieldPath],
    ) {
        match change {
            EntityChange::Deleted => {
                self.entities.remove(&entity.index);
            }
            _ => {
                let h = entity_hash(entity, &mut self.text);
                self.entities.insert(entity.index, h);
            }
        }
    }

    fn on_string_table(&mut self, _state: &DemoState, _table: &StringTable, _changed: &[usize]) {
        self.tables_changed = true;
    }

    fn on_game_event(&mut self, _state: &DemoState, event: &GameEvent) {
        let mut h = hasher();
        event.name.hash(&mut h);
        self.text.clear();
        write!(self.text, "{:?}", event.keys).unwrap();
        self.text.hash(&mut h);
        self.events.push(h.finish());
    }

    fn on_user_message(&mut self, _state: &DemoState, message: &UserMessage<'_>) {
        let mut h = hasher();
        (message.id, message.payload).hash(&mut h);
        self.user_messages.push(h.finish());
    }

    fn on_tick_start(&mut self, state: &DemoState, _tick: i32) {
        // What came before the first tick (the signon's frames, read at
        // tick -1 without a tick of their own) is a digest of its own.
        if self.ticks.is_empty() {
            self.on_tick_end(state, -1);
        }
    }

    fn on_tick_end(&mut self, state: &DemoState, tick: i32) {
        if self.tables_changed {
            self.tables = tables_hash(state);
            self.tables_changed = false;
        }
        self.ticks.push(TickDigest {
            tick,
            entities: self.entities.len(),
            entity_sum: self.entities.values().fold(0u64, |a, &b| a.wrapping_add(b)),
            tables: self.tables,
            events: std::mem::take(&mut self.events),
            user_messages: std::mem::take(&mut self.user_messages),
        });
    }
}

/// A demo read with the digest visitor: the digests, the final state, and
/// the error that ended the read (a cut demo's), checking that the
/// entity hashes kept from the changes are those of the final state.
pub fn digest(
    data: &[u8],
) -> (
    Vec<TickDigest>,
    DemoState,
    Option<gamewire_source2::DemoError>,
) {
    let mut parser = DemoParser::new(data).unwrap();
    let mut d = Digest::default();
    let end = parser.run(&mut d).err();
    let state = parser.state;
    let mut text = String::new();
    let direct: HashMap<i32, u64> = state
        .entities
        .iter()
        .map(|e| (e.index, entity_hash(e, &mut text)))
        .collect();
    assert_eq!(direct, d.entities, "entity hashes kept from the changes");
    (d.ticks, state, end)
}

/// Ticks by number (a tick whose frames are not contiguous appears once
/// per run of frames; the last one holds).
pub fn by_tick(ticks: &[TickDigest]) -> BTreeMap<i32, &TickDigest> {
    ticks.iter().map(|t| (t.tick, t)).collect()
}

/// Every corpus demo, and the corpus's Deadlock broadcasts as the demo
/// stream [`gamewire_source2::broadcast::to_demo`] makes of their fragments
/// (the signup's `start.bin`, the first fragment's `full.bin`, then each
/// `delta.bin` in order): (name, bytes).
pub fn inputs() -> Vec<(String, Vec<u8>)> {
    let demos = gamewire_corpus::source2_demos().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        demos.len() >= 7,
        "expected the 7 corpus demos, found {demos:?}"
    );
    let mut out: Vec<(String, Vec<u8>)> = demos
        .iter()
        .map(|p| (p.display().to_string(), std::fs::read(p).unwrap()))
        .collect();
    let root = gamewire_corpus::path("deadlock/broadcast");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("sync.json").is_file())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 2,
        "expected the 2 corpus broadcasts in {}",
        root.display()
    );
    for dir in dirs {
        let mut numbered: Vec<u64> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.unwrap().file_name().to_str()?.parse().ok())
            .filter(|&n| n > 0)
            .collect();
        numbered.sort_unstable();
        let fragment = |n: u64, file: &str| gamewire_source2::broadcast::Fragment {
            name: format!("{n}/{file}"),
            data: std::fs::read(dir.join(n.to_string()).join(file)).unwrap(),
        };
        let mut fragments = vec![fragment(0, "start.bin"), fragment(numbered[0], "full.bin")];
        for (i, &n) in numbered.iter().enumerate() {
            if n != numbered[0] + i as u64 || !dir.join(n.to_string()).join("delta.bin").is_file() {
                break;
            }
            fragments.push(fragment(n, "delta.bin"));
        }
        let (demo, error) = gamewire_source2::broadcast::to_demo(&fragments);
        assert!(error.is_none(), "{}: {error:?}", dir.display());
        out.push((dir.display().to_string(), demo));
    }
    out
}
