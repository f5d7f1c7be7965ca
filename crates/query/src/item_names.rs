//! CS2's item definition indices and their names (the names demoparser2
//! gives, from CS2's `items_game.txt`): weapons, grenades, equipment,
//! knives ([`ITEM_NAMES`]) and agents ([`AGENT_NAMES`]); and the short
//! name of a weapon as events send it ([`weapon_name`]).

/// Item definition indices and their names (the names demoparser2 gives,
/// from CS2's `items_game.txt`): weapons, grenades, equipment and knives.
pub const ITEM_NAMES: &[(u32, &str)] = &[
    (1, "Desert Eagle"),
    (2, "Dual Berettas"),
    (3, "Five-SeveN"),
    (4, "Glock-18"),
    (7, "AK-47"),
    (8, "AUG"),
    (9, "AWP"),
    (10, "FAMAS"),
    (11, "G3SG1"),
    (13, "Galil AR"),
    (14, "M249"),
    (16, "M4A4"),
    (17, "MAC-10"),
    (19, "P90"),
    (23, "MP5-SD"),
    (24, "UMP-45"),
    (25, "XM1014"),
    (26, "PP-Bizon"),
    (27, "MAG-7"),
    (28, "Negev"),
    (29, "Sawed-Off"),
    (30, "Tec-9"),
    (31, "Zeus x27"),
    (32, "P2000"),
    (33, "MP7"),
    (34, "MP9"),
    (35, "Nova"),
    (36, "P250"),
    (38, "SCAR-20"),
    (39, "SG 553"),
    (40, "SSG 08"),
    (41, "Knife"),
    (42, "knife"),
    (43, "Flashbang"),
    (44, "High Explosive Grenade"),
    (45, "Smoke Grenade"),
    (46, "Molotov"),
    (47, "Decoy Grenade"),
    (48, "Incendiary Grenade"),
    (49, "C4 Explosive"),
    (50, "Kevlar Vest"),
    (51, "Kevlar & Helmet"),
    (52, "Heavy Assault Suit"),
    (54, "item_nvg"),
    (55, "Defuse Kit"),
    (56, "Rescue Kit"),
    (57, "Medi-Shot"),
    (59, "knife_t"),
    (60, "M4A1-S"),
    (61, "USP-S"),
    (62, "Trade Up Contract"),
    (63, "CZ75-Auto"),
    (64, "R8 Revolver"),
    (65, "Charm Detachments"),
    (500, "Bayonet"),
    (503, "Classic Knife"),
    (505, "Flip Knife"),
    (506, "Gut Knife"),
    (507, "Karambit"),
    (508, "M9 Bayonet"),
    (509, "Huntsman Knife"),
    (512, "Falchion Knife"),
    (514, "Bowie Knife"),
    (515, "Butterfly Knife"),
    (516, "Shadow Daggers"),
    (517, "Paracord Knife"),
    (518, "Survival Knife"),
    (519, "Ursus Knife"),
    (520, "Navaja Knife"),
    (521, "Nomad Knife"),
    (522, "Stiletto Knife"),
    (523, "Talon Knife"),
    (525, "Skeleton Knife"),
    (526, "Kukri Knife"),
];

/// The name of an item definition index, if known.
pub fn item_name(index: u64) -> Option<&'static str> {
    ITEM_NAMES
        .binary_search_by_key(&index, |&(i, _)| u64::from(i))
        .ok()
        .and_then(|i| ITEM_NAMES.get(i))
        .map(|&(_, n)| n)
}

