//! `broadcast`: a demo written as the fragments of an HTTP broadcast
//! (CSTV+, the Deadlock and Dota 2 relays), the inverse of
//! [`crate::broadcast::to_demo`].
//!
//! A relay serves a match as numbered fragments of a few seconds each
//! (`docs/formats/source2-demo.md`, and [`crate::broadcast`] for the record
//! layout: a varint command, a `u32` tick, an unused byte, a `u32` size,
//! the payload; packets bare, not wrapped in `CDemoPacket`):
//!
//! - `sync.json`: where a client starts (see [`Sync`]);
//! - `<signup>/start.bin`: the signon, which every client reads first;
//! - per fragment `<n>/full.bin`, a keyframe: the whole state at the
//!   fragment's first tick, so that a client can join there;
//! - per fragment `<n>/delta.bin`: the frames of the fragment.
//!
//! A client plays `start.bin`, the `full.bin` of the fragment it joins at,
//! then that fragment's `delta.bin` and every later one. [`broadcast`]
//! writes these from a demo:
//!
//! - `0/start.bin` (the signup fragment is 0): every frame before the first
//!   `DEM_Packet` or `DEM_FullPacket` (the file header, the signon packets,
//!   the send tables, the classes, the string tables, the sync tick), at
//!   their own tick (−1 in the games' demos, sent as `0xffff_ffff`);
//! - fragment `n` (from 1) holds the frames whose tick is in
//!   `t0 + (n − 1)·L .. t0 + n·L`, where `t0` is the tick of the first game
//!   frame and `L` the fragment length in ticks (`fragment_seconds` times
//!   the tick rate, 3 s by default as in CSTV+); a frame with a tick lower
//!   than its predecessor's stays in the fragment of its predecessor;
//! - its `full.bin` is one `DEM_FullPacket` record made as
//!   [`cut`](super::cut()) makes the first frame of a cut: every string
//!   table as it is, and a packet with the last `net_Tick` read and one
//!   `CSVCMsg_PacketEntities` that creates every live entity with all its
//!   fields, the state before the fragment's first frame. (The games'
//!   relays send the spawn groups and a bare packet of string-table
//!   updates and entities instead; a reader of either gets the same state);
//! - its `delta.bin` is the fragment's frames, each as a record, the
//!   demo's own full packets included (a reader applies their string
//!   tables, and their entities only when it holds none, as in a demo);
//!   the last fragment ends with a `DEM_Stop` record;
//! - a tick range with no frame (a pause in the recording longer than a
//!   fragment) still has its fragment, with an empty `delta.bin`, so that
//!   the numbering has no gap.
//!
//! What holds: read from fragment `k` on (`start.bin`, `k/full.bin`,
//! `k/delta.bin`, ...), the broadcast decodes, from the first tick of
//! fragment `k` on, to the demo's state on every tick: every entity with
//! every field value, every string table, the game events and user
//! messages. From fragment 1 that is every tick of the demo. The ticks
//! before fragment `k` are absent when a client joins there, by design.
//!
//! The frames are taken as they are decompressed (a fragment is never
//! compressed); the `DEM_FileInfo` after `DEM_Stop` is not sent (a
//! relay has none).

use std::io::Read;

use prost::Message;
use source2_demo_protobufs as pb;

use crate::broadcast::Fragment;
use crate::container::{DemoCommand, Frame};
use crate::error::{DemoError, ErrorKind, Location};
use crate::state::DemoState;

use super::frames::StreamFrame;
use super::{EditReport, Flow, FrameEdit, FrameLoop, Step};

/// The fragment length of CSTV+ by default, in seconds.
pub const DEFAULT_FRAGMENT_SECONDS: f64 = 3.0;

/// The number of the signup fragment (the one holding `start.bin`).
pub const SIGNUP_FRAGMENT: u32 = 0;

/// The version of the fragment layout that the corpus's relay captures
/// announce in their `sync.json` (`"protocol": 5`), which this writer
/// keeps.
pub const PROTOCOL: u32 = 5;

