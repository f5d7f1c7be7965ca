//! Star Trek: Bridge Commander's `TGBufferStream`: the byte stream every
//! multiplayer message of the game is written with.
//!
//! The format was reverse-engineered from the stock `stbc.exe` by the
//! SandboxServers projects; this crate implements it from the facts they
//! published (constants, layouts, packet traces) and cites them where used.
//!
//! # Primitives
//!
//! | read / write | wire | game function (read / write) |
//! |---|---|---|
//! | byte | 1 byte | `FUN_006cf540` / `FUN_006cf730` |
//! | bit | 0 or 1 byte, packed (see [`bits`]) | `FUN_006cf580` / `FUN_006cf770` |
//! | short | `u16` little-endian | `FUN_006cf600` / `FUN_006cf7f0` |
//! | int32 | `i32` little-endian | `FUN_006cf670` / `FUN_006cf870` |
//! | float | IEEE 754 `f32` little-endian | `FUN_006cf6b0` / `FUN_006cf8b0` |
//! | bytes | N raw bytes | `FUN_006cf230` / `FUN_006cf2b0` |
//! | position | the byte cursor | `FUN_006cf9b0` |
//!
//! On top of them: [`Cf16`] (CompressedFloat16, a 16-bit logarithmic float),
//! and [`CompressedVector3`] / [`CompressedVector4`] (a direction in three
//! signed bytes, the latter with a CF16 or `f32` magnitude). The [`fields`]
//! module decodes a buffer from a textual field list, for people who take a
//! captured packet apart by hand.
//!
//! # Hostile input
//!
//! [`Reader`] never panics and never allocates on behalf of the input: every
//! read checks its length against what is left first, and a failed read
//! returns a [`StreamError`] with the byte offset and what was being read, and
//! leaves the reader where it was. Property tests feed random bytes to every
//! read.
//!
//! # Errors
//!
//! Each layer has its own error type: [`StreamError`] for a read,
//! [`fields::FieldListError`] and [`fields::FieldListItemError`] for the field-list
//! decoder. [`Error`] wraps them all, for a caller that wants one type behind
//! `?`; the message of the wrapped error is unchanged.
//!
//! The format is described in `docs/formats/tgbufferstream.md`. Sources:
//! SandboxServers/STBC-Dedicated-Server `docs/protocol/stream-primitives.md`;
//! SandboxServers/OpenBC
//! `tests/test_protocol.c` and its wire-format and trace documents, cited in
//! the modules.
//!
//! ```
//! use gamewire_tgstream::{Cf16, Reader, Writer};
//!
//! let mut w = Writer::new();
//! w.write_u8(0x1C);
//! w.write_bit(true);
//! w.write_cf16_value(7.5);
//! let bytes = w.into_bytes();
//! assert_eq!(bytes, [0x1C, 0x21, 0x8D, 0x4B]);
//!
//! let mut r = Reader::new(&bytes);
//! assert_eq!(r.read_u8()?, 0x1C);
//! assert!(r.read_bit()?);
//! assert_eq!(r.read_cf16()?.decode(), 7.498_902);
//! # Ok::<(), gamewire_tgstream::StreamError>(())
//! ```

#![forbid(unsafe_code)]

pub mod bits;
pub mod cf16;
mod error;
pub mod fields;
mod reader;
mod stream_error;
pub mod vector;
mod writer;

pub use cf16::Cf16;
pub use error::Error;
pub use reader::Reader;
pub use stream_error::{Result, StreamError, What};
pub use vector::{CompressedVector3, CompressedVector4, Magnitude};
pub use writer::Writer;

/// The README example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
