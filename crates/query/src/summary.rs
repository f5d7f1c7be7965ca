//! What a demo holds, as one JSON object: its header and file info, what
//! the parse read (frames, commands, messages, string tables, players,
//! classes, entities), the warnings, and the error that stopped it. This
//! is `gamewire info --format json`; the text form is written from it.

use gamewire_source2::{DemoError, DemoState};

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
