//! What props a demo offers: the names `props` of `events` and `ticks`
//! accept, as the table `props` (what `gamewire props DEMO` prints, and
//! `Demo.props()` in Python).
//!
//! One row per name, with the columns:
//!
//! - `name`: what to ask for (`--props health`, `--props
//!   CCSPlayerPawn.m_iHealth`);
//! - `source`: `friendly` (a name such as `health`, `X`, `balance`,
//!   `team_name`, demoparser2's, LaihoE/demoparser) or `raw` (a class and a
//!   dotted path in its send tables);
//! - `class`: the class the value is read from (`CCSPlayerPawn`,
//!   `CCSPlayerController`, `CCSTeam`, `CCSGameRulesProxy`, Deadlock's
//!   `CCitadelPlayerPawn`, Dota 2's `CDOTA_BaseNPC_Hero`, ...; empty for a
//!   value computed from several fields or from the user commands);
//! - `path`: the dotted path in that class (nested tables by their field
//!   name, `m_pWeaponServices.m_hActiveWeapon`); `<i>` stands for an index
//!   (`m_iAmmo.<i>` is `m_iAmmo.14` for element 14); empty for a computed
//!   value;
//! - `type`: the type of the column the prop gives: `bool`, `int64`,
//!   `uint64`, `float32`, `string`, `list<float32>` (vectors and angles),
//!   `list<string>`, `list<uint64>`; empty when the demo does not declare
//!   it.
//!
//! Without a class, the rows are the friendly names the demo has
//! ([`crate::prop_checks::player_prop_known`]: a friendly name of another
//! game is not listed), then the raw paths of the game's player classes
//! (pawn and controller; Dota 2's heroes by `CDOTA_BaseNPC_Hero`, the class
//! every hero shares), and in CS2 of the team and game-rules classes. With a
//! class, the friendly names read from that class and every path of the
//! class (any class of the demo: `CC4`, `CSmokeGrenadeProjectile`, ...).
//! A class the demo does not have is an error naming the closest classes.
//!
//! [`list_demo`] reads only the demo's beginning (up to its send tables).

use gamewire_source2::serializer::{FieldModel, SendTables, SerializerId};
use gamewire_source2::DemoState;

use crate::error::QueryError;
use crate::friendly_props::{Owner, PropSource, BUTTONS_PROP};
use crate::kinds::{decoder_kind, field_decoder};
use crate::prop_checks::{
    closest, is_dota_hero_class, known_friendly_names, value_fields, PlayerClasses,
};
use crate::run::RunOptions;
use crate::schema::SendTablesOnly;
use crate::table::{Cell, Kind, Table};
use crate::world::{player_source, OtherSource, PlayerSource};

/// The name of the table.
pub const TABLE: &str = "props";

/// The columns of the table, in order.
pub const COLUMNS: [&str; 5] = ["name", "source", "class", "path", "type"];

/// One row of the table.
struct Row {
    name: String,
    source: &'static str,
    class: String,
    path: String,
    kind: Option<Kind>,
}

/// The props a parsed demo offers (see the module's documentation); with
/// `class`, only those read from that class. The demo's send tables must
/// have been read (a state after a parse that asked for them).
pub fn list(state: &DemoState, class: Option<&str>) -> Result<Table, QueryError> {
    let mut rows: Vec<Row> = Vec::new();
    let Some(tables) = state.send_tables.as_ref() else {
        return Ok(table(rows));
    };
    let classes = PlayerClasses::of(state).unwrap_or_default();
    if let Some(c) = class {
        if tables.by_name(c).is_none() {
            let names: Vec<&str> = state
                .classes
                .iter()
                .map(|c| c.name.as_str())
                .filter(|n| !n.is_empty())
                .collect();
            return Err(QueryError::UnknownClass {
                name: c.to_string(),
                closest: closest(c, &names).join(", "),
            });
        }
    }
    for name in known_friendly_names(state) {
        let row = friendly_row(state, tables, &classes, name);
        if class.is_none_or(|c| row.class == c) {
            rows.push(row);
        }
    }
    let raw_classes: Vec<String> = match class {
        Some(c) => vec![c.to_string()],
        None => default_classes(state, tables, &classes),
    };
    for c in raw_classes {
        if let Some(ser) = tables.by_name(&c) {
            raw_rows(tables, ser, &c, &mut rows);
        }
    }
    Ok(table(rows))
}

/// [`list`] for a demo in memory: parses it up to its send tables only. A
/// demo that is not one, or that ends before its send tables, is an error.
pub fn list_demo(data: &[u8], class: Option<&str>) -> Result<Table, QueryError> {
    let options = RunOptions {
        helper_thread: false,
        ..RunOptions::default()
    };
    let (state, cut) = options.parse_keeping_cut(data, &mut SendTablesOnly)?;
    if state.send_tables.is_none() {
        if let Some(cut) = cut {
            return Err(QueryError::Demo(cut));
        }
    }
    list(&state, class)
}

/// The classes listed without a class asked for: the player classes (Dota
/// 2's heroes by their shared class), then CS2's team and game rules.
fn default_classes(state: &DemoState, tables: &SendTables, classes: &PlayerClasses) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let hero_base = "CDOTA_BaseNPC_Hero";
    let dota = classes.pawns.iter().any(|(c, _)| is_dota_hero_class(c));
    if dota && tables.by_name(hero_base).is_some() {
        out.push(hero_base.to_string());
    } else {
        out.extend(classes.pawns.iter().map(|(c, _)| c.clone()));
    }
    out.extend(classes.controller.iter().map(|(c, _)| c.clone()));
    if matches!(
        state.game,
        gamewire_source2::Game::Cs2 | gamewire_source2::Game::Any
    ) {
        for c in ["CCSTeam", "CCSGameRulesProxy"] {
            if tables.by_name(c).is_some() {
                out.push(c.to_string());
            }
        }
    }
    out
}

