//! Source 2 demo subcommands: `info`, `schema`, `events`, `entities`, `ticks`.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::{Args, ValueEnum};
use gamewire_query::input::{self, InputCut, InputError};
use gamewire_query::raw_events::{raw_events_rows, RawEvent, RawEventsCollector};
use gamewire_query::table::{Cell, Rows};
use gamewire_query::ticks::TicksCollector;
use gamewire_query::write::{write_raw_events_jsonl, RowWriter};
use gamewire_source2::serializer::{FieldModel, SendTables};
use gamewire_source2::{
    DemoError, DemoParser, DemoState, Entity, EntityChange, FieldPath, Interests, NoVisitor,
    SendTableCache, Visitor,
};

use crate::error::CliError;
use crate::many;

/// Output format of `info`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InfoFormat {
    /// Readable text.
    Text,
    /// One JSON object.
    Json,
}

/// Output format of row tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RowFormat {
    /// JSON Lines: one object per row.
    Jsonl,
    /// CSV with a header row.
    Csv,
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

/// `gamewire entities`.
#[derive(Debug, Args)]
pub struct EntitiesArgs {
    /// The demo: a `.dem` file (also gzip, bzip2 or zstd compressed: `.dem.gz`,
    /// `.dem.bz2`, `.dem.zst`), a broadcast directory, or `-` for standard input.
    pub demo: PathBuf,
    /// The tick at which to print the state (the end of that tick).
    #[arg(long)]
    pub tick: i32,
    /// Only entities of this class.
    #[arg(long)]
    pub class: Option<String>,
}

/// `gamewire ticks`.
#[derive(Debug, Args)]
pub struct TicksArgs {
    /// Demo files (`.dem`, also compressed: `.dem.gz`, `.dem.bz2`, `.dem.zst`;
    /// `-` for standard input), or directories searched recursively for them
    /// and for broadcast directories. With several demos (or a directory),
    /// every row starts with a `demo` column: the file name without `.dem`.
    #[arg(required = true, value_name = "DEMO")]
    pub demos: Vec<PathBuf>,
    /// Comma-separated props: demoparser2's names (X, Y, Z, health,
    /// armor_value, team_num, pitch, yaw, is_alive, balance,
    /// active_weapon_name, inventory, velocity, FIRE, usercmd_viewangle_y,
    /// agent_skin, team_name, total_rounds_played, ...) or raw prop paths.
    #[arg(long, value_delimiter = ',', required = true)]
    pub props: Vec<String>,
    /// Only these ticks (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub ticks: Vec<i32>,
    /// Only these players (comma-separated steam ids).
    #[arg(long, value_delimiter = ',')]
    pub players: Vec<u64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RowFormat::Csv)]
    pub format: RowFormat,
    /// Worker threads for several demos (default: the number of cores).
    #[arg(short = 'j', long)]
    pub jobs: Option<usize>,
}

/// Reads a demo through the input stage ([`gamewire_query::input`]): a
/// `.dem` file (gzip, bzip2 or zstd compressed too), standard input for the
/// path `-`, or a broadcast directory. A cut broadcast fragment or
/// compressed stream is reported on standard error; everything before it
/// is still parsed.
pub(crate) fn read_demo(path: &Path) -> Result<Vec<u8>, CliError> {
    let input = input::open(path).map_err(|source| input_error(path, source))?;
    warn_read_cut(path, input.cut.as_ref());
    Ok(input.bytes)
}

fn input_error(path: &Path, source: InputError) -> CliError {
    CliError::Input {
        path: path.to_path_buf(),
        source: Box::new(source),
    }
}

/// Reports a cut met while reading (a broadcast fragment, a compressed
/// stream).
fn warn_read_cut(path: &Path, cut: Option<&InputCut>) {
    if let Some(e) = cut {
        eprintln!("warning: {}: {e}; parsing what came before", path.display());
    }
}

