//! Send tables: serializers, fields, their models and decoders.
//!
//! `DEM_SendTables` holds a varint-prefixed `CSVCMsg_FlattenedSerializer`:
//! a symbol table, a list of fields, and a list of serializers (name,
//! version, field indices; fields are shared by index). Each field names its
//! type (`var_type`, e.g. `CNetworkUtlVectorBase< CHandle< CBaseEntity > >`),
//! an optional encoder, bit count, range and flags, and optionally a nested
//! serializer or a list of polymorphic serializers.
//!
//! From these we build, once per demo, a tree of [`Field`]s with a *model*:
//!
//! | model | when | what a path ending here carries |
//! |---|---|---|
//! | value | otherwise | the value |
//! | fixed array | `T[N]` with `N > 0`, `T` not `char` | element `i`: the value (no length) |
//! | variable array | `CUtlVector<T>`, `CNetworkUtlVectorBase<T>`, `CUtlVectorEmbeddedNetworkVar<T>` without serializer | the new length (varuint32); element `i`: the value |
//! | fixed table | a nested serializer behind a pointer (`T*` or a component type) | a "present" bit, and for polymorphic pointers a UBitVar type index (1-based) |
//! | variable table | a nested serializer, not a pointer | the new length; element `i`, then a field of the element |
//!
//! and a [`FieldDecoder`] chosen by the rules of seed 000 (factories by base
//! type, name overrides, a type map, a default), completed from
//! demoinfocs-golang `field_decoder.go`, demofile-net `FieldDecode.cs` and the
//! types that real corpus demos contain. A type we do not know is read as a
//! 64-bit varint (all integer encodings are varints, so the stream stays in
//! step) and reported as a fallback.

use gamewire_bits::{BitError, BitReader, QuantizedFloat};
use rustc_hash::FxHashMap;
use source2_demo_protobufs::CSvcMsgFlattenedSerializer;

use crate::error::ErrorKind;
use crate::fieldpath::FieldPath;
pub use crate::flattened::CoordSizeParams;
use crate::flattened::{RawField, RawMessage, RawSerializer};
use crate::value::Value;

/// Largest fixed array or variable array/table length we accept.
pub const MAX_ARRAY_LEN: u32 = 1 << 14;
/// Deepest nesting of serializers.
pub const MAX_NESTING: usize = 16;

/// Index of a serializer in [`SendTables::serializers`].
pub type SerializerId = u32;

/// How a float is encoded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FloatDecoder {
    /// 32 raw bits.
    NoScale,
    /// A coord (seed 001 `bit_float32_coord`).
    Coord,
    /// Ticks as varuint32, times the tick interval.
    SimTime,
    /// Four bits reinterpreted as a float (Dota 2 rune time).
    RuneTime,
    /// A quantized float.
    Quantized(QuantizedFloat),
}

impl FloatDecoder {
    #[inline]
    fn decode(&self, r: &mut BitReader<'_>, tick_interval: f32) -> Result<f32, BitError> {
        match self {
            FloatDecoder::NoScale => r.read_f32(),
            FloatDecoder::Coord => r.read_coord(),
            FloatDecoder::SimTime => r.read_simulation_time(tick_interval),
            FloatDecoder::RuneTime => r.read_rune_time(),
            FloatDecoder::Quantized(q) => q.decode(r),
        }
    }

    fn describe(&self) -> String {
        match self {
            FloatDecoder::NoScale => "noscale".into(),
            FloatDecoder::Coord => "coord".into(),
            FloatDecoder::SimTime => "simtime".into(),
            FloatDecoder::RuneTime => "runetime".into(),
            FloatDecoder::Quantized(q) => format!(
                "quantized(bits={}, low={}, high={}, flags={})",
                q.bit_count, q.low, q.high, q.flags
            ),
        }
    }
}

/// How one value is read from the entity bitstream.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum FieldDecoder {
    /// One bit.
    Bool,
    /// ZigZag varint32.
    I32,
    /// ZigZag varint64.
    I64,
    /// varuint32.
    U32,
    /// varuint64.
    U64,
    /// varuint64 for a type we do not know (reported as a fallback).
    Fallback,
    /// 64 raw bits, little-endian.
    Fixed64,
    /// One bit (component presence).
    Component,
    /// varuint32 minus one, not below zero (`m_iClip1`, seed 001 ammo count).
    AmmoCount,
    /// varuint64 minus one (the `minusone` var serializer), signed.
    MinusOne,
    /// A null-terminated string.
    String,
    /// varuint32 length, then bytes.
    Bytes,
    /// A float.
    Float(FloatDecoder),
    /// `n` floats.
    Vector(u8, FloatDecoder),
    /// Seed 001 `bit_vec3_normal`.
    Vec3Normal,
    /// Seed 001 `bit_qangle_precise`.
    QAnglePrecise,
    /// Seed 001 `bit_qangle_fixed` with this many bits.
    QAngleFixed(u32),
    /// Seed 001 `bit_qangle_coord`.
    QAngleCoord,
    /// Pitch and yaw of `n` bits, roll zero (`qangle_pitch_yaw`).
    QAnglePitchYaw(u32),
    /// The new length of a variable array or table (varuint32, at most
    /// [`MAX_ARRAY_LEN`]).
    ArrayLength,
    /// A pointer's "present" bit.
    PointerPresent,
    /// A polymorphic pointer: a present bit and a UBitVar type index.
    PolyPointer,
}

/// The new length of a variable array or table: a varuint32 of at most
/// [`MAX_ARRAY_LEN`] (a longer one is an error, which bounds memory).
#[inline]
pub(crate) fn read_array_length(r: &mut BitReader<'_>) -> Result<u32, BitError> {
    let start = r.position();
    let len = r.read_varuint32()?;
    if len > MAX_ARRAY_LEN {
        return Err(BitError::OutOfRange {
            bit_offset: start,
            value: i64::from(len),
            min: 0,
            max: i64::from(MAX_ARRAY_LEN),
        });
    }
    Ok(len)
}

/// A polymorphic pointer: a present bit and a UBitVar type index; the
/// stored value is the index, 0 when absent.
#[inline]
pub(crate) fn read_poly_pointer(r: &mut BitReader<'_>) -> Result<u32, BitError> {
    let present = r.read_bool()?;
    let index = r.read_ubitvar()?;
    Ok(if present { index } else { 0 })
}

impl FieldDecoder {
    /// Decodes one value.
    #[inline]
    pub fn decode(&self, r: &mut BitReader<'_>, tick_interval: f32) -> Result<Value, BitError> {
        Ok(match self {
            FieldDecoder::Bool | FieldDecoder::Component | FieldDecoder::PointerPresent => {
                Value::Bool(r.read_bool()?)
            }
            FieldDecoder::I32 => Value::I32(r.read_varint32()?),
            FieldDecoder::I64 => Value::I64(r.read_varint64()?),
            FieldDecoder::U32 => Value::U32(r.read_varuint32()?),
            FieldDecoder::ArrayLength => Value::U32(read_array_length(r)?),
            FieldDecoder::U64 | FieldDecoder::Fallback => {
                let v = r.read_varuint64()?;
                match u32::try_from(v) {
                    Ok(small) if matches!(self, FieldDecoder::Fallback) => Value::U32(small),
                    _ => Value::U64(v),
                }
            }
            FieldDecoder::Fixed64 => Value::U64(r.read_u64()?),
            FieldDecoder::AmmoCount => Value::U32(r.read_ammo_count()?),
            FieldDecoder::MinusOne => Value::I64((r.read_varuint64()? as i64).wrapping_sub(1)),
            FieldDecoder::String => Value::String(r.read_string_terminated()?.into_boxed_str()),
            FieldDecoder::Bytes => {
                let len = r.read_varuint32()? as usize;
                Value::Bytes(r.read_bytes(len)?.into_boxed_slice())
            }
            FieldDecoder::Float(f) => Value::F32(f.decode(r, tick_interval)?),
            FieldDecoder::Vector(n, f) => match n {
                2 => Value::Vec2([f.decode(r, tick_interval)?, f.decode(r, tick_interval)?]),
                3 => Value::Vec3([
                    f.decode(r, tick_interval)?,
                    f.decode(r, tick_interval)?,
                    f.decode(r, tick_interval)?,
                ]),
                4 => Value::Vec4([
                    f.decode(r, tick_interval)?,
                    f.decode(r, tick_interval)?,
                    f.decode(r, tick_interval)?,
                    f.decode(r, tick_interval)?,
                ]),
                _ => {
                    let mut v = [0f32; 6];
                    for slot in &mut v {
                        *slot = f.decode(r, tick_interval)?;
                    }
                    Value::Vec6(Box::new(v))
                }
            },
            FieldDecoder::Vec3Normal => Value::Vec3(r.read_vec3_normal()?),
            FieldDecoder::QAnglePrecise => Value::Vec3(r.read_qangle_precise()?),
            FieldDecoder::QAngleFixed(bits) => Value::Vec3(r.read_qangle_fixed(*bits)?),
            FieldDecoder::QAngleCoord => Value::Vec3(r.read_qangle_coord()?),
            FieldDecoder::QAnglePitchYaw(bits) => {
                Value::Vec3([r.read_angle(*bits)?, r.read_angle(*bits)?, 0.0])
            }
            FieldDecoder::PolyPointer => Value::U32(read_poly_pointer(r)?),
        })
    }

