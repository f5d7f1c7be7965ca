//! Teeworlds 0.7 demos (`.demo`): what a server or client recorded, read
//! and written.
//!
//! # Format
//!
//! All multi-byte header fields are big-endian; strings are NUL-padded.
//!
//! | bytes | field |
//! |---|---|
//! | 7 | magic `TWDEMO\0` |
//! | 1 | version: 4 (0.7.0 to 0.7.5) or 5 (later 0.7, inline tick deltas) |
//! | 64 | net version (`0.7 802f1be60a05665f`) |
//! | 64 | map name |
//! | 4 | map size (bytes of the map that follows the header) |
//! | 4 | map CRC |
//! | 8 | type: `server` or `client` |
//! | 4 | length in seconds (written when the recording stops) |
//! | 20 | timestamp (`2026-11-26_00-03-41`) |
//! | 4 | number of timeline markers (at most 64) |
//! | 256 | 64 timeline marker ticks |
//! | map size | the map file |
//!
//! Then chunks until the end of the file. A chunk's first byte:
//!
//! - `1kDD DDDD` (version 4): a tick marker; `k` marks a keyframe (a full
//!   snapshot follows); a delta `D` other than 0 advances the tick, 0 means
//!   a big-endian 32-bit tick follows.
//! - `1kiD DDDD` (version 5): the same, but the delta is inline only when
//!   `i` is set; otherwise the 32-bit tick follows.
//! - `0ttS SSSS`: a data chunk of type `t` (1 snapshot, 2 message,
//!   3 snapshot delta) and size `S`; 30 means one more size byte follows, 31
//!   a little-endian 16-bit size.
//!
//! A data chunk's bytes are huffman-compressed (the network's table), and
//! what comes out is a run of packed ints (the int packer). A snapshot
//! chunk is a whole snapshot as ints: data size in bytes, item count, item
//! offsets (bytes, into the item data), then the items (each a key
//! `type << 16 | id` and its ints). A delta chunk is a snapshot delta
//! against the snapshot before it, the network's delta format. A message
//! chunk is one packed game or system message, zero-padded to 4 bytes.
//! The recorder writes a full snapshot at least every 5 seconds
//! (250 ticks) and skips empty deltas.
//!
//! # Hostile files
//!
//! Every length comes from the file and is checked against what is left
//! and against the snapshot limits ([`crate::snapshot::MAX_SIZE`],
//! [`crate::snapshot::MAX_ITEMS`]) before anything is allocated for it. An
//! error names what was being read, the chunk's byte offset and the tick. A
//! file that ends inside a chunk is [`DemoFileError::Truncated`]: the chunks
//! before it have been read.

use serde::Serialize;

use crate::huffman::{Huffman, HuffmanError};
use crate::int::{compress_ints, decompress_ints, IntError};
use crate::msg::{Message, MessageError};
use crate::snapshot::{Snapshot, SnapshotError, MAX_ITEMS, MAX_SIZE};

/// The first 7 bytes of a demo.
pub const MAGIC: &[u8; 7] = b"TWDEMO\0";
/// Bytes from the file's start to the timeline markers.
const HEADER_LEN: usize = 176;
/// Bytes of the timeline markers (count and 64 ticks).
const MARKERS_LEN: usize = 4 + 4 * MAX_TIMELINE_MARKERS;
// Where the header's fields are (see the table above).
const NET_VERSION: std::ops::Range<usize> = 8..72;
const MAP_NAME: std::ops::Range<usize> = 72..136;
const MAP_SIZE_OFFSET: usize = 136;
const MAP_CRC_OFFSET: usize = 140;
const KIND: std::ops::Range<usize> = 144..152;
const LENGTH_OFFSET: usize = 152;
const TIMESTAMP: std::ops::Range<usize> = 156..176;
/// Most timeline markers.
pub const MAX_TIMELINE_MARKERS: usize = 64;
/// Ticks between full snapshots the recorder writes (5 seconds at 50
/// ticks per second).
pub const KEYFRAME_INTERVAL: i32 = 250;

const TICK_MARKER: u8 = 0x80;
const TICK_KEYFRAME: u8 = 0x40;
const TICK_INLINE: u8 = 0x20;
const CHUNK_SNAPSHOT: u8 = 1;
const CHUNK_MESSAGE: u8 = 2;
const CHUNK_DELTA: u8 = 3;

/// The header of a demo.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DemoHeader {
    /// 4 or 5.
    pub version: u8,
    /// `0.7 802f1be60a05665f`.
    pub net_version: String,
    /// The map's name.
    pub map_name: String,
    /// The map's size in bytes.
    pub map_size: u32,
    /// The map's CRC.
    pub map_crc: u32,
    /// `server` or `client`.
    pub kind: String,
    /// Seconds recorded (0 when the recording was not stopped).
    pub length: i32,
    /// When recording started.
    pub timestamp: String,
    /// Ticks the recording player marked.
    pub timeline_markers: Vec<i32>,
}

