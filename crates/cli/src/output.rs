//! Where and how the Source 2 commands write their rows.
//!
//! One rule for every command that writes rows (`table`, `events`,
//! `ticks`, `messages`, `props`, `batch`): the format is `--format` when
//! given, else the one that `-o FILE`'s extension names (`.csv`, `.jsonl`
//! or `.ndjson`, `.parquet`), else CSV. Parquet is binary: it is refused on
//! a terminal (write it with `-o FILE` or redirect standard output).
//!
//! An `-o FILE` is written atomically ([`Sink::create`]): under a hidden
//! temporary name in the same folder, renamed onto FILE when the command
//! is done, so a reader never sees half a table and a command that is
//! killed leaves FILE as it was. `--follow` writes FILE as the rows arrive
//! instead ([`Sink::open`]), since it is read while it grows.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::Path;

use clap::ValueEnum;
use gamewire_query::edit::AtomicFile;
use gamewire_query::write::Format;

use crate::error::CliError;

/// The output format of the commands that write rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    /// CSV with a header row (nulls are empty).
    Csv,
    /// JSON Lines, keys in column order (nulls are null).
    Jsonl,
    /// Parquet with typed nullable columns (snappy).
    Parquet,
}

impl TableFormat {
    /// The writer's format.
    pub fn format(self) -> Format {
        match self {
            TableFormat::Csv => Format::Csv,
            TableFormat::Jsonl => Format::Jsonl,
            TableFormat::Parquet => Format::Parquet,
        }
    }
}

/// The format of a command: `--format`, else `-o`'s extension, else CSV.
/// An `-o` file whose extension names no format needs `--format`.
pub(crate) fn resolve_format(
    format: Option<TableFormat>,
    output: Option<&Path>,
) -> Result<Format, CliError> {
    if let Some(f) = format {
        return Ok(f.format());
    }
    match output {
        None => Ok(Format::Csv),
        Some(path) => {
            Format::from_path(path).ok_or_else(|| CliError::FormatOfPath(path.to_path_buf()))
        }
    }
}

/// Parquet (binary) to standard output when it is a terminal is refused:
/// checked before a demo is read, so the refusal is immediate.
pub(crate) fn refuse_binary_terminal(
    output: Option<&Path>,
    format: Format,
) -> Result<(), CliError> {
    if output.is_none() && format == Format::Parquet && std::io::stdout().is_terminal() {
        return Err(CliError::Usage(
            "parquet is binary: give -o FILE or redirect standard output",
        ));
    }
    Ok(())
}

/// Standard output, buffered.
pub(crate) fn stdout() -> BufWriter<std::io::StdoutLock<'static>> {
    BufWriter::new(std::io::stdout().lock())
}

/// Where rows go: `-o FILE` or standard output.
pub(crate) enum Sink {
    /// Standard output.
    Stdout(BufWriter<std::io::Stdout>),
    /// A file written as the rows come (`--follow`, or a FILE that is not
    /// a regular file: a device, a pipe).
    File(BufWriter<File>),
    /// A file written under a temporary name, renamed when done.
    Atomic(AtomicFile),
}

impl Sink {
    /// Opens `-o FILE` (created or truncated) to be written as the rows
    /// come, or standard output. Parquet to a terminal is refused
    /// ([`refuse_binary_terminal`]).
    pub(crate) fn open(output: Option<&Path>, format: Format) -> Result<Sink, CliError> {
        match output {
            Some(path) => Ok(Sink::File(BufWriter::with_capacity(
                1 << 16,
                create_file(path)?,
            ))),
            None => Self::standard_output(format),
        }
    }

    /// Opens `-o FILE` to be written atomically: its rows go to a
    /// temporary file beside it, which [`Sink::finish`] renames onto FILE.
    /// A FILE that exists and is not a regular file (`/dev/null`, a pipe)
    /// is written directly. Without `-o`, standard output.
    pub(crate) fn create(output: Option<&Path>, format: Format) -> Result<Sink, CliError> {
        let Some(path) = output else {
            return Self::standard_output(format);
        };
        let special = std::fs::metadata(path).is_ok_and(|m| !m.is_file());
        if special {
            return Self::open(output, format);
        }
        AtomicFile::create(path)
            .map(Sink::Atomic)
            .map_err(|source| CliError::Create {
                path: path.to_path_buf(),
                source,
            })
    }

    fn standard_output(format: Format) -> Result<Sink, CliError> {
        refuse_binary_terminal(None, format)?;
        Ok(Sink::Stdout(BufWriter::with_capacity(
            1 << 16,
            std::io::stdout(),
        )))
    }

    /// Ends the output with the command's `result`: flushed, and a file
    /// written atomically is renamed onto its destination when the command
    /// succeeded, or when it failed after writing rows (the demos that
    /// went through in a run over several, the rows before an error: what
    /// was parsed is kept). A command that failed before writing anything
    /// leaves no file.
    pub(crate) fn finish(self, result: Result<(), CliError>) -> Result<(), CliError> {
        match self {
            Sink::Atomic(file) => {
                if result.is_err() && file.written() == 0 {
                    return result;
                }
                let path = file.destination().to_path_buf();
                let committed = file
                    .commit()
                    .map_err(|source| CliError::Write { path, source });
                result.and(committed)
            }
            mut other => {
                let flushed = other.flush().map_err(CliError::Output);
                result.and(flushed)
            }
        }
    }
}

/// Creates (or truncates) `path`.
fn create_file(path: &Path) -> Result<File, CliError> {
    File::create(path).map_err(|source| CliError::Create {
        path: path.to_path_buf(),
        source,
    })
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf),
            Sink::File(w) => w.write(buf),
            Sink::Atomic(w) => w.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        match self {
            Sink::Stdout(w) => w.write_all(buf),
            Sink::File(w) => w.write_all(buf),
            Sink::Atomic(w) => w.write_all(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::File(w) => w.flush(),
            Sink::Atomic(w) => w.flush(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_format_follows_the_option_then_the_extension_then_csv() {
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(resolve_format(None, None).unwrap(), Format::Csv);
        assert_eq!(
            resolve_format(None, p("x.parquet").as_deref()).unwrap(),
            Format::Parquet
        );
        assert_eq!(
            resolve_format(None, p("x.NDJSON").as_deref()).unwrap(),
            Format::Jsonl
        );
        assert_eq!(
            resolve_format(Some(TableFormat::Csv), p("x.parquet").as_deref()).unwrap(),
            Format::Csv
        );
        assert!(matches!(
            resolve_format(None, p("x.txt").as_deref()),
            Err(CliError::FormatOfPath(_))
        ));
    }
}
