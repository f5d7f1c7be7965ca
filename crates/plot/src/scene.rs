//! From tables to marks: what each plot kind draws, in world coordinates.
//!
//! A [`Scene`] is a list of [`Mark`]s (dots, rings, polylines, the points
//! of a heatmap) placed in game units, drawn in order; it knows nothing of
//! pixels. Each kind reads the tables of its query ([`crate::query`]):
//!
//! - `positions`, `trails`, `heatmap`: the `ticks` table with the props
//!   `X`, `Y` and `team_num`; a row without a position (a player with no
//!   pawn, the CSTV client) is left out.
//! - `kills`: the `events` table of `player_death` with the props `X`,
//!   `Y`, `team_num`, which gives each kill its victim's position
//!   (`user_X`) and its killer's (`attacker_X`) when the event is read. The
//!   `kills` table has no positions (`docs/tables.md`); both come from the
//!   same `player_death` events.
//! - `grenades`: the `grenades` table (one row per projectile per tick it
//!   moved, with its detonation point), `smokes` and `infernos` (where each
//!   smoke and fire started).
//!
//! A selection narrows the rows: a round's ticks (`rounds` table, the same
//! range `gamewire cut --round` keeps), a tick set, players by name or
//! steam id. A selection that leaves nothing is an error, never an empty
//! picture.

use std::collections::BTreeMap;

use gamewire_query::{Column, Table, TickSet};

use crate::error::PlotError;
use crate::style::{self, Rgb};
use crate::PlotKind;

/// A point in game units (x east, y north).
pub type Point = (f32, f32);

/// One thing drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum Mark {
    /// A filled disc of `radius` pixels with a dark outline.
    Dot {
        /// Its centre.
        at: Point,
        /// Its colour.
        color: Rgb,
        /// Its radius in pixels.
        radius: u32,
    },
    /// A circle outline of `radius` pixels.
    Ring {
        /// Its centre.
        at: Point,
        /// Its colour.
        color: Rgb,
        /// Its radius in pixels.
        radius: u32,
    },
    /// A polyline through `points`, `width` pixels wide, translucent.
    Line {
        /// The points in order.
        points: Vec<Point>,
        /// Its colour.
        color: Rgb,
        /// Its width in pixels.
        width: u32,
    },
    /// The positions a heatmap counts, binned in pixel cells when drawn.
    Heat {
        /// The positions.
        points: Vec<Point>,
    },
}

impl Mark {
    /// Every point the mark places (the axes are fitted to them).
    pub fn points(&self) -> &[Point] {
        match self {
            Mark::Dot { at, .. } | Mark::Ring { at, .. } => std::slice::from_ref(at),
            Mark::Line { points, .. } | Mark::Heat { points } => points,
        }
    }
}

/// What a plot draws, in world coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// The marks, drawn in order (later on top).
    pub marks: Vec<Mark>,
}

impl Scene {
    /// The smallest rectangle holding every point: `(min_x, min_y, max_x,
    /// max_y)`, `None` for a scene with no point.
    pub fn bounds(&self) -> Option<(f32, f32, f32, f32)> {
        let mut points = self.marks.iter().flat_map(|m| m.points().iter());
        let &(x, y) = points.next()?;
        Some(points.fold((x, y, x, y), |(x0, y0, x1, y1), &(x, y)| {
            (x0.min(x), y0.min(y), x1.max(x), y1.max(y))
        }))
    }
}

/// Which rows a plot draws.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    /// Only this round (1 is the first row of the `rounds` table).
    pub round: Option<u32>,
    /// Only these ticks.
    pub ticks: Option<TickSet>,
    /// Only these players: each entry is a name or a steam id (a row
    /// matches when its name equals the entry or its steam id, written in
    /// decimal, does). `None` or an empty list: every player.
    pub players: Option<Vec<String>>,
}

