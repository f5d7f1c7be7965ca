//! The errors of the commands. Each prints as the one line after `error: `
//! that the command has always printed.

use std::net::SocketAddr;
use std::path::PathBuf;

use gamewire_query::Game;

use gamewire_query::{DemoError, InputError, QueryError};

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CliError {
    /// A demo could not be read (a missing file, a damaged compressed
    /// stream, a broadcast directory without its fragments).
    #[error("{}", input_message(path, source))]
    Input {
        /// The path given.
        path: PathBuf,
        /// What went wrong.
        source: Box<InputError>,
    },
    /// A demo did not start to parse (not a Source 2 demo).
    #[error("{}: {source}", path.display())]
    Demo {
        /// The path given.
        path: PathBuf,
        /// The parser's error.
        source: Box<DemoError>,
    },
    /// A demo's parse stopped on an error (not a cut).
    #[error("{}: {source} (parsed up to tick {tick})", path.display())]
    Parse {
        /// The path given.
        path: PathBuf,
        /// The parser's error.
        source: Box<DemoError>,
        /// The last tick read.
        tick: i32,
    },
    /// A query on a demo failed: the demo, or a name it does not declare.
    #[error("{}: {source}", path.display())]
    Query {
        /// The path given.
        path: PathBuf,
        /// The query's error.
        source: Box<QueryError>,
    },
    /// A query failed before any demo was read (an unknown table name), or
    /// writing its output failed.
    #[error("{0}")]
    Table(Box<QueryError>),
    /// A table asked for did not come out of the run.
    #[error("{}: table {table} was not produced", path.display())]
    NotProduced {
        /// The path given.
        path: PathBuf,
        /// The table's name.
        table: &'static str,
    },
    /// A file or directory could not be created.
    #[error("cannot create {}: {source}", path.display())]
    Create {
        /// The file or directory.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// Writing to standard output failed.
    #[error("writing output: {0}")]
    Output(std::io::Error),
    /// Writing JSON to standard output failed.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// The worker threads could not be started.
    #[error("cannot start {threads} worker threads: {source}")]
    Threads {
        /// The count asked for (0: one per core).
        threads: usize,
        /// The pool's error.
        source: rayon::ThreadPoolBuildError,
    },
    /// `anonymize` without `--key`: no random key could be drawn.
    #[error("cannot draw a random key: {0}; give --key")]
    RandomKey(String),
    /// No demo was found in the paths given.
    #[error("no demo files found")]
    NoDemos,
    /// Every demo of several failed.
    #[error("every demo failed ({failed})")]
    EveryDemoFailed {
        /// How many failed.
        failed: usize,
        /// Whether every failure was bad usage (an unknown name, say): the
        /// exit status is then 2.
        usage: bool,
    },
    /// Some demos of several failed.
    #[error("{failed} of {total} demos failed")]
    SomeDemosFailed {
        /// How many failed.
        failed: usize,
        /// How many there were.
        total: usize,
    },
    /// The arguments ask for something that cannot be done.
    #[error("{0}")]
    Usage(&'static str),
    /// The arguments ask for something that cannot be done (a message
    /// made from them).
    #[error("{0}")]
    UsageText(String),
    /// `-o FILE` without `--format`, and the extension names no format.
    #[error("cannot tell the format from {}: give --format csv|jsonl|parquet, or name the file .csv, .jsonl, .ndjson or .parquet", .0.display())]
    FormatOfPath(PathBuf),
    /// `batch --out DIR`: the directory holds files already.
    #[error("{} is not empty: give --overwrite to replace its tables, or --resume to skip the demos already written", .0.display())]
    OutNotEmpty(PathBuf),
    /// A class name the demo does not have.
    #[error("no class named {class:?}; closest: {}", closest.join(", "))]
    UnknownClass {
        /// The class asked for.
        class: String,
        /// The closest class names.
        closest: Vec<String>,
    },
    /// A message name the demo's game does not have.
    #[error("no message is called {message:?} in {game:?} demos; closest: {}", closest.join(", "))]
    UnknownMessage {
        /// The message asked for.
        message: String,
        /// The demo's game.
        game: Game,
        /// The closest message names.
        closest: Vec<String>,
    },
    /// A tick the demo holds only in part: it is cut short.
    #[error("tick {tick} is not complete in this demo, which is cut short: {cut}")]
    TickCut {
        /// The tick asked for.
        tick: i32,
        /// The cut, located.
        cut: String,
    },
    /// A tick after the end of the demo.
    #[error("tick {tick} is after the last tick ({last})")]
    TickAfterEnd {
        /// The tick asked for.
        tick: i32,
        /// The demo's last tick.
        last: i32,
    },
    /// One demo of several failed after its parse.
    #[error("{}: {source}", path.display())]
    InDemo {
        /// The demo.
        path: PathBuf,
        /// Why it failed.
        source: Box<CliError>,
    },
    /// `tg cf16 encode`: the value is not a number.
    #[error("`{0}` is not a number")]
    NotANumber(String),
    /// `tg cf16 decode`: the code is not a 16-bit hex number.
    #[error("`{0}` is not a 16-bit hex code (e.g. 0x4B8D)")]
    NotACf16Code(String),
    /// `tg read`: the hex input has an odd number of digits.
    #[error("the hex input has an odd number of digits ({0})")]
    TgOddDigits(usize),
    /// `tg read`: a byte of the hex input is not hex.
    #[error("the hex input has a non-hex digit in byte {0}")]
    TgNotHex(usize),
    /// A TGBufferStream field list or field.
    #[error(transparent)]
    TgStream(#[from] gamewire_tgstream::Error),
    /// `tw decode`: the hex string has an odd number of digits.
    #[error("the hex string has an odd number of digits ({0})")]
    TwOddDigits(usize),
    /// `tw decode`: a byte of the hex string is not text.
    #[error("byte {0} is not hex")]
    TwByteNotText(usize),
    /// `tw decode`: a byte of the hex string is not hex.
    #[error("byte {byte} (`{text}`) is not hex")]
    TwByteNotHex {
        /// The byte's index.
        byte: usize,
        /// Its two digits.
        text: String,
    },
    /// `tw decode`: the datagram's first error.
    #[error("the datagram did not decode cleanly: {0}")]
    Datagram(gamewire_teeworlds::Error),
    /// `tw pcap`: datagrams that did not decode cleanly.
    #[error("{failed} of {total} datagrams did not decode cleanly")]
    DatagramsFailed {
        /// How many failed.
        failed: usize,
        /// How many there were.
        total: usize,
    },
    /// `synth`: the scenario's extension names no scenario format.
    #[error("cannot tell the scenario format from {}: name it .toml or .json", .0.display())]
    ScenarioFormat(PathBuf),
    /// `synth`: the scenario has an error (its line or key and what is
    /// wrong), or the schema lacks what the match needs. No file is written.
    #[error("{}: {source}", path.display())]
    Synth {
        /// The scenario file.
        path: PathBuf,
        /// The synthesizer's error.
        source: Box<gamewire_synth::SynthError>,
    },
    /// A file could not be read.
    #[error("reading {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("writing {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A Teeworlds capture or demo file did not decode.
    #[error("{}: {source}", path.display())]
    Teeworlds {
        /// The file.
        path: PathBuf,
        /// The decoder's error.
        source: gamewire_teeworlds::Error,
    },
    /// `tw connect`: the address did not resolve.
    #[error("resolving {addr}: {source}")]
    Resolve {
        /// The address given.
        addr: String,
        /// The resolver's error.
        source: std::io::Error,
    },
    /// `tw connect`: the address resolved to nothing.
    #[error("{0} resolves to no address")]
    NoAddress(String),
    /// `tw connect`: no UDP socket.
    #[error("binding a UDP socket: {0}")]
    Bind(std::io::Error),
    /// `tw connect`: the socket could not be connected.
    #[error("connecting the UDP socket to {addr}: {source}")]
    ConnectSocket {
        /// The server.
        addr: SocketAddr,
        /// The system's error.
        source: std::io::Error,
    },
    /// `tw connect`: the socket's timeout could not be set.
    #[error("setting the socket timeout: {0}")]
    SocketTimeout(std::io::Error),
    /// `tw connect`: receiving failed.
    #[error("receiving: {0}")]
    Receive(std::io::Error),
    /// `tw connect --record`: the map never came, so nothing was recorded.
    #[error("nothing recorded in {}: the map never came", path.display())]
    NothingRecorded {
        /// The demo file asked for.
        path: PathBuf,
    },
    /// `tw connect`: the client never entered the game.
    #[error("did not enter the game on {addr}{}", closed.as_ref().map(|c| format!(" (closed: {c})")).unwrap_or_default())]
    NotEntered {
        /// The server.
        addr: SocketAddr,
        /// Why the connection closed, when it did.
        closed: Option<String>,
    },
}

/// The exit status of each outcome.
///
/// - 0: success, including a demo cut short (a warning on standard error;
///   `--strict` makes it 1), and a closed standard output (`| head`).
/// - 1: an error: a file that is not a demo, a demo that does not decode,
///   a file that cannot be read or written, a demo of several that failed.
/// - 2: bad usage: the options (clap's own errors), an unknown name of a
///   table, prop, event, class or message, an option the command does not
///   use, a tick out of range, a malformed list.
pub(crate) const EXIT_POLICY: &str = "\
Exit status:
  0  success. A demo cut short keeps its rows up to the cut, with a warning on
     standard error (--strict: exit 1). A closed standard output (| head)
     ends the command quietly with 0.
  1  an error: not a demo, a demo that does not decode, a file that cannot be
     read or written, a scenario with an error (synth: no file is written);
     batch: any demo failed (--keep-going: only when every demo failed);
     several demos: any demo failed.
  2  bad usage: an unknown option or value, an unknown table, prop, event,
     class or message name, an option the command does not use, a tick out
     of range, a malformed list, Parquet to a terminal, -o FILE whose
     extension names no format, a batch --out that is not empty, a synth
     scenario named neither .toml nor .json.";

impl CliError {
    /// The process exit status for this error ([`EXIT_POLICY`]).
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_)
            | CliError::UsageText(_)
            | CliError::FormatOfPath(_)
            | CliError::ScenarioFormat(_)
            | CliError::OutNotEmpty(_)
            | CliError::UnknownClass { .. }
            | CliError::UnknownMessage { .. }
            | CliError::TickAfterEnd { .. } => 2,
            CliError::EveryDemoFailed { usage: true, .. } => 2,
            CliError::Table(e) | CliError::Query { source: e, .. } if e.is_usage() => 2,
            CliError::InDemo { source, .. } => source.exit_code(),
            _ => 1,
        }
    }

    /// Whether the error is standard output closed under the command (a
    /// reader such as `head` that stopped reading): the command then ends
    /// quietly with exit status 0.
    pub fn is_broken_pipe(&self) -> bool {
        let first: &(dyn std::error::Error + 'static) = match self {
            CliError::Output(e) => e,
            CliError::Json(e) => e,
            CliError::Table(e) => e.as_ref(),
            CliError::InDemo { source, .. } => return source.is_broken_pipe(),
            other => other,
        };
        let mut next = Some(first);
        while let Some(e) = next {
            if let Some(io) = e.downcast_ref::<std::io::Error>() {
                if io.kind() == std::io::ErrorKind::BrokenPipe {
                    return true;
                }
            }
            if let Some(json) = e.downcast_ref::<serde_json::Error>() {
                if json.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe) {
                    return true;
                }
            }
            next = e.source();
        }
        false
    }
}

