//! The demo parser: drives frames through packets into state, and reports to
//! a [`Visitor`].
//!
//! Packets (`DEM_Packet`, `DEM_SignonPacket`, the packet of `DEM_FullPacket`)
//! are bitstreams of messages, each `UBitVar id, varuint32 size, bytes`. The
//! id selects a protobuf message from the net (`NET_Messages`), server
//! (`SVC_Messages`), user-message and game-event enums of the protobuf crate.
//! Unknown ids are counted and skipped.

use std::collections::BTreeMap;
use std::sync::Arc;

use gamewire_bits::BitReader;
use prost::Message;
use rustc_hash::FxHashMap;
use source2_demo_protobufs as pb;

use crate::cache::SendTableCache;
use crate::container::{DemoCommand, Frame, FrameReader};
use crate::entity::{
    describe_path, read_or_skip_fields, Entity, EntityChange, EntityList, FieldState,
};
use crate::error::{DemoError, ErrorKind, Location, Warning};
use crate::fieldpath::FieldPath;
use crate::gameevent::{EventValue, GameEvent};
use crate::messages::{Game, MessageKind};
use crate::serializer::{SendTables, SerializerId};
use crate::stringtable::{StringTable, StringTableEntry};
use crate::usercmd::UserCommand;

/// Largest single message in a packet.
pub const MAX_MESSAGE_SIZE: usize = 16 << 20;
/// Most string tables.
pub const MAX_STRING_TABLES: usize = 256;

/// The smallest frame: three one-byte varints (command, tick, size), as the
/// `DEM_Stop` frame that ends a whole demo is. A demo that ends between two
/// frames before it is truncated by (at least) this much.
const MIN_FRAME_LEN: u64 = 3;

/// What a visitor wants decoded. Anything not asked for is skipped, not decoded.
/// Which entity classes are decoded is asked per class:
/// [`Visitor::wants_class`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interests {
    /// Decode `PacketEntities` (entity state).
    pub entities: bool,
    /// Decode game events (and their descriptors,
    /// [`DemoState::event_descriptors`], which stay empty without it).
    pub game_events: bool,
    /// Report user messages.
    pub user_messages: bool,
    /// Decode the user commands (`CSVCMsg_UserCommands`; CS2's whole, other
    /// games' base command): report each
    /// ([`Visitor::on_user_command`]) and keep every pawn's latest
    /// ([`DemoState::user_commands`]).
    pub user_commands: bool,
    /// Build the send tables (serializers) even when entities are not
    /// wanted, to inspect them after the run. Entities imply send tables;
    /// without either, `CDemoSendTables` is skipped, not decoded, which
    /// is most of the signon's cost.
    pub send_tables: bool,
}

impl Interests {
    /// Everything.
    pub const ALL: Interests = Interests {
        entities: true,
        game_events: true,
        user_messages: true,
        user_commands: true,
        send_tables: true,
    };

    /// Nothing beyond the container, string tables and header messages;
    /// start from it with struct update syntax
    /// (`Interests { game_events: true, ..Interests::NONE }`).
    pub const NONE: Interests = Interests {
        entities: false,
        game_events: false,
        user_messages: false,
        user_commands: false,
        send_tables: false,
    };

    /// What either asks for.
    #[must_use]
    pub fn union(self, other: Interests) -> Interests {
        Interests {
            entities: self.entities | other.entities,
            game_events: self.game_events | other.game_events,
            user_messages: self.user_messages | other.user_messages,
            user_commands: self.user_commands | other.user_commands,
            send_tables: self.send_tables | other.send_tables,
        }
    }

    /// Whether the send tables are decoded.
    pub fn wants_send_tables(self) -> bool {
        self.entities || self.send_tables
    }
}

/// A user message (chat, HUD text, round reports, ...) or protobuf game
/// event (`GE_FireBulletsId`, ...), as it came: decode it with
/// [`UserMessage::to_json`] or [`UserMessage::chat`].
#[derive(Debug, Clone)]
pub struct UserMessage<'a> {
    /// The message id.
    pub id: u32,
    /// The game whose id table applies.
    pub game: Game,
    /// The protobuf payload.
    pub payload: &'a [u8],
}

