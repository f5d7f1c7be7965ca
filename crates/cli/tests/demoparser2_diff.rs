//! Differential test against demoparser2 0.42.0 (PyPI): runs `scripts/compare_demoparser2.py` with
//! the peer venv made by `.ci/setup-demoparser2.sh start` (`<repo>/target/peers-venv`) and the
//! `gamewire` binary built for this test, on every CS2 corpus demo.
//!
//! Without the venv (or the corpus) this test fails when `CI` is set and is skipped otherwise.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

fn missing(what: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("{what} (CI is set: run `.ci/setup-demoparser2.sh start` first)");
    }
    eprintln!(
        "skipping the demoparser2 differential test: {what}; run `.ci/setup-demoparser2.sh start`"
    );
}

#[test]
fn gamewire_matches_demoparser2_on_the_cs2_corpus() {
    let root = repo_root();
    let python = root.join("target/peers-venv/bin/python");
    if !python.is_file() {
        missing(&format!("no demoparser2 venv at {}", python.display()));
        return;
    }
    let corpus = gamewire_corpus::path("cs2");
    if !corpus.is_dir() {
        missing(&format!("no corpus at {}", corpus.display()));
        return;
    }
    let out = Command::new(&python)
        .arg(root.join("scripts/compare_demoparser2.py"))
        .arg(env!("CARGO_BIN_EXE_gamewire"))
        .arg(&corpus)
        .output()
        .expect("run scripts/compare_demoparser2.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    assert!(
        out.status.success(),
        "compare_demoparser2.py failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("PASS"), "no PASS line:\n{stdout}");
}
