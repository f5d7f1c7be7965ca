//! The demo parser: drives the frames of a demo ([`crate::container`])
//! through packets into a [`DemoState`], and reports to a [`Visitor`].
//!
//! This module holds [`DemoParser`] and its frame loop: which frames are
//! read, the signon's send tables (built here or on the helper thread while
//! the rest of the signon is read), the header, class info and file info.
//! Its parts:
//!
//! - `packets`: the messages of a packet (`UBitVar id, varuint32 size,
//!   bytes`), dispatched by id;
//! - `strings`: string-table snapshots, creations and updates;
//! - `entities`: `CSVCMsg_PacketEntities`, entity creates, updates, leaves
//!   and deletes against the send tables.
//!
//! The frame and message types are Valve's (`demo.proto`,
//! `netmessages.proto` in the `source2-demo-protobufs` crate).

use std::sync::Arc;

use prost::Message;
use rustc_hash::FxHashMap;
use source2_demo_protobufs as pb;

use crate::cache::SendTableCache;
use crate::container::{DemoCommand, Frame, FrameReader};
use crate::error::{DemoError, ErrorKind, Location, SendTablesError};
use crate::messages::Game;
use crate::serializer::SendTables;
// The state and visitor types, also at their older paths under `parser`.
pub use crate::state::{DemoState, ServerClass, UserInfo};
pub use crate::visitor::{
    message_name, message_name_in, ChatMessage, Interests, NoVisitor, UserMessage, Visitor,
};

mod entities;
mod packets;
mod strings;

/// Largest single message in a packet.
pub const MAX_MESSAGE_SIZE: usize = 16 << 20;
/// Most string tables.
pub const MAX_STRING_TABLES: usize = 256;

/// The smallest frame: three one-byte varints (command, tick, size), as the
/// `DEM_Stop` frame that ends a whole demo is. A demo that ends between two
/// frames before it is truncated by (at least) this much.
pub(crate) const MIN_FRAME_LEN: u64 = 3;

/// A Source 2 demo parser over bytes in memory.
#[derive(Debug)]
pub struct DemoParser<'a> {
    frames: FrameReader<'a>,
    /// The state so far (kept after an error, so a cut demo keeps what was parsed).
    pub state: DemoState,
    paths: crate::fieldpath::Paths,
    scratch: Vec<u8>,
    current_frame: Location,
    send_table_cache: Option<Arc<SendTableCache>>,
    /// Messages seen by id since the last [`DemoParser::run`] returned
    /// (folded into `message_counts` / `unknown_messages` then).
    message_ids: FxHashMap<u32, u64>,
    /// Frames seen by command since then (folded into `command_counts`),
    /// instead of a name built and looked up per frame.
    commands_seen: FxHashMap<DemoCommand, u64>,
    /// Send tables being built on the helper thread (see
    /// [`DemoParser::start_send_tables`]).
    background: Option<BackgroundTables>,
    /// Whether to use the helper thread ([`DemoParser::with_helper_thread`]).
    use_helper: bool,
    /// Jobs this parser handed to the helper thread ([`DemoParser::helper_jobs`]).
    helper_jobs: u32,
    /// [`Visitor::wants_class`] by class id, asked when the class's first
    /// entity is created (`None`: not asked yet).
    class_wanted: Vec<Option<bool>>,
    /// The tick [`DemoParser::apply_frame`] has started and not yet ended.
    stepped_tick: Option<i32>,
    /// Set by a rewrite: every `svc_PacketEntities` is also written again
    /// (see [`crate::entity_writer::EntityRewrite`]).
    pub(crate) entity_rewrite: Option<Box<crate::entity_writer::EntityRewrite>>,
    /// By string table index: the table's message in the last snapshot
    /// applied to it, while nothing else has written the table since (see
    /// `strings`).
    last_snapshots: Vec<strings::LastSnapshot>,
}

/// A `CDemoSendTables` frame whose tables another thread builds while this
/// one reads the rest of the signon.
struct BackgroundTables {
    /// Index of the frame.
    frame: u64,
    /// Where the frame is, once the parser has reached it (errors are
    /// reported there); `None` before.
    location: Option<Location>,
    /// The build, shared with the helper thread.
    build: Arc<crate::serializer::SharedBuild>,
    /// What the run reads (which frames to decompress while waiting).
    interests: Interests,
}

impl std::fmt::Debug for BackgroundTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BackgroundTables")
            .field("frame", &self.frame)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// The `CSVCMsg_FlattenedSerializer` inside a `CDemoSendTables` frame
