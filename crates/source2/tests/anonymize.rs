//! `anonymize` on every corpus demo (CS2, Deadlock, Dota 2).
//!
//! What must hold:
//! - no player's identity is left in OUT: each frame's payload is
//!   decompressed (packets split into their messages are not needed: the
//!   whole payload is searched) and searched at every bit offset for each
//!   player's name (five bytes or more: anywhere; three or four bytes: as a
//!   cstring or a protobuf string, see the module documentation of
//!   `edit::anonymize`), steam id (decimal, 64 bits little-endian, varint)
//!   and account id (32 bits little-endian, varint, decimal). The schema
//!   frames (`DEM_SendTables`, `DEM_ClassInfo`) are copied unchanged and
//!   left out of the search: they hold field names, not players;
//! - IN has such identities to begin with (the search finds them in IN);
//! - OUT parses to the end, as IN does;
//! - every entity change is the same in IN and OUT at every tick (a digest
//!   per tick of each change's entity, class, paths and values), IN's values
//!   mapped to their pseudonyms where they are a player's name, steam id or
//!   account id; the final entity state likewise;
//! - the game events are the same, mapped likewise; the players (`userinfo`)
//!   of OUT are IN's under their pseudonyms;
//! - the same key gives the same player (the CS2 demos' listen-server
//!   host) the same pseudonyms in two demos; another key, other ones;
//! - chat user messages are gone from OUT, and kept with `keep_chat`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::io::Cursor;
use std::path::PathBuf;

use gamewire_source2::container::{DemoCommand, FrameReader};
use gamewire_source2::container_writer::DemoWriter;
use gamewire_source2::edit::anonymize::{anonymize, AnonymizeOptions};
use gamewire_source2::edit::pseudonym::Pseudonyms;
use gamewire_source2::gameevent::EventValue;
use gamewire_source2::packet_writer::{encode_demo_packet, PacketMessages, PacketWriter};
use gamewire_source2::{
    parse_with, DemoState, Entity, EntityChange, FieldPath, GameEvent, UserMessage, Value, Visitor,
};
use prost::Message;
use source2_demo_protobufs as pb;

fn demos() -> Vec<PathBuf> {
    let out = gamewire_corpus::source2_demos().unwrap_or_else(|e| panic!("{e}"));
    assert!(out.len() >= 7, "expected the 7 corpus demos, found {out:?}");
    out
}

/// A player of IN and the pseudonyms OUT must show.
#[derive(Debug, Clone)]
struct Player {
    name: String,
    steamid: u64,
}

fn players(state: &DemoState) -> Vec<Player> {
    state
        .players
        .values()
        .filter(|p| !p.is_hltv)
        .map(|p| Player {
            name: p.name.clone(),
            steamid: p.steamid,
        })
        .collect()
}

/// Maps IN's values to what OUT must hold.
#[derive(Debug, Default)]
struct Mapping {
    names: BTreeMap<String, String>,
    steamids: BTreeMap<u64, u64>,
    accounts: BTreeMap<u32, u32>,
}

impl Mapping {
    fn new(players: &[Player], p: Option<&Pseudonyms>) -> Self {
        let mut m = Mapping::default();
        let Some(p) = p else { return m };
        for pl in players {
            if !pl.name.is_empty() {
                m.names
                    .insert(pl.name.clone(), p.name(pl.steamid, &pl.name));
            }
            if pl.steamid != 0 {
                m.steamids.insert(pl.steamid, p.steamid(pl.steamid));
                m.accounts
                    .insert(pl.steamid as u32, p.account_id(pl.steamid));
            }
        }
        m
    }

    /// A name as a whole, else names of three bytes or more inside text.
    fn string(&self, s: &str) -> String {
        if let Some(n) = self.names.get(s) {
            return n.clone();
        }
        let mut out = s.to_string();
        for (a, b) in &self.names {
            if a.len() >= 3 {
                out = out.replace(a.as_str(), b);
            }
        }
        out
    }

