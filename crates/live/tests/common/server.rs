//! The test relay (`.ci/broadcast_server.py`, a real HTTP server on
//! 127.0.0.1) run for one test: spawned with a broadcast folder and
//! options, its port read from its first line, killed when dropped.

#![allow(dead_code)] // each test uses a part

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

pub type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A running test relay.
pub struct Relay {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
}

impl Relay {
    /// Serves `dir` releasing one fragment every `interval_ms`, with the
    /// server's further options (`--fault`, `--end`, ...).
    pub fn start(dir: &Path, interval_ms: u32, options: &[&str]) -> Result<Relay> {
        let script = gamewire_corpus::workspace_root().join(".ci/broadcast_server.py");
        let mut child = Command::new("python3")
            .arg(&script)
            .arg("--dir")
            .arg(dir)
            .args(["--port", "0", "--interval-ms", &interval_ms.to_string()])
            .args(options)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let mut line = String::new();
        if let Some(out) = child.stdout.take() {
            std::io::BufReader::new(out).read_line(&mut line)?;
        }
        let port: u16 = match line.trim().parse() {
            Ok(p) => p,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("the relay printed {line:?}, not a port: {e}").into());
            }
        };
        Ok(Relay {
            child,
            url: format!("http://127.0.0.1:{port}"),
        })
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The two Deadlock broadcast captures of the corpus.
pub fn corpus_broadcasts() -> Vec<PathBuf> {
    ["dl_midtown_2025-02-27", "street_test_60tps"]
        .iter()
        .map(|n| gamewire_corpus::path("deadlock/broadcast").join(n))
        .collect()
}