/// payload, borrowed.
fn send_tables_message(payload: &[u8]) -> Result<&[u8], ErrorKind> {
    let data = crate::wire::bytes_field(payload, 1, "CDemoSendTables")?;
    crate::serializer::demo_payload_message(data.unwrap_or(&[]))
}

/// Whether [`DemoParser`] reads the payload of a frame with this command
/// (the frame reader does not decompress the others): after `DEM_Stop` only
/// the file info; `DEM_SendTables` only when send tables are wanted.
pub(crate) fn handles_payload(
    command: DemoCommand,
    interests: Interests,
    after_stop: bool,
) -> bool {
    match command {
        _ if after_stop => command == DemoCommand::FileInfo,
        DemoCommand::SendTables => interests.wants_send_tables(),
        DemoCommand::FileHeader
        | DemoCommand::FileInfo
        | DemoCommand::ClassInfo
        | DemoCommand::StringTables
        | DemoCommand::Packet
        | DemoCommand::SignonPacket
        | DemoCommand::FullPacket
        | DemoCommand::Unknown(_) => true,
        _ => false,
    }
}

/// The names [`DemoState::message_counts`] uses for the messages the parser
/// handles itself (the others are named by [`message_name_in`]).
fn handled_message_name(id: u32) -> Option<&'static str> {
    Some(match id {
        4 => "net_Tick",
        6 => "net_SetConVar",
        40 => "svc_ServerInfo",
        41 => "svc_FlattenedSerializer",
        44 => "svc_CreateStringTable",
        45 => "svc_UpdateStringTable",
        51 => "svc_ClearAllStringTables",
        55 => "svc_PacketEntities",
        76 => "svc_UserCmds",
        205 => "GE_Source1LegacyGameEventList",
        207 => "GE_Source1LegacyGameEvent",
        _ => return None,
    })
}

impl<'a> DemoParser<'a> {
    /// Checks the magic; nothing else is read yet.
    pub fn new(data: &'a [u8]) -> Result<Self, DemoError> {
        Ok(DemoParser::with_frames(FrameReader::new(data)?))
    }

    /// A parser reading `frames`.
    fn with_frames(frames: FrameReader<'a>) -> Self {
        DemoParser {
            frames,
            state: DemoState {
                tick: -1,
                tick_interval: 1.0 / 64.0,
                ..Default::default()
            },
            paths: crate::fieldpath::Paths::with_capacity(256),
            scratch: Vec::new(),
            current_frame: Location::default(),
            send_table_cache: None,
            message_ids: FxHashMap::default(),
            commands_seen: FxHashMap::default(),
            background: None,
            use_helper: true,
            helper_jobs: 0,
            class_wanted: Vec::new(),
            stepped_tick: None,
            entity_rewrite: None,
            last_snapshots: Vec::new(),
        }
    }

