//! The corpus HTTP-broadcast fragments (Deadlock, two captures) read as a
//! demo: every record of every fragment, every entity update, to the last
//! tick received, with zero errors; cut fragments keep what came before.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use gamewire_source2::broadcast::{is_broadcast_dir, read_dir, to_demo, Fragment};
use gamewire_source2::{parse_with, ErrorKind, Game, NoVisitor};

fn broadcast(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/deadlock/broadcast")
        .join(name)
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
        let b = read_dir(&dir).unwrap();
        assert_eq!(b.tps, Some(tps));
        // start.bin, the first full.bin, then every delta.bin.
        assert_eq!(b.fragments.len(), frags, "{name}");
        assert!(b.fragments[0].name.ends_with("start.bin"));
        assert!(b.fragments[1].name.ends_with("full.bin"));
        let (demo, err) = to_demo(&b.fragments);
        assert!(err.is_none(), "{name}: {err:?}");
        let (state, err) = parse_with(&demo, &mut NoVisitor).unwrap();
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
    let b = read_dir(&broadcast("dl_midtown_2025-02-27")).unwrap();
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
    let message = err.to_string();
    assert!(message.contains("delta.bin"), "{message}");
    // Everything before the cut still parses to a clean stop.
    let (state, perr) = parse_with(&demo, &mut NoVisitor).unwrap();
    assert!(perr.is_none(), "{perr:?}");
    assert!(state.reached_stop);
    assert!(state.tick > 9631);

    // A record claiming a 2 GiB payload: an error, no allocation, no panic.
    let junk = vec![Fragment {
        name: "junk".into(),
        data: vec![7, 1, 2, 3, 4, 0, 0xff, 0xff, 0xff, 0x7f, 1, 2, 3],
    }];
    let (demo, err) = to_demo(&junk);
    assert!(err.unwrap().to_string().contains("junk"));
    assert!(demo.len() < 64);
    // Random bytes: whatever they decode to, no panic.
    let noise = vec![Fragment {
        name: "noise".into(),
        data: (0..4000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect(),
    }];
    let (demo, _) = to_demo(&noise);
    let _ = parse_with(&demo, &mut NoVisitor);
}
