//! Player props by name: demoparser2's friendly names ([`FRIENDLY_PROPS`])
//! and raw dotted paths, resolved to a [`PropSource`] that says which entity
//! of the player holds the value (pawn, controller, the weapon the pawn
//! holds) or how it is computed (a button bit of `m_nButtonDownMaskPrev`,
//! the active weapon's name, the inventory, a velocity from the previous
//! row). [`read_player_prop`] reads one by name; the [`super::TickCollector`]
//! interns the names once.

use super::{coord_from_cell_in, Cell, PlayerRef, PropCache, PropId};
use super::{CELL_PROPS, OFFSET_PROPS};
use crate::entity::{Entity, EntityList};
use crate::fieldpath::FieldPath;
use crate::parser::DemoState;
use crate::value::Value;

/// The prefix of a raw prop of the active weapon (`Weapon.m_iClip1`).
pub const WEAPON_PREFIX: &str = "Weapon.";
/// The prefix demoparser2 gives the props of grenade classes; read like
/// [`WEAPON_PREFIX`], from the active weapon.
pub const GRENADE_PREFIX: &str = "Grenade.";

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
    /// [`Computed::Inventory`] as item definition indices.
    InventoryIds,
    /// [`Computed::Inventory`] as a mask: bit `i` set for item definition
    /// index `i` (items below 64: weapons, grenades, equipment; knives,
    /// indices 500 and up, have no bit).
    InventoryBitmask,
    /// The steam ids of the players whose slot bits are set in the pawn's
    /// `m_bSpottedByMask` (bit `i` of element `i / 32`: the controller in
    /// slot `i`; 0 for a bot), in slot order.
    SpottedBy,
    /// The model name of the controller's agent,
    /// `m_nPawnCharacterDefIndex` by [`AGENT_NAMES`].
    AgentSkin,
    /// A field of the current round's entry in the controller's per-round
    /// stats (`m_pActionTrackingServices.m_perRoundStats`, one
    /// `CSPerRoundStats_t` per round, entry `i` for round `i + 1`): the
    /// entry at the game rules' `m_totalRoundsPlayed`, field
    /// [`ROUND_STAT_FIELDS`]`[k]`. Null when the vector has no such entry.
    RoundStat(u8),
}

/// The `CSPerRoundStats_t` fields [`Computed::RoundStat`] reads (the
/// friendly names are demoparser2's `*_this_round`, in [`FRIENDLY_PROPS`]).
pub const ROUND_STAT_FIELDS: &[&str] = &[
    "m_iKills",
    "m_iDeaths",
    "m_iAssists",
    "m_iLiveTime",
    "m_iHeadShotKills",
    "m_iDamage",
    "m_iObjective",
    "m_iUtilityDamage",
    "m_iEnemiesFlashed",
    "m_iEquipmentValue",
    "m_iMoneySaved",
    "m_iKillReward",
    "m_iCashEarned",
];

/// The controller's vector of per-round stats.
const ROUND_STATS_PROP: &str = "m_pActionTrackingServices.m_perRoundStats";
/// The rounds played so far, on the `CCSGameRulesProxy` entity.
const ROUNDS_PLAYED_PROP: &str = "m_pGameRules.m_totalRoundsPlayed";

/// A value of the player's latest user command
/// ([`crate::DemoState::user_command_of`], demoparser2's `usercmd_*` props).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserCommandField {
    /// View angle 0 (pitch), 1 (yaw) or 2 (roll).
    ViewAngle(usize),
    /// Button-state word 1, 2 or 3 (held, pressed, released).
    ButtonState(usize),
    /// Forward move.
    ForwardMove,
    /// Left move.
    LeftMove,
    /// Impulse.
    Impulse,
    /// Mouse x delta.
    MouseDx,
    /// Mouse y delta.
    MouseDy,
    /// Weapon selected.
    WeaponSelect,
    /// Viewmodel in the left hand.
    LeftHandDesired,
    /// Server angle changes consumed.
    ConsumedServerAngleChanges,
    /// The sub-tick input history as JSON
    /// ([`crate::UserCommand::input_history_json`]).
    InputHistory,
}

