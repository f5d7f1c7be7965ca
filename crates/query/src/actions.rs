//! Per-action tables from CS2 game events (awpy's tables): `shots`
//! (`weapon_fire`), `bomb` (the bomb's plant, defuse, drop and pickup
//! events), `smokes` and `infernos` (a grenade's effect from its start event
//! to its end event, paired by the grenade's `entityid`), `flashes`
//! (`player_blind`) and `footsteps` (`player_footstep`).
//!
//! A player's name, steam id, slot and team come from the controller the
//! event's key names, as in the match tables (bots keep their names, with
//! steam id 0); the position and view
//! angles are those of the player's pawn when the event is read, before the
//! entities of the same packet are applied (as the `events` table's player
//! props).

use rustc_hash::FxHashMap;

use gamewire_source2::gameevent::{EventValue, GameEvent};
use gamewire_source2::DemoState;

use crate::matches::{boolean, float, int, weapon_cells, who_and_pawn};
use crate::player_props::entity_position;
use crate::prop_paths::PropCache;
use crate::reference::{self, TableSpec};
use crate::table::{Cell, Table};

/// The bomb events and the `action` they give.
const BOMB_EVENTS: &[(&str, &str)] = &[
    ("bomb_beginplant", "beginplant"),
    ("bomb_abortplant", "abortplant"),
    ("bomb_planted", "planted"),
    ("bomb_begindefuse", "begindefuse"),
    ("bomb_abortdefuse", "abortdefuse"),
    ("bomb_defused", "defused"),
    ("bomb_exploded", "exploded"),
    ("bomb_dropped", "dropped"),
    ("bomb_pickup", "pickup"),
];

/// The start and end events of each effect table.
const SMOKE_EVENTS: (&str, &str) = ("smokegrenade_detonate", "smokegrenade_expired");
const INFERNO_EVENTS: (&str, &str) = ("inferno_startburn", "inferno_expire");

/// X, Y, Z of a pawn (null without one).
fn position(
    state: &DemoState,
    paths: &mut PropCache,
    pawn: Option<&gamewire_source2::Entity>,
) -> [Cell; 3] {
    match pawn.and_then(|p| entity_position(state, paths, p)) {
        Some([x, y, z]) => [Cell::Float(x), Cell::Float(y), Cell::Float(z)],
        None => [Cell::Null, Cell::Null, Cell::Null],
    }
}

/// Pitch and yaw of a pawn's eyes (null without one).
fn view(
    state: &DemoState,
    paths: &mut PropCache,
    pawn: Option<&gamewire_source2::Entity>,
) -> [Cell; 2] {
    let angles = pawn
        .and_then(|p| paths.value(state, p, "m_angEyeAngles"))
        .and_then(gamewire_source2::Value::as_floats);
    match angles {
        Some([pitch, yaw, ..]) => [Cell::Float(*pitch), Cell::Float(*yaw)],
        _ => [Cell::Null, Cell::Null],
    }
}

/// A grenade effect: where and when it started, and who threw it.
#[derive(Debug)]
struct Effect {
    /// `None` for an end whose start the demo does not hold.
    start_tick: Option<i32>,
    thrower: [Cell; 4],
    position: [Cell; 3],
}

/// One effect table: the effects still running, by grenade entity, and
/// the ended ones with their end tick.
#[derive(Debug)]
struct Effects {
    table: Table,
    events: (&'static str, &'static str),
    open: FxHashMap<i64, Effect>,
    ended: Vec<(i64, Effect, Option<i32>)>,
}

impl Effects {
    fn new(spec: &TableSpec, events: (&'static str, &'static str)) -> Self {
        Effects {
            table: spec.empty_table(),
            events,
            open: FxHashMap::default(),
            ended: Vec::new(),
        }
    }

    fn effect(
        state: &DemoState,
        paths: &mut PropCache,
        ev: &GameEvent,
        start: Option<i32>,
    ) -> Effect {
        let (thrower, _) = who_and_pawn(state, paths, ev, "userid");
        Effect {
            start_tick: start,
            thrower,
            position: [float(ev, "x"), float(ev, "y"), float(ev, "z")],
        }
    }

    fn on_event(&mut self, state: &DemoState, paths: &mut PropCache, ev: &GameEvent) {
        let id = ev
            .get("entityid")
            .and_then(EventValue::as_i64)
            .unwrap_or(-1);
        if ev.name == self.events.0 {
            let effect = Self::effect(state, paths, ev, Some(ev.tick));
            // A second start of the same entity ends the first (end unknown).
            if let Some(prev) = self.open.insert(id, effect) {
                self.ended.push((id, prev, None));
            }
        } else if ev.name == self.events.1 {
            // An end without its start: the demo began after it.
            let effect = match self.open.remove(&id) {
                Some(e) => e,
                None => Self::effect(state, paths, ev, None),
            };
            self.ended.push((id, effect, Some(ev.tick)));
        }
    }

