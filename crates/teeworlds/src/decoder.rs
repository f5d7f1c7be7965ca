//! A stateful decoder for captured traffic: datagram bytes in, decoded
//! packets, messages and applied snapshots out.
//!
//! One [`Decoder`] per flow (client/server pair). It needs no handshake: it
//! decodes each datagram on its own, and keeps only the snapshot store of the
//! server-to-client direction so deltas can be applied and CRCs checked.
//! Errors do not stop decoding: each is reported with the datagram and the
//! rest of the datagram is still decoded where possible.
//!
//! # From datagram to events
//!
//! 1. [`Packet::decode`] reads the 7-byte header (or the connless header),
//!    undoes the huffman compression and splits the payload into chunks.
//! 2. Each chunk's payload starts with the packed message id
//!    `(id << 1) | system`; [`Message::decode`] reads the id and the body.
//! 3. Server-to-client `snap`, `snap_single` and `snap_empty` messages feed
//!    a [`SnapshotReceiver`]: parts are reassembled, the delta is applied to
//!    the snapshot it names, and the CRC is checked; `map_change` resets it.
//!
//! What each step finds goes into a [`Report`]: [`Event`]s, errors
//! ([`DecodeError`]) and warnings ([`DecodeWarning`]).

use std::fmt;

use serde::Serialize;

use crate::connless::{ConnlessError, ConnlessMessage};
use crate::int::{UnpackError, UnpackWarning};
use crate::msg::{Message, MessageError, SnapObject, SystemMessage};
use crate::packet::{
    ChunkHeader, ControlMessage, Packet, PacketError, PacketHeader, PacketWarning,
};
use crate::snapshot::{Received, SnapHeader, Snapshot, SnapshotError, SnapshotReceiver};

/// Which way a datagram went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Client to server.
    ClientToServer,
    /// Server to client.
    ServerToClient,
}

/// Any error while decoding a datagram.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The packet layer.
    #[error("packet: {0}")]
    Packet(#[from] PacketError),
    /// A message in chunk `chunk`.
    #[error("chunk {chunk}: {source}")]
    Message {
        /// Chunk index.
        chunk: usize,
        /// What went wrong.
        source: MessageError,
    },
    /// A connless message.
    #[error("connless: {0}")]
    Connless(#[from] ConnlessError),
    /// A snapshot in chunk `chunk`.
    #[error("chunk {chunk}: {source}")]
    Snapshot {
        /// Chunk index.
        chunk: usize,
        /// What went wrong.
        source: SnapshotError,
    },
}

/// A non-fatal oddity found while decoding a datagram: decoding went on.
///
/// [`Display`](fmt::Display) says it in a sentence (what the `tw` commands
/// print and [`Report`] serializes); [`DecodeWarning::compact`] is a short
/// form.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeWarning {
    /// The packet layer (trailing bytes, an empty chunk).
    Packet(PacketWarning),
    /// The message in chunk `chunk` (or the connless payload, chunk 0).
    Unpack {
        /// Chunk index.
        chunk: usize,
        /// What was odd.
        warning: UnpackWarning,
    },
    /// A snapshot object outside the ranges the reference client accepts
    /// (`CNetObjHandler::ValidateObj`); the client only counts these, so the
    /// object is kept.
    InvalidObject {
        /// The snapshot's tick.
        tick: i32,
        /// The item's type id.
        type_id: u16,
        /// The item's id.
        id: u16,
        /// The field out of range.
        error: UnpackError,
    },
}

impl DecodeWarning {
    /// A short form for logs: the kind and its fields in Rust notation, e.g.
    /// `TrailingChunkData { len: 3 }` or
    /// `chunk 1: OverlongInt { field: "tick", offset: 2 }`; an invalid object
    /// reads as its sentence.
    pub fn compact(&self) -> String {
        match self {
            DecodeWarning::Packet(w) => format!("{w:?}"),
            DecodeWarning::Unpack { chunk, warning } => format!("chunk {chunk}: {warning:?}"),
            DecodeWarning::InvalidObject { .. } => self.to_string(),
        }
    }
}

impl fmt::Display for DecodeWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeWarning::Packet(w) => write!(f, "{w}"),
            DecodeWarning::Unpack { chunk, warning } => write!(f, "chunk {chunk}: {warning}"),
            DecodeWarning::InvalidObject {
                tick,
                type_id,
                id,
                error,
            } => write!(
                f,
                "snapshot tick {tick}: item type {type_id} id {id}: {error}"
            ),
        }
    }
}

