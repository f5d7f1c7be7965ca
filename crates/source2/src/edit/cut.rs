//! `cut`: a tick range of a demo as a demo of its own.
//!
//! The output holds, in order:
//!
//! 1. the file header (magic, offsets filled in at the end);
//! 2. the signon: every frame before the first `DEM_Packet` or
//!    `DEM_FullPacket` (in the games' demos: `DEM_FileHeader`, the
//!    `DEM_SignonPacket`s with the server info, the string-table creations
//!    and the game-event list, `DEM_SendTables`, `DEM_ClassInfo`, the
//!    signon's `DEM_StringTables`, `DEM_SyncTick`; all at tick −1), copied
//!    as their original bytes;
//! 3. one `DEM_FullPacket` at the tick of the first frame kept (the first
//!    frame at or after tick A): its `CDemoStringTables` is every string
//!    table as it is then, entry for entry, and its packet holds the last
//!    `net_Tick` read, one non-delta `CSVCMsg_PacketEntities` that
//!    creates every live entity with all its fields
//!    ([`crate::entity_writer::full_state`]) and, when some entities are
//!    outside the PVS (kept, inactive), a delta `CSVCMsg_PacketEntities`
//!    in which they leave it again (a create makes an entity active);
//! 4. the input's frames from that one up to tick B, copied as their
//!    original bytes (a cut copies every message it does not change, so
//!    nothing unknown to this reader is lost);
//! 5. `DEM_Stop` and a `CDemoFileInfo` for the cut (below).
//!
//! What the reader needs for the output to decode to the input's state
//! from A on:
//!
//! - The signon, because the send tables (`DEM_SendTables`), the classes
//!   (`DEM_ClassInfo`), the server info (class-id bits, tick interval) and
//!   the ids of the string tables (their creation order, in
//!   `CSVCMsg_CreateStringTable` of the signon packets) come only there.
//! - The full packet's string tables replace each table's entries by name
//!   (a table it names that does not exist yet is created after the
//!   others, so tables created after the signon keep their ids when the
//!   snapshot lists them in id order, as it does here); entries past the
//!   snapshot's are dropped. The updates copied after it refer to tables by
//!   id and to entries by index, which is why every table is listed.
//! - `instancebaseline` is one of those tables: a baseline that changed
//!   after the signon replaces the signon's, and the reader forgets the
//!   baselines it had decoded for the classes whose entry changed. An
//!   entity created by the full packet starts from its class baseline and
//!   then receives every field it holds, so it ends with its own values.
//! - A reader applies the entities of a full packet only when it holds no
//!   entity yet (the full packets of the input, repeated for seeking, are
//!   then skipped, their string tables still applied): the full packet
//!   written here comes right after the signon, before any entity exists.
//! - The full packet holds the state before the first frame kept, so the
//!   frames of that tick, copied after it, bring the state to the input's
//!   at the end of the tick, and their events and user messages are kept.
//!   A frame's tick is the tick it is read at; the tick of the signon's
//!   frames (−1) is kept.
//!
//! `CDemoFileInfo`, as the games fill it on the corpus demos:
//! `playback_ticks` is the last tick, counted from the recording's tick 0,
//! `playback_time` is that many ticks at the server's tick interval, and
//! `playback_frames` the number of `DEM_Packet` frames (one per tick in
//! CS2's 64-tick demos, one per two or three ticks in Dota 2's and
//! Deadlock's). For the cut: ticks from the first tick written to the last,
//! ends included; the time of those ticks; the `DEM_Packet` frames written.
//!
//! A range that does not meet the demo (it ends before the demo's first
//! tick, or starts after its last) is an error naming both.

use std::io::{Read, Seek, Write};

use prost::Message;
use source2_demo_protobufs as pb;

use crate::container::DemoCommand;
use crate::container_writer::DemoWriter;
use crate::entity_writer::{encode_packet_entities, full_state, pvs_leaves};
use crate::error::{DemoError, ErrorKind, Location};
use crate::packet_writer::{PacketMessages, PacketWriter};
use crate::state::DemoState;

