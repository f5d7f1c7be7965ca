//! Fiedler's unified serialize ("Serialization Strategies", gafferongames.com;
//! docs/formats/bit-serialize.md): the golden vector of
//! mas-bandwidth/serialize, refusal rules, and round trips through write,
//! measure and read.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use gamewire_bits::serialize::{
    self, bits_required, MeasureStream, ReadStream, Serialize, Stream, WriteStream,
};
use gamewire_bits::{BitError, BitWriter, Result};
use proptest::prelude::*;

/// The golden message of mas-bandwidth/serialize (`serialize.h`,
/// `GoldenWireData` / `GoldenWireSerialize`, described in `STANDARD.md`
/// "Worked Example"). The operations our streams do not have as primitives —
/// the wide string and the Q-format fixed-point fields — are spelled out
/// here with the standard's rules: a wide string is its length as
/// `serialize_int(len, 0, buffer_size - 1)` then one 32-bit group per UTF-16
/// unit, no alignment; a fixed-point field is `serialize_int` of the raw
/// (scaled) value over the raw bounds, wide offsets going out in 32-bit groups
/// from the bottom.
#[derive(Debug, Default, PartialEq)]
struct Golden {
    bits4: u32,
    bits11: u32,
    bits24: u32,
    bits32: u32,
    int_small: i32,
    int_full: i32,
    flag: bool,
    float_value: f32,
    compressed: f32,
    double_value: f64,
    uint8: u8,
    uint16: u16,
    uint32: u32,
    uint64: u64,
    relative_near: u32,
    relative_far: u32,
    bytes: [u8; 7],
    string: String,
    wstring: Vec<u32>,
    fixed_q8_8: i64,
    fixed_q16_16: i64,
    fixed_q48_16: i64,
    fixed_q16_16_unsigned: i64,
    fixed_q112_16: i128,
    fixed_q64_64: i128,
}

impl Golden {
    // The golden value is the literal 3.1415926f, not π.
    #[allow(clippy::approx_constant)]
    fn expected() -> Self {
        Golden {
            bits4: 13,
            bits11: 1445,
            bits24: 11_259_375,
            bits32: 0xDEAD_BEEF,
            int_small: -37,
            int_full: -123_456_789,
            flag: true,
            float_value: 3.141_592_6,
            compressed: 5.0,
            double_value: 1.0 / 3.0,
            uint8: 0x7F,
            uint16: 0x1234,
            uint32: 0x1234_5678,
            uint64: 0x1234_5678_9ABC_DEF0,
            relative_near: 101,
            relative_far: 2100,
            bytes: [0xDE, 0xAD, 0xBE, 0xEF, 0xCA, 0xFE, 0x01],
            string: "golden".into(),
            wstring: vec![0x043C, 0x0438, 0x0440],
            fixed_q8_8: -(3 * 256 + 64),
            fixed_q16_16: 1234 * 65536 + 32768,
            fixed_q48_16: -(54321 * 65536 + 12345),
            fixed_q16_16_unsigned: 29999 * 65536 + 65535,
            fixed_q112_16: -(98_765_432_109i128 * 65536 + 4321),
            fixed_q64_64: (0x0123_4567_89AB_CDEFi128 << 64) + 0x0FED_CBA9_8765_4321,
        }
    }
}

/// A Q-format field over 128-bit raw bounds: the offset `raw - raw_min` in the
/// unsigned domain, in `bits` bits, 64 at a time from the bottom (each 64-bit
/// call is itself low 32 then high 32).
fn serialize_wide_fixed<S: Stream>(
    s: &mut S,
    raw: &mut i128,
    raw_min: i128,
    bits: u32,
) -> Result<()> {
    let mut offset = (*raw as u128).wrapping_sub(raw_min as u128);
    let mut low = offset as u64;
    let mut high = (offset >> 64) as u64;
    s.serialize_bits(&mut low, bits.min(64))?;
    s.serialize_bits(&mut high, bits.saturating_sub(64))?;
    if S::IS_READING {
        offset = u128::from(low) | (u128::from(high) << 64);
        *raw = offset.wrapping_add(raw_min as u128) as i128;
    }
    Ok(())
}

