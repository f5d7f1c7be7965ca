//! The input stage: a path (a demo file, `-` for standard input, a
//! compressed demo, an HTTP broadcast directory) or bytes in memory become
//! the demo's bytes, its name for messages, and the cut of an input that
//! ends early ([`DemoInput`]). The command line and the Python package read
//! every demo through here; [`find_demos`] and [`dataset_names`] turn the
//! files and directories given to a batch into demos and their names.
//!
//! ## Compressed demos
//!
//! Valve's match replays come as `.dem.bz2`, league and community servers
//! hand out `.dem.gz` or `.dem.zst`. A demo file is recognised by its first
//! bytes, whatever its name:
//!
//! | format | magic | decoder |
//! |---|---|---|
//! | gzip (RFC 1952), members one after the other | `1f 8b` | flate2 (miniz_oxide) |
//! | bzip2, streams one after the other | `BZh` | bzip2 (libbz2-rs-sys) |
//! | zstd, frames one after the other (skippable frames skipped) | `28 b5 2f fd` | zstd (libzstd) |
//!
//! Anything else is taken as the demo itself. The demo inside is then read
//! as any other (`PBDEMS2\0`, or an error naming what the file starts with).
//!
//! Hostile input: the decompressed demo may be at most
//! [`MAX_EXPANSION`] times the compressed file (and at least
//! [`MIN_DECOMPRESSED_LIMIT`]); a file that expands further is refused with
//! [`InputError::TooLarge`] before more is allocated. Real demos, whose
//! frames are snappy-compressed already, shrink by a factor of 1.3 to 1.8.
//! A compressed stream that is cut or damaged keeps what it decoded before
//! the damage: the demo up to there is parsed as a truncated demo, and the
//! damage comes back as the cut ([`InputCut::Compressed`]), located at the
//! byte of the decompressed demo where it stopped.
//!
//! ## Broadcast directories
//!
//! An HTTP broadcast (CSTV+, the Deadlock and Dota 2 relays) saved to disk is
//! a directory with a `sync.json` (`{"tick", "fragment", "signup_fragment",
//! "tps", "map", ...}`), `<signup>/start.bin` (the signon), and per fragment
//! `<n>/full.bin` (a keyframe) and `<n>/delta.bin` (the packets after it).
//! [`read_broadcast`] picks the fragments to play (`start.bin`, the first
//! fragment's `full.bin`, then every `delta.bin` from there on, see
//! `docs/formats/`), and `gamewire_source2::broadcast::to_demo` rewrites
//! them as one demo stream; a fragment cut inside a record is the cut
//! ([`InputCut::Fragment`]).
//!
//! ## Live broadcasts
//!
//! An `http://` or `https://` URL is a broadcast served live by a relay
//! ([`is_url`]): `gamewire_live::BroadcastReader` fetches its fragments as
//! they are produced and converts them to a `.dem` stream, which is parsed
//! as it comes ([`DemoSource::Stream`]; [`open_live`]). How long to wait
//! and how often to retry are [`LiveOptions`] ([`set_live_options`] sets
//! them for the process). When the relay fails past the retries, the
//! stream ends there: everything read before is parsed, and the failure is
//! the cut ([`InputCut::Live`], naming the URL, the fragment and the last
//! tick).

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};

pub use gamewire_live::{LiveError, LiveOptions};
use gamewire_source2::broadcast::{to_demo, Fragment};
use gamewire_source2::DemoError;

