//! CS2 demos written from scenario files.
//!
//! A scenario (JSON or TOML, see `docs/scenarios.md`) names the map, the tick
//! rate, the players, their keyframed movement and state, and the events of a
//! match. `scenario` reads and checks it, [`timeline`] expands it into the
//! state of the match at every written tick, [`schema`] holds the send tables,
//! class info and game-event descriptors the demo declares (built in, or taken
//! from a real demo), and `emit` writes the demo through `gamewire-source2`'s
//! writer.
//!
//! [`synthesize`] does the four steps in one call; [`SAMPLE_DEMO`] is the
//! short match that ships with gamewire, synthesized from
//! `examples/scenarios/sample.toml` with the built-in schema.

use std::io::{Seek, Write};

pub mod emit;
pub mod error;
pub mod items;
pub mod scenario;
pub mod schema;
pub mod simulate;
pub mod timeline;
pub mod validate;

pub use error::{SynthError, SynthErrorKind};
pub use scenario::{load, Scenario, ScenarioFormat};

use timeline::Timeline;

/// The sample demo: a short CS2 match (10 players, several rounds with
/// kills, damage, grenades, the bomb and chat) synthesized from
/// `examples/scenarios/sample.toml` with the built-in schema. The command
/// line's `--sample` and Python's `Demo.sample()` read these bytes; a test
/// checks that synthesizing the scenario again gives exactly them.
pub const SAMPLE_DEMO: &[u8] = include_bytes!("../sample/sample.dem");

/// The scenario the sample demo is synthesized from.
pub const SAMPLE_SCENARIO: &str = include_str!("../../../examples/scenarios/sample.toml");

/// What [`synthesize`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthReport {
    /// The map.
    pub map: String,
    /// Server ticks per second.
    pub tick_rate: u32,
    /// The first written tick.
    pub first_tick: i32,
    /// The last written tick.
    pub last_tick: i32,
    /// Ticks between two written frames.
    pub frame_interval: u32,
    /// Frames written (one per written tick).
    pub frames: u64,
    /// Players in the match (every slot ever used).
    pub players: usize,
    /// Where the schema came from: `built-in`, or `demo` for a schema demo.
    pub schema: &'static str,
    /// Bytes written.
    pub bytes: u64,
}

/// Reads a scenario, expands it into its timeline and writes it as a CS2
/// demo to `out`: with the send tables, class info and game-event
/// descriptors of `schema_demo` when given (the bytes of a CS2 demo, so
/// that every reader sees a normal demo of that game build), else with the
/// built-in schema.
///
/// A scenario with an error fails before anything is written
/// ([`SynthErrorKind::Scenario`], naming the line or key); so does a
/// schema demo that lacks a class or field the match needs
/// ([`SynthErrorKind::Schema`]).
pub fn synthesize<W: Write + Seek>(
    scenario: &str,
    format: ScenarioFormat,
    schema_demo: Option<&[u8]>,
    out: W,
) -> Result<(W, SynthReport), SynthError> {
    let scenario = scenario::load(scenario, format)?;
    let timeline = scenario.timeline()?;
    let (schema, schema_name) = match schema_demo {
        Some(bytes) => (schema::from_demo(bytes)?, "demo"),
        None => (schema::builtin::builtin(), "built-in"),
    };
    let (out, emitted) = emit::write_demo_with_report(&timeline, &schema, out)?;
    let info = timeline.info();
    let interval = info.frame_interval.max(1);
    let span = i64::from(info.last_tick) - i64::from(info.first_tick);
    let frames = u64::try_from(span / i64::from(interval) + 1).unwrap_or(0);
    let report = SynthReport {
        map: info.map.clone(),
        tick_rate: info.tick_rate,
        first_tick: info.first_tick,
        last_tick: info.last_tick,
        frame_interval: info.frame_interval,
        frames,
        players: info.players.len(),
        schema: schema_name,
        bytes: emitted.bytes,
    };
    Ok((out, report))
}

/// Writes a finished demo's `bytes` to `out` as the demo writers of
/// `gamewire-query` do: into a temporary file in `out`'s folder
/// (`.NAME.PID.partial`), flushed to disk, then renamed to `out`, so that
/// no half-written demo is ever left under `out`'s name. On failure the
/// temporary file is removed.
pub fn write_file_atomically(out: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.{}.partial", std::process::id()));
    let written = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temp, out)
    })();
    if written.is_err() {
        // The write failed: the partial file goes (an error removing it
        // would hide the one that matters).
        let _ = std::fs::remove_file(&temp);
    }
    written
}
