//! The replay viewer in a real browser (`web/tests/viewer.test.mjs`, the
//! system's Chromium driven by playwright-core), fed by this test: it
//! writes the plan (the sample, a corpus demo and a Zstandard-compressed
//! one opened through the file input, a damaged and a foreign file), with
//! the players' positions the `ticks` table gives at chosen ticks, runs
//! the script, and checks that the screenshots it took are not blank.
//!
//! It needs `.ci/setup-web.sh start` (Chromium, the wasm build in
//! `web/pkg`, the npm packages); without them it skips with a message, and
//! fails when `CI` is set, as the other suites that need a setup do.

use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

use gamewire_query::{Column, Query, TableKind};
use serde_json::{json, Value};

type TestResult = Result<(), Box<dyn Error>>;

fn root() -> PathBuf {
    gamewire_corpus::workspace_root()
}

/// What is missing for the browser test, if anything.
fn missing(root: &Path, chromium: &Path) -> Option<String> {
    let needs = [
        (chromium.to_path_buf(), "Chromium"),
        (root.join("web/pkg/gamewire_wasm_bg.wasm"), "the wasm build"),
        (root.join("web/sample.dem"), "the sample copied into web/"),
        (
            root.join("web/tests/node_modules/playwright-core/package.json"),
            "playwright-core",
        ),
    ];
    needs
        .iter()
        .find(|(p, _)| !p.exists())
        .map(|(p, what)| format!("{what} ({})", p.display()))
}

/// Per chosen tick, the positioned rows of the `ticks` table.
fn expected(bytes: &[u8], count: usize) -> Result<Vec<Value>, Box<dyn Error>> {
    let query = Query {
        tables: vec![TableKind::Ticks],
        player_props: vec!["X".into(), "Y".into()],
        ..Query::default()
    };
    let parsed = query.run(bytes)?;
    let table = parsed.tables.first().ok_or("no ticks table")?;
    let (
        Some(Column::I64(tick)),
        Some(Column::I64(slot)),
        Some(Column::F32(x)),
        Some(Column::F32(y)),
    ) = (
        table.column("tick"),
        table.column("slot"),
        table.column("X"),
        table.column("Y"),
    )
    else {
        return Err("the ticks table's columns".into());
    };
    let mut rows: BTreeMap<i64, Vec<Value>> = BTreeMap::new();
    for i in 0..tick.len() {
        if let (Some(Some(t)), Some(Some(s)), Some(Some(x)), Some(Some(y))) =
            (tick.get(i), slot.get(i), x.get(i), y.get(i))
        {
            rows.entry(*t)
                .or_default()
                .push(json!({ "slot": s, "x": x, "y": y }));
        }
    }
    let ticks: Vec<i64> = rows.keys().copied().collect();
    let chosen: BTreeSet<usize> = (0..count)
        .map(|k| (k + 1) * ticks.len() / (count + 1))
        .collect();
    Ok(chosen
        .into_iter()
        .filter_map(|i| {
            let t = *ticks.get(i)?;
            Some(json!({ "tick": t, "players": rows.get(&t)? }))
        })
        .collect())
}

/// Whether a PNG has more than a few colours (a drawn replay, not a blank
/// page or a single-colour canvas).
fn colours(path: &Path) -> Result<usize, Box<dyn Error>> {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path)?));
    let mut reader = decoder.read_info()?;
    let mut buf = vec![0; reader.output_buffer_size().ok_or("png size")?];
    let info = reader.next_frame(&mut buf)?;
    let channels = info.color_type.samples();
    let pixels = buf.get(..info.buffer_size()).ok_or("png buffer")?;
    let distinct: BTreeSet<&[u8]> = pixels.chunks(channels).collect();
    Ok(distinct.len())
}

#[test]
fn the_viewer_replays_demos_in_chromium() -> TestResult {
    let root = root();
    let chromium = PathBuf::from(
        std::env::var_os("GAMEWIRE_CHROMIUM").unwrap_or_else(|| "/usr/bin/chromium".into()),
    );
    if let Some(what) = missing(&root, &chromium) {
        if std::env::var_os("CI").is_some() {
            return Err(
                format!("the browser test needs {what}: run .ci/setup-web.sh start").into(),
            );
        }
        eprintln!("skipped: the browser test needs {what} (.ci/setup-web.sh start)");
        return Ok(());
    }
    let out = root.join("target/web-test");
    std::fs::create_dir_all(&out)?;

    let sample = std::fs::read(root.join("crates/synth/sample/sample.dem"))?;
    let corpus = gamewire_corpus::path("cs2/14065.dem");
    let corpus_bytes = std::fs::read(&corpus)?;
    let deadlock = gamewire_corpus::path("deadlock/hltv_10423.dem");
    let zst = out.join("14132.dem.zst");
    let zst_bytes = std::fs::read(gamewire_corpus::path("cs2/14132.dem"))?;
    std::fs::write(&zst, zstd::encode_all(&zst_bytes[..], 3)?)?;
    let damaged = out.join("damaged.dem");
    std::fs::write(
        &damaged,
        corpus_bytes.get(..corpus_bytes.len() / 3).ok_or("short")?,
    )?;
    let foreign = out.join("picture.dem");
    std::fs::write(
        &foreign,
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR this is not a demo",
    )?;

    let shot = |name: &str| out.join(name).display().to_string();
    let plan = json!({
        "chromium": chromium,
        "demos": [
            { "label": "sample", "open": "sample", "name": "sample.dem", "game": "cs2",
              "ticks": expected(&sample, 6)?, "screenshot": shot("sample.png"),
              "screenshotTick": 2000 },
            { "label": "corpus", "open": "file", "path": corpus, "name": "14065.dem", "game": "cs2",
              "ticks": expected(&corpus_bytes, 6)?, "screenshot": shot("14065.png"),
              "screenshotTick": 3000 },
            { "label": "zstd", "open": "file", "path": zst, "name": "14132.dem.zst", "game": "cs2",
              "ticks": expected(&zst_bytes, 4)? },
            { "label": "deadlock", "open": "file", "path": deadlock, "name": "hltv_10423.dem",
              "game": "deadlock", "ticks": expected(&std::fs::read(&deadlock)?, 3)? },
            { "label": "damaged", "open": "file", "path": damaged, "name": "damaged.dem", "error": true },
            { "label": "foreign", "open": "file", "path": foreign, "name": "picture.dem", "error": true },
            { "label": "sample again", "open": "sample", "name": "sample.dem", "game": "cs2",
              "ticks": expected(&sample, 2)? },
        ],
    });
    let plan_path = out.join("plan.json");
    std::fs::write(&plan_path, serde_json::to_vec_pretty(&plan)?)?;
    for name in ["sample.png", "14065.png"] {
        let _ = std::fs::remove_file(out.join(name));
    }

    let run = Command::new("node")
        .arg(root.join("web/tests/viewer.test.mjs"))
        .arg(&plan_path)
        .current_dir(&root)
        .output()?;
    let stdout = String::from_utf8_lossy(&run.stdout);
    println!("{stdout}");
    eprintln!("{}", String::from_utf8_lossy(&run.stderr));
    assert!(run.status.success(), "the browser test failed:\n{stdout}");
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
    for name in ["sample.png", "14065.png"] {
        let n = colours(&out.join(name))?;
        assert!(n > 20, "{name}: {n} colours, a blank screenshot");
    }
    Ok(())
}
