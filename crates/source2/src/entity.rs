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
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::error::ErrorKind;
use crate::error::{FieldError, PathError};
use crate::fieldpath::{read_field_paths_marked, FieldPath, Paths};
use crate::serializer::{Last, PathStore, SendTables, SerializerId};
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
    /// The varuint32 after the serial in the record that created it, which
    /// no reader uses (its values follow the spawn groups' creation
    /// sequence); kept so that a full update writes it again.
    pub(crate) spare: u32,
    /// False while the entity is outside the PVS.
    pub active: bool,
    pub(crate) state: FieldState,
    /// False when its class was not wanted ([`crate::Visitor::wants_class`]):
    /// the entity exists (index, serial, class), but its fields were read
    /// past, not kept.
    pub(crate) decoded: bool,
}

impl Entity {
    /// Whether its fields are decoded and kept: false for an entity of a
    /// class the visitor did not want ([`crate::Visitor::wants_class`]),
    /// whose fields are read past; [`Entity::get`] then finds nothing.
    #[inline]
    pub fn is_decoded(&self) -> bool {
        self.decoded
    }

    /// The value at a field path (none for an entity that is not
    /// [decoded](Entity::is_decoded)).
    #[inline]
    pub fn get(&self, path: &FieldPath) -> Option<&Value> {
        if !self.decoded {
            return None;
        }
        self.state.get(path.as_slice())
    }

    /// The value at a compact path key (see [`FieldPath::key`]).
    #[inline]
    pub fn get_key(&self, key: u128) -> Option<&Value> {
        self.get(&key_to_path(key))
    }

    /// Every stored (key, value); empty for an entity that is not
    /// [decoded](Entity::is_decoded).
    pub fn values(&self) -> Vec<(u128, &Value)> {
        let mut out = Vec::new();
        if self.decoded {
            self.state.collect_all(&mut out);
        }
        out
    }

    /// Number of stored values.
    pub fn value_count(&self) -> usize {
        self.values().len()
    }
}

/// One slot of a [`FieldState`] node: where the value at this path is kept
/// and where the node holding its children starts (`child == 0`: no
/// children).
///
/// Eight bytes: the value itself lives in [`FieldState::values`] (`value`
/// is its index + 1, 0 for none), and a child node's length sits in a
/// header slot just before the node (the header's `value`), not in every
/// slot that could point at a node. Nodes are sized by their highest index,
/// so most slots of a sparse layer hold nothing; keeping values and lengths
/// out of the slots keeps those empty slots small.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    value: u32,
    /// Arena index of the first slot of the child node (its header is the
    /// slot before it, so a node never starts at 0).
    child: u32,
}

/// Entity field values as a tree mirroring the serializer, stored flat.
///
/// Every node is a contiguous range of one arena (`slots`) behind a header
/// slot holding its length; a slot points at the range of its children; the
/// values sit in a second vector (`values`), so the many empty slots of a
/// sparse node cost 8 bytes each. Cloning a
/// state is two vector clones and dropping one is two frees (plus its boxed
/// strings), instead of one allocation per node. A node that must grow and is
/// not at the end of the arena moves to the end; its old range becomes
/// unreachable (growth is geometric, so at most about half the arena is ever
/// unreachable).
///
/// A created entity does not copy its class baseline: it shares it
/// (`base`) and stores only the values set since. A read looks at the
/// entity's own values first, then at the baseline.
#[derive(Debug, Clone, Default)]
pub struct FieldState {
    slots: Vec<Slot>,
    /// The values the slots point at, in the order they were first set.
    values: Vec<Value>,
    root_start: u32,
    root_len: u32,
    base: Option<Arc<FieldState>>,
}

/// Where a node's (start, len) is stored: in the state (root) or in a slot.
#[derive(Clone, Copy)]
enum Owner {
    Root,
    Slot(usize),
}

impl FieldState {
    /// An empty state on top of a shared baseline.
    pub fn layered(base: Arc<FieldState>) -> FieldState {
        FieldState {
            base: Some(base),
            ..FieldState::default()
        }
    }

    /// Reserves room for `slots` slots and `values` values.
    pub(crate) fn reserve(&mut self, (slots, values): (u32, u32)) {
        self.slots.reserve(slots as usize);
        self.values.reserve(values as usize);
    }

    /// (slots, values) in use.
    pub(crate) fn size(&self) -> (u32, u32) {
        (
            u32::try_from(self.slots.len()).unwrap_or(u32::MAX),
            u32::try_from(self.values.len()).unwrap_or(u32::MAX),
        )
    }

    /// The value at a path: the state's own value, else the baseline's.
    #[inline]
    pub fn get(&self, path: &[i32]) -> Option<&Value> {
        match self.get_own(path) {
            Some(v) => Some(v),
            None => self.base.as_deref().and_then(|b| b.get_own(path)),
        }
    }

