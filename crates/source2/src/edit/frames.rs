//! Frames read from a stream: the edit pipelines' input.
//!
//! A demo is the sixteen bytes of its file header (`PBDEMS2\0` and two
//! little-endian 32-bit offsets) and then frames, each
//!
//! ```text
//! varint command   EDemoCommands, plus 64 when the payload is snappy-compressed
//! varint tick      2^32-1 before the first tick
//! varint size      bytes of the stored payload
//! payload          a protobuf message chosen by the command (a raw snappy block
//!                  when compressed)
//! ```
//!
//! (see [`crate::container`]). [`FrameStream`] reads them from any
//! [`std::io::Read`], one at a time, into two buffers it keeps and reuses
//! (the stored payload and the decompressed one): memory grows with the
//! largest frame, never with the length of the demo. The limits are the
//! in-memory reader's: a stored payload larger than
//! [`crate::container::MAX_DECOMPRESSED_FRAME`] is
//! refused before anything is allocated for it, and a snappy block is
//! checked against its claimed size before it is decompressed.
//!
//! A stream that ends between two frames ends cleanly (`Ok(None)`); one
//! that ends inside a frame is an [`ErrorKind::Truncated`] error located at
//! the frame (its byte offset, index and the tick read so far), which
//! [`DemoError::is_truncation`] recognizes.

use std::borrow::Cow;
use std::io::{BufReader, Read};

use crate::container::{
    snappy_into, DemoCommand, Frame, DEM_IS_COMPRESSED, HEADER_LEN, MAGIC_SOURCE1, MAGIC_SOURCE2,
    MAX_DECOMPRESSED_FRAME,
};
use crate::error::{DemoError, ErrorKind, Location};

/// Bytes read from the input at a time.
const READ_BUFFER: usize = 64 << 10;

/// One frame read by [`FrameStream::next_frame`]: the frame (its payload
/// decompressed) and its payload as stored.
#[derive(Debug)]
pub struct StreamFrame<'a> {
    /// The frame; its payload borrows the stream's buffer.
    pub frame: Frame<'a>,
    /// The payload as stored in the input (the snappy block when
    /// compressed).
    pub stored: &'a [u8],
}

/// Reads the frames of a demo from a [`Read`], through bounded buffers.
#[derive(Debug)]
pub struct FrameStream<R: Read> {
    input: BufReader<R>,
    /// The sixteen bytes before the first frame.
    header: [u8; HEADER_LEN],
    /// Byte offset of the next frame.
    offset: u64,
    /// Index of the next frame.
    index: u64,
    /// Tick of the last frame header read.
    last_tick: i32,
    /// The stored payload of the current frame.
    stored: Vec<u8>,
    /// The decompressed payload of the current frame.
    payload: Vec<u8>,
}

/// Why a read stopped.
enum ReadStop {
    /// The input ended.
    End,
    /// A varint longer than five bytes.
    TooLong,
    /// Another I/O error.
    Io(std::io::Error),
}

