//! Writing field paths: the inverse of [`read_field_paths`](crate::fieldpath::read_field_paths).
//!
//! An entity record names the fields it carries by a sequence of field
//! paths, sent as huffman-coded operations that each edit the previous path
//! and yield the next one; `FieldPathEncodeFinish` ends the sequence
//! (`docs/formats/source2-field-paths.md`; the operations, their codes and
//! operands are listed in [`crate::fieldpath`]). The first operation edits
//! the start path `[-1]`, so the path `[0]` is one `PlusOne`.
//!
//! Many operation sequences give the same paths: `[3] → [5]` is `PlusTwo`
//! (4 bits), `PlusN` with an operand, or `NonTopoComplex` with a varint.
//! [`write_field_paths`] writes the shortest. Every operation but `Finish`
//! yields exactly one path, and what an operation does depends only on the
//! previous path, so there are no multi-operation routes between two paths
//! (a `Push` followed by a `PlusOne` would yield an extra path) and the
//! cheapest operation for each step, chosen on its own, makes the shortest
//! sequence as a whole. For each step the writer prices every operation that
//! reaches the next path from the previous one (code length plus operands:
//! 2 to 31-bit field-path varints, 6 to 34-bit `UBitVar`s, zigzag varints,
//! packed fields of 3 to 6 bits) and takes the cheapest; among equally
//! short ones, the one first in the operation table, except that
//! `PushOneLeftDeltaNRightNonZeroPack8Bits` goes before
//! `PushOneLeftDeltaNRightNonZero`, as the games choose.
//!
//! What can be written: any paths of 1 to 7 indices, in the order given (the
//! values that follow the paths are read in path order, so the writer never
//! reorders). An index that would have to be *pushed* negative cannot be
//! sent (pushed indices are unsigned field-path varints); every other edit
//! can (`NonTopoComplex` adds signed deltas). More paths than
//! [`MAX_PATHS_PER_UPDATE`] are refused, as the reader refuses them.
//!
//! ```
//! use gamewire_bits::{BitReader, BitWriter};
//! use gamewire_source2::fieldpath::{read_field_paths, FieldPath};
//! use gamewire_source2::fieldpath_writer::write_field_paths;
//!
//! let paths = [
//!     FieldPath::from_slice(&[0]),
//!     FieldPath::from_slice(&[1]),
//!     FieldPath::from_slice(&[1, 0]),
//!     FieldPath::from_slice(&[7]),
//! ];
//! let mut w = BitWriter::new();
//! write_field_paths(&mut w, &paths)?;
//! // PlusOne (1 bit), PlusOne, PushOneLeftDeltaNRightZero with the
//! // varint 0 (8 + 3; PushOneLeftDeltaZeroRightZero has no operand but a
//! // 12-bit code), PopAllButOnePlusNPack3Bits (9 + 3), FieldPathEncodeFinish (2).
//! assert_eq!(w.bits_written(), 1 + 1 + 11 + 12 + 2);
//! let bytes = w.finish();
//! let mut read = Vec::new();
//! read_field_paths(&mut BitReader::new(&bytes), &mut read).unwrap();
//! assert_eq!(read, paths);
//! # Ok::<(), gamewire_source2::ErrorKind>(())
//! ```

use gamewire_bits::BitWriter;

use crate::error::ErrorKind;
use crate::fieldpath::{codes, FieldPath, MAX_PATHS_PER_UPDATE, OPS};

/// `FieldPathEncodeFinish`.
const FINISH: usize = 39;

/// Which of the sequences that give the paths [`write_field_paths_with`]
/// writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PathStyle {
    /// The shortest sequence.
    #[default]
    Shortest,
    /// The shortest sequence under the rules the games' encoder keeps,
    /// read off the corpus demos (where these rules make the sequence as
    /// long as the game's in 95 to 100 % of records, against 78 to 95 %
    /// for [`PathStyle::Shortest`], and never longer):
    ///
    /// - a `PopAllButOne...` operation only where it pops something;
    /// - `PushOneLeftDeltaNRightZero` only with a left delta that is not 0;
    /// - the 3-bit and 4-bit fields of `PushOneLeftDeltaNRightNonZeroPack6Bits`
    ///   and `...Pack8Bits` below their largest value (7, 15);
    /// - the 5-bit forms of push-two and push-three with a left delta of
    ///   zero or one wherever the pushed indices fit 5 bits;
    /// - `PushNAndNonTopological` only where an index before the last one
    ///   of the previous path changes (a push after a plain move of the
    ///   last index is a push-two, push-three or `PushN`).
    ///
    /// It is a few bits per record longer than [`PathStyle::Shortest`] at
    /// most, and comes out bit for bit as the game wrote it far more often.
    Game,
}

/// One operand of an operation, as the reader reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operand {
    /// One bit.
    Bool(bool),
    /// The field-path varint (`read_ubitvar_fieldpath`), below 2^31.
    Fpu(u32),
    /// A `UBitVar`.
    UBitVar(u32),
    /// A zigzag varint32.
    Varint(i32),
    /// `n` raw bits.
    Bits(u32, u32),
}

impl Operand {
    /// Bits on the wire.
    #[inline]
    fn bits(self) -> u32 {
        match self {
            Operand::Bool(_) => 1,
            Operand::Fpu(v) => match v {
                0..=0x3 => 3,
                0x4..=0xf => 6,
                0x10..=0x3ff => 13,
                0x400..=0x1_ffff => 21,
                _ => 35,
            },
            Operand::UBitVar(v) => match v {
                0..=0xf => 6,
                0x10..=0xff => 10,
                0x100..=0xfff => 14,
                _ => 34,
            },
            Operand::Varint(v) => {
                let z = ((v << 1) ^ (v >> 31)) as u32;
                8 * (1 + (32 - z.leading_zeros()).saturating_sub(1) / 7)
            }
            Operand::Bits(_, n) => n,
        }
    }

    fn write(self, w: &mut BitWriter) -> Result<(), ErrorKind> {
        let bad = |e: gamewire_bits::BitError| ErrorKind::Unwritable {
            what: "a field-path operand",
            reason: format!("{self:?}: {e}"),
        };
        match self {
            Operand::Bool(b) => w.write_bool(b),
            Operand::Fpu(v) => w.write_ubitvar_fieldpath(v).map_err(bad)?,
            Operand::UBitVar(v) => w.write_ubitvar(v),
            Operand::Varint(v) => w.write_varint32(v),
            Operand::Bits(v, n) => w.write_bits(u64::from(v), n).map_err(bad)?,
        }
        Ok(())
    }
}

