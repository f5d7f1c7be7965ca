"""`gamewire.Demo`, `gamewire.parse_many` and the DataFrames they build (the public names are
re-exported by `gamewire/__init__.py`, whose docstring is the overview).

The native module (`_gamewire`, crates/python/src/lib.rs) parses and returns each table as
typed column buffers; this module checks the arguments, names the options as the command line
does, and turns the buffers into pandas or polars DataFrames.
"""

from __future__ import annotations

import operator as _operator
import os as _os
import sys as _sys
import warnings as _warnings
from typing import (
    TYPE_CHECKING,
    Dict,
    Iterable,
    List,
    Optional,
    SupportsIndex,
    Tuple,
    Union,
    cast,
    overload,
)

from ._gamewire import (
    TABLES,
    BadArgumentError,
    DemoError,
    DemoTruncatedError,
    NativeDemo,
    NotADemoError,
    ScenarioError,
    UnknownNameError,
    run_many,
    sample_demo,
)
from ._gamewire import synth as _synth

if TYPE_CHECKING:
    from typing import Literal

    from types import FrameType

    import pandas
    import polars

    from ._gamewire import Column, Query

    #: A table: pandas by default, polars with `polars=True` or after `set_polars(True)`.
    DataFrame = Union[pandas.DataFrame, polars.DataFrame]

__all__ = [
    "BadArgumentError",
    "Demo",
    "DemoError",
    "DemoTruncatedError",
    "DemoTruncatedWarning",
    "NotADemoError",
    "ScenarioError",
    "TABLES",
    "UnknownNameError",
    "parse_many",
    "set_polars",
    "synth",
]

#: Names of props, events or tables: one name, a comma-separated string of them (spaces
#: around the commas are trimmed, as on the command line) or a sequence of names.
Names = Union[str, Iterable[str], None]
#: Ticks: one tick, a list of ticks, a `range`, or the command line's text (`"100..200"`,
#: `"5, 100..200"`: ticks and inclusive ranges, comma-separated).
Ticks = Union[int, str, range, Iterable[Union[int, str]], None]
#: Steam ids (ints, or their decimal text).
SteamIds = Union[int, str, Iterable[Union[int, str]], None]
#: A path: a `str` or an `os.PathLike` (`pathlib.Path`).
PathArg = Union[str, "_os.PathLike[str]"]
#: A value of `Demo.header()`.
HeaderValue = Union[str, int, float, bool, None]

_PACKAGE_DIR = _os.path.dirname(_os.path.abspath(__file__))


class DemoTruncatedWarning(UserWarning):
    """A demo ended early (a truncated file, a cut broadcast fragment or compressed stream): the
    result holds everything parsed before the cut. The message names the cut: frame, byte
    offset, tick. With `strict=True` the cut raises `DemoTruncatedError` instead."""


DemoTruncatedWarning.__module__ = "gamewire"


def _caller_level() -> int:
    """The `stacklevel` of the first frame outside this package (warnings point at the
    user's line, not at gamewire's or gamewire.compat's)."""
    level = 1
    frame: Optional[FrameType] = _sys._getframe(1)
    while frame is not None and _os.path.dirname(
            _os.path.abspath(frame.f_code.co_filename)) == _PACKAGE_DIR:
        frame = frame.f_back
        level += 1
    return level


def _cut(message: Optional[str], strict: bool) -> None:
    """A demo cut short (`message` names the cut): a `DemoTruncatedWarning`, or with `strict`
    a `DemoTruncatedError`."""
    if message is None:
        return
    if strict:
        raise DemoTruncatedError(message)
    _warnings.warn(f"{message}; the result holds everything before the cut",
                   DemoTruncatedWarning, stacklevel=_caller_level())


_POLARS_DEFAULT = False


def set_polars(enabled: bool = True) -> None:
    """Make every table method return polars DataFrames when it is not given `polars=`."""
    if not isinstance(enabled, bool):
        raise BadArgumentError(f"set_polars: enabled takes True or False, not {enabled!r}")
    global _POLARS_DEFAULT
    _POLARS_DEFAULT = enabled


# -- arguments ---------------------------------------------------------------------------------
# Each check names the method and the option, as a `BadArgumentError` (a `TypeError` and a
# `ValueError`), so that a wrong call never surfaces as an error of the native module.


def _bad(where: str, option: str, wants: str, value: object) -> BadArgumentError:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return BadArgumentError(f"{where}: {option} takes {wants}, not {shown}")


def _names(where: str, option: str, value: Names) -> List[str]:
    """One name, a comma-separated string or a sequence of names, trimmed, empties dropped."""
    if value is None:
        return []
    if isinstance(value, str):
        items = [value]
    elif isinstance(value, (bytes, bytearray)) or not isinstance(value, Iterable):
        raise _bad(where, option, "a name or a list of names", value)
    else:
        items = list(value)
        for item in items:
            if not isinstance(item, str):
                raise _bad(where, option, "names (str)", item)
    return [part.strip() for item in items for part in item.split(",") if part.strip()]


