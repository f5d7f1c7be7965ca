//! Huffman throughput and full packet decode rate on the captured traffic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gamewire_teeworlds::decoder::{Decoder, Direction};
use gamewire_teeworlds::huffman::Huffman;
use gamewire_teeworlds::packet::{Packet, HEADER_SIZE};

fn captures() -> std::path::PathBuf {
    gamewire_corpus::path("teeworlds/captures")
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// (direction, datagram) of every captured datagram, in order.
fn datagrams() -> Vec<(Direction, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(captures())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        for line in std::fs::read_to_string(f).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let dir = if v["dir"] == "c2s" {
                Direction::ClientToServer
            } else {
                Direction::ServerToClient
            };
            out.push((dir, hex(v["hex"].as_str().unwrap())));
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let all = datagrams();
    let h = Huffman::teeworlds();
    // Decompressed payloads of the compressed packets, and their compressed form.
    let compressed: Vec<Vec<u8>> = all
        .iter()
        .filter(|(_, d)| d.len() > HEADER_SIZE && d[0] & 0x10 != 0 && d[0] & 0x20 == 0)
        .map(|(_, d)| d[HEADER_SIZE..].to_vec())
        .collect();
    let plain: Vec<Vec<u8>> = compressed
        .iter()
        .map(|c| h.decompress(c, 1400).unwrap())
        .collect();
    let plain_bytes: usize = plain.iter().map(Vec::len).sum();

    let mut g = c.benchmark_group("huffman");
    g.throughput(Throughput::Bytes(plain_bytes as u64));
    g.bench_function("compress", |b| {
        let mut out = Vec::with_capacity(2048);
        b.iter(|| {
            for p in &plain {
                out.clear();
                h.compress_into(p, &mut out);
            }
            out.len()
        })
    });
    g.bench_function("decompress", |b| {
        let mut out = Vec::with_capacity(2048);
        b.iter(|| {
            for p in &compressed {
                out.clear();
                h.decompress_into(p, 1400, &mut out).unwrap();
            }
            out.len()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("packet");
    g.throughput(Throughput::Elements(all.len() as u64));
    g.bench_function("decode_packet", |b| {
        b.iter(|| {
            all.iter()
                .filter(|(_, d)| Packet::decode(d).is_ok())
                .count()
        })
    });
    g.bench_function("decode_full_with_snapshots", |b| {
        b.iter(|| {
            let mut dec = Decoder::new();
            let mut n = 0;
            for (dir, d) in &all {
                n += dec.decode(*dir, d).events.len();
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
