//! Field paths and the huffman-coded operations that produce them.
//!
//! An entity update names the fields it changes by *field paths*: up to
//! seven indices, the first into the entity's serializer, the next into an
//! array element or a nested serializer, and so on. The paths are sent as a
//! sequence of operations, each huffman coded, that edit the previous path:
//! `PlusOne` advances the last index, `PushOne...` descends, `PopAllButOne...`
//! returns to the top level, and so on. Every operation but `FieldPathEncodeFinish`
//! yields one path. All paths come first, then one value per path.
//!
//! The 40 operations, their weights and effects are published in
//! dotabuff/manta `field_path.go` and saul/demofile-net
//! `FieldPathEncoding.g.cs` (which lists the resulting codes). The huffman
//! tree is built from the weights (0 counted as 1) with a min-heap that, on
//! equal weights, pops the node with the higher symbol first; new internal
//! nodes take symbols 40, 41, ...; bit 0 is the left child.
//!
//! Decoding uses a 2^12-entry lookup table indexed by the next 12 bits; the
//! few operations with longer codes (up to 17 bits) continue in a 2^5-entry
//! second-level table, and only the last bits of the input are decoded by
//! walking the tree bit by bit. (A full 2^17-entry
//! table was measured too: it costs 256 KiB of cache and half a million
//! instructions to build per process, and was no faster.) `PlusOne`, the
//! most common operation, is the one-bit code `0`, so a run of zero bits is
//! a run of `PlusOne`s and is taken in one step: arrays updated element by
//! element are long such runs.
//!
//! The decoder also marks each path that differs from the one before only
//! in its last index (the paths `PlusOne`..`PlusN` make): entity decoding
//! starts such a path at the node its predecessor's walk ended in.

use std::sync::OnceLock;

use gamewire_bits::{BitError, BitReader};

/// Deepest field path.
pub const MAX_DEPTH: usize = 7;
/// Most field paths one entity update may carry.
pub const MAX_PATHS_PER_UPDATE: usize = 1 << 16;

/// A path of up to [`MAX_DEPTH`] indices.
///
/// The indices sit in an array of eight (the eighth, and every index past
/// `last`, is always zero), so the whole array is two 16-byte vectors: the
/// common edit, "add k to the last index", is done as one vector add of a
/// one-hot vector (`step`, `add_to_last`). A 4-byte store into the
/// array followed by the 16-byte loads that copy the path into the output
/// would stall on store-to-load forwarding on every path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FieldPath {
    path: [i32; MAX_DEPTH + 1],
    last: usize,
}

impl Default for FieldPath {
    fn default() -> Self {
        FieldPath {
            path: [-1, 0, 0, 0, 0, 0, 0, 0],
            last: 0,
        }
    }
}

impl FieldPath {
    /// A path from indices (at most seven; extra indices are dropped).
    pub fn from_slice(indices: &[i32]) -> Self {
        let mut fp = FieldPath {
            path: [0; MAX_DEPTH + 1],
            last: indices.len().clamp(1, MAX_DEPTH) - 1,
        };
        for (slot, &i) in fp.path.iter_mut().zip(indices.iter().take(MAX_DEPTH)) {
            *slot = i;
        }
        fp
    }

    /// The indices.
    pub fn as_slice(&self) -> &[i32] {
        &self.path[..=self.last]
    }

