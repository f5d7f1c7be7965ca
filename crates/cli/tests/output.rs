//! `-o FILE` is written atomically: under a hidden temporary name beside
//! FILE, renamed onto it when the command is done. A command that fails
//! before writing a row, or is killed while writing, leaves FILE as it
//! was; a finished one leaves FILE and nothing else.

mod common;

use common::{gamewire, text, tmp};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

const OLD: &str = "what was there before\n";

fn demo(rel: &str) -> PathBuf {
    gamewire_corpus::path(rel)
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Result<Vec<String>> {
    let mut v: Vec<String> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<_>>()?;
    v.sort();
    Ok(v)
}

/// The commands that write a finished table to `-o`, as argument lists
/// before `-o`: each gives on standard output what it writes to the file.
fn commands(demo: &str) -> Vec<Vec<String>> {
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect();
    vec![
        v(&["table", "kills", demo]),
        v(&["events", demo]),
        v(&["ticks", demo, "--props", "X,Y,Z,health"]),
        v(&["table", "user_commands", demo]),
        v(&["messages", demo, "--name", "GeSosStartSoundEvent"]),
        v(&["props", demo]),
    ]
}

/// Each command replaces an existing FILE with exactly its output and
/// leaves no temporary file; each format, and `-o /dev/null`.
#[test]
fn a_finished_command_replaces_the_file_and_leaves_nothing_else() -> Result {
    let dir = tmp("output", "finished")?;
    let d = demo("cs2/14065.dem");
    let d = text(&d)?;
    for args in commands(d) {
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        for ext in ["csv", "jsonl"] {
            let mut to_stdout = argv.clone();
            to_stdout.extend(["--format", ext]);
            let (ok, expected, err) = gamewire(&to_stdout)?;
            if !ok {
                return Err(format!("{to_stdout:?}: {err}").into());
            }
            let out = dir.join(format!("out.{ext}"));
            std::fs::write(&out, OLD)?;
            let mut with_o = argv.clone();
            with_o.extend(["-o", text(&out)?]);
            let (ok, stdout, err) = gamewire(&with_o)?;
            if !ok || !stdout.is_empty() {
                return Err(format!("{with_o:?}: {err}").into());
            }
            if std::fs::read_to_string(&out)? != expected {
                return Err(format!("{with_o:?}: the file is not the command's output").into());
            }
            assert_eq!(names(&dir)?, vec![format!("out.{ext}")], "{with_o:?}");
            std::fs::remove_file(&out)?;
        }
        let mut to_null = argv.clone();
        to_null.extend(["-o", "/dev/null", "--format", "csv"]);
        let (ok, _, err) = gamewire(&to_null)?;
        assert!(ok, "{to_null:?}: {err}");
        assert!(std::fs::metadata("/dev/null")?
            .file_type()
            .is_char_device_like());
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// `is_char_device` without the Unix-only trait in every test.
trait CharDevice {
    fn is_char_device_like(&self) -> bool;
}

impl CharDevice for std::fs::FileType {
    fn is_char_device_like(&self) -> bool {
        use std::os::unix::fs::FileTypeExt;
        self.is_char_device()
    }
}

/// A demo that cannot be read fails before a row is written: FILE keeps
/// its old content, and no temporary file is left.
#[test]
fn a_command_that_fails_leaves_the_file_as_it_was() -> Result {
    let dir = tmp("output", "fails")?;
    let bad = dir.join("bad.dem");
    std::fs::write(&bad, b"this is not a demo at all")?;
    let bad = text(&bad)?.to_string();
    for args in commands(&bad) {
        let out = dir.join("out.csv");
        std::fs::write(&out, OLD)?;
        let mut argv: Vec<&str> = args.iter().map(String::as_str).collect();
        argv.extend(["-o", text(&out)?]);
        let (ok, _, err) = gamewire(&argv)?;
        assert!(!ok, "{argv:?} succeeded on a damaged demo");
        assert!(!err.is_empty(), "{argv:?}: no message");
        assert_eq!(std::fs::read_to_string(&out)?, OLD, "{argv:?}");
        assert_eq!(names(&dir)?, vec!["bad.dem", "out.csv"], "{argv:?}");
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// `ticks` streams its rows to the temporary file as the demo is read;
/// killed while it writes, it leaves FILE as it was (and the hidden
/// temporary file, which holds rows already). The demo is a corpus clip
/// repeated by `gamewire loop`, long enough to be read as a stream.
#[test]
fn a_killed_command_leaves_the_file_as_it_was() -> Result {
    let dir = tmp("output", "killed")?;
    let long = dir.join("long.dem");
    let clip = demo("cs2/14011.dem");
    let (ok, _, err) = gamewire(&["loop", "--times", "40", text(&clip)?, text(&long)?])?;
    if !ok {
        return Err(format!("loop: {err}").into());
    }
    let out = dir.join("out.csv");
    std::fs::write(&out, OLD)?;
    let mut child = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args([
            "ticks",
            text(&long)?,
            "--props",
            "X,Y,Z,health",
            "-o",
            text(&out)?,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let started = Instant::now();
    let partial = loop {
        let found = names(&dir)?
            .into_iter()
            .find(|n| n.starts_with(".out.csv.") && n.ends_with(".partial"));
        if let Some(name) = found {
            let p = dir.join(name);
            if std::fs::metadata(&p)?.len() > 0 {
                break p;
            }
        }
        if child.try_wait()?.is_some() {
            return Err("ticks ended before it was killed".into());
        }
        if started.elapsed() > Duration::from_secs(60) {
            child.kill()?;
            return Err("no rows reached the temporary file".into());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill()?;
    child.wait()?;
    assert_eq!(std::fs::read_to_string(&out)?, OLD);
    assert!(std::fs::read_to_string(&partial)?.starts_with("tick,"));
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
