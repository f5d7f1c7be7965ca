//! A radar image under the plot, placed by the map's transform.
//!
//! The game's radar overview files (CS2's `resource/overviews/<map>.txt`,
//! read by awpy as its map data) give each map's radar image a transform
//! of three numbers: `pos_x`, `pos_y` (the world point at the image's top
//! left corner) and `scale` (game units per image pixel). A world point
//! `(x, y)` lies at image pixel
//!
//! ```text
//! u = (x - pos_x) / scale
//! v = (pos_y - y) / scale
//! ```
//!
//! so an image `w` x `h` covers world `x` from `pos_x` to `pos_x + w *
//! scale` and `y` from `pos_y - h * scale` to `pos_y`. gamewire ships no
//! map image: the user gives one (`--radar`) with its transform
//! (`--map-transform X,Y,SCALE`), or the name of a map whose transform is
//! built in ([`BUILT_IN`]: the numbers of the CS2 overview files of the
//! corpus's maps and of the competitive pool, as awpy's map data and the
//! public radar projects reproduce them).
//!
//! The image is a PNG of any colour type and depth (expanded to 8-bit
//! RGBA); one over [`MAX_PIXELS`] pixels is refused before its pixels are
//! read, so a hostile header cannot ask for gigabytes.

use std::path::Path;

use crate::error::PlotError;
use crate::render::Axes;

/// The largest radar image read: 64 million pixels (256 MB as RGBA).
pub const MAX_PIXELS: u64 = 64 * 1024 * 1024;

/// A map's radar transform: the world point at the image's top left
/// corner and the game units per image pixel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapTransform {
    /// World `x` of the image's left edge.
    pub pos_x: f64,
    /// World `y` of the image's top edge.
    pub pos_y: f64,
    /// Game units per image pixel.
    pub scale: f64,
}

/// Built-in transforms: CS2 map name, `pos_x`, `pos_y`, `scale`, from
/// each map's `resource/overviews/<map>.txt` (the upper level of a map
/// with two).
pub const BUILT_IN: &[(&str, f64, f64, f64)] = &[
    ("cs_italy", -2647.0, 2592.0, 4.6),
    ("de_ancient", -2953.0, 2164.0, 5.0),
    ("de_dust2", -2476.0, 3239.0, 4.4),
    ("de_inferno", -2087.0, 3870.0, 4.9),
    ("de_mirage", -3230.0, 1713.0, 5.0),
    ("de_nuke", -3453.0, 2887.0, 7.0),
    ("de_overpass", -4831.0, 1781.0, 5.2),
    ("de_train", -2308.0, 2078.0, 4.082077),
    ("de_vertigo", -3168.0, 1762.0, 4.0),
];

impl MapTransform {
    /// The built-in transform of a map ([`BUILT_IN`]).
    pub fn of_map(name: &str) -> Option<MapTransform> {
        BUILT_IN
            .iter()
            .find(|(map, ..)| *map == name)
            .map(|&(_, pos_x, pos_y, scale)| MapTransform {
                pos_x,
                pos_y,
                scale,
            })
    }

    /// Parses `X,Y,SCALE` (three numbers; the scale positive), or the name
    /// of a map whose transform is built in (`de_dust2`).
    pub fn parse(text: &str) -> Result<MapTransform, PlotError> {
        if let Some(t) = MapTransform::of_map(text.trim()) {
            return Ok(t);
        }
        let bad = |reason| PlotError::Transform {
            text: text.to_string(),
            reason,
        };
        let numbers: Vec<f64> = text
            .split(',')
            .map(|s| s.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .map_err(|_| bad(NOT_THREE))?;
        let [pos_x, pos_y, scale] = numbers[..] else {
            return Err(bad(NOT_THREE));
        };
        if !(pos_x.is_finite() && pos_y.is_finite()) {
            return Err(bad("X and Y must be finite"));
        }
        if !(scale.is_finite() && scale > 0.0) {
            return Err(bad("SCALE must be a positive number"));
        }
        Ok(MapTransform {
            pos_x,
            pos_y,
            scale,
        })
    }
}

/// The error of a transform that is neither three numbers nor a map name.
const NOT_THREE: &str = "give three numbers, X,Y,SCALE, or a map name (cs_italy, de_ancient, de_dust2, de_inferno, de_mirage, de_nuke, de_overpass, de_train, de_vertigo)";

/// A radar image, decoded, with its transform.
#[derive(Debug, Clone)]
pub struct Radar {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// 8-bit RGBA pixels, row by row.
    pub rgba: Vec<u8>,
    /// The PNG file as given (embedded as is in an SVG).
    pub png: Vec<u8>,
    /// Where it lies in the world.
    pub transform: MapTransform,
}

impl Radar {
    /// Reads a radar PNG from a file.
    pub fn open(path: &Path, transform: MapTransform) -> Result<Radar, PlotError> {
        let png = std::fs::read(path).map_err(|source| PlotError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Radar::decode(png, transform).map_err(|reason| PlotError::Radar {
            path: path.to_path_buf(),
            reason,
        })
    }

    /// Decodes a radar PNG; the error is the decoder's reason.
    pub fn decode(png: Vec<u8>, transform: MapTransform) -> Result<Radar, String> {
        let mut decoder = png::Decoder::new_with_limits(
            std::io::Cursor::new(&png[..]),
            png::Limits {
                bytes: (MAX_PIXELS * 8) as usize,
            },
        );
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
        let (width, height) = {
            let info = reader.info();
            (info.width, info.height)
        };
        if u64::from(width) * u64::from(height) > MAX_PIXELS {
            return Err(format!(
                "{width}x{height} pixels is more than the {MAX_PIXELS} read"
            ));
        }
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| "the image is too large".to_string())?;
        let mut buffer = vec![0u8; size];
        let frame = reader.next_frame(&mut buffer).map_err(|e| e.to_string())?;
        let data = buffer.get(..frame.buffer_size()).unwrap_or(&buffer);
        let rgba: Vec<u8> = match frame.color_type {
            png::ColorType::Rgba => data.to_vec(),
            png::ColorType::Rgb => data
                .chunks_exact(3)
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect(),
            png::ColorType::GrayscaleAlpha => data
                .chunks_exact(2)
                .flat_map(|p| [p[0], p[0], p[0], p[1]])
                .collect(),
            png::ColorType::Grayscale => data.iter().flat_map(|&g| [g, g, g, 255]).collect(),
            png::ColorType::Indexed => {
                return Err("an indexed image the decoder did not expand".to_string())
            }
        };
        if rgba.len() != width as usize * height as usize * 4 {
            return Err("the decoded pixels do not fill the image".to_string());
        }
        Ok(Radar {
            width,
            height,
            rgba,
            png,
            transform,
        })
    }

