//! The `user_commands` table of one demo, written in batches as the parse
//! makes its rows (`gamewire table user_commands`): one row per command of
//! every player, a long demo's rows are never all held in memory (a 100 MB
//! CS2 match holds about 150 MiB of them).
//!
//! The table's columns and their kinds are fixed
//! ([`gamewire_query::reference::USER_COMMANDS`]), known before the first
//! row. CSV and JSON Lines: each batch goes through the whole table's
//! writer ([`write_table`]), the CSV header once, so the bytes are those of
//! the whole table. Parquet: the batches go into one file in row groups
//! ([`ParquetRowGroups`]); the columns and values read back are those of
//! the whole table's file.

use std::io::Write;

use gamewire_query::collect::UserCommandsCollector;
use gamewire_query::reference::USER_COMMANDS;
use gamewire_query::write::{write_more_rows, write_table, Format, ParquetRowGroups};
use gamewire_query::{DemoState, Interests, Kind, Query, Table, UserCommand, Visitor};

use crate::error::CliError;
use crate::output::Sink;
use crate::read::{leave_to_exit, parse_keeping_cut, read_demo, warn_cut};
use crate::tables::RowArgs;

/// Rows a [`StreamedCommands`] holds before writing them: a batch is held
/// twice while it is written (as rows and as Arrow arrays), and a row with
/// its input history is a few hundred bytes.
const STREAMED_ROWS: usize = 2048;

/// Encoded bytes per Parquet row group: half the writer's default
/// ([`gamewire_query::write::ROW_GROUP_BYTES`]), since each of the table's
/// columns keeps a page being encoded beside the row group.
const GROUP_BYTES: usize = 4 << 20;

/// Where a [`StreamedCommands`] writes.
enum Out<W: Write + Send> {
    /// CSV and JSON Lines.
    Plain(W),
    /// Parquet, in row groups.
    Parquet(Box<ParquetRowGroups<W>>),
}

/// A [`UserCommandsCollector`] whose rows are written in batches as they
/// are made. The first error (output that cannot be written) stops the
/// writing and is kept for the end.
struct StreamedCommands<W: Write + Send> {
    collector: UserCommandsCollector,
    interests: Interests,
    /// Only the player row classes are decoded, as the query's own run
    /// decodes them.
    only_player_classes: bool,
    format: Format,
    out: Out<W>,
    header_written: bool,
    error: Option<CliError>,
    /// Rows held before writing them ([`STREAMED_ROWS`]).
    batch_rows: usize,
    /// A batch as written (the CSV header is cut from all but the first).
    buffer: Vec<u8>,
}

/// The declared columns of the table.
fn columns() -> Vec<(String, Kind)> {
    USER_COMMANDS
        .schema()
        .into_iter()
        .map(|(n, k)| (n.to_string(), k))
        .collect()
}

impl<W: Write + Send> StreamedCommands<W> {
    fn new(query: &Query, format: Format, out: W, group_bytes: usize) -> Result<Self, CliError> {
        let out = match format {
            Format::Parquet => Out::Parquet(Box::new(
                ParquetRowGroups::new(USER_COMMANDS.name, &columns(), out)?
                    .with_group_bytes(group_bytes),
            )),
            Format::Csv | Format::Jsonl => Out::Plain(out),
        };
        Ok(StreamedCommands {
            collector: UserCommandsCollector::default(),
            interests: query.interests(),
            only_player_classes: !query.decode_every_class && query.reads_player_classes_only(),
            format,
            out,
            header_written: false,
            error: None,
            batch_rows: STREAMED_ROWS,
            buffer: Vec::new(),
        })
    }

    /// The rows made so far, taken from the collector.
    fn take_batch(&mut self) -> Table {
        std::mem::replace(&mut self.collector.table, USER_COMMANDS.empty_table())
    }

    /// Writes the rows made so far (the CSV header of an empty table the
    /// first time).
    fn write_pending(&mut self) -> Result<(), CliError> {
        if self.header_written && self.collector.table.rows() == 0 {
            return Ok(());
        }
        let table = self.take_batch();
        let first = !self.header_written;
        self.header_written = true;
        match &mut self.out {
            Out::Parquet(writer) => Ok(writer.write(&table)?),
            Out::Plain(out) => {
                self.buffer.clear();
                if first {
                    write_table(&table, self.format, &mut self.buffer)?;
                } else {
                    write_more_rows(&table, self.format, &mut self.buffer)?;
                }
                out.write_all(&self.buffer).map_err(CliError::Output)
            }
        }
    }

