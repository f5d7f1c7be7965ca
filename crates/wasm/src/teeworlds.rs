//! Teeworlds 0.7 demos in the browser: [`gamewire_query::tw_replay`]
//! behind wasm-bindgen, for the viewer's Teeworlds mode
//! (`web/teeworlds.js`).
//!
//! ```js
//! import init, { TeeworldsReplay, isTeeworldsDemo } from "./pkg/gamewire_wasm.js";
//! await init();
//! const bytes = new Uint8Array(buffer);
//! if (isTeeworldsDemo(bytes)) {
//!   const replay = TeeworldsReplay.fromBytes(bytes);
//!   const meta = JSON.parse(replay.metaJson()); // players, chat, kills, bounds
//!   const x = replay.teeX();                    // Int32Array, one per tee row
//! }
//! ```
//!
//! As for Source 2 demos, [`TeeworldsData`] does the work in plain Rust
//! (tested natively) and [`TeeworldsReplay`] only hands its arrays to
//! JavaScript, each copied out once; the snapshot layout (rows of a kind
//! per snapshot through an offsets array) is the model's.

use gamewire_query::tw_replay::TwReplay;
use serde_json::json;
use wasm_bindgen::prelude::*;

/// A Teeworlds demo's replay and its metadata as JSON: the native half of
/// [`TeeworldsReplay`].
#[derive(Debug, Clone)]
pub struct TeeworldsData {
    /// The replay.
    pub replay: TwReplay,
    /// Map, players, chat, kills, bounds, ticks, as JSON.
    pub meta_json: String,
}

/// True when `bytes` start like a Teeworlds demo (`TWDEMO\0`).
#[wasm_bindgen(js_name = isTeeworldsDemo)]
pub fn is_teeworlds_demo(bytes: &[u8]) -> bool {
    bytes.starts_with(gamewire_query::tw_replay::MAGIC.as_slice())
}

impl TeeworldsData {
    /// Builds the replay of a demo's bytes; the error is the parser's
    /// message.
    pub fn from_bytes(bytes: &[u8]) -> Result<TeeworldsData, String> {
        let replay = TwReplay::from_demo(bytes).map_err(|e| e.to_string())?;
        let name = |i: i32| replay.player_name(i).map(str::to_owned);
        let meta = json!({
            "game": "teeworlds",
            "map": replay.map_name,
            "kind": replay.kind,
            "first_tick": replay.ticks.first().copied().unwrap_or(0),
            "last_tick": replay.ticks.last().copied().unwrap_or(0),
            "tick_interval": 1.0 / f64::from(gamewire_query::tw_replay::TICKS_PER_SECOND),
            "bounds": replay.bounds,
            "cut": replay.cut,
            "players": replay.players.iter().map(|p| json!({
                "client_id": p.client_id,
                "name": p.name,
                "clan": p.clan,
                "team": p.team,
                "local": p.local,
            })).collect::<Vec<_>>(),
            "chat": replay.chat.iter().map(|c| json!({
                "tick": c.tick,
                "client_id": c.client_id,
                "name": name(c.player),
                "mode": c.mode,
                "message": c.message,
            })).collect::<Vec<_>>(),
            "kills": replay.kills.iter().map(|k| json!({
                "tick": k.tick,
                "killer": name(k.killer_player),
                "victim": name(k.victim_player),
                "killer_id": k.killer,
                "victim_id": k.victim,
                "weapon": k.weapon,
            })).collect::<Vec<_>>(),
        });
        let meta_json = serde_json::to_string(&meta).map_err(|e| e.to_string())?;
        Ok(TeeworldsData { replay, meta_json })
    }
}

/// A Teeworlds demo's replay, for JavaScript.
#[wasm_bindgen]
#[derive(Debug)]
pub struct TeeworldsReplay {
    data: TeeworldsData,
}

