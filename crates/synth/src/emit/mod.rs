//! Writing a [`Timeline`] as a CS2 demo, against any [`Schema`].
//!
//! # What is written
//!
//! The layout is a recorded CS2 demo's (`docs/formats/source2-demo.md`):
//!
//! ```text
//! DEM_FileHeader     the schema's header; map and server names from the timeline
//! DEM_SignonPacket   svc_ServerInfo (40): the schema's, with the timeline's map
//!                    and tick interval; svc_GameEventList (205): the schema's
//! DEM_SendTables     the schema's CSVCMsg_FlattenedSerializer
//! DEM_ClassInfo      the schema's classes
//! DEM_SignonPacket   svc_CreateStringTable (44) "instancebaseline": one entry per
//!                    class, keyed by class id, holding no field (every entity is
//!                    created with all of its values); "userinfo": one
//!                    CMsgPlayerInfo per player, at its slot
//! DEM_SyncTick
//! DEM_Packet         per frame: net_Tick (4), the frame's game events
//!                    (CMsgSource1LegacyGameEvent, 207), its chat lines
//!                    (CUserMessageSayText2, 118), at the last tick the players'
//!                    CCSUsrMsg_EndOfMatchAllPlayersData (375), then
//!                    svc_PacketEntities (55)
//! DEM_Stop
//! DEM_FileInfo       playback ticks, frames and time
//! ```
//!
//! A packet's events come before its entities, as the games send them: an
//! event is read against the state of the frame before (the victim of a
//! `player_death` is still alive when the event is read, and dead after the
//! packet).
//!
//! # Entities
//!
//! The first packet creates every entity (`svc_PacketEntities` with
//! `is_delta` false); each later one carries, for each entity, only the
//! fields whose value changed since the frame before, creates for the
//! objects that appeared and deletes for those that are gone. The entities
//! and the fields each is given:
//!
//! | entity | index | fields |
//! |---|---|---|
//! | `CCSPlayerController` | slot + 1 | name, steam id, team, connected state, pawn handles, pawn alive/health/armor/helmet/defuser, money, kills/deaths/assists/damage in the match and in the current round (`m_perRoundStats`, indexed by `m_totalRoundsPlayed`), controlling a bot |
//! | `CCSPlayerPawn` | from 65 | position (body component cell and offset), eye angles, health, armor, life state, team, helmet, defuser, weapons, active weapon, flash duration, controller handle |
//! | `CCSTeam` ×4 | from 65 | team number (0 unassigned, 1 spectator, 2, 3), name, clan name, score, half and overtime scores |
//! | `CCSGameRulesProxy` | from 65 | the `m_pGameRules` fields of [`crate::timeline::Rules`] |
//! | weapons (`CAK47`, `CKnife`, `CC4`, ...) | from 65 | owner handles (`m_hOwnerEntity`, `m_nOwnerId`), item definition index, clip, original owner's steam id, position (where it last lay on the ground while it is carried) |
//! | grenade projectiles | from 65 | thrower and owner handles (`m_hThrower`, `m_hOwnerEntity`, `m_nOwnerId`), position, smoke started, incendiary |
//! | `CInferno` | from 65 | owner handles, position, fire count |
//! | `CPlantedC4` | from 65 | position, site, blow time, ticking, defuser, defused, exploded |
//!
//! A player's controller lives for the whole demo; its pawn exists while
//! the player is connected (`m_iConnected` 0; 4 once gone, the pawn
//! deleted, and a new pawn, with a new serial, when the player is back). A
//! player who has taken over a bot has no pawn of its own: its controller's
//! `m_hPlayerPawn` is the bot's pawn, which then takes that player's state.
//!
//! A handle is `serial << 14 | index` (the null handle is `0xFFFFFF`, as
//! CS2 writes it). Every field is named, and resolved in the schema's
//! serializers (the `fields` module): a field the schema lacks is skipped and
//! counted in the [`EmitReport`]; a class it lacks is an error naming it.
//!
//! The encoding itself is `gamewire-source2`'s: the emitter keeps a
//! [`DemoState`](gamewire_source2::DemoState) current by feeding every frame
//! it writes to a detached parser, and encodes each `svc_PacketEntities`
//! against it with [`encode_packet_entities`].

mod classes;
mod fields;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{Seek, Write};

use gamewire_bits::BitWriter;
use gamewire_source2::container::{DemoCommand, Frame as DemoFrame};
use gamewire_source2::container_writer::DemoWriter;
use gamewire_source2::entity_writer::{
    encode_packet_entities, EntityOp, EntityRecord, PacketEntities,
};
use gamewire_source2::fieldpath_writer::{write_field_paths_with, PathStyle};
use gamewire_source2::gameevent::{EventValue as WireValue, GameEvent as WireEvent};
use gamewire_source2::message_writer::{encode_game_event, encode_send_tables};
use gamewire_source2::packet_writer::PacketWriter;
use gamewire_source2::stringtable::StringTable;
use gamewire_source2::stringtable_writer::{
    write_entry_stream, EncodedKey, EncodedValue, EntryRecord, EntryStream, IndexStep,
};
use gamewire_source2::{DemoError, DemoParser, ErrorKind, FieldPath, Interests, Location, Visitor};
use prost::Message;
use source2_demo_protobufs as pb;

use crate::error::{SynthError, SynthErrorKind};
use crate::schema::Schema;
use crate::timeline::{EventValue, Frame, GameEvent, GrenadeKind, PlayerState, Timeline};

use fields::{changes, FieldMap, Fields, Names, V};

/// Packet message ids.
const NET_TICK: u32 = 4;
const SVC_SERVER_INFO: u32 = 40;
const SVC_CREATE_STRING_TABLE: u32 = 44;
const SVC_PACKET_ENTITIES: u32 = 55;
const UM_SAY_TEXT2: u32 = 118;
const CS_UM_END_OF_MATCH_ALL_PLAYERS_DATA: u32 = 375;
const GAME_EVENT_LIST: u32 = 205;
const GAME_EVENT: u32 = 207;

