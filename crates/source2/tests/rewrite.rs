//! `edit::rewrite` on every corpus demo (CS2, Deadlock, Dota 2): the
//! rewritten demo decodes to the same model as the original, tick by tick
//! (every entity with every field value, every string table, the game
//! events and user messages), with the same header and file info; and a
//! demo cut in the middle of a frame rewrites up to its cut, with a
//! warning, into a demo that reads to its `DEM_Stop`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod edit_common;

use std::io::Cursor;

use gamewire_source2::container::{DemoCommand, Frame, FrameReader};
use gamewire_source2::edit::rewrite;
use gamewire_source2::packet_writer::PacketMessages;
use gamewire_source2::DemoParser;
use prost::Message;
use source2_demo_protobufs as pb;

fn rewritten(data: &[u8]) -> (Vec<u8>, gamewire_source2::edit::EditReport) {
    let mut cursor = Cursor::new(Vec::new());
    let report = rewrite(data, &mut cursor).unwrap();
    (cursor.into_inner(), report)
}

/// The messages (id, body) of a packet frame; none for other frames.
fn packet_messages(frame: &Frame<'_>) -> Vec<(u32, Vec<u8>)> {
    let data = match frame.command {
        DemoCommand::Packet | DemoCommand::SignonPacket => {
            pb::CDemoPacket::decode(&*frame.payload).unwrap().data
        }
        DemoCommand::FullPacket => pb::CDemoFullPacket::decode(&*frame.payload)
            .unwrap()
            .packet
            .and_then(|p| p.data),
        _ => None,
    };
    PacketMessages::new(data.as_deref().unwrap_or_default())
        .map(|m| {
            let m = m.unwrap();
            (m.id, m.body.into_owned())
        })
        .collect()
}

#[test]
fn a_rewritten_demo_decodes_to_the_same_model() {
    for (name, data) in edit_common::inputs() {
        let (out, report) = rewritten(&data);
        assert!(report.cut.is_none(), "{name}: {:?}", report.cut);
        let (in_ticks, in_state, in_end) = edit_common::digest(&data);
        let (out_ticks, out_state, out_end) = edit_common::digest(&out);
        assert!(
            in_end.is_none() && out_end.is_none(),
            "{name}: {in_end:?} {out_end:?}"
        );
        assert_eq!(in_ticks.len(), out_ticks.len(), "{name}: ticks");
        for (a, b) in in_ticks.iter().zip(&out_ticks) {
            assert_eq!(a, b, "{name}: tick {}", a.tick);
        }
        assert_eq!(in_state.header, out_state.header, "{name}: header");
        assert_eq!(in_state.file_info, out_state.file_info, "{name}: file info");
        assert_eq!(in_state.message_counts, out_state.message_counts, "{name}");
        assert_eq!(in_state.command_counts, out_state.command_counts, "{name}");
        assert_eq!(report.frames_read, report.frames_written, "{name}");
        assert_eq!(report.frames_read, in_state.frames, "{name}");

        // Frame by frame: the same headers and, decompressed, the same
        // payloads (snappy blocks and string-table data compressed again
        // may differ in their bytes, not in what they hold).
        let mut a = FrameReader::new(&data).unwrap();
        let mut b = FrameReader::new(&out).unwrap();
        let (mut frames, mut same) = (0, 0);
        let mut entities = (0u64, 0u64);
        while let Some(fa) = a.next_frame().unwrap() {
            let fb = b.next_frame().unwrap().unwrap();
            assert_eq!(
                (fa.command, fa.tick, fa.compressed),
                (fb.command, fb.tick, fb.compressed),
                "{name}: frame {}",
                fa.index
            );
            frames += 1;
            same += u64::from(fa.payload == fb.payload);
            // The messages: the same ids in the same order; the
            // svc_PacketEntities bodies, which the writer encodes from their
            // records, counted where they are the game's bytes.
            let (ma, mb) = (packet_messages(&fa), packet_messages(&fb));
            assert_eq!(
                ma.iter().map(|m| m.0).collect::<Vec<_>>(),
                mb.iter().map(|m| m.0).collect::<Vec<_>>(),
                "{name}: frame {}",
                fa.index
            );
            for (x, y) in ma.iter().zip(&mb).filter(|(x, _)| x.0 == 55) {
                entities.0 += 1;
                entities.1 += u64::from(x.1 == y.1);
            }
        }
        assert!(b.next_frame().unwrap().is_none());
        let messages: u64 = in_state.message_counts.values().sum();
        println!(
            "{name}: {} ticks, {frames} frames ({same} payloads byte-identical), \
             {messages} messages ({} copied), {} svc_PacketEntities ({} byte-identical); \
             warnings {:?}",
            in_ticks.len(),
            report.messages_copied,
            entities.0,
            entities.1,
            report.warnings
        );
    }
}

