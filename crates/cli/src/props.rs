//! `gamewire props DEMO [--class C]`: the props a demo offers
//! ([`gamewire_query::props::list_demo`]): the friendly names and raw paths
//! that `--props` accepts, each with the class it is read from, its path
//! and its column type. Only the send tables are parsed.

use std::path::PathBuf;

use clap::Args;
use gamewire_query::props::list_demo;
use gamewire_query::write::write_table;

use crate::error::CliError;
use crate::output::{refuse_binary_terminal, resolve_format, Sink, TableFormat};
use crate::read::read_demo_bytes;

/// `gamewire props`.
#[derive(Debug, Args)]
pub struct PropsArgs {
    /// The demo: a `.dem` file (also gzip, bzip2 or zstd compressed: `.dem.gz`,
    /// `.dem.bz2`, `.dem.zst`), a broadcast directory, or `-` for standard input.
    pub demo: PathBuf,
    /// Only the props read from this class (`CCSPlayerPawn`,
    /// `CCSPlayerController`, `CCSTeam`, ...): its friendly names and every
    /// raw path of its send table.
    #[arg(long)]
    pub class: Option<String>,
    /// Output format (default: the one `-o`'s extension names, else csv).
    #[arg(long, value_enum)]
    pub format: Option<TableFormat>,
    /// Write to this file instead of standard output; its extension
    /// (`.csv`, `.jsonl`, `.ndjson`, `.parquet`) picks the format.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// `gamewire props`.
pub fn props(args: PropsArgs) -> Result<(), CliError> {
    let format = resolve_format(args.format, args.output.as_deref())?;
    refuse_binary_terminal(args.output.as_deref(), format)?;
    let data = read_demo_bytes(&args.demo)?;
    let class = args.class.as_deref().map(str::trim);
    let table = list_demo(&data, class).map_err(|source| CliError::Query {
        path: args.demo.clone(),
        source: Box::new(source),
    })?;
    let mut out = Sink::create(args.output.as_deref(), format)?;
    let written = write_table(&table, format, &mut out).map_err(CliError::from);
    out.finish(written)
}
