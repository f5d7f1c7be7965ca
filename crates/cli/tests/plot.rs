//! `gamewire plot`, end to end: every kind on the sample and on a corpus
//! demo, as PNG and SVG of the size asked for; a round, ticks and players;
//! a radar image; a demo cut short (plotted up to the cut, a warning); an
//! empty selection, an unknown round and a bad option (exit status 2, the
//! reason named, no file written).

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

fn gamewire(args: &[&str]) -> Result<Output> {
    Ok(Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(args)
        .output()?)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str) -> Result<PathBuf> {
    let d = std::env::temp_dir().join(format!("gamewire-plot-{}-{name}", std::process::id()));
    if d.exists() {
        std::fs::remove_dir_all(&d)?;
    }
    std::fs::create_dir_all(&d)?;
    Ok(d)
}

fn path_str(p: &Path) -> Result<&str> {
    p.to_str().ok_or_else(|| "a path that is not UTF-8".into())
}

/// A run that must succeed: its standard error.
fn ok(args: &[&str]) -> Result<String> {
    let out = gamewire(args)?;
    if !out.status.success() {
        return Err(format!("gamewire {args:?} failed: {}", text(&out.stderr)).into());
    }
    Ok(text(&out.stderr))
}

/// A run that must fail with `code`: its standard error.
fn fails(args: &[&str], code: i32) -> Result<String> {
    let out = gamewire(args)?;
    if out.status.code() != Some(code) {
        return Err(format!(
            "gamewire {args:?}: status {:?}, not {code}: {}",
            out.status.code(),
            text(&out.stderr)
        )
        .into());
    }
    Ok(text(&out.stderr))
}

/// The width and height a PNG's header gives.
fn png_size(bytes: &[u8]) -> Result<(u32, u32)> {
    let reader = png::Decoder::new(std::io::Cursor::new(bytes)).read_info()?;
    Ok((reader.info().width, reader.info().height))
}

/// The width and height an SVG's root element gives.
fn svg_size(svg: &str) -> Option<(u32, u32)> {
    let root = svg.split("<svg ").nth(1)?.split('>').next()?;
    let value = |name: &str| -> Option<u32> {
        root.split(&format!("{name}=\""))
            .nth(1)?
            .split('"')
            .next()?
            .parse()
            .ok()
    };
    Some((value("width")?, value("height")?))
}

fn check_image(path: &Path, size: (u32, u32)) -> Result<()> {
    let bytes = std::fs::read(path)?;
    let got = if path.extension().is_some_and(|e| e == "svg") {
        svg_size(std::str::from_utf8(&bytes)?).ok_or("no SVG size")?
    } else {
        png_size(&bytes)?
    };
    if got != size {
        return Err(format!("{}: {got:?}, not {size:?}", path.display()).into());
    }
    Ok(())
}

