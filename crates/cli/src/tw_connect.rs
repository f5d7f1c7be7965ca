//! `gamewire tw connect`: a live Teeworlds 0.7 client that joins a server,
//! reports what happens, and can record a client demo.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::net::{ToSocketAddrs, UdpSocket};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gamewire_teeworlds::client::{ClientEvent, GameClient, Identity, MapInfo};
use gamewire_teeworlds::conn::State;
use gamewire_teeworlds::map;
use gamewire_teeworlds::msg::{hex, Message, SnapObject};
use serde_json::json;

use crate::error::CliError;

/// What `gamewire tw connect` was asked to do.
pub(crate) struct ConnectOptions {
    /// The server, `HOST:PORT`.
    pub(crate) addr: String,
    /// The player's name.
    pub(crate) name: String,
    /// The player's clan.
    pub(crate) clan: String,
    /// A line to say once in the game.
    pub(crate) say: Option<String>,
    /// How long to stay.
    pub(crate) seconds: u64,
    /// Where downloaded maps are kept and looked up.
    pub(crate) map_cache: Option<PathBuf>,
    /// Where to record a client demo.
    pub(crate) record: Option<PathBuf>,
    /// JSON Lines instead of text.
    pub(crate) jsonl: bool,
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

/// Printer for the connect events: one line each on the locked standard
/// output, flushed at once. The first failed write (a closed pipe too) is
/// kept, and nothing more is printed; the session then ends cleanly and
/// `connect` returns it.
struct Out {
    jsonl: bool,
    start: Instant,
    failed: std::cell::RefCell<Option<std::io::Error>>,
}

impl Out {
    fn emit(&self, kind: &str, text: String, value: serde_json::Value) {
        if self.failed.borrow().is_some() {
            return;
        }
        let mut out = std::io::stdout().lock();
        let written = if self.jsonl {
            let mut v = json!({"t": self.start.elapsed().as_secs_f64(), "event": kind});
            if let (Some(o), serde_json::Value::Object(extra)) = (v.as_object_mut(), value) {
                o.extend(extra);
            }
            writeln!(out, "{v}")
        } else {
            writeln!(out, "[{:7.3}] {text}", self.start.elapsed().as_secs_f64())
        };
        if let Err(e) = written.and_then(|()| out.flush()) {
            *self.failed.borrow_mut() = Some(e);
        }
    }

    /// True once a write failed.
    fn failed(&self) -> bool {
        self.failed.borrow().is_some()
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

/// `gamewire tw connect`.
pub(crate) fn connect(o: &ConnectOptions) -> Result<(), CliError> {
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
        jsonl: o.jsonl,
        start: Instant::now(),
        failed: std::cell::RefCell::new(None),
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
        if closed.is_some() || now >= deadline || out.failed() {
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
    if let Some(e) = out.failed.borrow_mut().take() {
        return Err(crate::tw::stdout_error(e));
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
    if let Some(e) = out.failed.borrow_mut().take() {
        return Err(crate::tw::stdout_error(e));
    }
    if !entered {
        return Err(CliError::NotEntered { addr, closed });
    }
    Ok(())
}
