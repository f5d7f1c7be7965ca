//! Packets: the bitstream of messages inside `DEM_Packet`,
//! `DEM_SignonPacket` and the packet of `DEM_FullPacket`. Each message is
//! `UBitVar id, varuint32 size, size bytes`; the id selects a message from
//! the `NET_Messages`, `SVC_Messages`, user-message and game-event enums of
//! Valve's protobufs (`netmessages.proto`, `networkbasetypes.proto`,
//! `usermessages.proto`, `gameevents.proto`). The few the parser itself
//! needs (ticks, server info, send tables, string tables, packet entities,
//! user commands, the legacy game events) are decoded here; the others go to
//! the visitor as [`crate::UserMessage`]s or are counted and skipped.

use std::sync::Arc;

use gamewire_bits::BitReader;
use prost::Message;
use source2_demo_protobufs as pb;

use crate::error::{DemoError, ErrorKind, StringTableError, TableRef};
use crate::gameevent::{EventValue, GameEvent};
use crate::messages::Game;
use crate::stringtable::StringTable;
use crate::visitor::{Interests, UserMessage, Visitor};

use super::{class_bits_from_max, DemoParser, MAX_MESSAGE_SIZE, MAX_STRING_TABLES};

impl DemoParser<'_> {
    pub(super) fn handle_packet<V: Visitor>(
        &mut self,
        data: &[u8],
        visitor: &mut V,
        interests: Interests,
        skip_entities: bool,
    ) -> Result<(), DemoError> {
        let mut r = BitReader::new(data);
        while r.bits_remaining() >= 8 {
            let bits = |e| ErrorKind::bits("packet message header", e);
            let id = r.read_ubitvar().map_err(|e| self.err(bits(e)))?;
            let size = r.read_varuint32().map_err(|e| self.err(bits(e)))? as usize;
            if size > MAX_MESSAGE_SIZE {
                return Err(self.err(ErrorKind::LimitExceeded {
                    what: "packet message size",
                    value: size as u64,
                    limit: MAX_MESSAGE_SIZE as u64,
                }));
            }
            // Most bodies are not byte aligned (the id is a UBitVar): they are
            // copied into a scratch buffer reused across messages, but only
            // when the message's handler reads them (`MessageBody::bytes`);
            // a message nobody asked for (an `events` run's packet
            // entities, say) is stepped over.
            let aligned = r
                .read_bytes_aligned(size)
                .map_err(|e| self.err(ErrorKind::bits("packet message body", e)))?;
            let mut body = match aligned {
                Some(slice) => MessageBody::Aligned(slice),
                None => {
                    if r.bits_remaining() < size as u64 * 8 {
                        return Err(self.err(ErrorKind::Truncated {
                            what: "packet message body",
                            needed: size as u64,
                            available: r.bits_remaining() / 8,
                        }));
                    }
                    let at = r.clone();
                    // Within the bits just checked.
                    r.skip_bits(size as u64 * 8)
                        .map_err(|e| self.err(ErrorKind::bits("packet message body", e)))?;
                    MessageBody::Unaligned {
                        at,
                        size,
                        scratch: std::mem::take(&mut self.scratch),
                        copied: false,
                    }
                }
            };
            let result = self.handle_message(id, &mut body, visitor, interests, skip_entities);
            if let MessageBody::Unaligned { scratch, .. } = body {
                self.scratch = scratch;
            }
            result?;
        }
        Ok(())
    }

    pub(super) fn handle_message<V: Visitor>(
        &mut self,
        id: u32,
        body: &mut MessageBody<'_>,
        visitor: &mut V,
        interests: Interests,
        skip_entities: bool,
    ) -> Result<(), DemoError> {
        // Counted by id here (cheap); named when the parse stops.
        *self.message_ids.entry(id).or_default() += 1;
        match id {
            4 => {
                if let Ok(m) = pb::CNetMsgTick::decode(body.bytes()) {
                    self.state.net_tick = m.tick.unwrap_or(0);
                }
            }
            6 => {
                // Convars are reported as synthetic `server_cvar` events
                // (name, value), as demoparser2 does.
                if interests.game_events {
                    if let Ok(m) = pb::CNetMsgSetConVar::decode(body.bytes()) {
                        for cvar in m.convars.iter().flat_map(|c| c.cvars.iter()) {
                            let event = GameEvent {
                                name: "server_cvar".to_string(),
                                id: -1,
                                tick: self.state.tick,
                                keys: vec![
                                    (
                                        "name".to_string(),
                                        1,
                                        EventValue::String(cvar.name.clone().unwrap_or_default()),
                                    ),
                                    (
                                        "value".to_string(),
                                        1,
                                        EventValue::String(cvar.value.clone().unwrap_or_default()),
                                    ),
                                ],
                            };
                            visitor.on_game_event(&self.state, &event);
                        }
                    }
                }
            }
            40 => {
                let m = pb::CSvcMsgServerInfo::decode(body.bytes())
                    .map_err(|e| self.err(ErrorKind::protobuf("CSVCMsg_ServerInfo", e)))?;
                if let Some(ti) = m.tick_interval.filter(|t| *t > 0.0 && t.is_finite()) {
                    self.state.tick_interval = ti;
                }
                if let Some(mc) = m.max_classes.filter(|&c| c > 0) {
                    self.state.class_id_bits = class_bits_from_max(mc as u32);
                }
                self.state.server_info = Some(m);
            }
            41 => {
                if !interests.wants_send_tables() {
                    return Ok(());
                }
                self.finish_send_tables(true)?;
                self.load_send_tables(body.bytes())?;
            }
            44 => {
                // Borrowed: the generated type would copy the whole table.
                let m = crate::wire::create_string_table(body.bytes()).map_err(|k| self.err(k))?;
                if self.state.string_tables.len() >= MAX_STRING_TABLES {
                    return Err(self.err(ErrorKind::LimitExceeded {
                        what: "string tables",
                        value: self.state.string_tables.len() as u64 + 1,
                        limit: MAX_STRING_TABLES as u64,
                    }));
                }
                // Ids are creation order, so a table not wanted is still
                // created: it exists, without its entries.
                let skipped = !Self::decodes_string_table(m.name, interests, visitor);
                let mut table = StringTable {
                    name: m.name.to_string(),
                    entries: Vec::new(),
                    user_data_fixed_size: m.user_data_fixed_size,
                    user_data_size_bits: m.user_data_size_bits.max(0) as u32,
                    flags: m.flags,
                    using_varint_bitcounts: m.using_varint_bitcounts,
                    skipped,
                };
                // The new table's index has no snapshot behind it.
                self.forget_snapshot(self.state.string_tables.len());
                if skipped {
                    self.state.string_tables.push(table);
                    return Ok(());
                }
                let raw = m.string_data;
                let data: std::borrow::Cow<'_, [u8]> = if m.data_compressed {
                    crate::stringtable::decompress(raw, "string table data")
                        .map_err(|k| self.err(k))?
                        .into()
                } else {
                    raw.into()
                };
                let changed = table
                    .apply_entries(&data, m.num_entries)
                    .map_err(|k| self.err(k))?;
                self.state.string_tables.push(table);
                let idx = self.state.string_tables.len() - 1;
                self.after_string_table_change(idx, &changed, visitor);
            }
            45 => {
                // Borrowed: the generated type would copy the entries.
                let m = crate::wire::update_string_table(body.bytes()).map_err(|k| self.err(k))?;
                let id = m.table_id.unwrap_or(-1);
                let Some(idx) = usize::try_from(id)
                    .ok()
                    .filter(|&i| i < self.state.string_tables.len())
                else {
                    return Err(self.err(ErrorKind::StringTable {
                        table: TableRef::Id(id),
                        problem: StringTableError::NoSuchTable,
                    }));
                };
                self.forget_snapshot(idx);
                let changed = match self.state.string_tables.get_mut(idx) {
                    Some(t) if t.skipped => return Ok(()),
                    Some(t) => t
                        .apply_entries(m.string_data, m.num_changed_entries)
                        .map_err(|k| DemoError {
                            kind: k,
                            location: self.current_frame,
                        })?,
                    None => Vec::new(),
                };
                self.after_string_table_change(idx, &changed, visitor);
            }
            51 => {
                self.state.string_tables.clear();
                self.last_snapshots.clear();
            }
            55 => {
                if !interests.entities {
                    return Ok(());
                }
                // The send tables first: the hook's state has them, as
                // the message's own decoding needs.
                self.finish_send_tables(true)?;
                visitor.before_packet_entities(&self.state, body.bytes(), !skip_entities);
                if skip_entities {
                    if let Some(rw) = self.entity_rewrite.as_deref_mut() {
                        rw.reencode(body.bytes(), &self.state);
                    }
                    return Ok(());
                }
                let m = crate::wire::PacketEntitiesView::parse(body.bytes())
                    .map_err(|k| self.err(k))?;
                self.packet_entities(m, visitor)?;
                if let Some(rw) = self.entity_rewrite.as_deref_mut() {
                    rw.finish_message(body.bytes());
                }
                visitor.on_packet_entities(&self.state);
            }
            76 => {
                if !interests.user_commands {
                    return Ok(());
                }
                let cs2 = matches!(self.state.game, Game::Cs2 | Game::Any);
                match crate::usercmd::decode_user_commands(body.bytes(), self.state.tick, cs2) {
                    Ok(commands) => {
                        for cmd in commands {
                            let Some(pawn) = cmd.pawn else {
                                visitor.on_user_command(&self.state, &cmd);
                                continue;
                            };
                            let previous = self.state.user_commands.get(&pawn.index);
                            let cmd = cmd.over(previous);
                            self.state.user_commands.insert(pawn.index, cmd);
                            if let Some(cmd) = self.state.user_commands.get(&pawn.index) {
                                visitor.on_user_command(&self.state, cmd);
                            }
                        }
                    }
                    Err(e) => self.state.warn(e.to_string()),
                }
            }
            205 => {
                if !interests.game_events {
                    return Ok(());
                }
                // Read straight into descriptors (no generated structs).
                let decode = crate::gameevent::game_event_list;
                let body = body.bytes();
                self.state.event_descriptors = match &self.send_table_cache {
                    Some(cache) => cache.descriptors_or_build(body, decode),
                    None => decode(body).map(Arc::new),
                }
                .map_err(|k| self.err(k))?;
            }
            207 => {
                if !interests.game_events {
                    return Ok(());
                }
                let m = pb::CMsgSource1LegacyGameEvent::decode(body.bytes())
                    .map_err(|e| self.err(ErrorKind::protobuf("CMsgSource1LegacyGameEvent", e)))?;
                match crate::gameevent::decode(&m, &self.state.event_descriptors, self.state.tick) {
                    Ok(ev) => visitor.on_game_event(&self.state, &ev),
                    Err(e) => self.state.warn(e.to_string()),
                }
            }
            _ => {
                // Everything above the engine's net/svc range is a user
                // message or a protobuf game event.
                if id >= 100 && interests.user_messages {
                    visitor.on_user_message(
                        &self.state,
                        &UserMessage {
                            id,
                            game: self.state.game,
                            payload: body.bytes(),
                        },
                    );
                }
            }
        }
        Ok(())
    }
}

