//! The Teeworlds replay model on demos we write with the demo writer:
//! every object kind, names from messages and from the recorder's info
//! objects, health only where the snapshot carries it, chat and kills, a
//! cut demo and a foreign file. Each snapshot is checked against the
//! tables of the same demo (`gamewire tw demo --table ...`), which read
//! it by another path. Demos recorded by the real 0.7.5 server are
//! checked against `gamewire tw demo --dump jsonl` in the command line's
//! tests (`crates/cli/tests/tw_replay.rs`).

use std::error::Error;

use gamewire_query::teeworlds::{demo_tables, TeeworldsTable};
use gamewire_query::tw_replay::{projectile_position, Tunings, TwReplay};
use gamewire_query::Cell;
use gamewire_teeworlds::demo::DemoWriter;
use gamewire_teeworlds::msg::{
    str_to_ints, Character, DeClientInfo, Flag, GameDataFlag, GameDataTeam, GameMessage, Laser,
    Message, Pickup, Projectile, SvChat, SvClientDrop, SvClientInfo, SvKillMsg, SvTeam,
    SvTuneParams,
};
use gamewire_teeworlds::snapshot::Snapshot;

type Result<T = ()> = std::result::Result<T, Box<dyn Error>>;

fn ints(f: impl FnOnce(&mut Vec<i32>)) -> Vec<i32> {
    let mut v = Vec::new();
    f(&mut v);
    v
}

fn character(x: i32, y: i32, step: i32) -> Character {
    Character {
        tick: 0,
        x,
        y,
        vel_x: step * 3,
        vel_y: -step,
        angle: step * 40 - 300,
        direction: step % 3 - 1,
        health: 10 - step % 10,
        armor: step % 6,
        weapon: step % 6,
        emote: step % 6,
        hook_state: step % 2,
        hook_x: x + 100,
        hook_y: y - 50,
        ..Character::default()
    }
}

fn client_info(id: i32, name: &str, team: i32, local: bool) -> Vec<u8> {
    Message::Game(GameMessage::SvClientInfo(SvClientInfo {
        client_id: id,
        local,
        team,
        name: name.into(),
        clan: "clan".into(),
        ..SvClientInfo::default()
    }))
    .encode()
}

fn chat(id: i32, text: &str) -> Vec<u8> {
    Message::Game(GameMessage::SvChat(SvChat {
        mode: 1,
        client_id: id,
        target_id: -1,
        message: text.into(),
    }))
    .encode()
}

