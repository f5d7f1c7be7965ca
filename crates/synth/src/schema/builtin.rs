//! The built-in CS2 schema: the declarations a demo needs when no real demo
//! lends its own, so that a demo can be made from nothing.
//!
//! A CS2 demo declares, before its first tick:
//!
//! - the file header (`CDemoFileHeader`): the game directory (`csgo`), the
//!   network protocol (`patch_version`) and the game build (`build_num`);
//! - `svc_ServerInfo`: the tick interval (1/64 s), the number of server
//!   classes (which sets the bits of a class id in entity records:
//!   `log2(max_classes) + 1`) and the game directory again;
//! - the send tables (`CSVCMsg_FlattenedSerializer`): a symbol table (every
//!   name and type is an index into it), a list of fields, and a list of
//!   serializers, each a name, a version and the indices of its fields in
//!   network order. A field's *field path* is its position in that list,
//!   so the same field name has a different path in the built-in schema
//!   than in a real build; readers find fields by name;
//! - the class list (`CDemoClassInfo`): class id → network name, where the
//!   network name is also the name of the class's serializer;
//! - the game-event list (`CMsgSource1LegacyGameEventList`): each event's
//!   id, name and keys, a key being a name and a value type (1 string,
//!   2 float, 3 long, 4 short, 5 byte, 6 bool, 7 uint64, 8 a pawn's entity
//!   handle, 9 a player slot).
//!
//! Each field carries what a reader needs to pick its decoder: `var_type`
//! (`CNetworkedQuantizedFloat`, `CHandle< CBaseEntity >`, `char[128]`,
//! `CNetworkUtlVectorBase< uint32 >`), an optional `var_encoder`
//! (`coord`, `qangle_precise`, `fixed64`), the bit count, the low and high
//! value and the encode flags of quantized floats, a nested serializer for
//! tables (`m_pWeaponServices` → `CCSPlayer_WeaponServices`), the
//! polymorphic types a pointer may hold, the `var_serializer` (Valve's
//! name for the field's network serializer: `cellx`, `ehandle`,
//! `animTimeSerializer`) and the `send_node` (the C++ member the field was
//! flattened out of: `m_vecViewOffset`, `m_AttributeManager.m_Item`).
//!
//! What this schema holds is the part of CS2's that the analyst tables and
//! demoparser2 read (see `docs/formats/synth-schema.md`): the player
//! controller and pawn with their services, the game rules, the teams, a
//! representative set of weapons, the grenade projectiles, fires and the
//! planted bomb. Every name, type, encoder, bit count, range, flag and
//! nesting is CS2's own, as the corpus demo of protocol 14155 / build
//! 10772 declares it (demofile-net's `14155.dem`); a test compares each of
//! them with the schema of every CS2 corpus demo. Fields are listed in the
//! order CS2 lists them, with the fields no table reads left out.

mod classes;
mod events;

use source2_demo_protobufs as pb;

use super::Schema;
use classes::*;

/// The network protocol of the CS2 build whose schema this is
/// (`CDemoFileHeader.patch_version`, `svc_ServerInfo.protocol`).
pub const NETWORK_PROTOCOL: i32 = 14155;
/// The game build (`CDemoFileHeader.build_num`) of that CS2 build.
pub const BUILD_NUM: i32 = 10772;
/// Seconds per tick: CS2 servers run at 64 ticks per second.
pub const TICK_INTERVAL: f32 = 1.0 / 64.0;
/// The game directory that marks a demo as CS2's.
pub const GAME_DIRECTORY: &str = "csgo";

/// One field of a serializer, as `ProtoFlattenedSerializerField_t` holds
/// it (with names in place of symbol indices). `None` is a value the
/// message leaves out, as CS2 leaves it out.
#[derive(Debug, Clone, Copy, PartialEq)]
struct FieldDef {
    name: &'static str,
    var_type: &'static str,
    encoder: Option<&'static str>,
    bits: Option<i32>,
    low: Option<f32>,
    high: Option<f32>,
    flags: Option<i32>,
    /// A nested serializer: name and version.
    table: Option<(&'static str, i32)>,
    /// The serializers a polymorphic pointer may hold.
    poly: &'static [(&'static str, i32)],
    var_serializer: Option<&'static str>,
    /// CS2 gives every field a send node, most of them empty.
    send_node: Option<&'static str>,
}

