//! `gamewire synth` and `--sample`, end to end: a scenario written as a
//! demo and read back by the other commands, a scenario with an error
//! (exit status 1, the line and key named, no file written), a scenario
//! whose extension names no format (exit status 2), and the sample demo in
//! place of a demo path on the Source 2 commands that read through
//! `read::open_input`.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

fn gamewire(args: &[&str]) -> Result<Output> {
    Ok(Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .output()?)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A run that must succeed: its standard output.
fn ok(args: &[&str]) -> Result<String> {
    let out = gamewire(args)?;
    if !out.status.success() {
        return Err(format!("gamewire {args:?} failed: {}", text(&out.stderr)).into());
    }
    Ok(text(&out.stdout))
}

fn library(name: &str) -> PathBuf {
    gamewire_corpus::workspace_root()
        .join("examples/scenarios")
        .join(name)
}

fn scratch(name: &str) -> Result<PathBuf> {
    let d = std::env::temp_dir().join(format!("gamewire-synth-{}-{name}", std::process::id()));
    if d.exists() {
        std::fs::remove_dir_all(&d)?;
    }
    std::fs::create_dir_all(&d)?;
    Ok(d)
}

fn path_str(p: &Path) -> Result<&str> {
    p.to_str().ok_or_else(|| "a path that is not UTF-8".into())
}

#[test]
fn synth_writes_a_demo_the_other_commands_read() -> Result<()> {
    let dir = scratch("ok")?;
    let out = dir.join("pistol.dem");
    let scenario = library("pistol_round.toml");
    let run = gamewire(&["synth", path_str(&scenario)?, path_str(&out)?])?;
    if !run.status.success() {
        return Err(text(&run.stderr).into());
    }
    let said = text(&run.stderr);
    if !said.starts_with("synth: wrote ") || !said.contains("de_mirage") {
        return Err(format!("unexpected summary: {said}").into());
    }
    let kills = ok(&["table", "kills", path_str(&out)?, "--format", "jsonl"])?;
    if kills.lines().count() != 6 {
        return Err(format!("6 kills expected, got:\n{kills}").into());
    }
    // Nothing else is left in the folder (the temporary file was renamed).
    let left: Vec<_> = std::fs::read_dir(&dir)?.collect::<std::io::Result<_>>()?;
    if left.len() != 1 {
        return Err(format!("{} files in the output folder", left.len()).into());
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn a_scenario_with_an_error_writes_nothing() -> Result<()> {
    let dir = scratch("bad")?;
    let good = std::fs::read_to_string(library("pistol_round.toml"))?;
    let bad = good.replacen(
        "victim = \"Fir\", weapon = \"glock\"",
        "victim = \"Nobody\", weapon = \"glock\"",
        1,
    );
    if bad == good {
        return Err("the kill to break is not in pistol_round.toml".into());
    }
    let scenario = dir.join("bad.toml");
    std::fs::write(&scenario, bad)?;
    let out = dir.join("bad.dem");
    let run = gamewire(&["synth", path_str(&scenario)?, path_str(&out)?])?;
    let err = text(&run.stderr);
    if run.status.code() != Some(1) || !err.contains("line") || !err.contains("Nobody") {
        return Err(format!("status {:?}: {err}", run.status.code()).into());
    }
    let left: Vec<_> = std::fs::read_dir(&dir)?.collect::<std::io::Result<_>>()?;
    if left.len() != 1 || out.exists() {
        return Err("a file was written for a scenario with an error".into());
    }
    // An extension that names no format is bad usage.
    let txt = dir.join("scenario.txt");
    std::fs::write(&txt, good)?;
    let run = gamewire(&["synth", path_str(&txt)?, path_str(&out)?])?;
    if run.status.code() != Some(2) || out.exists() {
        return Err(format!("status {:?}: {}", run.status.code(), text(&run.stderr)).into());
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn sample_stands_for_a_demo_path_on_every_source2_command() -> Result<()> {
    let file = gamewire_corpus::workspace_root().join("crates/synth/sample/sample.dem");
    let file = path_str(&file)?;
    // `table` and `events` on one demo read it in tables.rs, which does not
    // go through `read::open_input` yet.
    for args in [
        vec!["ticks", "--props", "X,Y,health", "--ticks", "100..200"],
        vec!["info", "--format", "json"],
        vec!["props"],
        vec!["schema"],
    ] {
        let mut with_sample = args.clone();
        with_sample.push("--sample");
        let mut with_file = args.clone();
        with_file.push(file);
        let a = ok(&with_sample)?;
        let b = ok(&with_file)?;
        if a.is_empty() {
            return Err(format!("{args:?} --sample wrote nothing").into());
        }
        // The same rows; `info` names the input, which differs.
        if a.replace("<sample>", "").replace(file, "")
            != b.replace(file, "").replace("<sample>", "")
        {
            return Err(format!("{args:?}: --sample and the file differ").into());
        }
    }
    // Where no demo is read, --sample is refused as any unknown option.
    let run = gamewire(&["tg", "--sample"])?;
    if run.status.code() != Some(2) {
        return Err(format!("tg --sample: status {:?}", run.status.code()).into());
    }
    Ok(())
}
