//! Round trips of every Source 2 base type (docs/formats/source2-base-types.md)
//! through the writer and the reader, at random starting bit offsets, checking
//! the value and the bit position after the read; plus known vectors of each
//! encoding.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use gamewire_bits::quantized::{
    QFF_ENCODE_INTEGERS_EXACTLY, QFF_ENCODE_ZERO_EXACTLY, QFF_ROUND_DOWN, QFF_ROUND_UP,
};
use gamewire_bits::types::{
    zigzag_decode32, zigzag_decode64, zigzag_encode32, zigzag_encode64, NORMAL_DENOMINATOR,
};
use gamewire_bits::write_types::{
    quantize_angle, quantize_angle_precise, quantize_coord, quantize_normal, quantize_vec3_normal,
    COORD_MAX,
};
use gamewire_bits::{BitError, BitReader, BitWriter, QuantizedFloat, Result};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Where a value sits in a test buffer: after `prefix_bits` random bits and
/// before random trailing bytes; `seek` chooses how the reader gets there.
#[derive(Debug, Clone)]
struct Frame {
    prefix: u64,
    prefix_bits: u32,
    suffix: Vec<u8>,
    seek: bool,
}

fn frame() -> impl Strategy<Value = Frame> {
    (
        any::<u64>(),
        0u32..=64,
        prop::collection::vec(any::<u8>(), 0..12),
        any::<bool>(),
    )
        .prop_map(|(prefix, prefix_bits, suffix, seek)| Frame {
            prefix: if prefix_bits == 64 {
                prefix
            } else {
                prefix & ((1u64 << prefix_bits) - 1)
            },
            prefix_bits,
            suffix,
            seek,
        })
}

