//! `loop`: a demo whose ticks are played again and again, as one longer
//! demo (a clip of seconds made as long as a match, for benchmarks and
//! memory tests).
//!
//! The output holds, in order:
//!
//! 1. the file header (offsets filled in at the end);
//! 2. the input's signon (every frame before its first `DEM_Packet` or
//!    `DEM_FullPacket`), copied as its original bytes;
//! 3. K repeats of the input's ticks. Repeat `k` is the input's ticks
//!    `t0..=t1` moved to `t0 + k·n ..= t1 + k·n`, where `n = t1 − t0 + 1`:
//!    so ticks rise throughout and no two repeats share a tick. Each repeat
//!    is
//!    - a **head** at its first tick, which brings the reader from whatever
//!      it holds (nothing before repeat 0; the input's last state before
//!      the others) to the input's state at the end of its first tick `t0`:
//!      - one `DEM_FullPacket`: every string table as it is then
//!        ([`crate::stringtable_writer::snapshot`]), the last `net_Tick`,
//!        every live entity created with all its fields
//!        ([`crate::entity_writer::full_state`], a non-delta
//!        `CSVCMsg_PacketEntities`) and the entities outside the PVS
//!        leaving it again ([`crate::entity_writer::pvs_leaves`]);
//!      - one `DEM_Packet` holding the same entities as delta messages:
//!        first (from repeat 1 on) every entity the input holds at its end
//!        deleted, then every entity of the head created, then the leaves;
//!      - the input's own frames of tick `t0` without their
//!        `CSVCMsg_PacketEntities` and `CSVCMsg_UpdateStringTable` (the
//!        head carries their result: applied again after it, an update
//!        could undo an entry that a full packet of the input set later in
//!        the tick, as Dota 2's do) and without its `DEM_FullPacket` (the
//!        head's replaces it), so the tick keeps its game events and user
//!        messages;
//!    - then the input's frames after `t0` up to `DEM_Stop`, ticks moved.
//! 4. `DEM_Stop` and a `CDemoFileInfo` for the whole output (below).
//!
//! Why a head holds the same entities twice: readers treat a full packet
//! in the middle of a demo differently. A full packet repeats the world for
//! seeking, so a sequential reader (this crate's parser, demoinfocs-golang,
//! manta, demoparser2 reading sequentially) applies the entities of the
//! first one only and then trusts the delta stream; a reader that splits a
//! demo at its full packets to read the pieces in parallel (demoparser2
//! does) starts each piece from its full packet. The delta `DEM_Packet`
//! after it serves the first kind: a delete removes an entity whatever
//! state it is in, and a create after it starts from the class baseline
//! (the full packet's string tables have just restored the
//! `instancebaseline` entries of tick `t0`) and receives every field the
//! entity holds. For the second kind, the deletes and creates repeat what
//! the full packet gave.
//!
//! Ticks inside messages move with the frame ticks, by the same amount (a
//! server tick is the frame tick plus a constant):
//!
//! | message | field |
//! |---|---|
//! | `CNETMsg_Tick` (4) | `tick` |
//! | `CSVCMsg_PacketEntities` (55) | `delta_from`, `server_tick` |
//! | `CSVCMsg_VoiceData` (47) | `tick` |
//! | `CMsgSource1LegacyGameEvent` (207) | `server_tick` |
//! | CS2 `CMsgTEFireBullets` (452) | `tick` |
//! | Deadlock `CCitadelUserMessage_Damage` (300) | `server_tick` |
//! | `CDemoAnimationHeader` frame | `tick` |
//! | `CDemoAnimationData` frame | `start_tick`, `end_tick` |
//!
//! Every other byte of a message is kept (the fields are patched in the
//! protobuf wire format, so fields this crate's protobuf types do not know
//! survive). Entity fields that hold a tick or a game time
//! (`m_nTickBase`, `m_flSimulationTime`, round start times, ...) are part
//! of the state and repeat with it: repeat `k` decodes to exactly the
//! entities of repeat 0. The spawn-group messages' `tickcount` is the tick
//! a spawn group was created, before the recording, and is kept.
//!
//! `CDemoFileInfo` follows [`crate::edit::cut()`]'s rule: `playback_ticks`
//! the ticks from the first tick written to the last, ends included
//! (K·n), `playback_time` that many ticks at the server's tick interval,
//! `playback_frames` the `DEM_Packet` frames written. The input's frames
//! after `DEM_Stop` (`DEM_SpawnGroups`, its file info) are not copied.
//!
//! Memory: the input is read once per repeat, from the start (it must be
//! [`Seek`]), each time through the edits' frame loop (`FrameLoop`); the
//! first read decodes it (the state at `t0` and at the end are needed), the
//! others only move ticks, frame by frame. The head's full packet is the
//! one [`crate::edit::cut()`] starts with, at the state of `t0`. What is kept
//! between repeats is the head (a full packet and the frames of one tick),
//! so memory does not grow with K, and the output is written as it goes.
//!
//! A demo that ends early (inside a frame, or without `DEM_Stop`) is looped
//! up to where it ends, with a warning; [`EditReport::cut`] says where.

