//! Writing a Source 2 demo: the container, and the entry point of the
//! writer (the inverse of [`crate::container`]).
//!
//! # The writer, layer by layer
//!
//! A demo is written from the outside in, each layer by the module that
//! inverts its reader:
//!
//! 1. the file and its frames: [`DemoWriter`] (this module);
//! 2. each frame's payload, a `demo.proto` message (`CDemoFileHeader`,
//!    `CDemoSendTables`, `CDemoClassInfo`, `CDemoPacket`, ...):
//!    [`DemoWriter::write_message`] encodes one with its generated type, and
//!    [`crate::message_writer`] writes the send tables, the class info and
//!    the game-event list from gamewire's models and re-encodes any message
//!    by id;
//! 3. a packet's bitstream of messages (`DEM_Packet`, `DEM_SignonPacket`,
//!    the packet of `DEM_FullPacket`): [`crate::packet_writer`], which
//!    splits one into its messages and writes them back
//!    ([`DemoWriter::write_packet`] frames one);
//! 4. inside the messages, the bitstreams the reader decodes bit by bit:
//!    string-table entries ([`crate::stringtable_writer`]).
//!
//! A tool that changes a demo reads it frame by frame
//! ([`crate::container::FrameReader`]), decodes only what it changes, and
//! copies the rest: a frame as it was stored ([`DemoWriter::write_raw_frame`]),
//! a packet message as its original body ([`crate::packet_writer::PacketWriter::push`]).
//! Every layer re-encodes the corpus demos byte for byte, but for the few
//! protobuf messages that carry fields the published `.proto` files do not
//! know ([`crate::message_writer::reencodes_exactly`] tells them apart, and
//! `docs/formats/source2-demo.md`, "Writing demos", has the figures).
//!
//! # The container
//!
//! The layout is the one described in `docs/formats/source2-demo.md` ("File
//! layout" and "Frames"):
//!
//! ```text
//! "PBDEMS2\0"                 8 bytes of magic
//! u32 little-endian           byte offset of the DEM_FileInfo frame
//! u32 little-endian           byte offset of the DEM_SpawnGroups frame
//! frames                      from byte 16 to the end of the file
//! ```
//!
//! and each frame is three protobuf varints and a payload:
//!
//! ```text
//! varint command   EDemoCommands, plus 64 (DEM_IsCompressed) when snappy-compressed
//! varint tick      2^32-1 for the signon (tick -1)
//! varint size      payload bytes as stored
//! payload          a demo.proto message; one raw snappy block when compressed
//! ```
//!
//! [`DemoWriter`] writes the magic and room for the two offsets, then frames
//! one after the other; it remembers where it wrote the last `DEM_FileInfo`
//! and `DEM_SpawnGroups` frames and fills the two offsets in when it is
//! finished (zero for a frame that was not written, as in a broadcast turned
//! into a demo). A frame is given with its payload decompressed and a flag
//! saying whether to compress it ([`DemoWriter::write_frame`]), as a decoded
//! message ([`DemoWriter::write_message`], [`DemoWriter::write_packet`],
//! [`DemoWriter::write_file_info`]), or as the bytes to store
//! ([`DemoWriter::write_raw_frame`]).
//!
//! Snappy is deterministic but not unique: the block this writer stores for
//! a compressed frame decompresses to the same payload as the original, and
//! is usually, not always, the same bytes as the game's own encoder wrote.
//!
//! A demo of three frames, read back:
//!
//! ```
//! use gamewire_source2::container::{DemoCommand, FrameReader};
//! use gamewire_source2::container_writer::DemoWriter;
//!
//! let mut writer = DemoWriter::new(std::io::Cursor::new(Vec::new()))?;
//! writer.write_frame(DemoCommand::SyncTick, -1, false, &[])?;
//! writer.write_frame(DemoCommand::Packet, 1, true, b"some packet bytes, some packet bytes")?;
//! writer.write_frame(DemoCommand::Stop, 1, false, &[])?;
//! let demo = writer.finish()?.into_inner();
//!
//! let mut reader = FrameReader::new(&demo)?;
//! let sync = reader.next_frame()?.expect("a frame");
//! assert_eq!((sync.command, sync.tick), (DemoCommand::SyncTick, -1));
//! let packet = reader.next_frame()?.expect("a frame");
//! assert!(packet.compressed);
//! assert_eq!(&*packet.payload, b"some packet bytes, some packet bytes");
//! # Ok::<(), gamewire_source2::DemoError>(())
//! ```
//!
//! # Example: the first second of a demo
//!
//! A corpus demo's signon and its first 64 ticks, written as a demo of
//! their own: the signon's frames copied as decoded, each packet split into
//! its messages and written again, then `DEM_Stop` and a `CDemoFileInfo`
//! that says how long the new demo is. [`crate::DemoParser`] reads it back,
//! entities and all.
//!
//! ```
//! use std::io::Cursor;
//!
//! use gamewire_source2::container::{DemoCommand, FrameReader};
//! use gamewire_source2::container_writer::DemoWriter;
//! use gamewire_source2::packet_writer::{PacketMessages, PacketWriter};
//! use gamewire_source2::{DemoParser, NoVisitor};
//! use prost::Message;
//! use source2_demo_protobufs as pb;
//!
//! let original = std::fs::read(gamewire_corpus::path("cs2/14065.dem"))?;
//! let mut reader = FrameReader::new(&original)?;
//! let mut writer = DemoWriter::new(Cursor::new(Vec::new()))?;
//! let mut last_tick = 0;
//! while let Some(frame) = reader.next_frame()? {
//!     if frame.tick > 64 {
//!         break;
//!     }
//!     match frame.command {
//!         DemoCommand::Packet => {
//!             let packet = pb::CDemoPacket::decode(&*frame.payload)?;
//!             let mut messages = PacketWriter::new();
//!             for m in PacketMessages::new(packet.data.as_deref().unwrap_or_default()) {
//!                 let m = m?;
//!                 messages.push(m.id, &m.body)?;
//!             }
//!             writer.write_packet(DemoCommand::Packet, frame.tick, frame.compressed, messages)?;
//!         }
//!         // Written at the end, for the new length.
//!         DemoCommand::Stop | DemoCommand::FileInfo => {}
//!         _ => writer.write_decoded_frame(&frame)?,
//!     }
//!     last_tick = last_tick.max(frame.tick);
//! }
//! writer.write_frame(DemoCommand::Stop, last_tick, false, &[])?;
//! let info = pb::CDemoFileInfo {
//!     playback_ticks: Some(last_tick),
//!     playback_frames: Some(writer.frames_written() as i32),
//!     playback_time: Some(last_tick as f32 / 64.0),
//!     ..Default::default()
//! };
//! writer.write_file_info(last_tick, &info)?;
//! let demo = writer.finish()?.into_inner();
//!
//! let mut parser = DemoParser::new(&demo)?;
//! parser.run(&mut NoVisitor)?;
//! assert_eq!(parser.state.tick, last_tick);
//! assert!(!parser.state.entities.is_empty());
//! assert_eq!(parser.state.file_info.as_ref().and_then(|i| i.playback_ticks), Some(last_tick));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{Seek, SeekFrom, Write};

