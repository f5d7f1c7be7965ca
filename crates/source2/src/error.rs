//! Errors and warnings of the Source 2 demo parser.
//!
//! A [`DemoError`] says what was being decoded and where: the byte offset of
//! the frame in the file, the frame's index and tick, and (for entity data)
//! the entity index, class and field path. Non-fatal oddities, such as a demo
//! command from a newer game build, are [`Warning`]s.

use gamewire_bits::BitError;

use crate::fieldpath::{FieldPath, FieldPathError};

/// What went wrong, without the location (see [`DemoError`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file does not start with `PBDEMS2\0`.
    #[error("not a Source 2 demo: the file starts with {:?}, expected \"PBDEMS2\\0\"", String::from_utf8_lossy(.found))]
    BadMagic {
        /// The first bytes of the file (up to 8).
        found: Vec<u8>,
    },
    /// The file is a Source 1 demo (`HL2DEMO\0`).
    #[error("this is a Source 1 demo (HL2DEMO), not a Source 2 demo")]
    Source1Demo,
    /// The input ended in the middle of something.
    #[error("the demo is truncated: {what} needs {needed} bytes, {available} left")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes needed.
        needed: u64,
        /// Bytes left.
        available: u64,
    },
    /// A byte-level varint was longer than allowed.
    #[error("malformed varint in {what}")]
    BadVarint {
        /// What was being read.
        what: &'static str,
    },
    /// Snappy decompression failed.
    #[error("snappy decompression of {what} failed: {message}")]
    Snappy {
        /// What was being decompressed.
        what: &'static str,
        /// The decompressor's message.
        message: String,
    },
    /// A protobuf message did not decode.
    #[error("protobuf {message} did not decode: {reason}")]
    Protobuf {
        /// The message type.
        message: &'static str,
        /// Why, from prost or from the borrowing wire reader.
        reason: ProtobufProblem,
    },
    /// A bit-level read failed.
    #[error("{what}: {source}")]
    Bits {
        /// What was being read.
        what: &'static str,
        /// The bit core's error.
        source: BitError,
    },
    /// A length or count from the input exceeds a documented limit.
    #[error("{what} is {value}, above the limit of {limit}")]
    LimitExceeded {
        /// What was counted.
        what: &'static str,
        /// The value found.
        value: u64,
        /// The limit.
        limit: u64,
    },
    /// The send tables are missing or inconsistent.
    #[error("send tables: {0}")]
    SendTables(SendTablesError),
    /// A broadcast fragment is malformed (the location's byte offset is
    /// within that fragment).
    #[error("broadcast fragment {fragment}: {inner}")]
    Broadcast {
        /// The fragment (`35/delta.bin`).
        fragment: String,
        /// What was wrong.
        inner: Box<ErrorKind>,
    },
    /// A string table message is inconsistent.
    #[error("string table {table}: {problem}")]
    StringTable {
        /// The table, by name or (when it does not exist) by id.
        table: TableRef,
        /// What is wrong.
        problem: StringTableError,
    },
    /// Entity data could not be decoded.
    #[error("{0}")]
    Entity(Box<EntityError>),
    /// Something could not be written (the demo writer): a value its
    /// encoding cannot hold, or the output failed.
    #[error("cannot write {what}: {reason}")]
    Unwritable {
        /// What was being written.
        what: &'static str,
        /// Why not.
        reason: String,
    },
    /// A tick range that does not meet the demo (an edit's range).
    #[error("ticks {from} to {to} are not in the demo, whose ticks run from {first} to {last}")]
    TickRange {
        /// First tick asked for.
        from: i32,
        /// Last tick asked for.
        to: i32,
        /// The demo's first tick (−1: none read).
        first: i32,
        /// The demo's last tick (−1: none read).
        last: i32,
    },
    /// The input could not be read (an I/O error other than its end: the
    /// edit pipelines read demos from any `std::io::Read`).
    #[error("cannot read {what}: {reason}")]
    Unreadable {
        /// What was being read.
        what: &'static str,
        /// The I/O error.
        reason: String,
    },
}

/// Entity data that could not be decoded ([`ErrorKind::Entity`]): which
/// entity, where in it, and what is wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("entity {entity} ({class}){}: {problem}", at_path(.path.as_ref(), .path_name.as_deref()))]
pub struct EntityError {
    /// Entity index (`-1` for a class baseline).
    pub entity: i32,
    /// Class id, when known.
    pub class_id: Option<u32>,
    /// Class name, or `?` when unknown.
    pub class: String,
    /// The field path being decoded, when the failure is at one.
    pub path: Option<FieldPath>,
    /// The path's dotted name in the send tables, when it resolves.
    pub path_name: Option<String>,
    /// What is wrong.
    pub problem: EntityProblem,
}