use super::frames::{FrameStream, StreamFrame};
use super::{EditReport, Flow, FrameEdit, FrameLoop, Step, TickRange};

/// Where the cut is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Copying the signon.
    Signon,
    /// Reading the frames before A (applied, not written).
    Before,
    /// Copying the frames from A to B.
    Inside,
}

/// Writes the ticks `range.from..=range.to` of a demo as a demo of its own
/// (see the module documentation).
pub fn cut<R: Read, W: Write + Seek>(
    input: R,
    out: W,
    range: TickRange,
) -> Result<EditReport, DemoError> {
    let mut frames = FrameLoop::new(input)?;
    if range.from > range.to || range.to < 0 {
        return Err(range_error(&mut frames.stream, &mut frames.report, range));
    }
    let mut edit = Cut {
        writer: DemoWriter::new(out)?,
        range,
        phase: Phase::Signon,
        out_of_range: false,
        net_tick: None,
        written: None,
        packets: 0,
    };
    frames.run(&mut edit)?;
    let Cut {
        mut writer,
        out_of_range,
        written,
        packets,
        ..
    } = edit;
    let (first, last) = match written {
        Some(w) if !out_of_range => w,
        _ => return Err(range_error(&mut frames.stream, &mut frames.report, range)),
    };
    writer.write_frame(DemoCommand::Stop, last, false, &[])?;
    let ticks = last.saturating_sub(first).saturating_add(1);
    let info = pb::CDemoFileInfo {
        playback_time: Some(ticks as f32 * frames.parser.state.tick_interval),
        playback_ticks: Some(ticks),
        playback_frames: Some(packets as i32),
        game_info: None,
    };
    writer.write_file_info(last, &info)?;
    let mut report = frames.report;
    report.frames_written = writer.frames_written();
    writer.finish()?;
    Ok(report)
}

/// The cut in the frame loop.
struct Cut<W: Write + Seek> {
    writer: DemoWriter<W>,
    range: TickRange,
    phase: Phase,
    /// The range ends before the demo's first game frame.
    out_of_range: bool,
    /// The last net_Tick message read, as its body.
    net_tick: Option<Vec<u8>>,
    /// Ticks written: first and last.
    written: Option<(i32, i32)>,
    /// `DEM_Packet` frames written.
    packets: u32,
}

impl<W: Write + Seek> FrameEdit for Cut<W> {
    fn before(&mut self, next: &StreamFrame<'_>, state: &DemoState) -> Result<Step, DemoError> {
        let frame = &next.frame;
        let game_frame = matches!(frame.command, DemoCommand::Packet | DemoCommand::FullPacket);
        if self.phase == Phase::Signon && game_frame {
            self.phase = Phase::Before;
            if self.range.to < frame.tick {
                self.out_of_range = true;
                return Ok(Step::Stop);
            }
        }
        match self.phase {
            Phase::Signon => {
                self.writer.write_raw_frame(
                    frame.command,
                    frame.tick,
                    frame.compressed,
                    next.stored,
                )?;
                Ok(Step::Apply)
            }
            Phase::Before => {
                let at_stop = frame.command == DemoCommand::Stop || state.reached_stop;
                if frame.tick < self.range.from || at_stop {
                    if let Some(body) = last_net_tick(frame)? {
                        self.net_tick = Some(body);
                    }
                    return Ok(Step::Apply);
                }
                let payload =
                    full_packet(state, self.net_tick.as_deref()).map_err(|kind| DemoError {
                        kind,
                        location: location(frame),
                    })?;
                self.writer
                    .write_frame(DemoCommand::FullPacket, frame.tick, true, &payload)?;
                self.phase = Phase::Inside;
                self.written = Some((frame.tick, frame.tick));
                // Copied from here on; the parser is not needed any more.
                self.write_copy(next)?;
                Ok(Step::Skip)
            }
            Phase::Inside => {
                if frame.command == DemoCommand::Stop || frame.tick > self.range.to {
                    return Ok(Step::Stop);
                }
                self.write_copy(next)?;
                if let Some(w) = self.written.as_mut() {
                    w.1 = frame.tick.max(w.1);
                }
                Ok(Step::Skip)
            }
        }
    }

