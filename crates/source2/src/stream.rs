//! Demos fed as bytes arrive: a frame decoder with a bounded buffer
//! ([`FrameDecoder`]) and a parser driven by it ([`StreamParser`]).
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
//! (see [`crate::container`]). Nothing in a frame says how far the demo
//! goes on, so a reader that has not got the whole file (a pipe, a
//! decompressor, a demo still being recorded, a network connection) can
//! only take the frames whose bytes have all come. [`FrameDecoder`] is
//! that reader without any input of its own: its caller pushes byte slices
//! as they arrive ([`FrameDecoder::push`]) or lets it read from a
//! [`std::io::Read`] ([`FrameDecoder::read_from`]), and takes the complete
//! frames out ([`FrameDecoder::next_frame`]); the bytes of a frame that has
//! not fully arrived stay in its buffer until the rest comes.
//!
//! ## What is buffered
//!
//! One buffer of stored bytes: the frames not yet taken out, at most the
//! frame being completed plus the last slice pushed (or the last read,
//! [`READ_CHUNK`] bytes or the rest of the frame being completed), and one
//! buffer of decompressed payload, reused frame after frame. Both grow to
//! the largest frame of the demo (a few hundred KiB to a few MiB in CS2,
//! Deadlock and Dota 2 matches), never with the demo's length.
//!
//! ## Limits
//!
//! A frame whose stored payload is larger than the decoder's limit
//! ([`MAX_DECOMPRESSED_FRAME`], 256 MiB, unless
//! [`FrameDecoder::with_frame_limit`] says otherwise) is not kept: its bytes
//! are counted as they come and dropped, and once more than the limit has
//! come the frame is refused with [`ErrorKind::LimitExceeded`], located at
//! the frame (its byte offset, index and tick). So a claimed size costs no
//! memory, and a demo cut inside such a frame still ends as a cut demo
//! does. A snappy block is checked against its claimed size before it is
//! decompressed (the in-memory reader's check).
//!
//! ## Where a demo ends
//!
//! [`FrameDecoder::finish`] says the input has ended: between two frames
//! that is a clean end, inside a frame it is the in-memory reader's
//! truncation error ([`ErrorKind::Truncated`], the same location values and
//! message: the frame's byte offset and index, the tick of its head when the
//! head is complete, else of the frame before). [`StreamParser`] then ends as
//! [`DemoParser::run`] does on the same bytes, with the `DEM_Stop`
//! truncation for a demo that stops between two frames before it. What was
//! parsed before a cut is kept.

use std::io::Read;

use crate::container::{
    check_file_header, frame_head, frame_payload_into, DemoCommand, Frame, FrameHead, HEADER_LEN,
    MAX_DECOMPRESSED_FRAME,
};
use crate::error::{DemoError, ErrorKind, Location};
use crate::parser::DemoParser;
use crate::visitor::Visitor;

/// Bytes [`FrameDecoder::read_from`] reads at a time when no frame larger
/// than that is being completed.
pub const READ_CHUNK: usize = 64 << 10;

/// Decodes the frames of a demo from bytes pushed as they arrive, through a
/// bounded buffer (see the [module docs](self)).
#[derive(Debug)]
pub struct FrameDecoder {
    /// Stored bytes; `buf[start..end]` are not yet taken out.
    buf: Vec<u8>,
    /// The first byte not taken out.
    start: usize,
    /// The end of the bytes received.
    end: usize,
    /// Byte offset in the demo of `buf[start]`.
    offset: u64,
    /// Index of the next frame.
    index: u64,
    /// Tick of the last frame head read (`-1` before the first).
    last_tick: i32,
    /// The file header, once its sixteen bytes have come and been checked.
    header: Option<[u8; HEADER_LEN]>,
    /// The decompressed payload of the last frame taken out.
    payload: Vec<u8>,
    /// Largest stored payload accepted.
    limit: usize,
    /// A frame above the limit whose bytes are being counted and dropped:
    /// its head and the payload bytes that have come.
    oversized: Option<(FrameHead, u64)>,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        FrameDecoder::new()
    }
}