/// Why a demo could not be read: the file, the directory, the compressed
/// stream or the broadcast fragments, with the path and the offsets as
/// values.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// A file or directory could not be read (or standard input, `-`).
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file or directory.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A compressed demo would decompress to more than
    /// [`decompressed_limit`] bytes; reading stopped one byte past it.
    #[error("the decompressed size of a compressed demo (bytes) is {size}, above the limit of {limit} (frame 0 at byte {size}, tick -1)")]
    TooLarge {
        /// The file (or the name given to bytes in memory).
        path: PathBuf,
        /// The bytes decompressed when reading stopped.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A cut that left nothing to parse (a compressed stream damaged before
    /// the demo's first 8 bytes), or any cut when the caller does not keep
    /// the rows of a cut demo.
    #[error("{0}")]
    Cut(InputCut),
    /// A broadcast directory's `sync.json` or fragment could not be read.
    #[error("broadcast {}: cannot read: {source}", path.display())]
    BroadcastFile {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A broadcast directory could not be listed.
    #[error("broadcast {}: cannot list: {source}", path.display())]
    BroadcastList {
        /// The directory.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A broadcast directory's `sync.json` is not JSON.
    #[error("broadcast {}: not JSON: {source}", path.display())]
    BroadcastSync {
        /// The `sync.json`.
        path: PathBuf,
        /// The JSON error.
        source: serde_json::Error,
    },
    /// A broadcast directory has no fragment after its signup fragment.
    #[error("broadcast {}: no fragment after the signup fragment", path.display())]
    NoFragment {
        /// The directory.
        path: PathBuf,
    },
    /// A live broadcast could not be opened (its sync or signon).
    #[error("{0}")]
    Live(LiveError),
    /// A file found in a directory is not there (a symbolic link to
    /// nothing).
    #[error("{}: not found (a symbolic link to a missing file)", path.display())]
    DanglingLink {
        /// The link.
        path: PathBuf,
    },
}

impl InputError {
    /// The error of reading the file `path`: [`InputError::DanglingLink`]
    /// for a symbolic link to nothing (a demo found in a directory whose
    /// target is gone), else [`InputError::Read`].
    pub fn reading(path: &Path, source: std::io::Error) -> InputError {
        let dangling = source.kind() == std::io::ErrorKind::NotFound
            && path
                .symlink_metadata()
                .is_ok_and(|m| m.file_type().is_symlink());
        if dangling {
            InputError::DanglingLink {
                path: path.to_path_buf(),
            }
        } else {
            InputError::Read {
                path: path.to_path_buf(),
                source,
            }
        }
    }

    /// True when the file (or directory) does not exist.
    pub fn is_not_found(&self) -> bool {
        match self {
            InputError::Read { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
            InputError::DanglingLink { .. } => true,
            _ => false,
        }
    }
}

/// Where an input ends early: what comes before it is read and parsed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum InputCut {
    /// The outer compression of a compressed demo file is cut or damaged:
    /// `byte_offset` bytes of demo came out before it.
    #[error("{} stream: {reason} (after {compressed_read} of {compressed_len} compressed bytes, {byte_offset} bytes of demo decoded) (frame 0 at byte {byte_offset}, tick -1)", format.name())]
    Compressed {
        /// The compression.
        format: Compression,
        /// The decompressor's message.
        reason: String,
        /// Compressed bytes read when it stopped.
        compressed_read: u64,
        /// The compressed file's size.
        compressed_len: u64,
        /// Bytes of demo decompressed before the damage.
        byte_offset: u64,
    },
    /// A broadcast fragment ends inside a record (the error names the
    /// fragment and the byte offset in it).
    #[error("{0}")]
    Fragment(DemoError),
    /// A live broadcast failed past its retries or limits (the error names
    /// the URL, the fragment and the last tick reached).
    #[error("{0}")]
    Live(LiveError),
}

/// A demo ready to parse.
#[derive(Debug, Clone)]
pub struct DemoInput {
    /// The path given (or the name given to bytes in memory), for messages.
    pub name: PathBuf,
    /// The demo's bytes (decompressed; a broadcast rewritten as one stream).
    pub bytes: Vec<u8>,
    /// Where the input ended early; [`DemoInput::bytes`] holds what came
    /// before.
    pub cut: Option<InputCut>,
}

impl DemoInput {
    /// The demo's bytes, its cut an error.
    pub fn whole(self) -> Result<Vec<u8>, InputError> {
        match self.cut {
            Some(cut) => Err(InputError::Cut(cut)),
            None => Ok(self.bytes),
        }
    }
}

/// Reads a demo: a `.dem` file (gzip, bzip2 or zstd compressed too),
/// standard input for the path `-`, or an HTTP broadcast directory (a
/// `sync.json` and its fragments, rewritten as one demo stream).
pub fn open(path: &Path) -> Result<DemoInput, InputError> {
    open_into(path, Vec::new())
}

/// [`open`] reading the file into `buffer` (cleared first): a worker that
/// reads demo after demo hands back the previous [`DemoInput::bytes`], whose
/// memory is already mapped (a new buffer per demo would be fresh memory
/// the kernel faults in page by page). A compressed demo is decompressed
/// into a buffer of its own.
pub fn open_into(path: &Path, mut buffer: Vec<u8>) -> Result<DemoInput, InputError> {
    if is_url(path) {
        // The whole live broadcast, read to its end.
        let mut stream = open_live(path, live_options())?;
        buffer.clear();
        stream
            .read_to_end(&mut buffer)
            .map_err(|source| InputError::Read {
                path: path.to_path_buf(),
                source,
            })?;
        if let Some(e) = stream.take_error() {
            return Err(e);
        }
        return Ok(DemoInput {
            name: path.to_path_buf(),
            bytes: buffer,
            cut: stream.cut().cloned(),
        });
    }
    if is_broadcast_dir(path) {
        let fragments = read_broadcast(path)?.fragments;
        let (bytes, cut) = to_demo(&fragments);
        return Ok(DemoInput {
            name: path.to_path_buf(),
            bytes,
            cut: cut.map(InputCut::Fragment),
        });
    }
    buffer.clear();
    read_file(path, &mut buffer).map_err(|source| InputError::reading(path, source))?;
    from_bytes(path, buffer)
}

/// A demo already in memory (compressed too), named `name` in messages.
pub fn from_bytes(name: impl Into<PathBuf>, data: Vec<u8>) -> Result<DemoInput, InputError> {
    let name = name.into();
    let (bytes, cut) = unpack(&name, data)?;
    Ok(DemoInput { name, bytes, cut })
}

/// How many times its compressed size a decompressed demo may be.
pub const MAX_EXPANSION: u64 = 32;

/// The decompressed size always allowed, however small the compressed file.
pub const MIN_DECOMPRESSED_LIMIT: u64 = 1 << 20;

/// The outer compression of a demo file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// gzip (`.dem.gz`).
    Gzip,
    /// bzip2 (`.dem.bz2`).
    Bzip2,
    /// Zstandard (`.dem.zst`).
    Zstd,
}

impl Compression {
    /// Every compression read.
    pub const ALL: [Compression; 3] = [Compression::Gzip, Compression::Bzip2, Compression::Zstd];

    /// The compression a file starting with `data` is in, or `None` for an
    /// uncompressed file.
    pub fn of(data: &[u8]) -> Option<Compression> {
        match data {
            [0x1f, 0x8b, ..] => Some(Compression::Gzip),
            [b'B', b'Z', b'h', ..] => Some(Compression::Bzip2),
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Some(Compression::Zstd),
            _ => None,
        }
    }

    /// Its name in messages (`gzip`, `bzip2`, `zstd`).
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Zstd => "zstd",
        }
    }

    /// The file name extension (`gz`, `bz2`, `zst`).
    pub fn extension(self) -> &'static str {
        match self {
            Compression::Gzip => "gz",
            Compression::Bzip2 => "bz2",
            Compression::Zstd => "zst",
        }
    }
}