_TICKS = 'ticks (ints, a range, or text such as "100..200")'
# A tick is a 32-bit signed integer in the demo format.
_TICK_RANGE = range(-(1 << 31), 1 << 31)


def _tick(where: str, item: object) -> int:
    if isinstance(item, SupportsIndex) and not isinstance(item, bool):
        value = _operator.index(item)
        if value in _TICK_RANGE:
            return value
    raise _bad(where, "ticks", _TICKS, item)


def _tick_text(where: str, item: object) -> str:
    if isinstance(item, str):
        return item
    return str(_tick(where, item))


def _ticks(where: str, value: Ticks) -> Union[str, List[int], None]:
    """The tick set as the native `TickSet` takes it: a list of ticks, or the text the
    command line parses (ticks and inclusive ranges)."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, range):
        if value.step == 1 and len(value) > 0:
            return f"{_tick(where, value.start)}..{_tick(where, value.stop - 1)}"
        return [_tick(where, t) for t in value]
    if isinstance(value, (bytes, bytearray, dict)) or not isinstance(value, Iterable):
        return [_tick(where, value)]
    texts = [_tick_text(where, item) for item in value]
    if all(t.lstrip("-").isdigit() for t in texts):
        return [int(t) for t in texts]
    return ", ".join(texts)


def _steamid(where: str, item: object) -> int:
    if isinstance(item, str) and item.strip().isdigit():
        return int(item)
    if isinstance(item, SupportsIndex) and not isinstance(item, bool):
        value = _operator.index(item)
        if 0 <= value < 1 << 64:
            return value
    raise _bad(where, "players", "steam ids (ints)", item)


def _players(where: str, value: SteamIds) -> Optional[List[int]]:
    if value is None:
        return None
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        return [_steamid(where, value)]
    if isinstance(value, (bytes, bytearray, dict)) or not isinstance(value, Iterable):
        raise _bad(where, "players", "steam ids (ints)", value)
    return [_steamid(where, item) for item in value]


def _flag(where: str, option: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    raise _bad(where, option, "True or False", value)


def _use_polars(where: str, value: Optional[bool]) -> bool:
    if value is None:
        return _POLARS_DEFAULT
    return _flag(where, "polars", value)


def _query(
    where: str,
    tables: Tuple[str, Names],
    name: Names = None,
    props: Names = None,
    other: Names = None,
    ticks: Ticks = None,
    players: SteamIds = None,
    humans_only: bool = False,
    grenade_props: Names = None,
) -> "Query":
    """A query as the native module takes it; the option names are the command line's."""
    return {
        "tables": _names(where, *tables),
        "name": _names(where, "name", name) or None,
        "props": _names(where, "props", props),
        "other": _names(where, "other", other),
        "ticks": _ticks(where, ticks),
        "players": _players(where, players),
        "humans_only": _flag(where, "humans_only", humans_only),
        "grenade_props": _names(where, "grenade_props", grenade_props),
    }


# -- DataFrames --------------------------------------------------------------------------------

# Column kinds of the native module: the numpy dtype of the buffer.
_NUMPY = {"i64": "<i8", "u64": "<u8", "f32": "<f4", "bool": "?"}

# Text columns holding JSON (the input history of a player's latest user command, alone or
# behind an event's player prefix, and the `user_commands` table's `input_history`), given to
# Python as lists of dicts.
_JSON_SUFFIX = "usercmd_input_history"


def _json_values(name: str, kind: str, values: list) -> Optional[list]:
    if kind != "str" or not (name.endswith(_JSON_SUFFIX) or name == "input_history"):
        return None
    import json

    return [json.loads(v) if v is not None else None for v in values]


def _input_history_dtype() -> "polars.List":
    """The polars type of an input history: a list of structs (floats as Float64, the
    Python floats pandas holds)."""
    import polars as pl

    return pl.List(pl.Struct({
        "x": pl.Float64, "y": pl.Float64, "z": pl.Float64,
        "render_tick_count": pl.Int64, "render_tick_fraction": pl.Float64,
        "player_tick_count": pl.Int64, "player_tick_fraction": pl.Float64,
    }))


