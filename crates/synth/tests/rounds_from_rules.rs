//! The `rounds` table of demos without round events.
//!
//! CS2 builds may leave `round_start`, `round_end` and
//! `round_officially_ended` out of a demo; the rounds are then read from
//! the game rules' round counters (`m_nRoundStartCount`,
//! `m_nRoundEndCount`, `m_bFreezePeriod`, and the winner and reason
//! fields). Every library scenario (`examples/scenarios/`) is synthesized
//! twice, with its round events and with `round_events = false`, with the
//! built-in schema and with the schema of a CS2 corpus demo: both demos must
//! give the scenario's expected rounds, and the very same `rounds` table,
//! every column of every row, but one: the first round's start tick, which
//! a demo without round events cannot show when it starts at that very
//! tick (checked to be null, then compared as the events give it).

use std::collections::BTreeMap;
use std::error::Error;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use gamewire_query::write::{write_table, Format};
use gamewire_query::{Query, TableKind};
use gamewire_synth::emit::write_demo;
use gamewire_synth::scenario::{load, ScenarioFormat};
use gamewire_synth::schema::{self, Schema};
use serde_json::Value;

type Result<T> = std::result::Result<T, Box<dyn Error>>;
type Rows = Vec<BTreeMap<String, Value>>;

/// Every scenario file of the library, in name order, with its format.
fn scenarios() -> Result<Vec<(PathBuf, ScenarioFormat)>> {
    let dir = gamewire_corpus::workspace_root().join("examples/scenarios");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if let Some(format) = ScenarioFormat::from_path(&path) {
            out.push((path, format));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    if out.len() < 8 {
        return Err(format!(
            "the library has {} scenarios, expected at least 8",
            out.len()
        )
        .into());
    }
    Ok(out)
}

/// The scenario at `path` written as a demo, with its round events or
/// without them.
fn demo(
    path: &Path,
    format: ScenarioFormat,
    schema: &Schema,
    round_events: bool,
) -> Result<Vec<u8>> {
    let text = std::fs::read_to_string(path)?;
    let mut scenario = load(&text, format)?;
    scenario.round_events = round_events;
    let timeline = scenario.timeline()?;
    Ok(write_demo(&timeline, schema, Cursor::new(Vec::new()))?.into_inner())
}

/// A query's only table as the rows of its JSON Lines output.
fn rows(bytes: &[u8], kind: TableKind) -> Result<Rows> {
    let run = Query {
        tables: vec![kind],
        ..Query::default()
    }
    .run(bytes)?;
    if let Some(cut) = run.cut {
        return Err(format!("the synthesized demo is cut: {cut:?}").into());
    }
    let table = run
        .tables
        .into_iter()
        .next()
        .ok_or_else(|| format!("no {} table", kind.name()))?;
    let mut jsonl = Vec::new();
    write_table(&table, Format::Jsonl, &mut jsonl)?;
    let mut out = Vec::new();
    for line in std::str::from_utf8(&jsonl)?.lines() {
        out.push(serde_json::from_str(line)?);
    }
    Ok(out)
}

/// The differences between expected rows (their listed columns) and the
/// rows read, one line each.
fn differences(expected: &Rows, got: &Rows) -> Vec<String> {
    let mut out = Vec::new();
    if expected.len() != got.len() {
        out.push(format!(
            "{} rows expected, {} read",
            expected.len(),
            got.len()
        ));
    }
    for (i, (want, row)) in expected.iter().zip(got).enumerate() {
        for (column, value) in want {
            if row.get(column) != Some(value) {
                out.push(format!(
                    "row {i}: {column}: expected {value}, read {}",
                    row.get(column)
                        .map_or("nothing".to_string(), Value::to_string)
                ));
            }
        }
    }
    out
}

/// Checks every library scenario with `schema`; the problems, one a line.
fn check(schema: &Schema, label: &str) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    for (path, format) in scenarios()? {
        let name = path.display();
        let expected = {
            let text = std::fs::read_to_string(&path)?;
            load(&text, format)?
                .expected()
                .get("rounds")
                .cloned()
                .ok_or_else(|| format!("{name} states no rounds"))?
        };
        if expected.is_empty() {
            problems.push(format!("{label} {name}: states no round"));
        }
        let with = rows(&demo(&path, format, schema, true)?, TableKind::Rounds)?;
        let without_bytes = demo(&path, format, schema, false)?;
        let events = rows(&without_bytes, TableKind::Events)?;
        for row in &events {
            let event = row.get("event_name").and_then(Value::as_str).unwrap_or("");
            if ["round_start", "round_end", "round_officially_ended"].contains(&event) {
                problems.push(format!(
                    "{label} {name}: round events off, yet {event} is written"
                ));
            }
        }
        let mut without = rows(&without_bytes, TableKind::Rounds)?;
        // The demo starts at the first round's first tick: with no earlier
        // state of the game rules, that round's start cannot be told from
        // a round already under way when the recording began, and has no
        // start tick. Every other value is the events' one.
        if let Some(first) = without.first_mut() {
            let start = first.insert("start_tick".to_string(), Value::Null);
            if start != Some(Value::Null) {
                problems.push(format!(
                    "{label} {name}: the first round has a start tick without round events: {start:?}"
                ));
            }
            if let (Some(first), Some(with_first)) = (first.get_mut("start_tick"), with.first()) {
                *first = with_first.get("start_tick").cloned().unwrap_or(Value::Null);
            }
        }
        for d in differences(&expected, &without) {
            problems.push(format!("{label} {name}, no round events: {d}"));
        }
        if with != without {
            problems.push(format!(
                "{label} {name}: rounds from the events differ from the rounds from the game rules:\n  {with:?}\n  {without:?}"
            ));
        }
    }
    Ok(problems)
}

fn all_agree(problems: Vec<String>) -> Result<()> {
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!("{} differences:\n{}", problems.len(), problems.join("\n")).into())
}

#[test]
fn rounds_come_from_the_game_rules_with_the_builtin_schema() -> Result<()> {
    all_agree(check(&schema::builtin::builtin(), "built-in schema:")?)
}

#[test]
fn rounds_come_from_the_game_rules_with_a_corpus_schema() -> Result<()> {
    let demo = gamewire_corpus::path("cs2/14155.dem");
    let schema = schema::from_demo(&std::fs::read(&demo)?)?;
    all_agree(check(&schema, "schema of cs2/14155.dem:")?)
}
