//! Analyst tables: `gamewire table <TABLE> <DEMO>...` (and its two
//! shorthands, `gamewire events` = `table events` and `gamewire ticks` =
//! `table ticks`), and `gamewire batch`.
//!
//! Every table is computed by one implementation, [`gamewire_query::Query`],
//! whatever command asks for it: the same columns, options, formats and
//! inputs. `ticks` is written in batches as the parse makes its rows
//! ([`crate::ticks`]): as CSV or JSON Lines byte for byte what the whole
//! table gives, as Parquet in row groups holding its values.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, Subcommand};
use gamewire_query::write::{write_table, Format};
use gamewire_query::{Cut, Query, QueryError, SendTableCache, Table, TableKind, TickSet};

use crate::error::CliError;
use crate::many;
use crate::output::{refuse_binary_terminal, resolve_format, Sink, TableFormat};
use crate::read::{warn_cut, with_demo};

/// The analyst-table subcommands (flattened into the top-level command).
#[derive(Debug, Subcommand)]
pub enum TablesCommand {
    /// Source 2 demos: one analyst table (events, ticks, players, chat,
    /// grenades, rounds, kills, damages, purchases, user_commands, shots,
    /// bomb, smokes, infernos, flashes, footsteps, item_drops, skins,
    /// updated_fields, header; Dota 2: combat_log) as CSV, JSON Lines or
    /// Parquet.
    Table(TableArgs),
    /// Many demos in parallel: one dataset per table with a `demo` column.
    Batch(crate::batch::BatchArgs),
    /// Source 2 demo: its ticks again and again as one long demo (`--times
    /// K` repeats, or `--minutes M`), each repeat starting from the full
    /// state at its first tick, ticks rising throughout.
    Loop(crate::edit::LoopArgs),
}

/// Runs an analyst-table subcommand.
pub fn run(cmd: TablesCommand) -> Result<(), CliError> {
    match cmd {
        TablesCommand::Table(args) => table(args),
        TablesCommand::Batch(args) => crate::batch::batch(args),
        TablesCommand::Loop(args) => crate::edit::loop_demo(args),
    }
}

/// The options of a query, shared by `table`, `events`, `ticks` and
/// `batch`. An option that no table asked for uses is an error.
#[derive(Debug, Args, Default)]
pub struct QueryArgs {
    /// `events` and `ticks`: player props (comma-separated or repeated):
    /// friendly names (`health`, `X`, `balance`, ...) or raw paths
    /// (`CCSPlayerPawn.m_iHealth`); `gamewire props DEMO` lists them. In
    /// `events` each player key gets `<p>_<prop>` columns.
    #[arg(long, value_delimiter = ',')]
    pub props: Vec<String>,
    /// `events`: game-wide props (comma-separated or repeated): game
    /// rules (`total_rounds_played`, `is_bomb_planted`, `game_time`, ...),
    /// team props as `t_`/`ct_` columns (`team_rounds_total` gives both,
    /// `ct_team_name` one), or raw `CCSGameRulesProxy.m_pGameRules.<field>`.
    #[arg(long, value_delimiter = ',')]
    pub other: Vec<String>,
    /// `events`: only events with this name (comma-separated or repeated).
    #[arg(long, value_delimiter = ',')]
    pub name: Vec<String>,
    /// `ticks`: only these ticks: `5`, `100..200` (inclusive), or a list
    /// (`5, 100..200`; repeatable).
    #[arg(long)]
    pub ticks: Vec<String>,
    /// `ticks`: only these players (steam ids, comma-separated or
    /// repeated).
    #[arg(long, value_delimiter = ',')]
    pub players: Vec<String>,
    /// `ticks`: only human players (no bots).
    #[arg(long)]
    pub humans_only: bool,
    /// `grenades`: raw props of the projectile entity, one column each
    /// (comma-separated or repeated: `m_nBounces`, `m_vInitialVelocity`).
    #[arg(long, value_delimiter = ',')]
    pub grenade_props: Vec<String>,
}

