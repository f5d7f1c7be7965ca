//! Packets: the 7-byte header, control messages, connless packets and chunks.
//!
//! # Packet header (teeworlds 0.7.5 `network.cpp` `SendPacket` /
//! `UnpackPacket`; `docs/formats/teeworlds-0.7.md`)
//!
//! ```text
//! byte 0: 2 unused bits | 4 flag bits | ack bits 9..8
//! byte 1: ack bits 7..0
//! byte 2: number of chunks
//! bytes 3-6: token, big-endian
//! ```
//! Flag bits (value after shifting byte 0 right by 2): control = 1,
//! resend = 2, compression = 4, connless = 8.
//!
//! A connless packet has a 9-byte header instead: byte 0 is
//! `connless << 2 | version` (version 1, so `0x21`), then the 4-byte token and
//! the 4-byte response token.
//!
//! Control packets carry one control message and no chunk headers; they are
//! never compressed. Other packets are huffman-compressed when that makes
//! them smaller.
//!
//! # Chunk header
//!
//! ```text
//! byte 0: flags (resend = 2, vital = 1) in bits 7..6 | size bits 11..6
//! byte 1: sequence bits 9..8 in bits 7..6 (vital only) | size bits 5..0
//! byte 2: sequence bits 7..0 (vital only)
//! ```
//!
//! # Limits
//! A datagram is at most [`MAX_PACKET_SIZE`] bytes; a decompressed payload at
//! most [`MAX_PAYLOAD`] bytes (`NET_MAX_PAYLOAD`). Decoding allocates at most a
//! few times the datagram size.

use std::fmt;

use serde::Serialize;

use crate::huffman::{Huffman, HuffmanError};

/// Largest datagram (`NET_MAX_PACKETSIZE`).
pub const MAX_PACKET_SIZE: usize = 1400;
/// Header size of a connection packet (`NET_PACKETHEADERSIZE`).
pub const HEADER_SIZE: usize = 7;
/// Header size of a connless packet (`NET_PACKETHEADERSIZE_CONNLESS`).
pub const CONNLESS_HEADER_SIZE: usize = 9;
/// Largest payload (`NET_MAX_PAYLOAD` = packet size minus the connless header).
pub const MAX_PAYLOAD: usize = MAX_PACKET_SIZE - CONNLESS_HEADER_SIZE;
/// Sequence numbers and acks count modulo this (`NET_MAX_SEQUENCE`).
pub const MAX_SEQUENCE: u16 = 1 << 10;
/// The "no token" value (`NET_TOKEN_NONE`).
pub const TOKEN_NONE: u32 = 0xffff_ffff;
/// Minimum payload of a token request after the control byte
/// (`NET_TOKENREQUEST_DATASIZE`); the server ignores shorter requests, so a
/// small spoofed request cannot be reflected into a larger answer.
pub const TOKEN_REQUEST_DATASIZE: usize = 512;
/// Connless packet version (`NET_PACKETVERSION`).
pub const PACKET_VERSION: u8 = 1;

/// Flag bits of the packet header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PacketFlags {
    /// A control packet.
    pub control: bool,
    /// The sender asks for a resend of unacked vital chunks.
    pub resend: bool,
    /// The payload is huffman-compressed.
    pub compression: bool,
    /// A connless packet.
    pub connless: bool,
}

impl PacketFlags {
    /// The 4 flag bits.
    pub fn bits(self) -> u8 {
        u8::from(self.control)
            | u8::from(self.resend) << 1
            | u8::from(self.compression) << 2
            | u8::from(self.connless) << 3
    }

    /// Flags from the 4 flag bits.
    pub fn from_bits(b: u8) -> Self {
        PacketFlags {
            control: b & 1 != 0,
            resend: b & 2 != 0,
            compression: b & 4 != 0,
            connless: b & 8 != 0,
        }
    }
}

/// The 7-byte header of a connection packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct PacketHeader {
    /// Flags.
    pub flags: PacketFlags,
    /// Sequence of the last in-order vital chunk the sender received (10 bits).
    pub ack: u16,
    /// Number of chunks (0 for control packets).
    pub num_chunks: u8,
    /// The receiver's token.
    pub token: u32,
}

