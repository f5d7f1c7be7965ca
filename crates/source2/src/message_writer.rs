//! Writing protobuf messages again: frame payloads, packet messages by id,
//! the send tables, the class info and the game-event list (the inverse of
//! the protobuf layer of the reader).
//!
//! Every frame payload and every packet message body is a protobuf (proto2)
//! message: a run of fields, each a key (`field number << 3 | wire type`, a
//! varint) and a value: a varint (wire type 0), eight bytes (1), a length
//! and that many bytes (2: strings, bytes, nested messages, packed repeated
//! scalars) or four bytes (5). The types are Valve's `.proto` files, as
//! compiled by the `source2-demo-protobufs` crate; which type a packet
//! message has is chosen by its id (`docs/formats/source2-demo.md`,
//! "Packets"): ids below 100 are the engine's `NET_Messages`, `SVC_Messages`
//! and `Bidirectional_Messages`, the same in every game; from 100 on they are
//! user messages, game events and temp entities, per game ([`crate::messages`]).
//!
//! # Exact and not exact
//!
//! A message decoded into its generated type and encoded again comes out as
//! the bytes it came in as when the sender wrote what the type knows, in
//! field-number order, each scalar once, varints in their shortest form and
//! repeated scalars packed or not as the `.proto` file says. Valve's encoder
//! does all of that, so almost every message of a demo re-encodes byte for
//! byte. What does not (see [`explain`] and the figures in
//! `docs/formats/source2-demo.md`, "Writing demos"):
//!
//! - fields the generated types do not know (the games add fields before the
//!   published `.proto` files have them): the generated types drop them;
//! - negative `int32` values written as five-byte varints (protobuf writes
//!   them sign-extended to ten bytes): decoded to the same value, written
//!   back in ten bytes;
//! - a scalar sent twice (the decoder keeps the last), fields out of
//!   field-number order, repeated scalars packed where the `.proto` file
//!   says unpacked (or the reverse).
//!
//! [`reencodes_exactly`] says, for one message, whether it comes back as the
//! same bytes; an editor that does not change a message copies its original
//! bytes in any case, and one that changes a message which does not re-encode
//! exactly loses only what the list above names.
//!
//! # Models and types
//!
//! Where the reader has a model of its own, the writer takes that model:
//!
//! - the game-event list: [`encode_game_event_list`] writes
//!   `CMsgSource1LegacyGameEventList` from [`EventDescriptor`]s, and
//!   [`encode_game_event`] a `CMsgSource1LegacyGameEvent` from a decoded
//!   [`GameEvent`] (the inverse of [`crate::gameevent::decode`]);
//! - the class info: [`encode_class_info`] writes `CDemoClassInfo` from the
//!   state's [`ServerClass`]es (id and network name; the games leave
//!   `table_name` out);
//! - user messages, protobuf game events and every engine message: their
//!   decoded model is JSON ([`crate::messages::to_json`]), and
//!   [`encode_json`] is its inverse; [`reencode`] decodes and re-encodes a
//!   body with its type.
//!
//! The send tables have no model that keeps what the message holds (the
//! built serializers drop the symbol table and the order of fields), so they
//! are written from the generated type: [`encode_send_tables`] wraps a
//! `CSVCMsg_FlattenedSerializer` as the payload of a `DEM_SendTables` frame
//! (a varint length, then the message, in `data`), the inverse of
//! [`crate::serializer::demo_payload_message`].
//!
//! ```
//! use gamewire_source2::message_writer::{encode_json, reencodes_exactly};
//! use gamewire_source2::messages::to_json;
//! use gamewire_source2::Game;
//!
//! // net_Tick: tick (field 1) 42, field 4 15.
//! let body = [0x08, 0x2a, 0x20, 0x0f];
//! assert!(reencodes_exactly(Game::Cs2, 4, &body));
//!
//! // A SayText2 user message, decoded to JSON, changed, and written again.
//! let say = [0x08, 0x03, 0x22, 0x02, b'g', b'g'];
//! let mut json = to_json(Game::Cs2, 118, &say).unwrap()?;
//! json["param1"] = "Partridge".into();
//! let written = encode_json(Game::Cs2, 118, &json).unwrap()?;
//! assert_eq!(to_json(Game::Cs2, 118, &written).unwrap()?["param1"], "Partridge");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use prost::Message;
use source2_demo_protobufs as pb;

