//! The demo container: magic, header bytes and frames.
//!
//! A Source 2 demo (`.dem`) starts with the eight bytes `PBDEMS2\0`, then
//! eight bytes whose meaning is not public (two little-endian 32-bit offsets
//! in practice; we skip them), then a sequence of *frames*. Each frame is
//!
//! ```text
//! varint command   (EDemoCommands; bit 6, value 64, flags snappy compression)
//! varint tick      (2^32-1 for frames before the first tick, read as -1)
//! varint size      (payload bytes)
//! payload          (a protobuf message chosen by the command; raw snappy when
//!                   compressed — the block format, not the framing format)
//! ```
//!
//! `DEM_Stop` ends the stream. Commands above the ones we know (a newer game
//! build) are returned as [`DemoCommand::Unknown`] so the caller can skip them
//! with a warning.

use crate::error::{DemoError, ErrorKind, Location};

/// The magic of a Source 2 demo.
pub const MAGIC_SOURCE2: &[u8; 8] = b"PBDEMS2\0";
/// The magic of a Source 1 demo.
pub const MAGIC_SOURCE1: &[u8; 8] = b"HL2DEMO\0";
/// Bytes before the first frame: magic plus eight unknown bytes.
pub const HEADER_LEN: usize = 16;
/// The compression flag in a frame's command.
pub const DEM_IS_COMPRESSED: u32 = 64;
/// Largest decompressed frame we accept (256 MiB, far above any real frame).
pub const MAX_DECOMPRESSED_FRAME: usize = 256 << 20;

/// A frame's command (`EDemoCommands`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[non_exhaustive]
pub enum DemoCommand {
    /// `DEM_Stop` (0): end of the frames.
    Stop,
    /// `DEM_FileHeader` (1).
    FileHeader,
    /// `DEM_FileInfo` (2).
    FileInfo,
    /// `DEM_SyncTick` (3): the end of signon.
    SyncTick,
    /// `DEM_SendTables` (4).
    SendTables,
    /// `DEM_ClassInfo` (5).
    ClassInfo,
    /// `DEM_StringTables` (6).
    StringTables,
    /// `DEM_Packet` (7).
    Packet,
    /// `DEM_SignonPacket` (8).
    SignonPacket,
    /// `DEM_ConsoleCmd` (9).
    ConsoleCmd,
    /// `DEM_CustomData` (10).
    CustomData,
    /// `DEM_CustomDataCallbacks` (11).
    CustomDataCallbacks,
    /// `DEM_UserCmd` (12).
    UserCmd,
    /// `DEM_FullPacket` (13).
    FullPacket,
    /// `DEM_SaveGame` (14).
    SaveGame,
    /// `DEM_SpawnGroups` (15).
    SpawnGroups,
    /// `DEM_AnimationData` (16).
    AnimationData,
    /// `DEM_AnimationHeader` (17).
    AnimationHeader,
    /// `DEM_Recovery` (18).
    Recovery,
    /// A command this parser does not know (newer game build).
    Unknown(u32),
}

impl DemoCommand {
    /// The command for a raw value (without the compression flag).
    pub fn from_raw(raw: u32) -> Self {
        use DemoCommand::*;
        match raw {
            0 => Stop,
            1 => FileHeader,
            2 => FileInfo,
            3 => SyncTick,
            4 => SendTables,
            5 => ClassInfo,
            6 => StringTables,
            7 => Packet,
            8 => SignonPacket,
            9 => ConsoleCmd,
            10 => CustomData,
            11 => CustomDataCallbacks,
            12 => UserCmd,
            13 => FullPacket,
            14 => SaveGame,
            15 => SpawnGroups,
            16 => AnimationData,
            17 => AnimationHeader,
            18 => Recovery,
            other => Unknown(other),
        }
    }

