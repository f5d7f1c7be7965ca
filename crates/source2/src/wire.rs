//! A borrowing protobuf wire reader for the few large, frequent messages
//! where decoding the generated `source2_demo_protobufs` type would copy
//! most of a frame: the send tables' `CSVCMsg_FlattenedSerializer`
//! ([`crate::flattened`]), the blob of `CDemoSendTables` and `CDemoPacket`,
//! the pieces of `CDemoFullPacket`, and `CDemoStringTables` snapshots.
//! Everything else is decoded with the generated types.
//!
//! The wire format (protobuf encoding): a message is a sequence of fields,
//! each a varint key `tag << 3 | wire type` and a value: wire type 0 a
//! varint, 1 eight bytes, 2 a varint length and that many bytes (strings,
//! bytes, nested messages, packed repeated scalars), 5 four bytes. Groups
//! (3 and 4) are not used by these messages and are rejected. Repeated
//! occurrences of a non-repeated field: the last scalar wins and nested
//! messages merge, as in every protobuf library. Errors carry the byte
//! offset in the message.

use crate::error::{ErrorKind, ProtobufProblem, WireProblem as Problem};

/// Protobuf wire types.
pub(crate) const VARINT: u8 = 0;
pub(crate) const FIXED64: u8 = 1;
pub(crate) const LEN: u8 = 2;
pub(crate) const FIXED32: u8 = 5;
const START_GROUP: u8 = 3;
const END_GROUP: u8 = 4;

/// What was wrong with the bytes, and the byte offset in the message (kept
/// small so the hot reads return it cheaply; it becomes an [`ErrorKind`] at
/// the edge of this module).
#[derive(Debug, Clone, Copy)]
pub(crate) struct WireError {
    problem: Problem,
    at: usize,
}

impl WireError {
    // Kept out of line, as the error path of the hot readers.
    #[cold]
    #[inline(never)]
    pub(crate) fn in_message(self, message: &'static str) -> ErrorKind {
        ErrorKind::Protobuf {
            message,
            reason: ProtobufProblem::Wire {
                problem: self.problem,
                at: self.at,
            },
        }
    }
}

/// The bytes of the `optional bytes` field `tag` of a protobuf message,
/// borrowed (the last occurrence wins, as in every protobuf library); other
/// fields are skipped. For messages that only wrap one blob, such as
/// `CDemoSendTables` (`data`, tag 1), where decoding the generated type
/// would copy the blob.
pub(crate) fn bytes_field<'a>(
    message: &'a [u8],
    tag: u64,
    what: &'static str,
) -> Result<Option<&'a [u8]>, ErrorKind> {
    bytes_field_in(Wire::new(message, 0), tag).map_err(|e| e.in_message(what))
}

/// A cursor over protobuf bytes; `base` is the offset of `data` in the whole
/// message (for error positions).
pub(crate) struct Wire<'a> {
    pub(crate) data: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) base: usize,
    /// The tag of the last key read (a group is skipped up to the end-group
    /// key with the same tag).
    last_tag: u64,
}

/// Deepest nesting of (deprecated) groups skipped, as prost's recursion
/// limit.
const MAX_GROUP_DEPTH: u32 = 100;

impl<'a> Wire<'a> {
    pub(crate) fn new(data: &'a [u8], base: usize) -> Self {
        Wire {
            data,
            pos: 0,
            base,
            last_tag: 0,
        }
    }

    #[cold]
    pub(crate) fn error(&self, problem: Problem) -> WireError {
        WireError {
            problem,
            at: self.base + self.pos,
        }
    }

    #[inline]
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    #[inline]
    pub(crate) fn varint(&mut self) -> Result<u64, WireError> {
        // Most values here (tags, symbol and field indices) fit one byte.
        if let Some(&byte) = self.data.get(self.pos) {
            if byte < 0x80 {
                self.pos += 1;
                return Ok(u64::from(byte));
            }
        }
        self.varint_slow()
    }

