//! The field-path writer (`fieldpath_writer::write_field_paths`) against the
//! reader (`fieldpath::read_field_paths`), `docs/formats/source2-field-paths.md`:
//!
//! - random sets of valid paths (sorted, depths 1 to 7, indices from 0 up to
//!   the largest the field-path varint holds) → write → read: the same paths;
//! - random sequences in any order, repeats and edits to negative indices
//!   included: they read back, or the writer refuses exactly the ones that
//!   would push a negative index;
//! - no shorter encoding exists: for cheap steps, every shorter bit string
//!   is tried in its place and none reads as the same step;
//! - every field-path sequence of every `svc_PacketEntities` record in the
//!   corpus demos, re-written, reads back as the same paths. The test counts
//!   how often our bits are as long as Valve's and identical to them, and
//!   prints the figures per demo.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use gamewire_bits::{BitReader, BitWriter};
use gamewire_source2::entity_writer::field_path_bits;
use gamewire_source2::fieldpath::{codes, read_field_paths, FieldPath, MAX_DEPTH};
use gamewire_source2::fieldpath_writer::{
    operation_for, operations_between, write_field_paths, write_field_paths_with, PathStyle,
};
use gamewire_source2::{parse_with, DemoState, Entity, EntityChange, Visitor};
use proptest::prelude::*;

/// One index as the reader allows it: mostly small, sometimes at each
/// width of the field-path varint, up to 2^31 - 1.
fn index() -> impl Strategy<Value = i32> {
    prop_oneof![
        8 => 0i32..8,
        4 => 0i32..64,
        2 => 0i32..1024,
        1 => 0i32..(1 << 17),
        1 => 0i32..=i32::MAX,
    ]
}

fn path() -> impl Strategy<Value = FieldPath> {
    prop::collection::vec(index(), 1..=MAX_DEPTH).prop_map(|v| FieldPath::from_slice(&v))
}

fn write(paths: &[FieldPath]) -> (Vec<u8>, u64) {
    let mut w = BitWriter::new();
    write_field_paths(&mut w, paths).unwrap_or_else(|e| panic!("{paths:?}: {e}"));
    let bits = w.bits_written();
    (w.finish(), bits)
}

fn read(data: &[u8]) -> Result<(Vec<FieldPath>, u64), String> {
    let mut r = BitReader::new(data);
    let mut out = Vec::new();
    read_field_paths(&mut r, &mut out).map_err(|e| e.to_string())?;
    Ok((out, r.position()))
}

/// A path and one near it: the last index moved, one or two small indices
/// pushed, a pop and a move, one index changed.
fn step() -> impl Strategy<Value = (FieldPath, FieldPath)> {
    (
        prop::collection::vec(0i32..40, 1..=MAX_DEPTH),
        0u8..5,
        -3i32..12,
        prop::collection::vec(0i32..40, 1..=2),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(p, kind, d, push, at)| {
            let mut n = p.clone();
            match kind {
                0 => {
                    if let Some(x) = n.last_mut() {
                        *x += d;
                    }
                }
                1 => {
                    if let Some(x) = n.last_mut() {
                        *x += d.max(0);
                    }
                    n.extend(push);
                    n.truncate(MAX_DEPTH);
                }
                2 => {
                    n.truncate(at.index(n.len()).max(1));
                    if let Some(x) = n.last_mut() {
                        *x += d;
                    }
                }
                3 => {
                    let i = at.index(n.len());
                    n[i] += d;
                }
                _ => n = vec![d.max(0)],
            }
            (FieldPath::from_slice(&p), FieldPath::from_slice(&n))
        })
}

