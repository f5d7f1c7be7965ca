//! `edit::cut` on every corpus demo (CS2, Deadlock, Dota 2): the cut demo
//! decodes, on every tick of its range, to the same model as the original
//! (every entity with every field value, every string table, the game
//! events and user messages of the tick), and holds no other tick. Cuts
//! from the first tick, at the last tick, of a single tick, at the tick of
//! the input's full packet and just after it, and past the end; a range
//! outside the demo is an error naming the demo's ticks; a demo cut inside
//! a frame is cut up to there.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod edit_common;

use std::collections::BTreeSet;
use std::io::Cursor;

use edit_common::{by_tick, digest, TickDigest};
use gamewire_source2::container::{DemoCommand, FrameReader};
use gamewire_source2::edit::{cut, EditReport, TickRange};
use gamewire_source2::ErrorKind;

fn cut_of(data: &[u8], from: i32, to: i32) -> (Vec<u8>, EditReport) {
    let mut out = Cursor::new(Vec::new());
    let report = cut(data, &mut out, TickRange { from, to })
        .unwrap_or_else(|e| panic!("cut {from}..{to}: {e}"));
    (out.into_inner(), report)
}

/// Checks a cut of `from..=to` against the input's digests.
fn check(name: &str, data: &[u8], in_ticks: &[TickDigest], from: i32, to: i32) {
    let (out, report) = cut_of(data, from, to);
    assert!(
        report.cut.is_none(),
        "{name} {from}..{to}: {:?}",
        report.cut
    );
    let (out_ticks, out_state, end) = digest(&out);
    assert!(end.is_none(), "{name} {from}..{to}: {end:?}");
    assert!(out_state.reached_stop);
    let want: BTreeSet<i32> = in_ticks
        .iter()
        .map(|t| t.tick)
        .filter(|&t| t >= from && t <= to)
        .collect();
    // (The signon's frames keep their ticks: -1 in the games' demos, the
    // ticks of the fragments in a broadcast's.)
    let got: BTreeSet<i32> = out_ticks
        .iter()
        .map(|t| t.tick)
        .filter(|&t| t >= from)
        .collect();
    assert_eq!(got, want, "{name} {from}..{to}: ticks");
    let input = by_tick(in_ticks);
    let output = by_tick(&out_ticks);
    for t in &want {
        assert_eq!(output[t], input[t], "{name} {from}..{to}: tick {t}");
    }
    // The file info: the ticks written from the full packet on, their
    // time, the DEM_Packet frames.
    let (first, last) = written_ticks(&out);
    let info = out_state.file_info.as_ref().expect("a file info");
    assert_eq!(info.playback_ticks, Some(last - first + 1), "{name}");
    let expected_time = (last - first + 1) as f32 * out_state.tick_interval;
    assert_eq!(info.playback_time, Some(expected_time), "{name}");
    assert_eq!(
        info.playback_frames,
        Some(packet_frames(&out) as i32),
        "{name} {from}..{to}"
    );
    println!(
        "{name}: cut {from}..{to}: {} ticks, {} of {} frames written, {} bytes",
        want.len(),
        report.frames_written,
        report.frames_read,
        out.len()
    );
}

/// The first and last tick of the frames from the first `DEM_FullPacket`
/// to `DEM_Stop`.
fn written_ticks(data: &[u8]) -> (i32, i32) {
    let mut r = FrameReader::new(data).unwrap();
    let mut ticks: Option<(i32, i32)> = None;
    while let Some(f) = r.next_frame().unwrap() {
        if f.command == DemoCommand::Stop {
            break;
        }
        if let Some(t) = ticks.as_mut() {
            t.1 = t.1.max(f.tick);
        } else if f.command == DemoCommand::FullPacket {
            ticks = Some((f.tick, f.tick));
        }
    }
    ticks.expect("a full packet")
}

/// `DEM_Packet` frames of a demo.
fn packet_frames(data: &[u8]) -> usize {
    let mut r = FrameReader::new(data).unwrap();
    let mut n = 0;
    while let Some(f) = r.next_frame().unwrap() {
        n += usize::from(f.command == DemoCommand::Packet);
    }
    n
}

