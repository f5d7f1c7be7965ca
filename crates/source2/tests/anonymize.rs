//! `anonymize` on every corpus demo (CS2 ×5, Deadlock, Dota 2) and on the
//! two Deadlock broadcasts written as demos (`edit_common::inputs`).
//!
//! What must hold:
//! - no player's identity is left in OUT's **decoded content**: no entity
//!   field at any change, no field of any entity at the end (baseline
//!   values included), no game-event key, no player (`userinfo`), neither
//!   the file header's nor the server info's names hold a player's name
//!   (as a whole; a name of three bytes or more also inside text; inside
//!   string-table keys only from three bytes, since keys are slots and a
//!   player may be named `26`), steam id or account id (as a number, or in
//!   decimal inside text). The same check finds them in IN;
//! - no identity is left in OUT's **raw bytes** where a chance occurrence
//!   is not to be expected (the rule below): each frame's decompressed
//!   payload (packets are not split into messages: the whole payload is
//!   searched) is searched at every bit offset for each player's name (five
//!   bytes or more: as it is; three or four bytes: as a cstring and as a
//!   protobuf string, see the module documentation of `edit::anonymize`),
//!   steam id (decimal, 64 bits little-endian, varint) and account id (32
//!   bits little-endian, varint, decimal). The schema frames
//!   (`DEM_SendTables`, `DEM_ClassInfo`) are copied unchanged and left out
//!   of the search: they hold field names, not players. IN has such
//!   occurrences to begin with;
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
//!
//! # When a pattern found in the raw bytes is chance
//!
//! Entity data is bit-packed, so the search runs at all 8 bit shifts of
//! every byte: a pattern of `n` bytes is compared at 8 × (bytes scanned)
//! places. A short pattern matches unrelated bits there by chance, and
//! regular data (protobuf headers, floats with trailing zero bits, runs of
//! equal bytes) makes some patterns far likelier than `2^-8n`. On the two
//! broadcasts (3.2 and 4.2 MB of fragments) every occurrence left in OUT
//! was traced to its field by decoding the message around it:
//!
//! - `dl_midtown`, account id 279105 (the player `rg`) as a varint
//!   (`c1 84 11`): 31 times, once at bit 28 of each `svc_PacketEntities`
//!   whose protobuf header holds `updated_entries = 76` and
//!   `legacy_is_delta = 1` (bytes `10 4c 18 01` read 4 bits in); the same
//!   31 in IN. No field holds the account id;
//! - `dl_midtown`, the same account id as 32 bits little-endian: once in
//!   IN's full packet (the controller's `m_steamID`, renamed), and once in
//!   both at tick 15469, across a pawn's `CBodyComponent.m_vecX` = 656.25
//!   (`0x44241000`: its upper 20 bits are `0x44241` = 279105) and
//!   `m_vecY` = 368.375 (`0x43b83000`: 12 zero low bits);
//! - `street_test`, the name `-----` (`2d` five times): 13 in IN, of which
//!   the controller's `m_iszPlayerName` and one game-event key (both
//!   renamed); the 11 left are inside runs of equal 8-bit
//!   `CCitadelPlayerPawn.CBodyComponent.m_PredByteVariables` values: 45
//!   (`2d` itself), 75 (`4b`, which reads `2d` 2 bits in) and 105 (`69`,
//!   `2d` 3 bits in).
//!
//! So the rule: the number of chance occurrences of a pattern expected in
//! OUT is estimated from OUT's own bytes, over the same 8 shifted views:
//! with an order-1 Markov model (occurrences of its first byte, times the
//! observed frequency of each next byte after the one before), which
//! takes the regular structure in; for a pattern of one repeated byte,
//! whose occurrences come in runs that model does not see, as the places
//! where a run of that length of any byte starts, divided by 256. A
//! pattern expected fewer than 10^-3 times must be absent from OUT. Over
//! all of a demo's patterns that must be absent, 6 × 10^-5 (hltv_10423) to
//! 6.2 × 10^-3 (dl_midtown) chance occurrences are expected in all, so the
//! rule does not fail by chance. Any other pattern may occur in OUT no
//! more often than in IN (the edit adds none); that leaves 0 to 10 of a
//! demo's 7 to 84 patterns to the decoded check alone, among them the three
//! above: the le32 account id 279105 (0.6 expected), its varint (1.0) and
//! `-----` (1,156). Byte alignment tells nothing either: a packet's
//! messages start at any bit, and the 31 varint hits above fall at shifts
//! 0, 2 and 6 of their frames.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::io::Cursor;
use std::path::PathBuf;

