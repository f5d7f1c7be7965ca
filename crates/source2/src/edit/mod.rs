//! Editing demos: streaming pipelines that read a demo frame by frame and
//! write another.

pub mod anonymize;
pub mod pseudonym;

use crate::error::{DemoError, Warning};

/// What an edit did.
#[derive(Debug, Clone, Default)]
pub struct EditReport {
    /// Frames read from IN.
    pub frames_read: u64,
    /// Frames written to OUT.
    pub frames_written: u64,
    /// Tick of the first frame with a tick (`-1`: none).
    pub first_tick: i32,
    /// Tick of the last frame written.
    pub last_tick: i32,
    /// Messages written as their original bytes because the writer does not
    /// model them.
    pub messages_copied: u64,
    /// What the edit noticed.
    pub warnings: Vec<Warning>,
    /// IN ended early: where.
    pub cut: Option<DemoError>,
}
