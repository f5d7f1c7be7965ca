//! Collectors for `events`, `players`, `chat` and `grenades`.

use std::collections::BTreeMap;

use gamewire_source2::cs2::{prop_source, Cell, PropSource};
use gamewire_source2::gameevent::{EventValue, GameEvent};
use gamewire_source2::{DemoState, Entity, UserMessage, Value};

use crate::matches::hitgroup_name;
use crate::props::{
    cell_of_event, event_player, identity, other_prop, other_source, player_by_handle,
    player_by_slot, player_prop, position, OtherSource, Paths, PlayerEnts, INTERNAL_KEYS,
    PLAYER_KEYS,
};
use crate::table::{Kind, Table};

/// `events`: demoparser2's `parse_event` rows. `event_name`, `tick`, the
/// event's keys (without the player keys), then for each player key
/// (`attacker`, `userid` → `user`, `assister`, `victim`) `<p>_name`,
/// `<p>_steamid` and `<p>_<prop>` for each player prop asked for, then the
/// game-wide props asked for. `hitgroup` is a name, as in demoparser2.
#[derive(Debug)]
pub struct EventsCollector {
    names: Option<Vec<String>>,
    player_props: Vec<(String, PropSource)>,
    other_props: Vec<(String, OtherSource)>,
    paths: Paths,
    columns: Vec<String>,
    rows: Vec<Vec<(usize, Cell)>>,
}

impl EventsCollector {
    /// Events with these names (all when `None`), with these player and
    /// game-wide props (names already validated or unknown ones ignored).
    pub fn new(
        names: Option<Vec<String>>,
        player_props: &[String],
        other_props: &[String],
    ) -> Self {
        EventsCollector {
            names,
            player_props: player_props
                .iter()
                .map(|p| (p.clone(), prop_source(crate::props::player_prop_path(p))))
                .collect(),
            other_props: other_props
                .iter()
                .filter_map(|p| other_source(p).map(|s| (p.clone(), s)))
                .collect(),
            paths: Paths::default(),
            columns: vec!["event_name".into(), "tick".into()],
            rows: Vec::new(),
        }
    }

    fn col(&mut self, name: &str) -> usize {
        match self.columns.iter().position(|c| c == name) {
            Some(i) => i,
            None => {
                self.columns.push(name.to_string());
                self.columns.len() - 1
            }
        }
    }

    /// Takes one game event.
    pub fn on_event(&mut self, state: &DemoState, ev: &GameEvent) {
        if let Some(names) = &self.names {
            if !names.contains(&ev.name) {
                return;
            }
        }
        let mut row: Vec<(usize, Cell)> = vec![
            (0, Cell::Str(ev.name.clone())),
            (1, Cell::Int(i64::from(ev.tick))),
        ];
        for (k, _, v) in &ev.keys {
            if INTERNAL_KEYS.contains(&k.as_str()) {
                continue;
            }
            let cell = match (k.as_str(), v.as_i64()) {
                ("hitgroup", Some(h)) => hitgroup_name(h)
                    .map(|s| Cell::Str(s.to_string()))
                    .unwrap_or(Cell::Int(h)),
                _ => cell_of_event(v),
            };
            let i = self.col(k);
            row.push((i, cell));
        }
        for (key, prefix) in PLAYER_KEYS {
            let present = ev.get(key).is_some() || ev.get(&format!("{key}_pawn")).is_some();
            if !present {
                continue;
            }
            let p: PlayerEnts<'_> =
                event_player(state, &mut self.paths, ev, key).unwrap_or_default();
            let resolved = p.controller.is_some() || p.slot.is_some();
            let (name, steamid) = if resolved {
                identity(state, &mut self.paths, &p)
            } else {
                (None, None)
            };
            // demoparser2 knows players by steam id: bots (steam id 0) and
            // unresolved players get null columns, props included.
            let steamid = steamid.filter(|&s| s != 0);
            let name = name.filter(|_| steamid.is_some());
            let p = if steamid.is_some() {
                p
            } else {
                PlayerEnts::default()
            };
            let i = self.col(&format!("{prefix}_name"));
            row.push((i, name.map(Cell::Str).unwrap_or(Cell::Null)));
            let i = self.col(&format!("{prefix}_steamid"));
            row.push((i, steamid.map(Cell::UInt).unwrap_or(Cell::Null)));
            for pi in 0..self.player_props.len() {
                let Some((pname, src)) = self.player_props.get(pi).cloned() else {
                    continue;
                };
                let cell = player_prop(state, &mut self.paths, &p, &src);
                let i = self.col(&format!("{prefix}_{pname}"));
                row.push((i, cell));
            }
        }
        for oi in 0..self.other_props.len() {
            let Some((oname, src)) = self.other_props.get(oi).cloned() else {
                continue;
            };
            let cell = other_prop(state, &mut self.paths, &src);
            let i = self.col(&oname);
            row.push((i, cell));
        }
        self.rows.push(row);
    }