use crate::container::DemoCommand;
use crate::container_writer::write_varint32;
use crate::error::ErrorKind;
use crate::game::Game;
use crate::gameevent::{EventDescriptor, EventValue, GameEvent};
use crate::messages_generated::{
    type_name, with_engine_type, with_type, TypeAction, ENGINE_MESSAGE_TYPES,
};
use crate::state::ServerClass;

/// The protobuf type of a packet message, by id: an engine message (id below
/// 100) or a user message, game event or temp entity of `game`. `None` when
/// the id has no type.
pub fn protobuf_type(game: Game, id: u32) -> Option<&'static str> {
    if id < 100 {
        return ENGINE_MESSAGE_TYPES
            .iter()
            .find(|(i, ..)| *i == id)
            .map(|&(_, _, ty)| ty);
    }
    crate::messages::message_type(game, id).and_then(|(_, _, ty)| ty)
}

/// The protobuf type of a frame's payload (`CDemoPacket`, `CDemoFileHeader`,
/// ...); `None` for an unknown command.
pub fn frame_type(command: DemoCommand) -> Option<&'static str> {
    struct Name;
    impl TypeAction for Name {
        type Output = &'static str;
        fn run<M>(self) -> &'static str
        where
            M: Message + Default + PartialEq + serde::Serialize + serde::de::DeserializeOwned,
        {
            type_name::<M>()
        }
    }
    with_frame_type(command, Name)
}

/// Runs `action` with the protobuf type of a frame payload.
fn with_frame_type<A: TypeAction>(command: DemoCommand, action: A) -> Option<A::Output> {
    use DemoCommand::*;
    Some(match command {
        Stop => action.run::<pb::CDemoStop>(),
        FileHeader => action.run::<pb::CDemoFileHeader>(),
        FileInfo => action.run::<pb::CDemoFileInfo>(),
        SyncTick => action.run::<pb::CDemoSyncTick>(),
        SendTables => action.run::<pb::CDemoSendTables>(),
        ClassInfo => action.run::<pb::CDemoClassInfo>(),
        StringTables => action.run::<pb::CDemoStringTables>(),
        Packet | SignonPacket => action.run::<pb::CDemoPacket>(),
        ConsoleCmd => action.run::<pb::CDemoConsoleCmd>(),
        CustomData => action.run::<pb::CDemoCustomData>(),
        CustomDataCallbacks => action.run::<pb::CDemoCustomDataCallbacks>(),
        UserCmd => action.run::<pb::CDemoUserCmd>(),
        FullPacket => action.run::<pb::CDemoFullPacket>(),
        SaveGame => action.run::<pb::CDemoSaveGame>(),
        SpawnGroups => action.run::<pb::CDemoSpawnGroups>(),
        AnimationData => action.run::<pb::CDemoAnimationData>(),
        AnimationHeader => action.run::<pb::CDemoAnimationHeader>(),
        Recovery => action.run::<pb::CDemoRecovery>(),
        Unknown(_) => return None,
    })
}

/// Runs `action` with the type of packet message `id` in `game`.
fn with_message_type<A: TypeAction>(game: Game, id: u32, action: A) -> Option<A::Output> {
    if id < 100 {
        with_engine_type(id, action)
    } else {
        with_type(game, id, action)
    }
}

/// Decodes `body` with type `M` and encodes it again.
struct Reencode<'a>(&'a [u8]);

impl TypeAction for Reencode<'_> {
    type Output = Result<Vec<u8>, ErrorKind>;
    fn run<M>(self) -> Self::Output
    where
        M: Message + Default + PartialEq + serde::Serialize + serde::de::DeserializeOwned,
    {
        let m = M::decode(self.0).map_err(|e| ErrorKind::protobuf(type_name::<M>(), e))?;
        Ok(m.encode_to_vec())
    }
}

/// Decodes `body` with type `M` and encodes it again into a buffer (cleared
/// first), which a caller reuses from message to message.
struct ReencodeInto<'a>(&'a [u8], &'a mut Vec<u8>);

