//! Teeworlds 0.7 recordings as flat tables: a pcap capture or a demo
//! (`.demo`) read in one pass ([`gamewire_teeworlds::recording`]) into the
//! [`Table`]s asked for, written like every other table (CSV, JSON Lines,
//! Parquet: [`crate::write`]).
//!
//! # Tables
//!
//! Every row of a capture starts with `flow` (the client/server flow's
//! index, in the order flows first appear) and `time` (seconds since the
//! capture's first datagram); every row of a demo starts with `tick`. In a
//! capture, `tick` is the tick of the latest snapshot the flow's server
//! sent (null before the first). Client ids are the server's player slots
//! (0 to 63); teams are Teeworlds' numbers (-1 spectators, 0 red, 1 blue).
//!
//! - `snapshots`: one row per snapshot: `tick`, `items`, `crc`; in a demo
//!   `full` (a keyframe, not a delta); in a capture `delta_tick` (the
//!   snapshot the delta applied to, -1 for none) and `crc_ok`.
//! - one table per snapshot object type, named as the protocol names it
//!   (`character`, `player_info`, `projectile`, `pickup`, `laser`, `flag`,
//!   `game_data`, `de_client_info`, ...; [`object_tables`]): one row per
//!   object per snapshot: `tick`, `id` (the item id; the client id for
//!   per-player objects), then the object's fields in protocol order, each
//!   an integer (`i64`) or a boolean; a field named like a leading column
//!   is prefixed `object_` (`character`'s own `tick` is `object_tick`). An array field is one column per
//!   element (`tune_params_0`, `tune_params_1`, ...), except the strings
//!   packed into ints (`de_client_info`'s `name`, `clan` and
//!   `skin_part_names_0` to `_5`), which are text. A table per type
//!   rather than one long table: each has typed columns of its own, and
//!   `character` joins `player_info` on `tick` and `id`.
//! - `players`: one row per player seen (a client id and a name): `client_id`,
//!   `name`, `clan`, `country`, `team` (the latest), `local` (the
//!   recording client itself), `first_tick` (the first client info),
//!   `left_tick` (the tick the server dropped the client, null if it did
//!   not), from the server's `sv_client_info`, `sv_team` and
//!   `sv_client_drop` messages and, in server demos, the `de_client_info`
//!   objects.
//! - `messages`: one row per message: `tick`, `kind` (`system`, `game`,
//!   `control`, `connless`, `ex`, `unknown`), `message` (its protocol
//!   name), `fields` (the decoded fields as a JSON object), `error` (why it
//!   did not decode, null when it did); a capture adds `direction` (`c2s` or
//!   `s2c`) after `time`. The snapshot messages (`snap`, `snap_single`,
//!   `snap_empty`) are left out: the `snapshots` and object tables hold
//!   what they carry.
//! - `chat`: one row per chat line the server sent: `tick`, `client_id`
//!   (-1 for the server), `name` (the sender's latest name, null if
//!   unknown), `mode` (`all`, `team`, `whisper`), `target_id`, `message`.
//! - `kills`: one row per kill message: `tick`, `attacker_client_id`,
//!   `attacker_name`, `victim_client_id`, `victim_name`, `weapon` (`hammer`,
//!   `gun`, `shotgun`, `grenade`, `laser`, `ninja`, or `world`, `self`,
//!   `game`), `mode_special` (flag-carrier bits).
//! - `summary`: one row: a capture's `flows`, `datagrams`,
//!   `datagrams_with_errors`, `snapshots`, `snapshot_crc_ok`; a demo's header
//!   (`version`, `net_version`, `map_name`, `map_size`, `map_crc`, `type`,
//!   `length_seconds`, `timestamp`) and `ticks`, `last_tick`, `snapshots`,
//!   `full_snapshots`, `messages`, `messages_not_decoded`.
//!
//! ```no_run
//! use gamewire_query::teeworlds::{demo_tables, TeeworldsTable};
//! let data = std::fs::read("match.demo").unwrap();
//! let wanted = ["character".parse::<TeeworldsTable>().unwrap(), TeeworldsTable::Chat];
//! let read = demo_tables(&data, &wanted).unwrap();
//! for table in &read.tables {
//!     println!("{}: {} rows", table.name, table.rows());
//! }
//! ```

use std::collections::HashMap;
use std::str::FromStr;

use gamewire_teeworlds::decoder::{DecodeError, Direction, Event};
use gamewire_teeworlds::demo::DemoFileError;
use gamewire_teeworlds::msg::{
    ints_to_str, FieldKind, GameMessage, Message, SnapObject, SystemMessage,
};
use gamewire_teeworlds::recording::{
    direction_name, CaptureReader, DemoRecord, DemoRecords, PcapSummary,
};
use gamewire_teeworlds::snapshot::Snapshot;