/// Where an operation goes: priced ([`Cost`]) or written ([`Emit`]).
/// [`plan`] describes each operation once, for both.
trait Out {
    fn op(&mut self, op: usize);
    fn operand(&mut self, o: Operand);
}

/// Counts the bits of an operation: code length and operands.
struct Cost<'c> {
    codes: &'c [(u32, u32); 40],
    bits: u32,
}

impl Out for Cost<'_> {
    #[inline]
    fn op(&mut self, op: usize) {
        self.bits += self.codes.get(op).map_or(u32::MAX / 2, |&(_, len)| len);
    }

    #[inline]
    fn operand(&mut self, o: Operand) {
        self.bits += o.bits();
    }
}

/// Writes an operation; keeps the first error.
struct Emit<'w> {
    w: &'w mut BitWriter,
    error: Option<ErrorKind>,
}

impl Out for Emit<'_> {
    fn op(&mut self, op: usize) {
        if let Err(e) = write_op(self.w, op) {
            self.error.get_or_insert(e);
        }
    }

    fn operand(&mut self, o: Operand) {
        if let Err(e) = o.write(self.w) {
            self.error.get_or_insert(e);
        }
    }
}

fn write_op(w: &mut BitWriter, op: usize) -> Result<(), ErrorKind> {
    let &(bits, len) = codes().get(op).ok_or_else(|| ErrorKind::Unwritable {
        what: "a field-path operation",
        reason: format!("no operation {op}"),
    })?;
    w.write_bits(u64::from(bits), len)
        .map_err(|e| ErrorKind::Unwritable {
            what: "a field-path operation",
            reason: e.to_string(),
        })
}

/// The field-path varint operand for `v`, when `v` is one (0 to 2^31 - 1).
#[inline]
fn fpu(v: i32) -> Option<Operand> {
    u32::try_from(v).ok().map(Operand::Fpu)
}

/// `v` in `n` raw bits, when it fits.
#[inline]
fn packed(v: i32, n: u32) -> Option<Operand> {
    u32::try_from(v)
        .ok()
        .filter(|&u| u < 1 << n)
        .map(|u| Operand::Bits(u, n))
}

/// One step: the previous path, the next, and how they relate.
struct Pair<'a> {
    p: &'a [i32],
    n: &'a [i32],
    /// The indices before the last index of the shorter path agree.
    same_prefix: bool,
    /// Next minus previous at the last index of the shorter path (wrapping).
    delta: i32,
    /// Whether to keep the games' rules ([`PathStyle::Game`]).
    game: bool,
}

impl<'a> Pair<'a> {
    fn new(prev: &'a FieldPath, next: &'a FieldPath, style: PathStyle) -> Option<Pair<'a>> {
        let (p, n) = (prev.as_slice(), next.as_slice());
        let common = p.len().min(n.len());
        let at = common.checked_sub(1)?;
        let delta = n.get(at)?.wrapping_sub(*p.get(at)?);
        Some(Pair {
            p,
            n,
            // Index by index: a slice comparison calls `memcmp`, slow for
            // a few indices.
            same_prefix: p.iter().zip(n).take(at).all(|(a, b)| a == b),
            delta,
            game: style == PathStyle::Game,
        })
    }

    /// The indices `next` appends to `prev` (empty unless it is longer).
    fn pushed(&self) -> &'a [i32] {
        self.n.get(self.p.len()..).unwrap_or(&[])
    }
}

/// The `NonTopo` operands that change `from` into `to` index by index (same
/// length): a flag per index, and for a changed index its delta minus
/// `bias` as a zigzag varint.
fn non_topo(out: &mut impl Out, from: &[i32], to: &[i32], bias: i32) {
    for (&a, &b) in from.iter().zip(to) {
        let d = b.wrapping_sub(a);
        out.operand(Operand::Bool(d != 0));
        if d != 0 {
            out.operand(Operand::Varint(d.wrapping_sub(bias)));
        }
    }
}

/// Pushed indices as field-path varints, when none is negative.
fn push_all(out: &mut impl Out, pushed: &[i32]) -> bool {
    if pushed.iter().any(|&v| v < 0) {
        return false;
    }
    for &v in pushed {
        if let Some(o) = fpu(v) {
            out.operand(o);
        }
    }
    true
}

