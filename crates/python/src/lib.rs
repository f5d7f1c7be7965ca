//! The native half of the `gamewire` Python package (module
//! `gamewire._gamewire`).
//!
//! `NativeDemo` holds a demo's bytes, read once when it is constructed, and
//! answers with the GIL released: the header (the same fields as
//! `gamewire info --format json`), the names of the game events that occur,
//! the props the demo offers, and the analyst tables of `gamewire-query`,
//! several queries in one pass over the demo. A table comes back as typed
//! column buffers (little-endian values plus a null mask) that the Python
//! half (`python/gamewire/_demo.py`) turns into pandas or polars DataFrames
//! without a Python object per value.
//!
//! `NativeDemo` also writes demos (`rewrite`, `cut`, `anonymize`, as the
//! commands of the same names): the held bytes go through
//! `gamewire_query::edit` into a new file, written under a temporary name
//! and renamed when complete, the GIL released.
//!
//! `run_many` runs one query over many demos on a worker pool (the
//! `parse_many` of the Python half), each demo read and parsed on a worker,
//! and returns one table per name with every demo's rows, the GIL released
//! throughout.
//!
//! Errors carry the text the CLI prints, as one of the exception classes of
//! the package, chosen by the error's [`ErrorCategory`]: `DemoError` (a
//! `ValueError`; a corrupt demo) and its subclasses `NotADemoError`,
//! `DemoTruncatedError`, `UnknownNameError` (an unknown table, event, prop or
//! class, with the closest valid names) and `BadArgumentError` (also a
//! `TypeError`: an option no table uses, ticks beyond the demo's end, a
//! malformed tick set); `FileNotFoundError` / `OSError` when the file cannot
//! be read.
#![forbid(unsafe_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use gamewire_query::edit::{self, AnonymizeOptions, CutRange, Edit, TickRange};
use gamewire_query::input::{self, DemoInput};
use gamewire_query::props;
use gamewire_query::reference::{self, TableSpec};
use gamewire_query::{
    Column, Cut, DemoState, ErrorCategory, GameEvent, Interests, Kind, Query, QueryError,
    RunOptions, SendTableCache, Table, TableKind, TickSet, Visitor,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple, PyType};

mod follow;
mod synth;
mod teeworlds;

create_exception!(
    gamewire,
    DemoError,
    PyValueError,
    "A demo that cannot be parsed, or a query it cannot answer; the message is the CLI's. \
     A corrupt demo raises this class itself; the other failures raise a subclass: \
     NotADemoError, DemoTruncatedError, UnknownNameError, BadArgumentError."
);
create_exception!(
    gamewire,
    NotADemoError,
    DemoError,
    "The data is not a Source 2 demo (another format, a Source 1 demo, an empty file)."
);
create_exception!(
    gamewire,
    DemoTruncatedError,
    DemoError,
    "The demo ends early (a truncated file, a cut broadcast fragment or compressed stream); \
     raised only with strict=True, else the result holds everything before the cut and a \
     DemoTruncatedWarning names the cut."
);
create_exception!(
    gamewire,
    UnknownNameError,
    DemoError,
    "A table, event, prop or class name the demo does not have; the message lists the \
     closest valid names. Not a KeyError: it is about the arguments, not a lookup."
);

/// `BadArgumentError`: a `DemoError` and a `TypeError` (two bases, so made
/// with `type()` the first time it is needed).
fn bad_argument_type(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    static TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let ty = TYPE.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        let bases = PyTuple::new(
            py,
            [py.get_type::<DemoError>(), py.get_type::<PyTypeError>()],
        )?;
        let dict = PyDict::new(py);
        dict.set_item("__module__", "gamewire")?;
        dict.set_item(
            "__doc__",
            "A call gamewire cannot answer as asked: an option of the wrong type, an option no \
             table asked for uses, a malformed tick set, ticks beyond the demo's last tick. A \
             DemoError (so a ValueError) and a TypeError.",
        )?;
        let made = py
            .get_type::<PyType>()
            .call1(("BadArgumentError", bases, dict))?
            .cast_into::<PyType>()?;
        Ok(made.unbind())
    })?;
    Ok(ty.bind(py).clone())
}

/// A `BadArgumentError` with `message`.
fn bad_argument(message: String) -> PyErr {
    Python::attach(|py| match bad_argument_type(py) {
        Ok(ty) => PyErr::from_type(ty, message),
        Err(e) => e,
    })
}