    #[inline]
    fn get_own(&self, path: &[i32]) -> Option<&Value> {
        let (&last, head) = path.split_last()?;
        let (mut start, mut len) = (self.root_start as usize, self.root_len as usize);
        for &c in head {
            let slot = self.slot_in(start, len, c)?;
            (start, len) = self.child_node(slot);
        }
        self.value_of(self.slot_in(start, len, last)?)
    }

    /// The (start, len) of the node a slot points at; (0, 0) for none.
    #[inline(always)]
    fn child_node(&self, slot: &Slot) -> (usize, usize) {
        let start = slot.child as usize;
        match start.checked_sub(1).and_then(|h| self.slots.get(h)) {
            Some(header) => (start, header.value as usize),
            None => (0, 0),
        }
    }

    /// The value a slot points at.
    #[inline(always)]
    fn value_of(&self, slot: &Slot) -> Option<&Value> {
        let i = (slot.value as usize).checked_sub(1)?;
        self.values.get(i)
    }

    /// Stores `value` in the slot at arena index `at` (replacing its value).
    #[inline(always)]
    fn store(&mut self, at: usize, value: Value) -> Result<(), FieldError> {
        self.fill(at, |v| {
            *v = value;
            Ok(())
        })
    }

    /// Sets the value of the slot at arena index `at` by `write`, in place:
    /// the slot's value, or a new one at the end of the arena (taken back
    /// off it if `write` fails). With no slot at `at`, `write` runs on a
    /// value that is dropped (it still reads its bits).
    ///
    /// In place, because a value made elsewhere and moved in is read back
    /// right after it was written, in pieces that do not match the writes
    /// (a tag byte and a float at offset 4, read back as bytes 1 to 7),
    /// which the processor cannot forward from its store buffer: it waits
    /// for the writes to reach the cache. The new value is a placeholder
    /// written by `resize_with` into the arena itself, for the same reason
    /// (`push` makes it on the stack and copies it).
    #[inline(always)]
    fn fill(
        &mut self,
        at: usize,
        write: impl FnOnce(&mut Value) -> Result<(), FieldError>,
    ) -> Result<(), FieldError> {
        let Some(slot) = self.slots.get(at) else {
            return write(&mut Value::Bool(false));
        };
        if let Some(v) = (slot.value as usize)
            .checked_sub(1)
            .and_then(|i| self.values.get_mut(i))
        {
            return write(v);
        }
        // Bounded by the arena, itself bounded by the entity limits.
        let id = u32::try_from(self.values.len() + 1).map_err(|_| FieldError::StateTooLarge)?;
        self.values
            .resize_with(self.values.len() + 1, || Value::Bool(false));
        let written = match self.values.last_mut() {
            Some(v) => write(v),
            None => Ok(()),
        };
        match written {
            Ok(()) => {
                if let Some(slot) = self.slots.get_mut(at) {
                    slot.value = id;
                }
                Ok(())
            }
            Err(e) => {
                self.values.pop();
                Err(e)
            }
        }
    }

    #[inline]
    fn slot_in(&self, start: usize, len: usize, index: i32) -> Option<&Slot> {
        let i = usize::try_from(index).ok().filter(|&i| i < len)?;
        self.slots.get(start + i)
    }

    /// Sets the value at a path. Indices must be below
    /// [`crate::serializer::MAX_ARRAY_LEN`]; the caller has resolved the path
    /// against the serializer.
    #[inline]
    pub fn set(&mut self, path: &[i32], value: Value) -> Result<(), FieldError> {
        self.set_sized(path, value, &[0; crate::fieldpath::MAX_DEPTH])
    }

    /// [`FieldState::set`] with the size of the node at each depth (from
    /// the serializer; 0 when unknown): a node is allocated
    /// at its full size when first touched.
    #[inline]
    pub fn set_sized(
        &mut self,
        path: &[i32],
        value: Value,
        sizes: &[u32; crate::fieldpath::MAX_DEPTH],
    ) -> Result<(), FieldError> {
        let Some((&last, head)) = path.split_last() else {
            return Err(FieldError::EmptyPath);
        };
        let mut owner = Owner::Root;
        for (depth, &c) in head.iter().enumerate() {
            let size = sizes.get(depth).copied().unwrap_or(0);
            let at = self.slot_index(owner, c, size as usize)?;
            owner = Owner::Slot(at);
        }
        let size = sizes.get(head.len()).copied().unwrap_or(0);
        let at = self.slot_index(owner, last, size as usize)?;
        self.store(at, value)
    }

    #[inline(always)]
    fn node(&self, owner: Owner) -> (usize, usize) {
        match owner {
            Owner::Root => (self.root_start as usize, self.root_len as usize),
            Owner::Slot(at) => self.slots.get(at).map_or((0, 0), |s| self.child_node(s)),
        }
    }

