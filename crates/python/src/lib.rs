//! Python bindings (module `gamewire._gamewire`).
#![forbid(unsafe_code)]

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _gamewire(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
