//! Connless messages: the server-browser protocol.
//!
//! A connless payload starts with an 8-byte id, `ff ff ff ff` and four ASCII
//! letters (`SERVERBROWSE_*` in 0.7.5 `mastersrv.h`). This module types the
//! server-info exchange fully and keeps the others by name:
//!
//! * `gie3` (request info): one packed int, the browser's token.
//! * `inf3` (info): token; version, name, hostname, map, game type (strings);
//!   flags, skill level, players, max players, clients, max clients (ints);
//!   then per client: name, clan, country, score, and 0 for a player, 1 for a
//!   spectator (0.7.5 `CServer::GenerateServerInfo`).

use serde::Serialize;

use crate::int::{Packer, Sanitize, UnpackError, UnpackWarning, Unpacker};

/// `SERVERBROWSE_GETINFO` of 0.7.
pub const GETINFO: [u8; 8] = *b"\xff\xff\xff\xffgie3";
/// `SERVERBROWSE_INFO` of 0.7.
pub const INFO: [u8; 8] = *b"\xff\xff\xff\xffinf3";

const OTHERS: [(&[u8; 8], &str); 9] = [
    (b"\xff\xff\xff\xffreq2", "request_list"),
    (b"\xff\xff\xff\xfflis2", "list"),
    (b"\xff\xff\xff\xffcou2", "request_count"),
    (b"\xff\xff\xff\xffsiz2", "count"),
    (b"\xff\xff\xff\xffbea2", "heartbeat"),
    (b"\xff\xff\xff\xfffw??", "forward_check"),
    (b"\xff\xff\xff\xfffw!!", "forward_response"),
    (b"\xff\xff\xff\xfffwok", "forward_ok"),
    (b"\xff\xff\xff\xfffwer", "forward_error"),
];

/// One client in a server info reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InfoClient {
    /// Name.
    pub name: String,
    /// Clan.
    pub clan: String,
    /// Country code.
    pub country: i32,
    /// Score.
    pub score: i32,
    /// 0 player, 1 spectator (bots: 2 in later versions).
    pub player_type: i32,
}

/// What a server tells a server browser (`inf3`), the reply to `gie3`.
///
/// Not to be confused with [`crate::msg::ServerInfo`], the system message a
/// server sends a connecting client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrowserInfo {
    /// The browser's token echoed back.
    pub token: i32,
    /// Game version.
    pub version: String,
    /// Server name.
    pub name: String,
    /// Host name.
    pub hostname: String,
    /// Map.
    pub map: String,
    /// Game type.
    pub game_type: String,
    /// Flags (1 password, 2 time score).
    pub flags: i32,
    /// Skill level 0..=2.
    pub skill_level: i32,
    /// Players in game.
    pub num_players: i32,
    /// Player slots.
    pub max_players: i32,
    /// Clients connected.
    pub num_clients: i32,
    /// Client slots.
    pub max_clients: i32,
    /// The clients.
    pub clients: Vec<InfoClient>,
}

/// A connless message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ConnlessMessage {
    /// `gie3`.
    RequestInfo {
        /// The browser's token.
        token: i32,
    },
    /// `inf3`.
    Info(BrowserInfo),
    /// Another known browser message, kept raw.
    Other {
        /// Its name.
        name: &'static str,
        /// The bytes after the id.
        #[serde(serialize_with = "crate::msg::hex_bytes")]
        data: Vec<u8>,
    },
}

/// Error decoding a connless message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConnlessError {
    /// The id is not one of the known ones.
    #[error("unknown connless message id {id:02x?}")]
    UnknownId {
        /// The first bytes.
        id: Vec<u8>,
    },
    /// A field did not unpack.
    #[error("connless message {name}: {source}")]
    Field {
        /// The message.
        name: &'static str,
        /// What went wrong.
        source: UnpackError,
    },
}

