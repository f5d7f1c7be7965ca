//! `gamewire tw`: Teeworlds 0.7 tools.
//!
//! - `gamewire tw decode HEX [--c2s] [--format text|jsonl]`: one datagram fully
//!   decoded (header, chunks, messages with fields; a snapshot without delta).
//! - `gamewire tw pcap FILE.pcap [--format text|jsonl]`: every UDP datagram of
//!   a capture, per flow, with snapshot deltas applied and CRCs checked.
//! - `gamewire tw demo FILE.demo [--objects] [--format text|jsonl]`: a
//!   recorded 0.7 demo: header, every tick's snapshot (from keyframes and
//!   deltas; with `--objects` its typed objects), every recorded message.
//! - `gamewire tw cut FILE.demo [--from TICK] [--to TICK] -o OUT.demo`: the
//!   ticks in range as a demo of their own (a keyframe first), written as the
//!   0.7.5 recorder writes; without a range, the same file byte for byte.
//! - `gamewire tw connect HOST:PORT --name NAME [--say TEXT] [--seconds N]
//!   [--map-cache DIR] [--format text|jsonl]`: joins a server (UDP client over
//!   the sans-IO connection), downloads or reuses the map, enters the game,
//!   prints chat, joins, leaves and a per-second summary, says a line and
//!   disconnects cleanly; `--record FILE.demo` records a client demo.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use gamewire_teeworlds::decoder::{Decoder, Direction, Event, Report};
use gamewire_teeworlds::msg::hex;
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
    /// Decode every Teeworlds datagram of a pcap or pcapng capture.
    Pcap {
        /// The capture file.
        file: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Read a recorded 0.7 demo (`.demo`): header, snapshots, messages.
    Demo {
        /// The demo file.
        file: PathBuf,
        /// Print every snapshot's objects (typed where the type is known).
        #[arg(long)]
        objects: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
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
        TwCommand::Pcap { file, format } => pcap(&file, format),
        TwCommand::Demo {
            file,
            objects,
            format,
        } => demo(&file, objects, format),
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

fn print_report_text(r: &Report, prefix: &str) {
    let dir = match r.direction {
        Direction::ClientToServer => "c2s",
        Direction::ServerToClient => "s2c",
    };
    match &r.header {
        Some(h) => println!(
            "{prefix}{dir} {} bytes: flags {}{}{}{} ack {} chunks {} token {:08x}",
            r.len,
            if h.flags.control { "C" } else { "-" },
            if h.flags.resend { "R" } else { "-" },
            if h.flags.compression { "Z" } else { "-" },
            if h.flags.connless { "L" } else { "-" },
            h.ack,
            h.num_chunks,
            h.token
        ),
        None if r.events.is_empty() => println!("{prefix}{dir} {} bytes", r.len),
        None => println!("{prefix}{dir} {} bytes: connless", r.len),
    }
    for e in &r.events {
        match e {
            Event::Control { message } => println!("{prefix}  control {}", to_json(message)),
            Event::Connless { message } => println!("{prefix}  connless {}", to_json(message)),
            Event::Message { chunk, message } => {
                let v = if chunk.vital {
                    format!("vital seq {}", chunk.sequence)
                } else {
                    "non-vital".to_owned()
                };
                println!(
                    "{prefix}  [{v}, {} bytes] {} {}",
                    chunk.size,
                    message.name(),
                    to_json(message)
                );
            }
            Event::Snapshot {
                tick,
                delta_tick,
                crc_ok,
                items,
            } => {
                println!(
                    "{prefix}  snapshot tick {tick} (delta from {delta_tick}) crc {} with {} items",
                    if *crc_ok { "ok" } else { "MISMATCH" },
                    items.len()
                );
                for it in items {
                    println!("{prefix}    {}", to_json(it));
                }
            }
        }
    }
    for w in &r.warnings {
        println!("{prefix}  warning: {}", w.compact());
    }
    for e in &r.errors {
        println!("{prefix}  ERROR: {e}");
    }
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
    match format {
        Format::Text => print_report_text(&r, ""),
        Format::Jsonl => println!("{}", to_json(&r)),
    }
    if let Some(e) = r.errors.first() {
        return Err(CliError::Datagram(e.clone().into()));
    }
    Ok(())
}

fn pcap(file: &Path, format: Format) -> Result<(), CliError> {
    let data = std::fs::read(file).map_err(|source| CliError::Read {
        path: file.to_path_buf(),
        source,
    })?;
    let dgrams =
        gamewire_teeworlds::pcap::udp_datagrams(&data).map_err(|e| teeworlds_error(file, e))?;
    let flows = gamewire_teeworlds::pcap::flows(dgrams);
    let (mut total, mut errors, mut snaps, mut crc_ok) = (0usize, 0usize, 0u64, 0u64);
    for (fi, flow) in flows.iter().enumerate() {
        let client = format!("{}:{}", flow.client.0, flow.client.1);
        let server = format!("{}:{}", flow.server.0, flow.server.1);
        if format == Format::Text {
            println!(
                "flow {fi}: client {client} <-> server {server}, {} datagrams",
                flow.datagrams.len()
            );
        }
        let mut dec = Decoder::new();
        for (t, dir, payload) in &flow.datagrams {
            let r = dec.decode(*dir, payload);
            total += 1;
            errors += usize::from(!r.errors.is_empty());
            match format {
                Format::Text => print_report_text(&r, &format!("{t:.6} ")),
                Format::Jsonl => println!(
                    "{}",
                    to_json(
                        &json!({"flow": fi, "client": client, "server": server, "t": t, "report": r})
                    )
                ),
            }
        }
        snaps += dec.snapshots_completed;
        crc_ok += dec.snapshots_crc_ok;
    }
    let summary = json!({"summary": {"flows": flows.len(), "datagrams": total, "datagrams_with_errors": errors, "snapshots": snaps, "snapshot_crc_ok": crc_ok}});
    match format {
        Format::Text => println!(
            "{} flows, {total} datagrams, {errors} with errors, {snaps} snapshots, {crc_ok} CRCs ok",
            flows.len()
        ),
        Format::Jsonl => println!("{summary}"),
    }
    if errors > 0 {
        return Err(CliError::DatagramsFailed {
            failed: errors,
            total,
        });
    }
    Ok(())
}

/// `gamewire tw demo`: everything before a cut is printed, and the cut is a
/// warning (exit status 0); any other error fails after what came before it.
fn demo(file: &Path, objects: bool, format: Format) -> Result<(), CliError> {
    use gamewire_teeworlds::demo::{decode_message, DemoEvent, DemoReader};
    let data = std::fs::read(file).map_err(|source| CliError::Read {
        path: file.to_path_buf(),
        source,
    })?;
    let mut reader = DemoReader::new(&data).map_err(|e| teeworlds_error(file, e))?;
    let header = reader.header().clone();
    match format {
        Format::Text => println!(
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
        Format::Jsonl => println!("{}", to_json(&json!({ "header": header }))),
    }
    let (mut ticks, mut snapshots, mut full, mut messages, mut bad_messages) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut failure = None;
    while let Some(event) = reader.next() {
        let event = match event {
            Ok(e) => e,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        match event {
            DemoEvent::Tick { .. } => ticks += 1,
            DemoEvent::Snapshot { tick, full: whole } => {
                snapshots += 1;
                full += u64::from(whole);
                let Some(snap) = reader.snapshot() else {
                    continue;
                };
                let kind = if whole { "full" } else { "delta" };
                match format {
                    Format::Text => {
                        println!(
                            "tick {tick}: snapshot ({kind}), {} items, crc {:#x}",
                            snap.len(),
                            snap.crc()
                        );
                        if objects {
                            for item in snap.items() {
                                match item.object() {
                                    Some(o) => println!("  id {}: {}", item.id, to_json(&o)),
                                    None => println!(
                                        "  type {} id {}: {:?}",
                                        item.type_id, item.id, item.data
                                    ),
                                }
                            }
                        }
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
                        println!("{}", to_json(&line));
                    }
                }
            }
            DemoEvent::Message { tick, data } => {
                messages += 1;
                let decoded = decode_message(&data);
                bad_messages += u64::from(decoded.is_err());
                match (format, decoded) {
                    (Format::Text, Ok(m)) => println!("tick {tick}: {} {}", m.name(), to_json(&m)),
                    (Format::Text, Err(e)) => {
                        println!("tick {tick}: message {} did not decode: {e}", hex(&data))
                    }
                    (Format::Jsonl, Ok(m)) => {
                        println!("{}", to_json(&json!({"tick": tick, "message": m})))
                    }
                    (Format::Jsonl, Err(e)) => println!(
                        "{}",
                        to_json(
                            &json!({"tick": tick, "message_error": e.to_string(), "hex": hex(&data)})
                        )
                    ),
                }
            }
        }
    }
    let summary = json!({"summary": {"ticks": ticks, "last_tick": reader.tick(), "snapshots": snapshots, "full_snapshots": full, "messages": messages, "messages_not_decoded": bad_messages}});
    match format {
        Format::Text => println!(
            "{ticks} ticks (last {}), {snapshots} snapshots ({full} full), {messages} messages ({bad_messages} not decoded)",
            reader.tick()
        ),
        Format::Jsonl => println!("{summary}"),
    }
    match failure {
        Some(e) if e.is_truncation() => {
            eprintln!(
                "warning: {}: {e}; the output holds everything before the cut",
                file.display()
            );
            Ok(())
        }
        Some(e) => Err(teeworlds_error(file, e)),
        None => Ok(()),
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
    if let Some(e) = cut {
        eprintln!(
            "warning: {}: {e}; the output holds everything before the cut",
            file.display()
        );
    }
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
