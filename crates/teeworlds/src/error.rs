//! The crate's error: any error of any layer.
//!
//! Each module reports its own error type, named after what it reads
//! ([`PacketError`], [`MessageError`], [`DemoFileError`], ...), so a function
//! says exactly what can go wrong. [`Error`] wraps all of them, for callers
//! that run several layers and want one type behind `?`. It is transparent:
//! its message and its [`source`](std::error::Error::source) are those of the
//! wrapped error.

use crate::conn::SendError;
use crate::connless::ConnlessError;
use crate::decoder::DecodeError;
use crate::demo::DemoFileError;
use crate::huffman::HuffmanError;
use crate::int::{IntError, UnpackError};
use crate::map::MapError;
use crate::msg::MessageError;
use crate::packet::PacketError;
use crate::pcap::PcapError;
use crate::snapshot::SnapshotError;

/// Any error of this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A packed int ([`crate::int`]).
    #[error(transparent)]
    Int(#[from] IntError),
    /// A message body ([`crate::int::Unpacker`]).
    #[error(transparent)]
    Unpack(#[from] UnpackError),
    /// The packet compressor ([`crate::huffman`]).
    #[error(transparent)]
    Huffman(#[from] HuffmanError),
    /// A packet header or its chunks ([`crate::packet`]).
    #[error(transparent)]
    Packet(#[from] PacketError),
    /// A system or game message ([`crate::msg`]).
    #[error(transparent)]
    Message(#[from] MessageError),
    /// A server-browser message ([`crate::connless`]).
    #[error(transparent)]
    Connless(#[from] ConnlessError),
    /// A snapshot or delta ([`crate::snapshot`]).
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// A captured datagram ([`crate::decoder`]).
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// Queueing a chunk on a connection ([`crate::conn`]).
    #[error(transparent)]
    Send(#[from] SendError),
    /// A map file ([`crate::map`]).
    #[error(transparent)]
    Map(#[from] MapError),
    /// A pcap capture ([`crate::pcap`]).
    #[error(transparent)]
    Pcap(#[from] PcapError),
    /// A demo file ([`crate::demo`]).
    #[error(transparent)]
    DemoFile(#[from] DemoFileError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_with_the_same_message() {
        let inner = IntError::Truncated { offset: 3 };
        let text = inner.to_string();
        let e: Error = inner.clone().into();
        assert_eq!(e.to_string(), text);
        assert!(matches!(e, Error::Int(ref i) if *i == inner));
    }

    #[test]
    fn question_mark_lifts_module_errors() {
        fn two_layers(data: &[u8]) -> Result<i32, Error> {
            let (v, _, _) = crate::int::unpack_int(data, 0)?;
            crate::huffman::Huffman::teeworlds().decompress(data, 1400)?;
            Ok(v)
        }
        assert!(matches!(two_layers(&[]), Err(Error::Int(_))));
    }
}
