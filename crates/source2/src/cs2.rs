//! CS2 specifics: world positions from cells, the friendly prop names that
//! analysts use (those of demoparser2), and two collectors built on the
//! [`Visitor`] API: per-player tick rows and game-event rows.
//!
//! Prop names are dotted paths of variable names from the entity's
//! serializer: `m_iHealth`, `CBodyComponent.m_cellX`,
//! `m_pWeaponServices.m_hActiveWeapon`, array elements as `m_iAmmo.0003`.
//! A friendly name maps to one such path on the player pawn or controller
//! (table from LaihoE/demoparser's README and `prop_controller.rs`).

use crate::entity::{Entity, EntityList};
use crate::fieldpath::FieldPath;
use crate::gameevent::{EventValue, GameEvent};
use crate::parser::{DemoState, Interests, Visitor};
use crate::serializer::{FieldModel, SendTables, SerializerId};
use crate::value::Value;

/// Bits of a cell coordinate: cells are 512 units wide.
pub const CELL_BITS: u32 = 9;
/// Half the world size: `cell * 512 - 16384 + offset`.
pub const MAX_COORD: f64 = 16384.0;
/// Entity handle index mask demoparser2 applies to `m_hPlayerPawn`.
pub const PAWN_HANDLE_MASK: u32 = 0x7FF;

/// The body-component props of an entity's cell, per axis (X, Y, Z).
pub const CELL_PROPS: [&str; 3] = [
    "CBodyComponent.m_cellX",
    "CBodyComponent.m_cellY",
    "CBodyComponent.m_cellZ",
];
/// The body-component props of the offset inside the cell, per axis.
pub const OFFSET_PROPS: [&str; 3] = [
    "CBodyComponent.m_vecX",
    "CBodyComponent.m_vecY",
    "CBodyComponent.m_vecZ",
];

/// A world coordinate from a cell index and the offset inside the cell
/// (LaihoE/demoparser `coord_from_cell`, demoinfocs `coordFromCell`).
pub fn coord_from_cell(cell: u64, offset: f32) -> f32 {
    (cell as f64 * f64::from(1u32 << CELL_BITS) - MAX_COORD + f64::from(offset)) as f32
}

/// Which entity of a player a prop lives on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// `CCSPlayerPawn`.
    Pawn,
    /// `CCSPlayerController`.
    Controller,
    /// The weapon the pawn holds: the entity of its
    /// `m_pWeaponServices.m_hActiveWeapon` handle (any weapon class; the
    /// CS2 weapon serializers put these props at their top level).
    ActiveWeapon,
}

/// A prop computed from several fields (demoparser2's custom props).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Computed {
    /// Whether the pawn stands on nothing: `m_hGroundEntity` is the null
    /// handle (`0xFFFFFF`).
    Airborne,
    /// The pawn's entity index.
    EntityId,
    /// The user id of the player's `userinfo` entry (matched by steam id).
    UserId,
    /// The name of the active weapon's item definition index
    /// ([`item_name`]).
    WeaponName,
    /// The active weapon's original owner, `m_OriginalOwnerXuidHigh << 32 |
    /// m_OriginalOwnerXuidLow`, as decimal text.
    WeaponOriginalOwner,
    /// The controller's `m_iCompTeammateColor` as a color name (`blue`,
    /// `green`, `yellow`, `orange`, `purple`; other values as decimal text).
    PlayerColor,
    /// The names of the weapons and items a living player carries
    /// (`m_pWeaponServices.m_hMyWeapons`, each entity once, by
    /// [`item_name`]); a flashbang twice when the pawn holds two
    /// (`m_iAmmo[14] == 2`); the C4 only when the C4 entity's owner is the
    /// pawn. Empty for a dead player.
    Inventory,
}

/// How a friendly prop is computed.
#[derive(Debug, Clone, PartialEq)]
pub enum PropSource {
    /// A raw prop.
    Raw(Owner, String),
    /// Element `i` of a vector prop.
    Element(Owner, String, usize),
    /// World coordinate axis 0, 1 or 2 from the body component.
    Position(usize),
    /// `m_lifeState == 0`.
    IsAlive,
    /// Whether a button bit is set in the pawn's
    /// `m_pMovementServices.m_nButtonDownMaskPrev` (`FORWARD`, `FIRE`, ...).
    Button(u64),
    /// A computed prop.
    Computed(Computed),
    /// Velocity from the player's previous row: `(position − previous
    /// position) × tick rate` on one axis (0, 1, 2), or the horizontal speed
    /// (`None`). Null on a player's first row. Only per-tick rows have a
    /// previous row: collectors that keep one ([`TickCollector`]) fill it,
    /// [`read_player_prop`] gives null.
    Velocity(Option<usize>),
}