/// The null entity handle, as CS2 writes it.
const NULL_HANDLE: i64 = 0xFF_FFFF;
/// Where the serial starts in a handle that an entity field carries: the
/// networked form, 14 index bits and the serial above them (as the corpus
/// demos' `m_hPlayerPawn` values are).
const FIELD_HANDLE_SERIAL_SHIFT: u32 = 14;
/// Where the serial starts in a handle that a game event carries
/// (`userid_pawn`, `attacker_pawn`): the game's own `CEntityHandle`, 15
/// index bits (`handle & 0x7FFF`) and the serial above them, as the corpus
/// demos' `weapon_fire.userid_pawn` values are.
const EVENT_HANDLE_SERIAL_SHIFT: u32 = 15;
/// The highest player slot (controllers are entities 1 to 64).
const MAX_SLOT: u16 = 63;
/// The first index of the other entities.
const FIRST_FREE_INDEX: i32 = 65;
/// Indices below this are used before freed ones are reused (readers that
/// keep 11 bits of a handle's index still find them).
const INDEX_LIMIT: i32 = 2048;
/// `m_iConnected`: `PlayerConnected` and `PlayerDisconnected`.
const CONNECTED: i64 = 0;
const DISCONNECTED: i64 = 4;
/// `m_lifeState`: alive and dead.
const LIFE_ALIVE: i64 = 0;
const LIFE_DEAD: i64 = 2;

/// What a write did, beside the demo.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EmitReport {
    /// `DEM_Packet` frames written (one per timeline frame).
    pub packets: u64,
    /// Entities created over the demo.
    pub entities_created: u64,
    /// Game events written.
    pub events: u64,
    /// Chat lines written.
    pub chat_lines: u64,
    /// `Class.field` names the schema lacks (or whose type does not take the
    /// value), each with how many values were not written.
    pub skipped_fields: BTreeMap<String, u64>,
    /// `event.key` names the schema's descriptor lacks, each with how many
    /// values were not written.
    pub skipped_event_keys: BTreeMap<String, u64>,
    /// Bytes written.
    pub bytes: u64,
}

/// Writes `timeline` as a CS2 demo declaring `schema` (see the module
/// documentation) and hands `out` back, positioned after the demo.
pub fn write_demo<W: Write + Seek>(
    timeline: &dyn Timeline,
    schema: &Schema,
    out: W,
) -> Result<W, SynthError> {
    write_demo_with_report(timeline, schema, out).map(|(w, _)| w)
}

/// [`write_demo`], with what was written ([`EmitReport`]).
pub fn write_demo_with_report<W: Write + Seek>(
    timeline: &dyn Timeline,
    schema: &Schema,
    out: W,
) -> Result<(W, EmitReport), SynthError> {
    let mut e = Emitter::new(timeline, schema, out)?;
    e.signon()?;
    for frame in timeline.frames() {
        e.frame(&frame)?;
    }
    e.finish()
}

fn schema_error(what: impl Into<String>, reason: impl Into<String>) -> SynthError {
    SynthError {
        kind: SynthErrorKind::Schema {
            what: what.into(),
            reason: reason.into(),
        },
    }
}

/// A format-layer error of the writer (not tied to a place in an input).
fn wire(kind: ErrorKind) -> SynthError {
    SynthError::from(DemoError {
        kind,
        location: Location {
            byte_offset: 0,
            frame: 0,
            tick: -1,
        },
    })
}

fn timeline_error(key: impl Into<String>, message: impl Into<String>) -> SynthError {
    SynthError {
        kind: SynthErrorKind::Scenario {
            line: None,
            key: key.into(),
            message: message.into(),
        },
    }
}

/// The parser's view: entities and send tables only.
struct StateOnly;

impl Visitor for StateOnly {
    fn interests(&self) -> Interests {
        Interests {
            entities: true,
            send_tables: true,
            ..Interests::NONE
        }
    }
}

/// What an entity stands for in the timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Key {
    Controller(usize),
    Team(u8),
    Rules,
    Pawn(usize),
    Item(u32),
    Projectile(u32),
    Inferno(u32),
    Bomb,
}

/// An entity the demo holds.
#[derive(Debug)]
struct Live {
    index: i32,
    serial: u32,
    class_id: u32,
    fields: FieldMap,
}

impl Live {
    /// The handle as an entity field carries it.
    fn handle(&self) -> i64 {
        i64::from(self.serial) << FIELD_HANDLE_SERIAL_SHIFT | i64::from(self.index)
    }

    /// The handle as a game event carries it.
    fn event_handle(&self) -> i64 {
        i64::from(self.serial) << EVENT_HANDLE_SERIAL_SHIFT | i64::from(self.index)
    }
}

struct Emitter<'t, W: Write + Seek> {
    timeline: &'t dyn Timeline,
    schema: &'t Schema,
    writer: DemoWriter<W>,
    parser: DemoParser<'static>,
    /// Class ids by network name.
    class_ids: HashMap<String, u32>,
    names: Names,
    live: BTreeMap<Key, Live>,
    /// The last index and event handle of every key that ever lived (events may
    /// name an entity in the frame it is removed).
    last_seen: HashMap<Key, (i32, i64)>,
    serials: HashMap<i32, u32>,
    next_index: i32,
    free: BTreeSet<i32>,
    report: EmitReport,
    last_tick: i32,
    previous_tick: Option<i32>,
    /// Whether the end-of-match player list was written.
    ended: bool,
    /// Where each item last lay on the ground (or was first seen).
    item_rest: HashMap<u32, [f32; 3]>,
    /// Per player, the match counters (kills, deaths, assists, damage) when
    /// each round began, by round index (`m_totalRoundsPlayed`).
    round_base: Vec<Vec<[i32; 4]>>,
    /// The last frame's players (for an end-of-match list written after it).
    last_players: Vec<PlayerState>,
}

