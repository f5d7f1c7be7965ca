//! Event and match tables on the real corpus demos: player and game columns,
//! damages, rounds, players, chat, shots, footsteps and the Dota 2 combat log.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::demos::*;
use gamewire_query::raw_events::RawEventsCollector;
use gamewire_query::Cell;
use gamewire_query::{Column, Kind, Query, TableKind};

#[test]
fn events_have_player_and_game_columns() {
    // 14011 has weapon_fire, player_hurt, item_equip, ... by bots and one
    // human, Partridge.
    let data = std::fs::read(corpus().join("cs2/14011.dem")).unwrap();
    let q = Query {
        tables: vec![TableKind::Events],
        player_props: vec!["health".into(), "team_num".into()],
        other_props: vec!["total_rounds_played".into(), "is_warmup_period".into()],
        ..Query::default()
    };
    let t = run(&q, &data).unwrap().remove(0);
    // As many rows as the parser's own event collector sees.
    let mut ec = RawEventsCollector::new(None);
    gamewire_source2::parse_with(&data, &mut ec).unwrap();
    assert_eq!(t.rows(), ec.events.len());
    let names = t.column_names();
    for c in [
        "event_name",
        "tick",
        "user_name",
        "user_steamid",
        "user_health",
        "user_team_num",
        "total_rounds_played",
        "is_warmup_period",
    ] {
        assert!(names.contains(&c), "{c} missing from {names:?}");
    }
    // Every key as sent, the player keys included.
    for raw in ["userid", "attacker"] {
        assert!(names.contains(&raw), "{raw} dropped");
    }
    // Player columns agree with the parser's own event collector where it
    // names the player (humans), and are filled for bots too (steam id 0):
    // the player's health is that of a living player.
    for (r, (_, tick, cols)) in ec.events.iter().enumerate() {
        assert_eq!(
            t.column("tick").unwrap().cell(r),
            Cell::Int(i64::from(*tick))
        );
        let get = |k: &str| cols.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        if let Some(name) = get("user_name").filter(|n| *n != Cell::Null) {
            assert_eq!(t.column("user_name").unwrap().cell(r), name);
            let sid = match get("user_steamid") {
                Some(Cell::Str(s)) => Cell::UInt(s.parse().unwrap()),
                _ => Cell::Null,
            };
            assert_eq!(t.column("user_steamid").unwrap().cell(r), sid);
        }
        if get("userid").is_some() {
            assert!(matches!(
                t.column("user_name").unwrap().cell(r),
                Cell::Str(_)
            ));
            assert!(matches!(
                t.column("user_steamid").unwrap().cell(r),
                Cell::UInt(_)
            ));
            if let Cell::Int(h) = t.column("user_health").unwrap().cell(r) {
                assert!((0..=100).contains(&h), "health {h}");
            }
        }
    }
    // Every event of this clip that names a player names a bot: steam id 0.
    let Some(Column::U64(steamids)) = t.column("user_steamid") else {
        panic!("user_steamid")
    };
    assert!(steamids.iter().flatten().all(|s| *s == 0));
    assert!(steamids.iter().flatten().count() > 0);
    // Game-wide props are read from the rules entity once it exists.
    let Some(Column::I64(rounds)) = t.column("total_rounds_played") else {
        panic!(
            "total_rounds_played is {:?}",
            t.column("total_rounds_played")
        );
    };
    assert!(rounds.contains(&Some(0)));
    assert!(matches!(
        t.column("is_warmup_period"),
        Some(Column::Bool(_))
    ));
}

#[test]
fn damages_and_rounds_on_real_events() {
    // 14011 has three real player_hurt events, 14150_ag2 seven; 14065 one
    // round_freeze_end (a round whose start precedes the clip).
    for (demo, hurts) in [("cs2/14011.dem", 3), ("cs2/14150_ag2.dem", 7)] {
        let data = std::fs::read(corpus().join(demo)).unwrap();
        let mut ec = RawEventsCollector::new(Some(vec!["player_hurt".into()]));
        gamewire_source2::parse_with(&data, &mut ec).unwrap();
        assert_eq!(ec.events.len(), hurts);
        let q = Query {
            tables: vec![TableKind::Damages],
            ..Query::default()
        };
        let t = run(&q, &data).unwrap().remove(0);
        assert_eq!(t.rows(), hurts, "{demo}");
        for (r, (_, tick, cols)) in ec.events.iter().enumerate() {
            let get = |k: &str| {
                cols.iter()
                    .find(|(n, _)| n == k)
                    .map(|(_, v)| v.clone())
                    .unwrap()
            };
            assert_eq!(
                t.column("tick").unwrap().cell(r),
                Cell::Int(i64::from(*tick))
            );
            assert_eq!(t.column("dmg_health").unwrap().cell(r), get("dmg_health"));
            assert_eq!(t.column("health").unwrap().cell(r), get("health"));
            assert_eq!(t.column("weapon").unwrap().cell(r), get("weapon"));
            // The parser's collector nulls bots (steam id 0), as
            // demoparser2 does; the match tables keep their names.
            match get("user_name") {
                Cell::Null => {
                    assert!(matches!(
                        t.column("victim_name").unwrap().cell(r),
                        Cell::Str(_)
                    ));
                    assert_eq!(t.column("victim_steamid").unwrap().cell(r), Cell::UInt(0));
                }
                name => assert_eq!(t.column("victim_name").unwrap().cell(r), name),
            }
        }
    }
    let q = Query {
        tables: vec![TableKind::Rounds],
        ..Query::default()
    };
    let t = run_file(&q, &corpus().join("cs2/14065.dem"))
        .unwrap()
        .remove(0);
    assert_eq!(t.rows(), 1);
    let row = t.row(0);
    assert_eq!(row[0], Cell::Int(1));
    assert_eq!(row[1], Cell::Null, "start precedes the clip");
    assert!(matches!(row[2], Cell::Int(_)), "freeze end tick");
    assert_eq!(row[3], Cell::Null, "no round_end in the clip");
}

