//! Round, kill, damage and purchase tables on event sequences built here.
//! The corpus clips have no kills or rounds, so the events follow the real
//! CS2 descriptors found in the corpus (checked first: same names, keys and
//! key types) and the expected rows are written out by hand.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::events::*;
use gamewire_query::Cell;
use gamewire_query::Column;
use gamewire_source2::gameevent::{EventValue, GameEvent};
use gamewire_source2::NoVisitor;

#[test]
fn descriptors_match_the_corpus() {
    let data = std::fs::read(corpus_demo()).unwrap();
    let (state, err) = gamewire_source2::parse_with(&data, &mut NoVisitor).unwrap();
    assert!(err.is_none());
    for (name, keys) in DESCRIPTORS {
        let d = state
            .event_descriptors
            .values()
            .find(|d| d.name == *name)
            .unwrap_or_else(|| panic!("corpus declares no {name}"));
        let got: Vec<(&str, i32)> = d.keys.iter().map(|k| (k.name.as_str(), k.kind)).collect();
        assert_eq!(got, *keys, "{name}");
    }
}

fn sequence() -> Vec<GameEvent> {
    use EventValue::{Bool, Float, Int, String as Str};
    vec![
        // Round 1: alice (slot 0) kills bob through a wall, carol assists
        // with a flash; bob hurt first.
        event(
            "round_start",
            100,
            &[
                ("timelimit", Int(115)),
                ("objective", Str("BOMB TARGET".into())),
            ],
        ),
        event(
            "item_purchase",
            110,
            &[
                ("userid", Int(0)),
                ("team", Int(2)),
                ("loadout", Int(12)),
                ("weapon", Str("weapon_ak47".into())),
            ],
        ),
        event("round_freeze_end", 1380, &[]),
        event(
            "player_hurt",
            2000,
            &[
                ("userid", Int(1)),
                ("attacker", Int(0)),
                ("health", Int(73)),
                ("armor", Int(95)),
                ("weapon", Str("ak47".into())),
                ("dmg_health", Int(27)),
                ("dmg_armor", Int(5)),
                ("hitgroup", Int(2)),
            ],
        ),
        event(
            "player_death",
            2010,
            &[
                ("userid", Int(1)),
                ("attacker", Int(0)),
                ("assister", Int(2)),
                ("assistedflash", Bool(true)),
                ("weapon", Str("ak47".into())),
                ("headshot", Bool(true)),
                ("penetrated", Int(1)),
                ("distance", Float(1234.5)),
                ("dmg_health", Int(73)),
                ("dmg_armor", Int(0)),
                ("hitgroup", Int(1)),
            ],
        ),
        event(
            "round_end",
            3000,
            &[
                ("winner", Int(2)),
                ("reason", Int(9)),
                ("message", Str("#SFUI_Notice_Terrorists_Win".into())),
            ],
        ),
        event("round_officially_ended", 3448, &[]),
        // Round 2: world damage (no attacker), a suicide with no assister,
        // the bomb is defused.
        event("round_start", 3449, &[]),
        event("round_freeze_end", 4729, &[]),
        event(
            "player_hurt",
            5000,
            &[
                ("userid", Int(2)),
                ("health", Int(90)),
                ("weapon", Str("world".into())),
                ("dmg_health", Int(10)),
            ],
        ),
        event(
            "player_death",
            5100,
            &[
                ("userid", Int(2)),
                ("attacker", Int(2)),
                ("weapon", Str("hegrenade".into())),
                ("dmg_health", Int(90)),
            ],
        ),
        event(
            "round_end",
            6000,
            &[
                ("winner", Int(3)),
                ("reason", Int(7)),
                ("message", Str("#SFUI_Notice_Bomb_Defused".into())),
            ],
        ),
    ]
}

