//! The `purchases` table of demos without purchase events.
//!
//! Current CS2 builds write no `item_purchase` event: a purchase is only
//! in the buyer's state, an entry of the pawn's sellback list
//! (`m_pBuyServices.m_vecSellbackPurchaseEntries`), and the table is read
//! from there. Every library scenario (`examples/scenarios/`) is
//! synthesized twice, as the library writes it (with the events) and as
//! current builds write a match (`purchase_events = false` and
//! `round_events = false`), with the built-in schema and with the schema
//! of a CS2 corpus demo. The demo without events must give the scenario's
//! expected purchases, and the same rows as the events give, every column
//! of every row but `loadout`, which the state does not hold (checked to
//! be null). Rows of one tick are compared in (name, weapon) order: the
//! events come in the order players bought, the state tells only the tick.

mod common;

use common::{all_agree, corpus_schema, demo_with, derived_agrees, rows, scenarios, Result, Rows};
use gamewire_query::TableKind;
use gamewire_synth::scenario::load;
use gamewire_synth::schema::{self, Schema};
use serde_json::Value;

/// Orders rows by tick, then name and weapon.
fn sort_in_ticks(rows: &mut Rows) {
    rows.sort_by_key(|row| {
        let text = |k: &str| row.get(k).map(Value::to_string).unwrap_or_default();
        (
            row.get("tick").and_then(Value::as_i64),
            text("name"),
            text("weapon"),
        )
    });
}

/// Checks every library scenario with `schema`; the problems, one a line.
fn check(schema: &Schema, label: &str) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let mut bought = 0;
    for (path, format) in scenarios()? {
        let name = path.display();
        let expected = load(&std::fs::read_to_string(&path)?, format)?
            .expected()
            .get("purchases")
            .cloned()
            .unwrap_or_default();
        let with = rows(
            &demo_with(&path, format, schema, |_| {})?,
            TableKind::Purchases,
        )?;
        let without_bytes = demo_with(&path, format, schema, |s| {
            s.purchase_events = false;
            s.round_events = false;
        })?;
        let events = rows(&without_bytes, TableKind::Events)?;
        if events
            .iter()
            .any(|e| e.get("event_name").and_then(Value::as_str) == Some("item_purchase"))
        {
            problems.push(format!(
                "{label} {name}: purchase events off, yet item_purchase is written"
            ));
        }
        let mut without = rows(&without_bytes, TableKind::Purchases)?;
        sort_in_ticks(&mut without);
        bought += without.len();
        for (i, row) in without.iter_mut().enumerate() {
            let loadout = row.remove("loadout");
            if loadout != Some(Value::Null) {
                problems.push(format!(
                    "{label} {name}: row {i} from the state has a loadout: {loadout:?}"
                ));
            }
        }
        let mut with: Rows = with
            .into_iter()
            .map(|mut row| {
                row.remove("loadout");
                row
            })
            .collect();
        sort_in_ticks(&mut with);
        let mut expected = expected;
        sort_in_ticks(&mut expected);
        problems.extend(derived_agrees(
            &format!("{label} {name}"),
            "purchases",
            &expected,
            &with,
            &without,
        ));
    }
    if bought < 20 {
        problems.push(format!(
            "{label}: the library's demos without events give {bought} purchases, expected at least 20"
        ));
    }
    Ok(problems)
}

#[test]
fn purchases_come_from_the_state_with_the_builtin_schema() -> Result<()> {
    all_agree(check(&schema::builtin::builtin(), "built-in schema:")?)
}

#[test]
fn purchases_come_from_the_state_with_a_corpus_schema() -> Result<()> {
    all_agree(check(
        &corpus_schema("cs2/14155.dem")?,
        "schema of cs2/14155.dem:",
    )?)
}
