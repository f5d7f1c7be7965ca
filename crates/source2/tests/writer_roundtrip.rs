//! The container and packet writers on every corpus demo (CS2, Deadlock,
//! Dota 2): each frame is decoded (payload decompressed; for packets, the
//! `CDemoPacket` and every message of its bitstream), then written again
//! with [`DemoWriter`] and [`PacketWriter`].
//!
//! `CDemoFileInfo` is decoded and written from the decoded message.
//!
//! What must hold:
//! - every packet bitstream re-encodes to its original bytes, and every
//!   `CDemoPacket` / `CDemoFullPacket` payload re-encodes to its original
//!   bytes;
//! - the written demo's header offsets point at the same frames as the
//!   original's (the `DEM_FileInfo` and `DEM_SpawnGroups` frames), and every
//!   frame has the original's frame header (command with
//!   its compression flag, tick; the size too when the snappy block is the
//!   same) and decompresses to the original payload. The snappy blocks
//!   themselves are compared and counted, not required equal: snappy allows
//!   several encodings of one payload, and ours (the `snap` crate) need not
//!   pick the game's. When every block is equal, the whole file is equal
//!   byte for byte, and that is asserted;
//! - with every frame stored as its original block instead
//!   ([`DemoWriter::write_raw_frame`]), the written demo equals the original
//!   byte for byte: magic, header offsets, frame headers, payloads;
//! - the written demo parses to the same final state as the original: last
//!   tick, frame count, entity count and an entity-state checksum, and every
//!   string table, entry for entry.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use gamewire_source2::container::{DemoCommand, FrameReader};
use gamewire_source2::container_writer::{encode_file_info, DemoWriter, HeaderOffsets};
use gamewire_source2::packet_writer::{encode_demo_packet, PacketMessages, PacketWriter};
use gamewire_source2::{parse_with, DemoState, NoVisitor, Value};
use prost::Message;
use source2_demo_protobufs as pb;

fn demos() -> Vec<PathBuf> {
    let out = gamewire_corpus::source2_demos().unwrap_or_else(|e| panic!("{e}"));
    assert!(out.len() >= 7, "expected the 7 corpus demos, found {out:?}");
    out
}

#[derive(Debug, Default)]
struct Counts {
    frames: u64,
    compressed: u64,
    same_snappy: u64,
    /// Stored bytes of the compressed frames: the game's, ours.
    snappy_bytes: (u64, u64),
    packets: u64,
    messages: u64,
    /// Packets whose padding bits are not all zero.
    padded: u64,
    /// `CDemoFileInfo` frames decoded and written again.
    file_info: u64,
}

/// Splits a packet bitstream into messages and writes them again; the
/// result must be the original bitstream.
fn rewrite_packet(data: &[u8], counts: &mut Counts, what: &str) -> Vec<u8> {
    let mut messages = PacketMessages::new(data);
    let mut w = PacketWriter::new();
    for m in messages.by_ref() {
        let m = m.unwrap_or_else(|e| panic!("{what}: {e}"));
        w.push(m.id, &m.body).unwrap();
    }
    let (left, value) = messages.padding();
    assert!(left < 8, "{what}: {left} bits after the messages");
    counts.packets += 1;
    counts.messages += w.len() as u64;
    counts.padded += u64::from(value != 0);
    let out = w.finish_with_padding(value as u8).unwrap();
    assert_eq!(out, data, "{what}: packet bitstream differs");
    out
}

/// A frame payload rebuilt from its decoded parts.
fn rewrite_payload(
    command: DemoCommand,
    payload: &[u8],
    counts: &mut Counts,
    what: &str,
) -> Vec<u8> {
    match command {
        DemoCommand::Packet | DemoCommand::SignonPacket => {
            let packet = pb::CDemoPacket::decode(payload).unwrap();
            let data = rewrite_packet(packet.data.as_deref().unwrap_or(&[]), counts, what);
            encode_demo_packet(data)
        }
        DemoCommand::FullPacket => {
            let mut full = pb::CDemoFullPacket::decode(payload).unwrap();
            if let Some(packet) = full.packet.as_mut() {
                let data = rewrite_packet(packet.data.as_deref().unwrap_or(&[]), counts, what);
                packet.data = Some(data);
            }
            full.encode_to_vec()
        }
        _ => payload.to_vec(),
    }
}

/// The stored payload of a frame: what follows its three header varints.
fn stored_payload(frame: &[u8]) -> &[u8] {
    let mut at = 0;
    for _ in 0..3 {
        while frame[at] & 0x80 != 0 {
            at += 1;
        }
        at += 1;
    }
    &frame[at..]
}