    fn set_node(&mut self, owner: Owner, start: usize, len: usize) {
        self.set_node_len(owner, start, len);
        // Fits in u32: the arena is bounded by entity limits long before.
        let start32 = start as u32;
        match owner {
            Owner::Root => self.root_start = start32,
            // Behind a header slot pushed new (its own `child` is 0).
            Owner::Slot(at) => {
                if let Some(s) = self.slots.get_mut(at) {
                    s.child = start32;
                }
            }
        }
    }

    /// The arena index of slot `index` of the node `owner` points at,
    /// creating or growing the node as needed.
    #[inline(always)]
    fn slot_index(
        &mut self,
        owner: Owner,
        index: i32,
        size_hint: usize,
    ) -> Result<usize, FieldError> {
        let (start, len) = self.node(owner);
        // A negative index becomes huge and fails the test.
        let i = index as u32 as usize;
        if i < len {
            return Ok(start + i);
        }
        // The last node of the arena grows in place, here rather than in
        // `grow_node`: most growth is this (an entity's create writes its
        // fields in rising order, its nodes sized as they fill), and it
        // needs no call. `grow_node` places new nodes and moves the others.
        const MAX: usize = crate::serializer::MAX_ARRAY_LEN as usize;
        if len > 0 && start + len == self.slots.len() && i < MAX {
            self.slots.resize(start + i + 1, Slot::default());
            self.set_node_len(owner, start, i + 1);
            return Ok(start + i);
        }
        self.grow_node(owner, index, size_hint)
    }

    /// Sets the length of the node `owner` points at, which starts at
    /// `start` (in its header, or the root's fields).
    #[inline(always)]
    fn set_node_len(&mut self, owner: Owner, start: usize, len: usize) {
        // Fits in u32: the arena is bounded by entity limits long before.
        let len = len as u32;
        match owner {
            Owner::Root => self.root_len = len,
            Owner::Slot(_) => {
                if let Some(header) = start.checked_sub(1).and_then(|h| self.slots.get_mut(h)) {
                    header.value = len;
                }
            }
        }
    }

    /// [`FieldState::slot_index`] when the node must be created, or grown
    /// and it is not the last node of the arena.
    #[inline(never)]
    fn grow_node(
        &mut self,
        owner: Owner,
        index: i32,
        size_hint: usize,
    ) -> Result<usize, FieldError> {
        const MAX: usize = crate::serializer::MAX_ARRAY_LEN as usize;
        let i = usize::try_from(index)
            .ok()
            .filter(|&i| i < MAX)
            .ok_or(FieldError::IndexOutOfRange(index))?;
        let (start, len) = self.node(owner);
        let end = self.slots.len();
        if end + i + 2 > u32::MAX as usize {
            return Err(FieldError::StateTooLarge);
        }
        // New node, or a node that cannot grow in place: (re)place it at the
        // end, behind a header slot, with room to grow.
        // Nodes never exceed the array limit, so the fast path's bound check
        // is the limit check too.
        let new_len = (len * 2).max(size_hint).clamp(4, MAX).max(i + 1);
        if end == 0 {
            // First node of this state: room for the nodes that follow it.
            self.slots.reserve(new_len * 4);
        }
        self.slots.reserve(new_len + 1);
        if start + len > end {
            return Err(FieldError::StateCorrupt);
        }
        let new_start = end + 1;
        self.slots.push(Slot::default());
        self.slots.extend_from_within(start..start + len);
        self.slots.resize(new_start + new_len, Slot::default());
        self.set_node(owner, new_start, new_len);
        Ok(new_start + i)
    }

    /// Every (key, value), own values hiding the baseline's, in depth-first
    /// path order.
    fn collect_all<'a>(&'a self, out: &mut Vec<(u128, &'a Value)>) {
        let mut prefix = Vec::with_capacity(7);
        self.collect(
            self.root_start as usize,
            self.root_len as usize,
            &mut prefix,
            out,
        );
        if let Some(base) = self.base.as_deref() {
            let own: rustc_hash::FxHashSet<u128> = out.iter().map(|(k, _)| *k).collect();
            let mut from_base = Vec::new();
            base.collect(
                base.root_start as usize,
                base.root_len as usize,
                &mut prefix,
                &mut from_base,
            );
            out.extend(from_base.into_iter().filter(|(k, _)| !own.contains(k)));
            out.sort_by(|a, b| key_to_path(a.0).as_slice().cmp(key_to_path(b.0).as_slice()));
        }
    }

