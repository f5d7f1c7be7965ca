//! Every plot kind on every Source 2 demo of the corpus and on the sample,
//! as PNG and as SVG: the picture has the size asked for, and a marker
//! lies where the tables put its position. The pixel of a known position
//! is computed here from the picture's axes (world rectangle and plot
//! area), with the projection written out again, not through the crate's
//! own function; the PNG is decoded and the SVG read back to find the
//! marker's colour there.

use std::error::Error;
use std::path::Path;

use gamewire_plot::style::{self, Rgb};
use gamewire_plot::{
    render, scene, Axes, ImageFormat, MapTransform, Picture, PlotError, PlotKind, Radar, Selection,
};
use gamewire_query::{Column, Table, TickSet};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const SIZE: (u32, u32) = (640, 480);

/// The Source 2 demos of the corpus and the sample: name, bytes.
fn demos() -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = vec![("sample".to_string(), gamewire_synth::SAMPLE_DEMO.to_vec())];
    for path in gamewire_corpus::source2_demos()? {
        out.push((path.display().to_string(), std::fs::read(&path)?));
    }
    Ok(out)
}

/// The tables a kind's query gives on a demo.
fn run_tables(kind: PlotKind, selection: &Selection, data: &[u8]) -> Result<(Vec<Table>, i32)> {
    let parsed = gamewire_plot::query(kind, selection).run(data)?;
    Ok((parsed.tables, parsed.state.tick))
}

fn table<'t>(tables: &'t [Table], name: &str) -> Result<&'t Table> {
    tables
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| format!("no {name} table").into())
}

fn num(t: &Table, col: &str, row: usize) -> Option<f64> {
    match t.column(col)? {
        Column::F32(v) => v.get(row).copied().flatten().map(f64::from),
        Column::I64(v) => v.get(row).copied().flatten().map(|x| x as f64),
        Column::U64(v) => v.get(row).copied().flatten().map(|x| x as f64),
        _ => None,
    }
}

fn text(t: &Table, col: &str, row: usize) -> Option<String> {
    match t.column(col)? {
        Column::Str(v) => v.get(row).cloned().flatten(),
        _ => None,
    }
}

/// The pixel of a world point, re-derived from the axes: a linear map of
/// the world rectangle onto the plot area, y growing up.
fn pixel(axes: &Axes, x: f64, y: f64) -> (i64, i64) {
    let (x0, y0, x1, y1) = axes.world;
    let (left, top, right, bottom) = axes.area;
    let px = left + (right - left) * ((x - x0) / (x1 - x0));
    let py = bottom - (bottom - top) * ((y - y0) / (y1 - y0));
    (px.round() as i64, py.round() as i64)
}

/// A decoded PNG: width, height, RGB pixels.
struct Rgbs {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl Rgbs {
    fn decode(png_bytes: &[u8]) -> Result<Rgbs> {
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info()?;
        let mut buf = vec![0; reader.output_buffer_size().ok_or("no size")?];
        let info = reader.next_frame(&mut buf)?;
        if info.color_type != png::ColorType::Rgb || info.bit_depth != png::BitDepth::Eight {
            return Err(format!("{:?} {:?}", info.color_type, info.bit_depth).into());
        }
        Ok(Rgbs {
            width: info.width,
            height: info.height,
            pixels: buf,
        })
    }

    fn at(&self, (x, y): (i64, i64)) -> Option<Rgb> {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 3;
        let p = self.pixels.get(i..i + 3)?;
        Some((p[0], p[1], p[2]))
    }
}

/// The attributes of every element named `tag` in an SVG, as
/// (name, value) pairs.
fn svg_elements(svg: &str, tag: &str) -> Vec<Vec<(String, String)>> {
    let open = format!("<{tag} ");
    let mut out = Vec::new();
    for piece in svg.split(&open).skip(1) {
        let body = piece.split("/>").next().unwrap_or("");
        let mut attrs = Vec::new();
        for part in body.split("\" ") {
            if let Some((k, v)) = part.split_once("=\"") {
                attrs.push((k.trim().to_string(), v.trim_end_matches('"').to_string()));
            }
        }
        out.push(attrs);
    }
    out
}

fn attr<'a>(attrs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attrs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn hex((r, g, b): Rgb) -> String {
    format!("#{r:02X}{g:02X}{b:02X}")
}

/// The size an SVG declares.
fn svg_size(svg: &str) -> Option<(u32, u32)> {
    let attrs = svg_elements(svg, "svg").into_iter().next()?;
    Some((
        attr(&attrs, "width")?.parse().ok()?,
        attr(&attrs, "height")?.parse().ok()?,
    ))
}

