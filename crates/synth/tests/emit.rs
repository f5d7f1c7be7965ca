//! A hand-built match written as a CS2 demo with the schema of each CS2
//! corpus demo, read back through gamewire's analyst tables: the ticks,
//! players, kills, rounds and chat tables say what the timeline says.

use std::io::Cursor;

use gamewire_query::{Cell, Column, Query, TableKind, TickSet};
use gamewire_synth::emit::{write_demo, write_demo_with_report};
use gamewire_synth::schema::builtin::builtin;
use gamewire_synth::schema::{from_demo, Schema};
use gamewire_synth::timeline::{
    ChatLine, EventValue, Frame, GameEvent, GrenadeKind, Inferno, Item, MatchInfo, PlantedBomb,
    PlayerInfo, PlayerState, Projectile, Rules, TeamState, Timeline,
};

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// The CS2 corpus demos whose schemas the match is written with.
const CS2_DEMOS: &[&str] = &[
    "cs2/14011.dem",
    "cs2/14065.dem",
    "cs2/14132.dem",
    "cs2/14150_ag2.dem",
    "cs2/14155.dem",
];

const FIRST_TICK: i32 = 1;
const LAST_TICK: i32 = 320;
const FREEZE_END: i32 = 10;
const CHAT_TICK: i32 = 150;
const KILL_TICK: i32 = 200;
const ROUND_END: i32 = 300;
/// A smoke thrown by slot 3: in flight, smoking, expired.
const SMOKE_THROW: i32 = 60;
const SMOKE_POP: i32 = 80;
const SMOKE_END: i32 = 250;
/// A molotov thrown by slot 1, and its fire.
const MOLOTOV_THROW: i32 = 100;
const FIRE_START: i32 = 115;
const FIRE_END: i32 = 230;
/// Slot 0 plants the bomb at site B.
const PLANT: i32 = 260;
const SMOKE_REST: [f32; 3] = [-400.0, 900.0, 16.0];
const FIRE_AT: [f32; 3] = [250.0, -300.0, 8.0];
const BOMB_AT: [f32; 3] = [-1500.0, 2600.0, 4.0];

/// Four players, T (slots 0, 1) against CT (slots 2, 3); slots 1 and 3 are
/// bots. Slot 0 kills slot 2 at `KILL_TICK` with a headshot.
struct Match {
    info: MatchInfo,
}

fn players() -> Vec<PlayerInfo> {
    [
        ("Alpha", 76561198000000001u64, false),
        ("Bravo", 0, true),
        ("Charlie", 76561198000000003, false),
        ("Delta", 0, true),
    ]
    .iter()
    .enumerate()
    .map(|(i, &(name, steamid, bot))| PlayerInfo {
        slot: i as u16,
        name: name.to_string(),
        steamid,
        bot,
    })
    .collect()
}

impl Match {
    fn new() -> Self {
        Match {
            info: MatchInfo {
                map: "de_dust2".into(),
                tick_rate: 64,
                frame_interval: 1,
                server_name: "synth".into(),
                players: players(),
                team_names: ["Reds".into(), "Blues".into()],
                first_tick: FIRST_TICK,
                last_tick: LAST_TICK,
            },
        }
    }
}

/// Where player `i` stands at `tick`: walking along x, one lane each.
fn position(i: usize, tick: i32) -> [f32; 3] {
    [
        -1200.0 + 2.5 * tick as f32 + 40.0 * i as f32,
        300.0 - 75.0 * i as f32 - 0.5 * tick as f32,
        64.0 + i as f32,
    ]
}

/// View angles of player `i` at `tick`.
fn angles(i: usize, tick: i32) -> (f32, f32) {
    let pitch = -20.0 + (tick % 40) as f32 + i as f32;
    let yaw = ((tick * 3 + 90 * i as i32) % 360 - 180) as f32;
    (pitch, yaw)
}

fn dead(i: usize, tick: i32) -> bool {
    i == 2 && tick >= KILL_TICK
}

fn health(i: usize, tick: i32) -> i32 {
    if dead(i, tick) {
        0
    } else {
        100 - (tick / 50) - i as i32
    }
}