mod edit_common;

use gamewire_source2::container::{DemoCommand, FrameReader};
use gamewire_source2::container_writer::DemoWriter;
use gamewire_source2::edit::anonymize::{anonymize, AnonymizeOptions};
use gamewire_source2::edit::pseudonym::Pseudonyms;
use gamewire_source2::gameevent::EventValue;
use gamewire_source2::packet_writer::{encode_demo_packet, PacketMessages, PacketWriter};
use gamewire_source2::stringtable::StringTable;
use gamewire_source2::{
    parse_with, DemoState, Entity, EntityChange, FieldPath, GameEvent, UserMessage, Value, Visitor,
};
use prost::Message;
use source2_demo_protobufs as pb;

/// What the tests return: an error fails the test with its message.
type TestResult<T = ()> = Result<T, Box<dyn std::error::Error>>;

fn demos() -> TestResult<Vec<PathBuf>> {
    let out = gamewire_corpus::source2_demos().map_err(|e| e.to_string())?;
    assert!(out.len() >= 7, "expected the 7 corpus demos, found {out:?}");
    Ok(out)
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

/// A byte pattern of a player's identity searched for in the raw bytes.
#[derive(Debug, Clone)]
struct Needle {
    label: String,
    bytes: Vec<u8>,
}

/// The identity needles of the players: each name (five bytes or more:
/// as it is; three or four bytes: as a cstring and as a protobuf string),
/// each steam id (decimal, 64 bits little-endian, varint) and account id
/// (32 bits little-endian, varint, decimal).
fn needles(players: &[Player]) -> Vec<Needle> {
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
    let mut push = |label: String, bytes: Vec<u8>| out.push(Needle { label, bytes });
    for p in players {
        let n = p.name.as_bytes();
        if n.len() >= 5 {
            push(format!("name {:?}", p.name), n.to_vec());
        } else if n.len() >= 3 {
            let mut c = n.to_vec();
            c.push(0);
            push(format!("name {:?} (cstring)", p.name), c);
            let mut s = vec![n.len() as u8];
            s.extend_from_slice(n);
            push(format!("name {:?} (protobuf)", p.name), s);
        }
        if p.steamid != 0 {
            let a = p.steamid as u32;
            push(
                format!("steam id {} (decimal)", p.steamid),
                p.steamid.to_string().into_bytes(),
            );
            push(
                format!("steam id {} (le64)", p.steamid),
                p.steamid.to_le_bytes().to_vec(),
            );
            push(
                format!("steam id {} (varint)", p.steamid),
                varint(p.steamid),
            );
            push(format!("account id {a} (le32)"), a.to_le_bytes().to_vec());
            push(format!("account id {a} (varint)"), varint(u64::from(a)));
            push(
                format!("account id {a} (decimal)"),
                a.to_string().into_bytes(),
            );
        }
    }
    out
}

/// What [`search`] finds in a demo's bytes.
struct Scan {
    /// Occurrences of each needle (by index) at every bit offset, by the
    /// command of the frame they are in.
    hits: Vec<BTreeMap<String, u64>>,
    /// How often each byte value occurs in the scanned views.
    unigrams: Vec<u64>,
    /// How often each byte value follows each other one (`a * 256 + b`).
    bigrams: Vec<u64>,
    /// `runs[n]`: positions where `n` equal bytes start (`n` up to
    /// [`MAX_RUN`]).
    runs: Vec<u64>,
}

/// The longest run [`Scan::runs`] counts.
const MAX_RUN: usize = 64;

impl Scan {
    fn count(&self, needle: usize) -> u64 {
        self.hits.get(needle).map_or(0, |h| h.values().sum())
    }

    /// The number of chance occurrences of `pattern` expected in the
    /// scanned bytes under an order-1 Markov model of those bytes: the
    /// occurrences of its first byte, times the observed probability of
    /// each of its bytes after the one before (see the test's doc comment).
    fn expected(&self, pattern: &[u8]) -> f64 {
        let Some((&first, _)) = pattern.split_first() else {
            return 0.0;
        };
        if pattern.len() > 1 && pattern.iter().all(|&b| b == first) {
            // One byte repeated: runs come in bursts the Markov model
            // misses; any run of this length, of one of 256 values.
            let n = pattern.len().min(MAX_RUN);
            return self.runs[n] as f64 / 256.0;
        }
        let mut e = self.unigrams[usize::from(first)] as f64;
        for w in pattern.windows(2) {
            let (a, b) = (usize::from(w[0]), usize::from(w[1]));
            let from = self.unigrams[a];
            if from == 0 {
                return 0.0;
            }
            e *= self.bigrams[a * 256 + b] as f64 / from as f64;
        }
        e
    }
}

/// Searches the demo's decompressed payloads at every bit offset for each
/// needle (schema frames left out), and counts the byte statistics of
/// the same views for [`Scan::expected`].
fn search(demo: &[u8], needles: &[Needle]) -> TestResult<Scan> {
    let mut scan = Scan {
        hits: vec![BTreeMap::new(); needles.len()],
        unigrams: vec![0; 256],
        bigrams: vec![0; 256 * 256],
        runs: vec![0; MAX_RUN + 1],
    };
    let mut reader = FrameReader::new(demo)?;
    let mut view = Vec::new();
    let mut by_first = vec![Vec::new(); 256];
    for (i, n) in needles.iter().enumerate() {
        if let Some(&b) = n.bytes.first() {
            by_first[usize::from(b)].push(i);
        }
    }
    let mut counts = vec![0u64; needles.len()];
    while let Some(frame) = reader.next_frame()? {
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
            for &b in &view {
                scan.unigrams[usize::from(b)] += 1;
            }
            for w in view.windows(2) {
                scan.bigrams[usize::from(w[0]) * 256 + usize::from(w[1])] += 1;
            }
            for run in view.chunk_by(|a, b| a == b) {
                let len = run.len() as u64;
                for n in 1..=run.len().min(MAX_RUN) {
                    scan.runs[n] += len - n as u64 + 1;
                }
            }
            // One pass: at each place, the needles that start with its byte.
            for (at, &b) in view.iter().enumerate() {
                for &i in &by_first[usize::from(b)] {
                    if view[at..].starts_with(&needles[i].bytes) {
                        counts[i] += 1;
                    }
                }
            }
        }
        for (i, c) in counts.iter_mut().enumerate() {
            if *c > 0 {
                *scan.hits[i].entry(frame.command.name()).or_default() += *c;
                *c = 0;
            }
        }
    }
    Ok(scan)
}

