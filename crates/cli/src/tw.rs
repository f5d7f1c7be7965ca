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

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::net::{ToSocketAddrs, UdpSocket};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, Subcommand, ValueEnum};
use gamewire_teeworlds::client::{ClientEvent, GameClient, Identity, MapInfo};
use gamewire_teeworlds::conn::State;
use gamewire_teeworlds::decoder::{Decoder, Direction, Event, Report};
use gamewire_teeworlds::map;
use gamewire_teeworlds::msg::{hex, Message, SnapObject};
use serde_json::json;

use crate::error::CliError;

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
            format,
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

struct ConnectOptions {
    addr: String,
    name: String,
    clan: String,
    say: Option<String>,
    seconds: u64,
    map_cache: Option<PathBuf>,
    record: Option<PathBuf>,
    format: Format,
}

/// A client demo being recorded: started once the map's bytes are known
/// (so the game messages that come before the first snapshot, player
/// infos among them, are in it too).
struct Recording {
    writer: Option<gamewire_teeworlds::demo::DemoWriter>,
    snapshots: u64,
}

impl Recording {
    fn start(&mut self, info: &MapInfo, map: &[u8]) {
        if self.writer.is_none() {
            self.writer = Some(
                gamewire_teeworlds::demo::DemoWriter::new(
                    &info.name,
                    info.crc as u32,
                    map,
                    "client",
                )
                .timestamp(&utc_timestamp()),
            );
        }
    }

    fn snapshot(&mut self, tick: i32, snap: &gamewire_teeworlds::snapshot::Snapshot) {
        if let Some(w) = &mut self.writer {
            w.snapshot(tick, snap);
            self.snapshots += 1;
        }
    }
}

