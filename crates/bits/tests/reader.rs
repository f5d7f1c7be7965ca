//! The reader on hostile input: every read method over random and truncated
//! bytes returns a value or an error and never panics; end-of-input errors
//! carry the right offset and counts; manual mode, seek and byte reads.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use gamewire_bits::quantized::QuantizedFloat;
use gamewire_bits::serialize::{ReadStream, Stream};
use gamewire_bits::{BitError, BitReader, BitWriter, Result};
use proptest::prelude::*;

type Read = fn(&mut BitReader<'_>) -> Result<()>;

/// Reads `data` from bit `start` to its end with `fast` and with a plain
/// `reference` reader side by side: each value and the position after it must
/// agree, and both must fail at the same read (the end of the input).
fn agrees_to_the_end<'d>(
    data: &'d [u8],
    start: u64,
    mut fast: impl FnMut(&mut BitReader<'d>) -> Result<u32>,
    mut reference: impl FnMut(&mut BitReader<'d>) -> Result<u32>,
) -> std::result::Result<(), TestCaseError> {
    let mut a = BitReader::new(data);
    if a.seek(start).is_err() {
        return Ok(());
    }
    let mut b = a.clone();
    loop {
        match (fast(&mut a), reference(&mut b)) {
            (Ok(x), Ok(y)) => {
                prop_assert_eq!(x, y);
                prop_assert_eq!(a.position(), b.position());
            }
            (Err(_), Err(_)) => return Ok(()),
            (x, y) => prop_assert!(false, "fast {:?} vs reference {:?}", x, y),
        }
    }
}

/// Every read method of the reader, each discarding its value.
fn all_reads() -> Vec<(&'static str, Read)> {
    vec![
        ("bits1", |r| r.read_bits(1).map(drop)),
        ("bits7", |r| r.read_bits(7).map(drop)),
        ("bits17", |r| r.read_bits(17).map(drop)),
        ("bits56", |r| r.read_bits(56).map(drop)),
        ("bits57", |r| r.read_bits(57).map(drop)),
        ("bits64", |r| r.read_bits(64).map(drop)),
        ("bool", |r| r.read_bool().map(drop)),
        ("u8", |r| r.read_u8().map(drop)),
        ("u16", |r| r.read_u16().map(drop)),
        ("u32", |r| r.read_u32().map(drop)),
        ("u64", |r| r.read_u64().map(drop)),
        ("varuint32", |r| r.read_varuint32().map(drop)),
        ("varint32", |r| r.read_varint32().map(drop)),
        ("varuint64", |r| r.read_varuint64().map(drop)),
        ("varint64", |r| r.read_varint64().map(drop)),
        ("ubitvar", |r| r.read_ubitvar().map(drop)),
        ("ubitvar_fieldpath", |r| {
            r.read_ubitvar_fieldpath().map(drop)
        }),
        ("component", |r| r.read_component().map(drop)),
        ("f32", |r| r.read_f32().map(drop)),
        ("coord", |r| r.read_coord().map(drop)),
        ("normal", |r| r.read_normal().map(drop)),
        ("vec3_normal", |r| r.read_vec3_normal().map(drop)),
        ("angle13", |r| r.read_angle(13).map(drop)),
        ("angle32", |r| r.read_angle(32).map(drop)),
        ("angle_precise", |r| r.read_angle_precise().map(drop)),
        ("qangle_precise", |r| r.read_qangle_precise().map(drop)),
        ("qangle_fixed", |r| r.read_qangle_fixed(10).map(drop)),
        ("qangle_coord", |r| r.read_qangle_coord().map(drop)),
        ("vector3", |r| {
            r.read_vector::<3>(|r| r.read_coord()).map(drop)
        }),
        ("simulation_time", |r| {
            r.read_simulation_time(1.0 / 64.0).map(drop)
        }),
        ("rune_time", |r| r.read_rune_time().map(drop)),
        ("ammo_count", |r| r.read_ammo_count().map(drop)),
        ("string_fixed", |r| r.read_string_fixed(5).map(drop)),
        ("cstring", |r| r.read_cstring().map(drop)),
        ("cstring_bytes8", |r| r.read_cstring_bytes(8).map(drop)),
        ("string_terminated", |r| {
            r.read_string_terminated().map(drop)
        }),
        ("bytes3", |r| r.read_bytes(3).map(drop)),
        ("bytes_aligned", |r| r.read_bytes_aligned(2).map(drop)),
        ("bits_to_vec", |r| r.read_bits_to_vec(13).map(drop)),
        ("skip", |r| r.skip_bits(11)),
        ("quantized", |r| {
            QuantizedFloat::new(Some(10), Some(4), Some(-5.0), Some(5.0))?
                .decode(r)
                .map(drop)
        }),
        ("quantized_integers", |r| {
            QuantizedFloat::new(Some(6), Some(8), Some(0.0), Some(100.0))?
                .decode(r)
                .map(drop)
        }),
        ("serialize_int", |r| {
            let mut s = ReadStream::from_reader(r.clone());
            let mut v = 0i32;
            s.serialize_int(&mut v, -5, 1000)?;
            *r = s.into_reader();
            Ok(())
        }),
        ("serialize_string", |r| {
            let mut s = ReadStream::from_reader(r.clone());
            let mut v = String::new();
            s.serialize_string(&mut v, 1000)?;
            *r = s.into_reader();
            Ok(())
        }),
    ]
}

/// Errors a read may legitimately return on hostile input.
fn is_expected_error(e: &BitError) -> bool {
    matches!(
        e,
        BitError::UnexpectedEnd { .. }
            | BitError::VarintOverflow { .. }
            | BitError::StringTooLong { .. }
            | BitError::OutOfRange { .. }
            | BitError::NonZeroPadding { .. }
            | BitError::InvalidString { .. }
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random bytes, a random start, then a random sequence of reads until the
    /// first error: nothing panics, positions only move forward and stay in
    /// bounds, and end-of-input errors describe the reader's state exactly.
    #[test]
    fn every_read_on_random_bytes(
        data in prop::collection::vec(any::<u8>(), 0..48),
        start in 0u64..64,
        ops in prop::collection::vec(any::<prop::sample::Index>(), 1..40),
    ) {
        let reads = all_reads();
        let mut r = BitReader::new(&data);
        if r.seek(start).is_err() {
            prop_assert!(start > r.bit_len());
            return Ok(());
        }
        for op in ops {
            let (name, read) = reads[op.index(reads.len())];
            let before = r.position();
            match read(&mut r) {
                Ok(()) => {
                    prop_assert!(r.position() >= before, "{} went backwards", name);
                    prop_assert!(r.position() <= r.bit_len());
                    prop_assert_eq!(r.position() + r.bits_remaining(), r.bit_len());
                }
                Err(e) => {
                    prop_assert!(is_expected_error(&e), "{}: unexpected {:?}", name, e);
                    if let BitError::UnexpectedEnd { bit_offset, requested, available } = e {
                        prop_assert!(requested > available, "{}: {:?}", name, e);
                        prop_assert!(bit_offset >= before && bit_offset <= r.bit_len(), "{}: {:?}", name, e);
                        prop_assert_eq!(bit_offset + available, r.bit_len(), "{}: {:?}", name, e);
                    }
                    break;
                }
            }
        }
    }

    /// The branch-free varuint32 agrees with the plain byte loop
    /// (docs/formats/source2-base-types.md, "varuint32"), value and position, on arbitrary bytes (continuation bits in any pattern) at any
    /// offset, in the fast path and near the end of input.
    #[test]
    fn varuint32_matches_the_byte_loop(
        data in prop::collection::vec(any::<u8>(), 0..24),
        start in 0u64..16,
    ) {
        let reference_loop = |r: &mut BitReader<'_>| -> Result<u32> {
            let mut value = 0u32;
            let mut offset = 0u32;
            while offset != 35 {
                let byte = r.read_u8()?;
                value |= u32::from(byte & 0x7f).wrapping_shl(offset);
                offset += 7;
                if byte & 0x80 == 0 {
                    break;
                }
            }
            Ok(value)
        };
        agrees_to_the_end(&data, start, BitReader::read_varuint32, reference_loop)?;
    }

    /// The branch-free ubitvar agrees with the plain switch on the selector
    /// bits (docs/formats/source2-base-types.md, "UBitVar") on arbitrary
    /// bytes at any offset, in the fast path and near the end of input.
    #[test]
    fn ubitvar_matches_the_selector_switch(
        data in prop::collection::vec(any::<u8>(), 0..24),
        start in 0u64..16,
    ) {
        let reference_switch = |r: &mut BitReader<'_>| -> Result<u32> {
            let value = r.read_bits(6)? as u32;
            Ok(match value & 0x30 {
                16 => (value & 15) | ((r.read_bits(4)? as u32) << 4),
                32 => (value & 15) | ((r.read_bits(8)? as u32) << 4),
                48 => (value & 15) | ((r.read_bits(28)? as u32) << 4),
                _ => value,
            })
        };
        agrees_to_the_end(&data, start, BitReader::read_ubitvar, reference_switch)?;
    }

    /// The peek-based field-path varint agrees with its unary prefix read bit
    /// by bit (docs/formats/source2-base-types.md, "Field-path UBitVar"), on arbitrary bytes at any offset, in the fast path
    /// and near the end of input (where the bit loop takes over).
    #[test]
    fn ubitvar_fieldpath_matches_the_prefix_loop(
        data in prop::collection::vec(any::<u8>(), 0..24),
        start in 0u64..16,
    ) {
        let reference_loop = |r: &mut BitReader<'_>| -> Result<u32> {
            for width in [2, 4, 10, 17] {
                if r.read_bits(1)? == 1 {
                    return Ok(r.read_bits(width)? as u32);
                }
            }
            Ok(r.read_bits(31)? as u32)
        };
        agrees_to_the_end(&data, start, BitReader::read_ubitvar_fieldpath, reference_loop)?;
    }

    /// Each read alone, over every truncation of random bytes: never panics.
    #[test]
    fn every_read_on_every_truncation(data in prop::collection::vec(any::<u8>(), 0..40)) {
        for (name, read) in all_reads() {
            for len in 0..=data.len() {
                let mut r = BitReader::new(&data[..len]);
                if let Err(e) = read(&mut r) {
                    prop_assert!(is_expected_error(&e), "{}: {:?}", name, e);
                }
            }
        }
    }

    /// A value written and then cut short must fail, for every type.
    #[test]
    fn truncated_values_fail(v in any::<u32>(), f in -16000.0f32..16000.0, s in "[a-z]{0,10}") {
        type Write = Box<dyn Fn(&mut BitWriter) -> Result<()>>;
        let cases: Vec<(Write, Read)> = vec![
            (Box::new(move |w| { w.write_varuint32(v); Ok(()) }), |r| r.read_varuint32().map(drop)),
            (Box::new(move |w| { w.write_varuint64(u64::from(v) << 20); Ok(()) }), |r| r.read_varuint64().map(drop)),
            (Box::new(move |w| { w.write_ubitvar(v); Ok(()) }), |r| r.read_ubitvar().map(drop)),
            (Box::new(move |w| w.write_ubitvar_fieldpath(v >> 1)), |r| r.read_ubitvar_fieldpath().map(drop)),
            (Box::new(move |w| w.write_coord(f)), |r| r.read_coord().map(drop)),
            (Box::new(move |w| w.write_qangle_coord([f, 0.0, -f])), |r| r.read_qangle_coord().map(drop)),
            (Box::new(move |w| w.write_vec3_normal([0.5, -0.5, 1.0])), |r| r.read_vec3_normal().map(drop)),
            (Box::new(move |w| w.write_angle_precise(f / 100.0)), |r| r.read_angle_precise().map(drop)),
            (Box::new(move |w| { w.write_u64(u64::from(v)); Ok(()) }), |r| r.read_u64().map(drop)),
            {
                let s = s.clone();
                (Box::new(move |w| w.write_cstring(&s)), |r| r.read_cstring().map(drop))
            },
            {
                let s = s.clone();
                (Box::new(move |w| w.write_string_terminated(&s)), |r| r.read_string_terminated().map(drop))
            },
        ];
        for (write, read) in cases {
            // Three bits of prefix so the value is unaligned.
            let mut w = BitWriter::new();
            w.write_bits(0b101, 3).unwrap();
            write(&mut w).unwrap();
            let end = w.bits_written();
            let bytes = w.finish();
            for cut in 1..=bytes.len() {
                let len = bytes.len() - cut;
                if (len as u64) * 8 >= end {
                    continue;
                }
                let mut r = BitReader::new(&bytes[..len]);
                let result = r.read_bits(3).map(drop).and_then(|()| read(&mut r));
                prop_assert!(result.is_err(), "read succeeded on {} of {} bytes", len, bytes.len());
            }
        }
    }
}

