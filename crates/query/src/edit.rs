//! Writing demos to files: [`rewrite`](Edit::Rewrite), [`cut`](Edit::Cut),
//! [`anonymize`](Edit::Anonymize) and [`loop`](Edit::Loop) a Source 2 demo
//! from a path (or a demo read by the [input stage](crate::input)) into a
//! new demo file.
//!
//! The edits themselves are `gamewire_source2::edit`'s: they take the demo's
//! bytes from any reader and write the new demo frame by frame. This module
//! adds what a file needs:
//!
//! - **Input.** A plain `.dem` file is streamed from disk through a buffer
//!   (memory does not grow with the demo's length). Anything else goes
//!   through the input stage: a gzip, bzip2 or zstd compressed demo is
//!   decompressed first, a broadcast directory rewritten as one demo stream,
//!   `-` read from standard input. A loop reads its input once per repeat:
//!   a plain file from disk each time, anything else from memory. An input
//!   that ends early (a cut
//!   compressed stream or fragment) is edited up to its cut, and the cut
//!   comes back in [`Edited::cut`], as does the cut of a demo that ends
//!   inside a frame.
//! - **Output.** The new demo is written to a temporary file in the output's
//!   folder (`.NAME.XXXXXX.partial`) and renamed to the output's name only
//!   once it is complete, replacing a file of that name. A failure (an input
//!   that is not a demo, a range outside it, a full disk) removes the
//!   temporary file: no half-written demo is ever left under the output's
//!   name. Standard output cannot take a demo (the writer seeks back to the
//!   header to fill in the file-info offset) and is refused.
//! - **Rounds.** A cut of round N ([`CutRange::Round`]) takes its ticks
//!   from the `rounds` table (CS2 only, [`round_range`]): from the round's
//!   `round_start` to its `round_officially_ended`. That needs a parse of the
//!   whole demo before the cut, so such a demo is read into memory.
//!
//! Every error is a [`QueryError`]: the input's ([`QueryError::Input`]), the
//! demo's or the writer's ([`QueryError::Demo`], located by frame and tick),
//! the output file's ([`QueryError::Write`]), a round the demo does not have
//! or a range that is not one ([`QueryError::BadCut`]).

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use gamewire_source2::{DemoError, ErrorKind, Game, Warning};

use crate::input::{self, Compression, DemoInput, InputError};
use crate::run::Cut;
use crate::table::{Cell, Table};
use crate::{Query, QueryError, TableKind};
use gamewire_source2::edit as source2_edit;
pub use gamewire_source2::edit::anonymize::AnonymizeOptions;
pub use gamewire_source2::edit::repeat::Length as LoopLength;
pub use gamewire_source2::edit::{EditReport, TickRange};

/// What to write.
#[derive(Debug, Clone)]
pub enum Edit {
    /// Every frame decoded and written again from the decoded model.
    Rewrite,
    /// The ticks of a range: the state at its first tick as one full
    /// packet, then the demo's frames up to its last tick.
    Cut(CutRange),
    /// Every player's name and ids replaced by keyed pseudonyms.
    Anonymize(AnonymizeOptions),
    /// The demo's ticks again and again: its signon, then K repeats, each
    /// starting from the full state at the demo's first tick, ticks rising
    /// throughout.
    Loop(LoopLength),
}

/// The ticks a cut keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutRange {
    /// From one tick to another, both included.
    Ticks(TickRange),
    /// One round of a CS2 demo, numbered from 1 as the `rounds` table
    /// numbers them ([`round_range`]).
    Round(u32),
}

/// What an edit did.
#[derive(Debug)]
pub struct Edited {
    /// The writer's account: frames read and written, ticks, messages
    /// copied as their original bytes, warnings.
    pub report: EditReport,
    /// The ticks a cut kept (a round resolved to its ticks); `None` for
    /// the other edits.
    pub range: Option<TickRange>,
    /// Where the input ended early: the output holds everything before it.
    pub cut: Option<Cut>,
    /// What a loop wrote; `None` for the other edits.
    pub looped: Option<Looped>,
}

