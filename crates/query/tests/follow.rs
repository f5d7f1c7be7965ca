//! A demo followed as it arrives gives the rows of the finished demo: fed
//! in pieces of random size ([`FollowRun`]), and read from a file that a
//! writer thread appends to in pieces with pauses ([`GrowingFile`]). Every
//! row comes once: the rows taken as they arrive, then the rest at the
//! end, are the rows of the whole run, table by table, in order. A file
//! whose writer stops before the demo's end ends after the idle time-out
//! with the rows before the cut.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gamewire_query::follow::{FollowOptions, Follower, GrowingFile};
use gamewire_query::run::{rows_arrive_complete, FollowRun};
use gamewire_query::{Cell, Parsed, Query, RunOptions, Table, TableKind};

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Every corpus demo file and the sample.
fn demos() -> Result<Vec<PathBuf>> {
    let mut out = gamewire_corpus::source2_demos()?;
    out.push(gamewire_corpus::workspace_root().join("crates/synth/sample/sample.dem"));
    if out.len() < 7 {
        return Err(format!("expected 7 demos, found {}", out.len()).into());
    }
    Ok(out)
}

/// Every table, the events and ticks with the props users ask for.
fn query(keep_cut: bool) -> Query {
    Query {
        tables: TableKind::ALL.to_vec(),
        player_props: vec!["X".into(), "Y".into(), "health".into()],
        ..Query::default()
    }
    .with_options(RunOptions {
        keep_cut,
        helper_thread: false,
        ..RunOptions::default()
    })
}

/// A small deterministic generator of piece sizes (xorshift).
struct Sizes(u64);

impl Sizes {
    fn next(&mut self, max: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        1 + (self.0 % max as u64) as usize
    }
}

/// The rows given as they arrive, gathered per table name.
#[derive(Default)]
struct Gathered(Vec<Table>);

impl Gathered {
    fn add(&mut self, tables: Vec<Table>) {
        for t in tables {
            match self.0.iter_mut().find(|g| g.name == t.name) {
                Some(g) => g.append(t),
                None => self.0.push(t),
            }
        }
    }

    /// Whether the rows taken and then the rest at the end are the whole
    /// run's table: the same rows in the same order, every column's cells
    /// equal (a column `events` declares only once its event has been seen
    /// is null in the rows before). The error names the table, the column
    /// and the row.
    fn check(mut self, end: Parsed, whole: &Parsed, what: &str) -> Result<usize> {
        let mut compared = 0;
        self.add(end.tables);
        for expected in &whole.tables {
            let got = self
                .0
                .iter()
                .find(|t| t.name == expected.name)
                .ok_or_else(|| format!("{what}: no {} table", expected.name))?;
            if got.rows() != expected.rows() {
                return Err(format!(
                    "{what}: {}: {} rows followed, {} whole",
                    expected.name,
                    got.rows(),
                    expected.rows()
                )
                .into());
            }
            for (name, column) in &expected.columns {
                let mine = got.column(name);
                for i in 0..expected.rows() {
                    let want = column.cell(i);
                    let have = mine.map_or(Cell::Null, |c| c.cell(i));
                    if want != have {
                        return Err(format!(
                            "{what}: {} row {i} column {name}: {have:?} followed, {want:?} whole",
                            expected.name
                        )
                        .into());
                    }
                }
            }
            for (name, column) in &got.columns {
                if expected.column(name).is_none() && !column.is_all_null() {
                    return Err(format!("{what}: {}: extra column {name}", expected.name).into());
                }
            }
            // Tables complete only at the end keep their columns and types.
            if !rows_arrive_complete(expected.name.parse()?) && got != expected {
                return Err(format!("{what}: {} differs", expected.name).into());
            }
            compared += expected.rows();
        }
        Ok(compared)
    }
}

/// Fed in pieces of random size, every corpus demo gives every table's
/// rows once, in order; the rows of the tables that arrive complete come
/// out before the end.
#[test]
fn pieces_of_any_size_give_the_whole_run() -> Result {
    let mut sizes = Sizes(0x9e37_79b9_7f4a_7c15);
    for path in demos()? {
        let data = std::fs::read(&path)?;
        // Keeping a cut: the Dota 2 demo ends without its `DEM_Stop`.
        let q = query(true);
        let whole = q.run(&data)?;
        for max in [1 << 10, 1 << 16] {
            let mut run = FollowRun::new(&q)?;
            let mut gathered = Gathered::default();
            let mut early = 0;
            let mut rest = &data[..];
            while !rest.is_empty() {
                let n = sizes.next(max).min(rest.len());
                let (piece, after) = rest.split_at(n);
                run.push(piece)?;
                let new = run.take_new()?;
                for t in &new {
                    if !rows_arrive_complete(t.name.parse()?) {
                        return Err(format!("{}: {} given early", path.display(), t.name).into());
                    }
                    if rest.len() > data.len() / 2 {
                        early += t.rows();
                    }
                }
                gathered.add(new);
                rest = after;
            }
            if run.reached_stop() != whole.cut.is_none() {
                return Err(
                    format!("{}: DEM_Stop read {}", path.display(), run.reached_stop()).into(),
                );
            }
            let what = format!("{} (pieces up to {max})", path.display());
            let end = run.finish()?;
            if end.cut.as_ref().map(ToString::to_string)
                != whole.cut.as_ref().map(ToString::to_string)
            {
                return Err(format!("{what}: cut {:?}, whole {:?}", end.cut, whole.cut).into());
            }
            let rows = gathered.check(end, &whole, &what)?;
            if rows == 0 || early == 0 {
                return Err(format!("{what}: {rows} rows, {early} in the first half").into());
            }
        }
    }
    Ok(())
}