#[test]
fn unexpected_end_carries_offset_and_counts_and_leaves_the_reader() {
    let data = [0xABu8, 0xCD];
    let mut r = BitReader::new(&data);
    r.read_bits(3).unwrap();
    assert_eq!(
        r.read_bits(14).unwrap_err(),
        BitError::UnexpectedEnd {
            bit_offset: 3,
            requested: 14,
            available: 13
        }
    );
    // The failed read consumed nothing.
    assert_eq!(r.position(), 3);
    assert_eq!(r.read_bits(13).unwrap(), 0xCDAB >> 3);
    assert_eq!(
        r.read_bool().unwrap_err(),
        BitError::UnexpectedEnd {
            bit_offset: 16,
            requested: 1,
            available: 0
        }
    );
    // Wide reads report the whole request.
    let mut r = BitReader::new(&[0u8; 7]);
    assert_eq!(
        r.read_bits(60).unwrap_err(),
        BitError::UnexpectedEnd {
            bit_offset: 0,
            requested: 60,
            available: 56
        }
    );
    assert_eq!(
        r.read_bits(65).unwrap_err(),
        BitError::TooManyBits { requested: 65 }
    );
    // Byte reads report bits.
    let mut r = BitReader::new(&[1, 2, 3]);
    r.read_bits(4).unwrap();
    assert_eq!(
        r.read_bytes(3).unwrap_err(),
        BitError::UnexpectedEnd {
            bit_offset: 4,
            requested: 24,
            available: 20
        }
    );
    assert_eq!(
        r.read_u64().unwrap_err(),
        BitError::UnexpectedEnd {
            bit_offset: 4,
            requested: 64,
            available: 20
        }
    );
    // A varint that runs off the end reports the byte it could not read.
    let mut r = BitReader::new(&[0x80, 0x80]);
    assert_eq!(
        r.read_varuint32().unwrap_err(),
        BitError::UnexpectedEnd {
            bit_offset: 16,
            requested: 8,
            available: 0
        }
    );
}

