//! Field names to field paths, and timeline values to the values their
//! decoders read.
//!
//! An entity's fields are named as gamewire and demoparser2 name props:
//! the field names from the class's serializer down, joined by dots
//! (`m_pWeaponServices.m_hActiveWeapon`, `CBodyComponent.m_cellX`), an
//! array element by its index (`m_pWeaponServices.m_hMyWeapons.2`), a
//! nested table by its field or by its serializer's name. Each part is an
//! index into the serializer it is in, so a name resolves to a field path:
//! `m_pGameRules.m_bBombPlanted` in `CCSGameRulesProxy` is `[0, 33]` in one
//! game build and another path in the next, which is why the emitter names
//! fields and never numbers them.
//!
//! A path through a pointer (`m_pWeaponServices`, `CBodyComponent`) is
//! only decoded when the pointer is present: its own path (the prefix)
//! carries a bit (a type index for a polymorphic pointer) that must be
//! set, before the paths under it, in the record that creates the entity.
//! A variable array's own path carries its length.

use std::collections::{BTreeMap, HashMap};

use gamewire_source2::serializer::{FieldDecoder, FieldModel, SendTables, SerializerId};
use gamewire_source2::Value;

/// A value before it is fitted to a decoder.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum V {
    /// Any integer (also handles, enums, counts).
    Int(i64),
    /// A float.
    Float(f32),
    /// A bool.
    Bool(bool),
    /// A string.
    Str(String),
    /// Three floats (angles).
    Vec3([f32; 3]),
}

/// What a name resolves to.
#[derive(Debug, Clone)]
pub(crate) struct Resolved {
    /// The field path.
    path: Vec<i32>,
    /// The decoder of the value at the path.
    decoder: FieldDecoder,
    /// The pointers on the way, with the value their own path carries.
    pointers: Vec<(Vec<i32>, Value)>,
}

/// Resolves a dotted name in a serializer (see the module documentation).
/// A variable array named without an index resolves to its length.
fn resolve(tables: &SendTables, root: SerializerId, name: &str) -> Option<Resolved> {
    let mut path: Vec<i32> = Vec::with_capacity(4);
    let mut pointers = Vec::new();
    let mut ser = root;
    let mut parts = name.split('.').peekable();
    while let Some(part) = parts.next() {
        let (pos, field) = tables.field_named(ser, part)?;
        path.push(i32::try_from(pos).ok()?);
        let last = parts.peek().is_none();
        match &field.model {
            FieldModel::Value(d) => {
                return last.then_some(Resolved {
                    path,
                    decoder: *d,
                    pointers,
                });
            }
            FieldModel::FixedArray { element, len } => {
                let index: u32 = parts.next()?.parse().ok()?;
                if index >= *len || parts.peek().is_some() {
                    return None;
                }
                path.push(i32::try_from(index).ok()?);
                return Some(Resolved {
                    path,
                    decoder: *element,
                    pointers,
                });
            }
            FieldModel::VariableArray(element) => {
                let Some(next) = parts.next() else {
                    return Some(Resolved {
                        path,
                        decoder: FieldDecoder::ArrayLength,
                        pointers,
                    });
                };
                path.push(next.parse().ok()?);
                return parts.peek().is_none().then_some(Resolved {
                    path,
                    decoder: *element,
                    pointers,
                });
            }
            FieldModel::FixedTable { serializer, poly } => {
                if last {
                    return None;
                }
                let chosen = poly
                    .iter()
                    .position(|&s| tables.serializer_name(s) == part)
                    .or_else(|| poly.iter().position(|s| s == serializer));
                let value = if poly.is_empty() {
                    Value::Bool(true)
                } else {
                    // Type indices are 1-based.
                    Value::U32(chosen.map_or(0, |i| i as u32 + 1))
                };
                pointers.push((path.clone(), value));
                ser = chosen
                    .and_then(|i| poly.get(i).copied())
                    .unwrap_or(*serializer);
            }
            FieldModel::VariableTable(child) => {
                let Some(next) = parts.next() else {
                    return Some(Resolved {
                        path,
                        decoder: FieldDecoder::ArrayLength,
                        pointers,
                    });
                };
                path.push(next.parse().ok()?);
                ser = *child;
            }
        }
    }
    None
}