impl UserCommandField {
    /// This field of a command.
    pub fn cell(self, cmd: &crate::UserCommand) -> Cell {
        use UserCommandField::*;
        match self {
            ViewAngle(i) => cmd
                .view_angles
                .and_then(|a| a.get(i).copied())
                .map(Cell::Float)
                .unwrap_or(Cell::Null),
            ButtonState(i) => cmd
                .buttons
                .and_then(|b| i.checked_sub(1).and_then(|i| b.get(i).copied()))
                .map(Cell::UInt)
                .unwrap_or(Cell::Null),
            ForwardMove => Cell::Float(cmd.forward_move),
            LeftMove => Cell::Float(cmd.left_move),
            Impulse => Cell::Int(i64::from(cmd.impulse)),
            MouseDx => Cell::Int(i64::from(cmd.mouse_dx)),
            MouseDy => Cell::Int(i64::from(cmd.mouse_dy)),
            WeaponSelect => Cell::Int(i64::from(cmd.weapon_select)),
            LeftHandDesired => Cell::Bool(cmd.left_hand_desired),
            ConsumedServerAngleChanges => Cell::Int(i64::from(cmd.consumed_server_angle_changes)),
            InputHistory => Cell::Str(cmd.input_history_json()),
        }
    }
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
    /// previous row: collectors that keep one ([`super::TickCollector`]) fill it,
    /// [`read_player_prop`] gives null.
    Velocity(Option<usize>),
    /// A value of the player's latest user command (the parse needs
    /// [`crate::Interests::user_commands`]).
    UserCommand(UserCommandField),
}

impl PropSource {
    /// Whether reading it needs the user commands decoded.
    pub fn needs_user_commands(&self) -> bool {
        matches!(self, PropSource::UserCommand(_))
    }

    /// Whether reading it follows no handle to another entity: it reads
    /// the player's controller and pawn only (not the active weapon, not
    /// the inventory); see [`super::is_player_row_class`].
    pub fn reads_player_classes_only(&self) -> bool {
        match self {
            PropSource::Raw(owner, _) | PropSource::Element(owner, _, _) => {
                !matches!(owner, Owner::ActiveWeapon)
            }
            PropSource::Computed(c) => !matches!(
                c,
                Computed::WeaponName
                    | Computed::WeaponOriginalOwner
                    | Computed::Inventory
                    | Computed::InventoryIds
                    | Computed::InventoryBitmask
            ),
            PropSource::Position(_)
            | PropSource::IsAlive
            | PropSource::Button(_)
            | PropSource::Velocity(_)
            | PropSource::UserCommand(_) => true,
        }
    }
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
    ("kills_this_round", "computed:round:m_iKills"),
    ("deaths_this_round", "computed:round:m_iDeaths"),
    ("assists_this_round", "computed:round:m_iAssists"),
    ("alive_time_this_round", "computed:round:m_iLiveTime"),
    (
        "headshot_kills_this_round",
        "computed:round:m_iHeadShotKills",
    ),
    ("damage_this_round", "computed:round:m_iDamage"),
    ("objective_this_round", "computed:round:m_iObjective"),
    (
        "utility_damage_this_round",
        "computed:round:m_iUtilityDamage",
    ),
    (
        "enemies_flashed_this_round",
        "computed:round:m_iEnemiesFlashed",
    ),
    (
        "equipment_value_this_round",
        "computed:round:m_iEquipmentValue",
    ),
    ("money_saved_this_round", "computed:round:m_iMoneySaved"),
    ("kill_reward_this_round", "computed:round:m_iKillReward"),
    ("cash_earned_this_round", "computed:round:m_iCashEarned"),
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
    ("inventory_as_ids", "computed:inventory_as_ids"),
    ("inventory_as_bitmask", "computed:inventory_as_bitmask"),
    ("approximate_spotted_by", "computed:spotted_by"),
    ("agent_skin", "computed:agent_skin"),
    ("velocity", "velocity:speed"),
    ("velocity_X", "velocity:0"),
    ("velocity_Y", "velocity:1"),
    ("velocity_Z", "velocity:2"),
    // The latest user command.
    ("usercmd_viewangle_x", "usercmd:viewangle_x"),
    ("usercmd_viewangle_y", "usercmd:viewangle_y"),
    ("usercmd_viewangle_z", "usercmd:viewangle_z"),
    ("usercmd_buttonstate_1", "usercmd:buttonstate_1"),
    ("usercmd_buttonstate_2", "usercmd:buttonstate_2"),
    ("usercmd_buttonstate_3", "usercmd:buttonstate_3"),
    ("usercmd_forward_move", "usercmd:forward_move"),
    ("usercmd_left_move", "usercmd:left_move"),
    ("usercmd_impulse", "usercmd:impulse"),
    ("usercmd_mouse_dx", "usercmd:mouse_dx"),
    ("usercmd_mouse_dy", "usercmd:mouse_dy"),
    ("usercmd_weapon_select", "usercmd:weapon_select"),
    ("usercmd_left_hand_desired", "usercmd:left_hand_desired"),
    (
        "usercmd_consumed_server_angle_changes",
        "usercmd:consumed_server_angle_changes",
    ),
    ("usercmd_input_history", "usercmd:input_history"),
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

/// The weapon a pawn holds (its `m_pWeaponServices.m_hActiveWeapon`).
pub fn active_weapon<'s>(
    state: &'s DemoState,
    cache: &mut PropCache,
    pawn: &Entity,
) -> Option<&'s Entity> {
    cache
        .value(state, pawn, ACTIVE_WEAPON_PROP)
        .and_then(Value::as_u64)
        .and_then(|h| entity_of_handle(&state.entities, h))
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

