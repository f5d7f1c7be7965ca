//! Runs the Python test suite of the `gamewire` package (`crates/python/tests/*.py`) with the
//! venv made by `.ci/setup-python.sh start` (`<repo>/target/py-venv`, holding the wheel built
//! from this tree, pytest, pandas, polars and demoparser2), from the repository root:
//! `target/py-venv/bin/python -m pytest crates/python/tests -q`.
//!
//! Without the venv this test fails when `CI` is set and is skipped (with a message)
//! otherwise, so that `cargo test --workspace` runs the Python suite in CI.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

fn missing(what: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("{what} (CI is set: run `.ci/setup-python.sh start` first)");
    }
    eprintln!("skipping the Python tests: {what}; run `.ci/setup-python.sh start`");
}

/// The newest modification time of the files under `dir` (recursively).
fn newest(dir: &Path) -> Option<SystemTime> {
    let mut best = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let t = if path.is_dir() {
            newest(&path)
        } else {
            entry.metadata().ok().and_then(|m| m.modified().ok())
        };
        best = best.max(t);
    }
    best
}

#[test]
fn python_package_tests_pass() {
    let root = repo_root();
    let python = root.join("target/py-venv/bin/python");
    if !python.is_file() {
        missing(&format!("no venv at {}", python.display()));
        return;
    }
    let probe = Command::new(&python)
        .args(["-c", "import gamewire._gamewire, pytest, demoparser2"])
        .output()
        .expect("run the venv's python");
    if !probe.status.success() {
        missing(&format!(
            "the venv at {} lacks gamewire, pytest or demoparser2: {}",
            python.display(),
            String::from_utf8_lossy(&probe.stderr).trim()
        ));
        return;
    }
    // The installed wheel is what gets tested: say so when the sources are newer.
    let wheel = newest(&root.join("target/py-wheels"));
    let sources = [
        "crates/python/src",
        "crates/python/python",
        "crates/query/src",
        "crates/source2/src",
    ]
    .iter()
    .filter_map(|d| newest(&root.join(d)))
    .max();
    if let (Some(w), Some(s)) = (wheel, sources) {
        if s > w {
            eprintln!(
                "note: sources changed since the installed wheel was built; \
                 run `.ci/setup-python.sh start` to test the current code"
            );
        }
    }
    let out = Command::new(&python)
        .args(["-m", "pytest", "crates/python/tests", "-q", "-rfE"])
        // No .pytest_cache or __pycache__ left in the work tree.
        .args(["-p", "no:cacheprovider"])
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(&root)
        .output()
        .expect("run pytest");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    eprintln!("{stderr}");
    // Exit status 5 (no tests collected) is a failure too.
    assert!(
        out.status.success(),
        "pytest failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains(" passed"), "no tests passed:\n{stdout}");
}
