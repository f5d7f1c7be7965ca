//! Rows kept in a temporary file while a parse runs ([`RowSpool`]): a
//! table whose columns are known only at the end (the `events` table's
//! columns are the keys of the events that occur, in the order they first
//! occur) holds its rows there instead of in memory, and reads them back,
//! in order, to write the table once the parse is done.
//!
//! A row is sparse, the cells it has with their column numbers, and is
//! written as bytes: a varint count of cells, then per cell a varint
//! column number, a tag byte and the value:
//!
//! | tag | cell | value |
//! |---:|---|---|
//! | 0 | null | none |
//! | 1 | bool | one byte, 0 or 1 |
//! | 2 | signed integer | zigzag varint |
//! | 3 | unsigned integer | varint |
//! | 4 | float | 4 bytes, little-endian IEEE 754 |
//! | 5 | text | varint length, UTF-8 bytes |
//! | 6 | float list | varint count, 4 bytes each |
//! | 7 | text list | varint count, each as text |
//! | 8 | unsigned list | varint count, a varint each |
//!
//! The spool holds up to [`SPOOL_ROWS`] rows (or [`SPOOL_BYTES`] of
//! them) in memory and appends them to its file when either is reached;
//! the file has no name on disk once created (it is gone when the spool is
//! dropped, or the process ends, whatever way it ends).

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::QueryError;
use crate::table::{Cell, Kind, Table};
use crate::write::{write_more_rows, write_parquet_rows, write_table, Format};

/// Rows a [`RowSpool`] holds in memory before appending them to its file.
pub const SPOOL_ROWS: usize = 1024;

/// Encoded bytes a [`RowSpool`] holds in memory before appending them to
/// its file (rows of long text or lists reach it before [`SPOOL_ROWS`]).
pub const SPOOL_BYTES: usize = 256 << 10;

/// A sparse row: the cells a row has, with their column numbers.
pub type SparseRow = Vec<(usize, Cell)>;

/// Rows appended in order, held in a temporary file past the first
/// [`SPOOL_ROWS`], read back in order ([`RowSpool::for_each_row`]).
#[derive(Debug)]
pub struct RowSpool {
    /// Where the file is made: `None` for the system's temporary folder.
    dir: Option<PathBuf>,
    /// The file, once rows were appended to it.
    file: Option<File>,
    /// Encoded rows not yet in the file.
    pending: Vec<u8>,
    /// Rows in `pending`.
    pending_rows: usize,
    /// Every row appended.
    rows: usize,
    /// Rows held in memory before they are appended to the file.
    memory_rows: usize,
    /// The first failure to write the file, reported by the reads.
    error: Option<QueryError>,
}

impl RowSpool {
    /// An empty spool whose file will be made in `dir` (the system's
    /// temporary folder when `None`, or when `dir` refuses it).
    pub fn new(dir: Option<&Path>) -> RowSpool {
        RowSpool {
            dir: dir.map(Path::to_path_buf),
            file: None,
            pending: Vec::new(),
            pending_rows: 0,
            rows: 0,
            memory_rows: SPOOL_ROWS,
            error: None,
        }
    }

    /// Holds up to `rows` rows in memory instead of [`SPOOL_ROWS`] (at
    /// least one).
    #[must_use]
    pub fn with_memory_rows(mut self, rows: usize) -> RowSpool {
        self.memory_rows = rows.max(1);
        self
    }

    /// Every row appended.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The rows held in memory (at most [`SPOOL_ROWS`], or what
    /// [`RowSpool::with_memory_rows`] set).
    pub fn rows_in_memory(&self) -> usize {
        self.pending_rows
    }

    /// Appends a row. A failure to write the file is kept and reported by
    /// the next read; the rows after it are dropped.
    pub fn push(&mut self, row: &[(usize, Cell)]) {
        if self.error.is_some() {
            return;
        }
        encode_row(&mut self.pending, row);
        self.pending_rows += 1;
        self.rows += 1;
        if self.pending_rows >= self.memory_rows || self.pending.len() >= SPOOL_BYTES {
            if let Err(e) = self.spill() {
                self.error = Some(e);
                self.pending.clear();
                self.pending_rows = 0;
            }
        }
    }

