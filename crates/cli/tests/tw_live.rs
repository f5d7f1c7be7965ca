//! Live test against real servers: the vanilla Teeworlds 0.7.5 server and
//! DDNet 16.4 (0.7 mode), started by `.ci/setup-teeworlds.sh start`.
//!
//! The client joins, enters the game, receives at least 50 snapshots with
//! valid CRCs, says a chat line and sees its own line echoed. Addresses come
//! from `target/tw-servers/servers.env` (written by the setup script) or, for
//! the vanilla server, `GAMEWIRE_TW_SERVER`. Under `CI=true` a missing or
//! unreachable server fails the test; locally it is skipped with a message.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::process::Command;

use serde_json::Value;

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

fn servers() -> HashMap<String, String> {
    let path = format!("{REPO}/target/tw-servers/servers.env");
    let mut m: HashMap<String, String> = std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            l.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        })
        .collect();
    if let Ok(a) = std::env::var("GAMEWIRE_TW_SERVER") {
        m.insert("vanilla".into(), a);
    }
    m
}

/// Runs `gamewire tw connect` (inside the namespace of `netns_pid` if given)
/// and returns its JSON lines.
fn join(addr: &str, netns_pid: Option<&str>, name: &str, say: &str, cache: &str) -> Vec<Value> {
    let bin = env!("CARGO_BIN_EXE_gamewire");
    let args = [
        "tw",
        "connect",
        addr,
        "--name",
        name,
        "--say",
        say,
        "--seconds",
        "5",
        "--map-cache",
        cache,
        "--format",
        "jsonl",
    ];
    let output = match netns_pid {
        Some(pid) => Command::new("nsenter")
            .arg(format!("--net=/proc/{pid}/ns/net"))
            .arg(bin)
            .args(args)
            .output(),
        None => Command::new(bin).args(args).output(),
    }
    .expect("running gamewire");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "gamewire tw connect {addr} failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn check(label: &str, lines: &[Value], say: &str) {
    let done = lines
        .iter()
        .find(|v| v["event"] == "done")
        .unwrap_or_else(|| panic!("{label}: no summary line"));
    println!("{label}: {done}");
    assert_eq!(done["entered"], true, "{label}: did not enter the game");
    let snapshots = done["snapshots"].as_u64().unwrap();
    assert!(snapshots >= 50, "{label}: only {snapshots} snapshots");
    assert_eq!(
        done["snapshots_crc_ok"].as_u64(),
        Some(snapshots),
        "{label}: CRC mismatches"
    );
    assert_eq!(done["errors"], 0, "{label}: decode errors");
    assert!(
        lines
            .iter()
            .any(|v| v["event"] == "chat" && v["own"] == true && v["message"] == say),
        "{label}: our chat line was not echoed"
    );
    assert_eq!(done["chat_echo"], true);
    assert!(
        lines
            .iter()
            .any(|v| v["event"] == "join" && v["local"] == true),
        "{label}: no own join"
    );
}

fn skip_or_fail(what: &str) {
    if in_ci() {
        panic!("{what} is not available: `.ci/setup-teeworlds.sh start` should have started it");
    }
    println!("skipped: {what} is not available (run `.ci/setup-teeworlds.sh start`)");
}

fn unique(prefix: &str) -> String {
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{prefix} {n:08x}")
}

#[test]
fn joins_vanilla_teeworlds_server() {
    let s = servers();
    let Some(addr) = s.get("vanilla") else {
        return skip_or_fail("the vanilla Teeworlds 0.7.5 server");
    };
    let say = unique("hello from gamewire");
    let cache = std::env::temp_dir().join(unique("gamewire-tw-maps").replace(' ', "-"));
    let cache = cache.to_str().unwrap();
    let lines = join(addr, None, "gamewire-ci", &say, cache);
    check("teeworlds 0.7.5", &lines, &say);
    // The first join downloaded the map (CRC and SHA-256 checked) into the
    // cache; the second takes it from there.
    assert!(
        lines.iter().any(|v| v["event"] == "map_downloaded"),
        "no map download"
    );
    let say = unique("hello again from gamewire");
    let again = join(addr, None, "gamewire-ci", &say, cache);
    check("teeworlds 0.7.5 (cached map)", &again, &say);
    assert!(
        again
            .iter()
            .any(|v| v["event"] == "map" && v["source"] == "cache"),
        "the cached map was not used"
    );
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn joins_ddnet_server_in_its_namespace() {
    let s = servers();
    let (Some(addr), Some(pid)) = (s.get("ddnet"), s.get("ddnet_netns_pid")) else {
        return skip_or_fail("the DDNet 16.4 server");
    };
    let say = unique("hello ddnet from gamewire");
    let cache = std::env::temp_dir().join(unique("gamewire-ddnet-maps").replace(' ', "-"));
    let lines = join(
        addr,
        Some(pid),
        "gamewire-ci",
        &say,
        cache.to_str().unwrap(),
    );
    let _ = std::fs::remove_dir_all(&cache);
    check("ddnet 16.4", &lines, &say);
    assert!(
        lines.iter().any(|v| v["event"] == "map_downloaded"),
        "no map download"
    );
}
