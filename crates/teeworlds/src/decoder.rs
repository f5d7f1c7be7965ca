//! A stateful decoder for captured traffic: datagram bytes in, decoded
//! packets, messages and applied snapshots out.
//!
//! One [`Decoder`] per flow (client/server pair). It needs no handshake: it
//! decodes each datagram on its own, and keeps only the snapshot store of the
//! server-to-client direction so deltas can be applied and CRCs checked.
//! Errors do not stop decoding: each is reported with the datagram and the
//! rest of the datagram is still decoded where possible.

use serde::Serialize;

use crate::connless::{ConnlessError, ConnlessMessage};
use crate::int::UnpackWarning;
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
    /// Non-fatal oddities.
    pub warnings: Vec<String>,
}

fn errors_as_strings<S: serde::Serializer>(e: &[DecodeError], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(e.iter().map(|e| e.to_string()))
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

fn chunk_warning(w: &PacketWarning) -> String {
    format!("{w:?}")
}

fn unpack_warning(chunk: usize, w: &UnpackWarning) -> String {
    format!("chunk {chunk}: {w:?}")
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
                r.warnings.extend(d.warnings.iter().map(chunk_warning));
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
                        if let Some(Err(e)) = item.object().map(|o| o.validate()) {
                            r.warnings.push(format!(
                                "snapshot tick {tick}: item type {} id {}: {e}",
                                item.type_id, item.id
                            ));
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