/// Agent (player model) item definition indices and their model names
/// (`CCSPlayerController.m_nPawnCharacterDefIndex`; CS2's `items_game.txt`,
/// the names demoparser2 gives).
pub const AGENT_NAMES: &[(u32, &str)] = &[
    (4613, "customplayer_tm_professional_varf5"),
    (4619, "customplayer_ctm_st6_variantj"),
    (4680, "customplayer_ctm_st6_variantl"),
    (4711, "customplayer_ctm_swat_variante"),
    (4712, "customplayer_ctm_swat_variantf"),
    (4713, "customplayer_ctm_swat_variantg"),
    (4714, "customplayer_ctm_swat_varianth"),
    (4715, "customplayer_ctm_swat_varianti"),
    (4716, "customplayer_ctm_swat_variantj"),
    (4718, "customplayer_tm_balkan_variantk"),
    (4726, "customplayer_tm_professional_varf"),
    (4727, "customplayer_tm_professional_varg"),
    (4728, "customplayer_tm_professional_varh"),
    (4730, "customplayer_tm_professional_varj"),
    (4732, "customplayer_tm_professional_vari"),
    (4733, "customplayer_tm_professional_varf1"),
    (4734, "customplayer_tm_professional_varf2"),
    (4735, "customplayer_tm_professional_varf3"),
    (4736, "customplayer_tm_professional_varf4"),
    (4749, "customplayer_ctm_gendarmerie_varianta"),
    (4750, "customplayer_ctm_gendarmerie_variantb"),
    (4751, "customplayer_ctm_gendarmerie_variantc"),
    (4752, "customplayer_ctm_gendarmerie_variantd"),
    (4753, "customplayer_ctm_gendarmerie_variante"),
    (4756, "customplayer_ctm_swat_variantk"),
    (4757, "customplayer_ctm_diver_varianta"),
    (4771, "customplayer_ctm_diver_variantb"),
    (4772, "customplayer_ctm_diver_variantc"),
    (4773, "customplayer_tm_jungle_raider_varianta"),
    (4774, "customplayer_tm_jungle_raider_variantb"),
    (4775, "customplayer_tm_jungle_raider_variantc"),
    (4776, "customplayer_tm_jungle_raider_variantd"),
    (4777, "customplayer_tm_jungle_raider_variante"),
    (4778, "customplayer_tm_jungle_raider_variantf"),
    (4780, "customplayer_tm_jungle_raider_variantb2"),
    (4781, "customplayer_tm_jungle_raider_variantf2"),
    (5036, "customplayer_t_map_based"),
    (5037, "customplayer_ct_map_based"),
    (5038, "customplayer_tm_anarchist"),
    (5039, "customplayer_tm_anarchist_varianta"),
    (5040, "customplayer_tm_anarchist_variantb"),
    (5041, "customplayer_tm_anarchist_variantc"),
    (5042, "customplayer_tm_anarchist_variantd"),
    (5043, "customplayer_tm_pirate"),
    (5044, "customplayer_tm_pirate_varianta"),
    (5045, "customplayer_tm_pirate_variantb"),
    (5046, "customplayer_tm_pirate_variantc"),
    (5047, "customplayer_tm_pirate_variantd"),
    (5048, "customplayer_tm_professional"),
    (5049, "customplayer_tm_professional_var1"),
    (5050, "customplayer_tm_professional_var2"),
    (5051, "customplayer_tm_professional_var3"),
    (5052, "customplayer_tm_professional_var4"),
    (5053, "customplayer_tm_separatist"),
    (5054, "customplayer_tm_separatist_varianta"),
    (5055, "customplayer_tm_separatist_variantb"),
    (5056, "customplayer_tm_separatist_variantc"),
    (5057, "customplayer_tm_separatist_variantd"),
    (5058, "customplayer_ctm_gign"),
    (5059, "customplayer_ctm_gign_varianta"),
    (5060, "customplayer_ctm_gign_variantb"),
    (5061, "customplayer_ctm_gign_variantc"),
    (5062, "customplayer_ctm_gign_variantd"),
    (5063, "customplayer_ctm_gsg9"),
    (5064, "customplayer_ctm_gsg9_varianta"),
    (5065, "customplayer_ctm_gsg9_variantb"),
    (5066, "customplayer_ctm_gsg9_variantc"),
    (5067, "customplayer_ctm_gsg9_variantd"),
    (5068, "customplayer_ctm_idf"),
    (5069, "customplayer_ctm_idf_variantb"),
    (5070, "customplayer_ctm_idf_variantc"),
    (5071, "customplayer_ctm_idf_variantd"),
    (5072, "customplayer_ctm_idf_variante"),
    (5073, "customplayer_ctm_idf_variantf"),
    (5074, "customplayer_ctm_swat"),
    (5075, "customplayer_ctm_swat_varianta"),
    (5076, "customplayer_ctm_swat_variantb"),
    (5077, "customplayer_ctm_swat_variantc"),
    (5078, "customplayer_ctm_swat_variantd"),
    (5079, "customplayer_ctm_sas_varianta"),
    (5080, "customplayer_ctm_sas_variantb"),
    (5081, "customplayer_ctm_sas_variantc"),
    (5082, "customplayer_ctm_sas_variantd"),
    (5083, "customplayer_ctm_st6"),
    (5084, "customplayer_ctm_st6_varianta"),
    (5085, "customplayer_ctm_st6_variantb"),
    (5086, "customplayer_ctm_st6_variantc"),
    (5087, "customplayer_ctm_st6_variantd"),
    (5088, "customplayer_tm_balkan_variante"),
    (5089, "customplayer_tm_balkan_varianta"),
    (5090, "customplayer_tm_balkan_variantb"),
    (5091, "customplayer_tm_balkan_variantc"),
    (5092, "customplayer_tm_balkan_variantd"),
    (5093, "customplayer_tm_jumpsuit_varianta"),
    (5094, "customplayer_tm_jumpsuit_variantb"),
    (5095, "customplayer_tm_jumpsuit_variantc"),
    (5096, "customplayer_tm_phoenix_heavy"),
    (5097, "customplayer_ctm_heavy"),
    (5100, "customplayer_tm_leet_varianta"),
    (5101, "customplayer_tm_leet_variantb"),
    (5102, "customplayer_tm_leet_variantc"),
    (5103, "customplayer_tm_leet_variantd"),
    (5104, "customplayer_tm_leet_variante"),
    (5105, "customplayer_tm_leet_variantg"),
    (5106, "customplayer_tm_leet_varianth"),
    (5107, "customplayer_tm_leet_varianti"),
    (5108, "customplayer_tm_leet_variantf"),
    (5109, "customplayer_tm_leet_variantj"),
    (5200, "customplayer_tm_phoenix"),
    (5201, "customplayer_tm_phoenix_varianta"),
    (5202, "customplayer_tm_phoenix_variantb"),
    (5203, "customplayer_tm_phoenix_variantc"),
    (5204, "customplayer_tm_phoenix_variantd"),
    (5205, "customplayer_tm_phoenix_varianth"),
    (5206, "customplayer_tm_phoenix_variantf"),
    (5207, "customplayer_tm_phoenix_variantg"),
    (5208, "customplayer_tm_phoenix_varianti"),
    (5300, "customplayer_ctm_fbi"),
    (5301, "customplayer_ctm_fbi_varianta"),
    (5302, "customplayer_ctm_fbi_variantc"),
    (5303, "customplayer_ctm_fbi_variantd"),
    (5304, "customplayer_ctm_fbi_variante"),
    (5305, "customplayer_ctm_fbi_variantf"),
    (5306, "customplayer_ctm_fbi_variantg"),
    (5307, "customplayer_ctm_fbi_varianth"),
    (5308, "customplayer_ctm_fbi_variantb"),
    (5400, "customplayer_ctm_st6_variantk"),
    (5401, "customplayer_ctm_st6_variante"),
    (5402, "customplayer_ctm_st6_variantg"),
    (5403, "customplayer_ctm_st6_variantm"),
    (5404, "customplayer_ctm_st6_varianti"),
    (5405, "customplayer_ctm_st6_variantn"),
    (5500, "customplayer_tm_balkan_variantf"),
    (5501, "customplayer_tm_balkan_varianti"),
    (5502, "customplayer_tm_balkan_variantg"),
    (5503, "customplayer_tm_balkan_variantj"),
    (5504, "customplayer_tm_balkan_varianth"),
    (5505, "customplayer_tm_balkan_variantl"),
    (5600, "customplayer_ctm_sas"),
    (5601, "customplayer_ctm_sas_variantf"),
    (5602, "customplayer_ctm_sas_variantg"),
];

