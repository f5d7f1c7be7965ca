//! CS2 demos written as HTTP broadcasts by the demo writer
//! ([`gamewire_source2::edit::broadcast`]) and served live by the test
//! relay (`.ci/broadcast_server.py`, a real HTTP server on 127.0.0.1,
//! releasing one fragment every few ms, with faults injected) give the
//! demo's own tables: every table, the events and the ticks, read whole
//! over HTTP and followed ([`Follower`], the rows as the fragments come),
//! equal the same query on the original `.dem`. The demos are corpus
//! CS2 clips and the synthesized sample match (kills, rounds, damages,
//! purchases, grenades over 2.5 minutes).
//!
//! One difference is by design: a broadcast has no `CDemoFileInfo` (a
//! relay sends none), so the `header` table's `frames` is empty for it;
//! that column is left out of the comparison.

#[path = "../../live/tests/common/server.rs"]
mod server;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gamewire_query::follow::Follower;
use gamewire_query::input::{self, LiveOptions};
use gamewire_query::write::{write_table, Format};
use gamewire_query::{Query, RunOptions, Table, TableKind};
use gamewire_source2::edit::broadcast::broadcast;
use server::{Relay, Result};

/// Every table, the events and ticks with the props users ask for.
fn query() -> Query {
    Query {
        tables: TableKind::ALL.to_vec(),
        player_props: ["X", "Y", "Z", "health", "balance", "active_weapon_name"]
            .map(String::from)
            .to_vec(),
        ..Query::default()
    }
    .with_options(RunOptions {
        helper_thread: false,
        ..RunOptions::default()
    })
}

fn quick() -> LiveOptions {
    LiveOptions {
        idle_timeout: Duration::from_secs(10),
        retries: 4,
        backoff: Duration::from_millis(30),
        request_timeout: Duration::from_millis(1500),
        poll: Some(Duration::from_millis(10)),
        ..LiveOptions::default()
    }
}

/// The tables as text: each as CSV, `events` as JSON Lines rows without
/// their null values (read as fragments arrive, `events` declares a key
/// once its event has been seen), `header` without `frames`.
fn tables_text(tables: &[Table]) -> Result<String> {
    let mut out = Vec::new();
    for table in tables {
        writeln!(out, "== {} ({} rows)", table.name, table.rows())?;
        if table.name == "events" {
            let mut jsonl = Vec::new();
            write_table(table, Format::Jsonl, &mut jsonl)?;
            for line in String::from_utf8(jsonl)?.lines() {
                let mut row: serde_json::Map<String, serde_json::Value> =
                    serde_json::from_str(line)?;
                row.retain(|_, v| !v.is_null());
                writeln!(out, "{}", serde_json::Value::Object(row))?;
            }
        } else if table.name == "header" {
            let mut t = table.clone();
            t.columns.retain(|(n, _)| n != "frames");
            write_table(&t, Format::Csv, &mut out)?;
        } else {
            write_table(table, Format::Csv, &mut out)?;
        }
    }
    Ok(String::from_utf8(out)?)
}

fn first_difference(a: &str, b: &str) -> String {
    let at = a
        .lines()
        .zip(b.lines())
        .position(|(x, y)| x != y)
        .unwrap_or(a.lines().count().min(b.lines().count()));
    format!(
        "line {at}:\n  demo: {:?}\n  HTTP: {:?}",
        a.lines().nth(at),
        b.lines().nth(at)
    )
}

/// Writes `demo` as a broadcast folder of `seconds`-long fragments into
/// `dir`; the number of fragments.
fn write_broadcast(demo: &Path, seconds: f64, dir: &Path) -> Result<u32> {
    let written = broadcast(std::fs::read(demo)?.as_slice(), seconds)?;
    std::fs::write(dir.join("sync.json"), written.sync.to_json())?;
    for fragment in &written.fragments {
        let path = dir.join(&fragment.name);
        std::fs::create_dir_all(path.parent().ok_or("a fragment without a folder")?)?;
        std::fs::write(path, &fragment.data)?;
    }
    Ok(written.fragment_count())
}

