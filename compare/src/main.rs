//! Times a full parse (every entity and game event) of each CS2 corpus demo
//! with gamewire and with source2-demo 0.5.10 in the same run, alternating
//! the sides run by run for 60 rounds and keeping each side's best time,
//! and prints MB/s and the ratio of the bests, and the median of the
//! rounds' own ratios ("paired median": with the helper / on one thread).
//! gamewire is timed twice: as a library
//! user gets it (the send tables built with its helper thread during the
//! signon) and on one thread only. `--only ours|ours1|peer|rewrite FILE [N]` parses one file (`ours1`: on one thread; `rewrite`: `edit::rewrite` into memory)
//! N times (default once: for measuring peak memory per process with
//! `/usr/bin/time -f %M`; more for a profiler). source2-demo's panics are
//! caught and reported as failures, without their backtraces.
//! `--edited [DIR]` has source2-demo read each demo rewritten and cut by
//! gamewire's writer (see `edited`). `--rewrite [N]` times gamewire's
//! `edit::rewrite` against its own full parse (see `rewrite_speed`).
//! `--floor FILE [N]` puts a full parse next to its floor (see `floor`).
//! `--rewrite-to DIR [DEMO...]` writes each corpus demo (or each DEMO)
//! rewritten into DIR, to compare a writer's output before and after a change.
//! `--rounds N PATH...` times these demos (files or folders) with N rounds
//! instead of 60 (match-length demos).
//!
//! source2-demo reads one game per build, chosen by its cargo feature; so
//! does this binary: `cs2` (the default), `deadlock` or `dota`
//! (`cargo build --release --no-default-features --features deadlock`).
//! source2-demo also installs mimalloc as the process's allocator, so both
//! sides here allocate with mimalloc.

use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use source2_demo::prelude::*;

#[derive(Default)]
struct PeerObserver {
    entities: u64,
    events: u64,
}

impl Observer for PeerObserver {
    fn interests(&self) -> Interests {
        Interests::ENTITY_STATE | Interests::ENTITY_EVENTS | Interests::BASE_GAME_EVENT
    }
    fn on_entity(
        &mut self,
        _ctx: &Context,
        _event: EntityEvents,
        _entity: &Entity,
    ) -> ObserverResult {
        self.entities += 1;
        Ok(())
    }
    fn on_game_event(&mut self, _ctx: &Context, _ge: &GameEvent) -> ObserverResult {
        self.events += 1;
        Ok(())
    }
}

/// gamewire's side of a full parse: entity updates, field values (one per
/// changed path) and game events counted.
#[derive(Default)]
struct OursVisitor {
    entities: u64,
    fields: u64,
    events: u64,
}

impl gamewire_source2::Visitor for OursVisitor {
    // What the peer's observer asks for: entities and game events.
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
        p: &[gamewire_source2::FieldPath],
    ) {
        self.entities += 1;
        self.fields += p.len() as u64;
    }
    fn on_game_event(
        &mut self,
        _s: &gamewire_source2::DemoState,
        _e: &gamewire_source2::GameEvent,
    ) {
        self.events += 1;
    }
}

fn ours(data: &[u8]) -> Result<(u64, u64), String> {
    ours_with(data, true)
}

/// A full parse; `helper`: whether the send tables may be built on the
/// library's helper thread and this one together (the default), or on this
/// thread only.
fn ours_with(data: &[u8], helper: bool) -> Result<(u64, u64), String> {
    let mut v = OursVisitor::default();
    let mut parser = gamewire_source2::DemoParser::new(data)
        .map_err(|e| e.to_string())?
        .with_helper_thread(helper);
    parser.run(&mut v).map_err(|e| e.to_string())?;
    Ok((v.entities, v.events))
}

fn peer(data: &[u8]) -> Result<(u64, u64), String> {
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| -> Result<(u64, u64), String> {
        let mut parser = Parser::from_slice(data).map_err(|e| e.to_string())?;
        let obs = parser.register_observer::<PeerObserver>();
        parser.run_to_end().map_err(|e| e.to_string())?;
        let o = obs.borrow();
        Ok((o.entities, o.events))
    }));
    match result {
        Ok(r) => r,
        Err(_) => Err("panicked".to_string()),
    }
}

