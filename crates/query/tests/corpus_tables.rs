//! Every table on the real corpus demos: one pass or one at a time, the
//! input stage (files, folders, bad input, cut demos) and reading classes past.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::demos::*;
use gamewire_query::write::{record_batch, write_table, Format};
use gamewire_query::Cell;
use gamewire_query::{InputError, Query, QueryError, TableKind};

#[test]
fn every_corpus_demo_produces_every_table() {
    for demo in demos() {
        let tables =
            run_file(&all_tables(), &demo).unwrap_or_else(|e| panic!("{}: {e}", demo.display()));
        let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            TableKind::ALL.map(|k| k.name()),
            "{}",
            demo.display()
        );
        for t in &tables {
            for (name, col) in &t.columns {
                assert_eq!(col.len(), t.rows(), "{} {}.{name}", demo.display(), t.name);
            }
            // Every table converts to Arrow and writes in every format.
            record_batch(t).unwrap();
            for f in [Format::Csv, Format::Jsonl, Format::Parquet] {
                let mut buf = Vec::new();
                write_table(t, f, &mut buf).unwrap();
                assert!(!buf.is_empty() || t.rows() == 0);
            }
        }
        // Every demo has players and events (at least the synthetic
        // server_cvar ones).
        let events = &tables[0];
        assert!(events.rows() > 0, "{}: no events", demo.display());
        let players = &tables[2];
        assert!(players.rows() > 0, "{}: no players", demo.display());
    }
}

#[test]
fn one_pass_equals_one_table_at_a_time() {
    let data = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    let mut q = all_tables();
    q.player_props = vec!["health".into(), "X".into()];
    q.other_props = vec!["total_rounds_played".into()];
    let together = run(&q, &data).unwrap();
    for (k, t) in TableKind::ALL.iter().zip(&together) {
        let mut one = q.clone();
        one.tables = vec![*k];
        // Only the options the table uses (others are an error).
        if !matches!(k, TableKind::Events | TableKind::Ticks) {
            one.player_props.clear();
        }
        if *k != TableKind::Events {
            one.other_props.clear();
        }
        let alone = run(&one, &data).unwrap();
        assert_eq!(alone.len(), 1);
        assert_eq!(&alone[0], t, "{}", k.name());
    }
}

#[test]
fn unknown_names_list_the_closest() {
    let data = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    let q = Query {
        tables: vec![TableKind::Events],
        events: Some(vec!["player_deth".into()]),
        ..Query::default()
    };
    let e = run(&q, &data).unwrap_err();
    assert!(matches!(e, QueryError::UnknownEvent { .. }));
    assert!(e.to_string().contains("closest: player_death"), "{e}");

    let q = Query {
        tables: vec![TableKind::Ticks],
        player_props: vec!["helth".into()],
        ..Query::default()
    };
    let e = run(&q, &data).unwrap_err();
    assert!(e.to_string().contains("closest: health"), "{e}");

    let q = Query {
        tables: vec![TableKind::Events],
        other_props: vec!["total_round_played".into()],
        ..Query::default()
    };
    let e = run(&q, &data).unwrap_err();
    assert!(
        e.to_string().contains("closest: total_rounds_played"),
        "{e}"
    );

    // Raw names that exist are accepted.
    let q = Query {
        tables: vec![TableKind::Ticks],
        player_props: vec!["CCSPlayerPawn.m_iHealth".into()],
        ..Query::default()
    };
    let t = run(&q, &data).unwrap().remove(0);
    assert_eq!(t.row(0)[4], Cell::Int(100));

    let e = "kils".parse::<TableKind>().unwrap_err();
    assert!(e.to_string().contains("closest: kills"), "{e}");
}

#[test]
fn bad_input_is_an_error() {
    let e = run_file(&all_tables(), &corpus().join("cs2/nope.dem")).unwrap_err();
    assert!(
        matches!(&e, QueryError::Input(i @ InputError::Read { .. }) if i.is_not_found()),
        "{e}"
    );
    assert!(run(&all_tables(), b"not a demo at all").is_err());
    let data = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    let e = run(&all_tables(), &data[..data.len() / 2]).unwrap_err();
    assert!(matches!(e, QueryError::Demo(_)), "{e}");
}