const RIFLES: [(&str, u16); 2] = [("ak47", 7), ("m4a1", 16)];
const KNIVES: [(&str, u16); 2] = [("knife_t", 59), ("knife", 42)];

fn frame(info: &MatchInfo, tick: i32) -> Frame {
    let team = |i: usize| if i < 2 { 2u8 } else { 3u8 };
    let mut items = Vec::new();
    let mut players = Vec::new();
    for (i, p) in info.players.iter().enumerate() {
        let side = usize::from(team(i) - 2);
        let knife = 100 + i as u32;
        let rifle = 200 + i as u32;
        let alive = !dead(i, tick);
        let (pitch, yaw) = angles(i, tick);
        let pos = position(i, tick.min(if alive { i32::MAX } else { KILL_TICK - 1 }));
        if alive {
            items.push(Item {
                id: knife,
                weapon: KNIVES[side].0.into(),
                def_index: KNIVES[side].1,
                owner: Some(i),
                position: [0.0; 3],
                clip: None,
            });
        }
        items.push(Item {
            id: rifle,
            weapon: RIFLES[side].0.into(),
            def_index: RIFLES[side].1,
            owner: alive.then_some(i),
            position: pos,
            clip: Some(30 - (tick / 40).min(20)),
        });
        players.push(PlayerState {
            connected: true,
            name: p.name.clone(),
            team: team(i),
            alive,
            health: health(i, tick),
            armor: if alive { 100 } else { 0 },
            helmet: alive && i % 2 == 0,
            defuser: alive && i == 3,
            money: 800 + 100 * i as i32,
            position: pos,
            pitch,
            yaw,
            weapons: if alive {
                vec![knife, rifle]
            } else {
                Vec::new()
            },
            active_weapon: alive.then_some(rifle),
            flash_duration: 0.0,
            kills: i32::from(i == 0 && tick >= KILL_TICK),
            deaths: i32::from(dead(i, tick)),
            assists: 0,
            damage: if i == 0 && tick >= KILL_TICK { 100 } else { 0 },
            controlling_bot: None,
            purchases: None,
        });
    }
    let mut events = Vec::new();
    let ev = |name: &str, keys: Vec<(&str, EventValue)>| GameEvent {
        name: name.into(),
        keys: keys.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
    };
    if tick == FIRST_TICK {
        events.push(ev(
            "round_start",
            vec![
                ("timelimit", EventValue::Int(115)),
                ("objective", EventValue::Str("BOMB TARGET".into())),
            ],
        ));
    }
    if tick == FREEZE_END {
        events.push(ev("round_freeze_end", vec![]));
    }
    if tick == KILL_TICK {
        events.push(ev(
            "player_death",
            vec![
                ("userid", EventValue::Player(2)),
                ("userid_pawn", EventValue::Pawn(2)),
                ("attacker", EventValue::Player(0)),
                ("attacker_pawn", EventValue::Pawn(0)),
                ("assister", EventValue::Int(65535)),
                ("weapon", EventValue::Str("ak47".into())),
                ("headshot", EventValue::Bool(true)),
                ("penetrated", EventValue::Int(0)),
                ("hitgroup", EventValue::Int(1)),
            ],
        ));
    }
    if tick == ROUND_END {
        events.push(ev(
            "round_end",
            vec![
                ("winner", EventValue::Int(2)),
                ("reason", EventValue::Int(9)),
                (
                    "message",
                    EventValue::Str("#SFUI_Notice_Terrorists_Win".into()),
                ),
            ],
        ));
    }
    let mut projectiles = Vec::new();
    if (SMOKE_THROW..=SMOKE_END).contains(&tick) {
        let from = position(3, SMOKE_THROW);
        let t = ((tick - SMOKE_THROW) as f32 / (SMOKE_POP - SMOKE_THROW) as f32).min(1.0);
        let at = [0, 1, 2].map(|k| from[k] + (SMOKE_REST[k] - from[k]) * t);
        projectiles.push(Projectile {
            id: 300,
            kind: GrenadeKind::Smoke,
            thrower: 3,
            position: at,
            smoking: tick >= SMOKE_POP,
        });
    }
    if (MOLOTOV_THROW..FIRE_START).contains(&tick) {
        let from = position(1, MOLOTOV_THROW);
        let t = (tick - MOLOTOV_THROW) as f32 / (FIRE_START - MOLOTOV_THROW) as f32;
        projectiles.push(Projectile {
            id: 301,
            kind: GrenadeKind::Molotov,
            thrower: 1,
            position: [0, 1, 2].map(|k| from[k] + (FIRE_AT[k] - from[k]) * t),
            smoking: false,
        });
    }
    let infernos = if (FIRE_START..=FIRE_END).contains(&tick) {
        vec![Inferno {
            id: 302,
            thrower: 1,
            position: FIRE_AT,
        }]
    } else {
        Vec::new()
    };
    let at = |p: [f32; 3]| {
        vec![
            ("x", EventValue::Float(p[0])),
            ("y", EventValue::Float(p[1])),
            ("z", EventValue::Float(p[2])),
        ]
    };
    for (when, name, id, who) in [
        (SMOKE_POP, "smokegrenade_detonate", 300, Some(3)),
        (SMOKE_END, "smokegrenade_expired", 300, Some(3)),
        (FIRE_START, "inferno_startburn", 302, None),
        (FIRE_END, "inferno_expire", 302, None),
    ] {
        if tick == when {
            let mut keys = vec![("entityid", EventValue::Entity(id))];
            if let Some(who) = who {
                keys.push(("userid", EventValue::Player(who)));
                keys.push(("userid_pawn", EventValue::Pawn(who)));
            }
            keys.extend(at(if id == 300 { SMOKE_REST } else { FIRE_AT }));
            events.push(ev(name, keys));
        }
    }
    if tick == PLANT {
        events.push(ev(
            "bomb_planted",
            vec![
                ("userid", EventValue::Player(0)),
                ("userid_pawn", EventValue::Pawn(0)),
                ("site", EventValue::Int(1)),
            ],
        ));
    }
    let planted_bomb = (tick >= PLANT).then_some(PlantedBomb {
        position: BOMB_AT,
        site: 1,
        blow_time: (PLANT + 40 * 64) as f32 / 64.0,
        defuser: None,
        defused: false,
        exploded: false,
    });
    let chat = if tick == CHAT_TICK {
        vec![ChatLine {
            player: 1,
            text: "nice one".into(),
            all_chat: true,
        }]
    } else {
        Vec::new()
    };
    let ended = tick >= ROUND_END;
    Frame {
        tick,
        rules: Rules {
            warmup: false,
            freeze_period: tick < FREEZE_END,
            match_started: true,
            total_rounds_played: i32::from(ended),
            game_phase: 2,
            round_start_time: FREEZE_END as f32 / 64.0,
            round_time: 115,
            round_win_status: if ended { 2 } else { 0 },
            round_win_reason: if ended { 9 } else { 0 },
            round_start_count: 1,
            round_end_count: i32::from(ended),
            bomb_planted: tick >= PLANT,
            ..Rules::default()
        },
        teams: [
            TeamState {
                number: 2,
                score: i32::from(ended),
                score_first_half: i32::from(ended),
                clan_name: info.team_names[0].clone(),
                ..TeamState::default()
            },
            TeamState {
                number: 3,
                clan_name: info.team_names[1].clone(),
                ..TeamState::default()
            },
        ],
        players,
        items,
        projectiles,
        infernos,
        planted_bomb,
        events,
        chat,
    }
}