/// A capture-the-flag game of `steps` snapshots two ticks apart from tick
/// 1000: tees 0 and 5 walk, tee 5 shoots (a grenade, then a laser), the
/// red flag is carried by tee 0 from step 10; a pickup on the map. Server
/// demos name players with info objects, client demos with messages (the
/// recorder is client 0); client 5 leaves at step 30 and "newcomer" takes
/// its slot at step 32. Chat and a kill come along.
fn game(kind: &str, steps: i32) -> Result<Vec<u8>> {
    let mut w = DemoWriter::new("ctf1", 0x1234_5678, b"no map here", kind);
    let server = kind == "server";
    if !server {
        w.message(&client_info(0, "walker", 0, true));
        w.message(&client_info(5, "shooter", 1, false));
        // This server's grenades fly at half speed.
        w.message(
            &Message::Game(GameMessage::SvTuneParams(SvTuneParams {
                gun_speed: 220_000,
                gun_curvature: 125,
                shotgun_speed: 275_000,
                shotgun_curvature: 125,
                grenade_speed: 50_000,
                grenade_curvature: 700,
                ..SvTuneParams::default()
            }))
            .encode(),
        );
    }
    for step in 0..steps {
        let tick = 1000 + 2 * step;
        let mut s = Snapshot::new();
        s.insert(
            Character::TYPE_ID,
            0,
            ints(|v| character(100 + 7 * step, 500 - step, step).to_ints(v)),
        )?;
        if step != 31 {
            s.insert(
                Character::TYPE_ID,
                5,
                ints(|v| character(900 - 5 * step, 300, step + 1).to_ints(v)),
            )?;
        }
        if server {
            for (id, name, team) in [(0, "walker", 0), (5, "shooter", 1)] {
                // Client 5 is gone for one snapshot.
                if id == 5 && step == 31 {
                    continue;
                }
                let name = if id == 5 && step >= 32 {
                    "newcomer"
                } else {
                    name
                };
                let mut info = DeClientInfo {
                    team,
                    ..DeClientInfo::default()
                };
                str_to_ints(name, &mut info.name);
                s.insert(DeClientInfo::TYPE_ID, id, ints(|v| info.to_ints(v)))?;
            }
        }
        if (5..20).contains(&step) {
            s.insert(
                Projectile::TYPE_ID,
                40,
                ints(|v| {
                    Projectile {
                        x: 880,
                        y: 290,
                        vel_x: -70,
                        vel_y: -71,
                        r#type: 3,
                        start_tick: 1010,
                    }
                    .to_ints(v)
                }),
            )?;
        }
        if (20..24).contains(&step) {
            s.insert(
                Laser::TYPE_ID,
                41,
                ints(|v| {
                    Laser {
                        x: 400,
                        y: 300,
                        from_x: 850,
                        from_y: 300,
                        start_tick: 1040,
                    }
                    .to_ints(v)
                }),
            )?;
        }
        s.insert(
            Pickup::TYPE_ID,
            7,
            ints(|v| {
                Pickup {
                    x: 64,
                    y: 96,
                    r#type: 1,
                }
                .to_ints(v)
            }),
        )?;
        for (id, team, x) in [(0, 0, 40), (1, 1, 1200)] {
            let x = if team == 0 && step >= 10 {
                100 + 7 * step
            } else {
                x
            };
            s.insert(
                Flag::TYPE_ID,
                id,
                ints(|v| Flag { x, y: 480, team }.to_ints(v)),
            )?;
        }
        s.insert(
            GameDataFlag::TYPE_ID,
            0,
            ints(|v| {
                GameDataFlag {
                    flag_carrier_red: if step >= 10 { 0 } else { -2 },
                    flag_carrier_blue: -2,
                    ..GameDataFlag::default()
                }
                .to_ints(v)
            }),
        )?;
        s.insert(
            GameDataTeam::TYPE_ID,
            0,
            ints(|v| {
                GameDataTeam {
                    teamscore_red: step / 10,
                    teamscore_blue: 1,
                }
                .to_ints(v)
            }),
        )?;
        w.snapshot(tick, &s);
        match step {
            3 => w.message(&chat(0, "gl hf")),
            12 => w.message(
                &Message::Game(GameMessage::SvKillMsg(SvKillMsg {
                    killer: 5,
                    victim: 0,
                    weapon: 3,
                    mode_special: 0,
                }))
                .encode(),
            ),
            15 => w.message(
                &Message::Game(GameMessage::SvTeam(SvTeam {
                    client_id: 5,
                    team: 0,
                    silent: false,
                    cooldown_tick: 0,
                }))
                .encode(),
            ),
            30 => w.message(
                &Message::Game(GameMessage::SvClientDrop(SvClientDrop {
                    client_id: 5,
                    reason: "bye".into(),
                    silent: false,
                }))
                .encode(),
            ),
            32 if !server => w.message(&client_info(5, "newcomer", 1, false)),
            33 => w.message(&chat(5, "hi")),
            _ => {}
        }
    }
    Ok(w.finish())
}

fn int(c: &Cell) -> Option<i64> {
    match c {
        Cell::Int(v) => Some(*v),
        _ => None,
    }
}

/// The rows of table `t` as (tick, id, [named columns]).
fn object_rows(data: &[u8], name: &str, columns: &[&str]) -> Result<Vec<Vec<i64>>> {
    let t: TeeworldsTable = name.parse()?;
    let read = demo_tables(data, &[t])?;
    let table = read.tables.first().ok_or("no table")?;
    let names = table.column_names();
    let at: Vec<usize> = ["tick", "id"]
        .iter()
        .chain(columns)
        .map(|c| names.iter().position(|n| n == c).ok_or(format!("no {c}")))
        .collect::<std::result::Result<_, _>>()?;
    (0..table.rows())
        .map(|i| {
            let row = table.row(i);
            at.iter()
                .map(|&j| row.get(j).and_then(int).ok_or_else(|| "not an int".into()))
                .collect()
        })
        .collect()
}

