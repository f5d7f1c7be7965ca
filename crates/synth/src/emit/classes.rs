//! The network classes of the entities a synthesized CS2 demo holds: a
//! weapon's class by its short name (as CS2's item schema spells it,
//! `ak47`, `usp_silencer`), a grenade projectile's by its kind.

use crate::timeline::GrenadeKind;

/// Weapons by short name and their network class (the class names of
/// CS2's `DEM_ClassInfo`; the short names those of its item schema, which
/// demoparser2 and gamewire print as weapon names).
const WEAPON_CLASSES: &[(&str, &str)] = &[
    ("ak47", "CAK47"),
    ("aug", "CWeaponAug"),
    ("awp", "CWeaponAWP"),
    ("bizon", "CWeaponBizon"),
    ("c4", "CC4"),
    ("cz75a", "CWeaponCZ75a"),
    ("deagle", "CDEagle"),
    ("decoy", "CDecoyGrenade"),
    ("elite", "CWeaponElite"),
    ("famas", "CWeaponFamas"),
    ("fiveseven", "CWeaponFiveSeven"),
    ("flashbang", "CFlashbang"),
    ("g3sg1", "CWeaponG3SG1"),
    ("galilar", "CWeaponGalilAR"),
    ("glock", "CWeaponGlock"),
    ("healthshot", "CItem_Healthshot"),
    ("hegrenade", "CHEGrenade"),
    ("hkp2000", "CWeaponHKP2000"),
    ("incgrenade", "CIncendiaryGrenade"),
    ("m249", "CWeaponM249"),
    ("m4a1", "CWeaponM4A1"),
    ("m4a1_silencer", "CWeaponM4A1Silencer"),
    ("mac10", "CWeaponMAC10"),
    ("mag7", "CWeaponMag7"),
    ("molotov", "CMolotovGrenade"),
    ("mp5sd", "CWeaponMP5SD"),
    ("mp7", "CWeaponMP7"),
    ("mp9", "CWeaponMP9"),
    ("negev", "CWeaponNegev"),
    ("nova", "CWeaponNOVA"),
    ("p250", "CWeaponP250"),
    ("p90", "CWeaponP90"),
    ("revolver", "CWeaponRevolver"),
    ("sawedoff", "CWeaponSawedoff"),
    ("scar20", "CWeaponSCAR20"),
    ("sg556", "CWeaponSG556"),
    ("smokegrenade", "CSmokeGrenade"),
    ("ssg08", "CWeaponSSG08"),
    ("taser", "CWeaponTaser"),
    ("tec9", "CWeaponTec9"),
    ("ump45", "CWeaponUMP45"),
    ("usp_silencer", "CWeaponUSPSilencer"),
    ("xm1014", "CWeaponXM1014"),
];

/// The network class of a weapon by its short name (`weapon_` prefix
/// allowed); every knife is a `CKnife`.
pub(crate) fn weapon_class(weapon: &str) -> Option<&'static str> {
    let name = weapon.strip_prefix("weapon_").unwrap_or(weapon);
    if name.starts_with("knife") || name == "bayonet" {
        return Some("CKnife");
    }
    WEAPON_CLASSES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, class)| class)
}

/// The network class of a grenade projectile (molotovs and incendiaries
/// share one, told apart by `m_bIsIncGrenade`).
pub(crate) fn projectile_class(kind: GrenadeKind) -> &'static str {
    match kind {
        GrenadeKind::HighExplosive => "CHEGrenadeProjectile",
        GrenadeKind::Flashbang => "CFlashbangProjectile",
        GrenadeKind::Smoke => "CSmokeGrenadeProjectile",
        GrenadeKind::Molotov | GrenadeKind::Incendiary => "CMolotovProjectile",
        GrenadeKind::Decoy => "CDecoyProjectile",
    }
}
