//! `gamewire messages`: user messages and protobuf game events decoded to
//! JSON.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use gamewire_query::prop_checks::closest;
use gamewire_query::table::{Cell, Rows};
use gamewire_source2::{DemoState, Interests, Visitor};

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

/// Collects user messages and protobuf game events, decoded to JSON.
#[derive(Default)]
struct MessageCollector {
    names: Option<Vec<String>>,
    counts: std::collections::BTreeMap<String, u64>,
    rows: Vec<(i32, u32, String, Option<&'static str>, serde_json::Value)>,
}

impl Visitor for MessageCollector {
    fn interests(&self) -> Interests {
        Interests {
            user_messages: true,
            ..Interests::NONE
        }
    }

    fn on_user_message(&mut self, state: &DemoState, message: &gamewire_source2::UserMessage<'_>) {
        let name = message.name();
        *self.counts.entry(name.clone()).or_default() += 1;
        if self.names.as_ref().is_some_and(|n| !n.contains(&name)) {
            return;
        }
        let data = match message.to_json() {
            Some(Ok(v)) => v,
            Some(Err(e)) => serde_json::json!({ "error": e.to_string() }),
            None => serde_json::json!({ "undecoded_bytes": message.payload.len() }),
        };
        self.rows.push((
            state.tick,
            message.id,
            name,
            message.kind().map(kind_name),
            data,
        ));
    }
}

fn kind_name(kind: gamewire_source2::MessageKind) -> &'static str {
    match kind {
        gamewire_source2::MessageKind::UserMessage => "user_message",
        gamewire_source2::MessageKind::GameEvent => "game_event",
        gamewire_source2::MessageKind::TempEntity => "temp_entity",
    }
}

pub fn messages(args: MessagesArgs) -> Result<(), CliError> {
    let data = read_demo(&args.demo)?;
    let mut collector = MessageCollector {
        names: (!args.name.is_empty()).then(|| args.name.clone()),
        ..MessageCollector::default()
    };
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
        for (name, count) in &collector.counts {
            writeln!(out, "{name}\t{count}").map_err(CliError::Output)?;
        }
        out.flush().map_err(CliError::Output)?;
        warn_cut();
        return Ok(());
    }
    for want in &args.name {
        if !collector.counts.contains_key(want) {
            let known: Vec<String> = gamewire_source2::messages::message_types(state.game)
                .into_iter()
                .map(|(_, _, name, _)| name.to_string())
                .chain(collector.counts.keys().cloned())
                .collect();
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
    match args.format {
        RowFormat::Jsonl => {
            for (tick, id, name, kind, data) in collector.rows {
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
                rows: Vec::with_capacity(collector.rows.len()),
            };
            for (tick, id, name, kind, data) in collector.rows {
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