/// Below this many expected chance occurrences a pattern must be absent
/// from OUT's bytes (see the test's doc comment).
const CHANCE: f64 = 1e-3;

/// Player identities in OUT's decoded content: entity field values at
/// every change, game event keys, string-table keys.
#[derive(Default)]
struct Decoded {
    names: Vec<String>,
    steamids: BTreeSet<u64>,
    accounts: BTreeSet<u32>,
    found: Vec<String>,
}

impl Decoded {
    fn new(players: &[Player]) -> Self {
        Decoded {
            names: players
                .iter()
                .map(|p| p.name.clone())
                .filter(|n| !n.is_empty())
                .collect(),
            steamids: players
                .iter()
                .map(|p| p.steamid)
                .filter(|&s| s != 0)
                .collect(),
            accounts: players
                .iter()
                .map(|p| p.steamid as u32)
                .filter(|&a| a != 0)
                .collect(),
            found: Vec::new(),
        }
    }

    /// Whether a text names a player: a name as a whole, a name of three
    /// bytes or more inside it, a steam id or a six-digit or longer
    /// account id in decimal.
    fn text(&self, s: &str) -> bool {
        self.names
            .iter()
            .any(|n| s == n || (n.len() >= 3 && s.contains(n.as_str())))
            || self.steamids.iter().any(|i| s.contains(&i.to_string()))
            || self
                .accounts
                .iter()
                .any(|&a| a >= 100_000 && s.contains(&a.to_string()))
    }

