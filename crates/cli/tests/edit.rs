//! End-to-end tests of `gamewire rewrite`, `cut`, `anonymize`, `loop` and `batch
//! --anonymize` on the corpus demos: the written demo read back by the
//! table commands, compared with the input's tables.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every table the `table` command knows (`gamewire table --help`).
const TABLES: &str = "events,ticks,players,chat,grenades,rounds,kills,damages,purchases,user_commands,shots,bomb,smokes,infernos,flashes,footsteps,item_drops,skins,combat_log,updated_fields,header";

struct Run {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

fn gamewire(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .output()
        .unwrap();
    Run {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs and expects exit status 0.
fn ok(args: &[&str]) -> Run {
    let r = gamewire(args);
    assert_eq!(r.code, Some(0), "gamewire {args:?}: {}", r.stderr);
    r
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gamewire-cli-edit-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The entries of a directory, sorted by name.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The last tick of a demo (`gamewire info`).
fn last_tick(demo: &Path) -> i64 {
    let r = ok(&["info", s(demo), "--format", "json"]);
    let j: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
    j["last_tick"].as_i64().unwrap()
}

/// The CSV lines of a table whose `tick` column lies in `range` (the
/// header line first).
fn rows_in(csv: &[u8], range: std::ops::RangeInclusive<i64>) -> Vec<String> {
    let text = String::from_utf8(csv.to_vec()).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default().to_string();
    let col = header
        .split(',')
        .position(|c| c == "tick")
        .unwrap_or_else(|| panic!("no tick column in {header}"));
    let mut out = vec![header];
    out.extend(
        lines
            .filter(|l| {
                l.split(',')
                    .nth(col)
                    .and_then(|t| t.parse::<i64>().ok())
                    .is_some_and(|t| range.contains(&t))
            })
            .map(String::from),
    );
    out
}

/// The rows of an `events` JSON Lines output, each without its null keys.
fn events_in(jsonl: &[u8]) -> Vec<serde_json::Map<String, serde_json::Value>> {
    String::from_utf8(jsonl.to_vec())
        .unwrap()
        .lines()
        .map(|l| {
            let mut row: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(l).unwrap();
            row.retain(|_, v| !v.is_null());
            row
        })
        .collect()
}

/// The player props `ticks` is asked for, per game.
fn tick_props(demo: &Path) -> &'static str {
    let d = s(demo);
    if d.contains("/cs2/") {
        "X,Y,Z,health,yaw,pitch,team_num,balance,active_weapon_name"
    } else {
        "X,Y,Z,health,team_num"
    }
}

#[test]
fn a_cut_holds_the_ticks_and_events_of_its_range() {
    let dir = tmp("cut");
    for demo in gamewire_corpus::source2_demos().unwrap() {
        let last = last_tick(&demo);
        let (a, b) = (last / 3, 2 * last / 3);
        let out = dir.join(demo.file_name().unwrap());
        let r = ok(&[
            "cut",
            s(&demo),
            s(&out),
            "--from-tick",
            &a.to_string(),
            "--to-tick",
            &b.to_string(),
        ]);
        assert!(
            r.stderr
                .contains(&format!("cut: wrote {}: ", out.display()))
                && r.stderr.contains(&format!("ticks {a}..={b} kept")),
            "{}",
            r.stderr
        );
        let props = tick_props(&demo);
        let ticks = |d: &Path| ok(&["ticks", s(d), "--props", props]).stdout;
        let (want, got) = (ticks(&demo), ticks(&out));
        // Ticks A to B, row for row (the cut's full packet makes no rows).
        let (want_in, got_in) = (rows_in(&want, a..=b), rows_in(&got, a..=b));
        assert!(
            want_in.len() > 1 && rows_in(&want, a..=a).len() > 1,
            "{}: no row in {a}..={b}",
            demo.display()
        );
        assert!(
            want_in == got_in,
            "{}: ticks differ in {a}..={b}",
            demo.display()
        );
        // The events table's columns are the keys of the events the demo
        // holds: compare the rows of the range without their null keys.
        let events = |d: &Path| events_in(&ok(&["events", s(d), "--format", "jsonl"]).stdout);
        let (want, got) = (events(&demo), events(&out));
        let range = |rows: &[serde_json::Map<String, serde_json::Value>],
                     r: std::ops::RangeInclusive<i64>| {
            rows.iter()
                .filter(|row| row["tick"].as_i64().is_some_and(|t| r.contains(&t)))
                .cloned()
                .collect::<Vec<_>>()
        };
        assert!(
            range(&want, a..=b) == range(&got, a..=b),
            "{}: events differ in {a}..={b}",
            demo.display(),
        );
        // Nothing after B.
        assert!(range(&got, b + 1..=i64::MAX).is_empty());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_rewrite_gives_the_same_tables() {
    let dir = tmp("rewrite");
    for demo in gamewire_corpus::source2_demos().unwrap() {
        let name = demo.file_name().unwrap();
        let out = dir.join("out").join(name);
        std::fs::create_dir_all(out.parent().unwrap()).unwrap();
        let r = ok(&["rewrite", s(&demo), s(&out)]);
        assert!(r.stderr.contains("rewrite: wrote "), "{}", r.stderr);
        // Every table of both, named alike (the `demo` column).
        let props = tick_props(&demo);
        let tables = |input: &Path, to: &Path| {
            ok(&[
                "batch",
                s(input),
                "--tables",
                TABLES,
                "--props",
                props,
                "--out",
                s(to),
                "-j",
                "1",
            ]);
        };
        let (a, b) = (dir.join("tables-in"), dir.join("tables-out"));
        tables(&demo, &a);
        tables(&out, &b);
        for table in TABLES.split(',') {
            for file in listing(&a.join(table)) {
                let want = std::fs::read(a.join(table).join(&file)).unwrap();
                let got = std::fs::read(b.join(table).join(&file)).unwrap();
                assert!(
                    want == got,
                    "{}: table {table} differs after rewrite",
                    demo.display()
                );
            }
        }
        std::fs::remove_dir_all(&a).unwrap();
        std::fs::remove_dir_all(&b).unwrap();
        // `ticks` and `events` as their commands print them.
        for args in [vec!["ticks", "--props", props], vec!["events"]] {
            let run = |d: &Path| {
                let mut all = vec![args[0], s(d)];
                all.extend(&args[1..]);
                ok(&all).stdout
            };
            assert!(
                run(&demo) == run(&out),
                "{}: {} differs after rewrite",
                demo.display(),
                args[0]
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A compressed demo is decompressed by the input stage: its rewrite is
/// the plain demo's, byte for byte.
#[test]
fn a_compressed_demo_is_edited_as_the_plain_one() {
    let dir = tmp("compressed");
    let demo = gamewire_corpus::path("cs2/14065.dem");
    let data = std::fs::read(&demo).unwrap();
    let gz = dir.join("14065.dem.gz");
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(&data).unwrap();
    std::fs::write(&gz, e.finish().unwrap()).unwrap();
    for args in [
        vec!["rewrite"],
        vec!["cut", "--from-tick", "40", "--to-tick", "120"],
        vec!["anonymize", "--key", "k"],
    ] {
        let (plain, packed) = (dir.join("plain.dem"), dir.join("packed.dem"));
        for (input, out) in [(&demo, &plain), (&gz, &packed)] {
            let mut all = vec![args[0], s(input), s(out)];
            all.extend(&args[1..]);
            ok(&all);
        }
        assert!(
            std::fs::read(&plain).unwrap() == std::fs::read(&packed).unwrap(),
            "{}: the gzip input gave another demo",
            args[0]
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The `players` table's `name` and `steamid` columns of a demo, the
/// players only (not the recorder, `is_hltv`: a server's own client, which
/// identifies no one).
fn players(demo: &Path) -> Vec<(String, String)> {
    let r = ok(&["table", "players", s(demo), "--format", "jsonl"]);
    String::from_utf8(r.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["is_hltv"] != true)
        .map(|v| (v["name"].to_string(), v["steamid"].to_string()))
        .collect()
}

#[test]
fn anonymize_shows_pseudonyms_in_the_players_table() {
    let dir = tmp("anonymize");
    for demo in gamewire_corpus::source2_demos().unwrap() {
        let before = players(&demo);
        assert!(!before.is_empty(), "{}", demo.display());
        let (one, two, other) = (dir.join("1.dem"), dir.join("2.dem"), dir.join("3.dem"));
        let r = ok(&["anonymize", s(&demo), s(&one), "--key", "a key"]);
        assert!(r.stderr.contains("anonymize: wrote "), "{}", r.stderr);
        assert!(!r.stderr.contains("random key"), "{}", r.stderr);
        ok(&["anonymize", s(&demo), s(&two), "--key", "a key"]);
        let r = ok(&["anonymize", s(&demo), s(&other)]);
        assert!(
            r.stderr.contains("a random key was drawn for this run"),
            "{}",
            r.stderr
        );
        let after = players(&one);
        assert_eq!(after.len(), before.len(), "{}", demo.display());
        for ((name, id), (new_name, new_id)) in before.iter().zip(&after) {
            assert_ne!(name, new_name, "{}: a name stayed", demo.display());
            assert!(
                !after.iter().any(|(n, _)| n == name),
                "{}: {name} is still in the players table",
                demo.display()
            );
            if id != "null" && id != "0" && id != "\"0\"" {
                assert_ne!(id, new_id, "{}: a steam id stayed", demo.display());
            }
        }
        // The same key: the same pseudonyms; a random key: others.
        assert_eq!(players(&two), after);
        assert_ne!(players(&other), after);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn batch_anonymize_writes_one_demo_each_and_follows_the_batch_rules() {
    let dir = tmp("batch");
    let inputs = dir.join("in");
    std::fs::create_dir_all(&inputs).unwrap();
    for rel in ["cs2/14065.dem", "cs2/14155.dem"] {
        let p = gamewire_corpus::path(rel);
        std::fs::copy(&p, inputs.join(p.file_name().unwrap())).unwrap();
    }
    let out = dir.join("out");
    let batch = |extra: &[&str]| {
        let mut args = vec!["batch", s(&inputs), "--anonymize", s(&out), "--key", "k"];
        args.extend(extra);
        gamewire(&args)
    };
    let r = batch(&["-j", "2"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("2 demos anonymized (0 cut short), 0 failed"),
        "{}",
        r.stderr
    );
    assert_eq!(listing(&out), ["14065.dem", "14155.dem"]);
    // The same pseudonyms as `anonymize` with the same key.
    let single = dir.join("single.dem");
    ok(&[
        "anonymize",
        s(&inputs.join("14065.dem")),
        s(&single),
        "--key",
        "k",
    ]);
    assert_eq!(players(&out.join("14065.dem")), players(&single));
    // A second run: refused, resumed, or overwritten.
    let r = batch(&[]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(r.stderr.contains("is not empty"), "{}", r.stderr);
    let r = batch(&["--resume"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stderr.contains("2 already written"), "{}", r.stderr);
    let r = batch(&["--overwrite"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stderr.contains("2 demos anonymized"), "{}", r.stderr);
    // A bad demo among them: exit 1, or 0 with --keep-going; no file for it.
    std::fs::write(inputs.join("bad.dem"), b"not a demo at all").unwrap();
    let r = batch(&["--overwrite"]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stderr.contains("bad.dem: not a Source 2 demo"),
        "{}",
        r.stderr
    );
    let r = batch(&["--overwrite", "--keep-going"]);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert_eq!(listing(&out), ["14065.dem", "14155.dem"]);
    // Table options do not go with --anonymize.
    let r = batch(&["--tables", "kills"]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_inputs_and_outputs_exit_with_their_status_and_leave_no_file() {
    let dir = tmp("errors");
    let demo = gamewire_corpus::path("cs2/14065.dem");
    let out = dir.join("out.dem");
    let o = s(&out);
    // A missing input, a file that is not a demo: exit 1.
    let r = gamewire(&["rewrite", s(&dir.join("missing.dem")), o]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.starts_with("error: cannot read "), "{}", r.stderr);
    let junk = dir.join("junk.dem");
    std::fs::write(&junk, b"this is not a demo file").unwrap();
    for cmd in [
        vec!["rewrite", s(&junk), o],
        vec!["cut", s(&junk), o, "--from-tick", "1", "--to-tick", "2"],
        vec!["anonymize", s(&junk), o, "--key", "k"],
    ] {
        let r = gamewire(&cmd);
        assert_eq!(r.code, Some(1), "{cmd:?}: {}", r.stderr);
        assert!(r.stderr.contains("not a Source 2 demo"), "{}", r.stderr);
    }
    // An output folder that does not exist: exit 1.
    let r = gamewire(&["rewrite", s(&demo), s(&dir.join("no/such/dir/out.dem"))]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    // Standard output or a directory: bad usage.
    for bad in ["-", s(&dir)] {
        let r = gamewire(&["rewrite", s(&demo), bad]);
        assert_eq!(r.code, Some(2), "{bad}: {}", r.stderr);
        assert!(r.stderr.contains("cannot write a demo to"), "{}", r.stderr);
    }
    // Ranges that are not: bad usage.
    for range in [
        vec!["--from-tick", "100", "--to-tick", "50"],
        vec!["--from-tick", "100"],
        vec!["--round", "0"],
        vec!["--round", "1", "--from-tick", "5", "--to-tick", "6"],
        vec![],
    ] {
        let mut args = vec!["cut", s(&demo), o];
        args.extend(&range);
        let r = gamewire(&args);
        assert_eq!(r.code, Some(2), "{range:?}: {}", r.stderr);
    }
    // Nothing was left behind: no output, no temporary file.
    assert_eq!(listing(&dir), ["junk.dem"]);
    // An existing output is only replaced by a complete demo.
    std::fs::write(&out, b"an earlier file").unwrap();
    let r = gamewire(&["rewrite", s(&junk), o]);
    assert_eq!(r.code, Some(1));
    assert_eq!(std::fs::read(&out).unwrap(), b"an earlier file");
    ok(&["rewrite", s(&demo), o]);
    assert!(std::fs::read(&out).unwrap().starts_with(b"PBDEMS2\0"));
    assert_eq!(listing(&dir), ["junk.dem", "out.dem"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// 14065 starts inside its round 1 and ends in it: the `rounds` table has
/// its freeze end (tick 142) and nothing after, so the round runs from
/// there to the demo's last tick.
#[test]
fn a_cut_by_round_is_the_cut_of_the_rounds_ticks() {
    let dir = tmp("round");
    let demo = gamewire_corpus::path("cs2/14065.dem");
    let rounds = ok(&["table", "rounds", s(&demo)]).stdout;
    assert_eq!(
        String::from_utf8(rounds).unwrap(),
        "round,start_tick,freeze_end_tick,end_tick,official_end_tick,winner_team,winner_side,reason,reason_name,message\n1,,142,,,,,,,\n"
    );
    let last = last_tick(&demo);
    let (by_round, by_ticks) = (dir.join("round.dem"), dir.join("ticks.dem"));
    let r = ok(&["cut", s(&demo), s(&by_round), "--round", "1"]);
    assert!(
        r.stderr.contains(&format!("ticks 142..={last} kept")),
        "{}",
        r.stderr
    );
    ok(&[
        "cut",
        s(&demo),
        s(&by_ticks),
        "--from-tick",
        "142",
        "--to-tick",
        &last.to_string(),
    ]);
    assert!(std::fs::read(&by_round).unwrap() == std::fs::read(&by_ticks).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cut_by_round_needs_a_round_the_demo_has() {
    let dir = tmp("no-round");
    let out = dir.join("out.dem");
    // A CS2 clip without any round event; a round past the last.
    for (rel, round, message) in [
        (
            "cs2/14155.dem",
            "1",
            "the demo has no round 1: its rounds table is empty",
        ),
        (
            "cs2/14065.dem",
            "2",
            "the demo has no round 2: it has rounds 1 to 1",
        ),
    ] {
        let r = gamewire(&[
            "cut",
            s(&gamewire_corpus::path(rel)),
            s(&out),
            "--round",
            round,
        ]);
        assert_eq!(r.code, Some(2), "{}", r.stderr);
        assert!(r.stderr.contains(message), "{}", r.stderr);
    }
    // Rounds are CS2's.
    let r = gamewire(&[
        "cut",
        s(&gamewire_corpus::path("deadlock/hltv_10423.dem")),
        s(&out),
        "--round",
        "1",
    ]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert!(
        r.stderr.contains("a cut by round needs a CS2 demo")
            && r.stderr.contains("this is a Deadlock demo"),
        "{}",
        r.stderr
    );
    assert!(listing(&dir).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_truncated_demo_is_edited_up_to_its_cut_with_a_warning() {
    let dir = tmp("truncated");
    let data = std::fs::read(gamewire_corpus::path("cs2/14065.dem")).unwrap();
    let cut = dir.join("cut.dem");
    std::fs::write(&cut, &data[..data.len() * 2 / 3]).unwrap();
    let out = dir.join("out.dem");
    let r = ok(&["rewrite", s(&cut), s(&out)]);
    assert!(
        r.stderr.contains("warning: ") && r.stderr.contains("holds everything before the cut"),
        "{}",
        r.stderr
    );
    let written = std::fs::read(&out).unwrap();
    assert!(written.starts_with(b"PBDEMS2\0"));
    // The output reads to its end without a cut.
    let r = ok(&["info", s(&out)]);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    // --strict: the same output, exit status 1.
    std::fs::remove_file(&out).unwrap();
    let r = gamewire(&["--strict", "rewrite", s(&cut), s(&out)]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert_eq!(std::fs::read(&out).unwrap(), written);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `rows` with the integer in column `tick` moved back by `shift` when it
/// is at least `from` (the header line first, kept).
fn moved_back(rows: &[String], from: i64, shift: i64) -> Vec<String> {
    let col = rows
        .first()
        .and_then(|h| h.split(',').position(|c| c == "tick"))
        .unwrap();
    rows.iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                return l.clone();
            }
            l.split(',')
                .enumerate()
                .map(|(j, cell)| match cell.parse::<i64>() {
                    Ok(t) if j == col && t >= from => (t - shift).to_string(),
                    _ => cell.to_string(),
                })
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect()
}

#[test]
fn a_loop_repeats_the_ticks_and_events_of_the_demo() {
    let dir = tmp("loop");
    const TIMES: i64 = 3;
    for demo in gamewire_corpus::source2_demos().unwrap() {
        let name = demo.file_name().unwrap().to_string_lossy().into_owned();
        if !["14155", "hltv_10423", "auto-"]
            .iter()
            .any(|n| name.contains(n))
        {
            continue;
        }
        let out = dir.join(&name);
        let r = ok(&["loop", s(&demo), s(&out), "--times", &TIMES.to_string()]);
        assert!(
            r.stderr
                .contains(&format!("loop: wrote {}: ", out.display()))
                && r.stderr.contains(&format!("{TIMES} repeats of ")),
            "{}",
            r.stderr
        );
        // The ticks of the input, then TIMES - 1 more repeats of them.
        let props = tick_props(&demo);
        let ticks = |d: &Path| ok(&["ticks", s(d), "--props", props]).stdout;
        let (want, got) = (ticks(&demo), ticks(&out));
        let all = rows_in(&want, 0..=i64::MAX);
        let first: i64 = all
            .get(1)
            .and_then(|l| {
                let col = all[0].split(',').position(|c| c == "tick")?;
                l.split(',').nth(col)?.parse().ok()
            })
            .unwrap();
        let last = last_tick(&demo);
        let span = last - first + 1;
        assert_eq!(last_tick(&out), last + (TIMES - 1) * span, "{name}");
        let events = |d: &Path| events_in(&ok(&["events", s(d), "--format", "jsonl"]).stdout);
        let (want_events, got_events) = (events(&demo), events(&out));
        for k in 0..TIMES {
            let (a, b) = (first + k * span, last + k * span);
            let repeat = moved_back(&rows_in(&got, a..=b), a, k * span);
            assert!(
                repeat == rows_in(&want, first..=last),
                "{name}: the ticks of repeat {k} differ from the demo's"
            );
            let repeat: Vec<_> = got_events
                .iter()
                .filter(|e| e["tick"].as_i64().is_some_and(|t| (a..=b).contains(&t)))
                .map(|e| {
                    let mut e = e.clone();
                    let t = e["tick"].as_i64().unwrap();
                    e.insert("tick".into(), (t - k * span).into());
                    e
                })
                .collect();
            let original: Vec<_> = want_events
                .iter()
                .filter(|e| e["tick"].as_i64().is_some_and(|t| t >= first))
                .cloned()
                .collect();
            // (Dota 2's clip has events in its signon only.)
            assert!(
                repeat == original,
                "{name}: the events of repeat {k} differ from the demo's"
            );
        }
    }
    // A length in minutes; a length that is none is refused, no file left.
    let demo = gamewire_corpus::path("cs2/14155.dem");
    let out = dir.join("minutes.dem");
    let r = ok(&["loop", s(&demo), s(&out), "--minutes", "0.5"]);
    assert!(r.stderr.contains("minutes)"), "{}", r.stderr);
    for bad in [["--times", "0"], ["--minutes", "0"]] {
        let out = dir.join("bad.dem");
        let r = gamewire(&["loop", s(&demo), s(&out), bad[0], bad[1]]);
        assert_eq!(r.code, Some(2), "{bad:?}: {}", r.stderr);
        assert!(!out.exists());
    }
    let r = gamewire(&["loop", s(&demo), s(&dir.join("x.dem"))]);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}
