//! Tables on the real corpus demos.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use gamewire_query::raw_events::RawEventsCollector;
use gamewire_query::write::{record_batch, write_table, Format};
use gamewire_query::{Column, InputError, Kind, Query, QueryError, Table, TableKind};

/// The tables of a query on a demo in memory.
fn run(q: &Query, data: &[u8]) -> Result<Vec<Table>, QueryError> {
    q.run(data).map(|p| p.tables)
}

/// The tables of a query on a demo file.
fn run_file(q: &Query, path: &std::path::Path) -> Result<Vec<Table>, QueryError> {
    q.run_path(path).map(|p| p.tables)
}

/// The tables of a query and the parser's final state.
fn run_with_state(
    q: &Query,
    data: &[u8],
) -> Result<(Vec<Table>, gamewire_query::DemoState), QueryError> {
    q.run(data).map(|p| (p.tables, p.state))
}
use gamewire_query::Cell;

fn corpus() -> PathBuf {
    gamewire_corpus::root()
}

fn demos() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for game in ["cs2", "deadlock", "dota2"] {
        for e in std::fs::read_dir(corpus().join(game)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "dem") {
                out.push(p);
            }
        }
    }
    out.sort();
    assert!(out.len() >= 7, "corpus demos: {out:?}");
    out
}

fn all_tables() -> Query {
    Query {
        tables: TableKind::ALL.to_vec(),
        ..Query::default()
    }
}

#[test]
fn every_corpus_demo_produces_every_table() {
    for demo in demos() {
        let tables =
            run_file(&all_tables(), &demo).unwrap_or_else(|e| panic!("{}: {e}", demo.display()));
        let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            TableKind::ALL.map(|k| k.name()),
            "{}",
            demo.display()
        );
        for t in &tables {
            for (name, col) in &t.columns {
                assert_eq!(col.len(), t.rows(), "{} {}.{name}", demo.display(), t.name);
            }
            // Every table converts to Arrow and writes in every format.
            record_batch(t).unwrap();
            for f in [Format::Csv, Format::Jsonl, Format::Parquet] {
                let mut buf = Vec::new();
                write_table(t, f, &mut buf).unwrap();
                assert!(!buf.is_empty() || t.rows() == 0);
            }
        }
        // Every demo has players and events (at least the synthetic
        // server_cvar ones).
        let events = &tables[0];
        assert!(events.rows() > 0, "{}: no events", demo.display());
        let players = &tables[2];
        assert!(players.rows() > 0, "{}: no players", demo.display());
    }
}

#[test]
fn one_pass_equals_one_table_at_a_time() {
    let data = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    let mut q = all_tables();
    q.player_props = vec!["health".into(), "X".into()];
    q.other_props = vec!["total_rounds_played".into()];
    let together = run(&q, &data).unwrap();
    for (k, t) in TableKind::ALL.iter().zip(&together) {
        let mut one = q.clone();
        one.tables = vec![*k];
        let alone = run(&one, &data).unwrap();
        assert_eq!(alone.len(), 1);
        assert_eq!(&alone[0], t, "{}", k.name());
    }
}

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
    for internal in ["userid", "userid_pawn", "attacker_pawn"] {
        assert!(!names.contains(&internal), "{internal} kept");
    }
    // Player columns agree with the parser's own event collector (name and
    // steam id from the controller; bots have steam id 0), and the
    // player's health is that of a living player.
    for (r, (_, tick, cols)) in ec.events.iter().enumerate() {
        assert_eq!(
            t.column("tick").unwrap().cell(r),
            Cell::Int(i64::from(*tick))
        );
        let get = |k: &str| cols.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        if let Some(name) = get("user_name") {
            assert_eq!(t.column("user_name").unwrap().cell(r), name);
            let sid = match get("user_steamid") {
                Some(Cell::Str(s)) => Cell::UInt(s.parse().unwrap()),
                _ => Cell::Null,
            };
            assert_eq!(t.column("user_steamid").unwrap().cell(r), sid);
            match t.column("user_health").unwrap().cell(r) {
                Cell::Int(h) => assert!((0..=100).contains(&h), "health {h}"),
                other => assert_eq!(sid, Cell::Null, "health {other:?}"),
            }
        }
    }
    // Every event of this clip names a bot: null player columns, as in
    // demoparser2 (player props on events are checked below against ticks).
    let named = (0..t.rows())
        .filter(|r| t.column("user_name").unwrap().cell(*r) != Cell::Null)
        .count();
    assert_eq!(named, 0);
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
            [
                "tick",
                "entity_index",
                "name",
                "steamid",
                "text",
                "all_chat",
                "kind"
            ]
        );
        // Every chat line has a tick and text.
        for r in 0..t.rows() {
            assert!(matches!(t.row(r)[0], Cell::Int(_)));
            assert!(matches!(t.row(r)[4], Cell::Str(_)));
        }
    }
}