impl UserMessage<'_> {
    /// The engine's name for the id (`CsUmServerRankUpdate`,
    /// `GeFireBulletsId`, …), or `unknown_<id>`.
    pub fn name(&self) -> String {
        message_name_in(self.game, self.id)
    }

    /// User message or protobuf game event; `None` for an unknown id.
    pub fn kind(&self) -> Option<MessageKind> {
        crate::messages::message_type(self.game, self.id).map(|t| t.0)
    }

    /// The protobuf type that decodes this message (`CCsUsrMsgServerRankUpdate`).
    pub fn type_name(&self) -> Option<&'static str> {
        crate::messages::message_type(self.game, self.id).and_then(|t| t.2)
    }

    /// The message decoded into its protobuf type and turned into JSON.
    /// `None` for an id with no known type; `Some(Err)` when the payload does
    /// not decode.
    pub fn to_json(&self) -> Option<Result<serde_json::Value, String>> {
        crate::messages::to_json(self.game, self.id, self.payload)
    }

    /// The chat line, for `SayText2`/`SayText` messages.
    pub fn chat(&self) -> Option<ChatMessage> {
        // 306 is CS2's legacy SayText2 id; in Deadlock it means something else.
        let say_text2 = self.id == 118 || (self.id == 306 && self.game == Game::Cs2);
        match self.id {
            _ if say_text2 => {
                let m = pb::CUserMessageSayText2::decode(self.payload).ok()?;
                Some(ChatMessage {
                    entity_index: m.entityindex.unwrap_or(-1),
                    all_chat: m.chat.unwrap_or(false),
                    kind: m.messagename.unwrap_or_default(),
                    name: m.param1.unwrap_or_default(),
                    text: m.param2.unwrap_or_default(),
                })
            }
            117 => {
                let m = pb::CUserMessageSayText::decode(self.payload).ok()?;
                Some(ChatMessage {
                    entity_index: m.playerindex.unwrap_or(-1),
                    all_chat: m.chat.unwrap_or(false),
                    kind: String::new(),
                    name: String::new(),
                    text: m.text.unwrap_or_default(),
                })
            }
            _ => None,
        }
    }
}

/// A chat line.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ChatMessage {
    /// Entity index of the sender's controller.
    pub entity_index: i32,
    /// True for all-chat.
    pub all_chat: bool,
    /// The localisation token (`Cstrike_Chat_All`, ...).
    pub kind: String,
    /// The sender's name.
    pub name: String,
    /// The text.
    pub text: String,
}

/// The engine name of a packet message id, with CS2's id tables.
pub fn message_name(id: u32) -> String {
    message_name_in(Game::Cs2, id)
}

/// The engine name of a packet message id in a game.
pub fn message_name_in(game: Game, id: u32) -> String {
    let id32 = id as i32;
    if let Ok(m) = pb::NetMessages::try_from(id32) {
        return format!("{m:?}");
    }
    if let Ok(m) = pb::SvcMessages::try_from(id32) {
        return format!("{m:?}");
    }
    if let Some((_, name, _)) = crate::messages::message_type(game, id) {
        return name.to_string();
    }
    if let Ok(m) = pb::EBaseUserMessages::try_from(id32) {
        return format!("{m:?}");
    }
    if let Ok(m) = pb::EBaseGameEvents::try_from(id32) {
        return format!("{m:?}");
    }
    let specific = match game {
        Game::Cs2 => pb::ECstrike15UserMessages::try_from(id32)
            .map(|m| format!("{m:?}"))
            .or_else(|_| pb::ECsgoGameEvents::try_from(id32).map(|m| format!("{m:?}"))),
        Game::Dota2 => pb::EDotaUserMessages::try_from(id32).map(|m| format!("{m:?}")),
        Game::Deadlock => pb::CitadelUserMessageIds::try_from(id32)
            .map(|m| format!("{m:?}"))
            .or_else(|_| pb::ECitadelGameEvents::try_from(id32).map(|m| format!("{m:?}"))),
        Game::Any => Err(prost::UnknownEnumValue(id32)),
    };
    specific.unwrap_or_else(|_| format!("unknown_{id}"))
}