/// The body of one packet message, as [`DemoParser::handle_message`] gets
/// it: a slice of the packet when it starts on a byte boundary; otherwise
/// copied (shifted) into the parser's scratch buffer, lent to it for the
/// message, the first time a handler asks for it, so a message that is
/// skipped costs no copy.
pub(super) enum MessageBody<'a> {
    Aligned(&'a [u8]),
    Unaligned {
        /// A reader at the body's first bit, with `size` bytes after it.
        at: BitReader<'a>,
        size: usize,
        scratch: Vec<u8>,
        copied: bool,
    },
}

impl MessageBody<'_> {
    /// The body's bytes.
    pub(super) fn bytes(&mut self) -> &[u8] {
        match self {
            MessageBody::Aligned(slice) => slice,
            MessageBody::Unaligned {
                at,
                size,
                scratch,
                copied,
            } => {
                if !*copied {
                    // Grown, never shrunk: its room is zeroed once, then
                    // only overwritten.
                    if scratch.len() < *size {
                        scratch.resize(*size, 0);
                    }
                    let room = scratch.get_mut(..*size).unwrap_or_default();
                    // The packet loop checked that `size` bytes follow `at`;
                    // should the copy fail anyway, the handler gets an empty
                    // body and reports it as it would any short message.
                    if at.read_bytes_into(room).is_err() {
                        *size = 0;
                    }
                    *copied = true;
                }
                scratch.get(..*size).unwrap_or_default()
            }
        }
    }
}
