//! The packet-entities writer on every corpus demo (CS2, Deadlock, Dota 2).
//!
//! What must hold:
//! - every `svc_PacketEntities` (in packets, signon packets and the packets
//!   of full packets) decodes into records against the state right before
//!   it, the records encode, and the encoded body decoded against the same
//!   state gives the same records: the same indices, operations, headers,
//!   field paths and values (floats bit for bit), and the same other
//!   message fields;
//! - the demo with every such body replaced by its re-encoding parses to
//!   the same entities: after each message, the same entities created,
//!   updated and deleted, with the same values at every path the message
//!   set, and every 64 ticks and at the end the same whole entity state;
//! - damaged copies of every message (three bits of `entity_data` flipped,
//!   or the data cut short) decode to an error or to records, and those
//!   encode or fail, never with a panic;
//! - [`full_state`] at several ticks of each demo: the demo's signon, then
//!   one `DEM_FullPacket` (the string tables of that tick and the full
//!   state's message), read by a fresh parser, holds the same entities
//!   (index, serial, class) with the same values.
//!
//! The test prints, per demo, how many bodies and how many `entity_data`
//! bitstreams come out byte for byte as the game wrote them (no target:
//! several field-path encodings are valid).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::VecDeque;
use std::path::PathBuf;

use gamewire_source2::container::{DemoCommand, FrameReader};
use gamewire_source2::container_writer::DemoWriter;
use gamewire_source2::entity_writer::{
    decode_packet_entities, encode_packet_entities, full_state, pvs_leaves, EntityOp, EntityRecord,
    PacketEntities,
};
use gamewire_source2::packet_writer::{encode_demo_packet, PacketMessages, PacketWriter};
use gamewire_source2::{parse_with, DemoState, Entity, EntityChange, FieldPath, Value, Visitor};
use prost::Message;
use source2_demo_protobufs as pb;

fn demos() -> Vec<PathBuf> {
    let out = gamewire_corpus::source2_demos().unwrap_or_else(|e| panic!("{e}"));
    assert!(out.len() >= 7, "expected the 7 corpus demos, found {out:?}");
    out
}

/// FNV-1a over bytes, continuing from `h`.
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
    }
    h
}

/// A value's bytes, floats bit for bit.
fn value_bytes(v: &Value) -> Vec<u8> {
    let floats = |f: &[f32]| f.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect();
    match v {
        Value::Bool(b) => vec![0, u8::from(*b)],
        Value::I32(x) => [&[1u8][..], &x.to_le_bytes()].concat(),
        Value::U32(x) => [&[2u8][..], &x.to_le_bytes()].concat(),
        Value::I64(x) => [&[3u8][..], &x.to_le_bytes()].concat(),
        Value::U64(x) => [&[4u8][..], &x.to_le_bytes()].concat(),
        Value::F32(x) => [&[5u8][..], &x.to_bits().to_le_bytes()].concat(),
        Value::Vec2(f) => [vec![6u8], floats(f)].concat(),
        Value::Vec3(f) => [vec![7u8], floats(f)].concat(),
        Value::Vec4(f) => [vec![8u8], floats(f)].concat(),
        Value::Vec6(f) => [vec![9u8], floats(&f[..])].concat(),
        Value::String(s) => [&[10u8][..], s.as_bytes()].concat(),
        Value::Bytes(b) => [&[11u8][..], b].concat(),
        other => format!("{other:?}").into_bytes(),
    }
}

fn same_fields(a: &[(FieldPath, Value)], b: &[(FieldPath, Value)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((pa, va), (pb, vb))| pa == pb && value_bytes(va) == value_bytes(vb))
}

/// The same records, values bit for bit (`NaN`s included).
fn same_records(a: &[EntityRecord], b: &[EntityRecord]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.index == y.index
                && match (&x.op, &y.op) {
                    (
                        EntityOp::Create {
                            class_id: c1,
                            serial: s1,
                            spare: u1,
                            fields: f1,
                        },
                        EntityOp::Create {
                            class_id: c2,
                            serial: s2,
                            spare: u2,
                            fields: f2,
                        },
                    ) => c1 == c2 && s1 == s2 && u1 == u2 && same_fields(f1, f2),
                    (
                        EntityOp::Update {
                            pvs: p1,
                            fields: f1,
                        },
                        EntityOp::Update {
                            pvs: p2,
                            fields: f2,
                        },
                    ) => p1 == p2 && same_fields(f1, f2),
                    (EntityOp::Leave, EntityOp::Leave) | (EntityOp::Delete, EntityOp::Delete) => {
                        true
                    }
                    _ => false,
                }
        })
}

