//! `NativeFollow`: the native half of `gamewire.follow`, a query over a
//! demo read while it is written ([`gamewire_query::follow`]).
//!
//! Each [`NativeFollow::next`] reads and parses the demo, the GIL
//! released, until its time is up (`every` seconds) or the demo ends, and
//! gives the rows completed meanwhile as the column buffers `NativeDemo`
//! gives, for the Python half to turn into DataFrames; the call after the
//! end gives the rest (the tables complete only at the end) and the cut.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use gamewire_query::follow::{FollowInput, FollowOptions, Follower};
use gamewire_query::{QueryError, Table};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::{buffers, cut_message, demo_error, to_python, Failure, QuerySpec};

/// Where a follow stands.
enum Stage {
    /// Reading.
    Reading(Box<Follower<FollowInput>>),
    /// The demo has ended and its rest was given.
    Done,
}

/// A query over a demo being written; the native half of `gamewire.follow`.
#[pyclass(module = "gamewire._gamewire")]
pub(crate) struct NativeFollow {
    path: PathBuf,
    stage: Mutex<Stage>,
}

/// Tables of new rows merged per name, in the order first seen.
fn merge(into: &mut Vec<Table>, tables: Vec<Table>) {
    for t in tables {
        match into.iter_mut().find(|m| m.name == t.name) {
            Some(m) => m.append(t),
            None => into.push(t),
        }
    }
}

#[pymethods]
impl NativeFollow {
    /// Opens `path` (it must exist) for `query`; `idle_timeout`: seconds
    /// without new bytes after which the demo is taken as ended.
    #[new]
    fn new(path: PathBuf, query: QuerySpec, idle_timeout: f64) -> PyResult<Self> {
        // A demo cut short keeps its rows (the cut is a warning, or with
        // `strict` an error, in the Python half).
        let query = query.query()?.with_options(crate::run_options());
        let idle_timeout = Duration::try_from_secs_f64(idle_timeout).map_err(|_| {
            crate::bad_argument(format!(
                "follow: idle_timeout takes a number of seconds, not {idle_timeout}"
            ))
        })?;
        let options = FollowOptions {
            idle_timeout,
            ..FollowOptions::default()
        };
        let opened = FollowInput::open(&path, options)
            .map_err(QueryError::from)
            .and_then(|input| Follower::new(&query, &path, input));
        let follower = opened.map_err(|e| Failure::of(&path, &e))?;
        Ok(NativeFollow {
            path,
            stage: Mutex::new(Stage::Reading(Box::new(follower))),
        })
    }

    /// Reads for up to `every` seconds (the GIL released): the tables with
    /// rows completed meanwhile, whether the demo has ended (then the
    /// tables also hold the rest), and the cut of a demo that ended early;
    /// `None` once everything was given.
    #[allow(clippy::type_complexity)]
    fn next<'py>(
        &self,
        py: Python<'py>,
        every: f64,
    ) -> PyResult<Option<(Bound<'py, PyList>, bool, Option<String>)>> {
        let every = Duration::try_from_secs_f64(every).unwrap_or(Duration::ZERO);
        let mut stage = self
            .stage
            .lock()
            .map_err(|_| crate::bad_argument("follow: used after a failure".into()))?;
        let follower = match std::mem::replace(&mut *stage, Stage::Done) {
            Stage::Reading(f) => f,
            Stage::Done => return Ok(None),
        };
        let path = &self.path;
        let step = py.detach(move || {
            let started = Instant::now();
            let mut follower = follower;
            let mut new: Vec<Table> = Vec::new();
            loop {
                match follower.next_rows() {
                    Ok(Some(tables)) => merge(&mut new, tables),
                    Ok(None) => {
                        let (end, input) = follower.finish();
                        return end.map(|parsed| {
                            merge(&mut new, parsed.tables);
                            let cut = match input.cut() {
                                Some(c) => Some(format!("{}: {c}", path.display())),
                                None => parsed.cut.map(|c| cut_message(path, &c)),
                            };
                            (new, None, cut)
                        });
                    }
                    Err(e) => return Err(e),
                }
                if started.elapsed() >= every && !new.is_empty() {
                    return Ok((new, Some(follower), None));
                }
            }
        });
        let (tables, rest, cut) = step.map_err(|e| demo_error(path, &e))?;
        let ended = rest.is_none();
        if let Some(f) = rest {
            *stage = Stage::Reading(f);
        }
        let tables = to_python(py, buffers(tables))?;
        Ok(Some((tables, ended, cut)))
    }
}
