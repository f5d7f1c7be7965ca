//! `gamewire ticks`: one row per player per tick with the props asked for,
//! written in batches as the parse goes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use gamewire_query::prop_checks::{unknown_player_prop, UnknownName};
use gamewire_query::ticks::TicksCollector;
use gamewire_query::write::RowWriter;
use gamewire_query::{DemoState, Interests, SendTableCache, Visitor};

use crate::error::CliError;
use crate::many;
use crate::output::{row_writer, stdout, RowFormat};
use crate::read::{leave_to_exit, parse_keeping_cut, read_demo, with_demo};

/// `gamewire ticks`.
#[derive(Debug, Args)]
pub struct TicksArgs {
    /// Demo files (`.dem`, also compressed: `.dem.gz`, `.dem.bz2`, `.dem.zst`;
    /// `-` for standard input), or directories searched recursively for them
    /// and for broadcast directories. With several demos (or a directory),
    /// every row starts with a `demo` column: the file name without `.dem`.
    #[arg(required = true, value_name = "DEMO")]
    pub demos: Vec<PathBuf>,
    /// Comma-separated props: demoparser2's names (X, Y, Z, health,
    /// armor_value, team_num, pitch, yaw, is_alive, balance,
    /// active_weapon_name, inventory, velocity, FIRE, usercmd_viewangle_y,
    /// agent_skin, team_name, total_rounds_played, ...) or raw prop paths.
    #[arg(long, value_delimiter = ',', required = true)]
    pub props: Vec<String>,
    /// Only these ticks (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub ticks: Vec<i32>,
    /// Only these players (comma-separated steam ids).
    #[arg(long, value_delimiter = ',')]
    pub players: Vec<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RowFormat::Csv)]
    pub format: RowFormat,
    /// Worker threads for several demos (default: the number of cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
}

/// Rows a [`StreamedTicks`] holds before writing them.
const STREAMED_ROWS: usize = 4096;

/// A [`TicksCollector`] whose rows are written in batches as they are made: a
/// long demo's rows are never all held in memory. The props are checked against
/// the send tables before the first row; the first error (an unknown prop,
/// output that cannot be written) stops the writing and is kept for the end.
struct StreamedTicks<'a, W: Write> {
    collector: TicksCollector,
    props: &'a [String],
    writer: RowWriter,
    out: W,
    header_written: bool,
    props_checked: bool,
    error: Option<CliError>,
    /// Rows held before writing them ([`STREAMED_ROWS`]).
    batch_rows: usize,
}

impl<'a, W: Write> StreamedTicks<'a, W> {
    #[cfg(test)]
    fn new(
        props: &'a [String],
        ticks: Option<Vec<i32>>,
        format: RowFormat,
        demo: Option<&str>,
        out: W,
    ) -> Self {
        let ticks = ticks.map(gamewire_query::TickSet::from_ticks);
        StreamedTicks::with_collector(props, TicksCollector::new(props, ticks), format, demo, out)
    }

    fn with_collector(
        props: &'a [String],
        collector: TicksCollector,
        format: RowFormat,
        demo: Option<&str>,
        out: W,
    ) -> Self {
        let writer = row_writer(&collector.rows.columns, format, demo);
        StreamedTicks {
            collector,
            props,
            writer,
            out,
            header_written: false,
            props_checked: false,
            error: None,
            batch_rows: STREAMED_ROWS,
        }
    }

    fn write_pending(&mut self) -> Result<(), CliError> {
        if !self.header_written {
            self.writer
                .header(&mut self.out)
                .map_err(CliError::Output)?;
            self.header_written = true;
        }
        self.writer
            .rows(&mut self.out, &self.collector.rows.rows)
            .map_err(CliError::Output)?;
        self.collector.rows.rows.clear();
        Ok(())
    }

    /// After the parse: checks the props if no row did, writes what is left
    /// (the CSV header of an empty table) and flushes.
    fn finish(&mut self, state: &DemoState) -> Result<(), CliError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if !self.props_checked {
            check_props(state, self.props)?;
        }
        self.write_pending()?;
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
            if let Err(e) = check_props(state, self.props) {
                self.error = Some(e);
                return;
            }
            self.props_checked = true;
        }
        self.collector.on_packet_entities(state);
        // Rows go out in batches: memory stays bounded on a long demo, and a
        // short one is written in one go after the parse (measured: writing
        // every tick's rows at once made a clip's `ticks` 1-3% slower).
        if self.collector.rows.rows.len() >= self.batch_rows {
            if let Err(e) = self.write_pending() {
                self.error = Some(e);
            }
        }
    }
}

/// The collector of `gamewire ticks`: its props, ticks and players.
fn ticks_collector(args: &TicksArgs, ticks: Option<Vec<i32>>) -> TicksCollector {
    TicksCollector::new(&args.props, ticks.map(gamewire_query::TickSet::from_ticks))
        .with_players((!args.players.is_empty()).then(|| args.players.clone()))
}

