//! The reference of every table gamewire writes: each column's name, type,
//! unit and meaning, in one place.
//!
//! The collectors build their tables from these lists
//! ([`TableSpec::empty_table`]), so a column exists here before it can be
//! written; `docs/tables.md` is generated from them ([`markdown`]) and a
//! test fails when the file and the code disagree.
//!
//! One vocabulary runs through every table:
//!
//! - a team is `team`, the team number as an integer (0 none, 1 spectator,
//!   2 T or Radiant, 3 CT or Dire), with a role prefix where a row has
//!   several players (`attacker_team`, `victim_team`, `thrower_team`);
//! - a position is `x`, `y`, `z` in game units, prefixed where a row has
//!   several (`detonate_x`);
//! - an entity is `entity_id`, its index in the entity list;
//! - a player is `name`, `steamid` (bots have steam id 0) and `slot` (the
//!   player slot: the controller's entity index minus 1), with the same
//!   role prefixes (`attacker_name`, `attacker_steamid`, `attacker_slot`);
//! - a weapon is `weapon`, the short name ([`weapon_name`]:
//!   `ak47`, `galilar`, `knife`), with `weapon_class` beside it, the name as
//!   the game sent it (`weapon_ak47`); a display name (`AK-47`) only as
//!   `item_name`, in the economy tables;
//! - an event is `event_name`; a hit group is its name (`head`, `chest`).
//!
//! Props asked for by name keep the name asked for (`X`, `team_num`);
//! those columns and the keys of game events are described by rule
//! ([`DynamicSpec`]).
//!
//! [`weapon_name`]: crate::item_names::weapon_name

use crate::table::{Kind, Table};

/// A column of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnSpec {
    /// The column's name.
    pub name: &'static str,
    /// Its type.
    pub kind: Kind,
    /// Its unit (`tick`, `second`, `game unit`, `degree`, `HP`), or empty.
    pub unit: &'static str,
    /// What it holds, in one line.
    pub meaning: &'static str,
}

/// Columns a table adds by rule (the props asked for, the keys of events).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DynamicSpec {
    /// The column names it gives (`<prop>`, `user_<prop>`).
    pub pattern: &'static str,
    /// Their type, in words.
    pub kind: &'static str,
    /// What they hold.
    pub meaning: &'static str,
}

/// A table: its name, what a row is, its columns in order, and the
/// columns it adds by rule after them (or among them, as `events` does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableSpec {
    /// The table's name (`kills`).
    pub name: &'static str,
    /// The games whose demos fill it.
    pub games: &'static str,
    /// What one row is, and where it comes from.
    pub row: &'static str,
    /// The fixed columns, in order.
    pub columns: &'static [ColumnSpec],
    /// The columns added by rule, in order.
    pub dynamic: &'static [DynamicSpec],
}

impl TableSpec {
    /// A table with the fixed columns and no row.
    pub fn empty_table(&self) -> Table {
        Table::with_schema(self.name, &self.schema())
    }

    /// The fixed columns as (name, type) pairs.
    pub fn schema(&self) -> Vec<(&'static str, Kind)> {
        self.columns.iter().map(|c| (c.name, c.kind)).collect()
    }

    /// The names of the fixed columns.
    pub fn column_names(&self) -> Vec<&'static str> {
        self.columns.iter().map(|c| c.name).collect()
    }

    /// A fixed column by name.
    pub fn column(&self, name: &str) -> Option<&'static ColumnSpec> {
        self.columns.iter().find(|c| c.name == name)
    }
}

const fn c(
    name: &'static str,
    kind: Kind,
    unit: &'static str,
    meaning: &'static str,
) -> ColumnSpec {
    ColumnSpec {
        name,
        kind,
        unit,
        meaning,
    }
}

const fn d(pattern: &'static str, kind: &'static str, meaning: &'static str) -> DynamicSpec {
    DynamicSpec {
        pattern,
        kind,
        meaning,
    }
}

use Kind::{Bool, F32List, Str, StrList, F32, I64, U64};

const TICK: ColumnSpec = c(
    "tick",
    I64,
    "tick",
    "The tick the row happened at (the demo's frame tick).",
);