/// The largest decompressed size accepted for `compressed_len` bytes.
pub fn decompressed_limit(compressed_len: usize) -> u64 {
    (compressed_len as u64)
        .saturating_mul(MAX_EXPANSION)
        .max(MIN_DECOMPRESSED_LIMIT)
}

/// The demo inside `data`: `data` itself when it is not compressed (no
/// copy), else its decompressed bytes and, when the compressed stream was
/// cut or damaged, the cut (what came before it is kept). `name` names the
/// input in errors.
///
/// An error when nothing usable came out (the stream is damaged before the
/// demo's first 8 bytes) or the demo would be larger than
/// [`decompressed_limit`].
pub fn unpack(name: &Path, data: Vec<u8>) -> Result<(Vec<u8>, Option<InputCut>), InputError> {
    let Some(format) = Compression::of(&data) else {
        return Ok((data, None));
    };
    let mut out = Vec::new();
    let cut = decompress_into(name, &data, format, &mut out)?;
    match cut {
        Some(cut) if out.len() < 8 => Err(InputError::Cut(cut)),
        cut => Ok((out, cut)),
    }
}

/// Decompresses `data` (in `format`) into `out`; `Ok(Some(cut))` when the
/// stream is cut or damaged after `out` (which holds what came before).
fn decompress_into(
    name: &Path,
    data: &[u8],
    format: Compression,
    out: &mut Vec<u8>,
) -> Result<Option<InputCut>, InputError> {
    out.clear();
    let limit = decompressed_limit(data.len());
    let mut source = Counted {
        rest: data,
        read: 0,
    };
    let result = match format {
        Compression::Gzip => pump(flate2::read::MultiGzDecoder::new(&mut source), out, limit),
        Compression::Bzip2 => pump(bzip2::read::MultiBzDecoder::new(&mut source), out, limit),
        Compression::Zstd => zstd_frames(&mut source, out, limit),
    };
    match result {
        Ok(()) if out.len() as u64 > limit => Err(InputError::TooLarge {
            path: name.to_path_buf(),
            size: out.len() as u64,
            limit,
        }),
        Ok(()) => Ok(None),
        Err(reason) => Ok(Some(InputCut::Compressed {
            format,
            reason,
            compressed_read: source.read,
            compressed_len: data.len() as u64,
            byte_offset: out.len() as u64,
        })),
    }
}

/// Reads `reader` to its end into `out`, stopping one byte past `limit`
/// (the caller reports a demo that large).
fn pump(reader: impl Read, out: &mut Vec<u8>, limit: u64) -> Result<(), String> {
    let room = (limit + 1).saturating_sub(out.len() as u64);
    reader
        .take(room)
        .read_to_end(out)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Zstandard frames one after the other until the input ends (libzstd's
/// stream decoder goes on from frame to frame and skips skippable frames;
/// its window limit for untrusted input, 128 MiB, stays).
fn zstd_frames(source: &mut Counted<'_>, out: &mut Vec<u8>, limit: u64) -> Result<(), String> {
    let decoder = zstd::stream::read::Decoder::new(source).map_err(|e| e.to_string())?;
    pump(decoder, out, limit)
}

/// Zstandard decoding in WebAssembly: the pure-Rust `ruzstd` behind the
/// same `zstd::stream::read::Decoder::new(reader)` the native build calls on
/// libzstd (whose C sources would need a C compiler for wasm32). Like
/// libzstd's stream decoder it decodes frame after frame until the input
/// ends and skips skippable frames (RFC 8878, sections 3.1.1 and 3.1.2).
#[cfg(target_arch = "wasm32")]
mod zstd {
    pub mod stream {
        pub mod read {
            use std::io::{self, Read};

            use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
            use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

            /// Decodes the Zstandard frames of `source`, one after the other.
            pub struct Decoder<R: Read> {
                source: R,
                frame: FrameDecoder,
                /// The input ended after a whole frame.
                ended: bool,
            }

            impl<R: Read> Decoder<R> {
                /// A decoder whose first frame header is read: an input
                /// that starts with no frame is an error.
                pub fn new(source: R) -> io::Result<Decoder<R>> {
                    let mut decoder = Decoder {
                        source,
                        frame: FrameDecoder::new(),
                        ended: false,
                    };
                    if !decoder.next_frame()? {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            "no Zstandard frame in the input",
                        ));
                    }
                    Ok(decoder)
                }

                /// Starts the next frame, past skippable ones; `false` at
                /// the input's end.
                fn next_frame(&mut self) -> io::Result<bool> {
                    loop {
                        match self.frame.init(&mut self.source) {
                            Ok(()) => return Ok(true),
                            Err(FrameDecoderError::ReadFrameHeaderError(
                                ReadFrameHeaderError::SkipFrame { length, .. },
                            )) => {
                                let want = u64::from(length);
                                let skipped =
                                    io::copy(&mut (&mut self.source).take(want), &mut io::sink())?;
                                if skipped < want {
                                    return Err(io::Error::new(
                                        io::ErrorKind::UnexpectedEof,
                                        "skippable frame cut short",
                                    ));
                                }
                            }
                            Err(FrameDecoderError::ReadFrameHeaderError(
                                ReadFrameHeaderError::MagicNumberReadError(e),
                            )) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
                            Err(e) => return Err(io::Error::other(e)),
                        }
                    }
                }
            }

            impl<R: Read> Read for Decoder<R> {
                fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                    if buf.is_empty() {
                        return Ok(0);
                    }
                    while !self.ended {
                        while self.frame.can_collect() < buf.len() && !self.frame.is_finished() {
                            let more = buf.len() - self.frame.can_collect();
                            self.frame
                                .decode_blocks(
                                    &mut self.source,
                                    BlockDecodingStrategy::UptoBytes(more),
                                )
                                .map_err(io::Error::other)?;
                        }
                        let n = self.frame.read(buf)?;
                        if n > 0 {
                            return Ok(n);
                        }
                        if self.frame.is_finished() && self.frame.can_collect() == 0 {
                            self.ended = !self.next_frame()?;
                        }
                    }
                    Ok(0)
                }
            }
        }
    }
}