def _pandas_frame(columns: "List[Column]") -> "pandas.DataFrame":
    """Integers and booleans are pandas' nullable types (`Int64`, `UInt64`, `boolean`) in
    every column, null or not, so that a column's dtype never depends on the rows (one demo
    or many, one table or several)."""
    import numpy as np
    import pandas as pd

    data = {}
    for name, kind, values, mask in columns:
        decoded = _json_values(name, kind, cast(list, values))
        if decoded is not None:
            data[name] = pd.Series(decoded, dtype=object)
            continue
        if kind in ("str", "f32list", "strlist", "u64list"):
            data[name] = pd.Series(values, dtype=object)
            continue
        arr = np.frombuffer(cast(bytes, values), dtype=_NUMPY[kind]).copy()
        if kind == "f32":
            data[name] = pd.Series(arr)
            continue
        if mask is None:
            m = np.zeros(len(arr), dtype=np.bool_)
        else:
            m = np.frombuffer(mask, dtype=np.bool_).copy()
        if kind == "bool":
            data[name] = pd.Series(pd.arrays.BooleanArray(arr, m))
        else:
            data[name] = pd.Series(pd.arrays.IntegerArray(arr, m))
    return pd.DataFrame(data)


def _polars_frame(columns: "List[Column]") -> "polars.DataFrame":
    import numpy as np
    import polars as pl

    kinds = {"i64": pl.Int64, "u64": pl.UInt64, "f32": pl.Float32, "bool": pl.Boolean}
    lists: dict = {"str": pl.String, "f32list": pl.List(pl.Float32), "strlist": pl.List(pl.String),
             "u64list": pl.List(pl.UInt64)}
    series = []
    for name, kind, values, mask in columns:
        decoded = _json_values(name, kind, cast(list, values))
        if decoded is not None:
            series.append(pl.Series(name, decoded, dtype=_input_history_dtype()))
            continue
        if kind in lists:
            series.append(pl.Series(name, values, dtype=lists[kind]))
            continue
        s = pl.Series(name, np.frombuffer(cast(bytes, values), dtype=_NUMPY[kind]), dtype=kinds[kind])
        if mask is not None:
            nulls = np.flatnonzero(np.frombuffer(mask, dtype=np.bool_))
            s = s.scatter(nulls, None)
        series.append(s)
    return pl.DataFrame(series)


def _frame(columns: "List[Column]", use_polars: Optional[bool]) -> "DataFrame":
    """A DataFrame of the native columns: polars or pandas (None: `set_polars`'s choice).
    Used by the other modules of the package (`gamewire.teeworlds`) too."""
    if use_polars is None:
        use_polars = _POLARS_DEFAULT
    return _polars_frame(columns) if use_polars else _pandas_frame(columns)


