//! Game events (`CMsgSource1LegacyGameEvent`).
//!
//! The server first sends `CMsgSource1LegacyGameEventList`: for each event id,
//! its name and its keys with their types. Each event then carries only the
//! values, in descriptor order. Key types: 1 string, 2 float, 3 long, 4 short,
//! 5 byte, 6 bool, 7 uint64, 8 strict entity handle (in `val_long`), 9 player
//! controller slot (in `val_short`) — from demofile-net `GameEventKeyType`.

use rustc_hash::FxHashMap;
use source2_demo_protobufs as pb;

/// A key of an event descriptor.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EventKey {
    /// Key name.
    pub name: String,
    /// Key type (1..=9).
    pub kind: i32,
}

/// Game-event descriptors by event id.
pub type EventDescriptors = FxHashMap<i32, EventDescriptor>;

/// An event descriptor.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EventDescriptor {
    /// Event id.
    pub id: i32,
    /// Event name (`player_death`).
    pub name: String,
    /// Keys in wire order.
    pub keys: Vec<EventKey>,
}

/// A typed event value.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum EventValue {
    /// Type 1.
    String(String),
    /// Type 2.
    Float(f32),
    /// Types 3, 4, 5, 8 and 9 (handles and player slots are integers too).
    Int(i32),
    /// Type 6.
    Bool(bool),
    /// Type 7.
    U64(u64),
}

impl EventValue {
    /// The value as an i64, for integer-like values.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            EventValue::Int(v) => Some(i64::from(v)),
            EventValue::Bool(b) => Some(i64::from(b)),
            EventValue::U64(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }
}

/// A decoded game event.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GameEvent {
    /// Event name.
    pub name: String,
    /// Event id.
    pub id: i32,
    /// Frame tick.
    pub tick: i32,
    /// (key name, key type, value) in descriptor order.
    pub keys: Vec<(String, i32, EventValue)>,
}

impl GameEvent {
    /// The value of a key.
    pub fn get(&self, key: &str) -> Option<&EventValue> {
        self.keys
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, _, v)| v)
    }
}

/// Indexes descriptors by id.
pub fn descriptors(list: pb::CMsgSource1LegacyGameEventList) -> EventDescriptors {
    list.descriptors
        .into_iter()
        .map(|d| {
            let id = d.eventid.unwrap_or(-1);
            (
                id,
                EventDescriptor {
                    id,
                    name: d.name.unwrap_or_default(),
                    keys: d
                        .keys
                        .into_iter()
                        .map(|k| EventKey {
                            name: k.name.unwrap_or_default(),
                            kind: k.r#type.unwrap_or(0),
                        })
                        .collect(),
                },
            )
        })
        .collect()
}

/// Decodes an event against its descriptor.
pub fn decode(
    ev: &pb::CMsgSource1LegacyGameEvent,
    descriptors: &FxHashMap<i32, EventDescriptor>,
    tick: i32,
) -> Result<GameEvent, String> {
    let id = ev.eventid.unwrap_or(-1);
    let Some(desc) = descriptors.get(&id) else {
        return Err(format!("game event with unknown id {id} skipped"));
    };
    let mut keys = Vec::with_capacity(desc.keys.len());
    for (k, v) in desc.keys.iter().zip(&ev.keys) {
        let value = match k.kind {
            1 => EventValue::String(
                String::from_utf8_lossy(v.val_string.as_deref().unwrap_or(&[])).into_owned(),
            ),
            2 => EventValue::Float(v.val_float.unwrap_or(0.0)),
            3 | 8 => EventValue::Int(v.val_long.unwrap_or(0)),
            4 | 9 => EventValue::Int(v.val_short.unwrap_or(0)),
            5 => EventValue::Int(v.val_byte.unwrap_or(0)),
            6 => EventValue::Bool(v.val_bool.unwrap_or(false)),
            7 => EventValue::U64(v.val_uint64.unwrap_or(0)),
            other => {
                return Err(format!(
                    "game event {}: key {} has unknown type {other}",
                    desc.name, k.name
                ))
            }
        };
        keys.push((k.name.clone(), k.kind, value));
    }
    Ok(GameEvent {
        name: desc.name.clone(),
        id,
        tick,
        keys,
    })
}
