//! Writing tables: a typed [`Table`] as CSV, JSON Lines or Parquet
//! ([`write_table`]), and rows of cells ([`Rows`]) as CSV or JSON Lines as
//! they are gathered ([`RowWriter`]). One CSV quoting ([`csv_field`]) and one
//! cell rendering ([`Cell`]'s `Display`) underneath both.

use std::io::Write;
use std::str::FromStr;
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::types::{Float32Type, UInt64Type};
use arrow_array::{
    ArrayRef, BooleanArray, Float32Array, Int64Array, ListArray, RecordBatch, StringArray,
    UInt64Array,
};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use crate::error::QueryError;
use crate::table::{Cell, Column, Kind, Rows, Table};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// CSV with a header row; nulls are empty fields.
    Csv,
    /// JSON Lines: one object per row; nulls are `null`.
    Jsonl,
    /// Parquet with typed, nullable columns (snappy).
    Parquet,
}

impl Format {
    /// The format a file name's extension names: `.csv`, `.jsonl` or
    /// `.ndjson`, `.parquet` (in any case); `None` for any other or none.
    pub fn from_path(path: &std::path::Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "csv" => Some(Format::Csv),
            "jsonl" | "ndjson" => Some(Format::Jsonl),
            "parquet" => Some(Format::Parquet),
            _ => None,
        }
    }

    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Jsonl => "jsonl",
            Format::Parquet => "parquet",
        }
    }
}

impl FromStr for Format {
    type Err = QueryError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "csv" => Ok(Format::Csv),
            "jsonl" => Ok(Format::Jsonl),
            "parquet" => Ok(Format::Parquet),
            other => Err(QueryError::UnknownFormat(other.to_string())),
        }
    }
}

fn io(what: &str) -> impl Fn(std::io::Error) -> QueryError + '_ {
    move |source| QueryError::Write {
        what: what.to_string(),
        source,
    }
}

/// Writes a table in a format.
pub fn write_table<W: Write + Send>(
    table: &Table,
    format: Format,
    out: W,
) -> Result<(), QueryError> {
    match format {
        Format::Csv => write_csv(table, out),
        Format::Jsonl => write_jsonl(table, out),
        Format::Parquet => write_parquet(table, out),
    }
}

/// A CSV field: quoted (quotes doubled) when it holds a comma, a quote or
/// a line break.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Writes more rows of a table already begun in `format`: as
/// [`write_table`], but CSV without its header row. A table written in
/// batches is the first batch by [`write_table`], then the others by this.
pub fn write_more_rows<W: Write + Send>(
    table: &Table,
    format: Format,
    out: W,
) -> Result<(), QueryError> {
    match format {
        Format::Csv => write_csv_rows(table, out),
        other => write_table(table, other, out),
    }
}

/// CSV: a header row, then one line per row; null cells are empty.
pub fn write_csv(table: &Table, mut out: impl Write) -> Result<(), QueryError> {
    let what = format!("{} as CSV", table.name);
    let header: Vec<String> = table.column_names().into_iter().map(csv_field).collect();
    writeln!(out, "{}", header.join(",")).map_err(io(&what))?;
    write_csv_rows(table, out)
}

/// CSV: one line per row, no header; null cells are empty.
fn write_csv_rows(table: &Table, mut out: impl Write) -> Result<(), QueryError> {
    let what = format!("{} as CSV", table.name);
    let err = io(&what);
    for i in 0..table.rows() {
        let line: Vec<String> = table
            .row(i)
            .iter()
            .map(|c| csv_field(&c.to_string()))
            .collect();
        writeln!(out, "{}", line.join(",")).map_err(&err)?;
    }
    out.flush().map_err(&err)
}

fn json_of(c: &Cell) -> serde_json::Value {
    match c {
        Cell::Float(f) if !f.is_finite() => serde_json::Value::Null,
        other => serde_json::to_value(other).unwrap_or(serde_json::Value::Null),
    }
}

/// JSON Lines: one object per row, keys in column order.
pub fn write_jsonl(table: &Table, mut out: impl Write) -> Result<(), QueryError> {
    let what = format!("{} as JSON Lines", table.name);
    let err = io(&what);
    // Keys are written in column order (a serde_json map would sort them).
    let keys: Vec<String> = table
        .column_names()
        .iter()
        .map(|n| serde_json::Value::String((*n).to_string()).to_string())
        .collect();
    let mut line = String::new();
    for i in 0..table.rows() {
        line.clear();
        line.push('{');
        for (j, (k, c)) in keys.iter().zip(table.row(i).iter()).enumerate() {
            if j > 0 {
                line.push(',');
            }
            line.push_str(k);
            line.push(':');
            line.push_str(&json_of(c).to_string());
        }
        line.push_str("}\n");
        out.write_all(line.as_bytes()).map_err(&err)?;
    }
    out.flush().map_err(&err)
}

