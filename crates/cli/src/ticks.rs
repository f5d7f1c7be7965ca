//! The `ticks` table, written in batches as the parse makes its rows
//! (`gamewire ticks`, `gamewire table ticks`): a long demo's rows are
//! never all held in memory.
//!
//! CSV and JSON Lines: the bytes are those of the whole table written
//! after the parse: each batch is typed and written by the same writer
//! ([`gamewire_query::write::write_table`]), the CSV header once.
//!
//! Parquet: the batches go into one file, in row groups
//! ([`ParquetRowGroups`]). Its schema is fixed before the first batch, from
//! the kinds the demo's send tables declare for the props (the kinds the
//! whole table gets, [`TicksCollector::finish`]); the values read back are
//! those of the whole table's file. Every prop the query's check accepts
//! has a declared kind in every game (its field's decoder on the game's
//! player classes, [`gamewire_query::kinds`]); only a prop whose kind is
//! still unknown when the first batch is written (no send tables to read
//! it from) leaves the table whole, written after the parse with the kinds
//! of its values.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use gamewire_query::kinds::player_kind;
use gamewire_query::ticks::TicksCollector;
use gamewire_query::world::player_source;
use gamewire_query::write::{write_more_rows, write_table, Format, ParquetRowGroups};
use gamewire_query::{DemoState, Interests, Kind, Query, SendTableCache, Visitor};

use crate::error::CliError;
use crate::many;
use crate::output::Sink;
use crate::read::{leave_to_exit, parse_keeping_cut, read_demo, warn_cut, with_demo};
use crate::tables::RowArgs;

/// Rows a [`StreamedTicks`] holds before writing them.
const STREAMED_ROWS: usize = 4096;

/// The `ticks` collector of a query: its props, ticks and players, as the
/// query's own run builds it.
fn collector(query: &Query) -> TicksCollector {
    let c = TicksCollector::new(&query.player_props, query.ticks.clone())
        .with_players(query.players.clone())
        .humans_only(query.humans_only);
    if query.decode_every_class {
        c.with_every_class()
    } else {
        c
    }
}

/// Where a [`StreamedTicks`] writes: the output itself (CSV, JSON Lines,
/// and Parquet before its schema is known), or the Parquet writer that
/// holds it.
enum Out<W: Write + Send> {
    Plain(W),
    Parquet(Box<ParquetRowGroups<W>>),
    /// Only while the output moves from one to the other.
    Moving,
}

/// How a [`StreamedTicks`] writes Parquet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ParquetMode {
    /// Not decided: no batch was written yet.
    Undecided,
    /// In row groups, batch by batch.
    Streamed,
    /// Whole, after the parse: a prop's kind is not declared.
    Whole,
}

/// A [`TicksCollector`] whose rows are written in batches as they are made.
/// The props are checked against the send tables before the first row; the
/// first error (an unknown prop, output that cannot be written) stops the
/// writing and is kept for the end.
struct StreamedTicks<'a, W: Write + Send> {
    collector: TicksCollector,
    query: &'a Query,
    format: Format,
    /// The `demo` column's value, with several demos.
    demo: Option<String>,
    out: Out<W>,
    parquet: ParquetMode,
    /// Encoded bytes per Parquet row group (the writer's default unless a
    /// test sets it).
    group_bytes: usize,
    header_written: bool,
    props_checked: bool,
    error: Option<CliError>,
    /// Rows held before writing them ([`STREAMED_ROWS`]).
    batch_rows: usize,
    /// A batch as written (the CSV header is cut from all but the first).
    buffer: Vec<u8>,
}

impl<'a, W: Write + Send> StreamedTicks<'a, W> {
    fn new(query: &'a Query, format: Format, demo: Option<&str>, out: W) -> Self {
        StreamedTicks {
            collector: collector(query),
            query,
            format,
            demo: demo.map(String::from),
            out: Out::Plain(out),
            parquet: ParquetMode::Undecided,
            group_bytes: gamewire_query::write::ROW_GROUP_BYTES,
            header_written: false,
            props_checked: false,
            error: None,
            batch_rows: STREAMED_ROWS,
            buffer: Vec::new(),
        }
    }