/// Checks the picture's size, and that a filled disc of `color` is
/// centred at `at` (PNG: the pixel there has the colour; SVG: a filled
/// circle there has it).
fn check_dot(picture: &Picture, at: (i64, i64), color: Rgb, what: &str) -> Result<()> {
    match picture.format {
        ImageFormat::Png => {
            let image = Rgbs::decode(&picture.bytes)?;
            if (image.width, image.height) != SIZE {
                return Err(format!("{what}: {}x{}", image.width, image.height).into());
            }
            let got = image.at(at);
            if got != Some(color) {
                return Err(format!("{what}: pixel {at:?} is {got:?}, not {color:?}").into());
            }
        }
        ImageFormat::Svg => {
            let svg = std::str::from_utf8(&picture.bytes)?;
            if svg_size(svg) != Some(SIZE) {
                return Err(format!("{what}: SVG size {:?}", svg_size(svg)).into());
            }
            let want = hex(color);
            let found = svg_elements(svg, "circle").iter().any(|c| {
                attr(c, "fill") == Some(want.as_str())
                    && attr(c, "cx").and_then(|v| v.parse::<i64>().ok()) == Some(at.0)
                    && attr(c, "cy").and_then(|v| v.parse::<i64>().ok()) == Some(at.1)
            });
            if !found {
                return Err(format!("{what}: no circle of {want} at {at:?}").into());
            }
        }
    }
    Ok(())
}

/// Of several discs (pixel, colour) of `radius`, one whose centre shows
/// its own colour whatever the drawing order: every other disc is either
/// too far to reach it, or of the same colour with the centre well inside
/// it (not under its outline).
fn clear_of_others(markers: &[((i64, i64), Rgb)], radius: i64) -> Option<((i64, i64), Rgb)> {
    markers.iter().enumerate().find_map(|(i, &(p, color))| {
        let clear = markers
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .all(|(_, &(q, other))| {
                let (dx, dy) = (p.0 - q.0, p.1 - q.1);
                let far = dx.abs() > radius + 2 || dy.abs() > radius + 2;
                let inside = other == color && dx * dx + dy * dy <= (radius - 2) * (radius - 2);
                far || inside
            });
        clear.then_some((p, color))
    })
}

/// Every player's last position in a ticks table, with their team colour.
fn last_positions(ticks: &Table) -> Vec<((f64, f64), Rgb)> {
    let mut last: std::collections::BTreeMap<(i64, String), ((f64, f64), Rgb)> = Default::default();
    for row in 0..ticks.rows() {
        let (Some(x), Some(y)) = (num(ticks, "X", row), num(ticks, "Y", row)) else {
            continue;
        };
        let slot = num(ticks, "slot", row).unwrap_or(-1.0) as i64;
        let name = text(ticks, "name", row).unwrap_or_default();
        let team = num(ticks, "team_num", row).map(|t| t as i64);
        last.insert((slot, name), ((x, y), style::team_color(team)));
    }
    last.into_values().collect()
}

fn formats() -> [ImageFormat; 2] {
    [ImageFormat::Png, ImageFormat::Svg]
}

#[test]
fn positions_and_trails_put_each_player_where_the_ticks_table_does() -> Result<()> {
    for (name, data) in demos()? {
        let selection = Selection::default();
        let (tables, last) = run_tables(PlotKind::Positions, &selection, &data)?;
        let ticks = table(&tables, "ticks")?;
        let positions = last_positions(ticks);
        if positions.is_empty() {
            return Err(format!("{name}: no positions").into());
        }
        for kind in [PlotKind::Positions, PlotKind::Trails] {
            let s = scene(kind, &tables, &selection, last)?;
            for format in formats() {
                let picture = render(&s, format, SIZE, None)?;
                let markers: Vec<_> = positions
                    .iter()
                    .map(|&((x, y), c)| (pixel(&picture.axes, x, y), c))
                    .collect();
                let (at, color) = clear_of_others(&markers, i64::from(style::PLAYER_RADIUS))
                    .ok_or_else(|| format!("{name}: every marker overlaps another"))?;
                check_dot(&picture, at, color, &format!("{name} {kind:?} {format:?}"))?;
                if kind == PlotKind::Positions {
                    // One marker per player.
                    let dots = s
                        .marks
                        .iter()
                        .filter(|m| matches!(m, gamewire_plot::Mark::Dot { .. }))
                        .count();
                    assert_eq!(dots, positions.len(), "{name}");
                }
            }
        }
    }
    Ok(())
}