    fn value(&self, v: &Value) -> String {
        match v {
            Value::String(s) => format!("s:{}", self.string(s)),
            Value::U64(x) => format!("u64:{}", self.steamids.get(x).unwrap_or(x)),
            Value::U32(x) => format!("u32:{}", self.accounts.get(x).unwrap_or(x)),
            Value::I32(x) => {
                let m = self.accounts.get(&(*x as u32)).map(|a| *a as i32);
                format!("i32:{}", m.unwrap_or(*x))
            }
            Value::I64(x) => {
                let m = self.steamids.get(&(*x as u64)).map(|a| *a as i64);
                format!("i64:{}", m.unwrap_or(*x))
            }
            Value::F32(f) => format!("f:{:08x}", f.to_bits()),
            Value::Vec2(a) => format!("{:?}", a.map(f32::to_bits)),
            Value::Vec3(a) => format!("{:?}", a.map(f32::to_bits)),
            Value::Vec4(a) => format!("{:?}", a.map(f32::to_bits)),
            other => format!("{other:?}"),
        }
    }

    fn event(&self, e: &GameEvent) -> String {
        let keys: Vec<String> = e
            .keys
            .iter()
            .map(|(k, _, v)| {
                let v = match v {
                    EventValue::String(s) => {
                        let mut s = self.string(s);
                        for (a, b) in &self.accounts {
                            s = s.replace(&a.to_string(), &b.to_string());
                        }
                        format!("s:{s}")
                    }
                    EventValue::U64(x) => format!("u64:{}", self.steamids.get(x).unwrap_or(x)),
                    EventValue::Int(x) => {
                        let m = self.accounts.get(&(*x as u32)).map(|a| *a as i32);
                        format!("i:{}", m.unwrap_or(*x))
                    }
                    EventValue::Float(f) => format!("f:{:08x}", f.to_bits()),
                    EventValue::Bool(b) => format!("b:{b}"),
                };
                format!("{k}={v}")
            })
            .collect();
        format!("{}@{} {}", e.name, e.tick, keys.join(","))
    }
}

/// Digests per tick of the entity changes, the events, the chat messages.
struct Recorder {
    map: Mapping,
    ticks: BTreeMap<i32, u64>,
    events: Vec<String>,
    chat: u64,
    chat_lines: Vec<(String, String)>,
    /// User messages by id, chat left out.
    messages: BTreeMap<u32, u64>,
}

impl Recorder {
    fn new(map: Mapping) -> Self {
        Recorder {
            map,
            ticks: BTreeMap::new(),
            events: Vec::new(),
            chat: 0,
            chat_lines: Vec::new(),
            messages: BTreeMap::new(),
        }
    }
}

impl Visitor for Recorder {
    fn on_entity(
        &mut self,
        state: &DemoState,
        change: EntityChange,
        entity: &Entity,
        paths: &[FieldPath],
    ) {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (entity.index, entity.serial, entity.class_id).hash(&mut h);
        format!("{change:?}").hash(&mut h);
        for p in paths {
            p.as_slice().hash(&mut h);
            if let Some(v) = entity.get(p) {
                self.map.value(v).hash(&mut h);
            }
        }
        let d = self.ticks.entry(state.tick).or_default();
        *d = d.wrapping_mul(31).wrapping_add(h.finish());
    }

    fn on_game_event(&mut self, _state: &DemoState, event: &GameEvent) {
        if event.name != "player_chat" && event.name != "player_say" {
            self.events.push(self.map.event(event));
        }
    }

    fn on_user_message(&mut self, _state: &DemoState, message: &UserMessage<'_>) {
        if let Some(c) = message.chat() {
            self.chat += 1;
            self.chat_lines.push((c.name, c.text));
        } else {
            *self.messages.entry(message.id).or_default() += 1;
        }
    }
}