    fn varint_slow(&mut self) -> Result<u64, WireError> {
        let mut value = 0u64;
        for i in 0..10 {
            let Some(&byte) = self.data.get(self.pos) else {
                return Err(self.error(Problem::TruncatedVarint));
            };
            self.pos += 1;
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                // A tenth byte carries bit 63 only; more is an overflow, an
                // error as in prost.
                if i == 9 && byte > 1 {
                    return Err(self.error(Problem::VarintOverflow));
                }
                return Ok(value);
            }
        }
        Err(self.error(Problem::LongVarint))
    }

    /// A field key: (tag, wire type).
    #[inline]
    pub(crate) fn key(&mut self) -> Result<(u64, u8), WireError> {
        let key = self.varint()?;
        // Keys above 32 bits (tags above 2^29 - 1) are invalid, as in prost.
        if key > u64::from(u32::MAX) {
            return Err(self.error(Problem::KeyTooLarge));
        }
        let tag = key >> 3;
        if tag == 0 {
            return Err(self.error(Problem::TagZero));
        }
        self.last_tag = tag;
        Ok((tag, (key & 7) as u8))
    }

    pub(crate) fn take(&mut self, len: u64) -> Result<(&'a [u8], usize), WireError> {
        let start = self.pos;
        let Some(end) = usize::try_from(len)
            .ok()
            .and_then(|len| start.checked_add(len))
            .filter(|&end| end <= self.data.len())
        else {
            return Err(self.error(Problem::PastEnd(len)));
        };
        self.pos = end;
        Ok((&self.data[start..end], self.base + start))
    }

    /// A length-delimited value and its offset in the message.
    pub(crate) fn bytes(&mut self) -> Result<(&'a [u8], usize), WireError> {
        let len = self.varint()?;
        self.take(len)
    }

    pub(crate) fn skip(&mut self, wire_type: u8) -> Result<(), WireError> {
        match wire_type {
            VARINT => self.varint().map(drop),
            FIXED64 => self.take(8).map(drop),
            LEN => self.bytes().map(drop),
            FIXED32 => self.take(4).map(drop),
            START_GROUP => self.skip_group(self.last_tag, 1),
            other => Err(self.error(Problem::Unsupported(other))),
        }
    }

    /// Skips an unknown (deprecated) group up to its end-group key, as
    /// prost does: nested groups too, and the end tag must match.
    fn skip_group(&mut self, tag: u64, depth: u32) -> Result<(), WireError> {
        if depth > MAX_GROUP_DEPTH {
            return Err(self.error(Problem::Unsupported(START_GROUP)));
        }
        loop {
            let (t, wire_type) = self.key()?;
            match wire_type {
                END_GROUP if t == tag => return Ok(()),
                END_GROUP => return Err(self.error(Problem::Unsupported(END_GROUP))),
                START_GROUP => self.skip_group(t, depth + 1)?,
                other => self.skip(other)?,
            }
        }
    }

    /// An `int32` (proto2 encodes negative values as ten-byte varints;
    /// the low 32 bits are the value, as in every protobuf library).
    #[inline]
    pub(crate) fn int32(&mut self, wire_type: u8) -> Result<i32, WireError> {
        if wire_type != VARINT {
            return Err(self.error(Problem::WireType("int32", wire_type)));
        }
        Ok(self.varint()? as i32)
    }

    pub(crate) fn float(&mut self, wire_type: u8) -> Result<f32, WireError> {
        if wire_type != FIXED32 {
            return Err(self.error(Problem::WireType("float", wire_type)));
        }
        let (b, _) = self.take(4)?;
        let mut bytes = [0u8; 4];
        bytes.copy_from_slice(b);
        Ok(f32::from_le_bytes(bytes))
    }

    pub(crate) fn message(&mut self, wire_type: u8) -> Result<Wire<'a>, WireError> {
        if wire_type != LEN {
            return Err(self.error(Problem::WireType("message", wire_type)));
        }
        let (data, base) = self.bytes()?;
        Ok(Wire::new(data, base))
    }

    /// A `bool` (any non-zero varint is true, as in every protobuf library).
    pub(crate) fn boolean(&mut self, wire_type: u8) -> Result<bool, WireError> {
        if wire_type != VARINT {
            return Err(self.error(Problem::WireType("bool", wire_type)));
        }
        Ok(self.varint()? != 0)
    }

    /// A `string` (must be UTF-8, as protobuf requires).
    pub(crate) fn string(&mut self, wire_type: u8) -> Result<&'a str, WireError> {
        let m = self.message(wire_type)?;
        std::str::from_utf8(m.data).map_err(|_| WireError {
            problem: Problem::Utf8,
            at: m.base,
        })
    }
}

/// Checks that a string field holds UTF-8.
pub(crate) fn check_utf8(text: &Wire<'_>) -> Result<(), WireError> {
    std::str::from_utf8(text.data)
        .map(|_| ())
        .map_err(|_| WireError {
            problem: Problem::Utf8,
            at: text.base,
        })
}

/// Every occurrence of the length-delimited field `tag`, in order (a
/// repeated message, or the pieces of a non-repeated one that merge).
pub(crate) fn each_len_field<'a>(
    mut w: Wire<'a>,
    tag: u64,
    mut each: impl FnMut(Wire<'a>) -> Result<(), WireError>,
) -> Result<(), WireError> {
    while !w.at_end() {
        let (t, wire_type) = w.key()?;
        if t == tag {
            each(w.message(wire_type)?)?;
        } else {
            w.skip(wire_type)?;
        }
    }
    Ok(())
}

/// Every field of the top-level message `what`, in order: `each(wire,
/// tag, wire_type)` reads or skips the field's value. A failure is an error
/// that names `what` and the byte.
fn each_field<'a>(
    message: &'a [u8],
    what: &'static str,
    mut each: impl FnMut(&mut Wire<'a>, u64, u8) -> Result<(), WireError>,
) -> Result<(), ErrorKind> {
    let mut w = Wire::new(message, 0);
    let mut step = || -> Result<(), WireError> {
        while !w.at_end() {
            let (tag, wire_type) = w.key()?;
            each(&mut w, tag, wire_type)?;
        }
        Ok(())
    };
    step().map_err(|e| e.in_message(what))
}