/// One timed parse: its time and its (entity, event) counts, or why it
/// failed.
type Timed = Result<(Duration, (u64, u64)), String>;

/// Rounds per demo; each side keeps its best time.
const ROUNDS: usize = 60;

fn best(n: usize, mut f: impl FnMut() -> Result<(u64, u64), String>) -> Timed {
    let mut best = Duration::MAX;
    let mut counts = (0, 0);
    for _ in 0..n {
        let t = Instant::now();
        counts = f()?;
        best = best.min(t.elapsed());
    }
    Ok((best, counts))
}

/// `--edited DIR`: each demo of DIR rewritten and cut (its middle third)
/// by gamewire's writer, then read by source2-demo: the rewritten demo must
/// give the peer the same entity and event counts as the original, and the
/// cut demo must read without an error (on the demos the peer reads as the
/// game wrote them). Prints one line per demo.
fn edited(dir: &str) -> bool {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "dem"))
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    let mut ok = !paths.is_empty();
    for p in paths {
        let data = std::fs::read(&p).unwrap_or_default();
        let mut rewritten = std::io::Cursor::new(Vec::new());
        let rewrite = gamewire_source2::edit::rewrite(&data[..], &mut rewritten);
        let last = {
            let mut parser = match gamewire_source2::DemoParser::new(&data) {
                Ok(parser) => parser,
                Err(e) => {
                    println!("{}: {e}", p.display());
                    ok = false;
                    continue;
                }
            };
            let _ = parser.run(&mut gamewire_source2::NoVisitor);
            parser.state.tick
        };
        let range = gamewire_source2::edit::TickRange {
            from: last / 3,
            to: last * 2 / 3,
        };
        let mut cut = std::io::Cursor::new(Vec::new());
        let cut_result = gamewire_source2::edit::cut(&data[..], &mut cut, range);
        let original = peer(&data);
        let (rewritten, cut) = match (rewrite, cut_result) {
            (Ok(_), Ok(_)) => (peer(rewritten.get_ref()), peer(cut.get_ref())),
            (r, c) => {
                println!("{}: rewrite {:?}, cut {:?}", p.display(), r.err(), c.err());
                ok = false;
                continue;
            }
        };
        // The peer panics on some demos; what it cannot read as written
        // by the game is not held against the writer.
        let verdict = if original.is_err() {
            "the peer does not read the original"
        } else if original == rewritten && cut.is_ok() {
            "as the original"
        } else {
            ok = false;
            "DIFFERENT"
        };
        println!(
            "{}: source2-demo reads the original {original:?}, the rewritten demo {rewritten:?}, \
             the cut of ticks {}..{} {cut:?}: {verdict}",
            p.display(),
            range.from,
            range.to
        );
    }
    ok
}

/// The CPU time this process has used (every thread), from
/// `clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`: on a machine shared with
/// other work, CPU time varies much less than wall time.
#[cfg(target_os = "linux")]
fn cpu_time() -> Duration {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec of the C layout.
    let rc = unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(t.sec.max(0) as u64, t.nsec.clamp(0, 999_999_999) as u32)
}

#[cfg(not(target_os = "linux"))]
fn cpu_time() -> Duration {
    Duration::ZERO
}

