//! The helper thread: one thread per process that builds a demo's send
//! tables while the parser reads the rest of the signon.
//!
//! In a CS2 demo the `CDemoSendTables` frame sits among the signon frames
//! (string tables, class info, the game-event list). Its tables are not
//! needed before the first entity, so a [`crate::DemoParser`] that is
//! allowed to ([`crate::DemoParser::with_helper_thread`], on by default)
//! hands the frame to this thread at the start of a run and collects the
//! tables at the first tick (or earlier, if something needs them). The
//! signon around the frame is short, so the parser usually gets there
//! first; it then decompresses the frames that come next while the helper
//! decodes the message, and builds fields beside it once the serializers
//! are read (see `serializer::SharedBuild`). On the corpus clips that takes
//! 10-20% off a parse's wall time, at the cost of some CPU time on the
//! second core.
//!
//! The thread is started on the first parse that asks for it and kept for
//! the life of the process: a thread started per parse would pay its start
//! and, worse, a fresh allocator heap whose every page is a page fault. It
//! takes one job at a time; a parse that finds it busy (another parse on
//! another thread is using it) builds its tables itself, as does every
//! parse on a one-core machine or with a [`crate::cache::SendTableCache`].
//! Whether to use it is the parser's choice, made per parse: a program that
//! parses one demo and exits (the `gamewire` command line) is better off
//! without it, since starting the thread costs more than it saves there.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock};

type Job = Box<dyn FnOnce() + Send + 'static>;

/// The helper's queue; `None` when it could not be started.
static QUEUE: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
/// Whether a job is queued or running.
static BUSY: AtomicBool = AtomicBool::new(false);
/// Clears [`BUSY`] when a job ends, also by a panic.
struct Done;

impl Drop for Done {
    fn drop(&mut self) {
        BUSY.store(false, Ordering::Release);
    }
}

/// Runs `job` on the helper thread; false (the caller does the work) when
/// the helper is busy, cannot be started, or the machine has one core. A
/// job that is taken is run once, or dropped unrun if the helper thread
/// is gone: it must tell its waiter either way (see
/// [`crate::serializer::SharedBuild`]).
pub(crate) fn run(job: impl FnOnce() + Send + 'static) -> bool {
    let Some(queue) = QUEUE.get_or_init(start).as_ref() else {
        return false;
    };
    if BUSY
        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err()
    {
        return false;
    }
    let wrapped: Job = Box::new(move || {
        let done = Done;
        job();
        drop(done);
    });
    let sent = queue.lock().ok().map(|q| q.send(wrapped).is_ok());
    if sent != Some(true) {
        BUSY.store(false, Ordering::Release);
        return false;
    }
    true
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
