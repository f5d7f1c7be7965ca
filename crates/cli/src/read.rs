//! Reading a demo for the Source 2 commands: the bytes through the input
//! stage, and a parse that keeps everything before a cut.

use std::ffi::OsString;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use gamewire_query::input::{self, DemoInput, DemoSource, InputCut, InputError};
use gamewire_query::{
    DemoData, DemoError, DemoState, ParseFailure, RunOptions, SendTableCache, Visitor,
};

use crate::error::CliError;

/// The path that stands for the sample demo: `--sample` on the command
/// line becomes this path ([`sample_args`]), and every reader here serves
/// the embedded sample for it ([`gamewire_synth::SAMPLE_DEMO`]). Its angle
/// brackets keep it apart from any file a user means (as `-` is standard
/// input), and it names the demo in messages.
pub(crate) const SAMPLE_PATH: &str = "<sample>";

/// The subcommands that read Source 2 demos, where `--sample` stands for a
/// demo path.
const SAMPLE_COMMANDS: &[&str] = &[
    "info",
    "schema",
    "events",
    "entities",
    "messages",
    "ticks",
    "props",
    "rewrite",
    "cut",
    "anonymize",
    "loop",
    "table",
    "batch",
    "plot",
    "stats",
];

/// The command line with `--sample` replaced by [`SAMPLE_PATH`] when the
/// subcommand reads Source 2 demos (`gamewire table kills --sample`):
/// every such command takes the sample in place of a demo path, through
/// the one path its readers know. After `--`, and for the other
/// subcommands, `--sample` is left as it is (clap then refuses it).
pub(crate) fn sample_args(args: impl Iterator<Item = OsString>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut command: Option<bool> = None;
    let mut after_dashes = false;
    for (i, arg) in args.enumerate() {
        if i > 0 && !after_dashes {
            if arg == "--" {
                after_dashes = true;
            } else if command.is_none() && !arg.to_string_lossy().starts_with('-') {
                command = Some(SAMPLE_COMMANDS.iter().any(|c| arg == *c));
            } else if arg == "--sample" && command == Some(true) {
                out.push(OsString::from(SAMPLE_PATH));
                continue;
            }
        }
        out.push(arg);
    }
    out
}

/// `--idle-timeout SECONDS`: a number of seconds from 0 to a day.
pub(crate) fn parse_idle_timeout(value: &str) -> Result<std::time::Duration, String> {
    match value.parse::<f64>() {
        Ok(s) if (0.0..=86_400.0).contains(&s) => Ok(std::time::Duration::from_secs_f64(s)),
        _ => Err("a number of seconds from 0 to 86400".to_string()),
    }
}

/// Sets the options live input is read with for this process
/// ([`input::set_live_options`]): `--idle-timeout` and `--retries` where
/// given, the defaults otherwise.
pub(crate) fn set_live_options(idle_timeout: Option<std::time::Duration>, retries: Option<u32>) {
    if idle_timeout.is_none() && retries.is_none() {
        return;
    }
    let mut live = input::live_options();
    if let Some(t) = idle_timeout {
        live.idle_timeout = t;
    }
    if let Some(n) = retries {
        live.retries = n;
    }
    input::set_live_options(live);
}

/// Whether `path` stands for the sample demo ([`SAMPLE_PATH`]).
pub(crate) fn is_sample(path: &Path) -> bool {
    path.as_os_str() == SAMPLE_PATH
}

/// [`input::open`], with the sample demo for [`SAMPLE_PATH`].
pub(crate) fn open_input(path: &Path) -> Result<DemoInput, InputError> {
    if is_sample(path) {
        return input::from_bytes(SAMPLE_PATH, gamewire_synth::SAMPLE_DEMO.to_vec());
    }
    input::open(path)
}

/// [`input::open_source`] (a demo in memory when small, else a stream),
/// with the sample demo for [`SAMPLE_PATH`].
pub(crate) fn open_source(path: &Path) -> Result<DemoSource, InputError> {
    if is_sample(path) {
        return open_input(path).map(DemoSource::Memory);
    }
    input::open_source(path)
}

