//! `gamewire info` and `gamewire schema`: what a demo holds
//! ([`gamewire_query::summary`]) and its serializers as a tree
//! ([`gamewire_query::schema`]).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use gamewire_query::schema::{closest_classes, write_serializer, SendTablesOnly};
use gamewire_query::summary::summary_json;
use gamewire_query::{DemoState, NoVisitor, ParseFailure};

use crate::error::CliError;
use crate::output::stdout;
use crate::read::{describe_error, read_demo, single_demo};

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
    // A demo cut short is summed up to the cut, with a warning; a parse
    // that stopped on any other error is summed up to it, and is an error.
    let (state, error, is_cut) = match single_demo().parse_located(&data, &mut NoVisitor) {
        Ok((state, cut)) => (state, cut, true),
        Err(ParseFailure::Stopped { error, state }) => (*state, Some(error), false),
        Err(ParseFailure::NotADemo(e)) => return Err(describe_error(&args.demo, e)),
        Err(e) => {
            return Err(CliError::Query {
                path: args.demo.clone(),
                source: Box::new(e.into()),
            })
        }
    };
    let json = summary_json(&state, error.as_ref());
    let mut out = stdout();
    match args.format {
        InfoFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &json)?;
            writeln!(out).map_err(CliError::Output)?;
        }
        InfoFormat::Text => write_info_text(&mut out, &json).map_err(CliError::Output)?,
    }
    out.flush().map_err(CliError::Output)?;
    match error {
        None => Ok(()),
        Some(e) if is_cut => {
            crate::read::warn_cut(&format!(
                "{}; the summary holds everything before the cut",
                describe_error(&args.demo, e)
            ));
            Ok(())
        }
        Some(e) => Err(describe_error(&args.demo, e)),
    }
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
    // A demo cut after its signon still has its send tables.
    let (state, cut) = match single_demo().parse_located(&data, &mut SendTablesOnly) {
        Ok((state, Some(e))) if state.send_tables.is_none() => {
            return Err(describe_error(&args.demo, e))
        }
        Ok(parsed) => parsed,
        Err(ParseFailure::NotADemo(e) | ParseFailure::Stopped { error: e, .. }) => {
            return Err(describe_error(&args.demo, e))
        }
        Err(e) => {
            return Err(CliError::Query {
                path: args.demo.clone(),
                source: Box::new(e.into()),
            })
        }
    };
    if let Some(e) = cut {
        crate::read::warn_cut(&format!(
            "{}; the send tables come from before the cut",
            describe_error(&args.demo, e)
        ));
    }
    let state = &state;
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

/// The error for a class name the demo does not have, with the closest names.
pub(crate) fn unknown_class(state: &DemoState, want: &str) -> CliError {
    CliError::UnknownClass {
        class: want.to_string(),
        closest: closest_classes(state, want),
    }
}
