//! The state of the entities at the end of a tick: each entity with its
//! class, serial, whether it is active, and its props by path name (the
//! send tables' names, such as `CBodyComponent.m_cellX`), as JSON.
//!
//! [`EntitySnapshot`] is a visitor: parse a demo with it (for example
//! [`crate::RunOptions::parse_keeping_cut`]) and read [`EntitySnapshot::lines`].

use gamewire_source2::{DemoState, Entity, EntityChange, FieldPath, Interests, Visitor};

/// Captures the entity state at the end of the first tick at or after the
/// one asked for.
#[derive(Debug, Clone)]
pub struct EntitySnapshot {
    tick: i32,
    class: Option<String>,
    lines: Vec<String>,
    done: bool,
    /// The tick whose end the snapshot was taken at.
    taken_at: i32,
}

impl EntitySnapshot {
    /// A snapshot at the end of `tick`, of every entity or, with `class`,
    /// of that class's only (the other classes are read past, not decoded).
    pub fn new(tick: i32, class: Option<String>) -> Self {
        EntitySnapshot {
            tick,
            class,
            lines: Vec::new(),
            done: false,
            taken_at: 0,
        }
    }

    /// One JSON object per entity (`index`, `class`, `serial`, `active`,
    /// `props` sorted by name), in entity index order.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// The tick whose end the snapshot was taken at, once taken (`None`:
    /// the demo ended before the tick asked for).
    pub fn taken_at(&self) -> Option<i32> {
        self.done.then_some(self.taken_at)
    }
}

impl Visitor for EntitySnapshot {
    fn interests(&self) -> Interests {
        Interests {
            entities: true,
            ..Interests::NONE
        }
    }
    /// With a class, the other classes are read past, not decoded.
    fn wants_class(&self, class_name: &str) -> bool {
        self.class.as_deref().is_none_or(|want| want == class_name)
    }
    fn on_tick_end(&mut self, state: &DemoState, tick: i32) {
        if self.done || tick < self.tick {
            return;
        }
        self.done = true;
        self.taken_at = tick;
        let Some(tables) = state.send_tables.as_ref() else {
            return;
        };
        for e in state.entities.iter() {
            let class = state.class_name(e);
            if let Some(want) = &self.class {
                if want != class {
                    continue;
                }
            }
            let mut obj = serde_json::Map::new();
            obj.insert("index".into(), e.index.into());
            obj.insert("class".into(), class.into());
            obj.insert("serial".into(), e.serial.into());
            obj.insert("active".into(), e.active.into());
            let mut props: Vec<(String, serde_json::Value)> = e
                .values()
                .into_iter()
                .filter_map(|(k, v)| {
                    let fp: FieldPath = gamewire_source2::entity::key_to_path(k);
                    let name = tables.path_name(e.serializer, &fp, |len| {
                        fp.prefix_key(len)
                            .and_then(|k| e.get_key(k))
                            .and_then(|v| v.as_u64())
                            .map(|v| v as u32)
                    })?;
                    Some((
                        name,
                        serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
                    ))
                })
                .collect();
            props.sort_by(|a, b| a.0.cmp(&b.0));
            obj.insert(
                "props".into(),
                serde_json::Value::Object(props.into_iter().collect()),
            );
            self.lines.push(serde_json::Value::Object(obj).to_string());
        }
    }
    fn on_entity(&mut self, _s: &DemoState, _c: EntityChange, _e: &Entity, _p: &[FieldPath]) {}
}
