//! Writing the Source 2 commands' output: standard output and row tables.

use std::io::{BufWriter, Write};

use clap::ValueEnum;
use gamewire_query::table::Rows;
use gamewire_query::write::RowWriter;

use crate::error::CliError;

/// Output format of row tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RowFormat {
    /// JSON Lines: one object per row.
    Jsonl,
    /// CSV with a header row.
    Csv,
}

pub(crate) fn stdout() -> BufWriter<std::io::StdoutLock<'static>> {
    BufWriter::new(std::io::stdout().lock())
}

/// The writer of a row table in a format; with a demo name, every row
/// starts with a `demo` column holding it.
pub(crate) fn row_writer(columns: &[String], format: RowFormat, demo: Option<&str>) -> RowWriter {
    match format {
        RowFormat::Jsonl => RowWriter::jsonl(columns, demo),
        RowFormat::Csv => RowWriter::csv(columns, demo),
    }
}

/// Writes a table's rows; with `demo`, every row starts with a `demo`
/// column holding it. `header`: the CSV header line (JSON Lines has none).
pub(crate) fn write_rows(
    out: &mut impl Write,
    table: &Rows,
    format: RowFormat,
    demo: Option<&str>,
    header: bool,
) -> Result<(), CliError> {
    row_writer(&table.columns, format, demo)
        .write(out, table, header)
        .map_err(CliError::Output)
}