/// Receives what the parser decodes. Every method has an empty default.
pub trait Visitor {
    /// What to decode.
    fn interests(&self) -> Interests {
        Interests::ALL
    }
    /// A frame with a new tick starts.
    fn on_tick_start(&mut self, _state: &DemoState, _tick: i32) {}
    /// The frames of a tick have all been read.
    fn on_tick_end(&mut self, _state: &DemoState, _tick: i32) {}
    /// An entity was created, updated, left the PVS or is about to be deleted.
    /// `paths` are the field paths the update carried (empty for leave/delete).
    fn on_entity(
        &mut self,
        _state: &DemoState,
        _change: EntityChange,
        _entity: &Entity,
        _paths: &[FieldPath],
    ) {
    }
    /// Whether to decode the entities of a server class (asked once per
    /// class, by name, e.g. `CCSPlayerPawn`, when its first entity is
    /// created; the default wants every class). An entity of a class not
    /// wanted still exists in [`DemoState::entities`] with its index, serial
    /// and class, but its field values are read past and dropped, not kept
    /// ([`Entity::is_decoded`] is false, [`Entity::get`] finds nothing), and
    /// [`Visitor::on_entity`] is not called for it. The bit stream gives no
    /// lengths to jump over an entity, so its values are still read; what
    /// is saved is storing them, their memory and the class baseline's
    /// values.
    fn wants_class(&self, _class_name: &str) -> bool {
        true
    }
    /// Whether to decode the entries of the string table `name` (asked
    /// once per table, by name, when the table is created; the default
    /// wants every table). A table not wanted still exists in
    /// [`DemoState::string_tables`], with its name, id and flags, but
    /// [`StringTable::skipped`] is true, its entries stay empty and
    /// [`Visitor::on_string_table`] is not called for it.
    ///
    /// The parser decodes the tables its own state is built from whatever
    /// the answer: `userinfo` ([`DemoState::players`]), `instancebaseline`
    /// when entities are decoded (the class baselines) and Dota 2's
    /// `CombatLogNames` when user messages are reported (the names of
    /// [`crate::dota::CombatLogEntry::name`]).
    fn wants_string_table(&self, _name: &str) -> bool {
        true
    }
    /// A `PacketEntities` message has been applied completely.
    fn on_packet_entities(&mut self, _state: &DemoState) {}
    /// A game event.
    fn on_game_event(&mut self, _state: &DemoState, _event: &GameEvent) {}
    /// A user message.
    fn on_user_message(&mut self, _state: &DemoState, _message: &UserMessage<'_>) {}
    /// A user command (with [`Interests::user_commands`]), after
    /// [`DemoState::user_commands`] took it in.
    fn on_user_command(&mut self, _state: &DemoState, _command: &UserCommand) {}
    /// Entries of a string table changed.
    fn on_string_table(&mut self, _state: &DemoState, _table: &StringTable, _changed: &[usize]) {}
}

/// A visitor that wants nothing but the state itself.
#[derive(Debug, Default)]
pub struct NoVisitor;
impl Visitor for NoVisitor {}

/// A player from the `userinfo` string table.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PlayerInfo {
    /// Player slot (the entry index); the controller entity is slot + 1.
    pub slot: usize,
    /// Name.
    pub name: String,
    /// 64-bit Steam id (0 for bots).
    pub steamid: u64,
    /// User id.
    pub userid: i32,
    /// Bot or other fake client.
    pub fake_player: bool,
    /// SourceTV / HLTV client.
    pub is_hltv: bool,
}

