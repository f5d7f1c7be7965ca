//! Match tables on event and entity sequences built here. The corpus clips
//! have no kills or rounds, so the events follow the real CS2 descriptors
//! found in the corpus (checked first: same names, keys and key types) and
//! the expected rows are written out by hand.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use gamewire_query::events::EventsCollector;
use gamewire_query::grenades::{GrenadeTracker, GrenadesCollector};
use gamewire_query::matches::MatchTables;
use gamewire_query::Cell;
use gamewire_query::{Collectors, Column, Kind, Query, Table, TableKind};
use gamewire_source2::gameevent::{EventValue, GameEvent};
use gamewire_source2::{DemoState, NoVisitor, UserInfo, Visitor};

fn corpus_demo() -> std::path::PathBuf {
    gamewire_corpus::path("cs2/14132.dem")
}

/// The descriptors these tests build events from: (event, [(key, type)]),
/// as printed from the corpus demo's `CMsgSource1LegacyGameEventList`.
const DESCRIPTORS: &[(&str, &[(&str, i32)])] = &[
    (
        "player_death",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("attacker", 9),
            ("attacker_pawn", 8),
            ("assister", 9),
            ("assister_pawn", 8),
            ("assistedflash", 6),
            ("weapon", 1),
            ("weapon_itemid", 1),
            ("weapon_fauxitemid", 1),
            ("weapon_originalowner_xuid", 1),
            ("headshot", 6),
            ("dominated", 4),
            ("revenge", 4),
            ("wipe", 4),
            ("penetrated", 4),
            ("noreplay", 6),
            ("noscope", 6),
            ("thrusmoke", 6),
            ("attackerblind", 6),
            ("distance", 2),
            ("dmg_health", 4),
            ("dmg_armor", 5),
            ("hitgroup", 5),
            ("attackerinair", 6),
        ],
    ),
    (
        "player_hurt",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("attacker", 9),
            ("attacker_pawn", 8),
            ("health", 5),
            ("armor", 5),
            ("weapon", 1),
            ("dmg_health", 4),
            ("dmg_armor", 5),
            ("hitgroup", 5),
        ],
    ),
    (
        "item_purchase",
        &[("userid", 9), ("team", 4), ("loadout", 4), ("weapon", 1)],
    ),
    (
        "round_start",
        &[("timelimit", 3), ("fraglimit", 3), ("objective", 1)],
    ),
    ("round_freeze_end", &[]),
    (
        "round_end",
        &[
            ("winner", 5),
            ("reason", 5),
            ("message", 1),
            ("legacy", 5),
            ("player_count", 4),
            ("nomusic", 5),
        ],
    ),
    ("round_officially_ended", &[]),
    (
        "smokegrenade_detonate",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("entityid", 4),
            ("x", 2),
            ("y", 2),
            ("z", 2),
        ],
    ),
    (
        "hegrenade_detonate",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("entityid", 4),
            ("x", 2),
            ("y", 2),
            ("z", 2),
        ],
    ),
    (
        "flashbang_detonate",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("entityid", 4),
            ("x", 2),
            ("y", 2),
            ("z", 2),
        ],
    ),
    (
        "decoy_started",
        &[
            ("userid_pawn", 8),
            ("entityid", 4),
            ("x", 2),
            ("y", 2),
            ("z", 2),
        ],
    ),
    (
        "molotov_detonate",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("x", 2),
            ("y", 2),
            ("z", 2),
        ],
    ),
    (
        "inferno_startburn",
        &[("entityid", 4), ("x", 2), ("y", 2), ("z", 2)],
    ),
    (
        "inferno_expire",
        &[("entityid", 4), ("x", 2), ("y", 2), ("z", 2)],
    ),
    (
        "smokegrenade_expired",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("entityid", 4),
            ("x", 2),
            ("y", 2),
            ("z", 2),
        ],
    ),
    (
        "weapon_fire",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("weapon", 1),
            ("silenced", 6),
        ],
    ),
    ("player_footstep", &[("userid", 9), ("userid_pawn", 8)]),
    (
        "bomb_beginplant",
        &[("userid", 9), ("userid_pawn", 8), ("site", 4)],
    ),
    (
        "bomb_planted",
        &[("userid", 9), ("userid_pawn", 8), ("site", 4)],
    ),
    (
        "bomb_begindefuse",
        &[("userid", 9), ("userid_pawn", 8), ("haskit", 6)],
    ),
    ("bomb_abortdefuse", &[("userid", 9), ("userid_pawn", 8)]),
    (
        "bomb_defused",
        &[("userid", 9), ("userid_pawn", 8), ("site", 4)],
    ),
    (
        "bomb_dropped",
        &[("userid", 9), ("userid_pawn", 8), ("entindex", 3)],
    ),
    ("bomb_pickup", &[("userid_pawn", 8)]),
    (
        "player_blind",
        &[
            ("userid", 9),
            ("attacker", 9),
            ("entityid", 4),
            ("blind_duration", 2),
        ],
    ),
];

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