use prost::Message;
use source2_demo_protobufs as pb;

use crate::container::{DemoCommand, Frame, DEM_IS_COMPRESSED, HEADER_LEN, MAGIC_SOURCE2};
use crate::error::{DemoError, ErrorKind, Location};

impl DemoCommand {
    /// The raw `EDemoCommands` value, without the compression flag (the
    /// inverse of [`DemoCommand::from_raw`]).
    pub fn to_raw(self) -> u32 {
        use DemoCommand::*;
        match self {
            Stop => 0,
            FileHeader => 1,
            FileInfo => 2,
            SyncTick => 3,
            SendTables => 4,
            ClassInfo => 5,
            StringTables => 6,
            Packet => 7,
            SignonPacket => 8,
            ConsoleCmd => 9,
            CustomData => 10,
            CustomDataCallbacks => 11,
            UserCmd => 12,
            FullPacket => 13,
            SaveGame => 14,
            SpawnGroups => 15,
            AnimationData => 16,
            AnimationHeader => 17,
            Recovery => 18,
            Unknown(n) => n,
        }
    }
}

/// Appends a protobuf-style varint (the inverse of the frame reader's
/// varint).
pub fn write_varint32(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Appends a frame header: the command (with 64 added when `compressed`),
/// the tick (`-1` is written as 2^32-1) and the stored payload size.
///
/// Fails when the command already carries the compression flag (it would
/// be read back as another command) or the size does not fit 32 bits.
pub fn write_frame_header(
    out: &mut Vec<u8>,
    command: DemoCommand,
    compressed: bool,
    tick: i32,
    size: usize,
) -> Result<(), ErrorKind> {
    let raw = command.to_raw();
    if raw & DEM_IS_COMPRESSED != 0 {
        return Err(ErrorKind::Unwritable {
            what: "frame command",
            reason: format!("command {raw} has the compression bit (64) set"),
        });
    }
    let size = u32::try_from(size).map_err(|_| ErrorKind::LimitExceeded {
        what: "frame payload size",
        value: size as u64,
        limit: u64::from(u32::MAX),
    })?;
    let flag = if compressed { DEM_IS_COMPRESSED } else { 0 };
    write_varint32(out, raw | flag);
    write_varint32(out, tick as u32);
    write_varint32(out, size);
    Ok(())
}

/// Compresses a frame payload into one raw snappy block (the block format,
/// as the reader expects; `out` is replaced).
pub fn compress_payload(payload: &[u8], out: &mut Vec<u8>) -> Result<(), ErrorKind> {
    out.clear();
    let written = compress_into(&mut snap::raw::Encoder::new(), payload, out)?;
    out.truncate(written);
    Ok(())
}

/// Compresses a frame payload into one raw snappy block at the start of
/// `out`, which is grown to the longest block the payload can take (and
/// kept so: a writer reuses it frame after frame without clearing it);
/// the block's length.
fn compress_into(
    encoder: &mut snap::raw::Encoder,
    payload: &[u8],
    out: &mut Vec<u8>,
) -> Result<usize, ErrorKind> {
    let longest = snap::raw::max_compress_len(payload.len());
    if longest == 0 && !payload.is_empty() {
        return Err(ErrorKind::LimitExceeded {
            what: "frame payload size (snappy)",
            value: payload.len() as u64,
            limit: u64::from(u32::MAX),
        });
    }
    if out.len() < longest {
        out.resize(longest, 0);
    }
    encoder
        .compress(payload, out)
        .map_err(|e| ErrorKind::Snappy {
            what: "frame payload (compressing)",
            message: e.to_string(),
        })
}

/// The payload of a `DEM_FileInfo` frame: `CDemoFileInfo` in protobuf
/// encoding.
pub fn encode_file_info(info: &pb::CDemoFileInfo) -> Vec<u8> {
    info.encode_to_vec()
}

/// The two offsets of the file header (bytes 8 to 15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HeaderOffsets {
    /// Byte offset of the `DEM_FileInfo` frame (0: none).
    pub file_info: u32,
    /// Byte offset of the `DEM_SpawnGroups` frame (0: none).
    pub spawn_groups: u32,
}

