//! `gamewire batch`: many demos in parallel, one dataset per table.
//!
//! # Layout
//!
//! Parquet is written as a Hive-partitioned dataset, the layout that
//! pyarrow, pandas, polars, DuckDB, Dask and Spark read as one table:
//!
//! ```text
//! <out>/<table>/demo=<name>/part-0.parquet
//! <out>/_errors/demo=<name>/part-0.parquet
//! ```
//!
//! The `demo` column is not in the files: readers restore it from the
//! directory name (`demo=14065`), percent-encoded as pyarrow's Hive
//! partitioning expects (every byte outside `A-Z a-z 0-9 - . _ ~`). The
//! same layout is what `gamewire.dask.to_parquet` writes, so one machine
//! and a cluster produce the same dataset. Every file of a table has the
//! same column types, whatever its rows: a column without any value takes
//! the type the table's reference declares (`typed_when_empty`), so the
//! files read as one table.
//!
//! CSV and JSON Lines keep one file per demo, `<out>/<table>/<name>.<ext>`,
//! each row starting with a `demo` column: a folder of such files is read
//! as one table by a glob, and their readers' Hive support is uneven.
//!
//! # Errors are rows, not gaps
//!
//! A demo that fails, or is cut short (its rows before the cut are kept),
//! gets a record in `<out>/_errors/` (the same layout as a table): `path`,
//! `kind` (`read`, `missing`, `not_a_demo`, `corrupt`, `truncated`,
//! `unknown_name`, `usage`, `write`, or `cut`), `message`, and `tick`, the
//! last tick reached when the error names one. No demo is dropped without
//! a line on standard error and a record.
//!
//! # Resume
//!
//! Every file is written to a hidden temporary name in its own folder
//! (`.<file>.partial`: a name that dataset readers skip) and renamed when
//! complete, so a run killed part-way leaves only complete files. A demo
//! is complete when the file of every table asked for exists; `--resume`
//! skips those and does the others (and removes the temporary files an
//! earlier run left). A cut demo's record is written before its tables,
//! so a complete demo always has its record.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use gamewire_query::input::dataset_names;
use gamewire_query::reference;
use gamewire_query::write::{write_table, Format};
use gamewire_query::{
    Cell, Column, Cut, ErrorCategory, Kind, Query, QueryError, SendTableCache, Table, TableKind,
};
use rayon::prelude::*;

use crate::error::CliError;
use crate::many;
use crate::output::TableFormat;
use crate::read::note_cut;
use crate::tables::{batch_outcome, cut_message, QueryArgs};

/// `gamewire batch`.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// Demo files (`.dem`, also compressed: `.dem.gz`, `.dem.bz2`,
    /// `.dem.zst`), or directories searched recursively for them and for
    /// broadcast directories (a `sync.json` and its fragments: one demo
    /// each). A demo cut short (a truncated file, a cut fragment) keeps its
    /// tables up to the cut, with a warning.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Tables, comma-separated (events, ticks, players, chat, grenades,
    /// rounds, kills, damages, purchases, user_commands, shots, bomb,
    /// smokes, infernos, flashes, footsteps, item_drops, skins, combat_log,
    /// updated_fields, header).
    #[arg(long, default_value = "header,kills,rounds")]
    pub tables: String,
    /// Output directory: one dataset directory per table. Parquet is
    /// Hive-partitioned, `<out>/<table>/demo=<demo>/part-0.parquet` (the
    /// `demo` column comes from the folder name); CSV and JSON Lines are
    /// `<out>/<table>/<demo>.<ext>`, every row with a `demo` column. Demos
    /// that fail or are cut short get a record in `<out>/_errors/`. A
    /// directory that holds anything is refused unless `--overwrite` or
    /// `--resume`.
    #[arg(long, required_unless_present = "anonymize")]
    pub out: Option<PathBuf>,
    /// Instead of tables: anonymize every demo into this directory,
    /// `<OUTDIR>/<demo>.dem` (as `gamewire anonymize`, one key for the
    /// whole run). `--overwrite` replaces the demos of an earlier run,
    /// `--resume` skips those already written.
    #[arg(long, value_name = "OUTDIR", conflicts_with_all = ["out", "tables", "format"])]
    pub anonymize: Option<PathBuf>,
    /// `--anonymize`: the key and `--keep-chat`.
    #[command(flatten)]
    pub key: crate::edit::KeyArgs,
    /// Remove the tables of an earlier run from `--out` first (every
    /// `<out>/<table>/` directory of a table name, and `<out>/_errors/`).
    #[arg(long, conflicts_with = "resume")]
    pub overwrite: bool,
    /// Go on with an earlier run in `--out`: skip the demos whose files of
    /// every table asked for exist, do the others.
    #[arg(long)]
    pub resume: bool,
    /// Exit with 0 when some demos failed (they are still reported); exit
    /// 1 only when every demo failed.
    #[arg(long)]
    pub keep_going: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Csv)]
    pub format: TableFormat,
    /// Worker threads (default: the number of cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub query: QueryArgs,
}