/// A digest of one entity's whole state.
fn entity_digest(e: &Entity) -> u64 {
    let mut h = fnv(0xcbf29ce484222325, &e.index.to_le_bytes());
    h = fnv(h, &e.serial.to_le_bytes());
    h = fnv(h, &e.class_id.to_le_bytes());
    let mut values = e.values();
    values.sort_by_key(|(k, _)| *k);
    for (k, v) in values {
        h = fnv(h, &k.to_le_bytes());
        h = fnv(h, &value_bytes(v));
    }
    h
}

/// A digest of every entity's state.
fn state_digest(state: &DemoState) -> u64 {
    state.entities.iter().fold(0xcbf29ce484222325, |h, e| {
        fnv(h, &entity_digest(e).to_le_bytes())
    })
}

/// Per-demo counts.
#[derive(Debug, Default)]
struct Counts {
    messages: u64,
    skipped: u64,
    records: u64,
    values: u64,
    same_body: u64,
    same_data: u64,
    data_bytes: (u64, u64),
    /// Damaged messages that still decoded.
    damaged_decoded: u64,
}

/// Records what each message did: one digest per applied message (the
/// entities it touched, their values at the paths it set), and the whole
/// state every 64 ticks and at the end.
#[derive(Debug, Default)]
struct Effects {
    current: u64,
    per_message: Vec<u64>,
    per_tick: Vec<(i32, u64)>,
}

impl Effects {
    fn on_entity(&mut self, change: EntityChange, entity: &Entity, paths: &[FieldPath]) {
        let kind = match change {
            EntityChange::Created => 0u8,
            EntityChange::Updated => 1,
            EntityChange::LeftPvs => 2,
            EntityChange::Deleted => 3,
        };
        let mut h = fnv(self.current, &[kind]);
        h = fnv(h, &entity.index.to_le_bytes());
        h = fnv(h, &entity.serial.to_le_bytes());
        h = fnv(h, &entity.class_id.to_le_bytes());
        for p in paths {
            for i in p.as_slice() {
                h = fnv(h, &i.to_le_bytes());
            }
            if let Some(v) = entity.get(p) {
                h = fnv(h, &value_bytes(v));
            }
        }
        self.current = h;
    }

    fn on_packet_entities(&mut self) {
        self.per_message.push(self.current);
        self.current = 0;
    }

    fn on_tick_end(&mut self, state: &DemoState, tick: i32) {
        if tick % 64 == 0 {
            self.per_tick.push((tick, state_digest(state)));
        }
    }
}

fn original_message(body: &[u8]) -> pb::CSvcMsgPacketEntities {
    pb::CSvcMsgPacketEntities::decode(body).unwrap()
}

/// The first pass: every message decoded, encoded and decoded again.
struct RoundTrip {
    name: String,
    counts: Counts,
    encoded: VecDeque<Vec<u8>>,
    effects: Effects,
}

