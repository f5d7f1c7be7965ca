//! The README's command-line examples, run as written.
//!
//! Every `$ gamewire ...` line of the README's `console` blocks runs in a
//! scratch directory where `match.dem` is the corpus demo the README's
//! output shows (CS2 14065, de_nuke), `demos/` is the corpus' CS2 folder
//! and `capture.pcap` a corpus Teeworlds capture. Each must exit 0 and
//! print the output lines the README shows under it, in order (`...`
//! stands for lines the README leaves out).
//! Lines that install or build (`cargo`, `pip`, `maturin`, `cd`) are not run
//! here: CI runs them in its own steps.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// One command of the README and the output lines shown under it.
#[derive(Debug)]
struct Example {
    line: usize,
    command: String,
    shown: Vec<String>,
}

/// The `$ gamewire` commands of the README's `console` blocks.
fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    let mut current: Option<Example> = None;
    for (i, line) in readme.lines().enumerate() {
        if line.starts_with("```") {
            in_console = !in_console && line.trim() == "```console";
            out.extend(current.take());
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            out.extend(current.take());
            // A trailing `# comment` explains the line; it is not run.
            let command = match command.find("  #") {
                Some(n) => command[..n].trim_end(),
                None => command.trim_end(),
            };
            if command.starts_with("gamewire ") {
                current = Some(Example {
                    line: i + 1,
                    command: command.to_string(),
                    shown: Vec::new(),
                });
            }
        } else if let Some(example) = current.as_mut() {
            example.shown.push(line.trim_end().to_string());
        }
    }
    out.extend(current);
    out
}

/// A scratch directory with the README's file names linked to the corpus.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gamewire-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let link = |target: &Path, name: &str| {
        assert!(target.exists(), "{}: missing", target.display());
        std::os::unix::fs::symlink(target, dir.join(name)).unwrap();
    };
    link(&gamewire_corpus::path("cs2/14065.dem"), "match.dem");
    link(&gamewire_corpus::path("cs2"), "demos");
    link(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples"),
        "examples",
    );
    link(
        &gamewire_corpus::path(
            "teeworlds/pcap/075_tw_dm1_join_chat_walk_disconnect/075_tw_dm1_join_chat_walk_disconnect.pcap",
        ),
        "capture.pcap",
    );
    dir
}

/// Whether `shown` (the README's lines, `...` for the ones left out)
/// appear in `printed`, in order.
fn shows(printed: &str, shown: &[String]) -> Result<(), String> {
    let printed: Vec<&str> = printed.lines().map(str::trim_end).collect();
    let mut at = 0;
    for want in shown.iter().filter(|l| l.as_str() != "...") {
        match printed[at..].iter().position(|l| l == want) {
            Some(n) => at += n + 1,
            None => return Err(format!("line not printed (or out of order): {want:?}")),
        }
    }
    Ok(())
}

#[test]
fn readme_commands_run_as_shown() {
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let examples = examples(&readme);
    assert!(
        examples.len() >= 5,
        "the README shows {} gamewire commands",
        examples.len()
    );
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_gamewire"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let dir = scratch();
    let mut failures = Vec::new();
    for example in &examples {
        let output = Command::new("sh")
            .arg("-c")
            .arg(&example.command)
            .current_dir(&dir)
            .env("PATH", &path)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let checked = if output.status.success() {
            shows(&stdout, &example.shown)
        } else {
            Err(format!(
                "exit {:?}: {}",
                output.status.code(),
                String::from_utf8_lossy(&output.stderr).trim()
            ))
        };
        if let Err(e) = checked {
            failures.push(format!(
                "README.md:{}: `{}`: {e}",
                example.line, example.command
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