/// `header`: one row per demo.
pub const HEADER: TableSpec = TableSpec {
    name: "header",
    games: "CS2, Deadlock, Dota 2",
    row: "One row per demo: its file header (`CDemoFileHeader`), file info (`CDemoFileInfo`), tick rate and players.",
    columns: &[
        c("game", Str, "", "The game: `cs2`, `deadlock`, `dota2` (from the game directory, or the classes of a broadcast), or `unknown`."),
        c("map", Str, "", "The map's name (`de_nuke`)."),
        c("server_name", Str, "", "The server's name as the header gives it."),
        c("client_name", Str, "", "The recording client's name (`SourceTV Demo`)."),
        c("game_directory", Str, "", "The server's game directory."),
        c("build", I64, "", "The game build number (`build_num`)."),
        c("network_protocol", I64, "", "The network protocol version (`patch_version`, else the server info's protocol)."),
        c("demo_version_name", Str, "", "The demo format version name."),
        c("demo_version_guid", Str, "", "The demo format version GUID."),
        c("demo_file_stamp", Str, "", "The file stamp (`PBDEMS2`)."),
        c("fullpackets_version", I64, "", "The version of the full packets' layout."),
        c("allow_clientside_entities", Bool, "", "Whether client-side entities were allowed."),
        c("allow_clientside_particles", Bool, "", "Whether client-side particles were allowed."),
        c("addons", Str, "", "The addons loaded (empty for none)."),
        c("server_start_tick", I64, "tick", "The server tick the recording started at."),
        c("tick_rate", F32, "tick/second", "Ticks per second (1 / the server's tick interval, to a thousandth)."),
        c("ticks", I64, "tick", "The demo's length in ticks (`playback_ticks`, else `last_tick` − `first_tick` + 1)."),
        c("frames", I64, "", "The demo's frames (`playback_frames`), null when the file info is missing."),
        c("duration_seconds", F32, "second", "The demo's length (`playback_time`, else `ticks` / `tick_rate`)."),
        c("first_tick", I64, "tick", "The first tick after the signon (1 for a demo file; a broadcast starts mid-game)."),
        c("last_tick", I64, "tick", "The last tick read."),
        c("complete", Bool, "", "Whether the demo was read to its end (`DEM_Stop`); false for a demo cut short."),
        c("players", I64, "", "Players seen in `userinfo` during the demo, bots included, CSTV and SourceTV left out (a human counted by steam id, a bot by name)."),
        c("bots", I64, "", "Of `players`, the bots (steam id 0)."),
    ],
    dynamic: &[],
};

/// `events`: one row per game event.
pub const EVENTS: TableSpec = TableSpec {
    name: "events",
    games: "CS2, Deadlock, Dota 2",
    row: "One row per game event asked for (all events when no name is asked for), in the order the demo sends them. With event names asked for, a table with no row still has the columns of those events' declared keys.",
    columns: &[
        c("event_name", Str, "", "The event's name (`player_death`)."),
        TICK,
    ],
    dynamic: &[
        d("<key>", "the key's declared type: string, float32, int64 (long, short, byte, entity handle, player slot), bool, uint64", "Every key of the event as the game sends it, in declared order (`userid`, `attacker`, `userid_pawn` included, as raw slots and handles), except `hitgroup`, which is a name (`head`). A key with different types in different events takes the type that holds both."),
        d("grenade_type", "string", "For grenade events with an `entityid`: the grenade's type (`smoke`, `he_grenade`, `flashbang`, `molotov`, `incendiary`, `decoy`)."),
        d("<p>_name, <p>_steamid, <p>_slot", "string, uint64, int64", "For each player key (`userid` gives `user`, `attacker` gives `attacker`, `assister` gives `assister`, `victim` gives `victim`: the key without `id`), the player's name, steam id (0 for bots) and slot; a key's `_pawn` handle, or for `userid` the owner of the `entityid` entity, stands in when the key is absent."),
        d("<p>_<prop>", "the prop's type", "For each player key, each player prop asked for (`user_health`, `attacker_X`), read when the event is read."),
        d("<prop>", "the prop's type", "Each game-wide prop asked for (`total_rounds_played`); a team prop gives `t_<prop>` and `ct_<prop>`."),
    ],
};

/// `ticks`: one row per player per tick.
pub const TICKS: TableSpec = TableSpec {
    name: "ticks",
    games: "CS2, Deadlock, Dota 2",
    row: "One row per player slot per tick (bots included; `humans_only` leaves them out), for the ticks and players asked for.",
    columns: &[
        TICK,
        c("slot", I64, "", "The player slot (the controller's entity index minus 1)."),
        c("steamid", U64, "", "The player's steam id (0 for bots)."),
        c("name", Str, "", "The player's name."),
    ],
    dynamic: &[d(
        "<prop>",
        "the prop's type (from the send tables)",
        "Each prop asked for, in the order asked for, under the name asked for (`X`, `health`, `team_num`, `CCSPlayerPawn.m_iHealth`); `gamewire props` lists them.",
    )],
};

/// `players`: one row per player.
pub const PLAYERS: TableSpec = TableSpec {
    name: "players",
    games: "CS2 (identity columns: every game)",
    row: "One row per player seen in `userinfo` (a slot, steam id and name), with their controller's team, score and match stats as last seen.",
    columns: &[
        c("slot", I64, "", "The player slot (the controller's entity index minus 1)."),
        c("userid", I64, "", "The user id of `userinfo`."),
        c("name", Str, "", "The player's name."),
        c("steamid", U64, "", "The player's steam id (0 for bots)."),
        c("fake_player", Bool, "", "Whether the player is a bot."),
        c("is_hltv", Bool, "", "Whether the player is the CSTV or SourceTV client."),
        c("first_tick", I64, "tick", "The tick the player was first seen at."),
        c("team", I64, "", "The team number (0 none, 1 spectator, 2 T, 3 CT)."),
        c("score", I64, "", "The scoreboard score."),
        c("kills_total", I64, "", "Kills in the match."),
        c("deaths_total", I64, "", "Deaths in the match."),
        c("assists_total", I64, "", "Assists in the match."),
        c("damage_total", I64, "HP", "Damage dealt in the match."),
        c("mvps", I64, "", "Round MVPs."),
        c("ping", I64, "millisecond", "The ping."),
        c("rank", I64, "", "The competitive ranking."),
    ],
    dynamic: &[],
};

