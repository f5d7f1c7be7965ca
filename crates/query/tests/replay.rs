//! The replay model against the query tables it is built from: on every
//! corpus demo and on the sample demo, the players' positions at sampled
//! frames equal the `ticks` table's rows at those ticks; the kill feed,
//! rounds, grenade flights, smokes and fires count what their tables hold;
//! every k-th tick keeps the same rows at the ticks it keeps; compressed
//! demos give the same replay; damaged and foreign files are errors.

use std::collections::BTreeMap;
use std::error::Error;
use std::io::Write;
use std::path::PathBuf;

use gamewire_query::replay::{Replay, ReplayOptions};
use gamewire_query::{Column, Query, TableKind, TickSet};

type TestResult = Result<(), Box<dyn Error>>;

fn sample() -> PathBuf {
    gamewire_corpus::workspace_root().join("crates/synth/sample/sample.dem")
}

fn demos() -> Result<Vec<PathBuf>, Box<dyn Error>> {
    let mut out = gamewire_corpus::source2_demos()?;
    out.push(sample());
    Ok(out)
}

fn f32_at(col: Option<&Column>, row: usize) -> Option<f32> {
    match col? {
        Column::F32(v) => v.get(row).copied().flatten(),
        _ => None,
    }
}

fn i64_at(col: Option<&Column>, row: usize) -> Option<i64> {
    match col? {
        Column::I64(v) => v.get(row).copied().flatten(),
        _ => None,
    }
}

/// Per tick, the `ticks` table's positioned rows: slot -> (x, y, z).
type Positions = BTreeMap<i32, BTreeMap<i64, (f32, f32, f32)>>;

fn table_positions(bytes: &[u8], ticks: &[i32]) -> Result<Positions, Box<dyn Error>> {
    let query = Query {
        tables: vec![TableKind::Ticks],
        player_props: vec!["X".into(), "Y".into(), "Z".into()],
        ticks: Some(TickSet::from_ticks(ticks.to_vec())),
        ..Query::default()
    };
    let parsed = query.run(bytes)?;
    let table = parsed.tables.first().ok_or("no ticks table")?;
    let mut out = Positions::new();
    let n = table.column("tick").map_or(0, Column::len);
    for row in 0..n {
        let (Some(tick), Some(slot)) = (
            i64_at(table.column("tick"), row),
            i64_at(table.column("slot"), row),
        ) else {
            continue;
        };
        let (Some(x), Some(y)) = (
            f32_at(table.column("X"), row),
            f32_at(table.column("Y"), row),
        ) else {
            continue;
        };
        let z = f32_at(table.column("Z"), row).unwrap_or(0.0);
        out.entry(i32::try_from(tick)?)
            .or_default()
            .insert(slot, (x, y, z));
    }
    Ok(out)
}

/// The replay's rows at frame `i`: slot -> (x, y, z).
fn replay_rows(replay: &Replay, i: usize) -> BTreeMap<i64, (f32, f32, f32)> {
    let f = &replay.frames;
    f.frame(i)
        .filter_map(|r| {
            let p = replay.meta.players.get(usize::from(*f.player.get(r)?))?;
            Some((p.slot, (*f.x.get(r)?, *f.y.get(r)?, *f.z.get(r)?)))
        })
        .collect()
}

/// Up to `n` frame indices spread over the replay.
fn sampled(frames: usize, n: usize) -> Vec<usize> {
    if frames == 0 {
        return Vec::new();
    }
    let mut out: Vec<usize> = (0..n).map(|k| k * (frames - 1) / n.max(1)).collect();
    out.push(frames - 1);
    out.dedup();
    out
}

#[test]
fn positions_equal_the_ticks_table_on_every_demo() -> TestResult {
    for path in demos()? {
        let bytes = std::fs::read(&path)?;
        let name = path.display().to_string();
        let replay = Replay::from_bytes(&name, bytes.clone(), ReplayOptions::default())?;
        let f = &replay.frames;
        assert!(!f.ticks.is_empty(), "{name}: no frame");
        assert_eq!(f.offsets.len(), f.ticks.len() + 1, "{name}");
        assert!(f.ticks.windows(2).all(|w| w[0] < w[1]), "{name}: ticks");
        for v in [f.x.len(), f.y.len(), f.z.len(), f.yaw.len(), f.health.len()] {
            assert_eq!(v, f.rows(), "{name}: column lengths");
        }
        let frames = sampled(f.ticks.len(), 12);
        let ticks: Vec<i32> = frames
            .iter()
            .filter_map(|&i| f.ticks.get(i).copied())
            .collect();
        let table = table_positions(&bytes, &ticks)?;
        let mut compared = 0;
        for (&i, &tick) in frames.iter().zip(&ticks) {
            let want = table.get(&tick).cloned().unwrap_or_default();
            let got = replay_rows(&replay, i);
            assert_eq!(got, want, "{name}: tick {tick}");
            compared += got.len();
        }
        assert!(compared > 0, "{name}: no player compared");
        assert!(
            replay.meta.players.iter().all(|p| !p.name.is_empty()),
            "{name}: a player without a name"
        );
    }
    Ok(())
}

fn count(bytes: &[u8], kind: TableKind) -> Result<usize, Box<dyn Error>> {
    let query = Query {
        tables: vec![kind],
        ..Query::default()
    };
    let parsed = query.run(bytes)?;
    Ok(parsed.tables.first().map_or(0, |t| t.rows()))
}

