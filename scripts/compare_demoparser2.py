#!/usr/bin/env python3
"""Differential test: `gamewire` against demoparser2 0.42.0 (PyPI) on the CS2 corpus.

Usage:
    python3 scripts/compare_demoparser2.py [GAMEWIRE] [CORPUS_DIR] [--max-report N]

Defaults (relative to the repository root): GAMEWIRE = target/release/gamewire,
CORPUS_DIR = the corpus's cs2/ (GAMEWIRE_CORPUS, default ../shared/corpus). Needs
`pip install demoparser2==0.42.0` (it brings pandas; `.ci/setup-demoparser2.sh start` makes a venv
with it under target/peers-venv).

For every `*.dem` in CORPUS_DIR (all are tried) it compares:

 (a) ticks: demoparser2 `parse_ticks(PROPS)` against
     `gamewire ticks DEMO --props PROPS --format jsonl`. Rows are matched by (tick, steamid);
     both sides must have the same rows; ints and strings must be equal, floats within 1e-3.
 (b) `list_game_events()` against `gamewire events DEMO --list`, as sets.
 (c) for each event name demoparser2 lists: `parse_event(name)` against
     `gamewire events DEMO --name NAME --format jsonl`: same number of rows, same ticks (row by
     row, in stream order), and equal values in every column both sides have, after the
     mapping described in EVENT COLUMN MAPPING below.
 (d) every demoparser2 player prop name gamewire reads (EVERY_TICK_PROP: 254 names) in one
     `parse_ticks` call against one `gamewire ticks` run: the same rows, and every value equal;
     a prop demoparser2 gives no column for (its field is not in that game build) must be null
     in every gamewire row. NOT_COMPARED and PEER_EMPTY_FIRST_ROWS give the exceptions and why.

 (e) `list_updated_fields()` against `gamewire table updated_fields`, as sets; the differences
     allowed (how demoparser2 tells weapon and grenade classes by their text) are listed above
     compare_updated_fields.

A demo on which demoparser2 raises (0.42.0: IllegalPathOp on 14011 and 14150_ag2, see
../shared/corpus/SOURCES.md) is reported as "peer failed" and is not a failure of ours; for those
we still run our side and print what we produced (and the event-name comparison when the
peer's list_game_events, which does not decode entities, succeeded) for information only.

Exit status: 0 if every comparable demo matches, 1 on any mismatch (or if our binary fails on a
demo the peer reads, or if no demo could be compared at all), 2 on usage errors.

EVENT COLUMN MAPPING (demoparser2 0.42.0, src/parser/src/second_pass/game_events.rs and
src/python/src/lib.rs):
  * demoparser2 drops the keys userid, attacker, assister, victim, userid_pawn, attacker_pawn,
    assister_pawn, victim_pawn (INTERNALEVENTFIELDS). gamewire prints them raw; they are
    ignored here (listed as "ours only, expected").
  * demoparser2 adds `tick` (the demo frame tick; -1 for signon frames) and, per player key
    userid/attacker/assister/victim, `<prefix>_name` and `<prefix>_steamid` (a string) with
    prefix user/attacker/assister/victim. gamewire prints the same names; compared directly.
    (demoparser2 also resolves `entityid` or `userid_pawn` to user_* when the event has no
    `userid`; if gamewire does not, those columns show up as "only in demoparser2" = mismatch.)
  * gamewire's `event` column (the event name) has no demoparser2 counterpart; it is checked to
    equal the requested name and otherwise ignored.
  * `hitgroup`: demoparser2 replaces the integer by a name (HIT_GROUP map in maps.rs, unknown
    values become the decimal string). We apply the same map to our integer before comparing.
  * `server_cvar` is not a game event: demoparser2 synthesizes one row per convar of each
    CNETMsg_SetConVar (columns name, value, tick). 0.42.0 has a bug there
    (create_custom_event_parse_convars pushes into one `fields` vector that is never cleared, and
    series_from_event then turns every repeated field into a row): a message with n convars
    yields 1 + 2 + ... + n rows, the k-th event contributing convars 0..k. We undo that
    ("de-triangulate": take the last row of each group of 1, 2, 3, ... rows) and then require
    one row per convar, like gamewire's.
  * Everything else is compared as is: integers exactly (int vs float allowed if numerically
    equal), floats within 1e-3 absolute, bools and strings exactly, null only equals null
    (NaN/None/pd.NA are null).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def corpus_root() -> Path:
    """The corpus: GAMEWIRE_CORPUS (a relative value is taken from the repository root), else
    ../shared/corpus beside the repository, as for the tests (crates/corpus)."""
    return Path(os.path.normpath(REPO / (os.environ.get("GAMEWIRE_CORPUS") or "../shared/corpus")))


TICK_PROPS = ["X", "Y", "Z", "health", "armor_value", "team_num", "pitch", "yaw"]
FLOAT_TOL = 1e-3

# (d) every demoparser2 0.42.0 player prop name gamewire's `ticks` reads (its
# FRIENDLY_NAMES_MAPPING: pawn, controller, active-weapon, button and computed props, team
# props of the player's team and game-wide props repeated per row), compared in one call each.
EVERY_TICK_PROP = [
    "glove_item_idx", "FORWARD", "LEFT", "RIGHT", "BACK", "FIRE", "RIGHTCLICK", "RELOAD",
    "INSPECT", "USE", "ZOOM", "SCOREBOARD", "WALK", "pitch", "yaw", "aim_punch_angle",
    "aim_punch_angle_vel", "entity_id", "is_alive", "rank", "rank_if_win", "rank_if_loss",
    "rank_if_tie", "mvps", "active_weapon_original_owner", "buttons", "is_auto_muted",
    "crosshair_code", "pending_team_num", "player_color", "ever_played_on_team", "clan_name",
    "is_coach_team", "comp_wins", "comp_rank_type", "is_controlling_bot",
    "has_controlled_bot_this_round", "can_control_bot", "user_id", "armor", "has_defuser",
    "has_helmet", "spawn_time", "death_time", "score", "is_connected", "player_name",
    "player_steamid", "fov", "balance", "start_balance", "total_cash_spent",
    "cash_spent_this_round", "music_kit_id", "leader_honors", "teacher_honors",
    "friendly_honors", "kills_total", "deaths_total", "assists_total", "ace_rounds_total",
    "4k_rounds_total", "3k_rounds_total", "damage_total", "objective_total",
    "kill_reward_total", "cash_earned_total", "ping", "move_collide", "move_type", "team_num",
    "active_weapon", "looking_at_weapon", "holding_look_at_weapon", "next_attack_time",
    "duck_time_ms", "max_speed", "max_fall_velo", "duck_amount", "duck_speed", "duck_overrdie",
    "old_jump_pressed", "jump_until", "jump_velo", "fall_velo", "in_crouch", "crouch_state",
    "ducked", "ducking", "in_duck_jump", "allow_auto_movement", "jump_time_ms",
    "last_duck_time", "is_rescuing", "weapon_purchases_this_match",
    "weapon_purchases_this_round", "spotted", "time_last_injury", "direction_last_injury",
    "player_state", "passive_items", "is_scoped", "is_walking", "resume_zoom", "is_defusing",
    "is_grabbing_hostage", "blocking_use_in_progess", "molotov_damage_time",
    "moved_since_spawn", "in_bomb_zone", "in_buy_zone", "in_no_defuse_area", "killed_by_taser",
    "move_state", "which_bomb_zone", "in_hostage_rescue_zone", "stamina", "direction",
    "shots_fired", "armor_value", "velo_modifier", "ground_accel_linear_frac_last_time",
    "flash_duration", "flash_max_alpha", "wait_for_no_attack", "last_place_name",
    "is_strafing", "round_start_equip_value", "current_equip_value", "time", "health",
    "life_state", "X", "Y", "Z", "velocity", "velocity_X", "velocity_Y", "velocity_Z",
    "active_weapon_name", "active_weapon_ammo", "total_ammo_left", "item_def_idx",
    "weapon_quality", "entity_lvl", "item_id_high", "item_id_low", "item_account_id",
    "inventory_position", "is_initialized", "custom_name", "orig_owner_xuid_low",
    "orig_owner_xuid_high", "fall_back_paint_kit", "fall_back_seed", "fall_back_wear",
    "fall_back_stat_track", "m_iState", "fire_seq_start_time", "fire_seq_start_time_change",
    "is_player_fire_event_primary", "weapon_mode", "accuracy_penalty", "i_recoil_idx",
    "fl_recoil_idx", "is_burst_mode", "post_pone_fire_ready_time", "is_in_reload",
    "reload_visually_complete", "dropped_at_time", "is_hauled_back", "is_silencer_on",
    "time_silencer_switch_complete", "orig_team_number", "prev_owner", "last_shot_time",
    "iron_sight_mode", "num_empty_attacks", "zoom_lvl", "burst_shots_remaining",
    "needs_bolt_action", "next_primary_attack_tick", "next_primary_attack_tick_ratio",
    "next_secondary_attack_tick", "next_secondary_attack_tick_ratio", "is_airborne",
    "total_rounds_played", "is_bomb_planted", "is_bomb_dropped", "is_freeze_period",
    "is_warmup_period", "is_match_started", "game_phase", "round_win_status",
    "round_win_reason", "round_start_time", "game_time", "team_name", "team_rounds_total",
    "team_clan_name", "team_surrendered", "team_score_first_half", "team_score_second_half",
    "team_score_overtime", "team_num_map_victories", "alive_time_total",
    "headshot_kills_total", "utility_damage_total", "enemies_flashed_total",
    "equipment_value_total", "money_saved_total",
    "inventory",
    "usercmd_viewangle_x", "usercmd_viewangle_y", "usercmd_viewangle_z",
    "usercmd_buttonstate_1", "usercmd_buttonstate_2", "usercmd_buttonstate_3",
    "usercmd_forward_move", "usercmd_left_move", "usercmd_impulse", "usercmd_mouse_dx",
    "usercmd_mouse_dy", "usercmd_consumed_server_angle_changes", "usercmd_input_history",
    "usercmd_weapon_select", "usercmd_left_hand_desired",
    "inventory_as_ids", "approximate_spotted_by", "agent_skin", "inventory_as_bitmask",
    "kills_this_round", "deaths_this_round", "assists_this_round", "alive_time_this_round",
    "headshot_kills_this_round", "damage_this_round", "objective_this_round",
    "utility_damage_this_round", "enemies_flashed_this_round", "equipment_value_this_round",
    "money_saved_this_round", "kill_reward_this_round", "cash_earned_this_round",
    # raw props in demoparser2's spelling: the active weapon's (`Weapon.`, `Grenade.`; its
    # list_updated_fields names them so), nested tables by serializer name
    "Weapon.m_iClip2", "Weapon.m_nNextThinkTick", "Weapon.CBodyComponentBaseAnimGraph.m_cellX",
    "Grenade.m_bRedraw", "Grenade.m_fThrowTime", "Grenade.CBodyComponentBaseAnimGraph.m_vecZ",
    "CCSPlayerPawn.CCSPlayer_CameraServices.m_iFOV", "CCSPlayerPawn.m_vecX", "CCSPlayerPawn.m_vecZ",
    "CCSPlayerController.CCSPlayerController_ActionTrackingServices.m_iNumRoundKills",
]
# Props gamewire gives as JSON text (demoparser2: Python lists of dicts); parsed before comparing.
# Before a player's first user command gamewire gives null, demoparser2 an empty list: equal.
JSON_PROPS = {"usercmd_input_history"}
# Names of EVERY_TICK_PROP compared differently, and why.
NOT_COMPARED = {
    "total_ammo_left": "demoparser2 keeps whichever element of m_pReserveAmmo was written last "
                       "(element 1 on 14155's P2000); gamewire reads element 0",
    "WALK": "demoparser2 0.42.0 maps WALK to IN_WALK, a name its button table lacks, so it never "
            "gives the column; gamewire reads bit 18 of m_nButtonDownMaskPrev",
    "time": "demoparser2 0.42.0 gives no column on these demos although the pawn has "
            "m_flSimulationTime; gamewire reads it",
    "usercmd_weapon_select": "demoparser2 0.42.0 maps the name but never stores the command's "
                             "weaponselect, so its column stays empty; gamewire reads it",
    "usercmd_left_hand_desired": "demoparser2 0.42.0 maps the name but never stores the "
                                 "command's left_hand_desired; gamewire reads it",
}
# velocity: gamewire takes (position - previous row's position) * tick rate, from a player's
# second row on; demoparser2 0.42.0 leaves a player's first three rows empty. Rows where
# demoparser2 has a value are compared.
PEER_EMPTY_FIRST_ROWS = {"velocity", "velocity_X", "velocity_Y", "velocity_Z"}

# demoparser2 INTERNALEVENTFIELDS: removed from its output, printed raw by gamewire.
DP2_DROPPED_KEYS = {
    "userid",
    "attacker",
    "assister",
    "victim",
    "userid_pawn",
    "attacker_pawn",
    "assister_pawn",
    "victim_pawn",
}
# Columns only gamewire prints, by design.
OURS_ONLY_EXPECTED = DP2_DROPPED_KEYS | {"event_name"} | {
    f"{p}_slot" for p in ("user", "attacker", "assister", "victim")
}
# The player columns of an event (`user_name`, `attacker_X`, ...). gamewire fills them for bots
# (their slot's controller); demoparser2 leaves a bot's null, so a null of demoparser2 beside a
# bot's value (steam id 0) is not a mismatch.
PLAYER_PREFIXES = ("user_", "attacker_", "assister_", "victim_")


def bot_column_demoparser2_leaves_null(column: str, ours_row: dict, theirs_value) -> bool:
    prefix = next((p for p in PLAYER_PREFIXES if column.startswith(p)), None)
    return (prefix is not None and norm(theirs_value) is None
            and norm(ours_row.get(prefix + "steamid")) in (0, None))

# demoparser2 maps.rs HIT_GROUP.
HIT_GROUP = {
    0: "generic",
    1: "head",
    2: "chest",
    3: "stomach",
    4: "left_arm",
    5: "right_arm",
    6: "left_leg",
    7: "right_leg",
    8: "neck",
    10: "gear",
}


# ---------------------------------------------------------------------------------------------
# value normalisation and comparison


def norm(v):
    """Turn numpy/pandas scalars into plain Python values; every kind of null into None."""
    if v is None:
        return None
    try:
        import pandas as pd  # noqa: PLC0415

        if v is pd.NA or v is pd.NaT:
            return None
    except ImportError:
        pass
    if hasattr(v, "item") and not isinstance(v, (list, dict, str, bytes)):
        try:
            v = v.item()
        except (ValueError, AttributeError):
            pass
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def values_equal(ours, theirs) -> bool:
    ours, theirs = norm(ours), norm(theirs)
    if hasattr(ours, "tolist") and not isinstance(ours, (str, bytes)):
        ours = ours.tolist()
    if hasattr(theirs, "tolist") and not isinstance(theirs, (str, bytes)):
        theirs = theirs.tolist()
    if isinstance(ours, dict) or isinstance(theirs, dict):
        return (isinstance(ours, dict) and isinstance(theirs, dict)
                and set(ours) == set(theirs)
                and all(values_equal(ours[k], theirs[k]) for k in ours))
    if isinstance(ours, (list, tuple)) or isinstance(theirs, (list, tuple)):
        return (isinstance(ours, (list, tuple)) and isinstance(theirs, (list, tuple))
                and len(ours) == len(theirs)
                and all(values_equal(a, b) for a, b in zip(ours, theirs)))
    if ours is None or theirs is None:
        return ours is None and theirs is None
    if isinstance(ours, bool) or isinstance(theirs, bool):
        return isinstance(ours, bool) and isinstance(theirs, bool) and ours == theirs
    if isinstance(ours, (int, float)) and isinstance(theirs, (int, float)):
        if isinstance(ours, int) and isinstance(theirs, int):
            return ours == theirs
        return abs(float(ours) - float(theirs)) <= FLOAT_TOL
    return ours == theirs


def show(v) -> str:
    v = norm(v)
    return json.dumps(v) if not isinstance(v, float) else repr(v)


def df_records(df) -> list[dict]:
    """A demoparser2 result (DataFrame, or [] when there is nothing) as a list of dicts."""
    if isinstance(df, list):
        return []
    return [{k: norm(v) for k, v in r.items()} for r in df.to_dict("records")]


# ---------------------------------------------------------------------------------------------
# running both sides


class OursFailed(Exception):
    pass


def run_ours(gamewire: str, args: list[str]) -> str:
    cmd = [gamewire, *args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        err = p.stderr.strip().splitlines()
        raise OursFailed(f"`{' '.join(cmd)}` exited {p.returncode}: {err[-1] if err else ''}")
    return p.stdout


def ours_jsonl(gamewire: str, args: list[str]) -> list[dict]:
    out = run_ours(gamewire, args)
    rows = []
    for n, line in enumerate(out.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise OursFailed(f"line {n} of `gamewire {' '.join(args)}` is not JSON: {e}") from e
    return rows


def peer(fn, *a):
    """Call demoparser2; returns (result, None) or (None, error text)."""
    try:
        return fn(*a), None
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # noqa: BLE001 - pyo3 PanicException is a BaseException
        return None, f"{type(e).__name__}: {e}"


# ---------------------------------------------------------------------------------------------
# report


class Report:
    def __init__(self, max_report: int):
        self.max_report = max_report
        self.mismatches = 0  # counted failures for the exit status

    def say(self, text: str = ""):
        print(text, flush=True)

    def fail(self, text: str):
        self.mismatches += 1
        print("    MISMATCH " + text, flush=True)


def compare_ticks(rep: Report, demo: Path, gamewire: str, dp) -> dict:
    name = demo.name
    theirs_df, perr = peer(dp.parse_ticks, TICK_PROPS)
    if perr is not None:
        return {"peer_error": perr}
    theirs = df_records(theirs_df)
    # demoparser2's rows are the players with a steam id: gamewire's --humans-only.
    ours = ours_jsonl(
        gamewire, ["ticks", str(demo), "--props", ",".join(TICK_PROPS), "--format", "jsonl",
                   "--humans-only"]
    )
    rep.say(f"  (a) ticks: demoparser2 {len(theirs)} rows, gamewire {len(ours)} rows")
    if len(theirs) != len(ours):
        rep.fail(f"{name} ticks: row count differs: gamewire {len(ours)} vs demoparser2 {len(theirs)}")

    def index(rows):
        out: dict[tuple, dict] = {}
        for r in rows:
            key = (norm(r.get("tick")), norm(r.get("steamid")))
            n = 0
            while (key[0], key[1], n) in out:
                n += 1
            out[(key[0], key[1], n)] = r
        return out

    oi, ti = index(ours), index(theirs)
    only_ours = sorted(set(oi) - set(ti), key=lambda k: (k[0], k[1], k[2]))
    only_theirs = sorted(set(ti) - set(oi), key=lambda k: (k[0], k[1], k[2]))
    for label, keys in (("only in gamewire", only_ours), ("only in demoparser2", only_theirs)):
        if keys:
            rep.fail(f"{name} ticks: {len(keys)} rows {label}; first: " + ", ".join(
                f"(tick {k[0]}, steamid {k[1]})" for k in keys[: rep.max_report]))
    common = sorted(set(oi) & set(ti), key=lambda k: (k[0], k[1], k[2]))
    cols = TICK_PROPS + ["name"]
    missing_cols = [c for c in cols if ours and c not in ours[0]]
    if missing_cols:
        rep.fail(f"{name} ticks: gamewire rows lack columns {missing_cols}")
    per_col: dict[str, int] = {}
    shown = 0
    for k in common:
        o, t = oi[k], ti[k]
        for c in cols:
            if c in missing_cols:
                continue
            if not values_equal(o.get(c), t.get(c)):
                per_col[c] = per_col.get(c, 0) + 1
                if shown < rep.max_report:
                    shown += 1
                    rep.say(f"    diff {name} tick {k[0]} steamid {k[1]} {c}: "
                            f"gamewire {show(o.get(c))} vs demoparser2 {show(t.get(c))}")
    if per_col:
        rep.fail(f"{name} ticks: value mismatches per column: {per_col} (of {len(common)} matched rows)")
    else:
        rep.say(f"    {len(common)} matched rows, all {len(cols)} columns equal")
    return {"rows": len(common), "ours_rows": len(ours), "peer_rows": len(theirs),
            "bad": sum(per_col.values()) + len(only_ours) + len(only_theirs)}


def compare_event_list(rep: Report, demo: Path, gamewire: str, dp, counted: bool):
    theirs, perr = peer(dp.list_game_events)
    if perr is not None:
        rep.say(f"  (b) list_game_events: peer failed ({perr})")
        return None, None
    ours_out = run_ours(gamewire, ["events", str(demo), "--list"])
    ours = {line.strip() for line in ours_out.splitlines() if line.strip()}
    theirs = set(theirs)
    tag = "" if counted else " [information only: peer cannot read this demo]"
    if ours == theirs:
        rep.say(f"  (b) event names: equal ({len(ours)}): {', '.join(sorted(ours))}{tag}")
    else:
        msg = (f"{demo.name} event names differ: only gamewire {sorted(ours - theirs)}, "
               f"only demoparser2 {sorted(theirs - ours)}")
        if counted:
            rep.fail(msg)
        else:
            rep.say("    (info) " + msg + tag)
    return ours, theirs


def detriangulate(rows: list[dict]) -> list[dict] | None:
    """Undo demoparser2 0.42.0's server_cvar duplication (see module doc).

    The peer's rows come as groups of length 1, 2, ..., n per CNETMsg_SetConVar, where group k
    repeats the first k-1 convars and ends with convar k. Returns the last row of each group, or
    None if the rows do not have that shape."""
    key = lambda r: (r.get("tick"), r.get("name"), r.get("value"))  # noqa: E731
    out: list[dict] = []
    messages: list[int] = []  # convars per message
    prev: list = []
    i = 0
    while i < len(rows):
        k = len(prev)
        cand = [key(r) for r in rows[i : i + k + 1]]
        if k and len(cand) == k + 1 and cand[:k] == prev:
            messages[-1] += 1
        else:
            cand = cand[:1]
            messages.append(1)
        prev = cand
        i += len(cand)
        out.append(rows[i - 1])
    # Re-triangulating must give the input back.
    again, start = [], 0
    for n in messages:
        for k in range(1, n + 1):
            again.extend(key(r) for r in out[start : start + k])
        start += n
    return out if again == [key(r) for r in rows] else None


def compare_one_event(rep: Report, demo: Path, gamewire: str, dp, ev: str) -> tuple[int, int]:
    name = demo.name
    theirs_df, perr = peer(dp.parse_event, ev)
    if perr is not None:
        rep.fail(f"{name} event {ev}: demoparser2 parse_event failed ({perr}) although parse_ticks worked")
        return 0, 1
    theirs = df_records(theirs_df)
    note = ""
    if ev == "server_cvar":
        n_raw = len(theirs)
        fixed = detriangulate(theirs)
        if fixed is None:
            note = f" (demoparser2's {n_raw} rows do not have the 0.42.0 duplication shape; compared raw)"
        else:
            theirs = fixed
            note = f" (demoparser2's {n_raw} raw rows de-triangulated to {len(theirs)})"
    try:
        ours = ours_jsonl(gamewire, ["events", str(demo), "--name", ev, "--format", "jsonl"])
    except OursFailed as e:
        rep.fail(f"{name} event {ev}: {e}")
        return 0, 1
    bad = 0
    if len(ours) != len(theirs):
        rep.fail(f"{name} event {ev}: row count gamewire {len(ours)} vs demoparser2 {len(theirs)}{note}")
        bad += 1
    wrong_event = [r.get("event_name") for r in ours if r.get("event_name") != ev]
    if wrong_event:
        rep.fail(f"{name} event {ev}: gamewire printed rows with event_name = "
                 f"{sorted(set(map(str, wrong_event)))}")
        bad += 1
    ours_cols, their_cols = set(), set()
    for r in ours:
        ours_cols |= set(r)
    for r in theirs:
        their_cols |= set(r)
    common = sorted(ours_cols & their_cols)
    only_theirs = sorted(their_cols - ours_cols)
    only_ours_unexpected = sorted(ours_cols - their_cols - OURS_ONLY_EXPECTED)
    only_ours_expected = sorted((ours_cols - their_cols) & OURS_ONLY_EXPECTED)
    if only_theirs and ours:
        rep.fail(f"{name} event {ev}: columns only in demoparser2: {only_theirs}")
        bad += 1
    ours_ticks = [norm(r.get("tick")) for r in ours]
    their_ticks = [norm(r.get("tick")) for r in theirs]
    if ours_ticks != their_ticks:
        first = next((i for i, (a, b) in enumerate(zip(ours_ticks, their_ticks)) if a != b),
                     min(len(ours_ticks), len(their_ticks)))
        rep.fail(f"{name} event {ev}: ticks differ from row {first}: gamewire "
                 f"{ours_ticks[first:first + 5]} vs demoparser2 {their_ticks[first:first + 5]}")
        bad += 1
    per_col: dict[str, int] = {}
    shown = 0
    for i, (o, t) in enumerate(zip(ours, theirs)):
        for c in common:
            ov = o.get(c)
            if c == "hitgroup" and isinstance(ov, int) and not isinstance(ov, bool):
                ov = HIT_GROUP.get(ov, str(ov))
            if bot_column_demoparser2_leaves_null(c, o, t.get(c)):
                continue
            if not values_equal(ov, t.get(c)):
                per_col[c] = per_col.get(c, 0) + 1
                if shown < rep.max_report:
                    shown += 1
                    rep.say(f"    diff {name} event {ev} row {i} tick {t.get('tick')} {c}: "
                            f"gamewire {show(ov)} vs demoparser2 {show(t.get(c))}")
    if per_col:
        rep.fail(f"{name} event {ev}: value mismatches per column {per_col}")
        bad += sum(per_col.values())
    status = "ok" if not bad else "MISMATCH"
    extra = f"; ours only (expected): {only_ours_expected}" if only_ours_expected else ""
    extra += f"; ours only (unexpected, not compared): {only_ours_unexpected}" if only_ours_unexpected else ""
    rep.say(f"      {ev}: {len(theirs)} rows, compared columns {common}{note}{extra} -> {status}")
    return min(len(ours), len(theirs)), bad


def compare_every_prop(rep: Report, demo: Path, gamewire: str, dp) -> dict:
    """(d): EVERY_TICK_PROP in one `parse_ticks` call and one `gamewire ticks` run. A prop
    demoparser2 gives no column for (the field is not in this game build) must be null in every
    gamewire row."""
    name = demo.name
    props = [p for p in EVERY_TICK_PROP if p not in NOT_COMPARED]
    theirs_df, perr = peer(dp.parse_ticks, props)
    if perr is not None:
        rep.fail(f"{name} every prop: demoparser2 raised {perr}")
        return {}
    peer_cols = set(theirs_df.columns)
    theirs = df_records(theirs_df)
    ours = ours_jsonl(gamewire, ["ticks", str(demo), "--props", ",".join(props),
                                 "--format", "jsonl", "--humans-only"])
    if [(r.get("tick"), r.get("steamid")) for r in ours] != \
            [(norm(r.get("tick")), norm(r.get("steamid"))) for r in theirs]:
        rep.fail(f"{name} every prop: the rows differ (gamewire {len(ours)}, "
                 f"demoparser2 {len(theirs)})")
        return {}
    per_col: dict[str, int] = {}
    values = 0
    absent = [p for p in props if p not in peer_cols]
    for p in props:
        for i, (o, t) in enumerate(zip(ours, theirs)):
            if p not in peer_cols:
                ok = norm(o.get(p)) is None
            elif p in PEER_EMPTY_FIRST_ROWS and norm(t.get(p)) is None:
                continue
            else:
                ov = o.get(p)
                if p in JSON_PROPS:
                    ov = json.loads(ov) if isinstance(ov, str) else []
                ok = values_equal(ov, t.get(p))
            values += 1
            if not ok:
                if per_col.get(p, 0) == 0:
                    rep.say(f"    diff {name} row {i} tick {t.get('tick')} {p}: gamewire "
                            f"{show(o.get(p))} vs demoparser2 "
                            f"{show(t.get(p)) if p in peer_cols else '(no column)'}")
                per_col[p] = per_col.get(p, 0) + 1
    rep.say(f"  (d) every prop: {len(props)} props x {len(ours)} rows, {values} values; "
            f"{len(absent)} props demoparser2 has no column for (null here)")
    if per_col:
        rep.fail(f"{name} every prop: mismatches per prop: {per_col}")
    return {"props": len(props), "values": values}


# (e) demoparser2 names prop classes by their text (src/parser/src/second_pass/entities.rs,
# should_emit_prop_to_listen and convert_weapon_prefix_to_general); gamewire by what the class
# is. The differences this makes, each checked against the `classes` column of ours:
#   * classes demoparser2's weapon test (a name containing Weapon, AK or CDEagle) leaves out,
#     but that are weapons a player holds: the C4 and the knives. Their props are Weapon.* here.
HELD_NOT_LISTED_BY_PEER = ("CC4", "CKnife")
#   * a weapon prop whose name contains one of these demoparser2 calls a grenade prop.
PEER_GRENADE_WORDS = ("Molo", "Inc", "Infer", "Projectile", "Grenade", "Flash")
#   * `Weapon.` and `Grenade.` with nothing after the dot: names demoparser2 builds for paths
#     without a field (not props).
PEER_EMPTY_NAMES = {"Weapon.", "Grenade."}


def updated_fields_differences(ours: dict, theirs: set) -> tuple[list, list]:
    """Names in one list only, as (explained, unexplained). `ours`: name -> its classes."""
    explained, unexplained = [], []
    for n in sorted(set(ours) - theirs):
        classes = ours[n]
        field = n.split(".", 1)[1]
        if n.startswith("Weapon.") and (
                all(c.startswith(HELD_NOT_LISTED_BY_PEER) for c in classes)
                or (any(w in field for w in PEER_GRENADE_WORDS) and "Grenade." + field in theirs)):
            explained.append(n)
        else:
            unexplained.append(f"only gamewire: {n} {classes}")
    for n in sorted(theirs - set(ours)):
        field = n.split(".", 1)[1]
        if n in PEER_EMPTY_NAMES or (
                n.startswith("Grenade.") and any(w in field for w in PEER_GRENADE_WORDS)
                and "Weapon." + field in ours):
            explained.append(n)
        else:
            unexplained.append(f"only demoparser2: {n}")
    return explained, unexplained


def compare_updated_fields(rep: Report, demo: Path, gamewire: str, dp) -> None:
    """(e): `list_updated_fields()` against `gamewire table updated_fields`, as sets; the only
    differences allowed are those above."""
    name = demo.name
    theirs, perr = peer(dp.list_updated_fields)
    if perr is not None:
        rep.fail(f"{name} updated fields: demoparser2 raised {perr}")
        return
    rows = ours_jsonl(gamewire, ["table", "updated_fields", str(demo), "--format", "jsonl"])
    ours = {r["name"]: r["classes"] for r in rows}
    theirs = set(theirs)
    explained, unexplained = updated_fields_differences(ours, theirs)
    rep.say(f"  (e) updated fields: gamewire {len(ours)}, demoparser2 {len(theirs)}, "
            f"{len(set(ours) & theirs)} equal, {len(explained)} differ as expected "
            f"(weapon classes demoparser2 leaves out, its text rules)")
    for u in unexplained[:rep.max_report]:
        rep.say(f"    {u}")
    if unexplained:
        rep.fail(f"{name} updated fields: {len(unexplained)} unexplained differences")


def compare_demo(rep: Report, demo: Path, gamewire: str) -> str:
    from demoparser2 import DemoParser  # noqa: PLC0415

    rep.say(f"== {demo.name} ({demo.stat().st_size / 1e6:.3f} MB)")
    dp = DemoParser(str(demo))
    before = rep.mismatches
    try:
        res = compare_ticks(rep, demo, gamewire, dp)
    except OursFailed as e:
        rep.fail(f"{demo.name}: {e}")
        rep.say("  => MISMATCH (gamewire failed on a demo demoparser2 reads)")
        return "fail"
    if "peer_error" in res:
        rep.say(f"  peer failed: demoparser2 parse_ticks raised {res['peer_error']}")
        # Information only: does our side read it?
        try:
            ours = ours_jsonl(gamewire, ["ticks", str(demo), "--props", ",".join(TICK_PROPS),
                                         "--format", "jsonl"])
            evs = ours_jsonl(gamewire, ["events", str(demo), "--format", "jsonl"])
            rep.say(f"  (info) gamewire: {len(ours)} tick rows, {len(evs)} event rows")
            compare_event_list(rep, demo, gamewire, dp, counted=False)
        except OursFailed as e:
            rep.say(f"  (info) gamewire failed too: {e}")
        rep.say("  => PEER FAILED (not compared)")
        return "peer failed"
    try:
        compare_every_prop(rep, demo, gamewire, dp)
    except OursFailed as e:
        rep.fail(f"{demo.name}: {e}")
    try:
        compare_updated_fields(rep, demo, gamewire, dp)
    except OursFailed as e:
        rep.fail(f"{demo.name}: {e}")
    try:
        ours_list, their_list = compare_event_list(rep, demo, gamewire, dp, counted=True)
    except OursFailed as e:
        rep.fail(f"{demo.name}: {e}")
        ours_list, their_list = None, None
    if their_list is None:
        rep.fail(f"{demo.name}: demoparser2 list_game_events failed although parse_ticks worked")
    else:
        rep.say(f"  (c) parse_event for each of demoparser2's {len(their_list)} events:")
        rows = 0
        for ev in sorted(their_list):
            n, _bad = compare_one_event(rep, demo, gamewire, dp, ev)
            rows += n
        rep.say(f"      {rows} event rows compared")
    ok = rep.mismatches == before
    rep.say("  => OK" if ok else f"  => MISMATCH ({rep.mismatches - before} problems)")
    return "ok" if ok else "fail"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gamewire", nargs="?", default="target/release/gamewire",
                    help="gamewire binary (default target/release/gamewire, relative to the repo root)")
    ap.add_argument("corpus", nargs="?", default=str(corpus_root() / "cs2"),
                    help="directory of CS2 demos (default: cs2/ in GAMEWIRE_CORPUS, or in "
                         "../shared/corpus relative to the repo root)")
    ap.add_argument("--max-report", type=int, default=10,
                    help="value differences to print per comparison (default 10)")
    args = ap.parse_args()
    gamewire = Path(args.gamewire)
    if not gamewire.is_absolute() and not gamewire.exists():
        gamewire = REPO / gamewire
    corpus = Path(args.corpus)
    if not corpus.is_absolute() and not corpus.exists():
        corpus = REPO / corpus
    if not gamewire.is_file():
        print(f"error: gamewire binary not found: {gamewire}", file=sys.stderr)
        return 2
    demos = sorted(corpus.glob("*.dem"))
    if not demos:
        print(f"error: no .dem files in {corpus}", file=sys.stderr)
        return 2
    try:
        import demoparser2  # noqa: F401, PLC0415
    except ImportError:
        print("error: demoparser2 is not installed (pip install demoparser2==0.42.0)", file=sys.stderr)
        return 2
    from importlib.metadata import version  # noqa: PLC0415

    print(f"gamewire: {gamewire}\ndemoparser2 {version('demoparser2')}, corpus {corpus}\n"
          f"tick props: {', '.join(TICK_PROPS)}; float tolerance {FLOAT_TOL}\n")
    rep = Report(args.max_report)
    t0 = time.time()
    results = {}
    for demo in demos:
        results[demo.name] = compare_demo(rep, demo, str(gamewire))
        print()
    print("== summary")
    for name, r in results.items():
        print(f"  {name:20} {r}")
    compared = sum(1 for r in results.values() if r != "peer failed")
    print(f"  {compared} demos compared, {len(results) - compared} peer failed, "
          f"{rep.mismatches} problems ({time.time() - t0:.1f} s)")
    if compared == 0:
        print("FAIL: demoparser2 read none of the demos; nothing was compared")
        return 1
    if rep.mismatches:
        print("FAIL")
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
