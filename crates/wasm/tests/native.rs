//! The wasm API's native half ([`gamewire_wasm::ReplayData`]): what
//! `Replay.fromBytes` and its getters hand to JavaScript, checked without a
//! browser.

use std::error::Error;

use gamewire_wasm::ReplayData;

type TestResult = Result<(), Box<dyn Error>>;

#[test]
fn the_metadata_is_json_of_the_replay() -> TestResult {
    let path = gamewire_corpus::path("cs2/14065.dem");
    let data = ReplayData::from_bytes(std::fs::read(&path)?, "14065.dem", 1)?;
    let meta: serde_json::Value = serde_json::from_str(&data.meta_json)?;
    assert_eq!(meta["game"], "cs2");
    let players = meta["players"].as_array().ok_or("players")?;
    assert_eq!(players.len(), data.replay.meta.players.len());
    assert!(!players.is_empty());
    assert_eq!(
        meta["kills"].as_array().map(Vec::len),
        Some(data.replay.meta.kills.len())
    );
    assert_eq!(meta["last_tick"], data.replay.meta.last_tick);
    let frames = &data.replay.frames;
    assert_eq!(frames.offsets.last().copied(), Some(frames.rows() as u32));
    Ok(())
}

#[test]
fn a_foreign_file_gives_the_parsers_message() -> TestResult {
    let err = ReplayData::from_bytes(b"GIF89a not a demo".to_vec(), "x.dem", 1)
        .err()
        .ok_or("a foreign file was accepted")?;
    assert!(err.contains("x.dem") || err.contains("demo"), "{err}");
    Ok(())
}
