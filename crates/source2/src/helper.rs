//! The helper thread: one thread per process that builds a demo's send
//! tables while the parser reads the rest of the signon.
//!
//! In a CS2 demo the `CDemoSendTables` frame sits among the signon frames
//! (string tables, class info, the game-event list). Its tables are not
//! needed before the first entity, so [`crate::parser::DemoParser`] hands
//! the frame to this thread at the start of a run and collects the tables
//! at the first tick (or earlier, if something needs them). On the corpus
//! clips that takes 5-10% off a parse's wall time, at the cost of some
//! CPU time on the second core (see the README's Source 2 section).
//!
//! The thread is started on first use and kept for the life of the
//! process: a thread started per parse would pay its start and, worse, a
//! fresh allocator heap whose every page is a page fault. It takes one job
//! at a time; a parse that finds it busy (another parse on another thread
//! is using it) builds its tables itself, as does every parse on a
//! one-core machine, with a [`crate::cache::SendTableCache`], or after
//! [`set_enabled`]`(false)`. A program that parses one demo and exits
//! (the `gamewire` command line) is better off without it: starting the
//! thread costs more than it saves there.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};
use std::sync::{Mutex, OnceLock};

type Job = Box<dyn FnOnce() + Send + 'static>;

/// The helper's queue; `None` when it could not be started.
static QUEUE: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
/// Whether a job is queued or running.
static BUSY: AtomicBool = AtomicBool::new(false);
/// See [`set_enabled`].
static ENABLED: AtomicBool = AtomicBool::new(true);
/// See [`jobs_done`].
static JOBS: AtomicU64 = AtomicU64::new(0);

/// How many jobs the helper thread has finished in this process.
pub fn jobs_done() -> u64 {
    JOBS.load(Ordering::Relaxed)
}

/// Turns the helper thread on or off for parsers created from now on in
/// this process (on by default).
pub fn set_enabled(enabled: bool) {
    ENABLED.store(enabled, Ordering::Relaxed);
}

/// Whether parsers created now use the helper thread.
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// A result the helper is computing.
#[derive(Debug)]
pub(crate) struct Pending<T> {
    result: Receiver<T>,
    /// The result, once [`Pending::is_ready`] has taken it off the channel.
    arrived: Option<T>,
}

impl<T> Pending<T> {
    /// Waits for the result; `None` if the job panicked.
    pub(crate) fn wait(self) -> Option<T> {
        match self.arrived {
            Some(value) => Some(value),
            None => self.result.recv().ok(),
        }
    }

    /// Whether [`Pending::wait`] would return at once: the result is there,
    /// or the job has failed.
    pub(crate) fn is_ready(&mut self) -> bool {
        use std::sync::mpsc::TryRecvError;
        if self.arrived.is_some() {
            return true;
        }
        match self.result.try_recv() {
            Ok(value) => {
                self.arrived = Some(value);
                true
            }
            Err(TryRecvError::Empty) => false,
            Err(TryRecvError::Disconnected) => true,
        }
    }
}

/// Clears [`BUSY`] when a job ends, also by a panic.
struct Done;

impl Drop for Done {
    fn drop(&mut self) {
        BUSY.store(false, Ordering::Release);
    }
}

/// Runs `job` on the helper thread; `None` (the caller does the work) when
/// the helper is busy, cannot be started, or the machine has one core.
pub(crate) fn run<T: Send + 'static>(
    job: impl FnOnce() -> T + Send + 'static,
) -> Option<Pending<T>> {
    let queue = QUEUE.get_or_init(start).as_ref()?;
    if BUSY
        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        return None;
    }
    let (tx, rx) = sync_channel(1);
    let wrapped: Job = Box::new(move || {
        let done = Done;
        let result = job();
        JOBS.fetch_add(1, Ordering::Relaxed);
        // Free for the next job before the waiter wakes up.
        drop(done);
        let _ = tx.send(result);
    });
    let sent = queue.lock().ok().map(|q| q.send(wrapped).is_ok());
    if sent != Some(true) {
        BUSY.store(false, Ordering::Release);
        return None;
    }
    Some(Pending {
        result: rx,
        arrived: None,
    })
}

fn start() -> Option<Mutex<Sender<Job>>> {
    if std::thread::available_parallelism().map_or(true, |n| n.get() < 2) {
        return None;
    }
    let (tx, rx) = channel::<Job>();
    std::thread::Builder::new()
        .name("gamewire-helper".into())
        .spawn(move || {
            while let Ok(job) = rx.recv() {
                // A panicking job drops its result sender: the waiter sees
                // `None`; the helper goes on.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            }
        })
        .ok()?;
    Some(Mutex::new(tx))
}
