//! Anonymizing a demo: every player's name (bots included), steam id,
//! account id and xuid replaced by keyed pseudonyms
//! ([`crate::edit::pseudonym`]), chat text and voice data dropped,
//! everything else kept.
//!
//! # Where a player's identity is written
//!
//! Found by taking each player's name and steam id from `userinfo` and
//! looking for them in the decompressed payload of every frame, at every
//! bit offset (strings and numbers inside entity data and string-table
//! entries are bit-packed, so they rarely start on a byte boundary), in the
//! forms: the name's bytes; the steam id in decimal, as 64 bits
//! little-endian and as a protobuf varint; the account id (the steam id's
//! low 32 bits) as 32 bits little-endian, as a varint and in decimal.
//! Each hit was attributed to its frame and message, and entity hits to
//! their field by decoding the entities. On the corpus (CS2 ×5, all
//! listen-server recordings with bots; Deadlock: a clip and two HTTP
//! broadcasts of 12 players each; Dota 2 with bots):
//!
//! | where | field | form | games |
//! |---|---|---|---|
//! | `userinfo` string table (`svc_CreateStringTable`, `svc_UpdateStringTable`, `DEM_StringTables`, the tables of `DEM_FullPacket`) | each value, a `CMsgPlayerInfo`: `name`, `xuid`, `steamid` | protobuf string; fixed64 | all |
//! | `instancebaseline` string table (same messages) | the player controller's baseline: `m_iszPlayerName`, `m_steamID` | cstring; 64 bits | CS2, Dota 2 |
//! | `svc_PacketEntities` | `CCSPlayerController`, `CCitadelPlayerController`, `CDOTAPlayerController`: `m_iszPlayerName`, `m_steamID` | cstring; 64 bits or varint | all |
//! | `svc_PacketEntities` | `CCSGO_TeamSelect*Position.m_xuid`, `CCSGO_TeamIntro*Position.m_xuid` | varint (steam id) | CS2 |
//! | `svc_PacketEntities` | weapons' `m_OriginalOwnerXuidLow` (`CKnife`, `CC4`, `CWeaponGlock`, `CWeaponHKP2000`, `CWeaponP250`, `CWeaponAWP`, ...) | varint (account id) | CS2 |
//! | `svc_PacketEntities` | `CDOTA_PlayerResource.m_vecPlayerData.*.m_iszPlayerName`, `.m_iPlayerSteamID`; `CDOTA_DataRadiant.m_vecDataTeam.*.m_iPlayerSteamID` | cstring; steam id | Dota 2 |
//! | `svc_PacketEntities` | `CDOTAWearableItem.m_iAccountID` | varint (account id) | Dota 2 |
//! | `EconItems` string table | `CSOEconItem.account_id` of each item | varint (account id) | Dota 2 |
//! | `DEM_FileHeader` | `server_name` (a listen server is named after its host) | protobuf string | all |
//! | `svc_ServerInfo` | `host_name` (likewise) | protobuf string | all |
//! | `DEM_AnimationHeader` | 20 records holding the name and the steam id | bytes; 64 bits | CS2 (14011) |
//! | `GE_Source1LegacyGameEvent` | `player_death.attackername` | protobuf string (the key's `val_string`) | Deadlock (broadcast) |
//!
//! The search also finds, in the broadcasts, short or regular patterns
//! that are no player's: an account id's three varint bytes read 4 bits
//! into `svc_PacketEntities` protobuf headers, the same id's 32 bits
//! across two position floats, a name of five `-` across runs of equal
//! 8-bit `m_PredByteVariables` values (see the anonymize test, which
//! tells these from identities by how often chance gives them).
//!
//! Not in the corpus but of the same kinds: game events with a player's
//! name, `networkid` (`STEAM_1:y:z`, `[U:1:id]`) or xuid
//! (`player_connect`, `player_info`, `player_disconnect`), chat
//! (`SayText2`'s `param1`), CS2's end-of-match and rank messages (xuids as
//! fixed64 or varint), Dota 2's `CDemoFileInfo.game_info.dota.player_info`
//! (`player_name`, `steamid`).
//!
//! # How it is renamed
//!
//! Each value is renamed where the format says it is, decoded and encoded
//! again, so a pseudonym need not have the original's length and nothing
//! else is touched:
//!
//! - **Entity fields.** Every `svc_PacketEntities` is decoded into its
//!   records against the state right before it
//!   ([`crate::entity_writer::decode_packet_entities`], the state kept
//!   current by a [`DemoParser`] fed each frame), each
//!   field value renamed ([`Renamer::value`]), and the message encoded
//!   again ([`crate::entity_writer::encode_packet_entities`]) when a value
//!   changed; the other messages keep their original bytes. A string field
//!   holding a name, any integer field holding a known steam id, and a
//!   field named for an id (`xuid`, `steamid`, `accountid` in its name)
//!   holding a known account id are renamed.
//! - **Baselines.** An `instancebaseline` value is field data against its
//!   class's serializer (the key is the class id): read, renamed the same
//!   way and written again ([`rename_baseline`]).
//! - **String-table values.** `userinfo` (`CMsgPlayerInfo`) and
//!   `EconItems` (`CSOEconItem`) values, in `svc_CreateStringTable`,
//!   `svc_UpdateStringTable`, `DEM_StringTables` and the tables of
//!   `DEM_FullPacket`: the entry stream is read into its records
//!   ([`crate::stringtable_writer`]), each value (snappy-decompressed when
//!   it is) renamed as a protobuf message, and the stream written again,
//!   compressed again where it was.
//! - **Protobuf messages.** The file header, the file info and every other
//!   packet message (`svc_ServerInfo.host_name`, game events, user
//!   messages) are renamed field by field on the protobuf wire format,
//!   without their schema ([`Renamer::protobuf`]): a varint or fixed64
//!   equal to a known steam id, a varint equal to a known account id (not
//!   a fixed32: those are mostly floats, and no account id is sent so), a
//!   length-delimited field that reads as a message is
//!   renamed inside, else a UTF-8 text by [`Renamer::text`] (a name as a
//!   whole; names of three bytes or more and the ids' text forms inside
//!   longer text). A message that changes is written again with the new
//!   lengths; one that does not keeps its bytes.
//! - **Blobs gamewire does not model** (`DEM_AnimationHeader`, which holds
//!   the players' names and steam ids): replaced in place at any bit offset
//!   ([`Substituter`], [`patterns_for`]), names by a fake name of their own
//!   length (base32 characters from the same keyed hash: not the
//!   `Player-` pseudonym, which would not fit), ids by fake ids written in
//!   as many bytes as the real ones in every form
//!   ([`Pseudonyms::account_id`]), so nothing moves. A 32-bit account id
//!   matches unrelated bits by chance about once in 2^32 bit offsets, which
//!   is why this is used nowhere else.
//!
//! Pseudonyms ([`crate::edit::pseudonym`]): `Player-` and six base32
//! characters of a keyed hash of the steam id (of the name for bots), and
//! fake steam ids that keep the real ones' upper bits. The SourceTV client
//! (`ishltv`) is not a player and keeps its name.
//!
//! Players are learned as the demo goes, from `userinfo` (entries created,
//! updated, or restored by a `DEM_StringTables` snapshot) and from the game
//! events that introduce a player (`player_connect`, `player_info`,
//! `player_disconnect`: `name`, and `xuid`, `steamid` or `networkid`),
//! each frame before it is written, so a player is renamed from the frame
//! that first names them in either. Frames before the table and the
//! classes exist (the file header and the signon, which name the listen
//! server's host and hold the baselines) are held back until they do, at
//! most the signon. A name or id written in an
//! earlier frame than both (none in the corpus) would stay.
//!
//! # What is dropped
//!
//! Voice (`svc_VoiceData`, message 47) always; chat unless
//! [`AnonymizeOptions::keep_chat`]: the user messages `SayText`,
//! `SayText2` (and CS2's legacy ids of both), Dota 2's `ChatMessage`,
//! Deadlock's `ChatMsg`, and the game events `player_chat` and
//! `player_say`. A packet that loses or changes messages is written again
//! from its messages' bodies and its padding bits.
//!
//! ```no_run
//! use gamewire_source2::edit::anonymize::{anonymize, AnonymizeOptions};
//!
//! let input = std::fs::File::open("match.dem")?;
//! let output = std::fs::File::create("match.anon.dem")?;
//! // The same passphrase gives the same players the same pseudonyms in
//! // every demo; AnonymizeOptions::random() draws a key for this run only.
//! let options = AnonymizeOptions::from_passphrase("a long secret phrase");
//! let report = anonymize(std::io::BufReader::new(input), output, &options)?;
//! for w in &report.warnings {
//!     println!("{}", w.message);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{Read, Seek, Write};

use prost::Message;
use rustc_hash::FxHashMap;
use source2_demo_protobufs as pb;

use std::collections::VecDeque;

use gamewire_bits::{BitReader, BitWriter};

use super::frames::StreamFrame;
use super::pseudonym::{decimal_len, Pseudonyms};
use super::{EditReport, Flow, FrameEdit, FrameLoop, StateOnly, Step};
use crate::container::DemoCommand;
use crate::container_writer::DemoWriter;
use crate::entity::FieldState;
use crate::entity_writer::{decode_packet_entities, encode_packet_entities, EntityOp};
use crate::error::{DemoError, ErrorKind, Location, Warning};
use crate::fieldpath::{read_field_paths, FieldPath};
use crate::messages::Game;
use crate::packet_writer::{PacketMessages, PacketWriter};
use crate::serializer::{SendTables, SerializerId};
use crate::state::DemoState;
use crate::stringtable::StringTable;
use crate::stringtable_writer::{read_entry_stream, write_entry_stream, IndexStep};
use crate::value::Value;
use crate::visitor::message_name_in;
use crate::DemoParser;