/// How reading or parsing a demo failed, or that it was cut short; each
/// kind is a Python exception (or, for a demo of `run_many`, its tag).
#[derive(Debug)]
enum Failure {
    /// The file does not exist (`FileNotFoundError`; tag `"missing"`).
    Missing(String),
    /// The file could not be read (`OSError`; tag `"read"`).
    Read(String),
    /// Not a Source 2 demo (`NotADemoError`; tag `"not_a_demo"`).
    NotADemo(String),
    /// Cut short where that is an error (`DemoTruncatedError`; tag
    /// `"truncated"`).
    Truncated(String),
    /// A corrupt demo (`DemoError`; tag `"corrupt"`).
    Corrupt(String),
    /// An unknown name (`UnknownNameError`; tag `"unknown_name"`).
    UnknownName(String),
    /// A query the demo cannot answer as asked (`BadArgumentError`; tag
    /// `"usage"`).
    Usage(String),
    /// A demo cut short: its rows before the cut are kept (a warning in
    /// Python; tag `"cut"`).
    Cut(String),
}

impl Failure {
    /// How a demo of `path` failed: `{path}: {error}`, as `gamewire table`
    /// prints it (a read error names its path itself).
    fn of(path: &Path, e: &QueryError) -> Failure {
        let message = || format!("{}: {e}", path.display());
        match e.category() {
            ErrorCategory::Io => match e {
                QueryError::Input(i) if i.is_not_found() => Failure::Missing(e.to_string()),
                _ => Failure::Read(e.to_string()),
            },
            ErrorCategory::NotADemo => Failure::NotADemo(message()),
            ErrorCategory::Truncated => Failure::Truncated(message()),
            ErrorCategory::UnknownName => Failure::UnknownName(message()),
            ErrorCategory::Usage => Failure::Usage(message()),
            _ => Failure::Corrupt(message()),
        }
    }

    /// A query that cannot be built or run whatever the demo (an unknown
    /// table, an option no table uses, a malformed tick set): the message
    /// names no demo, and the options by their Python names.
    fn of_query(e: &QueryError) -> Failure {
        match e {
            QueryError::OptionNotUsed { option, tables } => Failure::Usage(format!(
                "the option {} is not used by the tables asked for (it is used by: {tables})",
                python_option(option)
            )),
            _ if e.category() == ErrorCategory::UnknownName => Failure::UnknownName(e.to_string()),
            _ => Failure::Usage(e.to_string()),
        }
    }

    /// The tag the Python half reads in `run_many`'s failures.
    fn tag(&self) -> &'static str {
        match self {
            Failure::Missing(_) => "missing",
            Failure::Read(_) => "read",
            Failure::NotADemo(_) => "not_a_demo",
            Failure::Truncated(_) => "truncated",
            Failure::Corrupt(_) => "corrupt",
            Failure::UnknownName(_) => "unknown_name",
            Failure::Usage(_) => "usage",
            Failure::Cut(_) => "cut",
        }
    }

    fn into_message(self) -> String {
        match self {
            Failure::Missing(m)
            | Failure::Read(m)
            | Failure::NotADemo(m)
            | Failure::Truncated(m)
            | Failure::Corrupt(m)
            | Failure::UnknownName(m)
            | Failure::Usage(m)
            | Failure::Cut(m) => m,
        }
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        match f {
            Failure::Missing(m) => PyFileNotFoundError::new_err(m),
            Failure::Read(m) => PyOSError::new_err(m),
            Failure::NotADemo(m) => NotADemoError::new_err(m),
            Failure::Truncated(m) | Failure::Cut(m) => DemoTruncatedError::new_err(m),
            Failure::Corrupt(m) => DemoError::new_err(m),
            Failure::UnknownName(m) => UnknownNameError::new_err(m),
            Failure::Usage(m) => bad_argument(m),
        }
    }
}

/// `{path}: {error}` as the exception of its category.
fn demo_error(path: &Path, e: &QueryError) -> PyErr {
    Failure::of(path, e).into()
}

/// The Python (and command-line) name of a [`Query`] option.
fn python_option(field: &str) -> &str {
    match field {
        "events" => "name",
        other => other,
    }
}

/// A tick set as the Python half passes it: the command line's text
/// (`"5, 100..200"`) or a list of ticks.
#[derive(Debug, FromPyObject)]
enum TicksSpec {
    Text(String),
    List(Vec<i32>),
}

