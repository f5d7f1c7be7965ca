//! Declared column types.
//!
//! A column's type comes from what the demo declares, never from the values
//! one demo happens to hold, so that a batch over many demos gives every
//! column one type and a table with no rows still has typed columns:
//!
//! - an event key's type is its `CMsgSource1LegacyGameEventList` descriptor
//!   type: 1 string → `Str`, 2 float → `F32`, 3 long, 4 short, 5 byte,
//!   8 entity handle, 9 player slot → `I64`, 6 bool → `Bool`, 7 uint64 →
//!   `U64` (demoparser2 gives the same keys `str`, `float32`, `int32`,
//!   `bool`, `uint64`);
//! - a prop's type is that of its field's decoder in the send tables
//!   (booleans → `Bool`, signed and unsigned 32-bit and signed 64-bit
//!   integers → `I64`, unsigned 64-bit → `U64`, floats → `F32`, strings →
//!   `Str`, vectors and angles → `F32List`).
//!
//! Where nothing is declared (a raw path on a class the demo does not
//! have), the type falls back to the values ([`crate::table::infer_kind`]).

use gamewire_source2::serializer::{FieldDecoder, SendTables, SerializerId};
use gamewire_source2::DemoState;

use crate::classes::{projectile_serializers, weapon_serializers};
use crate::friendly_props::{Computed, Owner, PropSource, UserCommandField};
use crate::prop_checks::PlayerClasses;
use crate::prop_paths::resolve_prop_decoder;
use crate::table::Kind;
use crate::world::{OtherSource, PlayerSource};

/// The column type of a game-event key type (1..=9).
pub fn event_key_kind(key_type: i32) -> Option<Kind> {
    Some(match key_type {
        1 => Kind::Str,
        2 => Kind::F32,
        3 | 4 | 5 | 8 | 9 => Kind::I64,
        6 => Kind::Bool,
        7 => Kind::U64,
        _ => return None,
    })
}

/// The type that holds values of two types: the same type; a string or a
/// float list with anything else → `Str`; a float with a number or bool → `F32`; an integer
/// with a bool or uint64 → `I64`; bool with uint64 → `U64`. Used when one
/// key name has different types in different events of one table
/// (`weapon` is a string in `player_death`, a byte elsewhere).
pub fn widen(a: Kind, b: Kind) -> Kind {
    use Kind::*;
    match (a, b) {
        _ if a == b => a,
        (Str, _)
        | (_, Str)
        | (F32List | StrList | U64List, _)
        | (_, F32List | StrList | U64List) => Str,
        (F32, _) | (_, F32) => F32,
        (I64, _) | (_, I64) => I64,
        _ => U64,
    }
}

/// The column type of a field decoder's values.
pub fn decoder_kind(d: &FieldDecoder) -> Kind {
    match d {
        FieldDecoder::Bool | FieldDecoder::Component | FieldDecoder::PointerPresent => Kind::Bool,
        FieldDecoder::I32
        | FieldDecoder::I64
        | FieldDecoder::U32
        | FieldDecoder::ArrayLength
        | FieldDecoder::AmmoCount
        | FieldDecoder::MinusOne
        | FieldDecoder::PolyPointer => Kind::I64,
        FieldDecoder::U64 | FieldDecoder::Fixed64 | FieldDecoder::Fallback => Kind::U64,
        FieldDecoder::Float(_) => Kind::F32,
        FieldDecoder::Vector(..)
        | FieldDecoder::QAnglePrecise
        | FieldDecoder::QAngleFixed(_)
        | FieldDecoder::QAngleCoord
        | FieldDecoder::QAnglePitchYaw(_) => Kind::F32List,
        _ => Kind::Str,
    }
}

/// The decoder of the value a dotted path names in a serializer: a value
/// or an array element ([`resolve_prop_decoder`]). `None` when the path
/// does not exist or names a table or a whole array.
pub fn field_decoder<'t>(
    tables: &'t SendTables,
    root: SerializerId,
    path: &str,
) -> Option<&'t FieldDecoder> {
    resolve_prop_decoder(tables, root, path).and_then(|(_, d)| d)
}

/// The type of a dotted path on a class, if the demo declares it.
pub fn path_kind(state: &DemoState, class: &str, path: &str) -> Option<Kind> {
    let tables = state.send_tables.as_ref()?;
    let root = tables.by_name(class)?;
    field_decoder(tables, root, path).map(decoder_kind)
}

/// The type of a raw prop of the grenade projectiles (`grenades`' extra
/// columns): its field's in the first projectile class that has it.
pub fn grenade_kind(state: &DemoState, path: &str) -> Option<Kind> {
    let tables = state.send_tables.as_ref()?;
    projectile_serializers(state)
        .find_map(|s| field_decoder(tables, s, path))
        .map(decoder_kind)
}

