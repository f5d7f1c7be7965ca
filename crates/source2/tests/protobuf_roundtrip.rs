//! Every protobuf message of every corpus demo (CS2, Deadlock, Dota 2, and
//! the Deadlock broadcasts read through [`gamewire_source2::broadcast`]),
//! decoded with its generated type and encoded again
//! ([`gamewire_source2::message_writer`]):
//!
//! - each frame payload (`CDemoFileHeader`, `CDemoFileInfo`,
//!   `CDemoSendTables`, `CDemoClassInfo`, `CDemoStringTables`,
//!   `CDemoFullPacket`, `CDemoPacket`, ...);
//! - the `CSVCMsg_FlattenedSerializer` inside `CDemoSendTables`;
//! - each message inside a packet whose id has a type (net and svc
//!   messages, user messages, protobuf game events);
//! - each user message and protobuf game event through its JSON form
//!   ([`gamewire_source2::messages::to_json`], then
//!   [`encode_json`]): the same bytes as the generated type re-encodes;
//! - and, from gamewire's own models: the class info from the parsed
//!   state's classes, the game-event list from its descriptors, and every
//!   `CMsgSource1LegacyGameEvent` from the event decoded against them.
//!
//! What must hold: every message decodes with its type; every one that does
//! not come back as its original bytes is explained by reading the wire
//! fields of both encodings ([`explain`]), with a known reason (no
//! "other"). The table of types, counts and reasons is printed (run with
//! `--nocapture`), and `docs/formats/source2-demo.md` ("Writing demos")
//! quotes it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gamewire_source2::broadcast::{to_demo, Fragment};
use gamewire_source2::container::{DemoCommand, FrameReader};
use gamewire_source2::message_writer::{
    encode_class_info, encode_game_event, encode_game_event_list, encode_json, explain, frame_type,
    protobuf_type, reencode, reencode_frame, Difference,
};
use gamewire_source2::packet_writer::PacketMessages;
use gamewire_source2::serializer::demo_payload_message;
use gamewire_source2::{parse_with, DemoState, Game, Interests, Visitor};
use prost::Message;
use source2_demo_protobufs as pb;

/// Messages of one type: how many, how many came back byte for byte, and
/// the reasons of the others (reason → messages).
#[derive(Debug, Default)]
struct Tally {
    total: u64,
    exact: u64,
    reasons: BTreeMap<String, u64>,
}

#[derive(Debug, Default)]
struct Tallies {
    by_type: BTreeMap<String, Tally>,
    /// Packet message ids without a type: (game, id) → count.
    untyped: BTreeMap<(String, u32), u64>,
    /// User messages and protobuf game events written from their JSON form.
    json: u64,
    /// Game events, and those whose server tick is the last net_Tick's.
    server_ticks: (u64, u64),
    /// Frame payloads that are not their command's protobuf type.
    not_protobuf: BTreeMap<String, u64>,
}

impl Tallies {
    /// Compares `reencoded` with `original` under `name`; a difference must
    /// have known reasons.
    fn check(&mut self, name: &str, original: &[u8], reencoded: &[u8], what: &str) {
        let t = self.by_type.entry(name.to_string()).or_default();
        t.total += 1;
        if original == reencoded {
            t.exact += 1;
            return;
        }
        let reasons = explain(original, reencoded);
        assert!(!reasons.is_empty(), "{what}: {name} differs, unexplained");
        for r in &reasons {
            assert!(
                !matches!(r, Difference::Other { .. }),
                "{what}: {name}: {r} (all: {reasons:?})"
            );
        }
        let text = reasons
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        *t.reasons.entry(text).or_default() += 1;
    }