impl TypeAction for ReencodeInto<'_> {
    type Output = Result<(), ErrorKind>;
    fn run<M>(self) -> Self::Output
    where
        M: Message + Default + PartialEq + serde::Serialize + serde::de::DeserializeOwned,
    {
        let m = M::decode(self.0).map_err(|e| ErrorKind::protobuf(type_name::<M>(), e))?;
        self.1.clear();
        // A `Vec` grows as needed: encoding into one cannot fail.
        m.encode(self.1).map_err(|e| ErrorKind::Unwritable {
            what: type_name::<M>(),
            reason: e.to_string(),
        })
    }
}

/// Encodes a JSON value (as [`crate::messages::to_json`] gives it) with type
/// `M`.
struct FromJson<'a>(&'a serde_json::Value);

impl TypeAction for FromJson<'_> {
    type Output = Result<Vec<u8>, ErrorKind>;
    fn run<M>(self) -> Self::Output
    where
        M: Message + Default + PartialEq + serde::Serialize + serde::de::DeserializeOwned,
    {
        let m = M::deserialize(self.0).map_err(|e| ErrorKind::Unwritable {
            what: type_name::<M>(),
            reason: format!("the JSON value is not this message: {e}"),
        })?;
        Ok(m.encode_to_vec())
    }
}

/// Decodes a packet message body with the type of its id and encodes it
/// again. `None` when the id has no type; an error when the body does not
/// decode as its type.
pub fn reencode(game: Game, id: u32, body: &[u8]) -> Option<Result<Vec<u8>, ErrorKind>> {
    with_message_type(game, id, Reencode(body))
}

/// [`reencode`] into `out` (cleared first; its allocation is reused), for
/// a writer that re-encodes message after message.
pub(crate) fn reencode_into(
    game: Game,
    id: u32,
    body: &[u8],
    out: &mut Vec<u8>,
) -> Option<Result<(), ErrorKind>> {
    with_message_type(game, id, ReencodeInto(body, out))
}

/// Decodes a frame payload with the type of its command and encodes it
/// again (for a packet, the `CDemoPacket` around the bitstream, which comes
/// back as it was: its messages are bytes to it). `None` for an unknown
/// command.
pub fn reencode_frame(command: DemoCommand, payload: &[u8]) -> Option<Result<Vec<u8>, ErrorKind>> {
    with_frame_type(command, Reencode(payload))
}

/// True when a packet message decodes with the type of its id and encodes
/// again to the same bytes (false for an id without a type, or a body that
/// does not decode).
pub fn reencodes_exactly(game: Game, id: u32, body: &[u8]) -> bool {
    matches!(reencode(game, id, body), Some(Ok(out)) if out == body)
}

/// Encodes a packet message from its JSON form (the inverse of
/// [`crate::messages::to_json`], and of the same for engine messages).
/// `None` when the id has no type; an error when the value does not fit the
/// type. Fields the type does not know are not in the JSON form, so a
/// message that does not re-encode exactly ([`reencodes_exactly`]) loses
/// them here too.
pub fn encode_json(
    game: Game,
    id: u32,
    value: &serde_json::Value,
) -> Option<Result<Vec<u8>, ErrorKind>> {
    with_message_type(game, id, FromJson(value))
}

/// The payload of a `DEM_SendTables` frame holding `message`: `CDemoSendTables`
/// whose `data` is the message's length as a varint, then the message.
pub fn encode_send_tables(message: &pb::CSvcMsgFlattenedSerializer) -> Vec<u8> {
    let body = message.encode_to_vec();
    let mut data = Vec::with_capacity(body.len() + 5);
    // A message above 4 GiB cannot be framed in any case.
    write_varint32(&mut data, body.len() as u32);
    data.extend_from_slice(&body);
    pb::CDemoSendTables { data: Some(data) }.encode_to_vec()
}

/// The payload of a `DEM_ClassInfo` frame listing `classes` (a class
/// without a name, a gap the reader filled in, is left out). Each class is
/// written with its id and its network name; `table_name` is not written,
/// as the games do not write it.
pub fn encode_class_info(classes: &[ServerClass]) -> Vec<u8> {
    pb::CDemoClassInfo {
        classes: classes
            .iter()
            .filter(|c| !c.name.is_empty())
            .map(|c| pb::c_demo_class_info::ClassT {
                class_id: Some(c.id as i32),
                network_name: Some(c.name.clone()),
                table_name: None,
            })
            .collect(),
    }
    .encode_to_vec()
}

