//! The corpus broadcasts read live over HTTP (a real relay on 127.0.0.1,
//! `.ci/broadcast_server.py`, releasing one fragment every few ms) give
//! what the same broadcasts read from their folders give: every table,
//! the events and the ticks, the state and the cut; after each fault the
//! relay injects too. When the retries run out, the rows before the
//! failure are kept and the cut names the URL, the fragment and the last
//! tick.

#[path = "../../live/tests/common/server.rs"]
mod server;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gamewire_query::input::{self, InputCut, LiveOptions};
use gamewire_query::write::{write_table, Format};
use gamewire_query::{Cut, Parsed, Query, QueryError, RunOptions, TableKind};
use server::{corpus_broadcasts, Relay, Result};

/// Every table, the events and ticks with the props users ask for.
fn query() -> Query {
    Query {
        tables: TableKind::ALL.to_vec(),
        player_props: vec!["X".into(), "Y".into(), "Z".into(), "health".into()],
        ..Query::default()
    }
    .with_options(RunOptions {
        keep_cut: true,
        helper_thread: false,
        ..RunOptions::default()
    })
}

/// A run's outcome as text: every table as CSV, the state's summary and
/// the cut; or the error.
fn outcome(result: std::result::Result<Parsed, QueryError>) -> Result<String> {
    let parsed = match result {
        Ok(parsed) => parsed,
        Err(e) => return Ok(format!("error: {e} ({e:?})")),
    };
    let mut out = Vec::new();
    for table in &parsed.tables {
        writeln!(out, "== {} ({} rows)", table.name, table.rows())?;
        write_table(table, Format::Csv, &mut out)?;
    }
    let s = &parsed.state;
    writeln!(
        out,
        "tick {} frames {} stop {} commands {:?} messages {:?} unknown {:?} warnings {:?}",
        s.tick,
        s.frames,
        s.reached_stop,
        s.command_counts,
        s.message_counts,
        s.unknown_messages,
        s.warnings,
    )?;
    writeln!(out, "cut {:?}", parsed.cut)?;
    Ok(String::from_utf8(out)?)
}

fn first_difference(a: &str, b: &str) -> String {
    let at = a
        .lines()
        .zip(b.lines())
        .position(|(x, y)| x != y)
        .unwrap_or(a.lines().count().min(b.lines().count()));
    format!(
        "line {at}:\n  folder: {:?}\n  HTTP:   {:?}",
        a.lines().nth(at),
        b.lines().nth(at)
    )
}

fn quick() -> LiveOptions {
    LiveOptions {
        idle_timeout: Duration::from_millis(800),
        retries: 4,
        backoff: Duration::from_millis(30),
        request_timeout: Duration::from_millis(1500),
        poll: Some(Duration::from_millis(10)),
        ..LiveOptions::default()
    }
}

/// The query on the broadcast served by `relay`, read live.
fn over_http(q: &Query, relay: &Relay) -> Result<String> {
    let stream = input::open_live(Path::new(&relay.url), quick())?;
    outcome(q.run_source(&mut input::DemoSource::Stream(stream)))
}

#[test]
fn every_table_read_over_http_equals_the_folder() -> Result {
    let q = query();
    for dir in corpus_broadcasts() {
        let folder = outcome(q.run_path(&dir))?;
        assert!(!folder.starts_with("error"), "{folder}");
        assert!(folder.contains("cut None"), "{}", dir.display());
        for end in ["stop", "idle"] {
            let relay = Relay::start(&dir, 20, &["--end", end])?;
            let http = over_http(&q, &relay)?;
            assert!(
                folder == http,
                "{} ({end}): {}",
                dir.display(),
                first_difference(&folder, &http)
            );
        }
    }
    Ok(())
}

#[test]
fn after_each_fault_the_tables_equal_the_folder() -> Result {
    let q = Query {
        tables: vec![TableKind::Events, TableKind::Ticks, TableKind::Players],
        player_props: vec!["X".into(), "Y".into(), "health".into()],
        ..Query::default()
    }
    .with_options(RunOptions {
        keep_cut: true,
        helper_thread: false,
        ..RunOptions::default()
    });
    let dir = &corpus_broadcasts()[1];
    let folder = outcome(q.run_path(dir))?;
    for fault in ["notfound", "500", "slow", "cut", "reset", "restart"] {
        let relay = Relay::start(
            dir,
            20,
            &[
                "--end",
                "stop",
                "--fault",
                fault,
                "--slow-ms",
                "2500",
                "--restart-ms",
                "300",
            ],
        )?;
        let http = over_http(&q, &relay)?;
        assert!(
            folder == http,
            "{fault}: {}",
            first_difference(&folder, &http)
        );
    }
    Ok(())
}

