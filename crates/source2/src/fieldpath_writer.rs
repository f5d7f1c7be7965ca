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
//! packed 3, 4, 5, 6 and 8-bit fields) and takes the cheapest; among equally
//! short ones, the one first in the operation table.
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
use crate::fieldpath::{codes, FieldPath, MAX_DEPTH, MAX_PATHS_PER_UPDATE, OPS};

/// `FieldPathEncodeFinish`.
const FINISH: usize = 39;
/// Most operands one operation carries: `PushNAndNonTopological` on a
/// 7-index path (7 flags, 7 varints, the count) is 15;
/// `PopNAndNonTopographical` and `NonTopoComplex` on 7 indices at most 15.
const MAX_OPERANDS: usize = 16;

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

/// One operation and its operands.
#[derive(Debug, Clone, Copy)]
struct Step {
    op: usize,
    operands: [Operand; MAX_OPERANDS],
    len: usize,
}

impl Step {
    fn new(op: usize) -> Step {
        Step {
            op,
            operands: [Operand::Bool(false); MAX_OPERANDS],
            len: 0,
        }
    }

    fn with(mut self, operand: Operand) -> Step {
        if let Some(slot) = self.operands.get_mut(self.len) {
            *slot = operand;
            self.len += 1;
        }
        self
    }

    fn operands(&self) -> &[Operand] {
        self.operands.get(..self.len).unwrap_or(&[])
    }

    /// Code length plus operand bits.
    fn bits(&self) -> u32 {
        let code = codes().get(self.op).map_or(u32::MAX / 2, |&(_, len)| len);
        code + self.operands().iter().map(|o| o.bits()).sum::<u32>()
    }

