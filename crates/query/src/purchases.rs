//! The `purchases` table from the buyers' state, for demos without
//! `item_purchase` events.
//!
//! CS2 declares `item_purchase` in its game event list, and current builds
//! never send it (none of the CS2 corpus demos holds one). What the game
//! networks on every buy is in the buyer's pawn:
//! `m_pBuyServices.m_vecSellbackPurchaseEntries`, the purchases that can
//! still be sold back, one `SellbackPurchaseEntry_t` each: the item's
//! definition index (`m_unDefIdx`), its price (`m_nCost`), the armor and
//! helmet before it (`m_nPrevArmor`, `m_bPrevHelmet`) and the item bought
//! (`m_hItem`). A buy appends one entry; selling an item back removes its
//! entry; a new round empties the list. On `cs2/14011.dem` (a deathmatch
//! clip whose bots buy) every buy shows as one new entry, at the tick the
//! controller's `m_pInGameMoneyServices.m_iTotalCashSpent` rises by the
//! entry's `m_nCost` and the game fires `item_pickup` for the weapon bought
//! (the pickups of a respawn's loadout come with no entry and no cash).
//!
//! The rule, at the end of every tick, for every player with a pawn
//! (players in slot order): each entry of the pawn's list that the list
//! did not hold at the end of the previous tick is a purchase at this tick,
//! one row each, in list order. Entries are told apart by definition index
//! and price (not by the item handle, which goes when a grenade bought is
//! thrown), so an item sold back (its entry removed, the others moving up)
//! is no purchase, and two flashbangs are two; an item sold back and bought
//! again within one tick is not seen. Within a tick the rows are in slot
//! order: the state does not tell in which order players bought. The first
//! list read of a pawn is what it held before the demo started (or before
//! the pawn was created) and makes no row: a purchase made in the very
//! tick a demo starts or a pawn is created is not seen.
//!
//! The columns are the event rows': `tick`, the buyer's `name`, `steamid`,
//! `slot` and `team` (the controller's `m_iTeamNum` at that tick),
//! `weapon` (the short name of the definition index) and `weapon_class`
//! (the name `item_purchase` gives the item: `weapon_ak47`, `item_kevlar`,
//! `item_assaultsuit`, `item_defuser`). `loadout` is null: the state does
//! not hold the loadout slot an item was bought from. A definition index
//! that is not one of the items the buy menu sells ([`BUYABLE`]) gives
//! null `weapon` and `weapon_class`: never a guessed name.
//!
//! The table comes from the `item_purchase` events when the demo holds any
//! (older builds, and demos that carry both), else from the state; a demo
//! that holds both gives the events' rows.

use rustc_hash::FxHashMap;

use gamewire_source2::{DemoState, Entity, FieldPath, Value};

use crate::event_players::PlayerEnts;
use crate::matches::player_cells;
use crate::players::PlayerFinder;
use crate::prop_paths::{PropCache, PropId};
use crate::reference;
use crate::table::{Cell, Table};

/// The items CS2's buy menu sells: definition index and the name
/// `item_purchase` gives it (the item schema's name, `items_game.txt`).
pub const BUYABLE: &[(u16, &str)] = &[
    (1, "weapon_deagle"),
    (2, "weapon_elite"),
    (3, "weapon_fiveseven"),
    (4, "weapon_glock"),
    (7, "weapon_ak47"),
    (8, "weapon_aug"),
    (9, "weapon_awp"),
    (10, "weapon_famas"),
    (11, "weapon_g3sg1"),
    (13, "weapon_galilar"),
    (14, "weapon_m249"),
    (16, "weapon_m4a1"),
    (17, "weapon_mac10"),
    (19, "weapon_p90"),
    (23, "weapon_mp5sd"),
    (24, "weapon_ump45"),
    (25, "weapon_xm1014"),
    (26, "weapon_bizon"),
    (27, "weapon_mag7"),
    (28, "weapon_negev"),
    (29, "weapon_sawedoff"),
    (30, "weapon_tec9"),
    (31, "weapon_taser"),
    (32, "weapon_hkp2000"),
    (33, "weapon_mp7"),
    (34, "weapon_mp9"),
    (35, "weapon_nova"),
    (36, "weapon_p250"),
    (38, "weapon_scar20"),
    (39, "weapon_sg556"),
    (40, "weapon_ssg08"),
    (43, "weapon_flashbang"),
    (44, "weapon_hegrenade"),
    (45, "weapon_smokegrenade"),
    (46, "weapon_molotov"),
    (47, "weapon_decoy"),
    (48, "weapon_incgrenade"),
    (50, "item_kevlar"),
    (51, "item_assaultsuit"),
    (55, "item_defuser"),
    (60, "weapon_m4a1_silencer"),
    (61, "weapon_usp_silencer"),
    (63, "weapon_cz75a"),
    (64, "weapon_revolver"),
];

/// The name `item_purchase` gives the item of a definition index, for the
/// items the buy menu sells.
pub fn purchase_class(def_index: u64) -> Option<&'static str> {
    let i = BUYABLE
        .binary_search_by_key(&def_index, |&(d, _)| u64::from(d))
        .ok()?;
    BUYABLE.get(i).map(|&(_, name)| name)
}

/// The sellback list, relative to the pawn.
const LIST: &str = "m_pBuyServices.m_vecSellbackPurchaseEntries";

/// The longest list read (a round's purchases; a longer length is bad
/// input, read up to this).
const MAX_ENTRIES: usize = 256;

