"""Type stubs of the native half of `gamewire` (built from `crates/python/src/lib.rs`).

Use `gamewire.Demo`; this module is its engine. A column travels as `(name, kind, values, mask)`:
`kind` is `"i64"`, `"u64"`, `"f32"` or `"bool"` with `values` the little-endian buffer and `mask`
one byte per row (1 = null) or None; `"str"` with `values` a list of `str | None`; or
`"f32list"` (vectors and angles) with `values` a list of `list[float] | None`; `"strlist"`
(an inventory) with `values` a list of `list[str] | None`; or `"u64list"` (item indices, steam
ids) with `values` a list of `list[int] | None`.
"""

import os
from pathlib import Path
from typing import Any, Optional, Union

__version__: str

Column = tuple[
    str,
    str,
    Union[
        bytes,
        list[Optional[str]],
        list[Optional[list[float]]],
        list[Optional[list[str]]],
        list[Optional[list[int]]],
    ],
    Optional[bytes],
]

class DemoError(ValueError):
    """The demo is not a Source 2 demo, is truncated or corrupt, or a name is unknown; the
    message is the one the `gamewire` CLI prints."""

class NativeDemo:
    """A demo file held in memory."""

    def __new__(cls, path: Union[str, os.PathLike[str]]) -> "NativeDemo": ...
    @staticmethod
    def from_bytes(data: Union[bytes, bytearray], name: Union[str, os.PathLike[str]]) -> "NativeDemo":
        """A demo already in memory (gzip, bzip2 or zstd compressed too), named `name`."""
    @property
    def path(self) -> Union[Path, str]: ...
    @property
    def size(self) -> int: ...
    def header(self) -> tuple[dict[str, Any], Optional[str]]:
        """The header dict, and the cut message of a demo cut short (or None)."""
    def list_game_events(self) -> tuple[list[str], Optional[str]]:
        """The event names, and the cut message of a demo cut short (or None)."""
    def run(
        self, queries: list[dict[str, Any]]
    ) -> tuple[list[list[tuple[str, list[Column]]]], Optional[str]]:
        """Runs queries (dicts with `tables`, `events`, `player`, `other`, `ticks`, `players`)
        in one pass: per query, a list of `(table name, columns)`; and the cut message of a
        demo cut short (its tables hold everything before the cut), or None."""
    def __repr__(self) -> str: ...

def run_many(
    paths: list[Union[str, os.PathLike[str]]],
    query: dict[str, Any],
    jobs: Optional[int] = None,
) -> tuple[list[tuple[str, list[Column]]], list[tuple[Union[Path, str], str, str]]]:
    """Runs one query over many demos on `jobs` worker threads (default: one per core), the GIL
    released: `(tables, failures)`, one table per name with every demo's rows and a first column
    `demo` (the file's stem, `-2`, `-3`, ... for repeats, as `gamewire batch` names its files),
    and per failed demo `(path, kind, message)` with `kind` `"missing"`, `"read"` or `"demo"`;
    a demo cut short is there too with `kind` `"cut"`, its rows before the cut in the tables."""