/// A byte slice read from the front, counting what was read.
struct Counted<'a> {
    rest: &'a [u8],
    read: u64,
}

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.rest.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

/// Plain demo files up to this size are read whole and parsed in memory
/// ([`open_source`]); larger ones, compressed files larger than this, and
/// standard input are read as a stream. Reading a clip whole costs a few
/// MiB at most and keeps the in-memory parser's helper thread and
/// decompression ahead; above, memory stays flat in the demo's length.
pub const STREAM_ABOVE: u64 = 4 << 20;

/// A demo to parse: its bytes in memory, or a stream read as it is parsed.
#[derive(Debug)]
#[non_exhaustive]
pub enum DemoSource {
    /// The demo read whole (a small file, a broadcast directory, bytes
    /// given).
    Memory(DemoInput),
    /// The demo read as it is parsed.
    Stream(DemoStream),
}

impl DemoSource {
    /// The path given (or the name given to bytes in memory), for messages.
    pub fn name(&self) -> &Path {
        match self {
            DemoSource::Memory(input) => &input.name,
            DemoSource::Stream(stream) => &stream.name,
        }
    }

    /// Where the input ended early: known from the start for a demo in
    /// memory, once it has been read for a stream.
    pub fn cut(&self) -> Option<&InputCut> {
        match self {
            DemoSource::Memory(input) => input.cut.as_ref(),
            DemoSource::Stream(stream) => stream.cut.as_ref(),
        }
    }

    /// Bytes of demo read so far (decompressed): the whole demo when it
    /// was read at once, else what the parse has read of the stream.
    pub fn bytes_read(&self) -> u64 {
        match self {
            DemoSource::Memory(input) => input.bytes.len() as u64,
            DemoSource::Stream(stream) => stream.bytes_read(),
        }
    }
}

/// Opens a demo as [`open`] does, choosing how to read it: a plain file
/// of at most [`STREAM_ABOVE`] bytes (the corpus clips) and a broadcast
/// directory are read whole ([`DemoSource::Memory`]); a larger file
/// (compressed too) and standard input are streamed
/// ([`DemoSource::Stream`], through bounded buffers: memory does not grow
/// with the demo).
pub fn open_source(path: &Path) -> Result<DemoSource, InputError> {
    if is_url(path) {
        return open_live(path, live_options()).map(DemoSource::Stream);
    }
    if is_broadcast_dir(path) {
        return open(path).map(DemoSource::Memory);
    }
    if !is_stdin(path) {
        let read_error = |source| InputError::reading(path, source);
        let len = std::fs::metadata(path).map_err(read_error)?.len();
        if len <= STREAM_ABOVE {
            return open(path).map(DemoSource::Memory);
        }
    }
    open_stream(path).map(DemoSource::Stream)
}

/// Opens a demo file (or standard input, `-`) as a stream, whatever its
/// size: its first bytes tell whether it is compressed; the rest is read
/// as the parse goes.
pub fn open_stream(path: &Path) -> Result<DemoStream, InputError> {
    if is_url(path) {
        return open_live(path, live_options());
    }
    let read_error = |source| InputError::reading(path, source);
    if is_stdin(path) {
        return DemoStream::new(path, std::io::stdin(), None).map_err(read_error);
    }
    let mut file = std::fs::File::open(path).map_err(read_error)?;
    let len = file.metadata().map_err(read_error)?.len();
    // The first bytes tell the compression; the decompressor then reads
    // the file from its start, as it reads a demo held in memory.
    let head = read_head(&mut file).map_err(read_error)?;
    std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(0)).map_err(read_error)?;
    Ok(DemoStream::with_format(
        path,
        Compression::of(&head),
        file,
        Some(len),
    ))
}

/// Whether `path` is an `http://` or `https://` URL: a live broadcast.
pub fn is_url(path: &Path) -> bool {
    path.to_str().is_some_and(gamewire_live::is_url)
}

/// The live options set for this process ([`set_live_options`]), else the
/// defaults.
static LIVE_OPTIONS: std::sync::Mutex<Option<LiveOptions>> = std::sync::Mutex::new(None);

/// Sets the [`LiveOptions`] that [`open`], [`open_source`] and
/// [`open_stream`] read live broadcasts with (the command line's
/// `--idle-timeout` and `--retries`).
pub fn set_live_options(options: LiveOptions) {
    if let Ok(mut o) = LIVE_OPTIONS.lock() {
        *o = Some(options);
    }
}