/// Digest of every entity's every field at the end.
fn final_state(state: &DemoState, map: &Mapping) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for e in state.entities.iter() {
        (e.index, e.serial, e.class_id).hash(&mut h);
        for (key, v) in e.values() {
            key.hash(&mut h);
            map.value(v).hash(&mut h);
        }
    }
    h.finish()
}

/// The identity needles of a player: (label, bytes, context-only).
fn needles(players: &[Player]) -> Vec<(String, Vec<u8>)> {
    fn varint(mut v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
        out
    }
    let mut out = Vec::new();
    for p in players {
        let n = p.name.as_bytes();
        if n.len() >= 5 {
            out.push((format!("name {:?}", p.name), n.to_vec()));
        } else if n.len() >= 3 {
            let mut c = n.to_vec();
            c.push(0);
            out.push((format!("name {:?} (cstring)", p.name), c));
            let mut s = vec![n.len() as u8];
            s.extend_from_slice(n);
            out.push((format!("name {:?} (protobuf)", p.name), s));
        }
        if p.steamid != 0 {
            let a = p.steamid as u32;
            out.push((
                format!("steam id {} (decimal)", p.steamid),
                p.steamid.to_string().into_bytes(),
            ));
            out.push((
                format!("steam id {} (le64)", p.steamid),
                p.steamid.to_le_bytes().to_vec(),
            ));
            out.push((
                format!("steam id {} (varint)", p.steamid),
                varint(p.steamid),
            ));
            out.push((format!("account id {a} (le32)"), a.to_le_bytes().to_vec()));
            out.push((format!("account id {a} (varint)"), varint(u64::from(a))));
            out.push((
                format!("account id {a} (decimal)"),
                a.to_string().into_bytes(),
            ));
        }
    }
    out
}

/// Occurrences of each needle in the demo's decompressed payloads at every
/// bit offset (schema frames left out).
fn search(demo: &[u8], needles: &[(String, Vec<u8>)]) -> BTreeMap<String, u64> {
    let mut found = BTreeMap::new();
    let mut reader = FrameReader::new(demo).unwrap();
    let mut view = Vec::new();
    while let Some(frame) = reader.next_frame().unwrap() {
        if matches!(
            frame.command,
            DemoCommand::SendTables | DemoCommand::ClassInfo
        ) {
            continue;
        }
        let data = &*frame.payload;
        for shift in 0..8u32 {
            view.clear();
            if shift == 0 {
                view.extend_from_slice(data);
            } else {
                view.extend(
                    data.windows(2)
                        .map(|w| (w[0] >> shift) | (w[1] << (8 - shift))),
                );
            }
            for (label, n) in needles {
                let c = view.windows(n.len()).filter(|w| *w == &n[..]).count() as u64;
                if c > 0 {
                    *found
                        .entry(format!("{label} in {}", frame.command.name()))
                        .or_default() += c;
                }
            }
        }
    }
    found
}

fn anonymized(data: &[u8], options: &AnonymizeOptions) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    let report = anonymize(Cursor::new(data), &mut out, options)
        .unwrap_or_else(|e| panic!("anonymize: {e}"));
    assert!(report.cut.is_none(), "{:?}", report.cut);
    out.into_inner()
}