/// What went wrong reading a demo, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DemoFileError {
    /// The file does not start with `TWDEMO\0`.
    #[error("not a Teeworlds demo: the file starts with {found:?}, expected \"TWDEMO\\0\"")]
    BadMagic {
        /// The first bytes, lossily decoded.
        found: String,
    },
    /// A demo version this reader does not know.
    #[error("demo version {0} is not supported (0.7 demos are versions 4 and 5)")]
    UnsupportedVersion(u8),
    /// Not a 0.7 demo (its snapshots and messages are another protocol's).
    #[error("net version {0:?} is not 0.7")]
    UnsupportedNetVersion(String),
    /// A header field is out of range.
    #[error("demo header: {what} is {value}")]
    BadHeader {
        /// The field.
        what: &'static str,
        /// Its value.
        value: i64,
    },
    /// The file ends inside something.
    #[error("the demo is truncated: {what} at byte {offset} needs {needed} bytes, {available} left (tick {tick})")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Byte offset of the chunk (or header field).
        offset: usize,
        /// Bytes needed.
        needed: usize,
        /// Bytes left.
        available: usize,
        /// The tick before it.
        tick: i32,
    },
    /// A chunk's data did not decode.
    #[error("{what} chunk at byte {offset} (tick {tick}): {reason}")]
    Chunk {
        /// `snapshot`, `delta` or `message`.
        what: &'static str,
        /// Byte offset of the chunk.
        offset: usize,
        /// The tick it belongs to.
        tick: i32,
        /// What was wrong.
        reason: String,
    },
    /// A data chunk of type 0.
    #[error("chunk at byte {offset} (tick {tick}) has no type")]
    UnknownChunk {
        /// Byte offset.
        offset: usize,
        /// Tick.
        tick: i32,
    },
}

impl DemoFileError {
    /// True when the file ended early (everything before was read).
    pub fn is_truncation(&self) -> bool {
        matches!(self, DemoFileError::Truncated { .. })
    }
}

/// One step through a demo.
#[derive(Debug, Clone, PartialEq)]
pub enum DemoEvent {
    /// A new tick begins.
    Tick {
        /// The tick.
        tick: i32,
        /// A full snapshot follows.
        keyframe: bool,
    },
    /// The snapshot of the current tick is known (from a full snapshot or a
    /// delta): [`DemoReader::snapshot`].
    Snapshot {
        /// The tick.
        tick: i32,
        /// Read whole (a keyframe's), not as a delta.
        full: bool,
    },
    /// A recorded message.
    Message {
        /// The tick.
        tick: i32,
        /// The message's packed bytes (zero-padded to 4 bytes, as recorded).
        data: Vec<u8>,
    },
}

/// Reads a demo chunk by chunk (an [`Iterator`] of events; the snapshot of
/// the latest snapshot event is [`DemoReader::snapshot`]).
///
/// ```
/// use gamewire_teeworlds::demo::{DemoEvent, DemoReader, DemoWriter};
/// use gamewire_teeworlds::snapshot::Snapshot;
/// let mut w = DemoWriter::new("dm1", 0x1234, b"map bytes", "server");
/// let mut snap = Snapshot::new();
/// snap.insert(9, 0, vec![0; 22]).unwrap();
/// w.snapshot(100, &snap);
/// let file = w.finish();
/// let mut r = DemoReader::new(&file).unwrap();
/// assert_eq!(r.header().map_name, "dm1");
/// assert_eq!(r.next().unwrap().unwrap(), DemoEvent::Tick { tick: 100, keyframe: true });
/// assert!(matches!(r.next().unwrap().unwrap(), DemoEvent::Snapshot { tick: 100, full: true }));
/// assert_eq!(r.snapshot().unwrap().len(), 1);
/// assert!(r.next().is_none());
/// ```
#[derive(Debug)]
pub struct DemoReader<'a> {
    data: &'a [u8],
    header: DemoHeader,
    map: &'a [u8],
    pos: usize,
    tick: i32,
    snapshot: Option<Snapshot>,
    sizes: &'static [usize],
    failed: bool,
    scratch: Vec<u8>,
}

/// Reads the NUL-terminated string in `field`.
fn c_string(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(field.get(..end).unwrap_or_default()).into_owned()
}

fn be_i32(data: &[u8], at: usize) -> Option<i32> {
    let b: [u8; 4] = data.get(at..at + 4)?.try_into().ok()?;
    Some(i32::from_be_bytes(b))
}

