"""Type stubs of the native half of `gamewire` (built from `crates/python/src/lib.rs`).

Use `gamewire.Demo`; this module is its engine. A column travels as `(name, kind, values, mask)`:
`kind` is `"i64"`, `"u64"`, `"f32"` or `"bool"` with `values` the little-endian buffer and `mask`
one byte per row (1 = null) or None; `"str"` with `values` a list of `str | None`; or
`"f32list"` (vectors and angles) with `values` a list of `list[float] | None`; `"strlist"`
(an inventory) with `values` a list of `list[str] | None`; or `"u64list"` (item indices, steam
ids) with `values` a list of `list[int] | None`.

A query is a dict with the command line's option names: `tables` (list of str), `name` (list of
str or None), `props`, `other`, `grenade_props` (lists of str), `ticks` (the command line's text
such as `"5, 100..200"`, a list of ints, or None), `players` (list of ints or None) and
`humans_only` (bool).
"""

import os
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple, TypedDict, Union

__version__: str

#: The table names, in the order a query returns them.
TABLES: Tuple[str, ...]

Column = Tuple[
    str,
    str,
    Union[
        bytes,
        List[Optional[str]],
        List[Optional[List[float]]],
        List[Optional[List[str]]],
        List[Optional[List[int]]],
    ],
    Optional[bytes],
]

class Query(TypedDict):
    tables: List[str]
    name: Optional[List[str]]
    props: List[str]
    other: List[str]
    ticks: Union[str, List[int], None]
    players: Optional[List[int]]
    humans_only: bool
    grenade_props: List[str]

class DemoError(ValueError):
    """A demo that cannot be parsed, or a query it cannot answer; the message is the CLI's.
    A corrupt demo raises this class itself; the other failures raise a subclass."""

class NotADemoError(DemoError):
    """The data is not a Source 2 demo."""

class DemoTruncatedError(DemoError):
    """The demo ends early; raised only with `strict=True`."""

class UnknownNameError(DemoError):
    """A table, event, prop or class name the demo does not have (the closest names in the
    message)."""

class BadArgumentError(DemoError, TypeError):
    """An option of the wrong type, an option no table asked for uses, a malformed tick set,
    ticks beyond the demo's last tick."""

class ScenarioError(ValueError):
    """A scenario `synth` cannot write (malformed, or contradicting itself); the message names
    the line or the key. No file is written."""

HeaderValue = Union[str, int, float, bool, None]

class NativeFollow:
    """A query over a demo read while it is written (`gamewire.follow`)."""

    def __new__(
        cls, path: Union[str, "os.PathLike[str]"], query: Query, idle_timeout: float
    ) -> "NativeFollow": ...
    def next(
        self, every: float
    ) -> Optional[Tuple[List[Tuple[str, List[Column]]], bool, Optional[str]]]:
        """Reads for up to `every` seconds: the tables with new rows, whether the demo has
        ended (the tables then hold the rest), and the cut message; None once all was given."""

class NativeDemo:
    """A demo file held in memory."""

    def __new__(cls, path: Union[str, "os.PathLike[str]"]) -> "NativeDemo": ...
    @staticmethod
    def from_bytes(data: bytes, name: Union[str, "os.PathLike[str]"]) -> "NativeDemo":
        """A demo already in memory (gzip, bzip2 or zstd compressed too), named `name`."""
    @property
    def path(self) -> Path: ...
    @property
    def size(self) -> int: ...
    def header(self) -> Tuple[Dict[str, HeaderValue], Optional[str]]:
        """The header dict, and the cut message of a demo cut short (or None)."""
    def event_names(self) -> Tuple[List[str], Optional[str]]:
        """The event names, and the cut message of a demo cut short (or None)."""
    def props(self, cls: Optional[str] = None) -> List[Column]:
        """The `props` table's columns: `name`, `source`, `class`, `path`, `type`."""
    def run(
        self, queries: List[Query]
    ) -> Tuple[List[List[Tuple[str, List[Column]]]], Optional[str]]:
        """Runs queries in one pass: per query, a list of `(table name, columns)`; and the cut
        message of a demo cut short (its tables hold everything before the cut), or None."""
    def rewrite(self, out: Union[str, "os.PathLike[str]"]) -> Tuple[Dict[str, object], Optional[str]]:
        """Writes the demo again into `out`: the report dict, and the cut message of a demo
        cut short (or None)."""
    def cut(
        self,
        out: Union[str, "os.PathLike[str]"],
        from_tick: Optional[int] = None,
        to_tick: Optional[int] = None,
        round: Optional[int] = None,
    ) -> Tuple[Dict[str, object], Optional[str]]:
        """Writes the ticks `from_tick..=to_tick` (or CS2 round `round`) as a demo into `out`:
        the report dict, and the cut message of a demo cut short (or None)."""
    def anonymize(
        self,
        out: Union[str, "os.PathLike[str]"],
        key: Optional[str] = None,
        keep_chat: bool = False,
    ) -> Tuple[Dict[str, object], Optional[str]]:
        """Writes the demo anonymized into `out` (a random key without `key`): the report
        dict, and the cut message of a demo cut short (or None)."""
    def __repr__(self) -> str: ...

def schema(table: str) -> List[Tuple[str, str]]:
    """The fixed columns of a table as the reference declares them (docs/tables.md):
    `[(column, type)]`, the type as the reference names it (`int64`, `uint64`, `float32`,
    `bool`, `string`, `list<float32>`, `list<string>`, `list<uint64>`)."""

def run_many(
    paths: Sequence[Union[str, "os.PathLike[str]"]],
    query: Query,
    jobs: Optional[int] = None,
    strict: bool = False,
) -> Tuple[List[Tuple[str, List[Column]]], List[Tuple[Path, str, str]]]:
    """Runs one query over many demos on `jobs` worker threads (default: one per core), the GIL
    released: `(tables, failures)`, one table per name with every demo's rows and a first column
    `demo` (the file's stem, `-2`, `-3`, ... for repeats, as `gamewire batch` names its files),
    and per failed demo `(path, kind, message)` with `kind` `"missing"`, `"read"`,
    `"not_a_demo"`, `"corrupt"`, `"unknown_name"`, `"usage"` or `"truncated"`; a demo cut short
    is there too with `kind` `"cut"`, its rows before the cut in the tables (unless `strict`:
    then it is `"truncated"`)."""

def read_teeworlds(
    path: Union[str, "os.PathLike[str]"],
    kind: str = "auto",
    tables: Optional[Sequence[str]] = None,
) -> Tuple[List[Tuple[str, List[Column]]], Optional[str], List[str], List[str]]:
    """Reads a Teeworlds 0.7 recording, `kind` `"pcap"`, `"demo"` or `"auto"` (by its first
    bytes), into tables (`None`: every fixed table and the object tables that have rows):
    `(tables, cut, warnings, errors)`, `cut` naming the cut of a demo cut short, `warnings` and
    `errors` the sentences of a capture's odd or failed datagrams."""

def sample_demo() -> bytes:
    """The bytes of the sample demo that ships inside gamewire (`Demo.sample()`)."""

def synth(
    scenario: str,
    format: str,
    out: Union[str, "os.PathLike[str]"],
    schema: Optional[Union[str, "os.PathLike[str]"]] = None,
) -> Dict[str, object]:
    """Writes the CS2 demo of `scenario` (its text, `format` `"toml"` or `"json"`) to `out`,
    with the schema of the CS2 demo at `schema` or the built-in one: the report dict (`map`,
    `tick_rate`, `first_tick`, `last_tick`, `frame_interval`, `frames`, `players`, `schema`,
    `bytes`)."""