/// `--rewrite [N]`: for each CS2, Deadlock and Dota 2 corpus demo, the best
/// of N (default 10) rounds of a full parse (entities and game events) and of
/// `edit::rewrite` into memory, alternated round by round; prints both
/// speeds and the rewrite's share of the parse's throughput, by wall time
/// and by the process's CPU time (steadier on a busy machine).
fn rewrite_speed(rounds: usize) -> bool {
    let mut paths = Vec::new();
    for game in ["cs2", "deadlock", "dota2"] {
        let dir = format!("../../shared/corpus/{game}");
        if let Ok(d) = std::fs::read_dir(&dir) {
            let mut found: Vec<_> = d
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "dem"))
                .collect();
            found.sort();
            paths.extend(found);
        }
    }
    let mut ok = !paths.is_empty();
    println!(
        "{:<28} {:>6} {:>24} {:>24} {:>7} {:>10} {:>10} {:>7}",
        "demo", "KB", "parse", "rewrite", "ratio", "parse cpu", "rw cpu", "cpu"
    );
    for p in paths {
        let data = std::fs::read(&p).unwrap_or_default();
        let mb = data.len() as f64 / 1e6;
        let (mut parse, mut rewrite) = (Duration::MAX, Duration::MAX);
        let (mut parse_cpu, mut rewrite_cpu) = (Duration::MAX, Duration::MAX);
        let mut failed = None;
        for _ in 0..rounds.max(1) {
            let (t, c) = (Instant::now(), cpu_time());
            if let Err(e) = ours(&data) {
                failed = Some(format!("parse: {e}"));
                break;
            }
            parse = parse.min(t.elapsed());
            parse_cpu = parse_cpu.min(cpu_time().saturating_sub(c));
            let mut out = std::io::Cursor::new(Vec::with_capacity(data.len() * 2));
            let (t, c) = (Instant::now(), cpu_time());
            if let Err(e) = gamewire_source2::edit::rewrite(&data[..], &mut out) {
                failed = Some(format!("rewrite: {e}"));
                break;
            }
            rewrite = rewrite.min(t.elapsed());
            rewrite_cpu = rewrite_cpu.min(cpu_time().saturating_sub(c));
        }
        let name = p
            .strip_prefix("../../shared/corpus/")
            .unwrap_or(&p)
            .display()
            .to_string();
        if let Some(e) = failed {
            println!("{name:<28} {:>6} {e}", data.len() / 1000);
            ok = false;
            continue;
        }
        let fmt = |t: Duration| {
            format!(
                "{:.1} MB/s ({:.1} ms)",
                mb / t.as_secs_f64(),
                t.as_secs_f64() * 1e3
            )
        };
        let ms = |t: Duration| format!("{:.1} ms", t.as_secs_f64() * 1e3);
        println!(
            "{name:<28} {:>6} {:>24} {:>24} {:>6.2}x {:>10} {:>10} {:>6.2}x",
            data.len() / 1000,
            fmt(parse),
            fmt(rewrite),
            parse.as_secs_f64() / rewrite.as_secs_f64(),
            ms(parse_cpu),
            ms(rewrite_cpu),
            parse_cpu.as_secs_f64() / rewrite_cpu.as_secs_f64().max(1e-9)
        );
    }
    ok
}

/// The frames of a demo as they lie in the file: (compressed, raw payload),
/// read by the library's frame reader without decompressing them.
fn raw_frames(data: &[u8]) -> Vec<(bool, &[u8])> {
    let Ok(mut reader) = gamewire_source2::container::FrameReader::new(data) else {
        return Vec::new();
    };
    std::iter::from_fn(|| reader.next_raw())
        .map(|(_, _, compressed, raw)| (compressed, raw))
        .collect()
}

/// Copies `total` bytes through a 1 MiB buffer (in cache: the fastest a
/// byte can be moved); returns the time.
fn copy_time(total: u64) -> Duration {
    const CHUNK: usize = 1 << 20;
    let from = vec![7u8; CHUNK];
    let mut to = vec![0u8; CHUNK];
    let t = Instant::now();
    let mut left = total;
    while left > 0 {
        let n = left.min(CHUNK as u64) as usize;
        to[..n].copy_from_slice(&from[..n]);
        std::hint::black_box(&mut to);
        left -= n as u64;
    }
    t.elapsed()
}

