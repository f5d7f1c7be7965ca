//! Every reader of gamewire-bits over arbitrary bytes: each read returns a
//! value or an error, never panics, and the reader's position stays inside
//! the input and only moves forward.
//!
//! Input layout: byte 0 = starting bit offset (mod 64), byte 1 = number of
//! operation bytes that follow (mod 32), then the operation bytes (each picks
//! a reader), then the data read.
#![no_main]

use gamewire_bits::serialize::{ReadStream, Stream};
use gamewire_bits::{BitError, BitReader, QuantizedFloat, Result};
use libfuzzer_sys::fuzz_target;

fn run(op: u8, r: &mut BitReader<'_>) -> Result<()> {
    match op % 40 {
        0 => r.read_bits(u32::from(op) % 65).map(drop),
        1 => r.read_bool().map(drop),
        2 => r.read_u8().map(drop),
        3 => r.read_u16().map(drop),
        4 => r.read_u32().map(drop),
        5 => r.read_u64().map(drop),
        6 => r.read_varuint32().map(drop),
        7 => r.read_varint32().map(drop),
        8 => r.read_varuint64().map(drop),
        9 => r.read_varint64().map(drop),
        10 => r.read_ubitvar().map(drop),
        11 => r.read_ubitvar_fieldpath().map(drop),
        12 => r.read_component().map(drop),
        13 => r.read_f32().map(drop),
        14 => r.read_coord().map(drop),
        15 => r.read_normal().map(drop),
        16 => r.read_vec3_normal().map(drop),
        17 => r.read_angle(u32::from(op) % 33).map(drop),
        18 => r.read_angle_precise().map(drop),
        19 => r.read_qangle_precise().map(drop),
        20 => r.read_qangle_fixed(u32::from(op) % 33).map(drop),
        21 => r.read_qangle_coord().map(drop),
        22 => r.read_vector::<3>(|r| r.read_normal()).map(drop),
        23 => r.read_simulation_time(1.0 / 64.0).map(drop),
        24 => r.read_rune_time().map(drop),
        25 => r.read_ammo_count().map(drop),
        26 => r.read_string_fixed(usize::from(op) % 9).map(drop),
        27 => r.read_cstring().map(drop),
        28 => r.read_string_terminated().map(drop),
        29 => r.read_cstring_bytes(usize::from(op) % 7).map(drop),
        30 => r.read_bytes(usize::from(op) % 11).map(drop),
        31 => r.read_bytes_aligned(usize::from(op) % 5).map(drop),
        32 => r.read_bits_to_vec(u64::from(op) % 70).map(drop),
        33 => r.skip_bits(u64::from(op) % 100),
        34 => {
            let n = r.refill_lookahead().min(u32::from(op) % 57);
            let _ = r.peek(n);
            r.consume(n);
            Ok(())
        }
        35 => QuantizedFloat::new(
            Some(i32::from(op) % 33),
            Some(i32::from(op) % 16),
            Some(-3.0),
            Some(7.5),
        )?
        .decode(r)
        .map(drop),
        36 => {
            let mut s = ReadStream::from_reader(r.clone());
            let mut v = 0i64;
            s.serialize_int(&mut v, -1000, i64::from(op) * 1000)?;
            *r = s.into_reader();
            Ok(())
        }
        37 => {
            let mut s = ReadStream::from_reader(r.clone());
            let mut v = String::new();
            s.serialize_string(&mut v, usize::from(op))?;
            *r = s.into_reader();
            Ok(())
        }
        38 => {
            let mut s = ReadStream::from_reader(r.clone());
            let mut v = 0.0f32;
            s.serialize_compressed_float(&mut v, -50.0, 50.0, 0.01)?;
            s.serialize_check(0x1234_5678)?;
            *r = s.into_reader();
            Ok(())
        }
        _ => {
            let mut s = ReadStream::from_reader(r.clone());
            let mut v = 0u32;
            s.serialize_int_relative(u32::from(op), &mut v)?;
            *r = s.into_reader();
            Ok(())
        }
    }
}

fuzz_target!(|input: &[u8]| {
    let [start, count, rest @ ..] = input else {
        return;
    };
    let count = usize::from(*count % 32).min(rest.len());
    let (ops, data) = rest.split_at(count);
    let mut r = BitReader::new(data);
    if r.seek(u64::from(*start % 64)).is_err() {
        assert!(u64::from(*start % 64) > r.bit_len());
        return;
    }
    for &op in ops {
        let before = r.position();
        match run(op, &mut r) {
            Ok(()) => {
                assert!(r.position() >= before);
                assert!(r.position() <= r.bit_len());
                assert_eq!(r.position() + r.bits_remaining(), r.bit_len());
            }
            Err(BitError::UnexpectedEnd {
                bit_offset,
                requested,
                available,
            }) => {
                assert!(requested > available);
                assert_eq!(bit_offset + available, r.bit_len());
                break;
            }
            Err(_) => break,
        }
    }
});