/// Sends operation `op` and its operands to `out` when `op` turns the
/// previous path of `s` into the next one; false (and nothing sent) when it
/// does not. The operands are those the reader reads
/// (`docs/formats/source2-field-paths.md`, "The operations").
fn plan(op: usize, s: &Pair<'_>, out: &mut impl Out) -> bool {
    let (lp, ln) = (s.p.len(), s.n.len());
    let d = s.delta;
    // Emits `op` then the operands, when all are present.
    let mut send = |ops: &[Option<Operand>]| {
        if ops.iter().any(Option::is_none) {
            return false;
        }
        out.op(op);
        for o in ops.iter().flatten() {
            out.operand(*o);
        }
        true
    };
    match op {
        // PlusOne..PlusFour, PlusN.
        0..=4 if ln == lp && s.same_prefix => match op {
            4 => send(&[fpu(d.wrapping_sub(5))]),
            _ => d == op as i32 + 1 && send(&[]),
        },
        // PushOne...: one index pushed, the last index moved first.
        5..=12 if ln == lp + 1 && s.same_prefix => {
            let v = s.pushed().first().copied().unwrap_or(-1);
            let (a, b) = (d.wrapping_sub(2), v.wrapping_sub(1));
            match op {
                5 => d == 0 && v == 0 && send(&[]),
                6 => d == 0 && send(&[fpu(v)]),
                7 => d == 1 && v == 0 && send(&[]),
                8 => d == 1 && send(&[fpu(v)]),
                9 => v == 0 && !(s.game && d == 0) && send(&[fpu(d)]),
                10 => send(&[fpu(a), fpu(b)]),
                11 => !(s.game && (a == 7 || b == 7)) && send(&[packed(a, 3), packed(b, 3)]),
                _ => !(s.game && (a == 15 || b == 15)) && send(&[packed(a, 4), packed(b, 4)]),
            }
        }
        // PushTwo.../PushThree...: two or three indices pushed; the left
        // delta is 0, 1, or a UBitVar plus 2; the indices varints or 5 bits.
        13..=24 => {
            let k = (op - 13) / 2 % 2 + 2;
            let pack5 = (op - 13) % 2 == 1;
            let pushed = s.pushed();
            if !(s.same_prefix && ln == lp + k && pushed.iter().all(|&v| v >= 0)) {
                return false;
            }
            let fit5 = pushed.iter().all(|&v| v < 32);
            // With a left delta of zero or one, the games use the 5-bit
            // form wherever the indices fit it.
            if (pack5 && !fit5) || (s.game && !pack5 && fit5 && (op - 13) / 4 <= 1) {
                return false;
            }
            match (op - 13) / 4 {
                0 if d == 0 => out.op(op),
                1 if d == 1 => out.op(op),
                2 => {
                    out.op(op);
                    out.operand(Operand::UBitVar(d.wrapping_sub(2) as u32));
                }
                _ => return false,
            }
            for &v in pushed {
                out.operand(if pack5 {
                    Operand::Bits(v as u32, 5)
                } else {
                    Operand::Fpu(v as u32)
                });
            }
            true
        }
        // PushN: the count, the left delta (a UBitVar, wrapping), the indices.
        25 if ln >= lp && s.same_prefix => {
            let pushed = s.pushed();
            if pushed.iter().any(|&v| v < 0) {
                return false;
            }
            out.op(op);
            out.operand(Operand::UBitVar(pushed.len() as u32));
            out.operand(Operand::UBitVar(d as u32));
            push_all(out, pushed)
        }
        // PushNAndNonTopological: any edit of the first `lp` indices (each
        // delta minus one), the count, the indices.
        26 if ln >= lp && !(s.game && s.same_prefix) => {
            let pushed = s.pushed();
            if pushed.iter().any(|&v| v < 0) {
                return false;
            }
            out.op(op);
            non_topo(out, s.p, s.n.get(..lp).unwrap_or(&[]), 1);
            out.operand(Operand::UBitVar(pushed.len() as u32));
            push_all(out, pushed)
        }
        27 if ln + 1 == lp && s.same_prefix => d == 1 && send(&[]),
        28 if ln + 1 == lp && s.same_prefix => send(&[fpu(d.wrapping_sub(1))]),
        // PopAllButOne...: the first index plus one, plus an operand.
        29..=32 if ln == 1 && !(s.game && lp == 1) => {
            let a = d.wrapping_sub(1);
            match op {
                29 => a == 0 && send(&[]),
                30 => send(&[fpu(a)]),
                31 => send(&[packed(a, 3)]),
                _ => send(&[packed(a, 6)]),
            }
        }
        33 if ln <= lp && s.same_prefix => d == 1 && send(&[fpu((lp - ln) as i32)]),
        34 if ln <= lp && s.same_prefix => send(&[fpu((lp - ln) as i32), Some(Operand::Varint(d))]),
        // PopNAndNonTopographical: pop, then any edit of what is left.
        35 if ln <= lp => match fpu((lp - ln) as i32) {
            Some(o) => {
                out.op(op);
                out.operand(o);
                non_topo(out, s.p.get(..ln).unwrap_or(&[]), s.n, 0);
                true
            }
            None => false,
        },
        36 if ln == lp => {
            out.op(op);
            non_topo(out, s.p, s.n, 0);
            true
        }
        // NonTopoPenultimatePlusOne: the index before the last plus one.
        37 if ln == lp && lp >= 2 => {
            let before = lp - 2;
            s.p.get(..before) == s.n.get(..before)
                && s.p.get(before).map(|v| v.wrapping_add(1)) == s.n.get(before).copied()
                && s.p.last() == s.n.last()
                && send(&[])
        }
        // NonTopoComplexPack4Bits: every delta in -7..=8.
        38 if ln == lp => {
            let fits =
                s.p.iter()
                    .zip(s.n)
                    .all(|(&a, &b)| matches!(b.wrapping_sub(a), -7..=8));
            if !fits {
                return false;
            }
            out.op(op);
            for (&a, &b) in s.p.iter().zip(s.n) {
                let delta = b.wrapping_sub(a);
                out.operand(Operand::Bool(delta != 0));
                if delta != 0 {
                    out.operand(Operand::Bits((delta + 7) as u32, 4));
                }
            }
            true
        }
        _ => false,
    }
}

/// The cheapest operation from `prev` to `next` and its bits; among equally
/// cheap ones, the first in the table but for [`wins_tie`]. `None` when none reaches `next` (a
/// negative index to push).
fn cheapest(prev: &FieldPath, next: &FieldPath, style: PathStyle) -> Option<(usize, u32)> {
    let pair = Pair::new(prev, next, style)?;
    let codes = codes();
    let mut best: Option<(usize, u32)> = None;
    for op in 0..FINISH {
        let mut cost = Cost { codes, bits: 0 };
        if plan(op, &pair, &mut cost)
            && best.is_none_or(|(o, b)| cost.bits < b || (cost.bits == b && wins_tie(op, o)))
        {
            best = Some((op, cost.bits));
        }
    }
    best
}

/// Whether `op` goes before the equally short `other`, which comes first
/// in the table: only `PushOneLeftDeltaNRightNonZeroPack8Bits` before
/// `PushOneLeftDeltaNRightNonZero` (two 4-bit fields against two varints of
/// 4 to 15 and 0 to 3). The games take the packed form there, and keep to
/// the table's order on the other ties seen in the corpus demos
/// (`PushOneLeftDeltaOneRightZero` before `...RightNonZero` with the varint
/// 0, `PopAllButOnePlusN` before `...PlusNPack3Bits`).
fn wins_tie(op: usize, other: usize) -> bool {
    op == 12 && other == 10
}

/// Every operation that turns `prev` into `next` (in `style`), with its
/// length in bits (code and operands), in table order: the choices a writer
/// has for one step ([`write_field_paths_with`] takes one of the shortest).
pub fn operations_between(
    prev: &FieldPath,
    next: &FieldPath,
    style: PathStyle,
) -> Vec<(usize, u32)> {
    let Some(pair) = Pair::new(prev, next, style) else {
        return Vec::new();
    };
    let codes = codes();
    (0..FINISH)
        .filter_map(|op| {
            let mut cost = Cost { codes, bits: 0 };
            plan(op, &pair, &mut cost).then_some((op, cost.bits))
        })
        .collect()
}

