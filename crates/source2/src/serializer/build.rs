//! The send-table message reader: a `CSVCMsg_FlattenedSerializer`
//! (Valve's `netmessages.proto`, inside `CDemoSendTables` of `demo.proto`)
//! read into serializers and fields, with each field's model and decoder
//! ([`super::types`]); a stage that another thread may share
//! ([`super::shared`]).

use rustc_hash::FxHashMap;

use crate::error::{ErrorKind, SendTablesError};
use crate::flattened::{RawField, RawMessage, RawSerializer};

use super::types::*;
use source2_demo_protobufs::CSvcMsgFlattenedSerializer;

use crate::flattened::CoordSizeParams;

use super::decoder::*;
use super::tables::*;

/// The `CSVCMsg_FlattenedSerializer` bytes inside a `CDemoSendTables`
/// payload (a varuint32 length, then the message).
pub fn demo_payload_message(data: &[u8]) -> Result<&[u8], ErrorKind> {
    let mut pos = 0usize;
    let len = crate::container::read_varint32(data, &mut pos, "send tables length")? as usize;
    pos.checked_add(len)
        .and_then(|end| data.get(pos..end))
        .ok_or(ErrorKind::Truncated {
            what: "send tables",
            needed: len as u64,
            available: (data.len() - pos) as u64,
        })
}

/// Where a build reads its fields from.
pub(super) enum FieldSource<'a> {
    /// Field messages still in the message bytes, at (offset, length).
    Spans {
        body: std::borrow::Cow<'a, [u8]>,
        spans: Vec<(usize, usize)>,
    },
    /// Fields decoded already (from the generated type).
    Decoded(Vec<RawField>),
}

/// Send tables built up to their fields: the symbols, the serializers and
/// how to find a serializer by name, plus where the fields are. The fields
/// are then built in ranges ([`BuildStage::build_fields`]), by one thread
/// or, on the helper thread's build, by two (see [`ParallelBuild`]), and
/// [`BuildStage::finish`] puts the ranges together.
pub(crate) struct BuildStage<'a> {
    /// Serializers and symbols; no fields yet.
    pub(super) tables: SendTables,
    /// Symbols of the message (the build adds some after them).
    pub(super) message_symbols: usize,
    /// The symbols the build adds: the empty text, `simtime`, `runetime`.
    pub(super) added: [Symbol; 3],
    /// (name hash, version, id), sorted: serializers by exact version.
    pub(super) by_key: Vec<(u64, i32, SerializerId)>,
    pub(super) fields: FieldSource<'a>,
}

/// What one builder of fields keeps between fields (and ranges): each type
/// symbol read once, each serializer (name symbol, version) looked up once.
#[derive(Default)]
pub(crate) struct FieldCache {
    /// `type_at[i]` is 1 + the index in `types` of symbol `i`'s info, 0
    /// before it is read.
    pub(super) type_at: Vec<u32>,
    pub(super) types: Vec<TypeInfo>,
    pub(super) unnamed_type: Option<TypeInfo>,
    pub(super) looked_up: FxHashMap<(i32, Option<i32>), Option<SerializerId>>,
    pub(super) raw: RawField,
}

/// The fields of one range, built.
pub(crate) struct FieldRange {
    pub(super) fields: Vec<Field>,
    pub(super) fallbacks: Vec<(String, String, String)>,
}

