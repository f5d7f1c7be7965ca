//! Colours and sizes. Team 2 and team 3 keep one colour in every game
//! (CS2's T and CT, Dota 2's Radiant and Dire, Deadlock's Amber and
//! Sapphire); markers are opaque at their centre, so a test can read a
//! marker's colour back at its position.

/// An opaque colour.
pub type Rgb = (u8, u8, u8);

/// The picture's background.
pub const BACKGROUND: Rgb = (28, 30, 34);
/// The grid lines, every round number of game units.
pub const GRID: Rgb = (52, 55, 62);
/// The frame around the plot area.
pub const FRAME: Rgb = (110, 114, 124);
/// A marker's outline.
pub const OUTLINE: Rgb = (10, 10, 12);

/// Team 2: CS2's T, Dota 2's Radiant, Deadlock's Amber.
pub const TEAM_2: Rgb = (234, 160, 40);
/// Team 3: CS2's CT, Dota 2's Dire, Deadlock's Sapphire.
pub const TEAM_3: Rgb = (80, 150, 240);
/// Any other team (none, spectators, neutrals) or no team read.
pub const TEAM_OTHER: Rgb = (190, 190, 190);

/// The line from a killer to the victim.
pub const KILL_LINE: Rgb = (200, 200, 205);

/// Smoke grenades and smokes.
pub const SMOKE: Rgb = (215, 215, 215);
/// Flashbangs.
pub const FLASHBANG: Rgb = (245, 240, 130);
/// HE grenades.
pub const HE_GRENADE: Rgb = (90, 200, 90);
/// Molotovs, incendiaries and their fires.
pub const FIRE: Rgb = (240, 80, 40);
/// Decoys.
pub const DECOY: Rgb = (175, 125, 225);

/// A player's marker radius (pixels).
pub const PLAYER_RADIUS: u32 = 6;
/// The marker at a trail's end.
pub const TRAIL_END_RADIUS: u32 = 5;
/// A trail's width.
pub const TRAIL_WIDTH: u32 = 2;
/// A victim's marker.
pub const VICTIM_RADIUS: u32 = 5;
/// A killer's marker.
pub const KILLER_RADIUS: u32 = 3;
/// A grenade's detonation point.
pub const DETONATION_RADIUS: u32 = 4;
/// A grenade's flight.
pub const FLIGHT_WIDTH: u32 = 1;
/// The ring where a smoke or a fire started.
pub const AREA_RADIUS: u32 = 10;
/// The side of a heatmap cell (pixels).
pub const HEAT_CELL: u32 = 8;
/// Lines and heatmap cells are drawn at this opacity.
pub const LINE_ALPHA: f64 = 0.7;

/// The colour of a team number.
pub fn team_color(team: Option<i64>) -> Rgb {
    match team {
        Some(2) => TEAM_2,
        Some(3) => TEAM_3,
        _ => TEAM_OTHER,
    }
}

/// The colour of a grenade type as the tables name it.
pub fn grenade_color(kind: Option<&str>) -> Rgb {
    match kind {
        Some("smoke") => SMOKE,
        Some("flashbang") => FLASHBANG,
        Some("he_grenade") => HE_GRENADE,
        Some("molotov" | "incendiary") => FIRE,
        Some("decoy") => DECOY,
        _ => TEAM_OTHER,
    }
}

/// The heatmap's colour for a cell holding `count` of the busiest cell's
/// `max` positions: a log scale from deep purple through red to yellow,
/// so one pass through a cell still shows.
pub fn heat_color(count: u32, max: u32) -> Rgb {
    let t = if max <= 1 {
        1.0
    } else {
        (f64::from(count)).ln_1p() / (f64::from(max)).ln_1p()
    };
    let mix = |a: Rgb, b: Rgb, t: f64| -> Rgb {
        let m = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
        (m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
    };
    const LOW: Rgb = (90, 30, 140);
    const MID: Rgb = (230, 60, 30);
    const HIGH: Rgb = (255, 235, 90);
    if t < 0.5 {
        mix(LOW, MID, t * 2.0)
    } else {
        mix(MID, HIGH, (t - 0.5) * 2.0)
    }
}