/// The operation [`write_field_paths`] writes to go from `prev` to `next`:
/// its index in [`OPS`], its name, and its length in bits (code and
/// operands). `None` when no operation reaches `next` (an index that would
/// have to be pushed is negative).
pub fn operation_for(prev: &FieldPath, next: &FieldPath) -> Option<(usize, &'static str, u32)> {
    let (op, bits) = cheapest(prev, next, PathStyle::Shortest)?;
    let name = OPS.get(op).map_or("?", |&(name, _)| name);
    Some((op, name, bits))
}

/// Writes `paths` as field-path operations, the shortest sequence that
/// [`read_field_paths`](crate::fieldpath::read_field_paths) reads back as
/// exactly these paths in this order, then `FieldPathEncodeFinish`.
///
/// An error ([`ErrorKind::Unwritable`]) names the path that cannot be
/// reached from the one before it (see the module docs), or says there are
/// more paths than a record may carry. Nothing sensible is left in `w`
/// after an error.
pub fn write_field_paths(w: &mut BitWriter, paths: &[FieldPath]) -> Result<(), ErrorKind> {
    write_field_paths_with(w, paths, PathStyle::Shortest)
}

/// [`write_field_paths`] in a chosen [`PathStyle`]: the shortest sequence,
/// or the shortest one that keeps the rules the games' encoder keeps (which
/// comes out bit for bit as the game wrote it far more often).
pub fn write_field_paths_with(
    w: &mut BitWriter,
    paths: &[FieldPath],
    style: PathStyle,
) -> Result<(), ErrorKind> {
    write_paths(w, paths, style, None)
}

/// What [`write_field_paths_cached`] keeps from record to record, for a
/// writer of many records (a rewrite: thousands per demo).
///
/// The records of a demo repeat a few sequences of paths: the position
/// update of a player, the clock of the game rules, the same fields of
/// every projectile. In the corpus demos 83 to 98 % of records carry a
/// sequence an earlier record of the demo carried (1,258 sequences for
/// 7,879 records in a CS2 match clip, 349 for 15,337 in a Dota 2 one). A
/// writer that re-encodes records it has just read knows the bits each
/// sequence was read from, and those bits name the sequence: the reader
/// starts every sequence from the same path and each operation depends
/// only on the path before it, so the same bits always read as the same
/// paths. So a record's output bits are kept by the bits it was read from
/// (`records`, when both fit 128 bits, as most updates do: a key of three
/// words, no allocation), and a record met again costs one lookup and a
/// copy of two words, not a choice of operation per step. Any other record
/// is written step by step, each step kept by its shape or its (previous
/// path, next path) pair (`steps`, see [`Steps`]): a new sequence mostly
/// recombines steps seen before.
///
/// Longer sequences are mostly creates: in a clip each is met once, but a
/// demo's full packets (one a minute in a recorded match) create every
/// live entity again, mostly with the fields it had the minute before,
/// and entities of one class often carry one sequence. They are kept too
/// (`long`), by a hash of the bits they were read from, with those bits
/// to compare.
///
/// `records` is emptied when it reaches [`MAX_CACHED_RECORDS`] entries,
/// and `long` when its words reach [`MAX_LONG_WORDS`], so a long demo
/// whose sequences keep changing holds no more than that.
#[derive(Debug, Default)]
pub(crate) struct OpCache {
    style: Option<PathStyle>,
    steps: Steps,
    records: Records,
    long: LongRecords,
}

/// Sequences read from more than 128 bits (see [`OpCache`]), by a hash of
/// those bits.
#[derive(Debug, Default)]
struct LongRecords {
    by_hash: rustc_hash::FxHashMap<u64, LongRecord>,
    /// Words held by the records kept.
    words: usize,
    /// The bits of the record being looked up, [`KEY_CHUNK`] to a word.
    key: Vec<u64>,
}

/// A sequence kept by [`LongRecords`]: the bits it was read from
/// ([`KEY_CHUNK`] to a word) and their count, the bits written for it (64
/// to a word) and their count.
#[derive(Debug)]
struct LongRecord {
    read: Vec<u64>,
    read_bits: u64,
    written: Vec<u64>,
    written_bits: u64,
}

/// Words [`LongRecords`] holds at most (2 MiB).
const MAX_LONG_WORDS: usize = 1 << 18;

/// The longest sequence [`LongRecords`] keeps, in bits read.
const MAX_LONG_BITS: u64 = 1 << 16;

/// The bits of steps worked out (operation code and operands, least
/// significant first) and their bit count.
///
/// Most steps that are not siblings keep the indices before the last one
/// they share: a move of the last index by more than four, a pop, a push
/// of one index. What the writer sends for those depends on the step's
/// *shape* only, not on the indices they share: the two lengths, the move
/// `d` of the last shared index and, for a push, the index pushed (every
/// operation's test and operands, [`plan`], reads no more of such a pair:
/// an edit of the shared indices is one of zero deltas then `d`). Small
/// shapes are kept in a flat table (`shapes`, see [`shape_slot`]): no hash,
/// and `[3] → [11]` costs what `[20] → [28]` did. Other steps are kept by
/// their (previous, next) path key ([`FieldPath::key`]) in `pairs`.
#[derive(Debug, Default)]
struct Steps {
    pairs: rustc_hash::FxHashMap<(u128, u128), (u64, u32)>,
    /// By [`shape_slot`]: a step's bits, its bit count in the top
    /// [`SHAPE_LEN_BITS`] bits (steps of up to [`SHAPE_MAX_BITS`] bits are
    /// kept); 0 is a shape not met yet (every step has a code). Empty until
    /// the first shape is met (16 KiB then).
    shapes: Vec<u64>,
}

impl Steps {
    fn clear(&mut self) {
        self.pairs.clear();
        self.shapes.clear();
    }
}

/// The longest previous path whose shapes [`shape_slot`] keeps.
const SHAPE_DEPTH: usize = 4;

/// Moves of the last shared index kept for a pop or a same-length step:
/// `-SAME_BELOW..SAME_SPAN - SAME_BELOW`.
const SAME_BELOW: i32 = 16;
const SAME_SPAN: usize = 64;

