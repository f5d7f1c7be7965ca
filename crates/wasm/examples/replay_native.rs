//! The native side of `scripts/bench_web.mjs`: builds the replay of each
//! demo given (what the browser's worker does with the same bytes), `runs`
//! times in a row, and prints one JSON line per demo with the best time.
//!
//!     cargo run --release -p gamewire-wasm --example replay_native -- RUNS DEMO...

use std::error::Error;
use std::time::Instant;

use gamewire_wasm::ReplayData;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().ok_or("usage: RUNS DEMO...")?.parse()?;
    for path in args {
        let bytes = std::fs::read(&path)?;
        let mut best = f64::INFINITY;
        let mut rows = 0;
        for _ in 0..runs.max(1) {
            let started = Instant::now();
            let data = ReplayData::from_bytes(bytes.clone(), &path, 1)?;
            best = best.min(started.elapsed().as_secs_f64());
            rows = data.replay.frames.rows();
        }
        println!(
            "{}",
            serde_json::json!({ "demo": path, "bytes": bytes.len(), "seconds": best, "rows": rows })
        );
    }
    Ok(())
}