use std::io::{Read, Seek, SeekFrom, Write};

use prost::Message;
use source2_demo_protobufs as pb;

use crate::container::{DemoCommand, Frame};
use crate::container_writer::DemoWriter;
use crate::entity_writer::{
    encode_packet_entities, full_state, pvs_leaves, EntityOp, EntityRecord, PacketEntities,
};
use crate::error::{DemoError, ErrorKind, Location};
use crate::packet_writer::{PacketMessages, PacketWriter};
use crate::state::DemoState;
use crate::wire::{Wire, LEN, VARINT};
use crate::Game;

use super::cut::full_packet;
use super::frames::StreamFrame;
use super::{EditReport, Flow, FrameEdit, FrameLoop, Step};

/// How long the output is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Length {
    /// This many repeats of the input's ticks (at least 1).
    Times(u32),
    /// The fewest repeats that last at least this many minutes at the
    /// demo's tick interval.
    Minutes(f64),
}

/// What a loop did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RepeatReport {
    /// Frames read (every repeat reads the input again) and written, the
    /// input's first and last tick, warnings, where the input ended early.
    pub edit: EditReport,
    /// Repeats written.
    pub repeats: u32,
    /// Ticks each repeat moves the next one by (the input's last tick −
    /// its first + 1).
    pub ticks_per_repeat: i32,
    /// The output's first and last tick.
    pub ticks: (i32, i32),
    /// Seconds the output plays (its `CDemoFileInfo::playback_time`).
    pub seconds: f32,
}

/// The most repeats a loop writes (far beyond any demo a reader can hold;
/// a larger count is a mistake).
pub const MAX_REPEATS: u32 = 1_000_000;

/// Writes `input`'s ticks again and again as one demo (see the module
/// documentation). `input` is read once per repeat, from where it is now.
pub fn repeat<R: Read + Seek, W: Write + Seek>(
    mut input: R,
    out: W,
    length: Length,
) -> Result<RepeatReport, DemoError> {
    let start = input.stream_position().map_err(|e| unreadable(&e, 0))?;
    let mut writer = DemoWriter::new(out)?;
    let mut report = EditReport::new();
    let first = first_repeat(&mut input, &mut writer, &mut report)?;
    let span = first
        .last_tick
        .saturating_sub(first.t0)
        .saturating_add(1)
        .max(1);
    let repeats = repeat_count(length, span, first.tick_interval)?;
    let mut packets = first.packets;
    if repeats > 1 {
        let deletes = first.deletes_payload()?;
        for k in 1..repeats {
            let shift = i32::try_from(u64::from(k) * span as u64).map_err(|_| {
                limit_error(
                    "loop's last tick",
                    u64::from(k) * span as u64,
                    &first,
                    report.last_tick,
                )
            })?;
            input
                .seek(SeekFrom::Start(start))
                .map_err(|e| unreadable(&e, report.frames_read))?;
            packets += later_repeat(
                &mut input,
                &mut writer,
                &mut report,
                &first,
                &deletes,
                shift,
            )?;
        }
    }
    let shift_last = i64::from(repeats - 1) * i64::from(span);
    let last = i32::try_from(i64::from(first.last_tick) + shift_last).map_err(|_| {
        limit_error(
            "loop's last tick",
            shift_last as u64,
            &first,
            report.last_tick,
        )
    })?;
    let ticks = i64::from(repeats) * i64::from(span);
    let ticks = i32::try_from(ticks).unwrap_or(i32::MAX);
    let seconds = ticks as f32 * first.tick_interval;
    writer.write_frame(DemoCommand::Stop, last, false, &[])?;
    let info = pb::CDemoFileInfo {
        playback_time: Some(seconds),
        playback_ticks: Some(ticks),
        playback_frames: Some(i32::try_from(packets).unwrap_or(i32::MAX)),
        game_info: None,
    };
    writer.write_file_info(last, &info)?;
    report.frames_written = writer.frames_written();
    writer.finish()?;
    Ok(RepeatReport {
        edit: report,
        repeats,
        ticks_per_repeat: span,
        ticks: (first.t0, last),
        seconds,
    })
}

