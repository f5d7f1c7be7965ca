//! Throughput of the stream reader and writer on StateUpdate-shaped records,
//! and of CompressedFloat16 encode/decode.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gamewire_tgstream::{Cf16, CompressedVector3, CompressedVector4, Reader, Writer};

const RECORDS: usize = 4096;

/// The inputs of one record shaped like a StateUpdate body: object id, game
/// time, flags, position delta (cv4), forward and up (cv3), speed (cf16), a
/// cloak bit. Computed once, outside the timed loop.
struct Input {
    id: i32,
    time: f32,
    delta: [f32; 3],
    forward: [f32; 3],
    speed: f32,
    cloak: bool,
}

fn inputs(n: usize) -> Vec<Input> {
    (0..n)
        .map(|i| {
            #[allow(clippy::cast_precision_loss)]
            let t = i as f32 * 0.1;
            Input {
                id: 0x3FFF_FFFF - i32::try_from(i).unwrap_or(0),
                time: t,
                delta: [t.sin() * 40.0, t.cos() * 40.0, 3.0],
                forward: [t.cos(), t.sin(), 0.0],
                speed: t % 80.0,
                cloak: i % 3 == 0,
            }
        })
        .collect()
}

fn write_records(w: &mut Writer, records: &[Input]) {
    for r in records {
        w.write_i32(r.id);
        w.write_f32(r.time);
        w.write_u8(0x5E);
        w.write_cvec4(CompressedVector4::encode_cf16(r.delta));
        w.write_cvec3(CompressedVector3::encode(r.forward));
        w.write_cvec3(CompressedVector3::encode([0.0, 0.0, 1.0]));
        w.write_cf16_value(r.speed);
        w.write_bit(r.cloak);
    }
}

fn read_records(bytes: &[u8], n: usize) -> f32 {
    let mut r = Reader::new(bytes);
    let mut acc = 0.0f32;
    for _ in 0..n {
        let id = r.read_i32().unwrap();
        let t = r.read_f32().unwrap();
        let flags = r.read_u8().unwrap();
        let delta = r.read_cvec4_cf16().unwrap().decode();
        let fwd = r.read_cvec3().unwrap().decode();
        let up = r.read_cvec3().unwrap().decode();
        let speed = r.read_cf16().unwrap().decode();
        let cloak = r.read_bit().unwrap();
        acc +=
            t + delta[0] + fwd[1] + up[2] + speed + f32::from(flags) + f32::from(u8::from(cloak));
        acc += f32::from(u8::try_from(id & 1).unwrap_or(0));
    }
    acc
}

fn bench_stream(c: &mut Criterion) {
    let records = inputs(RECORDS);
    let mut w = Writer::new();
    write_records(&mut w, &records);
    let bytes = w.into_bytes();
    let mut group = c.benchmark_group("stream");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("read_state_update_records", |b| {
        b.iter(|| read_records(black_box(&bytes), RECORDS));
    });
    group.bench_function("write_state_update_records", |b| {
        b.iter(|| {
            let mut w = Writer::with_capacity(bytes.len());
            write_records(&mut w, black_box(&records));
            black_box(w.into_bytes())
        });
    });
    group.finish();
}

/// The decoder as the game runs it, rebuilding the decade bounds with a loop
/// on every call; the crate reads them from a compile-time table instead.
/// Kept here to measure that choice in the same run.
fn decode_iterative(bits: u16) -> f32 {
    let mut lo = 0.0f32;
    let mut hi = gamewire_tgstream::cf16::BASE;
    for _ in 0..((bits >> 12) & 7) {
        lo = hi;
        hi = lo * gamewire_tgstream::cf16::MULT;
    }
    let v = (hi - lo) * f32::from(bits & 0xFFF) * gamewire_tgstream::cf16::DECODE_SCALE + lo;
    if bits & 0x8000 != 0 {
        -v
    } else {
        v
    }
}

fn bench_cf16(c: &mut Criterion) {
    // The reference decoder agrees with the crate on every code.
    assert!((0..=u16::MAX)
        .all(|i| decode_iterative(i).to_bits() == Cf16::from_bits(i).decode().to_bits()));
    let values: Vec<f32> = (0..4096u16).map(|i| f32::from(i) * 2.44).collect();
    let mut group = c.benchmark_group("cf16");
    group.throughput(Throughput::Elements(values.len() as u64));
    group.bench_function("encode", |b| {
        b.iter(|| {
            values
                .iter()
                .map(|&v| u32::from(Cf16::encode(black_box(v)).to_bits()))
                .sum::<u32>()
        });
    });
    group.bench_function("decode_iterative_reference", |b| {
        b.iter(|| {
            (0..4096u16)
                .map(|i| decode_iterative(black_box(i * 7)))
                .sum::<f32>()
        });
    });
    group.bench_function("decode", |b| {
        b.iter(|| {
            (0..4096u16)
                .map(|i| Cf16::from_bits(black_box(i * 7)).decode())
                .sum::<f32>()
        });
    });
    group.finish();
}

criterion_group!(benches, bench_stream, bench_cf16);
criterion_main!(benches);