    /// Appends the pending rows to the file (made the first time).
    fn spill(&mut self) -> Result<(), QueryError> {
        if self.file.is_none() {
            let made = match &self.dir {
                Some(dir) => tempfile::tempfile_in(dir).or_else(|_| tempfile::tempfile()),
                None => tempfile::tempfile(),
            };
            self.file = Some(made.map_err(|e| self.io_error(e))?);
        }
        let written = match &mut self.file {
            Some(file) => file.write_all(&self.pending),
            None => Ok(()),
        };
        written.map_err(|e| self.io_error(e))?;
        self.pending.clear();
        self.pending_rows = 0;
        Ok(())
    }

    fn io_error(&self, source: std::io::Error) -> QueryError {
        QueryError::Write {
            what: match &self.dir {
                Some(dir) => format!("rows to a temporary file in {}", dir.display()),
                None => "rows to a temporary file".to_string(),
            },
            source,
        }
    }

    /// Calls `each` with every row, in the order appended (the spool can be
    /// read again). A failure to write or read the file is an error.
    pub fn for_each_row(
        &mut self,
        mut each: impl FnMut(&[(usize, Cell)]) -> Result<(), QueryError>,
    ) -> Result<(), QueryError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let mut row: SparseRow = Vec::new();
        if let Some(file) = &mut self.file {
            let read_error = |source| QueryError::Write {
                what: "rows read back from their temporary file".to_string(),
                source,
            };
            file.seek(SeekFrom::Start(0)).map_err(read_error)?;
            let mut reader = BufReader::with_capacity(64 << 10, &mut *file);
            while decode_row(&mut reader, &mut row).map_err(read_error)? {
                each(&row)?;
            }
            file.seek(SeekFrom::End(0)).map_err(read_error)?;
        }
        let mut tail: &[u8] = &self.pending;
        while decode_row(&mut tail, &mut row).map_err(|source| QueryError::Write {
            what: "rows held in memory".to_string(),
            source,
        })? {
            each(&row)?;
        }
        Ok(())
    }
}

/// Rows a [`SpooledTable`] writes at a time as CSV or JSON Lines.
const WRITE_ROWS: usize = 1024;

/// A table whose rows wait in a [`RowSpool`], its columns and their kinds
/// known: written ([`SpooledTable::write`]) byte for byte as the whole
/// [`Table`] of those rows is ([`write_table`]), reading the rows back a
/// batch at a time.
#[derive(Debug)]
pub struct SpooledTable {
    name: String,
    columns: Vec<(String, Kind)>,
    /// The table's column of each spooled column number.
    to_table: Vec<Option<usize>>,
    spool: RowSpool,
}

impl SpooledTable {
    /// The table `name` of these columns, whose rows are the spool's, a
    /// spooled cell going to the column `to_table` names for its number
    /// (a later cell for the same column replaces an earlier one).
    pub fn new(
        name: &str,
        columns: Vec<(String, Kind)>,
        to_table: Vec<Option<usize>>,
        spool: RowSpool,
    ) -> SpooledTable {
        SpooledTable {
            name: name.to_string(),
            columns,
            to_table,
            spool,
        }
    }

    /// The columns and their kinds.
    pub fn columns(&self) -> &[(String, Kind)] {
        &self.columns
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.spool.rows()
    }

    /// Calls `each` with every row, a cell per column, in order.
    fn for_each_row(
        &mut self,
        mut each: impl FnMut(&[Cell]) -> Result<(), QueryError>,
    ) -> Result<(), QueryError> {
        let to_table = &self.to_table;
        let mut dense = vec![Cell::Null; self.columns.len()];
        self.spool.for_each_row(|sparse| {
            dense.fill(Cell::Null);
            for (i, cell) in sparse {
                if let Some(slot) = to_table
                    .get(*i)
                    .copied()
                    .flatten()
                    .and_then(|j| dense.get_mut(j))
                {
                    *slot = cell.clone();
                }
            }
            each(&dense)
        })
    }

