"""gamewire: Source 2 demos (CS2, Deadlock, Dota 2) as pandas or polars DataFrames.

    >>> import gamewire
    >>> demo = gamewire.Demo("match.dem")
    >>> demo.header()["map_name"]
    >>> kills = demo.kills()
    >>> hurt = demo.events("player_hurt", player=["X", "Y", "health"], other=["total_rounds_played"])
    >>> ticks = demo.ticks(["X", "Y", "Z", "health"], ticks=[1000, 2000])

The file is read once, when the `Demo` is made (a missing file raises `FileNotFoundError`,
a file that is not a Source 2 demo raises `DemoError`). Each method parses the bytes in one
pass with the GIL released, decoding only what its tables need, and returns a pandas DataFrame,
or a polars DataFrame with `polars=True` (or after `gamewire.set_polars(True)`).

Column types: integers are `int64` (`Int64` when a column has nulls), steam ids `uint64`
(`UInt64` with nulls; 0 for bots in controller-sourced columns), floats `float32` (NaN for
null), booleans `bool` (`boolean` with nulls), text `object` (None for null). Units: game units
for positions, degrees for angles, demo ticks for times (CS2 runs 64 ticks/s; see `header()`'s
`tick_rate`).

Many demos at once: `gamewire.parse_many(paths, ["kills", "rounds"])` parses them in parallel
(one worker per core, the GIL released) and returns one DataFrame per table with a `demo` column
(the file's stem).

The demoparser2 names are there too: `parse_header`, `parse_event`, `parse_events`,
`parse_ticks`, `parse_player_info`, `parse_grenades`, `list_game_events`.

Errors are `gamewire.DemoError` (a `ValueError`) with the message the `gamewire` CLI prints:
the demo is not a demo, is corrupt (frame, byte offset, tick), or a table, event or prop name is
unknown (the message lists the closest valid names). A demo cut short (a truncated file, a cut
broadcast fragment) is not an error: every method returns what comes before the cut and warns
with a `gamewire.DemoTruncatedWarning` naming the cut (frame, byte offset, tick); turn it into
an exception with `warnings.simplefilter("error", gamewire.DemoTruncatedWarning)`.
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, Iterable, Sequence, Union

from ._gamewire import DemoError, NativeDemo, __version__, run_many

__all__ = [
    "Demo",
    "DemoError",
    "DemoTruncatedWarning",
    "TABLES",
    "parse_many",
    "set_polars",
    "WantedPropState",
    "__version__",
]


class DemoTruncatedWarning(UserWarning):
    """A demo ended early (a truncated file, a cut broadcast fragment): the result holds
    everything parsed before the cut. The message names the cut: frame, byte offset, tick."""


def _warn_cut(cut: str | None) -> None:
    """Warns about a cut, attributed to the first caller outside this package."""
    if cut is None:
        return
    level = 2
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
        level += 1
    warnings.warn(cut, DemoTruncatedWarning, stacklevel=level)

#: The analyst tables, in the order `Demo.tables` returns them.
TABLES = (
    "events",
    "ticks",
    "players",
    "chat",
    "grenades",
    "rounds",
    "kills",
    "damages",
    "purchases",
    "user_commands",
    "shots",
    "bomb",
    "smokes",
    "infernos",
    "flashes",
    "footsteps",
    "item_drops",
    "skins",
    "combat_log",
    "updated_fields",
)

_POLARS_DEFAULT = False


def set_polars(enabled: bool = True) -> None:
    """Make every table method return polars DataFrames by default (`polars=None`)."""
    global _POLARS_DEFAULT
    _POLARS_DEFAULT = bool(enabled)


Names = Union[str, Sequence[str], None]

# Column kinds of the native module: numpy dtype of the buffer, pandas dtype with nulls.
_NUMPY = {"i64": "<i8", "u64": "<u8", "f32": "<f4", "bool": "?"}


def _names(value: Names) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


class WantedPropState:
    """A `parse_ticks` row filter: keep the rows where `prop` equals `state` (demoparser2's
    class of that name, whose fields Python cannot read: use this one with gamewire)."""

    __slots__ = ("prop", "state")

    def __init__(self, prop: str, state: Any) -> None:
        self.prop = prop
        self.state = state

    def __repr__(self) -> str:
        return f"WantedPropState({self.prop!r}, {self.state!r})"


def _prop_states(value: Any) -> list[tuple[str, Any]]:
    """`parse_ticks`'s `prop_states` as (prop, value) pairs."""
    if isinstance(value, dict):
        return [(str(k), v) for k, v in value.items()]
    out = []
    for item in value:
        if hasattr(item, "prop") and hasattr(item, "state"):
            out.append((str(item.prop), item.state))
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            out.append((str(item[0]), item[1]))
        else:
            raise TypeError("prop_states holds (prop, value) pairs or gamewire.WantedPropState "
                            f"objects (demoparser2's hides its fields), not {item!r}")
    return out