#[test]
fn empty_input() {
    for (name, read) in all_reads() {
        let mut r = BitReader::new(&[]);
        let e = read(&mut r).expect_err(name);
        assert!(is_expected_error(&e), "{name}: {e:?}");
    }
    let mut r = BitReader::new(&[]);
    assert!(r.is_empty());
    assert_eq!(r.read_bits(0).unwrap(), 0);
    assert_eq!(r.read_bytes(0).unwrap(), Vec::<u8>::new());
}

#[test]
fn string_too_long_errors() {
    let long = vec![b'a'; 5000];
    let mut r = BitReader::new(&long);
    assert_eq!(
        r.read_string_terminated().unwrap_err(),
        BitError::StringTooLong {
            bit_offset: 0,
            limit: 4096
        }
    );
    let mut data = vec![0u8];
    data.extend_from_slice(b"abcdefghij\0");
    let mut r = BitReader::new(&data);
    r.read_bits(8).unwrap();
    assert_eq!(
        r.read_cstring_bytes(4).unwrap_err(),
        BitError::StringTooLong {
            bit_offset: 8,
            limit: 4
        }
    );
    // No terminator before the end: end of input, not a silent cut.
    assert!(matches!(
        BitReader::new(b"abc").read_cstring().unwrap_err(),
        BitError::UnexpectedEnd { .. }
    ));
}

