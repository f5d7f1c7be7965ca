//! gamewire in the browser: a demo's 2D replay
//! ([`gamewire_query::replay`]) behind a small wasm-bindgen API, for the
//! viewer in `web/` (which runs it in a Web Worker).
//!
//! ```js
//! import init, { Replay } from "./pkg/gamewire_wasm.js";
//! await init();
//! const replay = Replay.fromBytes(new Uint8Array(buffer), "match.dem.gz", 1);
//! const meta = JSON.parse(replay.metaJson());   // roster, kills, rounds, ...
//! const x = replay.x();                         // Float32Array, one per row
//! ```
//!
//! `Replay.fromBytes` throws a JavaScript `Error` whose message is the
//! parser's (a damaged, truncated or foreign file). Every per-row getter
//! returns a typed array copied out of the module's memory once (the
//! layout is [`gamewire_query::replay::Frames`]); the small things
//! (roster, flights, smokes, fires, bomb events, kill feed, rounds) come as
//! one JSON text ([`gamewire_query::replay::ReplayMeta`]).
//!
//! The wrapper is thin on purpose: [`ReplayData`] does the work in plain
//! Rust (tested natively in `tests/`), [`Replay`] only hands it to
//! JavaScript.

pub mod teeworlds;

use gamewire_query::replay::{self, ReplayOptions};
use wasm_bindgen::prelude::*;

/// A built replay and its metadata as JSON: the native half of [`Replay`].
#[derive(Debug, Clone)]
pub struct ReplayData {
    /// The replay.
    pub replay: replay::Replay,
    /// [`replay::ReplayMeta`] as JSON.
    pub meta_json: String,
}

impl ReplayData {
    /// Builds the replay of a demo's bytes (compressed too), keeping every
    /// `every`-th frame tick; the error is the parser's message.
    pub fn from_bytes(bytes: Vec<u8>, name: &str, every: u32) -> Result<ReplayData, String> {
        let replay = replay::Replay::from_bytes(name, bytes, ReplayOptions { every })
            .map_err(|e| e.to_string())?;
        let meta_json = serde_json::to_string(&replay.meta).map_err(|e| e.to_string())?;
        Ok(ReplayData { replay, meta_json })
    }
}

/// A demo's replay, for JavaScript.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Replay {
    data: ReplayData,
}

#[wasm_bindgen]
impl Replay {
    /// Parses a demo (`.dem`, gzip, bzip2 or zstd compressed) into a
    /// replay, keeping every `every`-th frame tick (1 when not given);
    /// throws an `Error` carrying the parser's message.
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(
        bytes: Vec<u8>,
        name: Option<String>,
        every: Option<u32>,
    ) -> Result<Replay, JsError> {
        let name = name.unwrap_or_else(|| "demo.dem".to_string());
        ReplayData::from_bytes(bytes, &name, every.unwrap_or(1))
            .map(|data| Replay { data })
            .map_err(|e| JsError::new(&e))
    }

    /// The roster, flights, smokes, fires, bomb events, kill feed and
    /// rounds, as JSON.
    #[wasm_bindgen(js_name = metaJson)]
    pub fn meta_json(&self) -> String {
        self.data.meta_json.clone()
    }

    /// Frame ticks (`Int32Array`).
    pub fn ticks(&self) -> Vec<i32> {
        self.data.replay.frames.ticks.clone()
    }

    /// Where each frame's rows start, one more than the frames
    /// (`Uint32Array`).
    pub fn offsets(&self) -> Vec<u32> {
        self.data.replay.frames.offsets.clone()
    }

    /// Each row's player, an index into the roster (`Uint16Array`).
    pub fn player(&self) -> Vec<u16> {
        self.data.replay.frames.player.clone()
    }

    /// Positions (`Float32Array`).
    pub fn x(&self) -> Vec<f32> {
        self.data.replay.frames.x.clone()
    }

    /// Positions (`Float32Array`).
    pub fn y(&self) -> Vec<f32> {
        self.data.replay.frames.y.clone()
    }

    /// Positions (`Float32Array`).
    pub fn z(&self) -> Vec<f32> {
        self.data.replay.frames.z.clone()
    }

    /// View directions in degrees, NaN when not sent (`Float32Array`).
    pub fn yaw(&self) -> Vec<f32> {
        self.data.replay.frames.yaw.clone()
    }

    /// Health, -1 when not sent (`Int16Array`).
    pub fn health(&self) -> Vec<i16> {
        self.data.replay.frames.health.clone()
    }

    /// Armor, -1 when not sent (`Int16Array`).
    pub fn armor(&self) -> Vec<i16> {
        self.data.replay.frames.armor.clone()
    }

    /// Team numbers (`Uint8Array`).
    pub fn team(&self) -> Vec<u8> {
        self.data.replay.frames.team.clone()
    }

    /// 1 alive, 0 dead, 2 unknown (`Uint8Array`).
    pub fn alive(&self) -> Vec<u8> {
        self.data.replay.frames.alive.clone()
    }

    /// Projectile rows' ticks (`Int32Array`); each flight of the metadata
    /// names its run of rows.
    #[wasm_bindgen(js_name = projectileTick)]
    pub fn projectile_tick(&self) -> Vec<i32> {
        self.data.replay.projectiles.tick.clone()
    }

    /// Projectile positions (`Float32Array`).
    #[wasm_bindgen(js_name = projectileX)]
    pub fn projectile_x(&self) -> Vec<f32> {
        self.data.replay.projectiles.x.clone()
    }

    /// Projectile positions (`Float32Array`).
    #[wasm_bindgen(js_name = projectileY)]
    pub fn projectile_y(&self) -> Vec<f32> {
        self.data.replay.projectiles.y.clone()
    }
}

/// The crate's version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