/// A server class.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ServerClass {
    /// Class id.
    pub id: u32,
    /// Network name (`CCSPlayerPawn`).
    pub name: String,
    /// Its serializer.
    #[serde(skip)]
    pub serializer: Option<SerializerId>,
}

/// Everything the parser knows at a point in the demo.
#[derive(Debug, Default)]
pub struct DemoState {
    /// `CDemoFileHeader`.
    pub header: Option<pb::CDemoFileHeader>,
    /// The game, from the header's game directory ([`Game::Any`] before it).
    pub game: Game,
    /// `CDemoFileInfo` (at the end of the file).
    pub file_info: Option<pb::CDemoFileInfo>,
    /// `CSVCMsg_ServerInfo`.
    pub server_info: Option<pb::CSvcMsgServerInfo>,
    /// Seconds per tick (1/64 for CS2 unless the server says otherwise).
    pub tick_interval: f32,
    /// Send tables. Set by the first tick (when the helper thread builds
    /// them, see [`DemoParser::with_helper_thread`], callbacks during the signon may still
    /// see `None`), and always before the first entity.
    pub send_tables: Option<Arc<SendTables>>,
    /// Server classes by id.
    pub classes: Vec<ServerClass>,
    /// Bits of a class id in entity create records.
    pub class_id_bits: u32,
    /// String tables, by id.
    pub string_tables: Vec<StringTable>,
    /// Entities.
    pub entities: EntityList,
    /// Game event descriptors by id (decoded when game events are wanted).
    pub event_descriptors: Arc<crate::gameevent::EventDescriptors>,
    /// Players by slot, from `userinfo`.
    pub players: BTreeMap<usize, PlayerInfo>,
    /// Current tick (frame tick; -1 before the first).
    pub tick: i32,
    /// The `net_Tick` of the current packet.
    pub net_tick: u32,
    /// Frames read.
    pub frames: u64,
    /// Frame counts by command name (filled in when [`DemoParser::run`]
    /// returns, not during the parse).
    pub command_counts: BTreeMap<String, u64>,
    /// Message counts by name (filled in when [`DemoParser::run`] returns,
    /// not during the parse).
    pub message_counts: BTreeMap<String, u64>,
    /// Unknown message ids and their counts (filled in likewise).
    pub unknown_messages: BTreeMap<u32, u64>,
    /// Unknown demo commands and their counts.
    pub unknown_commands: BTreeMap<u32, u64>,
    /// Non-fatal oddities.
    pub warnings: Vec<Warning>,
    /// Entity updates decoded.
    pub entity_updates: u64,
    /// Whether `DEM_Stop` was reached.
    pub reached_stop: bool,
    /// True while the packet of a `DEM_FullPacket` is being handled.
    pub in_full_packet: bool,
    /// Each pawn's latest user command, by pawn entity index (with
    /// [`Interests::user_commands`]); view angles and buttons a command
    /// does not send keep the previous command's. Read it through
    /// [`DemoState::user_command_of`].
    pub user_commands: BTreeMap<u32, UserCommand>,
    full_packets_applied: u64,
}

impl DemoState {
    /// The server class of an entity.
    pub fn class_of(&self, entity: &Entity) -> Option<&ServerClass> {
        self.classes.get(entity.class_id as usize)
    }

    /// The class name of an entity (or `?`).
    pub fn class_name(&self, entity: &Entity) -> &str {
        self.class_of(entity)
            .map(|c| c.name.as_str())
            .unwrap_or("?")
    }

    /// The latest user command of a pawn, if it drove this entity (same
    /// index and serial).
    pub fn user_command_of(&self, pawn: &Entity) -> Option<&UserCommand> {
        let index = u32::try_from(pawn.index).ok()?;
        self.user_commands
            .get(&index)
            .filter(|c| c.pawn.is_some_and(|h| h.serial == pawn.serial))
    }

    /// A string table by name.
    pub fn string_table(&self, name: &str) -> Option<&StringTable> {
        self.string_tables.iter().find(|t| t.name == name)
    }

