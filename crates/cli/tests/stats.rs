//! `gamewire stats`: a full parse's counts on every corpus demo, the sample
//! and a cut demo, checked against `gamewire info` (frames, ticks, packet
//! messages), `gamewire messages --list` (user messages by name) and, with
//! the peers' venv (`.ci/setup-demoparser2.sh start`), demoparser2's event
//! counts by name.

use std::collections::BTreeMap;
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

type TestResult = Result<(), Box<dyn Error>>;

fn gamewire(args: &[&str]) -> Result<Output, Box<dyn Error>> {
    Ok(Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .output()?)
}

/// A successful run's standard output as JSON.
fn json_of(args: &[&str]) -> Result<Value, Box<dyn Error>> {
    let out = gamewire(args)?;
    if !out.status.success() {
        return Err(format!(
            "{args:?}: {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(serde_json::from_slice(&out.stdout)?)
}

/// A JSON object of counts as a map.
fn counts(v: &Value) -> Result<BTreeMap<String, u64>, Box<dyn Error>> {
    let o = v.as_object().ok_or_else(|| format!("not an object: {v}"))?;
    o.iter()
        .map(|(k, v)| Ok((k.clone(), v.as_u64().ok_or("not a count")?)))
        .collect()
}

fn demos() -> Result<Vec<PathBuf>, Box<dyn Error>> {
    let demos = gamewire_corpus::source2_demos()?;
    if demos.len() < 7 {
        return Err(format!("expected the 7 corpus demos, found {demos:?}").into());
    }
    Ok(demos)
}

#[test]
fn stats_agree_with_info_and_messages_on_every_corpus_demo() -> TestResult {
    for path in demos()? {
        let demo = path.to_str().ok_or("path")?;
        let stats = json_of(&["stats", demo, "--format", "json"])?;
        let info = json_of(&["info", demo, "--format", "json"])?;
        assert_eq!(stats["frames"], info["frames"], "{demo}");
        assert_eq!(stats["ticks"]["last"], info["last_tick"], "{demo}");
        assert_eq!(stats["net_messages"], info["messages"], "{demo}");
        assert_eq!(stats["commands"], info["commands"], "{demo}");
        assert_eq!(stats["reached_stop"], info["reached_stop"], "{demo}");
        assert_eq!(stats["cut"], Value::Null, "{demo}");
        assert_eq!(
            stats["bytes"].as_u64(),
            Some(std::fs::metadata(&path)?.len()),
            "{demo}"
        );
        // User messages by name: `messages --list`.
        let out = gamewire(&["messages", demo, "--list"])?;
        assert!(out.status.success(), "{demo}");
        let mut listed = BTreeMap::new();
        for line in String::from_utf8(out.stdout)?.lines() {
            let (name, n) = line.split_once('\t').ok_or("no tab")?;
            listed.insert(name.to_string(), n.trim().parse::<u64>()?);
        }
        assert_eq!(counts(&stats["user_messages"])?, listed, "{demo}");
        // The text form: every section, the totals in the header.
        let out = gamewire(&["stats", demo])?;
        assert!(out.status.success(), "{demo}");
        let text = String::from_utf8(out.stdout)?;
        for section in [
            "\nclasses (",
            "\ngame events (",
            "\nuser messages (",
            "\nnet messages (",
            "\ndemo commands (",
            "\nstring tables (",
        ] {
            assert!(text.contains(section), "{demo}: {section}\n{text}");
        }
        let frames = format!("frames          {} ", stats["frames"]);
        assert!(text.contains(&frames), "{demo}\n{text}");
    }
    Ok(())
}

#[test]
fn stats_read_the_sample() -> TestResult {
    let stats = json_of(&["stats", "--sample", "--format", "json"])?;
    assert_eq!(stats["game"], "cs2");
    assert!(stats["entities"]["updated"].as_u64() > Some(0), "{stats}");
    assert!(counts(&stats["game_events"])?.contains_key("player_death"));
    let info = json_of(&["info", "--sample", "--format", "json"])?;
    assert_eq!(stats["ticks"]["last"], info["last_tick"]);
    Ok(())
}

#[test]
fn a_cut_demo_is_counted_up_to_the_cut_with_a_warning() -> TestResult {
    let data = std::fs::read(gamewire_corpus::path("cs2/14065.dem"))?;
    let dir = std::env::temp_dir().join(format!("gamewire-stats-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let cut = dir.join("cut.dem");
    std::fs::write(&cut, data.get(..data.len() / 2).ok_or("short")?)?;
    let cut_path = cut.to_str().ok_or("path")?;
    let out = gamewire(&["stats", cut_path, "--format", "json"])?;
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8(out.stderr)?;
    assert!(err.starts_with("warning: "), "{err}");
    let stats: Value = serde_json::from_slice(&out.stdout)?;
    assert!(stats["cut"].is_string(), "{stats}");
    assert_eq!(stats["reached_stop"], false);
    let whole = json_of(&[
        "stats",
        gamewire_corpus::path("cs2/14065.dem")
            .to_str()
            .ok_or("path")?,
        "--format",
        "json",
    ])?;
    assert!(stats["ticks"]["last"].as_i64() < whole["ticks"]["last"].as_i64());
    assert!(stats["ticks"]["count"].as_u64() > Some(0));
    // As every command: `--strict` makes the cut an error.
    let out = gamewire(&["--strict", "stats", cut_path])?;
    assert_eq!(out.status.code(), Some(1));
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

fn repo_root() -> Result<PathBuf, Box<dyn Error>> {
    Ok(Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()?)
}

/// demoparser2 (`list_game_events`, then `parse_event` of each) counts
/// the events by name, as a JSON object per demo.
const DEMOPARSER2_EVENTS: &str = r#"
import json, sys
from demoparser2 import DemoParser
p = DemoParser(sys.argv[1])
print(json.dumps({n: len(p.parse_event(n)) for n in p.list_game_events()}))
"#;

#[test]
fn game_event_counts_are_demoparser2s_on_the_cs2_corpus() -> TestResult {
    let python = repo_root()?.join("target/peers-venv/bin/python");
    if !python.is_file() {
        if std::env::var_os("CI").is_some() {
            return Err(format!(
                "no demoparser2 venv at {} (run `.ci/setup-demoparser2.sh start`)",
                python.display()
            )
            .into());
        }
        eprintln!("skipping: no demoparser2 venv at {}", python.display());
        return Ok(());
    }
    let mut compared = 0;
    for path in demos()? {
        if !path.to_string_lossy().contains("cs2") {
            continue;
        }
        let demo = path.to_str().ok_or("path")?;
        let out = Command::new(&python)
            .args(["-c", DEMOPARSER2_EVENTS, demo])
            .output()?;
        if !out.status.success() {
            // demoparser2 0.42 stops on 14011 and 14150_ag2
            // (`IllegalPathOp` in `parse_event`): nothing to compare.
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("IllegalPathOp"), "{demo}: {err}");
            continue;
        }
        // `server_cvar` is no game event: demoparser2 0.42 makes rows of
        // each `CNETMsg_SetConVar`'s convars, repeating earlier ones (n
        // convars give 1 + 2 + ... + n rows; scripts/compare_demoparser2.py
        // undoes that from the rows): its count is not the convars'.
        let mut theirs = counts(&serde_json::from_slice(&out.stdout)?)?;
        theirs.remove("server_cvar");
        let stats = json_of(&["stats", demo, "--format", "json"])?;
        let mut ours = counts(&stats["game_events"])?;
        ours.remove("server_cvar");
        assert_eq!(ours, theirs, "{demo}");
        compared += 1;
    }
    assert!(compared >= 3, "only {compared} demos compared");
    Ok(())
}
