//! The connection state machine, sans-IO.
//!
//! No sockets and no clocks: the caller passes the current time (a
//! [`Duration`] since any fixed origin) into every call, feeds received
//! datagrams with [`Connection::handle_datagram`], calls
//! [`Connection::update`] regularly (every few milliseconds is plenty), and
//! sends what [`Connection::poll_transmit`] returns. Delivered chunks and
//! state changes come out of [`Connection::poll_event`].
//!
//! # Protocol (teeworlds 0.7.5 `network_conn.cpp`, `network_client.cpp`)
//!
//! * **Token exchange.** The client sends a `TOKEN` control message with
//!   header token `NET_TOKEN_NONE`, its own token and padding to 512 bytes;
//!   the server answers with its token. From then on every packet carries the
//!   *receiver's* token in its header. Requests are repeated every 500 ms;
//!   without an answer for 5 s the attempt fails.
//! * **Connect.** The client sends `CONNECT` (its token, padded to 512
//!   bytes) every 500 ms until the server's `ACCEPT`; then it is online.
//!   (The server side goes online on the first chunk packet.)
//! * **Vital chunks** carry a 10-bit sequence. The receiver delivers only the
//!   next expected one, drops old ones (within the half window behind its
//!   ack) and asks for a resend (header resend flag) on a gap. Each packet
//!   header acks the last in-order sequence; acked chunks leave the resend
//!   buffer. The oldest unacked chunk is resent after 1 s; a chunk unacked for
//!   10 s ends the connection.
//! * **Keepalive** after 1 s without sending; pending chunks are flushed after
//!   500 ms. Nothing received for 10 s is a timeout.
//! * **Close** carries an optional reason.
//!
//! # Bounds
//! The resend buffer holds at most [`MAX_RESEND_BYTES`] (the reference's
//! `NET_CONN_BUFFERSIZE`); queueing beyond fails. Received datagrams that do not
//! decode or do not carry our token are counted and ignored.

use std::collections::VecDeque;
use std::time::Duration;

use crate::packet::{
    seq_in_backroom, Chunk, ChunkHeader, ControlMessage, Packet, PacketHeader, HEADER_SIZE,
    MAX_PAYLOAD, MAX_SEQUENCE, TOKEN_NONE, TOKEN_REQUEST_DATASIZE,
};

/// Most bytes of unacked vital chunks kept (`NET_CONN_BUFFERSIZE`).
pub const MAX_RESEND_BYTES: usize = 32 * 1024;

/// Timing of the state machine; the defaults are the 0.7.5 values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Nothing received for this long ends the connection.
    pub timeout: Duration,
    /// No token answer for this long ends the attempt.
    pub token_timeout: Duration,
    /// Token requests and connects are repeated this often.
    pub handshake_interval: Duration,
    /// The oldest unacked vital chunk is resent after this.
    pub resend_interval: Duration,
    /// A vital chunk unacked for this long ends the connection.
    pub max_unacked: Duration,
    /// Pending chunks are flushed after this.
    pub flush_interval: Duration,
    /// A keepalive is sent after this long without sending.
    pub keepalive_interval: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            timeout: Duration::from_secs(10),
            token_timeout: Duration::from_secs(5),
            handshake_interval: Duration::from_millis(500),
            resend_interval: Duration::from_secs(1),
            max_unacked: Duration::from_secs(10),
            flush_interval: Duration::from_millis(500),
            keepalive_interval: Duration::from_secs(1),
        }
    }
}

/// Connection state (`NET_CONNSTATE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Server side, waiting for a token request or connect.
    Listening,
    /// Client waiting for the server's token.
    Token,
    /// Client waiting for `ACCEPT`.
    Connect,
    /// Server accepted, waiting for the first chunk packet.
    Pending,
    /// Online.
    Online,
    /// Closed (by either side, a timeout or an error).
    Closed,
}

/// Why the connection closed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloseReason {
    /// The peer sent `CLOSE`.
    Peer(Option<String>),
    /// We closed.
    Local(Option<String>),
    /// Nothing received in time.
    Timeout,
    /// No token answer in time.
    NoToken,
    /// A vital chunk stayed unacked too long.
    Unacked,
    /// The resend buffer overflowed.
    BufferFull,
}

