//! `gamewire synth SCENARIO OUT [--schema DEMO]`: a CS2 demo written from a
//! scenario file (`docs/scenarios.md`).
//!
//! The scenario's format is told by its extension (`.json`, `.toml`). The
//! whole demo is made in memory first, so a scenario with an error (it
//! names the line or the key) leaves no file at all; OUT is then written to
//! a temporary file in its folder and renamed when complete, as `rewrite`,
//! `cut` and `anonymize` write theirs. With `--schema DEMO` the send
//! tables, class info and game-event descriptors are that CS2 demo's (so
//! every reader sees a normal demo of that game build); without it, the
//! built-in schema's.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use clap::Args;
use gamewire_synth::{synthesize, ScenarioFormat, SynthReport};

use crate::error::CliError;
use crate::read::read_demo_bytes;

/// `gamewire synth`.
#[derive(Debug, Args)]
pub struct SynthArgs {
    /// The scenario: a `.toml` or `.json` file (`docs/scenarios.md`).
    #[arg(value_name = "SCENARIO")]
    pub scenario: PathBuf,
    /// The demo to write (replaced if it exists; written to a temporary
    /// file in its folder first).
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// A CS2 demo whose send tables, class info and game-event
    /// descriptors the new demo carries (default: the built-in schema).
    #[arg(long, value_name = "DEMO")]
    pub schema: Option<PathBuf>,
}

/// `gamewire synth`.
pub fn synth(args: SynthArgs) -> Result<(), CliError> {
    let format = ScenarioFormat::from_path(&args.scenario)
        .ok_or_else(|| CliError::ScenarioFormat(args.scenario.clone()))?;
    let text = std::fs::read_to_string(&args.scenario).map_err(|source| CliError::Read {
        path: args.scenario.clone(),
        source,
    })?;
    let schema = match &args.schema {
        Some(path) => Some(read_demo_bytes(path)?),
        None => None,
    };
    let (out, report) = synthesize(&text, format, schema.as_deref(), Cursor::new(Vec::new()))
        .map_err(|source| CliError::Synth {
            path: args.scenario.clone(),
            source: Box::new(source),
        })?;
    let bytes = out.into_inner();
    write_file(&args.output, &bytes)?;
    eprintln!("{}", summary(&args.output, &report, bytes.len()));
    Ok(())
}

/// Writes `bytes` to `out` through a temporary file in its folder, renamed
/// once every byte is on disk ([`gamewire_synth::write_file_atomically`]).
fn write_file(out: &Path, bytes: &[u8]) -> Result<(), CliError> {
    gamewire_synth::write_file_atomically(out, bytes).map_err(|source| CliError::Write {
        path: out.to_path_buf(),
        source,
    })
}

/// The one line the command prints: what was written.
fn summary(out: &Path, r: &SynthReport, size: usize) -> String {
    format!(
        "synth: wrote {}: {} ({} bytes), {} frames (ticks {}..={}, every {} at {} ticks/s), {} players, {} schema",
        out.display(),
        r.map,
        size,
        r.frames,
        r.first_tick,
        r.last_tick,
        r.frame_interval,
        r.tick_rate,
        r.players,
        r.schema,
    )
}