impl Selection {
    /// The selection in words, for the error of an empty one (`in ticks
    /// 100..200 of round 2 for players Ash`); `in the demo` for none.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(t) = &self.ticks {
            parts.push(format!("in ticks {t}"));
        }
        if let Some(r) = self.round {
            parts.push(if self.ticks.is_some() {
                format!("of round {r}")
            } else {
                format!("in round {r}")
            });
        }
        if parts.is_empty() {
            parts.push("in the demo".to_string());
        }
        if let Some(p) = self.players.as_ref().filter(|p| !p.is_empty()) {
            parts.push(format!("for players {}", p.join(", ")));
        }
        parts.join(" ")
    }

    /// Whether a player (name, steam id) is selected.
    fn player(&self, name: Option<&str>, steamid: Option<u64>) -> bool {
        match self.players.as_ref().filter(|p| !p.is_empty()) {
            None => true,
            Some(players) => players.iter().any(|p| {
                name.is_some_and(|n| n == p)
                    || steamid.is_some_and(|s| p.parse::<u64>().is_ok_and(|q| q == s))
            }),
        }
    }
}

/// The inclusive tick range a selection's round and tick set allow, as a
/// test on a tick.
struct TickFilter<'a> {
    round: Option<(i32, i32)>,
    ticks: Option<&'a TickSet>,
}

impl TickFilter<'_> {
    fn keeps(&self, tick: i64) -> bool {
        let Ok(tick) = i32::try_from(tick) else {
            return false;
        };
        self.round.is_none_or(|(a, b)| (a..=b).contains(&tick))
            && self.ticks.is_none_or(|t| t.contains(tick))
    }
}

/// A column read as numbers, whatever its integer or float type.
fn number(col: &Column, row: usize) -> Option<f64> {
    match col {
        Column::I64(v) => v.get(row).copied().flatten().map(|x| x as f64),
        Column::U64(v) => v.get(row).copied().flatten().map(|x| x as f64),
        Column::F32(v) => v.get(row).copied().flatten().map(f64::from),
        _ => None,
    }
}

fn int(col: &Column, row: usize) -> Option<i64> {
    match col {
        Column::I64(v) => v.get(row).copied().flatten(),
        Column::U64(v) => v
            .get(row)
            .copied()
            .flatten()
            .and_then(|x| i64::try_from(x).ok()),
        Column::F32(v) => v.get(row).copied().flatten().map(|x| x as i64),
        _ => None,
    }
}

fn uint(col: &Column, row: usize) -> Option<u64> {
    match col {
        Column::U64(v) => v.get(row).copied().flatten(),
        Column::I64(v) => v
            .get(row)
            .copied()
            .flatten()
            .and_then(|x| u64::try_from(x).ok()),
        _ => None,
    }
}

fn text(col: &Column, row: usize) -> Option<&str> {
    match col {
        Column::Str(v) => v.get(row).and_then(|s| s.as_deref()),
        _ => None,
    }
}

/// A position from two columns: both present and finite.
fn point(x: &Column, y: &Column, row: usize) -> Option<Point> {
    let (x, y) = (number(x, row)? as f32, number(y, row)? as f32);
    (x.is_finite() && y.is_finite()).then_some((x, y))
}

/// A table's column, or the error naming it.
fn column<'t>(table: &'t Table, name: &'static str) -> Result<&'t Column, PlotError> {
    table.column(name).ok_or(PlotError::MissingColumn {
        table: table_name(table),
        column: name,
    })
}

/// The table's name as the query names it (for errors).
fn table_name(table: &Table) -> &'static str {
    [
        "ticks", "events", "grenades", "smokes", "infernos", "rounds",
    ]
    .into_iter()
    .find(|n| *n == table.name)
    .unwrap_or("plot")
}

/// The tables a plot's query returned, found by name.
fn find<'t>(tables: &'t [Table], name: &'static str) -> Result<&'t Table, PlotError> {
    tables
        .iter()
        .find(|t| t.name == name)
        .ok_or(PlotError::MissingColumn {
            table: name,
            column: "(the whole table)",
        })
}