/// Something that happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnEvent {
    /// The connection is online.
    Connected,
    /// A chunk arrived (vital ones exactly once and in order).
    Chunk {
        /// It was vital.
        vital: bool,
        /// Its payload (message id first).
        data: Vec<u8>,
    },
    /// The connection closed.
    Closed(CloseReason),
}

/// Error queueing a chunk.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SendError {
    /// Not online.
    #[error("the connection is not online")]
    NotOnline,
    /// The chunk does not fit in a packet.
    #[error("a chunk of {len} bytes does not fit in a packet")]
    TooBig {
        /// Its size.
        len: usize,
    },
    /// Too much unacked data.
    #[error("more than {MAX_RESEND_BYTES} bytes of vital data are unacked")]
    BufferFull,
}

/// Counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Datagrams received.
    pub datagrams_in: u64,
    /// Datagrams sent.
    pub datagrams_out: u64,
    /// Datagrams ignored (undecodable, wrong token, bad ack, wrong state).
    pub ignored: u64,
    /// Vital chunks resent.
    pub resent: u64,
    /// Duplicate vital chunks dropped.
    pub duplicates: u64,
    /// Out-of-order vital chunks dropped (and resend requested).
    pub out_of_order: u64,
}

#[derive(Debug, Clone)]
struct Unacked {
    sequence: u16,
    data: Vec<u8>,
    first_send: Duration,
    last_send: Duration,
}

/// One end of a connection.
#[derive(Debug, Clone)]
pub struct Connection {
    config: Config,
    state: State,
    token: u32,
    peer_token: u32,
    /// Sequence of the last vital chunk we queued.
    sequence: u16,
    /// Sequence of the last in-order vital chunk we received.
    ack: u16,
    /// The last ack the peer sent us.
    peer_ack: u16,
    unacked: VecDeque<Unacked>,
    unacked_bytes: usize,
    pending: Vec<Chunk>,
    pending_bytes: usize,
    request_resend: bool,
    last_recv: Duration,
    last_send: Duration,
    transmit: VecDeque<Vec<u8>>,
    events: VecDeque<ConnEvent>,
    stats: Stats,
}

impl Connection {
    fn new(config: Config, now: Duration, token: u32, state: State) -> Self {
        Connection {
            config,
            state,
            token,
            peer_token: TOKEN_NONE,
            sequence: 0,
            ack: 0,
            peer_ack: 0,
            unacked: VecDeque::new(),
            unacked_bytes: 0,
            pending: Vec::new(),
            pending_bytes: 0,
            request_resend: false,
            last_recv: now,
            last_send: now,
            transmit: VecDeque::new(),
            events: VecDeque::new(),
            stats: Stats::default(),
        }
    }

    /// Starts a client connection: queues the first token request. `token` is
    /// our random token (the caller picks it; it must not be `0xffffffff`).
    pub fn connect(config: Config, now: Duration, token: u32) -> Self {
        let mut c = Connection::new(config, now, token, State::Token);
        c.send_token_request(now);
        c
    }

    /// A server-side end waiting for one client's token request and connect.
    pub fn listen(config: Config, now: Duration, token: u32) -> Self {
        Connection::new(config, now, token, State::Listening)
    }

    /// The state.
    pub fn state(&self) -> State {
        self.state
    }

    /// Counters.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Our token.
    pub fn token(&self) -> u32 {
        self.token
    }

    /// The peer's token.
    pub fn peer_token(&self) -> u32 {
        self.peer_token
    }

    /// Bytes of vital data not yet acked.
    pub fn unacked_bytes(&self) -> usize {
        self.unacked_bytes
    }

