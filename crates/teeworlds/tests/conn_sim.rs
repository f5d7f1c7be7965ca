//! Deterministic two-endpoint tests of the connection state machine over a
//! simulated link that drops, duplicates and reorders datagrams.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use gamewire_teeworlds::conn::{CloseReason, Config, ConnEvent, Connection, State, Stats};
use proptest::prelude::*;

/// A small deterministic PRNG (xorshift64*), so failures replay exactly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// One direction of the link: datagrams with their delivery time.
struct Link {
    in_flight: Vec<(Duration, Vec<u8>)>,
    drop: u64,
    dup: u64,
    max_delay_ms: u64,
}

impl Link {
    fn send(&mut self, rng: &mut Rng, now: Duration, d: Vec<u8>) {
        if rng.chance(self.drop) {
            return;
        }
        let copies = if rng.chance(self.dup) { 2 } else { 1 };
        for _ in 0..copies {
            let delay = Duration::from_millis(1 + rng.next() % self.max_delay_ms.max(1));
            self.in_flight.push((now + delay, d.clone()));
        }
    }
    fn deliver(&mut self, now: Duration) -> Vec<Vec<u8>> {
        // Delivery order follows the (random) delays: reordering.
        self.in_flight.sort_by_key(|(t, _)| *t);
        let n = self.in_flight.iter().take_while(|(t, _)| *t <= now).count();
        self.in_flight.drain(..n).map(|(_, d)| d).collect()
    }
}

struct Outcome {
    client_got: Vec<Vec<u8>>,
    server_got: Vec<Vec<u8>>,
    client_state: State,
    server_state: State,
    client_stats: Stats,
    server_stats: Stats,
}

/// Runs a client and a server for `seconds`, each sending `n` numbered vital
/// messages (one every 20 ms once online) plus non-vital noise.
fn simulate(seed: u64, drop: u64, dup: u64, max_delay_ms: u64, n: usize, seconds: u64) -> Outcome {
    let mut rng = Rng(seed | 1);
    let cfg = Config::default();
    let t0 = Duration::ZERO;
    let mut client = Connection::connect(cfg, t0, 0x1122_3344);
    let mut server = Connection::listen(cfg, t0, 0xcd70_e17f);
    let mut c2s = Link {
        in_flight: Vec::new(),
        drop,
        dup,
        max_delay_ms,
    };
    let mut s2c = Link {
        in_flight: Vec::new(),
        drop,
        dup,
        max_delay_ms,
    };
    let (mut client_sent, mut server_sent) = (0usize, 0usize);
    let (mut client_got, mut server_got) = (Vec::new(), Vec::new());
    let step = Duration::from_millis(5);
    let mut now = t0;
    while now < Duration::from_secs(seconds) {
        now += step;
        for d in c2s.deliver(now) {
            server.handle_datagram(now, &d);
        }
        for d in s2c.deliver(now) {
            client.handle_datagram(now, &d);
        }
        let tick = now.as_millis().is_multiple_of(20);
        if tick && client.state() == State::Online && client_sent < n {
            client
                .send(now, format!("c{client_sent}").into_bytes(), true)
                .unwrap();
            client_sent += 1;
            client.send(now, b"noise".to_vec(), false).unwrap();
            client.flush(now);
        }
        if tick && server.state() == State::Online && server_sent < n {
            server
                .send(now, format!("s{server_sent}").into_bytes(), true)
                .unwrap();
            server_sent += 1;
            server.flush(now);
        }
        client.update(now);
        server.update(now);
        while let Some(d) = client.poll_transmit() {
            c2s.send(&mut rng, now, d);
        }
        while let Some(d) = server.poll_transmit() {
            s2c.send(&mut rng, now, d);
        }
        while let Some(e) = client.poll_event() {
            if let ConnEvent::Chunk { vital: true, data } = e {
                client_got.push(data);
            }
        }
        while let Some(e) = server.poll_event() {
            if let ConnEvent::Chunk { vital: true, data } = e {
                server_got.push(data);
            }
        }
    }
    Outcome {
        client_got,
        server_got,
        client_state: client.state(),
        server_state: server.state(),
        client_stats: client.stats(),
        server_stats: server.stats(),
    }
}

fn expected(prefix: char, n: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| format!("{prefix}{i}").into_bytes())
        .collect()
}

#[test]
fn perfect_link_delivers_everything_in_order() {
    let o = simulate(1, 0, 0, 1, 200, 8);
    assert_eq!(o.server_got, expected('c', 200));
    assert_eq!(o.client_got, expected('s', 200));
    assert_eq!(
        (o.client_state, o.server_state),
        (State::Online, State::Online)
    );
}

