//! Editing demos: pipelines that read a demo frame by frame from a stream,
//! keep its decoded state current, and write another demo.
//!
//! - [`frames`]: frames read from any [`std::io::Read`] through bounded,
//!   reused buffers (memory does not grow with the demo's length);
//! - [`rewrite()`]: every frame written again from its decoded model;
//! - [`cut()`]: a tick range as a demo of its own;
//! - [`anonymize()`]: players renamed to keyed pseudonyms
//!   ([`pseudonym`]), chat and voice dropped;
//! - [`broadcast()`](broadcast::broadcast): the demo as the fragments of an
//!   HTTP broadcast (the inverse of [`crate::broadcast::to_demo`]).
//!
//! Each pipeline runs the same frame loop (`FrameLoop`): frames read
//! from the stream are fed to a
//! [`DemoParser::detached`](crate::DemoParser::detached) parser
//! ([`DemoParser::apply_frame`](crate::DemoParser::apply_frame)), so the
//! send tables, string tables and entities are known at every frame, and
//! each frame is handed to the edit (`FrameEdit`) with the state before
//! and after it. The edit writes with
//! [`DemoWriter`](crate::container_writer::DemoWriter) into any
//! `Write + Seek` output (the header's file-info offset is written last).
//!
//! A demo that ends early (a recording that stopped, a partial copy: the
//! input ends inside a frame, or between two frames before `DEM_Stop`) is
//! edited up to where it ends: everything before is written, the report's
//! [`EditReport::cut`] says where the input ended, and a warning says it
//! too. Any other error in the input ends the edit with that error, located
//! at its frame.

use std::io::Read;

use crate::container::Frame;
use crate::error::{DemoError, Warning};
use crate::state::DemoState;
use crate::DemoParser;

use frames::{FrameStream, StreamFrame};

pub mod anonymize;
pub mod broadcast;
pub mod cut;
pub mod frames;
pub mod pseudonym;
pub mod repeat;
pub mod rewrite;

pub use anonymize::anonymize;
pub use cut::cut;
pub use rewrite::rewrite;

/// What an edit did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EditReport {
    /// Frames read from the input.
    pub frames_read: u64,
    /// Frames written to the output.
    pub frames_written: u64,
    /// Tick of the first frame read that has one (`-1` if none).
    pub first_tick: i32,
    /// Tick of the last frame read.
    pub last_tick: i32,
    /// Packet messages written as their original bytes because the writer
    /// does not model them (or its model does not give the same bytes).
    pub messages_copied: u64,
    /// Non-fatal findings: what was copied, where the input ended.
    pub warnings: Vec<Warning>,
    /// The input ended early: where (everything before it was written).
    pub cut: Option<DemoError>,
}

impl EditReport {
    fn new() -> Self {
        EditReport {
            first_tick: -1,
            last_tick: -1,
            ..Default::default()
        }
    }

    /// Counts a frame read.
    fn frame_read(&mut self, tick: i32) {
        self.frames_read += 1;
        if self.first_tick < 0 && tick >= 0 {
            self.first_tick = tick;
        }
        if tick >= 0 || self.last_tick < 0 {
            self.last_tick = tick;
        }
    }

    /// Records an input that ended early.
    fn ended_early(&mut self, error: DemoError) {
        self.warnings.push(Warning {
            tick: error.location.tick,
            message: format!(
                "the input ends early, at frame {} (byte {}, tick {}): {}; \
                 everything before it was written",
                error.location.frame, error.location.byte_offset, error.location.tick, error.kind
            ),
        });
        self.cut = Some(error);
    }
}

/// A range of ticks, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TickRange {
    /// First tick kept.
    pub from: i32,
    /// Last tick kept.
    pub to: i32,
}

/// The visitor an edit feeds its parser: entities and every string table,
/// not the events, user messages or user commands (the pipelines that
/// change those read them from the packets themselves).
#[derive(Debug, Default)]
pub(crate) struct StateOnly;

impl crate::Visitor for StateOnly {
    fn interests(&self) -> crate::Interests {
        crate::Interests {
            entities: true,
            send_tables: true,
            ..crate::Interests::NONE
        }
    }
}

/// The input ended between two frames without `DEM_Stop`: a truncation
/// located after the last frame.
pub(crate) fn missing_stop<R: std::io::Read>(stream: &frames::FrameStream<R>) -> DemoError {
    DemoError::missing_stop(crate::Location {
        byte_offset: stream.offset(),
        frame: stream.frame_index(),
        tick: stream.last_tick(),
    })
}

/// What the frame loop does with a frame, decided by
/// [`FrameEdit::before`] from the state before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Apply the frame to the parser, then hand it to [`FrameEdit::after`].
    Apply,
    /// Hand it to [`FrameEdit::after`] without applying it (the state
    /// stays as it was before the frame).
    Skip,
    /// End the loop here (the frame is counted as read, not applied).
    Stop,
}