    /// The columns of the table and their kinds as the demo declares them
    /// (those of [`TicksCollector::finish`], with the `demo` column first
    /// when there is one); `None` when a prop's kind is not declared.
    fn declared_columns(&self, state: &DemoState) -> Option<Vec<(String, Kind)>> {
        let mut columns: Vec<(String, Kind)> = self
            .demo
            .iter()
            .map(|_| ("demo".to_string(), Kind::Str))
            .collect();
        columns.extend([
            ("tick".to_string(), Kind::I64),
            ("slot".to_string(), Kind::I64),
            ("steamid".to_string(), Kind::U64),
            ("name".to_string(), Kind::Str),
        ]);
        for p in &self.query.player_props {
            columns.push((p.clone(), player_kind(state, &player_source(p))?));
        }
        Some(columns)
    }

    /// The rows made so far as a typed table (the `demo` column first).
    fn take_batch(&mut self, state: &DemoState) -> gamewire_query::Table {
        let mut batch = TicksCollector::new(&self.query.player_props, None);
        batch.rows.rows = std::mem::take(&mut self.collector.rows.rows);
        let mut table = batch.finish(state);
        if let Some(d) = &self.demo {
            table.prepend_constant("demo", d);
        }
        table
    }

    /// Parquet: writes the rows made so far as a batch of row groups,
    /// opening the writer with the declared schema on the first one; with
    /// a kind not declared, keeps them for the whole table at the end.
    fn write_parquet_batch(&mut self, state: &DemoState) -> Result<(), CliError> {
        if self.parquet == ParquetMode::Undecided {
            match self.declared_columns(state) {
                Some(columns) => {
                    let Out::Plain(out) = std::mem::replace(&mut self.out, Out::Moving) else {
                        return Err(CliError::Usage("the Parquet output is already open"));
                    };
                    let writer = ParquetRowGroups::new("ticks", &columns, out)?
                        .with_group_bytes(self.group_bytes);
                    self.out = Out::Parquet(Box::new(writer));
                    self.parquet = ParquetMode::Streamed;
                }
                None => self.parquet = ParquetMode::Whole,
            }
        }
        if self.parquet == ParquetMode::Whole {
            return Ok(());
        }
        let table = self.take_batch(state);
        if let Out::Parquet(writer) = &mut self.out {
            writer.write(&table)?;
        }
        Ok(())
    }

    /// Writes the rows made so far as the table's writer writes them: the
    /// rows go into a collector of the same props whose `finish` types them
    /// as the whole table's are typed.
    fn write_pending(&mut self, state: &DemoState) -> Result<(), CliError> {
        if self.format == Format::Parquet {
            return self.write_parquet_batch(state);
        }
        if self.header_written && self.collector.rows.rows.is_empty() {
            return Ok(());
        }
        let table = self.take_batch(state);
        self.buffer.clear();
        if self.header_written {
            write_more_rows(&table, self.format, &mut self.buffer)?;
        } else {
            write_table(&table, self.format, &mut self.buffer)?;
        }
        self.header_written = true;
        match &mut self.out {
            Out::Plain(out) => out.write_all(&self.buffer).map_err(CliError::Output),
            _ => Err(CliError::Usage("rows written to a Parquet output")),
        }
    }

    /// After the parse: checks the props if no row did, and the query's
    /// names against the demo, writes what is left (the CSV header of an
    /// empty table; a Parquet file's last row group and footer, or the
    /// whole table) and flushes.
    fn finish(&mut self, state: &DemoState) -> Result<(), CliError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.query.check_names(state)?;
        self.query.check_ticks(state.tick)?;
        self.write_pending(state)?;
        if self.format == Format::Parquet {
            let out = match std::mem::replace(&mut self.out, Out::Moving) {
                Out::Parquet(writer) => writer.finish()?,
                Out::Plain(mut out) => {
                    let table = self.take_batch(state);
                    write_table(&table, self.format, &mut out)?;
                    out
                }
                Out::Moving => return Err(CliError::Usage("the Parquet output was lost")),
            };
            self.out = Out::Plain(out);
        }
        match &mut self.out {
            Out::Plain(out) => out.flush().map_err(CliError::Output),
            _ => Ok(()),
        }
    }

    /// The output, once [`StreamedTicks::finish`] gave it back.
    fn into_out(self) -> Option<W> {
        match self.out {
            Out::Plain(out) => Some(out),
            _ => None,
        }
    }
}

