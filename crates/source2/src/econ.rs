//! CS2 economy items in user messages: the items dropped to players at the
//! end of a match (`CCSUsrMsg_SendPlayerItemDrops`, user message 361) and
//! the items each player had equipped, sent with the end-of-match summary
//! (`CCSUsrMsg_EndOfMatchAllPlayersData`, 375). Both carry
//! `CEconItemPreviewDataBlock`s: definition index, paint kit, seed, wear,
//! rarity, quality, custom name.

use prost::Message;
use source2_demo_protobufs as pb;

use crate::messages::Game;
use crate::visitor::UserMessage;

/// CS2's user message ids of the two messages.
const ITEM_DROPS_ID: u32 = 361;
const END_OF_MATCH_ID: u32 = 375;

/// The 64-bit steam id of account id 0 (individual accounts, public
/// universe): a steam id is this plus the account id.
pub const STEAMID64_BASE: u64 = 76_561_197_960_265_728;

/// One economy item.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EconItem {
    /// The owner's account id (32-bit steam id).
    pub account_id: Option<u32>,
    /// The item's id.
    pub item_id: Option<u64>,
    /// Item definition index (the weapon, knife, glove, agent, ...).
    pub def_index: Option<u32>,
    /// Paint kit (the skin).
    pub paint_index: Option<u32>,
    /// Pattern seed.
    pub paint_seed: Option<u32>,
    /// Wear as sent: the bits of a 32-bit float ([`EconItem::wear`]).
    pub paint_wear: Option<u32>,
    /// Rarity.
    pub rarity: Option<u32>,
    /// Quality.
    pub quality: Option<u32>,
    /// Why it was dropped (item drops).
    pub dropreason: Option<u32>,
    /// Inventory position.
    pub inventory: Option<u32>,
    /// The custom name (name tag), if any.
    pub custom_name: Option<String>,
    /// The entity the item is, if it is one.
    pub entity_index: Option<i32>,
}

impl EconItem {
    fn from_block(b: &pb::CEconItemPreviewDataBlock) -> EconItem {
        EconItem {
            account_id: b.accountid,
            item_id: b.itemid,
            def_index: b.defindex,
            paint_index: b.paintindex,
            paint_seed: b.paintseed,
            paint_wear: b.paintwear,
            rarity: b.rarity,
            quality: b.quality,
            dropreason: b.dropreason,
            inventory: b.inventory,
            custom_name: b.customnames.iter().find(|n| !n.is_empty()).cloned(),
            entity_index: b.entindex,
        }
    }

    /// The wear (float value) of the skin, 0 (factory new) to 1.
    pub fn wear(&self) -> Option<f32> {
        self.paint_wear.map(f32::from_bits)
    }

    /// The owner's 64-bit steam id, from the account id.
    pub fn steamid(&self) -> Option<u64> {
        self.account_id
            .filter(|&a| a != 0)
            .map(|a| STEAMID64_BASE + u64::from(a))
    }
}

/// A player of the end-of-match summary and the items they had equipped.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EndOfMatchPlayer {
    /// Player slot.
    pub slot: Option<i32>,
    /// 64-bit steam id.
    pub steamid: Option<u64>,
    /// Name.
    pub name: Option<String>,
    /// Team number.
    pub team: Option<i32>,
    /// A bot.
    pub is_bot: Option<bool>,
    /// The items (those with an item id; default items have none).
    pub items: Vec<EconItem>,
}

impl UserMessage<'_> {
    /// The items of a `SendPlayerItemDrops` message (CS2); `None` for
    /// another message or one that does not decode.
    pub fn item_drops(&self) -> Option<Vec<EconItem>> {
        if self.game != Game::Cs2 || self.id != ITEM_DROPS_ID {
            return None;
        }
        let m = pb::CCsUsrMsgSendPlayerItemDrops::decode(self.payload).ok()?;
        Some(m.entity_updates.iter().map(EconItem::from_block).collect())
    }

    /// The players of an `EndOfMatchAllPlayersData` message (CS2) with
    /// their equipped items; `None` for another message or one that does
    /// not decode.
    pub fn end_of_match_players(&self) -> Option<Vec<EndOfMatchPlayer>> {
        if self.game != Game::Cs2 || self.id != END_OF_MATCH_ID {
            return None;
        }
        let m = pb::CCsUsrMsgEndOfMatchAllPlayersData::decode(self.payload).ok()?;
        Some(
            m.allplayerdata
                .iter()
                .map(|p| EndOfMatchPlayer {
                    slot: p.slot,
                    steamid: p.xuid,
                    name: p.name.clone(),
                    team: p.teamnumber,
                    is_bot: p.isbot,
                    items: p
                        .items
                        .iter()
                        .filter(|i| i.itemid.unwrap_or(0) != 0)
                        .map(EconItem::from_block)
                        .collect(),
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn block(item: u64, def: u32, wear: f32) -> pb::CEconItemPreviewDataBlock {
        pb::CEconItemPreviewDataBlock {
            accountid: Some(12345),
            itemid: Some(item),
            defindex: Some(def),
            paintindex: Some(44),
            paintseed: Some(661),
            paintwear: Some(wear.to_bits()),
            customnames: vec!["my gun".into()],
            ..Default::default()
        }
    }

    #[test]
    fn item_drops_decode() {
        let payload = pb::CCsUsrMsgSendPlayerItemDrops {
            entity_updates: vec![block(9_000_000_001, 7, 0.25)],
        }
        .encode_to_vec();
        let msg = UserMessage {
            id: ITEM_DROPS_ID,
            game: Game::Cs2,
            payload: &payload,
        };
        let items = msg.item_drops().unwrap();
        assert_eq!(items.len(), 1);
        let i = &items[0];
        assert_eq!(i.item_id, Some(9_000_000_001));
        assert_eq!(i.def_index, Some(7));
        assert_eq!(i.wear(), Some(0.25));
        assert_eq!(i.steamid(), Some(76_561_197_960_278_073));
        assert_eq!(i.custom_name.as_deref(), Some("my gun"));
        // The same id in another game, or another message, is not a drop.
        let other = UserMessage {
            game: Game::Deadlock,
            ..msg.clone()
        };
        assert!(other.item_drops().is_none());
        assert!(msg.end_of_match_players().is_none());
        let bad = UserMessage {
            payload: &[0x0a, 0xff],
            ..msg
        };
        assert!(bad.item_drops().is_none());
    }

    #[test]
    fn end_of_match_players_keep_items_with_an_id() {
        use pb::ccs_usr_msg_end_of_match_all_players_data::PlayerData;
        let payload = pb::CCsUsrMsgEndOfMatchAllPlayersData {
            allplayerdata: vec![PlayerData {
                slot: Some(2),
                xuid: Some(76_561_198_000_000_001),
                name: Some("alice".into()),
                teamnumber: Some(3),
                items: vec![block(0, 1, 0.0), block(77, 61, 0.07)],
                ..Default::default()
            }],
            scene: None,
        }
        .encode_to_vec();
        let msg = UserMessage {
            id: END_OF_MATCH_ID,
            game: Game::Cs2,
            payload: &payload,
        };
        let players = msg.end_of_match_players().unwrap();
        assert_eq!(players.len(), 1);
        assert_eq!(players[0].name.as_deref(), Some("alice"));
        assert_eq!(players[0].items.len(), 1);
        assert_eq!(players[0].items[0].def_index, Some(61));
    }
}