/// The [`LiveOptions`] live broadcasts are read with: those set by
/// [`set_live_options`], else the defaults.
pub fn live_options() -> LiveOptions {
    LIVE_OPTIONS
        .lock()
        .ok()
        .and_then(|o| o.clone())
        .unwrap_or_default()
}

/// Opens the live broadcast at the URL `url` as a stream: its sync and
/// signon are fetched now (an error here is [`InputError::Live`]), the
/// fragments as the parse reads. A failure later ends the stream; what
/// came before is parsed and the failure is the cut ([`InputCut::Live`]).
pub fn open_live(url: &Path, options: LiveOptions) -> Result<DemoStream, InputError> {
    let text = url.to_string_lossy();
    let reader = gamewire_live::BroadcastReader::open(&text, options).map_err(InputError::Live)?;
    Ok(DemoStream::with_format(url, None, reader, None))
}

/// Up to the first four bytes of `input` (what [`Compression::of`] reads).
fn read_head(input: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let mut head = [0u8; 4];
    let mut got = 0;
    while got < head.len() {
        let Some(room) = head.get_mut(got..) else {
            break;
        };
        match input.read(room) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(head.get(..got).unwrap_or_default().to_vec())
}

/// A demo read as it is parsed: a file or standard input, through its
/// decompressor when compressed ([`Compression`]). The parse reads it
/// through the stream decoder's bounded buffer
/// (`gamewire_source2::stream`); nothing holds the whole demo.
///
/// The limits and cuts of [`unpack`] hold: the decompressed demo may be at
/// most [`decompressed_limit`] of the compressed size (of the file; for
/// standard input, of the compressed bytes read so far), and a damaged
/// compressed stream ends the demo where it stops
/// ([`InputCut::Compressed`], known once the stream has been read to
/// there: [`DemoStream::cut`]).
pub struct DemoStream {
    /// The path given, for messages.
    pub name: PathBuf,
    /// The demo's bytes (decompressed).
    reader: Box<dyn Read + Send>,
    /// The compression, if any.
    format: Option<Compression>,
    /// Compressed bytes the decompressor has read.
    compressed_read: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// The compressed file's size (`None` for standard input).
    compressed_len: Option<u64>,
    /// Bytes of demo given to the parse.
    delivered: u64,
    /// The input has ended (its end, a cut, an error).
    ended: bool,
    /// Where a compressed stream was cut.
    cut: Option<InputCut>,
    /// Why reading stopped, when it is an error (a read error, a demo
    /// above the decompressed limit).
    error: Option<InputError>,
}

impl std::fmt::Debug for DemoStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoStream")
            .field("name", &self.name)
            .field("format", &self.format)
            .field("delivered", &self.delivered)
            .field("cut", &self.cut)
            .finish_non_exhaustive()
    }
}

/// A reader counting the bytes read from it into a shared counter (the
/// compressed bytes a decompressor has read).
struct CountedReader<R> {
    inner: R,
    read: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl<R: Read> Read for CountedReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

impl DemoStream {
    /// A stream over `input` (a file of `len` bytes, `None` when not
    /// known), named `name`: reads its first bytes to tell its compression.
    pub fn new(
        name: impl Into<PathBuf>,
        input: impl Read + Send + 'static,
        len: Option<u64>,
    ) -> std::io::Result<DemoStream> {
        let mut input = input;
        let head = read_head(&mut input)?;
        let format = Compression::of(&head);
        let whole = std::io::Cursor::new(head).chain(input);
        Ok(DemoStream::with_format(name, format, whole, len))
    }

    /// A stream over `input`, whose compression is known.
    fn with_format(
        name: impl Into<PathBuf>,
        format: Option<Compression>,
        input: impl Read + Send + 'static,
        len: Option<u64>,
    ) -> DemoStream {
        let whole = input;
        let compressed_read = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counted = CountedReader {
            inner: whole,
            read: std::sync::Arc::clone(&compressed_read),
        };
        let mut cut = None;
        let reader: Box<dyn Read + Send> = match format {
            None => Box::new(counted),
            Some(Compression::Gzip) => Box::new(flate2::read::MultiGzDecoder::new(counted)),
            Some(Compression::Bzip2) => Box::new(bzip2::read::MultiBzDecoder::new(counted)),
            Some(Compression::Zstd) => match zstd::stream::read::Decoder::new(counted) {
                Ok(decoder) => Box::new(decoder),
                Err(e) => {
                    cut = Some(e.to_string());
                    Box::new(std::io::empty())
                }
            },
        };
        let mut stream = DemoStream {
            name: name.into(),
            reader,
            format,
            compressed_read,
            compressed_len: len,
            delivered: 0,
            ended: false,
            cut: None,
            error: None,
        };
        if let Some(reason) = cut {
            stream.stop_at_cut(reason);
        }
        stream
    }

    /// Where the compressed stream was cut or damaged, once the parse has
    /// read to there (what came before it is parsed).
    pub fn cut(&self) -> Option<&InputCut> {
        self.cut.as_ref()
    }

    /// Bytes of demo read so far (decompressed).
    pub fn bytes_read(&self) -> u64 {
        self.delivered
    }

    /// The largest decompressed size accepted so far.
    fn limit(&self) -> u64 {
        let compressed = self.compressed_len.unwrap_or_else(|| {
            self.compressed_read
                .load(std::sync::atomic::Ordering::Relaxed)
        });
        decompressed_limit(usize::try_from(compressed).unwrap_or(usize::MAX))
    }

