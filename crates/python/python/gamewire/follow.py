"""`gamewire.follow`: the tables of a demo read while it is written, as they grow.

    >>> import gamewire
    >>> for new in gamewire.follow("live.dem", tables=("kills", "rounds"), every=2.0):
    ...     if "kills" in new:
    ...         print(new["kills"][["tick", "attacker_name", "victim_name"]])

The demo is read from its first byte to its last, once, as the writer appends to it (a file
that grows; a frame cut by the end of what is written waits for its last bytes). `path` may also
be the URL of a live HTTP broadcast (`http://` or `https://`, CSTV+ as CS2 and Deadlock relays
serve it): its fragments are read as the relay produces them (docs/live.md). Every `every`
seconds with something new, the iterator yields a dict from table name to a DataFrame of the
rows completed since the last yield (only the tables with new rows are in it). Rows of the
tables whose rows are complete when made (`events`, `ticks`, `chat`, `user_commands`,
`combat_log`, `kills`, `damages`, `purchases`) come as the demo grows; the other tables (a
round's row waits for its end, `players` holds the stats as last seen, ...) come whole in the
last yield, when the demo ends. The rows of every yield, concatenated, are the rows of the
finished demo's table, in order, each once (`events` without `name`: a column first seen later
is absent from the earlier frames, its values null either way).

Reading ends at the demo's end (its `DEM_Stop` frame), or when the file has not grown (or the
broadcast has had no new fragment) for `idle_timeout` seconds: the last yield then holds the
rows before the cut, with a `DemoTruncatedWarning` (a `DemoTruncatedError` with
`strict=True`).
"""

from typing import TYPE_CHECKING, Dict, Iterator, Optional, Union

from ._demo import (
    BadArgumentError,
    Names,
    SteamIds,
    Ticks,
    _cut,
    _frame,
    _query,
    _use_polars,
)
from ._gamewire import NativeFollow

if TYPE_CHECKING:
    import os

    import pandas
    import polars

__all__ = ["follow"]


def follow(
    path: "Union[str, os.PathLike[str]]",
    tables: Names = ("kills",),
    every: float = 1.0,
    *,
    name: Names = None,
    props: Names = None,
    other: Names = None,
    ticks: Ticks = None,
    players: SteamIds = None,
    humans_only: bool = False,
    grenade_props: Names = None,
    idle_timeout: float = 30.0,
    strict: bool = False,
    polars: Optional[bool] = None,
) -> "Iterator[Union[Dict[str, pandas.DataFrame], Dict[str, polars.DataFrame]]]":
    """Follow the demo at `path` (a file, or a live broadcast's URL) while it is written:
    yields a dict of DataFrames of the rows new since the last yield, at most every `every`
    seconds (see the module's docs). `tables` and the options are those of `Demo.tables`."""
    where = "follow"
    use_polars = _use_polars(where, polars)
    for option, value in (("every", every), ("idle_timeout", idle_timeout)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise BadArgumentError(f"{where}: {option} takes seconds (a number >= 0), "
                                   f"not {value!r}")
    query = _query(where, ("tables", tables), name, props, other, ticks, players,
                   humans_only, grenade_props)
    native = NativeFollow(path, query, float(idle_timeout))
    return _yields(native, float(every), strict, use_polars)


def _yields(native: NativeFollow, every: float, strict: bool,
            use_polars: bool) -> "Iterator[Dict[str, object]]":
    while True:
        step = native.next(every)
        if step is None:
            return
        tables, ended, cut = step
        frames = {name: _frame(cols, use_polars) for name, cols in tables}
        if ended:
            _cut(cut, strict)
        if frames:
            yield frames
        if ended:
            return
