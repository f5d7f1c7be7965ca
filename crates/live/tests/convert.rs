//! The incremental converter: fed one fragment at a time, it gives the
//! bytes `to_demo` gives on the whole list, and `to_demo` gives the bytes
//! it gave before it was built on the converter (pinned by SHA-256, on
//! both corpus broadcasts, whole and with the last fragment cut in half).

mod common;

use common::folder_fragments;
use common::server::{corpus_broadcasts, Result};
use gamewire_source2::broadcast::{to_demo, Converter, Pushed};
use sha2::{Digest, Sha256};

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn to_demo_is_unchanged_on_the_corpus_broadcasts() -> Result {
    // (broadcast, SHA-256 whole, SHA-256 with the last fragment halved,
    // the cut's error), as the one-pass conversion wrote them.
    let pinned = [
        (
            "dl_midtown_2025-02-27",
            "40a545217ddef57585152857238cf82a7e0f0c42975d2023f1b27bbd19dd8d4e",
            "cc2dd619186856db48d692c9512476c9fc892a41fd7be92a2e17b6dbb165a89a",
            "Some(DemoError { kind: Broadcast { fragment: \"40/delta.bin\", inner: Truncated { what: \"broadcast record payload\", needed: 7434, available: 2880 } }, location: Location { byte_offset: 234359, frame: 414, tick: 15673 } })",
        ),
        (
            "street_test_60tps",
            "dd7f98d81a623f7a7d95898647432794a9b05a4c4a6b432924d36816a47fbb80",
            "dd7f98d81a623f7a7d95898647432794a9b05a4c4a6b432924d36816a47fbb80",
            "Some(DemoError { kind: Broadcast { fragment: \"31/delta.bin\", inner: Truncated { what: \"broadcast record header\", needed: 5, available: 2 } }, location: Location { byte_offset: 0, frame: 603, tick: 8861 } })",
        ),
    ];
    for dir in corpus_broadcasts() {
        let name = dir.file_name().and_then(|n| n.to_str()).ok_or("name")?;
        let (_, whole, cut_hash, cut_error) =
            pinned.iter().find(|p| p.0 == name).ok_or("not pinned")?;
        let fragments = folder_fragments(&dir)?;
        let (out, error) = to_demo(&fragments);
        assert!(error.is_none(), "{name}: {error:?}");
        assert_eq!(&sha256(&out), whole, "{name}");
        let mut cut = fragments.clone();
        let last = cut.last_mut().ok_or("no fragment")?;
        let half = last.data.len() / 2;
        last.data.truncate(half);
        let (out, error) = to_demo(&cut);
        assert_eq!(&sha256(&out), cut_hash, "{name}");
        assert_eq!(&format!("{error:?}"), cut_error, "{name}");
    }
    Ok(())
}

#[test]
fn fragment_by_fragment_is_to_demo() -> Result {
    for dir in corpus_broadcasts() {
        let fragments = folder_fragments(&dir)?;
        let (expected, _) = to_demo(&fragments);
        // One fragment at a time, the bytes handed out after each (as a
        // live reader does): the output buffer never holds more than one
        // fragment's frames.
        let mut converter = Converter::new();
        let mut all = Vec::new();
        let mut out = Vec::new();
        converter.header(&mut out);
        let mut largest = 0;
        for (i, f) in fragments.iter().enumerate() {
            let pushed = converter.push(&f.name, &f.data, &mut out)?;
            largest = largest.max(out.len());
            all.append(&mut out);
            if pushed == Pushed::Stop {
                // Only a broadcast's last fragment ends it.
                assert_eq!(i + 1, fragments.len(), "{}", dir.display());
                break;
            }
        }
        converter.finish(&mut out);
        all.append(&mut out);
        assert!(all == expected, "{}", dir.display());
        let biggest_fragment = fragments.iter().map(|f| f.data.len()).max().unwrap_or(0);
        assert!(largest < biggest_fragment + biggest_fragment / 10 + 64);
        assert!(converter.frames() > 400);
    }
    Ok(())
}

#[test]
fn a_stop_record_ends_the_conversion() -> Result {
    // DEM_Stop (command 0) at tick 99: what follows is not read.
    let stop = [0u8, 99, 0, 0, 0, 0, 0xff, 0xff];
    let mut converter = Converter::new();
    let mut out = Vec::new();
    assert_eq!(converter.push("1/delta", &stop, &mut out)?, Pushed::Stop);
    assert!(out.is_empty());
    assert_eq!(converter.last_tick(), -1);
    Ok(())
}