#[test]
fn manual_mode_peek_and_consume() {
    let data: Vec<u8> = (0u8..32).collect();
    let mut r = BitReader::new(&data);
    let buffered = r.refill_lookahead();
    assert!(buffered >= 56);
    assert_eq!(r.lookahead_bits(), buffered);
    assert_eq!(r.peek(8), 0);
    assert_eq!(r.peek(16), 0x0100);
    r.consume(4);
    assert_eq!(r.position(), 4);
    assert_eq!(r.peek(8), 0x10);
    r.consume(12);
    assert_eq!(r.peek(8), 2);
    assert_eq!(r.lookahead_bits(), buffered - 16);
    // Manual reads agree with checked reads all the way through.
    let mut manual = BitReader::new(&data);
    let mut checked = BitReader::new(&data);
    let mut total = 0;
    while total + 7 <= data.len() * 8 {
        if manual.lookahead_bits() < 7 {
            assert!(manual.refill_lookahead() >= 7);
        }
        let value = manual.peek(7);
        manual.consume(7);
        assert_eq!(value, checked.read_bits(7).unwrap());
        total += 7;
        assert_eq!(manual.position(), checked.position());
    }
    // Near the end the refill reports exactly what is left.
    let mut r = BitReader::new(&data[..3]);
    assert_eq!(r.refill_lookahead(), 24);
    assert_eq!(r.peek(24), 0x020100);
    r.consume(24);
    assert!(r.is_empty());
    assert_eq!(r.refill_lookahead(), 0);
}

