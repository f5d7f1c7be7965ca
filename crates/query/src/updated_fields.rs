//! `updated_fields`: the props a demo actually sends, by name, for the
//! entities a player row can read (demoparser2's `list_updated_fields`).
//!
//! Every field path of every entity update (creations included, with
//! the values their baseline sets) is named
//! the way the schema names it ([`gamewire_source2::serializer::SendTables::schema_name`]): nested tables
//! by their serializer, array elements by the array, with the entity's
//! class in front. The classes are those `ticks` reads props from:
//! `CCSPlayerPawn`, `CCSPlayerController`, `CCSTeam`, `CCSGameRulesProxy`;
//! the props of weapon classes are spelt `Weapon.<prop>` and those of
//! grenade classes (grenades, their projectiles, fires) `Grenade.<prop>`,
//! both read from the player's active weapon. Deadlock's
//! `CCitadelPlayerPawn` and `CCitadelPlayerController` and Dota 2's
//! `CDOTAPlayerController` keep their class in front; Dota 2's heroes (a
//! class each) are unprefixed. Each name is a valid
//! `ticks` prop, except that an array or a per-round vector needs the
//! element added (`…m_iAmmo.0003`).
//!
//! A path is named once per serializer: later updates of it cost one hash
//! lookup.

use gamewire_source2::entity::key_to_path;
use gamewire_source2::serializer::SerializerId;
use gamewire_source2::{DemoState, Entity, EntityChange, FieldPath, Value};
use rustc_hash::FxHashMap;

use crate::classes::is_weapon_class;
use crate::friendly_props::{Owner, GRENADE_PREFIX, PLAYER_CLASS_PREFIXES, WEAPON_PREFIX};
use crate::reference;
use crate::table::{Cell, Table};

/// Which kind of entity a class's props are read from, and the prefix its
/// names get (empty: none); `None` for classes a player row does not read.
fn class_prefix(class: &str) -> Option<(&'static str, &str)> {
    // The classes whose prefix picks the entity in `ticks`.
    let player = PLAYER_CLASS_PREFIXES
        .iter()
        .find(|(prefix, _)| prefix.strip_suffix('.') == Some(class));
    Some(match player {
        Some((_, Owner::Controller)) => ("controller", class),
        Some(_) => ("pawn", class),
        // Dota 2's heroes, a class each: unprefixed (a raw name is looked up
        // on the hero first).
        None if class.starts_with("CDOTA_Unit_Hero_") => ("pawn", ""),
        None => match class {
            "CCSTeam" => ("team", class),
            "CCSGameRulesProxy" => ("rules", class),
            _ if ["Grenade", "Projectile", "Flashbang", "Inferno"]
                .iter()
                .any(|p| class.contains(p)) =>
            {
                ("grenade", trim_dot(GRENADE_PREFIX))
            }
            _ if is_weapon_class(class) || class.starts_with("CKnife") => {
                ("weapon", trim_dot(WEAPON_PREFIX))
            }
            _ => return None,
        },
    })
}

fn trim_dot(prefix: &str) -> &str {
    prefix.strip_suffix('.').unwrap_or(prefix)
}

/// `updated_fields`: one row per prop name, with how many path updates
/// carried it (0: only a baseline sets it) and the entity classes that
/// send it.
#[derive(Debug, Default)]
pub struct UpdatedFieldsCollector {
    /// (serializer, path) → the name's index in `names` (`None`: a path
    /// that names no value, or an entity class not listed).
    seen: FxHashMap<(SerializerId, FieldPath), Option<u32>>,
    /// Name → index in `names`.
    index: FxHashMap<String, u32>,
    /// (name, entity kind, updates, the classes that send it).
    names: Vec<(String, &'static str, u64, Vec<String>)>,
}

impl UpdatedFieldsCollector {
    /// Takes one entity change with the paths it carried.
    pub fn on_entity(
        &mut self,
        state: &DemoState,
        change: EntityChange,
        entity: &Entity,
        paths: &[FieldPath],
    ) {
        if !matches!(change, EntityChange::Created | EntityChange::Updated) || paths.is_empty() {
            return;
        }
        if change == EntityChange::Created {
            // What the baseline set is sent too, once per class: listed,
            // with no update counted.
            for (key, _) in entity.values() {
                self.slot(state, entity, &key_to_path(key));
            }
        }
        for fp in paths {
            if let Some(entry) = self
                .slot(state, entity, fp)
                .and_then(|i| self.names.get_mut(i as usize))
            {
                entry.2 += 1;
            }
        }
    }

    /// The index in `names` of a path's name, named on first sight.
    fn slot(&mut self, state: &DemoState, entity: &Entity, fp: &FieldPath) -> Option<u32> {
        let key = (entity.serializer, *fp);
        if let Some(&slot) = self.seen.get(&key) {
            return slot;
        }
        let class = state.class_name(entity);
        let slot = class_prefix(class).and_then(|(kind, prefix)| {
            let tables = state.send_tables.as_deref()?;
            let name = tables.schema_name(entity.serializer, fp, |len| {
                fp.prefix_key(len)
                    .and_then(|k| entity.get_key(k))
                    .and_then(Value::as_u64)
                    .map(|v| v as u32)
            })?;
            let full = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}.{name}")
            };
            let i = self.intern(full, kind);
            if let Some((.., classes)) = self.names.get_mut(i as usize) {
                if !classes.iter().any(|c| c == class) {
                    classes.push(class.to_string());
                }
            }
            Some(i)
        });
        self.seen.insert(key, slot);
        slot
    }

    fn intern(&mut self, name: String, kind: &'static str) -> u32 {
        if let Some(&i) = self.index.get(&name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.index.insert(name.clone(), i);
        self.names.push((name, kind, 0, Vec::new()));
        i
    }

    /// The names, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.names.iter().map(|(n, ..)| n.as_str()).collect();
        v.sort_unstable();
        v
    }

    /// The table, sorted by name.
    pub fn finish(mut self) -> Table {
        self.names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut table = reference::UPDATED_FIELDS.empty_table();
        for (name, kind, updates, mut classes) in self.names {
            classes.sort_unstable();
            table.push_row(&[
                Cell::Str(name),
                Cell::Str(kind.to_string()),
                Cell::Int(i64::try_from(updates).unwrap_or(i64::MAX)),
                Cell::Strs(classes),
            ]);
        }
        table
    }
}
