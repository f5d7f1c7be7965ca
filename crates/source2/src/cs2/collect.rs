//! The collectors of `gamewire ticks` and `gamewire events`: per-player
//! tick rows ([`TickCollector`], demoparser2's `parse_ticks`) and game-event
//! rows ([`EventCollector`]).

use super::props::{position_ids, position_with_ids, read_prop, SourceIds};
use super::{other_prop_in, team_number};
use super::{
    player_source, players_into, tick_rate, velocity_cell, Cell, OtherSource, PlayerIds, PlayerRef,
    PlayerSource, PropCache, PropId, Table, World,
};
use crate::gameevent::{EventValue, GameEvent};
use crate::parser::{DemoState, Interests, Visitor};

/// What a [`TickCollector`] keeps for velocity props: the interned cell and
/// offset props per axis, and each player's position on their previous row
/// (by steam id).
type Velocities = (
    [(PropId, PropId); 3],
    rustc_hash::FxHashMap<u64, Option<[f32; 3]>>,
);

/// Collects one row per player after every `PacketEntities` message outside
/// full packets (demoparser2's `parse_ticks`): the props asked for, then
/// `tick`, `steamid`, `name`. A player is a controller with a steam id, not
/// a spectator, whose pawn exists: CS2's `CCSPlayerController` and its
/// `m_hPlayerPawn`, Deadlock's `CCitadelPlayerController` and its hero pawn,
/// Dota 2's `CDOTAPlayerController` and its hero.
#[derive(Debug)]
pub struct TickCollector {
    props: Vec<SourceIds>,
    ticks: Option<Vec<i32>>,
    cache: PropCache,
    player_ids: PlayerIds,
    players: Vec<PlayerRef>,
    /// With a velocity prop: the position props, and each player's
    /// position on their previous row (by steam id).
    velocity: Option<Velocities>,
    /// The paths of the team props ([`SourceIds::Team`]).
    team_paths: Vec<String>,
    /// The game-wide props ([`SourceIds::World`]).
    world_sources: Vec<OtherSource>,
    /// Only the rows of these steam ids ([`TickCollector::with_players`]).
    only_players: Option<Vec<u64>>,
    /// Whether a prop reads the user commands.
    user_commands: bool,
    /// Whether only the player row classes are decoded
    /// ([`is_player_row_class`]): no prop follows a handle to another
    /// entity (a weapon, an inventory, ...).
    only_player_classes: bool,
    /// The collected rows.
    pub table: Table,
}

/// The classes a row of player props reads when no prop follows a handle
/// to another entity: the player controllers and pawns of CS2 and Deadlock
/// (`CCSPlayerController`, `CCSPlayerPawn`, `CCitadelPlayerPawn`, ...),
/// Dota 2's controllers and heroes (`CDOTA_Unit_Hero_*`), and the game rules
/// and team entities of game-wide and team props.
pub fn is_player_row_class(name: &str) -> bool {
    name.ends_with("PlayerController")
        || name.ends_with("PlayerPawn")
        || name.starts_with("CDOTA_Unit_Hero_")
        || name.ends_with("Team")
        || name.ends_with("GameRulesProxy")
        || name.ends_with("GamerulesProxy")
}

impl TickCollector {
    /// A collector for these props, optionally only at these ticks.
    pub fn new(props: &[String], ticks: Option<Vec<i32>>) -> Self {
        let mut columns: Vec<String> = props.to_vec();
        columns.extend(["tick", "steamid", "name"].map(String::from));
        let mut cache = PropCache::default();
        let (mut team_paths, mut world_sources) = (Vec::new(), Vec::new());
        let mut user_commands = false;
        let mut only_player_classes = true;
        let props: Vec<SourceIds> = props
            .iter()
            .map(|p| player_source(p))
            .inspect(|s| only_player_classes &= s.reads_player_classes_only())
            .map(|s| match s {
                PlayerSource::Entity(s) => {
                    user_commands |= s.needs_user_commands();
                    SourceIds::new(&s, &mut cache)
                }
                PlayerSource::Team(path) => {
                    team_paths.push(path);
                    SourceIds::Team(team_paths.len() - 1)
                }
                PlayerSource::World(o) => {
                    world_sources.push(o);
                    SourceIds::World(world_sources.len() - 1)
                }
            })
            .collect();
        let velocity = props
            .iter()
            .any(|p| matches!(p, SourceIds::Velocity(_)))
            .then(|| (position_ids(&mut cache), rustc_hash::FxHashMap::default()));
        TickCollector {
            props,
            velocity,
            team_paths,
            world_sources,
            only_players: None,
            user_commands,
            only_player_classes,
            ticks,
            player_ids: PlayerIds::new(&mut cache),
            cache,
            players: Vec::new(),
            table: Table {
                columns,
                rows: Vec::new(),
            },
        }
    }
}