/// One entry: definition index and price (as read; `None` where a field
/// is not set).
type Entry = [Option<u64>; 2];

/// Purchases derived from the buyers' sellback lists (see the module
/// documentation).
#[derive(Debug)]
pub(crate) struct StatePurchases {
    /// The `purchases` rows found so far.
    pub(crate) table: Table,
    /// Each pawn's list at the end of the last tick it was read, by entity
    /// index.
    last: FxHashMap<i32, Vec<Entry>>,
    finder: Option<PlayerFinder>,
    /// Interned names of the fields of entry `i`.
    names: Vec<[PropId; 2]>,
    /// The list read this tick.
    now: Vec<Entry>,
    /// Which entries of the previous list this tick's list matched.
    matched: Vec<bool>,
    /// This tick's players: slot, controller and pawn entity index.
    players: Vec<(i32, i32, i32)>,
}

impl StatePurchases {
    pub(crate) fn new() -> Self {
        StatePurchases {
            table: reference::PURCHASES.empty_table(),
            last: FxHashMap::default(),
            finder: None,
            names: Vec::new(),
            now: Vec::new(),
            matched: Vec::new(),
            players: Vec::new(),
        }
    }

    /// Reads every player's list at the end of a tick.
    pub(crate) fn on_tick(&mut self, state: &DemoState, paths: &mut PropCache, tick: i32) {
        let finder = self.finder.get_or_insert_with(|| PlayerFinder::new(paths));
        let mut players = std::mem::take(&mut self.players);
        players.clear();
        players.extend(
            finder
                .find(state, paths)
                .iter()
                .map(|p| (p.slot, p.controller, p.pawn)),
        );
        for &(slot, controller, pawn_index) in &players {
            let Some(pawn) = state.entities.get(pawn_index) else {
                continue;
            };
            if !self.read_list(state, paths, pawn) {
                continue;
            }
            let Some(prev) = self.last.get_mut(&pawn_index) else {
                self.last.insert(pawn_index, self.now.clone());
                continue;
            };
            if *prev == self.now {
                continue;
            }
            // The entries the previous list did not hold, each matched once.
            self.matched.clear();
            self.matched.resize(prev.len(), false);
            let mut bought = Vec::new();
            for entry in &self.now {
                let old = prev
                    .iter()
                    .zip(self.matched.iter_mut())
                    .find(|(e, m)| !**m && **e == *entry);
                match old {
                    Some((_, m)) => *m = true,
                    None => bought.push(*entry),
                }
            }
            prev.clone_from(&self.now);
            if bought.is_empty() {
                continue;
            }
            let who = PlayerEnts {
                controller: state.entities.get(controller),
                pawn: Some(pawn),
                slot: usize::try_from(slot).ok(),
            };
            let [name, steamid, slot, team] = player_cells(state, paths, &who);
            for [def, _] in bought {
                let class = def.and_then(purchase_class);
                let (weapon, weapon_class) = match class {
                    Some(c) => (
                        Cell::Str(crate::item_names::weapon_name(c).to_string()),
                        Cell::Str(c.to_string()),
                    ),
                    None => (Cell::Null, Cell::Null),
                };
                self.table.push_row(&[
                    Cell::Int(i64::from(tick)),
                    name.clone(),
                    steamid.clone(),
                    slot.clone(),
                    team.clone(),
                    weapon,
                    weapon_class,
                    Cell::Null,
                ]);
            }
        }
        self.players = players;
    }

    /// Reads a pawn's list into `now`; false when the pawn has none.
    fn read_list(&mut self, state: &DemoState, paths: &mut PropCache, pawn: &Entity) -> bool {
        self.now.clear();
        let Some(first) = self.entry_names(paths, 0) else {
            return false;
        };
        // The list's own path (the entry's path without index and field)
        // holds its length.
        let Some(path) = paths.path(state, pawn, first[0]) else {
            return false;
        };
        let indices = path.as_slice();
        let Some(list) = indices.get(..indices.len().saturating_sub(2)) else {
            return false;
        };
        let len = match pawn
            .get(&FieldPath::from_slice(list))
            .and_then(Value::as_u64)
        {
            Some(n) => usize::try_from(n).unwrap_or(MAX_ENTRIES).min(MAX_ENTRIES),
            None => 0,
        };
        for i in 0..len {
            let Some(ids) = self.entry_names(paths, i) else {
                break;
            };
            let mut entry: Entry = [None; 2];
            for (slot, id) in entry.iter_mut().zip(ids) {
                *slot = paths.get(state, pawn, id).and_then(Value::as_u64);
            }
            self.now.push(entry);
        }
        true
    }

    /// The interned names of entry `i`'s fields.
    fn entry_names(&mut self, paths: &mut PropCache, i: usize) -> Option<[PropId; 2]> {
        while self.names.len() <= i {
            let n = self.names.len();
            let mut id = |field: &str| paths.id(&format!("{LIST}.{n}.{field}"));
            let ids = [id("m_unDefIdx"), id("m_nCost")];
            self.names.push(ids);
        }
        self.names.get(i).copied()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn buyable_items_are_sorted_for_the_lookup() {
        assert!(BUYABLE.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(purchase_class(7), Some("weapon_ak47"));
        assert_eq!(purchase_class(51), Some("item_assaultsuit"));
        assert_eq!(purchase_class(42), None);
        assert_eq!(purchase_class(u64::MAX), None);
    }
}