impl<'a> DemoReader<'a> {
    /// Reads the header and the map; the chunks are read by iterating.
    /// Snapshots use vanilla 0.7.5's item sizes.
    pub fn new(data: &'a [u8]) -> Result<DemoReader<'a>, DemoFileError> {
        let truncated = |what, offset: usize, needed: usize| DemoFileError::Truncated {
            what,
            offset,
            needed,
            available: data.len().saturating_sub(offset),
            tick: -1,
        };
        if data.get(..7) != Some(&MAGIC[..]) {
            let found = String::from_utf8_lossy(data.get(..8).unwrap_or(data)).into_owned();
            return Err(DemoFileError::BadMagic { found });
        }
        let head = data
            .get(..HEADER_LEN + MARKERS_LEN)
            .ok_or_else(|| truncated("the header", 0, HEADER_LEN + MARKERS_LEN))?;
        let version = head.get(7).copied().unwrap_or(0);
        if !(4..=5).contains(&version) {
            return Err(DemoFileError::UnsupportedVersion(version));
        }
        let field = |range: std::ops::Range<usize>| head.get(range).unwrap_or_default();
        let net_version = c_string(field(NET_VERSION));
        if !net_version.starts_with("0.7") {
            return Err(DemoFileError::UnsupportedNetVersion(net_version));
        }
        let int = |at| be_i32(head, at).unwrap_or(0);
        let map_size = int(MAP_SIZE_OFFSET);
        let map_size = u32::try_from(map_size).map_err(|_| DemoFileError::BadHeader {
            what: "the map size",
            value: i64::from(map_size),
        })?;
        let markers = int(HEADER_LEN);
        let count = usize::try_from(markers)
            .ok()
            .filter(|&n| n <= MAX_TIMELINE_MARKERS)
            .ok_or(DemoFileError::BadHeader {
                what: "the number of timeline markers",
                value: i64::from(markers),
            })?;
        let timeline_markers = (0..count).map(|i| int(HEADER_LEN + 4 + 4 * i)).collect();
        let header = DemoHeader {
            version,
            net_version,
            map_name: c_string(field(MAP_NAME)),
            map_size,
            map_crc: int(MAP_CRC_OFFSET) as u32,
            kind: c_string(field(KIND)),
            length: int(LENGTH_OFFSET),
            timestamp: c_string(field(TIMESTAMP)),
            timeline_markers,
        };
        let start = HEADER_LEN + MARKERS_LEN;
        let end = start.saturating_add(map_size as usize);
        let map = data
            .get(start..end)
            .ok_or_else(|| truncated("the map", start, map_size as usize))?;
        Ok(DemoReader {
            data,
            header,
            map,
            pos: end,
            tick: -1,
            snapshot: None,
            sizes: crate::snapshot::item_sizes(),
            failed: false,
            scratch: Vec::new(),
        })
    }

    /// The header.
    pub fn header(&self) -> &DemoHeader {
        &self.header
    }

    /// The map file embedded in the demo.
    pub fn map_file(&self) -> &'a [u8] {
        self.map
    }

    /// The current tick (-1 before the first tick marker).
    pub fn tick(&self) -> i32 {
        self.tick
    }

    /// Byte offset of the next chunk.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The snapshot of the latest [`DemoEvent::Snapshot`].
    pub fn snapshot(&self) -> Option<&Snapshot> {
        self.snapshot.as_ref()
    }

    fn truncated(&self, what: &'static str, offset: usize, needed: usize) -> DemoFileError {
        DemoFileError::Truncated {
            what,
            offset,
            needed,
            available: self.data.len().saturating_sub(offset),
            tick: self.tick,
        }
    }

    fn read_chunk(&mut self) -> Result<DemoEvent, DemoFileError> {
        let at = self.pos;
        let first = self.data.get(at).copied().unwrap_or(0);
        if first & TICK_MARKER != 0 {
            let keyframe = first & TICK_KEYFRAME != 0;
            let delta = if self.header.version >= 5 {
                (first & TICK_INLINE != 0).then_some(first & 0x1f)
            } else {
                Some(first & 0x3f).filter(|&d| d != 0)
            };
            match delta {
                Some(d) => {
                    self.tick = self.tick.wrapping_add(i32::from(d));
                    self.pos = at + 1;
                }
                None => {
                    self.tick = be_i32(self.data, at + 1)
                        .ok_or_else(|| self.truncated("a tick marker", at, 5))?;
                    self.pos = at + 5;
                }
            }
            return Ok(DemoEvent::Tick {
                tick: self.tick,
                keyframe,
            });
        }
        let kind = (first >> 5) & 3;
        let (size, header_len) = match first & 0x1f {
            30 => (
                usize::from(
                    *self
                        .data
                        .get(at + 1)
                        .ok_or_else(|| self.truncated("a chunk size", at, 2))?,
                ),
                2,
            ),
            31 => {
                let Some(&[lo, hi]) = self.data.get(at + 1..at + 3) else {
                    return Err(self.truncated("a chunk size", at, 3));
                };
                (usize::from(u16::from_le_bytes([lo, hi])), 3)
            }
            small => (usize::from(small), 1),
        };
        let what = match kind {
            CHUNK_SNAPSHOT => "snapshot",
            CHUNK_MESSAGE => "message",
            CHUNK_DELTA => "delta",
            _ => {
                return Err(DemoFileError::UnknownChunk {
                    offset: at,
                    tick: self.tick,
                })
            }
        };
        let body = self
            .data
            .get(at + header_len..at + header_len + size)
            .ok_or_else(|| self.truncated("a chunk", at, header_len + size))?;
        self.pos = at + header_len + size;
        let tick = self.tick;
        let fail = |reason: String| DemoFileError::Chunk {
            what,
            offset: at,
            tick,
            reason,
        };
        // Huffman, then packed ints: at most a snapshot's worth of each.
        let mut bytes = std::mem::take(&mut self.scratch);
        bytes.clear();
        let unpacked = Huffman::teeworlds()
            .decompress_into(body, MAX_SIZE, &mut bytes)
            .map_err(|e: HuffmanError| fail(format!("huffman: {e}")))
            .and_then(|()| {
                decompress_ints(&bytes, MAX_SIZE / 4)
                    .map_err(|e: IntError| fail(format!("packed ints: {e}")))
            });
        self.scratch = bytes;
        let ints = unpacked?;
        match kind {
            CHUNK_SNAPSHOT => {
                let snap = snapshot_from_ints(&ints).map_err(&fail)?;
                self.snapshot = Some(snap);
                Ok(DemoEvent::Snapshot { tick, full: true })
            }
            CHUNK_DELTA => {
                let Some(old) = &self.snapshot else {
                    return Err(fail("a delta before any full snapshot".into()));
                };
                let snap = old
                    .apply_delta(&ints, self.sizes)
                    .map_err(|e: SnapshotError| fail(e.to_string()))?;
                self.snapshot = Some(snap);
                Ok(DemoEvent::Snapshot { tick, full: false })
            }
            _ => {
                let data = ints.iter().flat_map(|i| i.to_le_bytes()).collect();
                Ok(DemoEvent::Message { tick, data })
            }
        }
    }
}