impl<'a> BuildStage<'a> {
    /// Reads the top level of a `CSVCMsg_FlattenedSerializer`: symbols,
    /// serializers; the fields stay bytes.
    pub(crate) fn prepare(body: std::borrow::Cow<'a, [u8]>) -> Result<BuildStage<'a>, ErrorKind> {
        let (mut stage, spans) = {
            // Symbols are slices of `body` while the stage is set up, then
            // copied into the tables' one text store.
            let msg = RawMessage::parse(&body)?;
            let spans = msg.field_spans();
            let mut stage = BuildStage::new(
                &msg.symbols,
                msg.serializers(),
                spans.len(),
                FieldSource::Decoded(Vec::new()),
            )?;
            stage.tables.coord_size_params = msg.coord_size_params;
            (stage, spans)
        };
        stage.fields = FieldSource::Spans { body, spans };
        Ok(stage)
    }

    pub(super) fn new(
        symbols: &[&str],
        serializers: impl Iterator<Item = Result<RawSerializer, ErrorKind>>,
        field_count: usize,
        fields: FieldSource<'a>,
    ) -> Result<BuildStage<'a>, ErrorKind> {
        let sym = |i: Option<i32>| -> Option<&str> {
            i.and_then(|i| usize::try_from(i).ok())
                .and_then(|i| symbols.get(i))
                .copied()
        };
        let mut tables = SendTables::default();
        // Symbol `i` of the message is `Symbol(i)`; the texts the build
        // adds come after them.
        let total: usize = symbols.iter().map(|s| s.len()).sum();
        if u32::try_from(total + 16).is_err() || u32::try_from(symbols.len() + 3).is_err() {
            return Err(ErrorKind::SendTables(SendTablesError::SymbolTableTooLarge));
        }
        tables.symbols.text.reserve(total + 16);
        tables.symbols.ends.reserve(symbols.len() + 3);
        for s in symbols {
            tables.symbols.push(s);
        }
        let added = [
            tables.symbols.push(""),
            tables.symbols.push("simtime"),
            tables.symbols.push("runetime"),
        ];
        // Sized up front (the number of serializers is known): no rehashing.
        let count = serializers.size_hint().0.min(1 << 16);
        let mut by_name: FxHashMap<&str, SerializerId> =
            FxHashMap::with_capacity_and_hasher(count, Default::default());
        let mut by_key = Vec::with_capacity(count);
        for s in serializers {
            let s = s?;
            let (Some(name), Some(name_sym)) = (sym(s.name_sym), s.name_sym) else {
                return Err(ErrorKind::SendTables(
                    SendTablesError::SerializerWithoutName,
                ));
            };
            let version = s.version.unwrap_or(0);
            let id = tables.serializers.len() as SerializerId;
            by_key.push((name_hash(name), version, id));
            // The highest version wins for lookups by name.
            let replace = match by_name.get(name) {
                Some(&old) => tables
                    .serializers
                    .get(old as usize)
                    .is_some_and(|o| o.version <= version),
                None => true,
            };
            if replace {
                by_name.insert(name, id);
            }
            if let Some(&f) = s.fields_index.iter().find(|&&f| f as usize >= field_count) {
                return Err(ErrorKind::SendTables(SendTablesError::MissingField {
                    serializer: name.to_string(),
                    field: f as i32,
                }));
            }
            tables.serializers.push(Serializer {
                name: Symbol(name_sym as u32),
                version,
                fields: s.fields_index,
            });
        }
        // A name and version given twice: the later serializer wins, as a
        // map insert would have it. (Ids are unique, so the keys are too and
        // an unstable sort gives the one order.)
        by_key.sort_unstable_by_key(|&(hash, version, id)| (hash, version, std::cmp::Reverse(id)));
        let mut named: Vec<(u64, SerializerId)> = by_name
            .into_iter()
            .map(|(name, id)| (name_hash(name), id))
            .collect();
        named.sort_unstable();
        tables.by_name = named;
        Ok(BuildStage {
            tables,
            message_symbols: symbols.len(),
            added,
            by_key,
            fields,
        })
    }

    /// Number of fields.
    pub(crate) fn field_count(&self) -> usize {
        match &self.fields {
            FieldSource::Spans { spans, .. } => spans.len(),
            FieldSource::Decoded(f) => f.len(),
        }
    }

    /// The serializer named by symbol `name` and `version` (the highest
    /// version when it has none, or none of that version).
    pub(super) fn lookup(&self, name: Option<i32>, version: Option<i32>) -> Option<SerializerId> {
        let name = self.text(name)?;
        let exact = version.and_then(|v| {
            let key = (name_hash(name), v);
            let first = self.by_key.partition_point(|&(h, v, _)| (h, v) < key);
            self.by_key
                .get(first..)?
                .iter()
                .take_while(|&&(h, v, _)| (h, v) == key)
                .map(|&(_, _, id)| id)
                .find(|&id| self.tables.serializer_name(id) == name)
        });
        exact.or_else(|| self.tables.by_name(name))
    }

    /// The text of a message symbol; `None` for an index outside them.
    #[inline]
    pub(super) fn text(&self, i: Option<i32>) -> Option<&str> {
        let i = usize::try_from(i?)
            .ok()
            .filter(|&i| i < self.message_symbols)?;
        Some(self.tables.symbols.get(Symbol(i as u32)))
    }

    /// A message symbol; `None` for an index outside them.
    #[inline]
    pub(super) fn symbol(&self, i: Option<i32>) -> Option<Symbol> {
        let i = usize::try_from(i?)
            .ok()
            .filter(|&i| i < self.message_symbols)?;
        Some(Symbol(i as u32))
    }

