//! The CS2 weapons and items a scenario can name.
//!
//! Each row: the short name (CS2's item-schema name without `weapon_` or
//! `item_`: `ak47`, `m4a1_silencer`, `knife_t`, `kevlar`), the item
//! definition index (`m_iItemDefinitionIndex`), the network class of its
//! entity (`CAK47`, `CWeaponM4A1`; none for armor and the defuse kit, which
//! are flags on the pawn), the price in the buy menu, the clip size
//! (`m_iClip1` when full), the kind, and the kill reward in competitive
//! play. Display names (`AK-47`) are not repeated here: `gamewire-query`'s
//! `item_names` table gives them by definition index.
//!
//! Names as events send them: `player_death` and `player_hurt` give the
//! short name (`ak47`, `knife_t`, `hegrenade`, `inferno`, `planted_c4`);
//! `item_purchase` gives it with its prefix (`weapon_ak47`, `item_kevlar`);
//! `grenade_thrown` and `item_pickup` give the short name.

use crate::timeline::GrenadeKind;

/// What an item is, which decides its inventory slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// A knife (slot 3).
    Knife,
    /// A pistol (slot 2).
    Pistol,
    /// A submachine gun (slot 1).
    Smg,
    /// An assault rifle (slot 1).
    Rifle,
    /// A sniper rifle (slot 1).
    Sniper,
    /// A shotgun (slot 1).
    Shotgun,
    /// A machine gun (slot 1).
    MachineGun,
    /// The Zeus x27.
    Taser,
    /// A grenade (slot 4).
    Grenade,
    /// The bomb (slot 5).
    C4,
    /// Armor or the defuse kit: no entity, a flag or value on the pawn.
    Equipment,
}

impl ItemKind {
    /// True for the kinds that take the primary slot (one at a time).
    pub fn is_primary(self) -> bool {
        matches!(
            self,
            ItemKind::Smg
                | ItemKind::Rifle
                | ItemKind::Sniper
                | ItemKind::Shotgun
                | ItemKind::MachineGun
        )
    }
}

/// One weapon or item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemDef {
    /// The short name (`ak47`).
    pub name: &'static str,
    /// `m_iItemDefinitionIndex`.
    pub def_index: u16,
    /// The entity's network class (`CAK47`); empty for equipment.
    pub class: &'static str,
    /// The buy-menu price, dollars.
    pub price: i32,
    /// `m_iClip1` when full, for weapons with a clip.
    pub clip: Option<i32>,
    /// What it is.
    pub kind: ItemKind,
    /// Money for a kill with it (competitive).
    pub kill_reward: i32,
}

impl ItemDef {
    /// The name `item_purchase` sends (`weapon_ak47`, `item_kevlar`).
    pub fn purchase_name(&self) -> String {
        match self.kind {
            ItemKind::Equipment => format!("item_{}", self.name),
            _ => format!("weapon_{}", self.name),
        }
    }

    /// The projectile a grenade becomes, for grenades.
    pub fn grenade(&self) -> Option<GrenadeKind> {
        Some(match self.name {
            "hegrenade" => GrenadeKind::HighExplosive,
            "flashbang" => GrenadeKind::Flashbang,
            "smokegrenade" => GrenadeKind::Smoke,
            "molotov" => GrenadeKind::Molotov,
            "incgrenade" => GrenadeKind::Incendiary,
            "decoy" => GrenadeKind::Decoy,
            _ => return None,
        })
    }
}

const fn w(
    name: &'static str,
    def_index: u16,
    class: &'static str,
    price: i32,
    clip: i32,
    kind: ItemKind,
    kill_reward: i32,
) -> ItemDef {
    ItemDef {
        name,
        def_index,
        class,
        price,
        clip: if clip > 0 { Some(clip) } else { None },
        kind,
        kill_reward,
    }
}

use ItemKind::*;

