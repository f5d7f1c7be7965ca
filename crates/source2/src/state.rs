//! What the parser knows at a point in a demo ([`DemoState`]): the header
//! and file info (`CDemoFileHeader`, `CDemoFileInfo` of Valve's
//! `demo.proto`), the server info, classes and send tables, the string
//! tables and the players of `userinfo`, the entities, the game-event
//! descriptors, the user commands and the counts of what was read.

use std::collections::BTreeMap;
use std::sync::Arc;

use source2_demo_protobufs as pb;

use crate::entity::{Entity, EntityList};
use crate::error::Warning;
use crate::messages::Game;
use crate::serializer::{SendTables, SerializerId};
use crate::stringtable::StringTable;
use crate::usercmd::UserCommand;

/// A player as the `userinfo` string table lists them (one entry per slot,
/// bots and the SourceTV client included).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UserInfo {
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
    /// them, see [`crate::DemoParser::with_helper_thread`], callbacks during the signon may still
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
    pub players: BTreeMap<usize, UserInfo>,
    /// Current tick (frame tick; -1 before the first).
    pub tick: i32,
    /// The `net_Tick` of the current packet.
    pub net_tick: u32,
    /// Frames read.
    pub frames: u64,
    /// Frame counts by command name (filled in when [`crate::DemoParser::run`]
    /// returns, not during the parse).
    pub command_counts: BTreeMap<String, u64>,
    /// Message counts by name (filled in when [`crate::DemoParser::run`] returns,
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
    /// [`crate::Interests::user_commands`]); view angles and buttons a command
    /// does not send keep the previous command's. Read it through
    /// [`DemoState::user_command_of`].
    pub user_commands: BTreeMap<u32, UserCommand>,
    pub(crate) full_packets_applied: u64,
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

    pub(crate) fn warn(&mut self, message: String) {
        if self.warnings.len() < 1000 {
            self.warnings.push(Warning {
                tick: self.tick,
                message,
            });
        }
    }
}