/// Builds an event from its descriptor: every key gets a value, the given
/// ones or the type's zero.
fn event(name: &str, tick: i32, values: &[(&str, EventValue)]) -> GameEvent {
    let (_, keys) = DESCRIPTORS.iter().find(|(n, _)| *n == name).unwrap();
    for (k, _) in values {
        assert!(keys.iter().any(|(n, _)| n == k), "{name} has no key {k}");
    }
    let keys = keys
        .iter()
        .map(|(k, kind)| {
            let v = values
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
                .unwrap_or(match kind {
                    1 => EventValue::String(String::new()),
                    2 => EventValue::Float(0.0),
                    6 => EventValue::Bool(false),
                    7 => EventValue::U64(0),
                    // Player slot keys: 0xFFFF is "none".
                    9 => EventValue::Int(0xFFFF),
                    _ => EventValue::Int(0),
                });
            assert_eq!(
                std::mem::discriminant(&v),
                std::mem::discriminant(&match kind {
                    1 => EventValue::String(String::new()),
                    2 => EventValue::Float(0.0),
                    6 => EventValue::Bool(false),
                    7 => EventValue::U64(0),
                    _ => EventValue::Int(0),
                }),
                "{name}.{k} has type {kind}"
            );
            (k.to_string(), *kind, v)
        })
        .collect();
    GameEvent {
        name: name.to_string(),
        id: 0,
        tick,
        keys,
    }
}

fn state_with_players() -> DemoState {
    let mut state = DemoState::default();
    for (slot, name, steamid) in [
        (0usize, "alice", 76561198000000001u64),
        (1, "bob", 76561198000000002),
        (2, "carol", 76561198000000003),
    ] {
        state.players.insert(
            slot,
            UserInfo {
                slot,
                name: name.into(),
                steamid,
                userid: slot as i32,
                fake_player: false,
                is_hltv: false,
            },
        );
    }
    state
}

fn s(v: &str) -> Cell {
    Cell::Str(v.into())
}
fn i(v: i64) -> Cell {
    Cell::Int(v)
}
fn u(v: u64) -> Cell {
    Cell::UInt(v)
}
fn b(v: bool) -> Cell {
    Cell::Bool(v)
}
const N: Cell = Cell::Null;

fn rows(t: &Table) -> Vec<Vec<Cell>> {
    (0..t.rows()).map(|r| t.row(r)).collect()
}