impl Timeline for Match {
    fn info(&self) -> &MatchInfo {
        &self.info
    }

    fn frames(&self) -> Box<dyn Iterator<Item = Frame> + '_> {
        Box::new((FIRST_TICK..=LAST_TICK).map(|t| frame(&self.info, t)))
    }
}

fn schema_of(demo: &str) -> Result<Schema> {
    let bytes = std::fs::read(gamewire_corpus::path(demo))?;
    Ok(from_demo(&bytes)?)
}

fn run(demo: &[u8], query: Query) -> Result<Vec<gamewire_query::Table>> {
    Ok(query.run(demo)?.tables)
}

fn column<'t>(t: &'t gamewire_query::Table, name: &str) -> Result<&'t Column> {
    t.column(name)
        .ok_or_else(|| format!("{}: no column {name}", t.name).into())
}

fn cell(t: &gamewire_query::Table, name: &str, row: usize) -> Result<Cell> {
    Ok(column(t, name)?.cell(row))
}

fn float(c: &Cell) -> Option<f64> {
    match *c {
        Cell::Float(f) => Some(f64::from(f)),
        Cell::Int(i) => Some(i as f64),
        Cell::UInt(u) => Some(u as f64),
        _ => None,
    }
}

/// Every table of one demo written with `schema` against the timeline.
fn check(schema: &Schema, label: &str) -> Result {
    let timeline = Match::new();
    let (out, report) = write_demo_with_report(&timeline, schema, Cursor::new(Vec::new()))?;
    let demo = out.into_inner();
    assert_eq!(
        report.packets,
        (LAST_TICK - FIRST_TICK + 1) as u64,
        "{label}"
    );
    assert_eq!(report.events, 9, "{label}");
    assert!(report.skipped_fields.is_empty(), "{label}: {report:?}");

    // Ticks: positions, angles and health at chosen ticks.
    let chosen = [
        FIRST_TICK,
        57,
        CHAT_TICK,
        KILL_TICK - 1,
        KILL_TICK + 5,
        LAST_TICK,
    ];
    let props = [
        "X",
        "Y",
        "Z",
        "pitch",
        "yaw",
        "health",
        "is_alive",
        "team_num",
        "armor_value",
        "balance",
        "active_weapon_name",
        "inventory",
        "kills_this_round",
        "deaths_this_round",
    ];
    let t = run(
        &demo,
        Query {
            tables: vec![TableKind::Ticks],
            player_props: props.iter().map(|p| p.to_string()).collect(),
            ticks: Some(TickSet::from_ticks(chosen.to_vec())),
            ..Query::default()
        },
    )?
    .remove(0);
    assert_eq!(t.rows(), chosen.len() * 4, "{label}: ticks rows");
    for r in 0..t.rows() {
        let Cell::Int(tick) = cell(&t, "tick", r)? else {
            return Err(format!("{label}: row {r} has no tick").into());
        };
        let Cell::Int(slot) = cell(&t, "slot", r)? else {
            return Err(format!("{label}: row {r} has no slot").into());
        };
        let (tick, i) = (tick as i32, slot as usize);
        let alive = !dead(i, tick);
        let pos = position(i, if alive { tick } else { KILL_TICK - 1 });
        let (pitch, yaw) = angles(i, tick);
        let want = [
            ("X", f64::from(pos[0]), 0.05),
            ("Y", f64::from(pos[1]), 0.05),
            ("Z", f64::from(pos[2]), 0.05),
            ("pitch", f64::from(pitch), 0.001),
            ("yaw", f64::from(yaw), 0.001),
            ("health", f64::from(health(i, tick)), 0.0),
            ("team_num", if i < 2 { 2.0 } else { 3.0 }, 0.0),
        ];
        for (name, value, tolerance) in want {
            let got = cell(&t, name, r)?;
            let got = float(&got).ok_or_else(|| format!("{label}: {name} is {got:?}"))?;
            assert!(
                (got - value).abs() <= tolerance,
                "{label}: tick {tick} slot {i} {name}: {got} != {value}"
            );
        }
        assert_eq!(cell(&t, "is_alive", r)?, Cell::Bool(alive), "{label}");
        let armor = if alive { 100 } else { 0 };
        assert_eq!(cell(&t, "armor_value", r)?, Cell::Int(armor), "{label}");
        let money = 800 + 100 * i as i64;
        assert_eq!(cell(&t, "balance", r)?, Cell::Int(money), "{label}");
        let side = usize::from(i >= 2);
        let (weapon, inventory) = if alive {
            let rifle = if side == 0 { "AK-47" } else { "M4A4" };
            (
                Cell::Str(rifle.into()),
                Cell::Strs(vec![KNIVES[side].0.into(), rifle.into()]),
            )
        } else {
            (Cell::Null, Cell::Strs(Vec::new()))
        };
        assert_eq!(cell(&t, "active_weapon_name", r)?, weapon, "{label}");
        assert_eq!(cell(&t, "inventory", r)?, inventory, "{label}");
        // One round: the round's counters are the match's.
        let kills = i64::from(i == 0 && (KILL_TICK..ROUND_END).contains(&tick));
        let deaths = i64::from(dead(i, tick) && tick < ROUND_END);
        assert_eq!(
            cell(&t, "kills_this_round", r)?,
            Cell::Int(kills),
            "{label} {tick} {i}"
        );
        assert_eq!(
            cell(&t, "deaths_this_round", r)?,
            Cell::Int(deaths),
            "{label} {tick} {i}"
        );
    }

    // Players: every player with name, steam id and bot flag.
    let p = run(
        &demo,
        Query {
            tables: vec![TableKind::Players],
            ..Query::default()
        },
    )?
    .remove(0);
    let info = timeline.info();
    assert_eq!(p.rows(), info.players.len(), "{label}: players");
    for (r, who) in info.players.iter().enumerate() {
        assert_eq!(cell(&p, "slot", r)?, Cell::Int(i64::from(who.slot)));
        assert_eq!(cell(&p, "name", r)?, Cell::Str(who.name.clone()));
        assert_eq!(cell(&p, "steamid", r)?, Cell::UInt(who.steamid));
        assert_eq!(cell(&p, "fake_player", r)?, Cell::Bool(who.bot));
        let team = if r < 2 { 2 } else { 3 };
        assert_eq!(cell(&p, "team", r)?, Cell::Int(team), "{label}");
        assert_eq!(
            cell(&p, "kills_total", r)?,
            Cell::Int(i64::from(r == 0)),
            "{label}"
        );
        assert_eq!(
            cell(&p, "deaths_total", r)?,
            Cell::Int(i64::from(r == 2)),
            "{label}"
        );
    }

    // Kills, rounds, chat.
    let tables = run(
        &demo,
        Query {
            tables: vec![TableKind::Kills, TableKind::Rounds, TableKind::Chat],
            ..Query::default()
        },
    )?;
    let [kills, rounds, chat] = &tables[..] else {
        return Err(format!("{label}: {} tables", tables.len()).into());
    };
    assert_eq!(kills.rows(), 1, "{label}: kills");
    assert_eq!(cell(kills, "tick", 0)?, Cell::Int(i64::from(KILL_TICK)));
    assert_eq!(cell(kills, "attacker_name", 0)?, Cell::Str("Alpha".into()));
    assert_eq!(
        cell(kills, "attacker_steamid", 0)?,
        Cell::UInt(76561198000000001)
    );
    assert_eq!(cell(kills, "attacker_team", 0)?, Cell::Int(2));
    assert_eq!(cell(kills, "victim_name", 0)?, Cell::Str("Charlie".into()));
    assert_eq!(cell(kills, "victim_slot", 0)?, Cell::Int(2));
    assert_eq!(cell(kills, "victim_team", 0)?, Cell::Int(3));
    assert_eq!(cell(kills, "assister_name", 0)?, Cell::Null);
    assert_eq!(cell(kills, "weapon", 0)?, Cell::Str("ak47".into()));
    assert_eq!(cell(kills, "headshot", 0)?, Cell::Bool(true), "{label}");

    assert_eq!(rounds.rows(), 1, "{label}: rounds");
    assert_eq!(cell(rounds, "round", 0)?, Cell::Int(1));
    assert_eq!(
        cell(rounds, "start_tick", 0)?,
        Cell::Int(i64::from(FIRST_TICK))
    );
    assert_eq!(
        cell(rounds, "freeze_end_tick", 0)?,
        Cell::Int(i64::from(FREEZE_END))
    );
    assert_eq!(
        cell(rounds, "end_tick", 0)?,
        Cell::Int(i64::from(ROUND_END))
    );
    assert_eq!(cell(rounds, "winner_team", 0)?, Cell::Int(2));
    assert_eq!(cell(rounds, "winner_side", 0)?, Cell::Str("T".into()));
    assert_eq!(cell(rounds, "reason", 0)?, Cell::Int(9));
    assert_eq!(
        cell(rounds, "reason_name", 0)?,
        Cell::Str("ct_killed".into())
    );

    check_grenades_and_bomb(&demo, label)?;

    assert_eq!(chat.rows(), 1, "{label}: chat");
    assert_eq!(cell(chat, "tick", 0)?, Cell::Int(i64::from(CHAT_TICK)));
    assert_eq!(cell(chat, "slot", 0)?, Cell::Int(1));
    assert_eq!(cell(chat, "name", 0)?, Cell::Str("Bravo".into()));
    assert_eq!(cell(chat, "text", 0)?, Cell::Str("nice one".into()));
    assert_eq!(cell(chat, "all_chat", 0)?, Cell::Bool(true), "{label}");
    Ok(())
}