/// What a loop wrote.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Looped {
    /// Repeats of the input's ticks.
    pub repeats: u32,
    /// Ticks each repeat lasts (the input's last tick − its first + 1).
    pub ticks_per_repeat: i32,
    /// The output's first and last tick.
    pub ticks: (i32, i32),
    /// Seconds the output plays.
    pub seconds: f32,
}

impl Edited {
    /// The report's warnings but the one that tells the input's end (the
    /// cut is in [`Edited::cut`], located).
    pub fn warnings(&self) -> impl Iterator<Item = &Warning> {
        let cut = self.report.cut.as_ref().map(|c| c.kind.to_string());
        self.report
            .warnings
            .iter()
            .filter(move |w| cut.as_ref().is_none_or(|c| !w.message.contains(c.as_str())))
    }
}

/// Edits the demo at `input` (a `.dem` file, compressed too, a broadcast
/// directory, `-` for standard input) into a new demo file at `out`
/// (see the [module](self) for how each is read and written).
pub fn edit_path(input: &Path, out: &Path, edit: &Edit) -> Result<Edited, QueryError> {
    check_edit(edit)?;
    check_output(out)?;
    let job = match edit {
        Edit::Rewrite => Some(Job::Rewrite),
        Edit::Cut(CutRange::Ticks(r)) => Some(Job::Cut(*r)),
        // A round needs a parse of the demo first: read into memory.
        Edit::Cut(CutRange::Round(_)) => None,
        Edit::Anonymize(options) => Some(Job::Anonymize(options)),
        Edit::Loop(length) => Some(Job::Loop(*length)),
    };
    if let Some(job) = job {
        if let Some(file) = plain_demo_file(input)? {
            let (report, looped) = write_atomically(out, |w| job.run(BufReader::new(file), w))?;
            let cut = Cut::of(None, report.cut.clone());
            return Ok(Edited {
                report,
                range: job.range(),
                cut,
                looped,
            });
        }
    }
    let demo = input::open(input)?;
    edit_input(&demo, out, edit)
}

/// Edits a demo already read by the input stage (its bytes in memory) into
/// a new demo file at `out`.
pub fn edit_input(demo: &DemoInput, out: &Path, edit: &Edit) -> Result<Edited, QueryError> {
    check_edit(edit)?;
    check_output(out)?;
    let job = match edit {
        Edit::Rewrite => Job::Rewrite,
        Edit::Cut(CutRange::Ticks(r)) => Job::Cut(*r),
        Edit::Cut(CutRange::Round(n)) => Job::Cut(round_of(demo, *n)?),
        Edit::Anonymize(options) => Job::Anonymize(options),
        Edit::Loop(length) => Job::Loop(*length),
    };
    let (report, looped) = write_atomically(out, |w| {
        job.run(std::io::Cursor::new(demo.bytes.as_slice()), w)
    })?;
    let cut = Cut::of(demo.cut.clone(), report.cut.clone());
    Ok(Edited {
        report,
        range: job.range(),
        cut,
        looped,
    })
}

/// An edit ready to run: a cut's ticks resolved.
enum Job<'a> {
    Rewrite,
    Cut(TickRange),
    Anonymize(&'a AnonymizeOptions),
    Loop(LoopLength),
}

impl Job<'_> {
    /// Runs the edit from `reader` into `out` (a loop reads `reader` once
    /// per repeat, seeking back to its start).
    fn run<R: Read + Seek, W: Write + Seek>(
        &self,
        reader: R,
        out: W,
    ) -> Result<(EditReport, Option<Looped>), DemoError> {
        match self {
            Job::Rewrite => source2_edit::rewrite(reader, out).map(|r| (r, None)),
            Job::Cut(range) => source2_edit::cut(reader, out, *range).map(|r| (r, None)),
            Job::Anonymize(options) => {
                source2_edit::anonymize(reader, out, options).map(|r| (r, None))
            }
            Job::Loop(length) => source2_edit::repeat::repeat(reader, out, *length).map(|r| {
                let looped = Looped {
                    repeats: r.repeats,
                    ticks_per_repeat: r.ticks_per_repeat,
                    ticks: r.ticks,
                    seconds: r.seconds,
                };
                (r.edit, Some(looped))
            }),
        }
    }

    /// The ticks of a cut.
    fn range(&self) -> Option<TickRange> {
        match self {
            Job::Cut(r) => Some(*r),
            _ => None,
        }
    }
}

