//! The corpus HTTP-broadcast directories (Deadlock, two captures) read by
//! the input stage: every record of every fragment, every entity update, to
//! the last tick received, with zero errors; a cut fragment keeps what came
//! before it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use gamewire_query::input::{is_broadcast_dir, open, read_broadcast};
use gamewire_query::{Column, Cut, InputCut, Query, TableKind};
use gamewire_source2::broadcast::to_demo;
use gamewire_source2::{parse_with, ErrorKind, Game, NoVisitor};

fn broadcast(name: &str) -> PathBuf {
    gamewire_corpus::path("deadlock/broadcast").join(name)
}

#[test]
fn corpus_broadcasts_parse_to_the_last_tick() {
    // (capture, fragments, first tick, last tick, tick rate); the last tick is
    // the tick of the last record of the last delta.bin, read off the files.
    for (name, frags, first_tick, last_tick, tps) in [
        ("street_test_60tps", 12, 7244, 8861, 60),
        ("dl_midtown_2025-02-27", 8, 9631, 15772, 64),
    ] {
        let dir = broadcast(name);
        assert!(is_broadcast_dir(&dir));
        let b = read_broadcast(&dir).unwrap();
        assert_eq!(b.tps, Some(tps));
        // start.bin, the first full.bin, then every delta.bin.
        assert_eq!(b.fragments.len(), frags, "{name}");
        assert!(b.fragments[0].name.ends_with("start.bin"));
        assert!(b.fragments[1].name.ends_with("full.bin"));
        let input = open(&dir).unwrap();
        assert!(input.cut.is_none(), "{name}: {:?}", input.cut);
        assert_eq!(input.bytes, to_demo(&b.fragments).0);
        let (state, err) = parse_with(&input.bytes, &mut NoVisitor).unwrap();
        assert!(err.is_none(), "{name}: {err:?}");
        assert!(state.warnings.is_empty(), "{name}: {:?}", state.warnings);
        assert!(state.reached_stop);
        assert_eq!(state.tick, last_tick, "{name}");
        assert!(
            (state.tick_interval - 1.0 / tps as f32).abs() < 1e-6,
            "{name}"
        );
        // The keyframe brings the full entity list: heroes with positions.
        assert!(
            state.entities.len() > 500,
            "{name}: {}",
            state.entities.len()
        );
        let heroes = state
            .entities
            .iter()
            .filter(|e| state.class_name(e).starts_with("CCitadelPlayerPawn"))
            .count();
        assert!(heroes >= 1, "{name}: no hero pawns");
        assert!(state.entity_updates > 1000, "{name}");
        assert!(first_tick < last_tick);
        // No file header in a broadcast: the game comes from the classes.
        assert_eq!(state.game, Game::Deadlock);
    }
}

#[test]
fn a_cut_fragment_keeps_the_records_before_it() {
    let b = read_broadcast(&broadcast("dl_midtown_2025-02-27")).unwrap();
    let mut fragments = b.fragments.clone();
    let last = fragments.len() - 1;
    let cut = fragments[last].data.len() / 2;
    fragments[last].data.truncate(cut);
    let (demo, err) = to_demo(&fragments);
    let err = err.expect("a cut fragment is reported");
    match &err.kind {
        ErrorKind::Broadcast { fragment, inner } => {
            assert!(fragment.ends_with("delta.bin"), "{fragment}");
            assert!(matches!(**inner, ErrorKind::Truncated { .. }), "{inner}");
        }
        other => panic!("{other}"),
    }
    assert!(err.location.byte_offset < cut as u64);
    // Everything before the cut still parses to a clean stop.
    let (state, perr) = parse_with(&demo, &mut NoVisitor).unwrap();
    assert!(perr.is_none(), "{perr:?}");
    assert!(state.reached_stop);
    assert!(state.tick > 9631);

    // The same cut seen through a run: an error by default, the rows
    // before it when the run keeps cut demos.
    let input = gamewire_query::DemoInput {
        name: "cut".into(),
        bytes: demo,
        cut: Some(InputCut::Fragment(err.clone())),
    };
    let query = Query {
        tables: vec![TableKind::Players],
        ..Query::default()
    };
    let e = query.run_input(&input).unwrap_err();
    assert_eq!(e.to_string(), err.to_string());
    let kept = query.keeping_cut(true).run_input(&input).unwrap();
    assert_eq!(kept.cut, Some(Cut::Input(InputCut::Fragment(err))));
    assert!(kept.tables[0].rows() > 0);
}

/// Tick rows of the broadcasts' heroes: every player's hero inside the
/// game rules' minimap bounds (±10752 on both maps), so the position
/// origin is right; the heroes move.
#[test]
fn broadcast_ticks_keep_the_heroes_inside_the_map() {
    for name in ["street_test_60tps", "dl_midtown_2025-02-27"] {
        let query = Query {
            tables: vec![TableKind::Ticks],
            player_props: ["X", "Y", "health"].map(String::from).to_vec(),
            ..Query::default()
        };
        let parsed = query.run_path(&broadcast(name)).unwrap();
        assert!(parsed.cut.is_none(), "{name}");
        let t = &parsed.tables[0];
        let (Some(Column::F32(xs)), Some(Column::F32(ys)), Some(Column::U64(ids))) =
            (t.column("X"), t.column("Y"), t.column("steamid"))
        else {
            panic!("{name}: {:?}", t.column_names());
        };
        assert!(xs.len() > 4000, "{name}: {} rows", xs.len());
        let mut players = std::collections::BTreeSet::new();
        let mut places = std::collections::BTreeSet::new();
        for ((x, y), id) in xs.iter().zip(ys).zip(ids) {
            let (Some(x), Some(y)) = (x, y) else {
                panic!("{name}: a row without a position")
            };
            assert!(x.abs() <= 10752.0 && y.abs() <= 10752.0, "{name}: {x} {y}");
            places.insert((*x as i32 / 100, *y as i32 / 100));
            if let Some(id) = id {
                players.insert(*id);
            }
        }
        assert!(players.len() >= 10, "{name}: {} players", players.len());
        assert!(places.len() > 100, "{name}: the heroes stand still");
    }
}