    fn write(&self, w: &mut BitWriter) -> Result<(), ErrorKind> {
        write_op(w, self.op)?;
        for o in self.operands() {
            o.write(w)?;
        }
        Ok(())
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
fn fpu(v: i32) -> Option<Operand> {
    u32::try_from(v).ok().map(Operand::Fpu)
}

/// `v` in `n` raw bits, when it fits.
fn packed(v: i32, n: u32) -> Option<Operand> {
    u32::try_from(v)
        .ok()
        .filter(|&u| u < 1 << n)
        .map(|u| Operand::Bits(u, n))
}

/// Keeps the cheaper of `best` and `candidate` (the earlier on a tie).
fn consider(best: &mut Option<(u32, Step)>, candidate: Option<Step>) {
    if let Some(step) = candidate {
        let bits = step.bits();
        if best.as_ref().is_none_or(|(b, _)| bits < *b) {
            *best = Some((bits, step));
        }
    }
}

/// The `NonTopo` operands that change `from` into `to` index by index (same
/// length): a flag per index, and for a changed index its delta minus
/// `bias` as a zigzag varint.
fn non_topo(mut step: Step, from: &[i32], to: &[i32], bias: i32) -> Step {
    for (&a, &b) in from.iter().zip(to) {
        let d = b.wrapping_sub(a);
        step = step.with(Operand::Bool(d != 0));
        if d != 0 {
            step = step.with(Operand::Varint(d.wrapping_sub(bias)));
        }
    }
    step
}

/// The cheapest operation that turns `prev` into `next`, or `None` when no
/// operation does (a negative index to push).
fn cheapest(prev: &FieldPath, next: &FieldPath) -> Option<(u32, Step)> {
    let p = prev.as_slice();
    let n = next.as_slice();
    let (lp, ln) = (p.len(), n.len());
    let mut best: Option<(u32, Step)> = None;
    // The index that stays at the end of the shorter path, and whether the
    // indices before it agree: most operations edit only that one.
    let common = lp.min(ln);
    let same_prefix = p.get(..common - 1) == n.get(..common - 1);
    let delta = match (p.get(common - 1), n.get(common - 1)) {
        (Some(&a), Some(&b)) => b.wrapping_sub(a),
        _ => return None,
    };
    let s = Step::new;

    if ln == lp {
        if same_prefix {
            // PlusOne..PlusFour, PlusN.
            consider(
                &mut best,
                (1..=4).contains(&delta).then(|| s(delta as usize - 1)),
            );
            consider(&mut best, fpu(delta.wrapping_sub(5)).map(|o| s(4).with(o)));
        }
        // NonTopoPenultimatePlusOne: the index before the last plus one.
        if lp >= 2 {
            let bumped = p.get(lp - 2).map(|v| v.wrapping_add(1));
            if p.get(..lp - 2) == n.get(..lp - 2)
                && bumped == n.get(lp - 2).copied()
                && p.last() == n.last()
            {
                consider(&mut best, Some(s(37)));
            }
        }
        // NonTopoComplex, NonTopoComplexPack4Bits.
        consider(&mut best, Some(non_topo(s(36), p, n, 0)));
        let pack4 = p.iter().zip(n).try_fold(s(38), |step, (&a, &b)| {
            let d = b.wrapping_sub(a);
            if d == 0 {
                Some(step.with(Operand::Bool(false)))
            } else {
                packed(d.wrapping_add(7), 4).map(|o| step.with(Operand::Bool(true)).with(o))
            }
        });
        consider(&mut best, pack4);
    }

    if ln > lp && same_prefix {
        let pushed = n.get(lp..).unwrap_or(&[]);
        match *pushed {
            [v] => {
                // PushOneLeftDelta{Zero,One,N}Right{Zero,NonZero}.
                consider(&mut best, (delta == 0 && v == 0).then(|| s(5)));
                if delta == 0 {
                    consider(&mut best, fpu(v).map(|o| s(6).with(o)));
                }
                consider(&mut best, (delta == 1 && v == 0).then(|| s(7)));
                if delta == 1 {
                    consider(&mut best, fpu(v).map(|o| s(8).with(o)));
                }
                if v == 0 {
                    consider(&mut best, fpu(delta).map(|o| s(9).with(o)));
                }
                let (a, b) = (delta.wrapping_sub(2), v.wrapping_sub(1));
                consider(
                    &mut best,
                    fpu(a).zip(fpu(b)).map(|(x, y)| s(10).with(x).with(y)),
                );
                consider(
                    &mut best,
                    packed(a, 3)
                        .zip(packed(b, 3))
                        .map(|(x, y)| s(11).with(x).with(y)),
                );
                consider(
                    &mut best,
                    packed(a, 4)
                        .zip(packed(b, 4))
                        .map(|(x, y)| s(12).with(x).with(y)),
                );
            }
            [_, _] | [_, _, _] => {
                // The push-two and push-three family: (left delta form,
                // operand) → ops (varints, pack 5) for two; +2 for three.
                let three = usize::from(pushed.len() == 3) * 2;
                let forms: [(usize, Option<Operand>, bool); 3] = [
                    (13, None, delta == 0),
                    (17, None, delta == 1),
                    (
                        21,
                        Some(Operand::UBitVar(delta.wrapping_sub(2) as u32)),
                        true,
                    ),
                ];
                for (op, left, ok) in forms {
                    if !ok {
                        continue;
                    }
                    let start = |op: usize| {
                        let step = s(op + three);
                        match left {
                            Some(o) => step.with(o),
                            None => step,
                        }
                    };
                    let varints = pushed
                        .iter()
                        .try_fold(start(op), |step, &v| fpu(v).map(|o| step.with(o)));
                    consider(&mut best, varints);
                    let pack5 = pushed
                        .iter()
                        .try_fold(start(op + 1), |step, &v| packed(v, 5).map(|o| step.with(o)));
                    consider(&mut best, pack5);
                }
            }
            _ => {}
        }
        // PushN: the count, the left delta (a UBitVar, wrapping), the indices.
        let push_n = pushed.iter().try_fold(
            s(25)
                .with(Operand::UBitVar(pushed.len() as u32))
                .with(Operand::UBitVar(delta as u32)),
            |step, &v| fpu(v).map(|o| step.with(o)),
        );
        consider(&mut best, push_n);
    }

    if ln >= lp {
        // PushNAndNonTopological: any edit of the first `lp` indices (each
        // delta minus one), then the pushed indices.
        let (kept, pushed) = n.split_at(lp);
        let step = non_topo(s(26), p, kept, 1).with(Operand::UBitVar(pushed.len() as u32));
        consider(
            &mut best,
            pushed
                .iter()
                .try_fold(step, |step, &v| fpu(v).map(|o| step.with(o))),
        );
    }

    if ln <= lp {
        let popped = (lp - ln) as i32;
        if same_prefix {
            if popped == 1 {
                consider(&mut best, (delta == 1).then(|| s(27)));
                consider(&mut best, fpu(delta.wrapping_sub(1)).map(|o| s(28).with(o)));
            }
            if ln == 1 {
                // PopAllButOnePlus{One,N,NPack3Bits,NPack6Bits}.
                let a = delta.wrapping_sub(1);
                consider(&mut best, (a == 0).then(|| s(29)));
                consider(&mut best, fpu(a).map(|o| s(30).with(o)));
                consider(&mut best, packed(a, 3).map(|o| s(31).with(o)));
                consider(&mut best, packed(a, 6).map(|o| s(32).with(o)));
            }
            let pop = fpu(popped);
            consider(&mut best, pop.filter(|_| delta == 1).map(|o| s(33).with(o)));
            consider(
                &mut best,
                pop.map(|o| s(34).with(o).with(Operand::Varint(delta))),
            );
        }
        // PopNAndNonTopographical: pop, then any edit of what is left.
        let kept = p.get(..ln).unwrap_or(&[]);
        consider(
            &mut best,
            fpu(popped).map(|o| non_topo(s(35).with(o), kept, n, 0)),
        );
    }
    best
}

/// The operation [`write_field_paths`] writes to go from `prev` to `next`:
/// its index in [`OPS`], its name, and its length in bits (code and
/// operands). `None` when no operation reaches `next` (an index that would
/// have to be pushed is negative).
pub fn operation_for(prev: &FieldPath, next: &FieldPath) -> Option<(usize, &'static str, u32)> {
    let (bits, step) = cheapest(prev, next)?;
    let name = OPS.get(step.op).map_or("?", |&(name, _)| name);
    Some((step.op, name, bits))
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
    if paths.len() > MAX_PATHS_PER_UPDATE {
        return Err(ErrorKind::Unwritable {
            what: "field paths",
            reason: format!(
                "{} paths, the reader takes at most {MAX_PATHS_PER_UPDATE} per record",
                paths.len()
            ),
        });
    }
    let mut prev = FieldPath::default();
    let plus = codes();
    for (i, next) in paths.iter().enumerate() {
        // The common case first: a sibling 1 to 4 indices on (PlusOne..
        // PlusFour are the shortest edits there are for it).
        let (p, n) = (prev.as_slice(), next.as_slice());
        if let (Some((&a, pa)), Some((&b, na))) = (p.split_last(), n.split_last()) {
            let d = b.wrapping_sub(a);
            if pa == na && (1..=4).contains(&d) {
                if let Some(&(bits, len)) = plus.get(d as usize - 1) {
                    w.write_bits(u64::from(bits), len)
                        .map_err(|e| ErrorKind::Unwritable {
                            what: "a field-path operation",
                            reason: e.to_string(),
                        })?;
                    prev = *next;
                    continue;
                }
            }
        }
        if next.len() > MAX_DEPTH {
            return Err(unreachable_path(i, &prev, next));
        }
        let (_, step) = cheapest(&prev, next).ok_or_else(|| unreachable_path(i, &prev, next))?;
        step.write(w)?;
        prev = *next;
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
}