/// What to anonymize with.
#[derive(Clone)]
pub struct AnonymizeOptions {
    /// The secret key of the pseudonyms: the same key gives the same
    /// player the same pseudonyms in every demo.
    pub key: [u8; 32],
    /// Keep chat messages (their names are still renamed).
    pub keep_chat: bool,
}

impl std::fmt::Debug for AnonymizeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnonymizeOptions")
            .field("key", &"..")
            .field("keep_chat", &self.keep_chat)
            .finish()
    }
}

impl AnonymizeOptions {
    /// A key derived from a passphrase (HMAC-SHA256 of it under a fixed
    /// label), chat dropped.
    pub fn from_passphrase(passphrase: &str) -> Self {
        use hmac::Mac;
        let key = match hmac::Hmac::<sha2::Sha256>::new_from_slice(b"gamewire anonymize key") {
            Ok(mut mac) => {
                mac.update(passphrase.as_bytes());
                mac.finalize().into_bytes().into()
            }
            // HMAC takes a key of any length.
            Err(_) => [0; 32],
        };
        AnonymizeOptions {
            key,
            keep_chat: false,
        }
    }

    /// A fresh random key from the operating system, chat dropped. A fixed
    /// default key would not do: anyone could hash every possible account
    /// id under it and reverse the pseudonyms.
    pub fn random() -> Result<Self, DemoError> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| DemoError {
            kind: ErrorKind::Unwritable {
                what: "random anonymization key",
                reason: e.to_string(),
            },
            location: Location {
                byte_offset: 0,
                frame: 0,
                tick: -1,
            },
        })?;
        Ok(AnonymizeOptions {
            key,
            keep_chat: false,
        })
    }

    /// The pseudonyms under this key.
    pub fn pseudonyms(&self) -> Pseudonyms {
        Pseudonyms::new(self.key)
    }
}

/// A player as `userinfo` names them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Identity {
    /// Name.
    pub name: String,
    /// 64-bit steam id (0 for bots).
    pub steamid: u64,
}

/// One in-place replacement: `find` becomes `replace` (same length).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// The original bytes.
    pub find: Vec<u8>,
    /// Their replacement.
    pub replace: Vec<u8>,
}

fn varint_bytes(mut v: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(10);
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

/// The byte patterns of a player's identity, and their replacements, for
/// the blobs gamewire does not model (`DEM_AnimationHeader`): the name
/// (five bytes or more anywhere, three or four as a cstring, any length
/// after its protobuf length byte) replaced by a fake name of the same
/// length ([`Pseudonyms::name_of_length`]); the steam id as 64 bits
/// little-endian, as a varint and in decimal, the account id as 32 bits
/// little-endian, as a varint (from three bytes) and in decimal (from six
/// digits). The fake ids are written in as many bytes as the real ones
/// ([`Pseudonyms::account_id`]), so everything is replaced bit for bit.
pub fn patterns_for(player: &Identity, pseudonyms: &Pseudonyms) -> Vec<Pattern> {
    let mut out = Vec::new();
    let name = player.name.as_bytes();
    let len = name.len();
    if (1..128).contains(&len) {
        let fake = pseudonyms.name_of_length(player.steamid, &player.name, len);
        let fake = fake.as_bytes();
        if len >= 5 {
            out.push(Pattern {
                find: name.to_vec(),
                replace: fake.to_vec(),
            });
        } else if len >= 3 {
            let mut find = name.to_vec();
            find.push(0);
            let mut replace = fake.to_vec();
            replace.push(0);
            out.push(Pattern { find, replace });
        }
        let mut find = vec![len as u8];
        find.extend_from_slice(name);
        let mut replace = vec![len as u8];
        replace.extend_from_slice(fake);
        out.push(Pattern { find, replace });
    }
    let s = player.steamid;
    // An account id below 2^16 is no real player's (they are counted from
    // 1 and now exceed 10^9), and too short a pattern to look for.
    if s as u32 >= 1 << 16 {
        let fs = pseudonyms.steamid(s);
        let a = s as u32;
        let fa = fs as u32;
        out.push(Pattern {
            find: s.to_le_bytes().to_vec(),
            replace: fs.to_le_bytes().to_vec(),
        });
        out.push(Pattern {
            find: varint_bytes(s),
            replace: varint_bytes(fs),
        });
        out.push(Pattern {
            find: s.to_string().into_bytes(),
            replace: fs.to_string().into_bytes(),
        });
        out.push(Pattern {
            find: a.to_le_bytes().to_vec(),
            replace: fa.to_le_bytes().to_vec(),
        });
        if a >= 1 << 14 {
            out.push(Pattern {
                find: varint_bytes(u64::from(a)),
                replace: varint_bytes(u64::from(fa)),
            });
        }
        if decimal_len(u64::from(a)) >= 6 {
            out.push(Pattern {
                find: a.to_string().into_bytes(),
                replace: fa.to_string().into_bytes(),
            });
        }
    }
    out.retain(|p| p.find != p.replace && p.find.len() == p.replace.len());
    out
}

/// Each known player's name, steam id and account id, and their
/// pseudonyms: what a value is renamed to.
#[derive(Debug, Clone, Default)]
pub struct Renamer {
    names: FxHashMap<String, String>,
    steamids: FxHashMap<u64, u64>,
    accounts: FxHashMap<u32, u32>,
    /// What is replaced inside longer text, longest first: names of three
    /// bytes or more, and the ids' text forms (decimal steam id,
    /// `[U:1:id]`, `STEAM_x:y:z`, decimal account id of six digits or
    /// more).
    in_text: Vec<(String, String)>,
}

impl Renamer {
    /// The renaming of these players under these pseudonyms.
    pub fn new<'a>(players: impl IntoIterator<Item = &'a Identity>, p: &Pseudonyms) -> Self {
        let mut r = Renamer::default();
        for pl in players {
            if !pl.name.is_empty() {
                let fake = p.name(pl.steamid, &pl.name);
                if pl.name.len() >= 3 {
                    r.in_text.push((pl.name.clone(), fake.clone()));
                }
                r.names.insert(pl.name.clone(), fake);
            }
            let s = pl.steamid;
            if s != 0 {
                let fs = p.steamid(s);
                let (a, fa) = (s as u32, fs as u32);
                r.steamids.insert(s, fs);
                if a != 0 {
                    r.accounts.insert(a, fa);
                }
                r.in_text.push((s.to_string(), fs.to_string()));
                r.in_text
                    .push((format!("[U:1:{a}]"), format!("[U:1:{fa}]")));
                for universe in 0..2 {
                    r.in_text.push((
                        format!("STEAM_{universe}:{}:{}", a & 1, a >> 1),
                        format!("STEAM_{universe}:{}:{}", fa & 1, fa >> 1),
                    ));
                }
                if decimal_len(u64::from(a)) >= 6 {
                    r.in_text.push((a.to_string(), fa.to_string()));
                }
            }
        }
        r.in_text
            .sort_by(|x, y| y.0.len().cmp(&x.0.len()).then(x.0.cmp(&y.0)));
        r.in_text.dedup_by(|x, y| x.0 == y.0);
        r
    }

    /// Whether no player is known.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && self.steamids.is_empty()
    }

    /// A text renamed: a known name as a whole becomes its pseudonym;
    /// inside longer text, names of three bytes or more and the ids' text
    /// forms are replaced (in one pass, so a replacement is never matched
    /// again). `None` when nothing changed.
    pub fn text(&self, s: &str) -> Option<String> {
        if let Some(n) = self.names.get(s) {
            return Some(n.clone());
        }
        let bytes = s.as_bytes();
        let mut out = String::new();
        let (mut i, mut last) = (0, 0);
        while i < bytes.len() {
            let rest = bytes.get(i..).unwrap_or_default();
            match self
                .in_text
                .iter()
                .find(|(f, _)| rest.starts_with(f.as_bytes()))
            {
                // A match starts where a character does: `f` starts with one.
                Some((f, r)) => {
                    out.push_str(s.get(last..i)?);
                    out.push_str(r);
                    i += f.len();
                    last = i;
                }
                None => i += 1,
            }
        }
        if last == 0 {
            return None;
        }
        out.push_str(s.get(last..)?);
        Some(out)
    }

    /// The fake steam id of a known one.
    pub fn steamid(&self, v: u64) -> Option<u64> {
        self.steamids.get(&v).copied()
    }

    /// The fake account id of a known one.
    pub fn account(&self, v: u32) -> Option<u32> {
        self.accounts.get(&v).copied()
    }

    /// A number that is a steam id, or an account id when `id_field`
    /// says the field holds one.
    fn number(&self, v: u64, id_field: impl FnOnce() -> bool) -> Option<u64> {
        if let Some(f) = self.steamid(v) {
            return Some(f);
        }
        let a = u32::try_from(v).ok()?;
        let f = self.account(a)?;
        id_field().then_some(u64::from(f))
    }

    /// An entity field's value renamed: strings by [`Renamer::text`], a
    /// known steam id in any integer field, a known account id in a field
    /// whose name says it holds one (`xuid`, `steamid`, `accountid`:
    /// `m_OriginalOwnerXuidLow`, `m_iAccountID`, ...). `name` gives the
    /// field's name, asked for only when needed.
    pub fn value(&self, v: &Value, name: impl FnOnce() -> Option<String>) -> Option<Value> {
        let id_field = || {
            name().is_some_and(|n| {
                let n = n.to_ascii_lowercase();
                ["xuid", "steamid", "accountid"]
                    .iter()
                    .any(|k| n.contains(k))
            })
        };
        match v {
            Value::String(s) => self.text(s).map(|t| Value::String(t.into())),
            Value::U64(x) => self.number(*x, id_field).map(Value::U64),
            Value::I64(x) => self
                .number(*x as u64, id_field)
                .map(|f| Value::I64(f as i64)),
            Value::U32(x) => self
                .number(u64::from(*x), id_field)
                .and_then(|f| u32::try_from(f).ok())
                .map(Value::U32),
            Value::I32(x) => self
                .number(u64::from(*x as u32), id_field)
                .and_then(|f| u32::try_from(f).ok())
                .map(|f| Value::I32(f as i32)),
            _ => None,
        }
    }

    /// A protobuf message renamed field by field, without its schema (see
    /// the module documentation): `None` when nothing changed or `msg` is
    /// not a whole protobuf message.
    pub fn protobuf(&self, msg: &[u8]) -> Option<Vec<u8>> {
        if self.is_empty() {
            return None;
        }
        self.walk(msg, 0).flatten()
    }

    /// `None`: not a message; `Some(None)`: a message, unchanged.
    fn walk(&self, msg: &[u8], depth: u32) -> Option<Option<Vec<u8>>> {
        let mut pos = 0;
        let mut out: Option<Vec<u8>> = None;
        let mut copied = 0;
        while pos < msg.len() {
            let key = read_varint(msg, &mut pos)?;
            if key >> 3 == 0 {
                return None;
            }
            let start = pos;
            let replacement = match key & 7 {
                0 => {
                    let v = read_varint(msg, &mut pos)?;
                    self.number(v, || true).map(varint_bytes)
                }
                1 => {
                    let b: [u8; 8] = msg.get(pos..pos.checked_add(8)?)?.try_into().ok()?;
                    pos += 8;
                    self.steamid(u64::from_le_bytes(b))
                        .map(|f| f.to_le_bytes().to_vec())
                }
                // 32 bits: floats mostly, which would match an account id
                // by chance about once in 2^32; no account id is written so.
                5 => {
                    pos = pos.checked_add(4)?;
                    msg.get(..pos)?;
                    None
                }
                2 => {
                    let len = usize::try_from(read_varint(msg, &mut pos)?).ok()?;
                    let end = pos.checked_add(len)?;
                    let sub = msg.get(pos..end)?;
                    pos = end;
                    self.len_field(sub, depth).map(|new| {
                        let mut v = varint_bytes(new.len() as u64);
                        v.extend_from_slice(&new);
                        v
                    })
                }
                _ => return None,
            };
            if let Some(rep) = replacement {
                let o = out.get_or_insert_with(|| Vec::with_capacity(msg.len() + 16));
                o.extend_from_slice(msg.get(copied..start)?);
                o.extend_from_slice(&rep);
                copied = pos;
            }
        }
        match out {
            Some(mut o) => {
                o.extend_from_slice(msg.get(copied..)?);
                Some(Some(o))
            }
            None => Some(None),
        }
    }

    /// A length-delimited field: a nested message if it reads as one and
    /// something in it changes, else text if it is UTF-8 without control
    /// bytes (a nested message that changes nothing is often valid UTF-8
    /// too, but starts with a control byte: its first key).
    fn len_field(&self, sub: &[u8], depth: u32) -> Option<Vec<u8>> {
        if depth < 8 && !sub.is_empty() {
            if let Some(r) = self.walk(sub, depth + 1) {
                if r.is_some() {
                    return r;
                }
                if sub
                    .iter()
                    .any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'))
                {
                    return None;
                }
            }
        }
        let s = std::str::from_utf8(sub).ok()?;
        self.text(s).map(String::into_bytes)
    }
}