/// How many repeats `length` asks for, each `span` ticks long.
fn repeat_count(length: Length, span: i32, tick_interval: f32) -> Result<u32, DemoError> {
    let bad = |reason: String| DemoError {
        kind: ErrorKind::Unwritable {
            what: "loop",
            reason,
        },
        location: Location {
            byte_offset: 0,
            frame: 0,
            tick: -1,
        },
    };
    let count = match length {
        Length::Times(k) => k,
        Length::Minutes(m) => {
            if !m.is_finite() || m <= 0.0 {
                return Err(bad(format!("a length of {m} minutes is not a length")));
            }
            let seconds = f64::from(span) * f64::from(tick_interval);
            if seconds.is_nan() || seconds <= 0.0 {
                return Err(bad(format!(
                    "the demo's ticks have no duration (tick interval {tick_interval} s)"
                )));
            }
            let k = (m * 60.0 / seconds).ceil();
            if k > f64::from(MAX_REPEATS) {
                return Err(bad(format!(
                    "{m} minutes take {k} repeats of this demo's {span} ticks; at most {MAX_REPEATS}"
                )));
            }
            k as u32
        }
    };
    if count == 0 || count > MAX_REPEATS {
        return Err(bad(format!(
            "{count} repeats: give 1 to {MAX_REPEATS} repeats"
        )));
    }
    Ok(count)
}

fn unreadable(e: &std::io::Error, frame: u64) -> DemoError {
    DemoError {
        kind: ErrorKind::Unreadable {
            what: "the input, read again from its start",
            reason: e.to_string(),
        },
        location: Location {
            byte_offset: 0,
            frame,
            tick: -1,
        },
    }
}

fn limit_error(what: &'static str, value: u64, first: &FirstRepeat, tick: i32) -> DemoError {
    DemoError {
        kind: ErrorKind::LimitExceeded {
            what,
            value,
            limit: i32::MAX as u64,
        },
        location: Location {
            byte_offset: 0,
            frame: first.frames,
            tick,
        },
    }
}

/// What the first reading of the input leaves for the repeats after it.
struct FirstRepeat {
    /// The game (which messages carry ticks).
    game: Game,
    /// The input's first tick (of its first `DEM_Packet` or
    /// `DEM_FullPacket`) and its last tick before `DEM_Stop`.
    t0: i32,
    last_tick: i32,
    tick_interval: f32,
    /// Frames read to the end of the repeat (the end of the input, its
    /// `DEM_Stop`, or where it ended early).
    frames: u64,
    /// The head's `DEM_FullPacket` payload and the `CSVCMsg_PacketEntities`
    /// bodies of its `DEM_Packet` (creates, then leaves), at shift 0.
    full_packet: Vec<u8>,
    net_tick: Vec<u8>,
    creates: Vec<u8>,
    leaves: Option<Vec<u8>>,
    /// The input's frames of tick `t0`, as the head writes them (without
    /// entities), at shift 0: command, compressed, payload.
    t0_frames: Vec<(DemoCommand, bool, Vec<u8>)>,
    /// The input's state at its end, for the deletes of the next repeat's
    /// head.
    end: DemoState,
    /// `DEM_Packet` frames written.
    packets: u64,
}

impl FirstRepeat {
    /// The body of the delta `CSVCMsg_PacketEntities` that deletes every
    /// entity the input holds at its end (`None` when it holds none).
    fn deletes_payload(&self) -> Result<Option<Vec<u8>>, DemoError> {
        let records: Vec<EntityRecord> = self
            .end
            .entities
            .iter()
            .map(|e| EntityRecord {
                index: e.index,
                op: EntityOp::Delete,
            })
            .collect();
        let Some(max) = records.last().map(|r| r.index + 1) else {
            return Ok(None);
        };
        let message = pb::CSvcMsgPacketEntities {
            max_entries: Some(max),
            updated_entries: i32::try_from(records.len()).ok(),
            legacy_is_delta: Some(true),
            update_baseline: Some(false),
            baseline: Some(0),
            server_tick: Some(self.end.net_tick),
            ..Default::default()
        };
        let p = PacketEntities {
            message,
            records,
            trailing: Vec::new(),
            trailing_bits: 0,
        };
        encode_packet_entities(&p, &self.end)
            .map(Some)
            .map_err(|kind| DemoError {
                kind,
                location: Location {
                    byte_offset: 0,
                    frame: self.frames,
                    tick: self.last_tick,
                },
            })
    }

