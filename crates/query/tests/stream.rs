//! Demos read as streams give what the same demos read whole give: every
//! table (with the events and ticks of the analyst commands), the state,
//! the warnings and the cut, on every corpus demo (CS2, Deadlock, Dota 2,
//! the two Deadlock broadcasts, the sample), on copies cut short and on a
//! compressed copy cut short.

use std::io::Write;
use std::path::{Path, PathBuf};

use gamewire_query::input::{self, DemoSource, DemoStream};
use gamewire_query::write::{write_table, Format};
use gamewire_query::{Parsed, Query, QueryError, RunOptions, TableKind};

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Every corpus demo as the input stage reads it whole: the demo files,
/// the broadcasts rewritten as one demo stream, and the sample.
fn corpus() -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut out = Vec::new();
    for path in gamewire_corpus::source2_demos()? {
        let bytes = std::fs::read(&path)?;
        out.push((path, bytes));
    }
    let broadcasts = gamewire_corpus::path("deadlock/broadcast");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&broadcasts)?
        .flatten()
        .map(|e| e.path())
        .collect();
    folders.sort();
    for folder in folders {
        let demo = input::open(&folder)?;
        out.push((folder, demo.bytes));
    }
    let sample = gamewire_corpus::workspace_root().join("crates/synth/sample/sample.dem");
    out.push((sample.clone(), std::fs::read(&sample)?));
    if out.len() < 10 {
        return Err(format!("expected 10 demos, found {}", out.len()).into());
    }
    Ok(out)
}

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
        writeln!(out, "== {}", table.name)?;
        write_table(table, Format::Csv, &mut out)?;
    }
    let s = &parsed.state;
    writeln!(
        out,
        "tick {} frames {} stop {} commands {:?} messages {:?} unknown {:?} warnings {:?} \
         header {:?} info {:?}",
        s.tick,
        s.frames,
        s.reached_stop,
        s.command_counts,
        s.message_counts,
        s.unknown_messages,
        s.warnings,
        s.header,
        s.file_info
    )?;
    writeln!(out, "cut {:?}", parsed.cut)?;
    Ok(String::from_utf8(out)?)
}

/// The query on bytes in memory, and on the same bytes as a stream.
fn both(q: &Query, name: &Path, bytes: &[u8]) -> Result<(String, String)> {
    let memory = outcome(q.run_input(&input::from_bytes(name, bytes.to_vec())?))?;
    let stream = DemoStream::new(name, std::io::Cursor::new(bytes.to_vec()), None)?;
    let streamed = outcome(q.run_source(&mut DemoSource::Stream(stream)))?;
    Ok((memory, streamed))
}

fn first_difference(a: &str, b: &str) -> String {
    let at = a
        .lines()
        .zip(b.lines())
        .position(|(x, y)| x != y)
        .unwrap_or(a.lines().count().min(b.lines().count()));
    format!(
        "line {at}:\n  in memory: {:?}\n  streamed:  {:?}",
        a.lines().nth(at),
        b.lines().nth(at)
    )
}

#[test]
fn every_corpus_demo_streams_to_the_same_tables() -> Result {
    let q = query();
    for (path, bytes) in corpus()? {
        let (memory, streamed) = both(&q, &path, &bytes)?;
        assert!(
            memory == streamed,
            "{}: {}",
            path.display(),
            first_difference(&memory, &streamed)
        );
        assert!(!memory.starts_with("error"), "{}: {memory}", path.display());
        // A file through the path that streams it, whatever its size.
        if path.is_file() {
            let stream = input::open_stream(&path)?;
            let from_file = outcome(q.run_source(&mut DemoSource::Stream(stream)))?;
            let memory = outcome(q.run_input(&input::open(&path)?))?;
            assert!(
                memory == from_file,
                "{}: {}",
                path.display(),
                first_difference(&memory, &from_file)
            );
        }
    }
    Ok(())
}

#[test]
fn cut_copies_stream_to_the_same_rows_and_cut() -> Result {
    // Fewer tables keep it quick; the events and ticks are the ones users
    // read from cut demos.
    let q = Query {
        tables: vec![TableKind::Events, TableKind::Ticks, TableKind::Players],
        ..query()
    };
    for (path, bytes) in corpus()? {
        let len = bytes.len();
        let mut cuts = vec![4, 12, 16, 19, len - 2];
        cuts.extend((1..6).map(|k| len * k / 6 + 3 * k));
        for cut in cuts {
            let (memory, streamed) = both(&q, &path, &bytes[..cut])?;
            assert!(
                memory == streamed,
                "{} cut at {cut}: {}",
                path.display(),
                first_difference(&memory, &streamed)
            );
        }
    }
    Ok(())
}

#[test]
fn a_compressed_copy_cut_short_streams_to_the_same_rows_and_cut() -> Result {
    let q = Query {
        tables: vec![TableKind::Events, TableKind::Ticks],
        ..query()
    };
    let path = gamewire_corpus::path("cs2/14065.dem");
    let demo = std::fs::read(&path)?;
    let dir = tempfile::tempdir()?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&demo)?;
    let gz = gz.finish()?;
    let zst = zstd::stream::encode_all(&demo[..], 3)?;
    for (name, packed) in [("x.dem.gz", gz), ("x.dem.zst", zst)] {
        for keep in [packed.len() * 3 / 5, packed.len() - 9, packed.len()] {
            let file = dir.path().join(name);
            std::fs::write(&file, &packed[..keep])?;
            let memory = outcome(
                input::open(&file)
                    .map_err(QueryError::from)
                    .and_then(|i| q.run_input(&i)),
            )?;
            let streamed =
                outcome(q.run_source(&mut DemoSource::Stream(input::open_stream(&file)?)))?;
            assert!(
                memory == streamed,
                "{name} cut at {keep}: {}",
                first_difference(&memory, &streamed)
            );
            if keep < packed.len() {
                assert!(
                    memory.contains("Compressed"),
                    "{name} cut at {keep}: {memory}"
                );
            }
            // Not kept: the input's cut is the error, either way.
            let strict = q.clone().keeping_cut(false);
            let memory = outcome(
                input::open(&file)
                    .map_err(QueryError::from)
                    .and_then(|i| strict.run_input(&i)),
            )?;
            let streamed =
                outcome(strict.run_source(&mut DemoSource::Stream(input::open_stream(&file)?)))?;
            assert_eq!(memory, streamed, "{name} cut at {keep}, not kept");
        }
    }
    Ok(())
}

#[test]
fn a_compressed_bomb_is_refused_when_streamed_too() -> Result {
    let zeros = vec![0u8; 40 << 20];
    let packed = zstd::stream::encode_all(&zeros[..], 3)?;
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("bomb.dem.zst");
    std::fs::write(&file, &packed)?;
    let q = query();
    let Err(memory) = input::open(&file) else {
        return Err("the bomb was accepted in memory".into());
    };
    let expected = QueryError::from(memory);
    let streamed = outcome(q.run_source(&mut DemoSource::Stream(input::open_stream(&file)?)))?;
    assert_eq!(streamed, format!("error: {expected} ({expected:?})"));
    Ok(())
}