/// A `CSVCMsg_CreateStringTable`, borrowed: the generated type copies
/// `string_data`, a whole table's entries. Absent fields read as the
/// defaults the parser gives them; `user_data_size` (4) and
/// `uncompressed_size` (8) are checked and not kept; a repeated field's
/// last value wins, as in the generated type.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct CreateStringTableView<'a> {
    pub name: &'a str,
    pub num_entries: i32,
    pub user_data_fixed_size: bool,
    pub user_data_size_bits: i32,
    pub flags: i32,
    pub string_data: &'a [u8],
    pub data_compressed: bool,
    pub using_varint_bitcounts: bool,
}

/// Reads a `CSVCMsg_CreateStringTable` (see [`CreateStringTableView`]).
pub(crate) fn create_string_table(message: &[u8]) -> Result<CreateStringTableView<'_>, ErrorKind> {
    let mut m = CreateStringTableView::default();
    each_field(message, "CSVCMsg_CreateStringTable", |w, tag, wire_type| {
        match tag {
            1 => m.name = w.string(wire_type)?,
            2 => m.num_entries = w.int32(wire_type)?,
            3 => m.user_data_fixed_size = w.boolean(wire_type)?,
            4 | 8 => {
                w.int32(wire_type)?;
            }
            5 => m.user_data_size_bits = w.int32(wire_type)?,
            6 => m.flags = w.int32(wire_type)?,
            7 => m.string_data = w.message(wire_type)?.data,
            9 => m.data_compressed = w.boolean(wire_type)?,
            10 => m.using_varint_bitcounts = w.boolean(wire_type)?,
            _ => w.skip(wire_type)?,
        }
        Ok(())
    })?;
    Ok(m)
}

/// A `CSVCMsg_UpdateStringTable`, borrowed: `table_id` (1; `None` when
/// absent), `num_changed_entries` (2; 0 when absent), `string_data` (3;
/// empty when absent).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct UpdateStringTableView<'a> {
    pub table_id: Option<i32>,
    pub num_changed_entries: i32,
    pub string_data: &'a [u8],
}

/// Reads a `CSVCMsg_UpdateStringTable` (see [`UpdateStringTableView`]).
pub(crate) fn update_string_table(message: &[u8]) -> Result<UpdateStringTableView<'_>, ErrorKind> {
    let mut m = UpdateStringTableView::default();
    each_field(message, "CSVCMsg_UpdateStringTable", |w, tag, wire_type| {
        match tag {
            1 => m.table_id = Some(w.int32(wire_type)?),
            2 => m.num_changed_entries = w.int32(wire_type)?,
            3 => m.string_data = w.message(wire_type)?.data,
            _ => w.skip(wire_type)?,
        }
        Ok(())
    })?;
    Ok(m)
}

/// A `CDemoClassInfo`, borrowed: each of `classes` (tag 1) as its
/// `class_id` (1; -1 when absent) and `network_name` (2; empty when absent).
/// `table_name` (3) is checked as a string and not kept. A repeated scalar's
/// last value wins, as in the generated type, which this replaces for a
/// message of one string per class (1 594 in a Dota 2 demo).
pub(crate) fn class_info(message: &[u8]) -> Result<Vec<(i32, &str)>, ErrorKind> {
    let mut classes = Vec::with_capacity(message.len() / 24);
    each_len_field(Wire::new(message, 0), 1, |mut w| {
        let (mut id, mut name) = (-1, "");
        while !w.at_end() {
            let (tag, wire_type) = w.key()?;
            match tag {
                1 => id = w.int32(wire_type)?,
                2 => name = w.string(wire_type)?,
                3 => {
                    w.string(wire_type)?;
                }
                _ => w.skip(wire_type)?,
            }
        }
        classes.push((id, name));
        Ok(())
    })
    .map_err(|e| e.in_message("CDemoClassInfo"))?;
    Ok(classes)
}

/// One table of a `CDemoStringTables` snapshot, borrowed:
/// `table_name` (1), `items` (2: `str` (1), `data` (2)), `items_clientside`
/// (3, not kept) and `table_flags` (4).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct SnapshotTable<'a> {
    pub name: &'a str,
    pub flags: Option<i32>,
    pub items: Vec<(&'a str, &'a [u8])>,
    /// Whether `items` holds every item of the table: false when
    /// [`WantsItems`] refused them (then `items` is empty or partial).
    pub items_read: bool,
    /// The table's whole message (what a later snapshot's same table is
    /// compared with).
    pub raw: &'a [u8],
}