#[test]
fn a_demo_cut_inside_a_frame_rewrites_up_to_its_cut() {
    for (name, data) in edit_common::inputs() {
        // Halfway, in the middle of whatever frame is there.
        let mut reader = FrameReader::new(&data).unwrap();
        let mut at = data.len() / 2;
        let mut frame_start = 0;
        while let Some(f) = reader.next_frame().unwrap() {
            if reader.offset() as usize > at {
                frame_start = f.offset as usize;
                at = frame_start + (reader.offset() as usize - frame_start) / 2;
                break;
            }
        }
        let cut = &data[..at];
        let (out, report) = rewritten(cut);
        let end = report.cut.as_ref().expect("the cut is reported");
        assert!(end.is_truncation(), "{name}: {end}");
        assert_eq!(end.location.byte_offset as usize, frame_start, "{name}");
        assert!(
            report
                .warnings
                .iter()
                .any(|w| w.message.contains("ends early")),
            "{name}: {:?}",
            report.warnings
        );
        // The cut input reads (to its cut) as the rewritten one reads (to
        // its DEM_Stop).
        let (in_ticks, _, in_end) = edit_common::digest(cut);
        assert!(in_end.is_some_and(|e| e.is_truncation()), "{name}");
        let mut parser = DemoParser::new(&out).unwrap();
        parser.run(&mut gamewire_source2::NoVisitor).unwrap();
        assert!(parser.state.reached_stop, "{name}");
        let (out_ticks, _, out_end) = edit_common::digest(&out);
        assert!(out_end.is_none(), "{name}: {out_end:?}");
        assert_eq!(in_ticks, out_ticks, "{name}");
        // Every cut in the first frames: an error or a report, never a panic.
        for len in (0..frame_start.min(4000)).step_by(97) {
            let _ = rewrite(&data[..len], Cursor::new(Vec::new()));
        }
    }
}

/// What the fuzz target `rewrite` checks, on a fixed set of mutants of the
/// corpus demos (a few bytes changed anywhere after the file header): a
/// rewrite never panics, and when it writes a demo, that demo reads to the
/// same final state as the mutant (entities with their values, string
/// tables, tick), ending with `DEM_Stop`.
#[test]
fn mutated_demos_rewrite_without_panic_and_read_back_the_same() {
    struct StateOnly;
    impl gamewire_source2::Visitor for StateOnly {
        fn interests(&self) -> gamewire_source2::Interests {
            gamewire_source2::Interests {
                entities: true,
                send_tables: true,
                ..gamewire_source2::Interests::NONE
            }
        }
    }
    fn read(data: &[u8]) -> Option<(gamewire_source2::DemoState, bool)> {
        let mut parser = DemoParser::new(data).ok()?.with_helper_thread(false);
        match parser.run(&mut StateOnly) {
            Ok(()) => Some((parser.state, false)),
            Err(e) if e.is_truncation() => Some((parser.state, true)),
            Err(_) => None,
        }
    }
    type Model = (i32, Vec<(i32, u32, u32, String)>, Vec<(String, usize, u64)>);
    fn model(state: &gamewire_source2::DemoState) -> Model {
        let entities = state
            .entities
            .iter()
            .map(|e| {
                let mut values = e.values();
                values.sort_by_key(|(k, _)| *k);
                (e.index, e.serial, e.class_id, format!("{values:?}"))
            })
            .collect();
        let tables = state
            .string_tables
            .iter()
            .map(|t| {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                for e in &t.entries {
                    std::hash::Hash::hash(&(&e.key, &e.value), &mut h);
                }
                (
                    t.name.clone(),
                    t.entries.len(),
                    std::hash::Hasher::finish(&h),
                )
            })
            .collect();
        (state.tick, entities, tables)
    }
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut written, mut compared) = (0, 0);
    for (name, data) in edit_common::inputs().into_iter().take(7) {
        for _ in 0..24 {
            let mut mutant = data.clone();
            for _ in 0..1 + next() % 4 {
                let at = 16 + (next() as usize) % (mutant.len() - 16);
                mutant[at] ^= 1 << (next() % 8);
            }
            let mut out = Cursor::new(Vec::new());
            let Ok(report) = rewrite(&mutant[..], &mut out) else {
                continue;
            };
            written += 1;
            let Some((first, truncated)) = read(&mutant) else {
                continue;
            };
            let (second, second_truncated) = read(out.get_ref()).expect("a rewritten demo reads");
            assert!(!second_truncated && second.reached_stop, "{name}");
            assert_eq!(truncated, report.cut.is_some(), "{name}");
            assert_eq!(model(&first), model(&second), "{name}");
            compared += 1;
        }
    }
    println!("{written} mutants rewritten, {compared} compared");
    assert!(compared > 0);
}
