//! End-to-end tests of the Source 2 subcommands on corpus demos.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::Command;

fn corpus(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(rel)
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
    assert_eq!(out.status.code(), Some(1));
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

    let out = gamewire(&["messages", demo, "--name", "GeFireBulletsId"]);
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