    /// Number of indices.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.last + 1
    }

    /// A compact key: each index plus one in 17 bits. `None` when an index is
    /// negative or too large.
    pub fn key(&self) -> Option<u128> {
        let mut key = 0u128;
        for (i, &c) in self.as_slice().iter().enumerate() {
            if !(0..(1 << 17) - 1).contains(&c) {
                return None;
            }
            key |= ((c as u128) + 1) << (17 * i);
        }
        Some(key)
    }

    /// The key of the first `len` indices.
    pub fn prefix_key(&self, len: usize) -> Option<u128> {
        let mut p = *self;
        p.last = len.clamp(1, MAX_DEPTH) - 1;
        p.key()
    }

    /// The index at the last position.
    #[inline(always)]
    pub(crate) fn last_index(&self) -> i32 {
        // last < MAX_DEPTH by construction.
        self.path.get(self.last).copied().unwrap_or(-1)
    }

    /// Whether `other` has the same length and the same indices but the
    /// last: a path into the same node (a sibling, or the same path). (The
    /// decoder marks such paths itself, see [`Paths`]; tests check the marks
    /// against this.)
    #[cfg(test)]
    pub(crate) fn same_parent(&self, other: &FieldPath) -> bool {
        self.last == other.last && self.path[..self.last] == other.path[..other.last]
    }

    /// `k` (1 to 4) in the last index, zero elsewhere (for
    /// [`FieldPath::add`]), from a table: `PlusOne`..`PlusFour` as one
    /// vector add each.
    #[inline(always)]
    fn step(&self, k: usize) -> [i32; MAX_DEPTH + 1] {
        /// `STEPS[k][last]`: `k` in lane `last`.
        const STEPS: [[[i32; MAX_DEPTH + 1]; MAX_DEPTH + 1]; 5] = {
            let mut t = [[[0; MAX_DEPTH + 1]; MAX_DEPTH + 1]; 5];
            let mut k = 0;
            while k < 5 {
                let mut last = 0;
                while last <= MAX_DEPTH {
                    t[k][last][last] = k as i32;
                    last += 1;
                }
                k += 1;
            }
            t
        };
        STEPS
            .get(k)
            .and_then(|s| s.get(self.last))
            .copied()
            .unwrap_or([0; MAX_DEPTH + 1])
    }

    /// Adds `v` index by index, as a whole-array add.
    #[inline(always)]
    fn add(&mut self, v: &[i32; MAX_DEPTH + 1]) {
        for (c, d) in self.path.iter_mut().zip(v) {
            *c = c.wrapping_add(*d);
        }
    }

    /// Adds any `k` to the last index, as a whole-array add (see the type
    /// docs) of the one-hot [`FieldPath::step`] times `k`.
    #[inline(always)]
    fn add_to_last(&mut self, k: i32) {
        self.add_at(self.last, k);
    }

    /// Adds `k` to the index at position `at` (< 8), as a whole-array add of
    /// `k` masked to that lane: no 4-byte store into the array, which the
    /// 16-byte loads of the next copy would stall on.
    #[inline(always)]
    fn add_at(&mut self, at: usize, k: i32) {
        let lane = LANE.get(at).copied().unwrap_or([0; MAX_DEPTH + 1]);
        for (c, m) in self.path.iter_mut().zip(lane) {
            *c = c.wrapping_add(m & k);
        }
    }

    /// Appends `value` (the lane past the last is zero: added, not stored).
    #[inline(always)]
    fn push(&mut self, value: i32) -> Result<(), FieldPathError> {
        if self.last + 1 >= MAX_DEPTH {
            return Err(FieldPathError::TooDeep);
        }
        self.last += 1;
        self.add_at(self.last, value);
        Ok(())
    }

    /// Drops the last `n` indices, zeroing their lanes with a mask.
    #[inline(always)]
    fn pop(&mut self, n: usize) -> Result<(), FieldPathError> {
        if n > self.last {
            return Err(FieldPathError::PopTooFar);
        }
        self.last -= n;
        let keep = KEEP.get(self.last).copied().unwrap_or([0; MAX_DEPTH + 1]);
        for (c, m) in self.path.iter_mut().zip(keep) {
            *c &= m;
        }
        Ok(())
    }
}

/// `LANE[at]`: all bits set in lane `at`, clear elsewhere.
const LANE: [[i32; MAX_DEPTH + 1]; MAX_DEPTH + 1] = {
    let mut t = [[0; MAX_DEPTH + 1]; MAX_DEPTH + 1];
    let mut at = 0;
    while at <= MAX_DEPTH {
        t[at][at] = -1;
        at += 1;
    }
    t
};

/// `KEEP[last]`: all bits set in lanes `0..=last`, clear above.
const KEEP: [[i32; MAX_DEPTH + 1]; MAX_DEPTH + 1] = {
    let mut t = [[0; MAX_DEPTH + 1]; MAX_DEPTH + 1];
    let mut last = 0;
    while last <= MAX_DEPTH {
        let mut i = 0;
        while i <= last {
            t[last][i] = -1;
            i += 1;
        }
        last += 1;
    }
    t
};

impl std::fmt::Display for FieldPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[")?;
        for (i, c) in self.as_slice().iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{c}")?;
        }
        f.write_str("]")
    }
}

/// Why a field-path sequence could not be decoded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FieldPathError {
    /// A push past seven indices.
    #[error("field path deeper than 7")]
    TooDeep,
    /// A pop past the first index.
    #[error("field path pop past the root")]
    PopTooFar,
    /// More paths than an update may carry.
    #[error("more than {MAX_PATHS_PER_UPDATE} field paths in one update")]
    TooMany,
    /// The bitstream ended or was malformed.
    #[error("{0}")]
    Bits(#[from] BitError),
}

