//! Editing demos: pipelines that read a demo frame by frame from a stream,
//! keep its decoded state current, and write another demo.
//!
//! - [`frames`]: frames read from any [`std::io::Read`] through bounded,
//!   reused buffers (memory does not grow with the demo's length);
//! - [`rewrite()`]: every frame written again from its decoded model;
//! - [`cut()`]: a tick range as a demo of its own;
//! - [`anonymize()`]: players renamed to keyed pseudonyms
//!   ([`pseudonym`]), chat and voice dropped.
//!
//! Each pipeline feeds the frames it reads to a
//! [`DemoParser::detached`](crate::DemoParser::detached) parser
//! ([`DemoParser::apply_frame`](crate::DemoParser::apply_frame)), so the
//! send tables, string tables and entities are known at every frame, and
//! writes with [`DemoWriter`](crate::container_writer::DemoWriter) into any
//! `Write + Seek` output (the header's file-info offset is written last).
//!
//! A demo that ends early (a recording that stopped, a partial copy: the
//! input ends inside a frame, or between two frames before `DEM_Stop`) is
//! edited up to where it ends: everything before is written, the report's
//! [`EditReport::cut`] says where the input ended, and a warning says it
//! too. Any other error in the input ends the edit with that error, located
//! at its frame.

use crate::error::{DemoError, Warning};

pub mod anonymize;
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
    DemoError {
        kind: crate::ErrorKind::Truncated {
            what: "the DEM_Stop frame",
            needed: 3,
            available: 0,
        },
        location: crate::Location {
            byte_offset: stream.offset(),
            frame: stream.frame_index(),
            tick: stream.last_tick(),
        },
    }
}