impl Serialize for Golden {
    fn serialize<S: Stream>(&mut self, s: &mut S) -> Result<()> {
        s.serialize_bits(&mut self.bits4, 4)?;
        s.serialize_bits(&mut self.bits11, 11)?;
        s.serialize_bits(&mut self.bits24, 24)?;
        s.serialize_bits(&mut self.bits32, 32)?;
        s.serialize_int(&mut self.int_small, -100, 100)?;
        s.serialize_int(&mut self.int_full, i32::MIN, i32::MAX)?;
        s.serialize_bool(&mut self.flag)?;
        s.serialize_float(&mut self.float_value)?;
        s.serialize_compressed_float(&mut self.compressed, 0.0, 10.0, 0.01)?;
        s.serialize_double(&mut self.double_value)?;
        s.serialize_bits(&mut self.uint8, 8)?;
        s.serialize_bits(&mut self.uint16, 16)?;
        s.serialize_bits(&mut self.uint32, 32)?;
        s.serialize_bits(&mut self.uint64, 64)?;
        s.serialize_int_relative(100, &mut self.relative_near)?;
        s.serialize_int_relative(100, &mut self.relative_far)?;
        s.serialize_align()?;
        s.serialize_bytes(&mut self.bytes)?;
        // char[16]: at most 15 bytes before the terminator.
        s.serialize_string(&mut self.string, 15)?;
        // wchar_t[8]: length in [0, 7], then 32-bit groups, no alignment.
        let mut len = self.wstring.len();
        s.serialize_int(&mut len, 0, 7)?;
        self.wstring.resize(len, 0);
        for unit in &mut self.wstring {
            s.serialize_bits(unit, 32)?;
        }
        s.serialize_align()?;
        s.serialize_int(&mut self.fixed_q8_8, -100 << 8, 100 << 8)?;
        s.serialize_int(&mut self.fixed_q16_16, -2000 << 16, 2000 << 16)?;
        s.serialize_int(&mut self.fixed_q48_16, -100_000 << 16, 100_000 << 16)?;
        s.serialize_int(&mut self.fixed_q16_16_unsigned, 0, 30_000 << 16)?;
        s.serialize_align()?;
        // Q112.16 over ±2^57 units: raw range 2^74, 75 bits.
        serialize_wide_fixed(s, &mut self.fixed_q112_16, -(1i128 << 73), 75)?;
        // Q64.64 over the whole i64 unit range: 128 bits.
        serialize_wide_fixed(s, &mut self.fixed_q64_64, i128::MIN, 128)?;
        Ok(())
    }
}

/// `golden_wire_bytes` of mas-bandwidth/serialize `serialize.h`
/// (`test_golden_wire_format`); STANDARD.md decodes bytes 59..72 (the wide
/// string) and 72..74 (the Q8.8 field) by hand.
const GOLDEN_WIRE_BYTES: [u8; 112] = [
    0x5D, 0xDA, 0xF7, 0xE6, 0xD5, 0x77, 0xDF, 0x56, 0xEF, 0x9F, 0x75, 0x19, 0x52, 0xBC, 0xDA, 0x0F,
    0x49, 0x40, 0xF4, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0xFF, 0xFC, 0xD1, 0x48, 0xE0, 0x59,
    0xD1, 0x48, 0xC0, 0x7B, 0xF3, 0x6A, 0xE2, 0x59, 0xD1, 0x48, 0x84, 0xB7, 0x06, 0xDE, 0xAD, 0xBE,
    0xEF, 0xCA, 0xFE, 0x01, 0x06, 0x67, 0x6F, 0x6C, 0x64, 0x65, 0x6E, 0xE3, 0x21, 0x00, 0x00, 0xC0,
    0x21, 0x00, 0x00, 0x00, 0x22, 0x00, 0x00, 0x00, 0xC0, 0x60, 0x00, 0x80, 0xA2, 0x7C, 0xFC, 0xEC,
    0x26, 0xCB, 0xFF, 0xFF, 0x4B, 0x1D, 0x1F, 0xEF, 0xD2, 0x1A, 0x1F, 0x01, 0xE9, 0xFF, 0xFF, 0x09,
    0x19, 0x2A, 0x3B, 0x4C, 0x5D, 0x6E, 0x7F, 0x78, 0x6F, 0x5E, 0x4D, 0x3C, 0x2B, 0x1A, 0x09, 0x04,
];