fn read_varint(data: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for i in 0..10 {
        let b = *data.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn unwritable(what: &'static str, reason: impl std::fmt::Display) -> ErrorKind {
    ErrorKind::Unwritable {
        what,
        reason: reason.to_string(),
    }
}

/// The dotted name of a record's field, resolving array lengths and
/// pointer types from the record's earlier fields, then from `base`.
fn field_name(
    tables: &SendTables,
    serializer: SerializerId,
    fp: &FieldPath,
    fields: &[(FieldPath, Value)],
    base: Option<&FieldState>,
) -> Option<String> {
    tables.path_name(serializer, fp, |len| {
        let prefix = fp.as_slice().get(..len)?;
        fields
            .iter()
            .rev()
            .find(|(p, _)| p.as_slice() == prefix)
            .map(|(_, v)| v)
            .or_else(|| base.and_then(|b| b.get(prefix)))
            .and_then(Value::as_u64)
            .and_then(|v| u32::try_from(v).ok())
    })
}

/// Renames the values of one record's fields; how many changed.
fn rename_fields(
    renamer: &Renamer,
    tables: &SendTables,
    serializer: Option<SerializerId>,
    fields: &mut [(FieldPath, Value)],
    base: Option<&FieldState>,
) -> u64 {
    let mut n = 0;
    for i in 0..fields.len() {
        let new = {
            let Some((fp, v)) = fields.get(i) else { break };
            renamer.value(v, || {
                field_name(tables, serializer?, fp, fields.get(..i)?, base)
            })
        };
        if let (Some(new), Some(slot)) = (new, fields.get_mut(i)) {
            slot.1 = new;
            n += 1;
        }
    }
    n
}

/// One `svc_PacketEntities` body with its identity fields renamed, decoded
/// and encoded against the state right before it
/// ([`crate::entity_writer`]): the new body and how many values changed,
/// `None` when none did.
pub fn rename_packet_entities(
    body: &[u8],
    state: &DemoState,
    renamer: &Renamer,
) -> Result<Option<(Vec<u8>, u64)>, ErrorKind> {
    let tables = state
        .send_tables
        .as_deref()
        .ok_or_else(|| unwritable("svc_PacketEntities", "before the send tables"))?;
    let mut p = decode_packet_entities(body, state)?;
    let mut n = 0;
    for rec in &mut p.records {
        let existing = state.entities.get(rec.index);
        match &mut rec.op {
            EntityOp::Create {
                class_id, fields, ..
            } => {
                let serializer = state
                    .classes
                    .get(*class_id as usize)
                    .and_then(|c| c.serializer);
                let base = existing
                    .filter(|e| e.class_id == *class_id)
                    .map(|e| &e.state);
                n += rename_fields(renamer, tables, serializer, fields, base);
            }
            EntityOp::Update { fields, .. } => {
                n += rename_fields(
                    renamer,
                    tables,
                    existing.map(|e| e.serializer),
                    fields,
                    existing.map(|e| &e.state),
                );
            }
            EntityOp::Leave | EntityOp::Delete => {}
        }
    }
    if n == 0 {
        return Ok(None);
    }
    Ok(Some((encode_packet_entities(&p, state)?, n)))
}

/// One `instancebaseline` value (a class's baseline: field data as in an
/// entity create, against the class serializer) with its identity fields
/// renamed: the new value and how many values changed, `None` when none
/// did.
pub fn rename_baseline(
    data: &[u8],
    class_id: u32,
    state: &DemoState,
    renamer: &Renamer,
) -> Result<Option<(Vec<u8>, u64)>, ErrorKind> {
    let what = "instancebaseline value";
    let tables = state
        .send_tables
        .as_deref()
        .ok_or_else(|| unwritable(what, "before the send tables"))?;
    let serializer = state
        .classes
        .get(class_id as usize)
        .and_then(|c| c.serializer)
        .ok_or_else(|| unwritable(what, format!("class {class_id} has no serializer")))?;
    let mut r = BitReader::new(data);
    let mut paths = Vec::new();
    read_field_paths(&mut r, &mut paths).map_err(|e| unwritable(what, e))?;
    let mut fields: Vec<(FieldPath, Value)> = Vec::with_capacity(paths.len());
    let mut decoders = Vec::with_capacity(paths.len());
    for fp in &paths {
        let decoder = tables
            .resolve(serializer, fp, |len| {
                let prefix = fp.as_slice().get(..len)?;
                fields
                    .iter()
                    .rev()
                    .find(|(p, _)| p.as_slice() == prefix)
                    .and_then(|(_, v)| v.as_u64())
                    .and_then(|v| u32::try_from(v).ok())
            })
            .map_err(|e| unwritable(what, format!("class {class_id}, path {fp}: {e}")))?;
        let value = decoder
            .decode(&mut r, state.tick_interval)
            .map_err(|e| unwritable(what, format!("class {class_id}, path {fp}: {e}")))?;
        fields.push((*fp, value));
        decoders.push(decoder);
    }
    let n = rename_fields(renamer, tables, Some(serializer), &mut fields, None);
    if n == 0 {
        return Ok(None);
    }
    let mut w = BitWriter::new();
    crate::fieldpath_writer::write_field_paths(&mut w, &paths)?;
    for ((fp, value), decoder) in fields.iter().zip(decoders) {
        decoder
            .encode(&mut w, value, state.tick_interval)
            .map_err(|e| unwritable(what, format!("class {class_id}, path {fp}: {e}")))?;
    }
    Ok(Some((w.finish(), n)))
}

/// The visitor an anonymizing pass feeds its parser: the state, and each
/// `svc_PacketEntities` renamed against the state right before it.
struct EntityPass<'r> {
    renamer: &'r Renamer,
    /// Per message, in order: the renamed body (`None`: unchanged), or why
    /// it could not be renamed.
    bodies: VecDeque<Result<Option<Vec<u8>>, String>>,
    renamed: u64,
}

impl crate::Visitor for EntityPass<'_> {
    fn interests(&self) -> crate::Interests {
        StateOnly.interests()
    }

    fn before_packet_entities(&mut self, state: &DemoState, body: &[u8], _applied: bool) {
        if self.renamer.is_empty() {
            self.bodies.push_back(Ok(None));
            return;
        }
        let r = match rename_packet_entities(body, state, self.renamer) {
            Ok(Some((b, n))) => {
                self.renamed += n;
                Ok(Some(b))
            }
            Ok(None) => Ok(None),
            Err(e) => Err(e.to_string()),
        };
        self.bodies.push_back(r);
    }
}

