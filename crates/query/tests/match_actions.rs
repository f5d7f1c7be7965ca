//! Action tables on event sequences built here.
//! The corpus clips have no kills or rounds, so the events follow the real
//! CS2 descriptors found in the corpus (checked first: same names, keys and
//! key types) and the expected rows are written out by hand.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::events::*;
use gamewire_query::Cell;
use gamewire_query::Kind;
use gamewire_source2::gameevent::EventValue;

/// awpy's action tables on a made-up bombsite execute: a smoke and a fire
/// that end, one that is still burning at the end, a flash, shots,
/// footsteps, and the bomb from drop to defuse. No entities: players come
/// from `userinfo` (no team, no position), as the state holds nothing else.
#[test]
fn action_tables_from_events() {
    use gamewire_query::actions::{ActionKinds, ActionTables};
    use EventValue::{Bool, Float, Int, String as Str};
    let state = state_with_players();
    let at = |x: f32| [("x", Float(x)), ("y", Float(-5.0)), ("z", Float(1.5))];
    let with = |base: &[(&'static str, EventValue)], more: [(&'static str, EventValue); 3]| {
        let mut v = base.to_vec();
        v.extend(more);
        v
    };
    let events = [
        event(
            "bomb_dropped",
            5,
            &[("userid", Int(1)), ("entindex", Int(300))],
        ),
        event("bomb_pickup", 6, &[]),
        event(
            "weapon_fire",
            10,
            &[("userid", Int(0)), ("weapon", Str("weapon_ak47".into()))],
        ),
        event("player_footstep", 11, &[("userid", Int(2))]),
        event(
            "smokegrenade_detonate",
            20,
            &with(&[("userid", Int(0)), ("entityid", Int(401))], at(100.0)),
        ),
        event(
            "inferno_startburn",
            30,
            &with(&[("entityid", Int(402))], at(200.0)),
        ),
        event(
            "player_blind",
            31,
            &[
                ("userid", Int(1)),
                ("attacker", Int(2)),
                ("entityid", Int(403)),
                ("blind_duration", Float(3.25)),
            ],
        ),
        event(
            "bomb_beginplant",
            40,
            &[("userid", Int(0)), ("site", Int(77))],
        ),
        event(
            "bomb_planted",
            200,
            &[("userid", Int(0)), ("site", Int(77))],
        ),
        event(
            "inferno_expire",
            470,
            &with(&[("entityid", Int(402))], at(200.0)),
        ),
        event(
            "inferno_startburn",
            500,
            &with(&[("entityid", Int(404))], at(300.0)),
        ),
        event(
            "bomb_begindefuse",
            900,
            &[("userid", Int(1)), ("haskit", Bool(true))],
        ),
        event("bomb_abortdefuse", 910, &[("userid", Int(1))]),
        event(
            "smokegrenade_expired",
            1170,
            &with(&[("userid", Int(0)), ("entityid", Int(401))], at(100.0)),
        ),
        event(
            "bomb_defused",
            1200,
            &[("userid", Int(1)), ("site", Int(77))],
        ),
        event(
            "weapon_fire",
            1201,
            &[("userid", Int(2)), ("silenced", Bool(true))],
        ),
    ];
    let mut tables = ActionTables::new(ActionKinds {
        shots: true,
        bomb: true,
        smokes: true,
        infernos: true,
        flashes: true,
        footsteps: true,
    });
    for e in &events {
        tables.on_event(&state, e);
    }
    let t = tables.finish();
    let names: Vec<&str> = t.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "shots",
            "bomb",
            "smokes",
            "infernos",
            "flashes",
            "footsteps"
        ]
    );
    let (alice, bob, carol) = (76561198000000001u64, 76561198000000002, 76561198000000003);
    assert_eq!(
        rows(&t[0]),
        vec![
            vec![
                i(10),
                s("alice"),
                u(alice),
                i(0),
                N,
                s("ak47"),
                s("weapon_ak47"),
                b(false),
                N,
                N,
                N,
                N,
                N
            ],
            vec![
                i(1201),
                s("carol"),
                u(carol),
                i(2),
                N,
                s(""),
                s(""),
                b(true),
                N,
                N,
                N,
                N,
                N
            ],
        ]
    );
    let bomb: Vec<(Cell, Cell, Cell, Cell, Cell)> = rows(&t[1])
        .into_iter()
        .map(|r| {
            (
                r[0].clone(),
                r[1].clone(),
                r[2].clone(),
                r[6].clone(),
                r[7].clone(),
            )
        })
        .collect();
    assert_eq!(
        bomb,
        vec![
            (i(5), s("dropped"), s("bob"), N, N),
            // bomb_pickup has only a pawn handle: no player without entities.
            (i(6), s("pickup"), N, N, N),
            (i(40), s("beginplant"), s("alice"), i(77), N),
            (i(200), s("planted"), s("alice"), i(77), N),
            (i(900), s("begindefuse"), s("bob"), N, b(true)),
            (i(910), s("abortdefuse"), s("bob"), N, N),
            (i(1200), s("defused"), s("bob"), i(77), N),
        ]
    );
    let f = |x: f32| Cell::Float(x);
    assert_eq!(
        rows(&t[2]),
        vec![vec![
            i(401),
            i(20),
            i(1170),
            s("alice"),
            u(alice),
            i(0),
            N,
            f(100.0),
            f(-5.0),
            f(1.5)
        ]]
    );
    // Fires have no userid key; their thrower is the inferno entity's owner,
    // which needs entities.
    assert_eq!(
        rows(&t[3]),
        vec![
            vec![i(402), i(30), i(470), N, N, N, N, f(200.0), f(-5.0), f(1.5)],
            vec![i(404), i(500), N, N, N, N, N, f(300.0), f(-5.0), f(1.5)],
        ]
    );
    assert_eq!(
        rows(&t[4]),
        vec![vec![
            i(31),
            s("carol"),
            u(carol),
            i(2),
            N,
            s("bob"),
            u(bob),
            i(1),
            N,
            f(3.25),
            i(403)
        ]]
    );
    assert_eq!(
        rows(&t[5]),
        vec![vec![i(11), s("carol"), u(carol), i(2), N, N, N, N]]
    );
    // Every column has its declared type.
    use gamewire_query::reference::{BOMB, FLASHES, FOOTSTEPS, INFERNOS, SHOTS, SMOKES};
    for (table, spec) in t
        .iter()
        .zip([SHOTS, BOMB, SMOKES, INFERNOS, FLASHES, FOOTSTEPS])
    {
        let got: Vec<(&str, Kind)> = table
            .columns
            .iter()
            .map(|(n, c)| (n.as_str(), c.kind()))
            .collect();
        assert_eq!(got, spec.schema(), "{}", table.name);
    }
}
