//! From a scene to an image: the projection and the drawing.
//!
//! # The projection
//!
//! The plot area is the image less a [`MARGIN`] on each side. Its world
//! rectangle ([`Axes::world`]) is fitted to the scene's points (and to
//! the radar image's extent, when one is drawn): their bounds, grown by 5%
//! of the longer side on every side (at least [`MIN_SPAN`] game units
//! across), then widened on one axis so that one game unit is as many
//! pixels across as down (a map is never stretched). A point `(x, y)`
//! lands at
//!
//! ```text
//! px = left + (x - x0) / (x1 - x0) * (right - left)
//! py = top  + (y1 - y) / (y1 - y0) * (bottom - top)
//! ```
//!
//! rounded to the nearest pixel: world `y` grows north, up the image.
//!
//! # The drawing
//!
//! plotters draws the marks in pixel coordinates, into an RGB buffer (PNG,
//! encoded by the `png` crate) or into SVG text; both backends get the same
//! calls, so both pictures hold the same marks at the same pixels. First
//! the background and the radar image (resampled to the area, nearest
//! pixel, in the bitmap; an embedded `<image>` in the SVG), then a grid at
//! a round number of game units, the frame, and the marks in order. No
//! text is drawn: the image needs no font.

use plotters::backend::RGBPixel;
use plotters::prelude::*;
use plotters::style::RGBAColor;

use crate::error::PlotError;
use crate::radar::Radar;
use crate::scene::{Mark, Point, Scene};
use crate::style::{self, Rgb};
use crate::ImageFormat;

/// Pixels between the image's edge and the plot area.
pub const MARGIN: u32 = 12;
/// The smallest world span drawn across (game units): a scene of one
/// point still gets a map-sized neighbourhood.
pub const MIN_SPAN: f64 = 256.0;

/// Where the world is in the picture: the world rectangle drawn and the
/// pixel rectangle it is drawn into.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axes {
    /// West, south, east, north edges in game units: `(x0, y0, x1, y1)`.
    pub world: (f64, f64, f64, f64),
    /// The plot area in pixels: `(left, top, right, bottom)`.
    pub area: (f64, f64, f64, f64),
}

impl Axes {
    /// The axes of a picture `width` x `height` holding the world
    /// rectangle `bounds` (`(x0, y0, x1, y1)`): grown, then made of equal
    /// scale (see the module's documentation).
    pub fn fit(bounds: (f64, f64, f64, f64), width: u32, height: u32) -> Axes {
        let (left, top) = (f64::from(MARGIN), f64::from(MARGIN));
        let right = f64::from(width.saturating_sub(MARGIN)).max(left + 1.0);
        let bottom = f64::from(height.saturating_sub(MARGIN)).max(top + 1.0);
        let (x0, y0, x1, y1) = bounds;
        let span = (x1 - x0).max(y1 - y0).max(MIN_SPAN);
        let pad = span * 0.05;
        let (mut w, mut h) = (
            (x1 - x0).max(MIN_SPAN) + 2.0 * pad,
            (y1 - y0).max(MIN_SPAN) + 2.0 * pad,
        );
        let (pw, ph) = (right - left, bottom - top);
        // Equal scale: the side that needs more game units per pixel sets it.
        let per_pixel = (w / pw).max(h / ph);
        w = per_pixel * pw;
        h = per_pixel * ph;
        let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
        Axes {
            world: (cx - w / 2.0, cy - h / 2.0, cx + w / 2.0, cy + h / 2.0),
            area: (left, top, right, bottom),
        }
    }

    /// The pixel of a world point, unrounded.
    pub fn project(&self, x: f64, y: f64) -> (f64, f64) {
        let (x0, y0, x1, y1) = self.world;
        let (left, top, right, bottom) = self.area;
        (
            left + (x - x0) / (x1 - x0) * (right - left),
            top + (y1 - y) / (y1 - y0) * (bottom - top),
        )
    }

    /// The pixel of a world point, rounded to the nearest.
    pub fn pixel(&self, (x, y): Point) -> (i32, i32) {
        let (px, py) = self.project(f64::from(x), f64::from(y));
        (px.round() as i32, py.round() as i32)
    }

