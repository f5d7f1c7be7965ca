//! A send-table build that two threads share: the helper thread decodes
//! the message and builds fields in ranges while the parser, once it
//! reaches the send tables, takes ranges too; either may finish the build,
//! and the parser puts the tables together ([`SharedBuild::join`]).

use crate::error::{ErrorKind, SendTablesError};

use super::build::*;
use super::tables::*;

/// Fields per range of a build that two threads share.
pub(super) const SHARED_RANGE: usize = 64;

/// A send-table build that two threads share: whichever thread comes
/// first (the helper thread, usually) decodes the message and sets up the
/// stage; then both build field ranges, and the parser
/// ([`SharedBuild::join`]) puts them together. So the parser never waits
/// for a helper that has not started yet (one woken late, as an idle
/// core may be), and once the stage is set up it builds fields instead of
/// waiting. Ranges are claimed one at a time from a counter, so whichever
/// thread is free takes the next; the result is the same tables,
/// fallbacks and first error as a build on one thread.
pub(crate) struct SharedBuild {
    /// What makes the message bytes; taken by the thread that sets up the
    /// stage.
    pub(super) input: std::sync::Mutex<Option<MessageSource>>,
    /// The stage, once set up; [`SharedBuild::join`] takes it out when
    /// every range is built.
    pub(super) stage: std::sync::Mutex<Option<std::sync::Arc<BuildStage<'static>>>>,
    /// The next range to claim.
    pub(super) next: std::sync::atomic::AtomicUsize,
    pub(super) progress: std::sync::Mutex<SharedProgress>,
    pub(super) changed: std::sync::Condvar,
}

/// Makes the bytes of a `CSVCMsg_FlattenedSerializer` (decompresses a
/// frame and finds the message in it).
pub(crate) type MessageSource = Box<dyn FnOnce() -> Result<Vec<u8>, ErrorKind> + Send>;

#[derive(Default)]
pub(super) struct SharedProgress {
    /// Set when the stage is ready (`Ok(ranges)`) or failed.
    pub(super) stage: Option<Result<usize, ErrorKind>>,
    /// Built ranges, by index.
    pub(super) ranges: Vec<Option<Result<FieldRange, ErrorKind>>>,
    /// The helper's job ended without finishing (it panicked).
    pub(super) abandoned: bool,
}

/// The helper's hold on a [`SharedBuild`]: marks the build abandoned when
/// it is dropped before its part is done (the job panicked, or was dropped
/// unrun), so that the parser does not wait for what it had taken on.
pub(crate) struct HelperPart {
    pub(super) build: std::sync::Arc<SharedBuild>,
    pub(super) done: bool,
}

impl HelperPart {
    /// The helper's part of `build`.
    pub(crate) fn of(build: &std::sync::Arc<SharedBuild>) -> HelperPart {
        HelperPart {
            build: std::sync::Arc::clone(build),
            done: false,
        }
    }

    /// Sets up the stage unless the parser has, then builds ranges until
    /// none is left.
    pub(crate) fn run(mut self) {
        self.build.set_up_stage();
        self.build.build_ranges();
        self.done = true;
    }
}

impl Drop for HelperPart {
    fn drop(&mut self) {
        if !self.done {
            if let Ok(mut p) = self.build.progress.lock() {
                p.abandoned = true;
            }
            self.build.changed.notify_all();
        }
    }
}

impl SharedBuild {
    /// A build of the message `input` makes.
    pub(crate) fn new(input: MessageSource) -> std::sync::Arc<SharedBuild> {
        std::sync::Arc::new(SharedBuild {
            input: std::sync::Mutex::new(Some(input)),
            stage: std::sync::Mutex::new(None),
            next: std::sync::atomic::AtomicUsize::new(0),
            progress: std::sync::Mutex::new(SharedProgress::default()),
            changed: std::sync::Condvar::new(),
        })
    }

