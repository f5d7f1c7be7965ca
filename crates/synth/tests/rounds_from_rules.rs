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

mod common;

use std::path::Path;

use common::{all_agree, corpus_schema, demo_with, derived_agrees, rows, scenarios, Result};
use gamewire_query::TableKind;
use gamewire_synth::scenario::{load, ScenarioFormat};
use gamewire_synth::schema::{self, Schema};
use serde_json::Value;

/// The scenario at `path` written as a demo, with its round events or
/// without them.
fn demo(
    path: &Path,
    format: ScenarioFormat,
    schema: &Schema,
    round_events: bool,
) -> Result<Vec<u8>> {
    demo_with(path, format, schema, |s| s.round_events = round_events)
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
        problems.extend(derived_agrees(
            &format!("{label} {name}"),
            "rounds",
            &expected,
            &with,
            &without,
        ));
    }
    Ok(problems)
}

#[test]
fn rounds_come_from_the_game_rules_with_the_builtin_schema() -> Result<()> {
    all_agree(check(&schema::builtin::builtin(), "built-in schema:")?)
}

#[test]
fn rounds_come_from_the_game_rules_with_a_corpus_schema() -> Result<()> {
    all_agree(check(
        &corpus_schema("cs2/14155.dem")?,
        "schema of cs2/14155.dem:",
    )?)
}
