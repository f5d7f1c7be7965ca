//! Player props, prop paths and the per-player tick rows on the real corpus
//! demos (CS2, Deadlock, Dota 2): positions, velocities and health that
//! make sense, heroes as players, computed props read from their parts,
//! rows that equal a full decode when other classes are read past.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use gamewire_source2::{parse_with, DemoParser, NoVisitor, Value};

/// The crate's analyst pieces these tests use, in one place.
mod analyst {
    pub use gamewire_query::classes::*;
    pub use gamewire_query::friendly_props::*;
    pub use gamewire_query::item_names::*;
    pub use gamewire_query::player_props::*;
    pub use gamewire_query::players::*;
    pub use gamewire_query::prop_paths::*;
    pub use gamewire_query::table::Cell;
    pub use gamewire_query::ticks::TicksCollector;
}

/// The cells of a `ticks` row after its key columns (`tick`, `slot`,
/// `steamid`, `name`): the props, in the order asked for.
fn props_of(row: &[analyst::Cell]) -> &[analyst::Cell] {
    row.get(gamewire_query::ticks::KEY_COLUMNS.len()..)
        .unwrap_or_default()
}

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

fn demos() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["cs2", "deadlock", "dota2"] {
        for e in std::fs::read_dir(corpus().join(dir)).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "dem") {
                out.push(e.path());
            }
        }
    }
    out.sort();
    assert!(out.len() >= 7, "corpus demos: {out:?}");
    out
}

#[test]
fn cs2_player_positions_and_health_are_sane() {
    use analyst::{Cell, TicksCollector};
    for path in demos()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("/cs2/"))
    {
        let data = std::fs::read(&path).unwrap();
        let props: Vec<String> = ["X", "Y", "Z", "health", "team_num"]
            .map(String::from)
            .to_vec();
        let mut collector = TicksCollector::new(&props, None);
        let mut parser = DemoParser::new(&data).unwrap();
        parser.run(&mut collector).unwrap();
        let rows = &collector.rows.rows;
        assert!(!rows.is_empty(), "{}: no player rows", path.display());
        let mut last: Option<(i64, f32, f32)> = None;
        for whole in rows {
            let row = props_of(whole);
            let (Cell::Float(x), Cell::Float(y), Cell::Float(z)) = (&row[0], &row[1], &row[2])
            else {
                panic!("{}: missing position in {whole:?}", path.display());
            };
            assert!(x.abs() < 16384.0 && y.abs() < 16384.0 && z.abs() < 16384.0);
            let Cell::Int(h) = row[3] else {
                panic!("health {whole:?}")
            };
            assert!((0..=100).contains(&h));
            let Cell::Int(slot) = whole[1] else {
                panic!("slot {whole:?}")
            };
            if let Some((s, px, py)) = last {
                if s == slot {
                    assert!(
                        (px - x).abs() < 64.0 && (py - y).abs() < 64.0,
                        "{}: jump",
                        path.display()
                    );
                }
            }
            last = Some((slot, *x, *y));
        }
    }
}