/// `gamewire ticks`.
pub fn ticks(args: TicksArgs) -> Result<(), CliError> {
    let ticks = (!args.ticks.is_empty()).then(|| args.ticks.clone());
    if many::names_several(&args.demos) {
        return ticks_of_many(&args, ticks);
    }
    let path = args.demos.first().ok_or(CliError::Usage("no demo given"))?;
    let data = read_demo(path)?;
    let mut streamed = StreamedTicks::with_collector(
        &args.props,
        ticks_collector(&args, ticks),
        args.format,
        None,
        stdout(),
    );
    let parsed = parse_keeping_cut(path, &data, &mut streamed, None)?;
    let state = leave_to_exit(parsed.state);
    streamed.finish(state)?;
    // As `leave_to_exit`: the process ends next, so its caches are not
    // freed piece by piece (the output is flushed).
    std::mem::forget(streamed);
    if let Some(cut) = parsed.cut {
        eprintln!("warning: {cut}");
    }
    Ok(())
}

fn ticks_of_many(args: &TicksArgs, ticks: Option<Vec<i32>>) -> Result<(), CliError> {
    // Each demo's rows are written by its worker, with a CSV header that
    // only the first demo written keeps (the columns are the props asked
    // for, the same for every demo).
    let work = |path: &Path, label: &str, cache: &Arc<SendTableCache>| {
        let mut streamed = StreamedTicks::with_collector(
            &args.props,
            ticks_collector(args, ticks.clone()),
            args.format,
            Some(label),
            Vec::new(),
        );
        let parsed = with_demo(path, |data| {
            parse_keeping_cut(path, data, &mut streamed, Some(cache))
        })?;
        streamed
            .finish(&parsed.state)
            .map_err(|e| CliError::InDemo {
                path: path.to_path_buf(),
                source: Box::new(e),
            })?;
        Ok((streamed.out, parsed.cut))
    };
    let mut out = stdout();
    let mut header_written = false;
    let failures = many::each_demo(&args.demos, args.jobs, work, |rows: Vec<u8>| {
        let mut body = &rows[..];
        if args.format == RowFormat::Csv {
            if header_written {
                let line_end = body.iter().position(|&b| b == b'\n');
                body = line_end.and_then(|n| body.get(n + 1..)).unwrap_or(&[]);
            }
            header_written = true;
        }
        out.write_all(body).map_err(CliError::Output)
    })?;
    out.flush().map_err(CliError::Output)?;
    failures.every()?;
    failures.any()
}

/// Fails with the closest names when a prop is unknown: not a friendly name
/// (player, team or game-wide, see [`gamewire_query::prop_checks::player_prop_names`])
/// and not a raw path of the pawn, controller, team or game rules. A friendly
/// name whose field this game build lacks reads as null.
fn check_props(state: &DemoState, props: &[String]) -> Result<(), CliError> {
    match unknown_player_prop(state, props) {
        Some(UnknownName { name, closest }) => Err(CliError::UnknownProp {
            prop: name,
            closest,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::output::write_rows;
    use gamewire_query::RunOptions;

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

    /// Rows written in batches of any size are the bytes of the whole table
    /// written after the parse.
    #[test]
    fn streamed_ticks_equal_the_whole_table() {
        let data = corpus("cs2/14065.dem");
        let props: Vec<String> = ["X", "Y", "health", "yaw", "m_iHealth"]
            .map(String::from)
            .to_vec();
        for format in [RowFormat::Csv, RowFormat::Jsonl] {
            for demo in [None, Some("14065")] {
                let mut whole = TicksCollector::new(&props, None);
                parse(&data, &mut whole);
                assert!(whole.rows.rows.len() > 100);
                let mut expected = Vec::new();
                write_rows(&mut expected, &whole.rows, format, demo, true).unwrap();
                for batch in [1, 7, 64, STREAMED_ROWS] {
                    let mut streamed = StreamedTicks::new(&props, None, format, demo, Vec::new());
                    streamed.batch_rows = batch;
                    let state = parse(&data, &mut streamed);
                    streamed.finish(&state).unwrap();
                    assert_eq!(
                        streamed.out, expected,
                        "{format:?}, {demo:?}, batch {batch}"
                    );
                }
            }
        }
    }

    /// An unknown prop is found before any row is written.
    #[test]
    fn streamed_ticks_check_props_before_writing() {
        let data = corpus("cs2/14065.dem");
        let props: Vec<String> = ["X", "helth"].map(String::from).to_vec();
        let mut streamed = StreamedTicks::new(&props, None, RowFormat::Csv, None, Vec::new());
        streamed.batch_rows = 1;
        let state = parse(&data, &mut streamed);
        let err = streamed.finish(&state).unwrap_err();
        assert!(
            matches!(&err, CliError::UnknownProp { prop, closest }
                if prop == "helth" && closest.iter().any(|n| n == "health")),
            "{err}"
        );
        assert!(streamed.out.is_empty());
    }
}