    /// The table.
    pub fn finish(self) -> Table {
        let n = self.columns.len();
        let rows: Vec<Vec<Cell>> = self
            .rows
            .into_iter()
            .map(|sparse| {
                let mut row = vec![Cell::Null; n];
                for (i, c) in sparse {
                    if let Some(slot) = row.get_mut(i) {
                        *slot = c;
                    }
                }
                row
            })
            .collect();
        Table::from_cells("events", &self.columns, &rows)
    }
}

/// Columns of `players`.
pub const PLAYERS: &[(&str, Kind)] = &[
    ("slot", Kind::I64),
    ("userid", Kind::I64),
    ("name", Kind::Str),
    ("steamid", Kind::U64),
    ("fake_player", Kind::Bool),
    ("is_hltv", Kind::Bool),
    ("first_tick", Kind::I64),
    ("team_num", Kind::I64),
    ("score", Kind::I64),
    ("kills_total", Kind::I64),
    ("deaths_total", Kind::I64),
    ("assists_total", Kind::I64),
    ("damage_total", Kind::I64),
    ("mvps", Kind::I64),
    ("ping", Kind::I64),
    ("rank", Kind::I64),
];

const PLAYER_CONTROLLER_PROPS: &[&str] = &[
    "m_iTeamNum",
    "m_iScore",
    "m_pActionTrackingServices.m_iKills",
    "m_pActionTrackingServices.m_iDeaths",
    "m_pActionTrackingServices.m_iAssists",
    "m_pActionTrackingServices.m_iDamage",
    "m_iMVPs",
    "m_iPing",
    "m_iCompetitiveRanking",
];

#[derive(Debug, Clone)]
struct SeenPlayer {
    info: gamewire_source2::PlayerInfo,
    first_tick: i32,
    controller: Vec<Cell>,
}

/// `players`: every `userinfo` entry seen (one row per slot and steam id),
/// with the controller's team, score and match stats as last seen.
#[derive(Debug, Default)]
pub struct PlayersCollector {
    seen: BTreeMap<(usize, u64, String), SeenPlayer>,
    paths: Paths,
}

impl PlayersCollector {
    /// Records the current `userinfo` entries.
    pub fn on_userinfo(&mut self, state: &DemoState) {
        for (slot, info) in &state.players {
            self.seen
                .entry((*slot, info.steamid, info.name.clone()))
                .or_insert_with(|| SeenPlayer {
                    info: info.clone(),
                    first_tick: state.tick,
                    controller: Vec::new(),
                });
        }
    }

    /// Refreshes controller values of the players currently connected
    /// (called once per tick).
    pub fn on_tick(&mut self, state: &DemoState) {
        for (slot, info) in &state.players {
            let Some(controller) = state
                .entities
                .get(*slot as i32 + 1)
                .filter(|e| state.class_name(e).ends_with("PlayerController"))
            else {
                continue;
            };
            let values: Vec<Cell> = PLAYER_CONTROLLER_PROPS
                .iter()
                .map(|p| {
                    self.paths
                        .value(state, controller, p)
                        .and_then(Value::as_i64)
                        .map(Cell::Int)
                        .unwrap_or(Cell::Null)
                })
                .collect();
            if let Some(s) = self.seen.get_mut(&(*slot, info.steamid, info.name.clone())) {
                s.controller = values;
            }
        }
    }

