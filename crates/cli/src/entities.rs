//! `gamewire entities`: the full state of the entities at a tick
//! ([`gamewire_query::entities`]).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use gamewire_query::entities::EntitySnapshot;

use crate::error::CliError;
use crate::info::unknown_class;
use crate::output::stdout;
use crate::read::{parse_keeping_cut, read_demo};

/// `gamewire entities`.
#[derive(Debug, Args)]
pub struct EntitiesArgs {
    /// The demo: a `.dem` file (also gzip, bzip2 or zstd compressed: `.dem.gz`,
    /// `.dem.bz2`, `.dem.zst`), a broadcast directory, or `-` for standard input.
    pub demo: PathBuf,
    /// The tick at which to print the state (the end of that tick).
    #[arg(long)]
    pub tick: i32,
    /// Only entities of this class.
    #[arg(long)]
    pub class: Option<String>,
}

/// `gamewire entities`.
pub fn entities(args: EntitiesArgs) -> Result<(), CliError> {
    let data = read_demo(&args.demo)?;
    let mut snap = EntitySnapshot::new(args.tick, args.class.clone());
    let parsed = parse_keeping_cut(&args.demo, &data, &mut snap, None)?;
    let state = parsed.state;
    if let Some(cut) = &parsed.cut {
        // The tick being read at the cut is incomplete: no snapshot of it.
        if snap.taken_at().is_none_or(|taken| taken >= parsed.cut_tick) {
            return Err(CliError::TickCut {
                tick: args.tick,
                cut: cut.clone(),
            });
        }
    }
    if snap.taken_at().is_none() {
        return Err(CliError::TickAfterEnd {
            tick: args.tick,
            last: state.tick,
        });
    }
    if let Some(want) = &args.class {
        if !state.classes.iter().any(|c| c.name == *want) {
            return Err(unknown_class(&state, want));
        }
    }
    let mut out = stdout();
    for l in snap.lines() {
        writeln!(out, "{l}").map_err(CliError::Output)?;
    }
    out.flush().map_err(CliError::Output)?;
    if let Some(cut) = parsed.cut {
        crate::read::warn_cut(&cut);
    }
    Ok(())
}