def _ints(value: Any) -> list[int] | None:
    if value is None:
        return None
    if isinstance(value, (int, str)):
        value = [value]
    return [int(v) for v in value]


def _query(
    tables: Iterable[str],
    events: Names = None,
    player: Names = None,
    other: Names = None,
    ticks: Any = None,
    players: Any = None,
    grenade: Names = None,
) -> dict:
    ev = _names(events)
    return {
        "grenade": _names(grenade),
        "tables": list(tables),
        "events": ev or None,
        "player": _names(player),
        "other": _names(other),
        "ticks": _ints(ticks),
        "players": _ints(players),
    }


# Text columns holding JSON (the input history of a player's latest user command, alone or
# behind an event's player prefix, and the `user_commands` table's `input_history`), given to
# Python as lists of dicts, as demoparser2 does.
_JSON_SUFFIX = "usercmd_input_history"


def _json_values(name: str, kind: str, values: Any) -> Any:
    if kind != "str" or not (name.endswith(_JSON_SUFFIX) or name == "input_history"):
        return None
    import json

    return [json.loads(v) if v is not None else None for v in values]


def _input_history_dtype(pl: Any) -> Any:
    """The polars type of an input history: a list of structs (floats as Float64, the
    Python floats pandas holds)."""
    return pl.List(pl.Struct({
        "x": pl.Float64, "y": pl.Float64, "z": pl.Float64,
        "render_tick_count": pl.Int64, "render_tick_fraction": pl.Float64,
        "player_tick_count": pl.Int64, "player_tick_fraction": pl.Float64,
    }))


def _pandas_frame(columns: list) -> Any:
    import numpy as np
    import pandas as pd

    data = {}
    for name, kind, values, mask in columns:
        decoded = _json_values(name, kind, values)
        if decoded is not None:
            data[name] = pd.Series(decoded, dtype=object)
            continue
        if kind in ("str", "f32list", "strlist", "u64list"):
            data[name] = pd.Series(values, dtype=object)
            continue
        arr = np.frombuffer(values, dtype=_NUMPY[kind]).copy()
        if mask is None or kind == "f32":
            data[name] = pd.Series(arr)
            continue
        m = np.frombuffer(mask, dtype=np.bool_).copy()
        if kind == "bool":
            data[name] = pd.Series(pd.arrays.BooleanArray(arr, m))
        else:
            data[name] = pd.Series(pd.arrays.IntegerArray(arr, m))
    return pd.DataFrame(data)


def _polars_frame(columns: list) -> Any:
    import numpy as np
    import polars as pl

    kinds = {"i64": pl.Int64, "u64": pl.UInt64, "f32": pl.Float32, "bool": pl.Boolean}
    series = []
    for name, kind, values, mask in columns:
        decoded = _json_values(name, kind, values)
        if decoded is not None:
            series.append(pl.Series(name, decoded, dtype=_input_history_dtype(pl)))
            continue
        if kind == "str":
            series.append(pl.Series(name, values, dtype=pl.String))
            continue
        if kind == "f32list":
            series.append(pl.Series(name, values, dtype=pl.List(pl.Float32)))
            continue
        if kind == "strlist":
            series.append(pl.Series(name, values, dtype=pl.List(pl.String)))
            continue
        if kind == "u64list":
            series.append(pl.Series(name, values, dtype=pl.List(pl.UInt64)))
            continue
        s = pl.Series(name, np.frombuffer(values, dtype=_NUMPY[kind]), dtype=kinds[kind])
        if mask is not None:
            nulls = np.flatnonzero(np.frombuffer(mask, dtype=np.bool_))
            s = s.scatter(nulls, None)
        series.append(s)
    return pl.DataFrame(series)


