//! Game events (`CMsgSource1LegacyGameEvent`).
//!
//! The server first sends `CMsgSource1LegacyGameEventList`: for each event id,
//! its name and its keys with their types. Each event then carries only the
//! values, in descriptor order. Key types: 1 string, 2 float, 3 long, 4 short,
//! 5 byte, 6 bool, 7 uint64, 8 strict entity handle (in `val_long`), 9 player
//! controller slot (in `val_short`) — from demofile-net `GameEventKeyType`.

use rustc_hash::FxHashMap;
use source2_demo_protobufs as pb;

use crate::error::{ErrorKind, GameEventError};
use crate::wire::{check_utf8, each_len_field, Wire, WireError};

/// A key of an event descriptor.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct EventKey {
    /// Key name.
    pub name: String,
    /// Key type (1..=9).
    pub kind: i32,
}

/// The game-event descriptors of a demo, by event id.
///
/// A CS2 demo declares about 270 events with 670 keys, and uses a few
/// dozen of them. The list is checked when it arrives (a malformed list is
/// an error then, as it would be for the generated type), but a descriptor's
/// name and keys are turned into an [`EventDescriptor`] only when it is
/// first asked for (by [`get`](Self::get), [`by_name`](Self::by_name) or
/// [`values`](Self::values)), once.
#[derive(Debug, Clone, Default)]
pub struct EventDescriptors {
    /// The `CMsgSource1LegacyGameEventList` bytes the entries point into.
    raw: Box<[u8]>,
    /// One entry per event id, in the order of first appearance.
    entries: Vec<DescriptorEntry>,
    /// Event id to index in `entries`.
    by_id: FxHashMap<i32, u32>,
}

#[derive(Debug, Clone)]
struct DescriptorEntry {
    id: i32,
    /// The name's byte range in `raw` (checked UTF-8).
    name: std::ops::Range<usize>,
    /// The descriptor message's byte range in `raw`.
    body: std::ops::Range<usize>,
    decoded: std::sync::OnceLock<EventDescriptor>,
}

impl EventDescriptors {
    /// Descriptors over checked message bytes: (id, name range, descriptor
    /// range) per descriptor in message order; a later id replaces an
    /// earlier one.
    pub(crate) fn over(
        raw: Box<[u8]>,
        found: impl IntoIterator<Item = (i32, std::ops::Range<usize>, std::ops::Range<usize>)>,
    ) -> EventDescriptors {
        let found = found.into_iter();
        let mut out = EventDescriptors {
            raw,
            entries: Vec::with_capacity(found.size_hint().0),
            ..EventDescriptors::default()
        };
        out.by_id.reserve(found.size_hint().0);
        for (id, name, body) in found {
            out.insert(DescriptorEntry {
                id,
                name,
                body,
                decoded: std::sync::OnceLock::new(),
            });
        }
        out
    }

    fn insert(&mut self, entry: DescriptorEntry) {
        match self.by_id.get(&entry.id).map(|&i| i as usize) {
            Some(i) => {
                if let Some(slot) = self.entries.get_mut(i) {
                    *slot = entry;
                }
            }
            None => {
                self.by_id.insert(entry.id, self.entries.len() as u32);
                self.entries.push(entry);
            }
        }
    }

    fn descriptor<'a>(&'a self, e: &'a DescriptorEntry) -> &'a EventDescriptor {
        e.decoded.get_or_init(|| {
            let body = self.raw.get(e.body.clone()).unwrap_or(&[]);
            game_event_descriptor(body, e.id)
        })
    }

    fn entry_name<'a>(&'a self, e: &'a DescriptorEntry) -> &'a str {
        match e.decoded.get() {
            Some(d) => &d.name,
            None => self
                .raw
                .get(e.name.clone())
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or(""),
        }
    }

    /// The descriptor of an event id.
    pub fn get(&self, id: i32) -> Option<&EventDescriptor> {
        let e = self.entries.get(*self.by_id.get(&id)? as usize)?;
        Some(self.descriptor(e))
    }

    /// The first descriptor with this name.
    pub fn by_name(&self, name: &str) -> Option<&EventDescriptor> {
        let e = self.entries.iter().find(|e| self.entry_name(e) == name)?;
        Some(self.descriptor(e))
    }

    /// Every event name, in declaration order (decodes no keys).
    pub fn names(&self) -> impl Iterator<Item = &str> + '_ {
        self.entries.iter().map(|e| self.entry_name(e))
    }

    /// Every descriptor, in declaration order.
    pub fn values(&self) -> impl Iterator<Item = &EventDescriptor> + '_ {
        self.entries.iter().map(|e| self.descriptor(e))
    }

    /// Number of event ids.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no event is declared.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Equal when both declare the same ids with equal descriptors.
