//! End-to-end tests of `gamewire broadcast IN OUTDIR`: the folder written
//! (`sync.json`, `0/start.bin`, `<n>/full.bin`, `<n>/delta.bin`), read back
//! by `ticks`, `events` and `table kills`, gives the rows of the demo: all
//! of them from the first fragment, and from a later fragment's first tick
//! on when `sync.json` names that fragment (a client joining there). The
//! Deadlock broadcasts, written again from their own demo stream, give the
//! same rows. A bad fragment length and a folder that is not empty are
//! refused, leaving nothing behind.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

type Result<T = ()> = std::result::Result<T, Box<dyn Error>>;

/// Runs `gamewire`; the exit status, standard output and error.
fn gamewire(args: &[&str]) -> Result<(Option<i32>, Vec<u8>, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .output()?;
    Ok((
        out.status.code(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// Runs and expects exit status 0: standard output.
fn ok(args: &[&str]) -> Result<Vec<u8>> {
    let (code, stdout, stderr) = gamewire(args)?;
    if code != Some(0) {
        return Err(format!("gamewire {args:?}: {stderr}").into());
    }
    Ok(stdout)
}

fn tmp(name: &str) -> Result<PathBuf> {
    let d = std::env::temp_dir().join(format!(
        "gamewire-cli-broadcast-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d)?;
    Ok(d)
}

fn s(p: &Path) -> Result<&str> {
    p.to_str()
        .ok_or_else(|| format!("{} is not UTF-8", p.display()).into())
}

/// The rows of CSV `text` (header first) whose `tick` is at least `from`.
fn csv_from(text: &[u8], from: i64) -> Result<Vec<String>> {
    let text = String::from_utf8(text.to_vec())?;
    let mut lines = text.lines();
    let header = lines.next().unwrap_or_default().to_string();
    let col = header
        .split(',')
        .position(|c| c == "tick")
        .ok_or_else(|| format!("no tick column in {header}"))?;
    let mut out = vec![header];
    out.extend(
        lines
            .filter(|l| {
                l.split(',')
                    .nth(col)
                    .and_then(|t| t.parse::<i64>().ok())
                    .is_some_and(|t| t >= from)
            })
            .map(String::from),
    );
    Ok(out)
}

/// The rows of an `events` JSON Lines output from tick `from` on, each
/// without its null keys (the columns are the keys of the events read).
fn events_from(jsonl: &[u8], from: i64) -> Result<Vec<serde_json::Map<String, serde_json::Value>>> {
    let mut out = Vec::new();
    for line in String::from_utf8(jsonl.to_vec())?.lines() {
        let mut row: serde_json::Map<String, serde_json::Value> = serde_json::from_str(line)?;
        row.retain(|_, v| !v.is_null());
        if row
            .get("tick")
            .and_then(serde_json::Value::as_i64)
            .is_some_and(|t| t >= from)
        {
            out.push(row);
        }
    }
    Ok(out)
}

/// Checks that `got` (a broadcast folder) gives `want`'s rows from tick
/// `from` on; returns the ticks rows compared.
fn same_rows(want: &Path, got: &Path, from: i64, props: &str) -> Result<usize> {
    let ticks = |d: &Path| -> Result<Vec<String>> {
        csv_from(&ok(&["ticks", s(d)?, "--props", props])?, from)
    };
    let (a, b) = (ticks(want)?, ticks(got)?);
    if a.len() < 2 || a != b {
        return Err(format!(
            "{} from {from}: ticks rows {} against {}",
            got.display(),
            b.len(),
            a.len()
        )
        .into());
    }
    let events = |d: &Path| -> Result<Vec<_>> {
        events_from(&ok(&["events", s(d)?, "--format", "jsonl"])?, from)
    };
    if events(want)? != events(got)? {
        return Err(format!("{} from {from}: events differ", got.display()).into());
    }
    if props.contains("balance") {
        let kills =
            |d: &Path| -> Result<Vec<String>> { csv_from(&ok(&["table", "kills", s(d)?])?, from) };
        if kills(want)? != kills(got)? {
            return Err(format!("{} from {from}: kills differ", got.display()).into());
        }
    }
    Ok(a.len() - 1)
}

/// `sync.json` of a broadcast folder.
fn sync_of(dir: &Path) -> Result<serde_json::Value> {
    Ok(serde_json::from_slice(&std::fs::read(
        dir.join("sync.json"),
    )?)?)
}

/// Points `sync.json` at fragment `k`; returns that fragment's first tick.
fn join_at(dir: &Path, k: i64) -> Result<i64> {
    let mut sync = sync_of(dir)?;
    let tick = sync["tick"].as_i64().ok_or("tick")?;
    let length = sync["endtick"].as_i64().ok_or("endtick")? - tick;
    sync["fragment"] = k.into();
    std::fs::write(dir.join("sync.json"), sync.to_string())?;
    Ok(tick + (k - 1) * length)
}

#[test]
fn cs2_demos_read_back_as_broadcasts() -> Result {
    let dir = tmp("cs2")?;
    let props = "X,Y,Z,health,yaw,pitch,team_num,balance,active_weapon_name";
    let mut checked = 0;
    for demo in gamewire_corpus::source2_demos()? {
        if !s(&demo)?.contains("/cs2/") {
            continue;
        }
        let name = demo.file_stem().ok_or("a name")?.to_string_lossy();
        let out = dir.join(name.as_ref());
        let (code, _, stderr) =
            gamewire(&["broadcast", s(&demo)?, s(&out)?, "--fragment-seconds", "2"])?;
        if code != Some(0) || !stderr.contains("broadcast: ") {
            return Err(format!("{}: {stderr}", demo.display()).into());
        }
        let sync = sync_of(&out)?;
        let first = sync["tick"].as_i64().ok_or("tick")?;
        if sync["tps"] != 64 || sync["keyframe_interval"] != 2 || sync["fragment"] != 1 {
            return Err(format!("{}: {sync}", demo.display()).into());
        }
        for file in ["0/start.bin", "1/full.bin", "1/delta.bin"] {
            if !out.join(file).is_file() {
                return Err(format!("{}: no {file}", out.display()).into());
            }
        }
        // From the first fragment: every row.
        let rows = same_rows(&demo, &out, first, props)?;
        // Joined at the second fragment: the rows from its first tick on.
        let fragments = std::fs::read_dir(&out)?
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
            })
            .count();
        if fragments >= 3 {
            let from = join_at(&out, 2)?;
            let later = same_rows(&demo, &out, from, props)?;
            println!("{name}: {rows} tick rows, {later} joined at fragment 2 (tick {from})");
        }
        checked += 1;
    }
    if checked != 5 {
        return Err(format!("{checked} CS2 demos, expected 5").into());
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn deadlock_broadcasts_written_again_read_the_same() -> Result {
    let dir = tmp("deadlock")?;
    let root = gamewire_corpus::path("deadlock/broadcast");
    let mut checked = 0;
    for entry in std::fs::read_dir(&root)? {
        let input = entry?.path();
        if !input.join("sync.json").is_file() {
            continue;
        }
        let out = dir.join(input.file_name().ok_or("a name")?);
        ok(&["broadcast", s(&input)?, s(&out)?])?;
        let from = sync_of(&out)?["tick"].as_i64().ok_or("tick")?;
        same_rows(&input, &out, from, "X,Y,Z,health,team_num")?;
        checked += 1;
    }
    if checked != 2 {
        return Err(format!("{checked} Deadlock broadcasts, expected 2").into());
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn bad_arguments_leave_nothing_behind() -> Result {
    let dir = tmp("bad")?;
    let demo = gamewire_corpus::path("cs2/14155.dem");
    let out = dir.join("out");
    let (code, _, stderr) =
        gamewire(&["broadcast", s(&demo)?, s(&out)?, "--fragment-seconds", "0"])?;
    if code == Some(0) || !stderr.contains("--fragment-seconds") {
        return Err(format!("0 s fragments: {code:?} {stderr}").into());
    }
    // A folder that is not empty is not replaced.
    std::fs::create_dir_all(&out)?;
    std::fs::write(out.join("keep"), b"x")?;
    let (code, _, stderr) = gamewire(&["broadcast", s(&demo)?, s(&out)?])?;
    if code == Some(0) || !stderr.contains("not empty") {
        return Err(format!("a full folder: {code:?} {stderr}").into());
    }
    // Not a demo: an error, and no folder written, no temporary one left.
    let junk = dir.join("junk.dem");
    std::fs::write(&junk, b"not a demo at all")?;
    let fresh = dir.join("fresh");
    let (code, _, _) = gamewire(&["broadcast", s(&junk)?, s(&fresh)?])?;
    let mut left: Vec<String> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    left.sort();
    if code == Some(0) || left != ["junk.dem", "out"] {
        return Err(format!("not a demo: {code:?}, left {left:?}").into());
    }
    // An empty folder is replaced.
    std::fs::remove_dir_all(&out)?;
    std::fs::create_dir_all(&out)?;
    ok(&["broadcast", s(&demo)?, s(&out)?])?;
    if !out.join("sync.json").is_file() {
        return Err("no sync.json in the emptied folder".into());
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