/// Whether going from `prev` to `next` pushes a negative index (which no
/// operation can do).
fn pushes_negative(prev: &FieldPath, next: &FieldPath) -> bool {
    let lp = prev.len();
    next.as_slice().iter().skip(lp).any(|&v| v < 0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// Sorted sets of paths, as entity records carry them.
    #[test]
    fn sorted_sets_read_back(paths in prop::collection::btree_set(
        prop::collection::vec(index(), 1..=MAX_DEPTH), 0..120,
    )) {
        let paths: Vec<FieldPath> = paths.iter().map(|v| FieldPath::from_slice(v)).collect();
        let (data, bits) = write(&paths);
        let (got, consumed) = read(&data).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&got, &paths);
        prop_assert_eq!(consumed, bits);
        // In the games' style too, never shorter than the shortest.
        let mut w = BitWriter::new();
        write_field_paths_with(&mut w, &paths, PathStyle::Game).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let game_bits = w.bits_written();
        let (got, consumed) = read(&w.finish()).map_err(TestCaseError::fail)?;
        prop_assert_eq!(got, paths);
        prop_assert_eq!(consumed, game_bits);
        prop_assert!(game_bits >= bits);
    }

    /// Any order, repeats, and edits that reach negative indices.
    #[test]
    fn any_sequence_reads_back_or_is_refused(
        steps in prop::collection::vec(
            (path(), prop::collection::vec((0usize..MAX_DEPTH, -5i32..5), 0..3)),
            0..60,
        ),
        style in prop_oneof![Just(PathStyle::Shortest), Just(PathStyle::Game)],
    ) {
        // Some paths get small negative offsets at some positions.
        let paths: Vec<FieldPath> = steps
            .iter()
            .map(|(p, edits)| {
                let mut v = p.as_slice().to_vec();
                for &(at, d) in edits {
                    if let Some(x) = v.get_mut(at) {
                        *x = x.saturating_add(d);
                    }
                }
                FieldPath::from_slice(&v)
            })
            .collect();
        let mut w = BitWriter::new();
        let result = write_field_paths_with(&mut w, &paths, style);
        let mut prev = FieldPath::default();
        let mut refusable = false;
        for p in &paths {
            refusable |= pushes_negative(&prev, p);
            prev = *p;
        }
        match result {
            Ok(()) => {
                let bits = w.bits_written();
                let (got, consumed) = read(&w.finish()).map_err(TestCaseError::fail)?;
                prop_assert_eq!(got, paths);
                prop_assert_eq!(consumed, bits);
            }
            Err(e) => prop_assert!(refusable, "refused {:?}: {}", paths, e),
        }
    }

    /// The chosen operation is the shortest: no bit string shorter than it
    /// (up to 12 bits) reads as the same step.
    #[test]
    fn no_shorter_step_exists((prev, next) in step()) {
        let Some((_, _, cost)) = operation_for(&prev, &next) else {
            prop_assert!(pushes_negative(&prev, &next));
            return Ok(());
        };
        let (data, total) = write(&[prev, next]);
        let (got, _) = read(&data).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&got, &[prev, next]);
        let (_, _, first) = operation_for(&FieldPath::default(), &prev).unwrap();
        prop_assert_eq!(total, u64::from(first + cost + 2));
        if cost > 12 {
            return Ok(());
        }
        // The bits of the first step, then every shorter candidate, then
        // FieldPathEncodeFinish.
        let mut head = Vec::new();
        let mut r = BitReader::new(&data);
        let mut left = first;
        while left > 0 {
            let n = left.min(32);
            head.push((r.read_bits(n).unwrap(), n));
            left -= n;
        }
        let (finish, finish_len) = codes()[39];
        for len in 1..cost {
            for x in 0u64..1 << len {
                let mut w = BitWriter::new();
                for &(bits, n) in &head {
                    w.write_bits(bits, n).unwrap();
                }
                w.write_bits(x, len).unwrap();
                w.write_bits(u64::from(finish), finish_len).unwrap();
                if let Ok((paths, _)) = read(&w.finish()) {
                    prop_assert!(
                        paths != [prev, next],
                        "{} bits {:#b} also go from {} to {} (ours: {} bits)",
                        len, x, prev, next, cost
                    );
                }
            }
        }
    }
}

#[test]
fn refuses_more_paths_than_a_record_holds() {
    let paths = vec![FieldPath::from_slice(&[0]); (1 << 16) + 1];
    let mut w = BitWriter::new();
    let err = write_field_paths(&mut w, &paths).unwrap_err();
    assert!(err.to_string().contains("65536"), "{err}");
}

/// Our sequences against the game's, record by record.
#[derive(Debug, Default, Clone, Copy)]
struct Against {
    /// Records of `svc_PacketEntities` messages, as read with the bits the
    /// game's field-path sequence took.
    records: u64,
    /// Of those, how many of ours are as long as the game's, shorter, longer.
    same_len: u64,
    shorter: u64,
    longer: u64,
    /// Of the records as long as the game's, those whose every step has
    /// one shortest operation: the game's sequence, as long as ours, took
    /// the shortest operation at each step (none can be shorter, so none
    /// was longer), which is then ours: the bits are identical.
    identical: u64,
    /// Records as long as the game's with a step where two operations are
    /// equally short (the game's choice is not known from the length).
    tied: u64,
    /// Bits of the game's sequences and of ours for the same records.
    valve_bits: u64,
    ours: u64,
}

