//! Players on the real corpus demos (bots included, keyed by slot), the
//! prop names each game accepts (unknown names are errors with the closest
//! names), and the list of props a demo offers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;

use common::demos::*;
use gamewire_query::event_players::{event_player, identity, player_by_slot};
use gamewire_query::prop_checks::player_prop_known;
use gamewire_query::prop_paths::PropCache;
use gamewire_query::{
    props, Column, DemoState, ErrorCategory, GameEvent, Interests, Query, QueryError, Table,
    TableKind, Visitor,
};

const BOTS: &str = "cs2/14011.dem";
const DEADLOCK: &str = "deadlock/hltv_10423.dem";
const DOTA: &str = "dota2/auto-20240102-2233-start.dem";

fn ticks(demo: &str, props: &[&str], humans_only: bool) -> Result<Table, QueryError> {
    let q = Query {
        tables: vec![TableKind::Ticks],
        player_props: props.iter().map(|p| p.to_string()).collect(),
        humans_only,
        ..Query::default()
    };
    run_file(&q, &corpus().join(demo)).map(|mut t| t.remove(0))
}

fn ints(t: &Table, name: &str) -> Vec<Option<i64>> {
    match t.column(name) {
        Some(Column::I64(v)) => v.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

fn uints(t: &Table, name: &str) -> Vec<Option<u64>> {
    match t.column(name) {
        Some(Column::U64(v)) => v.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

fn strs(t: &Table, name: &str) -> Vec<Option<String>> {
    match t.column(name) {
        Some(Column::Str(v)) => v.clone(),
        other => panic!("{name}: {other:?}"),
    }
}

fn column_names(t: &Table) -> Vec<&str> {
    t.columns.iter().map(|(n, _)| n.as_str()).collect()
}

/// 14011 is a match of one human and nine bots: every player has rows,
/// keyed by slot; `humans_only` keeps the human's.
#[test]
fn ticks_have_a_row_for_every_player_bots_included() {
    let t = ticks(BOTS, &["health", "X"], false).unwrap();
    assert_eq!(
        column_names(&t),
        ["tick", "slot", "steamid", "name", "health", "X"]
    );
    let slots: BTreeSet<i64> = ints(&t, "slot").into_iter().flatten().collect();
    assert_eq!(slots, (0..10).collect::<BTreeSet<i64>>());
    let steamids = uints(&t, "steamid");
    let bots = steamids.iter().filter(|s| **s == Some(0)).count();
    assert!(bots > 0 && bots < t.rows(), "{bots} of {}", t.rows());
    // Every bot has its name and its props.
    let names = strs(&t, "name");
    assert!(names
        .iter()
        .all(|n| n.as_deref().is_some_and(|n| !n.is_empty())));
    let health = ints(&t, "health");
    let bot_health = (0..t.rows())
        .filter(|&r| steamids[r] == Some(0))
        .filter(|&r| health[r].is_some())
        .count();
    assert_eq!(bot_health, bots);
    // One row per slot per tick.
    let tick = ints(&t, "tick");
    let slot = ints(&t, "slot");
    let keys: BTreeSet<(i64, i64)> = (0..t.rows())
        .map(|r| (tick[r].unwrap(), slot[r].unwrap()))
        .collect();
    assert_eq!(keys.len(), t.rows());

    let humans = ticks(BOTS, &["health"], true).unwrap();
    let human_slots: BTreeSet<i64> = ints(&humans, "slot").into_iter().flatten().collect();
    assert_eq!(human_slots, BTreeSet::from([0]));
    assert!(uints(&humans, "steamid").iter().all(|s| *s != Some(0)));
    assert_eq!(humans.rows() * 10, t.rows());
}

/// Deadlock and Dota 2 rows are keyed by slot too, with the same first
/// columns.
#[test]
fn ticks_of_every_game_start_with_the_player_keys() {
    for demo in [DEADLOCK, DOTA, "cs2/14065.dem"] {
        let t = ticks(demo, &["m_iHealth"], false).unwrap();
        assert_eq!(
            column_names(&t),
            ["tick", "slot", "steamid", "name", "m_iHealth"],
            "{demo}"
        );
        assert!(t.rows() > 0, "{demo}");
        assert!(
            ints(&t, "slot").iter().all(|s| s.is_some_and(|s| s >= 0)),
            "{demo}"
        );
        let health = ints(&t, "m_iHealth");
        assert!(health.iter().any(Option::is_some), "{demo}");
    }
}

/// The player a `player_hurt` names by `userid`, and its attacker's name.
struct HurtRow {
    name: Option<String>,
    steamid: Option<u64>,
    pawn_found: bool,
    attacker_name: Option<String>,
}

/// Collects, for every `player_hurt`, the name, steam id and pawn of the
/// player its `userid` and `attacker` keys name.
#[derive(Default)]
struct Hurt {
    cache: PropCache,
    rows: Vec<HurtRow>,
}

impl Visitor for Hurt {
    fn interests(&self) -> Interests {
        Interests {
            entities: true,
            game_events: true,
            ..Interests::NONE
        }
    }

    fn on_game_event(&mut self, state: &DemoState, ev: &GameEvent) {
        if ev.name != "player_hurt" {
            return;
        }
        let user = event_player(state, &mut self.cache, ev, "userid").unwrap_or_default();
        let (name, steamid) = identity(state, &mut self.cache, &user);
        let attacker = event_player(state, &mut self.cache, ev, "attacker").unwrap_or_default();
        let (attacker_name, _) = identity(state, &mut self.cache, &attacker);
        self.rows.push(HurtRow {
            name,
            steamid,
            pawn_found: user.pawn.is_some(),
            attacker_name,
        });
    }
}

/// The players an event names are found by slot and pawn handle, bots as
/// well as humans: every `player_hurt` of 14011 has its victim's name and
/// pawn, bots with steam id 0.
#[test]
fn event_players_resolve_bots() {
    let data = std::fs::read(corpus().join(BOTS)).unwrap();
    let mut hurt = Hurt::default();
    gamewire_query::RunOptions::default()
        .parse_keeping_cut(&data, &mut hurt)
        .unwrap();
    assert!(!hurt.rows.is_empty());
    for r in &hurt.rows {
        let name = &r.name;
        assert!(name.as_deref().is_some_and(|n| !n.is_empty()), "{name:?}");
        assert!(r.steamid.is_some() && r.pawn_found, "{name:?}");
    }
    let bots = hurt.rows.iter().filter(|r| r.steamid == Some(0)).count();
    assert!(bots > 0, "no bot hurt");
    assert!(hurt.rows.iter().any(|r| r.attacker_name.is_some()));
}

/// Deadlock's controllers name their hero pawn by `m_hHeroPawn`: a slot
/// resolves to its pawn.
#[test]
fn deadlock_slots_resolve_to_their_hero() {
    let parsed = Query {
        tables: vec![TableKind::Ticks],
        ..Query::default()
    }
    .run_path(&corpus().join(DEADLOCK))
    .unwrap();
    let t = &parsed.tables[0];
    let slots: BTreeSet<i64> = ints(t, "slot").into_iter().flatten().collect();
    assert!(!slots.is_empty());
    let mut cache = PropCache::default();
    for slot in slots {
        let p = player_by_slot(&parsed.state, &mut cache, slot);
        assert!(p.controller.is_some(), "slot {slot}");
        assert!(p.pawn.is_some(), "slot {slot}: no hero pawn");
    }
}

fn unknown_prop(demo: &str, prop: &str) -> (String, Vec<String>) {
    let e = ticks(demo, &["m_iHealth", prop], false).unwrap_err();
    assert_eq!(e.category(), ErrorCategory::UnknownName, "{e}");
    let message = e.to_string();
    assert!(message.len() < 400, "{} chars: {message}", message.len());
    match e {
        QueryError::UnknownProp { name, closest, .. } => (
            name,
            closest
                .split(", ")
                .map(str::to_string)
                .filter(|s| s != "none near")
                .collect(),
        ),
        other => panic!("{other}"),
    }
}

/// Deadlock and Dota 2 refuse names their classes do not have, as CS2
/// does, with a short message that names the closest.
#[test]
fn unknown_props_are_errors_in_every_game() {
    for demo in [DEADLOCK, DOTA, "cs2/14065.dem"] {
        let (name, closest) = unknown_prop(demo, "zzz");
        assert_eq!(name, "zzz");
        assert!(closest.is_empty(), "{demo}: {closest:?}");
    }
    // CS2's money is not Deadlock's.
    let (name, _) = unknown_prop(DEADLOCK, "balance");
    assert_eq!(name, "balance");
    // A name spelt another way finds the field.
    let (_, closest) = unknown_prop(DEADLOCK, "hero_id");
    assert!(closest.contains(&"m_nHeroID".to_string()), "{closest:?}");
    let (_, closest) = unknown_prop(DOTA, "m_iHelth");
    assert_eq!(closest.first().map(String::as_str), Some("m_iHealth"));
    // CS2's game rules and teams are not in the other games.
    unknown_prop(DEADLOCK, "total_rounds_played");
    unknown_prop(DOTA, "team_name");
    // What the games do have is accepted and read.
    for (demo, props) in [
        (
            DEADLOCK,
            &["health", "X", "m_nHeroID", "CCitadelPlayerPawn.m_iHealth"][..],
        ),
        (
            DOTA,
            &["health", "X", "CDOTA_BaseNPC_Hero.m_iHealth", "game_time"][..],
        ),
    ] {
        let t = ticks(demo, props, false).unwrap();
        for p in props {
            let filled = match t.column(p).unwrap() {
                Column::I64(v) => v.iter().any(Option::is_some),
                Column::U64(v) => v.iter().any(Option::is_some),
                Column::F32(v) => v.iter().any(Option::is_some),
                other => panic!("{demo} {p}: {other:?}"),
            };
            assert!(filled, "{demo}: {p} is empty");
        }
    }
}

/// A typo in a raw path suggests the paths of that class, not friendly
/// names.
#[test]
fn raw_path_typos_suggest_the_class_paths() {
    let (_, closest) = unknown_prop("cs2/14065.dem", "CCSPlayerPawn.m_iHelth");
    assert_eq!(
        closest.first().map(String::as_str),
        Some("CCSPlayerPawn.m_iHealth")
    );
    assert!(
        closest.iter().all(|c| c.starts_with("CCSPlayerPawn.")),
        "{closest:?}"
    );
    let (_, closest) = unknown_prop("cs2/14065.dem", "CCSPlayerController.m_iPingg");
    assert_eq!(
        closest.first().map(String::as_str),
        Some("CCSPlayerController.m_iPing")
    );
    // A friendly-name typo still finds the friendly name.
    let (_, closest) = unknown_prop("cs2/14065.dem", "helth");
    assert_eq!(closest.first().map(String::as_str), Some("health"));
    // A class of another game is not a prefix this demo has.
    let (_, closest) = unknown_prop("cs2/14065.dem", "CCitadelPlayerPawn.m_iHealth");
    assert!(
        closest.iter().all(|c| !c.starts_with("CCitadel")),
        "{closest:?}"
    );
}

fn rows(t: &Table) -> Vec<[String; 5]> {
    let cols: Vec<Vec<Option<String>>> = props::COLUMNS.iter().map(|c| strs(t, c)).collect();
    (0..t.rows())
        .map(|r| std::array::from_fn(|c| cols[c][r].clone().unwrap_or_default()))
        .collect()
}

fn find<'a>(rows: &'a [[String; 5]], name: &str) -> Option<&'a [String; 5]> {
    rows.iter().find(|r| r[0] == name)
}

/// `props` lists the friendly names and raw paths of a demo, each
/// accepted as a prop of that demo.
#[test]
fn props_list_what_each_demo_accepts() {
    // The demo, rows the list has, names it has not.
    type Case<'a> = (&'a str, &'a [[&'a str; 5]], &'a [&'a str]);
    let cases: [Case<'_>; 3] = [
        (
            "cs2/14065.dem",
            &[
                ["health", "friendly", "CCSPlayerPawn", "m_iHealth", "int64"],
                [
                    "balance",
                    "friendly",
                    "CCSPlayerController",
                    "m_pInGameMoneyServices.m_iAccount",
                    "int64",
                ],
                ["team_name", "friendly", "CCSTeam", "m_szTeamname", "string"],
                [
                    "CCSPlayerPawn.m_iHealth",
                    "raw",
                    "CCSPlayerPawn",
                    "m_iHealth",
                    "int64",
                ],
            ],
            &["hero_id"],
        ),
        (
            DEADLOCK,
            &[
                [
                    "health",
                    "friendly",
                    "CCitadelPlayerPawn",
                    "m_iHealth",
                    "int64",
                ],
                [
                    "CCitadelPlayerController.m_nHeroID",
                    "raw",
                    "CCitadelPlayerController",
                    "m_nHeroID",
                    "int64",
                ],
            ],
            &["balance", "team_name", "total_rounds_played", "inventory"],
        ),
        (
            DOTA,
            &[
                [
                    "health",
                    "friendly",
                    "CDOTA_BaseNPC_Hero",
                    "m_iHealth",
                    "int64",
                ],
                [
                    "CDOTA_BaseNPC_Hero.m_iHealth",
                    "raw",
                    "CDOTA_BaseNPC_Hero",
                    "m_iHealth",
                    "int64",
                ],
            ],
            &["balance", "team_name"],
        ),
    ];
    for (demo, present, absent) in cases {
        let data = std::fs::read(corpus().join(demo)).unwrap();
        let t = props::list_demo(&data, None).unwrap();
        assert_eq!(t.name, "props");
        assert_eq!(column_names(&t), props::COLUMNS);
        let rows = rows(&t);
        for want in present {
            let got = find(&rows, want[0]).unwrap_or_else(|| panic!("{demo}: no {}", want[0]));
            assert_eq!(got, want, "{demo}");
        }
        for name in absent {
            assert!(find(&rows, name).is_none(), "{demo}: {name} listed");
        }
        assert!(rows.iter().any(|r| r[1] == "raw") && rows.iter().any(|r| r[1] == "friendly"));
        // Each name once (a polymorphic field's serializers share names).
        let mut names: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "{demo}: a name listed twice");
        // Every name listed (an index filled in) is a prop this demo accepts.
        let state = Query {
            tables: vec![TableKind::Ticks],
            player_props: vec!["m_iHealth".into()],
            ..Query::default()
        }
        .run(&data)
        .unwrap()
        .state;
        for r in &rows {
            let name = r[0].replace("<i>", "0");
            assert!(
                player_prop_known(&state, &name),
                "{demo}: {name} listed, refused"
            );
        }
        // The same list from a parsed demo.
        assert_eq!(props::list(&state, None).unwrap(), t, "{demo}");
    }
}

/// With a class: only that class's props; an unknown class names the
/// closest.
#[test]
fn props_of_one_class() {
    let data = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    let t = props::list_demo(&data, Some("CCSPlayerController")).unwrap();
    let rows = rows(&t);
    assert!(
        rows.iter().all(|r| r[2] == "CCSPlayerController"),
        "{rows:?}"
    );
    assert!(find(&rows, "balance").is_some());
    assert!(find(&rows, "health").is_none());
    let smoke = props::list_demo(&data, Some("CSmokeGrenadeProjectile")).unwrap();
    assert!(rows_named(
        &smoke,
        "CSmokeGrenadeProjectile.m_nSmokeEffectTickBegin"
    ));
    let e = props::list_demo(&data, Some("CCSPlayerPawnn")).unwrap_err();
    assert!(
        matches!(&e, QueryError::UnknownClass { name, closest }
            if name == "CCSPlayerPawnn" && closest.starts_with("CCSPlayerPawn")),
        "{e}"
    );
    assert_eq!(e.category(), ErrorCategory::UnknownName);
    assert!(props::list_demo(b"not a demo", None).is_err());
}

fn rows_named(t: &Table, name: &str) -> bool {
    strs(t, "name").iter().any(|n| n.as_deref() == Some(name))
}
