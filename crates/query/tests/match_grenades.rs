//! Grenade tables on event and entity sequences built here.
//! The corpus clips have no kills or rounds, so the events follow the real
//! CS2 descriptors found in the corpus (checked first: same names, keys and
//! key types) and the expected rows are written out by hand.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::events::*;
use gamewire_query::events::EventsCollector;
use gamewire_query::grenades::{GrenadeTracker, GrenadesCollector};
use gamewire_query::Cell;
use gamewire_query::{Collectors, Kind, Query, TableKind};
use gamewire_source2::gameevent::{EventValue, GameEvent};
use gamewire_source2::Visitor;

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
            "entity_id",
            "grenade_type",
            "thrower_name",
            "thrower_steamid",
            "thrower_slot",
            "thrower_team",
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
                N,
                N,
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
                N,
                N,
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
                N,
                N,
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
                N,
                N,
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
            N,
            N,
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
                r[9].clone(),
                r[10].clone(),
                r[11].clone(),
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
            "userid",
            "userid_pawn",
            "entityid",
            "x",
            "y",
            "z",
            "grenade_type",
            "user_name",
            "user_steamid",
            "user_slot"
        ]
    );
    let f = Cell::Float;
    assert_eq!(
        rows(&t),
        vec![
            vec![
                s("smokegrenade_detonate"),
                i(170),
                i(0),
                i(0),
                i(300),
                f(1.0),
                f(2.0),
                f(3.0),
                s("smoke"),
                s("alice"),
                u(76561198000000001),
                i(0)
            ],
            vec![
                s("inferno_startburn"),
                i(200),
                N,
                N,
                i(400),
                f(4.0),
                f(5.0),
                f(6.0),
                N,
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
            Kind::I64,
            Kind::I64,
            Kind::F32,
            Kind::F32,
            Kind::F32,
            Kind::Str,
            Kind::Str,
            Kind::U64,
            Kind::I64
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
    assert_eq!(names.len(), 19);
    assert_eq!(&names[17..], ["m_nBounces", "m_bDidSmokeEffect"]);
    assert_eq!(t.rows(), 3);
    let col =
        |i: usize, name: &str| t.row(i)[names.iter().position(|n| *n == name).unwrap()].clone();
    assert_eq!(col(0, "m_nBounces"), Cell::Int(0));
    assert_eq!(col(1, "m_nBounces"), Cell::Int(1));
    assert_eq!(col(1, "m_bDidSmokeEffect"), Cell::Bool(true));
    assert_eq!(col(1, "x"), Cell::Float(2.0));
    assert_eq!(col(2, "m_nBounces"), Cell::Null);
    // Without extra props the table is the fixed columns.
    assert_eq!(GrenadeTracker::default().finish().column_names().len(), 17);
}