/// The smoke, the fire and the plant: grenades, smokes, infernos and bomb.
fn check_grenades_and_bomb(demo: &[u8], label: &str) -> Result {
    let tables = run(
        demo,
        Query {
            tables: vec![
                TableKind::Grenades,
                TableKind::Smokes,
                TableKind::Infernos,
                TableKind::Bomb,
            ],
            ..Query::default()
        },
    )?;
    let [grenades, smokes, infernos, bomb] = &tables[..] else {
        return Err(format!("{label}: {} tables", tables.len()).into());
    };
    // One row per tick a projectile moved: the smoke's flight and the
    // molotov's, each with its thrower.
    let mut kinds = std::collections::BTreeMap::new();
    for r in 0..grenades.rows() {
        let (Cell::Str(kind), Cell::Str(thrower)) = (
            cell(grenades, "grenade_type", r)?,
            cell(grenades, "thrower_name", r)?,
        ) else {
            return Err(format!("{label}: grenade row {r}").into());
        };
        kinds.insert(kind, thrower);
    }
    assert_eq!(
        kinds,
        [("molotov", "Bravo"), ("smoke", "Delta")]
            .map(|(k, t)| (k.to_string(), t.to_string()))
            .into(),
        "{label}"
    );

    assert_eq!(smokes.rows(), 1, "{label}: smokes");
    assert_eq!(
        cell(smokes, "start_tick", 0)?,
        Cell::Int(i64::from(SMOKE_POP))
    );
    assert_eq!(
        cell(smokes, "end_tick", 0)?,
        Cell::Int(i64::from(SMOKE_END))
    );
    assert_eq!(cell(smokes, "thrower_name", 0)?, Cell::Str("Delta".into()));
    assert_eq!(cell(smokes, "thrower_slot", 0)?, Cell::Int(3));
    assert_eq!(cell(smokes, "x", 0)?, Cell::Float(SMOKE_REST[0]));

    assert_eq!(infernos.rows(), 1, "{label}: infernos");
    assert_eq!(
        cell(infernos, "start_tick", 0)?,
        Cell::Int(i64::from(FIRE_START))
    );
    assert_eq!(
        cell(infernos, "end_tick", 0)?,
        Cell::Int(i64::from(FIRE_END))
    );
    assert_eq!(
        cell(infernos, "thrower_name", 0)?,
        Cell::Str("Bravo".into()),
        "{label}"
    );
    assert_eq!(cell(infernos, "thrower_team", 0)?, Cell::Int(2));

    assert_eq!(bomb.rows(), 1, "{label}: bomb");
    assert_eq!(cell(bomb, "action", 0)?, Cell::Str("planted".into()));
    assert_eq!(cell(bomb, "name", 0)?, Cell::Str("Alpha".into()));
    assert_eq!(cell(bomb, "site", 0)?, Cell::Int(1));
    Ok(())
}

