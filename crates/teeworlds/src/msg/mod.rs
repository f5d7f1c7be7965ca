//! System and game messages.
//!
//! # Message id (teeworlds 0.7.5 `CMsgPacker`; `docs/formats/teeworlds-0.7.md`)
//! Every chunk starts with a packed int `(id << 1) | system`; system messages
//! are the engine's (`NETMSG_*`), game messages the mod's (`NETMSGTYPE_*`).
//! Game ids above 31 need two bytes.
//!
//! Id 0 (`NETMSG_EX` / `NETMSGTYPE_EX` in DDNet, system or game) is followed
//! by a 16-byte UUID naming an extended message; DDNet's 0.7 mode sends a few
//! of them. They are kept as [`Message::Ex`] with their raw body.
//!
//! # Checks
//! Game message fields are range-checked like the generated
//! `SecureUnpackMsg` of 0.7.5 does (a failing check rejects the message);
//! strings are sanitized as `NetString` / `NetStringStrict` do. System
//! messages are read the way the engine's hand-written code reads them.
//! Bytes after the last field are allowed and reported as a warning.

mod custom;
mod generated_messages;
mod generated_objects;

pub use custom::*;
pub use generated_messages::*;
pub use generated_objects::*;

use serde::Serialize;

use crate::int::{Packer, UnpackError, UnpackWarning, Unpacker};

/// A decoded message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Message {
    /// A system message.
    System(SystemMessage),
    /// A game message.
    Game(GameMessage),
    /// A UUID-keyed extended message (id 0, system or game, DDNet).
    Ex {
        /// System flag.
        system: bool,
        /// The UUID.
        #[serde(serialize_with = "hex_bytes")]
        uuid: [u8; 16],
        /// The body.
        #[serde(serialize_with = "hex_bytes")]
        data: Vec<u8>,
    },
    /// An id this crate does not know.
    Unknown {
        /// System flag.
        system: bool,
        /// The id.
        id: i32,
        /// The body.
        #[serde(serialize_with = "hex_bytes")]
        data: Vec<u8>,
    },
}

/// Error decoding a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MessageError {
    /// The message id could not be read.
    #[error("reading the message id failed: {0}")]
    Id(UnpackError),
    /// A negative message id.
    #[error("message id {raw} is negative")]
    NegativeId {
        /// The raw packed value.
        raw: i32,
    },
    /// The body did not unpack.
    #[error("{kind} message {name} (id {id}): {source}")]
    Body {
        /// "system" or "game".
        kind: &'static str,
        /// Message name, if known.
        name: &'static str,
        /// The id.
        id: i32,
        /// What went wrong.
        source: UnpackError,
    },
}

/// The name of a system message id, if known.
pub fn system_name(id: i32) -> &'static str {
    let mut u = Unpacker::new(&[]);
    match SystemMessage::unpack(id, &mut u) {
        Ok(Some(m)) => m.name(),
        _ => match id {
            20 => Input::NAME,
            _ => "unknown",
        },
    }
}

impl Message {
    /// Decodes a chunk payload (message id first).
    pub fn decode(data: &[u8]) -> Result<(Message, Vec<UnpackWarning>), MessageError> {
        let mut u = Unpacker::new(data);
        let raw = u.int("message id").map_err(MessageError::Id)?;
        if raw < 0 {
            return Err(MessageError::NegativeId { raw });
        }
        let system = raw & 1 != 0;
        let id = raw >> 1;
        if id == 0 {
            let uuid_bytes = u.raw("uuid", 16).map_err(|source| MessageError::Body {
                kind: if system { "system" } else { "game" },
                name: "ex",
                id,
                source,
            })?;
            let mut uuid = [0u8; 16];
            uuid.copy_from_slice(uuid_bytes);
            return Ok((
                Message::Ex {
                    system,
                    uuid,
                    data: u.rest_bytes().to_vec(),
                },
                u.warnings,
            ));
        }
        let result = if system {
            SystemMessage::unpack(id, &mut u).map(|m| m.map(Message::System))
        } else {
            GameMessage::unpack(id, &mut u).map(|m| m.map(Message::Game))
        };
        let kind = if system { "system" } else { "game" };
        match result {
            Ok(Some(m)) => {
                u.finish();
                Ok((m, u.warnings))
            }
            Ok(None) => Ok((
                Message::Unknown {
                    system,
                    id,
                    data: u.rest_bytes().to_vec(),
                },
                u.warnings,
            )),
            Err(source) => {
                let name = if system {
                    system_name(id)
                } else {
                    game_name(id)
                };
                Err(MessageError::Body {
                    kind,
                    name,
                    id,
                    source,
                })
            }
        }
    }