/// `chat`: one row per chat line.
pub const CHAT: TableSpec = TableSpec {
    name: "chat",
    games: "CS2, Deadlock, Dota 2",
    row: "One row per chat line (`SayText2`, `SayText` user messages).",
    columns: &[
        TICK,
        c(
            "slot",
            I64,
            "",
            "The sender's player slot; null for the server.",
        ),
        c(
            "name",
            Str,
            "",
            "The sender's name as the message gives it.",
        ),
        c(
            "steamid",
            U64,
            "",
            "The sender's steam id (0 for bots); null for the server.",
        ),
        c("text", Str, "", "The text."),
        c("all_chat", Bool, "", "Whether the line went to every team."),
        c("kind", Str, "", "The message's kind (`Cstrike_Chat_All`)."),
    ],
    dynamic: &[],
};

/// `grenades`: one row per grenade projectile per tick it moved.
pub const GRENADES: TableSpec = TableSpec {
    name: "grenades",
    games: "CS2",
    row: "One row per grenade projectile per tick it moved (its last position in the tick), flights in the order they were thrown.",
    columns: &[
        c("grenade_id", I64, "", "The flight's number in the demo (1, 2, ...)."),
        c("entity_id", I64, "", "The projectile's entity."),
        c("grenade_type", Str, "", "`smoke`, `he_grenade`, `flashbang`, `molotov`, `incendiary` or `decoy`."),
        c("thrower_name", Str, "", "The thrower's name."),
        c("thrower_steamid", U64, "", "The thrower's steam id (0 for bots)."),
        c("thrower_slot", I64, "", "The thrower's player slot."),
        c("thrower_team", I64, "", "The thrower's team number when the projectile appeared."),
        c("start_tick", I64, "tick", "The tick the projectile appeared."),
        c("end_tick", I64, "tick", "The tick it was removed; null when still flying at the demo's end."),
        c("detonate_tick", I64, "tick", "The tick it detonated (or its fire started); null when no detonation is linked."),
        c("detonate_x", F32, "game unit", "Where it detonated."),
        c("detonate_y", F32, "game unit", "Where it detonated."),
        c("detonate_z", F32, "game unit", "Where it detonated."),
        TICK,
        c("x", F32, "game unit", "The projectile's position at `tick`."),
        c("y", F32, "game unit", "The projectile's position at `tick`."),
        c("z", F32, "game unit", "The projectile's position at `tick`."),
    ],
    dynamic: &[d(
        "<prop>",
        "the field's type in the projectile classes",
        "Each raw prop of the projectile asked for (`m_nBounces`), at `tick`.",
    )],
};

/// `rounds`: one row per round.
pub const ROUNDS: TableSpec = TableSpec {
    name: "rounds",
    games: "CS2",
    row: "One row per round, from `round_start`, `round_freeze_end`, `round_end` and `round_officially_ended`. A demo without these events (CS2 builds may leave `round_start`, `round_end` and `round_officially_ended` out) gets the same rows from the game rules: a round starts when `m_nRoundStartCount` steps, its freeze time ends when `m_bFreezePeriod` turns false, it ends when `m_nRoundEndCount` steps (winner `m_iRoundEndWinnerTeam` or else `m_iRoundWinStatus`, reason `m_eRoundEndReason` or else `m_eRoundWinReason`, message `m_sRoundEndMessage` or else the reason's notice), and it is officially over when the next round starts.",
    columns: &[
        c("round", I64, "", "The round's number in the demo (1, 2, ...)."),
        c("start_tick", I64, "tick", "`round_start`."),
        c("freeze_end_tick", I64, "tick", "`round_freeze_end`."),
        c("end_tick", I64, "tick", "`round_end`."),
        c("official_end_tick", I64, "tick", "`round_officially_ended`."),
        c("winner_team", I64, "", "The winning team number (2 T, 3 CT)."),
        c("winner_side", Str, "", "The winning side: `T` or `CT`."),
        c("reason", I64, "", "The round end reason (`CSRoundEndReason`)."),
        c("reason_name", Str, "", "The reason's name (`bomb_defused`, `t_killed`)."),
        c("message", Str, "", "The round end message (`#SFUI_Notice_CTs_Win`)."),
    ],
    dynamic: &[],
};

