#!/usr/bin/env python3
"""Generates crates/source2/src/messages_generated.rs: which prost type of
`source2-demo-protobufs` decodes each user-message and game-event id, per game.

The id enums and the message structs both come from the crate's generated code
(the Valve .proto files): an enum variant `CsUmDamage = 321` pairs with the
struct `CCsUsrMsgDamage`. The pairing is by name, with the prefixes below and a
few explicit exceptions; ids without a matching struct are left out (the
parser then counts them as known but undecoded).

Usage: python3 tools/gen_source2_messages.py [PATH_TO_source2-demo-protobufs]
(defaults to the copy in ~/.cargo/registry). The output is committed; a test
checks that every listed type decodes. Besides the table, it writes the
dispatch from an id to its type (`with_type`, and `with_engine_type` for the
engine's net and svc messages).
"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else sorted(glob.glob(os.path.expanduser(
    "~/.cargo/registry/src/*/source2-demo-protobufs-0.5.10")))[-1]

files = {name: open(os.path.join(root, name + ".rs")).read()
         for name in ("common", "cs2", "dota", "citadel")}


def enum(file, name):
    m = re.search(r"pub enum %s \{(.*?)\n\}" % name, files[file], re.S)
    if not m:
        raise SystemExit(f"enum {name} not found in {file}.rs")
    return [(v, int(i)) for v, i in re.findall(r"^\s+(\w+) = (-?\d+),", m.group(1), re.M)]


def structs(file):
    return set(re.findall(r"^pub struct (\w+) \{", files[file], re.M))


# (game, enum file, enum name, variant prefix, struct file(s), struct prefix(es), kind)
TABLES = [
    ("Any", "common", "EBaseUserMessages", "Um", ["common"], ["CUserMessage"], "user_message"),
    ("Any", "common", "EBaseGameEvents", "Ge", ["common"], ["CMsg"], "game_event"),
    ("Cs2", "cs2", "ECstrike15UserMessages", "CsUm", ["cs2"], ["CCsUsrMsg"], "user_message"),
    ("Cs2", "cs2", "ECsgoGameEvents", "Ge", ["cs2", "common"], ["CMsgTe", "CMsg"], "game_event"),
    ("Dota2", "dota", "EDotaUserMessages", "DotaUm", ["dota"], ["CDotaUserMsg", "CMsgDota"], "user_message"),
    ("Deadlock", "citadel", "CitadelUserMessageIds", "KEUserMsg", ["citadel"], ["CCitadelUserMsg", "CCitadelUserMessage"], "user_message"),
    ("Deadlock", "citadel", "ECitadelGameEvents", "Ge", ["citadel", "common"], ["CMsg"], "game_event"),
]

# Variant → struct where the names do not line up.
EXCEPTIONS = {
    ("Cs2", "GePlayerAnimEventId"): "CMsgTePlayerAnimEvent",
    ("Cs2", "GeRadioIconEventId"): "CMsgTeRadioIcon",
    ("Cs2", "GeFireBulletsId"): "CMsgTeFireBullets",
    ("Cs2", "GePlayerBulletHitId"): "CMsgPlayerBulletHit",
    # CS2 still sends chat and text on the legacy ids, with the base types.
    ("Cs2", "CsUmSayTextCsgoLegacy"): "CUserMessageSayText",
    ("Cs2", "CsUmSayText2CsgoLegacy"): "CUserMessageSayText2",
    ("Cs2", "CsUmTextMsgCsgoLegacy"): "CUserMessageTextMsg",
    ("Any", "UmParticleManager"): "CUserMsgParticleManager",
    ("Any", "UmHudError"): "CUserMsgHudError",
    ("Any", "UmCustomGameEvent"): "CUserMsgCustomGameEvent",
    ("Any", "UmDllStatusResponse"): "CUserMessageDllStatus",
    ("Dota2", "DotaUmCombatLogData"): "CMsgDotaCombatLogEntry",
    ("Dota2", "DotaUmCombatLogDataHltv"): "CMsgDotaCombatLogEntry",
    ("Dota2", "DotaUmRequestItemSuggestions"): "CDotaUserMessageRequestItemSuggestions",
    ("Dota2", "DotaUmTeamCaptainChanged"): "CDotaUserMessageTeamCaptainChanged",
    ("Dota2", "DotaUmMatchDetails"): "CDotaUserMsgStatsMatchDetails",
    ("Deadlock", "KEUserMsgCombatLogEntry"): "CMsgCitadelCombatLogEntry",
}

# Temp-entity messages (te.proto `ETEProtobufIds`; the crate has no enum for
# them): id → name, the struct being CMsgTe<name>.
TEMP_ENTITIES = [
    (400, "EffectDispatch"), (401, "ArmorRicochet"), (402, "BeamEntPoint"), (403, "BeamEnts"),
    (404, "BeamPoints"), (405, "BeamRing"), (407, "BspDecal"), (408, "Bubbles"),
    (409, "BubbleTrail"), (410, "Decal"), (411, "WorldDecal"), (412, "EnergySplash"),
    (413, "Fizz"), (414, "ShatterSurface"), (415, "GlowSprite"), (416, "Impact"),
    (417, "MuzzleFlash"), (418, "BloodStream"), (419, "Explosion"), (420, "Dust"),
    (421, "LargeFunnel"), (422, "Sparks"), (423, "PhysicsProp"), (424, "PlayerDecal"),
    (425, "ProjectedDecal"), (426, "Smoke"),
]

MODULES = {"common": "pb", "cs2": "pb", "dota": "pb", "citadel": "pb"}

rows = []
skipped = []
for game, efile, ename, vprefix, sfiles, sprefixes, kind in TABLES:
    available = {}
    for f in set(sfiles) | {"common"}:
        for s in structs(f):
            available.setdefault(s.lower(), s)
    for variant, ident in enum(efile, ename):
        base = variant[len(vprefix):] if variant.startswith(vprefix) else variant
        candidates = []
        if (game, variant) in EXCEPTIONS:
            candidates.append(EXCEPTIONS[(game, variant)])
        for p in sprefixes:
            for b in (base, re.sub(r"(Id|Event|Message)$", "", base), base + "Event"):
                candidates.append(p + b)
        found = next((available[c.lower()] for c in candidates if c.lower() in available), None)
        if found is None:
            skipped.append(f"{game} {ename}::{variant} = {ident}")
            continue
        rows.append((game, ident, kind, variant, found))

common_structs = {x.lower(): x for x in structs("common")}
for ident, name in TEMP_ENTITIES:
    # None: named, but the crate has no type to decode it with.
    found = common_structs.get(("CMsgTe" + name).lower())
    rows.append(("Any", ident, "temp_entity", "Te" + name + "Id", found))

# Engine messages (ids below 100, shared by every game): enum → struct prefix.
ENGINE = [
    ("NetMessages", "Net", "CNetMsg"),
    ("SvcMessages", "Svc", "CSvcMsg"),
    ("BidirectionalMessages", "Bi", "CBidirMsg"),
]
ENGINE_EXCEPTIONS = {"SvcUserCmds": "CSvcMsgUserCommands"}
engine_rows = []
for ename, vprefix, sprefix in ENGINE:
    for variant, ident in enum("common", ename):
        base = variant[len(vprefix):] if variant.startswith(vprefix) else variant
        candidate = ENGINE_EXCEPTIONS.get(variant, sprefix + base)
        found = common_structs.get(candidate.lower())
        if found is None:
            skipped.append(f"engine {ename}::{variant} = {ident}")
            continue
        engine_rows.append((ident, variant, found))
engine_rows.sort()

out = []
out.append("// @generated by tools/gen_source2_messages.py from source2-demo-protobufs 0.5.10.")
out.append("// Do not edit by hand: change the script and run it again.")
out.append("")
out.append("use prost::Message;")
out.append("")
out.append("use crate::error::MessageJsonError;")
out.append("use crate::game::{Game, MessageKind};")
out.append("use source2_demo_protobufs as pb;")
out.append("")
out.append("/// (game, id, kind, enum variant, protobuf type) of every known message.")
out.append("pub(crate) const MESSAGE_TYPES: &[(Game, u32, MessageKind, &str, Option<&str>)] = &[")
for game, ident, kind, variant, found in rows:
    k = {"user_message": "MessageKind::UserMessage", "game_event": "MessageKind::GameEvent",
         "temp_entity": "MessageKind::TempEntity"}[kind]
    ty = f'Some("{found}")' if found else "None"
    out.append(f'    (Game::{game}, {ident}, {k}, "{variant}", {ty}),')
out.append("];")
out.append("")
out.append("/// Something done with the protobuf type of a message, the type being chosen")
out.append("/// by the message's id ([`with_type`], [`with_engine_type`]).")
out.append("pub(crate) trait TypeAction {")
out.append("    /// What the action returns.")
out.append("    type Output;")
out.append("    /// Runs the action with type `M`.")
out.append("    fn run<M>(self) -> Self::Output")
out.append("    where")
out.append("        M: Message + Default + PartialEq + serde::Serialize + serde::de::DeserializeOwned;")
out.append("}")
out.append("")
out.append("/// The protobuf type's name, without the crate's module path.")
out.append("pub(crate) fn type_name<M>() -> &'static str {")
out.append("    std::any::type_name::<M>().rsplit(\"::\").next().unwrap_or_default()")
out.append("}")
out.append("")
out.append("struct ToJson<'a>(&'a [u8]);")
out.append("")
out.append("impl TypeAction for ToJson<'_> {")
out.append("    type Output = Result<serde_json::Value, MessageJsonError>;")
out.append("    fn run<M>(self) -> Self::Output")
out.append("    where")
out.append("        M: Message + Default + PartialEq + serde::Serialize + serde::de::DeserializeOwned,")
out.append("    {")
out.append("        let type_name = type_name::<M>();")
out.append("        let m = M::decode(self.0).map_err(|source| MessageJsonError::Decode { type_name, source })?;")
out.append("        serde_json::to_value(&m).map_err(|source| MessageJsonError::Json { type_name, source })")
out.append("    }")
out.append("}")
out.append("")
out.append("/// Decodes a message payload to JSON with its protobuf type; `None` when the")
out.append("/// (game, id) pair has no known type.")
out.append("pub(crate) fn decode_json(game: Game, id: u32, payload: &[u8]) -> Option<Result<serde_json::Value, MessageJsonError>> {")
out.append("    with_type(game, id, ToJson(payload))")
out.append("}")
out.append("")
out.append("/// Runs `action` with the protobuf type of a user message, game event or temp")
out.append("/// entity of `game`; `None` when the (game, id) pair has no known type.")
out.append("pub(crate) fn with_type<A: TypeAction>(game: Game, id: u32, action: A) -> Option<A::Output> {")
out.append("    Some(match (game, id) {")
# Game-specific first, then Any (base ids are shared by every game).
for game, ident, kind, variant, found in sorted(rows, key=lambda r: (r[0] == "Any", r[1])):
    if found is None:
        continue
    pat = f"(Game::{game}, {ident})" if game != "Any" else f"(_, {ident})"
    out.append(f"        {pat} => action.run::<pb::{found}>(),")
out.append("        _ => return None,")
out.append("    })")
out.append("}")
out.append("")
out.append("/// (id, enum variant, protobuf type) of every engine message (`NET_Messages`,")
out.append("/// `SVC_Messages`, `Bidirectional_Messages`) that has a type.")
out.append("pub(crate) const ENGINE_MESSAGE_TYPES: &[(u32, &str, &str)] = &[")
for ident, variant, found in engine_rows:
    out.append(f'    ({ident}, "{variant}", "{found}"),')
out.append("];")
out.append("")
out.append("/// Runs `action` with the protobuf type of an engine message (ids below 100,")
out.append("/// the same in every game); `None` for an id without a type.")
out.append("pub(crate) fn with_engine_type<A: TypeAction>(id: u32, action: A) -> Option<A::Output> {")
out.append("    Some(match id {")
for ident, variant, found in engine_rows:
    out.append(f"        {ident} => action.run::<pb::{found}>(),")
out.append("        _ => return None,")
out.append("    })")
out.append("}")
out.append("")
path = os.path.join(os.path.dirname(__file__), "..", "crates", "source2", "src", "messages_generated.rs")
open(path, "w").write("\n".join(out))
print(f"{len(rows)} message ids ({sum(1 for r in rows if r[4])} with a type) written to {os.path.normpath(path)}; {len(skipped)} ids without a type:")
for s in skipped:
    print("  " + s)