    fn collect<'a>(
        &'a self,
        start: usize,
        len: usize,
        prefix: &mut Vec<i32>,
        out: &mut Vec<(u128, &'a Value)>,
    ) {
        let Some(node) = self.slots.get(start..start + len) else {
            return;
        };
        for (i, slot) in node.iter().enumerate() {
            prefix.push(i as i32);
            if let Some(v) = self.value_of(slot) {
                if let Some(k) = FieldPath::from_slice(prefix).key() {
                    out.push((k, v));
                }
            }
            let (child_start, child_len) = self.child_node(slot);
            if child_len > 0 && prefix.len() < crate::fieldpath::MAX_DEPTH {
                self.collect(child_start, child_len, prefix, out);
            }
            prefix.pop();
        }
    }
}

impl FieldState {
    /// Every (path, value) the state holds, its own values hiding the
    /// baseline's, in depth-first path order (a path before the paths
    /// under it): the order in which a create can carry them all
    /// ([`crate::entity_writer::full_state`]).
    pub fn values_in_order(&self) -> Vec<(FieldPath, &Value)> {
        let mut out = Vec::new();
        self.collect_all(&mut out);
        out.into_iter().map(|(k, v)| (key_to_path(k), v)).collect()
    }
}

/// Turns a compact key back into a path.
pub fn key_to_path(key: u128) -> FieldPath {
    let mut parts = [0i32; crate::fieldpath::MAX_DEPTH];
    let mut len = 0;
    let mut k = key;
    while k != 0 && len < parts.len() {
        if let Some(slot) = parts.get_mut(len) {
            *slot = ((k & 0x1FFFF) as i32) - 1;
        }
        len += 1;
        k >>= 17;
    }
    FieldPath::from_slice(parts.get(..len).unwrap_or(&[]))
}

/// Reads a field-path sequence and its values into `state`.
///
/// On failure returns the path (if any) and what went wrong there.
pub(crate) fn read_fields(
    tables: &SendTables,
    serializer: SerializerId,
    state: &mut FieldState,
    r: &mut BitReader<'_>,
    paths: &mut Paths,
    tick_interval: f32,
) -> Result<(), PathError> {
    read_field_paths_marked(r, paths).map_err(|e| PathError {
        path: None,
        error: FieldError::FieldPaths(e),
    })?;
    // The first path's "sibling" flag compares it with the decoder's start
    // path, which was never walked: `level` is `None` then.
    let mut level = LastLevel::None;
    for (fp, &sibling) in paths.paths.iter().zip(&paths.siblings) {
        state
            .apply(
                tables,
                serializer,
                fp,
                r,
                tick_interval,
                &mut level,
                sibling,
            )
            .map_err(|e| PathError::at(*fp, e))?;
    }
    Ok(())
}

/// [`read_fields`] for an entity whose class is decoded, [`skip_fields`]
/// for one read past.
#[inline(always)]
pub(crate) fn read_or_skip_fields(
    decoded: bool,
    tables: &SendTables,
    serializer: SerializerId,
    state: &mut FieldState,
    r: &mut BitReader<'_>,
    paths: &mut Paths,
    tick_interval: f32,
) -> Result<(), PathError> {
    if decoded {
        read_fields(tables, serializer, state, r, paths, tick_interval)
    } else {
        skip_fields(tables, serializer, state, r, paths, tick_interval)
    }
}

/// Reads an update of an entity whose class nobody asked for
/// ([`crate::Visitor::wants_class`]): the field paths and every value are
/// read, since the bit stream has no lengths to jump over them, but only
/// the values that shape later paths are stored (the length of a variable
/// array or table, a pointer's presence, a polymorphic pointer's type); the
/// rest is dropped as soon as it is read. Each path is resolved through the
/// serializer with the same bounds as [`read_fields`], so a path outside
/// them is the same error.
pub(crate) fn skip_fields(
    tables: &SendTables,
    serializer: SerializerId,
    state: &mut FieldState,
    r: &mut BitReader<'_>,
    paths: &mut Paths,
    tick_interval: f32,
) -> Result<(), PathError> {
    use crate::serializer::FieldDecoder;
    // Without the sibling marks (and out of `read_fields`' inlined copy).
    paths.siblings.clear();
    crate::fieldpath::read_field_paths(r, &mut paths.paths).map_err(|e| PathError {
        path: None,
        error: FieldError::FieldPaths(e),
    })?;
    let mut previous = None;
    for fp in &paths.paths {
        let decoder = resolve_read_past(tables, serializer, state, fp, &mut previous)?;
        match decoder {
            FieldDecoder::ArrayLength
            | FieldDecoder::PointerPresent
            | FieldDecoder::PolyPointer => {
                state
                    .store_structural(tables, serializer, fp, r, tick_interval)
                    .map_err(|e| PathError::at(*fp, e))?;
            }
            other => {
                other
                    .skip(r, tick_interval)
                    .map_err(|e| PathError::at(*fp, FieldError::Value(e)))?;
            }
        }
    }
    Ok(())
}