    fn print(&self, title: &str) {
        eprintln!("{title}");
        eprintln!("{:<44} {:>8} {:>8}  reasons", "type", "messages", "exact");
        for (name, t) in &self.by_type {
            eprintln!("{name:<44} {:>8} {:>8}", t.total, t.exact);
            for (reason, n) in &t.reasons {
                eprintln!("{:<44} {n:>8} {:>8}  {reason}", "", "");
            }
        }
        if !self.untyped.is_empty() {
            let ids: Vec<String> = self
                .untyped
                .iter()
                .map(|((g, id), n)| format!("{g} {id} ×{n}"))
                .collect();
            eprintln!("ids without a type (copied as bytes): {}", ids.join(", "));
        }
        for (ty, n) in &self.not_protobuf {
            eprintln!("broadcast frames that are not {ty} (copied as bytes): {n}");
        }
    }

    fn merge(&mut self, other: Tallies) {
        for (name, t) in other.by_type {
            let mine = self.by_type.entry(name).or_default();
            mine.total += t.total;
            mine.exact += t.exact;
            for (r, n) in t.reasons {
                *mine.reasons.entry(r).or_default() += n;
            }
        }
        for (k, n) in other.untyped {
            *self.untyped.entry(k).or_default() += n;
        }
        self.json += other.json;
        self.server_ticks.0 += other.server_ticks.0;
        self.server_ticks.1 += other.server_ticks.1;
        for (k, n) in other.not_protobuf {
            *self.not_protobuf.entry(k).or_default() += n;
        }
    }
}

/// The demos: each corpus `.dem` file, and each Deadlock broadcast as the
/// demo stream [`to_demo`] makes of its fragments.
fn inputs() -> Vec<(String, Vec<u8>)> {
    let demos = gamewire_corpus::source2_demos().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        demos.len() >= 7,
        "expected the 7 corpus demos, found {demos:?}"
    );
    let mut out: Vec<(String, Vec<u8>)> = demos
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(p).unwrap())
        })
        .collect();
    let root = gamewire_corpus::path("deadlock/broadcast");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("sync.json").is_file())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 2,
        "expected the 2 corpus broadcasts, found {dirs:?}"
    );
    for dir in dirs {
        let (demo, err) = to_demo(&broadcast_fragments(&dir));
        assert!(err.is_none(), "{}: {err:?}", dir.display());
        let name = format!("broadcast {}", dir.file_name().unwrap().to_string_lossy());
        out.push((name, demo));
    }
    out
}

/// A broadcast's fragments in playback order: the signup fragment's
/// `start.bin`, the `full.bin` of the fragment `sync.json` names, then the
/// `delta.bin` of it and of each following fragment.
fn broadcast_fragments(dir: &Path) -> Vec<Fragment> {
    let sync: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("sync.json")).unwrap()).unwrap();
    let signup = sync["signup_fragment"].as_u64().unwrap_or(0);
    let first = sync["fragment"].as_u64().unwrap();
    let read = |n: u64, file: &str| Fragment {
        name: format!("{n}/{file}"),
        data: std::fs::read(dir.join(n.to_string()).join(file)).unwrap(),
    };
    let mut out = vec![read(signup, "start.bin"), read(first, "full.bin")];
    let mut n = first;
    while dir.join(n.to_string()).join("delta.bin").is_file() {
        out.push(read(n, "delta.bin"));
        n += 1;
    }
    assert!(out.len() > 2, "{}: no delta fragment", dir.display());
    out
}

/// Keeps the game-event descriptors and the classes (the parse's final
/// state is what is kept).
struct Events;

impl Visitor for Events {
    fn interests(&self) -> Interests {
        Interests {
            game_events: true,
            ..Interests::NONE
        }
    }
}

/// What one demo's frames hold besides the messages: the last class info
/// and game-event list (compared with the models of the final state), the
/// descriptors in force and the last net_Tick's tick (the server tick of
/// the events after it).
#[derive(Default)]
struct Last {
    class_info: Option<Vec<u8>>,
    event_list: Option<Vec<u8>>,
    descriptors: gamewire_source2::gameevent::EventDescriptors,
    net_tick: Option<i32>,
}