#[test]
fn players_table_on_14065() {
    let q = Query {
        tables: vec![TableKind::Players],
        ..Query::default()
    };
    let t = run_file(&q, &corpus().join("cs2/14065.dem"))
        .unwrap()
        .remove(0);
    let rows: Vec<Vec<Cell>> = (0..t.rows()).map(|r| t.row(r)).collect();
    let human: Vec<&Vec<Cell>> = rows
        .iter()
        .filter(|r| r[2] == Cell::Str("Partridge".into()))
        .collect();
    assert_eq!(human.len(), 1, "{rows:?}");
    assert_eq!(human[0][3], Cell::UInt(76561197966986733));
    assert_eq!(human[0][4], Cell::Bool(false));
    // Bots are fake players.
    assert!(rows.iter().any(|r| r[4] == Cell::Bool(true)));
}

#[test]
fn match_stats_resolve_on_14011() {
    let q = Query {
        tables: vec![TableKind::Players, TableKind::Ticks],
        player_props: vec!["kills_total".into(), "damage_total".into()],
        ticks: Some(gamewire_query::TickSet::from_ticks(vec![300])),
        ..Query::default()
    };
    let tables = run_file(&q, &corpus().join("cs2/14011.dem")).unwrap();
    let players = &tables[0];
    let Some(Column::I64(kills)) = players.column("kills_total") else {
        panic!("kills_total");
    };
    // Every player has a controller with match stats; a player with kills
    // has a score.
    let Some(Column::I64(score)) = players.column("score") else {
        panic!("score");
    };
    assert!(kills.iter().all(Option::is_some), "{kills:?}");
    assert!(kills.iter().flatten().sum::<i64>() > 0, "{kills:?}");
    for (k, s) in kills.iter().zip(score) {
        if k.unwrap() > 0 {
            assert!(s.unwrap() > 0, "kills {k:?} score {s:?}");
        }
    }
    let ticks = &tables[1];
    assert_eq!(
        ticks.column_names(),
        ["kills_total", "damage_total", "tick", "steamid", "name"]
    );
    assert!(ticks.rows() > 0);
    let Some(Column::I64(dmg)) = ticks.column("damage_total") else {
        panic!("damage_total is {:?}", ticks.column("damage_total"));
    };
    assert!(dmg.iter().all(Option::is_some));
}

#[test]
fn event_player_props_read_what_ticks_read() {
    // The props an event row gets for a player are read like the ticks
    // table reads them (checked against demoparser2 above): compare at the
    // last tick of 14065 for the human player (slot 0).
    use gamewire_query::event_players::{player_by_slot, player_prop};
    use gamewire_query::prop_paths::PropCache;
    let props = [
        "X",
        "Y",
        "Z",
        "health",
        "yaw",
        "balance",
        "is_alive",
        "kills_total",
    ];
    let q = Query {
        tables: vec![TableKind::Ticks],
        player_props: props.iter().map(|p| p.to_string()).collect(),
        ..Query::default()
    };
    let data = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    let (tables, state) = run_with_state(&q, &data).unwrap();
    let ticks = &tables[0];
    let last = ticks.row(ticks.rows() - 1);
    assert_eq!(last[props.len()], Cell::Int(i64::from(state.tick)));
    let mut paths = PropCache::default();
    let p = player_by_slot(&state, &mut paths, 0);
    for (i, name) in props.iter().enumerate() {
        let src = gamewire_query::friendly_props::prop_source(name);
        let cell = player_prop(&state, &mut paths, &p, &src);
        assert_ne!(cell, Cell::Null, "{name}");
        // Ticks columns are typed: compare through the same column type.
        let mut col = Column::new(ticks.columns[i].1.kind());
        col.push(&cell);
        assert_eq!(col.cell(0), last[i], "{name}");
    }
}