/// The folder of the error records, beside the tables' folders.
const ERRORS: &str = "_errors";

/// A demo name as a Hive partition value: percent-encoded outside the
/// characters a URI leaves alone (`A-Z a-z 0-9 - . _ ~`), as pyarrow's
/// default `segment_encoding="uri"` decodes it (and Python's
/// `urllib.parse.quote(name, safe="")` encodes it).
pub(crate) fn hive_value(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The file of a demo's table (or of its error record, `table` =
/// `_errors`) in a batch's output.
fn table_file(out: &Path, table: &str, name: &str, format: Format) -> PathBuf {
    match format {
        Format::Parquet => out
            .join(table)
            .join(format!("demo={}", hive_value(name)))
            .join("part-0.parquet"),
        Format::Csv | Format::Jsonl => out
            .join(table)
            .join(format!("{name}.{}", format.extension())),
    }
}

/// The temporary name of `file` while it is written: hidden, in the same
/// folder (so that the rename is atomic), and not ending in the format's
/// extension, so that no dataset reader or glob takes it for a part.
fn partial_file(file: &Path) -> PathBuf {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    file.with_file_name(format!(".{name}.partial"))
}

/// Whether a file name is one [`partial_file`] makes.
fn is_partial(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".partial")
}

/// Writes `table` to `file` under its temporary name, then renames it.
fn write_file(table: &Table, file: &Path, format: Format) -> Result<(), CliError> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(|source| CliError::Create {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    let partial = partial_file(file);
    let f = File::create(&partial).map_err(|source| CliError::Create {
        path: partial.clone(),
        source,
    })?;
    let mut w = BufWriter::new(f);
    write_table(table, format, &mut w)?;
    w.flush().map_err(|source| CliError::Write {
        path: partial.clone(),
        source,
    })?;
    drop(w);
    std::fs::rename(&partial, file).map_err(|source| CliError::Write {
        path: file.to_path_buf(),
        source,
    })
}

/// A column without any value has no type of its own (the query crate
/// types it as text): it takes the type the table's reference declares
/// for it, and a steam id or tick column not in the reference keeps its
/// own, as the Python package types it. Every demo's file of a table then
/// has the same column types whatever its rows, so that the files of a
/// dataset read as one table.
fn typed_when_empty(table: &mut Table) {
    let spec = reference::spec(&table.name);
    for (name, column) in &mut table.columns {
        if !column.is_all_null() {
            continue;
        }
        let declared = spec.and_then(|t| t.column(name)).map(|c| c.kind);
        let kind = match declared {
            Some(kind) => kind,
            None if name == "steamid" || name.ends_with("_steamid") => Kind::U64,
            None if name == "tick" || name.ends_with("_tick") => Kind::I64,
            None => continue,
        };
        if column.kind() != kind {
            let mut typed = Column::new(kind);
            typed.push_nulls(column.len());
            *column = typed;
        }
    }
}

/// Why a demo has a record in `_errors`: a failure, or a cut.
#[derive(Debug)]
struct Record {
    /// The tag (`corrupt`, `cut`, ...).
    kind: &'static str,
    /// What happened.
    message: String,
    /// The last tick reached, when known.
    tick: Option<i32>,
}

impl Record {
    /// The record of a query that failed on a demo.
    fn of_query(path: &Path, e: &QueryError) -> Record {
        let kind = match e.category() {
            ErrorCategory::Io => match e {
                QueryError::Input(i) if i.is_not_found() => "missing",
                QueryError::Write { .. } => "write",
                _ => "read",
            },
            ErrorCategory::NotADemo => "not_a_demo",
            ErrorCategory::Truncated => "truncated",
            ErrorCategory::UnknownName => "unknown_name",
            ErrorCategory::Usage => "usage",
            _ => "corrupt",
        };
        let tick = match e {
            QueryError::Demo(d) => Some(d.location.tick),
            _ => None,
        };
        Record {
            kind,
            message: format!("{}: {e}", path.display()),
            tick,
        }
    }

    /// The record of a demo cut short.
    fn of_cut(path: &Path, cut: &Cut) -> Record {
        let tick = match cut {
            Cut::Demo(d) | Cut::Both { demo: d, .. } => Some(d.location.tick),
            _ => None,
        };
        Record {
            kind: "cut",
            message: cut_message(path, cut),
            tick,
        }
    }

    /// The record as a one-row table: `path`, `kind`, `message`, `tick`
    /// (after a `demo` column in CSV and JSON Lines).
    fn table(&self, path: &Path, name: &str, format: Format) -> Table {
        let mut t = Table::with_schema(
            ERRORS,
            &[
                ("path", Kind::Str),
                ("kind", Kind::Str),
                ("message", Kind::Str),
                ("tick", Kind::I64),
            ],
        );
        t.push_row(&[
            Cell::Str(path.display().to_string()),
            Cell::Str(self.kind.to_string()),
            Cell::Str(self.message.clone()),
            self.tick.map_or(Cell::Null, |t| Cell::Int(i64::from(t))),
        ]);
        if format != Format::Parquet {
            t.prepend_constant("demo", name);
        }
        t
    }
}

/// Where a batch writes, and how.
struct Output<'a> {
    out: &'a Path,
    format: Format,
}