    /// The rows in start order (an end without a start first), effects
    /// still running at the end of the demo with a null end.
    fn finish(mut self) -> Table {
        let running = self.open.drain().map(|(id, e)| (id, e, None));
        self.ended.extend(running);
        self.ended.sort_by_key(|(id, e, _)| (e.start_tick, *id));
        let tick = |t: Option<i32>| t.map(|t| Cell::Int(i64::from(t))).unwrap_or(Cell::Null);
        for (id, e, end) in self.ended {
            let mut row = vec![Cell::Int(id), tick(e.start_tick), tick(end)];
            row.extend(e.thrower);
            row.extend(e.position);
            self.table.push_row(&row);
        }
        self.table
    }
}

/// Builds the action tables from events, in one pass.
#[derive(Debug)]
pub struct ActionTables {
    shots: Option<Table>,
    bomb: Option<Table>,
    smokes: Option<Effects>,
    infernos: Option<Effects>,
    flashes: Option<Table>,
    footsteps: Option<Table>,
    paths: PropCache,
}

/// Which action tables to build.
#[derive(Debug, Clone, Copy, Default)]
pub struct ActionKinds {
    /// `shots`.
    pub shots: bool,
    /// `bomb`.
    pub bomb: bool,
    /// `smokes`.
    pub smokes: bool,
    /// `infernos`.
    pub infernos: bool,
    /// `flashes`.
    pub flashes: bool,
    /// `footsteps`.
    pub footsteps: bool,
}

impl ActionTables {
    /// Collects the tables asked for.
    pub fn new(kinds: ActionKinds) -> Self {
        ActionTables {
            shots: kinds.shots.then(|| reference::SHOTS.empty_table()),
            bomb: kinds.bomb.then(|| reference::BOMB.empty_table()),
            smokes: kinds
                .smokes
                .then(|| Effects::new(&reference::SMOKES, SMOKE_EVENTS)),
            infernos: kinds
                .infernos
                .then(|| Effects::new(&reference::INFERNOS, INFERNO_EVENTS)),
            flashes: kinds.flashes.then(|| reference::FLASHES.empty_table()),
            footsteps: kinds.footsteps.then(|| reference::FOOTSTEPS.empty_table()),
            paths: PropCache::default(),
        }
    }

    /// True when any table is collected.
    pub fn any(&self) -> bool {
        self.shots.is_some()
            || self.bomb.is_some()
            || self.smokes.is_some()
            || self.infernos.is_some()
            || self.flashes.is_some()
            || self.footsteps.is_some()
    }

    /// Takes one game event.
    pub fn on_event(&mut self, state: &DemoState, ev: &GameEvent) {
        let tick = Cell::Int(i64::from(ev.tick));
        let paths = &mut self.paths;
        match ev.name.as_str() {
            "weapon_fire" => {
                let Some(t) = &mut self.shots else { return };
                let (player, pawn) = who_and_pawn(state, paths, ev, "userid");
                let mut row = vec![tick];
                row.extend(player);
                row.extend(weapon_cells(ev));
                row.push(boolean(ev, "silenced"));
                row.extend(position(state, paths, pawn));
                row.extend(view(state, paths, pawn));
                t.push_row(&row);
            }
            "player_blind" => {
                let Some(t) = &mut self.flashes else { return };
                let (attacker, _) = who_and_pawn(state, paths, ev, "attacker");
                let (victim, _) = who_and_pawn(state, paths, ev, "userid");
                let mut row = vec![tick];
                row.extend(attacker);
                row.extend(victim);
                row.extend([float(ev, "blind_duration"), int(ev, "entityid")]);
                t.push_row(&row);
            }
            "player_footstep" => {
                let Some(t) = &mut self.footsteps else { return };
                let (player, pawn) = who_and_pawn(state, paths, ev, "userid");
                let mut row = vec![tick];
                row.extend(player);
                row.extend(position(state, paths, pawn));
                t.push_row(&row);
            }
            name => {
                if let Some((_, action)) = BOMB_EVENTS.iter().find(|(e, _)| *e == name) {
                    let Some(t) = &mut self.bomb else { return };
                    let (player, pawn) = who_and_pawn(state, paths, ev, "userid");
                    let mut row = vec![tick, Cell::Str((*action).to_string())];
                    row.extend(player);
                    row.extend([int(ev, "site"), boolean(ev, "haskit")]);
                    row.extend(position(state, paths, pawn));
                    t.push_row(&row);
                    return;
                }
                for effects in [&mut self.smokes, &mut self.infernos].into_iter().flatten() {
                    if name == effects.events.0 || name == effects.events.1 {
                        effects.on_event(state, paths, ev);
                    }
                }
            }
        }
    }