/// The friendly names and what they read.
pub const FRIENDLY_PROPS: &[(&str, &str)] = &[
    ("X", "pos:0"),
    ("Y", "pos:1"),
    ("Z", "pos:2"),
    ("health", "pawn:m_iHealth"),
    ("armor_value", "pawn:m_ArmorValue"),
    ("team_num", "pawn:m_iTeamNum"),
    ("pitch", "pawn:m_angEyeAngles#0"),
    ("yaw", "pawn:m_angEyeAngles#1"),
    ("is_alive", "alive"),
    ("life_state", "pawn:m_lifeState"),
    ("active_weapon", "pawn:m_pWeaponServices.m_hActiveWeapon"),
    ("has_defuser", "pawn:m_pItemServices.m_bHasDefuser"),
    ("has_helmet", "pawn:m_pItemServices.m_bHasHelmet"),
    ("flash_duration", "pawn:m_flFlashDuration"),
    ("flash_max_alpha", "pawn:m_flFlashMaxAlpha"),
    ("in_bomb_zone", "pawn:m_bInBombZone"),
    ("in_buy_zone", "pawn:m_bInBuyZone"),
    ("is_scoped", "pawn:m_bIsScoped"),
    ("is_defusing", "pawn:m_bIsDefusing"),
    ("is_walking", "pawn:m_bIsWalking"),
    ("spotted", "pawn:m_bSpotted"),
    ("last_place_name", "pawn:m_szLastPlaceName"),
    ("move_type", "pawn:m_MoveType"),
    ("duck_amount", "pawn:m_pMovementServices.m_flDuckAmount"),
    ("ducking", "pawn:m_pMovementServices.m_bDucking"),
    (
        "round_start_equip_value",
        "pawn:m_unRoundStartEquipmentValue",
    ),
    ("current_equip_value", "pawn:m_unCurrentEquipmentValue"),
    ("balance", "controller:m_pInGameMoneyServices.m_iAccount"),
    (
        "start_balance",
        "controller:m_pInGameMoneyServices.m_iStartAccount",
    ),
    (
        "total_cash_spent",
        "controller:m_pInGameMoneyServices.m_iTotalCashSpent",
    ),
    (
        "cash_spent_this_round",
        "controller:m_pInGameMoneyServices.m_iCashSpentThisRound",
    ),
    ("player_name", "controller:m_iszPlayerName"),
    ("player_steamid", "controller:m_steamID"),
    ("score", "controller:m_iScore"),
    ("ping", "controller:m_iPing"),
    ("mvps", "controller:m_iMVPs"),
    ("is_connected", "controller:m_iConnected"),
    ("crosshair_code", "controller:m_szCrosshairCodes"),
    ("rank", "controller:m_iCompetitiveRanking"),
    (
        "kills_total",
        "controller:m_pActionTrackingServices.m_iKills",
    ),
    (
        "deaths_total",
        "controller:m_pActionTrackingServices.m_iDeaths",
    ),
    (
        "assists_total",
        "controller:m_pActionTrackingServices.m_iAssists",
    ),
    (
        "damage_total",
        "controller:m_pActionTrackingServices.m_iDamage",
    ),
    (
        "headshot_kills_total",
        "controller:m_pActionTrackingServices.m_iHeadShotKills",
    ),
    (
        "utility_damage_total",
        "controller:m_pActionTrackingServices.m_iUtilityDamage",
    ),
    (
        "enemies_flashed_total",
        "controller:m_pActionTrackingServices.m_iEnemiesFlashed",
    ),
    (
        "equipment_value_total",
        "controller:m_pActionTrackingServices.m_iEquipmentValue",
    ),
    (
        "money_saved_total",
        "controller:m_pActionTrackingServices.m_iMoneySaved",
    ),
    (
        "alive_time_total",
        "controller:m_pActionTrackingServices.m_iLiveTime",
    ),
    // demoparser2's other pawn and controller props. A path part may name a
    // table by its serializer (`CCSPlayer_MovementServices`) instead of its
    // field (`m_pMovementServices`), as demoparser2 names them; a field a
    // game build does not have reads as null.
    ("glove_item_idx", "pawn:m_iItemDefinitionIndex"),
    ("aim_punch_angle", "pawn:m_aimPunchAngle"),
    ("aim_punch_angle_vel", "pawn:m_aimPunchAngleVel"),
    (
        "rank_if_win",
        "controller:m_iCompetitiveRankingPredicted_Win",
    ),
    (
        "rank_if_loss",
        "controller:m_iCompetitiveRankingPredicted_Loss",
    ),
    (
        "rank_if_tie",
        "controller:m_iCompetitiveRankingPredicted_Tie",
    ),
    (
        "buttons",
        "pawn:CCSPlayer_MovementServices.m_nButtonDownMaskPrev",
    ),
    ("is_auto_muted", "controller:m_bHasCommunicationAbuseMute"),
    ("pending_team_num", "controller:m_iPendingTeamNum"),
    ("ever_played_on_team", "controller:m_bEverPlayedOnTeam"),
    ("clan_name", "controller:m_szClan"),
    ("is_coach_team", "controller:m_iCoachingTeam"),
    ("comp_wins", "controller:m_iCompetitiveWins"),
    ("comp_rank_type", "controller:m_iCompetitiveRankType"),
    ("is_controlling_bot", "controller:m_bControllingBot"),
    (
        "has_controlled_bot_this_round",
        "controller:m_bHasControlledBotThisRound",
    ),
    ("can_control_bot", "controller:m_bCanControlObservedBot"),
    ("armor", "controller:m_iPawnArmor"),
    ("spawn_time", "controller:m_iPawnLifetimeStart"),
    ("death_time", "controller:m_iPawnLifetimeEnd"),
    ("fov", "controller:m_iDesiredFOV"),
    (
        "music_kit_id",
        "controller:CCSPlayerController_InventoryServices.m_unMusicID",
    ),
    (
        "leader_honors",
        "controller:CCSPlayerController_InventoryServices.m_nPersonaDataPublicCommendsLeader",
    ),
    (
        "teacher_honors",
        "controller:CCSPlayerController_InventoryServices.m_nPersonaDataPublicCommendsTeacher",
    ),
    (
        "friendly_honors",
        "controller:CCSPlayerController_InventoryServices.m_nPersonaDataPublicCommendsFriendly",
    ),
    (
        "ace_rounds_total",
        "controller:CCSPlayerController_ActionTrackingServices.m_iEnemy5Ks",
    ),
    (
        "4k_rounds_total",
        "controller:CCSPlayerController_ActionTrackingServices.m_iEnemy4Ks",
    ),
    (
        "3k_rounds_total",
        "controller:CCSPlayerController_ActionTrackingServices.m_iEnemy3Ks",
    ),
    (
        "objective_total",
        "controller:CCSPlayerController_ActionTrackingServices.m_iObjective",
    ),
    (
        "kill_reward_total",
        "controller:CCSPlayerController_ActionTrackingServices.m_iKillReward",
    ),
    (
        "cash_earned_total",
        "controller:CCSPlayerController_ActionTrackingServices.m_iCashEarned",
    ),
    ("move_collide", "pawn:m_MoveCollide"),
    (
        "looking_at_weapon",
        "pawn:CCSPlayer_WeaponServices.m_bIsLookingAtWeapon",
    ),
    (
        "holding_look_at_weapon",
        "pawn:CCSPlayer_WeaponServices.m_bIsHoldingLookAtWeapon",
    ),
    (
        "next_attack_time",
        "pawn:CCSPlayer_WeaponServices.m_flNextAttack",
    ),
    (
        "duck_time_ms",
        "pawn:CCSPlayer_MovementServices.m_nDuckTimeMsecs",
    ),
    ("max_speed", "pawn:CCSPlayer_MovementServices.m_flMaxspeed"),
    (
        "max_fall_velo",
        "pawn:CCSPlayer_MovementServices.m_flMaxFallVelocity",
    ),
    (
        "duck_speed",
        "pawn:CCSPlayer_MovementServices.m_flDuckSpeed",
    ),
    (
        "duck_overrdie",
        "pawn:CCSPlayer_MovementServices.m_bDuckOverride",
    ),
    (
        "old_jump_pressed",
        "pawn:CCSPlayer_MovementServices.m_bOldJumpPressed",
    ),
    (
        "jump_until",
        "pawn:CCSPlayer_MovementServices.m_flJumpUntil",
    ),
    ("jump_velo", "pawn:CCSPlayer_MovementServices.m_flJumpVel"),
    (
        "fall_velo",
        "pawn:CCSPlayer_MovementServices.m_flFallVelocity",
    ),
    ("in_crouch", "pawn:CCSPlayer_MovementServices.m_bInCrouch"),
    (
        "crouch_state",
        "pawn:CCSPlayer_MovementServices.m_nCrouchState",
    ),
    ("ducked", "pawn:CCSPlayer_MovementServices.m_bDucked"),
    (
        "in_duck_jump",
        "pawn:CCSPlayer_MovementServices.m_bInDuckJump",
    ),
    (
        "allow_auto_movement",
        "pawn:CCSPlayer_MovementServices.m_bAllowAutoMovement",
    ),
    (
        "jump_time_ms",
        "pawn:CCSPlayer_MovementServices.m_nJumpTimeMsecs",
    ),
    (
        "last_duck_time",
        "pawn:CCSPlayer_MovementServices.m_flLastDuckTime",
    ),
    (
        "is_rescuing",
        "pawn:CCSPlayer_ActionTrackingServices.m_bIsRescuing",
    ),
    (
        "weapon_purchases_this_match",
        "pawn:CCSPlayer_ActionTrackingServices.m_iWeaponPurchasesThisMatch",
    ),
    (
        "weapon_purchases_this_round",
        "pawn:CCSPlayer_ActionTrackingServices.m_iWeaponPurchasesThisRound",
    ),
    ("time_last_injury", "pawn:m_flTimeOfLastInjury"),
    (
        "direction_last_injury",
        "pawn:m_nRelativeDirectionOfLastInjury",
    ),
    ("player_state", "pawn:m_iPlayerState"),
    ("passive_items", "pawn:m_passiveItems"),
    ("resume_zoom", "pawn:m_bResumeZoom"),
    ("is_grabbing_hostage", "pawn:m_bIsGrabbingHostage"),
    (
        "blocking_use_in_progess",
        "pawn:m_iBlockingUseActionInProgress",
    ),
    ("molotov_damage_time", "pawn:m_fMolotovDamageTime"),
    ("moved_since_spawn", "pawn:m_bHasMovedSinceSpawn"),
    ("in_no_defuse_area", "pawn:m_bInNoDefuseArea"),
    ("killed_by_taser", "pawn:m_bKilledByTaser"),
    ("move_state", "pawn:m_iMoveState"),
    ("which_bomb_zone", "pawn:m_nWhichBombZone"),
    ("in_hostage_rescue_zone", "pawn:m_bInHostageRescueZone"),
    ("stamina", "pawn:m_flStamina"),
    ("direction", "pawn:m_iDirection"),
    ("shots_fired", "pawn:m_iShotsFired"),
    ("velo_modifier", "pawn:m_flVelocityModifier"),
    (
        "ground_accel_linear_frac_last_time",
        "pawn:m_flGroundAccelLinearFracLastTime",
    ),
    ("wait_for_no_attack", "pawn:m_bWaitForNoAttack"),
    ("is_strafing", "pawn:m_bStrafing"),
    ("time", "pawn:m_flSimulationTime"),
    // Props of the weapon the player holds.
    ("active_weapon_ammo", "weapon:m_iClip1"),
    ("total_ammo_left", "weapon:m_pReserveAmmo.0"),
    ("item_def_idx", "weapon:m_iItemDefinitionIndex"),
    ("weapon_quality", "weapon:m_iEntityQuality"),
    ("entity_lvl", "weapon:m_iEntityLevel"),
    ("item_id_high", "weapon:m_iItemIDHigh"),
    ("item_id_low", "weapon:m_iItemIDLow"),
    ("item_account_id", "weapon:m_iAccountID"),
    ("inventory_position", "weapon:m_iInventoryPosition"),
    ("is_initialized", "weapon:m_bInitialized"),
    ("custom_name", "weapon:m_szCustomName"),
    ("orig_owner_xuid_low", "weapon:m_OriginalOwnerXuidLow"),
    ("orig_owner_xuid_high", "weapon:m_OriginalOwnerXuidHigh"),
    ("fall_back_paint_kit", "weapon:m_nFallbackPaintKit"),
    ("fall_back_seed", "weapon:m_nFallbackSeed"),
    ("fall_back_wear", "weapon:m_flFallbackWear"),
    ("fall_back_stat_track", "weapon:m_nFallbackStatTrak"),
    ("m_iState", "weapon:m_iState"),
    ("fire_seq_start_time", "weapon:m_flFireSequenceStartTime"),
    (
        "fire_seq_start_time_change",
        "weapon:m_nFireSequenceStartTimeChange",
    ),
    (
        "is_player_fire_event_primary",
        "weapon:m_bPlayerFireEventIsPrimary",
    ),
    ("weapon_mode", "weapon:m_weaponMode"),
    ("accuracy_penalty", "weapon:m_fAccuracyPenalty"),
    ("i_recoil_idx", "weapon:m_iRecoilIndex"),
    ("fl_recoil_idx", "weapon:m_flRecoilIndex"),
    ("is_burst_mode", "weapon:m_bBurstMode"),
    (
        "post_pone_fire_ready_time",
        "weapon:m_flPostponeFireReadyTime",
    ),
    ("is_in_reload", "weapon:m_bInReload"),
    (
        "reload_visually_complete",
        "weapon:m_bReloadVisuallyComplete",
    ),
    ("dropped_at_time", "weapon:m_flDroppedAtTime"),
    ("is_hauled_back", "weapon:m_bIsHauledBack"),
    ("is_silencer_on", "weapon:m_bSilencerOn"),
    (
        "time_silencer_switch_complete",
        "weapon:m_flTimeSilencerSwitchComplete",
    ),
    ("orig_team_number", "weapon:m_iOriginalTeamNumber"),
    ("prev_owner", "weapon:m_hPrevOwner"),
    ("last_shot_time", "weapon:m_fLastShotTime"),
    ("iron_sight_mode", "weapon:m_iIronSightMode"),
    ("num_empty_attacks", "weapon:m_iNumEmptyAttacks"),
    ("zoom_lvl", "weapon:m_zoomLevel"),
    ("burst_shots_remaining", "weapon:m_iBurstShotsRemaining"),
    ("needs_bolt_action", "weapon:m_bNeedsBoltAction"),
    (
        "next_primary_attack_tick",
        "weapon:m_nNextPrimaryAttackTick",
    ),
    (
        "next_primary_attack_tick_ratio",
        "weapon:m_flNextPrimaryAttackTickRatio",
    ),
    (
        "next_secondary_attack_tick",
        "weapon:m_nNextSecondaryAttackTick",
    ),
    (
        "next_secondary_attack_tick_ratio",
        "weapon:m_flNextSecondaryAttackTickRatio",
    ),
    // Buttons held (bits of `m_nButtonDownMaskPrev`).
    ("FIRE", "button:0"),
    ("FORWARD", "button:3"),
    ("BACK", "button:4"),
    ("USE", "button:5"),
    ("LEFT", "button:9"),
    ("RIGHT", "button:10"),
    ("RIGHTCLICK", "button:11"),
    ("RELOAD", "button:13"),
    ("SCOREBOARD", "button:16"),
    ("WALK", "button:18"),
    ("ZOOM", "button:24"),
    ("INSPECT", "button:35"),
    // Computed.
    ("is_airborne", "computed:airborne"),
    ("entity_id", "computed:entity_id"),
    ("user_id", "computed:user_id"),
    ("active_weapon_name", "computed:weapon_name"),
    (
        "active_weapon_original_owner",
        "computed:weapon_original_owner",
    ),
    ("player_color", "computed:player_color"),
    ("inventory", "computed:inventory"),
    ("velocity", "velocity:speed"),
    ("velocity_X", "velocity:0"),
    ("velocity_Y", "velocity:1"),
    ("velocity_Z", "velocity:2"),
];