/// The tables whose values name players.
const RENAMED_TABLES: &[&str] = &["userinfo", "EconItems", "instancebaseline"];
/// Replaces patterns at any bit offset of a buffer (bits least significant
/// first, as the demo's bit streams are read).
#[derive(Debug, Clone, Default)]
pub struct Substituter {
    /// Longest first.
    patterns: Vec<Pattern>,
    /// Patterns by their first two bytes.
    by_prefix: FxHashMap<u16, Vec<usize>>,
    /// Bit per two-byte prefix: whether any pattern starts with it.
    prefixes: Vec<u64>,
    view: Vec<u8>,
}

impl Substituter {
    /// A substituter for these patterns (duplicates dropped; patterns
    /// shorter than two bytes ignored).
    pub fn new(mut patterns: Vec<Pattern>) -> Self {
        patterns.retain(|p| p.find.len() >= 2 && p.find.len() == p.replace.len());
        patterns.sort_by(|a, b| b.find.len().cmp(&a.find.len()).then(a.find.cmp(&b.find)));
        patterns.dedup_by(|a, b| a.find == b.find);
        let mut by_prefix: FxHashMap<u16, Vec<usize>> = FxHashMap::default();
        let mut prefixes = vec![0u64; 1024];
        for (i, p) in patterns.iter().enumerate() {
            let (Some(&b0), Some(&b1)) = (p.find.first(), p.find.get(1)) else {
                continue;
            };
            let key = u16::from(b0) | (u16::from(b1) << 8);
            by_prefix.entry(key).or_default().push(i);
            if let Some(w) = prefixes.get_mut(usize::from(key >> 6)) {
                *w |= 1 << (key & 63);
            }
        }
        Substituter {
            patterns,
            by_prefix,
            prefixes,
            view: Vec::new(),
        }
    }

    /// The patterns, longest first.
    pub fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    /// Replaces every occurrence, at every bit offset; returns how many.
    pub fn apply(&mut self, data: &mut [u8]) -> usize {
        if self.patterns.is_empty() || data.len() < 2 {
            return 0;
        }
        let mut count = 0;
        let mut view = std::mem::take(&mut self.view);
        for shift in 0..8u32 {
            shifted_into(data, shift, &mut view);
            let mut i = 0;
            'pos: while i + 1 < view.len() {
                let (Some(&b0), Some(&b1)) = (view.get(i), view.get(i + 1)) else {
                    break;
                };
                let key = u16::from(b0) | (u16::from(b1) << 8);
                let word = self
                    .prefixes
                    .get(usize::from(key >> 6))
                    .copied()
                    .unwrap_or(0);
                if word & (1 << (key & 63)) != 0 {
                    if let Some(candidates) = self.by_prefix.get(&key) {
                        for &c in candidates {
                            let Some(p) = self.patterns.get(c) else {
                                continue;
                            };
                            let end = i + p.find.len();
                            if view.get(i..end) == Some(&p.find[..]) {
                                write_bytes_at(data, i as u64 * 8 + u64::from(shift), &p.replace);
                                if let Some(v) = view.get_mut(i..end) {
                                    v.copy_from_slice(&p.replace);
                                }
                                count += 1;
                                i = end;
                                continue 'pos;
                            }
                        }
                    }
                }
                i += 1;
            }
        }
        self.view = view;
        count
    }
}

/// The bytes of `data` read from bit `shift` on (one fewer when `shift` is
/// not 0).
fn shifted_into(data: &[u8], shift: u32, out: &mut Vec<u8>) {
    out.clear();
    if shift == 0 {
        out.extend_from_slice(data);
        return;
    }
    out.extend(
        data.windows(2)
            .map(|w| (w[0] >> shift) | (w[1] << (8 - shift))),
    );
}

/// Writes `bytes` into `data` from bit `offset` on.
fn write_bytes_at(data: &mut [u8], offset: u64, bytes: &[u8]) {
    for (j, &b) in bytes.iter().enumerate() {
        for k in 0..8u64 {
            let bit = offset + j as u64 * 8 + k;
            let Some(byte) = data.get_mut((bit / 8) as usize) else {
                return;
            };
            let mask = 1u8 << (bit % 8);
            if (b >> k) & 1 != 0 {
                *byte |= mask;
            } else {
                *byte &= !mask;
            }
        }
    }
}

/// The protobuf types of the chat user messages.
const CHAT_TYPES: &[&str] = &[
    "CUserMessageSayText",
    "CUserMessageSayText2",
    "CDotaUserMsgChatMessage",
    "CCitadelUserMsgChatMsg",
];

/// Game events that carry chat text.
const CHAT_EVENTS: &[&str] = &["player_chat", "player_say"];

/// Game events that introduce a player.
const PLAYER_EVENTS: &[&str] = &["player_connect", "player_info", "player_disconnect"];

/// The steam id of a `networkid`: `[U:1:id]` or `STEAM_x:y:z` (account id
/// `2z + y`).
fn parse_network_id(text: &str) -> Option<u64> {
    let account: u64 = if let Some(rest) = text.strip_prefix("[U:1:") {
        rest.strip_suffix(']')?.parse().ok()?
    } else {
        let rest = text.strip_prefix("STEAM_")?;
        let mut parts = rest.split(':').skip(1);
        let y: u64 = parts.next()?.parse().ok()?;
        let z: u64 = parts.next()?.parse().ok()?;
        z.checked_mul(2)?.checked_add(y)?
    };
    let account = u32::try_from(account).ok()?;
    Some(super::pseudonym::STEAM_ID64_BASE + u64::from(account))
}

/// `svc_VoiceData`.
const VOICE_DATA: u32 = 47;

/// The anonymizer's state while it goes through a demo.
#[derive(Debug)]
pub struct Anonymizer {
    pseudonyms: Pseudonyms,
    keep_chat: bool,
    game: Game,
    players: std::collections::BTreeSet<Identity>,
    renamer: Renamer,
    substituter: Substituter,
    /// The string tables' formats, by id (creation order).
    tables: Vec<StringTable>,
    /// Ids of the chat game events.
    chat_events: Vec<i32>,
    /// Key names of the game events that introduce a player, by event id.
    player_events: FxHashMap<i32, Vec<String>>,
    /// Values renamed (entity fields, string-table values, protobuf
    /// fields).
    pub renamed: u64,
    /// Renamed values by where they were: message or table.
    pub renamed_in: std::collections::BTreeMap<String, u64>,
    /// Ids replaced in place in blobs not modeled.
    pub replaced_in_place: u64,
    /// Messages dropped as chat.
    pub chat_dropped: u64,
    /// Messages dropped as voice.
    pub voice_dropped: u64,
    /// Messages kept as their original bytes.
    pub messages_kept: u64,
    warnings: Vec<Warning>,
}

/// The value of a protobuf field, located in a message.
struct FieldSpan {
    /// Where the field (its key) starts.
    start: usize,
    /// Where its length-delimited value starts and ends.
    value: std::ops::Range<usize>,
}

/// The last occurrence of length-delimited field `field` in a message.
fn find_len_field(msg: &[u8], field: u64) -> Option<FieldSpan> {
    let mut pos = 0;
    let mut found = None;
    while pos < msg.len() {
        let start = pos;
        let key = read_varint(msg, &mut pos)?;
        match key & 7 {
            0 => {
                read_varint(msg, &mut pos)?;
            }
            1 => pos += 8,
            5 => pos += 4,
            2 => {
                let len = usize::try_from(read_varint(msg, &mut pos)?).ok()?;
                let end = pos.checked_add(len)?;
                if end > msg.len() {
                    return None;
                }
                if key >> 3 == field {
                    found = Some(FieldSpan {
                        start,
                        value: pos..end,
                    });
                }
                pos = end;
            }
            _ => return None,
        }
    }
    (pos == msg.len()).then_some(found).flatten()
}

/// `msg` with the value of a length-delimited field replaced (the rest of
/// its bytes unchanged).
fn splice_len_field(msg: &[u8], span: &FieldSpan, field: u64, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(msg.len() + 8);
    out.extend_from_slice(msg.get(..span.start).unwrap_or_default());
    out.extend_from_slice(&varint_bytes((field << 3) | 2));
    out.extend_from_slice(&varint_bytes(value.len() as u64));
    out.extend_from_slice(value);
    out.extend_from_slice(msg.get(span.value.end..).unwrap_or_default());
    out
}

/// The format of a table created by this message.
fn format_of(c: &pb::CSvcMsgCreateStringTable) -> StringTable {
    StringTable {
        name: c.name().to_string(),
        user_data_fixed_size: c.user_data_fixed_size(),
        user_data_size_bits: c.user_data_size_bits().max(0) as u32,
        flags: c.flags(),
        using_varint_bitcounts: c.using_varint_bitcounts(),
        ..Default::default()
    }
}

impl Anonymizer {
    /// An anonymizer with these options, knowing no player yet.
    pub fn new(options: &AnonymizeOptions) -> Self {
        Anonymizer {
            pseudonyms: options.pseudonyms(),
            keep_chat: options.keep_chat,
            game: Game::Any,
            players: Default::default(),
            renamer: Renamer::default(),
            substituter: Substituter::default(),
            tables: Vec::new(),
            chat_events: Vec::new(),
            player_events: FxHashMap::default(),
            renamed: 0,
            renamed_in: Default::default(),
            replaced_in_place: 0,
            chat_dropped: 0,
            voice_dropped: 0,
            messages_kept: 0,
            warnings: Vec::new(),
        }
    }

    /// The players learned so far.
    pub fn players(&self) -> impl Iterator<Item = &Identity> {
        self.players.iter()
    }

    /// The renaming of the players learned so far.
    pub fn renamer(&self) -> &Renamer {
        &self.renamer
    }

