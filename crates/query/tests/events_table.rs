//! The `events` table: `event_name`, `tick`, every key as the game sends
//! it, the players its keys name (bots included), hit groups by name, the
//! declared keys as the header of an empty result, JSON keys in column
//! order.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::demos::*;
use gamewire_query::raw_events::RawEventsCollector;
use gamewire_query::write::{write_table, Format};
use gamewire_query::{Cell, Column, Kind, Query, Table, TableKind};

fn events(
    demo: &str,
    names: Option<&[&str]>,
    props: &[&str],
) -> (Table, gamewire_query::DemoState) {
    let q = Query {
        tables: vec![TableKind::Events],
        events: names.map(|n| n.iter().map(|s| s.to_string()).collect()),
        player_props: props.iter().map(|s| s.to_string()).collect(),
        ..Query::default()
    };
    let data = std::fs::read(corpus().join(demo)).unwrap();
    let (mut tables, state) = run_with_state(&q, &data).unwrap();
    (tables.remove(0), state)
}

/// `player_hurt` on 14011 (bots): the raw `userid` and `attacker` keys are
/// kept, the hit group is a name, and the player columns are filled for
/// bots (steam id 0, name, slot, props).
#[test]
fn player_hurt_keeps_raw_keys_and_fills_bots() {
    let (t, state) = events("cs2/14011.dem", Some(&["player_hurt"]), &["X", "health"]);
    assert!(t.rows() >= 3);
    let declared: Vec<String> = state
        .event_descriptors
        .by_name("player_hurt")
        .unwrap()
        .keys
        .iter()
        .map(|k| k.name.clone())
        .collect();
    assert!(declared.contains(&"userid".to_string()));
    assert!(declared.contains(&"attacker".to_string()));
    let names = t.column_names();
    assert_eq!(&names[..2], ["event_name", "tick"]);
    assert_eq!(
        names[2..2 + declared.len()],
        declared.iter().map(String::as_str).collect::<Vec<_>>()[..]
    );
    let col = |n: &str| t.column(n).unwrap_or_else(|| panic!("no {n}: {names:?}"));
    assert_eq!(col("userid").kind(), Kind::I64);
    assert_eq!(col("hitgroup").kind(), Kind::Str);
    for r in 0..t.rows() {
        let Cell::Str(h) = col("hitgroup").cell(r) else {
            panic!("hitgroup row {r}")
        };
        assert!(
            ["generic", "head", "chest", "stomach", "neck"].contains(&h.as_str())
                || h.ends_with("_arm")
                || h.ends_with("_leg"),
            "{h}"
        );
        // Bots: name and slot filled, steam id 0.
        for p in ["user", "attacker"] {
            assert!(
                matches!(col(&format!("{p}_name")).cell(r), Cell::Str(_)),
                "{p} row {r}"
            );
            assert_eq!(
                col(&format!("{p}_steamid")).cell(r),
                Cell::UInt(0),
                "{p} row {r}"
            );
            assert!(
                matches!(col(&format!("{p}_X")).cell(r), Cell::Float(_)),
                "{p} row {r}"
            );
            assert!(
                matches!(col(&format!("{p}_health")).cell(r), Cell::Int(_)),
                "{p} row {r}"
            );
        }
        // The slot is the raw key's player slot.
        let Cell::Int(userid) = col("userid").cell(r) else {
            panic!()
        };
        assert_eq!(col("user_slot").cell(r), Cell::Int(userid & 0xFF));
    }
    // The same hit as in `damages`: tick 305, Greymouth hits Dashen.
    assert_eq!(col("tick").cell(0), Cell::Int(305));
    assert_eq!(col("attacker_name").cell(0), Cell::Str("Greymouth".into()));
    assert_eq!(col("user_name").cell(0), Cell::Str("Dashen".into()));
    assert_eq!(col("hitgroup").cell(0), Cell::Str("chest".into()));
}

/// Every key of every event a demo sends is a column, with the value as
/// sent (hit groups aside).
#[test]
fn every_key_as_sent() {
    let data = std::fs::read(corpus().join("cs2/14011.dem")).unwrap();
    let mut raw = RawEventsCollector::new(None);
    gamewire_source2::parse_with(&data, &mut raw).unwrap();
    let (t, _) = events("cs2/14011.dem", None, &[]);
    assert_eq!(t.rows(), raw.events.len());
    for (r, (name, tick, keys)) in raw.events.iter().enumerate() {
        assert_eq!(
            t.column("event_name").unwrap().cell(r),
            Cell::Str(name.clone())
        );
        assert_eq!(
            t.column("tick").unwrap().cell(r),
            Cell::Int(i64::from(*tick))
        );
        for (k, v) in keys {
            // The name and steam id the raw collector adds for player keys.
            if k.ends_with("_name") || k.ends_with("_steamid") {
                continue;
            }
            let col = t
                .column(k)
                .unwrap_or_else(|| panic!("{name}: no column {k}"));
            if k == "hitgroup" {
                continue;
            }
            let mut want = Column::new(col.kind());
            want.push(v);
            assert_eq!(col.cell(r), want.cell(0), "{name} row {r} key {k}");
        }
    }
}

/// With event names asked for and none in the demo, the table still has
/// the declared keys of those events (and their player columns).
#[test]
fn empty_result_has_the_declared_keys() {
    let (t, state) = events("cs2/14065.dem", Some(&["player_death"]), &["health"]);
    assert_eq!(t.rows(), 0);
    let keys: Vec<String> = state
        .event_descriptors
        .by_name("player_death")
        .unwrap()
        .keys
        .iter()
        .map(|k| k.name.clone())
        .collect();
    let names = t.column_names();
    assert_eq!(&names[..2], ["event_name", "tick"]);
    let after: Vec<&str> = names[2..2 + keys.len()].to_vec();
    assert_eq!(after, keys.iter().map(String::as_str).collect::<Vec<_>>());
    for c in [
        "userid",
        "attacker",
        "assister",
        "hitgroup",
        "user_name",
        "user_steamid",
        "user_slot",
        "user_health",
        "attacker_name",
        "attacker_slot",
        "assister_steamid",
    ] {
        assert!(names.contains(&c), "{c} in {names:?}");
    }
    assert_eq!(t.column("hitgroup").unwrap().kind(), Kind::Str);
    assert_eq!(t.column("user_steamid").unwrap().kind(), Kind::U64);
    assert_eq!(t.column("user_slot").unwrap().kind(), Kind::I64);
}

/// JSON Lines keys follow the column order, nulls included.
#[test]
fn events_json_keys_follow_the_columns() {
    let (t, _) = events("cs2/14011.dem", Some(&["player_hurt"]), &["X"]);
    let mut buf = Vec::new();
    write_table(&t, Format::Jsonl, &mut buf).unwrap();
    let first = std::str::from_utf8(&buf).unwrap().lines().next().unwrap();
    let row: serde_json::Map<String, serde_json::Value> = serde_json::from_str(first).unwrap();
    let mut at = 0;
    for name in t.column_names() {
        assert!(row.contains_key(name), "{name}");
        let key = format!("\"{name}\":");
        at += first[at..]
            .find(&key)
            .unwrap_or_else(|| panic!("{name}: {first}"))
            + key.len();
    }
}
