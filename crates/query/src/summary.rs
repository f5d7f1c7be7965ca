//! What a demo holds, as one JSON object: its header and file info, what
//! the parse read (frames, commands, messages, string tables, players,
//! classes, entities), the warnings, and the error that stopped it. This
//! is `gamewire info --format json`; the text form is written from it.
//!
//! The `header` table ([`HeaderCollector`]) is the part of it an analyst
//! joins on: one row per demo with its map, tick rate, build, length and
//! player count ([`crate::reference::HEADER`]).

use std::collections::BTreeSet;

use gamewire_source2::{DemoError, DemoState, Game};

use crate::reference;
use crate::table::{Cell, Table};

/// The summary of a parse that ended in `state` (stopped by `error`, when
/// it was). Keys: `map_name`, `server_name`, `client_name`,
/// `game_directory`, `build_num`, `network_protocol`, `demo_version_name`,
/// `playback_ticks`, `playback_frames`, `playback_time`, `tick_interval`,
/// `frames`, `last_tick`, `reached_stop`, `commands`, `messages`,
/// `unknown_commands`, `unknown_messages`, `string_tables`, `players`,
/// `serializers`, `classes`, `entities_at_end`, `entity_updates`,
/// `warnings`, `error`.
pub fn summary_json(state: &DemoState, error: Option<&DemoError>) -> serde_json::Value {
    use serde_json::json;
    let h = state.header.as_ref();
    let fi = state.file_info.as_ref();
    let tables: Vec<_> = state
        .string_tables
        .iter()
        .map(|t| json!({"name": t.name, "entries": t.entries.len()}))
        .collect();
    let classes: Vec<_> = state
        .classes
        .iter()
        .filter(|c| !c.name.is_empty())
        .map(|c| json!({"id": c.id, "name": c.name, "has_serializer": c.serializer.is_some()}))
        .collect();
    let players: Vec<_> = state.players.values().collect();
    let warnings: Vec<String> = state
        .warnings
        .iter()
        .map(|w| format!("tick {}: {}", w.tick, w.message))
        .collect();
    let unknown_messages: serde_json::Map<String, serde_json::Value> = state
        .unknown_messages
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let unknown_commands: serde_json::Map<String, serde_json::Value> = state
        .unknown_commands
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    json!({
        "map_name": state.map_name(),
        "server_name": h.and_then(|h| h.server_name.clone()),
        "client_name": h.and_then(|h| h.client_name.clone()),
        "game_directory": h.and_then(|h| h.game_directory.clone()),
        "build_num": h.and_then(|h| h.build_num),
        "network_protocol": h.and_then(|h| h.patch_version).or_else(|| state.server_info.as_ref().and_then(|s| s.protocol)),
        "demo_version_name": h.and_then(|h| h.demo_version_name.clone()),
        "playback_ticks": fi.and_then(|f| f.playback_ticks),
        "playback_frames": fi.and_then(|f| f.playback_frames),
        "playback_time": fi.and_then(|f| f.playback_time),
        "tick_interval": state.tick_interval,
        "frames": state.frames,
        "last_tick": state.tick,
        "reached_stop": state.reached_stop,
        "commands": state.command_counts,
        "messages": state.message_counts,
        "unknown_commands": unknown_commands,
        "unknown_messages": unknown_messages,
        "string_tables": tables,
        "players": players,
        "serializers": state.send_tables.as_ref().map(|t| t.serializers.len()),
        "classes": classes,
        "entities_at_end": state.entities.len(),
        "entity_updates": state.entity_updates,
        "warnings": warnings,
        "error": error.map(|e| e.to_string()),
    })
}

/// The name of a game in the `header` table.
pub fn game_name(game: Game) -> &'static str {
    match game {
        Game::Cs2 => "cs2",
        Game::Deadlock => "deadlock",
        Game::Dota2 => "dota2",
        Game::Any => "unknown",
    }
}

/// `header`: one row per demo, from the file header, the file info (at
/// the end of the file; a demo cut short has none, and its `ticks` and
/// `duration_seconds` come from the last tick read), the server's tick
/// interval and the players seen in `userinfo`.
#[derive(Debug, Default)]
pub struct HeaderCollector {
    /// The players seen: a human by steam id, a bot (steam id 0) by name.
    seen: BTreeSet<(u64, String)>,
}

impl HeaderCollector {
    /// Records the players of the current `userinfo` entries (CSTV and
    /// SourceTV left out).
    pub fn on_userinfo(&mut self, state: &DemoState) {
        for info in state.players.values().filter(|p| !p.is_hltv) {
            let name = if info.steamid == 0 {
                info.name.clone()
            } else {
                String::new()
            };
            self.seen.insert((info.steamid, name));
        }
    }

    /// The table (one row).
    pub fn finish(mut self, state: &DemoState) -> Table {
        self.on_userinfo(state);
        let h = state.header.as_ref();
        let fi = state.file_info.as_ref();
        let text = |v: Option<&str>| v.map_or(Cell::Null, |s| Cell::Str(s.to_string()));
        let int = |v: Option<i64>| v.map_or(Cell::Null, Cell::Int);
        let flag = |v: Option<bool>| v.map_or(Cell::Null, Cell::Bool);
        // 1 / interval, to a thousandth: a 30-tick server sends 0.033333.
        let tick_rate = (state.tick_interval > 0.0)
            .then(|| ((1000.0 / f64::from(state.tick_interval)).round() / 1000.0) as f32);
        let last_tick = (state.tick >= 0).then_some(i64::from(state.tick));
        let ticks = fi
            .and_then(|f| f.playback_ticks)
            .map(i64::from)
            .or(last_tick);
        let duration = fi.and_then(|f| f.playback_time).or_else(|| {
            let (t, r) = (ticks?, tick_rate?);
            Some(t as f32 / r)
        });
        let protocol = h
            .and_then(|h| h.patch_version)
            .or_else(|| state.server_info.as_ref().and_then(|s| s.protocol));
        let bots = self
            .seen
            .iter()
            .filter(|(steamid, _)| *steamid == 0)
            .count();
        let mut t = reference::HEADER.empty_table();
        t.push_row(&[
            Cell::Str(game_name(state.game).to_string()),
            text(state.map_name()),
            text(h.and_then(|h| h.server_name.as_deref())),
            text(h.and_then(|h| h.client_name.as_deref())),
            text(h.and_then(|h| h.game_directory.as_deref())),
            int(h.and_then(|h| h.build_num).map(i64::from)),
            int(protocol.map(i64::from)),
            text(h.and_then(|h| h.demo_version_name.as_deref())),
            text(h.and_then(|h| h.demo_version_guid.as_deref())),
            // `PBDEMS2\0`: the stamp without its terminating NUL.
            text(h.map(|h| h.demo_file_stamp.trim_end_matches('\0'))),
            int(h.and_then(|h| h.fullpackets_version).map(i64::from)),
            flag(h.and_then(|h| h.allow_clientside_entities)),
            flag(h.and_then(|h| h.allow_clientside_particles)),
            text(h.and_then(|h| h.addons.as_deref())),
            int(h.and_then(|h| h.server_start_tick).map(i64::from)),
            tick_rate.map_or(Cell::Null, Cell::Float),
            int(ticks),
            int(fi.and_then(|f| f.playback_frames).map(i64::from)),
            duration.map_or(Cell::Null, Cell::Float),
            int(last_tick),
            Cell::Bool(state.reached_stop),
            Cell::Int(self.seen.len() as i64),
            Cell::Int(bots as i64),
        ]);
        t
    }
}