    /// Builds the fields in `range`.
    pub(crate) fn build_fields(
        &self,
        range: std::ops::Range<usize>,
        cache: &mut FieldCache,
    ) -> Result<FieldRange, ErrorKind> {
        let mut out = FieldRange {
            fields: Vec::with_capacity(range.len()),
            fallbacks: Vec::new(),
        };
        if cache.type_at.len() != self.message_symbols {
            cache.type_at = vec![0; self.message_symbols];
        }
        match &self.fields {
            FieldSource::Spans { body, spans } => {
                let mut raw = std::mem::take(&mut cache.raw);
                for fi in range {
                    crate::flattened::field_at(body, spans, fi, &mut raw)?;
                    let field = self.build_field(fi, &raw, cache, &mut out.fallbacks)?;
                    out.fields.push(field);
                }
                cache.raw = raw;
            }
            FieldSource::Decoded(fields) => {
                let missing = RawField::default();
                for fi in range {
                    let raw = fields.get(fi).unwrap_or(&missing);
                    let field = self.build_field(fi, raw, cache, &mut out.fallbacks)?;
                    out.fields.push(field);
                }
            }
        }
        Ok(out)
    }

    /// Builds field `fi` from its message `f`.
    #[inline(always)]
    pub(super) fn build_field(
        &self,
        fi: usize,
        f: &RawField,
        cache: &mut FieldCache,
        fallbacks: &mut Vec<(String, String, String)>,
    ) -> Result<Field, ErrorKind> {
        let name = self.text(f.var_name_sym).unwrap_or("");
        let var_type_str = self.text(f.var_type_sym).unwrap_or("");
        let mut encoder = self.text(f.var_encoder_sym);
        let var_serializer = self.text(f.var_serializer_sym);
        // Simulation and animation times are networked as tick counts
        // (demoinfocs field_patch.go; the var serializers
        // simulationTimeSerializer / animTimeSerializer say the same).
        if matches!(name, "m_flSimulationTime" | "m_flAnimTime")
            || matches!(
                var_serializer,
                Some("simulationTimeSerializer" | "animTimeSerializer")
            )
        {
            encoder = Some("simtime");
        }
        // Dota 2's rune time (manta field_patch.go, all builds).
        if name == "m_flRuneTime" {
            encoder = Some("runetime");
        }
        let params = DecoderParams {
            name,
            encoder,
            var_serializer,
            bit_count: f.bit_count,
            low: f.low_value,
            high: f.high_value,
            flags: f.encode_flags,
        };
        // Many fields share a type: read each type symbol once.
        let vt: TypeInfo = match self
            .symbol(f.var_type_sym)
            .and_then(|s| cache.type_at.get_mut(s.0 as usize))
        {
            Some(at) => match (*at as usize)
                .checked_sub(1)
                .and_then(|k| cache.types.get(k))
            {
                Some(info) => *info,
                None => {
                    let info = TypeInfo::of(var_type_str);
                    cache.types.push(info);
                    *at = cache.types.len() as u32;
                    info
                }
            },
            None => *cache
                .unnamed_type
                .get_or_insert_with(|| TypeInfo::of(var_type_str)),
        };
        // Many fields name the same serializer: look each (symbol,
        // version) pair up by name once.
        let field_serializer = match f.field_serializer_name_sym {
            None => None,
            Some(name_sym) => *cache
                .looked_up
                .entry((name_sym, f.field_serializer_version))
                .or_insert_with(|| self.lookup(Some(name_sym), f.field_serializer_version)),
        };
        let mut fallback = false;
        let model = if !f.polymorphic.is_empty() {
            let mut poly = Vec::with_capacity(f.polymorphic.len());
            for &(poly_name, poly_version) in &f.polymorphic {
                let id = self.lookup(poly_name, poly_version).ok_or_else(|| {
                    ErrorKind::SendTables(SendTablesError::UnknownPolymorphic {
                        field: name.to_string(),
                    })
                })?;
                poly.push(id);
            }
            let serializer = field_serializer.or(poly.first().copied()).unwrap_or(0);
            FieldModel::FixedTable { serializer, poly }
        } else if let Some(ser) = field_serializer {
            if vt.pointer_like {
                FieldModel::FixedTable {
                    serializer: ser,
                    poly: Vec::new(),
                }
            } else {
                FieldModel::VariableTable(ser)
            }
        } else if let Some(count) = vt.count {
            if count > MAX_ARRAY_LEN {
                return Err(ErrorKind::SendTables(SendTablesError::ArrayTooLong {
                    field: name.to_string(),
                    count,
                }));
            }
            FieldModel::FixedArray {
                len: count,
                element: choose(&vt.kind, &params, false, &mut fallback)?,
            }
        } else if vt.variable_array {
            let element = match &vt.element {
                Some(kind) => choose(kind, &params, true, &mut fallback)?,
                None => {
                    return Err(ErrorKind::SendTables(SendTablesError::NoElementType {
                        field: name.to_string(),
                        var_type: var_type_str.to_string(),
                    }))
                }
            };
            FieldModel::VariableArray(element)
        } else {
            FieldModel::Value(choose(&vt.kind, &params, false, &mut fallback)?)
        };
        if fallback {
            // The first serializer that uses the field names it.
            let owner = self
                .tables
                .serializers
                .iter()
                .find(|s| s.fields.contains(&(fi as u32)))
                .map_or("?", |s| self.tables.symbols.get(s.name));
            fallbacks.push((
                owner.to_string(),
                name.to_string(),
                var_type_str.to_string(),
            ));
        }
        let [empty, simtime, runetime] = self.added;
        // The encoder may be one set above, not a symbol of the field.
        let encoder = match encoder {
            Some(e) if self.text(f.var_encoder_sym) == Some(e) => self.symbol(f.var_encoder_sym),
            Some("simtime") => Some(simtime),
            Some("runetime") => Some(runetime),
            Some(_) | None => None,
        };
        Ok(Field {
            name: self.symbol(f.var_name_sym).unwrap_or(empty),
            var_type: self.symbol(f.var_type_sym).unwrap_or(empty),
            encoder,
            model,
            fallback,
        })
    }

