//! Every real demo in `../shared/corpus` (CS2, Deadlock, Dota 2): parsed to
//! the last tick with zero errors and zero warnings, summarised in an insta
//! snapshot; truncated and corrupted copies end in located errors, never a
//! panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use gamewire_source2::{parse_with, DemoParser, NoVisitor, Value};

fn corpus() -> PathBuf {
    gamewire_corpus::root()
}

fn demos() -> Vec<PathBuf> {
    let out = gamewire_corpus::source2_demos().unwrap_or_else(|e| panic!("{e}"));
    assert!(out.len() >= 7, "expected the 7 corpus demos, found {out:?}");
    out
}

/// An order-independent checksum of every entity's final state.
fn state_checksum(state: &gamewire_source2::DemoState) -> u64 {
    let mut sum = 0u64;
    for e in state.entities.iter() {
        for (k, v) in e.values() {
            let text = match v {
                Value::F32(f) => format!("{:.3}", f),
                other => other.to_string(),
            };
            let mut h = 0xcbf29ce484222325u64
                ^ (k as u64)
                ^ ((k >> 64) as u64).rotate_left(17)
                ^ (e.index as u64).rotate_left(40);
            for b in text.bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
            }
            sum = sum.wrapping_add(h);
        }
    }
    sum
}

#[test]
fn every_demo_parses_to_the_last_tick() {
    for path in demos() {
        let data = std::fs::read(&path).unwrap();
        let (state, error) = parse_with(&data, &mut NoVisitor).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        assert!(error.is_none(), "{name}: {error:?}");
        assert!(state.reached_stop, "{name}: DEM_Stop not reached");
        let playback = state
            .file_info
            .as_ref()
            .and_then(|f| f.playback_ticks)
            .expect("file info");
        assert_eq!(state.tick, playback, "{name}: last tick");
        assert!(
            state.warnings.is_empty(),
            "{name}: warnings {:?}",
            state.warnings
        );
        assert!(
            state.entity_updates > 1000,
            "{name}: only {} entity updates",
            state.entity_updates
        );
        let tables = state.send_tables.as_ref().unwrap();
        assert!(
            tables.fallbacks.is_empty(),
            "{name}: fallback decoders {:?}",
            tables.fallbacks
        );
        let summary = serde_json::json!({
            "map": state.map_name(),
            "build": state.header.as_ref().and_then(|h| h.build_num),
            "last_tick": state.tick,
            "frames": state.frames,
            "serializers": tables.serializers.len(),
            "classes": state.classes.iter().filter(|c| !c.name.is_empty()).count(),
            "string_tables": state.string_tables.iter().map(|t| (t.name.clone(), t.entries.len())).collect::<Vec<_>>(),
            "players": state.players.values().map(|p| (p.name.clone(), p.steamid, p.fake_player)).collect::<Vec<_>>(),
            "entities_at_end": state.entities.len(),
            "entity_updates": state.entity_updates,
            "state_checksum": format!("{:016x}", state_checksum(&state)),
        });
        insta::assert_json_snapshot!(name, summary);
    }
}

#[test]
fn truncated_demos_keep_progress_and_report_the_cut() {
    for path in demos() {
        let data = std::fs::read(&path).unwrap();
        let (full, _) = parse_with(&data, &mut NoVisitor).unwrap();
        // Every 1 KiB boundary of the smallest CS2 demo, every 16 KiB elsewhere.
        let step = if path.ends_with("14132.dem") {
            1024
        } else {
            16 * 1024
        };
        let mut cut = 16 + step;
        while cut < data.len() {
            let mut parser = DemoParser::new(&data[..cut]).unwrap();
            let result = parser.run(&mut NoVisitor);
            assert!(parser.state.tick <= full.tick);
            if let Err(e) = result {
                assert!(
                    e.is_truncation(),
                    "{} cut at {cut}: not a truncation: {e}",
                    path.display()
                );
                assert!(e.location.byte_offset <= cut as u64);
                let msg = e.to_string();
                assert!(
                    msg.contains("byte") && msg.contains("tick") && msg.contains("frame"),
                    "{msg}"
                );
            }
            cut += step;
        }
    }
}

#[test]
fn corrupted_demos_error_without_panic() {
    for path in demos() {
        let data = std::fs::read(&path).unwrap();
        let mut seed = 0x9e3779b97f4a7c15u64;
        for _ in 0..40 {
            let mut bad = data.clone();
            for _ in 0..4 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let pos = 16 + (seed as usize) % (bad.len() - 16);
                bad[pos] ^= 1 << (seed >> 60 & 7);
            }
            if let Ok(mut parser) = DemoParser::new(&bad) {
                // Either completes or returns an error; it must not panic or hang.
                let _ = parser.run(&mut NoVisitor);
            }
        }
    }
}

#[test]
fn non_demos_are_rejected() {
    let e = DemoParser::new(b"HL2DEMO\0\x03\0\0\0\0\0\0\0").unwrap_err();
    assert!(e.to_string().contains("Source 1"));
    let e = DemoParser::new(b"GIF89a not a demo").unwrap_err();
    assert!(e.to_string().contains("not a Source 2 demo"));
}

