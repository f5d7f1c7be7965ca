//! Source 2 HTTP broadcast fragments (CSTV+, Deadlock and Dota 2 relays).
//!
//! A broadcast is served as numbered fragments instead of one file: a
//! `sync.json` (`{"tick", "fragment", "signup_fragment", "tps", "map", ...}`),
//! `<signup>/start.bin` (the signon: send tables, class info, string tables),
//! then per fragment `<n>/full.bin` (a keyframe: spawn groups and a full
//! entity snapshot) and `<n>/delta.bin` (the packets that follow). Playback
//! is `start.bin`, the first fragment's `full.bin`, then `delta.bin` of that
//! fragment and of each one after it.
//!
//! Each fragment is a run of records carrying the same demo commands as a
//! `.dem` frame, with a different header:
//!
//! ```text
//! varint   command (EDemoCommands; never compressed here)
//! u32 LE   tick
//! u8       (unused, 0)
//! u32 LE   payload size      (absent after DEM_Stop, which ends a broadcast)
//! bytes    payload           (packets bare, not wrapped in CDemoPacket)
//! ```
//!
//! (Layout read off the corpus fragments of saul/demofile-net's test data and
//! its `HttpBroadcastReader`.) [`to_demo`] rewrites the records as `.dem`
//! frames, so the regular [`crate::DemoParser`] reads a broadcast: every
//! entity, event and message, to the last tick received. Finding the
//! fragments of a broadcast on disk (its `sync.json`, which fragments to
//! play) is the caller's part: `gamewire_query::input` does it.

use prost::encoding::{encode_varint, encoded_len_varint};

use crate::container::{DemoCommand, MAGIC_SOURCE2};
use crate::error::{DemoError, ErrorKind, Location};

/// One fragment's bytes and its name (for errors).
#[derive(Debug, Clone)]
pub struct Fragment {
    /// `0/start.bin`, `35/full.bin`, ...
    pub name: String,
    /// The fragment's bytes.
    pub data: Vec<u8>,
}

/// Rewrites broadcast fragments as a `.dem` byte stream (magic, eight unused
/// bytes, frames, a final `DEM_Stop`).
///
/// A fragment that ends inside a record stops the conversion there: the
/// returned bytes hold every complete record before it, and the error names
/// the fragment and the byte offset of the cut record. The fragments go
/// through one [`Converter`], as a live reader feeds it fragment by
/// fragment.
pub fn to_demo(fragments: &[Fragment]) -> (Vec<u8>, Option<DemoError>) {
    let total: usize = fragments.iter().map(|f| f.data.len()).sum();
    let mut out = Vec::with_capacity(total + 64);
    let mut converter = Converter::new();
    converter.header(&mut out);
    let mut error = None;
    for f in fragments {
        match converter.push(&f.name, &f.data, &mut out) {
            Ok(Pushed::Records) => {}
            Ok(Pushed::Stop) => break,
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    converter.finish(&mut out);
    (out, error)
}

/// What a fragment held, for the caller of [`Converter::push`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pushed {
    /// Records, all converted: the broadcast goes on.
    Records,
    /// A `DEM_Stop` record: the broadcast ends here (the records before it
    /// are converted; nothing after it is read).
    Stop,
}

/// The incremental form of [`to_demo`]: fed one fragment at a time, it
/// appends the `.dem` bytes of each as it comes, so a reader of a live
/// broadcast holds one fragment at a time, never the whole broadcast.
///
/// [`Converter::header`] writes the file's first 16 bytes once,
/// [`Converter::push`] each fragment's records as frames, and
/// [`Converter::finish`] the closing `DEM_Stop` (at the last tick
/// converted). The bytes are those of [`to_demo`] on the same fragments.
#[derive(Debug, Clone, Default)]
pub struct Converter {
    /// Frames written.
    frame: u64,
    /// Tick of the last record converted (-1 before the first).
    last_tick: i32,
}

impl Converter {
    /// A converter before the first fragment.
    pub fn new() -> Converter {
        Converter {
            frame: 0,
            last_tick: -1,
        }
    }

    /// Appends the `.dem` file header: the Source 2 magic and eight unused
    /// bytes (a broadcast has no file-info offsets).
    pub fn header(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(MAGIC_SOURCE2);
        out.extend_from_slice(&[0; 8]);
    }

    /// Tick of the last record converted (-1 before the first).
    pub fn last_tick(&self) -> i32 {
        self.last_tick
    }

    /// Frames written so far.
    pub fn frames(&self) -> u64 {
        self.frame
    }

    /// Appends the records of one fragment (`data`, named `name` in errors)
    /// to `out` as `.dem` frames.
    ///
    /// A record cut short is an error naming the fragment and the byte
    /// offset of the record in it; the complete records before it are in
    /// `out` already.
    pub fn push(
        &mut self,
        name: &str,
        data: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<Pushed, DemoError> {
        let mut pos = 0usize;
        while pos < data.len() {
            let start = pos;
            let (frame, last_tick) = (self.frame, self.last_tick);
            let fail = |inner: ErrorKind| DemoError {
                kind: ErrorKind::Broadcast {
                    fragment: name.to_string(),
                    inner: Box::new(inner),
                },
                location: Location {
                    byte_offset: start as u64,
                    frame,
                    tick: last_tick,
                },
            };
            let truncated = |what: &'static str, needed: usize, at: usize| ErrorKind::Truncated {
                what,
                needed: needed as u64,
                available: data.len().saturating_sub(at) as u64,
            };
            let cmd = crate::container::read_varint32(data, &mut pos, "broadcast command")
                .map_err(fail)?;
            let Some(head) = data.get(pos..pos + 5) else {
                return Err(fail(truncated("broadcast record header", 5, pos)));
            };
            let tick = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
            pos += 5;
            if DemoCommand::from_raw(cmd) == DemoCommand::Stop {
                return Ok(Pushed::Stop);
            }
            let Some(size) = data
                .get(pos..pos + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            else {
                return Err(fail(truncated("broadcast record size", 4, pos)));
            };
            pos += 4;
            let Some(payload) = pos.checked_add(size).and_then(|end| data.get(pos..end)) else {
                return Err(fail(truncated("broadcast record payload", size, pos)));
            };
            pos += size;
            encode_varint(u64::from(cmd), out);
            encode_varint(u64::from(tick), out);
            if matches!(
                DemoCommand::from_raw(cmd),
                DemoCommand::Packet | DemoCommand::SignonPacket
            ) {
                // Packets come bare; a demo wraps them in CDemoPacket
                // (field 3, `data`, length-delimited).
                let len = payload.len() as u64;
                encode_varint(1 + encoded_len_varint(len) as u64 + len, out);
                out.push(0x1a);
                encode_varint(len, out);
            } else {
                encode_varint(payload.len() as u64, out);
            }
            out.extend_from_slice(payload);
            self.frame += 1;
            self.last_tick = tick as i32;
        }
        Ok(Pushed::Records)
    }

    /// Appends the closing `DEM_Stop` frame: at the last tick converted,
    /// with an empty payload.
    pub fn finish(&self, out: &mut Vec<u8>) {
        encode_varint(0, out);
        encode_varint(self.last_tick.max(0) as u64, out);
        encode_varint(0, out);
    }
}