/// Getters that copy one array of the replay out (the field path, the
/// JavaScript name, the element type).
macro_rules! arrays {
    ($($(#[$doc:meta])* $name:ident $js:literal: $ty:ty = $($path:ident).+;)*) => {
        #[wasm_bindgen]
        impl TeeworldsReplay {
            $(
                $(#[$doc])*
                #[wasm_bindgen(js_name = $js)]
                pub fn $name(&self) -> Vec<$ty> {
                    self.data.replay.$($path).+.clone()
                }
            )*
        }
    };
}

#[wasm_bindgen]
impl TeeworldsReplay {
    /// Parses a Teeworlds 0.7 demo; throws an `Error` carrying the
    /// parser's message.
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: Vec<u8>) -> Result<TeeworldsReplay, JsError> {
        TeeworldsData::from_bytes(&bytes)
            .map(|data| TeeworldsReplay { data })
            .map_err(|e| JsError::new(&e))
    }

    /// Map, players, chat, kills and bounds, as JSON.
    #[wasm_bindgen(js_name = metaJson)]
    pub fn meta_json(&self) -> String {
        self.data.meta_json.clone()
    }
}

arrays! {
    /// Each snapshot's tick (`Int32Array`).
    ticks "ticks": i32 = ticks;
    /// Red flag carrier per snapshot (`Int8Array`).
    red_carrier "redCarrier": i8 = red_carrier;
    /// Blue flag carrier per snapshot (`Int8Array`).
    blue_carrier "blueCarrier": i8 = blue_carrier;
    /// Red score per snapshot (`Int32Array`).
    red_score "redScore": i32 = red_score;
    /// Blue score per snapshot (`Int32Array`).
    blue_score "blueScore": i32 = blue_score;
    /// Where each snapshot's tees start, one more than the snapshots (`Uint32Array`).
    tee_offsets "teeOffsets": u32 = tee_offsets;
    /// Tee client ids (`Uint8Array`).
    tee_client_id "teeClientId": u8 = tees.client_id;
    /// Tee players, indexes into the metadata's players, -1 unknown (`Int32Array`).
    tee_player "teePlayer": i32 = tees.player;
    /// Tee positions (`Int32Array`).
    tee_x "teeX": i32 = tees.x;
    /// Tee positions (`Int32Array`).
    tee_y "teeY": i32 = tees.y;
    /// Aim angles, radians times 256 (`Int32Array`).
    tee_angle "teeAngle": i32 = tees.angle;
    /// Teams, -2 unknown (`Int8Array`).
    tee_team "teeTeam": i8 = tees.team;
    /// Health, -1 unknown (`Int8Array`).
    tee_health "teeHealth": i8 = tees.health;
    /// Armor, -1 unknown (`Int8Array`).
    tee_armor "teeArmor": i8 = tees.armor;
    /// Weapons (`Int8Array`).
    tee_weapon "teeWeapon": i8 = tees.weapon;
    /// Hook states (`Int8Array`).
    tee_hook_state "teeHookState": i8 = tees.hook_state;
    /// Hook ends (`Int32Array`).
    tee_hook_x "teeHookX": i32 = tees.hook_x;
    /// Hook ends (`Int32Array`).
    tee_hook_y "teeHookY": i32 = tees.hook_y;
    /// Where each snapshot's projectiles start (`Uint32Array`).
    projectile_offsets "projectileOffsets": u32 = projectile_offsets;
    /// Projectile start positions (`Int32Array`).
    projectile_start_x "projectileStartX": i32 = projectiles.start_x;
    /// Projectile start positions (`Int32Array`).
    projectile_start_y "projectileStartY": i32 = projectiles.start_y;
    /// Projectile directions times 100 (`Int32Array`).
    projectile_vel_x "projectileVelX": i32 = projectiles.vel_x;
    /// Projectile directions times 100 (`Int32Array`).
    projectile_vel_y "projectileVelY": i32 = projectiles.vel_y;
    /// Projectile weapons (`Int8Array`).
    projectile_weapon "projectileWeapon": i8 = projectiles.weapon;
    /// Projectile start ticks (`Int32Array`).
    projectile_start_tick "projectileStartTick": i32 = projectiles.start_tick;
    /// Projectile speeds (`Float32Array`).
    projectile_speed "projectileSpeed": f32 = projectiles.speed;
    /// Projectile curvatures (`Float32Array`).
    projectile_curvature "projectileCurvature": f32 = projectiles.curvature;
    /// Where each snapshot's lasers start (`Uint32Array`).
    laser_offsets "laserOffsets": u32 = laser_offsets;
    /// Laser ends (`Int32Array`).
    laser_x "laserX": i32 = lasers.x;
    /// Laser ends (`Int32Array`).
    laser_y "laserY": i32 = lasers.y;
    /// Laser starts (`Int32Array`).
    laser_from_x "laserFromX": i32 = lasers.from_x;
    /// Laser starts (`Int32Array`).
    laser_from_y "laserFromY": i32 = lasers.from_y;
    /// Where each snapshot's pickups start (`Uint32Array`).
    pickup_offsets "pickupOffsets": u32 = pickup_offsets;
    /// Pickup positions (`Int32Array`).
    pickup_x "pickupX": i32 = pickups.x;
    /// Pickup positions (`Int32Array`).
    pickup_y "pickupY": i32 = pickups.y;
    /// Pickup kinds (`Int8Array`).
    pickup_kind "pickupKind": i8 = pickups.kind;
    /// Where each snapshot's flags start (`Uint32Array`).
    flag_offsets "flagOffsets": u32 = flag_offsets;
    /// Flag positions (`Int32Array`).
    flag_x "flagX": i32 = flags.x;
    /// Flag positions (`Int32Array`).
    flag_y "flagY": i32 = flags.y;
    /// Flag teams (`Int8Array`).
    flag_team "flagTeam": i8 = flags.team;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_teeworlds_demo_is_told_by_its_magic_and_errors_are_the_parsers() {
        assert!(is_teeworlds_demo(b"TWDEMO\0\x04"));
        assert!(!is_teeworlds_demo(b"PBDEMS2\0"));
        assert!(!is_teeworlds_demo(b"TWDEM"));
        let mut head = b"TWDEMO\0\x09".to_vec();
        head.resize(600, 0);
        let e = TeeworldsData::from_bytes(&head).err();
        assert_eq!(
            e.as_deref(),
            Some("demo version 9 is not supported (0.7 demos are versions 4 and 5)")
        );
        let e = TeeworldsData::from_bytes(b"PBDEMS2\0").err();
        assert!(e.is_some_and(|e| e.starts_with("not a Teeworlds demo")));
    }
}