#[test]
fn heatmap_colours_the_cells_players_stood_in() -> Result<()> {
    for (name, data) in demos()? {
        let selection = Selection::default();
        let (tables, last) = run_tables(PlotKind::Heatmap, &selection, &data)?;
        let positions = last_positions(table(&tables, "ticks")?);
        let s = scene(PlotKind::Heatmap, &tables, &selection, last)?;
        for format in formats() {
            let picture = render(&s, format, SIZE, None)?;
            for &((x, y), _) in &positions {
                let at = pixel(&picture.axes, x, y);
                match format {
                    ImageFormat::Png => {
                        let image = Rgbs::decode(&picture.bytes)?;
                        assert_eq!((image.width, image.height), SIZE, "{name}");
                        let got = image.at(at).ok_or("outside the image")?;
                        assert!(
                            got != style::BACKGROUND && got != style::GRID,
                            "{name}: heatmap pixel {at:?} is {got:?}"
                        );
                    }
                    ImageFormat::Svg => {
                        let svg = std::str::from_utf8(&picture.bytes)?;
                        assert_eq!(svg_size(svg), Some(SIZE), "{name}");
                        let inside = svg_elements(svg, "rect").iter().any(|r| {
                            let n = |k| attr(r, k).and_then(|v| v.parse::<i64>().ok());
                            let (Some(x), Some(y), Some(w), Some(h)) =
                                (n("x"), n("y"), n("width"), n("height"))
                            else {
                                return false;
                            };
                            attr(r, "fill") != Some(hex(style::BACKGROUND).as_str())
                                && attr(r, "stroke") == Some("none")
                                && (x..=x + w).contains(&at.0)
                                && (y..=y + h).contains(&at.1)
                                && w <= i64::from(style::HEAT_CELL) + 1
                        });
                        assert!(inside, "{name}: no heat cell at {at:?}");
                    }
                }
            }
        }
    }
    Ok(())
}

#[test]
fn kills_put_each_victim_where_the_death_event_does() -> Result<()> {
    for (name, data) in demos()? {
        let selection = Selection::default();
        let run = run_tables(PlotKind::Kills, &selection, &data);
        let is_cs2 = name == "sample" || name.contains("/cs2/");
        let (tables, last) = match run {
            Ok(t) => t,
            // A game without `player_death` events: the query names it.
            Err(e) if !is_cs2 => {
                assert!(e.to_string().contains("player_death"), "{name}: {e}");
                continue;
            }
            Err(e) => return Err(e),
        };
        let events = table(&tables, "events")?;
        let result = scene(PlotKind::Kills, &tables, &selection, last);
        if events.rows() == 0 {
            // No kill in the demo: a clear error, never an empty picture.
            match result {
                Err(PlotError::Empty { what: "kills", .. }) => continue,
                other => return Err(format!("{name}: {other:?}").into()),
            }
        }
        let s = result?;
        let mut victims = Vec::new();
        for row in 0..events.rows() {
            if let (Some(x), Some(y)) = (num(events, "user_X", row), num(events, "user_Y", row)) {
                let team = num(events, "user_team_num", row).map(|t| t as i64);
                victims.push(((x, y), style::team_color(team)));
            }
        }
        if name == "sample" {
            assert_eq!(victims.len(), 15, "the sample's kills");
        }
        for format in formats() {
            let picture = render(&s, format, SIZE, None)?;
            let markers: Vec<_> = victims
                .iter()
                .map(|&((x, y), c)| (pixel(&picture.axes, x, y), c))
                .collect();
            let (at, color) = clear_of_others(&markers, i64::from(style::VICTIM_RADIUS))
                .ok_or("every victim overlaps another")?;
            check_dot(&picture, at, color, &format!("{name} kills {format:?}"))?;
        }
    }
    Ok(())
}

