//! The Teeworlds replay model (`gamewire_query::tw_replay`) on demos the
//! real Teeworlds 0.7.5 server records (started by
//! `.ci/setup-teeworlds.sh start`): two clients join and chat while the
//! server records over its external console; at every snapshot, the
//! model's tees, pickups, projectiles, lasers and flags are the objects
//! `gamewire tw demo --objects --dump jsonl` prints, and its chat lines are
//! the clients' lines with their names. Then the viewer's Teeworlds page
//! plays the same demo in Chromium (`web/tests/teeworlds.test.mjs`): the
//! tees it draws are the model's. The demo is kept as
//! `target/tw-demos/server.demo`. Under `CI=true` a missing server or
//! browser setup fails the test; locally it is skipped with a message.

use std::collections::HashMap;
use std::error::Error;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use gamewire_query::tw_replay::TwReplay;
use serde_json::Value;

type Result<T = ()> = std::result::Result<T, Box<dyn Error>>;

/// A recorded demo's bytes and each client's (name, chat line).
type Recorded = (Vec<u8>, Vec<(String, String)>);

const REPO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn servers() -> HashMap<String, String> {
    std::fs::read_to_string(format!("{REPO}/target/tw-servers/servers.env"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            l.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        })
        .collect()
}

/// The vanilla server's external console: line-based TCP.
struct Econ {
    stream: TcpStream,
    seen: String,
}

impl Econ {
    fn login(addr: &str, password: &str) -> Result<Econ> {
        let stream = TcpStream::connect(addr)?;
        stream.set_read_timeout(Some(Duration::from_millis(200)))?;
        let mut econ = Econ {
            stream,
            seen: String::new(),
        };
        econ.wait_for("Enter password")?;
        econ.send(password)?;
        econ.wait_for("Authentication successful")?;
        Ok(econ)
    }

    fn send(&mut self, line: &str) -> Result {
        self.stream.write_all(format!("{line}\n").as_bytes())?;
        Ok(())
    }

    fn wait_for(&mut self, text: &str) -> Result {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut buf = [0u8; 4096];
        while !self.seen.contains(text) {
            if Instant::now() > deadline {
                return Err(format!("econ: no {text:?} in {:?}", self.seen).into());
            }
            match self.stream.read(&mut buf) {
                Ok(0) => return Err(format!("econ closed; saw {:?}", self.seen).into()),
                Ok(n) => self
                    .seen
                    .push_str(&String::from_utf8_lossy(buf.get(..n).unwrap_or_default())),
                Err(_) => {}
            }
        }
        if let Some(at) = self.seen.find(text) {
            self.seen = self.seen.split_off(at + text.len());
        }
        Ok(())
    }
}