impl<W: Write + Send> Visitor for StreamedTicks<'_, W> {
    fn interests(&self) -> Interests {
        self.collector.interests()
    }

    fn wants_class(&self, class_name: &str) -> bool {
        self.collector.wants_class(class_name)
    }

    fn wants_string_table(&self, name: &str) -> bool {
        self.collector.wants_string_table(name)
    }

    fn on_packet_entities(&mut self, state: &DemoState) {
        if self.error.is_some() {
            return;
        }
        if !self.props_checked && state.send_tables.is_some() {
            if let Err(e) = self.query.check_names(state) {
                self.error = Some(e.into());
                return;
            }
            self.props_checked = true;
        }
        self.collector.on_packet_entities(state);
        // Rows go out in batches: memory stays bounded on a long demo, and a
        // short one is written in one go after the parse.
        if self.collector.rows.rows.len() >= self.batch_rows {
            if let Err(e) = self.write_pending(state) {
                self.error = Some(e);
            }
        }
    }
}

/// The `ticks` table of the demos `args` names, as CSV or JSON Lines (or
/// Parquet, of one demo), to `sink`, written as the parse goes. With several demos every row starts
/// with a `demo` column; each demo's rows are written by its worker, and
/// the CSV header is kept from the first demo written only.
pub(crate) fn stream(
    query: &Query,
    args: &RowArgs,
    format: Format,
    sink: &mut Sink,
) -> Result<(), CliError> {
    if many::names_several(&args.demos) {
        return stream_many(query, args, format, sink);
    }
    let path = args.demos.first().ok_or(CliError::Usage("no demo given"))?;
    let data = read_demo(path)?;
    let mut streamed = StreamedTicks::new(query, format, None, &mut *sink);
    let parsed = parse_keeping_cut(path, &data, &mut streamed, None)?;
    let state = leave_to_exit(parsed.state);
    streamed.finish(state).map_err(|e| in_demo(path, e))?;
    // As `leave_to_exit`: the process ends next, so its caches are not
    // freed piece by piece (the output is flushed).
    std::mem::forget(streamed);
    if let Some(cut) = parsed.cut {
        warn_cut(&cut);
    }
    Ok(())
}

/// A query's error on a demo names the demo.
fn in_demo(path: &Path, e: CliError) -> CliError {
    match e {
        CliError::Table(source) => CliError::Query {
            path: path.to_path_buf(),
            source,
        },
        CliError::Output(_) => e,
        other => CliError::InDemo {
            path: path.to_path_buf(),
            source: Box::new(other),
        },
    }
}