#[test]
fn seek_everywhere() {
    let data: Vec<u8> = (0..40u8).map(|i| i.wrapping_mul(37)).collect();
    let bit_len = data.len() as u64 * 8;
    let mut sequential = BitReader::new(&data);
    let bits: Vec<u64> = (0..bit_len)
        .map(|_| sequential.read_bits(1).unwrap())
        .collect();
    let mut r = BitReader::new(&data);
    for offset in (0..=bit_len).rev() {
        r.seek(offset).unwrap();
        assert_eq!(r.position(), offset);
        assert_eq!(r.bits_remaining(), bit_len - offset);
        if offset < bit_len {
            assert_eq!(r.read_bits(1).unwrap(), bits[offset as usize]);
        }
    }
    // The loop ended at offset 0 after one read: the error is relative to 1.
    assert_eq!(
        r.seek(bit_len + 1).unwrap_err(),
        BitError::UnexpectedEnd {
            bit_offset: 1,
            requested: bit_len,
            available: bit_len - 1
        }
    );
    assert_eq!(r.position(), 1);
    // skip_bits is a relative seek.
    r.seek(5).unwrap();
    r.skip_bits(100).unwrap();
    assert_eq!(r.position(), 105);
    assert!(r.skip_bits(bit_len).is_err());
    assert_eq!(r.position(), 105);
}

#[test]
fn read_bytes_aligned_and_unaligned() {
    let data: Vec<u8> = (1..=20).collect();
    let mut r = BitReader::new(&data);
    // Aligned: borrowed without copying.
    assert_eq!(r.read_bytes_aligned(3).unwrap(), Some(&data[..3]));
    assert_eq!(r.position(), 24);
    r.read_bits(1).unwrap();
    // Unaligned: None, nothing consumed.
    assert_eq!(r.read_bytes_aligned(2).unwrap(), None);
    assert_eq!(r.position(), 25);
    // Unaligned copy: each byte shifted by one bit.
    let out = r.read_bytes(16).unwrap();
    let expected: Vec<u8> = (3..19)
        .map(|i| (data[i] >> 1) | (data[i + 1] << 7))
        .collect();
    assert_eq!(out, expected);
    assert_eq!(r.position(), 25 + 128);
    // Past the end, aligned: error, nothing consumed.
    let mut r = BitReader::new(&data);
    r.read_bits(8).unwrap();
    assert!(r.read_bytes_aligned(20).is_err());
    assert_eq!(r.position(), 8);
    assert_eq!(r.read_bytes_aligned(19).unwrap(), Some(&data[1..]));
    assert!(r.is_empty());
}