/// The Arrow type of a column kind.
fn data_type(kind: Kind) -> DataType {
    let list = |t: DataType| DataType::List(Arc::new(Field::new("item", t, true)));
    match kind {
        Kind::Bool => DataType::Boolean,
        Kind::I64 => DataType::Int64,
        Kind::U64 => DataType::UInt64,
        Kind::F32 => DataType::Float32,
        Kind::Str => DataType::Utf8,
        Kind::F32List => list(DataType::Float32),
        Kind::StrList => list(DataType::Utf8),
        Kind::U64List => list(DataType::UInt64),
    }
}

/// The Arrow schema of declared columns (every column nullable): the
/// schema [`arrow_schema()`] gives a table of these columns.
pub fn arrow_schema_of(columns: &[(String, Kind)]) -> Schema {
    Schema::new(
        columns
            .iter()
            .map(|(n, k)| Field::new(n.clone(), data_type(*k), true))
            .collect::<Vec<_>>(),
    )
}

/// The Arrow schema of a table (every column nullable).
pub fn arrow_schema(table: &Table) -> Schema {
    Schema::new(
        table
            .columns
            .iter()
            .map(|(n, c)| Field::new(n.clone(), data_type(c.kind()), true))
            .collect::<Vec<_>>(),
    )
}

/// The table as one Arrow record batch.
pub fn record_batch(table: &Table) -> Result<RecordBatch, QueryError> {
    let schema = Arc::new(arrow_schema(table));
    let arrays: Vec<ArrayRef> = table
        .columns
        .iter()
        .map(|(_, c)| -> ArrayRef {
            match c {
                Column::Bool(v) => Arc::new(BooleanArray::from(v.clone())),
                Column::I64(v) => Arc::new(Int64Array::from(v.clone())),
                Column::U64(v) => Arc::new(UInt64Array::from(v.clone())),
                Column::F32(v) => Arc::new(Float32Array::from(v.clone())),
                Column::Str(v) => Arc::new(StringArray::from(
                    v.iter()
                        .map(|s| s.as_deref())
                        .collect::<Vec<Option<&str>>>(),
                )),
                Column::F32List(v) => {
                    Arc::new(ListArray::from_iter_primitive::<Float32Type, _, _>(
                        v.iter()
                            .map(|l| l.as_ref().map(|l| l.iter().map(|x| Some(*x)))),
                    ))
                }
                Column::U64List(v) => Arc::new(ListArray::from_iter_primitive::<UInt64Type, _, _>(
                    v.iter()
                        .map(|l| l.as_ref().map(|l| l.iter().map(|x| Some(*x)))),
                )),
                Column::StrList(v) => {
                    let mut b = ListBuilder::new(StringBuilder::new());
                    for l in v {
                        match l {
                            Some(l) => {
                                for s in l {
                                    b.values().append_value(s);
                                }
                                b.append(true);
                            }
                            None => b.append(false),
                        }
                    }
                    Arc::new(b.finish())
                }
            }
        })
        .collect();
    let batch = if arrays.is_empty() {
        RecordBatch::new_empty(schema)
    } else {
        RecordBatch::try_new(schema, arrays).map_err(|e| QueryError::Parquet {
            what: table.name.clone(),
            message: e.to_string(),
        })?
    };
    Ok(batch)
}

/// The writer properties of every Parquet file gamewire writes: snappy
/// pages, the library's default row groups (up to 1 Mi rows).
fn parquet_properties() -> WriterProperties {
    WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build()
}

/// Parquet: one file, typed nullable columns, snappy pages.
pub fn write_parquet<W: Write + Send>(table: &Table, out: W) -> Result<(), QueryError> {
    let perr = |e: parquet::errors::ParquetError| QueryError::Parquet {
        what: table.name.clone(),
        message: e.to_string(),
    };
    let batch = record_batch(table)?;
    let mut writer =
        ArrowWriter::try_new(out, batch.schema(), Some(parquet_properties())).map_err(perr)?;
    writer.write(&batch).map_err(perr)?;
    writer.close().map_err(perr)?;
    Ok(())
}