/// One item of a snapshot, typed when possible.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ItemView {
    /// Type id.
    pub type_id: u16,
    /// Item id.
    pub id: u16,
    /// The typed object (known type and size).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<SnapObject>,
    /// The raw ints (unknown type).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Vec<i32>>,
}

/// Typed views of all items of a snapshot.
pub fn item_views(s: &Snapshot) -> Vec<ItemView> {
    s.items()
        .iter()
        .map(|i| {
            let object = i.object();
            ItemView {
                type_id: i.type_id,
                id: i.id,
                data: object.is_none().then(|| i.data.clone()),
                object,
            }
        })
        .collect()
}

/// Something found in a datagram.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)]
pub enum Event {
    /// A control message.
    Control {
        /// The message.
        message: ControlMessage,
    },
    /// A connless message.
    Connless {
        /// The message.
        message: ConnlessMessage,
    },
    /// A system or game message.
    Message {
        /// Its chunk header.
        chunk: ChunkHeader,
        /// The message.
        message: Message,
    },
    /// A snapshot completed (after its parts arrived), applied and checked.
    Snapshot {
        /// Tick.
        tick: i32,
        /// Delta tick (-1: from empty).
        delta_tick: i32,
        /// CRC matched.
        crc_ok: bool,
        /// Items.
        items: Vec<ItemView>,
    },
}

/// Everything about one datagram.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Direction.
    pub direction: Direction,
    /// Datagram length.
    pub len: usize,
    /// The header (not for connless packets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header: Option<PacketHeader>,
    /// What was found.
    pub events: Vec<Event>,
    /// Errors (as sentences).
    #[serde(serialize_with = "errors_as_strings")]
    pub errors: Vec<DecodeError>,
    /// Non-fatal oddities (each as its sentence).
    #[serde(serialize_with = "warnings_as_strings")]
    pub warnings: Vec<DecodeWarning>,
}

fn errors_as_strings<S: serde::Serializer>(e: &[DecodeError], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(e.iter().map(|e| e.to_string()))
}

fn warnings_as_strings<S: serde::Serializer>(w: &[DecodeWarning], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(w.iter().map(DecodeWarning::to_string))
}

/// Per-flow decoding state.
#[derive(Debug, Default)]
pub struct Decoder {
    snapshots: SnapshotReceiver,
    /// Datagrams decoded.
    pub datagrams: u64,
    /// Errors seen.
    pub errors: u64,
    /// Snapshots completed.
    pub snapshots_completed: u64,
    /// Snapshots whose CRC matched.
    pub snapshots_crc_ok: u64,
}

fn unpack_warning(chunk: usize, w: &UnpackWarning) -> DecodeWarning {
    DecodeWarning::Unpack {
        chunk,
        warning: w.clone(),
    }
}

impl Decoder {
    /// A fresh decoder.
    pub fn new() -> Self {
        Decoder::default()
    }

    /// The newest snapshot the server sent.
    pub fn latest_snapshot(&self) -> Option<(i32, &Snapshot)> {
        self.snapshots.latest()
    }

    /// Decodes one datagram.
    pub fn decode(&mut self, direction: Direction, datagram: &[u8]) -> Report {
        self.datagrams += 1;
        let mut r = Report {
            direction,
            len: datagram.len(),
            header: None,
            events: Vec::new(),
            errors: Vec::new(),
            warnings: Vec::new(),
        };
        match Packet::decode(datagram) {
            Err(e) => r.errors.push(e.into()),
            Ok(d) => {
                r.warnings
                    .extend(d.warnings.iter().cloned().map(DecodeWarning::Packet));
                match d.packet {
                    Packet::Connless(c) => match ConnlessMessage::decode(&c.payload) {
                        Ok((message, w)) => {
                            r.warnings.extend(w.iter().map(|w| unpack_warning(0, w)));
                            r.events.push(Event::Connless { message });
                        }
                        Err(e) => r.errors.push(e.into()),
                    },
                    Packet::Control { header, message } => {
                        r.header = Some(header);
                        r.events.push(Event::Control { message });
                    }
                    Packet::Chunks { header, chunks } => {
                        r.header = Some(header);
                        for (i, c) in chunks.iter().enumerate() {
                            self.chunk(direction, i, c.header, &c.data, &mut r);
                        }
                    }
                }
            }
        }
        self.errors += r.errors.len() as u64;
        r
    }