    /// Whether the `userinfo` table has been seen.
    pub fn knows_userinfo(&self) -> bool {
        self.tables.iter().any(|t| t.name == "userinfo")
    }

    /// Counts `n` values renamed in `place`.
    fn count(&mut self, place: String, n: u64) {
        self.renamed += n;
        *self.renamed_in.entry(place).or_default() += n;
    }

    fn warn(&mut self, tick: i32, message: String) {
        if self.warnings.len() < 100 {
            self.warnings.push(Warning { tick, message });
        }
    }
    /// Learns a player from a `userinfo` value (`CMsgPlayerInfo`).
    pub fn learn_player_info(&mut self, value: &[u8]) {
        let Ok(info) = pb::CMsgPlayerInfo::decode(value) else {
            return;
        };
        if info.ishltv.unwrap_or(false) {
            return;
        }
        // A bot's xuid numbers its slot (account ids 1, 2, ...): no
        // identity, and far too short a pattern to look for.
        let steamid = if info.fakeplayer.unwrap_or(false) {
            0
        } else {
            match info.steamid.unwrap_or(0) {
                0 => info.xuid.unwrap_or(0),
                s => s,
            }
        };
        self.learn_identity(Identity {
            name: info.name.unwrap_or_default(),
            steamid,
        });
    }

    /// Learns a player from a game event that introduces one
    /// (`player_connect`, `player_info`, `player_disconnect`): its `name`,
    /// and its steam id from `xuid`, `steamid` or `networkid` (`[U:1:id]`,
    /// `STEAM_x:y:z`) unless it is a bot. A player is usually in
    /// `userinfo` before these events, but not always.
    fn learn_player_event(&mut self, body: &[u8]) {
        let Ok(event) = pb::CSvcMsgGameEvent::decode(body) else {
            return;
        };
        let Some(names) = self.player_events.get(&event.eventid()) else {
            return;
        };
        let mut name = String::new();
        let mut steamid = 0u64;
        let mut bot = false;
        for (key, value) in names.iter().zip(&event.keys) {
            match key.as_str() {
                "name" => name = String::from_utf8_lossy(value.val_string()).into_owned(),
                "xuid" | "steamid" if value.val_uint64() != 0 => steamid = value.val_uint64(),
                "networkid" if steamid == 0 => {
                    let text = String::from_utf8_lossy(value.val_string()).into_owned();
                    bot |= text == "BOT";
                    steamid = parse_network_id(&text).unwrap_or(0);
                }
                "bot" => bot |= value.val_bool(),
                _ => {}
            }
        }
        self.learn_identity(Identity {
            name,
            steamid: if bot { 0 } else { steamid },
        });
    }

    fn learn_identity(&mut self, id: Identity) {
        if id.name.is_empty() && id.steamid == 0 {
            return;
        }
        if self.players.insert(id) {
            let patterns = self
                .players
                .iter()
                .flat_map(|p| patterns_for(p, &self.pseudonyms))
                .collect();
            self.substituter = Substituter::new(patterns);
            self.renamer = Renamer::new(&self.players, &self.pseudonyms);
        }
    }

    fn learn_entry_stream(&mut self, table: usize, data: &[u8], count: i32) {
        let Some(format) = self.tables.get(table) else {
            return;
        };
        if format.name != "userinfo" {
            return;
        }
        let Ok(stream) = read_entry_stream(format, data, count) else {
            return;
        };
        for e in stream.entries {
            let Some(v) = e.value else { continue };
            if v.compressed == Some(true) {
                if let Ok(raw) = crate::stringtable::decompress(&v.stored, "userinfo value") {
                    self.learn_player_info(&raw);
                }
            } else {
                self.learn_player_info(&v.stored);
            }
        }
    }

    fn learn_string_tables(&mut self, tables: &pb::CDemoStringTables) {
        for t in &tables.tables {
            if t.table_name() == "userinfo" {
                for item in &t.items {
                    if let Some(data) = &item.data {
                        self.learn_player_info(data);
                    }
                }
            }
        }
    }

    fn learn_packet(&mut self, data: &[u8]) {
        for m in PacketMessages::new(data) {
            let Ok(m) = m else { break };
            match m.id {
                44 => {
                    let Ok(c) = pb::CSvcMsgCreateStringTable::decode(&*m.body) else {
                        continue;
                    };
                    let raw = c.string_data.clone().unwrap_or_default();
                    let data = if c.data_compressed() {
                        crate::stringtable::decompress(&raw, "string table data")
                            .unwrap_or_default()
                    } else {
                        raw
                    };
                    self.tables.push(format_of(&c));
                    self.learn_entry_stream(self.tables.len() - 1, &data, c.num_entries());
                }
                45 => {
                    let Ok(u) = pb::CSvcMsgUpdateStringTable::decode(&*m.body) else {
                        continue;
                    };
                    if let Ok(id) = usize::try_from(u.table_id()) {
                        self.learn_entry_stream(id, u.string_data(), u.num_changed_entries());
                    }
                }
                51 => self.tables.clear(),
                205 => {
                    if let Ok(list) = pb::CMsgSource1LegacyGameEventList::decode(&*m.body) {
                        self.chat_events = list
                            .descriptors
                            .iter()
                            .filter(|d| CHAT_EVENTS.contains(&d.name()))
                            .map(|d| d.eventid())
                            .collect();
                        self.player_events = list
                            .descriptors
                            .iter()
                            .filter(|d| PLAYER_EVENTS.contains(&d.name()))
                            .map(|d| {
                                let keys = d.keys.iter().map(|k| k.name().to_string()).collect();
                                (d.eventid(), keys)
                            })
                            .collect();
                    }
                }
                207 if !self.player_events.is_empty() => self.learn_player_event(&m.body),
                _ => {}
            }
        }
    }

    /// Learns what a frame tells (the game, players, string-table formats,
    /// event ids). Call it for every frame, in order, before
    /// `Anonymizer::transform` of the same frame.
    pub fn learn(&mut self, command: DemoCommand, payload: &[u8]) {
        match command {
            DemoCommand::FileHeader => {
                if let Ok(h) = pb::CDemoFileHeader::decode(payload) {
                    self.game = Game::from_game_directory(h.game_directory());
                }
            }
            DemoCommand::Packet | DemoCommand::SignonPacket => {
                if let Ok(p) = pb::CDemoPacket::decode(payload) {
                    self.learn_packet(p.data());
                }
            }
            DemoCommand::FullPacket => {
                if let Ok(p) = pb::CDemoFullPacket::decode(payload) {
                    if let Some(t) = &p.string_table {
                        self.learn_string_tables(t);
                    }
                    if let Some(packet) = &p.packet {
                        self.learn_packet(packet.data());
                    }
                }
            }
            DemoCommand::StringTables => {
                if let Ok(t) = pb::CDemoStringTables::decode(payload) {
                    self.learn_string_tables(&t);
                }
            }
            _ => {}
        }
    }

    fn is_chat(&self, id: u32, body: &[u8]) -> bool {
        if self.keep_chat {
            return false;
        }
        if id == 207 {
            if self.chat_events.is_empty() {
                return false;
            }
            return pb::CSvcMsgGameEvent::decode(body)
                .is_ok_and(|e| self.chat_events.contains(&e.eventid()));
        }
        crate::messages::message_type(self.game, id)
            .and_then(|t| t.2)
            .is_some_and(|t| CHAT_TYPES.contains(&t))
    }

    /// A string-table value renamed (see [`RENAMED_TABLES`]): how many
    /// values changed and the new value.
    fn table_value(
        &mut self,
        table: &str,
        key: Option<&[u8]>,
        value: &[u8],
        state: &DemoState,
    ) -> Result<Option<Vec<u8>>, ErrorKind> {
        match table {
            "userinfo" | "EconItems" => {
                let new = self.renamer.protobuf(value);
                if new.is_some() {
                    self.count(format!("{table} values"), 1);
                }
                Ok(new)
            }
            "instancebaseline" => {
                let Some(class_id) = key
                    .and_then(|k| std::str::from_utf8(k).ok())
                    .and_then(|k| k.parse::<u32>().ok())
                else {
                    return Ok(None);
                };
                Ok(
                    rename_baseline(value, class_id, state, &self.renamer)?.map(|(v, n)| {
                        self.count("instancebaseline fields".into(), n);
                        v
                    }),
                )
            }
            _ => Ok(None),
        }
    }

    /// An entry stream with its values renamed; `None` when nothing
    /// changed. `keys_of` gives the key of an entry the stream does not
    /// name (an update of its value only).
    fn entry_stream(
        &mut self,
        format: &StringTable,
        data: &[u8],
        count: i32,
        state: &DemoState,
        table_id: Option<usize>,
    ) -> Result<Option<Vec<u8>>, ErrorKind> {
        if !RENAMED_TABLES.contains(&format.name.as_str())
            || format.user_data_fixed_size
            || self.renamer.is_empty()
        {
            return Ok(None);
        }
        let mut stream = read_entry_stream(format, data, count)?;
        let mut history: VecDeque<Vec<u8>> = VecDeque::new();
        let mut index: i64 = -1;
        let mut changed = false;
        for e in &mut stream.entries {
            index = match e.step {
                IndexStep::Next => index + 1,
                IndexStep::Explicit(v) => i64::from(v) + 1,
            };
            // The key history (the last 32 keys of this stream) gives the
            // prefixes, as the reader builds keys.
            let key = match &e.key {
                Some(k) => {
                    let mut full = match k.prefix {
                        Some(p) => history
                            .get(usize::from(p.position))
                            .map(|h| h.get(..usize::from(p.length)).unwrap_or(h).to_vec())
                            .unwrap_or_default(),
                        None => Vec::new(),
                    };
                    full.extend_from_slice(&k.suffix);
                    if history.len() >= 32 {
                        history.pop_front();
                    }
                    history.push_back(full.clone());
                    Some(full)
                }
                None => table_id
                    .and_then(|t| state.string_tables.get(t))
                    .and_then(|t| t.entries.get(usize::try_from(index).ok()?))
                    .map(|e| e.key.as_bytes().to_vec()),
            };
            let Some(v) = e.value.as_mut() else { continue };
            let compressed = v.compressed == Some(true);
            let raw = if compressed {
                crate::stringtable::decompress(&v.stored, "string table value")?
            } else {
                std::mem::take(&mut v.stored)
            };
            match self.table_value(&format.name, key.as_deref(), &raw, state)? {
                Some(new) => {
                    changed = true;
                    if compressed {
                        crate::container_writer::compress_payload(&new, &mut v.stored)?;
                    } else {
                        v.stored = new;
                    }
                }
                None if !compressed => v.stored = raw,
                None => {}
            }
        }
        if !changed {
            return Ok(None);
        }
        Ok(Some(write_entry_stream(format, &stream)?))
    }