/// [`read_demo`] for a worker that reads demo after demo: the file goes
/// into a buffer the thread keeps for its next demo
/// ([`input::open_into`]), and `f` gets the bytes. A new buffer per demo
/// would be fresh memory the kernel faults in page by page (a buffer this
/// large is its own mapping, unmapped when freed); the kept one is already
/// mapped. It keeps the size of the thread's largest demo.
pub(crate) fn with_demo<T>(
    path: &Path,
    f: impl FnOnce(&[u8]) -> Result<T, CliError>,
) -> Result<T, CliError> {
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with(|buffer| {
        let input = input::open_into(path, buffer.take()).map_err(|e| input_error(path, e))?;
        warn_read_cut(path, input.cut.as_ref());
        let result = f(&input.bytes);
        buffer.replace(input.bytes);
        result
    })
}

fn describe_error(path: &Path, e: DemoError) -> CliError {
    CliError::Demo {
        path: path.to_path_buf(),
        source: Box::new(e),
    }
}

/// A parse that may have ended at a cut.
struct Parsed {
    state: DemoState,
    /// When the demo ended early: the cut, located, to report as a warning.
    /// Everything before it was parsed and is kept.
    cut: Option<String>,
    /// The tick of the frame at the cut: earlier ticks are complete.
    cut_tick: i32,
}

/// The parser without the library's helper thread: the command line parses
/// one demo per process (or, for `batch`, takes send tables from a shared
/// cache), where starting the thread costs more than the send tables it
/// builds on the side save (a `ticks` process on a CS2 clip took 0.2-0.5 ms
/// longer with it).
fn one_thread(parser: DemoParser<'_>) -> DemoParser<'_> {
    parser.with_helper_thread(false)
}

/// Parses with a visitor (sharing `cache`'s send tables when given). A
/// truncated demo is not an error: the visitor keeps everything before the
/// cut, and the cut comes back in [`Parsed::cut`]. Any other parse error is.
fn parse_keeping_cut<V: Visitor>(
    path: &Path,
    data: &[u8],
    visitor: &mut V,
    cache: Option<&Arc<SendTableCache>>,
) -> Result<Parsed, CliError> {
    let mut parser = one_thread(DemoParser::new(data).map_err(|e| describe_error(path, e))?);
    if let Some(cache) = cache {
        parser = parser.with_send_table_cache(Arc::clone(cache));
    }
    match parser.run_keeping_cut(visitor) {
        Ok(None) => Ok(Parsed {
            state: parser.state,
            cut: None,
            cut_tick: i32::MAX,
        }),
        Ok(Some(e)) => {
            let cut = format!(
                "{}: {e}; the output holds everything before the cut (parsed up to tick {})",
                path.display(),
                parser.state.tick
            );
            Ok(Parsed {
                state: parser.state,
                cut: Some(cut),
                cut_tick: e.location.tick,
            })
        }
        Err(e) => Err(CliError::Parse {
            path: path.to_path_buf(),
            source: Box::new(e),
            tick: parser.state.tick,
        }),
    }
}

fn stdout() -> BufWriter<std::io::StdoutLock<'static>> {
    BufWriter::new(std::io::stdout().lock())
}

fn io_err(e: std::io::Error) -> String {
    CliError::Output(e).to_string()
}

/// `gamewire info`.
pub fn info(args: InfoArgs) -> Result<(), CliError> {
    let data = read_demo(&args.demo)?;
    let mut parser = one_thread(DemoParser::new(&data).map_err(|e| describe_error(&args.demo, e))?);
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
    let mut parser = one_thread(DemoParser::new(&data).map_err(|e| describe_error(&args.demo, e))?);
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
            return Err(CliError::NotInDemo(unknown_class(state, want)));
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
fn unknown_class(state: &DemoState, want: &str) -> String {
    let names: Vec<&str> = state
        .classes
        .iter()
        .map(|c| c.name.as_str())
        .filter(|n| !n.is_empty())
        .collect();
    format!(
        "no class named {want:?}; closest: {}",
        closest(want, &names).join(", ")
    )
}

/// The names closest to a wrong name (edit distance), at most five.
pub use gamewire_query::prop_checks::closest;

/// The writer of a row table in a format; with a demo name, every row
/// starts with a `demo` column holding it.
fn row_writer(columns: &[String], format: RowFormat, demo: Option<&str>) -> RowWriter {
    match format {
        RowFormat::Jsonl => RowWriter::jsonl(columns, demo),
        RowFormat::Csv => RowWriter::csv(columns, demo),
    }
}

/// Writes a table's rows; with `demo`, every row starts with a `demo`
/// column holding it. `header`: the CSV header line (JSON Lines has none).
fn write_rows(
    out: &mut impl Write,
    table: &Rows,
    format: RowFormat,
    demo: Option<&str>,
    header: bool,
) -> Result<(), String> {
    row_writer(&table.columns, format, demo)
        .write(out, table, header)
        .map_err(io_err)
}

/// Rows a [`StreamedTicks`] holds before writing them.
const STREAMED_ROWS: usize = 4096;

/// A [`TicksCollector`] whose rows are written in batches as they are made: a
/// long demo's rows are never all held in memory. The props are checked against
/// the send tables before the first row; the first error (an unknown prop,
/// output that cannot be written) stops the writing and is kept for the end.
struct StreamedTicks<'a, W: Write> {
    collector: TicksCollector,
    props: &'a [String],
    writer: RowWriter,
    out: W,
    header_written: bool,
    props_checked: bool,
    error: Option<String>,
    /// Rows held before writing them ([`STREAMED_ROWS`]).
    batch_rows: usize,
}