    /// The table.
    pub fn finish(mut self, state: &DemoState) -> Table {
        self.on_userinfo(state);
        self.on_tick(state);
        let mut t = Table::with_schema("players", PLAYERS);
        for s in self.seen.values() {
            let mut row = vec![
                Cell::Int(s.info.slot as i64),
                Cell::Int(i64::from(s.info.userid)),
                Cell::Str(s.info.name.clone()),
                Cell::UInt(s.info.steamid),
                Cell::Bool(s.info.fake_player),
                Cell::Bool(s.info.is_hltv),
                Cell::Int(i64::from(s.first_tick)),
            ];
            row.extend(s.controller.iter().cloned());
            t.push_row(&row);
        }
        t
    }
}

/// Columns of `chat`.
pub const CHAT: &[(&str, Kind)] = &[
    ("tick", Kind::I64),
    ("entity_index", Kind::I64),
    ("name", Kind::Str),
    ("steamid", Kind::U64),
    ("text", Kind::Str),
    ("all_chat", Kind::Bool),
    ("kind", Kind::Str),
];

/// `chat`: `SayText2`/`SayText` user messages.
#[derive(Debug)]
pub struct ChatCollector {
    /// The rows so far.
    pub table: Table,
    paths: Paths,
}

impl Default for ChatCollector {
    fn default() -> Self {
        ChatCollector {
            table: Table::with_schema("chat", CHAT),
            paths: Paths::default(),
        }
    }
}

impl ChatCollector {
    /// Takes one user message.
    pub fn on_message(&mut self, state: &DemoState, msg: &UserMessage<'_>) {
        let Some(chat) = msg.chat() else { return };
        let p = player_by_slot(state, &mut self.paths, i64::from(chat.entity_index) - 1);
        let steamid = if chat.entity_index > 0 {
            identity(state, &mut self.paths, &p).1
        } else {
            None
        };
        self.table.push_row(&[
            Cell::Int(i64::from(state.tick)),
            Cell::Int(i64::from(chat.entity_index)),
            Cell::Str(chat.name),
            steamid.map(Cell::UInt).unwrap_or(Cell::Null),
            Cell::Str(chat.text),
            Cell::Bool(chat.all_chat),
            Cell::Str(chat.kind),
        ]);
    }
}

/// Columns of `grenades` (one row per grenade per tick it moved).
pub const GRENADES: &[(&str, Kind)] = &[
    ("grenade_id", Kind::I64),
    ("entity_index", Kind::I64),
    ("grenade_type", Kind::Str),
    ("thrower_name", Kind::Str),
    ("thrower_steamid", Kind::U64),
    ("start_tick", Kind::I64),
    ("end_tick", Kind::I64),
    ("tick", Kind::I64),
    ("x", Kind::F32),
    ("y", Kind::F32),
    ("z", Kind::F32),
];

/// The grenade type of a projectile class, `None` for other classes.
pub fn grenade_type(class: &str) -> Option<&'static str> {
    Some(match class {
        "CSmokeGrenadeProjectile" => "smoke",
        "CHEGrenadeProjectile" => "he_grenade",
        "CFlashbangProjectile" => "flashbang",
        "CMolotovProjectile" => "molotov",
        "CDecoyProjectile" => "decoy",
        "CIncendiaryGrenadeProjectile" => "incendiary",
        "CSnowballProjectile" => "snowball",
        _ => return None,
    })
}

#[derive(Debug, Clone)]
struct Flight {
    id: i64,
    entity: i32,
    kind: String,
    thrower_name: Option<String>,
    thrower_steamid: Option<u64>,
    start: i32,
    end: Option<i32>,
    points: Vec<(i32, [f32; 3])>,
}

/// Tracks grenade flights from entity lifetimes: a projectile entity is
/// spawned (start tick), moves (one point per tick, the last position of
/// the tick kept), and is deleted (end tick).
#[derive(Debug, Default)]
pub struct GrenadeTracker {
    live: BTreeMap<i32, Flight>,
    done: Vec<Flight>,
    next_id: i64,
}

