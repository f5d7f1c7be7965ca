//! `gamewire tw`: Teeworlds 0.7 tools.
//!
//! - `gamewire tw decode HEX [--c2s] [--format text|jsonl]`: one datagram fully
//!   decoded (header, chunks, messages with fields; a snapshot without delta).
//! - `gamewire tw pcap FILE.pcap [--table T] [--format csv|jsonl|parquet]
//!   [-o OUT]`: a table of a capture (every UDP datagram, per flow, with
//!   snapshot deltas applied and CRCs checked): `messages` (the default),
//!   `snapshots`, one table per snapshot object type (`character`,
//!   `player_info`, ...), `players`, `chat`, `kills`, `summary` (see
//!   `gamewire_query::teeworlds`). `--dump text|jsonl` prints every datagram
//!   decoded instead, as text or nested JSON Lines.
//! - `gamewire tw demo FILE.demo [--table T] [--format ...] [-o OUT]
//!   [--strict]`: the same tables of a recorded 0.7 demo (every tick's
//!   snapshot from keyframes and deltas, every recorded message); `--dump
//!   text|jsonl [--objects]` prints the header, every snapshot (with its
//!   typed objects) and every message instead. A demo cut short writes
//!   what comes before the cut and warns (exit status 1 with `--strict`).
//!
//! Output goes through a locked, buffered standard output; a failed write
//! (a closed pipe too) is an error whose source is the `io::Error`.
//! - `gamewire tw cut FILE.demo [--from TICK] [--to TICK] -o OUT.demo`: the
//!   ticks in range as a demo of their own (a keyframe first), written as the
//!   0.7.5 recorder writes; without a range, the same file byte for byte.
//! - `gamewire tw connect HOST:PORT --name NAME [--say TEXT] [--seconds N]
//!   [--map-cache DIR] [--format text|jsonl]`: joins a server (UDP client over
//!   the sans-IO connection), downloads or reuses the map, enters the game,
//!   prints chat, joins, leaves and a per-second summary, says a line and
//!   disconnects cleanly; `--record FILE.demo` records a client demo.

use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use gamewire_query::teeworlds::TeeworldsTable;
use gamewire_query::write;
use gamewire_query::{QueryError, Table};
use gamewire_teeworlds::decoder::{Decoder, Direction, Event, Report};
use gamewire_teeworlds::demo::DemoFileError;
use gamewire_teeworlds::msg::hex;
use gamewire_teeworlds::recording::{CaptureReader, DemoRecord, DemoRecords};
use gamewire_teeworlds::snapshot::Snapshot;
use serde_json::json;

use crate::error::CliError;
use crate::tw_connect::{connect, ConnectOptions};

/// Arguments of `gamewire tw`.
#[derive(Debug, Args)]
pub struct TwArgs {
    #[command(subcommand)]
    command: TwCommand,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Jsonl,
}

/// Output format of the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TableFormat {
    /// CSV with a header row.
    Csv,
    /// JSON Lines: one object per row.
    Jsonl,
    /// Parquet (to a file or a pipe).
    Parquet,
}

