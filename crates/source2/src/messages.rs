//! User messages and protobuf game events, decoded by id.
//!
//! Besides entity updates and the legacy game events, a demo packet carries
//! protobuf messages the game sends to clients: user messages (chat, hint
//! and centre text, damage reports, round-end reports, rank updates, vote
//! messages, …) and protobuf game events (`CMsgTEFireBullets`,
//! `CMsgTEPlayerAnimEvent`, …). Their ids are per game: CS2's
//! `ECstrike15UserMessages` and Deadlock's `CitadelUserMessageIds` both start
//! at 300, so the game (from the file header's game directory) picks the
//! table. The id → type table is generated from the protobuf crate's enums
//! and structs by `tools/gen_source2_messages.py`
//! (`messages_generated.rs`); each message decodes into its prost type and
//! is turned into JSON through the type's serde implementation.

use crate::error::MessageJsonError;
pub use crate::game::{Game, MessageKind};
use crate::messages_generated::{decode_json, MESSAGE_TYPES};

/// The kind, enum name and protobuf type of a message id in a game, if
/// known (the type is `None` for temp entities, which the protobuf crate
/// does not cover).
pub fn message_type(
    game: Game,
    id: u32,
) -> Option<(MessageKind, &'static str, Option<&'static str>)> {
    let specific = MESSAGE_TYPES
        .iter()
        .find(|(g, i, ..)| *g == game && *i == id && game != Game::Any);
    let base = || {
        MESSAGE_TYPES
            .iter()
            .find(|(g, i, ..)| *g == Game::Any && *i == id)
    };
    specific
        .or_else(base)
        .map(|&(_, _, kind, name, ty)| (kind, name, ty))
}

/// Every known message of a game: (id, kind, enum name, protobuf type).
pub fn message_types(game: Game) -> Vec<(u32, MessageKind, &'static str, Option<&'static str>)> {
    let mut out: Vec<_> = MESSAGE_TYPES
        .iter()
        .filter(|(g, ..)| *g == game || *g == Game::Any)
        .map(|&(_, id, kind, name, ty)| (id, kind, name, ty))
        .collect();
    out.sort_by_key(|r| r.0);
    out
}

/// Decodes a message payload to JSON. `None` for an id with no known type in
/// this game; `Some(Err)` when the payload does not decode as its type.
pub fn to_json(
    game: Game,
    id: u32,
    payload: &[u8],
) -> Option<Result<serde_json::Value, MessageJsonError>> {
    decode_json(game, id, payload)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use prost::Message;
    use source2_demo_protobufs as pb;

    #[test]
    fn game_from_directory() {
        assert_eq!(
            Game::from_game_directory(r"C:\Steam\common\Counter-Strike Global Offensive\game\csgo"),
            Game::Cs2
        );
        assert_eq!(
            Game::from_game_directory("/home/x/dota 2 beta/game/dota/"),
            Game::Dota2
        );
        assert_eq!(
            Game::from_game_directory(r"D:\Deadlock\game\citadel"),
            Game::Deadlock
        );
        assert_eq!(Game::from_game_directory("hl2"), Game::Any);
        assert_eq!(
            Game::from_class_names(["CBaseEntity", "CCSPlayerPawn"]),
            Game::Cs2
        );
        assert_eq!(
            Game::from_class_names(["CDOTA_PlayerResource"]),
            Game::Dota2
        );
        assert_eq!(
            Game::from_class_names(["CCitadelPlayerPawn"]),
            Game::Deadlock
        );
        assert_eq!(Game::from_class_names(["CBaseEntity"]), Game::Any);
    }

    #[test]
    fn ids_are_per_game() {
        // 306 is CS2's legacy SayText2 and Deadlock's AbilityFailed-range id.
        let cs = message_type(Game::Cs2, 306).unwrap();
        assert_eq!(cs.1, "CsUmSayText2CsgoLegacy");
        assert_eq!(cs.2, Some("CUserMessageSayText2"));
        assert_ne!(
            message_type(Game::Deadlock, 321),
            message_type(Game::Cs2, 321)
        );
        // Base ids are known in every game.
        assert_eq!(message_type(Game::Dota2, 118).unwrap().1, "UmSayText2");
        assert_eq!(
            message_type(Game::Cs2, 452).unwrap().2,
            Some("CMsgTeFireBullets")
        );
        // Temp entities are named, without a type to decode them.
        let te = message_type(Game::Cs2, 411).unwrap();
        assert_eq!(
            (te.0, te.1, te.2),
            (MessageKind::TempEntity, "TeWorldDecalId", None)
        );
        assert!(message_type(Game::Any, 452).is_none());
        assert!(message_types(Game::Cs2).len() > 100);
    }

    #[test]
    fn decodes_a_message_we_encode() {
        let m = pb::CUserMessageSayText2 {
            entityindex: Some(3),
            chat: Some(true),
            messagename: Some("Cstrike_Chat_All".into()),
            param1: Some("Partridge".into()),
            param2: Some("gg".into()),
            ..Default::default()
        };
        let json = to_json(Game::Cs2, 118, &m.encode_to_vec())
            .unwrap()
            .unwrap();
        assert_eq!(json["param1"], "Partridge");
        assert_eq!(json["param2"], "gg");
        assert_eq!(json["entityindex"], 3);
        // Garbage is an error, not a panic; unknown ids are None.
        assert!(to_json(Game::Cs2, 118, &[0xff, 0xff, 0xff])
            .unwrap()
            .is_err());
        assert!(to_json(Game::Cs2, 9999, &[]).is_none());
    }

    #[test]
    fn every_listed_type_decodes_an_empty_payload() {
        for &(game, id, _, _, ty) in MESSAGE_TYPES {
            let r = to_json(game, id, &[]);
            if ty.is_none() {
                assert!(r.is_none());
                continue;
            }
            assert!(matches!(r, Some(Ok(_))), "{game:?} {id}: {r:?}");
        }
    }
}