    /// What a whole read leaves to look at: the file header's and the
    /// server info's names, the players (`userinfo`), every field of
    /// every entity at the end (those a baseline set included).
    fn finish(&mut self, state: &DemoState) {
        let mut texts = Vec::new();
        if let Some(h) = &state.header {
            texts.push(("file header server_name", h.server_name().to_string()));
            texts.push(("file header client_name", h.client_name().to_string()));
        }
        if let Some(i) = &state.server_info {
            texts.push(("server info host_name", i.host_name().to_string()));
        }
        for (what, t) in texts {
            if self.text(&t) {
                self.found.push(format!("{what} {t:?}"));
            }
        }
        for p in state.players.values() {
            if self.names.contains(&p.name) || self.number(p.steamid) {
                self.found
                    .push(format!("player {:?} {}", p.name, p.steamid));
            }
        }
        for e in state.entities.iter() {
            for (key, v) in e.values() {
                if self.value(v) {
                    self.found.push(format!(
                        "final state: entity {} ({}) {key} = {v:?}",
                        e.index,
                        state.class_name(e)
                    ));
                }
            }
        }
    }

    fn number(&self, v: u64) -> bool {
        self.steamids.contains(&v) || u32::try_from(v).is_ok_and(|a| self.accounts.contains(&a))
    }

    fn value(&self, v: &Value) -> bool {
        match v {
            Value::String(s) => self.text(s),
            Value::U64(x) => self.number(*x),
            Value::I64(x) => self.number(*x as u64),
            Value::U32(x) => self.number(u64::from(*x)),
            Value::I32(x) => self.number(u64::from(*x as u32)),
            _ => false,
        }
    }
}

impl Visitor for Decoded {
    fn on_entity(
        &mut self,
        state: &DemoState,
        _change: EntityChange,
        entity: &Entity,
        paths: &[FieldPath],
    ) {
        for p in paths {
            if let Some(v) = entity.get(p).filter(|v| self.value(v)) {
                let line = format!(
                    "tick {}: entity {} ({}) {:?} = {v:?}",
                    state.tick,
                    entity.index,
                    state.class_name(entity),
                    p.as_slice()
                );
                self.found.push(line);
            }
        }
    }

    fn on_game_event(&mut self, _state: &DemoState, event: &GameEvent) {
        for (k, _, v) in &event.keys {
            let hit = match v {
                EventValue::String(s) => self.text(s),
                EventValue::U64(x) => self.number(*x),
                EventValue::Int(x) => self.number(u64::from(*x as u32)),
                _ => false,
            };
            if hit {
                self.found.push(format!(
                    "tick {}: event {} {k} = {v:?}",
                    event.tick, event.name
                ));
            }
        }
    }

    fn on_string_table(&mut self, _state: &DemoState, table: &StringTable, changed: &[usize]) {
        for &i in changed {
            // Keys are slots and ids: a name of two bytes ("26") is a key
            // of its own, so names are looked for inside keys from three
            // bytes.
            let named = |k: &str| {
                self.names
                    .iter()
                    .any(|n| n.len() >= 3 && k.contains(n.as_str()))
            };
            if let Some(e) = table.entries.get(i).filter(|e| named(&e.key)) {
                self.found
                    .push(format!("string table {} key {:?}", table.name, e.key));
            }
        }
    }
}

fn anonymized(data: &[u8], options: &AnonymizeOptions) -> TestResult<Vec<u8>> {
    let mut out = Cursor::new(Vec::new());
    let report = anonymize(Cursor::new(data), &mut out, options)?;
    assert!(report.cut.is_none(), "{:?}", report.cut);
    Ok(out.into_inner())
}

