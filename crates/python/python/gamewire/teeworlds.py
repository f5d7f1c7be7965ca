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
`tables`, exactly those named (an unknown name raises `gamewire.UnknownNameError` with the
valid names). A file that is neither a capture nor a demo raises `gamewire.NotADemoError`,
a corrupt one `gamewire.DemoError`, a missing one `FileNotFoundError`. A demo cut short is not
an error unless `strict=True` (then `gamewire.DemoTruncatedError`): the tables hold what comes
before the cut, with a `gamewire.DemoTruncatedWarning`. Datagrams of a capture that did not
decode are skipped with a `UserWarning` that counts them and names the first.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Iterable, Optional, Union

from ._demo import _caller_level, _cut, _frame, _use_polars
from ._gamewire import read_teeworlds as _read

__all__ = ["read", "read_pcap", "read_demo"]

Path = Union[str, "os.PathLike[str]"]


def _tables(
    where: str,
    path: Path,
    kind: str,
    tables: Optional[Iterable[str]],
    polars: Optional[bool],
    strict: bool,
) -> dict[str, Any]:
    use_polars = _use_polars(where, polars)
    if isinstance(tables, str):
        tables = [tables]
    names = None if tables is None else [str(t) for t in tables]
    columns, cut, _warnings, errors = _read(os.fspath(path), kind, names)
    _cut(cut, strict)
    if errors:
        warnings.warn(
            f"{os.fspath(path)}: {len(errors)} datagrams did not decode cleanly; the first: "
            f"{errors[0]}",
            UserWarning,
            stacklevel=_caller_level(),
        )
    return {name: _frame(cols, use_polars) for name, cols in columns}


def read(
    path: Path,
    *,
    tables: Optional[Iterable[str]] = None,
    polars: Optional[bool] = None,
    strict: bool = False,
) -> dict[str, Any]:
    """The tables of a Teeworlds 0.7 demo or capture, told apart by the file's first bytes
    (a demo starts with `TWDEMO`); pandas DataFrames, or polars with `polars=True`."""
    return _tables("read", path, "auto", tables, polars, strict)


def read_pcap(
    path: Path,
    *,
    tables: Optional[Iterable[str]] = None,
    polars: Optional[bool] = None,
    strict: bool = False,
) -> dict[str, Any]:
    """The tables of a pcap or pcapng capture of Teeworlds 0.7 traffic."""
    return _tables("read_pcap", path, "pcap", tables, polars, strict)


def read_demo(
    path: Path,
    *,
    tables: Optional[Iterable[str]] = None,
    polars: Optional[bool] = None,
    strict: bool = False,
) -> dict[str, Any]:
    """The tables of a recorded Teeworlds 0.7 demo (`.demo`)."""
    return _tables("read_demo", path, "demo", tables, polars, strict)
