//! Helpers shared by the test files: running the binary, temporary
//! folders, paths as text, JSON Lines rows.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Runs `gamewire`; whether it succeeded, standard output and error.
pub fn gamewire(args: &[&str]) -> Result<(bool, String, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .output()?;
    Ok((
        out.status.success(),
        String::from_utf8(out.stdout)?,
        String::from_utf8(out.stderr)?,
    ))
}

/// A new empty folder `gamewire-cli-GROUP-PID-NAME` in the system's
/// temporary folder (emptied if a previous run left it).
pub fn tmp(group: &str, name: &str) -> Result<PathBuf> {
    let d = std::env::temp_dir().join(format!(
        "gamewire-cli-{group}-{}-{name}",
        std::process::id()
    ));
    if d.exists() {
        std::fs::remove_dir_all(&d)?;
    }
    std::fs::create_dir_all(&d)?;
    Ok(d)
}

/// A path as UTF-8 text, for a command line.
pub fn text(p: &Path) -> Result<&str> {
    p.to_str()
        .ok_or_else(|| format!("{} is not UTF-8", p.display()).into())
}

/// JSON Lines rows as objects with their null values left out (`events`
/// without `--name` declares a key once its event has been seen: a row
/// written before has it null, or not at all).
pub fn rows_without_nulls(jsonl: &str) -> Result<Vec<serde_json::Map<String, serde_json::Value>>> {
    jsonl
        .lines()
        .map(|l| {
            let mut row: serde_json::Map<String, serde_json::Value> = serde_json::from_str(l)?;
            row.retain(|_, v| !v.is_null());
            Ok(row)
        })
        .collect()
}