/// Ticks of the input's `DEM_FullPacket` frames.
fn full_packet_ticks(data: &[u8]) -> Vec<i32> {
    let mut r = FrameReader::new(data).unwrap();
    let mut out = Vec::new();
    while let Some(f) = r.next_frame().unwrap() {
        if f.command == DemoCommand::FullPacket {
            out.push(f.tick);
        }
    }
    out
}

#[test]
fn a_cut_decodes_to_the_input_on_its_ticks() {
    for (name, data) in edit_common::inputs() {
        let (in_ticks, in_state, end) = digest(&data);
        assert!(end.is_none(), "{name}: {end:?}");
        // The rule the cut's file info follows, checked on the input.
        // (A broadcast has no file info.)
        if let Some(info) = in_state.file_info.as_ref() {
            let frames = Some(packet_frames(&data) as i32);
            assert_eq!(info.playback_frames, frames, "{name}");
        }
        let ticks: Vec<i32> = in_ticks
            .iter()
            .map(|t| t.tick)
            .filter(|&t| t >= 0)
            .collect();
        let (first, last) = (ticks[0], *ticks.last().unwrap());
        let mid = ticks[ticks.len() / 2];
        let later = ticks[(ticks.len() * 3 / 4).min(ticks.len() - 1)];
        check(&name, &data, &in_ticks, first, mid);
        check(&name, &data, &in_ticks, last, last);
        check(&name, &data, &in_ticks, mid, mid);
        check(&name, &data, &in_ticks, mid, later);
        check(&name, &data, &in_ticks, later, last + 1000);
        for f in full_packet_ticks(&data) {
            // At the full packet's tick (and the tick before it, when the
            // demo has one), and just after it.
            if let Some(&before) = ticks.iter().rev().find(|&&t| t < f) {
                check(&name, &data, &in_ticks, before, mid);
            }
            check(&name, &data, &in_ticks, f, mid);
            if let Some(&after) = ticks.iter().find(|&&t| t > f) {
                check(&name, &data, &in_ticks, after, mid);
            }
        }
        // Outside the demo, or not a range: an error that names the
        // demo's first and last tick.
        for (from, to) in [(last + 1, last + 50), (-50, first - 1), (mid, mid - 1)] {
            let e = cut(&data[..], Cursor::new(Vec::new()), TickRange { from, to }).unwrap_err();
            let ErrorKind::TickRange {
                first: f, last: l, ..
            } = e.kind
            else {
                panic!("{name} {from}..{to}: {e}");
            };
            assert_eq!((f, l), (first, last), "{name}: {e}");
            println!("{name}: {from}..{to}: {e}");
        }
    }
}

#[test]
fn a_demo_cut_inside_a_frame_is_cut_up_to_there() {
    for (name, data) in edit_common::inputs() {
        // In the middle of the frame two thirds of the way through.
        let mut reader = FrameReader::new(&data).unwrap();
        let mut bounds = Vec::new();
        while let Some(f) = reader.next_frame().unwrap() {
            bounds.push((f.offset as usize, reader.offset() as usize));
        }
        let (start, end) = bounds[bounds.len() * 2 / 3];
        let inside = (start + end) / 2;
        let short = &data[..inside];
        let (in_ticks, _, end) = digest(short);
        assert!(end.is_some_and(|e| e.is_truncation()), "{name}");
        let ticks: Vec<i32> = in_ticks
            .iter()
            .map(|t| t.tick)
            .filter(|&t| t >= 0)
            .collect();
        let from = ticks[ticks.len() / 3];
        let (out, report) = cut_of(short, from, i32::MAX);
        assert!(
            report.cut.as_ref().is_some_and(|e| e.is_truncation()),
            "{name}"
        );
        assert!(report
            .warnings
            .iter()
            .any(|w| w.message.contains("ends early")));
        let (out_ticks, out_state, end) = digest(&out);
        assert!(end.is_none() && out_state.reached_stop, "{name}: {end:?}");
        let input = by_tick(&in_ticks);
        for t in out_ticks.iter().filter(|t| t.tick >= from) {
            assert_eq!(&t, &input[&t.tick], "{name}: tick {}", t.tick);
        }
        assert_eq!(
            out_ticks.iter().filter(|t| t.tick >= from).count(),
            ticks.iter().filter(|&&t| t >= from).count(),
            "{name}"
        );
    }
}
