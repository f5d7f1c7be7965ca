//! The packed-bit group: up to five bools in one byte.
//!
//! ```text
//! bit  7..5     4..0
//!     [count:3][bits:5]
//! ```
//!
//! `count` is the number of bools stored (1 to 5, stored as the count, not
//! count - 1); bool `i` is bit `i`. Examples from the stock server's traces
//! and OpenBC's tests (SandboxServers/OpenBC `tests/test_protocol.c`,
//! `docs/wire-formats/stateupdate-wire-format/12-compressed-data-types.md`):
//! one `true` is `0x21`, one `false` is `0x20`, `true, false` is `0x41`, and
//! `true, false, false` is `0x61`.
//!
//! # The group stays open across byte writes
//!
//! The stream remembers where the group byte is (the bookmark, `+0x28` in the
//! game's stream object) and how full it is (`+0x2C`). Writing a byte, short,
//! float or string does **not** close the group: the next bit still goes into
//! the bookmarked byte, even though it now lies behind the position. Only a
//! sixth bit starts a new group byte, at the current position.
//!
//! Evidence: the stock dedicated server's Settings message (opcode `0x00`)
//! writes collision and friendly-fire bits, the player slot byte, the map name
//! (`u16` length + bytes) and then the checksum-correction bit. Its trace
//! (OpenBC `docs/wire-formats/checksum-handshake-protocol/`
//! `05-observed-packet-trace-stock-dedicated-server.md`, packet #25, and
//! `docs/network-flows/wire-format-audit/07-6-settings-0x00-payload.md`) is
//! `00 | 00 00 05 42 | 61 | 00 | 25 00 | "Multiplayer.Episode.Mission1.Mission1"`
//! and nothing after the name: the third bit went into the byte `0x61`
//! (count 3) before the slot. OpenBC's clean-room `docs/protocol/stream-primitives.md`
//! says instead that a byte write finalises the group; the trace shows it does
//! not.
//!
//! # Reading
//!
//! The reader mirrors the writer: the first bit reads a group byte at the
//! position; later bits come from that byte until `count` of them have been
//! taken, however many other fields were read in between; then the next bit
//! reads a new group byte. A group byte with a count of 0, 6 or 7 cannot come
//! from the game's writer and is rejected with
//! [`StreamError::InvalidBitGroup`](crate::StreamError::InvalidBitGroup).

/// The most bools one group byte holds.
pub const MAX_BITS_PER_GROUP: u8 = 5;

/// The bits of the group byte that hold the count.
pub(crate) const COUNT_SHIFT: u8 = 5;

/// An open bit group: where its byte is and how far it has been used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Group {
    /// Byte offset of the group byte.
    pub(crate) offset: usize,
    /// For a writer, bits written; for a reader, bits declared by the byte.
    pub(crate) count: u8,
    /// For a reader, bits already taken (always 0 for a writer).
    pub(crate) taken: u8,
    /// For a reader, the group byte.
    pub(crate) byte: u8,
}

/// Builds a group byte from its count and bit field.
#[must_use]
pub fn group_byte(count: u8, bits: u8) -> u8 {
    (count << COUNT_SHIFT) | (bits & 0x1F)
}