/// Moves kept for a push of one index (`-PUSH_BELOW..PUSH_SPAN -
/// PUSH_BELOW`), and pushed indices (`0..PUSH_INDICES`).
const PUSH_BELOW: i32 = 4;
const PUSH_SPAN: usize = 16;
const PUSH_INDICES: usize = 16;

/// Bits of a [`Steps::shapes`] entry that hold the step's bit count, and
/// the longest step kept there.
const SHAPE_LEN_BITS: u32 = 6;
const SHAPE_MAX_BITS: u64 = 64 - SHAPE_LEN_BITS as u64;

/// Slots of same-length and pop shapes, then of push shapes.
const SAME_SLOTS: usize = SHAPE_DEPTH * SHAPE_DEPTH * SAME_SPAN;
const SHAPE_SLOTS: usize = SAME_SLOTS + SHAPE_DEPTH * PUSH_SPAN * PUSH_INDICES;

/// The slot of the step `p → n` in [`Steps::shapes`]: a step that keeps the
/// indices before the last one both paths have, from a path of at most
/// [`SHAPE_DEPTH`] indices, to a path as long or shorter (the slot of its
/// two lengths and the move of the last shared index) or one index longer
/// (the slot of the previous length, the move and the pushed index), when
/// the move and the index are in the table's range.
#[inline]
fn shape_slot(p: &[i32], n: &[i32]) -> Option<usize> {
    let (lp, ln) = (p.len(), n.len());
    let at = lp.min(ln).checked_sub(1)?;
    let d = n.get(at)?.wrapping_sub(*p.get(at)?);
    if !(1..=SHAPE_DEPTH).contains(&lp) || !p.iter().zip(n).take(at).all(|(a, b)| a == b) {
        return None;
    }
    if ln <= lp {
        let d = usize::try_from(d.checked_add(SAME_BELOW)?)
            .ok()
            .filter(|&d| d < SAME_SPAN)?;
        Some(((lp - 1) * SHAPE_DEPTH + (ln - 1)) * SAME_SPAN + d)
    } else if ln == lp + 1 {
        let d = usize::try_from(d.checked_add(PUSH_BELOW)?)
            .ok()
            .filter(|&d| d < PUSH_SPAN)?;
        let v = usize::try_from(*n.get(lp)?)
            .ok()
            .filter(|&v| v < PUSH_INDICES)?;
        Some(SAME_SLOTS + ((lp - 1) * PUSH_SPAN + d) * PUSH_INDICES + v)
    } else {
        None
    }
}

/// A sequence read from at most 128 bits (those bits, the first least
/// significant, and their count) to the bits written for it (the same
/// way), `FieldPathEncodeFinish` included in both.
type Records = rustc_hash::FxHashMap<(u128, u32), (u128, u32)>;

/// Entries [`OpCache`] keeps at most in `records` (48 bytes each).
const MAX_CACHED_RECORDS: usize = 1 << 14;

/// Bits taken at a time from the reader for a key.
const KEY_CHUNK: u64 = 56;

/// [`write_field_paths_with`], through `cache` (see [`OpCache`]): each
/// record's bits worked out once per sequence read, each step's once per
/// (previous, next) pair. `read` is where the paths were read from, when
/// they were just read: a reader at their first bit and the position after
/// `FieldPathEncodeFinish`. The same bits as [`write_field_paths_with`].
pub(crate) fn write_field_paths_cached(
    w: &mut BitWriter,
    paths: &[FieldPath],
    style: PathStyle,
    cache: &mut OpCache,
    read: Option<(&gamewire_bits::BitReader<'_>, u64)>,
) -> Result<(), ErrorKind> {
    if cache.style != Some(style) {
        cache.steps.clear();
        cache.records.clear();
        cache.long.by_hash.clear();
        cache.long.words = 0;
        cache.style = Some(style);
    }
    let read_len = read.and_then(|(start, end)| end.checked_sub(start.position()));
    let (Some((start, _)), Some(len @ 0..=128)) = (read, read_len) else {
        return match (read, read_len) {
            (Some((start, _)), Some(len)) if len <= MAX_LONG_BITS => {
                write_long(w, paths, style, cache, start, len)
            }
            _ => write_paths(w, paths, style, Some(&mut cache.steps)),
        };
    };
    let mut r = start.clone();
    let mut bits = 0u128;
    let mut at = 0;
    while at < len {
        let n = (len - at).min(KEY_CHUNK);
        bits |= u128::from(r.read_bits(n as u32).map_err(key_error)?) << at;
        at += n;
    }
    let key = (bits, len as u32);
    if let Some(&(out, out_len)) = cache.records.get(&key) {
        return write_words(w, &[out as u64, (out >> 64) as u64], u64::from(out_len));
    }
    let (out, out_len) = write_fresh(paths, style, &mut cache.steps)?;
    if out_len <= 128 {
        let mut value = 0u128;
        for (i, &word) in out.iter().enumerate().take(2) {
            value |= u128::from(word) << (64 * i);
        }
        if cache.records.len() >= MAX_CACHED_RECORDS {
            cache.records.clear();
        }
        cache.records.insert(key, (value, out_len as u32));
    }
    write_words(w, &out, out_len)
}

/// [`write_field_paths_cached`] for a sequence read from `len` bits (more
/// than 128) at `start`: kept in [`LongRecords`].
fn write_long(
    w: &mut BitWriter,
    paths: &[FieldPath],
    style: PathStyle,
    cache: &mut OpCache,
    start: &gamewire_bits::BitReader<'_>,
    len: u64,
) -> Result<(), ErrorKind> {
    use std::hash::{Hash, Hasher};
    let long = &mut cache.long;
    long.key.clear();
    let mut r = start.clone();
    let mut at = 0;
    while at < len {
        let n = (len - at).min(KEY_CHUNK);
        long.key.push(r.read_bits(n as u32).map_err(key_error)?);
        at += n;
    }
    let mut hasher = rustc_hash::FxHasher::default();
    long.key.hash(&mut hasher);
    len.hash(&mut hasher);
    let hash = hasher.finish();
    if let Some(kept) = long.by_hash.get(&hash) {
        if kept.read_bits == len && kept.read == long.key {
            return write_words(w, &kept.written, kept.written_bits);
        }
    }
    let (written, written_bits) = write_fresh(paths, style, &mut cache.steps)?;
    write_words(w, &written, written_bits)?;
    let added = long.key.len() + written.len();
    if long.words + added > MAX_LONG_WORDS {
        long.by_hash.clear();
        long.words = 0;
    }
    long.words += added;
    let record = LongRecord {
        read: long.key.clone(),
        read_bits: len,
        written,
        written_bits,
    };
    if let Some(old) = long.by_hash.insert(hash, record) {
        long.words = long
            .words
            .saturating_sub(old.read.len() + old.written.len());
    }
    Ok(())
}

/// A sequence written step by step into words of its own (64 bits to a
/// word, the first bit least significant) and the count of its bits.
fn write_fresh(
    paths: &[FieldPath],
    style: PathStyle,
    steps: &mut Steps,
) -> Result<(Vec<u64>, u64), ErrorKind> {
    let mut fresh = BitWriter::with_capacity(8 * paths.len() + 8);
    write_paths(&mut fresh, paths, style, Some(steps))?;
    let len = fresh.bits_written();
    let words = fresh
        .finish()
        .chunks(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            for (to, from) in word.iter_mut().zip(chunk) {
                *to = *from;
            }
            u64::from_le_bytes(word)
        })
        .collect();
    Ok((words, len))
}