    /// Sets up the stage, if no thread has taken that on yet.
    pub(super) fn set_up_stage(&self) {
        let Some(input) = self.input.lock().ok().and_then(|mut i| i.take()) else {
            return;
        };
        let stage = input().and_then(|m| BuildStage::prepare(std::borrow::Cow::Owned(m)));
        // In this order: a thread that finds the stage finds the slots for
        // its ranges, and one told the stage is ready finds the stage.
        let ranges = match stage {
            Ok(stage) => {
                let ranges = stage.field_count().div_ceil(SHARED_RANGE);
                if let Ok(mut p) = self.progress.lock() {
                    p.ranges = (0..ranges).map(|_| None).collect();
                }
                if let Ok(mut slot) = self.stage.lock() {
                    *slot = Some(std::sync::Arc::new(stage));
                }
                Ok(ranges)
            }
            Err(e) => Err(e),
        };
        if let Ok(mut p) = self.progress.lock() {
            p.stage = Some(ranges);
        }
        self.changed.notify_all();
    }

    /// Whether another thread is setting up the stage right now (so
    /// [`SharedBuild::join`] would wait for it).
    pub(crate) fn stage_in_progress(&self) -> bool {
        let taken = self.input.lock().map_or(true, |i| i.is_none());
        taken
            && self
                .progress
                .lock()
                .is_ok_and(|p| p.stage.is_none() && !p.abandoned)
    }

    /// Waits for the stage, then builds unclaimed ranges until none is
    /// left (returns at once if the stage failed or its thread gave up).
    pub(super) fn build_ranges(&self) {
        if let Ok(mut p) = self.progress.lock() {
            loop {
                match &p.stage {
                    Some(Ok(_)) => break,
                    Some(Err(_)) => return,
                    None if p.abandoned => return,
                    None => match self.changed.wait(p) {
                        Ok(next) => p = next,
                        Err(_) => return,
                    },
                }
            }
        }
        let Some(stage) = self.stage.lock().ok().and_then(|s| s.clone()) else {
            return;
        };
        let mut cache = FieldCache::default();
        loop {
            let index = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if !self.build_range(&stage, index, &mut cache) {
                return;
            }
        }
    }

    /// Builds range `index` and stores it, unless it is there already;
    /// false when there is no such range.
    pub(super) fn build_range(
        &self,
        stage: &BuildStage<'_>,
        index: usize,
        cache: &mut FieldCache,
    ) -> bool {
        let start = index.saturating_mul(SHARED_RANGE);
        if start >= stage.field_count() {
            return false;
        }
        let end = (start + SHARED_RANGE).min(stage.field_count());
        let built = stage.build_fields(start..end, cache);
        if let Ok(mut p) = self.progress.lock() {
            if let Some(slot @ None) = p.ranges.get_mut(index) {
                *slot = Some(built);
            }
        }
        self.changed.notify_all();
        true
    }

    /// The parser's part: sets up the stage if the helper has not begun
    /// to (else waits for it), builds ranges with the helper, waits for the
    /// helper's last range, and returns the tables (or the first error, in
    /// field order).
    pub(crate) fn join(&self) -> Result<SendTables, ErrorKind> {
        let failed = || ErrorKind::SendTables(SendTablesError::HelperFailed);
        self.set_up_stage();
        {
            let mut p = self.progress.lock().map_err(|_| failed())?;
            loop {
                match &p.stage {
                    Some(Ok(_)) => break,
                    Some(Err(e)) => return Err(e.clone()),
                    None if p.abandoned => return Err(failed()),
                    None => p = self.changed.wait(p).map_err(|_| failed())?,
                }
            }
        }
        self.build_ranges();
        // A range the helper has claimed but not finished (it may be slow
        // to get going: a core woken from idle, fresh allocator pages) is
        // built here too: the parser never waits for one.
        let stage = self
            .stage
            .lock()
            .map_err(|_| failed())?
            .take()
            .ok_or_else(failed)?;
        let missing: Vec<usize> = {
            let p = self.progress.lock().map_err(|_| failed())?;
            p.ranges
                .iter()
                .enumerate()
                .filter(|(_, r)| r.is_none())
                .map(|(i, _)| i)
                .collect()
        };
        let mut cache = FieldCache::default();
        for index in missing {
            self.build_range(&stage, index, &mut cache);
        }
        let ranges = std::mem::take(&mut self.progress.lock().map_err(|_| failed())?.ranges);
        let ranges: Vec<FieldRange> = ranges
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(failed())))
            .collect::<Result<_, _>>()?;
        // The helper may still hold the stage (finishing a range built
        // twice): then the tables are copied from it instead of moved.
        Ok(match std::sync::Arc::try_unwrap(stage) {
            Ok(stage) => stage.finish(ranges),
            Err(shared) => shared.finish_copy(ranges),
        })
    }
}
