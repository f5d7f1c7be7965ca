//! Synthesized CS2 demos in Python: `gamewire.synth(scenario, out,
//! schema=None)` and the bytes of the sample demo behind
//! `gamewire.Demo.sample()`.
//!
//! `synth` takes the scenario's text and format (the Python half tells a
//! path from text and reads the file), and the bytes of a schema demo when
//! given, makes the demo in memory with the GIL released, and writes it
//! through a temporary file in the output's folder renamed when complete.
//! A scenario with an error raises `ScenarioError` (a `ValueError`) naming
//! the line or key, and writes nothing.

use std::io::Cursor;
use std::path::PathBuf;

use gamewire_synth::{synthesize, ScenarioFormat, SynthError, SynthErrorKind};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use gamewire_query::input;

use crate::{DemoError, Failure, NotADemoError};

create_exception!(
    gamewire,
    ScenarioError,
    PyValueError,
    "A scenario gamewire.synth cannot write: malformed, or contradicting itself (an unknown \
     player, a kill of a dead player, a time running backwards, an unknown weapon). The \
     message names the line or the key and what is wrong; no file is written."
);

/// The sample demo's bytes (`gamewire.Demo.sample()` reads them).
#[pyfunction]
pub(crate) fn sample_demo(py: Python<'_>) -> Bound<'_, PyBytes> {
    PyBytes::new(py, gamewire_synth::SAMPLE_DEMO)
}

/// A `SynthError` as the package's exception.
fn synth_error(e: SynthError) -> PyErr {
    match &e.kind {
        SynthErrorKind::Scenario { .. } => ScenarioError::new_err(e.to_string()),
        SynthErrorKind::Schema { .. } => DemoError::new_err(format!("schema demo: {e}")),
        SynthErrorKind::Demo(d) if d.location.frame == 0 && d.location.byte_offset == 0 => {
            NotADemoError::new_err(format!("schema demo: {e}"))
        }
        SynthErrorKind::Demo(_) => DemoError::new_err(e.to_string()),
    }
}

/// Writes the demo of `scenario` (its text, in `format`: `"toml"` or
/// `"json"`) to `out`, with the schema of the CS2 demo at the path `schema`
/// (read through the input stage: compressed too) or the built-in one. Returns what was written as a dict: `map`,
/// `tick_rate`, `first_tick`, `last_tick`, `frame_interval`, `frames`,
/// `players`, `schema` (`"built-in"` or `"demo"`) and `bytes`.
#[pyfunction]
#[pyo3(signature = (scenario, format, out, schema=None))]
pub(crate) fn synth<'py>(
    py: Python<'py>,
    scenario: String,
    format: &str,
    out: PathBuf,
    schema: Option<PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let format = match format {
        "toml" => ScenarioFormat::Toml,
        "json" => ScenarioFormat::Json,
        other => {
            return Err(PyValueError::new_err(format!(
                "scenario format {other:?}: give \"toml\" or \"json\""
            )))
        }
    };
    let schema: Option<Vec<u8>> = match schema {
        Some(path) => {
            let read = py.detach(|| input::open(&path).and_then(|i| i.whole()));
            Some(read.map_err(|e| Failure::of(&path, &e.into()))?)
        }
        None => None,
    };
    let made = py.detach(|| {
        synthesize(
            &scenario,
            format,
            schema.as_deref(),
            Cursor::new(Vec::new()),
        )
    });
    let (bytes, report) = made.map_err(synth_error)?;
    let bytes = bytes.into_inner();
    let written = py.detach(|| gamewire_synth::write_file_atomically(&out, &bytes));
    written.map_err(|e| PyOSError::new_err(format!("writing {}: {e}", out.display())))?;
    let dict = PyDict::new(py);
    dict.set_item("map", &report.map)?;
    dict.set_item("tick_rate", report.tick_rate)?;
    dict.set_item("first_tick", report.first_tick)?;
    dict.set_item("last_tick", report.last_tick)?;
    dict.set_item("frame_interval", report.frame_interval)?;
    dict.set_item("frames", report.frames)?;
    dict.set_item("players", report.players)?;
    dict.set_item("schema", report.schema)?;
    dict.set_item("bytes", bytes.len())?;
    Ok(dict)
}

/// Adds the synth functions and `ScenarioError` to the native module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(sample_demo, m)?)?;
    m.add_function(wrap_pyfunction!(synth, m)?)?;
    Ok(())
}