/// The encoded bytes a [`ParquetRowGroups`] holds before it closes its row
/// group: what a streamed table's output costs in memory at most (plus one
/// batch), whatever the demo's length.
pub const ROW_GROUP_BYTES: usize = 8 << 20;

/// The size at which a [`ParquetRowGroups`] column stops dictionary
/// encoding for the rest of its row group (the library's default is
/// 1 MiB). Until then the column's encoder keeps every distinct value of
/// the row group in a hash table: a long table of many distinct values (a
/// match's ticks and positions) held 3.5 MiB of them in a 1 GB demo's
/// `ticks`, against 0.3 MiB at 100 MB.
pub const STREAMED_DICTIONARY_BYTES: usize = 128 << 10;

/// The rows after which a [`ParquetRowGroups`] closes its row group even
/// when its encoded pages are under [`ROW_GROUP_BYTES`] (the library's
/// default is 1 Mi rows; polars writes 256 Ki too). A row group's pages are
/// held in memory until it closes, and well-compressed rows (a player
/// standing still) can reach a million before they reach 8 MiB: a
/// 60-minute Deadlock broadcast's `ticks` held 868 Ki rows in one group,
/// 6 MiB more than a 3-minute one.
pub const STREAMED_ROW_GROUP_ROWS: usize = 256 << 10;

/// A Parquet file written batch by batch, in row groups, as a long table's
/// rows are made (`gamewire ticks -o x.parquet`): the rows are never all in
/// memory. A Parquet file's schema comes first in the writer and is
/// written in its footer, so the columns and their kinds are declared
/// before the first row ([`ParquetRowGroups::new`]), from what the table
/// declares, never from the rows seen; every batch must have those kinds.
/// With the kinds the whole table would have, the file holds the same
/// columns and values as [`write_parquet`] of the whole table writes;
/// only where the row groups end may differ: a row group is closed when
/// its encoded pages reach [`ROW_GROUP_BYTES`] or its rows
/// [`STREAMED_ROW_GROUP_ROWS`] (a whole table's at 1 Mi rows).
pub struct ParquetRowGroups<W: Write + Send> {
    writer: ArrowWriter<W>,
    name: String,
    kinds: Vec<Kind>,
    /// Encoded bytes after which the row group is closed.
    group_bytes: usize,
}

impl<W: Write + Send> std::fmt::Debug for ParquetRowGroups<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetRowGroups")
            .field("name", &self.name)
            .field("kinds", &self.kinds)
            .field("group_bytes", &self.group_bytes)
            .finish_non_exhaustive()
    }
}

impl<W: Write + Send> ParquetRowGroups<W> {
    /// A writer of the table `name` with these columns to `out`.
    pub fn new(
        name: &str,
        columns: &[(String, Kind)],
        out: W,
    ) -> Result<ParquetRowGroups<W>, QueryError> {
        let schema = Arc::new(arrow_schema_of(columns));
        let properties = parquet_properties()
            .into_builder()
            .set_dictionary_page_size_limit(STREAMED_DICTIONARY_BYTES)
            .set_max_row_group_row_count(Some(STREAMED_ROW_GROUP_ROWS))
            .build();
        let writer = ArrowWriter::try_new(out, schema, Some(properties))
            .map_err(|e| parquet_error(name, e))?;
        Ok(ParquetRowGroups {
            writer,
            name: name.to_string(),
            kinds: columns.iter().map(|(_, k)| *k).collect(),
            group_bytes: ROW_GROUP_BYTES,
        })
    }

    /// Closes row groups at this many encoded bytes instead of
    /// [`ROW_GROUP_BYTES`].
    #[must_use]
    pub fn with_group_bytes(mut self, bytes: usize) -> Self {
        self.group_bytes = bytes;
        self
    }

    /// Writes a batch of rows: a table of the declared columns. A batch
    /// whose column kinds differ is an error (nothing of it is written).
    pub fn write(&mut self, table: &Table) -> Result<(), QueryError> {
        let kinds: Vec<Kind> = table.columns.iter().map(|(_, c)| c.kind()).collect();
        if kinds != self.kinds {
            return Err(QueryError::Parquet {
                what: self.name.clone(),
                message: format!(
                    "a batch's columns {kinds:?} are not the declared {:?}",
                    self.kinds
                ),
            });
        }
        let batch = record_batch(table)?;
        self.writer
            .write(&batch)
            .map_err(|e| parquet_error(&self.name, e))?;
        if self.writer.memory_size() >= self.group_bytes {
            self.writer
                .flush()
                .map_err(|e| parquet_error(&self.name, e))?;
        }
        Ok(())
    }

