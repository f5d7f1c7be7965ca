//! Property tests: round trips of every primitive (value and position), the
//! CompressedFloat16 error bounds, and random bytes into every reader.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use gamewire_tgstream::fields::{decode_fields, FieldKind};
use gamewire_tgstream::{
    Cf16, CompressedVector3, CompressedVector4, Magnitude, Reader, StreamError, Writer,
};
use proptest::prelude::*;

/// One write, and the read that must give it back.
#[derive(Debug, Clone)]
enum Op {
    Byte(u8),
    I8(i8),
    Bit(bool),
    Short(u16),
    Int(i32),
    UInt(u32),
    Float(u32),
    Bytes(Vec<u8>),
    Str(Vec<u8>),
    Cf16(u16),
    CVec3([i8; 3]),
    CVec4Cf16([i8; 3], u16),
    CVec4F32([i8; 3], u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => any::<u8>().prop_map(Op::Byte),
        1 => any::<i8>().prop_map(Op::I8),
        // Bits are weighted up so that groups fill, overflow and interleave.
        4 => any::<bool>().prop_map(Op::Bit),
        1 => any::<u16>().prop_map(Op::Short),
        1 => any::<i32>().prop_map(Op::Int),
        1 => any::<u32>().prop_map(Op::UInt),
        1 => any::<u32>().prop_map(Op::Float),
        1 => proptest::collection::vec(any::<u8>(), 0..12).prop_map(Op::Bytes),
        1 => proptest::collection::vec(any::<u8>(), 0..12).prop_map(Op::Str),
        1 => any::<u16>().prop_map(Op::Cf16),
        1 => any::<[i8; 3]>().prop_map(Op::CVec3),
        1 => (any::<[i8; 3]>(), any::<u16>()).prop_map(|(d, m)| Op::CVec4Cf16(d, m)),
        1 => (any::<[i8; 3]>(), any::<u32>()).prop_map(|(d, m)| Op::CVec4F32(d, m)),
    ]
}

fn write(w: &mut Writer, op: &Op) {
    match op {
        Op::Byte(v) => w.write_u8(*v),
        Op::I8(v) => w.write_i8(*v),
        Op::Bit(v) => w.write_bit(*v),
        Op::Short(v) => w.write_u16(*v),
        Op::Int(v) => w.write_i32(*v),
        Op::UInt(v) => w.write_u32(*v),
        Op::Float(bits) => w.write_f32(f32::from_bits(*bits)),
        Op::Bytes(b) => w.write_bytes(b),
        Op::Str(b) => w.try_write_string16(b).unwrap(),
        Op::Cf16(c) => w.write_cf16(Cf16::from_bits(*c)),
        Op::CVec3(dir) => w.write_cvec3(CompressedVector3 { dir: *dir }),
        Op::CVec4Cf16(dir, m) => w.write_cvec4(CompressedVector4 {
            dir: *dir,
            magnitude: Magnitude::Cf16(Cf16::from_bits(*m)),
        }),
        Op::CVec4F32(dir, m) => w.write_cvec4(CompressedVector4 {
            dir: *dir,
            magnitude: Magnitude::F32(f32::from_bits(*m)),
        }),
    }
}

/// Reads `op`'s type back and checks the value; returns the read error if any.
fn read_and_check(r: &mut Reader<'_>, op: &Op) -> Result<(), StreamError> {
    match op {
        Op::Byte(v) => assert_eq!(r.read_u8()?, *v),
        Op::I8(v) => assert_eq!(r.read_i8()?, *v),
        Op::Bit(v) => assert_eq!(r.read_bit()?, *v),
        Op::Short(v) => assert_eq!(r.read_u16()?, *v),
        Op::Int(v) => assert_eq!(r.read_i32()?, *v),
        Op::UInt(v) => assert_eq!(r.read_u32()?, *v),
        Op::Float(bits) => assert_eq!(r.read_f32()?.to_bits(), *bits),
        Op::Bytes(b) => assert_eq!(r.read_bytes(b.len())?, b.as_slice()),
        Op::Str(b) => assert_eq!(r.read_string16()?, b.as_slice()),
        Op::Cf16(c) => assert_eq!(r.read_cf16()?.to_bits(), *c),
        Op::CVec3(dir) => assert_eq!(r.read_cvec3()?.dir, *dir),
        Op::CVec4Cf16(dir, m) => {
            let v = r.read_cvec4_cf16()?;
            assert_eq!(v.dir, *dir);
            assert_eq!(v.magnitude, Magnitude::Cf16(Cf16::from_bits(*m)));
        }
        Op::CVec4F32(dir, m) => {
            let v = r.read_cvec4_f32()?;
            assert_eq!(v.dir, *dir);
            match v.magnitude {
                Magnitude::F32(x) => assert_eq!(x.to_bits(), *m),
                Magnitude::Cf16(_) => panic!("wrong magnitude kind"),
            }
        }
    }
    Ok(())
}