/// A field of this name and type, everything else left out.
const fn f(name: &'static str, var_type: &'static str) -> FieldDef {
    FieldDef {
        name,
        var_type,
        encoder: None,
        bits: None,
        low: None,
        high: None,
        flags: None,
        table: None,
        poly: &[],
        var_serializer: None,
        send_node: Some(""),
    }
}

impl FieldDef {
    const fn enc(mut self, encoder: &'static str) -> Self {
        self.encoder = Some(encoder);
        self
    }
    const fn bits(mut self, bits: i32) -> Self {
        self.bits = Some(bits);
        self
    }
    const fn high(mut self, high: f32) -> Self {
        self.high = Some(high);
        self
    }
    const fn flags(mut self, flags: i32) -> Self {
        self.flags = Some(flags);
        self
    }
    const fn table(mut self, name: &'static str, version: i32) -> Self {
        self.table = Some((name, version));
        self
    }
    const fn poly(mut self, types: &'static [(&'static str, i32)]) -> Self {
        self.poly = types;
        self
    }
    const fn var_ser(mut self, name: &'static str) -> Self {
        self.var_serializer = Some(name);
        self
    }
    const fn node(mut self, node: &'static str) -> Self {
        self.send_node = Some(node);
        self
    }
}

/// A serializer: its name, version and fields (runs of [`FieldDef`]s, in
/// order; classes of one family share runs, as CS2's share fields).
struct SerializerDef {
    name: &'static str,
    version: i32,
    fields: &'static [&'static [FieldDef]],
    /// Whether it is an entity class (listed in the class info) rather than
    /// a serializer only nested in others.
    class: bool,
}

const fn nested(
    name: &'static str,
    version: i32,
    fields: &'static [&'static [FieldDef]],
) -> SerializerDef {
    SerializerDef {
        name,
        version,
        fields,
        class: false,
    }
}