/// `kills`: one row per `player_death`.
pub const KILLS: TableSpec = TableSpec {
    name: "kills",
    games: "CS2",
    row: "One row per kill (`player_death`).",
    columns: &[
        TICK,
        c("attacker_name", Str, "", "The killer's name."),
        c(
            "attacker_steamid",
            U64,
            "",
            "The killer's steam id (0 for bots).",
        ),
        c("attacker_slot", I64, "", "The killer's player slot."),
        c("attacker_team", I64, "", "The killer's team number."),
        c("victim_name", Str, "", "The victim's name."),
        c(
            "victim_steamid",
            U64,
            "",
            "The victim's steam id (0 for bots).",
        ),
        c("victim_slot", I64, "", "The victim's player slot."),
        c("victim_team", I64, "", "The victim's team number."),
        c("assister_name", Str, "", "The assister's name."),
        c(
            "assister_steamid",
            U64,
            "",
            "The assister's steam id (0 for bots).",
        ),
        c("assister_slot", I64, "", "The assister's player slot."),
        c("assister_team", I64, "", "The assister's team number."),
        c(
            "weapon",
            Str,
            "",
            "The weapon's short name (`ak47`, `knife`).",
        ),
        c(
            "weapon_class",
            Str,
            "",
            "The weapon as the event names it (`ak47`, `knife_t`).",
        ),
        c("headshot", Bool, "", "Whether it was a headshot."),
        c("penetrated", I64, "", "Objects the bullet went through."),
        c(
            "wallbang",
            Bool,
            "",
            "Whether the bullet went through anything.",
        ),
        c("assistedflash", Bool, "", "Whether the assist was a flash."),
        c(
            "noscope",
            Bool,
            "",
            "Whether a scoped weapon was fired unscoped.",
        ),
        c(
            "thrusmoke",
            Bool,
            "",
            "Whether the bullet went through smoke.",
        ),
        c("attackerblind", Bool, "", "Whether the killer was flashed."),
        c(
            "attackerinair",
            Bool,
            "",
            "Whether the killer was in the air.",
        ),
        c(
            "distance",
            F32,
            "game unit",
            "The distance between killer and victim.",
        ),
        c("dmg_health", I64, "HP", "Health the last hit took."),
        c("dmg_armor", I64, "", "Armor the last hit took."),
        c(
            "hitgroup",
            Str,
            "",
            "Where the last hit landed (`head`, `chest`, `generic`).",
        ),
    ],
    dynamic: &[],
};

/// `damages`: one row per `player_hurt`.
pub const DAMAGES: TableSpec = TableSpec {
    name: "damages",
    games: "CS2",
    row: "One row per hit (`player_hurt`).",
    columns: &[
        TICK,
        c(
            "attacker_name",
            Str,
            "",
            "The attacker's name; null for the world.",
        ),
        c(
            "attacker_steamid",
            U64,
            "",
            "The attacker's steam id (0 for bots).",
        ),
        c("attacker_slot", I64, "", "The attacker's player slot."),
        c("attacker_team", I64, "", "The attacker's team number."),
        c("victim_name", Str, "", "The victim's name."),
        c(
            "victim_steamid",
            U64,
            "",
            "The victim's steam id (0 for bots).",
        ),
        c("victim_slot", I64, "", "The victim's player slot."),
        c("victim_team", I64, "", "The victim's team number."),
        c(
            "weapon",
            Str,
            "",
            "The weapon's short name (`galilar`, `knife`).",
        ),
        c("weapon_class", Str, "", "The weapon as the event names it."),
        c("dmg_health", I64, "HP", "Health taken."),
        c("dmg_armor", I64, "", "Armor taken."),
        c("health", I64, "HP", "The victim's health after the hit."),
        c("armor", I64, "", "The victim's armor after the hit."),
        c(
            "hitgroup",
            Str,
            "",
            "Where the hit landed (`head`, `chest`, `generic`).",
        ),
    ],
    dynamic: &[],
};

/// `purchases`: one row per `item_purchase`.
pub const PURCHASES: TableSpec = TableSpec {
    name: "purchases",
    games: "CS2",
    row: "One row per item bought: from the `item_purchase` events when the demo holds any, else from the buyers' state, which current CS2 builds write instead of the events. From the state, an entry of a pawn's sellback list (`m_pBuyServices.m_vecSellbackPurchaseEntries`) that the list did not hold at the end of the previous tick is a purchase at this tick (entries told apart by item definition index and price): one row each, players in slot order (the state does not tell who bought first within a tick); a pawn's first list (what it held when the demo started or it was created) gives no row; `team` is the controller's team then, `weapon` and `weapon_class` come from the entry's item definition index (null for an index the buy menu does not sell), and `loadout` is null.",
    columns: &[
        TICK,
        c("name", Str, "", "The buyer's name."),
        c("steamid", U64, "", "The buyer's steam id (0 for bots)."),
        c("slot", I64, "", "The buyer's player slot."),
        c("team", I64, "", "The buyer's team number."),
        c(
            "weapon",
            Str,
            "",
            "The item's short name (`ak47`, `kevlar`).",
        ),
        c(
            "weapon_class",
            Str,
            "",
            "The item as the event names it (`weapon_ak47`, `item_kevlar`).",
        ),
        c(
            "loadout",
            I64,
            "",
            "The loadout slot it was bought from (null from the state, which does not hold it).",
        ),
    ],
    dynamic: &[],
};

