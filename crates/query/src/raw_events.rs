//! The game events as sent: `event`, `tick`, the event's own keys, and the
//! name and steam id of the players its keys name, read from `userinfo`
//! without decoding any entity (`gamewire events --list` counts them). The
//! `events` table (the `events` module) adds player and game-wide props.

use crate::table::Cell;
use gamewire_source2::{DemoState, EventValue, GameEvent, Interests, Visitor};

/// Keys that name a player (a controller slot), and the column prefix used
/// for them.
const PLAYER_KEYS: &[(&str, &str)] = &[
    ("userid", "user"),
    ("attacker", "attacker"),
    ("assister", "assister"),
    ("victim", "victim"),
];

/// One event as sent: name, tick, and its columns.
pub type RawEvent = (String, i32, Vec<(String, Cell)>);

/// Collects game events as rows: `event`, `tick`, every key of the event,
/// and for player keys `<prefix>_name` and `<prefix>_steamid` of the player
/// in that slot (from `userinfo`; no entity is decoded).
#[derive(Debug, Default)]
pub struct RawEventsCollector {
    names: Option<Vec<String>>,
    /// Events as (name, tick, key/value pairs).
    pub events: Vec<RawEvent>,
    /// Every event name seen, with its count.
    pub counts: std::collections::BTreeMap<String, u64>,
}

impl RawEventsCollector {
    /// Collects the named events (all when `None`).
    pub fn new(names: Option<Vec<String>>) -> Self {
        RawEventsCollector {
            names,
            ..Default::default()
        }
    }

    fn player_columns(&self, state: &DemoState, ev: &GameEvent, out: &mut Vec<(String, Cell)>) {
        for (key, prefix) in PLAYER_KEYS {
            let Some(v) = ev.get(key).and_then(EventValue::as_i64) else {
                continue;
            };
            // The player in that slot, from the `userinfo` string table
            // (the same name and steam id the controller entity carries), so
            // events need no entity decoding.
            let player = state.players.get(&((v & 0xFF) as usize));
            // Bots (steam id 0) are not players to demoparser2: null columns.
            let steamid = player.map(|p| p.steamid).filter(|&s| s != 0);
            let name = player.filter(|_| steamid.is_some()).map(|p| p.name.clone());
            out.push((
                format!("{prefix}_name"),
                name.map(Cell::Str).unwrap_or(Cell::Null),
            ));
            out.push((
                format!("{prefix}_steamid"),
                steamid
                    .map(|s| Cell::Str(s.to_string()))
                    .unwrap_or(Cell::Null),
            ));
        }
    }
}

impl Visitor for RawEventsCollector {
    fn interests(&self) -> Interests {
        Interests {
            game_events: true,
            ..Interests::NONE
        }
    }

    /// The player columns come from [`DemoState::players`] (`userinfo`,
    /// which the parser always decodes); no other table is read.
    fn wants_string_table(&self, _name: &str) -> bool {
        false
    }

    fn on_game_event(&mut self, state: &DemoState, ev: &GameEvent) {
        *self.counts.entry(ev.name.clone()).or_default() += 1;
        if let Some(names) = &self.names {
            if !names.contains(&ev.name) {
                return;
            }
        }
        let mut cols: Vec<(String, Cell)> = ev
            .keys
            .iter()
            .map(|(k, _, v)| (k.clone(), Cell::from_event(v)))
            .collect();
        self.player_columns(state, ev, &mut cols);
        self.events.push((ev.name.clone(), ev.tick, cols));
    }
}
