//! Teeworlds 0.7 network protocol, sans-IO.
//!
//! Layers, bottom up:
//! * [`int`]: the variable-length int (`CVariableInt`), packer and unpacker.
//! * [`huffman`]: the packet compressor.
//! * [`packet`]: packet header, control messages, connless packets, chunks.
//! * [`msg`]: every 0.7.5 system and game message as typed values.
//! * [`connless`]: server info request and reply (`gie3` / `inf3`).
//! * [`snapshot`]: snapshots, deltas, CRC, multi-part reassembly, typed objects.
//! * [`decoder`]: a stateful decoder for captured traffic (datagram to
//!   messages and snapshots, per direction).
//! * [`conn`]: the connection state machine; time in, datagrams out.
//! * [`client`]: the join sequence of a game client on top of [`conn`].
//! * [`pcap`]: Teeworlds datagrams out of a pcap capture.
//! * [`demo`]: demo files (`.demo`), read and written.
//! * [`recording`]: a whole capture or demo in one pass, with its summary.
//!
//! Nothing here opens sockets or reads clocks.
//!
//! Each module has its own error type; [`Error`] wraps them all. Non-fatal
//! oddities are warnings ([`packet::PacketWarning`], [`int::UnpackWarning`],
//! [`decoder::DecodeWarning`]), each with a sentence as its `Display`.
#![forbid(unsafe_code)]

pub mod client;
pub mod conn;
pub mod connless;
pub mod decoder;
pub mod demo;
mod error;
pub mod huffman;
pub mod int;
pub mod map;
pub mod msg;
pub mod packet;
pub mod pcap;
pub mod recording;
pub mod snapshot;

pub use error::Error;

/// The README example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