/// ` at field path [0 3] (name)`, or nothing without a path.
fn at_path(path: Option<&FieldPath>, name: Option<&str>) -> String {
    match (path, name) {
        (None, _) => String::new(),
        (Some(fp), Some(n)) => format!(" at field path {fp} ({n})"),
        (Some(fp), None) => format!(" at field path {fp}"),
    }
}

/// What is wrong with the send tables ([`ErrorKind::SendTables`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SendTablesError {
    /// Entities need send tables the demo has not given (yet).
    #[error("missing")]
    Missing,
    /// A `CSVCMsg_PacketEntities` came before any send tables.
    #[error("entity data before the send tables")]
    EntitiesBeforeTables,
    /// The symbols do not fit 32-bit offsets.
    #[error("symbol table too large")]
    SymbolTableTooLarge,
    /// A symbol is not UTF-8.
    #[error("symbol {symbol} is not valid UTF-8")]
    SymbolNotUtf8 {
        /// The symbol's index.
        symbol: usize,
    },
    /// A serializer has no name.
    #[error("serializer without a name symbol")]
    SerializerWithoutName,
    /// A serializer lists a field the message does not have.
    #[error("serializer {serializer} refers to missing field {field}")]
    MissingField {
        /// The serializer's name.
        serializer: String,
        /// The field index it gives.
        field: i32,
    },
    /// The message has no field of this index.
    #[error("no field {index}")]
    NoField {
        /// The field index.
        index: usize,
    },
    /// A polymorphic field names a serializer the message does not have.
    #[error("field {field}: unknown polymorphic serializer")]
    UnknownPolymorphic {
        /// The field's name.
        field: String,
    },
    /// A fixed array longer than [`crate::serializer::MAX_ARRAY_LEN`].
    #[error("field {field}: array of {count} elements")]
    ArrayTooLong {
        /// The field's name.
        field: String,
        /// The declared length.
        count: u32,
    },
    /// A variable array whose type names no element type.
    #[error("field {field}: {var_type} has no element type")]
    NoElementType {
        /// The field's name.
        field: String,
        /// Its declared type.
        var_type: String,
    },
    /// A quantized float's parameters are unusable.
    #[error("field {field}: {source}")]
    Quantization {
        /// The field's name.
        field: String,
        /// What the bit core found wrong.
        source: BitError,
    },
    /// A class id below zero in the class info.
    #[error("class id {id} is negative")]
    NegativeClassId {
        /// The id.
        id: i32,
    },
    /// The helper thread building the send tables stopped without them.
    #[error("the thread building the send tables failed")]
    HelperFailed,
}

/// Why a protobuf message did not decode ([`ErrorKind::Protobuf`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtobufProblem {
    /// The generated type's decoder (prost) failed.
    #[error("{0}")]
    Decode(prost::DecodeError),
    /// The borrowing wire reader, which reads the large frequent messages
    /// in place, found the bytes malformed.
    #[error("{problem} at byte {at}")]
    Wire {
        /// What is malformed.
        problem: WireProblem,
        /// Its byte offset in the message.
        at: usize,
    },
}

/// What the borrowing wire reader found malformed ([`ProtobufProblem::Wire`]),
/// in terms of the protobuf encoding
/// (<https://protobuf.dev/programming-guides/encoding/>).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WireProblem {
    /// The bytes end inside a varint.
    #[error("truncated varint")]
    TruncatedVarint,
    /// A varint of more than 10 bytes.
    #[error("varint longer than 10 bytes")]
    LongVarint,
    /// A 10-byte varint whose value does not fit 64 bits.
    #[error("varint above 64 bits")]
    VarintOverflow,
    /// A field key with tag 0.
    #[error("field tag 0")]
    TagZero,
    /// A field key that does not fit 32 bits.
    #[error("field key above 32 bits")]
    KeyTooLarge,
    /// A length-delimited field longer than the bytes left.
    #[error("length {0} runs past the end")]
    PastEnd(u64),
    /// A field of a known type (`int32`, `message`, ...) with the wrong
    /// wire type.
    #[error("{0} with wire type {1}")]
    WireType(&'static str, u8),
    /// A wire type these messages do not use (groups, 6, 7).
    #[error("unsupported wire type {0}")]
    Unsupported(u8),
    /// A string field that is not UTF-8.
    #[error("a string that is not UTF-8")]
    Utf8,
}

/// The string table an error is about ([`ErrorKind::StringTable`]); written
/// quoted, as `"userinfo"` or `"#7"`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TableRef {
    /// A table the demo created, by its name.
    Name(String),
    /// A table id the demo refers to without having created it.
    Id(i32),
}

