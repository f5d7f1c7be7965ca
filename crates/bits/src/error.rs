//! The bit core's error type.
//!
//! Every error carries the bit offset at which the failing read started, so a
//! caller higher up (a demo frame, a packet) can add its own context and still
//! point at the exact bit.

/// Why a read or write in the bit core failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum BitError {
    /// The input ended before the requested bits.
    #[error("unexpected end of data at bit {bit_offset}: {requested} bits requested, {available} available")]
    UnexpectedEnd {
        /// Bit offset of the read that failed.
        bit_offset: u64,
        /// How many bits the read needed.
        requested: u64,
        /// How many bits were left.
        available: u64,
    },
    /// A single read asked for more than 64 bits.
    #[error("cannot read or write {requested} bits in one call (at most 64)")]
    TooManyBits {
        /// The bit count asked for.
        requested: u32,
    },
    /// A 64-bit varint had more than 10 bytes, or its 10th byte carried bits above bit 63.
    #[error("varint at bit {bit_offset} overflows 64 bits")]
    VarintOverflow {
        /// Bit offset of the varint's first byte.
        bit_offset: u64,
    },
    /// A null-terminated string had no terminator within its limit.
    #[error("string at bit {bit_offset} has no terminator within {limit} bytes")]
    StringTooLong {
        /// Bit offset of the string's first byte.
        bit_offset: u64,
        /// The byte limit that was hit.
        limit: usize,
    },
    /// A value read (or about to be written) lies outside its declared range.
    #[error("value {value} at bit {bit_offset} is outside the range [{min}, {max}]")]
    OutOfRange {
        /// Bit offset of the value.
        bit_offset: u64,
        /// The value found.
        value: i64,
        /// Lower bound, inclusive.
        min: i64,
        /// Upper bound, inclusive.
        max: i64,
    },
    /// A check marker written by `serialize_check` did not match on read.
    #[error("check marker at bit {bit_offset} does not match: expected {expected:#010x}, found {found:#010x}")]
    CheckMismatch {
        /// Bit offset of the marker.
        bit_offset: u64,
        /// The marker expected.
        expected: u32,
        /// The value found.
        found: u32,
    },
    /// Alignment padding was not zero.
    #[error("alignment padding at bit {bit_offset} is not zero")]
    NonZeroPadding {
        /// Bit offset of the padding.
        bit_offset: u64,
    },
    /// A serialized string is not valid UTF-8 or holds a NUL byte.
    #[error("string at bit {bit_offset} is malformed: {reason}")]
    InvalidString {
        /// Bit offset of the string's bytes.
        bit_offset: u64,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Parameters of a quantized or compressed float encoding are invalid.
    #[error("invalid float encoding parameters: {0}")]
    InvalidEncoding(&'static str),
    /// A writer was asked to encode a value it cannot represent.
    #[error("cannot encode value: {0}")]
    Unencodable(&'static str),
}

/// Result alias for the bit core.
pub type Result<T, E = BitError> = std::result::Result<T, E>;