/// Deadlock and Dota 2: hero positions move smoothly (no jumps of hundreds
/// of units between consecutive updates), which catches wrong decoders.
#[test]
fn deadlock_and_dota_heroes_move_smoothly() {
    use gamewire_source2::{Entity, EntityChange, FieldPath, Visitor};
    struct Tracker {
        last: std::collections::HashMap<i32, (i32, [f32; 3])>,
        checked: usize,
        worst: f32,
    }
    impl Visitor for Tracker {
        fn on_entity(
            &mut self,
            state: &gamewire_source2::DemoState,
            change: EntityChange,
            e: &Entity,
            _p: &[FieldPath],
        ) {
            let class = state.class_name(e);
            if !(class.contains("Hero") || class.contains("PlayerPawn"))
                || change != EntityChange::Updated
            {
                return;
            }
            let tables = state.send_tables.as_ref().unwrap();
            let mut pos = [0f32; 3];
            for (axis, (c, v)) in [
                ("m_cellX", "m_vecX"),
                ("m_cellY", "m_vecY"),
                ("m_cellZ", "m_vecZ"),
            ]
            .iter()
            .enumerate()
            {
                let cell =
                    analyst::resolve_prop(tables, e.serializer, &format!("CBodyComponent.{c}"))
                        .and_then(|p| e.get(&p))
                        .and_then(Value::as_u64);
                let off =
                    analyst::resolve_prop(tables, e.serializer, &format!("CBodyComponent.{v}"))
                        .and_then(|p| e.get(&p))
                        .and_then(Value::as_f32);
                let (Some(cell), Some(off)) = (cell, off) else {
                    return;
                };
                // Dota 2 cells are 128 units wide (offsets span two cells,
                // 0..256); CS2 and Deadlock cells are 512 units.
                let width = if class.starts_with("CDOTA") {
                    128.0
                } else {
                    512.0
                };
                pos[axis] = cell as f32 * width + off;
            }
            if let Some((tick, prev)) = self.last.get(&e.index) {
                if state.tick - tick <= 16 {
                    let d = ((pos[0] - prev[0]).powi(2) + (pos[1] - prev[1]).powi(2)).sqrt();
                    self.worst = self.worst.max(d);
                    self.checked += 1;
                }
            }
            self.last.insert(e.index, (state.tick, pos));
        }
    }
    for path in demos()
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("/cs2/"))
    {
        let data = std::fs::read(&path).unwrap();
        let mut t = Tracker {
            last: Default::default(),
            checked: 0,
            worst: 0.0,
        };
        let mut parser = DemoParser::new(&data).unwrap();
        parser.run(&mut t).unwrap();
        assert!(
            t.checked > 20,
            "{}: only {} position pairs",
            path.display(),
            t.checked
        );
        assert!(
            t.worst < 300.0,
            "{}: a hero jumped {} units",
            path.display(),
            t.worst
        );
    }
}

/// `PropCache` reads the same values as resolving each name afresh, by id
/// and by name, and re-resolves when the demo's send tables are replaced.
#[test]
fn prop_cache_reads_what_a_fresh_resolve_reads() {
    use analyst::{resolve_prop, PropCache};
    use std::sync::Arc;
    let data = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    let (mut state, err) = parse_with(&data, &mut NoVisitor).unwrap();
    assert!(err.is_none());
    let names = [
        "m_iHealth",
        "m_iTeamNum",
        "CBodyComponent.m_cellX",
        "CBodyComponent.m_vecX",
        "m_angEyeAngles",
        "m_pWeaponServices.m_hActiveWeapon",
        "m_steamID",
        "m_iszPlayerName",
        "no_such_prop",
    ];
    let mut cache = PropCache::default();
    let ids: Vec<_> = names.iter().map(|n| cache.id(n)).collect();
    assert_eq!(cache.id("m_iHealth"), ids[0], "interned once");
    let check = |state: &gamewire_source2::DemoState, cache: &mut PropCache| {
        let tables = Arc::clone(state.send_tables.as_ref().unwrap());
        let mut found = 0;
        for e in state.entities.iter() {
            for (name, id) in names.iter().zip(&ids) {
                let fresh = resolve_prop(&tables, e.serializer, name).and_then(|p| e.get(&p));
                assert_eq!(cache.get(state, e, *id), fresh, "{name} on {}", e.index);
                assert_eq!(cache.value(state, e, name), fresh, "{name} on {}", e.index);
                found += usize::from(fresh.is_some());
            }
        }
        found
    };
    let found = check(&state, &mut cache);
    // Pawns and controllers have most of these props.
    assert!(found >= 8, "{found}");
    // New send tables (equal content, another build): paths are resolved
    // again and give the same values.
    let copy = (**state.send_tables.as_ref().unwrap()).clone();
    state.send_tables = Some(Arc::new(copy));
    assert_eq!(check(&state, &mut cache), found);
}

