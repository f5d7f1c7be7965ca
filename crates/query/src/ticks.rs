//! `ticks`: one row per player after every `PacketEntities` message outside
//! full packets, demoparser2's `parse_ticks` (LaihoE/demoparser). The rows
//! are gathered as cells ([`TicksCollector::rows`], which `gamewire ticks`
//! streams out as they come) and typed at the end ([`TicksCollector::finish`],
//! the `ticks` table).

use crate::classes::is_player_row_class;
use crate::kinds::player_kind;
use crate::player_props::{
    position_ids, position_with_ids, read_prop, team_number, tick_rate, velocity_cell, SourceIds,
};
use crate::players::{players_into, PlayerIds, PlayerRef};
use crate::prop_paths::{PropCache, PropId};
use crate::table::{Cell, Kind, Rows, Table};
use crate::tick_set::TickSet;
use crate::world::{other_prop_in, player_source, OtherSource, PlayerSource, World};
use gamewire_source2::{DemoState, Interests, Visitor};

/// What a [`TicksCollector`] keeps for velocity props: the interned cell and
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
pub struct TicksCollector {
    props: Vec<SourceIds>,
    ticks: Option<TickSet>,
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
    /// Only the rows of these steam ids ([`TicksCollector::with_players`]).
    only_players: Option<Vec<u64>>,
    /// Only the rows of human players ([`TicksCollector::humans_only`]).
    humans_only: bool,
    /// Whether a prop reads the user commands.
    user_commands: bool,
    /// Whether only the player row classes are decoded
    /// ([`is_player_row_class`]): no prop follows a handle to another
    /// entity (a weapon, an inventory, ...).
    only_player_classes: bool,
    /// The prop names asked for, each with where it is read (the column
    /// types of [`TicksCollector::finish`]).
    sources: Vec<(String, PlayerSource)>,
    /// The rows collected and not taken yet: the props asked for, then
    /// `tick`, `steamid`, `name`.
    pub rows: Rows,
}

impl TicksCollector {
    /// A collector for these props, optionally only at these ticks.
    pub fn new(props: &[String], ticks: Option<TickSet>) -> Self {
        let names = props;
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
        TicksCollector {
            props,
            velocity,
            team_paths,
            world_sources,
            only_players: None,
            humans_only: false,
            user_commands,
            only_player_classes,
            ticks,
            player_ids: PlayerIds::new(&mut cache),
            cache,
            players: Vec::new(),
            sources: names
                .iter()
                .map(|p| (p.clone(), player_source(p)))
                .collect(),
            rows: Rows {
                columns,
                rows: Vec::new(),
            },
        }
    }
}

impl TicksCollector {
    /// Keeps only the rows of these steam ids (`None`: every player).
    #[must_use]
    pub fn with_players(mut self, players: Option<Vec<u64>>) -> Self {
        self.only_players = players;
        self
    }

    /// Keeps only the rows of human players (`true`) or every player,
    /// bots included (`false`, the default).
    #[must_use]
    pub fn humans_only(mut self, humans_only: bool) -> Self {
        self.humans_only = humans_only;
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

    /// The `ticks` table: the rows not taken yet, with the column types the
    /// demo declares for each prop ([`crate::kinds`]).
    pub fn finish(self, state: &DemoState) -> Table {
        let mut schema: Vec<(String, Option<Kind>)> = self
            .sources
            .iter()
            .map(|(n, s)| (n.clone(), player_kind(state, s)))
            .collect();
        schema.push(("tick".into(), Some(Kind::I64)));
        schema.push(("steamid".into(), Some(Kind::U64)));
        schema.push(("name".into(), Some(Kind::Str)));
        Table::from_cells_typed("ticks", &schema, &self.rows.rows)
    }
}

impl Visitor for TicksCollector {
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
            if !t.contains(state.tick) {
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
            if self.humans_only && p.steamid == 0 {
                continue;
            }
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
            self.rows.rows.push(row);
        }
        self.players = players;
    }
}