#[test]
fn reads_straddling_the_refill_boundary() {
    // Every width at every offset near the end, where the slow refill runs.
    let data: Vec<u8> = (0..24u8).map(|i| i.wrapping_mul(97) ^ 0x5A).collect();
    let mut reference = Vec::new();
    let mut r = BitReader::new(&data);
    while let Ok(bit) = r.read_bits(1) {
        reference.push(bit);
    }
    for start in 0..data.len() * 8 {
        for width in 1..=64u32 {
            let mut r = BitReader::new(&data);
            r.seek(start as u64).unwrap();
            let end = start + width as usize;
            match r.read_bits(width) {
                Ok(v) => {
                    assert!(end <= reference.len());
                    let expected = reference[start..end]
                        .iter()
                        .enumerate()
                        .fold(0u64, |acc, (i, &b)| acc | (b << i));
                    assert_eq!(v, expected, "start {start} width {width}");
                }
                Err(e) => {
                    assert!(end > reference.len(), "start {start} width {width}: {e}");
                }
            }
        }
    }
}

#[test]
fn read_into_reused_buffers() {
    let data: Vec<u8> = (1..=20).collect();
    let mut r = BitReader::new(&data);
    r.read_bits(3).unwrap();
    // The old contents are replaced, whatever their length.
    let mut out = vec![9u8; 30];
    r.read_bits_into_vec(21, &mut out).unwrap();
    let mut fresh = BitReader::new(&data);
    fresh.read_bits(3).unwrap();
    assert_eq!(out, fresh.read_bits_to_vec(21).unwrap());
    assert_eq!(r.position(), 24);
    // Past the end: an error, and neither the buffer nor the reader moves.
    let before = out.clone();
    assert!(r.read_bits_into_vec(200, &mut out).is_err());
    assert_eq!((out, r.position()), (before, 24));

    // C strings append; the limit counts the appended bytes only.
    let data = b"abc\0defgh\0";
    let mut r = BitReader::new(data);
    let mut key = b"xy".to_vec();
    r.read_cstring_bytes_into(3, &mut key).unwrap();
    assert_eq!(key, b"xyabc");
    assert!(r.read_cstring_bytes_into(4, &mut key).is_err());
}

proptest! {
    /// The word-at-a-time C-string reader agrees with a byte loop: same
    /// bytes, same position after, same error, at any bit offset, with
    /// terminators anywhere (or none) and any limit.
    #[test]
    fn cstring_matches_a_byte_loop(
        data in prop::collection::vec(prop_oneof![Just(0u8), 1u8..4, any::<u8>()], 0..40),
        start in 0u64..16,
        limit in 0usize..24,
    ) {
        let byte_loop = |r: &mut BitReader<'_>| -> Result<Vec<u8>> {
            let begin = r.position();
            let mut out = Vec::new();
            loop {
                let b = r.read_u8()?;
                if b == 0 {
                    return Ok(out);
                }
                if out.len() == limit {
                    return Err(BitError::StringTooLong { bit_offset: begin, limit });
                }
                out.push(b);
            }
        };
        let mut a = BitReader::new(&data);
        let mut b = BitReader::new(&data);
        if a.seek(start).is_err() {
            return Ok(());
        }
        b.seek(start).unwrap();
        let got = a.read_cstring_bytes(limit);
        let want = byte_loop(&mut b);
        prop_assert_eq!(&got, &want);
        if got.is_ok() {
            prop_assert_eq!(a.position(), b.position());
        }
    }
}