/// The pawn's handle of the weapon it holds.
pub const ACTIVE_WEAPON_PROP: &str = "m_pWeaponServices.m_hActiveWeapon";
/// The pawn's mask of the buttons held.
pub const BUTTONS_PROP: &str = "m_pMovementServices.m_nButtonDownMaskPrev";
/// The ground-entity handle of a pawn in the air (the null handle).
pub const AIRBORNE_GROUND_HANDLE: u64 = 0xFF_FFFF;
/// Index bits of an entity handle.
const HANDLE_INDEX_MASK: u64 = 0x3FFF;

/// The entity a handle points at (`None` for the null handle).
pub fn entity_of_handle(entities: &EntityList, raw: u64) -> Option<&Entity> {
    let index = raw & HANDLE_INDEX_MASK;
    if index == HANDLE_INDEX_MASK {
        return None;
    }
    entities.get(index as i32)
}

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

/// Item definition index of the flashbang, whose count the inventory shows.
const FLASHBANG_ITEM: u64 = 43;
/// Item definition index of the C4.
const C4_ITEM: u64 = 49;
/// The `m_iAmmo` slot of flashbangs.
const FLASHBANG_AMMO_SLOT: &str = "m_pWeaponServices.m_iAmmo.14";

/// See [`Computed::Inventory`].
fn inventory(state: &DemoState, cache: &mut PropCache, pawn: &Entity) -> Vec<String> {
    let alive = cache
        .value(state, pawn, "m_lifeState")
        .and_then(Value::as_i64)
        == Some(0);
    let Some(tables) = state.send_tables.as_ref().filter(|_| alive) else {
        return Vec::new();
    };
    let Some(list) = resolve_prop(tables, pawn.serializer, "m_pWeaponServices.m_hMyWeapons") else {
        return Vec::new();
    };
    let len = pawn.get(&list).and_then(Value::as_u64).unwrap_or(0);
    let mut seen: Vec<i32> = Vec::new();
    let mut names = Vec::new();
    let mut element: Vec<i32> = list.as_slice().to_vec();
    element.push(0);
    for i in 0..len.min(crate::serializer::MAX_ARRAY_LEN as u64) {
        if let Some(last) = element.last_mut() {
            *last = i as i32;
        }
        let weapon = pawn
            .get(&FieldPath::from_slice(&element))
            .and_then(Value::as_u64)
            .and_then(|h| entity_of_handle(&state.entities, h));
        let Some(weapon) = weapon.filter(|w| !seen.contains(&w.index)) else {
            continue;
        };
        seen.push(weapon.index);
        let Some(index) = cache
            .value(state, weapon, "m_iItemDefinitionIndex")
            .and_then(Value::as_u64)
        else {
            continue;
        };
        let Some(name) = item_name(index) else {
            continue;
        };
        if index == C4_ITEM {
            let owner = cache
                .value(state, weapon, "m_hOwnerEntity")
                .and_then(Value::as_u64)
                .and_then(|h| entity_of_handle(&state.entities, h));
            if owner.map(|o| o.index) != Some(pawn.index) {
                continue;
            }
        }
        if index == FLASHBANG_ITEM
            && cache
                .value(state, pawn, FLASHBANG_AMMO_SLOT)
                .and_then(Value::as_i64)
                == Some(2)
        {
            names.push(name.to_string());
        }
        names.push(name.to_string());
    }
    names
}

/// Teammate color names by `m_iCompTeammateColor`.
const PLAYER_COLORS: [&str; 5] = ["blue", "green", "yellow", "orange", "purple"];

/// A [`Computed`] prop of a player's pawn and controller.
pub fn computed_cell(
    state: &DemoState,
    cache: &mut PropCache,
    pawn: Option<&Entity>,
    controller: Option<&Entity>,
    which: Computed,
) -> Cell {
    let weapon = |cache: &mut PropCache| {
        pawn.and_then(|p| cache.value(state, p, ACTIVE_WEAPON_PROP))
            .and_then(Value::as_u64)
            .and_then(|h| entity_of_handle(&state.entities, h))
    };
    let cell = match which {
        Computed::Airborne => pawn
            .and_then(|p| cache.value(state, p, "m_hGroundEntity"))
            .and_then(Value::as_u64)
            .map(|h| Cell::Bool(h == AIRBORNE_GROUND_HANDLE)),
        Computed::EntityId => pawn.map(|p| Cell::Int(i64::from(p.index))),
        Computed::UserId => {
            let steamid = controller
                .and_then(|c| cache.value(state, c, "m_steamID"))
                .and_then(Value::as_u64);
            steamid.and_then(|s| {
                state
                    .players
                    .values()
                    .find(|p| p.steamid == s)
                    .map(|p| Cell::Int(i64::from(p.userid)))
            })
        }
        Computed::WeaponName => weapon(cache)
            .and_then(|w| cache.value(state, w, "m_iItemDefinitionIndex"))
            .and_then(Value::as_u64)
            .and_then(item_name)
            .map(|n| Cell::Str(n.to_string())),
        Computed::WeaponOriginalOwner => weapon(cache).and_then(|w| {
            let low = cache
                .value(state, w, "m_OriginalOwnerXuidLow")
                .and_then(Value::as_u64)?;
            let high = cache
                .value(state, w, "m_OriginalOwnerXuidHigh")
                .and_then(Value::as_u64)?;
            Some(Cell::Str(((high << 32) | (low & 0xFFFF_FFFF)).to_string()))
        }),
        Computed::Inventory => pawn.map(|p| Cell::Strs(inventory(state, cache, p))),
        Computed::PlayerColor => controller
            .and_then(|c| cache.value(state, c, "m_iCompTeammateColor"))
            .and_then(Value::as_i64)
            .map(|v| {
                let name = usize::try_from(v).ok().and_then(|i| PLAYER_COLORS.get(i));
                Cell::Str(name.map_or_else(|| v.to_string(), |n| (*n).to_string()))
            }),
    };
    cell.unwrap_or(Cell::Null)
}

/// Reads a player prop of a pawn and controller, by name (each name
/// hashed once per call: for tables built per event or per row; the
/// per-tick [`TickCollector`] interns its names instead). A raw pawn prop
/// the pawn does not have is read from the controller. [`PropSource::Velocity`]
/// needs the player's previous row and reads as null here.
pub fn read_player_prop(
    state: &DemoState,
    cache: &mut PropCache,
    pawn: Option<&Entity>,
    controller: Option<&Entity>,
    source: &PropSource,
) -> Cell {
    let ids = SourceIds::new(source, cache);
    read_with_ids(state, &state.entities, cache, pawn, controller, ids)
}