#[test]
fn every_kind_plots_the_sample_as_png_and_svg() -> Result<()> {
    let dir = scratch("kinds")?;
    for kind in ["positions", "trails", "heatmap", "kills", "grenades"] {
        for ext in ["png", "svg"] {
            let out = dir.join(format!("{kind}.{ext}"));
            ok(&[
                "plot",
                "--sample",
                "--kind",
                kind,
                "--width",
                "300",
                "--height",
                "200",
                "-o",
                path_str(&out)?,
            ])?;
            check_image(&out, (300, 200))?;
        }
    }
    // Only the images: no temporary file left.
    assert_eq!(std::fs::read_dir(&dir)?.count(), 10);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn a_corpus_demo_plots_positions_and_says_when_it_has_no_kills() -> Result<()> {
    let dir = scratch("corpus")?;
    let demo = gamewire_corpus::path("cs2/14065.dem");
    let out = dir.join("p.png");
    ok(&[
        "plot",
        path_str(&demo)?,
        "--kind",
        "trails",
        "-o",
        path_str(&out)?,
    ])?;
    check_image(&out, (1024, 1024))?;
    let none = dir.join("k.png");
    let err = fails(
        &[
            "plot",
            path_str(&demo)?,
            "--kind",
            "kills",
            "-o",
            path_str(&none)?,
        ],
        2,
    )?;
    assert!(err.contains("no kills in the demo"), "{err}");
    assert!(!none.exists());
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn selections_narrow_the_plot_and_an_empty_one_is_an_error() -> Result<()> {
    let dir = scratch("select")?;
    let out = dir.join("x.svg");
    let o = path_str(&out)?;
    ok(&[
        "plot",
        "--sample",
        "--kind",
        "positions",
        "--round",
        "2",
        "-o",
        o,
    ])?;
    ok(&[
        "plot",
        "--sample",
        "--kind",
        "kills",
        "--players",
        "Ash",
        "-o",
        o,
    ])?;
    ok(&[
        "plot", "--sample", "--kind", "trails", "--ticks", "100..900", "-o", o,
    ])?;
    // A player the ticks do not have: the selection is named, nothing
    // written.
    let gone = dir.join("gone.png");
    let err = fails(
        &[
            "plot",
            "--sample",
            "--kind",
            "positions",
            "--ticks",
            "100..200",
            "--players",
            "Nobody",
            "-o",
            path_str(&gone)?,
        ],
        2,
    )?;
    assert!(
        err.contains("no positions in ticks 100..200 for players Nobody"),
        "{err}"
    );
    assert!(!gone.exists());
    let err = fails(
        &[
            "plot",
            "--sample",
            "--kind",
            "positions",
            "--round",
            "99",
            "-o",
            path_str(&gone)?,
        ],
        2,
    )?;
    assert!(err.contains("no round 99"), "{err}");
    // An extension that names no image format.
    let err = fails(
        &[
            "plot",
            "--sample",
            "--kind",
            "positions",
            "-o",
            path_str(&dir.join("x.jpg"))?,
        ],
        2,
    )?;
    assert!(err.contains("name it .png or .svg"), "{err}");
    // --radar without --map-transform.
    fails(
        &[
            "plot",
            "--sample",
            "--kind",
            "positions",
            "--radar",
            "r.png",
            "-o",
            o,
        ],
        2,
    )?;
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn a_radar_image_goes_under_the_plot() -> Result<()> {
    let dir = scratch("radar")?;
    let radar = dir.join("radar.png");
    {
        let mut bytes = Vec::new();
        let mut e = png::Encoder::new(&mut bytes, 16, 16);
        e.set_color(png::ColorType::Rgb);
        e.set_depth(png::BitDepth::Eight);
        let mut w = e.write_header()?;
        w.write_image_data(&[40u8; 16 * 16 * 3])?;
        w.finish()?;
        std::fs::write(&radar, bytes)?;
    }
    for ext in ["png", "svg"] {
        let out = dir.join(format!("r.{ext}"));
        ok(&[
            "plot",
            "--sample",
            "--kind",
            "heatmap",
            "--radar",
            path_str(&radar)?,
            "--map-transform",
            "-3000,1500,300",
            "-o",
            path_str(&out)?,
        ])?;
        check_image(&out, (1024, 1024))?;
    }
    let svg = std::fs::read_to_string(dir.join("r.svg"))?;
    assert!(svg.contains("<image ") && svg.contains("data:image/png;base64,"));
    // A radar file that is not a PNG: exit 1, the file named.
    let bad = dir.join("bad.png");
    std::fs::write(&bad, b"not a png")?;
    let err = fails(
        &[
            "plot",
            "--sample",
            "--kind",
            "positions",
            "--radar",
            path_str(&bad)?,
            "--map-transform",
            "0,0,1",
            "-o",
            path_str(&dir.join("b.png"))?,
        ],
        1,
    )?;
    assert!(err.contains("bad.png"), "{err}");
    let err = fails(
        &[
            "plot",
            "--sample",
            "--kind",
            "positions",
            "--radar",
            path_str(&radar)?,
            "--map-transform",
            "0,0,0",
            "-o",
            path_str(&dir.join("b.png"))?,
        ],
        2,
    )?;
    assert!(err.contains("SCALE must be a positive number"), "{err}");
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn a_demo_cut_short_is_plotted_up_to_the_cut_with_a_warning() -> Result<()> {
    let dir = scratch("cut")?;
    let data = std::fs::read(gamewire_corpus::path("cs2/14065.dem"))?;
    let cut = dir.join("cut.dem");
    std::fs::write(&cut, data.get(..data.len() / 2).ok_or("short")?)?;
    let out = dir.join("cut.png");
    let err = ok(&[
        "plot",
        path_str(&cut)?,
        "--kind",
        "positions",
        "-o",
        path_str(&out)?,
    ])?;
    assert!(
        err.contains("warning:") && err.contains("the plot holds everything before the cut"),
        "{err}"
    );
    check_image(&out, (1024, 1024))?;
    // --strict: the image is still written, the exit status is 1.
    std::fs::remove_file(&out)?;
    fails(
        &[
            "--strict",
            "plot",
            path_str(&cut)?,
            "--kind",
            "positions",
            "-o",
            path_str(&out)?,
        ],
        1,
    )?;
    assert!(out.exists());
    // Not a demo at all.
    let junk = dir.join("junk.dem");
    std::fs::write(&junk, b"not a demo")?;
    fails(
        &[
            "plot",
            path_str(&junk)?,
            "--kind",
            "positions",
            "-o",
            path_str(&out)?,
        ],
        1,
    )?;
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// The README's plot pictures (`docs/images/plot-KIND.png`, made by
/// `scripts/screenshots.sh plots`) are what `gamewire plot` draws of the
/// sample today, byte for byte: plotters' bitmap for fixed input is fixed
/// and the plots draw no text. Each is also a picture: 640 x 480, not one
/// colour, small enough for a README.
#[test]
fn the_readme_plot_pictures_are_what_the_command_draws() -> Result<()> {
    let images = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/images");
    let dir = scratch("readme")?;
    for kind in ["positions", "trails", "heatmap", "kills", "grenades"] {
        let committed = std::fs::read(images.join(format!("plot-{kind}.png")))?;
        let out = dir.join(format!("{kind}.png"));
        ok(&[
            "plot",
            "--sample",
            "--kind",
            kind,
            "--width",
            "640",
            "--height",
            "480",
            "-o",
            path_str(&out)?,
        ])?;
        let made = std::fs::read(&out)?;
        assert!(
            made == committed,
            "docs/images/plot-{kind}.png is not what `gamewire plot` draws now: \
             run scripts/screenshots.sh plots"
        );
        assert_eq!(png_size(&committed)?, (640, 480));
        assert!(
            committed.len() < 100_000,
            "{kind}: {} bytes",
            committed.len()
        );
        let mut reader = png::Decoder::new(std::io::Cursor::new(&committed)).read_info()?;
        let mut pixels = vec![0; reader.output_buffer_size().ok_or("too big")?];
        let frame = reader.next_frame(&mut pixels)?;
        let pixels = pixels.get(..frame.buffer_size()).ok_or("short frame")?;
        let colours: std::collections::HashSet<&[u8]> = pixels.chunks(3).collect();
        assert!(colours.len() > 3, "{kind}: {} colours", colours.len());
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// The README's picture of the Teeworlds replay page
/// (`docs/images/viewer-teeworlds.png`, `scripts/screenshots.sh viewer`)
/// is a picture: a PNG the page's size, many colours, small enough.
#[test]
fn the_readme_viewer_picture_is_a_picture() -> Result<()> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/images/viewer-teeworlds.png");
    let bytes = std::fs::read(path)?;
    assert!(bytes.len() < 100_000, "{} bytes", bytes.len());
    let mut reader = png::Decoder::new(std::io::Cursor::new(&bytes)).read_info()?;
    let mut pixels = vec![0; reader.output_buffer_size().ok_or("too big")?];
    let frame = reader.next_frame(&mut pixels)?;
    assert_eq!((frame.width, frame.height), (1280, 960));
    let channels = frame.color_type.samples();
    let pixels = pixels.get(..frame.buffer_size()).ok_or("short frame")?;
    let colours: std::collections::HashSet<&[u8]> = pixels.chunks(channels).collect();
    assert!(colours.len() > 20, "{} colours", colours.len());
    Ok(())
}
