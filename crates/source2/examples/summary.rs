//! Parses demos and prints a one-line summary each: `cargo run --release
//! --example summary -- FILE...`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use gamewire_source2::{parse_with, NoVisitor};

fn main() {
    for path in std::env::args().skip(1) {
        let data = std::fs::read(&path).expect("read");
        let start = std::time::Instant::now();
        match parse_with(&data, &mut NoVisitor) {
            Ok((state, err)) => {
                let playback = state.file_info.as_ref().and_then(|f| f.playback_ticks);
                println!(
                    "{path}: tick {} playback {:?} frames {} entities {} updates {} stop {} warnings {} in {:?}; error: {}",
                    state.tick,
                    playback,
                    state.frames,
                    state.entities.len(),
                    state.entity_updates,
                    state.reached_stop,
                    state.warnings.len(),
                    start.elapsed(),
                    err.map(|e| e.to_string()).unwrap_or_else(|| "none".into())
                );
                for w in state.warnings.iter().take(5) {
                    println!("   warning: {}", w.message);
                }
            }
            Err(e) => println!("{path}: {e}"),
        }
    }
}