#[test]
fn golden_vector_write_is_byte_exact() {
    let bytes = serialize::write(&mut Golden::expected()).unwrap();
    assert_eq!(bytes.len(), GOLDEN_WIRE_BYTES.len());
    assert_eq!(bytes, GOLDEN_WIRE_BYTES);
}

#[test]
fn golden_vector_reads_back() {
    let golden: Golden = serialize::read(&GOLDEN_WIRE_BYTES).unwrap();
    assert_eq!(golden, Golden::expected());
}

#[test]
fn golden_vector_measure_is_exact_and_bound_is_conservative() {
    let mut stream = MeasureStream::new();
    Golden::expected().serialize(&mut stream).unwrap();
    // 13 aligned bytes before the wide section, then 75 + 128 bits: 891 bits.
    assert_eq!(stream.bits(), 891);
    assert_eq!(stream.bytes(), 112);
    assert!(stream.bound_bits() >= stream.bits());
}

#[test]
fn golden_wide_string_run_matches_standard() {
    // STANDARD.md "Worked Example": the wide string alone, from an aligned start.
    let mut w = WriteStream::new();
    let mut len = 3usize;
    w.serialize_int(&mut len, 0, 7).unwrap();
    for mut unit in [0x043Cu32, 0x0438, 0x0440] {
        w.serialize_bits(&mut unit, 32).unwrap();
    }
    w.serialize_align().unwrap();
    assert_eq!(
        w.finish(),
        [0xE3, 0x21, 0x00, 0x00, 0xC0, 0x21, 0x00, 0x00, 0x00, 0x22, 0x00, 0x00, 0x00]
    );
}

#[test]
fn three_ten_twenty_four_bits() {
    // The bit packer's walk-through in Fiedler's "Reading and Writing Packets"
    // (gafferongames.com): 3 + 10 + 24 = 37 bits flush one 32-bit word
    // and leave 5 bits, which the final flush writes as a fifth byte.
    let mut w = BitWriter::new();
    w.write_bits(0b101, 3).unwrap();
    w.write_bits(0x3FF, 10).unwrap();
    w.write_bits(0xABCDEF, 24).unwrap();
    let bytes = w.finish();
    assert_eq!(bytes.len(), 5);
    let expected: u64 = 0b101 | (0x3FF << 3) | (0xABCDEF << 13);
    assert_eq!(bytes, expected.to_le_bytes()[..5]);
}

// ---- refusal rules --------------------------------------------------------

#[test]
fn read_int_out_of_range_is_rejected_with_offset() {
    // [0, 32] needs 6 bits; 33..=63 are in the bit headroom and must fail.
    let mut w = BitWriter::new();
    w.write_bits(1, 3).unwrap(); // 3 bits of prefix
    w.write_bits(40, 6).unwrap();
    let bytes = w.finish();
    let mut r = ReadStream::new(&bytes);
    let mut prefix = 0u8;
    r.serialize_bits(&mut prefix, 3).unwrap();
    let mut n = 0i32;
    let err = r.serialize_int(&mut n, 0, 32).unwrap_err();
    assert_eq!(
        err,
        BitError::OutOfRange {
            bit_offset: 3,
            value: 40,
            min: 0,
            max: 32
        }
    );
}

#[test]
fn write_int_out_of_range_is_an_error() {
    let mut w = WriteStream::new();
    let err = w.serialize_int(&mut 33i32, 0, 32).unwrap_err();
    assert!(matches!(err, BitError::OutOfRange { value: 33, .. }));
    let mut m = MeasureStream::new();
    assert!(m.serialize_int(&mut -1i64, 0, 32).is_err());
    assert!(w.serialize_int(&mut 0i32, 5, 4).is_err());
}

#[test]
fn degenerate_range_costs_zero_bits() {
    let mut m = MeasureStream::new();
    m.serialize_int(&mut 7i32, 7, 7).unwrap();
    assert_eq!(m.bits(), 0);
    let mut v = 0i32;
    ReadStream::new(&[])
        .serialize_int(&mut v, 7, 7)
        .expect("zero bits need no input");
    assert_eq!(v, 7);
}

