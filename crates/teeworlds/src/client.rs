//! A sans-IO game client: the join sequence of the 0.7.5 client on top of a
//! [`Connection`].
//!
//! # Join sequence (teeworlds 0.7.5 `client.cpp`, `gameclient.cpp`)
//! 1. Online: send `info` (version string, password, client version).
//! 2. `map_change`: the caller says whether it has the map
//!    ([`GameClient::map_ready`]) or wants it downloaded
//!    ([`GameClient::download_map`]). Downloading sends `request_map_data` and
//!    collects `map_data` chunks of `chunk_size` bytes, asking again after
//!    every `num_response_chunks_per_request` chunks; the result is checked
//!    against the announced size, CRC32 and SHA-256. Then `ready`.
//! 3. `con_ready`: send `cl_start_info`.
//! 4. `sv_ready_to_enter`: send `enter_game`.
//! 5. Snapshots arrive; the client acknowledges the newest one in `input`
//!    (sent every 50 ms), which makes the server switch from one snapshot per
//!    second to the full rate.
//!
//! Time is passed in; datagrams to send come out of
//! [`GameClient::poll_transmit`], events out of [`GameClient::poll_event`].

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use crate::conn::{CloseReason, Config, ConnEvent, Connection, State};
use crate::map;
use crate::msg::{
    chat, ClSay, ClStartInfo, EnterGame, GameMessage, Info, Input, Message, PlayerInput, Ready,
    RequestMapData, SystemMessage, CLIENT_VERSION, VERSION,
};
use crate::snapshot::{SnapHeader, Snapshot, SnapshotReceiver};

/// Largest map this client downloads (64 MiB; the biggest DDNet maps are a
/// few MiB), which bounds the memory a hostile server can make it use.
pub const MAX_MAP_SIZE: i32 = 64 << 20;

/// Who to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Player name.
    pub name: String,
    /// Clan.
    pub clan: String,
    /// Country code (-1: none).
    pub country: i32,
    /// Skin part names (body, marking, decoration, hands, feet, eyes).
    pub skin_parts: [String; 6],
}

impl Default for Identity {
    fn default() -> Self {
        Identity {
            name: "nameless tee".into(),
            clan: String::new(),
            country: -1,
            skin_parts: [
                "standard".into(),
                String::new(),
                String::new(),
                "standard".into(),
                "standard".into(),
                "standard".into(),
            ],
        }
    }
}

/// The map the server announced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapInfo {
    /// Name.
    pub name: String,
    /// CRC32.
    pub crc: i32,
    /// Size in bytes.
    pub size: i32,
    /// SHA-256.
    pub sha256: [u8; 32],
}

/// Something the caller may want to show or act on.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ClientEvent {
    /// The connection is online.
    Connected,
    /// The server announced a map; answer with [`GameClient::map_ready`] or
    /// [`GameClient::download_map`].
    MapChange(MapInfo),
    /// A map download finished and checked out.
    MapDownloaded {
        /// The map.
        info: MapInfo,
        /// Its bytes.
        data: Vec<u8>,
    },
    /// We are in the game.
    EnteredGame,
    /// A chat line.
    Chat {
        /// Mode (1 all, 2 team, 3 whisper).
        mode: i32,
        /// Sender (-1: server).
        client_id: i32,
        /// Sender's name, if known.
        name: Option<String>,
        /// The text.
        message: String,
    },
    /// A player joined (or was already there when we joined, `silent`).
    PlayerJoined {
        /// Client id.
        client_id: i32,
        /// Name.
        name: String,
        /// It is us.
        local: bool,
    },
    /// A player left.
    PlayerLeft {
        /// Client id.
        client_id: i32,
        /// Name, if known.
        name: Option<String>,
        /// Reason.
        reason: String,
    },
    /// A snapshot was applied.
    Snapshot {
        /// Tick.
        tick: i32,
        /// The CRC matched.
        crc_ok: bool,
    },
    /// Any decoded message (all of them, including the ones above).
    Message(Message),
    /// A message, snapshot or map download failed to decode or check.
    Error(String),
    /// The connection closed.
    Closed(CloseReason),
}

#[derive(Debug, Clone)]
struct Download {
    info: MapInfo,
    chunk_size: usize,
    per_request: usize,
    chunks: usize,
    data: Vec<u8>,
}

/// The client.
#[derive(Debug)]
pub struct GameClient {
    conn: Connection,
    identity: Identity,
    snapshots: SnapshotReceiver,
    players: BTreeMap<i32, String>,
    local_id: Option<i32>,
    download: Option<Download>,
    map: Option<MapInfo>,
    pending_chunk_size: usize,
    pending_per_request: usize,
    entered: bool,
    latest_tick: i32,
    last_input: Duration,
    events: VecDeque<ClientEvent>,
    /// Snapshots applied with a matching CRC.
    pub snapshots_ok: u64,
    /// Snapshot, message or map errors.
    pub errors: u64,
}