/// The tick collector keeps the controller indices between ticks and
/// rebuilds them when the entity list's generation changes: at every tick of
/// every CS2 demo its rows name exactly the players a fresh scan finds, in
/// the same order; the generation changes exactly when an entity is
/// created or deleted.
#[test]
fn tick_rows_follow_entity_creates_and_deletes() {
    use analyst::{players, Cell, PropCache, TicksCollector};
    use gamewire_source2::{DemoState, Entity, EntityChange, FieldPath, Visitor};
    struct Check {
        collector: TicksCollector,
        fresh: PropCache,
        last_generation: u64,
        creates_or_deletes: bool,
        ticks: usize,
    }
    impl Visitor for Check {
        fn on_entity(&mut self, _: &DemoState, c: EntityChange, _: &Entity, _: &[FieldPath]) {
            self.creates_or_deletes |= matches!(c, EntityChange::Created | EntityChange::Deleted);
        }
        fn on_packet_entities(&mut self, state: &DemoState) {
            let generation = state.entities.generation();
            if self.creates_or_deletes {
                assert_ne!(generation, self.last_generation, "tick {}", state.tick);
            } else {
                assert_eq!(generation, self.last_generation, "tick {}", state.tick);
            }
            self.last_generation = generation;
            self.creates_or_deletes = false;
            let before = self.collector.rows.rows.len();
            self.collector.on_packet_entities(state);
            if state.in_full_packet {
                return;
            }
            let got: Vec<i64> = self.collector.rows.rows[before..]
                .iter()
                .map(|row| match row[1] {
                    Cell::Int(s) => s,
                    ref other => panic!("slot cell {other:?}"),
                })
                .collect();
            let want: Vec<i64> = players(state, &mut self.fresh)
                .iter()
                .map(|p| i64::from(p.slot))
                .collect();
            assert_eq!(got, want, "tick {}", state.tick);
            self.ticks += usize::from(!want.is_empty());
        }
    }
    let cs2: Vec<_> = demos()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("/cs2/"))
        .collect();
    assert_eq!(cs2.len(), 5, "{cs2:?}");
    for path in cs2 {
        let data = std::fs::read(&path).unwrap();
        let mut v = Check {
            collector: TicksCollector::new(&["health".to_string()], None),
            fresh: PropCache::default(),
            last_generation: 0,
            creates_or_deletes: false,
            ticks: 0,
        };
        let (_, err) = parse_with(&data, &mut v).unwrap();
        assert!(err.is_none(), "{}", path.display());
        assert!(
            v.ticks > 100,
            "{}: {} ticks with players",
            path.display(),
            v.ticks
        );
    }
}