/// What a broadcast's `sync.json` says: where a client starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Sync {
    /// First tick of the fragment to start at.
    pub tick: i32,
    /// First tick after that fragment.
    pub endtick: i32,
    /// Last tick of the broadcast.
    pub maxtick: i32,
    /// The fragment to start at (the first one written: 1).
    pub fragment: u32,
    /// The fragment holding `start.bin` ([`SIGNUP_FRAGMENT`]).
    pub signup_fragment: u32,
    /// Ticks per second (the reciprocal of the server's tick interval).
    pub tps: u32,
    /// Seconds per fragment.
    pub keyframe_interval: f64,
    /// The map, when the demo names it.
    pub map: Option<String>,
    /// [`PROTOCOL`].
    pub protocol: u32,
}

impl Sync {
    /// The `sync.json` text (one JSON object, as the relays serve it).
    pub fn to_json(&self) -> String {
        let mut v = serde_json::json!({
            "tick": self.tick,
            "endtick": self.endtick,
            "maxtick": self.maxtick,
            "fragment": self.fragment,
            "signup_fragment": self.signup_fragment,
            "tps": self.tps,
            "keyframe_interval": self.keyframe_interval,
            "protocol": self.protocol,
        });
        if let (Some(map), Some(obj)) = (&self.map, v.as_object_mut()) {
            obj.insert("map".into(), serde_json::Value::String(map.clone()));
        }
        // A whole number of seconds is written as an integer, as the
        // relays write it.
        if self.keyframe_interval.fract() == 0.0 && self.keyframe_interval.abs() < 1e9 {
            if let Some(obj) = v.as_object_mut() {
                obj.insert(
                    "keyframe_interval".into(),
                    serde_json::Value::from(self.keyframe_interval as i64),
                );
            }
        }
        v.to_string()
    }
}

/// A demo written as a broadcast: the `sync.json` fields and the fragments
/// (`0/start.bin`, then `n/full.bin` and `n/delta.bin` for each `n` from
/// 1), named by their path in the broadcast folder.
#[derive(Debug, Clone)]
pub struct Broadcast {
    /// What `sync.json` says.
    pub sync: Sync,
    /// The fragments, in playback order: `start.bin`, then for each
    /// fragment its `full.bin` and its `delta.bin`.
    pub fragments: Vec<Fragment>,
    /// Frames read, where the input ended when it ended early.
    pub report: EditReport,
}

impl Broadcast {
    /// The number of game fragments (1 to this number).
    pub fn fragment_count(&self) -> u32 {
        (self.fragments.len().saturating_sub(1) / 2) as u32
    }

    /// The fragments a client that joins at fragment `k` reads, in order:
    /// `start.bin`, `k/full.bin`, then `delta.bin` of `k` and of each later
    /// fragment. Empty when there is no fragment `k`.
    pub fn joined_at(&self, k: u32) -> Vec<Fragment> {
        let Some(at) = (k as usize)
            .checked_sub(1)
            .map(|i| 1 + 2 * i)
            .filter(|&i| i < self.fragments.len())
        else {
            return Vec::new();
        };
        let mut out: Vec<Fragment> = self.fragments.iter().take(1).cloned().collect();
        out.extend(self.fragments.get(at).cloned());
        out.extend(self.fragments.iter().skip(at + 1).step_by(2).cloned());
        out
    }

    /// The first tick of fragment `k` (1 to [`Broadcast::fragment_count`]).
    pub fn fragment_tick(&self, k: u32) -> Option<i32> {
        if k == 0 || k > self.fragment_count() {
            return None;
        }
        let len = self.sync.endtick.checked_sub(self.sync.tick)?;
        self.sync.tick.checked_add(len.checked_mul(k as i32 - 1)?)
    }
}