/// `user_commands`: one row per user command.
pub const USER_COMMANDS: TableSpec = TableSpec {
    name: "user_commands",
    games: "CS2",
    row: "One row per user command (the players' input). View angles and buttons a command does not send are the previous command's.",
    columns: &[
        TICK,
        c("name", Str, "", "The player's name."),
        c("steamid", U64, "", "The player's steam id (0 for bots)."),
        c("slot", I64, "", "The player slot the command came from."),
        c("entity_id", I64, "", "The player's pawn entity."),
        c("cmd_number", I64, "", "The command's sequence number."),
        c("server_tick_executed", I64, "tick", "The server tick the command ran at."),
        c("client_tick", I64, "tick", "The client's tick when it sent the command."),
        c("viewangle_x", F32, "degree", "The view's pitch."),
        c("viewangle_y", F32, "degree", "The view's yaw."),
        c("viewangle_z", F32, "degree", "The view's roll."),
        c("forward_move", F32, "", "Forward movement as the command sends it (negative: backward)."),
        c("left_move", F32, "", "Sideways movement as the command sends it (positive: left)."),
        c("up_move", F32, "", "Upward movement as the command sends it."),
        c("buttonstate_1", U64, "", "The first button word of the command's button state (the buttons held; bit mask)."),
        c("buttonstate_2", U64, "", "The second button word (the buttons that changed; bit mask)."),
        c("buttonstate_3", U64, "", "The third button word (the scroll buttons; bit mask)."),
        c("impulse", I64, "", "The impulse command."),
        c("weapon_select", I64, "", "The weapon selected."),
        c("mouse_dx", I64, "", "Mouse movement, horizontal."),
        c("mouse_dy", I64, "", "Mouse movement, vertical."),
        c("consumed_server_angle_changes", I64, "", "Server angle changes the client applied."),
        c("left_hand_desired", Bool, "", "Whether the player wants the weapon in the left hand."),
        c("input_history", Str, "", "The sub-tick input history, as JSON."),
    ],
    dynamic: &[],
};

/// `shots`: one row per `weapon_fire`.
pub const SHOTS: TableSpec = TableSpec {
    name: "shots",
    games: "CS2",
    row: "One row per shot (`weapon_fire`); position and view are the shooter's pawn's when the event is read.",
    columns: &[
        TICK,
        c("name", Str, "", "The shooter's name."),
        c("steamid", U64, "", "The shooter's steam id (0 for bots)."),
        c("slot", I64, "", "The shooter's player slot."),
        c("team", I64, "", "The shooter's team number."),
        c("weapon", Str, "", "The weapon's short name (`galilar`)."),
        c("weapon_class", Str, "", "The weapon as the event names it (`weapon_galilar`)."),
        c("silenced", Bool, "", "Whether the weapon was silenced."),
        c("x", F32, "game unit", "The shooter's position."),
        c("y", F32, "game unit", "The shooter's position."),
        c("z", F32, "game unit", "The shooter's position."),
        c("pitch", F32, "degree", "The shooter's view pitch."),
        c("yaw", F32, "degree", "The shooter's view yaw."),
    ],
    dynamic: &[],
};

/// `bomb`: one row per bomb event.
pub const BOMB: TableSpec = TableSpec {
    name: "bomb",
    games: "CS2",
    row: "One row per bomb event: plant and defuse (begun, aborted, done), explosion, drop, pickup.",
    columns: &[
        TICK,
        c("action", Str, "", "`beginplant`, `abortplant`, `planted`, `begindefuse`, `abortdefuse`, `defused`, `exploded`, `dropped` or `pickup`."),
        c("name", Str, "", "The player's name."),
        c("steamid", U64, "", "The player's steam id (0 for bots)."),
        c("slot", I64, "", "The player slot."),
        c("team", I64, "", "The player's team number."),
        c("site", I64, "", "The bomb site's entity, as the event gives it."),
        c("haskit", Bool, "", "`begindefuse`: whether the defuser has a kit."),
        c("x", F32, "game unit", "The player's position."),
        c("y", F32, "game unit", "The player's position."),
        c("z", F32, "game unit", "The player's position."),
    ],
    dynamic: &[],
};

/// The columns of `smokes` and `infernos`.
const EFFECT_COLUMNS: &[ColumnSpec] = &[
    c(
        "entity_id",
        I64,
        "",
        "The grenade's entity (the event's `entityid`).",
    ),
    c(
        "start_tick",
        I64,
        "tick",
        "The tick it started; null when the demo began after.",
    ),
    c(
        "end_tick",
        I64,
        "tick",
        "The tick it ended; null when still running at the demo's end.",
    ),
    c("thrower_name", Str, "", "The thrower's name."),
    c(
        "thrower_steamid",
        U64,
        "",
        "The thrower's steam id (0 for bots).",
    ),
    c("thrower_slot", I64, "", "The thrower's player slot."),
    c("thrower_team", I64, "", "The thrower's team number."),
    c("x", F32, "game unit", "Where it started."),
    c("y", F32, "game unit", "Where it started."),
    c("z", F32, "game unit", "Where it started."),
];

