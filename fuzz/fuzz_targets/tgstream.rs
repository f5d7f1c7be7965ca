//! TGBufferStream from a hostile peer: every reader of gamewire-tgstream
//! and the field-list decoder over arbitrary bytes. Each read returns a
//! value or an error and never panics; the position stays inside the input.
//!
//! Input layout: byte 0 = number of operation bytes that follow (mod 32),
//! then the operation bytes, then the data. An operation byte of 200 or
//! more instead decodes the rest of the data with a field list made of the
//! operation bytes after it (each picks one field kind).
#![no_main]

use gamewire_tgstream::fields::{decode_fields, parse_field_list};
use gamewire_tgstream::Reader;
use libfuzzer_sys::fuzz_target;

const KINDS: [&str; 15] = [
    "u8", "i8", "u16", "i32", "u32", "f32", "bool", "cf16", "cvec3", "cvec4", "cvec4f", "str16",
    "bit*9", "bytes:3", "cf16*2",
];

fuzz_target!(|input: &[u8]| {
    let Some((&n, rest)) = input.split_first() else {
        return;
    };
    let n = usize::from(n % 32).min(rest.len());
    let (ops, data) = rest.split_at(n);
    let mut r = Reader::new(data);
    for (i, &op) in ops.iter().enumerate() {
        if op >= 200 {
            let spec: Vec<&str> = ops[i + 1..]
                .iter()
                .map(|&k| KINDS[usize::from(k) % KINDS.len()])
                .collect();
            if let Ok(list) = parse_field_list(&spec.join(",")) {
                let (fields, _, end) = decode_fields(data, &list);
                assert!(end <= data.len() && fields.len() <= list.len());
            }
            return;
        }
        let before = r.position();
        let ok = match op % 14 {
            0 => r.read_u8().is_ok(),
            1 => r.read_i8().is_ok(),
            2 => r.read_u16().is_ok(),
            3 => r.read_i32().is_ok(),
            4 => r.read_u32().is_ok(),
            5 => r.read_f32().is_ok(),
            6 => r.read_bytes(usize::from(op) % 9).is_ok(),
            7 => r.read_string16().is_ok(),
            8 => r.read_bit().is_ok(),
            9 => r.read_bit_located().is_ok(),
            10 => r.read_cf16().is_ok(),
            11 => r.read_cvec3().is_ok(),
            12 => r.read_cvec4_cf16().is_ok(),
            _ => r.read_cvec4_f32().is_ok(),
        };
        assert!(r.position() <= data.len());
        assert!(r.position() >= before || !ok);
    }
});
