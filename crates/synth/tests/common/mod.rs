//! What the scenario tests share: the library's scenario files, a scenario
//! written as a demo, a table read back as the rows of its JSON Lines
//! output (what a user reads from `gamewire table NAME --format jsonl`),
//! and expected rows compared with the rows read.

// Each test file uses its own part of this module.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::error::Error;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use gamewire_query::write::{write_table, Format};
use gamewire_query::{Query, TableKind};
use gamewire_synth::emit::write_demo;
use gamewire_synth::scenario::{load, Scenario, ScenarioFormat};
use gamewire_synth::schema::{self, Schema};
use serde_json::Value;

pub type Result<T> = std::result::Result<T, Box<dyn Error>>;
pub type Rows = Vec<BTreeMap<String, Value>>;

/// The library's folder.
pub fn library() -> PathBuf {
    gamewire_corpus::workspace_root().join("examples/scenarios")
}

/// Every scenario file of the library, in name order, with its format.
pub fn scenarios() -> Result<Vec<(PathBuf, ScenarioFormat)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(library())? {
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

/// The scenario at `path`, changed by `change`, written as a demo with
/// `schema`.
pub fn demo_with(
    path: &Path,
    format: ScenarioFormat,
    schema: &Schema,
    change: impl FnOnce(&mut Scenario),
) -> Result<Vec<u8>> {
    let text = std::fs::read_to_string(path)?;
    let mut scenario = load(&text, format)?;
    change(&mut scenario);
    let timeline = scenario.timeline()?;
    Ok(write_demo(&timeline, schema, Cursor::new(Vec::new()))?.into_inner())
}

/// The first table `query` makes of the demo `bytes`, as the rows of its
/// JSON Lines output.
pub fn query_rows(bytes: &[u8], query: Query) -> Result<Rows> {
    let run = query.run(bytes)?;
    if let Some(cut) = run.cut {
        return Err(format!("the synthesized demo is cut: {cut:?}").into());
    }
    let table = run
        .tables
        .into_iter()
        .next()
        .ok_or("the query made no table")?;
    let mut jsonl = Vec::new();
    write_table(&table, Format::Jsonl, &mut jsonl)?;
    let mut rows = Vec::new();
    for line in std::str::from_utf8(&jsonl)?.lines() {
        rows.push(serde_json::from_str(line)?);
    }
    Ok(rows)
}

/// Table `kind` of the demo `bytes`, as a plain query makes it.
pub fn rows(bytes: &[u8], kind: TableKind) -> Result<Rows> {
    query_rows(
        bytes,
        Query {
            tables: vec![kind],
            ..Query::default()
        },
    )
}

/// Whether an expected value and a value read agree: numbers within a
/// float's rounding (positions and angles travel as 32-bit floats, some
/// quantized by the schema's encoder), anything else exactly.
pub fn same(expected: &Value, got: &Value) -> bool {
    match (expected, got) {
        (Value::Number(a), Value::Number(b)) => match (a.as_i64(), b.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => match (a.as_f64(), b.as_f64()) {
                (Some(x), Some(y)) => (x - y).abs() <= 0.05_f64.max(x.abs() * 1e-5),
                _ => false,
            },
        },
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        _ => expected == got,
    }
}

/// The differences between a table's expected rows (the columns each
/// lists) and the rows read, one line each (empty when they agree).
pub fn differences(table: &str, expected: &Rows, got: &Rows) -> Vec<String> {
    let mut out = Vec::new();
    if expected.len() != got.len() {
        out.push(format!(
            "{table}: {} rows expected, {} read",
            expected.len(),
            got.len()
        ));
    }
    for (i, (want, row)) in expected.iter().zip(got).enumerate() {
        for (column, value) in want {
            match row.get(column) {
                Some(v) if same(value, v) => {}
                Some(v) => out.push(format!(
                    "{table} row {i}: {column}: expected {value}, read {v}"
                )),
                None => out.push(format!("{table} row {i}: no column {column}")),
            }
        }
    }
    out
}

/// Fails with every difference, so one run shows them all.
pub fn all_agree(problems: Vec<String>) -> Result<()> {
    if problems.is_empty() {
        return Ok(());
    }
    Err(format!("{} differences:\n{}", problems.len(), problems.join("\n")).into())
}

/// The schema of a CS2 corpus demo (`cs2/14155.dem`).
pub fn corpus_schema(demo: &str) -> Result<Schema> {
    let path = gamewire_corpus::path(demo);
    Ok(schema::from_demo(&std::fs::read(path)?)?)
}

/// A table read from a demo without the events it is made of (`without`,
/// derived from the state) against the scenario's expected rows and the
/// table the events give (`with`); the problems, one a line, each starting
/// with `what`.
pub fn derived_agrees(
    what: &str,
    table: &str,
    expected: &Rows,
    with: &Rows,
    without: &Rows,
) -> Vec<String> {
    let mut problems: Vec<String> = differences(table, expected, without)
        .into_iter()
        .map(|d| format!("{what}, without events: {d}"))
        .collect();
    if with != without {
        problems.push(format!(
            "{what}: {table} from the events differ from {table} from the state:\n  {with:?}\n  {without:?}"
        ));
    }
    problems
}
