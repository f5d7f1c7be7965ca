//! TEMPORARY: the signatures of the source2 edit API, copying frames, until
//! the real pipelines are merged. Removed before the branch is reported.
#![allow(missing_docs, dead_code)]

use std::io::{Read, Seek, Write};

use gamewire_source2::container::FrameReader;
use gamewire_source2::container_writer::DemoWriter;
use gamewire_source2::{DemoError, ErrorKind, Location};

pub use gamewire_source2::edit::{cut, rewrite, EditReport, TickRange};

#[derive(Debug, Clone)]
pub struct AnonymizeOptions {
    pub key: [u8; 32],
    pub keep_chat: bool,
}

impl AnonymizeOptions {
    pub fn from_passphrase(k: &str) -> Self {
        let mut key = [0u8; 32];
        for (i, b) in k.bytes().enumerate() {
            key[i % 32] ^= b;
        }
        AnonymizeOptions {
            key,
            keep_chat: false,
        }
    }
    pub fn random() -> Result<Self, std::io::Error> {
        Ok(Self::from_passphrase("random"))
    }
}

fn copy<R: Read, W: Write + Seek>(
    mut input: R,
    out: W,
    keep: impl Fn(i32) -> bool,
) -> Result<EditReport, DemoError> {
    let io = |e: std::io::Error| DemoError {
        kind: ErrorKind::Unwritable {
            what: "demo",
            reason: e.to_string(),
        },
        location: Location::default(),
    };
    let mut data = Vec::new();
    input.read_to_end(&mut data).map_err(io)?;
    let mut reader = FrameReader::new(&data)?;
    let mut writer = DemoWriter::new(out)?;
    let mut report = EditReport {
        first_tick: -1,
        last_tick: -1,
        ..EditReport::default()
    };
    loop {
        match reader.next_frame() {
            Ok(Some(f)) => {
                report.frames_read += 1;
                if keep(f.tick) {
                    writer.write_decoded_frame(&f)?;
                    report.frames_written += 1;
                    if report.first_tick < 0 {
                        report.first_tick = f.tick;
                    }
                    report.last_tick = report.last_tick.max(f.tick);
                }
            }
            Ok(None) => break,
            Err(e) if e.is_truncation() => {
                report.cut = Some(e);
                break;
            }
            Err(e) => return Err(e),
        }
    }
    writer.finish()?;
    Ok(report)
}

pub fn anonymize<R: Read, W: Write + Seek>(
    input: R,
    out: W,
    _options: &AnonymizeOptions,
) -> Result<EditReport, DemoError> {
    copy(input, out, |_| true)
}