#[test]
fn nonzero_padding_is_rejected() {
    // One bit, then padding with bit 3 set.
    let bytes = [0b0000_1001u8, 0xAA];
    let mut r = ReadStream::new(&bytes);
    let mut b = false;
    r.serialize_bool(&mut b).unwrap();
    assert_eq!(
        r.serialize_align().unwrap_err(),
        BitError::NonZeroPadding { bit_offset: 1 }
    );
    // serialize_bytes aligns too, with the same check.
    let mut r = ReadStream::new(&bytes);
    r.serialize_bool(&mut b).unwrap();
    let mut out = [0u8; 1];
    assert!(matches!(
        r.serialize_bytes(&mut out),
        Err(BitError::NonZeroPadding { .. })
    ));
}

#[test]
fn check_marker_mismatch_is_rejected() {
    let mut w = WriteStream::new();
    w.serialize_bool(&mut true).unwrap();
    w.serialize_check(0x1234_5678).unwrap();
    let bytes = w.finish();
    assert_eq!(bytes.len(), 5);
    let mut r = ReadStream::new(&bytes);
    r.serialize_bool(&mut false).unwrap();
    r.serialize_check(0x1234_5678).unwrap();
    let mut r = ReadStream::new(&bytes);
    r.serialize_bool(&mut false).unwrap();
    assert_eq!(
        r.serialize_check(0xCAFE_BABE).unwrap_err(),
        BitError::CheckMismatch {
            bit_offset: 8,
            expected: 0xCAFE_BABE,
            found: 0x1234_5678
        }
    );
}

#[test]
fn strings_refuse_nul_invalid_utf8_and_excess_length() {
    // Writer side.
    let mut w = WriteStream::new();
    assert!(w.serialize_string(&mut "a\0b".to_string(), 15).is_err());
    assert!(matches!(
        w.serialize_string(&mut "sixteen bytes!!!".to_string(), 15),
        Err(BitError::OutOfRange { value: 16, .. })
    ));
    // Reader side: length 2 in 4 bits, align, then the bytes.
    let frame = |payload: [u8; 2]| {
        let mut w = BitWriter::new();
        w.write_bits(2, 4).unwrap();
        w.align();
        w.write_bytes(&payload);
        w.finish()
    };
    let mut s = String::new();
    let bytes = frame([b'o', b'k']);
    ReadStream::new(&bytes)
        .serialize_string(&mut s, 15)
        .unwrap();
    assert_eq!(s, "ok");
    let bytes = frame([b'a', 0]);
    assert_eq!(
        ReadStream::new(&bytes)
            .serialize_string(&mut s, 15)
            .unwrap_err(),
        BitError::InvalidString {
            bit_offset: 8,
            reason: "interior NUL byte"
        }
    );
    let bytes = frame([0xC3, 0x28]);
    assert!(matches!(
        ReadStream::new(&bytes).serialize_string(&mut s, 15),
        Err(BitError::InvalidString {
            reason: "invalid UTF-8",
            ..
        })
    ));
    // A length longer than the input fails before allocating.
    let mut w = BitWriter::new();
    w.write_bits(60_000, 16).unwrap();
    let bytes = w.finish();
    assert!(matches!(
        ReadStream::new(&bytes).serialize_string(&mut s, 65_535),
        Err(BitError::UnexpectedEnd {
            bit_offset: 16,
            requested: 480_000,
            available: 0
        })
    ));
}

#[test]
fn compressed_float_reader_refuses_headroom() {
    // [0, 10] at 0.01: max integer 1000 in 10 bits; 1001..=1023 are invalid.
    let mut w = BitWriter::new();
    w.write_bits(1001, 10).unwrap();
    let bytes = w.finish();
    let mut v = 0.0f32;
    assert!(matches!(
        ReadStream::new(&bytes).serialize_compressed_float(&mut v, 0.0, 10.0, 0.01),
        Err(BitError::OutOfRange { value: 1001, .. })
    ));
    // Writers refuse non-finite values and bad declarations.
    let mut w = WriteStream::new();
    let mut nan = f32::NAN;
    assert!(w
        .serialize_compressed_float(&mut nan, 0.0, 10.0, 0.01)
        .is_err());
    assert!(w
        .serialize_compressed_float(&mut 1.0, 10.0, 0.0, 0.01)
        .is_err());
    assert!(w
        .serialize_compressed_float(&mut 1.0, 0.0, 10.0, 0.0)
        .is_err());
}

