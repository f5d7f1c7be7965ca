//! `gamewire messages`: user messages and protobuf game events decoded to
//! JSON ([`gamewire_query::messages`]).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use gamewire_query::messages::{known_message_names, MessageCollector, MessageRow};
use gamewire_query::prop_checks::closest;
use gamewire_query::table::{Cell, Rows};

use crate::error::CliError;
use crate::output::{stdout, write_rows, RowFormat};
use crate::read::{parse_keeping_cut, read_demo};

/// `gamewire messages`.
#[derive(Debug, Args)]
pub struct MessagesArgs {
    /// The demo: a `.dem` file (also gzip, bzip2 or zstd compressed: `.dem.gz`,
    /// `.dem.bz2`, `.dem.zst`), a broadcast directory, or `-` for standard input.
    pub demo: PathBuf,
    /// Only messages with this name (`CsUmServerRankUpdate`, `UmSayText2`,
    /// `GeFireBulletsId`, ...; repeatable).
    #[arg(long)]
    pub name: Vec<String>,
    /// List the message names present, with counts, instead of the messages.
    #[arg(long)]
    pub list: bool,
    /// Output format: JSON Lines (one object per message, its fields nested
    /// under `data`) or CSV (`data` as a JSON string).
    #[arg(long, value_enum, default_value_t = RowFormat::Jsonl)]
    pub format: RowFormat,
}

pub fn messages(args: MessagesArgs) -> Result<(), CliError> {
    let data = read_demo(&args.demo)?;
    let mut collector = MessageCollector::new(&args.name);
    let parsed = parse_keeping_cut(&args.demo, &data, &mut collector, None)?;
    let state = parsed.state;
    let cut = parsed.cut;
    let warn_cut = || {
        if let Some(cut) = &cut {
            eprintln!("warning: {cut}");
        }
    };
    let mut out = stdout();
    if args.list {
        for (name, count) in collector.counts() {
            writeln!(out, "{name}\t{count}").map_err(CliError::Output)?;
        }
        out.flush().map_err(CliError::Output)?;
        warn_cut();
        return Ok(());
    }
    for want in &args.name {
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
    let rows = collector.into_rows();
    match args.format {
        RowFormat::Jsonl => {
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
                serde_json::to_writer(&mut out, &obj)?;
                writeln!(out).map_err(CliError::Output)?;
            }
        }
        RowFormat::Csv => {
            let mut table = Rows {
                columns: ["tick", "id", "message", "kind", "data"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                rows: Vec::with_capacity(rows.len()),
            };
            for MessageRow {
                tick,
                id,
                name,
                kind,
                data,
            } in rows
            {
                table.rows.push(vec![
                    Cell::Int(i64::from(tick)),
                    Cell::Int(i64::from(id)),
                    Cell::Str(name),
                    kind.map_or(Cell::Null, |k| Cell::Str(k.to_string())),
                    Cell::Str(data.to_string()),
                ]);
            }
            write_rows(&mut out, &table, RowFormat::Csv, None, true)?;
        }
    }
    out.flush().map_err(CliError::Output)?;
    warn_cut();
    Ok(())
}
