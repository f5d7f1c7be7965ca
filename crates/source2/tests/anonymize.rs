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
use gamewire_source2::edit::anonymize::{anonymize, AnonymizeOptions};
use gamewire_source2::edit::pseudonym::Pseudonyms;
use gamewire_source2::gameevent::EventValue;
use gamewire_source2::{
    parse_with, DemoState, Entity, EntityChange, FieldPath, GameEvent, UserMessage, Value, Visitor,
};

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
            if pl.name.len() >= 3 {
                m.names.insert(
                    pl.name.clone(),
                    p.name(pl.steamid, &pl.name, pl.name.len()),
                );
            }
            if pl.steamid != 0 {
                m.steamids.insert(pl.steamid, p.steamid(pl.steamid));
                m.accounts
                    .insert(pl.steamid as u32, p.account_id(pl.steamid));
            }
        }
        m
    }

    fn string(&self, s: &str) -> String {
        self.names.get(s).cloned().unwrap_or_else(|| s.to_string())
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
                    EventValue::Int(x) => format!("i:{x}"),
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
}

impl Recorder {
    fn new(map: Mapping) -> Self {
        Recorder {
            map,
            ticks: BTreeMap::new(),
            events: Vec::new(),
            chat: 0,
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
        if message.chat().is_some() {
            self.chat += 1;
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
            out.push((format!("steam id {} (decimal)", p.steamid), p.steamid.to_string().into_bytes()));
            out.push((format!("steam id {} (le64)", p.steamid), p.steamid.to_le_bytes().to_vec()));
            out.push((format!("steam id {} (varint)", p.steamid), varint(p.steamid)));
            out.push((format!("account id {a} (le32)"), a.to_le_bytes().to_vec()));
            out.push((format!("account id {a} (varint)"), varint(u64::from(a))));
            out.push((format!("account id {a} (decimal)"), a.to_string().into_bytes()));
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
        if matches!(frame.command, DemoCommand::SendTables | DemoCommand::ClassInfo) {
            continue;
        }
        let data = &*frame.payload;
        for shift in 0..8u32 {
            view.clear();
            if shift == 0 {
                view.extend_from_slice(data);
            } else {
                view.extend(data.windows(2).map(|w| (w[0] >> shift) | (w[1] << (8 - shift))));
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
        let report = anonymize(Cursor::new(&data), &mut out, &options).unwrap();
        let out = out.into_inner();
        assert!(report.cut.is_none(), "{name}: {:?}", report.cut);
        assert_eq!(report.frames_read, report.frames_written, "{name}");

        let before = search(&data, &needles);
        let after = search(&out, &needles);
        let total: u64 = before.values().sum();
        println!(
            "{name}: {} players, {total} identity occurrences in IN, {} in OUT; {} frames; {}",
            players.len(),
            after.values().sum::<u64>(),
            report.frames_written,
            report.warnings.last().map(|w| w.message.as_str()).unwrap_or("")
        );
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
        assert_eq!(rin.ticks.len(), rout.ticks.len(), "{name}: ticks with entity changes");
        let differing: Vec<_> = rin
            .ticks
            .iter()
            .filter(|(t, d)| rout.ticks.get(t) != Some(d))
            .map(|(t, _)| *t)
            .take(5)
            .collect();
        assert!(differing.is_empty(), "{name}: entity changes differ at ticks {differing:?}");
        assert_eq!(
            final_state(&in_state2, &rin.map),
            final_state(&out_state, &rout.map),
            "{name}: final entity state"
        );
        assert_eq!(rin.events, rout.events, "{name}: game events");
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

#[test]
fn keep_chat_keeps_chat() {
    let mut total = 0;
    for path in demos() {
        let data = std::fs::read(&path).unwrap();
        let count = |d: &[u8]| {
            let mut r = Recorder::new(Mapping::default());
            parse_with(d, &mut r).unwrap();
            r.chat
        };
        let chat = count(&data);
        total += chat;
        let keep = AnonymizeOptions {
            keep_chat: true,
            ..AnonymizeOptions::from_passphrase("k")
        };
        assert_eq!(count(&anonymized(&data, &keep)), chat, "{path:?}");
        assert_eq!(
            count(&anonymized(&data, &AnonymizeOptions::from_passphrase("k"))),
            0,
            "{path:?}"
        );
    }
    println!("chat messages in the corpus: {total}");
}
