//! Dota 2's combat log: one `CMsgDOTACombatLogEntry` per event (damage,
//! heal, modifier added or removed, death, ability, item, gold, XP,
//! purchase, ...), sent to SourceTV as user message 554
//! (`DOTA_UM_CombatLogDataHLTV`). Unit and ability names are indices into
//! the `CombatLogNames` string table; [`CombatLogEntry::name`] resolves them.

use prost::Message;
use source2_demo_protobufs as pb;

use crate::messages::Game;
use crate::state::DemoState;
use crate::visitor::UserMessage;

/// Dota 2's id of `DOTA_UM_CombatLogDataHLTV`.
const COMBAT_LOG_ID: u32 = 554;

/// One combat log entry (the fields analysts use; names as
/// `CombatLogNames` indices).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CombatLogEntry {
    /// The entry type (`damage`, `heal`, `modifier_add`, `death`, ...;
    /// the number for a type this build's enum lacks).
    pub kind: String,
    /// Game time of the entry (s).
    pub timestamp: Option<f32>,
    /// `CombatLogNames` index of the target.
    pub target_name: Option<u32>,
    /// `CombatLogNames` index of the target's owner or source.
    pub target_source_name: Option<u32>,
    /// `CombatLogNames` index of the attacker.
    pub attacker_name: Option<u32>,
    /// `CombatLogNames` index of the damage source.
    pub damage_source_name: Option<u32>,
    /// `CombatLogNames` index of the ability, item or modifier.
    pub inflictor_name: Option<u32>,
    /// The attacker is an illusion.
    pub is_attacker_illusion: Option<bool>,
    /// The attacker is a hero.
    pub is_attacker_hero: Option<bool>,
    /// The target is an illusion.
    pub is_target_illusion: Option<bool>,
    /// The target is a hero.
    pub is_target_hero: Option<bool>,
    /// The attacker's team.
    pub attacker_team: Option<u32>,
    /// The target's team.
    pub target_team: Option<u32>,
    /// Damage, heal, gold or XP amount (by type).
    pub value: Option<u32>,
    /// The target's health after the entry.
    pub health: Option<i32>,
    /// Stun duration (s).
    pub stun_duration: Option<f32>,
    /// Slow duration (s).
    pub slow_duration: Option<f32>,
    /// Modifier duration (s).
    pub modifier_duration: Option<f32>,
    /// Ability level.
    pub ability_level: Option<u32>,
    /// Why gold changed.
    pub gold_reason: Option<u32>,
    /// Why XP changed.
    pub xp_reason: Option<u32>,
    /// Where (world x).
    pub location_x: Option<f32>,
    /// Where (world y).
    pub location_y: Option<f32>,
}

/// `DotaCombatlogModifierAdd` → `modifier_add`.
fn type_name(t: pb::DotaCombatlogTypes) -> String {
    let debug = format!("{t:?}");
    let short = debug.strip_prefix("DotaCombatlog").unwrap_or(&debug);
    let mut out = String::with_capacity(short.len() + 4);
    for (i, c) in short.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

impl CombatLogEntry {
    fn from_message(m: &pb::CMsgDotaCombatLogEntry) -> CombatLogEntry {
        let raw = m.r#type.unwrap_or(-1);
        let kind = pb::DotaCombatlogTypes::try_from(raw)
            .map(type_name)
            .unwrap_or_else(|_| raw.to_string());
        CombatLogEntry {
            kind,
            timestamp: m.timestamp,
            target_name: m.target_name,
            target_source_name: m.target_source_name,
            attacker_name: m.attacker_name,
            damage_source_name: m.damage_source_name,
            inflictor_name: m.inflictor_name,
            is_attacker_illusion: m.is_attacker_illusion,
            is_attacker_hero: m.is_attacker_hero,
            is_target_illusion: m.is_target_illusion,
            is_target_hero: m.is_target_hero,
            attacker_team: m.attacker_team,
            target_team: m.target_team,
            value: m.value,
            health: m.health,
            stun_duration: m.stun_duration,
            slow_duration: m.slow_duration,
            modifier_duration: m.modifier_duration,
            ability_level: m.ability_level,
            gold_reason: m.gold_reason,
            xp_reason: m.xp_reason,
            location_x: m.location_x,
            location_y: m.location_y,
        }
    }

    /// A name index resolved through the `CombatLogNames` string table
    /// (`None` for no index, or one the table does not hold yet).
    pub fn name(state: &DemoState, index: Option<u32>) -> Option<&str> {
        let table = state.string_table("CombatLogNames")?;
        let entry = table.entries.get(usize::try_from(index?).ok()?)?;
        Some(entry.key.as_str())
    }
}

impl UserMessage<'_> {
    /// The combat log entry of a Dota 2 `CombatLogDataHLTV` message;
    /// `None` for another message or one that does not decode.
    pub fn combat_log(&self) -> Option<CombatLogEntry> {
        if self.game != Game::Dota2 || self.id != COMBAT_LOG_ID {
            return None;
        }
        let m = pb::CMsgDotaCombatLogEntry::decode(self.payload).ok()?;
        Some(CombatLogEntry::from_message(&m))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn type_names_are_snake_case() {
        assert_eq!(
            type_name(pb::DotaCombatlogTypes::DotaCombatlogDamage),
            "damage"
        );
        assert_eq!(
            type_name(pb::DotaCombatlogTypes::DotaCombatlogModifierAdd),
            "modifier_add"
        );
    }

    #[test]
    fn decodes_an_entry() {
        let payload = pb::CMsgDotaCombatLogEntry {
            r#type: Some(4),
            attacker_name: Some(3),
            value: Some(120),
            ..Default::default()
        }
        .encode_to_vec();
        let msg = UserMessage {
            id: COMBAT_LOG_ID,
            game: Game::Dota2,
            payload: &payload,
        };
        let e = msg.combat_log().unwrap();
        assert_eq!(e.kind, "death");
        assert_eq!(e.attacker_name, Some(3));
        assert_eq!(e.value, Some(120));
        // No CombatLogNames table: no name.
        assert_eq!(CombatLogEntry::name(&DemoState::default(), Some(3)), None);
        let cs2 = UserMessage {
            game: Game::Cs2,
            ..msg
        };
        assert!(cs2.combat_log().is_none());
        // A type this build does not know keeps its number.
        let payload = pb::CMsgDotaCombatLogEntry {
            r#type: Some(999),
            ..Default::default()
        }
        .encode_to_vec();
        let odd = UserMessage {
            id: COMBAT_LOG_ID,
            game: Game::Dota2,
            payload: &payload,
        };
        assert_eq!(odd.combat_log().unwrap().kind, "999");
    }
}