#[test]
fn shots_and_footsteps_are_the_events_with_the_players_positions() {
    for name in ["14011", "14150_ag2"] {
        let path = corpus().join(format!("cs2/{name}.dem"));
        let q = Query {
            tables: vec![
                TableKind::Shots,
                TableKind::Footsteps,
                TableKind::Events,
                TableKind::Smokes,
            ],
            events: Some(vec!["weapon_fire".into(), "player_footstep".into()]),
            player_props: vec!["X".into(), "yaw".into()],
            ..Query::default()
        };
        let tables = run_file(&q, &path).unwrap();
        let (shots, steps, events, smokes) = (&tables[0], &tables[1], &tables[2], &tables[3]);
        let Some(Column::Str(event_names)) = events.column("event_name") else {
            panic!("event_name")
        };
        let count = |n: &str| {
            event_names
                .iter()
                .filter(|e| e.as_deref() == Some(n))
                .count()
        };
        assert!(shots.rows() > 5, "{name}: {} shots", shots.rows());
        assert_eq!(shots.rows(), count("weapon_fire"), "{name}");
        assert_eq!(steps.rows(), count("player_footstep"), "{name}");
        // No smoke in these clips: an empty, typed table.
        assert_eq!(smokes.rows(), 0);
        assert_eq!(smokes.column("x").map(Column::kind), Some(Kind::F32));
        // Every shot has its shooter, on the map, looking somewhere sane;
        // the position and yaw are the events table's user props.
        let Some(Column::Str(names)) = shots.column("name") else {
            panic!("name")
        };
        let Some(Column::F32(x)) = shots.column("x") else {
            panic!("x")
        };
        let Some(Column::F32(pitch)) = shots.column("pitch") else {
            panic!("pitch")
        };
        let Some(Column::F32(yaw)) = shots.column("yaw") else {
            panic!("yaw")
        };
        assert!(names.iter().all(Option::is_some), "{name}");
        assert!(x.iter().all(|v| v.is_some_and(|v| v.abs() < 16384.0)));
        assert!(pitch.iter().all(|v| v.is_some_and(|v| v.abs() <= 90.0)));
        let Some(Column::F32(ev_x)) = events.column("user_X") else {
            panic!("user_X")
        };
        let Some(Column::F32(ev_yaw)) = events.column("user_yaw") else {
            panic!("user_yaw")
        };
        let fired: Vec<usize> = (0..events.rows())
            .filter(|&i| event_names[i].as_deref() == Some("weapon_fire"))
            .collect();
        assert_eq!(fired.len(), shots.rows());
        for (row, &i) in fired.iter().enumerate() {
            // Bots included: the events table's user props are the shot's.
            assert_eq!(ev_x[i], x[row], "{name} shot {row}");
            assert_eq!(ev_yaw[i], yaw[row], "{name} shot {row}");
        }
    }
}

#[test]
fn dota_combat_log_names_resolve_to_the_heroes_in_the_game() {
    let dota = std::fs::read_dir(corpus().join("dota2"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "dem"))
        .unwrap();
    // `players` decodes the entities (the combat log alone needs none).
    let q = Query {
        tables: vec![TableKind::CombatLog, TableKind::Players],
        ..Query::default()
    };
    let (tables, state) = run_with_state(&q, &std::fs::read(&dota).unwrap()).unwrap();
    let log = &tables[0];
    // Every CombatLogDataHLTV message is a row.
    assert_eq!(
        log.rows() as u64,
        state
            .message_counts
            .get("DotaUmCombatLogDataHltv")
            .copied()
            .unwrap_or(0)
    );
    assert!(log.rows() >= 30, "{} entries", log.rows());
    let col = |n: &str| match log.column(n) {
        Some(Column::Str(v)) => v.clone(),
        other => panic!("{n}: {other:?}"),
    };
    let (kinds, attackers, targets) = (col("type"), col("attacker_name"), col("target_name"));
    assert!(kinds.iter().all(|k| k
        .as_deref()
        .is_some_and(|k| k.chars().all(|c| c.is_ascii_lowercase() || c == '_'))));
    assert!(attackers.iter().chain(&targets).all(Option::is_some));
    let Some(Column::Bool(target_hero)) = log.column("is_target_hero") else {
        panic!("is_target_hero")
    };
    let Some(Column::F32(time)) = log.column("timestamp") else {
        panic!("timestamp")
    };
    assert!(time.windows(2).all(|w| w[0] <= w[1]), "{time:?}");
    // A hero target's name is a hero whose unit entity the demo has:
    // npc_dota_hero_dragon_knight is a CDOTA_Unit_Hero_DragonKnight.
    let classes: Vec<&str> = state.entities.iter().map(|e| state.class_name(e)).collect();
    let mut heroes = 0;
    for (t, hero) in targets.iter().zip(target_hero) {
        if *hero != Some(true) {
            continue;
        }
        let t = t.as_deref().unwrap();
        let short = t
            .strip_prefix("npc_dota_hero_")
            .unwrap_or_else(|| panic!("{t}"));
        let class: String = short
            .split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default()
            })
            .collect();
        let class = format!("CDOTA_Unit_Hero_{class}");
        assert!(classes.contains(&class.as_str()), "{t}: no {class}");
        heroes += 1;
    }
    assert!(heroes >= 10, "{heroes} hero targets");
}