/// An order-independent checksum of every entity's final state.
fn state_checksum(state: &DemoState) -> u64 {
    let mut sum = 0u64;
    for e in state.entities.iter() {
        for (k, v) in e.values() {
            let text = match v {
                Value::F32(f) => f.to_bits().to_string(),
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
    sum
}

/// Every string table: its name and its entries (key, user data).
type Tables = Vec<(String, Vec<(String, Vec<u8>)>)>;

/// The final state compared: tick, frames, entity count, entity checksum,
/// string tables.
fn summary(state: &DemoState) -> (i32, u64, usize, u64, Tables) {
    let tables = state
        .string_tables
        .iter()
        .map(|t| {
            let entries = t
                .entries
                .iter()
                .map(|e| (e.key.clone(), e.value.clone()))
                .collect();
            (t.name.clone(), entries)
        })
        .collect();
    (
        state.tick,
        state.frames,
        state.entities.len(),
        state_checksum(state),
        tables,
    )
}

#[test]
fn every_corpus_demo_is_written_again() {
    for path in demos() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let original = std::fs::read(&path).unwrap();
        let mut counts = Counts::default();
        let mut writer = DemoWriter::new(std::io::Cursor::new(Vec::new())).unwrap();
        let mut reader = FrameReader::new(&original).unwrap();
        let mut frames = Vec::new();
        while let Some(frame) = reader.next_frame().unwrap() {
            let what = format!("{name} frame {} ({})", frame.index, frame.command.name());
            let payload = rewrite_payload(frame.command, &frame.payload, &mut counts, &what);
            assert_eq!(payload, *frame.payload, "{what}: payload differs");
            if frame.command == DemoCommand::FileInfo && !frame.compressed {
                // Decoded, and written from the decoded message.
                let info = pb::CDemoFileInfo::decode(&*frame.payload).unwrap();
                assert!(info.playback_ticks.unwrap_or(0) > 0, "{what}");
                assert_eq!(encode_file_info(&info), payload, "{what}");
                writer.write_file_info(frame.tick, &info).unwrap();
                counts.file_info += 1;
            } else {
                writer
                    .write_frame(frame.command, frame.tick, frame.compressed, &payload)
                    .unwrap();
            }
            counts.frames += 1;
            counts.compressed += u64::from(frame.compressed);
            frames.push((frame.command, frame.tick, frame.compressed, payload));
        }
        assert_eq!(counts.file_info, 1, "{name}: one DEM_FileInfo");
        let written = writer.finish().unwrap().into_inner();
        // The header offsets name the same frames (by index) in both files;
        // the byte offsets themselves move when snappy blocks differ in size.
        let pointed = |data: &[u8]| {
            let offsets = HeaderOffsets::read(data).unwrap();
            let mut r = FrameReader::new(data).unwrap();
            let (mut info, mut groups) = (None, None);
            while let Some(f) = r.next_frame().unwrap() {
                if f.offset == u64::from(offsets.file_info) {
                    info = Some((f.index, f.command));
                }
                if f.offset == u64::from(offsets.spawn_groups) {
                    groups = Some((f.index, f.command));
                }
            }
            (info, groups)
        };
        let (info, groups) = pointed(&original);
        assert_eq!(info.map(|i| i.1), Some(DemoCommand::FileInfo), "{name}");
        assert_eq!(
            groups.map(|g| g.1),
            Some(DemoCommand::SpawnGroups),
            "{name}"
        );
        assert_eq!(pointed(&written), (info, groups), "{name}: header offsets");

        // Frame by frame: the same header and payload; the same snappy block
        // or not.
        let mut a = FrameReader::new(&original).unwrap();
        let mut b = FrameReader::new(&written).unwrap();
        for (command, tick, compressed, payload) in &frames {
            let (fa, fb) = (
                a.next_frame().unwrap().unwrap(),
                b.next_frame().unwrap().unwrap(),
            );
            assert_eq!(
                (fb.command, fb.tick, fb.compressed),
                (*command, *tick, *compressed)
            );
            assert_eq!(*fb.payload, payload[..], "{name}: frame {}", fb.index);
            let end = |r: &FrameReader<'_>| r.offset();
            let raw_a = &original[fa.offset as usize..end(&a) as usize];
            let raw_b = &written[fb.offset as usize..end(&b) as usize];
            if *compressed {
                counts.snappy_bytes.0 += raw_a.len() as u64;
                counts.snappy_bytes.1 += raw_b.len() as u64;
            }
            if raw_a == raw_b {
                counts.same_snappy += u64::from(*compressed);
            } else {
                assert!(
                    *compressed,
                    "{name}: uncompressed frame {} differs",
                    fb.index
                );
            }
        }
        assert!(b.next_frame().unwrap().is_none());

        // With each verified frame stored as its original block
        // (`write_raw_frame`), the whole file comes out byte for byte.
        let mut copy = DemoWriter::new(std::io::Cursor::new(Vec::new())).unwrap();
        let mut a = FrameReader::new(&original).unwrap();
        while let Some(f) = a.next_frame_if(|_| false).unwrap() {
            let frame = &original[f.offset as usize..a.offset() as usize];
            copy.write_raw_frame(f.command, f.tick, f.compressed, stored_payload(frame))
                .unwrap();
        }
        let copy = copy.finish().unwrap().into_inner();
        assert_eq!(copy, original, "{name}: frames copied as stored");
        if counts.same_snappy == counts.compressed {
            assert_eq!(written, original, "{name}: every frame equal, file differs");
        }
        eprintln!(
            "{name}: {} frames, {} packets ({} with non-zero padding), {} messages \
             re-encoded byte for byte; {}/{} snappy blocks identical ({} bytes, ours {}); \
             file {}",
            counts.frames,
            counts.packets,
            counts.padded,
            counts.messages,
            counts.same_snappy,
            counts.compressed,
            counts.snappy_bytes.0,
            counts.snappy_bytes.1,
            if written == original {
                "identical"
            } else {
                "differs in snappy blocks only"
            },
        );

        let (before, err) = parse_with(&original, &mut NoVisitor).unwrap();
        assert!(err.is_none(), "{name}: {err:?}");
        let (after, err) = parse_with(&written, &mut NoVisitor).unwrap();
        assert!(err.is_none(), "{name}: written demo: {err:?}");
        assert!(after.warnings.is_empty(), "{name}: {:?}", after.warnings);
        assert_eq!(summary(&after), summary(&before), "{name}: final state");
        assert!(!after.entities.is_empty() && after.tick > 0, "{name}");
    }
}