#[test]
fn grenades_put_each_detonation_where_the_grenades_table_does() -> Result<()> {
    for (name, data) in demos()? {
        let selection = Selection::default();
        let is_cs2 = name == "sample" || name.contains("/cs2/");
        let (tables, last) = run_tables(PlotKind::Grenades, &selection, &data)?;
        let g = table(&tables, "grenades")?;
        let result = scene(PlotKind::Grenades, &tables, &selection, last);
        let any = ["grenades", "smokes", "infernos"]
            .iter()
            .map(|t| table(&tables, t).map(|t| t.rows()))
            .sum::<Result<usize>>()?;
        if any == 0 {
            match result {
                Err(PlotError::Empty {
                    what: "grenades", ..
                }) => continue,
                other => return Err(format!("{name}: {other:?}").into()),
            }
        }
        assert!(is_cs2, "{name}: grenades outside CS2");
        let s = result?;
        let mut detonations = std::collections::BTreeMap::new();
        for row in 0..g.rows() {
            let id = num(g, "grenade_id", row).unwrap_or(-1.0) as i64;
            if let (Some(x), Some(y)) = (num(g, "detonate_x", row), num(g, "detonate_y", row)) {
                let kind = text(g, "grenade_type", row);
                detonations.insert(id, ((x, y), style::grenade_color(kind.as_deref())));
            }
        }
        if name == "sample" {
            assert!(detonations.len() >= 3, "the sample's grenades");
        }
        let detonations: Vec<_> = detonations.into_values().collect();
        for format in formats() {
            let picture = render(&s, format, SIZE, None)?;
            let markers: Vec<_> = detonations
                .iter()
                .map(|&((x, y), c)| (pixel(&picture.axes, x, y), c))
                .collect();
            let (at, color) = clear_of_others(&markers, i64::from(style::DETONATION_RADIUS))
                .ok_or("every detonation overlaps another")?;
            check_dot(&picture, at, color, &format!("{name} grenades {format:?}"))?;
        }
    }
    Ok(())
}

#[test]
fn selections_narrow_the_rows_and_an_empty_one_is_an_error() -> Result<()> {
    let data = gamewire_synth::SAMPLE_DEMO;
    // A round: every position drawn lies in the round's ticks.
    let round = Selection {
        round: Some(2),
        ..Selection::default()
    };
    let (tables, last) = run_tables(PlotKind::Trails, &round, data)?;
    let rounds = table(&tables, "rounds")?;
    let range = gamewire_query::edit::round_range(rounds, 2, last)?;
    let ticks = table(&tables, "ticks")?;
    let in_round = (0..ticks.rows())
        .filter(|&r| {
            num(ticks, "tick", r).is_some_and(|t| (range.from..=range.to).contains(&(t as i32)))
                && num(ticks, "X", r).is_some()
        })
        .count();
    let s = scene(PlotKind::Trails, &tables, &round, last)?;
    let drawn: usize = s
        .marks
        .iter()
        .filter_map(|m| match m {
            gamewire_plot::Mark::Line { points, .. } => Some(points.len()),
            _ => None,
        })
        .sum();
    assert!(in_round > 0 && drawn == in_round, "{drawn} of {in_round}");
    // A round the demo does not have.
    let none = Selection {
        round: Some(99),
        ..Selection::default()
    };
    let (tables, last) = run_tables(PlotKind::Positions, &none, data)?;
    let err = scene(PlotKind::Positions, &tables, &none, last)
        .err()
        .ok_or("no error")?;
    assert!(
        err.is_usage() && err.to_string().contains("no round 99"),
        "{err}"
    );
    // Players by name and by steam id: one marker each.
    let players = Selection {
        players: Some(vec!["Ash".into(), "76561198000000006".into()]),
        ..Selection::default()
    };
    let (tables, last) = run_tables(PlotKind::Positions, &players, data)?;
    let s = scene(PlotKind::Positions, &tables, &players, last)?;
    assert_eq!(s.marks.len(), 2);
    // Nobody: a clear error.
    let nobody = Selection {
        ticks: Some(TickSet::parse("100..200")?),
        players: Some(vec!["Nobody".into()]),
        ..Selection::default()
    };
    let (tables, last) = run_tables(PlotKind::Positions, &nobody, data)?;
    let err = scene(PlotKind::Positions, &tables, &nobody, last)
        .err()
        .ok_or("no error")?;
    assert_eq!(
        err.to_string(),
        "no positions in ticks 100..200 for players Nobody"
    );
    assert!(err.is_usage());
    Ok(())
}

/// A radar PNG `w` x `h` in four quadrants of distinct colours.
fn quadrant_png(w: u32, h: u32) -> Result<(Vec<u8>, [Rgb; 4])> {
    let colors = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (200, 200, 30)];
    let mut pixels = Vec::new();
    for v in 0..h {
        for u in 0..w {
            let q = usize::from(u >= w / 2) + 2 * usize::from(v >= h / 2);
            let (r, g, b) = colors[q];
            pixels.extend_from_slice(&[r, g, b, 255]);
        }
    }
    let mut out = Vec::new();
    {
        let mut e = png::Encoder::new(&mut out, w, h);
        e.set_color(png::ColorType::Rgba);
        e.set_depth(png::BitDepth::Eight);
        let mut writer = e.write_header()?;
        writer.write_image_data(&pixels)?;
        writer.finish()?;
    }
    Ok((out, colors))
}