impl std::fmt::Display for TableRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TableRef::Name(name) => write!(f, "{name:?}"),
            TableRef::Id(id) => write!(f, "\"#{id}\""),
        }
    }
}

/// What is wrong with a string table message ([`ErrorKind::StringTable`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StringTableError {
    /// An update names a table id the demo has not created.
    #[error("update for a table that does not exist")]
    NoSuchTable,
    /// The message's entry count is negative or above
    /// [`crate::stringtable::MAX_ENTRIES`].
    #[error("entry count {count} is out of range")]
    EntryCountOutOfRange {
        /// The count the message gives.
        count: i32,
    },
    /// An entry's index is negative or at or above
    /// [`crate::stringtable::MAX_ENTRIES`].
    #[error("entry index {index} is out of range")]
    EntryIndexOutOfRange {
        /// The index the entry bitstream gives.
        index: i64,
    },
}

/// A legacy game event that could not be decoded against its descriptor
/// ([`crate::gameevent::decode`]); the parser skips it with a [`Warning`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GameEventError {
    /// No descriptor has the event's id.
    #[error("game event with unknown id {id} skipped")]
    UnknownId {
        /// The event id.
        id: i32,
    },
    /// A key's descriptor gives a type this decoder does not know.
    #[error("game event {event}: key {key} has unknown type {kind}")]
    UnknownKeyType {
        /// The event's name.
        event: String,
        /// The key's name.
        key: String,
        /// The type number in the descriptor.
        kind: i32,
    },
}

/// A user message or protobuf game event whose payload did not turn into
/// JSON ([`crate::messages::to_json`]). Writes the decoder's own message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MessageJsonError {
    /// The payload does not decode as the message's protobuf type.
    #[error("{source}")]
    Decode {
        /// The protobuf type (`CCsUsrMsgServerRankUpdate`).
        type_name: &'static str,
        /// prost's error.
        source: prost::DecodeError,
    },
    /// The decoded message did not serialize to JSON.
    #[error("{source}")]
    Json {
        /// The protobuf type.
        type_name: &'static str,
        /// serde_json's error.
        source: serde_json::Error,
    },
}

/// A `CSVCMsg_UserCommands` that did not decode
/// ([`crate::usercmd::decode_user_commands`]); the parser skips it with a
/// [`Warning`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum UserCommandsError {
    /// The message itself did not decode.
    #[error("CSVCMsg_UserCommands: {0}")]
    Message(prost::DecodeError),
    /// One of its commands did not decode as the game's command type.
    #[error("CSVCMsg_UserCommands command {index}: {type_name}: {source}")]
    Command {
        /// The command's index in the message.
        index: usize,
        /// The protobuf type it was decoded as (`CSGOUserCmdPB`).
        type_name: &'static str,
        /// prost's error.
        source: prost::DecodeError,
    },
}

/// What is wrong with an entity ([`ErrorKind::Entity`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EntityProblem {
    /// One of its fields (or the field paths) did not decode.
    #[error("{0}")]
    Field(FieldError),
    /// Its class baseline did not decode.
    #[error("baseline: {0}")]
    Baseline(FieldError),
    /// A create names a class the demo has not declared.
    #[error("create with unknown class id {class_id}")]
    UnknownClass {
        /// The class id.
        class_id: u32,
    },
    /// An update names an entity that was never created.
    #[error("update of an entity that does not exist")]
    NoSuchEntity,
}

/// What went wrong at one field path of an entity: reading the paths, walking
/// a path down the send tables ([`crate::serializer::SendTables::resolve`]), or
/// decoding or storing its value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FieldError {
    /// The field-path sequence did not decode.
    #[error("field paths: {0}")]
    FieldPaths(FieldPathError),
    /// A value did not decode.
    #[error("value: {0}")]
    Value(BitError),
    /// A path walks into a serializer the tables do not have.
    #[error("serializer {0} is missing")]
    SerializerMissing(u32),
    /// An index selects no field of its serializer.
    #[error("index {index} at depth {depth} is outside serializer {serializer}")]
    OutsideSerializer {
        /// The index.
        index: i32,
        /// Its depth in the path.
        depth: usize,
        /// The serializer's name.
        serializer: String,
    },
    /// A path goes on below a field that holds a value.
    #[error("path continues past value field {field}")]
    PastValue {
        /// The field's name.
        field: String,
    },
    /// An element index outside a fixed array (or a path that does not end
    /// at the element).
    #[error("bad element path into fixed array {field} of {len}")]
    FixedArrayElement {
        /// The array's name.
        field: String,
        /// Its length.
        len: u32,
    },
    /// An element index outside a variable array's current length (or a
    /// path that does not end at the element).
    #[error("bad element path into variable array {field}")]
    VariableArrayElement {
        /// The array's name.
        field: String,
    },
    /// An element index outside a variable table's current length (or a
    /// path that ends at the element).
    #[error("bad element path into variable table {field}")]
    VariableTableElement {
        /// The table's name.
        field: String,
    },
    /// A path index at or above [`crate::serializer::MAX_ARRAY_LEN`], or
    /// negative.
    #[error("path index {0} is out of range")]
    IndexOutOfRange(i32),
    /// An empty path.
    #[error("empty path")]
    EmptyPath,
    /// The entity holds more values than an index can count.
    #[error("entity state is too large")]
    StateTooLarge,
    /// The entity's stored state contradicts itself (a node beyond the
    /// slots).
    #[error("entity state is corrupt")]
    StateCorrupt,
}

