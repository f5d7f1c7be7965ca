//! User commands: the input each player's client sent, as the server ran
//! it (CS2's whole, other games' base command).
//!
//! A CS2 demo packet may carry `CSVCMsg_UserCommands` (svc message 76): a
//! list of `CMsgServerUserCmd`, each with the client's command number, the
//! player slot, the server tick that executed it, and `data`, a
//! `CSGOUserCmdPB` (`cs_usercmd.proto`). That message holds:
//!
//! - the base command (`CBaseUserCmdPB`): view angles, forward/left/up move,
//!   the three button-state words, impulse, weapon selection, mouse deltas,
//!   the server angle changes the client had consumed, and the handle of the
//!   pawn it drives;
//! - the input history (`CSGOInputHistoryEntryPB`): the sub-tick view angles
//!   the client rendered, with render and player tick counts and fractions
//!   (what shot and hit registration use);
//! - `left_hand_desired`, whether the viewmodel is held in the left hand.
//!
//! Other games send commands of their own types, which start with the same
//! base command (field 1, as `CUserCmdBasePB`): Deadlock's (and any game's
//! but CS2's) are decoded to that base only, without input history. The
//! protobuf types come from the `awpy-proto` crate, as
//! `source2-demo-protobufs` does not generate `cs_usercmd.proto`.

use awpy_proto::proto as cs;
use prost::Message;
use source2_demo_protobufs as pb;

use crate::entity::Handle;
use crate::error::UserCommandsError;

/// One entry of a command's input history. It serializes to demoparser2's
/// shape: `x`, `y`, `z`, then the tick counts and fractions.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct InputHistoryEntry {
    /// View angle pitch; zero when the entry has no view angles.
    pub x: f32,
    /// View angle yaw.
    pub y: f32,
    /// View angle roll.
    pub z: f32,
    /// The tick the client rendered.
    pub render_tick_count: i32,
    /// How far into that tick.
    pub render_tick_fraction: f32,
    /// The tick the client's own player was at.
    pub player_tick_count: i32,
    /// How far into that tick.
    pub player_tick_fraction: f32,
}

/// One user command.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct UserCommand {
    /// The demo tick of the packet that carried it.
    pub tick: i32,
    /// The client's command number.
    pub cmd_number: Option<i32>,
    /// The player slot (controller entity index − 1).
    pub player_slot: Option<i32>,
    /// The server tick that executed it.
    pub server_tick_executed: Option<i32>,
    /// The client tick it was made at.
    pub client_tick: Option<i32>,
    /// The pawn it drives (`None` for the invalid handle).
    pub pawn: Option<Handle>,
    /// View angles (pitch, yaw, roll), if sent.
    pub view_angles: Option<[f32; 3]>,
    /// Forward move, −1 to 1.
    pub forward_move: f32,
    /// Left move, −1 to 1.
    pub left_move: f32,
    /// Up move.
    pub up_move: f32,
    /// The three button-state words (held, pressed, released), if sent.
    pub buttons: Option<[u64; 3]>,
    /// Impulse.
    pub impulse: i32,
    /// Weapon selected.
    pub weapon_select: i32,
    /// Mouse x delta.
    pub mouse_dx: i32,
    /// Mouse y delta.
    pub mouse_dy: i32,
    /// Server angle changes the client had consumed.
    pub consumed_server_angle_changes: u32,
    /// Viewmodel in the left hand.
    pub left_hand_desired: bool,
    /// The sub-tick input history.
    pub input_history: Vec<InputHistoryEntry>,
}

fn angles(a: &cs::CMsgQAngle) -> [f32; 3] {
    [a.x(), a.y(), a.z()]
}