/// The model's rows of one kind, flattened like [`object_rows`].
fn model_rows(
    r: &TwReplay,
    rows_of: impl Fn(usize) -> std::ops::Range<usize>,
    row: impl Fn(usize) -> Vec<i64>,
) -> Vec<Vec<i64>> {
    let mut out = Vec::new();
    for (f, &tick) in r.ticks.iter().enumerate() {
        for i in rows_of(f) {
            let mut v = vec![i64::from(tick)];
            v.extend(row(i));
            out.push(v);
        }
    }
    out
}

/// Every tee, projectile, laser, pickup and flag of the model is the
/// object of the tables at the same tick, in the same order.
fn check_against_tables(data: &[u8], r: &TwReplay, health_known: impl Fn(i64) -> bool) -> Result {
    let mut want = object_rows(
        data,
        "character",
        &[
            "x",
            "y",
            "vel_x",
            "vel_y",
            "angle",
            "direction",
            "weapon",
            "emote",
            "hook_state",
            "hook_x",
            "hook_y",
            "health",
            "armor",
        ],
    )?;
    let t = &r.tees;
    let got = model_rows(
        r,
        |f| r.tees_of(f),
        |i| {
            vec![
                i64::from(t.client_id[i]),
                i64::from(t.x[i]),
                i64::from(t.y[i]),
                i64::from(t.vel_x[i]),
                i64::from(t.vel_y[i]),
                i64::from(t.angle[i]),
                i64::from(t.direction[i]),
                i64::from(t.weapon[i]),
                i64::from(t.emote[i]),
                i64::from(t.hook_state[i]),
                i64::from(t.hook_x[i]),
                i64::from(t.hook_y[i]),
                i64::from(t.health[i]),
                i64::from(t.armor[i]),
            ]
        },
    );
    for row in &mut want {
        if !health_known(row[1]) {
            let n = row.len();
            row[n - 2] = -1;
            row[n - 1] = -1;
        }
    }
    assert_eq!(got, want);
    assert!(!got.is_empty());

    let p = &r.projectiles;
    let got = model_rows(
        r,
        |f| r.projectiles_of(f),
        |i| {
            [
                i64::from(p.id[i]),
                i64::from(p.start_x[i]),
                i64::from(p.start_y[i]),
                i64::from(p.vel_x[i]),
                i64::from(p.vel_y[i]),
                i64::from(p.weapon[i]),
                i64::from(p.start_tick[i]),
            ]
            .to_vec()
        },
    );
    let want = object_rows(
        data,
        "projectile",
        &["x", "y", "vel_x", "vel_y", "type", "start_tick"],
    )?;
    assert_eq!(got, want);

    let l = &r.lasers;
    let got = model_rows(
        r,
        |f| r.lasers_of(f),
        |i| {
            [
                i64::from(l.id[i]),
                i64::from(l.x[i]),
                i64::from(l.y[i]),
                i64::from(l.from_x[i]),
                i64::from(l.from_y[i]),
                i64::from(l.start_tick[i]),
            ]
            .to_vec()
        },
    );
    let want = object_rows(data, "laser", &["x", "y", "from_x", "from_y", "start_tick"])?;
    assert_eq!(got, want);

    let k = &r.pickups;
    let got = model_rows(
        r,
        |f| r.pickups_of(f),
        |i| {
            [
                i64::from(k.id[i]),
                i64::from(k.x[i]),
                i64::from(k.y[i]),
                i64::from(k.kind[i]),
            ]
            .to_vec()
        },
    );
    assert_eq!(got, object_rows(data, "pickup", &["x", "y", "type"])?);

    // Flags: the table's id is the item id; the model keeps the team.
    let fl = &r.flags;
    let got = model_rows(
        r,
        |f| r.flags_of(f),
        |i| {
            [
                i64::from(fl.team[i]),
                i64::from(fl.x[i]),
                i64::from(fl.y[i]),
                i64::from(fl.team[i]),
            ]
            .to_vec()
        },
    );
    assert_eq!(got, object_rows(data, "flag", &["x", "y", "team"])?);

    let carriers: Vec<Vec<i64>> = r
        .ticks
        .iter()
        .zip(&r.red_carrier)
        .zip(&r.blue_carrier)
        .map(|((&t, &red), &blue)| vec![i64::from(t), 0, i64::from(red), i64::from(blue)])
        .collect();
    assert_eq!(
        carriers,
        object_rows(
            data,
            "game_data_flag",
            &["flag_carrier_red", "flag_carrier_blue"]
        )?
    );
    Ok(())
}