fn run(events: &[GameEvent]) -> Vec<Table> {
    let state = state_with_players();
    let mut m = MatchTables::new(true, true, true, true);
    for e in events {
        m.on_event(&state, e);
    }
    m.finish()
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
            "winner",
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
                N,
                s("bob"),
                u(bb),
                N,
                s("carol"),
                u(c),
                N,
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
                N,
                s("carol"),
                u(c),
                N,
                N,
                N,
                N,
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
                N,
                s("bob"),
                u(76561198000000002),
                N,
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
                s("carol"),
                u(76561198000000003),
                N,
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
            i(2),
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

#[test]
fn grenade_trajectories() {
    // An entity sequence as the grenade collector reports it: a smoke
    // thrown by alice (entity 200), points on three ticks (two updates on
    // tick 11, the last kept), deleted at tick 40; a flashbang whose thrower
    // becomes known on its first update, alive at the end.
    let mut g = GrenadeTracker::default();
    g.spawn(200, 10, "smoke", (Some("alice".into()), Some(1)));
    g.point(200, 10, [0.0, 0.0, 64.0]);
    g.spawn(201, 11, "flashbang", (None, None));
    assert!(g.needs_thrower(201));
    g.thrower(201, (Some("bob".into()), Some(2)));
    assert!(!g.needs_thrower(201));
    g.point(200, 11, [5.0, 1.0, 70.0]);
    g.point(200, 11, [10.0, 2.0, 72.0]);
    g.point(201, 12, [-1.0, -2.0, 3.0]);
    g.point(200, 12, [20.0, 4.0, 60.0]);
    g.remove(200, 40);
    // Updates after deletion are ignored.
    g.point(200, 41, [0.0, 0.0, 0.0]);
    let t = g.finish();
    assert_eq!(
        t.column_names(),
        [
            "grenade_id",
            "entity_index",
            "grenade_type",
            "thrower_name",
            "thrower_steamid",
            "start_tick",
            "end_tick",
            "detonate_tick",
            "detonate_x",
            "detonate_y",
            "detonate_z",
            "tick",
            "x",
            "y",
            "z"
        ]
    );
    let f = Cell::Float;
    assert_eq!(
        rows(&t),
        vec![
            vec![
                i(1),
                i(200),
                s("smoke"),
                s("alice"),
                u(1),
                i(10),
                i(40),
                N,
                N,
                N,
                N,
                i(10),
                f(0.0),
                f(0.0),
                f(64.0)
            ],
            vec![
                i(1),
                i(200),
                s("smoke"),
                s("alice"),
                u(1),
                i(10),
                i(40),
                N,
                N,
                N,
                N,
                i(11),
                f(10.0),
                f(2.0),
                f(72.0)
            ],
            vec![
                i(1),
                i(200),
                s("smoke"),
                s("alice"),
                u(1),
                i(10),
                i(40),
                N,
                N,
                N,
                N,
                i(12),
                f(20.0),
                f(4.0),
                f(60.0)
            ],
            vec![
                i(2),
                i(201),
                s("flashbang"),
                s("bob"),
                u(2),
                i(11),
                N,
                N,
                N,
                N,
                N,
                i(12),
                f(-1.0),
                f(-2.0),
                f(3.0)
            ],
        ]
    );
}

/// A grenade event at `tick` naming entity `entity` at `pos`.
fn grenade_event(name: &str, tick: i32, entity: i32, pos: [f32; 3]) -> GameEvent {
    use EventValue::{Float, Int};
    let mut values = vec![
        ("x", Float(pos[0])),
        ("y", Float(pos[1])),
        ("z", Float(pos[2])),
    ];
    if name != "molotov_detonate" {
        values.push(("entityid", Int(entity)));
    }
    event(name, tick, &values)
}

#[test]
fn detonations_link_to_projectiles_by_entityid() {
    // Projectiles as the entity side reports them (spawn, positions,
    // deletion), detonation events as the corpus descriptors declare them.
    let state = state_with_players();
    let mut g = GrenadesCollector::default();
    let alice = (Some("alice".to_string()), Some(1u64));
    let bob = (Some("bob".to_string()), Some(2u64));
    // Smoke 300 (alice): detonates at 170 and lives on (the smoke cloud).
    g.tracker.spawn(300, 100, "smoke", alice.clone());
    g.tracker.point(300, 100, [0.0, 0.0, 0.0]);
    g.tracker.point(300, 150, [100.0, 50.0, 10.0]);
    // HE 301 (bob): the event comes before the deletion in the same tick.
    g.tracker.spawn(301, 110, "he_grenade", bob.clone());
    g.tracker.point(301, 110, [10.0, 10.0, 10.0]);
    // Flash 302 (bob): deleted one tick before its event.
    g.tracker.spawn(302, 120, "flashbang", bob.clone());
    g.tracker.point(302, 120, [20.0, 0.0, 5.0]);
    // Decoy 303 (alice): decoy_started is its detonation.
    g.tracker.spawn(303, 125, "decoy", alice.clone());
    g.tracker.point(303, 125, [-5.0, -5.0, 0.0]);
    // Flash 304: deleted long before an event naming its index.
    g.tracker.spawn(304, 200, "flashbang", alice.clone());
    g.tracker.point(304, 200, [1.0, 2.0, 3.0]);
    g.tracker.remove(304, 210);

    g.on_event(
        &state,
        &grenade_event("hegrenade_detonate", 140, 301, [200.0, 100.0, 30.0]),
    );
    g.tracker.remove(301, 140);
    g.tracker.remove(302, 160);
    g.on_event(
        &state,
        &grenade_event("flashbang_detonate", 161, 302, [21.0, 1.0, 6.0]),
    );
    g.on_event(
        &state,
        &grenade_event("smokegrenade_detonate", 170, 300, [101.0, 51.0, 11.0]),
    );
    // Wrong type for entity 300: not linked; the smoke keeps its detonation.
    g.on_event(
        &state,
        &grenade_event("hegrenade_detonate", 171, 300, [0.0, 0.0, 0.0]),
    );
    // A second detonation of the same smoke does not replace the first.
    g.on_event(
        &state,
        &grenade_event("smokegrenade_detonate", 172, 300, [9.0, 9.0, 9.0]),
    );
    // No such projectile.
    g.on_event(
        &state,
        &grenade_event("smokegrenade_detonate", 173, 999, [0.0, 0.0, 0.0]),
    );
    g.on_event(
        &state,
        &grenade_event("decoy_started", 180, 303, [-6.0, -6.0, 0.0]),
    );
    // Index 304 was deleted 90 ticks before: too late to link.
    g.on_event(
        &state,
        &grenade_event("flashbang_detonate", 300, 304, [1.0, 2.0, 3.0]),
    );

    let t = g.tracker.finish();
    let f = Cell::Float;
    let row = |id: i64,
               ent: i64,
               kind: &str,
               who: (&str, u64),
               life: (i64, Cell),
               det: [Cell; 4],
               at: (i64, [f32; 3])| {
        vec![
            i(id),
            i(ent),
            s(kind),
            s(who.0),
            u(who.1),
            i(life.0),
            life.1,
            det[0].clone(),
            det[1].clone(),
            det[2].clone(),
            det[3].clone(),
            i(at.0),
            f(at.1[0]),
            f(at.1[1]),
            f(at.1[2]),
        ]
    };
    assert_eq!(
        rows(&t),
        vec![
            row(
                1,
                300,
                "smoke",
                ("alice", 1),
                (100, N),
                [i(170), f(101.0), f(51.0), f(11.0)],
                (100, [0.0, 0.0, 0.0])
            ),
            row(
                1,
                300,
                "smoke",
                ("alice", 1),
                (100, N),
                [i(170), f(101.0), f(51.0), f(11.0)],
                (150, [100.0, 50.0, 10.0])
            ),
            row(
                2,
                301,
                "he_grenade",
                ("bob", 2),
                (110, i(140)),
                [i(140), f(200.0), f(100.0), f(30.0)],
                (110, [10.0, 10.0, 10.0])
            ),
            row(
                3,
                302,
                "flashbang",
                ("bob", 2),
                (120, i(160)),
                [i(161), f(21.0), f(1.0), f(6.0)],
                (120, [20.0, 0.0, 5.0])
            ),
            row(
                4,
                303,
                "decoy",
                ("alice", 1),
                (125, N),
                [i(180), f(-6.0), f(-6.0), f(0.0)],
                (125, [-5.0, -5.0, 0.0])
            ),
            row(
                5,
                304,
                "flashbang",
                ("alice", 1),
                (200, i(210)),
                [N, N, N, N],
                (200, [1.0, 2.0, 3.0])
            ),
        ]
    );
}

#[test]
fn fires_link_to_molotovs_by_thrower_and_position() {
    // A molotov (alice, pawn 51) and an incendiary (bob, pawn 52: a
    // molotov projectile whose m_bIsIncGrenade is set after the spawn).
    // The fire events carry no projectile id: `molotov_detonate` names the
    // thrower, `inferno_startburn` the inferno entity (whose owner is the
    // thrower's pawn); with no entities in this state, neither thrower
    // resolves and the position decides.
    let state = state_with_players();
    let mut g = GrenadesCollector::default();
    g.tracker
        .spawn(310, 1000, "molotov", (Some("alice".into()), Some(1)));
    g.tracker.thrower_pawn(310, 51);
    g.tracker.point(310, 1000, [0.0, 0.0, 0.0]);
    g.tracker.point(310, 1010, [300.0, 0.0, 0.0]);
    g.tracker
        .spawn(311, 1005, "molotov", (Some("bob".into()), Some(2)));
    g.tracker.thrower_pawn(311, 52);
    g.tracker.set_kind(311, "incendiary");
    g.tracker.point(311, 1006, [0.0, 300.0, 0.0]);
    g.tracker.point(311, 1012, [0.0, 600.0, 0.0]);
    g.tracker.remove(310, 1020);
    g.tracker.remove(311, 1022);
    let mut molotov = grenade_event("molotov_detonate", 1021, 0, [300.0, 1.0, 0.0]);
    if let Some(k) = molotov.keys.iter_mut().find(|(k, _, _)| k == "userid") {
        k.2 = EventValue::Int(0);
    }
    g.on_event(&state, &molotov);
    g.on_event(
        &state,
        &grenade_event("inferno_startburn", 1022, 400, [0.0, 601.0, 0.0]),
    );
    // Both have detonated: a third fire links to nothing.
    g.on_event(
        &state,
        &grenade_event("inferno_startburn", 1023, 401, [0.0, 600.0, 0.0]),
    );
    let t = g.tracker.finish();
    let det: Vec<Vec<Cell>> = rows(&t)
        .into_iter()
        .map(|r| {
            vec![
                r[0].clone(),
                r[2].clone(),
                r[7].clone(),
                r[8].clone(),
                r[9].clone(),
            ]
        })
        .collect();
    let f = Cell::Float;
    assert_eq!(
        det,
        vec![
            vec![i(1), s("molotov"), i(1021), f(300.0), f(1.0)],
            vec![i(1), s("molotov"), i(1021), f(300.0), f(1.0)],
            vec![i(2), s("incendiary"), i(1022), f(0.0), f(601.0)],
            vec![i(2), s("incendiary"), i(1022), f(0.0), f(601.0)],
        ]
    );

    // A known thrower picks the thrower's flight even when another is
    // nearer; a flight deleted more than 16 ticks before is not linked.
    let mut tr = GrenadeTracker::default();
    tr.spawn(320, 0, "molotov", (None, None));
    tr.thrower_pawn(320, 51);
    tr.point(320, 0, [0.0, 0.0, 0.0]);
    tr.spawn(321, 0, "incendiary", (None, None));
    tr.thrower_pawn(321, 52);
    tr.point(321, 0, [1000.0, 0.0, 0.0]);
    assert_eq!(tr.fire(5, [0.0, 0.0, 0.0], Some(52)), Some(2));
    tr.remove(320, 10);
    assert_eq!(tr.fire(27, [0.0, 0.0, 0.0], Some(51)), None);
    assert_eq!(tr.fire(26, [0.0, 0.0, 0.0], Some(51)), Some(1));
    // Smokes never take a fire.
    tr.spawn(322, 30, "smoke", (None, None));
    assert_eq!(tr.fire(31, [0.0, 0.0, 0.0], None), None);
}

#[test]
fn grenade_events_get_type_and_owner_columns() {
    // The events table on grenade events: `grenade_type` from the entity
    // (none here) or the event name; `user_*` from `userid`, or for an
    // event without one (`inferno_startburn`) the owner of `entityid`
    // (unknown here: null). Typed from the descriptors.
    let state = state_with_players();
    let mut c = EventsCollector::new(
        Some(vec![
            "smokegrenade_detonate".into(),
            "inferno_startburn".into(),
            "decoy_started".into(),
        ]),
        &[],
        &[],
    );
    let mut smoke = grenade_event("smokegrenade_detonate", 170, 300, [1.0, 2.0, 3.0]);
    if let Some(k) = smoke.keys.iter_mut().find(|(k, _, _)| k == "userid") {
        k.2 = EventValue::Int(0);
    }
    c.on_event(&state, &smoke);
    c.on_event(
        &state,
        &grenade_event("inferno_startburn", 200, 400, [4.0, 5.0, 6.0]),
    );
    let t = c.finish(&state);
    assert_eq!(
        t.column_names(),
        [
            "event_name",
            "tick",
            "entityid",
            "x",
            "y",
            "z",
            "grenade_type",
            "user_name",
            "user_steamid"
        ]
    );
    let f = Cell::Float;
    assert_eq!(
        rows(&t),
        vec![
            vec![
                s("smokegrenade_detonate"),
                i(170),
                i(300),
                f(1.0),
                f(2.0),
                f(3.0),
                s("smoke"),
                s("alice"),
                u(76561198000000001)
            ],
            vec![
                s("inferno_startburn"),
                i(200),
                i(400),
                f(4.0),
                f(5.0),
                f(6.0),
                N,
                N,
                N
            ],
        ]
    );
    let kinds: Vec<Kind> = t.columns.iter().map(|(_, c)| c.kind()).collect();
    assert_eq!(
        kinds,
        [
            Kind::Str,
            Kind::I64,
            Kind::I64,
            Kind::F32,
            Kind::F32,
            Kind::F32,
            Kind::Str,
            Kind::Str,
            Kind::U64
        ]
    );
}

#[test]
fn entity_first_events_wait_for_the_packet_entities() {
    // inferno_startburn and decoy_started are read after the packet's
    // entities (the entity they name is created in that packet), as
    // demoparser2 does: a later event of the same packet comes first.
    let state = state_with_players();
    let q = Query {
        tables: vec![TableKind::Events],
        events: Some(vec![
            "inferno_startburn".into(),
            "smokegrenade_detonate".into(),
        ]),
        ..Query::default()
    };
    let mut c = Collectors::new(&q);
    c.on_game_event(
        &state,
        &grenade_event("inferno_startburn", 7, 400, [0.0; 3]),
    );
    c.on_game_event(
        &state,
        &grenade_event("smokegrenade_detonate", 7, 300, [0.0; 3]),
    );
    c.on_packet_entities(&state);
    c.on_game_event(
        &state,
        &grenade_event("inferno_startburn", 8, 401, [0.0; 3]),
    );
    c.on_tick_end(&state, 8);
    c.on_game_event(
        &state,
        &grenade_event("inferno_startburn", 9, 402, [0.0; 3]),
    );
    // The demo ends: finish hands on what is left.
    let t = c.finish(&state).remove(0);
    let order: Vec<(Cell, Cell)> = (0..t.rows())
        .map(|r| (t.row(r)[0].clone(), t.column("entityid").unwrap().cell(r)))
        .collect();
    assert_eq!(
        order,
        vec![
            (s("smokegrenade_detonate"), i(300)),
            (s("inferno_startburn"), i(400)),
            (s("inferno_startburn"), i(401)),
            (s("inferno_startburn"), i(402)),
        ]
    );
}

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
                N,
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
                N,
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
                r[5].clone(),
                r[6].clone(),
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
            vec![i(402), i(30), i(470), N, N, N, f(200.0), f(-5.0), f(1.5)],
            vec![i(404), i(500), N, N, N, N, f(300.0), f(-5.0), f(1.5)],
        ]
    );
    assert_eq!(
        rows(&t[4]),
        vec![vec![
            i(31),
            s("carol"),
            u(carol),
            N,
            s("bob"),
            u(bob),
            N,
            f(3.25),
            i(403)
        ]]
    );
    assert_eq!(
        rows(&t[5]),
        vec![vec![i(11), s("carol"), u(carol), N, N, N, N]]
    );
    // Every column has its declared type.
    use gamewire_query::actions::{BOMB, EFFECTS, FLASHES, FOOTSTEPS, SHOTS};
    for (table, schema) in t
        .iter()
        .zip([SHOTS, BOMB, EFFECTS, EFFECTS, FLASHES, FOOTSTEPS])
    {
        let got: Vec<(&str, Kind)> = table
            .columns
            .iter()
            .map(|(n, c)| (n.as_str(), c.kind()))
            .collect();
        assert_eq!(got, schema.to_vec(), "{}", table.name);
    }
}