/// A timeline value as the value a decoder reads (`None` when the kinds do
/// not fit: a string for a number, a float for a bool).
fn fit(decoder: &FieldDecoder, v: &V) -> Option<Value> {
    let int = || match v {
        V::Int(i) => Some(*i),
        V::Bool(b) => Some(i64::from(*b)),
        _ => None,
    };
    Some(match decoder {
        FieldDecoder::Bool | FieldDecoder::Component | FieldDecoder::PointerPresent => {
            Value::Bool(int()? != 0)
        }
        FieldDecoder::I32 => Value::I32(i32::try_from(int()?).ok()?),
        FieldDecoder::I64 => Value::I64(int()?),
        FieldDecoder::U32 | FieldDecoder::ArrayLength | FieldDecoder::PolyPointer => {
            // Negative values wrap, as the engine stores -1 in unsigned fields.
            Value::U32(int()? as u32)
        }
        FieldDecoder::AmmoCount => Value::U32(u32::try_from(int()?.max(0)).ok()?),
        FieldDecoder::U64 | FieldDecoder::Fixed64 => Value::U64(int()? as u64),
        FieldDecoder::Fallback => match u32::try_from(int()?) {
            Ok(small) => Value::U32(small),
            Err(_) => Value::U64(int()? as u64),
        },
        FieldDecoder::MinusOne => Value::I64(int()?),
        FieldDecoder::String => match v {
            V::Str(s) => Value::String(s.as_str().into()),
            _ => return None,
        },
        FieldDecoder::Float(_) => match v {
            V::Float(f) => Value::F32(*f),
            V::Int(i) => Value::F32(*i as f32),
            _ => return None,
        },
        FieldDecoder::Vector(3, _)
        | FieldDecoder::Vec3Normal
        | FieldDecoder::QAnglePrecise
        | FieldDecoder::QAngleFixed(_)
        | FieldDecoder::QAngleCoord => match v {
            V::Vec3(a) => Value::Vec3(*a),
            _ => return None,
        },
        FieldDecoder::QAnglePitchYaw(_) => match v {
            V::Vec3([p, y, _]) => Value::Vec3([*p, *y, 0.0]),
            _ => return None,
        },
        _ => return None,
    })
}

/// Names resolved per serializer, and the names a schema lacks.
#[derive(Debug, Default)]
pub(crate) struct Names {
    /// By serializer, then by name (looked up without allocating).
    resolved: HashMap<SerializerId, HashMap<String, Option<Resolved>>>,
    /// `Class.field` names the schema lacks (or whose type does not take
    /// the value), each with how many values were skipped.
    pub(crate) skipped: BTreeMap<String, u64>,
}

/// The values of one entity, by field path, in path order (a pointer's or
/// an array's own path before the paths under it).
pub(crate) type FieldMap = BTreeMap<Vec<i32>, Value>;

/// Builds one entity's [`FieldMap`] by name.
pub(crate) struct Fields<'a> {
    tables: &'a SendTables,
    serializer: SerializerId,
    class: &'a str,
    names: &'a mut Names,
    pub(crate) map: FieldMap,
}

impl<'a> Fields<'a> {
    /// An empty map for an entity of `class` (serializer `serializer`).
    pub(crate) fn new(
        tables: &'a SendTables,
        serializer: SerializerId,
        class: &'a str,
        names: &'a mut Names,
    ) -> Self {
        Fields {
            tables,
            serializer,
            class,
            names,
            map: FieldMap::new(),
        }
    }

    fn lookup(&mut self, name: &str) -> Option<Resolved> {
        let names = self.names.resolved.entry(self.serializer).or_default();
        if let Some(r) = names.get(name) {
            return r.clone();
        }
        let r = resolve(self.tables, self.serializer, name);
        names.insert(name.to_string(), r.clone());
        r
    }

    /// Sets the first of `names` that the schema has; counts the first name
    /// as skipped when it has none.
    pub(crate) fn set_any(&mut self, names: &[&str], v: V) {
        for name in names {
            if let Some(r) = self.lookup(name) {
                if let Some(value) = fit(&r.decoder, &v) {
                    for (p, pv) in r.pointers {
                        self.map.entry(p).or_insert(pv);
                    }
                    self.map.insert(r.path, value);
                    return;
                }
            }
        }
        if let Some(first) = names.first() {
            *self
                .names
                .skipped
                .entry(format!("{}.{first}", self.class))
                .or_default() += 1;
        }
    }

    /// Sets one field.
    pub(crate) fn set(&mut self, name: &str, v: V) {
        self.set_any(&[name], v);
    }

    /// Sets a variable array: its length, then each element.
    pub(crate) fn set_array(&mut self, name: &str, values: &[V]) {
        self.set(name, V::Int(values.len() as i64));
        for (i, v) in values.iter().enumerate() {
            self.set(&format!("{name}.{i}"), v.clone());
        }
    }
}

/// The paths whose values differ between two maps of one entity (values
/// of `new` that `old` lacks or holds otherwise), in path order.
pub(crate) fn changes(old: &FieldMap, new: &FieldMap) -> Vec<(Vec<i32>, Value)> {
    new.iter()
        .filter(|(p, v)| old.get(*p) != Some(*v))
        .map(|(p, v)| (p.clone(), v.clone()))
        .collect()
}