/// A tick range whose first tick is after its last is refused before
/// anything is read.
fn check_edit(edit: &Edit) -> Result<(), QueryError> {
    match edit {
        Edit::Cut(CutRange::Ticks(r)) if r.from > r.to => Err(QueryError::BadCut(format!(
            "the first tick ({}) is after the last tick ({})",
            r.from, r.to
        ))),
        Edit::Cut(CutRange::Round(0)) => {
            Err(QueryError::BadCut("rounds are numbered from 1".to_string()))
        }
        Edit::Loop(LoopLength::Times(0)) => Err(QueryError::BadCut(
            "a loop needs at least 1 repeat".to_string(),
        )),
        Edit::Loop(LoopLength::Minutes(m)) if !(m.is_finite() && *m > 0.0) => Err(
            QueryError::BadCut(format!("a loop of {m} minutes: give a length above 0")),
        ),
        _ => Ok(()),
    }
}

/// The output must be a file path: not standard output (a demo is written
/// with a seek back to its header), not a directory.
fn check_output(out: &Path) -> Result<(), QueryError> {
    let reason = if input::is_stdin(out) {
        "a demo cannot be written to standard output (its header is filled in last); give a file name"
    } else if out.is_dir() {
        "it is a directory; give a file name"
    } else if out.file_name().is_none() {
        "it names no file"
    } else {
        return Ok(());
    };
    Err(QueryError::BadOutput {
        path: out.to_path_buf(),
        reason,
    })
}

/// The file at `path`, at its start, when it is a plain demo file that can
/// be streamed: not standard input, not a directory, not compressed.
/// `None` sends it through the input stage.
fn plain_demo_file(path: &Path) -> Result<Option<File>, QueryError> {
    if input::is_stdin(path) || path.is_dir() {
        return Ok(None);
    }
    let read_error = |source| {
        QueryError::Input(InputError::Read {
            path: path.to_path_buf(),
            source,
        })
    };
    let mut file = File::open(path).map_err(read_error)?;
    let mut magic = [0u8; 4];
    let mut got = 0;
    while got < magic.len() {
        match file.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(read_error(e)),
        }
    }
    if Compression::of(magic.get(..got).unwrap_or_default()).is_some() {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(0)).map_err(read_error)?;
    Ok(Some(file))
}

/// A new temporary file in `out`'s folder, named `.<out's name>.<random>.partial`
/// (hidden, so a reader of the folder does not take it for output), with
/// the mode `File::create` would give `out` (the umask applies), not a
/// temporary file's own 0600: what an atomic write renames onto `out`
/// once every byte is on disk.
pub fn temporary_beside(out: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    partial_beside(out, 0o666, |builder, dir| builder.tempfile_in(dir))
}

/// A new temporary folder in `out`'s folder, named as
/// [`temporary_beside`] names files, with the mode `create_dir` would give
/// `out`: what a folder written whole is renamed from. Dropped without
/// [`tempfile::TempDir::keep`], it is removed with what it holds.
pub fn temporary_folder_beside(out: &Path) -> std::io::Result<tempfile::TempDir> {
    partial_beside(out, 0o777, |builder, dir| builder.tempdir_in(dir))
}

/// Creates, through `create`, a hidden `.<out's name>.<random>.partial`
/// in `out`'s folder with `mode` (the umask applies).
fn partial_beside<T>(
    out: &Path,
    mode: u32,
    create: impl FnOnce(&tempfile::Builder<'_, '_>, &Path) -> std::io::Result<T>,
) -> std::io::Result<T> {
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".partial");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = mode;
    create(&builder, &dir)
}

/// A file written under a temporary name beside its destination
/// ([`temporary_beside`]) and renamed onto it by [`AtomicFile::commit`]
/// once every byte is on disk: a reader never sees it half-written.
/// Dropped without a commit (a failure, a panic), the temporary file is
/// removed; a process killed outright leaves only the hidden `.partial`.
#[derive(Debug)]
pub struct AtomicFile {
    temp: BufWriter<tempfile::NamedTempFile>,
    out: PathBuf,
    written: u64,
}