/// The operations in symbol order, with their weights.
pub const OPS: [(&str, u32); 40] = [
    ("PlusOne", 36271),
    ("PlusTwo", 10334),
    ("PlusThree", 1375),
    ("PlusFour", 646),
    ("PlusN", 4128),
    ("PushOneLeftDeltaZeroRightZero", 35),
    ("PushOneLeftDeltaZeroRightNonZero", 3),
    ("PushOneLeftDeltaOneRightZero", 521),
    ("PushOneLeftDeltaOneRightNonZero", 2942),
    ("PushOneLeftDeltaNRightZero", 560),
    ("PushOneLeftDeltaNRightNonZero", 471),
    ("PushOneLeftDeltaNRightNonZeroPack6Bits", 10530),
    ("PushOneLeftDeltaNRightNonZeroPack8Bits", 251),
    ("PushTwoLeftDeltaZero", 0),
    ("PushTwoPack5LeftDeltaZero", 0),
    ("PushThreeLeftDeltaZero", 0),
    ("PushThreePack5LeftDeltaZero", 0),
    ("PushTwoLeftDeltaOne", 0),
    ("PushTwoPack5LeftDeltaOne", 0),
    ("PushThreeLeftDeltaOne", 0),
    ("PushThreePack5LeftDeltaOne", 0),
    ("PushTwoLeftDeltaN", 0),
    ("PushTwoPack5LeftDeltaN", 0),
    ("PushThreeLeftDeltaN", 0),
    ("PushThreePack5LeftDeltaN", 0),
    ("PushN", 0),
    ("PushNAndNonTopological", 310),
    ("PopOnePlusOne", 2),
    ("PopOnePlusN", 0),
    ("PopAllButOnePlusOne", 1837),
    ("PopAllButOnePlusN", 149),
    ("PopAllButOnePlusNPack3Bits", 300),
    ("PopAllButOnePlusNPack6Bits", 634),
    ("PopNPlusOne", 0),
    ("PopNPlusN", 0),
    ("PopNAndNonTopographical", 1),
    ("NonTopoComplex", 76),
    ("NonTopoPenultimatePlusOne", 271),
    ("NonTopoComplexPack4Bits", 99),
    ("FieldPathEncodeFinish", 25474),
];

const FINISH: u8 = 39;
/// Longest code, in bits.
pub const MAX_CODE_LEN: u32 = 17;
/// Bits indexing the lookup table: 2^12 entries (8 KiB, stays in L1)
/// cover every operation seen more than a few times per million. A longer
/// code's first 12 bits select a second-level table of 2^5 entries indexed
/// by its remaining bits (`PushTwoLeftDeltaN`, 17 bits, is rare in the
/// published weights but common in some CS2 demos).
pub const LOOKUP_BITS: u32 = 12;
/// Bits indexing a second-level table.
const SUB_BITS: u32 = MAX_CODE_LEN - LOOKUP_BITS;
/// Marks a first-level entry that points at a second-level table.
const SUB_FLAG: u16 = 0x8000;

/// The huffman code of each operation: (bits, length), first bit in bit 0.
pub fn codes() -> &'static [(u32, u32); 40] {
    &tables().codes
}

struct Tables {
    codes: [(u32, u32); 40],
    /// Tree nodes: (left, right); a value >= 0x8000 is a leaf (op | 0x8000).
    tree: Vec<(u16, u16)>,
    root: u16,
    /// (op << 8) | code length, indexed by the next [`LOOKUP_BITS`] bits;
    /// `SUB_FLAG | k` where the code is longer: second-level table `k`.
    lookup: Box<[u16; 1 << LOOKUP_BITS]>,
    /// The second-level tables, 2^`SUB_BITS` entries each, indexed by the
    /// bits after the first [`LOOKUP_BITS`]: (op << 8) | full code length.
    sub: Vec<u16>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(build_tables)
}

