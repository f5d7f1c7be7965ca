//! `gamewire messages`: user messages and protobuf game events decoded to
//! JSON ([`gamewire_query::messages`]).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use gamewire_query::messages::{known_message_names, MessageCollector, MessageRow};
use gamewire_query::prop_checks::closest;
use gamewire_query::table::{Cell, Kind, Table};
use gamewire_query::write::{write_table, Format};

use crate::error::CliError;
use crate::output::{refuse_binary_terminal, resolve_format, stdout, Sink, TableFormat};
use crate::read::{parse_keeping_cut, read_demo, warn_cut};

/// `gamewire messages`.
#[derive(Debug, Args)]
pub struct MessagesArgs {
    /// The demo: a `.dem` file (also gzip, bzip2 or zstd compressed: `.dem.gz`,
    /// `.dem.bz2`, `.dem.zst`), a broadcast directory, or `-` for standard input.
    pub demo: PathBuf,
    /// Only messages with this name (`CsUmServerRankUpdate`, `UmSayText2`,
    /// `GeFireBulletsId`, ...; comma-separated or repeated).
    #[arg(long, value_delimiter = ',')]
    pub name: Vec<String>,
    /// List the message names present, with counts, instead of the messages.
    #[arg(long)]
    pub list: bool,
    /// Output format (default: the one `-o`'s extension names, else csv):
    /// CSV or Parquet (`data` as a JSON string), or JSON Lines (one object
    /// per message, its fields nested under `data`).
    #[arg(long, value_enum)]
    pub format: Option<TableFormat>,
    /// Write to this file instead of standard output; its extension
    /// (`.csv`, `.jsonl`, `.ndjson`, `.parquet`) picks the format.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

pub fn messages(args: MessagesArgs) -> Result<(), CliError> {
    let names: Vec<String> = args
        .name
        .iter()
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .collect();
    if args.list && (!names.is_empty() || args.format.is_some() || args.output.is_some()) {
        return Err(CliError::Usage(
            "--list takes no other option: it prints the message names and counts",
        ));
    }
    let format = resolve_format(args.format, args.output.as_deref())?;
    refuse_binary_terminal(args.output.as_deref(), format)?;
    let data = read_demo(&args.demo)?;
    let mut collector = MessageCollector::new(&names);
    let parsed = parse_keeping_cut(&args.demo, &data, &mut collector, None)?;
    let state = parsed.state;
    let cut = parsed.cut;
    let warn = || {
        if let Some(cut) = &cut {
            warn_cut(cut);
        }
    };
    if args.list {
        let mut out = stdout();
        for (name, count) in collector.counts() {
            writeln!(out, "{name}\t{count}").map_err(CliError::Output)?;
        }
        out.flush().map_err(CliError::Output)?;
        warn();
        return Ok(());
    }
    for want in &names {
        if !collector.counts().contains_key(want) {
            let known = known_message_names(state.game, collector.counts().keys());
            if !known.contains(want) {
                let names: Vec<&str> = known.iter().map(String::as_str).collect();
                return Err(CliError::UnknownMessage {
                    message: want.clone(),
                    game: state.game,
                    closest: closest(want, &names),
                });
            }
        }
    }
    let mut out = Sink::create(args.output.as_deref(), format)?;
    let written = write_messages(collector.into_rows(), format, &mut out);
    out.finish(written)?;
    warn();
    Ok(())
}

/// The rows of `messages`: JSON Lines with each message's fields as an
/// object, or a table of five columns, its `data` as JSON text.
fn write_messages(rows: Vec<MessageRow>, format: Format, out: &mut Sink) -> Result<(), CliError> {
    if format == Format::Jsonl {
        for MessageRow {
            tick,
            id,
            name,
            kind,
            data,
        } in rows
        {
            let obj = serde_json::json!({
                "tick": tick, "id": id, "message": name, "kind": kind, "data": data,
            });
            serde_json::to_writer(&mut *out, &obj)?;
            writeln!(out).map_err(CliError::Output)?;
        }
    } else {
        let mut table = Table::with_schema(
            "messages",
            &[
                ("tick", Kind::I64),
                ("id", Kind::I64),
                ("message", Kind::Str),
                ("kind", Kind::Str),
                ("data", Kind::Str),
            ],
        );
        for MessageRow {
            tick,
            id,
            name,
            kind,
            data,
        } in rows
        {
            table.push_row(&[
                Cell::Int(i64::from(tick)),
                Cell::Int(i64::from(id)),
                Cell::Str(name),
                kind.map_or(Cell::Null, |k| Cell::Str(k.to_string())),
                Cell::Str(data.to_string()),
            ]);
        }
        write_table(&table, format, &mut *out)?;
    }
    Ok(())
}