/// `--floor FILE [N]`: a full parse on one thread next to what it cannot go
/// below, best of N rounds (default 3) each, alternated: snappy alone
/// decompressing every compressed frame of the file (the `snap` crate,
/// into one reused buffer), a copy of every decompressed byte, and a copy
/// of the decoded state (one `Value` per decoded field, counted in the
/// parse). Prints each in seconds and as MB/s of the file.
fn floor(path: &str, rounds: usize) -> bool {
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) => {
            println!("{path}: {e}");
            return false;
        }
    };
    let mb = data.len() as f64 / 1e6;
    let frames = raw_frames(&data);
    let mut decoder = snap::raw::Decoder::new();
    let mut out = Vec::new();
    let (mut parse, mut snappy, mut copy_out, mut copy_state) =
        (Duration::MAX, Duration::MAX, Duration::MAX, Duration::MAX);
    let mut counts = OursVisitor::default();
    let mut decompressed = 0u64;
    let state_bytes =
        |c: &OursVisitor| c.fields * std::mem::size_of::<gamewire_source2::Value>() as u64;
    for _ in 0..rounds.max(1) {
        let t = Instant::now();
        let mut c = OursVisitor::default();
        let parsed = gamewire_source2::DemoParser::new(&data)
            .map(|p| p.with_helper_thread(false))
            .and_then(|mut p| p.run(&mut c));
        if let Err(e) = parsed {
            println!("{path}: {e}");
            return false;
        }
        parse = parse.min(t.elapsed());
        counts = c;
        let t = Instant::now();
        decompressed = 0;
        for (compressed, raw) in &frames {
            if !compressed {
                decompressed += raw.len() as u64;
                continue;
            }
            let len = snap::raw::decompress_len(raw).unwrap_or(0);
            if out.len() < len {
                out.resize(len, 0);
            }
            match decoder.decompress(raw, &mut out) {
                Ok(n) => decompressed += n as u64,
                Err(e) => {
                    println!("{path}: snappy: {e}");
                    return false;
                }
            }
        }
        snappy = snappy.min(t.elapsed());
        copy_out = copy_out.min(copy_time(decompressed));
        copy_state = copy_state.min(copy_time(state_bytes(&counts)));
    }
    let line = |what: &str, t: Duration| {
        println!(
            "  {what:<46} {:>8.3} s {:>9.1} MB/s {:>6.1}% of the parse",
            t.as_secs_f64(),
            mb / t.as_secs_f64(),
            100.0 * t.as_secs_f64() / parse.as_secs_f64()
        );
    };
    println!(
        "{path}: {mb:.1} MB, {} frames ({} compressed), {:.1} MB decompressed; \
         {} entity updates, {} fields decoded ({:.1} per update), {} game events; best of {}",
        frames.len(),
        frames.iter().filter(|f| f.0).count(),
        decompressed as f64 / 1e6,
        counts.entities,
        counts.fields,
        counts.fields as f64 / counts.entities.max(1) as f64,
        counts.events,
        rounds.max(1)
    );
    line("full parse, one thread (entities + events)", parse);
    line("snappy alone, every compressed frame", snappy);
    line("copy of every decompressed byte", copy_out);
    line(
        &format!(
            "copy of the decoded state ({} B a field)",
            std::mem::size_of::<gamewire_source2::Value>()
        ),
        copy_state,
    );
    line("floor: the three together", snappy + copy_out + copy_state);
    println!(
        "  parse / floor: {:.2}x; parse without snappy: {:.1} ns a field",
        parse.as_secs_f64() / (snappy + copy_out + copy_state).as_secs_f64(),
        (parse.saturating_sub(snappy)).as_secs_f64() * 1e9 / counts.fields.max(1) as f64
    );
    true
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--rewrite-to") {
        // Writes each corpus demo rewritten into DIR (to compare writers).
        let Some(dir) = args.get(2) else {
            eprintln!("usage: --rewrite-to DIR [DEMO...]");
            std::process::exit(2);
        };
        let mut ok = true;
        // The demos named after DIR, else every corpus demo.
        let mut paths: Vec<std::path::PathBuf> =
            args.iter().skip(3).map(std::path::PathBuf::from).collect();
        if paths.is_empty() {
            for game in ["cs2", "deadlock", "dota2"] {
                let Ok(d) = std::fs::read_dir(format!("../../shared/corpus/{game}")) else {
                    continue;
                };
                paths.extend(
                    d.flatten()
                        .map(|e| e.path())
                        .filter(|p| p.extension().is_some_and(|x| x == "dem")),
                );
            }
        }
        for p in paths {
            let data = std::fs::read(&p).unwrap_or_default();
            let mut out = std::io::Cursor::new(Vec::new());
            let name = p.file_name().map(|n| n.to_string_lossy().to_string());
            match gamewire_source2::edit::rewrite(&data[..], &mut out) {
                Ok(_) => {
                    let to = std::path::Path::new(dir).join(name.unwrap_or_default());
                    ok &= std::fs::write(to, out.get_ref()).is_ok();
                }
                Err(e) => {
                    println!("{}: {e}", p.display());
                    ok = false;
                }
            }
        }
        std::process::exit(if ok { 0 } else { 1 });
    }
    if args.get(1).map(String::as_str) == Some("--rewrite") {
        let rounds = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(10);
        std::process::exit(if rewrite_speed(rounds) { 0 } else { 1 });
    }
    if args.get(1).map(String::as_str) == Some("--floor") {
        let Some(path) = args.get(2) else {
            eprintln!("usage: --floor FILE [N]");
            std::process::exit(2);
        };
        let rounds = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(3);
        std::process::exit(if floor(path, rounds) { 0 } else { 1 });
    }
    if args.get(1).map(String::as_str) == Some("--edited") {
        std::panic::set_hook(Box::new(|_| {}));
        let dir = args
            .get(2)
            .map_or("../../shared/corpus/cs2", String::as_str);
        std::process::exit(if edited(dir) { 0 } else { 1 });
    }
    if args.get(1).map(String::as_str) == Some("--only") {
        let (Some(which), Some(path)) = (args.get(2), args.get(3)) else {
            eprintln!("usage: --only ours|ours1|peer|rewrite FILE [N]");
            std::process::exit(2);
        };
        let n: usize = args.get(4).and_then(|n| n.parse().ok()).unwrap_or(1);
        let data = std::fs::read(path).unwrap_or_default();
        let mut r = Err("not run".to_string());
        for _ in 0..n {
            r = if which == "rewrite" {
                let mut out = std::io::Cursor::new(Vec::with_capacity(data.len() * 2));
                gamewire_source2::edit::rewrite(&data[..], &mut out)
                    .map(|r| (r.frames_read, r.frames_written))
                    .map_err(|e| e.to_string())
            } else if which == "ours" {
                ours(&data)
            } else if which == "ours1" {
                ours_with(&data, false)
            } else {
                peer(&data)
            };
        }
        println!("{which} {path}: {r:?}");
        return;
    }
    // source2-demo panics on some demos; `peer` reports those as failures.
    std::panic::set_hook(Box::new(|_| {}));
    // `--rounds N PATH...`: these demos (or the demos of these folders), N
    // rounds each (a match-length demo takes seconds a parse).
    let (rounds, targets) = if args.get(1).map(String::as_str) == Some("--rounds") {
        let n = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(ROUNDS);
        (n, args.iter().skip(3).cloned().collect::<Vec<_>>())
    } else {
        (ROUNDS, args.iter().skip(1).take(1).cloned().collect())
    };
    let targets = if targets.is_empty() {
        vec!["../../shared/corpus/cs2".to_string()]
    } else {
        targets
    };
    let mut paths = Vec::new();
    for t in &targets {
        let p = std::path::PathBuf::from(t);
        if p.is_dir() {
            let mut found: Vec<_> = std::fs::read_dir(&p)
                .map(|d| {
                    d.flatten()
                        .map(|e| e.path())
                        .filter(|p| p.extension().is_some_and(|x| x == "dem"))
                        .collect()
                })
                .unwrap_or_default();
            found.sort();
            paths.extend(found);
        } else {
            paths.push(p);
        }
    }
    let (mut ours_bytes, mut ours_time, mut peer_bytes, mut peer_time, mut ours_on_peer_time) =
        (0u64, Duration::ZERO, 0u64, Duration::ZERO, Duration::ZERO);
    let mut single_on_peer_time = Duration::ZERO;
    println!(
        "{:<16} {:>5} {:>24} {:>24} {:>24} {:>7} {:>7} {:>15}",
        "demo",
        "KB",
        "gamewire",
        "gamewire, one thread",
        "source2-demo 0.5.10",
        "ratio",
        "1 thr.",
        "paired median"
    );
    for p in paths {
        let data = std::fs::read(&p).unwrap_or_default();
        let mb = data.len() as f64 / 1e6;
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        // Alternated, one run of each per round, so a change in the
        // machine's load touches both sides alike. Besides each side's
        // best, each round's own ratios (the peer's time over ours, both
        // taken within a few milliseconds) are kept: their median moves
        // less with the machine's load than a ratio of two bests taken at
        // different moments.
        let (mut o, mut q) = (best(1, || ours(&data)), best(1, || peer(&data)));
        let mut single = best(1, || ours_with(&data, false));
        let mut paired: Vec<(f64, f64)> = Vec::with_capacity(rounds);
        let pair = |a: &Timed, s: &Timed, b: &Timed| match (a, s, b) {
            (Ok((a, _)), Ok((s, _)), Ok((b, _))) => Some((
                b.as_secs_f64() / a.as_secs_f64(),
                b.as_secs_f64() / s.as_secs_f64(),
            )),
            _ => None,
        };
        paired.extend(pair(&o, &single, &q));
        for _ in 1..rounds.max(1) {
            let a = best(1, || ours(&data));
            let s = best(1, || ours_with(&data, false));
            let b = best(1, || peer(&data));
            paired.extend(pair(&a, &s, &b));
            if let (Ok(best), Ok(now)) = (&mut o, a) {
                best.0 = best.0.min(now.0);
            }
            if let (Ok(best), Ok(now)) = (&mut single, s) {
                best.0 = best.0.min(now.0);
            }
            if let (Ok(best), Ok(now)) = (&mut q, b) {
                best.0 = best.0.min(now.0);
            }
        }
        let median = |mut v: Vec<f64>| -> Option<f64> {
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied()
        };
        let paired_text = match (
            median(paired.iter().map(|p| p.0).collect()),
            median(paired.iter().map(|p| p.1).collect()),
        ) {
            (Some(h), Some(one)) => format!("{h:.2}x / {one:.2}x"),
            _ => "-".into(),
        };
        let fmt = |r: &Timed| match r {
            Ok((t, _)) => format!(
                "{:.1} MB/s ({:.1} ms)",
                mb / t.as_secs_f64(),
                t.as_secs_f64() * 1e3
            ),
            Err(e) => format!("failed: {}", e.chars().take(40).collect::<String>()),
        };
        let ratio = |o: &Timed| match (o, &q) {
            (Ok((a, _)), Ok((b, _))) => format!("{:.2}x", b.as_secs_f64() / a.as_secs_f64()),
            _ => "-".into(),
        };
        println!(
            "{name:<16} {:>5} {:>24} {:>24} {:>24} {:>7} {:>7} {:>15}",
            data.len() / 1000,
            fmt(&o),
            fmt(&single),
            fmt(&q),
            ratio(&o),
            ratio(&single),
            paired_text
        );
        if let (Ok((t, _)), Ok(_)) = (&single, &q) {
            single_on_peer_time += *t;
        }
        if let Ok((t, _)) = o {
            ours_bytes += data.len() as u64;
            ours_time += t;
            if let Ok((tq, _)) = q {
                peer_bytes += data.len() as u64;
                peer_time += tq;
                ours_on_peer_time += t;
            }
        }
    }
    if peer_bytes > 0 {
        println!(
            "on the demos both read: gamewire {:.1} MB/s, source2-demo {:.1} MB/s, ratio {:.2}x (one thread: {:.1} MB/s, {:.2}x); gamewire on all: {:.1} MB/s",
            peer_bytes as f64 / 1e6 / ours_on_peer_time.as_secs_f64(),
            peer_bytes as f64 / 1e6 / peer_time.as_secs_f64(),
            peer_time.as_secs_f64() / ours_on_peer_time.as_secs_f64(),
            peer_bytes as f64 / 1e6 / single_on_peer_time.as_secs_f64(),
            peer_time.as_secs_f64() / single_on_peer_time.as_secs_f64(),
            ours_bytes as f64 / 1e6 / ours_time.as_secs_f64(),
        );
    }
}