/// Which snapshot tables' items are read: called with a table's name and
/// its whole message (when the name comes before the items, as the engine
/// writes it); the items of a table it refuses are stepped over as whole
/// fields, not read one by one.
pub(crate) type WantsItems<'f> = &'f mut dyn FnMut(&str, &[u8]) -> bool;

/// The tables of a `CDemoStringTables` message (`tables`, tag 1). Nothing
/// is applied unless the whole message decodes.
pub(crate) fn string_table_snapshot<'a>(
    message: &'a [u8],
    wants_items: WantsItems<'_>,
) -> Result<Vec<SnapshotTable<'a>>, ErrorKind> {
    let mut tables = Vec::new();
    snapshot_tables_into(Wire::new(message, 0), &mut tables, wants_items)
        .map_err(|e| e.in_message("CDemoStringTables"))?;
    Ok(tables)
}

fn snapshot_tables_into<'a>(
    message: Wire<'a>,
    tables: &mut Vec<SnapshotTable<'a>>,
    wants_items: WantsItems<'_>,
) -> Result<(), WireError> {
    each_len_field(message, 1, |mut w| {
        let mut table = SnapshotTable {
            raw: w.data,
            items_read: true,
            ..SnapshotTable::default()
        };
        // Until the name is read, items are read (and dropped later if the
        // table turns out not to be wanted).
        let mut read_items = true;
        while !w.at_end() {
            let (tag, wire_type) = w.key()?;
            match tag {
                1 => {
                    table.name = w.string(wire_type)?;
                    read_items = wants_items(table.name, w.data);
                    table.items_read &= read_items;
                }
                2 if read_items => {
                    let mut item = w.message(wire_type)?;
                    let (mut key, mut data): (&str, &[u8]) = ("", &[]);
                    while !item.at_end() {
                        let (tag, wire_type) = item.key()?;
                        match tag {
                            1 => key = item.string(wire_type)?,
                            2 => data = item.message(wire_type)?.data,
                            _ => item.skip(wire_type)?,
                        }
                    }
                    table.items.push((key, data));
                }
                4 => table.flags = Some(w.int32(wire_type)?),
                _ => w.skip(wire_type)?,
            }
        }
        tables.push(table);
        Ok(())
    })
}

/// A `CDemoFullPacket`, borrowed and read in one pass, merged as protobuf
/// merges repeated pieces: the string-table snapshot (`string_table`, tag
/// 1: the tables of every piece, in order) and the packet data (`packet`,
/// tag 2: the `data` (tag 3) of the last piece that has one; `None` without
/// a packet).
pub(crate) type FullPacketView<'a> = (Vec<SnapshotTable<'a>>, Option<&'a [u8]>);

/// Reads a `CDemoFullPacket` (see [`FullPacketView`]); `wants_items` as
/// for [`string_table_snapshot`].
pub(crate) fn full_packet<'a>(
    message: &'a [u8],
    wants_items: WantsItems<'_>,
) -> Result<FullPacketView<'a>, ErrorKind> {
    let mut tables = Vec::new();
    let mut packet: Option<&[u8]> = None;
    each_field(message, "CDemoFullPacket", |w, tag, wire_type| {
        match tag {
            1 => snapshot_tables_into(w.message(wire_type)?, &mut tables, &mut *wants_items)?,
            2 => {
                let data = bytes_field_in(w.message(wire_type)?, 3)?;
                packet = data.or(packet).or(Some(&[]));
            }
            _ => w.skip(wire_type)?,
        }
        Ok(())
    })?;
    Ok((tables, packet))
}

fn bytes_field_in(message: Wire<'_>, tag: u64) -> Result<Option<&[u8]>, WireError> {
    let mut found = None;
    each_len_field(message, tag, |w| {
        found = Some(w.data);
        Ok(())
    })?;
    Ok(found)
}

/// What the entity decoder reads of a `CSVCMsg_PacketEntities`, borrowed:
/// `updated_entries` (2), `legacy_is_delta` (3), `entity_data` (7) and
/// `has_pvs_vis_bits_deprecated` (16). The other fields (server tick,
/// serialized entities, command queue statistics, ...) are skipped without
/// being copied.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct PacketEntitiesView<'a> {
    pub updated_entries: Option<i32>,
    pub is_delta: Option<bool>,
    pub entity_data: Option<&'a [u8]>,
    pub has_pvs_vis_bits: Option<u32>,
}

impl<'a> PacketEntitiesView<'a> {
    /// The view of a message's bytes.
    pub(crate) fn parse(message: &'a [u8]) -> Result<Self, ErrorKind> {
        let mut v = PacketEntitiesView::default();
        each_field(message, "CSVCMsg_PacketEntities", |w, tag, wire_type| {
            match tag {
                2 => v.updated_entries = Some(w.int32(wire_type)?),
                3 => v.is_delta = Some(w.boolean(wire_type)?),
                7 => v.entity_data = Some(w.message(wire_type)?.data),
                16 => v.has_pvs_vis_bits = Some(w.int32(wire_type)? as u32),
                _ => w.skip(wire_type)?,
            }
            Ok(())
        })?;
        Ok(v)
    }