#[test]
fn unknown_names_list_the_closest() {
    let data = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    let q = Query {
        tables: vec![TableKind::Events],
        events: Some(vec!["player_deth".into()]),
        ..Query::default()
    };
    let e = run(&q, &data).unwrap_err();
    assert!(matches!(e, QueryError::UnknownEvent { .. }));
    assert!(e.to_string().contains("closest: player_death"), "{e}");

    let q = Query {
        tables: vec![TableKind::Ticks],
        player_props: vec!["helth".into()],
        ..Query::default()
    };
    let e = run(&q, &data).unwrap_err();
    assert!(e.to_string().contains("closest: health"), "{e}");

    let q = Query {
        tables: vec![TableKind::Events],
        other_props: vec!["total_round_played".into()],
        ..Query::default()
    };
    let e = run(&q, &data).unwrap_err();
    assert!(
        e.to_string().contains("closest: total_rounds_played"),
        "{e}"
    );

    // Raw names that exist are accepted.
    let q = Query {
        tables: vec![TableKind::Ticks],
        player_props: vec!["CCSPlayerPawn.m_iHealth".into()],
        ..Query::default()
    };
    let t = run(&q, &data).unwrap().remove(0);
    assert_eq!(t.row(0)[0], Cell::Int(100));

    let e = "kils".parse::<TableKind>().unwrap_err();
    assert!(e.to_string().contains("closest: kills"), "{e}");
}