#[test]
fn a_match_written_with_each_corpus_schema_reads_back() -> Result {
    for demo in CS2_DEMOS {
        let schema = schema_of(demo)?;
        check(&schema, demo)?;
    }
    Ok(())
}

#[test]
fn a_match_written_with_the_built_in_schema_reads_back() -> Result {
    check(&builtin(), "built-in schema")
}

#[test]
fn the_schema_of_a_corpus_demo_is_its_signon() -> Result {
    for demo in CS2_DEMOS {
        let schema = schema_of(demo)?;
        assert!(schema.send_tables.serializers.len() > 200, "{demo}");
        assert!(schema.class_info.classes.len() > 200, "{demo}");
        let names: Vec<&str> = schema
            .game_events
            .descriptors
            .iter()
            .filter_map(|d| d.name.as_deref())
            .collect();
        for event in ["player_death", "round_end", "player_hurt", "bomb_planted"] {
            assert!(names.contains(&event), "{demo}: {event}");
        }
        assert!(schema.server_info.max_classes.unwrap_or(0) > 0, "{demo}");
        assert!(schema.header.build_num.unwrap_or(0) > 10000, "{demo}");
    }
    // Not a demo: an error, no schema.
    assert!(from_demo(b"PBDEMS2\0not a demo at all").is_err());
    Ok(())
}