/// A model of the stream with no lookahead at all: bit `n` is bit `n % 8` of
/// byte `n / 8`, read one at a time.
struct Plain<'d> {
    data: &'d [u8],
    pos: u64,
}

impl Plain<'_> {
    fn bits(&mut self, count: u32) -> Option<u64> {
        if self.pos + u64::from(count) > self.data.len() as u64 * 8 {
            return None;
        }
        let mut value = 0u64;
        for i in 0..u64::from(count) {
            let at = self.pos + i;
            let byte = *self.data.get((at / 8) as usize)?;
            value |= u64::from(byte >> (at % 8) & 1) << i;
        }
        self.pos += u64::from(count);
        Some(value)
    }

    /// Protobuf varint of at most five bytes, bits above 31 dropped.
    fn varuint32(&mut self) -> Option<u32> {
        let mut value = 0u64;
        for i in 0..5 {
            let byte = self.bits(8)?;
            value |= (byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                break;
            }
        }
        Some(value as u32)
    }

    /// Six bits; bits 4-5 select 0, 4, 8 or 28 more above the low four.
    fn ubitvar(&mut self) -> Option<u32> {
        let head = self.bits(6)? as u32;
        let extra = [0, 4, 8, 28][(head >> 4) as usize];
        let rest = self.bits(extra)? as u32;
        Some((head & 0x0f) | rest.checked_shl(4).unwrap_or(0))
    }

    /// A unary prefix of up to four bits selecting 2, 4, 10, 17 or 31 bits.
    fn ubitvar_fieldpath(&mut self) -> Option<u32> {
        for width in [2, 4, 10, 17] {
            if self.bits(1)? == 1 {
                return Some(self.bits(width)? as u32);
            }
        }
        Some(self.bits(31)? as u32)
    }
}

/// One read of the mixed sequence below.
#[derive(Debug, Clone, Copy)]
enum Op {
    Bits(u32),
    Varuint32,
    Ubitvar,
    UbitvarFieldpath,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (1u32..=64).prop_map(Op::Bits),
        Just(Op::Varuint32),
        Just(Op::Ubitvar),
        Just(Op::UbitvarFieldpath),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Fixed-width reads of random widths mixed with the refill-first reads
    /// (varuint32, ubitvar, field-path ubitvar), from a random offset in a
    /// short buffer so the reads cross into the last eight bytes, where the
    /// refill loads byte by byte: every value and position agrees with the
    /// bit-at-a-time model, and both run out at the same read. A failed
    /// fixed-width read leaves the position where it was.
    #[test]
    fn mixed_reads_match_a_bit_at_a_time_model(
        data in prop::collection::vec(any::<u8>(), 0..32),
        start in 0u64..80,
        ops in prop::collection::vec(op(), 1..48),
    ) {
        let mut r = BitReader::new(&data);
        if r.seek(start).is_err() {
            prop_assert!(start > data.len() as u64 * 8);
            return Ok(());
        }
        let mut model = Plain { data: &data, pos: start };
        for op in ops {
            let before = r.position();
            let (got, want) = match op {
                Op::Bits(width) => (r.read_bits(width).ok(), model.bits(width)),
                Op::Varuint32 => (
                    r.read_varuint32().ok().map(u64::from),
                    model.varuint32().map(u64::from),
                ),
                Op::Ubitvar => (
                    r.read_ubitvar().ok().map(u64::from),
                    model.ubitvar().map(u64::from),
                ),
                Op::UbitvarFieldpath => (
                    r.read_ubitvar_fieldpath().ok().map(u64::from),
                    model.ubitvar_fieldpath().map(u64::from),
                ),
            };
            prop_assert_eq!(got, want, "{:?} at bit {}", op, before);
            match got {
                Some(_) => prop_assert_eq!(r.position(), model.pos, "{:?} at bit {}", op, before),
                None => {
                    if let Op::Bits(_) = op {
                        prop_assert_eq!(r.position(), before);
                    }
                    break;
                }
            }
            prop_assert_eq!(r.bits_remaining(), data.len() as u64 * 8 - r.position());
        }
    }
}