    /// Reads past one value without keeping it (an entity whose class
    /// nobody asked for): the same bits and the same errors as
    /// [`FieldDecoder::decode`], nothing built. Its own code, so that
    /// `decode` stays inlined where entities are decoded.
    #[inline(never)]
    pub fn skip(&self, r: &mut BitReader<'_>, tick_interval: f32) -> Result<(), BitError> {
        match self {
            FieldDecoder::Bool | FieldDecoder::Component | FieldDecoder::PointerPresent => {
                r.read_bool().map(drop)
            }
            FieldDecoder::I32 => r.read_varint32().map(drop),
            FieldDecoder::I64 => r.read_varint64().map(drop),
            FieldDecoder::U32 => r.read_varuint32().map(drop),
            FieldDecoder::U64 | FieldDecoder::Fallback | FieldDecoder::MinusOne => {
                r.read_varuint64().map(drop)
            }
            FieldDecoder::Fixed64 => r.read_u64().map(drop),
            FieldDecoder::AmmoCount => r.read_ammo_count().map(drop),
            FieldDecoder::String => r.read_string_terminated().map(drop),
            FieldDecoder::Bytes => {
                let len = r.read_varuint32()?;
                r.skip_bits(u64::from(len) * 8)
            }
            FieldDecoder::Float(f) => f.decode(r, tick_interval).map(drop),
            FieldDecoder::Vector(n, f) => {
                let count = match n {
                    2..=4 => usize::from(*n),
                    _ => 6,
                };
                for _ in 0..count {
                    f.decode(r, tick_interval)?;
                }
                Ok(())
            }
            FieldDecoder::Vec3Normal => r.read_vec3_normal().map(drop),
            FieldDecoder::QAnglePrecise => r.read_qangle_precise().map(drop),
            FieldDecoder::QAngleFixed(bits) => r.read_qangle_fixed(*bits).map(drop),
            FieldDecoder::QAngleCoord => r.read_qangle_coord().map(drop),
            FieldDecoder::QAnglePitchYaw(bits) => {
                r.read_angle(*bits)?;
                r.read_angle(*bits).map(drop)
            }
            FieldDecoder::ArrayLength => read_array_length(r).map(drop),
            FieldDecoder::PolyPointer => read_poly_pointer(r).map(drop),
        }
    }

    /// A short description for `gamewire schema`.
    pub fn describe(&self) -> String {
        match self {
            FieldDecoder::Float(f) => f.describe(),
            FieldDecoder::Vector(n, f) => format!("vector{n}<{}>", f.describe()),
            FieldDecoder::QAngleFixed(b) => format!("qangle_fixed({b})"),
            FieldDecoder::QAnglePitchYaw(b) => format!("qangle_pitch_yaw({b})"),
            other => format!("{other:?}").to_lowercase(),
        }
    }
}

/// A field's model.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldModel {
    /// A single value.
    Value(FieldDecoder),
    /// `len` values.
    FixedArray {
        /// Number of elements.
        len: u32,
        /// Element decoder.
        element: FieldDecoder,
    },
    /// A resizable array of values.
    VariableArray(FieldDecoder),
    /// A pointer to a nested serializer; polymorphic when `poly` is not empty
    /// (`poly[i - 1]` is the serializer of type index `i`).
    FixedTable {
        /// The declared serializer.
        serializer: SerializerId,
        /// The polymorphic serializers.
        poly: Vec<SerializerId>,
    },
    /// A resizable array of nested serializers.
    VariableTable(SerializerId),
}

/// A symbol of the send tables (a field name, a type, an encoder, a
/// serializer name): an index into the one text store of its
/// [`SendTables`]. Read it with [`SendTables::symbol`].
///
/// A CS2 demo's send tables have about 2 000 symbols shared by 1 600 fields
/// and 260 serializers; one store for all of them (instead of a string per
/// name) makes the tables cheap to build and to drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Symbol(pub u32);

/// The text of every [`Symbol`], one after the other.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct SymbolText {
    text: String,
    /// End of symbol `i` in `text` (its start is the end of `i - 1`).
    ends: Vec<u32>,
}

impl SymbolText {
    fn get(&self, s: Symbol) -> &str {
        let i = s.0 as usize;
        let end = self.ends.get(i).copied().unwrap_or(0) as usize;
        let start = match i.checked_sub(1) {
            Some(p) => self.ends.get(p).copied().unwrap_or(0) as usize,
            None => 0,
        };
        self.text.get(start..end).unwrap_or("")
    }

    fn push(&mut self, text: &str) -> Symbol {
        let id = Symbol(self.ends.len() as u32);
        self.text.push_str(text);
        self.ends.push(self.text.len() as u32);
        id
    }
}

/// One field of a serializer.
#[derive(Debug, Clone)]
pub struct Field {
    /// Variable name (`m_iHealth`).
    pub name: Symbol,
    /// Declared type (`int32`, `CHandle< CBaseEntity >`, ...).
    pub var_type: Symbol,
    /// Encoder name, if any.
    pub encoder: Option<Symbol>,
    /// The model and decoder.
    pub model: FieldModel,
    /// True when the decoder is the fallback for an unknown type.
    pub fallback: bool,
}

/// A serializer: a named, versioned list of fields.
#[derive(Debug, Clone)]
pub struct Serializer {
    /// Name (`CCSPlayerPawn`).
    pub name: Symbol,
    /// Version.
    pub version: i32,
    /// Indices into [`SendTables::fields`].
    pub fields: Vec<u32>,
}

/// The send tables of one demo, built once at signon.
#[derive(Debug, Clone, Default)]
pub struct SendTables {
    /// All serializers.
    pub serializers: Vec<Serializer>,
    /// All fields (shared between serializers).
    pub fields: Vec<Field>,
    /// The text of the symbols.
    symbols: SymbolText,
    /// One serializer per name (the highest version) with the hash of the
    /// name, sorted by hash (names that share a hash are told apart by
    /// their text).
    by_name: Vec<(u64, SerializerId)>,
    /// Types that fell back to the default decoder: (serializer, field, type).
    pub fallbacks: Vec<(String, String, String)>,
    /// The coordinate bit sizes the message declares, if it does (the
    /// decoders use seed 001's; see [`CoordSizeParams::differences`]).
    pub coord_size_params: Option<CoordSizeParams>,
}

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
struct TypeShape<'a> {
    base: &'a str,
    /// The text between the outer `<` and `>`.
    generic: Option<&'a str>,
    pointer: bool,
    count: Option<u32>,
}

