//! The `reader` benchmark's cases, measured by alternating our reader and
//! `bitter` run by run over the same 64 MiB and keeping each one's fastest
//! run: on a machine shared with other jobs, load that comes and goes hits
//! both sides alike, so the ratio is steadier than separate criterion runs.
//!
//! `cargo bench -p gamewire-bits --bench interleaved [-- ROUNDS]` (default 9)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::hint::black_box;
use std::time::Instant;

use common::{random_data, CASES, DATA_LEN};

fn best_of(
    rounds: usize,
    ours: common::ReadAll,
    theirs: common::ReadAll,
    data: &[u8],
) -> (f64, f64) {
    let (mut a, mut b) = (f64::MAX, f64::MAX);
    for _ in 0..rounds {
        let t = Instant::now();
        black_box(ours(black_box(data)));
        a = a.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        black_box(theirs(black_box(data)));
        b = b.min(t.elapsed().as_secs_f64());
    }
    (a, b)
}

fn main() {
    // `cargo bench` passes `--bench`; a bare number is the round count.
    // Without `--bench` (`cargo test --benches`) it is a quick smoke run.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let full = args.iter().any(|a| a == "--bench");
    let rounds = args.iter().find_map(|a| a.parse().ok()).unwrap_or(9);
    let (rounds, len) = if full {
        (rounds, DATA_LEN)
    } else {
        (1, 1 << 16)
    };
    let data = random_data(len);
    let mib = len as f64 / f64::from(1 << 20);
    println!("| case | gamewire MiB/s | bitter MiB/s | ratio |");
    println!("|---|---:|---:|---:|");
    for (name, ours, theirs) in CASES {
        assert_eq!(ours(&data), theirs(&data), "{name}");
        let (a, b) = best_of(rounds, ours, theirs, &data);
        println!(
            "| {name} | {:.0} | {:.0} | {:.2} |",
            mib / a,
            mib / b,
            b / a
        );
    }
}
