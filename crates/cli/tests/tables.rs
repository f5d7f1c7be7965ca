//! End-to-end tests of `gamewire table` and `gamewire batch`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    gamewire_corpus::root()
}

fn gamewire(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gamewire-cli-tables-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `.dem` files and broadcast directories (a `sync.json` and fragments).
fn count_demos(dir: &Path) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.join("sync.json").is_file() {
            n += 1;
        } else if p.is_dir() {
            n += count_demos(&p);
        } else if p.extension().is_some_and(|x| x == "dem") {
            n += 1;
        }
    }
    n
}

#[test]
fn table_damages_csv_and_jsonl() {
    let demo = corpus().join("cs2/14011.dem");
    let (ok, out, err) = gamewire(&["table", "damages", demo.to_str().unwrap()]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[0].starts_with("tick,attacker_name,attacker_steamid"));
    assert_eq!(
        lines[1],
        "305,Greymouth,0,2,2,Dashen,0,4,3,galilar,galilar,22,3,78,97,chest"
    );

    let (ok, out, err) = gamewire(&[
        "table",
        "events",
        demo.to_str().unwrap(),
        "--format",
        "jsonl",
        "--name",
        "player_hurt",
        "--props",
        "health,team_num",
        "--other",
        "total_rounds_played",
    ]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 3);
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["event_name"], "player_hurt");
        // Bots (steam id 0: 14011 is a bot match) get their player
        // columns, read from their slot's controller.
        assert!(v["attacker_health"].is_i64(), "{line}");
        assert!(v["user_team_num"].is_i64(), "{line}");
        assert!(v["user_name"].is_string(), "{line}");
        assert!(v["dmg_health"].is_i64(), "{line}");
        assert_eq!(v["total_rounds_played"], 0);
    }
}

