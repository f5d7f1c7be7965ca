//! Entities: `CSVCMsg_PacketEntities` (Valve's `netmessages.proto`). Its
//! `entity_data` is a bitstream of `updated_entries` records, each a
//! UBitVar index delta and two bits (update, leave PVS, create, delete); a
//! create carries a class id and serial and starts from the class baseline
//! (the `instancebaseline` string table); a create or update carries field
//! paths ([`crate::fieldpath`]) and then the values they name, decoded
//! with the send tables ([`crate::serializer`]). The same layout is read by
//! demoinfocs-golang, clarity and haste.

use std::sync::Arc;

use gamewire_bits::BitReader;
use source2_demo_protobufs as pb;

use crate::entity::{
    path_name, read_or_skip_fields, rewrite_fields, Entity, EntityChange, FieldState,
};
use crate::error::{DemoError, ErrorKind};
use crate::error::{EntityError, EntityProblem, PathError, SendTablesError};
use crate::fieldpath::FieldPath;
use crate::serializer::SerializerId;
use crate::visitor::Visitor;

use super::DemoParser;

impl DemoParser<'_> {
    pub(super) fn entity_error(
        &self,
        index: i32,
        class_id: Option<u32>,
        (path, path_name): (Option<FieldPath>, Option<String>),
        problem: EntityProblem,
    ) -> DemoError {
        let class = class_id
            .and_then(|c| self.state.classes.get(c as usize))
            .map(|c| c.name.clone())
            .unwrap_or_else(|| "?".into());
        self.err(ErrorKind::Entity(Box::new(EntityError {
            entity: index,
            class_id,
            class,
            path,
            path_name,
            problem,
        })))
    }

    /// Whether entities of `class_id` are decoded: [`Visitor::wants_class`],
    /// asked once per class.
    pub(super) fn class_decoded<V: Visitor>(&mut self, class_id: u32, visitor: &V) -> bool {
        let i = class_id as usize;
        if let Some(&Some(wanted)) = self.class_wanted.get(i) {
            return wanted;
        }
        let name = self.state.classes.get(i).map_or("", |c| c.name.as_str());
        let wanted = visitor.wants_class(name);
        if self.class_wanted.len() <= i {
            self.class_wanted.resize(i + 1, None);
        }
        if let Some(w) = self.class_wanted.get_mut(i) {
            *w = Some(wanted);
        }
        wanted
    }

    /// The class baseline a new entity starts from (decoded once per
    /// class). For a class read past (`decoded` false) only the values
    /// that shape paths are kept, as for its entities ([`skip_fields`]),
    /// and the shared cache of a batch is not used (it holds full ones).
    pub(super) fn baseline_for(
        &mut self,
        class_id: u32,
        serializer: SerializerId,
        decoded: bool,
    ) -> Result<FieldState, DemoError> {
        if let Some(b) = self.state.entities.baseline_cache.get(&class_id) {
            return Ok(FieldState::layered(Arc::clone(b)));
        }
        let key = class_id.to_string();
        let data = self
            .state
            .string_table("instancebaseline")
            .and_then(|t| t.get(&key))
            .map(|e| e.value.as_slice());
        let state = match (data, self.state.send_tables.clone()) {
            (Some(data), Some(tables)) => {
                let tick_interval = self.state.tick_interval;
                let paths = &mut self.paths;
                let mut decode = || {
                    let mut state = FieldState::default();
                    let mut r = BitReader::new(data);
                    let (t, ti) = (&tables, tick_interval);
                    read_or_skip_fields(decoded, t, serializer, &mut state, &mut r, paths, ti)
                        .map(|()| state)
                };
                // Demos of one build usually carry the same baselines: the
                // shared cache decodes each once.
                let decoded = match &self.send_table_cache {
                    Some(cache) if decoded => {
                        cache.baseline_or_decode(&tables, serializer, tick_interval, data, decode)
                    }
                    _ => decode().map(Arc::new),
                };
                decoded.map_err(|PathError { path, error }| {
                    let name = path_name(&tables, serializer, None, path);
                    self.entity_error(
                        -1,
                        Some(class_id),
                        (path, name),
                        EntityProblem::Baseline(error),
                    )
                })?
            }
            _ => Arc::new(FieldState::default()),
        };
        self.state
            .entities
            .baseline_cache
            .insert(class_id, Arc::clone(&state));
        Ok(FieldState::layered(state))
    }

    /// Applies one `CSVCMsg_PacketEntities` to the current state, as if it
    /// had arrived in the demo at the current tick (for broadcast readers and
    /// for testing decoders against mutated input).
    pub fn apply_packet_entities<V: Visitor>(
        &mut self,
        message: &pb::CSvcMsgPacketEntities,
        visitor: &mut V,
    ) -> Result<(), DemoError> {
        self.packet_entities(crate::wire::PacketEntitiesView::of(message), visitor)
    }

    pub(super) fn packet_entities<V: Visitor>(
        &mut self,
        m: crate::wire::PacketEntitiesView<'_>,
        visitor: &mut V,
    ) -> Result<(), DemoError> {
        self.finish_send_tables(true)?;
        if self.state.send_tables.is_none() {
            return Err(self.err(ErrorKind::SendTables(SendTablesError::EntitiesBeforeTables)));
        }
        let data = m.entity_data.unwrap_or(&[]);
        let mut r = BitReader::new(data);
        let count = m.updated_entries.unwrap_or(0);
        if count < 0 || count as usize > crate::entity::MAX_ENTITIES {
            return Err(self.err(ErrorKind::LimitExceeded {
                what: "updated entries",
                value: count.unsigned_abs().into(),
                limit: crate::entity::MAX_ENTITIES as u64,
            }));
        }
        let is_delta = m.is_delta.unwrap_or(true);
        let has_vis_bits = m.has_pvs_vis_bits.unwrap_or(0) > 0;
        let mut touched: Vec<bool> = if is_delta {
            Vec::new()
        } else {
            vec![false; crate::entity::MAX_ENTITIES]
        };
        let mut index: i64 = -1;
        let mut paths = std::mem::take(&mut self.paths);
        // A rewrite writes each record again as it is read.
        let mut rewrite = self.entity_rewrite.take();
        if let Some(rw) = rewrite.as_deref_mut() {
            rw.start_message(data.len());
        }
        let result = (|| -> Result<(), DemoError> {
            for _ in 0..count {
                let hdr = |e| ErrorKind::bits("entity header", e);
                let delta = r.read_ubitvar().map_err(|e| self.err(hdr(e)))?;
                if let Some(rw) = rewrite.as_deref_mut() {
                    rw.records.ubitvar(delta);
                }
                index += i64::from(delta) + 1;
                if index < 0 || index as usize >= crate::entity::MAX_ENTITIES {
                    return Err(self.err(ErrorKind::LimitExceeded {
                        what: "entity index",
                        value: index.unsigned_abs(),
                        limit: crate::entity::MAX_ENTITIES as u64 - 1,
                    }));
                }
                let idx = index as usize;
                if let Some(t) = touched.get_mut(idx) {
                    *t = true;
                }
                let cmd = r.read_bits(2).map_err(|e| self.err(hdr(e)))?;
                if let Some(rw) = rewrite.as_deref_mut() {
                    rw.records.bits(cmd, 2);
                }
                if cmd & 1 == 0 {
                    if cmd & 2 != 0 {
                        let class_id =
                            r.read_bits(self.state.class_id_bits)
                                .map_err(|e| self.err(hdr(e)))? as u32;
                        let serial =
                            r.read_bits(crate::entity::SERIAL_BITS)
                                .map_err(|e| self.err(hdr(e)))? as u32;
                        let spare = r.read_varuint32().map_err(|e| self.err(hdr(e)))?;
                        if let Some(rw) = rewrite.as_deref_mut() {
                            rw.records
                                .bits(u64::from(class_id), self.state.class_id_bits);
                            rw.records
                                .bits(u64::from(serial), crate::entity::SERIAL_BITS);
                            rw.records.varuint32(spare);
                        }
                        let Some(serializer) = self
                            .state
                            .classes
                            .get(class_id as usize)
                            .and_then(|c| c.serializer)
                        else {
                            return Err(self.entity_error(
                                index as i32,
                                Some(class_id),
                                (None, None),
                                EntityProblem::UnknownClass { class_id },
                            ));
                        };
                        let decoded = self.class_decoded(class_id, visitor);
                        // Same class and serial: an update of the existing state.
                        let existing = self.state.entities.get(index as i32);
                        let reuse =
                            existing.is_some_and(|e| e.class_id == class_id && e.serial == serial);
                        let mut state = if reuse {
                            let loc = self.current_frame;
                            match self
                                .state
                                .entities
                                .slot_mut(idx)
                                .map_err(|kind| DemoError {
                                    kind,
                                    location: loc,
                                })?
                                .take()
                            {
                                Some(e) => e.state,
                                None => FieldState::default(),
                            }
                        } else {
                            if let Some(old) = self.state.entities.get(index as i32) {
                                if old.decoded {
                                    visitor.on_entity(&self.state, EntityChange::Deleted, old, &[]);
                                }
                            }
                            let mut fresh = self.baseline_for(class_id, serializer, decoded)?;
                            if decoded {
                                if let Some(&hint) = self.state.entities.size_hints.get(&class_id) {
                                    fresh.reserve(hint);
                                }
                            }
                            fresh
                        };
                        let tables = self.state.send_tables.as_ref().ok_or_else(|| {
                            self.err(ErrorKind::SendTables(SendTablesError::Missing))
                        })?;
                        let ti = self.state.tick_interval;
                        let (p, st) = (&mut paths, &mut state);
                        let read = match rewrite.as_deref_mut() {
                            Some(rw) => {
                                let out = &mut rw.records;
                                rewrite_fields(decoded, tables, serializer, st, &mut r, p, ti, out)
                            }
                            None => {
                                read_or_skip_fields(decoded, tables, serializer, st, &mut r, p, ti)
                            }
                        };
                        if let Err(PathError { path, error }) = read {
                            let name = path_name(tables, serializer, None, path);
                            return Err(self.entity_error(
                                index as i32,
                                Some(class_id),
                                (path, name),
                                EntityProblem::Field(error),
                            ));
                        }
                        if !reuse && decoded {
                            // Capped: a hint only saves regrowth, and must not let one
                            // large entity make every later one of its class reserve much.
                            let (slots, values) = state.size();
                            let (slots, values) = (slots.min(1024), values.min(256));
                            let hint = self.state.entities.size_hints.entry(class_id).or_default();
                            *hint = (hint.0.max(slots), hint.1.max(values));
                        }
                        let entity = Entity {
                            index: index as i32,
                            serial,
                            class_id,
                            serializer,
                            spare,
                            active: true,
                            state,
                            decoded,
                        };
                        let loc = self.current_frame;
                        *self
                            .state
                            .entities
                            .slot_mut(idx)
                            .map_err(|kind| DemoError {
                                kind,
                                location: loc,
                            })? = Some(entity);
                        self.state.entity_updates += 1;
                        if let Some(e) = self.state.entities.get(index as i32) {
                            if e.decoded {
                                visitor.on_entity(
                                    &self.state,
                                    EntityChange::Created,
                                    e,
                                    &paths.paths,
                                );
                            }
                        }
                    } else {
                        if has_vis_bits {
                            let pvs = r.read_bits(2).map_err(|e| self.err(hdr(e)))?;
                            if let Some(rw) = rewrite.as_deref_mut() {
                                rw.records.bits(pvs, 2);
                            }
                            if pvs & 1 == 1 {
                                continue;
                            }
                        }
                        let tick_interval = self.state.tick_interval;
                        let Some(tables) = self.state.send_tables.as_ref() else {
                            return Err(self.err(ErrorKind::SendTables(SendTablesError::Missing)));
                        };
                        let slot = self
                            .state
                            .entities
                            .slots
                            .get_mut(idx)
                            .and_then(Option::as_mut);
                        let Some(entity) = slot else {
                            return Err(self.entity_error(
                                index as i32,
                                None,
                                (None, None),
                                EntityProblem::NoSuchEntity,
                            ));
                        };
                        entity.active = true;
                        let serializer = entity.serializer;
                        let decoded = entity.decoded;
                        let (p, st) = (&mut paths, &mut entity.state);
                        let read = match rewrite.as_deref_mut() {
                            Some(rw) => rewrite_fields(
                                decoded,
                                tables,
                                serializer,
                                st,
                                &mut r,
                                p,
                                tick_interval,
                                &mut rw.records,
                            ),
                            None => read_or_skip_fields(
                                decoded,
                                tables,
                                serializer,
                                st,
                                &mut r,
                                p,
                                tick_interval,
                            ),
                        };
                        if let Err(PathError { path, error }) = read {
                            let class_id = entity.class_id;
                            let name = path_name(tables, serializer, Some(entity), path);
                            return Err(self.entity_error(
                                index as i32,
                                Some(class_id),
                                (path, name),
                                EntityProblem::Field(error),
                            ));
                        }
                        self.state.entity_updates += 1;
                        if decoded {
                            if let Some(e) = self.state.entities.get(index as i32) {
                                visitor.on_entity(
                                    &self.state,
                                    EntityChange::Updated,
                                    e,
                                    &paths.paths,
                                );
                            }
                        }
                    }
                } else {
                    let delete = cmd & 2 != 0;
                    if let Some(e) = self
                        .state
                        .entities
                        .slots
                        .get_mut(idx)
                        .and_then(Option::as_mut)
                    {
                        e.active = false;
                    }
                    if let Some(e) = self.state.entities.get(index as i32) {
                        let change = if delete {
                            EntityChange::Deleted
                        } else {
                            EntityChange::LeftPvs
                        };
                        if e.decoded {
                            visitor.on_entity(&self.state, change, e, &[]);
                        }
                    }
                    if delete {
                        if let Some(slot) = self.state.entities.slots.get_mut(idx) {
                            *slot = None;
                        }
                        self.state.entities.bump_generation();
                    }
                }
            }
            if let Some(rw) = rewrite.as_deref_mut() {
                rw.trailing(&mut r);
            }
            Ok(())
        })();
        self.paths = paths;
        self.entity_rewrite = rewrite;
        result?;
        if !is_delta {
            // A full snapshot: entities it did not mention are gone (only
            // slots that hold one are looked at; an empty slot is no change).
            let live = self.state.entities.slots.len().min(touched.len());
            for (i, t) in touched.iter().enumerate().take(live) {
                if *t {
                    continue;
                }
                let Some(e) = self.state.entities.get(i as i32) else {
                    continue;
                };
                if e.decoded {
                    visitor.on_entity(&self.state, EntityChange::Deleted, e, &[]);
                }
                if let Some(slot) = self.state.entities.slots.get_mut(i) {
                    *slot = None;
                }
                self.state.entities.bump_generation();
            }
        }
        Ok(())
    }
}
