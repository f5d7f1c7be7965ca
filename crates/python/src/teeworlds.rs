//! The native half of `gamewire.teeworlds`: a Teeworlds 0.7 pcap capture or
//! demo read into the tables of `gamewire_query::teeworlds` (snapshots, one
//! table per snapshot object type, players, messages, chat, kills,
//! summary), handed to Python as the same column buffers as the Source 2
//! tables, the GIL released while the file is read and decoded.

use std::path::PathBuf;

use gamewire_query::teeworlds::{
    demo_tables, error_category, is_demo, pcap_tables, TeeworldsTable, TeeworldsTables,
};
use gamewire_query::ErrorCategory;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::{buffers, to_python, Failure};

/// The exception of a recording that did not read: not a capture or a
/// demo at all (`NotADemoError`), a demo cut inside its header
/// (`DemoTruncatedError`), anything else (`DemoError`); `{path}: {error}`
/// as `gamewire tw` prints it.
fn failure(path: &std::path::Path, category: ErrorCategory, e: &dyn std::fmt::Display) -> Failure {
    let message = format!("{}: {e}", path.display());
    match category {
        ErrorCategory::NotADemo => Failure::NotADemo(message),
        ErrorCategory::Truncated => Failure::Truncated(message),
        _ => Failure::Corrupt(message),
    }
}

/// Reads a Teeworlds 0.7 recording: `kind` is `"pcap"`, `"demo"` or
/// `"auto"` (by the file's first bytes); `tables` names the tables (`None`:
/// every fixed table, and the object tables that have rows). Returns
/// `([(table, columns)], cut, warnings, errors)`: `cut` names the cut of a
/// demo cut short (its tables hold everything before it), `warnings`
/// and `errors` the sentences of a capture's odd or failed datagrams.
#[pyfunction]
#[pyo3(signature = (path, kind="auto", tables=None))]
pub fn read_teeworlds<'py>(
    py: Python<'py>,
    path: PathBuf,
    kind: &str,
    tables: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let wanted: Vec<TeeworldsTable> = match &tables {
        Some(names) => names
            .iter()
            .map(|n| n.parse::<TeeworldsTable>())
            .collect::<Result<_, _>>()
            .map_err(|e| Failure::UnknownName(e.to_string()))?,
        None => TeeworldsTable::all(),
    };
    if !matches!(kind, "auto" | "pcap" | "demo") {
        return Err(Failure::Usage(format!(
            "unknown kind {kind:?}; valid kinds: auto, pcap, demo"
        ))
        .into());
    }
    let data = py.detach(|| std::fs::read(&path)).map_err(|e| {
        let message = format!("cannot read {}: {e}", path.display());
        if e.kind() == std::io::ErrorKind::NotFound {
            Failure::Missing(message)
        } else {
            Failure::Read(message)
        }
    })?;
    let demo = match kind {
        "demo" => true,
        "pcap" => false,
        _ => is_demo(&data),
    };
    let read = py.detach(|| {
        if demo {
            demo_tables(&data, &wanted)
        } else {
            pcap_tables(&data, &wanted)
        }
    });
    let TeeworldsTables {
        tables: mut out,
        warnings,
        errors,
        cut,
        ..
    } = read.map_err(|e| failure(&path, error_category(&e), &e))?;
    if tables.is_none() {
        // Every fixed table; of the object tables, those with rows.
        out.retain(|t| {
            t.rows() > 0
                || !matches!(
                    t.name.parse::<TeeworldsTable>(),
                    Ok(TeeworldsTable::Objects(_))
                )
        });
    }
    let cut = cut.map(|c| format!("{}: {c}", path.display()));
    let columns = to_python(py, buffers(out))?;
    PyTuple::new(
        py,
        [
            columns.into_any(),
            cut.into_pyobject(py)?.into_any(),
            warnings.into_pyobject(py)?.into_any(),
            errors.into_pyobject(py)?.into_any(),
        ],
    )
}