    fn chunk(
        &mut self,
        direction: Direction,
        i: usize,
        header: ChunkHeader,
        data: &[u8],
        r: &mut Report,
    ) {
        let (message, w) = match Message::decode(data) {
            Ok(x) => x,
            Err(source) => {
                r.errors.push(DecodeError::Message { chunk: i, source });
                return;
            }
        };
        r.warnings.extend(w.iter().map(|w| unpack_warning(i, w)));
        let snap = match (&message, direction) {
            (Message::System(m), Direction::ServerToClient) => match m {
                SystemMessage::Snap(s) => Some((
                    SnapHeader {
                        tick: s.tick,
                        delta_distance: s.delta_tick,
                        num_parts: s.num_parts,
                        part: s.part,
                        crc: Some(s.crc),
                    },
                    s.data.as_slice(),
                )),
                SystemMessage::SnapSingle(s) => Some((
                    SnapHeader {
                        tick: s.tick,
                        delta_distance: s.delta_tick,
                        num_parts: 1,
                        part: 0,
                        crc: Some(s.crc),
                    },
                    s.data.as_slice(),
                )),
                SystemMessage::SnapEmpty(s) => Some((
                    SnapHeader {
                        tick: s.tick,
                        delta_distance: s.delta_tick,
                        num_parts: 1,
                        part: 0,
                        crc: None,
                    },
                    &[][..],
                )),
                SystemMessage::MapChange(_) => {
                    self.snapshots.reset();
                    None
                }
                _ => None,
            },
            _ => None,
        };
        if let Some((h, bytes)) = snap {
            match self.snapshots.feed(h, bytes) {
                Ok(Some(Received {
                    tick,
                    delta_tick,
                    crc_ok,
                    snapshot,
                })) => {
                    self.snapshots_completed += 1;
                    if crc_ok {
                        self.snapshots_crc_ok += 1;
                    }
                    // Objects outside the ranges ValidateObj accepts are
                    // reported, not rejected (the client only counts them).
                    for item in snapshot.items() {
                        if let Some(Err(error)) = item.object().map(|o| o.validate()) {
                            r.warnings.push(DecodeWarning::InvalidObject {
                                tick,
                                type_id: item.type_id,
                                id: item.id,
                                error,
                            });
                        }
                    }
                    r.events.push(Event::Message {
                        chunk: header,
                        message,
                    });
                    r.events.push(Event::Snapshot {
                        tick,
                        delta_tick,
                        crc_ok,
                        items: item_views(&snapshot),
                    });
                    return;
                }
                Ok(None) => {}
                Err(source) => {
                    self.snapshots_completed += 1;
                    r.errors.push(DecodeError::Snapshot { chunk: i, source });
                }
            }
        }
        r.events.push(Event::Message {
            chunk: header,
            message,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_read_as_sentences_and_print_compact() {
        let packet = DecodeWarning::Packet(PacketWarning::TrailingChunkData { len: 3 });
        assert_eq!(
            packet.to_string(),
            "3 bytes follow the last announced chunk"
        );
        assert_eq!(packet.compact(), "TrailingChunkData { len: 3 }");

        let unpack = DecodeWarning::Unpack {
            chunk: 1,
            warning: UnpackWarning::OverlongInt {
                field: "tick",
                offset: 2,
            },
        };
        assert_eq!(
            unpack.to_string(),
            "chunk 1: the int `tick` at byte offset 2 uses more bytes than needed"
        );
        assert_eq!(
            unpack.compact(),
            "chunk 1: OverlongInt { field: \"tick\", offset: 2 }"
        );
    }

    #[test]
    fn a_datagram_with_trailing_bytes_warns_and_serializes_the_sentence() {
        // A chunk packet with no chunks and one byte after the header.
        let mut datagram = vec![0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78];
        datagram.push(0xaa);
        let r = Decoder::new().decode(Direction::ServerToClient, &datagram);
        assert!(r.errors.is_empty(), "{:?}", r.errors);
        assert_eq!(
            r.warnings,
            vec![DecodeWarning::Packet(PacketWarning::TrailingChunkData {
                len: 1
            })]
        );
        let json = serde_json::to_value(&r).unwrap_or_default();
        assert_eq!(
            json["warnings"][0],
            "1 bytes follow the last announced chunk"
        );
    }
}