/// Resolves a friendly or raw prop name. Raw names are looked up on the
/// pawn first, then on the controller; a `CCSPlayerPawn.` or
/// `CCSPlayerController.` prefix picks one.
pub fn prop_source(name: &str) -> PropSource {
    if let Some((_, spec)) = FRIENDLY_PROPS.iter().find(|(n, _)| *n == name) {
        return parse_spec(spec);
    }
    if let Some(rest) = name.strip_prefix("CCSPlayerPawn.") {
        return PropSource::Raw(Owner::Pawn, rest.to_string());
    }
    if let Some(rest) = name.strip_prefix("CCSPlayerController.") {
        return PropSource::Raw(Owner::Controller, rest.to_string());
    }
    PropSource::Raw(Owner::Pawn, name.to_string())
}

fn parse_spec(spec: &str) -> PropSource {
    if spec == "alive" {
        return PropSource::IsAlive;
    }
    if let Some(axis) = spec.strip_prefix("pos:") {
        return PropSource::Position(axis.parse().unwrap_or(0));
    }
    if let Some(bit) = spec.strip_prefix("button:") {
        return PropSource::Button(1u64 << bit.parse::<u32>().unwrap_or(0).min(63));
    }
    if let Some(axis) = spec.strip_prefix("velocity:") {
        return PropSource::Velocity(axis.parse().ok());
    }
    if let Some(name) = spec.strip_prefix("computed:") {
        return PropSource::Computed(match name {
            "airborne" => Computed::Airborne,
            "entity_id" => Computed::EntityId,
            "user_id" => Computed::UserId,
            "weapon_name" => Computed::WeaponName,
            "weapon_original_owner" => Computed::WeaponOriginalOwner,
            "inventory" => Computed::Inventory,
            _ => Computed::PlayerColor,
        });
    }
    let (owner, path) = match spec.split_once(':') {
        Some(("controller", p)) => (Owner::Controller, p),
        Some(("weapon", p)) => (Owner::ActiveWeapon, p),
        Some((_, p)) => (Owner::Pawn, p),
        None => (Owner::Pawn, spec),
    };
    match path.split_once('#') {
        Some((p, i)) => PropSource::Element(owner, p.to_string(), i.parse().unwrap_or(0)),
        None => PropSource::Raw(owner, path.to_string()),
    }
}

/// The field of a serializer a part of a dotted prop name names, with its
/// position: the field of that name, else the table field whose serializer
/// has that name (`CCSPlayer_MovementServices` for `m_pMovementServices`,
/// demoparser2's way of naming nested props).
pub fn field_named<'t>(
    tables: &'t SendTables,
    ser: SerializerId,
    part: &str,
) -> Option<(usize, &'t crate::serializer::Field)> {
    let s = tables.serializer(ser)?;
    let fields = || {
        s.fields
            .iter()
            .enumerate()
            .filter_map(|(i, &f)| tables.fields.get(f as usize).map(|f| (i, f)))
    };
    fields()
        .find(|(_, f)| tables.symbol(f.name) == part)
        .or_else(|| {
            fields().find(|(_, f)| match &f.model {
                FieldModel::FixedTable { serializer, .. }
                | FieldModel::VariableTable(serializer) => {
                    tables.serializer_name(*serializer) == part
                }
                _ => false,
            })
        })
}

/// The field path of a dotted prop name in a serializer (array elements as
/// numbers; tables by field or serializer name, see [`field_named`]);
/// `None` if it does not exist.
pub fn resolve_prop(tables: &SendTables, root: SerializerId, name: &str) -> Option<FieldPath> {
    let mut indices: Vec<i32> = Vec::with_capacity(4);
    let mut ser = root;
    let mut parts = name.split('.').peekable();
    while let Some(part) = parts.next() {
        let (pos, field) = field_named(tables, ser, part)?;
        indices.push(pos as i32);
        match &field.model {
            FieldModel::Value(_) => {
                if parts.peek().is_some() {
                    return None;
                }
            }
            FieldModel::FixedArray { .. } | FieldModel::VariableArray(_) => {
                if let Some(next) = parts.next() {
                    indices.push(next.parse().ok()?);
                }
            }
            FieldModel::FixedTable { serializer, .. } => ser = *serializer,
            FieldModel::VariableTable(s) => {
                indices.push(parts.next()?.parse().ok()?);
                ser = *s;
            }
        }
    }
    (!indices.is_empty() && indices.len() <= 7).then(|| FieldPath::from_slice(&indices))
}

// Game-wide and team props. Tables per event and per tick read them by
// name; they are CS2's (the game rules proxy and the team entities).

/// Game-wide props by friendly name (demoparser2's names): fields of the
/// `CCSGameRules` behind the `CCSGameRulesProxy` entity (`m_pGameRules`).
/// `round_time` is this crate's own name. demoparser2's names whose fields
/// CS2 send tables do not have (`gungame_prog_weap_*`,
/// `survival_start_time`) or that are arrays (`num_player_alive_*`) are left
/// out; raw `CCSGameRulesProxy.m_pGameRules.<field>` reads any field.
pub const RULES_PROPS: &[(&str, &str)] = &[
    ("total_rounds_played", "m_pGameRules.m_totalRoundsPlayed"),
    ("is_bomb_planted", "m_pGameRules.m_bBombPlanted"),
    ("is_bomb_dropped", "m_pGameRules.m_bBombDropped"),
    ("is_freeze_period", "m_pGameRules.m_bFreezePeriod"),
    ("is_warmup_period", "m_pGameRules.m_bWarmupPeriod"),
    ("is_match_started", "m_pGameRules.m_bHasMatchStarted"),
    (
        "is_terrorist_timeout",
        "m_pGameRules.m_bTerroristTimeOutActive",
    ),
    ("is_ct_timeout", "m_pGameRules.m_bCTTimeOutActive"),
    ("game_phase", "m_pGameRules.m_gamePhase"),
    ("round_win_status", "m_pGameRules.m_iRoundWinStatus"),
    ("round_win_reason", "m_pGameRules.m_eRoundWinReason"),
    ("round_start_time", "m_pGameRules.m_fRoundStartTime"),
    ("round_time", "m_pGameRules.m_iRoundTime"),
    ("warmup_period_end", "m_pGameRules.m_fWarmupPeriodEnd"),
    ("warmup_period_start", "m_pGameRules.m_fWarmupPeriodStart"),
    (
        "terrorist_timeout_remaining",
        "m_pGameRules.m_flTerroristTimeOutRemaining",
    ),
    (
        "ct_timeout_remaining",
        "m_pGameRules.m_flCTTimeOutRemaining",
    ),
    (
        "num_terrorist_timeouts",
        "m_pGameRules.m_nTerroristTimeOuts",
    ),
    ("num_ct_timeouts", "m_pGameRules.m_nCTTimeOuts"),
    ("is_technical_timeout", "m_pGameRules.m_bTechnicalTimeOut"),
    (
        "is_waiting_for_resume",
        "m_pGameRules.m_bMatchWaitingForResume",
    ),
    ("match_start_time", "m_pGameRules.m_fMatchStartTime"),
    ("restart_round_time", "m_pGameRules.m_flRestartRoundTime"),
    ("is_game_restart?", "m_pGameRules.m_bGameRestart"),
    ("game_start_time", "m_pGameRules.m_flGameStartTime"),
    (
        "time_until_next_phase_start",
        "m_pGameRules.m_timeUntilNextPhaseStarts",
    ),
    (
        "rounds_played_this_phase",
        "m_pGameRules.m_nRoundsPlayedThisPhase",
    ),
    ("hostages_remaining", "m_pGameRules.m_iHostagesRemaining"),
    ("any_hostages_reached", "m_pGameRules.m_bAnyHostageReached"),
    ("has_bombites", "m_pGameRules.m_bMapHasBombTarget"),
    ("has_rescue_zone", "m_pGameRules.m_bMapHasRescueZone"),
    ("has_buy_zone", "m_pGameRules.m_bMapHasBuyZone"),
    ("is_matchmaking", "m_pGameRules.m_bIsQueuedMatchmaking"),
    ("match_making_mode", "m_pGameRules.m_nQueuedMatchmakingMode"),
    ("is_valve_dedicated_server", "m_pGameRules.m_bIsValveDS"),
    ("spectator_slot_count", "m_pGameRules.m_iSpectatorSlotCount"),
    ("n_best_of_maps", "m_pGameRules.m_numBestOfMaps"),
    ("round_start_count", "m_pGameRules.m_nRoundStartCount"),
    ("round_end_count", "m_pGameRules.m_nRoundEndCount"),
    ("match_end_count", "m_pGameRules.m_nMatchEndCount"),
    ("terrorist_cant_buy", "m_pGameRules.m_bTCantBuy"),
    ("ct_cant_buy", "m_pGameRules.m_bCTCantBuy"),
    ("ct_losing_streak", "m_pGameRules.m_iNumConsecutiveCTLoses"),
    (
        "t_losing_streak",
        "m_pGameRules.m_iNumConsecutiveTerroristLoses",
    ),
    ("round_in_progress", "m_pGameRules.m_bRoundInProgress"),
    ("i_bomb_site?", "m_pGameRules.m_iBombSite"),
];