impl GameClient {
    /// Starts connecting. `token` is a random 32-bit value (not `0xffffffff`).
    pub fn new(now: Duration, token: u32, identity: Identity) -> Self {
        GameClient {
            conn: Connection::connect(Config::default(), now, token),
            identity,
            snapshots: SnapshotReceiver::new(),
            players: BTreeMap::new(),
            local_id: None,
            download: None,
            map: None,
            pending_chunk_size: 1,
            pending_per_request: 1,
            entered: false,
            latest_tick: -1,
            last_input: now,
            events: VecDeque::new(),
            snapshots_ok: 0,
            errors: 0,
        }
    }

    /// The connection state.
    pub fn state(&self) -> State {
        self.conn.state()
    }

    /// The underlying connection.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// Our client id, once the server told us.
    pub fn local_id(&self) -> Option<i32> {
        self.local_id
    }

    /// Known players by client id.
    pub fn players(&self) -> &BTreeMap<i32, String> {
        &self.players
    }

    /// The newest snapshot.
    pub fn snapshot(&self) -> Option<(i32, &Snapshot)> {
        self.snapshots.latest()
    }

    /// In game.
    pub fn entered(&self) -> bool {
        self.entered
    }

    /// The next datagram to send.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.conn.poll_transmit()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<ClientEvent> {
        self.events.pop_front()
    }

    fn send(&mut self, now: Duration, m: Message, vital: bool) {
        if let Err(e) = self.conn.send(now, m.encode(), vital) {
            self.errors += 1;
            self.events
                .push_back(ClientEvent::Error(format!("sending {}: {e}", m.name())));
        }
    }

    fn sys(&mut self, now: Duration, m: SystemMessage) {
        self.send(now, Message::System(m), true);
        self.conn.flush(now);
    }

    /// The map is available locally: continue the join.
    pub fn map_ready(&mut self, now: Duration) {
        self.download = None;
        self.sys(now, SystemMessage::Ready(Ready {}));
    }

    /// Download the announced map.
    pub fn download_map(&mut self, now: Duration) {
        let Some(info) = self.map.clone() else {
            return;
        };
        if !(0..=MAX_MAP_SIZE).contains(&info.size) {
            self.errors += 1;
            self.events.push_back(ClientEvent::Error(format!(
                "the map {} announces {} bytes, outside 0..={MAX_MAP_SIZE}",
                info.name, info.size
            )));
            self.disconnect(now, Some("map too big"));
            return;
        }
        self.download = Some(Download {
            chunk_size: self.pending_chunk_size.max(1),
            per_request: self.pending_per_request.max(1),
            chunks: 0,
            data: Vec::with_capacity(usize::try_from(info.size).unwrap_or(0)),
            info,
        });
        self.sys(now, SystemMessage::RequestMapData(RequestMapData {}));
    }

    /// Says a chat line to everyone.
    pub fn say(&mut self, now: Duration, text: &str) {
        let m = GameMessage::ClSay(ClSay {
            mode: chat::ALL,
            target: -1,
            message: text.to_owned(),
        });
        self.send(now, Message::Game(m), true);
        self.conn.flush(now);
    }

    /// Disconnects cleanly.
    pub fn disconnect(&mut self, now: Duration, reason: Option<&str>) {
        self.conn.close(now, reason);
        self.drain_conn(now);
    }

    /// Feeds a received datagram.
    pub fn handle_datagram(&mut self, now: Duration, datagram: &[u8]) {
        self.conn.handle_datagram(now, datagram);
        self.drain_conn(now);
    }

    /// Runs timers; call every few milliseconds.
    pub fn update(&mut self, now: Duration) {
        if self.entered && now.saturating_sub(self.last_input) >= Duration::from_millis(50) {
            self.last_input = now;
            let input = Input::new(
                self.latest_tick,
                self.latest_tick + 1,
                &PlayerInput::default(),
            );
            self.send(now, Message::System(SystemMessage::Input(input)), false);
            self.conn.flush(now);
        }
        self.conn.update(now);
        self.drain_conn(now);
    }

    fn drain_conn(&mut self, now: Duration) {
        while let Some(e) = self.conn.poll_event() {
            match e {
                ConnEvent::Connected => {
                    self.events.push_back(ClientEvent::Connected);
                    let info = SystemMessage::Info(Info {
                        version: VERSION.to_owned(),
                        password: Some(String::new()),
                        client_version: Some(CLIENT_VERSION),
                    });
                    self.sys(now, info);
                }
                ConnEvent::Chunk { data, .. } => self.handle_chunk(now, &data),
                ConnEvent::Closed(r) => self.events.push_back(ClientEvent::Closed(r)),
            }
        }
    }

    fn handle_chunk(&mut self, now: Duration, data: &[u8]) {
        let message = match Message::decode(data) {
            Ok((m, _)) => m,
            Err(e) => {
                self.errors += 1;
                self.events.push_back(ClientEvent::Error(e.to_string()));
                return;
            }
        };
        match &message {
            Message::System(SystemMessage::MapChange(m)) => {
                self.snapshots.reset();
                self.entered = false;
                self.latest_tick = -1;
                let info = MapInfo {
                    name: m.name.clone(),
                    crc: m.crc,
                    size: m.size,
                    sha256: m.sha256,
                };
                self.pending_chunk_size = usize::try_from(m.chunk_size).unwrap_or(1);
                self.pending_per_request =
                    usize::try_from(m.num_response_chunks_per_request).unwrap_or(1);
                self.map = Some(info.clone());
                self.events.push_back(ClientEvent::MapChange(info));
            }
            Message::System(SystemMessage::MapData(m)) => self.map_data(now, &m.data),
            Message::System(SystemMessage::ConReady(_)) => {
                let id = &self.identity;
                let start = ClStartInfo {
                    name: id.name.clone(),
                    clan: id.clan.clone(),
                    country: id.country,
                    skin_part_names: id.skin_parts.clone(),
                    use_custom_colors: [false; 6],
                    skin_part_colors: [0; 6],
                };
                self.send(now, Message::Game(GameMessage::ClStartInfo(start)), true);
                self.conn.flush(now);
            }
            Message::Game(GameMessage::SvReadyToEnter(_)) => {
                self.sys(now, SystemMessage::EnterGame(EnterGame {}));
                self.entered = true;
                self.events.push_back(ClientEvent::EnteredGame);
            }
            Message::Game(GameMessage::SvClientInfo(c)) => {
                let known = self.players.insert(c.client_id, c.name.clone()).is_some();
                if c.local {
                    self.local_id = Some(c.client_id);
                }
                if !known {
                    self.events.push_back(ClientEvent::PlayerJoined {
                        client_id: c.client_id,
                        name: c.name.clone(),
                        local: c.local,
                    });
                }
            }
            Message::Game(GameMessage::SvClientDrop(c)) => {
                let name = self.players.remove(&c.client_id);
                self.events.push_back(ClientEvent::PlayerLeft {
                    client_id: c.client_id,
                    name,
                    reason: c.reason.clone(),
                });
            }
            Message::Game(GameMessage::SvChat(c)) => {
                self.events.push_back(ClientEvent::Chat {
                    mode: c.mode,
                    client_id: c.client_id,
                    name: self.players.get(&c.client_id).cloned(),
                    message: c.message.clone(),
                });
            }
            Message::System(SystemMessage::Snap(s)) => self.snap(
                SnapHeader {
                    tick: s.tick,
                    delta_distance: s.delta_tick,
                    num_parts: s.num_parts,
                    part: s.part,
                    crc: Some(s.crc),
                },
                &s.data.clone(),
            ),
            Message::System(SystemMessage::SnapSingle(s)) => self.snap(
                SnapHeader {
                    tick: s.tick,
                    delta_distance: s.delta_tick,
                    num_parts: 1,
                    part: 0,
                    crc: Some(s.crc),
                },
                &s.data.clone(),
            ),
            Message::System(SystemMessage::SnapEmpty(s)) => self.snap(
                SnapHeader {
                    tick: s.tick,
                    delta_distance: s.delta_tick,
                    num_parts: 1,
                    part: 0,
                    crc: None,
                },
                &[],
            ),
            _ => {}
        }
        self.events.push_back(ClientEvent::Message(message));
    }

    fn snap(&mut self, h: SnapHeader, data: &[u8]) {
        match self.snapshots.feed(h, data) {
            Ok(Some(r)) => {
                if r.tick > self.latest_tick {
                    self.latest_tick = r.tick;
                }
                if r.crc_ok {
                    self.snapshots_ok += 1;
                }
                self.events.push_back(ClientEvent::Snapshot {
                    tick: r.tick,
                    crc_ok: r.crc_ok,
                });
            }
            Ok(None) => {}
            Err(e) => {
                self.errors += 1;
                self.events.push_back(ClientEvent::Error(e.to_string()));
            }
        }
    }

    fn map_data(&mut self, now: Duration, bytes: &[u8]) {
        let Some(d) = self.download.as_mut() else {
            return;
        };
        let total = usize::try_from(d.info.size).unwrap_or(0);
        let want = d.chunk_size.min(total.saturating_sub(d.data.len()));
        d.data
            .extend_from_slice(bytes.get(..want.min(bytes.len())).unwrap_or(&[]));
        d.chunks += 1;
        if d.data.len() >= total {
            let done = self.download.take();
            if let Some(d) = done {
                match map::verify(&d.data, d.info.size, d.info.crc, &d.info.sha256) {
                    Ok(()) => {
                        self.events.push_back(ClientEvent::MapDownloaded {
                            info: d.info,
                            data: d.data,
                        });
                        self.sys(now, SystemMessage::Ready(Ready {}));
                    }
                    Err(e) => {
                        self.errors += 1;
                        self.events.push_back(ClientEvent::Error(e.to_string()));
                        self.disconnect(now, Some("map download failed"));
                    }
                }
            }
        } else if d.chunks % d.per_request == 0 {
            self.sys(now, SystemMessage::RequestMapData(RequestMapData {}));
        }
    }
}