/// Item definition index of the flashbang, whose count the inventory shows.
const FLASHBANG_ITEM: u64 = 43;
/// Item definition index of the C4.
const C4_ITEM: u64 = 49;
/// The `m_iAmmo` slot of flashbangs.
const FLASHBANG_AMMO_SLOT: &str = "m_pWeaponServices.m_iAmmo.14";

/// See [`Computed::Inventory`]: the item definition indices (of items
/// with a known name).
fn inventory(state: &DemoState, cache: &mut PropCache, pawn: &Entity) -> Vec<u64> {
    let alive = cache
        .value(state, pawn, "m_lifeState")
        .and_then(Value::as_i64)
        == Some(0);
    // The vector's path, resolved once per serializer; its elements are
    // that path plus an index.
    let list_id = cache.id("m_pWeaponServices.m_hMyWeapons");
    let Some(list) = cache.path(state, pawn, list_id).filter(|_| alive) else {
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
        if item_name(index).is_none() {
            continue;
        }
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
            names.push(index);
        }
        names.push(index);
    }
    names
}

/// The two words of a pawn's `m_bSpottedByMask` (slots 0-31, 32-63).
const SPOTTED_BY_MASK: [&str; 2] = ["m_bSpottedByMask.0", "m_bSpottedByMask.1"];

