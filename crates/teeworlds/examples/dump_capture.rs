//! Prints every decoded event of a capture file (`.jsonl`) as JSON lines.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use gamewire_teeworlds::decoder::{Decoder, Direction};

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: dump_capture FILE.jsonl");
    let mut dec = Decoder::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let dir = if v["dir"] == "c2s" {
            Direction::ClientToServer
        } else {
            Direction::ServerToClient
        };
        let h = v["hex"].as_str().unwrap();
        let d: Vec<u8> = (0..h.len() / 2)
            .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        let r = dec.decode(dir, &d);
        println!("{}", serde_json::to_string(&r).unwrap());
    }
}