/// The items of a list option: trimmed, empty ones dropped (`"X, Y"` is
/// `X` and `Y`).
fn trimmed(items: &[String]) -> Vec<String> {
    items
        .iter()
        .map(|s| s.trim())
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

impl QueryArgs {
    /// Whether no query option was given.
    pub(crate) fn is_empty(&self) -> bool {
        trimmed(&self.props).is_empty()
            && trimmed(&self.other).is_empty()
            && trimmed(&self.name).is_empty()
            && trimmed(&self.ticks).is_empty()
            && trimmed(&self.players).is_empty()
            && !self.humans_only
            && trimmed(&self.grenade_props).is_empty()
    }

    /// The query for these tables; a malformed value, or an option that
    /// none of the tables uses, is a usage error.
    pub(crate) fn query(&self, tables: Vec<TableKind>) -> Result<Query, CliError> {
        let names = trimmed(&self.name);
        let ticks = trimmed(&self.ticks);
        let players = trimmed(&self.players)
            .iter()
            .map(|p| {
                p.parse::<u64>()
                    .map_err(|_| CliError::UsageText(format!("--players: {p:?} is not a steam id")))
            })
            .collect::<Result<Vec<u64>, CliError>>()?;
        let query = Query {
            tables,
            events: (!names.is_empty()).then_some(names),
            player_props: trimmed(&self.props),
            other_props: trimmed(&self.other),
            ticks: if ticks.is_empty() {
                None
            } else {
                Some(TickSet::parse(&ticks.join(","))?)
            },
            players: (!players.is_empty()).then_some(players),
            humans_only: self.humans_only,
            grenade_props: trimmed(&self.grenade_props),
            decode_every_class: false,
            // A cut demo (a truncated file, a cut broadcast fragment) keeps
            // its rows up to the cut; the cut is a warning.
            options: crate::read::single_demo(),
        };
        check_options_used(&query)?;
        if query.tables.contains(&TableKind::Ticks) && query.player_props.is_empty() {
            return Err(CliError::Usage(
                "the ticks table needs --props (`gamewire props DEMO` lists them)",
            ));
        }
        Ok(query)
    }
}

/// The command line's name of a [`Query`] option.
fn option_flag(option: &str) -> &'static str {
    match option {
        "props" => "--props",
        "other" => "--other",
        "events" => "--name",
        "ticks" => "--ticks",
        "players" => "--players",
        "humans_only" => "--humans-only",
        "grenade_props" => "--grenade-props",
        _ => "an option",
    }
}

/// [`Query::validate`], its error in the command line's words: an option
/// that no asked table uses names the tables that use it.
fn check_options_used(q: &Query) -> Result<(), CliError> {
    match q.validate() {
        Ok(()) => Ok(()),
        Err(QueryError::OptionNotUsed { option, tables }) => Err(CliError::UsageText(format!(
            "{} is not used by the table{} asked for ({}); it is an option of {tables}",
            option_flag(option),
            if q.tables.len() == 1 { "" } else { "s" },
            q.tables
                .iter()
                .map(|k| k.name())
                .collect::<Vec<_>>()
                .join(", "),
        ))),
        Err(e) => Err(e.into()),
    }
}

/// The demos and the output of a command that writes one table: `table`,
/// `events`, `ticks`.
#[derive(Debug, Args)]
pub struct RowArgs {
    /// Demo files (`.dem`, also compressed: `.dem.gz`, `.dem.bz2`,
    /// `.dem.zst`; `-` for standard input), broadcast directories, or
    /// directories searched recursively for both. With several demos (or a
    /// directory), every row starts with a `demo` column: the file name
    /// without `.dem`.
    #[arg(required = true, value_name = "DEMO")]
    pub demos: Vec<PathBuf>,
    /// Output format (default: the one `-o`'s extension names, else csv).
    #[arg(long, value_enum)]
    pub format: Option<TableFormat>,
    /// Write to this file instead of standard output; its extension
    /// (`.csv`, `.jsonl`, `.ndjson`, `.parquet`) picks the format.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Worker threads for several demos (default: the number of cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    /// Read one demo while it is written (a `.dem` that grows, or `-`) and
    /// write the rows as they arrive, flushed after each read (CSV or JSON
    /// Lines); tables complete only at the end (rounds, players, ...) come
    /// when the demo ends. Stops at the demo's end, or after
    /// `--idle-timeout` seconds without new bytes.
    #[arg(long)]
    pub follow: bool,
    #[command(flatten)]
    pub query: QueryArgs,
}