#[test]
fn rounds_from_events() {
    let tables = run(&sequence());
    let rounds = &tables[0];
    assert_eq!(rounds.name, "rounds");
    assert_eq!(
        rounds.column_names(),
        [
            "round",
            "start_tick",
            "freeze_end_tick",
            "end_tick",
            "official_end_tick",
            "winner_team",
            "winner_side",
            "reason",
            "reason_name",
            "message"
        ]
    );
    assert_eq!(
        rows(rounds),
        vec![
            vec![
                i(1),
                i(100),
                i(1380),
                i(3000),
                i(3448),
                i(2),
                s("T"),
                i(9),
                s("ct_killed"),
                s("#SFUI_Notice_Terrorists_Win")
            ],
            // The demo ends before round_officially_ended.
            vec![
                i(2),
                i(3449),
                i(4729),
                i(6000),
                N,
                i(3),
                s("CT"),
                i(7),
                s("bomb_defused"),
                s("#SFUI_Notice_Bomb_Defused")
            ],
        ]
    );
}

#[test]
fn kills_from_player_death() {
    let tables = run(&sequence());
    let kills = &tables[1];
    assert_eq!(kills.name, "kills");
    let a = 76561198000000001u64;
    let bb = 76561198000000002u64;
    let c = 76561198000000003u64;
    assert_eq!(
        rows(kills),
        vec![
            vec![
                i(2010),
                s("alice"),
                u(a),
                i(0),
                N,
                s("bob"),
                u(bb),
                i(1),
                N,
                s("carol"),
                u(c),
                i(2),
                N,
                s("ak47"),
                s("ak47"),
                b(true),
                i(1),
                b(true),
                b(true),
                b(false),
                b(false),
                b(false),
                b(false),
                Cell::Float(1234.5),
                i(73),
                i(0),
                s("head")
            ],
            vec![
                i(5100),
                s("carol"),
                u(c),
                i(2),
                N,
                s("carol"),
                u(c),
                i(2),
                N,
                N,
                N,
                N,
                N,
                s("hegrenade"),
                s("hegrenade"),
                b(false),
                i(0),
                b(false),
                b(false),
                b(false),
                b(false),
                b(false),
                b(false),
                Cell::Float(0.0),
                i(90),
                i(0),
                s("generic")
            ],
        ]
    );
    // Typed columns.
    assert!(matches!(
        kills.column("attacker_steamid"),
        Some(Column::U64(_))
    ));
    assert!(matches!(kills.column("headshot"), Some(Column::Bool(_))));
    assert!(matches!(kills.column("distance"), Some(Column::F32(_))));
}

#[test]
fn damages_from_player_hurt() {
    let tables = run(&sequence());
    let d = &tables[2];
    assert_eq!(d.name, "damages");
    assert_eq!(
        rows(d),
        vec![
            vec![
                i(2000),
                s("alice"),
                u(76561198000000001),
                i(0),
                N,
                s("bob"),
                u(76561198000000002),
                i(1),
                N,
                s("ak47"),
                s("ak47"),
                i(27),
                i(5),
                i(73),
                i(95),
                s("chest")
            ],
            vec![
                i(5000),
                N,
                N,
                N,
                N,
                s("carol"),
                u(76561198000000003),
                i(2),
                N,
                s("world"),
                s("world"),
                i(10),
                i(0),
                i(90),
                i(0),
                s("generic")
            ],
        ]
    );
}

#[test]
fn purchases_from_item_purchase() {
    let tables = run(&sequence());
    let p = &tables[3];
    assert_eq!(p.name, "purchases");
    assert_eq!(
        rows(p),
        vec![vec![
            i(110),
            s("alice"),
            u(76561198000000001),
            i(0),
            i(2),
            s("ak47"),
            s("weapon_ak47"),
            i(12)
        ]]
    );
}

#[test]
fn round_without_start_is_kept() {
    // A demo that starts mid-round: freeze end and end without a start.
    let evs = vec![
        event("round_freeze_end", 50, &[]),
        event(
            "round_end",
            900,
            &[
                ("winner", EventValue::Int(3)),
                ("reason", EventValue::Int(12)),
            ],
        ),
        event("round_officially_ended", 1000, &[]),
    ];
    let rounds = &run(&evs)[0];
    assert_eq!(
        rows(rounds),
        vec![vec![
            i(1),
            N,
            i(50),
            i(900),
            i(1000),
            i(3),
            s("CT"),
            i(12),
            s("target_saved"),
            // The event carries every descriptor key: message is empty.
            s("")
        ]]
    );
}