/// See [`Computed::SpottedBy`].
fn spotted_by(state: &DemoState, cache: &mut PropCache, pawn: &Entity) -> Vec<u64> {
    let mut out = Vec::new();
    for (word, name) in (0u32..).zip(SPOTTED_BY_MASK) {
        let Some(mask) = cache.value(state, pawn, name).and_then(Value::as_u64) else {
            continue;
        };
        for bit in 0..32 {
            if mask & (1 << bit) == 0 {
                continue;
            }
            let controller = state.entities.get((word * 32 + bit + 1) as i32);
            if let Some(c) = controller {
                let steamid = cache
                    .value(state, c, "m_steamID")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                out.push(steamid);
            }
        }
    }
    out
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
    let weapon = |cache: &mut PropCache| pawn.and_then(|p| active_weapon(state, cache, p));
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
        Computed::Inventory => pawn.map(|p| {
            let names = inventory(state, cache, p).into_iter().filter_map(item_name);
            Cell::Strs(names.map(str::to_string).collect())
        }),
        Computed::InventoryIds => pawn.map(|p| Cell::UInts(inventory(state, cache, p))),
        Computed::InventoryBitmask => pawn.map(|p| {
            let items = inventory(state, cache, p).into_iter();
            Cell::UInt(items.filter(|&i| i < 64).fold(0, |mask, i| mask | (1 << i)))
        }),
        Computed::SpottedBy => pawn.map(|p| Cell::UInts(spotted_by(state, cache, p))),
        Computed::AgentSkin => controller
            .and_then(|c| cache.value(state, c, "m_nPawnCharacterDefIndex"))
            .and_then(Value::as_u64)
            .and_then(agent_name)
            .map(|n| Cell::Str(n.to_string())),
        Computed::RoundStat(k) => controller.and_then(|c| {
            let field = ROUND_STAT_FIELDS.get(usize::from(k))?;
            let rules = cache.rules_entity(state)?;
            let round = cache
                .value(state, rules, ROUNDS_PLAYED_PROP)
                .and_then(Value::as_u64)?;
            let name = format!("{ROUND_STATS_PROP}.{round:04}.{field}");
            cache.value(state, c, &name).map(Cell::from_value)
        }),
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
/// per-tick [`super::TickCollector`] interns its names instead). A raw pawn prop
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
    read_with_ids(state, cache, pawn, controller, ids)
}

/// Resolves a friendly or raw prop name. Raw names are looked up on the
/// pawn first, then on the controller; a class prefix picks one
/// ([`PLAYER_CLASS_PREFIXES`]: `CCSPlayerPawn.`, `CCSPlayerController.`,
/// Deadlock's and Dota 2's), and a `Weapon.` or `Grenade.`
/// prefix (demoparser2's spelling, as its `list_updated_fields` gives the
/// props of weapon and grenade classes) reads the active weapon.
pub fn prop_source(name: &str) -> PropSource {
    if let Some((_, spec)) = FRIENDLY_PROPS.iter().find(|(n, _)| *n == name) {
        return parse_spec(spec);
    }
    if let Some(rest) = name
        .strip_prefix(WEAPON_PREFIX)
        .or_else(|| name.strip_prefix(GRENADE_PREFIX))
    {
        return PropSource::Raw(Owner::ActiveWeapon, rest.to_string());
    }
    for (class, owner) in PLAYER_CLASS_PREFIXES {
        if let Some(rest) = name.strip_prefix(class) {
            return PropSource::Raw(owner, rest.to_string());
        }
    }
    PropSource::Raw(Owner::Pawn, name.to_string())
}

