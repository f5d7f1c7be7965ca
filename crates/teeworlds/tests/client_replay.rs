//! The sans-IO game client driven by the server side of the captured
//! handshakes: real server bytes in, the join sequence out, no sockets.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use gamewire_teeworlds::client::{ClientEvent, GameClient, Identity};
use gamewire_teeworlds::conn::State;
use gamewire_teeworlds::decoder::{Decoder, Direction};

fn capture(file: &str) -> std::path::PathBuf {
    gamewire_corpus::path("teeworlds/captures").join(file)
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

struct Replay {
    /// Snapshots the stateless decoder finds in the same datagrams.
    expected_snapshots: u64,
    entered: bool,
    map: Option<String>,
    snapshots: u64,
    errors: Vec<String>,
    state: State,
    sent: usize,
}

/// Feeds the capture's server-to-client datagrams to a client whose token is
/// the one the capture's client used (`11223344`), answering map changes with
/// "have it".
fn replay(file: &str) -> Replay {
    let text = std::fs::read_to_string(capture(file)).unwrap();
    let mut client = GameClient::new(Duration::ZERO, 0x1122_3344, Identity::default());
    let mut decoder = Decoder::new();
    let mut r = Replay {
        expected_snapshots: 0,
        entered: false,
        map: None,
        snapshots: 0,
        errors: Vec::new(),
        state: State::Token,
        sent: 0,
    };
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let now = Duration::from_secs_f64(v["t"].as_f64().unwrap());
        if v["dir"] == "s2c" {
            let d = hex(v["hex"].as_str().unwrap());
            decoder.decode(Direction::ServerToClient, &d);
            client.handle_datagram(now, &d);
        }
        client.update(now);
        while let Some(e) = client.poll_event() {
            match e {
                ClientEvent::MapChange(info) => {
                    r.map = Some(info.name.clone());
                    client.map_ready(now);
                }
                ClientEvent::EnteredGame => r.entered = true,
                ClientEvent::Snapshot { crc_ok: true, .. } => r.snapshots += 1,
                ClientEvent::Error(e) => r.errors.push(e),
                _ => {}
            }
        }
        while client.poll_transmit().is_some() {
            r.sent += 1;
        }
    }
    r.state = client.state();
    r.expected_snapshots = decoder.snapshots_crc_ok;
    r
}

#[test]
fn joins_through_the_vanilla_handshake() {
    let r = replay("handshake_capture_0.7.5.jsonl");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.map.as_deref(), Some("dm1"));
    assert!(r.entered);
    assert_eq!(r.state, State::Online);
    // Every snapshot of the capture applied with a matching CRC.
    assert!(r.expected_snapshots > 20);
    assert_eq!(r.snapshots, r.expected_snapshots);
    assert!(r.sent > 10);
}

#[test]
fn joins_through_the_ddnet_handshake() {
    let r = replay("ddnet16.4_sixup_capture.jsonl");
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(r.map.as_deref(), Some("Tutorial"));
    assert!(r.entered);
    assert_eq!(r.state, State::Online);
    assert!(r.expected_snapshots > 20);
    assert_eq!(r.snapshots, r.expected_snapshots);
}

/// A hostile server: the captured server traffic with random bit flips,
/// truncations and junk appended, fed to the client. It may refuse anything;
/// it must not panic, and its map download and snapshot store stay bounded.
#[test]
fn mutated_server_traffic_never_panics() {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut rnd = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    };
    for file in [
        "handshake_capture_0.7.5.jsonl",
        "ddnet16.4_sixup_capture.jsonl",
    ] {
        let text = std::fs::read_to_string(capture(file)).unwrap();
        for _round in 0..20 {
            let mut client = GameClient::new(Duration::ZERO, 0x1122_3344, Identity::default());
            for line in text.lines() {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                if v["dir"] != "s2c" {
                    continue;
                }
                let now = Duration::from_secs_f64(v["t"].as_f64().unwrap());
                let mut d = hex(v["hex"].as_str().unwrap());
                match rnd() % 5 {
                    0 => d.truncate((rnd() as usize) % (d.len() + 1)),
                    1 => d.extend((0..rnd() % 32).map(|_| rnd() as u8)),
                    2 => {}
                    _ => {
                        // Keep the header's token so the flips reach the chunks.
                        for _ in 0..=(rnd() % 4) {
                            if d.len() > 7 {
                                let k = 7 + (rnd() as usize) % (d.len() - 7);
                                d[k] ^= 1 << (rnd() % 8);
                            }
                        }
                    }
                }
                client.handle_datagram(now, &d);
                client.update(now);
                while let Some(e) = client.poll_event() {
                    if let ClientEvent::MapChange(_) = e {
                        client.download_map(now);
                    }
                }
                while client.poll_transmit().is_some() {}
            }
        }
    }
}