#[test]
fn a_radar_image_lies_under_the_plot_where_its_transform_puts_it() -> Result<()> {
    let data = gamewire_synth::SAMPLE_DEMO;
    let selection = Selection::default();
    let (tables, last) = run_tables(PlotKind::Positions, &selection, data)?;
    let s = scene(PlotKind::Positions, &tables, &selection, last)?;
    // A 64 x 48 image, 80 game units a pixel, its top left corner north
    // west of every position of the sample.
    let (png_bytes, colors) = quadrant_png(64, 48)?;
    let transform = MapTransform::parse("-3000,1500,80")?;
    let radar = Radar::decode(png_bytes.clone(), transform)?;
    assert_eq!(
        radar.world(),
        (-3000.0, 1500.0 - 48.0 * 80.0, -3000.0 + 64.0 * 80.0, 1500.0)
    );
    let picture = render(&s, ImageFormat::Png, SIZE, Some(&radar))?;
    let image = Rgbs::decode(&picture.bytes)?;
    // Sample the image's pixels over a grid of world points inside the
    // radar: each shows the radar's pixel there, except where the grid
    // lines and markers cover it.
    let (mut matched, mut total) = (0, 0);
    for i in 1..40 {
        for j in 1..30 {
            let (x, y) = (
                -3000.0 + f64::from(i) * 128.0,
                1500.0 - f64::from(j) * 128.0,
            );
            let (u, v) = ((x + 3000.0) / 80.0, (1500.0 - y) / 80.0);
            if (u - 32.0).abs() < 1.0 || (v - 24.0).abs() < 1.0 {
                continue; // on a quadrant boundary
            }
            let q = usize::from(u >= 32.0) + 2 * usize::from(v >= 24.0);
            total += 1;
            if image.at(pixel(&picture.axes, x, y)) == Some(colors[q]) {
                matched += 1;
            }
        }
    }
    assert!(matched * 10 >= total * 9, "{matched} of {total}");
    // The axes hold the whole radar image.
    let (x0, y0, x1, y1) = picture.axes.world;
    let (rx0, ry0, rx1, ry1) = radar.world();
    assert!(x0 <= rx0 && y0 <= ry0 && x1 >= rx1 && y1 >= ry1);
    // Markers are still drawn on top.
    let positions = last_positions(table(&tables, "ticks")?);
    let markers: Vec<_> = positions
        .iter()
        .map(|&((x, y), c)| (pixel(&picture.axes, x, y), c))
        .collect();
    let (at, color) =
        clear_of_others(&markers, i64::from(style::PLAYER_RADIUS)).ok_or("overlapping markers")?;
    check_dot(&picture, at, color, "radar png")?;
    // SVG: the PNG is embedded as given, over the radar's world rectangle.
    let svg_picture = render(&s, ImageFormat::Svg, SIZE, Some(&radar))?;
    let svg = std::str::from_utf8(&svg_picture.bytes)?;
    let images = svg_elements(svg, "image");
    let img = images.first().ok_or("no image in the SVG")?;
    let href = attr(img, "href").ok_or("no href")?;
    assert!(href.starts_with("data:image/png;base64,"));
    let (left, top) = pixel(&svg_picture.axes, rx0, ry1);
    let (right, bottom) = pixel(&svg_picture.axes, rx1, ry0);
    let n = |k| -> Result<f64> { Ok(attr(img, k).ok_or(k)?.parse::<f64>()?) };
    assert!((n("x")? - left as f64).abs() <= 1.0 && (n("y")? - top as f64).abs() <= 1.0);
    assert!((n("width")? - (right - left) as f64).abs() <= 1.0);
    assert!((n("height")? - (bottom - top) as f64).abs() <= 1.0);
    // The image comes before the grid and markers (drawn under them).
    let image_at = svg.find("<image").ok_or("no image")?;
    let first_circle = svg.find("<circle").ok_or("no circle")?;
    assert!(image_at < first_circle);
    check_dot(&svg_picture, at, color, "radar svg")?;
    Ok(())
}

