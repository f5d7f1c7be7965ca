//! Writing demos: `gamewire rewrite IN OUT`, `gamewire cut IN OUT
//! --from-tick A --to-tick B` (or `--round N`), `gamewire anonymize IN OUT`,
//! `gamewire loop IN OUT --times K` (or `--minutes M`), and `gamewire batch
//! --anonymize OUTDIR` over many demos.
//!
//! Each command reads IN through the input stage (compressed demos and
//! broadcast directories too), writes OUT through a temporary file renamed
//! when complete ([`gamewire_query::edit`]), and prints one line on
//! standard error: frames written and read, the ticks, how many messages
//! were copied as their original bytes, and the warnings. A demo that ends
//! early is edited up to its cut with a warning (`--strict`: exit status 1).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use clap::{ArgGroup, Args};
use gamewire_query::edit::{self, AnonymizeOptions, CutRange, Edit, Edited, LoopLength, TickRange};
use gamewire_query::input::dataset_names;
use gamewire_query::QueryError;
use rayon::prelude::*;

use crate::error::CliError;
use crate::many;
use crate::read::{note_cut, warn_cut};

/// `gamewire rewrite`.
#[derive(Debug, Args)]
pub struct RewriteArgs {
    /// The demo (`.dem`, also `.dem.gz`, `.dem.bz2`, `.dem.zst`; a broadcast
    /// directory; `-` for standard input).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The demo to write (replaced if it exists; written to a temporary
    /// file in its folder first).
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
}

/// `gamewire cut`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("range").required(true).args(["from_tick", "round"])))]
pub struct CutArgs {
    /// The demo (`.dem`, also `.dem.gz`, `.dem.bz2`, `.dem.zst`; a broadcast
    /// directory; `-` for standard input).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The demo to write (replaced if it exists; written to a temporary
    /// file in its folder first).
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// The first tick kept: OUT starts with the state at this tick.
    #[arg(
        long,
        value_name = "A",
        requires = "to_tick",
        allow_hyphen_values = true
    )]
    pub from_tick: Option<i32>,
    /// The last tick kept (inclusive).
    #[arg(
        long,
        value_name = "B",
        requires = "from_tick",
        allow_hyphen_values = true
    )]
    pub to_tick: Option<i32>,
    /// CS2: round N (1 is the first row of the `rounds` table), from its
    /// `round_start` to its `round_officially_ended`.
    #[arg(long, value_name = "N", conflicts_with_all = ["from_tick", "to_tick"])]
    pub round: Option<u32>,
}

/// `gamewire anonymize`.
#[derive(Debug, Args)]
pub struct AnonymizeArgs {
    /// The demo (`.dem`, also `.dem.gz`, `.dem.bz2`, `.dem.zst`; a broadcast
    /// directory; `-` for standard input).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The demo to write (replaced if it exists; written to a temporary
    /// file in its folder first).
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    #[command(flatten)]
    pub key: KeyArgs,
}

/// `gamewire loop`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("length").required(true).args(["times", "minutes"])))]
pub struct LoopArgs {
    /// The demo (`.dem`, also `.dem.gz`, `.dem.bz2`, `.dem.zst`; a broadcast
    /// directory; `-` for standard input).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The demo to write (replaced if it exists; written to a temporary
    /// file in its folder first).
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// Repeats of IN's ticks (at least 1).
    #[arg(long, value_name = "K", conflicts_with = "minutes")]
    pub times: Option<u32>,
    /// The fewest repeats that play at least M minutes (fractions allowed:
    /// `--minutes 0.5`).
    #[arg(long, value_name = "M")]
    pub minutes: Option<f64>,
}

/// The options of an anonymization, shared by `anonymize` and `batch
/// --anonymize`.
#[derive(Debug, Args, Default)]
pub struct KeyArgs {
    /// The key of the pseudonyms: with the same key, a player gets the same
    /// pseudonym and fake ids in every demo. Without it, a random key is
    /// drawn for the run (the pseudonyms then match no other run).
    #[arg(long, value_name = "K")]
    pub key: Option<String>,
    /// Keep the chat text (dropped by default; the senders' names are
    /// replaced either way).
    #[arg(long)]
    pub keep_chat: bool,
}

impl KeyArgs {
    /// The options: the key from `--key`, or a random one (said on
    /// standard error).
    fn options(&self) -> Result<AnonymizeOptions, CliError> {
        let options = match &self.key {
            Some(k) => AnonymizeOptions::from_passphrase(k),
            None => {
                let options =
                    AnonymizeOptions::random().map_err(|e| CliError::RandomKey(e.to_string()))?;
                eprintln!(
                    "note: no --key: a random key was drawn for this run, so these pseudonyms match no other run (give --key to keep players joinable across runs)"
                );
                options
            }
        };
        Ok(AnonymizeOptions {
            keep_chat: self.keep_chat,
            ..options
        })
    }
}