/// Class prefixes of raw prop names that pick the entity: CS2's pawn and
/// controller, Deadlock's, Dota 2's controller (its heroes have a class
/// each: their props go unprefixed, looked up on the hero first).
pub const PLAYER_CLASS_PREFIXES: [(&str, Owner); 5] = [
    ("CCSPlayerPawn.", Owner::Pawn),
    ("CCSPlayerController.", Owner::Controller),
    ("CCitadelPlayerPawn.", Owner::Pawn),
    ("CCitadelPlayerController.", Owner::Controller),
    ("CDOTAPlayerController.", Owner::Controller),
];

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
    if let Some(name) = spec.strip_prefix("usercmd:") {
        use UserCommandField::*;
        return PropSource::UserCommand(match name {
            "viewangle_x" => ViewAngle(0),
            "viewangle_y" => ViewAngle(1),
            "viewangle_z" => ViewAngle(2),
            "buttonstate_1" => ButtonState(1),
            "buttonstate_2" => ButtonState(2),
            "buttonstate_3" => ButtonState(3),
            "forward_move" => ForwardMove,
            "left_move" => LeftMove,
            "impulse" => Impulse,
            "mouse_dx" => MouseDx,
            "mouse_dy" => MouseDy,
            "weapon_select" => WeaponSelect,
            "left_hand_desired" => LeftHandDesired,
            "consumed_server_angle_changes" => ConsumedServerAngleChanges,
            _ => InputHistory,
        });
    }
    if let Some(field) = spec.strip_prefix("computed:round:") {
        let k = ROUND_STAT_FIELDS.iter().position(|f| *f == field);
        return PropSource::Computed(Computed::RoundStat(k.unwrap_or(0) as u8));
    }
    if let Some(name) = spec.strip_prefix("computed:") {
        return PropSource::Computed(match name {
            "airborne" => Computed::Airborne,
            "entity_id" => Computed::EntityId,
            "user_id" => Computed::UserId,
            "weapon_name" => Computed::WeaponName,
            "weapon_original_owner" => Computed::WeaponOriginalOwner,
            "inventory" => Computed::Inventory,
            "inventory_as_ids" => Computed::InventoryIds,
            "inventory_as_bitmask" => Computed::InventoryBitmask,
            "spotted_by" => Computed::SpottedBy,
            "agent_skin" => Computed::AgentSkin,
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

/// A [`PropSource`] with its prop names interned.
#[derive(Debug, Clone, Copy)]
pub(super) enum SourceIds {
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
    UserCommand(UserCommandField),
    /// A prop of the player's team entity: index into the collector's team
    /// paths.
    Team(usize),
    /// A game-wide prop: index into the collector's game-wide sources.
    World(usize),
    Missing,
}

impl SourceIds {
    pub(super) fn new(source: &PropSource, cache: &mut PropCache) -> SourceIds {
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
            PropSource::UserCommand(f) => SourceIds::UserCommand(*f),
        }
    }
}

pub(super) fn read_prop(
    state: &DemoState,
    cache: &mut PropCache,
    player: &PlayerRef,
    source: SourceIds,
) -> Cell {
    let pawn = state.entities.get(player.pawn);
    let controller = state.entities.get(player.controller);
    read_with_ids(state, cache, pawn, controller, source)
}

fn read_with_ids(
    state: &DemoState,
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
                .and_then(|h| entity_of_handle(&state.entities, h));
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
        SourceIds::UserCommand(f) => pawn
            .and_then(|p| state.user_command_of(p))
            .map(|cmd| f.cell(cmd))
            .unwrap_or(Cell::Null),
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
                (Some(c), Some(o)) => Cell::Float(coord_from_cell_in(state.game, c, o)),
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

/// The world position of an entity from its body component's cells and
/// offsets ([`super::CELL_PROPS`], [`super::OFFSET_PROPS`]), in its game's
/// cells ([`super::coord_from_cell_in`]).
pub fn entity_position(state: &DemoState, cache: &mut PropCache, e: &Entity) -> Option<[f32; 3]> {
    let ids = position_ids(cache);
    position_with_ids(state, cache, e, &ids)
}

/// The interned cell and offset props of the three axes.
pub(super) fn position_ids(cache: &mut PropCache) -> [(PropId, PropId); 3] {
    [0, 1, 2].map(|axis| (cache.id(CELL_PROPS[axis]), cache.id(OFFSET_PROPS[axis])))
}

/// The world position of a pawn from interned cell and offset props.
pub(super) fn position_with_ids(
    state: &DemoState,
    cache: &mut PropCache,
    pawn: &Entity,
    ids: &[(PropId, PropId); 3],
) -> Option<[f32; 3]> {
    let mut out = [0.0f32; 3];
    for (&(cell, offset), slot) in ids.iter().zip(out.iter_mut()) {
        let c = cache.get(state, pawn, cell).and_then(Value::as_u64)?;
        let o = cache.get(state, pawn, offset).and_then(Value::as_f32)?;
        *slot = coord_from_cell_in(state.game, c, o);
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