#[test]
fn when_retries_run_out_the_rows_before_are_kept_and_the_cut_names_where() -> Result {
    let dir = &corpus_broadcasts()[0];
    let relay = Relay::start(dir, 10, &["--fault", "500-always@38"])?;
    let q = Query {
        tables: vec![TableKind::Events, TableKind::Ticks],
        player_props: vec!["X".into()],
        ..query()
    };
    let stream = input::open_live(Path::new(&relay.url), quick())?;
    let parsed = q.run_source(&mut input::DemoSource::Stream(stream))?;
    let Some(Cut::Both {
        input: InputCut::Live(e),
        ..
    }) = &parsed.cut
    else {
        return Err(format!("expected a live cut, got {:?}", parsed.cut).into());
    };
    assert_eq!(e.url, format!("{}/38/delta", relay.url));
    assert_eq!(e.fragment.as_deref(), Some("38/delta"));
    assert_eq!(parsed.state.tick, e.last_tick);
    // The rows up to there are the folder's rows up to that tick.
    let whole = q.run_path(dir)?;
    let ticks = |p: &Parsed| -> Result<usize> {
        let t = p.tables.get(1).ok_or("no ticks table")?;
        Ok(t.rows())
    };
    assert!(ticks(&parsed)? > 1000);
    assert!(ticks(&parsed)? < ticks(&whole)?);
    // Without keeping cut demos, the cut is the error, with the URL.
    let relay = Relay::start(dir, 10, &["--fault", "500-always@38"])?;
    let stream = input::open_live(Path::new(&relay.url), quick())?;
    let strict = Query {
        tables: vec![TableKind::Players],
        ..Query::default()
    };
    let error = strict
        .run_source(&mut input::DemoSource::Stream(stream))
        .err()
        .ok_or("a cut was not an error")?;
    let text = error.to_string();
    assert!(
        text.contains("/38/delta") && text.contains("last tick"),
        "{text}"
    );
    Ok(())
}

#[test]
fn a_url_is_an_input_as_a_path_is() -> Result {
    let dir = &corpus_broadcasts()[1];
    let relay = Relay::start(dir, 0, &["--end", "stop"])?;
    let url = PathBuf::from(&relay.url);
    assert!(input::is_url(&url));
    assert!(!input::is_url(dir));
    // Read whole (commands that need the bytes in memory).
    let whole = input::open(&url)?;
    assert!(whole.cut.is_none());
    assert_eq!(whole.bytes, input::open(dir)?.bytes);
    // Through open_source, with the process's live options.
    input::set_live_options(quick());
    assert_eq!(input::live_options(), quick());
    let source = input::open_source(&url)?;
    assert!(matches!(source, input::DemoSource::Stream(_)));
    assert_eq!(
        input::find_demos(std::slice::from_ref(&url))?,
        vec![url.clone()]
    );
    assert!(!input::names_several(std::slice::from_ref(&url)));
    // Nothing listening: an error naming the URL, after the retries.
    drop(relay);
    let error = input::open_live(&url, quick()).err().ok_or("opened")?;
    assert!(
        error
            .to_string()
            .contains(&format!("{}/sync", url.display())),
        "{error}"
    );
    Ok(())
}

#[cfg(unix)]
#[test]
fn a_dangling_demo_link_in_a_folder_is_a_named_not_found() -> Result {
    let dir = tempfile::tempdir()?;
    let sample = gamewire_corpus::workspace_root().join("crates/synth/sample/sample.dem");
    std::fs::copy(&sample, dir.path().join("a.dem"))?;
    let gone = dir.path().join("gone.dem");
    std::os::unix::fs::symlink(dir.path().join("nowhere.dem"), &gone)?;
    let demos = input::find_demos(&[dir.path().to_path_buf()])?;
    assert_eq!(demos, vec![dir.path().join("a.dem"), gone.clone()]);
    let error = input::open(&gone).err().ok_or("a dangling link was read")?;
    assert!(
        matches!(error, input::InputError::DanglingLink { .. }),
        "{error}"
    );
    assert!(error.is_not_found());
    assert!(error.to_string().contains("gone.dem: not found"), "{error}");
    let error = input::open_source(&gone)
        .err()
        .ok_or("a dangling link was read")?;
    assert!(
        matches!(error, input::InputError::DanglingLink { .. }),
        "{error}"
    );
    // A missing file given by name stays a read error.
    let error = input::open(&dir.path().join("absent.dem"))
        .err()
        .ok_or("read")?;
    assert!(matches!(error, input::InputError::Read { .. }), "{error}");
    Ok(())
}
