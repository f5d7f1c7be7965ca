//! `--follow`: a `gamewire` process reads a demo that the test writes in
//! pieces of random size with pauses, and writes the rows as they arrive.
//! Its output is the output of the same command on the finished demo,
//! for every table (JSON Lines and CSV); rows come out before the demo
//! is complete; a demo whose writer stops ends after the idle time-out
//! with the rows before the cut.

mod common;

use common::{gamewire, rows_without_nulls, text, tmp};

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A small deterministic generator of piece sizes and pauses (xorshift).
struct Sizes(u64);

impl Sizes {
    fn next(&mut self, max: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        1 + (self.0 % max as u64) as usize
    }
}

/// Appends `data` to `path` in pieces of random size, pausing between
/// them.
fn write_slowly(path: &Path, data: &[u8], seed: u64) -> Result {
    let mut sizes = Sizes(seed);
    let mut file = std::fs::OpenOptions::new().append(true).open(path)?;
    let mut rest = data;
    while !rest.is_empty() {
        let n = sizes.next(40 * 1024).min(rest.len());
        let (piece, after) = rest.split_at(n);
        file.write_all(piece)?;
        file.flush()?;
        rest = after;
        std::thread::sleep(Duration::from_millis(sizes.next(12) as u64));
    }
    Ok(())
}

/// Starts `gamewire ARGS... --follow` on a new empty file, writes `data`
/// to the file slowly while it runs, and gives its output.
fn follow_written(
    dir: &Path,
    data: &[u8],
    args: &[&str],
    seed: u64,
) -> Result<(bool, String, String)> {
    let path = dir.join(format!("growing-{seed}.dem"));
    std::fs::write(&path, b"")?;
    let mut all: Vec<&str> = args.to_vec();
    all.extend([text(&path)?, "--follow"]);
    let child = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(&all)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    write_slowly(&path, data, seed)?;
    let out = child.wait_with_output()?;
    Ok((
        out.status.success(),
        String::from_utf8(out.stdout)?,
        String::from_utf8(out.stderr)?,
    ))
}

const TABLES: [&str; 21] = [
    "events",
    "ticks",
    "players",
    "chat",
    "grenades",
    "rounds",
    "kills",
    "damages",
    "purchases",
    "user_commands",
    "shots",
    "bomb",
    "smokes",
    "infernos",
    "flashes",
    "footsteps",
    "item_drops",
    "skins",
    "combat_log",
    "updated_fields",
    "header",
];

/// Every table of a demo written while `--follow` reads it is the table
/// of the finished demo: the same lines, in order (`events` as JSON Lines
/// without `--name`: the same rows, keys of a row that are null aside);
/// every table of a CS2 demo, and a Deadlock demo's events, ticks and
/// tables complete at the end.
#[test]
fn every_table_followed_equals_the_finished_demo() -> Result {
    let dir = tmp("follow", "tables")?;
    let mut seed = 7;
    let some: &[&str] = &["events", "ticks", "players", "rounds"];
    for (rel, tables) in [
        ("cs2/14065.dem", &TABLES[..]),
        ("deadlock/hltv_10423.dem", some),
    ] {
        let finished = gamewire_corpus::path(rel);
        let data = std::fs::read(&finished)?;
        for &table in tables {
            let mut args = vec!["table", table, "--format", "jsonl"];
            if table == "ticks" {
                args.extend(["--props", "X,Y,health"]);
            }
            let mut whole_args = args.clone();
            whole_args.push(text(&finished)?);
            let (ok, whole, err) = gamewire(&whole_args)?;
            if !ok {
                return Err(format!("{rel} {table}: {err}").into());
            }
            seed += 1;
            let (ok, followed, err) = follow_written(&dir, &data, &args, seed)?;
            if !ok || !err.is_empty() {
                return Err(format!("{rel} {table} --follow: {err}").into());
            }
            if table == "events" {
                if rows_without_nulls(&followed)? != rows_without_nulls(&whole)? {
                    return Err(format!("{rel} events: the rows differ").into());
                }
            } else if followed != whole {
                return Err(format!(
                    "{rel} {table}: {} lines followed, {} whole",
                    followed.lines().count(),
                    whole.lines().count()
                )
                .into());
            }
        }
    }
    std::fs::remove_dir_all(dir)?;
    Ok(())
}

/// CSV: one header, then the rows, byte for byte those of the finished
/// demo (`events` with `--name`: its columns are declared at the start).
#[test]
fn csv_followed_equals_the_finished_demo() -> Result {
    let dir = tmp("follow", "csv")?;
    let finished = gamewire_corpus::path("cs2/14011.dem");
    let data = std::fs::read(&finished)?;
    let commands: [&[&str]; 4] = [
        &["ticks", "--props", "X,Y,health,active_weapon_name"],
        &[
            "events",
            "--name",
            "player_death,player_hurt",
            "--props",
            "X",
        ],
        &["table", "kills"],
        &["table", "rounds"],
    ];
    for (i, args) in commands.into_iter().enumerate() {
        let mut whole_args = args.to_vec();
        whole_args.push(text(&finished)?);
        let (ok, whole, err) = gamewire(&whole_args)?;
        if !ok || whole.is_empty() {
            return Err(format!("{args:?}: {err}").into());
        }
        let (ok, followed, err) = follow_written(&dir, &data, args, 100 + i as u64)?;
        if !ok || followed != whole {
            return Err(format!("{args:?} --follow differs: {err}").into());
        }
    }
    std::fs::remove_dir_all(dir)?;
    Ok(())
}

