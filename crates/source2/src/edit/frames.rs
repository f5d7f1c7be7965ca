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
//! [`std::io::Read`], one at a time, through the stream decoder
//! ([`crate::stream::FrameDecoder`], the one frame decoder of a demo read
//! in pieces), which keeps two buffers and reuses them (the stored bytes
//! and the decompressed payload): memory grows with the largest frame,
//! never with the length of the demo. The limits are the decoder's: a
//! stored payload larger than [`crate::container::MAX_DECOMPRESSED_FRAME`]
//! is counted, not kept, and refused, and a snappy block is checked against
//! its claimed size before it is decompressed.
//!
//! A stream that ends between two frames ends cleanly (`Ok(None)`); one
//! that ends inside a frame is the in-memory reader's
//! [`ErrorKind::Truncated`] error located at the frame (its byte offset,
//! index and tick), which [`DemoError::is_truncation`] recognizes.

use std::io::Read;

use crate::container::{Frame, HEADER_LEN};
use crate::error::{DemoError, ErrorKind, Location};
use crate::stream::FrameDecoder;

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
    input: R,
    decoder: FrameDecoder,
    /// The sixteen bytes before the first frame.
    header: [u8; HEADER_LEN],
    /// The input has ended.
    ended: bool,
}

impl<R: Read> FrameStream<R> {
    /// Reads and checks the file header (the magic); the stream is then at
    /// the first frame.
    pub fn new(input: R) -> Result<Self, DemoError> {
        let mut stream = FrameStream {
            input,
            decoder: FrameDecoder::new(),
            header: [0; HEADER_LEN],
            ended: false,
        };
        while stream.decoder.file_header().is_none() {
            // `has_frame` checks the header once enough bytes are there.
            stream.decoder.has_frame()?;
            if stream.decoder.file_header().is_some() {
                break;
            }
            if !stream.fill("file header")? {
                stream.decoder.finish()?;
                break;
            }
        }
        if let Some(header) = stream.decoder.file_header() {
            stream.header = *header;
        }
        Ok(stream)
    }

    /// Reads more bytes into the decoder; false at the end of the input.
    fn fill(&mut self, what: &'static str) -> Result<bool, DemoError> {
        match self.decoder.read_from(&mut self.input) {
            Ok(0) => {
                self.ended = true;
                Ok(false)
            }
            Ok(_) => Ok(true),
            Err(e) => Err(DemoError {
                kind: ErrorKind::Unreadable {
                    what,
                    reason: e.to_string(),
                },
                location: self.location(),
            }),
        }
    }

    /// The sixteen bytes before the first frame (magic and offsets).
    pub fn file_header(&self) -> &[u8; HEADER_LEN] {
        &self.header
    }

    /// Byte offset of the next frame.
    pub fn offset(&self) -> u64 {
        self.decoder.offset()
    }

    /// Index of the next frame.
    pub fn frame_index(&self) -> u64 {
        self.decoder.frame_index()
    }

    /// Tick of the last frame header read (`-1` before the first).
    pub fn last_tick(&self) -> i32 {
        self.decoder.last_tick()
    }

    /// Bytes the stream holds in its buffers (their capacity): bounded by
    /// the largest frame, whatever the length of the demo.
    pub fn buffered_bytes(&self) -> usize {
        self.decoder.buffered_bytes()
    }

    fn location(&self) -> Location {
        Location {
            byte_offset: self.decoder.offset(),
            frame: self.decoder.frame_index(),
            tick: self.decoder.last_tick(),
        }
    }

    /// The next frame, `None` at the clean end of the input (between two
    /// frames). Its payload is decompressed when it was stored compressed.
    pub fn next_frame(&mut self) -> Result<Option<StreamFrame<'_>>, DemoError> {
        while !self.decoder.has_frame()? {
            if self.ended {
                self.decoder.finish()?;
                return Ok(None);
            }
            let what = if self.decoder.pending() == 0 {
                "frame header"
            } else {
                "frame payload"
            };
            self.fill(what)?;
        }
        Ok(self
            .decoder
            .next_frame_if(|_| true)?
            .map(|(frame, stored)| StreamFrame { frame, stored }))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::container::{DemoCommand, MAX_DECOMPRESSED_FRAME};
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
        // Cut inside the frame, as the in-memory reader reports it.
        let mut s = FrameStream::new(&data[..]).unwrap();
        let e = s.next_frame().unwrap_err();
        assert!(e.is_truncation(), "{e}");
        let expected = crate::container::FrameReader::new(&data)
            .unwrap()
            .next_frame()
            .unwrap_err();
        assert_eq!(e, expected);
        // More than the limit comes: refused, the bytes counted, not kept.
        data.extend(std::iter::repeat_n(0u8, (MAX_DECOMPRESSED_FRAME >> 4) + 1));
        let mut decoder = FrameDecoder::new().with_frame_limit(MAX_DECOMPRESSED_FRAME >> 4);
        let mut input = &data[..];
        let e = loop {
            match decoder.has_frame() {
                Err(e) => break e,
                Ok(_) => assert!(decoder.read_from(&mut input).unwrap() > 0),
            }
        };
        assert!(matches!(e.kind, ErrorKind::LimitExceeded { .. }), "{e}");
        assert_eq!(
            (e.location.byte_offset, e.location.frame, e.location.tick),
            (16, 0, 1)
        );
        assert!(decoder.buffered_bytes() < 1 << 20);
        data.truncate(HEADER_LEN);
        data.extend([7, 1, 0xff, 0xff, 0xff, 0x7f]);
        let mut s = FrameStream::new(&data[..]).unwrap();
        let e = s.next_frame().unwrap_err();
        assert!(e.is_truncation());
        assert!(s.buffered_bytes() < 1 << 20);
    }
}
