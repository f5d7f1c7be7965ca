//! The stream's read error: [`StreamError`] and what was being read ([`What`]).
//!
//! Every error names the byte offset where the failing read started and what
//! was being read, so a caller that decodes a message (a StateUpdate, a
//! Settings packet) can add its own context and still point at the byte.
//!
//! A failed read never moves the reader: the position and the open bit group
//! are exactly as they were before the call.

use std::fmt;

/// What a read was decoding when it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum What {
    /// One `u8`.
    Byte,
    /// One packed bit (a bool in a `[count:3][bits:5]` group byte).
    Bit,
    /// One little-endian `u16`.
    Short,
    /// One little-endian `i32`.
    Int32,
    /// One little-endian `u32`.
    UInt32,
    /// One little-endian IEEE 754 `f32`.
    Float,
    /// A run of raw bytes.
    Bytes,
    /// A `u16`-length-prefixed byte string.
    String16,
    /// A CompressedFloat16 (`u16`).
    Cf16,
    /// A CompressedVector3 (three direction bytes).
    CompressedVector3,
    /// A CompressedVector4 with a CompressedFloat16 magnitude.
    CompressedVector4Cf16,
    /// A CompressedVector4 with an `f32` magnitude.
    CompressedVector4F32,
}

impl fmt::Display for What {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            What::Byte => "a byte",
            What::Bit => "a packed bit",
            What::Short => "a short",
            What::Int32 => "an int32",
            What::UInt32 => "a uint32",
            What::Float => "a float",
            What::Bytes => "raw bytes",
            What::String16 => "a length-prefixed string",
            What::Cf16 => "a CompressedFloat16",
            What::CompressedVector3 => "a CompressedVector3",
            What::CompressedVector4Cf16 => "a CompressedVector4 (CF16 magnitude)",
            What::CompressedVector4F32 => "a CompressedVector4 (float magnitude)",
        })
    }
}

/// Why a read from a [`Reader`](crate::Reader) failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// The buffer ended before the value.
    #[error(
        "the data ends at byte {offset} while reading {what}: {needed} bytes needed, {available} available"
    )]
    UnexpectedEnd {
        /// Byte offset where the read started.
        offset: usize,
        /// What was being read.
        what: What,
        /// Bytes the whole value needs.
        needed: usize,
        /// Bytes left in the buffer at `offset`.
        available: usize,
    },
    /// A bit-group byte declares a count outside 1..=5.
    ///
    /// The writer of the stock game never produces such a byte: a group
    /// holds at least one bit and at most five. Counts 6 and 7 would make
    /// the reader take bits out of the count field itself.
    #[error(
        "the bit group byte {byte:#04x} at byte {offset} declares {count} bits; a group holds 1 to 5"
    )]
    InvalidBitGroup {
        /// Byte offset of the group byte.
        offset: usize,
        /// The group byte as found.
        byte: u8,
        /// Its count field (bits 7-5).
        count: u8,
    },
}

impl StreamError {
    /// The byte offset where the failing read started.
    #[must_use]
    pub fn offset(&self) -> usize {
        match self {
            StreamError::UnexpectedEnd { offset, .. }
            | StreamError::InvalidBitGroup { offset, .. } => *offset,
        }
    }

    /// What was being read.
    #[must_use]
    pub fn what(&self) -> What {
        match self {
            StreamError::UnexpectedEnd { what, .. } => *what,
            StreamError::InvalidBitGroup { .. } => What::Bit,
        }
    }
}

/// Result alias for the stream.
pub type Result<T, E = StreamError> = std::result::Result<T, E>;