/// A `CMsgSource1LegacyGameEventList` body (message 205) declaring
/// `descriptors`, in the order given.
pub fn encode_game_event_list<'a>(
    descriptors: impl IntoIterator<Item = &'a EventDescriptor>,
) -> Vec<u8> {
    let descriptors = descriptors
        .into_iter()
        .map(|d| pb::c_msg_source1_legacy_game_event_list::DescriptorT {
            eventid: Some(d.id),
            name: Some(d.name.clone()),
            keys: d
                .keys
                .iter()
                .map(|k| pb::c_msg_source1_legacy_game_event_list::KeyT {
                    r#type: Some(k.kind),
                    name: Some(k.name.clone()),
                })
                .collect(),
        })
        .collect();
    pb::CMsgSource1LegacyGameEventList { descriptors }.encode_to_vec()
}

/// A `CMsgSource1LegacyGameEvent` body (message 207) carrying `event`: its
/// id, each key's value in the field its type uses (the inverse of
/// [`crate::gameevent::decode`]), and `server_tick` when given. The games
/// send the tick the server fired the event at, which the decoded event does
/// not keep: it is most often, not always, the last `net_Tick` before the
/// event ([`DemoState::net_tick`](crate::DemoState::net_tick)), and absent
/// from the first events of the signon; a rewriter passes the original's.
/// The event's name is not written (the games send the id only). Fails on a
/// value that does not fit its key type.
pub fn encode_game_event(
    event: &GameEvent,
    server_tick: Option<i32>,
) -> Result<Vec<u8>, ErrorKind> {
    use pb::c_msg_source1_legacy_game_event::KeyT;
    let unfit = |key: &str, kind: i32, value: &EventValue| ErrorKind::Unwritable {
        what: "game event key",
        reason: format!(
            "{}.{key}: value {value:?} does not fit key type {kind}",
            event.name
        ),
    };
    let mut keys = Vec::with_capacity(event.keys.len());
    for (key, kind, value) in &event.keys {
        let mut k = KeyT {
            r#type: Some(*kind),
            ..Default::default()
        };
        match (*kind, value) {
            (1, EventValue::String(s)) => k.val_string = Some(s.clone().into_bytes()),
            (2, EventValue::Float(f)) => k.val_float = Some(*f),
            (3 | 8, EventValue::Int(v)) => k.val_long = Some(*v),
            (4 | 9, EventValue::Int(v)) => k.val_short = Some(*v),
            (5, EventValue::Int(v)) => k.val_byte = Some(*v),
            (6, EventValue::Bool(b)) => k.val_bool = Some(*b),
            (7, EventValue::U64(v)) => k.val_uint64 = Some(*v),
            _ => return Err(unfit(key, *kind, value)),
        }
        keys.push(k);
    }
    Ok(pb::CMsgSource1LegacyGameEvent {
        eventid: Some(event.id),
        keys,
        server_tick,
        ..Default::default()
    }
    .encode_to_vec())
}