    /// A string-table message with its values renamed; `None` when
    /// nothing changed.
    fn string_table_message(
        &mut self,
        id: u32,
        body: &[u8],
        state: &DemoState,
    ) -> Result<Option<Vec<u8>>, ErrorKind> {
        if id == 44 {
            let mut c = pb::CSvcMsgCreateStringTable::decode(body)
                .map_err(|e| unwritable("svc_CreateStringTable", e))?;
            let format = format_of(&c);
            if !RENAMED_TABLES.contains(&format.name.as_str()) {
                return Ok(None);
            }
            let raw = c.string_data.take().unwrap_or_default();
            let data = if c.data_compressed() {
                crate::stringtable::decompress(&raw, "string table data")?
            } else {
                raw
            };
            let table_id = state
                .string_tables
                .iter()
                .rposition(|t| t.name == format.name);
            let Some(data) = self.entry_stream(&format, &data, c.num_entries(), state, table_id)?
            else {
                return Ok(None);
            };
            if c.data_compressed() {
                c.uncompressed_size = Some(i32::try_from(data.len()).unwrap_or(i32::MAX));
                let mut out = Vec::new();
                crate::container_writer::compress_payload(&data, &mut out)?;
                c.string_data = Some(out);
            } else {
                c.string_data = Some(data);
            }
            return Ok(Some(c.encode_to_vec()));
        }
        let mut u = pb::CSvcMsgUpdateStringTable::decode(body)
            .map_err(|e| unwritable("svc_UpdateStringTable", e))?;
        let table_id = usize::try_from(u.table_id()).ok();
        let Some(format) = table_id.and_then(|i| self.tables.get(i)).cloned() else {
            return Ok(None);
        };
        match self.entry_stream(
            &format,
            u.string_data(),
            u.num_changed_entries(),
            state,
            table_id,
        )? {
            Some(data) => {
                u.string_data = Some(data);
                Ok(Some(u.encode_to_vec()))
            }
            None => Ok(None),
        }
    }

    /// A `CDemoStringTables` snapshot renamed; `None` when unchanged.
    fn string_tables(
        &mut self,
        tables: &mut pb::CDemoStringTables,
        state: &DemoState,
    ) -> Result<bool, ErrorKind> {
        let mut changed = false;
        for t in &mut tables.tables {
            let name = t.table_name().to_string();
            if !RENAMED_TABLES.contains(&name.as_str()) {
                continue;
            }
            for item in &mut t.items {
                let Some(data) = &item.data else { continue };
                let key = item.str.as_deref().map(str::as_bytes);
                if let Some(new) = self.table_value(&name, key, data, state)? {
                    item.data = Some(new);
                    changed = true;
                }
            }
        }
        Ok(changed)
    }

    /// A packet without its voice and chat messages and with its players
    /// renamed; `None` when no message changed.
    fn transform_packet(
        &mut self,
        data: &[u8],
        tick: i32,
        entities: &mut VecDeque<Result<Option<Vec<u8>>, String>>,
        state: &DemoState,
    ) -> Option<Vec<u8>> {
        let mut messages = PacketMessages::new(data);
        let mut out: Vec<(u32, std::borrow::Cow<'_, [u8]>)> = Vec::new();
        let mut changed = false;
        let mut kept = 0u64;
        for m in messages.by_ref() {
            let m = match m {
                Ok(m) => m,
                Err(e) => {
                    self.warn(
                        tick,
                        format!("a packet could not be split ({e}); kept as it was"),
                    );
                    return None;
                }
            };
            if m.id == VOICE_DATA {
                self.voice_dropped += 1;
                changed = true;
                continue;
            }
            if self.is_chat(m.id, &m.body) {
                self.chat_dropped += 1;
                changed = true;
                continue;
            }
            let new = match m.id {
                55 => match entities.pop_front() {
                    Some(Ok(b)) => b,
                    Some(Err(e)) => {
                        self.warn(
                            tick,
                            format!("svc_PacketEntities could not be renamed ({e}); kept"),
                        );
                        None
                    }
                    None => None,
                },
                44 | 45 => match self.string_table_message(m.id, &m.body, state) {
                    Ok(b) => b,
                    Err(e) => {
                        self.warn(tick, format!("string table message {}: {e}; kept", m.id));
                        None
                    }
                },
                _ => {
                    let b = self.renamer.protobuf(&m.body);
                    if b.is_some() {
                        self.count(message_name_in(self.game, m.id), 1);
                    }
                    b
                }
            };
            match new {
                Some(body) => {
                    changed = true;
                    out.push((m.id, body.into()));
                }
                None => {
                    kept += 1;
                    out.push((m.id, m.body));
                }
            }
        }
        self.messages_kept += kept;
        if !changed {
            return None;
        }
        let (left, padding) = messages.padding();
        let mut w = PacketWriter::new();
        for (id, body) in &out {
            if let Err(e) = w.push(*id, body) {
                self.warn(
                    tick,
                    format!("a packet could not be written again ({e}); kept"),
                );
                return None;
            }
        }
        // The original padding bits when they fit the new last byte: zero
        // bits otherwise, which readers ignore.
        if left > 0 && left < 8 {
            if let Ok(bytes) = w.clone().finish_with_padding(padding as u8) {
                return Some(bytes);
            }
        }
        Some(w.finish())
    }

    /// A `CDemoPacket` with its packet transformed; `None` when unchanged.
    fn transform_demo_packet(
        &mut self,
        payload: &[u8],
        tick: i32,
        entities: &mut VecDeque<Result<Option<Vec<u8>>, String>>,
        state: &DemoState,
    ) -> Option<Vec<u8>> {
        let span = find_len_field(payload, 3)?;
        let data = payload.get(span.value.clone())?;
        let packet = self.transform_packet(data, tick, entities, state)?;
        Some(splice_len_field(payload, &span, 3, &packet))
    }

    /// The anonymized payload of a frame (decompressed), or `None` when it
    /// is unchanged. [`Anonymizer::learn`] must have seen this frame and
    /// the ones before; `entities` holds its `svc_PacketEntities` renamed
    /// against the state before each, `state` is the state after it.
    fn transform(
        &mut self,
        command: DemoCommand,
        tick: i32,
        payload: &[u8],
        entities: &mut VecDeque<Result<Option<Vec<u8>>, String>>,
        state: &DemoState,
    ) -> Option<Vec<u8>> {
        match command {
            DemoCommand::FileHeader | DemoCommand::FileInfo => {
                let new = self.renamer.protobuf(payload);
                if new.is_some() {
                    self.count(command.name(), 1);
                }
                new
            }
            DemoCommand::Packet | DemoCommand::SignonPacket => {
                self.transform_demo_packet(payload, tick, entities, state)
            }
            DemoCommand::FullPacket => {
                let mut full = pb::CDemoFullPacket::decode(payload).ok()?;
                let mut changed = false;
                if let Some(t) = full.string_table.as_mut() {
                    match self.string_tables(t, state) {
                        Ok(c) => changed |= c,
                        Err(e) => self.warn(tick, format!("full packet string tables: {e}")),
                    }
                }
                if let Some(p) = full.packet.as_mut() {
                    let data = p.data.take().unwrap_or_default();
                    match self.transform_packet(&data, tick, entities, state) {
                        Some(new) => {
                            p.data = Some(new);
                            changed = true;
                        }
                        None => p.data = Some(data),
                    }
                }
                changed.then(|| full.encode_to_vec())
            }
            DemoCommand::StringTables => {
                let mut t = pb::CDemoStringTables::decode(payload).ok()?;
                match self.string_tables(&mut t, state) {
                    Ok(true) => Some(t.encode_to_vec()),
                    Ok(false) => None,
                    Err(e) => {
                        self.warn(tick, format!("DEM_StringTables: {e}; kept"));
                        None
                    }
                }
            }
            DemoCommand::AnimationHeader => {
                let mut data = payload.to_vec();
                let n = self.substituter.apply(&mut data);
                self.replaced_in_place += n as u64;
                (n > 0).then_some(data)
            }
            _ => None,
        }
    }
}

/// A frame held back until the players are known.
struct HeldFrame {
    command: DemoCommand,
    compressed: bool,
    tick: i32,
    stored: Vec<u8>,
    payload: Vec<u8>,
    entities: VecDeque<Result<Option<Vec<u8>>, String>>,
}

/// Frames held back before the players are known: at most this many bytes.
const MAX_HELD_BACK: usize = 64 << 20;

/// The anonymizing edit, as the frame loop ([`FrameLoop`]) drives it: the
/// players learned from each frame before it is applied ([`Anonymizer::learn`]),
/// its `svc_PacketEntities` renamed against the state right before each
/// ([`EntityPass`]) while it is applied, the frame renamed and written after
/// (or held back until the players and the classes are known).
struct AnonymizeEdit<W: Write + Seek> {
    writer: DemoWriter<W>,
    anon: Anonymizer,
    /// Frames held back, and their stored bytes in all.
    held: Vec<HeldFrame>,
    held_bytes: usize,
    /// The renamed `svc_PacketEntities` of the frame being applied.
    entities: VecDeque<Result<Option<Vec<u8>>, String>>,
}

impl<W: Write + Seek> FrameEdit for AnonymizeEdit<W> {
    fn before(&mut self, frame: &StreamFrame<'_>, _state: &DemoState) -> Result<Step, DemoError> {
        self.anon.learn(frame.frame.command, &frame.frame.payload);
        Ok(Step::Apply)
    }

