//! Following a demo while it is written: a `.dem` file that the game (or
//! a recorder) is still appending to, or any reader that gives the demo's
//! bytes as they come (a broadcast read over the network).
//!
//! A Source 2 demo is a 16-byte file header followed by frames, each a
//! varint command, a varint tick, a varint size and that many payload
//! bytes (`docs/formats/source2-demo.md`); the last frame is `DEM_Stop`.
//! A writer appends whole frames, but a reader that looks at the file
//! between two writes can see any prefix of them: a frame head cut in the
//! middle of a varint, a payload cut anywhere. The stream parser
//! ([`gamewire_source2::stream::StreamParser`]) takes bytes in any pieces:
//! it keeps a frame that has not fully come in its buffer and applies it
//! once its last byte arrives, keeping its state between pushes, so the
//! file is read once, from the first byte to the last, and never again.
//!
//! [`GrowingFile`] is the reader of a file still being written: at the end
//! of the bytes written so far it waits (polling the file at
//! [`FollowOptions::poll`]) for more, and ends when nothing has been
//! added for [`FollowOptions::idle_timeout`] (the writer stopped without
//! finishing the demo: the run keeps what was read and reports the cut).
//! clarity's `LiveSource` reads Dota 2 replays being written the same way.
//!
//! [`Follower`] drives a query over such a reader: each read is pushed
//! into the run ([`FollowRun`]) and the rows that it completed come out
//! ([`Follower::next_rows`]); reading stops at the demo's `DEM_Stop` frame
//! (without waiting for the time-out) or at the end of the reader. Which
//! rows come out as they arrive and which tables come whole at the end is
//! [`crate::run::rows_arrive_complete`].

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::input::InputError;
use crate::run::{FollowRun, Parsed};
use crate::table::Table;
use crate::{Query, QueryError};

/// Bytes read at a time.
const READ_CHUNK: usize = 64 * 1024;

/// How a growing file is waited for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FollowOptions {
    /// Time between two looks at a file that has not grown.
    pub poll: Duration,
    /// Time without a new byte after which the file is taken as ended
    /// (its writer stopped before the demo's end).
    pub idle_timeout: Duration,
}

impl Default for FollowOptions {
    fn default() -> Self {
        FollowOptions {
            poll: Duration::from_millis(100),
            idle_timeout: Duration::from_secs(30),
        }
    }
}

/// A file read while it is written: [`Read`] that waits at the end of the
/// bytes written so far (see the [module docs](self)). `Ok(0)` once no
/// byte has been added for [`FollowOptions::idle_timeout`].
#[derive(Debug)]
pub struct GrowingFile {
    file: File,
    path: PathBuf,
    options: FollowOptions,
    read: u64,
    last_growth: Instant,
    idle: bool,
}

impl GrowingFile {
    /// Opens `path` (it must exist) to read it from its first byte.
    pub fn open(path: &Path, options: FollowOptions) -> Result<GrowingFile, InputError> {
        let file = File::open(path).map_err(|source| InputError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(GrowingFile {
            file,
            path: path.to_path_buf(),
            options,
            read: 0,
            last_growth: Instant::now(),
            idle: false,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.read
    }

    /// Whether the reading ended because the file stopped growing
    /// ([`FollowOptions::idle_timeout`]).
    pub fn went_idle(&self) -> bool {
        self.idle
    }
}

impl Read for GrowingFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() || self.idle {
            return Ok(0);
        }
        loop {
            let n = self.file.read(buf)?;
            if n > 0 {
                self.read += n as u64;
                self.last_growth = Instant::now();
                return Ok(n);
            }
            let waited = self.last_growth.elapsed();
            if waited >= self.options.idle_timeout {
                self.idle = true;
                return Ok(0);
            }
            std::thread::sleep(
                self.options
                    .poll
                    .min(self.options.idle_timeout.saturating_sub(waited)),
            );
        }
    }
}

/// What a follow reads: a file being written, standard input (`-`), or a
/// live broadcast's URL.
#[derive(Debug)]
pub enum FollowInput {
    /// A `.dem` that grows ([`GrowingFile`]).
    File(GrowingFile),
    /// Standard input, to its end.
    Stdin(std::io::Stdin),
    /// A live HTTP broadcast ([`crate::input::open_live`]).
    Url(Box<crate::input::DemoStream>),
}

impl FollowInput {
    /// Opens `path` for a follow: a URL as a live broadcast (its idle
    /// time-out is `options.idle_timeout`, its other options
    /// [`crate::input::live_options`]), `-` as standard input, anything
    /// else as a file being written.
    pub fn open(path: &Path, options: FollowOptions) -> Result<FollowInput, InputError> {
        if crate::input::is_url(path) {
            let mut live = crate::input::live_options();
            live.idle_timeout = options.idle_timeout;
            crate::input::open_live(path, live).map(|s| FollowInput::Url(Box::new(s)))
        } else if crate::input::is_stdin(path) {
            Ok(FollowInput::Stdin(std::io::stdin()))
        } else {
            GrowingFile::open(path, options).map(FollowInput::File)
        }
    }