#[test]
fn no_identity_is_left_and_everything_else_is_equal() {
    let options = AnonymizeOptions::from_passphrase("corpus test key");
    let pseudonyms = options.pseudonyms();
    for path in demos() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let data = std::fs::read(&path).unwrap();
        let (in_state, in_err) = parse_with(&data, &mut gamewire_source2::NoVisitor).unwrap();
        let players = players(&in_state);
        assert!(!players.is_empty(), "{name}: no players");
        let needles = needles(&players);

        let mut out = Cursor::new(Vec::new());
        let started = std::time::Instant::now();
        let report = anonymize(Cursor::new(&data), &mut out, &options).unwrap();
        let elapsed = started.elapsed();
        let out = out.into_inner();
        assert!(report.cut.is_none(), "{name}: {:?}", report.cut);
        assert_eq!(report.frames_read, report.frames_written, "{name}");
        assert!(report.first_tick >= 0 && report.last_tick >= report.first_tick);

        let before = search(&data, &needles);
        let after = search(&out, &needles);
        let total: u64 = before.values().sum();
        println!(
            "{name}: {} players, {total} identity occurrences in IN, {} in OUT; {} frames in {:.1} ms; {}",
            players.len(),
            after.values().sum::<u64>(),
            report.frames_written,
            elapsed.as_secs_f64() * 1e3,
            report
                .warnings
                .last()
                .map(|w| w.message.as_str())
                .unwrap_or("")
        );
        // Every warning but the summary printed above.
        for w in report.warnings.iter().rev().skip(1) {
            println!("  {name}: tick {}: {}", w.tick, w.message);
        }
        assert!(total > 0, "{name}: IN has no identity to find");
        assert!(after.is_empty(), "{name}: left in OUT: {after:#?}");

        // OUT parses to the end, to the same events and entity changes.
        let mut rin = Recorder::new(Mapping::new(&players, Some(&pseudonyms)));
        let (in_state2, _) = parse_with(&data, &mut rin).unwrap();
        let mut rout = Recorder::new(Mapping::new(&[], None));
        let (out_state, out_err) = parse_with(&out, &mut rout).unwrap();
        assert_eq!(in_err.is_none(), out_err.is_none(), "{name}: {out_err:?}");
        assert_eq!(out_state.reached_stop, in_state.reached_stop, "{name}");
        assert_eq!(out_state.tick, in_state.tick, "{name}");
        assert_eq!(
            rin.ticks.len(),
            rout.ticks.len(),
            "{name}: ticks with entity changes"
        );
        let differing: Vec<_> = rin
            .ticks
            .iter()
            .filter(|(t, d)| rout.ticks.get(t) != Some(d))
            .map(|(t, _)| *t)
            .take(5)
            .collect();
        assert!(
            differing.is_empty(),
            "{name}: entity changes differ at ticks {differing:?}"
        );
        assert_eq!(
            final_state(&in_state2, &rin.map),
            final_state(&out_state, &rout.map),
            "{name}: final entity state"
        );
        assert_eq!(rin.events, rout.events, "{name}: game events");
        // The same user messages, and the same string tables, entry for
        // entry (of the same sizes where no player is named).
        assert_eq!(rin.messages, rout.messages, "{name}: user messages");
        let tables = |s: &DemoState| -> Vec<(String, Vec<(String, usize)>)> {
            s.string_tables
                .iter()
                .map(|t| {
                    let entries = t
                        .entries
                        .iter()
                        .map(|e| {
                            let renamed = ["userinfo", "instancebaseline", "EconItems"]
                                .contains(&t.name.as_str());
                            let len = if renamed { 0 } else { e.value.len() };
                            (rin.map.string(&e.key), len)
                        })
                        .collect();
                    (t.name.clone(), entries)
                })
                .collect()
        };
        assert_eq!(
            tables(&in_state2),
            tables(&out_state),
            "{name}: string tables"
        );
        assert_eq!(rout.chat, 0, "{name}: chat left");

        // The players table shows the pseudonyms.
        let expect: BTreeSet<(String, u64)> = players
            .iter()
            .map(|p| (rin.map.string(&p.name), pseudonyms.steamid(p.steamid)))
            .collect();
        let got: BTreeSet<(String, u64)> = players_of(&out_state)
            .iter()
            .map(|p| (p.name.clone(), p.steamid))
            .collect();
        assert_eq!(got, expect, "{name}: players of OUT");
    }
}

fn players_of(state: &DemoState) -> Vec<Player> {
    players(state)
}