/// Extracts every `CSVCMsg_PacketEntities` of a demo (outside full packets).
fn packet_entities_messages(data: &[u8]) -> Vec<source2_demo_protobufs::CSvcMsgPacketEntities> {
    use gamewire_bits::BitReader;
    use gamewire_source2::container::{DemoCommand, FrameReader};
    use prost::Message;
    let mut out = Vec::new();
    let mut frames = FrameReader::new(data).unwrap();
    while let Some(f) = frames.next_frame().unwrap() {
        if f.command != DemoCommand::Packet {
            continue;
        }
        let packet = source2_demo_protobufs::CDemoPacket::decode(&*f.payload).unwrap();
        let bytes = packet.data.unwrap_or_default();
        let mut r = BitReader::new(&bytes);
        while r.bits_remaining() >= 8 {
            let id = r.read_ubitvar().unwrap();
            let size = r.read_varuint32().unwrap() as usize;
            let body = r.read_bytes(size).unwrap();
            if id == 55 {
                out.push(
                    source2_demo_protobufs::CSvcMsgPacketEntities::decode(body.as_slice()).unwrap(),
                );
            }
        }
    }
    out
}

/// Flips three bits of `payload` chosen by an xorshift generator.
fn flip_three_bits(payload: &mut [u8], seed: &mut u64) {
    for _ in 0..3 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let bit = (*seed % (payload.len() as u64 * 8)) as usize;
        payload[bit / 8] ^= 1 << (bit % 8);
    }
}

/// One of the last 40 packet-entities messages (by `round`), with three
/// bits of its payload flipped; `None` for one without a payload.
fn mutated_message(
    messages: &[source2_demo_protobufs::CSvcMsgPacketEntities],
    round: usize,
    seed: &mut u64,
) -> Option<source2_demo_protobufs::CSvcMsgPacketEntities> {
    let mut msg = messages[messages.len() - 1 - round % 40].clone();
    let payload = msg.entity_data.get_or_insert_with(Vec::new);
    if payload.is_empty() {
        return None;
    }
    flip_three_bits(payload, seed);
    Some(msg)
}

/// Random bit flips inside real packet-entity payloads, applied to the state
/// at the end of the demo: an error names the entity, its class and (for
/// field data) the field path; never a panic, never unbounded memory.
#[test]
fn mutated_entity_payloads_give_located_errors() {
    for name in [
        "cs2/14011.dem",
        "cs2/14150_ag2.dem",
        "deadlock/hltv_10423.dem",
    ] {
        let data = std::fs::read(corpus().join(name)).unwrap();
        let messages = packet_entities_messages(&data);
        assert!(messages.len() >= 40, "{name}: {} messages", messages.len());
        let mut parser = DemoParser::new(&data).unwrap();
        parser.run(&mut NoVisitor).unwrap();
        let mut seed = 0x2545f4914f6cdd1du64;
        let mut located = 0;
        let mut with_path = 0;
        for round in 0..300 {
            let Some(msg) = mutated_message(&messages, round, &mut seed) else {
                continue;
            };
            if let Err(e) = parser.apply_packet_entities(&msg, &mut NoVisitor) {
                let text = e.to_string();
                assert!(text.contains("tick"), "{text}");
                if let gamewire_source2::ErrorKind::Entity(entity) = &e.kind {
                    located += 1;
                    assert!(!entity.class.is_empty());
                    if entity.path.is_some() {
                        with_path += 1;
                    }
                }
            }
            // Entity indices stay within the engine's limit.
            assert!(parser
                .state
                .entities
                .iter()
                .all(|e| (e.index as usize) < gamewire_source2::entity::MAX_ENTITIES));
        }
        assert!(
            located > 0 && with_path > 0,
            "{name}: {located} located errors, {with_path} with a field path"
        );
    }
}

