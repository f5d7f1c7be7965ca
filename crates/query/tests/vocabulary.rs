//! One vocabulary across the tables, checked on the corpus demos: `team`
//! is an integer, positions are `x`, `y`, `z`, entities are `entity_id`,
//! players are `name`, `steamid` and `slot`, a weapon is its short name
//! with the name as sent in `weapon_class`, a hit group is its name.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::demos::*;
use gamewire_query::item_names::weapon_name;
use gamewire_query::write::{write_table, Format};
use gamewire_query::{Cell, Column, Kind, Query, Table, TableKind};

const HITGROUPS: [&str; 10] = [
    "generic",
    "head",
    "chest",
    "stomach",
    "left_arm",
    "right_arm",
    "left_leg",
    "right_leg",
    "neck",
    "gear",
];

fn table(demo: &str, kind: TableKind) -> Table {
    let q = Query {
        tables: vec![kind],
        ..Query::default()
    };
    run_file(&q, &corpus().join(demo)).unwrap().remove(0)
}

fn cells(t: &Table, name: &str) -> Vec<Cell> {
    let c = t
        .column(name)
        .unwrap_or_else(|| panic!("{}: no column {name}", t.name));
    (0..c.len()).map(|i| c.cell(i)).collect()
}

fn ints(t: &Table, name: &str) -> Vec<Option<i64>> {
    match t.column(name) {
        Some(Column::I64(v)) => v.clone(),
        other => panic!("{}.{name}: {other:?}", t.name),
    }
}

fn texts(t: &Table, name: &str) -> Vec<Option<String>> {
    match t.column(name) {
        Some(Column::Str(v)) => v.clone(),
        other => panic!("{}.{name}: {other:?}", t.name),
    }
}

fn floats(t: &Table, name: &str) -> Vec<Option<f32>> {
    match t.column(name) {
        Some(Column::F32(v)) => v.clone(),
        other => panic!("{}.{name}: {other:?}", t.name),
    }
}

/// No table on any corpus demo uses a name the vocabulary replaced.
#[test]
fn no_table_uses_an_old_name() {
    let old = [
        "team_num",
        "entity_index",
        "entity",
        "player_slot",
        "location_x",
        "location_y",
        "winner",
        "X",
        "Y",
        "Z",
        "event",
    ];
    for demo in demos() {
        for t in run_file(&all_tables(), &demo).unwrap() {
            for name in t.column_names() {
                assert!(
                    !old.contains(&name),
                    "{} {}: column {name}",
                    demo.display(),
                    t.name
                );
            }
        }
    }
}

/// `shots` on 14011 (a bot match): the shooter's slot, steam id 0 for
/// bots, the team as an integer, `weapon` short and `weapon_class` as
/// sent, the position as `x`, `y`, `z`.
#[test]
fn shots_speak_the_vocabulary() {
    let t = table("cs2/14011.dem", TableKind::Shots);
    assert!(t.rows() >= 10, "{} shots", t.rows());
    let (weapons, classes) = (texts(&t, "weapon"), texts(&t, "weapon_class"));
    for (w, c) in weapons.iter().zip(&classes) {
        let (w, c) = (w.as_deref().unwrap(), c.as_deref().unwrap());
        assert!(c.starts_with("weapon_"), "{c}");
        assert_eq!(w, weapon_name(c));
        assert!(!w.starts_with("weapon_"), "{w}");
    }
    assert!(weapons.iter().any(|w| w.as_deref() == Some("galilar")));
    for slot in ints(&t, "slot") {
        assert!((0..64).contains(&slot.unwrap()));
    }
    for team in ints(&t, "team") {
        assert!([2, 3].contains(&team.unwrap()));
    }
    // Bots shoot too: steam id 0, never null.
    let steamids = cells(&t, "steamid");
    assert!(steamids.iter().all(|s| matches!(s, Cell::UInt(_))));
    assert!(steamids.contains(&Cell::UInt(0)));
    assert!(texts(&t, "name").iter().all(Option::is_some));
    for axis in ["x", "y", "z"] {
        assert!(floats(&t, axis).iter().all(Option::is_some), "{axis}");
    }
    // The first shot of the demo: Greymouth's Galil from (-62.2, 2034.4).
    let first = |n: &str| t.column(n).unwrap().cell(0);
    assert_eq!(first("tick"), Cell::Int(3));
    assert_eq!(first("name"), Cell::Str("Greymouth".into()));
    assert_eq!(first("weapon_class"), Cell::Str("weapon_galilar".into()));
    assert_eq!(first("weapon"), Cell::Str("galilar".into()));
    let Cell::Float(x) = first("x") else { panic!() };
    assert!((x + 62.2).abs() < 0.01, "{x}");
}