    /// The head's `DEM_Packet` payload: the deletes (when given), the
    /// creates and the leaves, after the `net_Tick`.
    fn head_packet(&self, deletes: Option<&[u8]>) -> Result<Vec<u8>, ErrorKind> {
        let mut packet = PacketWriter::new();
        packet.push(4, &self.net_tick)?;
        if let Some(d) = deletes {
            packet.push(55, d)?;
        }
        packet.push(55, &self.creates)?;
        if let Some(l) = &self.leaves {
            packet.push(55, l)?;
        }
        Ok(crate::packet_writer::encode_demo_packet(packet.finish()))
    }

    /// Writes the head of a repeat, its ticks moved by `shift`.
    fn write_head<W: Write + Seek>(
        &self,
        writer: &mut DemoWriter<W>,
        deletes: Option<&[u8]>,
        shift: i32,
    ) -> Result<u64, DemoError> {
        let tick = self.t0.saturating_add(shift);
        let at = |kind| DemoError {
            kind,
            location: Location {
                byte_offset: 0,
                frame: 0,
                tick,
            },
        };
        let mut buf = Vec::new();
        let shifter = Shifter::new(self.game, shift);
        let full = shifter
            .frame(DemoCommand::FullPacket, &self.full_packet, false, &mut buf)
            .map_err(at)?;
        writer.write_frame(
            DemoCommand::FullPacket,
            tick,
            true,
            full.unwrap_or(&self.full_packet),
        )?;
        let packet = self.head_packet(deletes).map_err(at)?;
        let moved = shifter
            .frame(DemoCommand::Packet, &packet, false, &mut buf)
            .map_err(at)?;
        writer.write_frame(DemoCommand::Packet, tick, true, moved.unwrap_or(&packet))?;
        let mut packets = 1;
        for (command, compressed, payload) in &self.t0_frames {
            let moved = shifter
                .frame(*command, payload, false, &mut buf)
                .map_err(at)?;
            writer.write_frame(*command, tick, *compressed, moved.unwrap_or(payload))?;
            packets += u64::from(*command == DemoCommand::Packet);
        }
        Ok(packets)
    }
}

/// Where the first reading of the input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Copying the signon.
    Signon,
    /// Reading the frames of the first tick (applied, kept for the head).
    First(i32),
    /// Copying the frames after the first tick.
    Body,
}

/// The first reading in the frame loop: copies the signon, keeps the
/// frames of the first tick, writes the head and then the body of repeat 0.
struct First<'w, W: Write + Seek> {
    writer: &'w mut DemoWriter<W>,
    phase: Phase,
    /// The last `net_Tick` of the signon and the first tick, as its body.
    net_tick: Option<Vec<u8>>,
    /// What the later repeats need, once the first tick is read.
    first: Option<FirstRepeat>,
    /// The frames of the first tick, as the head writes them.
    t0_frames: Vec<(DemoCommand, bool, Vec<u8>)>,
    /// The last tick of a game frame.
    last_tick: i32,
    /// `DEM_Packet` frames written.
    packets: u64,
    buf: Vec<u8>,
}