/// The previous path of a record read past and what its last index
/// selected in ([`crate::serializer::LastParent`]).
type Previous<'p, 't> = Option<(&'p FieldPath, crate::serializer::LastParent<'t>)>;

/// Resolves `fp` of a record read past ([`skip_fields`],
/// [`rewrite_fields`]) to its decoder. A path that differs from the
/// previous one only in its last index (most do) resolves in the node the
/// previous one ended in, without the walk down from the root and its
/// array-length lookups; any other path walks from the root, its array
/// lengths and pointer types read from `state`. `previous` is updated to
/// `fp`.
#[inline(always)]
fn resolve_read_past<'p, 't>(
    tables: &'t SendTables,
    serializer: SerializerId,
    state: &FieldState,
    fp: &'p FieldPath,
    previous: &mut Previous<'p, 't>,
) -> Result<&'t crate::serializer::FieldDecoder, PathError> {
    let sibling = previous.and_then(|(before, parent)| {
        let (a, b) = (before.as_slice(), fp.as_slice());
        let (&index, prefix) = b.split_last()?;
        // Compared index by index: a slice comparison calls `memcmp`,
        // slow for a few indices.
        (a.len() == b.len() && a.iter().zip(prefix).all(|(x, y)| x == y))
            .then(|| parent.resolve(tables, index))
            .flatten()
            .map(|d| (d, parent))
    });
    let (decoder, parent) = match sibling {
        Some(found) => found,
        None => tables
            .resolve_with_parent(serializer, fp, |len| {
                fp.as_slice()
                    .get(..len)
                    .and_then(|prefix| state.get(prefix))
                    .and_then(Value::as_u64)
                    .map(|v| u32::try_from(v).unwrap_or(u32::MAX))
            })
            .map_err(|e| PathError::at(*fp, e))?,
    };
    *previous = Some((fp, parent));
    Ok(decoder)
}

/// The rewrite's copy of the records the parser reads: each record's
/// header, field paths and values written again as they are read
/// ([`rewrite_fields`]), so a rewritten `svc_PacketEntities` costs one
/// decode (the parser's) and one encode. The paths are written in
/// [`crate::fieldpath_writer::PathStyle::Game`], each value by the encoder
/// of the decoder that read it ([`crate::serializer::FieldDecoder::encode`]).
/// The first value that cannot be written again ends the writing (the
/// reading goes on) and is kept in `failed`.
#[derive(Debug, Default)]
pub(crate) struct RecordWriter {
    /// The entity bitstream written so far.
    pub(crate) w: gamewire_bits::BitWriter,
    /// Field-path operations chosen, kept from message to message.
    pub(crate) ops: crate::fieldpath_writer::OpCache,
    /// Why the writing stopped.
    pub(crate) failed: Option<String>,
}

impl RecordWriter {
    /// Writes `count` bits of `value` (a header field).
    #[inline]
    pub(crate) fn bits(&mut self, value: u64, count: u32) {
        if self.failed.is_none() {
            if let Err(e) = self.w.write_bits(value, count) {
                self.failed = Some(format!("entity header: {e}"));
            }
        }
    }

    /// Writes a UBitVar (an index delta).
    #[inline]
    pub(crate) fn ubitvar(&mut self, value: u32) {
        if self.failed.is_none() {
            self.w.write_ubitvar(value);
        }
    }

    /// Writes a varuint32 (the spare field of a create).
    #[inline]
    pub(crate) fn varuint32(&mut self, value: u32) {
        if self.failed.is_none() {
            self.w.write_varuint32(value);
        }
    }

    /// Writes a record's field-path sequence, read from the bits between
    /// `start` and `end` (which name it for the cache).
    fn paths(&mut self, paths: &[FieldPath], start: &BitReader<'_>, end: u64) {
        if self.failed.is_none() {
            let style = crate::fieldpath_writer::PathStyle::Game;
            let written = crate::fieldpath_writer::write_field_paths_cached(
                &mut self.w,
                paths,
                style,
                &mut self.ops,
                Some((start, end)),
            );
            if let Err(e) = written {
                self.failed = Some(format!("field paths: {e}"));
            }
        }
    }

    /// Reads one value by its decoder and writes it by the decoder's
    /// encoder ([`crate::serializer::FieldDecoder::transcode`]).
    #[inline(always)]
    fn value(
        &mut self,
        decoder: &crate::serializer::FieldDecoder,
        r: &mut BitReader<'_>,
        fp: &FieldPath,
        tick_interval: f32,
    ) -> Result<Value, gamewire_bits::BitError> {
        if self.failed.is_some() {
            return decoder.decode(r, tick_interval);
        }
        let mut written = Ok(());
        let value = decoder.transcode(r, &mut self.w, tick_interval, &mut written)?;
        if let Err(e) = written {
            self.fail(fp, e);
        }
        Ok(value)
    }