/// A demo opened for one parse ([`read_demo`]): in memory when small,
/// else read as the parse goes. Parsed through the run API
/// ([`RunOptions::parse_located`] takes `&ReadDemo`).
pub(crate) struct ReadDemo {
    /// The path given, for messages.
    path: std::path::PathBuf,
    /// The demo; a stream is read by the parse (hence the cell: the run
    /// API takes the demo by shared reference).
    source: std::cell::RefCell<DemoSource>,
}

impl ReadDemo {
    /// Bytes of demo read so far (decompressed): the whole demo when it
    /// was read at once, else what the parse has read of the stream.
    pub(crate) fn bytes_read(&self) -> u64 {
        self.source.borrow().bytes_read()
    }
}

impl DemoData for &ReadDemo {
    /// Parses the demo; a compressed stream found cut on the way is
    /// reported on standard error once the parse has read to it (as
    /// [`read_demo`] reports the cut of a demo read whole).
    fn parse_located_with<V: Visitor>(
        self,
        options: &RunOptions,
        visitor: &mut V,
    ) -> Result<(DemoState, Option<DemoError>), ParseFailure> {
        let mut source = self.source.borrow_mut();
        let parsed = options.parse_located(&mut *source, visitor);
        if let DemoSource::Stream(stream) = &*source {
            warn_read_cut(&self.path, stream.cut());
        }
        parsed
    }
}

/// Opens a demo through the input stage ([`gamewire_query::input`]): a
/// `.dem` file (gzip, bzip2 or zstd compressed too), standard input for the
/// path `-`, a broadcast directory, or the sample demo for
/// [`SAMPLE_PATH`]. A small file is read whole, a larger one and standard
/// input are streamed as the parse goes ([`input::open_source`]). A cut
/// broadcast fragment or compressed stream is reported on standard error;
/// everything before it is still parsed.
pub(crate) fn read_demo(path: &Path) -> Result<ReadDemo, CliError> {
    let source = open_source(path).map_err(|source| input_error(path, source))?;
    if let DemoSource::Memory(input) = &source {
        warn_read_cut(path, input.cut.as_ref());
    }
    Ok(ReadDemo {
        path: path.to_path_buf(),
        source: std::cell::RefCell::new(source),
    })
}

/// [`read_demo`] for a command that needs the demo's bytes in memory: the
/// whole demo, read (and decompressed) at once.
pub(crate) fn read_demo_bytes(path: &Path) -> Result<Vec<u8>, CliError> {
    let input = open_input(path).map_err(|source| input_error(path, source))?;
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
/// mapped. It keeps the size of the thread's largest demo. The sample demo
/// ([`SAMPLE_PATH`]) is handed over as embedded, without a copy.
pub(crate) fn with_demo<T>(
    path: &Path,
    f: impl FnOnce(&[u8]) -> Result<T, CliError>,
) -> Result<T, CliError> {
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    if is_sample(path) {
        return f(gamewire_synth::SAMPLE_DEMO);
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
    data: impl DemoData,
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
        Err(ParseFailure::Input(e)) => Err(input_error(path, e)),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        sample_args(line.split(' ').map(OsString::from))
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn sample_becomes_the_reserved_path_for_source2_commands_only() {
        assert_eq!(
            args("gamewire table kills --sample"),
            ["gamewire", "table", "kills", SAMPLE_PATH]
        );
        assert_eq!(
            args("gamewire --strict info --sample --format json"),
            [
                "gamewire",
                "--strict",
                "info",
                SAMPLE_PATH,
                "--format",
                "json"
            ]
        );
        // Not for a command that reads no Source 2 demo, nor after `--`.
        assert_eq!(args("gamewire tg --sample"), ["gamewire", "tg", "--sample"]);
        assert_eq!(
            args("gamewire table kills -- --sample"),
            ["gamewire", "table", "kills", "--", "--sample"]
        );
        assert!(is_sample(Path::new(SAMPLE_PATH)));
        assert!(!is_sample(Path::new("sample.dem")));
    }

    #[test]
    fn idle_timeout_takes_seconds_from_zero_to_a_day() {
        assert_eq!(
            parse_idle_timeout("2.5"),
            Ok(std::time::Duration::from_millis(2500))
        );
        assert_eq!(parse_idle_timeout("0"), Ok(std::time::Duration::ZERO));
        for bad in ["-1", "many", "86401", "NaN"] {
            assert!(parse_idle_timeout(bad).is_err(), "{bad}");
        }
    }
}