    /// [`DemoParser::detached`], which cannot fail.
    pub(crate) fn detached_parser() -> DemoParser<'static> {
        DemoParser::with_frames(FrameReader::without_frames()).with_helper_thread(false)
    }

    /// A parser with no demo of its own, fed frame by frame with
    /// [`DemoParser::apply_frame`] (no helper thread: the send tables are
    /// built when their frame is applied).
    pub fn detached() -> Result<DemoParser<'static>, DemoError> {
        Ok(DemoParser::detached_parser())
    }

    /// Shares built send tables with the other parsers that use `cache`:
    /// demos of the same game build skip building them (see [`crate::cache`]).
    #[must_use]
    pub fn with_send_table_cache(mut self, cache: Arc<SendTableCache>) -> Self {
        self.send_table_cache = Some(cache);
        self
    }

    /// Whether the send tables may be built on the helper thread while the
    /// rest of the signon is read (default: yes). The thread is one per
    /// process, started by the first parser that uses it; a parser that
    /// finds it busy builds its tables itself. The result is the same
    /// either way; while they are being built, [`DemoState::send_tables`]
    /// is `None` in the signon's callbacks. A program that parses one
    /// small demo and exits is faster without it (starting the thread
    /// costs more than it saves there).
    #[must_use]
    pub fn with_helper_thread(mut self, use_helper: bool) -> Self {
        self.use_helper = use_helper;
        self
    }

    /// How many jobs this parser has handed to the helper thread (0 or 1
    /// per run: the signon's send tables), whether or not they are done.
    pub fn helper_jobs(&self) -> u32 {
        self.helper_jobs
    }

    fn err(&self, kind: ErrorKind) -> DemoError {
        DemoError {
            kind,
            location: self.current_frame,
        }
    }

    /// [`run`](Self::run) for a caller that keeps what a demo cut short
    /// holds: a truncation ([`DemoError::is_truncation`]) ends the run with
    /// `Ok(Some(cut))`, the state and the visitor holding everything before
    /// it. Any other error is an error.
    pub fn run_keeping_cut<V: Visitor>(
        &mut self,
        visitor: &mut V,
    ) -> Result<Option<DemoError>, DemoError> {
        match self.run(visitor) {
            Ok(()) => Ok(None),
            Err(e) if e.is_truncation() => Ok(Some(e)),
            Err(e) => Err(e),
        }
    }

    /// Applies one frame that the caller read (from a stream, say: see
    /// [`crate::edit::frames::FrameStream`]), its payload decompressed, with
    /// the bookkeeping of [`DemoParser::run`]: the frame count, the tick
    /// (a frame whose tick differs from the current one ends the open tick
    /// and starts its own, [`Visitor::on_tick_end`] and
    /// [`Visitor::on_tick_start`]; after `DEM_Stop` the tick stays), and
    /// the frame's effect on the state. Call [`DemoParser::finish_frames`]
    /// after the last frame. On a [`DemoParser::detached`] parser.
    pub fn apply_frame<V: Visitor>(
        &mut self,
        frame: &Frame<'_>,
        visitor: &mut V,
    ) -> Result<(), DemoError> {
        let interests = visitor.interests();
        self.current_frame = Location {
            byte_offset: frame.offset,
            frame: frame.index,
            tick: frame.tick,
        };
        self.state.frames += 1;
        if frame.tick != self.state.tick && !self.state.reached_stop {
            if let Some(t) = self.stepped_tick.take() {
                visitor.on_tick_end(&self.state, t);
            }
            self.state.tick = frame.tick;
            visitor.on_tick_start(&self.state, frame.tick);
            self.stepped_tick = Some(frame.tick);
        }
        let result = self.handle_frame(frame, visitor, interests);
        if frame.command == DemoCommand::Stop {
            self.state.reached_stop = true;
        }
        result
    }

    /// Ends the frames given to [`DemoParser::apply_frame`]: ends the open
    /// tick and fills in the counts by name
    /// ([`DemoState::command_counts`], [`DemoState::message_counts`]), as
    /// [`DemoParser::run`] does when it returns.
    pub fn finish_frames<V: Visitor>(&mut self, visitor: &mut V) {
        if let Some(t) = self.stepped_tick.take() {
            visitor.on_tick_end(&self.state, t);
        }
        self.count_messages();
    }

    /// Parses to the end of the demo (or `DEM_Stop`). On error the state keeps
    /// everything parsed before it.
    pub fn run<V: Visitor>(&mut self, visitor: &mut V) -> Result<(), DemoError> {
        let result = self.run_frames(visitor);
        self.count_messages();
        result
    }

    /// Folds the frames counted by command into [`DemoState::command_counts`]
    /// and the messages counted by id into [`DemoState::message_counts`] (by
    /// name) and [`DemoState::unknown_messages`].
    fn count_messages(&mut self) {
        for (command, n) in self.commands_seen.drain() {
            *self.state.command_counts.entry(command.name()).or_default() += n;
        }
        for (id, n) in self.message_ids.drain() {
            let name = match handled_message_name(id) {
                Some(name) => name.to_string(),
                None => message_name_in(self.state.game, id),
            };
            if name.starts_with("unknown_") {
                *self.state.unknown_messages.entry(id).or_default() += n;
            } else {
                *self.state.message_counts.entry(name).or_default() += n;
            }
        }
    }

    /// Hands the signon's `CDemoSendTables` frame to the helper thread,
    /// which builds its tables while this one reads the frames around it
    /// (string tables, class info, the game-event list: together about as
    /// long). Only at the start of a demo, when send tables are wanted and
    /// no shared cache may already hold them.
    fn start_send_tables(&mut self, interests: Interests) {
        if !self.use_helper
            || !interests.wants_send_tables()
            || self.send_table_cache.is_some()
            || self.frames.frame_index() != 0
        {
            return;
        }
        // The signon is a few dozen frames; look no further than that.
        let mut ahead = self.frames.clone();
        for _ in 0..64 {
            let Some((command, frame, compressed, raw)) = ahead.next_raw() else {
                return;
            };
            match command {
                DemoCommand::SendTables => {
                    let raw = raw.to_vec();
                    let build = crate::serializer::SharedBuild::new(Box::new(move || {
                        crate::container::with_payload(&raw, compressed, |payload| {
                            send_tables_message(payload).map(<[u8]>::to_vec)
                        })
                    }));
                    let part = crate::serializer::HelperPart::of(&build);
                    let job = move || part.run();
                    if crate::helper::run(job) {
                        self.helper_jobs += 1;
                        self.background = Some(BackgroundTables {
                            frame,
                            location: None,
                            build,
                            interests,
                        });
                    }
                    return;
                }
                DemoCommand::Packet | DemoCommand::FullPacket | DemoCommand::Stop => return,
                _ => {}
            }
        }
    }

    /// Takes the send tables from the helper thread, if it has them and the
    /// parser has reached their frame: before anything that may use them
    /// (entities, another serializer message, the first tick's callbacks,
    /// the end of the run). A build error is reported at the frame.
    ///
    /// `reading_on`: the parse goes on past this point, so while the helper
    /// is still at work the frames that come next are decompressed ahead
    /// (snappy needs no send tables; on the corpus clips the parser
    /// otherwise waits 0.1-0.3 ms here).
    fn finish_send_tables(&mut self, reading_on: bool) -> Result<(), DemoError> {
        let Some(BackgroundTables {
            location: Some(location),
            build,
            interests,
            ..
        }) = self.background.take_if(|b| b.location.is_some())
        else {
            return Ok(());
        };
        // While the helper is still decoding the message, decompress the
        // frames that come next (their snappy work needs no send tables);
        // then build fields beside it. (If it has not begun, this thread
        // takes the message on at once.)
        let wanted = |command| {
            handles_payload(command, interests, false) && command != DemoCommand::SendTables
        };
        while reading_on && build.stage_in_progress() && self.frames.decompress_ahead(wanted) {}
        let built = build.join();
        match built {
            Ok(tables) => {
                self.set_send_tables(Arc::new(tables));
                Ok(())
            }
            Err(kind) => Err(DemoError { kind, location }),
        }
    }

    fn run_frames<V: Visitor>(&mut self, visitor: &mut V) -> Result<(), DemoError> {
        let interests = visitor.interests();
        self.start_send_tables(interests);
        let result = self.read_frames(visitor, interests);
        // A run that stopped early still ends with its tables (or their
        // error). A send-tables frame the run has reached comes before
        // whatever else failed after it, so its error is the one reported,
        // as on one thread.
        let finished = self.finish_send_tables(false);
        self.background = None;
        finished.and(result)
    }

    fn read_frames<V: Visitor>(
        &mut self,
        visitor: &mut V,
        interests: Interests,
    ) -> Result<(), DemoError> {
        let mut open_tick: Option<i32> = None;
        loop {
            let after_stop = self.state.reached_stop;
            let background = self.background.as_ref().map(|b| b.frame);
            let next = self.frames.frame_index();
            // Payloads `handle_frame` ignores are not decompressed, nor the
            // send tables the helper thread is building.
            let wanted = |command| {
                handles_payload(command, interests, after_stop)
                    && !(command == DemoCommand::SendTables && background == Some(next))
            };
            let frame = match self.frames.next_frame_if(wanted) {
                Ok(Some(f)) => f,
                Ok(None) if self.state.reached_stop => break,
                // The input ends between two frames before `DEM_Stop`: the
                // demo was cut there (a recording that stopped, a partial
                // copy). Everything before it has been handled.
                Ok(None) => {
                    if let Some(t) = open_tick {
                        visitor.on_tick_end(&self.state, t);
                    }
                    return Err(DemoError::missing_stop(Location {
                        byte_offset: self.frames.offset(),
                        frame: self.frames.frame_index(),
                        tick: self.state.tick,
                    }));
                }
                Err(e) => {
                    if let Some(t) = open_tick {
                        visitor.on_tick_end(&self.state, t);
                    }
                    return Err(e);
                }
            };
            self.current_frame = Location {
                byte_offset: frame.offset,
                frame: frame.index,
                tick: frame.tick,
            };
            self.state.frames += 1;
            if frame.tick != self.state.tick && !self.state.reached_stop {
                if let Err(e) = self.finish_send_tables(true) {
                    if let Some(t) = open_tick {
                        visitor.on_tick_end(&self.state, t);
                    }
                    return Err(e);
                }
                if let Some(t) = open_tick.take() {
                    visitor.on_tick_end(&self.state, t);
                }
                self.state.tick = frame.tick;
                visitor.on_tick_start(&self.state, frame.tick);
                open_tick = Some(frame.tick);
            }
            let result = self.handle_frame(&frame, visitor, interests);
            if let Err(e) = result {
                if let Some(t) = open_tick {
                    visitor.on_tick_end(&self.state, t);
                }
                return Err(e);
            }
            if frame.command == DemoCommand::Stop {
                self.state.reached_stop = true;
            }
            if let std::borrow::Cow::Owned(buffer) = frame.payload {
                self.frames.recycle(buffer);
            }
        }
        if let Some(t) = open_tick {
            visitor.on_tick_end(&self.state, t);
        }
        Ok(())
    }

    fn handle_frame<V: Visitor>(
        &mut self,
        frame: &Frame<'_>,
        visitor: &mut V,
        interests: Interests,
    ) -> Result<(), DemoError> {
        *self.commands_seen.entry(frame.command).or_default() += 1;
        let payload = &*frame.payload;
        if !handles_payload(frame.command, interests, self.state.reached_stop) {
            return Ok(());
        }
        match frame.command {
            DemoCommand::FileHeader => {
                let h = pb::CDemoFileHeader::decode(payload)
                    .map_err(|e| self.err(ErrorKind::protobuf("CDemoFileHeader", e)))?;
                self.state.game =
                    Game::from_game_directory(h.game_directory.as_deref().unwrap_or(""));
                self.state.header = Some(h);
            }
            DemoCommand::FileInfo => {
                let i = pb::CDemoFileInfo::decode(payload)
                    .map_err(|e| self.err(ErrorKind::protobuf("CDemoFileInfo", e)))?;
                self.state.file_info = Some(i);
            }
            DemoCommand::SendTables => {
                // The helper thread's frame: its tables are collected later.
                if let Some(b) = self.background.as_mut().filter(|b| b.frame == frame.index) {
                    b.location = Some(self.current_frame);
                    return Ok(());
                }
                self.finish_send_tables(true)?;
                // Borrowed, not copied: the blob is most of the frame.
                let body = send_tables_message(payload).map_err(|k| self.err(k))?;
                self.load_send_tables(body)?;
            }
            DemoCommand::ClassInfo => {
                let found = crate::wire::class_info(payload).map_err(|k| self.err(k))?;
                let mut classes: Vec<ServerClass> = Vec::with_capacity(found.len());
                for &(id, name) in &found {
                    let Ok(id) = u32::try_from(id) else {
                        return Err(self.err(ErrorKind::SendTables(
                            SendTablesError::NegativeClassId { id },
                        )));
                    };
                    if id as usize > crate::entity::MAX_ENTITIES {
                        return Err(self.err(ErrorKind::LimitExceeded {
                            what: "class id",
                            value: u64::from(id),
                            limit: crate::entity::MAX_ENTITIES as u64,
                        }));
                    }
                    if classes.len() <= id as usize {
                        classes.resize_with(id as usize + 1, || ServerClass {
                            id: 0,
                            name: String::new(),
                            serializer: None,
                        });
                    }
                    if let Some(slot) = classes.get_mut(id as usize) {
                        *slot = ServerClass {
                            id,
                            name: name.to_string(),
                            serializer: None,
                        };
                    }
                }
                self.state.classes = classes;
                self.class_wanted.clear();
                if self.state.game == Game::Any {
                    // No file header (a broadcast): tell the game by its classes.
                    self.state.game =
                        Game::from_class_names(self.state.classes.iter().map(|c| c.name.as_str()));
                }
                if self.state.class_id_bits == 0 {
                    self.state.class_id_bits = class_bits(self.state.classes.len() as u32);
                }
                self.link_classes();
            }
            DemoCommand::StringTables => {
                let mut seen = strings::TablesSeen::default();
                let tables = crate::wire::string_table_snapshot(payload, &mut |name, raw| {
                    self.snapshot_items_wanted(name, raw, &mut seen)
                })
                .map_err(|k| self.err(k))?;
                self.apply_string_table_snapshot(tables, visitor, interests);
            }
            DemoCommand::Packet | DemoCommand::SignonPacket => {
                // The packet data is borrowed from the frame, not copied.
                let data =
                    crate::wire::bytes_field(payload, 3, "CDemoPacket").map_err(|k| self.err(k))?;
                self.handle_packet(data.unwrap_or(&[]), visitor, interests, false)?;
            }
            DemoCommand::FullPacket => {
                // Both pieces borrowed from the frame.
                let mut seen = strings::TablesSeen::default();
                let (snapshot, packet) = crate::wire::full_packet(payload, &mut |name, raw| {
                    self.snapshot_items_wanted(name, raw, &mut seen)
                })
                .map_err(|k| self.err(k))?;
                self.apply_string_table_snapshot(snapshot, visitor, interests);
                // A full packet repeats the whole world for seeking. Its
                // string tables are always applied (the entries that differ):
                // Dota 2's carry entries that the packets send only later and
                // that the combat log names units by before then (corpus test
                // `a_dota_full_packet_holds_string_table_entries_the_packets_send_later`).
                // Its entities are applied when none exist yet; later ones
                // agree with the delta stream and are skipped.
                if let Some(data) = packet {
                    let apply_entities =
                        self.state.entities.is_empty() && self.state.full_packets_applied == 0;
                    // Visitors that make one row per update (the ticks
                    // table) skip it: the world it repeats is the one the
                    // packets of this tick already gave, or (the first state
                    // of a cut demo) the one they are about to change.
                    self.state.in_full_packet = true;
                    let handled = self.handle_packet(data, visitor, interests, !apply_entities);
                    self.state.in_full_packet = false;
                    handled?;
                    if apply_entities {
                        self.state.full_packets_applied += 1;
                    }
                }
            }
            DemoCommand::Unknown(n) => {
                *self.state.unknown_commands.entry(n).or_default() += 1;
                self.state.warn(format!(
                    "unknown demo command {n} ({} bytes) skipped",
                    payload.len()
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// Builds (or takes from the shared cache) the send tables of a
    /// `CSVCMsg_FlattenedSerializer`, whichever command carried it, reports
    /// fallback decoders and links the classes to their serializers.
    fn load_send_tables(&mut self, message: &[u8]) -> Result<(), DemoError> {
        let tables = match &self.send_table_cache {
            Some(cache) => cache.get_or_build(message, SendTables::from_message),
            None => SendTables::from_message(message).map(Arc::new),
        }
        .map_err(|k| self.err(k))?;
        self.set_send_tables(tables);
        Ok(())
    }

    /// Makes `tables` the current send tables: reports their fallback
    /// decoders and links the classes to their serializers.
    fn set_send_tables(&mut self, tables: Arc<SendTables>) {
        for (ser, field, ty) in &tables.fallbacks {
            self.state.warn(format!(
                "field {ser}.{field} of unknown type {ty:?} is read as a varuint64"
            ));
        }
        for (name, declared, used) in tables
            .coord_size_params
            .iter()
            .flat_map(|p| p.differences())
        {
            self.state.warn(format!(
                "the send tables declare {name} {declared}; values are read with {used}, \
                 the fixed size of the Source 2 coordinate encodings"
            ));
        }
        self.state.send_tables = Some(tables);
        self.link_classes();
    }

    fn link_classes(&mut self) {
        let Some(tables) = &self.state.send_tables else {
            return;
        };
        let mut missing = Vec::new();
        for c in &mut self.state.classes {
            if c.name.is_empty() {
                continue;
            }
            c.serializer = tables.by_name(&c.name);
            if c.serializer.is_none() {
                missing.push(c.name.clone());
            }
        }
        for m in missing {
            self.state.warn(format!("class {m} has no serializer"));
        }
    }
}

/// Class-id bits from `CSVCMsg_ServerInfo.max_classes`: floor(log2) + 1.
fn class_bits_from_max(max_classes: u32) -> u32 {
    32 - max_classes.leading_zeros()
}

/// Class-id bits from the class count when the server info is missing.
fn class_bits(count: u32) -> u32 {
    class_bits_from_max(count.max(1))
}

/// Parses a whole demo held in memory with a visitor; returns the final state,
/// and the error that stopped the parse, if any (the state then holds
/// everything read before it).
pub fn parse_with<V: Visitor>(
    data: &[u8],
    visitor: &mut V,
) -> Result<(DemoState, Option<DemoError>), DemoError> {
    let mut parser = DemoParser::new(data)?;
    let result = parser.run(visitor);
    Ok((parser.state, result.err()))
}