/// `gamewire table`.
#[derive(Debug, Args)]
pub struct TableArgs {
    /// The table: events, ticks, players, chat, grenades, rounds, kills,
    /// damages, purchases, user_commands, shots, bomb, smokes, infernos,
    /// flashes, footsteps, item_drops, skins, combat_log (Dota 2),
    /// updated_fields (the props the demo sends, by name), header (one row
    /// per demo: map, tick rate, build, duration, players, ...).
    pub table: String,
    #[command(flatten)]
    pub rows: RowArgs,
}

/// `gamewire table`.
pub fn table(args: TableArgs) -> Result<(), CliError> {
    let kind: TableKind = args.table.trim().parse()?;
    write_one_table(kind, &args.rows)
}

/// Writes one table of the demos `args` names: one run of the query per
/// demo, every row of several demos after a `demo` column. `ticks` is
/// streamed ([`crate::ticks::stream`]: as CSV or JSON Lines, and as
/// Parquet in row groups from one demo), and so is `user_commands` of one
/// demo ([`crate::user_commands::stream`]); `events` of one demo waits in
/// a temporary file ([`write_events`]); any other table is written whole.
pub(crate) fn write_one_table(kind: TableKind, args: &RowArgs) -> Result<(), CliError> {
    let query = args.query.query(vec![kind])?;
    let format = resolve_format(args.format, args.output.as_deref())?;
    refuse_binary_terminal(args.output.as_deref(), format)?;
    if args.follow {
        return crate::follow::write_followed(kind, &query, args, format);
    }
    // `ticks` streams: CSV and JSON Lines of any number of demos, Parquet
    // of one (several demos' Parquet is one table whose columns are the
    // union of theirs, known only at the end).
    let several = many::names_several(&args.demos);
    if kind == TableKind::Ticks && (format != Format::Parquet || !several) {
        let mut sink = Sink::create(args.output.as_deref(), format)?;
        let result = crate::ticks::stream(&query, args, format, &mut sink);
        return sink.finish(result);
    }
    // `user_commands` of one demo streams too: a row per command of every
    // player is the largest table of a match.
    if kind == TableKind::UserCommands && !several {
        let mut sink = Sink::create(args.output.as_deref(), format)?;
        let result = crate::user_commands::stream(&query, args, format, &mut sink);
        return sink.finish(result);
    }
    if several {
        return tables_of_many(kind, &query, args, format);
    }
    // `events` of one demo keeps its rows in a temporary file beside the
    // output until the demo is parsed: its columns are known only then.
    if kind == TableKind::Events {
        return write_events(&query, args, format);
    }
    let path = args.demos.first().ok_or(CliError::Usage("no demo given"))?;
    let failed = |source: QueryError| CliError::Query {
        path: path.clone(),
        source: Box::new(source),
    };
    let mut demo = crate::read::open_source(path).map_err(|e| failed(e.into()))?;
    let run = query.run_source(&mut demo).map_err(failed)?;
    drop(demo);
    let table = run
        .tables
        .into_iter()
        .next()
        .ok_or_else(|| CliError::NotProduced {
            path: path.clone(),
            table: kind.name(),
        })?;
    // The output is opened once the table is made: a demo that fails
    // leaves no empty `-o` file.
    let mut sink = Sink::create(args.output.as_deref(), format)?;
    let written = write_table(&table, format, &mut sink).map_err(CliError::from);
    sink.finish(written)?;
    if let Some(cut) = &run.cut {
        warn_cut(&cut_message(path, cut));
    }
    Ok(())
}