/// Why a message does not re-encode to its original bytes, found by reading
/// the wire fields of both encodings ([`explain`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Difference {
    /// The original has a field that the re-encoding lacks: the generated
    /// type does not know it.
    UnknownField {
        /// The field numbers from the top-level message down, the last one
        /// being the unknown field (`3.7`: field 7 of the message in field 3).
        path: String,
        /// Its wire type.
        wire_type: u8,
    },
    /// A varint holds the same value in more bytes than needed (a negative
    /// `int32` written in five bytes instead of ten, or padded).
    VarintForm {
        /// The field.
        path: String,
        /// Bytes in the original and in the re-encoding.
        lengths: (usize, usize),
    },
    /// A varint above 32 bits in a field the type declares 32 bits wide:
    /// the decoder keeps the low 32 bits (the sender's field is wider than
    /// the published `.proto` file's).
    Narrowed {
        /// The field.
        path: String,
        /// Whether the original is a negative 32-bit value sign-extended to
        /// 64 bits (ten bytes), as protobuf writes an `int32`, in a field the
        /// type declares unsigned.
        sign_extended: bool,
    },
    /// A repeated scalar is packed in one encoding and not in the other.
    Packing {
        /// The field.
        path: String,
        /// Whether the original packed it.
        original_packed: bool,
    },
    /// A non-repeated field occurs more than once in the original (the
    /// decoder keeps the last, or merges messages).
    Repeated {
        /// The field.
        path: String,
        /// How often the original has it.
        count: usize,
    },
    /// The re-encoding has a field the original lacks.
    AddedField {
        /// The field.
        path: String,
    },
    /// The same fields, in another order.
    FieldOrder {
        /// The message whose fields are out of order (empty: the top level).
        path: String,
    },
    /// The original is not a protobuf message at all, or the bytes of a
    /// field differ in a way none of the above explains.
    Other {
        /// The field, or the message.
        path: String,
    },
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Difference::UnknownField { path, wire_type } => {
                write!(
                    f,
                    "field {path} (wire type {wire_type}) dropped: not in the type"
                )
            }
            Difference::VarintForm { path, lengths } => write!(
                f,
                "field {path}: varint in {} bytes, re-encoded in {}",
                lengths.0, lengths.1
            ),
            Difference::Narrowed {
                path,
                sign_extended: true,
            } => write!(
                f,
                "field {path}: a negative value sign-extended to 64 bits in a uint32 field"
            ),
            Difference::Narrowed { path, .. } => {
                write!(f, "field {path}: a varint wider than the field's 32 bits")
            }
            Difference::Packing {
                path,
                original_packed,
            } => write!(
                f,
                "field {path}: {} in the original",
                if *original_packed {
                    "packed"
                } else {
                    "unpacked"
                }
            ),
            Difference::Repeated { path, count } => {
                write!(f, "field {path}: sent {count} times")
            }
            Difference::AddedField { path } => write!(f, "field {path} added"),
            Difference::FieldOrder { path } if path.is_empty() => write!(f, "field order"),
            Difference::FieldOrder { path } => write!(f, "field order in {path}"),
            Difference::Other { path } if path.is_empty() => write!(f, "other"),
            Difference::Other { path } => write!(f, "field {path} differs"),
        }
    }
}

/// One wire field: number, wire type, the bytes of its value (a varint's
/// bytes, a length-delimited field's payload).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct WireField<'a> {
    number: u64,
    wire_type: u8,
    value: &'a [u8],
}

/// A varint at `*at`, advanced past it.
fn varint(data: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..70).step_by(7) {
        let b = *data.get(*at)?;
        *at += 1;
        value |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
        if b & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// The wire fields of a message; `None` when it is not a well-formed one
/// (groups, wire types 3 and 4, count as not well formed).
fn wire_fields(data: &[u8]) -> Option<Vec<WireField<'_>>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let key = varint(data, &mut at)?;
        let (number, wire_type) = (key >> 3, (key & 7) as u8);
        if number == 0 {
            return None;
        }
        let start = at;
        let value = match wire_type {
            0 => {
                varint(data, &mut at)?;
                data.get(start..at)?
            }
            1 | 5 => {
                let n = if wire_type == 1 { 8 } else { 4 };
                at = at.checked_add(n)?;
                data.get(start..at)?
            }
            2 => {
                let len = usize::try_from(varint(data, &mut at)?).ok()?;
                let from = at;
                at = at.checked_add(len)?;
                data.get(from..at)?
            }
            _ => return None,
        };
        out.push(WireField {
            number,
            wire_type,
            value,
        });
    }
    Some(out)
}

fn join(path: &str, number: u64) -> String {
    if path.is_empty() {
        number.to_string()
    } else {
        format!("{path}.{number}")
    }
}

/// Why `reencoded` (a message decoded and encoded again) differs from
/// `original`, read off the wire fields of both: an empty list when they are
/// equal. Nested messages are compared field by field, down to the field
/// that differs.
pub fn explain(original: &[u8], reencoded: &[u8]) -> Vec<Difference> {
    let mut out = Vec::new();
    explain_at(original, reencoded, "", &mut out);
    out.sort();
    out.dedup();
    out
}

