//! `--follow` on a live HTTP broadcast: a `gamewire` process reads the
//! corpus's Deadlock broadcasts from a real relay on 127.0.0.1
//! (`.ci/broadcast_server.py`, releasing one fragment every few ms) and
//! writes the rows as the fragments arrive. Its output is the output of
//! the same command on the broadcast's folder, for `events`, `ticks` and
//! several tables, as JSON Lines and as CSV: no row lost, none twice; the
//! same after the faults the relay injects (a 500, a reset connection, a
//! body cut short, a restart, a fragment not found although released);
//! and the first rows come out before the broadcast's last fragment is
//! released.

mod common;

use common::{gamewire, rows_without_nulls, text};

#[path = "../../live/tests/common/server.rs"]
mod server;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use server::{corpus_broadcasts, Relay, Result};

/// The commands followed: `events` as JSON Lines (every event) and as CSV
/// (`--name`), `ticks` as CSV, tables whose rows come as they are made
/// (`user_commands`, `kills`) and tables written at the end (`players`,
/// `updated_fields`), in both formats.
const COMMANDS: [&[&str]; 7] = [
    &["events", "--format", "jsonl"],
    &[
        "events",
        "--name",
        "player_used_ability,server_cvar,citadeltv_chase_hero,player_death",
    ],
    &["ticks", "--props", "X,Y,Z,health,team_num"],
    &["table", "user_commands"],
    &["table", "kills", "--format", "jsonl"],
    &["table", "players", "--format", "jsonl"],
    &["table", "updated_fields"],
];

/// Checks that `followed` (the command on the URL with `--follow`) is
/// `whole` (the command on the folder): the same lines, or for `events`
/// as JSON Lines without `--name` the same rows, null keys aside. Every
/// command but `kills` (one kill in street_test, none in dl_midtown) has
/// rows.
fn same_output(args: &[&str], whole: &str, followed: &str, what: &str) -> Result {
    let header = usize::from(!args.contains(&"jsonl"));
    if whole.lines().count() <= header && !args.contains(&"kills") {
        return Err(format!("{what} {args:?}: the folder gives no row").into());
    }
    let same = if args == ["events", "--format", "jsonl"] {
        rows_without_nulls(followed)? == rows_without_nulls(whole)?
    } else {
        followed == whole
    };
    if !same {
        return Err(format!(
            "{what} {args:?}: {} lines followed over HTTP, {} from the folder",
            followed.lines().count(),
            whole.lines().count()
        )
        .into());
    }
    Ok(())
}

/// The command `args` on the folder `dir`: its standard output.
fn on_folder(args: &[&str], dir: &Path) -> Result<String> {
    let mut all = args.to_vec();
    all.push(text(dir)?);
    let (ok, out, err) = gamewire(&all)?;
    if !ok || !err.is_empty() {
        return Err(format!("{args:?} on {}: {err}", dir.display()).into());
    }
    Ok(out)
}

/// The command `args` with `--follow` on the broadcast `relay` serves:
/// its standard output, after checking that it succeeded without a
/// warning.
fn followed(args: &[&str], relay: &Relay, idle_timeout: &str) -> Result<String> {
    let mut all = args.to_vec();
    all.extend([
        relay.url.as_str(),
        "--follow",
        "--idle-timeout",
        idle_timeout,
    ]);
    let (ok, out, err) = gamewire(&all)?;
    if !ok || !err.is_empty() {
        return Err(format!("{all:?}: {err}").into());
    }
    Ok(out)
}

/// Every command, followed on the broadcast `dir` served live (a fragment
/// every 20 ms, ending with `DEM_Stop`), equals the command on the
/// folder; one more ends by the idle time-out instead.
fn followed_commands_equal_the_folder(dir: &Path) -> Result {
    for args in COMMANDS {
        let whole = on_folder(args, dir)?;
        let relay = Relay::start(dir, 20, &["--end", "stop"])?;
        let live = followed(args, &relay, "10")?;
        same_output(args, &whole, &live, &dir.display().to_string())?;
    }
    // A relay that stops producing without DEM_Stop: the broadcast ends
    // after the idle time-out, with every row.
    let args: &[&str] = &["ticks", "--props", "X,Y,health", "--format", "jsonl"];
    let relay = Relay::start(dir, 20, &["--end", "idle"])?;
    let live = followed(args, &relay, "0.5")?;
    same_output(args, &on_folder(args, dir)?, &live, "idle end")
}