impl Visitor for RoundTrip {
    fn before_packet_entities(&mut self, state: &DemoState, body: &[u8], applied: bool) {
        let what = format!(
            "{} tick {} message {}",
            self.name, state.tick, self.counts.messages
        );
        let model = decode_packet_entities(body, state).unwrap_or_else(|e| panic!("{what}: {e}"));
        let encoded =
            encode_packet_entities(&model, state).unwrap_or_else(|e| panic!("{what}: {e}"));
        let again: PacketEntities =
            decode_packet_entities(&encoded, state).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            same_records(&model.records, &again.records),
            "{what}: records differ after encoding"
        );
        assert_eq!(model.message, again.message, "{what}: message fields");
        let original = pb::CSvcMsgPacketEntities::decode(body).unwrap();
        let ours = pb::CSvcMsgPacketEntities::decode(&encoded[..]).unwrap();
        let (a, b) = (
            original.entity_data.unwrap_or_default(),
            ours.entity_data.unwrap_or_default(),
        );
        self.counts.messages += 1;
        self.counts.skipped += u64::from(!applied);
        self.counts.records += model.records.len() as u64;
        self.counts.values += model
            .records
            .iter()
            .map(|r| match &r.op {
                EntityOp::Create { fields, .. } | EntityOp::Update { fields, .. } => {
                    fields.len() as u64
                }
                _ => 0,
            })
            .sum::<u64>();
        self.counts.same_body += u64::from(encoded == body);
        self.counts.same_data += u64::from(a == b);
        self.counts.data_bytes.0 += a.len() as u64;
        self.counts.data_bytes.1 += b.len() as u64;
        self.encoded.push_back(encoded);
        // Damaged input: bits of `entity_data` flipped, or the data cut
        // short. Decoding fails with an error or gives records that encode
        // (or fail to) without a panic.
        let mut damaged = original_message(body);
        let mut seed = self.counts.messages.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let data = damaged.entity_data.get_or_insert_with(Vec::new);
        if !data.is_empty() {
            for _ in 0..3 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let bit = (seed % (data.len() as u64 * 8)) as usize;
                data[bit / 8] ^= 1 << (bit % 8);
            }
            let cut = (seed % data.len() as u64) as usize;
            let mut short = damaged.clone();
            if let Some(d) = short.entity_data.as_mut() {
                d.truncate(cut);
            }
            for m in [damaged, short] {
                if let Ok(model) = decode_packet_entities(&m.encode_to_vec(), state) {
                    let _ = encode_packet_entities(&model, state);
                    self.counts.damaged_decoded += 1;
                }
            }
        }
    }

    fn on_entity(
        &mut self,
        _state: &DemoState,
        change: EntityChange,
        entity: &Entity,
        paths: &[FieldPath],
    ) {
        self.effects.on_entity(change, entity, paths);
    }

    fn on_packet_entities(&mut self, _state: &DemoState) {
        self.effects.on_packet_entities();
    }

    fn on_tick_end(&mut self, state: &DemoState, tick: i32) {
        self.effects.on_tick_end(state, tick);
    }
}

/// The second pass: the effects of the demo with the bodies re-encoded.
#[derive(Default)]
struct Replay {
    effects: Effects,
}

impl Visitor for Replay {
    fn on_entity(
        &mut self,
        _state: &DemoState,
        change: EntityChange,
        entity: &Entity,
        paths: &[FieldPath],
    ) {
        self.effects.on_entity(change, entity, paths);
    }

    fn on_packet_entities(&mut self, _state: &DemoState) {
        self.effects.on_packet_entities();
    }

    fn on_tick_end(&mut self, state: &DemoState, tick: i32) {
        self.effects.on_tick_end(state, tick);
    }
}

/// A packet bitstream with every `svc_PacketEntities` body replaced by the
/// next of `bodies`.
fn replace_in_packet(data: &[u8], bodies: &mut VecDeque<Vec<u8>>) -> Vec<u8> {
    let mut messages = PacketMessages::new(data);
    let mut w = PacketWriter::new();
    for m in messages.by_ref() {
        let m = m.unwrap();
        if m.id == 55 {
            let body = bodies.pop_front().expect("a re-encoded body per message");
            w.push(m.id, &body).unwrap();
        } else {
            w.push(m.id, &m.body).unwrap();
        }
    }
    let (_, padding) = messages.padding();
    w.finish_with_padding(padding as u8).unwrap()
}