impl Output<'_> {
    /// Writes a demo's error record.
    fn record(&self, path: &Path, name: &str, record: &Record) -> Result<(), CliError> {
        let file = table_file(self.out, ERRORS, name, self.format);
        write_file(&record.table(path, name, self.format), &file, self.format)
    }

    /// Removes the error record of an earlier run of a demo that now goes
    /// through.
    fn clear_record(&self, name: &str) -> Result<(), CliError> {
        let file = table_file(self.out, ERRORS, name, self.format);
        match std::fs::remove_file(&file) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(CliError::Write { path: file, source }),
        }
    }

    /// Parses one demo (file or broadcast directory) and writes its tables
    /// (a cut demo's record first); returns the bytes parsed and the cut of
    /// a demo cut short (whose tables hold everything before it). A demo
    /// that fails gets its record.
    fn demo(&self, query: &Query, path: &Path, name: &str) -> Result<(u64, Option<Cut>), CliError> {
        let failed = |e: QueryError| {
            let record = Record::of_query(path, &e);
            // The demo's failure is what is reported; a record that cannot
            // be written is reported beside it.
            if let Err(w) = self.record(path, name, &record) {
                eprintln!("warning: {}: no error record: {w}", path.display());
            }
            CliError::from(e)
        };
        // As `table` reads a demo: a large file streamed as it is parsed
        // (memory stays flat in the demo's length), a small one whole.
        let mut demo = crate::read::open_source(path).map_err(|e| failed(e.into()))?;
        let run = query.run_source(&mut demo).map_err(failed)?;
        let size = demo.bytes_read();
        drop(demo);
        match &run.cut {
            Some(cut) => self.record(path, name, &Record::of_cut(path, cut))?,
            None => self.clear_record(name)?,
        }
        for mut t in run.tables {
            typed_when_empty(&mut t);
            if self.format != Format::Parquet {
                t.prepend_constant("demo", name);
            }
            let file = table_file(self.out, &t.name, name, self.format);
            write_file(&t, &file, self.format).inspect_err(|e| {
                let record = Record {
                    kind: "write",
                    message: format!("{}: {e}", path.display()),
                    tick: None,
                };
                // The failure itself is reported either way.
                if let Err(w) = self.record(path, name, &record) {
                    eprintln!("warning: {}: no error record: {w}", path.display());
                }
            })?;
        }
        Ok((size, run.cut))
    }
}

/// Removes the temporary files an interrupted run left in a dataset
/// directory (its files, and one level of partition folders).
fn remove_partials(dir: &Path, depth: u32) -> Result<(), CliError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(CliError::Read {
                path: dir.to_path_buf(),
                source,
            })
        }
    };
    for e in entries {
        let e = e.map_err(|source| CliError::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = e.path();
        if path.is_dir() {
            if depth > 0 {
                remove_partials(&path, depth - 1)?;
            }
        } else if is_partial(&e.file_name().to_string_lossy()) {
            std::fs::remove_file(&path).map_err(|source| CliError::Write { path, source })?;
        }
    }
    Ok(())
}

/// Prepares `--out`: refused when it holds anything, unless `--overwrite`
/// (the table directories and the error records of an earlier run are
/// removed) or `--resume` (the temporary files of an interrupted run are
/// removed).
fn prepare_out(args: &BatchArgs, out: &Path) -> Result<(), CliError> {
    let entries = match std::fs::read_dir(out) {
        Ok(entries) => entries
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| CliError::Read {
                path: out.to_path_buf(),
                source,
            })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(source) => {
            return Err(CliError::Read {
                path: out.to_path_buf(),
                source,
            })
        }
    };
    let is_dataset = |e: &std::fs::DirEntry| {
        let name = e.file_name();
        let named = name.to_str() == Some(ERRORS)
            || TableKind::ALL
                .iter()
                .any(|k| name.to_str() == Some(k.name()));
        named && e.path().is_dir()
    };
    if args.resume {
        for e in entries.iter().filter(|e| is_dataset(e)) {
            remove_partials(&e.path(), 1)?;
        }
        return Ok(());
    }
    if entries.is_empty() {
        return Ok(());
    }
    if !args.overwrite {
        return Err(CliError::OutNotEmpty(out.to_path_buf()));
    }
    for e in entries.iter().filter(|e| is_dataset(e)) {
        std::fs::remove_dir_all(e.path()).map_err(|source| CliError::Write {
            path: e.path(),
            source,
        })?;
    }
    Ok(())
}