/// The type of a raw path read off a player's entities, from the game's
/// player classes ([`PlayerClasses`]: CS2's `CCSPlayerPawn` and
/// `CCSPlayerController`, Deadlock's `CCitadelPlayerPawn` and
/// `CCitadelPlayerController`, Dota 2's hero classes and
/// `CDOTAPlayerController`). On the pawn (`pawn`: read on the pawn, and on
/// the controller where the pawn has no such field, as
/// [`crate::player_props`] reads it): the type of every pawn class that
/// declares the path ([`widen`]ed: Dota 2 has a class per hero), widened
/// with the controller's when some pawn class lacks the path; else the
/// controller's.
fn raw_player_kind(state: &DemoState, path: &str, pawn: bool) -> Option<Kind> {
    let tables = state.send_tables.as_ref()?;
    let classes = PlayerClasses::of(state)?;
    let kind_on = |s: SerializerId| field_decoder(tables, s, path).map(decoder_kind);
    let controller = classes.controller.as_ref().and_then(|(_, s)| kind_on(*s));
    if !pawn {
        return controller;
    }
    let mut on_every_pawn = true;
    let mut kind: Option<Kind> = None;
    for (_, s) in &classes.pawns {
        match kind_on(*s) {
            Some(k) => kind = Some(kind.map_or(k, |w| widen(w, k))),
            None => on_every_pawn = false,
        }
    }
    match (kind, controller) {
        (Some(k), Some(c)) if !on_every_pawn => Some(widen(k, c)),
        (Some(k), _) => Some(k),
        (None, c) => c,
    }
}

/// The type of a player prop.
pub fn player_kind(state: &DemoState, source: &PlayerSource) -> Option<Kind> {
    match source {
        PlayerSource::Entity(PropSource::Position(_) | PropSource::Element(..)) => Some(Kind::F32),
        PlayerSource::Entity(PropSource::IsAlive) => Some(Kind::Bool),
        PlayerSource::Entity(PropSource::Raw(Owner::Pawn, p)) => raw_player_kind(state, p, true),
        PlayerSource::Entity(PropSource::Raw(Owner::Controller, p)) => {
            raw_player_kind(state, p, false)
        }
        PlayerSource::Entity(PropSource::Raw(Owner::ActiveWeapon, p)) => {
            let tables = state.send_tables.as_ref()?;
            weapon_serializers(state)
                .find_map(|s| field_decoder(tables, s, p))
                .map(decoder_kind)
        }
        PlayerSource::Entity(PropSource::Button(_)) => Some(Kind::Bool),
        PlayerSource::Entity(PropSource::Velocity(_)) => Some(Kind::F32),
        PlayerSource::Entity(PropSource::UserCommand(f)) => Some(match f {
            UserCommandField::ViewAngle(_)
            | UserCommandField::ForwardMove
            | UserCommandField::LeftMove => Kind::F32,
            UserCommandField::ButtonState(_) => Kind::U64,
            UserCommandField::Impulse
            | UserCommandField::MouseDx
            | UserCommandField::MouseDy
            | UserCommandField::WeaponSelect
            | UserCommandField::ConsumedServerAngleChanges => Kind::I64,
            UserCommandField::LeftHandDesired => Kind::Bool,
            UserCommandField::InputHistory => Kind::Str,
        }),
        PlayerSource::Entity(PropSource::Computed(c)) => Some(match c {
            Computed::Airborne => Kind::Bool,
            Computed::EntityId | Computed::UserId | Computed::RoundStat(_) => Kind::I64,
            Computed::WeaponName
            | Computed::WeaponOriginalOwner
            | Computed::PlayerColor
            | Computed::AgentSkin => Kind::Str,
            Computed::Inventory => Kind::StrList,
            Computed::InventoryIds | Computed::SpottedBy => Kind::U64List,
            Computed::InventoryBitmask => Kind::U64,
        }),
        PlayerSource::Team(p) => path_kind(state, "CCSTeam", p),
        PlayerSource::World(o) => other_kind(state, o),
    }
}

/// The type of a game-wide prop.
pub fn other_kind(state: &DemoState, source: &OtherSource) -> Option<Kind> {
    match source {
        OtherSource::GameTime => Some(Kind::F32),
        OtherSource::Rules(p) => path_kind(state, "CCSGameRulesProxy", p),
        OtherSource::Team(_, p) => path_kind(state, "CCSTeam", p),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn key_types_and_widening() {
        assert_eq!(event_key_kind(1), Some(Kind::Str));
        assert_eq!(event_key_kind(2), Some(Kind::F32));
        for t in [3, 4, 5, 8, 9] {
            assert_eq!(event_key_kind(t), Some(Kind::I64));
        }
        assert_eq!(event_key_kind(6), Some(Kind::Bool));
        assert_eq!(event_key_kind(7), Some(Kind::U64));
        assert_eq!(event_key_kind(0), None);
        assert_eq!(widen(Kind::I64, Kind::I64), Kind::I64);
        assert_eq!(widen(Kind::I64, Kind::Str), Kind::Str);
        assert_eq!(widen(Kind::F32List, Kind::F32), Kind::Str);
        assert_eq!(widen(Kind::F32List, Kind::F32List), Kind::F32List);
        assert_eq!(widen(Kind::F32, Kind::I64), Kind::F32);
        assert_eq!(widen(Kind::Bool, Kind::I64), Kind::I64);
        assert_eq!(widen(Kind::U64, Kind::I64), Kind::I64);
        assert_eq!(widen(Kind::Bool, Kind::U64), Kind::U64);
        assert_eq!(widen(Kind::Bool, Kind::F32), Kind::F32);
    }
}