/// `smokes`: one row per smoke.
pub const SMOKES: TableSpec = TableSpec {
    name: "smokes",
    games: "CS2",
    row: "One row per smoke, from `smokegrenade_detonate` to `smokegrenade_expired` (paired by `entityid`).",
    columns: EFFECT_COLUMNS,
    dynamic: &[],
};

/// `infernos`: one row per fire.
pub const INFERNOS: TableSpec = TableSpec {
    name: "infernos",
    games: "CS2",
    row: "One row per molotov or incendiary fire, from `inferno_startburn` to `inferno_expire` (paired by `entityid`).",
    columns: EFFECT_COLUMNS,
    dynamic: &[],
};

/// `flashes`: one row per `player_blind`.
pub const FLASHES: TableSpec = TableSpec {
    name: "flashes",
    games: "CS2",
    row: "One row per player blinded by a flashbang (`player_blind`).",
    columns: &[
        TICK,
        c("attacker_name", Str, "", "The thrower's name."),
        c(
            "attacker_steamid",
            U64,
            "",
            "The thrower's steam id (0 for bots).",
        ),
        c("attacker_slot", I64, "", "The thrower's player slot."),
        c("attacker_team", I64, "", "The thrower's team number."),
        c("victim_name", Str, "", "The blinded player's name."),
        c(
            "victim_steamid",
            U64,
            "",
            "The blinded player's steam id (0 for bots).",
        ),
        c("victim_slot", I64, "", "The blinded player's slot."),
        c("victim_team", I64, "", "The blinded player's team number."),
        c(
            "blind_duration",
            F32,
            "second",
            "How long the player is blind.",
        ),
        c("entity_id", I64, "", "The flashbang's entity."),
    ],
    dynamic: &[],
};

/// `footsteps`: one row per `player_footstep`.
pub const FOOTSTEPS: TableSpec = TableSpec {
    name: "footsteps",
    games: "CS2",
    row: "One row per footstep (`player_footstep`).",
    columns: &[
        TICK,
        c("name", Str, "", "The player's name."),
        c("steamid", U64, "", "The player's steam id (0 for bots)."),
        c("slot", I64, "", "The player slot."),
        c("team", I64, "", "The player's team number."),
        c("x", F32, "game unit", "The player's position."),
        c("y", F32, "game unit", "The player's position."),
        c("z", F32, "game unit", "The player's position."),
    ],
    dynamic: &[],
};

/// `item_drops`: one row per item dropped at the end of a match.
pub const ITEM_DROPS: TableSpec = TableSpec {
    name: "item_drops",
    games: "CS2",
    row: "One row per item dropped to a player at the end of a match (`SendPlayerItemDrops`).",
    columns: &[
        TICK,
        c("steamid", U64, "", "The receiver's steam id."),
        c(
            "account_id",
            I64,
            "",
            "The receiver's account id (the steam id's low 32 bits).",
        ),
        c("dropreason", I64, "", "Why the item dropped."),
        c("inventory", I64, "", "The inventory position."),
        c("item_id", U64, "", "The item's id."),
        c("def_index", I64, "", "The item definition index."),
        c("item_name", Str, "", "The item's display name (`AK-47`)."),
        c("paint_index", I64, "", "The paint kit."),
        c("paint_seed", I64, "", "The paint seed."),
        c(
            "paint_wear",
            I64,
            "",
            "The wear as sent (the float's bits).",
        ),
        c("wear", F32, "", "The wear (0 to 1)."),
        c("rarity", I64, "", "The rarity."),
        c("quality", I64, "", "The quality."),
        c("custom_name", Str, "", "The name tag."),
    ],
    dynamic: &[],
};

/// `skins`: one row per equipped item.
pub const SKINS: TableSpec = TableSpec {
    name: "skins",
    games: "CS2",
    row: "One row per item a player had equipped, from the end-of-match summary (`EndOfMatchAllPlayersData`); default items left out.",
    columns: &[
        TICK,
        c("steamid", U64, "", "The player's steam id."),
        c("name", Str, "", "The player's name."),
        c("team", I64, "", "The player's team number."),
        c("item_id", U64, "", "The item's id."),
        c("def_index", I64, "", "The item definition index."),
        c("item_name", Str, "", "The item's display name (`AK-47`)."),
        c("paint_index", I64, "", "The paint kit."),
        c("paint_seed", I64, "", "The paint seed."),
        c("paint_wear", I64, "", "The wear as sent (the float's bits)."),
        c("wear", F32, "", "The wear (0 to 1)."),
        c("rarity", I64, "", "The rarity."),
        c("quality", I64, "", "The quality."),
        c("custom_name", Str, "", "The name tag."),
    ],
    dynamic: &[],
};