impl GrenadeTracker {
    /// A projectile entity was created.
    pub fn spawn(
        &mut self,
        entity: i32,
        tick: i32,
        kind: &str,
        thrower: (Option<String>, Option<u64>),
    ) {
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
                thrower_name: thrower.0,
                thrower_steamid: thrower.1,
                start: tick,
                end: None,
                points: Vec::new(),
            },
        );
    }

    /// Sets the thrower when it becomes known after the spawn.
    pub fn thrower(&mut self, entity: i32, thrower: (Option<String>, Option<u64>)) {
        if let Some(f) = self.live.get_mut(&entity) {
            if f.thrower_name.is_none() && f.thrower_steamid.is_none() {
                f.thrower_name = thrower.0;
                f.thrower_steamid = thrower.1;
            }
        }
    }

    /// Whether a live flight lacks its thrower.
    pub fn needs_thrower(&self, entity: i32) -> bool {
        self.live
            .get(&entity)
            .is_some_and(|f| f.thrower_name.is_none() && f.thrower_steamid.is_none())
    }

    /// A live projectile is at `pos` at `tick`.
    pub fn point(&mut self, entity: i32, tick: i32, pos: [f32; 3]) {
        let Some(f) = self.live.get_mut(&entity) else {
            return;
        };
        match f.points.last_mut() {
            Some((t, p)) if *t == tick => *p = pos,
            _ => f.points.push((tick, pos)),
        }
    }

    /// A projectile entity was deleted.
    pub fn remove(&mut self, entity: i32, tick: i32) {
        if let Some(mut f) = self.live.remove(&entity) {
            f.end = Some(tick);
            self.done.push(f);
        }
    }

    /// The table: flights in spawn order, points in tick order. Flights
    /// still alive at the end have a null end tick.
    pub fn finish(mut self) -> Table {
        self.done
            .extend(std::mem::take(&mut self.live).into_values());
        self.done.sort_by_key(|f| f.id);
        let mut t = Table::with_schema("grenades", GRENADES);
        for f in &self.done {
            for (tick, pos) in &f.points {
                t.push_row(&[
                    Cell::Int(f.id),
                    Cell::Int(i64::from(f.entity)),
                    Cell::Str(f.kind.clone()),
                    f.thrower_name.clone().map(Cell::Str).unwrap_or(Cell::Null),
                    f.thrower_steamid.map(Cell::UInt).unwrap_or(Cell::Null),
                    Cell::Int(i64::from(f.start)),
                    f.end.map(|e| Cell::Int(i64::from(e))).unwrap_or(Cell::Null),
                    Cell::Int(i64::from(*tick)),
                    Cell::Float(pos[0]),
                    Cell::Float(pos[1]),
                    Cell::Float(pos[2]),
                ]);
            }
        }
        t
    }
}

/// `grenades` from entities: projectile classes, `m_hThrower` → pawn →
/// controller, positions from the body component.
#[derive(Debug, Default)]
pub struct GrenadesCollector {
    /// The flights.
    pub tracker: GrenadeTracker,
    paths: Paths,
}

impl GrenadesCollector {
    fn thrower(&mut self, state: &DemoState, e: &Entity) -> (Option<String>, Option<u64>) {
        let Some(raw) = self
            .paths
            .value(state, e, "m_hThrower")
            .and_then(Value::as_u64)
        else {
            return (None, None);
        };
        let p = player_by_handle(state, &mut self.paths, raw);
        if p.controller.is_none() {
            return (None, None);
        }
        identity(state, &mut self.paths, &p)
    }

    /// Takes one entity change.
    pub fn on_entity(
        &mut self,
        state: &DemoState,
        change: gamewire_source2::EntityChange,
        e: &Entity,
    ) {
        use gamewire_source2::EntityChange;
        let Some(kind) = grenade_type(state.class_name(e)) else {
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
            }
            EntityChange::LeftPvs => return,
        }
        if let Some(pos) = position(state, &mut self.paths, e) {
            self.tracker.point(e.index, state.tick, pos);
        }
    }
}

/// The value of an event key as an integer (for tests and callers).
pub fn event_int(ev: &GameEvent, key: &str) -> Option<i64> {
    ev.get(key).and_then(EventValue::as_i64)
}