/// `gamewire batch`.
pub fn batch(args: BatchArgs) -> Result<(), CliError> {
    if let Some(dir) = &args.anonymize {
        if !args.query.is_empty() {
            return Err(CliError::Usage(
                "batch --anonymize writes demos, not tables: it takes no query option",
            ));
        }
        return crate::edit::batch_anonymize(crate::edit::BatchAnonymize {
            inputs: &args.inputs,
            out: dir,
            key: &args.key,
            overwrite: args.overwrite,
            resume: args.resume,
            keep_going: args.keep_going,
            jobs: args.jobs,
        });
    }
    if args.key.key.is_some() || args.key.keep_chat {
        return Err(CliError::Usage(
            "--key and --keep-chat are options of --anonymize",
        ));
    }
    let out = args
        .out
        .clone()
        .ok_or(CliError::Usage("give --out DIR (or --anonymize OUTDIR)"))?;
    let kinds = TableKind::parse_list(&args.tables)?;
    if kinds.is_empty() {
        return Err(CliError::Usage("--tables names no table"));
    }
    let format = args.format.format();
    // Built (and its options checked) before anything is written.
    let query = args.query.query(kinds.clone())?;
    let demos = many::find_demos(&args.inputs)?;
    if demos.is_empty() {
        return Err(CliError::NoDemos);
    }
    prepare_out(&args, &out)?;
    let names = dataset_names(&demos);
    for k in &kinds {
        let dir = out.join(k.name());
        std::fs::create_dir_all(&dir).map_err(|source| CliError::Create { path: dir, source })?;
    }
    // `--resume`: the demos whose every table is written already.
    let done: Vec<bool> = names
        .iter()
        .map(|name| {
            args.resume
                && kinds
                    .iter()
                    .all(|k| table_file(&out, k.name(), name, format).is_file())
        })
        .collect();
    let skipped = done.iter().filter(|d| **d).count();
    let threads = args.jobs.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| CliError::Threads { threads, source })?;
    let bar = many::demo_progress(demos.len() - skipped);
    let bytes = AtomicU64::new(0);
    let start = Instant::now();
    // Demos of one game build share their send tables: built once.
    let query = query.with_send_table_cache(Arc::new(SendTableCache::default()));
    let output = Output { out: &out, format };
    let report = |line: String| many::report(&bar, line);
    // Per demo: Ok(true) when it was cut short (its rows before the cut
    // are kept and it counts as done), Ok(false) when read to its end.
    let results: Vec<Result<bool, CliError>> = pool.install(|| {
        demos
            .par_iter()
            .zip(names.par_iter())
            .zip(done.par_iter())
            .filter(|(_, done)| !**done)
            .map(|((path, name), _)| {
                let r = output.demo(&query, path, name);
                bar.inc(1);
                match r {
                    Ok((size, cut)) => {
                        bytes.fetch_add(size, Ordering::Relaxed);
                        if let Some(cut) = &cut {
                            note_cut();
                            report(format!("warning: {}", cut_message(path, cut)));
                        }
                        Ok(cut.is_some())
                    }
                    Err(e) => {
                        report(format!("skipped {}: {e}", path.display()));
                        Err(e)
                    }
                }
            })
            .collect()
    });
    bar.finish_and_clear();
    let t = many::Tally::of(&results, bytes.load(Ordering::Relaxed), start, skipped);
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "{} demos ok ({} cut short), {} failed{}; {:.1} MB parsed in {:.2} s ({:.1} MB/s); tables {} in {}",
        t.ok,
        t.cut,
        t.failed,
        t.resumed,
        t.mb,
        t.secs,
        t.rate(),
        kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join(","),
        out.display()
    );
    batch_outcome(&results, skipped, args.keep_going)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hive_values_are_percent_encoded_as_uri_segments() {
        assert_eq!(hive_value("14065"), "14065");
        assert_eq!(hive_value("a b=c/d%"), "a%20b%3Dc%2Fd%25");
        assert_eq!(hive_value("é"), "%C3%A9");
        assert_eq!(hive_value("x-1.y_z~"), "x-1.y_z~");
    }

    #[test]
    fn temporary_names_are_hidden_and_not_parts() {
        let p = partial_file(Path::new("/o/kills/demo=1/part-0.parquet"));
        assert_eq!(p, Path::new("/o/kills/demo=1/.part-0.parquet.partial"));
        assert!(is_partial(".part-0.parquet.partial"));
        assert!(!is_partial("part-0.parquet"));
    }
}