    /// Closes the last row group, writes the footer and gives the output
    /// back.
    pub fn finish(self) -> Result<W, QueryError> {
        let name = self.name;
        self.writer
            .into_inner()
            .map_err(|e| parquet_error(&name, e))
    }
}

fn parquet_error(what: &str, e: parquet::errors::ParquetError) -> QueryError {
    QueryError::Parquet {
        what: what.to_string(),
        message: e.to_string(),
    }
}

/// Writes rows of cells ([`Rows`]) as CSV or JSON Lines as they come, batch
/// by batch (`gamewire ticks` streams its rows this way; `gamewire events`
/// writes its [`Rows`] at once). With a demo name, every row starts with a
/// `demo` column holding it. JSON Lines objects have their keys in sorted
/// order (as a `serde_json::Map` writes them) and floats as the `f64` they
/// widen to; CSV cells are the cells' `Display`.
#[derive(Debug, Clone)]
pub struct RowWriter {
    json: bool,
    /// JSON Lines: (column index, quoted key), keys in sorted order,
    /// rendered once.
    keys: Vec<(usize, String)>,
    /// What starts every row: `{` (with `"demo":...,`) or the CSV `demo,`.
    lead: String,
    /// The CSV header line, with its newline.
    header: String,
}

impl RowWriter {
    /// A writer of CSV lines: a header line ([`RowWriter::header`]), then
    /// one line per row.
    pub fn csv(columns: &[String], demo: Option<&str>) -> RowWriter {
        let names: Vec<String> = columns.iter().map(|c| csv_field(c)).collect();
        let (lead, header) = match demo {
            Some(d) => (
                format!("{},", csv_field(d)),
                format!("demo,{}\n", names.join(",")),
            ),
            None => (String::new(), format!("{}\n", names.join(","))),
        };
        RowWriter {
            json: false,
            keys: Vec::new(),
            lead,
            header,
        }
    }

    /// A writer of JSON Lines: one object per row, no header.
    pub fn jsonl(columns: &[String], demo: Option<&str>) -> RowWriter {
        let mut keys: Vec<(usize, String)> = columns
            .iter()
            .enumerate()
            .map(|(i, c)| (i, serde_json::to_string(c).unwrap_or_default()))
            .collect();
        keys.sort_by(|a, b| columns.get(a.0).cmp(&columns.get(b.0)));
        keys.dedup_by(|a, b| columns.get(a.0) == columns.get(b.0));
        let lead = match demo {
            Some(d) => format!(
                "{{\"demo\":{},",
                serde_json::to_string(d).unwrap_or_default()
            ),
            None => "{".to_string(),
        };
        RowWriter {
            json: true,
            keys,
            lead,
            header: String::new(),
        }
    }

    /// Writes the CSV header line (nothing for JSON Lines).
    pub fn header(&self, out: &mut impl Write) -> std::io::Result<()> {
        out.write_all(self.header.as_bytes())
    }

    /// Writes rows, one cell per column.
    pub fn rows(&self, out: &mut impl Write, rows: &[Vec<Cell>]) -> std::io::Result<()> {
        for row in rows {
            out.write_all(self.lead.as_bytes())?;
            if self.json {
                for (n, (i, key)) in self.keys.iter().enumerate() {
                    let Some(cell) = row.get(*i) else { continue };
                    if n > 0 {
                        out.write_all(b",")?;
                    }
                    out.write_all(key.as_bytes())?;
                    out.write_all(b":")?;
                    write_json_cell(out, cell)?;
                }
                out.write_all(b"}\n")?;
            } else {
                let line: Vec<String> = row.iter().map(|c| csv_field(&c.to_string())).collect();
                writeln!(out, "{}", line.join(","))?;
            }
        }
        Ok(())
    }

    /// Writes a whole [`Rows`]: the CSV header line when `header`, then the
    /// rows.
    pub fn write(&self, out: &mut impl Write, rows: &Rows, header: bool) -> std::io::Result<()> {
        if header {
            self.header(out)?;
        }
        self.rows(out, &rows.rows)
    }
}

