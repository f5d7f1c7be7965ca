//! The send tables once built: serializers and their fields, each field
//! with its model and decoder, looked up by serializer name and walked by
//! field path ([`SendTables::walk`]). A field path is a list of indices:
//! from the root serializer each selects a field; a table descends into
//! its serializer, an array or table into its element (see
//! demoinfocs-golang `field_path.go`, clarity's `FieldPath`, haste's
//! `fieldpath.rs`).

use crate::error::FieldError;
use crate::fieldpath::FieldPath;
use crate::flattened::CoordSizeParams;

use super::decoder::{FieldDecoder, MAX_ARRAY_LEN};

/// Deepest nesting of serializers.
pub const MAX_NESTING: usize = 16;

/// Index of a serializer in [`SendTables::serializers`].
pub type SerializerId = u32;

/// A field's model.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldModel {
    /// A single value.
    Value(FieldDecoder),
    /// `len` values.
    FixedArray {
        /// Number of elements.
        len: u32,
        /// Element decoder.
        element: FieldDecoder,
    },
    /// A resizable array of values.
    VariableArray(FieldDecoder),
    /// A pointer to a nested serializer; polymorphic when `poly` is not empty
    /// (`poly[i - 1]` is the serializer of type index `i`).
    FixedTable {
        /// The declared serializer.
        serializer: SerializerId,
        /// The polymorphic serializers.
        poly: Vec<SerializerId>,
    },
    /// A resizable array of nested serializers.
    VariableTable(SerializerId),
}

/// A symbol of the send tables (a field name, a type, an encoder, a
/// serializer name): an index into the one text store of its
/// [`SendTables`]. Read it with [`SendTables::symbol`].
///
/// A CS2 demo's send tables have about 2 000 symbols shared by 1 600 fields
/// and 260 serializers; one store for all of them (instead of a string per
/// name) makes the tables cheap to build and to drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Symbol(pub u32);

/// The text of every [`Symbol`], one after the other.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct SymbolText {
    pub(super) text: String,
    /// End of symbol `i` in `text` (its start is the end of `i - 1`).
    pub(super) ends: Vec<u32>,
}

impl SymbolText {
    pub(super) fn get(&self, s: Symbol) -> &str {
        let i = s.0 as usize;
        let end = self.ends.get(i).copied().unwrap_or(0) as usize;
        let start = match i.checked_sub(1) {
            Some(p) => self.ends.get(p).copied().unwrap_or(0) as usize,
            None => 0,
        };
        self.text.get(start..end).unwrap_or("")
    }

    pub(super) fn push(&mut self, text: &str) -> Symbol {
        let id = Symbol(self.ends.len() as u32);
        self.text.push_str(text);
        self.ends.push(self.text.len() as u32);
        id
    }
}

/// One field of a serializer.
#[derive(Debug, Clone)]
pub struct Field {
    /// Variable name (`m_iHealth`).
    pub name: Symbol,
    /// Declared type (`int32`, `CHandle< CBaseEntity >`, ...).
    pub var_type: Symbol,
    /// Encoder name, if any.
    pub encoder: Option<Symbol>,
    /// The model and decoder.
    pub model: FieldModel,
    /// True when the decoder is the fallback for an unknown type.
    pub fallback: bool,
}

/// A serializer: a named, versioned list of fields.
#[derive(Debug, Clone)]
pub struct Serializer {
    /// Name (`CCSPlayerPawn`).
    pub name: Symbol,
    /// Version.
    pub version: i32,
    /// Indices into [`SendTables::fields`].
    pub fields: Vec<u32>,
}

/// The send tables of one demo, built once at signon.
#[derive(Debug, Clone, Default)]
pub struct SendTables {
    /// All serializers.
    pub serializers: Vec<Serializer>,
    /// All fields (shared between serializers).
    pub fields: Vec<Field>,
    /// The text of the symbols.
    pub(super) symbols: SymbolText,
    /// One serializer per name (the highest version) with the hash of the
    /// name, sorted by hash (names that share a hash are told apart by
    /// their text).
    pub(super) by_name: Vec<(u64, SerializerId)>,
    /// Types that fell back to the default decoder: (serializer, field, type).
    pub fallbacks: Vec<(String, String, String)>,
    /// The coordinate bit sizes the message declares, if it does (the
    /// decoders use the fixed sizes of docs/formats/source2-base-types.md; see [`CoordSizeParams::differences`]).
    pub coord_size_params: Option<CoordSizeParams>,
}

