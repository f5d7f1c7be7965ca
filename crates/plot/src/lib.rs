//! Pictures of Source 2 demos from gamewire's tables, in world
//! coordinates: where the players stood, the paths they took, where they
//! spent their time, where they killed and died, and where the grenades
//! flew (`gamewire plot`, `docs/plots.md`).
//!
//! A plot is made in three steps, each a function of its own so that a
//! test (or a program) can check one without the others:
//!
//! 1. [`query`]: the tables a [`PlotKind`] reads, asked of
//!    [`gamewire_query`] in one pass over the demo (`ticks` with `X`, `Y`,
//!    `team_num`; `events` of `player_death`; `grenades`, `smokes`,
//!    `infernos`; `rounds` for a round).
//! 2. [`scene::scene`]: the rows a [`Selection`] keeps, as marks placed in
//!    game units ([`Scene`]).
//! 3. [`render::render`]: the marks drawn by plotters as PNG or SVG, with
//!    axes fitted to the points ([`Axes`]), over a radar image when one is
//!    given ([`Radar`]).
//!
//! [`write_atomic`] writes the file through a temporary file in the same
//! folder, renamed when complete. [`plot`] does all of it for a demo's
//! bytes.
#![forbid(unsafe_code)]

pub mod error;
pub mod radar;
pub mod render;
pub mod scene;
pub mod style;

use std::io::Write;
use std::path::Path;
use std::str::FromStr;

use gamewire_query::{DemoInput, Query, RunOptions, TableKind};

pub use error::PlotError;
pub use radar::{MapTransform, Radar};
pub use render::{render, Axes, Picture};
pub use scene::{scene, Mark, Scene, Selection};

/// The smallest side of a picture, in pixels.
pub const MIN_SIDE: u32 = 64;
/// The largest side of a picture, in pixels (a 8192 x 8192 RGB buffer is
/// 192 MiB).
pub const MAX_SIDE: u32 = 8192;
/// The side of a picture when none is asked for.
pub const DEFAULT_SIDE: u32 = 1024;

/// What a plot draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlotKind {
    /// One marker per player at their last position in the selection, in
    /// their team's colour.
    Positions,
    /// Each player's path through the selection, a marker at its end.
    Trails,
    /// How often any player stood in each spot: positions counted in pixel
    /// cells, a log colour scale.
    Heatmap,
    /// Each kill: the victim's position in the victim's team colour, the
    /// killer's smaller in theirs, a line between (CS2).
    Kills,
    /// Each grenade's flight, its detonation point in the grenade's colour,
    /// a ring where each smoke and fire started (CS2).
    Grenades,
}

impl PlotKind {
    /// Every kind.
    pub const ALL: [PlotKind; 5] = [
        PlotKind::Positions,
        PlotKind::Trails,
        PlotKind::Heatmap,
        PlotKind::Kills,
        PlotKind::Grenades,
    ];

    /// The kind's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            PlotKind::Positions => "positions",
            PlotKind::Trails => "trails",
            PlotKind::Heatmap => "heatmap",
            PlotKind::Kills => "kills",
            PlotKind::Grenades => "grenades",
        }
    }

    /// What it draws, as the error of an empty selection names it.
    pub fn what(self) -> &'static str {
        match self {
            PlotKind::Positions | PlotKind::Trails | PlotKind::Heatmap => "positions",
            PlotKind::Kills => "kills",
            PlotKind::Grenades => "grenades",
        }
    }
}

impl FromStr for PlotKind {
    type Err = PlotError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PlotKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| PlotError::UnknownKind(s.to_string()))
    }
}

/// The image formats written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageFormat {
    /// PNG, 8-bit RGB.
    Png,
    /// SVG text.
    Svg,
}