/// Team props by friendly name (demoparser2's names): fields of a `CCSTeam`
/// entity. As a player prop, the team is the player's (the pawn's
/// `m_iTeamNum`, else the controller's); as a game-wide prop a name gives
/// two columns, `t_<name>` (team 2) and `ct_<name>` (team 3).
pub const TEAM_PROPS: &[(&str, &str)] = &[
    ("team_rounds_total", "m_iScore"),
    ("team_score_first_half", "m_scoreFirstHalf"),
    ("team_score_second_half", "m_scoreSecondHalf"),
    ("team_score_overtime", "m_scoreOvertime"),
    ("team_name", "m_szTeamname"),
    ("team_clan_name", "m_szClanTeamname"),
    ("team_surrendered", "m_bSurrendered"),
    ("team_match_stat", "m_szTeamMatchStat"),
    ("team_num_map_victories", "m_numMapVictories"),
];

/// The terrorists' team number.
pub const TEAM_T: u8 = 2;
/// The counter-terrorists' team number.
pub const TEAM_CT: u8 = 3;

/// How a game-wide prop is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OtherSource {
    /// A dotted path on the `CCSGameRulesProxy` entity.
    Rules(String),
    /// `net_tick × tick_interval` (seconds).
    GameTime,
    /// A dotted path on the `CCSTeam` entity of a team (2 T, 3 CT).
    Team(u8, String),
}

/// The `CCSTeam` path of a team prop: a friendly name or a raw
/// `CCSTeam.<path>`.
fn team_path(name: &str) -> Option<String> {
    if let Some((_, p)) = TEAM_PROPS.iter().find(|(n, _)| *n == name) {
        return Some((*p).to_string());
    }
    name.strip_prefix("CCSTeam.").map(str::to_string)
}

/// Resolves a game-wide prop that fills one column: a rules name,
/// `game_time`, a raw `CCSGameRulesProxy.<path>`, or one team's prop
/// (`t_team_rounds_total`, `ct_team_name`, `t_CCSTeam.m_iScore`); `None`
/// when unknown.
pub fn other_source(name: &str) -> Option<OtherSource> {
    if name == "game_time" {
        return Some(OtherSource::GameTime);
    }
    if let Some((_, path)) = RULES_PROPS.iter().find(|(n, _)| *n == name) {
        return Some(OtherSource::Rules((*path).to_string()));
    }
    for (prefix, team) in [("t_", TEAM_T), ("ct_", TEAM_CT)] {
        if let Some(p) = name.strip_prefix(prefix).and_then(team_path) {
            return Some(OtherSource::Team(team, p));
        }
    }
    name.strip_prefix("CCSGameRulesProxy.")
        .map(|p| OtherSource::Rules(p.to_string()))
}

/// The columns a game-wide prop name gives: one for most names, two
/// (`t_<name>`, `ct_<name>`) for a team prop, as demoparser2's
/// `parse_event(other=[...])` does; `None` when unknown.
pub fn other_columns(name: &str) -> Option<Vec<(String, OtherSource)>> {
    if let Some(p) = team_path(name) {
        return Some(vec![
            (format!("t_{name}"), OtherSource::Team(TEAM_T, p.clone())),
            (format!("ct_{name}"), OtherSource::Team(TEAM_CT, p)),
        ]);
    }
    other_source(name).map(|s| vec![(name.to_string(), s)])
}

/// Every game-wide prop name (team props once, without `t_`/`ct_`).
pub fn other_names() -> Vec<&'static str> {
    let mut v: Vec<&str> = RULES_PROPS.iter().map(|(n, _)| *n).collect();
    v.push("game_time");
    v.extend(TEAM_PROPS.iter().map(|(n, _)| *n));
    v
}

/// The entities game-wide and team props are read from, found once per
/// row (event) or per tick.
#[derive(Debug, Clone, Copy, Default)]
pub struct World<'s> {
    /// The `CCSGameRulesProxy` entity.
    pub rules: Option<&'s Entity>,
    /// `CCSTeam` entities by team number (0 unassigned, 1 spectator, 2 T,
    /// 3 CT).
    pub teams: [Option<&'s Entity>; 4],
}

impl<'s> World<'s> {
    /// Finds the rules and team entities of the current state.
    pub fn of(state: &'s DemoState, paths: &mut PropCache) -> World<'s> {
        let mut w = World::default();
        for e in state.entities.iter() {
            match state.class_name(e) {
                "CCSGameRulesProxy" => w.rules = Some(e),
                "CCSTeam" => {
                    let n = paths
                        .value(state, e, "m_iTeamNum")
                        .and_then(Value::as_i64)
                        .and_then(|n| usize::try_from(n).ok());
                    if let Some(slot) = n.and_then(|n| w.teams.get_mut(n)) {
                        *slot = Some(e);
                    }
                }
                _ => {}
            }
        }
        w
    }

    /// The team entity of a team number.
    pub fn team(&self, n: i64) -> Option<&'s Entity> {
        usize::try_from(n)
            .ok()
            .and_then(|n| self.teams.get(n).copied().flatten())
    }
}

/// Reads a game-wide prop.
pub fn other_prop(state: &DemoState, paths: &mut PropCache, source: &OtherSource) -> Cell {
    let world = World::of(state, paths);
    other_prop_in(state, paths, &world, source)
}

/// Reads a game-wide prop from entities already found.
pub fn other_prop_in(
    state: &DemoState,
    paths: &mut PropCache,
    world: &World<'_>,
    source: &OtherSource,
) -> Cell {
    let (entity, path) = match source {
        OtherSource::GameTime => return Cell::Float(state.net_tick as f32 * state.tick_interval),
        OtherSource::Rules(path) => (world.rules, path),
        OtherSource::Team(team, path) => (world.team(i64::from(*team)), path),
    };
    entity
        .and_then(|e| paths.value(state, e, path))
        .map(Cell::from_value)
        .unwrap_or(Cell::Null)
}

/// How a player prop is read.
#[derive(Debug, Clone, PartialEq)]
pub enum PlayerSource {
    /// From the player's pawn or controller.
    Entity(PropSource),
    /// A dotted path on the `CCSTeam` entity of the player's team.
    Team(String),
    /// A game-wide prop, repeated in each player row (demoparser2's
    /// `parse_ticks` accepts game-rules names as player props).
    World(OtherSource),
}

/// Resolves a player prop name: a team prop (friendly or raw
/// `CCSTeam.<path>`), a game-wide name (rules, `game_time`, raw
/// `CCSGameRulesProxy.<path>`), else a pawn/controller prop (friendly or
/// raw).
pub fn player_source(name: &str) -> PlayerSource {
    if let Some(p) = team_path(name) {
        return PlayerSource::Team(p);
    }
    if name == "game_time"
        || RULES_PROPS.iter().any(|(n, _)| *n == name)
        || name.starts_with("CCSGameRulesProxy.")
    {
        if let Some(s) = other_source(name) {
            return PlayerSource::World(s);
        }
    }
    PlayerSource::Entity(prop_source(name))
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

/// A cell of an output table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Cell {
    /// Missing.
    Null,
    /// Boolean.
    Bool(bool),
    /// Signed integer.
    Int(i64),
    /// Unsigned integer (steam ids).
    UInt(u64),
    /// Float.
    Float(f32),
    /// Text.
    Str(String),
    /// Vector.
    Floats(Vec<f32>),
    /// A list of text (an inventory).
    Strs(Vec<String>),
}

impl Cell {
    /// The cell for an entity value (vectors as float lists).
    pub fn from_value(v: &Value) -> Cell {
        match v {
            Value::Bool(b) => Cell::Bool(*b),
            Value::I32(x) => Cell::Int(i64::from(*x)),
            Value::I64(x) => Cell::Int(*x),
            Value::U32(x) => Cell::Int(i64::from(*x)),
            Value::U64(x) => Cell::UInt(*x),
            Value::F32(x) => Cell::Float(*x),
            Value::String(s) => Cell::Str(s.to_string()),
            other => match other.as_floats() {
                Some(f) => Cell::Floats(f.to_vec()),
                None => Cell::Str(other.to_string()),
            },
        }
    }

    /// The cell for a game-event value.
    pub fn from_event(v: &EventValue) -> Cell {
        match v {
            EventValue::String(s) => Cell::Str(s.clone()),
            EventValue::Float(f) => Cell::Float(*f),
            EventValue::Int(i) => Cell::Int(i64::from(*i)),
            EventValue::Bool(b) => Cell::Bool(*b),
            EventValue::U64(u) => Cell::UInt(*u),
        }
    }
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cell::Null => Ok(()),
            Cell::Bool(b) => write!(f, "{b}"),
            Cell::Int(i) => write!(f, "{i}"),
            Cell::UInt(u) => write!(f, "{u}"),
            Cell::Float(x) => write!(f, "{x}"),
            Cell::Str(s) => f.write_str(s),
            Cell::Floats(v) => {
                let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                write!(f, "[{}]", parts.join(" "))
            }
            // A JSON array: names may hold spaces (`C4 Explosive`).
            Cell::Strs(v) => f.write_str(&serde_json::to_string(v).map_err(|_| std::fmt::Error)?),
        }
    }
}

