//! The fields of the built-in schema's serializers: runs of fields in the
//! order CS2 lists them, named and typed as CS2 build 10772 declares them
//! (see `docs/formats/synth-schema.md`). A class's serializer is one or
//! more runs: the weapons share `WEAPON_BASE` and `WEAPON_TAIL` around the
//! fields of their family, the projectiles share `PROJECTILE`.

use super::{f, FieldDef};

pub(super) const BODY_ANIMGRAPH_0: &[FieldDef] = &[
    f("m_cellX", "uint16")
        .var_ser("cellx")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_cellY", "uint16")
        .var_ser("celly")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_cellZ", "uint16")
        .var_ser("cellz")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_vecX", "CNetworkedQuantizedFloat")
        .bits(15)
        .high(1024.0)
        .flags(1)
        .var_ser("posx")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_vecY", "CNetworkedQuantizedFloat")
        .bits(15)
        .high(1024.0)
        .flags(1)
        .var_ser("posy")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_vecZ", "CNetworkedQuantizedFloat")
        .bits(15)
        .high(1024.0)
        .flags(1)
        .var_ser("posz")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_hParent", "CGameSceneNodeHandle")
        .var_ser("gameSceneNode")
        .node("m_skeletonInstance"),
    f("m_angRotation", "QAngle")
        .enc("qangle_precise")
        .bits(0)
        .var_ser("gameSceneNodeStepSimulationAnglesSerializer")
        .node("m_skeletonInstance"),
];

pub(super) const BODY_ANIMGRAPH_1: &[FieldDef] = &[
    f("m_cellX", "uint16")
        .var_ser("cellx")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_cellY", "uint16")
        .var_ser("celly")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_cellZ", "uint16")
        .var_ser("cellz")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_vecX", "CNetworkedQuantizedFloat")
        .bits(15)
        .high(1024.0)
        .flags(1)
        .var_ser("posx")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_vecY", "CNetworkedQuantizedFloat")
        .bits(15)
        .high(1024.0)
        .flags(1)
        .var_ser("posy")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_vecZ", "CNetworkedQuantizedFloat")
        .bits(15)
        .high(1024.0)
        .flags(1)
        .var_ser("posz")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_hParent", "CGameSceneNodeHandle")
        .var_ser("gameSceneNode")
        .node("m_skeletonInstance"),
    f("m_angRotation", "QAngle")
        .enc("qangle_precise")
        .bits(0)
        .var_ser("gameSceneNodeStepSimulationAnglesSerializer")
        .node("m_skeletonInstance"),
];

pub(super) const BODY_ANIMGRAPH_3: &[FieldDef] = &[
    f("m_cellX", "uint16")
        .var_ser("cellx")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_cellY", "uint16")
        .var_ser("celly")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_cellZ", "uint16")
        .var_ser("cellz")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_vecX", "CNetworkedQuantizedFloat")
        .bits(32)
        .var_ser("posx")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_vecY", "CNetworkedQuantizedFloat")
        .bits(32)
        .var_ser("posy")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_vecZ", "CNetworkedQuantizedFloat")
        .bits(32)
        .var_ser("posz")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_hParent", "CGameSceneNodeHandle")
        .var_ser("gameSceneNode")
        .node("m_skeletonInstance"),
    f("m_angRotation", "QAngle")
        .enc("qangle_precise")
        .bits(0)
        .var_ser("gameSceneNodeStepSimulationAnglesSerializer")
        .node("m_skeletonInstance"),
];

pub(super) const BODY_MODEL_ENTITY_0: &[FieldDef] = &[
    f("m_cellX", "uint16")
        .var_ser("cellx")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_cellY", "uint16")
        .var_ser("celly")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_cellZ", "uint16")
        .var_ser("cellz")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_vecX", "CNetworkedQuantizedFloat")
        .bits(15)
        .high(1024.0)
        .flags(1)
        .var_ser("posx")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_vecY", "CNetworkedQuantizedFloat")
        .bits(15)
        .high(1024.0)
        .flags(1)
        .var_ser("posy")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_vecZ", "CNetworkedQuantizedFloat")
        .bits(15)
        .high(1024.0)
        .flags(1)
        .var_ser("posz")
        .node("m_skeletonInstance.m_vecOrigin"),
    f("m_hParent", "CGameSceneNodeHandle")
        .var_ser("gameSceneNode")
        .node("m_skeletonInstance"),
    f("m_angRotation", "QAngle")
        .enc("qangle_precise")
        .bits(0)
        .var_ser("gameSceneNodeStepSimulationAnglesSerializer")
        .node("m_skeletonInstance"),
];

