//! `edit::broadcast` on the corpus: every CS2 demo written as broadcast
//! fragments and read back through `broadcast::to_demo`, joined at its
//! first fragment, at its second and at its last, decodes from that
//! fragment's first tick on to the demo's model on every tick (every
//! entity with every field value, every string table, the game events and
//! user messages of the tick) and holds no tick the demo lacks; the
//! Deadlock broadcasts, read, written again as broadcasts from their own
//! demo stream and read back, decode to the same model. The fragment
//! layout: `0/start.bin`, then `n/full.bin` and `n/delta.bin` from 1, each
//! a run of complete records, the first record of `full.bin` at the
//! fragment's first tick.

mod edit_common;

use std::collections::BTreeSet;
use std::error::Error;

use edit_common::{by_tick, digest, inputs, TickDigest};
use gamewire_source2::broadcast::to_demo;
use gamewire_source2::edit::broadcast::{broadcast, Broadcast, DEFAULT_FRAGMENT_SECONDS};

type Result<T = ()> = std::result::Result<T, Box<dyn Error>>;

/// Checks that `written`, joined at fragment `k`, decodes to `want` on
/// every tick from fragment `k`'s first tick on; returns the ticks checked.
fn check_joined(name: &str, written: &Broadcast, k: u32, want: &[TickDigest]) -> Result<usize> {
    let from = written
        .fragment_tick(k)
        .ok_or_else(|| format!("{name}: no fragment {k}"))?;
    let fragments = written.joined_at(k);
    if fragments.len() != 2 + (written.fragment_count() - k + 1) as usize {
        return Err(format!("{name} at {k}: {} fragments", fragments.len()).into());
    }
    let (demo, error) = to_demo(&fragments);
    if let Some(e) = error {
        return Err(format!("{name} at {k}: {e}").into());
    }
    let (got, state, end) = digest(&demo);
    if let Some(e) = end {
        return Err(format!("{name} at {k}: {e}").into());
    }
    if !state.reached_stop {
        return Err(format!("{name} at {k}: no DEM_Stop").into());
    }
    let want_ticks: BTreeSet<i32> = want.iter().map(|t| t.tick).filter(|&t| t >= from).collect();
    let got_ticks: BTreeSet<i32> = got.iter().map(|t| t.tick).filter(|&t| t >= from).collect();
    if want_ticks != got_ticks {
        return Err(format!(
            "{name} at {k} (tick {from}): {} ticks read, {} in the demo",
            got_ticks.len(),
            want_ticks.len()
        )
        .into());
    }
    // Between the first game frame and the keyframe's tick, a client that
    // joins later has nothing (the signon's frames keep their own ticks:
    // -1 in the games' demos, the first fragment's tick in the relays').
    let first = written.sync.tick;
    if let Some(t) = got.iter().find(|t| t.tick > first && t.tick < from) {
        return Err(format!("{name} at {k}: tick {} before {from}", t.tick).into());
    }
    let (want_by, got_by) = (by_tick(want), by_tick(&got));
    for t in &want_ticks {
        if want_by.get(t) != got_by.get(t) {
            return Err(format!("{name} at {k}: tick {t} differs").into());
        }
    }
    Ok(want_ticks.len())
}

/// The fragments to join at: the first, the second and the last.
fn joins(written: &Broadcast) -> BTreeSet<u32> {
    let n = written.fragment_count();
    [1, 2, n]
        .into_iter()
        .filter(|&k| k >= 1 && k <= n)
        .collect()
}

/// The layout: names, the record stream of each fragment, the keyframe
/// ticks, the sync fields.
fn check_layout(name: &str, written: &Broadcast, seconds: f64) -> Result {
    let n = written.fragment_count();
    let names: Vec<&str> = written.fragments.iter().map(|f| f.name.as_str()).collect();
    let mut expected = vec!["0/start.bin".to_string()];
    for k in 1..=n {
        expected.push(format!("{k}/full.bin"));
        expected.push(format!("{k}/delta.bin"));
    }
    if names != expected {
        return Err(format!("{name}: fragments {names:?}").into());
    }
    let sync = &written.sync;
    let length = sync.endtick - sync.tick;
    if (f64::from(length) - seconds * f64::from(sync.tps)).abs() > 0.5 || length < 1 {
        return Err(format!("{name}: {length} ticks per fragment at {} tps", sync.tps).into());
    }
    if (sync.fragment, sync.signup_fragment) != (1, 0) || sync.keyframe_interval != seconds {
        return Err(format!("{name}: {sync:?}").into());
    }
    let last = sync.maxtick - sync.tick;
    if n != (last / length + 1) as u32 {
        return Err(format!(
            "{name}: {n} fragments for ticks {}..{}",
            sync.tick, sync.maxtick
        )
        .into());
    }
    // Each full.bin is one DEM_FullPacket record (13) at its fragment's
    // first tick (or the first tick of a frame in it).
    for k in 1..=n {
        let full = written
            .fragments
            .get(2 * k as usize - 1)
            .ok_or("a full.bin")?;
        let tick = full
            .data
            .get(1..5)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or("a record")?;
        let start = written.fragment_tick(k).ok_or("a fragment tick")?;
        if full.data.first() != Some(&13) || tick < start || tick >= start + length {
            return Err(
                format!("{name}: {k}/full.bin at tick {tick}, fragment from {start}").into(),
            );
        }
    }
    let json: serde_json::Value = serde_json::from_str(&sync.to_json())?;
    for key in [
        "tick",
        "endtick",
        "maxtick",
        "fragment",
        "signup_fragment",
        "tps",
    ] {
        if json.get(key).and_then(serde_json::Value::as_i64).is_none() {
            return Err(format!("{name}: sync.json without {key}: {json}").into());
        }
    }
    Ok(())
}

