//! The analyst pass on one demo, in-process, against its floor
//! (`scripts/bench_vs_demoparser2.py`, docs/benchmarks.md):
//! `cargo run --release -p gamewire-query --example analyst_pass -- FILE [REPS]`.
//!
//! Times, best of REPS (CPU time of this process, user + system, and wall
//! time), on the demo's bytes in memory:
//!
//! - `floor`: the cheapest pass that still decodes every packet entity of
//!   every class (decompression, field paths, field values, the entity
//!   state), with no table work: a visitor that asks for entities and does
//!   nothing with them;
//! - `ticks`: the `ticks` query of the 8 usual props (humans only, as
//!   demoparser2's `parse_ticks` rows);
//! - `events`: the `events` query (every game event);
//! - `two`: `ticks` then `events`, two passes (what two commands do);
//! - `one`: one query with both tables, one pass.
//!
//! Prints one line per measure: `name cpu_s wall_s rows`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use gamewire_query::{Interests, Query, RunOptions, TableKind, Visitor};

const PROPS: [&str; 8] = [
    "X",
    "Y",
    "Z",
    "health",
    "armor_value",
    "team_num",
    "pitch",
    "yaw",
];

/// Asks for every entity of every class, does nothing with them.
#[derive(Debug)]
struct Floor;

impl Visitor for Floor {
    fn interests(&self) -> Interests {
        Interests {
            entities: true,
            ..Interests::NONE
        }
    }
}

/// This process's CPU time so far (user + system, every thread), from
/// `/proc/self/stat` (in clock ticks of 10 ms).
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("read /proc/self/stat");
    // The fields after the command name (which may hold spaces) in
    // parentheses: utime and stime are the 14th and 15th of the line.
    let rest = &stat[stat.rfind(')').expect("a stat line") + 2..];
    let fields: Vec<u64> = rest
        .split(' ')
        .skip(11)
        .take(2)
        .map(|f| f.parse().expect("a number"))
        .collect();
    Duration::from_millis(10 * fields.iter().sum::<u64>())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: analyst_pass FILE [REPS]");
    let reps: usize = args.next().map_or(3, |r| r.parse().expect("REPS"));
    let data = std::fs::read(&path).expect("read the demo");
    let props: Vec<String> = PROPS.iter().map(|p| p.to_string()).collect();
    let ticks = Query {
        tables: vec![TableKind::Ticks],
        player_props: props.clone(),
        humans_only: true,
        ..Query::default()
    };
    let events = Query {
        tables: vec![TableKind::Events],
        ..Query::default()
    };
    let both = Query {
        tables: vec![TableKind::Ticks, TableKind::Events],
        player_props: props,
        humans_only: true,
        ..Query::default()
    };
    let rows = |q: &Query| -> usize { q.run(&data).unwrap().tables.iter().map(|t| t.rows()).sum() };
    let floor = || {
        let (state, cut) = RunOptions::default()
            .parse_keeping_cut(&data[..], &mut Floor)
            .unwrap();
        assert!(cut.is_none());
        usize::try_from(state.tick).unwrap_or(0)
    };
    let measures: [(&str, &dyn Fn() -> usize); 5] = [
        ("floor", &floor),
        ("ticks", &|| rows(&ticks)),
        ("events", &|| rows(&events)),
        ("two", &|| rows(&ticks) + rows(&events)),
        ("one", &|| rows(&both)),
    ];
    let mut best = vec![(Duration::MAX, Duration::MAX, 0); measures.len()];
    // Interleaved: one run of each measure per repetition.
    for _ in 0..reps {
        for (i, (_, f)) in measures.iter().enumerate() {
            let (c0, t0) = (cpu(), Instant::now());
            let n = f();
            let (c, t) = (cpu() - c0, t0.elapsed());
            let b = &mut best[i];
            *b = (b.0.min(c), b.1.min(t), n);
        }
    }
    for ((name, _), (c, t, n)) in measures.iter().zip(best) {
        println!("{name} {:.3} {:.3} {n}", c.as_secs_f64(), t.as_secs_f64());
    }
}