/// Writes the demo read from `input` as broadcast fragments of
/// `fragment_seconds` seconds each (see the module documentation).
///
/// A demo that ends early is written up to where it ends (the report says
/// where). A fragment length that is not a positive number of seconds, or
/// a demo with no game frame, is an error.
pub fn broadcast<R: Read>(input: R, fragment_seconds: f64) -> Result<Broadcast, DemoError> {
    let mut frames = FrameLoop::new(input)?;
    if !(fragment_seconds.is_finite() && fragment_seconds > 0.0) {
        return Err(DemoError {
            kind: ErrorKind::Unwritable {
                what: "a broadcast",
                reason: format!(
                    "a fragment of {fragment_seconds} seconds: the length must be positive"
                ),
            },
            location: Location::default(),
        });
    }
    let mut edit = Writer {
        fragment_seconds,
        start: Vec::new(),
        fragments: Vec::new(),
        current: None,
        net_tick: None,
        first_tick: 0,
        ticks_per_fragment: 1,
        last_tick: -1,
        tps: 0,
    };
    frames.run(&mut edit)?;
    let Writer {
        start,
        mut fragments,
        current,
        first_tick,
        ticks_per_fragment,
        last_tick,
        tps,
        ..
    } = edit;
    let Some(mut current) = current else {
        return Err(DemoError {
            kind: ErrorKind::Unwritable {
                what: "a broadcast",
                reason: "the demo has no game frame (DEM_Packet or DEM_FullPacket)".into(),
            },
            location: Location {
                byte_offset: frames.stream.offset(),
                frame: frames.stream.frame_index(),
                tick: frames.stream.last_tick(),
            },
        });
    };
    // DEM_Stop ends the broadcast (no size, no payload).
    record_head(&mut current.delta, DemoCommand::Stop, last_tick.max(0));
    fragments.push(current);
    let mut out = Vec::with_capacity(1 + 2 * fragments.len());
    out.push(Fragment {
        name: format!("{SIGNUP_FRAGMENT}/start.bin"),
        data: start,
    });
    for f in fragments {
        out.push(Fragment {
            name: format!("{}/full.bin", f.number),
            data: f.full,
        });
        out.push(Fragment {
            name: format!("{}/delta.bin", f.number),
            data: f.delta,
        });
    }
    let map = frames.parser.state.map_name().map(str::to_string);
    Ok(Broadcast {
        sync: Sync {
            tick: first_tick,
            endtick: first_tick.saturating_add(ticks_per_fragment),
            maxtick: last_tick,
            fragment: 1,
            signup_fragment: SIGNUP_FRAGMENT,
            tps,
            keyframe_interval: fragment_seconds,
            map,
            protocol: PROTOCOL,
        },
        fragments: out,
        report: frames.report,
    })
}

/// One game fragment being written.
struct Open {
    number: u32,
    full: Vec<u8>,
    delta: Vec<u8>,
}

/// The broadcast writer in the frame loop.
struct Writer {
    fragment_seconds: f64,
    /// `start.bin`.
    start: Vec<u8>,
    /// The fragments closed.
    fragments: Vec<Open>,
    /// The fragment being written; `None` while in the signon.
    current: Option<Open>,
    /// The last net_Tick message read, as its body.
    net_tick: Option<Vec<u8>>,
    /// Tick of the first game frame (the start of fragment 1).
    first_tick: i32,
    /// Fragment length in ticks (at least 1).
    ticks_per_fragment: i32,
    /// Tick of the last frame written.
    last_tick: i32,
    /// Ticks per second.
    tps: u32,
}

impl FrameEdit for Writer {
    fn before(&mut self, next: &StreamFrame<'_>, state: &DemoState) -> Result<Step, DemoError> {
        let frame = &next.frame;
        if matches!(frame.command, DemoCommand::Stop | DemoCommand::FileInfo) {
            return Ok(Step::Apply);
        }
        let game_frame = matches!(frame.command, DemoCommand::Packet | DemoCommand::FullPacket);
        let Some(current) = self.current.as_ref() else {
            if !game_frame {
                record(&mut self.start, frame)?;
                return Ok(Step::Apply);
            }
            // The first game frame opens fragment 1.
            let interval = f64::from(state.tick_interval);
            let tps = if interval > 0.0 {
                (1.0 / interval).round()
            } else {
                64.0
            };
            self.tps = tps as u32;
            self.ticks_per_fragment = ((self.fragment_seconds * tps).round() as i32).max(1);
            self.first_tick = frame.tick;
            self.current = Some(self.open(1, state, frame)?);
            return self.write(frame);
        };
        let number = self.fragment_of(frame.tick).max(current.number);
        if number > current.number {
            // The state before this frame is the state at the start of
            // every fragment opened here (the ones between had no frame).
            let full = keyframe(state, self.net_tick.as_deref(), frame)?;
            for n in current.number + 1..=number {
                let tick = if n == number {
                    frame.tick
                } else {
                    self.fragment_start(n)
                };
                let open = Open {
                    number: n,
                    full: full_record(&full, tick, frame)?,
                    delta: Vec::new(),
                };
                if let Some(done) = self.current.replace(open) {
                    self.fragments.push(done);
                }
            }
        }
        self.write(frame)
    }

