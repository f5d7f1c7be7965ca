//! The scenario library (`examples/scenarios/`) through the whole reader:
//! every scenario is synthesized (with the built-in schema, and with the
//! schema of each CS2 corpus demo), read back by `gamewire-query`, and
//! every table the scenario states must come out as stated: exactly the
//! rows listed, in order, each listed column equal (columns a scenario does
//! not list are not compared). The tables are compared as the command line
//! writes them as JSON Lines, so a scenario's expected values are what a
//! user reads from `gamewire table NAME --format jsonl`.
//!
//! The sample demo that ships with gamewire is checked too: synthesizing
//! `examples/scenarios/sample.toml` gives exactly its committed bytes.

mod common;

use std::collections::BTreeSet;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use common::{all_agree, differences, query_rows, scenarios, Result, Rows};
use gamewire_query::{Query, TableKind, TickSet};
use gamewire_synth::scenario::{load, ScenarioFormat};
use gamewire_synth::{synthesize, SAMPLE_DEMO, SAMPLE_SCENARIO};
use serde_json::Value;

/// The ticks table's own columns: every other column an expected row lists
/// is a prop to ask for.
const TICKS_KEYS: [&str; 3] = ["tick", "steamid", "name"];

/// The query that makes table `name` as its expected rows need it: the
/// ticks table asks for the props its rows list, at the ticks they list.
fn query_for(name: &str, expected: &Rows) -> Result<Query> {
    let kind: TableKind = name.parse()?;
    let mut query = Query {
        tables: vec![kind],
        ..Query::default()
    };
    if kind == TableKind::Ticks {
        let props: BTreeSet<&str> = expected
            .iter()
            .flat_map(|row| row.keys().map(String::as_str))
            .filter(|k| !TICKS_KEYS.contains(k))
            .collect();
        let ticks: BTreeSet<i64> = expected
            .iter()
            .filter_map(|row| row.get("tick").and_then(Value::as_i64))
            .collect();
        let ticks: Vec<String> = ticks.iter().map(i64::to_string).collect();
        query.player_props = props.into_iter().map(String::from).collect();
        query.ticks = Some(TickSet::parse(&ticks.join(","))?);
    }
    Ok(query)
}

/// Table `name` of the demo `bytes`, as the rows of its JSON Lines output.
fn table_rows(bytes: &[u8], name: &str, expected: &Rows) -> Result<Rows> {
    query_rows(bytes, query_for(name, expected)?)
}

/// Synthesizes one scenario (with the schema of `schema_demo` when given)
/// and compares every table it states; the differences, one line each.
fn check(path: &Path, format: ScenarioFormat, schema_demo: Option<&[u8]>) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path)?;
    let scenario = load(&text, format)?;
    let expected = scenario.expected();
    if expected.is_empty() {
        return Ok(vec![format!("{}: states no table", path.display())]);
    }
    let (out, _) = synthesize(&text, format, schema_demo, Cursor::new(Vec::new()))?;
    let bytes = out.into_inner();
    let mut problems = Vec::new();
    for (table, rows) in expected {
        let got = table_rows(&bytes, table, rows)?;
        for d in differences(table, rows, &got) {
            problems.push(format!("{}: {d}", path.display()));
        }
    }
    Ok(problems)
}

#[test]
fn library_has_the_scenarios_it_promises() -> Result<()> {
    let names: BTreeSet<String> = scenarios()?
        .iter()
        .filter_map(|(p, _)| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    for want in [
        "pistol_round",
        "eco_round",
        "plant_and_defuse",
        "clutch_1v3",
        "full_match_overtime",
        "disconnect_reconnect",
        "bot_takeover",
        "half_time_switch",
        "sample",
    ] {
        if !names.contains(want) {
            return Err(format!("examples/scenarios has no {want} scenario").into());
        }
    }
    Ok(())
}

#[test]
fn every_scenario_reads_back_as_stated_with_the_builtin_schema() -> Result<()> {
    let mut problems = Vec::new();
    for (path, format) in scenarios()? {
        problems.extend(check(&path, format, None)?);
    }
    all_agree(problems)
}

#[test]
fn every_scenario_reads_back_as_stated_with_each_corpus_schema() -> Result<()> {
    let mut problems = Vec::new();
    let demos: Vec<PathBuf> = gamewire_corpus::source2_demos()?
        .into_iter()
        .filter(|p| p.parent().and_then(Path::file_name) == Some("cs2".as_ref()))
        .collect();
    if demos.len() < 5 {
        return Err(format!("expected the 5 CS2 corpus demos, found {}", demos.len()).into());
    }
    for demo in &demos {
        let schema = std::fs::read(demo)?;
        for (path, format) in scenarios()? {
            for p in check(&path, format, Some(&schema))? {
                problems.push(format!("schema of {}: {p}", demo.display()));
            }
        }
    }
    all_agree(problems)
}

#[test]
fn the_sample_demo_is_its_scenario_synthesized() -> Result<()> {
    let (out, report) = synthesize(
        SAMPLE_SCENARIO,
        ScenarioFormat::Toml,
        None,
        Cursor::new(Vec::new()),
    )?;
    let bytes = out.into_inner();
    if bytes != SAMPLE_DEMO {
        return Err(format!(
            "synthesizing examples/scenarios/sample.toml gives {} bytes that differ from the committed crates/synth/sample/sample.dem ({} bytes): run `gamewire synth examples/scenarios/sample.toml crates/synth/sample/sample.dem`",
            bytes.len(),
            SAMPLE_DEMO.len()
        )
        .into());
    }
    if SAMPLE_DEMO.len() >= 1 << 20 {
        return Err(format!("the sample demo is {} bytes, over 1 MiB", SAMPLE_DEMO.len()).into());
    }
    if report.players != 10 {
        return Err(format!("the sample has {} players, not 10", report.players).into());
    }
    Ok(())
}
