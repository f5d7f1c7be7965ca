//! `gamewire stats`: one full parse of a demo, and what it held
//! ([`gamewire_query::stats`] counts; this module prints).

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};
use gamewire_query::stats::{EntityCounts, Stats, StatsCollector};

use crate::error::CliError;
use crate::output::stdout;
use crate::read::{leave_to_exit, parse_keeping_cut, read_demo, warn_cut};

/// Output format of `stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatsFormat {
    /// Short aligned sections.
    Text,
    /// One JSON object (keys in docs/reference.md, "stats").
    Json,
}

/// `gamewire stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// The demo: a `.dem` file (also gzip, bzip2 or zstd compressed: `.dem.gz`,
    /// `.dem.bz2`, `.dem.zst`), a broadcast directory, or `-` for standard input.
    pub demo: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = StatsFormat::Text)]
    pub format: StatsFormat,
}

/// `gamewire stats`: decodes everything and prints the counts. A demo cut
/// short is counted up to the cut, with a warning.
pub fn stats(args: StatsArgs) -> Result<(), CliError> {
    let start = Instant::now();
    let data = read_demo(&args.demo)?;
    let mut collector = StatsCollector::new();
    let parsed = parse_keeping_cut(&args.demo, &data, &mut collector, None)?;
    let elapsed = start.elapsed();
    // The process ends next: the state is left to its exit, not freed.
    let state = leave_to_exit(parsed.state);
    let stats = collector.finish(state, data.bytes_read(), elapsed, parsed.cut.clone());
    let mut out = stdout();
    match args.format {
        StatsFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &stats)?;
            writeln!(out).map_err(CliError::Output)?;
        }
        StatsFormat::Text => write_text(&mut out, &args.demo, &stats).map_err(CliError::Output)?,
    }
    out.flush().map_err(CliError::Output)?;
    std::mem::forget(data);
    if let Some(cut) = &parsed.cut {
        warn_cut(cut);
    }
    Ok(())
}

/// A section of names and counts, names padded to the longest.
fn counts_section<'a>(
    out: &mut impl Write,
    title: &str,
    rows: impl Iterator<Item = (&'a String, &'a u64)> + Clone,
) -> std::io::Result<()> {
    let total: u64 = rows.clone().map(|(_, n)| n).sum();
    writeln!(out, "\n{title} ({total})")?;
    let width = rows.clone().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (name, n) in rows {
        writeln!(out, "  {name:<width$}  {n:>10}")?;
    }
    Ok(())
}

fn entity_line(
    out: &mut impl Write,
    name: &str,
    width: usize,
    c: &EntityCounts,
) -> std::io::Result<()> {
    writeln!(
        out,
        "  {name:<width$}  {:>9} {:>10} {:>9} {:>9} {:>12}",
        c.created, c.updated, c.left_pvs, c.deleted, c.fields
    )
}

/// The text form: a header of totals, then one section per kind of count.
fn write_text(out: &mut impl Write, demo: &std::path::Path, s: &Stats) -> std::io::Result<()> {
    let or_dash = |v: Option<i32>| v.map_or_else(|| "-".to_string(), |t| t.to_string());
    writeln!(out, "demo            {}", demo.display())?;
    writeln!(
        out,
        "game            {} ({})",
        s.game,
        s.map.as_deref().unwrap_or("no map")
    )?;
    writeln!(
        out,
        "read            {} bytes in {:.3} s ({:.1} MB/s)",
        s.bytes, s.seconds, s.mb_per_s
    )?;
    writeln!(
        out,
        "frames          {} (reached DEM_Stop: {})",
        s.frames, s.reached_stop
    )?;
    writeln!(
        out,
        "ticks           {} (first {}, last {})",
        s.ticks.count,
        or_dash(s.ticks.first),
        or_dash(s.ticks.last)
    )?;
    let e = &s.entities;
    writeln!(
        out,
        "entities        {} created, {} updated, {} left the PVS, {} deleted; {} fields decoded",
        e.created, e.updated, e.left_pvs, e.deleted, e.fields
    )?;
    writeln!(
        out,
        "events          {} game events, {} user messages, {} net messages, {} user commands",
        s.game_event_total(),
        s.user_message_total(),
        s.net_message_total(),
        s.user_commands
    )?;
    if let Some(cut) = &s.cut {
        writeln!(out, "cut             {cut}")?;
    }
    let width = s
        .classes
        .keys()
        .map(String::len)
        .max()
        .unwrap_or(0)
        .max("class".len());
    writeln!(out, "\nclasses ({})", s.classes.len())?;
    writeln!(
        out,
        "  {:<width$}  {:>9} {:>10} {:>9} {:>9} {:>12}",
        "class", "created", "updated", "left_pvs", "deleted", "fields"
    )?;
    for (name, c) in &s.classes {
        entity_line(out, name, width, c)?;
    }
    counts_section(out, "game events", s.game_events.iter())?;
    counts_section(out, "user messages", s.user_messages.iter())?;
    counts_section(out, "net messages", s.net_messages.iter())?;
    counts_section(out, "demo commands", s.commands.iter())?;
    let width = s
        .string_tables
        .keys()
        .map(String::len)
        .max()
        .unwrap_or(0)
        .max("table".len());
    writeln!(out, "\nstring tables ({})", s.string_tables.len())?;
    writeln!(
        out,
        "  {:<width$}  {:>9} {:>9} {:>9}",
        "table", "entries", "updates", "changed"
    )?;
    for (name, t) in &s.string_tables {
        writeln!(
            out,
            "  {name:<width$}  {:>9} {:>9} {:>9}",
            t.entries, t.updates, t.changed
        )?;
    }
    Ok(())
}