    /// [`BuildStage::finish`] on a stage another thread still holds: the
    /// tables are copied.
    pub(super) fn finish_copy(&self, ranges: Vec<FieldRange>) -> SendTables {
        BuildStage {
            tables: self.tables.clone(),
            message_symbols: self.message_symbols,
            added: self.added,
            by_key: Vec::new(),
            fields: FieldSource::Decoded(Vec::new()),
        }
        .finish(ranges)
    }

    /// The send tables, from the stage and its fields, in order.
    pub(crate) fn finish(self, ranges: Vec<FieldRange>) -> SendTables {
        let mut tables = self.tables;
        let count: usize = ranges.iter().map(|r| r.fields.len()).sum();
        for mut range in ranges {
            if tables.fields.is_empty() {
                // The first range's vector becomes the whole (no copy when
                // there is one range).
                tables.fields = range.fields;
                tables.fields.reserve_exact(count - tables.fields.len());
            } else {
                tables.fields.append(&mut range.fields);
            }
            tables.fallbacks.append(&mut range.fallbacks);
        }
        tables
    }
}

impl SendTables {
    /// Builds the send tables from a `CDemoSendTables` payload (a varuint32
    /// length, then a `CSVCMsg_FlattenedSerializer`).
    pub fn from_demo_payload(data: &[u8]) -> Result<SendTables, ErrorKind> {
        SendTables::from_message(demo_payload_message(data)?)
    }

    /// Builds the send tables from the bytes of a
    /// `CSVCMsg_FlattenedSerializer` (as `svc_FlattenedSerializer` carries
    /// them, or [`demo_payload_message`] finds them).
    pub fn from_message(body: &[u8]) -> Result<SendTables, ErrorKind> {
        let stage = BuildStage::prepare(std::borrow::Cow::Borrowed(body))?;
        let fields = stage.build_fields(0..stage.field_count(), &mut FieldCache::default())?;
        Ok(stage.finish(vec![fields]))
    }

    /// Builds the send tables from a decoded message.
    pub fn build(msg: &CSvcMsgFlattenedSerializer) -> Result<SendTables, ErrorKind> {
        let symbols: Vec<&str> = msg.symbols.iter().map(String::as_str).collect();
        let serializers = msg
            .serializers
            .iter()
            .map(|s| Ok(RawSerializer::from_generated(s)));
        let fields: Vec<RawField> = msg.fields.iter().map(RawField::from_generated).collect();
        let mut stage = BuildStage::new(
            &symbols,
            serializers,
            fields.len(),
            FieldSource::Decoded(fields),
        )?;
        stage.tables.coord_size_params = msg
            .coord_size_params
            .as_ref()
            .map(CoordSizeParams::from_generated);
        let fields = stage.build_fields(0..stage.field_count(), &mut FieldCache::default())?;
        Ok(stage.finish(vec![fields]))
    }
}
