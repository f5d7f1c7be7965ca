"""demoparser2's `DemoParser` on gamewire: run code written for demoparser2 0.42 unchanged.

    >>> from gamewire.compat import DemoParser          # was: from demoparser2 import DemoParser
    >>> parser = DemoParser("match.dem")
    >>> deaths = parser.parse_event("player_death", player=["X"], other=["total_rounds_played"])
    >>> ticks = parser.parse_ticks(["X", "Y", "health"], ticks=deaths["tick"].to_list())

`DemoParser` and `WantedPropState` take the arguments demoparser2 0.42 takes, in the same order
and with the same defaults (every option keyword-only), reject the same wrong types with a
`TypeError`, and return what it returns: pandas DataFrames with its column names, column order
and dtypes, `parse_events` a list of `(event name, DataFrame)` tuples, `parse_header` a dict of
strings, `list_game_events` and `list_updated_fields` lists of strings. The work is done by
`gamewire.Demo`; this module only reshapes its tables. New code should use `gamewire.Demo`:
its names are the command line's, its options are checked, and it reads Deadlock and Dota 2.

demoparser2's shapes that are kept, because code written for it relies on them:

* `parse_event`, `parse_events`: the columns sorted by name; `tick` is `int32`; the player keys
  (`userid`, `attacker`, ...) are resolved to `user_name`, `user_steamid`, `attacker_name`, ...
  and the raw keys left out; steam ids in events are strings; integers `int32` (`float64` when a
  column has nulls), floats `float32`, text the pandas string dtype. A prop of `other` that is a
  player prop (`team_num`) is left out, as demoparser2 does.
* `round_start`, `round_end` and `player_first_connect` also exist on a demo whose server sent no
  such event: they are made from the game state as demoparser2 makes them (`round_end`: when the
  rounds played are first known and each time they grow by one, with `round` (the rounds played),
  `reason` (`t_killed`, `bomb_defused`, ...) and `winner` (`T` or `CT`); `round_start`: `round` =
  rounds played + 1; `player_first_connect`: each player's first tick, with `name`, `steamid`,
  `team` and `player_entity_id`). `parse_events(["all"])` includes them.
* `parse_events` leaves out the events that have no row.
* `parse_ticks`: the props in demoparser2's order (game rules, controller, pawn, team, then
  computed props such as `X`, `is_alive`, `pitch`: not the order asked), then `tick`, `steamid`,
  `name`; its dtypes per prop (`int32`, `uint32`, `uint64`, `float32`, `bool`, strings); no row
  gives an empty DataFrame without columns; the rows are the human players' (bots have none,
  as in demoparser2).
* `parse_player_info`, `parse_skins`, `parse_item_drops`: pyarrow-backed dtypes.
* `parse_header`: every key demoparser2 gives (`patch_version` is the network protocol), values as
  strings.

Where it differs from demoparser2 0.42 (each also in the README):

* `parse_event` of an event that does not occur returns an empty DataFrame with the event's
  columns (demoparser2 returns an empty list).
* `list_game_events` is sorted (demoparser2's order is that of a hash set).
* `parse_voice` returns an empty list: gamewire does not decode voice data.
* In events, the player columns of a bot are filled (`user_name`, `user_steamid` "0", the props
  asked for); demoparser2 0.42 leaves them empty.
* `parse_ticks`: a prop that the demo's game build lacks is a column of nulls (demoparser2
  leaves the column out). The column order is demoparser2's as measured on CS2 builds 10231 to
  10772; demoparser2 follows each build's send tables, so on other builds a few props may sit
  elsewhere in its frames.
* `round_end`'s `reason` and `winner` after a round was played could not be compared with
  demoparser2: the corpus demos it reads end before their first round does.
* `prop_states` compares values, not types: demoparser2 0.42 never matches an unsigned field
  (`team_num`) against a Python int, gamewire does.
* A missing file raises `FileNotFoundError` (demoparser2: its own `Exception` class); an unknown
  prop or event name raises `gamewire.UnknownNameError` (a `ValueError`) with the closest names.
"""

from __future__ import annotations

import math as _math
import typing as _typing
from collections.abc import Sequence as _Sequence

import numpy as _np
import pandas as _pd

if _typing.TYPE_CHECKING:
    from typing import Any as _Any
    from typing import Dict, List, Optional, Sequence, Tuple, Union

from . import Demo as _Demo

__all__ = ["DemoParser", "WantedPropState"]