/// A prop path may name a nested table by its serializer, as demoparser2
/// names props (`CCSPlayer_MovementServices.m_flMaxspeed`): the same field
/// path as by the field's name, on every CS2 demo; and the player props
/// computed from several entities read what their parts say.
#[test]
fn tables_resolve_by_serializer_name_and_computed_props_read_their_parts() {
    use analyst::{
        entity_of_handle, item_name, players, read_player_prop, resolve_prop, Cell, Computed,
        PropCache, PropSource, ACTIVE_WEAPON_PROP,
    };
    let pairs = [
        (
            "CCSPlayerPawn",
            "CCSPlayer_MovementServices.m_flMaxspeed",
            "m_pMovementServices.m_flMaxspeed",
        ),
        (
            "CCSPlayerPawn",
            "CCSPlayer_WeaponServices.m_hActiveWeapon",
            "m_pWeaponServices.m_hActiveWeapon",
        ),
        (
            "CCSPlayerController",
            "CCSPlayerController_ActionTrackingServices.m_iKills",
            "m_pActionTrackingServices.m_iKills",
        ),
        (
            "CCSPlayerController",
            "CCSPlayerController_InGameMoneyServices.m_iAccount",
            "m_pInGameMoneyServices.m_iAccount",
        ),
    ];
    let mut weapons_named = 0;
    for demo in ["14011", "14065", "14132", "14150_ag2", "14155"] {
        let data = std::fs::read(corpus().join(format!("cs2/{demo}.dem"))).unwrap();
        let (state, err) = parse_with(&data, &mut NoVisitor).unwrap();
        assert!(err.is_none(), "{demo}");
        let tables = state.send_tables.as_ref().unwrap();
        for (class, by_serializer, by_field) in pairs {
            let root = tables.by_name(class).unwrap();
            let a = resolve_prop(tables, root, by_serializer);
            assert!(a.is_some(), "{demo} {by_serializer}");
            assert_eq!(
                a,
                resolve_prop(tables, root, by_field),
                "{demo} {by_serializer}"
            );
        }
        let root = tables.by_name("CCSPlayerPawn").unwrap();
        assert_eq!(
            resolve_prop(tables, root, "CCSPlayer_NoSuchServices.m_x"),
            None
        );
        let mut cache = PropCache::default();
        let found = players(&state, &mut cache);
        assert!(!found.is_empty(), "{demo}");
        for p in found {
            let pawn = state.entities.get(p.pawn);
            let controller = state.entities.get(p.controller);
            let read = |cache: &mut PropCache, s: PropSource| {
                read_player_prop(&state, cache, pawn, controller, &s)
            };
            assert_eq!(
                read(&mut cache, PropSource::Computed(Computed::EntityId)),
                Cell::Int(i64::from(p.pawn))
            );
            // The weapon name is the name of the held weapon's item index.
            let weapon = pawn
                .and_then(|e| cache.value(&state, e, ACTIVE_WEAPON_PROP))
                .and_then(|v| v.as_u64())
                .and_then(|h| entity_of_handle(&state.entities, h));
            let index = weapon
                .and_then(|w| cache.value(&state, w, "m_iItemDefinitionIndex"))
                .and_then(|v| v.as_u64());
            let want = index
                .and_then(item_name)
                .map_or(Cell::Null, |n| Cell::Str(n.to_string()));
            assert_eq!(
                read(&mut cache, PropSource::Computed(Computed::WeaponName)),
                want
            );
            weapons_named += usize::from(want != Cell::Null);
            // The user id is that of the player's userinfo entry.
            let userid = state
                .players
                .values()
                .find(|i| i.steamid == p.steamid)
                .map_or(Cell::Null, |i| Cell::Int(i64::from(i.userid)));
            assert_eq!(
                read(&mut cache, PropSource::Computed(Computed::UserId)),
                userid
            );
        }
    }
    assert!(weapons_named >= 5, "{weapons_named}");
}

