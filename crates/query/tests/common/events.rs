//! Game events built from the real CS2 descriptors, and the match tables
//! they make.

use gamewire_query::matches::MatchTables;
use gamewire_query::Cell;
use gamewire_query::Table;
use gamewire_source2::gameevent::{EventValue, GameEvent};
use gamewire_source2::{DemoState, UserInfo};

pub fn corpus_demo() -> std::path::PathBuf {
    gamewire_corpus::path("cs2/14132.dem")
}

/// The descriptors these tests build events from: (event, [(key, type)]),
/// as printed from the corpus demo's `CMsgSource1LegacyGameEventList`.
pub const DESCRIPTORS: &[(&str, &[(&str, i32)])] = &[
    (
        "player_death",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("attacker", 9),
            ("attacker_pawn", 8),
            ("assister", 9),
            ("assister_pawn", 8),
            ("assistedflash", 6),
            ("weapon", 1),
            ("weapon_itemid", 1),
            ("weapon_fauxitemid", 1),
            ("weapon_originalowner_xuid", 1),
            ("headshot", 6),
            ("dominated", 4),
            ("revenge", 4),
            ("wipe", 4),
            ("penetrated", 4),
            ("noreplay", 6),
            ("noscope", 6),
            ("thrusmoke", 6),
            ("attackerblind", 6),
            ("distance", 2),
            ("dmg_health", 4),
            ("dmg_armor", 5),
            ("hitgroup", 5),
            ("attackerinair", 6),
        ],
    ),
    (
        "player_hurt",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("attacker", 9),
            ("attacker_pawn", 8),
            ("health", 5),
            ("armor", 5),
            ("weapon", 1),
            ("dmg_health", 4),
            ("dmg_armor", 5),
            ("hitgroup", 5),
        ],
    ),
    (
        "item_purchase",
        &[("userid", 9), ("team", 4), ("loadout", 4), ("weapon", 1)],
    ),
    (
        "round_start",
        &[("timelimit", 3), ("fraglimit", 3), ("objective", 1)],
    ),
    ("round_freeze_end", &[]),
    (
        "round_end",
        &[
            ("winner", 5),
            ("reason", 5),
            ("message", 1),
            ("legacy", 5),
            ("player_count", 4),
            ("nomusic", 5),
        ],
    ),
    ("round_officially_ended", &[]),
    (
        "smokegrenade_detonate",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("entityid", 4),
            ("x", 2),
            ("y", 2),
            ("z", 2),
        ],
    ),
    (
        "hegrenade_detonate",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("entityid", 4),
            ("x", 2),
            ("y", 2),
            ("z", 2),
        ],
    ),
    (
        "flashbang_detonate",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("entityid", 4),
            ("x", 2),
            ("y", 2),
            ("z", 2),
        ],
    ),
    (
        "decoy_started",
        &[
            ("userid_pawn", 8),
            ("entityid", 4),
            ("x", 2),
            ("y", 2),
            ("z", 2),
        ],
    ),
    (
        "molotov_detonate",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("x", 2),
            ("y", 2),
            ("z", 2),
        ],
    ),
    (
        "inferno_startburn",
        &[("entityid", 4), ("x", 2), ("y", 2), ("z", 2)],
    ),
    (
        "inferno_expire",
        &[("entityid", 4), ("x", 2), ("y", 2), ("z", 2)],
    ),
    (
        "smokegrenade_expired",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("entityid", 4),
            ("x", 2),
            ("y", 2),
            ("z", 2),
        ],
    ),
    (
        "weapon_fire",
        &[
            ("userid", 9),
            ("userid_pawn", 8),
            ("weapon", 1),
            ("silenced", 6),
        ],
    ),
    ("player_footstep", &[("userid", 9), ("userid_pawn", 8)]),
    (
        "bomb_beginplant",
        &[("userid", 9), ("userid_pawn", 8), ("site", 4)],
    ),
    (
        "bomb_planted",
        &[("userid", 9), ("userid_pawn", 8), ("site", 4)],
    ),
    (
        "bomb_begindefuse",
        &[("userid", 9), ("userid_pawn", 8), ("haskit", 6)],
    ),
    ("bomb_abortdefuse", &[("userid", 9), ("userid_pawn", 8)]),
    (
        "bomb_defused",
        &[("userid", 9), ("userid_pawn", 8), ("site", 4)],
    ),
    (
        "bomb_dropped",
        &[("userid", 9), ("userid_pawn", 8), ("entindex", 3)],
    ),
    ("bomb_pickup", &[("userid_pawn", 8)]),
    (
        "player_blind",
        &[
            ("userid", 9),
            ("attacker", 9),
            ("entityid", 4),
            ("blind_duration", 2),
        ],
    ),
];

/// Builds an event from its descriptor: every key gets a value, the given
/// ones or the type's zero.
pub fn event(name: &str, tick: i32, values: &[(&str, EventValue)]) -> GameEvent {
    let (_, keys) = DESCRIPTORS.iter().find(|(n, _)| *n == name).unwrap();
    for (k, _) in values {
        assert!(keys.iter().any(|(n, _)| n == k), "{name} has no key {k}");
    }
    let keys = keys
        .iter()
        .map(|(k, kind)| {
            let v = values
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
                .unwrap_or(match kind {
                    1 => EventValue::String(String::new()),
                    2 => EventValue::Float(0.0),
                    6 => EventValue::Bool(false),
                    7 => EventValue::U64(0),
                    // Player slot keys: 0xFFFF is "none".
                    9 => EventValue::Int(0xFFFF),
                    _ => EventValue::Int(0),
                });
            assert_eq!(
                std::mem::discriminant(&v),
                std::mem::discriminant(&match kind {
                    1 => EventValue::String(String::new()),
                    2 => EventValue::Float(0.0),
                    6 => EventValue::Bool(false),
                    7 => EventValue::U64(0),
                    _ => EventValue::Int(0),
                }),
                "{name}.{k} has type {kind}"
            );
            (k.to_string(), *kind, v)
        })
        .collect();
    GameEvent {
        name: name.to_string(),
        id: 0,
        tick,
        keys,
    }
}

pub fn state_with_players() -> DemoState {
    let mut state = DemoState::default();
    for (slot, name, steamid) in [
        (0usize, "alice", 76561198000000001u64),
        (1, "bob", 76561198000000002),
        (2, "carol", 76561198000000003),
    ] {
        state.players.insert(
            slot,
            UserInfo {
                slot,
                name: name.into(),
                steamid,
                userid: slot as i32,
                fake_player: false,
                is_hltv: false,
            },
        );
    }
    state
}

pub fn s(v: &str) -> Cell {
    Cell::Str(v.into())
}

pub fn i(v: i64) -> Cell {
    Cell::Int(v)
}

pub fn u(v: u64) -> Cell {
    Cell::UInt(v)
}

pub fn b(v: bool) -> Cell {
    Cell::Bool(v)
}

pub const N: Cell = Cell::Null;

pub fn rows(t: &Table) -> Vec<Vec<Cell>> {
    (0..t.rows()).map(|r| t.row(r)).collect()
}

pub fn run(events: &[GameEvent]) -> Vec<Table> {
    let state = state_with_players();
    let mut m = MatchTables::new(true, true, true, true);
    for e in events {
        m.on_event(&state, e);
    }
    m.finish()
}