/// The frame at the start of `buf[start..end]`, when all its bytes are
/// there: its head and its stored payload's range in `buf`. `Ok(None)` when
/// more bytes are needed; an error for a head that is not one (a varint
/// longer than five bytes).
fn complete_frame(
    buf: &[u8],
    start: usize,
    end: usize,
) -> Result<Option<(FrameHead, std::ops::Range<usize>)>, ErrorKind> {
    let data = buf.get(start..end).unwrap_or_default();
    let head = match frame_head(data) {
        Ok(head) => head,
        Err(ErrorKind::Truncated { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let from = start + head.len;
    match from.checked_add(head.size) {
        Some(to) if to <= end => Ok(Some((head, from..to))),
        _ => Ok(None),
    }
}

impl FrameDecoder {
    /// A decoder waiting for the first bytes of a demo (its file header).
    pub fn new() -> Self {
        FrameDecoder {
            buf: Vec::new(),
            start: 0,
            end: 0,
            offset: 0,
            index: 0,
            last_tick: -1,
            header: None,
            payload: Vec::new(),
            limit: MAX_DECOMPRESSED_FRAME,
            oversized: None,
        }
    }

    /// The largest stored frame payload accepted (default
    /// [`MAX_DECOMPRESSED_FRAME`]); a larger one is refused once more than
    /// this many of its bytes have come, without being kept.
    #[must_use]
    pub fn with_frame_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// The sixteen bytes before the first frame, once they have come.
    pub fn file_header(&self) -> Option<&[u8; HEADER_LEN]> {
        self.header.as_ref()
    }

    /// Byte offset in the demo of the next frame.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Index of the next frame.
    pub fn frame_index(&self) -> u64 {
        self.index
    }

    /// Tick of the last frame head read (`-1` before the first).
    pub fn last_tick(&self) -> i32 {
        self.last_tick
    }

    /// Bytes received and not yet taken out as frames (a frame being
    /// completed).
    pub fn pending(&self) -> usize {
        self.end - self.start
    }

    /// Bytes the decoder holds in its buffers (their capacity): bounded by
    /// the largest frame and the largest slice pushed, whatever the length
    /// of the demo.
    pub fn buffered_bytes(&self) -> usize {
        self.buf.capacity() + self.payload.capacity()
    }

    fn location(&self, tick: i32) -> Location {
        Location {
            byte_offset: self.offset,
            frame: self.index,
            tick,
        }
    }

    /// Moves the bytes not taken out to the front of the buffer, so that
    /// it grows only when a frame does not fit.
    fn compact(&mut self) {
        if self.start == 0 {
            return;
        }
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
    }

    /// Room for `n` more bytes after `end`; the slice to fill.
    fn room(&mut self, n: usize) -> &mut [u8] {
        self.compact();
        let want = self.end + n;
        if self.buf.len() < want {
            self.buf.resize(want, 0);
        }
        let end = self.end;
        self.buf.get_mut(end..want).unwrap_or_default()
    }

    /// Counts the bytes of an oversized frame that have come and drops
    /// them; an error once more than the limit has come.
    fn drop_oversized(&mut self) -> Result<(), DemoError> {
        let Some((head, got)) = self.oversized.as_mut() else {
            return Ok(());
        };
        *got += (self.end - self.start) as u64;
        self.start = 0;
        self.end = 0;
        if *got > self.limit as u64 {
            let head = *head;
            return Err(DemoError {
                kind: ErrorKind::LimitExceeded {
                    what: "stored frame size",
                    value: head.size as u64,
                    limit: self.limit as u64,
                },
                location: self.location(head.tick),
            });
        }
        Ok(())
    }

    /// Takes in the next bytes of the demo. They are kept until the frames
    /// they complete are taken out ([`FrameDecoder::next_frame`]).
    pub fn push(&mut self, bytes: &[u8]) {
        if self.oversized.is_some() {
            // Counted, not kept (`next_frame` reports the limit).
            if let Some((_, got)) = self.oversized.as_mut() {
                *got += bytes.len() as u64;
            }
            return;
        }
        self.room(bytes.len()).copy_from_slice(bytes);
        self.end += bytes.len();
    }

    /// Reads the next bytes of the demo from `input` (once: what one
    /// `read` gives, at most [`READ_CHUNK`] or the rest of the frame being
    /// completed, whichever is more, but no more than the bytes of that
    /// frame already come), straight into the buffer. `Ok(0)` at
    /// the end of the input.
    pub fn read_from<R: Read + ?Sized>(&mut self, input: &mut R) -> std::io::Result<usize> {
        let mut want = READ_CHUNK;
        if self.header.is_some() && self.oversized.is_none() {
            let data = self.buf.get(self.start..self.end).unwrap_or_default();
            if let Ok(head) = frame_head(data) {
                let missing = (head.len + head.size).saturating_sub(data.len());
                if head.size <= self.limit {
                    // The rest of the frame, but never more than the bytes
                    // already come: a claimed size allocates only as the
                    // bytes that justify it arrive.
                    want = want.max(missing.min(data.len()));
                }
            }
        }
        loop {
            let room = self.room(want);
            match input.read(room) {
                Ok(n) => {
                    self.end += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Checks the file header once enough bytes have come; true when it
    /// has been read.
    fn header_ready(&mut self) -> Result<bool, DemoError> {
        if self.header.is_some() {
            return Ok(true);
        }
        let data = self.buf.get(self.start..self.end).unwrap_or_default();
        if !check_file_header(data, false)? {
            return Ok(false);
        }
        let mut header = [0u8; HEADER_LEN];
        if let Some(h) = data.get(..HEADER_LEN) {
            header.copy_from_slice(h);
        }
        self.header = Some(header);
        self.start += HEADER_LEN;
        self.offset = HEADER_LEN as u64;
        Ok(true)
    }

    /// Whether a whole frame has come ([`FrameDecoder::next_frame`] then
    /// gives it); an error for a bad file header, a frame head that is not
    /// one, or a frame above the limit.
    pub fn has_frame(&mut self) -> Result<bool, DemoError> {
        if !self.header_ready()? {
            return Ok(false);
        }
        if self.oversized.is_some() {
            self.drop_oversized()?;
            return Ok(false);
        }
        let head = match frame_head(self.buf.get(self.start..self.end).unwrap_or_default()) {
            Ok(head) => head,
            Err(ErrorKind::Truncated { .. }) => return Ok(false),
            Err(kind) => {
                return Err(DemoError {
                    kind,
                    location: self.location(self.last_tick),
                })
            }
        };
        self.last_tick = head.tick;
        if head.size > self.limit {
            self.start += head.len;
            self.oversized = Some((head, 0));
            self.drop_oversized()?;
            return Ok(false);
        }
        Ok(self.end - self.start >= head.len + head.size)
    }

    /// The next frame when all its bytes have come (`Ok(None)`: more bytes
    /// are needed), its payload decompressed.
    pub fn next_frame(&mut self) -> Result<Option<Frame<'_>>, DemoError> {
        Ok(self.next_frame_if(|_| true)?.map(|(frame, _)| frame))
    }

    /// [`FrameDecoder::next_frame`] with the payload as stored beside it,
    /// decompressing only when `wanted(command)` says so: a frame that is
    /// not wanted comes with an empty payload (as the in-memory reader's
    /// `next_frame_if` gives it), so commands nobody reads cost no snappy
    /// work.
    pub fn next_frame_if(
        &mut self,
        wanted: impl FnOnce(DemoCommand) -> bool,
    ) -> Result<Option<(Frame<'_>, &[u8])>, DemoError> {
        if !self.has_frame()? {
            return Ok(None);
        }
        let Some((head, range)) =
            complete_frame(&self.buf, self.start, self.end).map_err(|kind| DemoError {
                kind,
                location: self.location(self.last_tick),
            })?
        else {
            return Ok(None);
        };
        let location = self.location(head.tick);
        let stored = self.buf.get(range.clone()).unwrap_or_default();
        let payload: &[u8] = if !wanted(head.command) {
            &[]
        } else if head.compressed {
            frame_payload_into(stored, &mut self.payload)
                .map_err(|kind| DemoError { kind, location })?;
            &self.payload
        } else {
            stored
        };
        self.start = range.end;
        self.offset += (head.len + head.size) as u64;
        self.index += 1;
        let frame = Frame {
            command: head.command,
            tick: head.tick,
            compressed: head.compressed,
            offset: location.byte_offset,
            index: location.frame,
            payload: std::borrow::Cow::Borrowed(payload),
        };
        Ok(Some((frame, stored)))
    }

    /// The input has ended: `Ok(())` when it ended between two frames
    /// (after the file header), else the error of a demo cut there, as the
    /// in-memory reader reports it on the same bytes (a file header cut
    /// short or another magic; a frame cut inside its head or its payload,
    /// [`ErrorKind::Truncated`] located at the frame).
    pub fn finish(&self) -> Result<(), DemoError> {
        let data = self.buf.get(self.start..self.end).unwrap_or_default();
        if self.header.is_none() {
            check_file_header(data, true)?;
        }
        if let Some((head, got)) = self.oversized {
            return Err(DemoError {
                kind: ErrorKind::Truncated {
                    what: "frame payload",
                    needed: head.size as u64,
                    available: got,
                },
                location: self.location(head.tick),
            });
        }
        if data.is_empty() || self.header.is_none() {
            return Ok(());
        }
        match frame_head(data) {
            Err(kind) => Err(DemoError {
                kind,
                location: self.location(self.last_tick),
            }),
            Ok(head) => Err(DemoError {
                kind: ErrorKind::Truncated {
                    what: "frame payload",
                    needed: head.size as u64,
                    available: data.len().saturating_sub(head.len) as u64,
                },
                location: self.location(head.tick),
            }),
        }
    }
}

/// A [`DemoParser`] fed as bytes arrive: the push API. Each
/// [`StreamParser::push`] takes in the next bytes and applies every frame
/// they complete, keeping the state; nothing is read again. At the end of
/// the input, [`StreamParser::finish`] ends the run as [`DemoParser::run`]
/// ends on the same bytes (the same state, the same callbacks, the same cut
/// error).
///
/// ```
/// use gamewire_source2::stream::StreamParser;
/// use gamewire_source2::NoVisitor;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let out = std::io::Cursor::new(Vec::new());
/// # let mut demo = gamewire_source2::container_writer::DemoWriter::new(out)?;
/// # demo.write_frame(gamewire_source2::container::DemoCommand::Stop, 0, false, &[])?;
/// # let demo: Vec<u8> = demo.finish()?.into_inner();
/// let mut parser = StreamParser::new();
/// // Bytes as they arrive: a socket, a file still being written...
/// for chunk in demo.chunks(1000) {
///     parser.push(chunk, &mut NoVisitor)?;
/// }
/// parser.finish(&mut NoVisitor)?;
/// assert!(parser.state().reached_stop);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct StreamParser {
    decoder: FrameDecoder,
    parser: DemoParser<'static>,
    /// The run has ended (an error, or [`StreamParser::finish`]): the open
    /// tick is closed and the counts are filled in.
    ended: bool,
}

impl Default for StreamParser {
    fn default() -> Self {
        StreamParser::new()
    }
}

impl StreamParser {
    /// A parser waiting for the first bytes of a demo.
    pub fn new() -> Self {
        StreamParser {
            decoder: FrameDecoder::new(),
            parser: DemoParser::detached_parser(),
            ended: false,
        }
    }

    /// Shares built send tables with the other parsers that use `cache`
    /// ([`DemoParser::with_send_table_cache`]).
    #[must_use]
    pub fn with_send_table_cache(
        mut self,
        cache: std::sync::Arc<crate::cache::SendTableCache>,
    ) -> Self {
        self.parser = self.parser.with_send_table_cache(cache);
        self
    }

    /// The state so far.
    pub fn state(&self) -> &crate::state::DemoState {
        &self.parser.state
    }

    /// The state, the parser done with.
    pub fn into_state(self) -> crate::state::DemoState {
        self.parser.state
    }

    /// The frame decoder (its offset, its buffers).
    pub fn decoder(&self) -> &FrameDecoder {
        &self.decoder
    }

    /// Whether the file header has come and been checked: an error before
    /// it means the input is not a demo.
    pub fn header_read(&self) -> bool {
        self.decoder.header.is_some()
    }

    /// Takes in the next bytes and applies every frame they complete. On
    /// error the run ends there (the state keeps what came before, the
    /// open tick is closed).
    pub fn push<V: Visitor>(&mut self, bytes: &[u8], visitor: &mut V) -> Result<(), DemoError> {
        self.decoder.push(bytes);
        self.apply_ready(visitor)
    }

    /// Reads the next bytes from `input` ([`FrameDecoder::read_from`]) and
    /// applies every frame they complete; `Ok(false)` at the end of the
    /// input (then call [`StreamParser::finish`]). A read error is
    /// [`ErrorKind::Unreadable`], located where the demo stopped.
    pub fn read_from<R: Read + ?Sized, V: Visitor>(
        &mut self,
        input: &mut R,
        visitor: &mut V,
    ) -> Result<bool, DemoError> {
        let n = match self.decoder.read_from(input) {
            Ok(n) => n,
            Err(e) => {
                let error = DemoError {
                    kind: ErrorKind::Unreadable {
                        what: "demo input",
                        reason: e.to_string(),
                    },
                    location: self.decoder.location(self.parser.state.tick),
                };
                return Err(self.end_with(error, visitor));
            }
        };
        if n == 0 {
            return Ok(false);
        }
        self.apply_ready(visitor)?;
        Ok(true)
    }

    /// Parses all of `input` ([`StreamParser::read_from`] to its end, then
    /// [`StreamParser::finish`]).
    pub fn run<R: Read + ?Sized, V: Visitor>(
        &mut self,
        input: &mut R,
        visitor: &mut V,
    ) -> Result<(), DemoError> {
        while self.read_from(input, visitor)? {}
        self.finish(visitor)
    }

    fn end_with<V: Visitor>(&mut self, error: DemoError, visitor: &mut V) -> DemoError {
        self.end(visitor);
        error
    }

    fn end<V: Visitor>(&mut self, visitor: &mut V) {
        if !self.ended {
            self.ended = true;
            self.parser.finish_frames(visitor);
        }
    }

    /// Applies the frames that have fully come.
    fn apply_ready<V: Visitor>(&mut self, visitor: &mut V) -> Result<(), DemoError> {
        if self.ended {
            return Ok(());
        }
        let interests = visitor.interests();
        loop {
            let after_stop = self.parser.state.reached_stop;
            let wanted = |command| crate::parser::handles_payload(command, interests, after_stop);
            let frame = match self.decoder.next_frame_if(wanted) {
                Ok(Some((frame, _))) => frame,
                Ok(None) => return Ok(()),
                Err(e) => return Err(self.end_with(e, visitor)),
            };
            if let Err(e) = self.parser.apply_frame(&frame, visitor) {
                return Err(self.end_with(e, visitor));
            }
        }
    }

    /// The input has ended: applies nothing more, closes the open tick and
    /// fills in the counts. An error when the demo was cut (inside a frame,
    /// or between two frames before `DEM_Stop`), as [`DemoParser::run`]
    /// reports it on the same bytes; the state keeps everything before.
    pub fn finish<V: Visitor>(&mut self, visitor: &mut V) -> Result<(), DemoError> {
        if self.ended {
            return Ok(());
        }
        let cut = match self.decoder.finish() {
            Err(e) => Some(e),
            Ok(()) if !self.parser.state.reached_stop => Some(DemoError::missing_stop(
                self.decoder.location(self.parser.state.tick),
            )),
            Ok(()) => None,
        };
        self.end(visitor);
        cut.map_or(Ok(()), Err)
    }

    /// [`StreamParser::finish`] for a caller that keeps what a cut demo
    /// holds: a truncation is `Ok(Some(cut))` (as
    /// [`DemoParser::run_keeping_cut`]).
    pub fn finish_keeping_cut<V: Visitor>(
        &mut self,
        visitor: &mut V,
    ) -> Result<Option<DemoError>, DemoError> {
        match self.finish(visitor) {
            Ok(()) => Ok(None),
            Err(e) if e.is_truncation() => Ok(Some(e)),
            Err(e) => Err(e),
        }
    }
}