/// A query as the Python half passes it (a dict whose keys are the
/// command line's option names; `_demo._query` checks their types).
#[derive(Debug, FromPyObject)]
struct QuerySpec {
    /// Table names (`events`, `ticks`, ...).
    #[pyo3(item)]
    tables: Vec<String>,
    /// `events`: only these event names (all when `None`).
    #[pyo3(item)]
    name: Option<Vec<String>>,
    /// Player props (`events`, `ticks`).
    #[pyo3(item)]
    props: Vec<String>,
    /// Game-wide props (`events`).
    #[pyo3(item)]
    other: Vec<String>,
    /// `ticks`: only these ticks.
    #[pyo3(item)]
    ticks: Option<TicksSpec>,
    /// `ticks`: only these steam ids.
    #[pyo3(item)]
    players: Option<Vec<u64>>,
    /// `ticks`: leave the bots out.
    #[pyo3(item)]
    humans_only: bool,
    /// `grenades`: raw props of the projectile.
    #[pyo3(item)]
    grenade_props: Vec<String>,
}

impl QuerySpec {
    /// The query, checked ([`Query::validate`]): an unknown table, a
    /// malformed tick set or an option no table uses fails here, before any
    /// demo is parsed.
    fn query(&self) -> Result<Query, Failure> {
        let build = || -> Result<Query, QueryError> {
            let mut tables = Vec::with_capacity(self.tables.len());
            for name in &self.tables {
                let kind: TableKind = name.parse()?;
                if !tables.contains(&kind) {
                    tables.push(kind);
                }
            }
            let ticks = match &self.ticks {
                None => None,
                Some(TicksSpec::Text(text)) => Some(TickSet::parse(text)?),
                Some(TicksSpec::List(list)) => Some(TickSet::from_ticks(list.clone())),
            };
            let query = Query {
                tables,
                events: self.name.clone(),
                player_props: self.props.clone(),
                other_props: self.other.clone(),
                ticks,
                players: self.players.clone(),
                humans_only: self.humans_only,
                grenade_props: self.grenade_props.clone(),
                ..Query::default()
            };
            query.validate()?;
            Ok(query)
        };
        build().map_err(|e| Failure::of_query(&e))
    }
}

/// Send tables built in this process, shared by every `Demo` (a script that
/// loops over demos of one game build builds them once; bounded to a few
/// builds).
fn send_table_cache() -> Arc<SendTableCache> {
    static CACHE: OnceLock<Arc<SendTableCache>> = OnceLock::new();
    Arc::clone(CACHE.get_or_init(|| Arc::new(SendTableCache::default())))
}

/// How the Python package runs queries: send tables shared by every demo
/// of the process, and a demo cut short keeps everything before the cut
/// (the cut comes back beside the tables).
fn run_options() -> RunOptions {
    RunOptions {
        send_table_cache: Some(send_table_cache()),
        keep_cut: true,
        ..RunOptions::default()
    }
}

/// The message of a demo cut short, given to Python's `DemoTruncatedWarning`
/// (or `DemoTruncatedError` with `strict=True`).
fn cut_message(path: &Path, cut: &Cut) -> String {
    format!("{}: {cut}", path.display())
}

/// A column ready for Python: fixed-width little-endian values (nulls as 0,
/// or NaN for floats) and a null mask (one byte per row, 1 = null; `None`
/// when nothing is null), or the strings.
enum Buffer {
    Fixed {
        kind: &'static str,
        data: Vec<u8>,
        mask: Option<Vec<u8>>,
    },
    Str(Vec<Option<String>>),
    /// Float lists (vectors and angles).
    F32List(Vec<Option<Vec<f32>>>),
    /// Text lists (an inventory).
    StrList(Vec<Option<Vec<String>>>),
    /// Unsigned integer lists (item indices, steam ids).
    U64List(Vec<Option<Vec<u64>>>),
}

fn fixed<T, const N: usize>(
    kind: &'static str,
    values: Vec<Option<T>>,
    null: T,
    bytes: impl Fn(T) -> [u8; N],
) -> Buffer
where
    T: Copy,
{
    let mut data = Vec::with_capacity(values.len() * N);
    let mut mask = Vec::with_capacity(values.len());
    for v in &values {
        data.extend_from_slice(&bytes(v.unwrap_or(null)));
        mask.push(u8::from(v.is_none()));
    }
    let mask = mask.contains(&1).then_some(mask);
    Buffer::Fixed { kind, data, mask }
}