    fn stop_at_cut(&mut self, reason: String) {
        self.ended = true;
        let read = self
            .compressed_read
            .load(std::sync::atomic::Ordering::Relaxed);
        if let Some(format) = self.format {
            self.cut = Some(InputCut::Compressed {
                format,
                reason,
                compressed_read: read,
                compressed_len: self.compressed_len.unwrap_or(read),
                byte_offset: self.delivered,
            });
        }
    }

    /// Reads the rest of the input, dropping it: a parse that stopped
    /// early learns what the input holds after (a cut, an error), which
    /// come first as they do for a demo read whole.
    pub fn drain(&mut self) {
        let mut sink = [0u8; 16 << 10];
        while let Ok(n) = self.read(&mut sink) {
            if n == 0 {
                break;
            }
        }
    }

    /// The error that stopped the reading (a read error, a demo above the
    /// decompressed limit), taken; `None` after a clean end or a cut.
    pub fn take_error(&mut self) -> Option<InputError> {
        self.error.take()
    }

    /// The cut of a compressed stream damaged before the demo's first 8
    /// bytes: nothing usable came out, an error as [`unpack`] gives it.
    pub fn cut_before_demo(&self) -> Option<InputCut> {
        self.cut.clone().filter(|_| self.delivered < 8)
    }
}

impl Read for DemoStream {
    /// The demo's next bytes. A damaged compressed stream, a read error or
    /// a demo above the limit ends the input (`Ok(0)`): the cut is in
    /// [`DemoStream::cut`], the error in [`DemoStream::take_error`].
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.ended {
            return Ok(0);
        }
        let n = loop {
            match self.reader.read(buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if self.format.is_some() => {
                    self.stop_at_cut(e.to_string());
                    return Ok(0);
                }
                Err(e) if live_error(&e).is_some() => {
                    // A live broadcast that failed: what came before is
                    // the demo, the failure its cut.
                    self.ended = true;
                    self.cut = live_error(&e).cloned().map(InputCut::Live);
                    return Ok(0);
                }
                Err(source) => {
                    self.ended = true;
                    self.error = Some(InputError::Read {
                        path: self.name.clone(),
                        source,
                    });
                    return Ok(0);
                }
            }
        };
        if n == 0 {
            self.ended = true;
            return Ok(0);
        }
        if self.format.is_some() {
            let limit = self.limit();
            let total = self.delivered + n as u64;
            if total > limit {
                // As `unpack`: reading stops one byte past the limit.
                self.ended = true;
                self.error = Some(InputError::TooLarge {
                    path: self.name.clone(),
                    size: limit + 1,
                    limit,
                });
                let keep = limit.saturating_sub(self.delivered);
                let keep = usize::try_from(keep).unwrap_or(n).min(n);
                self.delivered += keep as u64;
                return Ok(keep);
            }
        }
        self.delivered += n as u64;
        Ok(n)
    }
}

/// The live broadcast's failure inside a read error, if it is one.
fn live_error(e: &std::io::Error) -> Option<&LiveError> {
    e.get_ref()?.downcast_ref::<LiveError>()
}

/// Whether `path` names standard input (`-`).
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Appends the file `path` to `data`, or standard input for `-`.
pub fn read_file(path: &Path, data: &mut Vec<u8>) -> std::io::Result<()> {
    if is_stdin(path) {
        std::io::stdin().lock().read_to_end(data)?;
    } else {
        std::fs::File::open(path)?.read_to_end(data)?;
    }
    Ok(())
}

/// `name` without a compressed demo's extensions (`x.dem.gz` → `x`), if it
/// has them and something is left.
fn compressed_demo_stem(name: &str) -> Option<&str> {
    Compression::ALL
        .iter()
        .find_map(|c| name.strip_suffix(c.extension())?.strip_suffix(".dem."))
        .filter(|stem| !stem.is_empty())
}

/// The name of a demo without its extensions, as dataset names use it:
/// `match.dem.bz2` → `match`, `match.dem` → `match`; any other name as
/// [`Path::file_stem`] gives it.
pub fn demo_stem(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    match compressed_demo_stem(&name) {
        Some(stem) => Some(stem.to_string()),
        None => path.file_stem().map(|s| s.to_string_lossy().into_owned()),
    }
}

/// Whether a file found in a directory is a demo by its name: `.dem`, or
/// `.dem.gz`, `.dem.bz2`, `.dem.zst`.
pub fn is_demo_name(path: &Path) -> bool {
    let Some(name) = path.file_name() else {
        return false;
    };
    let name = name.to_string_lossy();
    compressed_demo_stem(&name).is_some()
        || name.strip_suffix(".dem").is_some_and(|s| !s.is_empty())
}

/// The fragments of a broadcast directory, in playback order, and what
/// its `sync.json` says of it.
#[derive(Debug, Clone, Default)]
pub struct Broadcast {
    /// Ticks per second from `sync.json`, if given.
    pub tps: Option<u32>,
    /// Map name from `sync.json`.
    pub map: Option<String>,
    /// The fragments, in playback order.
    pub fragments: Vec<Fragment>,
}

/// True when `dir` is a broadcast directory (has a `sync.json`).
pub fn is_broadcast_dir(dir: &Path) -> bool {
    dir.is_dir() && dir.join("sync.json").is_file()
}