/// Writes `data` to `path` in pieces of random size with pauses, as a
/// recorder does; `upto` bytes, then stops (the file is left as it is).
fn write_slowly(path: PathBuf, data: Vec<u8>, upto: usize, seed: u64) -> std::io::Result<()> {
    let mut sizes = Sizes(seed);
    let mut file = std::fs::OpenOptions::new().append(true).open(path)?;
    let mut at = 0;
    while at < upto {
        let n = sizes.next(48 * 1024).min(upto - at);
        file.write_all(data.get(at..at + n).unwrap_or_default())?;
        file.flush()?;
        at += n;
        std::thread::sleep(Duration::from_millis(sizes.next(15) as u64));
    }
    Ok(())
}

/// A temporary folder of its own for a test.
fn temp_dir(name: &str) -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("gamewire-follow-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// Follows `path` while `data[..upto]` is written to it; the rows given as
/// they came and the end.
fn follow_while_written(
    q: &Query,
    path: &Path,
    data: &[u8],
    upto: usize,
    options: FollowOptions,
) -> Result<(Gathered, Parsed, GrowingFile, usize)> {
    std::fs::write(path, b"")?;
    let writer = {
        let (path, data) = (path.to_path_buf(), data.to_vec());
        std::thread::spawn(move || write_slowly(path, data, upto, 0x2545_f491_4f6c_dd1d))
    };
    let mut follower = Follower::new(q, path, GrowingFile::open(path, options)?)?;
    let mut gathered = Gathered::default();
    let mut batches = 0;
    while let Some(new) = follower.next_rows()? {
        batches += usize::from(!new.is_empty());
        gathered.add(new);
    }
    writer
        .join()
        .map_err(|_| "writer thread")?
        .map_err(|e| e.to_string())?;
    let (end, file) = follower.finish();
    Ok((gathered, end?, file, batches))
}

/// A file written in pieces with pauses while it is read gives the rows
/// of the finished file; reading ends at `DEM_Stop`, without waiting for
/// the time-out.
#[test]
fn a_file_being_written_gives_the_rows_of_the_finished_file() -> Result {
    let dir = temp_dir("growing")?;
    for rel in ["cs2/14065.dem", "deadlock/hltv_10423.dem"] {
        let data = std::fs::read(gamewire_corpus::path(rel))?;
        let q = query(false);
        let whole = q.run(&data)?;
        let path = dir.join("growing.dem");
        let options = FollowOptions {
            poll: Duration::from_millis(5),
            idle_timeout: Duration::from_secs(60),
        };
        let started = std::time::Instant::now();
        let (gathered, end, file, batches) =
            follow_while_written(&q, &path, &data, data.len(), options)?;
        if file.went_idle() || started.elapsed() >= options.idle_timeout {
            return Err(format!("{rel}: waited for the time-out").into());
        }
        if file.bytes_read() != data.len() as u64 || batches < 2 {
            return Err(format!("{rel}: {} bytes, {batches} batches", file.bytes_read()).into());
        }
        gathered.check(end, &whole, rel)?;
    }
    std::fs::remove_dir_all(dir)?;
    Ok(())
}

/// A writer that stops before the demo's end: after the idle time-out the
/// follow ends with the rows before the cut (those of the same bytes read
/// whole, keeping the cut) and the cut; without keeping cuts, the cut is
/// the error.
#[test]
fn a_writer_that_stops_leaves_the_rows_before_the_cut() -> Result {
    let dir = temp_dir("stopped")?;
    let data = std::fs::read(gamewire_corpus::path("cs2/14065.dem"))?;
    let upto = data.len() * 2 / 3 + 7;
    let path = dir.join("stopped.dem");
    let options = FollowOptions {
        poll: Duration::from_millis(5),
        idle_timeout: Duration::from_millis(300),
    };
    let q = query(true);
    let whole = q.run(data.get(..upto).ok_or("prefix")?)?;
    let whole_cut = whole.cut.as_ref().map(ToString::to_string);
    let (gathered, end, file, _) = follow_while_written(&q, &path, &data, upto, options)?;
    if !file.went_idle() || end.cut.as_ref().map(ToString::to_string) != whole_cut {
        return Err(format!("idle {}, cut {:?}", file.went_idle(), end.cut).into());
    }
    if whole_cut.is_none() {
        return Err("the prefix is not cut".into());
    }
    gathered.check(end, &whole, "cut")?;

    // Not keeping cuts: the rows came, and the end is the cut's error.
    let mut follower = Follower::new(&query(false), &path, GrowingFile::open(&path, options)?)?;
    while follower.next_rows()?.is_some() {}
    let (end, _) = follower.finish();
    match end {
        Err(e) if Some(e.to_string()) == whole_cut => {}
        other => return Err(format!("{other:?}").into()),
    }
    std::fs::remove_dir_all(dir)?;
    Ok(())
}

/// An unknown prop is the error of the whole run, found before any row is
/// given.
#[test]
fn unknown_names_are_found_before_any_row() -> Result {
    let data = std::fs::read(gamewire_corpus::path("cs2/14065.dem"))?;
    let q = Query {
        tables: vec![TableKind::Ticks],
        player_props: vec!["X".into(), "helth".into()],
        ..Query::default()
    };
    let whole = q.run(&data).err().ok_or("no error")?;
    let mut run = FollowRun::new(&q)?;
    for piece in data.chunks(4096) {
        run.push(piece)?;
        match run.take_new() {
            Ok(t) if t.is_empty() => {}
            Ok(t) => return Err(format!("{} tables given", t.len()).into()),
            Err(e) if e.to_string() == whole.to_string() => return Ok(()),
            Err(e) => return Err(e.into()),
        }
    }
    Err("no error".into())
}