pub(super) const CONTROLLER: &[FieldDef] = &[
    f("m_iTeamNum", "uint8"),
    f("m_hPawn", "CHandle< CBasePlayerPawn >").var_ser("ehandle"),
    f("m_iConnected", "PlayerConnectedState"),
    f("m_iszPlayerName", "char[128]"),
    f("m_steamID", "uint64").enc("fixed64"),
    f("m_iDesiredFOV", "uint32"),
    f(
        "m_pInGameMoneyServices",
        "CCSPlayerController_InGameMoneyServices*",
    )
    .table("CCSPlayerController_InGameMoneyServices", 0),
    f(
        "m_pInventoryServices",
        "CCSPlayerController_InventoryServices*",
    )
    .table("CCSPlayerController_InventoryServices", 0),
    f(
        "m_pActionTrackingServices",
        "CCSPlayerController_ActionTrackingServices*",
    )
    .table("CCSPlayerController_ActionTrackingServices", 0),
    f("m_iPing", "uint32"),
    f("m_bHasCommunicationAbuseMute", "bool"),
    f("m_szCrosshairCodes", "CUtlSymbolLarge"),
    f("m_iPendingTeamNum", "uint8"),
    f("m_iCompTeammateColor", "int32"),
    f("m_bEverPlayedOnTeam", "bool"),
    f("m_szClan", "CUtlSymbolLarge"),
    f("m_iCoachingTeam", "int32"),
    f("m_iCompetitiveRanking", "int32"),
    f("m_iCompetitiveWins", "int32"),
    f("m_iCompetitiveRankType", "int8"),
    f("m_iCompetitiveRankingPredicted_Win", "int32"),
    f("m_iCompetitiveRankingPredicted_Loss", "int32"),
    f("m_iCompetitiveRankingPredicted_Tie", "int32"),
    f("m_bControllingBot", "bool"),
    f("m_bHasControlledBotThisRound", "bool"),
    f("m_hPlayerPawn", "CHandle< CCSPlayerPawn >").var_ser("ehandle"),
    f("m_hObserverPawn", "CHandle< CCSObserverPawn >").var_ser("ehandle"),
    f("m_bPawnIsAlive", "bool"),
    f("m_nPawnCharacterDefIndex", "uint16"),
    f("m_iPawnLifetimeStart", "int32"),
    f("m_iPawnLifetimeEnd", "int32"),
    f(
        "m_hOriginalControllerOfCurrentPawn",
        "CHandle< CCSPlayerController >",
    )
    .var_ser("ehandle"),
    f("m_iScore", "int32"),
    f("m_iMVPs", "int32"),
    f("m_nDisconnectionTick", "int32"),
    f("m_bCanControlObservedBot", "bool"),
    f("m_iPawnHealth", "uint32"),
    f("m_iPawnArmor", "int32"),
    f("m_bPawnHasDefuser", "bool"),
    f("m_bPawnHasHelmet", "bool"),
];

pub(super) const MONEY_SERVICES: &[FieldDef] = &[
    f("m_iAccount", "int32"),
    f("m_iStartAccount", "int32"),
    f("m_iTotalCashSpent", "int32"),
    f("m_iCashSpentThisRound", "int32"),
];

pub(super) const INVENTORY_SERVICES: &[FieldDef] = &[
    f("m_unMusicID", "uint16"),
    f("m_rank", "MedalRank_t[6]"),
    f("m_nPersonaDataPublicLevel", "int32"),
    f("m_nPersonaDataPublicCommendsLeader", "int32"),
    f("m_nPersonaDataPublicCommendsTeacher", "int32"),
    f("m_nPersonaDataPublicCommendsFriendly", "int32"),
];

