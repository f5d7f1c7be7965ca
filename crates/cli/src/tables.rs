//! Analyst tables: `gamewire table <TABLE> <demo>` and `gamewire batch`.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use clap::{Args, Subcommand, ValueEnum};
use gamewire_query::input::{self, dataset_names};
use gamewire_query::write::{write_table, Format};
use gamewire_query::{Cut, Query, QueryError, SendTableCache, TableKind};
use rayon::prelude::*;

use crate::error::CliError;

/// The analyst-table subcommands (flattened into the top-level command).
#[derive(Debug, Subcommand)]
pub enum TablesCommand {
    /// Source 2 demo (CS2): one analyst table (events, ticks, players, chat,
    /// grenades, rounds, kills, damages, purchases, user_commands, shots,
    /// bomb, smokes, infernos, flashes, footsteps, item_drops, skins,
    /// updated_fields; Dota 2: combat_log) as CSV, JSON Lines or Parquet.
    Table(TableArgs),
    /// Many demos in parallel: one dataset per table with a `demo` column.
    Batch(BatchArgs),
}

/// Runs an analyst-table subcommand.
pub fn run(cmd: TablesCommand) -> Result<(), CliError> {
    match cmd {
        TablesCommand::Table(args) => table(args),
        TablesCommand::Batch(args) => batch(args),
    }
}

/// Output format of the analyst tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    /// CSV with a header row (nulls are empty).
    Csv,
    /// JSON Lines (nulls are null).
    Jsonl,
    /// Parquet with typed nullable columns (snappy).
    Parquet,
}

impl TableFormat {
    fn format(self) -> Format {
        match self {
            TableFormat::Csv => Format::Csv,
            TableFormat::Jsonl => Format::Jsonl,
            TableFormat::Parquet => Format::Parquet,
        }
    }
}

/// Options shared by `table` and `batch`.
#[derive(Debug, Args)]
pub struct QueryArgs {
    /// Player props for `events` (`<p>_<prop>` columns) and `ticks`
    /// (comma-separated or repeated): friendly names (`health`, `X`,
    /// `balance`, ...) or raw `CCSPlayerPawn.<path>` / `CCSPlayerController.<path>`.
    #[arg(long, value_delimiter = ',')]
    pub props: Vec<String>,
    /// Game-wide props for `events` (comma-separated or repeated): game
    /// rules (`total_rounds_played`, `is_bomb_planted`, `game_time`, ...),
    /// team props as `t_`/`ct_` columns (`team_rounds_total` gives both,
    /// `ct_team_name` one), or raw `CCSGameRulesProxy.m_pGameRules.<field>`.
    #[arg(long, value_delimiter = ',')]
    pub other: Vec<String>,
    /// `events`: only events with this name (repeatable).
    #[arg(long)]
    pub name: Vec<String>,
    /// `ticks`: only these ticks (comma-separated or repeated).
    #[arg(long, value_delimiter = ',')]
    pub ticks: Vec<i32>,
    /// `grenades`: raw props of the projectile entity, one column each
    /// (comma-separated or repeated: `m_nBounces`, `m_vInitialVelocity`).
    #[arg(long, value_delimiter = ',')]
    pub grenade_props: Vec<String>,
}

impl QueryArgs {
    fn query(&self, tables: Vec<TableKind>) -> Query {
        Query {
            tables,
            events: (!self.name.is_empty()).then(|| self.name.clone()),
            player_props: self.props.clone(),
            other_props: self.other.clone(),
            ticks: (!self.ticks.is_empty())
                .then(|| gamewire_query::TickSet::from_ticks(self.ticks.clone())),
            players: None,
            humans_only: false,
            grenade_props: self.grenade_props.clone(),
            decode_every_class: false,
            // A cut demo (a truncated file, a cut broadcast fragment) keeps
            // its rows up to the cut; the cut is a warning.
            options: crate::read::single_demo(),
        }
    }
}

/// `gamewire table`.
#[derive(Debug, Args)]
pub struct TableArgs {
    /// The table: events, ticks, players, chat, grenades, rounds, kills,
    /// damages, purchases, user_commands, shots, bomb, smokes, infernos,
    /// flashes, footsteps, item_drops, skins, combat_log (Dota 2),
    /// updated_fields (the props the demo sends, by name).
    pub table: String,
    /// The demo: a `.dem` file (also gzip, bzip2 or zstd compressed: `.dem.gz`,
    /// `.dem.bz2`, `.dem.zst`), a broadcast directory, or `-` for standard input.
    pub demo: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Csv)]
    pub format: TableFormat,
    /// Write to this file instead of standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub query: QueryArgs,
}

/// `gamewire table`.
pub fn table(args: TableArgs) -> Result<(), CliError> {
    let kind: TableKind = args.table.parse()?;
    let query = args.query.query(vec![kind]);
    let failed = |source: QueryError| CliError::Query {
        path: args.demo.clone(),
        source: Box::new(source),
    };
    let demo = input::open(&args.demo).map_err(|e| failed(e.into()))?;
    let run = query.run_input(&demo).map_err(failed)?;
    drop(demo);
    let table = run
        .tables
        .into_iter()
        .next()
        .ok_or_else(|| CliError::NotProduced {
            path: args.demo.clone(),
            table: kind.name(),
        })?;
    let format = args.format.format();
    let written = match &args.output {
        Some(path) => {
            let file = File::create(path).map_err(|source| CliError::Create {
                path: path.clone(),
                source,
            })?;
            write_table(&table, format, BufWriter::new(file)).map_err(CliError::from)
        }
        None => {
            if format == Format::Parquet && std::io::stdout().is_terminal() {
                return Err(CliError::Usage(
                    "parquet is binary: give -o FILE or redirect standard output",
                ));
            }
            let out = std::io::stdout();
            write_table(&table, format, BufWriter::new(out)).map_err(CliError::from)
        }
    };
    if let Some(cut) = &run.cut {
        eprintln!("warning: {}", cut_message(&args.demo, cut));
    }
    written
}

