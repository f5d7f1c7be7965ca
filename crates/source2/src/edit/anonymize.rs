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
//! listen-server recordings with bots; Deadlock; Dota 2 with bots):
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
//! | `DEM_AnimationHeader` | 20 records holding the steam id | 64 bits | CS2 (14011) |
//!
//! Not in the corpus but of the same kinds, and covered by the same
//! forms: game events with a player's name, `networkid` (`STEAM_1:y:z`,
//! `[U:1:id]`) or xuid (`player_connect`, `player_info`,
//! `player_disconnect`), chat (`SayText2`'s `param1`), CS2's end-of-match
//! and rank messages (xuids as fixed64 or varint), Dota 2's
//! `CDemoFileInfo.game_info.dota.player_info` (`player_name`, `steamid`).
//! A name that contains no other player's name and is not written
//! anywhere in these forms is not in the table: Valve's `SendTables` hold
//! schema text in which a short bot name can occur (`Vox`), which is not
//! about the player and is kept.
//!
//! # How it is renamed
//!
//! Every form above is replaced by its pseudonym in place, bit for bit,
//! wherever the original bits occur in a frame's decompressed payload,
//! whatever the message: a fake account id is chosen to be written in as
//! many bytes as the real one in every form, and a player's fake name has
//! as many bytes as the real one. Nothing around the replaced bits moves,
//! so no length, varint, field path or bit offset changes, and every
//! message keeps its original bytes but for the identities in it (entity
//! data is not decoded and encoded again; packets keep their padding).
//! What is matched, by length of the original:
//!
//! - names of five bytes or more: their bytes, anywhere;
//! - names of three or four bytes: only as a cstring (followed by a zero
//!   byte, as entity fields and string-table keys write strings) or as a
//!   protobuf string (preceded by its length byte), 32 bits or more;
//! - steam ids: 64 bits little-endian, varint, decimal; account ids: 32 bits
//!   little-endian, varint (from three bytes), decimal (from six digits),
//!   and `STEAM_0:y:z` / `STEAM_1:y:z`.
//!
//! A pattern of 32 bits occurs by chance about once in 2^32 bit offsets,
//! which a demo of a few megabytes reaches with a probability of about 1%.
//! So every frame is checked as it is written: IN and OUT are decoded side
//! by side (two parsers fed frame by frame), and the entity changes and
//! game events of each frame of OUT must be IN's with the identities
//! renamed (a string holding a name, a 64-bit value equal to a steam id, a
//! 32-bit one equal to an account id) and nothing else changed. A chance
//! match inside an unrelated value fails that check, and the
//! anonymization stops with an error naming the frame: a wrong demo is
//! never written. (User messages are not decoded by the check.)
//! Names of one or two bytes cannot be told from chance bits (8 to 24 of
//! them, with their length or terminator) and are not renamed: the report
//! warns of each such player. The SourceTV client (`ishltv`) is not a
//! player and keeps its name.
//!
//! Players are learned as the demo goes, from `userinfo` (entries created,
//! updated, or restored by a `DEM_StringTables` snapshot) and from the game
//! events that introduce a player (`player_connect`, `player_info`,
//! `player_disconnect`: `name`, and `xuid`, `steamid` or `networkid`),
//! each frame before it is written, so a player is renamed from the frame
//! that first names them in either. Frames before the table exists (the
//! file header and the signon, which name the listen server's host) are
//! held back until it does, at most the signon. A name or id written in an
//! earlier frame than both (none in the corpus) would stay.
//!
//! String-table data that is snappy-compressed (`data_compressed`, or a
//! value's own compression flag) is decompressed, renamed and compressed
//! again. Frames whose payload changed are compressed again when they were
//! compressed; other frames are copied as their original bytes.
//!
//! # What is dropped
//!
//! Voice (`svc_VoiceData`, message 47) always; chat unless
//! [`AnonymizeOptions::keep_chat`]: the user messages `SayText`,
//! `SayText2` (and CS2's legacy ids of both), Dota 2's `ChatMessage`,
//! Deadlock's `ChatMsg`, and the game events `player_chat` and
//! `player_say`. A packet that loses messages is written again from its
//! other messages' original bodies and its padding bits.
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