#[test]
fn no_identity_is_left_and_everything_else_is_equal() -> TestResult {
    let options = AnonymizeOptions::from_passphrase("corpus test key");
    let pseudonyms = options.pseudonyms();
    let inputs = edit_common::inputs();
    assert_eq!(inputs.len(), 9, "7 corpus demos and 2 broadcasts");
    for (path, data) in inputs {
        let name = path.rsplit('/').next().unwrap_or(&path).to_string();
        let (in_state, in_err) = parse_with(&data, &mut gamewire_source2::NoVisitor)?;
        let players = players(&in_state);
        let mut decoded_in = Decoded::new(&players);
        let (end_in, _) = parse_with(&data, &mut decoded_in)?;
        decoded_in.finish(&end_in);
        assert!(!players.is_empty(), "{name}: no players");
        let needles = needles(&players);

        let mut out = Cursor::new(Vec::new());
        let started = std::time::Instant::now();
        let report = anonymize(Cursor::new(&data), &mut out, &options)?;
        let elapsed = started.elapsed();
        let out = out.into_inner();
        assert!(report.cut.is_none(), "{name}: {:?}", report.cut);
        assert_eq!(report.frames_read, report.frames_written, "{name}");
        assert!(report.first_tick >= 0 && report.last_tick >= report.first_tick);

        // Decoded content: no identity anywhere.
        let mut decoded = Decoded::new(&players);
        let (end_out, _) = parse_with(&out, &mut decoded)?;
        decoded.finish(&end_out);
        assert!(
            !decoded_in.found.is_empty(),
            "{name}: no decoded identity in IN"
        );
        assert!(
            decoded.found.is_empty(),
            "{name}: decoded identities in OUT: {:#?}",
            decoded.found
        );

        // Raw bytes at every bit offset.
        let before = search(&data, &needles)?;
        let after = search(&out, &needles)?;
        let total: u64 = (0..needles.len()).map(|i| before.count(i)).sum();
        let mut left = Vec::new();
        let mut chance = Vec::new();
        for (i, n) in needles.iter().enumerate() {
            let (b, a) = (before.count(i), after.count(i));
            if a == 0 {
                continue;
            }
            let expected = after.expected(&n.bytes);
            if expected < CHANCE {
                left.push(format!(
                    "{}: {a} (IN {b}, {expected:.1e} expected by chance) in {:?}",
                    n.label, after.hits[i]
                ));
            } else {
                // Too short or too regular to tell from chance: OUT adds
                // none to what IN has.
                assert!(a <= b, "{name}: {}: {a} in OUT, {b} in IN", n.label);
                chance.push(format!("{} {a} (IN {b}, {expected:.1} expected)", n.label));
            }
        }
        println!(
            "{name}: {} players, {} patterns, {total} identity occurrences in IN, {} in OUT \
             ({} patterns below {CHANCE:.0e} expected chance occurrences); {} frames in {:.1} ms; {}",
            players.len(),
            needles.len(),
            (0..needles.len()).map(|i| after.count(i)).sum::<u64>(),
            needles
                .iter()
                .filter(|n| after.expected(&n.bytes) < CHANCE)
                .count(),
            report.frames_written,
            elapsed.as_secs_f64() * 1e3,
            report
                .warnings
                .last()
                .map(|w| w.message.as_str())
                .unwrap_or("")
        );
        let strict: f64 = needles
            .iter()
            .map(|n| after.expected(&n.bytes))
            .filter(|&e| e < CHANCE)
            .sum();
        println!(
            "  {name}: {} identities decoded in IN, 0 in OUT; chance occurrences expected of the \
             patterns that must be absent: {strict:.1e} in all",
            decoded_in.found.len()
        );
        if std::env::var_os("ANONYMIZE_EXPECTED").is_some() {
            for n in &needles {
                println!("  E {:.3e} {}", after.expected(&n.bytes), n.label);
            }
        }
        for c in &chance {
            println!("  {name}: as often as chance: {c}");
        }
        // Every warning but the summary printed above.
        for w in report.warnings.iter().rev().skip(1) {
            println!("  {name}: tick {}: {}", w.tick, w.message);
        }
        assert!(total > 0, "{name}: IN has no identity to find");
        assert!(left.is_empty(), "{name}: left in OUT: {left:#?}");

        // OUT parses to the end, to the same events and entity changes.
        let mut rin = Recorder::new(Mapping::new(&players, Some(&pseudonyms)));
        let (in_state2, _) = parse_with(&data, &mut rin)?;
        let mut rout = Recorder::new(Mapping::new(&[], None));
        let (out_state, out_err) = parse_with(&out, &mut rout)?;
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
    Ok(())
}

fn players_of(state: &DemoState) -> Vec<Player> {
    players(state)
}

#[test]
fn same_key_same_pseudonyms_across_demos() -> TestResult {
    let cs2: Vec<PathBuf> = demos()?
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("cs2"))
        .take(2)
        .collect();
    assert_eq!(cs2.len(), 2);
    let host = |data: &[u8]| -> TestResult<(String, u64)> {
        let (state, _) = parse_with(data, &mut gamewire_source2::NoVisitor)?;
        let p = players(&state)
            .into_iter()
            .find(|p| p.steamid != 0)
            .ok_or("no human player")?;
        Ok((p.name, p.steamid))
    };
    let a = std::fs::read(&cs2[0])?;
    let b = std::fs::read(&cs2[1])?;
    assert_eq!(host(&a)?, host(&b)?, "the corpus demos share their host");
    let k1 = AnonymizeOptions::from_passphrase("one");
    let k2 = AnonymizeOptions::from_passphrase("two");
    let a1 = host(&anonymized(&a, &k1)?)?;
    let b1 = host(&anonymized(&b, &k1)?)?;
    let a2 = host(&anonymized(&a, &k2)?)?;
    assert_eq!(a1, b1);
    assert_ne!(a1.0, a2.0);
    assert_ne!(a1.1, a2.1);
    assert_ne!(a1, host(&a)?);
    // A random key is another key again.
    let r = AnonymizeOptions::random()?;
    assert_ne!(host(&anonymized(&a, &r)?)?, a1);
    Ok(())
}

