//! Entities and `CSVCMsg_PacketEntities`.
//!
//! `entity_data` is a bitstream of `updated_entries` records:
//!
//! ```text
//! UBitVar   index delta (index = previous + delta + 1, starting at -1)
//! 2 bits    command: 00 update, 10 create (enter PVS), 01 leave PVS, 11 leave + delete
//! create:   class id (floor(log2(max_classes)) + 1 bits), serial (17 bits),
//!           one unused varuint32, then the field data
//! update:   [2 bits, when has_pvs_vis_bits: bit 0 set means no data], the field data
//! ```
//!
//! Field data is a field-path sequence followed by one value per path
//! ([`crate::fieldpath`]). A created entity starts from its class baseline
//! (the `instancebaseline` string table entry keyed by the class id), then
//! the create record's own field data is applied on top. (Facts from
//! dotabuff/manta `entity.go`, demoinfocs-golang `sendtablescs2/entity.go`,
//! demofile-net `DemoParser.Entities.cs`.)
//!
//! Entity state is a [`FieldState`] tree that mirrors the serializer: slot
//! `i` of a node holds the value at path `[.., i]` and the node of its
//! children. Setting a value indexes straight down the path (no hashing);
//! nothing is cloned per tick.

use gamewire_bits::BitReader;
use rustc_hash::FxHashMap;

use crate::error::ErrorKind;
use crate::fieldpath::{read_field_paths, FieldPath};
use crate::serializer::{SendTables, SerializerId};
use crate::value::Value;

/// Highest entity index + 1 (14 index bits).
pub const MAX_ENTITIES: usize = 1 << 14;
/// Bits of the serial number in an entity create record.
pub const SERIAL_BITS: u32 = 17;
/// Index bits of a networked handle.
pub const HANDLE_INDEX_BITS: u32 = 14;
/// The invalid networked handle.
pub const INVALID_HANDLE: u32 = (1 << 24) - 1;

/// A networked entity handle split into index and serial.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Handle {
    /// Entity index.
    pub index: u32,
    /// Serial number (10 bits).
    pub serial: u32,
}

impl Handle {
    /// Splits a networked `CHandle`/`EHandle` value; `None` for the invalid handle.
    pub fn from_raw(raw: u32) -> Option<Handle> {
        if raw == INVALID_HANDLE || raw & 0x3FFF == 0x3FFF {
            return None;
        }
        Some(Handle {
            index: raw & ((1 << HANDLE_INDEX_BITS) - 1),
            serial: raw >> HANDLE_INDEX_BITS,
        })
    }
}

/// One entity.
#[derive(Debug, Clone)]
pub struct Entity {
    /// Index in the entity list.
    pub index: i32,
    /// Serial number from the create record.
    pub serial: u32,
    /// Class id.
    pub class_id: u32,
    /// The class's serializer.
    pub serializer: SerializerId,
    /// False while the entity is outside the PVS.
    pub active: bool,
    pub(crate) state: FieldState,
}

impl Entity {
    /// The value at a field path.
    #[inline]
    pub fn get(&self, path: &FieldPath) -> Option<&Value> {
        self.state.get(path.as_slice())
    }

    /// The value at a compact path key (see [`FieldPath::key`]).
    #[inline]
    pub fn get_key(&self, key: u128) -> Option<&Value> {
        self.get(&key_to_path(key))
    }

    /// Every stored (key, value).
    pub fn values(&self) -> Vec<(u128, &Value)> {
        let mut out = Vec::new();
        let mut prefix = Vec::with_capacity(7);
        self.state.collect(&mut prefix, &mut out);
        out
    }

    /// Number of stored values.
    pub fn value_count(&self) -> usize {
        self.values().len()
    }
}

/// One slot of a [`FieldState`] node.
#[derive(Debug, Clone, Default)]
pub struct Slot {
    value: Option<Value>,
    children: Option<Box<FieldState>>,
}

/// Entity field values as a tree mirroring the serializer.
#[derive(Debug, Clone, Default)]
pub struct FieldState {
    slots: Vec<Slot>,
}

impl FieldState {
    /// The value at a path.
    #[inline]
    pub fn get(&self, path: &[i32]) -> Option<&Value> {
        let (&last, head) = path.split_last()?;
        let mut node = self;
        for &c in head {
            node = node
                .slots
                .get(usize::try_from(c).ok()?)?
                .children
                .as_deref()?;
        }
        node.slots.get(usize::try_from(last).ok()?)?.value.as_ref()
    }

    /// Sets the value at a path. Indices must be below
    /// [`crate::serializer::MAX_ARRAY_LEN`]; the caller has resolved the path
    /// against the serializer.
    #[inline]
    pub fn set(&mut self, path: &[i32], value: Value) -> Result<(), String> {
        let Some((&last, head)) = path.split_last() else {
            return Err("empty path".into());
        };
        let mut node = self;
        for &c in head {
            let slot = node.slot_mut(c)?;
            node = slot.children.get_or_insert_with(Box::default);
        }
        node.slot_mut(last)?.value = Some(value);
        Ok(())
    }