/// A demo cut short: a run that keeps cut demos keeps the tables of
/// everything before the cut and returns the cut; by default it fails on it.
#[test]
fn a_cut_demo_keeps_its_tables_up_to_the_cut() {
    let whole = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    let cut_data = &whole[..280_000];
    let query = Query {
        tables: vec![TableKind::Ticks, TableKind::Events],
        player_props: vec!["health".into(), "X".into()],
        ..Query::default()
    };
    let err = run(&query, cut_data).unwrap_err();
    assert!(
        matches!(&err, QueryError::Demo(e) if e.is_truncation()),
        "{err}"
    );

    let query = query.keeping_cut(true);
    let kept = query.run(cut_data).unwrap();
    let Some(gamewire_query::Cut::Demo(cut)) = kept.cut else {
        panic!("the cut is reported: {:?}", kept.cut);
    };
    assert!(cut.is_truncation());
    assert_eq!(cut.location.byte_offset, 279_931);
    let full = query.run(&whole).unwrap();
    assert!(full.cut.is_none());
    for (k, f) in kept.tables.iter().zip(&full.tables) {
        assert_eq!(k.name, f.name);
        assert!(
            k.rows() > 0 && k.rows() < f.rows(),
            "{}: {} of {}",
            k.name,
            k.rows(),
            f.rows()
        );
        // Every kept row is the whole demo's row at the same place.
        for ((name, kc), (_, fc)) in k.columns.iter().zip(&f.columns) {
            for i in 0..k.rows() {
                assert_eq!(kc.cell(i), fc.cell(i), "{} {name} row {i}", k.name);
            }
        }
    }
}

/// Directories are searched recursively in name order; a directory reached
/// again through a symbolic link (here a link back to the top) is searched
/// once, so its demos are found once.
#[cfg(unix)]
#[test]
fn find_demos_searches_each_directory_once() {
    let top = std::env::temp_dir().join(format!("gamewire-collect-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&top);
    std::fs::create_dir_all(top.join("b/inner")).unwrap();
    for rel in ["a.dem", "b/inner/c.dem", "b/notes.txt"] {
        std::fs::write(top.join(rel), b"x").unwrap();
    }
    std::os::unix::fs::symlink(&top, top.join("b/inner/back")).unwrap();
    let explicit = top.join("b/notes.txt");
    let found =
        gamewire_query::input::find_demos(&[top.clone(), explicit.clone(), top.join("b")]).unwrap();
    assert_eq!(
        found,
        vec![top.join("a.dem"), top.join("b/inner/c.dem"), explicit]
    );
    let missing = gamewire_query::input::find_demos(&[top.join("nope")]).unwrap();
    assert_eq!(
        missing,
        vec![top.join("nope")],
        "a missing file fails when read"
    );
    std::fs::remove_dir_all(&top).unwrap();
}

/// A query whose tables read only the players' controllers and pawns, their
/// teams and the game rules reads every other class past: on every corpus
/// demo its tables equal those of the same query decoding every class.
#[test]
fn player_tables_read_other_classes_past_and_equal_a_full_decode() {
    use gamewire_query::friendly_props::FRIENDLY_PROPS;
    use gamewire_query::ticks::TicksCollector;
    let player_props: Vec<String> = FRIENDLY_PROPS
        .iter()
        .map(|(name, _)| (*name).to_string())
        .filter(|name| {
            TicksCollector::new(std::slice::from_ref(name), None).reads_player_classes_only()
        })
        .collect();
    assert!(player_props.len() > 100);
    let q = Query {
        tables: vec![TableKind::Ticks, TableKind::Players, TableKind::Events],
        player_props,
        other_props: vec!["total_rounds_played".into(), "game_time".into()],
        ..Query::default()
    };
    assert!(q.reads_player_classes_only());
    let with = |f: &dyn Fn(&mut Query)| {
        let mut q = q.clone();
        f(&mut q);
        q
    };
    assert!(
        !with(&|q| q.player_props.push("active_weapon_name".into())).reads_player_classes_only()
    );
    assert!(!with(&|q| q.tables.push(TableKind::Kills)).reads_player_classes_only());
    for demo in demos() {
        let data = std::fs::read(&demo).unwrap();
        // The props this demo's game has (Deadlock and Dota 2 refuse CS2's).
        let (state, _) = gamewire_query::RunOptions::default()
            .parse_keeping_cut(&data, &mut gamewire_query::schema::SendTablesOnly)
            .unwrap();
        let mut q = q.clone();
        q.player_props
            .retain(|p| gamewire_query::prop_checks::player_prop_known(&state, p));
        q.other_props
            .retain(|p| gamewire_query::prop_checks::other_prop_known(&state, p));
        assert!(q.player_props.len() > 5, "{}", demo.display());
        let full = Query {
            decode_every_class: true,
            ..q.clone()
        };
        let (filtered, state) = run_with_state(&q, &data).unwrap();
        let skipped = state.entities.iter().filter(|e| !e.is_decoded()).count();
        assert!(
            skipped > 10,
            "{}: {skipped} entities read past",
            demo.display()
        );
        let (every, state) = run_with_state(&full, &data).unwrap();
        assert!(state.entities.iter().all(|e| e.is_decoded()));
        assert_eq!(filtered.len(), 3);
        for (a, b) in filtered.iter().zip(&every) {
            assert!(a.rows() > 0, "{} {}: empty", demo.display(), a.name);
            assert!(
                format!("{a:?}") == format!("{b:?}"),
                "{} {}: the tables differ",
                demo.display(),
                a.name
            );
        }
    }
}
