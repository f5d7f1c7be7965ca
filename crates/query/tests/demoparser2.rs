//! `events` and `ticks` against demoparser2 0.42.0 on the CS2 corpus demos
//! it reads (14065, 14132, 14155): every row and every value of every
//! column both sides have, floats within 1e-3.
//!
//! demoparser2 runs in the peer venv made by `.ci/setup-demoparser2.sh
//! start` (`<repo>/target/peers-venv`) through
//! `crates/query/scripts/demoparser2_dump.py`. Without the venv this test
//! is skipped with a message, unless `CI` is set: then it fails.
//!
//! Columns: demoparser2 sorts them, we keep event order, so they are
//! matched by name. Every demoparser2 column must exist on our side; ours
//! may add only `event_name`, `grenade_type` on grenade events, the player
//! keys as sent (`userid`, `attacker_pawn`, ...) and the players' slots
//! (`user_slot`). Steam ids are strings in demoparser2's events and
//! `uint64` here: compared as decimal text. demoparser2 leaves the player
//! columns of bots (steam id 0) null; ours fill them: a bot's player
//! columns are not compared. Ticks: demoparser2's rows are the human
//! players' (`humans_only`), and ours add each player's `slot`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

use gamewire_query::{Kind, Query, QueryError, Table, TableKind};

/// The tables of a query on a demo in memory.
fn run(q: &Query, data: &[u8]) -> Result<Vec<Table>, QueryError> {
    q.run(data).map(|p| p.tables)
}
use gamewire_query::Cell;
use serde_json::Value as J;

const DEMOS: [&str; 3] = ["14065", "14132", "14155"];

/// Player props asked for in `events` (per player key). demoparser2 0.42.0
/// panics (a polars shape error) when one name is both a player and a
/// game-wide prop of `parse_event`, so team and game-wide names are only in
/// [`TICK_PROPS`].
const EVENT_PLAYER: &[&str] = &[
    "X",
    "Y",
    "Z",
    "health",
    "armor_value",
    "team_num",
    "pitch",
    "yaw",
    "balance",
    "is_alive",
];

/// Props asked for in `ticks`: pawn and controller props, team props (the
/// player's team), game-wide props.
const TICK_PROPS: &[&str] = &[
    "X",
    "Y",
    "Z",
    "health",
    "armor_value",
    "team_num",
    "pitch",
    "yaw",
    "balance",
    "is_alive",
    "team_rounds_total",
    "team_score_first_half",
    "team_score_second_half",
    "team_score_overtime",
    "team_name",
    "team_clan_name",
    "team_surrendered",
    "team_match_stat",
    "team_num_map_victories",
    "is_bomb_planted",
    "total_rounds_played",
    "game_phase",
    "is_freeze_period",
    "is_warmup_period",
    "round_start_time",
    "game_time",
];

