//! The read loops shared by the `reader` (criterion) and `interleaved`
//! benchmarks: ours and `bitter`'s, each reading a whole buffer to its end.

use bitter::{BitReader as _, LittleEndianReader};
use gamewire_bits::BitReader;

/// Bytes of input per benchmark.
pub const DATA_LEN: usize = 64 << 20;

/// xorshift64*: deterministic, fast, good enough for benchmark input.
pub fn random_data(len: usize) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        out.extend_from_slice(&state.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    out.truncate(len);
    out
}

pub fn ours_bits(data: &[u8], bits: u32) -> u64 {
    let mut r = BitReader::new(data);
    let mut acc = 0u64;
    while let Ok(v) = r.read_bits(bits) {
        acc = acc.wrapping_add(v);
    }
    acc
}

pub fn bitter_bits(data: &[u8], bits: u32) -> u64 {
    let mut r = LittleEndianReader::new(data);
    let mut acc = 0u64;
    while let Some(v) = r.read_bits(bits) {
        acc = acc.wrapping_add(v);
    }
    acc
}

pub fn ours_bool(data: &[u8]) -> u64 {
    let mut r = BitReader::new(data);
    let mut acc = 0u64;
    while let Ok(v) = r.read_bool() {
        acc += u64::from(v);
    }
    acc
}

pub fn bitter_bool(data: &[u8]) -> u64 {
    let mut r = LittleEndianReader::new(data);
    let mut acc = 0u64;
    while let Some(v) = r.read_bit() {
        acc += u64::from(v);
    }
    acc
}

pub fn ours_varuint32(data: &[u8]) -> u64 {
    let mut r = BitReader::new(data);
    let mut acc = 0u64;
    while let Ok(v) = r.read_varuint32() {
        acc = acc.wrapping_add(u64::from(v));
    }
    acc
}

/// `gamewire_bits::BitReader::read_varuint32`'s algorithm on bitter: a
/// refill before every read, a branch-free window when 40 bits are
/// buffered, the byte loop near the end.
#[inline(always)]
pub fn bitter_read_varuint32(r: &mut LittleEndianReader<'_>) -> Option<u32> {
    r.refill_lookahead();
    if r.lookahead_bits() >= 40 {
        let window = r.peek(40);
        let stops = (!window & 0x80_8080_8080) | 0x80_0000_0000;
        let bytes = window & (stops ^ (stops - 1));
        let value = (bytes & 0x7f)
            | ((bytes >> 1) & (0x7f << 7))
            | ((bytes >> 2) & (0x7f << 14))
            | ((bytes >> 3) & (0x7f << 21))
            | ((bytes >> 4) & (0x7f << 28));
        r.consume(stops.trailing_zeros() + 1);
        return Some(value as u32);
    }
    let mut value = 0u32;
    let mut shift = 0u32;
    while shift < 35 {
        let byte = r.read_u8()?;
        value |= u32::from(byte & 0x7f).wrapping_shl(shift);
        shift += 7;
        if byte & 0x80 == 0 {
            break;
        }
    }
    Some(value)
}

pub fn bitter_varuint32(data: &[u8]) -> u64 {
    let mut r = LittleEndianReader::new(data);
    let mut acc = 0u64;
    while let Some(v) = bitter_read_varuint32(&mut r) {
        acc = acc.wrapping_add(u64::from(v));
    }
    acc
}

pub fn ours_ubitvar(data: &[u8]) -> u64 {
    let mut r = BitReader::new(data);
    let mut acc = 0u64;
    while let Ok(v) = r.read_ubitvar() {
        acc = acc.wrapping_add(u64::from(v));
    }
    acc
}

/// `gamewire_bits::BitReader::read_ubitvar`'s algorithm on bitter: a
/// refill before every read, a branch-free window when 34 bits are
/// buffered, `read_bits` near the end.
#[inline(always)]
pub fn bitter_read_ubitvar(r: &mut LittleEndianReader<'_>) -> Option<u32> {
    r.refill_lookahead();
    if r.lookahead_bits() >= 34 {
        let window = r.peek(34);
        let head = window as u32 & 0x3f;
        let extra = (0x1C08_0400u32 >> ((head >> 4) * 8)) & 0xff;
        let rest = (window >> 6) as u32 & (((1u64 << extra) - 1) as u32);
        r.consume(6 + extra);
        return Some((head & 0x0f) | (rest << 4));
    }
    let head = r.read_bits(6)? as u32;
    let extra = match head & 0x30 {
        0x10 => 4,
        0x20 => 8,
        0x30 => 28,
        _ => return Some(head),
    };
    let rest = r.read_bits(extra)? as u32;
    Some((head & 0x0f) | (rest << 4))
}

pub fn bitter_ubitvar(data: &[u8]) -> u64 {
    let mut r = LittleEndianReader::new(data);
    let mut acc = 0u64;
    while let Some(v) = bitter_read_ubitvar(&mut r) {
        acc = acc.wrapping_add(u64::from(v));
    }
    acc
}

/// Reads a whole buffer, folding the values into a checksum.
pub type ReadAll = fn(&[u8]) -> u64;

/// The benchmark cases: name, our read loop, bitter's.
pub const CASES: [(&str, ReadAll, ReadAll); 7] = [
    ("bits1", |d| ours_bits(d, 1), |d| bitter_bits(d, 1)),
    ("bits7", |d| ours_bits(d, 7), |d| bitter_bits(d, 7)),
    ("bits17", |d| ours_bits(d, 17), |d| bitter_bits(d, 17)),
    ("bits32", |d| ours_bits(d, 32), |d| bitter_bits(d, 32)),
    ("bool", ours_bool, bitter_bool),
    ("varuint32", ours_varuint32, bitter_varuint32),
    ("ubitvar", ours_ubitvar, bitter_ubitvar),
];