/// A table: column names and rows.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Table {
    /// Column names.
    pub columns: Vec<String>,
    /// Rows, one cell per column.
    pub rows: Vec<Vec<Cell>>,
}

/// A prop name interned in a [`PropCache`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PropId(u32);

/// Field paths of dotted prop names, resolved once per serializer.
///
/// A name is interned once ([`PropCache::id`]); reading a prop by id is two
/// vector lookups and the walk down the entity's state. Reading by name
/// ([`PropCache::value`]) hashes the name first, and allocates nothing once
/// the name is known. The cache follows the demo's send tables: when they
/// are replaced, the resolved paths are dropped.
#[derive(Debug, Default)]
pub struct PropCache {
    ids: rustc_hash::FxHashMap<Box<str>, PropId>,
    names: Vec<Box<str>>,
    /// `paths[serializer][prop]`: `None` until resolved, then the path if
    /// the serializer has the prop.
    paths: Vec<Vec<Option<Option<FieldPath>>>>,
    /// The send tables the paths were resolved against.
    tables: Option<std::sync::Arc<SendTables>>,
}

impl PropCache {
    /// The id of a prop name, interning it on first use.
    pub fn id(&mut self, name: &str) -> PropId {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = PropId(self.names.len() as u32);
        self.names.push(name.into());
        self.ids.insert(name.into(), id);
        id
    }

    /// The value of an interned prop on an entity.
    #[inline]
    pub fn get<'e>(
        &mut self,
        state: &DemoState,
        entity: &'e Entity,
        id: PropId,
    ) -> Option<&'e Value> {
        let tables = state.send_tables.as_ref()?;
        if !self
            .tables
            .as_ref()
            .is_some_and(|t| std::sync::Arc::ptr_eq(t, tables))
        {
            self.paths.clear();
            self.tables = Some(std::sync::Arc::clone(tables));
        }
        let ser = entity.serializer as usize;
        if self.paths.len() <= ser {
            self.paths.resize_with(ser + 1, Vec::new);
        }
        let row = self.paths.get_mut(ser)?;
        let prop = id.0 as usize;
        if row.len() <= prop {
            row.resize(self.names.len().max(prop + 1), None);
        }
        let slot = row.get_mut(prop)?;
        let path = match slot {
            Some(p) => *p,
            None => {
                let p = self
                    .names
                    .get(prop)
                    .and_then(|n| resolve_prop(tables, entity.serializer, n));
                *slot = Some(p);
                p
            }
        };
        entity.get(&path?)
    }

    /// The value of a dotted prop on an entity.
    #[inline]
    pub fn value<'e>(
        &mut self,
        state: &DemoState,
        entity: &'e Entity,
        name: &str,
    ) -> Option<&'e Value> {
        let id = self.id(name);
        self.get(state, entity, id)
    }
}

/// A player as demoparser2 sees one: a controller with a pawn, a steam id
/// and a team other than spectator.
#[derive(Debug, Clone)]
pub struct PlayerRef {
    /// Controller entity index.
    pub controller: i32,
    /// Pawn entity index.
    pub pawn: i32,
    /// Name from the controller.
    pub name: String,
    /// Steam id from the controller.
    pub steamid: u64,
}

/// The players of the current state (demoparser2's rules: pawn handle valid,
/// steam id non-zero, team not spectator). For a call per tick, a
/// [`PlayerFinder`] does the same without searching the classes and every
/// entity each time.
pub fn players(state: &DemoState, cache: &mut PropCache) -> Vec<PlayerRef> {
    let mut ids = PlayerIds::new(cache);
    let mut out = Vec::new();
    players_into(state, cache, &mut ids, &mut out);
    out
}

/// [`players`] for repeated calls: remembers the controller class and the
/// controller entities (until the entity list's
/// [`generation`](crate::entity::EntityList::generation) changes), so a call
/// per tick reads only the controllers' props. Use it with the
/// [`PropCache`] it was made with.
#[derive(Debug, Clone)]
pub struct PlayerFinder {
    ids: PlayerIds,
    found: Vec<PlayerRef>,
}

impl PlayerFinder {
    /// A finder whose prop names are interned in `cache`.
    pub fn new(cache: &mut PropCache) -> Self {
        PlayerFinder {
            ids: PlayerIds::new(cache),
            found: Vec::new(),
        }
    }

    /// The players of the current state, as [`players`] selects them.
    pub fn find(&mut self, state: &DemoState, cache: &mut PropCache) -> &[PlayerRef] {
        players_into(state, cache, &mut self.ids, &mut self.found);
        &self.found
    }
}

/// The prop ids [`players`] reads.
#[derive(Debug, Clone)]
struct PlayerIds {
    pawn: PropId,
    steamid: PropId,
    team: PropId,
    name: PropId,
    /// The controller class id last found.
    controller: Option<u32>,
    /// Indices of the controller entities, valid while the entity list's
    /// generation is `controllers_generation` (entities are created and
    /// deleted rarely; players are read every tick).
    controllers: Vec<i32>,
    controllers_generation: Option<(u64, u32)>,
}

impl PlayerIds {
    fn new(cache: &mut PropCache) -> PlayerIds {
        PlayerIds {
            pawn: cache.id("m_hPlayerPawn"),
            steamid: cache.id("m_steamID"),
            team: cache.id("m_iTeamNum"),
            name: cache.id("m_iszPlayerName"),
            controller: None,
            controllers: Vec::new(),
            controllers_generation: None,
        }
    }
}

/// The class id of `CCSPlayerController`, if the demo has one; `cached` is
/// the id found last time, checked before the classes are searched again.
fn controller_class(state: &DemoState, cached: &mut Option<u32>) -> Option<u32> {
    const NAME: &str = "CCSPlayerController";
    if let Some(id) = *cached {
        if state
            .classes
            .get(id as usize)
            .is_some_and(|c| c.name == NAME)
        {
            return Some(id);
        }
    }
    *cached = state.classes.iter().find(|c| c.name == NAME).map(|c| c.id);
    *cached
}

fn players_into(
    state: &DemoState,
    cache: &mut PropCache,
    ids: &mut PlayerIds,
    out: &mut Vec<PlayerRef>,
) {
    let Some(class) = controller_class(state, &mut ids.controller) else {
        out.clear();
        return;
    };
    let key = (state.entities.generation(), class);
    if ids.controllers_generation != Some(key) {
        ids.controllers.clear();
        ids.controllers.extend(
            state
                .entities
                .iter()
                .filter(|e| e.class_id == class)
                .map(|e| e.index),
        );
        ids.controllers_generation = Some(key);
    }
    let mut found = 0;
    for e in ids
        .controllers
        .iter()
        .filter_map(|&i| state.entities.get(i))
    {
        let pawn_handle = cache
            .get(state, e, ids.pawn)
            .and_then(Value::as_u64)
            .unwrap_or(u64::from(PAWN_HANDLE_MASK));
        let pawn = (pawn_handle as u32) & PAWN_HANDLE_MASK;
        if pawn == PAWN_HANDLE_MASK {
            continue;
        }
        let steamid = cache
            .get(state, e, ids.steamid)
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let team = cache
            .get(state, e, ids.team)
            .and_then(Value::as_i64)
            .unwrap_or(0);
        if steamid == 0 || team == 1 {
            continue;
        }
        let name = cache
            .get(state, e, ids.name)
            .and_then(Value::as_str)
            .unwrap_or("");
        // Entries of the previous call are overwritten in place (their
        // name buffers reused), then the rest is cut.
        match out.get_mut(found) {
            Some(p) => {
                p.controller = e.index;
                p.pawn = pawn as i32;
                p.steamid = steamid;
                p.name.clear();
                p.name.push_str(name);
            }
            None => out.push(PlayerRef {
                controller: e.index,
                pawn: pawn as i32,
                name: name.to_string(),
                steamid,
            }),
        }
        found += 1;
    }
    out.truncate(found);
}

/// A [`PropSource`] with its prop names interned.
#[derive(Debug, Clone, Copy)]
enum SourceIds {
    Raw(Owner, PropId),
    Element(Owner, PropId, usize),
    Position {
        cell: PropId,
        offset: PropId,
    },
    IsAlive(PropId),
    /// A prop of the active weapon: the pawn's weapon handle, then the prop.
    Weapon {
        handle: PropId,
        prop: PropId,
    },
    Button {
        mask: PropId,
        bit: u64,
    },
    Computed(Computed),
    Velocity(Option<usize>),
    /// A prop of the player's team entity: index into the collector's team
    /// paths.
    Team(usize),
    /// A game-wide prop: index into the collector's game-wide sources.
    World(usize),
    Missing,
}