/// A column without any value has no type of its own (the query crate
/// types it as text): it takes the type the table's reference declares for
/// it ([`reference::spec`]), and a steam id or tick column not in the
/// reference (an event's player columns, a prop) keeps its own type, so that
/// a column's type never depends on the rows (an empty `ticks` table, the
/// player columns of an event no row has).
fn typed_when_empty(table: Option<&TableSpec>, name: &str, column: Column) -> Column {
    if !column.is_all_null() {
        return column;
    }
    let declared = table.and_then(|t| t.column(name)).map(|c| c.kind);
    let kind = match declared {
        Some(kind) => kind,
        None if name == "steamid" || name.ends_with("_steamid") => Kind::U64,
        None if name == "tick" || name.ends_with("_tick") => Kind::I64,
        None => return column,
    };
    if column.kind() == kind {
        return column;
    }
    let mut typed = Column::new(kind);
    typed.push_nulls(column.len());
    typed
}

fn buffer(table: Option<&TableSpec>, name: &str, column: Column) -> Buffer {
    match typed_when_empty(table, name, column) {
        Column::Bool(v) => fixed("bool", v, false, |b| [u8::from(b)]),
        Column::I64(v) => fixed("i64", v, 0, i64::to_le_bytes),
        Column::U64(v) => fixed("u64", v, 0, u64::to_le_bytes),
        Column::F32(v) => fixed("f32", v, f32::NAN, f32::to_le_bytes),
        Column::Str(v) => Buffer::Str(v),
        Column::F32List(v) => Buffer::F32List(v),
        Column::StrList(v) => Buffer::StrList(v),
        Column::U64List(v) => Buffer::U64List(v),
    }
}

type Buffers = Vec<(String, Vec<(String, Buffer)>)>;

fn buffers(tables: Vec<Table>) -> Buffers {
    tables
        .into_iter()
        .map(|t| {
            let spec = reference::spec(&t.name);
            let cols = t
                .columns
                .into_iter()
                .map(|(name, col)| {
                    let buf = buffer(spec, &name, col);
                    (name, buf)
                })
                .collect();
            (t.name, cols)
        })
        .collect()
}

/// A column whose values travel as a Python list: `(column, kind, values,
/// None)`.
fn listed<'py>(
    py: Python<'py>,
    col: String,
    kind: &str,
    values: Bound<'py, PyList>,
) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(
        py,
        [
            col.into_pyobject(py)?.into_any(),
            kind.into_pyobject(py)?.into_any(),
            values.into_any(),
            py.None().into_bound(py),
        ],
    )
}

/// `[(table name, [(column, kind, data, mask), ...]), ...]`.
fn to_python<'py>(py: Python<'py>, tables: Buffers) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for (name, cols) in tables {
        out.append((name, columns_to_python(py, cols)?))?;
    }
    Ok(out)
}

/// `[(column, kind, data, mask), ...]`: one table's columns.
fn columns_to_python<'py>(
    py: Python<'py>,
    cols: Vec<(String, Buffer)>,
) -> PyResult<Bound<'py, PyList>> {
    let pycols = PyList::empty(py);
    for (col, buf) in cols {
        let item = match buf {
            Buffer::Fixed { kind, data, mask } => {
                let mask = mask.map(|m| PyBytes::new(py, &m));
                PyTuple::new(
                    py,
                    [
                        col.into_pyobject(py)?.into_any(),
                        kind.into_pyobject(py)?.into_any(),
                        PyBytes::new(py, &data).into_any(),
                        mask.into_pyobject(py)?.into_any(),
                    ],
                )?
            }
            Buffer::Str(values) => listed(py, col, "str", PyList::new(py, values)?)?,
            Buffer::F32List(values) => listed(py, col, "f32list", PyList::new(py, values)?)?,
            Buffer::StrList(values) => listed(py, col, "strlist", PyList::new(py, values)?)?,
            Buffer::U64List(values) => listed(py, col, "u64list", PyList::new(py, values)?)?,
        };
        pycols.append(item)?;
    }
    Ok(pycols)
}

/// The visitor of `event_names`: game events only, no entities.
#[derive(Default)]
struct EventNames(BTreeSet<String>);