use super::frames::FrameStream;
use super::pseudonym::{decimal_len, Pseudonyms};
use super::{missing_stop, EditReport};
use crate::container::DemoCommand;
use crate::container_writer::DemoWriter;
use crate::error::{DemoError, ErrorKind, Location, Warning};
use crate::messages::Game;
use crate::packet_writer::{PacketMessages, PacketWriter};
use crate::stringtable::StringTable;
use crate::stringtable_writer::{read_entry_stream, write_entry_stream};
use crate::value::Value;

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

/// One replacement: `find` becomes `replace` (same length).
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

/// The byte patterns that write this player's identity, and their
/// replacements (see the module documentation).
pub fn patterns_for(player: &Identity, pseudonyms: &Pseudonyms) -> Vec<Pattern> {
    let mut out = Vec::new();
    let name = player.name.as_bytes();
    let len = name.len();
    if len >= 3 {
        let fake = pseudonyms.name(player.steamid, &player.name, len);
        let fake = fake.as_bytes();
        if len >= 5 {
            out.push(Pattern {
                find: name.to_vec(),
                replace: fake.to_vec(),
            });
        } else {
            let mut find = name.to_vec();
            find.push(0);
            let mut replace = fake.to_vec();
            replace.push(0);
            out.push(Pattern { find, replace });
        }
    }
    if (3..128).contains(&len) {
        let fake = pseudonyms.name(player.steamid, &player.name, len);
        let mut find = vec![len as u8];
        find.extend_from_slice(name);
        let mut replace = vec![len as u8];
        replace.extend_from_slice(fake.as_bytes());
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
        for universe in ["0", "1"] {
            out.push(Pattern {
                find: format!("STEAM_{universe}:{}:{}", a & 1, a >> 1).into_bytes(),
                replace: format!("STEAM_{universe}:{}:{}", fa & 1, fa >> 1).into_bytes(),
            });
        }
    }
    out.retain(|p| p.find != p.replace && p.find.len() == p.replace.len());
    out
}

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

    /// Replaces every byte-aligned occurrence; returns how many.
    pub fn apply_aligned(&self, data: &mut [u8]) -> usize {
        let mut count = 0;
        let mut i = 0;
        'pos: while i + 1 < data.len() {
            if let Some(candidates) = data.get(i..i + 2).and_then(|k| {
                self.by_prefix
                    .get(&(u16::from(k[0]) | (u16::from(k[1]) << 8)))
            }) {
                for &c in candidates {
                    let Some(p) = self.patterns.get(c) else {
                        continue;
                    };
                    let end = i + p.find.len();
                    if let Some(slot) = data.get_mut(i..end).filter(|d| **d == p.find[..]) {
                        slot.copy_from_slice(&p.replace);
                        count += 1;
                        i = end;
                        continue 'pos;
                    }
                }
            }
            i += 1;
        }
        count
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
    substituter: Substituter,
    /// The string tables' formats, by id (creation order).
    tables: Vec<StringTable>,
    /// Ids of the chat game events.
    chat_events: Vec<i32>,
    /// Key names of the game events that introduce a player, by event id.
    player_events: FxHashMap<i32, Vec<String>>,
    /// Counts, for the report.
    pub renamed: u64,
    /// Messages dropped as chat.
    pub chat_dropped: u64,
    /// Messages dropped as voice.
    pub voice_dropped: u64,
    /// Messages kept as their original bytes (renamed in place or not).
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

