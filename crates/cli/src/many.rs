//! Several demos in one command: finding them, running them on worker
//! threads, and handing their results back in input order.
//!
//! `table`, `ticks`, `events` and `batch` take demo files and directories. A
//! directory is searched recursively for `.dem` files and broadcast
//! directories (a `sync.json` and its fragments: one demo each). The demos
//! are parsed in parallel, but `ticks` and `events` write to standard output
//! in the order the demos were found, so [`in_order`] keeps the results of
//! demos that finished early until their turn, and holds a worker back when
//! it gets too far ahead: at most a few demos' results wait in memory.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::sync::{mpsc, Condvar, Mutex};

use gamewire_query::input;
use gamewire_query::SendTableCache;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::error::CliError;

/// The demos that `inputs` name ([`input::find_demos`]).
pub(crate) fn find_demos(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    input::find_demos(inputs).map_err(|e| CliError::from(gamewire_query::QueryError::from(e)))
}

/// True when `inputs` can stand for more than one demo: several paths, or a
/// directory to search. Row outputs then name each row's demo (as `grep`
/// names the file of each line when given several files or a directory).
pub(crate) fn names_several(inputs: &[PathBuf]) -> bool {
    input::names_several(inputs)
}

/// The worker count: `jobs`, or the number of cores; never more than the
/// number of demos.
pub(crate) fn worker_count(jobs: Option<usize>, demos: usize) -> usize {
    // The core count is looked up only when needed: it reads the cgroup
    // files under /proc, a measurable part of a short run.
    let cores = || std::thread::available_parallelism().map_or(1, |n| n.get());
    jobs.filter(|&j| j > 0)
        .unwrap_or_else(|| if demos > 1 { cores() } else { 1 })
        .clamp(1, demos.max(1))
}

/// A progress bar over `count` demos on standard error, hidden when standard
/// error is not a terminal.
pub(crate) fn demo_progress(count: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(count as u64), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} demos {elapsed_precise} eta {eta} {msg}")
    {
        bar.set_style(style);
    }
    bar
}

/// Reports a line on standard error, above the progress bar when one is
/// drawn.
pub(crate) fn report(bar: &ProgressBar, line: String) {
    if bar.is_hidden() {
        eprintln!("{line}");
    } else {
        bar.println(line);
    }
}

/// How many demos of a [`each_demo`] run failed.
pub(crate) struct Failures {
    failed: usize,
    total: usize,
    /// Whether every failure was bad usage (exit status 2).
    usage: bool,
}

impl Failures {
    /// An error when every demo failed.
    pub(crate) fn every(&self) -> Result<(), CliError> {
        if self.failed == self.total {
            return Err(CliError::EveryDemoFailed {
                failed: self.failed,
                usage: self.usage,
            });
        }
        Ok(())
    }

    /// An error when any demo failed.
    pub(crate) fn any(&self) -> Result<(), CliError> {
        if self.failed > 0 {
            return Err(CliError::SomeDemosFailed {
                failed: self.failed,
                total: self.total,
            });
        }
        Ok(())
    }
}

/// The summary line's figures of a batch over demos: each demo's result
/// (`Ok(true)` when it was cut short), the bytes counted, the time since
/// `start`, and the demos skipped because their output was complete.
pub(crate) struct Tally {
    /// Demos that went through (cut short ones included).
    pub ok: usize,
    /// Demos cut short.
    pub cut: usize,
    /// Demos that failed.
    pub failed: usize,
    /// Megabytes counted.
    pub mb: f64,
    /// Seconds since the start.
    pub secs: f64,
    /// `, N already written` when demos were skipped, else empty.
    pub resumed: String,
}

impl Tally {
    pub(crate) fn of<E>(
        results: &[Result<bool, E>],
        bytes: u64,
        start: std::time::Instant,
        skipped: usize,
    ) -> Tally {
        let ok = results.iter().filter(|r| r.is_ok()).count();
        Tally {
            ok,
            cut: results.iter().filter(|r| matches!(r, Ok(true))).count(),
            failed: results.len() - ok,
            mb: bytes as f64 / 1e6,
            secs: start.elapsed().as_secs_f64(),
            resumed: if skipped > 0 {
                format!(", {skipped} already written")
            } else {
                String::new()
            },
        }
    }

    /// Megabytes per second.
    pub(crate) fn rate(&self) -> f64 {
        if self.secs > 0.0 {
            self.mb / self.secs
        } else {
            0.0
        }
    }
}