fn build_tables() -> Tables {
    // Heap entries: (weight, symbol, node id). Node ids: leaf op | 0x8000,
    // internal = index into `tree`.
    #[derive(Clone, Copy)]
    struct Node {
        weight: u32,
        symbol: u32,
        id: u16,
    }
    let mut heap: Vec<Node> = OPS
        .iter()
        .enumerate()
        .map(|(i, &(_, w))| Node {
            weight: w.max(1),
            symbol: i as u32,
            id: 0x8000 | i as u16,
        })
        .collect();
    let mut tree: Vec<(u16, u16)> = Vec::new();
    let mut next_symbol = 40u32;
    // Pops the minimum: lowest weight, and among equal weights the highest symbol.
    let pop = |heap: &mut Vec<Node>| -> Option<Node> {
        let mut best = 0usize;
        for (i, n) in heap.iter().enumerate() {
            let b = heap.get(best)?;
            if n.weight < b.weight || (n.weight == b.weight && n.symbol > b.symbol) {
                best = i;
            }
        }
        if heap.is_empty() {
            None
        } else {
            Some(heap.swap_remove(best))
        }
    };
    let mut root = 0u16;
    while heap.len() > 1 {
        let (Some(a), Some(b)) = (pop(&mut heap), pop(&mut heap)) else {
            break;
        };
        tree.push((a.id, b.id));
        let id = (tree.len() - 1) as u16;
        heap.push(Node {
            weight: a.weight + b.weight,
            symbol: next_symbol,
            id,
        });
        next_symbol += 1;
        root = id;
    }
    let mut codes = [(0u32, 0u32); 40];
    let mut stack = vec![(root, 0u32, 0u32)];
    while let Some((id, bits, len)) = stack.pop() {
        if id & 0x8000 != 0 {
            if let Some(slot) = codes.get_mut(usize::from(id & 0x7fff)) {
                *slot = (bits, len);
            }
            continue;
        }
        if let Some(&(l, r)) = tree.get(usize::from(id)) {
            stack.push((l, bits, len + 1));
            stack.push((r, bits | (1 << len), len + 1));
        }
    }
    // Every index whose low `len` bits are the code gets the entry.
    let fill = |table: &mut [u16], bits: usize, len: u32, entry: u16| {
        let mut i = bits;
        while let Some(slot) = table.get_mut(i) {
            *slot = entry;
            i += 1 << len;
        }
    };
    let mut lookup = Box::new([0u16; 1 << LOOKUP_BITS]);
    let mut sub: Vec<u16> = Vec::new();
    for (op, &(bits, len)) in codes.iter().enumerate() {
        let entry = ((op as u16) << 8) | len as u16;
        if len == 0 || len > MAX_CODE_LEN {
            continue;
        }
        if len <= LOOKUP_BITS {
            fill(&mut lookup[..], bits as usize, len, entry);
            continue;
        }
        // A long code: its first LOOKUP_BITS bits name a second-level table
        // (made on first use), its remaining bits index it.
        let prefix = (bits & ((1 << LOOKUP_BITS) - 1)) as usize;
        let table = match lookup.get(prefix).copied() {
            Some(e) if e & SUB_FLAG != 0 => usize::from(e & !SUB_FLAG),
            _ => {
                let k = sub.len() >> SUB_BITS;
                sub.resize(sub.len() + (1 << SUB_BITS), 0);
                if let Some(slot) = lookup.get_mut(prefix) {
                    *slot = SUB_FLAG | k as u16;
                }
                k
            }
        };
        let start = table << SUB_BITS;
        if let Some(t) = sub.get_mut(start..start + (1 << SUB_BITS)) {
            fill(t, (bits >> LOOKUP_BITS) as usize, len - LOOKUP_BITS, entry);
        }
    }
    Tables {
        codes,
        tree,
        root,
        lookup,
        sub,
    }
}

/// How operation codes are decoded (see the `parse` bench, `fieldpath_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpDecoding {
    /// A 2^12-entry table indexed by the next 12 bits, a second level for
    /// longer codes (a tree walk only at the end of input); runs of
    /// `PlusOne` taken at once.
    Table,
    /// A walk down the huffman tree, one bit at a time.
    TreeWalk,
}

