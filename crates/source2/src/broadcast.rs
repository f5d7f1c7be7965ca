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
//! entity, event and message, to the last tick received.

use std::path::{Path, PathBuf};

use prost::encoding::{encode_varint, encoded_len_varint};

use crate::container::{DemoCommand, MAGIC_SOURCE2};
use crate::error::{DemoError, ErrorKind, Location};

/// One fragment file's bytes and its name (for errors).
#[derive(Debug, Clone)]
pub struct Fragment {
    /// `0/start.bin`, `35/full.bin`, ...
    pub name: String,
    /// The file's bytes.
    pub data: Vec<u8>,
}

/// The fragments of a broadcast, in playback order.
#[derive(Debug, Clone, Default)]
pub struct Broadcast {
    /// Ticks per second from `sync.json`, if given.
    pub tps: Option<u32>,
    /// Map name from `sync.json`.
    pub map: Option<String>,
    /// The fragments, in playback order.
    pub fragments: Vec<Fragment>,
}

/// An error reading a broadcast directory (missing or unreadable files).
#[derive(Debug, thiserror::Error)]
#[error("broadcast {path}: {message}")]
pub struct BroadcastError {
    /// The directory or file.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

/// True when `dir` looks like a broadcast directory (has a `sync.json`).
pub fn is_broadcast_dir(dir: &Path) -> bool {
    dir.is_dir() && dir.join("sync.json").is_file()
}

/// Reads a broadcast directory: `sync.json`, the signup fragment's
/// `start.bin`, the first later fragment's `full.bin`, and every `delta.bin`
/// from there on, in fragment order (a gap in the numbering ends the list).
pub fn read_dir(dir: &Path) -> Result<Broadcast, BroadcastError> {
    let err = |path: &Path, message: String| BroadcastError {
        path: path.display().to_string(),
        message,
    };
    let sync_path = dir.join("sync.json");
    let sync_text = std::fs::read_to_string(&sync_path)
        .map_err(|e| err(&sync_path, format!("cannot read: {e}")))?;
    let sync: serde_json::Value =
        serde_json::from_str(&sync_text).map_err(|e| err(&sync_path, format!("not JSON: {e}")))?;
    let number = |key: &str| sync.get(key).and_then(serde_json::Value::as_u64);
    let signup = number("signup_fragment").unwrap_or(0);
    let mut numbered: Vec<u64> = std::fs::read_dir(dir)
        .map_err(|e| err(dir, format!("cannot list: {e}")))?
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<u64>().ok()))
        .filter(|&n| n > signup)
        .collect();
    numbered.sort_unstable();
    let first = number("fragment")
        .filter(|f| numbered.contains(f))
        .or_else(|| numbered.first().copied())
        .ok_or_else(|| err(dir, "no fragment after the signup fragment".into()))?;
    let read = |rel: PathBuf| -> Result<Fragment, BroadcastError> {
        let path = dir.join(&rel);
        let data = std::fs::read(&path).map_err(|e| err(&path, format!("cannot read: {e}")))?;
        Ok(Fragment {
            name: rel.display().to_string(),
            data,
        })
    };
    let mut fragments = vec![
        read(PathBuf::from(signup.to_string()).join("start.bin"))?,
        read(PathBuf::from(first.to_string()).join("full.bin"))?,
    ];
    let mut next = first;
    while numbered.contains(&next) && dir.join(next.to_string()).join("delta.bin").is_file() {
        fragments.push(read(PathBuf::from(next.to_string()).join("delta.bin"))?);
        next += 1;
    }
    Ok(Broadcast {
        tps: number("tps").and_then(|t| u32::try_from(t).ok()),
        map: sync.get("map").and_then(|m| m.as_str()).map(str::to_string),
        fragments,
    })
}

/// Reads a broadcast directory and rewrites it as a demo stream: the bytes
/// and, when a fragment was cut, the error that stopped the conversion (the
/// bytes still hold everything before it).
pub fn load(dir: &Path) -> Result<(Vec<u8>, Option<DemoError>), BroadcastError> {
    let b = read_dir(dir)?;
    Ok(to_demo(&b.fragments))
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