pub(super) const ACTION_TRACKING_SERVICES: &[FieldDef] = &[
    f(
        "m_perRoundStats",
        "CUtlVectorEmbeddedNetworkVar< CSPerRoundStats_t >",
    )
    .table("CSPerRoundStats_t", 0),
    f("m_iKills", "int32").node("m_matchStats"),
    f("m_iDeaths", "int32").node("m_matchStats"),
    f("m_iAssists", "int32").node("m_matchStats"),
    f("m_iLiveTime", "int32").node("m_matchStats"),
    f("m_iHeadShotKills", "int32").node("m_matchStats"),
    f("m_iEnemy5Ks", "int32").node("m_matchStats"),
    f("m_iEnemy4Ks", "int32").node("m_matchStats"),
    f("m_iEnemy3Ks", "int32").node("m_matchStats"),
    f("m_iEnemyKnifeKills", "int32").node("m_matchStats"),
    f("m_iEnemyTaserKills", "int32").node("m_matchStats"),
    f("m_iDamage", "int32").node("m_matchStats"),
    f("m_iObjective", "int32").node("m_matchStats"),
    f("m_iUtilityDamage", "int32").node("m_matchStats"),
    f("m_iEnemiesFlashed", "int32").node("m_matchStats"),
    f("m_iEquipmentValue", "int32").node("m_matchStats"),
    f("m_iMoneySaved", "int32").node("m_matchStats"),
    f("m_iKillReward", "int32").node("m_matchStats"),
    f("m_iCashEarned", "int32").node("m_matchStats"),
];

pub(super) const PER_ROUND_STATS: &[FieldDef] = &[
    f("m_iKills", "int32"),
    f("m_iDeaths", "int32"),
    f("m_iAssists", "int32"),
    f("m_iLiveTime", "int32"),
    f("m_iHeadShotKills", "int32"),
    f("m_iDamage", "int32"),
    f("m_iObjective", "int32"),
    f("m_iUtilityDamage", "int32"),
    f("m_iEnemiesFlashed", "int32"),
    f("m_iEquipmentValue", "int32"),
    f("m_iMoneySaved", "int32"),
    f("m_iKillReward", "int32"),
    f("m_iCashEarned", "int32"),
];

pub(super) const PAWN: &[FieldDef] = &[
    f("m_hOwnerEntity", "CHandle< CBaseEntity >").var_ser("ehandle"),
    f("m_angEyeAngles", "QAngle").enc("qangle_precise").bits(0),
    f("m_iHealth", "int32").var_ser("ClampHealth"),
    f("m_lifeState", "uint8"),
    f("m_fFlags", "uint32"),
    f("m_hGroundEntity", "CHandle< CBaseEntity >").var_ser("ehandle"),
    f("CBodyComponent", "CBodyComponent").table("CBodyComponentBaseAnimGraph", 3),
    f("m_iMaxHealth", "int32"),
    f("m_MoveCollide", "MoveCollide_t"),
    f("m_MoveType", "MoveType_t"),
    f("m_flCreateTime", "GameTime_t").bits(32),
    f("m_iTeamNum", "uint8"),
    f("m_nOwnerId", "uint32").node("m_Collision.m_collisionAttribute"),
    f("m_pWeaponServices", "CPlayer_WeaponServices*").table("CCSPlayer_WeaponServices", 0),
    f("m_pItemServices", "CPlayer_ItemServices*").table("CCSPlayer_ItemServices", 0),
    f("m_pMovementServices", "CPlayer_MovementServices*").table("CCSPlayer_MovementServices", 0),
    f("m_flDeathTime", "GameTime_t").bits(32),
    f("m_hController", "CHandle< CBasePlayerController >").var_ser("ehandle"),
    f("m_flFlashDuration", "float32").bits(32),
    f("m_flFlashMaxAlpha", "float32").bits(32),
    f("m_hOriginalController", "CHandle< CCSPlayerController >").var_ser("ehandle"),
    f("m_szLastPlaceName", "char[18]"),
    f("m_bInBuyZone", "bool"),
    f("m_bInHostageRescueZone", "bool"),
    f("m_bInBombZone", "bool"),
    f("m_iItemDefinitionIndex", "uint16").node("m_EconGloves"),
    f("m_bIsWalking", "bool"),
    f("m_nLastKillerIndex", "CEntityIndex"),
    f("m_bSpotted", "bool").node("m_entitySpottedState"),
    f("m_bSpottedByMask", "uint32[2]").node("m_entitySpottedState"),
    f("m_bIsScoped", "bool"),
    f("m_bResumeZoom", "bool"),
    f("m_bIsDefusing", "bool"),
    f("m_iShotsFired", "int32"),
    f("m_flVelocityModifier", "float32").bits(32),
    f("m_bKilledByHeadshot", "bool"),
    f("m_ArmorValue", "int32"),
    f("m_unCurrentEquipmentValue", "uint16"),
    f("m_unRoundStartEquipmentValue", "uint16"),
    f("m_unFreezetimeEndEquipmentValue", "uint16"),
];