impl<W: Write + Seek> FrameEdit for First<'_, W> {
    fn before(&mut self, next: &StreamFrame<'_>, state: &DemoState) -> Result<Step, DemoError> {
        let frame = &next.frame;
        let stop = frame.command == DemoCommand::Stop;
        let game_frame = matches!(frame.command, DemoCommand::Packet | DemoCommand::FullPacket);
        if self.phase == Phase::Signon && (game_frame || stop) {
            if stop {
                return Ok(Step::Stop);
            }
            self.phase = Phase::First(frame.tick);
        }
        if let Phase::First(t0) = self.phase {
            if frame.tick != t0 || stop {
                // The state before this frame is the state at the end of t0.
                let head = head_of(state, self.net_tick.as_deref(), t0, frame)?;
                let first = FirstRepeat {
                    t0_frames: std::mem::take(&mut self.t0_frames),
                    ..head
                };
                self.packets += first.write_head(self.writer, None, 0)?;
                self.first = Some(first);
                self.phase = Phase::Body;
            }
        }
        if stop {
            return Ok(Step::Stop);
        }
        match self.phase {
            Phase::Signon => copy(self.writer, next)?,
            Phase::First(_) => {
                if let Some(body) = last_net_tick(frame)? {
                    self.net_tick = Some(body);
                }
            }
            Phase::Body => {}
        }
        Ok(Step::Apply)
    }

    fn after(&mut self, next: &StreamFrame<'_>, state: &DemoState) -> Result<Flow, DemoError> {
        let frame = &next.frame;
        match self.phase {
            Phase::Signon => {}
            Phase::First(_) => {
                self.last_tick = self.last_tick.max(frame.tick);
                // The head's full packet replaces the input's.
                if frame.command != DemoCommand::FullPacket {
                    let kept = Shifter::new(state.game, 0)
                        .frame(frame.command, &frame.payload, true, &mut self.buf)
                        .map_err(|kind| DemoError {
                            kind,
                            location: location(frame),
                        })?
                        .map_or_else(|| frame.payload.to_vec(), <[u8]>::to_vec);
                    self.t0_frames.push((frame.command, frame.compressed, kept));
                }
            }
            Phase::Body => {
                copy(self.writer, next)?;
                self.packets += u64::from(frame.command == DemoCommand::Packet);
                self.last_tick = self.last_tick.max(frame.tick);
            }
        }
        Ok(Flow::Continue)
    }
}

/// Writes a frame of the input as its stored bytes.
fn copy<W: Write + Seek>(
    writer: &mut DemoWriter<W>,
    next: &StreamFrame<'_>,
) -> Result<(), DemoError> {
    let f = &next.frame;
    writer.write_raw_frame(f.command, f.tick, f.compressed, next.stored)
}

/// Reads the whole input once: copies its signon, writes repeat 0 and
/// keeps what the other repeats need.
fn first_repeat<R: Read, W: Write + Seek>(
    input: &mut R,
    writer: &mut DemoWriter<W>,
    report: &mut EditReport,
) -> Result<FirstRepeat, DemoError> {
    let mut frames = FrameLoop::new(input)?;
    let mut edit = First {
        writer,
        phase: Phase::Signon,
        net_tick: None,
        first: None,
        t0_frames: Vec::new(),
        last_tick: -1,
        packets: 0,
        buf: Vec::new(),
    };
    let run = frames.run(&mut edit);
    *report = std::mem::take(&mut frames.report);
    run?;
    let count = frames.stream.frame_index();
    let mut first = match (edit.first, edit.phase) {
        (Some(f), _) => f,
        // The input ended inside its first tick.
        (None, Phase::First(t0)) => {
            let end = Frame {
                command: DemoCommand::Stop,
                tick: t0,
                compressed: false,
                offset: frames.stream.offset(),
                index: count,
                payload: std::borrow::Cow::Borrowed(&[]),
            };
            let head = head_of(&frames.parser.state, edit.net_tick.as_deref(), t0, &end)?;
            let f = FirstRepeat {
                t0_frames: edit.t0_frames,
                ..head
            };
            edit.packets += f.write_head(edit.writer, None, 0)?;
            f
        }
        (None, _) => {
            return Err(DemoError {
                kind: ErrorKind::Unwritable {
                    what: "a loop of this demo",
                    reason: "it has no tick to repeat (no DEM_Packet or DEM_FullPacket)"
                        .to_string(),
                },
                location: Location {
                    byte_offset: frames.stream.offset(),
                    frame: count,
                    tick: frames.stream.last_tick(),
                },
            })
        }
    };
    first.last_tick = edit.last_tick.max(first.t0);
    first.frames = count;
    first.packets = edit.packets;
    first.end = std::mem::take(&mut frames.parser.state);
    Ok(first)
}