/// The demo with every `svc_PacketEntities` the parser handles (those
/// before `DEM_Stop`) replaced by the next of `bodies`.
fn replace_bodies(original: &[u8], mut bodies: VecDeque<Vec<u8>>) -> Vec<u8> {
    let mut writer = DemoWriter::new(std::io::Cursor::new(Vec::new())).unwrap();
    let mut reader = FrameReader::new(original).unwrap();
    let mut stopped = false;
    while let Some(frame) = reader.next_frame().unwrap() {
        let payload = match frame.command {
            _ if stopped => frame.payload.to_vec(),
            DemoCommand::Packet | DemoCommand::SignonPacket => {
                let packet = pb::CDemoPacket::decode(&*frame.payload).unwrap();
                let data = packet.data.as_deref().unwrap_or(&[]);
                encode_demo_packet(replace_in_packet(data, &mut bodies))
            }
            DemoCommand::FullPacket => {
                let mut full = pb::CDemoFullPacket::decode(&*frame.payload).unwrap();
                if let Some(packet) = full.packet.as_mut() {
                    let data = packet.data.as_deref().unwrap_or(&[]);
                    packet.data = Some(replace_in_packet(data, &mut bodies));
                }
                full.encode_to_vec()
            }
            _ => frame.payload.to_vec(),
        };
        if frame.command == DemoCommand::FileInfo && !frame.compressed {
            let info = pb::CDemoFileInfo::decode(&*payload).unwrap();
            writer.write_file_info(frame.tick, &info).unwrap();
        } else {
            writer
                .write_frame(frame.command, frame.tick, frame.compressed, &payload)
                .unwrap();
        }
        stopped |= frame.command == DemoCommand::Stop;
    }
    assert!(bodies.is_empty(), "{} bodies left", bodies.len());
    writer.finish().unwrap().into_inner()
}

#[test]
fn every_packet_entities_message_round_trips() {
    for path in demos() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let original = std::fs::read(&path).unwrap();
        let mut first = RoundTrip {
            name: name.clone(),
            counts: Counts::default(),
            encoded: VecDeque::new(),
            effects: Effects::default(),
        };
        let (before, err) = parse_with(&original, &mut first).unwrap();
        assert!(err.is_none(), "{name}: {err:?}");
        let c = &first.counts;
        assert!(c.messages > 0 && c.values > 0, "{name}: {c:?}");
        eprintln!(
            "{name}: {} svc_PacketEntities ({} in full packets the reader skips), {} records, \
             {} values; byte for byte: {} bodies, {} entity_data ({} bytes, ours {}); \
             {} of {} damaged copies still decoded",
            c.messages,
            c.skipped,
            c.records,
            c.values,
            c.same_body,
            c.same_data,
            c.data_bytes.0,
            c.data_bytes.1,
            c.damaged_decoded,
            c.messages * 2,
        );

        let rewritten = replace_bodies(&original, std::mem::take(&mut first.encoded));
        let mut replay = Replay::default();
        let (after, err) = parse_with(&rewritten, &mut replay).unwrap();
        assert!(err.is_none(), "{name}: rewritten: {err:?}");
        let (a, b) = (&first.effects, &replay.effects);
        assert_eq!(a.per_message.len(), b.per_message.len(), "{name}");
        if let Some(i) = (0..a.per_message.len()).find(|&i| a.per_message[i] != b.per_message[i]) {
            panic!("{name}: message {i} applied differently");
        }
        assert_eq!(a.per_tick, b.per_tick, "{name}: entity state by tick");
        assert!(!before.entities.is_empty(), "{name}");
        assert_eq!(
            state_digest(&after),
            state_digest(&before),
            "{name}: final state"
        );
    }
}

/// Takes the state at chosen ticks: its full update (encoded), its string
/// tables and its entity digests.
struct Snapshots {
    name: String,
    ticks: Vec<i32>,
    taken: Vec<Snapshot>,
}

struct Snapshot {
    tick: i32,
    net_tick: u32,
    body: Vec<u8>,
    tables: pb::CDemoStringTables,
    entities: Vec<(i32, u32, u32, u64)>,
    inactive: usize,
    twice: usize,
}

fn string_tables(state: &DemoState) -> pb::CDemoStringTables {
    gamewire_source2::stringtable_writer::snapshot(&state.string_tables)
}

fn entity_list(state: &DemoState) -> Vec<(i32, u32, u32, u64)> {
    state
        .entities
        .iter()
        .map(|e| (e.index, e.serial, e.class_id, entity_digest(e)))
        .collect()
}