impl TickCollector {
    /// Keeps only the rows of these steam ids (`None`: every player).
    #[must_use]
    pub fn with_players(mut self, players: Option<Vec<u64>>) -> Self {
        self.only_players = players;
        self
    }

    /// Decodes the entities of every class, also when no prop needs more
    /// than the [player row classes](is_player_row_class) (by default the
    /// other classes are then read past, which gives the same rows
    /// faster).
    #[must_use]
    pub fn with_every_class(mut self) -> Self {
        self.only_player_classes = false;
        self
    }

    /// Whether only the [player row classes](is_player_row_class) are
    /// decoded: no prop follows a handle to another entity.
    pub fn reads_player_classes_only(&self) -> bool {
        self.only_player_classes
    }
}

impl Visitor for TickCollector {
    fn interests(&self) -> Interests {
        Interests {
            entities: true,
            user_commands: self.user_commands,
            ..Interests::NONE
        }
    }

    fn wants_class(&self, class_name: &str) -> bool {
        !self.only_player_classes || is_player_row_class(class_name)
    }

    /// Rows read entities and players only: the parser decodes the class
    /// baselines and `userinfo` itself; no other table is read.
    fn wants_string_table(&self, _name: &str) -> bool {
        false
    }

    fn on_packet_entities(&mut self, state: &DemoState) {
        if state.in_full_packet {
            return;
        }
        if let Some(t) = &self.ticks {
            if !t.contains(&state.tick) {
                return;
            }
        }
        let mut players = std::mem::take(&mut self.players);
        players_into(state, &mut self.cache, &mut self.player_ids, &mut players);
        let rate = tick_rate(state);
        let world = if self.team_paths.is_empty() && self.world_sources.is_empty() {
            World::default()
        } else {
            World::of(state, &mut self.cache)
        };
        for p in players.drain(..) {
            if let Some(only) = &self.only_players {
                if !only.contains(&p.steamid) {
                    continue;
                }
            }
            let mut row = Vec::with_capacity(self.props.len() + 3);
            let (position, previous) = match &mut self.velocity {
                Some((ids, last)) => {
                    let pos = state
                        .entities
                        .get(p.pawn)
                        .and_then(|pawn| position_with_ids(state, &mut self.cache, pawn, ids));
                    (pos, last.insert(p.steamid, pos).flatten())
                }
                None => (None, None),
            };
            for &src in &self.props {
                row.push(match src {
                    SourceIds::Velocity(axis) => velocity_cell(position, previous, axis, rate),
                    SourceIds::Team(i) => {
                        let pawn = state.entities.get(p.pawn);
                        let controller = state.entities.get(p.controller);
                        let team = team_number(state, &mut self.cache, pawn, controller)
                            .and_then(|n| world.team(n));
                        match (team, self.team_paths.get(i)) {
                            (Some(e), Some(path)) => self
                                .cache
                                .value(state, e, path)
                                .map(Cell::from_value)
                                .unwrap_or(Cell::Null),
                            _ => Cell::Null,
                        }
                    }
                    SourceIds::World(i) => match self.world_sources.get(i) {
                        Some(o) => other_prop_in(state, &mut self.cache, &world, o),
                        None => Cell::Null,
                    },
                    _ => read_prop(state, &mut self.cache, &p, src),
                });
            }
            row.push(Cell::Int(i64::from(state.tick)));
            row.push(Cell::UInt(p.steamid));
            row.push(Cell::Str(p.name));
            self.table.rows.push(row);
        }
        self.players = players;
    }
}

/// Keys that name a player (a controller slot), and the column prefix used
/// for them.
const PLAYER_KEYS: &[(&str, &str)] = &[
    ("userid", "user"),
    ("attacker", "attacker"),
    ("assister", "assister"),
    ("victim", "victim"),
];

/// One collected event: name, tick, and its columns.
pub type EventRow = (String, i32, Vec<(String, Cell)>);

/// Collects game events as rows: `event`, `tick`, every key of the event,
/// and for player keys `<prefix>_name` and `<prefix>_steamid` of the player
/// in that slot (from `userinfo`; no entity is decoded).
#[derive(Debug, Default)]
pub struct EventCollector {
    names: Option<Vec<String>>,
    /// Events as (name, tick, key/value pairs).
    pub events: Vec<EventRow>,
    /// Every event name seen, with its count.
    pub counts: std::collections::BTreeMap<String, u64>,
}

impl EventCollector {
    /// Collects the named events (all when `None`).
    pub fn new(names: Option<Vec<String>>) -> Self {
        EventCollector {
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

impl Visitor for EventCollector {
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
