//! CS2 demos written by `gamewire broadcast` and served live by the test
//! relay (`.ci/broadcast_server.py`, a real HTTP server on 127.0.0.1,
//! releasing one fragment every few ms, with faults injected): `events`,
//! `ticks` and the CS2 tables read from the relay's URL, with and without
//! `--follow`, write what the same commands write on the original `.dem`.
//! The demos are two corpus clips (in half-second fragments) and the
//! synthesized sample match (3-second fragments as CSTV+; its kills,
//! rounds, damages and purchases).

mod common;

use common::{gamewire, rows_without_nulls, text};

#[path = "../../live/tests/common/server.rs"]
mod server;

use std::path::{Path, PathBuf};

use server::{Relay, Result};

/// Runs `args` then `input` (and `more`), expecting success without a
/// warning: standard output.
fn run(args: &[&str], input: &str, more: &[&str]) -> Result<String> {
    let mut all = args.to_vec();
    all.push(input);
    all.extend(more);
    let (ok, out, err) = gamewire(&all)?;
    if !ok || !err.is_empty() {
        return Err(format!("{all:?}: {err}").into());
    }
    Ok(out)
}

/// The commands: `events` as JSON Lines and as CSV with `--name`, `ticks`,
/// and the match tables.
const COMMANDS: [&[&str]; 8] = [
    &["events", "--format", "jsonl"],
    &[
        "events",
        "--name",
        "player_death,player_hurt,weapon_fire,round_end,item_purchase",
        "--props",
        "X,health",
    ],
    &[
        "ticks",
        "--props",
        "X,Y,Z,health,balance,active_weapon_name",
    ],
    &["table", "kills"],
    &["table", "rounds", "--format", "jsonl"],
    &["table", "players"],
    &["table", "damages", "--format", "jsonl"],
    &["table", "purchases"],
];

fn same(args: &[&str], want: &str, got: &str) -> Result<bool> {
    Ok(if args == ["events", "--format", "jsonl"] {
        rows_without_nulls(want)? == rows_without_nulls(got)?
    } else {
        want == got
    })
}

/// Writes `demo` with `gamewire broadcast` in `seconds`-long fragments,
/// serves it with `faults` (each costs the client a retry, half a second
/// at the command's back-off, or a poll), and checks every command on the URL (whole,
/// then followed, each on a relay of its own) against the `.dem`.
fn check(demo: &Path, seconds: &str, faults: &[&str]) -> Result {
    let name = demo.file_stem().ok_or("a name")?.to_string_lossy();
    let tmp = std::env::temp_dir().join(format!(
        "gamewire-cli-broadcast-http-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp)?;
    let folder = tmp.join("broadcast");
    let (ok, _, err) = gamewire(&[
        "broadcast",
        text(demo)?,
        text(&folder)?,
        "--fragment-seconds",
        seconds,
    ])?;
    if !ok {
        return Err(format!("broadcast {name}: {err}").into());
    }
    let mut options = vec!["--end", "stop", "--restart-ms", "200"];
    options.extend(faults);
    // Without --follow: one relay, its faults played on the first command.
    let relay = Relay::start(&folder, 5, &options)?;
    let mut rows = 0;
    for (i, args) in COMMANDS.into_iter().enumerate() {
        let want = run(args, text(demo)?, &[])?;
        rows += want.lines().count();
        let got = run(args, &relay.url, &[])?;
        if !same(args, &want, &got)? {
            return Err(format!("{name} {args:?} over HTTP differs from the demo").into());
        }
        // With --follow, on a relay of its own releasing the fragments
        // (with the faults for `events` and `ticks`).
        let plain = ["--end", "stop"];
        let live = Relay::start(&folder, 5, if i < 3 { &options } else { &plain })?;
        let followed = run(args, &live.url, &["--follow", "--idle-timeout", "10"])?;
        if !same(args, &want, &followed)? {
            return Err(format!("{name} {args:?} --follow over HTTP differs from the demo").into());
        }
    }
    if rows < 200 {
        return Err(format!("{name}: {rows} lines in all").into());
    }
    std::fs::remove_dir_all(&tmp)?;
    Ok(())
}

#[test]
fn clip_14065_served_equals_the_demo() -> Result {
    check(
        &gamewire_corpus::path("cs2/14065.dem"),
        "0.5",
        &["--fault", "reset@2", "--fault", "cut@4"],
    )
}

#[test]
fn clip_14155_served_equals_the_demo() -> Result {
    check(
        &gamewire_corpus::path("cs2/14155.dem"),
        "0.5",
        &["--fault", "cut@full", "--fault", "restart@3"],
    )
}

#[test]
fn sample_match_served_equals_the_demo() -> Result {
    let sample: PathBuf = gamewire_corpus::workspace_root().join("crates/synth/sample/sample.dem");
    check(
        &sample,
        "3",
        &[
            "--fault",
            "reset@start",
            "--fault",
            "notfound@20",
            "--fault",
            "cut@40",
        ],
    )
}