#[test]
fn lossy_duplicating_reordering_link_delivers_exactly_once_in_order() {
    for seed in 1..=8u64 {
        let o = simulate(seed * 7919, 20, 10, 80, 150, 40);
        assert_eq!(o.server_got, expected('c', 150), "seed {seed}: server");
        assert_eq!(o.client_got, expected('s', 150), "seed {seed}: client");
        assert_eq!(
            (o.client_state, o.server_state),
            (State::Online, State::Online),
            "seed {seed}"
        );
        // The link really misbehaved and the machinery really worked.
        for st in [o.client_stats, o.server_stats] {
            assert!(
                st.resent > 0 && st.duplicates > 0 && st.out_of_order > 0,
                "seed {seed}: {st:?}"
            );
        }
    }
}

#[test]
fn sequence_wraps_past_1024() {
    let o = simulate(99, 5, 5, 30, 1500, 60);
    assert_eq!(o.server_got, expected('c', 1500));
    assert_eq!(o.client_got, expected('s', 1500));
}

#[test]
fn dead_link_times_out() {
    let mut client = Connection::connect(Config::default(), Duration::ZERO, 1);
    let mut server = Connection::listen(Config::default(), Duration::ZERO, 2);
    let mut now = Duration::ZERO;
    // Handshake over a perfect link.
    for _ in 0..10 {
        now += Duration::from_millis(10);
        while let Some(d) = client.poll_transmit() {
            server.handle_datagram(now, &d);
        }
        while let Some(d) = server.poll_transmit() {
            client.handle_datagram(now, &d);
        }
        client.update(now);
        server.update(now);
    }
    assert_eq!(client.state(), State::Online);
    // Then nothing arrives any more.
    let mut closed = None;
    while now < Duration::from_secs(15) {
        now += Duration::from_millis(50);
        client.update(now);
        while client.poll_transmit().is_some() {}
        while let Some(e) = client.poll_event() {
            if let ConnEvent::Closed(r) = e {
                closed = Some((now, r));
            }
        }
    }
    let (at, reason) = closed.unwrap();
    assert_eq!(reason, CloseReason::Timeout);
    assert!(
        at > Duration::from_secs(10) && at < Duration::from_millis(10_200),
        "{at:?}"
    );
}

#[test]
fn close_reaches_the_peer_with_its_reason() {
    let mut client = Connection::connect(Config::default(), Duration::ZERO, 1);
    let mut server = Connection::listen(Config::default(), Duration::ZERO, 2);
    let now = Duration::from_millis(1);
    for _ in 0..4 {
        while let Some(d) = client.poll_transmit() {
            server.handle_datagram(now, &d);
        }
        while let Some(d) = server.poll_transmit() {
            client.handle_datagram(now, &d);
        }
    }
    assert_eq!(client.state(), State::Online);
    client.close(now, Some("bye"));
    while let Some(d) = client.poll_transmit() {
        server.handle_datagram(now, &d);
    }
    assert_eq!(server.state(), State::Closed);
    let events: Vec<_> = std::iter::from_fn(|| server.poll_event()).collect();
    assert!(events.contains(&ConnEvent::Closed(CloseReason::Peer(Some("bye".into())))));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn hostile_datagrams_are_ignored_without_panic(
        garbage in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..1500), 1..40)
    ) {
        let mut client = Connection::connect(Config::default(), Duration::ZERO, 0x1122_3344);
        let mut now = Duration::ZERO;
        for g in &garbage {
            now += Duration::from_millis(3);
            client.handle_datagram(now, g);
            client.update(now);
            while client.poll_transmit().is_some() {}
            while client.poll_event().is_some() {}
        }
        prop_assert!(client.unacked_bytes() <= gamewire_teeworlds::conn::MAX_RESEND_BYTES);
    }

    #[test]
    fn mutated_valid_traffic_never_panics(seed in any::<u64>(), flips in 1usize..8) {
        let mut rng = Rng(seed | 1);
        let mut client = Connection::connect(Config::default(), Duration::ZERO, 5);
        let mut server = Connection::listen(Config::default(), Duration::ZERO, 6);
        let mut now = Duration::ZERO;
        for i in 0..200u32 {
            now += Duration::from_millis(5);
            if client.state() == State::Online && i % 4 == 0 {
                let _ = client.send(now, vec![(i % 200) as u8; 1 + (i as usize % 40)], true);
                client.flush(now);
            }
            client.update(now);
            server.update(now);
            while let Some(mut d) = client.poll_transmit() {
                for _ in 0..flips {
                    if rng.chance(30) && !d.is_empty() {
                        let k = (rng.next() as usize) % d.len();
                        d[k] ^= 1 << (rng.next() % 8);
                    }
                }
                server.handle_datagram(now, &d);
            }
            while let Some(d) = server.poll_transmit() {
                client.handle_datagram(now, &d);
            }
            while server.poll_event().is_some() {}
            while client.poll_event().is_some() {}
        }
    }
}