fn stream_many(
    query: &Query,
    args: &RowArgs,
    format: Format,
    sink: &mut Sink,
) -> Result<(), CliError> {
    let work = |path: &Path, label: &str, cache: &Arc<SendTableCache>| {
        let mut streamed = StreamedTicks::new(query, format, Some(label), Vec::new());
        let parsed = with_demo(path, |data| {
            parse_keeping_cut(path, data, &mut streamed, Some(cache))
        })?;
        streamed
            .finish(&parsed.state)
            .map_err(|e| in_demo(path, e))?;
        Ok((streamed.into_out().unwrap_or_default(), parsed.cut))
    };
    let mut header_written = false;
    let failures = many::each_demo(&args.demos, args.jobs, work, |rows: Vec<u8>| {
        let mut body = &rows[..];
        if format == Format::Csv {
            if header_written {
                let line_end = body.iter().position(|&b| b == b'\n');
                body = line_end.and_then(|n| body.get(n + 1..)).unwrap_or(&[]);
            }
            header_written = true;
        }
        sink.write_all(body).map_err(CliError::Output)
    })?;
    sink.flush().map_err(CliError::Output)?;
    failures.every()?;
    failures.any()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use gamewire_query::{Cell, RunOptions, TableKind};

    /// Parses the whole of `data` (a demo that is not cut) with `visitor`.
    fn parse(data: &[u8], visitor: &mut impl Visitor) -> DemoState {
        let (state, cut) = RunOptions::default()
            .parse_keeping_cut(data, visitor)
            .unwrap();
        assert!(cut.is_none(), "{cut:?}");
        state
    }

    fn corpus(rel: &str) -> Vec<u8> {
        let path = gamewire_corpus::path(rel);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn ticks_query(props: &[&str]) -> Query {
        Query {
            tables: vec![TableKind::Ticks],
            player_props: props.iter().map(|p| p.to_string()).collect(),
            ..Query::default()
        }
    }

    /// Rows written in batches of any size are the bytes of the whole
    /// `ticks` table of the query's run, written after the parse.
    #[test]
    fn streamed_ticks_equal_the_whole_table() {
        let data = corpus("cs2/14065.dem");
        let query = ticks_query(&["X", "Y", "health", "yaw", "m_iHealth", "team_name"]);
        let mut table = query.run(&data).unwrap().tables.remove(0);
        assert!(table.rows() > 100);
        for format in [Format::Csv, Format::Jsonl] {
            for demo in [None, Some("14065")] {
                let mut expected = Vec::new();
                if let Some(d) = demo {
                    let mut t = table.clone();
                    t.prepend_constant("demo", d);
                    write_table(&t, format, &mut expected).unwrap();
                } else {
                    write_table(&table, format, &mut expected).unwrap();
                }
                for batch in [1, 7, 64, STREAMED_ROWS] {
                    let mut streamed = StreamedTicks::new(&query, format, demo, Vec::new());
                    streamed.batch_rows = batch;
                    let state = parse(&data, &mut streamed);
                    streamed.finish(&state).unwrap();
                    let out = streamed.into_out().unwrap();
                    assert_eq!(
                        String::from_utf8_lossy(&out),
                        String::from_utf8_lossy(&expected),
                        "{format:?}, {demo:?}, batch {batch}"
                    );
                }
            }
        }
        // The table is not empty of values: the props were read.
        table.prepend_constant("demo", "x");
        assert!(table.column("health").is_some_and(|c| !c.is_all_null()));
    }

    /// An unknown prop is found before any row is written, with the error
    /// of the query's own check (the whole table's run gives the same).
    #[test]
    fn streamed_ticks_check_props_before_writing() {
        let data = corpus("cs2/14065.dem");
        let query = ticks_query(&["X", "helth"]);
        let mut streamed = StreamedTicks::new(&query, Format::Csv, None, Vec::new());
        streamed.batch_rows = 1;
        let state = parse(&data, &mut streamed);
        let err = streamed.finish(&state).unwrap_err();
        assert!(
            matches!(&err, CliError::Table(e)
                if matches!(e.as_ref(), gamewire_query::QueryError::UnknownProp { name, closest, .. }
                    if name == "helth" && closest.contains("health"))),
            "{err}"
        );
        let whole = query.run(&data).unwrap_err();
        assert_eq!(err.to_string(), whole.to_string());
        assert!(streamed.into_out().is_some_and(|o| o.is_empty()));
    }

    /// A Parquet file's rows read back as one record batch (`None` for a
    /// file of no rows), and its row group count.
    fn read_parquet(bytes: Vec<u8>) -> (Option<arrow_array::RecordBatch>, usize) {
        use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
        let builder = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes)).unwrap();
        let groups = builder.metadata().num_row_groups();
        let rows = builder.metadata().file_metadata().num_rows();
        let reader = builder
            .with_batch_size(usize::try_from(rows).unwrap().max(1))
            .build()
            .unwrap();
        let mut batches: Vec<arrow_array::RecordBatch> = reader.map(|b| b.unwrap()).collect();
        assert!(batches.len() <= 1, "{} batches", batches.len());
        (batches.pop(), groups)
    }

    /// A column read back from Parquet as the crate's cells, with its kind
    /// (from the Arrow type [`gamewire_query::write`] gives each kind).
    fn cells_of(array: &dyn arrow_array::Array) -> (Kind, Vec<Cell>) {
        use arrow_array::{
            BooleanArray, Float32Array, Int64Array, ListArray, StringArray, UInt64Array,
        };
        let any = array.as_any();
        let at = |i: usize, cell: Cell| if array.is_null(i) { Cell::Null } else { cell };
        let n = array.len();
        if let Some(a) = any.downcast_ref::<BooleanArray>() {
            return (
                Kind::Bool,
                (0..n).map(|i| at(i, Cell::Bool(a.value(i)))).collect(),
            );
        }
        if let Some(a) = any.downcast_ref::<Int64Array>() {
            return (
                Kind::I64,
                (0..n).map(|i| at(i, Cell::Int(a.value(i)))).collect(),
            );
        }
        if let Some(a) = any.downcast_ref::<UInt64Array>() {
            return (
                Kind::U64,
                (0..n).map(|i| at(i, Cell::UInt(a.value(i)))).collect(),
            );
        }
        if let Some(a) = any.downcast_ref::<Float32Array>() {
            return (
                Kind::F32,
                (0..n).map(|i| at(i, Cell::Float(a.value(i)))).collect(),
            );
        }
        if let Some(a) = any.downcast_ref::<StringArray>() {
            return (
                Kind::Str,
                (0..n)
                    .map(|i| at(i, Cell::Str(a.value(i).to_string())))
                    .collect(),
            );
        }
        let list = any
            .downcast_ref::<ListArray>()
            .expect("a column type the writer writes");
        let (kind, _) = cells_of(list.values().as_ref());
        let kind = match kind {
            Kind::F32 => Kind::F32List,
            Kind::Str => Kind::StrList,
            _ => Kind::U64List,
        };
        let cells = (0..n)
            .map(|i| {
                let (_, items) = cells_of(list.value(i).as_ref());
                let cell = match kind {
                    Kind::F32List => Cell::Floats(
                        items
                            .iter()
                            .map(|c| if let Cell::Float(x) = c { *x } else { f32::NAN })
                            .collect(),
                    ),
                    Kind::StrList => Cell::Strs(
                        items
                            .iter()
                            .map(|c| {
                                if let Cell::Str(x) = c {
                                    x.clone()
                                } else {
                                    String::new()
                                }
                            })
                            .collect(),
                    ),
                    _ => Cell::UInts(
                        items
                            .iter()
                            .map(|c| if let Cell::UInt(x) = c { *x } else { u64::MAX })
                            .collect(),
                    ),
                };
                at(i, cell)
            })
            .collect();
        (kind, cells)
    }

    /// A Parquet file's rows as a table of the crate's cells, the kinds its
    /// Arrow types are: written as CSV, the bytes the CSV writer gives the
    /// same rows.
    fn table_of(name: &str, batch: &arrow_array::RecordBatch) -> gamewire_query::Table {
        let columns: Vec<(Kind, Vec<Cell>)> = batch
            .columns()
            .iter()
            .map(|c| cells_of(c.as_ref()))
            .collect();
        let schema: Vec<(String, Option<Kind>)> = batch
            .schema()
            .fields()
            .iter()
            .zip(&columns)
            .map(|(f, (k, _))| (f.name().clone(), Some(*k)))
            .collect();
        let rows: Vec<Vec<Cell>> = (0..batch.num_rows())
            .map(|r| columns.iter().map(|(_, c)| c[r].clone()).collect())
            .collect();
        gamewire_query::Table::from_cells_typed(name, &schema, &rows)
    }

    /// Every Source 2 demo of the corpus and the corpus broadcasts, each
    /// with its bytes.
    fn corpus_demos() -> Vec<(std::path::PathBuf, Vec<u8>)> {
        let mut demos: Vec<_> = gamewire_corpus::source2_demos()
            .unwrap()
            .into_iter()
            .map(|p| {
                let data = std::fs::read(&p).unwrap();
                (p, data)
            })
            .collect();
        let broadcasts = gamewire_corpus::path("deadlock/broadcast");
        let mut dirs: Vec<_> = std::fs::read_dir(&broadcasts)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| gamewire_query::input::is_broadcast_dir(p))
            .collect();
        dirs.sort();
        assert!(!dirs.is_empty(), "no broadcast in {}", broadcasts.display());
        for d in dirs {
            let data = gamewire_query::input::open(&d).unwrap().bytes;
            demos.push((d, data));
        }
        demos
    }

    /// The props of the `ticks` tables compared on every corpus demo: the
    /// ones each game's players have, friendly names and raw paths of the
    /// pawn (or hero) and of the controller.
    fn props_of(path: &std::path::Path) -> Vec<&'static str> {
        let p = path.to_string_lossy();
        if p.contains("cs2") {
            vec![
                "X",
                "Y",
                "health",
                "yaw",
                "m_iHealth",
                "team_name",
                "is_alive",
                "active_weapon_name",
                "inventory",
                "velocity_X",
            ]
        } else if p.contains("deadlock") {
            vec![
                "X",
                "Y",
                "Z",
                "health",
                "m_iMaxHealth",
                "m_angEyeAngles",
                "m_flSimulationTime",
                "CCitadelPlayerController.m_nHeroID",
                "player_name",
                "player_steamid",
            ]
        } else {
            vec![
                "X",
                "Y",
                "Z",
                "health",
                "m_iMaxHealth",
                "m_flMana",
                "CBodyComponent.m_angRotation",
                "CDOTAPlayerController.m_nPlayerID",
                "player_name",
                "player_steamid",
                "m_bTakesDamage",
                "m_iCurrentLevel",
            ]
        }
    }

    /// Parquet written in row groups as the parse goes reads back as the
    /// whole table's Parquet file, and as the rows of the CSV written as the
    /// parse goes, on every corpus demo (Deadlock's and Dota 2's included:
    /// their props' kinds come from their own player classes) and the
    /// corpus broadcasts; with small row groups a file has several.
    #[test]
    fn streamed_parquet_reads_back_as_the_whole_table() {
        let mut several_groups = 0;
        for (path, data) in corpus_demos() {
            let query = ticks_query(&props_of(&path));
            let table = query.run(&data).unwrap().tables.remove(0);
            let mut whole = Vec::new();
            write_table(&table, Format::Parquet, &mut whole).unwrap();
            let (expected, _) = read_parquet(whole);
            let mut csv = StreamedTicks::new(&query, Format::Csv, None, Vec::new());
            let state = parse(&data, &mut csv);
            csv.finish(&state).unwrap();
            let csv = csv.into_out().unwrap();
            for (batch, group_bytes) in [(STREAMED_ROWS, 8 << 20), (64, 4096), (1, 1)] {
                let mut streamed = StreamedTicks::new(&query, Format::Parquet, None, Vec::new());
                streamed.batch_rows = batch;
                streamed.group_bytes = group_bytes;
                let state = parse(&data, &mut streamed);
                streamed.finish(&state).unwrap();
                assert_eq!(
                    streamed.parquet,
                    ParquetMode::Streamed,
                    "{}",
                    path.display()
                );
                let (got, groups) = read_parquet(streamed.into_out().unwrap());
                assert_eq!(got, expected, "{}: batch {batch}", path.display());
                let rows = expected.as_ref().map_or(0, |b| b.num_rows());
                assert!(rows > 0, "{}: no rows", path.display());
                if group_bytes < 8 << 20 && rows > batch {
                    assert!(groups > 1, "{}: {groups} row groups", path.display());
                    several_groups += 1;
                }
                if let Some(got) = &got {
                    let mut back = Vec::new();
                    write_table(&table_of("ticks", got), Format::Csv, &mut back).unwrap();
                    assert_eq!(
                        String::from_utf8_lossy(&back),
                        String::from_utf8_lossy(&csv),
                        "{}: batch {batch}",
                        path.display()
                    );
                }
            }
            // Every prop was read on some row.
            for p in props_of(&path) {
                assert!(
                    table.column(p).is_some_and(|c| !c.is_all_null()),
                    "{}: {p} is all null",
                    path.display()
                );
            }
        }
        assert!(several_groups >= 16, "{several_groups}");
    }
}