/// Every user message, protobuf game event and temp entity of every corpus
/// demo: named for its game, and, where the protobuf crate has its type,
/// decoded without error.
#[test]
fn every_message_is_named_and_decodes() {
    use std::collections::BTreeMap;

    use gamewire_source2::{DemoState, Game, Interests, UserMessage, Visitor};

    #[derive(Default)]
    struct Messages {
        decoded: BTreeMap<String, u64>,
        failed: Vec<String>,
        unknown: BTreeMap<u32, u64>,
    }
    impl Visitor for Messages {
        fn interests(&self) -> Interests {
            Interests {
                user_messages: true,
                ..Interests::NONE
            }
        }
        fn on_user_message(&mut self, _: &DemoState, m: &UserMessage<'_>) {
            match m.to_json() {
                Some(Ok(v)) => {
                    assert!(v.is_object(), "{}: {v}", m.name());
                    *self.decoded.entry(m.name()).or_default() += 1;
                }
                Some(Err(e)) => self.failed.push(format!("{} ({}): {e}", m.name(), m.id)),
                None if m.kind().is_none() => *self.unknown.entry(m.id).or_default() += 1,
                None => {}
            }
        }
    }
    let mut per_game: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
    for path in demos() {
        let data = std::fs::read(&path).unwrap();
        let mut v = Messages::default();
        let (state, err) = parse_with(&data, &mut v).unwrap();
        assert!(err.is_none(), "{}: {err:?}", path.display());
        assert!(v.failed.is_empty(), "{}: {:?}", path.display(), v.failed);
        assert_ne!(state.game, Game::Any, "{}", path.display());
        // At most a handful of ids no table names (CS2 id 138 is one).
        assert!(v.unknown.len() <= 2, "{}: {:?}", path.display(), v.unknown);
        let game = per_game.entry(format!("{:?}", state.game)).or_default();
        for (k, n) in v.decoded {
            *game.entry(k).or_default() += n;
        }
    }
    // What the corpus holds, per game (a regression check on the tables).
    let cs2 = &per_game["Cs2"];
    assert_eq!(cs2.get("GeFireBulletsId"), Some(&37));
    assert_eq!(cs2.get("CsUmMatchEndConditions"), Some(&5));
    assert!(per_game["Dota2"].contains_key("DotaUmCombatLogDataHltv"));
    assert!(per_game["Deadlock"].contains_key("GeSosStartSoundEvent"));
}

/// Without entities, the send tables are skipped (most of the signon's
/// cost) unless asked for; game events come out the same either way.
#[test]
fn send_tables_are_decoded_only_when_wanted() {
    use gamewire_source2::{DemoState, GameEvent, Interests, Visitor};
    struct Events(Interests, Vec<String>);
    impl Visitor for Events {
        fn interests(&self) -> Interests {
            self.0
        }
        fn on_game_event(&mut self, _: &DemoState, e: &GameEvent) {
            self.1.push(format!("{} {}", e.name, e.tick));
        }
    }
    for demo in demos() {
        let data = std::fs::read(&demo).unwrap();
        let mut runs = Vec::new();
        for interests in [
            Interests {
                game_events: true,
                ..Interests::NONE
            },
            Interests {
                game_events: true,
                send_tables: true,
                ..Interests::NONE
            },
            Interests::ALL,
        ] {
            let mut parser = DemoParser::new(&data).unwrap();
            let mut v = Events(interests, Vec::new());
            parser.run(&mut v).unwrap();
            assert_eq!(
                parser.state.send_tables.is_some(),
                interests.wants_send_tables(),
                "{}: {interests:?}",
                demo.display()
            );
            assert_eq!(parser.state.entities.is_empty(), !interests.entities);
            runs.push(v.1);
        }
        assert!(runs.windows(2).all(|w| w[0] == w[1]), "{}", demo.display());
    }
}

/// A send-table cache shared between parsers gives the same final state as
/// fresh builds (and the same event descriptors), and builds each demo's
/// tables and descriptors once.
#[test]
fn shared_send_tables_give_the_same_state() {
    use std::sync::Arc;
    let cache = Arc::new(gamewire_source2::SendTableCache::new(16));
    let paths = demos();
    let mut with_events = 0;
    for round in 0..2 {
        for path in &paths {
            let data = std::fs::read(path).unwrap();
            let (fresh, _) = parse_with(&data, &mut NoVisitor).unwrap();
            let mut parser = DemoParser::new(&data)
                .unwrap()
                .with_send_table_cache(Arc::clone(&cache));
            parser.run(&mut NoVisitor).unwrap();
            let shared = parser.state;
            assert_eq!(
                state_checksum(&fresh),
                state_checksum(&shared),
                "{}",
                path.display()
            );
            assert_eq!(fresh.entity_updates, shared.entity_updates);
            assert_eq!(fresh.warnings.len(), shared.warnings.len());
            assert_eq!(fresh.event_descriptors, shared.event_descriptors);
            if round == 0 && !fresh.event_descriptors.is_empty() {
                with_events += 1;
            }
        }
    }
    let events = cache.descriptor_stats();
    assert!(with_events >= 5, "{with_events}");
    assert!(events.hits >= with_events, "{events:?}");
    assert!(events.misses <= with_events, "{events:?}");
    let stats = cache.stats();
    // Each demo misses once (unless two corpus demos share a build) and
    // hits on the second round.
    assert_eq!(stats.hits + stats.misses, 2 * paths.len() as u64);
    assert!(stats.hits >= paths.len() as u64, "{stats:?}");
    assert!(cache.len() <= paths.len());
}

