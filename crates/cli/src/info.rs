//! `gamewire info` and `gamewire schema`: what a demo holds and its
//! serializers as a tree.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use gamewire_query::prop_checks::closest;
use gamewire_source2::serializer::{FieldModel, SendTables};
use gamewire_source2::{DemoError, DemoParser, DemoState, Interests, NoVisitor, Visitor};

use crate::error::CliError;
use crate::output::stdout;
use crate::read::{describe_error, read_demo};

/// Output format of `info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InfoFormat {
    /// Readable text.
    Text,
    /// One JSON object.
    Json,
}

/// `gamewire info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The demo: a `.dem` file (also gzip, bzip2 or zstd compressed: `.dem.gz`,
    /// `.dem.bz2`, `.dem.zst`), a broadcast directory, or `-` for standard input.
    pub demo: PathBuf,
    /// Output format.
    #[arg(long, value_enum, default_value_t = InfoFormat::Text)]
    pub format: InfoFormat,
}

/// `gamewire schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The demo: a `.dem` file (also gzip, bzip2 or zstd compressed: `.dem.gz`,
    /// `.dem.bz2`, `.dem.zst`), a broadcast directory, or `-` for standard input.
    pub demo: PathBuf,
    /// Only this class (server class or serializer name).
    #[arg(long)]
    pub class: Option<String>,
}

/// `gamewire info`.
pub fn info(args: InfoArgs) -> Result<(), CliError> {
    let data = read_demo(&args.demo)?;
    // One demo per process: the helper thread would cost more than it saves.
    let mut parser = DemoParser::new(&data)
        .map_err(|e| describe_error(&args.demo, e))?
        .with_helper_thread(false);
    let result = parser.run(&mut NoVisitor);
    let state = &parser.state;
    let json = info_json(state, result.as_ref().err());
    let mut out = stdout();
    match args.format {
        InfoFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &json)?;
            writeln!(out).map_err(CliError::Output)?;
        }
        InfoFormat::Text => write_info_text(&mut out, &json).map_err(CliError::Output)?,
    }
    out.flush().map_err(CliError::Output)?;
    match result {
        Ok(()) => Ok(()),
        Err(e) => Err(describe_error(&args.demo, e)),
    }
}

fn info_json(state: &DemoState, error: Option<&DemoError>) -> serde_json::Value {
    use serde_json::json;
    let h = state.header.as_ref();
    let fi = state.file_info.as_ref();
    let tables: Vec<_> = state
        .string_tables
        .iter()
        .map(|t| json!({"name": t.name, "entries": t.entries.len()}))
        .collect();
    let classes: Vec<_> = state
        .classes
        .iter()
        .filter(|c| !c.name.is_empty())
        .map(|c| json!({"id": c.id, "name": c.name, "has_serializer": c.serializer.is_some()}))
        .collect();
    let players: Vec<_> = state.players.values().collect();
    let warnings: Vec<String> = state
        .warnings
        .iter()
        .map(|w| format!("tick {}: {}", w.tick, w.message))
        .collect();
    let unknown_messages: serde_json::Map<String, serde_json::Value> = state
        .unknown_messages
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let unknown_commands: serde_json::Map<String, serde_json::Value> = state
        .unknown_commands
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    json!({
        "map_name": state.map_name(),
        "server_name": h.and_then(|h| h.server_name.clone()),
        "client_name": h.and_then(|h| h.client_name.clone()),
        "game_directory": h.and_then(|h| h.game_directory.clone()),
        "build_num": h.and_then(|h| h.build_num),
        "network_protocol": h.and_then(|h| h.patch_version).or_else(|| state.server_info.as_ref().and_then(|s| s.protocol)),
        "demo_version_name": h.and_then(|h| h.demo_version_name.clone()),
        "playback_ticks": fi.and_then(|f| f.playback_ticks),
        "playback_frames": fi.and_then(|f| f.playback_frames),
        "playback_time": fi.and_then(|f| f.playback_time),
        "tick_interval": state.tick_interval,
        "frames": state.frames,
        "last_tick": state.tick,
        "reached_stop": state.reached_stop,
        "commands": state.command_counts,
        "messages": state.message_counts,
        "unknown_commands": unknown_commands,
        "unknown_messages": unknown_messages,
        "string_tables": tables,
        "players": players,
        "serializers": state.send_tables.as_ref().map(|t| t.serializers.len()),
        "classes": classes,
        "entities_at_end": state.entities.len(),
        "entity_updates": state.entity_updates,
        "warnings": warnings,
        "error": error.map(|e| e.to_string()),
    })
}