/// The head of every repeat, from the state at the end of tick `t0`
/// (`frame` is the frame after it, for error locations).
fn head_of(
    state: &DemoState,
    net_tick: Option<&[u8]>,
    t0: i32,
    frame: &Frame<'_>,
) -> Result<FirstRepeat, DemoError> {
    let at = |kind| DemoError {
        kind,
        location: location(frame),
    };
    let net_tick = match net_tick {
        Some(body) => body.to_vec(),
        None => pb::CNetMsgTick {
            tick: Some(state.net_tick),
            ..Default::default()
        }
        .encode_to_vec(),
    };
    // Every string table and entity, as a cut starts.
    let full_packet = full_packet(state, Some(&net_tick)).map_err(at)?;
    // The same creates as a delta message, which every reader applies.
    let mut entities = full_state(state).map_err(at)?;
    entities.message.legacy_is_delta = Some(true);
    let creates = encode_packet_entities(&entities, state).map_err(at)?;
    let leaves = match pvs_leaves(state) {
        Some(mut leave) => {
            leave.message.max_entries = entities.message.max_entries;
            leave.message.server_tick = entities.message.server_tick;
            Some(encode_packet_entities(&leave, state).map_err(at)?)
        }
        None => None,
    };
    Ok(FirstRepeat {
        game: state.game,
        t0,
        last_tick: t0,
        tick_interval: state.tick_interval,
        frames: 0,
        full_packet,
        net_tick,
        creates,
        leaves,
        t0_frames: Vec::new(),
        end: DemoState::default(),
        packets: 0,
    })
}

/// A later repeat in the frame loop: nothing is decoded; the head, then
/// the frames after the first tick with their ticks moved.
struct Later<'a, W: Write + Seek> {
    writer: &'a mut DemoWriter<W>,
    first: &'a FirstRepeat,
    shifter: Shifter,
    phase: Phase,
    /// `DEM_Packet` frames written.
    packets: u64,
    buf: Vec<u8>,
}

impl<W: Write + Seek> FrameEdit for Later<'_, W> {
    fn before(&mut self, next: &StreamFrame<'_>, _state: &DemoState) -> Result<Step, DemoError> {
        let frame = &next.frame;
        // Where the first reading ended too (a truncation or an end
        // without DEM_Stop ends this one at the same frame).
        if frame.index >= self.first.frames || frame.command == DemoCommand::Stop {
            return Ok(Step::Stop);
        }
        // The signon, then the first tick (the head holds it), as the
        // first reading divided them.
        if self.phase == Phase::Signon {
            if !matches!(frame.command, DemoCommand::Packet | DemoCommand::FullPacket) {
                return Ok(Step::Skip);
            }
            self.phase = Phase::First(frame.tick);
        }
        if self.phase == Phase::First(self.first.t0) {
            if frame.tick == self.first.t0 {
                return Ok(Step::Skip);
            }
            self.phase = Phase::Body;
        }
        let shift = self.shifter.shift;
        let tick = if frame.tick >= 0 {
            frame.tick.saturating_add(shift)
        } else {
            frame.tick
        };
        let moved = self
            .shifter
            .frame(frame.command, &frame.payload, false, &mut self.buf)
            .map_err(|kind| DemoError {
                kind,
                location: location(frame),
            })?;
        match moved {
            Some(payload) => {
                self.writer
                    .write_frame(frame.command, tick, frame.compressed, payload)?;
            }
            None => {
                self.writer
                    .write_raw_frame(frame.command, tick, frame.compressed, next.stored)?;
            }
        }
        self.packets += u64::from(frame.command == DemoCommand::Packet);
        Ok(Step::Skip)
    }

    fn after(&mut self, _frame: &StreamFrame<'_>, _state: &DemoState) -> Result<Flow, DemoError> {
        Ok(Flow::Continue)
    }
}

/// Reads the input again and writes repeat `shift / n`: the head, then the
/// input's frames after its first tick, ticks moved by `shift`. Returns the
/// `DEM_Packet` frames written.
fn later_repeat<R: Read, W: Write + Seek>(
    input: &mut R,
    writer: &mut DemoWriter<W>,
    report: &mut EditReport,
    first: &FirstRepeat,
    deletes: &Option<Vec<u8>>,
    shift: i32,
) -> Result<u64, DemoError> {
    let mut frames = FrameLoop::new(input)?;
    let packets = first.write_head(writer, deletes.as_deref(), shift)?;
    let mut edit = Later {
        writer,
        first,
        shifter: Shifter::new(first.game, shift),
        phase: Phase::Signon,
        packets,
        buf: Vec::new(),
    };
    let run = frames.run(&mut edit);
    // Frames read count; where this reading ended was reported by the
    // first one.
    report.frames_read += frames.report.frames_read;
    run?;
    Ok(edit.packets)
}