/// A corpus demo with a chat line (`SayText2` naming `name`) and a voice
/// message added to its first packet after tick 0 (the corpus demos have
/// neither).
fn with_chat_and_voice(data: &[u8], name: &str) -> TestResult<Vec<u8>> {
    let mut reader = FrameReader::new(data)?;
    let mut w = DemoWriter::new(Cursor::new(Vec::new()))?;
    let mut added = false;
    while let Some(f) = reader.next_frame()? {
        if added || f.command != DemoCommand::Packet || f.tick <= 0 {
            w.write_decoded_frame(&f)?;
            continue;
        }
        let packet = pb::CDemoPacket::decode(&*f.payload)?;
        let mut pw = PacketWriter::new();
        for m in PacketMessages::new(packet.data()) {
            let m = m?;
            pw.push(m.id, &m.body)?;
        }
        let say = pb::CUserMessageSayText2 {
            entityindex: Some(1),
            chat: Some(true),
            messagename: Some("Cstrike_Chat_All".into()),
            param1: Some(name.into()),
            param2: Some("gl hf".into()),
            ..Default::default()
        };
        pw.push_message(118, &say)?;
        let voice = pb::CSvcMsgVoiceData {
            xuid: Some(1),
            proximity: Some(true),
            ..Default::default()
        };
        pw.push_message(47, &voice)?;
        let payload = encode_demo_packet(pw.finish());
        w.write_frame(f.command, f.tick, f.compressed, &payload)?;
        added = true;
    }
    assert!(added);
    Ok(w.finish()?.into_inner())
}

/// Messages of this id in the demo's packets.
fn count_messages(demo: &[u8], id: u32) -> TestResult<usize> {
    let mut reader = FrameReader::new(demo)?;
    let mut n = 0;
    while let Some(f) = reader.next_frame()? {
        if matches!(f.command, DemoCommand::Packet | DemoCommand::SignonPacket) {
            let p = pb::CDemoPacket::decode(&*f.payload)?;
            n += PacketMessages::new(p.data())
                .filter(|m| m.as_ref().is_ok_and(|m| m.id == id))
                .count();
        }
    }
    Ok(n)
}

