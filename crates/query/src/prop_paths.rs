//! Dotted prop names resolved to field paths: `m_iHealth`,
//! `CBodyComponent.m_cellX`, `m_pWeaponServices.m_hActiveWeapon`, array
//! elements as `m_iAmmo.0003`, nested tables by field or serializer name
//! (demoparser2's way, LaihoE/demoparser). [`resolve_prop`] resolves one
//! name; [`PropCache`] interns names and caches their paths per serializer.

use gamewire_source2::serializer::{FieldDecoder, FieldModel, SendTables, SerializerId};
use gamewire_source2::{DemoState, Entity, FieldPath, Value};

/// The field path of a dotted prop name in a serializer (array elements as
/// numbers; tables by field or serializer name, see [`SendTables::field_named`]);
/// `None` if it does not exist.
pub fn resolve_prop(tables: &SendTables, root: SerializerId, name: &str) -> Option<FieldPath> {
    resolve_prop_decoder(tables, root, name).map(|(path, _)| path)
}

/// [`resolve_prop`], with the decoder of the value the name reaches: a
/// value field, or an array element named with its index (`None` for an
/// array's length or a table). A name that goes on past a value or an
/// element does not resolve.
pub fn resolve_prop_decoder<'t>(
    tables: &'t SendTables,
    root: SerializerId,
    name: &str,
) -> Option<(FieldPath, Option<&'t FieldDecoder>)> {
    let mut indices: Vec<i32> = Vec::with_capacity(4);
    let mut decoder = None;
    let mut ser = root;
    let mut parts = name.split('.').peekable();
    while let Some(part) = parts.next() {
        let (pos, field) = tables.field_named(ser, part)?;
        indices.push(pos as i32);
        decoder = None;
        match &field.model {
            FieldModel::Value(d) => decoder = Some(d),
            FieldModel::FixedArray { element, .. } | FieldModel::VariableArray(element) => {
                if let Some(next) = parts.next() {
                    indices.push(next.parse().ok()?);
                    decoder = Some(element);
                }
            }
            // A polymorphic pointer named by one of its types reads that
            // type's fields (the entity is expected to hold that type).
            FieldModel::FixedTable { serializer, poly } => {
                ser = poly
                    .iter()
                    .copied()
                    .find(|&s| tables.serializer_name(s) == part)
                    .unwrap_or(*serializer);
            }
            FieldModel::VariableTable(s) => {
                indices.push(parts.next()?.parse().ok()?);
                ser = *s;
            }
        }
        if decoder.is_some() && parts.peek().is_some() {
            return None;
        }
    }
    (!indices.is_empty() && indices.len() <= 7).then(|| (FieldPath::from_slice(&indices), decoder))
}

/// A prop name interned in a [`PropCache`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PropId(u32);

/// Field paths of dotted prop names, resolved once per serializer.
///
/// A name is interned once ([`PropCache::id`]); reading a prop by id is two
/// vector lookups and the walk down the entity's state. Reading by name
/// ([`PropCache::value`]) hashes the name first, and allocates nothing once
/// the name is known. The cache follows the demo's send tables: when they
/// are replaced, the resolved paths are dropped.
#[derive(Debug, Default)]
pub struct PropCache {
    ids: rustc_hash::FxHashMap<Box<str>, PropId>,
    names: Vec<Box<str>>,
    /// `paths[serializer][prop]`: `None` until resolved, then the path if
    /// the serializer has the prop.
    paths: Vec<Vec<Option<Option<FieldPath>>>>,
    /// The send tables the paths were resolved against.
    tables: Option<std::sync::Arc<SendTables>>,
    /// The index of the game rules entity, as last found
    /// ([`PropCache::rules_entity`]).
    rules: Option<i32>,
}

/// The class of CS2's game rules entity.
pub(crate) const RULES_CLASS: &str = "CCSGameRulesProxy";

impl PropCache {
    /// The id of a prop name, interning it on first use.
    pub fn id(&mut self, name: &str) -> PropId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = PropId(self.names.len() as u32);
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }

    /// The value of an interned prop on an entity.
    #[inline]
    pub fn get<'e>(
        &mut self,
        state: &DemoState,
        entity: &'e Entity,
        id: PropId,
    ) -> Option<&'e Value> {
        let path = self.path(state, entity, id)?;
        entity.get(&path)
    }

    /// The field path of an interned prop in an entity's serializer
    /// (resolved once per serializer); `None` if it has no such prop.
    #[inline]
    pub fn path(&mut self, state: &DemoState, entity: &Entity, id: PropId) -> Option<FieldPath> {
        let tables = state.send_tables.as_ref()?;
        if !self
            .tables
            .as_ref()
            .is_some_and(|t| std::sync::Arc::ptr_eq(t, tables))
        {
            self.paths.clear();
            self.tables = Some(std::sync::Arc::clone(tables));
        }
        let ser = entity.serializer as usize;
        if self.paths.len() <= ser {
            self.paths.resize_with(ser + 1, Vec::new);
        }
        let row = self.paths.get_mut(ser)?;
        let prop = id.0 as usize;
        if row.len() <= prop {
            row.resize(self.names.len().max(prop + 1), None);
        }
        let slot = row.get_mut(prop)?;
        let path = match slot {
            Some(p) => *p,
            None => {
                let p = self
                    .names
                    .get(prop)
                    .and_then(|n| resolve_prop(tables, entity.serializer, n));
                *slot = Some(p);
                p
            }
        };
        path
    }

    /// The `CCSGameRulesProxy` entity of the current state (its index is
    /// remembered; found again when that entity is gone).
    pub fn rules_entity<'s>(&mut self, state: &'s DemoState) -> Option<&'s Entity> {
        if let Some(e) = self.rules.and_then(|i| state.entities.get(i)) {
            if state.class_name(e) == RULES_CLASS {
                return Some(e);
            }
        }
        let e = state
            .entities
            .iter()
            .find(|e| state.class_name(e) == RULES_CLASS)?;
        self.rules = Some(e.index);
        Some(e)
    }

    /// The value of a dotted prop on an entity.
    #[inline]
    pub fn value<'e>(
        &mut self,
        state: &DemoState,
        entity: &'e Entity,
        name: &str,
    ) -> Option<&'e Value> {
        let id = self.id(name);
        self.get(state, entity, id)
    }
}