    fn after(&mut self, _frame: &StreamFrame<'_>, _state: &DemoState) -> Result<Flow, DemoError> {
        Ok(Flow::Continue)
    }
}

impl Writer {
    /// The fragment a frame at `tick` belongs in (ticks before fragment 1
    /// go in fragment 1).
    fn fragment_of(&self, tick: i32) -> u32 {
        let since = i64::from(tick) - i64::from(self.first_tick);
        let n = since.max(0) / i64::from(self.ticks_per_fragment);
        u32::try_from(n.saturating_add(1)).unwrap_or(u32::MAX)
    }

    /// The first tick of fragment `n`.
    fn fragment_start(&self, n: u32) -> i32 {
        let t = i64::from(self.first_tick)
            + i64::from(n.saturating_sub(1)) * i64::from(self.ticks_per_fragment);
        i32::try_from(t).unwrap_or(i32::MAX)
    }

    /// Fragment `n`, opened at `frame` with the keyframe of `state`.
    fn open(&self, n: u32, state: &DemoState, frame: &Frame<'_>) -> Result<Open, DemoError> {
        let full = keyframe(state, self.net_tick.as_deref(), frame)?;
        Ok(Open {
            number: n,
            full: full_record(&full, frame.tick, frame)?,
            delta: Vec::new(),
        })
    }

    /// Writes `frame` into the current fragment's delta, and keeps its last
    /// net_Tick for the next keyframe.
    fn write(&mut self, frame: &Frame<'_>) -> Result<Step, DemoError> {
        if let Some(body) = super::cut::last_net_tick(frame)? {
            self.net_tick = Some(body);
        }
        if let Some(open) = self.current.as_mut() {
            record(&mut open.delta, frame)?;
        }
        self.last_tick = self.last_tick.max(frame.tick);
        Ok(Step::Apply)
    }
}

fn error_at(frame: &Frame<'_>, kind: ErrorKind) -> DemoError {
    DemoError {
        kind,
        location: Location {
            byte_offset: frame.offset,
            frame: frame.index,
            tick: frame.tick,
        },
    }
}

/// The keyframe of `state`: a `CDemoFullPacket` as
/// [`cut`](super::cut()) writes it.
fn keyframe(
    state: &DemoState,
    net_tick: Option<&[u8]>,
    frame: &Frame<'_>,
) -> Result<Vec<u8>, DemoError> {
    super::cut::full_packet(state, net_tick).map_err(|kind| error_at(frame, kind))
}

/// `full.bin`: the keyframe as one `DEM_FullPacket` record at `tick`.
fn full_record(full: &[u8], tick: i32, frame: &Frame<'_>) -> Result<Vec<u8>, DemoError> {
    let mut data = Vec::with_capacity(full.len() + 16);
    record_head(&mut data, DemoCommand::FullPacket, tick);
    push_payload(&mut data, full, frame)?;
    Ok(data)
}

/// A record's size and payload.
fn push_payload(out: &mut Vec<u8>, payload: &[u8], frame: &Frame<'_>) -> Result<(), DemoError> {
    let size = u32::try_from(payload.len()).map_err(|_| {
        error_at(
            frame,
            ErrorKind::Unwritable {
                what: "a broadcast record",
                reason: format!("{} bytes, more than a u32 size", payload.len()),
            },
        )
    })?;
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(payload);
    Ok(())
}

/// A record's command, tick and unused byte.
fn record_head(out: &mut Vec<u8>, command: DemoCommand, tick: i32) {
    prost::encoding::encode_varint(u64::from(command.to_raw()), out);
    out.extend_from_slice(&(tick as u32).to_le_bytes());
    out.push(0);
}

/// Appends `frame` as a broadcast record: a packet's messages bare (its
/// `CDemoPacket`'s `data`), any other command's payload as it is.
fn record(out: &mut Vec<u8>, frame: &Frame<'_>) -> Result<(), DemoError> {
    record_head(out, frame.command, frame.tick);
    match frame.command {
        DemoCommand::Packet | DemoCommand::SignonPacket => {
            let packet = pb::CDemoPacket::decode(&*frame.payload)
                .map_err(|e| error_at(frame, ErrorKind::protobuf("CDemoPacket", e)))?;
            push_payload(out, packet.data.as_deref().unwrap_or_default(), frame)
        }
        _ => push_payload(out, &frame.payload, frame),
    }
}