impl AtomicFile {
    /// A new temporary file beside `out`.
    pub fn create(out: &Path) -> std::io::Result<AtomicFile> {
        Ok(AtomicFile {
            temp: BufWriter::with_capacity(1 << 16, temporary_beside(out)?),
            out: out.to_path_buf(),
            written: 0,
        })
    }

    /// Where the file goes on [`AtomicFile::commit`].
    pub fn destination(&self) -> &Path {
        &self.out
    }

    /// The bytes written so far (counted as written, wherever a seek put
    /// them).
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Flushes, syncs and renames the file onto its destination.
    pub fn commit(self) -> std::io::Result<()> {
        let temp = self.temp.into_inner().map_err(|e| e.into_error())?;
        temp.as_file().sync_all()?;
        temp.persist(&self.out).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.temp.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.temp.write_all(buf)?;
        self.written += buf.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.temp.flush()
    }
}

/// The demo writer seeks back to fill in the file header's offsets.
impl Seek for AtomicFile {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.temp.seek(pos)
    }
}

/// Writes the output through `write` into a temporary file beside `out`,
/// renamed to `out` once `write` succeeded and every byte is on disk.
/// On any failure the temporary file is removed.
fn write_atomically<T>(
    out: &Path,
    write: impl FnOnce(&mut AtomicFile) -> Result<T, DemoError>,
) -> Result<T, QueryError> {
    let failed = |source: std::io::Error| QueryError::Write {
        what: out.display().to_string(),
        source,
    };
    let mut file = AtomicFile::create(out).map_err(failed)?;
    let value = write(&mut file).map_err(demo_error)?;
    file.commit().map_err(failed)?;
    Ok(value)
}

/// A range that misses the demo is the caller's mistake (bad usage), not
/// the demo's; any other error is the demo's or the writer's.
fn demo_error(e: DemoError) -> QueryError {
    match e.kind {
        ErrorKind::TickRange { .. } => QueryError::BadCut(e.kind.to_string()),
        ErrorKind::Unwritable { what: "loop", .. } => QueryError::BadCut(e.kind.to_string()),
        _ => QueryError::Demo(e),
    }
}

/// The ticks of round `round` of a CS2 demo in memory ([`round_range`] on
/// its `rounds` table).
fn round_of(demo: &DemoInput, round: u32) -> Result<TickRange, QueryError> {
    let query = Query {
        tables: vec![TableKind::Rounds],
        ..Query::default()
    }
    .keeping_cut(true);
    let parsed = query.run_input(demo)?;
    if parsed.state.game != Game::Cs2 {
        return Err(QueryError::BadCut(format!(
            "a cut by round needs a CS2 demo (its rounds table); this is a {} demo: give --from-tick and --to-tick",
            game_name(parsed.state.game)
        )));
    }
    let rounds = parsed.tables.first().ok_or_else(|| {
        QueryError::BadCut("the rounds table did not come out of the parse".to_string())
    })?;
    round_range(rounds, round, parsed.state.tick)
}

/// The game's name in messages.
fn game_name(game: Game) -> &'static str {
    match game {
        Game::Cs2 => "CS2",
        Game::Dota2 => "Dota 2",
        Game::Deadlock => "Deadlock",
        _ => "non-CS2",
    }
}