impl SendTables {
    /// The text of a symbol (empty for a symbol of other tables).
    #[inline]
    pub fn symbol(&self, s: Symbol) -> &str {
        self.symbols.get(s)
    }

    /// The name of a serializer by id (`?` for an unknown id).
    pub fn serializer_name(&self, id: SerializerId) -> &str {
        self.serializer(id)
            .map(|s| self.symbol(s.name))
            .unwrap_or("?")
    }

    /// The serializer with this name (highest version).
    pub fn by_name(&self, name: &str) -> Option<SerializerId> {
        let hash = name_hash(name);
        let first = self.by_name.partition_point(|&(h, _)| h < hash);
        self.by_name
            .get(first..)?
            .iter()
            .take_while(|&&(h, _)| h == hash)
            .map(|&(_, id)| id)
            .find(|&id| self.serializer_name(id) == name)
    }

    /// A serializer.
    pub fn serializer(&self, id: SerializerId) -> Option<&Serializer> {
        self.serializers.get(id as usize)
    }

    /// The `index`th field of a serializer.
    #[inline]
    pub fn field(&self, ser: SerializerId, index: i32) -> Option<&Field> {
        let s = self.serializers.get(ser as usize)?;
        let fi = *s.fields.get(usize::try_from(index).ok()?)?;
        self.fields.get(fi as usize)
    }

    /// The field of a serializer that one part of a dotted prop name names
    /// (`m_pWeaponServices` in `m_pWeaponServices.m_hActiveWeapon`), with
    /// its position in the serializer: the last field of that name, else
    /// the first table field whose serializer (for a polymorphic pointer,
    /// any of its types) has that name, so that `CCSPlayer_MovementServices`
    /// names `m_pMovementServices` as demoparser2 names nested props.
    ///
    /// The last of a name, because CS2's pawn flattens `m_vecVelocity` and
    /// then `m_vecViewOffset` into top-level `m_vecX`/`m_vecY`/`m_vecZ`, and
    /// only the view offset is sent (demoparser2 reads the same one).
    pub fn field_named(&self, ser: SerializerId, part: &str) -> Option<(usize, &Field)> {
        let s = self.serializer(ser)?;
        let fields = || {
            s.fields
                .iter()
                .enumerate()
                .filter_map(|(i, &f)| self.fields.get(f as usize).map(|f| (i, f)))
        };
        fields()
            .rev()
            .find(|(_, f)| self.symbol(f.name) == part)
            .or_else(|| {
                fields().find(|(_, f)| match &f.model {
                    FieldModel::FixedTable { serializer, poly } => {
                        self.serializer_name(*serializer) == part
                            || poly.iter().any(|&s| self.serializer_name(s) == part)
                    }
                    FieldModel::VariableTable(serializer) => {
                        self.serializer_name(*serializer) == part
                    }
                    _ => false,
                })
            })
    }