/// `damages` on 14011 and 14150_ag2: both players' slots, `weapon` and
/// `weapon_class`, the hit group by name.
#[test]
fn damages_speak_the_vocabulary() {
    for demo in ["cs2/14011.dem", "cs2/14150_ag2.dem"] {
        let t = table(demo, TableKind::Damages);
        assert!(t.rows() >= 3, "{demo}: {} rows", t.rows());
        for role in ["attacker", "victim"] {
            for slot in ints(&t, &format!("{role}_slot")) {
                assert!((0..64).contains(&slot.unwrap()), "{demo} {role}");
            }
            for team in ints(&t, &format!("{role}_team")) {
                assert!([2, 3].contains(&team.unwrap()), "{demo} {role}");
            }
        }
        for (w, c) in texts(&t, "weapon").iter().zip(texts(&t, "weapon_class")) {
            assert_eq!(w.as_deref(), c.as_deref().map(weapon_name), "{demo}");
        }
        for h in texts(&t, "hitgroup") {
            assert!(HITGROUPS.contains(&h.as_deref().unwrap()), "{demo}: {h:?}");
        }
    }
    // 14011, tick 305: Greymouth (T) hits Dashen (CT) in the chest.
    let t = table("cs2/14011.dem", TableKind::Damages);
    let row = |n: &str| t.column(n).unwrap().cell(0);
    assert_eq!(row("tick"), Cell::Int(305));
    assert_eq!(row("attacker_name"), Cell::Str("Greymouth".into()));
    assert_eq!(row("attacker_team"), Cell::Int(2));
    assert_eq!(row("victim_name"), Cell::Str("Dashen".into()));
    assert_eq!(row("victim_team"), Cell::Int(3));
    assert_eq!(row("weapon"), Cell::Str("galilar".into()));
    assert_eq!(row("hitgroup"), Cell::Str("chest".into()));
}

/// A player's slot in the action tables is the slot `players` gives the
/// same name.
#[test]
fn slots_agree_with_players() {
    let players = table("cs2/14011.dem", TableKind::Players);
    let by_name: Vec<(Option<String>, Option<i64>)> = texts(&players, "name")
        .into_iter()
        .zip(ints(&players, "slot"))
        .collect();
    let slot_of = |name: &Option<String>| {
        by_name
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, s)| *s)
    };
    for (kind, prefix) in [
        (TableKind::Shots, ""),
        (TableKind::Footsteps, ""),
        (TableKind::Damages, "attacker_"),
        (TableKind::Damages, "victim_"),
    ] {
        let t = table("cs2/14011.dem", kind);
        assert!(t.rows() > 0, "{}", t.name);
        let names = texts(&t, &format!("{prefix}name"));
        let slots = ints(&t, &format!("{prefix}slot"));
        for (n, s) in names.iter().zip(slots) {
            assert_eq!(slot_of(n), s, "{} {n:?}", t.name);
        }
    }
}

/// `footsteps` on 14011: the player's position as `x`, `y`, `z`.
#[test]
fn footsteps_have_positions_and_slots() {
    let t = table("cs2/14011.dem", TableKind::Footsteps);
    assert!(t.rows() >= 1);
    for axis in ["x", "y", "z"] {
        assert!(floats(&t, axis).iter().all(Option::is_some), "{axis}");
    }
    assert!(ints(&t, "slot").iter().all(Option::is_some));
    assert!(ints(&t, "team").iter().all(Option::is_some));
}

/// `players`: `team` is the team number, an integer; every CS2 corpus demo
/// has players on both teams.
#[test]
fn players_team_is_an_integer() {
    for demo in cs2_demos() {
        let q = Query {
            tables: vec![TableKind::Players],
            ..Query::default()
        };
        let t = run_file(&q, &demo).unwrap().remove(0);
        let teams = ints(&t, "team");
        assert!(teams.iter().all(|t| t.is_none_or(|t| (0..=3).contains(&t))));
        assert!(
            teams.contains(&Some(2)) && teams.contains(&Some(3)),
            "{}",
            demo.display()
        );
    }
}