/// `gamewire rewrite`.
pub fn rewrite(args: RewriteArgs) -> Result<(), CliError> {
    run_one("rewrite", &args.input, &args.output, &Edit::Rewrite)
}

/// `gamewire cut`.
pub fn cut(args: CutArgs) -> Result<(), CliError> {
    let range = match (args.round, args.from_tick, args.to_tick) {
        (Some(n), _, _) => CutRange::Round(n),
        (None, Some(from), Some(to)) => CutRange::Ticks(TickRange { from, to }),
        _ => {
            return Err(CliError::Usage(
                "give --from-tick A and --to-tick B, or --round N",
            ))
        }
    };
    run_one("cut", &args.input, &args.output, &Edit::Cut(range))
}

/// `gamewire anonymize`.
pub fn anonymize(args: AnonymizeArgs) -> Result<(), CliError> {
    let options = args.key.options()?;
    run_one(
        "anonymize",
        &args.input,
        &args.output,
        &Edit::Anonymize(options),
    )
}

/// `gamewire loop`.
pub fn loop_demo(args: LoopArgs) -> Result<(), CliError> {
    let length = match (args.times, args.minutes) {
        (Some(k), _) => LoopLength::Times(k),
        (None, Some(m)) => LoopLength::Minutes(m),
        (None, None) => return Err(CliError::Usage("give --times K or --minutes M")),
    };
    run_one("loop", &args.input, &args.output, &Edit::Loop(length))
}

/// An edit's error in the command line's words: the output's own errors
/// name the output, the others are the input's.
fn edit_error(input: &Path, e: QueryError) -> CliError {
    match e {
        QueryError::Write { .. } | QueryError::BadOutput { .. } => CliError::Table(Box::new(e)),
        QueryError::Input(source) => CliError::Input {
            path: input.to_path_buf(),
            source: Box::new(source),
        },
        _ => CliError::Query {
            path: input.to_path_buf(),
            source: Box::new(e),
        },
    }
}

/// Runs one edit, prints its warnings, its cut and its summary line.
fn run_one(command: &str, input: &Path, output: &Path, edit: &Edit) -> Result<(), CliError> {
    let edited = if crate::read::is_sample(input) {
        let demo = crate::read::open_input(input).map_err(|e| edit_error(input, e.into()))?;
        edit::edit_input(&demo, output, edit)
    } else {
        edit::edit_path(input, output, edit)
    }
    .map_err(|e| edit_error(input, e))?;
    for w in edited.warnings() {
        eprintln!(
            "warning: {}: tick {}: {}",
            input.display(),
            w.tick,
            w.message
        );
    }
    if let Some(cut) = &edited.cut {
        warn_cut(&format!(
            "{}: {cut}; {} holds everything before the cut",
            input.display(),
            output.display()
        ));
    }
    eprintln!("{}", summary(command, output, &edited));
    Ok(())
}

/// The one line a command prints: what was written, from what.
fn summary(command: &str, output: &Path, edited: &Edited) -> String {
    let r = &edited.report;
    let read = if r.frames_read == 0 || r.last_tick < 0 {
        String::new()
    } else {
        format!(" (ticks {}..={})", r.first_tick.max(0), r.last_tick)
    };
    let kept = match (edited.range, edited.looped) {
        (Some(t), _) => format!(", ticks {}..={} kept", t.from, t.to),
        (None, Some(l)) => format!(
            ", {} repeat{} of {} ticks: ticks {}..={} ({:.1} minutes)",
            l.repeats,
            if l.repeats == 1 { "" } else { "s" },
            l.ticks_per_repeat,
            l.ticks.0,
            l.ticks.1,
            l.seconds / 60.0
        ),
        (None, None) => String::new(),
    };
    let warnings = edited.warnings().count() + usize::from(edited.cut.is_some());
    format!(
        "{command}: wrote {}: {} of {} frames read{read}{kept}, {} messages copied as their original bytes, {warnings} warning{}",
        output.display(),
        r.frames_written,
        r.frames_read,
        r.messages_copied,
        if warnings == 1 { "" } else { "s" },
    )
}