    /// The next datagram to send.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmit.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<ConnEvent> {
        self.events.pop_front()
    }

    fn emit(&mut self, now: Duration, packet: &Packet) {
        if let Ok(bytes) = packet.encode(true) {
            self.transmit.push_back(bytes);
            self.stats.datagrams_out += 1;
            self.last_send = now;
        }
    }

    fn control(&mut self, now: Duration, header_token: u32, message: ControlMessage) {
        let packet = Packet::Control {
            header: PacketHeader {
                ack: self.ack,
                token: header_token,
                ..PacketHeader::default()
            },
            message,
        };
        self.emit(now, &packet);
    }

    fn send_token_request(&mut self, now: Duration) {
        let token = self.token;
        self.control(
            now,
            TOKEN_NONE,
            ControlMessage::Token {
                token,
                padding: TOKEN_REQUEST_DATASIZE - 4,
            },
        );
    }

    fn send_connect(&mut self, now: Duration) {
        let (peer, token) = (self.peer_token, self.token);
        self.control(
            now,
            peer,
            ControlMessage::Connect {
                token,
                padding: TOKEN_REQUEST_DATASIZE - 4,
            },
        );
    }

    fn close_with(&mut self, reason: CloseReason) {
        if self.state != State::Closed {
            self.state = State::Closed;
            self.pending.clear();
            self.pending_bytes = 0;
            self.events.push_back(ConnEvent::Closed(reason));
        }
    }

    /// Closes the connection, telling the peer.
    pub fn close(&mut self, now: Duration, reason: Option<&str>) {
        if self.state == State::Closed {
            return;
        }
        if matches!(self.state, State::Online | State::Pending | State::Connect) {
            let peer = self.peer_token;
            self.control(
                now,
                peer,
                ControlMessage::Close {
                    reason: reason.map(str::to_owned),
                },
            );
        }
        self.close_with(CloseReason::Local(reason.map(str::to_owned)));
    }

    /// Queues a chunk (a message with its id). Vital chunks are sequenced,
    /// kept until acked and resent; all are sent at the next [`flush`](Self::flush)
    /// or after the flush interval.
    pub fn send(&mut self, now: Duration, data: Vec<u8>, vital: bool) -> Result<(), SendError> {
        if self.state != State::Online && self.state != State::Pending {
            return Err(SendError::NotOnline);
        }
        if data.len() + 3 > MAX_PAYLOAD || data.len() > 0xfff {
            return Err(SendError::TooBig { len: data.len() });
        }
        let mut header = ChunkHeader {
            vital,
            resend: false,
            size: data.len() as u16,
            sequence: 0,
        };
        if vital {
            if self.unacked_bytes + data.len() > MAX_RESEND_BYTES {
                self.close_with(CloseReason::BufferFull);
                return Err(SendError::BufferFull);
            }
            self.sequence = (self.sequence + 1) % MAX_SEQUENCE;
            header.sequence = self.sequence;
            self.unacked.push_back(Unacked {
                sequence: self.sequence,
                data: data.clone(),
                first_send: now,
                last_send: now,
            });
            self.unacked_bytes += data.len();
        }
        self.queue(now, Chunk { header, data });
        Ok(())
    }

    fn queue(&mut self, now: Duration, chunk: Chunk) {
        let len = chunk.header.len() + chunk.data.len();
        if self.pending_bytes + len > MAX_PAYLOAD || self.pending.len() >= 255 {
            self.flush(now);
        }
        self.pending_bytes += len;
        self.pending.push(chunk);
    }

    /// Sends the pending chunks now (also sends an empty packet to carry an
    /// ack or resend request when `force` would be useful: use
    /// [`update`](Self::update) for that).
    pub fn flush(&mut self, now: Duration) {
        if self.pending.is_empty() && !self.request_resend {
            return;
        }
        if self.state != State::Online && self.state != State::Pending {
            return;
        }
        let chunks = std::mem::take(&mut self.pending);
        self.pending_bytes = 0;
        let mut header = PacketHeader {
            ack: self.ack,
            token: self.peer_token,
            ..PacketHeader::default()
        };
        header.flags.resend = std::mem::take(&mut self.request_resend);
        self.emit(now, &Packet::Chunks { header, chunks });
    }

    fn resend_all(&mut self, now: Duration) {
        let chunks: Vec<Chunk> = self
            .unacked
            .iter_mut()
            .map(|u| {
                u.last_send = now;
                Chunk {
                    header: ChunkHeader {
                        vital: true,
                        resend: true,
                        size: u.data.len() as u16,
                        sequence: u.sequence,
                    },
                    data: u.data.clone(),
                }
            })
            .collect();
        self.stats.resent += chunks.len() as u64;
        for c in chunks {
            self.queue(now, c);
        }
        self.flush(now);
    }

    fn ack_chunks(&mut self, ack: u16) {
        while let Some(first) = self.unacked.front() {
            if seq_in_backroom(first.sequence, ack) {
                self.unacked_bytes -= first.data.len();
                self.unacked.pop_front();
            } else {
                break;
            }
        }
    }

    /// Handles a received datagram. Anything invalid is ignored (and counted).
    pub fn handle_datagram(&mut self, now: Duration, datagram: &[u8]) {
        self.stats.datagrams_in += 1;
        if self.state == State::Closed || datagram.len() < HEADER_SIZE {
            self.stats.ignored += 1;
            return;
        }
        let Ok(decoded) = Packet::decode(datagram) else {
            self.stats.ignored += 1;
            return;
        };
        match decoded.packet {
            Packet::Connless(_) => self.stats.ignored += 1,
            Packet::Control { header, message } => self.handle_control(now, header, message),
            Packet::Chunks { header, chunks } => self.handle_chunks(now, header, chunks),
        }
    }

    /// The ack check of `CNetConnection::Feed`: the peer may only ack what we
    /// sent, and not go back behind what it acked before.
    fn ack_valid(&self, ack: u16) -> bool {
        if self.sequence >= self.peer_ack {
            !(ack < self.peer_ack || ack > self.sequence)
        } else {
            !(ack < self.peer_ack && ack > self.sequence)
        }
    }

    fn handle_control(&mut self, now: Duration, header: PacketHeader, message: ControlMessage) {
        match (self.state, message) {
            // Server side: token request (no token yet in the header).
            (State::Listening, ControlMessage::Token { token, padding })
                if padding + 4 >= TOKEN_REQUEST_DATASIZE =>
            {
                self.peer_token = token;
                let my = self.token;
                self.control(
                    now,
                    token,
                    ControlMessage::Token {
                        token: my,
                        padding: 0,
                    },
                );
            }
            (State::Listening | State::Pending, ControlMessage::Connect { token, .. })
                if header.token == self.token =>
            {
                self.peer_token = token;
                self.state = State::Pending;
                self.last_recv = now;
                self.control(now, token, ControlMessage::Accept { token: None });
            }
            (State::Token, ControlMessage::Token { token, .. }) if header.token == self.token => {
                self.peer_token = token;
                self.state = State::Connect;
                self.last_recv = now;
                self.send_connect(now);
            }
            (State::Connect, ControlMessage::Accept { .. }) if header.token == self.token => {
                self.state = State::Online;
                self.last_recv = now;
                self.events.push_back(ConnEvent::Connected);
            }
            (State::Online | State::Pending | State::Connect, ControlMessage::Close { reason })
                if header.token == self.token =>
            {
                self.close_with(CloseReason::Peer(reason));
            }
            (State::Online, ControlMessage::KeepAlive) if header.token == self.token => {
                if !self.ack_valid(header.ack) {
                    self.stats.ignored += 1;
                    return;
                }
                self.peer_ack = header.ack;
                self.last_recv = now;
                self.ack_chunks(header.ack);
                if header.flags.resend {
                    self.resend_all(now);
                }
            }
            _ => self.stats.ignored += 1,
        }
    }

    fn handle_chunks(&mut self, now: Duration, header: PacketHeader, chunks: Vec<Chunk>) {
        if header.token != self.token || !self.ack_valid(header.ack) {
            self.stats.ignored += 1;
            return;
        }
        match self.state {
            State::Online => {}
            State::Pending => {
                self.state = State::Online;
                self.events.push_back(ConnEvent::Connected);
            }
            _ => {
                self.stats.ignored += 1;
                return;
            }
        }
        self.peer_ack = header.ack;
        self.last_recv = now;
        self.ack_chunks(header.ack);
        if header.flags.resend {
            self.resend_all(now);
        }
        for chunk in chunks {
            if chunk.header.vital {
                let expected = (self.ack + 1) % MAX_SEQUENCE;
                if chunk.header.sequence == expected {
                    self.ack = expected;
                } else if seq_in_backroom(chunk.header.sequence, self.ack) {
                    self.stats.duplicates += 1;
                    continue;
                } else {
                    self.stats.out_of_order += 1;
                    self.request_resend = true;
                    continue;
                }
            }
            self.events.push_back(ConnEvent::Chunk {
                vital: chunk.header.vital,
                data: chunk.data,
            });
        }
    }

    /// Runs the timers: handshake repeats, resends, flushes, keepalives and
    /// timeouts.
    pub fn update(&mut self, now: Duration) {
        let since_recv = now.saturating_sub(self.last_recv);
        let since_send = now.saturating_sub(self.last_send);
        match self.state {
            State::Closed | State::Listening => return,
            State::Token => {
                if since_recv > self.config.token_timeout {
                    self.close_with(CloseReason::NoToken);
                } else if since_send > self.config.handshake_interval {
                    self.send_token_request(now);
                }
                return;
            }
            _ => {}
        }
        if since_recv > self.config.timeout {
            self.close_with(CloseReason::Timeout);
            return;
        }
        if let Some(first) = self.unacked.front() {
            if now.saturating_sub(first.first_send) > self.config.max_unacked {
                self.close_with(CloseReason::Unacked);
                return;
            }
            if now.saturating_sub(first.last_send) > self.config.resend_interval {
                let c = Chunk {
                    header: ChunkHeader {
                        vital: true,
                        resend: true,
                        size: first.data.len() as u16,
                        sequence: first.sequence,
                    },
                    data: first.data.clone(),
                };
                if let Some(f) = self.unacked.front_mut() {
                    f.last_send = now;
                }
                self.stats.resent += 1;
                self.queue(now, c);
                self.flush(now);
            }
        }
        match self.state {
            State::Online => {
                if self.request_resend
                    || (!self.pending.is_empty() && since_send > self.config.flush_interval)
                {
                    self.flush(now);
                }
                if now.saturating_sub(self.last_send) > self.config.keepalive_interval {
                    let peer = self.peer_token;
                    self.control(now, peer, ControlMessage::KeepAlive);
                }
            }
            State::Connect if since_send > self.config.handshake_interval => {
                self.send_connect(now);
            }
            State::Pending if since_send > self.config.handshake_interval => {
                let peer = self.peer_token;
                self.control(now, peer, ControlMessage::Accept { token: None });
            }
            _ => {}
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn handshake_matches_the_capture_layout() {
        let mut c = Connection::connect(Config::default(), ms(0), 0x1122_3344);
        let req = c.poll_transmit().unwrap();
        // Same bytes as the captured token request: 520 bytes, token none.
        assert_eq!(req.len(), 520);
        assert_eq!(
            &req[..12],
            &[0x04, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x05, 0x11, 0x22, 0x33, 0x44]
        );
        // The captured answer (handshake_capture_0.7.5.jsonl line 2).
        c.handle_datagram(
            ms(1),
            &[
                0x04, 0, 0, 0x11, 0x22, 0x33, 0x44, 0x05, 0xcd, 0x70, 0xe1, 0x7f,
            ],
        );
        assert_eq!(c.state(), State::Connect);
        let connect = c.poll_transmit().unwrap();
        assert_eq!(connect.len(), 520);
        assert_eq!(
            &connect[..12],
            &[0x04, 0, 0, 0xcd, 0x70, 0xe1, 0x7f, 0x01, 0x11, 0x22, 0x33, 0x44]
        );
        c.handle_datagram(ms(2), &[0x04, 0, 0, 0x11, 0x22, 0x33, 0x44, 0x02]);
        assert_eq!(c.state(), State::Online);
        assert_eq!(c.poll_event(), Some(ConnEvent::Connected));
        // sys info as the first vital chunk: sequence 1, header "40 xx 01".
        c.send(ms(3), vec![0x03, 0x30, 0x00], true).unwrap();
        c.flush(ms(3));
        let p = c.poll_transmit().unwrap();
        assert_eq!(&p[..3], &[0x00, 0x00, 0x01]);
        assert_eq!(&p[3..7], &[0xcd, 0x70, 0xe1, 0x7f]);
        assert_eq!(&p[7..10], &[0x40, 0x03, 0x01]);
    }

    #[test]
    fn wrong_token_is_ignored() {
        let mut c = Connection::connect(Config::default(), ms(0), 7);
        c.handle_datagram(ms(1), &[0x04, 0, 0, 0, 0, 0, 8, 0x05, 1, 2, 3, 4]);
        assert_eq!(c.state(), State::Token);
        assert_eq!(c.stats().ignored, 1);
    }

    #[test]
    fn token_timeout() {
        let mut c = Connection::connect(Config::default(), ms(0), 7);
        let mut sent = 0;
        for t in (0..6000).step_by(10) {
            c.update(ms(t));
            while c.poll_transmit().is_some() {
                sent += 1;
            }
        }
        assert_eq!(
            c.poll_event(),
            Some(ConnEvent::Closed(CloseReason::NoToken))
        );
        assert!((9..=11).contains(&sent), "{sent} token requests");
    }
}