    /// After the parse: writes what is left (a Parquet file's last row
    /// group and footer) and gives the output back, flushed.
    fn finish(mut self) -> Result<W, CliError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.write_pending()?;
        let mut out = match self.out {
            Out::Parquet(writer) => writer.finish()?,
            Out::Plain(out) => out,
        };
        out.flush().map_err(CliError::Output)?;
        Ok(out)
    }
}

impl<W: Write + Send> Visitor for StreamedCommands<W> {
    fn interests(&self) -> Interests {
        self.interests
    }

    fn wants_class(&self, class_name: &str) -> bool {
        !self.only_player_classes || gamewire_query::classes::is_player_row_class(class_name)
    }

    /// As the query's own run: no string table but those the parser
    /// decodes for its state.
    fn wants_string_table(&self, _name: &str) -> bool {
        false
    }

    fn on_user_command(&mut self, state: &DemoState, command: &UserCommand) {
        if self.error.is_some() {
            return;
        }
        self.collector.on_command(state, command);
        if self.collector.table.rows() >= self.batch_rows {
            if let Err(e) = self.write_pending() {
                self.error = Some(e);
            }
        }
    }
}

/// The `user_commands` table of the one demo `args` names, in `format`,
/// to `sink`, written as the parse goes.
pub(crate) fn stream(
    query: &Query,
    args: &RowArgs,
    format: Format,
    sink: &mut Sink,
) -> Result<(), CliError> {
    let path = args.demos.first().ok_or(CliError::Usage("no demo given"))?;
    let data = read_demo(path)?;
    let mut streamed = StreamedCommands::new(query, format, &mut *sink, GROUP_BYTES)?;
    let parsed = parse_keeping_cut(path, &data, &mut streamed, None)?;
    let state = leave_to_exit(parsed.state);
    query.check_names(state)?;
    query.check_ticks(state.tick)?;
    streamed.finish()?;
    if let Some(cut) = parsed.cut {
        warn_cut(&cut);
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use gamewire_query::{RunOptions, TableKind};

    /// Rows written in batches of any size are the whole table's: the bytes
    /// of its CSV and JSON Lines, the values of its Parquet file.
    #[test]
    fn streamed_user_commands_equal_the_whole_table() {
        use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
        let read = |bytes: Vec<u8>| -> Vec<arrow_array::RecordBatch> {
            ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes))
                .unwrap()
                // One batch of every row, across the row groups.
                .with_batch_size(1 << 20)
                .build()
                .unwrap()
                .map(|b| b.unwrap())
                .collect()
        };
        let mut tested = 0;
        for path in gamewire_corpus::source2_demos().unwrap() {
            let data = std::fs::read(&path).unwrap();
            let query = Query {
                tables: vec![TableKind::UserCommands],
                ..Query::default()
            };
            let table = query.run(&data).unwrap().tables.remove(0);
            for format in [Format::Csv, Format::Jsonl, Format::Parquet] {
                let mut expected = Vec::new();
                write_table(&table, format, &mut expected).unwrap();
                for (batch, group_bytes) in [(STREAMED_ROWS, GROUP_BYTES), (100, 4096), (1, 1)] {
                    let mut streamed =
                        StreamedCommands::new(&query, format, Vec::new(), group_bytes).unwrap();
                    streamed.batch_rows = batch;
                    let (_, cut) = RunOptions::default()
                        .parse_keeping_cut(&data[..], &mut streamed)
                        .unwrap();
                    assert!(cut.is_none(), "{cut:?}");
                    let got = streamed.finish().unwrap();
                    if format == Format::Parquet {
                        assert_eq!(
                            read(got),
                            read(expected.clone()),
                            "{}: batch {batch}",
                            path.display()
                        );
                    } else {
                        assert_eq!(
                            String::from_utf8_lossy(&got),
                            String::from_utf8_lossy(&expected),
                            "{}: {format:?}, batch {batch}",
                            path.display()
                        );
                    }
                }
            }
            tested += usize::from(table.rows() > 100);
        }
        // The five CS2 demos have over 100 commands each: several batches.
        assert!(tested >= 5, "{tested}");
    }
}