/// The `events` table of the one demo `args` names: the rows wait in a
/// temporary file in the output's folder (the system's temporary folder
/// for standard output) while the demo is parsed
/// ([`Query::run_events_spooled`]), and are written once it is, the bytes
/// the whole table gives.
fn write_events(query: &Query, args: &RowArgs, format: Format) -> Result<(), CliError> {
    let path = args.demos.first().ok_or(CliError::Usage("no demo given"))?;
    let failed = |source: QueryError| CliError::Query {
        path: path.clone(),
        source: Box::new(source),
    };
    let spool_dir = args.output.as_deref().map(|o| match o.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    });
    let mut demo = crate::read::open_source(path).map_err(|e| failed(e.into()))?;
    let run = query
        .run_events_spooled(&mut demo, spool_dir.as_deref())
        .map_err(failed)?;
    drop(demo);
    let table = run.tables.ok_or_else(|| CliError::NotProduced {
        path: path.clone(),
        table: TableKind::Events.name(),
    })?;
    // The output is opened once the rows are in: a demo that fails leaves
    // no empty `-o` file.
    let mut sink = Sink::create(args.output.as_deref(), format)?;
    let written = table
        .write(format, spool_dir.as_deref(), &mut sink)
        .map(drop)
        .map_err(CliError::from);
    sink.finish(written)?;
    if let Some(cut) = &run.cut {
        warn_cut(&cut_message(path, cut));
    }
    Ok(())
}

/// One table over several demos: each demo's rows after a `demo` column,
/// in the order the demos were found, as one table (the union of the
/// demos' columns).
fn tables_of_many(
    kind: TableKind,
    query: &Query,
    args: &RowArgs,
    format: Format,
) -> Result<(), CliError> {
    let work = |path: &Path, label: &str, cache: &Arc<SendTableCache>| {
        let q = query.clone().with_send_table_cache(Arc::clone(cache));
        let run = with_demo(path, |data| {
            q.run(data).map_err(|source| CliError::Query {
                path: path.to_path_buf(),
                source: Box::new(source),
            })
        })?;
        let mut table = run
            .tables
            .into_iter()
            .next()
            .ok_or_else(|| CliError::NotProduced {
                path: path.to_path_buf(),
                table: kind.name(),
            })?;
        table.prepend_constant("demo", label);
        Ok((table, run.cut.map(|c| cut_message(path, &c))))
    };
    let mut all: Option<Table> = None;
    let failures = many::each_demo(&args.demos, args.jobs, work, |t: Table| {
        match &mut all {
            Some(a) => a.append(t),
            None => all = Some(t),
        }
        Ok(())
    })?;
    failures.every()?;
    let mut sink = Sink::create(args.output.as_deref(), format)?;
    let written = match &all {
        Some(t) => write_table(t, format, &mut sink).map_err(CliError::from),
        None => Ok(()),
    };
    sink.finish(written)?;
    failures.any()
}

/// The warning for a demo cut short: where (both cuts when the input and
/// the demo in it were cut), and that its rows are kept.
pub(crate) fn cut_message(path: &Path, cut: &Cut) -> String {
    format!(
        "{}: {cut}; the output holds everything before the cut",
        path.display()
    )
}

/// The exit status of a batch (of tables or of anonymized demos) from
/// each demo's result: success when every demo went through (or some
/// failed and `--keep-going` was given while others went through);
/// otherwise an error counting the failures, a usage error when every
/// failure was one.
pub(crate) fn batch_outcome<T>(
    results: &[Result<T, CliError>],
    skipped: usize,
    keep_going: bool,
) -> Result<(), CliError> {
    let ok = results.iter().filter(|r| r.is_ok()).count();
    let failed = results.len() - ok;
    if failed > 0 && (ok + skipped == 0 || !keep_going) {
        let usage = results
            .iter()
            .all(|r| r.as_ref().err().is_none_or(|e| e.exit_code() == 2));
        if ok + skipped == 0 {
            return Err(CliError::EveryDemoFailed { failed, usage });
        }
        return Err(CliError::SomeDemosFailed {
            failed,
            total: results.len() + skipped,
        });
    }
    Ok(())
}