/// Send tables built on the helper thread while the signon is read give
/// the same parse as building them in place: every entity's final state,
/// the counts, warnings, descriptors and serializers.
#[test]
fn helper_thread_gives_the_same_result() {
    let mut helper_jobs = 0;
    for path in demos() {
        let data = std::fs::read(&path).unwrap();
        let run = |helper: bool| {
            let mut parser = DemoParser::new(&data).unwrap().with_helper_thread(helper);
            parser.run(&mut NoVisitor).unwrap();
            (parser.helper_jobs(), parser.state)
        };
        let ((no_jobs, inline), (jobs, helped)) = (run(false), run(true));
        assert_eq!(no_jobs, 0, "{}", path.display());
        helper_jobs += jobs;
        let name = path.display();
        assert_eq!(state_checksum(&inline), state_checksum(&helped), "{name}");
        assert_eq!(inline.tick, helped.tick, "{name}");
        assert_eq!(inline.entity_updates, helped.entity_updates, "{name}");
        assert_eq!(inline.warnings, helped.warnings, "{name}");
        assert_eq!(inline.event_descriptors, helped.event_descriptors, "{name}");
        let (a, b) = (
            inline.send_tables.clone().unwrap(),
            helped.send_tables.clone().unwrap(),
        );
        assert_eq!(
            format!("{:?} {:?}", a.serializers, a.fields),
            format!("{:?} {:?}", b.serializers, b.fields),
            "{name}"
        );
        let classes = |s: &gamewire_source2::DemoState| {
            s.classes.iter().map(|c| c.serializer).collect::<Vec<_>>()
        };
        assert_eq!(classes(&inline), classes(&helped), "{name}");
    }
    // Other tests may hold the helper at times; it still ran for some.
    assert!(helper_jobs > 0);
}

/// Parses on several threads at once share the one helper thread (a parse
/// that finds it busy builds its own tables) and each gets what a parse on
/// its own gets.
#[test]
fn concurrent_parses_with_the_helper_thread_agree() {
    let data: Vec<Vec<u8>> = demos().iter().map(|p| std::fs::read(p).unwrap()).collect();
    let expected: Vec<(u64, u64)> = data
        .iter()
        .map(|d| {
            let mut parser = DemoParser::new(d).unwrap().with_helper_thread(false);
            parser.run(&mut NoVisitor).unwrap();
            (state_checksum(&parser.state), parser.state.entity_updates)
        })
        .collect();
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (data, expected) = (&data, &expected);
            scope.spawn(move || {
                for round in 0..3 {
                    for (i, d) in data.iter().enumerate().skip((t + round) % 2) {
                        let mut parser = DemoParser::new(d).unwrap().with_helper_thread(true);
                        parser.run(&mut NoVisitor).unwrap();
                        let got = (state_checksum(&parser.state), parser.state.entity_updates);
                        assert_eq!(got, expected[i], "thread {t}, demo {i}");
                    }
                }
            });
        }
    });
}

/// A damaged `CDemoSendTables` frame fails the same way, at the same
/// frame, whether its tables are built on the helper thread or in place.
#[test]
fn damaged_send_tables_fail_alike_with_the_helper_thread() {
    use gamewire_source2::container::{DemoCommand, FrameReader};
    let data = std::fs::read(corpus().join("cs2/14132.dem")).unwrap();
    let mut frames = FrameReader::new(&data).unwrap();
    let mut found = None;
    while let Some(f) = frames.next_frame().unwrap() {
        if f.command == DemoCommand::SendTables {
            found = Some((f.offset as usize, f.index, frames.offset() as usize));
            break;
        }
    }
    let (start, index, end) = found.unwrap();
    // The frame after it (class info), which the parser reads while the
    // helper builds.
    let next_end = frames
        .next_frame()
        .unwrap()
        .map(|_| frames.offset() as usize)
        .unwrap();
    let mut failures = 0;
    for k in 1..48 {
        let mut bad = data.clone();
        // Inside the payload, past the frame header.
        let at = start + 8 + (end - start - 8) * (k % 24) / 24;
        bad[at] ^= 0x5a;
        if k >= 24 {
            // Damage the next frame too: the send tables' error, the
            // earlier one, is still the one reported.
            for b in &mut bad[next_end - 4..next_end] {
                *b ^= 0xff;
            }
        }
        let run = |helper: bool| {
            let mut parser = DemoParser::new(&bad).unwrap().with_helper_thread(helper);
            parser.run(&mut NoVisitor).map_err(|e| e.to_string())
        };
        let (inline, helped) = (run(false), run(true));
        assert_eq!(inline, helped, "byte {at}");
        if let Err(e) = inline {
            failures += 1;
            // Garbage that still builds may fail later, in an entity (or
            // at the damaged frame after it); everything else fails at the
            // send tables' frame.
            let at_next = k >= 24 && e.contains(&format!("(frame {} at byte {end}", index + 1));
            if !e.starts_with("entity") && !at_next {
                assert!(
                    e.contains(&format!("(frame {index} at byte {start}")),
                    "{e}"
                );
            }
        }
    }
    assert!(failures > 0);
}