#[inline(always)]
fn next_op(r: &mut BitReader<'_>, t: &Tables, how: OpDecoding) -> Result<u8, FieldPathError> {
    if how == OpDecoding::Table
        && (r.lookahead_bits() >= MAX_CODE_LEN || r.refill_lookahead() >= MAX_CODE_LEN)
    {
        let window = r.peek(MAX_CODE_LEN) as usize;
        // Masked to the table's size: no bounds check.
        let mut entry = t.lookup[window & ((1 << LOOKUP_BITS) - 1)];
        if entry & SUB_FLAG != 0 {
            let at = (usize::from(entry & !SUB_FLAG) << SUB_BITS) | (window >> LOOKUP_BITS);
            entry = t.sub.get(at).copied().unwrap_or(0);
        }
        if entry != 0 {
            r.consume(u32::from(entry & 0xff));
            return Ok((entry >> 8) as u8);
        }
    }
    // Slow path near the end of input: walk the tree.
    let mut node = t.root;
    loop {
        let (l, rt) = t
            .tree
            .get(usize::from(node))
            .copied()
            .unwrap_or((0x8000 | 39, 0x8000 | 39));
        node = if r.read_bool()? { rt } else { l };
        if node & 0x8000 != 0 {
            return Ok((node & 0x7fff) as u8);
        }
    }
}

#[inline]
fn read_varint32(r: &mut BitReader<'_>) -> Result<i32, BitError> {
    r.read_varint32()
}

/// `PlusN`: adds 5 + a field-path UBitVar to the last index.
#[inline(always)]
fn plus_n(fp: &mut FieldPath, r: &mut BitReader<'_>) -> Result<(), BitError> {
    let n = r.read_ubitvar_fieldpath()? as i32;
    fp.add_to_last(n.wrapping_add(5));
    Ok(())
}

/// Applies one operation (not `Finish`) to `fp`.
fn apply_op(op: u8, fp: &mut FieldPath, r: &mut BitReader<'_>) -> Result<(), FieldPathError> {
    let fpu = |r: &mut BitReader<'_>| r.read_ubitvar_fieldpath().map(|v| v as i32);
    let bits = |r: &mut BitReader<'_>, n: u32| r.read_bits(n).map(|v| v as i32);
    match op {
        0..=3 => fp.add(&fp.step(usize::from(op) + 1)),
        4 => plus_n(fp, r)?,
        5 => fp.push(0)?,
        6 => {
            let n = fpu(r)?;
            fp.push(n)?;
        }
        7 => {
            fp.add_to_last(1);
            fp.push(0)?;
        }
        8 => {
            fp.add_to_last(1);
            let n = fpu(r)?;
            fp.push(n)?;
        }
        9 => {
            let n = fpu(r)?;
            fp.add_to_last(n);
            fp.push(0)?;
        }
        10 => {
            let a = fpu(r)?;
            let b = fpu(r)?;
            fp.add_to_last(a.wrapping_add(2));
            fp.push(b.wrapping_add(1))?;
        }
        11 => {
            let a = bits(r, 3)?;
            let b = bits(r, 3)?;
            fp.add_to_last(a + 2);
            fp.push(b + 1)?;
        }
        12 => {
            let a = bits(r, 4)?;
            let b = bits(r, 4)?;
            fp.add_to_last(a + 2);
            fp.push(b + 1)?;
        }
        13..=25 => {
            // The push-two/three family and PushN.
            let (count, pack5, delta): (i32, bool, u8) = match op {
                13 => (2, false, 0),
                14 => (2, true, 0),
                15 => (3, false, 0),
                16 => (3, true, 0),
                17 => (2, false, 1),
                18 => (2, true, 1),
                19 => (3, false, 1),
                20 => (3, true, 1),
                21 => (2, false, 2),
                22 => (2, true, 2),
                23 => (3, false, 2),
                24 => (3, true, 2),
                _ => (-1, false, 3),
            };
            let count = match delta {
                1 => {
                    fp.add_to_last(1);
                    count
                }
                2 => {
                    let n = r.read_ubitvar()? as i32;
                    fp.add_to_last(n.wrapping_add(2));
                    count
                }
                3 => {
                    let n = r.read_ubitvar()?;
                    let d = r.read_ubitvar()? as i32;
                    fp.add_to_last(d);
                    if n as usize >= MAX_DEPTH {
                        return Err(FieldPathError::TooDeep);
                    }
                    n as i32
                }
                _ => count,
            };
            for _ in 0..count {
                let v = if pack5 { bits(r, 5)? } else { fpu(r)? };
                fp.push(v)?;
            }
        }
        26 => {
            for i in 0..=fp.last {
                if r.read_bool()? {
                    fp.path[i] = fp.path[i].wrapping_add(read_varint32(r)?).wrapping_add(1);
                }
            }
            let n = r.read_ubitvar()?;
            if n as usize >= MAX_DEPTH {
                return Err(FieldPathError::TooDeep);
            }
            for _ in 0..n {
                let v = fpu(r)?;
                fp.push(v)?;
            }
        }
        27 => {
            fp.pop(1)?;
            fp.add_to_last(1);
        }
        28 => {
            fp.pop(1)?;
            let n = fpu(r)?;
            fp.add_to_last(n.wrapping_add(1));
        }
        29..=32 => {
            fp.pop(fp.last)?;
            let n = match op {
                29 => 0,
                30 => fpu(r)?,
                31 => bits(r, 3)?,
                _ => bits(r, 6)?,
            };
            fp.add_at(0, n.wrapping_add(1));
        }
        33 => {
            let n = fpu(r)? as usize;
            fp.pop(n)?;
            fp.add_to_last(1);
        }
        34 => {
            let n = fpu(r)? as usize;
            fp.pop(n)?;
            let d = read_varint32(r)?;
            fp.add_to_last(d);
        }
        35 => {
            let n = fpu(r)? as usize;
            fp.pop(n)?;
            for i in 0..=fp.last {
                if r.read_bool()? {
                    fp.path[i] = fp.path[i].wrapping_add(read_varint32(r)?);
                }
            }
        }
        36 => {
            for i in 0..=fp.last {
                if r.read_bool()? {
                    fp.path[i] = fp.path[i].wrapping_add(read_varint32(r)?);
                }
            }
        }
        37 => {
            if fp.last == 0 {
                return Err(FieldPathError::PopTooFar);
            }
            fp.add_at(fp.last - 1, 1);
        }
        _ => {
            // 38: NonTopoComplexPack4Bits.
            for i in 0..=fp.last {
                if r.read_bool()? {
                    fp.path[i] = fp.path[i].wrapping_add(bits(r, 4)? - 7);
                }
            }
        }
    }
    Ok(())
}

