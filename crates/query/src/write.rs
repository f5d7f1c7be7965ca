//! Writing tables: a typed [`Table`] as CSV, JSON Lines or Parquet
//! ([`write_table`]), and rows of cells ([`Rows`]) as CSV or JSON Lines as
//! they are gathered ([`RowWriter`]); Parquet in row groups as a long
//! table's rows are made ([`ParquetRowGroups`]), and a whole table's
//! Parquet file from its rows read twice, never all in memory
//! ([`write_parquet_rows`]). One CSV quoting ([`csv_field`]) and one cell
//! rendering ([`Cell`]'s `Display`) underneath.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use arrow_array::builder::{
    BooleanBuilder, Float32Builder, Int64Builder, ListBuilder, StringBuilder, UInt64Builder,
};
use arrow_array::types::{Float32Type, UInt64Type};
use arrow_array::{
    new_null_array, ArrayRef, BooleanArray, Float32Array, Int64Array, ListArray, RecordBatch,
    StringArray, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnChunk, ArrowColumnWriter, ArrowWriterOptions,
};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::column::page_store::{PageKey, PageStore, PageStoreArgs, PageStoreFactory};
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

/// A column as an Arrow array.
fn array_of(column: &Column) -> ArrayRef {
    match column {
        Column::Bool(v) => Arc::new(BooleanArray::from(v.clone())),
        Column::I64(v) => Arc::new(Int64Array::from(v.clone())),
        Column::U64(v) => Arc::new(UInt64Array::from(v.clone())),
        Column::F32(v) => Arc::new(Float32Array::from(v.clone())),
        Column::Str(v) => Arc::new(StringArray::from(
            v.iter()
                .map(|s| s.as_deref())
                .collect::<Vec<Option<&str>>>(),
        )),
        Column::F32List(v) => Arc::new(ListArray::from_iter_primitive::<Float32Type, _, _>(
            v.iter()
                .map(|l| l.as_ref().map(|l| l.iter().map(|x| Some(*x)))),
        )),
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
}

/// The table as one Arrow record batch.
pub fn record_batch(table: &Table) -> Result<RecordBatch, QueryError> {
    let schema = Arc::new(arrow_schema(table));
    let arrays: Vec<ArrayRef> = table.columns.iter().map(|(_, c)| array_of(c)).collect();
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
    write_parquet_with(table, parquet_properties(), out)
}

/// [`write_parquet`] with these writer properties.
fn write_parquet_with<W: Write + Send>(
    table: &Table,
    properties: WriterProperties,
    out: W,
) -> Result<(), QueryError> {
    let perr = |e: parquet::errors::ParquetError| QueryError::Parquet {
        what: table.name.clone(),
        message: e.to_string(),
    };
    let batch = record_batch(table)?;
    let mut writer = ArrowWriter::try_new(out, batch.schema(), Some(properties)).map_err(perr)?;
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

/// A whole table's Parquet file written from its rows, never all in
/// memory: the bytes [`write_parquet`] writes for the table of these rows
/// and column kinds. `each_row` hands every row (one cell per column, in
/// order) to the callback it is given, and is called twice: a first pass
/// notes, per row group and column, where the column has nulls, values
/// and empty lists; the second writes the row groups column by column,
/// with their encoded pages kept in a temporary file in `spill_dir` (the
/// system's temporary folder when `None`) until each row group is
/// complete. Memory holds a column chunk's values for one write of the
/// Parquet writer (1,024 values, or 20,000 for a column without a null)
/// and each column's page and dictionary being encoded, whatever the
/// number of rows.
///
/// Why two passes: the Parquet writer encodes a column in slices of 1,024
/// values, or of a page's 20,000 when the column's validity is one run
/// (no null in the whole table, or only nulls in the row group), and
/// closes pages and leaves dictionaries only between slices. Written in
/// the slices [`write_parquet`]'s one write makes, each column's pages are
/// the same, and so is the file; which slices those are depends on the
/// whole column, known after the first pass.
pub fn write_parquet_rows<W: Write + Send>(
    name: &str,
    columns: &[(String, Kind)],
    each_row: impl FnMut(&mut dyn FnMut(&[Cell]) -> Result<(), QueryError>) -> Result<(), QueryError>,
    spill_dir: Option<&Path>,
    out: W,
) -> Result<W, QueryError> {
    write_parquet_rows_with(
        name,
        columns,
        each_row,
        parquet_properties(),
        spill_dir,
        out,
    )
}

/// What a column's cells in a row group are once converted to its kind.
#[derive(Debug, Clone, Copy, Default)]
struct Census {
    nulls: bool,
    empty_lists: bool,
    values: bool,
}

/// [`write_parquet_rows`] with these writer properties (row groups cut
/// by rows only).
fn write_parquet_rows_with<W: Write + Send>(
    name: &str,
    columns: &[(String, Kind)],
    mut each_row: impl FnMut(
        &mut dyn FnMut(&[Cell]) -> Result<(), QueryError>,
    ) -> Result<(), QueryError>,
    properties: WriterProperties,
    spill_dir: Option<&Path>,
    out: W,
) -> Result<W, QueryError> {
    let perr = |e: parquet::errors::ParquetError| parquet_error(name, e);
    if properties.max_row_group_bytes().is_some() {
        return Err(QueryError::Parquet {
            what: name.to_string(),
            message: "row groups cut by size cannot be written column by column".to_string(),
        });
    }
    let group_rows = properties
        .max_row_group_row_count()
        .unwrap_or(usize::MAX)
        .max(1);
    // First pass: each row group's census, and which columns have a null.
    let mut groups: Vec<Vec<Census>> = Vec::new();
    let mut any_null = vec![false; columns.len()];
    let mut rows = 0usize;
    each_row(&mut |row: &[Cell]| {
        if rows.is_multiple_of(group_rows) {
            groups.push(vec![Census::default(); columns.len()]);
        }
        rows += 1;
        if let Some(group) = groups.last_mut() {
            for (j, ((_, kind), census)) in columns.iter().zip(group.iter_mut()).enumerate() {
                match kind.convert_len(row.get(j).unwrap_or(&Cell::Null)) {
                    None => {
                        census.nulls = true;
                        if let Some(n) = any_null.get_mut(j) {
                            *n = true;
                        }
                    }
                    Some(0) if kind.is_list() => census.empty_lists = true,
                    Some(_) => census.values = true,
                }
            }
        }
        Ok(())
    })?;

    // Second pass: the row groups, column by column.
    let schema = Arc::new(arrow_schema_of(columns));
    let options = ArrowWriterOptions::new()
        .with_properties(properties.clone())
        .with_page_store_factory(Arc::new(SpilledPages::new(spill_dir)));
    let (mut file, factory) = ArrowWriter::try_new_with_options(out, Arc::clone(&schema), options)
        .and_then(ArrowWriter::into_serialized_writer)
        .map_err(perr)?;
    let mut group: Vec<ChunkedColumn> = Vec::new();
    let mut group_left = 0usize;
    let mut written = 0usize;
    each_row(&mut |row: &[Cell]| {
        if written >= rows {
            return Err(QueryError::Parquet {
                what: name.to_string(),
                message: format!("a second pass over the rows gave more than {rows}"),
            });
        }
        if group_left == 0 {
            let g = written / group_rows;
            let census = groups.get(g).map(Vec::as_slice).unwrap_or_default();
            let writers = factory.create_column_writers(g).map_err(perr)?;
            group = writers
                .into_iter()
                .zip(columns.iter().zip(schema.fields().iter()))
                .enumerate()
                .map(|(j, (writer, ((_, kind), field)))| {
                    let c = census.get(j).copied().unwrap_or_default();
                    // One run of validity: def levels the writer keeps as
                    // a run, slices of a page's rows.
                    let one_run = if kind.is_list() {
                        !(c.values || (c.nulls && c.empty_lists))
                    } else {
                        !any_null.get(j).copied().unwrap_or(true) || !c.values
                    };
                    ChunkedColumn {
                        kind: *kind,
                        field: Arc::clone(field),
                        writer,
                        pending: Pending::default(),
                        levels: 0,
                        slice_levels: if one_run {
                            properties.data_page_row_count_limit()
                        } else {
                            properties.write_batch_size()
                        }
                        .max(1),
                    }
                })
                .collect();
            group_left = group_rows.min(rows - written);
        }
        for (j, column) in group.iter_mut().enumerate() {
            column
                .push(row.get(j).unwrap_or(&Cell::Null))
                .map_err(perr)?;
        }
        written += 1;
        group_left -= 1;
        if group_left == 0 {
            let mut row_group = file.next_row_group().map_err(perr)?;
            for column in std::mem::take(&mut group) {
                column
                    .close()
                    .and_then(|chunk| chunk.append_to_row_group(&mut row_group))
                    .map_err(perr)?;
            }
            row_group.close().map_err(perr)?;
        }
        Ok(())
    })?;
    if written != rows {
        return Err(QueryError::Parquet {
            what: name.to_string(),
            message: format!("a second pass over the rows gave {written} of {rows}"),
        });
    }
    file.into_inner().map_err(perr)
}

/// One column of a row group being written: its values not yet handed to
/// the Parquet writer, handed on a slice at a time.
struct ChunkedColumn {
    kind: Kind,
    field: arrow_schema::FieldRef,
    writer: ArrowColumnWriter,
    pending: Pending,
    /// Levels in `pending`: a row each, a list's items (at least one).
    levels: usize,
    /// The levels of a slice: the slice ends at the first row that
    /// reaches them.
    slice_levels: usize,
}

impl ChunkedColumn {
    fn push(&mut self, cell: &Cell) -> Result<(), parquet::errors::ParquetError> {
        let len = self.pending.push(self.kind, cell);
        self.levels += if self.kind.is_list() {
            len.unwrap_or(1).max(1)
        } else {
            1
        };
        if self.levels >= self.slice_levels {
            self.write_pending()?;
        }
        Ok(())
    }

    fn write_pending(&mut self) -> Result<(), parquet::errors::ParquetError> {
        if self.pending.rows == 0 {
            return Ok(());
        }
        let array = self.pending.take(self.kind);
        for leaf in compute_leaves(&self.field, &array)? {
            self.writer.write(&leaf)?;
        }
        self.levels = 0;
        Ok(())
    }

    fn close(mut self) -> Result<ArrowColumnChunk, parquet::errors::ParquetError> {
        self.write_pending()?;
        self.writer.close()
    }
}

/// A slice's values: nulls counted until the first value, then an Arrow
/// builder of the column's kind.
#[derive(Default)]
struct Pending {
    rows: usize,
    nulls: usize,
    builder: Option<Builder>,
}

enum Builder {
    Bool(BooleanBuilder),
    I64(Int64Builder),
    U64(UInt64Builder),
    F32(Float32Builder),
    Str(StringBuilder),
    F32List(ListBuilder<Float32Builder>),
    StrList(ListBuilder<StringBuilder>),
    U64List(ListBuilder<UInt64Builder>),
}

impl Builder {
    fn new(kind: Kind) -> Builder {
        match kind {
            Kind::Bool => Builder::Bool(BooleanBuilder::new()),
            Kind::I64 => Builder::I64(Int64Builder::new()),
            Kind::U64 => Builder::U64(UInt64Builder::new()),
            Kind::F32 => Builder::F32(Float32Builder::new()),
            Kind::Str => Builder::Str(StringBuilder::new()),
            Kind::F32List => Builder::F32List(ListBuilder::new(Float32Builder::new())),
            Kind::StrList => Builder::StrList(ListBuilder::new(StringBuilder::new())),
            Kind::U64List => Builder::U64List(ListBuilder::new(UInt64Builder::new())),
        }
    }

    /// Appends a cell converted as [`Column::push`] converts it.
    fn append(&mut self, cell: &Cell) {
        match self {
            Builder::Bool(b) => b.append_option(cell.as_bool()),
            Builder::I64(b) => b.append_option(cell.as_i64()),
            Builder::U64(b) => b.append_option(cell.as_u64()),
            Builder::F32(b) => b.append_option(cell.as_f32()),
            Builder::Str(b) => b.append_option(cell.as_text()),
            Builder::F32List(b) => match cell.as_floats() {
                Some(v) => {
                    b.values().append_slice(&v);
                    b.append(true);
                }
                None => b.append(false),
            },
            Builder::StrList(b) => match cell.as_texts() {
                Some(v) => {
                    for s in v {
                        b.values().append_value(s);
                    }
                    b.append(true);
                }
                None => b.append(false),
            },
            Builder::U64List(b) => match cell.as_uints() {
                Some(v) => {
                    b.values().append_slice(&v);
                    b.append(true);
                }
                None => b.append(false),
            },
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::I64(b) => Arc::new(b.finish()),
            Builder::U64(b) => Arc::new(b.finish()),
            Builder::F32(b) => Arc::new(b.finish()),
            Builder::Str(b) => Arc::new(b.finish()),
            Builder::F32List(b) => Arc::new(b.finish()),
            Builder::StrList(b) => Arc::new(b.finish()),
            Builder::U64List(b) => Arc::new(b.finish()),
        }
    }
}

impl Pending {
    /// Appends a cell; its length once converted ([`Kind::convert_len`]).
    fn push(&mut self, kind: Kind, cell: &Cell) -> Option<usize> {
        let len = kind.convert_len(cell);
        self.rows += 1;
        match (&mut self.builder, len) {
            (None, None) => self.nulls += 1,
            (Some(b), _) => b.append(cell),
            (None, Some(_)) => {
                let mut b = Builder::new(kind);
                for _ in 0..self.nulls {
                    b.append(&Cell::Null);
                }
                b.append(cell);
                self.builder = Some(b);
            }
        }
        len
    }

    /// The values as an array, leaving none.
    fn take(&mut self, kind: Kind) -> ArrayRef {
        let array = match &mut self.builder {
            Some(b) => b.finish(),
            None => new_null_array(&data_type(kind), self.nulls),
        };
        *self = Pending::default();
        array
    }
}

/// The page store of [`write_parquet_rows`]: every column's encoded pages
/// appended to one temporary file (made at the first page, without a
/// name on disk), read back when the row group is written.
#[derive(Debug)]
struct SpilledPages {
    dir: Option<PathBuf>,
    file: Arc<Mutex<Option<File>>>,
}

impl SpilledPages {
    fn new(dir: Option<&Path>) -> SpilledPages {
        SpilledPages {
            dir: dir.map(Path::to_path_buf),
            file: Arc::new(Mutex::new(None)),
        }
    }
}

impl PageStoreFactory for SpilledPages {
    fn create(
        &self,
        _args: &PageStoreArgs<'_>,
    ) -> Result<Box<dyn PageStore>, parquet::errors::ParquetError> {
        Ok(Box::new(SpilledPageStore {
            dir: self.dir.clone(),
            file: Arc::clone(&self.file),
            pages: Vec::new(),
        }))
    }
}

/// One column chunk's pages in [`SpilledPages`]' file: where each is.
struct SpilledPageStore {
    dir: Option<PathBuf>,
    file: Arc<Mutex<Option<File>>>,
    /// Offset and length of each page put.
    pages: Vec<(u64, usize)>,
}

impl SpilledPageStore {
    fn with_file<T>(
        &self,
        f: impl FnOnce(&mut File) -> std::io::Result<T>,
    ) -> Result<T, parquet::errors::ParquetError> {
        let mut guard = self
            .file
            .lock()
            .map_err(|_| parquet::errors::ParquetError::General("page file lock".into()))?;
        if guard.is_none() {
            let made = match &self.dir {
                Some(dir) => tempfile::tempfile_in(dir).or_else(|_| tempfile::tempfile()),
                None => tempfile::tempfile(),
            };
            *guard = Some(made?);
        }
        match guard.as_mut() {
            Some(file) => Ok(f(file)?),
            None => Err(parquet::errors::ParquetError::General(
                "no page file".into(),
            )),
        }
    }
}

impl PageStore for SpilledPageStore {
    fn put(&mut self, value: Bytes) -> Result<PageKey, parquet::errors::ParquetError> {
        let at = self.with_file(|file| {
            let at = file.seek(SeekFrom::End(0))?;
            file.write_all(&value)?;
            Ok(at)
        })?;
        self.pages.push((at, value.len()));
        Ok(PageKey::new(self.pages.len() as u64 - 1))
    }

    fn take(&mut self, key: PageKey) -> Result<Bytes, parquet::errors::ParquetError> {
        let (at, len) = usize::try_from(key.get())
            .ok()
            .and_then(|i| self.pages.get(i).copied())
            .ok_or_else(|| {
                parquet::errors::ParquetError::General(format!("no page {}", key.get()))
            })?;
        let bytes = self.with_file(|file| {
            file.seek(SeekFrom::Start(at))?;
            let mut bytes = vec![0u8; len];
            file.read_exact(&mut bytes)?;
            Ok(bytes)
        })?;
        Ok(Bytes::from(bytes))
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

    /// Rows of every kind and validity pattern: columns without a null,
    /// with some, all null in a row group or everywhere, cells that do not
    /// convert, lists null, empty, of one item or of many.
    fn varied_rows(n: usize) -> (Vec<(String, Kind)>, Vec<Vec<Cell>>) {
        let columns: Vec<(String, Kind)> = [
            ("event_name", Kind::Str),
            ("tick", Kind::I64),
            ("userid", Kind::I64),
            ("weapon", Kind::Str),
            ("headshot", Kind::Bool),
            ("steamid", Kind::U64),
            ("never", Kind::F32),
            ("early", Kind::F32),
            ("late_text", Kind::Str),
            ("mixed", Kind::I64),
            ("position", Kind::F32List),
            ("empty_lists", Kind::StrList),
            ("one_item", Kind::U64List),
            ("long_lists", Kind::U64List),
            ("flags", Kind::Bool),
        ]
        .iter()
        .map(|(n, k)| (n.to_string(), *k))
        .collect();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let rows = (0..n)
            .map(|i| {
                let r = next();
                let pick = |m: u64| r % m;
                vec![
                    Cell::Str(format!("event_{}", pick(5))),
                    Cell::Int(i as i64 / 3),
                    if pick(4) == 0 {
                        Cell::Null
                    } else {
                        Cell::Int((r >> 8) as i64 % 20)
                    },
                    if pick(3) == 0 {
                        Cell::Null
                    } else {
                        Cell::Str(format!("w{}", (r >> 12) % 4000))
                    },
                    if pick(5) == 0 {
                        Cell::Null
                    } else {
                        Cell::Bool(r & 64 == 0)
                    },
                    if pick(2) == 0 {
                        Cell::Null
                    } else {
                        Cell::UInt(76561198000000000 + (r >> 20) % 50)
                    },
                    Cell::Null,
                    if i < n / 3 {
                        Cell::Float((r >> 9) as f32 / 7.0)
                    } else {
                        Cell::Null
                    },
                    if i > n / 2 && pick(2) == 0 {
                        Cell::Int(i as i64)
                    } else {
                        Cell::Null
                    },
                    // Text in an integer column: null once converted.
                    if pick(3) == 0 {
                        Cell::Str("x".into())
                    } else {
                        Cell::Int(i as i64)
                    },
                    match pick(4) {
                        0 => Cell::Null,
                        1 => Cell::Floats(Vec::new()),
                        _ => Cell::Floats(vec![i as f32, 1.5, -2.0]),
                    },
                    Cell::Strs(Vec::new()),
                    Cell::UInt(r >> 40),
                    if pick(6) == 0 {
                        Cell::Null
                    } else {
                        Cell::UInts((0..(r >> 50) % 40).collect())
                    },
                    Cell::Bool(i.is_multiple_of(3)),
                ]
            })
            .collect();
        (columns, rows)
    }

    /// The bytes of the table of these rows by [`write_parquet_with`], and
    /// by [`write_parquet_rows_with`] from the same rows.
    fn both_ways(
        columns: &[(String, Kind)],
        rows: &[Vec<Cell>],
        properties: WriterProperties,
    ) -> (Vec<u8>, Vec<u8>) {
        let typed: Vec<(String, Option<Kind>)> =
            columns.iter().map(|(n, k)| (n.clone(), Some(*k))).collect();
        let table = Table::from_cells_typed("events", &typed, rows);
        let mut whole = Vec::new();
        write_parquet_with(&table, properties.clone(), &mut whole).unwrap();
        let by_column = write_parquet_rows_with(
            "events",
            columns,
            |each| rows.iter().try_for_each(|r| each(r)),
            properties,
            None,
            Vec::new(),
        )
        .unwrap();
        (whole, by_column)
    }

    /// Written column by column from rows read twice, the file is the
    /// whole table's, byte for byte: with small pages, slices, row groups
    /// and dictionaries (so that every limit is crossed many times), and
    /// with the properties of every file gamewire writes past a page's
    /// 20,000 rows.
    #[test]
    fn rows_written_column_by_column_are_the_whole_tables_bytes() {
        let (columns, rows) = varied_rows(2500);
        let small = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_write_batch_size(16)
            .set_data_page_row_count_limit(100)
            .set_data_page_size_limit(2048)
            .set_dictionary_page_size_limit(1024)
            .set_max_row_group_row_count(Some(700))
            .build();
        for n in [0, 1, 15, 16, 17, 99, 100, 101, 700, 701, 2500] {
            let (whole, by_column) = both_ways(&columns, &rows[..n], small.clone());
            assert!(whole == by_column, "{n} rows");
        }
        let (columns, rows) = varied_rows(45_000);
        let (whole, by_column) = both_ways(&columns, &rows, parquet_properties());
        assert!(whole == by_column);
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