impl Visitor for EventNames {
    fn interests(&self) -> Interests {
        Interests {
            game_events: true,
            ..Interests::NONE
        }
    }
    fn on_game_event(&mut self, _state: &DemoState, event: &GameEvent) {
        if !self.0.contains(&event.name) {
            self.0.insert(event.name.clone());
        }
    }
}

/// The visitor of `header`: the container and its messages only.
struct HeaderOnly;

impl Visitor for HeaderOnly {
    fn interests(&self) -> Interests {
        Interests::NONE
    }
}

/// A header value.
enum HeaderValue {
    Str(Option<String>),
    Int(Option<i64>),
    Float(Option<f64>),
    Bool(bool),
}

/// The scalar fields of `gamewire info --format json`, from the same state
/// fields, plus `tick_rate` (1 / `tick_interval`).
fn header_fields(state: &DemoState) -> Vec<(&'static str, HeaderValue)> {
    use HeaderValue::*;
    let h = state.header.as_ref();
    let fi = state.file_info.as_ref();
    // The f32 interval as its shortest decimal (0.015625, 0.033333335), not
    // its binary expansion in f64.
    let tick_interval: f64 = state
        .tick_interval
        .to_string()
        .parse()
        .unwrap_or(f64::from(state.tick_interval));
    vec![
        ("map_name", Str(state.map_name().map(str::to_string))),
        ("server_name", Str(h.and_then(|h| h.server_name.clone()))),
        ("client_name", Str(h.and_then(|h| h.client_name.clone()))),
        (
            "game_directory",
            Str(h.and_then(|h| h.game_directory.clone())),
        ),
        ("build_num", Int(h.and_then(|h| h.build_num).map(i64::from))),
        (
            "network_protocol",
            Int(h
                .and_then(|h| h.patch_version)
                .or_else(|| state.server_info.as_ref().and_then(|s| s.protocol))
                .map(i64::from)),
        ),
        (
            "demo_version_name",
            Str(h.and_then(|h| h.demo_version_name.clone())),
        ),
        (
            "playback_ticks",
            Int(fi.and_then(|f| f.playback_ticks).map(i64::from)),
        ),
        (
            "playback_frames",
            Int(fi.and_then(|f| f.playback_frames).map(i64::from)),
        ),
        (
            "playback_time",
            Float(fi.and_then(|f| f.playback_time).map(f64::from)),
        ),
        ("tick_interval", Float(Some(tick_interval))),
        (
            "tick_rate",
            // Rounded to 1/1000: 64 for CS2, 30 for Dota 2 (whose f32
            // interval is not exactly 1/30).
            Float((tick_interval > 0.0).then(|| (1.0 / tick_interval * 1e3).round() / 1e3)),
        ),
        ("frames", Int(i64::try_from(state.frames).ok())),
        ("last_tick", Int(Some(i64::from(state.tick)))),
        ("reached_stop", Bool(state.reached_stop)),
    ]
}

/// A demo file held in memory; the native half of `gamewire.Demo`.
#[pyclass(frozen, module = "gamewire._gamewire")]
struct NativeDemo {
    /// The bytes, the path given, and the cut of a broadcast directory
    /// whose fragments stop at a cut one, or of a compressed file whose
    /// stream is cut (the bytes are the demo before it).
    input: DemoInput,
}

impl NativeDemo {
    /// Parses with a visitor, the GIL released. A cut (a truncated file, a
    /// cut broadcast fragment) comes back as its message; the visitor and
    /// state hold everything before it.
    fn parse<V: Visitor + Send>(
        &self,
        py: Python<'_>,
        mut visitor: V,
    ) -> PyResult<(V, DemoState, Option<String>)> {
        let data = self.input.bytes.as_slice();
        let v = &mut visitor;
        let result = py.detach(move || RunOptions::default().parse_keeping_cut(data, v));
        let (state, cut) = result.map_err(|e| demo_error(&self.input.name, &e))?;
        let cut = Cut::of(self.input.cut.clone(), cut);
        Ok((
            visitor,
            state,
            cut.map(|c| cut_message(&self.input.name, &c)),
        ))
    }