# The keys demoparser2 resolves to player columns and leaves out of its events.
_PLAYER_KEYS = ("userid", "attacker", "assister", "victim", "userid_pawn", "attacker_pawn",
                "assister_pawn", "victim_pawn")
_PLAYER_PREFIXES = ("user", "attacker", "assister", "victim")

# parse_header's keys, with the column of gamewire's `header` table that holds each.
_HEADER_KEYS = {
    "demo_file_stamp": "demo_file_stamp",
    "patch_version": "network_protocol",
    "server_name": "server_name",
    "map_name": "map",
    "client_name": "client_name",
    "game_directory": "game_directory",
    "demo_version_name": "demo_version_name",
    "demo_version_guid": "demo_version_guid",
    "addons": "addons",
    "fullpackets_version": "fullpackets_version",
    "allow_clientside_entities": "allow_clientside_entities",
    "allow_clientside_particles": "allow_clientside_particles",
}

# The order demoparser2 0.42 gives parse_ticks' columns in. It follows its prop ids, which it
# hands out as it walks the send tables (list-valued props first, then the active weapon's, the
# game rules', the controller's, the pawn's, the team's, the buttons, then its computed props);
# measured on CS2 builds 10231 to 10772.
_ORDER = (
    'usercmd_input_history', 'inventory', 'inventory_as_ids', 'approximate_spotted_by',
    'aim_punch_angle_vel', 'aim_punch_angle', 'active_weapon_ammo',
    'Weapon.CBodyComponentBaseAnimGraph.m_cellX', 'Grenade.CBodyComponentBaseAnimGraph.m_vecZ',
    'item_def_idx', 'weapon_quality', 'entity_lvl', 'item_id_high', 'item_id_low',
    'item_account_id', 'inventory_position', 'is_initialized', 'custom_name',
    'orig_owner_xuid_low', 'orig_owner_xuid_high', 'fall_back_paint_kit', 'fall_back_seed',
    'fall_back_wear', 'fall_back_stat_track', 'fire_seq_start_time',
    'fire_seq_start_time_change', 'm_iState', 'weapon_mode', 'accuracy_penalty',
    'i_recoil_idx', 'fl_recoil_idx', 'is_burst_mode', 'is_in_reload',
    'reload_visually_complete', 'dropped_at_time', 'is_hauled_back', 'is_silencer_on',
    'time_silencer_switch_complete', 'orig_team_number', 'prev_owner', 'last_shot_time',
    'iron_sight_mode', 'zoom_lvl', 'burst_shots_remaining', 'needs_bolt_action',
    'num_empty_attacks', 'Weapon.m_nNextThinkTick', 'next_primary_attack_tick',
    'next_primary_attack_tick_ratio', 'next_secondary_attack_tick',
    'next_secondary_attack_tick_ratio', 'Weapon.m_iClip2', 'total_ammo_left',
    'is_freeze_period', 'is_warmup_period', 'round_start_time', 'game_phase',
    'total_rounds_played', 'is_match_started', 'is_bomb_dropped', 'is_bomb_planted',
    'round_win_status', 'round_win_reason', 'is_connected', 'player_name', 'player_steamid',
    'fov', 'balance', 'start_balance', 'total_cash_spent', 'cash_spent_this_round',
    'music_kit_id', 'leader_honors', 'teacher_honors', 'friendly_honors', 'kills_total',
    'deaths_total', 'assists_total', 'alive_time_total', 'headshot_kills_total',
    'damage_total', 'objective_total', 'utility_damage_total', 'enemies_flashed_total',
    'equipment_value_total', 'money_saved_total', 'kill_reward_total', 'cash_earned_total',
    'kills_this_round', 'deaths_this_round', 'assists_this_round', 'alive_time_this_round',
    'headshot_kills_this_round', 'damage_this_round', 'objective_this_round',
    'utility_damage_this_round', 'enemies_flashed_this_round', 'equipment_value_this_round',
    'money_saved_this_round', 'kill_reward_this_round', 'cash_earned_this_round',
    'ace_rounds_total', '4k_rounds_total', '3k_rounds_total',
    'CCSPlayerController.CCSPlayerController_ActionTrackingServices.m_iNumRoundKills', 'ping',
    'is_auto_muted', 'crosshair_code', 'pending_team_num', 'player_color',
    'ever_played_on_team', 'clan_name', 'is_coach_team', 'rank', 'comp_wins', 'comp_rank_type',
    'rank_if_win', 'rank_if_loss', 'rank_if_tie', 'is_controlling_bot',
    'has_controlled_bot_this_round', 'spawn_time', 'death_time', 'score', 'mvps',
    'can_control_bot', 'armor', 'health', 'life_state', 'move_collide', 'move_type',
    'team_num', 'active_weapon', 'looking_at_weapon', 'holding_look_at_weapon',
    'next_attack_time', 'has_defuser', 'has_helmet',
    'CCSPlayerPawn.CCSPlayer_CameraServices.m_iFOV', 'duck_time_ms', 'max_speed', 'fall_velo',
    'duck_amount', 'duck_speed', 'duck_overrdie', 'old_jump_pressed', 'ducked', 'ducking',
    'jump_time_ms', 'last_duck_time', 'buttons', 'player_state', 'molotov_damage_time',
    'moved_since_spawn', 'flash_duration', 'flash_max_alpha', 'is_rescuing', 'last_place_name',
    'in_buy_zone', 'in_hostage_rescue_zone', 'in_bomb_zone', 'time_last_injury',
    'glove_item_idx', 'is_walking', 'spotted', 'is_scoped', 'resume_zoom', 'is_defusing',
    'is_grabbing_hostage', 'blocking_use_in_progess', 'in_no_defuse_area', 'which_bomb_zone',
    'shots_fired', 'velo_modifier', 'wait_for_no_attack', 'armor_value', 'current_equip_value',
    'round_start_equip_value', 'CCSPlayerPawn.m_vecX', 'CCSPlayerPawn.m_vecZ',
    'team_rounds_total', 'team_name', 'team_surrendered', 'team_num_map_victories',
    'team_score_first_half', 'team_score_second_half', 'team_score_overtime', 'team_clan_name',
    'RELOAD', 'USE', 'FIRE', 'SCOREBOARD', 'BACK', 'INSPECT', 'RIGHT', 'ZOOM', 'FORWARD',
    'LEFT', 'RIGHTCLICK', 'usercmd_mouse_dy', 'is_airborne', 'X', 'is_alive', 'pitch',
    'usercmd_buttonstate_1', 'usercmd_mouse_dx', 'Y', 'usercmd_forward_move',
    'usercmd_viewangle_x', 'usercmd_consumed_server_angle_changes', 'agent_skin',
    'usercmd_left_move', 'usercmd_buttonstate_2', 'usercmd_weapon_select',
    'usercmd_left_hand_desired', 'Z', 'active_weapon_name', 'usercmd_viewangle_y',
    'inventory_as_bitmask', 'usercmd_buttonstate_3', 'active_weapon_original_owner', 'yaw',
    'usercmd_viewangle_z', 'user_id', 'usercmd_impulse', 'entity_id', 'game_time'
)
_RANK = {name: i for i, name in enumerate(_ORDER)}
# Where a raw prop path goes: after the last name of its class's group.
_RAW_ANCHORS = (
    ("Weapon.", "total_ammo_left"),
    ("Grenade.", "total_ammo_left"),
    ("CCSGameRulesProxy.", "round_win_reason"),
    ("CCSPlayerController.", "CCSPlayerController.CCSPlayerController_ActionTrackingServices"
                             ".m_iNumRoundKills"),
    ("CCSPlayerPawn.", "CCSPlayerPawn.m_vecZ"),
    ("CCSTeam.", "team_clan_name"),
)

