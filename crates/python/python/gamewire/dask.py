"""Demo datasets on Dask: `gamewire.dask.read` and `gamewire.dask.to_parquet`.

    >>> from distributed import Client
    >>> import gamewire.dask
    >>> client = Client()                     # or a LocalCluster, dask-jobqueue, Kubernetes
    >>> tables = gamewire.dask.read("demos/**/*.dem", ["kills", "rounds"])
    >>> tables["kills"].groupby("attacker_name").size().compute()
    >>> gamewire.dask.to_parquet("s3://bucket/demos/*.dem", "s3://bucket/dataset", ["kills"])

Install with `pip install gamewire[dask]`. Both functions run on whatever `distributed.Client`
is active (Dask's default scheduler when there is none).

`read` gives one Dask DataFrame per table, one partition per group of consecutive demos (groups of
about the same bytes, at most about 64 MiB of demo files and at least one per worker thread by
default: `partition_bytes`, or `demos_per_partition`), built lazily: the client only lists the paths, and each table's `meta` (its columns and
dtypes) comes from the table's schema, not from parsing a demo. A partition is exactly what
`gamewire.parse_many` gives for its demos: the same columns and dtypes, `demo` first.

Why groups, not one partition per demo: Dask spends a few milliseconds per task on scheduling,
moving results and bookkeeping, more on a busy machine, while a short demo parses in about ten.
One task parses a whole group (reusing the worker's send tables, built once per process), and
each table's partition is a getitem on that task's result on the same worker, so the cost per
demo falls with the group's size; a long match, alone in its group, parses for seconds.

`to_parquet` writes a Hive-partitioned dataset, the layout `gamewire batch --format parquet`
writes too:

    <out>/<table>/demo=<name>/part-0.parquet
    <out>/_errors/demo=<name>/part-0.parquet      (path, kind, message, tick)

A demo that fails (a missing or unreadable file, not a demo, a damaged demo) is recorded in
`_errors` instead of failing the job, and so is a demo cut short (its rows before the cut are
kept). Each file is written to a hidden temporary name in its folder and renamed when complete;
running the same call again skips the demos whose every table is written and does the rest.

Paths are local files, directories (searched recursively for `.dem`, `.dem.gz`, `.dem.bz2`,
`.dem.zst` files and broadcast directories), globs, or any fsspec URL the workers can open
(`s3://...`, `gs://...`, `https://...`; their bytes go to `Demo.from_bytes`). Demo names are
those of `parse_many`: the file's stem, `-2`, `-3`, ... for repeats.
"""

from __future__ import annotations

import glob as _glob
import os as _os
import re as _re
import urllib.parse as _urlparse
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from ._demo import (
    BadArgumentError,
    Demo,
    DemoError,
    DemoTruncatedError,
    NotADemoError,
    UnknownNameError,
    _bad,
    _flag,
    _pandas_frame,
    _query,
)
from ._gamewire import schema as _schema

if TYPE_CHECKING:
    import dask.dataframe
    import pandas
    import pyarrow

    from ._gamewire import Column, Query

__all__ = ["demo_paths", "meta", "read", "to_parquet"]

#: The folder of the error records in a dataset.
ERRORS = "_errors"

# Tables whose columns depend on the demo or on options: their `meta` cannot come from the
# schema alone (give `meta=` to `read`, or write them with `to_parquet`, which needs none).
_DYNAMIC = ("events", "ticks")

# The reference's types (`gamewire._gamewire.schema`) as the dtypes `parse_many` gives.
_DTYPES = {
    "int64": "Int64",
    "uint64": "UInt64",
    "float32": "float32",
    "bool": "boolean",
    "string": "object",
    "list<float32>": "object",
    "list<string>": "object",
    "list<uint64>": "object",
}

_COMPRESSED = (".dem.gz", ".dem.bz2", ".dem.zst")
_TICK = _re.compile(r"tick (-?\d+)\)")


# -- paths and names ---------------------------------------------------------------------------