/// Reads until `buf` is full or the input ends; how many bytes were read.
fn read_full<R: Read>(input: &mut R, buf: &mut [u8]) -> Result<usize, std::io::Error> {
    let mut filled = 0;
    while filled < buf.len() {
        let Some(room) = buf.get_mut(filled..) else {
            break;
        };
        match input.read(room) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

impl<R: Read> FrameStream<R> {
    /// Reads and checks the file header (the magic); the stream is then at
    /// the first frame.
    pub fn new(input: R) -> Result<Self, DemoError> {
        let location = Location {
            byte_offset: 0,
            frame: 0,
            tick: -1,
        };
        let mut input = BufReader::with_capacity(READ_BUFFER, input);
        let mut header = [0u8; HEADER_LEN];
        let got = read_full(&mut input, &mut header).map_err(|e| DemoError {
            kind: ErrorKind::Unreadable {
                what: "file header",
                reason: e.to_string(),
            },
            location,
        })?;
        let head = header.get(..got.min(8)).unwrap_or_default();
        if head == MAGIC_SOURCE1.as_slice() {
            return Err(DemoError {
                kind: ErrorKind::Source1Demo,
                location,
            });
        }
        if got < 8 || head != MAGIC_SOURCE2.as_slice() {
            return Err(DemoError {
                kind: ErrorKind::BadMagic {
                    found: head.to_vec(),
                },
                location,
            });
        }
        if got < HEADER_LEN {
            return Err(DemoError {
                kind: ErrorKind::Truncated {
                    what: "file header",
                    needed: HEADER_LEN as u64,
                    available: got as u64,
                },
                location,
            });
        }
        Ok(FrameStream {
            input,
            header,
            offset: HEADER_LEN as u64,
            index: 0,
            last_tick: -1,
            stored: Vec::new(),
            payload: Vec::new(),
        })
    }

    /// The sixteen bytes before the first frame (magic and offsets).
    pub fn file_header(&self) -> &[u8; HEADER_LEN] {
        &self.header
    }

    /// Byte offset of the next frame.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Index of the next frame.
    pub fn frame_index(&self) -> u64 {
        self.index
    }

    /// Tick of the last frame header read (`-1` before the first).
    pub fn last_tick(&self) -> i32 {
        self.last_tick
    }

    /// Bytes the stream holds in its buffers (their capacity): bounded by
    /// the largest frame, whatever the length of the demo.
    pub fn buffered_bytes(&self) -> usize {
        self.stored.capacity() + self.payload.capacity() + READ_BUFFER
    }

    fn location(&self) -> Location {
        Location {
            byte_offset: self.offset,
            frame: self.index,
            tick: self.last_tick,
        }
    }

    /// One varint of the frame header; `Ok(None)` when the input ends
    /// before its first byte.
    fn varint(&mut self, read: &mut u64) -> Result<Option<u32>, (ReadStop, &'static str)> {
        let mut value = 0u32;
        for i in 0..5 {
            let mut byte = [0u8; 1];
            match read_full(&mut self.input, &mut byte) {
                Ok(1) => {}
                Ok(_) if i == 0 => return Ok(None),
                Ok(_) => return Err((ReadStop::End, "frame header varint")),
                Err(e) => return Err((ReadStop::Io(e), "frame header")),
            }
            *read += 1;
            value |= u32::from(byte[0] & 0x7f) << (7 * i);
            if byte[0] & 0x80 == 0 {
                return Ok(Some(value));
            }
        }
        Err((ReadStop::TooLong, "frame header varint"))
    }

    fn header_error(&self, stop: ReadStop, what: &'static str) -> DemoError {
        let kind = match stop {
            ReadStop::TooLong => ErrorKind::BadVarint { what },
            ReadStop::End => ErrorKind::Truncated {
                what,
                needed: 1,
                available: 0,
            },
            ReadStop::Io(e) => ErrorKind::Unreadable {
                what,
                reason: e.to_string(),
            },
        };
        DemoError {
            kind,
            location: self.location(),
        }
    }

    /// The next frame, `None` at the clean end of the input (between two
    /// frames). Its payload is decompressed when it was stored compressed.
    pub fn next_frame(&mut self) -> Result<Option<StreamFrame<'_>>, DemoError> {
        let mut header_len = 0u64;
        let command = match self.varint(&mut header_len) {
            Ok(Some(c)) => c,
            Ok(None) => return Ok(None),
            Err((stop, what)) => return Err(self.header_error(stop, what)),
        };
        let mut field = |stream: &mut Self, what: &'static str| match stream.varint(&mut header_len)
        {
            Ok(Some(v)) => Ok(v),
            Ok(None) => Err(stream.header_error(ReadStop::End, what)),
            Err((stop, _)) => Err(stream.header_error(stop, what)),
        };
        let tick = field(self, "frame tick")? as i32;
        self.last_tick = tick;
        let size = field(self, "frame size")? as usize;
        if size > MAX_DECOMPRESSED_FRAME {
            return Err(DemoError {
                kind: ErrorKind::LimitExceeded {
                    what: "stored frame size",
                    value: size as u64,
                    limit: MAX_DECOMPRESSED_FRAME as u64,
                },
                location: self.location(),
            });
        }
        // Read through `take`: the buffer grows with the bytes that arrive,
        // not with the size claimed, so a cut file claiming a huge frame
        // allocates no more than it holds.
        self.stored.clear();
        let got = (&mut self.input)
            .take(size as u64)
            .read_to_end(&mut self.stored)
            .map_err(|e| DemoError {
                kind: ErrorKind::Unreadable {
                    what: "frame payload",
                    reason: e.to_string(),
                },
                location: self.location(),
            })?;
        if got < size {
            return Err(DemoError {
                kind: ErrorKind::Truncated {
                    what: "frame payload",
                    needed: size as u64,
                    available: got as u64,
                },
                location: self.location(),
            });
        }
        let compressed = command & DEM_IS_COMPRESSED != 0;
        let command = DemoCommand::from_raw(command & !DEM_IS_COMPRESSED);
        if compressed {
            snappy_into(
                &self.stored,
                "frame payload",
                "decompressed frame size",
                MAX_DECOMPRESSED_FRAME,
                &mut self.payload,
            )
            .map_err(|kind| DemoError {
                kind,
                location: Location {
                    byte_offset: self.offset,
                    frame: self.index,
                    tick,
                },
            })?;
        }
        let offset = self.offset;
        let index = self.index;
        self.offset += header_len + size as u64;
        self.index += 1;
        let payload: &[u8] = if compressed {
            &self.payload
        } else {
            &self.stored
        };
        Ok(Some(StreamFrame {
            frame: Frame {
                command,
                tick,
                compressed,
                offset,
                index,
                payload: Cow::Borrowed(payload),
            },
            stored: &self.stored,
        }))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::container_writer::DemoWriter;

    fn demo() -> Vec<u8> {
        let mut w = DemoWriter::new(std::io::Cursor::new(Vec::new())).unwrap();
        w.write_frame(DemoCommand::SyncTick, -1, false, &[])
            .unwrap();
        w.write_frame(DemoCommand::Packet, 3, true, &[7u8; 300])
            .unwrap();
        w.write_frame(DemoCommand::Stop, 3, false, &[]).unwrap();
        w.finish().unwrap().into_inner()
    }

    #[test]
    fn reads_what_the_memory_reader_reads() {
        let data = demo();
        let mut s = FrameStream::new(&data[..]).unwrap();
        let mut r = crate::container::FrameReader::new(&data).unwrap();
        while let Some(expected) = r.next_frame().unwrap() {
            let got = s.next_frame().unwrap().unwrap().frame;
            assert_eq!(
                (got.command, got.tick, got.compressed, got.offset, got.index),
                (
                    expected.command,
                    expected.tick,
                    expected.compressed,
                    expected.offset,
                    expected.index
                )
            );
            assert_eq!(got.payload, expected.payload);
        }
        assert!(s.next_frame().unwrap().is_none());
    }

    #[test]
    fn every_cut_is_a_located_truncation() {
        let data = demo();
        for len in HEADER_LEN..data.len() {
            let mut s = FrameStream::new(&data[..len]).unwrap();
            let mut frames = 0;
            let end = loop {
                match s.next_frame() {
                    Ok(Some(_)) => frames += 1,
                    Ok(None) => break None,
                    Err(e) => break Some(e),
                }
            };
            match end {
                // Between two frames: a clean end, caught by the caller
                // (no DEM_Stop).
                None => assert!(frames < 3),
                Some(e) => {
                    assert!(e.is_truncation(), "{len}: {e}");
                    assert_eq!(e.location.frame, frames);
                }
            }
        }
        for len in 0..HEADER_LEN {
            assert!(FrameStream::new(&data[..len]).is_err());
        }
    }

    #[test]
    fn a_huge_claimed_size_is_refused_without_allocating() {
        let mut data = demo();
        data.truncate(HEADER_LEN);
        data.extend([7, 1, 0xff, 0xff, 0xff, 0xff, 0x0f]);
        let mut s = FrameStream::new(&data[..]).unwrap();
        let e = s.next_frame().unwrap_err();
        assert!(matches!(e.kind, ErrorKind::LimitExceeded { .. }));
        data.truncate(HEADER_LEN);
        data.extend([7, 1, 0xff, 0xff, 0xff, 0x7f]);
        let mut s = FrameStream::new(&data[..]).unwrap();
        let e = s.next_frame().unwrap_err();
        assert!(e.is_truncation());
        assert!(s.buffered_bytes() < 1 << 20);
    }
}