/// Frames after the send tables that are damaged fail the same way with
/// the helper thread as without it, although the parser decompresses them
/// ahead of their turn while it waits for the tables: the error is reported
/// at the damaged frame, and everything before it is the same.
#[test]
fn damaged_frames_after_the_send_tables_fail_alike_with_the_helper_thread() {
    use gamewire_source2::container::{DemoCommand, FrameReader};
    for name in ["cs2/14065.dem", "cs2/14132.dem", "cs2/14155.dem"] {
        let data = std::fs::read(corpus().join(name)).unwrap();
        let mut frames = FrameReader::new(&data).unwrap();
        let mut after_tables = false;
        let mut targets = Vec::new();
        while let Some(f) = frames.next_frame().unwrap() {
            if f.command == DemoCommand::SendTables {
                after_tables = true;
            } else if after_tables && f.compressed && targets.len() < 6 {
                targets.push((f.offset as usize, frames.offset() as usize));
            }
        }
        assert!(targets.len() >= 3, "{name}");
        let mut frame_errors = 0;
        for (start, end) in targets {
            for (k, cut) in [(0, false), (1, false), (2, true)] {
                let mut bad = data.clone();
                if cut {
                    bad.truncate(start + (end - start) / 2);
                } else {
                    // Snappy's length preamble, then the middle of the data.
                    let at = if k == 0 {
                        end - (end - start) / 2
                    } else {
                        start + 4
                    };
                    bad[at] ^= 0xa5;
                }
                let run = |helper: bool| {
                    let mut parser = DemoParser::new(&bad).unwrap().with_helper_thread(helper);
                    let result = parser.run(&mut NoVisitor).map_err(|e| e.to_string());
                    (
                        result,
                        state_checksum(&parser.state),
                        parser.state.entity_updates,
                    )
                };
                let (inline, helped) = (run(false), run(true));
                assert_eq!(inline, helped, "{name}: frame at byte {start}, case {k}");
                if let Err(e) = &inline.0 {
                    frame_errors += usize::from(e.contains(&format!("at byte {start}")));
                }
            }
        }
        assert!(frame_errors > 0, "{name}");
    }
}

/// The send tables built from the lean decode of `DEM_SendTables` (symbols
/// borrowed from the buffer) equal those built from prost's full decode.
#[test]
fn lean_send_table_decode_equals_the_generated_type() {
    use gamewire_source2::container::{DemoCommand, FrameReader};
    use gamewire_source2::serializer::SendTables;
    use prost::Message;
    for path in demos() {
        let data = std::fs::read(&path).unwrap();
        let mut frames = FrameReader::new(&data).unwrap();
        let mut seen = false;
        while let Some(f) = frames.next_frame().unwrap() {
            if f.command != DemoCommand::SendTables {
                continue;
            }
            let msg = source2_demo_protobufs::CDemoSendTables::decode(&*f.payload).unwrap();
            let payload = msg.data.unwrap();
            let lean = SendTables::from_demo_payload(&payload).unwrap();
            let mut rest = payload.as_slice();
            let len = prost::encoding::decode_varint(&mut rest).unwrap() as usize;
            let full =
                source2_demo_protobufs::CSvcMsgFlattenedSerializer::decode(&rest[..len]).unwrap();
            let built = SendTables::build(&full).unwrap();
            assert_eq!(
                format!("{:?} {:?}", lean.serializers, lean.fields),
                format!("{:?} {:?}", built.serializers, built.fields),
                "{}",
                path.display()
            );
            assert_eq!(lean.fallbacks, built.fallbacks);
            assert!(lean.fields.len() > 1000);
            seen = true;
        }
        assert!(seen, "{}: no DEM_SendTables", path.display());
    }
}

/// String-table callbacks report every change: a visitor that mirrors the
/// tables from the reported entries alone ends with the parser's tables, on
/// every corpus demo (full-packet snapshots report only entries that
/// differ, so nothing may be lost there).
#[test]
fn string_table_changes_are_reported_completely() {
    use gamewire_source2::stringtable::{StringTable, StringTableEntry};
    use gamewire_source2::{DemoState, Interests, Visitor};
    use std::collections::HashMap;

    #[derive(Default)]
    struct Mirror {
        tables: HashMap<String, Vec<StringTableEntry>>,
        reports: usize,
    }
    impl Visitor for Mirror {
        fn interests(&self) -> Interests {
            Interests::NONE
        }
        fn on_string_table(&mut self, _: &DemoState, table: &StringTable, changed: &[usize]) {
            let mirror = self.tables.entry(table.name.clone()).or_default();
            // The table may have been replaced by a shorter snapshot.
            mirror.truncate(table.entries.len());
            mirror.resize(table.entries.len(), StringTableEntry::default());
            for &i in changed {
                mirror[i] = table.entries[i].clone();
            }
            self.reports += 1;
        }
    }

    for path in demos() {
        let data = std::fs::read(&path).unwrap();
        let mut mirror = Mirror::default();
        let (state, err) = parse_with(&data, &mut mirror).unwrap();
        assert!(err.is_none(), "{}", path.display());
        assert!(mirror.reports > 0, "{}", path.display());
        for t in &state.string_tables {
            let seen = mirror.tables.get(&t.name).cloned().unwrap_or_default();
            // Entries never reported are still empty (the default entry).
            let want: Vec<_> = t.entries.to_vec();
            assert_eq!(seen, want, "{} table {}", path.display(), t.name);
        }
    }
}