# demoparser2's dtype of the integer props that are not int32.
_UINT32 = frozenset((
    "active_weapon_ammo", "item_def_idx", "entity_lvl", "item_id_high", "item_id_low",
    "item_account_id", "inventory_position", "orig_owner_xuid_low", "orig_owner_xuid_high",
    "m_iState", "prev_owner", "next_primary_attack_tick", "next_secondary_attack_tick",
    "is_connected", "fov", "music_kit_id", "ping", "pending_team_num", "life_state", "team_num",
    "active_weapon", "glove_item_idx", "current_equip_value", "round_start_equip_value",
    "usercmd_consumed_server_angle_changes", "duck_time_ms", "jump_time_ms",
))
_UINT64 = frozenset((
    "weapon_mode", "player_steamid", "move_collide", "move_type", "buttons", "player_state",
    "blocking_use_in_progess", "usercmd_buttonstate_1", "usercmd_buttonstate_2",
    "usercmd_buttonstate_3", "inventory_as_bitmask",
))
_RAW_UINT32 = ("m_nNextThinkTick", "m_cellX", "m_cellY", "m_cellZ", "m_iFOV")

# CS2's team numbers as demoparser2 names them in its made events.
_TEAM_LETTERS = {2: "T", 3: "CT"}
# CS2's round end reasons (RoundEndReason_t, m_eRoundWinReason), as demoparser2 names them.
_ROUND_END_REASONS = {
    1: "bomb_exploded", 2: "vip_escaped", 3: "vip_killed", 4: "t_escaped", 5: "ct_stopped_escape",
    6: "t_stopped", 7: "bomb_defused", 8: "t_killed", 9: "ct_killed", 10: "draw",
    11: "hostage_rescued", 12: "time_ran_out", 13: "hostages_not_rescued",
    14: "terrorists_not_escaped", 15: "vip_not_escaped", 16: "game_start", 17: "t_surrender",
    18: "ct_surrender", 19: "t_planted", 20: "ct_reached_hostage",
}
_MADE_EVENTS = ("round_start", "round_end", "player_first_connect")

