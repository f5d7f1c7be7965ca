//! The `reader` benchmark's cases, measured by alternating our reader and
//! `bitter` run by run over the same 64 MiB and keeping each one's fastest
//! run: on a machine shared with other jobs, load that comes and goes hits
//! both sides alike, so the ratio is steadier than separate criterion runs.
//!
//! Each run is timed twice: by the wall clock and by the CPU time the
//! thread was given (the first field of Linux's
//! `/proc/thread-self/schedstat`, in nanoseconds). On a machine where other
//! processes compete for the cores, a run's wall time includes the slices
//! it waited for and swings with the load; its CPU time does not, so the
//! CPU-time ratio is the one to compare. Where `schedstat` is missing, only
//! the wall clock is shown.
//!
//! `cargo bench -p gamewire-bits --bench interleaved [-- ROUNDS] [CASE...]`
//! (default 9 rounds, every case; a case name given keeps only that case)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::hint::black_box;
use std::time::Instant;

use common::{random_data, CASES, DATA_LEN};

/// CPU time this thread has run, in seconds, if the kernel reports it.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanos as f64 * 1e-9)
}

/// The best wall and CPU time of one side.
#[derive(Clone, Copy)]
struct Best {
    wall: f64,
    cpu: Option<f64>,
}

impl Best {
    fn new() -> Self {
        Best {
            wall: f64::MAX,
            cpu: Some(f64::MAX),
        }
    }

    fn time(&mut self, read: common::ReadAll, data: &[u8]) {
        let cpu = thread_cpu_seconds();
        let wall = Instant::now();
        black_box(read(black_box(data)));
        self.wall = self.wall.min(wall.elapsed().as_secs_f64());
        self.cpu = match (self.cpu, cpu, thread_cpu_seconds()) {
            (Some(best), Some(start), Some(end)) => Some(best.min(end - start)),
            _ => None,
        };
    }
}

fn best_of(
    rounds: usize,
    ours: common::ReadAll,
    theirs: common::ReadAll,
    data: &[u8],
) -> (Best, Best) {
    let (mut a, mut b) = (Best::new(), Best::new());
    for _ in 0..rounds {
        a.time(ours, data);
        b.time(theirs, data);
    }
    (a, b)
}

fn main() {
    // `cargo bench` passes `--bench`; a bare number is the round count.
    // Without `--bench` (`cargo test --benches`) it is a quick smoke run.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let full = args.iter().any(|a| a == "--bench");
    let rounds = args.iter().find_map(|a| a.parse().ok()).unwrap_or(9);
    let only: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with('-') && a.parse::<usize>().is_err())
        .map(String::as_str)
        .collect();
    let (rounds, len) = if full {
        (rounds, DATA_LEN)
    } else {
        (1, 1 << 16)
    };
    let data = random_data(len);
    let mib = len as f64 / f64::from(1 << 20);
    println!(
        "| case | gamewire MiB/s (CPU) | bitter MiB/s (CPU) | ratio (CPU) | gamewire MiB/s (wall) | bitter MiB/s (wall) | ratio (wall) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, ours, theirs) in CASES {
        if !only.is_empty() && !only.contains(&name) {
            continue;
        }
        assert_eq!(ours(&data), theirs(&data), "{name}");
        let (a, b) = best_of(rounds, ours, theirs, &data);
        let cpu = match (a.cpu, b.cpu) {
            (Some(a), Some(b)) => format!("{:.0} | {:.0} | {:.2}", mib / a, mib / b, b / a),
            _ => "- | - | -".to_owned(),
        };
        println!(
            "| {name} | {cpu} | {:.0} | {:.0} | {:.2} |",
            mib / a.wall,
            mib / b.wall,
            b.wall / a.wall
        );
    }
}