pub(super) const WEAPON_SERVICES: &[FieldDef] = &[
    f(
        "m_hMyWeapons",
        "CNetworkUtlVectorBase< CHandle< CBasePlayerWeapon > >",
    )
    .var_ser("ehandle"),
    f("m_hActiveWeapon", "CHandle< CBasePlayerWeapon >").var_ser("ehandle"),
    f("m_iAmmo", "uint16[32]"),
    f("m_hLastWeapon", "CHandle< CBasePlayerWeapon >").var_ser("ehandle"),
    f("m_flNextAttack", "GameTime_t").bits(32),
];

pub(super) const ITEM_SERVICES: &[FieldDef] =
    &[f("m_bHasDefuser", "bool"), f("m_bHasHelmet", "bool")];

pub(super) const MOVEMENT_SERVICES: &[FieldDef] = &[
    f("m_flMaxspeed", "float32").bits(12).high(2048.0).flags(1),
    f("m_flDuckAmount", "float32").bits(32),
    f("m_flDuckSpeed", "float32").bits(32),
    f("m_nButtonDownMaskPrev", "uint64"),
    f("m_flStamina", "float32").bits(32),
    f("m_bDucked", "bool"),
    f("m_bDucking", "bool"),
];

pub(super) const RULES_PROXY: &[FieldDef] =
    &[f("m_pGameRules", "CCSGameRules*").table("CCSGameRules", 0)];

pub(super) const RULES: &[FieldDef] = &[
    f("m_bGamePaused", "bool"),
    f("m_bFreezePeriod", "bool"),
    f("m_bWarmupPeriod", "bool"),
    f("m_fWarmupPeriodEnd", "GameTime_t").bits(32),
    f("m_fWarmupPeriodStart", "GameTime_t").bits(32),
    f("m_bTerroristTimeOutActive", "bool"),
    f("m_bCTTimeOutActive", "bool"),
    f("m_flTerroristTimeOutRemaining", "float32").bits(32),
    f("m_flCTTimeOutRemaining", "float32").bits(32),
    f("m_nTerroristTimeOuts", "int32"),
    f("m_nCTTimeOuts", "int32"),
    f("m_bTechnicalTimeOut", "bool"),
    f("m_bMatchWaitingForResume", "bool"),
    f("m_iRoundTime", "int32"),
    f("m_fMatchStartTime", "float32").bits(32),
    f("m_fRoundStartTime", "GameTime_t").bits(32),
    f("m_flRestartRoundTime", "GameTime_t").bits(32),
    f("m_bGameRestart", "bool"),
    f("m_flGameStartTime", "float32").bits(32),
    f("m_timeUntilNextPhaseStarts", "float32").bits(32),
    f("m_gamePhase", "int32"),
    f("m_totalRoundsPlayed", "int32"),
    f("m_nRoundsPlayedThisPhase", "int32"),
    f("m_nOvertimePlaying", "int32"),
    f("m_iHostagesRemaining", "int32"),
    f("m_bAnyHostageReached", "bool"),
    f("m_bMapHasBombTarget", "bool"),
    f("m_bMapHasRescueZone", "bool"),
    f("m_bMapHasBuyZone", "bool"),
    f("m_bIsQueuedMatchmaking", "bool"),
    f("m_nQueuedMatchmakingMode", "int32"),
    f("m_bIsValveDS", "bool"),
    f("m_iSpectatorSlotCount", "int32"),
    f("m_bHasMatchStarted", "bool"),
    f("m_bBombPlanted", "bool"),
    f("m_numBestOfMaps", "int32"),
    f("m_bBombDropped", "bool"),
    f("m_iRoundWinStatus", "int32"),
    f("m_eRoundWinReason", "int32"),
    f("m_bTCantBuy", "bool"),
    f("m_bCTCantBuy", "bool"),
    f("m_iNumConsecutiveCTLoses", "int32"),
    f("m_iNumConsecutiveTerroristLoses", "int32"),
    f("m_pGameModeRules", "CCSGameModeRules*")
        .table("CCSGameModeRules", 0)
        .poly(&[
            ("CCSGameModeRules_ArmsRace", 0),
            ("CCSGameModeRules_Deathmatch", 0),
            ("CCSGameModeRules_Noop", 0),
        ]),
    f("m_bRoundInProgress", "bool").node("m_RetakeRules"),
    f("m_iFirstSecondHalfRound", "int32").node("m_RetakeRules"),
    f("m_iBombSite", "int32").node("m_RetakeRules"),
    f("m_nMatchEndCount", "uint8"),
    f("m_iRoundEndWinnerTeam", "int32"),
    f("m_eRoundEndReason", "int32"),
    f("m_nRoundEndCount", "uint8"),
    f("m_iRoundStartRoundNumber", "int32"),
    f("m_nRoundStartCount", "uint8"),
];