impl Against {
    fn add(&mut self, paths: &[FieldPath], valve: u64, style: PathStyle, what: &str) {
        let mut w = BitWriter::new();
        write_field_paths_with(&mut w, paths, style).unwrap_or_else(|e| panic!("{what}: {e}"));
        let ours = w.bits_written();
        let (got, _) = read(&w.finish()).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(got, paths, "{what}: paths differ ({style:?})");
        self.records += 1;
        self.valve_bits += valve;
        self.ours += ours;
        match ours.cmp(&valve) {
            std::cmp::Ordering::Equal => {
                self.same_len += 1;
                let mut prev = FieldPath::default();
                let mut unique = true;
                for p in paths {
                    let choices = operations_between(&prev, p, style);
                    let best = choices.iter().map(|&(_, b)| b).min().unwrap();
                    unique &= choices.iter().filter(|&&(_, b)| b == best).count() == 1;
                    prev = *p;
                }
                if unique {
                    self.identical += 1;
                } else {
                    self.tied += 1;
                }
            }
            std::cmp::Ordering::Less => self.shorter += 1,
            std::cmp::Ordering::Greater => self.longer += 1,
        }
    }

    fn line(&self) -> String {
        let pct = |n: u64| 100.0 * n as f64 / self.records.max(1) as f64;
        format!(
            "{} records, {} as long ({:.1}%; {} identical ({:.1}%), {} with equally short \
             choices), {} shorter; {} bits, ours {} ({:.2}%)",
            self.records,
            self.same_len,
            pct(self.same_len),
            self.identical,
            pct(self.identical),
            self.tied,
            self.shorter,
            self.valve_bits,
            self.ours,
            100.0 * self.ours as f64 / self.valve_bits.max(1) as f64,
        )
    }
}

/// What the corpus test counts, per demo.
#[derive(Debug, Default)]
struct Counts {
    /// Entity records with field data (creates and updates).
    records: u64,
    /// Field paths in them.
    paths: u64,
    /// Bits of our field-path sequences (`FieldPathEncodeFinish` included).
    our_bits: u64,
    /// Operations of each kind we wrote.
    ops: Vec<u64>,
    /// Against the game's sequences: for [`PathStyle::Shortest`], then
    /// [`PathStyle::Game`].
    against: [Against; 2],
}

/// Every create and update: its field paths, re-written and read back.
struct Rewrite {
    name: String,
    counts: Counts,
}

impl Visitor for Rewrite {
    fn before_packet_entities(&mut self, state: &DemoState, body: &[u8], _applied: bool) {
        let what = format!("{} tick {}", self.name, state.tick);
        let records = field_path_bits(body, state).unwrap_or_else(|e| panic!("{what}: {e}"));
        for (paths, valve) in records {
            for (i, style) in [PathStyle::Shortest, PathStyle::Game]
                .into_iter()
                .enumerate()
            {
                if let Some(a) = self.counts.against.get_mut(i) {
                    a.add(&paths, valve, style, &what);
                }
            }
        }
    }

    fn on_entity(
        &mut self,
        state: &DemoState,
        change: EntityChange,
        entity: &Entity,
        paths: &[FieldPath],
    ) {
        if !matches!(change, EntityChange::Created | EntityChange::Updated) {
            return;
        }
        let what = format!("{} tick {} entity {}", self.name, state.tick, entity.index);
        let (data, bits) = write(paths);
        let (got, consumed) = read(&data).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(got, paths, "{what}: paths differ");
        assert_eq!(consumed, bits, "{what}");
        let c = &mut self.counts;
        c.records += 1;
        c.paths += paths.len() as u64;
        c.our_bits += bits;
        let mut prev = FieldPath::default();
        for p in paths {
            let (op, _, _) = operation_for(&prev, p).unwrap();
            c.ops[op] += 1;
            prev = *p;
        }
    }
}

#[test]
fn corpus_field_paths_rewrite_to_the_same_paths() {
    let demos = gamewire_corpus::source2_demos().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        demos.len() >= 7,
        "expected the 7 corpus demos, found {demos:?}"
    );
    for path in demos {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let mut v = Rewrite {
            name: name.clone(),
            counts: Counts {
                ops: vec![0; 40],
                ..Counts::default()
            },
        };
        let (_, err) = parse_with(&bytes, &mut v).unwrap();
        assert!(err.is_none(), "{name}: {err:?}");
        let c = &v.counts;
        assert!(c.records > 0 && c.paths > 0, "{name}: no entity records");
        let ops: Vec<String> = c
            .ops
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(i, n)| format!("{}={n}", gamewire_source2::fieldpath::OPS[i].0))
            .collect();
        for (a, style) in c.against.iter().zip(["shortest", "game rules"]) {
            assert!(a.records > 0, "{name}: no records with the game's bits");
            // The shortest sequence is never longer than the game's; the
            // game's rules, read off these demos, hold on every record.
            assert_eq!(a.longer, 0, "{name}: {style}: longer than the game's");
            println!(
                "{name}: against the game's field paths, {style}: {}",
                a.line()
            );
        }
        println!(
            "{name}: {} records, {} paths, our field-path bits {} ({:.2} per path); ops: {}",
            c.records,
            c.paths,
            c.our_bits,
            c.our_bits as f64 / c.paths as f64,
            ops.join(" "),
        );
    }
}
