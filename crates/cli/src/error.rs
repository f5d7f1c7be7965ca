//! The errors of the Source 2 commands. Each prints as the one line after
//! `error: ` that the command has always printed.

use std::path::PathBuf;

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
    /// No demo was found in the paths given.
    #[error("no demo files found")]
    NoDemos,
    /// Every demo of several failed.
    #[error("every demo failed ({0})")]
    EveryDemoFailed(usize),
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
    /// A name the demo does not have (a class, a message, a tick), with the
    /// closest names.
    #[error("{0}")]
    NotInDemo(String),
    /// An error of a command whose errors are messages.
    #[error("{0}")]
    Message(String),
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

impl From<String> for CliError {
    fn from(message: String) -> Self {
        CliError::Message(message)
    }
}

impl From<CliError> for String {
    fn from(e: CliError) -> Self {
        e.to_string()
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
        assert_eq!(String::from(CliError::NoDemos), "no demo files found");
    }
}