    /// Writes the table in `format` to `out` and gives `out` back: the
    /// bytes [`write_table`] writes for the whole table. Parquet reads the
    /// rows twice ([`write_parquet_rows`]; its pages wait in a temporary
    /// file in `spill_dir`, else the system's temporary folder).
    pub fn write<W: Write + Send>(
        mut self,
        format: Format,
        spill_dir: Option<&Path>,
        mut out: W,
    ) -> Result<W, QueryError> {
        if format == Format::Parquet {
            let name = self.name.clone();
            let columns = self.columns.clone();
            return write_parquet_rows(
                &name,
                &columns,
                |each| self.for_each_row(|row| each(row)),
                spill_dir,
                out,
            );
        }
        let kinds: Vec<(String, Option<Kind>)> = self
            .columns
            .iter()
            .map(|(n, k)| (n.clone(), Some(*k)))
            .collect();
        let name = self.name.clone();
        let mut batch: Vec<Vec<Cell>> = Vec::with_capacity(WRITE_ROWS);
        let mut first = true;
        let mut write_batch = |batch: &mut Vec<Vec<Cell>>, out: &mut W| {
            let table = Table::from_cells_typed(&name, &kinds, batch);
            batch.clear();
            if std::mem::take(&mut first) {
                write_table(&table, format, out)
            } else {
                write_more_rows(&table, format, out)
            }
        };
        self.for_each_row(|row| {
            batch.push(row.to_vec());
            if batch.len() >= WRITE_ROWS {
                write_batch(&mut batch, &mut out)?;
            }
            Ok(())
        })?;
        if !batch.is_empty() || self.spool.rows() == 0 {
            write_batch(&mut batch, &mut out)?;
        }
        Ok(out)
    }

    /// The whole table in memory.
    pub fn into_table(mut self) -> Result<Table, QueryError> {
        let kinds: Vec<(String, Option<Kind>)> = self
            .columns
            .iter()
            .map(|(n, k)| (n.clone(), Some(*k)))
            .collect();
        let mut rows = Vec::with_capacity(self.rows());
        self.for_each_row(|row| {
            rows.push(row.to_vec());
            Ok(())
        })?;
        Ok(Table::from_cells_typed(&self.name, &kinds, &rows))
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_text(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Appends a row's bytes.
fn encode_row(out: &mut Vec<u8>, row: &[(usize, Cell)]) {
    put_varint(out, row.len() as u64);
    for (column, cell) in row {
        put_varint(out, *column as u64);
        match cell {
            Cell::Null => out.push(0),
            Cell::Bool(b) => out.extend_from_slice(&[1, u8::from(*b)]),
            Cell::Int(i) => {
                out.push(2);
                put_varint(out, ((*i << 1) ^ (*i >> 63)) as u64);
            }
            Cell::UInt(u) => {
                out.push(3);
                put_varint(out, *u);
            }
            Cell::Float(x) => {
                out.push(4);
                out.extend_from_slice(&x.to_le_bytes());
            }
            Cell::Str(s) => {
                out.push(5);
                put_text(out, s);
            }
            Cell::Floats(v) => {
                out.push(6);
                put_varint(out, v.len() as u64);
                for x in v {
                    out.extend_from_slice(&x.to_le_bytes());
                }
            }
            Cell::Strs(v) => {
                out.push(7);
                put_varint(out, v.len() as u64);
                for s in v {
                    put_text(out, s);
                }
            }
            Cell::UInts(v) => {
                out.push(8);
                put_varint(out, v.len() as u64);
                for u in v {
                    put_varint(out, *u);
                }
            }
        }
    }
}

fn bad(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string())
}

fn get_byte(r: &mut impl Read) -> std::io::Result<u8> {
    let mut b = [0u8; 1];
    r.read_exact(&mut b)?;
    Ok(b[0])
}

fn get_varint(r: &mut impl Read) -> std::io::Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = get_byte(r)?;
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(bad("a varint longer than 64 bits"))
}

/// A count or length read back: at most what the rest of the spool could
/// hold, never an allocation the bytes do not justify.
fn get_len(r: &mut impl Read) -> std::io::Result<usize> {
    let n = get_varint(r)?;
    usize::try_from(n)
        .ok()
        .filter(|n| *n <= isize::MAX as usize / 16)
        .ok_or_else(|| bad("a length beyond memory"))
}

fn get_f32(r: &mut impl Read) -> std::io::Result<f32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(f32::from_le_bytes(b))
}

