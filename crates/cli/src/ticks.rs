//! The `ticks` table as CSV or JSON Lines, written in batches as the parse
//! makes its rows (`gamewire ticks`, `gamewire table ticks`): a long
//! demo's rows are never all held in memory. The bytes are those of the
//! whole table written after the parse: each batch is typed and written by
//! the same writer ([`gamewire_query::write::write_table`]), the CSV
//! header once.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use gamewire_query::ticks::TicksCollector;
use gamewire_query::write::{csv_field, write_table, Format};
use gamewire_query::{DemoState, Interests, Query, SendTableCache, Visitor};

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

/// A [`TicksCollector`] whose rows are written in batches as they are made.
/// The props are checked against the send tables before the first row; the
/// first error (an unknown prop, output that cannot be written) stops the
/// writing and is kept for the end.
struct StreamedTicks<'a, W: Write> {
    collector: TicksCollector,
    query: &'a Query,
    format: Format,
    /// The `demo` column's value, with several demos.
    demo: Option<String>,
    out: W,
    header_written: bool,
    props_checked: bool,
    error: Option<CliError>,
    /// Rows held before writing them ([`STREAMED_ROWS`]).
    batch_rows: usize,
    /// A batch as written (the CSV header is cut from all but the first).
    buffer: Vec<u8>,
}

impl<'a, W: Write> StreamedTicks<'a, W> {
    fn new(query: &'a Query, format: Format, demo: Option<&str>, out: W) -> Self {
        StreamedTicks {
            collector: collector(query),
            query,
            format,
            demo: demo.map(String::from),
            out,
            header_written: false,
            props_checked: false,
            error: None,
            batch_rows: STREAMED_ROWS,
            buffer: Vec::new(),
        }
    }

    /// Writes the rows made so far as the table's writer writes them: the
    /// rows go into a collector of the same props whose `finish` types them
    /// as the whole table's are typed.
    fn write_pending(&mut self, state: &DemoState) -> Result<(), CliError> {
        if self.header_written && self.collector.rows.rows.is_empty() {
            return Ok(());
        }
        let mut batch = TicksCollector::new(&self.query.player_props, None);
        batch.rows.rows = std::mem::take(&mut self.collector.rows.rows);
        let mut table = batch.finish(state);
        if let Some(d) = &self.demo {
            table.prepend_constant("demo", d);
        }
        self.buffer.clear();
        write_table(&table, self.format, &mut self.buffer)?;
        let mut body = &self.buffer[..];
        if self.format == Format::Csv && self.header_written {
            let header: Vec<String> = table.column_names().into_iter().map(csv_field).collect();
            let header_len = header.join(",").len() + 1;
            body = body.get(header_len..).unwrap_or(&[]);
        }
        self.header_written = true;
        self.out.write_all(body).map_err(CliError::Output)
    }

    /// After the parse: checks the props if no row did, and the query's
    /// names against the demo, writes what is left (the CSV header of an
    /// empty table) and flushes.
    fn finish(&mut self, state: &DemoState) -> Result<(), CliError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.query.check_names(state)?;
        self.query.check_ticks(state.tick)?;
        self.write_pending(state)?;
        self.out.flush().map_err(CliError::Output)
    }
}

impl<W: Write> Visitor for StreamedTicks<'_, W> {
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

/// The `ticks` table of the demos `args` names, as CSV or JSON Lines, to
/// `sink`, written as the parse goes. With several demos every row starts
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
        Ok((streamed.out, parsed.cut))
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
    use gamewire_query::{RunOptions, TableKind};

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
                    assert_eq!(
                        String::from_utf8_lossy(&streamed.out),
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
        assert!(streamed.out.is_empty());
    }
}
