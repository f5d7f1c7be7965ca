//! Prop and event names checked against what a demo declares (its
//! serializers and classes), and the closest valid names for an error
//! message.

use crate::classes::{projectile_serializers, weapon_serializers};
use crate::coords::CELL_PROPS;
use crate::friendly_props::{
    Computed, Owner, PropSource, BUTTONS_PROP, FRIENDLY_PROPS, PLAYER_CLASS_PREFIXES,
};
use crate::players::player_classes;
use crate::prop_paths::resolve_prop;
use crate::world::{
    other_columns, player_source, OtherSource, PlayerSource, RULES_PROPS, TEAM_PROPS,
};
use gamewire_source2::serializer::{FieldModel, SendTables, SerializerId};
use gamewire_source2::{DemoState, Game};

/// Every friendly player prop name: pawn and controller props, team props
/// and game-wide props (which player rows repeat).
pub fn player_prop_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = FRIENDLY_PROPS.iter().map(|(n, _)| *n).collect();
    for (n, _) in TEAM_PROPS.iter().chain(RULES_PROPS) {
        if !v.contains(n) {
            v.push(n);
        }
    }
    v.push("game_time");
    v
}

/// Whether a dotted path resolves on a class's serializer. True when the
/// demo has no send tables (nothing to check against); false when the demo
/// has no such class (a CS2 team or game-rules prop in a Deadlock demo).
fn resolves_on(state: &DemoState, class: &str, path: &str) -> bool {
    let Some(tables) = state.send_tables.as_ref() else {
        return true;
    };
    match tables.by_name(class) {
        Some(s) => resolve_prop(tables, s, path).is_some(),
        None => false,
    }
}

/// The serializers of a demo's player classes, by game: the classes that
/// play (CS2's `CCSPlayerPawn`, Deadlock's `CCitadelPlayerPawn`, Dota 2's
/// heroes: `CDOTA_BaseNPC_Hero` and every `CDOTA_Unit_Hero_*`) and the
/// controller (`CCSPlayerController`, `CCitadelPlayerController`,
/// `CDOTAPlayerController`). Player props are read off these.
#[derive(Debug, Clone, Default)]
pub struct PlayerClasses {
    /// The classes that play, with their serializers.
    pub pawns: Vec<(String, SerializerId)>,
    /// The controller class and its serializer, if the demo has it.
    pub controller: Option<(String, SerializerId)>,
}

impl PlayerClasses {
    /// The player classes of a demo (`None` without send tables).
    pub fn of(state: &DemoState) -> Option<PlayerClasses> {
        let tables = state.send_tables.as_ref()?;
        let named = |n: &str| tables.by_name(n).map(|s| (n.to_string(), s));
        let pawns = match state.game {
            Game::Dota2 => state
                .classes
                .iter()
                .filter(|c| is_dota_hero_class(&c.name))
                .filter_map(|c| named(&c.name))
                .collect(),
            Game::Deadlock => named("CCitadelPlayerPawn").into_iter().collect(),
            Game::Cs2 | Game::Any => named("CCSPlayerPawn").into_iter().collect(),
        };
        Some(PlayerClasses {
            pawns,
            controller: named(player_classes(state.game).controller),
        })
    }

    /// Whether a raw path of `owner` resolves: on a pawn or the
    /// controller for [`Owner::Pawn`] (read in that order), on the
    /// controller for [`Owner::Controller`], on a weapon class for
    /// [`Owner::ActiveWeapon`].
    fn resolves(&self, state: &DemoState, tables: &SendTables, owner: Owner, path: &str) -> bool {
        let on = |s: SerializerId| resolve_prop(tables, s, path).is_some();
        let controller = self.controller.as_ref().is_some_and(|(_, s)| on(*s));
        match owner {
            Owner::Pawn => controller || self.pawns.iter().any(|(_, s)| on(*s)),
            Owner::Controller => controller,
            Owner::ActiveWeapon => weapon_serializers(state).any(on),
        }
    }

    /// Every value path of the player classes (pawns, then controller),
    /// without a class prefix, each once.
    fn paths(&self, tables: &SendTables) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut seen = rustc_hash::FxHashSet::default();
        for (_, s) in self.pawns.iter().chain(&self.controller) {
            for path in value_paths(tables, *s) {
                if seen.insert(path.clone()) {
                    out.push(path);
                }
            }
        }
        out
    }
}

/// Whether a class is one of Dota 2's heroes (`CDOTA_BaseNPC_Hero`, the
/// base of all, or `CDOTA_Unit_Hero_<name>`).
pub fn is_dota_hero_class(name: &str) -> bool {
    name == "CDOTA_BaseNPC_Hero" || name.starts_with("CDOTA_Unit_Hero_")
}