#[test]
fn compressed_float_pins_between_quanta_vectors() {
    // STANDARD.md: these land between quanta; only two f32 roundings give them.
    for (value, integer) in [(0.005f32, 1u32), (0.025, 3), (0.105, 11), (9.995, 1000)] {
        let mut w = WriteStream::new();
        w.serialize_compressed_float(&mut value.clone(), 0.0, 10.0, 0.01)
            .unwrap();
        let bytes = w.finish();
        let mut r = gamewire_bits::BitReader::new(&bytes);
        assert_eq!(r.read_bits(10).unwrap(), u64::from(integer), "{value}");
    }
}

#[test]
fn int_relative_tiers_and_refusals() {
    for (current, bits) in [
        (101u32, 1u64),
        (106, 2 + 3),
        (123, 3 + 5),
        (380, 4 + 9),
        (4477, 5 + 13),
        (70014, 6 + 17),
        (70015, 6 + 32),
    ] {
        let mut m = MeasureStream::new();
        m.serialize_int_relative(100, &mut current.clone()).unwrap();
        assert_eq!(m.bits(), bits, "{current}");
        let mut w = WriteStream::new();
        w.serialize_int_relative(100, &mut current.clone()).unwrap();
        let bytes = w.finish();
        let mut back = 0;
        ReadStream::new(&bytes)
            .serialize_int_relative(100, &mut back)
            .unwrap();
        assert_eq!(back, current);
    }
    assert!(WriteStream::new()
        .serialize_int_relative(100, &mut 100)
        .is_err());
    // Raw tier with a value not above `previous`.
    let mut w = BitWriter::new();
    w.write_bits(0, 6).unwrap();
    w.write_bits(50, 32).unwrap();
    let bytes = w.finish();
    assert!(ReadStream::new(&bytes)
        .serialize_int_relative(100, &mut 0)
        .is_err());
}

#[test]
fn serialize_bits_wider_than_the_type_is_an_error() {
    let mut v = 0u8;
    assert_eq!(
        WriteStream::new().serialize_bits(&mut v, 9).unwrap_err(),
        BitError::TooManyBits { requested: 9 }
    );
    assert!(WriteStream::new().serialize_bits(&mut 4u8, 2).is_err());
}

// ---- an example message, round-tripped --------------------------------------

#[derive(Debug, Default, Clone, PartialEq)]
struct Snapshot {
    sequence: u16,
    entity_count: u8,
    positions: Vec<(i32, i32)>,
    firing: bool,
    health: f32,
    note: String,
    payload: [u8; 3],
}

const MAX_ENTITIES: u8 = 12;

impl Serialize for Snapshot {
    fn serialize<S: Stream>(&mut self, s: &mut S) -> Result<()> {
        s.serialize_bits(&mut self.sequence, 16)?;
        s.serialize_int(&mut self.entity_count, 0, MAX_ENTITIES)?;
        self.positions
            .resize(usize::from(self.entity_count), (0, 0));
        for (x, y) in &mut self.positions {
            s.serialize_int(x, -4096, 4095)?;
            s.serialize_int(y, -4096, 4095)?;
        }
        s.serialize_bool(&mut self.firing)?;
        s.serialize_compressed_float(&mut self.health, 0.0, 100.0, 0.25)?;
        s.serialize_check(0x600D_F00D)?;
        s.serialize_string(&mut self.note, 63)?;
        s.serialize_bytes(&mut self.payload)
    }
}

fn snapshot_strategy() -> impl Strategy<Value = Snapshot> {
    (
        any::<u16>(),
        prop::collection::vec((-4096i32..=4095, -4096i32..=4095), 0..=12),
        any::<bool>(),
        0u32..=400,
        "[a-z ]{0,63}",
        any::<[u8; 3]>(),
    )
        .prop_map(
            |(sequence, positions, firing, health, note, payload)| Snapshot {
                sequence,
                entity_count: positions.len() as u8,
                positions,
                firing,
                // A value the stream reproduces exactly: a decoded quantum.
                health: serialize::CompressedFloat::new(0.0, 100.0, 0.25)
                    .unwrap()
                    .dequantize(health),
                note,
                payload,
            },
        )
}