_ROUND_END_WINNER = {
    "bomb_exploded": "T", "vip_escaped": "CT", "vip_killed": "T", "t_escaped": "T",
    "ct_stopped_escape": "CT", "t_stopped": "CT", "bomb_defused": "CT", "t_killed": "CT",
    "ct_killed": "T", "hostage_rescued": "CT", "time_ran_out": "CT",
    "hostages_not_rescued": "T", "terrorists_not_escaped": "CT", "vip_not_escaped": "T",
    "t_surrender": "CT", "ct_surrender": "T", "t_planted": "T", "ct_reached_hostage": "CT",
}
# The game-wide props (the game rules' and the game time) demoparser2 takes in `other`.
_GAME_WIDE = frozenset((
    "is_freeze_period", "is_warmup_period", "round_start_time", "game_phase",
    "total_rounds_played", "is_match_started", "is_bomb_dropped", "is_bomb_planted",
    "round_win_status", "round_win_reason", "game_time",
))


class WantedPropState:
    """A `parse_ticks` row filter: keep the rows where `prop` equals `state`."""

    __slots__ = ("prop", "state")

    def __init__(self, prop: str, state: Union[bool, str, int, float]) -> None:
        if not isinstance(prop, str):
            raise TypeError(f"WantedPropState: prop must be a str, not {type(prop).__name__}")
        if not isinstance(state, (bool, str, int, float)):
            raise TypeError("WantedPropState: state must be a bool, str, int or float, not "
                            f"{type(state).__name__}")
        self.prop = prop
        self.state = state

    def __repr__(self) -> str:
        return f"WantedPropState({self.prop!r}, {self.state!r})"


# -- argument checks: the types demoparser2 accepts, else a TypeError ---------------------------


def _str_list(method: str, option: str, value: object, optional: bool = True) -> List[str]:
    """A sequence of str (a list or a tuple; a str is refused, as demoparser2 refuses it)."""
    if value is None and optional:
        return []
    if isinstance(value, (str, bytes)) or not isinstance(value, _Sequence):
        raise TypeError(f"{method}: {option} must be a list of str, not "
                        f"{type(value).__name__}")
    out = []
    for item in value:
        if not isinstance(item, str):
            raise TypeError(f"{method}: {option} must be a list of str, not a list holding "
                            f"{type(item).__name__}")
        out.append(item)
    return out


def _int_list(method: str, option: str, value: object) -> Optional[List[int]]:
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{method}: {option} must be a list of int, not "
                        f"{type(value).__name__}")
    out = []
    for item in value:
        if isinstance(item, bool) or not hasattr(item, "__index__"):
            raise TypeError(f"{method}: {option} must be a list of int, not a list holding "
                            f"{type(item).__name__}")
        out.append(int(item))
    return out


# -- dtypes -------------------------------------------------------------------------------------


def _is_text(series: _pd.Series) -> bool:
    if _pd.api.types.is_string_dtype(series.dtype) and series.dtype != object:
        return True
    if series.dtype != object:
        return False
    values = series.dropna()
    return len(values) == 0 or all(isinstance(v, str) for v in values)


def _as_dp2(series: _pd.Series, int_dtype: str = "int32", event: bool = False) -> _pd.Series:
    """A column with demoparser2's dtype for its kind: integers `int_dtype` (`float64` with
    nulls), floats `float32`, booleans `bool` (`object` with nulls), text the pandas string
    dtype, lists as they are; an event's column of nulls only is `float64`."""
    dtype = series.dtype
    has_null = bool(series.isna().any())
    if event and has_null and bool(series.isna().all()):
        # An event column with no value at all: demoparser2 gives it as float64 (NaN).
        return series.astype(object).where(series.notna(), None).astype("float64")
    if _pd.api.types.is_bool_dtype(dtype):
        return series.astype(object if has_null else bool)
    if _pd.api.types.is_integer_dtype(dtype):
        return series.astype("float64" if has_null else int_dtype)
    if _pd.api.types.is_float_dtype(dtype):
        return series.astype("float32")
    if _is_text(series):
        return series.astype("str")
    return series