impl PacketHeader {
    /// Writes the 7 header bytes.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.push((self.flags.bits() << 2) & 0xfc | ((self.ack >> 8) & 0x03) as u8);
        out.push((self.ack & 0xff) as u8);
        out.push(self.num_chunks);
        out.extend_from_slice(&self.token.to_be_bytes());
    }

    /// Reads the 7 header bytes. The two unused top bits are ignored like the
    /// reference does.
    pub fn read(b: &[u8]) -> Result<Self, PacketError> {
        let h: &[u8; HEADER_SIZE] =
            b.get(..HEADER_SIZE)
                .and_then(|s| s.try_into().ok())
                .ok_or(PacketError::TooShort {
                    len: b.len(),
                    need: HEADER_SIZE,
                })?;
        Ok(PacketHeader {
            flags: PacketFlags::from_bits((h[0] >> 2) & 0x0f),
            ack: (u16::from(h[0] & 0x03) << 8) | u16::from(h[1]),
            num_chunks: h[2],
            token: u32::from_be_bytes([h[3], h[4], h[5], h[6]]),
        })
    }
}

/// Control message ids (`NET_CTRLMSG_*`).
pub mod ctrl {
    /// Keep the connection alive.
    pub const KEEPALIVE: u8 = 0;
    /// Client asks to connect (carries its token).
    pub const CONNECT: u8 = 1;
    /// Server accepts the connection.
    pub const ACCEPT: u8 = 2;
    /// Either side closes, optionally with a reason.
    pub const CLOSE: u8 = 4;
    /// Token request (client) or token answer (server).
    pub const TOKEN: u8 = 5;
}

/// A control message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ControlMessage {
    /// Keepalive.
    KeepAlive,
    /// Connect, with the sender's token and the length of the anti-reflection
    /// padding that follows it.
    Connect {
        /// The sender's token.
        token: u32,
        /// Bytes after the token.
        padding: usize,
    },
    /// Accept. DDNet's 0.7 mode appends its token; vanilla sends nothing.
    Accept {
        /// The token after the id, if any.
        token: Option<u32>,
    },
    /// Close, with an optional reason string (sanitized).
    Close {
        /// The reason, if any.
        reason: Option<String>,
    },
    /// Token request (client, with padding) or answer (server, no padding).
    Token {
        /// The sender's token.
        token: u32,
        /// Bytes after the token.
        padding: usize,
    },
}

impl ControlMessage {
    /// The control id.
    pub fn id(&self) -> u8 {
        match self {
            ControlMessage::KeepAlive => ctrl::KEEPALIVE,
            ControlMessage::Connect { .. } => ctrl::CONNECT,
            ControlMessage::Accept { .. } => ctrl::ACCEPT,
            ControlMessage::Close { .. } => ctrl::CLOSE,
            ControlMessage::Token { .. } => ctrl::TOKEN,
        }
    }