#[test]
fn a_class_the_schema_lacks_is_an_error_naming_it() -> Result {
    let mut schema = schema_of("cs2/14155.dem")?;
    schema
        .class_info
        .classes
        .retain(|c| c.network_name.as_deref() != Some("CAK47"));
    let err = match write_demo(&Match::new(), &schema, Cursor::new(Vec::new())) {
        Ok(_) => return Err("a demo was written without CAK47".into()),
        Err(e) => e.to_string(),
    };
    assert!(err.contains("CAK47"), "{err}");
    Ok(())
}

/// Three players: slot 2 leaves at `LEAVE` and comes back at `BACK`; slot 0
/// dies at `DIE` and drives the bot of slot 1 from `TAKEOVER` on.
struct Comings {
    info: MatchInfo,
}

const LEAVE: i32 = 50;
const BACK: i32 = 120;
const DIE: i32 = 80;
const TAKEOVER: i32 = 100;
const COMINGS_LAST: i32 = 200;

fn comings_frame(info: &MatchInfo, tick: i32) -> Frame {
    let players = (0..3)
        .map(|i| {
            let away = i == 2 && (LEAVE..BACK).contains(&tick);
            let dead = i == 0 && (DIE..TAKEOVER).contains(&tick);
            let alive = !away && !dead;
            let (pitch, yaw) = angles(i, tick);
            PlayerState {
                connected: !away,
                name: info.players[i].name.clone(),
                team: if i < 2 { 2 } else { 3 },
                alive,
                health: if alive { 100 } else { 0 },
                armor: 0,
                position: position(i, tick),
                pitch,
                yaw,
                money: 800,
                controlling_bot: (i == 0 && tick >= TAKEOVER).then_some(1),
                ..PlayerState::default()
            }
        })
        .collect();
    Frame {
        tick,
        rules: Rules::default(),
        teams: [
            TeamState {
                number: 2,
                ..TeamState::default()
            },
            TeamState {
                number: 3,
                ..TeamState::default()
            },
        ],
        players,
        items: Vec::new(),
        projectiles: Vec::new(),
        infernos: Vec::new(),
        planted_bomb: None,
        events: Vec::new(),
        chat: Vec::new(),
    }
}