use crate::error::QueryError;
use crate::table::{Cell, Kind, Table};

/// A table of a Teeworlds recording (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TeeworldsTable {
    /// One row per snapshot.
    Snapshots,
    /// The objects of one type id, one row per object per snapshot.
    Objects(u16),
    /// One row per player seen.
    Players,
    /// One row per message.
    Messages,
    /// One row per chat line.
    Chat,
    /// One row per kill.
    Kills,
    /// One row: the recording's counts (and a demo's header).
    Summary,
}

/// The snapshot object types that have a table: (type id, name).
pub fn object_tables() -> Vec<(u16, &'static str)> {
    (0..=u16::MAX)
        .map_while(|id| match SnapObject::layout(id) {
            Some((name, _)) => Some(Some((id, name))),
            None if id == 0 => Some(None),
            None => None,
        })
        .flatten()
        .collect()
}

impl TeeworldsTable {
    /// Every table: the fixed ones, then one per object type.
    pub fn all() -> Vec<TeeworldsTable> {
        let mut out = vec![
            TeeworldsTable::Snapshots,
            TeeworldsTable::Players,
            TeeworldsTable::Messages,
            TeeworldsTable::Chat,
            TeeworldsTable::Kills,
            TeeworldsTable::Summary,
        ];
        out.extend(
            object_tables()
                .into_iter()
                .map(|(id, _)| TeeworldsTable::Objects(id)),
        );
        out
    }

    /// The table's name.
    pub fn name(self) -> &'static str {
        match self {
            TeeworldsTable::Snapshots => "snapshots",
            TeeworldsTable::Objects(id) => SnapObject::layout(id).map_or("objects", |(n, _)| n),
            TeeworldsTable::Players => "players",
            TeeworldsTable::Messages => "messages",
            TeeworldsTable::Chat => "chat",
            TeeworldsTable::Kills => "kills",
            TeeworldsTable::Summary => "summary",
        }
    }
}

impl FromStr for TeeworldsTable {
    type Err = QueryError;

