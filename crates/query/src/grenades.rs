//! `grenades`: one row per grenade projectile per tick it moved, with its
//! thrower and where it detonated (demoparser2's `parse_grenades`,
//! LaihoE/demoparser), and the grenade type of an entity.

use std::collections::BTreeMap;

use gamewire_source2::{DemoState, Entity, EventValue, GameEvent, Value};

use crate::classes::grenade_type;
use crate::event_players::{event_player, handle_index, identity, player_by_handle, team_of};
use crate::kinds::grenade_kind;
use crate::player_props::entity_position;
use crate::prop_paths::PropCache;
use crate::reference::GRENADES;
use crate::table::{infer_kind, Cell, Kind, Table};

/// The grenade type of an entity: projectile classes ([`grenade_type`];
/// a `CMolotovProjectile` with `m_bIsIncGrenade` is an incendiary), and
/// `CInferno` by `m_nInfernoType` (0 fire → molotov, 1 incendiary-grenade
/// fire → incendiary; CS:GO's `inferno.h`).
pub fn entity_grenade_type(
    state: &DemoState,
    paths: &mut PropCache,
    e: &Entity,
) -> Option<&'static str> {
    match state.class_name(e) {
        "CMolotovProjectile" => {
            let inc = paths
                .value(state, e, "m_bIsIncGrenade")
                .and_then(Value::as_i64)
                == Some(1);
            Some(if inc { "incendiary" } else { "molotov" })
        }
        "CInferno" => match paths
            .value(state, e, "m_nInfernoType")
            .and_then(Value::as_i64)
        {
            Some(0) => Some("molotov"),
            Some(1) => Some("incendiary"),
            _ => None,
        },
        class => grenade_type(class),
    }
}

/// Detonation events linked to a projectile by their `entityid`, and the
/// grenade type the projectile must have. A decoy's detonation is
/// `decoy_started` (it lands and starts firing).
pub const DETONATIONS: &[(&str, &str)] = &[
    ("smokegrenade_detonate", "smoke"),
    ("hegrenade_detonate", "he_grenade"),
    ("flashbang_detonate", "flashbang"),
    ("decoy_started", "decoy"),
];

/// How long after a projectile was deleted a detonation event can still be
/// linked to it, in ticks (the deletion may come in the packet before the
/// event's).
pub const DETONATE_AFTER_DELETE_TICKS: i32 = 2;

/// How long after a molotov or incendiary projectile was deleted its fire
/// (`inferno_startburn`, `molotov_detonate`) can still be linked to it, in
/// ticks (a quarter second at 64 ticks/s).
pub const FIRE_AFTER_DELETE_TICKS: i32 = 16;

/// A point of a flight: tick, position, the extra props' values.
type Point = (i32, [f32; 3], Vec<Cell>);

/// Who threw a grenade: name, steam id (0 for bots), player slot, team
/// number; each `None` when unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Thrower {
    /// The thrower's name.
    pub name: Option<String>,
    /// The thrower's steam id.
    pub steamid: Option<u64>,
    /// The thrower's player slot.
    pub slot: Option<i64>,
    /// The thrower's team number.
    pub team: Option<i64>,
}

impl Thrower {
    fn is_unknown(&self) -> bool {
        self.name.is_none() && self.steamid.is_none()
    }
}

/// A thrower known by name and steam id only.
impl From<(Option<String>, Option<u64>)> for Thrower {
    fn from((name, steamid): (Option<String>, Option<u64>)) -> Self {
        Thrower {
            name,
            steamid,
            ..Thrower::default()
        }
    }
}

#[derive(Debug, Clone)]
struct Flight {
    id: i64,
    entity: i32,
    kind: String,
    thrower: Thrower,
    thrower_pawn: Option<i32>,
    start: i32,
    end: Option<i32>,
    detonation: Option<(i32, [f32; 3])>,
    points: Vec<Point>,
}

/// Tracks grenade flights from entity lifetimes: a projectile entity is
/// spawned (start tick), moves (one point per tick, the last position of
/// the tick kept), detonates (a detonation event linked to it), and is
/// deleted (end tick).
#[derive(Debug, Default)]
pub struct GrenadeTracker {
    live: BTreeMap<i32, Flight>,
    done: Vec<Flight>,
    next_id: i64,
}