/// A key that could not be read again: bits the reader has just read.
fn key_error(e: gamewire_bits::BitError) -> ErrorKind {
    ErrorKind::Unwritable {
        what: "field paths",
        reason: format!("the bits they were read from: {e}"),
    }
}

/// Writes the first `bits` bits of `words` (least significant bit of the
/// first word first).
fn write_words(w: &mut BitWriter, words: &[u64], bits: u64) -> Result<(), ErrorKind> {
    let mut left = bits;
    for &word in words {
        if left >= 64 {
            w.write_u64(word);
            left -= 64;
        } else {
            if left > 0 {
                let mask = (1u64 << left) - 1;
                w.write_bits(word & mask, left as u32)
                    .map_err(|e| ErrorKind::Unwritable {
                        what: "field paths",
                        reason: e.to_string(),
                    })?;
            }
            break;
        }
    }
    Ok(())
}

/// Writes the first `bits` bits of `bytes` (as a [`BitWriter`] finished
/// them).
fn write_bytes(w: &mut BitWriter, bytes: &[u8], bits: u64) -> Result<(), ErrorKind> {
    let mut left = bits;
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        for (to, from) in word.iter_mut().zip(chunk) {
            *to = *from;
        }
        write_words(w, &[u64::from_le_bytes(word)], left)?;
        left = left.saturating_sub(64);
    }
    Ok(())
}

/// The bits of a step of at most 64 bits (`bytes` as written), as one
/// word; `None` for a longer one.
fn first_word(bytes: &[u8], len: u64) -> Option<u64> {
    (len <= 64).then(|| {
        let mut word = [0u8; 8];
        for (to, from) in word.iter_mut().zip(bytes) {
            *to = *from;
        }
        u64::from_le_bytes(word)
    })
}