    /// The same fields of a decoded message.
    pub(crate) fn of(m: &'a source2_demo_protobufs::CSvcMsgPacketEntities) -> Self {
        PacketEntitiesView {
            updated_entries: m.updated_entries,
            is_delta: m.legacy_is_delta,
            entity_data: m.entity_data.as_deref(),
            has_pvs_vis_bits: m.has_pvs_vis_bits_deprecated,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use proptest::prelude::*;
    use prost::Message;
    use source2_demo_protobufs::c_demo_string_tables::{ItemsT, TableT};
    use source2_demo_protobufs::{CDemoFullPacket, CDemoPacket, CDemoStringTables};

    #[test]
    fn bytes_field_borrows_the_last_occurrence() {
        use source2_demo_protobufs::CDemoSendTables;
        let msg = CDemoSendTables {
            data: Some(vec![1, 2, 3, 200]),
        };
        let mut bytes = msg.encode_to_vec();
        assert_eq!(
            bytes_field(&bytes, 1, "CDemoSendTables").unwrap(),
            Some(&[1u8, 2, 3, 200][..])
        );
        // An unknown varint field, then the field again: the last one wins.
        bytes.extend_from_slice(&[0x10, 0x96, 0x01, 0x0a, 0x01, 0x07]);
        assert_eq!(
            bytes_field(&bytes, 1, "CDemoSendTables").unwrap(),
            Some(&[7u8][..])
        );
        assert_eq!(bytes_field(&[], 1, "CDemoSendTables").unwrap(), None);
        let err = bytes_field(&[0x0a, 0x05, 1], 1, "CDemoSendTables").unwrap_err();
        assert_eq!(
            err.to_string(),
            "protobuf CDemoSendTables did not decode: length 5 runs past the end at byte 2"
        );
    }

    fn tables() -> impl Strategy<Value = CDemoStringTables> {
        let item = (
            proptest::option::of("[a-z0-9_é]{0,8}"),
            proptest::option::of(proptest::collection::vec(any::<u8>(), 0..6)),
        )
            .prop_map(|(str, data)| ItemsT { str, data });
        let table = (
            proptest::option::of("[a-z]{0,10}"),
            proptest::collection::vec(item.clone(), 0..5),
            proptest::collection::vec(item, 0..2),
            proptest::option::of(any::<i32>()),
        )
            .prop_map(
                |(table_name, items, items_clientside, table_flags)| TableT {
                    table_name,
                    items,
                    items_clientside,
                    table_flags,
                },
            );
        proptest::collection::vec(table, 0..4).prop_map(|tables| CDemoStringTables { tables })
    }

    fn event_lists() -> impl Strategy<Value = source2_demo_protobufs::CMsgSource1LegacyGameEventList>
    {
        use source2_demo_protobufs::c_msg_source1_legacy_game_event_list::{DescriptorT, KeyT};
        let key = (
            proptest::option::of(-3i32..12),
            proptest::option::of("[a-z_é]{0,8}"),
        )
            .prop_map(|(r#type, name)| KeyT { r#type, name });
        let descriptor = (
            proptest::option::of(prop_oneof![0i32..6, any::<i32>()]),
            proptest::option::of("[a-z_]{0,12}"),
            proptest::collection::vec(key, 0..5),
        )
            .prop_map(|(eventid, name, keys)| DescriptorT {
                eventid,
                name,
                keys,
            });
        proptest::collection::vec(descriptor, 0..8).prop_map(|descriptors| {
            source2_demo_protobufs::CMsgSource1LegacyGameEventList { descriptors }
        })
    }

    proptest! {
        /// The game-event list read from the wire equals the generated
        /// type's decode turned into descriptors, also when the message comes
        /// in two pieces that protobuf merges (ids may repeat: the last wins).
        #[test]
        fn game_event_list_equal_to_the_generated_type(a in event_lists(), b in event_lists()) {
            let mut bytes = a.encode_to_vec();
            bytes.extend(b.encode_to_vec());
            let want = crate::gameevent::descriptors(
                source2_demo_protobufs::CMsgSource1LegacyGameEventList::decode(bytes.as_slice()).unwrap(),
            );
            prop_assert_eq!(crate::gameevent::game_event_list(&bytes).unwrap(), want);
        }

        /// Names read without decoding (`names`) are those of the decoded
        /// descriptors, in the same order; `get` and `by_name` find them.
        #[test]
        fn game_event_names_agree_with_descriptors(a in event_lists()) {
            let list = crate::gameevent::game_event_list(&a.encode_to_vec()).unwrap();
            let names: Vec<String> = list.names().map(str::to_string).collect();
            let decoded: Vec<&crate::gameevent::EventDescriptor> = list.values().collect();
            prop_assert_eq!(names.len(), list.len());
            prop_assert_eq!(
                &names,
                &decoded.iter().map(|d| d.name.clone()).collect::<Vec<_>>()
            );
            for d in &decoded {
                prop_assert_eq!(list.get(d.id), Some(*d));
                let first = decoded.iter().find(|e| e.name == d.name).copied();
                prop_assert_eq!(list.by_name(&d.name), first);
            }
        }

        /// Hostile bytes: the wire reader fails exactly when the generated
        /// type does, and never panics.
        #[test]
        fn game_event_list_hostile_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let ours = crate::gameevent::game_event_list(&bytes);
            let theirs = source2_demo_protobufs::CMsgSource1LegacyGameEventList::decode(bytes.as_slice());
            prop_assert_eq!(ours.is_ok(), theirs.is_ok());
            if let (Ok(o), Ok(t)) = (ours, theirs) {
                prop_assert_eq!(o, crate::gameevent::descriptors(t));
            }
        }

        /// The borrowed snapshot holds what the generated type decodes.
        #[test]
        fn snapshot_equal_to_the_generated_type(msg in tables()) {
            let bytes = msg.encode_to_vec();
            let got = string_table_snapshot(&bytes, &mut |_, _| true).unwrap();
            prop_assert_eq!(got.len(), msg.tables.len());
            for (g, want) in got.iter().zip(&msg.tables) {
                prop_assert_eq!(g.name, want.table_name.as_deref().unwrap_or(""));
                prop_assert_eq!(g.flags, want.table_flags);
                let items: Vec<(&str, &[u8])> = want
                    .items
                    .iter()
                    .map(|i| (i.str.as_deref().unwrap_or(""), i.data.as_deref().unwrap_or(&[])))
                    .collect();
                prop_assert_eq!(&g.items, &items);
                prop_assert!(g.items_read);
                // The table's own message, as the generated type writes it.
                let own = want.encode_to_vec();
                prop_assert_eq!(g.raw, own.as_slice());
            }
        }

        /// Tables whose items are not wanted keep their name and flags and
        /// have no items; the others are read as without the filter.
        #[test]
        fn snapshot_items_of_tables_not_wanted_are_stepped_over(msg in tables()) {
            let bytes = msg.encode_to_vec();
            let all = string_table_snapshot(&bytes, &mut |_, _| true).unwrap();
            let mut asked = Vec::new();
            let mut wants = |name: &str, _: &[u8]| {
                asked.push(name.to_string());
                name.len().is_multiple_of(2)
            };
            let some = string_table_snapshot(&bytes, &mut wants).unwrap();
            prop_assert_eq!(some.len(), all.len());
            for (s, a) in some.iter().zip(&all) {
                prop_assert_eq!(s.name, a.name);
                prop_assert_eq!(s.flags, a.flags);
                prop_assert_eq!(s.raw, a.raw);
                if s.name.len().is_multiple_of(2) {
                    prop_assert_eq!(&s.items, &a.items);
                    prop_assert!(s.items_read);
                } else {
                    prop_assert!(s.items.is_empty());
                    prop_assert!(!s.items_read);
                }
            }
            // Asked once per table that has a name.
            let named = msg.tables.iter().filter(|t| t.table_name.is_some()).count();
            prop_assert_eq!(asked.len(), named);
        }

        /// A full packet's packet data, borrowed, equals the generated decode,
        /// also when the message comes in two pieces that protobuf merges.
        #[test]
        fn full_packet_equal_to_the_generated_type(
            st in proptest::option::of(tables()),
            data in proptest::option::of(proptest::option::of(proptest::collection::vec(any::<u8>(), 0..20))),
            second in proptest::option::of(proptest::option::of(proptest::collection::vec(any::<u8>(), 0..20))),
        ) {
            let piece = |d: Option<Option<Vec<u8>>>| CDemoFullPacket {
                string_table: st.clone(),
                packet: d.map(|data| CDemoPacket { data }),
            };
            let mut bytes = piece(data).encode_to_vec();
            bytes.extend(piece(second).encode_to_vec());
            let want = CDemoFullPacket::decode(bytes.as_slice()).unwrap();
            let (snapshot, got) = full_packet(&bytes, &mut |_, _| true).unwrap();
            prop_assert_eq!(got, want.packet.as_ref().map(|p| p.data.as_deref().unwrap_or(&[])));
            let want_tables = want.string_table.map(|t| t.tables).unwrap_or_default();
            prop_assert_eq!(snapshot.len(), want_tables.len());
        }

        /// The borrowed view of a packet-entities message holds what the
        /// generated type decodes.
        #[test]
        fn packet_entities_equal_to_the_generated_type(
            updated in proptest::option::of(any::<i32>()),
            delta in proptest::option::of(any::<bool>()),
            data in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..40)),
            vis in proptest::option::of(any::<u32>()),
            tick in proptest::option::of(any::<u32>()),
            serialized in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..10)),
        ) {
            let m = source2_demo_protobufs::CSvcMsgPacketEntities {
                updated_entries: updated,
                legacy_is_delta: delta,
                entity_data: data,
                has_pvs_vis_bits_deprecated: vis,
                server_tick: tick,
                serialized_entities: serialized,
                ..Default::default()
            };
            let bytes = m.encode_to_vec();
            let back = source2_demo_protobufs::CSvcMsgPacketEntities::decode(bytes.as_slice()).unwrap();
            prop_assert_eq!(PacketEntitiesView::parse(&bytes).unwrap(), PacketEntitiesView::of(&back));
        }