pub(super) const GAME_MODE_RULES_ARMS_RACE: &[FieldDef] =
    &[f("m_WeaponSequence", "CNetworkUtlVectorBase< CUtlString >")];

pub(super) const GAME_MODE_RULES_DEATHMATCH: &[FieldDef] = &[
    f("m_flDMBonusStartTime", "GameTime_t").bits(32),
    f("m_flDMBonusTimeLength", "float32").bits(32),
    f("m_sDMBonusWeapon", "CUtlString"),
];

pub(super) const TEAM: &[FieldDef] = &[
    f("m_iTeamNum", "uint8"),
    f(
        "m_aPlayers",
        "CNetworkUtlVectorBase< CHandle< CBasePlayerController > >",
    )
    .var_ser("ehandle"),
    f(
        "m_aPawns",
        "CNetworkUtlVectorBase< CHandle< CBasePlayerPawn > >",
    )
    .var_ser("ehandle"),
    f("m_iScore", "int32"),
    f("m_szTeamname", "char[129]"),
    f("m_bSurrendered", "bool"),
    f("m_szTeamMatchStat", "char[512]"),
    f("m_numMapVictories", "int32"),
    f("m_scoreFirstHalf", "int32"),
    f("m_scoreSecondHalf", "int32"),
    f("m_scoreOvertime", "int32"),
    f("m_szClanTeamname", "char[129]"),
];

pub(super) const WEAPON_BASE: &[FieldDef] = &[
    f("m_hOwnerEntity", "CHandle< CBaseEntity >").var_ser("ehandle"),
    f("m_iClip1", "int32").var_ser("minusone"),
    f("CBodyComponent", "CBodyComponent").table("CBodyComponentBaseAnimGraph", 0),
    f("m_iTeamNum", "uint8"),
    f("m_nOwnerId", "uint32").node("m_Collision.m_collisionAttribute"),
    f("m_iItemDefinitionIndex", "uint16").node("m_AttributeManager.m_Item"),
    f("m_iEntityQuality", "int32").node("m_AttributeManager.m_Item"),
    f("m_iItemIDHigh", "uint32").node("m_AttributeManager.m_Item"),
    f("m_iItemIDLow", "uint32").node("m_AttributeManager.m_Item"),
    f("m_iAccountID", "uint32").node("m_AttributeManager.m_Item"),
    f("m_szCustomName", "char[161]").node("m_AttributeManager.m_Item"),
    f("m_OriginalOwnerXuidLow", "uint32"),
    f("m_OriginalOwnerXuidHigh", "uint32"),
    f("m_nFallbackPaintKit", "int32"),
    f("m_nFallbackSeed", "int32"),
    f("m_flFallbackWear", "float32").bits(32),
    f("m_nFallbackStatTrak", "int32"),
    f("m_bInReload", "bool"),
    f("m_bSilencerOn", "bool"),
    f("m_iOriginalTeamNumber", "int32"),
    f("m_iMostRecentTeamNumber", "int32"),
    f("m_hPrevOwner", "CHandle< CCSPlayerPawn >").var_ser("ehandle"),
    f("m_fLastShotTime", "GameTime_t").bits(32),
];

pub(super) const GUN: &[FieldDef] = &[
    f("m_zoomLevel", "int32"),
    f("m_iBurstShotsRemaining", "int32"),
];

pub(super) const C4: &[FieldDef] = &[
    f("m_bStartedArming", "bool"),
    f("m_fArmedTime", "GameTime_t").bits(32),
    f("m_bBombPlacedAnimation", "bool"),
    f("m_bIsPlantingViaUse", "bool"),
    f("m_bSpotted", "bool").node("m_entitySpottedState"),
    f("m_bSpottedByMask", "uint32[2]").node("m_entitySpottedState"),
];

pub(super) const GRENADE: &[FieldDef] = &[
    f("m_bRedraw", "bool"),
    f("m_bIsHeldByPlayer", "bool"),
    f("m_bPinPulled", "bool"),
    f("m_bJumpThrow", "bool"),
    f("m_bThrowAnimating", "bool"),
    f("m_fThrowTime", "GameTime_t").bits(32),
    f("m_flThrowStrength", "float32").bits(32),
    f("m_fDropTime", "GameTime_t").bits(32),
    f("m_fPinPullTime", "GameTime_t").bits(32),
];