    /// The engine's name for the command.
    pub fn name(self) -> String {
        use DemoCommand::*;
        let s = match self {
            Stop => "DEM_Stop",
            FileHeader => "DEM_FileHeader",
            FileInfo => "DEM_FileInfo",
            SyncTick => "DEM_SyncTick",
            SendTables => "DEM_SendTables",
            ClassInfo => "DEM_ClassInfo",
            StringTables => "DEM_StringTables",
            Packet => "DEM_Packet",
            SignonPacket => "DEM_SignonPacket",
            ConsoleCmd => "DEM_ConsoleCmd",
            CustomData => "DEM_CustomData",
            CustomDataCallbacks => "DEM_CustomDataCallbacks",
            UserCmd => "DEM_UserCmd",
            FullPacket => "DEM_FullPacket",
            SaveGame => "DEM_SaveGame",
            SpawnGroups => "DEM_SpawnGroups",
            AnimationData => "DEM_AnimationData",
            AnimationHeader => "DEM_AnimationHeader",
            Recovery => "DEM_Recovery",
            Unknown(n) => return format!("DEM_Unknown({n})"),
        };
        s.to_string()
    }
}

/// One frame, its payload decompressed.
#[derive(Debug, Clone)]
pub struct Frame<'a> {
    /// The command.
    pub command: DemoCommand,
    /// The tick; `-1` for frames before the first tick (raw 2^32-1).
    pub tick: i32,
    /// Whether the payload was snappy-compressed in the file.
    pub compressed: bool,
    /// Byte offset of the frame header in the file.
    pub offset: u64,
    /// Index of the frame.
    pub index: u64,
    /// The payload (decompressed).
    pub payload: std::borrow::Cow<'a, [u8]>,
}

/// Reads a protobuf-style varint from `data` at `*pos`; at most five bytes.
pub(crate) fn read_varint32(
    data: &[u8],
    pos: &mut usize,
    what: &'static str,
) -> Result<u32, ErrorKind> {
    let mut value = 0u32;
    for i in 0..5 {
        let Some(&byte) = data.get(*pos) else {
            return Err(ErrorKind::Truncated {
                what,
                needed: 1,
                available: 0,
            });
        };
        *pos += 1;
        value |= u32::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(ErrorKind::BadVarint { what })
}

/// Decompresses a raw snappy block into `out` (its contents are replaced;
/// a buffer too small is replaced by a zeroed one, a large enough one is
/// zeroed only past its current length, since snappy writes into
/// initialized bytes). A claimed size no input of this length can justify (a
/// block expands at most ~21.3x per input byte; more than 32x, at least 64
/// bytes) or above `cap` is refused before anything is allocated.
/// `what` names the data in errors, `size_what` the size limit.
pub(crate) fn snappy_into(
    raw: &[u8],
    what: &'static str,
    size_what: &'static str,
    cap: usize,
    out: &mut Vec<u8>,
) -> Result<(), ErrorKind> {
    let snappy = |e: snap::Error| ErrorKind::Snappy {
        what,
        message: e.to_string(),
    };
    let len = snap::raw::decompress_len(raw).map_err(snappy)?;
    let limit = raw.len().saturating_mul(32).max(64).min(cap);
    if len > limit {
        return Err(ErrorKind::LimitExceeded {
            what: size_what,
            value: len as u64,
            limit: limit as u64,
        });
    }
    if out.capacity() < len {
        // Too small to reuse: a fresh zeroed allocation (from the allocator's
        // zeroed pages when large) instead of growing, which would copy the
        // old payload and then zero the rest.
        *out = vec![0; len];
    } else if out.len() < len {
        out.resize(len, 0);
    } else {
        out.truncate(len);
    }
    let written = snap::raw::Decoder::new()
        .decompress(raw, out)
        .map_err(snappy)?;
    out.truncate(written);
    Ok(())
}

/// Decompresses a frame payload into `out`, with the frame limits.
pub(crate) fn frame_payload_into(raw: &[u8], out: &mut Vec<u8>) -> Result<(), ErrorKind> {
    snappy_into(
        raw,
        "frame payload",
        "decompressed frame size",
        MAX_DECOMPRESSED_FRAME,
        out,
    )
}

/// Runs `f` on a frame payload as [`FrameReader`] would return it:
/// decompressed when `compressed`, into a buffer this thread keeps for its
/// next payload (the helper thread's: a buffer freed after every job
/// would be fresh, page-faulting memory for the next one).
pub(crate) fn with_payload<T>(
    raw: &[u8],
    compressed: bool,
    f: impl FnOnce(&[u8]) -> Result<T, ErrorKind>,
) -> Result<T, ErrorKind> {
    if !compressed {
        return f(raw);
    }
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with(|buffer| {
        let mut out = buffer.take();
        let result = frame_payload_into(raw, &mut out).and_then(|()| f(&out));
        buffer.replace(out);
        result
    })
}

/// A frame's head: the three varints before its payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FrameHead {
    /// The command, without the compression flag.
    pub(crate) command: DemoCommand,
    /// Whether the payload is snappy-compressed.
    pub(crate) compressed: bool,
    /// The tick (`-1` for 2^32-1).
    pub(crate) tick: i32,
    /// Bytes of the stored payload.
    pub(crate) size: usize,
    /// Bytes of the head itself (3 to 15).
    pub(crate) len: usize,
}