impl UserCommand {
    /// Decodes one `CMsgServerUserCmd` at a tick: `None` when it has no
    /// base command (nothing a player did), an error when its `data` is not
    /// a `CSGOUserCmdPB` (`cs2`) or does not start with a base command (any
    /// other game).
    pub fn decode(
        server: &pb::CMsgServerUserCmd,
        tick: i32,
        cs2: bool,
    ) -> Result<Option<UserCommand>, prost::DecodeError> {
        let data = server.data.as_deref().unwrap_or(&[]);
        let cmd = if cs2 {
            cs::CsgoUserCmdPb::decode(data)?
        } else {
            cs::CsgoUserCmdPb {
                base: cs::CUserCmdBasePb::decode(data)?.base,
                ..Default::default()
            }
        };
        let Some(base) = cmd.base.as_ref() else {
            return Ok(None);
        };
        let input_history = cmd
            .input_history
            .iter()
            .map(|h| {
                let [x, y, z] = h.view_angles.as_ref().map(angles).unwrap_or_default();
                InputHistoryEntry {
                    x,
                    y,
                    z,
                    render_tick_count: h.render_tick_count(),
                    render_tick_fraction: h.render_tick_fraction(),
                    player_tick_count: h.player_tick_count(),
                    player_tick_fraction: h.player_tick_fraction(),
                }
            })
            .collect();
        Ok(Some(UserCommand {
            tick,
            cmd_number: server.cmd_number,
            player_slot: server.player_slot,
            server_tick_executed: server.server_tick_executed,
            client_tick: server.client_tick,
            pawn: Handle::from_raw(base.pawn_entity_handle()),
            view_angles: base.viewangles.as_ref().map(angles),
            forward_move: base.forwardmove(),
            left_move: base.leftmove(),
            up_move: base.upmove(),
            buttons: base
                .buttons_pb
                .as_ref()
                .map(|b| [b.buttonstate1(), b.buttonstate2(), b.buttonstate3()]),
            impulse: base.impulse(),
            weapon_select: base.weaponselect(),
            mouse_dx: base.mousedx(),
            mouse_dy: base.mousedy(),
            consumed_server_angle_changes: base.consumed_server_angle_changes(),
            left_hand_desired: cmd.left_hand_desired(),
            input_history,
        }))
    }

    /// This command over the pawn's previous one: view angles and buttons
    /// the command does not send keep their previous values (as the
    /// entity's state would).
    #[must_use]
    pub fn over(mut self, previous: Option<&UserCommand>) -> UserCommand {
        if let Some(p) = previous.filter(|p| p.pawn == self.pawn) {
            self.view_angles = self.view_angles.or(p.view_angles);
            self.buttons = self.buttons.or(p.buttons);
        }
        self
    }

    /// The input history as JSON: an array of objects with `x`, `y`, `z`
    /// (the view angles), `render_tick_count`, `render_tick_fraction`,
    /// `player_tick_count`, `player_tick_fraction` (demoparser2's shape).
    pub fn input_history_json(&self) -> String {
        serde_json::to_string(&self.input_history).unwrap_or_else(|_| "[]".to_string())
    }
}