impl HeaderOffsets {
    /// The offsets stored in a demo's first sixteen bytes; `None` when
    /// the data is shorter.
    pub fn read(data: &[u8]) -> Option<HeaderOffsets> {
        let word = |at: usize| -> Option<u32> {
            let bytes: [u8; 4] = data.get(at..at + 4)?.try_into().ok()?;
            Some(u32::from_le_bytes(bytes))
        };
        Some(HeaderOffsets {
            file_info: word(8)?,
            spawn_groups: word(12)?,
        })
    }

    fn bytes(self) -> [u8; 8] {
        let mut out = [0; 8];
        out[..4].copy_from_slice(&self.file_info.to_le_bytes());
        out[4..].copy_from_slice(&self.spawn_groups.to_le_bytes());
        out
    }
}

/// Writes a Source 2 demo, frame by frame, into any seekable output (a
/// `File`, a `Cursor<Vec<u8>>`). See the module documentation.
#[derive(Debug)]
pub struct DemoWriter<W: Write + Seek> {
    out: W,
    /// Where the demo starts in `out`.
    start: u64,
    /// Bytes written since `start`.
    pos: u64,
    frames: u64,
    last_tick: i32,
    offsets: HeaderOffsets,
    /// Offsets set by [`DemoWriter::set_header_offsets`], used instead of
    /// the ones found.
    forced: Option<HeaderOffsets>,
    header: Vec<u8>,
    /// The snappy block of the frame being written, at the start of a
    /// buffer kept for every frame (see [`compress_into`]).
    compressed: Vec<u8>,
    /// Reused from frame to frame, as snappy advises.
    encoder: snap::raw::Encoder,
}