impl GrenadeTracker {
    /// A projectile entity was created.
    pub fn spawn(&mut self, entity: i32, tick: i32, kind: &str, thrower: impl Into<Thrower>) {
        if let Some(old) = self.live.remove(&entity) {
            self.done.push(old);
        }
        self.next_id += 1;
        self.live.insert(
            entity,
            Flight {
                id: self.next_id,
                entity,
                kind: kind.to_string(),
                thrower: thrower.into(),
                thrower_pawn: None,
                start: tick,
                end: None,
                detonation: None,
                points: Vec::new(),
            },
        );
    }

    /// Sets the thrower when it becomes known after the spawn.
    pub fn thrower(&mut self, entity: i32, thrower: impl Into<Thrower>) {
        if let Some(f) = self.live.get_mut(&entity) {
            if f.thrower.is_unknown() {
                f.thrower = thrower.into();
            }
        }
    }

    /// Sets the entity index of the thrower's pawn (`m_hThrower`), used to
    /// link a fire to its projectile.
    pub fn thrower_pawn(&mut self, entity: i32, pawn: i32) {
        if let Some(f) = self.live.get_mut(&entity) {
            f.thrower_pawn = Some(pawn);
        }
    }

    /// Changes the grenade type of a live projectile (a molotov projectile
    /// whose `m_bIsIncGrenade` is set is an incendiary).
    pub fn set_kind(&mut self, entity: i32, kind: &str) {
        if let Some(f) = self.live.get_mut(&entity) {
            if f.kind != kind {
                f.kind = kind.to_string();
            }
        }
    }

    /// Whether a live flight lacks its thrower.
    pub fn needs_thrower(&self, entity: i32) -> bool {
        self.live
            .get(&entity)
            .is_some_and(|f| f.thrower.is_unknown())
    }

    /// A live projectile is at `pos` at `tick`.
    pub fn point(&mut self, entity: i32, tick: i32, pos: [f32; 3]) {
        self.point_with(entity, tick, pos, Vec::new());
    }

    /// [`GrenadeTracker::point`], with the values of the extra props
    /// ([`GrenadesCollector::with_props`]) at that tick.
    pub fn point_with(&mut self, entity: i32, tick: i32, pos: [f32; 3], extra: Vec<Cell>) {
        let Some(f) = self.live.get_mut(&entity) else {
            return;
        };
        match f.points.last_mut() {
            Some((t, p, x)) if *t == tick => {
                *p = pos;
                *x = extra;
            }
            _ => f.points.push((tick, pos, extra)),
        }
    }

    /// A detonation event names projectile entity `entity`: links it to
    /// the live flight of that entity whose type is one of `kinds`, else to
    /// the last such flight deleted at most
    /// [`DETONATE_AFTER_DELETE_TICKS`] before. The first detonation of a
    /// flight is kept. Returns the flight's `grenade_id`.
    pub fn detonate(
        &mut self,
        entity: i32,
        tick: i32,
        pos: [f32; 3],
        kinds: &[&str],
    ) -> Option<i64> {
        let fits = |f: &Flight| f.entity == entity && kinds.contains(&f.kind.as_str());
        let flight = match self.live.get_mut(&entity).filter(|f| fits(f)) {
            Some(f) => f,
            None => self.done.iter_mut().rev().find(|f| {
                fits(f)
                    && f.end
                        .is_some_and(|e| e <= tick && e >= tick - DETONATE_AFTER_DELETE_TICKS)
            })?,
        };
        if flight.detonation.is_none() {
            flight.detonation = Some((tick, pos));
        }
        Some(flight.id)
    }