def _prop_dtype(name: str) -> str:
    if name in _UINT32 or (("." in name) and name.rsplit(".", 1)[1] in _RAW_UINT32):
        return "uint32"
    if name in _UINT64:
        return "uint64"
    return "int32"


def _prop_rank(name: str, position: int) -> Tuple[float, int]:
    rank = _RANK.get(name)
    if rank is not None:
        return (rank, position)
    for prefix, anchor in _RAW_ANCHORS:
        if name.startswith(prefix):
            return (_RANK[anchor] + 0.5, position)
    return (len(_ORDER), position)


def _team_letter(value: object) -> object:
    if value is None or (isinstance(value, float) and _math.isnan(value)):
        return None
    try:
        return _TEAM_LETTERS.get(int(value))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None


def _round_end_reason(value: object) -> Tuple[object, object]:
    """(reason, winner) of a round end reason number, as demoparser2 names them."""
    if value is None or (isinstance(value, float) and _math.isnan(value)):
        return None, None
    number = int(value)  # type: ignore[call-overload]
    if number == 0:
        return None, None
    name = _ROUND_END_REASONS.get(number)
    if name is None:
        return str(number), str(number)
    return name, _ROUND_END_WINNER.get(name, str(number))


class DemoParser:
    """A demo, read with gamewire, with demoparser2 0.42's methods (see the module's doc)."""

    def __init__(self, demo_path: str) -> None:
        if not isinstance(demo_path, str) and not hasattr(demo_path, "__fspath__"):
            raise TypeError(f"DemoParser: demo_path must be a str, not {type(demo_path).__name__}")
        self._demo = _Demo(demo_path)

    def __repr__(self) -> str:
        return f"gamewire.compat.DemoParser({self._demo.path!r})"

    # -- what the demo holds -------------------------------------------------------------------

    def parse_header(self) -> Dict[str, str]:
        """The demo's file header as a dict of strings, with demoparser2's keys (booleans
        `true`/`false`; a field the demo lacks is an empty string)."""
        row = self._demo.header_table(polars=False).iloc[0]
        out = {}
        for key, ours in _HEADER_KEYS.items():
            value = row[ours] if ours in row.index else None
            if value is None or _pd.isna(value):
                out[key] = ""
            elif isinstance(value, (bool, _np.bool_)):
                out[key] = "true" if value else "false"
            else:
                out[key] = str(value)
        # demoparser2 gives the stamp's eight bytes, the NUL that ends it included.
        if out["demo_file_stamp"] and not out["demo_file_stamp"].endswith("\x00"):
            out["demo_file_stamp"] += "\x00"
        return out

    def list_game_events(self) -> List[str]:
        """The names of the game events the demo holds, sorted (`server_cvar` included). The
        events made from the game state (`round_start`, `round_end`, `player_first_connect`)
        are listed only when the server sent them, as demoparser2 lists them."""
        return list(self._demo.event_names())

    def list_updated_fields(self) -> List[str]:
        """The names of the props the demo sends, sorted."""
        frame = self._demo.updated_fields(polars=False)
        return [str(name) for name in frame["name"]]

    def parse_voice(self) -> List[Dict[str, _Any]]:
        """Voice data: always an empty list (gamewire does not decode voice)."""
        return []

    # -- events ------------------------------------------------------------------------------

    def parse_event(
        self,
        event_name: str,
        *,
        player: Optional[Sequence[str]] = None,
        other: Optional[Sequence[str]] = None,
    ) -> _pd.DataFrame:
        """One event's rows: `tick`, the event's keys, `<player>_name`, `<player>_steamid` and
        `<player>_<prop>` for each prop of `player`, and each game-wide prop of `other`; the
        columns sorted by name."""
        if not isinstance(event_name, str):
            raise TypeError(f"parse_event: event_name must be a str, not "
                            f"{type(event_name).__name__}")
        props = _str_list("parse_event", "player", player)
        others = _str_list("parse_event", "other", other)
        return self._events([event_name], props, others)[event_name]

    def parse_events(
        self,
        event_name: Sequence[str],
        *,
        player: Optional[Sequence[str]] = None,
        other: Optional[Sequence[str]] = None,
    ) -> List[Tuple[str, _pd.DataFrame]]:
        """Several events at once: a list of `(event name, DataFrame)` in the order asked, each
        as `parse_event` gives it, for the events that have rows. `["all"]` asks for every
        event of the demo, the made ones included. The game events are read in one pass (the
        made events in a second one)."""
        names = _str_list("parse_events", "event_name", event_name, optional=False)
        props = _str_list("parse_events", "player", player)
        others = _str_list("parse_events", "other", other)
        if "all" in names:
            names = list(self._demo.event_names()) + list(_MADE_EVENTS)
        names = list(dict.fromkeys(names))
        frames = self._events(names, props, others)
        return [(name, frames[name]) for name in names if len(frames[name]) > 0]

    def _events(self, names: List[str], props: List[str],
                other: List[str]) -> Dict[str, _pd.DataFrame]:
        """Each event of `names` as demoparser2 shapes it."""
        # demoparser2 reads `other` as game-wide props and leaves a player prop out.
        other = [p for p in other if p in _GAME_WIDE or p not in _RANK]
        occurring = set(self._demo.event_names())
        asked = [n for n in names if n in occurring or n not in _MADE_EVENTS]
        out: Dict[str, _pd.DataFrame] = {}
        if len(asked) == 1:
            # One event: its columns are its declared keys, even when it has no row.
            frame = self._demo.events(asked[0], props=props or None, other=other or None,
                                      polars=False)
            out[asked[0]] = _event_frame(frame)
        elif asked:
            # Several events in one pass: each keeps the columns its rows fill, as
            # demoparser2 builds a frame from the keys its events carry.
            frame = self._demo.events(asked, props=props or None, other=other or None,
                                      polars=False)
            for name in asked:
                rows = frame[frame["event_name"] == name]
                keep = [c for c in rows.columns if c == "tick" or rows[c].notna().any()]
                out[name] = _event_frame(rows[keep])
        made = [n for n in names if n in _MADE_EVENTS and n not in occurring]
        if made:
            out.update(self._made_events(made, props, other))
        return out

    def _made_events(self, names: List[str], props: List[str],
                     other: List[str]) -> Dict[str, _pd.DataFrame]:
        """`round_start`, `round_end` and `player_first_connect` from the game state."""
        state_props = ["total_rounds_played", "round_win_reason", "team_num", "entity_id"]
        extra = [p for p in other if p not in state_props]
        frame = self._demo.ticks(state_props + extra, humans_only=True, polars=False)
        out: Dict[str, _pd.DataFrame] = {}
        per_tick = frame.drop_duplicates("tick", keep="first").sort_values("tick", kind="stable")
        rounds = per_tick[per_tick["total_rounds_played"].notna()]
        counts = [int(v) for v in rounds["total_rounds_played"]]
        changes = rounds[[i == 0 or counts[i] != counts[i - 1] for i in range(len(counts))]]
        previous = None
        end_rows, start_rows = [], []
        for _, row in changes.iterrows():
            played = int(row["total_rounds_played"])
            if previous is not None and played != previous + 1:
                # A restart (the count set back): no round ended.
                previous = played
                continue
            first = previous is None
            previous = played
            reason, winner = (None, None) if first else _round_end_reason(row["round_win_reason"])
            others = {p: row[p] for p in other}
            end_rows.append({"round": played, "reason": reason, "winner": winner,
                             "tick": int(row["tick"]), **others})
            start_rows.append({"round": played + 1, "tick": int(row["tick"]), **others})
        if "round_end" in names:
            out["round_end"] = _made_frame(end_rows, {"round": "uint32", "tick": "int32"},
                                           ["reason", "round", "tick", "winner"] + other)
        if "round_start" in names:
            out["round_start"] = _made_frame(start_rows, {"round": "int32", "tick": "int32"},
                                             ["round", "tick"] + other)
        if "player_first_connect" in names:
            connects = []
            firsts = frame.sort_values("tick", kind="stable").drop_duplicates("steamid")
            for _, row in firsts.iterrows():
                connects.append({
                    "name": row["name"],
                    "player_entity_id": row["entity_id"],
                    "steamid": row["steamid"],
                    "team": _team_letter(row["team_num"]),
                    "tick": int(row["tick"]),
                    **{p: row[p] for p in other},
                })
            # demoparser2 gives the player props asked for as `user_<prop>` columns it leaves
            # empty.
            empty = [f"user_{p}" for p in props]
            out["player_first_connect"] = _made_frame(
                connects, {"player_entity_id": "int32", "steamid": "uint64", "tick": "int32"},
                ["name", "player_entity_id", "steamid", "team", "tick"] + other + empty)
        return out

    # -- ticks -------------------------------------------------------------------------------

    def parse_ticks(
        self,
        wanted_props: Sequence[str],
        *,
        players: Optional[Sequence[int]] = None,
        ticks: Optional[Sequence[int]] = None,
        prop_states: Optional[Sequence[_Any]] = None,
    ) -> _pd.DataFrame:
        """One row per player per tick: the props of `wanted_props` in demoparser2's order,
        then `tick`, `steamid`, `name`. `players` keeps those steam ids, `ticks` those ticks
        (None or empty: all); `prop_states` keeps the rows where each `prop` equals its
        `state` (objects with `prop` and `state` attributes, such as `WantedPropState`)."""
        props = _str_list("parse_ticks", "wanted_props", wanted_props, optional=False)
        steamids = _int_list("parse_ticks", "players", players)
        wanted_ticks = _int_list("parse_ticks", "ticks", ticks)
        states = [(item.prop, item.state) for item in (prop_states or [])]
        if wanted_ticks:
            last = self._last_tick()
            wanted_ticks = [t for t in wanted_ticks if t <= last]
            if not wanted_ticks:
                return _pd.DataFrame()
        asked = list(dict.fromkeys(props + [p for p, _ in states]))
        frame = self._demo.ticks(asked, ticks=wanted_ticks or None, players=steamids or None,
                                 humans_only=True, polars=False)
        for prop, state in states:
            frame = frame[(frame[prop] == state).fillna(False).astype(bool)]
        if len(frame) == 0:
            return _pd.DataFrame()
        unique = list(dict.fromkeys(props))
        ordered = [p for _, p in sorted((_prop_rank(p, i), p) for i, p in enumerate(unique))]
        data = {}
        for prop in ordered:
            data[prop] = _as_dp2(frame[prop], _prop_dtype(prop)).to_numpy()
        data["tick"] = frame["tick"].astype("int32").to_numpy()
        data["steamid"] = frame["steamid"].astype("uint64").to_numpy()
        data["name"] = frame["name"].astype("str").to_numpy()
        out = _pd.DataFrame({k: _pd.Series(v) for k, v in data.items()})
        for prop in ordered:
            if out[prop].dtype == object and _is_text(out[prop]):
                out[prop] = out[prop].astype("str")
        out["name"] = out["name"].astype("str")
        return out

    def _last_tick(self) -> int:
        header = self._demo.header()
        for key in ("last_tick", "playback_ticks"):
            if header.get(key) is not None:
                return int(header[key])
        return 2**31 - 1

    # -- the fixed tables ----------------------------------------------------------------------

    def parse_grenades(
        self, *, extra: Optional[Sequence[str]] = None, grenades: bool = True
    ) -> _pd.DataFrame:
        """Grenade trajectories: `X`, `Y`, `Z`, `tick`, `thrower_steamid`, `name`,
        `grenade_type`, `entity_id`, then each raw projectile prop of `extra`."""
        props = _str_list("parse_grenades", "extra", extra)
        if not isinstance(grenades, bool):
            raise TypeError(f"parse_grenades: grenades must be a bool, not "
                            f"{type(grenades).__name__}")
        # demoparser2 reads `extra` as game-wide props (`game_time`); gamewire's grenade props
        # are the projectile's own, so those two kinds are asked for apart.
        game_wide = [p for p in props if p in _GAME_WIDE or p.startswith("CCSGameRulesProxy.")]
        raw = [p for p in props if p not in game_wide]
        frame = self._demo.grenades(grenade_props=raw or None, polars=False)
        if len(frame) == 0:
            return _pd.DataFrame()
        if game_wide:
            ticks = sorted({int(t) for t in frame["tick"]})
            state = self._demo.ticks(game_wide, ticks=ticks, polars=False)
            state = state.drop_duplicates("tick").set_index("tick")
            frame = frame.copy()
            for prop in game_wide:
                frame[prop] = frame["tick"].map(state[prop])
        columns = {"X": ("x", "float32"), "Y": ("y", "float32"), "Z": ("z", "float32"),
                   "tick": ("tick", "int32"), "thrower_steamid": ("thrower_steamid", "uint64"),
                   "name": ("thrower_name", "str"), "grenade_type": ("grenade_type", "str"),
                   "entity_id": ("entity_id", "int32")}
        data = {}
        for theirs, (ours, dtype) in columns.items():
            if ours in frame.columns:
                data[theirs] = _as_dp2(frame[ours], dtype if "int" in dtype else "int32")
        for prop in props:
            if prop in frame.columns:
                data[prop] = _as_dp2(frame[prop])
        return _pd.DataFrame(data).reset_index(drop=True)

    def parse_player_info(self) -> _pd.DataFrame:
        """The players: `steamid`, `name`, `team_number` (pyarrow-backed dtypes)."""
        frame = self._demo.players(polars=False)
        team = "team" if "team" in frame.columns else "team_num"
        return _arrow_frame(frame, [("steamid", "steamid", "uint64"),
                                    ("name", "name", "large_string"),
                                    ("team_number", team, "int32")])

    def parse_skins(self) -> _pd.DataFrame:
        """The items each player had equipped, with demoparser2's columns."""
        frame = self._demo.skins(polars=False)
        return _arrow_frame(frame, [("def_index", "def_index", "uint32"),
                                    ("item_id", "item_id", "uint64"),
                                    ("paint_index", "paint_index", "uint32"),
                                    ("paint_seed", "paint_seed", "uint32"),
                                    ("paint_wear", "paint_wear", "uint32"),
                                    ("custom_name", "custom_name", "large_string"),
                                    ("steamid", "steamid", "uint64")])

    def parse_item_drops(self) -> _pd.DataFrame:
        """Items dropped at the end of the match, with demoparser2's columns."""
        frame = self._demo.item_drops(polars=False)
        return _arrow_frame(frame, [("account_id", "account_id", "uint32"),
                                    ("def_index", "def_index", "uint32"),
                                    ("dropreason", "dropreason", "uint32"),
                                    ("inventory", "inventory", "uint32"),
                                    ("item_id", "item_id", "uint64"),
                                    ("paint_index", "paint_index", "uint32"),
                                    ("paint_seed", "paint_seed", "uint32"),
                                    ("paint_wear", "paint_wear", "uint32"),
                                    ("custom_name", "custom_name", "large_string")])