/// Every item a scenario can name, by definition index.
pub const ITEMS: &[ItemDef] = &[
    w("deagle", 1, "CDEagle", 700, 7, Pistol, 300),
    w("elite", 2, "CWeaponElite", 300, 30, Pistol, 300),
    w("fiveseven", 3, "CWeaponFiveSeven", 500, 20, Pistol, 300),
    w("glock", 4, "CWeaponGlock", 200, 20, Pistol, 300),
    w("ak47", 7, "CAK47", 2700, 30, Rifle, 300),
    w("aug", 8, "CWeaponAug", 3300, 30, Rifle, 300),
    w("awp", 9, "CWeaponAWP", 4750, 5, Sniper, 100),
    w("famas", 10, "CWeaponFamas", 2050, 25, Rifle, 300),
    w("g3sg1", 11, "CWeaponG3SG1", 5000, 20, Sniper, 300),
    w("galilar", 13, "CWeaponGalilAR", 1800, 35, Rifle, 300),
    w("m249", 14, "CWeaponM249", 5200, 100, MachineGun, 300),
    w("m4a1", 16, "CWeaponM4A1", 3100, 30, Rifle, 300),
    w("mac10", 17, "CWeaponMAC10", 1050, 30, Smg, 600),
    w("p90", 19, "CWeaponP90", 2350, 50, Smg, 300),
    w("mp5sd", 23, "CWeaponMP5SD", 1500, 30, Smg, 600),
    w("ump45", 24, "CWeaponUMP45", 1200, 25, Smg, 600),
    w("xm1014", 25, "CWeaponXM1014", 2000, 7, Shotgun, 600),
    w("bizon", 26, "CWeaponBizon", 1400, 64, Smg, 600),
    w("mag7", 27, "CWeaponMag7", 1300, 5, Shotgun, 900),
    w("negev", 28, "CWeaponNegev", 1700, 150, MachineGun, 300),
    w("sawedoff", 29, "CWeaponSawedoff", 1100, 7, Shotgun, 900),
    w("tec9", 30, "CWeaponTec9", 500, 18, Pistol, 300),
    w("taser", 31, "CWeaponTaser", 200, 1, Taser, 0),
    w("hkp2000", 32, "CWeaponHKP2000", 200, 13, Pistol, 300),
    w("mp7", 33, "CWeaponMP7", 1500, 30, Smg, 600),
    w("mp9", 34, "CWeaponMP9", 1250, 30, Smg, 600),
    w("nova", 35, "CWeaponNOVA", 1050, 8, Shotgun, 900),
    w("p250", 36, "CWeaponP250", 300, 13, Pistol, 300),
    w("scar20", 38, "CWeaponSCAR20", 5000, 20, Sniper, 300),
    w("sg556", 39, "CWeaponSG556", 3000, 30, Rifle, 300),
    w("ssg08", 40, "CWeaponSSG08", 1700, 10, Sniper, 300),
    w("knife", 42, "CKnife", 0, 0, Knife, 1500),
    w("flashbang", 43, "CFlashbang", 200, 0, Grenade, 300),
    w("hegrenade", 44, "CHEGrenade", 300, 0, Grenade, 300),
    w("smokegrenade", 45, "CSmokeGrenade", 300, 0, Grenade, 300),
    w("molotov", 46, "CMolotovGrenade", 400, 0, Grenade, 300),
    w("decoy", 47, "CDecoyGrenade", 50, 0, Grenade, 300),
    w("incgrenade", 48, "CIncendiaryGrenade", 500, 0, Grenade, 300),
    w("c4", 49, "CC4", 0, 0, C4, 300),
    w("kevlar", 50, "", 650, 0, Equipment, 0),
    w("assaultsuit", 51, "", 1000, 0, Equipment, 0),
    w("defuser", 55, "", 400, 0, Equipment, 0),
    w("knife_t", 59, "CKnife", 0, 0, Knife, 1500),
    w(
        "m4a1_silencer",
        60,
        "CWeaponM4A1Silencer",
        2900,
        20,
        Rifle,
        300,
    ),
    w(
        "usp_silencer",
        61,
        "CWeaponUSPSilencer",
        200,
        12,
        Pistol,
        300,
    ),
    w("cz75a", 63, "CWeaponCZ75a", 500, 12, Pistol, 100),
    w("revolver", 64, "CWeaponRevolver", 600, 8, Pistol, 300),
];

/// The item a short name names (`ak47`; also with its `weapon_` or
/// `item_` prefix).
pub fn item(name: &str) -> Option<&'static ItemDef> {
    let short = name
        .strip_prefix("weapon_")
        .or_else(|| name.strip_prefix("item_"))
        .unwrap_or(name);
    ITEMS.iter().find(|i| i.name == short)
}

/// Weapon names a kill or a hit may give besides the items: the fire of a
/// molotov or incendiary (`inferno`), the planted bomb (`planted_c4`), and
/// the world (falls: `world`).
pub const NON_ITEM_WEAPONS: &[&str] = &["inferno", "planted_c4", "world"];

/// The knife and pistol a side gets when it has nothing (2 T, 3 CT).
pub fn default_loadout(team: u8) -> [&'static str; 2] {
    if team == 2 {
        ["knife_t", "glock"]
    } else {
        ["knife", "usp_silencer"]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_indices_are_unique() {
        for (i, a) in ITEMS.iter().enumerate() {
            for b in ITEMS.iter().skip(i + 1) {
                assert_ne!(a.name, b.name);
                assert_ne!(a.def_index, b.def_index);
            }
        }
        assert!(ITEMS.windows(2).all(|p| p[0].def_index < p[1].def_index));
    }

    #[test]
    fn lookups() {
        assert_eq!(item("weapon_ak47").map(|i| i.def_index), Some(7));
        assert_eq!(item("item_kevlar").map(|i| i.price), Some(650));
        assert_eq!(
            item("m4a1_silencer").map(|i| i.class),
            Some("CWeaponM4A1Silencer")
        );
        assert_eq!(
            item("assaultsuit").map(|i| i.purchase_name()),
            Some("item_assaultsuit".to_string())
        );
        assert_eq!(item("nonsense"), None);
        assert_eq!(
            item("smokegrenade").and_then(|i| i.grenade()),
            Some(GrenadeKind::Smoke)
        );
    }
}