/// Rows come out while the demo is still being written: the process
/// writes the events and ticks of the first part of the match before the
/// rest of the file exists.
#[test]
fn rows_come_out_before_the_demo_is_complete() -> Result {
    let dir = tmp("follow", "early")?;
    let data = std::fs::read(gamewire_corpus::path("cs2/14011.dem"))?;
    let split = data.len() * 3 / 4;
    for args in [
        ["events", "--name=weapon_fire", "--format", "jsonl"],
        ["ticks", "--props=X", "--format", "csv"],
    ] {
        let path = dir.join(format!("early-{}.dem", args[1]));
        std::fs::write(&path, data.get(..split).ok_or("split")?)?;
        let mut all: Vec<&str> = args.to_vec();
        all.extend([text(&path)?, "--follow"]);
        let mut child: Child = Command::new(env!("CARGO_BIN_EXE_gamewire"))
            .args(&all)
            .stdout(Stdio::piped())
            .spawn()?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::spawn(move || -> std::io::Result<String> {
            let mut lines = BufReader::new(stdout);
            let mut first = String::new();
            // A row, not the end of the output.
            if lines.read_line(&mut first)? > 0 {
                let _ = tx.send(());
            }
            let mut rest = String::new();
            lines.read_to_string(&mut rest)?;
            Ok(first + &rest)
        });
        // The first rows, with three quarters of the demo written.
        let early = rx.recv_timeout(Duration::from_secs(120));
        write_slowly(&path, data.get(split..).ok_or("split")?, 3)?;
        let status = child.wait()?;
        let out = reader.join().map_err(|_| "reader thread")??;
        early.map_err(|_| format!("{args:?}: no row before the demo was complete"))?;
        let (_, whole, _) = gamewire(&[args[0], args[1], args[2], args[3], text(&path)?])?;
        if !status.success() || out != whole {
            return Err(format!("{args:?}: the output differs").into());
        }
    }
    std::fs::remove_dir_all(dir)?;
    Ok(())
}

/// A writer that stops before the demo's end: after `--idle-timeout` the
/// command ends with the rows before the cut (those of the same bytes
/// read as a file) and a warning that says the file stopped growing.
#[test]
fn a_writer_that_stops_ends_after_the_idle_timeout() -> Result {
    let dir = tmp("follow", "idle")?;
    let data = std::fs::read(gamewire_corpus::path("cs2/14011.dem"))?;
    let part = data.get(..data.len() * 3 / 4).ok_or("part")?;
    let args = [
        "ticks",
        "--props=X",
        "--format",
        "jsonl",
        "--idle-timeout",
        "0.5",
    ];
    let (ok, followed, err) = follow_written(&dir, part, &args, 11)?;
    if !ok || !err.contains("stopped growing") || !err.contains("cut") {
        return Err(format!("follow: {err}").into());
    }
    let cut_file = dir.join("half.dem");
    std::fs::write(&cut_file, part)?;
    let (ok, whole, err) =
        gamewire(&["ticks", "--props=X", "--format", "jsonl", text(&cut_file)?])?;
    if !ok || !err.contains("warning") || followed != whole || whole.is_empty() {
        return Err(format!("whole: {err}").into());
    }
    std::fs::remove_dir_all(dir)?;
    Ok(())
}

/// Standard input followed: the demo piped in pieces gives the rows of
/// the file.
#[test]
fn standard_input_is_followed() -> Result {
    let finished = gamewire_corpus::path("cs2/14065.dem");
    let data = std::fs::read(&finished)?;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(["table", "damages", "--format", "jsonl", "-", "--follow"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let mut sizes = Sizes(99);
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        let mut rest = &data[..];
        while !rest.is_empty() {
            let n = sizes.next(30 * 1024).min(rest.len());
            let (piece, after) = rest.split_at(n);
            stdin.write_all(piece)?;
            rest = after;
            std::thread::sleep(Duration::from_millis(sizes.next(8) as u64));
        }
        Ok(())
    });
    let out = child.wait_with_output()?;
    writer.join().map_err(|_| "writer thread")??;
    let (_, whole, _) = gamewire(&["table", "damages", "--format", "jsonl", text(&finished)?])?;
    if !out.status.success() || String::from_utf8(out.stdout)? != whole {
        return Err("stdin --follow differs".into());
    }
    Ok(())
}

/// What `--follow` refuses, with a clear message: Parquet, several demos,
/// `events` as CSV without `--name`.
#[test]
fn follow_refuses_what_it_cannot_write_as_rows_arrive() -> Result {
    let demo = gamewire_corpus::path("cs2/14065.dem");
    let d = text(&demo)?;
    for (args, says) in [
        (
            vec![
                "table",
                "kills",
                d,
                "--follow",
                "--format",
                "parquet",
                "-o",
                "x.parquet",
            ],
            "Parquet is written whole",
        ),
        (vec!["table", "kills", d, d, "--follow"], "one demo"),
        (vec!["events", d, "--follow"], "needs --name"),
    ] {
        let (ok, _, err) = gamewire(&args)?;
        if ok || !err.contains(says) {
            return Err(format!("{args:?}: {err}").into());
        }
    }
    Ok(())
}
