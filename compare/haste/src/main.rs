//! haste against gamewire, a full parse each, on Deadlock and Dota 2 demos.
//!
//! haste is driven as its own benchmark tool drives it (a `DemoFile` over a
//! reader, `Parser::run_to_end`), with a visitor that takes its entity and
//! packet callbacks (every entity update and every packet message) and counts
//! them. gamewire runs the full parse `compare/` times against source2-demo:
//! every entity and every game event, on one thread.
//!
//! ```text
//! gamewire-compare-haste haste|ours FILE [N]   # one side, N parses (default 1),
//!                                              # for whole-process time and peak RSS
//! gamewire-compare-haste bench [--rounds N] FILE...
//! ```
//!
//! `haste` reads the file through a `BufReader` as haste's own tool does;
//! `ours` reads it whole and parses it. `bench` reads each file into memory
//! once and alternates the two sides round by round (default 10 rounds), each
//! from the same bytes, keeping each side's best time; it prints MB/s, the
//! ratio of the bests and the median of the rounds' own ratios.

use std::cell::Cell;
use std::fs::File;
use std::io::{BufReader, Cursor, Read, Seek};
use std::rc::Rc;
use std::time::{Duration, Instant};

use haste::demofile::DemoFile;
use haste::entities::{DeltaHeader, Entity};
use haste::parser::{Context, Parser, Visitor};

/// What a parse saw: entity updates and packet messages (haste) or game
/// events (gamewire).
type Counts = (u64, u64);

/// haste owns its visitor and gives no way back to it: the counts live in
/// cells shared with the caller.
#[derive(Default, Clone)]
struct HasteVisitor {
    entities: Rc<Cell<u64>>,
    packets: Rc<Cell<u64>>,
}

impl Visitor for HasteVisitor {
    fn on_entity(&mut self, _ctx: &Context, _h: DeltaHeader, _e: &Entity) -> anyhow::Result<()> {
        self.entities.set(self.entities.get() + 1);
        Ok(())
    }
    fn on_packet(&mut self, _ctx: &Context, _t: u32, _data: &[u8]) -> anyhow::Result<()> {
        self.packets.set(self.packets.get() + 1);
        Ok(())
    }
}

fn haste_parse<R: Read + Seek>(reader: R) -> Result<Counts, String> {
    let demo = DemoFile::start_reading(reader).map_err(|e| e.to_string())?;
    let v = HasteVisitor::default();
    let mut parser =
        Parser::from_stream_with_visitor(demo, v.clone()).map_err(|e| e.to_string())?;
    parser.run_to_end().map_err(|e| e.to_string())?;
    Ok((v.entities.get(), v.packets.get()))
}

#[derive(Default)]
struct OursVisitor {
    entities: u64,
    events: u64,
}

impl gamewire_source2::Visitor for OursVisitor {
    fn interests(&self) -> gamewire_source2::Interests {
        gamewire_source2::Interests {
            entities: true,
            game_events: true,
            ..gamewire_source2::Interests::NONE
        }
    }
    fn on_entity(
        &mut self,
        _s: &gamewire_source2::DemoState,
        _c: gamewire_source2::EntityChange,
        _e: &gamewire_source2::Entity,
        _p: &[gamewire_source2::FieldPath],
    ) {
        self.entities += 1;
    }
    fn on_game_event(
        &mut self,
        _s: &gamewire_source2::DemoState,
        _e: &gamewire_source2::GameEvent,
    ) {
        self.events += 1;
    }
}

fn ours(data: &[u8]) -> Result<Counts, String> {
    let mut v = OursVisitor::default();
    let mut parser = gamewire_source2::DemoParser::new(data)
        .map_err(|e| e.to_string())?
        .with_helper_thread(false);
    parser.run(&mut v).map_err(|e| e.to_string())?;
    Ok((v.entities, v.events))
}

fn timed(f: impl FnOnce() -> Result<Counts, String>) -> Result<(Duration, Counts), String> {
    let t = Instant::now();
    let counts = f()?;
    Ok((t.elapsed(), counts))
}

fn bench(rounds: usize, paths: &[String]) -> bool {
    println!(
        "{:<28} {:>8} {:>26} {:>26} {:>7} {:>8}",
        "demo", "MB", "gamewire, one thread", "haste 20e0501", "ratio", "median"
    );
    let mut ok = true;
    for path in paths {
        let data = match std::fs::read(path) {
            Ok(d) => d,
            Err(e) => {
                println!("{path}: {e}");
                ok = false;
                continue;
            }
        };
        let mb = data.len() as f64 / 1e6;
        let (mut a, mut b) = (Duration::MAX, Duration::MAX);
        let mut ratios = Vec::with_capacity(rounds);
        let mut failed = None;
        for _ in 0..rounds.max(1) {
            let o = timed(|| ours(&data));
            let h = timed(|| haste_parse(Cursor::new(&data[..])));
            match (o, h) {
                (Ok((o, _)), Ok((h, _))) => {
                    a = a.min(o);
                    b = b.min(h);
                    ratios.push(h.as_secs_f64() / o.as_secs_f64());
                }
                (o, h) => {
                    failed = Some(format!("gamewire {:?}, haste {:?}", o.err(), h.err()));
                    break;
                }
            }
        }
        let name = std::path::Path::new(path)
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        if let Some(e) = failed {
            println!("{name:<28} {mb:>8.1} {e}");
            ok = false;
            continue;
        }
        ratios.sort_by(f64::total_cmp);
        let median = ratios.get(ratios.len() / 2).copied().unwrap_or(0.0);
        let fmt = |t: Duration| {
            format!(
                "{:.1} MB/s ({:.0} ms)",
                mb / t.as_secs_f64(),
                t.as_secs_f64() * 1e3
            )
        };
        println!(
            "{name:<28} {mb:>8.1} {:>26} {:>26} {:>6.2}x {:>7.2}x",
            fmt(a),
            fmt(b),
            b.as_secs_f64() / a.as_secs_f64(),
            median
        );
    }
    ok
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: gamewire-compare-haste haste|ours FILE [N] | bench [--rounds N] FILE...";
    match args.get(1).map(String::as_str) {
        Some("bench") => {
            let mut rounds = 10;
            let mut paths = Vec::new();
            let mut rest = args.iter().skip(2);
            while let Some(a) = rest.next() {
                if a == "--rounds" {
                    rounds = rest.next().and_then(|n| n.parse().ok()).unwrap_or(rounds);
                } else {
                    paths.push(a.clone());
                }
            }
            std::process::exit(if bench(rounds, &paths) { 0 } else { 1 });
        }
        Some(which @ ("haste" | "ours")) => {
            let Some(path) = args.get(2) else {
                eprintln!("{usage}");
                std::process::exit(2);
            };
            let n: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(1);
            let mut r = Err("not run".to_string());
            for _ in 0..n.max(1) {
                r = if which == "haste" {
                    File::open(path)
                        .map_err(|e| e.to_string())
                        .and_then(|f| haste_parse(BufReader::new(f)))
                } else {
                    std::fs::read(path)
                        .map_err(|e| e.to_string())
                        .and_then(|d| ours(&d))
                };
            }
            println!("{which} {path}: {r:?}");
            std::process::exit(if r.is_ok() { 0 } else { 1 });
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}