    /// The world rectangle the image covers: `(x0, y0, x1, y1)`.
    pub fn world(&self) -> (f64, f64, f64, f64) {
        let t = self.transform;
        (
            t.pos_x,
            t.pos_y - f64::from(self.height) * t.scale,
            t.pos_x + f64::from(self.width) * t.scale,
            t.pos_y,
        )
    }

    /// The image pixel under a world point, if inside the image.
    fn sample(&self, x: f64, y: f64) -> Option<[u8; 4]> {
        let t = self.transform;
        let u = ((x - t.pos_x) / t.scale).floor();
        let v = ((t.pos_y - y) / t.scale).floor();
        if u < 0.0 || v < 0.0 || u >= f64::from(self.width) || v >= f64::from(self.height) {
            return None;
        }
        let i = (v as usize * self.width as usize + u as usize) * 4;
        let p = self.rgba.get(i..i + 4)?;
        Some([p[0], p[1], p[2], p[3]])
    }

    /// Paints the image into an RGB buffer `width` x `height` under the
    /// plot area of `axes`: each pixel of the area takes the image pixel
    /// under its centre, blended by the image's alpha.
    pub fn paint(&self, buffer: &mut [u8], (width, height): (u32, u32), axes: &Axes) {
        let (left, top, right, bottom) = axes.area;
        let rows = (top.floor().max(0.0) as u32)..(bottom.ceil().min(f64::from(height)) as u32);
        let cols = (left.floor().max(0.0) as u32)..(right.ceil().min(f64::from(width)) as u32);
        for py in rows {
            for px in cols.clone() {
                let (x, y) = axes.unproject(f64::from(px) + 0.5, f64::from(py) + 0.5);
                let Some([r, g, b, a]) = self.sample(x, y) else {
                    continue;
                };
                let i = (py as usize * width as usize + px as usize) * 3;
                if let Some(dst) = buffer.get_mut(i..i + 3) {
                    let a = u16::from(a);
                    for (d, s) in dst.iter_mut().zip([r, g, b]) {
                        *d = ((u16::from(s) * a + u16::from(*d) * (255 - a)) / 255) as u8;
                    }
                }
            }
        }
    }

    /// An SVG with the image embedded (a PNG data URI) right after its
    /// background, stretched over the world rectangle it covers.
    pub fn embed_in_svg(&self, svg: &str, axes: &Axes) -> String {
        let (x0, y0, x1, y1) = self.world();
        let (left, top) = axes.project(x0, y1);
        let (right, bottom) = axes.project(x1, y0);
        let image = format!(
            "<image x=\"{left}\" y=\"{top}\" width=\"{}\" height=\"{}\" preserveAspectRatio=\"none\" href=\"data:image/png;base64,{}\"/>\n",
            right - left,
            bottom - top,
            base64(&self.png)
        );
        // The background is the first element: `<rect .../>` after the
        // `<svg ...>` tag.
        let at = svg
            .find("<rect")
            .and_then(|r| svg[r..].find("/>").map(|e| r + e + 2))
            .map(|end| end + usize::from(svg[end..].starts_with('\n')));
        match at {
            Some(at) => format!("{}{image}{}", &svg[..at], &svg[at..]),
            None => svg.to_string(),
        }
    }
}

/// Standard base64 (RFC 4648) with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected);
        }
    }

    #[test]
    fn transform_parses_three_numbers_with_a_positive_scale() -> Result<(), PlotError> {
        let t = MapTransform::parse("-2476, 3239, 4.4")?;
        assert_eq!((t.pos_x, t.pos_y, t.scale), (-2476.0, 3239.0, 4.4));
        assert_eq!(MapTransform::parse("de_dust2")?, t);
        // Every built-in name is listed in the error of a bad transform.
        for (map, ..) in BUILT_IN {
            assert!(NOT_THREE.contains(map), "{map}");
        }
        for bad in [
            "1,2", "1,2,3,4", "a,b,c", "1,2,0", "1,2,-1", "1,2,inf", "nan,2,3",
        ] {
            assert!(
                matches!(MapTransform::parse(bad), Err(PlotError::Transform { .. })),
                "{bad}"
            );
        }
        Ok(())
    }
}