/// The extra props of `grenades` (demoparser2's `parse_grenades(extra=)`):
/// one column each after the fixed ones, with the values each point
/// carried (the last of a tick kept), null where a point has none.
#[test]
fn grenade_points_carry_the_extra_props() {
    let mut g = GrenadeTracker::default();
    g.spawn(300, 100, "smoke", (Some("alice".to_string()), Some(1)));
    g.point_with(
        300,
        100,
        [0.0, 0.0, 0.0],
        vec![Cell::Int(0), Cell::Bool(false)],
    );
    // Two updates in one tick: the last is kept.
    g.point_with(
        300,
        101,
        [1.0, 0.0, 0.0],
        vec![Cell::Int(0), Cell::Bool(false)],
    );
    g.point_with(
        300,
        101,
        [2.0, 0.0, 0.0],
        vec![Cell::Int(1), Cell::Bool(true)],
    );
    // A point without the values (as `point` records).
    g.point(300, 102, [3.0, 0.0, 0.0]);
    let t = g.finish_with(&[("m_nBounces", Kind::I64), ("m_bDidSmokeEffect", Kind::Bool)]);
    let names = t.column_names();
    assert_eq!(names.len(), 17);
    assert_eq!(&names[15..], ["m_nBounces", "m_bDidSmokeEffect"]);
    assert_eq!(t.rows(), 3);
    let col =
        |i: usize, name: &str| t.row(i)[names.iter().position(|n| *n == name).unwrap()].clone();
    assert_eq!(col(0, "m_nBounces"), Cell::Int(0));
    assert_eq!(col(1, "m_nBounces"), Cell::Int(1));
    assert_eq!(col(1, "m_bDidSmokeEffect"), Cell::Bool(true));
    assert_eq!(col(1, "x"), Cell::Float(2.0));
    assert_eq!(col(2, "m_nBounces"), Cell::Null);
    // Without extra props the table is the fixed columns.
    assert_eq!(GrenadeTracker::default().finish().column_names().len(), 15);
}