/// A demo cut between two frames (here right after frame 59 of 14155, at
/// byte 150 000) lacks its `DEM_Stop` frame: the run ends in a truncation
/// located at the end of the input, after handling every frame before it.
#[test]
fn a_demo_cut_between_frames_is_truncated_at_its_end() {
    let whole = std::fs::read(corpus().join("cs2/14155.dem")).unwrap();
    let cut = &whole[..150_000];
    let mut parser = DemoParser::new(cut).unwrap();
    let err = parser.run(&mut NoVisitor).unwrap_err();
    assert!(err.is_truncation(), "{err}");
    assert_eq!(err.location.byte_offset, 150_000);
    assert_eq!(err.location.tick, 43);
    assert_eq!(parser.state.tick, 43);
    assert!(!parser.state.reached_stop);
    assert_eq!(
        err.to_string(),
        format!(
            "the demo is truncated: the DEM_Stop frame needs 3 bytes, 0 left (frame {} at byte 150000, tick 43)",
            err.location.frame
        )
    );
    // The whole demo ends with its DEM_Stop frame and no error.
    let mut parser = DemoParser::new(&whole).unwrap();
    parser.run(&mut NoVisitor).unwrap();
    assert!(parser.state.reached_stop);
}

/// Dota 2's full packet at tick 0 holds string table entries that the
/// packets send only later: `CombatLogNames` entries at ticks 70 to 626,
/// `EntityNames`' `npc_dota_creep_lane` at 640. The combat log names its
/// units by those entries before the packets send them
/// (`dota_combat_log_names_resolve_to_the_heroes_in_the_game` in the query
/// crate), so a full packet's string tables are applied (the entries that
/// differ), not skipped as a copy of what the packets built: each entry is
/// reported at tick 0, and again when a packet sends it.
#[test]
fn a_dota_full_packet_holds_string_table_entries_the_packets_send_later() {
    use gamewire_source2::stringtable::StringTable;
    use gamewire_source2::{DemoState, Interests, Visitor};

    /// (tick, table, key) of every reported change.
    #[derive(Default)]
    struct Changes(Vec<(i32, String, String)>);
    impl Visitor for Changes {
        fn interests(&self) -> Interests {
            Interests::NONE
        }
        fn on_string_table(&mut self, state: &DemoState, table: &StringTable, changed: &[usize]) {
            for &i in changed {
                self.0
                    .push((state.tick, table.name.clone(), table.entries[i].key.clone()));
            }
        }
    }
    let data = std::fs::read(corpus().join("dota2/auto-20240102-2233-start.dem")).unwrap();
    let mut changes = Changes::default();
    let (state, err) = parse_with(&data, &mut changes).unwrap();
    assert!(err.is_none(), "{err:?}");
    assert_eq!(state.command_counts.get("DEM_FullPacket"), Some(&1));
    for (table, key, sent) in [
        ("CombatLogNames", "npc_dota_goodguys_tower2_top", 70),
        ("CombatLogNames", "npc_dota_badguys_tower1_mid", 338),
        ("CombatLogNames", "npc_dota_goodguys_tower1_bot", 626),
        ("EntityNames", "npc_dota_creep_lane", 640),
    ] {
        let ticks: Vec<i32> = changes
            .0
            .iter()
            .filter(|(_, t, k)| t == table && k == key)
            .map(|(tick, _, _)| *tick)
            .collect();
        assert_eq!(ticks, vec![0, sent], "{table} {key}");
    }
}

/// The player classes of the three games (what a table of player rows reads).
fn player_class(name: &str) -> bool {
    name.contains("PlayerPawn")
        || name.contains("PlayerController")
        || name.starts_with("CDOTA_Unit_Hero_")
}

/// One tick as [`ClassRecorder`] saw it: the tick, every entity that exists
/// (index, serial, class id), and a checksum of the player entities' values.
type TickSeen = (i32, Vec<(i32, u32, u32)>, u64);

/// What one parse saw, tick by tick.
#[derive(Default)]
struct ClassRecorder {
    only_players: bool,
    ticks: Vec<TickSeen>,
    /// (tick, entity, change, the paths reported) of each player entity call.
    player_calls: Vec<(i32, i32, String, Vec<String>)>,
    other_calls: u64,
}