    /// The world point at the centre of pixel `(px, py)`.
    pub fn unproject(&self, px: f64, py: f64) -> (f64, f64) {
        let (x0, y0, x1, y1) = self.world;
        let (left, top, right, bottom) = self.area;
        (
            x0 + (px - left) / (right - left) * (x1 - x0),
            y1 - (py - top) / (bottom - top) * (y1 - y0),
        )
    }
}

/// A picture made: its bytes and where the world lies in it.
#[derive(Debug, Clone)]
pub struct Picture {
    /// The PNG file or SVG text.
    pub bytes: Vec<u8>,
    /// The projection the marks were drawn with.
    pub axes: Axes,
    /// The format of `bytes`.
    pub format: ImageFormat,
    /// The size in pixels.
    pub size: (u32, u32),
}

/// Draws a scene as a `width` x `height` picture, over a radar image when
/// one is given.
pub fn render(
    scene: &Scene,
    format: ImageFormat,
    (width, height): (u32, u32),
    radar: Option<&Radar>,
) -> Result<Picture, PlotError> {
    crate::check_size(width, height)?;
    let (mut x0, mut y0, mut x1, mut y1) = scene.bounds().map_or((0.0, 0.0, 0.0, 0.0), |b| {
        (
            f64::from(b.0),
            f64::from(b.1),
            f64::from(b.2),
            f64::from(b.3),
        )
    });
    if let Some(r) = radar {
        let (rx0, ry0, rx1, ry1) = r.world();
        if scene.bounds().is_none() {
            (x0, y0, x1, y1) = (rx0, ry0, rx1, ry1);
        }
        (x0, y0, x1, y1) = (x0.min(rx0), y0.min(ry0), x1.max(rx1), y1.max(ry1));
    }
    let axes = Axes::fit((x0, y0, x1, y1), width, height);
    let bytes = match format {
        ImageFormat::Png => {
            let mut buffer = vec![0u8; width as usize * height as usize * 3];
            fill(&mut buffer, style::BACKGROUND);
            if let Some(r) = radar {
                r.paint(&mut buffer, (width, height), &axes);
            }
            {
                let backend =
                    BitMapBackend::<RGBPixel>::with_buffer_and_format(&mut buffer, (width, height))
                        .map_err(|e| PlotError::Draw(e.to_string()))?;
                draw(backend, scene, &axes, false)?;
            }
            encode_png(&buffer, width, height)?
        }
        ImageFormat::Svg => {
            let mut text = String::new();
            {
                let backend = SVGBackend::with_string(&mut text, (width, height));
                draw(backend, scene, &axes, true)?;
            }
            if let Some(r) = radar {
                text = r.embed_in_svg(&text, &axes);
            }
            text.into_bytes()
        }
    };
    Ok(Picture {
        bytes,
        axes,
        format,
        size: (width, height),
    })
}

fn fill(buffer: &mut [u8], (r, g, b): Rgb) {
    for px in buffer.chunks_exact_mut(3) {
        px.copy_from_slice(&[r, g, b]);
    }
}

fn rgb((r, g, b): Rgb) -> RGBColor {
    RGBColor(r, g, b)
}

fn translucent(c: Rgb, alpha: f64) -> RGBAColor {
    rgb(c).mix(alpha)
}

/// A round step of game units giving about eight grid lines across the
/// longer side: 1, 2 or 5 times a power of ten.
fn grid_step(span: f64) -> f64 {
    let raw = span / 8.0;
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * power)
}

