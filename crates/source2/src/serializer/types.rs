//! Decoder selection: which [`FieldDecoder`] a field gets from its
//! declared type (`var_type`, parsed into a [`VarType`]), its encoder, bit
//! count, range and flags, and its name: factories by base type, name
//! overrides, a type map and a default, as demoinfocs-golang
//! `field_decoder.go` and demofile-net `FieldDecode.cs` choose them,
//! completed by the types that real demos contain. A type not known is read
//! as a 64-bit varint and reported as a fallback.

use gamewire_bits::QuantizedFloat;
use rustc_hash::FxHashMap;

use crate::error::{ErrorKind, SendTablesError};

use super::decoder::*;

/// A parsed `var_type`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarType {
    /// The base type (`CNetworkUtlVectorBase`).
    pub base: String,
    /// The generic argument (`CHandle< CBaseEntity >`).
    pub generic: Option<Box<VarType>>,
    /// `*`.
    pub pointer: bool,
    /// `[N]`: the element count, resolved.
    pub count: Option<u32>,
}

impl VarType {
    /// Parses `BASE [< GENERIC >] [*] [[COUNT]]`.
    pub fn parse(s: &str) -> VarType {
        let t = TypeShape::parse(s);
        VarType {
            base: t.base.to_string(),
            generic: t.generic.map(|g| Box::new(VarType::parse(g))),
            pointer: t.pointer,
            count: t.count,
        }
    }
}

/// A `var_type` split without copying: [`VarType`] with the generic
/// argument left as text.
#[derive(Debug, Clone, Copy)]
pub(super) struct TypeShape<'a> {
    pub(super) base: &'a str,
    /// The text between the outer `<` and `>`.
    pub(super) generic: Option<&'a str>,
    pub(super) pointer: bool,
    pub(super) count: Option<u32>,
}