fn join(addr: &str, name: &str, say: &str, seconds: &str, cache: &str) -> Result<Child> {
    Ok(Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args([
            "tw",
            "connect",
            addr,
            "--name",
            name,
            "--say",
            say,
            "--seconds",
            seconds,
            "--map-cache",
            cache,
            "--format",
            "jsonl",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?)
}

fn succeeded(out: Output, what: &str) -> Result<Vec<u8>> {
    if !out.status.success() {
        return Err(format!("{what}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(out.stdout)
}

/// Records a demo on the vanilla server with two clients in the game,
/// each saying one line: (demo bytes, [(name, line)]). `None` when no
/// server runs here.
fn record() -> Result<Option<Recorded>> {
    let s = servers();
    let (Some(addr), Some(econ), Some(password), Some(demos)) = (
        s.get("vanilla"),
        s.get("vanilla_econ"),
        s.get("vanilla_econ_password"),
        s.get("vanilla_demos"),
    ) else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            return Err("the vanilla Teeworlds server is not running: \
                        `.ci/setup-teeworlds.sh start` should have started it"
                .into());
        }
        println!("skipped: the vanilla Teeworlds 0.7.5 server is not running (.ci/setup-teeworlds.sh start)");
        return Ok(None);
    };
    let n = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .subsec_nanos();
    let name = format!("gamewire-replay-{n:08x}");
    let cache = std::env::temp_dir().join(format!("{name}-maps"));
    let cache_arg = cache.to_str().ok_or("path")?;
    let mut console = Econ::login(econ, password)?;
    console.send(&format!("record {name}"))?;
    console.wait_for("Recording to")?;
    let said = vec![
        ("replay-one".to_string(), format!("first line {n:x}")),
        ("replay-two".to_string(), format!("second line {n:x}")),
    ];
    let first = join(addr, &said[0].0, &said[0].1, "6", cache_arg)?;
    std::thread::sleep(Duration::from_millis(1500));
    let second = join(addr, &said[1].0, &said[1].1, "4", cache_arg)?;
    succeeded(second.wait_with_output()?, "the second client")?;
    succeeded(first.wait_with_output()?, "the first client")?;
    console.send("stoprecord")?;
    console.wait_for("Stopped recording")?;
    let _ = std::fs::remove_dir_all(&cache);
    let file = std::path::Path::new(demos).join(format!("{name}.demo"));
    let data = std::fs::read(&file)?;
    std::fs::remove_file(&file)?;
    let keep = std::path::Path::new(REPO).join("target/tw-demos");
    std::fs::create_dir_all(&keep)?;
    let tmp = keep.join(format!("{name}.tmp"));
    std::fs::write(&tmp, &data)?;
    std::fs::rename(&tmp, keep.join("server.demo"))?;
    Ok(Some((data, said)))
}

fn int(v: &Value, field: &str) -> Result<i64> {
    v["fields"][field]
        .as_i64()
        .ok_or_else(|| format!("no {field} in {v}").into())
}

/// The objects of `kind` in a dump's snapshot line, with `fields` read.
fn objects(line: &Value, kind: &str, fields: &[&str]) -> Result<Vec<Vec<i64>>> {
    let all = line["snapshot"]["objects"]
        .as_array()
        .ok_or("a snapshot without objects")?;
    all.iter()
        .filter(|o| o["type"] == kind)
        .map(|o| {
            let mut row = vec![o["id"].as_i64().ok_or("no id")?];
            for f in fields {
                row.push(int(o, f)?);
            }
            Ok(row)
        })
        .collect()
}

#[test]
fn a_demo_of_the_real_server_is_the_replay_of_its_snapshots() -> Result {
    let Some((data, said)) = record()? else {
        return Ok(());
    };
    let r = TwReplay::from_demo(&data)?;
    assert!(r.cut.is_none());
    assert_eq!(r.kind, "server");
    assert_eq!(r.map_name, "dm1");

    let path = std::env::temp_dir().join(format!("gamewire-replay-{}.demo", std::process::id()));
    std::fs::write(&path, &data)?;
    let out = Command::new(env!("CARGO_BIN_EXE_gamewire"))
        .args(["tw", "demo", path.to_str().ok_or("path")?])
        .args(["--objects", "--dump", "jsonl"])
        .output()?;
    std::fs::remove_file(&path)?;
    let dump: Vec<Value> = String::from_utf8(succeeded(out, "tw demo --dump")?)?
        .lines()
        .map(serde_json::from_str)
        .collect::<std::result::Result<_, _>>()?;
    let snapshots: Vec<&Value> = dump.iter().filter(|v| v["snapshot"].is_object()).collect();
    assert_eq!(snapshots.len(), r.frames());
    // Idle tees: a delta only where something changed (the joins, the
    // spawns and falls, the leaves), and a keyframe every 5 seconds.
    assert!(r.frames() >= 5, "{} snapshots", r.frames());

    let t = &r.tees;
    let (mut tee_rows, mut both) = (0, 0);
    for (f, line) in snapshots.iter().enumerate() {
        assert_eq!(line["tick"].as_i64(), Some(i64::from(r.ticks[f])));
        let want = objects(
            line,
            "character",
            &["x", "y", "angle", "direction", "weapon", "health", "armor"],
        )?;
        let got: Vec<Vec<i64>> = r
            .tees_of(f)
            .map(|i| {
                [
                    i64::from(t.client_id[i]),
                    i64::from(t.x[i]),
                    i64::from(t.y[i]),
                    i64::from(t.angle[i]),
                    i64::from(t.direction[i]),
                    i64::from(t.weapon[i]),
                    i64::from(t.health[i]),
                    i64::from(t.armor[i]),
                ]
                .to_vec()
            })
            .collect();
        assert_eq!(got, want, "tick {}", r.ticks[f]);
        tee_rows += got.len();
        both += usize::from(got.len() == 2);
        // Every tee is named: the server's info objects say who it is.
        for i in r.tees_of(f) {
            let name = r.player_name(t.player[i]).ok_or("a tee without a name")?;
            assert!(name.starts_with("replay-"), "{name}");
        }
        let p = &r.pickups;
        let got: Vec<Vec<i64>> = r
            .pickups_of(f)
            .map(|i| {
                vec![
                    i64::from(p.id[i]),
                    i64::from(p.x[i]),
                    i64::from(p.y[i]),
                    i64::from(p.kind[i]),
                ]
            })
            .collect();
        assert_eq!(got, objects(line, "pickup", &["x", "y", "type"])?);
        let pr = &r.projectiles;
        let got: Vec<Vec<i64>> = r
            .projectiles_of(f)
            .map(|i| vec![i64::from(pr.id[i]), i64::from(pr.start_x[i])])
            .collect();
        assert_eq!(got, objects(line, "projectile", &["x"])?);
        let l = &r.lasers;
        let got: Vec<Vec<i64>> = r
            .lasers_of(f)
            .map(|i| vec![i64::from(l.id[i]), i64::from(l.x[i])])
            .collect();
        assert_eq!(got, objects(line, "laser", &["x"])?);
        let fl = &r.flags;
        let got: Vec<Vec<i64>> = r
            .flags_of(f)
            .map(|i| vec![i64::from(fl.x[i]), i64::from(fl.y[i])])
            .collect();
        let want: Vec<Vec<i64>> = objects(line, "flag", &["x", "y"])?
            .into_iter()
            .map(|row| row.into_iter().skip(1).collect())
            .collect();
        assert_eq!(got, want);
    }
    println!(
        "{} bytes, {} snapshots, {tee_rows} tee rows ({both} snapshots with both tees), {} pickups in the first",
        data.len(),
        r.frames(),
        r.pickups_of(0).len()
    );
    assert!(both >= 3, "both tees in only {both} snapshots");
    // dm1 has pickups; the server demo knows every tee's health.
    assert!(!r.pickups_of(0).is_empty());
    assert!(t.health.iter().all(|&h| (0..=10).contains(&h)));
    assert!(t.health.iter().any(|&h| h > 0));

    // Both lines, each with its sender's name, in the order said.
    let chat: Vec<(Option<&str>, &str)> = r
        .chat
        .iter()
        .filter(|c| c.client_id >= 0)
        .map(|c| (r.player_name(c.player), c.message.as_str()))
        .collect();
    let want: Vec<(Option<&str>, &str)> = said
        .iter()
        .map(|(n, l)| (Some(n.as_str()), l.as_str()))
        .collect();
    assert_eq!(chat, want);
    let chat_ticks: Vec<i32> = r.chat.iter().map(|c| c.tick).collect();
    assert!(chat_ticks.windows(2).all(|w| w[0] <= w[1]));
    browser(&data, &r, &said)
}

/// What the Teeworlds page's browser test needs that is not here, if
/// anything (`.ci/setup-web.sh` provides it all).
fn browser_missing(root: &Path) -> Option<String> {
    let needs = [
        (PathBuf::from("/usr/bin/chromium"), "Chromium"),
        (root.join("web/pkg/gamewire_wasm_bg.wasm"), "the wasm build"),
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

/// The Teeworlds page in Chromium (`web/tests/teeworlds.test.mjs`): the
/// recorded demo opened through the file input, played and seeked; at
/// snapshots with tees, the tees drawn are where the model puts them; a
/// damaged demo shows the parser's message; no console errors; the
/// screenshot (`target/web-screenshots/teeworlds.png`) is not blank.
fn browser(data: &[u8], r: &TwReplay, said: &[(String, String)]) -> Result {
    let root = Path::new(REPO).canonicalize()?;
    if let Some(what) = browser_missing(&root) {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            return Err(
                format!("{what} is missing: `.ci/setup-web.sh` should have made it").into(),
            );
        }
        println!("browser part skipped: {what} is missing (.ci/setup-web.sh)");
        return Ok(());
    }
    let dir = std::env::temp_dir().join(format!("gamewire-tw-web-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let demo = dir.join("server.demo");
    std::fs::write(&demo, data)?;
    let damaged = dir.join("damaged.demo");
    let mut bad = data.to_vec();
    if let Some(version) = bad.get_mut(7) {
        *version = 9;
    }
    std::fs::write(&damaged, &bad)?;
    // Snapshots with the most tees, spread over the demo.
    let most = (0..r.frames())
        .map(|f| r.tees_of(f).len())
        .max()
        .unwrap_or(0);
    let frames: Vec<usize> = (0..r.frames())
        .filter(|&f| most > 0 && r.tees_of(f).len() == most)
        .collect();
    let step = (frames.len() / 4).max(1);
    let t = &r.tees;
    let ticks: Vec<Value> = frames
        .iter()
        .step_by(step)
        .map(|&f| {
            let tees: Vec<Value> = r
                .tees_of(f)
                .map(|i| {
                    serde_json::json!({
                        "clientId": t.client_id[i],
                        "x": t.x[i],
                        "y": t.y[i],
                        "name": r.player_name(t.player[i]),
                    })
                })
                .collect();
            serde_json::json!({ "tick": r.ticks[f], "tees": tees })
        })
        .collect();
    assert!(!ticks.is_empty(), "no snapshot with tees");
    let shots = root.join("target/web-screenshots");
    std::fs::create_dir_all(&shots)?;
    let screenshot = shots.join("teeworlds.png");
    let last_chat = r.chat.last().map_or(0, |c| c.tick);
    let shot_tick = frames
        .iter()
        .map(|&f| r.ticks[f])
        .find(|&tick| tick >= last_chat)
        .or_else(|| frames.last().map(|&f| r.ticks[f]))
        .unwrap_or(0);
    let plan = serde_json::json!({
        "chromium": "/usr/bin/chromium",
        "demos": [
            {
                "label": "recorded demo",
                "path": demo,
                "name": "server.demo",
                "chat": said.first().map(|(_, line)| line.as_str()),
                "ticks": ticks,
                "screenshot": screenshot,
                "screenshotTick": shot_tick,
            },
            {
                "label": "damaged demo",
                "path": damaged,
                "name": "damaged.demo",
                "error": "version 9",
            },
        ],
    });
    let plan_path = dir.join("plan.json");
    std::fs::write(&plan_path, serde_json::to_vec_pretty(&plan)?)?;
    let out = Command::new("node")
        .arg(root.join("web/tests/teeworlds.test.mjs"))
        .arg(&plan_path)
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    if !out.status.success() {
        return Err(format!(
            "the browser test failed: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    // The screenshot is a picture: more than a few colours.
    let bytes = std::fs::read(&screenshot)?;
    let mut reader = png::Decoder::new(std::io::Cursor::new(&bytes)).read_info()?;
    let mut pixels = vec![0; reader.output_buffer_size().ok_or("too big")?];
    let frame = reader.next_frame(&mut pixels)?;
    let channels = frame.color_type.samples();
    let pixels = pixels.get(..frame.buffer_size()).ok_or("short frame")?;
    let colours: std::collections::HashSet<&[u8]> = pixels.chunks(channels).collect();
    assert!(
        colours.len() > 20,
        "a blank screenshot: {} colours",
        colours.len()
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}