/// The model name of an agent's item definition index, if known.
pub fn agent_name(index: u64) -> Option<&'static str> {
    AGENT_NAMES
        .binary_search_by_key(&index, |&(i, _)| u64::from(i))
        .ok()
        .and_then(|i| AGENT_NAMES.get(i))
        .map(|&(_, n)| n)
}

/// The short name of a weapon or item as a game event names it: without
/// the `weapon_` or `item_` prefix (`weapon_ak47` → `ak47`, `item_kevlar`
/// → `kevlar`), every knife as `knife` (`knife_t`, `weapon_knife_karambit`,
/// `bayonet`); other names as they are (`galilar`, `inferno`, `world`).
/// The tables give it as `weapon`, beside the name as sent
/// (`weapon_class`).
pub fn weapon_name(raw: &str) -> &str {
    let short = raw
        .strip_prefix("weapon_")
        .or_else(|| raw.strip_prefix("item_"))
        .unwrap_or(raw);
    if short.starts_with("knife") || short == "bayonet" {
        "knife"
    } else {
        short
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn item_names_are_sorted_for_the_lookup() {
        assert!(ITEM_NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        for &(i, name) in ITEM_NAMES {
            assert_eq!(item_name(u64::from(i)), Some(name));
        }
        assert_eq!(item_name(7), Some("AK-47"));
        assert_eq!(item_name(49), Some("C4 Explosive"));
        assert_eq!(item_name(6), None);
        assert_eq!(item_name(u64::MAX), None);
    }

    #[test]
    fn weapon_short_names() {
        for (raw, short) in [
            ("weapon_galilar", "galilar"),
            ("galilar", "galilar"),
            ("weapon_ak47", "ak47"),
            ("item_kevlar", "kevlar"),
            ("weapon_m4a1_silencer", "m4a1_silencer"),
            ("knife_t", "knife"),
            ("weapon_knife", "knife"),
            ("weapon_knife_karambit", "knife"),
            ("bayonet", "knife"),
            ("weapon_bayonet", "knife"),
            ("inferno", "inferno"),
            ("world", "world"),
            ("", ""),
        ] {
            assert_eq!(weapon_name(raw), short, "{raw}");
        }
    }
}
