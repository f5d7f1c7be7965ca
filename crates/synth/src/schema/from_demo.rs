//! A [`Schema`] read from a real CS2 demo: what its signon declares.
//!
//! A demo declares its schema before its first tick
//! (`docs/formats/source2-demo.md`, "File layout"):
//!
//! - the `DEM_FileHeader` frame: a `CDemoFileHeader` (network protocol,
//!   build number, game directory, map and server names);
//! - the `DEM_SignonPacket` frames: packets of messages, among them
//!   `svc_ServerInfo` (message 40: the class count that sizes class ids,
//!   the tick interval, the map) and `svc_GameEventList` (message 205:
//!   every game event's id, name and typed keys);
//! - the `DEM_SendTables` frame: a `CDemoSendTables` whose `data` is a
//!   varuint32 length and a `CSVCMsg_FlattenedSerializer` (the symbol
//!   table, the fields and the serializers);
//! - the `DEM_ClassInfo` frame: a `CDemoClassInfo`, each class's id and
//!   network name.
//!
//! [`from_demo`] reads the frames up to the first `DEM_Packet` or
//! `DEM_FullPacket` and keeps these five messages as they were sent.

use gamewire_source2::container::{DemoCommand, FrameReader};
use gamewire_source2::packet_writer::PacketMessages;
use prost::Message;
use source2_demo_protobufs as pb;

use super::Schema;
use crate::error::{SynthError, SynthErrorKind};

/// `svc_ServerInfo`.
const SVC_SERVER_INFO: u32 = 40;
/// `GE_Source1LegacyGameEventList`.
const GAME_EVENT_LIST: u32 = 205;

/// Reads the schema a CS2 demo declares in its signon (see the module
/// documentation). Fails when the bytes are not a Source 2 demo, when a
/// message does not decode, or when the signon lacks one of the five
/// messages (the error names it).
pub fn from_demo(bytes: &[u8]) -> Result<Schema, SynthError> {
    let mut reader = FrameReader::new(bytes)?;
    let mut header = None;
    let mut server_info = None;
    let mut send_tables = None;
    let mut class_info = None;
    let mut game_events = None;
    let protobuf = |what: &'static str| move |e: prost::DecodeError| schema_error(what, e);
    while let Some(frame) = reader.next_frame()? {
        match frame.command {
            DemoCommand::FileHeader => {
                header = Some(
                    pb::CDemoFileHeader::decode(&*frame.payload)
                        .map_err(protobuf("CDemoFileHeader"))?,
                );
            }
            DemoCommand::SendTables => {
                let outer = pb::CDemoSendTables::decode(&*frame.payload)
                    .map_err(protobuf("CDemoSendTables"))?;
                let data = outer.data.unwrap_or_default();
                let body = gamewire_source2::serializer::demo_payload_message(&data)
                    .map_err(|k| schema_error("CDemoSendTables", k))?;
                send_tables = Some(
                    pb::CSvcMsgFlattenedSerializer::decode(body)
                        .map_err(protobuf("CSVCMsg_FlattenedSerializer"))?,
                );
            }
            DemoCommand::ClassInfo => {
                class_info = Some(
                    pb::CDemoClassInfo::decode(&*frame.payload)
                        .map_err(protobuf("CDemoClassInfo"))?,
                );
            }
            DemoCommand::SignonPacket => {
                let packet =
                    pb::CDemoPacket::decode(&*frame.payload).map_err(protobuf("CDemoPacket"))?;
                let data = packet.data.unwrap_or_default();
                for m in PacketMessages::new(&data) {
                    let m = m.map_err(|k| schema_error("signon packet", k))?;
                    match m.id {
                        SVC_SERVER_INFO => {
                            server_info = Some(
                                pb::CSvcMsgServerInfo::decode(&*m.body)
                                    .map_err(protobuf("CSVCMsg_ServerInfo"))?,
                            );
                        }
                        GAME_EVENT_LIST => {
                            game_events = Some(
                                pb::CMsgSource1LegacyGameEventList::decode(&*m.body)
                                    .map_err(protobuf("CMsgSource1LegacyGameEventList"))?,
                            );
                        }
                        _ => {}
                    }
                }
            }
            DemoCommand::Packet | DemoCommand::FullPacket | DemoCommand::Stop => break,
            _ => {}
        }
    }
    let missing = |what: &str| SynthError {
        kind: SynthErrorKind::Schema {
            what: what.to_string(),
            reason: "the demo's signon does not hold it".to_string(),
        },
    };
    Ok(Schema {
        header: header.ok_or_else(|| missing("CDemoFileHeader"))?,
        server_info: server_info.ok_or_else(|| missing("CSVCMsg_ServerInfo"))?,
        send_tables: send_tables.ok_or_else(|| missing("CSVCMsg_FlattenedSerializer"))?,
        class_info: class_info.ok_or_else(|| missing("CDemoClassInfo"))?,
        game_events: game_events.ok_or_else(|| missing("CMsgSource1LegacyGameEventList"))?,
    })
}

fn schema_error(what: &str, e: impl std::fmt::Display) -> SynthError {
    SynthError {
        kind: SynthErrorKind::Schema {
            what: what.to_string(),
            reason: format!("does not decode: {e}"),
        },
    }
}