    /// [`RecordWriter::value`] for a value nobody keeps.
    #[inline(always)]
    fn value_past(
        &mut self,
        decoder: &crate::serializer::FieldDecoder,
        r: &mut BitReader<'_>,
        fp: &FieldPath,
        tick_interval: f32,
    ) -> Result<(), gamewire_bits::BitError> {
        if self.failed.is_some() {
            return decoder.skip(r, tick_interval);
        }
        let mut written = Ok(());
        decoder.transcode_past(r, &mut self.w, tick_interval, &mut written)?;
        if let Err(e) = written {
            self.fail(fp, e);
        }
        Ok(())
    }

    /// Ends the writing at `fp`, which could not be written.
    #[cold]
    #[inline(never)]
    fn fail(&mut self, fp: &FieldPath, e: crate::error::ErrorKind) {
        self.failed = Some(format!("field path {fp}: {e}"));
    }

    /// The bitstream written; the writer goes on in `next`, emptied, with
    /// room for `capacity` bytes.
    pub(crate) fn take(&mut self, next: Vec<u8>, capacity: usize) -> Vec<u8> {
        std::mem::replace(
            &mut self.w,
            gamewire_bits::BitWriter::with_buffer(next, capacity),
        )
        .finish()
    }
}

/// [`read_or_skip_fields`] that writes the record again as it reads it
/// (see [`RecordWriter`]). Every value is decoded (an encoder needs it);
/// the state keeps what [`read_or_skip_fields`] keeps: every value for a
/// decoded class, the values that shape paths for one read past. The
/// resolution is [`skip_fields`]' (read past) or [`FieldState::apply`]'s
/// walk (decoded), so the same paths fail.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rewrite_fields(
    decoded: bool,
    tables: &SendTables,
    serializer: SerializerId,
    state: &mut FieldState,
    r: &mut BitReader<'_>,
    paths: &mut Paths,
    tick_interval: f32,
    out: &mut RecordWriter,
) -> Result<(), PathError> {
    use crate::serializer::FieldDecoder;
    paths.siblings.clear();
    let start = r.clone();
    crate::fieldpath::read_field_paths(r, &mut paths.paths).map_err(|e| PathError {
        path: None,
        error: FieldError::FieldPaths(e),
    })?;
    out.paths(&paths.paths, &start, r.position());
    if decoded {
        for fp in &paths.paths {
            let mut level = LastLevel::None;
            let (at, decoder) = state
                .walk(tables, serializer, fp, &mut level)
                .map_err(|e| PathError::at(*fp, e))?;
            let value = out
                .value(decoder, r, fp, tick_interval)
                .map_err(|e| PathError::at(*fp, FieldError::Value(e)))?;
            state.store(at, value).map_err(|e| PathError::at(*fp, e))?;
        }
        return Ok(());
    }
    // As in `skip_fields`.
    let mut previous = None;
    for fp in &paths.paths {
        let decoder = resolve_read_past(tables, serializer, state, fp, &mut previous)?;
        if matches!(
            decoder,
            FieldDecoder::ArrayLength | FieldDecoder::PointerPresent | FieldDecoder::PolyPointer
        ) {
            let value = out
                .value(decoder, r, fp, tick_interval)
                .map_err(|e| PathError::at(*fp, FieldError::Value(e)))?;
            state
                .store_structural_value(tables, serializer, fp, value)
                .map_err(|e| PathError::at(*fp, e))?;
        } else {
            out.value_past(decoder, r, fp, tick_interval)
                .map_err(|e| PathError::at(*fp, FieldError::Value(e)))?;
        }
    }
    Ok(())
}

/// What resolving the previous path of an update found at its last index:
/// the node whose slot the last index selects, and how that slot is
/// decoded. Most paths differ from the one before only in their last index
/// (`PlusOne`..`PlusN` edit nothing else), so the next such path starts
/// here instead of walking down from the root again.
///
/// Valid while only last-level slots are written: everything the walk read
/// on the way down (an array's length, a polymorphic pointer's type) sits
/// on the shared prefix, which a path of the same length cannot write. A
/// node that grows moves its own slots, never the slot that points at it,
/// so `owner` stays put. `node` is the node's arena range as last seen:
/// only a sibling path can move that node (by growing it), and it updates
/// `node` when it does.
#[derive(Clone, Copy)]
enum LastLevel<'t> {
    None,
    /// The last index is a field of this serializer.
    Fields {
        fields: &'t [u32],
        owner: Owner,
        size: usize,
        node: (usize, usize),
    },
    /// The last index is an element of an array of `bound` elements.
    Elements {
        owner: Owner,
        decoder: &'t crate::serializer::FieldDecoder,
        bound: u32,
        size: usize,
        node: (usize, usize),
    },
}