impl SourceIds {
    fn new(source: &PropSource, cache: &mut PropCache) -> SourceIds {
        match source {
            PropSource::Raw(Owner::ActiveWeapon, name) => SourceIds::Weapon {
                handle: cache.id(ACTIVE_WEAPON_PROP),
                prop: cache.id(name),
            },
            PropSource::Raw(owner, name) => SourceIds::Raw(*owner, cache.id(name)),
            PropSource::Element(owner, name, i) => SourceIds::Element(*owner, cache.id(name), *i),
            PropSource::Position(axis) => match (CELL_PROPS.get(*axis), OFFSET_PROPS.get(*axis)) {
                (Some(c), Some(o)) => SourceIds::Position {
                    cell: cache.id(c),
                    offset: cache.id(o),
                },
                _ => SourceIds::Missing,
            },
            PropSource::IsAlive => SourceIds::IsAlive(cache.id("m_lifeState")),
            PropSource::Button(bit) => SourceIds::Button {
                mask: cache.id(BUTTONS_PROP),
                bit: *bit,
            },
            PropSource::Computed(c) => SourceIds::Computed(*c),
            PropSource::Velocity(axis) => SourceIds::Velocity(*axis),
        }
    }
}

fn read_prop(
    state: &DemoState,
    entities: &EntityList,
    cache: &mut PropCache,
    player: &PlayerRef,
    source: SourceIds,
) -> Cell {
    let pawn = entities.get(player.pawn);
    let controller = entities.get(player.controller);
    read_with_ids(state, entities, cache, pawn, controller, source)
}

fn read_with_ids(
    state: &DemoState,
    entities: &EntityList,
    cache: &mut PropCache,
    pawn: Option<&Entity>,
    controller: Option<&Entity>,
    source: SourceIds,
) -> Cell {
    let on = |owner: Owner| match owner {
        Owner::Pawn => pawn,
        Owner::Controller => controller,
        Owner::ActiveWeapon => None,
    };
    match source {
        SourceIds::Weapon { handle, prop } => {
            let weapon = pawn
                .and_then(|p| cache.get(state, p, handle))
                .and_then(Value::as_u64)
                .and_then(|h| entity_of_handle(entities, h));
            weapon
                .and_then(|w| cache.get(state, w, prop))
                .map(Cell::from_value)
                .unwrap_or(Cell::Null)
        }
        SourceIds::Button { mask, bit } => pawn
            .and_then(|p| cache.get(state, p, mask))
            .and_then(Value::as_u64)
            .map(|m| Cell::Bool(m & bit != 0))
            .unwrap_or(Cell::Null),
        SourceIds::Computed(c) => computed_cell(state, cache, pawn, controller, c),
        // Filled in by the collector, which knows the previous row and the
        // team and game-wide entities.
        SourceIds::Velocity(_) | SourceIds::Team(_) | SourceIds::World(_) => Cell::Null,
        SourceIds::Raw(owner, id) => {
            let primary = on(owner).and_then(|e| cache.get(state, e, id));
            let value = match primary {
                Some(v) => Some(v),
                None if owner == Owner::Pawn => controller.and_then(|e| cache.get(state, e, id)),
                None => None,
            };
            match value {
                Some(v) => Cell::from_value(v),
                None => Cell::Null,
            }
        }
        SourceIds::Element(owner, id, i) => on(owner)
            .and_then(|e| cache.get(state, e, id))
            .and_then(|v| v.as_floats().and_then(|f| f.get(i).copied()))
            .map(Cell::Float)
            .unwrap_or(Cell::Null),
        SourceIds::Position { cell, offset } => {
            let Some(p) = pawn else { return Cell::Null };
            let cell = cache.get(state, p, cell).and_then(Value::as_u64);
            let off = cache.get(state, p, offset).and_then(Value::as_f32);
            match (cell, off) {
                (Some(c), Some(o)) => Cell::Float(coord_from_cell(c, o)),
                _ => Cell::Null,
            }
        }
        SourceIds::IsAlive(id) => {
            let v = pawn
                .and_then(|e| cache.get(state, e, id))
                .and_then(Value::as_i64);
            Cell::Bool(v == Some(0))
        }
        SourceIds::Missing => Cell::Null,
    }
}

/// A velocity cell from a player's position on this row and on its
/// previous row (demoparser2's arithmetic: `current × rate − previous ×
/// rate` in `f32`; the horizontal speed is the length of the X and Y
/// velocities). Null without both positions.
pub fn velocity_cell(
    position: Option<[f32; 3]>,
    previous: Option<[f32; 3]>,
    axis: Option<usize>,
    rate: f32,
) -> Cell {
    let (Some(cur), Some(prev)) = (position, previous) else {
        return Cell::Null;
    };
    let v = |i: usize| match (cur.get(i), prev.get(i)) {
        (Some(c), Some(p)) => Some(c * rate - p * rate),
        _ => None,
    };
    let value = match axis {
        Some(i) => v(i),
        None => match (v(0), v(1)) {
            (Some(x), Some(y)) => Some((x * x + y * y).sqrt()),
            _ => None,
        },
    };
    value.map(Cell::Float).unwrap_or(Cell::Null)
}

/// The tick rate velocities are scaled by: `1 / tick_interval` (64 in CS2).
pub fn tick_rate(state: &DemoState) -> f32 {
    if state.tick_interval > 0.0 {
        1.0 / state.tick_interval
    } else {
        64.0
    }
}

/// The world position of a pawn from interned cell and offset props.
fn position_with_ids(
    state: &DemoState,
    cache: &mut PropCache,
    pawn: &Entity,
    ids: &[(PropId, PropId); 3],
) -> Option<[f32; 3]> {
    let mut out = [0.0f32; 3];
    for (&(cell, offset), slot) in ids.iter().zip(out.iter_mut()) {
        let c = cache.get(state, pawn, cell).and_then(Value::as_u64)?;
        let o = cache.get(state, pawn, offset).and_then(Value::as_f32)?;
        *slot = coord_from_cell(c, o);
    }
    Some(out)
}

/// The team number of a player: the pawn's `m_iTeamNum`, else the
/// controller's.
pub fn team_number(
    state: &DemoState,
    cache: &mut PropCache,
    pawn: Option<&Entity>,
    controller: Option<&Entity>,
) -> Option<i64> {
    pawn.and_then(|e| cache.value(state, e, "m_iTeamNum"))
        .or_else(|| controller.and_then(|e| cache.value(state, e, "m_iTeamNum")))
        .and_then(Value::as_i64)
}

/// What a [`TickCollector`] keeps for velocity props: the interned cell and
/// offset props per axis, and each player's position on their previous row
/// (by steam id).
type Velocities = (
    [(PropId, PropId); 3],
    rustc_hash::FxHashMap<u64, Option<[f32; 3]>>,
);

/// Collects one row per player after every `PacketEntities` message outside
/// full packets (demoparser2's `parse_ticks`): the props asked for, then
/// `tick`, `steamid`, `name`.
#[derive(Debug)]
pub struct TickCollector {
    props: Vec<SourceIds>,
    ticks: Option<Vec<i32>>,
    cache: PropCache,
    player_ids: PlayerIds,
    players: Vec<PlayerRef>,
    /// With a velocity prop: the position props, and each player's
    /// position on their previous row (by steam id).
    velocity: Option<Velocities>,
    /// The paths of the team props ([`SourceIds::Team`]).
    team_paths: Vec<String>,
    /// The game-wide props ([`SourceIds::World`]).
    world_sources: Vec<OtherSource>,
    /// Only the rows of these steam ids ([`TickCollector::with_players`]).
    only_players: Option<Vec<u64>>,
    /// The collected rows.
    pub table: Table,
}

impl TickCollector {
    /// A collector for these props, optionally only at these ticks.
    pub fn new(props: &[String], ticks: Option<Vec<i32>>) -> Self {
        let mut columns: Vec<String> = props.to_vec();
        columns.extend(["tick", "steamid", "name"].map(String::from));
        let mut cache = PropCache::default();
        let (mut team_paths, mut world_sources) = (Vec::new(), Vec::new());
        let props: Vec<SourceIds> = props
            .iter()
            .map(|p| match player_source(p) {
                PlayerSource::Entity(s) => SourceIds::new(&s, &mut cache),
                PlayerSource::Team(path) => {
                    team_paths.push(path);
                    SourceIds::Team(team_paths.len() - 1)
                }
                PlayerSource::World(o) => {
                    world_sources.push(o);
                    SourceIds::World(world_sources.len() - 1)
                }
            })
            .collect();
        let velocity = props
            .iter()
            .any(|p| matches!(p, SourceIds::Velocity(_)))
            .then(|| {
                let ids = [0, 1, 2]
                    .map(|axis| (cache.id(CELL_PROPS[axis]), cache.id(OFFSET_PROPS[axis])));
                (ids, rustc_hash::FxHashMap::default())
            });
        TickCollector {
            props,
            velocity,
            team_paths,
            world_sources,
            only_players: None,
            ticks,
            player_ids: PlayerIds::new(&mut cache),
            cache,
            players: Vec::new(),
            table: Table {
                columns,
                rows: Vec::new(),
            },
        }
    }
}

