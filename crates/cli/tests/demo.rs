//! End-to-end tests of the Source 2 subcommands on corpus demos.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

fn corpus(rel: &str) -> PathBuf {
    gamewire_corpus::path(rel)
}

fn gamewire(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn info_json_has_the_documented_keys() {
    let demo = corpus("cs2/14155.dem");
    let out = gamewire(&["info", demo.to_str().unwrap(), "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in [
        "map_name",
        "network_protocol",
        "build_num",
        "playback_ticks",
        "last_tick",
        "frames",
        "players",
        "classes",
        "warnings",
    ] {
        assert!(j.get(key).is_some(), "missing key {key}");
    }
    assert_eq!(j["map_name"], "de_dust2");
    assert_eq!(j["last_tick"], 161);
    assert_eq!(j["playback_ticks"], 161);
    assert_eq!(j["network_protocol"], 14155);
    assert_eq!(j["warnings"].as_array().unwrap().len(), 0);
}

#[test]
fn non_demo_is_a_one_line_error_with_exit_code_1() {
    let path = std::env::temp_dir().join("gamewire-not-a-demo.txt");
    std::fs::write(&path, b"this is not a demo file").unwrap();
    let out = gamewire(&["info", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not a Source 2 demo"), "{err}");
    let out = gamewire(&["info", "/nonexistent/demo.dem"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn ticks_and_events_on_a_cs2_demo() {
    let demo = corpus("cs2/14065.dem");
    let d = demo.to_str().unwrap();
    let out = gamewire(&[
        "ticks",
        d,
        "--props",
        "X,Y,Z,health,yaw",
        "--format",
        "jsonl",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<serde_json::Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert!(rows.len() > 100);
    let first = &rows[0];
    assert_eq!(first["name"], "Partridge");
    assert_eq!(first["steamid"], 76561197966986733u64);
    assert_eq!(first["health"], 100);
    // Values cross-checked with demoparser2 0.42.0 on this demo.
    assert!((first["X"].as_f64().unwrap() + 1874.0).abs() < 1e-3);
    assert!((first["Y"].as_f64().unwrap() + 1076.0).abs() < 1e-3);
    assert!((first["Z"].as_f64().unwrap() + 415.96875).abs() < 1e-3);

    let out = gamewire(&["events", d, "--list"]);
    let list = String::from_utf8_lossy(&out.stdout);
    assert!(list.lines().any(|l| l == "round_freeze_end"), "{list}");

    let out = gamewire(&["ticks", d, "--props", "helth"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("health"), "closest names expected: {err}");
}

#[test]
fn messages_lists_and_decodes_user_messages_and_protobuf_events() {
    let demo = corpus("cs2/14011.dem");
    let demo = demo.to_str().unwrap();
    let out = gamewire(&["messages", demo, "--list"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list = String::from_utf8(out.stdout).unwrap();
    assert!(list.contains("GeFireBulletsId\t15"), "{list}");
    assert!(list.contains("CsUmMatchEndConditions\t1"), "{list}");

    let out = gamewire(&[
        "messages",
        demo,
        "--name",
        "GeFireBulletsId",
        "--format",
        "jsonl",
    ]);
    assert!(out.status.success());
    let rows: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 15);
    for r in &rows {
        assert_eq!(r["id"], 452);
        assert_eq!(r["kind"], "game_event");
        assert!(r["tick"].as_i64().unwrap() >= 0);
        assert!(r["data"]["origin"]["x"].is_number(), "{r}");
        assert!(r["data"]["item_def_index"].is_number(), "{r}");
    }

    let out = gamewire(&[
        "messages",
        demo,
        "--name",
        "CsUmMatchEndConditions",
        "--format",
        "csv",
    ]);
    assert!(out.status.success());
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.starts_with("tick,id,message,kind,data\n"), "{csv}");
    assert!(csv.contains("mp_timelimit"), "{csv}");

    let out = gamewire(&["messages", demo, "--name", "FireBullets"]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("closest: GeFireBulletsId"), "{err}");
}

#[test]
fn broadcast_directories_are_read_like_demos() {
    let dir = corpus("deadlock/broadcast/dl_midtown_2025-02-27");
    let dir = dir.to_str().unwrap();
    let out = gamewire(&["info", dir, "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(info["last_tick"], 15772, "{info}");
    assert!(info["error"].is_null(), "{info}");
    let out = gamewire(&[
        "entities",
        dir,
        "--tick",
        "10000",
        "--class",
        "CCitadelPlayerPawn",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("m_iHealth"));
}

/// The JSON Lines rows of a successful run.
fn json_rows(out: &std::process::Output) -> Vec<serde_json::Value> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    lines(&out.stdout)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The event names and ticks of `events --format jsonl` output.
fn event_ticks(bytes: &[u8]) -> Vec<(String, i64)> {
    lines(bytes)
        .iter()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["event_name"].as_str().unwrap().to_string(),
                v["tick"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn ticks_over_several_demos_are_each_demos_rows_with_a_demo_column() {
    let demos = ["14065", "14132", "14155"].map(|d| corpus(&format!("cs2/{d}.dem")));
    let paths: Vec<&str> = demos.iter().map(|p| p.to_str().unwrap()).collect();
    for format in ["csv", "jsonl"] {
        let mut expected = Vec::new();
        for (name, path) in ["14065", "14132", "14155"].iter().zip(&paths) {
            let out = gamewire(&[
                "ticks",
                path,
                "--props",
                "X,Y,health,yaw",
                "--format",
                format,
            ]);
            assert!(out.status.success());
            let rows = lines(&out.stdout);
            assert!(rows.len() > 100, "{name}: {} rows", rows.len());
            for (n, row) in rows.into_iter().enumerate() {
                if format == "csv" {
                    if n == 0 {
                        if expected.is_empty() {
                            expected.push(format!("demo,{row}"));
                        }
                    } else {
                        expected.push(format!("{name},{row}"));
                    }
                } else {
                    let body = row.strip_prefix('{').unwrap();
                    expected.push(format!("{{\"demo\":\"{name}\",{body}"));
                }
            }
        }
        for jobs in ["1", "2", "3"] {
            let mut args = vec!["ticks"];
            args.extend(&paths);
            args.extend(["--props", "X,Y,health,yaw", "--format", format, "-j", jobs]);
            let out = gamewire(&args);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(lines(&out.stdout), expected, "{format}, {jobs} jobs");
        }
    }
}

#[test]
fn events_over_a_directory_name_each_rows_demo() {
    let dir = corpus("cs2");
    let d = dir.to_str().unwrap();
    let out = gamewire(&[
        "events",
        d,
        "--name",
        "round_freeze_end",
        "-j",
        "2",
        "--format",
        "jsonl",
    ]);
    let rows: Vec<(String, String, i64)> = json_rows(&out)
        .iter()
        .map(|v| {
            (
                v["demo"].as_str().unwrap().to_string(),
                v["event_name"].as_str().unwrap().to_string(),
                v["tick"].as_i64().unwrap(),
            )
        })
        .collect();
    // The same events as one demo at a time, in file-name order.
    let mut expected = Vec::new();
    for name in ["14011", "14065", "14132", "14150_ag2", "14155"] {
        let path = corpus(&format!("cs2/{name}.dem"));
        let one = gamewire(&[
            "events",
            path.to_str().unwrap(),
            "--name",
            "round_freeze_end",
            "--format",
            "jsonl",
        ]);
        assert!(one.status.success());
        for (event, tick) in event_ticks(&one.stdout) {
            expected.push((name.to_string(), event, tick));
        }
    }
    assert!(!expected.is_empty());
    assert_eq!(rows, expected);

    // CSV: one header over every demo's keys, `demo` first.
    let out = gamewire(&["events", d, "--format", "csv"]);
    assert!(out.status.success());
    let text = lines(&out.stdout);
    assert!(text[0].starts_with("demo,event_name,tick,"), "{}", text[0]);
    let width = text[0].split(',').count();
    assert!(text.len() > 50);
    let demos: std::collections::BTreeSet<&str> = text[1..]
        .iter()
        .filter_map(|l| l.split(',').next())
        .collect();
    assert_eq!(demos.len(), 5, "{demos:?}");
    assert!(width > 10);

    // An event no demo declares: bad usage.
    let out = gamewire(&["events", d, "--name", "round_freez"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("declares no event \"round_freez\""), "{err}");
    assert!(err.contains("round_freeze_end"), "{err}");
}

#[test]
fn a_truncated_demo_keeps_its_rows_up_to_the_cut_and_reports_it() {
    let full = std::fs::read(corpus("cs2/14065.dem")).unwrap();
    let cut_path = std::env::temp_dir().join(format!("gamewire-cut-{}.dem", std::process::id()));
    std::fs::write(&cut_path, &full[..280_000]).unwrap();
    let cut = cut_path.to_str().unwrap();
    let whole = corpus("cs2/14065.dem");

    let out = gamewire(&["ticks", cut, "--props", "X,Y,health"]);
    assert!(out.status.success(), "a cut is a warning, not a failure");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("warning: "), "{err}");
    assert!(err.contains("truncated"), "{err}");
    assert!(err.contains("at byte 279931"), "{err}");
    let kept = lines(&out.stdout);
    let tick = kept[0].split(',').position(|c| c == "tick").unwrap();
    let last_tick: i64 = kept
        .last()
        .unwrap()
        .split(',')
        .nth(tick)
        .unwrap()
        .parse()
        .unwrap();
    assert!(last_tick >= 90, "rows up to the cut: last tick {last_tick}");
    // Exactly the whole demo's rows up to that tick.
    let out = gamewire(&["ticks", whole.to_str().unwrap(), "--props", "X,Y,health"]);
    let expected: Vec<String> = lines(&out.stdout)
        .into_iter()
        .enumerate()
        .filter(|(n, l)| {
            *n == 0 || l.split(',').nth(tick).unwrap().parse::<i64>().unwrap() <= last_tick
        })
        .map(|(_, l)| l)
        .collect();
    assert_eq!(kept, expected);

    let out = gamewire(&["events", cut, "--format", "jsonl"]);
    assert!(out.status.success());
    let kept = event_ticks(&out.stdout);
    assert!(!kept.is_empty());
    let out = gamewire(&["events", whole.to_str().unwrap(), "--format", "jsonl"]);
    let expected: Vec<(String, i64)> = event_ticks(&out.stdout)
        .into_iter()
        .filter(|(_, t)| *t <= last_tick)
        .collect();
    assert_eq!(kept, expected);

    // The entities at the last complete tick are the whole demo's; the tick
    // being read at the cut has no snapshot.
    let w = whole.to_str().unwrap();
    let out = gamewire(&["entities", cut, "--tick", &last_tick.to_string()]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("warning: "));
    let expected = gamewire(&["entities", w, "--tick", &last_tick.to_string()]);
    assert!(!out.stdout.is_empty());
    assert_eq!(out.stdout, expected.stdout);
    let out = gamewire(&["entities", cut, "--tick", &(last_tick + 1).to_string()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is not complete in this demo, which is cut short"),
        "{err}"
    );
    // The schema comes from the signon, before the cut.
    let out = gamewire(&["schema", cut, "--class", "CCSPlayerPawn"]);
    assert!(out.status.success());
    assert_eq!(
        out.stdout,
        gamewire(&["schema", w, "--class", "CCSPlayerPawn"]).stdout
    );
    let out = gamewire(&["messages", cut, "--list"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("truncated"));

    // Among several demos: the cut one keeps its rows; a missing one fails
    // alone, and the command exits with 1 after writing the others.
    let out = gamewire(&[
        "ticks",
        cut,
        "/nonexistent/demo.dem",
        whole.to_str().unwrap(),
        "--props",
        "health",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: ") && err.contains("truncated"),
        "{err}"
    );
    assert!(err.contains("cannot read /nonexistent/demo.dem"), "{err}");
    assert!(err.contains("1 of 3 demos failed"), "{err}");
    let rows = lines(&out.stdout);
    let stem = cut_path.file_stem().unwrap().to_str().unwrap();
    assert!(rows.iter().any(|r| r.starts_with(&format!("{stem},"))));
    assert!(rows.iter().any(|r| r.starts_with("14065,")));
    std::fs::remove_file(&cut_path).unwrap();
}

/// demoparser2's other player props in `gamewire ticks`: the held weapon's
/// props and name, computed props, buttons, velocity, the player's team and
/// game-wide props. The values at ticks 40 and 185 of 14065 are
/// demoparser2 0.42.0's (scripts/compare_demoparser2.py compares every row
/// of every prop).
#[test]
fn ticks_read_weapon_computed_team_and_game_wide_props() {
    let demo = corpus("cs2/14065.dem");
    let props = "active_weapon_name,item_def_idx,active_weapon_ammo,player_color,entity_id,\
                 user_id,FIRE,is_airborne,velocity,max_speed,team_name,total_rounds_played,\
                 game_time";
    let out = gamewire(&[
        "ticks",
        demo.to_str().unwrap(),
        "--props",
        props,
        "--format",
        "jsonl",
        "--humans-only",
    ]);
    // The human's rows (the bots' are left out).
    let rows = json_rows(&out);
    assert_eq!(rows.len(), 185);
    for (i, game_time) in [(39, 28.90625), (184, 31.171875)] {
        let r = &rows[i];
        assert_eq!(r["active_weapon_name"], "C4 Explosive", "{r}");
        assert_eq!(r["item_def_idx"], 49);
        assert_eq!(r["active_weapon_ammo"], 0);
        assert_eq!(r["player_color"], "orange");
        assert_eq!(r["entity_id"], 417);
        assert_eq!(r["user_id"], 0);
        assert_eq!(r["FIRE"], false);
        assert_eq!(r["is_airborne"], false);
        assert_eq!(r["velocity"], 0.0);
        assert_eq!(r["max_speed"], 260.0);
        assert_eq!(r["team_name"], "TERRORIST");
        assert_eq!(r["total_rounds_played"], 0);
        assert_eq!(r["game_time"], game_time);
    }
    // A player's first row has no previous position: no velocity.
    assert_eq!(rows[0]["velocity"], serde_json::Value::Null);
    // A friendly name whose field this build lacks reads as null; a misspelt
    // name is still an error naming the closest.
    let out = gamewire(&[
        "ticks",
        demo.to_str().unwrap(),
        "--props",
        "stamina,max_sped",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown player prop \"max_sped\"; closest: max_speed"),
        "{err}"
    );
    let out = gamewire(&[
        "ticks",
        demo.to_str().unwrap(),
        "--props",
        "stamina",
        "--format",
        "csv",
    ]);
    assert!(out.status.success());
    let rows = lines(&out.stdout);
    assert_eq!(rows[0], "tick,slot,steamid,name,stamina");
    assert!(
        rows[1].starts_with("1,") && rows[1].ends_with(','),
        "{:?}",
        rows[1]
    );
}

/// `--players` keeps the rows of those steam ids.
#[test]
fn ticks_players_keeps_those_players_rows() {
    let demo = corpus("cs2/14065.dem");
    let d = demo.to_str().unwrap();
    let all = gamewire(&["ticks", d, "--props", "health", "--humans-only"]);
    assert!(all.status.success());
    let all = lines(&all.stdout);
    assert_eq!(all.len(), 186);
    let one = gamewire(&[
        "ticks",
        d,
        "--props",
        "health",
        "--players",
        "76561197966986733,1",
    ]);
    assert!(one.status.success());
    assert_eq!(lines(&one.stdout), all);
    let none = gamewire(&["ticks", d, "--props", "health", "--players", "1"]);
    assert!(none.status.success());
    assert_eq!(
        lines(&none.stdout),
        vec!["tick,slot,steamid,name,health".to_string()]
    );
    let bad = gamewire(&["ticks", d, "--props", "health", "--players", "me"]);
    assert_eq!(bad.status.code(), Some(2));
}

/// Runs gamewire with `file` on standard input.
fn gamewire_stdin(args: &[&str], file: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .stdin(std::fs::File::open(file).unwrap())
        .output()
        .unwrap()
}

/// Compressed copies of a corpus demo (gzip, bzip2, zstd), made here with
/// the compressors' Rust crates, in a fresh directory.
fn compressed_copies(demo: &std::path::Path, dir_name: &str) -> (PathBuf, Vec<PathBuf>) {
    use std::io::Write;
    let data = std::fs::read(demo).unwrap();
    let dir = std::env::temp_dir().join(format!("gamewire-{dir_name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&data).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(&data).unwrap();
    let zst = zstd::stream::encode_all(&data[..], 3).unwrap();
    let mut paths = Vec::new();
    for (ext, bytes) in [
        ("gz", gz.finish().unwrap()),
        ("bz2", bz.finish().unwrap()),
        ("zst", zst),
    ] {
        assert!(bytes.len() < data.len());
        let p = dir.join(format!("match.dem.{ext}"));
        std::fs::write(&p, bytes).unwrap();
        paths.push(p);
    }
    (dir, paths)
}

#[test]
fn compressed_demos_and_standard_input_read_as_the_demo_itself() {
    let demo = corpus("cs2/14065.dem");
    let (dir, copies) = compressed_copies(&demo, "compressed");
    let plain_events = gamewire(&["events", demo.to_str().unwrap(), "--format", "csv"]);
    let plain_ticks = gamewire(&["ticks", demo.to_str().unwrap(), "--props", "X,Y,health"]);
    assert!(plain_events.status.success() && plain_ticks.status.success());
    assert!(plain_events.stdout.len() > 1000 && plain_ticks.stdout.len() > 1000);
    for copy in &copies {
        let c = copy.to_str().unwrap();
        let events = gamewire(&["events", c, "--format", "csv"]);
        assert!(
            events.status.success() && events.stderr.is_empty(),
            "{c}: {}",
            String::from_utf8_lossy(&events.stderr)
        );
        assert!(events.stdout == plain_events.stdout, "{c}: events differ");
        let ticks = gamewire(&["ticks", c, "--props", "X,Y,health"]);
        assert!(ticks.stdout == plain_ticks.stdout, "{c}: ticks differ");
        // From standard input.
        let piped = gamewire_stdin(&["events", "-", "--format", "csv"], copy);
        assert!(piped.stdout == plain_events.stdout, "{c} on standard input");
    }
    let piped = gamewire_stdin(&["ticks", "-", "--props", "X,Y,health"], &demo);
    assert!(
        piped.stdout == plain_ticks.stdout,
        "plain demo on standard input"
    );
    // A directory of compressed demos: each is found, and named without
    // its extensions in the `demo` column.
    let many = gamewire(&[
        "ticks",
        dir.to_str().unwrap(),
        "--props",
        "health",
        "-j",
        "1",
    ]);
    assert!(
        many.status.success(),
        "{}",
        String::from_utf8_lossy(&many.stderr)
    );
    let text = String::from_utf8(many.stdout).unwrap();
    let rows: Vec<&str> = text.lines().skip(1).collect();
    let plain_rows = String::from_utf8(plain_ticks.stdout)
        .unwrap()
        .lines()
        .count()
        - 1;
    assert_eq!(rows.len(), 3 * plain_rows);
    // The three files share a stem: match, match-2, match-3.
    for name in ["match", "match-2", "match-3"] {
        let n = rows
            .iter()
            .filter(|r| r.starts_with(&format!("{name},")))
            .count();
        assert_eq!(n, plain_rows, "rows of {name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cut_compressed_demo_keeps_its_start_and_names_both_cuts() {
    let demo = corpus("cs2/14065.dem");
    let (dir, copies) = compressed_copies(&demo, "compressed-cut");
    let gz = std::fs::read(&copies[0]).unwrap();
    let cut = dir.join("cut.dem.gz");
    std::fs::write(&cut, &gz[..gz.len() / 2]).unwrap();
    let out = gamewire(&["events", cut.to_str().unwrap(), "--format", "jsonl"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // The gzip stream's end, then the demo's own cut at a frame and tick.
    assert!(stderr.contains("gzip stream: "), "{stderr}");
    assert!(
        stderr.contains(&format!("of {} compressed bytes", gz.len() / 2)),
        "{stderr}"
    );
    assert!(stderr.contains("the demo is truncated"), "{stderr}");
    let full = gamewire(&["events", demo.to_str().unwrap(), "--format", "jsonl"]);
    let kept = event_ticks(&out.stdout);
    let all = event_ticks(&full.stdout);
    assert!(kept.len() > 10 && kept.len() < all.len());
    assert!(
        all.starts_with(&kept),
        "the kept events are the demo's first events"
    );
    // Damage from the start: an error naming the format, nothing else.
    let junk = dir.join("junk.dem.zst");
    std::fs::write(&junk, [0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap();
    let out = gamewire(&["info", junk.to_str().unwrap()]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("junk.dem.zst: zstd stream: "), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}