fn location(frame: &Frame<'_>) -> Location {
    Location {
        byte_offset: frame.offset,
        frame: frame.index,
        tick: frame.tick,
    }
}

/// The body of the last `net_Tick` in a packet frame, if any.
fn last_net_tick(frame: &Frame<'_>) -> Result<Option<Vec<u8>>, DemoError> {
    if !matches!(
        frame.command,
        DemoCommand::Packet | DemoCommand::SignonPacket
    ) {
        return Ok(None);
    }
    let err = |kind| DemoError {
        kind,
        location: location(frame),
    };
    let data = crate::wire::bytes_field(&frame.payload, 3, "CDemoPacket").map_err(err)?;
    let mut found = None;
    for m in PacketMessages::new(data.unwrap_or_default()) {
        let m = m.map_err(err)?;
        if m.id == 4 {
            found = Some(m.body.into_owned());
        }
    }
    Ok(found)
}

/// Moves the ticks inside frames and messages by one amount (see the
/// module documentation for the fields).
struct Shifter {
    game: Game,
    shift: i32,
}

/// Varint fields holding a tick, by message id (the packet's messages).
fn tick_fields(game: Game, id: u32) -> &'static [u64] {
    match (game, id) {
        (_, 4) => &[1],
        (_, 55) => &[6, 12],
        (_, 47) => &[6],
        (_, 207) => &[4],
        (Game::Cs2, 452) => &[19],
        (Game::Deadlock, 300) => &[29],
        _ => &[],
    }
}

impl Shifter {
    fn new(game: Game, shift: i32) -> Self {
        Shifter { game, shift }
    }

    /// The payload of a frame with its ticks moved, in `buf`; `None` when
    /// nothing in it changes (copy it as it is). With `strip_entities`, a
    /// packet's `CSVCMsg_PacketEntities` and `CSVCMsg_UpdateStringTable`
    /// are left out (the frames of a repeat's first tick, after its head).
    fn frame<'b>(
        &self,
        command: DemoCommand,
        payload: &[u8],
        strip_entities: bool,
        buf: &'b mut Vec<u8>,
    ) -> Result<Option<&'b [u8]>, ErrorKind> {
        buf.clear();
        match command {
            DemoCommand::Packet | DemoCommand::SignonPacket => {
                if self.shift == 0 && !strip_entities {
                    return Ok(None);
                }
                patch_len_field(payload, 3, "CDemoPacket", buf, |data, out| {
                    self.packet(data, strip_entities, out)
                })?;
            }
            DemoCommand::FullPacket => {
                if self.shift == 0 {
                    return Ok(None);
                }
                patch_len_field(payload, 2, "CDemoFullPacket", buf, |packet, out| {
                    patch_len_field(packet, 3, "CDemoPacket", out, |data, out| {
                        self.packet(data, false, out)
                    })
                })?;
            }
            DemoCommand::AnimationHeader if self.shift != 0 => {
                shift_fields(payload, &[2], self.shift, "CDemoAnimationHeader", buf)?;
            }
            DemoCommand::AnimationData if self.shift != 0 => {
                shift_fields(payload, &[2, 3], self.shift, "CDemoAnimationData", buf)?;
            }
            _ => return Ok(None),
        }
        Ok(Some(buf.as_slice()))
    }

    /// A packet bitstream with its messages' ticks moved (and its entities
    /// left out with `strip_entities`), its padding bits kept.
    fn packet(
        &self,
        data: &[u8],
        strip_entities: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), ErrorKind> {
        let mut writer = PacketWriter::new();
        let mut messages = PacketMessages::new(data);
        let mut body = Vec::new();
        for m in messages.by_ref() {
            let m = m?;
            // svc_PacketEntities (55) and svc_UpdateStringTable (45): the
            // head's full packet holds their result.
            if strip_entities && (m.id == 55 || m.id == 45) {
                continue;
            }
            let fields = tick_fields(self.game, m.id);
            if fields.is_empty() || self.shift == 0 {
                writer.push(m.id, &m.body)?;
            } else {
                body.clear();
                shift_fields(&m.body, fields, self.shift, "packet message", &mut body)?;
                writer.push(m.id, &body)?;
            }
        }
        // The padding bits after the last message, kept when the messages
        // keep their bit length modulo 8 (moved ticks change whole bytes);
        // without the entities, zero bits.
        let (_, padding) = messages.padding();
        let bytes = if strip_entities {
            writer.finish()
        } else {
            writer.finish_with_padding(padding as u8)?
        };
        out.extend_from_slice(&bytes);
        Ok(())
    }
}