#[test]
fn cs2_events_match_their_tables() -> TestResult {
    for path in demos()? {
        let bytes = std::fs::read(&path)?;
        let name = path.display().to_string();
        let replay = Replay::from_bytes(&name, bytes.clone(), ReplayOptions::default())?;
        let meta = &replay.meta;
        if meta.game != "cs2" {
            assert!(meta.kills.is_empty() && meta.rounds.is_empty(), "{name}");
            continue;
        }
        assert_eq!(meta.kills.len(), count(&bytes, TableKind::Kills)?, "{name}");
        assert_eq!(
            meta.rounds.len(),
            count(&bytes, TableKind::Rounds)?,
            "{name}"
        );
        assert_eq!(
            meta.smokes.len(),
            count(&bytes, TableKind::Smokes)?,
            "{name}"
        );
        assert_eq!(
            meta.fires.len(),
            count(&bytes, TableKind::Infernos)?,
            "{name}"
        );
        assert_eq!(meta.bomb.len(), count(&bytes, TableKind::Bomb)?, "{name}");
        let rows: u32 = meta.flights.iter().map(|g| g.rows).sum();
        assert_eq!(rows as usize, replay.projectiles.tick.len(), "{name}");
        for g in &meta.flights {
            let ticks = replay
                .projectiles
                .tick
                .get(g.first_row as usize..(g.first_row + g.rows) as usize)
                .ok_or("flight rows out of range")?;
            assert!(
                ticks.windows(2).all(|w| w[0] <= w[1]),
                "{name}: flight {}",
                g.id
            );
        }
        for r in &meta.rounds {
            assert!(r.start_tick <= r.end_tick, "{name}: round {}", r.round);
        }
        assert!(meta.kills.windows(2).all(|w| w[0].tick <= w[1].tick));
    }
    Ok(())
}

#[test]
fn the_sample_has_every_layer() -> TestResult {
    let replay = Replay::from_bytes(
        "sample.dem",
        std::fs::read(sample())?,
        ReplayOptions::default(),
    )?;
    let m = &replay.meta;
    assert_eq!(m.game, "cs2");
    assert_eq!(m.players.len(), 10);
    assert!(!m.kills.is_empty() && !m.rounds.is_empty());
    assert!(!m.flights.is_empty() && !m.bomb.is_empty());
    assert!(replay.frames.yaw.iter().any(|y| y.is_finite()));
    assert!(replay.frames.health.iter().any(|&h| h > 0));
    assert!(replay.frames.team.iter().all(|&t| t == 2 || t == 3));
    Ok(())
}

#[test]
fn every_kth_tick_keeps_the_same_rows() -> TestResult {
    for path in [sample(), gamewire_corpus::path("cs2/14065.dem")] {
        let bytes = std::fs::read(&path)?;
        let all = Replay::from_bytes("a.dem", bytes.clone(), ReplayOptions::default())?;
        let every = Replay::from_bytes("a.dem", bytes, ReplayOptions { every: 4 })?;
        let want: Vec<i32> = all.frames.ticks.iter().copied().step_by(4).collect();
        // A kept tick may have no positioned row (no frame then).
        assert!(every.frames.ticks.iter().all(|t| want.contains(t)));
        assert!(every.frames.ticks.len() * 10 >= want.len() * 9);
        assert_eq!(every.meta.every, 4);
        for (i, tick) in every.frames.ticks.iter().enumerate() {
            let j = all
                .frames
                .ticks
                .binary_search(tick)
                .map_err(|_| "tick not in all")?;
            assert_eq!(replay_rows(&every, i), replay_rows(&all, j), "tick {tick}");
        }
        assert_eq!(every.meta.kills, all.meta.kills);
    }
    Ok(())
}

#[test]
fn compressed_demos_give_the_same_replay() -> TestResult {
    let bytes = std::fs::read(sample())?;
    let plain = Replay::from_bytes("s.dem", bytes.clone(), ReplayOptions::default())?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&bytes)?;
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(&bytes)?;
    for (name, packed) in [("s.dem.gz", gz.finish()?), ("s.dem.bz2", bz.finish()?)] {
        let replay = Replay::from_bytes(name, packed, ReplayOptions::default())?;
        assert_eq!(replay, plain, "{name}");
    }
    Ok(())
}

#[test]
fn damaged_and_foreign_files_are_errors() -> TestResult {
    let bytes = std::fs::read(sample())?;
    let cut = bytes.get(..bytes.len() / 2).ok_or("short")?.to_vec();
    let err = Replay::from_bytes("cut.dem", cut, ReplayOptions::default())
        .err()
        .ok_or("a truncated demo was accepted")?;
    assert!(!err.to_string().is_empty());
    let foreign = b"\x89PNG\r\n\x1a\nnot a demo at all, an image".to_vec();
    let err = Replay::from_bytes("image.dem", foreign, ReplayOptions::default())
        .err()
        .ok_or("a foreign file was accepted")?;
    assert!(!err.to_string().is_empty());
    let mut flipped = bytes;
    for b in flipped.iter_mut().skip(2000).step_by(97) {
        *b ^= 0x5a;
    }
    // A damaged demo is an error, never a panic.
    let _ = Replay::from_bytes("damaged.dem", flipped, ReplayOptions::default());
    Ok(())
}