/// An output error as a [`ErrorKind::Unwritable`].
fn io(what: &'static str, e: std::io::Error) -> ErrorKind {
    ErrorKind::Unwritable {
        what,
        reason: e.to_string(),
    }
}

impl<W: Write + Seek> DemoWriter<W> {
    /// Starts a demo at the current position of `out`: writes the magic and
    /// eight zero bytes for the offsets.
    pub fn new(mut out: W) -> Result<Self, DemoError> {
        let location = Location {
            byte_offset: 0,
            frame: 0,
            tick: -1,
        };
        let start = out.stream_position().map_err(|e| DemoError {
            kind: io("demo output", e),
            location,
        })?;
        let mut head = [0u8; HEADER_LEN];
        head[..8].copy_from_slice(MAGIC_SOURCE2);
        out.write_all(&head).map_err(|e| DemoError {
            kind: io("file header", e),
            location,
        })?;
        Ok(DemoWriter {
            out,
            start,
            pos: HEADER_LEN as u64,
            frames: 0,
            last_tick: -1,
            offsets: HeaderOffsets::default(),
            forced: None,
            header: Vec::with_capacity(16),
            compressed: Vec::new(),
            encoder: snap::raw::Encoder::new(),
        })
    }

    /// Byte offset (from the start of the demo) of the next frame.
    pub fn offset(&self) -> u64 {
        self.pos
    }

    /// Frames written so far.
    pub fn frames_written(&self) -> u64 {
        self.frames
    }

    /// Uses these header offsets instead of the positions of the last
    /// `DEM_FileInfo` and `DEM_SpawnGroups` frames written.
    pub fn set_header_offsets(&mut self, offsets: HeaderOffsets) {
        self.forced = Some(offsets);
    }

    fn location(&self, tick: i32) -> Location {
        Location {
            byte_offset: self.pos,
            frame: self.frames,
            tick,
        }
    }

    /// Writes a frame whose payload is given decompressed; it is stored
    /// snappy-compressed when `compressed`.
    pub fn write_frame(
        &mut self,
        command: DemoCommand,
        tick: i32,
        compressed: bool,
        payload: &[u8],
    ) -> Result<(), DemoError> {
        if !compressed {
            return self.write_raw_frame(command, tick, false, payload);
        }
        let mut stored = std::mem::take(&mut self.compressed);
        let result = compress_into(&mut self.encoder, payload, &mut stored)
            .map_err(|kind| DemoError {
                kind,
                location: self.location(tick),
            })
            .and_then(|n| {
                let block = stored.get(..n).unwrap_or(&[]);
                self.write_raw_frame(command, tick, true, block)
            });
        self.compressed = stored;
        result
    }

    /// Writes a frame as [`crate::container::FrameReader`] returned it: its
    /// command, tick and decompressed payload, compressed again when it was
    /// compressed. (A frame read with `next_frame_if` and not wanted has an
    /// empty payload: copy such frames with [`DemoWriter::write_raw_frame`].)
    pub fn write_decoded_frame(&mut self, frame: &Frame<'_>) -> Result<(), DemoError> {
        self.write_frame(frame.command, frame.tick, frame.compressed, &frame.payload)
    }