/// Reads a broadcast directory: `sync.json`, the signup fragment's
/// `start.bin`, the first later fragment's `full.bin`, and every `delta.bin`
/// from there on, in fragment order (a gap in the numbering ends the list).
pub fn read_broadcast(dir: &Path) -> Result<Broadcast, InputError> {
    let sync_path = dir.join("sync.json");
    let sync_text =
        std::fs::read_to_string(&sync_path).map_err(|source| InputError::BroadcastFile {
            path: sync_path.clone(),
            source,
        })?;
    let sync: serde_json::Value =
        serde_json::from_str(&sync_text).map_err(|source| InputError::BroadcastSync {
            path: sync_path.clone(),
            source,
        })?;
    let number = |key: &str| sync.get(key).and_then(serde_json::Value::as_u64);
    let signup = number("signup_fragment").unwrap_or(0);
    let mut numbered: Vec<u64> = std::fs::read_dir(dir)
        .map_err(|source| InputError::BroadcastList {
            path: dir.to_path_buf(),
            source,
        })?
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<u64>().ok()))
        .filter(|&n| n > signup)
        .collect();
    numbered.sort_unstable();
    let first = number("fragment")
        .filter(|f| numbered.contains(f))
        .or_else(|| numbered.first().copied())
        .ok_or_else(|| InputError::NoFragment {
            path: dir.to_path_buf(),
        })?;
    let read = |rel: PathBuf| -> Result<Fragment, InputError> {
        let path = dir.join(&rel);
        let data =
            std::fs::read(&path).map_err(|source| InputError::BroadcastFile { path, source })?;
        Ok(Fragment {
            name: rel.display().to_string(),
            data,
        })
    };
    let mut fragments = vec![
        read(PathBuf::from(signup.to_string()).join("start.bin"))?,
        read(PathBuf::from(first.to_string()).join("full.bin"))?,
    ];
    let mut next = first;
    while numbered.contains(&next) && dir.join(next.to_string()).join("delta.bin").is_file() {
        fragments.push(read(PathBuf::from(next.to_string()).join("delta.bin"))?);
        next += 1;
    }
    Ok(Broadcast {
        tps: number("tps").and_then(|t| u32::try_from(t).ok()),
        map: sync.get("map").and_then(|m| m.as_str()).map(str::to_string),
        fragments,
    })
}