    fn apply(
        &mut self,
        parser: &mut DemoParser<'static>,
        frame: &crate::container::Frame<'_>,
    ) -> Result<(), DemoError> {
        let mut pass = EntityPass {
            renamer: &self.anon.renamer,
            bodies: VecDeque::new(),
            renamed: 0,
        };
        parser.apply_frame(frame, &mut pass)?;
        let EntityPass {
            bodies, renamed, ..
        } = pass;
        self.entities = bodies;
        if renamed > 0 {
            self.anon.count("svc_PacketEntities fields".into(), renamed);
        }
        Ok(())
    }

    fn after(&mut self, frame: &StreamFrame<'_>, state: &DemoState) -> Result<Flow, DemoError> {
        let f = &frame.frame;
        let mut entities = std::mem::take(&mut self.entities);
        // Held until the players and the classes are known: baselines,
        // created in the signon, are read against the class serializers.
        let ready =
            self.anon.knows_userinfo() && state.send_tables.is_some() && !state.classes.is_empty();
        let hold = !ready
            && !matches!(f.command, DemoCommand::Packet | DemoCommand::Stop)
            && self.held_bytes + frame.stored.len() <= MAX_HELD_BACK;
        if hold {
            self.held_bytes += frame.stored.len();
            self.held.push(HeldFrame {
                command: f.command,
                compressed: f.compressed,
                tick: f.tick,
                stored: frame.stored.to_vec(),
                payload: f.payload.to_vec(),
                entities,
            });
            return Ok(Flow::Continue);
        }
        self.write_held(state)?;
        match self
            .anon
            .transform(f.command, f.tick, &f.payload, &mut entities, state)
        {
            Some(new) => self
                .writer
                .write_frame(f.command, f.tick, f.compressed, &new)?,
            None => self
                .writer
                .write_raw_frame(f.command, f.tick, f.compressed, frame.stored)?,
        }
        Ok(Flow::Continue)
    }
}

impl<W: Write + Seek> AnonymizeEdit<W> {
    /// Anonymizes and writes the frames held back, against `state`.
    fn write_held(&mut self, state: &DemoState) -> Result<(), DemoError> {
        for mut h in self.held.drain(..) {
            write_held(&mut self.writer, &mut self.anon, &mut h, state)?;
        }
        self.held_bytes = 0;
        Ok(())
    }
}

/// Anonymizes the demo read from `input` into `out` (see the module
/// documentation). Frames are read one at a time
/// ([`FrameStream`](super::frames::FrameStream)), so memory does not grow
/// with the demo's length (beyond the signon, held back until `userinfo`
/// exists). A demo that ends early, or whose frame does not decode, is
/// written up to the frame before, then `DEM_Stop`, and
/// [`EditReport::cut`] says where it ended.
pub fn anonymize<R: Read, W: Write + Seek>(
    input: R,
    out: W,
    options: &AnonymizeOptions,
) -> Result<EditReport, DemoError> {
    // A frame that ends early, does not decompress or does not decode
    // ends the demo there, as a cut.
    let mut frames = FrameLoop::new(input)?.lenient();
    let mut edit = AnonymizeEdit {
        writer: DemoWriter::new(out)?,
        anon: Anonymizer::new(options),
        held: Vec::new(),
        held_bytes: 0,
        entities: VecDeque::new(),
    };
    frames.run(&mut edit)?;
    edit.write_held(&frames.parser.state)?;
    let last_tick = frames.last_tick;
    if frames.needs_stop() {
        edit.writer
            .write_frame(DemoCommand::Stop, last_tick, false, &[])?;
    }
    let mut report = std::mem::take(&mut frames.report);
    let AnonymizeEdit {
        writer, mut anon, ..
    } = edit;
    report.frames_written = writer.frames_written();
    report.messages_copied = anon.messages_kept;
    report.warnings.append(&mut anon.warnings);
    report.warnings.push(Warning {
        tick: last_tick,
        message: format!(
            "anonymized: {} players, {} values renamed ({}), {} ids and names replaced in place \
             in unmodeled blobs, {} chat and {} voice messages dropped",
            anon.players.len(),
            anon.renamed,
            anon.renamed_in
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", "),
            anon.replaced_in_place,
            anon.chat_dropped,
            anon.voice_dropped
        ),
    });
    writer.finish()?;
    Ok(report)
}