/// One cell as JSON. Floats are written as the `f64` they widen to (as
/// `serde_json::to_value` stores them), non-finite ones as `null`.
pub fn write_json_cell(out: &mut impl Write, cell: &Cell) -> std::io::Result<()> {
    match cell {
        Cell::Float(x) => serde_json::to_writer(&mut *out, &f64::from(*x))?,
        Cell::Floats(v) => {
            out.write_all(b"[")?;
            for (n, x) in v.iter().enumerate() {
                if n > 0 {
                    out.write_all(b",")?;
                }
                serde_json::to_writer(&mut *out, &f64::from(*x))?;
            }
            out.write_all(b"]")?;
        }
        other => serde_json::to_writer(&mut *out, other)?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use std::path::Path;

    #[test]
    fn the_format_follows_the_extension() {
        for (name, want) in [
            ("kills.csv", Some(Format::Csv)),
            ("out/kills.jsonl", Some(Format::Jsonl)),
            ("kills.ndjson", Some(Format::Jsonl)),
            ("KILLS.PARQUET", Some(Format::Parquet)),
            ("kills.parquet", Some(Format::Parquet)),
            ("kills.txt", None),
            ("kills", None),
            ("-", None),
        ] {
            assert_eq!(Format::from_path(Path::new(name)), want, "{name}");
        }
    }

    /// A streamed table longer than a row group: its row groups stop at
    /// [`STREAMED_ROW_GROUP_ROWS`], a column of distinct values leaves its
    /// dictionary for plain pages once the dictionary is full while a
    /// column of few values keeps it, and every value reads back.
    #[test]
    fn streamed_row_groups_and_dictionaries_are_capped() {
        use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
        use parquet::basic::Encoding;
        use parquet::file::reader::{FileReader, SerializedFileReader};

        let rows = STREAMED_ROW_GROUP_ROWS + STREAMED_ROW_GROUP_ROWS / 2;
        let columns = [
            ("tick".to_string(), Kind::I64),
            ("team".to_string(), Kind::Str),
        ];
        let path =
            std::env::temp_dir().join(format!("gamewire-streamed-{}.parquet", std::process::id()));
        let file = std::fs::File::create(&path).unwrap();
        let mut writer = ParquetRowGroups::new("ticks", &columns, file).unwrap();
        for start in (0..rows).step_by(4096) {
            // A tick for every eight rows (as eight players'): 32 Ki
            // distinct ticks per row group, a 256 KiB dictionary, under the
            // library's 1 MiB and over the cap.
            let ticks: Vec<i64> = (start..(start + 4096).min(rows))
                .map(|row| (row / 8) as i64)
                .collect();
            let teams = ticks
                .iter()
                .map(|t| Some(if t % 2 == 0 { "T" } else { "CT" }.to_string()))
                .collect();
            let table = Table {
                name: "ticks".to_string(),
                columns: vec![
                    (
                        "tick".to_string(),
                        Column::I64(ticks.into_iter().map(Some).collect()),
                    ),
                    ("team".to_string(), Column::Str(teams)),
                ],
            };
            writer.write(&table).unwrap();
        }
        writer.finish().unwrap();

        let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let groups: Vec<_> = reader.metadata().row_groups().to_vec();
        assert_eq!(
            groups.iter().map(|g| g.num_rows()).collect::<Vec<_>>(),
            [
                STREAMED_ROW_GROUP_ROWS as i64,
                (rows - STREAMED_ROW_GROUP_ROWS) as i64
            ]
        );
        // The encodings of a column's data pages in the first row group.
        let data_encodings = |column: usize| -> Vec<Encoding> {
            groups[0]
                .column(column)
                .page_encoding_stats_mask()
                .map(|mask| mask.encodings().collect())
                .unwrap_or_default()
        };
        // The first 128 KiB of distinct ticks are dictionary-coded, the
        // rest plain.
        assert_eq!(
            data_encodings(0),
            [Encoding::PLAIN, Encoding::RLE_DICTIONARY]
        );
        assert_eq!(data_encodings(1), [Encoding::RLE_DICTIONARY]);

        let batches = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap())
            .unwrap()
            .build()
            .unwrap();
        let mut next = 0i64;
        for batch in batches {
            let batch = batch.unwrap();
            let ticks = batch
                .column(0)
                .as_any()
                .downcast_ref::<arrow_array::Int64Array>()
                .unwrap();
            for tick in ticks.values() {
                assert_eq!(*tick, next / 8);
                next += 1;
            }
        }
        assert_eq!(next, rows as i64);
        std::fs::remove_file(&path).unwrap();
    }
}