/// `TicksCollector` rows in Deadlock and Dota 2: the game's controllers and
/// their hero pawn (`m_hHeroPawn`) or hero (`m_hAssignedHero`), with the
/// players of `userinfo`; positions inside the map (Deadlock: the game
/// rules' minimap bounds; Dota 2: ±8500) that move smoothly; heroes alive.
#[test]
fn deadlock_and_dota_ticks_are_the_heroes() {
    use analyst::{Cell, TicksCollector};
    for (path, bound) in [
        ("deadlock/hltv_10423.dem", 10752.0f32),
        ("dota2/auto-20240102-2233-start.dem", 8500.0),
    ] {
        let data = std::fs::read(corpus().join(path)).unwrap();
        let props: Vec<String> = ["X", "Y", "Z", "health", "team_num"]
            .map(String::from)
            .to_vec();
        let mut tc = TicksCollector::new(&props, None);
        let (state, err) = parse_with(&data, &mut tc).unwrap();
        assert!(err.is_none(), "{path}");
        let rows = &tc.rows.rows;
        assert!(rows.len() >= 50, "{path}: {} rows", rows.len());
        let mut last: std::collections::HashMap<i64, (i64, f32, f32)> = Default::default();
        let mut moves = 0;
        for whole in rows {
            let r = props_of(whole);
            let f = |i: usize| match &r[i] {
                Cell::Float(x) => *x,
                other => panic!("{path}: {other:?} in {whole:?}"),
            };
            let (x, y) = (f(0), f(1));
            assert!(x.abs() <= bound && y.abs() <= bound, "{path}: {whole:?}");
            assert!(matches!(r[3], Cell::Int(h) if h > 0), "{path}: {whole:?}");
            assert!(matches!(r[4], Cell::Int(2 | 3)), "{path}: {whole:?}");
            let Cell::Int(tick) = whole[0] else { panic!() };
            let Cell::Int(slot) = whole[1] else { panic!() };
            let Cell::UInt(steamid) = whole[2] else {
                panic!()
            };
            let Cell::Str(name) = &whole[3] else { panic!() };
            assert!(
                state
                    .players
                    .values()
                    .any(|p| p.steamid == steamid && &p.name == name),
                "{path}: {name} {steamid} is not in userinfo"
            );
            if let Some((t, px, py)) = last.insert(slot, (tick, x, y)) {
                if tick - t <= 16 {
                    assert!(
                        ((x - px).powi(2) + (y - py).powi(2)).sqrt() < 300.0,
                        "{path}: {whole:?}"
                    );
                    moves += 1;
                }
            }
        }
        assert!(moves >= 40, "{path}: {moves}");
    }
}

/// User commands: every command drives a pawn that exists (index and
/// serial), command numbers and executed ticks only grow, render ticks in
/// the input history (CS2) only grow, and the command's view angles are the
/// ones the pawn's entity carries on the same row (two independent paths:
/// the protobuf command and the entity's `m_angEyeAngles`). Deadlock's
/// commands are decoded to their base command; the Dota 2 clip has none.
#[test]
fn user_commands_drive_their_pawns() {
    use analyst::{Cell, TicksCollector};
    use gamewire_source2::{DemoState, Interests, UserCommand, Visitor};

    #[derive(Default)]
    struct Commands {
        seen: Vec<UserCommand>,
        pawn_exists: usize,
    }
    impl Visitor for Commands {
        fn interests(&self) -> Interests {
            Interests {
                entities: true,
                user_commands: true,
                ..Interests::NONE
            }
        }
        fn on_user_command(&mut self, state: &DemoState, cmd: &UserCommand) {
            let pawn = cmd.pawn.and_then(|h| state.entities.get(h.index as i32));
            if let (Some(h), Some(p)) = (cmd.pawn, pawn) {
                let pawn_class =
                    matches!(state.class_name(p), "CCSPlayerPawn" | "CCitadelPlayerPawn");
                if p.serial == h.serial && pawn_class {
                    self.pawn_exists += 1;
                    assert_eq!(state.user_command_of(p), Some(cmd));
                }
            }
            self.seen.push(cmd.clone());
        }
    }

    for path in demos() {
        let data = std::fs::read(&path).unwrap();
        let name = path.display();
        let mut v = Commands::default();
        let (state, cut) = parse_with(&data, &mut v).unwrap();
        assert!(cut.is_none() && state.warnings.is_empty(), "{name}");
        let cs2 = path.to_string_lossy().contains("/cs2/");
        if path.to_string_lossy().contains("/dota2/") {
            assert!(v.seen.is_empty(), "{name}: the Dota 2 clip has no commands");
            continue;
        }
        // One command per tick after the first, each on an existing pawn.
        assert!(
            v.seen.len() as i32 >= state.tick - 2,
            "{name}: {} commands",
            v.seen.len()
        );
        assert_eq!(v.pawn_exists, v.seen.len(), "{name}");
        for w in v.seen.windows(2) {
            if w[0].pawn == w[1].pawn {
                assert!(w[1].cmd_number > w[0].cmd_number, "{name}");
                assert!(
                    w[1].server_tick_executed > w[0].server_tick_executed,
                    "{name}"
                );
            }
        }
        let history: Vec<i32> = v
            .seen
            .iter()
            .flat_map(|c| c.input_history.iter().map(|h| h.render_tick_count))
            .collect();
        if cs2 {
            assert!(history.len() >= v.seen.len(), "{name}");
        } else {
            assert!(history.is_empty(), "{name}: only CS2 has input history");
        }
        assert!(history.windows(2).all(|w| w[0] <= w[1]), "{name}");

        let props: Vec<String> = ["pitch", "yaw", "usercmd_viewangle_x", "usercmd_viewangle_y"]
            .map(String::from)
            .to_vec();
        // Bots send no commands.
        let mut ticks = TicksCollector::new(&props, None).humans_only(true);
        DemoParser::new(&data).unwrap().run(&mut ticks).unwrap();
        // CS2 networks the eye angles at full precision; Deadlock's are
        // quantized (steps of about 0.02 degrees).
        let tolerance = if cs2 { 1e-3 } else { 0.05 };
        let mut compared = 0;
        for row in &ticks.rows.rows {
            if let [Cell::Float(pitch), Cell::Float(yaw), Cell::Float(cx), Cell::Float(cy), ..] =
                props_of(row)
            {
                assert!(
                    (pitch - cx).abs() < tolerance && (yaw - cy).abs() < tolerance,
                    "{name}: {row:?}"
                );
                compared += 1;
            }
        }
        // Every row but those before the player's first command.
        let rows = ticks.rows.rows.len();
        assert!(
            rows > 40 && compared + 2 >= rows,
            "{name}: {compared} of {rows} rows compared"
        );
    }
}

