//! The project's task runner, run as `cargo xtask <task>` (an alias in
//! `.cargo/config.toml`).
//!
//! `cargo xtask test` runs everything CI runs, in one command on a fresh
//! machine:
//!
//! 1. `cargo fmt --all --check`;
//! 2. clippy on every target of the workspace with `-D warnings`;
//! 3. `cargo doc` of the workspace with `-D warnings`;
//! 4. `cargo check` of `fuzz/` and `compare/`, the two cargo projects outside
//!    the workspace, so that they keep building;
//! 5. `.ci/setup-*.sh start`: the peers (demoparser2, twnet-parser), the
//!    Python package's venv and the Teeworlds servers the tests talk to;
//! 6. `cargo test --workspace --locked`, with `CI=true` unless `CI` is
//!    already set (or `--no-setup` is given), so that a test whose peer or
//!    server is missing fails as it does in CI instead of skipping;
//! 7. `.ci/setup-*.sh stop` for every setup script started, whatever happened
//!    before.
//!
//! It first checks that the corpus is there (`GAMEWIRE_CORPUS`, default
//! `../shared/corpus` beside the workspace: see the `gamewire-corpus` crate),
//! stops at the first step that fails and exits with a failure.
//! `cargo test --workspace` alone stays the quick loop: the tests that need
//! a peer or a server skip with a message when it is not set up (and fail
//! when `CI` is set).
//!
//! `cargo xtask tables-doc` writes `docs/tables.md`, the reference of every
//! table's columns, from the code (`gamewire_query::reference`), by running
//! the test that otherwise checks the file is current with
//! `GAMEWIRE_WRITE_TABLES_DOC` set.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus};
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: cargo xtask <task>

tasks:
  test [--no-setup]   everything CI runs: fmt, clippy, doc, `cargo check` of fuzz/ and
                      compare/, the .ci/setup-*.sh scripts (peers, servers), the workspace
                      tests (with CI=true), then the setup scripts' stop. With --no-setup the
                      setup scripts are not run and CI is left as it is (the tests that need
                      them skip, or fail under CI=true).