/// The tables read whole over HTTP from `relay`.
fn read_whole(q: &Query, relay: &Relay) -> Result<Vec<Table>> {
    let stream = input::open_live(Path::new(&relay.url), quick())?;
    let parsed = q.run_source(&mut input::DemoSource::Stream(stream))?;
    if parsed.cut.is_some() {
        return Err(format!("{}: cut {:?}", relay.url, parsed.cut).into());
    }
    Ok(parsed.tables)
}

/// The tables followed over HTTP from `relay`: the rows of every step and
/// of the end, gathered per table in the query's order; and the number of
/// steps that gave rows.
fn read_followed(q: &Query, relay: &Relay) -> Result<(Vec<Table>, usize)> {
    let url = PathBuf::from(&relay.url);
    let stream = input::open_live(&url, quick())?;
    let mut follower = Follower::new(q, &url, stream)?;
    let mut gathered: Vec<Table> = Vec::new();
    let mut gather = |tables: Vec<Table>| {
        for t in tables {
            match gathered.iter_mut().find(|g| g.name == t.name) {
                Some(g) => g.append(t),
                None => gathered.push(t),
            }
        }
    };
    let mut steps = 0;
    while let Some(tables) = follower.next_rows()? {
        steps += usize::from(tables.iter().any(|t| t.rows() > 0));
        gather(tables);
    }
    let (end, stream) = follower.finish();
    let parsed = end?;
    if parsed.cut.is_some() || stream.cut().is_some() {
        return Err(format!("{}: cut {:?} {:?}", relay.url, parsed.cut, stream.cut()).into());
    }
    gather(parsed.tables);
    // In the query's order, as a whole run gives them.
    let order: Vec<&str> = q.tables.iter().map(|k| k.name()).collect();
    gathered.sort_by_key(|t| order.iter().position(|n| *n == t.name));
    Ok((gathered, steps))
}

/// The demos: corpus clips in half-second fragments, the synthesized
/// sample match in 3-second fragments (as CSTV+); and the faults the relay
/// plays while serving them.
fn demos() -> Vec<(PathBuf, f64, &'static [&'static str])> {
    vec![
        (
            gamewire_corpus::path("cs2/14065.dem"),
            0.5,
            &["--fault", "500@2", "--fault", "reset@4"],
        ),
        (
            gamewire_corpus::path("cs2/14155.dem"),
            0.5,
            &["--fault", "cut@full", "--fault", "restart@3"],
        ),
        (
            gamewire_corpus::path("cs2/14150_ag2.dem"),
            0.5,
            &["--fault", "notfound@2", "--fault", "cut@3"],
        ),
        (
            gamewire_corpus::workspace_root().join("crates/synth/sample/sample.dem"),
            3.0,
            &[
                "--fault",
                "reset@start",
                "--fault",
                "500@20",
                "--fault",
                "cut@40",
            ],
        ),
    ]
}

#[test]
fn cs2_broadcasts_written_read_over_http_equal_the_demo() -> Result {
    let q = query();
    let tmp = tempfile::tempdir()?;
    for (i, (demo, seconds, faults)) in demos().into_iter().enumerate() {
        let name = demo.display().to_string();
        let dir = tmp.path().join(i.to_string());
        std::fs::create_dir_all(&dir)?;
        let fragments = write_broadcast(&demo, seconds, &dir)?;
        if fragments < 5 {
            return Err(format!("{name}: {fragments} fragments").into());
        }
        let want = tables_text(&q.run_path(&demo)?.tables)?;
        let mut options = vec!["--end", "stop", "--restart-ms", "200"];
        options.extend(faults);
        // Read whole, the fragments released at a live pace.
        let relay = Relay::start(&dir, 5, &options)?;
        let whole = tables_text(&read_whole(&q, &relay)?)?;
        assert!(
            want == whole,
            "{name} read over HTTP: {}",
            first_difference(&want, &whole)
        );
        // Followed: rows in several steps, all of them once.
        let relay = Relay::start(&dir, 5, &options)?;
        let (tables, steps) = read_followed(&q, &relay)?;
        let followed = tables_text(&tables)?;
        assert!(
            want == followed,
            "{name} followed over HTTP: {}",
            first_difference(&want, &followed)
        );
        assert!(steps > 1, "{name}: the rows came in {steps} step(s)");
    }
    Ok(())
}