/// `approximate_spotted_by` on 14011 (a deathmatch with bots, whose pawns
/// spot each other): one steam id per bit of `m_bSpottedByMask`, and a
/// list exactly when `m_bSpotted` is set; `agent_skin` names a model.
#[test]
fn spotted_by_lists_one_player_per_mask_bit() {
    use analyst::{computed_cell, Cell, Computed, PropCache};
    use gamewire_source2::{DemoState, Interests, Value, Visitor};

    #[derive(Default)]
    struct Spotted {
        cache: PropCache,
        pawns: usize,
        spotted: usize,
    }
    impl Visitor for Spotted {
        fn interests(&self) -> Interests {
            Interests {
                entities: true,
                ..Interests::NONE
            }
        }
        fn on_tick_end(&mut self, state: &DemoState, _tick: i32) {
            for pawn in state.entities.iter() {
                if state.class_name(pawn) != "CCSPlayerPawn" {
                    continue;
                }
                let mask = (0..2).fold(0u64, |acc, w| {
                    let word = self
                        .cache
                        .value(state, pawn, &format!("m_bSpottedByMask.{w}"))
                        .and_then(Value::as_u64)
                        .unwrap_or(0);
                    acc | (word << (32 * w))
                });
                let spotted = self
                    .cache
                    .value(state, pawn, "m_bSpotted")
                    .and_then(Value::as_bool);
                let Cell::UInts(by) = computed_cell(
                    state,
                    &mut self.cache,
                    Some(pawn),
                    None,
                    Computed::SpottedBy,
                ) else {
                    panic!("spotted_by is not a list");
                };
                assert_eq!(by.len(), mask.count_ones() as usize, "mask {mask:#x}");
                assert_eq!(spotted, Some(mask != 0));
                self.pawns += 1;
                self.spotted += usize::from(mask != 0);
            }
        }
    }
    let data = std::fs::read(corpus().join("cs2/14011.dem")).unwrap();
    let mut v = Spotted::default();
    parse_with(&data, &mut v).unwrap();
    assert!(
        v.pawns > 1000 && v.spotted > 100,
        "{} {}",
        v.pawns,
        v.spotted
    );

    // The agent of every CS2 clip's player is a known model.
    for name in ["14011", "14065", "14132", "14150_ag2", "14155"] {
        use analyst::TicksCollector;
        let data = std::fs::read(corpus().join(format!("cs2/{name}.dem"))).unwrap();
        let mut ticks = TicksCollector::new(&["agent_skin".to_string()], None);
        DemoParser::new(&data).unwrap().run(&mut ticks).unwrap();
        assert!(!ticks.rows.rows.is_empty());
        for row in &ticks.rows.rows {
            assert!(
                matches!(&props_of(row)[0], Cell::Str(s) if s.starts_with("customplayer_")),
                "{name}: {row:?}"
            );
        }
    }
}