/// Reads the head of the frame that starts `data`: the one frame-head
/// decoder of the in-memory reader, the stream decoder
/// ([`crate::stream::FrameDecoder`]) and the pull reader
/// ([`crate::edit::frames::FrameStream`]). `Truncated` names the varint the
/// data ends in (the stream decoder waits for more bytes then); `BadVarint`
/// one longer than five bytes.
pub(crate) fn frame_head(data: &[u8]) -> Result<FrameHead, ErrorKind> {
    let mut pos = 0;
    let cmd = read_varint32(data, &mut pos, "frame command")?;
    let tick = read_varint32(data, &mut pos, "frame tick")?;
    let size = read_varint32(data, &mut pos, "frame size")?;
    Ok(FrameHead {
        command: DemoCommand::from_raw(cmd & !DEM_IS_COMPRESSED),
        compressed: cmd & DEM_IS_COMPRESSED != 0,
        // 2^32-1 is "before the first tick"; as i32 it is -1.
        tick: tick as i32,
        size: size as usize,
        len: pos,
    })
}

/// Checks the file header at the start of `data` (all of the demo there
/// is, when `complete`): `Ok(true)` when its sixteen bytes are there and
/// start with the Source 2 magic, `Ok(false)` when more bytes are needed to
/// tell (only when not `complete`), else the error (a Source 1 demo, another
/// magic, a header cut short), located at byte 0.
pub(crate) fn check_file_header(data: &[u8], complete: bool) -> Result<bool, DemoError> {
    let location = Location {
        byte_offset: 0,
        frame: 0,
        tick: -1,
    };
    let Some(magic) = data.get(..8) else {
        if !complete {
            return Ok(false);
        }
        return Err(DemoError {
            kind: ErrorKind::BadMagic {
                found: data.to_vec(),
            },
            location,
        });
    };
    if magic == MAGIC_SOURCE1.as_slice() {
        return Err(DemoError {
            kind: ErrorKind::Source1Demo,
            location,
        });
    }
    if magic != MAGIC_SOURCE2.as_slice() {
        return Err(DemoError {
            kind: ErrorKind::BadMagic {
                found: magic.to_vec(),
            },
            location,
        });
    }
    if data.len() >= HEADER_LEN {
        return Ok(true);
    }
    if !complete {
        return Ok(false);
    }
    Err(DemoError {
        kind: ErrorKind::Truncated {
            what: "file header",
            needed: HEADER_LEN as u64,
            available: data.len() as u64,
        },
        location,
    })
}

/// The frame at byte `pos`: its command, whether it is compressed, its raw
/// payload and the offset of the frame after it; `None` at the end or when
/// its header or size does not fit the data.
fn raw_frame_at(data: &[u8], pos: usize) -> Option<(DemoCommand, bool, &[u8], usize)> {
    let head = frame_head(data.get(pos..)?).ok()?;
    let start = pos.checked_add(head.len)?;
    let end = start.checked_add(head.size)?;
    let raw = data.get(start..end)?;
    Some((head.command, head.compressed, raw, end))
}

/// Iterates over the frames of a demo held in memory.
#[derive(Debug, Clone)]
pub struct FrameReader<'a> {
    data: &'a [u8],
    pos: usize,
    index: u64,
    last_tick: i32,
    done: bool,
    /// A payload buffer handed back by [`FrameReader::recycle`], reused for
    /// the next decompressed frame.
    spare: Vec<u8>,
    /// Payloads decompressed ahead of their turn
    /// ([`FrameReader::decompress_ahead`]), by frame index, in order.
    ahead: std::collections::VecDeque<(u64, Vec<u8>)>,
    /// Where [`FrameReader::decompress_ahead`] goes on: (byte offset, frame
    /// index) of the next frame it has not looked at.
    ahead_next: (usize, u64),
    /// Bytes held in `ahead`.
    ahead_bytes: usize,
}