    /// Encodes id and body.
    pub fn encode(&self) -> Vec<u8> {
        let mut p = Packer::new();
        match self {
            Message::System(m) => {
                p.int((m.id() << 1) | 1);
                m.pack(&mut p);
            }
            Message::Game(m) => {
                p.int(m.id() << 1);
                m.pack(&mut p);
            }
            Message::Ex { system, uuid, data } => {
                p.int(i32::from(*system));
                p.raw(uuid);
                p.raw(data);
            }
            Message::Unknown { system, id, data } => {
                p.int((id << 1) | i32::from(*system));
                p.raw(data);
            }
        }
        p.buf
    }

    /// A short name, e.g. `sv_chat`.
    pub fn name(&self) -> &'static str {
        match self {
            Message::System(m) => m.name(),
            Message::Game(m) => m.name(),
            Message::Ex { .. } => "ex",
            Message::Unknown { .. } => "unknown",
        }
    }
}

/// The name of a game message id, if known.
pub fn game_name(id: i32) -> &'static str {
    GAME_NAMES
        .get(usize::try_from(id).unwrap_or(0))
        .copied()
        .unwrap_or("unknown")
}

const GAME_NAMES: [&str; 40] = [
    "invalid",
    "sv_motd",
    "sv_broadcast",
    "sv_chat",
    "sv_team",
    "sv_kill_msg",
    "sv_tune_params",
    "sv_extra_projectile",
    "sv_ready_to_enter",
    "sv_weapon_pickup",
    "sv_emoticon",
    "sv_vote_clear_options",
    "sv_vote_option_list_add",
    "sv_vote_option_add",
    "sv_vote_option_remove",
    "sv_vote_set",
    "sv_vote_status",
    "sv_server_settings",
    "sv_client_info",
    "sv_game_info",
    "sv_client_drop",
    "sv_game_msg",
    "de_client_enter",
    "de_client_leave",
    "cl_say",
    "cl_set_team",
    "cl_set_spectator_mode",
    "cl_start_info",
    "cl_kill",
    "cl_ready_change",
    "cl_emoticon",
    "cl_vote",
    "cl_call_vote",
    "sv_skin_change",
    "cl_skin_change",
    "sv_race_finish",
    "sv_checkpoint",
    "sv_command_info",
    "sv_command_info_remove",
    "cl_command",
];

/// Turns a string into the int array encoding used in snapshot objects
/// (`StrToInts`: 4 bytes per int, big-endian, each byte offset by 128, the
/// last byte of the array zero).
pub fn str_to_ints(s: &str, out: &mut [i32]) {
    let bytes = s.as_bytes();
    let cap = (out.len() * 4).saturating_sub(1);
    for (i, slot) in out.iter_mut().enumerate() {
        let mut b = [0u8; 4];
        for (j, x) in b.iter_mut().enumerate() {
            let k = i * 4 + j;
            *x = if k < cap {
                bytes.get(k).copied().unwrap_or(0)
            } else {
                0
            };
        }
        *slot = i32::from_be_bytes([
            b[0].wrapping_add(128),
            b[1].wrapping_add(128),
            b[2].wrapping_add(128),
            b[3].wrapping_add(128),
        ]);
    }
    if let Some(last) = out.last_mut() {
        // The final byte is the terminator: 0 + 128 would not be 0, so clear it.
        *last = ((*last as u32) & 0xffff_ff00) as i32;
    }
}

/// Reverses [`str_to_ints`] (`IntsToStr`), stopping at the first NUL.
pub fn ints_to_str(ints: &[i32]) -> String {
    let mut bytes = Vec::with_capacity(ints.len() * 4);
    for &v in ints {
        for b in v.to_be_bytes() {
            bytes.push(b.wrapping_sub(128));
        }
    }
    if let Some(last) = bytes.last_mut() {
        *last = 0;
    }
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(bytes.get(..end).unwrap_or(&[])).into_owned()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn example_skin_change_id() {
        // "84 01" after the chunk header is game message 34 (cl_skin_change).
        let mut u = Unpacker::new(&[0x84, 0x01]);
        assert_eq!(u.int("id").unwrap(), 68);
        assert_eq!(game_name(68 >> 1), "cl_skin_change");
    }

    #[test]
    fn chat_roundtrip_and_range_check() {
        let m = Message::Game(GameMessage::ClSay(ClSay {
            mode: chat::ALL,
            target: -1,
            message: "hello".into(),
        }));
        let bytes = m.encode();
        assert_eq!(bytes[0], 24 << 1);
        assert_eq!(Message::decode(&bytes).unwrap().0, m);
        let bad = Message::Game(GameMessage::ClSay(ClSay {
            mode: 9,
            target: -1,
            message: "x".into(),
        }))
        .encode();
        assert!(matches!(
            Message::decode(&bad),
            Err(MessageError::Body {
                source: UnpackError::Range { field: "mode", .. },
                ..
            })
        ));
    }

    #[test]
    fn string_ints() {
        let mut a = [0i32; 4];
        str_to_ints("nameless tee", &mut a);
        assert_eq!(ints_to_str(&a), "nameless tee");
        str_to_ints("a very long name indeed", &mut a);
        assert_eq!(ints_to_str(&a), "a very long nam");
    }
}