#[test]
fn midtown_followed_over_http_equals_the_folder() -> Result {
    let dirs = corpus_broadcasts();
    followed_commands_equal_the_folder(dirs.first().ok_or("no broadcast")?)
}

#[test]
fn street_test_followed_over_http_equals_the_folder() -> Result {
    let dirs = corpus_broadcasts();
    followed_commands_equal_the_folder(dirs.get(1).ok_or("no broadcast")?)
}

/// After the faults the relay injects, each played once at its fragment,
/// the followed output still equals the folder's: the requests are
/// retried, no fragment is read twice or skipped.
#[test]
fn after_faults_the_followed_output_equals_the_folder() -> Result {
    let dirs = corpus_broadcasts();
    let (midtown, street) = (
        dirs.first().ok_or("no broadcast")?,
        dirs.get(1).ok_or("no broadcast")?,
    );
    // dl_midtown: fragments 35 to 40; street_test: 22 to 31.
    let runs: [(&Path, &[&str], &[&str]); 2] = [
        (
            midtown,
            &["ticks", "--props", "X,Y,health"],
            &[
                "--fault",
                "500@36",
                "--fault",
                "reset@37",
                "--fault",
                "restart@38",
                "--fault",
                "cut@39",
            ],
        ),
        (
            street,
            &["events", "--format", "jsonl"],
            &[
                "--fault",
                "reset@start",
                "--fault",
                "cut@full",
                "--fault",
                "notfound@24",
                "--fault",
                "restart@27",
                "--fault",
                "cut@30",
            ],
        ),
    ];
    for (dir, args, faults) in runs {
        let whole = on_folder(args, dir)?;
        let mut options = vec!["--end", "stop", "--restart-ms", "300"];
        options.extend(faults);
        let relay = Relay::start(dir, 20, &options)?;
        let live = followed(args, &relay, "10")?;
        same_output(args, &whole, &live, &format!("faults {faults:?}"))?;
    }
    Ok(())
}

/// Rows come out while the broadcast goes on: the relay holds the
/// fragments from 28 on (of 22 to 31) until the test has read rows from
/// the process's standard output; then it releases them, and the whole
/// output equals the folder's.
#[test]
fn rows_come_out_before_the_last_fragment_is_released() -> Result {
    let dirs = corpus_broadcasts();
    let dir = dirs.get(1).ok_or("no broadcast")?;
    let gates =
        std::env::temp_dir().join(format!("gamewire-cli-follow-http-{}", std::process::id()));
    std::fs::create_dir_all(&gates)?;
    let commands: [&[&str]; 3] = [
        &["ticks", "--props", "X,Y"],
        &["events", "--format", "jsonl"],
        &["table", "user_commands", "--format", "jsonl"],
    ];
    for (i, args) in commands.into_iter().enumerate() {
        let gate = gates.join(format!("release-{i}"));
        let relay = Relay::start(
            dir,
            20,
            &[
                "--end",
                "stop",
                "--hold-from",
                "28",
                "--hold-until",
                text(&gate)?,
            ],
        )?;
        let mut all = args.to_vec();
        all.extend([relay.url.as_str(), "--follow", "--idle-timeout", "60"]);
        let mut child = Command::new(env!("CARGO_BIN_EXE_gamewire"))
            .args(&all)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::spawn(move || -> std::io::Result<()> {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line?).is_err() {
                    break;
                }
            }
            Ok(())
        });
        // A row (after the CSV header), with fragments 28 to 31 held.
        let first_row = if args.contains(&"jsonl") { 1 } else { 2 };
        let mut lines = Vec::new();
        while lines.len() < first_row {
            match rx.recv_timeout(Duration::from_secs(60)) {
                Ok(line) => lines.push(line),
                Err(_) => break,
            }
        }
        let early = lines.len();
        std::fs::write(&gate, b"")?;
        lines.extend(rx.iter());
        let out = child.wait_with_output()?;
        reader.join().map_err(|_| "reader thread")??;
        if early < first_row {
            return Err(format!("{args:?}: no row before the last fragments").into());
        }
        if !out.status.success() {
            return Err(format!("{args:?}: {}", String::from_utf8_lossy(&out.stderr)).into());
        }
        let mut live = lines.join("\n");
        live.push('\n');
        same_output(args, &on_folder(args, dir)?, &live, "held")?;
    }
    std::fs::remove_dir_all(gates)?;
    Ok(())
}