/// Whether the frame loop goes on after [`FrameEdit::after`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Read the next frame.
    Continue,
    /// End the loop after this frame.
    Stop,
}

/// One edit, as [`FrameLoop::run`] drives it: for each frame read,
/// [`before`](FrameEdit::before) with the state before the frame, then
/// (on [`Step::Apply`]) [`apply`](FrameEdit::apply), then
/// [`after`](FrameEdit::after) with the state after it; at the end,
/// [`finish`](FrameEdit::finish). The edit owns its writer.
pub(crate) trait FrameEdit {
    /// Sees a frame before it is applied; decides what is done with it.
    fn before(&mut self, _frame: &StreamFrame<'_>, _state: &DemoState) -> Result<Step, DemoError> {
        Ok(Step::Apply)
    }

    /// Applies the frame to the parser (an edit that needs a visitor of
    /// its own passes it here; by default [`StateOnly`]).
    fn apply(
        &mut self,
        parser: &mut DemoParser<'static>,
        frame: &Frame<'_>,
    ) -> Result<(), DemoError> {
        parser.apply_frame(frame, &mut StateOnly)
    }

    /// Handles the frame, with the state after it (or before it, when
    /// [`before`](FrameEdit::before) skipped it): typically writes it.
    fn after(&mut self, frame: &StreamFrame<'_>, state: &DemoState) -> Result<Flow, DemoError>;

    /// Ends the frames given to the parser (by default with
    /// [`StateOnly`]: [`DemoParser::finish_frames`]).
    fn finish(&mut self, parser: &mut DemoParser<'static>) {
        parser.finish_frames(&mut StateOnly);
    }
}

/// The frame loop every edit runs: frames from a [`FrameStream`], a
/// detached parser kept current, the [`EditReport`] counts, and the end of
/// the input handled once (see the module documentation).
///
/// An input that ends between two frames without `DEM_Stop`, or inside a
/// frame, ends the loop as a cut ([`EditReport::cut`], with a warning);
/// with [`FrameLoop::lenient`], so does any frame that cannot be read or
/// applied. Any other error ends the loop with that error.
#[derive(Debug)]
pub(crate) struct FrameLoop<R: Read> {
    /// The frames read.
    pub(crate) stream: FrameStream<R>,
    /// The parser every applied frame was fed to.
    pub(crate) parser: DemoParser<'static>,
    /// Frames read, ticks, where the input ended; the edit adds its own.
    pub(crate) report: EditReport,
    /// Tick of the last frame handed to [`FrameEdit::after`] (`-1` before
    /// any).
    pub(crate) last_tick: i32,
    /// Whether a frame that cannot be read or applied ends the input.
    lenient: bool,
}

impl<R: Read> FrameLoop<R> {
    /// A loop over the frames of `input` (its file header read and checked).
    pub(crate) fn new(input: R) -> Result<Self, DemoError> {
        Ok(FrameLoop {
            stream: FrameStream::new(input)?,
            parser: DemoParser::detached()?,
            report: EditReport::new(),
            last_tick: -1,
            lenient: false,
        })
    }

    /// A frame that cannot be read (a bad snappy block, a bad size) or
    /// applied (a message that does not decode) ends the input there, as a
    /// cut, instead of ending the edit with an error.
    #[must_use]
    pub(crate) fn lenient(mut self) -> Self {
        self.lenient = true;
        self
    }

    /// Runs `edit` over the frames up to the end of the input, `DEM_Stop`
    /// included, or until the edit stops.
    pub(crate) fn run<E: FrameEdit>(&mut self, edit: &mut E) -> Result<(), DemoError> {
        loop {
            let next = match self.stream.next_frame() {
                Ok(Some(f)) => f,
                Ok(None) => {
                    if !self.parser.state.reached_stop {
                        self.report.ended_early(missing_stop(&self.stream));
                    }
                    break;
                }
                Err(e) if self.lenient || e.is_truncation() => {
                    self.report.ended_early(e);
                    break;
                }
                Err(e) => return Err(e),
            };
            let tick = next.frame.tick;
            match edit.before(&next, &self.parser.state)? {
                Step::Apply => match edit.apply(&mut self.parser, &next.frame) {
                    Ok(()) => {}
                    Err(e) if self.lenient => {
                        self.report.ended_early(e);
                        break;
                    }
                    Err(e) => return Err(e),
                },
                Step::Skip => {}
                Step::Stop => {
                    self.report.frame_read(tick);
                    break;
                }
            }
            self.report.frame_read(tick);
            self.last_tick = tick;
            if edit.after(&next, &self.parser.state)? == Flow::Stop {
                break;
            }
        }
        edit.finish(&mut self.parser);
        Ok(())
    }

    /// Whether the input ended early before its `DEM_Stop`: an edit that
    /// writes a whole demo then writes one, at [`FrameLoop::last_tick`].
    pub(crate) fn needs_stop(&self) -> bool {
        self.report.cut.is_some() && !self.parser.state.reached_stop
    }
}