impl<'a, W: Write> StreamedTicks<'a, W> {
    #[cfg(test)]
    fn new(
        props: &'a [String],
        ticks: Option<Vec<i32>>,
        format: RowFormat,
        demo: Option<&str>,
        out: W,
    ) -> Self {
        StreamedTicks::with_collector(props, TicksCollector::new(props, ticks), format, demo, out)
    }

    fn with_collector(
        props: &'a [String],
        collector: TicksCollector,
        format: RowFormat,
        demo: Option<&str>,
        out: W,
    ) -> Self {
        let writer = row_writer(&collector.rows.columns, format, demo);
        StreamedTicks {
            collector,
            props,
            writer,
            out,
            header_written: false,
            props_checked: false,
            error: None,
            batch_rows: STREAMED_ROWS,
        }
    }

    fn write_pending(&mut self) -> Result<(), String> {
        if !self.header_written {
            self.writer.header(&mut self.out).map_err(io_err)?;
            self.header_written = true;
        }
        self.writer
            .rows(&mut self.out, &self.collector.rows.rows)
            .map_err(io_err)?;
        self.collector.rows.rows.clear();
        Ok(())
    }

    /// After the parse: checks the props if no row did, writes what is left
    /// (the CSV header of an empty table) and flushes.
    fn finish(&mut self, state: &DemoState) -> Result<(), String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if !self.props_checked {
            check_props(state, self.props)?;
        }
        self.write_pending()?;
        self.out.flush().map_err(io_err)
    }
}

impl<W: Write> Visitor for StreamedTicks<'_, W> {
    fn interests(&self) -> Interests {
        self.collector.interests()
    }

    fn wants_class(&self, class_name: &str) -> bool {
        self.collector.wants_class(class_name)
    }

    fn wants_string_table(&self, name: &str) -> bool {
        self.collector.wants_string_table(name)
    }

    fn on_packet_entities(&mut self, state: &DemoState) {
        if self.error.is_some() {
            return;
        }
        if !self.props_checked && state.send_tables.is_some() {
            if let Err(e) = check_props(state, self.props) {
                self.error = Some(e);
                return;
            }
            self.props_checked = true;
        }
        self.collector.on_packet_entities(state);
        // Rows go out in batches: memory stays bounded on a long demo, and a
        // short one is written in one go after the parse (measured: writing
        // every tick's rows at once made a clip's `ticks` 1-3% slower).
        if self.collector.rows.rows.len() >= self.batch_rows {
            if let Err(e) = self.write_pending() {
                self.error = Some(e);
            }
        }
    }
}

/// Fails with the closest declared names when `names` asks for an event
/// that `declared` lacks; `missing` starts the message ("the demo
/// declares no event", "no demo declares the event").
fn check_event_names(names: &[String], declared: &[&str], missing: &str) -> Result<(), String> {
    match names.iter().find(|want| !declared.contains(&want.as_str())) {
        Some(want) => Err(format!(
            "{missing} {want:?}; closest: {}",
            closest(want, declared).join(", ")
        )),
        None => Ok(()),
    }
}