/// `user_commands`: `slot` and `entity_id` (the pawn), named as the player
/// of that slot.
#[test]
fn user_commands_name_slot_and_entity() {
    let t = table("cs2/14065.dem", TableKind::UserCommands);
    assert!(t.rows() > 100);
    let players = table("cs2/14065.dem", TableKind::Players);
    let slots = ints(&t, "slot");
    let names = texts(&t, "name");
    for (slot, name) in slots.iter().zip(&names) {
        let slot = slot.unwrap();
        let row = ints(&players, "slot")
            .iter()
            .position(|s| *s == Some(slot))
            .unwrap();
        assert_eq!(texts(&players, "name")[row], *name);
    }
    assert!(ints(&t, "entity_id")
        .iter()
        .all(|e| e.is_some_and(|e| e > 0)));
    assert_eq!(
        &t.column_names()[..5],
        ["tick", "name", "steamid", "slot", "entity_id"]
    );
}

/// `combat_log` (Dota 2): the position as `x` and `y` (the corpus clip's
/// entries, modifiers only, carry none), teams as integers.
#[test]
fn combat_log_positions_are_x_and_y() {
    let t = table("dota2/auto-20240102-2233-start.dem", TableKind::CombatLog);
    assert!(t.rows() > 0);
    assert_eq!(floats(&t, "x").len(), t.rows());
    assert_eq!(floats(&t, "y").len(), t.rows());
    let teams: Vec<i64> = ints(&t, "attacker_team").into_iter().flatten().collect();
    assert!(teams.contains(&2) && teams.contains(&3), "{teams:?}");
}

/// `updated_fields`: `entity_kind` names what a prop is read from, and
/// `updates` is an integer.
#[test]
fn updated_fields_entity_kind() {
    let t = table("cs2/14065.dem", TableKind::UpdatedFields);
    let kinds = texts(&t, "entity_kind");
    for k in &kinds {
        assert!(
            ["pawn", "controller", "team", "rules", "weapon", "grenade"]
                .contains(&k.as_deref().unwrap()),
            "{k:?}"
        );
    }
    assert!(kinds.iter().any(|k| k.as_deref() == Some("pawn")));
    assert_eq!(t.column("updates").unwrap().kind(), Kind::I64);
}

/// The renamed columns of the tables the corpus has no rows for
/// (`grenades`, `smokes`, `infernos`, `flashes`, `bomb`, `kills`,
/// `purchases`, `chat`, `rounds`) are in their headers.
#[test]
fn renamed_columns_in_every_header() {
    let t = |k: TableKind| table("cs2/14065.dem", k);
    let has = |t: &Table, names: &[&str]| {
        for n in names {
            assert!(t.column(n).is_some(), "{}: no {n}", t.name);
        }
    };
    has(
        &t(TableKind::Grenades),
        &[
            "entity_id",
            "thrower_slot",
            "thrower_team",
            "x",
            "detonate_x",
        ],
    );
    for k in [TableKind::Smokes, TableKind::Infernos] {
        has(
            &t(k),
            &["entity_id", "thrower_slot", "thrower_team", "x", "y", "z"],
        );
    }
    has(
        &t(TableKind::Flashes),
        &["attacker_slot", "victim_slot", "attacker_team", "entity_id"],
    );
    has(&t(TableKind::Bomb), &["slot", "team", "x", "y", "z"]);
    has(
        &t(TableKind::Kills),
        &[
            "attacker_slot",
            "victim_slot",
            "assister_slot",
            "weapon",
            "weapon_class",
            "hitgroup",
        ],
    );
    has(
        &t(TableKind::Purchases),
        &["slot", "team", "weapon", "weapon_class"],
    );
    has(&t(TableKind::Chat), &["slot", "steamid", "name"]);
    has(&t(TableKind::Rounds), &["winner_team", "winner_side"]);
    // 14065 holds a round: its winner is an integer team number or null.
    let rounds = t(TableKind::Rounds);
    assert!(rounds.rows() >= 1);
    assert_eq!(rounds.column("winner_team").unwrap().kind(), Kind::I64);
}

/// JSON Lines keys follow the column order.
#[test]
fn json_keys_follow_the_columns() {
    let t = table("cs2/14011.dem", TableKind::Shots);
    let mut buf = Vec::new();
    write_table(&t, Format::Jsonl, &mut buf).unwrap();
    let first = std::str::from_utf8(&buf).unwrap().lines().next().unwrap();
    let mut at = 0;
    for name in t.column_names() {
        let key = format!("\"{name}\":");
        let found = first[at..]
            .find(&key)
            .unwrap_or_else(|| panic!("{name} after byte {at}: {first}"));
        at += found + key.len();
    }
}