impl gamewire_source2::Visitor for ClassRecorder {
    fn interests(&self) -> gamewire_source2::Interests {
        gamewire_source2::Interests {
            entities: true,
            ..gamewire_source2::Interests::NONE
        }
    }
    fn wants_class(&self, name: &str) -> bool {
        !self.only_players || player_class(name)
    }
    fn on_entity(
        &mut self,
        state: &gamewire_source2::DemoState,
        change: gamewire_source2::EntityChange,
        entity: &gamewire_source2::Entity,
        paths: &[gamewire_source2::FieldPath],
    ) {
        assert!(entity.is_decoded());
        if player_class(state.class_name(entity)) {
            self.player_calls.push((
                state.tick,
                entity.index,
                format!("{change:?}"),
                paths.iter().map(|p| p.to_string()).collect(),
            ));
        } else {
            self.other_calls += 1;
        }
    }
    fn on_tick_end(&mut self, state: &gamewire_source2::DemoState, tick: i32) {
        let mut exists = Vec::new();
        let mut sum = 0u64;
        for e in state.entities.iter() {
            exists.push((e.index, e.serial, e.class_id));
            if !player_class(state.class_name(e)) {
                assert!(
                    !self.only_players || (!e.is_decoded() && e.values().is_empty()),
                    "tick {tick}: {} kept values",
                    state.class_name(e)
                );
                continue;
            }
            assert!(e.is_decoded());
            for (k, v) in e.values() {
                let text = match v {
                    Value::F32(f) => format!("{f:.3}"),
                    other => other.to_string(),
                };
                let mut h = 0xcbf29ce484222325u64 ^ (k as u64) ^ ((k >> 64) as u64).rotate_left(17);
                h ^= (e.index as u64).rotate_left(40);
                for b in text.bytes() {
                    h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
                }
                sum = sum.wrapping_add(h);
            }
        }
        self.ticks.push((tick, exists, sum));
    }
}

impl ClassRecorder {
    fn run(data: &[u8], only_players: bool) -> (ClassRecorder, gamewire_source2::DemoState) {
        let mut rec = ClassRecorder {
            only_players,
            ..ClassRecorder::default()
        };
        let mut parser = DemoParser::new(data).unwrap();
        parser.run(&mut rec).unwrap();
        (rec, parser.state)
    }
}

/// `Visitor::wants_class`: entities of classes nobody asked for are read
/// past (they exist, with index, serial and class, but keep no values and
/// are never reported), and the wanted classes' entities hold, at every
/// tick of every corpus demo, exactly what a parse of every class gives,
/// with the same calls and paths reported.
#[test]
fn classes_nobody_wants_are_read_past_and_the_rest_is_identical() {
    for path in demos() {
        let name = path.display().to_string();
        let data = std::fs::read(&path).unwrap();
        let (all, all_state) = ClassRecorder::run(&data, false);
        let (players, players_state) = ClassRecorder::run(&data, true);
        assert_eq!(all_state.tick, players_state.tick, "{name}");
        assert!(players_state.reached_stop, "{name}");
        assert_eq!(all.ticks.len(), players.ticks.len(), "{name}");
        for (a, p) in all.ticks.iter().zip(&players.ticks) {
            assert_eq!(a.0, p.0, "{name}");
            assert_eq!(a.1, p.1, "{name}: tick {}: the entities that exist", a.0);
            assert_eq!(
                a.2, p.2,
                "{name}: tick {}: the player entities' values",
                a.0
            );
        }
        assert_eq!(all.player_calls, players.player_calls, "{name}");
        assert!(!all.player_calls.is_empty(), "{name}: no player entity");
        assert_eq!(players.other_calls, 0, "{name}");
        assert!(
            all.other_calls > 100,
            "{name}: {} other calls",
            all.other_calls
        );
        let skipped = players_state
            .entities
            .iter()
            .filter(|e| !e.is_decoded())
            .count();
        assert!(skipped > 10, "{name}: {skipped} entities read past");
    }
}

/// Bit flips inside packet-entity payloads while most classes are read past:
/// the errors still name the entity, its class and the field path, and a
/// path that leaves its serializer is an error, never a panic.
#[test]
fn mutated_payloads_of_entities_read_past_give_located_errors() {
    for name in ["cs2/14065.dem", "deadlock/hltv_10423.dem"] {
        let data = std::fs::read(corpus().join(name)).unwrap();
        let messages = packet_entities_messages(&data);
        let mut players = ClassRecorder {
            only_players: true,
            ..ClassRecorder::default()
        };
        let mut parser = DemoParser::new(&data).unwrap();
        parser.run(&mut players).unwrap();
        let mut seed = 0x9e3779b97f4a7c15u64;
        let (mut located, mut in_skipped_class) = (0, 0);
        for round in 0..300 {
            let Some(msg) = mutated_message(&messages, round, &mut seed) else {
                continue;
            };
            if let Err(e) = parser.apply_packet_entities(&msg, &mut players) {
                assert!(e.to_string().contains("tick"), "{e}");
                if let gamewire_source2::ErrorKind::Entity(entity) = &e.kind {
                    assert!(!entity.class.is_empty());
                    if entity.path.is_some() {
                        located += 1;
                        if !player_class(&entity.class) {
                            in_skipped_class += 1;
                        }
                    }
                }
            }
        }
        assert!(
            located > 0 && in_skipped_class > 0,
            "{name}: {located} errors with a field path, {in_skipped_class} in classes read past"
        );
    }
}

/// The players after a tick: (slot, name, steamid).
type PlayersAt = (i32, Vec<(usize, String, u64)>);