    /// Writes id and payload.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.push(self.id());
        match self {
            ControlMessage::KeepAlive => {}
            ControlMessage::Connect { token, padding }
            | ControlMessage::Token { token, padding } => {
                out.extend_from_slice(&token.to_be_bytes());
                out.resize(out.len() + padding, 0);
            }
            ControlMessage::Accept { token } => {
                if let Some(t) = token {
                    out.extend_from_slice(&t.to_be_bytes());
                }
            }
            ControlMessage::Close { reason } => {
                if let Some(r) = reason {
                    out.extend(r.bytes().filter(|&b| b != 0));
                    out.push(0);
                }
            }
        }
    }

    /// Parses a control payload (id first).
    pub fn read(p: &[u8]) -> Result<Self, PacketError> {
        let Some((&id, rest)) = p.split_first() else {
            return Err(PacketError::EmptyControl);
        };
        let token = |rest: &[u8]| -> Result<u32, PacketError> {
            rest.get(..4)
                .and_then(|t| t.try_into().ok())
                .map(u32::from_be_bytes)
                .ok_or(PacketError::ControlTooShort { id, len: p.len() })
        };
        Ok(match id {
            ctrl::KEEPALIVE => ControlMessage::KeepAlive,
            ctrl::CONNECT => ControlMessage::Connect {
                token: token(rest)?,
                padding: rest.len() - 4,
            },
            ctrl::ACCEPT => ControlMessage::Accept {
                token: token(rest).ok(),
            },
            ctrl::CLOSE => {
                if rest.is_empty() {
                    ControlMessage::Close { reason: None }
                } else {
                    // The reference copies at most 127 bytes, stops at NUL and
                    // sanitizes (str_sanitize_strong).
                    let end = rest
                        .iter()
                        .position(|&b| b == 0)
                        .unwrap_or(rest.len())
                        .min(127);
                    let raw = rest.get(..end).unwrap_or(&[]);
                    let s: String = String::from_utf8_lossy(raw)
                        .chars()
                        .map(|c| if c.is_control() { ' ' } else { c })
                        .collect();
                    ControlMessage::Close { reason: Some(s) }
                }
            }
            ctrl::TOKEN => ControlMessage::Token {
                token: token(rest)?,
                padding: rest.len() - 4,
            },
            _ => return Err(PacketError::UnknownControl { id }),
        })
    }
}

/// A chunk header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ChunkHeader {
    /// Vital: sequenced, acked and resent.
    pub vital: bool,
    /// This is a resend.
    pub resend: bool,
    /// Payload size (message id included), 12 bits.
    pub size: u16,
    /// Sequence (vital only), 10 bits.
    pub sequence: u16,
}

impl ChunkHeader {
    /// Bytes this header takes.
    pub fn len(&self) -> usize {
        if self.vital {
            3
        } else {
            2
        }
    }

    /// Always false: a header is never empty (for clippy's `len` rule).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Writes the header.
    pub fn write(&self, out: &mut Vec<u8>) {
        let flags = u8::from(self.vital) | u8::from(self.resend) << 1;
        out.push((flags & 0x03) << 6 | ((self.size >> 6) & 0x3f) as u8);
        let b1 = (self.size & 0x3f) as u8;
        if self.vital {
            out.push(b1 | ((self.sequence >> 2) & 0xc0) as u8);
            out.push((self.sequence & 0xff) as u8);
        } else {
            out.push(b1);
        }
    }

    /// Reads a header from the start of `b`.
    pub fn read(b: &[u8], offset: usize) -> Result<Self, PacketError> {
        let short = PacketError::ChunkHeaderTruncated { offset };
        let b0 = *b.first().ok_or(short.clone())?;
        let b1 = *b.get(1).ok_or(short.clone())?;
        let flags = b0 >> 6;
        let vital = flags & 1 != 0;
        let size = (u16::from(b0 & 0x3f) << 6) | u16::from(b1 & 0x3f);
        let sequence = if vital {
            let b2 = *b.get(2).ok_or(short)?;
            (u16::from(b1 & 0xc0) << 2) | u16::from(b2)
        } else {
            0
        };
        Ok(ChunkHeader {
            vital,
            resend: flags & 2 != 0,
            size,
            sequence,
        })
    }
}

/// One chunk: header and payload (message id first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Chunk {
    /// The header.
    pub header: ChunkHeader,
    /// The payload, `header.size` bytes.
    #[serde(skip)]
    pub data: Vec<u8>,
}

impl Chunk {
    /// A chunk whose header size matches the data.
    pub fn new(vital: bool, sequence: u16, data: Vec<u8>) -> Self {
        Chunk {
            header: ChunkHeader {
                vital,
                resend: false,
                size: data.len() as u16,
                sequence: if vital { sequence % MAX_SEQUENCE } else { 0 },
            },
            data,
        }
    }
}

