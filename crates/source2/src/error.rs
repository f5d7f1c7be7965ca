//! Errors and warnings of the Source 2 demo parser.
//!
//! A [`DemoError`] says what was being decoded and where: the byte offset of
//! the frame in the file, the frame's index and tick, and (for entity data)
//! the entity index, class and field path. Non-fatal oddities, such as a demo
//! command from a newer game build, are [`Warning`]s.

use gamewire_bits::BitError;

/// What went wrong, without the location (see [`DemoError`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file does not start with `PBDEMS2\0`.
    #[error("not a Source 2 demo: the file starts with {found:?}, expected \"PBDEMS2\\0\"")]
    BadMagic {
        /// The first bytes of the file, lossily decoded.
        found: String,
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
        /// prost's description.
        reason: String,
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
    /// The send tables are inconsistent.
    #[error("send tables: {0}")]
    SendTables(String),
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
    #[error("string table {table:?}: {message}")]
    StringTable {
        /// Table name (or id).
        table: String,
        /// What is wrong.
        message: String,
    },
    /// Entity data could not be decoded.
    #[error("entity {entity} ({class}){path}: {message}")]
    Entity {
        /// Entity index.
        entity: i32,
        /// Class name, or `?` when unknown.
        class: String,
        /// ` at field path [..] (name)` or empty.
        path: String,
        /// What is wrong.
        message: String,
    },
}

impl ErrorKind {
    pub(crate) fn bits(what: &'static str, source: BitError) -> Self {
        ErrorKind::Bits { what, source }
    }

    pub(crate) fn protobuf(message: &'static str, err: prost::DecodeError) -> Self {
        ErrorKind::Protobuf {
            message,
            reason: err.to_string(),
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
