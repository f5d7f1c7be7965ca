//! Criterion benches over the corpus demos: the signon (send tables →
//! serializers and decoders) and a full parse with every entity decoded,
//! in MB/s per demo.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gamewire_source2::container::{DemoCommand, FrameReader};
use gamewire_source2::serializer::SendTables;
use gamewire_source2::{parse_with, NoVisitor};
use prost::Message;

fn demos() -> Vec<(String, Vec<u8>)> {
    let root = gamewire_corpus::root();
    let mut out = Vec::new();
    for dir in ["cs2", "deadlock", "dota2"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        paths.sort();
        for p in paths
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "dem"))
        {
            out.push((
                p.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read(&p).unwrap(),
            ));
        }
    }
    out
}

fn send_tables_payload(data: &[u8]) -> Vec<u8> {
    let mut frames = FrameReader::new(data).unwrap();
    while let Some(f) = frames.next_frame().unwrap() {
        if f.command == DemoCommand::SendTables {
            let msg = source2_demo_protobufs::CDemoSendTables::decode(&*f.payload).unwrap();
            return msg.data.unwrap_or_default();
        }
    }
    panic!("no send tables");
}

fn bench(c: &mut Criterion) {
    let demos = demos();
    let mut signon = c.benchmark_group("signon");
    for (name, data) in &demos {
        let payload = send_tables_payload(data);
        signon.bench_function(name.as_str(), |b| {
            b.iter(|| SendTables::from_demo_payload(&payload).unwrap())
        });
    }
    signon.finish();
    let mut full = c.benchmark_group("full_parse");
    full.sample_size(20);
    for (name, data) in &demos {
        full.throughput(Throughput::Bytes(data.len() as u64));
        full.bench_function(name.as_str(), |b| {
            b.iter(|| parse_with(data, &mut NoVisitor).unwrap())
        });
    }
    full.finish();
}

criterion_group!(benches, bench, bench_fieldpath);
criterion_main!(benches);

/// Table lookup against tree walk for the field-path op codes, on a stream
/// of ops drawn with the published weights (ops without arguments, paths
/// kept shallow), 20 paths per update.
fn bench_fieldpath(c: &mut Criterion) {
    use gamewire_bits::{BitReader, BitWriter};
    use gamewire_source2::fieldpath::{codes, read_field_paths_with, OpDecoding};
    let codes = codes();
    // (op, weight): PlusOne..PlusFour, push 0, pop-all-but-one +1, penultimate +1.
    let ops: [(usize, u32); 6] = [
        (0, 36271),
        (1, 10334),
        (2, 1375),
        (3, 646),
        (29, 1837),
        (5, 35),
    ];
    let total: u32 = ops.iter().map(|o| o.1).sum();
    let mut w = BitWriter::new();
    let mut seed = 0x9e3779b97f4a7c15u64;
    let mut updates = 0u64;
    for _ in 0..20_000 {
        let mut depth = 1;
        for _ in 0..20 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut pick = (seed % u64::from(total)) as u32;
            let mut op = 0;
            for (o, wgt) in ops {
                if pick < wgt {
                    op = o;
                    break;
                }
                pick -= wgt;
            }
            if op == 5 && depth >= 4 {
                op = 29;
            }
            match op {
                5 => depth += 1,
                29 => depth = 1,
                _ => {}
            }
            let (bits, len) = codes[op];
            w.write_bits(u64::from(bits), len).unwrap();
        }
        let (bits, len) = codes[39];
        w.write_bits(u64::from(bits), len).unwrap();
        updates += 1;
    }
    let data = w.finish();
    let mut group = c.benchmark_group("fieldpath_ops");
    group.throughput(Throughput::Elements(updates * 21));
    for (name, how) in [
        ("table", OpDecoding::Table),
        ("tree_walk", OpDecoding::TreeWalk),
    ] {
        group.bench_function(name, |b| {
            let mut out = Vec::with_capacity(32);
            b.iter(|| {
                let mut r = BitReader::new(&data);
                let mut n = 0usize;
                for _ in 0..updates {
                    read_field_paths_with(&mut r, &mut out, how).unwrap();
                    n += out.len();
                }
                n
            })
        });
    }
    group.finish();
}
