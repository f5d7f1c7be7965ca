//! `gamewire events`: game events as JSON Lines or CSV, from one demo or
//! several.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use gamewire_query::prop_checks::{undeclared_event, UnknownName};
use gamewire_query::raw_events::{raw_events_rows, RawEvent, RawEventsCollector};
use gamewire_query::write::write_raw_events_jsonl;
use gamewire_query::SendTableCache;

use crate::error::CliError;
use crate::many;
use crate::output::{stdout, write_rows, RowFormat};
use crate::read::{leave_to_exit, parse_keeping_cut, read_demo, with_demo};

/// `gamewire events`.
#[derive(Debug, Args)]
pub struct EventsArgs {
    /// Demo files (`.dem`, also compressed: `.dem.gz`, `.dem.bz2`, `.dem.zst`;
    /// `-` for standard input), or directories searched recursively for them
    /// and for broadcast directories. With several demos (or a directory),
    /// every row starts with a `demo` column: the file name without `.dem`.
    #[arg(required = true, value_name = "DEMO")]
    pub demos: Vec<PathBuf>,
    /// Only events with this name (repeatable).
    #[arg(long)]
    pub name: Vec<String>,
    /// List the event names present instead of the events.
    #[arg(long)]
    pub list: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RowFormat::Jsonl)]
    pub format: RowFormat,
    /// Worker threads for several demos (default: the number of cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
}

/// Fails with the closest declared names when `names` asks for an event
/// that `declared` lacks; `several`: the names were declared by several
/// demos.
fn check_event_names(names: &[String], declared: &[&str], several: bool) -> Result<(), CliError> {
    match undeclared_event(names, declared) {
        Some(UnknownName { name, closest }) => Err(CliError::UnknownEvent {
            event: name,
            closest,
            several,
        }),
        None => Ok(()),
    }
}

/// `gamewire events`.
pub fn events(args: EventsArgs) -> Result<(), CliError> {
    let names = (!args.name.is_empty()).then(|| args.name.clone());
    if many::names_several(&args.demos) {
        return events_of_many(&args, names);
    }
    let path = args.demos.first().ok_or(CliError::Usage("no demo given"))?;
    let data = read_demo(path)?;
    let mut collector = RawEventsCollector::new(names);
    let parsed = parse_keeping_cut(path, &data, &mut collector, None)?;
    let state = leave_to_exit(parsed.state);
    let mut out = stdout();
    if args.list {
        for name in collector.counts.keys() {
            writeln!(out, "{name}").map_err(CliError::Output)?;
        }
    } else {
        let declared: Vec<&str> = state.event_descriptors.names().collect();
        check_event_names(&args.name, &declared, false)?;
        let events = std::mem::take(&mut collector.events);
        if args.format == RowFormat::Jsonl {
            write_raw_events_jsonl(&mut out, leave_to_exit(events), None)
                .map_err(CliError::Output)?;
        } else {
            let table = raw_events_rows(vec![(None, events)]);
            write_rows(&mut out, leave_to_exit(table), args.format, None, true)?;
        }
    }
    out.flush().map_err(CliError::Output)?;
    if let Some(cut) = parsed.cut {
        eprintln!("warning: {cut}");
    }
    Ok(())
}

/// One demo's part of a several-demo `events`.
struct DemoEvents {
    /// The demo's dataset name (the `demo` column).
    label: String,
    /// JSON Lines, already written (`--format jsonl`).
    jsonl: Vec<u8>,
    /// The events themselves (`--format csv`: one table over all demos).
    events: Vec<RawEvent>,
    /// The names of the events seen (`--list`).
    seen: Vec<String>,
    /// The event names the demo declares.
    declared: Vec<String>,
}

fn events_of_many(args: &EventsArgs, names: Option<Vec<String>>) -> Result<(), CliError> {
    let work = |path: &Path, label: &str, cache: &Arc<SendTableCache>| {
        let mut collector = RawEventsCollector::new(names.clone());
        let parsed = with_demo(path, |data| {
            parse_keeping_cut(path, data, &mut collector, Some(cache))
        })?;
        let mut jsonl = Vec::new();
        if args.format == RowFormat::Jsonl && !args.list {
            write_raw_events_jsonl(&mut jsonl, &collector.events, Some(label))
                .map_err(CliError::Output)?;
            collector.events = Vec::new();
        }
        let demo = DemoEvents {
            label: label.to_string(),
            jsonl,
            events: collector.events,
            seen: collector.counts.into_keys().collect(),
            declared: parsed
                .state
                .event_descriptors
                .names()
                .map(String::from)
                .collect(),
        };
        Ok((demo, parsed.cut))
    };
    let mut out = stdout();
    let mut seen = std::collections::BTreeSet::new();
    let mut declared = std::collections::BTreeSet::new();
    let mut tables = Vec::new();
    let failures = many::each_demo(&args.demos, args.jobs, work, |demo| {
        out.write_all(&demo.jsonl).map_err(CliError::Output)?;
        seen.extend(demo.seen);
        declared.extend(demo.declared);
        if args.format == RowFormat::Csv && !args.list {
            tables.push((Some(demo.label), demo.events));
        }
        Ok(())
    })?;
    if args.list {
        for name in &seen {
            writeln!(out, "{name}").map_err(CliError::Output)?;
        }
    } else if args.format == RowFormat::Csv {
        write_rows(&mut out, &raw_events_rows(tables), args.format, None, true)?;
    }
    out.flush().map_err(CliError::Output)?;
    failures.every()?;
    let declared: Vec<&str> = declared.iter().map(String::as_str).collect();
    check_event_names(&args.name, &declared, true)?;
    failures.any()
}
