//! gamewire's bit core: a fast, checked LSB-first bit reader and writer, the
//! base types of the Source 2 demo format (`docs/formats/source2-base-types.md`),
//! quantized floats, and range-checked serialization after Glenn Fiedler's
//! "Serialization Strategies" (`docs/formats/bit-serialize.md`).
//!
//! Bit order everywhere: least significant bit first within little-endian
//! bytes. Bit `n` of the stream is bit `n % 8` of byte `n / 8`.
//!
//! ```
//! use gamewire_bits::{BitReader, BitWriter};
//!
//! let mut w = BitWriter::new();
//! w.write_bits(5, 3).unwrap();
//! w.write_bool(true);
//! let bytes = w.finish();
//! assert_eq!(bytes, [0b1101]);
//!
//! let mut r = BitReader::new(&bytes);
//! assert_eq!(r.read_bits(3).unwrap(), 5);
//! assert!(r.read_bool().unwrap());
//! assert_eq!(r.position(), 4);
//! ```
//!
//! # What is here
//!
//! | piece | reader | writer |
//! |---|---|---|
//! | bits, bool, u8/u16/u32/u64 (LE) | [`BitReader::read_bits`], `read_bool`, `read_u64`, ... | [`BitWriter::write_bits`], `write_bool`, `write_u64`, ... |
//! | bytes, aligned and not | `read_bytes`, `read_bytes_into`, `read_bytes_aligned` | `write_bytes` |
//! | manual mode | `refill_lookahead`, `peek`, `consume` | |
//! | varuint32 / varint32 / varuint64 / varint64 | `read_varuint32`, ... | `write_varuint32`, ... |
//! | ubitvar, field-path ubitvar, component | `read_ubitvar`, `read_ubitvar_fieldpath`, `read_component` | `write_ubitvar` (shortest form), ... |
//! | f32 / noscale, coord, normal, vec3 normal | `read_f32`, `read_coord`, `read_normal`, `read_vec3_normal` | `write_f32`, `write_coord`, ... |
//! | angle(bits), angle precise, qangle precise / fixed / coord | `read_angle`, ... | `write_angle`, ... |
//! | vector of N floats | `read_vector` | `write_vector` |
//! | simulation time, rune time, ammo count | `read_simulation_time`, ... | `write_simulation_time`, ... |
//! | strings: fixed, null-terminated, 4096-limited | `read_string_fixed`, `read_cstring`, `read_string_terminated` | `write_string_fixed`, `write_cstring`, `write_string_terminated` |
//! | quantized float | [`QuantizedFloat::decode`] | [`QuantizedFloat::encode`] |
//! | unified serialize | [`serialize::ReadStream`] | [`serialize::WriteStream`], [`serialize::MeasureStream`] |
//!
//! The lossy writers document what they round to; the `quantize_*` functions
//! in [`write_types`] return exactly what the reader will decode.
//!
//! # Choices where the public readers differ
//!
//! The base types follow Valve's Source 2 decoders as the public readers
//! dotabuff/manta (`reader.go`), demoinfocs-golang (`sendtablescs2/reader.go`)
//! and skadistats/clarity implement them (see
//! `docs/formats/source2-base-types.md`). Four points deserve a note:
//!
//! - **normal** ([`BitReader::read_normal`]): the 11-bit magnitude is divided
//!   by `2^11 - 1 = 2047`, so it maps onto [0, 1], as in manta and
//!   demoinfocs-golang.
//! - **rune time** ([`BitReader::read_rune_time`]): the four bits are the bit
//!   pattern of an `f32`, as in manta and clarity.
//! - **varuint64** ([`BitReader::read_varuint64`]): at most ten bytes, as a
//!   protobuf varint; a longer run of continuation bytes is
//!   [`BitError::VarintOverflow`] instead of a read to the end of the input.
//! - **simulation time** ([`BitReader::read_simulation_time`]): the tick
//!   interval is a parameter: CS2 ticks every 1/64 s, Dota 2 every 1/30 s
//!   (manta).
//!
//! [`quantized`] documents the whole quantized-float setup, the *encode
//! integers* case included.
//!
//! # Errors and hostile input
//!
//! Every read is checked. Reading past the end returns
//! [`BitError::UnexpectedEnd`] with the bit offset of the failing read, the
//! bits it requested and the bits available; no read panics, pads with zeros
//! or returns garbage. Lengths read from the input are checked against what
//! is left before anything is allocated.
#![forbid(unsafe_code)]

mod error;
pub mod quantized;
mod reader;
pub mod serialize;
pub mod types;
pub mod write_types;
mod writer;

pub use error::{BitError, Result};
pub use quantized::QuantizedFloat;
pub use reader::{BitReader, MAX_LOOKAHEAD_BITS};
pub use writer::BitWriter;

/// The README example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