/// The ticks of round `round` (1 is the first row) of a `rounds` table
/// (see `docs/tables.md`), in a demo whose last tick is `last_tick`:
///
/// - from the round's `start_tick` (`round_start`), or when the demo
///   starts inside the round, its first event's tick (`freeze_end_tick`,
///   `end_tick`, `official_end_tick`);
/// - to its `official_end_tick` (`round_officially_ended`, when the next
///   round's buy time is about to begin), else the tick before the next
///   round's start, else the demo's last tick (the demo ends inside it).
///
/// A round the table does not have is an error naming how many it has.
pub fn round_range(rounds: &Table, round: u32, last_tick: i32) -> Result<TickRange, QueryError> {
    let count = rounds.rows();
    let row = (round as usize)
        .checked_sub(1)
        .filter(|&i| i < count)
        .ok_or_else(|| {
            QueryError::BadCut(if count == 0 {
                format!("the demo has no round {round}: its rounds table is empty (no round_start, round_end or round_officially_ended events)")
            } else {
                format!("the demo has no round {round}: it has rounds 1 to {count}")
            })
        })?;
    let tick = |name: &str, row: usize| -> Option<i32> {
        match rounds.column(name)?.cell(row) {
            Cell::Int(t) => i32::try_from(t).ok(),
            _ => None,
        }
    };
    let from = [
        "start_tick",
        "freeze_end_tick",
        "end_tick",
        "official_end_tick",
    ]
    .iter()
    .find_map(|c| tick(c, row))
    .ok_or_else(|| QueryError::BadCut(format!("round {round} has no tick in the rounds table")))?;
    let to = tick("official_end_tick", row)
        .or_else(|| tick("start_tick", row + 1).map(|t| t - 1))
        .unwrap_or(last_tick)
        .max(from);
    Ok(TickRange { from, to })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::reference;

    fn rounds(rows: &[[Option<i64>; 4]]) -> Table {
        let mut t = reference::ROUNDS.empty_table();
        for (i, r) in rows.iter().enumerate() {
            let mut row = vec![Cell::Int(i as i64 + 1)];
            row.extend(r.iter().map(|t| t.map_or(Cell::Null, Cell::Int)));
            row.extend([Cell::Null, Cell::Null, Cell::Null, Cell::Null, Cell::Null]);
            t.push_row(&row);
        }
        t
    }

    #[test]
    fn a_round_runs_from_its_start_to_its_official_end() {
        let t = rounds(&[
            [Some(100), Some(1000), Some(5000), Some(5400)],
            [Some(5401), Some(6500), Some(9000), Some(9450)],
        ]);
        assert_eq!(
            round_range(&t, 1, 20000).unwrap(),
            TickRange {
                from: 100,
                to: 5400
            }
        );
        assert_eq!(
            round_range(&t, 2, 20000).unwrap(),
            TickRange {
                from: 5401,
                to: 9450
            }
        );
    }

    #[test]
    fn a_round_cut_by_the_demo_ends_at_the_next_start_or_the_last_tick() {
        // The demo starts inside round 1 (no round_start) and ends inside
        // round 3 (no round_end); round 2 lacks its official end.
        let t = rounds(&[
            [None, Some(200), Some(3000), Some(3300)],
            [Some(3301), Some(4000), Some(7000), None],
            [Some(7600), None, None, None],
        ]);
        assert_eq!(
            round_range(&t, 1, 9000).unwrap(),
            TickRange {
                from: 200,
                to: 3300
            }
        );
        assert_eq!(
            round_range(&t, 2, 9000).unwrap(),
            TickRange {
                from: 3301,
                to: 7599
            }
        );
        assert_eq!(
            round_range(&t, 3, 9000).unwrap(),
            TickRange {
                from: 7600,
                to: 9000
            }
        );
    }

    #[test]
    fn a_round_the_table_lacks_is_an_error_naming_the_rounds() {
        let t = rounds(&[[Some(1), Some(2), Some(3), Some(4)]]);
        let e = round_range(&t, 2, 100).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the demo has no round 2: it has rounds 1 to 1"
        );
        assert!(e.is_usage());
        let e = round_range(&rounds(&[]), 1, 100).unwrap_err();
        assert!(e.to_string().contains("its rounds table is empty"), "{e}");
        assert!(round_range(&t, 0, 100).is_err());
    }

    #[test]
    fn the_output_must_be_a_file() {
        for out in ["-", "."] {
            let e = check_output(Path::new(out)).unwrap_err();
            assert!(matches!(e, QueryError::BadOutput { .. }), "{out}: {e}");
            assert!(e.is_usage(), "{out}: {e}");
        }
        let e = check_edit(&Edit::Cut(CutRange::Ticks(TickRange { from: 9, to: 3 }))).unwrap_err();
        assert!(
            e.to_string().contains("(9) is after the last tick (3)"),
            "{e}"
        );
    }
}