def _event_frame(frame: _pd.DataFrame) -> _pd.DataFrame:
    """gamewire's events rows of one event, shaped as demoparser2's `parse_event`."""
    # gamewire's additions: the event's name, the raw player keys, the players' slots and the
    # type of a grenade event's grenade.
    drop = {"event_name", "grenade_type", *_PLAYER_KEYS,
            *(f"{p}_slot" for p in _PLAYER_PREFIXES)}
    data = {}
    for column in sorted(c for c in frame.columns if c not in drop):
        series = frame[column]
        if column == "tick":
            data[column] = series.astype("int32")
        elif column.endswith("_steamid") and column.split("_", 1)[0] in _PLAYER_PREFIXES:
            data[column] = _pd.Series([None if _pd.isna(v) else str(int(v)) for v in series],
                                      dtype="str", index=series.index)
        else:
            data[column] = _as_dp2(series, event=True)
    return _pd.DataFrame(data).reset_index(drop=True)


def _made_frame(rows: List[Dict[str, _Any]], dtypes: Dict[str, str],
                columns: List[str]) -> _pd.DataFrame:
    frame = _pd.DataFrame(rows, columns=list(dict.fromkeys(columns)))
    data = {}
    for column in sorted(frame.columns):
        series = frame[column]
        if column in dtypes and not series.isna().any():
            data[column] = series.astype(dtypes[column])
        elif series.isna().all():
            data[column] = series.astype("float64")
        else:
            data[column] = _as_dp2(series.infer_objects(), event=True)
    return _pd.DataFrame(data)


def _arrow_frame(frame: _pd.DataFrame, columns: List[Tuple[str, str, str]]) -> _pd.DataFrame:
    """The columns (demoparser2's name, gamewire's name, arrow type) with pyarrow dtypes, as
    demoparser2 gives its fixed tables."""
    import pyarrow as pa

    data = {}
    for theirs, ours, arrow in columns:
        values = frame[ours].tolist() if ours in frame.columns else [None] * len(frame)
        values = [None if v is None or (isinstance(v, float) and _math.isnan(v)) else v
                  for v in values]
        kind = getattr(pa, arrow)()
        data[theirs] = _pd.Series(pa.array(values, type=kind),
                                  dtype=_pd.ArrowDtype(kind))
    return _pd.DataFrame(data)
