//! The command line's shared rules, end to end on corpus demos: one
//! implementation per table (`events` is `table events`, `ticks` is `table
//! ticks`), one default format and `-o`'s extension, options a command does
//! not use, tick ranges and trimmed lists, the exit statuses (0 ok, 1 an
//! error, 2 bad usage; a cut demo, `--strict`, `batch --keep-going`), and a
//! closed pipe ending every command quietly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn corpus(rel: &str) -> String {
    gamewire_corpus::path(rel).to_str().unwrap().to_string()
}

fn gamewire(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .output()
        .unwrap()
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gamewire-policy-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A directory holding links to two corpus demos.
fn two_demo_dir(name: &str) -> PathBuf {
    let dir = tmp(name);
    for d in ["14011", "14065"] {
        std::os::unix::fs::symlink(
            gamewire_corpus::path(format!("cs2/{d}.dem")),
            dir.join(format!("{d}.dem")),
        )
        .unwrap();
    }
    dir
}

/// A copy of the start of a corpus demo: a demo cut short.
fn cut_demo(name: &str) -> PathBuf {
    let full = std::fs::read(gamewire_corpus::path("cs2/14065.dem")).unwrap();
    let path = tmp(name).join("cut.dem");
    std::fs::write(&path, &full[..280_000]).unwrap();
    path
}

#[test]
fn events_is_table_events_byte_for_byte() {
    let demo = corpus("cs2/14011.dem");
    let dir = two_demo_dir("events-same");
    let dir = dir.to_str().unwrap();
    for extra in [
        vec![],
        vec!["--format", "jsonl"],
        vec![
            "--name",
            "player_footstep,weapon_fire",
            "--props",
            "health",
            "--other",
            "total_rounds_played",
        ],
    ] {
        for input in [demo.as_str(), dir] {
            let mut a = vec!["events", input];
            a.extend(&extra);
            let mut b = vec!["table", "events", input];
            b.extend(&extra);
            let (a, b) = (gamewire(&a), gamewire(&b));
            assert_eq!(code(&a), 0, "{}", stderr(&a));
            assert!(a.stdout.len() > 500, "{extra:?}");
            assert!(
                a.stdout == b.stdout,
                "events and table events differ: {extra:?} {input}"
            );
        }
    }
    // The default is CSV, its header the events table's.
    let out = gamewire(&["events", &demo]);
    assert!(
        stdout(&out).starts_with("event_name,tick,"),
        "{}",
        &stdout(&out)[..80]
    );
    // With a directory every row names its demo first.
    let out = gamewire(&["events", dir, "--name", "server_cvar"]);
    let text = stdout(&out);
    assert!(text.starts_with("demo,event_name,tick"), "{text}");
    assert!(text.contains("\n14011,server_cvar,") && text.contains("\n14065,server_cvar,"));
}

#[test]
fn ticks_is_table_ticks_byte_for_byte() {
    let demo = corpus("cs2/14065.dem");
    let dir = two_demo_dir("ticks-same");
    let dir = dir.to_str().unwrap();
    for extra in [
        vec!["--props", "X,Y,health"],
        vec!["--props", "X, health ,team_name", "--format", "jsonl"],
        vec!["--props", "health", "--ticks", "100..200, 300"],
    ] {
        for input in [demo.as_str(), dir] {
            let mut a = vec!["ticks", input];
            a.extend(&extra);
            let mut b = vec!["table", "ticks", input];
            b.extend(&extra);
            let (a, b) = (gamewire(&a), gamewire(&b));
            assert_eq!(code(&a), 0, "{}", stderr(&a));
            assert!(a.stdout.len() > 500, "{extra:?}");
            assert!(
                a.stdout == b.stdout,
                "ticks and table ticks differ: {extra:?} {input}"
            );
        }
    }
    // Spaces in a list are trimmed: the columns are the names.
    let out = gamewire(&["ticks", &demo, "--props", "X, health"]);
    let header = stdout(&out).lines().next().unwrap().to_string();
    assert!(header.ends_with(",X,health"), "{header}");
    // A range is inclusive.
    let out = gamewire(&["ticks", &demo, "--props", "health", "--ticks", "100..200"]);
    let tick = header_index(&stdout(&out), "tick");
    let ticks: Vec<i64> = stdout(&out)
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(tick).unwrap().parse().unwrap())
        .collect();
    assert!(!ticks.is_empty() && ticks.iter().all(|t| (100..=200).contains(t)));
    assert!(ticks.contains(&100) || ticks.contains(&200) || ticks.len() > 50);
    // Parquet is the whole table; -o picks the format by its extension.
    let o = tmp("ticks-parquet").join("t.parquet");
    let out = gamewire(&[
        "ticks",
        &demo,
        "--props",
        "health",
        "-o",
        o.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(std::fs::read(&o).unwrap().starts_with(b"PAR1"));
}

fn header_index(csv: &str, column: &str) -> usize {
    csv.lines()
        .next()
        .unwrap()
        .split(',')
        .position(|c| c == column)
        .unwrap_or_else(|| panic!("no column {column}"))
}

#[test]
fn the_output_file_extension_picks_the_format() {
    let demo = corpus("cs2/14011.dem");
    let dir = tmp("extension");
    let csv = gamewire(&["table", "players", &demo]).stdout;
    let jsonl = gamewire(&["table", "players", &demo, "--format", "jsonl"]).stdout;
    assert!(csv.len() > 100 && jsonl.starts_with(b"{\""));
    for (name, expected) in [
        ("p.jsonl", Some(&jsonl)),
        ("p.ndjson", Some(&jsonl)),
        ("p.csv", Some(&csv)),
        ("p.parquet", None),
    ] {
        let path = dir.join(name);
        let out = gamewire(&["table", "players", &demo, "-o", path.to_str().unwrap()]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let bytes = std::fs::read(&path).unwrap();
        match expected {
            Some(e) => assert!(bytes == *e, "{name}"),
            None => assert!(bytes.starts_with(b"PAR1"), "{name}"),
        }
    }
    // --format wins over the extension; an extension that names no format
    // needs --format.
    let path = dir.join("p.parquet");
    let out = gamewire(&[
        "table",
        "players",
        &demo,
        "-o",
        path.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert_eq!(code(&out), 0);
    assert!(std::fs::read(&path).unwrap() == csv);
    let path = dir.join("p.txt");
    let out = gamewire(&["table", "players", &demo, "-o", path.to_str().unwrap()]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("--format"), "{}", stderr(&out));
}

#[test]
fn every_row_command_writes_csv_by_default() {
    let demo = corpus("cs2/14065.dem");
    let out = gamewire(&["messages", &demo, "--name", "UmSayText2"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).starts_with("tick,id,message,kind,data\n"));
    let dir = tmp("batch-default");
    let out_dir = dir.join("out");
    let out = gamewire(&["batch", &demo, "--out", out_dir.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(out_dir.join("kills/14065.csv").is_file());
    let messages = dir.join("m.parquet");
    let out = gamewire(&["messages", &demo, "-o", messages.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(std::fs::read(&messages).unwrap().starts_with(b"PAR1"));
}

#[test]
fn options_a_table_does_not_use_are_usage_errors() {
    let demo = corpus("cs2/14065.dem");
    for args in [
        vec!["table", "kills", &demo, "--props", "X"],
        vec!["table", "kills", &demo, "--ticks", "5"],
        vec!["table", "kills", &demo, "--name", "foo"],
        vec!["table", "events", &demo, "--ticks", "5"],
        vec!["events", &demo, "--players", "1"],
        vec!["ticks", &demo, "--props", "X", "--other", "game_time"],
        vec!["table", "rounds", &demo, "--grenade-props", "m_nBounces"],
    ] {
        let out = gamewire(&args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("not used"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(out.stdout.is_empty());
    }
    // The ticks table needs its props, in both spellings.
    for args in [vec!["ticks", &demo], vec!["table", "ticks", &demo]] {
        let out = gamewire(&args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("--props"), "{}", stderr(&out));
    }
    // Malformed lists.
    for args in [
        vec!["ticks", &demo, "--props", "X", "--ticks", "1..x"],
        vec!["ticks", &demo, "--props", "X", "--players", "bot"],
    ] {
        let out = gamewire(&args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn unknown_names_are_usage_errors() {
    let demo = corpus("cs2/14065.dem");
    let dl = corpus("deadlock/hltv_10423.dem");
    for args in [
        vec!["table", "kils", &demo],
        vec!["ticks", &demo, "--props", "helth"],
        vec!["ticks", &dl, "--props", "balance,zzz"],
        vec!["events", &demo, "--name", "player_hurtt"],
        vec!["schema", &demo, "--class", "CCSPlayerPawnn"],
        vec!["messages", &demo, "--name", "UmSayText3"],
    ] {
        let out = gamewire(&args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("closest"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_tick_after_the_end_is_a_usage_error_naming_the_last_tick() {
    let demo = corpus("cs2/14065.dem");
    for args in [
        vec!["ticks", &demo, "--props", "X", "--ticks", "999999"],
        vec![
            "table", "ticks", &demo, "--props", "X", "--ticks", "999999", "--format", "parquet",
        ],
    ] {
        let out = gamewire(&args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("last tick"), "{}", stderr(&out));
    }
    let out = gamewire(&["entities", &demo, "--tick", "999999"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("last tick"), "{}", stderr(&out));
}

#[test]
fn a_cut_demo_exits_0_with_a_warning_unless_strict() {
    let cut = cut_demo("cut");
    let cut = cut.to_str().unwrap();
    for args in [
        vec!["info", cut],
        vec!["ticks", cut, "--props", "health"],
        vec!["events", cut],
        vec!["table", "kills", cut],
        vec!["messages", cut],
    ] {
        let out = gamewire(&args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).starts_with("warning: "),
            "{args:?}: {}",
            stderr(&out)
        );
        let mut strict = args.clone();
        strict.push("--strict");
        let out = gamewire(&strict);
        assert_eq!(code(&out), 1, "{strict:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("--strict"), "{}", stderr(&out));
    }
}

#[test]
fn a_bad_demo_among_several_exits_1() {
    let dir = two_demo_dir("bad-among");
    std::fs::write(dir.join("zz_bad.dem"), b"not a demo at all").unwrap();
    let d = dir.to_str().unwrap();
    for args in [
        vec!["events", d, "--name", "player_spawn"],
        vec!["ticks", d, "--props", "health"],
        vec!["table", "players", d],
    ] {
        let out = gamewire(&args);
        assert_eq!(code(&out), 1, "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains("zz_bad.dem"), "{}", stderr(&out));
        // The good demos are written.
        assert!(stdout(&out).contains("\n14011,"), "{args:?}");
    }
    // batch: 1 when a demo failed, unless --keep-going.
    let out_dir = tmp("bad-among-out");
    let o = out_dir.to_str().unwrap();
    let out = gamewire(&["batch", d, "--out", o, "--overwrite"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let out = gamewire(&["batch", d, "--out", o, "--overwrite", "--keep-going"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(out_dir.join("kills/14011.csv").is_file());
}

#[test]
fn batch_refuses_a_used_out_unless_overwrite_or_resume() {
    let demo = corpus("cs2/14065.dem");
    let dir = two_demo_dir("batch-out");
    let out_dir = tmp("batch-out-dir");
    let o = out_dir.to_str().unwrap();
    let d = dir.to_str().unwrap();
    let out = gamewire(&["batch", &demo, "--out", o, "--tables", "kills,damages"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // Again into the same directory: refused, nothing touched.
    let out = gamewire(&["batch", &demo, "--out", o, "--tables", "rounds"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("--overwrite"), "{}", stderr(&out));
    assert!(!out_dir.join("rounds").exists());
    // --overwrite: the old tables go.
    let out = gamewire(&[
        "batch",
        &demo,
        "--out",
        o,
        "--tables",
        "rounds",
        "--overwrite",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(out_dir.join("rounds/14065.csv").is_file());
    assert!(!out_dir.join("kills").exists() && !out_dir.join("damages").exists());
    // --resume: the demo already written is skipped, the new one written.
    let before = std::fs::metadata(out_dir.join("rounds/14065.csv"))
        .unwrap()
        .modified()
        .unwrap();
    let out = gamewire(&["batch", d, "--out", o, "--tables", "rounds", "--resume"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("1 already written"),
        "{}",
        stderr(&out)
    );
    assert!(out_dir.join("rounds/14011.csv").is_file());
    let after = std::fs::metadata(out_dir.join("rounds/14065.csv"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after);
    // No partial file is left behind.
    for e in std::fs::read_dir(out_dir.join("rounds")).unwrap() {
        let name = e.unwrap().file_name();
        assert!(!name.to_str().unwrap().contains("partial"), "{name:?}");
    }
}

/// Runs gamewire with its standard output piped into `head -c 100`, which
/// closes the pipe after 100 bytes: the command must end quietly with 0.
fn into_head(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pipe = child.stdout.take().unwrap();
    let head = Command::new("head")
        .args(["-c", "100"])
        .stdin(Stdio::from(pipe))
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(head.stdout.len(), 100, "{args:?}: less than 100 bytes");
    let out = child.wait_with_output().unwrap();
    (out.status.code(), stderr(&out))
}

#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    let demo = corpus("cs2/14011.dem");
    let dir = two_demo_dir("pipe");
    let d = dir.to_str().unwrap();
    for args in [
        vec!["messages", &demo],
        vec!["messages", &demo, "--format", "jsonl"],
        vec!["entities", &demo, "--tick", "300"],
        vec!["schema", &demo],
        vec!["events", d],
        vec!["events", &demo, "--format", "jsonl"],
        vec!["ticks", &demo, "--props", "X,Y,Z,health"],
        vec!["ticks", d, "--props", "X,Y,Z,health"],
        vec!["table", "user_commands", &demo],
        vec!["table", "kills", d],
        vec!["info", &demo],
        vec!["info", &demo, "--format", "json"],
    ] {
        let (status, err) = into_head(&args);
        assert_eq!(status, Some(0), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}

#[test]
fn help_documents_the_exit_statuses() {
    let out = gamewire(&["--help"]);
    let text = stdout(&out);
    assert!(text.contains("Exit status:"), "{text}");
    assert!(text.contains("2  bad usage"), "{text}");
    assert!(text.contains("--strict"), "{text}");
}

#[test]
fn table_reads_several_demos_and_folders() {
    let dir = two_demo_dir("table-many");
    let out = gamewire(&["table", "players", dir.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("demo,"), "{text}");
    let demos: std::collections::BTreeSet<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(demos.into_iter().collect::<Vec<_>>(), ["14011", "14065"]);
}

#[test]
fn props_lists_what_a_demo_offers_in_every_game() {
    for (demo, friendly, raw) in [
        ("cs2/14065.dem", "health", "m_iHealth"),
        ("deadlock/hltv_10423.dem", "health", "m_iHealth"),
    ] {
        let out = gamewire(&["props", &corpus(demo)]);
        assert_eq!(code(&out), 0, "{demo}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.starts_with("name,source,class,path,type\n"), "{demo}");
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("{friendly},friendly,"))),
            "{demo}"
        );
        assert!(
            text.lines().any(|l| l.contains(",raw,") && l.contains(raw)),
            "{demo}"
        );
        // Every name it lists is accepted by `ticks`.
        let name = text.lines().nth(1).unwrap().split(',').next().unwrap();
        let out = gamewire(&["ticks", &corpus(demo), "--props", name]);
        assert_eq!(code(&out), 0, "{demo} {name}: {}", stderr(&out));
    }
    let dota = gamewire(&["props", &corpus_first("dota2"), "--format", "jsonl"]);
    assert_eq!(code(&dota), 0, "{}", stderr(&dota));
    let first: serde_json::Value =
        serde_json::from_str(stdout(&dota).lines().next().unwrap()).unwrap();
    assert!(
        first["name"].is_string() && first["source"].is_string(),
        "{first}"
    );
    // One class.
    let demo = corpus("cs2/14065.dem");
    let out = gamewire(&["props", &demo, "--class", "CCSPlayerPawn"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out)
        .lines()
        .skip(1)
        .all(|l| l.split(',').nth(2) == Some("CCSPlayerPawn")));
    // An unknown class: bad usage, the closest names.
    let out = gamewire(&["props", &demo, "--class", "CCSPlayerPawnn"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("CCSPlayerPawn"), "{}", stderr(&out));
    assert!(stderr(&out).len() < 400, "{}", stderr(&out));
}

/// The first `.dem` of a corpus folder.
fn corpus_first(game: &str) -> String {
    let mut demos: Vec<PathBuf> = std::fs::read_dir(gamewire_corpus::path(game))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dem"))
        .collect();
    demos.sort();
    demos[0].to_str().unwrap().to_string()
}

#[test]
fn ticks_have_a_row_per_player_slot_bots_included() {
    // 14011 is a match of one human and bots.
    let demo = corpus("cs2/14011.dem");
    let slots = |args: &[&str]| -> std::collections::BTreeSet<String> {
        let out = gamewire(args);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let text = stdout(&out);
        let slot = header_index(&text, "slot");
        text.lines()
            .skip(1)
            .map(|l| l.split(',').nth(slot).unwrap().to_string())
            .collect()
    };
    assert_eq!(slots(&["ticks", &demo, "--props", "health"]).len(), 10);
    let humans = slots(&["ticks", &demo, "--props", "health", "--humans-only"]);
    assert!(!humans.is_empty() && humans.len() < 10, "{humans:?}");
}
