//! What a caller sees of a parse: the [`Visitor`] the parser reports to,
//! the [`Interests`] that tell it what to decode and what to skip, and the
//! user messages (Valve's `usermessages.proto`, the games' own
//! `cstrike15_usermessages.proto`, `dota_usermessages.proto`,
//! `citadel_usermessages.proto`) it hands over undecoded.

use prost::Message;
use source2_demo_protobufs as pb;

use crate::entity::{Entity, EntityChange};
use crate::fieldpath::FieldPath;
use crate::gameevent::GameEvent;
use crate::messages::{Game, MessageKind};
use crate::state::DemoState;
use crate::stringtable::StringTable;
use crate::usercmd::UserCommand;

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
    pub fn to_json(&self) -> Option<Result<serde_json::Value, crate::error::MessageJsonError>> {
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
    /// A `PacketEntities` message is about to be applied: `state` is the
    /// state right before it (what [`crate::entity_writer`] decodes it
    /// against), `body` its protobuf bytes. `applied` is false for the
    /// packet of a `DEM_FullPacket` whose entities the parser skips
    /// (they exist already: the delta stream keeps them).
    fn before_packet_entities(&mut self, _state: &DemoState, _body: &[u8], _applied: bool) {}
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
