//! Props on the real corpus demos: `ticks` against demoparser2, team and
//! game-wide props, user commands and the updated fields.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::demos::*;
use gamewire_query::Cell;
use gamewire_query::{Column, Query, TableKind};

#[test]
fn ticks_match_demoparser2_on_14065() {
    // demoparser2 0.42.0 parse_ticks(["X", "Y", "health", "balance"]) on
    // this demo: 185 rows (ticks 1..=185, one human player); at tick 1
    // X -1874.0, Y -1076.0, health 100, balance 800, steamid
    // 76561197966986733, name "Partridge".
    let q = Query {
        tables: vec![TableKind::Ticks],
        player_props: vec!["X".into(), "Y".into(), "health".into(), "balance".into()],
        ..Query::default()
    };
    let t = run_file(&q, &corpus().join("cs2/14065.dem"))
        .unwrap()
        .remove(0);
    assert_eq!(
        t.column_names(),
        ["X", "Y", "health", "balance", "tick", "steamid", "name"]
    );
    assert_eq!(t.rows(), 185);
    assert_eq!(
        t.row(0),
        vec![
            Cell::Float(-1874.0),
            Cell::Float(-1076.0),
            Cell::Int(100),
            Cell::Int(800),
            Cell::Int(1),
            Cell::UInt(76561197966986733),
            Cell::Str("Partridge".into())
        ]
    );
    let Some(Column::I64(ticks)) = t.column("tick") else {
        panic!("tick column");
    };
    let want: Vec<Option<i64>> = (1..=185).map(Some).collect();
    assert_eq!(*ticks, want);
}

#[test]
fn team_and_game_wide_props_on_the_corpus() {
    // Values as demoparser2 0.42.0 gives them (parse_ticks / parse_event
    // on the same demos): Partridge plays T on 14065 and CT on 14155; no
    // rounds yet; team clan names empty; freeze period.
    for (demo, team, team_name) in [
        ("cs2/14065.dem", 2, "TERRORIST"),
        ("cs2/14155.dem", 3, "CT"),
    ] {
        let q = Query {
            tables: vec![TableKind::Ticks],
            player_props: vec![
                "team_num".into(),
                "team_name".into(),
                "team_clan_name".into(),
                "team_rounds_total".into(),
                "team_score_first_half".into(),
                "is_warmup_period".into(),
                "game_phase".into(),
            ],
            ticks: Some(gamewire_query::TickSet::from_ticks(vec![100])),
            ..Query::default()
        };
        let t = run_file(&q, &corpus().join(demo)).unwrap().remove(0);
        assert_eq!(t.rows(), 1, "{demo}");
        assert_eq!(
            t.row(0)[..7],
            [
                Cell::Int(team),
                Cell::Str(team_name.into()),
                Cell::Str(String::new()),
                Cell::Int(0),
                Cell::Int(0),
                Cell::Bool(false),
                Cell::Int(2),
            ],
            "{demo}"
        );
    }
    let q = Query {
        tables: vec![TableKind::Events],
        events: Some(vec!["round_freeze_end".into()]),
        other_props: vec![
            "team_name".into(),
            "ct_team_rounds_total".into(),
            "is_freeze_period".into(),
            "round_start_time".into(),
            "CCSTeam.m_iScore".into(),
        ],
        ..Query::default()
    };
    let t = run_file(&q, &corpus().join("cs2/14065.dem"))
        .unwrap()
        .remove(0);
    assert_eq!(
        t.column_names(),
        [
            "event_name",
            "tick",
            "t_team_name",
            "ct_team_name",
            "ct_team_rounds_total",
            "is_freeze_period",
            "round_start_time",
            "t_CCSTeam.m_iScore",
            "ct_CCSTeam.m_iScore"
        ]
    );
    assert_eq!(
        t.row(0),
        vec![
            Cell::Str("round_freeze_end".into()),
            Cell::Int(142),
            Cell::Str("TERRORIST".into()),
            Cell::Str("CT".into()),
            Cell::Int(0),
            Cell::Bool(true),
            Cell::Float(30.5),
            Cell::Int(0),
            Cell::Int(0),
        ]
    );
    // Every friendly game-wide and team name resolves on every CS2 demo.
    for demo in cs2_demos() {
        let (_, state) = run_with_state(
            &Query {
                tables: vec![TableKind::Chat],
                // Naming a prop makes the parser build the send tables.
                other_props: vec!["total_rounds_played".into()],
                ..Query::default()
            },
            &std::fs::read(&demo).unwrap(),
        )
        .unwrap();
        assert!(state.send_tables.is_some());
        for name in gamewire_query::world::other_names() {
            assert!(
                gamewire_query::prop_checks::other_prop_known(&state, name),
                "{} {name}",
                demo.display()
            );
            assert!(
                gamewire_query::prop_checks::player_prop_known(&state, name),
                "{} {name}",
                demo.display()
            );
        }
        assert!(!gamewire_query::prop_checks::other_prop_known(
            &state,
            "t_team_nme"
        ));
        assert!(!gamewire_query::prop_checks::other_prop_known(
            &state,
            "CCSTeam.m_nope"
        ));
    }
}