fn ulp(x: f32) -> f64 {
    f64::from(f32::from_bits(x.to_bits() + 1)) - f64::from(x)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Every primitive comes back with the same value, and the reader's
    /// position after each read equals the writer's after the same write,
    /// bits that land in an earlier group byte included.
    #[test]
    fn every_primitive_round_trips_with_positions(ops in proptest::collection::vec(op(), 0..40)) {
        let mut w = Writer::new();
        let mut positions = Vec::with_capacity(ops.len());
        for op in &ops {
            write(&mut w, op);
            positions.push(w.position());
        }
        let bytes = w.into_bytes();
        let mut r = Reader::new(&bytes);
        for (op, &position) in ops.iter().zip(&positions) {
            read_and_check(&mut r, op).unwrap();
            prop_assert_eq!(r.position(), position, "after {:?}", op);
        }
        prop_assert_eq!(r.remaining(), 0);
    }

    /// Cutting the buffer short makes some read fail, at or before the cut,
    /// and never panics.
    #[test]
    fn truncated_streams_fail_cleanly(ops in proptest::collection::vec(op(), 1..30), cut in any::<prop::sample::Index>()) {
        let mut w = Writer::new();
        for op in &ops {
            write(&mut w, op);
        }
        let bytes = w.into_bytes();
        prop_assume!(!bytes.is_empty());
        let len = cut.index(bytes.len());
        let mut r = Reader::new(&bytes[..len]);
        let mut failure = None;
        for op in &ops {
            let before = r.position();
            if let Err(e) = read_and_check(&mut r, op) {
                prop_assert_eq!(r.position(), before, "a failed read moved the reader");
                failure = Some(e);
                break;
            }
        }
        let e = failure.expect("reading a truncated stream succeeded");
        prop_assert!(e.offset() <= len);
        if let StreamError::UnexpectedEnd { offset, needed, available, .. } = e {
            prop_assert_eq!(available, len - offset);
            prop_assert!(needed > available);
        }
    }

    /// Random bytes into every reader: errors, never a panic; a failed read
    /// leaves the position alone, a successful one moves it by its size.
    #[test]
    fn random_bytes_into_every_reader(data in proptest::collection::vec(any::<u8>(), 0..64), picks in proptest::collection::vec(0u8..13, 0..40), n in 0usize..80) {
        let mut r = Reader::new(&data);
        for pick in picks {
            let before = r.position();
            let (result, size): (Result<(), StreamError>, Option<usize>) = match pick {
                0 => (r.read_u8().map(drop), Some(1)),
                1 => (r.read_i8().map(drop), Some(1)),
                2 => (r.read_bit().map(drop), None),
                3 => (r.read_u16().map(drop), Some(2)),
                4 => (r.read_i32().map(drop), Some(4)),
                5 => (r.read_u32().map(drop), Some(4)),
                6 => (r.read_f32().map(drop), Some(4)),
                7 => (r.read_bytes(n).map(drop), Some(n)),
                8 => (r.read_string16().map(drop), None),
                9 => (r.read_cf16().map(|c| assert!(c.decode().is_finite())), Some(2)),
                10 => (r.read_cvec3().map(|v| assert!(v.decode().iter().all(|c| c.abs() <= 128.0 / 127.0))), Some(3)),
                11 => (r.read_cvec4_cf16().map(|v| assert!(v.decode().iter().all(|c| c.is_finite()))), Some(5)),
                _ => (r.read_cvec4_f32().map(|v| assert_eq!(v.wire_size(), 7)), Some(7)),
            };
            match result {
                Ok(()) => {
                    if let Some(size) = size {
                        prop_assert_eq!(r.position(), before + size);
                    }
                    prop_assert!(r.position() <= data.len());
                }
                Err(e) => {
                    prop_assert_eq!(r.position(), before);
                    prop_assert!(e.offset() <= data.len());
                    prop_assert!(!e.to_string().is_empty());
                }
            }
        }
    }

    /// The same through the field-list decoder.
    #[test]
    fn random_bytes_into_the_field_decoder(data in proptest::collection::vec(any::<u8>(), 0..64), picks in proptest::collection::vec(0u8..13, 1..40)) {
        let kinds: Vec<FieldKind> = picks.iter().map(|p| match p {
            0 => FieldKind::Byte, 1 => FieldKind::I8, 2 => FieldKind::Bit, 3 => FieldKind::Short,
            4 => FieldKind::Int32, 5 => FieldKind::UInt32, 6 => FieldKind::Float, 7 => FieldKind::Cf16,
            8 => FieldKind::CVec3, 9 => FieldKind::CVec4Cf16, 10 => FieldKind::CVec4F32,
            11 => FieldKind::String16, _ => FieldKind::Bytes(usize::from(*p)),
        }).collect();
        let (fields, error, end) = decode_fields(&data, &kinds);
        prop_assert!(end <= data.len());
        match error {
            None => prop_assert_eq!(fields.len(), kinds.len()),
            Some(e) => {
                prop_assert_eq!(e.index, fields.len());
                prop_assert_eq!(e.kind, kinds[e.index]);
                prop_assert_eq!(e.error.offset(), end);
            }
        }
        for f in &fields {
            prop_assert!(f.offset < data.len());
            prop_assert!(!f.value.to_string().is_empty());
        }
    }

    /// CF16 rounds down by at most one mantissa step. Exactly so up to the
    /// float32 rounding of the game's arithmetic: the decode can exceed the
    /// input by at most 2 ulps, and fall short by at most one step plus one
    /// ulp (see `cf16_exhaustive.rs` for the exact counts over every f32).
    #[test]
    fn cf16_rounds_down_within_one_step(x in 0.0f32..=10000.0) {
        let code = Cf16::encode(x);
        let d = code.decode();
        prop_assert!(f64::from(d) <= f64::from(x) + 2.0 * ulp(x), "{} -> {:#06x} -> {}", x, code.to_bits(), d);
        prop_assert!(f64::from(x) - f64::from(d) <= f64::from(code.step()) + ulp(x), "{} -> {:#06x} -> {}", x, code.to_bits(), d);
        prop_assert!(code.to_bits() <= 0x7FFE);
    }

    /// Away from the grid points, where float32 rounding cannot matter, the
    /// decode is strictly at or below the input.
    #[test]
    fn cf16_decode_never_exceeds_input_off_grid(x in 0.0f32..=10000.0) {
        let code = Cf16::encode(x);
        let d = code.decode();
        let next = Cf16::from_bits(code.to_bits() + 1).decode();
        prop_assume!(f64::from(x) - f64::from(d) > 4.0 * ulp(x));
        prop_assume!(f64::from(next) - f64::from(x) > 4.0 * ulp(x));
        prop_assert!(d <= x);
        prop_assert!(x < next);
    }

    /// The sign is symmetric: -x encodes as x with bit 15 set and decodes to
    /// the negation.
    #[test]
    fn cf16_sign_is_symmetric(x in any::<f32>().prop_filter("not NaN", |x| !x.is_nan())) {
        let pos = Cf16::encode(x.abs());
        let neg = Cf16::encode(-x.abs());
        if x != 0.0 {
            prop_assert_eq!(neg.to_bits(), pos.to_bits() | 0x8000);
        }
        prop_assert_eq!(neg.decode(), -pos.decode());
    }

    /// The exact-input encoder agrees with the f32 one on every f32.
    #[test]
    fn cf16_exact_and_f32_encoders_agree_on_f32_input(bits in any::<u32>()) {
        let x = f32::from_bits(bits);
        prop_assert_eq!(Cf16::encode_exact(f64::from(x)), Cf16::encode(x));
    }

    /// A compressed vector comes back within one direction step per
    /// component (plus the magnitude's own error), and its direction bytes
    /// stay in -127..=127.
    #[test]
    fn compressed_vectors_round_trip(v in proptest::array::uniform3(-5000.0f32..5000.0)) {
        let len = f64::from((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt());
        let v3 = CompressedVector3::encode(v);
        let v4c = CompressedVector4::encode_cf16(v);
        let v4f = CompressedVector4::encode_f32(v);
        for d in [v3.dir, v4c.dir, v4f.dir] {
            prop_assert!(d.iter().all(|&b| b != i8::MIN));
        }
        let mut w = Writer::new();
        w.write_cvec3(v3);
        w.write_cvec4(v4c);
        w.write_cvec4(v4f);
        prop_assert_eq!(w.position(), 3 + 5 + 7);
        let bytes = w.into_bytes();
        let mut r = Reader::new(&bytes);
        prop_assert_eq!(r.read_cvec3().unwrap(), v3);
        prop_assert_eq!(r.read_cvec4_cf16().unwrap(), v4c);
        prop_assert_eq!(r.read_cvec4_f32().unwrap(), v4f);
        prop_assume!(len > 1e-3);
        let dir_error = 1.0 / 127.0 + 1e-5;
        let unit = v3.decode();
        let with_f32 = v4f.decode();
        let with_cf16 = v4c.decode();
        let cf16_step = match v4c.magnitude { Magnitude::Cf16(c) => f64::from(c.step()), Magnitude::F32(_) => 0.0 };
        for i in 0..3 {
            let exact = f64::from(v[i]) / len;
            prop_assert!((f64::from(unit[i]) - exact).abs() <= dir_error);
            prop_assert!((f64::from(with_f32[i]) - f64::from(v[i])).abs() <= len * dir_error);
            prop_assert!((f64::from(with_cf16[i]) - f64::from(v[i])).abs() <= len * dir_error + cf16_step * 1.01);
        }
    }
}