    fn after(&mut self, _frame: &StreamFrame<'_>, _state: &DemoState) -> Result<Flow, DemoError> {
        Ok(Flow::Continue)
    }
}

impl<W: Write + Seek> Cut<W> {
    /// Copies a frame of the range as its original bytes.
    fn write_copy(&mut self, next: &StreamFrame<'_>) -> Result<(), DemoError> {
        let frame = &next.frame;
        self.writer
            .write_raw_frame(frame.command, frame.tick, frame.compressed, next.stored)?;
        self.packets += u32::from(frame.command == DemoCommand::Packet);
        Ok(())
    }
}

/// The error for a range that does not meet the demo: the rest of the
/// input is read (not decoded) to name the demo's first and last tick.
fn range_error<R: Read>(
    stream: &mut FrameStream<R>,
    report: &mut EditReport,
    range: TickRange,
) -> DemoError {
    while let Ok(Some(f)) = stream.next_frame() {
        report.frame_read(f.frame.tick);
    }
    DemoError {
        kind: ErrorKind::TickRange {
            from: range.from,
            to: range.to,
            first: report.first_tick,
            last: report.last_tick,
        },
        location: Location {
            byte_offset: stream.offset(),
            frame: stream.frame_index(),
            tick: stream.last_tick(),
        },
    }
}

fn location(frame: &crate::container::Frame<'_>) -> Location {
    Location {
        byte_offset: frame.offset,
        frame: frame.index,
        tick: frame.tick,
    }
}

/// The body of the last `net_Tick` in a packet frame, if any.
pub(super) fn last_net_tick(
    frame: &crate::container::Frame<'_>,
) -> Result<Option<Vec<u8>>, DemoError> {
    let err = |kind| DemoError {
        kind,
        location: location(frame),
    };
    let data = match frame.command {
        DemoCommand::Packet | DemoCommand::SignonPacket => {
            pb::CDemoPacket::decode(&*frame.payload)
                .map_err(|e| err(ErrorKind::protobuf("CDemoPacket", e)))?
                .data
        }
        _ => return Ok(None),
    };
    let mut found = None;
    for m in PacketMessages::new(data.as_deref().unwrap_or_default()) {
        let m = m.map_err(err)?;
        if m.id == 4 {
            found = Some(m.body.into_owned());
        }
    }
    Ok(found)
}

/// The payload of the cut's `DEM_FullPacket`: every string table and every
/// live entity of `state`.
pub(crate) fn full_packet(
    state: &DemoState,
    net_tick: Option<&[u8]>,
) -> Result<Vec<u8>, ErrorKind> {
    let tables = crate::stringtable_writer::snapshot(&state.string_tables);
    let mut packet = PacketWriter::new();
    let tick = match net_tick {
        Some(body) => body.to_vec(),
        None => pb::CNetMsgTick {
            tick: Some(state.net_tick),
            ..Default::default()
        }
        .encode_to_vec(),
    };
    packet.push(4, &tick)?;
    let entities = full_state(state)?;
    packet.push(55, &encode_packet_entities(&entities, state)?)?;
    // A create makes an entity active: the ones outside the PVS leave it
    // again, in a delta message after the full one.
    if let Some(mut leave) = pvs_leaves(state) {
        leave.message.max_entries = entities.message.max_entries;
        leave.message.server_tick = entities.message.server_tick;
        packet.push(55, &encode_packet_entities(&leave, state)?)?;
    }
    let data = packet.finish();
    let full = pb::CDemoFullPacket {
        string_table: Some(tables),
        packet: Some(pb::CDemoPacket { data: Some(data) }),
    };
    Ok(full.encode_to_vec())
}
