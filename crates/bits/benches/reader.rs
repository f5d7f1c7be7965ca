//! Our reader against `bitter` (0.9, `LittleEndianReader`, checked API) in the
//! same run: fixed-width reads of 1, 7, 17 and 32 bits, one-bit bools,
//! varuint32 and ubitvar, each over 64 MiB of deterministic pseudo-random
//! bytes, read to the end.
//!
//! For varuint32 and ubitvar `bitter` has no method, so the same algorithm as
//! ours is written on top of its public API (a refill, then a manual-mode
//! window; `read_bits` near the end); see `common/mod.rs`.
//!
//! `cargo bench -p gamewire-bits --bench reader -- --warm-up-time 1 --measurement-time 3`
//!
//! On a loaded machine criterion's per-function runs drift apart; the
//! `interleaved` bench alternates the two readers and keeps the best run of
//! each, which gives steadier ratios.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::hint::black_box;

use common::{random_data, CASES, DATA_LEN};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode, Throughput};

fn bench(c: &mut Criterion) {
    let data = random_data(DATA_LEN);
    for (name, ours, theirs) in CASES {
        // The two readers must agree before their speeds are worth comparing.
        assert_eq!(ours(&data), theirs(&data), "{name}");
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
