"""gamewire: Source 2 demos (CS2, Deadlock, Dota 2) as pandas or polars DataFrames.

    >>> import gamewire
    >>> demo = gamewire.Demo("match.dem")
    >>> demo.header()["map_name"]
    >>> kills = demo.kills()
    >>> hurt = demo.events("player_hurt", props=["X", "Y", "health"], other="total_rounds_played")
    >>> ticks = demo.ticks(["X", "Y", "Z", "health"], ticks="1000..2000")
    >>> demo.props()        # what the demo offers: friendly names, raw paths, types

The file is read once, when the `Demo` is made. Each method parses the bytes in one pass with
the GIL released, decoding only what its tables need, and returns a pandas DataFrame, or a
polars DataFrame with `polars=True` (or after `gamewire.set_polars(True)`). The tables, their
options and their columns are those of the command line (`gamewire table`): the first argument
of a method is positional, every option is keyword-only and named as the command line's
(`name`, `props`, `other`, `ticks`, `players`, `humans_only`, `grenade_props`).

Column types, whatever the rows and however the table is loaded: integers `Int64`, steam ids
`UInt64` (pandas' nullable types; bots have steam id 0), floats `float32` (NaN for null),
booleans `boolean`, text `object` (None for null), lists `object`. polars: `Int64`, `UInt64`,
`Float32`, `Boolean`, `String`, `List(...)`. Units: game units for positions, degrees for
angles, demo ticks for times (CS2 runs 64 ticks/s; see `header()`'s `tick_rate`).

Many demos at once: `gamewire.parse_many(paths, ["kills", "rounds"])` parses them in parallel
(one worker per core, the GIL released) and returns one DataFrame per table with a `demo` column
(the file's stem).

Beyond one machine: `gamewire.dask` (`pip install gamewire[dask]`) reads many demos as Dask
DataFrames (`gamewire.dask.read`) or writes them as a Hive-partitioned Parquet dataset that
resumes where it stopped (`gamewire.dask.to_parquet`), on any `distributed` cluster
(docs/datasets.md).

No demo at hand: `gamewire.Demo.sample()` is a short CS2 match that ships inside the package.
`gamewire.synth("match.toml", "match.dem")` writes a CS2 demo from a scenario file
(docs/scenarios.md).

Writing demos (docs/writing.md): `demo.cut("clip.dem", 1000, 2000)` (or `round=7` for CS2),
`demo.anonymize("public.dem", key="dataset key")` and `demo.rewrite("copy.dem")` write a new
demo file, under a temporary name renamed once complete, and return what they did as a dict.

Errors: `DemoError` (a `ValueError`) and its subclasses `NotADemoError` (not a Source 2 demo),
`DemoTruncatedError` (a demo cut short, with `strict=True`), `UnknownNameError` (an unknown
table, prop, event or class; the message lists the closest names) and `BadArgumentError` (also
a `TypeError`: an option of the wrong type, an option no table asked for uses, ticks beyond the
demo's end). A file that cannot be read raises `FileNotFoundError` or `OSError`. A demo cut
short is not an error unless `strict=True`: every method returns what comes before the cut and
warns with a `DemoTruncatedWarning` naming the cut (frame, byte offset, tick).

demoparser2's names (`DemoParser`, `parse_event`, `parse_ticks`, ...) are in `gamewire.compat`.
"""

from ._demo import (
    TABLES,
    BadArgumentError,
    Demo,
    DemoError,
    DemoTruncatedError,
    DemoTruncatedWarning,
    NotADemoError,
    ScenarioError,
    UnknownNameError,
    parse_many,
    set_polars,
    synth,
)
from ._gamewire import __version__
from .follow import follow

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
    "__version__",
    "follow",
    "parse_many",
    "set_polars",
    "synth",
]