fn explain_at(original: &[u8], ours: &[u8], path: &str, out: &mut Vec<Difference>) {
    if original == ours {
        return;
    }
    let (Some(a), Some(b)) = (wire_fields(original), wire_fields(ours)) else {
        out.push(Difference::Other {
            path: path.to_string(),
        });
        return;
    };
    let before = out.len();
    let mut numbers: Vec<u64> = a.iter().chain(&b).map(|f| f.number).collect();
    numbers.sort_unstable();
    numbers.dedup();
    for n in numbers {
        let fa: Vec<_> = a.iter().filter(|f| f.number == n).collect();
        let fb: Vec<_> = b.iter().filter(|f| f.number == n).collect();
        let here = join(path, n);
        match (fa.first(), fb.first()) {
            (Some(first), None) => {
                out.push(Difference::UnknownField {
                    path: here,
                    wire_type: first.wire_type,
                });
                continue;
            }
            (None, Some(_)) => {
                out.push(Difference::AddedField { path: here });
                continue;
            }
            _ => {}
        }
        let packed = |fs: &[&WireField<'_>]| {
            fs.iter().any(|f| f.wire_type == 2) && fs.iter().all(|f| f.wire_type == 2)
        };
        let scalar = |fs: &[&WireField<'_>]| fs.iter().all(|f| f.wire_type != 2);
        if (packed(&fa) && scalar(&fb)) || (scalar(&fa) && packed(&fb)) {
            out.push(Difference::Packing {
                path: here,
                original_packed: packed(&fa),
            });
            continue;
        }
        if fa.len() != fb.len() {
            if fb.len() == 1 {
                out.push(Difference::Repeated {
                    path: here,
                    count: fa.len(),
                });
            } else {
                out.push(Difference::Other { path: here });
            }
            continue;
        }
        for (x, y) in fa.iter().zip(&fb) {
            if x == y {
                continue;
            }
            if x.wire_type != y.wire_type {
                out.push(Difference::Other { path: here.clone() });
            } else if x.wire_type == 0 {
                let (mut i, mut j) = (0, 0);
                let (va, vb) = (varint(x.value, &mut i), varint(y.value, &mut j));
                let narrowed = |a: u64| {
                    // Kept as 32 bits: zero- or sign-extended back.
                    [u64::from(a as u32), a as u32 as i32 as i64 as u64]
                };
                match (va, vb) {
                    (Some(a), Some(b)) if a == b => out.push(Difference::VarintForm {
                        path: here.clone(),
                        lengths: (x.value.len(), y.value.len()),
                    }),
                    (Some(a), Some(b)) if a >> 32 != 0 && narrowed(a).contains(&b) => {
                        out.push(Difference::Narrowed {
                            path: here.clone(),
                            sign_extended: a >> 31 == (1 << 33) - 1,
                        })
                    }
                    _ => out.push(Difference::Other { path: here.clone() }),
                }
            } else if x.wire_type == 2 {
                explain_at(x.value, y.value, &here, out);
            } else {
                out.push(Difference::Other { path: here.clone() });
            }
        }
    }
    if out.len() == before {
        // Every field equal, one by one: their order differs.
        let order = |fs: &[WireField<'_>]| fs.iter().map(|f| f.number).collect::<Vec<_>>();
        out.push(if order(&a) != order(&b) {
            Difference::FieldOrder {
                path: path.to_string(),
            }
        } else {
            Difference::Other {
                path: path.to_string(),
            }
        });
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_type_and_frame_type_is_named() {
        assert_eq!(protobuf_type(Game::Cs2, 4), Some("CNetMsgTick"));
        assert_eq!(protobuf_type(Game::Any, 76), Some("CSvcMsgUserCommands"));
        assert_eq!(
            protobuf_type(Game::Cs2, 207),
            Some("CMsgSource1LegacyGameEvent")
        );
        assert_eq!(protobuf_type(Game::Cs2, 99), None);
        assert_eq!(frame_type(DemoCommand::SignonPacket), Some("CDemoPacket"));
        assert_eq!(frame_type(DemoCommand::Unknown(40)), None);
        for &(id, _, ty) in ENGINE_MESSAGE_TYPES {
            assert!(
                matches!(reencode(Game::Any, id, &[]), Some(Ok(v)) if v.is_empty()),
                "{ty}"
            );
        }
    }

    #[test]
    fn differences_are_read_off_the_wire() {
        // net_Tick { tick (1): 42 } with field 6, which the type lacks.
        let body = [0x08, 0x2a, 0x30, 0x01];
        let out = reencode(Game::Any, 4, &body).unwrap().unwrap();
        assert_eq!(out, [0x08, 0x2a]);
        assert!(!reencodes_exactly(Game::Any, 4, &body));
        assert_eq!(
            explain(&body, &out),
            [Difference::UnknownField {
                path: "6".into(),
                wire_type: 0
            }]
        );
        // Field order: field 4 before tick (1).
        let body = [0x20, 0x05, 0x08, 0x2a];
        let out = reencode(Game::Any, 4, &body).unwrap().unwrap();
        assert_eq!(
            explain(&body, &out),
            [Difference::FieldOrder {
                path: String::new()
            }]
        );
        // A padded varint (42 in two bytes).
        let body = [0x08, 0xaa, 0x00];
        let out = reencode(Game::Any, 4, &body).unwrap().unwrap();
        assert_eq!(
            explain(&body, &out),
            [Difference::VarintForm {
                path: "1".into(),
                lengths: (2, 1)
            }]
        );
        // A 33-bit value in a 32-bit field (tick is uint32).
        let body = [0x08, 0x80, 0x80, 0x80, 0x80, 0x10];
        let out = reencode(Game::Any, 4, &body).unwrap().unwrap();
        assert_eq!(
            explain(&body, &out),
            [Difference::Narrowed {
                path: "1".into(),
                sign_extended: false
            }]
        );
        // The same scalar twice: the last wins.
        let body = [0x08, 0x01, 0x08, 0x2a];
        let out = reencode(Game::Any, 4, &body).unwrap().unwrap();
        assert_eq!(
            explain(&body, &out),
            [Difference::Repeated {
                path: "1".into(),
                count: 2
            }]
        );
        assert!(explain(&out, &out).is_empty());
        // Not protobuf: an error, not a panic.
        assert!(matches!(reencode(Game::Any, 4, &[0xff]), Some(Err(_))));
        assert_eq!(
            explain(&[0x0b], &[]),
            [Difference::Other {
                path: String::new()
            }]
        );
    }

    #[test]
    fn game_events_and_lists_round_trip_through_the_models() {
        let list = pb::CMsgSource1LegacyGameEventList {
            descriptors: vec![pb::c_msg_source1_legacy_game_event_list::DescriptorT {
                eventid: Some(3),
                name: Some("player_death".into()),
                keys: vec![
                    pb::c_msg_source1_legacy_game_event_list::KeyT {
                        r#type: Some(4),
                        name: Some("userid".into()),
                    },
                    pb::c_msg_source1_legacy_game_event_list::KeyT {
                        r#type: Some(1),
                        name: Some("weapon".into()),
                    },
                ],
            }],
        };
        let descriptors = crate::gameevent::descriptors(list.clone());
        let written = encode_game_event_list(descriptors.values());
        assert_eq!(written, list.encode_to_vec());

        let event = pb::CMsgSource1LegacyGameEvent {
            eventid: Some(3),
            keys: vec![
                pb::c_msg_source1_legacy_game_event::KeyT {
                    r#type: Some(4),
                    val_short: Some(7),
                    ..Default::default()
                },
                pb::c_msg_source1_legacy_game_event::KeyT {
                    r#type: Some(1),
                    val_string: Some(b"ak47".to_vec()),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let decoded = crate::gameevent::decode(&event, &descriptors, 10).unwrap();
        assert_eq!(
            encode_game_event(&decoded, None).unwrap(),
            event.encode_to_vec()
        );
        let mut bad = decoded.clone();
        bad.keys[0].2 = EventValue::Bool(true);
        assert!(encode_game_event(&bad, None).is_err());
    }

    #[test]
    fn class_info_and_send_tables_are_framed_as_the_reader_expects() {
        let classes = [
            ServerClass {
                id: 0,
                name: "CAK47".into(),
                serializer: None,
            },
            ServerClass {
                id: 1,
                name: String::new(),
                serializer: None,
            },
            ServerClass {
                id: 2,
                name: "CWorld".into(),
                serializer: None,
            },
        ];
        let payload = encode_class_info(&classes);
        let read = crate::wire::class_info(&payload).unwrap();
        assert_eq!(read, [(0, "CAK47"), (2, "CWorld")]);

        let message = pb::CSvcMsgFlattenedSerializer {
            symbols: vec!["a".into(), "b".into()],
            ..Default::default()
        };
        let payload = encode_send_tables(&message);
        let data = pb::CDemoSendTables::decode(&*payload)
            .unwrap()
            .data
            .unwrap();
        let inner = crate::serializer::demo_payload_message(&data).unwrap();
        assert_eq!(inner, message.encode_to_vec());
    }
}