/// Error decoding or encoding a packet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PacketError {
    /// The datagram is shorter than a header.
    #[error("the datagram has {len} bytes, fewer than the {need}-byte header")]
    TooShort {
        /// Datagram length.
        len: usize,
        /// Needed.
        need: usize,
    },
    /// The datagram is longer than `NET_MAX_PACKETSIZE`.
    #[error("the datagram has {len} bytes, more than the 1400-byte packet limit")]
    TooLong {
        /// Datagram length.
        len: usize,
    },
    /// A connless packet with a version other than 1.
    #[error("connless packet version {version} is not 1")]
    ConnlessVersion {
        /// The version bits.
        version: u8,
    },
    /// Huffman decompression failed.
    #[error("decompressing the payload failed: {0}")]
    Huffman(#[from] HuffmanError),
    /// A control packet without payload.
    #[error("the control packet has no control message id")]
    EmptyControl,
    /// A control message missing its token.
    #[error("control message {id} is {len} bytes, too short for its 4-byte token")]
    ControlTooShort {
        /// The control id.
        id: u8,
        /// Payload length.
        len: usize,
    },
    /// An unknown control id.
    #[error("unknown control message id {id}")]
    UnknownControl {
        /// The id.
        id: u8,
    },
    /// A chunk header ran past the payload.
    #[error("the chunk header at payload offset {offset} is cut off")]
    ChunkHeaderTruncated {
        /// Payload offset of the header.
        offset: usize,
    },
    /// A chunk's size runs past the payload.
    #[error(
        "chunk {index} at payload offset {offset} announces {size} bytes but only {left} are left"
    )]
    ChunkTooLong {
        /// Chunk index.
        index: usize,
        /// Payload offset of the header.
        offset: usize,
        /// Announced size.
        size: u16,
        /// Bytes left.
        left: usize,
    },
    /// The payload is too big to send.
    #[error("the payload of {len} bytes exceeds the {max}-byte limit")]
    PayloadTooLong {
        /// Payload length.
        len: usize,
        /// Limit.
        max: usize,
    },
}

/// A non-fatal oddity in a packet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum PacketWarning {
    /// Bytes after the announced chunks.
    TrailingChunkData {
        /// How many bytes.
        len: usize,
    },
    /// A chunk with size 0 (no message id).
    EmptyChunk {
        /// Chunk index.
        index: usize,
    },
}

impl fmt::Display for PacketWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PacketWarning::TrailingChunkData { len } => {
                write!(f, "{len} bytes follow the last announced chunk")
            }
            PacketWarning::EmptyChunk { index } => {
                write!(f, "chunk {index} is empty (no message id)")
            }
        }
    }
}

/// A connless packet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConnlessPacket {
    /// The receiver's token.
    pub token: u32,
    /// The sender's token, for the answer.
    pub response_token: u32,
    /// The payload (starts with the 8-byte message id, e.g. `\xff\xff\xff\xffgie3`).
    #[serde(skip)]
    pub payload: Vec<u8>,
}

/// A decoded datagram.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Packet {
    /// Connless.
    Connless(ConnlessPacket),
    /// Control.
    Control {
        /// Header.
        header: PacketHeader,
        /// The message.
        message: ControlMessage,
    },
    /// Chunks of system and game messages.
    Chunks {
        /// Header.
        header: PacketHeader,
        /// The chunks.
        chunks: Vec<Chunk>,
    },
}

/// A decoded datagram with its warnings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The packet.
    pub packet: Packet,
    /// Oddities.
    pub warnings: Vec<PacketWarning>,
}