#[test]
fn same_key_same_pseudonyms_across_demos() {
    let cs2: Vec<PathBuf> = demos()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("cs2"))
        .take(2)
        .collect();
    assert_eq!(cs2.len(), 2);
    let host = |data: &[u8]| -> (String, u64) {
        let (state, _) = parse_with(data, &mut gamewire_source2::NoVisitor).unwrap();
        let p = players(&state)
            .into_iter()
            .find(|p| p.steamid != 0)
            .expect("a human player");
        (p.name, p.steamid)
    };
    let a = std::fs::read(&cs2[0]).unwrap();
    let b = std::fs::read(&cs2[1]).unwrap();
    assert_eq!(host(&a), host(&b), "the corpus demos share their host");
    let k1 = AnonymizeOptions::from_passphrase("one");
    let k2 = AnonymizeOptions::from_passphrase("two");
    let a1 = host(&anonymized(&a, &k1));
    let b1 = host(&anonymized(&b, &k1));
    let a2 = host(&anonymized(&a, &k2));
    assert_eq!(a1, b1);
    assert_ne!(a1.0, a2.0);
    assert_ne!(a1.1, a2.1);
    assert_ne!(a1, host(&a));
    // A random key is another key again.
    let r = AnonymizeOptions::random().unwrap();
    assert_ne!(host(&anonymized(&a, &r)), a1);
}

/// A corpus demo with a chat line (`SayText2` naming `name`) and a voice
/// message added to its first packet after tick 0 (the corpus demos have
/// neither).
fn with_chat_and_voice(data: &[u8], name: &str) -> Vec<u8> {
    let mut reader = FrameReader::new(data).unwrap();
    let mut w = DemoWriter::new(Cursor::new(Vec::new())).unwrap();
    let mut added = false;
    while let Some(f) = reader.next_frame().unwrap() {
        if added || f.command != DemoCommand::Packet || f.tick <= 0 {
            w.write_decoded_frame(&f).unwrap();
            continue;
        }
        let packet = pb::CDemoPacket::decode(&*f.payload).unwrap();
        let mut pw = PacketWriter::new();
        for m in PacketMessages::new(packet.data()) {
            let m = m.unwrap();
            pw.push(m.id, &m.body).unwrap();
        }
        let say = pb::CUserMessageSayText2 {
            entityindex: Some(1),
            chat: Some(true),
            messagename: Some("Cstrike_Chat_All".into()),
            param1: Some(name.into()),
            param2: Some("gl hf".into()),
            ..Default::default()
        };
        pw.push_message(118, &say).unwrap();
        let voice = pb::CSvcMsgVoiceData {
            xuid: Some(1),
            proximity: Some(true),
            ..Default::default()
        };
        pw.push_message(47, &voice).unwrap();
        let payload = encode_demo_packet(pw.finish());
        w.write_frame(f.command, f.tick, f.compressed, &payload)
            .unwrap();
        added = true;
    }
    assert!(added);
    w.finish().unwrap().into_inner()
}

/// Messages of this id in the demo's packets.
fn count_messages(demo: &[u8], id: u32) -> usize {
    let mut reader = FrameReader::new(demo).unwrap();
    let mut n = 0;
    while let Some(f) = reader.next_frame().unwrap() {
        if matches!(f.command, DemoCommand::Packet | DemoCommand::SignonPacket) {
            let p = pb::CDemoPacket::decode(&*f.payload).unwrap();
            n += PacketMessages::new(p.data())
                .filter(|m| m.as_ref().is_ok_and(|m| m.id == id))
                .count();
        }
    }
    n
}

