//! The `header` table: one row per demo, on CS2, Deadlock and Dota 2, with
//! the figures the corpus's SOURCES.md lists for each demo; and a demo cut
//! short.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::demos::*;
use gamewire_query::{Cell, Query, Table, TableKind};

fn header_of(data: &[u8], keep_cut: bool) -> Table {
    let q = Query {
        tables: vec![TableKind::Header],
        ..Query::default()
    }
    .keeping_cut(keep_cut);
    q.run(data).unwrap().tables.remove(0)
}

fn header(demo: &str) -> Table {
    header_of(&std::fs::read(corpus().join(demo)).unwrap(), false)
}

fn get(t: &Table, name: &str) -> Cell {
    t.column(name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .cell(0)
}

fn float(t: &Table, name: &str) -> f32 {
    match get(t, name) {
        Cell::Float(f) => f,
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn cs2_header() {
    let t = header("cs2/14065.dem");
    assert_eq!(t.name, "header");
    assert_eq!(t.rows(), 1);
    assert_eq!(get(&t, "game"), Cell::Str("cs2".into()));
    assert_eq!(get(&t, "map"), Cell::Str("de_nuke".into()));
    assert_eq!(get(&t, "build"), Cell::Int(10231));
    assert_eq!(get(&t, "network_protocol"), Cell::Int(14065));
    assert_eq!(get(&t, "ticks"), Cell::Int(185));
    assert_eq!(get(&t, "last_tick"), Cell::Int(185));
    assert_eq!(get(&t, "frames"), Cell::Int(185));
    assert_eq!(get(&t, "server_name"), Cell::Str("Partridge".into()));
    assert_eq!(get(&t, "client_name"), Cell::Str("SourceTV Demo".into()));
    assert_eq!(get(&t, "demo_file_stamp"), Cell::Str("PBDEMS2".into()));
    assert_eq!(get(&t, "complete"), Cell::Bool(true));
    assert_eq!(float(&t, "tick_rate"), 64.0);
    assert!((float(&t, "duration_seconds") - 2.890625).abs() < 1e-6);
    // Ten players and the human who watched; CSTV is not a player.
    let (Cell::Int(players), Cell::Int(bots)) = (get(&t, "players"), get(&t, "bots")) else {
        panic!()
    };
    assert!(
        players >= 2 && bots >= 1 && bots < players,
        "{players} {bots}"
    );
}

/// 14011 is a bot match: nine bots and the human who started it; the
/// recorder (CSTV) is not a player.
#[test]
fn cs2_bot_match_counts_its_bots() {
    let t = header("cs2/14011.dem");
    assert_eq!(get(&t, "map"), Cell::Str("cs_italy".into()));
    assert_eq!(get(&t, "network_protocol"), Cell::Int(14011));
    assert_eq!(get(&t, "build"), Cell::Int(10072));
    assert_eq!(get(&t, "ticks"), Cell::Int(391));
    assert_eq!(get(&t, "bots"), Cell::Int(9));
    assert_eq!(get(&t, "players"), Cell::Int(10));
}

#[test]
fn deadlock_header() {
    let t = header("deadlock/hltv_10423.dem");
    assert_eq!(get(&t, "game"), Cell::Str("deadlock".into()));
    assert_eq!(get(&t, "map"), Cell::Str("dl_midtown".into()));
    assert_eq!(get(&t, "build"), Cell::Int(10423));
    assert_eq!(get(&t, "network_protocol"), Cell::Int(48));
    assert_eq!(get(&t, "ticks"), Cell::Int(148));
    assert_eq!(float(&t, "tick_rate"), 64.0);
    assert!((float(&t, "duration_seconds") - 2.3125).abs() < 1e-6);
    assert_eq!(get(&t, "complete"), Cell::Bool(true));
}

#[test]
fn dota2_header() {
    let t = header("dota2/auto-20240102-2233-start.dem");
    assert_eq!(get(&t, "game"), Cell::Str("dota2".into()));
    assert_eq!(get(&t, "map"), Cell::Str("start".into()));
    assert_eq!(get(&t, "build"), Cell::Int(9912));
    assert_eq!(get(&t, "network_protocol"), Cell::Int(47));
    assert_eq!(get(&t, "ticks"), Cell::Int(812));
    // The server's interval is 0.033333: the rate is 30, not 29.999998.
    assert_eq!(float(&t, "tick_rate"), 30.0);
    assert!((float(&t, "duration_seconds") - 27.066_668).abs() < 1e-3);
}

/// A demo cut short has no file info: its length is the last tick read,
/// and `complete` is false.
#[test]
fn a_cut_demo_header() {
    let whole = std::fs::read(corpus().join("cs2/14011.dem")).unwrap();
    let t = header_of(&whole[..280_000], true);
    assert_eq!(get(&t, "complete"), Cell::Bool(false));
    assert_eq!(get(&t, "frames"), Cell::Null);
    let Cell::Int(last) = get(&t, "last_tick") else {
        panic!()
    };
    assert!(last > 0 && last < 391, "{last}");
    assert_eq!(get(&t, "ticks"), Cell::Int(last));
    assert!((float(&t, "duration_seconds") - last as f32 / 64.0).abs() < 1e-3);
    assert_eq!(get(&t, "map"), Cell::Str("cs_italy".into()));
}
