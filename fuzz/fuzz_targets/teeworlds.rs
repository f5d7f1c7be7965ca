//! Teeworlds 0.7 from a hostile peer: a stream of datagrams into the traffic
//! decoder (packet layer, huffman, chunks, every message, snapshot deltas)
//! and into both ends of the sans-IO connection (token handshake, acks,
//! resends, control messages). Nothing may panic, hang or grow without
//! bound; errors are reported, not thrown.
//!
//! Input layout: byte 0 = the connection's own token seed; then records of
//! one header byte (bit 0: direction, bits 1..: time step in 50 ms units),
//! a two-byte little-endian length (mod 1401) and that many datagram bytes
//! (fewer at the end of the input). `scripts/fuzz_seeds.py` writes the
//! corpus captures in this layout as seeds.
#![no_main]

use std::time::Duration;

use gamewire_teeworlds::conn::{Config, Connection};
use gamewire_teeworlds::decoder::{Decoder, Direction};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&seed, mut rest)) = data.split_first() else {
        return;
    };
    // Tokens the fuzzer can find in comparisons: a fixed pattern with the
    // seed mixed in.
    let token = 0x5eed_0000 | u32::from(seed) << 4;
    let mut decoder = Decoder::new();
    let mut now = Duration::ZERO;
    let mut client = Connection::connect(Config::default(), now, token);
    let mut server = Connection::listen(Config::default(), now, token ^ 0xffff);
    while let [head, lo, hi, tail @ ..] = rest {
        let n = (usize::from(*lo) | usize::from(*hi) << 8) % 1401;
        let n = n.min(tail.len());
        let (datagram, next) = tail.split_at(n);
        rest = next;
        now += Duration::from_millis(50 * u64::from(head >> 1));
        // A datagram to the client goes into the client's end, and the
        // other way round.
        let (direction, conn) = if head & 1 == 0 {
            (Direction::ServerToClient, &mut client)
        } else {
            (Direction::ClientToServer, &mut server)
        };
        let report = decoder.decode(direction, datagram);
        // Reports are rendered to text by the CLI: keep that path covered.
        let _ = format!("{report:?}");
        conn.handle_datagram(now, datagram);
        conn.update(now);
        // Drain what the connection wants to send and report; both are
        // bounded by what came in.
        let mut out = 0usize;
        while let Some(p) = conn.poll_transmit() {
            out += p.len();
            assert!(out < 1 << 24, "transmit queue grows without bound");
        }
        let mut events = 0usize;
        while conn.poll_event().is_some() {
            events += 1;
            assert!(events < 1 << 16, "event queue grows without bound");
        }
    }
});