fn draw<B: DrawingBackend>(
    backend: B,
    scene: &Scene,
    axes: &Axes,
    background: bool,
) -> Result<(), PlotError> {
    let root = backend.into_drawing_area();
    let err = |e: DrawingAreaErrorKind<B::ErrorType>| PlotError::Draw(e.to_string());
    if background {
        // The bitmap's background (and radar) is painted into its buffer.
        root.fill(&rgb(style::BACKGROUND)).map_err(err)?;
    }
    let (x0, y0, x1, y1) = axes.world;
    let (left, top, right, bottom) = axes.area;
    let (l, t, r, b) = (
        left.round() as i32,
        top.round() as i32,
        right.round() as i32,
        bottom.round() as i32,
    );
    let step = grid_step((x1 - x0).max(y1 - y0));
    let grid = ShapeStyle::from(&rgb(style::GRID)).stroke_width(1);
    let mut gx = (x0 / step).ceil() * step;
    while gx <= x1 {
        let (px, _) = axes.project(gx, y0);
        let px = px.round() as i32;
        root.draw(&PathElement::new(vec![(px, t), (px, b)], grid))
            .map_err(err)?;
        gx += step;
    }
    let mut gy = (y0 / step).ceil() * step;
    while gy <= y1 {
        let (_, py) = axes.project(x0, gy);
        let py = py.round() as i32;
        root.draw(&PathElement::new(vec![(l, py), (r, py)], grid))
            .map_err(err)?;
        gy += step;
    }
    root.draw(&Rectangle::new(
        [(l, t), (r, b)],
        ShapeStyle::from(&rgb(style::FRAME)).stroke_width(1),
    ))
    .map_err(err)?;
    for mark in &scene.marks {
        match mark {
            Mark::Dot { at, color, radius } => {
                let c = axes.pixel(*at);
                root.draw(&Circle::new(c, *radius, rgb(*color).filled()))
                    .map_err(err)?;
                root.draw(&Circle::new(
                    c,
                    *radius,
                    ShapeStyle::from(&rgb(style::OUTLINE)).stroke_width(1),
                ))
                .map_err(err)?;
            }
            Mark::Ring { at, color, radius } => {
                let c = axes.pixel(*at);
                root.draw(&Circle::new(
                    c,
                    *radius,
                    ShapeStyle::from(&rgb(*color)).stroke_width(2),
                ))
                .map_err(err)?;
            }
            Mark::Line {
                points,
                color,
                width,
            } => {
                let mut pixels: Vec<(i32, i32)> = points.iter().map(|p| axes.pixel(*p)).collect();
                pixels.dedup();
                if pixels.len() >= 2 {
                    let s = ShapeStyle::from(&translucent(*color, style::LINE_ALPHA))
                        .stroke_width(*width);
                    root.draw(&PathElement::new(pixels, s)).map_err(err)?;
                }
            }
            Mark::Heat { points } => draw_heat(&root, points, axes).map_err(err)?,
        }
    }
    root.present().map_err(err)?;
    Ok(())
}

/// The heatmap: positions counted in square cells of [`style::HEAT_CELL`]
/// pixels laid from the plot area's top left corner (a position counts in
/// the cell of the pixel it lands at); each cell holding any is filled
/// with [`style::heat_color`] of its count.
fn draw_heat<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    points: &[Point],
    axes: &Axes,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (left, top, right, bottom) = axes.area;
    let cell = f64::from(style::HEAT_CELL);
    let cols = ((right - left) / cell).ceil().max(1.0) as usize;
    let rows = ((bottom - top) / cell).ceil().max(1.0) as usize;
    let mut counts = vec![0u32; cols * rows];
    for &p in points {
        // The pixel the point lands at (rounded, as a marker's centre).
        let (px, py) = axes.pixel(p);
        let (px, py) = (f64::from(px), f64::from(py));
        let (c, r) = (((px - left) / cell).floor(), ((py - top) / cell).floor());
        if c < 0.0 || r < 0.0 || c >= cols as f64 || r >= rows as f64 {
            continue;
        }
        if let Some(n) = counts.get_mut(r as usize * cols + c as usize) {
            *n = n.saturating_add(1);
        }
    }
    let max = counts.iter().copied().max().unwrap_or(0);
    for (i, &n) in counts.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let (c, r) = ((i % cols) as f64, (i / cols) as f64);
        let x = (left + c * cell).round() as i32;
        let y = (top + r * cell).round() as i32;
        let x2 = ((left + (c + 1.0) * cell).min(right)).round() as i32;
        let y2 = ((top + (r + 1.0) * cell).min(bottom)).round() as i32;
        let color = translucent(style::heat_color(n, max), 0.85);
        root.draw(&Rectangle::new([(x, y), (x2, y2)], color.filled()))?;
    }
    Ok(())
}

/// An RGB buffer as a PNG file (8-bit RGB, default compression).
fn encode_png(buffer: &[u8], width: u32, height: u32) -> Result<Vec<u8>, PlotError> {
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder
            .write_header()
            .map_err(|e| PlotError::Encode(e.to_string()))?;
        writer
            .write_image_data(buffer)
            .map_err(|e| PlotError::Encode(e.to_string()))?;
        writer
            .finish()
            .map_err(|e| PlotError::Encode(e.to_string()))?;
    }
    Ok(out)
}