/// At most this many decompressed bytes are held ahead of the reader (the
/// parser decompresses frames ahead of their turn while the helper thread
/// builds the send tables).
pub const MAX_DECOMPRESSED_AHEAD: usize = 8 << 20;

impl<'a> FrameReader<'a> {
    /// Checks the magic and positions at the first frame.
    pub fn new(data: &'a [u8]) -> Result<Self, DemoError> {
        check_file_header(data, true)?;
        Ok(FrameReader {
            data,
            pos: HEADER_LEN,
            index: 0,
            last_tick: -1,
            done: false,
            spare: Vec::new(),
            ahead: std::collections::VecDeque::new(),
            ahead_next: (HEADER_LEN, 0),
            ahead_bytes: 0,
        })
    }

    /// A reader with no frames (the reader of a parser fed frames by its
    /// caller, [`crate::DemoParser::detached`]).
    pub(crate) fn without_frames() -> FrameReader<'static> {
        FrameReader {
            data: &[],
            pos: 0,
            index: 0,
            last_tick: -1,
            done: true,
            spare: Vec::new(),
            ahead: std::collections::VecDeque::new(),
            ahead_next: (0, 0),
            ahead_bytes: 0,
        }
    }

    /// Byte offset of the next frame.
    pub fn offset(&self) -> u64 {
        self.pos as u64
    }

    /// Index of the next frame.
    pub fn frame_index(&self) -> u64 {
        self.index
    }

    /// Tick of the last frame read.
    pub fn last_tick(&self) -> i32 {
        self.last_tick
    }

    fn location(&self, offset: usize) -> Location {
        Location {
            byte_offset: offset as u64,
            frame: self.index,
            tick: self.last_tick,
        }
    }

    /// Hands a frame's decompressed payload back for reuse, so a long demo
    /// does not allocate (and page in) a new buffer per frame.
    pub fn recycle(&mut self, buffer: Vec<u8>) {
        if buffer.capacity() > self.spare.capacity() {
            self.spare = buffer;
        }
    }

    /// The next frame's command, index, whether its payload is
    /// snappy-compressed, and that raw payload, borrowed from the data;
    /// `None` at the end or at a frame whose header or size does not fit the
    /// data (the regular reader reports that). For looking ahead on a clone
    /// of the reader, or for timing the decompression alone.
    pub fn next_raw(&mut self) -> Option<(DemoCommand, u64, bool, &'a [u8])> {
        if self.done {
            return None;
        }
        let (command, compressed, raw, next) = raw_frame_at(self.data, self.pos)?;
        let index = self.index;
        self.pos = next;
        self.index += 1;
        Some((command, index, compressed, raw))
    }

    /// Decompresses the payload of one frame after the reader's position
    /// ahead of its turn, the next compressed one that `wanted(command)`
    /// asks for, so that [`FrameReader::next_frame_if`] finds it done. For
    /// filling a wait (the parser does it while the helper thread finishes
    /// the send tables). Returns false when there is nothing more to do: the
    /// end of the data, a frame that does not fit or does not decompress
    /// (the regular read reports it), or [`MAX_DECOMPRESSED_AHEAD`] bytes
    /// already held.
    pub(crate) fn decompress_ahead(&mut self, wanted: impl Fn(DemoCommand) -> bool) -> bool {
        if self.done {
            return false;
        }
        if self.ahead_next.1 < self.index {
            self.ahead_next = (self.pos, self.index);
        }
        loop {
            if self.ahead_bytes >= MAX_DECOMPRESSED_AHEAD {
                return false;
            }
            let (pos, index) = self.ahead_next;
            let Some((command, compressed, raw, next)) = raw_frame_at(self.data, pos) else {
                return false;
            };
            self.ahead_next = (next, index + 1);
            if !(compressed && wanted(command)) {
                continue;
            }
            let mut out = Vec::new();
            if frame_payload_into(raw, &mut out).is_err() {
                return false;
            }
            self.ahead_bytes += out.len();
            self.ahead.push_back((index, out));
            return true;
        }
    }

    /// The payload [`FrameReader::decompress_ahead`] decompressed for the
    /// frame at `index`, if any (and drops those of frames passed over).
    fn take_ahead(&mut self, index: u64) -> Option<Vec<u8>> {
        while let Some(&(i, _)) = self.ahead.front() {
            if i > index {
                return None;
            }
            let (i, payload) = self.ahead.pop_front()?;
            self.ahead_bytes -= payload.len();
            if i == index {
                return Some(payload);
            }
        }
        None
    }

    /// The next frame, `None` at the clean end of the data. Frames after
    /// `DEM_Stop` (CS2 writes `DEM_FileInfo` there) are returned too.
    pub fn next_frame(&mut self) -> Result<Option<Frame<'a>>, DemoError> {
        self.next_frame_if(|_| true)
    }

    /// [`FrameReader::next_frame`], decompressing the payload only when
    /// `wanted(command)` says so: a frame that is not wanted comes with an
    /// empty payload (its size and place are still checked), so commands
    /// nobody reads cost no snappy work.
    pub fn next_frame_if(
        &mut self,
        wanted: impl FnOnce(DemoCommand) -> bool,
    ) -> Result<Option<Frame<'a>>, DemoError> {
        if self.done || self.pos >= self.data.len() {
            return Ok(None);
        }
        let start = self.pos;
        let rest = self.data.get(start..).unwrap_or_default();
        let head = frame_head(rest).map_err(|kind| DemoError {
            kind,
            location: self.location(start),
        })?;
        self.last_tick = head.tick;
        let FrameHead {
            command,
            compressed,
            tick,
            size,
            ..
        } = head;
        let pos = start + head.len;
        let Some(raw) = rest.get(head.len..).and_then(|r| r.get(..size)) else {
            let available = rest.len().saturating_sub(head.len) as u64;
            return Err(DemoError {
                kind: ErrorKind::Truncated {
                    what: "frame payload",
                    needed: size as u64,
                    available,
                },
                location: self.location(start),
            });
        };
        let payload = if !wanted(command) {
            std::borrow::Cow::Borrowed(&[][..])
        } else if let Some(out) = compressed.then(|| self.take_ahead(self.index)).flatten() {
            std::borrow::Cow::Owned(out)
        } else if compressed {
            let mut out = std::mem::take(&mut self.spare);
            frame_payload_into(raw, &mut out).map_err(|kind| DemoError {
                kind,
                location: self.location(start),
            })?;
            std::borrow::Cow::Owned(out)
        } else {
            std::borrow::Cow::Borrowed(raw)
        };
        self.pos = pos + size;
        let frame = Frame {
            command,
            tick,
            compressed,
            offset: start as u64,
            index: self.index,
            payload,
        };
        self.index += 1;
        Ok(Some(frame))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    fn frame(cmd: u32, tick: u32, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for mut v in [cmd, tick, payload.len() as u32] {
            loop {
                let b = (v & 0x7f) as u8;
                v >>= 7;
                if v == 0 {
                    out.push(b);
                    break;
                }
                out.push(b | 0x80);
            }
        }
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn reads_frames_and_pre_record_tick() {
        let mut data = b"PBDEMS2\0\0\0\0\0\0\0\0\0".to_vec();
        data.extend(frame(3, u32::MAX, &[]));
        let compressed = snap::raw::Encoder::new()
            .compress_vec(b"hello hello hello")
            .unwrap();
        data.extend(frame(7 | 64, 5, &compressed));
        data.extend(frame(30, 6, b"x"));
        data.extend(frame(0, 7, &[]));
        let mut r = FrameReader::new(&data).unwrap();
        let f = r.next_frame().unwrap().unwrap();
        assert_eq!((f.command, f.tick), (DemoCommand::SyncTick, -1));
        let f = r.next_frame().unwrap().unwrap();
        assert_eq!(f.command, DemoCommand::Packet);
        assert!(f.compressed);
        assert_eq!(&*f.payload, b"hello hello hello");
        let f = r.next_frame().unwrap().unwrap();
        assert_eq!(f.command, DemoCommand::Unknown(30));
        let f = r.next_frame().unwrap().unwrap();
        assert_eq!(f.command, DemoCommand::Stop);
        assert!(r.next_frame().unwrap().is_none());
        assert!(r.next_frame().unwrap().is_none());
    }

    #[test]
    fn frames_decompressed_ahead_read_as_before() {
        let snappy = |b: &[u8]| snap::raw::Encoder::new().compress_vec(b).unwrap();
        let mut data = b"PBDEMS2\0\0\0\0\0\0\0\0\0".to_vec();
        data.extend(frame(7 | 64, 1, &snappy(b"first first first")));
        data.extend(frame(30, 2, b"plain"));
        data.extend(frame(4 | 64, 3, &snappy(b"not wanted")));
        data.extend(frame(7 | 64, 4, &snappy(b"second second")));
        // Not snappy: ahead stops here, the regular read reports it.
        data.extend(frame(7 | 64, 5, &[0xff, 0xff, 0xff, 0xff, 0x0f, 1]));
        data.extend(frame(7 | 64, 6, &snappy(b"after the bad one")));
        let wanted = |c: DemoCommand| c != DemoCommand::SendTables;
        let read_all = |r: &mut FrameReader<'_>| {
            let mut out = Vec::new();
            loop {
                match r.next_frame_if(wanted) {
                    Ok(Some(f)) => out.push(Ok((f.index, f.payload.to_vec()))),
                    Ok(None) => break,
                    Err(e) => {
                        out.push(Err(e));
                        break;
                    }
                }
            }
            out
        };
        let expected = read_all(&mut FrameReader::new(&data).unwrap());
        assert_eq!(expected.len(), 5);
        assert!(expected[4].is_err());
        // All at once from the start, and from after the first frame.
        let mut r = FrameReader::new(&data).unwrap();
        let mut n = 0;
        while r.decompress_ahead(wanted) {
            n += 1;
        }
        assert_eq!(
            n, 2,
            "frames 0 and 3; frame 2 is not wanted, frame 4 is bad"
        );
        assert_eq!(r.ahead.len(), 2);
        assert_eq!(read_all(&mut r), expected);
        let mut r = FrameReader::new(&data).unwrap();
        let first = r.next_frame_if(wanted).unwrap().unwrap();
        assert_eq!(&*first.payload, b"first first first");
        assert!(r.decompress_ahead(wanted));
        assert_eq!(r.ahead.front().map(|a| a.0), Some(3));
        let rest = read_all(&mut r);
        assert_eq!(rest, expected[1..]);
        assert_eq!(r.ahead_bytes, 0);
        // A payload decompressed ahead but then not wanted is dropped.
        let mut r = FrameReader::new(&data).unwrap();
        assert!(r.decompress_ahead(|_| true));
        assert!(r.decompress_ahead(|_| true));
        assert_eq!(r.ahead.len(), 2);
        for _ in 0..2 {
            let skipped = r.next_frame_if(|_| false).unwrap().unwrap();
            assert!(skipped.payload.is_empty());
        }
        let third = r.next_frame_if(|_| true).unwrap().unwrap();
        assert_eq!((third.index, &*third.payload), (2, &b"not wanted"[..]));
        assert!(r.ahead.is_empty());
        assert_eq!(r.ahead_bytes, 0);
    }

    #[test]
    fn rejects_source1_and_garbage() {
        let e = FrameReader::new(b"HL2DEMO\0aaaaaaaaaaaa").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Source1Demo);
        let e = FrameReader::new(b"hello").unwrap_err();
        assert!(matches!(e.kind, ErrorKind::BadMagic { .. }));
    }

    #[test]
    fn truncated_payload_reports_offset() {
        let mut data = b"PBDEMS2\0\0\0\0\0\0\0\0\0".to_vec();
        data.extend(frame(7, 1, b"abcdef"));
        data.truncate(data.len() - 2);
        let mut r = FrameReader::new(&data).unwrap();
        let e = r.next_frame().unwrap_err();
        assert!(e.is_truncation());
        assert_eq!(e.location.byte_offset, 16);
        assert_eq!(e.location.tick, 1);
    }
}