/// What a parse with or without the string tables nobody asked for gives:
/// the game events, the players after every tick, the final entity state,
/// the tables reported and the tables asked about.
#[derive(Default)]
struct TableRecorder {
    wants_tables: bool,
    asked: std::cell::RefCell<Vec<String>>,
    events: Vec<(i32, String, String)>,
    players: Vec<PlayersAt>,
    reported: std::collections::BTreeSet<String>,
}

impl gamewire_source2::Visitor for TableRecorder {
    fn interests(&self) -> gamewire_source2::Interests {
        gamewire_source2::Interests {
            entities: true,
            game_events: true,
            ..gamewire_source2::Interests::NONE
        }
    }
    fn wants_string_table(&self, name: &str) -> bool {
        self.asked.borrow_mut().push(name.to_string());
        self.wants_tables
    }
    fn on_string_table(
        &mut self,
        _: &gamewire_source2::DemoState,
        table: &gamewire_source2::stringtable::StringTable,
        _: &[usize],
    ) {
        self.reported.insert(table.name.clone());
    }
    fn on_game_event(
        &mut self,
        state: &gamewire_source2::DemoState,
        event: &gamewire_source2::GameEvent,
    ) {
        self.events
            .push((state.tick, event.name.clone(), format!("{:?}", event.keys)));
    }
    fn on_tick_end(&mut self, state: &gamewire_source2::DemoState, tick: i32) {
        let players = state
            .players
            .values()
            .map(|p| (p.slot, p.name.clone(), p.steamid))
            .collect();
        self.players.push((tick, players));
    }
}

/// A visitor that wants no string table: the parser still decodes the ones
/// its own state is built from (`userinfo` for the players,
/// `instancebaseline` for the class baselines), and everything it gives is
/// what a parse that decodes every table gives; the other tables exist,
/// marked skipped and empty, are asked about once each and never reported.
#[test]
fn string_tables_nobody_wants_are_not_decoded_and_the_rest_is_identical() {
    const OWN: [&str; 2] = ["userinfo", "instancebaseline"];
    for path in demos() {
        let name = path.display().to_string();
        let data = std::fs::read(&path).unwrap();
        let run = |wants_tables| {
            let mut v = TableRecorder {
                wants_tables,
                ..TableRecorder::default()
            };
            let (state, err) = parse_with(&data, &mut v).unwrap();
            assert!(err.is_none(), "{name}: {err:?}");
            assert!(state.warnings.is_empty(), "{name}: {:?}", state.warnings);
            (v, state)
        };
        let (all, all_state) = run(true);
        let (own, own_state) = run(false);

        // The same parse: to the same last tick, with the same events,
        // players and entities.
        assert_eq!(own_state.tick, all_state.tick, "{name}");
        assert_eq!(own_state.reached_stop, all_state.reached_stop, "{name}");
        assert_eq!(own_state.entity_updates, all_state.entity_updates, "{name}");
        assert_eq!(own.events, all.events, "{name}");
        assert!(!all.events.is_empty(), "{name}");
        assert_eq!(own.players, all.players, "{name}");
        assert!(own.players.iter().any(|(_, p)| !p.is_empty()), "{name}");
        assert_eq!(
            state_checksum(&own_state),
            state_checksum(&all_state),
            "{name}"
        );

        // The same tables, in the same order (ids are creation order).
        let names = |s: &gamewire_source2::DemoState| -> Vec<String> {
            s.string_tables.iter().map(|t| t.name.clone()).collect()
        };
        assert_eq!(names(&own_state), names(&all_state), "{name}");
        let mut skipped = 0;
        for (o, a) in own_state.string_tables.iter().zip(&all_state.string_tables) {
            assert!(!a.skipped, "{name} {}", a.name);
            if OWN.contains(&o.name.as_str()) {
                assert!(!o.skipped, "{name} {}", o.name);
                assert_eq!(o.entries, a.entries, "{name} {}", o.name);
            } else {
                assert!(o.skipped, "{name} {}", o.name);
                assert!(o.entries.is_empty(), "{name} {}", o.name);
                assert_eq!(o.flags, a.flags, "{name} {}", o.name);
                skipped += 1;
            }
        }
        assert!(skipped >= 5, "{name}: only {skipped} tables skipped");

        // Reported: only the tables decoded, where every table was before.
        assert!(
            own.reported.iter().all(|t| OWN.contains(&t.as_str())),
            "{name}"
        );
        assert!(
            all.reported.iter().any(|t| !OWN.contains(&t.as_str())),
            "{name}"
        );
        // Asked once per table, never about the parser's own ones.
        let mut asked = own.asked.borrow().clone();
        assert!(asked.iter().all(|t| !OWN.contains(&t.as_str())), "{name}");
        let count = asked.len();
        asked.sort();
        asked.dedup();
        assert_eq!(asked.len(), count, "{name}: a table was asked about twice");
        assert_eq!(count, skipped, "{name}");
    }
}