/// Every value a serializer holds, as the dotted path a prop name uses,
/// with the field's model: nested tables by their field name
/// (`m_pWeaponServices.m_hActiveWeapon`), a fixed or variable array once by
/// its name (its elements are `<name>.<index>`), the fields of a variable
/// table's elements after `<i>` (`m_perRoundStats.<i>.m_iKills`: `<i>` is
/// the element's index). A polymorphic table lists its declared type's
/// fields.
pub fn value_fields(tables: &SendTables, ser: SerializerId) -> Vec<(String, &FieldModel)> {
    fn walk<'t>(
        tables: &'t SendTables,
        ser: SerializerId,
        prefix: &str,
        stack: &mut Vec<SerializerId>,
        out: &mut Vec<(String, &'t FieldModel)>,
    ) {
        // Cycles, and a depth deeper than any game's, are not entered.
        if stack.contains(&ser) || stack.len() > 12 {
            return;
        }
        let Some(s) = tables.serializer(ser) else {
            return;
        };
        stack.push(ser);
        for &fi in &s.fields {
            let Some(f) = tables.fields.get(fi as usize) else {
                continue;
            };
            let name = format!("{prefix}{}", tables.symbol(f.name));
            match &f.model {
                FieldModel::Value(_)
                | FieldModel::FixedArray { .. }
                | FieldModel::VariableArray(_) => out.push((name, &f.model)),
                FieldModel::FixedTable { serializer, .. } => {
                    walk(tables, *serializer, &format!("{name}."), stack, out);
                }
                FieldModel::VariableTable(child) => {
                    walk(tables, *child, &format!("{name}.<i>."), stack, out);
                }
            }
        }
        stack.pop();
    }
    let mut out = Vec::new();
    walk(tables, ser, "", &mut Vec::new(), &mut out);
    out
}

/// The dotted paths of [`value_fields`].
pub fn value_paths(tables: &SendTables, ser: SerializerId) -> Vec<String> {
    value_fields(tables, ser)
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

/// The class a raw name's prefix names, and the rest: `CCSPlayerPawn.m_iHealth`
/// gives `("CCSPlayerPawn", "m_iHealth")`. Only the player, team and game
/// rules classes are prefixes ([`PLAYER_CLASS_PREFIXES`], Dota 2's hero
/// classes, `CCSTeam`, `CCSGameRulesProxy`).
fn class_prefix(name: &str) -> Option<(&str, &str)> {
    let (class, rest) = name.split_once('.')?;
    let known = PLAYER_CLASS_PREFIXES
        .iter()
        .any(|(p, _)| p.strip_suffix('.') == Some(class))
        || is_dota_hero_class(class)
        || class == "CCSTeam"
        || class == "CCSGameRulesProxy";
    known.then_some((class, rest))
}

/// Whether a friendly name reads something the demo's classes have. CS2:
/// every friendly name (a field an older build lacks reads as null).
/// Deadlock and Dota 2: the name's field must resolve on the game's player
/// classes; the props demoparser2 computes from CS2 fields (the weapon's
/// name, the inventory, the per-round stats, ...) and the `usercmd_*` props
/// are CS2's only.
fn friendly_known(state: &DemoState, source: &PropSource) -> bool {
    if matches!(state.game, Game::Cs2 | Game::Any) {
        return true;
    }
    let (Some(tables), Some(classes)) = (state.send_tables.as_ref(), PlayerClasses::of(state))
    else {
        return true;
    };
    let pawn = |path: &str| classes.resolves(state, tables, Owner::Pawn, path);
    match source {
        PropSource::Raw(owner, p) | PropSource::Element(owner, p, _) => {
            classes.resolves(state, tables, *owner, p)
        }
        PropSource::Position(axis) => CELL_PROPS.get(*axis).is_some_and(|p| pawn(p)),
        PropSource::Velocity(_) => CELL_PROPS.iter().all(|p| pawn(p)),
        PropSource::IsAlive => pawn("m_lifeState"),
        PropSource::Button(_) => pawn(BUTTONS_PROP),
        // Every game's commands start with the same base command.
        PropSource::Computed(Computed::EntityId | Computed::UserId)
        | PropSource::UserCommand(_) => true,
        PropSource::Computed(Computed::Airborne) => pawn("m_hGroundEntity"),
        PropSource::Computed(_) => false,
    }
}

/// Whether a player prop name is known in this demo: a friendly name the
/// game has (in CS2 every one; in Deadlock and Dota 2 those whose field the
/// game's player classes have, not the props computed from CS2 fields such
/// as the inventory), a team or game-wide name whose class the
/// demo has, or a raw path that resolves on the game's player classes
/// ([`PlayerClasses`]; with a class prefix, on that class, which the demo
/// must have). A demo without send tables accepts every name.
pub fn player_prop_known(state: &DemoState, name: &str) -> bool {
    let Some(tables) = state.send_tables.as_ref() else {
        return true;
    };
    let entity = match player_source(name) {
        PlayerSource::Team(p) => return resolves_on(state, "CCSTeam", &p),
        PlayerSource::World(s) => return other_source_known(state, &s),
        PlayerSource::Entity(s) => s,
    };
    if FRIENDLY_PROPS.iter().any(|(n, _)| *n == name) {
        return friendly_known(state, &entity);
    }
    if let Some((class, rest)) = class_prefix(name) {
        let Some(ser) = tables.by_name(class) else {
            return false;
        };
        return match &entity {
            PropSource::Raw(_, p) | PropSource::Element(_, p, _) if p == rest => {
                resolve_prop(tables, ser, rest).is_some()
            }
            _ => false,
        };
    }
    let Some(classes) = PlayerClasses::of(state) else {
        return true;
    };
    match entity {
        PropSource::Raw(owner, p) | PropSource::Element(owner, p, _) => {
            classes.resolves(state, tables, owner, &p)
        }
        PropSource::Position(_)
        | PropSource::IsAlive
        | PropSource::Button(_)
        | PropSource::Computed(_)
        | PropSource::Velocity(_)
        | PropSource::UserCommand(_) => true,
    }
}

/// The friendly player prop names this demo has ([`player_prop_known`]).
pub fn known_friendly_names(state: &DemoState) -> Vec<&'static str> {
    player_prop_names()
        .into_iter()
        .filter(|n| player_prop_known(state, n))
        .collect()
}

