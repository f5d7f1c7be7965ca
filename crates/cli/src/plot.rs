//! `gamewire plot`: a picture of a demo (positions, trails, a heatmap,
//! kills, grenades) as PNG or SVG, made by [`gamewire_plot`]. This module
//! only reads the options, the demo and the radar image, and writes the
//! file; a demo cut short is plotted up to the cut, with a warning.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use gamewire_plot::{
    ImageFormat, MapTransform, PlotError, PlotKind, PlotRequest, Radar, Selection,
};
use gamewire_query::TickSet;

use crate::error::CliError;
use crate::read::{open_input, single_demo, warn_cut};

/// The plot kinds, as options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Kind {
    /// One marker per player at their last position, in team colours.
    Positions,
    /// Each player's path, a marker at its end.
    Trails,
    /// Where players stood most (every player, a log colour scale).
    Heatmap,
    /// Victims and their killers, a line between (CS2).
    Kills,
    /// Grenade flights, detonations, smokes and fires (CS2).
    Grenades,
}

impl From<Kind> for PlotKind {
    fn from(k: Kind) -> PlotKind {
        match k {
            Kind::Positions => PlotKind::Positions,
            Kind::Trails => PlotKind::Trails,
            Kind::Heatmap => PlotKind::Heatmap,
            Kind::Kills => PlotKind::Kills,
            Kind::Grenades => PlotKind::Grenades,
        }
    }
}

/// `gamewire plot DEMO --kind KIND -o OUT.png|OUT.svg`.
#[derive(Debug, Args)]
pub(crate) struct PlotArgs {
    /// The demo (`.dem`, also compressed; `-` for standard input; a
    /// broadcast directory).
    demo: PathBuf,
    /// What to draw.
    #[arg(long, value_enum)]
    kind: Kind,
    /// The image file to write; `.png` or `.svg` picks the format. Written
    /// to a temporary file in its folder and renamed when complete.
    #[arg(short, long)]
    output: PathBuf,
    /// Only this round (CS2; 1 is the first row of `table rounds`).
    #[arg(long)]
    round: Option<u32>,
    /// Only these ticks: `5`, `100..200` (inclusive), or a list
    /// (`5, 100..200`).
    #[arg(long)]
    ticks: Option<String>,
    /// Only these players: names or steam ids (comma-separated or
    /// repeated). Kills keep a kill when the killer or the victim is one.
    #[arg(long, value_delimiter = ',')]
    players: Vec<String>,
    /// Image width in pixels.
    #[arg(long, default_value_t = gamewire_plot::DEFAULT_SIDE)]
    width: u32,
    /// Image height in pixels.
    #[arg(long, default_value_t = gamewire_plot::DEFAULT_SIDE)]
    height: u32,
    /// A radar image (PNG) drawn underneath, placed by --map-transform.
    #[arg(long, requires = "map_transform")]
    radar: Option<PathBuf>,
    /// The radar image's transform, as the game's overview files give it:
    /// `POS_X,POS_Y,SCALE` (the world point at the image's top left corner,
    /// game units per image pixel), or a CS2 map whose transform is built
    /// in (cs_italy, de_ancient, de_dust2, de_inferno, de_mirage, de_nuke,
    /// de_overpass, de_train, de_vertigo).
    #[arg(long, requires = "radar", allow_hyphen_values = true)]
    map_transform: Option<String>,
}

/// A plot error as the command's error: bad usage exits 2, a file that
/// cannot be read or written names it, the query's errors name the demo.
fn cli_error(demo: &Path, output: &Path, e: PlotError) -> CliError {
    match e {
        PlotError::Query(source) => CliError::Query {
            path: demo.to_path_buf(),
            source: Box::new(source),
        },
        PlotError::Read { path, source } => CliError::Read { path, source },
        PlotError::Write { path, source } => CliError::Write { path, source },
        PlotError::Radar { path, reason } => CliError::Read {
            path,
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, reason),
        },
        PlotError::Empty { .. } => CliError::InDemo {
            path: demo.to_path_buf(),
            source: Box::new(CliError::UsageText(e.to_string())),
        },
        e if e.is_usage() => CliError::UsageText(e.to_string()),
        e => CliError::Write {
            path: output.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        },
    }
}

/// Runs `gamewire plot`.
pub(crate) fn plot(args: PlotArgs) -> Result<(), CliError> {
    let fail = |e: PlotError| cli_error(&args.demo, &args.output, e);
    let format = ImageFormat::of_path(&args.output).map_err(fail)?;
    gamewire_plot::check_size(args.width, args.height).map_err(fail)?;
    let ticks = match &args.ticks {
        Some(t) => Some(TickSet::parse(t).map_err(|e| fail(e.into()))?),
        None => None,
    };
    let radar = match (&args.radar, &args.map_transform) {
        (Some(path), Some(t)) => {
            let transform = MapTransform::parse(t).map_err(fail)?;
            Some(Radar::open(path, transform).map_err(fail)?)
        }
        _ => None,
    };
    let request = PlotRequest {
        kind: args.kind.into(),
        selection: Selection {
            round: args.round,
            ticks,
            players: (!args.players.is_empty()).then(|| args.players.clone()),
        },
        format,
        size: (args.width, args.height),
        radar,
    };
    let input = open_input(&args.demo).map_err(|source| CliError::Input {
        path: args.demo.clone(),
        source: Box::new(source),
    })?;
    let plotted = gamewire_plot::plot(&input, &request, single_demo()).map_err(fail)?;
    drop(input);
    gamewire_plot::write_atomic(&args.output, &plotted.picture.bytes).map_err(fail)?;
    if let Some(cut) = &plotted.cut {
        warn_cut(&format!(
            "{}: {cut}; the plot holds everything before the cut (parsed up to tick {})",
            args.demo.display(),
            plotted.last_tick
        ));
    }
    Ok(())
}