    /// Resolves a field path to its decoder. `poly_index(prefix_len)` gives the
    /// stored value at the first `prefix_len` indices: the type index of a
    /// polymorphic pointer, or the current length of a variable array or
    /// table (an element index must be below it, which bounds memory).
    #[inline]
    pub fn resolve<'s>(
        &'s self,
        root: SerializerId,
        fp: &FieldPath,
        poly_index: impl FnMut(usize) -> Option<u32>,
    ) -> Result<&'s FieldDecoder, FieldError> {
        self.resolve_with_parent(root, fp, poly_index)
            .map(|(d, _)| d)
    }

    /// [`SendTables::resolve`], also giving what the path's last index
    /// selects in: a path that differs only in its last index resolves
    /// through the same parent (see [`LastParent::resolve`]).
    #[inline]
    pub(crate) fn resolve_with_parent<'s>(
        &'s self,
        root: SerializerId,
        fp: &FieldPath,
        poly_index: impl FnMut(usize) -> Option<u32>,
    ) -> Result<(&'s FieldDecoder, LastParent<'s>), FieldError> {
        let (_, decoder, last) = self.walk(root, fp, &mut Lookup(poly_index))?;
        let parent = match last {
            Last::Fields { serializer, .. } => LastParent::Fields(serializer),
            Last::Elements { decoder, bound, .. } => LastParent::Elements { decoder, bound },
        };
        Ok((decoder, parent))
    }

    /// The one walk of a field path down the send tables: from the root
    /// serializer, each index selects a field; a table descends into its
    /// serializer (a polymorphic pointer's by the type index stored at its
    /// slot), an array or table element is bounded by the length stored at
    /// its slot. `store` gives those stored values and, as the walk goes,
    /// the slot of each step (an entity's state allocates them; a lookup
    /// has none). Returns the slot of the path's end, its decoder, and
    /// what its last index selects in.
    #[inline(always)]
    pub(crate) fn walk<'s, S: PathStore>(
        &'s self,
        root: SerializerId,
        fp: &FieldPath,
        store: &mut S,
    ) -> Result<Walked<'s, S::Slot>, FieldError> {
        const LENGTH: FieldDecoder = FieldDecoder::ArrayLength;
        const POINTER: FieldDecoder = FieldDecoder::PointerPresent;
        const POLY: FieldDecoder = FieldDecoder::PolyPointer;
        let path = fp.as_slice();
        let last = path.len() - 1;
        let mut ser = root;
        let mut owner: Option<S::Slot> = None;
        let mut i = 0usize;
        loop {
            let index = path.get(i).copied().unwrap_or(-1);
            let Some(s) = self.serializers.get(ser as usize) else {
                return Err(FieldError::SerializerMissing(ser));
            };
            let field = usize::try_from(index)
                .ok()
                .and_then(|k| s.fields.get(k))
                .and_then(|&f| self.fields.get(f as usize))
                .ok_or_else(|| FieldError::OutsideSerializer {
                    index,
                    depth: i,
                    serializer: self.symbol(s.name).to_string(),
                })?;
            let size = store.size(s.fields.len());
            let at = store.slot(owner, index, size)?;
            // The parent of a path that ends here.
            let here = Last::Fields {
                serializer: ser,
                fields: &s.fields,
                owner,
                size,
            };
            // The value stored at this slot: a length or a type index.
            let prefix = path.get(..=i).unwrap_or(&[]);
            match &field.model {
                FieldModel::Value(d) => {
                    if i != last {
                        return Err(FieldError::PastValue {
                            field: self.symbol(field.name).to_string(),
                        });
                    }
                    return Ok((at, d, here));
                }
                FieldModel::FixedArray { len, element } => {
                    let elem = path.get(i + 1).copied().unwrap_or(-1);
                    if i + 1 != last || elem < 0 || elem as u32 >= *len {
                        return Err(FieldError::FixedArrayElement {
                            field: self.symbol(field.name).to_string(),
                            len: *len,
                        });
                    }
                    let size = store.size(*len as usize);
                    let parent_slot = at;
                    let at = store.slot(Some(parent_slot), elem, size)?;
                    let parent = Last::Elements {
                        owner: parent_slot,
                        decoder: element,
                        bound: *len,
                        size,
                    };
                    return Ok((at, element, parent));
                }
                FieldModel::VariableArray(element) => {
                    if i == last {
                        return Ok((at, &LENGTH, here));
                    }
                    let elem = path.get(i + 1).copied().unwrap_or(-1);
                    let len = stored_len(store, at, prefix);
                    if i + 1 != last || elem < 0 || elem as u32 >= len.unwrap_or(MAX_ARRAY_LEN) {
                        return Err(FieldError::VariableArrayElement {
                            field: self.symbol(field.name).to_string(),
                        });
                    }
                    let size = store.size(len.unwrap_or(0) as usize);
                    let parent_slot = at;
                    let at = store.slot(Some(parent_slot), elem, size)?;
                    let parent = Last::Elements {
                        owner: parent_slot,
                        decoder: element,
                        bound: len.unwrap_or(MAX_ARRAY_LEN),
                        size,
                    };
                    return Ok((at, element, parent));
                }
                FieldModel::FixedTable { serializer, poly } => {
                    if i == last {
                        let d = if poly.is_empty() { &POINTER } else { &POLY };
                        return Ok((at, d, here));
                    }
                    ser = if poly.is_empty() {
                        *serializer
                    } else {
                        let idx = store.stored(at, prefix).unwrap_or(0);
                        match idx.checked_sub(1).and_then(|k| poly.get(k as usize)) {
                            Some(&p) => p,
                            None => *serializer,
                        }
                    };
                    owner = Some(at);
                    i += 1;
                }
                FieldModel::VariableTable(child) => {
                    if i == last {
                        return Ok((at, &LENGTH, here));
                    }
                    let elem = path.get(i + 1).copied().unwrap_or(-1);
                    let len = stored_len(store, at, prefix);
                    if elem < 0 || elem as u32 >= len.unwrap_or(MAX_ARRAY_LEN) || i + 1 == last {
                        return Err(FieldError::VariableTableElement {
                            field: self.symbol(field.name).to_string(),
                        });
                    }
                    let size = store.size(len.unwrap_or(0) as usize);
                    let at = store.slot(Some(at), elem, size)?;
                    owner = Some(at);
                    ser = *child;
                    i += 2;
                }
            }
        }
    }

    /// The name a value's path has in the schema, the same for every
    /// element and every entity of a class: nested tables named by their
    /// serializer (`CCSPlayer_CameraServices.m_iFOV`,
    /// `CCSPlayerController_ActionTrackingServices.CSPerRoundStats_t.m_iKills`),
    /// array elements by the array (`m_iAmmo`). This is how demoparser2
    /// names props, and the prop names of analyst tables accept table
    /// parts spelt so. `None` when the path does not resolve or ends at an array
    /// length or a pointer (not a value). `poly_index` as in
    /// [`SendTables::path_name`].
    pub fn schema_name(
        &self,
        root: SerializerId,
        fp: &FieldPath,
        poly_index: impl FnMut(usize) -> Option<u32>,
    ) -> Option<String> {
        self.name_of(root, fp, poly_index, true)
    }

    /// The dotted name of a field path (`CBodyComponent.m_cellX`,
    /// `m_iAmmo.0003`), or `None` if the path does not resolve.
    pub fn path_name(
        &self,
        root: SerializerId,
        fp: &FieldPath,
        poly_index: impl FnMut(usize) -> Option<u32>,
    ) -> Option<String> {
        self.name_of(root, fp, poly_index, false)
    }

    /// [`SendTables::schema_name`] (`schema`) or [`SendTables::path_name`]:
    /// one walk down the path, naming each step.
    fn name_of(
        &self,
        root: SerializerId,
        fp: &FieldPath,
        mut poly_index: impl FnMut(usize) -> Option<u32>,
        schema: bool,
    ) -> Option<String> {
        let path = fp.as_slice();
        let mut out = String::new();
        let mut ser = root;
        let mut i = 0usize;
        while i < path.len() {
            let field = self.field(ser, path[i])?;
            if !out.is_empty() {
                out.push('.');
            }
            match &field.model {
                FieldModel::Value(_) => {
                    out.push_str(self.symbol(field.name));
                    return (!schema || i + 1 == path.len()).then_some(out);
                }
                FieldModel::FixedArray { .. } | FieldModel::VariableArray(_) => {
                    out.push_str(self.symbol(field.name));
                    let element = path.get(i + 1);
                    if schema {
                        // The element, not the length.
                        return (i + 2 == path.len()).then_some(out);
                    }
                    if let Some(e) = element {
                        out.push_str(&format!(".{e:04}"));
                    }
                    return Some(out);
                }
                FieldModel::FixedTable { serializer, poly } => {
                    ser = if poly.is_empty() {
                        *serializer
                    } else {
                        poly_index(i + 1)
                            .and_then(|k| k.checked_sub(1))
                            .and_then(|k| poly.get(k as usize).copied())
                            .unwrap_or(*serializer)
                    };
                    out.push_str(if schema {
                        self.serializer_name(ser)
                    } else {
                        self.symbol(field.name)
                    });
                    i += 1;
                }
                FieldModel::VariableTable(s) => {
                    ser = *s;
                    if schema {
                        out.push_str(self.serializer_name(ser));
                    } else {
                        out.push_str(self.symbol(field.name));
                        if let Some(e) = path.get(i + 1) {
                            out.push_str(&format!(".{e:04}"));
                        }
                    }
                    i += 2;
                }
            }
        }
        (!schema).then_some(out)
    }
}