/// The names closest to an unknown player prop: with a class prefix
/// (`CCSPlayerPawn.m_iHelth`), the closest paths of that class, prefixed
/// (or the closest class names when the demo has no such class); else the
/// closest of the friendly names the demo has and the paths of its player
/// classes. Only names near enough to be the one meant ([`close_names`]).
pub fn player_prop_suggestions(state: &DemoState, name: &str) -> Vec<String> {
    let Some(tables) = state.send_tables.as_ref() else {
        return Vec::new();
    };
    if let Some((class, rest)) = class_prefix(name) {
        let Some(ser) = tables.by_name(class) else {
            let classes: Vec<&str> = state.classes.iter().map(|c| c.name.as_str()).collect();
            return close_names(class, &classes)
                .into_iter()
                .map(|c| format!("{c}.{rest}"))
                .collect();
        };
        let paths = value_paths(tables, ser);
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        return close_names(rest, &refs)
            .into_iter()
            .map(|p| format!("{class}.{p}"))
            .collect();
    }
    let mut names: Vec<String> = known_friendly_names(state)
        .into_iter()
        .map(str::to_string)
        .collect();
    if let Some(classes) = PlayerClasses::of(state) {
        names.extend(classes.paths(tables));
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    close_names(name, &refs)
}

/// Whether a raw prop resolves on a grenade projectile class; true when
/// the demo has no send tables or no projectile class (values are null).
pub fn grenade_prop_known(state: &DemoState, name: &str) -> bool {
    let Some(tables) = state.send_tables.as_ref() else {
        return true;
    };
    let mut serializers = projectile_serializers(state).peekable();
    serializers.peek().is_none() || serializers.any(|s| resolve_prop(tables, s, name).is_some())
}

/// The top-level field names of the grenade projectile classes (for the
/// closest names of an unknown one).
pub fn grenade_prop_names(state: &DemoState) -> Vec<String> {
    let Some(tables) = state.send_tables.as_ref() else {
        return Vec::new();
    };
    let mut names: Vec<String> = projectile_serializers(state)
        .filter_map(|s| tables.serializer(s))
        .flat_map(|s| s.fields.iter())
        .filter_map(|&f| tables.fields.get(f as usize))
        .map(|f| tables.symbol(f.name).to_string())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

fn other_source_known(state: &DemoState, source: &OtherSource) -> bool {
    match source {
        OtherSource::GameTime => true,
        OtherSource::Rules(path) => resolves_on(state, "CCSGameRulesProxy", path),
        OtherSource::Team(_, path) => resolves_on(state, "CCSTeam", path),
    }
}

/// Whether a game-wide prop name is known (raw rules and team paths must
/// resolve on the proxy's or the team's serializer when the demo has one).
pub fn other_prop_known(state: &DemoState, name: &str) -> bool {
    match other_columns(name) {
        None => false,
        Some(cols) => cols.iter().all(|(_, s)| other_source_known(state, s)),
    }
}

/// Up to five names closest to `want` (edit distance, then name).
pub fn closest(want: &str, names: &[&str]) -> Vec<String> {
    fn distance(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.to_lowercase().chars().collect();
        let b: Vec<char> = b.to_lowercase().chars().collect();
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.iter().enumerate() {
            let mut cur = vec![i + 1; b.len() + 1];
            for (j, cb) in b.iter().enumerate() {
                let sub = prev[j] + usize::from(ca != cb);
                let del = prev[j + 1] + 1;
                let ins = cur[j] + 1;
                cur[j + 1] = sub.min(del).min(ins);
            }
            prev = cur;
        }
        prev[b.len()]
    }
    let mut scored: Vec<(usize, &str)> = names.iter().map(|n| (distance(want, n), *n)).collect();
    scored.sort();
    scored.dedup();
    scored
        .into_iter()
        .take(5)
        .map(|(_, n)| n.to_string())
        .collect()
}

/// What a prop name is compared by in [`close_names`]: its last dotted
/// part, lowercase, without a member prefix (`m_`) and its type letters
/// (`m_iHealth` → `health`, `m_flFlashDuration` → `flashduration`,
/// `m_nHeroID` → `heroid`), without underscores (`hero_id` → `heroid`).
fn name_key(name: &str) -> String {
    let last = name.rsplit('.').next().unwrap_or(name);
    let bare = match last.strip_prefix("m_") {
        Some(rest) => {
            // Type letters: the lowercase run before the first capital.
            let lower = rest.chars().take_while(char::is_ascii_lowercase).count();
            match rest.get(lower..) {
                Some(tail) if lower > 0 && tail.starts_with(|c: char| c.is_ascii_uppercase()) => {
                    tail
                }
                _ => rest,
            }
        }
        None => last,
    };
    bare.chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Edit distance of two names, case-insensitive.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev.get(j).copied().unwrap_or(0) + usize::from(ca != cb);
            let del = prev.get(j + 1).copied().unwrap_or(0) + 1;
            let ins = cur.get(j).copied().unwrap_or(0) + 1;
            if let Some(c) = cur.get_mut(j + 1) {
                *c = sub.min(del).min(ins);
            }
        }
        prev = cur;
    }
    prev.last().copied().unwrap_or(0)
}

