//! Writing packets: the bitstream of messages inside `CDemoPacket` (the
//! inverse of the packet reader in `parser/packets.rs`).
//!
//! The `data` of a `CDemoPacket` (`DEM_Packet`, `DEM_SignonPacket`, and the
//! packet of a `DEM_FullPacket`) is a bitstream, least significant bit first,
//! of messages one after the other (`docs/formats/source2-demo.md`,
//! "Packets"):
//!
//! ```text
//! UBitVar    message type   6, 10, 14 or 34 bits (source2-base-types.md)
//! varuint32  body size      bit-level protobuf varint, 1 to 5 bytes
//! body       size bytes     the protobuf message the type names
//! ```
//!
//! Because the type is a UBitVar, a body rarely starts on a byte boundary.
//! The stream ends when fewer than eight bits are left: the rest of the
//! last byte is padding, zero bits or not (the games leave some set; see
//! [`PacketWriter::finish_with_padding`]).
//!
//! [`PacketWriter`] encodes such a stream (the type in its shortest UBitVar
//! form, as the games write it); [`PacketMessages`] splits one into its
//! messages, so that a packet can be decoded, changed and written again.
//! [`encode_demo_packet`] wraps a stream as the `CDemoPacket` payload of a
//! frame, and [`DemoWriter::write_packet`](crate::container_writer::DemoWriter::write_packet)
//! writes that frame (the layers of the writer, and an example that writes
//! a demo, are in [`crate::container_writer`]).
//!
//! A message body is protobuf: a tool that changes one decodes it with the
//! type of its id and encodes it again ([`crate::message_writer`]), and
//! pushes every message it does not change as its original body, which keeps
//! the packet byte for byte.
//!
//! ```
//! use gamewire_source2::packet_writer::{PacketMessages, PacketWriter};
//!
//! let mut packet = PacketWriter::new();
//! packet.push(4, &[0x08, 0x2a])?; // net_Tick { tick: 42 }
//! packet.push(207, b"an event")?;
//! let data = packet.finish();
//!
//! let messages: Vec<_> = PacketMessages::new(&data).collect::<Result<_, _>>()?;
//! assert_eq!(messages[0].id, 4);
//! assert_eq!(&*messages[1].body, b"an event");
//! # Ok::<(), gamewire_source2::ErrorKind>(())
//! ```

use std::borrow::Cow;

use gamewire_bits::{BitReader, BitWriter};
use prost::Message;
use source2_demo_protobufs as pb;

use crate::error::ErrorKind;
use crate::parser::MAX_MESSAGE_SIZE;

/// One message of a packet: its type and its protobuf body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PacketMessage<'a> {
    /// The message type (`NET_Messages`, `SVC_Messages`, a user message or
    /// a game event).
    pub id: u32,
    /// The protobuf body, borrowed when it was byte aligned in the packet.
    pub body: Cow<'a, [u8]>,
}

/// Encodes a packet bitstream, message after message.
#[derive(Debug, Clone, Default)]
pub struct PacketWriter {
    bits: BitWriter,
    messages: usize,
}

impl PacketWriter {
    /// An empty packet.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty packet written after the bytes of `head`, in one buffer
    /// with room for `capacity` more bytes: [`PacketWriter::finish`] gives
    /// `head` followed by the bitstream (a caller that wraps the bitstream
    /// writes what goes before it here, and saves a copy of the packet).
    pub fn with_head(head: &[u8], capacity: usize) -> Self {
        let mut bits = BitWriter::with_capacity(head.len() + capacity);
        bits.write_bytes(head);
        PacketWriter { bits, messages: 0 }
    }

    /// [`PacketWriter::with_head`] in `buffer`, emptied first (see
    /// [`BitWriter::with_buffer`]).
    pub fn with_head_in(buffer: Vec<u8>, head: &[u8], capacity: usize) -> Self {
        let mut bits = BitWriter::with_buffer(buffer, head.len() + capacity);
        bits.write_bytes(head);
        PacketWriter { bits, messages: 0 }
    }

    /// Appends a message: its type, its size and its body. A body above the
    /// reader's 16 MiB limit is refused (it could not be read back).
    pub fn push(&mut self, id: u32, body: &[u8]) -> Result<(), ErrorKind> {
        if body.len() > MAX_MESSAGE_SIZE {
            return Err(ErrorKind::LimitExceeded {
                what: "packet message size",
                value: body.len() as u64,
                limit: MAX_MESSAGE_SIZE as u64,
            });
        }
        self.bits.write_ubitvar(id);
        // At most 16 MiB: fits.
        self.bits.write_varuint32(body.len() as u32);
        self.bits.write_bytes(body);
        self.messages += 1;
        Ok(())
    }