impl ImageFormat {
    /// The format a file name's extension names (`.png`, `.svg`, any case).
    pub fn of_path(path: &Path) -> Result<ImageFormat, PlotError> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("png") => Ok(ImageFormat::Png),
            Some("svg") => Ok(ImageFormat::Svg),
            _ => Err(PlotError::Format(path.to_path_buf())),
        }
    }
}

/// Checks a picture's size against [`MIN_SIDE`] and [`MAX_SIDE`].
pub fn check_size(width: u32, height: u32) -> Result<(), PlotError> {
    let ok = |s: u32| (MIN_SIDE..=MAX_SIDE).contains(&s);
    if ok(width) && ok(height) {
        Ok(())
    } else {
        Err(PlotError::Size { width, height })
    }
}

/// The query a plot kind runs over a demo: the tables it reads, and the
/// selection's ticks for the `ticks` table (the parse then keeps only
/// those rows; a round's ticks are chosen after the parse, from the
/// `rounds` table of the same pass).
pub fn query(kind: PlotKind, selection: &Selection) -> Query {
    let position_props = || vec!["X".to_string(), "Y".to_string(), "team_num".to_string()];
    let mut q = match kind {
        PlotKind::Positions | PlotKind::Trails | PlotKind::Heatmap => Query {
            tables: vec![TableKind::Ticks],
            player_props: position_props(),
            ticks: selection.ticks.clone(),
            ..Query::default()
        },
        PlotKind::Kills => Query {
            tables: vec![TableKind::Events],
            events: Some(vec!["player_death".to_string()]),
            player_props: position_props(),
            ..Query::default()
        },
        PlotKind::Grenades => Query {
            tables: vec![TableKind::Grenades, TableKind::Smokes, TableKind::Infernos],
            ..Query::default()
        },
    };
    if selection.round.is_some() {
        q.tables.push(TableKind::Rounds);
    }
    q
}

/// A plot request: the kind, the rows, the picture.
#[derive(Debug, Clone)]
pub struct PlotRequest {
    /// What to draw.
    pub kind: PlotKind,
    /// Which rows.
    pub selection: Selection,
    /// PNG or SVG.
    pub format: ImageFormat,
    /// Width and height in pixels.
    pub size: (u32, u32),
    /// A radar image drawn underneath.
    pub radar: Option<Radar>,
}

/// A plot made from a demo, with where the demo ended early when it did.
#[derive(Debug)]
pub struct Plotted {
    /// The picture.
    pub picture: Picture,
    /// The cut (a damaged or truncated demo): the plot holds everything
    /// before it.
    pub cut: Option<gamewire_query::Cut>,
    /// The last tick parsed.
    pub last_tick: i32,
}

/// Makes a plot from a demo read by the input stage, with `options` (a
/// run that keeps a cut demo's tables plots what was read, and reports the
/// cut in [`Plotted::cut`]).
pub fn plot(
    input: &DemoInput,
    request: &PlotRequest,
    options: RunOptions,
) -> Result<Plotted, PlotError> {
    check_size(request.size.0, request.size.1)?;
    let query = query(request.kind, &request.selection).with_options(options);
    let parsed = query.run_input(input)?;
    let scene = scene::scene(
        request.kind,
        &parsed.tables,
        &request.selection,
        parsed.state.tick,
    )?;
    let picture = render::render(&scene, request.format, request.size, request.radar.as_ref())?;
    Ok(Plotted {
        picture,
        cut: parsed.cut,
        last_tick: parsed.state.tick,
    })
}

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// folder (`.NAME.*.partial`, with the mode a new file gets), renamed over
/// `path` when complete (a reader never sees half an image; a failed write
/// leaves no file behind).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), PlotError> {
    let write_error = |source| PlotError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut file = gamewire_query::edit::temporary_beside(path).map_err(write_error)?;
    file.write_all(bytes).map_err(write_error)?;
    file.flush().map_err(write_error)?;
    file.as_file().sync_all().map_err(write_error)?;
    file.persist(path).map_err(|e| write_error(e.error))?;
    Ok(())
}
