//! Broadcast fragments rewritten as a demo stream, byte level: a record cut
//! short or claiming more than there is stops the conversion with a located
//! error, and noise never panics. The corpus broadcasts, read from their
//! directories, are tested where directories are read
//! (`crates/query/tests/broadcast.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use gamewire_source2::broadcast::{to_demo, Fragment};
use gamewire_source2::{parse_with, ErrorKind, NoVisitor};

/// One broadcast record: command, tick, the unused byte, size, payload.
fn record(command: u8, tick: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![command];
    out.extend_from_slice(&tick.to_le_bytes());
    out.push(0);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

#[test]
fn records_become_frames_and_a_cut_record_is_located() {
    // DEM_SyncTick (6) with an empty payload at tick 5, then one cut short.
    let mut data = record(6, 5, &[]);
    let whole = data.len();
    data.extend_from_slice(&record(6, 9, &[1, 2, 3, 4])[..8]);
    let (demo, err) = to_demo(&[Fragment {
        name: "1/delta.bin".into(),
        data,
    }]);
    let err = err.expect("a cut record is reported");
    match &err.kind {
        ErrorKind::Broadcast { fragment, inner } => {
            assert_eq!(fragment, "1/delta.bin");
            assert!(matches!(**inner, ErrorKind::Truncated { .. }), "{inner}");
        }
        other => panic!("{other}"),
    }
    assert_eq!(err.location.byte_offset, whole as u64);
    assert_eq!(err.location.frame, 1);
    assert_eq!(err.location.tick, 5);
    assert!(err.to_string().contains("1/delta.bin"), "{err}");
    // Magic, eight bytes, the one frame (command, tick, size), DEM_Stop.
    assert!(demo.starts_with(b"PBDEMS2\0"));
    assert_eq!(&demo[16..], &[6, 5, 0, 0, 5, 0]);
}

#[test]
fn a_huge_size_or_noise_is_an_error_not_a_panic() {
    // A record claiming a 2 GiB payload: an error, no allocation, no panic.
    let junk = vec![Fragment {
        name: "junk".into(),
        data: vec![7, 1, 2, 3, 4, 0, 0xff, 0xff, 0xff, 0x7f, 1, 2, 3],
    }];
    let (demo, err) = to_demo(&junk);
    assert!(err.unwrap().to_string().contains("junk"));
    assert!(demo.len() < 64);
    // Random bytes: whatever they decode to, no panic.
    let noise = vec![Fragment {
        name: "noise".into(),
        data: (0..4000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect(),
    }];
    let (demo, _) = to_demo(&noise);
    let _ = parse_with(&demo, &mut NoVisitor);
}
