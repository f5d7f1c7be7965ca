//! What a demo declares before its first tick: the server's description,
//! the send tables (flattened serializers), the class list and the
//! game-event descriptors. The emitter writes these in the signon and
//! encodes every entity and event against them.
//!
//! A schema is either built in (the classes and fields the analyst tables
//! use, named and typed as CS2 names and types them) or read from a real
//! CS2 demo, so that a synthesized demo carries that game build's schema.

pub mod builtin;

use source2_demo_protobufs as pb;

mod from_demo;

pub use from_demo::from_demo;

/// The declarations a synthesized demo carries.
#[derive(Debug, Clone)]
pub struct Schema {
    /// The file header's fields (`network_protocol`, `game_directory`,
    /// `build_num`, ...); map and server names are overwritten from the
    /// scenario.
    pub header: pb::CDemoFileHeader,
    /// `svc_ServerInfo`: max classes, tick interval, map, game directory.
    pub server_info: pb::CSvcMsgServerInfo,
    /// `DEM_SendTables`: its `data` is a `CSVCMsg_FlattenedSerializer`.
    pub send_tables: pb::CSvcMsgFlattenedSerializer,
    /// `DEM_ClassInfo`: class id, network name, table name.
    pub class_info: pb::CDemoClassInfo,
    /// `svc_GameEventList` (`CMsgSource1LegacyGameEventList`).
    pub game_events: pb::CMsgSource1LegacyGameEventList,
}