/// An entity's state as the store of a walk down the send tables
/// ([`SendTables::walk`]): each step's slot is found or allocated in the
/// arena, and lengths and type indices are read from the slots (or the
/// baseline under them).
struct Slots<'a> {
    state: &'a mut FieldState,
    /// Masks the size hints (see [`FieldState::walk`]).
    sized: usize,
}

impl PathStore for Slots<'_> {
    type Slot = usize;

    #[inline(always)]
    fn size(&self, n: usize) -> usize {
        n & self.sized
    }

    #[inline(always)]
    fn slot(&mut self, owner: Option<usize>, index: i32, size: usize) -> Result<usize, FieldError> {
        self.state
            .slot_index(owner.map_or(Owner::Root, Owner::Slot), index, size)
    }

    #[inline(always)]
    fn stored(&mut self, slot: usize, prefix: &[i32]) -> Option<u64> {
        self.state.value_at(slot, prefix).and_then(Value::as_u64)
    }
}

impl FieldState {
    /// Decodes and stores one value that shapes later paths (an array
    /// length, a pointer's presence or type) of an entity read past
    /// ([`skip_fields`]): the full walk of [`FieldState::apply`], kept out
    /// of line (such values are few).
    #[inline(never)]
    fn store_structural(
        &mut self,
        tables: &SendTables,
        serializer: SerializerId,
        fp: &FieldPath,
        r: &mut BitReader<'_>,
        tick_interval: f32,
    ) -> Result<(), FieldError> {
        use crate::serializer::{read_array_length, read_poly_pointer, FieldDecoder};
        let mut level = LastLevel::None;
        let (at, decoder) = self.walk(tables, serializer, fp, &mut level)?;
        let bits = FieldError::Value;
        let value = match decoder {
            FieldDecoder::PointerPresent => Value::Bool(r.read_bool().map_err(bits)?),
            FieldDecoder::PolyPointer => Value::U32(read_poly_pointer(r).map_err(bits)?),
            FieldDecoder::ArrayLength => Value::U32(read_array_length(r).map_err(bits)?),
            // Not a value that shapes paths (resolve said it was): read past.
            other => return other.skip(r, tick_interval).map_err(bits),
        };
        self.store(at, value)
    }

    /// Stores a value already decoded that shapes later paths (see
    /// [`FieldState::store_structural`], which reads it itself).
    #[inline(never)]
    fn store_structural_value(
        &mut self,
        tables: &SendTables,
        serializer: SerializerId,
        fp: &FieldPath,
        value: Value,
    ) -> Result<(), FieldError> {
        use crate::serializer::FieldDecoder;
        let mut level = LastLevel::None;
        let (at, decoder) = self.walk(tables, serializer, fp, &mut level)?;
        match decoder {
            FieldDecoder::ArrayLength
            | FieldDecoder::PointerPresent
            | FieldDecoder::PolyPointer => self.store(at, value),
            // Not a value that shapes paths (resolve said it was): not kept,
            // as `store_structural` keeps it not.
            _ => Ok(()),
        }
    }

    /// The stored value of the slot at arena index `at` (path `prefix`),
    /// looking through to the baseline when the entity has not set it.
    #[inline]
    fn value_at(&self, at: usize, prefix: &[i32]) -> Option<&Value> {
        match self.slots.get(at).and_then(|s| self.value_of(s)) {
            Some(v) => Some(v),
            None => self.base.as_deref().and_then(|b| b.get_own(prefix)),
        }
    }