    /// A table by name; an unknown name lists the valid ones and the
    /// closest.
    fn from_str(s: &str) -> Result<Self, QueryError> {
        let all = TeeworldsTable::all();
        if let Some(t) = all.iter().find(|t| t.name() == s.trim()) {
            return Ok(*t);
        }
        let names: Vec<&str> = all.iter().map(|t| t.name()).collect();
        let mut ranked: Vec<(usize, &str)> = names
            .iter()
            .map(|n| (edit_distance(s.trim(), n), *n))
            .collect();
        ranked.sort();
        Err(QueryError::UnknownTable {
            name: s.to_string(),
            valid: names.join(", "),
            closest: ranked
                .iter()
                .take(3)
                .map(|(_, n)| *n)
                .collect::<Vec<_>>()
                .join(", "),
        })
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            let del = row.get(j + 1).copied().unwrap_or(0) + 1;
            let ins = row.get(j).copied().unwrap_or(0) + 1;
            let best = del.min(ins).min(prev + cost);
            prev = row.get(j + 1).copied().unwrap_or(0);
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = best;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

/// The tables of one recording, in the order asked for.
#[derive(Debug)]
pub struct TeeworldsTables {
    /// The tables.
    pub tables: Vec<Table>,
    /// Non-fatal oddities, each a sentence naming where it was found
    /// (`flow 0, datagram 12: ...`).
    pub warnings: Vec<String>,
    /// Errors of a capture's datagrams, each a sentence naming the
    /// datagram; decoding went on after each.
    pub errors: Vec<String>,
    /// A demo that ended inside a chunk: the tables hold everything before.
    pub cut: Option<DemoFileError>,
    /// A capture's counts (`None` for a demo).
    pub capture: Option<PcapSummary>,
}

/// Where a row comes from: a capture's flow and time, or a demo.
#[derive(Debug, Clone, Copy)]
struct At {
    /// `(flow, seconds since the first datagram)` in a capture.
    capture: Option<(usize, f32)>,
    /// The tick.
    tick: Option<i32>,
}

impl At {
    fn cells(self) -> Vec<Cell> {
        let mut out = Vec::with_capacity(3);
        if let Some((flow, time)) = self.capture {
            out.push(Cell::Int(flow as i64));
            out.push(Cell::Float(time));
        }
        out.push(self.tick.map_or(Cell::Null, |t| Cell::Int(i64::from(t))));
        out
    }
}

/// How a column of an object table reads its ints.
#[derive(Debug, Clone)]
enum ObjectColumn {
    Int(usize),
    Bool(usize),
    /// A string packed into the ints `start..start + len`.
    Text(usize, usize),
}

/// The columns of an object table: the flat fields, with the packed
/// strings of `de_client_info` as text.
fn object_columns(fields: &[(&'static str, FieldKind)]) -> Vec<(String, ObjectColumn)> {
    // Packed strings: a field that is one array of ints named `name`,
    // `clan` or `skin_part_names_N`.
    let packed = |name: &str| {
        name.strip_suffix(|c: char| c.is_ascii_digit())
            .and_then(|n| n.strip_suffix('_'))
            .filter(|base| {
                matches!(*base, "name" | "clan")
                    || base
                        .strip_prefix("skin_part_names_")
                        .is_some_and(|i| i.parse::<u8>().is_ok())
            })
            .map(str::to_string)
    };
    let mut out: Vec<(String, ObjectColumn)> = Vec::new();
    for (i, (name, kind)) in fields.iter().enumerate() {
        if let Some(base) = packed(name) {
            if let Some((last, ObjectColumn::Text(_, len))) = out.last_mut() {
                if *last == base {
                    *len += 1;
                    continue;
                }
            }
            out.push((base, ObjectColumn::Text(i, 1)));
            continue;
        }
        let col = match kind {
            FieldKind::Bool => ObjectColumn::Bool(i),
            _ => ObjectColumn::Int(i),
        };
        // Not the name of a leading column.
        let name = match *name {
            "flow" | "time" | "tick" | "id" => format!("object_{name}"),
            other => other.to_string(),
        };
        out.push((name, col));
    }
    out
}

/// The weapon names of kill messages (`weapon` enum, and the negative
/// values of the kill message).
fn weapon_name(w: i32) -> Cell {
    let name = match w {
        -3 => "game",
        -2 => "self",
        -1 => "world",
        0 => "hammer",
        1 => "gun",
        2 => "shotgun",
        3 => "grenade",
        4 => "laser",
        5 => "ninja",
        other => return Cell::Str(other.to_string()),
    };
    Cell::Str(name.to_string())
}

fn chat_mode(m: i32) -> Cell {
    Cell::Str(
        match m {
            0 => "none",
            1 => "all",
            2 => "team",
            3 => "whisper",
            other => return Cell::Str(other.to_string()),
        }
        .to_string(),
    )
}

/// A player as known so far.
#[derive(Debug, Clone)]
struct Player {
    flow: Option<usize>,
    client_id: i32,
    name: String,
    clan: String,
    country: i32,
    team: i32,
    local: bool,
    first_tick: Option<i32>,
    left_tick: Option<i32>,
}

/// Builds the tables as the recording is read.
struct Builder {
    capture: bool,
    wanted: Vec<TeeworldsTable>,
    tables: HashMap<TeeworldsTable, Table>,
    objects: HashMap<u16, Vec<(String, ObjectColumn)>>,
    /// Every player seen, in order; the current one of a (flow, client id)
    /// is the last with that key and no `left_tick`.
    players: Vec<Player>,
}

impl Builder {
    fn new(capture: bool, wanted: &[TeeworldsTable]) -> Builder {
        let mut b = Builder {
            capture,
            wanted: Vec::new(),
            tables: HashMap::new(),
            objects: HashMap::new(),
            players: Vec::new(),
        };
        for t in wanted {
            if b.wanted.contains(t) {
                continue;
            }
            b.wanted.push(*t);
            let table = b.schema(*t);
            b.tables.insert(*t, table);
        }
        b
    }

    fn wants(&self, t: TeeworldsTable) -> bool {
        self.tables.contains_key(&t)
    }

    fn schema(&mut self, t: TeeworldsTable) -> Table {
        let mut cols: Vec<(String, Kind)> = Vec::new();
        let lead = |cols: &mut Vec<(String, Kind)>, capture: bool| {
            if capture {
                cols.push(("flow".into(), Kind::I64));
                cols.push(("time".into(), Kind::F32));
            }
        };
        match t {
            TeeworldsTable::Snapshots => {
                lead(&mut cols, self.capture);
                cols.push(("tick".into(), Kind::I64));
                cols.push(("items".into(), Kind::I64));
                cols.push(("crc".into(), Kind::I64));
                if self.capture {
                    cols.push(("delta_tick".into(), Kind::I64));
                    cols.push(("crc_ok".into(), Kind::Bool));
                } else {
                    cols.push(("full".into(), Kind::Bool));
                }
            }
            TeeworldsTable::Objects(id) => {
                lead(&mut cols, self.capture);
                cols.push(("tick".into(), Kind::I64));
                cols.push(("id".into(), Kind::I64));
                let layout = SnapObject::layout(id).map_or(&[][..], |(_, f)| f);
                let plan = object_columns(layout);
                for (name, c) in &plan {
                    let kind = match c {
                        ObjectColumn::Int(_) => Kind::I64,
                        ObjectColumn::Bool(_) => Kind::Bool,
                        ObjectColumn::Text(..) => Kind::Str,
                    };
                    cols.push((name.clone(), kind));
                }
                self.objects.insert(id, plan);
            }
            TeeworldsTable::Players => {
                if self.capture {
                    cols.push(("flow".into(), Kind::I64));
                }
                for (n, k) in [
                    ("client_id", Kind::I64),
                    ("name", Kind::Str),
                    ("clan", Kind::Str),
                    ("country", Kind::I64),
                    ("team", Kind::I64),
                    ("local", Kind::Bool),
                    ("first_tick", Kind::I64),
                    ("left_tick", Kind::I64),
                ] {
                    cols.push((n.into(), k));
                }
            }
            TeeworldsTable::Messages => {
                lead(&mut cols, self.capture);
                if self.capture {
                    cols.push(("direction".into(), Kind::Str));
                }
                for n in ["tick", "kind", "message", "fields", "error"] {
                    let k = if n == "tick" { Kind::I64 } else { Kind::Str };
                    cols.push((n.into(), k));
                }
            }
            TeeworldsTable::Chat => {
                lead(&mut cols, self.capture);
                for (n, k) in [
                    ("tick", Kind::I64),
                    ("client_id", Kind::I64),
                    ("name", Kind::Str),
                    ("mode", Kind::Str),
                    ("target_id", Kind::I64),
                    ("message", Kind::Str),
                ] {
                    cols.push((n.into(), k));
                }
            }
            TeeworldsTable::Kills => {
                lead(&mut cols, self.capture);
                for (n, k) in [
                    ("tick", Kind::I64),
                    ("attacker_client_id", Kind::I64),
                    ("attacker_name", Kind::Str),
                    ("victim_client_id", Kind::I64),
                    ("victim_name", Kind::Str),
                    ("weapon", Kind::Str),
                    ("mode_special", Kind::I64),
                ] {
                    cols.push((n.into(), k));
                }
            }
            TeeworldsTable::Summary => {
                let names: &[(&str, Kind)] = if self.capture {
                    &[
                        ("flows", Kind::I64),
                        ("datagrams", Kind::I64),
                        ("datagrams_with_errors", Kind::I64),
                        ("snapshots", Kind::I64),
                        ("snapshot_crc_ok", Kind::I64),
                    ]
                } else {
                    &[
                        ("version", Kind::I64),
                        ("net_version", Kind::Str),
                        ("map_name", Kind::Str),
                        ("map_size", Kind::I64),
                        ("map_crc", Kind::I64),
                        ("type", Kind::Str),
                        ("length_seconds", Kind::I64),
                        ("timestamp", Kind::Str),
                        ("ticks", Kind::I64),
                        ("last_tick", Kind::I64),
                        ("snapshots", Kind::I64),
                        ("full_snapshots", Kind::I64),
                        ("messages", Kind::I64),
                        ("messages_not_decoded", Kind::I64),
                    ]
                };
                cols.extend(names.iter().map(|(n, k)| ((*n).to_string(), *k)));
            }
        }
        let schema: Vec<(&str, Kind)> = cols.iter().map(|(n, k)| (n.as_str(), *k)).collect();
        Table::with_schema(t.name(), &schema)
    }

    fn push(&mut self, t: TeeworldsTable, row: &[Cell]) {
        if let Some(table) = self.tables.get_mut(&t) {
            table.push_row(row);
        }
    }

    /// A snapshot's objects, one row each in the table of its type.
    fn snapshot_objects(&mut self, at: At, snap: &Snapshot) {
        for item in snap.items() {
            let t = TeeworldsTable::Objects(item.type_id);
            let Some(plan) = self.objects.get(&item.type_id) else {
                continue;
            };
            // A size this protocol does not give the type: not its object.
            if SnapObject::from_ints(item.type_id, &item.data).is_none() {
                continue;
            }
            let mut row = at.cells();
            row.push(Cell::Int(i64::from(item.id)));
            for (_, c) in plan {
                row.push(match c {
                    ObjectColumn::Int(i) => item
                        .data
                        .get(*i)
                        .map_or(Cell::Null, |v| Cell::Int(i64::from(*v))),
                    ObjectColumn::Bool(i) => item
                        .data
                        .get(*i)
                        .map_or(Cell::Null, |v| Cell::Bool(*v != 0)),
                    ObjectColumn::Text(start, len) => item
                        .data
                        .get(*start..start + len)
                        .map_or(Cell::Null, |ints| Cell::Str(ints_to_str(ints))),
                });
            }
            self.push(t, &row);
        }
        if !self.capture {
            // Server demos: the players as the recorder's info objects say
            // (the names of `chat` and `kills` too).
            for item in snap.items() {
                if let Some(SnapObject::DeClientInfo(info)) = item.object() {
                    self.player_info(
                        None,
                        at.tick,
                        i32::from(item.id),
                        ints_to_str(&info.name),
                        ints_to_str(&info.clan),
                        info.country,
                        info.team,
                        info.local,
                    );
                }
            }
        }
    }

    /// The current player of a client id.
    fn player(&self, flow: Option<usize>, client_id: i32) -> Option<&Player> {
        self.players
            .iter()
            .rev()
            .find(|p| p.flow == flow && p.client_id == client_id && p.left_tick.is_none())
    }

    fn player_name(&self, flow: Option<usize>, client_id: i32) -> Cell {
        self.player(flow, client_id)
            .map_or(Cell::Null, |p| Cell::Str(p.name.clone()))
    }

    #[allow(clippy::too_many_arguments)]
    fn player_info(
        &mut self,
        flow: Option<usize>,
        tick: Option<i32>,
        client_id: i32,
        name: String,
        clan: String,
        country: i32,
        team: i32,
        local: bool,
    ) {
        let current = self
            .players
            .iter_mut()
            .rev()
            .find(|p| p.flow == flow && p.client_id == client_id && p.left_tick.is_none());
        match current {
            Some(p) if p.name == name => {
                p.clan = clan;
                p.country = country;
                p.team = team;
                p.local |= local;
                if p.first_tick.is_none() {
                    p.first_tick = tick;
                }
            }
            _ => self.players.push(Player {
                flow,
                client_id,
                name,
                clan,
                country,
                team,
                local,
                first_tick: tick,
                left_tick: None,
            }),
        }
    }

    /// A message: the `messages` row, and what `players`, `chat` and
    /// `kills` take from it. `from_server`: sent by the server (every
    /// recorded message of a demo).
    fn message(&mut self, at: At, direction: Option<Direction>, m: &Message) {
        let flow = at.capture.map(|(f, _)| f);
        let from_server = direction != Some(Direction::ClientToServer);
        if from_server {
            match m {
                Message::Game(GameMessage::SvClientInfo(i)) => self.player_info(
                    flow,
                    at.tick,
                    i.client_id,
                    i.name.clone(),
                    i.clan.clone(),
                    i.country,
                    i.team,
                    i.local,
                ),
                Message::Game(GameMessage::SvTeam(t)) => {
                    let current = self.players.iter_mut().rev().find(|p| {
                        p.flow == flow && p.client_id == t.client_id && p.left_tick.is_none()
                    });
                    if let Some(p) = current {
                        p.team = t.team;
                    }
                }
                Message::Game(GameMessage::SvClientDrop(d)) => {
                    let current = self.players.iter_mut().rev().find(|p| {
                        p.flow == flow && p.client_id == d.client_id && p.left_tick.is_none()
                    });
                    if let Some(p) = current {
                        p.left_tick = Some(at.tick.unwrap_or(-1));
                    }
                }
                Message::Game(GameMessage::SvChat(c)) if self.wants(TeeworldsTable::Chat) => {
                    let mut row = at.cells();
                    row.extend([
                        Cell::Int(i64::from(c.client_id)),
                        self.player_name(flow, c.client_id),
                        chat_mode(c.mode),
                        Cell::Int(i64::from(c.target_id)),
                        Cell::Str(c.message.clone()),
                    ]);
                    self.push(TeeworldsTable::Chat, &row);
                }
                Message::Game(GameMessage::SvKillMsg(k)) if self.wants(TeeworldsTable::Kills) => {
                    let mut row = at.cells();
                    row.extend([
                        Cell::Int(i64::from(k.killer)),
                        self.player_name(flow, k.killer),
                        Cell::Int(i64::from(k.victim)),
                        self.player_name(flow, k.victim),
                        weapon_name(k.weapon),
                        Cell::Int(i64::from(k.mode_special)),
                    ]);
                    self.push(TeeworldsTable::Kills, &row);
                }
                _ => {}
            }
        }
        if !self.wants(TeeworldsTable::Messages) {
            return;
        }
        if let Message::System(
            SystemMessage::Snap(_) | SystemMessage::SnapSingle(_) | SystemMessage::SnapEmpty(_),
        ) = m
        {
            return;
        }
        let (kind, fields) = match m {
            Message::System(s) => ("system", serde_json::to_value(s).ok()),
            Message::Game(g) => ("game", serde_json::to_value(g).ok()),
            Message::Ex { .. } => ("ex", serde_json::to_value(m).ok()),
            Message::Unknown { .. } => ("unknown", serde_json::to_value(m).ok()),
        };
        let fields = match fields {
            Some(serde_json::Value::Object(mut o)) => match o.remove("fields") {
                Some(f) => f,
                None => {
                    o.remove("kind");
                    serde_json::Value::Object(o)
                }
            },
            Some(other) => other,
            None => serde_json::Value::Null,
        };
        self.message_row(at, direction, kind, m.name(), fields, None);
    }

    fn message_row(
        &mut self,
        at: At,
        direction: Option<Direction>,
        kind: &str,
        name: &str,
        fields: serde_json::Value,
        error: Option<String>,
    ) {
        let mut row = at.cells();
        if let Some(d) = direction {
            row.insert(row.len() - 1, Cell::Str(direction_name(d).to_string()));
        }
        row.extend([
            Cell::Str(kind.to_string()),
            Cell::Str(name.to_string()),
            if fields.is_null() {
                Cell::Null
            } else {
                Cell::Str(fields.to_string())
            },
            error.map_or(Cell::Null, Cell::Str),
        ]);
        self.push(TeeworldsTable::Messages, &row);
    }

    /// A message given as a tagged JSON object (control and connless
    /// messages): its `type` is the name, the rest the fields.
    fn tagged_message(
        &mut self,
        at: At,
        direction: Direction,
        kind: &str,
        value: serde_json::Value,
    ) {
        if !self.wants(TeeworldsTable::Messages) {
            return;
        }
        let (name, fields) = match value {
            serde_json::Value::Object(mut o) => {
                let name = o
                    .remove("type")
                    .and_then(|t| t.as_str().map(str::to_string))
                    .unwrap_or_default();
                (name, serde_json::Value::Object(o))
            }
            other => (String::new(), other),
        };
        self.message_row(at, Some(direction), kind, &name, fields, None);
    }

    fn finish(mut self, summary: Vec<Cell>) -> Vec<Table> {
        if self.wants(TeeworldsTable::Players) {
            let rows: Vec<Vec<Cell>> = self
                .players
                .iter()
                .map(|p| {
                    let mut row = Vec::with_capacity(9);
                    if let Some(f) = p.flow.filter(|_| self.capture) {
                        row.push(Cell::Int(f as i64));
                    }
                    row.extend([
                        Cell::Int(i64::from(p.client_id)),
                        Cell::Str(p.name.clone()),
                        Cell::Str(p.clan.clone()),
                        Cell::Int(i64::from(p.country)),
                        Cell::Int(i64::from(p.team)),
                        Cell::Bool(p.local),
                        p.first_tick.map_or(Cell::Null, |t| Cell::Int(i64::from(t))),
                        p.left_tick.map_or(Cell::Null, |t| Cell::Int(i64::from(t))),
                    ]);
                    row
                })
                .collect();
            for row in rows {
                self.push(TeeworldsTable::Players, &row);
            }
        }
        self.push(TeeworldsTable::Summary, &summary);
        let mut tables = self.tables;
        self.wanted
            .iter()
            .filter_map(|t| tables.remove(t))
            .collect()
    }
}

/// What kind of failure a recording's error is, as for the Source 2 demos
/// ([`crate::ErrorCategory`]): not a capture or a 0.7 demo at all
/// (`NotADemo`: a pcap that does not read, a demo's magic, version or net
/// version), a demo that ends early (`Truncated`), anything else
/// (`Corrupt`).
pub fn error_category(e: &gamewire_teeworlds::Error) -> crate::ErrorCategory {
    use gamewire_teeworlds::Error;
    match e {
        Error::Pcap(_)
        | Error::DemoFile(
            DemoFileError::BadMagic { .. }
            | DemoFileError::UnsupportedVersion(_)
            | DemoFileError::UnsupportedNetVersion(_),
        ) => crate::ErrorCategory::NotADemo,
        Error::DemoFile(d) if d.is_truncation() => crate::ErrorCategory::Truncated,
        _ => crate::ErrorCategory::Corrupt,
    }
}

/// True when `data` starts as a Teeworlds demo does (`TWDEMO\0`); a
/// capture starts otherwise.
pub fn is_demo(data: &[u8]) -> bool {
    data.starts_with(gamewire_teeworlds::demo::MAGIC)
}

fn count(n: u64) -> Cell {
    Cell::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

/// The tables of a pcap or pcapng capture, in the order asked for (a
/// name asked twice gives one table).
pub fn pcap_tables(
    data: &[u8],
    wanted: &[TeeworldsTable],
) -> Result<TeeworldsTables, gamewire_teeworlds::Error> {
    let mut reader = CaptureReader::new(data)?;
    let mut b = Builder::new(true, wanted);
    let start = reader
        .flows()
        .iter()
        .filter_map(|f| f.datagrams.first().map(|d| d.0))
        .fold(f64::INFINITY, f64::min);
    let (mut warnings, mut errors) = (Vec::new(), Vec::new());
    let mut tick: HashMap<usize, i32> = HashMap::new();
    let mut index: HashMap<usize, usize> = HashMap::new();
    for d in reader.by_ref() {
        let i = index.entry(d.flow).or_insert(0);
        let where_ = format!("flow {}, datagram {}", d.flow, *i);
        *i += 1;
        let time = (d.time - start) as f32;
        let dir = d.report.direction;
        for e in &d.report.events {
            let at = At {
                capture: Some((d.flow, time)),
                tick: tick.get(&d.flow).copied(),
            };
            match e {
                Event::Control { message } => {
                    let v = serde_json::to_value(message).unwrap_or_default();
                    b.tagged_message(at, dir, "control", v);
                }
                Event::Connless { message } => {
                    let v = serde_json::to_value(message).unwrap_or_default();
                    b.tagged_message(at, dir, "connless", v);
                }
                Event::Message { message, .. } => b.message(at, Some(dir), message),
                Event::Snapshot {
                    tick: t,
                    delta_tick,
                    crc_ok,
                    items,
                } => {
                    tick.insert(d.flow, *t);
                    let at = At {
                        capture: Some((d.flow, time)),
                        tick: Some(*t),
                    };
                    let mut row = at.cells();
                    // The snapshot as applied: rebuilt from its items.
                    let mut snap = Snapshot::new();
                    for it in items {
                        let data = match (&it.data, &it.object) {
                            (Some(data), _) => data.clone(),
                            (None, Some(o)) => o.to_ints(),
                            (None, None) => Vec::new(),
                        };
                        let _ = snap.insert(it.type_id, it.id, data);
                    }
                    row.extend([
                        Cell::Int(items.len() as i64),
                        Cell::Int(i64::from(snap.crc())),
                        Cell::Int(i64::from(*delta_tick)),
                        Cell::Bool(*crc_ok),
                    ]);
                    b.push(TeeworldsTable::Snapshots, &row);
                    b.snapshot_objects(at, &snap);
                }
            }
        }
        for w in &d.report.warnings {
            warnings.push(format!("{where_}: {w}"));
        }
        for e in &d.report.errors {
            let at = At {
                capture: Some((d.flow, time)),
                tick: tick.get(&d.flow).copied(),
            };
            if let DecodeError::Message { source, .. } = e {
                b.message_row(
                    at,
                    Some(dir),
                    "",
                    "",
                    serde_json::Value::Null,
                    Some(source.to_string()),
                );
            }
            errors.push(format!("{where_}: {e}"));
        }
    }
    let s = *reader.summary();
    let summary = vec![
        Cell::Int(s.flows as i64),
        count(s.datagrams),
        count(s.datagrams_with_errors),
        count(s.snapshots),
        count(s.snapshot_crc_ok),
    ];
    Ok(TeeworldsTables {
        tables: b.finish(summary),
        warnings,
        errors,
        cut: None,
        capture: Some(s),
    })
}

/// The tables of a 0.7 demo, in the order asked for. A demo that ends
/// inside a chunk gives the tables of everything before it and the cut;
/// any other error fails.
pub fn demo_tables(
    data: &[u8],
    wanted: &[TeeworldsTable],
) -> Result<TeeworldsTables, gamewire_teeworlds::Error> {
    let mut records = DemoRecords::new(data)?;
    let mut b = Builder::new(false, wanted);
    let header = records.header().clone();
    while let Some(r) = records.next() {
        match r {
            DemoRecord::Tick { .. } => {}
            DemoRecord::Snapshot { tick, full } => {
                let at = At {
                    capture: None,
                    tick: Some(tick),
                };
                let Some(snap) = records.snapshot() else {
                    continue;
                };
                let mut row = at.cells();
                row.extend([
                    Cell::Int(snap.len() as i64),
                    Cell::Int(i64::from(snap.crc())),
                    Cell::Bool(full),
                ]);
                b.push(TeeworldsTable::Snapshots, &row);
                b.snapshot_objects(at, snap);
            }
            DemoRecord::Message { tick, message, .. } => {
                let at = At {
                    capture: None,
                    tick: Some(tick),
                };
                match message {
                    Ok(m) => b.message(at, None, &m),
                    Err(e) => b.message_row(
                        at,
                        None,
                        "",
                        "",
                        serde_json::Value::Null,
                        Some(e.to_string()),
                    ),
                }
            }
        }
    }
    let cut = match records.failure() {
        Some(e) if e.is_truncation() => Some(e.clone()),
        Some(e) => return Err(e.clone().into()),
        None => None,
    };
    let s = *records.summary();
    let summary = vec![
        Cell::Int(i64::from(header.version)),
        Cell::Str(header.net_version),
        Cell::Str(header.map_name),
        Cell::Int(i64::from(header.map_size)),
        Cell::Int(i64::from(header.map_crc)),
        Cell::Str(header.kind),
        Cell::Int(i64::from(header.length)),
        Cell::Str(header.timestamp),
        count(s.ticks),
        Cell::Int(i64::from(s.last_tick)),
        count(s.snapshots),
        count(s.full_snapshots),
        count(s.messages),
        count(s.messages_not_decoded),
    ];
    Ok(TeeworldsTables {
        tables: b.finish(summary),
        warnings: Vec::new(),
        errors: Vec::new(),
        cut,
        capture: None,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use gamewire_teeworlds::demo::DemoWriter;
    use gamewire_teeworlds::msg::{str_to_ints, DeClientInfo, PlayerInfo};

    #[test]
    fn table_names_parse_and_unknown_ones_name_the_closest() {
        assert_eq!(
            "players".parse::<TeeworldsTable>().unwrap(),
            TeeworldsTable::Players
        );
        assert_eq!(
            " character ".parse::<TeeworldsTable>().unwrap(),
            TeeworldsTable::Objects(10)
        );
        let e = "player_inf".parse::<TeeworldsTable>().unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("unknown table \"player_inf\""), "{text}");
        assert!(text.contains("closest: player_info"), "{text}");
        // Every name parses back to its table.
        for t in TeeworldsTable::all() {
            assert_eq!(t.name().parse::<TeeworldsTable>().unwrap(), t);
        }
    }

    #[test]
    fn packed_strings_are_text_and_arrays_are_columns() {
        let (_, fields) = SnapObject::layout(DeClientInfo::TYPE_ID).unwrap();
        let names: Vec<String> = object_columns(fields).into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            names[..6],
            [
                "local",
                "team",
                "name",
                "clan",
                "country",
                "skin_part_names_0"
            ]
        );
        assert!(names.contains(&"use_custom_colors_5".to_string()));
        assert!(names.contains(&"skin_part_colors_0".to_string()));
        let (_, tune) = SnapObject::layout(15).unwrap();
        assert_eq!(object_columns(tune).len(), 32);
    }

    #[test]
    fn a_demo_gives_typed_tables_and_keeps_rows_before_a_cut() {
        let mut w = DemoWriter::new("dm1", 7, b"map", "server");
        let mut snap = Snapshot::new();
        let mut info = DeClientInfo::default();
        str_to_ints("nameless tee", &mut info.name);
        let mut ints = Vec::new();
        info.to_ints(&mut ints);
        snap.insert(DeClientInfo::TYPE_ID, 3, ints).unwrap();
        let mut ints = Vec::new();
        PlayerInfo {
            player_flags: 0,
            score: 4,
            latency: 12,
        }
        .to_ints(&mut ints);
        snap.insert(PlayerInfo::TYPE_ID, 3, ints).unwrap();
        w.snapshot(50, &snap);
        // A change, or the writer skips the empty delta.
        let mut ints = Vec::new();
        PlayerInfo {
            player_flags: 0,
            score: 5,
            latency: 12,
        }
        .to_ints(&mut ints);
        snap.insert(PlayerInfo::TYPE_ID, 3, ints).unwrap();
        w.snapshot(52, &snap);
        let file = w.finish();
        let wanted = [
            TeeworldsTable::Objects(PlayerInfo::TYPE_ID),
            TeeworldsTable::Players,
            TeeworldsTable::Objects(DeClientInfo::TYPE_ID),
            TeeworldsTable::Summary,
        ];
        let read = demo_tables(&file, &wanted).unwrap();
        assert!(read.cut.is_none());
        let names: Vec<&str> = read.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            ["player_info", "players", "de_client_info", "summary"]
        );
        let info = &read.tables[0];
        assert_eq!(
            info.column_names(),
            ["tick", "id", "player_flags", "score", "latency"]
        );
        assert_eq!(info.rows(), 2);
        assert_eq!(info.row(1), [52, 3, 0, 5, 12].map(Cell::Int));
        let players = &read.tables[1];
        assert_eq!(players.rows(), 1);
        assert_eq!(players.row(0)[1], Cell::Str("nameless tee".into()));
        assert_eq!(read.tables[2].row(0)[4], Cell::Str("nameless tee".into()));
        assert_eq!(read.tables[3].row(0)[2], Cell::Str("dm1".into()));

        // Not a demo; a demo cut inside its header.
        let e = demo_tables(b"TWDEMX", &wanted).unwrap_err();
        assert_eq!(error_category(&e), crate::ErrorCategory::NotADemo);
        let e = demo_tables(&file[..100], &wanted).unwrap_err();
        assert_eq!(error_category(&e), crate::ErrorCategory::Truncated);
        let e = pcap_tables(b"not a capture", &wanted).unwrap_err();
        assert_eq!(error_category(&e), crate::ErrorCategory::NotADemo);

        // Cut inside the second snapshot: the first is kept.
        let read = demo_tables(&file[..file.len() - 2], &wanted).unwrap();
        assert!(read.cut.as_ref().is_some_and(DemoFileError::is_truncation));
        assert_eq!(read.tables[0].rows(), 1);
    }
}