#[test]
fn user_commands_table_agrees_with_the_usercmd_props() {
    // One pass: the `user_commands` table and `ticks` with usercmd props.
    for name in ["14011", "14065", "14132", "14150_ag2", "14155"] {
        let q = Query {
            tables: vec![TableKind::UserCommands, TableKind::Ticks],
            player_props: vec!["usercmd_viewangle_y".into(), "usercmd_mouse_dx".into()],
            ..Query::default()
        };
        let tables = run_file(&q, &corpus().join(format!("cs2/{name}.dem"))).unwrap();
        let (cmds, ticks) = (&tables[0], &tables[1]);
        assert_eq!(cmds.name, "user_commands");
        assert!(cmds.rows() > 100, "{name}: {} commands", cmds.rows());
        let Some(Column::I64(cmd_ticks)) = cmds.column("tick") else {
            panic!("tick")
        };
        let Some(Column::F32(yaws)) = cmds.column("viewangle_y") else {
            panic!("viewangle_y")
        };
        let Some(Column::U64(steamids)) = cmds.column("steamid") else {
            panic!("steamid")
        };
        let Some(Column::Str(history)) = cmds.column("input_history") else {
            panic!("input_history")
        };
        let Some(Column::I64(row_ticks)) = ticks.column("tick") else {
            panic!("ticks tick")
        };
        let Some(Column::F32(row_yaws)) = ticks.column("usercmd_viewangle_y") else {
            panic!("ticks usercmd_viewangle_y")
        };
        let Some(Column::U64(row_steamids)) = ticks.column("steamid") else {
            panic!("ticks steamid")
        };
        // Each tick row reads the last command of its tick (or an earlier
        // one) for that player.
        let mut matched = 0;
        for (i, (&t, &yaw)) in row_ticks.iter().zip(row_yaws).enumerate() {
            let last = (0..cmds.rows()).rev().find(|&j| {
                cmd_ticks[j].is_some_and(|ct| Some(ct) <= t) && steamids[j] == row_steamids[i]
            });
            match last {
                Some(j) => {
                    assert_eq!(yaw, yaws[j], "{name} row {i}");
                    matched += 1;
                }
                None => assert_eq!(yaw, None, "{name} row {i}"),
            }
        }
        assert!(
            matched + 2 >= ticks.rows(),
            "{name}: {matched} of {}",
            ticks.rows()
        );
        // The input history is JSON: an array of objects.
        for h in history.iter().flatten() {
            let v: serde_json::Value = serde_json::from_str(h).unwrap();
            assert!(v
                .as_array()
                .is_some_and(|a| a.iter().all(|e| e["render_tick_count"].is_i64())));
        }
    }
}

/// `updated_fields` on every CS2 clip: one row per name, sorted; every name
/// is a `ticks` prop as it is, or once an element index is put in after
/// the array or vector it names (`…m_iAmmo.0000`); the body component's
/// cell and the pawn's eye angles are carried by updates; each row's
/// entity kind matches its name's prefix.
#[test]
fn updated_fields_are_ticks_props() {
    use gamewire_query::prop_checks::player_prop_known;
    for demo in ["14011", "14065", "14132", "14150_ag2", "14155"] {
        let data = std::fs::read(corpus().join(format!("cs2/{demo}.dem"))).unwrap();
        let q = Query {
            tables: vec![TableKind::UpdatedFields],
            ..Query::default()
        };
        let (tables, state) = run_with_state(&q, &data).unwrap();
        let t = &tables[0];
        assert_eq!(t.name, "updated_fields");
        assert!(t.rows() > 100, "{demo}: {} names", t.rows());
        let mut names = Vec::new();
        for i in 0..t.rows() {
            let row = t.row(i);
            let (Cell::Str(name), Cell::Str(entity), Cell::Int(updates), Cell::Strs(classes)) =
                (&row[0], &row[1], &row[2], &row[3])
            else {
                panic!("{demo}: {row:?}")
            };
            let prefix = name.split('.').next().unwrap();
            let want = match prefix {
                "CCSPlayerPawn" => "pawn",
                "CCSPlayerController" => "controller",
                "CCSTeam" => "team",
                "CCSGameRulesProxy" => "rules",
                "Weapon" => "weapon",
                "Grenade" => "grenade",
                other => panic!("{demo}: prefix {other} of {name}"),
            };
            assert_eq!(entity, want, "{demo}: {name}");
            assert!(!classes.is_empty(), "{demo}: {name}");
            let dots = name.match_indices('.').map(|(i, _)| i).chain([name.len()]);
            let known = player_prop_known(&state, name)
                || dots.into_iter().any(|i| {
                    player_prop_known(&state, &format!("{}.0000{}", &name[..i], &name[i..]))
                });
            assert!(known, "{demo}: {name} is not a ticks prop");
            names.push((name.clone(), *updates));
        }
        assert!(
            names.windows(2).all(|w| w[0].0 < w[1].0),
            "{demo}: sorted, unique"
        );
        for carried in [
            "CCSPlayerPawn.CBodyComponentBaseAnimGraph.m_cellX",
            "CCSPlayerPawn.m_angEyeAngles",
        ] {
            let updates = names.iter().find(|(n, _)| n == carried).map(|(_, u)| *u);
            assert!(
                updates.is_some_and(|u| u > 0),
                "{demo}: {carried} {updates:?}"
            );
        }
    }
}