    /// Resolves `fp` against the serializer, decodes its value from `r` and
    /// stores it, in one walk down both the serializer and the state.
    ///
    /// This is [`SendTables::resolve`] followed by
    /// [`FieldState::set_sized`], fused: the length of a variable array and
    /// the type index of a polymorphic pointer are read from the slot the
    /// walk is already at, and each node is allocated at its full size.
    ///
    /// `sibling`: `fp` differs from the previous path only in its last
    /// index, so `level` (what that path's walk found) applies.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn apply<'t>(
        &mut self,
        tables: &'t SendTables,
        root: SerializerId,
        fp: &FieldPath,
        r: &mut BitReader<'_>,
        tick_interval: f32,
        level: &mut LastLevel<'t>,
        sibling: bool,
    ) -> Result<(), FieldError> {
        use crate::serializer::FieldModel;
        let fast = if sibling {
            // Anything unusual (another model, an index out of range) takes
            // the full walk below, which reports it.
            let index = fp.last_index();
            let found = match level {
                LastLevel::Fields {
                    fields,
                    owner,
                    size,
                    node,
                } => usize::try_from(index)
                    .ok()
                    .and_then(|k| fields.get(k))
                    .and_then(|&f| tables.fields.get(f as usize))
                    .and_then(|field| match &field.model {
                        FieldModel::Value(d) => Some((*owner, *size, node, d)),
                        _ => None,
                    }),
                LastLevel::Elements {
                    owner,
                    decoder,
                    bound,
                    size,
                    node,
                } => (index >= 0 && (index as u32) < *bound)
                    .then_some((*owner, *size, node, *decoder)),
                LastLevel::None => None,
            };
            match found {
                // Inside the node as last seen: no lookup of the node.
                Some((_, _, &mut (start, len), decoder)) if (index as u32 as usize) < len => {
                    Some((start + index as usize, decoder))
                }
                Some((owner, size, node, decoder)) => {
                    let at = self.slot_index(owner, index, size)?;
                    *node = self.node(owner);
                    Some((at, decoder))
                }
                None => None,
            }
        } else {
            None
        };
        let (at, decoder) = match fast {
            Some(hit) => hit,
            None => self.walk(tables, root, fp, level)?,
        };
        self.decode_into(at, decoder, r, tick_interval)
    }

    /// The walk of [`FieldState::apply`] down the serializer and the state
    /// ([`SendTables::walk`], allocating the slots it passes): the arena
    /// index of `fp`'s slot and its decoder; records in `level` where the
    /// last index was found.
    #[inline(always)]
    fn walk<'t>(
        &mut self,
        tables: &'t SendTables,
        root: SerializerId,
        fp: &FieldPath,
        level: &mut LastLevel<'t>,
    ) -> Result<(usize, &'t crate::serializer::FieldDecoder), FieldError> {
        // A baseline gets its nodes at full size (it sets most fields); an
        // entity's own layer over a baseline only holds what changed, so its
        // nodes grow as needed instead (this keeps many sparse entities,
        // as in Dota 2, small). `sized` masks the size hints.
        let sized = if self.base.is_some() { 0 } else { usize::MAX };
        let mut store = Slots { state: self, sized };
        let (at, decoder, last) = tables.walk(root, fp, &mut store)?;
        // The node of the last level looked up only now, not at every depth
        // of the walk.
        *level = match last {
            Last::Fields {
                fields,
                owner,
                size,
                ..
            } => {
                let owner = owner.map_or(Owner::Root, Owner::Slot);
                LastLevel::Fields {
                    fields,
                    owner,
                    size,
                    node: self.node(owner),
                }
            }
            Last::Elements {
                owner,
                decoder,
                bound,
                size,
            } => {
                let owner = Owner::Slot(owner);
                LastLevel::Elements {
                    owner,
                    decoder,
                    bound,
                    size,
                    node: self.node(owner),
                }
            }
        };
        Ok((at, decoder))
    }

    /// Decodes one value and stores it in the slot at arena index `at`,
    /// decoded in place ([`FieldState::fill`],
    /// [`crate::serializer::FieldDecoder::decode_to`]).
    #[inline(always)]
    fn decode_into(
        &mut self,
        at: usize,
        decoder: &crate::serializer::FieldDecoder,
        r: &mut BitReader<'_>,
        tick_interval: f32,
    ) -> Result<(), FieldError> {
        self.fill(at, |v| {
            decoder
                .decode_to(r, tick_interval, v)
                .map_err(FieldError::Value)
        })
    }
}

/// The dotted name of a failing path, for an error, when it resolves.
pub(crate) fn path_name(
    tables: &SendTables,
    serializer: SerializerId,
    entity: Option<&Entity>,
    fp: Option<FieldPath>,
) -> Option<String> {
    let fp = fp?;
    tables.path_name(serializer, &fp, |len| {
        entity
            .and_then(|e| fp.as_slice().get(..len).and_then(|p| e.state.get(p)))
            .and_then(Value::as_u64)
            .map(|v| v as u32)
    })
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
    pub(crate) baseline_cache: FxHashMap<u32, Arc<FieldState>>,
    /// The largest (slots, values) a created entity of each class had after
    /// its create record (capped at 1024 slots and 256 values): a new entity
    /// of the class reserves that much at once instead of growing step by
    /// step.
    pub(crate) size_hints: FxHashMap<u32, (u32, u32)>,
    /// See [`EntityList::generation`].
    generation: u64,
}

/// Source of [`EntityList::generation`] values: one counter for the whole
/// process, so no two lists (or two states of one list) share a value.
static GENERATIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl EntityList {
    /// A value that changes whenever an entity is created, replaced or
    /// deleted (not when one is updated or leaves the PVS), and differs
    /// between entity lists: a visitor can keep per-class index lists and
    /// rebuild them only when it changes.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub(crate) fn bump_generation(&mut self) {
        self.generation = GENERATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

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

    /// The slot at `index`, for a create or a replace (bumps the generation).
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
        self.bump_generation();
        self.slots.get_mut(index).ok_or(ErrorKind::LimitExceeded {
            what: "entity index",
            value: index as u64,
            limit: MAX_ENTITIES as u64 - 1,
        })
    }
}

#[cfg(test)]
mod tests;