/// Where [`SendTables::walk`] finds the values stored along a path and
/// keeps the slots it walks through.
pub(crate) trait PathStore {
    /// A slot: where one step of a path is stored.
    type Slot: Copy;
    /// The size hint of a node of `n` slots (the walk allocates nodes of
    /// this size).
    fn size(&self, n: usize) -> usize;
    /// The slot of `index` in the node under `owner` (`None`: the root), a
    /// node of `size` slots.
    fn slot(
        &mut self,
        owner: Option<Self::Slot>,
        index: i32,
        size: usize,
    ) -> Result<Self::Slot, FieldError>;
    /// The value stored at `slot` (path `prefix`): an array's length or a
    /// polymorphic pointer's type index.
    fn stored(&mut self, slot: Self::Slot, prefix: &[i32]) -> Option<u64>;
}

/// The length stored at a variable array's or table's slot, at most
/// [`MAX_ARRAY_LEN`].
#[inline(always)]
fn stored_len<S: PathStore>(store: &mut S, slot: S::Slot, prefix: &[i32]) -> Option<u32> {
    store
        .stored(slot, prefix)
        .map(|v| v.min(u64::from(MAX_ARRAY_LEN)) as u32)
}

/// A walk that keeps no slots: the stored values come from a function of
/// the prefix length (see [`SendTables::resolve`]).
struct Lookup<F>(F);

