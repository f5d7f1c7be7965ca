//! Errors.

use gamewire_source2::DemoError;

use crate::input::InputError;

/// What can go wrong in a query or while writing its output.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// The demo could not be read: a missing file, a damaged compressed
    /// stream, a broadcast directory without its fragments
    /// ([`crate::input`]).
    #[error("{0}")]
    Input(#[from] InputError),
    /// The demo is not a demo, or its parse stopped on an error.
    #[error("{0}")]
    Demo(#[from] DemoError),
    /// An unknown table name.
    #[error("unknown table {name:?}; valid tables: {valid}; closest: {closest}")]
    UnknownTable {
        /// The name asked for.
        name: String,
        /// Every valid name, comma-separated.
        valid: String,
        /// The closest valid names.
        closest: String,
    },
    /// A prop name the demo does not have (in any game: a friendly name of
    /// another game, a raw path its classes lack).
    #[error("unknown {what} prop {name:?}; closest: {closest} (every prop of a demo: gamewire props DEMO, or Demo.props() in Python)")]
    UnknownProp {
        /// `player` or `game-wide`.
        what: &'static str,
        /// The name asked for.
        name: String,
        /// The closest names the demo has, comma-separated (`none near`
        /// when no name is near).
        closest: String,
    },
    /// A class name the demo does not have.
    #[error("the demo has no class {name:?}; closest: {closest}")]
    UnknownClass {
        /// The name asked for.
        name: String,
        /// The closest class names, comma-separated.
        closest: String,
    },
    /// A `grenades` prop that no projectile class of the demo has.
    #[error("unknown grenade prop {name:?}; closest: {closest} (raw props of the grenade projectile classes: m_nBounces, CBodyComponent.m_vecZ, ...)")]
    UnknownGrenadeProp {
        /// The name asked for.
        name: String,
        /// The closest fields of the projectile classes.
        closest: String,
    },
    /// An event name the demo does not declare.
    #[error("the demo declares no event {name:?}; closest: {closest}")]
    UnknownEvent {
        /// The name asked for.
        name: String,
        /// The closest declared names.
        closest: String,
    },
    /// An output format name that is not csv, jsonl or parquet.
    #[error("unknown format {0:?}; valid formats: csv, jsonl, parquet")]
    UnknownFormat(String),
    /// Writing an output failed.
    #[error("cannot write {what}: {source}")]
    Write {
        /// What was being written.
        what: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Building an Arrow batch or a Parquet file failed.
    #[error("parquet output {what}: {message}")]
    Parquet {
        /// What was being written.
        what: String,
        /// The writer's message.
        message: String,
    },
    /// A tick set that does not parse ([`crate::TickSet::parse`]).
    #[error("bad ticks {text:?}: {reason}; write ticks and inclusive ranges, comma-separated: 5, 100..200")]
    BadTicks {
        /// The text given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Every tick asked for lies beyond the demo's last tick.
    #[error("tick {asked} is beyond the demo's last tick, {last}")]
    TickOutOfRange {
        /// The first tick asked for.
        asked: i32,
        /// The demo's last tick.
        last: i32,
    },
    /// An option that no table of the query uses ([`crate::Query::validate`]).
    #[error("the option {option} is not used by the tables asked for (it is used by: {tables})")]
    OptionNotUsed {
        /// The option (the [`crate::Query`] field's name: `props`, `other`,
        /// `events`, `ticks`, `players`, `humans_only`, `grenade_props`).
        option: &'static str,
        /// The tables that use it, comma-separated.
        tables: String,
    },
    /// A cut that cannot be made as asked ([`crate::edit`]): a first tick
    /// after the last, a round the demo does not have, a round of a game
    /// without rounds.
    #[error("{0}")]
    BadCut(String),
    /// An output that cannot take a demo ([`crate::edit`]): standard
    /// output, a directory.
    #[error("cannot write a demo to {}: {reason}", path.display())]
    BadOutput {
        /// The output given.
        path: std::path::PathBuf,
        /// Why not.
        reason: &'static str,
    },
}

/// What kind of failure a [`QueryError`] is: the command line's exit code
/// and the Python exception class follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCategory {
    /// The data is not a Source 2 demo (its magic; a Source 1 demo).
    NotADemo,
    /// The demo or its input ends early (a truncated file, a cut
    /// compressed stream or broadcast fragment).
    Truncated,
    /// The query is malformed: an option no table uses, a tick set that does
    /// not parse, ticks beyond the demo's end; a cut that cannot be made as
    /// asked, an output that cannot take a demo.
    Usage,
    /// The query names something that does not exist: a table, a prop, an
    /// event, a class, a grenade prop, an output format.
    UnknownName,
    /// Reading the input or writing the output failed.
    Io,
    /// The demo (or its input) is damaged: a parse error that is not a cut.
    Corrupt,
}

impl QueryError {
    /// What kind of failure this is.
    pub fn category(&self) -> ErrorCategory {
        use gamewire_source2::error::ErrorKind;
        match self {
            QueryError::Input(e) => match e {
                InputError::Read { .. }
                | InputError::DanglingLink { .. }
                | InputError::BroadcastFile { .. }
                | InputError::BroadcastList { .. }
                | InputError::Live(_) => ErrorCategory::Io,
                InputError::Cut(_) => ErrorCategory::Truncated,
                _ => ErrorCategory::Corrupt,
            },
            QueryError::Demo(e) => match e.kind {
                ErrorKind::BadMagic { .. } | ErrorKind::Source1Demo => ErrorCategory::NotADemo,
                _ if e.is_truncation() => ErrorCategory::Truncated,
                _ => ErrorCategory::Corrupt,
            },
            QueryError::UnknownTable { .. }
            | QueryError::UnknownProp { .. }
            | QueryError::UnknownClass { .. }
            | QueryError::UnknownGrenadeProp { .. }
            | QueryError::UnknownEvent { .. }
            | QueryError::UnknownFormat(_) => ErrorCategory::UnknownName,
            QueryError::BadTicks { .. }
            | QueryError::TickOutOfRange { .. }
            | QueryError::OptionNotUsed { .. }
            | QueryError::BadCut(_)
            | QueryError::BadOutput { .. } => ErrorCategory::Usage,
            QueryError::Write { .. } | QueryError::Parquet { .. } => ErrorCategory::Io,
        }
    }

    /// Whether the query itself is wrong (an unknown name, an option no
    /// table uses, a malformed tick set, ticks beyond the demo's end), not
    /// the demo or the system: the command line exits 2.
    pub fn is_usage(&self) -> bool {
        matches!(
            self.category(),
            ErrorCategory::Usage | ErrorCategory::UnknownName
        )
    }
}