/// Anonymizes and writes a frame that was held back.
fn write_held<W: Write + Seek>(
    writer: &mut DemoWriter<W>,
    anon: &mut Anonymizer,
    frame: &mut HeldFrame,
    state: &DemoState,
) -> Result<(), DemoError> {
    match anon.transform(
        frame.command,
        frame.tick,
        &frame.payload,
        &mut frame.entities,
        state,
    ) {
        Some(new) => writer.write_frame(frame.command, frame.tick, frame.compressed, &new),
        None => writer.write_raw_frame(frame.command, frame.tick, frame.compressed, &frame.stored),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_found_at_every_bit_offset() {
        let find = b"Partridge".to_vec();
        let replace = b"ABCDEFGHI".to_vec();
        let mut sub = Substituter::new(vec![Pattern {
            find: find.clone(),
            replace: replace.clone(),
        }]);
        for shift in 0..8u64 {
            let mut data = vec![0xa5u8; 16];
            write_bytes_at(&mut data, 13 + shift, &find);
            let mut expect = vec![0xa5u8; 16];
            write_bytes_at(&mut expect, 13 + shift, &replace);
            assert_eq!(sub.apply(&mut data), 1, "shift {shift}");
            assert_eq!(data, expect);
            assert_eq!(sub.apply(&mut data), 0);
        }
    }

    #[test]
    fn player_info_is_renamed_field_by_field() {
        let options = AnonymizeOptions::from_passphrase("test");
        let mut anon = Anonymizer::new(&options);
        let s = 76_561_197_966_986_733;
        let info = pb::CMsgPlayerInfo {
            name: Some("Partridge".into()),
            xuid: Some(s),
            steamid: Some(s),
            userid: Some(0),
            ..Default::default()
        };
        let bytes = info.encode_to_vec();
        anon.learn_player_info(&bytes);
        let out = anon.renamer().protobuf(&bytes).unwrap();
        let back = pb::CMsgPlayerInfo::decode(&*out).unwrap();
        let p = options.pseudonyms();
        assert_eq!(back.name(), p.name(s, "Partridge"));
        assert!(back.name().starts_with("Player-"));
        assert_eq!(back.steamid(), p.steamid(s));
        assert_eq!(back.xuid(), back.steamid());
        assert_eq!(back.userid(), 0);
        // Nested in another message, and inside text.
        let packet = pb::CDemoPacket { data: Some(bytes) }.encode_to_vec();
        let out = anon.renamer().protobuf(&packet).unwrap();
        let inner = pb::CDemoPacket::decode(&*out).unwrap();
        let back = pb::CMsgPlayerInfo::decode(inner.data()).unwrap();
        assert_eq!(back.name(), p.name(s, "Partridge"));
        let fake = p.account_id(s);
        assert_eq!(
            anon.renamer()
                .text("Partridge (STEAM_1:1:3360502) joined")
                .unwrap(),
            format!(
                "{} (STEAM_1:{}:{}) joined",
                p.name(s, ""),
                fake & 1,
                fake >> 1
            )
        );
        assert_eq!(anon.renamer().text("nobody here"), None);
    }

    #[test]
    fn chat_and_voice_are_dropped_and_padding_kept() {
        let mut anon = Anonymizer::new(&AnonymizeOptions::from_passphrase("k"));
        anon.game = Game::Cs2;
        let say = pb::CUserMessageSayText2 {
            param2: Some("hello".into()),
            ..Default::default()
        };
        let mut w = PacketWriter::new();
        w.push(4, &[0x08, 0x2a]).unwrap();
        w.push_message(118, &say).unwrap();
        w.push(VOICE_DATA, &[1, 2, 3]).unwrap();
        let data = w.finish_with_padding(0b101).unwrap();
        let state = DemoState::default();
        let out = anon
            .transform_packet(&data, 0, &mut VecDeque::new(), &state)
            .unwrap();
        let mut it = PacketMessages::new(&out);
        let ids: Vec<u32> = it.by_ref().map(|m| m.unwrap().id).collect();
        assert_eq!(ids, [4]);
        assert_eq!((anon.chat_dropped, anon.voice_dropped), (1, 1));
        let mut keep = Anonymizer::new(&AnonymizeOptions {
            keep_chat: true,
            ..AnonymizeOptions::from_passphrase("k")
        });
        keep.game = Game::Cs2;
        let out = keep
            .transform_packet(&data, 0, &mut VecDeque::new(), &state)
            .unwrap();
        let ids: Vec<u32> = PacketMessages::new(&out).map(|m| m.unwrap().id).collect();
        assert_eq!(ids, [4, 118]);
    }

    /// A signon packet creating `userinfo` with one player, its value
    /// compressed (`value_compressed`) or the whole data compressed.
    fn userinfo_packet(value_compressed: bool) -> (Vec<u8>, u64) {
        use crate::stringtable_writer::{
            EncodedKey, EncodedValue, EntryRecord, EntryStream, IndexStep,
        };
        let steamid = 76_561_198_170_642_933;
        let info = pb::CMsgPlayerInfo {
            name: Some("Zuzanna Kowalska".into()),
            steamid: Some(steamid),
            xuid: Some(steamid),
            ..Default::default()
        }
        .encode_to_vec();
        let format = StringTable {
            name: "userinfo".into(),
            flags: i32::from(value_compressed),
            ..Default::default()
        };
        let mut stored = Vec::new();
        if value_compressed {
            crate::container_writer::compress_payload(&info, &mut stored).unwrap();
        } else {
            stored = info;
        }
        let stream = EntryStream {
            entries: vec![EntryRecord {
                step: IndexStep::Next,
                key: Some(EncodedKey {
                    prefix: None,
                    suffix: b"0".to_vec(),
                }),
                value: Some(EncodedValue {
                    compressed: value_compressed.then_some(true),
                    stored,
                }),
            }],
            ..Default::default()
        };
        let data = write_entry_stream(&format, &stream).unwrap();
        let mut create = pb::CSvcMsgCreateStringTable {
            name: Some("userinfo".into()),
            num_entries: Some(1),
            flags: Some(format.flags),
            user_data_fixed_size: Some(false),
            using_varint_bitcounts: Some(false),
            ..Default::default()
        };
        if value_compressed {
            create.string_data = Some(data);
        } else {
            let mut blob = Vec::new();
            crate::container_writer::compress_payload(&data, &mut blob).unwrap();
            create.string_data = Some(blob);
            create.data_compressed = Some(true);
            create.uncompressed_size = Some(data.len() as i32);
        }
        let mut w = PacketWriter::new();
        w.push_message(44, &create).unwrap();
        (
            crate::packet_writer::encode_demo_packet(w.finish()),
            steamid,
        )
    }

    #[test]
    fn compressed_string_table_data_is_renamed() {
        for value_compressed in [true, false] {
            let options = AnonymizeOptions::from_passphrase("k");
            let mut anon = Anonymizer::new(&options);
            let (payload, steamid) = userinfo_packet(value_compressed);
            anon.learn(DemoCommand::SignonPacket, &payload);
            assert_eq!(anon.players().count(), 1);
            let out = anon
                .transform(
                    DemoCommand::SignonPacket,
                    -1,
                    &payload,
                    &mut VecDeque::new(),
                    &DemoState::default(),
                )
                .unwrap();
            let packet = pb::CDemoPacket::decode(&*out).unwrap();
            let m = PacketMessages::new(packet.data()).next().unwrap().unwrap();
            let create = pb::CSvcMsgCreateStringTable::decode(&*m.body).unwrap();
            assert_eq!(create.data_compressed(), !value_compressed);
            let mut data = create.string_data().to_vec();
            if create.data_compressed() {
                data = crate::stringtable::decompress(&data, "test").unwrap();
                assert_eq!(create.uncompressed_size(), data.len() as i32);
            }
            let format = StringTable {
                name: "userinfo".into(),
                flags: create.flags(),
                ..Default::default()
            };
            let stream = read_entry_stream(&format, &data, 1).unwrap();
            let value = stream.entries[0].value.clone().unwrap();
            let raw = if value.compressed == Some(true) {
                crate::stringtable::decompress(&value.stored, "test").unwrap()
            } else {
                value.stored
            };
            let info = pb::CMsgPlayerInfo::decode(&*raw).unwrap();
            let p = options.pseudonyms();
            assert_eq!(info.name(), p.name(steamid, ""));
            assert_eq!(info.steamid(), p.steamid(steamid));
            assert_eq!(info.xuid(), p.steamid(steamid));
        }
    }

    #[test]
    fn players_are_learned_from_connect_events() {
        use pb::c_msg_source1_legacy_game_event_list::{DescriptorT, KeyT};
        use pb::csvc_msg_game_event::KeyT as Value;
        assert_eq!(
            parse_network_id("STEAM_1:1:3360502"),
            Some(76_561_197_966_986_733)
        );
        assert_eq!(
            parse_network_id("[U:1:6721005]"),
            Some(76_561_197_966_986_733)
        );
        assert_eq!(parse_network_id("BOT"), None);
        let list = pb::CMsgSource1LegacyGameEventList {
            descriptors: vec![DescriptorT {
                eventid: Some(7),
                name: Some("player_connect".into()),
                keys: ["name", "userid", "networkid", "bot"]
                    .iter()
                    .map(|k| KeyT {
                        r#type: Some(1),
                        name: Some((*k).into()),
                    })
                    .collect(),
            }],
        };
        let event = |name: &str, id: &str, bot: bool| pb::CSvcMsgGameEvent {
            eventid: Some(7),
            keys: vec![
                Value {
                    val_string: Some(name.as_bytes().to_vec()),
                    ..Default::default()
                },
                Value {
                    val_short: Some(3),
                    ..Default::default()
                },
                Value {
                    val_string: Some(id.as_bytes().to_vec()),
                    ..Default::default()
                },
                Value {
                    val_bool: Some(bot),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let mut w = PacketWriter::new();
        w.push_message(205, &list).unwrap();
        w.push_message(207, &event("Partridge", "STEAM_1:1:3360502", false))
            .unwrap();
        w.push_message(207, &event("Waldo", "BOT", true)).unwrap();
        let payload = crate::packet_writer::encode_demo_packet(w.finish());
        let options = AnonymizeOptions::from_passphrase("k");
        let mut anon = Anonymizer::new(&options);
        anon.learn(DemoCommand::Packet, &payload);
        let players: Vec<_> = anon.players().cloned().collect();
        assert_eq!(
            players,
            [
                Identity {
                    name: "Partridge".into(),
                    steamid: 76_561_197_966_986_733
                },
                Identity {
                    name: "Waldo".into(),
                    steamid: 0
                }
            ]
        );
        // The events themselves are renamed, the network id too.
        let out = anon
            .transform(
                DemoCommand::Packet,
                1,
                &payload,
                &mut VecDeque::new(),
                &DemoState::default(),
            )
            .unwrap();
        let packet = pb::CDemoPacket::decode(&*out).unwrap();
        let events: Vec<pb::CSvcMsgGameEvent> = PacketMessages::new(packet.data())
            .map(|m| m.unwrap())
            .filter(|m| m.id == 207)
            .map(|m| pb::CSvcMsgGameEvent::decode(&*m.body).unwrap())
            .collect();
        let p = options.pseudonyms();
        let s = 76_561_197_966_986_733;
        let fake = p.account_id(s);
        let text = |e: &pb::CSvcMsgGameEvent, i: usize| {
            String::from_utf8(e.keys[i].val_string().to_vec()).unwrap()
        };
        assert_eq!(text(&events[0], 0), p.name(s, ""));
        assert_eq!(
            text(&events[0], 2),
            format!("STEAM_1:{}:{}", fake & 1, fake >> 1)
        );
        assert_eq!(text(&events[1], 0), p.name(0, "Waldo"));
        assert_eq!(text(&events[1], 2), "BOT");
    }

    #[test]
    fn string_table_snapshots_are_renamed() {
        use pb::c_demo_string_tables::{ItemsT, TableT};
        let options = AnonymizeOptions::from_passphrase("k");
        let mut anon = Anonymizer::new(&options);
        let s = 76_561_198_170_642_933;
        let info = pb::CMsgPlayerInfo {
            name: Some("Zu".into()),
            steamid: Some(s),
            xuid: Some(s),
            ..Default::default()
        }
        .encode_to_vec();
        let other = ItemsT {
            str: Some("Zu".into()),
            data: Some(b"Zu".to_vec()),
        };
        let tables = pb::CDemoStringTables {
            tables: vec![
                TableT {
                    table_name: Some("userinfo".into()),
                    items: vec![ItemsT {
                        str: Some("0".into()),
                        data: Some(info),
                    }],
                    ..Default::default()
                },
                TableT {
                    table_name: Some("soundprecache".into()),
                    items: vec![other.clone()],
                    ..Default::default()
                },
            ],
        };
        let payload = tables.encode_to_vec();
        anon.learn(DemoCommand::StringTables, &payload);
        let full = pb::CDemoFullPacket {
            string_table: Some(tables),
            packet: None,
        }
        .encode_to_vec();
        let p = options.pseudonyms();
        for (command, payload) in [
            (DemoCommand::StringTables, payload),
            (DemoCommand::FullPacket, full),
        ] {
            let out = anon
                .transform(
                    command,
                    5,
                    &payload,
                    &mut VecDeque::new(),
                    &DemoState::default(),
                )
                .unwrap();
            let t = if command == DemoCommand::FullPacket {
                pb::CDemoFullPacket::decode(&*out)
                    .unwrap()
                    .string_table
                    .unwrap()
            } else {
                pb::CDemoStringTables::decode(&*out).unwrap()
            };
            let data = t.tables[0].items[0].data.as_deref().unwrap();
            let back = pb::CMsgPlayerInfo::decode(data).unwrap();
            // A two-byte name too: renamed where it is known to be a name.
            assert_eq!(back.name(), p.name(s, "Zu"));
            assert_eq!(back.steamid(), p.steamid(s));
            assert_eq!(back.xuid(), p.steamid(s));
            // Tables that name no player are kept.
            assert_eq!(t.tables[1].items[0], other);
        }
    }

    #[test]
    fn protobuf_fields_are_spliced() {
        let p = pb::CDemoPacket {
            data: Some(vec![1, 2, 3]),
        };
        let bytes = p.encode_to_vec();
        let span = find_len_field(&bytes, 3).unwrap();
        let out = splice_len_field(&bytes, &span, 3, &[9; 200]);
        assert_eq!(pb::CDemoPacket::decode(&*out).unwrap().data(), &[9; 200]);
        assert!(find_len_field(&[0xff], 3).is_none());
    }
}