impl<F: FnMut(usize) -> Option<u32>> PathStore for Lookup<F> {
    type Slot = ();

    #[inline(always)]
    fn size(&self, n: usize) -> usize {
        n
    }

    #[inline(always)]
    fn slot(&mut self, _: Option<()>, _: i32, _: usize) -> Result<(), FieldError> {
        Ok(())
    }

    #[inline(always)]
    fn stored(&mut self, _: (), prefix: &[i32]) -> Option<u64> {
        (self.0)(prefix.len()).map(u64::from)
    }
}

/// What [`SendTables::walk`] finds: the slot of the path's end, its
/// decoder, and what its last index selects in.
pub(crate) type Walked<'s, S> = (S, &'s FieldDecoder, Last<'s, S>);

/// What the last index of a walked path selects in, with the slots of the
/// walk's store.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Last<'s, S> {
    /// A field of `serializer`, whose field indices are `fields`, in the
    /// node under `owner` (`None`: the root) of `size` slots.
    Fields {
        serializer: SerializerId,
        fields: &'s [u32],
        owner: Option<S>,
        size: usize,
    },
    /// An element of an array of `bound` elements, in the node under
    /// `owner` of `size` slots.
    Elements {
        owner: S,
        decoder: &'s FieldDecoder,
        bound: u32,
        size: usize,
    },
}

/// What the last index of a resolved path selects in (from
/// [`SendTables::resolve_with_parent`]): most paths of an update differ
/// from the one before only in their last index, and such a path resolves
/// through the same parent, since everything that shapes the walk (an
/// array's length, a pointer's type) sits on the shared prefix, which only
/// a shorter path can change.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LastParent<'s> {
    /// A field of this serializer.
    Fields(SerializerId),
    /// An element of an array of `bound` elements.
    Elements {
        decoder: &'s FieldDecoder,
        bound: u32,
    },
}