#[test]
fn bad_input_is_an_error() {
    let e = run_file(&all_tables(), &corpus().join("cs2/nope.dem")).unwrap_err();
    assert!(
        matches!(&e, QueryError::Input(i @ InputError::Read { .. }) if i.is_not_found()),
        "{e}"
    );
    assert!(run(&all_tables(), b"not a demo at all").is_err());
    let data = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    let e = run(&all_tables(), &data[..data.len() / 2]).unwrap_err();
    assert!(matches!(e, QueryError::Demo(_)), "{e}");
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
fn match_stats_resolve_on_14011() {
    let q = Query {
        tables: vec![TableKind::Players, TableKind::Ticks],
        player_props: vec!["kills_total".into(), "damage_total".into()],
        ticks: Some(vec![300]),
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
        "305,Greymouth,0,2,Dashen,0,3,galilar,22,3,78,97,chest"
    );
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

fn cs2_demos() -> Vec<PathBuf> {
    demos()
        .into_iter()
        .filter(|d| d.to_string_lossy().contains("cs2"))
        .collect()
}

fn kinds(t: &gamewire_query::Table) -> Vec<(String, Kind)> {
    t.columns
        .iter()
        .map(|(n, c)| (n.clone(), c.kind()))
        .collect()
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
    for internal in ["userid", "attacker_pawn", "assister"] {
        assert!(t.column(internal).is_none(), "{internal}");
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
    // 14011's player_hurt rows all name bots: null, but typed.
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
        Some(&Column::I64(vec![None, None, None]))
    );
    assert_eq!(
        t.column("attacker_X"),
        Some(&Column::F32(vec![None, None, None]))
    );
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
            ticks: Some(vec![100]),
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

/// A demo cut short: a run that keeps cut demos keeps the tables of
/// everything before the cut and returns the cut; by default it fails on it.
#[test]
fn a_cut_demo_keeps_its_tables_up_to_the_cut() {
    let whole = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    let cut_data = &whole[..280_000];
    let query = Query {
        tables: vec![TableKind::Ticks, TableKind::Events],
        player_props: vec!["health".into(), "X".into()],
        ..Query::default()
    };
    let err = run(&query, cut_data).unwrap_err();
    assert!(
        matches!(&err, QueryError::Demo(e) if e.is_truncation()),
        "{err}"
    );

    let query = query.keeping_cut(true);
    let kept = query.run(cut_data).unwrap();
    let Some(gamewire_query::Cut::Demo(cut)) = kept.cut else {
        panic!("the cut is reported: {:?}", kept.cut);
    };
    assert!(cut.is_truncation());
    assert_eq!(cut.location.byte_offset, 279_931);
    let full = query.run(&whole).unwrap();
    assert!(full.cut.is_none());
    for (k, f) in kept.tables.iter().zip(&full.tables) {
        assert_eq!(k.name, f.name);
        assert!(
            k.rows() > 0 && k.rows() < f.rows(),
            "{}: {} of {}",
            k.name,
            k.rows(),
            f.rows()
        );
        // Every kept row is the whole demo's row at the same place.
        for ((name, kc), (_, fc)) in k.columns.iter().zip(&f.columns) {
            for i in 0..k.rows() {
                assert_eq!(kc.cell(i), fc.cell(i), "{} {name} row {i}", k.name);
            }
        }
    }
}

/// Directories are searched recursively in name order; a directory reached
/// again through a symbolic link (here a link back to the top) is searched
/// once, so its demos are found once.
#[cfg(unix)]
#[test]
fn find_demos_searches_each_directory_once() {
    let top = std::env::temp_dir().join(format!("gamewire-collect-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&top);
    std::fs::create_dir_all(top.join("b/inner")).unwrap();
    for rel in ["a.dem", "b/inner/c.dem", "b/notes.txt"] {
        std::fs::write(top.join(rel), b"x").unwrap();
    }
    std::os::unix::fs::symlink(&top, top.join("b/inner/back")).unwrap();
    let explicit = top.join("b/notes.txt");
    let found =
        gamewire_query::input::find_demos(&[top.clone(), explicit.clone(), top.join("b")]).unwrap();
    assert_eq!(
        found,
        vec![top.join("a.dem"), top.join("b/inner/c.dem"), explicit]
    );
    let missing = gamewire_query::input::find_demos(&[top.join("nope")]).unwrap();
    assert_eq!(
        missing,
        vec![top.join("nope")],
        "a missing file fails when read"
    );
    std::fs::remove_dir_all(&top).unwrap();
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
        assert_eq!(smokes.column("X").map(Column::kind), Some(Kind::F32));
        // Every shot has its shooter, on the map, looking somewhere sane;
        // the position and yaw are the events table's user props.
        let Some(Column::Str(names)) = shots.column("name") else {
            panic!("name")
        };
        let Some(Column::F32(x)) = shots.column("X") else {
            panic!("X")
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
        for (row, &i) in fired.iter().enumerate() {
            // The events table nulls bots' player props (steam id 0, as
            // demoparser2); where it has them, they agree.
            if let (Some(a), Some(b)) = (ev_x[i], x[row]) {
                assert_eq!(a, b, "{name} shot {row}");
                assert_eq!(ev_yaw[i], yaw[row], "{name} shot {row}");
            }
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
            let (Cell::Str(name), Cell::Str(entity), Cell::UInt(updates), Cell::Strs(classes)) =
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
        &kinds[15..],
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
            let (Cell::Str(name), Cell::Str(entity), Cell::UInt(updates), Cell::Strs(classes)) =
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

/// A query whose tables read only the players' controllers and pawns, their
/// teams and the game rules reads every other class past: on every corpus
/// demo its tables equal those of the same query decoding every class.
#[test]
fn player_tables_read_other_classes_past_and_equal_a_full_decode() {
    use gamewire_query::friendly_props::FRIENDLY_PROPS;
    use gamewire_query::ticks::TicksCollector;
    let player_props: Vec<String> = FRIENDLY_PROPS
        .iter()
        .map(|(name, _)| (*name).to_string())
        .filter(|name| {
            TicksCollector::new(std::slice::from_ref(name), None).reads_player_classes_only()
        })
        .collect();
    assert!(player_props.len() > 100);
    let q = Query {
        tables: vec![TableKind::Ticks, TableKind::Players, TableKind::Events],
        player_props,
        other_props: vec!["total_rounds_played".into(), "game_time".into()],
        ..Query::default()
    };
    assert!(q.reads_player_classes_only());
    let with = |f: &dyn Fn(&mut Query)| {
        let mut q = q.clone();
        f(&mut q);
        q
    };
    assert!(
        !with(&|q| q.player_props.push("active_weapon_name".into())).reads_player_classes_only()
    );
    assert!(!with(&|q| q.tables.push(TableKind::Kills)).reads_player_classes_only());
    let full = with(&|q| q.decode_every_class = true);
    for demo in demos() {
        let data = std::fs::read(&demo).unwrap();
        let (filtered, state) = run_with_state(&q, &data).unwrap();
        let skipped = state.entities.iter().filter(|e| !e.is_decoded()).count();
        assert!(
            skipped > 10,
            "{}: {skipped} entities read past",
            demo.display()
        );
        let (every, state) = run_with_state(&full, &data).unwrap();
        assert!(state.entities.iter().all(|e| e.is_decoded()));
        assert_eq!(filtered.len(), 3);
        for (a, b) in filtered.iter().zip(&every) {
            assert!(a.rows() > 0, "{} {}: empty", demo.display(), a.name);
            assert!(
                format!("{a:?}") == format!("{b:?}"),
                "{} {}: the tables differ",
                demo.display(),
                a.name
            );
        }
    }
}