/// Decodes a `CSVCMsg_UserCommands` body into its commands at a tick
/// (`cs2`: CS2's full commands, else their base command only).
pub fn decode_user_commands(
    body: &[u8],
    tick: i32,
    cs2: bool,
) -> Result<Vec<UserCommand>, UserCommandsError> {
    let m = pb::CSvcMsgUserCommands::decode(body).map_err(UserCommandsError::Message)?;
    let mut out = Vec::with_capacity(m.commands.len());
    for (index, c) in m.commands.iter().enumerate() {
        match UserCommand::decode(c, tick, cs2) {
            Ok(Some(cmd)) => out.push(cmd),
            Ok(None) => {}
            Err(source) => {
                let type_name = if cs2 {
                    "CSGOUserCmdPB"
                } else {
                    "CUserCmdBasePB"
                };
                return Err(UserCommandsError::Command {
                    index,
                    type_name,
                    source,
                });
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn encoded(pawn: u32, yaw: Option<f32>, history: usize) -> Vec<u8> {
        let cmd = cs::CsgoUserCmdPb {
            base: Some(cs::CBaseUserCmdPb {
                pawn_entity_handle: Some(pawn),
                viewangles: yaw.map(|y| cs::CMsgQAngle {
                    x: Some(1.5),
                    y: Some(y),
                    z: Some(0.0),
                }),
                forwardmove: Some(1.0),
                mousedx: Some(-7),
                buttons_pb: Some(cs::CInButtonStatePb {
                    buttonstate1: Some(9),
                    buttonstate2: None,
                    buttonstate3: Some(1),
                }),
                ..Default::default()
            }),
            input_history: (0..history)
                .map(|i| cs::CsgoInputHistoryEntryPb {
                    render_tick_count: Some(100 + i as i32),
                    render_tick_fraction: Some(0.25),
                    player_tick_count: Some(101 + i as i32),
                    ..Default::default()
                })
                .collect(),
            left_hand_desired: Some(true),
            ..Default::default()
        };
        pb::CSvcMsgUserCommands {
            commands: vec![pb::CMsgServerUserCmd {
                data: Some(cmd.encode_to_vec()),
                cmd_number: Some(42),
                player_slot: Some(3),
                ..Default::default()
            }],
        }
        .encode_to_vec()
    }

    #[test]
    fn decodes_a_command() {
        let cmds = decode_user_commands(&encoded((5 << 14) | 7, Some(90.0), 2), 10, true).unwrap();
        assert_eq!(cmds.len(), 1);
        let c = &cmds[0];
        assert_eq!(c.tick, 10);
        assert_eq!(c.cmd_number, Some(42));
        assert_eq!(c.player_slot, Some(3));
        assert_eq!(
            c.pawn,
            Some(Handle {
                index: 7,
                serial: 5
            })
        );
        assert_eq!(c.view_angles, Some([1.5, 90.0, 0.0]));
        assert_eq!(c.forward_move, 1.0);
        assert_eq!(c.mouse_dx, -7);
        assert_eq!(c.buttons, Some([9, 0, 1]));
        assert!(c.left_hand_desired);
        assert_eq!(c.input_history.len(), 2);
        assert_eq!(c.input_history[1].render_tick_count, 101);
        assert_eq!(c.input_history[1].player_tick_count, 102);
        let json: serde_json::Value = serde_json::from_str(&c.input_history_json()).unwrap();
        assert_eq!(json[0]["render_tick_fraction"], 0.25);
        assert_eq!(json[1]["x"], 0.0);
    }

    #[test]
    fn missing_angles_keep_the_previous_ones() {
        let first = decode_user_commands(&encoded(7, Some(45.0), 0), 1, true).unwrap();
        let second = decode_user_commands(&encoded(7, None, 0), 2, true).unwrap();
        let merged = second[0].clone().over(first.first());
        assert_eq!(merged.view_angles, Some([1.5, 45.0, 0.0]));
        assert_eq!(merged.tick, 2);
        // Another pawn's command is not merged.
        let other = decode_user_commands(&encoded(8, None, 0), 2, true).unwrap();
        assert_eq!(other[0].clone().over(first.first()).view_angles, None);
    }

    #[test]
    fn bad_bytes_are_errors() {
        let bad = pb::CSvcMsgUserCommands {
            commands: vec![pb::CMsgServerUserCmd {
                data: Some(vec![0x0a, 0xff, 0xff]),
                ..Default::default()
            }],
        }
        .encode_to_vec();
        let e = decode_user_commands(&bad, 0, true).unwrap_err().to_string();
        assert!(e.contains("command 0"), "{e}");
        assert!(decode_user_commands(&[0xff], 0, true).is_err());
        // A command without a base is skipped.
        let empty = pb::CSvcMsgUserCommands {
            commands: vec![pb::CMsgServerUserCmd::default()],
        }
        .encode_to_vec();
        assert!(decode_user_commands(&empty, 0, true).unwrap().is_empty());
        // Another game's command: its base only (no input history).
        let other = decode_user_commands(&encoded(7, Some(10.0), 2), 3, false).unwrap();
        assert_eq!(other[0].view_angles, Some([1.5, 10.0, 0.0]));
        assert!(other[0].input_history.is_empty() && !other[0].left_hand_desired);
    }
}