const fn class(name: &'static str, fields: &'static [&'static [FieldDef]]) -> SerializerDef {
    SerializerDef {
        name,
        version: 0,
        fields,
        class: true,
    }
}

/// Every serializer, nested ones before the serializers that hold them
/// (as CS2 orders them: a reader may resolve a nested serializer when it
/// meets the field).
const SERIALIZERS: &[SerializerDef] = &[
    nested("CBodyComponentBaseAnimGraph", 0, &[BODY_ANIMGRAPH_0]),
    nested("CBodyComponentBaseAnimGraph", 1, &[BODY_ANIMGRAPH_1]),
    nested("CBodyComponentBaseAnimGraph", 3, &[BODY_ANIMGRAPH_3]),
    nested("CBodyComponentBaseModelEntity", 0, &[BODY_MODEL_ENTITY_0]),
    nested(
        "CCSPlayerController_InGameMoneyServices",
        0,
        &[MONEY_SERVICES],
    ),
    nested(
        "CCSPlayerController_InventoryServices",
        0,
        &[INVENTORY_SERVICES],
    ),
    nested("CSPerRoundStats_t", 0, &[PER_ROUND_STATS]),
    nested(
        "CCSPlayerController_ActionTrackingServices",
        0,
        &[ACTION_TRACKING_SERVICES],
    ),
    nested("CCSPlayer_WeaponServices", 0, &[WEAPON_SERVICES]),
    nested("CCSPlayer_ItemServices", 0, &[ITEM_SERVICES]),
    nested("CCSPlayer_MovementServices", 0, &[MOVEMENT_SERVICES]),
    nested("CCSGameModeRules", 0, &[]),
    nested("CCSGameModeRules_ArmsRace", 0, &[GAME_MODE_RULES_ARMS_RACE]),
    nested(
        "CCSGameModeRules_Deathmatch",
        0,
        &[GAME_MODE_RULES_DEATHMATCH],
    ),
    nested("CCSGameModeRules_Noop", 0, &[]),
    nested("CCSGameRules", 0, &[RULES]),
    class("CAK47", &[WEAPON_BASE, GUN, WEAPON_TAIL]),
    class("CC4", &[WEAPON_BASE, C4, WEAPON_TAIL]),
    class("CCSGameRulesProxy", &[RULES_PROXY]),
    class("CCSPlayerController", &[CONTROLLER]),
    class("CCSPlayerPawn", &[PAWN]),
    class("CCSTeam", &[TEAM]),
    class("CDEagle", &[WEAPON_BASE, GUN, WEAPON_TAIL]),
    class("CDecoyGrenade", &[WEAPON_BASE, GRENADE, WEAPON_TAIL]),
    class("CDecoyProjectile", &[PROJECTILE, DECOY_PROJECTILE]),
    class("CFlashbang", &[WEAPON_BASE, GRENADE, WEAPON_TAIL]),
    class("CFlashbangProjectile", &[PROJECTILE]),
    class("CHEGrenade", &[WEAPON_BASE, GRENADE, WEAPON_TAIL]),
    class("CHEGrenadeProjectile", &[PROJECTILE]),
    class("CIncendiaryGrenade", &[WEAPON_BASE, GRENADE, WEAPON_TAIL]),
    class("CInferno", &[INFERNO]),
    class("CKnife", &[WEAPON_BASE, WEAPON_TAIL]),
    class("CMolotovGrenade", &[WEAPON_BASE, GRENADE, WEAPON_TAIL]),
    class("CMolotovProjectile", &[PROJECTILE, MOLOTOV_PROJECTILE]),
    class("CPlantedC4", &[PLANTED_C4]),
    class("CSmokeGrenade", &[WEAPON_BASE, GRENADE, WEAPON_TAIL]),
    class("CSmokeGrenadeProjectile", &[PROJECTILE, SMOKE_PROJECTILE]),
    class("CWeaponAWP", &[WEAPON_BASE, GUN, WEAPON_TAIL]),
    class("CWeaponGlock", &[WEAPON_BASE, GUN, WEAPON_TAIL]),
    class("CWeaponHKP2000", &[WEAPON_BASE, GUN, WEAPON_TAIL]),
    class("CWeaponM4A1", &[WEAPON_BASE, GUN, WEAPON_TAIL]),
    class("CWeaponM4A1Silencer", &[WEAPON_BASE, GUN, WEAPON_TAIL]),
    class("CWeaponUSPSilencer", &[WEAPON_BASE, GUN, WEAPON_TAIL]),
];

/// The built-in CS2 schema: header, server info, send tables, class info
/// and game events of the classes, fields and events the analyst tables
/// and demoparser2 read, as CS2 build [`BUILD_NUM`] declares them. The
/// map and server names are left empty (the scenario sets them).
pub fn builtin() -> Schema {
    let send_tables = send_tables();
    let class_info = class_info();
    Schema {
        header: header(),
        server_info: server_info(class_info.classes.len()),
        send_tables,
        class_info,
        game_events: game_events(),
    }
}

fn header() -> pb::CDemoFileHeader {
    pb::CDemoFileHeader {
        demo_file_stamp: "PBDEMS2\0".into(),
        patch_version: Some(NETWORK_PROTOCOL),
        server_name: Some(String::new()),
        client_name: Some("SourceTV Demo".into()),
        map_name: Some(String::new()),
        game_directory: Some(GAME_DIRECTORY.into()),
        fullpackets_version: Some(2),
        allow_clientside_entities: Some(true),
        allow_clientside_particles: Some(true),
        addons: Some(String::new()),
        // The demo format's version, the same in every Source 2 demo.
        demo_version_name: Some("valve_demo_2".into()),
        demo_version_guid: Some("8e9d71ab-04a1-4c01-bb61-acfede27c046".into()),
        build_num: Some(BUILD_NUM),
        game: None,
        server_start_tick: Some(0),
    }
}

fn server_info(classes: usize) -> pb::CSvcMsgServerInfo {
    pb::CSvcMsgServerInfo {
        protocol: Some(NETWORK_PROTOCOL),
        server_count: Some(1),
        is_dedicated: Some(true),
        is_hltv: Some(true),
        max_clients: Some(64),
        max_classes: Some(i32::try_from(classes).unwrap_or(i32::MAX)),
        tick_interval: Some(TICK_INTERVAL),
        game_dir: Some(GAME_DIRECTORY.into()),
        map_name: Some(String::new()),
        host_name: Some(String::new()),
        addon_name: Some(String::new()),
        ..Default::default()
    }
}

/// Interns symbols in order of first use.
#[derive(Default)]
struct Symbols {
    list: Vec<String>,
    index: std::collections::HashMap<&'static str, i32>,
}

impl Symbols {
    fn get(&mut self, s: &'static str) -> i32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = i32::try_from(self.list.len()).unwrap_or(i32::MAX);
        self.list.push(s.to_string());
        self.index.insert(s, i);
        i
    }
}

fn field_message(d: &FieldDef, sym: &mut Symbols) -> pb::ProtoFlattenedSerializerFieldT {
    use pb::proto_flattened_serializer_field_t::PolymorphicFieldT;
    pb::ProtoFlattenedSerializerFieldT {
        var_type_sym: Some(sym.get(d.var_type)),
        var_name_sym: Some(sym.get(d.name)),
        bit_count: d.bits,
        low_value: d.low,
        high_value: d.high,
        encode_flags: d.flags,
        field_serializer_name_sym: d.table.map(|(n, _)| sym.get(n)),
        field_serializer_version: d.table.map(|(_, v)| v),
        send_node_sym: d.send_node.map(|n| sym.get(n)),
        var_encoder_sym: d.encoder.map(|e| sym.get(e)),
        polymorphic_types: d
            .poly
            .iter()
            .map(|&(n, v)| PolymorphicFieldT {
                polymorphic_field_serializer_name_sym: Some(sym.get(n)),
                polymorphic_field_serializer_version: Some(v),
            })
            .collect(),
        var_serializer_sym: d.var_serializer.map(|s| sym.get(s)),
        var_enum_info: None,
    }
}

/// The send tables: each distinct field once (serializers that share a
/// field share its index, as in CS2's message).
fn send_tables() -> pb::CSvcMsgFlattenedSerializer {
    let mut sym = Symbols::default();
    let mut fields: Vec<pb::ProtoFlattenedSerializerFieldT> = Vec::new();
    let mut seen: Vec<(&FieldDef, i32)> = Vec::new();
    let mut serializers = Vec::with_capacity(SERIALIZERS.len());
    for s in SERIALIZERS {
        let name = sym.get(s.name);
        let mut indices = Vec::new();
        for d in s.fields.iter().flat_map(|run| run.iter()) {
            let index = match seen.iter().find(|(other, _)| *other == d) {
                Some(&(_, i)) => i,
                None => {
                    let i = i32::try_from(fields.len()).unwrap_or(i32::MAX);
                    fields.push(field_message(d, &mut sym));
                    seen.push((d, i));
                    i
                }
            };
            indices.push(index);
        }
        serializers.push(pb::ProtoFlattenedSerializerT {
            serializer_name_sym: Some(name),
            serializer_version: Some(s.version),
            fields_index: indices,
        });
    }
    pb::CSvcMsgFlattenedSerializer {
        serializers,
        symbols: sym.list,
        fields,
        coord_size_params: None,
    }
}

/// The classes, numbered in byte order of their names from 0 (CS2 numbers
/// its classes the same way; the numbers differ from a real build's, which
/// has about 210 classes).
fn class_info() -> pb::CDemoClassInfo {
    let mut names: Vec<&str> = SERIALIZERS
        .iter()
        .filter(|s| s.class)
        .map(|s| s.name)
        .collect();
    names.sort_unstable();
    pb::CDemoClassInfo {
        classes: names
            .into_iter()
            .zip(0..)
            .map(|(name, id)| pb::c_demo_class_info::ClassT {
                class_id: Some(id),
                network_name: Some(name.into()),
                table_name: None,
            })
            .collect(),
    }
}

fn game_events() -> pb::CMsgSource1LegacyGameEventList {
    use pb::c_msg_source1_legacy_game_event_list::{DescriptorT, KeyT};
    pb::CMsgSource1LegacyGameEventList {
        descriptors: events::EVENTS
            .iter()
            .map(|&(id, name, keys)| DescriptorT {
                eventid: Some(id),
                name: Some(name.into()),
                keys: keys
                    .iter()
                    .map(|&(key, kind)| KeyT {
                        r#type: Some(kind),
                        name: Some(key.into()),
                    })
                    .collect(),
            })
            .collect(),
    }
}