impl<'s> LastParent<'s> {
    /// The decoder of last index `index` under this parent, when that is a
    /// value the full walk would give too: an element within the bound, or
    /// a value field. `None` for anything else (a structural field, an
    /// index out of range), which the full walk then resolves or reports.
    #[inline]
    pub(crate) fn resolve(self, tables: &'s SendTables, index: i32) -> Option<&'s FieldDecoder> {
        match self {
            LastParent::Elements { decoder, bound } => {
                (index >= 0 && (index as u32) < bound).then_some(decoder)
            }
            LastParent::Fields(ser) => match &tables.field(ser, index)?.model {
                FieldModel::Value(d) => Some(d),
                _ => None,
            },
        }
    }
}

/// The hash [`SendTables::by_name`] sorts by.
pub(super) fn name_hash(name: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    name.hash(&mut h);
    h.finish()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::serializer::build::FieldCache;
    use crate::serializer::*;
    use source2_demo_protobufs::CSvcMsgFlattenedSerializer;

    #[test]
    fn declared_coord_sizes_other_than_the_seeds_are_kept_and_warned_about() {
        use prost::Message;
        use source2_demo_protobufs::{CDemoSendTables, ProtoCoordSizeParamsT};
        let seeds = ProtoCoordSizeParamsT {
            coord_integer_bits: Some(14),
            coord_fractional_bits: Some(5),
            normal_fractional_bits: Some(11),
            angle_bits: Some(16),
            ..Default::default()
        };
        let other = ProtoCoordSizeParamsT {
            coord_integer_bits: Some(12),
            coord_fractional_bits: Some(5),
            normal_fractional_bits: Some(9),
            ..Default::default()
        };
        // A demo of one DEM_SendTables frame and DEM_Stop.
        let demo = |params: Option<ProtoCoordSizeParamsT>| {
            let msg = CSvcMsgFlattenedSerializer {
                coord_size_params: params,
                ..Default::default()
            }
            .encode_to_vec();
            let mut data = Vec::new();
            prost::encoding::encode_varint(msg.len() as u64, &mut data);
            data.extend_from_slice(&msg);
            let payload = CDemoSendTables { data: Some(data) }.encode_to_vec();
            let mut demo = crate::container::MAGIC_SOURCE2.to_vec();
            demo.resize(crate::container::HEADER_LEN, 0);
            for (command, body) in [(4u8, payload.as_slice()), (0, &[][..])] {
                demo.push(command);
                demo.push(0);
                prost::encoding::encode_varint(body.len() as u64, &mut demo);
                demo.extend_from_slice(body);
            }
            (msg, demo)
        };
        let (msg, _) = demo(Some(other));
        let tables = SendTables::from_message(&msg).unwrap();
        let declared = tables.coord_size_params.unwrap();
        assert_eq!(declared.coord_integer_bits, Some(12));
        assert_eq!(
            declared.differences(),
            vec![
                ("coord_integer_bits", 12, 14),
                ("normal_fractional_bits", 9, 11)
            ]
        );
        // The generated type's build says the same.
        let generated =
            SendTables::build(&CSvcMsgFlattenedSerializer::decode(msg.as_slice()).unwrap())
                .unwrap();
        assert_eq!(generated.coord_size_params, tables.coord_size_params);
        for helper in [false, true] {
            let warnings = |params| {
                let (_, demo) = demo(params);
                let mut parser = crate::DemoParser::new(&demo)
                    .unwrap()
                    .with_helper_thread(helper);
                parser.run(&mut crate::NoVisitor).unwrap();
                parser
                    .state
                    .warnings
                    .iter()
                    .map(|w| w.message.clone())
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                warnings(Some(other)),
                vec![
                    "the send tables declare coord_integer_bits 12; values are read with 14, the fixed size of the Source 2 coordinate encodings",
                    "the send tables declare normal_fractional_bits 9; values are read with 11, the fixed size of the Source 2 coordinate encodings",
                ],
                "helper {helper}"
            );
            assert!(warnings(Some(seeds)).is_empty(), "helper {helper}");
            assert!(warnings(None).is_empty(), "helper {helper}");
        }
    }

    /// A message of `n` fields in two serializers: values of several types,
    /// fixed and variable arrays, a nested table by name and version, a
    /// polymorphic pointer, an unknown type (a fallback); `bad` fields are
    /// arrays too long to build.
    fn synthetic_message(n: usize, bad: &[usize]) -> Vec<u8> {
        use prost::Message;
        use source2_demo_protobufs::proto_flattened_serializer_field_t::PolymorphicFieldT;
        use source2_demo_protobufs::{ProtoFlattenedSerializerFieldT, ProtoFlattenedSerializerT};
        let symbols: Vec<String> = [
            "CRoot",
            "CInner",
            "int32",
            "float32",
            "uint16[4]",
            "CUtlVector< uint32 >",
            "CInner*",
            "CMysteryType",
            "int32[99999]",
            "coord",
            "m_flSimulationTime",
            "CUtlVectorEmbeddedNetworkVar< CInner >",
            "CInner",
            "m_x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let fields = (0..n)
            .map(|i| {
                let mut f = ProtoFlattenedSerializerFieldT {
                    var_name_sym: Some(if i % 11 == 0 { 10 } else { 13 }),
                    var_type_sym: Some([2, 3, 4, 5, 6, 7, 11][i % 7]),
                    ..Default::default()
                };
                match i % 7 {
                    1 => {
                        f.bit_count = Some(10);
                        f.low_value = Some(-1.0);
                        f.high_value = Some(1.0);
                        f.var_encoder_sym = (i % 3 == 0).then_some(9);
                    }
                    4 => {
                        f.field_serializer_name_sym = Some(12);
                        f.field_serializer_version = Some(if i % 2 == 0 { 2 } else { 7 });
                        if i % 3 == 0 {
                            f.polymorphic_types = vec![PolymorphicFieldT {
                                polymorphic_field_serializer_name_sym: Some(1),
                                polymorphic_field_serializer_version: Some(1),
                            }];
                        }
                    }
                    6 => f.field_serializer_name_sym = Some(1),
                    _ => {}
                }
                if bad.contains(&i) {
                    f.var_type_sym = Some(8);
                    f.field_serializer_name_sym = None;
                    f.polymorphic_types.clear();
                }
                f
            })
            .collect();
        let half = (n / 2) as i32;
        CSvcMsgFlattenedSerializer {
            serializers: vec![
                ProtoFlattenedSerializerT {
                    serializer_name_sym: Some(1),
                    serializer_version: Some(1),
                    fields_index: (0..half).collect(),
                },
                ProtoFlattenedSerializerT {
                    serializer_name_sym: Some(12),
                    serializer_version: Some(2),
                    fields_index: (half..n as i32).collect(),
                },
                ProtoFlattenedSerializerT {
                    serializer_name_sym: Some(0),
                    serializer_version: Some(0),
                    fields_index: (0..n as i32).rev().collect(),
                },
            ],
            symbols,
            fields,
            ..Default::default()
        }
        .encode_to_vec()
    }

    fn describe(t: &Result<SendTables, ErrorKind>) -> String {
        match t {
            Ok(t) => format!(
                "{:?} {:?} {:?} {:?} {:?}",
                t.serializers, t.fields, t.fallbacks, t.by_name, t.symbols
            ),
            Err(e) => format!("error: {e}"),
        }
    }

    /// Runs the helper's part on a thread of its own, after `delay`, and
    /// joins on another (after `join_after`); making the message takes
    /// `slow` (so one thread arrives while the other sets the stage up).
    /// A join that does not end within ten seconds fails the test.
    fn shared_slow(
        message: Result<Vec<u8>, ErrorKind>,
        delay: std::time::Duration,
        join_after: std::time::Duration,
        slow: std::time::Duration,
    ) -> Result<SendTables, ErrorKind> {
        let build = SharedBuild::new(Box::new(move || {
            std::thread::sleep(slow);
            message
        }));
        let part = HelperPart::of(&build);
        let helper = std::thread::spawn(move || {
            std::thread::sleep(delay);
            part.run();
        });
        let (tx, rx) = std::sync::mpsc::channel();
        let joiner = std::thread::spawn(move || {
            std::thread::sleep(join_after);
            let _ = tx.send(build.join());
        });
        let tables = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the join did not end");
        helper.join().unwrap();
        joiner.join().unwrap();
        tables
    }

    fn shared_with(
        message: Result<Vec<u8>, ErrorKind>,
        delay: std::time::Duration,
        join_after: std::time::Duration,
    ) -> Result<SendTables, ErrorKind> {
        shared_slow(message, delay, join_after, std::time::Duration::ZERO)
    }

    fn shared(
        message: Result<Vec<u8>, ErrorKind>,
        delay: std::time::Duration,
    ) -> Result<SendTables, ErrorKind> {
        shared_with(message, delay, std::time::Duration::ZERO)
    }

    #[test]
    fn a_shared_build_equals_one_thread() {
        for n in [0, 1, 63, 64, 65, 300, 1000] {
            let body = synthetic_message(n, &[]);
            let alone = SendTables::from_message(&body);
            assert!(alone.is_ok(), "{n}: {}", describe(&alone));
            if n > 5 {
                // Field 5 is of the unknown type.
                assert!(!alone.as_ref().unwrap().fallbacks.is_empty());
            }
            for delay in [0, 50, 500] {
                let delay = std::time::Duration::from_micros(delay);
                let got = shared(Ok(body.clone()), delay);
                assert_eq!(describe(&got), describe(&alone), "{n} fields, {delay:?}");
            }
        }
    }

    #[test]
    fn a_shared_build_reports_the_first_error_in_field_order() {
        for bad in [&[5][..], &[700], &[130, 5, 900], &[999]] {
            let body = synthetic_message(1000, bad);
            let alone = SendTables::from_message(&body);
            assert!(alone.is_err());
            for delay in [0, 200] {
                let got = shared(Ok(body.clone()), std::time::Duration::from_micros(delay));
                assert_eq!(describe(&got), describe(&alone), "{bad:?}");
            }
        }
        // An error in the message's top level, and one before it.
        let body = synthetic_message(100, &[]);
        let cut = &body[..body.len() / 2];
        let alone = SendTables::from_message(cut);
        assert!(alone.is_err());
        assert_eq!(
            describe(&shared(Ok(cut.to_vec()), Default::default())),
            describe(&alone)
        );
        let early = ErrorKind::SendTables(crate::error::SendTablesError::Missing);
        assert_eq!(
            describe(&shared(Err(early.clone()), Default::default())),
            describe(&Err(early))
        );
    }

    #[test]
    fn a_shared_build_equals_one_thread_whoever_sets_it_up() {
        let body = synthetic_message(500, &[]);
        let alone = describe(&SendTables::from_message(&body));
        let us = std::time::Duration::from_micros;
        // The helper first, the parser first, both at once; and each
        // arriving while the other sets the stage up.
        for (delay, join_after, slow) in [
            (0, 2000, 0),
            (2000, 0, 0),
            (0, 0, 0),
            (0, 1000, 3000),
            (1000, 0, 3000),
        ] {
            let got = shared_slow(Ok(body.clone()), us(delay), us(join_after), us(slow));
            assert_eq!(describe(&got), alone, "{delay} {join_after} {slow}");
        }
    }

    /// A shared build of the message `body`.
    fn build_of(body: &[u8]) -> std::sync::Arc<SharedBuild> {
        let body = body.to_vec();
        SharedBuild::new(Box::new(move || Ok(body)))
    }

    #[test]
    fn a_helper_part_dropped_unrun_leaves_the_build_to_the_parser() {
        let body = synthetic_message(300, &[]);
        let build = build_of(&body);
        let part = HelperPart::of(&build);
        let dropper = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(2));
            drop(part);
        });
        let got = build.join();
        dropper.join().unwrap();
        assert_eq!(describe(&got), describe(&SendTables::from_message(&body)));
    }

    #[test]
    fn the_parser_builds_the_range_a_helper_is_stuck_on() {
        let body = synthetic_message(300, &[]);
        let build = build_of(&body);
        build.set_up_stage();
        // A helper stuck in range 0: it has claimed the range and holds the
        // stage. The join neither waits for it nor needs the stage back.
        let held = build.stage.lock().unwrap().clone().unwrap();
        build
            .next
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let got = build.join();
        assert_eq!(describe(&got), describe(&SendTables::from_message(&body)));
        // What the helper stores when it is done goes nowhere.
        assert!(build.build_range(&held, 0, &mut FieldCache::default()));
        assert!(build.progress.lock().unwrap().ranges.is_empty());
    }

    #[test]
    fn a_helper_that_fails_setting_up_fails_the_join() {
        let (taken, wait) = std::sync::mpsc::channel::<()>();
        let build = SharedBuild::new(Box::new(move || {
            let _ = taken.send(());
            std::thread::sleep(std::time::Duration::from_millis(5));
            panic!("the message could not be made");
        }));
        let part = HelperPart::of(&build);
        let helper = std::thread::spawn(move || part.run());
        // The helper has taken the message on: the parser waits for it.
        wait.recv().unwrap();
        let got = build.join();
        assert!(helper.join().is_err());
        assert_eq!(
            describe(&got),
            "error: send tables: the thread building the send tables failed"
        );
    }

    #[test]
    fn var_type_grammar() {
        let t = VarType::parse("CNetworkUtlVectorBase< CHandle< CBaseEntity > >");
        assert_eq!(t.base, "CNetworkUtlVectorBase");
        let g = t.generic.unwrap();
        assert_eq!(g.base, "CHandle");
        assert_eq!(g.generic.unwrap().base, "CBaseEntity");
        let t = VarType::parse("CCSGameModeRules*");
        assert!(t.pointer);
        assert_eq!(t.base, "CCSGameModeRules");
        let t = VarType::parse("uint16[64]");
        assert_eq!(t.count, Some(64));
        let t = VarType::parse("item_definition_index_t[MAX_ITEM_STOCKS]");
        assert_eq!(t.count, Some(8));
        let t = VarType::parse("char[128]");
        assert_eq!((t.base.as_str(), t.count), ("char", Some(128)));
        let t = VarType::parse("float32[SOMETHING]");
        assert_eq!(t.count, Some(1024));
    }
}