/// `gamewire events`.
pub fn events(args: EventsArgs) -> Result<(), String> {
    let names = (!args.name.is_empty()).then(|| args.name.clone());
    if many::names_several(&args.demos) {
        return events_of_many(&args, names);
    }
    let path = args.demos.first().ok_or("no demo given")?;
    let data = read_demo(path)?;
    let mut collector = RawEventsCollector::new(names);
    let parsed = parse_keeping_cut(path, &data, &mut collector, None)?;
    let state = leave_to_exit(parsed.state);
    let mut out = stdout();
    if args.list {
        for name in collector.counts.keys() {
            writeln!(out, "{name}").map_err(io_err)?;
        }
    } else {
        let declared: Vec<&str> = state.event_descriptors.names().collect();
        check_event_names(&args.name, &declared, "the demo declares no event")?;
        let events = std::mem::take(&mut collector.events);
        if args.format == RowFormat::Jsonl {
            write_raw_events_jsonl(&mut out, leave_to_exit(events), None).map_err(io_err)?;
        } else {
            let table = raw_events_rows(vec![(None, events)]);
            write_rows(&mut out, leave_to_exit(table), args.format, None, true)?;
        }
    }
    out.flush().map_err(io_err)?;
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

fn events_of_many(args: &EventsArgs, names: Option<Vec<String>>) -> Result<(), String> {
    let work = |path: &Path, label: &str, cache: &Arc<SendTableCache>| {
        let mut collector = RawEventsCollector::new(names.clone());
        let parsed = with_demo(path, |data| {
            parse_keeping_cut(path, data, &mut collector, Some(cache))
        })?;
        let mut jsonl = Vec::new();
        if args.format == RowFormat::Jsonl && !args.list {
            write_raw_events_jsonl(&mut jsonl, &collector.events, Some(label)).map_err(io_err)?;
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
        out.write_all(&demo.jsonl).map_err(io_err)?;
        seen.extend(demo.seen);
        declared.extend(demo.declared);
        if args.format == RowFormat::Csv && !args.list {
            tables.push((Some(demo.label), demo.events));
        }
        Ok(())
    })?;
    if args.list {
        for name in &seen {
            writeln!(out, "{name}").map_err(io_err)?;
        }
    } else if args.format == RowFormat::Csv {
        write_rows(&mut out, &raw_events_rows(tables), args.format, None, true)?;
    }
    out.flush().map_err(io_err)?;
    failures.every()?;
    let declared: Vec<&str> = declared.iter().map(String::as_str).collect();
    check_event_names(&args.name, &declared, "no demo declares the event")?;
    failures.any()
}

/// The collector of `gamewire ticks`: its props, ticks and players.
fn ticks_collector(args: &TicksArgs, ticks: Option<Vec<i32>>) -> TicksCollector {
    TicksCollector::new(&args.props, ticks)
        .with_players((!args.players.is_empty()).then(|| args.players.clone()))
}

/// `gamewire ticks`.
pub fn ticks(args: TicksArgs) -> Result<(), String> {
    let ticks = (!args.ticks.is_empty()).then(|| args.ticks.clone());
    if many::names_several(&args.demos) {
        return ticks_of_many(&args, ticks);
    }
    let path = args.demos.first().ok_or("no demo given")?;
    let data = read_demo(path)?;
    let mut streamed = StreamedTicks::with_collector(
        &args.props,
        ticks_collector(&args, ticks),
        args.format,
        None,
        stdout(),
    );
    let parsed = parse_keeping_cut(path, &data, &mut streamed, None)?;
    let state = leave_to_exit(parsed.state);
    streamed.finish(state)?;
    // As `leave_to_exit`: the process ends next, so its caches are not
    // freed piece by piece (the output is flushed).
    std::mem::forget(streamed);
    if let Some(cut) = parsed.cut {
        eprintln!("warning: {cut}");
    }
    Ok(())
}

fn ticks_of_many(args: &TicksArgs, ticks: Option<Vec<i32>>) -> Result<(), String> {
    // Each demo's rows are written by its worker, with a CSV header that
    // only the first demo written keeps (the columns are the props asked
    // for, the same for every demo).
    let work = |path: &Path, label: &str, cache: &Arc<SendTableCache>| {
        let mut streamed = StreamedTicks::with_collector(
            &args.props,
            ticks_collector(args, ticks.clone()),
            args.format,
            Some(label),
            Vec::new(),
        );
        let parsed = with_demo(path, |data| {
            parse_keeping_cut(path, data, &mut streamed, Some(cache))
        })?;
        streamed
            .finish(&parsed.state)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok((streamed.out, parsed.cut))
    };
    let mut out = stdout();
    let mut header_written = false;
    let failures = many::each_demo(&args.demos, args.jobs, work, |rows: Vec<u8>| {
        let mut body = &rows[..];
        if args.format == RowFormat::Csv {
            if header_written {
                let line_end = body.iter().position(|&b| b == b'\n');
                body = line_end.and_then(|n| body.get(n + 1..)).unwrap_or(&[]);
            }
            header_written = true;
        }
        Ok(out.write_all(body).map_err(io_err)?)
    })?;
    out.flush().map_err(io_err)?;
    failures.every()?;
    failures.any()
}

/// Leaves a large value for the process exit to reclaim: the command is
/// done with it and the process ends next, so freeing its thousands of
/// allocations one by one would only add time (about 4% of a `ticks` run).
fn leave_to_exit<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

/// Fails with the closest names when a prop is unknown: not a friendly name
/// (player, team or game-wide, see [`gamewire_query::prop_checks::player_prop_names`])
/// and not a raw path of the pawn, controller, team or game rules. A friendly
/// name whose field this game build lacks reads as null.
fn check_props(state: &DemoState, props: &[String]) -> Result<(), String> {
    use gamewire_query::prop_checks::{player_prop_known, player_prop_names};
    let Some(tables) = state.send_tables.as_ref() else {
        return Ok(());
    };
    for p in props {
        if player_prop_known(state, p) {
            continue;
        }
        let mut names: Vec<String> = player_prop_names().iter().map(|n| n.to_string()).collect();
        for class in ["CCSPlayerPawn", "CCSPlayerController"] {
            if let Some(ser) = tables.by_name(class).and_then(|s| tables.serializer(s)) {
                for &f in &ser.fields {
                    if let Some(f) = tables.fields.get(f as usize) {
                        names.push(tables.symbol(f.name).to_string());
                    }
                }
            }
        }
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        return Err(format!(
            "unknown prop {p:?}; closest: {}",
            closest(p, &refs).join(", ")
        ));
    }
    Ok(())
}

/// Captures the entity state at the end of a tick.
struct Snapshot {
    tick: i32,
    class: Option<String>,
    lines: Vec<String>,
    done: bool,
    /// The tick whose end the snapshot was taken at.
    taken_at: i32,
}

impl Visitor for Snapshot {
    fn interests(&self) -> Interests {
        Interests {
            entities: true,
            ..Interests::NONE
        }
    }
    /// With `--class`, the other classes are read past, not decoded.
    fn wants_class(&self, class_name: &str) -> bool {
        self.class.as_deref().is_none_or(|want| want == class_name)
    }
    fn on_tick_end(&mut self, state: &DemoState, tick: i32) {
        if self.done || tick < self.tick {
            return;
        }
        self.done = true;
        self.taken_at = tick;
        let Some(tables) = state.send_tables.as_ref() else {
            return;
        };
        for e in state.entities.iter() {
            let class = state.class_name(e);
            if let Some(want) = &self.class {
                if want != class {
                    continue;
                }
            }
            let mut obj = serde_json::Map::new();
            obj.insert("index".into(), e.index.into());
            obj.insert("class".into(), class.into());
            obj.insert("serial".into(), e.serial.into());
            obj.insert("active".into(), e.active.into());
            let mut props: Vec<(String, serde_json::Value)> = e
                .values()
                .into_iter()
                .filter_map(|(k, v)| {
                    let fp: FieldPath = gamewire_source2::entity::key_to_path(k);
                    let name = tables.path_name(e.serializer, &fp, |len| {
                        fp.prefix_key(len)
                            .and_then(|k| e.get_key(k))
                            .and_then(|v| v.as_u64())
                            .map(|v| v as u32)
                    })?;
                    Some((
                        name,
                        serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
                    ))
                })
                .collect();
            props.sort_by(|a, b| a.0.cmp(&b.0));
            obj.insert(
                "props".into(),
                serde_json::Value::Object(props.into_iter().collect()),
            );
            self.lines.push(serde_json::Value::Object(obj).to_string());
        }
    }
    fn on_entity(&mut self, _s: &DemoState, _c: EntityChange, _e: &Entity, _p: &[FieldPath]) {}
}

/// `gamewire entities`.
pub fn entities(args: EntitiesArgs) -> Result<(), CliError> {
    let data = read_demo(&args.demo)?;
    let mut snap = Snapshot {
        tick: args.tick,
        class: args.class.clone(),
        lines: Vec::new(),
        done: false,
        taken_at: 0,
    };
    let parsed = parse_keeping_cut(&args.demo, &data, &mut snap, None)?;
    let state = parsed.state;
    if let Some(cut) = &parsed.cut {
        // The tick being read at the cut is incomplete: no snapshot of it.
        if !snap.done || snap.taken_at >= parsed.cut_tick {
            return Err(CliError::NotInDemo(format!(
                "tick {} is not complete in this demo, which is cut short: {cut}",
                args.tick
            )));
        }
    }
    if !snap.done {
        return Err(CliError::NotInDemo(format!(
            "tick {} is after the last tick ({})",
            args.tick, state.tick
        )));
    }
    if let Some(want) = &args.class {
        if !state.classes.iter().any(|c| c.name == *want) {
            return Err(CliError::NotInDemo(unknown_class(&state, want)));
        }
    }
    let mut out = stdout();
    for l in &snap.lines {
        writeln!(out, "{l}").map_err(CliError::Output)?;
    }
    out.flush().map_err(CliError::Output)?;
    if let Some(cut) = parsed.cut {
        eprintln!("warning: {cut}");
    }
    Ok(())
}

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
            Some(Err(e)) => serde_json::json!({ "error": e }),
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
                return Err(CliError::NotInDemo(format!(
                    "no message is called {want:?} in {:?} demos; closest: {}",
                    state.game,
                    closest(want, &names).join(", ")
                )));
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn corpus(rel: &str) -> Vec<u8> {
        let path = gamewire_corpus::path(rel);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Rows written in batches of any size are the bytes of the whole table
    /// written after the parse.
    #[test]
    fn streamed_ticks_equal_the_whole_table() {
        let data = corpus("cs2/14065.dem");
        let props: Vec<String> = ["X", "Y", "health", "yaw", "m_iHealth"]
            .map(String::from)
            .to_vec();
        for format in [RowFormat::Csv, RowFormat::Jsonl] {
            for demo in [None, Some("14065")] {
                let mut whole = TicksCollector::new(&props, None);
                let mut parser = DemoParser::new(&data).unwrap();
                parser.run(&mut whole).unwrap();
                assert!(whole.rows.rows.len() > 100);
                let mut expected = Vec::new();
                write_rows(&mut expected, &whole.rows, format, demo, true).unwrap();
                for batch in [1, 7, 64, STREAMED_ROWS] {
                    let mut streamed = StreamedTicks::new(&props, None, format, demo, Vec::new());
                    streamed.batch_rows = batch;
                    let mut parser = DemoParser::new(&data).unwrap();
                    parser.run(&mut streamed).unwrap();
                    streamed.finish(&parser.state).unwrap();
                    assert_eq!(
                        streamed.out, expected,
                        "{format:?}, {demo:?}, batch {batch}"
                    );
                }
            }
        }
    }

    /// An unknown prop is found before any row is written.
    #[test]
    fn streamed_ticks_check_props_before_writing() {
        let data = corpus("cs2/14065.dem");
        let props: Vec<String> = ["X", "helth"].map(String::from).to_vec();
        let mut streamed = StreamedTicks::new(&props, None, RowFormat::Csv, None, Vec::new());
        streamed.batch_rows = 1;
        let mut parser = DemoParser::new(&data).unwrap();
        parser.run(&mut streamed).unwrap();
        let err = streamed.finish(&parser.state).unwrap_err();
        assert!(
            err.contains("unknown prop \"helth\"") && err.contains("health"),
            "{err}"
        );
        assert!(streamed.out.is_empty());
    }
}