    /// The finished tables, in the order shots, bomb, smokes, infernos,
    /// flashes, footsteps.
    pub fn finish(self) -> Vec<Table> {
        [
            self.shots,
            self.bomb,
            self.smokes.map(Effects::finish),
            self.infernos.map(Effects::finish),
            self.flashes,
            self.footsteps,
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::table::Column;

    fn event(name: &str, tick: i32, keys: &[(&str, EventValue)]) -> GameEvent {
        GameEvent {
            name: name.to_string(),
            id: 0,
            tick,
            keys: keys
                .iter()
                .map(|(k, v)| (k.to_string(), 0, v.clone()))
                .collect(),
        }
    }

    fn all() -> ActionTables {
        ActionTables::new(ActionKinds {
            shots: true,
            bomb: true,
            smokes: true,
            infernos: true,
            flashes: true,
            footsteps: true,
        })
    }

    #[test]
    fn effects_pair_start_and_end_by_entity() {
        let state = DemoState::default();
        let mut t = all();
        let at = |x: f32| {
            [
                ("x", EventValue::Float(x)),
                ("y", EventValue::Float(2.0)),
                ("z", EventValue::Float(3.0)),
            ]
        };
        let smoke = |name: &str, tick: i32, id: i32, x: f32| {
            let mut keys = vec![("entityid", EventValue::Int(id))];
            keys.extend(at(x));
            event(name, tick, &keys)
        };
        // Two smokes overlapping, one still burning at the end; an expire
        // whose start the demo missed; an inferno.
        for ev in [
            smoke("smokegrenade_expired", 5, 90, 9.0),
            smoke("smokegrenade_detonate", 10, 100, 1.0),
            smoke("smokegrenade_detonate", 12, 101, 4.0),
            smoke("smokegrenade_expired", 1100, 100, 1.0),
            smoke("inferno_startburn", 20, 102, 7.0),
            smoke("inferno_expire", 470, 102, 7.0),
        ] {
            t.on_event(&state, &ev);
        }
        let tables = t.finish();
        let names: Vec<&str> = tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "shots",
                "bomb",
                "smokes",
                "infernos",
                "flashes",
                "footsteps"
            ]
        );
        let smokes = &tables[2];
        assert_eq!(smokes.rows(), 3);
        let Some(Column::I64(ids)) = smokes.column("entity_id") else {
            panic!()
        };
        assert_eq!(ids, &[Some(90), Some(100), Some(101)]);
        let Some(Column::I64(start)) = smokes.column("start_tick") else {
            panic!()
        };
        assert_eq!(start, &[None, Some(10), Some(12)]);
        let Some(Column::I64(end)) = smokes.column("end_tick") else {
            panic!()
        };
        assert_eq!(end, &[Some(5), Some(1100), None]);
        let Some(Column::F32(x)) = smokes.column("x") else {
            panic!()
        };
        assert_eq!(x, &[Some(9.0), Some(1.0), Some(4.0)]);
        let infernos = &tables[3];
        assert_eq!(infernos.rows(), 1);
        assert_eq!(infernos.row(0)[1], Cell::Int(20));
        assert_eq!(infernos.row(0)[2], Cell::Int(470));
    }

    #[test]
    fn bomb_flash_and_shot_rows_carry_their_keys() {
        let state = DemoState::default();
        let mut t = all();
        t.on_event(
            &state,
            &event("bomb_planted", 7, &[("site", EventValue::Int(412))]),
        );
        t.on_event(
            &state,
            &event("bomb_begindefuse", 8, &[("haskit", EventValue::Bool(true))]),
        );
        t.on_event(
            &state,
            &event(
                "player_blind",
                9,
                &[
                    ("blind_duration", EventValue::Float(2.5)),
                    ("entityid", EventValue::Int(300)),
                ],
            ),
        );
        t.on_event(
            &state,
            &event(
                "weapon_fire",
                10,
                &[
                    ("weapon", EventValue::String("weapon_ak47".into())),
                    ("silenced", EventValue::Bool(false)),
                ],
            ),
        );
        t.on_event(&state, &event("player_footstep", 11, &[]));
        t.on_event(&state, &event("round_start", 12, &[]));
        let tables = t.finish();
        let bomb = &tables[1];
        assert_eq!(bomb.rows(), 2);
        assert_eq!(bomb.row(0)[1], Cell::Str("planted".into()));
        let cell = |t: &Table, row: usize, name: &str| t.column(name).unwrap().cell(row);
        assert_eq!(cell(bomb, 0, "site"), Cell::Int(412));
        assert_eq!(cell(bomb, 1, "haskit"), Cell::Bool(true));
        // No entities: the player and position columns are null.
        assert_eq!(cell(bomb, 0, "name"), Cell::Null);
        assert_eq!(cell(bomb, 0, "slot"), Cell::Null);
        assert_eq!(cell(bomb, 0, "x"), Cell::Null);
        let flashes = &tables[4];
        assert_eq!(cell(flashes, 0, "blind_duration"), Cell::Float(2.5));
        assert_eq!(cell(flashes, 0, "entity_id"), Cell::Int(300));
        let shots = &tables[0];
        assert_eq!(cell(shots, 0, "weapon"), Cell::Str("ak47".into()));
        assert_eq!(
            cell(shots, 0, "weapon_class"),
            Cell::Str("weapon_ak47".into())
        );
        assert_eq!(cell(shots, 0, "silenced"), Cell::Bool(false));
        assert_eq!(tables[5].rows(), 1);
    }
}