/// Writes the frame around `write`, reads back with `read`, and checks the
/// reader ends exactly where the writer did. Returns the value read and the
/// number of bits the value took.
fn round_trip<T>(
    frame: &Frame,
    write: impl FnOnce(&mut BitWriter) -> Result<()>,
    read: impl FnOnce(&mut BitReader<'_>) -> Result<T>,
) -> std::result::Result<(T, u64), TestCaseError> {
    let mut w = BitWriter::new();
    w.write_bits(frame.prefix, frame.prefix_bits).unwrap();
    let start = w.bits_written();
    write(&mut w).map_err(|e| TestCaseError::fail(format!("write failed: {e}")))?;
    let end = w.bits_written();
    w.write_bytes(&frame.suffix);
    let bytes = w.finish();

    let mut r = BitReader::new(&bytes);
    if frame.seek {
        r.seek(start).unwrap();
    } else {
        prop_assert_eq!(r.read_bits(frame.prefix_bits).unwrap(), frame.prefix);
    }
    prop_assert_eq!(r.position(), start);
    let value = read(&mut r).map_err(|e| TestCaseError::fail(format!("read failed: {e}")))?;
    prop_assert_eq!(r.position(), end, "position after the read");
    Ok((value, end - start))
}

fn finite_f32() -> impl Strategy<Value = f32> {
    any::<u32>()
        .prop_map(f32::from_bits)
        .prop_filter("finite", |f| f.is_finite())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn bits(f in frame(), count in 0u32..=64, raw in any::<u64>()) {
        let value = if count == 64 { raw } else { raw & ((1u64 << count) - 1) };
        let (back, len) = round_trip(&f, |w| w.write_bits(value, count), |r| r.read_bits(count))?;
        prop_assert_eq!(back, value);
        prop_assert_eq!(len, u64::from(count));
    }

    #[test]
    fn fixed_width_integers(f in frame(), b in any::<bool>(), a in any::<u8>(), c in any::<u16>(), d in any::<u32>(), e in any::<u64>()) {
        let (back, len) = round_trip(
            &f,
            |w| {
                w.write_bool(b);
                w.write_u8(a);
                w.write_u16(c);
                w.write_u32(d);
                w.write_u64(e);
                Ok(())
            },
            |r| Ok((r.read_bool()?, r.read_u8()?, r.read_u16()?, r.read_u32()?, r.read_u64()?)),
        )?;
        prop_assert_eq!(back, (b, a, c, d, e));
        prop_assert_eq!(len, 1 + 8 + 16 + 32 + 64);
    }

    #[test]
    fn varuint32(f in frame(), v in any::<u32>()) {
        let (back, len) = round_trip(&f, |w| { w.write_varuint32(v); Ok(()) }, |r| r.read_varuint32())?;
        prop_assert_eq!(back, v);
        let bytes = (32 - v.leading_zeros()).div_ceil(7).max(1);
        prop_assert_eq!(len, u64::from(bytes) * 8);
    }

    #[test]
    fn varint32(f in frame(), v in any::<i32>()) {
        let (back, _) = round_trip(&f, |w| { w.write_varint32(v); Ok(()) }, |r| r.read_varint32())?;
        prop_assert_eq!(back, v);
    }

    #[test]
    fn varuint64(f in frame(), v in any::<u64>()) {
        let (back, len) = round_trip(&f, |w| { w.write_varuint64(v); Ok(()) }, |r| r.read_varuint64())?;
        prop_assert_eq!(back, v);
        let bytes = (64 - v.leading_zeros()).div_ceil(7).max(1);
        prop_assert_eq!(len, u64::from(bytes) * 8);
    }

    #[test]
    fn varint64(f in frame(), v in any::<i64>()) {
        let (back, _) = round_trip(&f, |w| { w.write_varint64(v); Ok(()) }, |r| r.read_varint64())?;
        prop_assert_eq!(back, v);
    }

    #[test]
    fn zigzag_is_a_bijection(a in any::<i32>(), b in any::<i64>()) {
        prop_assert_eq!(zigzag_decode32(zigzag_encode32(a)), a);
        prop_assert_eq!(zigzag_decode64(zigzag_encode64(b)), b);
    }

    #[test]
    fn ubitvar_shortest_form(f in frame(), v in any::<u32>()) {
        let (back, len) = round_trip(&f, |w| { w.write_ubitvar(v); Ok(()) }, |r| r.read_ubitvar())?;
        prop_assert_eq!(back, v);
        let expected = match v { 0..=0xf => 6, 0x10..=0xff => 10, 0x100..=0xfff => 14, _ => 34 };
        prop_assert_eq!(len, expected);
    }

    #[test]
    fn ubitvar_fieldpath(f in frame(), v in 0u32..0x8000_0000) {
        let (back, len) = round_trip(&f, |w| w.write_ubitvar_fieldpath(v), |r| r.read_ubitvar_fieldpath())?;
        prop_assert_eq!(back, v);
        let expected = match v { 0..=3 => 3, 4..=15 => 6, 16..=1023 => 13, 1024..=0x1_ffff => 21, _ => 35 };
        prop_assert_eq!(len, expected);
    }

    #[test]
    fn component(f in frame(), v in 0u32..=1) {
        let (back, len) = round_trip(&f, |w| w.write_component(v), |r| r.read_component())?;
        prop_assert_eq!(back, v);
        prop_assert_eq!(len, 1);
    }

    #[test]
    fn f32_keeps_every_bit(f in frame(), raw in any::<u32>()) {
        let (back, _) = round_trip(&f, |w| { w.write_f32(f32::from_bits(raw)); Ok(()) }, |r| r.read_f32())?;
        prop_assert_eq!(back.to_bits(), raw);
    }

    #[test]
    fn coord_decodes_to_quantize(f in frame(), v in -COORD_MAX..=COORD_MAX) {
        let (back, _) = round_trip(&f, |w| w.write_coord(v), |r| r.read_coord())?;
        prop_assert_eq!(back.to_bits(), quantize_coord(v).unwrap().to_bits());
        prop_assert!((back - v).abs() < 1.0 / 32.0);
    }

    #[test]
    fn coord_representable_values_are_exact(f in frame(), k in -524_319i32..=524_319) {
        // Every multiple of 1/32 with magnitude at most 16384 + 31/32.
        let v = k as f32 / 32.0;
        let (back, _) = round_trip(&f, |w| w.write_coord(v), |r| r.read_coord())?;
        prop_assert_eq!(back, v);
    }

    #[test]
    fn normal_decodes_to_quantize(f in frame(), v in -1.5f32..1.5) {
        let (back, len) = round_trip(&f, |w| w.write_normal(v), |r| r.read_normal())?;
        prop_assert_eq!(back.to_bits(), quantize_normal(v).unwrap().to_bits());
        prop_assert_eq!(len, 12);
        prop_assert!((back - v.clamp(-1.0, 1.0)).abs() <= 0.5 / NORMAL_DENOMINATOR + 1e-6);
    }

    #[test]
    fn normal_representable_values_are_exact(f in frame(), m in 0u32..2048, negative in any::<bool>()) {
        let magnitude = m as f32 * (1.0 / NORMAL_DENOMINATOR);
        let v = if negative && m != 0 { -magnitude } else { magnitude };
        let (back, _) = round_trip(&f, |w| w.write_normal(v), |r| r.read_normal())?;
        prop_assert_eq!(back, v);
    }

    #[test]
    fn vec3_normal_decodes_to_quantize(f in frame(), x in -1.0f32..1.0, y in -1.0f32..1.0, z in -1.0f32..1.0) {
        let v = [x, y, z];
        let (back, _) = round_trip(&f, |w| w.write_vec3_normal(v), |r| r.read_vec3_normal())?;
        prop_assert_eq!(back, quantize_vec3_normal(v).unwrap());
    }

    #[test]
    fn angle_decodes_to_quantize(f in frame(), bits in 0u32..=32, v in -1000.0f32..1000.0) {
        let (back, len) = round_trip(&f, |w| w.write_angle(v, bits), |r| r.read_angle(bits))?;
        prop_assert_eq!(back.to_bits(), quantize_angle(v, bits).unwrap().to_bits());
        prop_assert_eq!(len, u64::from(bits));
        prop_assert!((0.0..360.0).contains(&back));
    }

    #[test]
    // Up to 20 bits a step (360 / 2^20) is wider than an f32 ulp near 360, so
    // decoded angles identify their step; beyond that f32 cannot tell steps apart.
    fn angle_decoded_values_re_encode_to_the_same_step(bits in 1u32..=20, raw in any::<u64>()) {
        let raw = raw & ((1u64 << bits) - 1);
        let mut w = BitWriter::new();
        w.write_bits(raw, bits).unwrap();
        let decoded = BitReader::new(&w.finish()).read_angle(bits).unwrap();
        let mut w = BitWriter::new();
        w.write_angle(decoded, bits).unwrap();
        let again = BitReader::new(&w.finish()).read_angle(bits).unwrap();
        prop_assert_eq!(again, decoded);
    }

    #[test]
    fn angle_precise_decodes_to_quantize(f in frame(), v in -180.0f32..180.0) {
        let (back, len) = round_trip(&f, |w| w.write_angle_precise(v), |r| r.read_angle_precise())?;
        prop_assert_eq!(back.to_bits(), quantize_angle_precise(v).unwrap().to_bits());
        prop_assert_eq!(len, 20);
        prop_assert!((back - v).abs() <= 360.0 / (1u32 << 20) as f32);
    }

    #[test]
    fn qangle_precise(f in frame(), v in prop::array::uniform3(prop_oneof![Just(0.0f32), -180.0f32..180.0])) {
        let (back, _) = round_trip(&f, |w| w.write_qangle_precise(v), |r| r.read_qangle_precise())?;
        let expected = v.map(|c| if c == 0.0 { 0.0 } else { quantize_angle_precise(c).unwrap() });
        prop_assert_eq!(back, expected);
    }

    #[test]
    fn qangle_fixed(f in frame(), bits in 0u32..=32, v in prop::array::uniform3(-720.0f32..720.0)) {
        let (back, len) = round_trip(&f, |w| w.write_qangle_fixed(v, bits), |r| r.read_qangle_fixed(bits))?;
        prop_assert_eq!(back, v.map(|c| quantize_angle(c, bits).unwrap()));
        prop_assert_eq!(len, 3 * u64::from(bits));
    }

    #[test]
    fn qangle_coord(f in frame(), v in prop::array::uniform3(prop_oneof![Just(0.0f32), -COORD_MAX..=COORD_MAX])) {
        let (back, _) = round_trip(&f, |w| w.write_qangle_coord(v), |r| r.read_qangle_coord())?;
        prop_assert_eq!(back, v.map(|c| quantize_coord(c).unwrap()));
    }

    #[test]
    fn vector_of_floats(f in frame(), v in prop::array::uniform4(finite_f32())) {
        let (back, len) = round_trip(
            &f,
            |w| w.write_vector(v, |w, c| { w.write_f32(c); Ok(()) }),
            |r| r.read_vector::<4>(|r| r.read_f32()),
        )?;
        prop_assert_eq!(back, v);
        prop_assert_eq!(len, 128);
    }

    #[test]
    fn simulation_time(f in frame(), ticks in 0u32..(1 << 24), dota in any::<bool>()) {
        let interval = if dota { 1.0 / 30.0 } else { 1.0 / 64.0 };
        let v = ticks as f32 * interval;
        let (back, _) = round_trip(&f, |w| w.write_simulation_time(v, interval), |r| r.read_simulation_time(interval))?;
        prop_assert_eq!(back, v);
    }

    #[test]
    fn rune_time(f in frame(), raw in 0u32..16) {
        let v = f32::from_bits(raw);
        let (back, len) = round_trip(&f, |w| w.write_rune_time(v), |r| r.read_rune_time())?;
        prop_assert_eq!(back.to_bits(), raw);
        prop_assert_eq!(len, 4);
    }

    #[test]
    fn ammo_count(f in frame(), v in 0u32..u32::MAX) {
        let (back, _) = round_trip(&f, |w| w.write_ammo_count(v), |r| r.read_ammo_count())?;
        prop_assert_eq!(back, v);
    }

    #[test]
    fn string_fixed(f in frame(), s in ".{0,40}") {
        let (back, len) = round_trip(&f, |w| { w.write_string_fixed(&s); Ok(()) }, |r| r.read_string_fixed(s.len()))?;
        prop_assert_eq!(len, s.len() as u64 * 8);
        prop_assert_eq!(back, s);
    }

    #[test]
    fn cstring(f in frame(), s in "[^\u{0}]{0,40}") {
        let (back, len) = round_trip(&f, |w| w.write_cstring(&s), |r| r.read_cstring())?;
        prop_assert_eq!(len, (s.len() as u64 + 1) * 8);
        prop_assert_eq!(back, s);
    }

    #[test]
    fn string_terminated(f in frame(), s in "[^\u{0}]{0,40}") {
        let (back, _) = round_trip(&f, |w| w.write_string_terminated(&s), |r| r.read_string_terminated())?;
        prop_assert_eq!(back, s);
    }

    #[test]
    fn bytes_aligned_and_not(f in frame(), data in prop::collection::vec(any::<u8>(), 0..100)) {
        let (back, len) = round_trip(&f, |w| { w.write_bytes(&data); Ok(()) }, |r| r.read_bytes(data.len()))?;
        prop_assert_eq!(len, data.len() as u64 * 8);
        prop_assert_eq!(back, data.clone());
        let (back, _) = round_trip(&f, |w| { w.write_bytes(&data); Ok(()) }, |r| {
            let mut out = vec![0u8; data.len()];
            r.read_bytes_into(&mut out)?;
            Ok(out)
        })?;
        prop_assert_eq!(back, data);
    }

    #[test]
    fn bits_to_vec(f in frame(), data in prop::collection::vec(any::<u8>(), 1..20), cut in 0u32..8) {
        // The last byte keeps only its low `8 - cut` bits.
        let count = data.len() as u64 * 8 - u64::from(cut);
        let mut expected = data.clone();
        if let Some(last) = expected.last_mut() {
            *last &= ((1u16 << (8 - cut)) - 1) as u8;
        }
        let (back, len) = round_trip(
            &f,
            |w| {
                let (head, last) = expected.split_at(expected.len() - 1);
                w.write_bytes(head);
                w.write_bits(u64::from(last[0]), 8 - cut)
            },
            |r| r.read_bits_to_vec(count),
        )?;
        prop_assert_eq!(len, count);
        prop_assert_eq!(back, expected);
    }

    #[test]
    fn quantized_float_decodes_to_encoded_value(
        f in frame(),
        bits in 1i32..=31,
        flags in 0i32..16,
        low in -1000.0f32..1000.0,
        span in 0.001f32..2000.0,
        t in -0.2f32..1.2,
        exact in 0u8..4,
    ) {
        let high = low + span;
        let Ok(qf) = QuantizedFloat::new(Some(bits), Some(flags), Some(low), Some(high)) else {
            // Invalid parameters fail at construction: round down with round up.
            prop_assert_eq!(flags & 3, 3);
            return Ok(());
        };
        // Hit the escape values as well as points inside and outside the range.
        let v = match exact {
            0 => low,
            1 => high,
            2 => 0.0,
            _ => low + t * span,
        };
        let (back, _) = round_trip(&f, |w| qf.encode(w, v), |r| qf.decode(r))?;
        prop_assert_eq!(back.to_bits(), qf.encoded_value(v).to_bits());
        if qf.flags & QFF_ENCODE_ZERO_EXACTLY != 0 && v == 0.0 {
            prop_assert_eq!(back, 0.0);
        }
        if qf.flags & QFF_ROUND_DOWN != 0 && v <= qf.low {
            prop_assert_eq!(back, qf.low);
        }
        if qf.flags & QFF_ROUND_UP != 0 && v >= qf.high {
            prop_assert_eq!(back, qf.high);
        }
    }

    /// `value_of_step` is the fused multiply-add `step * scale + low` in
    /// `f64`, rounded to `f32`, bit for bit, for any step, scale and low
    /// value: non-finite scales too, and scales and lows built so that a
    /// plain multiply and add rounds differently.
    #[test]
    fn quantized_value_of_step_is_the_fused_multiply_add(
        step in 0u64..(1 << 31),
        scale_bits in any::<u64>(),
        low in any::<f32>().prop_filter("finite", |l| l.is_finite()),
        kind in 0u8..6,
        shift in 0i32..60,
    ) {
        let (scale, low) = match kind {
            // Any double at all (NaN and infinities included).
            0 => (f64::from_bits(scale_bits), low),
            // A power of two: the product is exact.
            1 => (2f64.powi(shift - 40), low),
            // `step * scale` just above the f32 value `low` and `low`
            // taken off again: the exact value is tiny and the product's
            // rounding error, large beside it, shows in a plain multiply
            // and add (it differs from the fused one in most of these).
            2 => {
                let t = f64::from(low) * 2f64.powi(-shift) * 1e-7;
                ((f64::from(low) + t) / step.max(1) as f64, -low)
            }
            // `low` cancels a product of exactly `-low`: a value of zero.
            3 => {
                let scale = 2f64.powi(shift - 40);
                (scale, -((step as f64 * scale) as f32))
            }
            // `low` cancels the rounded product, not the exact one: the
            // value is the product's rounding error.
            4 => (-f64::from(low) / step.max(1) as f64, low),
            // A scale whose product carries more than 53 significant bits.
            _ => (
                (1.0 + f64::from_bits(scale_bits >> 12 | 0x3ff0_0000_0000_0000) * 1e-9)
                    * 2f64.powi(shift - 30),
                low,
            ),
        };
        let qf = QuantizedFloat {
            scale,
            low,
            ..QuantizedFloat::new(Some(8), None, None, None).unwrap()
        };
        let fused = (step as f64).mul_add(scale, f64::from(low)) as f32;
        prop_assert_eq!(qf.value_of_step(step).to_bits(), fused.to_bits());
    }

    #[test]
    fn quantized_float_raw_keeps_every_bit(f in frame(), raw in any::<u32>()) {
        let qf = QuantizedFloat::new(Some(32), None, None, None).unwrap();
        let (back, len) = round_trip(&f, |w| qf.encode(w, f32::from_bits(raw)), |r| qf.decode(r))?;
        prop_assert_eq!(back.to_bits(), raw);
        prop_assert_eq!(len, 32);
    }
}

/// Zeros from `value_of_step`, each with the sign the fused multiply-add
/// gives it: a product cancelled exactly (step 64 of a [-4, 4] range in
/// 1/16 steps, as CS2 and Deadlock velocities are), zero steps, negative
/// zeros, and a cancellation that leaves the product's rounding error.
#[test]
fn quantized_value_of_step_zeros_carry_the_fused_sign() {
    let base = QuantizedFloat::new(Some(8), None, None, None).unwrap();
    let cases: [(u64, f64, f32); 6] = [
        (64, 0.0625, -4.0),
        (0, 0.0625, 0.0),
        (0, -1.0, -0.0),
        (0, 1.0, -0.0),
        (0, -1.0, 0.0),
        (3, 0.1, -0.3),
    ];
    for (step, scale, low) in cases {
        let qf = QuantizedFloat { scale, low, ..base };
        let fused = (step as f64).mul_add(scale, f64::from(low)) as f32;
        assert_eq!(
            qf.value_of_step(step).to_bits(),
            fused.to_bits(),
            "step {step}, scale {scale}, low {low}"
        );
    }
}

#[test]
fn quantized_float_integers_exact_round_trip() {
    let qf = QuantizedFloat::new(
        Some(7),
        Some(QFF_ENCODE_INTEGERS_EXACTLY as i32),
        Some(-50.0),
        Some(50.0),
    )
    .unwrap();
    for i in -50..=50 {
        let mut w = BitWriter::new();
        qf.encode(&mut w, i as f32).unwrap();
        assert_eq!(
            qf.decode(&mut BitReader::new(&w.finish())).unwrap(),
            i as f32
        );
    }
    let mut w = BitWriter::new();
    assert!(qf.encode(&mut w, f32::NAN).is_err());
    // Round up with -1..0: the high end is exactly 0 and has an escape.
    let qf =
        QuantizedFloat::new(Some(4), Some(QFF_ROUND_UP as i32), Some(-1.0), Some(0.0)).unwrap();
    assert_eq!(qf.encoded_value(5.0), qf.high);
}

// ---- known vectors of each encoding ------------------------------------------

fn bits_of(fields: &[(u64, u32)]) -> Vec<u8> {
    let mut w = BitWriter::new();
    for &(value, count) in fields {
        w.write_bits(value, count).unwrap();
    }
    w.finish()
}

#[test]
fn varint_vectors() {
    // Protobuf's own example (protobuf.dev, "Encoding", Base 128 Varints): 300 = AC 02.
    assert_eq!(BitReader::new(&[0xAC, 0x02]).read_varuint32().unwrap(), 300);
    let mut w = BitWriter::new();
    w.write_varuint32(300);
    assert_eq!(w.finish(), [0xAC, 0x02]);
    assert_eq!(BitReader::new(&[0x01]).read_varuint32().unwrap(), 1);
    assert_eq!(
        BitReader::new(&[0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
            .read_varuint32()
            .unwrap(),
        u32::MAX
    );
    // The loop stops at 35 bits even if the fifth byte continues, as the
    // engine's reader does (docs/formats/source2-base-types.md, "varuint32").
    let mut r = BitReader::new(&[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]);
    assert_eq!(r.read_varuint32().unwrap(), u32::MAX);
    assert_eq!(r.position(), 40);
    // The same near the end of input (slow path).
    let mut r = BitReader::new(&[0xFF, 0xFF, 0xFF, 0xFF, 0x7F]);
    assert_eq!(r.read_varuint32().unwrap(), u32::MAX);
    assert_eq!(r.position(), 40);
    // varuint64: ten bytes, the last carrying bit 63.
    let max = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01];
    assert_eq!(BitReader::new(&max).read_varuint64().unwrap(), u64::MAX);
    let mut w = BitWriter::new();
    w.write_varuint64(u64::MAX);
    assert_eq!(w.finish(), max);
}

#[test]
fn varuint64_overflow() {
    // Tenth byte above 1: bits beyond 63.
    let mut data = [0x80u8; 10];
    data[9] = 0x02;
    let mut r = BitReader::new(&data);
    assert_eq!(
        r.read_varuint64().unwrap_err(),
        BitError::VarintOverflow { bit_offset: 0 }
    );
    // Eleven bytes (all continuing): a loop without a limit would run on; we stop.
    // (All ones, so every byte read from bit 3 on continues too.)
    let data = [0xFFu8; 16];
    let mut r = BitReader::new(&data);
    r.read_bits(3).unwrap();
    assert_eq!(
        r.read_varuint64().unwrap_err(),
        BitError::VarintOverflow { bit_offset: 3 }
    );
    assert!(BitReader::new(&data).read_varint64().is_err());
}

#[test]
fn zigzag_vectors() {
    // Protobuf's ZigZag table (protobuf.dev, "Encoding": value >> 1, NOT if odd).
    for (encoded, decoded) in [
        (0u32, 0i32),
        (1, -1),
        (2, 1),
        (3, -2),
        (4294967294, 2147483647),
        (4294967295, -2147483648),
    ] {
        assert_eq!(zigzag_decode32(encoded), decoded);
        assert_eq!(zigzag_encode32(decoded), encoded);
        assert_eq!(zigzag_decode64(u64::from(encoded)), i64::from(decoded));
    }
    // varint32 of -1 is the single byte 0x01.
    assert_eq!(BitReader::new(&[0x01]).read_varint32().unwrap(), -1);
    assert_eq!(BitReader::new(&[0x03]).read_varint64().unwrap(), -2);
}

#[test]
fn ubitvar_vectors() {
    // Selector 00: the 6-bit value itself.
    assert_eq!(
        BitReader::new(&bits_of(&[(0b00_1011, 6)]))
            .read_ubitvar()
            .unwrap(),
        0b1011
    );
    // Selector 01 (16): low nibble 5, then 4 bits 0xA above it.
    assert_eq!(
        BitReader::new(&bits_of(&[(0x15, 6), (0xA, 4)]))
            .read_ubitvar()
            .unwrap(),
        0xA5
    );
    // Selector 10 (32): 8 more bits.
    assert_eq!(
        BitReader::new(&bits_of(&[(0x2F, 6), (0xAB, 8)]))
            .read_ubitvar()
            .unwrap(),
        0xABF
    );
    // Selector 11 (48): 28 more bits.
    let bytes = bits_of(&[(0x31, 6), (0x0FFF_FFFF, 28)]);
    let mut r = BitReader::new(&bytes);
    assert_eq!(r.read_ubitvar().unwrap(), 0xFFFF_FFF1);
    assert_eq!(r.position(), 34);
    // The writer's shortest forms give the same bits.
    let mut w = BitWriter::new();
    w.write_ubitvar(0xA5);
    assert_eq!(w.finish(), bits_of(&[(0x15, 6), (0xA, 4)]));
}

#[test]
fn fieldpath_vectors() {
    // <1> then 2 bits; <01> then 4; <001> then 10; <0001> then 17; <0000> then 31.
    // (fields as (value, bit count), decoded value, bits consumed)
    type Case = (&'static [(u64, u32)], u32, u64);
    let cases: [Case; 5] = [
        (&[(1, 1), (3, 2)], 3, 3),
        (&[(0b10, 2), (9, 4)], 9, 6),
        (&[(0b100, 3), (1000, 10)], 1000, 13),
        (&[(0b1000, 4), (100_000, 17)], 100_000, 21),
        (&[(0b0000, 4), (0x7FFF_FFFF, 31)], 0x7FFF_FFFF, 35),
    ];
    for (fields, value, len) in cases {
        let bytes = bits_of(fields);
        let mut r = BitReader::new(&bytes);
        assert_eq!(r.read_ubitvar_fieldpath().unwrap(), value);
        assert_eq!(r.position(), len);
        let mut w = BitWriter::new();
        w.write_ubitvar_fieldpath(value).unwrap();
        assert_eq!(w.finish(), bytes);
    }
    assert!(BitWriter::new()
        .write_ubitvar_fieldpath(0x8000_0000)
        .is_err());
}

#[test]
fn coord_vectors() {
    // has_int, has_frac, sign, 14-bit integer minus one, 5-bit fraction.
    let bytes = bits_of(&[(1, 1), (1, 1), (1, 1), (4, 14), (16, 5)]);
    assert_eq!(BitReader::new(&bytes).read_coord().unwrap(), -5.5);
    let mut w = BitWriter::new();
    w.write_coord(-5.5).unwrap();
    assert_eq!(w.finish(), bytes);
    // Neither part: zero in two bits.
    let mut r = BitReader::new(&[0]);
    assert_eq!(r.read_coord().unwrap(), 0.0);
    assert_eq!(r.position(), 2);
    // Fraction only: 0.25 = 8/32.
    assert_eq!(
        BitReader::new(&bits_of(&[(0, 1), (1, 1), (0, 1), (8, 5)]))
            .read_coord()
            .unwrap(),
        0.25
    );
    // Integer only, largest: 16383 + 1.
    assert_eq!(
        BitReader::new(&bits_of(&[(1, 1), (0, 1), (0, 1), (16383, 14)]))
            .read_coord()
            .unwrap(),
        16384.0
    );
    assert_eq!(quantize_coord(-0.01), Some(0.0));
    assert_eq!(quantize_coord(1.999), Some(1.96875));
    assert!(BitWriter::new().write_coord(16385.0).is_err());
    assert!(BitWriter::new().write_coord(f32::INFINITY).is_err());
}

#[test]
fn normal_vectors() {
    // The magnitude is length / 2047 (docs/formats/source2-base-types.md,
    // "Normal"; manta's `reader.go`).
    assert_eq!(
        BitReader::new(&bits_of(&[(0, 1), (2047, 11)]))
            .read_normal()
            .unwrap(),
        1.0
    );
    assert_eq!(
        BitReader::new(&bits_of(&[(1, 1), (2047, 11)]))
            .read_normal()
            .unwrap(),
        -1.0
    );
    assert_eq!(
        BitReader::new(&bits_of(&[(0, 1), (0, 11)]))
            .read_normal()
            .unwrap(),
        0.0
    );
    let half = BitReader::new(&bits_of(&[(0, 1), (1023, 11)]))
        .read_normal()
        .unwrap();
    assert!((half - 1023.0 / 2047.0).abs() < 1e-7);
    // vec3: x = 1 present, y absent, z positive: z = sqrt(1 - 1) = 0.
    let v = BitReader::new(&bits_of(&[(1, 1), (0, 1), (0, 1), (2047, 11), (0, 1)]))
        .read_vec3_normal()
        .unwrap();
    assert_eq!(v, [1.0, 0.0, 0.0]);
    // Neither present, z negative: (0, 0, -1).
    let v = BitReader::new(&bits_of(&[(0, 2), (1, 1)]))
        .read_vec3_normal()
        .unwrap();
    assert_eq!(v, [0.0, 0.0, -1.0]);
}

#[test]
fn angle_and_game_type_vectors() {
    // 8-bit angle 64 of 256 = 90 degrees.
    assert_eq!(BitReader::new(&[64]).read_angle(8).unwrap(), 90.0);
    // Precise: 2^19 of 2^20 = 180, minus 180 = 0.
    assert_eq!(
        BitReader::new(&bits_of(&[(1 << 19, 20)]))
            .read_angle_precise()
            .unwrap(),
        0.0
    );
    assert_eq!(
        BitReader::new(&bits_of(&[(0, 20)]))
            .read_angle_precise()
            .unwrap(),
        -180.0
    );
    assert_eq!(
        BitReader::new(&[0]).read_angle(33).unwrap_err(),
        BitError::TooManyBits { requested: 33 }
    );
    assert_eq!(quantize_angle(360.0, 8), Some(0.0));
    assert_eq!(quantize_angle(-90.0, 8), Some(270.0));
    // Simulation time: 128 ticks at 1/64 s = 2 s; at Dota's 1/30 s = 4.2666...
    assert_eq!(
        BitReader::new(&[0x80, 0x01])
            .read_simulation_time(1.0 / 64.0)
            .unwrap(),
        2.0
    );
    assert_eq!(
        BitReader::new(&[0x80, 0x01])
            .read_simulation_time(1.0 / 30.0)
            .unwrap(),
        128.0 / 30.0
    );
    // Rune time: the 4 bits are an f32 bit pattern, not an integer.
    assert_eq!(
        BitReader::new(&[0x03]).read_rune_time().unwrap().to_bits(),
        3
    );
    assert!(BitWriter::new().write_rune_time(1.0).is_err());
    // Ammo count: varuint minus one, never below zero.
    assert_eq!(BitReader::new(&[0]).read_ammo_count().unwrap(), 0);
    assert_eq!(BitReader::new(&[1]).read_ammo_count().unwrap(), 0);
    assert_eq!(BitReader::new(&[5]).read_ammo_count().unwrap(), 4);
    assert!(BitWriter::new().write_ammo_count(u32::MAX).is_err());
    // Component: one bit, and only 0 or 1 can be written.
    assert!(BitWriter::new().write_component(2).is_err());
}

#[test]
fn string_vectors() {
    let mut r = BitReader::new(b"abc\0def\0");
    assert_eq!(r.read_cstring().unwrap(), "abc");
    assert_eq!(r.read_string_terminated().unwrap(), "def");
    assert_eq!(r.position(), 64);
    assert_eq!(
        BitReader::new(b"hello").read_string_fixed(5).unwrap(),
        "hello"
    );
    // Invalid UTF-8 is replaced, not an error (the parsers feed it to display).
    assert_eq!(
        BitReader::new(&[0xFF, 0]).read_cstring().unwrap(),
        "\u{FFFD}"
    );
    assert!(BitWriter::new().write_cstring("a\0b").is_err());
    assert!(BitWriter::new()
        .write_string_terminated(&"x".repeat(4097))
        .is_err());
    let mut w = BitWriter::new();
    w.write_string_terminated(&"x".repeat(4096)).unwrap();
    let bytes = w.finish();
    assert_eq!(
        BitReader::new(&bytes)
            .read_string_terminated()
            .unwrap()
            .len(),
        4096
    );
}
