//! Our reader against `bitter` (0.9, `LittleEndianReader`, checked API) in the
//! same run: fixed-width reads of 1, 7, 17 and 32 bits, varuint32 and ubitvar,
//! each over 64 MiB of deterministic pseudo-random bytes, read to the end.
//!
//! For varuint32 and ubitvar `bitter` has no method, so the same algorithm as
//! ours is written on top of its public API (manual-mode window for the varint,
//! `read_bits` for ubitvar).
//!
//! `cargo bench -p gamewire-bits --bench reader -- --warm-up-time 1 --measurement-time 3`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use bitter::{BitReader as _, LittleEndianReader};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};
use gamewire_bits::BitReader;

const DATA_LEN: usize = 64 << 20;

/// xorshift64*: deterministic, fast, good enough for benchmark input.
fn random_data(len: usize) -> Vec<u8> {
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

fn ours_bits(data: &[u8], bits: u32) -> u64 {
    let mut r = BitReader::new(data);
    let mut acc = 0u64;
    while let Ok(v) = r.read_bits(bits) {
        acc = acc.wrapping_add(v);
    }
    acc
}

fn bitter_bits(data: &[u8], bits: u32) -> u64 {
    let mut r = LittleEndianReader::new(data);
    let mut acc = 0u64;
    while let Some(v) = r.read_bits(bits) {
        acc = acc.wrapping_add(v);
    }
    acc
}

fn ours_bool(data: &[u8]) -> u64 {
    let mut r = BitReader::new(data);
    let mut acc = 0u64;
    while let Ok(v) = r.read_bool() {
        acc += u64::from(v);
    }
    acc
}

fn bitter_bool(data: &[u8]) -> u64 {
    let mut r = LittleEndianReader::new(data);
    let mut acc = 0u64;
    while let Some(v) = r.read_bit() {
        acc += u64::from(v);
    }
    acc
}

fn ours_varuint32(data: &[u8]) -> u64 {
    let mut r = BitReader::new(data);
    let mut acc = 0u64;
    while let Ok(v) = r.read_varuint32() {
        acc = acc.wrapping_add(u64::from(v));
    }
    acc
}

/// `gamewire_bits::BitReader::read_varuint32`'s algorithm on bitter.
#[inline(always)]
fn bitter_read_varuint32(r: &mut LittleEndianReader<'_>) -> Option<u32> {
    if r.lookahead_bits() < 40 {
        r.refill_lookahead();
    }
    if r.lookahead_bits() >= 40 {
        let window = r.peek(40);
        let stops = !window & 0x80_8080_8080;
        let len = (stops.trailing_zeros() / 8 + 1).min(5);
        let bytes = window & (u64::MAX >> (64 - len * 8));
        let value = (bytes & 0x7f)
            | ((bytes >> 1) & (0x7f << 7))
            | ((bytes >> 2) & (0x7f << 14))
            | ((bytes >> 3) & (0x7f << 21))
            | ((bytes >> 4) & (0x7f << 28));
        r.consume(len * 8);
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

fn bitter_varuint32(data: &[u8]) -> u64 {
    let mut r = LittleEndianReader::new(data);
    let mut acc = 0u64;
    while let Some(v) = bitter_read_varuint32(&mut r) {
        acc = acc.wrapping_add(u64::from(v));
    }
    acc
}

fn ours_ubitvar(data: &[u8]) -> u64 {
    let mut r = BitReader::new(data);
    let mut acc = 0u64;
    while let Ok(v) = r.read_ubitvar() {
        acc = acc.wrapping_add(u64::from(v));
    }
    acc
}

/// `gamewire_bits::BitReader::read_ubitvar`'s algorithm on bitter.
#[inline(always)]
fn bitter_read_ubitvar(r: &mut LittleEndianReader<'_>) -> Option<u32> {
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

fn bitter_ubitvar(data: &[u8]) -> u64 {
    let mut r = LittleEndianReader::new(data);
    let mut acc = 0u64;
    while let Some(v) = bitter_read_ubitvar(&mut r) {
        acc = acc.wrapping_add(u64::from(v));
    }
    acc
}

/// Reads a whole buffer, folding the values into a checksum.
type ReadAll = fn(&[u8]) -> u64;

fn bench(c: &mut Criterion) {
    let data = random_data(DATA_LEN);
    // The two readers must agree before their speeds are worth comparing.
    for bits in [1, 7, 17, 32] {
        assert_eq!(ours_bits(&data, bits), bitter_bits(&data, bits));
    }
    assert_eq!(ours_bool(&data), bitter_bool(&data));
    assert_eq!(ours_varuint32(&data), bitter_varuint32(&data));
    assert_eq!(ours_ubitvar(&data), bitter_ubitvar(&data));

    let cases: [(&str, ReadAll, ReadAll); 7] = [
        ("bits1", |d| ours_bits(d, 1), |d| bitter_bits(d, 1)),
        ("bits7", |d| ours_bits(d, 7), |d| bitter_bits(d, 7)),
        ("bits17", |d| ours_bits(d, 17), |d| bitter_bits(d, 17)),
        ("bits32", |d| ours_bits(d, 32), |d| bitter_bits(d, 32)),
        ("bool", ours_bool, bitter_bool),
        ("varuint32", ours_varuint32, bitter_varuint32),
        ("ubitvar", ours_ubitvar, bitter_ubitvar),
    ];
    for (name, ours, theirs) in cases {
        let mut group = c.benchmark_group(name);
        group.throughput(Throughput::Bytes(DATA_LEN as u64));
        group.sampling_mode(SamplingMode::Flat);
        group.sample_size(10);
        group.bench_function("gamewire", |b| b.iter(|| ours(black_box(&data))));
        group.bench_function("bitter", |b| b.iter(|| theirs(black_box(&data))));
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