#[test]
fn chat_goes_unless_kept_and_voice_goes() {
    let path = demos()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("14065"))
        .unwrap();
    let original = std::fs::read(&path).unwrap();
    let (state, _) = parse_with(&original, &mut gamewire_source2::NoVisitor).unwrap();
    let host = players(&state)
        .into_iter()
        .find(|p| p.steamid != 0)
        .unwrap();
    let data = with_chat_and_voice(&original, &host.name);
    let chat = |d: &[u8]| {
        let mut r = Recorder::new(Mapping::default());
        let (_, err) = parse_with(d, &mut r).unwrap();
        assert!(err.is_none(), "{err:?}");
        r.chat_lines
    };
    assert_eq!(chat(&data), [(host.name.clone(), "gl hf".to_string())]);
    assert_eq!(count_messages(&data, 47), 1);

    let dropped = anonymized(&data, &AnonymizeOptions::from_passphrase("k"));
    assert!(chat(&dropped).is_empty());
    assert_eq!(count_messages(&dropped, 47), 0);

    let options = AnonymizeOptions {
        keep_chat: true,
        ..AnonymizeOptions::from_passphrase("k")
    };
    let kept = anonymized(&data, &options);
    let pseudonym = options.pseudonyms().name(host.steamid, &host.name);
    assert_eq!(chat(&kept), [(pseudonym, "gl hf".to_string())]);
    assert_eq!(count_messages(&kept, 47), 0);
}

#[test]
fn a_truncated_demo_is_anonymized_up_to_its_cut() {
    let path = demos()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("hltv_10423"))
        .unwrap();
    let data = std::fs::read(&path).unwrap();
    let options = AnonymizeOptions::from_passphrase("k");
    for keep in [data.len() / 3, data.len() / 2 + 7, data.len() - 1] {
        let mut out = Cursor::new(Vec::new());
        let report = anonymize(Cursor::new(&data[..keep]), &mut out, &options).unwrap();
        let cut = report.cut.expect("the cut is reported");
        assert!(cut.is_truncation(), "{cut}");
        assert!(cut.location.byte_offset <= keep as u64);
        // OUT holds every whole frame before the cut, then DEM_Stop (unless
        // IN's was before the cut), and reads to its end.
        let out = out.into_inner();
        let mut reader = FrameReader::new(&out).unwrap();
        let mut frames = Vec::new();
        while let Some(f) = reader.next_frame().unwrap() {
            frames.push(f.command);
        }
        assert_eq!(frames.len() as u64, report.frames_written);
        let stops = frames.iter().filter(|c| **c == DemoCommand::Stop).count();
        assert_eq!(stops, 1);
        match report.frames_written - report.frames_read {
            0 => {}
            1 => assert_eq!(frames.last(), Some(&DemoCommand::Stop)),
            n => panic!("{n} frames added"),
        }
        let (_, err) = parse_with(&out, &mut gamewire_source2::NoVisitor).unwrap();
        assert!(err.is_none(), "{err:?}");
    }
    for bad in [
        &b"PBDEMS"[..],
        b"HL2DEMO\0\0\0\0\0\0\0\0\0",
        b"not a demo at all",
    ] {
        assert!(anonymize(Cursor::new(bad), Cursor::new(Vec::new()), &options).is_err());
    }
}

#[test]
fn mutated_demos_are_errors_or_demos_never_panics() {
    let path = demos()
        .into_iter()
        .find(|p| p.to_string_lossy().contains("14155"))
        .unwrap();
    let data = std::fs::read(&path).unwrap();
    let options = AnonymizeOptions::from_passphrase("k");
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let (mut ok, mut failed) = (0, 0);
    for _ in 0..24 {
        let mut bad = data.clone();
        for _ in 0..1 + next() % 8 {
            let at = 16 + (next() as usize) % (bad.len() - 16);
            bad[at] ^= 1 << (next() % 8);
        }
        let mut out = Cursor::new(Vec::new());
        match anonymize(Cursor::new(&bad), &mut out, &options) {
            Ok(report) => {
                // What was written is a whole demo, up to the cut if any.
                let out = out.into_inner();
                let mut reader = FrameReader::new(&out).unwrap();
                let mut frames = 0;
                while reader.next_frame().unwrap().is_some() {
                    frames += 1;
                }
                assert_eq!(frames, report.frames_written);
                ok += 1;
            }
            Err(e) => {
                println!("refused: {e}");
                failed += 1;
            }
        }
    }
    println!("mutated: {ok} anonymized (up to a cut where they do not decode), {failed} refused");
    // Every mutation lands in a frame: each demo is anonymized up to it.
    assert_eq!((ok, failed), (24, 0));
}