#[test]
fn a_server_demo_gives_every_object_of_every_snapshot() -> Result {
    let data = game("server", 40)?;
    let r = TwReplay::from_demo(&data)?;
    assert_eq!(r.map_name, "ctf1");
    assert_eq!(r.kind, "server");
    assert_eq!(r.frames(), 40);
    assert_eq!(r.ticks.first(), Some(&1000));
    assert_eq!(r.ticks.last(), Some(&1078));
    assert!(r.cut.is_none());
    // Every array of a kind is as long as its last offset.
    let t = &r.tees;
    let n = t.x.len();
    for len in [
        t.client_id.len(),
        t.player.len(),
        t.y.len(),
        t.angle.len(),
        t.team.len(),
        t.health.len(),
        t.armor.len(),
        t.weapon.len(),
    ] {
        assert_eq!(len, n);
    }
    assert_eq!(r.tee_offsets.len(), r.frames() + 1);
    assert_eq!(r.tee_offsets.last().map(|&o| o as usize), Some(n));
    // 40 snapshots with two tees, but one without tee 5.
    assert_eq!(n, 79);
    check_against_tables(&data, &r, |_| true)?;

    // Names from the info objects: a new player when the slot's name
    // changes.
    let names: Vec<&str> = r.players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["walker", "shooter", "newcomer"]);
    let last = r.frames() - 1;
    let tees: Vec<(u8, Option<&str>, i8)> = r
        .tees_of(last)
        .map(|i| (t.client_id[i], r.player_name(t.player[i]), t.team[i]))
        .collect();
    assert_eq!(tees, [(0, Some("walker"), 0), (5, Some("newcomer"), 1)]);

    // The grenade flies along the game's curve from where and when it
    // started.
    let f = r.frame_at(1020).ok_or("no frame")?;
    assert_eq!(r.ticks[f], 1020);
    let i = r.projectiles_of(f).start;
    let secs = 10.0 / 50.0;
    let dist = 1000.0 * secs;
    let (x, y) = (r.projectiles.x[i], r.projectiles.y[i]);
    assert!((x - (880.0 - 0.70 * dist)).abs() < 1e-3, "{x}");
    assert!(
        (y - (290.0 - 0.71 * dist + 7.0 / 10000.0 * dist * dist)).abs() < 1e-3,
        "{y}"
    );
    assert_eq!(
        projectile_position(
            (880, 290),
            (-70, -71),
            Tunings::default().grenade,
            1010,
            1020
        ),
        (x, y)
    );
    // Each row keeps its flight, for the ticks between snapshots.
    assert_eq!(
        (r.projectiles.speed[i], r.projectiles.curvature[i]),
        (1000.0, 7.0)
    );
    // Bounds take in every position drawn.
    assert_eq!(r.bounds[0], 40);
    assert_eq!(r.bounds[2], 1200);
    assert_eq!(r.bounds[1], 96);
    assert_eq!(r.bounds[3], 500);
    // Red carried from step 10 on; scores as the game data say.
    assert_eq!(r.red_carrier[9], -2);
    assert_eq!(r.red_carrier[10], 0);
    assert_eq!(r.red_score[25], 2);
    assert_eq!(r.blue_score[25], 1);

    // Chat and kills with their ticks and senders.
    let chat: Vec<(i32, Option<&str>, &str)> = r
        .chat
        .iter()
        .map(|c| (c.tick, r.player_name(c.player), c.message.as_str()))
        .collect();
    assert_eq!(
        chat,
        [
            (1006, Some("walker"), "gl hf"),
            (1066, Some("newcomer"), "hi")
        ]
    );
    let kill = r.kills.first().ok_or("no kill")?;
    assert_eq!(
        (kill.tick, kill.killer, kill.victim, kill.weapon),
        (1024, 5, 0, 3)
    );
    assert_eq!(r.player_name(kill.killer_player), Some("shooter"));
    assert_eq!(r.player_name(kill.victim_player), Some("walker"));
    Ok(())
}

