//! `--follow` on `events`, `ticks` and `table`: a demo read while it is
//! written (a `.dem` file that grows, or standard input), its rows written
//! as they arrive.
//!
//! Each read of the demo is parsed at once ([`gamewire_query::follow`]);
//! the rows it completed are written and the output flushed, so a reader
//! at the other end of a pipe sees them while the match goes on. A table
//! whose rows are complete only at the end (`rounds`, `players`, ...:
//! [`gamewire_query::run::rows_arrive_complete`]) is written whole when the demo ends. All the
//! lines written, in order, are the lines the same command writes on the
//! finished demo, with one exception: `events` without `--name` declares a
//! column per event key as the events are seen, so as JSON Lines a row
//! written early has the keys known at that time (a later-seen key is
//! null in it either way), and as CSV (one header for the whole table) it
//! needs `--name`.

use std::io::Write;
use std::path::Path;

use gamewire_query::follow::{FollowInput, FollowOptions, Follower};
use gamewire_query::input;
use gamewire_query::write::{write_more_rows, write_table, Format};
use gamewire_query::{Column, Kind, Query, QueryError, Table, TableKind};

use crate::error::CliError;
use crate::many;
use crate::output::Sink;
use crate::read::warn_cut;
use crate::tables::{cut_message, RowArgs};

/// Writes the tables given as they arrive: the CSV header once, every
/// write flushed.
struct RowsOut {
    sink: Sink,
    format: Format,
    /// The CSV header's columns, once written.
    header: Option<Vec<String>>,
    buffer: Vec<u8>,
}

impl RowsOut {
    /// Writes the rows of `table` (the CSV header before the first rows)
    /// and flushes. CSV rows after the header are laid out in its columns
    /// (a column the table lacks is empty); a column the header lacks is an
    /// error, not a misplaced cell.
    fn write(&mut self, table: &Table) -> Result<(), CliError> {
        self.buffer.clear();
        match (&self.header, self.format) {
            (Some(header), Format::Csv) => {
                let laid_out = in_columns(table, header)?;
                write_more_rows(&laid_out, self.format, &mut self.buffer)?;
                self.sink
                    .write_all(&self.buffer)
                    .map_err(CliError::Output)?;
            }
            _ => {
                write_table(table, self.format, &mut self.buffer)?;
                self.header = Some(table.column_names().into_iter().map(String::from).collect());
                self.sink
                    .write_all(&self.buffer)
                    .map_err(CliError::Output)?;
            }
        }
        self.sink.flush().map_err(CliError::Output)
    }
}

/// `table`'s rows in the columns `header` names, in its order.
fn in_columns(table: &Table, header: &[String]) -> Result<Table, CliError> {
    if let Some((name, _)) = table
        .columns
        .iter()
        .find(|(n, c)| !header.contains(n) && !c.is_all_null())
    {
        return Err(CliError::UsageText(format!(
            "--follow: the {} table has a column {name} its CSV header does not; use --format jsonl",
            table.name
        )));
    }
    let rows = table.rows();
    let columns = header
        .iter()
        .map(|n| {
            let column = table.column(n).cloned().unwrap_or_else(|| {
                let mut nulls = Column::new(Kind::Str);
                nulls.push_nulls(rows);
                nulls
            });
            (n.clone(), column)
        })
        .collect();
    Ok(Table {
        name: table.name.clone(),
        columns,
    })
}

/// Checks what `--follow` can do: one demo, CSV or JSON Lines, `events`
/// as CSV with `--name`.
fn check(kind: TableKind, query: &Query, args: &RowArgs, format: Format) -> Result<(), CliError> {
    if args.demos.len() != 1 || many::names_several(&args.demos) {
        return Err(CliError::Usage("--follow reads one demo"));
    }
    if format == Format::Parquet {
        return Err(CliError::Usage(
            "--follow writes rows as they arrive, as CSV or JSON Lines; Parquet is written \
             whole: run without --follow",
        ));
    }
    if kind == TableKind::Events && format == Format::Csv && query.events.is_none() {
        return Err(CliError::Usage(
            "--follow on events as CSV needs --name (one header for the table: the columns of \
             the events not named are known only at the end); or --format jsonl",
        ));
    }
    Ok(())
}

/// `--follow`: `kind` of the demo `args` names, read as it is written,
/// its rows written to `-o` or standard output as they arrive.
pub(crate) fn write_followed(
    kind: TableKind,
    query: &Query,
    args: &RowArgs,
    format: Format,
) -> Result<(), CliError> {
    check(kind, query, args, format)?;
    let path = args.demos.first().ok_or(CliError::Usage("no demo given"))?;
    let failed = |source: QueryError| CliError::Query {
        path: path.clone(),
        source: Box::new(source),
    };
    let options = FollowOptions {
        idle_timeout: input::live_options().idle_timeout,
        ..FollowOptions::default()
    };
    let sink = Sink::open(args.output.as_deref(), format)?;
    let mut out = RowsOut {
        sink,
        format,
        header: None,
        buffer: Vec::new(),
    };
    let input = FollowInput::open(path, options).map_err(|e| failed(e.into()))?;
    let follower = Follower::new(query, path, input).map_err(failed)?;
    follow(follower, &mut out, path)
}

/// Reads and writes until the demo ends, then writes the rest and reports
/// a cut.
fn follow(
    mut follower: Follower<FollowInput>,
    out: &mut RowsOut,
    path: &Path,
) -> Result<(), CliError> {
    let failed = |source: QueryError| CliError::Query {
        path: path.to_path_buf(),
        source: Box::new(source),
    };
    while let Some(tables) = follower.next_rows().map_err(failed)? {
        for t in &tables {
            out.write(t)?;
        }
    }
    let (end, input) = follower.finish();
    let parsed = end.map_err(failed)?;
    for t in &parsed.tables {
        // An empty table still has its CSV header when none was written.
        if t.rows() > 0 || out.header.is_none() {
            out.write(t)?;
        }
    }
    if let Some(cut) = input.cut() {
        // The input itself failed (a live broadcast past its retries): its
        // message names the URL, the fragment and the last tick.
        warn_cut(&format!(
            "{}: {cut}; the output holds everything before the cut",
            path.display()
        ));
    } else if let Some(cut) = &parsed.cut {
        let mut message = cut_message(path, cut);
        if input.went_idle() {
            message = format!("{message} (the file stopped growing before the demo's end)");
        }
        warn_cut(&message);
    }
    Ok(())
}