/// demoparser2's `*_this_round` props read the current round's entry of
/// the controller's per-round stats: on every CS2 clip each equals the raw
/// `m_perRoundStats.<total_rounds_played>.<field>` prop of the same row,
/// and is never null (the vector holds an entry per round of the match).
/// On 14065 the first round's equipment value and saved money are written
/// at tick 142 (the freeze end), as demoparser2 reports them.
#[test]
fn round_stats_read_the_current_rounds_entry() {
    use analyst::{Cell, TicksCollector, FRIENDLY_PROPS};
    let stats: Vec<(&str, &str)> = FRIENDLY_PROPS
        .iter()
        .filter_map(|(n, spec)| Some((*n, spec.strip_prefix("computed:round:")?)))
        .collect();
    assert_eq!(stats.len(), 13);
    for name in ["14011", "14065", "14132", "14150_ag2", "14155"] {
        let data = std::fs::read(corpus().join(format!("cs2/{name}.dem"))).unwrap();
        let rounds = {
            let mut t = TicksCollector::new(&["total_rounds_played".to_string()], None);
            DemoParser::new(&data).unwrap().run(&mut t).unwrap();
            t.rows.rows
        };
        let round = match rounds.first().map(|r| &props_of(r)[0]) {
            Some(Cell::Int(r)) => *r,
            other => panic!("{name}: total_rounds_played {other:?}"),
        };
        assert!(
            rounds.iter().all(|r| props_of(r)[0] == Cell::Int(round)),
            "{name}: the clip spans one round"
        );
        let mut props: Vec<String> = stats.iter().map(|(n, _)| n.to_string()).collect();
        props.extend(stats.iter().map(|(_, f)| {
            format!("CCSPlayerController.m_pActionTrackingServices.m_perRoundStats.{round:04}.{f}")
        }));
        let mut t = TicksCollector::new(&props, None);
        DemoParser::new(&data).unwrap().run(&mut t).unwrap();
        assert!(!t.rows.rows.is_empty(), "{name}");
        for whole in &t.rows.rows {
            let row = props_of(whole);
            for k in 0..stats.len() {
                assert!(matches!(row[k], Cell::Int(_)), "{name}: {row:?}");
                assert_eq!(row[k], row[k + stats.len()], "{name}: {}", stats[k].0);
            }
        }
        if name == "14065" {
            let col = |n: &str| stats.iter().position(|(s, _)| *s == n).unwrap();
            for whole in &t.rows.rows {
                let row = props_of(whole);
                let Cell::Int(tick) = whole[0] else {
                    panic!("{whole:?}")
                };
                let (equipment, saved) = if tick >= 142 { (200, 800) } else { (0, 0) };
                assert_eq!(row[col("equipment_value_this_round")], Cell::Int(equipment));
                assert_eq!(row[col("money_saved_this_round")], Cell::Int(saved));
            }
        }
    }
}