fn write_info_text(out: &mut impl Write, j: &serde_json::Value) -> std::io::Result<()> {
    let s = |k: &str| match &j[k] {
        serde_json::Value::Null => "-".to_string(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    writeln!(out, "map              {}", s("map_name"))?;
    writeln!(out, "server           {}", s("server_name"))?;
    writeln!(out, "client           {}", s("client_name"))?;
    writeln!(out, "game directory   {}", s("game_directory"))?;
    writeln!(out, "build            {}", s("build_num"))?;
    writeln!(out, "network protocol {}", s("network_protocol"))?;
    writeln!(
        out,
        "playback         {} ticks, {} frames, {} s",
        s("playback_ticks"),
        s("playback_frames"),
        s("playback_time")
    )?;
    writeln!(
        out,
        "read             {} frames, last tick {}, reached DEM_Stop: {}",
        s("frames"),
        s("last_tick"),
        s("reached_stop")
    )?;
    writeln!(
        out,
        "entities         {} at the end, {} updates decoded",
        s("entities_at_end"),
        s("entity_updates")
    )?;
    writeln!(out, "commands:")?;
    if let Some(m) = j["commands"].as_object() {
        for (k, v) in m {
            writeln!(out, "  {k:<28} {v}")?;
        }
    }
    writeln!(
        out,
        "unknown commands {}  unknown messages {}",
        j["unknown_commands"], j["unknown_messages"]
    )?;
    writeln!(out, "string tables:")?;
    if let Some(a) = j["string_tables"].as_array() {
        for t in a {
            writeln!(
                out,
                "  {:<28} {} entries",
                t["name"].as_str().unwrap_or(""),
                t["entries"]
            )?;
        }
    }
    writeln!(out, "players:")?;
    if let Some(a) = j["players"].as_array() {
        for p in a {
            writeln!(
                out,
                "  slot {:<3} {:<24} steamid {:<18} userid {} {}",
                p["slot"],
                p["name"].as_str().unwrap_or(""),
                p["steamid"],
                p["userid"],
                if p["fake_player"].as_bool() == Some(true) {
                    "(bot)"
                } else {
                    ""
                }
            )?;
        }
    }
    writeln!(out, "serializers      {}", s("serializers"))?;
    writeln!(
        out,
        "classes          {}",
        j["classes"].as_array().map(Vec::len).unwrap_or(0)
    )?;
    let warnings = j["warnings"].as_array().cloned().unwrap_or_default();
    writeln!(out, "warnings         {}", warnings.len())?;
    for w in warnings {
        writeln!(out, "  {}", w.as_str().unwrap_or(""))?;
    }
    if let Some(e) = j["error"].as_str() {
        writeln!(out, "error            {e}")?;
    }
    Ok(())
}

/// `gamewire schema`.
pub fn schema(args: SchemaArgs) -> Result<(), CliError> {
    let data = read_demo(&args.demo)?;
    // One demo per process: the helper thread would cost more than it saves.
    let mut parser = DemoParser::new(&data)
        .map_err(|e| describe_error(&args.demo, e))?
        .with_helper_thread(false);
    struct StopAfterSignon;
    impl Visitor for StopAfterSignon {
        fn interests(&self) -> Interests {
            Interests {
                send_tables: true,
                ..Interests::NONE
            }
        }
    }
    // A demo cut after its signon still has its send tables.
    let cut = match parser.run_keeping_cut(&mut StopAfterSignon) {
        Ok(Some(e)) if parser.state.send_tables.is_none() => {
            return Err(describe_error(&args.demo, e))
        }
        Ok(cut) => cut,
        Err(e) => return Err(describe_error(&args.demo, e)),
    };
    if let Some(e) = cut {
        eprintln!(
            "warning: {}; the send tables come from before the cut",
            describe_error(&args.demo, e)
        );
    }
    let state = &parser.state;
    let tables = state
        .send_tables
        .as_ref()
        .ok_or(CliError::Usage("the demo has no send tables"))?;
    let mut out = stdout();
    let mut printed = 0;
    for c in &state.classes {
        let Some(ser) = c.serializer else { continue };
        let ser_name = tables
            .serializer(ser)
            .map(|s| tables.symbol(s.name).to_string())
            .unwrap_or_default();
        if let Some(want) = &args.class {
            if *want != c.name && *want != ser_name {
                continue;
            }
        }
        writeln!(out, "class {} (id {}, serializer {ser_name})", c.name, c.id)
            .map_err(CliError::Output)?;
        write_serializer(&mut out, tables, ser, 1, &mut Vec::new()).map_err(CliError::Output)?;
        printed += 1;
    }
    if printed == 0 {
        if let Some(want) = &args.class {
            return Err(unknown_class(state, want));
        }
    }
    out.flush().map_err(CliError::Output)
}

fn write_serializer(
    out: &mut impl Write,
    tables: &SendTables,
    ser: u32,
    depth: usize,
    stack: &mut Vec<u32>,
) -> std::io::Result<()> {
    let Some(s) = tables.serializer(ser) else {
        return Ok(());
    };
    if stack.contains(&ser) || depth > 12 {
        return Ok(());
    }
    stack.push(ser);
    let pad = "  ".repeat(depth);
    for (i, &fi) in s.fields.iter().enumerate() {
        let Some(f) = tables.fields.get(fi as usize) else {
            continue;
        };
        let (model, decoder, child) = match &f.model {
            FieldModel::Value(d) => ("value", d.describe(), None),
            FieldModel::FixedArray { len, element } => (
                "fixed_array",
                format!("{len} x {}", element.describe()),
                None,
            ),
            FieldModel::VariableArray(d) => ("variable_array", d.describe(), None),
            FieldModel::FixedTable { serializer, poly } => (
                if poly.is_empty() {
                    "fixed_table"
                } else {
                    "polymorphic_table"
                },
                String::new(),
                Some(*serializer),
            ),
            FieldModel::VariableTable(s) => ("variable_table", String::new(), Some(*s)),
        };
        let fallback = if f.fallback { " FALLBACK" } else { "" };
        writeln!(
            out,
            "{pad}[{i}] {} : {} [{model}] {decoder}{fallback}",
            tables.symbol(f.name),
            tables.symbol(f.var_type)
        )?;
        if let Some(c) = child {
            write_serializer(out, tables, c, depth + 1, stack)?;
        }
    }
    stack.pop();
    Ok(())
}

/// The error for a class name the demo does not have, with the closest names.
pub(crate) fn unknown_class(state: &DemoState, want: &str) -> CliError {
    let names: Vec<&str> = state
        .classes
        .iter()
        .map(|c| c.name.as_str())
        .filter(|n| !n.is_empty())
        .collect();
    CliError::UnknownClass {
        class: want.to_string(),
        closest: closest(want, &names),
    }
}