#[test]
fn table_parquet_to_file() {
    let dir = tmp("parquet");
    let file = dir.join("ticks.parquet");
    let demo = corpus().join("cs2/14065.dem");
    let (ok, _, err) = gamewire(&[
        "table",
        "ticks",
        demo.to_str().unwrap(),
        "--props",
        "X,Y,Z,health,yaw",
        "--format",
        "parquet",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let bytes = std::fs::read(&file).unwrap();
    assert!(bytes.len() > 100);
    assert_eq!(&bytes[..4], b"PAR1");
    assert_eq!(&bytes[bytes.len() - 4..], b"PAR1");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn table_errors_name_the_closest() {
    let demo = corpus().join("cs2/14065.dem");
    let d = demo.to_str().unwrap();
    let (ok, _, err) = gamewire(&["table", "kils", d]);
    assert!(!ok);
    assert!(err.contains("closest: kills"), "{err}");
    let (ok, _, err) = gamewire(&["table", "ticks", d, "--props", "helth"]);
    assert!(!ok);
    assert!(err.contains("closest: health"), "{err}");
    let (ok, _, err) = gamewire(&["table", "events", d, "--name", "round_frezze_end"]);
    assert!(!ok);
    assert!(err.contains("closest: round_freeze_end"), "{err}");
    let (ok, _, err) = gamewire(&["table", "events", d, "--other", "is_bomb_plantd"]);
    assert!(!ok);
    assert!(err.contains("closest: is_bomb_planted"), "{err}");
    let (ok, _, err) = gamewire(&["table", "kills", "/nonexistent/x.dem"]);
    assert!(!ok);
    assert!(err.contains("cannot read /nonexistent/x.dem"), "{err}");
}

/// A demo that is not a demo fails alone (`--keep-going`: the exit status
/// stays 0); a truncated demo keeps its tables up to the cut, with a
/// warning.
#[test]
fn batch_skips_bad_demos() {
    let dir = tmp("batch");
    let data = std::fs::read(corpus().join("cs2/14065.dem")).unwrap();
    let truncated = dir.join("truncated.dem");
    std::fs::write(&truncated, &data[..data.len() / 3]).unwrap();
    let garbage = dir.join("garbage.dem");
    std::fs::write(&garbage, b"this is not a demo").unwrap();
    let out = dir.join("out");
    let (ok, stdout, err) = gamewire(&[
        "batch",
        corpus().to_str().unwrap(),
        truncated.to_str().unwrap(),
        garbage.to_str().unwrap(),
        "--tables",
        "kills,rounds,damages,players",
        "--out",
        out.to_str().unwrap(),
        "--format",
        "jsonl",
        "-j",
        "2",
        "--keep-going",
    ]);
    assert!(ok, "{err}");
    assert!(stdout.is_empty());
    let n = count_demos(&corpus());
    assert!(
        err.contains(&format!("{} demos ok (1 cut short), 1 failed", n + 1)),
        "{err}"
    );
    assert!(err.contains("MB/s"), "{err}");
    assert!(
        err.contains("warning: ")
            && err.contains("truncated.dem: the demo is truncated")
            && err.contains("the output holds everything before the cut"),
        "{err}"
    );
    assert_eq!(err.matches("skipped ").count(), 1, "{err}");
    assert!(err.contains("garbage.dem: not a Source 2 demo"), "{err}");
    // Piped: no progress bar drawn.
    assert!(!err.contains('\u{1b}'), "{err:?}");
    for table in ["kills", "rounds", "damages", "players"] {
        let files: Vec<PathBuf> = std::fs::read_dir(out.join(table))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(files.len(), n + 1, "{table}");
    }
    // The cut demo (cut in its signon) names the same players as the whole
    // demo; their entity columns are null, as nothing after the cut is known.
    let rows = |name: &str| -> Vec<serde_json::Value> {
        std::fs::read_to_string(out.join(format!("players/{name}.jsonl")))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let (cut_rows, whole_rows) = (rows("truncated"), rows("14065"));
    assert_eq!(cut_rows.len(), whole_rows.len());
    assert!(!cut_rows.is_empty());
    for (c, w) in cut_rows.iter().zip(&whole_rows) {
        assert_eq!(c["demo"], "truncated");
        for key in [
            "slot",
            "userid",
            "name",
            "steamid",
            "fake_player",
            "is_hltv",
        ] {
            assert_eq!(c[key], w[key], "{key}");
        }
        assert!(c["team"].is_null() && !w["team"].is_null());
    }
    // Every row names its demo.
    let damages = std::fs::read_to_string(out.join("damages/14011.jsonl")).unwrap();
    assert_eq!(damages.lines().count(), 3);
    for line in damages.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["demo"], "14011");
    }
    let players = std::fs::read_to_string(out.join("players/14065.jsonl")).unwrap();
    assert!(players
        .lines()
        .all(|l| l.starts_with("{\"demo\":\"14065\"")));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Broadcast directories are demos to `batch`: found inside a directory or
/// named directly, each gives one dataset file per table; a demo with a
/// cut fragment keeps its tables up to the cut, with a warning.
#[test]
fn batch_reads_broadcast_directories() {
    let dir = tmp("batch-broadcast");
    let broadcasts = corpus().join("deadlock/broadcast");
    let street = broadcasts.join("street_test_60tps");
    // A copy of one capture whose last delta fragment is cut in half.
    let cut = dir.join("cut_capture");
    std::fs::create_dir_all(&cut).unwrap();
    let mut fragments: Vec<PathBuf> = std::fs::read_dir(&street)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    fragments.sort();
    for p in &fragments {
        let to = cut.join(p.file_name().unwrap());
        if p.is_dir() {
            std::fs::create_dir_all(&to).unwrap();
            for f in std::fs::read_dir(p).unwrap() {
                let f = f.unwrap().path();
                std::fs::copy(&f, to.join(f.file_name().unwrap())).unwrap();
            }
        } else {
            std::fs::copy(p, &to).unwrap();
        }
    }
    let mut deltas: Vec<PathBuf> = std::fs::read_dir(&cut)
        .unwrap()
        .map(|e| e.unwrap().path().join("delta.bin"))
        .filter(|p| p.is_file())
        .collect();
    deltas.sort_by_key(|p| {
        p.parent()
            .and_then(|d| d.file_name())
            .and_then(|n| n.to_str())
            .and_then(|n| n.parse::<u64>().ok())
    });
    let last = deltas.last().unwrap();
    let bytes = std::fs::read(last).unwrap();
    std::fs::write(last, &bytes[..bytes.len() / 2]).unwrap();

    let out = dir.join("out");
    let (ok, _, err) = gamewire(&[
        "batch",
        broadcasts.to_str().unwrap(),
        cut.to_str().unwrap(),
        "--tables",
        "rounds,players",
        "--out",
        out.to_str().unwrap(),
        "--format",
        "jsonl",
    ]);
    assert!(ok, "{err}");
    assert!(err.contains("3 demos ok (1 cut short), 0 failed"), "{err}");
    assert!(
        err.contains("warning: ") && err.contains("cut_capture: "),
        "{err}"
    );
    let mut names: Vec<String> = std::fs::read_dir(out.join("players"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "cut_capture.jsonl",
            "dl_midtown_2025-02-27.jsonl",
            "street_test_60tps.jsonl"
        ]
    );
    // Up to the cut, the cut capture's rounds are the whole capture's.
    let whole = std::fs::read_to_string(out.join("rounds/street_test_60tps.jsonl")).unwrap();
    let cut_rounds = std::fs::read_to_string(out.join("rounds/cut_capture.jsonl")).unwrap();
    let cut_rounds =
        cut_rounds.replace("\"demo\":\"cut_capture\"", "\"demo\":\"street_test_60tps\"");
    assert!(whole.starts_with(&cut_rounds), "{cut_rounds}\n---\n{whole}");
    std::fs::remove_dir_all(&dir).unwrap();
}