    #[inline]
    fn slot_mut(&mut self, index: i32) -> Result<&mut Slot, String> {
        let i = usize::try_from(index)
            .ok()
            .filter(|&i| i < crate::serializer::MAX_ARRAY_LEN as usize)
            .ok_or_else(|| format!("path index {index} is out of range"))?;
        if i >= self.slots.len() {
            self.slots.resize_with(i + 1, Slot::default);
        }
        self.slots.get_mut(i).ok_or_else(|| "slot".to_string())
    }

    fn collect<'a>(&'a self, prefix: &mut Vec<i32>, out: &mut Vec<(u128, &'a Value)>) {
        for (i, slot) in self.slots.iter().enumerate() {
            prefix.push(i as i32);
            if let Some(v) = &slot.value {
                if let Some(k) = FieldPath::from_slice(prefix).key() {
                    out.push((k, v));
                }
            }
            if let Some(c) = &slot.children {
                if prefix.len() < crate::fieldpath::MAX_DEPTH {
                    c.collect(prefix, out);
                }
            }
            prefix.pop();
        }
    }
}

/// Turns a compact key back into a path.
pub fn key_to_path(key: u128) -> FieldPath {
    let mut parts = Vec::with_capacity(7);
    let mut k = key;
    while k != 0 && parts.len() < 7 {
        parts.push(((k & 0x1FFFF) as i32) - 1);
        k >>= 17;
    }
    FieldPath::from_slice(&parts)
}

/// Reads a field-path sequence and its values into `state`.
///
/// On failure returns the path (if any) and a message.
pub(crate) fn read_fields(
    tables: &SendTables,
    serializer: SerializerId,
    state: &mut FieldState,
    r: &mut BitReader<'_>,
    paths: &mut Vec<FieldPath>,
    tick_interval: f32,
) -> Result<(), (Option<FieldPath>, String)> {
    read_field_paths(r, paths).map_err(|e| (None, format!("field paths: {e}")))?;
    for fp in paths.iter() {
        let decoder = tables
            .resolve(serializer, fp, |len| {
                fp.as_slice()
                    .get(..len)
                    .and_then(|p| state.get(p))
                    .and_then(Value::as_u64)
                    .map(|v| v as u32)
            })
            .map_err(|m| (Some(*fp), m))?;
        let value = decoder
            .decode(r, tick_interval)
            .map_err(|e| (Some(*fp), format!("value: {e}")))?;
        state
            .set(fp.as_slice(), value)
            .map_err(|m| (Some(*fp), m))?;
    }
    Ok(())
}

/// Formats a failing path for an error message.
pub(crate) fn describe_path(
    tables: &SendTables,
    serializer: SerializerId,
    entity: Option<&Entity>,
    fp: Option<FieldPath>,
) -> String {
    match fp {
        None => String::new(),
        Some(fp) => {
            let name = tables.path_name(serializer, &fp, |len| {
                entity
                    .and_then(|e| fp.as_slice().get(..len).and_then(|p| e.state.get(p)))
                    .and_then(Value::as_u64)
                    .map(|v| v as u32)
            });
            match name {
                Some(n) => format!(" at field path {fp} ({n})"),
                None => format!(" at field path {fp}"),
            }
        }
    }
}

/// What happened to an entity in an update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntityChange {
    /// Created (or re-created) with its baseline and field data.
    Created,
    /// Updated in place.
    Updated,
    /// Left the PVS (kept, inactive).
    LeftPvs,
    /// Deleted.
    Deleted,
}

/// The entity list.
#[derive(Debug, Clone, Default)]
pub struct EntityList {
    pub(crate) slots: Vec<Option<Entity>>,
    /// Decoded class baselines, by class id.
    pub(crate) baseline_cache: FxHashMap<u32, FieldState>,
}

impl EntityList {
    /// The entity at an index.
    pub fn get(&self, index: i32) -> Option<&Entity> {
        self.slots.get(usize::try_from(index).ok()?)?.as_ref()
    }

    /// The entity a handle points at, if its serial matches.
    pub fn by_handle(&self, raw: u32) -> Option<&Entity> {
        let h = Handle::from_raw(raw)?;
        let e = self.get(h.index as i32)?;
        // Networked handles carry the low 10 serial bits.
        (e.serial & 0x3FF == h.serial & 0x3FF || h.serial == 0).then_some(e)
    }

    /// Every live entity.
    pub fn iter(&self) -> impl Iterator<Item = &Entity> {
        self.slots.iter().flatten()
    }

    /// Number of live entities.
    pub fn len(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    /// True when there are no entities.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn slot_mut(&mut self, index: usize) -> Result<&mut Option<Entity>, ErrorKind> {
        if index >= MAX_ENTITIES {
            return Err(ErrorKind::LimitExceeded {
                what: "entity index",
                value: index as u64,
                limit: MAX_ENTITIES as u64 - 1,
            });
        }
        if index >= self.slots.len() {
            self.slots.resize_with(index + 1, || None);
        }
        self.slots.get_mut(index).ok_or(ErrorKind::LimitExceeded {
            what: "entity index",
            value: index as u64,
            limit: MAX_ENTITIES as u64 - 1,
        })
    }
}