        /// The borrowed class list holds what the generated type decodes,
        /// also when a class repeats a field (the last one wins).
        #[test]
        fn class_info_equal_to_the_generated_type(
            classes in proptest::collection::vec(
                (
                    proptest::option::of(any::<i32>()),
                    proptest::option::of("[A-Za-z_0-9é]{0,12}"),
                    proptest::option::of("[A-Za-z_]{0,8}"),
                ),
                0..6,
            ),
            repeat in any::<bool>(),
        ) {
            use source2_demo_protobufs::{c_demo_class_info::ClassT, CDemoClassInfo};
            let msg = CDemoClassInfo {
                classes: classes
                    .iter()
                    .map(|(class_id, network_name, table_name)| ClassT {
                        class_id: *class_id,
                        network_name: network_name.clone(),
                        table_name: table_name.clone(),
                    })
                    .collect(),
            };
            let mut bytes = msg.encode_to_vec();
            if repeat {
                // The same message again: protobuf appends the classes.
                bytes.extend(msg.encode_to_vec());
            }
            let want = CDemoClassInfo::decode(bytes.as_slice()).unwrap();
            let got = class_info(&bytes).unwrap();
            let want: Vec<(i32, &str)> = want
                .classes
                .iter()
                .map(|c| (c.class_id.unwrap_or(-1), c.network_name.as_deref().unwrap_or("")))
                .collect();
            prop_assert_eq!(got, want);
        }