/// Every message of one packet bitstream.
fn packet(data: &[u8], tick: i32, game: Game, last: &mut Last, t: &mut Tallies, what: &str) {
    let mut messages = PacketMessages::new(data);
    for m in messages.by_ref() {
        let m = m.unwrap_or_else(|e| panic!("{what}: {e}"));
        let Some(name) = protobuf_type(game, m.id) else {
            *t.untyped.entry((format!("{game:?}"), m.id)).or_default() += 1;
            continue;
        };
        let out = reencode(game, m.id, &m.body)
            .unwrap()
            .unwrap_or_else(|e| panic!("{what}: message {} ({name}): {e}", m.id));
        t.check(name, &m.body, &out, what);
        // Through the JSON model and back: what the type re-encodes.
        if let Some(json) = gamewire_source2::messages::to_json(game, m.id, &m.body) {
            let json = json.unwrap_or_else(|e| panic!("{what}: {name}: {e}"));
            let back = encode_json(game, m.id, &json)
                .unwrap()
                .unwrap_or_else(|e| panic!("{what}: {name} from JSON: {e}"));
            assert_eq!(back, out, "{what}: {name} from JSON");
            t.json += 1;
        }
        match m.id {
            4 => {
                let t = pb::CNetMsgTick::decode(&*m.body).unwrap();
                last.net_tick = t.tick.map(|t| t as i32);
            }
            205 => {
                let list = pb::CMsgSource1LegacyGameEventList::decode(&*m.body).unwrap();
                last.descriptors = gamewire_source2::gameevent::descriptors(list);
                last.event_list = Some(m.body.to_vec());
            }
            207 => {
                // From the decoded event (gamewire's model) back to bytes.
                let raw = pb::CMsgSource1LegacyGameEvent::decode(&*m.body).unwrap();
                let event = gamewire_source2::gameevent::decode(&raw, &last.descriptors, tick)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                // The decoded event does not keep the server tick: given
                // the original's, the rest must come back exactly.
                let out = encode_game_event(&event, raw.server_tick)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                t.check("GameEvent (from the decoded event)", &m.body, &out, what);
                t.server_ticks.0 += 1;
                t.server_ticks.1 += u64::from(raw.server_tick == last.net_tick);
            }
            _ => {}
        }
    }
    assert!(
        messages.padding().0 < 8,
        "{what}: bits left after the messages"
    );
}

fn demo(name: &str, data: &[u8], broadcast: bool) -> Tallies {
    let mut t = Tallies::default();
    let mut last = Last::default();
    let mut game = Game::Any;
    let mut reader = FrameReader::new(data).unwrap();
    while let Some(frame) = reader.next_frame().unwrap() {
        let what = format!("{name} frame {} ({})", frame.index, frame.command.name());
        let Some(ty) = frame_type(frame.command) else {
            panic!("{what}: unknown command");
        };
        let payload = &*frame.payload;
        let out = match reencode_frame(frame.command, payload).unwrap() {
            Ok(out) => out,
            // A broadcast's spawn-group records are not `CDemoSpawnGroups`
            // (the first byte is a running count; the bytes do not parse
            // as protobuf fields): the parser does not read them, a writer
            // copies them.
            Err(_) if broadcast && frame.command == DemoCommand::SpawnGroups => {
                *t.not_protobuf.entry(ty.to_string()).or_default() += 1;
                continue;
            }
            Err(e) => panic!("{what}: {e}"),
        };
        t.check(ty, payload, &out, &what);
        match frame.command {
            DemoCommand::FileHeader => {
                let h = pb::CDemoFileHeader::decode(payload).unwrap();
                game = Game::from_game_directory(h.game_directory.as_deref().unwrap_or(""));
            }
            DemoCommand::ClassInfo => {
                let info = pb::CDemoClassInfo::decode(payload).unwrap();
                if game == Game::Any {
                    game = Game::from_class_names(
                        info.classes
                            .iter()
                            .filter_map(|c| c.network_name.as_deref()),
                    );
                }
                last.class_info = Some(payload.to_vec());
            }
            DemoCommand::SendTables => {
                let tables = pb::CDemoSendTables::decode(payload).unwrap();
                let blob = tables.data.unwrap_or_default();
                let inner = demo_payload_message(&blob).unwrap();
                // Nothing after the message.
                let prefix = blob.len() - inner.len();
                assert!((1..=5).contains(&prefix), "{what}: {prefix}");
                let ty = protobuf_type(game, 41).unwrap();
                let out = reencode(game, 41, inner).unwrap().unwrap();
                t.check(ty, inner, &out, &what);
            }
            DemoCommand::Packet | DemoCommand::SignonPacket => {
                let p = pb::CDemoPacket::decode(payload).unwrap();
                let bits = p.data.unwrap_or_default();
                packet(&bits, frame.tick, game, &mut last, &mut t, &what);
            }
            DemoCommand::FullPacket => {
                let full = pb::CDemoFullPacket::decode(payload).unwrap();
                if let Some(tables) = &full.string_table {
                    let bytes = tables.encode_to_vec();
                    let out = reencode_frame(DemoCommand::StringTables, &bytes)
                        .unwrap()
                        .unwrap();
                    assert_eq!(out, bytes);
                }
                let bits = full.packet.and_then(|p| p.data).unwrap_or_default();
                packet(&bits, frame.tick, game, &mut last, &mut t, &what);
            }
            _ => {}
        }
    }
    assert_ne!(game, Game::Any, "{name}: game not found");

    // The models of the final state, written again.
    let (state, err) = parse_with(data, &mut Events).unwrap();
    assert!(err.is_none(), "{name}: {err:?}");
    model_checks(name, &state, &last, &mut t);
    t
}

