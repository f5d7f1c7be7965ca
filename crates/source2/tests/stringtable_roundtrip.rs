//! The string-table entry writer on every corpus demo (CS2, Deadlock,
//! Dota 2): every `CSVCMsg_CreateStringTable` and
//! `CSVCMsg_UpdateStringTable` of every packet frame (`DEM_Packet`,
//! `DEM_SignonPacket`, `DEM_FullPacket`) has its `string_data` (after
//! snappy, when `data_compressed`) read into an
//! [`EntryStream`](gamewire_source2::stringtable_writer::EntryStream) and
//! written again with
//! [`write_entry_stream`]; the result must be the original bytes, byte for
//! byte. No choice is made canonically: the stream records how the game
//! wrote each index, key and value, and the bits after the last entry.
//!
//! The table format (fixed size, size bits, flags, varint bit counts) of an
//! update is its table's, found by id (creation order;
//! `svc_ClearAllStringTables` starts the ids again). The entries of the
//! written stream must also decode, with
//! [`StringTable::apply_entries`], to the same table as the original's.
//!
//! The counts per demo are printed (`--nocapture`): messages, entries, and
//! how many entries use each choice (explicit index, key from the history,
//! compressed value). On the corpus, all equal byte for byte:
//!
//! | demo | creates | updates | entries | explicit index | history key | compressed |
//! |---|---|---|---|---|---|---|
//! | cs2/14011 | 12 | 3 | 415 | 3 | 214 | 37 |
//! | cs2/14065 | 12 | 2 | 420 | 2 | 213 | 38 |
//! | cs2/14132 | 13 | 1 | 208 | 1 | 24 | 26 |
//! | cs2/14150_ag2 | 13 | 1 | 264 | 1 | 62 | 31 |
//! | cs2/14155 | 13 | 1 | 208 | 1 | 29 | 23 |
//! | deadlock/hltv_10423 | 13 | 2 | 1163 | 2 | 802 | 54 |
//! | dota2/auto-20240102-2233-start | 19 | 64 | 5617 | 63 | 4277 | 195 |
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use gamewire_source2::container::{DemoCommand, FrameReader};
use gamewire_source2::packet_writer::PacketMessages;
use gamewire_source2::stringtable::StringTable;
use gamewire_source2::stringtable_writer::{read_entry_stream, write_entry_stream, IndexStep};
use prost::Message;
use source2_demo_protobufs as pb;

fn demos() -> Vec<PathBuf> {
    let out = gamewire_corpus::source2_demos().unwrap_or_else(|e| panic!("{e}"));
    assert!(out.len() >= 7, "expected the 7 corpus demos, found {out:?}");
    out
}

#[derive(Debug, Default)]
struct Counts {
    creates: u64,
    updates: u64,
    entries: u64,
    explicit_index: u64,
    history_keys: u64,
    compressed_values: u64,
    bytes: u64,
}

/// Reads and writes one `string_data`; checks bytes and decoded entries.
fn roundtrip(table: &mut StringTable, data: &[u8], count: i32, counts: &mut Counts, what: &str) {
    let stream = read_entry_stream(table, data, count).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(stream.entries.len(), count as usize, "{what}");
    let written = write_entry_stream(table, &stream).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(written, data, "{what}: string_data differs");
    let mut again = table.clone();
    let changed_a = table.apply_entries(data, count).unwrap();
    let changed_b = again.apply_entries(&written, count).unwrap();
    assert_eq!(changed_a, changed_b, "{what}");
    assert_eq!(table.entries, again.entries, "{what}");
    counts.entries += stream.entries.len() as u64;
    counts.bytes += data.len() as u64;
    for e in &stream.entries {
        counts.explicit_index += u64::from(matches!(e.step, IndexStep::Explicit(_)));
        counts.history_keys += u64::from(e.key.as_ref().is_some_and(|k| k.prefix.is_some()));
        counts.compressed_values +=
            u64::from(e.value.as_ref().is_some_and(|v| v.compressed == Some(true)));
    }
}

fn walk_packet(data: &[u8], tables: &mut Vec<StringTable>, counts: &mut Counts, what: &str) {
    for m in PacketMessages::new(data) {
        let m = m.unwrap_or_else(|e| panic!("{what}: {e}"));
        match m.id {
            44 => {
                let c = pb::CSvcMsgCreateStringTable::decode(&*m.body).unwrap();
                let raw = c.string_data.clone().unwrap_or_default();
                let data = if c.data_compressed() {
                    snap::raw::Decoder::new().decompress_vec(&raw).unwrap()
                } else {
                    raw
                };
                let mut table = StringTable {
                    name: c.name().to_string(),
                    user_data_fixed_size: c.user_data_fixed_size(),
                    user_data_size_bits: c.user_data_size_bits().max(0) as u32,
                    flags: c.flags(),
                    using_varint_bitcounts: c.using_varint_bitcounts(),
                    ..Default::default()
                };
                let what = format!("{what}: create {}", table.name);
                roundtrip(&mut table, &data, c.num_entries(), counts, &what);
                counts.creates += 1;
                tables.push(table);
            }
            45 => {
                let u = pb::CSvcMsgUpdateStringTable::decode(&*m.body).unwrap();
                let id = u.table_id();
                let table = usize::try_from(id)
                    .ok()
                    .and_then(|i| tables.get_mut(i))
                    .unwrap_or_else(|| panic!("{what}: update of table {id}, never created"));
                let what = format!("{what}: update {}", table.name);
                roundtrip(
                    table,
                    u.string_data(),
                    u.num_changed_entries(),
                    counts,
                    &what,
                );
                counts.updates += 1;
            }
            51 => tables.clear(),
            _ => {}
        }
    }
}

#[test]
fn every_string_table_message_is_written_again() {
    for path in demos() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let original = std::fs::read(&path).unwrap();
        let mut reader = FrameReader::new(&original).unwrap();
        let mut tables = Vec::new();
        let mut counts = Counts::default();
        while let Some(frame) = reader.next_frame().unwrap() {
            let what = format!("{name} frame {}", frame.index);
            let packet = match frame.command {
                DemoCommand::Packet | DemoCommand::SignonPacket => {
                    Some(pb::CDemoPacket::decode(&*frame.payload).unwrap())
                }
                DemoCommand::FullPacket => {
                    pb::CDemoFullPacket::decode(&*frame.payload).unwrap().packet
                }
                _ => None,
            };
            if let Some(p) = packet {
                walk_packet(p.data(), &mut tables, &mut counts, &what);
            }
        }
        println!("{name}: {counts:?}");
        assert!(counts.creates > 0, "{name}: no string table created");
        assert!(counts.entries > 0, "{name}: no entries");
    }
}