    /// Appends a protobuf message, encoded, under type `id`.
    pub fn push_message<M: Message>(&mut self, id: u32, message: &M) -> Result<(), ErrorKind> {
        self.push(id, &message.encode_to_vec())
    }

    /// Messages appended so far.
    pub fn len(&self) -> usize {
        self.messages
    }

    /// True when no message was appended.
    pub fn is_empty(&self) -> bool {
        self.messages == 0
    }

    /// The bitstream, its last byte padded with zero bits.
    pub fn finish(self) -> Vec<u8> {
        self.bits.finish()
    }

    /// The bitstream, the free bits of its last byte set to `padding` (least
    /// significant bit first, as [`PacketMessages::padding`] reads them).
    /// The games do not always pad with zeros: a packet decoded and written
    /// again keeps its bytes only with its own padding. Fails when `padding`
    /// has more bits than the last byte has free.
    pub fn finish_with_padding(mut self, padding: u8) -> Result<Vec<u8>, ErrorKind> {
        let free = ((8 - self.bits.bits_written() % 8) % 8) as u32;
        self.bits
            .write_bits(u64::from(padding), free)
            .map_err(|e| ErrorKind::bits("packet padding", e))?;
        Ok(self.bits.finish())
    }
}

/// Byte buffers kept for reuse by a writer that builds payloads of much
/// the same sizes over and over (a rewrite's packets and entity messages):
/// it takes its buffers here and gives them back, instead of allocating
/// and freeing one per message. A large buffer freed at the top of the
/// heap is returned to the system, and the next one faulted in again,
/// page by page.
#[derive(Debug, Default)]
pub(crate) struct SpareBuffers(Vec<Vec<u8>>);

impl SpareBuffers {
    /// Buffers kept at most; more given back are freed.
    const KEPT: usize = 16;

    /// An empty buffer with room for `capacity` bytes: the smallest kept
    /// one that has the room, else the largest kept (grown), else a new
    /// one.
    pub(crate) fn take(&mut self, capacity: usize) -> Vec<u8> {
        let fits = (0..self.0.len())
            .filter(|&i| self.0.get(i).is_some_and(|b| b.capacity() >= capacity))
            .min_by_key(|&i| self.0.get(i).map_or(usize::MAX, Vec::capacity));
        let pick = fits
            .or_else(|| (0..self.0.len()).max_by_key(|&i| self.0.get(i).map_or(0, Vec::capacity)));
        let mut buffer = match pick {
            Some(i) => self.0.swap_remove(i),
            None => Vec::new(),
        };
        buffer.clear();
        buffer.reserve(capacity);
        buffer
    }

    /// Keeps `buffer` for a later [`SpareBuffers::take`].
    /// When `KEPT` are kept already, the smallest of them and `buffer`
    /// is freed.
    pub(crate) fn give(&mut self, buffer: Vec<u8>) {
        if buffer.capacity() == 0 {
            return;
        }
        if self.0.len() < Self::KEPT {
            self.0.push(buffer);
            return;
        }
        let smallest = (0..self.0.len()).min_by_key(|&i| self.0.get(i).map_or(0, Vec::capacity));
        if let Some(kept) = smallest.and_then(|i| self.0.get_mut(i)) {
            if kept.capacity() < buffer.capacity() {
                *kept = buffer;
            }
        }
    }
}

/// Encodes a whole packet from its messages.
pub fn encode_packet<'m, I>(messages: I) -> Result<Vec<u8>, ErrorKind>
where
    I: IntoIterator<Item = &'m PacketMessage<'m>>,
{
    let mut w = PacketWriter::new();
    for m in messages {
        w.push(m.id, &m.body)?;
    }
    Ok(w.finish())
}

/// The payload of a `DEM_Packet` or `DEM_SignonPacket` frame: the packet
/// bitstream as field 3 (`data`) of a `CDemoPacket`.
pub fn encode_demo_packet(data: Vec<u8>) -> Vec<u8> {
    pb::CDemoPacket { data: Some(data) }.encode_to_vec()
}

/// Splits a packet bitstream into its messages (the reader's framing, with
/// the same limits); after the last message, [`PacketMessages::padding`]
/// tells what was left.
#[derive(Debug, Clone)]
pub struct PacketMessages<'a> {
    reader: BitReader<'a>,
    failed: bool,
}