impl PartialEq for EventDescriptors {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && self
                .entries
                .iter()
                .all(|e| other.get(e.id) == Some(self.descriptor(e)))
    }
}

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

/// Indexes descriptors by id (a later id replaces an earlier one).
pub fn descriptors(list: pb::CMsgSource1LegacyGameEventList) -> EventDescriptors {
    let mut out = EventDescriptors::default();
    for d in list.descriptors {
        let id = d.eventid.unwrap_or(-1);
        let decoded = std::sync::OnceLock::new();
        let _ = decoded.set(EventDescriptor {
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
        });
        out.insert(DescriptorEntry {
            id,
            name: 0..0,
            body: 0..0,
            decoded,
        });
    }
    out
}

/// Decodes an event against its descriptor.
pub fn decode(
    ev: &pb::CMsgSource1LegacyGameEvent,
    descriptors: &EventDescriptors,
    tick: i32,
) -> Result<GameEvent, GameEventError> {
    let id = ev.eventid.unwrap_or(-1);
    let Some(desc) = descriptors.get(id) else {
        return Err(GameEventError::UnknownId { id });
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
                return Err(GameEventError::UnknownKeyType {
                    event: desc.name.clone(),
                    key: k.name.clone(),
                    kind: other,
                })
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

/// A `CMsgSource1LegacyGameEventList` read straight into descriptors:
/// `descriptors` (tag 1), each `eventid` (1), `name` (2) and `keys` (3:
/// `type` (1), `name` (2)). Decodes what the generated type decodes and
/// [`descriptors`] makes of it (a repeated scalar's last
/// value wins; a later descriptor with the same id replaces an earlier one),
/// without the generated type's intermediate structs.
pub(crate) fn game_event_list(message: &[u8]) -> Result<EventDescriptors, ErrorKind> {
    // Checked here, in full; names and keys are read again, into
    // descriptors, only for the events asked for (`game_event_descriptor`).
    // A descriptor takes some 60 bytes or more: room for all at once.
    let mut found = Vec::with_capacity(message.len() / 48);
    each_len_field(Wire::new(message, 0), 1, |mut w| {
        let body = w.base..w.base + w.data.len();
        let (mut id, mut name) = (-1, 0..0);
        while !w.at_end() {
            let (tag, wire_type) = w.key()?;
            match tag {
                1 => id = w.int32(wire_type)?,
                2 => {
                    let text = w.message(wire_type)?;
                    check_utf8(&text)?;
                    name = text.base..text.base + text.data.len();
                }
                3 => {
                    let mut k = w.message(wire_type)?;
                    while !k.at_end() {
                        let (tag, wire_type) = k.key()?;
                        match tag {
                            1 => {
                                k.int32(wire_type)?;
                            }
                            2 => {
                                k.string(wire_type)?;
                            }
                            _ => k.skip(wire_type)?,
                        }
                    }
                }
                _ => w.skip(wire_type)?,
            }
        }
        found.push((id, name, body));
        Ok(())
    })
    .map_err(|e| e.in_message("CMsgSource1LegacyGameEventList"))?;
    Ok(EventDescriptors::over(message.into(), found))
}

/// One descriptor of a game-event list that [`game_event_list`] has
/// checked, read into its name and keys (a repeated scalar's last value
/// wins, as in the generated type). `id` is the id found when checking.
pub(crate) fn game_event_descriptor(body: &[u8], id: i32) -> EventDescriptor {
    let mut d = EventDescriptor {
        id,
        name: String::new(),
        keys: Vec::new(),
    };
    // The bytes were checked: a failure here cannot happen, and would only
    // leave the descriptor shorter.
    let _ = (|| -> Result<(), WireError> {
        let mut w = Wire::new(body, 0);
        while !w.at_end() {
            let (tag, wire_type) = w.key()?;
            match tag {
                2 => w.string(wire_type)?.clone_into(&mut d.name),
                3 => {
                    let mut k = w.message(wire_type)?;
                    let mut key = EventKey {
                        name: String::new(),
                        kind: 0,
                    };
                    while !k.at_end() {
                        let (tag, wire_type) = k.key()?;
                        match tag {
                            1 => key.kind = k.int32(wire_type)?,
                            2 => k.string(wire_type)?.clone_into(&mut key.name),
                            _ => k.skip(wire_type)?,
                        }
                    }
                    d.keys.push(key);
                }
                _ => w.skip(wire_type)?,
            }
        }
        Ok(())
    })();
    d
}