/// The chunks one by one; `None` at the end of the file, and after an
/// error (which is the last item).
impl Iterator for DemoReader<'_> {
    type Item = Result<DemoEvent, DemoFileError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.data.len() {
            return None;
        }
        let result = self.read_chunk();
        self.failed = result.is_err();
        Some(result)
    }
}

/// Decodes a recorded message (the padding after it is ignored).
pub fn decode_message(data: &[u8]) -> Result<Message, MessageError> {
    Message::decode(data).map(|(m, _)| m)
}

/// A whole snapshot from its serialized ints (data size, item count, item
/// offsets, items).
fn snapshot_from_ints(ints: &[i32]) -> Result<Snapshot, String> {
    let Some((&[data_size, num_items], rest)) = ints.split_first_chunk::<2>() else {
        return Err("fewer than 2 ints".into());
    };
    let count = usize::try_from(num_items)
        .ok()
        .filter(|&n| n <= MAX_ITEMS)
        .ok_or_else(|| format!("item count {num_items}"))?;
    let size = usize::try_from(data_size)
        .ok()
        .filter(|&n| n <= MAX_SIZE && n % 4 == 0)
        .ok_or_else(|| format!("data size {data_size}"))?;
    let offsets = rest
        .get(..count)
        .ok_or("the item offsets run past the chunk")?;
    let items = rest
        .get(count..count + size / 4)
        .ok_or("the items run past the chunk")?;
    let mut snap = Snapshot::new();
    for (i, &offset) in offsets.iter().enumerate() {
        let start = usize::try_from(offset)
            .ok()
            .filter(|o| o % 4 == 0)
            .ok_or_else(|| format!("item {i} offset {offset}"))?
            / 4;
        let end = match offsets.get(i + 1) {
            Some(&next) => usize::try_from(next).unwrap_or(0) / 4,
            None => items.len(),
        };
        let Some((&key, data)) = items.get(start..end).and_then(<[i32]>::split_first) else {
            return Err(format!(
                "item {i} spans ints {start}..{end} of {}",
                items.len()
            ));
        };
        let key = key as u32;
        snap.insert((key >> 16) as u16, (key & 0xffff) as u16, data.to_vec())
            .map_err(|e| format!("item {i}: {e}"))?;
    }
    Ok(snap)
}

/// A snapshot as the ints a demo stores it in.
fn snapshot_to_ints(snap: &Snapshot) -> Vec<i32> {
    let items = snap.items();
    let mut offsets = Vec::with_capacity(items.len());
    let mut data = Vec::new();
    for item in items {
        offsets.push((data.len() * 4) as i32);
        data.push(item.key() as i32);
        data.extend_from_slice(&item.data);
    }
    let mut out = Vec::with_capacity(2 + offsets.len() + data.len());
    out.push((data.len() * 4) as i32);
    out.push(items.len() as i32);
    out.extend(offsets);
    out.extend(data);
    out
}

/// Writes a demo as the 0.7.5 recorder does (version 4): header, map, then
/// a tick marker and a full snapshot (a keyframe) at the first snapshot and
/// at least every [`KEYFRAME_INTERVAL`] ticks, deltas in between (none when
/// nothing changed), messages where they are recorded.
#[derive(Debug)]
pub struct DemoWriter {
    out: Vec<u8>,
    last_tick_marker: Option<i32>,
    last_keyframe: Option<i32>,
    last_snapshot: Snapshot,
    first_tick: Option<i32>,
    markers: Vec<i32>,
    version: u8,
}

impl DemoWriter {
    /// A demo of `map_name` (whose file is `map`, with CRC `map_crc`),
    /// recorded by a `kind` (`server` or `client`), net version
    /// `0.7 802f1be60a05665f`, timestamp left empty.
    pub fn new(map_name: &str, map_crc: u32, map: &[u8], kind: &str) -> DemoWriter {
        fn put(out: &mut Vec<u8>, s: &str, len: usize) {
            let b = s.as_bytes();
            let n = b.len().min(len - 1);
            out.extend_from_slice(b.get(..n).unwrap_or_default());
            out.resize(out.len() + len - n, 0);
        }
        let mut out = Vec::with_capacity(HEADER_LEN + MARKERS_LEN + map.len());
        out.extend_from_slice(MAGIC);
        out.push(4);
        put(&mut out, "0.7 802f1be60a05665f", 64);
        put(&mut out, map_name, 64);
        out.extend_from_slice(&(map.len() as u32).to_be_bytes());
        out.extend_from_slice(&map_crc.to_be_bytes());
        put(&mut out, kind, 8);
        out.extend_from_slice(&0i32.to_be_bytes());
        put(&mut out, "", 20);
        out.resize(HEADER_LEN + MARKERS_LEN, 0);
        out.extend_from_slice(map);
        DemoWriter {
            out,
            last_tick_marker: None,
            last_keyframe: None,
            last_snapshot: Snapshot::new(),
            first_tick: None,
            markers: Vec::new(),
            version: 4,
        }
    }