impl ConnlessMessage {
    /// Decodes a connless payload.
    pub fn decode(payload: &[u8]) -> Result<(Self, Vec<UnpackWarning>), ConnlessError> {
        let id = payload.get(..8).unwrap_or(payload);
        let mut u = Unpacker::new(payload.get(8..).unwrap_or(&[]));
        if id == GETINFO {
            let token = u.int("token").map_err(|source| ConnlessError::Field {
                name: "request_info",
                source,
            })?;
            u.finish();
            return Ok((ConnlessMessage::RequestInfo { token }, u.warnings));
        }
        if id == INFO {
            let info = read_info(&mut u).map_err(|source| ConnlessError::Field {
                name: "info",
                source,
            })?;
            u.finish();
            return Ok((ConnlessMessage::Info(info), u.warnings));
        }
        for (other, name) in OTHERS {
            if id == other.as_slice() {
                return Ok((
                    ConnlessMessage::Other {
                        name,
                        data: u.rest_bytes().to_vec(),
                    },
                    Vec::new(),
                ));
            }
        }
        Err(ConnlessError::UnknownId { id: id.to_vec() })
    }

    /// Encodes the payload (id first).
    pub fn encode(&self) -> Vec<u8> {
        let mut p = Packer::new();
        match self {
            ConnlessMessage::RequestInfo { token } => {
                p.raw(&GETINFO);
                p.int(*token);
            }
            ConnlessMessage::Info(i) => {
                p.raw(&INFO);
                p.int(i.token);
                for s in [&i.version, &i.name, &i.hostname, &i.map, &i.game_type] {
                    p.string(s);
                }
                for v in [
                    i.flags,
                    i.skill_level,
                    i.num_players,
                    i.max_players,
                    i.num_clients,
                    i.max_clients,
                ] {
                    p.int(v);
                }
                for c in &i.clients {
                    p.string(&c.name);
                    p.string(&c.clan);
                    p.int(c.country);
                    p.int(c.score);
                    p.int(c.player_type);
                }
            }
            ConnlessMessage::Other { name, data } => {
                if let Some((id, _)) = OTHERS.iter().find(|(_, n)| n == name) {
                    p.raw(id.as_slice());
                }
                p.raw(data);
            }
        }
        p.buf
    }
}

fn read_info(u: &mut Unpacker<'_>) -> Result<BrowserInfo, UnpackError> {
    let s = Sanitize::Strict;
    let mut info = BrowserInfo {
        token: u.int("token")?,
        version: u.string("version", s)?,
        name: u.string("name", s)?,
        hostname: u.string("hostname", s)?,
        map: u.string("map", s)?,
        game_type: u.string("game_type", s)?,
        flags: u.int("flags")?,
        skill_level: u.int("skill_level")?,
        num_players: u.int("num_players")?,
        max_players: u.int("max_players")?,
        num_clients: u.int("num_clients")?,
        max_clients: u.int("max_clients")?,
        clients: Vec::new(),
    };
    // At most one entry per client slot (MAX_CLIENTS = 64).
    while !u.is_empty() && info.clients.len() < 64 {
        info.clients.push(InfoClient {
            name: u.string("client name", s)?,
            clan: u.string("client clan", s)?,
            country: u.int("client country")?,
            score: u.int("client score")?,
            player_type: u.int("client player type")?,
        });
    }
    Ok(info)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn info_roundtrip() {
        let m = ConnlessMessage::Info(BrowserInfo {
            token: 5,
            version: "0.7.5".into(),
            name: "srv".into(),
            hostname: String::new(),
            map: "dm1".into(),
            game_type: "DM".into(),
            flags: 0,
            skill_level: 1,
            num_players: 1,
            max_players: 8,
            num_clients: 1,
            max_clients: 8,
            clients: vec![InfoClient {
                name: "tee".into(),
                clan: String::new(),
                country: -1,
                score: 3,
                player_type: 0,
            }],
        });
        let b = m.encode();
        assert_eq!(ConnlessMessage::decode(&b).unwrap().0, m);
        let r = ConnlessMessage::RequestInfo { token: 5 };
        assert_eq!(r.encode(), b"\xff\xff\xff\xffgie3\x05");
    }
}