/// Now as the recorder's timestamp, `2026-11-26_00-08-47` (UTC).
fn utc_timestamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}_{:02}-{:02}-{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

fn random_token() -> u32 {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.write_u32(std::process::id());
    let t = h.finish() as u32;
    if t == u32::MAX {
        1
    } else {
        t
    }
}

fn cache_path(dir: &Path, info: &MapInfo) -> PathBuf {
    let safe: String = info
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{safe}_{}.map", hex(&info.sha256)))
}

/// Printer for the connect events.
struct Out {
    format: Format,
    start: Instant,
}

impl Out {
    fn emit(&self, kind: &str, text: String, value: serde_json::Value) {
        match self.format {
            Format::Text => println!("[{:7.3}] {text}", self.start.elapsed().as_secs_f64()),
            Format::Jsonl => {
                let mut v = json!({"t": self.start.elapsed().as_secs_f64(), "event": kind});
                if let (Some(o), serde_json::Value::Object(extra)) = (v.as_object_mut(), value) {
                    o.extend(extra);
                }
                println!("{v}");
            }
        }
    }
}

fn summary(client: &GameClient) -> (i32, Vec<serde_json::Value>) {
    let Some((tick, snap)) = client.snapshot() else {
        return (-1, Vec::new());
    };
    let mut players = Vec::new();
    for (&id, name) in client.players() {
        let Ok(uid) = u16::try_from(id) else { continue };
        let score = match snap.get(11, uid).and_then(|i| i.object()) {
            Some(SnapObject::PlayerInfo(p)) => Some(p.score),
            _ => None,
        };
        let pos = match snap.get(10, uid).and_then(|i| i.object()) {
            Some(SnapObject::Character(c)) => Some((c.x, c.y)),
            _ => None,
        };
        players.push(json!({"id": id, "name": name, "score": score, "x": pos.map(|p| p.0), "y": pos.map(|p| p.1)}));
    }
    (tick, players)
}

fn connect(o: &ConnectOptions) -> Result<(), CliError> {
    let addr = o
        .addr
        .to_socket_addrs()
        .map_err(|source| CliError::Resolve {
            addr: o.addr.clone(),
            source,
        })?
        .next()
        .ok_or_else(|| CliError::NoAddress(o.addr.clone()))?;
    let bind = if addr.is_ipv4() {
        "0.0.0.0:0"
    } else {
        "[::]:0"
    };
    let sock = UdpSocket::bind(bind).map_err(CliError::Bind)?;
    sock.connect(addr)
        .map_err(|source| CliError::ConnectSocket { addr, source })?;
    sock.set_read_timeout(Some(Duration::from_millis(5)))
        .map_err(CliError::SocketTimeout)?;

    let out = Out {
        format: o.format,
        start: Instant::now(),
    };
    let identity = Identity {
        name: o.name.clone(),
        clan: o.clan.clone(),
        ..Identity::default()
    };
    let start = Instant::now();
    let mut client = GameClient::new(Duration::ZERO, random_token(), identity);
    let deadline = Duration::from_secs(o.seconds);
    let mut buf = [0u8; 2048];
    let mut said: Option<Duration> = None;
    let mut entered_at: Option<Duration> = None;
    let mut echo = false;
    let mut snapshots = 0u64;
    let mut crc_ok = 0u64;
    let mut next_summary = Duration::from_secs(1);
    let mut closed = None;
    let mut send_error = None;
    let mut recording = o.record.as_ref().map(|_| Recording {
        writer: None,
        snapshots: 0,
    });
    out.emit(
        "connecting",
        format!("connecting to {addr} as {}", o.name),
        json!({"addr": addr.to_string(), "name": o.name}),
    );
    loop {
        let now = start.elapsed();
        match sock.recv(&mut buf) {
            Ok(n) => client.handle_datagram(now, buf.get(..n).unwrap_or(&[])),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {}
            Err(e) => return Err(CliError::Receive(e)),
        }
        client.update(now);
        while let Some(e) = client.poll_event() {
            match e {
                ClientEvent::Connected => out.emit("connected", "connected".into(), json!({})),
                ClientEvent::MapChange(info) => {
                    let cached = o
                        .map_cache
                        .as_ref()
                        .map(|d| cache_path(d, &info))
                        .and_then(|p| {
                            let data = std::fs::read(&p).ok()?;
                            map::verify(&data, info.size, info.crc, &info.sha256)
                                .ok()
                                .map(|()| (p, data))
                        });
                    match cached {
                        Some((p, data)) => {
                            if let Some(rec) = recording.as_mut() {
                                rec.start(&info, &data);
                            }
                            out.emit(
                                "map",
                                format!("map {} from cache {}", info.name, p.display()),
                                json!({"map": info.name, "source": "cache", "size": info.size}),
                            );
                            client.map_ready(now);
                        }
                        None => {
                            out.emit(
                                "map",
                                format!("map {} ({} bytes): downloading", info.name, info.size),
                                json!({"map": info.name, "source": "download", "size": info.size}),
                            );
                            client.download_map(now);
                        }
                    }
                }
                ClientEvent::MapDownloaded { info, data } => {
                    if let Some(rec) = recording.as_mut() {
                        rec.start(&info, &data);
                    }
                    out.emit(
                        "map_downloaded",
                        format!("map {} downloaded, CRC {:08x} and SHA-256 ok", info.name, info.crc as u32),
                        json!({"map": info.name, "size": data.len(), "crc": format!("{:08x}", info.crc as u32), "sha256": hex(&info.sha256)}),
                    );
                    if let Some(dir) = &o.map_cache {
                        let p = cache_path(dir, &info);
                        if let Err(e) =
                            std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&p, &data))
                        {
                            out.emit(
                                "warning",
                                format!("could not cache the map: {e}"),
                                json!({"warning": e.to_string()}),
                            );
                        }
                    }
                }
                ClientEvent::EnteredGame => {
                    entered_at = Some(now);
                    out.emit("entered_game", "entered the game".into(), json!({}));
                }
                ClientEvent::Chat {
                    mode,
                    client_id,
                    name,
                    message,
                } => {
                    let own = client_id >= 0 && Some(client_id) == client.local_id();
                    if own && said.is_some() && o.say.as_deref() == Some(message.as_str()) {
                        echo = true;
                    }
                    let who = name.clone().unwrap_or_else(|| {
                        if client_id < 0 {
                            "*** server".into()
                        } else {
                            format!("#{client_id}")
                        }
                    });
                    out.emit(
                        "chat",
                        format!("chat {who}: {message}"),
                        json!({"mode": mode, "client_id": client_id, "name": name, "message": message, "own": own}),
                    );
                }
                ClientEvent::PlayerJoined {
                    client_id,
                    name,
                    local,
                } => out.emit(
                    "join",
                    format!(
                        "join #{client_id} {name}{}",
                        if local { " (us)" } else { "" }
                    ),
                    json!({"client_id": client_id, "name": name, "local": local}),
                ),
                ClientEvent::PlayerLeft {
                    client_id,
                    name,
                    reason,
                } => out.emit(
                    "leave",
                    format!(
                        "leave #{client_id} {} ({reason})",
                        name.clone().unwrap_or_default()
                    ),
                    json!({"client_id": client_id, "name": name, "reason": reason}),
                ),
                ClientEvent::Snapshot { tick, crc_ok: ok } => {
                    snapshots += 1;
                    crc_ok += u64::from(ok);
                    if let (Some(rec), Some((latest, snap))) =
                        (recording.as_mut(), client.snapshot())
                    {
                        if latest == tick {
                            rec.snapshot(tick, snap);
                        }
                    }
                }
                ClientEvent::Error(e) => {
                    out.emit("error", format!("error: {e}"), json!({"error": e}))
                }
                ClientEvent::Closed(r) => {
                    closed = Some(format!("{r:?}"));
                }
                ClientEvent::Message(m) => {
                    // The 0.7.5 client records the game messages it gets.
                    if let (Some(rec), Message::Game(_)) = (recording.as_mut(), &m) {
                        if let Some(w) = &mut rec.writer {
                            w.message(&m.encode());
                        }
                    }
                }
                _ => {}
            }
        }
        if let (Some(text), Some(at), None) = (&o.say, entered_at, said) {
            if now > at + Duration::from_millis(500) && snapshots > 0 {
                client.say(now, text);
                said = Some(now);
                out.emit("say", format!("said: {text}"), json!({"message": text}));
            }
        }
        while let Some(d) = client.poll_transmit() {
            if let Err(e) = sock.send(&d) {
                send_error.get_or_insert(e.to_string());
            }
        }
        if now >= next_summary {
            next_summary += Duration::from_secs(1);
            let (tick, players) = summary(&client);
            let text = players
                .iter()
                .map(|p| {
                    format!(
                        "{} score {} at {},{}",
                        p["name"].as_str().unwrap_or("?"),
                        p["score"],
                        p["x"],
                        p["y"]
                    )
                })
                .collect::<Vec<_>>()
                .join("; ");
            out.emit(
                "summary",
                format!("tick {tick}, {} players: {text}; {snapshots} snapshots ({crc_ok} CRC ok)", players.len()),
                json!({"tick": tick, "players": players, "snapshots": snapshots, "snapshots_crc_ok": crc_ok}),
            );
        }
        if closed.is_some() || now >= deadline {
            break;
        }
    }
    if client.state() != State::Closed {
        client.disconnect(start.elapsed(), Some("gamewire leaves"));
        while let Some(d) = client.poll_transmit() {
            let _ = sock.send(&d);
        }
    }
    if let (Some(path), Some(rec)) = (&o.record, recording) {
        let Some(w) = rec.writer else {
            return Err(CliError::NothingRecorded { path: path.clone() });
        };
        let file = w.finish();
        std::fs::write(path, &file).map_err(|source| CliError::Write {
            path: path.clone(),
            source,
        })?;
        out.emit(
            "recorded",
            format!("recorded {} ({} bytes, {} snapshots)", path.display(), file.len(), rec.snapshots),
            json!({"demo": path.display().to_string(), "bytes": file.len(), "snapshots": rec.snapshots}),
        );
    }
    let entered = entered_at.is_some();
    out.emit(
        "done",
        format!(
            "done: entered {entered}, {snapshots} snapshots, {crc_ok} CRC ok, {} errors, chat echo {echo}{}",
            client.errors,
            closed.as_ref().map(|c| format!(", closed: {c}")).unwrap_or_default()
        ),
        json!({"entered": entered, "snapshots": snapshots, "snapshots_crc_ok": crc_ok, "errors": client.errors, "chat_echo": echo, "closed": closed, "send_error": send_error}),
    );
    if !entered {
        return Err(CliError::NotEntered { addr, closed });
    }
    Ok(())
}