impl Packet {
    /// Decodes one datagram.
    pub fn decode(datagram: &[u8]) -> Result<Decoded, PacketError> {
        if datagram.len() > MAX_PACKET_SIZE {
            return Err(PacketError::TooLong {
                len: datagram.len(),
            });
        }
        let header = PacketHeader::read(datagram)?;
        let mut warnings = Vec::new();
        if header.flags.connless {
            let b = datagram;
            let t = |i: usize| -> Result<u32, PacketError> {
                b.get(i..i + 4)
                    .and_then(|s| s.try_into().ok())
                    .map(u32::from_be_bytes)
                    .ok_or(PacketError::TooShort {
                        len: b.len(),
                        need: CONNLESS_HEADER_SIZE,
                    })
            };
            let version = b.first().copied().unwrap_or(0) & 0x03;
            if version != PACKET_VERSION {
                return Err(PacketError::ConnlessVersion { version });
            }
            return Ok(Decoded {
                packet: Packet::Connless(ConnlessPacket {
                    token: t(1)?,
                    response_token: t(5)?,
                    payload: b.get(CONNLESS_HEADER_SIZE..).unwrap_or(&[]).to_vec(),
                }),
                warnings,
            });
        }
        let raw = datagram.get(HEADER_SIZE..).unwrap_or(&[]);
        if raw.len() > MAX_PAYLOAD {
            return Err(PacketError::PayloadTooLong {
                len: raw.len(),
                max: MAX_PAYLOAD,
            });
        }
        let payload_buf;
        let payload: &[u8] = if header.flags.compression {
            payload_buf = Huffman::teeworlds().decompress(raw, MAX_PAYLOAD)?;
            &payload_buf
        } else {
            raw
        };
        if header.flags.control {
            return Ok(Decoded {
                packet: Packet::Control {
                    header,
                    message: ControlMessage::read(payload)?,
                },
                warnings,
            });
        }
        let chunks = read_chunks(payload, header.num_chunks, &mut warnings)?;
        Ok(Decoded {
            packet: Packet::Chunks { header, chunks },
            warnings,
        })
    }

    /// Encodes the packet. Chunk packets are compressed when that makes them
    /// smaller and `allow_compression` is set (as `SendPacket` does); the
    /// header's compression flag and chunk count are set accordingly.
    pub fn encode(&self, allow_compression: bool) -> Result<Vec<u8>, PacketError> {
        let mut out = Vec::with_capacity(64);
        match self {
            Packet::Connless(c) => {
                out.push((8 << 2) | PACKET_VERSION);
                out.extend_from_slice(&c.token.to_be_bytes());
                out.extend_from_slice(&c.response_token.to_be_bytes());
                out.extend_from_slice(&c.payload);
            }
            Packet::Control { header, message } => {
                let mut h = *header;
                h.flags.control = true;
                h.flags.compression = false;
                h.flags.connless = false;
                h.num_chunks = 0;
                h.write(&mut out);
                message.write(&mut out);
            }
            Packet::Chunks { header, chunks } => {
                let mut payload = Vec::with_capacity(64);
                for c in chunks {
                    let mut h = c.header;
                    h.size = c.data.len() as u16;
                    h.write(&mut payload);
                    payload.extend_from_slice(&c.data);
                }
                if payload.len() > MAX_PAYLOAD {
                    return Err(PacketError::PayloadTooLong {
                        len: payload.len(),
                        max: MAX_PAYLOAD,
                    });
                }
                let mut h = *header;
                h.flags.control = false;
                h.flags.connless = false;
                h.num_chunks = chunks.len() as u8;
                let compressed = if allow_compression {
                    let c = Huffman::teeworlds().compress(&payload);
                    (c.len() < payload.len() && c.len() <= MAX_PAYLOAD).then_some(c)
                } else {
                    None
                };
                h.flags.compression = compressed.is_some();
                h.write(&mut out);
                out.extend_from_slice(compressed.as_deref().unwrap_or(&payload));
            }
        }
        if out.len() > MAX_PACKET_SIZE {
            return Err(PacketError::TooLong { len: out.len() });
        }
        Ok(out)
    }
}

/// Splits a (decompressed) payload into `num_chunks` chunks.
pub fn read_chunks(
    payload: &[u8],
    num_chunks: u8,
    warnings: &mut Vec<PacketWarning>,
) -> Result<Vec<Chunk>, PacketError> {
    let mut chunks = Vec::with_capacity(usize::from(num_chunks));
    let mut pos = 0;
    for index in 0..usize::from(num_chunks) {
        let rest = payload.get(pos..).unwrap_or(&[]);
        let header = ChunkHeader::read(rest, pos)?;
        let body = rest.get(header.len()..).unwrap_or(&[]);
        let size = usize::from(header.size);
        let data = body.get(..size).ok_or(PacketError::ChunkTooLong {
            index,
            offset: pos,
            size: header.size,
            left: body.len(),
        })?;
        if size == 0 {
            warnings.push(PacketWarning::EmptyChunk { index });
        }
        chunks.push(Chunk {
            header,
            data: data.to_vec(),
        });
        pos += header.len() + size;
    }
    if pos < payload.len() {
        warnings.push(PacketWarning::TrailingChunkData {
            len: payload.len() - pos,
        });
    }
    Ok(chunks)
}

