//! The query's checks on the real corpus demos: options no table uses,
//! tick sets (ranges, ticks beyond the end), and what kind of failure an
//! error is.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::demos::*;
use gamewire_query::{Column, ErrorCategory, Query, QueryError, TableKind, TickSet};

fn ticks_query(ticks: &str) -> Query {
    Query {
        tables: vec![TableKind::Ticks],
        player_props: vec!["health".into()],
        ticks: Some(TickSet::parse(ticks).unwrap()),
        ..Query::default()
    }
}

fn tick_column(q: &Query, demo: &str) -> Vec<i64> {
    let t = run_file(q, &corpus().join(demo)).unwrap().remove(0);
    match t.column("tick") {
        Some(Column::I64(v)) => v.iter().map(|c| c.unwrap()).collect(),
        other => panic!("tick: {other:?}"),
    }
}

/// Options that no asked table reads are errors, before any parse.
#[test]
fn options_no_table_uses_are_errors() {
    let kills = || Query {
        tables: vec![TableKind::Kills],
        ..Query::default()
    };
    let cases: Vec<(&str, Query)> = vec![
        (
            "props",
            Query {
                player_props: vec!["X".into()],
                ..kills()
            },
        ),
        (
            "ticks",
            Query {
                ticks: Some(TickSet::from_ticks(vec![5])),
                ..kills()
            },
        ),
        (
            "events",
            Query {
                events: Some(vec!["foo".into()]),
                ..kills()
            },
        ),
        (
            "other",
            Query {
                other_props: vec!["total_rounds_played".into()],
                ..kills()
            },
        ),
        (
            "players",
            Query {
                players: Some(vec![1]),
                ..kills()
            },
        ),
        (
            "humans_only",
            Query {
                humans_only: true,
                tables: vec![TableKind::Events],
                ..Query::default()
            },
        ),
        (
            "grenade_props",
            Query {
                grenade_props: vec!["m_nBounces".into()],
                ..kills()
            },
        ),
    ];
    let data = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    for (option, q) in cases {
        let e = q.validate().unwrap_err();
        assert!(
            matches!(&e, QueryError::OptionNotUsed { option: o, .. } if *o == option),
            "{option}: {e}"
        );
        assert!(e.is_usage(), "{option}");
        assert_eq!(e.category(), ErrorCategory::Usage);
        // A run refuses it too (before parsing: the message is the same).
        let run_e = run(&q, &data).unwrap_err();
        assert_eq!(run_e.to_string(), e.to_string());
    }
    let e = Query {
        ticks: Some(TickSet::from_ticks(vec![5])),
        ..kills()
    }
    .validate()
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the option ticks is not used by the tables asked for (it is used by: ticks)"
    );
    // Used options pass; empty lists count as not set.
    let ok = Query {
        tables: vec![TableKind::Events, TableKind::Ticks, TableKind::Grenades],
        player_props: vec!["X".into()],
        other_props: vec!["total_rounds_played".into()],
        events: Some(vec!["player_death".into()]),
        ticks: Some(TickSet::from_ticks(vec![5])),
        players: Some(vec![1]),
        humans_only: true,
        grenade_props: vec!["m_nBounces".into()],
        ..Query::default()
    };
    ok.validate().unwrap();
    Query {
        events: Some(Vec::new()),
        players: Some(Vec::new()),
        ..kills()
    }
    .validate()
    .unwrap();
}

/// A range keeps every tick from its start to its end, both included.
#[test]
fn tick_ranges_select_rows() {
    let ticks = tick_column(&ticks_query("1000..1010"), "cs2/14065.dem");
    assert!(!ticks.is_empty());
    assert!(ticks.iter().all(|t| (1000..=1010).contains(t)), "{ticks:?}");
    assert!(ticks.contains(&1000) && ticks.contains(&1010), "{ticks:?}");
    // A list of a tick and a range, with spaces.
    let mixed = tick_column(&ticks_query(" 500 , 1000 .. 1010"), "cs2/14065.dem");
    assert_eq!(
        mixed.iter().filter(|t| **t == 500).count() + ticks.len(),
        mixed.len()
    );
    assert!(mixed.contains(&500));
}

/// A tick set beyond the demo's last tick is an error naming that tick,
/// in every game; a set reaching into the demo is not.
#[test]
fn ticks_beyond_the_end_are_errors() {
    for demo in [
        "cs2/14065.dem",
        "deadlock/hltv_10423.dem",
        "dota2/auto-20240102-2233-start.dem",
    ] {
        let whole = Query {
            tables: vec![TableKind::Ticks],
            ..Query::default()
        }
        .run_path(&corpus().join(demo))
        .unwrap();
        let last = whole.state.tick;
        assert!(last > 0, "{demo}");
        let e = run_file(&ticks_query("999999"), &corpus().join(demo)).unwrap_err();
        assert!(
            matches!(e, QueryError::TickOutOfRange { asked: 999999, last: l } if l == last),
            "{demo}: {e}"
        );
        assert!(e.to_string().contains(&last.to_string()), "{e}");
        assert_eq!(e.category(), ErrorCategory::Usage);
        // The last tick itself, or a range that starts before it, is fine.
        run_file(
            &ticks_query(&format!("{last}, 999999")),
            &corpus().join(demo),
        )
        .unwrap();
        run_file(
            &ticks_query(&format!("{}..", last - 1)),
            &corpus().join(demo),
        )
        .unwrap();
    }
}

/// Each failure has its category: the command line's exit code and the
/// Python exception follow it.
#[test]
fn errors_have_categories() {
    let q = Query {
        tables: vec![TableKind::Kills],
        ..Query::default()
    };
    let not_a_demo = run(&q, b"not a demo at all").unwrap_err();
    assert_eq!(
        not_a_demo.category(),
        ErrorCategory::NotADemo,
        "{not_a_demo}"
    );
    assert!(!not_a_demo.is_usage());
    let data = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    let cut = run(&q, &data[..data.len() / 2]).unwrap_err();
    assert_eq!(cut.category(), ErrorCategory::Truncated, "{cut}");
    let missing = run_file(&q, &corpus().join("cs2/nope.dem")).unwrap_err();
    assert_eq!(missing.category(), ErrorCategory::Io, "{missing}");
    let table = "kils".parse::<TableKind>().unwrap_err();
    assert_eq!(table.category(), ErrorCategory::UnknownName);
    assert!(table.is_usage());
    let prop = run(&ticks_query("100"), &data);
    assert!(prop.is_ok());
    let unknown = Query {
        tables: vec![TableKind::Ticks],
        player_props: vec!["helth".into()],
        ..Query::default()
    };
    let e = run(&unknown, &data).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::UnknownName, "{e}");
    assert!(e.is_usage());
    let bad = TickSet::parse("1..x").unwrap_err();
    assert_eq!(bad.category(), ErrorCategory::Usage);
}