impl<'t, W: Write + Seek> Emitter<'t, W> {
    fn new(timeline: &'t dyn Timeline, schema: &'t Schema, out: W) -> Result<Self, SynthError> {
        let info = timeline.info();
        let mut slots = BTreeSet::new();
        for (i, p) in info.players.iter().enumerate() {
            if p.slot > MAX_SLOT {
                return Err(timeline_error(
                    format!("players[{i}].slot"),
                    format!("slot {} is above {MAX_SLOT}", p.slot),
                ));
            }
            if !slots.insert(p.slot) {
                return Err(timeline_error(
                    format!("players[{i}].slot"),
                    format!("slot {} is given twice", p.slot),
                ));
            }
        }
        if info.tick_rate == 0 {
            return Err(timeline_error("tick_rate", "the tick rate is 0"));
        }
        let class_ids = schema
            .class_info
            .classes
            .iter()
            .filter_map(|c| Some((c.network_name.clone()?, u32::try_from(c.class_id?).ok()?)))
            .collect();
        Ok(Emitter {
            timeline,
            schema,
            writer: DemoWriter::new(out)?,
            parser: DemoParser::detached()?,
            class_ids,
            names: Names::default(),
            live: BTreeMap::new(),
            last_seen: HashMap::new(),
            serials: HashMap::new(),
            next_index: FIRST_FREE_INDEX,
            free: BTreeSet::new(),
            report: EmitReport::default(),
            last_tick: info.first_tick,
            previous_tick: None,
            ended: false,
            item_rest: HashMap::new(),
            round_base: Vec::new(),
            last_players: Vec::new(),
        })
    }

    /// Writes a frame and feeds it to the parser.
    fn emit(&mut self, command: DemoCommand, tick: i32, payload: &[u8]) -> Result<(), SynthError> {
        let offset = self.writer.offset();
        let index = self.writer.frames_written();
        // The game writes its file header uncompressed (demoparser2 reads it only so).
        let compressed = payload.len() > 64 && command != DemoCommand::FileHeader;
        self.writer
            .write_frame(command, tick, compressed, payload)?;
        let frame = DemoFrame {
            command,
            tick,
            compressed,
            offset,
            index,
            payload: Cow::Borrowed(payload),
        };
        self.parser.apply_frame(&frame, &mut StateOnly)?;
        Ok(())
    }

    fn emit_packet(
        &mut self,
        command: DemoCommand,
        tick: i32,
        packet: PacketWriter,
    ) -> Result<(), SynthError> {
        let payload = pb::CDemoPacket {
            data: Some(packet.finish()),
        }
        .encode_to_vec();
        self.emit(command, tick, &payload)
    }

    fn signon(&mut self) -> Result<(), SynthError> {
        let info = self.timeline.info();
        let interval = 1.0 / info.tick_rate as f32;
        let mut header = self.schema.header.clone();
        header.map_name = Some(info.map.clone());
        header.server_name = Some(info.server_name.clone());
        self.emit(DemoCommand::FileHeader, -1, &header.encode_to_vec())?;

        let mut server_info = self.schema.server_info.clone();
        server_info.map_name = Some(info.map.clone());
        server_info.tick_interval = Some(interval);
        let mut packet = PacketWriter::new();
        packet
            .push_message(SVC_SERVER_INFO, &server_info)
            .map_err(wire)?;
        packet
            .push_message(GAME_EVENT_LIST, &self.schema.game_events)
            .map_err(wire)?;
        self.emit_packet(DemoCommand::SignonPacket, -1, packet)?;

        self.emit(
            DemoCommand::SendTables,
            -1,
            &encode_send_tables(&self.schema.send_tables),
        )?;
        self.emit(
            DemoCommand::ClassInfo,
            -1,
            &self.schema.class_info.encode_to_vec(),
        )?;

        let mut packet = PacketWriter::new();
        packet
            .push_message(SVC_CREATE_STRING_TABLE, &self.baselines()?)
            .map_err(wire)?;
        packet
            .push_message(SVC_CREATE_STRING_TABLE, &self.userinfo()?)
            .map_err(wire)?;
        self.emit_packet(DemoCommand::SignonPacket, -1, packet)?;
        self.emit(DemoCommand::SyncTick, -1, &[])?;
        if self.parser.state.send_tables.is_none() {
            return Err(schema_error(
                "send tables",
                "the parser did not build them from the signon",
            ));
        }
        Ok(())
    }

    /// `instancebaseline`: an empty baseline per class (a field-path
    /// sequence that ends at once).
    fn baselines(&self) -> Result<pb::CSvcMsgCreateStringTable, SynthError> {
        let mut w = BitWriter::new();
        write_field_paths_with(&mut w, &[], PathStyle::Game).map_err(wire)?;
        let empty = w.finish();
        let mut ids: Vec<u32> = self.class_ids.values().copied().collect();
        ids.sort_unstable();
        let entries = ids
            .iter()
            .map(|id| (id.to_string(), empty.clone()))
            .collect::<Vec<_>>();
        let with_index: Vec<(usize, String, Vec<u8>)> = entries
            .into_iter()
            .enumerate()
            .map(|(i, (k, v))| (i, k, v))
            .collect();
        string_table("instancebaseline", &with_index)
    }

    /// `userinfo`: each player's `CMsgPlayerInfo` at its slot.
    fn userinfo(&self) -> Result<pb::CSvcMsgCreateStringTable, SynthError> {
        let mut players: Vec<_> = self.timeline.info().players.iter().collect();
        players.sort_by_key(|p| p.slot);
        let entries: Vec<(usize, String, Vec<u8>)> = players
            .iter()
            .map(|p| {
                let info = pb::CMsgPlayerInfo {
                    name: Some(p.name.clone()),
                    xuid: Some(p.steamid),
                    userid: Some(i32::from(p.slot)),
                    steamid: Some(p.steamid),
                    fakeplayer: Some(p.bot),
                    ishltv: Some(false),
                    ..Default::default()
                };
                (
                    usize::from(p.slot),
                    p.slot.to_string(),
                    info.encode_to_vec(),
                )
            })
            .collect();
        string_table("userinfo", &entries)
    }

    fn class(&self, name: &str) -> Result<(u32, u32), SynthError> {
        let id = *self
            .class_ids
            .get(name)
            .ok_or_else(|| schema_error(name, "the schema has no such class"))?;
        let serializer = self
            .parser
            .state
            .classes
            .get(id as usize)
            .and_then(|c| c.serializer)
            .ok_or_else(|| schema_error(name, "the class has no serializer"))?;
        Ok((id, serializer))
    }

    fn allocate(&mut self) -> Result<(i32, u32), SynthError> {
        let index = if self.next_index < INDEX_LIMIT {
            self.next_index += 1;
            self.next_index - 1
        } else {
            self.free.pop_first().ok_or_else(|| {
                timeline_error("frames", "more entities at once than a demo holds")
            })?
        };
        Ok((index, self.next_serial(index)))
    }