def _frame(columns: list, polars: bool | None) -> Any:
    use_polars = _POLARS_DEFAULT if polars is None else polars
    return _polars_frame(columns) if use_polars else _pandas_frame(columns)


def _drop(frame: Any, column: str) -> Any:
    if column not in frame.columns:
        return frame
    if hasattr(frame, "drop_in_place"):  # polars
        return frame.drop(column)
    return frame.drop(columns=[column])


class Demo:
    """A Source 2 demo file, read into memory once. `path` may also be a gzip, bzip2 or zstd
    compressed demo (`.dem.gz`, `.dem.bz2`, `.dem.zst`: told by its first bytes) or an HTTP
    broadcast directory (a `sync.json` and its fragments), read as one demo. A demo already in
    memory: `Demo.from_bytes(data, name)`.

    Raises `FileNotFoundError` (or `OSError`) when the file cannot be read and `DemoError`
    when it is not a Source 2 demo.
    """

    def __init__(self, path: Union[str, os.PathLike]):
        self._native = NativeDemo(os.fspath(path))

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview], name: str = "<bytes>") -> "Demo":
        """A demo already in memory: the bytes of a `.dem` file, or of a gzip, bzip2 or zstd
        compressed one (read from an archive, a database, the network). `name` stands for the
        path in messages and `path`. The bytes are copied. Raises `DemoError` when they are not a
        Source 2 demo."""
        if isinstance(data, memoryview):
            data = data.tobytes()
        demo = cls.__new__(cls)
        demo._native = NativeDemo.from_bytes(data, os.fspath(name))
        return demo

    def __repr__(self) -> str:
        return f"gamewire.Demo({str(self.path)!r}, {self.size} bytes)"

    @property
    def path(self) -> str:
        """The path given."""
        return str(self._native.path)

    @property
    def size(self) -> int:
        """The demo's size in bytes (after decompression, for a compressed file)."""
        return self._native.size

    # -- header and event names --------------------------------------------------------------

    def header(self) -> dict:
        """The demo header and file info as a dict: `map_name`, `server_name`, `client_name`,
        `game_directory`, `build_num`, `network_protocol`, `demo_version_name`,
        `playback_ticks`, `playback_frames`, `playback_time` (s), `tick_interval` (s),
        `tick_rate` (ticks/s), `frames`, `last_tick`, `reached_stop` (the same values as
        `gamewire info --format json`)."""
        header, cut = self._native.header()
        _warn_cut(cut)
        return header

    def list_game_events(self) -> list[str]:
        """The names of the game events that occur in the demo, sorted (`server_cvar`, the
        synthetic convar event, included, as in demoparser2)."""
        names, cut = self._native.list_game_events()
        _warn_cut(cut)
        return names

    # -- tables --------------------------------------------------------------------------------

    def _run(self, queries: list[dict], polars: bool | None) -> list[dict]:
        out = []
        per_query, cut = self._native.run(queries)
        _warn_cut(cut)
        for tables in per_query:
            out.append({name: _frame(cols, polars) for name, cols in tables})
        return out

    def tables(
        self,
        names: Names = TABLES,
        *,
        event_name: Names = None,
        player: Names = None,
        other: Names = None,
        ticks: Any = None,
        players: Any = None,
        grenade: Names = None,
        polars: bool | None = None,
    ) -> dict:
        """Several tables in one pass over the demo: a dict from table name to DataFrame.
        `names` is a table name or a list of them (default: all of `TABLES`); the keyword
        options are those of `events`, `ticks` and `grenades` (`grenade`: its `extra`)."""
        query = _query(_names(names), event_name, player, other, ticks, players, grenade)
        return self._run([query], polars)[0]

    def _table(self, name: str, polars: bool | None, **options: Any) -> Any:
        return self.tables(name, polars=polars, **options)[name]

    def events(
        self,
        event_name: Names = None,
        player: Names = None,
        other: Names = None,
        *,
        polars: bool | None = None,
    ) -> Any:
        """Game events, one row each: `event_name`, `tick`, the event's keys (player handles
        resolved), then per player key (`attacker`, `user`, `assister`, `victim`) `<p>_name`,
        `<p>_steamid` and `<p>_<prop>` for each `player` prop at that tick, then each `other`
        (game-wide) prop. `event_name` is a name, a list of names or None for every event.
        Semantics of demoparser2's `parse_event`."""
        return self._table("events", polars, event_name=event_name, player=player, other=other)

    def ticks(
        self,
        props: Names,
        ticks: Any = None,
        players: Any = None,
        *,
        polars: bool | None = None,
    ) -> Any:
        """One row per player per tick: each prop of `props` (friendly names such as `X`,
        `health`, `yaw`, or raw `CCSPlayerPawn.m_iHealth`), `tick`, `steamid`, `name`.
        `ticks` keeps only those ticks, `players` only those steam ids."""
        return self._table("ticks", polars, player=props, ticks=ticks, players=players)

    def players(self, *, polars: bool | None = None) -> Any:
        """Players seen in `userinfo`, with their controller's team and match stats."""
        return self._table("players", polars)

    def chat(self, *, polars: bool | None = None) -> Any:
        """Chat messages: `tick`, `entity_index`, `name`, `steamid`, `text`, `all_chat`,
        `kind`."""
        return self._table("chat", polars)

    def grenades(self, extra: Names = None, *, polars: bool | None = None) -> Any:
        """Grenade trajectories: one row per projectile per tick it moved, with thrower,
        type, start and end ticks, and position; then a column per raw prop of the projectile
        in `extra` (`m_nBounces`, `CBodyComponent.m_vecZ`, ...)."""
        return self._table("grenades", polars, grenade=extra)

    def rounds(self, *, polars: bool | None = None) -> Any:
        """Rounds: start, freeze end, end and official end ticks, winner and reason."""
        return self._table("rounds", polars)

    def kills(self, *, polars: bool | None = None) -> Any:
        """Kills (`player_death`): attacker, victim, assister, weapon, headshot, wallbang,
        flash assist, ..."""
        return self._table("kills", polars)

    def damages(self, *, polars: bool | None = None) -> Any:
        """Damage (`player_hurt`): attacker, victim, weapon, damage, remaining health/armor,
        hit group."""
        return self._table("damages", polars)

    def purchases(self, *, polars: bool | None = None) -> Any:
        """Purchases (`item_purchase`): tick, buyer, team, weapon."""
        return self._table("purchases", polars)

    def user_commands(self, *, polars: bool | None = None) -> Any:
        """User commands (CS2; Deadlock's base command), one row each: `tick`, the player (`steamid`, `name`,
        `player_slot`, pawn `entity_index`), `cmd_number`, `server_tick_executed`,
        `client_tick`, view angles, moves, button states, `impulse`, `weapon_select`, mouse
        deltas, `consumed_server_angle_changes`, `left_hand_desired`, and `input_history` (a
        list of dicts)."""
        return self._table("user_commands", polars)

    def shots(self, *, polars: bool | None = None) -> Any:
        """Shots (`weapon_fire`): `tick`, the shooter (`name`, `steamid`, `team`), `weapon`,
        `silenced`, and the shooter's `X`, `Y`, `Z`, `pitch`, `yaw`."""
        return self._table("shots", polars)

    def bomb(self, *, polars: bool | None = None) -> Any:
        """Bomb events: `tick`, `action` (beginplant, abortplant, planted, begindefuse,
        abortdefuse, defused, exploded, dropped, pickup), the player, `site`, `haskit`, and
        the player's `X`, `Y`, `Z`."""
        return self._table("bomb", polars)

    def smokes(self, *, polars: bool | None = None) -> Any:
        """Smokes, one row each: `entity_id`, `start_tick` (detonation), `end_tick`
        (expiry), the thrower, and where it bloomed (`X`, `Y`, `Z`)."""
        return self._table("smokes", polars)

    def infernos(self, *, polars: bool | None = None) -> Any:
        """Molotov and incendiary fires, one row each, with the columns of `smokes`."""
        return self._table("infernos", polars)

    def flashes(self, *, polars: bool | None = None) -> Any:
        """Players blinded (`player_blind`): `tick`, the attacker and the victim,
        `blind_duration` (s), the flashbang's `entity_id`."""
        return self._table("flashes", polars)

    def footsteps(self, *, polars: bool | None = None) -> Any:
        """Footsteps (`player_footstep`): `tick`, the player, and their `X`, `Y`, `Z`."""
        return self._table("footsteps", polars)

    def item_drops(self, *, polars: bool | None = None) -> Any:
        """Items dropped to players at the end of a match (`SendPlayerItemDrops`): `tick`,
        `steamid`, `account_id`, `dropreason`, `inventory`, `item_id`, `def_index`,
        `item_name`, `paint_index`, `paint_seed`, `paint_wear` (the float's bits, as sent),
        `wear`, `rarity`, `quality`, `custom_name`."""
        return self._table("item_drops", polars)

    def skins(self, *, polars: bool | None = None) -> Any:
        """The items each player had equipped, from the end-of-match summary
        (`EndOfMatchAllPlayersData`): `tick`, `steamid`, `name`, `team`, and the item columns
        of `item_drops`."""
        return self._table("skins", polars)

    def combat_log(self, *, polars: bool | None = None) -> Any:
        """Dota 2's combat log, one row per entry: `tick`, `timestamp` (game time, s),
        `type` (`damage`, `heal`, `modifier_add`, `death`, ...), `attacker_name`,
        `target_name`, `target_source_name`, `damage_source_name`, `inflictor_name` (resolved
        through the `CombatLogNames` string table), hero and illusion flags, teams, `value`,
        `health`, durations, `ability_level`, gold and XP reasons, location."""
        return self._table("combat_log", polars)

    def updated_fields(self, *, polars: bool | None = None) -> Any:
        """The props the demo sends, one row per name: `name` (a `ticks` prop: the class,
        nested tables by serializer name, `Weapon.`/`Grenade.` for the props of weapon and
        grenade classes, array elements under the array's name), `entity` (`pawn`,
        `controller`, `team`, `rules`, `weapon`, `grenade`), `updates` (how many entity
        updates carried it; 0: only a baseline sets it), `classes` (the classes that send
        it)."""
        return self._table("updated_fields", polars)

    # -- demoparser2 names -----------------------------------------------------------------

    def parse_header(self) -> dict:
        """`header()`."""
        return self.header()

    def parse_event(
        self,
        event_name: str,
        player: Names = None,
        other: Names = None,
        *,
        polars: bool | None = None,
    ) -> Any:
        """demoparser2's `parse_event`: `events(event_name, player, other)` without the
        `event_name` column. Steam ids are `uint64` (demoparser2: strings)."""
        frame = self.events(event_name, player, other, polars=polars)
        return _drop(frame, "event_name")

    def parse_events(
        self,
        event_names: Names,
        player: Names = None,
        other: Names = None,
        *,
        polars: bool | None = None,
    ) -> list:
        """demoparser2's `parse_events`: a list of `(event name, DataFrame)`, one per event
        name (`["all"]`: every event that occurs), each frame as `parse_event` gives it. One
        pass over the demo (two for `"all"`: the first lists the events)."""
        names = _names(event_names)
        if "all" in names:
            names = self.list_game_events()
        queries = [_query(["events"], [n], player, other) for n in names]
        out = []
        for name, tables in zip(names, self._run(queries, polars)):
            out.append((name, _drop(tables["events"], "event_name")))
        return out

    def parse_ticks(
        self,
        wanted_props: Names,
        players: Any = None,
        ticks: Any = None,
        prop_states: dict | None = None,
        *,
        polars: bool | None = None,
    ) -> Any:
        """demoparser2's `parse_ticks`: `ticks(wanted_props, ticks, players)`; with
        `prop_states`, only the rows where every one of those props equals its value (a null
        never does). `prop_states` is a list of `gamewire.WantedPropState(prop, value)` (as
        demoparser2's, whose fields Python cannot read) or of `(prop, value)` pairs, or a dict. Props of
        `prop_states` that are not in `wanted_props` are read for the filter and left out of
        the result."""
        if not prop_states:
            return self.ticks(wanted_props, ticks=ticks, players=players, polars=polars)
        states = _prop_states(prop_states)
        wanted = _names(wanted_props)
        extra = list(dict.fromkeys(p for p, _ in states if p not in wanted))
        frame = self.ticks(wanted + extra, ticks=ticks, players=players, polars=polars)
        if hasattr(frame, "drop_in_place"):  # polars
            import polars as pl

            for name, value in states:
                frame = frame.filter(pl.col(name) == value)
        else:
            for name, value in states:
                frame = frame[(frame[name] == value).fillna(False).astype(bool)]
            frame = frame.reset_index(drop=True)
        for name in extra:
            frame = _drop(frame, name)
        return frame

    def parse_player_info(self, *, polars: bool | None = None) -> Any:
        """`players()` (demoparser2's columns `steamid`, `name` and `team_number` are
        `steamid`, `name` and `team_num` here)."""
        return self.players(polars=polars)

    def parse_skins(self, *, polars: bool | None = None) -> Any:
        """demoparser2's `parse_skins`: `skins()` (its columns `def_index`, `item_id`,
        `paint_index`, `paint_seed`, `paint_wear`, `custom_name`, `steamid`, and ours)."""
        return self.skins(polars=polars)

    def parse_item_drops(self, *, polars: bool | None = None) -> Any:
        """demoparser2's `parse_item_drops`: `item_drops()` (its columns `account_id`,
        `def_index`, `dropreason`, `inventory`, `item_id`, `paint_index`, `paint_seed`,
        `paint_wear`, `custom_name`, and ours)."""
        return self.item_drops(polars=polars)

    def list_updated_fields(self) -> list[str]:
        """demoparser2's `list_updated_fields`: the names of `updated_fields()`, sorted, as a
        list (no DataFrame library needed)."""
        query = _query(["updated_fields"], None, None, None, None, None)
        per_query, cut = self._native.run([query])
        _warn_cut(cut)
        for _table, columns in per_query[0]:
            for name, _kind, values, _mask in columns:
                if name == "name":
                    return list(values)
        return []

    def parse_grenades(
        self,
        *,
        extra: Names = None,
        grenades: bool = True,
        polars: bool | None = None,
    ) -> Any:
        """demoparser2's `parse_grenades`: `grenades(extra)`, each prop of `extra` a column of
        the projectile's raw prop. `grenades` is accepted for demoparser2's signature; the
        table always holds the projectiles."""
        del grenades
        return self.grenades(extra, polars=polars)