impl Visitor for Snapshots {
    fn on_tick_end(&mut self, state: &DemoState, tick: i32) {
        if self.ticks.first().is_some_and(|&t| tick >= t) && !state.entities.is_empty() {
            self.ticks.remove(0);
            let what = format!("{} tick {tick}", self.name);
            let full = full_state(state).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(full.records.len(), state.entities.len(), "{what}");
            let body =
                encode_packet_entities(&full, state).unwrap_or_else(|e| panic!("{what}: {e}"));
            // Lengths written twice: arrays holding more elements than
            // their length says (see `full_state`).
            let twice = full
                .records
                .iter()
                .map(|r| match &r.op {
                    EntityOp::Create { fields, .. } => {
                        let mut paths: Vec<_> = fields.iter().map(|(p, _)| *p).collect();
                        let all = paths.len();
                        paths.sort_by(|a, b| a.as_slice().cmp(b.as_slice()));
                        paths.dedup();
                        all - paths.len()
                    }
                    _ => 0,
                })
                .sum();
            let inactive = state.entities.iter().filter(|e| !e.active).count();
            assert_eq!(pvs_leaves(state).is_some(), inactive > 0, "{what}");
            self.taken.push(Snapshot {
                tick,
                net_tick: state.net_tick,
                body,
                tables: string_tables(state),
                entities: entity_list(state),
                inactive,
                twice,
            });
        }
    }
}

/// The signon of a demo (every frame before the first packet or full
/// packet), a full packet holding `snapshot`, and `DEM_Stop`.
fn demo_from_snapshot(original: &[u8], snapshot: &Snapshot) -> Vec<u8> {
    let mut writer = DemoWriter::new(std::io::Cursor::new(Vec::new())).unwrap();
    let mut reader = FrameReader::new(original).unwrap();
    while let Some(frame) = reader.next_frame().unwrap() {
        if matches!(frame.command, DemoCommand::Packet | DemoCommand::FullPacket) {
            break;
        }
        writer
            .write_frame(frame.command, frame.tick, frame.compressed, &frame.payload)
            .unwrap();
    }
    let mut packet = PacketWriter::new();
    let tick = pb::CNetMsgTick {
        tick: Some(snapshot.net_tick),
        ..Default::default()
    };
    packet.push_message(4, &tick).unwrap();
    packet.push(55, &snapshot.body).unwrap();
    let full = pb::CDemoFullPacket {
        string_table: Some(snapshot.tables.clone()),
        packet: Some(pb::CDemoPacket {
            data: Some(packet.finish()),
        }),
    };
    writer
        .write_frame(
            DemoCommand::FullPacket,
            snapshot.tick,
            true,
            &full.encode_to_vec(),
        )
        .unwrap();
    writer
        .write_frame(DemoCommand::Stop, snapshot.tick, false, &[])
        .unwrap();
    writer.finish().unwrap().into_inner()
}

#[test]
fn a_full_update_rebuilds_the_entities() {
    for path in demos() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let original = std::fs::read(&path).unwrap();
        let mut frames = FrameReader::new(&original).unwrap();
        let mut last = 1;
        while let Some(f) = frames.next_frame_if(|_| false).unwrap() {
            last = last.max(f.tick);
        }
        let ticks: Vec<i32> = (1..=5).map(|k| last * k / 6).collect();
        let mut snapshots = Snapshots {
            name: name.clone(),
            ticks,
            taken: Vec::new(),
        };
        let (_, err) = parse_with(&original, &mut snapshots).unwrap();
        assert!(err.is_none(), "{name}: {err:?}");
        assert!(
            snapshots.taken.len() >= 3,
            "{name}: {} snapshots",
            snapshots.taken.len()
        );
        for snapshot in &snapshots.taken {
            let what = format!("{name} tick {}", snapshot.tick);
            let demo = demo_from_snapshot(&original, snapshot);
            let (state, err) = parse_with(&demo, &mut gamewire_source2::NoVisitor).unwrap();
            assert!(err.is_none(), "{what}: {err:?}");
            let rebuilt = entity_list(&state);
            assert_eq!(
                rebuilt.len(),
                snapshot.entities.len(),
                "{what}: entity count"
            );
            for (a, b) in rebuilt.iter().zip(&snapshot.entities) {
                assert_eq!(a, b, "{what}: entity (index, serial, class, digest)");
            }
            eprintln!(
                "{what}: {} entities rebuilt from a {}-byte full update ({} lengths written \
                 twice; {} entities were out of the PVS)",
                rebuilt.len(),
                snapshot.body.len(),
                snapshot.twice,
                snapshot.inactive,
            );
        }
    }
}