    /// A fire started at `pos` (`inferno_startburn`, or `molotov_detonate`)
    /// from a player whose pawn is `thrower_pawn` (when known): links it to
    /// a molotov or incendiary flight that has not detonated, was spawned
    /// at or before `tick`, is alive or was deleted at most
    /// [`FIRE_AFTER_DELETE_TICKS`] before, and has that thrower (when both
    /// are known); of several, the one whose last point is nearest to
    /// `pos`, then the latest spawned. Returns the flight's `grenade_id`.
    pub fn fire(&mut self, tick: i32, pos: [f32; 3], thrower_pawn: Option<i32>) -> Option<i64> {
        let candidate = |f: &Flight| {
            matches!(f.kind.as_str(), "molotov" | "incendiary")
                && f.detonation.is_none()
                && f.start <= tick
                && f.end
                    .is_none_or(|e| e <= tick && e >= tick - FIRE_AFTER_DELETE_TICKS)
                && match (thrower_pawn, f.thrower_pawn) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                }
        };
        let distance = |f: &Flight| {
            f.points.last().map_or(f32::INFINITY, |(_, p, _)| {
                p.iter()
                    .zip(pos)
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum::<f32>()
            })
        };
        let best = self
            .live
            .values_mut()
            .chain(self.done.iter_mut())
            .filter(|f| candidate(f))
            .min_by(|a, b| distance(a).total_cmp(&distance(b)).then(b.id.cmp(&a.id)))?;
        best.detonation = Some((tick, pos));
        Some(best.id)
    }

    /// A projectile entity was deleted.
    pub fn remove(&mut self, entity: i32, tick: i32) {
        if let Some(mut f) = self.live.remove(&entity) {
            f.end = Some(tick);
            self.done.push(f);
        }
    }

    /// The table: flights in spawn order, points in tick order. Flights
    /// still alive at the end have a null end tick; flights with no linked
    /// detonation have null `detonate_*` columns.
    pub fn finish(self) -> Table {
        self.finish_with(&[])
    }

    /// [`GrenadeTracker::finish`], with extra columns after the fixed ones
    /// ([`crate::reference::GRENADES`])
    /// for the values each point carries.
    pub fn finish_with(mut self, extra: &[(&str, Kind)]) -> Table {
        self.done
            .extend(std::mem::take(&mut self.live).into_values());
        self.done.sort_by_key(|f| f.id);
        let schema: Vec<(&str, Kind)> = GRENADES
            .schema()
            .into_iter()
            .chain(extra.iter().copied())
            .collect();
        let mut t = Table::with_schema("grenades", &schema);
        let int = |v: Option<i32>| v.map_or(Cell::Null, |v| Cell::Int(i64::from(v)));
        for f in &self.done {
            let det = |axis: usize| {
                f.detonation
                    .and_then(|(_, p)| p.get(axis).copied())
                    .map_or(Cell::Null, Cell::Float)
            };
            for (tick, pos, values) in &f.points {
                let mut row = vec![
                    Cell::Int(f.id),
                    Cell::Int(i64::from(f.entity)),
                    Cell::Str(f.kind.clone()),
                    f.thrower.name.clone().map(Cell::Str).unwrap_or(Cell::Null),
                    f.thrower.steamid.map(Cell::UInt).unwrap_or(Cell::Null),
                    f.thrower.slot.map(Cell::Int).unwrap_or(Cell::Null),
                    f.thrower.team.map(Cell::Int).unwrap_or(Cell::Null),
                    Cell::Int(i64::from(f.start)),
                    int(f.end),
                    int(f.detonation.map(|(t, _)| t)),
                    det(0),
                    det(1),
                    det(2),
                    Cell::Int(i64::from(*tick)),
                    Cell::Float(pos[0]),
                    Cell::Float(pos[1]),
                    Cell::Float(pos[2]),
                ];
                row.extend((0..extra.len()).map(|i| values.get(i).cloned().unwrap_or(Cell::Null)));
                t.push_row(&row);
            }
        }
        t
    }
}

/// `grenades` from entities and events: projectile classes, `m_hThrower` →
/// pawn → controller, positions from the body component, detonations from
/// the grenade events ([`DETONATIONS`] by `entityid`; molotov and
/// incendiary fires by thrower and position, [`GrenadeTracker::fire`]).
#[derive(Debug, Default)]
pub struct GrenadesCollector {
    /// The flights.
    pub tracker: GrenadeTracker,
    paths: PropCache,
    /// Raw props of the projectile entity, one column each
    /// (demoparser2's `parse_grenades(extra=...)`).
    props: Vec<String>,
}

impl GrenadesCollector {
    /// A collector that also reads these raw props of the projectile
    /// entity (`m_nBounces`, `CBodyComponent.m_vecX`; nested tables by
    /// field or serializer name) at every point.
    pub fn with_props(props: &[String]) -> Self {
        GrenadesCollector {
            props: props.to_vec(),
            ..GrenadesCollector::default()
        }
    }