    /// Writes version 5 tick markers (inline deltas flagged) instead of
    /// version 4's.
    pub fn version_5(mut self) -> DemoWriter {
        self.version = 5;
        if let Some(v) = self.out.get_mut(7) {
            *v = 5;
        }
        self
    }

    /// Sets the timestamp (`2026-11-26_00-08-47`, at most 19 bytes kept).
    pub fn timestamp(mut self, timestamp: &str) -> DemoWriter {
        let b = timestamp.as_bytes();
        let n = b.len().min(19);
        if let Some(field) = self.out.get_mut(TIMESTAMP) {
            field.fill(0);
            if let (Some(dst), Some(src)) = (field.get_mut(..n), b.get(..n)) {
                dst.copy_from_slice(src);
            }
        }
        self
    }

    fn tick_marker(&mut self, tick: i32, keyframe: bool) {
        let max_inline = if self.version >= 5 { 0x1f } else { 0x3f };
        let inline = match self.last_tick_marker {
            Some(last) if !keyframe => {
                Some(tick.wrapping_sub(last)).filter(|d| (1..=max_inline).contains(d))
            }
            _ => None,
        };
        let mut first = TICK_MARKER;
        if keyframe {
            first |= TICK_KEYFRAME;
        }
        match inline {
            Some(d) => {
                if self.version >= 5 {
                    first |= TICK_INLINE;
                }
                self.out.push(first | d as u8);
            }
            None => {
                self.out.push(first);
                self.out.extend_from_slice(&tick.to_be_bytes());
            }
        }
        self.last_tick_marker = Some(tick);
        self.first_tick.get_or_insert(tick);
    }

    fn chunk(&mut self, kind: u8, ints: &[i32]) {
        let packed = compress_ints(ints);
        let body = Huffman::teeworlds().compress(&packed);
        let size = body.len();
        let first = (kind & 3) << 5;
        if size < 30 {
            self.out.push(first | size as u8);
        } else if size < 256 {
            self.out.extend_from_slice(&[first | 30, size as u8]);
        } else {
            self.out
                .extend_from_slice(&[first | 31, (size & 0xff) as u8, (size >> 8) as u8]);
        }
        self.out.extend_from_slice(&body);
    }

    /// Records the snapshot of `tick`.
    pub fn snapshot(&mut self, tick: i32, snap: &Snapshot) {
        let keyframe = self
            .last_keyframe
            .is_none_or(|k| tick.wrapping_sub(k) > KEYFRAME_INTERVAL);
        if keyframe {
            self.tick_marker(tick, true);
            self.chunk(CHUNK_SNAPSHOT, &snapshot_to_ints(snap));
            self.last_keyframe = Some(tick);
        } else {
            self.tick_marker(tick, false);
            let delta = self
                .last_snapshot
                .create_delta(snap, crate::snapshot::item_sizes());
            // Removed items, updated items: none of either is no delta,
            // and the snapshot kept stays (as the recorder keeps it).
            if delta.get(..2).is_none_or(|h| h == [0, 0]) {
                return;
            }
            self.chunk(CHUNK_DELTA, &delta);
        }
        self.last_snapshot = snap.clone();
    }

    /// Records a packed message (as [`Message::encode`] gives it).
    pub fn message(&mut self, data: &[u8]) {
        let ints: Vec<i32> = data
            .chunks(4)
            .map(|c| {
                let mut b = [0u8; 4];
                b[..c.len()].copy_from_slice(c);
                i32::from_le_bytes(b)
            })
            .collect();
        self.chunk(CHUNK_MESSAGE, &ints);
    }

    /// Marks the current tick on the timeline (at most 64 markers).
    pub fn marker(&mut self) {
        if let Some(t) = self.last_tick_marker {
            if self.markers.len() < MAX_TIMELINE_MARKERS {
                self.markers.push(t);
            }
        }
    }

    /// Sets the timeline markers (ticks; at most 64 are kept).
    pub fn set_markers(&mut self, ticks: &[i32]) {
        self.markers = ticks.iter().copied().take(MAX_TIMELINE_MARKERS).collect();
    }

    /// The demo file. Its length is the seconds from the first tick marker
    /// to the last (50 ticks a second, rounded down), as the recorder
    /// computes it.
    pub fn finish(mut self) -> Vec<u8> {
        let length = match (self.first_tick, self.last_tick_marker) {
            (Some(first), Some(last)) => last.wrapping_sub(first) / TICKS_PER_SECOND,
            _ => 0,
        };
        if let Some(b) = self.out.get_mut(LENGTH_OFFSET..LENGTH_OFFSET + 4) {
            b.copy_from_slice(&length.to_be_bytes());
        }
        let mut markers = Vec::with_capacity(MARKERS_LEN);
        markers.extend_from_slice(&(self.markers.len() as i32).to_be_bytes());
        for m in &self.markers {
            markers.extend_from_slice(&m.to_be_bytes());
        }
        if let Some(b) = self.out.get_mut(HEADER_LEN..HEADER_LEN + markers.len()) {
            b.copy_from_slice(&markers);
        }
        self.out
    }
}