impl Anonymizer {
    /// An anonymizer with these options, knowing no player yet.
    pub fn new(options: &AnonymizeOptions) -> Self {
        Anonymizer {
            pseudonyms: options.pseudonyms(),
            keep_chat: options.keep_chat,
            game: Game::Any,
            players: Default::default(),
            substituter: Substituter::default(),
            tables: Vec::new(),
            chat_events: Vec::new(),
            player_events: FxHashMap::default(),
            renamed: 0,
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

    /// Whether the `userinfo` table has been seen.
    pub fn knows_userinfo(&self) -> bool {
        self.tables.iter().any(|t| t.name == "userinfo")
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
        if (1..3).contains(&id.name.len()) && !self.players.contains(&id) {
            self.warn(
                -1,
                format!(
                    "a player's name of {} byte(s) is too short to be found in bit-packed data: kept",
                    id.name.len()
                ),
            );
        }
        if self.players.insert(id) {
            let patterns = self
                .players
                .iter()
                .flat_map(|p| patterns_for(p, &self.pseudonyms))
                .collect();
            self.substituter = Substituter::new(patterns);
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
                    self.tables.push(StringTable {
                        name: c.name().to_string(),
                        user_data_fixed_size: c.user_data_fixed_size(),
                        user_data_size_bits: c.user_data_size_bits().max(0) as u32,
                        flags: c.flags(),
                        using_varint_bitcounts: c.using_varint_bitcounts(),
                        ..Default::default()
                    });
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
    /// [`Anonymizer::transform`] of the same frame.
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

    /// Renames inside compressed string-table data; `None` when nothing
    /// changed.
    fn string_table_message(&mut self, id: u32, body: &[u8]) -> Result<Option<Vec<u8>>, ErrorKind> {
        let compressed_values = |t: &StringTable| t.flags & 1 != 0 && !t.user_data_fixed_size;
        if id == 44 {
            let mut c =
                pb::CSvcMsgCreateStringTable::decode(body).map_err(|e| ErrorKind::Unwritable {
                    what: "svc_CreateStringTable",
                    reason: e.to_string(),
                })?;
            let format = StringTable {
                name: c.name().to_string(),
                user_data_fixed_size: c.user_data_fixed_size(),
                user_data_size_bits: c.user_data_size_bits().max(0) as u32,
                flags: c.flags(),
                using_varint_bitcounts: c.using_varint_bitcounts(),
                ..Default::default()
            };
            if !c.data_compressed() && !compressed_values(&format) {
                return Ok(None);
            }
            let raw = c.string_data.take().unwrap_or_default();
            let mut data = if c.data_compressed() {
                crate::stringtable::decompress(&raw, "string table data")?
            } else {
                raw.clone()
            };
            let mut changed = false;
            if compressed_values(&format) {
                if let Some(d) = self.compressed_values(&format, &data, c.num_entries())? {
                    data = d;
                    changed = true;
                }
            }
            if c.data_compressed() {
                let n = self.substituter.apply(&mut data);
                self.renamed += n as u64;
                changed |= n > 0;
            }
            if !changed {
                return Ok(None);
            }
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
        let mut u =
            pb::CSvcMsgUpdateStringTable::decode(body).map_err(|e| ErrorKind::Unwritable {
                what: "svc_UpdateStringTable",
                reason: e.to_string(),
            })?;
        let Some(format) = usize::try_from(u.table_id())
            .ok()
            .and_then(|i| self.tables.get(i))
            .filter(|t| compressed_values(t))
            .cloned()
        else {
            return Ok(None);
        };
        match self.compressed_values(&format, u.string_data(), u.num_changed_entries())? {
            Some(data) => {
                u.string_data = Some(data);
                Ok(Some(u.encode_to_vec()))
            }
            None => Ok(None),
        }
    }

    /// Renames inside the compressed values of an entry stream.
    fn compressed_values(
        &mut self,
        format: &StringTable,
        data: &[u8],
        count: i32,
    ) -> Result<Option<Vec<u8>>, ErrorKind> {
        let mut stream = read_entry_stream(format, data, count)?;
        let mut changed = false;
        for e in &mut stream.entries {
            let Some(v) = e.value.as_mut() else { continue };
            if v.compressed != Some(true) {
                continue;
            }
            let mut raw = crate::stringtable::decompress(&v.stored, "string table value")?;
            let n = self.substituter.apply(&mut raw);
            if n > 0 {
                self.renamed += n as u64;
                crate::container_writer::compress_payload(&raw, &mut v.stored)?;
                changed = true;
            }
        }
        if !changed {
            return Ok(None);
        }
        Ok(Some(write_entry_stream(format, &stream)?))
    }

    /// A packet without its voice and chat messages and with its compressed
    /// string-table data renamed; `None` when no message changed.
    fn transform_packet(&mut self, data: &[u8], tick: i32) -> Option<Vec<u8>> {
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
                        format!("a packet could not be split ({e}); renamed in place only"),
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
            if m.id == 44 || m.id == 45 {
                match self.string_table_message(m.id, &m.body) {
                    Ok(Some(body)) => {
                        changed = true;
                        out.push((m.id, body.into()));
                        continue;
                    }
                    Ok(None) => {}
                    Err(e) => self.warn(tick, format!("string table message {}: {e}", m.id)),
                }
            }
            kept += 1;
            out.push((m.id, m.body));
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
        // The original padding bits when they fit the new last byte (the
        // packet is shorter by whole messages, so its last byte may have
        // fewer free bits): zero bits otherwise, which readers ignore.
        if left > 0 && left < 8 {
            if let Ok(bytes) = w.clone().finish_with_padding(padding as u8) {
                return Some(bytes);
            }
        }
        Some(w.finish())
    }

    /// A `CDemoPacket` with its packet transformed; `None` when unchanged.
    fn transform_demo_packet(&mut self, payload: &[u8], tick: i32) -> Option<Vec<u8>> {
        let span = find_len_field(payload, 3)?;
        let data = payload.get(span.value.clone())?;
        let packet = self.transform_packet(data, tick)?;
        Some(splice_len_field(payload, &span, 3, &packet))
    }

    /// The anonymized payload of a frame (decompressed), or `None` when
    /// it is unchanged. [`Anonymizer::learn`] must have seen this frame and
    /// the ones before.
    pub fn transform(
        &mut self,
        command: DemoCommand,
        tick: i32,
        payload: &[u8],
    ) -> Option<Vec<u8>> {
        let mut changed = match command {
            // Schema only: field and class names, in which a short bot name
            // can occur by chance.
            DemoCommand::SendTables | DemoCommand::ClassInfo => return None,
            DemoCommand::Packet | DemoCommand::SignonPacket => {
                self.transform_demo_packet(payload, tick)
            }
            DemoCommand::FullPacket => find_len_field(payload, 2).and_then(|span| {
                let inner = payload.get(span.value.clone())?;
                let packet = self.transform_demo_packet(inner, tick)?;
                Some(splice_len_field(payload, &span, 2, &packet))
            }),
            _ => None,
        };
        let mut data = changed.take().unwrap_or_else(|| payload.to_vec());
        let differs = data.len() != payload.len() || data != payload;
        let n = self.substituter.apply(&mut data);
        self.renamed += n as u64;
        (differs || n > 0).then_some(data)
    }
}

/// What OUT must decode to, from what IN decodes to: IN's values under
/// the renaming.
#[derive(Debug, Default)]
struct ValueMap {
    substituter: Substituter,
    steamids: FxHashMap<u64, u64>,
    accounts: FxHashMap<u32, u32>,
}

impl ValueMap {
    fn new(anon: &Anonymizer) -> Self {
        let mut m = ValueMap {
            substituter: anon.substituter.clone(),
            ..Default::default()
        };
        for p in &anon.players {
            if p.steamid as u32 >= 1 << 16 {
                m.steamids
                    .insert(p.steamid, anon.pseudonyms.steamid(p.steamid));
                m.accounts
                    .insert(p.steamid as u32, anon.pseudonyms.account_id(p.steamid));
            }
        }
        m
    }

    fn string(&self, s: &str) -> Vec<u8> {
        // As a cstring, the way entity fields write strings.
        let mut bytes = Vec::with_capacity(s.len() + 1);
        bytes.extend_from_slice(s.as_bytes());
        bytes.push(0);
        self.substituter.apply_aligned(&mut bytes);
        bytes
    }

    fn hash_value(&self, v: &Value, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash;
        match v {
            Value::String(s) => self.string(s).hash(h),
            Value::U64(x) => self.steamids.get(x).unwrap_or(x).hash(h),
            Value::U32(x) => self.accounts.get(x).unwrap_or(x).hash(h),
            Value::I32(x) => self
                .accounts
                .get(&(*x as u32))
                .map_or(*x, |a| *a as i32)
                .hash(h),
            Value::I64(x) => self
                .steamids
                .get(&(*x as u64))
                .map_or(*x, |a| *a as i64)
                .hash(h),
            Value::F32(f) => f.to_bits().hash(h),
            Value::Vec2(a) => a.map(f32::to_bits).hash(h),
            Value::Vec3(a) => a.map(f32::to_bits).hash(h),
            Value::Vec4(a) => a.map(f32::to_bits).hash(h),
            Value::Vec6(a) => a.map(f32::to_bits).hash(h),
            Value::Bool(b) => b.hash(h),
            Value::Bytes(b) => b.hash(h),
        }
    }
}

/// Digests the entity changes and game events of a frame.
#[derive(Debug, Default)]
struct FrameDigest {
    map: Option<ValueMap>,
    entities: u64,
    events: u64,
}

impl crate::Visitor for FrameDigest {
    fn interests(&self) -> crate::Interests {
        crate::Interests {
            entities: true,
            game_events: true,
            send_tables: true,
            ..crate::Interests::NONE
        }
    }

    fn on_entity(
        &mut self,
        _state: &crate::DemoState,
        change: crate::EntityChange,
        entity: &crate::Entity,
        paths: &[crate::FieldPath],
    ) {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        (entity.index, entity.serial, entity.class_id, change as u8).hash(&mut h);
        let none = ValueMap::default();
        let map = self.map.as_ref().unwrap_or(&none);
        for p in paths {
            p.as_slice().hash(&mut h);
            if let Some(v) = entity.get(p) {
                map.hash_value(v, &mut h);
            }
        }
        self.entities = self.entities.wrapping_mul(31).wrapping_add(h.finish());
    }

    fn on_game_event(&mut self, _state: &crate::DemoState, event: &crate::GameEvent) {
        use std::hash::{Hash, Hasher};
        if CHAT_EVENTS.contains(&event.name.as_str()) {
            return;
        }
        let mut h = rustc_hash::FxHasher::default();
        event.id.hash(&mut h);
        for (_, _, v) in &event.keys {
            match v {
                crate::EventValue::String(s) => match &self.map {
                    Some(m) => m.string(s).hash(&mut h),
                    None => {
                        let mut b = s.as_bytes().to_vec();
                        b.push(0);
                        b.hash(&mut h);
                    }
                },
                crate::EventValue::U64(x) => {
                    let m = self.map.as_ref().and_then(|m| m.steamids.get(x));
                    m.unwrap_or(x).hash(&mut h);
                }
                crate::EventValue::Float(f) => f.to_bits().hash(&mut h),
                crate::EventValue::Int(i) => i.hash(&mut h),
                crate::EventValue::Bool(b) => b.hash(&mut h),
            }
        }
        self.events = self.events.wrapping_mul(31).wrapping_add(h.finish());
    }
}

/// Decodes IN and OUT side by side, frame by frame: the entity changes and
/// game events of each frame of OUT must be IN's with the identities
/// renamed, and nothing else changed. A chance match of an identity's
/// bits inside an unrelated value would show here, and stops the
/// anonymization with an error instead of writing a wrong demo.
struct Verifier {
    input: crate::DemoParser<'static>,
    output: crate::DemoParser<'static>,
    players: usize,
    map: FrameDigest,
    plain: FrameDigest,
}

impl Verifier {
    fn new() -> Result<Self, DemoError> {
        Ok(Verifier {
            input: crate::DemoParser::detached()?,
            output: crate::DemoParser::detached()?,
            players: usize::MAX,
            map: FrameDigest::default(),
            plain: FrameDigest::default(),
        })
    }

    /// Checks one frame: `payload` as read, `written` as written (`None`:
    /// the same). `Ok(Err(e))`: IN itself does not decode here, the edit
    /// ends before this frame as at a cut; `Err`: OUT is not IN renamed.
    fn check(
        &mut self,
        anon: &Anonymizer,
        frame: &crate::container::Frame<'_>,
        written: Option<&[u8]>,
    ) -> Result<Result<(), DemoError>, DemoError> {
        if self.players != anon.players.len() {
            self.players = anon.players.len();
            self.map.map = Some(ValueMap::new(anon));
        }
        self.map.entities = 0;
        self.map.events = 0;
        self.plain.entities = 0;
        self.plain.events = 0;
        if let Err(e) = self.input.apply_frame(frame, &mut self.map) {
            return Ok(Err(e));
        }
        let out = crate::container::Frame {
            payload: std::borrow::Cow::Borrowed(written.unwrap_or(&frame.payload)),
            ..frame.clone()
        };
        self.output.apply_frame(&out, &mut self.plain)?;
        if (self.map.entities, self.map.events) != (self.plain.entities, self.plain.events) {
            return Err(DemoError {
                kind: ErrorKind::Unwritable {
                    what: "anonymized frame",
                    reason: format!(
                        "renaming in place would change more than the identities in frame {} \
                         (its {} decode to other values): a chance match, not written",
                        frame.index,
                        if self.map.entities != self.plain.entities {
                            "entities"
                        } else {
                            "game events"
                        }
                    ),
                },
                location: Location {
                    byte_offset: frame.offset,
                    frame: frame.index,
                    tick: frame.tick,
                },
            });
        }
        Ok(Ok(()))
    }
}

/// A frame held back: as stored.
struct HeldFrame {
    command: DemoCommand,
    compressed: bool,
    tick: i32,
    offset: u64,
    index: u64,
    stored: Vec<u8>,
}

/// Frames held back before the players are known: at most this many bytes.
const MAX_HELD_BACK: usize = 64 << 20;

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
    let mut stream = FrameStream::new(input)?;
    let mut writer = DemoWriter::new(out)?;
    let mut anon = Anonymizer::new(options);
    let mut verifier = Verifier::new()?;
    let mut report = EditReport::new();
    let mut held: Vec<HeldFrame> = Vec::new();
    let mut held_bytes = 0usize;
    let mut stopped = false;
    let mut last_tick = -1;
    loop {
        let frame = match stream.next_frame() {
            Ok(Some(f)) => f,
            Ok(None) => {
                if !stopped {
                    report.ended_early(missing_stop(&stream));
                }
                break;
            }
            // A frame that ends early or does not decompress: the demo is
            // anonymized up to it.
            Err(e) => {
                report.ended_early(e);
                break;
            }
        };
        let f = &frame.frame;
        report.frame_read(f.tick);
        stopped |= f.command == DemoCommand::Stop;
        last_tick = f.tick;
        anon.learn(f.command, &f.payload);
        let hold = !anon.knows_userinfo()
            && !matches!(f.command, DemoCommand::Packet | DemoCommand::Stop)
            && held_bytes + frame.stored.len() <= MAX_HELD_BACK;
        if hold {
            held_bytes += frame.stored.len();
            held.push(HeldFrame {
                command: f.command,
                compressed: f.compressed,
                tick: f.tick,
                offset: f.offset,
                index: f.index,
                stored: frame.stored.to_vec(),
            });
            continue;
        }
        let mut unreadable = None;
        for h in held.drain(..) {
            if unreadable.is_none() {
                unreadable = write_held(&mut writer, &mut anon, &mut verifier, &h)?.err();
            }
        }
        held_bytes = 0;
        if let Some(e) = unreadable {
            report.ended_early(e);
            break;
        }
        let new = anon.transform(f.command, f.tick, &f.payload);
        if let Err(e) = verifier.check(&anon, f, new.as_deref())? {
            report.ended_early(e);
            break;
        }
        match new {
            Some(new) => writer.write_frame(f.command, f.tick, f.compressed, &new)?,
            None => writer.write_raw_frame(f.command, f.tick, f.compressed, frame.stored)?,
        }
    }
    for h in held.drain(..) {
        if let Err(e) = write_held(&mut writer, &mut anon, &mut verifier, &h)? {
            report.ended_early(e);
            break;
        }
    }
    if report.cut.is_some() && !stopped {
        writer.write_frame(DemoCommand::Stop, last_tick, false, &[])?;
    }
    report.frames_written = writer.frames_written();
    report.messages_copied = anon.messages_kept;
    report.warnings.append(&mut anon.warnings);
    report.warnings.push(Warning {
        tick: last_tick,
        message: format!(
            "anonymized: {} players, {} identities renamed in place, {} chat and {} voice messages dropped",
            anon.players.len(),
            anon.renamed,
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
    verifier: &mut Verifier,
    frame: &HeldFrame,
) -> Result<Result<(), DemoError>, DemoError> {
    let owned;
    let payload: &[u8] = if frame.compressed {
        owned = crate::stringtable::decompress(&frame.stored, "frame payload").map_err(|kind| {
            DemoError {
                kind,
                location: Location {
                    byte_offset: frame.offset,
                    frame: frame.index,
                    tick: frame.tick,
                },
            }
        })?;
        &owned
    } else {
        &frame.stored
    };
    let new = anon.transform(frame.command, frame.tick, payload);
    let read = crate::container::Frame {
        command: frame.command,
        tick: frame.tick,
        compressed: frame.compressed,
        offset: frame.offset,
        index: frame.index,
        payload: std::borrow::Cow::Borrowed(payload),
    };
    if let Err(e) = verifier.check(anon, &read, new.as_deref())? {
        return Ok(Err(e));
    }
    match new {
        Some(new) => writer.write_frame(frame.command, frame.tick, frame.compressed, &new)?,
        None => {
            writer.write_raw_frame(frame.command, frame.tick, frame.compressed, &frame.stored)?
        }
    }
    Ok(Ok(()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
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
    fn player_info_is_renamed_in_place() {
        let options = AnonymizeOptions::from_passphrase("test");
        let mut anon = Anonymizer::new(&options);
        let info = pb::CMsgPlayerInfo {
            name: Some("Partridge".into()),
            xuid: Some(76_561_197_966_986_733),
            steamid: Some(76_561_197_966_986_733),
            userid: Some(0),
            ..Default::default()
        };
        let bytes = info.encode_to_vec();
        anon.learn_player_info(&bytes);
        let out = anon.transform(DemoCommand::CustomData, 1, &bytes).unwrap();
        assert_eq!(out.len(), bytes.len());
        let back = pb::CMsgPlayerInfo::decode(&*out).unwrap();
        let p = options.pseudonyms();
        assert_eq!(back.name(), p.name(76_561_197_966_986_733, "", 9));
        assert_eq!(back.steamid(), p.steamid(76_561_197_966_986_733));
        assert_eq!(back.xuid(), back.steamid());
        assert_eq!(back.userid(), 0);
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
        let out = anon.transform_packet(&data, 0).unwrap();
        let mut it = PacketMessages::new(&out);
        let ids: Vec<u32> = it.by_ref().map(|m| m.unwrap().id).collect();
        assert_eq!(ids, [4]);
        assert_eq!((anon.chat_dropped, anon.voice_dropped), (1, 1));
        let mut keep = Anonymizer::new(&AnonymizeOptions {
            keep_chat: true,
            ..AnonymizeOptions::from_passphrase("k")
        });
        keep.game = Game::Cs2;
        let out = keep.transform_packet(&data, 0).unwrap();
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
                .transform(DemoCommand::SignonPacket, -1, &payload)
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
            assert_eq!(info.name(), p.name(steamid, "", 16));
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
        let out = anon.transform(DemoCommand::Packet, 1, &payload).unwrap();
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
        assert_eq!(text(&events[0], 0), p.name(s, "", 9));
        assert_eq!(
            text(&events[0], 2),
            format!("STEAM_1:{}:{}", fake & 1, fake >> 1)
        );
        assert_eq!(text(&events[1], 0), p.name(0, "Waldo", 5));
        assert_eq!(text(&events[1], 2), "BOT");
    }

    /// An account id equal to 32 bits somewhere in the middle of a frame's
    /// entity data is renamed there too, by chance: the side-by-side
    /// decode sees the entities change and stops with an error.
    #[test]
    fn a_chance_match_is_refused() {
        use crate::container::FrameReader;
        let data = std::fs::read(gamewire_corpus::path("cs2/14065.dem")).unwrap();
        let mut reader = FrameReader::new(&data).unwrap();
        let mut frames = Vec::new();
        while let Some(f) = reader.next_frame().unwrap() {
            frames.push(f);
        }
        // 32 bits from the middle of a large packet of entity updates.
        let (at, f) = frames
            .iter()
            .enumerate()
            .filter(|(_, f)| f.command == DemoCommand::Packet && f.tick > 10)
            .max_by_key(|(_, f)| f.payload.len())
            .unwrap();
        let mid = f.payload.len() / 2;
        let mut bits = [0u8; 5];
        bits.copy_from_slice(&f.payload[mid..mid + 5]);
        let word = (u64::from_le_bytes([bits[0], bits[1], bits[2], bits[3], bits[4], 0, 0, 0]) >> 3)
            as u32;
        assert!(word >= 1 << 16);
        let options = AnonymizeOptions::from_passphrase("k");
        let mut anon = Anonymizer::new(&options);
        let mut verifier = Verifier::new().unwrap();
        let mut failed = None;
        for (i, f) in frames.iter().enumerate() {
            anon.learn(f.command, &f.payload);
            if i == at {
                anon.learn_identity(Identity {
                    name: String::new(),
                    steamid: super::super::pseudonym::STEAM_ID64_BASE + u64::from(word),
                });
            }
            let new = anon.transform(f.command, f.tick, &f.payload);
            match verifier.check(&anon, f, new.as_deref()) {
                Ok(Ok(())) => {}
                Ok(Err(e)) => panic!("IN does not decode: {e}"),
                Err(e) => {
                    failed = Some((i, e));
                    break;
                }
            }
        }
        let (i, e) = failed.unwrap();
        assert_eq!(i, at);
        assert_eq!(e.location.frame, f.index);
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