    /// Runs an edit into `out`, the GIL released: the report as a dict
    /// (`frames_read`, `frames_written`, `first_tick`, `last_tick`,
    /// `messages_copied`, `warnings`, and a cut's `from_tick` and `to_tick`)
    /// and the cut of a demo cut short (`out` holds everything before it).
    fn edit<'py>(
        &self,
        py: Python<'py>,
        out: &Path,
        edit: &Edit,
    ) -> PyResult<(Bound<'py, PyDict>, Option<String>)> {
        let input = &self.input;
        let result = py.detach(|| edit::edit_input(input, out, edit));
        let edited = result.map_err(|e| demo_error(&self.input.name, &e))?;
        let r = &edited.report;
        let dict = PyDict::new(py);
        dict.set_item("frames_read", r.frames_read)?;
        dict.set_item("frames_written", r.frames_written)?;
        dict.set_item("first_tick", r.first_tick)?;
        dict.set_item("last_tick", r.last_tick)?;
        dict.set_item("messages_copied", r.messages_copied)?;
        let warnings: Vec<String> = edited
            .warnings()
            .map(|w| format!("tick {}: {}", w.tick, w.message))
            .collect();
        dict.set_item("warnings", warnings)?;
        if let Some(range) = edited.range {
            dict.set_item("from_tick", range.from)?;
            dict.set_item("to_tick", range.to)?;
        }
        let cut = edited.cut.map(|c| cut_message(&self.input.name, &c));
        Ok((dict, cut))
    }

    /// A demo read from its path, once its bytes are checked to start a
    /// Source 2 demo.
    fn checked(input: DemoInput) -> PyResult<Self> {
        if let Err(e) = RunOptions::default().check(&input.bytes) {
            return Err(demo_error(&input.name, &e));
        }
        Ok(NativeDemo { input })
    }
}

