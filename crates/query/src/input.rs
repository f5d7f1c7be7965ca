//! Demo files as they are handed out: compressed, or on standard input.
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
//! [`ErrorKind::LimitExceeded`] before more is allocated. Real demos, whose
//! frames are snappy-compressed already, shrink by a factor of 1.3 to 1.8.
//! A compressed stream that is cut or damaged keeps what it decoded before
//! the damage: the demo up to there is parsed as a truncated demo, and the
//! damage comes back as the cut ([`ErrorKind::Compressed`]), located at the
//! byte of the decompressed demo where it stopped.

use std::io::Read;

use gamewire_source2::{DemoError, ErrorKind, Location};

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
/// cut or damaged, the cut (what came before it is kept).
///
/// An error when nothing usable came out (the stream is damaged before the
/// demo's first 8 bytes) or the demo would be larger than
/// [`decompressed_limit`].
pub fn unpack(data: Vec<u8>) -> Result<(Vec<u8>, Option<DemoError>), DemoError> {
    let Some(format) = Compression::of(&data) else {
        return Ok((data, None));
    };
    let mut out = Vec::new();
    let cut = decompress_into(&data, format, &mut out)?;
    match cut {
        Some(cut) if out.len() < 8 => Err(cut),
        cut => Ok((out, cut)),
    }
}

/// Decompresses `data` (in `format`) into `out`; `Ok(Some(cut))` when the
/// stream is cut or damaged after `out` (which holds what came before).
fn decompress_into(
    data: &[u8],
    format: Compression,
    out: &mut Vec<u8>,
) -> Result<Option<DemoError>, DemoError> {
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
    let located = |kind| DemoError {
        kind,
        location: Location {
            byte_offset: out.len() as u64,
            frame: 0,
            tick: -1,
        },
    };
    match result {
        Ok(()) if out.len() as u64 > limit => Err(located(ErrorKind::LimitExceeded {
            what: "the decompressed size of a compressed demo (bytes)",
            value: out.len() as u64,
            limit,
        })),
        Ok(()) => Ok(None),
        Err(message) => Ok(Some(located(ErrorKind::Compressed {
            format: format.name(),
            message: format!(
                "{message} (after {} of {} compressed bytes, {} bytes of demo decoded)",
                source.read,
                data.len(),
                out.len()
            ),
        }))),
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

/// Whether `path` names standard input (`-`).
pub fn is_stdin(path: &std::path::Path) -> bool {
    path.as_os_str() == "-"
}

/// Appends the file `path` to `data`, or standard input for `-`.
pub fn read_file(path: &std::path::Path, data: &mut Vec<u8>) -> std::io::Result<()> {
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
/// [`std::path::Path::file_stem`] gives it.
pub fn demo_stem(path: &std::path::Path) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    match compressed_demo_stem(&name) {
        Some(stem) => Some(stem.to_string()),
        None => path.file_stem().map(|s| s.to_string_lossy().into_owned()),
    }
}

/// Whether a file found in a directory is a demo by its name: `.dem`, or
/// `.dem.gz`, `.dem.bz2`, `.dem.zst`.
pub fn is_demo_name(path: &std::path::Path) -> bool {
    let Some(name) = path.file_name() else {
        return false;
    };
    let name = name.to_string_lossy();
    compressed_demo_stem(&name).is_some()
        || name.strip_suffix(".dem").is_some_and(|s| !s.is_empty())
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
            let (out, cut) = unpack(packed).unwrap();
            assert!(cut.is_none(), "{format:?}: {cut:?}");
            assert!(out == demo, "{format:?}: {} bytes out", out.len());
        }
    }

    #[test]
    fn an_uncompressed_demo_is_passed_through_without_a_copy() {
        let demo = demo_bytes(1000);
        assert_eq!(Compression::of(&demo), None);
        let at = demo.as_ptr();
        let Ok((out, None)) = unpack(demo) else {
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
            let Ok((out, None)) = unpack(packed) else {
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
            let Ok((out, Some(cut))) = unpack(packed[..cut_at].to_vec()) else {
                panic!("{format:?}: a cut stream is a cut");
            };
            assert!(
                out.len() > 8 && out.len() < demo.len(),
                "{format:?}: {}",
                out.len()
            );
            assert!(demo.starts_with(&out), "{format:?}: the kept bytes differ");
            assert_eq!(cut.location.byte_offset, out.len() as u64);
            let ErrorKind::Compressed {
                format: name,
                message,
            } = &cut.kind
            else {
                panic!("{format:?}: {cut}");
            };
            assert_eq!(*name, format.name());
            assert!(
                message.contains(&format!("of {cut_at} compressed bytes")),
                "{message}"
            );
        }
        // bzip2 decodes whole blocks (900 kB): a stream cut inside its
        // first block gives nothing usable, which is an error, not a cut.
        let packed = bzip2(&demo);
        let Err(e) = unpack(packed[..packed.len() / 2].to_vec()) else {
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
            match unpack(packed) {
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
            let Err(e) = unpack(packed) else {
                panic!("{format:?}: a bomb was accepted");
            };
            let ErrorKind::LimitExceeded {
                value, limit: l, ..
            } = e.kind
            else {
                panic!("{format:?}: {e}");
            };
            assert_eq!(l, limit);
            // It stops one byte past the limit, not at the end of the bomb.
            assert_eq!(value, limit + 1);
        }
    }

    #[test]
    fn demo_names_lose_their_extensions() {
        use std::path::Path;
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