/// A read error as the commands print it: a file that cannot be read and a
/// broadcast directory name their path themselves; the decompressor's
/// errors get it in front.
fn input_message(path: &std::path::Path, e: &InputError) -> String {
    match e {
        InputError::TooLarge { .. } | InputError::Cut(_) => format!("{}: {e}", path.display()),
        _ => e.to_string(),
    }
}

impl From<QueryError> for CliError {
    fn from(e: QueryError) -> Self {
        CliError::Table(Box::new(e))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn read_errors_print_as_the_commands_always_printed_them() {
        // A file that cannot be read names itself.
        let missing = gamewire_query::input::open(Path::new("no/such.dem")).unwrap_err();
        let e = CliError::Input {
            path: "no/such.dem".into(),
            source: Box::new(missing),
        };
        assert!(
            e.to_string().starts_with("cannot read no/such.dem: "),
            "{e}"
        );
        // A compressed stream that gives nothing gets the path in front.
        let cut = gamewire_query::input::from_bytes("x.dem.gz", vec![0x1f, 0x8b, 8]).unwrap_err();
        let e = CliError::Input {
            path: "x.dem.gz".into(),
            source: Box::new(cut),
        };
        assert!(e.to_string().starts_with("x.dem.gz: gzip stream: "), "{e}");
        // Several demos: the counts.
        assert_eq!(
            CliError::SomeDemosFailed {
                failed: 2,
                total: 4
            }
            .to_string(),
            "2 of 4 demos failed"
        );
        assert_eq!(CliError::NoDemos.to_string(), "no demo files found");
        // Exit statuses: bad usage 2, an error 1.
        assert_eq!(CliError::Usage("x").exit_code(), 2);
        assert_eq!(CliError::NoDemos.exit_code(), 1);
        assert_eq!(
            CliError::EveryDemoFailed {
                failed: 2,
                usage: true
            }
            .exit_code(),
            2
        );
    }

    #[test]
    fn name_and_tool_errors_print_as_the_commands_always_printed_them() {
        assert_eq!(
            CliError::UnknownMessage {
                message: "Nope".into(),
                game: Game::Cs2,
                closest: vec!["UmFade".into()]
            }
            .to_string(),
            "no message is called \"Nope\" in Cs2 demos; closest: UmFade"
        );
        let inner = CliError::UnknownClass {
            class: "x".into(),
            closest: vec!["CCSTeam".into()],
        };
        let e = CliError::InDemo {
            path: "a/b.dem".into(),
            source: Box::new(inner),
        };
        assert!(
            e.to_string().starts_with("a/b.dem: no class named \"x\""),
            "{e}"
        );
        assert_eq!(
            CliError::NotEntered {
                addr: "127.0.0.1:8303".parse().unwrap(),
                closed: Some("Timeout".into())
            }
            .to_string(),
            "did not enter the game on 127.0.0.1:8303 (closed: Timeout)"
        );
        assert_eq!(
            CliError::TwByteNotHex {
                byte: 0,
                text: "zz".into()
            }
            .to_string(),
            "byte 0 (`zz`) is not hex"
        );
        // A TGBufferStream error reads as the crate's own message.
        let list = gamewire_tgstream::fields::parse_field_list("byte,word").unwrap_err();
        let text = list.to_string();
        assert_eq!(
            CliError::from(gamewire_tgstream::Error::from(list)).to_string(),
            text
        );
    }
}