        /// The borrowed string-table messages hold what the generated types
        /// decode (absent fields as the parser's defaults), also when the
        /// message comes twice (each field's last value wins).
        #[test]
        fn string_table_messages_equal_to_the_generated_types(
            name in proptest::option::of("[A-Za-z_é]{0,12}"),
            ints in proptest::collection::vec(proptest::option::of(any::<i32>()), 6),
            bools in proptest::collection::vec(proptest::option::of(any::<bool>()), 3),
            data in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..20)),
            twice in any::<bool>(),
        ) {
            use source2_demo_protobufs::{CSvcMsgCreateStringTable, CSvcMsgUpdateStringTable};
            let create = CSvcMsgCreateStringTable {
                name: name.clone(),
                num_entries: ints[0],
                user_data_fixed_size: bools[0],
                user_data_size: ints[1],
                user_data_size_bits: ints[2],
                flags: ints[3],
                string_data: data.clone(),
                uncompressed_size: ints[4],
                data_compressed: bools[1],
                using_varint_bitcounts: bools[2],
            };
            let mut bytes = create.encode_to_vec();
            if twice {
                bytes.extend(create.encode_to_vec());
            }
            let want = CSvcMsgCreateStringTable::decode(bytes.as_slice()).unwrap();
            let got = create_string_table(&bytes).unwrap();
            prop_assert_eq!(got.name, want.name.as_deref().unwrap_or(""));
            prop_assert_eq!(got.num_entries, want.num_entries.unwrap_or(0));
            prop_assert_eq!(got.user_data_fixed_size, want.user_data_fixed_size.unwrap_or(false));
            prop_assert_eq!(got.user_data_size_bits, want.user_data_size_bits.unwrap_or(0));
            prop_assert_eq!(got.flags, want.flags.unwrap_or(0));
            prop_assert_eq!(got.string_data, want.string_data.as_deref().unwrap_or(&[]));
            prop_assert_eq!(got.data_compressed, want.data_compressed.unwrap_or(false));
            prop_assert_eq!(got.using_varint_bitcounts, want.using_varint_bitcounts.unwrap_or(false));

            let update = CSvcMsgUpdateStringTable {
                table_id: ints[5],
                num_changed_entries: ints[0],
                string_data: data,
            };
            let mut bytes = update.encode_to_vec();
            if twice {
                bytes.extend(update.encode_to_vec());
            }
            let want = CSvcMsgUpdateStringTable::decode(bytes.as_slice()).unwrap();
            let got = update_string_table(&bytes).unwrap();
            prop_assert_eq!(got.table_id, want.table_id);
            prop_assert_eq!(got.num_changed_entries, want.num_changed_entries.unwrap_or(0));
            prop_assert_eq!(got.string_data, want.string_data.as_deref().unwrap_or(&[]));
        }

        /// Any bytes: the string-table messages fail exactly when the
        /// generated types do.
        #[test]
        fn string_table_messages_fail_as_the_generated_types(
            bytes in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            use source2_demo_protobufs::{CSvcMsgCreateStringTable, CSvcMsgUpdateStringTable};
            prop_assert_eq!(
                create_string_table(&bytes).is_ok(),
                CSvcMsgCreateStringTable::decode(bytes.as_slice()).is_ok()
            );
            prop_assert_eq!(
                update_string_table(&bytes).is_ok(),
                CSvcMsgUpdateStringTable::decode(bytes.as_slice()).is_ok()
            );
        }

        /// Valid string-table and class-list messages with a few bytes
        /// overwritten (so lengths, keys and varints break in the middle of
        /// real content, which random bytes seldom reach): an error exactly
        /// when the generated type fails.
        #[test]
        fn overwritten_messages_fail_as_the_generated_types(
            name in proptest::option::of("[A-Za-z_é]{0,12}"),
            ints in proptest::collection::vec(proptest::option::of(any::<i32>()), 6),
            data in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..20)),
            edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        ) {
            use source2_demo_protobufs::{
                c_demo_class_info::ClassT, CDemoClassInfo, CSvcMsgCreateStringTable,
                CSvcMsgUpdateStringTable,
            };
            let overwrite = |mut bytes: Vec<u8>| {
                if !bytes.is_empty() {
                    let len = bytes.len();
                    for &(at, byte) in &edits {
                        bytes[at % len] = byte;
                    }
                }
                bytes
            };
            let create = overwrite(
                CSvcMsgCreateStringTable {
                    name: name.clone(),
                    num_entries: ints[0],
                    user_data_size: ints[1],
                    flags: ints[2],
                    string_data: data.clone(),
                    uncompressed_size: ints[3],
                    data_compressed: Some(true),
                    ..Default::default()
                }
                .encode_to_vec(),
            );
            prop_assert_eq!(
                create_string_table(&create).is_ok(),
                CSvcMsgCreateStringTable::decode(create.as_slice()).is_ok()
            );
            let update = overwrite(
                CSvcMsgUpdateStringTable {
                    table_id: ints[4],
                    num_changed_entries: ints[5],
                    string_data: data,
                }
                .encode_to_vec(),
            );
            prop_assert_eq!(
                update_string_table(&update).is_ok(),
                CSvcMsgUpdateStringTable::decode(update.as_slice()).is_ok()
            );
            let classes = overwrite(
                CDemoClassInfo {
                    classes: vec![
                        ClassT { class_id: ints[0], network_name: name.clone(), table_name: None },
                        ClassT { class_id: ints[1], network_name: None, table_name: name },
                    ],
                }
                .encode_to_vec(),
            );
            prop_assert_eq!(
                class_info(&classes).is_ok(),
                CDemoClassInfo::decode(classes.as_slice()).is_ok()
            );
        }

        /// Any bytes: an error or a value, never a panic; an error exactly
        /// when the generated type fails.
        #[test]
        fn class_info_fails_as_the_generated_type(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            use source2_demo_protobufs::CDemoClassInfo;
            prop_assert_eq!(
                class_info(&bytes).is_ok(),
                CDemoClassInfo::decode(bytes.as_slice()).is_ok()
            );
        }

        /// Any bytes: an error or a value, never a panic.
        #[test]
        fn hostile_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = PacketEntitiesView::parse(&bytes);
            let _ = string_table_snapshot(&bytes, &mut |_, _| true);
            let _ = string_table_snapshot(&bytes, &mut |_, _| false);
            let _ = full_packet(&bytes, &mut |_, _| true);
            let _ = bytes_field(&bytes, 3, "CDemoPacket");
        }
    }

    #[test]
    fn a_varint_above_64_bits_fails_as_in_prost() {
        use source2_demo_protobufs::CSvcMsgUpdateStringTable;
        // table_id (tag 1) as a ten-byte varint: a last byte of 1 holds bit
        // 63, a last byte of 2 would hold bit 64.
        for (last, ok) in [(0x01u8, true), (0x02, false), (0x7f, false)] {
            let mut bytes = vec![0x08];
            bytes.extend_from_slice(&[0xff; 9]);
            bytes.push(last);
            assert_eq!(
                CSvcMsgUpdateStringTable::decode(bytes.as_slice()).is_ok(),
                ok,
                "prost, last byte {last:#x}"
            );
            match update_string_table(&bytes) {
                Ok(_) => assert!(ok, "last byte {last:#x}"),
                Err(e) => {
                    assert!(!ok, "last byte {last:#x}");
                    assert_eq!(
                        e.to_string(),
                        "protobuf CSVCMsg_UpdateStringTable did not decode: varint above 64 bits at byte 11"
                    );
                }
            }
        }
    }

    #[test]
    fn snapshot_rejects_a_key_that_is_not_utf8() {
        // tables { items { str: 0xff } }
        let bytes = [0x0a, 0x05, 0x12, 0x03, 0x0a, 0x01, 0xff];
        let err = string_table_snapshot(&bytes, &mut |_, _| true).unwrap_err();
        assert_eq!(
            err.to_string(),
            "protobuf CDemoStringTables did not decode: a string that is not UTF-8 at byte 6"
        );
    }
}