#[pymethods]
impl NativeDemo {
    /// Reads the file or broadcast directory (released GIL) and checks that
    /// it is a Source 2 demo.
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        // A `.dem` file, or a broadcast directory (sync.json + fragments).
        let read = py.detach(|| input::open(&path));
        let input = read.map_err(|e| Failure::of(&path, &e.into()))?;
        NativeDemo::checked(input)
    }

    /// A demo already in memory (compressed too), named `name` in messages;
    /// the bytes are copied.
    #[staticmethod]
    fn from_bytes(
        py: Python<'_>,
        data: pyo3::pybacked::PyBackedBytes,
        name: PathBuf,
    ) -> PyResult<Self> {
        let bytes = data.to_vec();
        let unpacked = py.detach(|| input::from_bytes(name.clone(), bytes));
        let input = unpacked.map_err(|e| demo_error(&name, &e.into()))?;
        NativeDemo::checked(input)
    }

    /// The path given.
    #[getter]
    fn path(&self) -> PathBuf {
        self.input.name.clone()
    }

    /// The file's size in bytes.
    #[getter]
    fn size(&self) -> usize {
        self.input.bytes.len()
    }

    /// The header and file info as a dict, and the cut of a demo cut short.
    fn header<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyDict>, Option<String>)> {
        let (_, state, cut) = self.parse(py, HeaderOnly)?;
        let dict = PyDict::new(py);
        for (key, value) in header_fields(&state) {
            match value {
                HeaderValue::Str(v) => dict.set_item(key, v)?,
                HeaderValue::Int(v) => dict.set_item(key, v)?,
                HeaderValue::Float(v) => dict.set_item(key, v)?,
                HeaderValue::Bool(v) => dict.set_item(key, v)?,
            }
        }
        Ok((dict, cut))
    }

    /// The names of the game events that occur in the demo, sorted, and the
    /// cut of a demo cut short.
    fn event_names(&self, py: Python<'_>) -> PyResult<(Vec<String>, Option<String>)> {
        let (names, _, cut) = self.parse(py, EventNames::default())?;
        Ok((names.0.into_iter().collect(), cut))
    }

    /// The props the demo offers (`gamewire props`): the columns of the
    /// `props` table (`name`, `source`, `class`, `path`, `type`), of one
    /// class with `cls`. Parses only up to the send tables, the GIL
    /// released.
    #[pyo3(signature = (cls=None))]
    fn props<'py>(&self, py: Python<'py>, cls: Option<String>) -> PyResult<Bound<'py, PyList>> {
        let data = self.input.bytes.as_slice();
        let listed = py.detach(|| props::list_demo(data, cls.as_deref()));
        let table = listed.map_err(|e| demo_error(&self.input.name, &e))?;
        let spec = reference::spec(&table.name);
        let columns = table
            .columns
            .into_iter()
            .map(|(name, col)| {
                let buf = buffer(spec, &name, col);
                (name, buf)
            })
            .collect();
        columns_to_python(py, columns)
    }

    /// Runs queries in one pass: per query, a list of `(table, columns)`;
    /// and the cut of a demo cut short (the tables hold everything before it).
    fn run<'py>(
        &self,
        py: Python<'py>,
        queries: Vec<QuerySpec>,
    ) -> PyResult<(Bound<'py, PyList>, Option<String>)> {
        let mut built = Vec::with_capacity(queries.len());
        for q in &queries {
            built.push(q.query()?);
        }
        let input = &self.input;
        let result = py.detach(move || {
            run_options().run_queries_on(&built, input).map(|parsed| {
                let per_query = parsed.tables.into_iter().map(buffers).collect::<Vec<_>>();
                (per_query, parsed.cut)
            })
        });
        let (per_query, cut) = result.map_err(|e| demo_error(&self.input.name, &e))?;
        let out = PyList::empty(py);
        for tables in per_query {
            out.append(to_python(py, tables)?)?;
        }
        Ok((out, cut.map(|c| cut_message(&self.input.name, &c))))
    }

    /// Writes the demo again from its decoded model into the file `out`
    /// (`gamewire rewrite`): the report and the cut of a demo cut short.
    fn rewrite<'py>(
        &self,
        py: Python<'py>,
        out: PathBuf,
    ) -> PyResult<(Bound<'py, PyDict>, Option<String>)> {
        self.edit(py, &out, &Edit::Rewrite)
    }

    /// Writes the ticks `from_tick..=to_tick`, or CS2 round `round`, as a
    /// demo of their own into the file `out` (`gamewire cut`).
    #[pyo3(signature = (out, from_tick=None, to_tick=None, round=None))]
    fn cut<'py>(
        &self,
        py: Python<'py>,
        out: PathBuf,
        from_tick: Option<i32>,
        to_tick: Option<i32>,
        round: Option<u32>,
    ) -> PyResult<(Bound<'py, PyDict>, Option<String>)> {
        let range = match (from_tick, to_tick, round) {
            (Some(from), Some(to), None) => CutRange::Ticks(TickRange { from, to }),
            (None, None, Some(n)) => CutRange::Round(n),
            _ => {
                return Err(bad_argument(
                    "Demo.cut: give from_tick and to_tick, or round".to_string(),
                ))
            }
        };
        self.edit(py, &out, &Edit::Cut(range))
    }

    /// Writes the demo with every player's name and ids replaced by keyed
    /// pseudonyms into the file `out` (`gamewire anonymize`); without `key`,
    /// a random key for this call.
    #[pyo3(signature = (out, key=None, keep_chat=false))]
    fn anonymize<'py>(
        &self,
        py: Python<'py>,
        out: PathBuf,
        key: Option<String>,
        keep_chat: bool,
    ) -> PyResult<(Bound<'py, PyDict>, Option<String>)> {
        let options = match &key {
            Some(k) => AnonymizeOptions::from_passphrase(k),
            None => AnonymizeOptions::random()
                .map_err(|e| PyOSError::new_err(format!("cannot draw a random key: {e}")))?,
        };
        let options = AnonymizeOptions {
            keep_chat,
            ..options
        };
        self.edit(py, &out, &Edit::Anonymize(options))
    }

    fn __repr__(&self) -> String {
        format!(
            "NativeDemo({:?}, {} bytes)",
            self.input.name.display().to_string(),
            self.input.bytes.len()
        )
    }
}