impl<'a> PacketMessages<'a> {
    /// Starts at the first message of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        PacketMessages {
            reader: BitReader::new(data),
            failed: false,
        }
    }

    /// The bits left after the messages (fewer than eight once the
    /// iterator is done) and their value, least significant bit first.
    pub fn padding(&self) -> (u64, u64) {
        let left = self.reader.bits_remaining();
        let mut r = self.reader.clone();
        let value = r.read_bits(left.min(64) as u32).unwrap_or(0);
        (left, value)
    }

    fn read(&mut self) -> Result<PacketMessage<'a>, ErrorKind> {
        let r = &mut self.reader;
        let bits = |e| ErrorKind::bits("packet message header", e);
        let id = r.read_ubitvar().map_err(bits)?;
        let size = r.read_varuint32().map_err(bits)? as usize;
        if size > MAX_MESSAGE_SIZE {
            return Err(ErrorKind::LimitExceeded {
                what: "packet message size",
                value: size as u64,
                limit: MAX_MESSAGE_SIZE as u64,
            });
        }
        if r.bits_remaining() < size as u64 * 8 {
            return Err(ErrorKind::Truncated {
                what: "packet message body",
                needed: size as u64,
                available: r.bits_remaining() / 8,
            });
        }
        let body = |e| ErrorKind::bits("packet message body", e);
        let body = match r.read_bytes_aligned(size).map_err(body)? {
            Some(slice) => Cow::Borrowed(slice),
            None => Cow::Owned(r.read_bytes(size).map_err(body)?),
        };
        Ok(PacketMessage { id, body })
    }
}

impl<'a> Iterator for PacketMessages<'a> {
    type Item = Result<PacketMessage<'a>, ErrorKind>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.reader.bits_remaining() < 8 {
            return None;
        }
        let result = self.read();
        self.failed = result.is_err();
        Some(result)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    /// A buffer given back is taken again: the smallest that has the room
    /// asked for, else the largest; at most `KEPT` are kept, the largest.
    #[test]
    fn spare_buffers_are_taken_by_size() {
        let mut spare = SpareBuffers::default();
        spare.give(Vec::with_capacity(100));
        spare.give(Vec::with_capacity(10_000));
        spare.give(Vec::with_capacity(1_000));
        spare.give(Vec::new());
        let b = spare.take(500);
        assert!(b.is_empty() && (1_000..10_000).contains(&b.capacity()));
        let c = spare.take(50_000);
        assert!(c.capacity() >= 50_000);
        assert_eq!(spare.0.len(), 1);
        for size in 1..=(SpareBuffers::KEPT + 4) {
            spare.give(Vec::with_capacity(size * 1_000));
        }
        assert_eq!(spare.0.len(), SpareBuffers::KEPT);
        let smallest = spare.0.iter().map(Vec::capacity).min().unwrap_or(0);
        assert!(smallest >= 5_000, "the smallest were freed: {smallest}");
    }

    #[test]
    fn every_ubitvar_width_round_trips() {
        let bodies: Vec<(u32, Vec<u8>)> = [0u32, 15, 16, 255, 256, 4095, 4096, 1 << 30]
            .iter()
            .enumerate()
            .map(|(i, &id)| (id, vec![i as u8; i * 40]))
            .collect();
        let mut w = PacketWriter::new();
        for (id, body) in &bodies {
            w.push(*id, body).unwrap();
        }
        assert_eq!(w.len(), bodies.len());
        let data = w.finish();
        let mut it = PacketMessages::new(&data);
        let read: Vec<_> = it.by_ref().map(Result::unwrap).collect();
        assert_eq!(read.len(), bodies.len());
        for (m, (id, body)) in read.iter().zip(&bodies) {
            assert_eq!((m.id, &*m.body), (*id, &body[..]));
        }
        let (left, value) = it.padding();
        assert!(left < 8);
        assert_eq!(value, 0);
        assert_eq!(encode_packet(&read).unwrap(), data);

        // Non-zero padding survives, and too wide a padding is refused.
        let mut w = PacketWriter::new();
        w.push(4, &[0x08, 0x2a]).unwrap(); // 6 + 8 + 16 bits: 2 free
        let data = w.clone().finish_with_padding(0b10).unwrap();
        let mut it = PacketMessages::new(&data);
        assert_eq!(it.by_ref().count(), 1);
        assert_eq!(it.padding(), (2, 0b10));
        assert!(w.finish_with_padding(0b100).is_err());
    }

    #[test]
    fn truncated_and_oversized_messages_are_errors() {
        let mut w = PacketWriter::new();
        w.push(7, &[1, 2, 3, 4, 5, 6]).unwrap();
        let mut data = w.finish();
        data.truncate(data.len() - 2);
        let err = PacketMessages::new(&data).next().unwrap().unwrap_err();
        assert!(matches!(err, ErrorKind::Truncated { .. }));
        let big = vec![0u8; MAX_MESSAGE_SIZE + 1];
        let err = PacketWriter::new().push(1, &big).unwrap_err();
        assert!(matches!(err, ErrorKind::LimitExceeded { .. }));
    }
}