/// `TicksCollector` reads past every class but the player row classes when
/// no prop follows a handle to another entity: on every corpus demo, with
/// every friendly prop of that kind at once (and raw team and game-rules
/// props), its rows equal those of a collector that decodes every class.
#[test]
fn tick_rows_read_past_other_classes_and_equal_a_full_decode() {
    use analyst::{is_player_row_class, TicksCollector, FRIENDLY_PROPS};
    let mut props: Vec<String> = FRIENDLY_PROPS
        .iter()
        .map(|(name, _)| (*name).to_string())
        .filter(|name| {
            TicksCollector::new(std::slice::from_ref(name), None).reads_player_classes_only()
        })
        .collect();
    props.extend(
        [
            "CCSTeam.m_iScore",
            "CCSGameRulesProxy.m_pGameRules.m_totalRoundsPlayed",
            "CCSPlayerPawn.m_iHealth",
            "CCSPlayerController.m_iPing",
        ]
        .map(String::from),
    );
    assert!(
        props.len() > 100,
        "only {} props read player classes only",
        props.len()
    );
    let weapon = TicksCollector::new(&["active_weapon_name".to_string()], None);
    assert!(!weapon.reads_player_classes_only());
    for path in demos() {
        let name = path.display().to_string();
        let data = std::fs::read(&path).unwrap();
        let run = |collector: TicksCollector| {
            assert_eq!(
                collector.reads_player_classes_only(),
                !collector_decodes_all(&collector)
            );
            let mut collector = collector;
            let mut parser = DemoParser::new(&data).unwrap();
            parser.run(&mut collector).unwrap();
            let skipped = parser
                .state
                .entities
                .iter()
                .filter(|e| !e.is_decoded())
                .count();
            assert!(parser
                .state
                .entities
                .iter()
                .all(|e| e.is_decoded() || !is_player_row_class(parser.state.class_name(e))));
            (format!("{:?}", collector.rows), skipped)
        };
        let (filtered, skipped) = run(TicksCollector::new(&props, None));
        let (full, none_skipped) = run(TicksCollector::new(&props, None).with_every_class());
        assert_eq!(none_skipped, 0, "{name}");
        assert!(skipped > 10, "{name}: {skipped} entities read past");
        assert!(full.len() > 10_000, "{name}: a small table");
        assert!(filtered == full, "{name}: the rows differ");
    }
}

fn collector_decodes_all(c: &analyst::TicksCollector) -> bool {
    use gamewire_source2::Visitor;
    c.wants_class("CWeaponAK47")
}

/// Tick rows of the broadcasts' heroes: every player's hero inside the
/// game rules' minimap bounds (±10752 on both maps), so the position
/// origin is right; the heroes move.
#[test]
fn broadcast_ticks_keep_the_heroes_inside_the_map() {
    use analyst::{Cell, TicksCollector};
    for name in ["street_test_60tps", "dl_midtown_2025-02-27"] {
        let dir = corpus().join("deadlock/broadcast").join(name);
        let demo = gamewire_query::input::open(&dir).unwrap().bytes;
        let props: Vec<String> = ["X", "Y", "health"].map(String::from).to_vec();
        let mut tc = TicksCollector::new(&props, None);
        let (_, err) = parse_with(&demo, &mut tc).unwrap();
        assert!(err.is_none(), "{name}");
        let rows = &tc.rows.rows;
        assert!(rows.len() > 4000, "{name}: {} rows", rows.len());
        let mut players = std::collections::BTreeSet::new();
        let mut places = std::collections::BTreeSet::new();
        for whole in rows {
            let r = props_of(whole);
            let (Cell::Float(x), Cell::Float(y)) = (&r[0], &r[1]) else {
                panic!("{name}: {whole:?}")
            };
            assert!(
                x.abs() <= 10752.0 && y.abs() <= 10752.0,
                "{name}: {whole:?}"
            );
            places.insert((*x as i32 / 100, *y as i32 / 100));
            if let Cell::UInt(s) = whole[2] {
                players.insert(s);
            }
        }
        assert!(players.len() >= 10, "{name}: {} players", players.len());
        assert!(places.len() > 100, "{name}: the heroes stand still");
    }
}