/// Runs `work(path, dataset name, shared send tables)` on every demo that
/// `inputs` name ([`find_demos`], names from
/// [`input::dataset_names`]) on `jobs` worker threads (default: one
/// per core), with a progress bar, and hands each success to `sink` in input
/// order ([`in_order`]). A failed demo is reported (`error: ...`) and
/// counted; the cut a success carries is reported as a warning.
pub(crate) fn each_demo<T: Send>(
    inputs: &[PathBuf],
    jobs: Option<usize>,
    work: impl Fn(&Path, &str, &Arc<SendTableCache>) -> Result<(T, Option<String>), CliError> + Sync,
    mut sink: impl FnMut(T) -> Result<(), CliError>,
) -> Result<Failures, CliError> {
    let demos = find_demos(inputs)?;
    if demos.is_empty() {
        return Err(CliError::NoDemos);
    }
    let names = input::dataset_names(&demos);
    let jobs = worker_count(jobs, demos.len());
    let cache = Arc::new(SendTableCache::default());
    let bar = demo_progress(demos.len());
    let mut failed = 0usize;
    let mut usage = true;
    in_order(
        demos.len(),
        jobs,
        |i| work(&demos[i], &names[i], &cache),
        |result| {
            bar.inc(1);
            match result {
                Ok((value, cut)) => {
                    sink(value)?;
                    if let Some(cut) = cut {
                        crate::read::note_cut();
                        report(&bar, format!("warning: {cut}"));
                    }
                }
                Err(e) if e.is_broken_pipe() => return Err(e),
                Err(e) => {
                    failed += 1;
                    usage &= e.exit_code() == 2;
                    report(&bar, format!("error: {e}"));
                }
            }
            Ok(())
        },
    )?;
    bar.finish_and_clear();
    Ok(Failures {
        failed,
        total: demos.len(),
        usage,
    })
}

/// Runs `work(0..count)` on `jobs` threads and passes each result to `sink`
/// in index order, on the calling thread. At most `2 * jobs` results are
/// computed ahead of the one `sink` waits for: a worker does not start a
/// demo further ahead than that. An error from `sink` (standard output
/// closed, say) stops the workers and is returned.
pub(crate) fn in_order<T: Send>(
    count: usize,
    jobs: usize,
    work: impl Fn(usize) -> T + Sync,
    mut sink: impl FnMut(T) -> Result<(), CliError>,
) -> Result<(), CliError> {
    if jobs <= 1 || count <= 1 {
        for i in 0..count {
            sink(work(i))?;
        }
        return Ok(());
    }
    let window = 2 * jobs;
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // The index `sink` waits for, guarded for the workers that wait on it.
    let written = Mutex::new(0usize);
    let advanced = Condvar::new();
    let (tx, rx) = mpsc::channel::<(usize, T)>();
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, stop, written, advanced, work) = (&next, &stop, &written, &advanced, &work);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count || stop.load(Ordering::Relaxed) {
                    break;
                }
                {
                    // The demo `sink` waits for always passes (i == written
                    // < written + window), so this wait cannot deadlock.
                    let mut w = written.lock().unwrap_or_else(|p| p.into_inner());
                    while i >= *w + window && !stop.load(Ordering::Relaxed) {
                        w = advanced.wait(w).unwrap_or_else(|p| p.into_inner());
                    }
                }
                if stop.load(Ordering::Relaxed) || tx.send((i, work(i))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        let mut waiting: BTreeMap<usize, T> = BTreeMap::new();
        let mut want = 0usize;
        let mut result = Ok(());
        for (i, value) in rx.iter() {
            waiting.insert(i, value);
            while let Some(value) = waiting.remove(&want) {
                want += 1;
                result = sink(value);
                if result.is_err() {
                    break;
                }
            }
            if result.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
            *written.lock().unwrap_or_else(|p| p.into_inner()) = want;
            advanced.notify_all();
            if result.is_err() {
                break;
            }
        }
        // Dropping the receiver makes a worker's next send fail: they end.
        drop(rx);
        result
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn results_come_in_input_order_whatever_the_finishing_order() {
        for jobs in [1, 2, 3, 8] {
            let mut seen = Vec::new();
            in_order(
                40,
                jobs,
                |i| {
                    // Later demos finish first.
                    std::thread::sleep(std::time::Duration::from_micros(((40 - i) * 50) as u64));
                    i * 10
                },
                |v| {
                    seen.push(v);
                    Ok(())
                },
            )
            .unwrap();
            assert_eq!(
                seen,
                (0..40).map(|i| i * 10).collect::<Vec<_>>(),
                "jobs {jobs}"
            );
        }
    }

    #[test]
    fn workers_stay_within_the_window_and_stop_on_a_sink_error() {
        let jobs = 3;
        let started = AtomicUsize::new(0);
        let mut delivered = 0usize;
        let max_ahead = Mutex::new(0usize);
        let result = in_order(
            1000,
            jobs,
            |i| {
                started.fetch_add(1, Ordering::SeqCst);
                i
            },
            |i| {
                delivered += 1;
                let ahead = started.load(Ordering::SeqCst) - delivered;
                let mut m = max_ahead.lock().unwrap();
                *m = (*m).max(ahead);
                if i == 10 {
                    Err(CliError::Usage("output closed"))
                } else {
                    Ok(())
                }
            },
        );
        assert!(
            matches!(result, Err(CliError::Usage("output closed"))),
            "{result:?}"
        );
        assert_eq!(delivered, 11);
        // Started but not yet delivered: never more than the window.
        assert!(*max_ahead.lock().unwrap() <= 2 * jobs);
        assert!(
            started.load(Ordering::SeqCst) < 1000,
            "workers did not stop"
        );
    }

    #[test]
    fn worker_count_is_bounded_by_the_demos() {
        assert_eq!(worker_count(Some(8), 3), 3);
        assert_eq!(worker_count(Some(2), 10), 2);
        assert_eq!(worker_count(Some(0), 0), 1);
        assert!(worker_count(None, 100) >= 1);
    }
}
