//! In-process timing of the two queries `gamewire ticks` and `gamewire
//! events` run (parse + tables, no process start, no output writing), for
//! `scripts/bench_vs_demoparser2.py`:
//! `cargo run --release -p gamewire-query --example ticks_events -- FILE [REPS]`.
//! Prints one line: `best_ticks_s best_events_s rows events`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use gamewire_query::{Query, TableKind};

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

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: ticks_events FILE [REPS]");
    let reps: usize = args.next().map_or(7, |r| r.parse().expect("REPS"));
    let data = std::fs::read(&path).expect("read the demo");
    let props: Vec<String> = PROPS.iter().map(|p| p.to_string()).collect();
    let (mut best_ticks, mut best_events) = (Duration::MAX, Duration::MAX);
    let (mut rows, mut events) = (0, 0);
    let ticks_query = Query {
        tables: vec![TableKind::Ticks],
        player_props: props,
        // demoparser2's rows: the players with a steam id.
        humans_only: true,
        ..Query::default()
    };
    let events_query = Query {
        tables: vec![TableKind::Events],
        ..Query::default()
    };
    for _ in 0..reps {
        let t0 = Instant::now();
        let ticks = ticks_query.run(&data).unwrap();
        let t1 = Instant::now();
        let evs = events_query.run(&data).unwrap();
        let t2 = Instant::now();
        best_ticks = best_ticks.min(t1 - t0);
        best_events = best_events.min(t2 - t1);
        rows = ticks.tables[0].rows();
        events = evs.tables[0].rows();
    }
    println!(
        "{:.6} {:.6} {rows} {events}",
        best_ticks.as_secs_f64(),
        best_events.as_secs_f64()
    );
}