proptest! {
    #[test]
    fn snapshot_round_trips_and_measure_is_exact(snapshot in snapshot_strategy()) {
        let mut message = snapshot.clone();
        let bytes = serialize::write(&mut message).unwrap();
        let bits = serialize::measure(&mut message).unwrap();
        prop_assert_eq!(bytes.len() as u64, bits.div_ceil(8));
        let back: Snapshot = serialize::read(&bytes).unwrap();
        prop_assert_eq!(back, snapshot);
    }

    #[test]
    fn snapshot_reader_never_panics_on_random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        // Whatever the bytes, the read ends in a value or an error.
        let result: Result<Snapshot> = serialize::read(&bytes);
        if let Ok(s) = result {
            prop_assert!(s.entity_count <= MAX_ENTITIES);
            prop_assert!(s.note.len() <= 63);
        }
    }

    #[test]
    fn truncated_snapshot_is_an_error(snapshot in snapshot_strategy(), cut in 1usize..16) {
        let bytes = serialize::write(&mut snapshot.clone()).unwrap();
        let cut = cut.min(bytes.len());
        let result: Result<Snapshot> = serialize::read(&bytes[..bytes.len() - cut]);
        prop_assert!(result.is_err());
    }

    #[test]
    fn measure_matches_write_at_any_start(prefix in 0u32..64, snapshot in snapshot_strategy()) {
        let mut w = WriteStream::from_writer({
            let mut w = BitWriter::new();
            w.write_bits(0, prefix).unwrap();
            w
        });
        let mut message = snapshot.clone();
        message.serialize(&mut w).unwrap();
        let written = w.writer().bits_written() - u64::from(prefix);
        let mut m = MeasureStream::starting_at(u64::from(prefix));
        message.serialize(&mut m).unwrap();
        prop_assert_eq!(m.bits(), written);
        prop_assert!(m.bound_bits() >= written);
    }

    #[test]
    fn int_round_trips_any_range(a in any::<i64>(), b in any::<i64>(), pick in any::<u64>()) {
        let (min, max) = if a <= b { (a, b) } else { (b, a) };
        let range = (i128::from(max) - i128::from(min)) as u128;
        let value = (i128::from(min) + (u128::from(pick) % (range + 1)) as i128) as i64;
        let mut w = WriteStream::new();
        w.serialize_int(&mut value.clone(), min, max).unwrap();
        prop_assert_eq!(w.writer().bits_written(), u64::from(bits_required(range as u64)));
        let bytes = w.finish();
        let mut back = 0i64;
        let mut r = ReadStream::new(&bytes);
        r.serialize_int(&mut back, min, max).unwrap();
        prop_assert_eq!(back, value);
        prop_assert_eq!(r.bit_position(), u64::from(bits_required(range as u64)));
    }

    #[test]
    fn compressed_float_round_trip_is_within_half_a_step(value in -10.0f32..110.0) {
        let params = serialize::CompressedFloat::new(0.0, 100.0, 0.1).unwrap();
        let mut w = WriteStream::new();
        w.serialize_compressed_float_with(&mut value.clone(), &params).unwrap();
        let bytes = w.finish();
        let mut back = 0.0;
        ReadStream::new(&bytes).serialize_compressed_float_with(&mut back, &params).unwrap();
        prop_assert_eq!(back, params.dequantize(params.quantize(value)));
        let clamped = value.clamp(0.0, 100.0);
        prop_assert!((back - clamped).abs() <= 0.05 + 1e-4);
    }

    #[test]
    fn float_and_double_keep_every_bit(f in any::<u32>(), d in any::<u64>()) {
        let mut w = WriteStream::new();
        w.serialize_float(&mut f32::from_bits(f)).unwrap();
        w.serialize_double(&mut f64::from_bits(d)).unwrap();
        let bytes = w.finish();
        let mut r = ReadStream::new(&bytes);
        let (mut f2, mut d2) = (0.0f32, 0.0f64);
        r.serialize_float(&mut f2).unwrap();
        r.serialize_double(&mut d2).unwrap();
        prop_assert_eq!(f2.to_bits(), f);
        prop_assert_eq!(d2.to_bits(), d);
    }
}