/// Up to five of `names` near enough to `want` to be the name meant: by
/// edit distance of the whole names, or of their keys (the last dotted
/// part, lowercase, without `m_`, its type letters and underscores:
/// `hero_id` is near `m_nHeroID`; a key that begins with the one asked
/// for counts as one edit), at most a quarter of the name's length plus
/// one; the nearest first. Empty when no name is that near (`zzz`).
pub fn close_names(want: &str, names: &[&str]) -> Vec<String> {
    let key = name_key(want);
    let limit = want.chars().count().min(key.chars().count().max(1)) / 4 + 1;
    let mut scored: Vec<(usize, usize, &str)> = names
        .iter()
        .filter_map(|n| {
            let whole = distance(want, n);
            let their_key = name_key(n);
            // A name the one asked for begins (`total_round` for
            // `total_rounds_played`) is near too.
            let by_key = if key.chars().count() >= 3 && their_key.starts_with(&key) {
                1
            } else {
                distance(&key, &their_key)
            };
            let best = whole.min(by_key);
            (best <= limit).then_some((best, whole, *n))
        })
        .collect();
    scored.sort_unstable();
    scored.dedup_by(|a, b| a.2 == b.2);
    scored
        .into_iter()
        .take(5)
        .map(|(_, _, n)| n.to_string())
        .collect()
}

/// The closest names as an error message writes them: comma-separated, or
/// `none near` when no name is near.
pub fn closest_text(names: &[String]) -> String {
    if names.is_empty() {
        "none near".to_string()
    } else {
        names.join(", ")
    }
}

/// A name asked for that the demo does not have, with the closest names it
/// does have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// The name asked for.
    pub name: String,
    /// The closest known names.
    pub closest: Vec<String>,
}

/// The first of `props` that the demo does not have
/// ([`player_prop_known`]), with the closest names it does have
/// ([`player_prop_suggestions`]). `None` when every prop is known, or when
/// the demo has no send tables to check against.
pub fn unknown_player_prop(state: &DemoState, props: &[String]) -> Option<UnknownName> {
    state.send_tables.as_ref()?;
    let p = props.iter().find(|p| !player_prop_known(state, p))?;
    Some(UnknownName {
        name: p.clone(),
        closest: player_prop_suggestions(state, p),
    })
}

/// The first of `names` that is not among the `declared` event names, with
/// the closest declared names.
pub fn undeclared_event(names: &[String], declared: &[&str]) -> Option<UnknownName> {
    let want = names
        .iter()
        .find(|want| !declared.contains(&want.as_str()))?;
    Some(UnknownName {
        name: want.clone(),
        closest: closest(want, declared),
    })
}
