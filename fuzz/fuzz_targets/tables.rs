//! Every analyst table of the query crate over arbitrary bytes: one pass
//! with all tables (events with player and game-wide props, ticks with
//! computed, user-command and velocity props, players, chat, grenades, the
//! match and action tables, user commands, item drops, skins, Dota 2's
//! combat log, the updated fields), then every table written as CSV, JSON Lines and Parquet.
//! A run returns tables or an error; it never panics, loops or allocates
//! beyond what the input justifies.
//!
//! As in the `demo` target, an input without the `PBDEMS2` magic gets the
//! magic and an empty header in front, so the fuzzer's bytes are frames;
//! real demos given as seeds are used as they are. The helper thread is off.
#![no_main]

use gamewire_query::write::{write_table, Format};
use gamewire_query::{Query, TableKind};
use gamewire_source2::container::{HEADER_LEN, MAGIC_SOURCE2};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let demo: std::borrow::Cow<'_, [u8]> = if data.starts_with(MAGIC_SOURCE2) {
        data.into()
    } else {
        let mut demo = Vec::with_capacity(HEADER_LEN + data.len());
        demo.extend_from_slice(MAGIC_SOURCE2);
        demo.resize(HEADER_LEN, 0);
        demo.extend_from_slice(data);
        demo.into()
    };
    let query = Query {
        tables: TableKind::ALL.to_vec(),
        player_props: [
            "X",
            "health",
            "inventory",
            "inventory_as_ids",
            "approximate_spotted_by",
            "usercmd_input_history",
            "usercmd_viewangle_y",
            "velocity",
            "team_name",
            "kills_this_round",
            "Weapon.m_iClip1",
            "CCSPlayerPawn.CCSPlayer_CameraServices.m_iFOV",
        ]
        .map(String::from)
        .to_vec(),
        other_props: vec!["total_rounds_played".to_string()],
        ..Query::default()
    }
    .keeping_cut(true)
    .with_helper_thread(false);
    if let Ok(run) = query.run(&demo) {
        for table in &run.tables {
            for format in [Format::Csv, Format::Jsonl, Format::Parquet] {
                let _ = write_table(table, format, std::io::sink());
            }
        }
    }
});