/// A [`FieldError`] and the path it happened at (`None`: reading the
/// paths themselves).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PathError {
    pub(crate) path: Option<FieldPath>,
    pub(crate) error: FieldError,
}

impl PathError {
    pub(crate) fn at(path: FieldPath, error: FieldError) -> Self {
        PathError {
            path: Some(path),
            error,
        }
    }
}

impl ErrorKind {
    pub(crate) fn bits(what: &'static str, source: BitError) -> Self {
        ErrorKind::Bits { what, source }
    }

    pub(crate) fn protobuf(message: &'static str, err: prost::DecodeError) -> Self {
        ErrorKind::Protobuf {
            message,
            reason: ProtobufProblem::Decode(err),
        }
    }
}

/// Where in the demo an error happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Location {
    /// Byte offset in the file of the frame being decoded.
    pub byte_offset: u64,
    /// Index of the frame (0 is the first frame after the file header).
    pub frame: u64,
    /// Tick of the frame (`-1` before the first tick).
    pub tick: i32,
}

/// A demo parse error: what went wrong and where.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{kind} (frame {frame} at byte {byte_offset}, tick {tick})", frame = .location.frame, byte_offset = .location.byte_offset, tick = .location.tick)]
pub struct DemoError {
    /// What went wrong.
    pub kind: ErrorKind,
    /// Where.
    pub location: Location,
}

impl DemoError {
    /// The cut of a demo whose input ends between two frames before
    /// `DEM_Stop` (a recording that stopped, a partial copy): the smallest
    /// frame is missing at `location`.
    pub(crate) fn missing_stop(location: Location) -> DemoError {
        DemoError {
            kind: ErrorKind::Truncated {
                what: "the DEM_Stop frame",
                needed: crate::parser::MIN_FRAME_LEN,
                available: 0,
            },
            location,
        }
    }

    /// True when the error is the input ending early (a cut demo).
    pub fn is_truncation(&self) -> bool {
        match &self.kind {
            ErrorKind::Truncated { .. } => true,
            ErrorKind::Bits { source, .. } => matches!(source, BitError::UnexpectedEnd { .. }),
            _ => false,
        }
    }
}

/// A non-fatal oddity met while parsing.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Warning {
    /// Tick at which it was seen (`-1` before the first tick).
    pub tick: i32,
    /// Description.
    pub message: String,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    /// The typed string-table and game-event errors write the same text as
    /// the messages they replace.
    #[test]
    fn typed_errors_write_their_messages() {
        let by_name = ErrorKind::StringTable {
            table: TableRef::Name("userinfo".into()),
            problem: StringTableError::EntryIndexOutOfRange { index: 70000 },
        };
        assert_eq!(
            by_name.to_string(),
            "string table \"userinfo\": entry index 70000 is out of range"
        );
        let by_id = ErrorKind::StringTable {
            table: TableRef::Id(7),
            problem: StringTableError::NoSuchTable,
        };
        assert_eq!(
            by_id.to_string(),
            "string table \"#7\": update for a table that does not exist"
        );
        let count = StringTableError::EntryCountOutOfRange { count: -1 };
        assert_eq!(count.to_string(), "entry count -1 is out of range");
        assert_eq!(
            GameEventError::UnknownId { id: 12 }.to_string(),
            "game event with unknown id 12 skipped"
        );
        let key = GameEventError::UnknownKeyType {
            event: "player_death".into(),
            key: "userid".into(),
            kind: 11,
        };
        assert_eq!(
            key.to_string(),
            "game event player_death: key userid has unknown type 11"
        );
        let magic = ErrorKind::BadMagic {
            found: b"he\xffllo\0".to_vec(),
        };
        assert_eq!(
            magic.to_string(),
            "not a Source 2 demo: the file starts with \"he\u{fffd}llo\\0\", expected \"PBDEMS2\\0\""
        );
    }
}