    /// Writes a frame whose payload is given as it is stored: `raw` must
    /// already be a snappy block when `compressed` (a frame copied from
    /// another demo keeps its exact bytes this way).
    pub fn write_raw_frame(
        &mut self,
        command: DemoCommand,
        tick: i32,
        compressed: bool,
        raw: &[u8],
    ) -> Result<(), DemoError> {
        let location = self.location(tick);
        let err = |kind| DemoError { kind, location };
        let offset = u32::try_from(self.pos).map_err(|_| {
            err(ErrorKind::LimitExceeded {
                what: "frame offset",
                value: self.pos,
                limit: u64::from(u32::MAX),
            })
        })?;
        self.header.clear();
        write_frame_header(&mut self.header, command, compressed, tick, raw.len()).map_err(err)?;
        self.out
            .write_all(&self.header)
            .and_then(|()| self.out.write_all(raw))
            .map_err(|e| err(io("frame", e)))?;
        match command {
            DemoCommand::FileInfo => self.offsets.file_info = offset,
            DemoCommand::SpawnGroups => self.offsets.spawn_groups = offset,
            _ => {}
        }
        self.pos += (self.header.len() + raw.len()) as u64;
        self.frames += 1;
        self.last_tick = tick;
        Ok(())
    }

    /// Writes a `DEM_FileInfo` frame holding `info` (uncompressed, as the
    /// games write it).
    pub fn write_file_info(
        &mut self,
        tick: i32,
        info: &pb::CDemoFileInfo,
    ) -> Result<(), DemoError> {
        self.write_frame(DemoCommand::FileInfo, tick, false, &encode_file_info(info))
    }

    /// Writes a frame whose payload is `message`, a decoded `demo.proto`
    /// message (`CDemoFileHeader`, `CDemoClassInfo`, `CDemoStringTables`,
    /// ...), encoded with its generated type; stored snappy-compressed when
    /// `compressed`.
    pub fn write_message<M: Message>(
        &mut self,
        command: DemoCommand,
        tick: i32,
        compressed: bool,
        message: &M,
    ) -> Result<(), DemoError> {
        self.write_frame(command, tick, compressed, &message.encode_to_vec())
    }

    /// Writes a `DEM_Packet` or `DEM_SignonPacket` frame holding the
    /// messages of `packet` (the bitstream wrapped in `CDemoPacket`, see
    /// [`crate::packet_writer`]); stored snappy-compressed when
    /// `compressed`. Fails for any other command.
    pub fn write_packet(
        &mut self,
        command: DemoCommand,
        tick: i32,
        compressed: bool,
        packet: crate::packet_writer::PacketWriter,
    ) -> Result<(), DemoError> {
        if !matches!(command, DemoCommand::Packet | DemoCommand::SignonPacket) {
            return Err(DemoError {
                kind: ErrorKind::Unwritable {
                    what: "packet frame",
                    reason: format!("{} does not hold a packet", command.name()),
                },
                location: self.location(tick),
            });
        }
        let payload = crate::packet_writer::encode_demo_packet(packet.finish());
        self.write_frame(command, tick, compressed, &payload)
    }

    /// The header offsets that [`DemoWriter::finish`] will write.
    pub fn header_offsets(&self) -> HeaderOffsets {
        self.forced.unwrap_or(self.offsets)
    }