impl TickCollector {
    /// Keeps only the rows of these steam ids (`None`: every player).
    #[must_use]
    pub fn with_players(mut self, players: Option<Vec<u64>>) -> Self {
        self.only_players = players;
        self
    }
}

impl Visitor for TickCollector {
    fn interests(&self) -> Interests {
        Interests {
            entities: true,
            ..Interests::NONE
        }
    }

    fn on_packet_entities(&mut self, state: &DemoState) {
        if state.in_full_packet {
            return;
        }
        if let Some(t) = &self.ticks {
            if !t.contains(&state.tick) {
                return;
            }
        }
        let mut players = std::mem::take(&mut self.players);
        players_into(state, &mut self.cache, &mut self.player_ids, &mut players);
        let rate = tick_rate(state);
        let world = if self.team_paths.is_empty() && self.world_sources.is_empty() {
            World::default()
        } else {
            World::of(state, &mut self.cache)
        };
        for p in players.drain(..) {
            if let Some(only) = &self.only_players {
                if !only.contains(&p.steamid) {
                    continue;
                }
            }
            let mut row = Vec::with_capacity(self.props.len() + 3);
            let (position, previous) = match &mut self.velocity {
                Some((ids, last)) => {
                    let pos = state
                        .entities
                        .get(p.pawn)
                        .and_then(|pawn| position_with_ids(state, &mut self.cache, pawn, ids));
                    (pos, last.insert(p.steamid, pos).flatten())
                }
                None => (None, None),
            };
            for &src in &self.props {
                row.push(match src {
                    SourceIds::Velocity(axis) => velocity_cell(position, previous, axis, rate),
                    SourceIds::Team(i) => {
                        let pawn = state.entities.get(p.pawn);
                        let controller = state.entities.get(p.controller);
                        let team = team_number(state, &mut self.cache, pawn, controller)
                            .and_then(|n| world.team(n));
                        match (team, self.team_paths.get(i)) {
                            (Some(e), Some(path)) => self
                                .cache
                                .value(state, e, path)
                                .map(Cell::from_value)
                                .unwrap_or(Cell::Null),
                            _ => Cell::Null,
                        }
                    }
                    SourceIds::World(i) => match self.world_sources.get(i) {
                        Some(o) => other_prop_in(state, &mut self.cache, &world, o),
                        None => Cell::Null,
                    },
                    _ => read_prop(state, &state.entities, &mut self.cache, &p, src),
                });
            }
            row.push(Cell::Int(i64::from(state.tick)));
            row.push(Cell::UInt(p.steamid));
            row.push(Cell::Str(p.name));
            self.table.rows.push(row);
        }
        self.players = players;
    }
}

/// Keys that name a player (a controller slot), and the column prefix used
/// for them.
const PLAYER_KEYS: &[(&str, &str)] = &[
    ("userid", "user"),
    ("attacker", "attacker"),
    ("assister", "assister"),
    ("victim", "victim"),
];

/// One collected event: name, tick, and its columns.
pub type EventRow = (String, i32, Vec<(String, Cell)>);

/// Collects game events as rows: `event`, `tick`, every key of the event,
/// and for player keys `<prefix>_name` and `<prefix>_steamid` of the player
/// in that slot (from `userinfo`; no entity is decoded).
#[derive(Debug, Default)]
pub struct EventCollector {
    names: Option<Vec<String>>,
    /// Events as (name, tick, key/value pairs).
    pub events: Vec<EventRow>,
    /// Every event name seen, with its count.
    pub counts: std::collections::BTreeMap<String, u64>,
}

impl EventCollector {
    /// Collects the named events (all when `None`).
    pub fn new(names: Option<Vec<String>>) -> Self {
        EventCollector {
            names,
            ..Default::default()
        }
    }

    fn player_columns(&self, state: &DemoState, ev: &GameEvent, out: &mut Vec<(String, Cell)>) {
        for (key, prefix) in PLAYER_KEYS {
            let Some(v) = ev.get(key).and_then(EventValue::as_i64) else {
                continue;
            };
            // The player in that slot, from the `userinfo` string table
            // (the same name and steam id the controller entity carries), so
            // events need no entity decoding.
            let player = state.players.get(&((v & 0xFF) as usize));
            // Bots (steam id 0) are not players to demoparser2: null columns.
            let steamid = player.map(|p| p.steamid).filter(|&s| s != 0);
            let name = player.filter(|_| steamid.is_some()).map(|p| p.name.clone());
            out.push((
                format!("{prefix}_name"),
                name.map(Cell::Str).unwrap_or(Cell::Null),
            ));
            out.push((
                format!("{prefix}_steamid"),
                steamid
                    .map(|s| Cell::Str(s.to_string()))
                    .unwrap_or(Cell::Null),
            ));
        }
    }
}

impl Visitor for EventCollector {
    fn interests(&self) -> Interests {
        Interests {
            game_events: true,
            ..Interests::NONE
        }
    }

    fn on_game_event(&mut self, state: &DemoState, ev: &GameEvent) {
        *self.counts.entry(ev.name.clone()).or_default() += 1;
        if let Some(names) = &self.names {
            if !names.contains(&ev.name) {
                return;
            }
        }
        let mut cols: Vec<(String, Cell)> = ev
            .keys
            .iter()
            .map(|(k, _, v)| (k.clone(), Cell::from_event(v)))
            .collect();
        self.player_columns(state, ev, &mut cols);
        self.events.push((ev.name.clone(), ev.tick, cols));
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
    fn velocity_is_the_position_change_times_the_tick_rate() {
        let prev = Some([100.0, 200.0, 0.0]);
        let cur = Some([103.0, 196.0, 0.5]);
        assert_eq!(velocity_cell(cur, prev, Some(0), 64.0), Cell::Float(192.0));
        assert_eq!(velocity_cell(cur, prev, Some(1), 64.0), Cell::Float(-256.0));
        assert_eq!(velocity_cell(cur, prev, Some(2), 64.0), Cell::Float(32.0));
        // Horizontal speed: the length of (192, -256).
        assert_eq!(velocity_cell(cur, prev, None, 64.0), Cell::Float(320.0));
        // A player's first row, or a row without a position: null.
        assert_eq!(velocity_cell(cur, None, None, 64.0), Cell::Null);
        assert_eq!(velocity_cell(None, prev, Some(0), 64.0), Cell::Null);
        assert_eq!(velocity_cell(cur, prev, Some(3), 64.0), Cell::Null);
    }

    #[test]
    fn friendly_names_resolve_to_their_sources() {
        assert_eq!(prop_source("FORWARD"), PropSource::Button(1 << 3));
        assert_eq!(prop_source("INSPECT"), PropSource::Button(1 << 35));
        assert_eq!(prop_source("velocity"), PropSource::Velocity(None));
        assert_eq!(prop_source("velocity_Z"), PropSource::Velocity(Some(2)));
        assert_eq!(
            prop_source("active_weapon_name"),
            PropSource::Computed(Computed::WeaponName)
        );
        assert_eq!(
            prop_source("active_weapon_ammo"),
            PropSource::Raw(Owner::ActiveWeapon, "m_iClip1".into())
        );
        assert_eq!(
            prop_source("max_speed"),
            PropSource::Raw(
                Owner::Pawn,
                "CCSPlayer_MovementServices.m_flMaxspeed".into()
            )
        );
        assert_eq!(
            prop_source("music_kit_id"),
            PropSource::Raw(
                Owner::Controller,
                "CCSPlayerController_InventoryServices.m_unMusicID".into()
            )
        );
        // Every friendly name's spec parses to what its prefix says.
        for (name, spec) in FRIENDLY_PROPS {
            let want = match spec.split_once(':').map(|(k, _)| k) {
                Some("weapon") => {
                    matches!(prop_source(name), PropSource::Raw(Owner::ActiveWeapon, _))
                }
                Some("controller") => matches!(
                    prop_source(name),
                    PropSource::Raw(Owner::Controller, _)
                        | PropSource::Element(Owner::Controller, ..)
                ),
                Some("button") => matches!(prop_source(name), PropSource::Button(_)),
                Some("computed") => matches!(prop_source(name), PropSource::Computed(_)),
                Some("velocity") => matches!(prop_source(name), PropSource::Velocity(_)),
                _ => true,
            };
            assert!(want, "{name}: {spec}");
        }
        // Names are unique.
        let mut names: Vec<&str> = FRIENDLY_PROPS.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
    }

    #[test]
    fn team_and_game_wide_names_are_told_apart_from_player_props() {
        assert_eq!(
            player_source("team_name"),
            PlayerSource::Team("m_szTeamname".into())
        );
        assert_eq!(
            player_source("total_rounds_played"),
            PlayerSource::World(OtherSource::Rules(
                "m_pGameRules.m_totalRoundsPlayed".into()
            ))
        );
        assert_eq!(
            player_source("game_time"),
            PlayerSource::World(OtherSource::GameTime)
        );
        assert_eq!(
            player_source("health"),
            PlayerSource::Entity(PropSource::Raw(Owner::Pawn, "m_iHealth".into()))
        );
    }
}