/// True if `seq` is at or before `ack` within the last half of the sequence
/// space: an old chunk already received (`IsSeqInBackroom`).
pub fn seq_in_backroom(seq: u16, ack: u16) -> bool {
    let seq = i32::from(seq);
    let ack = i32::from(ack);
    let bottom = ack - i32::from(MAX_SEQUENCE) / 2;
    if bottom < 0 {
        seq <= ack || seq >= bottom + i32::from(MAX_SEQUENCE)
    } else {
        seq <= ack && seq >= bottom
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn example_chunk_header() {
        // "41 0c 0e": vital, size 76, sequence 14.
        let h = ChunkHeader::read(&[0x41, 0x0c, 0x0e], 0).unwrap();
        assert_eq!(
            h,
            ChunkHeader {
                vital: true,
                resend: false,
                size: 76,
                sequence: 14
            }
        );
        let mut out = Vec::new();
        h.write(&mut out);
        assert_eq!(out, [0x41, 0x0c, 0x0e]);
    }

    #[test]
    fn sequence_high_bits() {
        let h = ChunkHeader {
            vital: true,
            resend: true,
            size: 4095,
            sequence: 1023,
        };
        let mut out = Vec::new();
        h.write(&mut out);
        assert_eq!(out, [0xff, 0xff, 0xff]);
        assert_eq!(ChunkHeader::read(&out, 0).unwrap(), h);
    }

    #[test]
    fn backroom_wraps() {
        assert!(seq_in_backroom(1020, 3));
        assert!(seq_in_backroom(3, 3));
        assert!(!seq_in_backroom(4, 3));
        assert!(!seq_in_backroom(300, 3));
        assert!(seq_in_backroom(600, 3));
        assert!(seq_in_backroom(400, 600));
        assert!(!seq_in_backroom(50, 600));
    }

    #[test]
    fn control_roundtrip() {
        for m in [
            ControlMessage::KeepAlive,
            ControlMessage::Connect {
                token: 0x11223344,
                padding: 508,
            },
            ControlMessage::Accept { token: None },
            ControlMessage::Accept { token: Some(7) },
            ControlMessage::Close {
                reason: Some("bye".into()),
            },
            ControlMessage::Close { reason: None },
            ControlMessage::Token {
                token: 5,
                padding: 0,
            },
        ] {
            let p = Packet::Control {
                header: PacketHeader {
                    ack: 513,
                    token: 0xdeadbeef,
                    ..Default::default()
                },
                message: m.clone(),
            };
            let bytes = p.encode(true).unwrap();
            let d = Packet::decode(&bytes).unwrap();
            match d.packet {
                Packet::Control { header, message } => {
                    assert_eq!(message, m);
                    assert_eq!(header.ack, 513);
                    assert!(header.flags.control);
                }
                other => panic!("{other:?}"),
            }
        }
    }

    proptest! {
        #[test]
        fn hostile_datagrams_never_panic(data in proptest::collection::vec(any::<u8>(), 0..1500)) {
            let _ = Packet::decode(&data);
        }

        #[test]
        fn chunk_packets_roundtrip(
            payloads in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 1..60), 0..10),
            ack in 0u16..1024,
            compress in any::<bool>(),
        ) {
            let chunks: Vec<Chunk> = payloads.iter().enumerate()
                .map(|(i, d)| Chunk::new(i % 2 == 0, (i * 300) as u16, d.clone())).collect();
            let p = Packet::Chunks { header: PacketHeader { ack, token: 1, ..Default::default() }, chunks: chunks.clone() };
            let bytes = p.encode(compress).unwrap();
            let d = Packet::decode(&bytes).unwrap();
            match d.packet {
                Packet::Chunks { header, chunks: got } => {
                    prop_assert_eq!(header.ack, ack);
                    prop_assert_eq!(got, chunks);
                }
                other => prop_assert!(false, "{:?}", other),
            }
        }
    }
}
