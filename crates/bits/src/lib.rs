//! gamewire's bit core: a fast, checked LSB-first bit reader and writer, the
//! base types of the Source 2 demo format (seeds 000 and 001), quantized
//! floats, and Fiedler-style range-checked serialization (seed 002).
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
#![forbid(unsafe_code)]

mod error;
pub mod quantized;
mod reader;
pub mod types;
mod writer;

pub use error::{BitError, Result};
pub use quantized::QuantizedFloat;
pub use reader::{BitReader, MAX_LOOKAHEAD_BITS};
pub use writer::BitWriter;