pub(super) const WEAPON_TAIL: &[FieldDef] = &[
    f("m_nNextPrimaryAttackTick", "GameTick_t"),
    f("m_nNextSecondaryAttackTick", "GameTick_t"),
    f("m_iClip2", "int32").var_ser("minusone"),
    f("m_pReserveAmmo", "int32[2]"),
];

pub(super) const PROJECTILE: &[FieldDef] = &[
    f("m_hOwnerEntity", "CHandle< CBaseEntity >").var_ser("ehandle"),
    f("CBodyComponent", "CBodyComponent").table("CBodyComponentBaseAnimGraph", 1),
    f("m_iTeamNum", "uint8"),
    f("m_nOwnerId", "uint32").node("m_Collision.m_collisionAttribute"),
    f("m_bIsLive", "bool"),
    f("m_DmgRadius", "float32").bits(10).high(1024.0).flags(1),
    f("m_flDetonateTime", "GameTime_t").bits(32),
    f("m_flDamage", "float32").bits(10).high(256.0).flags(1),
    f("m_hThrower", "CHandle< CCSPlayerPawn >").var_ser("ehandle"),
    f("m_vInitialPosition", "Vector").bits(32),
    f("m_vInitialVelocity", "Vector").bits(32),
    f("m_nBounces", "int32"),
    f(
        "m_nExplodeEffectIndex",
        "CStrongHandle< InfoForResourceTypeIParticleSystemDefinition >",
    ),
    f("m_nExplodeEffectTickBegin", "int32"),
    f("m_vecExplodeEffectOrigin", "Vector").bits(32),
];

pub(super) const SMOKE_PROJECTILE: &[FieldDef] = &[
    f("m_nSmokeEffectTickBegin", "int32"),
    f("m_bDidSmokeEffect", "bool"),
    f("m_nRandomSeed", "int32"),
    f("m_vSmokeColor", "Vector").bits(32),
    f("m_vSmokeDetonationPos", "Vector").bits(32),
];

pub(super) const MOLOTOV_PROJECTILE: &[FieldDef] = &[f("m_bIsIncGrenade", "bool")];

pub(super) const DECOY_PROJECTILE: &[FieldDef] = &[f("m_nDecoyShotTick", "int32")];

pub(super) const INFERNO: &[FieldDef] = &[
    f("m_hOwnerEntity", "CHandle< CBaseEntity >").var_ser("ehandle"),
    f("CBodyComponent", "CBodyComponent").table("CBodyComponentBaseModelEntity", 0),
    f("m_iTeamNum", "uint8"),
    f("m_nOwnerId", "uint32").node("m_Collision.m_collisionAttribute"),
    f("m_firePositions", "Vector[64]").bits(32),
    f("m_fireParentPositions", "Vector[64]").bits(32),
    f("m_bFireIsBurning", "bool[64]"),
    f("m_BurnNormal", "Vector[64]").bits(32),
    f("m_fireCount", "int32"),
    f("m_nInfernoType", "int32"),
    f("m_nFireEffectTickBegin", "int32"),
    f("m_nFireLifetime", "float32").bits(32),
    f("m_bInPostEffectTime", "bool"),
];

pub(super) const PLANTED_C4: &[FieldDef] = &[
    f("m_hOwnerEntity", "CHandle< CBaseEntity >").var_ser("ehandle"),
    f("CBodyComponent", "CBodyComponent").table("CBodyComponentBaseAnimGraph", 0),
    f("m_iTeamNum", "uint8"),
    f("m_nOwnerId", "uint32").node("m_Collision.m_collisionAttribute"),
    f("m_bBombTicking", "bool"),
    f("m_flC4Blow", "GameTime_t").bits(32),
    f("m_nBombSite", "int32"),
    f("m_bCannotBeDefused", "bool"),
    f("m_bSpotted", "bool").node("m_entitySpottedState"),
    f("m_bSpottedByMask", "uint32[2]").node("m_entitySpottedState"),
    f("m_bHasExploded", "bool"),
    f("m_bBombDefused", "bool"),
    f("m_flTimerLength", "float32").bits(32),
    f("m_bBeingDefused", "bool"),
    f("m_flDefuseLength", "float32").bits(32),
    f("m_flDefuseCountDown", "GameTime_t").bits(32),
    f("m_hBombDefuser", "CHandle< CCSPlayerPawn >").var_ser("ehandle"),
];