/// Reads a whole field-path sequence into `out` (cleared first).
#[inline]
pub fn read_field_paths(
    r: &mut BitReader<'_>,
    out: &mut Vec<FieldPath>,
) -> Result<(), FieldPathError> {
    read_field_paths_with(r, out, OpDecoding::Table)
}

/// [`read_field_paths`] with a chosen op decoding (for measurement).
pub fn read_field_paths_with(
    r: &mut BitReader<'_>,
    out: &mut Vec<FieldPath>,
    how: OpDecoding,
) -> Result<(), FieldPathError> {
    read_paths::<false>(r, out, &mut Vec::new(), how)
}

/// The field paths of one update, and for each whether it differs from the
/// path before it only in its last index: `PlusOne`..`PlusN` edit nothing
/// else, so the decoder knows without comparing (entities use it to skip
/// the walk down to a sibling's node).
#[derive(Debug, Default)]
pub(crate) struct Paths {
    pub(crate) paths: Vec<FieldPath>,
    pub(crate) siblings: Vec<bool>,
}

impl Paths {
    pub(crate) fn with_capacity(n: usize) -> Paths {
        Paths {
            paths: Vec::with_capacity(n),
            siblings: Vec::with_capacity(n),
        }
    }
}

/// [`read_field_paths`] into `out.paths`, marking siblings in
/// `out.siblings` (see [`Paths`]).
#[inline]
pub(crate) fn read_field_paths_marked(
    r: &mut BitReader<'_>,
    out: &mut Paths,
) -> Result<(), FieldPathError> {
    read_paths::<true>(r, &mut out.paths, &mut out.siblings, OpDecoding::Table)
}