/// The scene of a plot kind over the tables its query returned
/// ([`crate::query`]), for a demo whose last tick is `last_tick`.
pub fn scene(
    kind: PlotKind,
    tables: &[Table],
    selection: &Selection,
    last_tick: i32,
) -> Result<Scene, PlotError> {
    let round = match selection.round {
        Some(r) => {
            let range = gamewire_query::edit::round_range(find(tables, "rounds")?, r, last_tick)?;
            Some((range.from, range.to))
        }
        None => None,
    };
    let filter = TickFilter {
        round,
        ticks: selection.ticks.as_ref(),
    };
    let marks = match kind {
        PlotKind::Positions | PlotKind::Trails | PlotKind::Heatmap => {
            player_marks(kind, find(tables, "ticks")?, selection, &filter)?
        }
        PlotKind::Kills => kill_marks(find(tables, "events")?, selection, &filter)?,
        PlotKind::Grenades => grenade_marks(tables, selection, &filter)?,
    };
    if marks.is_empty() {
        return Err(PlotError::Empty {
            what: kind.what(),
            selection: selection.describe(),
        });
    }
    Ok(Scene { marks })
}

/// One player's rows in tick order: their team at the last one.
#[derive(Default)]
struct Track {
    points: Vec<Point>,
    team: Option<i64>,
}

fn player_marks(
    kind: PlotKind,
    ticks: &Table,
    selection: &Selection,
    filter: &TickFilter,
) -> Result<Vec<Mark>, PlotError> {
    let tick = column(ticks, "tick")?;
    let slot = column(ticks, "slot")?;
    let steamid = column(ticks, "steamid")?;
    let name = column(ticks, "name")?;
    let (x, y) = (column(ticks, "X")?, column(ticks, "Y")?);
    let team = column(ticks, "team_num")?;
    // Keyed by slot then name: a slot a second player takes over later is
    // a second track. The rows come in tick order.
    let mut tracks: BTreeMap<(i64, String), Track> = BTreeMap::new();
    for row in 0..ticks.rows() {
        if !int(tick, row).is_some_and(|t| filter.keeps(t)) {
            continue;
        }
        let n = text(name, row);
        if !selection.player(n, uint(steamid, row)) {
            continue;
        }
        let Some(p) = point(x, y, row) else {
            continue;
        };
        let key = (int(slot, row).unwrap_or(-1), n.unwrap_or("").to_string());
        let track = tracks.entry(key).or_default();
        track.points.push(p);
        track.team = int(team, row).or(track.team);
    }
    let mut marks = Vec::new();
    match kind {
        PlotKind::Heatmap => {
            let points: Vec<Point> = tracks.into_values().flat_map(|t| t.points).collect();
            if !points.is_empty() {
                marks.push(Mark::Heat { points });
            }
        }
        PlotKind::Trails => {
            let mut ends = Vec::new();
            for t in tracks.into_values() {
                let color = style::team_color(t.team);
                if let Some(&last) = t.points.last() {
                    ends.push(Mark::Dot {
                        at: last,
                        color,
                        radius: style::TRAIL_END_RADIUS,
                    });
                }
                marks.push(Mark::Line {
                    points: t.points,
                    color,
                    width: style::TRAIL_WIDTH,
                });
            }
            marks.extend(ends);
        }
        _ => {
            for t in tracks.into_values() {
                if let Some(&last) = t.points.last() {
                    marks.push(Mark::Dot {
                        at: last,
                        color: style::team_color(t.team),
                        radius: style::PLAYER_RADIUS,
                    });
                }
            }
        }
    }
    Ok(marks)
}