    fn next_serial(&mut self, index: i32) -> u32 {
        let s = self.serials.entry(index).or_insert(0);
        *s = if *s >= 1023 { 1 } else { *s + 1 };
        *s
    }

    /// The entities of a frame, by key, with their classes.
    fn wanted(&self, frame: &Frame) -> Result<BTreeMap<Key, &'static str>, SynthError> {
        let info = self.timeline.info();
        if frame.players.len() != info.players.len() {
            return Err(timeline_error(
                format!("frames[tick {}].players", frame.tick),
                format!(
                    "{} player states for {} players",
                    frame.players.len(),
                    info.players.len()
                ),
            ));
        }
        let mut keys = BTreeMap::new();
        for i in 0..info.players.len() {
            keys.insert(Key::Controller(i), "CCSPlayerController");
        }
        for team in 0..4 {
            keys.insert(Key::Team(team), "CCSTeam");
        }
        keys.insert(Key::Rules, "CCSGameRulesProxy");
        for (i, p) in frame.players.iter().enumerate() {
            if p.connected && p.controlling_bot.is_none() {
                keys.insert(Key::Pawn(i), "CCSPlayerPawn");
            }
        }
        for item in &frame.items {
            let class = classes::weapon_class(&item.weapon).ok_or_else(|| {
                timeline_error(
                    format!("items[{}].weapon", item.id),
                    format!("no network class is known for weapon {:?}", item.weapon),
                )
            })?;
            keys.insert(Key::Item(item.id), class);
        }
        for p in &frame.projectiles {
            keys.insert(Key::Projectile(p.id), classes::projectile_class(p.kind));
        }
        for f in &frame.infernos {
            keys.insert(Key::Inferno(f.id), "CInferno");
        }
        if frame.planted_bomb.is_some() {
            keys.insert(Key::Bomb, "CPlantedC4");
        }
        Ok(keys)
    }

    fn handle_of(&self, key: Key) -> i64 {
        match self.live.get(&key) {
            Some(l) => l.handle(),
            None => NULL_HANDLE,
        }
    }

    /// The pawn a player drives: a bot's when the player has taken it over.
    fn pawn_key(frame: &Frame, player: usize) -> Key {
        Key::Pawn(
            frame
                .players
                .get(player)
                .and_then(|p| p.controlling_bot)
                .unwrap_or(player),
        )
    }

    fn frame(&mut self, frame: &Frame) -> Result<(), SynthError> {
        if let Some(prev) = self.previous_tick {
            if frame.tick <= prev {
                return Err(timeline_error(
                    format!("frames[tick {}]", frame.tick),
                    format!("tick {} does not come after tick {prev}", frame.tick),
                ));
            }
        }
        let wanted = self.wanted(frame)?;
        self.note_round(frame);
        let present: BTreeSet<u32> = frame.items.iter().map(|it| it.id).collect();
        self.item_rest.retain(|id, _| present.contains(id));
        for item in &frame.items {
            if item.owner.is_none() || !self.item_rest.contains_key(&item.id) {
                self.item_rest.insert(item.id, item.position);
            }
        }
        // Gone, or changed class: deleted (indices freed after the frame).
        let mut records: Vec<EntityRecord> = Vec::new();
        let mut freed = Vec::new();
        let gone: Vec<Key> = self
            .live
            .iter()
            .filter(|(k, l)| {
                wanted
                    .get(k)
                    .is_none_or(|class| self.class_ids.get(*class) != Some(&l.class_id))
            })
            .map(|(k, _)| *k)
            .collect();
        for key in gone {
            if let Some(l) = self.live.remove(&key) {
                records.push(EntityRecord {
                    index: l.index,
                    op: EntityOp::Delete,
                });
                if !matches!(key, Key::Controller(_)) {
                    freed.push(l.index);
                }
            }
        }
        // New: an index and a serial.
        let mut created = BTreeSet::new();
        for (key, class) in &wanted {
            if self.live.contains_key(key) {
                continue;
            }
            let (class_id, _) = self.class(class)?;
            let (index, serial) = match key {
                Key::Controller(i) => {
                    let slot = self.timeline.info().players.get(*i).map_or(0, |p| p.slot);
                    let index = i32::from(slot) + 1;
                    (index, self.next_serial(index))
                }
                _ => self.allocate()?,
            };
            if records.iter().any(|r| r.index == index) {
                return Err(timeline_error(
                    format!("frames[tick {}]", frame.tick),
                    format!("entity index {index} deleted and created in one frame"),
                ));
            }
            self.live.insert(
                *key,
                Live {
                    index,
                    serial,
                    class_id,
                    fields: FieldMap::new(),
                },
            );
            created.insert(*key);
        }
        for (key, l) in &self.live {
            self.last_seen.insert(*key, (l.index, l.event_handle()));
        }
        // The values of every entity, and the records.
        for (key, class) in &wanted {
            let (_, serializer) = self.class(class)?;
            let tables = self
                .parser
                .state
                .send_tables
                .clone()
                .ok_or_else(|| schema_error("send tables", "not built"))?;
            let mut names = std::mem::take(&mut self.names);
            let mut f = Fields::new(&tables, serializer, class, &mut names);
            self.fill(&mut f, *key, frame)?;
            let map = std::mem::take(&mut f.map);
            self.names = names;
            let Some(l) = self.live.get_mut(key) else {
                continue;
            };
            let op = if created.contains(key) {
                self.report.entities_created += 1;
                EntityOp::Create {
                    class_id: l.class_id,
                    serial: l.serial,
                    spare: 0,
                    fields: map
                        .iter()
                        .map(|(p, v)| (FieldPath::from_slice(p), v.clone()))
                        .collect(),
                }
            } else {
                let changed = changes(&l.fields, &map);
                if changed.is_empty() {
                    l.fields = map;
                    continue;
                }
                EntityOp::Update {
                    pvs: None,
                    fields: changed
                        .into_iter()
                        .map(|(p, v)| (FieldPath::from_slice(&p), v))
                        .collect(),
                }
            };
            records.push(EntityRecord { index: l.index, op });
            l.fields = map;
        }
        records.sort_by_key(|r| r.index);

        let tick = frame.tick;
        let mut packet = PacketWriter::new();
        packet
            .push_message(
                NET_TICK,
                &pb::CNetMsgTick {
                    tick: u32::try_from(tick).ok(),
                    ..Default::default()
                },
            )
            .map_err(wire)?;
        for (i, event) in frame.events.iter().enumerate() {
            let body = self.game_event(frame, event, i)?;
            packet.push(GAME_EVENT, &body).map_err(wire)?;
            self.report.events += 1;
        }
        for line in &frame.chat {
            packet
                .push_message(UM_SAY_TEXT2, &self.say_text(frame, line)?)
                .map_err(wire)?;
            self.report.chat_lines += 1;
        }
        if tick >= self.timeline.info().last_tick && !self.ended {
            packet
                .push_message(
                    CS_UM_END_OF_MATCH_ALL_PLAYERS_DATA,
                    &self.end_of_match(&frame.players),
                )
                .map_err(wire)?;
            self.ended = true;
        }
        let first = self.previous_tick.is_none();
        let max_entries = self
            .live
            .values()
            .map(|l| l.index + 1)
            .chain(records.iter().map(|r| r.index + 1))
            .max()
            .unwrap_or(0);
        let message = pb::CSvcMsgPacketEntities {
            max_entries: Some(max_entries),
            legacy_is_delta: Some(!first),
            update_baseline: Some(false),
            baseline: Some(0),
            delta_from: self.previous_tick,
            server_tick: u32::try_from(tick).ok(),
            ..Default::default()
        };
        let entities = PacketEntities {
            message,
            records,
            trailing: Vec::new(),
            trailing_bits: 0,
        };
        let body = encode_packet_entities(&entities, &self.parser.state).map_err(wire)?;
        packet.push(SVC_PACKET_ENTITIES, &body).map_err(wire)?;
        self.emit_packet(DemoCommand::Packet, tick, packet)?;
        self.report.packets += 1;
        self.free.extend(freed);
        self.previous_tick = Some(tick);
        self.last_tick = tick;
        self.last_players.clone_from(&frame.players);
        Ok(())
    }

    /// Records each player's counters when a round is first seen.
    fn note_round(&mut self, frame: &Frame) {
        let round = usize::try_from(frame.rules.total_rounds_played).unwrap_or(0);
        self.round_base.resize_with(frame.players.len(), Vec::new);
        for (base, p) in self.round_base.iter_mut().zip(&frame.players) {
            let now = [p.kills, p.deaths, p.assists, p.damage];
            while base.len() <= round {
                base.push(now);
            }
        }
    }

    /// `CCSUsrMsg_EndOfMatchAllPlayersData`: every player's slot, steam id,
    /// name, team and bot flag, as the game sends it when the match ends
    /// (demoparser2's `parse_player_info` reads it).
    fn end_of_match(&self, players: &[PlayerState]) -> pb::CCsUsrMsgEndOfMatchAllPlayersData {
        use pb::ccs_usr_msg_end_of_match_all_players_data::PlayerData;
        let info = self.timeline.info();
        let allplayerdata = info
            .players
            .iter()
            .zip(players)
            .map(|(who, state)| PlayerData {
                slot: Some(i32::from(who.slot)),
                xuid: Some(who.steamid),
                name: Some(state.name.clone()),
                teamnumber: Some(i32::from(state.team)),
                isbot: Some(who.bot),
                ..Default::default()
            })
            .collect();
        pb::CCsUsrMsgEndOfMatchAllPlayersData {
            allplayerdata,
            scene: None,
        }
    }

    /// Sets the fields of one entity from the frame.
    fn fill(&self, f: &mut Fields<'_>, key: Key, frame: &Frame) -> Result<(), SynthError> {
        let info = self.timeline.info();
        match key {
            Key::Controller(i) => {
                let (Some(p), Some(who)) = (frame.players.get(i), info.players.get(i)) else {
                    return Ok(());
                };
                let pawn_key = Self::pawn_key(frame, i);
                let pawn = self.handle_of(pawn_key);
                let driven = match pawn_key {
                    Key::Pawn(d) => frame.players.get(d).unwrap_or(p),
                    _ => p,
                };
                let alive = driven.alive && pawn != NULL_HANDLE;
                f.set("m_iTeamNum", V::Int(i64::from(p.team)));
                f.set("m_iPendingTeamNum", V::Int(i64::from(p.team)));
                f.set(
                    "m_iConnected",
                    V::Int(if p.connected { CONNECTED } else { DISCONNECTED }),
                );
                f.set("m_iszPlayerName", V::Str(p.name.clone()));
                f.set("m_steamID", V::Int(who.steamid as i64));
                f.set("m_hPlayerPawn", V::Int(pawn));
                f.set("m_hPawn", V::Int(pawn));
                f.set("m_bPawnIsAlive", V::Bool(alive));
                f.set(
                    "m_iPawnHealth",
                    V::Int(if alive { i64::from(driven.health) } else { 0 }),
                );
                f.set("m_iPawnArmor", V::Int(i64::from(driven.armor)));
                f.set("m_bPawnHasHelmet", V::Bool(driven.helmet));
                f.set("m_bPawnHasDefuser", V::Bool(driven.defuser));
                f.set("m_bControllingBot", V::Bool(p.controlling_bot.is_some()));
                f.set("m_bEverPlayedOnTeam", V::Bool(p.team >= 2));
                f.set(
                    "m_pInGameMoneyServices.m_iAccount",
                    V::Int(i64::from(p.money)),
                );
                for (name, v) in [
                    ("m_iKills", p.kills),
                    ("m_iDeaths", p.deaths),
                    ("m_iAssists", p.assists),
                    ("m_iDamage", p.damage),
                ] {
                    f.set(
                        &format!("m_pActionTrackingServices.{name}"),
                        V::Int(i64::from(v)),
                    );
                }
                // This round's counters: the vector of per-round stats is as
                // long as the rounds played so far plus the current one; the
                // earlier rounds' entries were sent when they were current.
                let round = usize::try_from(frame.rules.total_rounds_played).unwrap_or(0);
                if let Some(base) = self.round_base.get(i).and_then(|b| b.get(round)) {
                    let stats = "m_pActionTrackingServices.m_perRoundStats";
                    f.set(stats, V::Int(round as i64 + 1));
                    for (k, (name, v)) in [
                        ("m_iKills", p.kills),
                        ("m_iDeaths", p.deaths),
                        ("m_iAssists", p.assists),
                        ("m_iDamage", p.damage),
                    ]
                    .into_iter()
                    .enumerate()
                    {
                        let since = v - base.get(k).copied().unwrap_or(0);
                        f.set(&format!("{stats}.{round}.{name}"), V::Int(i64::from(since)));
                    }
                }
            }
            Key::Pawn(i) => {
                // A bot taken over is driven by the human's state.
                let driver = frame
                    .players
                    .iter()
                    .position(|p| p.controlling_bot == Some(i) && p.connected)
                    .unwrap_or(i);
                let Some(p) = frame.players.get(driver) else {
                    return Ok(());
                };
                self.pawn(f, p, driver);
            }
            Key::Team(n) => {
                let state = match n {
                    2 | 3 => frame.teams.get(usize::from(n - 2)),
                    _ => None,
                };
                let name = match n {
                    0 => "Unassigned",
                    1 => "Spectator",
                    2 => "TERRORIST",
                    _ => "CT",
                };
                f.set("m_iTeamNum", V::Int(i64::from(n)));
                f.set("m_szTeamname", V::Str(name.to_string()));
                let (score, first, second, overtime, clan) = match state {
                    Some(t) => (
                        t.score,
                        t.score_first_half,
                        t.score_second_half,
                        t.score_overtime,
                        t.clan_name.clone(),
                    ),
                    None => (0, 0, 0, 0, String::new()),
                };
                f.set("m_iScore", V::Int(i64::from(score)));
                f.set("m_scoreFirstHalf", V::Int(i64::from(first)));
                f.set("m_scoreSecondHalf", V::Int(i64::from(second)));
                f.set("m_scoreOvertime", V::Int(i64::from(overtime)));
                f.set("m_szClanTeamname", V::Str(clan));
            }
            Key::Rules => {
                let r = &frame.rules;
                let g = |n: &str| format!("m_pGameRules.{n}");
                f.set(&g("m_bWarmupPeriod"), V::Bool(r.warmup));
                f.set(&g("m_bFreezePeriod"), V::Bool(r.freeze_period));
                f.set(&g("m_bHasMatchStarted"), V::Bool(r.match_started));
                f.set(
                    &g("m_totalRoundsPlayed"),
                    V::Int(i64::from(r.total_rounds_played)),
                );
                f.set(&g("m_gamePhase"), V::Int(i64::from(r.game_phase)));
                f.set(&g("m_fRoundStartTime"), V::Float(r.round_start_time));
                f.set(&g("m_iRoundTime"), V::Int(i64::from(r.round_time)));
                f.set(&g("m_bBombPlanted"), V::Bool(r.bomb_planted));
                f.set(&g("m_bBombDropped"), V::Bool(r.bomb_dropped));
                f.set(
                    &g("m_iRoundWinStatus"),
                    V::Int(i64::from(r.round_win_status)),
                );
                f.set(
                    &g("m_eRoundWinReason"),
                    V::Int(i64::from(r.round_win_reason)),
                );
                f.set(
                    &g("m_nRoundStartCount"),
                    V::Int(i64::from(r.round_start_count)),
                );
                f.set(&g("m_nRoundEndCount"), V::Int(i64::from(r.round_end_count)));
                f.set(&g("m_nMatchEndCount"), V::Int(i64::from(r.match_end_count)));
            }
            Key::Item(id) => {
                let Some(item) = frame.items.iter().find(|it| it.id == id) else {
                    return Ok(());
                };
                let owner = item
                    .owner
                    .map_or(NULL_HANDLE, |o| self.handle_of(Self::pawn_key(frame, o)));
                f.set("m_hOwnerEntity", V::Int(owner));
                f.set("m_nOwnerId", V::Int(owner));
                f.set_any(
                    &[
                        "m_iItemDefinitionIndex",
                        "m_AttributeManager.m_Item.m_iItemDefinitionIndex",
                    ],
                    V::Int(i64::from(item.def_index)),
                );
                if let Some(clip) = item.clip {
                    f.set("m_iClip1", V::Int(i64::from(clip)));
                }
                // Always: the body component exists from the item's creation
                // on (a pointer first made present by an update is not
                // read alike by every reader). A carried item keeps where it
                // last lay (or where it was first seen): it is not sent
                // again while it moves with its carrier.
                let at = self.item_rest.get(&id).copied().unwrap_or(item.position);
                position(f, at);
                if let Some(o) = item.owner.and_then(|o| info.players.get(o)) {
                    f.set(
                        "m_OriginalOwnerXuidLow",
                        V::Int((o.steamid & 0xFFFF_FFFF) as i64),
                    );
                    f.set("m_OriginalOwnerXuidHigh", V::Int((o.steamid >> 32) as i64));
                }
            }
            Key::Projectile(id) => {
                let Some(p) = frame.projectiles.iter().find(|p| p.id == id) else {
                    return Ok(());
                };
                let thrower = self.handle_of(Self::pawn_key(frame, p.thrower));
                f.set("m_hThrower", V::Int(thrower));
                f.set("m_hOwnerEntity", V::Int(thrower));
                f.set("m_nOwnerId", V::Int(thrower));
                position(f, p.position);
                if p.kind == GrenadeKind::Smoke {
                    f.set("m_bDidSmokeEffect", V::Bool(p.smoking));
                }
                if matches!(p.kind, GrenadeKind::Molotov | GrenadeKind::Incendiary) {
                    f.set(
                        "m_bIsIncGrenade",
                        V::Bool(p.kind == GrenadeKind::Incendiary),
                    );
                }
            }
            Key::Inferno(id) => {
                let Some(fire) = frame.infernos.iter().find(|x| x.id == id) else {
                    return Ok(());
                };
                let owner = self.handle_of(Self::pawn_key(frame, fire.thrower));
                f.set("m_hOwnerEntity", V::Int(owner));
                f.set("m_nOwnerId", V::Int(owner));
                position(f, fire.position);
                f.set("m_fireCount", V::Int(1));
            }
            Key::Bomb => {
                let Some(b) = &frame.planted_bomb else {
                    return Ok(());
                };
                position(f, b.position);
                f.set("m_nBombSite", V::Int(i64::from(b.site)));
                f.set("m_flC4Blow", V::Float(b.blow_time));
                f.set("m_bBombTicking", V::Bool(!b.defused && !b.exploded));
                f.set("m_bBombDefused", V::Bool(b.defused));
                f.set("m_bHasExploded", V::Bool(b.exploded));
                let defuser = b
                    .defuser
                    .map_or(NULL_HANDLE, |d| self.handle_of(Self::pawn_key(frame, d)));
                f.set("m_hBombDefuser", V::Int(defuser));
                f.set("m_bBeingDefused", V::Bool(b.defuser.is_some()));
            }
        }
        Ok(())
    }

    /// A pawn's fields from the state of the player driving it.
    fn pawn(&self, f: &mut Fields<'_>, p: &PlayerState, driver: usize) {
        let controller = self.handle_of(Key::Controller(driver));
        f.set("m_hController", V::Int(controller));
        f.set("m_hOriginalController", V::Int(controller));
        f.set("m_iTeamNum", V::Int(i64::from(p.team)));
        f.set(
            "m_lifeState",
            V::Int(if p.alive { LIFE_ALIVE } else { LIFE_DEAD }),
        );
        f.set(
            "m_iHealth",
            V::Int(if p.alive { i64::from(p.health) } else { 0 }),
        );
        f.set("m_ArmorValue", V::Int(i64::from(p.armor)));
        position(f, p.position);
        f.set("m_angEyeAngles", V::Vec3([p.pitch, p.yaw, 0.0]));
        f.set("m_pItemServices.m_bHasHelmet", V::Bool(p.helmet));
        f.set("m_pItemServices.m_bHasDefuser", V::Bool(p.defuser));
        f.set("m_flFlashDuration", V::Float(p.flash_duration));
        let weapons: Vec<V> = p
            .weapons
            .iter()
            .map(|id| V::Int(self.handle_of(Key::Item(*id))))
            .collect();
        f.set_array("m_pWeaponServices.m_hMyWeapons", &weapons);
        let active = p
            .active_weapon
            .map_or(NULL_HANDLE, |id| self.handle_of(Key::Item(id)));
        f.set("m_pWeaponServices.m_hActiveWeapon", V::Int(active));
        // The round's purchases, when they are written as state.
        if let Some(list) = &p.purchases {
            let entries = "m_pBuyServices.m_vecSellbackPurchaseEntries";
            f.set(entries, V::Int(list.len() as i64));
            for (i, b) in list.iter().enumerate() {
                let item = b
                    .item
                    .map_or(NULL_HANDLE, |id| self.handle_of(Key::Item(id)));
                f.set(
                    &format!("{entries}.{i}.m_unDefIdx"),
                    V::Int(i64::from(b.def_index)),
                );
                f.set(&format!("{entries}.{i}.m_nCost"), V::Int(i64::from(b.cost)));
                f.set(&format!("{entries}.{i}.m_hItem"), V::Int(item));
            }
        }
    }

    /// A game event encoded against its descriptor.
    fn game_event(
        &mut self,
        frame: &Frame,
        event: &GameEvent,
        n: usize,
    ) -> Result<Vec<u8>, SynthError> {
        let descriptor = self
            .schema
            .game_events
            .descriptors
            .iter()
            .find(|d| d.name.as_deref() == Some(event.name.as_str()))
            .ok_or_else(|| {
                schema_error(
                    format!("event {}", event.name),
                    format!(
                        "the schema declares no such game event (tick {}, event {n})",
                        frame.tick
                    ),
                )
            })?;
        let mut keys = Vec::with_capacity(descriptor.keys.len());
        for k in &descriptor.keys {
            let name = k.name.clone().unwrap_or_default();
            let kind = k.r#type.unwrap_or(0);
            let given = event.keys.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
            let value = match given {
                Some(v) => self.event_value(frame, v, kind).ok_or_else(|| {
                    timeline_error(
                        format!("events[tick {}].{}.{name}", frame.tick, event.name),
                        format!("value {v:?} does not fit key type {kind}"),
                    )
                })?,
                None => zero_value(kind),
            };
            keys.push((name, kind, value));
        }
        for (name, _) in &event.keys {
            if !descriptor
                .keys
                .iter()
                .any(|k| k.name.as_deref() == Some(name))
            {
                *self
                    .report
                    .skipped_event_keys
                    .entry(format!("{}.{name}", event.name))
                    .or_default() += 1;
            }
        }
        let event_wire = WireEvent {
            name: event.name.clone(),
            id: descriptor.eventid.unwrap_or(0),
            tick: frame.tick,
            keys,
        };
        encode_game_event(&event_wire, Some(frame.tick)).map_err(wire)
    }

    fn event_value(&self, frame: &Frame, v: &EventValue, kind: i32) -> Option<WireValue> {
        let info = self.timeline.info();
        let int = |i: i64| -> Option<WireValue> {
            Some(match kind {
                1 => WireValue::String(i.to_string()),
                2 => WireValue::Float(i as f32),
                3..=5 | 8 | 9 => WireValue::Int(i as i32),
                6 => WireValue::Bool(i != 0),
                7 => WireValue::U64(i as u64),
                _ => return None,
            })
        };
        match v {
            EventValue::Str(s) => (kind == 1).then(|| WireValue::String(s.clone())),
            EventValue::Float(x) => match kind {
                2 => Some(WireValue::Float(*x)),
                _ => int(*x as i64),
            },
            EventValue::Int(i) => int(*i),
            EventValue::Bool(b) => match kind {
                6 => Some(WireValue::Bool(*b)),
                _ => int(i64::from(*b)),
            },
            EventValue::Player(p) => {
                let who = info.players.get(*p)?;
                match kind {
                    7 => Some(WireValue::U64(who.steamid)),
                    _ => int(i64::from(who.slot)),
                }
            }
            EventValue::Pawn(p) => {
                let key = Self::pawn_key(frame, *p);
                let handle = self
                    .live
                    .get(&key)
                    .map(Live::event_handle)
                    .or_else(|| self.last_seen.get(&key).map(|&(_, h)| h))
                    .unwrap_or(NULL_HANDLE);
                int(handle)
            }
            EventValue::Entity(id) => {
                let index = [Key::Projectile(*id), Key::Inferno(*id), Key::Item(*id)]
                    .iter()
                    .find_map(|k| {
                        self.live
                            .get(k)
                            .map(|l| l.index)
                            .or_else(|| self.last_seen.get(k).map(|&(i, _)| i))
                    })
                    .unwrap_or(-1);
                int(i64::from(index))
            }
        }
    }

    fn say_text(
        &self,
        frame: &Frame,
        line: &crate::timeline::ChatLine,
    ) -> Result<pb::CUserMessageSayText2, SynthError> {
        let info = self.timeline.info();
        let (Some(who), Some(state)) = (
            info.players.get(line.player),
            frame.players.get(line.player),
        ) else {
            return Err(timeline_error(
                format!("chat[tick {}].player", frame.tick),
                format!("no player {}", line.player),
            ));
        };
        let kind = match (line.all_chat, state.team) {
            (true, _) => "Cstrike_Chat_All",
            (false, 2) => "Cstrike_Chat_T",
            (false, 3) => "Cstrike_Chat_CT",
            (false, _) => "Cstrike_Chat_Spec",
        };
        Ok(pb::CUserMessageSayText2 {
            entityindex: Some(i32::from(who.slot) + 1),
            chat: Some(line.all_chat),
            messagename: Some(kind.to_string()),
            param1: Some(state.name.clone()),
            param2: Some(line.text.clone()),
            param3: Some(String::new()),
            param4: Some(String::new()),
            ..Default::default()
        })
    }

    fn finish(mut self) -> Result<(W, EmitReport), SynthError> {
        let last = self.last_tick.max(0);
        if !self.ended && self.previous_tick.is_some() {
            // The frames ended before the last tick the timeline announced:
            // the end-of-match list in a packet of its own.
            let players = std::mem::take(&mut self.last_players);
            let mut packet = PacketWriter::new();
            packet
                .push_message(
                    NET_TICK,
                    &pb::CNetMsgTick {
                        tick: u32::try_from(last).ok(),
                        ..Default::default()
                    },
                )
                .map_err(wire)?;
            packet
                .push_message(
                    CS_UM_END_OF_MATCH_ALL_PLAYERS_DATA,
                    &self.end_of_match(&players),
                )
                .map_err(wire)?;
            self.emit_packet(DemoCommand::Packet, last, packet)?;
            self.report.packets += 1;
        }
        self.writer
            .write_frame(DemoCommand::Stop, last, false, &[])?;
        let interval = 1.0 / self.timeline.info().tick_rate as f32;
        let info = pb::CDemoFileInfo {
            playback_time: Some(last as f32 * interval),
            playback_ticks: Some(last),
            playback_frames: i32::try_from(self.report.packets).ok(),
            game_info: None,
        };
        self.writer.write_file_info(last, &info)?;
        self.report.bytes = self.writer.offset();
        self.report.skipped_fields = std::mem::take(&mut self.names.skipped);
        let out = self.writer.finish()?;
        Ok((out, self.report))
    }
}

