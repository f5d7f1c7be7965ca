//! Player prop names: demoparser2's friendly names ([`FRIENDLY_PROPS`],
//! from LaihoE/demoparser's README and `prop_controller.rs`) and raw dotted
//! paths, resolved to a [`PropSource`] that says which entity of the player
//! holds the value (pawn, controller, the weapon the pawn holds) or how it
//! is computed (a button bit of `m_nButtonDownMaskPrev`, the active weapon's
//! name, the inventory, a velocity from the previous row). Reading them is
//! the `player_props` module; game-wide and team props are `world`.

use crate::table::Cell;
use gamewire_source2::UserCommand;

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
    /// ([`item_name`](crate::item_names::item_name)).
    WeaponName,
    /// The active weapon's original owner, `m_OriginalOwnerXuidHigh << 32 |
    /// m_OriginalOwnerXuidLow`, as decimal text.
    WeaponOriginalOwner,
    /// The controller's `m_iCompTeammateColor` as a color name (`blue`,
    /// `green`, `yellow`, `orange`, `purple`; other values as decimal text).
    PlayerColor,
    /// The names of the weapons and items a living player carries
    /// (`m_pWeaponServices.m_hMyWeapons`, each entity once, by
    /// [`item_name`](crate::item_names::item_name)); a flashbang twice when the pawn holds two
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
    /// `m_nPawnCharacterDefIndex` by [`AGENT_NAMES`](crate::item_names::AGENT_NAMES).
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
pub(crate) const ROUND_STATS_PROP: &str = "m_pActionTrackingServices.m_perRoundStats";
/// The rounds played so far, on the `CCSGameRulesProxy` entity.
pub(crate) const ROUNDS_PLAYED_PROP: &str = "m_pGameRules.m_totalRoundsPlayed";

/// A value of the player's latest user command
/// ([`gamewire_source2::DemoState::user_command_of`], demoparser2's `usercmd_*` props).
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
    /// ([`UserCommand::input_history_json`]).
    InputHistory,
}

impl UserCommandField {
    /// This field of a command.
    pub fn cell(self, cmd: &UserCommand) -> Cell {
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
    /// previous row: collectors that keep one (the `ticks` collector) fill it,
    /// `player_props::read_player_prop` gives null.
    Velocity(Option<usize>),
    /// A value of the player's latest user command (the parse needs
    /// [`gamewire_source2::Interests::user_commands`]).
    UserCommand(UserCommandField),
}

impl PropSource {
    /// Whether reading it needs the user commands decoded.
    pub fn needs_user_commands(&self) -> bool {
        matches!(self, PropSource::UserCommand(_))
    }

    /// Whether reading it follows no handle to another entity: it reads
    /// the player's controller and pawn only (not the active weapon, not
    /// the inventory); see `classes::is_player_row_class`.
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

/// Resolves a friendly or raw prop name. Raw names are looked up on the
/// pawn first, then on the controller; a class prefix picks one
/// ([`PLAYER_CLASS_PREFIXES`]: `CCSPlayerPawn.`, `CCSPlayerController.`,
/// Deadlock's and Dota 2's), and a `Weapon.` or `Grenade.`
/// prefix (demoparser2's spelling, as its `list_updated_fields` gives the
/// props of weapon and grenade classes) reads the active weapon. Dota 2's
/// hero classes are prefixes too (`CDOTA_Unit_Hero_Axe.m_iHealth`).
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
    // Dota 2's heroes: `CDOTA_BaseNPC_Hero.<path>` or
    // `CDOTA_Unit_Hero_<name>.<path>`, read on the player's hero.
    if let Some((class, rest)) = name.split_once('.') {
        if class == "CDOTA_BaseNPC_Hero" || class.starts_with("CDOTA_Unit_Hero_") {
            return PropSource::Raw(Owner::Pawn, rest.to_string());
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

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
        // demoparser2's spelling of weapon and grenade props: the active
        // weapon's raw prop.
        assert_eq!(
            prop_source("Weapon.m_iClip1"),
            PropSource::Raw(Owner::ActiveWeapon, "m_iClip1".into())
        );
        assert_eq!(
            prop_source("Grenade.CBodyComponentBaseAnimGraph.m_vecZ"),
            PropSource::Raw(
                Owner::ActiveWeapon,
                "CBodyComponentBaseAnimGraph.m_vecZ".into()
            )
        );
        // The per-round stats, each its own field.
        assert_eq!(
            prop_source("kills_this_round"),
            PropSource::Computed(Computed::RoundStat(0))
        );
        assert_eq!(
            prop_source("cash_earned_this_round"),
            PropSource::Computed(Computed::RoundStat((ROUND_STAT_FIELDS.len() - 1) as u8))
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
}