    /// The map name.
    pub fn map_name(&self) -> Option<&str> {
        self.header
            .as_ref()
            .and_then(|h| h.map_name.as_deref())
            .or_else(|| {
                self.server_info
                    .as_ref()
                    .and_then(|s| s.map_name.as_deref())
            })
    }

    fn warn(&mut self, message: String) {
        if self.warnings.len() < 1000 {
            self.warnings.push(Warning {
                tick: self.tick,
                message,
            });
        }
    }
}

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
fn handles_payload(command: DemoCommand, interests: Interests, after_stop: bool) -> bool {
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
        Ok(DemoParser {
            frames: FrameReader::new(data)?,
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
        })
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
                    return Err(DemoError {
                        kind: ErrorKind::Truncated {
                            what: "the DEM_Stop frame",
                            needed: MIN_FRAME_LEN,
                            available: 0,
                        },
                        location: Location {
                            byte_offset: self.frames.offset(),
                            frame: self.frames.frame_index(),
                            tick: self.state.tick,
                        },
                    });
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
                        return Err(
                            self.err(ErrorKind::SendTables(format!("class id {id} is negative")))
                        );
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
                let tables = crate::wire::string_table_snapshot(payload, &mut |name| {
                    self.snapshot_items_wanted(name)
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
                let (snapshot, packet) =
                    crate::wire::full_packet(payload, &mut |name| self.snapshot_items_wanted(name))
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
                    self.handle_packet(data, visitor, interests, !apply_entities)?;
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
                 as seed 001 gives it"
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

    /// Whether a snapshot's items for table `name` are read: not for a
    /// table that exists without its entries. (A table the snapshot creates
    /// is decided once, when it is created, and its items dropped then if
    /// it is not wanted.)
    fn snapshot_items_wanted(&self, name: &str) -> bool {
        self.state
            .string_tables
            .iter()
            .find(|t| t.name == name)
            .is_none_or(|t| !t.skipped)
    }

    /// Whether the entries of a new string table `name` are decoded:
    /// always for the tables the parser's own state is built from, else as
    /// the visitor says ([`Visitor::wants_string_table`]).
    fn decodes_string_table<V: Visitor>(name: &str, interests: Interests, visitor: &V) -> bool {
        match name {
            "userinfo" => true,
            "instancebaseline" if interests.entities => true,
            "CombatLogNames" if interests.user_messages => true,
            _ => visitor.wants_string_table(name),
        }
    }

    /// Replaces string tables with a snapshot (`CDemoStringTables`, alone or
    /// in a full packet). Only entries that differ from what the table held
    /// count as changed: a full packet repeats tables the delta stream has
    /// already built, and an unchanged `instancebaseline` entry keeps its
    /// decoded baseline.
    fn apply_string_table_snapshot<V: Visitor>(
        &mut self,
        tables: Vec<crate::wire::SnapshotTable<'_>>,
        visitor: &mut V,
        interests: Interests,
    ) {
        for t in tables {
            let idx = match self
                .state
                .string_tables
                .iter()
                .position(|s| s.name == t.name)
            {
                Some(i) => i,
                None => {
                    if self.state.string_tables.len() >= MAX_STRING_TABLES {
                        continue;
                    }
                    let skipped = !Self::decodes_string_table(t.name, interests, visitor);
                    self.state.string_tables.push(StringTable {
                        name: t.name.to_string(),
                        flags: t.flags.unwrap_or(0),
                        skipped,
                        ..Default::default()
                    });
                    self.state.string_tables.len() - 1
                }
            };
            let Some(table) = self.state.string_tables.get_mut(idx) else {
                continue;
            };
            if table.skipped {
                continue;
            }
            // The snapshot replaces the entries; only those that differ are
            // written (and reported), the others keep their memory.
            let mut changed = Vec::new();
            for (i, &(key, value)) in t.items.iter().enumerate() {
                match table.entries.get_mut(i) {
                    Some(e) if e.key == key && e.value == value => {}
                    Some(e) => {
                        e.key.clear();
                        e.key.push_str(key);
                        e.value.clear();
                        e.value.extend_from_slice(value);
                        changed.push(i);
                    }
                    None => {
                        table.entries.push(StringTableEntry {
                            key: key.to_string(),
                            value: value.to_vec(),
                        });
                        changed.push(i);
                    }
                }
            }
            table.entries.truncate(t.items.len());
            if !changed.is_empty() {
                self.after_string_table_change(idx, &changed, visitor);
            }
        }
    }

    fn after_string_table_change<V: Visitor>(
        &mut self,
        idx: usize,
        changed: &[usize],
        visitor: &mut V,
    ) {
        let Some(table) = self.state.string_tables.get(idx) else {
            return;
        };
        match table.name.as_str() {
            "instancebaseline" => {
                // Baselines are decoded lazily; drop stale cached ones.
                for &i in changed {
                    if let Some(e) = table.entries.get(i) {
                        if let Ok(class_id) = e.key.parse::<u32>() {
                            self.state.entities.baseline_cache.remove(&class_id);
                        }
                    }
                }
            }
            "userinfo" => {
                let mut players = Vec::new();
                let mut warnings = Vec::new();
                for &i in changed {
                    let Some(e) = table.entries.get(i) else {
                        continue;
                    };
                    if e.value.is_empty() {
                        players.push((i, None));
                        continue;
                    }
                    match pb::CMsgPlayerInfo::decode(e.value.as_slice()) {
                        Ok(p) => players.push((
                            i,
                            Some(PlayerInfo {
                                slot: i,
                                name: p.name.unwrap_or_default(),
                                steamid: p.xuid.unwrap_or(0),
                                userid: p.userid.unwrap_or(-1),
                                fake_player: p.fakeplayer.unwrap_or(false),
                                is_hltv: p.ishltv.unwrap_or(false),
                            }),
                        )),
                        Err(err) => {
                            players.push((i, None));
                            warnings.push(format!("userinfo entry {i}: {err}"));
                        }
                    }
                }
                for w in warnings {
                    self.state.warn(w);
                }
                for (slot, p) in players {
                    match p {
                        Some(p) => {
                            self.state.players.insert(slot, p);
                        }
                        None => {
                            self.state.players.remove(&slot);
                        }
                    }
                }
            }
            _ => {}
        }
        if let Some(table) = self.state.string_tables.get(idx) {
            visitor.on_string_table(&self.state, table, changed);
        }
    }

    fn handle_packet<V: Visitor>(
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

    fn handle_message<V: Visitor>(
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
                        table: format!("#{id}"),
                        message: "update for a table that does not exist".into(),
                    }));
                };
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
            }
            55 => {
                if !interests.entities || skip_entities {
                    return Ok(());
                }
                let m = crate::wire::PacketEntitiesView::parse(body.bytes())
                    .map_err(|k| self.err(k))?;
                self.packet_entities(m, visitor)?;
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
                    Err(msg) => self.state.warn(msg),
                }
            }
            205 => {
                if !interests.game_events {
                    return Ok(());
                }
                // Read straight into descriptors (no generated structs).
                let decode = crate::wire::game_event_list;
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
                    Err(msg) => self.state.warn(msg),
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

    fn entity_error(
        &self,
        index: i32,
        class_id: Option<u32>,
        path: String,
        message: String,
    ) -> DemoError {
        let class = class_id
            .and_then(|c| self.state.classes.get(c as usize))
            .map(|c| c.name.clone())
            .unwrap_or_else(|| "?".into());
        self.err(ErrorKind::Entity {
            entity: index,
            class,
            path,
            message,
        })
    }

    /// Whether entities of `class_id` are decoded: [`Visitor::wants_class`],
    /// asked once per class.
    fn class_decoded<V: Visitor>(&mut self, class_id: u32, visitor: &V) -> bool {
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
    fn baseline_for(
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
                decoded.map_err(|(fp, msg)| {
                    let path = describe_path(&tables, serializer, None, fp);
                    self.entity_error(-1, Some(class_id), path, format!("baseline: {msg}"))
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

    fn packet_entities<V: Visitor>(
        &mut self,
        m: crate::wire::PacketEntitiesView<'_>,
        visitor: &mut V,
    ) -> Result<(), DemoError> {
        self.finish_send_tables(true)?;
        if self.state.send_tables.is_none() {
            return Err(self.err(ErrorKind::SendTables(
                "entity data before the send tables".into(),
            )));
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
        let result = (|| -> Result<(), DemoError> {
            for _ in 0..count {
                let hdr = |e| ErrorKind::bits("entity header", e);
                let delta = r.read_ubitvar().map_err(|e| self.err(hdr(e)))?;
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
                if cmd & 1 == 0 {
                    if cmd & 2 != 0 {
                        let class_id =
                            r.read_bits(self.state.class_id_bits)
                                .map_err(|e| self.err(hdr(e)))? as u32;
                        let serial =
                            r.read_bits(crate::entity::SERIAL_BITS)
                                .map_err(|e| self.err(hdr(e)))? as u32;
                        r.read_varuint32().map_err(|e| self.err(hdr(e)))?;
                        let Some(serializer) = self
                            .state
                            .classes
                            .get(class_id as usize)
                            .and_then(|c| c.serializer)
                        else {
                            return Err(self.entity_error(
                                index as i32,
                                Some(class_id),
                                String::new(),
                                format!("create with unknown class id {class_id}"),
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
                        let tables = self
                            .state
                            .send_tables
                            .as_ref()
                            .ok_or_else(|| self.err(ErrorKind::SendTables("missing".into())))?;
                        let ti = self.state.tick_interval;
                        let (p, st) = (&mut paths, &mut state);
                        let read =
                            read_or_skip_fields(decoded, tables, serializer, st, &mut r, p, ti);
                        if let Err((fp, msg)) = read {
                            let path = describe_path(tables, serializer, None, fp);
                            return Err(self.entity_error(index as i32, Some(class_id), path, msg));
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
                        if has_vis_bits && r.read_bits(2).map_err(|e| self.err(hdr(e)))? & 1 == 1 {
                            continue;
                        }
                        let tick_interval = self.state.tick_interval;
                        let Some(tables) = self.state.send_tables.as_ref() else {
                            return Err(self.err(ErrorKind::SendTables("missing".into())));
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
                                String::new(),
                                "update of an entity that does not exist".into(),
                            ));
                        };
                        entity.active = true;
                        let serializer = entity.serializer;
                        let decoded = entity.decoded;
                        if let Err((fp, msg)) = read_or_skip_fields(
                            decoded,
                            tables,
                            serializer,
                            &mut entity.state,
                            &mut r,
                            &mut paths,
                            tick_interval,
                        ) {
                            let class_id = entity.class_id;
                            let path = describe_path(tables, serializer, Some(entity), fp);
                            return Err(self.entity_error(index as i32, Some(class_id), path, msg));
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
            Ok(())
        })();
        self.paths = paths;
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

/// Reads a demo file into memory and parses it with a visitor; see
/// [`parse_with`].
pub fn parse_file<V: Visitor>(
    path: impl AsRef<std::path::Path>,
    visitor: &mut V,
) -> Result<(DemoState, Option<DemoError>), DemoError> {
    let path = path.as_ref();
    let data = std::fs::read(path).map_err(|e| DemoError {
        kind: ErrorKind::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        },
        location: Location {
            byte_offset: 0,
            frame: 0,
            tick: -1,
        },
    })?;
    parse_with(&data, visitor)
}

/// The body of one packet message, as [`DemoParser::handle_message`] gets
/// it: a slice of the packet when it starts on a byte boundary; otherwise
/// copied (shifted) into the parser's scratch buffer, lent to it for the
/// message, the first time a handler asks for it, so a message that is
/// skipped costs no copy.
enum MessageBody<'a> {
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
    fn bytes(&mut self) -> &[u8] {
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