/// Server ticks per second.
pub const TICKS_PER_SECOND: i32 = 50;

/// The ticks `from..=to` of a demo (either end open) as a demo of its own,
/// as the recorder would have written it: the same header (map, type,
/// timestamp; the length of the part, the timeline markers inside it), a
/// keyframe at the first tick kept, deltas after it, the messages of the
/// kept ticks.
///
/// With both ends open every tick, snapshot and message comes back the
/// same. The bytes come back the same when the file's deltas list their
/// items in the order the reader rebuilds snapshots in (as this crate's
/// writer does, and as the demos of the live tests' single client did): a
/// 0.7.5 server lists a delta's items in the order of its own snapshot of
/// that tick, which the demo does not hold, so with players coming and
/// going a delta may list the same items in another order.
///
/// A demo cut short gives the part before the cut and the cut.
pub fn slice(
    data: &[u8],
    from: Option<i32>,
    to: Option<i32>,
) -> Result<(Vec<u8>, Option<DemoFileError>), DemoFileError> {
    let mut r = DemoReader::new(data)?;
    let h = r.header().clone();
    let mut w =
        DemoWriter::new(&h.map_name, h.map_crc, r.map_file(), &h.kind).timestamp(&h.timestamp);
    if h.version >= 5 {
        w = w.version_5();
    }
    let keep = |t: i32| from.is_none_or(|f| t >= f) && to.is_none_or(|l| t <= l);
    w.set_markers(
        &h.timeline_markers
            .iter()
            .copied()
            .filter(|&t| keep(t))
            .collect::<Vec<_>>(),
    );
    // A tick marker is written with the tick's snapshot (or, when the
    // snapshot did not change, when the next thing of the tick comes).
    let mut pending: Option<i32> = None;
    let flush = |pending: &mut Option<i32>, r: &DemoReader<'_>, w: &mut DemoWriter| {
        if let (Some(p), Some(snap)) = (pending.take(), r.snapshot()) {
            w.snapshot(p, snap);
        }
    };
    let mut cut = None;
    while let Some(event) = r.next() {
        let event = match event {
            Ok(e) => e,
            Err(e) if e.is_truncation() => {
                cut = Some(e);
                break;
            }
            Err(e) => return Err(e),
        };
        match event {
            DemoEvent::Tick { tick, .. } => {
                flush(&mut pending, &r, &mut w);
                pending = keep(tick).then_some(tick);
            }
            DemoEvent::Snapshot { tick, .. } => {
                if let (true, Some(snap)) = (keep(tick), r.snapshot()) {
                    w.snapshot(tick, snap);
                }
                pending = None;
            }
            DemoEvent::Message { tick, data } => {
                flush(&mut pending, &r, &mut w);
                // (Messages before the first tick marker have tick -1: a
                // recording started while clients were in the game.)
                if keep(tick) {
                    w.message(&data);
                }
            }
        }
    }
    flush(&mut pending, &r, &mut w);
    Ok((w.finish(), cut))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::msg::{GameMessage, SvChat};

    /// Characters (type 10, 22 ints in 0.7.5) whose positions move with
    /// `t`, and an unchanging game-data item (type 6, 3 ints).
    fn snap_at(t: i32, players: u16) -> Snapshot {
        let mut s = Snapshot::new();
        for p in 0..players {
            let mut d = vec![0; 22];
            d[0] = t;
            d[1] = 100 + t * 3 + i32::from(p);
            d[2] = 200 - t;
            s.insert(10, p, d).unwrap();
        }
        s.insert(6, 0, vec![1, 2, 3]).unwrap();
        s
    }

    fn chat(text: &str) -> Vec<u8> {
        Message::Game(GameMessage::SvChat(SvChat {
            mode: 1,
            client_id: 3,
            target_id: -1,
            message: text.into(),
        }))
        .encode()
    }

    /// The ticks of the tick markers among `events`.
    fn marker_ticks(events: &[DemoEvent]) -> Vec<i32> {
        events
            .iter()
            .filter_map(|e| match e {
                DemoEvent::Tick { tick, .. } => Some(*tick),
                _ => None,
            })
            .collect()
    }

    /// (tick, read whole) of the snapshot events among `events`.
    fn snapshot_events(events: &[DemoEvent]) -> Vec<(i32, bool)> {
        events
            .iter()
            .filter_map(|e| match e {
                DemoEvent::Snapshot { tick, full } => Some((*tick, *full)),
                _ => None,
            })
            .collect()
    }

    /// Reads every event, and the snapshot after each snapshot event.
    fn read_all(file: &[u8]) -> (Vec<DemoEvent>, Vec<Snapshot>, Option<DemoFileError>) {
        let mut r = DemoReader::new(file).unwrap();
        let (mut events, mut snaps) = (Vec::new(), Vec::new());
        while let Some(e) = r.next() {
            match e {
                Ok(e) => {
                    if matches!(e, DemoEvent::Snapshot { .. }) {
                        snaps.push(r.snapshot().unwrap().clone());
                    }
                    events.push(e);
                }
                Err(e) => return (events, snaps, Some(e)),
            }
        }
        (events, snaps, None)
    }

    /// Ticks 100.., 1 or 2 apart, with jumps of 40 (past a v5 inline
    /// delta, within v4's) and 300 (past a keyframe interval), snapshots
    /// that change and some that do not, messages big and small.
    fn record(v5: bool) -> (Vec<u8>, Vec<(i32, Snapshot)>, Vec<String>) {
        let mut w = DemoWriter::new("dm1", 0xdead_beef, b"not really a map", "server");
        if v5 {
            w = w.version_5();
        }
        let mut snaps = Vec::new();
        let mut said = Vec::new();
        let mut t = 100;
        for step in 0..60 {
            t += match step {
                20 => 40,
                40 => 300,
                s if s % 3 == 0 => 2,
                _ => 1,
            };
            // Every fifth snapshot repeats the one before: an empty delta.
            let s = if step % 5 == 4 {
                snaps
                    .last()
                    .map(|(_, s): &(i32, Snapshot)| s.clone())
                    .unwrap()
            } else {
                snap_at(t, 3)
            };
            w.snapshot(t, &s);
            snaps.push((t, s));
            if step % 7 == 0 {
                // 10 bytes, 40 bytes and 600 bytes: all three size forms.
                let text = "x".repeat([4, 34, 250][step % 3]) + &step.to_string();
                w.message(&chat(&text));
                said.push(text);
            }
            if step == 30 {
                w.marker();
            }
        }
        (w.finish(), snaps, said)
    }

    #[test]
    fn what_the_writer_records_the_reader_reads_back() {
        for v5 in [false, true] {
            let (file, snaps, said) = record(v5);
            let r = DemoReader::new(&file).unwrap();
            let h = r.header().clone();
            assert_eq!(h.version, if v5 { 5 } else { 4 });
            assert_eq!(h.net_version, "0.7 802f1be60a05665f");
            assert_eq!(
                (h.map_name.as_str(), h.map_crc, h.map_size),
                ("dm1", 0xdead_beef, 16)
            );
            // Whole seconds from the first tick to the last.
            let span = snaps.last().unwrap().0 - snaps[0].0;
            assert_eq!((h.kind.as_str(), h.length), ("server", span / 50));
            assert_eq!(r.map_file(), b"not really a map");
            assert_eq!(h.timeline_markers.len(), 1);
            let (events, got, err) = read_all(&file);
            assert!(err.is_none(), "{err:?}");
            // One tick marker per snapshot recorded; the snapshot of every
            // tick is known, empty deltas being skipped.
            assert_eq!(
                marker_ticks(&events),
                snaps.iter().map(|(t, _)| *t).collect::<Vec<_>>()
            );
            // The first snapshot and the one after the 300-tick jump are
            // keyframes; every other snapshot that changed is a delta.
            let snapshots = snapshot_events(&events);
            assert_eq!(snapshots.iter().filter(|(_, full)| *full).count(), 2);
            // Each snapshot event carries the snapshot recorded at its tick.
            let by_tick: Vec<(i32, &Snapshot)> =
                snapshots.iter().map(|(t, _)| *t).zip(&got).collect();
            assert!(by_tick.len() >= 40, "{} snapshots", by_tick.len());
            for (tick, s) in by_tick {
                let want = &snaps.iter().find(|(t, _)| *t == tick).unwrap().1;
                let mut items = s.items().to_vec();
                let mut want_items = want.items().to_vec();
                items.sort_by_key(|i| i.key());
                want_items.sort_by_key(|i| i.key());
                assert_eq!(items, want_items, "tick {tick}");
                assert_eq!(s.crc(), want.crc());
            }
            let texts: Vec<String> = events
                .iter()
                .filter_map(|e| match e {
                    DemoEvent::Message { data, .. } => match decode_message(data).unwrap() {
                        Message::Game(GameMessage::SvChat(c)) => Some(c.message),
                        other => panic!("{other:?}"),
                    },
                    _ => None,
                })
                .collect();
            assert_eq!(texts, said);
        }
    }

    #[test]
    fn a_slice_starts_with_a_keyframe_and_keeps_the_ticks_inside() {
        let (file, snaps, _) = record(false);
        // Both ends open: the same file.
        assert_eq!(slice(&file, None, None).unwrap(), (file.clone(), None));
        let (from, to) = (snaps[10].0, snaps[30].0);
        let (part, cut) = slice(&file, Some(from), Some(to)).unwrap();
        assert!(cut.is_none());
        let (events, got, err) = read_all(&part);
        assert!(err.is_none(), "{err:?}");
        assert_eq!(
            events.first(),
            Some(&DemoEvent::Tick {
                tick: from,
                keyframe: true
            })
        );
        assert!(matches!(
            events.get(1),
            Some(DemoEvent::Snapshot { full: true, .. })
        ));
        let ticks = marker_ticks(&events);
        let want: Vec<i32> = snaps
            .iter()
            .map(|(t, _)| *t)
            .filter(|t| (from..=to).contains(t))
            .collect();
        assert_eq!(ticks, want);
        // Every snapshot in the slice is the one recorded at its tick.
        for ((tick, _), s) in snapshot_events(&events).into_iter().zip(&got) {
            let want = &snaps.iter().find(|(t, _)| *t == tick).unwrap().1;
            assert_eq!(s.crc(), want.crc(), "tick {tick}");
            assert_eq!(s.len(), want.len(), "tick {tick}");
        }
        let h = DemoReader::new(&part).unwrap().header().clone();
        assert_eq!(h.length, (to - from) / 50);
        assert_eq!(h.timeline_markers, vec![snaps[30].0]);
        // A cut file: the part before the cut, and the cut.
        let (part, cut) = slice(&file[..file.len() - 3], None, None).unwrap();
        assert!(cut.is_some_and(|c| c.is_truncation()));
        assert!(DemoReader::new(&part).is_ok());
    }

    #[test]
    fn each_chunk_header_form_is_written_and_read() {
        let (file, _, _) = record(false);
        // The chunk headers actually used: absolute and inline tick markers,
        // keyframes, and data sizes of each of the three forms.
        let mut r = DemoReader::new(&file).unwrap();
        let (mut forms, mut absolute, mut inline) = (std::collections::BTreeSet::new(), 0, 0);
        loop {
            let at = r.position();
            let Some(e) = r.next() else { break };
            let first = file[at];
            match e.unwrap() {
                DemoEvent::Tick { .. } => {
                    if r.position() - at == 5 {
                        absolute += 1;
                    } else {
                        inline += 1;
                    }
                }
                _ => {
                    forms.insert((first & 0x1f).min(30 + u8::from(first & 0x1f == 31)));
                }
            }
        }
        assert!(absolute >= 2 && inline >= 40, "{absolute} {inline}");
        assert!(forms.contains(&30) && forms.contains(&31), "{forms:?}");
        assert!(forms.iter().any(|&f| f < 30), "{forms:?}");
    }

    #[test]
    fn a_cut_demo_keeps_what_came_before_and_says_where() {
        let (file, _, _) = record(true);
        let (all, _, _) = read_all(&file);
        let start = DemoReader::new(&file).unwrap().position();
        for cut in (0..file.len()).step_by(7) {
            let part = &file[..cut];
            match DemoReader::new(part) {
                Err(e) => {
                    assert!(cut < start, "cut at {cut}: {e}");
                    assert!(
                        e.is_truncation() || matches!(e, DemoFileError::BadMagic { .. }),
                        "{e}"
                    );
                }
                Ok(_) => {
                    let (events, _, err) = read_all(part);
                    // What was read is the start of the whole demo.
                    assert_eq!(events[..], all[..events.len()], "cut at {cut}");
                    if let Some(e) = err {
                        assert!(e.is_truncation(), "cut at {cut}: {e}");
                        let DemoFileError::Truncated {
                            offset, available, ..
                        } = e
                        else {
                            unreachable!()
                        };
                        assert!(offset < cut && offset + available == cut, "{e}");
                    }
                }
            }
        }
    }

    #[test]
    fn bad_headers_and_chunks_are_errors() {
        let (file, _, _) = record(false);
        let mut f = file.clone();
        f[0] = b'X';
        assert!(matches!(
            DemoReader::new(&f),
            Err(DemoFileError::BadMagic { .. })
        ));
        let mut f = file.clone();
        f[7] = 6;
        assert_eq!(
            DemoReader::new(&f).err(),
            Some(DemoFileError::UnsupportedVersion(6))
        );
        let mut f = file.clone();
        f[8..11].copy_from_slice(b"0.6");
        assert!(matches!(
            DemoReader::new(&f),
            Err(DemoFileError::UnsupportedNetVersion(_))
        ));
        let mut f = file.clone();
        f[176..180].copy_from_slice(&65i32.to_be_bytes());
        assert!(matches!(
            DemoReader::new(&f),
            Err(DemoFileError::BadHeader { .. })
        ));
        let mut f = file.clone();
        f[136..140].copy_from_slice(&i32::MAX.to_be_bytes());
        assert!(DemoReader::new(&f).unwrap_err().is_truncation());
        // A delta first: no snapshot to apply it to.
        let mut w = DemoWriter::new("dm1", 0, b"", "server");
        w.snapshot(10, &snap_at(1, 1));
        w.snapshot(11, &snap_at(2, 1));
        let mut f = w.finish();
        let start = DemoReader::new(&f).unwrap().position();
        // Drop the first tick marker and the full snapshot after it.
        let mut r = DemoReader::new(&f).unwrap();
        r.next();
        r.next();
        let second = r.position();
        f.drain(start..second);
        let (_, _, err) = read_all(&f);
        let err = err.unwrap();
        assert!(
            err.to_string().contains("a delta before any full snapshot"),
            "{err}"
        );
        // A data chunk of type 0.
        let mut f = DemoWriter::new("dm1", 0, b"", "server").finish();
        f.push(0x01);
        f.push(0);
        let (_, _, err) = read_all(&f);
        assert!(
            matches!(err, Some(DemoFileError::UnknownChunk { .. })),
            "{err:?}"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// Arbitrary chunk bytes after a valid header: events or an error,
        /// never a panic, and the reader always moves forward.
        #[test]
        fn arbitrary_chunks_never_panic(body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..600)) {
            let mut f = DemoWriter::new("dm1", 0, b"", "server").finish();
            f.extend_from_slice(&body);
            let mut r = DemoReader::new(&f).unwrap();
            let mut last = r.position();
            while let Some(e) = r.next() {
                if e.is_err() {
                    break;
                }
                proptest::prop_assert!(r.position() > last);
                last = r.position();
            }
        }
    }
}