    /// Fills in the two header offsets, flushes, and hands the output back,
    /// positioned at the end of the demo.
    pub fn finish(mut self) -> Result<W, DemoError> {
        let location = self.location(self.last_tick);
        let err = |e| DemoError {
            kind: io("file header offsets", e),
            location,
        };
        let bytes = self.header_offsets().bytes();
        self.out
            .seek(SeekFrom::Start(self.start + 8))
            .and_then(|_| self.out.write_all(&bytes))
            .and_then(|()| self.out.seek(SeekFrom::Start(self.start + self.pos)))
            .and_then(|_| self.out.flush())
            .map_err(err)?;
        Ok(self.out)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::container::FrameReader;

    #[test]
    fn commands_round_trip() {
        for raw in 0..40 {
            assert_eq!(DemoCommand::from_raw(raw).to_raw(), raw);
        }
    }

    #[test]
    fn header_varints_match_the_documented_example() {
        let mut out = Vec::new();
        write_frame_header(&mut out, DemoCommand::FileHeader, false, -1, 203).unwrap();
        assert_eq!(out, [0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0xcb, 0x01]);
        out.clear();
        write_frame_header(&mut out, DemoCommand::SignonPacket, true, -1, 10276).unwrap();
        assert_eq!(out, [0x48, 0xff, 0xff, 0xff, 0xff, 0x0f, 0xa4, 0x50]);
        let bad = write_frame_header(&mut out, DemoCommand::Unknown(72), false, 0, 0);
        assert!(matches!(bad, Err(ErrorKind::Unwritable { .. })));
    }

    #[test]
    fn output_failures_are_located_errors() {
        let mut room = [0u8; 20];
        let mut w = DemoWriter::new(std::io::Cursor::new(&mut room[..])).unwrap();
        let e = w
            .write_frame(DemoCommand::Packet, 7, false, b"ten bytes!")
            .unwrap_err();
        assert!(matches!(
            e.kind,
            ErrorKind::Unwritable { what: "frame", .. }
        ));
        assert_eq!(
            (e.location.byte_offset, e.location.frame, e.location.tick),
            (16, 0, 7)
        );
        let e = DemoWriter::new(std::io::Cursor::new(&mut room[..4])).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Unwritable { .. }));
    }

    #[test]
    fn messages_and_packets_are_framed() {
        let mut w = DemoWriter::new(std::io::Cursor::new(Vec::new())).unwrap();
        let header = pb::CDemoFileHeader {
            demo_file_stamp: "PBDEMS2\0".into(),
            map_name: Some("de_nuke".into()),
            ..Default::default()
        };
        w.write_message(DemoCommand::FileHeader, -1, false, &header)
            .unwrap();
        let mut packet = crate::packet_writer::PacketWriter::new();
        packet.push(4, &[0x08, 0x2a]).unwrap();
        w.write_packet(DemoCommand::Packet, 3, true, packet.clone())
            .unwrap();
        let e = w
            .write_packet(DemoCommand::ClassInfo, 3, false, packet.clone())
            .unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Unwritable { .. }), "{e}");
        assert_eq!(w.frames_written(), 2);
        let data = w.finish().unwrap().into_inner();

        let mut r = FrameReader::new(&data).unwrap();
        let f = r.next_frame().unwrap().unwrap();
        assert_eq!(pb::CDemoFileHeader::decode(&*f.payload).unwrap(), header);
        let f = r.next_frame().unwrap().unwrap();
        assert_eq!(
            (f.command, f.tick, f.compressed),
            (DemoCommand::Packet, 3, true)
        );
        let demo_packet = pb::CDemoPacket::decode(&*f.payload).unwrap();
        assert_eq!(demo_packet.data, Some(packet.finish()));
        assert!(r.next_frame().unwrap().is_none());
    }

    #[test]
    fn offsets_point_at_the_frames() {
        let mut w = DemoWriter::new(std::io::Cursor::new(Vec::new())).unwrap();
        w.write_frame(DemoCommand::SyncTick, -1, false, &[])
            .unwrap();
        w.write_frame(DemoCommand::Stop, 3, false, &[]).unwrap();
        let spawn = w.offset();
        w.write_frame(DemoCommand::SpawnGroups, 3, true, b"groups groups groups")
            .unwrap();
        let info_at = w.offset();
        let info = pb::CDemoFileInfo {
            playback_ticks: Some(3),
            playback_frames: Some(2),
            ..Default::default()
        };
        w.write_file_info(3, &info).unwrap();
        let data = w.finish().unwrap().into_inner();
        let offsets = HeaderOffsets::read(&data).unwrap();
        assert_eq!(u64::from(offsets.spawn_groups), spawn);
        assert_eq!(u64::from(offsets.file_info), info_at);
        let mut r = FrameReader::new(&data).unwrap();
        let mut last = None;
        while let Some(f) = r.next_frame().unwrap() {
            if f.command == DemoCommand::FileInfo {
                assert_eq!(f.offset, info_at);
                last = Some(pb::CDemoFileInfo::decode(&*f.payload).unwrap());
            }
        }
        assert_eq!(last, Some(info));

        // Frames as read, written again: the same demo.
        let mut again = DemoWriter::new(std::io::Cursor::new(Vec::new())).unwrap();
        let mut r = FrameReader::new(&data).unwrap();
        while let Some(f) = r.next_frame().unwrap() {
            again.write_decoded_frame(&f).unwrap();
        }
        assert_eq!(again.finish().unwrap().into_inner(), data);
    }
}