The corpus is GAMEWIRE_CORPUS, by default ../shared/corpus beside the workspace.
  tables-doc          writes docs/tables.md (every table's columns, types, units and
                      meanings) from the code; `cargo test` fails while it is out of date
  help                this text
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (task, rest) = match args.split_first() {
        Some((task, rest)) => (task.as_str(), rest),
        None => {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match task {
        "test" => match TestOptions::parse(rest) {
            Ok(options) => test(&options),
            Err(message) => {
                eprintln!("error: {message}\n\n{USAGE}");
                ExitCode::from(2)
            }
        },
        "tables-doc" if rest.is_empty() => tables_doc(),
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        other => {
            eprintln!("error: unknown task `{other}`\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// The options of `cargo xtask test`.
#[derive(Debug, Default)]
struct TestOptions {
    /// Do not run the `.ci/setup-*.sh` scripts.
    no_setup: bool,
}

impl TestOptions {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut options = Self::default();
        for arg in args {
            match arg.as_str() {
                "--no-setup" => options.no_setup = true,
                other => return Err(format!("unknown option `{other}` of `test`")),
            }
        }
        Ok(options)
    }
}

/// The workspace root (this crate is `xtask/` inside it).
fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

/// The cargo that runs this task (`cargo +nightly xtask` uses nightly's).
fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// One command of a task, run from the workspace root with its output
/// going straight to ours.
#[derive(Debug)]
struct Step {
    title: String,
    command: Command,
}

impl Step {
    fn new(title: impl Into<String>, program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Self {
        let mut command = Command::new(program);
        command.args(args).current_dir(workspace_root());
        Self {
            title: title.into(),
            command,
        }
    }

    fn cargo(title: impl Into<String>, args: &[&str]) -> Self {
        Self::new(title, cargo(), args)
    }

    fn env(mut self, key: &str, value: &str) -> Self {
        self.command.env(key, value);
        self
    }
}

/// Why a step did not succeed.
#[derive(Debug)]
enum Failure {
    /// The program could not be started.
    Spawn(std::io::Error),
    /// It ran and exited unsuccessfully.
    Exit(ExitStatus),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Spawn(e) => write!(f, "could not be started: {e}"),
            Self::Exit(status) => write!(f, "failed ({status})"),
        }
    }
}

/// Runs the steps in order and keeps how long each took.
#[derive(Debug, Default)]
struct Runner {
    done: Vec<(String, Duration, bool)>,
}

impl Runner {
    fn run(&mut self, mut step: Step) -> Result<(), (String, Failure)> {
        println!("\n== {}", step.title);
        let start = Instant::now();
        let result = match step.command.status() {
            Ok(status) if status.success() => Ok(()),
            Ok(status) => Err(Failure::Exit(status)),
            Err(e) => Err(Failure::Spawn(e)),
        };
        let took = start.elapsed();
        println!(
            "== {}: {} in {}",
            step.title,
            verdict(&result),
            seconds(took)
        );
        self.done.push((step.title.clone(), took, result.is_ok()));
        result.map_err(|failure| (step.title, failure))
    }

    fn summary(&self) {
        println!("\n== summary");
        for (title, took, ok) in &self.done {
            let verdict = if *ok { "ok" } else { "FAILED" };
            println!("{:>8}  {verdict:<6}  {title}", seconds(*took));
        }
        let total: Duration = self.done.iter().map(|(_, took, _)| *took).sum();
        println!("{:>8}  total", seconds(total));
    }
}

fn verdict(result: &Result<(), Failure>) -> String {
    match result {
        Ok(()) => "ok".to_owned(),
        Err(failure) => failure.to_string(),
    }
}

fn seconds(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// The step of `cargo xtask tables-doc`: the reference test of
/// gamewire-query, told to write `docs/tables.md` instead of comparing.
fn tables_doc_step() -> Step {
    Step::cargo(
        "write docs/tables.md",
        &[
            "test",
            "--locked",
            "-p",
            "gamewire-query",
            "--test",
            "reference",
            "tables_doc_is_current",
        ],
    )
    .env(TABLES_DOC_ENV, "1")
}

/// Set, the reference test writes `docs/tables.md` instead of comparing.
const TABLES_DOC_ENV: &str = "GAMEWIRE_WRITE_TABLES_DOC";

/// `cargo xtask tables-doc`.
fn tables_doc() -> ExitCode {
    match Runner::default().run(tables_doc_step()) {
        Ok(()) => ExitCode::SUCCESS,
        Err((title, failure)) => {
            eprintln!("error: {title}: {failure}");
            ExitCode::FAILURE
        }
    }
}

/// `.ci/setup-*.sh`, in name order.
fn setup_scripts(root: &Path) -> Result<Vec<String>, std::io::Error> {
    let mut scripts = Vec::new();
    for entry in std::fs::read_dir(root.join(".ci"))? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.starts_with("setup-") && name.ends_with(".sh") {
            scripts.push(format!(".ci/{name}"));
        }
    }
    scripts.sort();
    Ok(scripts)
}

fn test(options: &TestOptions) -> ExitCode {
    let root = workspace_root();
    let corpus = gamewire_corpus::root();
    if !corpus.is_dir() {
        eprintln!(
            "error: no corpus at {}: set {} to the corpus directory, or put the corpus at {} \
             beside the workspace",
            corpus.display(),
            gamewire_corpus::ENV,
            gamewire_corpus::DEFAULT,
        );
        return ExitCode::FAILURE;
    }
    println!("corpus: {}", corpus.display());
    let scripts = if options.no_setup {
        Vec::new()
    } else {
        match setup_scripts(&root) {
            Ok(scripts) => scripts,
            Err(e) => {
                eprintln!("error: cannot list {}: {e}", root.join(".ci").display());
                return ExitCode::FAILURE;
            }
        }
    };
    let mut runner = Runner::default();
    // The setup scripts whose `start` ran (even partly): each gets its `stop`.
    let mut started: Vec<&str> = Vec::new();
    // Under CI the tests that need a peer or a server fail when it is
    // missing; the setup scripts have just provided them, so the same holds
    // here.
    let ci = !options.no_setup && std::env::var_os("CI").is_none();
    let result = run_test_steps(&mut runner, &scripts, &mut started, ci);
    for script in started.iter().rev() {
        // A failed stop is reported but does not hide the result of the run.
        let _ = runner.run(Step::new(
            format!("{script} stop"),
            "bash",
            &[script, "stop"],
        ));
    }
    runner.summary();
    match result {
        Ok(()) => {
            println!("cargo xtask test: everything passed");
            ExitCode::SUCCESS
        }
        Err((title, failure)) => {
            eprintln!("cargo xtask test: `{title}` {failure}");
            ExitCode::FAILURE
        }
    }
}

fn run_test_steps<'a>(
    runner: &mut Runner,
    scripts: &'a [String],
    started: &mut Vec<&'a str>,
    ci: bool,
) -> Result<(), (String, Failure)> {
    runner.run(Step::cargo("cargo --version", &["--version", "--verbose"]))?;
    runner.run(Step::new("rustc --version", "rustc", &["--version"]))?;
    runner.run(Step::cargo("fmt", &["fmt", "--all", "--check"]))?;
    runner.run(Step::cargo(
        "clippy",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--locked",
            "--",
            "-D",
            "warnings",
        ],
    ))?;
    runner.run(
        Step::cargo("doc", &["doc", "--workspace", "--no-deps", "--locked"])
            .env("RUSTDOCFLAGS", "-D warnings"),
    )?;
    // fuzz/ and compare/ are cargo projects of their own (fuzz/ for
    // cargo-fuzz, compare/ with the peer crates it times). `cargo check`
    // needs no nightly flag: libfuzzer-sys builds on stable, only running a
    // target needs `cargo fuzz` on nightly. Both share the workspace's
    // target directory, so the dependencies they have in common with it are
    // built once.
    for project in ["fuzz", "compare"] {
        let manifest = format!("{project}/Cargo.toml");
        runner.run(Step::cargo(
            format!("check {project}/"),
            &[
                "check",
                "--manifest-path",
                &manifest,
                "--target-dir",
                "target",
            ],
        ))?;
    }
    for script in scripts {
        started.push(script);
        runner.run(Step::new(
            format!("{script} start"),
            "bash",
            &[script, "start"],
        ))?;
    }
    let mut tests = Step::cargo("test", &["test", "--workspace", "--locked"]);
    if ci {
        tests = tests.env("CI", "true");
    }
    runner.run(tests)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn test_options() {
        assert!(!TestOptions::parse(&[]).is_ok_and(|o| o.no_setup));
        assert!(TestOptions::parse(&args(&["--no-setup"])).is_ok_and(|o| o.no_setup));
        assert_eq!(
            TestOptions::parse(&args(&["--fast"])).err().as_deref(),
            Some("unknown option `--fast` of `test`")
        );
    }

    #[test]
    fn the_setup_scripts_are_found_in_name_order() -> Result<(), std::io::Error> {
        let scripts = setup_scripts(&workspace_root())?;
        assert!(
            scripts.contains(&".ci/setup-teeworlds.sh".to_owned()),
            "{scripts:?}"
        );
        assert!(scripts.windows(2).all(|w| w[0] < w[1]), "{scripts:?}");
        for script in &scripts {
            assert!(workspace_root().join(script).is_file(), "{script}");
        }
        Ok(())
    }

    #[test]
    fn steps_run_from_the_workspace_root() {
        let step = Step::cargo("fmt", &["fmt"]).env("CI", "true");
        let root = workspace_root();
        assert_eq!(step.command.get_current_dir(), Some(root.as_path()));
        assert!(root.join("Cargo.toml").is_file());
        assert!(step
            .command
            .get_envs()
            .any(|(k, v)| k == "CI" && v == Some("true".as_ref())));
    }

    #[test]
    fn tables_doc_runs_the_reference_test_in_write_mode() {
        let step = tables_doc_step();
        let args: Vec<&std::ffi::OsStr> = step.command.get_args().collect();
        assert!(args
            .windows(2)
            .any(|w| w[0] == "--test" && w[1] == "reference"));
        assert!(step
            .command
            .get_envs()
            .any(|(k, v)| k == TABLES_DOC_ENV && v == Some("1".as_ref())));
        // The test it runs exists under that name.
        let test = workspace_root().join("crates/query/tests/reference.rs");
        let text = std::fs::read_to_string(test).unwrap_or_default();
        assert!(text.contains("fn tables_doc_is_current()"));
        assert!(text.contains(TABLES_DOC_ENV));
    }
}