def parse_many(
    paths: Union[str, os.PathLike, Iterable[Union[str, os.PathLike]]],
    tables: Names = ("kills", "rounds"),
    *,
    event_name: Names = None,
    player: Names = None,
    other: Names = None,
    ticks: Any = None,
    players: Any = None,
    grenade: Names = None,
    jobs: int | None = None,
    on_error: str = "raise",
    polars: bool | None = None,
) -> dict:
    """The same tables of many demos, parsed in parallel on `jobs` worker threads (default:
    one per core) with the GIL released: a dict from table name to one DataFrame of every demo's rows, with a first column `demo` (the
    file's stem, as `gamewire batch` names its files). The keyword options are those of
    `Demo.tables`; send tables and event descriptors are built once per game build.
    `paths` is one path or an iterable of them: `.dem` files, broadcast directories, and
    other directories, searched recursively for both (in name order, as `gamewire batch`
    does).

    A demo that cannot be read or parsed raises (`FileNotFoundError`, `OSError` or `DemoError`
    with the CLI's message, the first failing demo in the order given) when `on_error` is
    `"raise"`, the default; with `"skip"` it is left out with a `RuntimeWarning` naming it and
    the others are returned. A demo cut short keeps its rows before the cut, with a
    `DemoTruncatedWarning`."""
    if on_error not in ("raise", "skip"):
        raise ValueError(f"on_error must be 'raise' or 'skip', not {on_error!r}")
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    paths = [os.fspath(p) for p in paths]
    query = _query(_names(tables), event_name, player, other, ticks, players, grenade)
    use_polars = _POLARS_DEFAULT if polars is None else polars
    merged, failures = run_many(paths, query, jobs)
    for _path, kind, message in failures:
        if kind == "cut":
            # Not a failure: the demo's rows before the cut are in the tables.
            _warn_cut(message)
            continue
        if on_error == "raise":
            if kind == "missing":
                raise FileNotFoundError(message)
            if kind == "read":
                raise OSError(message)
            raise DemoError(message)
        import warnings

        warnings.warn(f"skipped: {message}", RuntimeWarning, stacklevel=2)
    out = {table: _frame(cols, use_polars) for table, cols in merged}
    for table in query["tables"]:
        # Every demo skipped: an empty frame (a `demo` column only) per table asked for.
        out.setdefault(table, _frame([("demo", "str", [], None)], use_polars))
    return out
