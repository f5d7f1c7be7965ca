"""Teeworlds 0.7 recordings as pandas or polars DataFrames.

    >>> from gamewire import teeworlds
    >>> tables = teeworlds.read_pcap("join.pcap")
    >>> tables["chat"]
    >>> characters = teeworlds.read_demo("match.demo", tables=["character"])["character"]

`read_pcap(path)` reads a pcap or pcapng capture of 0.7 traffic (every UDP datagram, grouped
into client/server flows, snapshot deltas applied and CRCs checked); `read_demo(path)` reads a
recorded 0.7 demo (`.demo`); `read(path)` tells them apart by the file's first bytes. Each
returns a dict of DataFrames by table name, the tables of the `gamewire tw pcap` and
`gamewire tw demo` commands (`--table NAME`), with the same columns and types:

- `snapshots`: one row per snapshot (`tick`, `items`, `crc`; a demo's `full`, a capture's
  `delta_tick` and `crc_ok`);
- one table per snapshot object type (`character`, `player_info`, `projectile`, `pickup`,
  `laser`, `flag`, `game_data`, `de_client_info`, ...): one row per object per snapshot, `tick`,
  `id`, then the object's fields;
- `players` (one row per player seen: `client_id`, `name`, `clan`, `country`, `team`, `local`,
  `first_tick`, `left_tick`), `messages` (`kind`, `message`, `fields` as a JSON object, `error`),
  `chat`, `kills` and `summary` (one row of counts; a demo's header too).

Rows of a capture start with `flow` and `time` (seconds since its first datagram). Without
`tables`, the result holds every fixed table and the object tables that have rows; with
`tables`, exactly those named (an unknown name raises `gamewire.DemoError` with the valid
names). A demo cut short is not an error: the tables hold what comes before the cut, with a
`gamewire.DemoTruncatedWarning`. Datagrams of a capture that did not decode are skipped with a
`UserWarning` that counts them and names the first.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Iterable, Optional, Union

from . import DemoTruncatedWarning, _frame
from ._gamewire import read_teeworlds as _read

__all__ = ["read", "read_pcap", "read_demo"]

Path = Union[str, "os.PathLike[str]"]


def _tables(
    path: Path, kind: str, tables: Optional[Iterable[str]], polars: Optional[bool]
) -> dict[str, Any]:
    if isinstance(tables, str):
        tables = [tables]
    names = None if tables is None else [str(t) for t in tables]
    columns, cut, _warnings, errors = _read(os.fspath(path), kind, names)
    if cut is not None:
        warnings.warn(cut, DemoTruncatedWarning, stacklevel=3)
    if errors:
        warnings.warn(
            f"{os.fspath(path)}: {len(errors)} datagrams did not decode cleanly; the first: "
            f"{errors[0]}",
            UserWarning,
            stacklevel=3,
        )
    return {name: _frame(cols, polars) for name, cols in columns}


def read(
    path: Path, *, tables: Optional[Iterable[str]] = None, polars: Optional[bool] = None
) -> dict[str, Any]:
    """The tables of a Teeworlds 0.7 demo or capture, told apart by the file's first bytes
    (a demo starts with `TWDEMO`); pandas DataFrames, or polars with `polars=True`."""
    return _tables(path, "auto", tables, polars)


def read_pcap(
    path: Path, *, tables: Optional[Iterable[str]] = None, polars: Optional[bool] = None
) -> dict[str, Any]:
    """The tables of a pcap or pcapng capture of Teeworlds 0.7 traffic."""
    return _tables(path, "pcap", tables, polars)


def read_demo(
    path: Path, *, tables: Optional[Iterable[str]] = None, polars: Optional[bool] = None
) -> dict[str, Any]:
    """The tables of a recorded Teeworlds 0.7 demo (`.demo`)."""
    return _tables(path, "demo", tables, polars)