/// `gamewire batch --anonymize OUTDIR`: the options that apply.
#[derive(Debug)]
pub struct BatchAnonymize<'a> {
    /// Demo files and directories (searched recursively).
    pub inputs: &'a [PathBuf],
    /// The output directory: `<out>/<demo>.dem` per demo.
    pub out: &'a Path,
    /// The key and chat options.
    pub key: &'a KeyArgs,
    /// Replace the files of an earlier run.
    pub overwrite: bool,
    /// Skip the demos whose file exists.
    pub resume: bool,
    /// Exit 0 when some (not all) demos failed.
    pub keep_going: bool,
    /// Worker threads (`None`: one per core).
    pub jobs: Option<usize>,
}

/// The anonymized demo of a batch: `<out>/<dataset name>.dem` (a compressed
/// input is written uncompressed).
fn demo_file(out: &Path, name: &str) -> PathBuf {
    out.join(format!("{name}.dem"))
}

/// Anonymizes every demo `inputs` names into `out`, in parallel, with a
/// progress bar: one key for the whole run (so a player has one pseudonym
/// in every demo of it). `out` holding files is refused unless
/// `--overwrite` (each demo's file is replaced) or `--resume` (the demos
/// whose file exists are skipped; a file is only ever there complete).
pub fn batch_anonymize(b: BatchAnonymize<'_>) -> Result<(), CliError> {
    let demos = many::find_demos(b.inputs)?;
    if demos.is_empty() {
        return Err(CliError::NoDemos);
    }
    let non_empty = match std::fs::read_dir(b.out) {
        Ok(mut entries) => entries.next().is_some(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(source) => {
            return Err(CliError::Read {
                path: b.out.to_path_buf(),
                source,
            })
        }
    };
    if non_empty && !b.overwrite && !b.resume {
        return Err(CliError::OutNotEmpty(b.out.to_path_buf()));
    }
    let options = b.key.options()?;
    std::fs::create_dir_all(b.out).map_err(|source| CliError::Create {
        path: b.out.to_path_buf(),
        source,
    })?;
    let names = dataset_names(&demos);
    let done: Vec<bool> = names
        .iter()
        .map(|name| b.resume && demo_file(b.out, name).is_file())
        .collect();
    let skipped = done.iter().filter(|d| **d).count();
    let threads = b.jobs.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|source| CliError::Threads { threads, source })?;
    let bar = many::demo_progress(demos.len() - skipped);
    let bytes = AtomicU64::new(0);
    let start = Instant::now();
    let edit = Edit::Anonymize(options);
    // Per demo: Ok(true) when it was cut short (anonymized up to its cut),
    // Ok(false) when read to its end.
    let results: Vec<Result<bool, CliError>> = pool.install(|| {
        demos
            .par_iter()
            .zip(names.par_iter())
            .zip(done.par_iter())
            .filter(|(_, done)| !**done)
            .map(|((path, name), _)| {
                let file = demo_file(b.out, name);
                let r = edit::edit_path(path, &file, &edit).map_err(|e| edit_error(path, e));
                bar.inc(1);
                match r {
                    Ok(edited) => {
                        bytes.fetch_add(
                            std::fs::metadata(&file).map_or(0, |m| m.len()),
                            Ordering::Relaxed,
                        );
                        if let Some(cut) = &edited.cut {
                            note_cut();
                            many::report(
                                &bar,
                                format!(
                                    "warning: {}: {cut}; {} holds everything before the cut",
                                    path.display(),
                                    file.display()
                                ),
                            );
                        }
                        Ok(edited.cut.is_some())
                    }
                    Err(e) => {
                        many::report(&bar, format!("skipped {}: {e}", path.display()));
                        Err(e)
                    }
                }
            })
            .collect()
    });
    bar.finish_and_clear();
    let t = many::Tally::of(&results, bytes.load(Ordering::Relaxed), start, skipped);
    let _ = writeln!(
        std::io::stderr().lock(),
        "{} demos anonymized ({} cut short), {} failed{}; {:.1} MB written in {:.2} s; demos in {}",
        t.ok,
        t.cut,
        t.failed,
        t.resumed,
        t.mb,
        t.secs,
        b.out.display()
    );
    crate::tables::batch_outcome(&results, skipped, b.keep_going)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_names_each_demo_by_its_dataset_name() {
        let names = gamewire_query::input::dataset_names(&[
            PathBuf::from("a/m.dem.bz2"),
            PathBuf::from("b/m.dem"),
            PathBuf::from("c/x.dem"),
        ]);
        let files: Vec<PathBuf> = names.iter().map(|n| demo_file(Path::new("o"), n)).collect();
        assert_eq!(
            files,
            [
                PathBuf::from("o/m.dem"),
                PathBuf::from("o/m-2.dem"),
                PathBuf::from("o/x.dem")
            ]
        );
    }
}