/// `combat_log`: one row per Dota 2 combat log entry.
pub const COMBAT_LOG: TableSpec = TableSpec {
    name: "combat_log",
    games: "Dota 2",
    row: "One row per combat log entry, names resolved through the `CombatLogNames` string table.",
    columns: &[
        TICK,
        c("timestamp", F32, "second", "The game time of the entry."),
        c(
            "type",
            Str,
            "",
            "The entry's type, in snake case (`damage`, `heal`, `modifier_add`, `modifier_remove`).",
        ),
        c("attacker_name", Str, "", "The attacker's unit name."),
        c("target_name", Str, "", "The target's unit name."),
        c(
            "target_source_name",
            Str,
            "",
            "The unit behind the target (an illusion's hero).",
        ),
        c(
            "damage_source_name",
            Str,
            "",
            "The unit the damage came from.",
        ),
        c(
            "inflictor_name",
            Str,
            "",
            "The ability or item that did it.",
        ),
        c(
            "is_attacker_hero",
            Bool,
            "",
            "Whether the attacker is a hero.",
        ),
        c(
            "is_attacker_illusion",
            Bool,
            "",
            "Whether the attacker is an illusion.",
        ),
        c("is_target_hero", Bool, "", "Whether the target is a hero."),
        c(
            "is_target_illusion",
            Bool,
            "",
            "Whether the target is an illusion.",
        ),
        c(
            "attacker_team",
            I64,
            "",
            "The attacker's team number (2 Radiant, 3 Dire).",
        ),
        c("target_team", I64, "", "The target's team number."),
        c(
            "value",
            I64,
            "",
            "The amount (damage, heal, gold, experience).",
        ),
        c("health", I64, "HP", "The target's health after the entry."),
        c("stun_duration", F32, "second", "The stun's length."),
        c("slow_duration", F32, "second", "The slow's length."),
        c("modifier_duration", F32, "second", "The modifier's length."),
        c("ability_level", I64, "", "The ability's level."),
        c("gold_reason", I64, "", "Why gold changed."),
        c("xp_reason", I64, "", "Why experience changed."),
        c("x", F32, "game unit", "Where it happened."),
        c("y", F32, "game unit", "Where it happened."),
    ],
    dynamic: &[],
};

/// `updated_fields`: one row per prop name the demo sends.
pub const UPDATED_FIELDS: TableSpec = TableSpec {
    name: "updated_fields",
    games: "CS2, Deadlock, Dota 2",
    row: "One row per prop name that the demo sends for an entity a player row reads, sorted by name; each name is a `ticks` prop.",
    columns: &[
        c("name", Str, "", "The prop's name (`CCSPlayerPawn.m_iHealth`)."),
        c("entity_kind", Str, "", "The entity it is read from: `pawn`, `controller`, `team`, `rules`, `weapon` or `grenade`."),
        c("updates", I64, "", "Updates that carried it (0: only a baseline sets it)."),
        c("classes", StrList, "", "The entity classes that send it."),
    ],
    dynamic: &[],
};

/// Every table, in the order of [`crate::TableKind::ALL`].
pub const TABLES: &[&TableSpec] = &[
    &EVENTS,
    &TICKS,
    &PLAYERS,
    &CHAT,
    &GRENADES,
    &ROUNDS,
    &KILLS,
    &DAMAGES,
    &PURCHASES,
    &USER_COMMANDS,
    &SHOTS,
    &BOMB,
    &SMOKES,
    &INFERNOS,
    &FLASHES,
    &FOOTSTEPS,
    &ITEM_DROPS,
    &SKINS,
    &COMBAT_LOG,
    &UPDATED_FIELDS,
    &HEADER,
];

/// The reference of a table by name.
pub fn spec(name: &str) -> Option<&'static TableSpec> {
    TABLES.iter().copied().find(|t| t.name == name)
}

/// A type's name in the reference, and what it is in each format.
pub fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Bool => "bool",
        Kind::I64 => "int64",
        Kind::U64 => "uint64",
        Kind::F32 => "float32",
        Kind::Str => "string",
        Kind::F32List => "list<float32>",
        Kind::StrList => "list<string>",
        Kind::U64List => "list<uint64>",
    }
}

/// Every type, for the reference's table of types.
const KINDS: [(Kind, &str, &str); 8] = [
    (Bool, "`true` / `false`", "boolean"),
    (I64, "decimal", "number"),
    (U64, "decimal", "number"),
    (F32, "decimal", "number"),
    (
        Str,
        "text, quoted when it holds a comma, quote or line break",
        "string",
    ),
    (F32List, "`[1 2 3]`", "array of numbers"),
    (StrList, "JSON array", "array of strings"),
    (Kind::U64List, "JSON array", "array of numbers"),
];

/// A cell of a Markdown table: `|` escaped.
fn md(s: &str) -> String {
    s.replace('|', "\\|")
}