/// The demos that `inputs` name, in order: files as given (whatever their
/// extension: a missing one fails when it is read, as that demo), broadcast
/// directories (a `sync.json` and its fragments) as one demo each, other
/// directories searched recursively, in name order, for `.dem` files (and
/// `.dem.gz`, `.dem.bz2`, `.dem.zst`) and broadcast directories. A directory
/// reached twice through symbolic links, or a link back to an ancestor, is
/// searched once.
pub fn find_demos(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, InputError> {
    fn walk(
        dir: &Path,
        out: &mut Vec<PathBuf>,
        seen: &mut HashSet<PathBuf>,
    ) -> Result<(), InputError> {
        let read_error = |source| InputError::Read {
            path: dir.to_path_buf(),
            source,
        };
        if !seen.insert(std::fs::canonicalize(dir).map_err(read_error)?) {
            return Ok(());
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(read_error)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for p in entries {
            if is_broadcast_dir(&p) {
                out.push(p);
            } else if p.is_dir() {
                walk(&p, out, seen)?;
            } else if is_demo_name(&p) {
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for p in inputs {
        if p.is_dir() && !is_broadcast_dir(p) {
            walk(p, &mut out, &mut seen)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// True when `inputs` can stand for more than one demo: several paths, or a
/// directory to search (not a broadcast directory, which is one demo).
pub fn names_several(inputs: &[PathBuf]) -> bool {
    inputs.len() > 1 || inputs.iter().any(|p| p.is_dir() && !is_broadcast_dir(p))
}

/// A unique dataset name per demo of a batch: the file name without its
/// demo extensions ([`demo_stem`]; a broadcast directory's name), with
/// `-2`, `-3`, ... on collisions.
pub fn dataset_names(demos: &[PathBuf]) -> Vec<String> {
    let mut seen = HashMap::<String, usize>::new();
    demos
        .iter()
        .map(|p| {
            let stem = demo_stem(p).unwrap_or_else(|| "demo".into());
            let n = seen.entry(stem.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                stem
            } else {
                format!("{stem}-{n}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use std::io::Write;

    /// A made-up demo: the magic, then bytes that do not repeat much.
    fn demo_bytes(len: usize) -> Vec<u8> {
        let mut out = b"PBDEMS2\0".to_vec();
        let mut x: u32 = 0x2545_f491;
        while out.len() < len {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            // Half the bytes small, so every compressor shrinks them.
            out.push(if x & 1 == 0 {
                (x >> 8) as u8
            } else {
                (x >> 8) as u8 & 7
            });
        }
        out
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn bzip2(data: &[u8]) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn zstd(data: &[u8]) -> Vec<u8> {
        zstd::stream::encode_all(data, 3).unwrap()
    }

    fn compress(format: Compression, data: &[u8]) -> Vec<u8> {
        match format {
            Compression::Gzip => gzip(data),
            Compression::Bzip2 => bzip2(data),
            Compression::Zstd => zstd(data),
        }
    }

    const FORMATS: [Compression; 3] = [Compression::Gzip, Compression::Bzip2, Compression::Zstd];

    #[test]
    fn each_format_is_recognised_and_decompressed() {
        let demo = demo_bytes(300_000);
        for format in FORMATS {
            let packed = compress(format, &demo);
            assert!(packed.len() < demo.len(), "{format:?} did not compress");
            assert_eq!(Compression::of(&packed), Some(format));
            let (out, cut) = unpack(Path::new("x"), packed).unwrap();
            assert!(cut.is_none(), "{format:?}: {cut:?}");
            assert!(out == demo, "{format:?}: {} bytes out", out.len());
        }
    }

    #[test]
    fn an_uncompressed_demo_is_passed_through_without_a_copy() {
        let demo = demo_bytes(1000);
        assert_eq!(Compression::of(&demo), None);
        let at = demo.as_ptr();
        let Ok((out, None)) = unpack(Path::new("x"), demo) else {
            panic!("an uncompressed demo is not an error");
        };
        assert_eq!(out.as_ptr(), at);
        // Too short to say: taken as it is (the parser reports it).
        assert_eq!(Compression::of(&[0x1f]), None);
        assert_eq!(Compression::of(b"BZ"), None);
    }

    #[test]
    fn streams_one_after_the_other_are_one_demo() {
        let demo = demo_bytes(200_000);
        let (a, b) = demo.split_at(70_001);
        for format in FORMATS {
            let mut packed = compress(format, a);
            if format == Compression::Zstd {
                // A skippable frame between the two (magic 0x184D2A5?, length 5).
                packed.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 5, 0, 0, 0, 1, 2, 3, 4, 5]);
            }
            packed.extend(compress(format, b));
            let Ok((out, None)) = unpack(Path::new("x"), packed) else {
                panic!("{format:?}: two streams did not decompress");
            };
            assert!(out == demo, "{format:?}: {} bytes out", out.len());
        }
    }

    #[test]
    fn a_cut_stream_keeps_what_came_before_and_names_the_cut() {
        let demo = demo_bytes(600_000);
        for format in [Compression::Gzip, Compression::Zstd] {
            let packed = compress(format, &demo);
            let cut_at = packed.len() * 3 / 5;
            let Ok((out, Some(cut))) = unpack(Path::new("x"), packed[..cut_at].to_vec()) else {
                panic!("{format:?}: a cut stream is a cut");
            };
            assert!(
                out.len() > 8 && out.len() < demo.len(),
                "{format:?}: {}",
                out.len()
            );
            assert!(demo.starts_with(&out), "{format:?}: the kept bytes differ");
            let InputCut::Compressed {
                format: found,
                compressed_len,
                byte_offset,
                ..
            } = &cut
            else {
                panic!("{format:?}: {cut}");
            };
            assert_eq!(*byte_offset, out.len() as u64);
            assert_eq!(*found, format);
            assert_eq!(*compressed_len, cut_at as u64);
            assert!(
                cut.to_string()
                    .contains(&format!("of {cut_at} compressed bytes")),
                "{cut}"
            );
        }
        // bzip2 decodes whole blocks (900 kB): a stream cut inside its
        // first block gives nothing usable, which is an error, not a cut.
        let packed = bzip2(&demo);
        let Err(e) = unpack(Path::new("x"), packed[..packed.len() / 2].to_vec()) else {
            panic!("a bzip2 stream cut in its first block is an error");
        };
        assert!(e.to_string().starts_with("bzip2 stream: "), "{e}");
    }

    #[test]
    fn damage_after_the_magic_is_an_error_naming_the_format() {
        for format in FORMATS {
            let mut packed = compress(format, &demo_bytes(50_000));
            let keep = packed.len().min(16);
            for b in packed.iter_mut().skip(keep) {
                *b = 0xa5;
            }
            match unpack(Path::new("x"), packed) {
                Err(e) => assert!(e.to_string().starts_with(format.name()), "{e}"),
                Ok((out, cut)) => {
                    // What decoded before the damage must be the demo's start.
                    assert!(cut.is_some(), "{format:?}: damage went unnoticed");
                    assert!(demo_bytes(50_000).starts_with(&out), "{format:?}");
                }
            }
        }
    }

    #[test]
    fn a_decompression_bomb_is_refused_at_the_limit() {
        let zeros = vec![0u8; 40 << 20];
        for format in FORMATS {
            let packed = compress(format, &zeros);
            let limit = decompressed_limit(packed.len());
            assert!(
                limit < zeros.len() as u64,
                "{format:?}: {} bytes",
                packed.len()
            );
            let Err(e) = unpack(Path::new("x"), packed) else {
                panic!("{format:?}: a bomb was accepted");
            };
            let InputError::TooLarge { size, limit: l, .. } = e else {
                panic!("{format:?}: {e}");
            };
            assert_eq!(l, limit);
            // It stops one byte past the limit, not at the end of the bomb.
            assert_eq!(size, limit + 1);
        }
    }

    #[test]
    fn demo_names_lose_their_extensions() {
        let stem = |p: &str| demo_stem(Path::new(p));
        assert_eq!(stem("a/match730_1.dem.bz2").as_deref(), Some("match730_1"));
        assert_eq!(stem("x.dem.gz").as_deref(), Some("x"));
        assert_eq!(stem("x.dem.zst").as_deref(), Some("x"));
        assert_eq!(stem("x.dem").as_deref(), Some("x"));
        assert_eq!(stem("broadcast_dir").as_deref(), Some("broadcast_dir"));
        assert_eq!(stem("notes.txt").as_deref(), Some("notes"));
        assert!(is_demo_name(Path::new("d/x.dem")));
        assert!(is_demo_name(Path::new("x.dem.gz")));
        assert!(is_demo_name(Path::new("x.dem.bz2")));
        assert!(is_demo_name(Path::new("x.dem.zst")));
        assert!(!is_demo_name(Path::new("x.gz")));
        assert!(!is_demo_name(Path::new(".dem")));
        assert!(!is_demo_name(Path::new("x.demo")));
        assert!(is_stdin(Path::new("-")));
        assert!(!is_stdin(Path::new("./-")));
    }
}
