//! Prop and event names checked against what a demo declares (its
//! serializers and classes), and the closest valid names for an error
//! message.

use crate::classes::{projectile_serializers, weapon_serializers};
use crate::friendly_props::{Owner, PropSource, FRIENDLY_PROPS};
use crate::prop_paths::resolve_prop;
use crate::world::{
    other_columns, player_source, OtherSource, PlayerSource, RULES_PROPS, TEAM_PROPS,
};
use gamewire_source2::DemoState;

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

/// Whether a dotted path resolves on a class's serializer; true when the
/// demo has no send tables or no such class (not CS2: values are null).
fn resolves_on(state: &DemoState, class: &str, path: &str) -> bool {
    let Some(tables) = state.send_tables.as_ref() else {
        return true;
    };
    match tables.by_name(class) {
        Some(s) => resolve_prop(tables, s, path).is_some(),
        None => true,
    }
}

/// Whether a player prop name is known: friendly, or a raw path that
/// resolves on the pawn, controller, team or rules serializer. Demos
/// without those serializers (not CS2) accept every name (values are null).
pub fn player_prop_known(state: &DemoState, name: &str) -> bool {
    let entity = match player_source(name) {
        PlayerSource::Team(p) => return resolves_on(state, "CCSTeam", &p),
        PlayerSource::World(s) => return other_source_known(state, &s),
        PlayerSource::Entity(s) => s,
    };
    if FRIENDLY_PROPS.iter().any(|(n, _)| *n == name) {
        return true;
    }
    let Some(tables) = state.send_tables.as_ref() else {
        return true;
    };
    let (Some(pawn), Some(controller)) = (
        tables.by_name("CCSPlayerPawn"),
        tables.by_name("CCSPlayerController"),
    ) else {
        return true;
    };
    match entity {
        PropSource::Raw(Owner::Pawn, p) | PropSource::Element(Owner::Pawn, p, _) => {
            resolve_prop(tables, pawn, &p).is_some()
                || resolve_prop(tables, controller, &p).is_some()
        }
        PropSource::Raw(Owner::Controller, p) | PropSource::Element(Owner::Controller, p, _) => {
            resolve_prop(tables, controller, &p).is_some()
        }
        PropSource::Raw(Owner::ActiveWeapon, p)
        | PropSource::Element(Owner::ActiveWeapon, p, _) => {
            weapon_serializers(state).any(|s| resolve_prop(tables, s, &p).is_some())
        }
        PropSource::Position(_)
        | PropSource::IsAlive
        | PropSource::Button(_)
        | PropSource::Computed(_)
        | PropSource::Velocity(_)
        | PropSource::UserCommand(_) => true,
    }
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

/// A name asked for that the demo does not have, with the closest names it
/// does have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// The name asked for.
    pub name: String,
    /// The closest known names.
    pub closest: Vec<String>,
}

/// The first of `props` that is neither a friendly player prop nor a raw
/// path of the player classes, with the closest of the friendly names and
/// the fields of `CCSPlayerPawn` and `CCSPlayerController`. `None` when
/// every prop is known, or when the demo has no send tables to check
/// against.
pub fn unknown_player_prop(state: &DemoState, props: &[String]) -> Option<UnknownName> {
    let tables = state.send_tables.as_ref()?;
    let p = props.iter().find(|p| !player_prop_known(state, p))?;
    let mut names: Vec<String> = player_prop_names().iter().map(|n| n.to_string()).collect();
    for class in ["CCSPlayerPawn", "CCSPlayerController"] {
        if let Some(ser) = tables.by_name(class).and_then(|s| tables.serializer(s)) {
            for &f in &ser.fields {
                if let Some(f) = tables.fields.get(f as usize) {
                    names.push(tables.symbol(f.name).to_string());
                }
            }
        }
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    Some(UnknownName {
        name: p.clone(),
        closest: closest(p, &refs),
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
