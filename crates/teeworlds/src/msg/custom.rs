//! The messages whose body the engine parses by hand, so the generator cannot
//! describe them (`input`, `sv_vote_option_list_add`, `sv_game_msg`), and the
//! hex helpers the generated messages serialize raw bytes with.
//!
//! This module sits between the two generated ones: it uses the snapshot
//! objects and enumerations (`generated_objects.rs`) and is used by the
//! generated messages (`generated_messages.rs`).

use serde::{Serialize, Serializer};

use super::generated_objects::{gamemsg, PlayerInput};
use crate::int::{self, Packer, Sanitize, UnpackError, Unpacker};

/// Serializes bytes as a lowercase hex string.
pub fn hex_bytes<S: Serializer, T: AsRef<[u8]>>(b: &T, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&hex(b.as_ref()))
}

/// Lowercase hex of `b`.
pub fn hex(b: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(out, "{x:02x}");
    }
    out
}

/// Largest input the server accepts, in bytes (`MAX_INPUT_SIZE`).
pub const MAX_INPUT_SIZE: i32 = 128;

/// System message `input` (id 20): the client's input for a tick.
///
/// The server reads `input_size`, rejects it if `input_size / 4 >
/// MAX_INPUT_SIZE`, then reads `input_size / 4` ints (0.7.5 `server.cpp`).
/// The 0.7.5 client sends a 10-int [`PlayerInput`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Input {
    /// The last snapshot tick the client has.
    pub ack_snapshot: i32,
    /// The tick the input is meant for.
    pub intended_tick: i32,
    /// Size of the input in bytes.
    pub input_size: i32,
    /// The input ints (`input_size / 4` of them).
    pub input: Vec<i32>,
}

impl Input {
    /// Message id.
    pub const ID: i32 = 20;
    /// Name in the protocol list.
    pub const NAME: &'static str = "input";

    /// The input as a typed player input, if it has that size.
    pub fn player_input(&self) -> Option<PlayerInput> {
        PlayerInput::from_ints(&self.input)
    }

    /// Builds the message from a player input.
    pub fn new(ack_snapshot: i32, intended_tick: i32, input: &PlayerInput) -> Self {
        let mut v = Vec::with_capacity(PlayerInput::SIZE);
        input.to_ints(&mut v);
        Input {
            ack_snapshot,
            intended_tick,
            input_size: (v.len() * 4) as i32,
            input: v,
        }
    }

    /// Unpacks the body.
    pub fn unpack(u: &mut Unpacker<'_>) -> Result<Self, UnpackError> {
        let ack_snapshot = u.int("ack_snapshot")?;
        let intended_tick = u.int("intended_tick")?;
        let input_size = u.int("input_size")?;
        int::check_range("input_size", input_size / 4, i32::MIN, MAX_INPUT_SIZE)?;
        let n = usize::try_from(input_size / 4).unwrap_or(0);
        let mut input = Vec::with_capacity(n);
        for _ in 0..n {
            input.push(u.int("input")?);
        }
        Ok(Input {
            ack_snapshot,
            intended_tick,
            input_size,
            input,
        })
    }

    /// Packs the body.
    pub fn pack(&self, p: &mut Packer) {
        p.int(self.ack_snapshot);
        p.int(self.intended_tick);
        p.int(self.input_size);
        for &x in &self.input {
            p.int(x);
        }
    }
}

/// Game message `sv_vote_option_list_add` (id 12): a count and that many
/// option descriptions. The 0.7.5 client reads the count, then the strings
/// with `SANITIZE_CC` (`gameclient.cpp`); the server sends at most 15 per
/// message.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct SvVoteOptionListAdd {
    /// The announced count.
    pub num_options: i32,
    /// The descriptions.
    pub descriptions: Vec<String>,
}

impl SvVoteOptionListAdd {
    /// Message id.
    pub const ID: i32 = 12;
    /// Name in the protocol list.
    pub const NAME: &'static str = "sv_vote_option_list_add";

    /// Unpacks the body.
    pub fn unpack(u: &mut Unpacker<'_>) -> Result<Self, UnpackError> {
        let num_options = u.int("num_options")?;
        // Each description takes at least one byte, which bounds the count.
        let n = usize::try_from(num_options).unwrap_or(0);
        let mut descriptions = Vec::with_capacity(n.min(u.rest().len()));
        for _ in 0..n {
            descriptions.push(u.string("description", Sanitize::ControlOnly)?);
        }
        Ok(SvVoteOptionListAdd {
            num_options,
            descriptions,
        })
    }

    /// Packs the body.
    pub fn pack(&self, p: &mut Packer) {
        p.int(self.num_options);
        for d in &self.descriptions {
            p.string(d);
        }
    }
}

/// Game message `sv_game_msg` (id 21): a game message id from
/// [`gamemsg`] and 0 to 3 int parameters depending on it (`gs_GameMsgList` in
/// 0.7.5 `gameclient.cpp`: team_all, team_balance_victim, ctf_grab and
/// game_paused take one, ctf_capture three, the others none).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct SvGameMsg {
    /// The game message id.
    pub game_msg_id: i32,
    /// Its parameters.
    pub params: Vec<i32>,
}

impl SvGameMsg {
    /// Message id.
    pub const ID: i32 = 21;
    /// Name in the protocol list.
    pub const NAME: &'static str = "sv_game_msg";

    /// Number of int parameters of a game message id.
    pub fn num_params(game_msg_id: i32) -> usize {
        match game_msg_id {
            gamemsg::TEAM_ALL
            | gamemsg::TEAM_BALANCE_VICTIM
            | gamemsg::CTF_GRAB
            | gamemsg::GAME_PAUSED => 1,
            gamemsg::CTF_CAPTURE => 3,
            _ => 0,
        }
    }

    /// Unpacks the body.
    pub fn unpack(u: &mut Unpacker<'_>) -> Result<Self, UnpackError> {
        let game_msg_id = u.int_range("game_msg_id", 0, gamemsg::GAME_PAUSED)?;
        let mut params = Vec::new();
        for _ in 0..Self::num_params(game_msg_id) {
            params.push(u.int("param")?);
        }
        Ok(SvGameMsg {
            game_msg_id,
            params,
        })
    }

    /// Packs the body.
    pub fn pack(&self, p: &mut Packer) {
        p.int(self.game_msg_id);
        for &x in &self.params {
            p.int(x);
        }
    }
}