#[test]
fn a_client_demo_names_players_from_messages_and_knows_only_its_own_health() -> Result {
    let data = game("client", 40)?;
    let r = TwReplay::from_demo(&data)?;
    // Health and armor are known for the recorder's own tee (client 0)
    // only.
    check_against_tables(&data, &r, |id| id == 0)?;
    let local: Vec<(&str, bool)> = r
        .players
        .iter()
        .map(|p| (p.name.as_str(), p.local))
        .collect();
    assert_eq!(
        local,
        [("walker", true), ("shooter", false), ("newcomer", false)]
    );
    let t = &r.tees;
    // The team follows sv_team (step 15: shooter to red).
    let team_of_5 = |frame: usize| {
        r.tees_of(frame)
            .find(|&i| t.client_id[i] == 5)
            .map(|i| t.team[i])
    };
    assert_eq!(team_of_5(14), Some(1));
    assert_eq!(team_of_5(16), Some(0));
    // Between the drop (step 30) and the new client info (step 32), tee 5
    // has no player.
    let player_of_5 = |frame: usize| {
        r.tees_of(frame)
            .find(|&i| t.client_id[i] == 5)
            .map(|i| t.player[i])
    };
    assert_eq!(player_of_5(30), Some(1));
    assert_eq!(player_of_5(31), None);
    assert_eq!(player_of_5(32), Some(-1));
    assert_eq!(player_of_5(33), Some(2));
    // The server's tunings place its projectiles.
    let f = r.frame_at(1020).ok_or("no frame")?;
    let i = r.projectiles_of(f).start;
    assert_eq!(
        (r.projectiles.speed[i], r.projectiles.curvature[i]),
        (500.0, 7.0)
    );
    let dist = 500.0 * 10.0 / 50.0;
    assert!((r.projectiles.x[i] - (880.0 - 0.70 * dist)).abs() < 1e-3);
    // Health of the own tee is what the snapshot says.
    let own = r.tees_of(7).start;
    assert_eq!((t.client_id[own], t.health[own], t.armor[own]), (0, 3, 1));
    Ok(())
}

#[test]
fn frames_stand_for_the_ticks_up_to_the_next() -> Result {
    let r = TwReplay::from_demo(&game("server", 5)?)?;
    assert_eq!(r.ticks, [1000, 1002, 1004, 1006, 1008]);
    assert_eq!(r.frame_at(999), None);
    assert_eq!(r.frame_at(1000), Some(0));
    assert_eq!(r.frame_at(1003), Some(1));
    assert_eq!(r.frame_at(5000), Some(4));
    assert_eq!(r.tees_of(99), 0..0);
    assert_eq!(r.player_name(-1), None);
    assert_eq!(r.player_name(99), None);
    Ok(())
}

#[test]
fn a_cut_demo_keeps_what_came_before_and_foreign_bytes_fail() -> Result {
    let data = game("server", 20)?;
    let whole = TwReplay::from_demo(&data)?;
    let cut = TwReplay::from_demo(data.get(..data.len() - 3).ok_or("short")?)?;
    assert!(cut.cut.is_some());
    assert!(cut.frames() < whole.frames() && cut.frames() > 0);
    assert_eq!(cut.ticks[..], whole.ticks[..cut.frames()]);
    let n = cut.tees.x.len();
    assert_eq!(cut.tees.x[..], whole.tees.x[..n]);

    let e = TwReplay::from_demo(b"HL2DEMO\0 not a teeworlds demo").err();
    assert!(e.is_some_and(|e| e.to_string().contains("TWDEMO")));
    assert!(TwReplay::from_demo(data.get(..100).ok_or("short")?).is_err());
    // Garbage after the map: an error, never a panic.
    let mut bad = data.get(..data.len() / 2).ok_or("short")?.to_vec();
    bad.extend(std::iter::repeat_n(0x5a, 300));
    let _ = TwReplay::from_demo(&bad);
    Ok(())
}