/// `updated_fields` of the player entities on every game: each name of a
/// pawn or controller value (not an array, which needs its element) that
/// an update carried reads a value on some entity of its classes at the
/// end of some tick, through the same prop lookup `ticks` uses, so a name
/// reads the field it lists: CS2 (pawn, controller; the pawn's `m_vecX`,
/// one of two fields of that name, is the view offset that is sent),
/// Deadlock (`CCitadelPlayerPawn.`, `CCitadelPlayerController.`) and Dota 2
/// (the heroes unprefixed, `CDOTAPlayerController.`).
#[test]
fn updated_fields_of_players_read_values() {
    use gamewire_query::friendly_props::{prop_source, PropSource};
    use gamewire_query::kinds::field_decoder;
    use gamewire_query::prop_paths::PropCache;
    use gamewire_source2::{DemoState, Interests, Visitor};

    struct Unread {
        /// (class names, path) of the names not read yet.
        names: Vec<(Vec<String>, String, String)>,
        cache: PropCache,
    }
    impl Visitor for Unread {
        fn interests(&self) -> Interests {
            Interests {
                entities: true,
                ..Interests::NONE
            }
        }
        fn on_tick_end(&mut self, state: &DemoState, _tick: i32) {
            let cache = &mut self.cache;
            self.names.retain(|(classes, path, _)| {
                !state.entities.iter().any(|e| {
                    classes.iter().any(|c| c == state.class_name(e))
                        && cache.value(state, e, path).is_some()
                })
            });
        }
    }

    let demos = [
        "cs2/14065.dem",
        "cs2/14155.dem",
        "deadlock/hltv_10423.dem",
        "dota2/auto-20240102-2233-start.dem",
    ];
    for demo in demos {
        let data = std::fs::read(corpus().join(demo)).unwrap();
        let q = Query {
            tables: vec![TableKind::UpdatedFields],
            ..Query::default()
        };
        let (tables, state) = run_with_state(&q, &data).unwrap();
        let send = state.send_tables.clone().unwrap();
        let t = &tables[0];
        let mut names = Vec::new();
        for i in 0..t.rows() {
            let row = t.row(i);
            let (Cell::Str(name), Cell::Str(entity), Cell::Int(updates), Cell::Strs(classes)) =
                (&row[0], &row[1], &row[2], &row[3])
            else {
                panic!("{demo}: {row:?}")
            };
            if !matches!(entity.as_str(), "pawn" | "controller") || *updates == 0 {
                continue;
            }
            let PropSource::Raw(_, path) = prop_source(name) else {
                panic!("{demo}: {name}")
            };
            let value = classes.iter().all(|c| {
                send.by_name(c)
                    .is_some_and(|s| field_decoder(&send, s, &path).is_some())
            });
            if value {
                names.push((classes.clone(), path, name.clone()));
            }
        }
        assert!(names.len() > 40, "{demo}: {} names", names.len());
        let mut unread = Unread {
            names,
            cache: PropCache::default(),
        };
        gamewire_source2::DemoParser::new(&data)
            .unwrap()
            .run(&mut unread)
            .unwrap();
        let never: Vec<&String> = unread.names.iter().map(|(_, _, n)| n).collect();
        assert!(never.is_empty(), "{demo}: never read: {never:?}");
    }
}
