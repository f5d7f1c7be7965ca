//! The helper thread against one thread, on arbitrary bytes: a demo parsed
//! with the send tables built by the helper and the parser together
//! (`serializer::SharedBuild`, decompression ahead of the parser) ends
//! as the same demo parsed on one thread: the same error or none, the same
//! tick and entity updates, and, when the parse succeeds, the same warnings
//! (their order may differ: the send tables' fallback warnings come when
//! the tables are collected; a parse that fails on broken send tables may
//! have read, and warned about, frames after them). A panic on the helper
//! thread becomes an error there ("the thread building the send tables
//! failed"), so it shows up here as a difference.
//!
//! Inputs are used as in the `demo` target: bytes without the `PBDEMS2`
//! magic get the magic and an empty header in front; real demos (the
//! corpus clips as a seed directory) are used as they are.
#![no_main]

use gamewire_source2::container::{HEADER_LEN, MAGIC_SOURCE2};
use gamewire_source2::{DemoParser, NoVisitor};
use libfuzzer_sys::fuzz_target;

fn run(demo: &[u8], helper: bool) -> Option<(Result<(), String>, i32, u64, Vec<String>)> {
    let mut parser = DemoParser::new(demo).ok()?.with_helper_thread(helper);
    let result = parser.run(&mut NoVisitor).map_err(|e| e.to_string());
    let mut warnings: Vec<String> = match result {
        Ok(()) => parser.state.warnings.iter().map(|w| format!("{w:?}")).collect(),
        Err(_) => Vec::new(),
    };
    warnings.sort();
    Some((result, parser.state.tick, parser.state.entity_updates, warnings))
}

fuzz_target!(|data: &[u8]| {
    let demo = if data.starts_with(MAGIC_SOURCE2) {
        data.to_vec()
    } else {
        let mut demo = Vec::with_capacity(HEADER_LEN + data.len());
        demo.extend_from_slice(MAGIC_SOURCE2);
        demo.resize(HEADER_LEN, 0);
        demo.extend_from_slice(data);
        demo
    };
    assert_eq!(run(&demo, false), run(&demo, true));
});