/// An entity's position as CS2 sends it: for each axis a cell index
/// (`CBodyComponent.m_cellX`, cells of 512 units from -16384) and the
/// offset inside the cell (`CBodyComponent.m_vecX`).
fn position(f: &mut Fields<'_>, p: [f32; 3]) {
    for (axis, c) in ["X", "Y", "Z"].iter().zip(p) {
        let shifted = f64::from(c) + 16384.0;
        let cell = (shifted / 512.0).floor().max(0.0);
        let offset = (shifted - cell * 512.0) as f32;
        f.set_any(
            &[
                &format!("CBodyComponent.m_cell{axis}"),
                &format!("m_CBodyComponent.m_cell{axis}"),
            ],
            V::Int(cell as i64),
        );
        f.set_any(
            &[
                &format!("CBodyComponent.m_vec{axis}"),
                &format!("m_CBodyComponent.m_vec{axis}"),
            ],
            V::Float(offset),
        );
    }
}

/// The value a descriptor key gets when the event does not give it.
fn zero_value(kind: i32) -> WireValue {
    match kind {
        1 => WireValue::String(String::new()),
        2 => WireValue::Float(0.0),
        6 => WireValue::Bool(false),
        7 => WireValue::U64(0),
        _ => WireValue::Int(0),
    }
}