impl Timeline for Comings {
    fn info(&self) -> &MatchInfo {
        &self.info
    }

    fn frames(&self) -> Box<dyn Iterator<Item = Frame> + '_> {
        Box::new((1..=COMINGS_LAST).map(|t| comings_frame(&self.info, t)))
    }
}

#[test]
fn players_leave_come_back_and_take_over_bots() -> Result {
    let mut info = Match::new().info;
    info.players.truncate(3);
    info.last_tick = COMINGS_LAST;
    let timeline = Comings { info };
    let ticks = [40, 60, 90, 110, 130, COMINGS_LAST];
    let mut schemas = vec![("built-in", builtin())];
    for demo in CS2_DEMOS {
        schemas.push((demo, schema_of(demo)?));
    }
    for (demo, schema) in schemas {
        let out = write_demo(&timeline, &schema, Cursor::new(Vec::new()))?;
        let data = out.into_inner();
        let t = run(
            &data,
            Query {
                tables: vec![TableKind::Ticks],
                player_props: ["X", "Y", "is_connected", "is_controlling_bot", "is_alive"]
                    .iter()
                    .map(|p| p.to_string())
                    .collect(),
                ticks: Some(TickSet::from_ticks(ticks.to_vec())),
                ..Query::default()
            },
        )?
        .remove(0);
        let row = |tick: i32, slot: i64| -> Result<Option<usize>> {
            for r in 0..t.rows() {
                if cell(&t, "tick", r)? == Cell::Int(i64::from(tick))
                    && cell(&t, "slot", r)? == Cell::Int(slot)
                {
                    return Ok(Some(r));
                }
            }
            Ok(None)
        };
        for tick in ticks {
            // Slot 2: away from LEAVE to BACK (its controller says so), at
            // its place before and after.
            if let Some(r) = row(tick, 2)? {
                let away = (LEAVE..BACK).contains(&tick);
                let state = if away { 4 } else { 0 };
                assert_eq!(
                    cell(&t, "is_connected", r)?,
                    Cell::Int(state),
                    "{demo} {tick}"
                );
                if !away {
                    let x = float(&cell(&t, "X", r)?).ok_or("X")?;
                    assert!(
                        (x - f64::from(position(2, tick)[0])).abs() < 0.05,
                        "{demo} {tick}"
                    );
                }
            } else {
                assert!(
                    (LEAVE..BACK).contains(&tick),
                    "{demo}: no row for slot 2 at {tick}"
                );
            }
            // Slot 0 drives slot 1's pawn from TAKEOVER on: its row is that
            // pawn, where slot 0's state puts it.
            let r = row(tick, 0)?.ok_or(format!("{demo}: no row for slot 0 at {tick}"))?;
            let driving = tick >= TAKEOVER;
            assert_eq!(
                cell(&t, "is_controlling_bot", r)?,
                Cell::Bool(driving),
                "{demo} {tick}"
            );
            if driving || tick < DIE {
                let x = float(&cell(&t, "X", r)?).ok_or("X")?;
                assert!(
                    (x - f64::from(position(0, tick)[0])).abs() < 0.05,
                    "{demo} {tick}"
                );
                assert_eq!(cell(&t, "is_alive", r)?, Cell::Bool(true), "{demo} {tick}");
            }
        }
    }
    Ok(())
}