/// The decode loop; `MARK`: fill `siblings` too (one flag per path).
#[inline(always)]
fn read_paths<const MARK: bool>(
    r: &mut BitReader<'_>,
    out: &mut Vec<FieldPath>,
    siblings: &mut Vec<bool>,
    how: OpDecoding,
) -> Result<(), FieldPathError> {
    out.clear();
    if MARK {
        siblings.clear();
    }
    let t = tables();
    let mut fp = FieldPath::default();
    loop {
        if how == OpDecoding::Table
            && (r.lookahead_bits() >= MAX_CODE_LEN || r.refill_lookahead() >= MAX_CODE_LEN)
            && r.peek(1) == 0
        {
            // `PlusOne` is the one-bit code 0: the run of zero bits that
            // starts here is that many `PlusOne`s, taken at once (arrays
            // updated element by element are long runs of them).
            let n = (r.peek(MAX_CODE_LEN) | 1 << MAX_CODE_LEN).trailing_zeros();
            r.consume(n);
            let n = n as usize;
            if out.len() + n > MAX_PATHS_PER_UPDATE {
                return Err(FieldPathError::TooMany);
            }
            out.reserve(n);
            let one = fp.step(1);
            for _ in 0..n {
                fp.add(&one);
                out.push(fp);
            }
            if MARK {
                siblings.resize(siblings.len() + n, true);
            }
            continue;
        }
        let op = next_op(r, t, how)?;
        match op {
            FINISH => return Ok(()),
            // PlusOne..PlusFour (about 60% of all ops) and PlusN (half of
            // the other ops on CS2 clips) without a call.
            0..=3 => fp.add(&fp.step(usize::from(op) + 1)),
            4 => plus_n(&mut fp, r)?,
            _ => {
                // On a copy: `fp` itself never has its address taken, so
                // it stays in registers across the common ops above.
                let mut edited = fp;
                apply_op(op, &mut edited, r)?;
                fp = edited;
            }
        }
        if out.len() >= MAX_PATHS_PER_UPDATE {
            return Err(FieldPathError::TooMany);
        }
        out.push(fp);
        if MARK {
            // PlusOne..PlusN: only the last index changed.
            siblings.push(op <= 4);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn code_str(bits: u32, len: u32) -> String {
        (0..len)
            .map(|i| if bits >> i & 1 == 1 { '1' } else { '0' })
            .collect()
    }

    #[test]
    fn huffman_codes_match_published_table() {
        // Codes as published in demofile-net FieldPathEncoding (first bit first).
        let expected = [
            (0, "0"),
            (1, "1110"),
            (2, "110010"),
            (3, "11011111"),
            (4, "11010"),
            (5, "110110001101"),
            (6, "110110001100101"),
            (8, "11000"),
            (11, "1111"),
            (13, "1101100011001000"),
            (14, "11011000110010011"),
            (24, "1101100011000101"),
            (29, "110011"),
            (35, "1101100011000000"),
            (36, "11011000111"),
            (38, "1101100010"),
            (39, "10"),
        ];
        let codes = codes();
        for (op, s) in expected {
            let (bits, len) = codes[op];
            assert_eq!(code_str(bits, len), s, "op {op} {}", OPS[op].0);
        }
    }

    #[test]
    fn decodes_plus_one_and_finish() {
        use gamewire_bits::BitWriter;
        let codes = codes();
        let mut w = BitWriter::new();
        // PlusOne, PlusOne, PushOneLeftDeltaZeroRightZero, Finish.
        for op in [0usize, 0, 5, 39] {
            let (bits, len) = codes[op];
            w.write_bits(u64::from(bits), len).unwrap();
        }
        let data = w.finish();
        let mut out = Vec::new();
        read_field_paths(&mut BitReader::new(&data), &mut out).unwrap();
        let paths: Vec<Vec<i32>> = out.iter().map(|p| p.as_slice().to_vec()).collect();
        assert_eq!(paths, vec![vec![0], vec![1], vec![1, 0]]);
    }

    #[test]
    fn every_code_decodes_to_its_op_by_table_and_by_tree() {
        use gamewire_bits::BitWriter;
        let t = tables();
        for (op, &(bits, len)) in codes().iter().enumerate() {
            // The code, then padding so the table path has 17 bits to peek,
            // then the same code again at the very end (tree-walk path).
            let mut w = BitWriter::new();
            w.write_bits(u64::from(bits), len).unwrap();
            w.write_bits(0x5a5a5, 20).unwrap();
            w.write_bits(u64::from(bits), len).unwrap();
            let data = w.finish();
            for how in [OpDecoding::Table, OpDecoding::TreeWalk] {
                let mut r = BitReader::new(&data);
                assert_eq!(
                    next_op(&mut r, t, how).unwrap(),
                    op as u8,
                    "{how:?} {}",
                    OPS[op].0
                );
                assert_eq!(r.position(), u64::from(len));
                r.seek(u64::from(len) + 20).unwrap();
                assert_eq!(
                    next_op(&mut r, t, how).unwrap(),
                    op as u8,
                    "{how:?} at the end"
                );
            }
        }
        // Every 17-bit window decodes by the tables exactly as by the tree.
        for window in 0u32..1 << MAX_CODE_LEN {
            let bytes = u64::from(window).to_le_bytes();
            let mut a = BitReader::new(&bytes);
            let mut b = BitReader::new(&bytes);
            assert_eq!(
                next_op(&mut a, t, OpDecoding::Table).unwrap(),
                next_op(&mut b, t, OpDecoding::TreeWalk).unwrap(),
                "window {window:#x}"
            );
            assert_eq!(a.position(), b.position());
        }
    }

    /// Field-path streams made of real op codes: mostly `PlusOne` runs
    /// (the table path takes a run at once), pushes, pops and `Finish`.
    fn op_stream(ops: &[(u8, u16)]) -> Vec<u8> {
        use gamewire_bits::BitWriter;
        let codes = codes();
        let mut w = BitWriter::new();
        for &(op, extra) in ops {
            let (bits, len) = codes[usize::from(op % 40)];
            w.write_bits(u64::from(bits), len).unwrap();
            // Operand bits for the ops that take some (any value decodes;
            // what an op leaves over is read as further ops).
            if !matches!(
                op % 40,
                0..=3 | 5 | 7 | 13 | 15 | 17 | 19 | 27 | 29 | 37 | 39
            ) {
                // Small operands: the zero bits they leave over are `PlusOne`s.
                w.write_bits(u64::from(extra & 0x3f), 16).unwrap();
            }
        }
        w.finish()
    }

    proptest::proptest! {
        #[test]
        fn table_with_runs_decodes_as_the_tree_walk(
            ops in proptest::collection::vec(
                (
                    proptest::prop_oneof![
                        8 => proptest::strategy::Just(0u8),
                        2 => 1u8..5,
                        1 => 5u8..13,
                        1 => 29u8..33,
                        1 => 0u8..39,
                    ],
                    proptest::num::u16::ANY,
                ),
                0..200,
            ),
            cut in proptest::num::usize::ANY,
        ) {
            let mut data = op_stream(&ops);
            // Cut anywhere: runs and codes meet the end of input too.
            let keep = if data.is_empty() { 0 } else { cut % (data.len() + 1) };
            data.truncate(keep);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let mut ra = BitReader::new(&data);
            let mut rb = BitReader::new(&data);
            let ea = read_field_paths_with(&mut ra, &mut a, OpDecoding::Table);
            let eb = read_field_paths_with(&mut rb, &mut b, OpDecoding::TreeWalk);
            proptest::prop_assert_eq!(ea.is_ok(), eb.is_ok());
            let mut marked = Paths::default();
            let mut rm = BitReader::new(&data);
            let em = read_field_paths_marked(&mut rm, &mut marked);
            proptest::prop_assert_eq!(em.is_ok(), ea.is_ok());
            if ea.is_ok() {
                proptest::prop_assert_eq!(&a, &b);
                proptest::prop_assert_eq!(ra.position(), rb.position());
                proptest::prop_assert_eq!(&marked.paths, &a);
                proptest::prop_assert_eq!(marked.siblings.len(), a.len());
                // A path marked as a sibling is one: same length, same
                // indices but the last as the path before it.
                for (i, &sibling) in marked.siblings.iter().enumerate().skip(1) {
                    if sibling {
                        proptest::prop_assert!(a[i].same_parent(&a[i - 1]), "path {}", i);
                    }
                }
            }
        }
    }

    #[test]
    fn same_parent_compares_all_but_the_last_index() {
        let p = |v: &[i32]| FieldPath::from_slice(v);
        assert!(p(&[3, 1, 7]).same_parent(&p(&[3, 1, 9])));
        assert!(p(&[3]).same_parent(&p(&[5])));
        assert!(!p(&[3, 1, 7]).same_parent(&p(&[3, 2, 7])));
        assert!(!p(&[3, 1]).same_parent(&p(&[3, 1, 0])));
        assert!(!p(&[4, 1, 7]).same_parent(&p(&[3, 1, 7])));
        assert!(p(&[1, 2, 3, 4, 5, 6, 7]).same_parent(&p(&[1, 2, 3, 4, 5, 6, 0])));
        assert!(!p(&[1, 2, 3, 4, 5, 6, 7]).same_parent(&p(&[1, 2, 3, 4, 5, 0, 7])));
    }

    #[test]
    fn hostile_paths_error_not_panic() {
        for seed in 0u32..200 {
            let data: Vec<u8> = (0..64u32)
                .map(|i| (i.wrapping_mul(2654435761).wrapping_add(seed * 97) >> 7) as u8)
                .collect();
            let mut out = Vec::new();
            let _ = read_field_paths(&mut BitReader::new(&data), &mut out);
        }
    }
}