/// The rows of every value of a class: name `<class>.<path>`.
fn raw_rows(tables: &SendTables, ser: SerializerId, class: &str, rows: &mut Vec<Row>) {
    // A path can come twice: a polymorphic field's serializers (one per
    // type the field can hold) share field names. The listing names each
    // path once, with the first serializer's type.
    let mut seen = std::collections::HashSet::new();
    for (path, model) in value_fields(tables, ser) {
        let (path, kind) = match model {
            FieldModel::Value(d) => (path, Some(decoder_kind(d))),
            FieldModel::FixedArray { element, .. } | FieldModel::VariableArray(element) => {
                (format!("{path}.<i>"), Some(decoder_kind(element)))
            }
            _ => (path, None),
        };
        if !seen.insert(path.clone()) {
            continue;
        }
        rows.push(Row {
            name: format!("{class}.{path}"),
            source: "raw",
            class: class.to_string(),
            path,
            kind,
        });
    }
}

/// The class of the player classes a path resolves on (for
/// [`Owner::Pawn`]: a pawn first, then the controller), with the path's
/// declared type.
fn player_class_of(
    tables: &SendTables,
    classes: &PlayerClasses,
    owner: Owner,
    path: &str,
) -> Option<(String, Option<Kind>)> {
    let pawns = classes.pawns.iter();
    let controller = classes.controller.iter();
    let candidates: Vec<&(String, SerializerId)> = match owner {
        Owner::Pawn => {
            // Dota 2: the heroes' shared class first.
            let mut v: Vec<_> = pawns.collect();
            v.sort_by_key(|(c, _)| c != "CDOTA_BaseNPC_Hero");
            v.into_iter().chain(controller).collect()
        }
        Owner::Controller => controller.collect(),
        Owner::ActiveWeapon => return None,
    };
    candidates.into_iter().find_map(|(c, s)| {
        crate::prop_paths::resolve_prop(tables, *s, path)
            .map(|_| (c.clone(), field_decoder(tables, *s, path).map(decoder_kind)))
    })
}

/// The row of a friendly name: where it is read, and its type.
fn friendly_row(
    state: &DemoState,
    tables: &SendTables,
    classes: &PlayerClasses,
    name: &str,
) -> Row {
    let source = player_source(name);
    let kind = crate::kinds::player_kind(state, &source);
    let on_class = |class: &str, path: &str| {
        let kind = tables
            .by_name(class)
            .and_then(|s| field_decoder(tables, s, path))
            .map(decoder_kind);
        (class.to_string(), path.to_string(), kind)
    };
    let on_player = |owner: Owner, path: &str| match player_class_of(tables, classes, owner, path) {
        Some((class, kind)) => (class, path.to_string(), kind),
        None => (String::new(), path.to_string(), None),
    };
    let (class, path, declared) = match &source {
        PlayerSource::Team(p) => on_class("CCSTeam", p),
        PlayerSource::World(OtherSource::Rules(p)) => on_class("CCSGameRulesProxy", p),
        PlayerSource::World(OtherSource::Team(_, p)) => on_class("CCSTeam", p),
        PlayerSource::World(OtherSource::GameTime) => (String::new(), String::new(), None),
        PlayerSource::Entity(e) => match e {
            PropSource::Raw(Owner::ActiveWeapon, p) => ("weapon".into(), p.clone(), None),
            PropSource::Raw(owner, p) => on_player(*owner, p),
            PropSource::Element(owner, p, i) => {
                let (class, _, _) = on_player(*owner, p);
                (class, format!("{p}.{i}"), None)
            }
            PropSource::Position(axis) => {
                let cell = crate::coords::CELL_PROPS.get(*axis).copied().unwrap_or("");
                let (class, _, _) = on_player(Owner::Pawn, cell);
                let offset = crate::coords::OFFSET_PROPS
                    .get(*axis)
                    .copied()
                    .unwrap_or("");
                (class, format!("{cell}, {offset}"), None)
            }
            PropSource::IsAlive => on_player(Owner::Pawn, "m_lifeState"),
            PropSource::Button(_) => on_player(Owner::Pawn, BUTTONS_PROP),
            PropSource::Computed(_) | PropSource::Velocity(_) | PropSource::UserCommand(_) => {
                (String::new(), String::new(), None)
            }
        },
    };
    // The friendly name's own type where it has one (a button is a bool,
    // a position a float), else its field's.
    let kind = match &source {
        PlayerSource::Entity(PropSource::Raw(..)) => declared.or(kind),
        _ => kind.or(declared),
    };
    Row {
        name: name.to_string(),
        source: "friendly",
        class,
        path,
        kind,
    }
}

fn table(rows: Vec<Row>) -> Table {
    let cells: Vec<Vec<Cell>> = rows
        .into_iter()
        .map(|r| {
            vec![
                Cell::Str(r.name),
                Cell::Str(r.source.to_string()),
                Cell::Str(r.class),
                Cell::Str(r.path),
                Cell::Str(
                    r.kind
                        .map(crate::reference::kind_name)
                        .unwrap_or("")
                        .to_string(),
                ),
            ]
        })
        .collect();
    let schema: Vec<(String, Option<Kind>)> = COLUMNS
        .iter()
        .map(|c| (c.to_string(), Some(Kind::Str)))
        .collect();
    Table::from_cells_typed(TABLE, &schema, &cells)
}