#[derive(Debug, Subcommand)]
enum TwCommand {
    /// Decode one datagram given in hex.
    Decode {
        /// The datagram in hex; spaces and colons are ignored, `0x` is optional.
        hex: String,
        /// The datagram went from the client to the server (default: server to client).
        #[arg(long)]
        c2s: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// A pcap or pcapng capture of Teeworlds traffic as a table (or every
    /// datagram decoded, with --dump).
    Pcap {
        /// The capture file.
        file: PathBuf,
        #[command(flatten)]
        options: TableOptions,
    },
    /// A recorded 0.7 demo (`.demo`) as a table (or its header, snapshots
    /// and messages, with --dump).
    Demo {
        /// The demo file.
        file: PathBuf,
        #[command(flatten)]
        options: TableOptions,
        /// With --dump: print every snapshot's objects (typed where the type is known).
        #[arg(long, requires = "dump")]
        objects: bool,
    },
    /// Cut a 0.7 demo to a tick range (a keyframe first), written as the recorder writes.
    Cut {
        /// The demo file.
        file: PathBuf,
        /// First tick kept (default: the first).
        #[arg(long)]
        from: Option<i32>,
        /// Last tick kept (default: the last).
        #[arg(long)]
        to: Option<i32>,
        /// The demo to write.
        #[arg(short, long)]
        out: PathBuf,
    },
    /// Join a server, watch the game, optionally say something, leave.
    Connect {
        /// Server address, e.g. 127.0.0.1:8303.
        addr: String,
        /// Player name.
        #[arg(long)]
        name: String,
        /// Clan.
        #[arg(long, default_value = "")]
        clan: String,
        /// A chat line to say once in the game.
        #[arg(long)]
        say: Option<String>,
        /// How long to stay, in seconds.
        #[arg(long, default_value_t = 10)]
        seconds: u64,
        /// Directory for downloaded maps (reused when name, CRC and SHA-256 match).
        #[arg(long)]
        map_cache: Option<PathBuf>,
        /// Record a client demo (`.demo`, version 4, as the 0.7.5 client
        /// records): every snapshot received and every game message.
        #[arg(long)]
        record: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

/// Runs `gamewire tw`.
pub fn run(args: TwArgs) -> Result<(), CliError> {
    match args.command {
        TwCommand::Decode { hex, c2s, format } => decode(&hex, c2s, format),
        TwCommand::Pcap { file, options } => pcap(&file, &options),
        TwCommand::Demo {
            file,
            options,
            objects,
        } => demo(&file, &options, objects),
        TwCommand::Cut {
            file,
            from,
            to,
            out,
        } => cut(&file, from, to, &out),
        TwCommand::Connect {
            addr,
            name,
            clan,
            say,
            seconds,
            map_cache,
            record,
            format,
        } => connect(&ConnectOptions {
            addr,
            name,
            clan,
            say,
            seconds,
            map_cache,
            record,
            jsonl: format == Format::Jsonl,
        }),
    }
}

fn parse_hex(s: &str) -> Result<Vec<u8>, CliError> {
    let s = s.trim();
    let s = s.strip_prefix("0x").unwrap_or(s);
    let digits: Vec<u8> = s
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b':')
        .collect();
    if !digits.len().is_multiple_of(2) {
        return Err(CliError::TwOddDigits(digits.len()));
    }
    digits
        .chunks(2)
        .enumerate()
        .map(|(i, p)| {
            let t = std::str::from_utf8(p).map_err(|_| CliError::TwByteNotText(i))?;
            u8::from_str_radix(t, 16).map_err(|_| CliError::TwByteNotHex {
                byte: i,
                text: t.to_string(),
            })
        })
        .collect()
}

/// A Teeworlds file's error, naming the file.
fn teeworlds_error(file: &Path, e: impl Into<gamewire_teeworlds::Error>) -> CliError {
    CliError::Teeworlds {
        path: file.to_path_buf(),
        source: e.into(),
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}

/// A failed write to standard output. Its source is the `io::Error`, so a
/// closed pipe (`| head`) is told apart from other failures by its kind.
pub(crate) fn stdout_error(source: std::io::Error) -> CliError {
    CliError::Write {
        path: PathBuf::from("standard output"),
        source,
    }
}

/// A table writer's error: a failed write as [`stdout_error`] or naming the
/// file; anything else as the query error it is.
fn table_write_error(out: Option<&Path>, e: QueryError) -> CliError {
    match e {
        QueryError::Write { source, .. } => match out {
            Some(path) => CliError::Write {
                path: path.to_path_buf(),
                source,
            },
            None => stdout_error(source),
        },
        other => other.into(),
    }
}

fn print_report_text(out: &mut impl Write, r: &Report, prefix: &str) -> std::io::Result<()> {
    let dir = match r.direction {
        Direction::ClientToServer => "c2s",
        Direction::ServerToClient => "s2c",
    };
    match &r.header {
        Some(h) => writeln!(
            out,
            "{prefix}{dir} {} bytes: flags {}{}{}{} ack {} chunks {} token {:08x}",
            r.len,
            if h.flags.control { "C" } else { "-" },
            if h.flags.resend { "R" } else { "-" },
            if h.flags.compression { "Z" } else { "-" },
            if h.flags.connless { "L" } else { "-" },
            h.ack,
            h.num_chunks,
            h.token
        )?,
        None if r.events.is_empty() => writeln!(out, "{prefix}{dir} {} bytes", r.len)?,
        None => writeln!(out, "{prefix}{dir} {} bytes: connless", r.len)?,
    }
    for e in &r.events {
        match e {
            Event::Control { message } => writeln!(out, "{prefix}  control {}", to_json(message))?,
            Event::Connless { message } => {
                writeln!(out, "{prefix}  connless {}", to_json(message))?
            }
            Event::Message { chunk, message } => {
                let v = if chunk.vital {
                    format!("vital seq {}", chunk.sequence)
                } else {
                    "non-vital".to_owned()
                };
                writeln!(
                    out,
                    "{prefix}  [{v}, {} bytes] {} {}",
                    chunk.size,
                    message.name(),
                    to_json(message)
                )?;
            }
            Event::Snapshot {
                tick,
                delta_tick,
                crc_ok,
                items,
            } => {
                writeln!(
                    out,
                    "{prefix}  snapshot tick {tick} (delta from {delta_tick}) crc {} with {} items",
                    if *crc_ok { "ok" } else { "MISMATCH" },
                    items.len()
                )?;
                for it in items {
                    writeln!(out, "{prefix}    {}", to_json(it))?;
                }
            }
        }
    }
    for w in &r.warnings {
        writeln!(out, "{prefix}  warning: {w}")?;
    }
    for e in &r.errors {
        writeln!(out, "{prefix}  ERROR: {e}")?;
    }
    Ok(())
}

fn decode(hex_text: &str, c2s: bool, format: Format) -> Result<(), CliError> {
    let bytes = parse_hex(hex_text)?;
    let dir = if c2s {
        Direction::ClientToServer
    } else {
        Direction::ServerToClient
    };
    let mut dec = Decoder::new();
    let r = dec.decode(dir, &bytes);
    let mut out = BufWriter::new(std::io::stdout().lock());
    match format {
        Format::Text => print_report_text(&mut out, &r, ""),
        Format::Jsonl => writeln!(out, "{}", to_json(&r)),
    }
    .and_then(|()| out.flush())
    .map_err(stdout_error)?;
    if let Some(e) = r.errors.first() {
        return Err(CliError::Datagram(e.clone().into()));
    }
    Ok(())
}

fn read_file(file: &Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(file).map_err(|source| CliError::Read {
        path: file.to_path_buf(),
        source,
    })
}

/// How many error lines a table run prints before it only counts them.
const MAX_ERROR_LINES: usize = 20;

/// Prints the errors of a capture's datagrams, each a sentence naming the
/// file and where; past [`MAX_ERROR_LINES`], only how many more there were.
fn print_errors(file: &Path, lines: &[String]) {
    for e in lines.iter().take(MAX_ERROR_LINES) {
        eprintln!("error: {}: {e}", file.display());
    }
    if lines.len() > MAX_ERROR_LINES {
        eprintln!(
            "error: {}: and {} more",
            file.display(),
            lines.len() - MAX_ERROR_LINES
        );
    }
}

/// The output format of a table: `--format`, else the extension of `-o`,
/// else CSV. Parquet to a terminal is refused.
fn table_format(
    format: Option<TableFormat>,
    out: Option<&Path>,
) -> Result<write::Format, CliError> {
    let from_extension = || {
        let ext = out?.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "csv" => Some(write::Format::Csv),
            "jsonl" | "ndjson" => Some(write::Format::Jsonl),
            "parquet" => Some(write::Format::Parquet),
            _ => None,
        }
    };
    let chosen = match format {
        Some(TableFormat::Csv) => write::Format::Csv,
        Some(TableFormat::Jsonl) => write::Format::Jsonl,
        Some(TableFormat::Parquet) => write::Format::Parquet,
        None => from_extension().unwrap_or(write::Format::Csv),
    };
    if chosen == write::Format::Parquet && out.is_none() && std::io::stdout().is_terminal() {
        return Err(CliError::Usage(
            "Parquet is binary: write it to a file with -o, or pipe it",
        ));
    }
    Ok(chosen)
}

/// Writes one table to `-o FILE` or standard output.
fn write_one(table: &Table, format: write::Format, out: Option<&Path>) -> Result<(), CliError> {
    match out {
        Some(path) => {
            // Written atomically, as every `-o` of a finished table (see
            // `output`).
            let mut sink = crate::output::Sink::create(Some(path), format)?;
            let written = write::write_table(table, format, &mut sink)
                .map_err(|e| table_write_error(Some(path), e));
            sink.finish(written)
        }
        None => {
            let out = BufWriter::new(std::io::stdout().lock());
            match format {
                write::Format::Csv => write::write_csv(table, out),
                write::Format::Jsonl => write::write_jsonl(table, out),
                // The Parquet writer needs a writer it can send between
                // threads: the file is made in memory, then written.
                write::Format::Parquet => {
                    let mut bytes = Vec::new();
                    write::write_table(table, format, &mut bytes)?;
                    let mut out = out;
                    return out
                        .write_all(&bytes)
                        .and_then(|()| out.flush())
                        .map_err(stdout_error);
                }
            }
            .map_err(|e| table_write_error(None, e))
        }
    }
}

/// The table options of `tw pcap` and `tw demo`.
#[derive(Debug, Args)]
struct TableOptions {
    /// The table: snapshots, players, messages, chat, kills, summary, or a
    /// snapshot object type (character, player_info, projectile, pickup,
    /// laser, flag, game_data, de_client_info, ...).
    #[arg(long, default_value = "messages")]
    table: String,
    /// Output format (default: from the extension of -o, else CSV).
    #[arg(long, value_enum)]
    format: Option<TableFormat>,
    /// Write to this file instead of standard output.
    #[arg(short, long)]
    out: Option<PathBuf>,
    /// Print every datagram (pcap) or chunk (demo) decoded, as text or
    /// nested JSON Lines, instead of a table.
    #[arg(long, value_enum, conflicts_with_all = ["table", "format", "out"])]
    dump: Option<Format>,
}

impl TableOptions {
    /// The table asked for and how to write it; `None` for `--dump`.
    fn plan(&self) -> Result<Option<(TeeworldsTable, write::Format)>, CliError> {
        if self.dump.is_some() {
            return Ok(None);
        }
        let table: TeeworldsTable = self.table.parse()?;
        let format = table_format(self.format, self.out.as_deref())?;
        Ok(Some((table, format)))
    }
}

fn pcap(file: &Path, options: &TableOptions) -> Result<(), CliError> {
    let plan = options.plan()?;
    let data = read_file(file)?;
    let Some((table, format)) = plan else {
        return pcap_dump(file, &data, options.dump.unwrap_or(Format::Text));
    };
    let read = gamewire_query::teeworlds::pcap_tables(&data, &[table])
        .map_err(|e| teeworlds_error(file, e))?;
    // Oddities are common in real traffic (a client pads a message): one
    // line with their count and the first (`--dump` shows each in place).
    if let Some(first) = read.warnings.first() {
        eprintln!(
            "warning: {}: {} warnings (decoding went on); the first: {first}",
            file.display(),
            read.warnings.len()
        );
    }
    for t in &read.tables {
        write_one(t, format, options.out.as_deref())?;
    }
    if !read.errors.is_empty() {
        print_errors(file, &read.errors);
        let s = read.capture.unwrap_or_default();
        return Err(CliError::DatagramsFailed {
            failed: s.datagrams_with_errors as usize,
            total: s.datagrams as usize,
        });
    }
    Ok(())
}

/// `tw pcap --dump`: every datagram as text or nested JSON, then the
/// summary.
fn pcap_dump(file: &Path, data: &[u8], format: Format) -> Result<(), CliError> {
    let mut reader = CaptureReader::new(data).map_err(|e| teeworlds_error(file, e))?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    let counts: Vec<usize> = reader.flows().iter().map(|f| f.datagrams.len()).collect();
    let mut flow = None;
    for d in reader.by_ref() {
        let client = format!("{}:{}", d.client.0, d.client.1);
        let server = format!("{}:{}", d.server.0, d.server.1);
        match format {
            Format::Text => {
                if flow != Some(d.flow) {
                    flow = Some(d.flow);
                    let n = counts.get(d.flow).copied().unwrap_or(0);
                    writeln!(
                        out,
                        "flow {}: client {client} <-> server {server}, {n} datagrams",
                        d.flow
                    )
                    .map_err(stdout_error)?;
                }
                print_report_text(&mut out, &d.report, &format!("{:.6} ", d.time))
            }
            Format::Jsonl => writeln!(
                out,
                "{}",
                to_json(&json!({"flow": d.flow, "client": client, "server": server, "t": d.time, "report": d.report}))
            ),
        }
        .map_err(stdout_error)?;
    }
    let s = *reader.summary();
    match format {
        Format::Text => writeln!(
            out,
            "{} flows, {} datagrams, {} with errors, {} snapshots, {} CRCs ok",
            s.flows, s.datagrams, s.datagrams_with_errors, s.snapshots, s.snapshot_crc_ok
        ),
        Format::Jsonl => writeln!(out, "{}", json!({ "summary": s })),
    }
    .and_then(|()| out.flush())
    .map_err(stdout_error)?;
    if s.datagrams_with_errors > 0 {
        return Err(CliError::DatagramsFailed {
            failed: s.datagrams_with_errors as usize,
            total: s.datagrams as usize,
        });
    }
    Ok(())
}

/// The warning of a demo cut short (remembered for the global `--strict`,
/// which then makes the exit status 1).
fn demo_cut(file: &Path, cut: Option<DemoFileError>) {
    if let Some(e) = cut {
        crate::read::warn_cut(&format!(
            "{}: {e}; the output holds everything before the cut",
            file.display()
        ));
    }
}

/// `gamewire tw demo`: everything before a cut is written, and the cut is a
/// warning (exit status 0; 1 with `--strict`); any other error fails.
fn demo(file: &Path, options: &TableOptions, objects: bool) -> Result<(), CliError> {
    let plan = options.plan()?;
    let data = read_file(file)?;
    let Some((table, format)) = plan else {
        return demo_dump(file, &data, objects, options.dump.unwrap_or(Format::Text));
    };
    let read = gamewire_query::teeworlds::demo_tables(&data, &[table])
        .map_err(|e| teeworlds_error(file, e))?;
    for t in &read.tables {
        write_one(t, format, options.out.as_deref())?;
    }
    demo_cut(file, read.cut);
    Ok(())
}

/// `tw demo --dump`: the header, every snapshot (with `--objects` its
/// objects) and message as text or nested JSON, then the summary.
fn demo_dump(file: &Path, data: &[u8], objects: bool, format: Format) -> Result<(), CliError> {
    let mut records = DemoRecords::new(data).map_err(|e| teeworlds_error(file, e))?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    let header = records.header().clone();
    match format {
        Format::Text => writeln!(
            out,
            "demo v{} {} ({}), map {} ({} bytes, crc {:08x}), {} s, recorded {}, {} timeline markers",
            header.version,
            header.kind,
            header.net_version,
            header.map_name,
            header.map_size,
            header.map_crc,
            header.length,
            header.timestamp,
            header.timeline_markers.len()
        ),
        Format::Jsonl => writeln!(out, "{}", to_json(&json!({ "header": header }))),
    }
    .map_err(stdout_error)?;
    while let Some(record) = records.next() {
        match record {
            DemoRecord::Tick { .. } => {}
            DemoRecord::Snapshot { tick, full } => {
                let Some(snap) = records.snapshot() else {
                    continue;
                };
                dump_snapshot(&mut out, tick, full, snap, objects, format).map_err(stdout_error)?;
            }
            DemoRecord::Message {
                tick,
                data,
                message,
            } => match (format, message) {
                (Format::Text, Ok(m)) => {
                    writeln!(out, "tick {tick}: {} {}", m.name(), to_json(&m))
                }
                (Format::Text, Err(e)) => writeln!(
                    out,
                    "tick {tick}: message {} did not decode: {e}",
                    hex(&data)
                ),
                (Format::Jsonl, Ok(m)) => {
                    writeln!(out, "{}", to_json(&json!({"tick": tick, "message": m})))
                }
                (Format::Jsonl, Err(e)) => writeln!(
                    out,
                    "{}",
                    to_json(
                        &json!({"tick": tick, "message_error": e.to_string(), "hex": hex(&data)})
                    )
                ),
            }
            .map_err(stdout_error)?,
        }
    }
    let s = *records.summary();
    match format {
        Format::Text => writeln!(
            out,
            "{} ticks (last {}), {} snapshots ({} full), {} messages ({} not decoded)",
            s.ticks, s.last_tick, s.snapshots, s.full_snapshots, s.messages, s.messages_not_decoded
        ),
        Format::Jsonl => writeln!(out, "{}", json!({ "summary": s })),
    }
    .and_then(|()| out.flush())
    .map_err(stdout_error)?;
    match records.failure() {
        Some(e) if e.is_truncation() => {
            demo_cut(file, Some(e.clone()));
            Ok(())
        }
        Some(e) => Err(teeworlds_error(file, e.clone())),
        None => Ok(()),
    }
}

fn dump_snapshot(
    out: &mut impl Write,
    tick: i32,
    full: bool,
    snap: &Snapshot,
    objects: bool,
    format: Format,
) -> std::io::Result<()> {
    let kind = if full { "full" } else { "delta" };
    match format {
        Format::Text => {
            writeln!(
                out,
                "tick {tick}: snapshot ({kind}), {} items, crc {:#x}",
                snap.len(),
                snap.crc()
            )?;
            if objects {
                for item in snap.items() {
                    match item.object() {
                        Some(o) => writeln!(out, "  id {}: {}", item.id, to_json(&o))?,
                        None => writeln!(
                            out,
                            "  type {} id {}: {:?}",
                            item.type_id, item.id, item.data
                        )?,
                    }
                }
            }
            Ok(())
        }
        Format::Jsonl => {
            let mut line = json!({"tick": tick, "snapshot": {"kind": kind, "items": snap.len(), "crc": snap.crc()}});
            if objects {
                let objs: Vec<serde_json::Value> = snap
                    .items()
                    .iter()
                    .map(|item| match item.object() {
                        Some(o) => {
                            let mut v = json!(o);
                            v["id"] = json!(item.id);
                            v
                        }
                        None => json!({"type_id": item.type_id, "id": item.id, "data": item.data}),
                    })
                    .collect();
                line["snapshot"]["objects"] = json!(objs);
            }
            writeln!(out, "{}", to_json(&line))
        }
    }
}

/// `gamewire tw cut`.
fn cut(file: &Path, from: Option<i32>, to: Option<i32>, out: &Path) -> Result<(), CliError> {
    let data = std::fs::read(file).map_err(|source| CliError::Read {
        path: file.to_path_buf(),
        source,
    })?;
    let (part, cut) =
        gamewire_teeworlds::demo::slice(&data, from, to).map_err(|e| teeworlds_error(file, e))?;
    demo_cut(file, cut);
    std::fs::write(out, &part).map_err(|source| CliError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    let header = gamewire_teeworlds::demo::DemoReader::new(&part)
        .map(|r| r.header().length)
        .unwrap_or(0);
    eprintln!("wrote {} ({} bytes, {header} s)", out.display(), part.len());
    Ok(())
}
