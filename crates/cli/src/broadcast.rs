//! `gamewire broadcast IN OUTDIR [--fragment-seconds S]`: a Source 2 demo
//! written as the folder of an HTTP broadcast (CSTV+ and the Deadlock and
//! Dota 2 relays serve these files): `sync.json`, `0/start.bin`, then
//! `<n>/full.bin` and `<n>/delta.bin` for each fragment of S seconds
//! (`gamewire_source2::edit::broadcast` says what each holds). Every
//! command that reads a demo reads the folder back.
//!
//! The folder is written atomically: every file goes into a hidden
//! temporary folder beside OUTDIR, renamed to OUTDIR when complete. An
//! OUTDIR that exists must be an empty folder (it is replaced).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use gamewire_source2::edit::broadcast::{broadcast as write_fragments, DEFAULT_FRAGMENT_SECONDS};

use crate::error::CliError;
use crate::read::warn_cut;

/// `gamewire broadcast`.
#[derive(Debug, Args)]
pub struct BroadcastArgs {
    /// The demo (`.dem`, also `.dem.gz`, `.dem.bz2`, `.dem.zst`; a broadcast
    /// directory; `-` for standard input).
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// The broadcast folder to write (must not exist, or be empty; written
    /// to a temporary folder beside it first).
    #[arg(value_name = "OUTDIR")]
    pub output: PathBuf,
    /// Seconds of the demo per fragment (CSTV+ uses 3).
    #[arg(long, value_name = "S", default_value_t = DEFAULT_FRAGMENT_SECONDS)]
    pub fragment_seconds: f64,
}

/// `gamewire broadcast`.
pub fn broadcast(args: BroadcastArgs) -> Result<(), CliError> {
    if !(args.fragment_seconds.is_finite() && args.fragment_seconds > 0.0) {
        return Err(CliError::UsageText(format!(
            "--fragment-seconds {}: give a positive number of seconds",
            args.fragment_seconds
        )));
    }
    check_output(&args.output)?;
    let input = gamewire_query::input::open(&args.input).map_err(|e| CliError::Input {
        path: args.input.clone(),
        source: Box::new(e),
    })?;
    if let Some(cut) = &input.cut {
        warn_cut(&format!(
            "{}: the input ends early: {cut}; the broadcast holds what came before",
            args.input.display()
        ));
    }
    let written = write_fragments(input.bytes.as_slice(), args.fragment_seconds).map_err(|e| {
        CliError::Demo {
            path: args.input.clone(),
            source: Box::new(e),
        }
    })?;
    if let Some(cut) = &written.report.cut {
        warn_cut(&format!(
            "{}: the demo ends early: {cut}; the broadcast holds what came before",
            args.input.display()
        ));
    }
    let sync = written.sync.to_json();
    let mut files: Vec<(String, &[u8])> = Vec::with_capacity(1 + written.fragments.len());
    files.push(("sync.json".into(), sync.as_bytes()));
    files.extend(
        written
            .fragments
            .iter()
            .map(|f| (f.name.clone(), f.data.as_slice())),
    );
    write_folder(&args.output, &files)?;
    let bytes: usize = files.iter().map(|(_, d)| d.len()).sum();
    eprintln!(
        "broadcast: {} fragments of {} s (ticks {}..{}, {} ticks/s), {} files, {} bytes, in {}",
        written.fragment_count(),
        args.fragment_seconds,
        written.sync.tick,
        written.sync.maxtick,
        written.sync.tps,
        files.len(),
        bytes,
        args.output.display()
    );
    Ok(())
}

/// OUTDIR may not exist yet, or be an empty folder.
fn check_output(out: &Path) -> Result<(), CliError> {
    match std::fs::read_dir(out) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(CliError::UsageText(format!(
                    "{} exists and is not empty: give a new folder",
                    out.display()
                )));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(_) if out.exists() => Err(CliError::UsageText(format!(
            "{} exists and is not a folder",
            out.display()
        ))),
        Err(source) => Err(CliError::Create {
            path: out.to_path_buf(),
            source,
        }),
    }
}

/// Writes `files` (paths relative to the folder) into a temporary folder
/// beside `out`, then renames it to `out`. On an error the temporary
/// folder is removed.
fn write_folder(out: &Path, files: &[(String, &[u8])]) -> Result<(), CliError> {
    let temp =
        gamewire_query::edit::temporary_folder_beside(out).map_err(|source| CliError::Create {
            path: out.to_path_buf(),
            source,
        })?;
    for (name, data) in files {
        let path = temp.path().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| CliError::Create {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        let create = |source| CliError::Create {
            path: path.clone(),
            source,
        };
        let mut file = std::fs::File::create(&path).map_err(create)?;
        file.write_all(data).map_err(create)?;
        file.sync_all().map_err(create)?;
    }
    // An empty OUTDIR is replaced (rename does not replace a folder on
    // every system).
    match std::fs::remove_dir(out) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => {
            return Err(CliError::Create {
                path: out.to_path_buf(),
                source,
            })
        }
    }
    std::fs::rename(temp.path(), out).map_err(|source| CliError::Create {
        path: out.to_path_buf(),
        source,
    })?;
    // Renamed: nothing is left to remove.
    let _ = temp.keep();
    Ok(())
}