#[test]
fn players_keep_their_slots_when_slots_have_gaps() -> Result {
    let mut timeline = Match::new();
    let slots = [0u16, 3, 4, 9];
    for (p, slot) in timeline.info.players.iter_mut().zip(slots) {
        p.slot = slot;
    }
    let schema = schema_of("cs2/14065.dem")?;
    let demo = write_demo(&timeline, &schema, Cursor::new(Vec::new()))?.into_inner();
    let tables = run(
        &demo,
        Query {
            tables: vec![TableKind::Players, TableKind::Kills, TableKind::Chat],
            ..Query::default()
        },
    )?;
    let [players, kills, chat] = &tables[..] else {
        return Err(format!("{} tables", tables.len()).into());
    };
    assert_eq!(players.rows(), 4);
    for (r, who) in timeline.info.players.iter().enumerate() {
        assert_eq!(cell(players, "slot", r)?, Cell::Int(i64::from(who.slot)));
        assert_eq!(cell(players, "name", r)?, Cell::Str(who.name.clone()));
        assert_eq!(cell(players, "steamid", r)?, Cell::UInt(who.steamid));
    }
    // Slot 0 kills the player at slot 4; slot 3 chats.
    assert_eq!(cell(kills, "attacker_slot", 0)?, Cell::Int(0));
    assert_eq!(cell(kills, "victim_slot", 0)?, Cell::Int(4));
    assert_eq!(cell(kills, "victim_name", 0)?, Cell::Str("Charlie".into()));
    assert_eq!(cell(chat, "slot", 0)?, Cell::Int(3));
    assert_eq!(cell(chat, "name", 0)?, Cell::Str("Bravo".into()));
    Ok(())
}