fn model_checks(name: &str, state: &DemoState, last: &Last, t: &mut Tallies) {
    let info = last.class_info.as_deref().expect("a class info frame");
    assert!(!state.classes.is_empty(), "{name}");
    t.check(
        "CDemoClassInfo (from the state's classes)",
        info,
        &encode_class_info(&state.classes),
        name,
    );
    let list = last.event_list.as_deref().expect("a game-event list");
    assert!(!state.event_descriptors.is_empty(), "{name}");
    t.check(
        "GameEventList (from the descriptors)",
        list,
        &encode_game_event_list(state.event_descriptors.values()),
        name,
    );
}

#[test]
fn every_protobuf_message_re_encodes() {
    let mut all = Tallies::default();
    for (name, data) in inputs() {
        let t = demo(&name, &data, name.starts_with("broadcast "));
        // The generated types (the model writers are counted apart).
        let typed = || t.by_type.iter().filter(|(k, _)| !k.contains('('));
        let total: u64 = typed().map(|(_, t)| t.total).sum();
        let exact: u64 = typed().map(|(_, t)| t.exact).sum();
        let off: Vec<String> = typed()
            .filter(|(_, t)| t.exact < t.total)
            .map(|(k, t)| format!("{k} {}", t.total - t.exact))
            .collect();
        eprintln!(
            "{name}: {exact}/{total} messages re-encode byte for byte; not: {}",
            off.join(", ")
        );
        assert!(total > 100, "{name}: only {total} messages");
        all.merge(t);
    }
    all.print("every corpus demo:");
    assert!(all.json > 1000, "{}", all.json);
    eprintln!(
        "user messages and game events written again from their JSON form: {}",
        all.json
    );
    eprintln!(
        "game events whose server tick is the last net_Tick's: {}/{}",
        all.server_ticks.1, all.server_ticks.0
    );
    // The writers from gamewire's own models are exact on every corpus
    // demo: the class info, the game-event list and (given the server tick,
    // which the decoded event does not keep) every game event.
    for model in [
        "CDemoClassInfo (from the state's classes)",
        "GameEventList (from the descriptors)",
        "GameEvent (from the decoded event)",
    ] {
        let t = &all.by_type[model];
        assert!(t.total >= 9, "{model}: {}", t.total);
        assert_eq!(t.exact, t.total, "{model}: {:?}", t.reasons);
    }
}