/// The warning for a demo cut short: where (the input's cut when both the
/// input and the demo in it were cut), and that its rows are kept.
fn cut_message(path: &Path, cut: &Cut) -> String {
    format!(
        "{}: {}; the output holds everything before the cut",
        path.display(),
        cut.first()
    )
}

/// `gamewire batch`.
#[derive(Debug, Args)]
pub struct BatchArgs {
    /// Demo files (`.dem`, also compressed: `.dem.gz`, `.dem.bz2`,
    /// `.dem.zst`), or directories searched recursively for them and for
    /// broadcast directories (a `sync.json` and its fragments: one demo
    /// each). A demo cut short (a truncated file, a cut fragment) keeps its
    /// tables up to the cut, with a warning.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Tables, comma-separated (events, ticks, players, chat, grenades,
    /// rounds, kills, damages, purchases, user_commands, shots, bomb,
    /// smokes, infernos, flashes, footsteps, item_drops, skins, combat_log,
    /// updated_fields).
    #[arg(long, default_value = "kills,rounds")]
    pub tables: String,
    /// Output directory: one dataset directory per table,
    /// `<out>/<table>/<demo>.<ext>`, every file with a `demo` column.
    #[arg(long)]
    pub out: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Parquet)]
    pub format: TableFormat,
    /// Worker threads (default: the number of cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub query: QueryArgs,
}

/// Parses one demo (file or broadcast directory) and writes its tables;
/// returns the bytes parsed, and the cut of a demo cut short (whose tables
/// hold everything before it).
fn one_demo(
    query: &Query,
    path: &Path,
    name: &str,
    out: &Path,
    format: Format,
) -> Result<(u64, Option<Cut>), CliError> {
    let demo = input::open(path).map_err(QueryError::from)?;
    let run = query.run_input(&demo)?;
    let size = demo.bytes.len() as u64;
    drop(demo);
    for mut t in run.tables {
        t.prepend_constant("demo", name);
        let file = out
            .join(&t.name)
            .join(format!("{name}.{}", format.extension()));
        let f = File::create(&file).map_err(|source| CliError::Create { path: file, source })?;
        write_table(&t, format, BufWriter::new(f))?;
    }
    Ok((size, run.cut))
}

/// `gamewire batch`.
pub fn batch(args: BatchArgs) -> Result<(), CliError> {
    let kinds = TableKind::parse_list(&args.tables)?;
    if kinds.is_empty() {
        return Err(CliError::Usage("--tables names no table"));
    }
    let demos = crate::many::find_demos(&args.inputs)?;
    if demos.is_empty() {
        return Err(CliError::NoDemos);
    }
    let names = dataset_names(&demos);
    for k in &kinds {
        let dir = args.out.join(k.name());
        std::fs::create_dir_all(&dir).map_err(|source| CliError::Create { path: dir, source })?;
    }
    let threads = args.jobs.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| CliError::Threads { threads, source })?;
    let bar = crate::many::demo_progress(demos.len());
    let bytes = AtomicU64::new(0);
    let format = args.format.format();
    let start = Instant::now();
    // Demos of one game build share their send tables: built once.
    let query = args
        .query
        .query(kinds.clone())
        .with_send_table_cache(Arc::new(SendTableCache::default()));
    let report = |line: String| crate::many::report(&bar, line);
    // Per demo: Ok(true) when it was cut short (its rows before the cut
    // are kept and it counts as done), Ok(false) when read to its end.
    let results: Vec<Result<bool, CliError>> = pool.install(|| {
        demos
            .par_iter()
            .zip(names.par_iter())
            .map(|(path, name)| {
                let r = one_demo(&query, path, name, &args.out, format);
                bar.inc(1);
                match r {
                    Ok((size, cut)) => {
                        bytes.fetch_add(size, Ordering::Relaxed);
                        if let Some(cut) = &cut {
                            report(format!("warning: {}", cut_message(path, cut)));
                        }
                        Ok(cut.is_some())
                    }
                    Err(e) => {
                        report(format!("skipped {}: {e}", path.display()));
                        Err(e)
                    }
                }
            })
            .collect()
    });
    bar.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    let ok = results.iter().filter(|r| r.is_ok()).count();
    let cut = results.iter().filter(|r| matches!(r, Ok(true))).count();
    let failed = results.len() - ok;
    let mb = bytes.load(Ordering::Relaxed) as f64 / 1e6;
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "{ok} demos ok ({cut} cut short), {failed} failed; {mb:.1} MB parsed in {secs:.2} s ({:.1} MB/s); tables {} in {}",
        if secs > 0.0 { mb / secs } else { 0.0 },
        kinds.iter().map(|k| k.name()).collect::<Vec<_>>().join(","),
        args.out.display()
    );
    if ok == 0 {
        return Err(CliError::EveryDemoFailed(failed));
    }
    Ok(())
}
