//! Read, rewrite, read again: `edit::rewrite` over arbitrary bytes (mutated
//! corpus demos, given as its starting corpus) never panics, and when it
//! writes a demo, that demo reads to the same final state as the input:
//! the same entities with the same field values, the same string tables,
//! the same tick. An input the reader stops in (a truncated demo) is
//! compared up to where it stops; the rewritten demo ends with `DEM_Stop`
//! there.
//!
//! Both reads ask for what the rewrite's own reader decodes (entities and
//! send tables; every string table), so an error only one of them would
//! meet (a game event that does not decode, say) does not stand between
//! them. An input that does not start with the `PBDEMS2` magic gets the
//! magic and an empty header in front, so the fuzzer's bytes are frames.
#![no_main]

use std::io::Cursor;

use gamewire_source2::container::{HEADER_LEN, MAGIC_SOURCE2};
use gamewire_source2::edit::rewrite;
use gamewire_source2::{DemoParser, DemoState, Interests, Visitor};
use libfuzzer_sys::fuzz_target;

struct StateOnly;

impl Visitor for StateOnly {
    fn interests(&self) -> Interests {
        Interests {
            entities: true,
            send_tables: true,
            ..Interests::NONE
        }
    }
}

/// The state a read ends with, and whether it ended on a truncation (or
/// `None` when it failed otherwise).
fn read(data: &[u8]) -> Option<(DemoState, bool)> {
    let mut parser = DemoParser::new(data).ok()?.with_helper_thread(false);
    match parser.run(&mut StateOnly) {
        Ok(()) => Some((parser.state, false)),
        Err(e) if e.is_truncation() => Some((parser.state, true)),
        Err(_) => None,
    }
}

/// What is compared: the tick, every entity's values, every string table.
fn model(state: &DemoState) -> (i32, Vec<(i32, u32, u32, String)>, Vec<(String, Vec<(String, Vec<u8>)>)>) {
    let entities = state
        .entities
        .iter()
        .map(|e| {
            let mut values = e.values();
            values.sort_by_key(|(k, _)| *k);
            (e.index, e.serial, e.class_id, format!("{values:?}"))
        })
        .collect();
    let tables = state
        .string_tables
        .iter()
        .map(|t| {
            let entries = t.entries.iter().map(|e| (e.key.clone(), e.value.clone())).collect();
            (t.name.clone(), entries)
        })
        .collect();
    (state.tick, entities, tables)
}

fuzz_target!(|data: &[u8]| {
    let demo: Vec<u8> = if data.starts_with(MAGIC_SOURCE2) {
        data.to_vec()
    } else {
        let mut demo = MAGIC_SOURCE2.to_vec();
        demo.resize(HEADER_LEN, 0);
        demo.extend_from_slice(data);
        demo
    };
    let mut out = Cursor::new(Vec::new());
    let Ok(report) = rewrite(&demo[..], &mut out) else {
        return;
    };
    let out = out.into_inner();
    let Some((first, truncated)) = read(&demo) else {
        return;
    };
    let (second, second_truncated) = read(&out).expect("a rewritten demo reads");
    assert!(!second_truncated, "a rewritten demo ends with DEM_Stop");
    assert!(second.reached_stop);
    assert_eq!(truncated, report.cut.is_some());
    assert_eq!(model(&first), model(&second));
});
