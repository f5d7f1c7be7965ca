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
/// the fragment and the byte offset of the cut record.
pub fn to_demo(fragments: &[Fragment]) -> (Vec<u8>, Option<DemoError>) {
    let total: usize = fragments.iter().map(|f| f.data.len()).sum();
    let mut out = Vec::with_capacity(total + 64);
    out.extend_from_slice(MAGIC_SOURCE2);
    out.extend_from_slice(&[0; 8]);
    let mut frame = 0u64;
    let mut last_tick = -1i32;
    let mut error = None;
    'fragments: for f in fragments {
        let data = f.data.as_slice();
        let mut pos = 0usize;
        while pos < data.len() {
            let start = pos;
            let fail = |inner: ErrorKind| DemoError {
                kind: ErrorKind::Broadcast {
                    fragment: f.name.clone(),
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
            let cmd = match crate::container::read_varint32(data, &mut pos, "broadcast command") {
                Ok(c) => c,
                Err(kind) => {
                    error = Some(fail(kind));
                    break 'fragments;
                }
            };
            let Some(head) = data.get(pos..pos + 5) else {
                error = Some(fail(truncated("broadcast record header", 5, pos)));
                break 'fragments;
            };
            let tick = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
            pos += 5;
            if DemoCommand::from_raw(cmd) == DemoCommand::Stop {
                break 'fragments;
            }
            let Some(size) = data
                .get(pos..pos + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            else {
                error = Some(fail(truncated("broadcast record size", 4, pos)));
                break 'fragments;
            };
            pos += 4;
            let Some(payload) = pos.checked_add(size).and_then(|end| data.get(pos..end)) else {
                error = Some(fail(truncated("broadcast record payload", size, pos)));
                break 'fragments;
            };
            pos += size;
            encode_varint(u64::from(cmd), &mut out);
            encode_varint(u64::from(tick), &mut out);
            if matches!(
                DemoCommand::from_raw(cmd),
                DemoCommand::Packet | DemoCommand::SignonPacket
            ) {
                // Packets come bare; a demo wraps them in CDemoPacket
                // (field 3, `data`, length-delimited).
                let len = payload.len() as u64;
                encode_varint(1 + encoded_len_varint(len) as u64 + len, &mut out);
                out.push(0x1a);
                encode_varint(len, &mut out);
            } else {
                encode_varint(payload.len() as u64, &mut out);
            }
            out.extend_from_slice(payload);
            frame += 1;
            last_tick = tick as i32;
        }
    }
    // DEM_Stop at the last tick, empty payload.
    encode_varint(0, &mut out);
    encode_varint(last_tick.max(0) as u64, &mut out);
    encode_varint(0, &mut out);
    (out, error)
}