/// Writes `message` to `out` with its length-delimited field `tag`
/// replaced by what `patch` makes of it; every other field is copied as
/// its bytes.
fn patch_len_field(
    message: &[u8],
    tag: u64,
    what: &'static str,
    out: &mut Vec<u8>,
    mut patch: impl FnMut(&[u8], &mut Vec<u8>) -> Result<(), ErrorKind>,
) -> Result<(), ErrorKind> {
    let mut w = Wire::new(message, 0);
    let mut inner = Vec::new();
    while !w.at_end() {
        let start = w.pos;
        let (t, wire_type) = w.key().map_err(|e| e.in_message(what))?;
        if t == tag && wire_type == LEN {
            let (value, _) = w.bytes().map_err(|e| e.in_message(what))?;
            inner.clear();
            patch(value, &mut inner)?;
            write_varint64(out, tag << 3 | u64::from(LEN));
            write_varint64(out, inner.len() as u64);
            out.extend_from_slice(&inner);
        } else {
            w.skip(wire_type).map_err(|e| e.in_message(what))?;
            out.extend_from_slice(message.get(start..w.pos).unwrap_or_default());
        }
    }
    Ok(())
}

/// Writes `message` to `out` with each varint field of `tags` that holds a
/// tick (a value from 0 to 2^31 − 1) moved by `shift`; every other field is
/// copied as its bytes.
fn shift_fields(
    message: &[u8],
    tags: &[u64],
    shift: i32,
    what: &'static str,
    out: &mut Vec<u8>,
) -> Result<(), ErrorKind> {
    let mut w = Wire::new(message, 0);
    while !w.at_end() {
        let start = w.pos;
        let (t, wire_type) = w.key().map_err(|e| e.in_message(what))?;
        if wire_type == VARINT && tags.contains(&t) {
            let value = w.varint().map_err(|e| e.in_message(what))?;
            if value <= i32::MAX as u64 {
                let moved = (value as i64 + i64::from(shift)).clamp(0, i64::from(i32::MAX));
                write_varint64(out, t << 3 | u64::from(VARINT));
                write_varint64(out, moved as u64);
                continue;
            }
        } else {
            w.skip(wire_type).map_err(|e| e.in_message(what))?;
        }
        out.extend_from_slice(message.get(start..w.pos).unwrap_or_default());
    }
    Ok(())
}

fn write_varint64(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn tick_fields_move_and_the_rest_is_kept() {
        let tick = pb::CNetMsgTick {
            tick: Some(1293),
            host_computationtime: Some(77),
            expected_long_tick_reason: Some("x".into()),
            ..Default::default()
        };
        let mut out = Vec::new();
        shift_fields(&tick.encode_to_vec(), &[1], 500, "t", &mut out).unwrap();
        let moved = pb::CNetMsgTick::decode(out.as_slice()).unwrap();
        assert_eq!(
            moved,
            pb::CNetMsgTick {
                tick: Some(1793),
                ..tick
            }
        );
        // A negative int32 (ten-byte varint) is not a tick: kept.
        let pe = pb::CSvcMsgPacketEntities {
            delta_from: Some(-1),
            server_tick: Some(10),
            ..Default::default()
        };
        out.clear();
        shift_fields(&pe.encode_to_vec(), &[6, 12], 5, "t", &mut out).unwrap();
        let moved = pb::CSvcMsgPacketEntities::decode(out.as_slice()).unwrap();
        assert_eq!((moved.delta_from, moved.server_tick), (Some(-1), Some(15)));
    }

    #[test]
    fn a_length_in_minutes_is_the_fewest_repeats_that_reach_it() {
        // 64 ticks a second, 100 ticks a repeat: 1 minute = 38.4 repeats.
        let k = repeat_count(Length::Minutes(1.0), 100, 1.0 / 64.0).unwrap();
        assert_eq!(k, 39);
        assert_eq!(repeat_count(Length::Times(3), 100, 0.1).unwrap(), 3);
        assert!(repeat_count(Length::Times(0), 100, 0.1).is_err());
        assert!(repeat_count(Length::Minutes(-1.0), 100, 0.1).is_err());
        assert!(repeat_count(Length::Minutes(f64::NAN), 100, 0.1).is_err());
        assert!(repeat_count(Length::Minutes(1e12), 100, 0.1).is_err());
    }
}