/// The reference as Markdown: `docs/tables.md`.
pub fn markdown() -> String {
    let mut out = String::new();
    out.push_str(
        "# Tables\n\n\
         <!-- Generated from crates/query/src/reference.rs by `cargo xtask tables-doc`; \
         do not edit by hand. -->\n\n\
         Every table gamewire writes (`gamewire table`, `gamewire batch`, the Python \
         `Demo` methods), with each column's type, unit and meaning. CSV, JSON Lines and \
         Parquet hold the same columns in the same order; JSON keys follow the column \
         order. A null is an empty CSV field, `null` in JSON Lines and a null in Parquet. \
         When several demos are written together, a `demo` column (the file name without \
         `.dem`) comes first.\n\n\
         ## One vocabulary\n\n\
         - **team**: `team`, the team number as an integer (0 none, 1 spectator, 2 T or \
         Radiant, 3 CT or Dire); with a role prefix where a row has several players \
         (`attacker_team`, `victim_team`, `thrower_team`).\n\
         - **position**: `x`, `y`, `z` in game units; prefixed where a row has several \
         (`detonate_x`).\n\
         - **entity**: `entity_id`, the entity's index.\n\
         - **player**: `name`, `steamid` (bots have steam id 0) and `slot` (the player \
         slot: the controller's entity index minus 1), with the same role prefixes.\n\
         - **weapon**: `weapon` is the short name (`ak47`, `galilar`, `knife`: without \
         `weapon_` or `item_`, every knife as `knife`); `weapon_class` beside it is the \
         name as the game sent it (`weapon_ak47`). A display name (`AK-47`) is \
         `item_name`, in the economy tables only.\n\
         - **event**: `event_name`. A **hit group** is its name (`generic`, `head`, \
         `chest`, `stomach`, `left_arm`, `right_arm`, `left_leg`, `right_leg`, `neck`, \
         `gear`).\n\
         - A prop asked for by name keeps the name asked for (`--props X,team_num` gives \
         columns `X` and `team_num`; in `events`, `user_X`).\n\n\
         ## Types\n\n\
         | type | CSV | JSON Lines | Parquet |\n\
         |---|---|---|---|\n",
    );
    for (kind, csv, json) in KINDS {
        let name = kind_name(kind);
        let parquet = match kind {
            Kind::F32List => "list of float",
            Kind::StrList => "list of utf8",
            Kind::U64List => "list of uint64",
            Kind::Str => "utf8",
            Kind::Bool => "boolean",
            Kind::I64 => "int64",
            Kind::U64 => "uint64",
            Kind::F32 => "float",
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            md(name),
            csv,
            json,
            parquet
        ));
    }
    out.push_str("\n## The tables\n\n");
    for t in TABLES {
        out.push_str(&format!("- [`{0}`](#{0})\n", t.name));
    }
    for t in TABLES {
        out.push_str(&format!(
            "\n## {}\n\n{}\n\nGames: {}.\n\n",
            t.name, t.row, t.games
        ));
        out.push_str("| column | type | unit | meaning |\n|---|---|---|---|\n");
        for col in t.columns {
            out.push_str(&format!(
                "| `{}` | `{}` | {} | {} |\n",
                col.name,
                md(kind_name(col.kind)),
                md(col.unit),
                md(col.meaning)
            ));
        }
        if !t.dynamic.is_empty() {
            out.push_str("\nThen, by rule:\n\n| columns | type | meaning |\n|---|---|---|\n");
            for dy in t.dynamic {
                out.push_str(&format!(
                    "| `{}` | {} | {} |\n",
                    md(dy.pattern),
                    md(dy.kind),
                    md(dy.meaning)
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn names_are_unique_and_follow_the_vocabulary() {
        let mut names: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), TABLES.len());
        for t in TABLES {
            let cols = t.column_names();
            let mut unique = cols.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), cols.len(), "{}: a column twice", t.name);
            for col in t.columns {
                let n = col.name;
                assert!(!col.meaning.is_empty(), "{}.{n}: no meaning", t.name);
                // Words the vocabulary replaced.
                for old in ["team_num", "entity_index", "player_slot", "location_"] {
                    assert!(!n.contains(old), "{}.{n}", t.name);
                }
                assert!(
                    !["X", "Y", "Z", "event", "entity"].contains(&n),
                    "{}.{n}",
                    t.name
                );
                assert_eq!(n, n.to_lowercase(), "{}.{n}", t.name);
                // Every steam id is a uint64, every team an integer.
                if n.ends_with("steamid") {
                    assert_eq!(col.kind, Kind::U64, "{}.{n}", t.name);
                }
                if n == "team" || n.ends_with("_team") || n.ends_with("slot") {
                    assert_eq!(col.kind, Kind::I64, "{}.{n}", t.name);
                }
            }
        }
    }

    #[test]
    fn every_table_is_in_the_markdown() {
        let doc = markdown();
        for t in TABLES {
            assert!(doc.contains(&format!("\n## {}\n", t.name)), "{}", t.name);
            for col in t.columns {
                assert!(doc.contains(&format!("| `{}` |", col.name)));
            }
        }
    }
}