#[test]
fn chat_goes_unless_kept_and_voice_goes() -> TestResult {
    let path = demos()?
        .into_iter()
        .find(|p| p.to_string_lossy().contains("14065"))
        .ok_or("not found")?;
    let original = std::fs::read(&path)?;
    let (state, _) = parse_with(&original, &mut gamewire_source2::NoVisitor)?;
    let host = players(&state)
        .into_iter()
        .find(|p| p.steamid != 0)
        .ok_or("not found")?;
    let data = with_chat_and_voice(&original, &host.name)?;
    let chat = |d: &[u8]| -> TestResult<Vec<(String, String)>> {
        let mut r = Recorder::new(Mapping::default());
        let (_, err) = parse_with(d, &mut r)?;
        assert!(err.is_none(), "{err:?}");
        Ok(r.chat_lines)
    };
    assert_eq!(chat(&data)?, [(host.name.clone(), "gl hf".to_string())]);
    assert_eq!(count_messages(&data, 47)?, 1);

    let dropped = anonymized(&data, &AnonymizeOptions::from_passphrase("k"))?;
    assert!(chat(&dropped)?.is_empty());
    assert_eq!(count_messages(&dropped, 47)?, 0);

    let options = AnonymizeOptions {
        keep_chat: true,
        ..AnonymizeOptions::from_passphrase("k")
    };
    let kept = anonymized(&data, &options)?;
    let pseudonym = options.pseudonyms().name(host.steamid, &host.name);
    assert_eq!(chat(&kept)?, [(pseudonym, "gl hf".to_string())]);
    assert_eq!(count_messages(&kept, 47)?, 0);
    Ok(())
}

#[test]
fn a_truncated_demo_is_anonymized_up_to_its_cut() -> TestResult {
    let path = demos()?
        .into_iter()
        .find(|p| p.to_string_lossy().contains("hltv_10423"))
        .ok_or("not found")?;
    let data = std::fs::read(&path)?;
    let options = AnonymizeOptions::from_passphrase("k");
    for keep in [data.len() / 3, data.len() / 2 + 7, data.len() - 1] {
        let mut out = Cursor::new(Vec::new());
        let report = anonymize(Cursor::new(&data[..keep]), &mut out, &options)?;
        let cut = report.cut.ok_or("the cut is not reported")?;
        assert!(cut.is_truncation(), "{cut}");
        assert!(cut.location.byte_offset <= keep as u64);
        // OUT holds every whole frame before the cut, then DEM_Stop (unless
        // IN's was before the cut), and reads to its end.
        let out = out.into_inner();
        let mut reader = FrameReader::new(&out)?;
        let mut frames = Vec::new();
        while let Some(f) = reader.next_frame()? {
            frames.push(f.command);
        }
        assert_eq!(frames.len() as u64, report.frames_written);
        let stops = frames.iter().filter(|c| **c == DemoCommand::Stop).count();
        assert_eq!(stops, 1);
        match report.frames_written - report.frames_read {
            0 => {}
            1 => assert_eq!(frames.last(), Some(&DemoCommand::Stop)),
            n => return Err(format!("{n} frames added").into()),
        }
        let (_, err) = parse_with(&out, &mut gamewire_source2::NoVisitor)?;
        assert!(err.is_none(), "{err:?}");
    }
    for bad in [
        &b"PBDEMS"[..],
        b"HL2DEMO\0\0\0\0\0\0\0\0\0",
        b"not a demo at all",
    ] {
        assert!(anonymize(Cursor::new(bad), Cursor::new(Vec::new()), &options).is_err());
    }
    Ok(())
}

#[test]
fn mutated_demos_are_errors_or_demos_never_panics() -> TestResult {
    let path = demos()?
        .into_iter()
        .find(|p| p.to_string_lossy().contains("14155"))
        .ok_or("not found")?;
    let data = std::fs::read(&path)?;
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
                let mut reader = FrameReader::new(&out)?;
                let mut frames = 0;
                while reader.next_frame()?.is_some() {
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
    Ok(())
}