def _is_url(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def _is_demo_name(name: str) -> bool:
    return any(name.endswith(c) and len(name) > len(c) for c in _COMPRESSED) or (
        name.endswith(".dem") and len(name) > 4)


def _stem(path: str) -> str:
    """The dataset name of a demo, as `parse_many` and `gamewire batch` name it."""
    base = path.rstrip("/").rsplit("/", 1)[-1]
    for c in _COMPRESSED:
        if base.endswith(c) and len(base) > len(c):
            return base[: -len(c)]
    stem, _ = _os.path.splitext(base)
    return stem or "demo"


def _names_of(paths: Sequence[str]) -> List[str]:
    seen: Dict[str, int] = {}
    out = []
    for p in paths:
        stem = _stem(p)
        seen[stem] = seen.get(stem, 0) + 1
        out.append(stem if seen[stem] == 1 else f"{stem}-{seen[stem]}")
    return out


def _walk_local(root: str) -> List[str]:
    """The demos under a local directory: demo files and broadcast directories (a `sync.json`
    and its fragments, one demo), in name order. Symbolic links are listed by name, so that a
    dangling one is reported, not dropped."""
    if _os.path.isfile(_os.path.join(root, "sync.json")):
        return [root]
    found = []
    for entry in sorted(_os.scandir(root), key=lambda e: e.name):
        if entry.is_dir():
            inside = _walk_local(entry.path)
            # A folder named as a demo that holds none is kept: it fails as unreadable.
            found.extend(inside or ([entry.path] if _is_demo_name(entry.name) else []))
        elif _is_demo_name(entry.name):
            found.append(entry.path)
    return found


def _walk_url(path: str, storage_options: dict) -> List[str]:
    import fsspec

    fs, _, matches = fsspec.get_fs_token_paths(path, storage_options=storage_options)
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    found = []
    for m in sorted(matches):
        if fs.isdir(m):
            found.extend(p for p in sorted(fs.find(m)) if _is_demo_name(p.rsplit("/", 1)[-1]))
        else:
            found.append(m)
    return [f if "://" in f else f"{protocol}://{f}" for f in found]


def demo_paths(paths: object, storage_options: Optional[dict] = None) -> List[str]:
    """The demos that `paths` name, in order: a path, a glob or an fsspec URL, or a list of
    them. Directories are searched recursively; a path that names no file is kept (it fails
    as `missing` when parsed, so it is never dropped); a glob that matches nothing, or a folder
    that holds no demo, raises `FileNotFoundError`."""
    where = "gamewire.dask"
    if isinstance(paths, (str, _os.PathLike)):
        items = [paths]
    elif isinstance(paths, (bytes, bytearray, dict)) or not isinstance(paths, Iterable):
        raise _bad(where, "paths", "a path, a glob, a URL, or a list of them", paths)
    else:
        items = list(paths)
    found: List[str] = []
    for item in items:
        if not isinstance(item, (str, _os.PathLike)):
            raise _bad(where, "paths", "paths (str or os.PathLike)", item)
        path = _os.fspath(item)
        if path.startswith("file://"):
            path = path[len("file://"):]
        if _is_url(path):
            found.extend(_walk_url(path, storage_options or {}))
        elif _glob.has_magic(path):
            matches = sorted(_glob.glob(path, recursive=True))
            if not matches:
                raise FileNotFoundError(f"{where}: no file matches {path!r}")
            for m in matches:
                found.extend(_walk_local(m) if _os.path.isdir(m) else [m])
        elif _os.path.isdir(path):
            inside = _walk_local(path)
            if not inside:
                raise FileNotFoundError(f"{where}: no demo in the folder {path}")
            found.extend(inside)
        else:
            found.append(path)
    return found


# -- meta --------------------------------------------------------------------------------------


def _schema_meta(table: str) -> "pandas.DataFrame":
    """The empty pandas DataFrame that a partition of `table` is: `demo`, then the table's
    columns with the dtypes `parse_many` gives (`Int64`, `UInt64`, `float32`, `boolean`,
    `object`). Built from the table's schema: nothing is parsed. `events` and `ticks`, whose
    columns depend on the demo and the options, raise `BadArgumentError`."""
    import pandas as pd

    if not isinstance(table, str):
        raise _bad("gamewire.dask.meta", "table", "a table name", table)
    if table in _DYNAMIC:
        raise BadArgumentError(
            f"gamewire.dask.meta: the columns of {table} depend on the demo and the options;"
            " give meta= to read(), or write the table with to_parquet()")
    built = _METAS.get(table)
    if built is None:
        columns = [("demo", "string")] + list(_schema(table))
        built = pd.DataFrame({name: pd.Series([], dtype=_DTYPES[kind]) for name, kind in columns})
        _METAS[table] = built
    # A copy: the caller may change it, and building a frame column by column costs more than
    # copying an empty one (it is done once per table and process).
    return built.copy()


meta = _schema_meta

# The metas built so far in this process, by table.
_METAS: Dict[str, "pandas.DataFrame"] = {}


# -- parsing one demo --------------------------------------------------------------------------

# The error kinds of a record, by the exception a demo raised.
_KINDS: Tuple[Tuple[type, str], ...] = (
    (FileNotFoundError, "missing"),
    (IsADirectoryError, "read"),
    (PermissionError, "read"),
    (OSError, "read"),
    (NotADemoError, "not_a_demo"),
    (DemoTruncatedError, "truncated"),
    (UnknownNameError, "unknown_name"),
    (BadArgumentError, "usage"),
    (DemoError, "corrupt"),
)


def _kind(error: BaseException) -> str:
    for cls, kind in _KINDS:
        if isinstance(error, cls):
            return kind
    return "error"


def _tick(message: str) -> Optional[int]:
    """The tick a parse error or cut names (`... (frame F at byte B, tick T)`)."""
    found = _TICK.findall(message)
    return int(found[-1]) if found else None


def _open(path: str, storage_options: Optional[dict], strict: bool) -> Demo:
    if _is_url(path):
        import fsspec

        with fsspec.open(path, "rb", **(storage_options or {})) as f:
            data = f.read()
        return Demo.from_bytes(data, path, strict=strict)
    return Demo(path, strict=strict)


def _parse(path: str, query: "Query", storage_options: Optional[dict], strict: bool):
    """One demo's tables as native columns, and its record (`kind`, `message`, `tick`) when it
    failed (no tables) or was cut short."""
    try:
        demo = _open(path, storage_options, strict)
        per_query, cut = demo._native.run([query])
    except (OSError, DemoError) as e:
        message = str(e)
        if isinstance(e, OSError) and path not in message:
            message = f"{path}: {message}"
        return None, {"kind": _kind(e), "message": message, "tick": _tick(message)}
    record = None
    if cut is not None:
        if strict:
            message = str(cut)
            return None, {"kind": "truncated", "message": message, "tick": _tick(message)}
        record = {"kind": "cut", "message": f"{cut}; the tables hold everything before the cut",
                  "tick": _tick(str(cut))}
    return dict(per_query[0]), record


# -- read --------------------------------------------------------------------------------------


_WIDTH = {"i64": 8, "u64": 8, "f32": 4, "bool": 1}


def _length(column: "Column") -> int:
    _, kind, values, _ = column
    return len(values) // _WIDTH[kind] if kind in _WIDTH else len(values)


def _merge(demos: "List[Tuple[str, List[Column]]]") -> "Optional[List[Column]]":
    """One table's native columns of several demos as one table, a `demo` column first (as
    `parse_many` merges them), or None when the demos' columns differ."""
    first = demos[0][1]
    names = [(c[0], c[1]) for c in first]
    if any([(c[0], c[1]) for c in cols] != names for _, cols in demos[1:]):
        return None
    rows = [_length(cols[0]) if cols else 0 for _, cols in demos]
    merged: list = [("demo", "str", [name for (name, _), n in zip(demos, rows)
                                     for _ in range(n)], None)]
    for i, (column, kind) in enumerate(names):
        parts = [cols[i] for _, cols in demos]
        if kind in _WIDTH:
            values = b"".join(p[2] for p in parts)  # type: ignore[misc]
            masks = [p[3] for p in parts]
            mask = None if all(m is None for m in masks) else b"".join(
                m if m is not None else bytes(n) for m, n in zip(masks, rows))
            merged.append((column, kind, values, mask))
        else:
            merged.append((column, kind, [v for p in parts for v in p[2]], None))
    return merged


class _Group:
    """The demos of one partition, `(path, name)` pairs, as one opaque argument of its task:
    Dask looks through every list and tuple given to a task for Dask objects to wait on, and
    a group holds none."""

    __slots__ = ("demos",)

    def __init__(self, demos: List[Tuple[str, str]]) -> None:
        self.demos = demos

    def __iter__(self):
        return iter(self.demos)


def _frames(group: Iterable[Tuple[str, str]], query: "Query", tables: List[str],
            storage_options: Optional[dict], strict: bool,
            on_error: str) -> Dict[str, "pandas.DataFrame"]:
    """A partition of every table: the demos of `group`, each table's rows after a `demo`
    column, in the order given, as `parse_many` gives them."""
    import pandas as pd

    parsed: Dict[str, list] = {t: [] for t in tables}
    for path, name in group:
        columns, record = _parse(path, query, storage_options, strict)
        if columns is None:
            if on_error == "raise":
                error = dict((k, c) for c, k in _KINDS).get(record["kind"], DemoError)
                raise error(record["message"])
            import warnings

            warnings.warn(f"skipped: {record['message']}", RuntimeWarning)
            continue
        for t in tables:
            if columns.get(t) is not None:
                parsed[t].append((name, columns[t]))
    out = {}
    for t in tables:
        demos = parsed[t]
        merged = _merge(demos) if demos else None
        if merged is not None:
            out[t] = _pandas_frame(merged)
        elif demos:
            # Columns that differ by demo (events, ticks): one frame per demo, concatenated.
            frames = []
            for name, cols in demos:
                frame = _pandas_frame(cols)
                frame.insert(0, "demo", pd.Series([name] * len(frame), dtype=object))
                frames.append(frame)
            out[t] = pd.concat(frames, ignore_index=True)
        else:
            empty = _meta_or_none(t)
            out[t] = empty if empty is not None else pd.DataFrame(
                {"demo": pd.Series([], dtype=object)})
    return out


def _meta_or_none(table: str) -> "Optional[pandas.DataFrame]":
    try:
        return _schema_meta(table)
    except BadArgumentError:
        return None


#: The bytes of demo files that one partition (one task) groups by default.
PARTITION_BYTES = 64 * 1024 * 1024


def _size(path: str, storage_options: Optional[dict]) -> Optional[int]:
    """The bytes of a demo file, or None when they cannot be read (a missing file, a folder: a
    broadcast or an unreadable path, which goes alone and fails as it would)."""
    try:
        if _is_url(path):
            import fsspec

            fs, where = fsspec.core.url_to_fs(path, **(storage_options or {}))
            info = fs.info(where)
            size = info.get("size")
            return int(size) if info.get("type") == "file" and size is not None else None
        st = _os.stat(path)
    except (OSError, ValueError, ImportError):
        return None
    import stat

    return st.st_size if stat.S_ISREG(st.st_mode) else None


def _threads() -> int:
    """The worker threads of the active Dask scheduler: those of the `distributed.Client`, or
    the local cores for Dask's default scheduler."""
    try:
        from distributed import get_client

        return max(1, sum(get_client().nthreads().values()))
    except (ImportError, ValueError):
        return _os.cpu_count() or 1


def _groups(paths: List[str], names: List[str], per: Optional[int], target: Optional[int],
            storage_options: Optional[dict]) -> List[List[Tuple[str, str]]]:
    """The demos of each partition, in order: `per` demos each; or, by bytes, consecutive
    demos until their bytes reach an even share of the whole: as many groups as `target` bytes
    make (`PARTITION_BYTES` and at least one group per worker thread when `target` is None),
    so that the groups are of about the same size. A demo of `target` bytes or more, or whose
    size cannot be read, is alone."""
    pairs = list(zip(paths, names))
    if per is not None:
        return [pairs[i:i + per] for i in range(0, len(pairs), per)]
    sizes = [_size(p, storage_options) for p in paths]
    limit = PARTITION_BYTES if target is None else target
    total = sum(s for s in sizes if s is not None and s < limit)
    count = -(-total // limit)
    if target is None:
        count = max(count, _threads())
    share = total / max(count, 1)
    groups: List[List[Tuple[str, str]]] = []
    group: List[Tuple[str, str]] = []
    held = 0
    for pair, size in zip(pairs, sizes):
        if size is None or size >= limit:
            if group:
                groups.append(group)
            groups.append([pair])
            group, held = [], 0
            continue
        group.append(pair)
        held += size
        if held >= share:
            groups.append(group)
            group, held = [], 0
    if group:
        groups.append(group)
    return groups


def _partitioning(where: str, demos_per_partition: object,
                  partition_bytes: object) -> Tuple[Optional[int], Optional[int]]:
    """The checked `demos_per_partition` and `partition_bytes` (None: not given)."""
    def count(name: str, value: object) -> Optional[int]:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise _bad(where, name, "a whole number (1 or more)", value)
        return value

    if demos_per_partition is not None and partition_bytes is not None:
        raise BadArgumentError(
            f"{where}: give demos_per_partition or partition_bytes, not both")
    return (count("demos_per_partition", demos_per_partition),
            count("partition_bytes", partition_bytes))


def read(
    paths: object,
    tables: Union[str, Iterable[str]] = ("kills", "rounds"),
    *,
    partition_bytes: Optional[int] = None,
    demos_per_partition: Optional[int] = None,
    on_error: str = "raise",
    strict: bool = False,
    storage_options: Optional[dict] = None,
    meta: Optional[Dict[str, "pandas.DataFrame"]] = None,
    **table_options: object,
) -> Dict[str, "dask.dataframe.DataFrame"]:
    """The tables of many demos as Dask DataFrames: a dict from table name to a DataFrame
    whose partitions are groups of consecutive demos of about the same bytes: as many groups
    as `partition_bytes` of demo files make (64 MiB by default, and then at least one group
    per worker thread of the active scheduler, so that every worker has work; a demo of
    `partition_bytes` or more, or one whose size cannot be read, is alone), or
    `demos_per_partition` demos each when that is given instead.
    The options (`name`, `props`, `other`, `ticks`, `players`, `humans_only`, `grenade_props`)
    are those of `parse_many`. Each group is parsed once, by one task, for all the tables
    asked for; each table's partition is picked from that task's result (compute the tables
    together: `dask.compute(*tables.values())`).

    The `meta` of each table comes from its schema (`gamewire.dask.meta`): `events` and
    `ticks`, whose columns depend on the demo and the options, need `meta={"ticks": frame}`.
    A demo that fails raises when its partition is computed (`on_error="raise"`), or is left
    out with a `RuntimeWarning` on the worker (`"skip"`); `to_parquet` records failures
    instead. A demo cut short keeps its rows before the cut, unless `strict=True`."""
    import dask
    import dask.dataframe as dd
    from dask.base import tokenize

    where = "gamewire.dask.read"
    if on_error not in ("raise", "skip"):
        raise _bad(where, "on_error", "'raise' or 'skip'", on_error)
    per, target = _partitioning(where, demos_per_partition, partition_bytes)
    strict = _flag(where, "strict", strict)
    query = _query(where, ("tables", tables), **table_options)  # type: ignore[arg-type]
    names = query["tables"]
    metas = {}
    for t in names:
        given = (meta or {}).get(t)
        if given is None and t == "grenades" and query["grenade_props"]:
            raise BadArgumentError(
                f"{where}: grenade_props adds columns to grenades; give meta={{'grenades': ...}}")
        metas[t] = given if given is not None else _schema_meta(t)
    demos = demo_paths(paths, storage_options)
    if not demos:
        raise FileNotFoundError(f"{where}: no demo found in {paths!r}")
    groups = _groups(demos, _names_of(demos), per, target, storage_options)
    # The graph: one task parses a group into every table's frame (a `Delayed`); each table's
    # partition is a getitem on that task's result, run where the result is. The tables' graphs
    # share the parse tasks, so computing them together parses each demo once. The partitions
    # are not checked against `meta` on the workers (`verify_meta=False`): `meta` is the schema
    # the frames are built from.
    token = tokenize(groups, query, storage_options, strict, on_error)
    parse = dask.delayed(_frames, pure=True)
    parses = [parse(_Group(group), query, names, storage_options, strict, on_error,
                    dask_key_name=(f"gamewire-parse-{token}", i))
              for i, group in enumerate(groups)]
    out = {}
    # Text stays `object`, as `parse_many` gives it: Dask's conversion of text columns to
    # pyarrow strings (`dataframe.convert-string`) is left to the caller (`.astype`).
    with dask.config.set({"dataframe.convert-string": False}):
        for t in names:
            parts = [p[t] for p in parses]
            out[t] = dd.from_delayed(parts, meta=metas[t], verify_meta=False,
                                     prefix=f"gamewire-{t}")
    return out


# -- to_parquet --------------------------------------------------------------------------------


def _arrow_type(kind: str) -> "pyarrow.DataType":
    import pyarrow as pa

    return {
        "i64": pa.int64(), "u64": pa.uint64(), "f32": pa.float32(), "bool": pa.bool_(),
        "str": pa.string(), "f32list": pa.list_(pa.float32()), "strlist": pa.list_(pa.string()),
        "u64list": pa.list_(pa.uint64()),
    }[kind]


def _arrow_table(columns: "List[Column]") -> "pyarrow.Table":
    """A table of native columns as Arrow, typed as `gamewire batch` writes its Parquet (text
    stays text, JSON too; a null float is NaN in the native buffers, null here)."""
    import numpy as np
    import pyarrow as pa

    arrays, fields = [], []
    for name, kind, values, mask in columns:
        typ = _arrow_type(kind)
        if kind in ("i64", "u64", "f32", "bool"):
            dtype = {"i64": "<i8", "u64": "<u8", "f32": "<f4", "bool": "?"}[kind]
            data = np.frombuffer(values, dtype=dtype)  # type: ignore[arg-type]
            nulls = None if mask is None else np.frombuffer(mask, dtype=np.bool_)
            if kind == "f32":
                nan = np.isnan(data)
                nulls = nan if nulls is None else nulls | nan
            arrays.append(pa.array(data, type=typ, mask=nulls))
        else:
            arrays.append(pa.array(values, type=typ))
        fields.append(pa.field(name, typ))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _errors_table(path: str, record: dict) -> "pyarrow.Table":
    import pyarrow as pa

    return pa.table({
        "path": pa.array([path], pa.string()),
        "kind": pa.array([record["kind"]], pa.string()),
        "message": pa.array([record["message"]], pa.string()),
        "tick": pa.array([record["tick"]], pa.int64()),
    })


def _part(root: str, table: str, name: str) -> str:
    return f"{root}/{table}/demo={_urlparse.quote(name, safe='')}/part-0.parquet"


def _write(fs, table: "pyarrow.Table", file: str) -> None:
    """Writes `table` to `file` under a hidden temporary name in its folder, then renames it."""
    import pyarrow.parquet as pq

    folder, base = file.rsplit("/", 1)
    partial = f"{folder}/.{base}.partial"
    fs.makedirs(folder, exist_ok=True)
    with fs.open(partial, "wb") as f:
        pq.write_table(table, f, compression="snappy")
    fs.mv(partial, file)


def _write_demo(path: str, name: str, out: str, query: "Query", tables: List[str],
                storage_options: Optional[dict], strict: bool, on_error: str) -> dict:
    """Parses one demo and writes its tables (a cut demo's record first); a demo that fails
    gets its record. Returns what happened: `demo`, `path`, `status` (`written`, `cut`,
    `failed`), `kind`, `message`."""
    import fsspec

    fs, root = fsspec.core.url_to_fs(out, **(storage_options or {}))
    root = root.rstrip("/")
    errors = _part(root, ERRORS, name)
    columns, record = _parse(path, query, storage_options, strict)
    if record is not None:
        _write(fs, _errors_table(path, record), errors)
    elif fs.exists(errors):
        fs.rm(errors)
    if columns is None:
        if on_error == "raise":
            error = dict((k, c) for c, k in _KINDS).get(record["kind"], DemoError)
            raise error(record["message"])
        return {"demo": name, "path": path, "status": "failed", "kind": record["kind"],
                "message": record["message"]}
    for t in tables:
        cols = columns.get(t)
        if cols is not None:
            _write(fs, _arrow_table(cols), _part(root, t, name))
    status = "cut" if record is not None else "written"
    return {"demo": name, "path": path, "status": status,
            "kind": record["kind"] if record else None,
            "message": record["message"] if record else None}


def _write_group(group: List[Tuple[str, str]], out: str, query: "Query", tables: List[str],
                 storage_options: Optional[dict], strict: bool, on_error: str) -> List[dict]:
    """`_write_demo` for each demo of a group, in order."""
    return [_write_demo(path, name, out, query, tables, storage_options, strict, on_error)
            for path, name in group]


def _remove_partials(fs, root: str, folders: List[str]) -> None:
    for folder in folders:
        base = f"{root}/{folder}"
        if not fs.exists(base):
            continue
        for f in fs.find(base):
            leaf = f.rsplit("/", 1)[-1]
            if leaf.startswith(".") and leaf.endswith(".partial"):
                fs.rm(f)


def to_parquet(
    paths: object,
    out: Union[str, "_os.PathLike[str]"],
    tables: Union[str, Iterable[str]] = ("kills", "rounds"),
    *,
    partition_bytes: Optional[int] = None,
    demos_per_partition: Optional[int] = None,
    on_error: str = "record",
    strict: bool = False,
    storage_options: Optional[dict] = None,
    **table_options: object,
) -> "pandas.DataFrame":
    """Writes the tables of many demos as a Hive-partitioned Parquet dataset under `out` (a
    folder or an fsspec URL the workers can write to): `out/<table>/demo=<name>/part-0.parquet`,
    one task per group of demos on the active Dask scheduler (grouped as `read` groups them:
    `partition_bytes`, 64 MiB of demo files by default, or `demos_per_partition`; each demo
    still has its own files). The options are those of `parse_many`.

    A demo that fails, or is cut short, gets a record in `out/_errors/demo=<name>/` (`path`,
    `kind`, `message`, `tick`): with `on_error="record"` (the default) the job goes on; with
    `"raise"` the first failure raises once its record is written. Every file is written to a
    hidden temporary name and renamed when complete, so a job killed part-way leaves only
    complete files; called again, it skips the demos whose every table is written.

    Returns one row per demo: `demo`, `path`, `status` (`written`, `cut`, `failed`, or
    `already written`), `kind` and `message` (of a record)."""
    import dask
    import fsspec
    import pandas as pd

    where = "gamewire.dask.to_parquet"
    if on_error not in ("record", "raise"):
        raise _bad(where, "on_error", "'record' or 'raise'", on_error)
    if not isinstance(out, (str, _os.PathLike)):
        raise _bad(where, "out", "a folder or an fsspec URL", out)
    per, target = _partitioning(where, demos_per_partition, partition_bytes)
    strict = _flag(where, "strict", strict)
    query = _query(where, ("tables", tables), **table_options)  # type: ignore[arg-type]
    names_of_tables = query["tables"]
    out = _os.fspath(out)
    demos = demo_paths(paths, storage_options)
    if not demos:
        raise FileNotFoundError(f"{where}: no demo found in {paths!r}")
    names = _names_of(demos)
    fs, root = fsspec.core.url_to_fs(out, **(storage_options or {}))
    root = root.rstrip("/")
    # The output must be writable before any work is sent out.
    try:
        fs.makedirs(root, exist_ok=True)
        probe = f"{root}/.gamewire-probe.partial"
        with fs.open(probe, "wb") as f:
            f.write(b"")
        fs.rm(probe)
    except OSError as e:
        raise OSError(f"{where}: cannot write to {out}: {e}") from e
    _remove_partials(fs, root, names_of_tables + [ERRORS])
    done = [all(fs.exists(_part(root, t, n)) for t in names_of_tables) for n in names]
    todo = [(p, n) for p, n, d in zip(demos, names, done) if not d]
    groups = _groups([p for p, _ in todo], [n for _, n in todo], per, target, storage_options)
    tasks = [
        dask.delayed(_write_group, pure=False)(group, out, query, names_of_tables,
                                               storage_options, strict, on_error)
        for group in groups
    ]
    results = [r for rs in dask.compute(*tasks) for r in rs] if tasks else []
    skipped = [{"demo": n, "path": p, "status": "already written", "kind": None, "message": None}
               for p, n, d in zip(demos, names, done) if d]
    by_demo = {r["demo"]: r for r in results + skipped}
    return pd.DataFrame([by_demo[n] for n in names],
                        columns=["demo", "path", "status", "kind", "message"])
