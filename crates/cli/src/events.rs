//! `gamewire events` is `gamewire table events` (the same table, options,
//! formats and inputs), plus `--list`: the names of the events a demo
//! holds.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use clap::Args;
use gamewire_query::raw_events::RawEventsCollector;
use gamewire_query::{SendTableCache, TableKind};

use crate::error::CliError;
use crate::many;
use crate::output::stdout;
use crate::read::{parse_keeping_cut, read_demo, warn_cut, with_demo};
use crate::tables::{write_one_table, RowArgs};

/// `gamewire events`.
#[derive(Debug, Args)]
pub struct EventsArgs {
    /// List the names of the events the demos hold, one a line, instead of
    /// the events.
    #[arg(long)]
    pub list: bool,
    #[command(flatten)]
    pub rows: RowArgs,
}

/// `gamewire events`.
pub fn events(args: EventsArgs) -> Result<(), CliError> {
    if !args.list {
        return write_one_table(TableKind::Events, &args.rows);
    }
    if !args.rows.query.is_empty() || args.rows.format.is_some() || args.rows.output.is_some() {
        return Err(CliError::Usage(
            "--list takes no other option: it prints the event names, one a line",
        ));
    }
    list(&args.rows)
}

/// `--list`: the names of the events present, in name order.
fn list(args: &crate::tables::RowArgs) -> Result<(), CliError> {
    let mut out = stdout();
    if !many::names_several(&args.demos) {
        let path = args.demos.first().ok_or(CliError::Usage("no demo given"))?;
        let data = read_demo(path)?;
        let mut collector = RawEventsCollector::new(None);
        let parsed = parse_keeping_cut(path, &data, &mut collector, None)?;
        for name in collector.counts.keys() {
            writeln!(out, "{name}").map_err(CliError::Output)?;
        }
        out.flush().map_err(CliError::Output)?;
        if let Some(cut) = parsed.cut {
            warn_cut(&cut);
        }
        return Ok(());
    }
    let work = |path: &Path, _label: &str, cache: &Arc<SendTableCache>| {
        let mut collector = RawEventsCollector::new(None);
        let parsed = with_demo(path, |data| {
            parse_keeping_cut(path, data, &mut collector, Some(cache))
        })?;
        let seen: Vec<String> = collector.counts.into_keys().collect();
        Ok((seen, parsed.cut))
    };
    let mut seen = std::collections::BTreeSet::new();
    let failures = many::each_demo(&args.demos, args.jobs, work, |names| {
        seen.extend(names);
        Ok(())
    })?;
    for name in &seen {
        writeln!(out, "{name}").map_err(CliError::Output)?;
    }
    out.flush().map_err(CliError::Output)?;
    failures.every()?;
    failures.any()
}