impl<'a> TypeShape<'a> {
    pub(super) fn parse(s: &'a str) -> TypeShape<'a> {
        let s = s.trim();
        // The delimiters are ASCII, so byte positions are char boundaries.
        let base_end = s
            .bytes()
            .position(|b| matches!(b, b'<' | b'[' | b'*'))
            .unwrap_or(s.len());
        let base = s.get(..base_end).unwrap_or("").trim();
        let mut rest = s.get(base_end..).unwrap_or("");
        let mut generic = None;
        if rest.starts_with('<') {
            let mut depth = 0usize;
            let mut end = rest.len();
            for (i, c) in rest.bytes().enumerate() {
                match c {
                    b'<' => depth += 1,
                    b'>' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            end = i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            generic = Some(rest.get(1..end).unwrap_or(""));
            rest = rest.get(end + 1..).unwrap_or("");
        }
        let rest = rest.trim();
        let pointer = rest.starts_with('*');
        let rest = rest.trim_start_matches('*').trim();
        let count = rest
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .map(|c| match c.trim() {
                "MAX_ITEM_STOCKS" => 8,
                "MAX_ABILITY_DRAFT_ABILITIES" => 48,
                "DOTA_ABILITY_DRAFT_HEROES_PER_GAME" => 10,
                n => n.parse::<u32>().unwrap_or(1024),
            });
        TypeShape {
            base,
            generic,
            pointer,
            count,
        }
    }
}

/// Types that hold a pointer even without `*` (Valve's `DemoTypeAlias_t`
/// list in demoinfocs, plus the Deadlock and Dota 2 aliases from haste and
/// manta).
pub(super) const POINTER_TYPES: &[&str] = &[
    "CBodyComponent",
    "CBodyComponentDCGBaseAnimating",
    "CBodyComponentBaseAnimating",
    "CBodyComponentBaseAnimatingOverlay",
    "CBodyComponentBaseModelEntity",
    "CBodyComponentSkeletonInstance",
    "CBodyComponentPoint",
    "C_BodyComponentBaseAnimating",
    "C_BodyComponentBaseAnimatingOverlay",
    "CLightComponent",
    "CRenderComponent",
    "CPhysicsComponent",
    "CPlayerLocalData",
    "PhysicsRagdollPose_t",
    "CEntityIdentity",
    "CDOTAGamerules",
    "CDOTAGameManager",
    "CDOTASpectatorGraphManager",
    "CPlayer_CameraServices",
    "CDOTAGameRules",
];

pub(super) const SIGNED_TYPES: &[&str] = &[
    "int8",
    "int16",
    "int32",
    "CEntityIndex",
    "NPC_STATE",
    "StanceType_t",
    "AmmoIndex_t",
    "TakeDamageFlags_t",
    "HSequence",
    "PlayerID_t",
];

pub(super) const UNSIGNED_TYPES: &[&str] = &[
    "uint8",
    "uint16",
    "uint32",
    "CHandle",
    "EHandle",
    "CEntityHandle",
    "CGameSceneNodeHandle",
    "Color",
    "color32",
    "CUtlStringToken",
    "AttachmentHandle_t",
    "MoveCollide_t",
    "MoveType_t",
    "RenderMode_t",
    "RenderFx_t",
    "SolidType_t",
    "SurroundingBoundsType_t",
    "ModelConfigHandle_t",
    "WeaponState_t",
    "DoorState_t",
    "BeamClipStyle_t",
    "BeamType_t",
    "RagdollBlendDirection",
    "EntityDisolveType_t",
    "PrecipitationType_t",
    "ValueRemapperInputType_t",
    "ValueRemapperOutputType_t",
    "ValueRemapperHapticsType_t",
    "ValueRemapperMomentumType_t",
    "ValueRempapperRatchetType_t",
    "PointWorldTextJustifyHorizontal_t",
    "PointWorldTextJustifyVertical_t",
    "PointWorldTextReorientMode_t",
    "PoseController_FModType_t",
    "ShardSolid_t",
    "SharpSolid_t",
    "ShatterPanelMode",
    "gender_t",
    "item_definition_index_t",
    "itemid_t",
    "style_index_t",
    "attributeprovidertypes_t",
    "DamageOptions_t",
    "ScreenEffectType_t",
    "MaterialModifyMode_t",
    "CSWeaponMode",
    "ESurvivalSpawnTileState",
    "SpawnStage_t",
    "ESurvivalGameRuleDecision_t",
    "RelativeDamagedDirection_t",
    "CSPlayerState",
    "MedalRank_t",
    "CSPlayerBlockingUseAction_t",
    "MoveMountingAmount_t",
    "QuestProgress::Reason",
    "tablet_skin_state_t",
    "AnimLoopMode_t",
    "AnimationAlgorithm_t",
    "BloodType",
    "CPlayerSlot",
    "CSWeaponState_t",
    "EKillTypes_t",
    "EntityPlatformTypes_t",
    "FixAngleSet_t",
    "GameTick_t",
    "PlayerAnimEvent_t",
    "PlayerConnectedState",
    "WeaponAttackType_t",
    "WeaponGameplayAnimState",
    "WorldGroupId_t",
    "loadout_slot_t",
    "DecalMode_t",
    "ValueRemapperRatchetType_t",
    "attrib_definition_index_t",
    "HitGroup_t",
    "ObserverMode_t",
    "HeroID_t",
    "HeroBuildID_t",
    "CitadelLobbyPlayerSlot_t",
    "AbilityID_t",
    "LeagueID_t",
    "GuildID_t",
    "PeriodicResourceID_t",
    "CavernCrawlMapVariant_t",
    "PingConfirmationIconType",
    "FowBlockerShape_t",
    "ScoutState_t",
    "CourierState_t",
    "DOTA_SHOP_TYPE",
    "AbilityBarType_t",
    "ShopItemViewMode_t",
    "DOTA_HeroPickState",
    "DOTACustomHeroPickRulesPhase_t",
];

pub(super) const UNSIGNED64_TYPES: &[&str] = &[
    "ResourceId_t",
    "HeroFacetKey_t",
    "CStrongHandle",
    "MatchID_t",
];

pub(super) const STRING_TYPES: &[&str] =
    &["char", "CUtlString", "CUtlSymbolLarge", "CGlobalSymbol"];

pub(super) const COMPONENT_TYPES: &[&str] = &[
    "CBodyComponent",
    "CPhysicsComponent",
    "CLightComponent",
    "CRenderComponent",
];

pub(super) const VARIABLE_ARRAY_TYPES: &[&str] = &[
    "CUtlVector",
    "CNetworkUtlVectorBase",
    "CUtlVectorEmbeddedNetworkVar",
];

/// What the build reads from a type symbol (once per symbol).
#[derive(Debug, Clone, Copy)]
pub(super) struct TypeInfo {
    /// The base type's decoder class.
    pub(super) kind: BaseKind,
    /// A pointer, or a type that always holds one (a nested serializer
    /// behind it is a fixed table).
    pub(super) pointer_like: bool,
    /// The element count of a fixed array (`T[N]`, `N > 0`, `T` not `char`).
    pub(super) count: Option<u32>,
    /// A variable-array type (`CUtlVector<T>` and the like).
    pub(super) variable_array: bool,
    /// The decoder class of the generic argument's base type.
    pub(super) element: Option<BaseKind>,
}

impl TypeInfo {
    pub(super) fn of(var_type: &str) -> TypeInfo {
        let t = TypeShape::parse(var_type);
        TypeInfo {
            kind: BaseKind::of(t.base),
            pointer_like: t.pointer || POINTER_TYPES.contains(&t.base),
            count: t.count.filter(|&c| c > 0 && t.base != "char"),
            variable_array: VARIABLE_ARRAY_TYPES.contains(&t.base),
            element: t.generic.map(|g| BaseKind::of(TypeShape::parse(g).base)),
        }
    }
}

/// The parameters a decoder is chosen from.
pub(super) struct DecoderParams<'a> {
    pub(super) name: &'a str,
    pub(super) encoder: Option<&'a str>,
    pub(super) var_serializer: Option<&'a str>,
    pub(super) bit_count: Option<i32>,
    pub(super) low: Option<f32>,
    pub(super) high: Option<f32>,
    pub(super) flags: Option<i32>,
}

#[inline(always)]
pub(super) fn float_decoder(p: &DecoderParams<'_>) -> Result<FloatDecoder, ErrorKind> {
    Ok(match p.encoder {
        Some("coord") => FloatDecoder::Coord,
        Some("simtime") => FloatDecoder::SimTime,
        Some("runetime") => FloatDecoder::RuneTime,
        _ => match p.bit_count {
            Some(b) if b > 0 && b < 32 => FloatDecoder::Quantized(
                QuantizedFloat::new(p.bit_count, p.flags, p.low, p.high).map_err(|source| {
                    ErrorKind::SendTables(SendTablesError::Quantization {
                        field: p.name.to_string(),
                        source,
                    })
                })?,
            ),
            _ => FloatDecoder::NoScale,
        },
    })
}

/// What a base type says about its decoder before the field's name and
/// encoder are looked at (computed once per type symbol).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum BaseKind {
    /// `float32`, `CNetworkedQuantizedFloat`, `GameTime_t`, `float`.
    Float,
    /// `uint64`.
    Uint64,
    /// `CStrongHandle`.
    StrongHandle,
    /// `Vector` and friends, with their float count.
    Vector(u8),
    /// `QAngle`.
    QAngle,
    /// Any other type: its decoder when the name does not override it,
    /// `None` when the type is unknown.
    Other(Option<FieldDecoder>),
}

impl BaseKind {
    pub(super) fn of(base: &str) -> BaseKind {
        match base {
            "float32" | "CNetworkedQuantizedFloat" | "GameTime_t" | "float" => BaseKind::Float,
            "uint64" => BaseKind::Uint64,
            "CStrongHandle" => BaseKind::StrongHandle,
            "Vector" | "VectorWS" => BaseKind::Vector(3),
            "Vector2D" => BaseKind::Vector(2),
            "Vector4D" | "Quaternion" => BaseKind::Vector(4),
            "CTransform" => BaseKind::Vector(6),
            "QAngle" => BaseKind::QAngle,
            "bool" => BaseKind::Other(Some(FieldDecoder::Bool)),
            "int64" => BaseKind::Other(Some(FieldDecoder::I64)),
            "CUtlBinaryBlock" => BaseKind::Other(Some(FieldDecoder::Bytes)),
            b => match listed_types().get(b) {
                Some(&d) => BaseKind::Other(Some(d)),
                // Enumerations are varints; a deliberate choice, not a fallback.
                None if b.starts_with('E')
                    && b.chars().nth(1).is_some_and(|c| c.is_ascii_uppercase()) =>
                {
                    BaseKind::Other(Some(FieldDecoder::U64))
                }
                None => BaseKind::Other(None),
            },
        }
    }
}

/// The decoder of every type in the type lists (signed, unsigned, 64-bit
/// unsigned, string, component; a type in two lists takes the first).
pub(super) fn listed_types() -> &'static FxHashMap<&'static str, FieldDecoder> {
    static LISTED: std::sync::OnceLock<FxHashMap<&'static str, FieldDecoder>> =
        std::sync::OnceLock::new();
    LISTED.get_or_init(|| {
        let mut m = FxHashMap::default();
        for (list, decoder) in [
            (SIGNED_TYPES, FieldDecoder::I32),
            (UNSIGNED_TYPES, FieldDecoder::U32),
            (UNSIGNED64_TYPES, FieldDecoder::U64),
            (STRING_TYPES, FieldDecoder::String),
            (COMPONENT_TYPES, FieldDecoder::Component),
        ] {
            for &t in list {
                m.entry(t).or_insert(decoder);
            }
        }
        m
    })
}

/// Chooses the decoder for a base type; `None` for an unknown type.
#[inline(always)]
pub(super) fn decoder_for(
    kind: &BaseKind,
    p: &DecoderParams<'_>,
    is_element: bool,
) -> Result<Option<FieldDecoder>, ErrorKind> {
    // Factories.
    let vector = |n: u8| -> Result<FieldDecoder, ErrorKind> {
        if n == 3 && p.encoder == Some("normal") {
            return Ok(FieldDecoder::Vec3Normal);
        }
        Ok(FieldDecoder::Vector(n, float_decoder(p)?))
    };
    let by_type = match kind {
        BaseKind::Float => return Ok(Some(FieldDecoder::Float(float_decoder(p)?))),
        BaseKind::Uint64 | BaseKind::StrongHandle if p.encoder == Some("fixed64") => {
            return Ok(Some(FieldDecoder::Fixed64))
        }
        BaseKind::Uint64 => return Ok(Some(FieldDecoder::U64)),
        BaseKind::Vector(n) => return vector(*n).map(Some),
        BaseKind::QAngle => {
            return Ok(Some(match (p.encoder, p.bit_count) {
                (Some("qangle_precise"), _) => FieldDecoder::QAnglePrecise,
                (Some("qangle_pitch_yaw"), b) => {
                    FieldDecoder::QAnglePitchYaw(b.unwrap_or(0).clamp(0, 32) as u32)
                }
                (_, Some(b)) if b != 0 => FieldDecoder::QAngleFixed(b.clamp(0, 32) as u32),
                _ => FieldDecoder::QAngleCoord,
            }))
        }
        BaseKind::StrongHandle => Some(FieldDecoder::U64),
        BaseKind::Other(d) => *d,
    };
    // Name overrides (not for array elements).
    if !is_element {
        if p.var_serializer == Some("minusone") {
            return Ok(Some(if p.name == "m_iClip1" || p.name == "m_iClip2" {
                FieldDecoder::AmmoCount
            } else {
                FieldDecoder::MinusOne
            }));
        }
        if p.name == "m_iClip1" {
            return Ok(Some(FieldDecoder::AmmoCount));
        }
    }
    Ok(match by_type {
        Some(d) => Some(d),
        None if p.name.starts_with("m_e")
            && p.name
                .chars()
                .nth(3)
                .is_some_and(|c| c.is_ascii_uppercase()) =>
        {
            Some(FieldDecoder::U64)
        }
        None => None,
    })
}

/// [`decoder_for`], with [`FieldDecoder::Fallback`] (and `fallback` set)
/// for an unknown type. (A function, not a closure, so that it inlines: the
/// decoder is then built in place instead of being returned through
/// memory.)
#[inline(always)]
pub(super) fn choose(
    kind: &BaseKind,
    p: &DecoderParams<'_>,
    is_element: bool,
    fallback: &mut bool,
) -> Result<FieldDecoder, ErrorKind> {
    Ok(match decoder_for(kind, p, is_element)? {
        Some(d) => d,
        None => {
            *fallback = true;
            FieldDecoder::Fallback
        }
    })
}
