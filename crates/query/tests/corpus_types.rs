//! Column types and writers on the real corpus demos: typed columns that do
//! not depend on the demo or on the rows, Parquet, JSON lines and CSV.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::demos::*;
use gamewire_query::write::{record_batch, write_table, Format};
use gamewire_query::Cell;
use gamewire_query::{Column, Kind, Query, TableKind};
use std::path::PathBuf;

#[test]
fn chat_table_is_typed_on_every_cs2_demo() {
    for demo in demos()
        .into_iter()
        .filter(|d| d.to_string_lossy().contains("cs2"))
    {
        let q = Query {
            tables: vec![TableKind::Chat],
            ..Query::default()
        };
        let t = run_file(&q, &demo).unwrap().remove(0);
        assert_eq!(
            t.column_names(),
            ["tick", "slot", "name", "steamid", "text", "all_chat", "kind"]
        );
        // Every chat line has a tick and text.
        for r in 0..t.rows() {
            assert!(matches!(t.row(r)[0], Cell::Int(_)));
            assert!(matches!(t.row(r)[4], Cell::Str(_)));
        }
    }
}

#[test]
fn parquet_round_trips_typed_columns() {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let q = Query {
        tables: vec![TableKind::Ticks, TableKind::Players],
        player_props: vec![
            "X".into(),
            "health".into(),
            "is_alive".into(),
            "aim_punch_angle".into(),
            "CCSPlayerPawn.m_angEyeAngles".into(),
            "inventory".into(),
            "inventory_as_ids".into(),
            "approximate_spotted_by".into(),
            "inventory_as_bitmask".into(),
        ],
        ..Query::default()
    };
    let dir = std::env::temp_dir().join(format!("gamewire-query-rt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for t in run_file(&q, &corpus().join("cs2/14065.dem")).unwrap() {
        let path = dir.join(format!("{}.parquet", t.name));
        write_table(&t, Format::Parquet, std::fs::File::create(&path).unwrap()).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap())
            .unwrap()
            .build()
            .unwrap();
        let batches: Vec<_> = reader.map(|b| b.unwrap()).collect();
        let expected = record_batch(&t).unwrap();
        assert_eq!(batches.len(), 1, "one batch");
        assert_eq!(batches[0], expected, "{}", t.name);
        assert!(t.rows() > 0, "{}", t.name);
        if t.name == "ticks" {
            // Vectors and angles are lists of three floats, also in Parquet.
            for name in ["aim_punch_angle", "CCSPlayerPawn.m_angEyeAngles"] {
                let Some(Column::F32List(v)) = t.column(name) else {
                    panic!("{name}: {:?}", t.column(name).map(Column::kind));
                };
                assert!(v.iter().all(|l| l.as_ref().is_some_and(|l| l.len() == 3)));
                let list = batches[0].column_by_name(name).unwrap();
                assert!(matches!(
                    list.data_type(),
                    arrow_schema::DataType::List(f) if *f.data_type() == arrow_schema::DataType::Float32
                ));
            }
            // An inventory is a list of item names, also in Parquet.
            let Some(Column::StrList(inv)) = t.column("inventory") else {
                panic!("{:?}", t.column("inventory").map(Column::kind));
            };
            let want: Vec<String> = ["knife_t", "Glock-18", "C4 Explosive"]
                .map(String::from)
                .to_vec();
            assert!(inv.iter().all(|l| l.as_ref() == Some(&want)), "{inv:?}");
            assert!(matches!(
                batches[0].column_by_name("inventory").unwrap().data_type(),
                arrow_schema::DataType::List(f) if *f.data_type() == arrow_schema::DataType::Utf8
            ));
            // Its item indices and the spotters' steam ids are lists of
            // uint64 (nobody spots the player of this clip).
            let Some(Column::U64List(ids)) = t.column("inventory_as_ids") else {
                panic!("{:?}", t.column("inventory_as_ids").map(Column::kind));
            };
            assert!(
                ids.iter().all(|l| l.as_deref() == Some(&[59, 4, 49][..])),
                "{ids:?}"
            );
            let Some(Column::U64List(spotters)) = t.column("approximate_spotted_by") else {
                panic!("{:?}", t.column("approximate_spotted_by").map(Column::kind));
            };
            assert!(spotters
                .iter()
                .all(|l| l.as_ref().is_some_and(Vec::is_empty)));
            let Some(Column::U64(mask)) = t.column("inventory_as_bitmask") else {
                panic!("{:?}", t.column("inventory_as_bitmask").map(Column::kind));
            };
            let want = (1u64 << 59) | (1 << 4) | (1 << 49);
            assert!(mask.iter().all(|&m| m == Some(want)), "{mask:?}");
            for name in ["inventory_as_ids", "approximate_spotted_by"] {
                assert!(matches!(
                    batches[0].column_by_name(name).unwrap().data_type(),
                    arrow_schema::DataType::List(f) if *f.data_type() == arrow_schema::DataType::UInt64
                ));
            }
            // The eye angles' pitch and yaw are the `pitch` and `yaw` props.
            let q = Query {
                tables: vec![TableKind::Ticks],
                player_props: vec![
                    "CCSPlayerPawn.m_angEyeAngles".into(),
                    "pitch".into(),
                    "yaw".into(),
                ],
                ..Query::default()
            };
            let t = run_file(&q, &corpus().join("cs2/14065.dem"))
                .unwrap()
                .remove(0);
            for r in 0..t.rows() {
                let row = t.row(r);
                let Cell::Floats(angles) = &row[0] else {
                    panic!("{:?}", row[0])
                };
                assert_eq!(row[1], Cell::Float(angles[0]));
                assert_eq!(row[2], Cell::Float(angles[1]));
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn jsonl_and_csv_keep_column_order() {
    let q = Query {
        tables: vec![TableKind::Damages],
        ..Query::default()
    };
    let t = run_file(&q, &corpus().join("cs2/14011.dem"))
        .unwrap()
        .remove(0);
    let mut buf = Vec::new();
    write_table(&t, Format::Jsonl, &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let first = text.lines().next().unwrap();
    assert!(
        first.starts_with("{\"tick\":305,\"attacker_name\":\"Greymouth\""),
        "{first}"
    );
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v.as_object().unwrap().len(), t.columns.len());
    }
    let mut buf = Vec::new();
    write_table(&t, Format::Csv, &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next().unwrap(), t.column_names().join(","));
    assert_eq!(
        lines.next().unwrap(),
        "305,Greymouth,0,2,2,Dashen,0,4,3,galilar,galilar,22,3,78,97,chest"
    );
}

#[test]
fn an_event_with_no_rows_has_typed_columns() {
    // 14065 has no player_death: the columns still come from the
    // descriptor (types 1 string, 2 float, 4/5 short/byte, 6 bool), the
    // player keys and the props asked for.
    let q = Query {
        tables: vec![TableKind::Events],
        events: Some(vec!["player_death".into()]),
        // team_rounds_total both as a player and a game-wide prop (which
        // makes demoparser2 0.42.0 panic).
        player_props: vec![
            "health".into(),
            "X".into(),
            "team_name".into(),
            "team_rounds_total".into(),
        ],
        other_props: vec!["total_rounds_played".into(), "team_rounds_total".into()],
        ..Query::default()
    };
    let t = run_file(&q, &corpus().join("cs2/14065.dem"))
        .unwrap()
        .remove(0);
    assert_eq!(t.rows(), 0);
    let k = kinds(&t);
    let get = |n: &str| {
        k.iter()
            .find(|(c, _)| c == n)
            .map(|(_, k)| *k)
            .unwrap_or_else(|| panic!("no column {n} in {k:?}"))
    };
    for (col, kind) in [
        ("event_name", Kind::Str),
        ("tick", Kind::I64),
        ("assistedflash", Kind::Bool),
        ("weapon", Kind::Str),
        ("weapon_originalowner_xuid", Kind::Str),
        ("headshot", Kind::Bool),
        ("penetrated", Kind::I64),
        ("distance", Kind::F32),
        ("dmg_armor", Kind::I64),
        ("hitgroup", Kind::Str),
        ("attacker_name", Kind::Str),
        ("attacker_steamid", Kind::U64),
        ("attacker_slot", Kind::I64),
        ("attacker_health", Kind::I64),
        ("attacker_X", Kind::F32),
        ("attacker_team_name", Kind::Str),
        ("user_team_rounds_total", Kind::I64),
        ("user_health", Kind::I64),
        ("assister_X", Kind::F32),
        ("total_rounds_played", Kind::I64),
        ("t_team_rounds_total", Kind::I64),
        ("ct_team_rounds_total", Kind::I64),
    ] {
        assert_eq!(get(col), kind, "{col}");
    }
    // The player keys as sent, too.
    for raw in ["userid", "attacker", "assister"] {
        assert_eq!(get(raw), Kind::I64, "{raw}");
    }
    // A player-less event with no rows: keys and game-wide props only.
    let q = Query {
        tables: vec![TableKind::Events],
        events: Some(vec!["round_end".into()]),
        player_props: vec!["health".into()],
        other_props: vec!["is_bomb_planted".into()],
        ..Query::default()
    };
    let t = run_file(&q, &corpus().join("cs2/14132.dem"))
        .unwrap()
        .remove(0);
    assert_eq!(t.rows(), 0);
    let names = t.column_names();
    assert!(names.contains(&"winner") && names.contains(&"is_bomb_planted"));
    assert!(!names.iter().any(|n| n.starts_with("user_")), "{names:?}");
    assert_eq!(t.column("message").map(|c| c.kind()), Some(Kind::Str));
    assert_eq!(t.column("winner").map(|c| c.kind()), Some(Kind::I64));
    assert_eq!(
        t.column("is_bomb_planted").map(|c| c.kind()),
        Some(Kind::Bool)
    );
}

#[test]
fn column_types_do_not_depend_on_the_demo() {
    // The same query over every CS2 corpus demo: each column has one type
    // in every demo, whatever values (or only nulls: the bots of 14011
    // get null player columns) a demo has.
    let q = Query {
        tables: vec![TableKind::Events, TableKind::Ticks],
        player_props: vec![
            "health".into(),
            "X".into(),
            "team_name".into(),
            "is_bomb_planted".into(),
            "CCSPlayerController.m_iPing".into(),
        ],
        other_props: vec![
            "is_bomb_planted".into(),
            "team_rounds_total".into(),
            "game_time".into(),
        ],
        ..Query::default()
    };
    let mut seen: std::collections::BTreeMap<(String, String), (Kind, PathBuf)> =
        Default::default();
    for demo in cs2_demos() {
        for t in run_file(&q, &demo).unwrap() {
            for (col, kind) in kinds(&t) {
                let key = (t.name.clone(), col.clone());
                match seen.get(&key) {
                    Some((k, first)) => assert_eq!(
                        *k,
                        kind,
                        "{}.{col}: {} vs {}",
                        t.name,
                        first.display(),
                        demo.display()
                    ),
                    None => {
                        seen.insert(key, (kind, demo.clone()));
                    }
                }
            }
        }
    }
    // 14011's player_hurt rows all name bots: filled, and typed.
    let q = Query {
        tables: vec![TableKind::Events],
        events: Some(vec!["player_hurt".into()]),
        player_props: vec!["health".into(), "X".into()],
        ..Query::default()
    };
    let t = run_file(&q, &corpus().join("cs2/14011.dem"))
        .unwrap()
        .remove(0);
    assert_eq!(t.rows(), 3);
    assert_eq!(
        t.column("user_health"),
        Some(&Column::I64(vec![Some(100), Some(72), Some(55)]))
    );
    let Some(Column::F32(x)) = t.column("attacker_X") else {
        panic!("attacker_X")
    };
    assert!(x.iter().all(Option::is_some), "{x:?}");
    // With no names asked for, a key whose type differs between events
    // (`weapon`: string in player_hurt, byte in other events the demo
    // declares) takes the wider type, so it does not depend on which
    // events a demo has.
    let q = Query {
        tables: vec![TableKind::Events],
        ..Query::default()
    };
    let t = run_file(&q, &corpus().join("cs2/14011.dem"))
        .unwrap()
        .remove(0);
    assert_eq!(t.column("weapon").map(|c| c.kind()), Some(Kind::Str));
    // server_cvar is the parser's synthetic event (name, value).
    let q = Query {
        tables: vec![TableKind::Events],
        events: Some(vec!["server_cvar".into()]),
        ..Query::default()
    };
    let t = run_file(&q, &corpus().join("cs2/14065.dem"))
        .unwrap()
        .remove(0);
    assert_eq!(t.column_names(), ["event_name", "tick", "name", "value"]);
    assert!(t.rows() > 10, "{} server_cvar rows", t.rows());
}

#[test]
fn ticks_table_types_the_collected_rows() {
    // The query's typed ticks table holds the rows the ticks collector
    // gathers as cells (what `gamewire ticks` writes; checked against
    // demoparser2 by scripts/compare_demoparser2.py), each cell in its
    // column's declared type, for every friendly name (pawn, controller,
    // active weapon, buttons, computed, velocity, team and game-wide props)
    // and raw names, on every CS2 demo (also those demoparser2 cannot read).
    let mut props: Vec<&str> = gamewire_query::prop_checks::player_prop_names();
    props.extend([
        "CCSPlayerController.m_iPing",
        "CCSPlayer_MovementServices.m_flMaxspeed",
        "CCSTeam.m_iScore",
        "CCSGameRulesProxy.m_pGameRules.m_bBombPlanted",
    ]);
    assert!(props.len() > 200, "{}", props.len());
    for demo in cs2_demos() {
        let data = std::fs::read(&demo).unwrap();
        let q = Query {
            tables: vec![TableKind::Ticks],
            player_props: props.iter().map(|p| p.to_string()).collect(),
            ..Query::default()
        };
        let t = run(&q, &data).unwrap().remove(0);
        let names: Vec<String> = props.iter().map(|p| p.to_string()).collect();
        let mut tc = gamewire_query::ticks::TicksCollector::new(&names, None);
        gamewire_source2::parse_with(&data, &mut tc).unwrap();
        assert_eq!(t.rows(), tc.rows.rows.len(), "{}", demo.display());
        assert!(t.rows() > 100, "{}", demo.display());
        assert_eq!(t.columns.len(), props.len() + 3);
        for (r, row) in tc.rows.rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let (name, col) = &t.columns[c];
                let mut want = Column::new(col.kind());
                want.push(cell);
                assert_eq!(
                    col.cell(r),
                    want.cell(0),
                    "{} row {r} {name}",
                    demo.display()
                );
            }
        }
    }
}

/// `grenades` with extra props: the columns follow the fixed ones, typed by
/// the projectile classes' fields (no corpus demo has a grenade in flight,
/// so the types come from the send tables alone); a prop no projectile
/// class has is an error naming the closest fields.
#[test]
fn grenade_extra_props_are_typed_by_the_projectile_classes() {
    let data = std::fs::read(corpus().join("cs2/14011.dem")).unwrap();
    let props = [
        "m_nBounces",
        "m_vInitialVelocity",
        "CBodyComponent.m_vecZ",
        "m_hThrower",
    ];
    let q = Query {
        tables: vec![TableKind::Grenades],
        grenade_props: props.map(String::from).to_vec(),
        ..Query::default()
    };
    let t = &run(&q, &data).unwrap()[0];
    let kinds: Vec<(&str, Kind)> = t
        .columns
        .iter()
        .map(|(n, c)| (n.as_str(), c.kind()))
        .collect();
    assert_eq!(
        &kinds[17..],
        [
            ("m_nBounces", Kind::I64),
            ("m_vInitialVelocity", Kind::F32List),
            ("CBodyComponent.m_vecZ", Kind::F32),
            ("m_hThrower", Kind::I64),
        ]
    );
    let bad = Query {
        tables: vec![TableKind::Grenades],
        grenade_props: vec!["m_nBounse".to_string()],
        ..Query::default()
    };
    let err = run(&bad, &data).unwrap_err().to_string();
    assert!(
        err.contains("unknown grenade prop \"m_nBounse\"; closest: m_nBounces"),
        "{err}"
    );
}