/// Writes the step from `prev` to `next` (the `i`th path): the cheapest
/// operation and its operands.
fn write_step(
    w: &mut BitWriter,
    i: usize,
    prev: &FieldPath,
    next: &FieldPath,
    style: PathStyle,
) -> Result<(), ErrorKind> {
    let (op, _) = cheapest(prev, next, style).ok_or_else(|| unreachable_path(i, prev, next))?;
    let pair = Pair::new(prev, next, style).ok_or_else(|| unreachable_path(i, prev, next))?;
    let mut emit = Emit { w, error: None };
    if !plan(op, &pair, &mut emit) {
        return Err(unreachable_path(i, prev, next));
    }
    match emit.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn write_paths(
    w: &mut BitWriter,
    paths: &[FieldPath],
    style: PathStyle,
    mut cache: Option<&mut Steps>,
) -> Result<(), ErrorKind> {
    if paths.len() > MAX_PATHS_PER_UPDATE {
        return Err(ErrorKind::Unwritable {
            what: "field paths",
            reason: format!(
                "{} paths, the reader takes at most {MAX_PATHS_PER_UPDATE} per record",
                paths.len()
            ),
        });
    }
    let codes = codes();
    let bits_error = |e: gamewire_bits::BitError| ErrorKind::Unwritable {
        what: "a field-path operation",
        reason: e.to_string(),
    };
    // The previous path by reference, not copied: a copy of the whole path
    // each step is read back at once, before the store has landed.
    let start = FieldPath::default();
    let mut prev = &start;
    // Sibling steps' codes gathered into one word (least significant
    // first), written when it is full or another step comes: a run of
    // `PlusOne`s (a create's fields one after another) is one write.
    let (mut run, mut run_len) = (0u64, 0u32);
    for (i, next) in paths.iter().enumerate() {
        // The common case first: a sibling 1 to 4 indices on. PlusOne..
        // PlusFour (1, 4, 6 and 8 bits) are the shortest edits there are
        // for it: every other operation is at least 8 bits and reaches it
        // with operands.
        let (p, n) = (prev.as_slice(), next.as_slice());
        if let (Some((&a, pa)), Some((&b, na))) = (p.split_last(), n.split_last()) {
            let d = b.wrapping_sub(a);
            // Compared index by index, not with `memcmp`.
            if (1..=4).contains(&d)
                && pa.len() == na.len()
                && pa.iter().zip(na).all(|(x, y)| x == y)
            {
                if let Some(&(bits, len)) = codes.get(d as usize - 1) {
                    if run_len + len > 64 {
                        w.write_bits(run, run_len).map_err(bits_error)?;
                        (run, run_len) = (0, 0);
                    }
                    run |= u64::from(bits) << run_len;
                    run_len += len;
                    prev = next;
                    continue;
                }
            }
        }
        if run_len > 0 {
            w.write_bits(run, run_len).map_err(bits_error)?;
            (run, run_len) = (0, 0);
        }
        if let Some(c) = cache.as_deref_mut() {
            if let Some(slot) = shape_slot(p, n) {
                if c.shapes.is_empty() {
                    c.shapes = vec![0; SHAPE_SLOTS];
                }
                match c.shapes.get_mut(slot) {
                    Some(&mut kept) if kept != 0 => {
                        let len = (kept >> SHAPE_MAX_BITS) as u32;
                        let bits = kept & ((1 << SHAPE_MAX_BITS) - 1);
                        w.write_bits(bits, len).map_err(bits_error)?;
                    }
                    kept => {
                        let mut step = BitWriter::new();
                        write_step(&mut step, i, prev, next, style)?;
                        let len = step.bits_written();
                        let bytes = step.finish();
                        match (kept, first_word(&bytes, len)) {
                            (Some(kept), Some(bits)) if len < SHAPE_MAX_BITS => {
                                *kept = bits | len << SHAPE_MAX_BITS;
                                w.write_bits(bits, len as u32).map_err(bits_error)?;
                            }
                            _ => write_bytes(w, &bytes, len)?,
                        }
                    }
                }
                prev = next;
                continue;
            }
        }
        let key = match (&cache, prev.key(), next.key()) {
            (Some(_), Some(a), Some(b)) => Some((a, b)),
            _ => None,
        };
        match (&mut cache, key) {
            (Some(c), Some(k)) => {
                let c = &mut c.pairs;
                if let Some(&(bits, len)) = c.get(&k) {
                    w.write_bits(bits, len).map_err(bits_error)?;
                } else {
                    let mut step = BitWriter::new();
                    write_step(&mut step, i, prev, next, style)?;
                    let len = step.bits_written();
                    let bytes = step.finish();
                    if len <= 64 {
                        let mut word = [0u8; 8];
                        for (to, from) in word.iter_mut().zip(&bytes) {
                            *to = *from;
                        }
                        let bits = u64::from_le_bytes(word);
                        c.insert(k, (bits, len as u32));
                        w.write_bits(bits, len as u32).map_err(bits_error)?;
                    } else {
                        // Too long to keep in one word: written from the
                        // bits worked out above.
                        write_bytes(w, &bytes, len)?;
                    }
                }
            }
            _ => write_step(w, i, prev, next, style)?,
        }
        prev = next;
    }
    if run_len > 0 {
        w.write_bits(run, run_len).map_err(bits_error)?;
    }
    write_op(w, FINISH)
}

fn unreachable_path(i: usize, prev: &FieldPath, next: &FieldPath) -> ErrorKind {
    ErrorKind::Unwritable {
        what: "field paths",
        reason: format!(
            "path {i} {next} cannot follow {prev}: an index to push is negative \
             (pushed indices are unsigned)"
        ),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use gamewire_bits::BitReader;

    fn p(v: &[i32]) -> FieldPath {
        FieldPath::from_slice(v)
    }

    fn roundtrip(paths: &[FieldPath]) -> (Vec<FieldPath>, u64) {
        let mut w = BitWriter::new();
        write_field_paths(&mut w, paths).unwrap();
        let bits = w.bits_written();
        let data = w.finish();
        let mut out = Vec::new();
        crate::fieldpath::read_field_paths(&mut BitReader::new(&data), &mut out).unwrap();
        (out, bits)
    }

    #[test]
    fn operand_sizes_match_the_writers() {
        for v in [
            0u32,
            3,
            4,
            15,
            16,
            1023,
            1024,
            0x1_ffff,
            0x2_0000,
            0x7fff_ffff,
        ] {
            let mut w = BitWriter::new();
            Operand::Fpu(v).write(&mut w).unwrap();
            assert_eq!(
                w.bits_written(),
                u64::from(Operand::Fpu(v).bits()),
                "fpu {v}"
            );
        }
        for v in [0u32, 15, 16, 255, 256, 4095, 4096, u32::MAX] {
            let mut w = BitWriter::new();
            Operand::UBitVar(v).write(&mut w).unwrap();
            assert_eq!(
                w.bits_written(),
                u64::from(Operand::UBitVar(v).bits()),
                "ubitvar {v}"
            );
        }
        for v in [0i32, -1, 63, -64, 64, 8191, -8193, i32::MAX, i32::MIN] {
            let mut w = BitWriter::new();
            Operand::Varint(v).write(&mut w).unwrap();
            assert_eq!(
                w.bits_written(),
                u64::from(Operand::Varint(v).bits()),
                "varint {v}"
            );
        }
    }

    #[test]
    fn cached_steps_are_the_uncached_bits() {
        let paths = [
            p(&[0]),
            p(&[4]),
            p(&[40]),
            p(&[40, 0]),
            p(&[40, 0, 3]),
            p(&[40, 1, 3, 9, 9]),
            p(&[40, 1]),
            p(&[41]),
            p(&[41, 2, 5, 1, 2, 3, 4]),
            p(&[41, 2, 5, 1, 2, 3, 2]),
            p(&[1_000_000]),
            p(&[1_000_001, 7, 8]),
        ];
        for style in [PathStyle::Shortest, PathStyle::Game] {
            let mut plain = BitWriter::new();
            write_field_paths_with(&mut plain, &paths, style).unwrap();
            let mut cache = OpCache::default();
            // Twice: the misses, then the hits.
            for _ in 0..2 {
                let mut cached = BitWriter::new();
                write_field_paths_cached(&mut cached, &paths, style, &mut cache, None).unwrap();
                assert_eq!(cached.bits_written(), plain.bits_written());
                assert_eq!(cached.finish(), plain.clone().finish());
            }
        }
    }

    /// Records written through the cache keyed by the bits they were read
    /// from (a stream of records, not byte-aligned, read twice: the misses,
    /// then the hits) come out as the uncached writer writes them, short
    /// sequences and long ones alike.
    #[test]
    fn records_kept_by_their_read_bits_are_the_uncached_bits() -> Result<(), ErrorKind> {
        let records: Vec<Vec<FieldPath>> = vec![
            vec![p(&[0]), p(&[1]), p(&[2])],
            vec![p(&[3]), p(&[40, 1])],
            vec![p(&[0]), p(&[1]), p(&[2])],
            vec![],
            (0..60).map(|i| p(&[i * 3, i % 5])).collect(),
            vec![p(&[41, 2, 5, 1, 2, 3, 4]), p(&[1_000_000])],
            vec![p(&[3]), p(&[40, 1])],
            (0..60).map(|i| p(&[i * 3, i % 5])).collect(),
        ];
        // The input as a game could have written it: the shortest style,
        // after three bits of something else.
        let mut input = BitWriter::new();
        input
            .write_bits(0b101, 3)
            .map_err(|e| ErrorKind::bits("test", e))?;
        for r in &records {
            write_field_paths(&mut input, r)?;
        }
        let input = input.finish();
        for style in [PathStyle::Shortest, PathStyle::Game] {
            let mut cache = OpCache::default();
            for round in 0..2 {
                let mut r = BitReader::new(&input);
                r.read_bits(3).map_err(|e| ErrorKind::bits("test", e))?;
                let mut read = Vec::new();
                for (i, record) in records.iter().enumerate() {
                    let start = r.clone();
                    crate::fieldpath::read_field_paths(&mut r, &mut read).map_err(|e| {
                        ErrorKind::Unwritable {
                            what: "test",
                            reason: e.to_string(),
                        }
                    })?;
                    assert_eq!(&read, record, "record {i} read back");
                    let mut plain = BitWriter::new();
                    write_field_paths_with(&mut plain, &read, style)?;
                    let mut cached = BitWriter::new();
                    let at = Some((&start, r.position()));
                    write_field_paths_cached(&mut cached, &read, style, &mut cache, at)?;
                    assert_eq!(cached.bits_written(), plain.bits_written());
                    assert_eq!(
                        cached.finish(),
                        plain.finish(),
                        "record {i}, {style:?}, round {round}"
                    );
                }
            }
            assert!(!cache.records.is_empty(), "short records are kept");
            // One sequence read from more than 128 bits, the 60 paths (twice
            // in the input, kept once).
            assert_eq!(cache.long.by_hash.len(), 1, "long records are kept");
            let held: usize = cache
                .long
                .by_hash
                .values()
                .map(|l| l.read.len() + l.written.len())
                .sum();
            assert_eq!(cache.long.words, held, "words counted");
        }
        Ok(())
    }

    #[test]
    fn every_kind_of_step_reads_back() {
        let paths = [
            p(&[0]),
            p(&[4]),
            p(&[40]),
            p(&[40, 0]),
            p(&[40, 0, 3]),
            p(&[40, 1, 3, 9, 9]),
            p(&[40, 1]),
            p(&[41]),
            p(&[41, 2, 5, 1, 2, 3, 4]),
            p(&[41, 2, 5, 1, 2, 3, 2]),
            p(&[41, 1, 9]),
            p(&[39, 1, 9]),
            p(&[39, 1, 9, 100_000]),
            p(&[1_000_000]),
            p(&[1_000_000, 0, 0, 0]),
            p(&[1_000_001, 7, 8]),
            p(&[1_000_001, 8, 8]),
        ];
        let (read, _) = roundtrip(&paths);
        assert_eq!(read, paths);
    }

    #[test]
    fn negative_push_is_an_error() {
        let mut w = BitWriter::new();
        let err = write_field_paths(&mut w, &[p(&[0]), p(&[0, -1])]).unwrap_err();
        assert!(matches!(err, ErrorKind::Unwritable { .. }), "{err}");
        // A negative index reached by editing, not pushing, is fine.
        let (read, _) = roundtrip(&[p(&[5, 2]), p(&[5, -3])]);
        assert_eq!(read, [p(&[5, 2]), p(&[5, -3])]);
    }

    #[test]
    fn chooses_the_shortest_operation() {
        // PlusOne is one bit, Finish two.
        assert_eq!(roundtrip(&[p(&[0]), p(&[1]), p(&[2])]).1, 3 + 2);
        let op = |a: &[i32], b: &[i32]| operation_for(&p(a), &p(b)).unwrap().1;
        assert_eq!(op(&[3], &[5]), "PlusTwo");
        assert_eq!(op(&[3], &[20]), "PlusN");
        // 8 + 3 bits against a 12-bit code without operands.
        assert_eq!(op(&[3], &[3, 0]), "PushOneLeftDeltaNRightZero");
        assert_eq!(op(&[3], &[5, 2]), "PushOneLeftDeltaNRightNonZeroPack6Bits");
        assert_eq!(op(&[3, 4, 5], &[9]), "PopAllButOnePlusNPack3Bits");
        assert_eq!(op(&[3, 4], &[3, 5]), "PlusOne");
        assert_eq!(op(&[3, 4], &[4, 4]), "NonTopoPenultimatePlusOne");
        assert_eq!(op(&[3, 4, 5], &[3, 5]), "PopOnePlusOne");
    }

    /// Steps kept by their shape ([`shape_slot`]) come out as the uncached
    /// writer writes them: random sequences of moves, pops and pushes over
    /// shared indices of every size, written through one cache (each shape
    /// met many times, from many different shared indices).
    #[test]
    fn steps_kept_by_their_shape_are_the_uncached_bits() -> Result<(), ErrorKind> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        for style in [PathStyle::Shortest, PathStyle::Game] {
            let mut cache = OpCache::default();
            for _ in 0..400 {
                let mut paths = Vec::new();
                let mut path = vec![0i32];
                for _ in 0..40 {
                    match next(4) {
                        0 if path.len() < 7 => path.push(next(40) as i32),
                        1 if path.len() > 1 => {
                            let keep = 1 + next(path.len() as u64) as usize;
                            path.truncate(keep.min(path.len()));
                        }
                        _ => {}
                    }
                    let last = path.len() - 1;
                    let scale = [1, 10, 100, 100_000][next(4) as usize];
                    path[last] = (path[last] + next(scale) as i32 - (scale / 4) as i32).max(0);
                    if next(8) == 0 && last > 0 {
                        path[last - 1] += 1;
                    }
                    paths.push(p(&path));
                }
                let mut plain = BitWriter::new();
                let plain_result = write_field_paths_with(&mut plain, &paths, style);
                let mut cached = BitWriter::new();
                let cached_result =
                    write_field_paths_cached(&mut cached, &paths, style, &mut cache, None);
                assert_eq!(plain_result.is_ok(), cached_result.is_ok(), "{paths:?}");
                if plain_result.is_ok() {
                    assert_eq!(cached.bits_written(), plain.bits_written(), "{paths:?}");
                    assert_eq!(cached.finish(), plain.finish(), "{paths:?}");
                }
            }
            let met = cache.steps.shapes.iter().filter(|&&kept| kept != 0).count();
            assert!(met > 100, "{met} shapes met");
        }
        Ok(())
    }
}