/// Team props as game-wide props: `t_<name>` and `ct_<name>` columns.
const TEAM_OTHER: &[&str] = &[
    "team_rounds_total",
    "team_score_first_half",
    "team_score_second_half",
    "team_score_overtime",
    "team_name",
    "team_clan_name",
    "team_surrendered",
    "team_match_stat",
    "team_num_map_victories",
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

fn corpus() -> PathBuf {
    gamewire_corpus::path("cs2")
}

/// The peer's python, or `None` (skip) when it is missing outside CI.
fn peer_python() -> Option<PathBuf> {
    let python = repo_root().join("target/peers-venv/bin/python");
    if python.is_file() && corpus().is_dir() {
        return Some(python);
    }
    let what = format!(
        "no demoparser2 venv at {} or no corpus at {}",
        python.display(),
        corpus().display()
    );
    if std::env::var_os("CI").is_some() {
        panic!("{what} (CI is set: run `.ci/setup-demoparser2.sh start` first)");
    }
    eprintln!(
        "skipping the demoparser2 comparison of the query tables: {what}; run `.ci/setup-demoparser2.sh start`"
    );
    None
}

/// Every game-wide name: the rules props, `game_time`, the team props.
fn other_props() -> Vec<String> {
    let mut v: Vec<String> = gamewire_query::world::RULES_PROPS
        .iter()
        .map(|(n, _)| n.to_string())
        // Ours only; demoparser2 has no such name.
        .filter(|n| n != "round_time")
        .collect();
    v.push("game_time".into());
    v.extend(TEAM_OTHER.iter().map(|s| s.to_string()));
    v
}

fn dump(python: &Path, demo: &Path) -> J {
    let out = Command::new(python)
        .arg(repo_root().join("crates/query/scripts/demoparser2_dump.py"))
        .arg(demo)
        .arg(EVENT_PLAYER.join(","))
        .arg(other_props().join(","))
        .arg(TICK_PROPS.join(","))
        .output()
        .expect("run demoparser2_dump.py");
    assert!(
        out.status.success(),
        "demoparser2_dump.py failed on {}: {}",
        demo.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON from demoparser2_dump.py")
}

/// Our cell against demoparser2's value.
fn same(ours: &Cell, theirs: &J) -> bool {
    const TOL: f64 = 1e-3;
    let near = |a: f64, n: &serde_json::Number| n.as_f64().is_some_and(|b| (a - b).abs() <= TOL);
    match (ours, theirs) {
        (Cell::Null, J::Null) => true,
        (Cell::Bool(a), J::Bool(b)) => a == b,
        (Cell::Str(a), J::String(b)) => a == b,
        (Cell::UInt(a), J::String(b)) => a.to_string() == *b,
        (Cell::Int(a), J::Number(n)) => {
            n.as_i64() == Some(*a) || (n.is_f64() && near(*a as f64, n))
        }
        (Cell::UInt(a), J::Number(n)) => {
            n.as_u64() == Some(*a) || (n.is_f64() && near(*a as f64, n))
        }
        (Cell::Float(a), J::Number(n)) => near(f64::from(*a), n),
        _ => false,
    }
}

/// The column kind that holds a demoparser2 dtype; `None` for dtypes that
/// say nothing (pandas turns an all-null or partly null integer or bool
/// column into `float64` or `object`).
fn kind_of_dtype(dtype: &str) -> Option<Kind> {
    Some(match dtype {
        "bool" => Kind::Bool,
        "int8" | "int16" | "int32" | "int64" | "uint8" | "uint16" | "uint32" => Kind::I64,
        "uint64" => Kind::U64,
        "float32" => Kind::F32,
        "str" | "string" => Kind::Str,
        _ => return None,
    })
}

#[derive(Default)]
struct Tally {
    values: usize,
    rows: usize,
    typed: usize,
    mismatches: Vec<String>,
}

impl Tally {
    /// Compares one table with demoparser2's rows (in order).
    fn table(&mut self, what: &str, ours: &Table, peer: &J, rows: &[J], extra_ok: &[&str]) {
        self.table_except(what, ours, peer, rows, extra_ok, &|_, _| false)
    }

    /// [`Tally::table`], leaving out the cells `skip(column, row)` names
    /// where demoparser2 has null.
    fn table_except(
        &mut self,
        what: &str,
        ours: &Table,
        peer: &J,
        rows: &[J],
        extra_ok: &[&str],
        skip: &dyn Fn(&str, usize) -> bool,
    ) {
        let names: Vec<&str> = peer["columns"]
            .as_array()
            .expect("columns")
            .iter()
            .filter_map(J::as_str)
            .collect();
        let dtypes: Vec<&str> = peer["dtypes"]
            .as_array()
            .expect("dtypes")
            .iter()
            .filter_map(J::as_str)
            .collect();
        // Column types: ours are declared; demoparser2's steam ids in
        // events are strings.
        for (n, dtype) in names.iter().zip(&dtypes) {
            let (Some(want), Some(col)) = (kind_of_dtype(dtype), ours.column(n)) else {
                continue;
            };
            let steamid_as_text = n.ends_with("_steamid") && want == Kind::Str;
            if col.kind() == want || (steamid_as_text && col.kind() == Kind::U64) {
                self.typed += 1;
            } else {
                self.mismatches.push(format!(
                    "{what}: column {n} is {:?}, demoparser2 {dtype}",
                    col.kind()
                ));
            }
        }
        for n in &names {
            if ours.column(n).is_none() {
                self.mismatches
                    .push(format!("{what}: column {n} only in demoparser2"));
            }
        }
        for n in ours.column_names() {
            if !names.contains(&n) && !extra_ok.contains(&n) && !n.ends_with("_slot") && n != "slot"
            {
                self.mismatches
                    .push(format!("{what}: column {n} only in ours"));
            }
        }
        if ours.rows() != rows.len() {
            self.mismatches.push(format!(
                "{what}: {} rows, demoparser2 {}",
                ours.rows(),
                rows.len()
            ));
            return;
        }
        for (r, row) in rows.iter().enumerate() {
            let row = row.as_array().expect("row");
            self.rows += 1;
            for (c, theirs) in names.iter().zip(row) {
                let Some(col) = ours.column(c) else { continue };
                let cell = col.cell(r);
                if theirs.is_null() && skip(c, r) {
                    continue;
                }
                if same(&cell, theirs) {
                    self.values += 1;
                } else if self.mismatches.len() < 40 {
                    self.mismatches.push(format!(
                        "{what} row {r} {c}: ours {cell:?}, demoparser2 {theirs}"
                    ));
                }
            }
        }
    }
}

#[test]
fn events_and_ticks_match_demoparser2() {
    let Some(python) = peer_python() else { return };
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<String>>();
    let mut total = Tally::default();
    for name in DEMOS {
        let path = corpus().join(format!("{name}.dem"));
        let data = std::fs::read(&path).unwrap();
        let peer = dump(&python, &path);
        let mut tally = Tally::default();
        let events = peer["events"].as_array().expect("events");
        assert!(!events.is_empty(), "{name}: demoparser2 lists no events");
        for ev in events {
            let ev_name = ev["name"].as_str().unwrap();
            let q = Query {
                tables: vec![TableKind::Events],
                events: Some(vec![ev_name.to_string()]),
                player_props: strings(EVENT_PLAYER),
                other_props: other_props(),
                ..Query::default()
            };
            let t = run(&q, &data).unwrap().remove(0);
            // A player column of a bot: `<p>_...` where `<p>_steamid` is 0.
            let bot = |c: &str, r: usize| {
                ["user", "attacker", "assister", "victim"].iter().any(|p| {
                    c.starts_with(&format!("{p}_"))
                        && t.column(&format!("{p}_steamid"))
                            .is_some_and(|s| s.cell(r) == Cell::UInt(0))
                })
            };
            tally.table_except(
                &format!("{name} {ev_name}"),
                &t,
                ev,
                ev["rows"].as_array().unwrap(),
                &[
                    "event_name",
                    "grenade_type",
                    "userid",
                    "attacker",
                    "assister",
                    "victim",
                    "userid_pawn",
                    "attacker_pawn",
                    "assister_pawn",
                    "victim_pawn",
                ],
                &bot,
            );
        }
        let (event_rows, event_values) = (tally.rows, tally.values);
        let q = Query {
            tables: vec![TableKind::Ticks],
            player_props: strings(TICK_PROPS),
            // demoparser2's rows are the players with a steam id.
            humans_only: true,
            ..Query::default()
        };
        let ticks = run(&q, &data).unwrap().remove(0);
        // Both sides list rows by tick, then player; match by (tick, steamid).
        let mut theirs: Vec<J> = peer["ticks"]["rows"].as_array().unwrap().clone();
        let cols: Vec<&str> = peer["ticks"]["columns"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(J::as_str)
            .collect();
        let tick_i = cols.iter().position(|c| *c == "tick").unwrap();
        let sid_i = cols.iter().position(|c| *c == "steamid").unwrap();
        theirs.sort_by_key(|r| (r[tick_i].as_i64(), r[sid_i].as_u64()));
        let key = |r: usize| match (
            ticks.column("tick").unwrap().cell(r),
            ticks.column("steamid").unwrap().cell(r),
        ) {
            (Cell::Int(t), Cell::UInt(s)) => (t, s),
            other => panic!("tick and steamid of row {r}: {other:?}"),
        };
        let mut order: Vec<usize> = (0..ticks.rows()).collect();
        order.sort_by_key(|&r| key(r));
        let sorted = Table {
            name: "ticks".into(),
            columns: ticks
                .columns
                .iter()
                .map(|(n, c)| {
                    let mut col = gamewire_query::Column::new(c.kind());
                    for &r in &order {
                        col.push(&c.cell(r));
                    }
                    (n.clone(), col)
                })
                .collect(),
        };
        tally.table(
            &format!("{name} ticks"),
            &sorted,
            &peer["ticks"],
            &theirs,
            &[],
        );
        println!(
            "{name}: events ({} names) {event_rows} rows, {event_values} values equal; ticks {} rows, {} values equal",
            events.len(),
            tally.rows - event_rows,
            tally.values - event_values
        );
        total.values += tally.values;
        total.rows += tally.rows;
        total.typed += tally.typed;
        total.mismatches.extend(tally.mismatches);
    }
    println!(
        "demoparser2 comparison: {} rows, {} values equal, {} column types equal, {} mismatches",
        total.rows,
        total.values,
        total.typed,
        total.mismatches.len()
    );
    assert!(
        total.mismatches.is_empty(),
        "mismatches against demoparser2:\n{}",
        total.mismatches.join("\n")
    );
    assert!(
        total.values > 10_000,
        "too few values compared: {}",
        total.values
    );
}