class Demo:
    """A Source 2 demo (CS2, Deadlock, Dota 2), read into memory once.

    `path` is a `.dem` file, a gzip, bzip2 or zstd compressed one (`.dem.gz`, `.dem.bz2`,
    `.dem.zst`: told by its first bytes) or an HTTP broadcast directory (a `sync.json` and its
    fragments), read as one demo. A demo already in memory: `Demo.from_bytes(data, name)`.

    A demo cut short (a truncated file, a cut fragment) keeps everything before the cut: each
    method warns with a `DemoTruncatedWarning`, or with `strict=True` raises
    `DemoTruncatedError`.

    Raises `FileNotFoundError` (or `OSError`) when the file cannot be read and `NotADemoError`
    when it is not a Source 2 demo.
    """

    __slots__ = ("_native", "_strict")

    def __init__(self, path: PathArg, *, strict: bool = False) -> None:
        if not isinstance(path, (str, _os.PathLike)):
            raise _bad("Demo", "path", "a path (str or os.PathLike)", path)
        strict = _flag("Demo", "strict", strict)
        self._native = NativeDemo(_os.fspath(path))
        self._strict = strict

    @classmethod
    def from_bytes(
        cls,
        data: Union[bytes, bytearray, memoryview],
        name: str = "<bytes>",
        *,
        strict: bool = False,
    ) -> "Demo":
        """A demo already in memory: the bytes of a `.dem` file, or of a gzip, bzip2 or zstd
        compressed one (read from an archive, a database, the network). `name` stands for the
        path in messages and `path`. The bytes are copied. Raises `NotADemoError` when they are
        not a Source 2 demo."""
        if isinstance(data, memoryview):
            data = data.tobytes()
        if not isinstance(data, (bytes, bytearray)):
            raise _bad("Demo.from_bytes", "data", "bytes", data)
        if not isinstance(name, (str, _os.PathLike)):
            raise _bad("Demo.from_bytes", "name", "a name (str)", name)
        strict = _flag("Demo.from_bytes", "strict", strict)
        demo = cls.__new__(cls)
        demo._native = NativeDemo.from_bytes(bytes(data), _os.fspath(name))
        demo._strict = strict
        return demo

    @classmethod
    def sample(cls, *, strict: bool = False) -> "Demo":
        """The sample demo that ships inside gamewire: a short CS2 match (10 players, several
        rounds with kills, damage, grenades, the bomb and chat), synthesized from
        `examples/scenarios/sample.toml` with the built-in schema. Its `path` is `<sample>`,
        as the command line's `--sample` names it."""
        return cls.from_bytes(sample_demo(), "<sample>", strict=strict)

    def __repr__(self) -> str:
        return f"gamewire.Demo({self.path!r}, {self.size} bytes)"

    @property
    def path(self) -> str:
        """The path given."""
        return str(self._native.path)

    @property
    def size(self) -> int:
        """The demo's size in bytes (after decompression, for a compressed file)."""
        return self._native.size

    @property
    def strict(self) -> bool:
        """Whether a cut raises `DemoTruncatedError` (else a `DemoTruncatedWarning`)."""
        return self._strict

    # -- what the demo holds ---------------------------------------------------------------

    def header(self) -> Dict[str, HeaderValue]:
        """The demo header and file info as a dict: `map_name`, `server_name`, `client_name`,
        `game_directory`, `build_num`, `network_protocol`, `demo_version_name`,
        `playback_ticks`, `playback_frames`, `playback_time` (s), `tick_interval` (s),
        `tick_rate` (ticks/s), `frames`, `last_tick`, `reached_stop` (the values of
        `gamewire info --format json`)."""
        header, cut = self._native.header()
        _cut(cut, self._strict)
        return header

    def event_names(self) -> List[str]:
        """The names of the game events that occur in the demo, sorted (`gamewire events
        --list`)."""
        names, cut = self._native.event_names()
        _cut(cut, self._strict)
        return names

    @overload
    def header_table(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def header_table(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def header_table(self, *, polars: None = ...) -> DataFrame: ...

    def header_table(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """The `header` table: one row describing the demo (map, tick rate, build, ticks,
        duration, players, ...), as `gamewire batch` writes it per demo."""
        return self._table("header", polars)

    @overload
    def props(self, cls: Optional[str] = ..., *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def props(self, cls: Optional[str] = ..., *,
              polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def props(self, cls: Optional[str] = ..., *, polars: None = ...) -> DataFrame: ...

    def props(self, cls: Optional[str] = None, *, polars: Optional[bool] = None) -> "DataFrame":
        """The props the demo offers (`gamewire props`), one row each: `name` (what `props=`
        takes), `source` (`friendly`: a name of gamewire's; `raw`: a class's own field path),
        `class`, `path` and `type`. `cls` keeps one class's (`CCSPlayerPawn`); an unknown
        class raises `UnknownNameError` with the closest names. Parses only up to the send
        tables."""
        where = "Demo.props"
        if cls is not None and not isinstance(cls, str):
            raise _bad(where, "cls", "a class name (str) or None", cls)
        use_polars = _use_polars(where, polars)
        columns = self._native.props(cls)
        return _frame(columns, use_polars)

    # -- tables ----------------------------------------------------------------------------

    def _run(self, where: str, queries: "List[Query]",
             use_polars: bool) -> List[Dict[str, "DataFrame"]]:
        """Several queries in one pass: per query, a dict from table name to DataFrame."""
        try:
            per_query, cut = self._native.run(queries)
        except BadArgumentError as e:
            raise BadArgumentError(f"{where}: {e}") from None
        _cut(cut, self._strict)
        return [{name: _frame(cols, use_polars) for name, cols in tables}
                for tables in per_query]

    def _table(self, table: str, polars: Optional[bool], **options: object) -> "DataFrame":
        where = "Demo.header_table" if table == "header" else f"Demo.{table}"
        use_polars = _use_polars(where, polars)
        query = _query(where, ("table", table), **options)  # type: ignore[arg-type]
        return cast("Dict[str, pandas.DataFrame]", self._run(where, [query], use_polars)[0])[table]

    @overload
    def tables(self, names: Names = ..., *, name: Names = ..., props: Names = ...,
               other: Names = ..., ticks: Ticks = ..., players: SteamIds = ...,
               humans_only: bool = ..., grenade_props: Names = ...,
               polars: Literal[True]) -> Dict[str, polars.DataFrame]: ...
    @overload
    def tables(self, names: Names = ..., *, name: Names = ..., props: Names = ...,
               other: Names = ..., ticks: Ticks = ..., players: SteamIds = ...,
               humans_only: bool = ..., grenade_props: Names = ...,
               polars: Literal[False]) -> Dict[str, pandas.DataFrame]: ...
    @overload
    def tables(self, names: Names = ..., *, name: Names = ..., props: Names = ...,
               other: Names = ..., ticks: Ticks = ..., players: SteamIds = ...,
               humans_only: bool = ..., grenade_props: Names = ...,
               polars: None = ...) -> Union[Dict[str, pandas.DataFrame],
                                            Dict[str, polars.DataFrame]]: ...

    def tables(
        self,
        names: Names = TABLES,
        *,
        name: Names = None,
        props: Names = None,
        other: Names = None,
        ticks: Ticks = None,
        players: SteamIds = None,
        humans_only: bool = False,
        grenade_props: Names = None,
        polars: Optional[bool] = None,
    ) -> "Union[Dict[str, pandas.DataFrame], Dict[str, polars.DataFrame]]":
        """Several tables in one pass over the demo: a dict from table name to DataFrame, in
        the order of `TABLES`. `names` is a table name or a list of them (default: every
        table); the options are those of `events`, `ticks` and `grenades`, and each must be
        used by a table asked for (else `BadArgumentError`)."""
        where = "Demo.tables"
        use_polars = _use_polars(where, polars)
        query = _query(where, ("names", names), name, props, other, ticks, players,
                       humans_only, grenade_props)
        return cast("Dict[str, pandas.DataFrame]", self._run(where, [query], use_polars)[0])

    @overload
    def events(self, name: Names = ..., *, props: Names = ..., other: Names = ...,
               polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def events(self, name: Names = ..., *, props: Names = ..., other: Names = ...,
               polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def events(self, name: Names = ..., *, props: Names = ..., other: Names = ...,
               polars: None = ...) -> DataFrame: ...

    def events(
        self,
        name: Names = None,
        *,
        props: Names = None,
        other: Names = None,
        polars: Optional[bool] = None,
    ) -> "DataFrame":
        """Game events, one row each (`gamewire table events`): `event_name`, `tick`, the
        event's keys as the game sends them, then per player key (`userid` -> `user_`,
        `attacker` -> `attacker_`, `assister` -> `assister_`) the player's `name`, `steamid`,
        `slot` and each prop of `props` at that tick, then each game-wide prop of `other`.
        `name` is an event name, a list of them, or None for every event."""
        return self._table("events", polars, name=name, props=props, other=other)

    @overload
    def ticks(self, props: Names, *, ticks: Ticks = ..., players: SteamIds = ...,
              humans_only: bool = ..., polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def ticks(self, props: Names, *, ticks: Ticks = ..., players: SteamIds = ...,
              humans_only: bool = ..., polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def ticks(self, props: Names, *, ticks: Ticks = ..., players: SteamIds = ...,
              humans_only: bool = ..., polars: None = ...) -> DataFrame: ...

    def ticks(
        self,
        props: Names,
        *,
        ticks: Ticks = None,
        players: SteamIds = None,
        humans_only: bool = False,
        polars: Optional[bool] = None,
    ) -> "DataFrame":
        """One row per player (bots included) per tick (`gamewire table ticks`): `tick`,
        `slot`, `steamid`, `name`, then each prop of `props` in the order given (friendly
        names such as `X`, `health`, `yaw`, or raw `CCSPlayerPawn.m_iHealth`; see `props()`).
        `ticks` keeps only those ticks (a tick, a list, a `range`, or `"100..200"`), `players`
        only those steam ids, `humans_only` drops the bots."""
        return self._table("ticks", polars, props=props, ticks=ticks, players=players,
                           humans_only=humans_only)

    @overload
    def grenades(self, *, grenade_props: Names = ...,
                 polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def grenades(self, *, grenade_props: Names = ...,
                 polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def grenades(self, *, grenade_props: Names = ..., polars: None = ...) -> DataFrame: ...

    def grenades(self, *, grenade_props: Names = None,
                 polars: Optional[bool] = None) -> "DataFrame":
        """Grenade trajectories: one row per projectile per tick it moved, with the thrower,
        the grenade's type, its start and end ticks and its position; then a column per raw
        prop of the projectile in `grenade_props` (`m_nBounces`, `CBodyComponent.m_vecZ`)."""
        return self._table("grenades", polars, grenade_props=grenade_props)

    # The fixed tables: no options but `polars`. Their columns: docs/tables.md.

    @overload
    def players(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def players(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def players(self, *, polars: None = ...) -> DataFrame: ...

    def players(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """The players (bots included), one row each, with their team and match stats."""
        return self._table("players", polars)

    @overload
    def chat(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def chat(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def chat(self, *, polars: None = ...) -> DataFrame: ...

    def chat(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """Chat messages."""
        return self._table("chat", polars)

    @overload
    def rounds(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def rounds(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def rounds(self, *, polars: None = ...) -> DataFrame: ...

    def rounds(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """Rounds: start, freeze end, end and official end ticks, winner and reason."""
        return self._table("rounds", polars)

    @overload
    def kills(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def kills(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def kills(self, *, polars: None = ...) -> DataFrame: ...

    def kills(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """Kills (`player_death`): attacker, victim, assister, weapon, headshot, wallbang,
        flash assist, ..."""
        return self._table("kills", polars)

    @overload
    def damages(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def damages(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def damages(self, *, polars: None = ...) -> DataFrame: ...

    def damages(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """Damage (`player_hurt`): attacker, victim, weapon, damage, remaining health and
        armor, hit group."""
        return self._table("damages", polars)

    @overload
    def purchases(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def purchases(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def purchases(self, *, polars: None = ...) -> DataFrame: ...

    def purchases(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """Purchases (`item_purchase` events, else the buyers' sell-back lists, with `loadout`
        null then): the buyer, their team, the weapon."""
        return self._table("purchases", polars)

    @overload
    def user_commands(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def user_commands(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def user_commands(self, *, polars: None = ...) -> DataFrame: ...

    def user_commands(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """User commands (CS2; Deadlock's base command), one row each: the player, view
        angles, moves, buttons, mouse deltas, and `input_history` (a list of dicts)."""
        return self._table("user_commands", polars)

    @overload
    def shots(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def shots(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def shots(self, *, polars: None = ...) -> DataFrame: ...

    def shots(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """Shots (`weapon_fire`): the shooter, the weapon, and where they stood and aimed."""
        return self._table("shots", polars)

    @overload
    def bomb(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def bomb(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def bomb(self, *, polars: None = ...) -> DataFrame: ...

    def bomb(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """Bomb plants, defuses, explosions, drops and pickups, with the player and where."""
        return self._table("bomb", polars)

    @overload
    def smokes(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def smokes(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def smokes(self, *, polars: None = ...) -> DataFrame: ...

    def smokes(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """Smokes, one row each, from detonation to expiry, with the thrower and where."""
        return self._table("smokes", polars)

    @overload
    def infernos(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def infernos(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def infernos(self, *, polars: None = ...) -> DataFrame: ...

    def infernos(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """Molotov and incendiary fires, one row each, with the columns of `smokes`."""
        return self._table("infernos", polars)

    @overload
    def flashes(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def flashes(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def flashes(self, *, polars: None = ...) -> DataFrame: ...

    def flashes(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """Players blinded (`player_blind`): the attacker, the victim, how long."""
        return self._table("flashes", polars)

    @overload
    def footsteps(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def footsteps(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def footsteps(self, *, polars: None = ...) -> DataFrame: ...

    def footsteps(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """Footsteps (`player_footstep`): the player and where."""
        return self._table("footsteps", polars)

    @overload
    def item_drops(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def item_drops(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def item_drops(self, *, polars: None = ...) -> DataFrame: ...

    def item_drops(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """Items dropped to players at the end of a match (`SendPlayerItemDrops`)."""
        return self._table("item_drops", polars)

    @overload
    def skins(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def skins(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def skins(self, *, polars: None = ...) -> DataFrame: ...

    def skins(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """The items each player had equipped, from the end-of-match summary."""
        return self._table("skins", polars)

    @overload
    def combat_log(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def combat_log(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def combat_log(self, *, polars: None = ...) -> DataFrame: ...

    def combat_log(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """Dota 2's combat log, one row per entry (names resolved through the
        `CombatLogNames` string table)."""
        return self._table("combat_log", polars)

    @overload
    def updated_fields(self, *, polars: Literal[True]) -> polars.DataFrame: ...
    @overload
    def updated_fields(self, *, polars: Literal[False]) -> pandas.DataFrame: ...
    @overload
    def updated_fields(self, *, polars: None = ...) -> DataFrame: ...

    def updated_fields(self, *, polars: Optional[bool] = None) -> "DataFrame":
        """The props the demo's entity updates carry, one row per name, with how many updates
        carried it and the classes that send it."""
        return self._table("updated_fields", polars)

    # -- writing demos ---------------------------------------------------------------------
    # Each writes a new demo file to `out` (a temporary file in its folder, renamed once
    # complete: a failure leaves no file) and returns the report: `frames_read`,
    # `frames_written`, `first_tick`, `last_tick`, `messages_copied` (messages written as
    # their original bytes), `warnings` (a list of str), and for a cut `from_tick`, `to_tick`.
    # A demo cut short is written up to its cut, then warns (`DemoTruncatedWarning`) or with
    # `strict=True` raises `DemoTruncatedError`.

    def _edit(self, where: str, out: PathArg, run: str, *args: object) -> Dict[str, object]:
        if not isinstance(out, (str, _os.PathLike)):
            raise _bad(where, "out", "a path (str or os.PathLike)", out)
        report, cut = getattr(self._native, run)(_os.fspath(out), *args)
        _cut(cut, self._strict)
        return report

    def rewrite(self, out: PathArg) -> Dict[str, object]:
        """Writes the demo again into `out`, every frame from its decoded model
        (`gamewire rewrite`); what the writer does not model is copied and counted in
        `messages_copied`."""
        return self._edit("Demo.rewrite", out, "rewrite")

    def cut(self, out: PathArg, from_tick: Optional[int] = None,
            to_tick: Optional[int] = None, *, round: Optional[int] = None) -> Dict[str, object]:
        """Writes the ticks `from_tick..to_tick` (both included) as a demo of their own into
        `out` (`gamewire cut`): the state at `from_tick` as one full packet, then the demo's
        frames up to `to_tick`. CS2: `round=N` instead takes round N's ticks from the `rounds`
        table (a demo without that round, or of another game, raises `BadArgumentError`)."""
        where = "Demo.cut"
        if round is not None:
            if from_tick is not None or to_tick is not None:
                raise BadArgumentError(f"{where}: give from_tick and to_tick, or round, not both")
            if not isinstance(round, SupportsIndex) or isinstance(round, bool) \
                    or not 1 <= _operator.index(round) < 2 ** 32:
                raise _bad(where, "round", "a round number (1, 2, ...)", round)
            return self._edit(where, out, "cut", None, None, _operator.index(round))
        if from_tick is None or to_tick is None:
            raise BadArgumentError(f"{where}: give from_tick and to_tick (or round)")
        ticks = []
        for option, value in (("from_tick", from_tick), ("to_tick", to_tick)):
            if not isinstance(value, SupportsIndex) or isinstance(value, bool) \
                    or _operator.index(value) not in _TICK_RANGE:
                raise _bad(where, option, "a tick (int)", value)
            ticks.append(_operator.index(value))
        return self._edit(where, out, "cut", ticks[0], ticks[1], None)

    def anonymize(self, out: PathArg, *, key: Optional[str] = None,
                  keep_chat: bool = False) -> Dict[str, object]:
        """Writes the demo into `out` with every player's name replaced by a pseudonym and
        their steam ids, account ids and xuids by fake ids derived from `key`
        (`gamewire anonymize`): with the same key, a player gets the same pseudonym in every
        demo. Without `key`, a random key is drawn for this call (its pseudonyms match no
        other call). Chat text is dropped unless `keep_chat`; voice data is dropped."""
        where = "Demo.anonymize"
        if key is not None and not isinstance(key, str):
            raise _bad(where, "key", "a key (str) or None", key)
        keep_chat = _flag(where, "keep_chat", keep_chat)
        return self._edit(where, out, "anonymize", key, keep_chat)


def _paths(where: str, value: object) -> List[str]:
    if isinstance(value, (str, _os.PathLike)):
        return [_os.fspath(value)]
    if isinstance(value, (bytes, bytearray, dict)) or not isinstance(value, Iterable):
        raise _bad(where, "paths", "a path or a list of paths", value)
    out = []
    for item in value:
        if not isinstance(item, (str, _os.PathLike)):
            raise _bad(where, "paths", "paths (str or os.PathLike)", item)
        out.append(_os.fspath(item))
    return out


# `run_many`'s failure kinds: the exception each raises.
_FAILURES = {
    "missing": FileNotFoundError,
    "read": OSError,
    "not_a_demo": NotADemoError,
    "truncated": DemoTruncatedError,
    "corrupt": DemoError,
    "unknown_name": UnknownNameError,
    "usage": BadArgumentError,
}


@overload
def parse_many(paths: Union[PathArg, Iterable[PathArg]], tables: Names = ..., *,
               name: Names = ..., props: Names = ..., other: Names = ..., ticks: Ticks = ...,
               players: SteamIds = ..., humans_only: bool = ..., grenade_props: Names = ...,
               jobs: Optional[int] = ..., on_error: str = ..., strict: bool = ...,
               polars: Literal[True]) -> Dict[str, polars.DataFrame]: ...
@overload
def parse_many(paths: Union[PathArg, Iterable[PathArg]], tables: Names = ..., *,
               name: Names = ..., props: Names = ..., other: Names = ..., ticks: Ticks = ...,
               players: SteamIds = ..., humans_only: bool = ..., grenade_props: Names = ...,
               jobs: Optional[int] = ..., on_error: str = ..., strict: bool = ...,
               polars: Literal[False]) -> Dict[str, pandas.DataFrame]: ...
@overload
def parse_many(paths: Union[PathArg, Iterable[PathArg]], tables: Names = ..., *,
               name: Names = ..., props: Names = ..., other: Names = ..., ticks: Ticks = ...,
               players: SteamIds = ..., humans_only: bool = ..., grenade_props: Names = ...,
               jobs: Optional[int] = ..., on_error: str = ..., strict: bool = ...,
               polars: None = ...) -> Union[Dict[str, pandas.DataFrame],
                                            Dict[str, polars.DataFrame]]: ...


def parse_many(
    paths: Union[PathArg, Iterable[PathArg]],
    tables: Names = ("kills", "rounds"),
    *,
    name: Names = None,
    props: Names = None,
    other: Names = None,
    ticks: Ticks = None,
    players: SteamIds = None,
    humans_only: bool = False,
    grenade_props: Names = None,
    jobs: Optional[int] = None,
    on_error: str = "raise",
    strict: bool = False,
    polars: Optional[bool] = None,
) -> "Union[Dict[str, pandas.DataFrame], Dict[str, polars.DataFrame]]":
    """The same tables of many demos (`gamewire batch`), parsed in parallel on `jobs` worker
    threads (default: one per core) with the GIL released: a dict from table name to one
    DataFrame of every demo's rows, with a first column `demo` (the file's stem, `-2`, `-3`,
    ... for repeats). The options are those of `Demo.tables`. `paths` is one path or an
    iterable of them: `.dem` files, broadcast directories, and other directories, searched
    recursively for both (in name order).

    A demo that fails raises (the first failing demo in the order given) with the class
    `Demo` would raise (`FileNotFoundError`, `OSError`, `NotADemoError`, `DemoError`) when
    `on_error` is `"raise"`, the default; with `"skip"` it is left out with a `RuntimeWarning`
    naming it. A mistake in the query itself (an unknown name, an option no table uses)
    raises whatever `on_error` says. A demo cut short keeps its rows before the cut, with a
    `DemoTruncatedWarning`; with `strict=True` it fails as `DemoTruncatedError` instead."""
    where = "parse_many"
    if on_error not in ("raise", "skip"):
        raise _bad(where, "on_error", "'raise' or 'skip'", on_error)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise _bad(where, "jobs", "a number of threads (an int, 1 or more) or None", jobs)
    strict = _flag(where, "strict", strict)
    use_polars = _use_polars(where, polars)
    query = _query(where, ("tables", tables), name, props, other, ticks, players, humans_only,
                   grenade_props)
    demo_paths = _paths(where, paths)
    try:
        merged, failures = run_many(demo_paths, query, jobs, strict)
    except BadArgumentError as e:
        raise BadArgumentError(f"{where}: {e}") from None
    for _path, kind, message in failures:
        if kind == "cut":
            # Not a failure: the demo's rows before the cut are in the tables.
            _cut(message, False)
            continue
        error = _FAILURES.get(kind, DemoError)
        if kind == "usage":
            raise BadArgumentError(f"{where}: {message}")
        if on_error == "raise" or kind == "unknown_name":
            raise error(message)
        _warnings.warn(f"skipped: {message}", RuntimeWarning, stacklevel=_caller_level())
    out = {table: _frame(cols, use_polars) for table, cols in merged}
    for table in query["tables"]:
        # Every demo skipped: an empty frame (a `demo` column only) per table asked for.
        out.setdefault(table, _frame([("demo", "str", [], None)], use_polars))
    return cast("Dict[str, pandas.DataFrame]", out)


def _scenario_format(path: str) -> str:
    lower = path.lower()
    if lower.endswith(".toml"):
        return "toml"
    if lower.endswith(".json"):
        return "json"
    raise _bad("synth", "scenario", "a .toml or .json file, or a scenario's text", path)


def synth(scenario: PathArg, out: PathArg, *,
          schema: Optional[PathArg] = None) -> Dict[str, object]:
    """Writes a CS2 demo from a scenario (docs/scenarios.md) to `out`, as `gamewire synth
    SCENARIO OUT [--schema DEMO]`. `scenario` is a `.toml` or `.json` file (an
    `os.PathLike`, or a `str` naming one), or the scenario's text itself (a `str` that holds
    a line break, or starts with `{`: JSON when it does, else TOML). `schema` is the path of
    a CS2 demo (compressed too) whose send tables, class info and game-event descriptors the
    new demo carries; without it the built-in schema is used.

    The demo is made in memory, then written to a temporary file in `out`'s folder renamed
    once complete. Returns what was written as a dict: `map`, `tick_rate`, `first_tick`,
    `last_tick`, `frame_interval`, `frames`, `players`, `schema` (`"built-in"` or `"demo"`)
    and `bytes`. A scenario with an error raises `ScenarioError` (a `ValueError`) naming the
    line or key and what is wrong, and writes no file."""
    where = "synth"
    if isinstance(scenario, _os.PathLike) or (
        isinstance(scenario, str) and "\n" not in scenario
        and not scenario.lstrip().startswith("{")
    ):
        path = _os.fspath(scenario)
        if not isinstance(path, str):
            raise _bad(where, "scenario", "a path (str or os.PathLike) or a scenario's text",
                       scenario)
        fmt = _scenario_format(path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
    elif isinstance(scenario, str):
        text = scenario
        fmt = "json" if scenario.lstrip().startswith("{") else "toml"
    else:
        raise _bad(where, "scenario", "a path (str or os.PathLike) or a scenario's text",
                   scenario)
    if not isinstance(out, (str, _os.PathLike)):
        raise _bad(where, "out", "a path (str or os.PathLike)", out)
    if schema is not None and not isinstance(schema, (str, _os.PathLike)):
        raise _bad(where, "schema", "the path of a CS2 demo (str or os.PathLike) or None", schema)
    return _synth(text, fmt, _os.fspath(out), None if schema is None else _os.fspath(schema))


# The classes of this module are gamewire's: shown as `gamewire.Demo` in reprs and docs.
Demo.__module__ = "gamewire"
parse_many.__module__ = "gamewire"
synth.__module__ = "gamewire"
set_polars.__module__ = "gamewire"
