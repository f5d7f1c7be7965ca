//! The Source 2 demo parser over arbitrary bytes: a parse returns its state
//! and at most one error, never panics, never loops, and allocates no more
//! than the input justifies (libFuzzer's `-rss_limit_mb` and `-timeout`
//! catch the last two).
//!
//! Each input is used twice: as the bytes of a `CSVCMsg_FlattenedSerializer`
//! (the send tables, read by the borrowing wire reader), and as a demo. An
//! input that does not start with the `PBDEMS2` magic gets the magic and an
//! empty header in front, so the fuzzer's bytes are frames; real demos (for
//! example the corpus clips, given as a seed directory) are used as they are.
//!
//! A demo is parsed a second time with a `TicksCollector` asking for every
//! friendly player prop plus team and game-wide ones, so the prop readers
//! (active weapon, inventory, buttons, velocity, teams) run on whatever
//! state the bytes decode to.
//!
//! A third parse asks for the position and health props only, so its
//! `TicksCollector` reads every class but the players, teams and game rules
//! past (`Visitor::wants_class`): the skipping path gets the same bytes.
//! Both tick collectors want no string table beyond the parser's own
//! (`Visitor::wants_string_table`), so their parses create the other tables
//! without reading their entries, while the first parse reads them all.
//!
//! The library's helper thread is off: the send tables are built on the
//! fuzzing thread (the same code; the corpus tests check both ways agree),
//! so a panic there reaches libFuzzer instead of becoming an error.
#![no_main]

use gamewire_source2::container::{HEADER_LEN, MAGIC_SOURCE2};
use gamewire_query::friendly_props::FRIENDLY_PROPS;
use gamewire_query::ticks::TicksCollector;
use gamewire_source2::serializer::SendTables;
use gamewire_source2::{DemoParser, NoVisitor, Visitor};
use libfuzzer_sys::fuzz_target;

/// A parse on this thread alone (no helper thread).
fn parse_with<V: Visitor>(data: &[u8], visitor: &mut V) {
    if let Ok(parser) = DemoParser::new(data) {
        let _ = parser.with_helper_thread(false).run(visitor);
    }
}

fuzz_target!(|data: &[u8]| {
    let _ = SendTables::from_message(data);
    if data.starts_with(MAGIC_SOURCE2) {
        let _ = parse_with(data, &mut NoVisitor);
        let mut props: Vec<String> = FRIENDLY_PROPS.iter().map(|(n, _)| n.to_string()).collect();
        props.extend(
            ["team_name", "total_rounds_played", "game_time", "CCSTeam.m_iScore"]
                .map(String::from),
        );
        let mut ticks = TicksCollector::new(&props, None);
        let _ = parse_with(data, &mut ticks);
        let players_only: Vec<String> = ["X", "Y", "Z", "health", "team_num", "yaw"]
            .map(String::from)
            .to_vec();
        let mut ticks = TicksCollector::new(&players_only, None);
        let _ = parse_with(data, &mut ticks);
    } else {
        let mut demo = Vec::with_capacity(HEADER_LEN + data.len());
        demo.extend_from_slice(MAGIC_SOURCE2);
        demo.resize(HEADER_LEN, 0);
        demo.extend_from_slice(data);
        let _ = parse_with(&demo, &mut NoVisitor);
    }
});