#[test]
fn cs2_demos_read_back_from_every_join() -> Result {
    let mut checked = 0;
    for (name, data) in inputs() {
        if !name.contains("cs2") {
            continue;
        }
        let (want, _, end) = digest(&data);
        if let Some(e) = end {
            return Err(format!("{name}: {e}").into());
        }
        for seconds in [DEFAULT_FRAGMENT_SECONDS, 1.0] {
            let written = broadcast(data.as_slice(), seconds)?;
            if let Some(e) = &written.report.cut {
                return Err(format!("{name}: {e}").into());
            }
            check_layout(&name, &written, seconds)?;
            if written.sync.tps != 64 {
                return Err(format!("{name}: {} ticks per second", written.sync.tps).into());
            }
            for k in joins(&written) {
                let ticks = check_joined(&name, &written, k, &want)?;
                println!(
                    "{name}: {seconds} s fragments, joined at {k} of {}: {ticks} ticks equal",
                    written.fragment_count()
                );
            }
        }
        checked += 1;
    }
    if checked != 5 {
        return Err(format!("{checked} CS2 demos, expected 5").into());
    }
    Ok(())
}

#[test]
fn deadlock_broadcasts_written_again_read_the_same() -> Result {
    let mut checked = 0;
    for (name, data) in inputs() {
        if !name.contains("broadcast") {
            continue;
        }
        let (want, _, end) = digest(&data);
        if let Some(e) = end {
            return Err(format!("{name}: {e}").into());
        }
        let written = broadcast(data.as_slice(), DEFAULT_FRAGMENT_SECONDS)?;
        check_layout(&name, &written, DEFAULT_FRAGMENT_SECONDS)?;
        for k in joins(&written) {
            let ticks = check_joined(&name, &written, k, &want)?;
            println!(
                "{name}: joined at {k} of {}: {ticks} ticks equal",
                written.fragment_count()
            );
        }
        checked += 1;
    }
    if checked != 2 {
        return Err(format!("{checked} Deadlock broadcasts, expected 2").into());
    }
    Ok(())
}

#[test]
fn bad_lengths_and_cut_demos() -> Result {
    let path = gamewire_corpus::path("cs2/14155.dem");
    let data = std::fs::read(&path)?;
    for seconds in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        if broadcast(data.as_slice(), seconds).is_ok() {
            return Err(format!("{seconds} s fragments were accepted").into());
        }
    }
    // A demo cut inside its game frames is written up to the cut, which
    // the report names, and what is written reads back.
    let half = data.get(..data.len() * 3 / 4).ok_or("a part")?;
    let written = broadcast(half, DEFAULT_FRAGMENT_SECONDS)?;
    if written.report.cut.is_none() {
        return Err("the cut is not reported".into());
    }
    let (demo, error) = to_demo(&written.joined_at(1));
    if let Some(e) = error {
        return Err(e.into());
    }
    let (got, _, end) = digest(&demo);
    if let Some(e) = end {
        return Err(e.into());
    }
    let (want, _, _) = digest(half);
    let last = written.sync.maxtick;
    let (want_by, got_by) = (by_tick(&want), by_tick(&got));
    for t in (written.sync.tick..=last).filter(|t| want_by.contains_key(t)) {
        if want_by.get(&t) != got_by.get(&t) {
            return Err(format!("cut demo: tick {t} differs").into());
        }
    }
    // A demo cut inside its signon has no game frame to write.
    let signon = data.get(..data.len() / 3).ok_or("a part")?;
    if broadcast(signon, DEFAULT_FRAGMENT_SECONDS).is_ok() {
        return Err("a demo without a game frame was written".into());
    }
    // Not a demo at all.
    if broadcast(&b"not a demo"[..], DEFAULT_FRAGMENT_SECONDS).is_ok() {
        return Err("bytes that are not a demo were accepted".into());
    }
    Ok(())
}