/// A `svc_CreateStringTable` holding `entries` (index, key, value), in
/// index order, values uncompressed with varint lengths.
fn string_table(
    name: &str,
    entries: &[(usize, String, Vec<u8>)],
) -> Result<pb::CSvcMsgCreateStringTable, SynthError> {
    let format = StringTable {
        name: name.to_string(),
        user_data_fixed_size: false,
        user_data_size_bits: 0,
        flags: 0,
        using_varint_bitcounts: true,
        ..Default::default()
    };
    let mut previous: Option<usize> = None;
    let mut records = Vec::with_capacity(entries.len());
    for (index, key, value) in entries {
        let step = match (previous, index) {
            (None, 0) => IndexStep::Next,
            (Some(p), i) if *i == p + 1 => IndexStep::Next,
            (_, i) => IndexStep::Explicit(u32::try_from(i - 1).unwrap_or(u32::MAX)),
        };
        previous = Some(*index);
        records.push(EntryRecord {
            step,
            key: Some(EncodedKey {
                prefix: None,
                suffix: key.as_bytes().to_vec(),
            }),
            value: Some(EncodedValue {
                compressed: None,
                stored: value.clone(),
            }),
        });
    }
    let stream = EntryStream {
        entries: records,
        ..Default::default()
    };
    let data = write_entry_stream(&format, &stream).map_err(wire)?;
    Ok(pb::CSvcMsgCreateStringTable {
        name: Some(name.to_string()),
        num_entries: i32::try_from(entries.len()).ok(),
        user_data_fixed_size: Some(false),
        user_data_size: Some(0),
        user_data_size_bits: Some(0),
        flags: Some(0),
        uncompressed_size: i32::try_from(data.len()).ok(),
        string_data: Some(data),
        data_compressed: Some(false),
        using_varint_bitcounts: Some(true),
    })
}