/// Runs one query over many demos (directories searched recursively for
/// `.dem` files and broadcast directories, as `gamewire batch` does) on
/// `jobs` worker threads (default: one per core), the GIL released, and
/// appends every demo's rows into one table
/// per name, a first column `demo` naming the demo as `gamewire batch` does
/// ([`input::dataset_names`]; the columns are the union over the demos, see
/// [`Table::append`]). Returns `(tables, failures)`: `[(table, columns)]` and,
/// in the order given, `[(path, kind, message)]` for the demos that failed,
/// `kind` the tag of a [`Failure`] (`"missing"`, `"read"`, `"not_a_demo"`,
/// `"corrupt"`, `"unknown_name"`, `"usage"`, `"truncated"`) with the CLI's
/// message, and for the demos cut short, `kind` `"cut"` (their rows before
/// the cut are in the tables; with `strict`, a cut demo fails as
/// `"truncated"` instead). Send tables and event descriptors are shared
/// between the demos (see `SendTableCache`).
#[pyfunction]
#[pyo3(signature = (paths, query, jobs=None, strict=false))]
fn run_many<'py>(
    py: Python<'py>,
    paths: Vec<PathBuf>,
    query: QuerySpec,
    jobs: Option<usize>,
    strict: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    use rayon::prelude::*;
    // Directories stand for the demos found in them, as in the CLI.
    let paths = input::find_demos(&paths).map_err(|e| Failure::of(Path::new(""), &e.into()))?;
    let names = input::dataset_names(&paths);
    let built = query.query()?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .map_err(|e| PyOSError::new_err(format!("cannot start worker threads: {e}")))?;
    // A demo's tables and the cut of a demo cut short.
    type Parsed = (Vec<Table>, Option<Failure>);
    let built = built.with_options(run_options());
    let parse = |path: &PathBuf, name: &String| -> Result<Parsed, Failure> {
        let failure = |e: QueryError| Failure::of(path, &e);
        let demo = input::open(path).map_err(|e| failure(e.into()))?;
        let parsed = built.run_input(&demo).map_err(failure)?;
        let mut tables = parsed.tables;
        for t in &mut tables {
            t.prepend_constant("demo", name);
        }
        let cut = parsed.cut.map(|c| cut_message(path, &c));
        match cut {
            // With `strict`, a cut demo fails: none of its rows are kept.
            Some(message) if strict => Err(Failure::Truncated(message)),
            cut => Ok((tables, cut.map(Failure::Cut))),
        }
    };
    let (merged, failures) = py.detach(|| {
        let results: Vec<_> = pool.install(|| {
            paths
                .par_iter()
                .zip(&names)
                .map(|(p, n)| parse(p, n))
                .collect()
        });
        let mut merged: Vec<Table> = Vec::new();
        let mut failures = Vec::new();
        for (path, result) in paths.iter().zip(results) {
            match result {
                Ok((tables, cut)) => {
                    if let Some(cut) = cut {
                        failures.push((path.clone(), cut));
                    }
                    for t in tables {
                        match merged.iter_mut().find(|m| m.name == t.name) {
                            Some(m) => m.append(t),
                            None => merged.push(t),
                        }
                    }
                }
                Err(failure) => failures.push((path.clone(), failure)),
            }
        }
        (buffers(merged), failures)
    });
    let failed = PyList::empty(py);
    for (path, failure) in failures {
        failed.append((path, failure.tag(), failure.into_message()))?;
    }
    PyTuple::new(py, [to_python(py, merged)?.into_any(), failed.into_any()])
}

/// The fixed columns of a table as the reference declares them (see
/// `docs/tables.md`): `[(column, type)]`, the type as the reference names
/// it (`int64`, `uint64`, `float32`, `bool`, `string`, `list<float32>`,
/// ...). The columns a table adds by rule (props, event keys) are not in
/// it. An unknown table raises `UnknownNameError`.
#[pyfunction]
fn schema(table: &str) -> PyResult<Vec<(&'static str, &'static str)>> {
    let kind: TableKind = table.parse().map_err(|e| Failure::of_query(&e))?;
    let spec = reference::spec(kind.name()).ok_or_else(|| {
        UnknownNameError::new_err(format!("the table {table:?} has no reference"))
    })?;
    Ok(spec
        .columns
        .iter()
        .map(|c| (c.name, reference::kind_name(c.kind)))
        .collect())
}

/// The native module.
#[pymodule]
fn _gamewire(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    let py = m.py();
    m.add("DemoError", py.get_type::<DemoError>())?;
    m.add("NotADemoError", py.get_type::<NotADemoError>())?;
    m.add("DemoTruncatedError", py.get_type::<DemoTruncatedError>())?;
    m.add("UnknownNameError", py.get_type::<UnknownNameError>())?;
    m.add("BadArgumentError", bad_argument_type(py)?)?;
    let tables: Vec<&str> = TableKind::ALL.iter().map(|k| k.name()).collect();
    m.add("TABLES", PyTuple::new(py, tables)?)?;
    m.add_class::<NativeDemo>()?;
    m.add_class::<follow::NativeFollow>()?;
    m.add_function(wrap_pyfunction!(run_many, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(teeworlds::read_teeworlds, m)?)?;
    synth::register(m)?;
    Ok(())
}
