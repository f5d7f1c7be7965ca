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
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
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

criterion_group!(benches, bench);
criterion_main!(benches);
