//! What an entity class is, by its name: a class whose entities a row of
//! player props reads ([`is_player_row_class`]), a weapon a player can hold
//! ([`is_weapon_class`]), a grenade projectile ([`grenade_type`]). The class
//! names are those of the games' send tables (CS2, Deadlock, Dota 2).

use gamewire_source2::serializer::SerializerId;
use gamewire_source2::DemoState;

/// The classes a row of player props reads when no prop follows a handle
/// to another entity: the player controllers and pawns of CS2 and Deadlock
/// (`CCSPlayerController`, `CCSPlayerPawn`, `CCitadelPlayerPawn`, ...),
/// Dota 2's controllers and heroes (`CDOTA_Unit_Hero_*`), and the game rules
/// and team entities of game-wide and team props.
pub fn is_player_row_class(name: &str) -> bool {
    name.ends_with("PlayerController")
        || name.ends_with("PlayerPawn")
        || name.starts_with("CDOTA_Unit_Hero_")
        || name.ends_with("Team")
        || name.ends_with("GameRulesProxy")
        || name.ends_with("GamerulesProxy")
}

/// Whether a class is a weapon a player can hold (`CAK47`, `CC4`,
/// `CWeaponGlock`, `CKnife`, the grenades, ...).
pub fn is_weapon_class(name: &str) -> bool {
    name.starts_with("CWeapon")
        || name.ends_with("Grenade")
        || matches!(
            name,
            "CAK47" | "CC4" | "CDEagle" | "CKnife" | "CFlashbang" | "CMolotovGrenade"
        )
}

/// The serializers of the demo's weapon classes.
pub fn weapon_serializers(state: &DemoState) -> impl Iterator<Item = SerializerId> + '_ {
    state
        .classes
        .iter()
        .filter(|c| is_weapon_class(&c.name))
        .filter_map(|c| c.serializer)
}

/// The grenade type of a projectile class, `None` for other classes.
/// (CS2 has no incendiary projectile class: an incendiary is a
/// `CMolotovProjectile` with `m_bIsIncGrenade`, see
/// `grenades::entity_grenade_type`.)
pub fn grenade_type(class: &str) -> Option<&'static str> {
    Some(match class {
        "CSmokeGrenadeProjectile" => "smoke",
        "CHEGrenadeProjectile" => "he_grenade",
        "CFlashbangProjectile" => "flashbang",
        "CMolotovProjectile" => "molotov",
        "CDecoyProjectile" => "decoy",
        "CIncendiaryGrenadeProjectile" => "incendiary",
        "CSnowballProjectile" => "snowball",
        _ => return None,
    })
}

/// The serializers of the demo's grenade projectile classes.
pub fn projectile_serializers(state: &DemoState) -> impl Iterator<Item = SerializerId> + '_ {
    state
        .classes
        .iter()
        .filter(|c| grenade_type(&c.name).is_some())
        .filter_map(|c| c.serializer)
}