    /// Whether the reading ended because a file stopped growing.
    pub fn went_idle(&self) -> bool {
        match self {
            FollowInput::File(f) => f.went_idle(),
            FollowInput::Stdin(_) | FollowInput::Url(_) => false,
        }
    }

    /// Why the input itself ended early (a broadcast past its retries or
    /// limits); the parse's own cut is separate.
    pub fn cut(&self) -> Option<&crate::input::InputCut> {
        match self {
            FollowInput::Url(s) => s.cut(),
            FollowInput::File(_) | FollowInput::Stdin(_) => None,
        }
    }
}

impl Read for FollowInput {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            FollowInput::File(f) => f.read(buf),
            FollowInput::Stdin(s) => s.read(buf),
            FollowInput::Url(s) => s.read(buf),
        }
    }
}

/// A query over a demo read as it comes (see the [module docs](self)).
#[derive(Debug)]
pub struct Follower<R> {
    input: R,
    /// The demo's name (its path, its URL), for errors.
    name: PathBuf,
    run: FollowRun,
    buf: Vec<u8>,
    ended: bool,
}

impl<R: Read> Follower<R> {
    /// `query` over the demo `input` gives (`name`: its path or URL, for
    /// errors); an option no table uses is an error.
    pub fn new(query: &Query, name: &Path, input: R) -> Result<Follower<R>, QueryError> {
        Ok(Follower {
            input,
            name: name.to_path_buf(),
            run: FollowRun::new(query)?,
            buf: vec![0; READ_CHUNK],
            ended: false,
        })
    }

    /// Reads the next bytes (waiting for them as the reader does), parses
    /// them and gives the rows they completed
    /// ([`FollowRun::take_new`]: possibly none); `Ok(None)` once the demo's
    /// `DEM_Stop` frame was read or the reader ended (then
    /// [`Follower::finish`]). A read error is an error naming the demo.
    pub fn next_rows(&mut self) -> Result<Option<Vec<Table>>, QueryError> {
        if self.ended || self.run.reached_stop() {
            self.ended = true;
            return Ok(None);
        }
        let n = loop {
            match self.input.read(&mut self.buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    return Err(QueryError::Input(InputError::Read {
                        path: self.name.clone(),
                        source,
                    }))
                }
            }
        };
        if n == 0 {
            self.ended = true;
            return Ok(None);
        }
        let bytes = self.buf.get(..n).unwrap_or_default();
        self.run.push(bytes)?;
        self.run.take_new().map(Some)
    }

    /// The run (its state, the bytes read).
    pub fn run(&self) -> &FollowRun {
        &self.run
    }

    /// The reader.
    pub fn input(&self) -> &R {
        &self.input
    }

    /// Ends the run ([`FollowRun::finish`]): the rows not given yet, the
    /// tables complete only at the end, the state and the cut; with the
    /// reader.
    pub fn finish(self) -> (Result<Parsed, QueryError>, R) {
        (self.run.finish(), self.input)
    }
}