#[test]
fn a_damaged_radar_image_and_bad_sizes_are_errors() -> Result<()> {
    let transform = MapTransform::parse("0,0,1")?;
    let (png_bytes, _) = quadrant_png(8, 8)?;
    let cut = png_bytes
        .get(..png_bytes.len() / 2)
        .ok_or("short")?
        .to_vec();
    assert!(Radar::decode(cut, transform).is_err());
    assert!(Radar::decode(b"not a png".to_vec(), transform).is_err());
    let missing = Radar::open(Path::new("no/such/radar.png"), transform)
        .err()
        .ok_or("no error")?;
    assert!(
        missing.to_string().starts_with("reading no/such/radar.png"),
        "{missing}"
    );
    for (w, h) in [(0, 100), (100, 63), (9000, 100)] {
        let err = gamewire_plot::check_size(w, h).err().ok_or("no error")?;
        assert!(err.is_usage(), "{err}");
    }
    assert!(ImageFormat::of_path(Path::new("x.jpg")).is_err());
    assert_eq!(ImageFormat::of_path(Path::new("x.SVG"))?, ImageFormat::Svg);
    Ok(())
}

#[test]
fn a_plot_is_written_atomically_and_a_cut_demo_plots_what_was_read() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("gamewire-plot-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let data = gamewire_synth::SAMPLE_DEMO;
    // The first 60% of the sample: plotted up to the cut, the cut told.
    let cut = data.get(..data.len() * 6 / 10).ok_or("short")?.to_vec();
    let input = gamewire_query::input::from_bytes("cut.dem", cut)?;
    let request = gamewire_plot::PlotRequest {
        kind: PlotKind::Positions,
        selection: Selection::default(),
        format: ImageFormat::Png,
        size: SIZE,
        radar: None,
    };
    let options = gamewire_query::RunOptions {
        keep_cut: true,
        ..Default::default()
    };
    let plotted = gamewire_plot::plot(&input, &request, options)?;
    assert!(plotted.cut.is_some());
    assert!(plotted.last_tick > 0);
    let out = dir.join("cut.png");
    gamewire_plot::write_atomic(&out, &plotted.picture.bytes)?;
    assert_eq!(std::fs::read(&out)?, plotted.picture.bytes);
    // The mode of a new file (the umask's), not a temporary file's 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out)?.permissions().mode() & 0o777;
        let created = dir.join("created");
        std::fs::write(&created, b"x")?;
        let expected = std::fs::metadata(&created)?.permissions().mode() & 0o777;
        std::fs::remove_file(&created)?;
        assert_eq!(mode, expected, "{mode:o}");
    }
    // Only the image is left in the folder: no temporary file.
    let names: Vec<_> = std::fs::read_dir(&dir)?
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    // A folder that does not exist: an error naming the file, nothing
    // written.
    let err = gamewire_plot::write_atomic(&dir.join("no/such/dir/x.png"), b"x")
        .err()
        .ok_or("no error")?;
    assert!(err.to_string().contains("no/such/dir/x.png"), "{err}");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// The built-in transforms put every position of the corpus's CS2 demos
/// inside the 1024 x 1024 radar image of the demo's map (the overview
/// images' size).
#[test]
fn built_in_transforms_hold_every_position_of_their_maps() -> Result<()> {
    let mut maps = Vec::new();
    for path in gamewire_corpus::source2_demos()? {
        if !path.display().to_string().contains("/cs2/") {
            continue;
        }
        let mut query = gamewire_plot::query(PlotKind::Positions, &Selection::default());
        query.tables.push(gamewire_query::TableKind::Header);
        let parsed = query.run(&std::fs::read(&path)?)?;
        let map = text(table(&parsed.tables, "header")?, "map", 0).ok_or("no map")?;
        let t = MapTransform::of_map(&map).ok_or_else(|| format!("no transform for {map}"))?;
        let (x0, x1) = (t.pos_x, t.pos_x + 1024.0 * t.scale);
        let (y0, y1) = (t.pos_y - 1024.0 * t.scale, t.pos_y);
        let ticks = table(&parsed.tables, "ticks")?;
        let mut seen = 0;
        for row in 0..ticks.rows() {
            if let (Some(x), Some(y)) = (num(ticks, "X", row), num(ticks, "Y", row)) {
                assert!(
                    (x0..=x1).contains(&x) && (y0..=y1).contains(&y),
                    "{map}: ({x}, {y}) outside {x0}..{x1}, {y0}..{y1}"
                );
                seen += 1;
            }
        }
        assert!(seen > 0, "{map}");
        maps.push(map);
    }
    assert_eq!(maps.len(), 5, "{maps:?}");
    Ok(())
}