    /// The table; each extra prop's column type is its field's in the
    /// projectile classes' serializers (from the values where no class
    /// declares it).
    pub fn finish(self, state: &DemoState) -> Table {
        let kinds: Vec<Option<Kind>> = self.props.iter().map(|p| grenade_kind(state, p)).collect();
        let inferred: Vec<Kind> = (0..self.props.len())
            .map(|i| {
                let flights = self.tracker.live.values().chain(&self.tracker.done);
                let cells: Vec<&Cell> = flights
                    .flat_map(|f| f.points.iter().filter_map(move |(_, _, x)| x.get(i)))
                    .collect();
                infer_kind(cells.into_iter())
            })
            .collect();
        let extra: Vec<(&str, Kind)> = self
            .props
            .iter()
            .zip(kinds.iter().zip(inferred))
            .map(|(p, (k, inferred))| (p.as_str(), k.unwrap_or(inferred)))
            .collect();
        self.tracker.finish_with(&extra)
    }

    fn thrower(&mut self, state: &DemoState, e: &Entity) -> Thrower {
        let Some(raw) = self
            .paths
            .value(state, e, "m_hThrower")
            .and_then(Value::as_u64)
        else {
            return Thrower::default();
        };
        let p = player_by_handle(state, &mut self.paths, raw);
        if p.controller.is_none() {
            return Thrower::default();
        }
        let (name, steamid) = identity(state, &mut self.paths, &p);
        Thrower {
            name,
            steamid,
            slot: p.slot.and_then(|s| i64::try_from(s).ok()),
            team: team_of(state, &mut self.paths, &p),
        }
    }

    /// Takes one entity change.
    pub fn on_entity(
        &mut self,
        state: &DemoState,
        change: gamewire_source2::EntityChange,
        e: &Entity,
    ) {
        use gamewire_source2::EntityChange;
        if grenade_type(state.class_name(e)).is_none() {
            return;
        }
        let Some(kind) = entity_grenade_type(state, &mut self.paths, e) else {
            return;
        };
        match change {
            EntityChange::Created => {
                let who = self.thrower(state, e);
                self.tracker.spawn(e.index, state.tick, kind, who);
            }
            EntityChange::Deleted => {
                self.tracker.remove(e.index, state.tick);
                return;
            }
            EntityChange::Updated => {
                if self.tracker.needs_thrower(e.index) {
                    let who = self.thrower(state, e);
                    self.tracker.thrower(e.index, who);
                }
                self.tracker.set_kind(e.index, kind);
            }
            EntityChange::LeftPvs => return,
        }
        if let Some(pawn) = self
            .paths
            .value(state, e, "m_hThrower")
            .and_then(Value::as_u64)
            .and_then(handle_index)
        {
            self.tracker.thrower_pawn(e.index, pawn);
        }
        if let Some(pos) = entity_position(state, &mut self.paths, e) {
            let extra = self
                .props
                .iter()
                .map(|p| {
                    self.paths
                        .value(state, e, p)
                        .map(Cell::from_value)
                        .unwrap_or(Cell::Null)
                })
                .collect();
            self.tracker.point_with(e.index, state.tick, pos, extra);
        }
    }

    /// Takes one game event: links detonations to flights.
    pub fn on_event(&mut self, state: &DemoState, ev: &GameEvent) {
        let float = |k: &str| match ev.get(k) {
            Some(EventValue::Float(f)) => *f,
            _ => f32::NAN,
        };
        let pos = [float("x"), float("y"), float("z")];
        let entity = ev
            .get("entityid")
            .and_then(EventValue::as_i64)
            .and_then(|i| i32::try_from(i).ok());
        if let Some((_, kind)) = DETONATIONS.iter().find(|(n, _)| *n == ev.name) {
            if let Some(entity) = entity {
                self.tracker.detonate(entity, ev.tick, pos, &[kind]);
            }
            return;
        }
        let thrower_pawn = match ev.name.as_str() {
            // The inferno's owner is the thrower's pawn.
            "inferno_startburn" => entity
                .and_then(|i| state.entities.get(i))
                .and_then(|e| {
                    ["m_hOwnerEntity", "m_nOwnerId"]
                        .iter()
                        .find_map(|p| self.paths.value(state, e, p).and_then(Value::as_u64))
                })
                .and_then(handle_index),
            "molotov_detonate" => {
                let p = event_player(state, &mut self.paths, ev, "userid").unwrap_or_default();
                p.pawn.map(|e| e.index)
            }
            _ => return,
        };
        self.tracker.fire(ev.tick, pos, thrower_pawn);
    }
}

/// The value of an event key as an integer (for tests and callers).
pub fn event_int(ev: &GameEvent, key: &str) -> Option<i64> {
    ev.get(key).and_then(EventValue::as_i64)
}