fn get_text(r: &mut impl Read) -> std::io::Result<String> {
    let n = get_len(r)?;
    let mut bytes = Vec::new();
    r.take(n as u64).read_to_end(&mut bytes)?;
    if bytes.len() != n {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    String::from_utf8(bytes).map_err(|_| bad("text that is not UTF-8"))
}

/// A list read back: its count, then each element by `get` (grown as the
/// elements come, not reserved from the count).
fn get_list<R: Read, T>(
    r: &mut R,
    get: impl Fn(&mut R) -> std::io::Result<T>,
) -> std::io::Result<Vec<T>> {
    let n = get_len(r)?;
    let mut v = Vec::new();
    for _ in 0..n {
        v.push(get(r)?);
    }
    Ok(v)
}

/// Reads the next row into `row`; `false` at the end of the bytes.
fn decode_row(r: &mut impl Read, row: &mut SparseRow) -> std::io::Result<bool> {
    row.clear();
    let mut first = [0u8; 1];
    if r.read(&mut first)? == 0 {
        return Ok(false);
    }
    let mut count = u64::from(first[0] & 0x7f);
    if first[0] & 0x80 != 0 {
        count |= get_varint(r)? << 7;
    }
    for _ in 0..count {
        let column = get_len(r)?;
        let cell = match get_byte(r)? {
            0 => Cell::Null,
            1 => Cell::Bool(get_byte(r)? != 0),
            2 => {
                let z = get_varint(r)?;
                Cell::Int(((z >> 1) as i64) ^ -((z & 1) as i64))
            }
            3 => Cell::UInt(get_varint(r)?),
            4 => Cell::Float(get_f32(r)?),
            5 => Cell::Str(get_text(r)?),
            6 => Cell::Floats(get_list(r, get_f32)?),
            7 => Cell::Strs(get_list(r, get_text)?),
            8 => Cell::UInts(get_list(r, get_varint)?),
            _ => return Err(bad("an unknown cell tag")),
        };
        row.push((column, cell));
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn sample_row(i: usize) -> SparseRow {
        let i64v = i as i64;
        vec![
            (0, Cell::Str(format!("event_{}", i % 7))),
            (1, Cell::Int(i64v * 64)),
            (2 + i % 5, Cell::Int(-i64v)),
            (9, Cell::UInt(u64::MAX - i as u64)),
            (10, Cell::Float(i as f32 / 3.0)),
            (11, Cell::Bool(i.is_multiple_of(2))),
            (12, Cell::Null),
            (
                13,
                Cell::Floats(vec![1.5, f32::NAN, -0.0][..i % 4].to_vec()),
            ),
            (14, Cell::Strs(vec!["C4 Explosive".into(), "ünï".into()])),
            (15, Cell::UInts(vec![7, 1 << 40])),
            (16, Cell::Int(i64::MIN + i64v)),
        ]
    }

    /// Rows read back are the rows appended, in order, while no more than
    /// [`SPOOL_ROWS`] are ever in memory; reading twice gives them twice.
    #[test]
    fn rows_come_back_in_order_and_few_stay_in_memory() {
        let dir = std::env::temp_dir();
        let mut spool = RowSpool::new(Some(&dir));
        let n = SPOOL_ROWS * 3 + 17;
        for i in 0..n {
            spool.push(&sample_row(i));
            assert!(spool.rows_in_memory() <= SPOOL_ROWS);
        }
        assert_eq!(spool.rows(), n);
        assert!(spool.file.is_some());
        for _ in 0..2 {
            let mut i = 0;
            spool
                .for_each_row(|row| {
                    let want = sample_row(i);
                    assert_eq!(row.len(), want.len());
                    for ((c, got), (wc, w)) in row.iter().zip(&want) {
                        assert_eq!(c, wc);
                        match (got, w) {
                            (Cell::Floats(a), Cell::Floats(b)) => {
                                let bits =
                                    |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                                assert_eq!(bits(a), bits(b));
                            }
                            _ => assert_eq!(got, w),
                        }
                    }
                    i += 1;
                    Ok(())
                })
                .unwrap();
            assert_eq!(i, n);
        }
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_panic() {
        let mut bytes = Vec::new();
        encode_row(&mut bytes, &sample_row(3));
        for cut in 1..bytes.len() {
            let mut r: &[u8] = &bytes[..cut];
            let mut row = Vec::new();
            assert!(decode_row(&mut r, &mut row).is_err(), "cut at {cut}");
        }
        let mut tagged = Vec::new();
        put_varint(&mut tagged, 1);
        put_varint(&mut tagged, 0);
        tagged.push(99);
        let mut r: &[u8] = &tagged;
        assert!(decode_row(&mut r, &mut Vec::new()).is_err());
    }
}