fn kill_marks(
    events: &Table,
    selection: &Selection,
    filter: &TickFilter,
) -> Result<Vec<Mark>, PlotError> {
    let tick = column(events, "tick")?;
    let (vx, vy) = (column(events, "user_X")?, column(events, "user_Y")?);
    let (ax, ay) = (column(events, "attacker_X")?, column(events, "attacker_Y")?);
    let vteam = column(events, "user_team_num")?;
    let ateam = column(events, "attacker_team_num")?;
    let (vname, vsteam) = (
        column(events, "user_name")?,
        column(events, "user_steamid")?,
    );
    let (aname, asteam) = (
        column(events, "attacker_name")?,
        column(events, "attacker_steamid")?,
    );
    let (mut lines, mut killers, mut victims) = (Vec::new(), Vec::new(), Vec::new());
    for row in 0..events.rows() {
        if !int(tick, row).is_some_and(|t| filter.keeps(t)) {
            continue;
        }
        if !selection.player(text(vname, row), uint(vsteam, row))
            && !selection.player(text(aname, row), uint(asteam, row))
        {
            continue;
        }
        let Some(victim) = point(vx, vy, row) else {
            continue;
        };
        if let Some(killer) = point(ax, ay, row) {
            lines.push(Mark::Line {
                points: vec![killer, victim],
                color: style::KILL_LINE,
                width: 1,
            });
            killers.push(Mark::Dot {
                at: killer,
                color: style::team_color(int(ateam, row)),
                radius: style::KILLER_RADIUS,
            });
        }
        victims.push(Mark::Dot {
            at: victim,
            color: style::team_color(int(vteam, row)),
            radius: style::VICTIM_RADIUS,
        });
    }
    lines.extend(killers);
    lines.extend(victims);
    Ok(lines)
}

/// A grenade's flight: its points in tick order, its type and its
/// detonation point.
type Flight<'t> = (Vec<Point>, Option<&'t str>, Option<Point>);

fn grenade_marks(
    tables: &[Table],
    selection: &Selection,
    filter: &TickFilter,
) -> Result<Vec<Mark>, PlotError> {
    let g = find(tables, "grenades")?;
    let id = column(g, "grenade_id")?;
    let kind = column(g, "grenade_type")?;
    let (name, steam) = (column(g, "thrower_name")?, column(g, "thrower_steamid")?);
    let tick = column(g, "tick")?;
    let (x, y) = (column(g, "x")?, column(g, "y")?);
    let (dx, dy) = (column(g, "detonate_x")?, column(g, "detonate_y")?);
    // Each flight's points in tick order, its type and detonation point.
    let mut flights: BTreeMap<i64, Flight> = BTreeMap::new();
    for row in 0..g.rows() {
        if !int(tick, row).is_some_and(|t| filter.keeps(t))
            || !selection.player(text(name, row), uint(steam, row))
        {
            continue;
        }
        let Some(p) = point(x, y, row) else {
            continue;
        };
        let flight = flights.entry(int(id, row).unwrap_or(-1)).or_default();
        flight.0.push(p);
        flight.1 = flight.1.or(text(kind, row));
        flight.2 = flight.2.or(point(dx, dy, row));
    }
    let mut marks = Vec::new();
    let mut detonations = Vec::new();
    for (points, kind, detonation) in flights.into_values() {
        let color = style::grenade_color(kind);
        if let Some(at) = detonation {
            detonations.push(Mark::Dot {
                at,
                color,
                radius: style::DETONATION_RADIUS,
            });
        }
        marks.push(Mark::Line {
            points,
            color,
            width: style::FLIGHT_WIDTH,
        });
    }
    for (table, kind) in [("smokes", "smoke"), ("infernos", "molotov")] {
        let t = find(tables, table)?;
        let start = column(t, "start_tick")?;
        let (name, steam) = (column(t, "thrower_name")?, column(t, "thrower_steamid")?);
        let (x, y) = (column(t, "x")?, column(t, "y")?);
        for row in 0..t.rows() {
            if !int(start, row).is_some_and(|t| filter.keeps(t))
                || !selection.player(text(name, row), uint(steam, row))
            {
                continue;
            }
            if let Some(at) = point(x, y, row) {
                marks.push(Mark::Ring {
                    at,
                    color: style::grenade_color(Some(kind)),
                    radius: style::AREA_RADIUS,
                });
            }
        }
    }
    marks.extend(detonations);
    Ok(marks)
}
