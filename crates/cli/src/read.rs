//! Reading a demo for the Source 2 commands: the bytes through the input
//! stage, and a parse that keeps everything before a cut.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use gamewire_query::input::{self, InputCut, InputError};
use gamewire_query::{DemoError, DemoState, ParseFailure, RunOptions, SendTableCache, Visitor};

use crate::error::CliError;

/// Reads a demo through the input stage ([`gamewire_query::input`]): a
/// `.dem` file (gzip, bzip2 or zstd compressed too), standard input for the
/// path `-`, or a broadcast directory. A cut broadcast fragment or
/// compressed stream is reported on standard error; everything before it
/// is still parsed.
pub(crate) fn read_demo(path: &Path) -> Result<Vec<u8>, CliError> {
    let input = input::open(path).map_err(|source| input_error(path, source))?;
    warn_read_cut(path, input.cut.as_ref());
    Ok(input.bytes)
}

fn input_error(path: &Path, source: InputError) -> CliError {
    CliError::Input {
        path: path.to_path_buf(),
        source: Box::new(source),
    }
}

/// Whether a demo was cut short in this run (`--strict` then exits 1).
static CUT_SEEN: AtomicBool = AtomicBool::new(false);

/// Reports a demo cut short: a warning on standard error (the rows before
/// the cut are kept), remembered for `--strict` ([`cut_seen`]).
pub(crate) fn warn_cut(message: &str) {
    note_cut();
    eprintln!("warning: {message}");
}

/// Remembers that a demo was cut short, for a caller that reports the cut
/// itself (above a progress bar).
pub(crate) fn note_cut() {
    CUT_SEEN.store(true, Ordering::Relaxed);
}

/// Whether any demo of this run was cut short ([`warn_cut`]).
pub(crate) fn cut_seen() -> bool {
    CUT_SEEN.load(Ordering::Relaxed)
}

/// Reports a cut met while reading (a broadcast fragment, a compressed
/// stream).
fn warn_read_cut(path: &Path, cut: Option<&InputCut>) {
    if let Some(e) = cut {
        warn_cut(&format!(
            "{}: {e}; parsing what came before",
            path.display()
        ));
    }
}

/// [`read_demo`] for a worker that reads demo after demo: the file goes
/// into a buffer the thread keeps for its next demo
/// ([`input::open_into`]), and `f` gets the bytes. A new buffer per demo
/// would be fresh memory the kernel faults in page by page (a buffer this
/// large is its own mapping, unmapped when freed); the kept one is already
/// mapped. It keeps the size of the thread's largest demo.
pub(crate) fn with_demo<T>(
    path: &Path,
    f: impl FnOnce(&[u8]) -> Result<T, CliError>,
) -> Result<T, CliError> {
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with(|buffer| {
        let input = input::open_into(path, buffer.take()).map_err(|e| input_error(path, e))?;
        warn_read_cut(path, input.cut.as_ref());
        let result = f(&input.bytes);
        buffer.replace(input.bytes);
        result
    })
}

pub(crate) fn describe_error(path: &Path, e: DemoError) -> CliError {
    CliError::Demo {
        path: path.to_path_buf(),
        source: Box::new(e),
    }
}

/// A parse that may have ended at a cut, with the cut told as the warning
/// the commands print.
pub(crate) struct Parsed {
    pub(crate) state: DemoState,
    /// When the demo ended early: the cut, located, to report as a warning.
    /// Everything before it was parsed and is kept.
    pub(crate) cut: Option<String>,
    /// The tick of the frame at the cut: earlier ticks are complete.
    pub(crate) cut_tick: i32,
}

/// The command line's run options: cut demos kept, and no helper thread
/// (one demo per process, or send tables from a shared cache: it would
/// cost more than it saves).
pub(crate) fn single_demo() -> RunOptions {
    RunOptions {
        send_table_cache: None,
        keep_cut: true,
        helper_thread: false,
    }
}

/// Parses with a visitor through the run API
/// ([`RunOptions::parse_located`]; sharing `cache`'s send tables when
/// given). A truncated demo is not an error: the visitor keeps everything
/// before the cut, and the cut comes back in [`Parsed::cut`]. Any other
/// parse error is.
pub(crate) fn parse_keeping_cut<V: Visitor>(
    path: &Path,
    data: &[u8],
    visitor: &mut V,
    cache: Option<&Arc<SendTableCache>>,
) -> Result<Parsed, CliError> {
    let options = RunOptions {
        send_table_cache: cache.cloned(),
        ..single_demo()
    };
    match options.parse_located(data, visitor) {
        Ok((state, None)) => Ok(Parsed {
            state,
            cut: None,
            cut_tick: i32::MAX,
        }),
        Ok((state, Some(e))) => {
            let cut = format!(
                "{}: {e}; the output holds everything before the cut (parsed up to tick {})",
                path.display(),
                state.tick
            );
            Ok(Parsed {
                state,
                cut: Some(cut),
                cut_tick: e.location.tick,
            })
        }
        Err(ParseFailure::NotADemo(e)) => Err(describe_error(path, e)),
        Err(ParseFailure::Stopped { error, state }) => Err(CliError::Parse {
            path: path.to_path_buf(),
            source: Box::new(error),
            tick: state.tick,
        }),
        Err(e) => Err(CliError::Query {
            path: path.to_path_buf(),
            source: Box::new(e.into()),
        }),
    }
}

/// Leaves a large value for the process exit to reclaim: the command is
/// done with it and the process ends next, so freeing its thousands of
/// allocations one by one would only add time (about 4% of a `ticks` run).
pub(crate) fn leave_to_exit<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}