impl<'a> TypeShape<'a> {
    fn parse(s: &'a str) -> TypeShape<'a> {
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
const POINTER_TYPES: &[&str] = &[
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

const SIGNED_TYPES: &[&str] = &[
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

const UNSIGNED_TYPES: &[&str] = &[
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

const UNSIGNED64_TYPES: &[&str] = &[
    "ResourceId_t",
    "HeroFacetKey_t",
    "CStrongHandle",
    "MatchID_t",
];

const STRING_TYPES: &[&str] = &["char", "CUtlString", "CUtlSymbolLarge", "CGlobalSymbol"];

const COMPONENT_TYPES: &[&str] = &[
    "CBodyComponent",
    "CPhysicsComponent",
    "CLightComponent",
    "CRenderComponent",
];

const VARIABLE_ARRAY_TYPES: &[&str] = &[
    "CUtlVector",
    "CNetworkUtlVectorBase",
    "CUtlVectorEmbeddedNetworkVar",
];

/// The hash [`SendTables::by_name`] sorts by.
fn name_hash(name: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    name.hash(&mut h);
    h.finish()
}

/// What the build reads from a type symbol (once per symbol).
#[derive(Debug, Clone, Copy)]
struct TypeInfo {
    /// The base type's decoder class.
    kind: BaseKind,
    /// A pointer, or a type that always holds one (a nested serializer
    /// behind it is a fixed table).
    pointer_like: bool,
    /// The element count of a fixed array (`T[N]`, `N > 0`, `T` not `char`).
    count: Option<u32>,
    /// A variable-array type (`CUtlVector<T>` and the like).
    variable_array: bool,
    /// The decoder class of the generic argument's base type.
    element: Option<BaseKind>,
}

impl TypeInfo {
    fn of(var_type: &str) -> TypeInfo {
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
struct DecoderParams<'a> {
    name: &'a str,
    encoder: Option<&'a str>,
    var_serializer: Option<&'a str>,
    bit_count: Option<i32>,
    low: Option<f32>,
    high: Option<f32>,
    flags: Option<i32>,
}

#[inline(always)]
fn float_decoder(p: &DecoderParams<'_>) -> Result<FloatDecoder, ErrorKind> {
    Ok(match p.encoder {
        Some("coord") => FloatDecoder::Coord,
        Some("simtime") => FloatDecoder::SimTime,
        Some("runetime") => FloatDecoder::RuneTime,
        _ => match p.bit_count {
            Some(b) if b > 0 && b < 32 => FloatDecoder::Quantized(
                QuantizedFloat::new(p.bit_count, p.flags, p.low, p.high)
                    .map_err(|e| ErrorKind::SendTables(format!("field {}: {e}", p.name)))?,
            ),
            _ => FloatDecoder::NoScale,
        },
    })
}

/// What a base type says about its decoder before the field's name and
/// encoder are looked at (computed once per type symbol).
#[derive(Debug, Clone, Copy, PartialEq)]
enum BaseKind {
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
    fn of(base: &str) -> BaseKind {
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
fn listed_types() -> &'static FxHashMap<&'static str, FieldDecoder> {
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
fn decoder_for(
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
fn choose(
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

/// The `CSVCMsg_FlattenedSerializer` bytes inside a `CDemoSendTables`
/// payload (a varuint32 length, then the message).
pub fn demo_payload_message(data: &[u8]) -> Result<&[u8], ErrorKind> {
    let mut pos = 0usize;
    let len = crate::container::read_varint32(data, &mut pos, "send tables length")? as usize;
    pos.checked_add(len)
        .and_then(|end| data.get(pos..end))
        .ok_or(ErrorKind::Truncated {
            what: "send tables",
            needed: len as u64,
            available: (data.len() - pos) as u64,
        })
}

/// Where a build reads its fields from.
enum FieldSource<'a> {
    /// Field messages still in the message bytes, at (offset, length).
    Spans {
        body: std::borrow::Cow<'a, [u8]>,
        spans: Vec<(usize, usize)>,
    },
    /// Fields decoded already (from the generated type).
    Decoded(Vec<RawField>),
}

/// Send tables built up to their fields: the symbols, the serializers and
/// how to find a serializer by name, plus where the fields are. The fields
/// are then built in ranges ([`BuildStage::build_fields`]), by one thread
/// or, on the helper thread's build, by two (see [`ParallelBuild`]), and
/// [`BuildStage::finish`] puts the ranges together.
pub(crate) struct BuildStage<'a> {
    /// Serializers and symbols; no fields yet.
    tables: SendTables,
    /// Symbols of the message (the build adds some after them).
    message_symbols: usize,
    /// The symbols the build adds: the empty text, `simtime`, `runetime`.
    added: [Symbol; 3],
    /// (name hash, version, id), sorted: serializers by exact version.
    by_key: Vec<(u64, i32, SerializerId)>,
    fields: FieldSource<'a>,
}

/// What one builder of fields keeps between fields (and ranges): each type
/// symbol read once, each serializer (name symbol, version) looked up once.
#[derive(Default)]
pub(crate) struct FieldCache {
    /// `type_at[i]` is 1 + the index in `types` of symbol `i`'s info, 0
    /// before it is read.
    type_at: Vec<u32>,
    types: Vec<TypeInfo>,
    unnamed_type: Option<TypeInfo>,
    looked_up: FxHashMap<(i32, Option<i32>), Option<SerializerId>>,
    raw: RawField,
}

/// The fields of one range, built.
pub(crate) struct FieldRange {
    fields: Vec<Field>,
    fallbacks: Vec<(String, String, String)>,
}

impl<'a> BuildStage<'a> {
    /// Reads the top level of a `CSVCMsg_FlattenedSerializer`: symbols,
    /// serializers; the fields stay bytes.
    pub(crate) fn prepare(body: std::borrow::Cow<'a, [u8]>) -> Result<BuildStage<'a>, ErrorKind> {
        let (mut stage, spans) = {
            // Symbols are slices of `body` while the stage is set up, then
            // copied into the tables' one text store.
            let msg = RawMessage::parse(&body)?;
            let spans = msg.field_spans();
            let mut stage = BuildStage::new(
                &msg.symbols,
                msg.serializers(),
                spans.len(),
                FieldSource::Decoded(Vec::new()),
            )?;
            stage.tables.coord_size_params = msg.coord_size_params;
            (stage, spans)
        };
        stage.fields = FieldSource::Spans { body, spans };
        Ok(stage)
    }

    fn new(
        symbols: &[&str],
        serializers: impl Iterator<Item = Result<RawSerializer, ErrorKind>>,
        field_count: usize,
        fields: FieldSource<'a>,
    ) -> Result<BuildStage<'a>, ErrorKind> {
        let sym = |i: Option<i32>| -> Option<&str> {
            i.and_then(|i| usize::try_from(i).ok())
                .and_then(|i| symbols.get(i))
                .copied()
        };
        let mut tables = SendTables::default();
        // Symbol `i` of the message is `Symbol(i)`; the texts the build
        // adds come after them.
        let total: usize = symbols.iter().map(|s| s.len()).sum();
        if u32::try_from(total + 16).is_err() || u32::try_from(symbols.len() + 3).is_err() {
            return Err(ErrorKind::SendTables("symbol table too large".into()));
        }
        tables.symbols.text.reserve(total + 16);
        tables.symbols.ends.reserve(symbols.len() + 3);
        for s in symbols {
            tables.symbols.push(s);
        }
        let added = [
            tables.symbols.push(""),
            tables.symbols.push("simtime"),
            tables.symbols.push("runetime"),
        ];
        // Sized up front (the number of serializers is known): no rehashing.
        let count = serializers.size_hint().0.min(1 << 16);
        let mut by_name: FxHashMap<&str, SerializerId> =
            FxHashMap::with_capacity_and_hasher(count, Default::default());
        let mut by_key = Vec::with_capacity(count);
        for s in serializers {
            let s = s?;
            let (Some(name), Some(name_sym)) = (sym(s.name_sym), s.name_sym) else {
                return Err(ErrorKind::SendTables(
                    "serializer without a name symbol".into(),
                ));
            };
            let version = s.version.unwrap_or(0);
            let id = tables.serializers.len() as SerializerId;
            by_key.push((name_hash(name), version, id));
            // The highest version wins for lookups by name.
            let replace = match by_name.get(name) {
                Some(&old) => tables
                    .serializers
                    .get(old as usize)
                    .is_some_and(|o| o.version <= version),
                None => true,
            };
            if replace {
                by_name.insert(name, id);
            }
            if let Some(&f) = s.fields_index.iter().find(|&&f| f as usize >= field_count) {
                return Err(ErrorKind::SendTables(format!(
                    "serializer {name} refers to missing field {}",
                    f as i32
                )));
            }
            tables.serializers.push(Serializer {
                name: Symbol(name_sym as u32),
                version,
                fields: s.fields_index,
            });
        }
        // A name and version given twice: the later serializer wins, as a
        // map insert would have it. (Ids are unique, so the keys are too and
        // an unstable sort gives the one order.)
        by_key.sort_unstable_by_key(|&(hash, version, id)| (hash, version, std::cmp::Reverse(id)));
        let mut named: Vec<(u64, SerializerId)> = by_name
            .into_iter()
            .map(|(name, id)| (name_hash(name), id))
            .collect();
        named.sort_unstable();
        tables.by_name = named;
        Ok(BuildStage {
            tables,
            message_symbols: symbols.len(),
            added,
            by_key,
            fields,
        })
    }

    /// Number of fields.
    pub(crate) fn field_count(&self) -> usize {
        match &self.fields {
            FieldSource::Spans { spans, .. } => spans.len(),
            FieldSource::Decoded(f) => f.len(),
        }
    }

    /// The serializer named by symbol `name` and `version` (the highest
    /// version when it has none, or none of that version).
    fn lookup(&self, name: Option<i32>, version: Option<i32>) -> Option<SerializerId> {
        let name = self.text(name)?;
        let exact = version.and_then(|v| {
            let key = (name_hash(name), v);
            let first = self.by_key.partition_point(|&(h, v, _)| (h, v) < key);
            self.by_key
                .get(first..)?
                .iter()
                .take_while(|&&(h, v, _)| (h, v) == key)
                .map(|&(_, _, id)| id)
                .find(|&id| self.tables.serializer_name(id) == name)
        });
        exact.or_else(|| self.tables.by_name(name))
    }

    /// The text of a message symbol; `None` for an index outside them.
    #[inline]
    fn text(&self, i: Option<i32>) -> Option<&str> {
        let i = usize::try_from(i?)
            .ok()
            .filter(|&i| i < self.message_symbols)?;
        Some(self.tables.symbols.get(Symbol(i as u32)))
    }

    /// A message symbol; `None` for an index outside them.
    #[inline]
    fn symbol(&self, i: Option<i32>) -> Option<Symbol> {
        let i = usize::try_from(i?)
            .ok()
            .filter(|&i| i < self.message_symbols)?;
        Some(Symbol(i as u32))
    }

    /// Builds the fields in `range`.
    pub(crate) fn build_fields(
        &self,
        range: std::ops::Range<usize>,
        cache: &mut FieldCache,
    ) -> Result<FieldRange, ErrorKind> {
        let mut out = FieldRange {
            fields: Vec::with_capacity(range.len()),
            fallbacks: Vec::new(),
        };
        if cache.type_at.len() != self.message_symbols {
            cache.type_at = vec![0; self.message_symbols];
        }
        match &self.fields {
            FieldSource::Spans { body, spans } => {
                let mut raw = std::mem::take(&mut cache.raw);
                for fi in range {
                    crate::flattened::field_at(body, spans, fi, &mut raw)?;
                    let field = self.build_field(fi, &raw, cache, &mut out.fallbacks)?;
                    out.fields.push(field);
                }
                cache.raw = raw;
            }
            FieldSource::Decoded(fields) => {
                let missing = RawField::default();
                for fi in range {
                    let raw = fields.get(fi).unwrap_or(&missing);
                    let field = self.build_field(fi, raw, cache, &mut out.fallbacks)?;
                    out.fields.push(field);
                }
            }
        }
        Ok(out)
    }

    /// Builds field `fi` from its message `f`.
    #[inline(always)]
    fn build_field(
        &self,
        fi: usize,
        f: &RawField,
        cache: &mut FieldCache,
        fallbacks: &mut Vec<(String, String, String)>,
    ) -> Result<Field, ErrorKind> {
        let name = self.text(f.var_name_sym).unwrap_or("");
        let var_type_str = self.text(f.var_type_sym).unwrap_or("");
        let mut encoder = self.text(f.var_encoder_sym);
        let var_serializer = self.text(f.var_serializer_sym);
        // Simulation and animation times are networked as tick counts
        // (demoinfocs field_patch.go; the var serializers
        // simulationTimeSerializer / animTimeSerializer say the same).
        if matches!(name, "m_flSimulationTime" | "m_flAnimTime")
            || matches!(
                var_serializer,
                Some("simulationTimeSerializer" | "animTimeSerializer")
            )
        {
            encoder = Some("simtime");
        }
        // Dota 2's rune time (manta field_patch.go, all builds).
        if name == "m_flRuneTime" {
            encoder = Some("runetime");
        }
        let params = DecoderParams {
            name,
            encoder,
            var_serializer,
            bit_count: f.bit_count,
            low: f.low_value,
            high: f.high_value,
            flags: f.encode_flags,
        };
        // Many fields share a type: read each type symbol once.
        let vt: TypeInfo = match self
            .symbol(f.var_type_sym)
            .and_then(|s| cache.type_at.get_mut(s.0 as usize))
        {
            Some(at) => match (*at as usize)
                .checked_sub(1)
                .and_then(|k| cache.types.get(k))
            {
                Some(info) => *info,
                None => {
                    let info = TypeInfo::of(var_type_str);
                    cache.types.push(info);
                    *at = cache.types.len() as u32;
                    info
                }
            },
            None => *cache
                .unnamed_type
                .get_or_insert_with(|| TypeInfo::of(var_type_str)),
        };
        // Many fields name the same serializer: look each (symbol,
        // version) pair up by name once.
        let field_serializer = match f.field_serializer_name_sym {
            None => None,
            Some(name_sym) => *cache
                .looked_up
                .entry((name_sym, f.field_serializer_version))
                .or_insert_with(|| self.lookup(Some(name_sym), f.field_serializer_version)),
        };
        let mut fallback = false;
        let model = if !f.polymorphic.is_empty() {
            let mut poly = Vec::with_capacity(f.polymorphic.len());
            for &(poly_name, poly_version) in &f.polymorphic {
                let id = self.lookup(poly_name, poly_version).ok_or_else(|| {
                    ErrorKind::SendTables(format!("field {name}: unknown polymorphic serializer"))
                })?;
                poly.push(id);
            }
            let serializer = field_serializer.or(poly.first().copied()).unwrap_or(0);
            FieldModel::FixedTable { serializer, poly }
        } else if let Some(ser) = field_serializer {
            if vt.pointer_like {
                FieldModel::FixedTable {
                    serializer: ser,
                    poly: Vec::new(),
                }
            } else {
                FieldModel::VariableTable(ser)
            }
        } else if let Some(count) = vt.count {
            if count > MAX_ARRAY_LEN {
                return Err(ErrorKind::SendTables(format!(
                    "field {name}: array of {count} elements"
                )));
            }
            FieldModel::FixedArray {
                len: count,
                element: choose(&vt.kind, &params, false, &mut fallback)?,
            }
        } else if vt.variable_array {
            let element = match &vt.element {
                Some(kind) => choose(kind, &params, true, &mut fallback)?,
                None => {
                    return Err(ErrorKind::SendTables(format!(
                        "field {name}: {var_type_str} has no element type"
                    )))
                }
            };
            FieldModel::VariableArray(element)
        } else {
            FieldModel::Value(choose(&vt.kind, &params, false, &mut fallback)?)
        };
        if fallback {
            // The first serializer that uses the field names it.
            let owner = self
                .tables
                .serializers
                .iter()
                .find(|s| s.fields.contains(&(fi as u32)))
                .map_or("?", |s| self.tables.symbols.get(s.name));
            fallbacks.push((
                owner.to_string(),
                name.to_string(),
                var_type_str.to_string(),
            ));
        }
        let [empty, simtime, runetime] = self.added;
        // The encoder may be one set above, not a symbol of the field.
        let encoder = match encoder {
            Some(e) if self.text(f.var_encoder_sym) == Some(e) => self.symbol(f.var_encoder_sym),
            Some("simtime") => Some(simtime),
            Some("runetime") => Some(runetime),
            Some(_) | None => None,
        };
        Ok(Field {
            name: self.symbol(f.var_name_sym).unwrap_or(empty),
            var_type: self.symbol(f.var_type_sym).unwrap_or(empty),
            encoder,
            model,
            fallback,
        })
    }

    /// [`BuildStage::finish`] on a stage another thread still holds: the
    /// tables are copied.
    fn finish_copy(&self, ranges: Vec<FieldRange>) -> SendTables {
        BuildStage {
            tables: self.tables.clone(),
            message_symbols: self.message_symbols,
            added: self.added,
            by_key: Vec::new(),
            fields: FieldSource::Decoded(Vec::new()),
        }
        .finish(ranges)
    }

    /// The send tables, from the stage and its fields, in order.
    pub(crate) fn finish(self, ranges: Vec<FieldRange>) -> SendTables {
        let mut tables = self.tables;
        let count: usize = ranges.iter().map(|r| r.fields.len()).sum();
        for mut range in ranges {
            if tables.fields.is_empty() {
                // The first range's vector becomes the whole (no copy when
                // there is one range).
                tables.fields = range.fields;
                tables.fields.reserve_exact(count - tables.fields.len());
            } else {
                tables.fields.append(&mut range.fields);
            }
            tables.fallbacks.append(&mut range.fallbacks);
        }
        tables
    }
}

/// Fields per range of a build that two threads share.
const SHARED_RANGE: usize = 64;

/// A send-table build that two threads share: whichever thread comes
/// first (the helper thread, usually) decodes the message and sets up the
/// stage; then both build field ranges, and the parser
/// ([`SharedBuild::join`]) puts them together. So the parser never waits
/// for a helper that has not started yet (one woken late, as an idle
/// core may be), and once the stage is set up it builds fields instead of
/// waiting. Ranges are claimed one at a time from a counter, so whichever
/// thread is free takes the next; the result is the same tables,
/// fallbacks and first error as a build on one thread.
pub(crate) struct SharedBuild {
    /// What makes the message bytes; taken by the thread that sets up the
    /// stage.
    input: std::sync::Mutex<Option<MessageSource>>,
    /// The stage, once set up; [`SharedBuild::join`] takes it out when
    /// every range is built.
    stage: std::sync::Mutex<Option<std::sync::Arc<BuildStage<'static>>>>,
    /// The next range to claim.
    next: std::sync::atomic::AtomicUsize,
    progress: std::sync::Mutex<SharedProgress>,
    changed: std::sync::Condvar,
}

/// Makes the bytes of a `CSVCMsg_FlattenedSerializer` (decompresses a
/// frame and finds the message in it).
pub(crate) type MessageSource = Box<dyn FnOnce() -> Result<Vec<u8>, ErrorKind> + Send>;

#[derive(Default)]
struct SharedProgress {
    /// Set when the stage is ready (`Ok(ranges)`) or failed.
    stage: Option<Result<usize, ErrorKind>>,
    /// Built ranges, by index.
    ranges: Vec<Option<Result<FieldRange, ErrorKind>>>,
    /// The helper's job ended without finishing (it panicked).
    abandoned: bool,
}

/// The helper's hold on a [`SharedBuild`]: marks the build abandoned when
/// it is dropped before its part is done (the job panicked, or was dropped
/// unrun), so that the parser does not wait for what it had taken on.
pub(crate) struct HelperPart {
    build: std::sync::Arc<SharedBuild>,
    done: bool,
}

impl HelperPart {
    /// The helper's part of `build`.
    pub(crate) fn of(build: &std::sync::Arc<SharedBuild>) -> HelperPart {
        HelperPart {
            build: std::sync::Arc::clone(build),
            done: false,
        }
    }

    /// Sets up the stage unless the parser has, then builds ranges until
    /// none is left.
    pub(crate) fn run(mut self) {
        self.build.set_up_stage();
        self.build.build_ranges();
        self.done = true;
    }
}

impl Drop for HelperPart {
    fn drop(&mut self) {
        if !self.done {
            if let Ok(mut p) = self.build.progress.lock() {
                p.abandoned = true;
            }
            self.build.changed.notify_all();
        }
    }
}

impl SharedBuild {
    /// A build of the message `input` makes.
    pub(crate) fn new(input: MessageSource) -> std::sync::Arc<SharedBuild> {
        std::sync::Arc::new(SharedBuild {
            input: std::sync::Mutex::new(Some(input)),
            stage: std::sync::Mutex::new(None),
            next: std::sync::atomic::AtomicUsize::new(0),
            progress: std::sync::Mutex::new(SharedProgress::default()),
            changed: std::sync::Condvar::new(),
        })
    }

    /// Sets up the stage, if no thread has taken that on yet.
    fn set_up_stage(&self) {
        let Some(input) = self.input.lock().ok().and_then(|mut i| i.take()) else {
            return;
        };
        let stage = input().and_then(|m| BuildStage::prepare(std::borrow::Cow::Owned(m)));
        // In this order: a thread that finds the stage finds the slots for
        // its ranges, and one told the stage is ready finds the stage.
        let ranges = match stage {
            Ok(stage) => {
                let ranges = stage.field_count().div_ceil(SHARED_RANGE);
                if let Ok(mut p) = self.progress.lock() {
                    p.ranges = (0..ranges).map(|_| None).collect();
                }
                if let Ok(mut slot) = self.stage.lock() {
                    *slot = Some(std::sync::Arc::new(stage));
                }
                Ok(ranges)
            }
            Err(e) => Err(e),
        };
        if let Ok(mut p) = self.progress.lock() {
            p.stage = Some(ranges);
        }
        self.changed.notify_all();
    }

    /// Whether another thread is setting up the stage right now (so
    /// [`SharedBuild::join`] would wait for it).
    pub(crate) fn stage_in_progress(&self) -> bool {
        let taken = self.input.lock().map_or(true, |i| i.is_none());
        taken
            && self
                .progress
                .lock()
                .is_ok_and(|p| p.stage.is_none() && !p.abandoned)
    }

    /// Waits for the stage, then builds unclaimed ranges until none is
    /// left (returns at once if the stage failed or its thread gave up).
    fn build_ranges(&self) {
        if let Ok(mut p) = self.progress.lock() {
            loop {
                match &p.stage {
                    Some(Ok(_)) => break,
                    Some(Err(_)) => return,
                    None if p.abandoned => return,
                    None => match self.changed.wait(p) {
                        Ok(next) => p = next,
                        Err(_) => return,
                    },
                }
            }
        }
        let Some(stage) = self.stage.lock().ok().and_then(|s| s.clone()) else {
            return;
        };
        let mut cache = FieldCache::default();
        loop {
            let index = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if !self.build_range(&stage, index, &mut cache) {
                return;
            }
        }
    }

    /// Builds range `index` and stores it, unless it is there already;
    /// false when there is no such range.
    fn build_range(&self, stage: &BuildStage<'_>, index: usize, cache: &mut FieldCache) -> bool {
        let start = index.saturating_mul(SHARED_RANGE);
        if start >= stage.field_count() {
            return false;
        }
        let end = (start + SHARED_RANGE).min(stage.field_count());
        let built = stage.build_fields(start..end, cache);
        if let Ok(mut p) = self.progress.lock() {
            if let Some(slot @ None) = p.ranges.get_mut(index) {
                *slot = Some(built);
            }
        }
        self.changed.notify_all();
        true
    }

    /// The parser's part: sets up the stage if the helper has not begun
    /// to (else waits for it), builds ranges with the helper, waits for the
    /// helper's last range, and returns the tables (or the first error, in
    /// field order).
    pub(crate) fn join(&self) -> Result<SendTables, ErrorKind> {
        let failed = || ErrorKind::SendTables("the thread building the send tables failed".into());
        self.set_up_stage();
        {
            let mut p = self.progress.lock().map_err(|_| failed())?;
            loop {
                match &p.stage {
                    Some(Ok(_)) => break,
                    Some(Err(e)) => return Err(e.clone()),
                    None if p.abandoned => return Err(failed()),
                    None => p = self.changed.wait(p).map_err(|_| failed())?,
                }
            }
        }
        self.build_ranges();
        // A range the helper has claimed but not finished (it may be slow
        // to get going: a core woken from idle, fresh allocator pages) is
        // built here too: the parser never waits for one.
        let stage = self
            .stage
            .lock()
            .map_err(|_| failed())?
            .take()
            .ok_or_else(failed)?;
        let missing: Vec<usize> = {
            let p = self.progress.lock().map_err(|_| failed())?;
            p.ranges
                .iter()
                .enumerate()
                .filter(|(_, r)| r.is_none())
                .map(|(i, _)| i)
                .collect()
        };
        let mut cache = FieldCache::default();
        for index in missing {
            self.build_range(&stage, index, &mut cache);
        }
        let ranges = std::mem::take(&mut self.progress.lock().map_err(|_| failed())?.ranges);
        let ranges: Vec<FieldRange> = ranges
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(failed())))
            .collect::<Result<_, _>>()?;
        // The helper may still hold the stage (finishing a range built
        // twice): then the tables are copied from it instead of moved.
        Ok(match std::sync::Arc::try_unwrap(stage) {
            Ok(stage) => stage.finish(ranges),
            Err(shared) => shared.finish_copy(ranges),
        })
    }
}

impl SendTables {
    /// Builds the send tables from a `CDemoSendTables` payload (a varuint32
    /// length, then a `CSVCMsg_FlattenedSerializer`).
    pub fn from_demo_payload(data: &[u8]) -> Result<SendTables, ErrorKind> {
        SendTables::from_message(demo_payload_message(data)?)
    }

    /// Builds the send tables from the bytes of a
    /// `CSVCMsg_FlattenedSerializer` (as `svc_FlattenedSerializer` carries
    /// them, or [`demo_payload_message`] finds them).
    pub fn from_message(body: &[u8]) -> Result<SendTables, ErrorKind> {
        let stage = BuildStage::prepare(std::borrow::Cow::Borrowed(body))?;
        let fields = stage.build_fields(0..stage.field_count(), &mut FieldCache::default())?;
        Ok(stage.finish(vec![fields]))
    }

    /// Builds the send tables from a decoded message.
    pub fn build(msg: &CSvcMsgFlattenedSerializer) -> Result<SendTables, ErrorKind> {
        let symbols: Vec<&str> = msg.symbols.iter().map(String::as_str).collect();
        let serializers = msg
            .serializers
            .iter()
            .map(|s| Ok(RawSerializer::from_generated(s)));
        let fields: Vec<RawField> = msg.fields.iter().map(RawField::from_generated).collect();
        let mut stage = BuildStage::new(
            &symbols,
            serializers,
            fields.len(),
            FieldSource::Decoded(fields),
        )?;
        stage.tables.coord_size_params = msg
            .coord_size_params
            .as_ref()
            .map(CoordSizeParams::from_generated);
        let fields = stage.build_fields(0..stage.field_count(), &mut FieldCache::default())?;
        Ok(stage.finish(vec![fields]))
    }

    /// The text of a symbol (empty for a symbol of other tables).
    #[inline]
    pub fn symbol(&self, s: Symbol) -> &str {
        self.symbols.get(s)
    }

    /// The name of a serializer by id (`?` for an unknown id).
    pub fn serializer_name(&self, id: SerializerId) -> &str {
        self.serializer(id)
            .map(|s| self.symbol(s.name))
            .unwrap_or("?")
    }

    /// The serializer with this name (highest version).
    pub fn by_name(&self, name: &str) -> Option<SerializerId> {
        let hash = name_hash(name);
        let first = self.by_name.partition_point(|&(h, _)| h < hash);
        self.by_name
            .get(first..)?
            .iter()
            .take_while(|&&(h, _)| h == hash)
            .map(|&(_, id)| id)
            .find(|&id| self.serializer_name(id) == name)
    }

    /// A serializer.
    pub fn serializer(&self, id: SerializerId) -> Option<&Serializer> {
        self.serializers.get(id as usize)
    }

    /// The `index`th field of a serializer.
    #[inline]
    pub fn field(&self, ser: SerializerId, index: i32) -> Option<&Field> {
        let s = self.serializers.get(ser as usize)?;
        let fi = *s.fields.get(usize::try_from(index).ok()?)?;
        self.fields.get(fi as usize)
    }

    /// Resolves a field path to its decoder. `poly_index(prefix_len)` gives the
    /// stored value at the first `prefix_len` indices: the type index of a
    /// polymorphic pointer, or the current length of a variable array or
    /// table (an element index must be below it, which bounds memory).
    #[inline]
    pub fn resolve<'s>(
        &'s self,
        root: SerializerId,
        fp: &FieldPath,
        poly_index: impl FnMut(usize) -> Option<u32>,
    ) -> Result<&'s FieldDecoder, String> {
        self.resolve_with_parent(root, fp, poly_index)
            .map(|(d, _)| d)
    }

    /// [`SendTables::resolve`], also giving what the path's last index
    /// selects in: a path that differs only in its last index resolves
    /// through the same parent (see [`LastParent::resolve`]).
    #[inline]
    pub(crate) fn resolve_with_parent<'s>(
        &'s self,
        root: SerializerId,
        fp: &FieldPath,
        mut poly_index: impl FnMut(usize) -> Option<u32>,
    ) -> Result<(&'s FieldDecoder, LastParent<'s>), String> {
        const LENGTH: FieldDecoder = FieldDecoder::ArrayLength;
        const POINTER: FieldDecoder = FieldDecoder::PointerPresent;
        const POLY: FieldDecoder = FieldDecoder::PolyPointer;
        let path = fp.as_slice();
        let last = path.len() - 1;
        let mut ser = root;
        let mut i = 0usize;
        loop {
            let index = path.get(i).copied().unwrap_or(-1);
            let field = self.field(ser, index).ok_or_else(|| {
                format!(
                    "index {index} at depth {i} is outside serializer {}",
                    self.serializer_name(ser)
                )
            })?;
            match &field.model {
                FieldModel::Value(d) => {
                    return if i == last {
                        Ok((d, LastParent::Fields(ser)))
                    } else {
                        Err(format!(
                            "path continues past value field {}",
                            self.symbol(field.name)
                        ))
                    };
                }
                FieldModel::FixedArray { len, element } => {
                    let elem = path.get(i + 1).copied().unwrap_or(-1);
                    return if i + 1 == last && elem >= 0 && (elem as u32) < *len {
                        Ok((
                            element,
                            LastParent::Elements {
                                decoder: element,
                                bound: *len,
                            },
                        ))
                    } else {
                        Err(format!(
                            "bad element path into fixed array {} of {len}",
                            self.symbol(field.name)
                        ))
                    };
                }
                FieldModel::VariableArray(element) => {
                    if i == last {
                        return Ok((&LENGTH, LastParent::Fields(ser)));
                    }
                    let elem = path.get(i + 1).copied().unwrap_or(-1);
                    let len = poly_index(i + 1)
                        .unwrap_or(MAX_ARRAY_LEN)
                        .min(MAX_ARRAY_LEN);
                    return if i + 1 == last && elem >= 0 && (elem as u32) < len {
                        Ok((
                            element,
                            LastParent::Elements {
                                decoder: element,
                                bound: len,
                            },
                        ))
                    } else {
                        Err(format!(
                            "bad element path into variable array {}",
                            self.symbol(field.name)
                        ))
                    };
                }
                FieldModel::FixedTable { serializer, poly } => {
                    if i == last {
                        let d = if poly.is_empty() { &POINTER } else { &POLY };
                        return Ok((d, LastParent::Fields(ser)));
                    }
                    ser = if poly.is_empty() {
                        *serializer
                    } else {
                        let idx = poly_index(i + 1).unwrap_or(0);
                        match idx.checked_sub(1).and_then(|k| poly.get(k as usize)) {
                            Some(&s) => s,
                            None => *serializer,
                        }
                    };
                    i += 1;
                }
                FieldModel::VariableTable(s) => {
                    if i == last {
                        return Ok((&LENGTH, LastParent::Fields(ser)));
                    }
                    let elem = path.get(i + 1).copied().unwrap_or(-1);
                    let len = poly_index(i + 1)
                        .unwrap_or(MAX_ARRAY_LEN)
                        .min(MAX_ARRAY_LEN);
                    if elem < 0 || elem as u32 >= len || i + 1 == last {
                        return Err(format!(
                            "bad element path into variable table {}",
                            self.symbol(field.name)
                        ));
                    }
                    ser = *s;
                    i += 2;
                }
            }
        }
    }

    /// The name a value's path has in the schema, the same for every
    /// element and every entity of a class: nested tables named by their
    /// serializer (`CCSPlayer_CameraServices.m_iFOV`,
    /// `CCSPlayerController_ActionTrackingServices.CSPerRoundStats_t.m_iKills`),
    /// array elements by the array (`m_iAmmo`). This is how demoparser2
    /// names props, and the prop names of analyst tables accept table
    /// parts spelt so. `None` when the path does not resolve or ends at an array
    /// length or a pointer (not a value). `poly_index` as in
    /// [`SendTables::path_name`].
    pub fn schema_name(
        &self,
        root: SerializerId,
        fp: &FieldPath,
        poly_index: impl FnMut(usize) -> Option<u32>,
    ) -> Option<String> {
        self.name_of(root, fp, poly_index, true)
    }

    /// The dotted name of a field path (`CBodyComponent.m_cellX`,
    /// `m_iAmmo.0003`), or `None` if the path does not resolve.
    pub fn path_name(
        &self,
        root: SerializerId,
        fp: &FieldPath,
        poly_index: impl FnMut(usize) -> Option<u32>,
    ) -> Option<String> {
        self.name_of(root, fp, poly_index, false)
    }

    /// [`SendTables::schema_name`] (`schema`) or [`SendTables::path_name`]:
    /// one walk down the path, naming each step.
    fn name_of(
        &self,
        root: SerializerId,
        fp: &FieldPath,
        mut poly_index: impl FnMut(usize) -> Option<u32>,
        schema: bool,
    ) -> Option<String> {
        let path = fp.as_slice();
        let mut out = String::new();
        let mut ser = root;
        let mut i = 0usize;
        while i < path.len() {
            let field = self.field(ser, path[i])?;
            if !out.is_empty() {
                out.push('.');
            }
            match &field.model {
                FieldModel::Value(_) => {
                    out.push_str(self.symbol(field.name));
                    return (!schema || i + 1 == path.len()).then_some(out);
                }
                FieldModel::FixedArray { .. } | FieldModel::VariableArray(_) => {
                    out.push_str(self.symbol(field.name));
                    let element = path.get(i + 1);
                    if schema {
                        // The element, not the length.
                        return (i + 2 == path.len()).then_some(out);
                    }
                    if let Some(e) = element {
                        out.push_str(&format!(".{e:04}"));
                    }
                    return Some(out);
                }
                FieldModel::FixedTable { serializer, poly } => {
                    ser = if poly.is_empty() {
                        *serializer
                    } else {
                        poly_index(i + 1)
                            .and_then(|k| k.checked_sub(1))
                            .and_then(|k| poly.get(k as usize).copied())
                            .unwrap_or(*serializer)
                    };
                    out.push_str(if schema {
                        self.serializer_name(ser)
                    } else {
                        self.symbol(field.name)
                    });
                    i += 1;
                }
                FieldModel::VariableTable(s) => {
                    ser = *s;
                    if schema {
                        out.push_str(self.serializer_name(ser));
                    } else {
                        out.push_str(self.symbol(field.name));
                        if let Some(e) = path.get(i + 1) {
                            out.push_str(&format!(".{e:04}"));
                        }
                    }
                    i += 2;
                }
            }
        }
        (!schema).then_some(out)
    }
}

/// What the last index of a resolved path selects in (from
/// [`SendTables::resolve_with_parent`]): most paths of an update differ
/// from the one before only in their last index, and such a path resolves
/// through the same parent, since everything that shapes the walk (an
/// array's length, a pointer's type) sits on the shared prefix, which only
/// a shorter path can change.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LastParent<'s> {
    /// A field of this serializer.
    Fields(SerializerId),
    /// An element of an array of `bound` elements.
    Elements {
        decoder: &'s FieldDecoder,
        bound: u32,
    },
}

impl<'s> LastParent<'s> {
    /// The decoder of last index `index` under this parent, when that is a
    /// value the full walk would give too: an element within the bound, or
    /// a value field. `None` for anything else (a structural field, an
    /// index out of range), which the full walk then resolves or reports.
    #[inline]
    pub(crate) fn resolve(self, tables: &'s SendTables, index: i32) -> Option<&'s FieldDecoder> {
        match self {
            LastParent::Elements { decoder, bound } => {
                (index >= 0 && (index as u32) < bound).then_some(decoder)
            }
            LastParent::Fields(ser) => match &tables.field(ser, index)?.model {
                FieldModel::Value(d) => Some(d),
                _ => None,
            },
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn declared_coord_sizes_other_than_the_seeds_are_kept_and_warned_about() {
        use prost::Message;
        use source2_demo_protobufs::{CDemoSendTables, ProtoCoordSizeParamsT};
        let seeds = ProtoCoordSizeParamsT {
            coord_integer_bits: Some(14),
            coord_fractional_bits: Some(5),
            normal_fractional_bits: Some(11),
            angle_bits: Some(16),
            ..Default::default()
        };
        let other = ProtoCoordSizeParamsT {
            coord_integer_bits: Some(12),
            coord_fractional_bits: Some(5),
            normal_fractional_bits: Some(9),
            ..Default::default()
        };
        // A demo of one DEM_SendTables frame and DEM_Stop.
        let demo = |params: Option<ProtoCoordSizeParamsT>| {
            let msg = CSvcMsgFlattenedSerializer {
                coord_size_params: params,
                ..Default::default()
            }
            .encode_to_vec();
            let mut data = Vec::new();
            prost::encoding::encode_varint(msg.len() as u64, &mut data);
            data.extend_from_slice(&msg);
            let payload = CDemoSendTables { data: Some(data) }.encode_to_vec();
            let mut demo = crate::container::MAGIC_SOURCE2.to_vec();
            demo.resize(crate::container::HEADER_LEN, 0);
            for (command, body) in [(4u8, payload.as_slice()), (0, &[][..])] {
                demo.push(command);
                demo.push(0);
                prost::encoding::encode_varint(body.len() as u64, &mut demo);
                demo.extend_from_slice(body);
            }
            (msg, demo)
        };
        let (msg, _) = demo(Some(other));
        let tables = SendTables::from_message(&msg).unwrap();
        let declared = tables.coord_size_params.unwrap();
        assert_eq!(declared.coord_integer_bits, Some(12));
        assert_eq!(
            declared.differences(),
            vec![
                ("coord_integer_bits", 12, 14),
                ("normal_fractional_bits", 9, 11)
            ]
        );
        // The generated type's build says the same.
        let generated =
            SendTables::build(&CSvcMsgFlattenedSerializer::decode(msg.as_slice()).unwrap())
                .unwrap();
        assert_eq!(generated.coord_size_params, tables.coord_size_params);
        for helper in [false, true] {
            let warnings = |params| {
                let (_, demo) = demo(params);
                let mut parser = crate::DemoParser::new(&demo)
                    .unwrap()
                    .with_helper_thread(helper);
                parser.run(&mut crate::NoVisitor).unwrap();
                parser
                    .state
                    .warnings
                    .iter()
                    .map(|w| w.message.clone())
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                warnings(Some(other)),
                vec![
                    "the send tables declare coord_integer_bits 12; values are read with 14, as seed 001 gives it",
                    "the send tables declare normal_fractional_bits 9; values are read with 11, as seed 001 gives it",
                ],
                "helper {helper}"
            );
            assert!(warnings(Some(seeds)).is_empty(), "helper {helper}");
            assert!(warnings(None).is_empty(), "helper {helper}");
        }
    }

    /// A message of `n` fields in two serializers: values of several types,
    /// fixed and variable arrays, a nested table by name and version, a
    /// polymorphic pointer, an unknown type (a fallback); `bad` fields are
    /// arrays too long to build.
    fn synthetic_message(n: usize, bad: &[usize]) -> Vec<u8> {
        use prost::Message;
        use source2_demo_protobufs::proto_flattened_serializer_field_t::PolymorphicFieldT;
        use source2_demo_protobufs::{ProtoFlattenedSerializerFieldT, ProtoFlattenedSerializerT};
        let symbols: Vec<String> = [
            "CRoot",
            "CInner",
            "int32",
            "float32",
            "uint16[4]",
            "CUtlVector< uint32 >",
            "CInner*",
            "CMysteryType",
            "int32[99999]",
            "coord",
            "m_flSimulationTime",
            "CUtlVectorEmbeddedNetworkVar< CInner >",
            "CInner",
            "m_x",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let fields = (0..n)
            .map(|i| {
                let mut f = ProtoFlattenedSerializerFieldT {
                    var_name_sym: Some(if i % 11 == 0 { 10 } else { 13 }),
                    var_type_sym: Some([2, 3, 4, 5, 6, 7, 11][i % 7]),
                    ..Default::default()
                };
                match i % 7 {
                    1 => {
                        f.bit_count = Some(10);
                        f.low_value = Some(-1.0);
                        f.high_value = Some(1.0);
                        f.var_encoder_sym = (i % 3 == 0).then_some(9);
                    }
                    4 => {
                        f.field_serializer_name_sym = Some(12);
                        f.field_serializer_version = Some(if i % 2 == 0 { 2 } else { 7 });
                        if i % 3 == 0 {
                            f.polymorphic_types = vec![PolymorphicFieldT {
                                polymorphic_field_serializer_name_sym: Some(1),
                                polymorphic_field_serializer_version: Some(1),
                            }];
                        }
                    }
                    6 => f.field_serializer_name_sym = Some(1),
                    _ => {}
                }
                if bad.contains(&i) {
                    f.var_type_sym = Some(8);
                    f.field_serializer_name_sym = None;
                    f.polymorphic_types.clear();
                }
                f
            })
            .collect();
        let half = (n / 2) as i32;
        CSvcMsgFlattenedSerializer {
            serializers: vec![
                ProtoFlattenedSerializerT {
                    serializer_name_sym: Some(1),
                    serializer_version: Some(1),
                    fields_index: (0..half).collect(),
                },
                ProtoFlattenedSerializerT {
                    serializer_name_sym: Some(12),
                    serializer_version: Some(2),
                    fields_index: (half..n as i32).collect(),
                },
                ProtoFlattenedSerializerT {
                    serializer_name_sym: Some(0),
                    serializer_version: Some(0),
                    fields_index: (0..n as i32).rev().collect(),
                },
            ],
            symbols,
            fields,
            ..Default::default()
        }
        .encode_to_vec()
    }

    fn describe(t: &Result<SendTables, ErrorKind>) -> String {
        match t {
            Ok(t) => format!(
                "{:?} {:?} {:?} {:?} {:?}",
                t.serializers, t.fields, t.fallbacks, t.by_name, t.symbols
            ),
            Err(e) => format!("error: {e}"),
        }
    }

    /// Runs the helper's part on a thread of its own, after `delay`, and
    /// joins on another (after `join_after`); making the message takes
    /// `slow` (so one thread arrives while the other sets the stage up).
    /// A join that does not end within ten seconds fails the test.
    fn shared_slow(
        message: Result<Vec<u8>, ErrorKind>,
        delay: std::time::Duration,
        join_after: std::time::Duration,
        slow: std::time::Duration,
    ) -> Result<SendTables, ErrorKind> {
        let build = SharedBuild::new(Box::new(move || {
            std::thread::sleep(slow);
            message
        }));
        let part = HelperPart::of(&build);
        let helper = std::thread::spawn(move || {
            std::thread::sleep(delay);
            part.run();
        });
        let (tx, rx) = std::sync::mpsc::channel();
        let joiner = std::thread::spawn(move || {
            std::thread::sleep(join_after);
            let _ = tx.send(build.join());
        });
        let tables = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the join did not end");
        helper.join().unwrap();
        joiner.join().unwrap();
        tables
    }

    fn shared_with(
        message: Result<Vec<u8>, ErrorKind>,
        delay: std::time::Duration,
        join_after: std::time::Duration,
    ) -> Result<SendTables, ErrorKind> {
        shared_slow(message, delay, join_after, std::time::Duration::ZERO)
    }

    fn shared(
        message: Result<Vec<u8>, ErrorKind>,
        delay: std::time::Duration,
    ) -> Result<SendTables, ErrorKind> {
        shared_with(message, delay, std::time::Duration::ZERO)
    }

    #[test]
    fn a_shared_build_equals_one_thread() {
        for n in [0, 1, 63, 64, 65, 300, 1000] {
            let body = synthetic_message(n, &[]);
            let alone = SendTables::from_message(&body);
            assert!(alone.is_ok(), "{n}: {}", describe(&alone));
            if n > 5 {
                // Field 5 is of the unknown type.
                assert!(!alone.as_ref().unwrap().fallbacks.is_empty());
            }
            for delay in [0, 50, 500] {
                let delay = std::time::Duration::from_micros(delay);
                let got = shared(Ok(body.clone()), delay);
                assert_eq!(describe(&got), describe(&alone), "{n} fields, {delay:?}");
            }
        }
    }

    #[test]
    fn a_shared_build_reports_the_first_error_in_field_order() {
        for bad in [&[5][..], &[700], &[130, 5, 900], &[999]] {
            let body = synthetic_message(1000, bad);
            let alone = SendTables::from_message(&body);
            assert!(alone.is_err());
            for delay in [0, 200] {
                let got = shared(Ok(body.clone()), std::time::Duration::from_micros(delay));
                assert_eq!(describe(&got), describe(&alone), "{bad:?}");
            }
        }
        // An error in the message's top level, and one before it.
        let body = synthetic_message(100, &[]);
        let cut = &body[..body.len() / 2];
        let alone = SendTables::from_message(cut);
        assert!(alone.is_err());
        assert_eq!(
            describe(&shared(Ok(cut.to_vec()), Default::default())),
            describe(&alone)
        );
        let early = ErrorKind::SendTables("no message".into());
        assert_eq!(
            describe(&shared(Err(early.clone()), Default::default())),
            describe(&Err(early))
        );
    }

    #[test]
    fn a_shared_build_equals_one_thread_whoever_sets_it_up() {
        let body = synthetic_message(500, &[]);
        let alone = describe(&SendTables::from_message(&body));
        let us = std::time::Duration::from_micros;
        // The helper first, the parser first, both at once; and each
        // arriving while the other sets the stage up.
        for (delay, join_after, slow) in [
            (0, 2000, 0),
            (2000, 0, 0),
            (0, 0, 0),
            (0, 1000, 3000),
            (1000, 0, 3000),
        ] {
            let got = shared_slow(Ok(body.clone()), us(delay), us(join_after), us(slow));
            assert_eq!(describe(&got), alone, "{delay} {join_after} {slow}");
        }
    }

    /// A shared build of the message `body`.
    fn build_of(body: &[u8]) -> std::sync::Arc<SharedBuild> {
        let body = body.to_vec();
        SharedBuild::new(Box::new(move || Ok(body)))
    }

    #[test]
    fn a_helper_part_dropped_unrun_leaves_the_build_to_the_parser() {
        let body = synthetic_message(300, &[]);
        let build = build_of(&body);
        let part = HelperPart::of(&build);
        let dropper = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(2));
            drop(part);
        });
        let got = build.join();
        dropper.join().unwrap();
        assert_eq!(describe(&got), describe(&SendTables::from_message(&body)));
    }

    #[test]
    fn the_parser_builds_the_range_a_helper_is_stuck_on() {
        let body = synthetic_message(300, &[]);
        let build = build_of(&body);
        build.set_up_stage();
        // A helper stuck in range 0: it has claimed the range and holds the
        // stage. The join neither waits for it nor needs the stage back.
        let held = build.stage.lock().unwrap().clone().unwrap();
        build
            .next
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let got = build.join();
        assert_eq!(describe(&got), describe(&SendTables::from_message(&body)));
        // What the helper stores when it is done goes nowhere.
        assert!(build.build_range(&held, 0, &mut FieldCache::default()));
        assert!(build.progress.lock().unwrap().ranges.is_empty());
    }

    #[test]
    fn a_helper_that_fails_setting_up_fails_the_join() {
        let (taken, wait) = std::sync::mpsc::channel::<()>();
        let build = SharedBuild::new(Box::new(move || {
            let _ = taken.send(());
            std::thread::sleep(std::time::Duration::from_millis(5));
            panic!("the message could not be made");
        }));
        let part = HelperPart::of(&build);
        let helper = std::thread::spawn(move || part.run());
        // The helper has taken the message on: the parser waits for it.
        wait.recv().unwrap();
        let got = build.join();
        assert!(helper.join().is_err());
        assert_eq!(
            describe(&got),
            "error: send tables: the thread building the send tables failed"
        );
    }

    #[test]
    fn var_type_grammar() {
        let t = VarType::parse("CNetworkUtlVectorBase< CHandle< CBaseEntity > >");
        assert_eq!(t.base, "CNetworkUtlVectorBase");
        let g = t.generic.unwrap();
        assert_eq!(g.base, "CHandle");
        assert_eq!(g.generic.unwrap().base, "CBaseEntity");
        let t = VarType::parse("CCSGameModeRules*");
        assert!(t.pointer);
        assert_eq!(t.base, "CCSGameModeRules");
        let t = VarType::parse("uint16[64]");
        assert_eq!(t.count, Some(64));
        let t = VarType::parse("item_definition_index_t[MAX_ITEM_STOCKS]");
        assert_eq!(t.count, Some(8));
        let t = VarType::parse("char[128]");
        assert_eq!((t.base.as_str(), t.count), ("char", Some(128)));
        let t = VarType::parse("float32[SOMETHING]");
        assert_eq!(t.count, Some(1024));
    }
}
