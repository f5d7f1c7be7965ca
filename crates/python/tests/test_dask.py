"""`gamewire.dask` on a `distributed.LocalCluster` with 2 worker processes, over 40 demos (the
corpus CS2 demos, copies of them, and one truncated demo): `read` equals `parse_many` table by
table and its `meta` is what a partition is; `to_parquet` writes the Hive-partitioned dataset
that `gamewire batch --format parquet` writes, read back as one table by pyarrow.dataset,
pandas, polars and DuckDB with `demo` restored from the folder names; the truncated demo is in
`_errors` with its cut; a worker killed with SIGKILL mid-job is recovered and the dataset is
complete; bad paths and outputs are records or errors, never a demo dropped."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
import warnings
from pathlib import Path

import dask  # installed by .ci/setup-python.sh (the package's `dask` extra)
import distributed
import duckdb
import pandas as pd
import polars as pl
import polars.testing
import pyarrow as pa
import pyarrow.dataset as ds
import pytest

import gamewire
import gamewire.dask as gd
from conftest import REPO, corpus
from test_loop import gamewire_bin

CS2 = ["cs2/14011.dem", "cs2/14065.dem", "cs2/14132.dem", "cs2/14150_ag2.dem", "cs2/14155.dem"]
# Tables with rows in the corpus clips, and one (kills) without.
TABLES = ["header", "players", "rounds", "damages", "kills"]
SAMPLE = REPO / "crates/synth/sample/sample.dem"
HIVE = ds.partitioning(pa.schema([("demo", pa.string())]), flavor="hive")


@pytest.fixture(scope="module")
def demos(tmp_path_factory) -> list:
    """40 demos: the 5 corpus CS2 demos, 34 copies of them under other names, and one demo
    cut at a third of its bytes (`damaged`)."""
    folder = tmp_path_factory.mktemp("demos")
    paths = [corpus(rel) for rel in CS2]
    for k in range(34):
        src = paths[k % len(paths)]
        dst = folder / f"copy{k:02d}_{src.stem}.dem"
        shutil.copyfile(src, dst)
        paths.append(dst)
    data = corpus(CS2[1]).read_bytes()
    damaged = folder / "damaged.dem"
    damaged.write_bytes(data[: len(data) // 3])
    paths.append(damaged)
    assert len(paths) == 40
    return paths


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(scope="module")
def expected(demos) -> dict:
    """`parse_many`'s tables of the 40 demos (the damaged one keeps its rows before the cut)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gamewire.DemoTruncatedWarning)
        return gamewire.parse_many(demos, TABLES, jobs=2)


def names(paths) -> list:
    return [Path(p).stem for p in paths]


def test_meta_is_what_a_partition_is(client):
    """For every table with fixed columns, `meta` (from the schema, nothing parsed) has the
    columns and dtypes of a computed partition, on the corpus demos and the sample match."""
    paths = [corpus(rel) for rel in CS2] + [SAMPLE]
    tables = [t for t in gamewire.TABLES if t not in ("events", "ticks")]
    frames = gd.read(paths, tables)
    computed = dask.compute(*frames.values())
    for table, frame, got in zip(frames, frames.values(), computed):
        meta = gd.meta(table)
        assert list(frame.columns) == list(meta.columns), table
        assert list(frame.dtypes) == list(meta.dtypes), table
        assert list(got.columns) == list(meta.columns), table
        assert list(got.dtypes.astype(str)) == list(meta.dtypes.astype(str)), table
    # `meta` is built once per table and process; each call gives a frame of its own.
    changed = gd.meta("kills")
    changed.insert(0, "extra", pd.Series([], dtype=object))
    assert list(gd.meta("kills").columns) == list(frames["kills"].columns)
    # The sample match has rows in most tables: the dtypes held with values, not only empty.
    assert sum(len(c) > 0 for c in computed) >= 12
    # events and ticks have columns by demo and option: meta= is needed.
    with pytest.raises(gamewire.BadArgumentError, match="meta="):
        gd.read(paths, ["ticks"], props=["X"])
    ticks = gamewire.Demo(SAMPLE).ticks(["X", "health"], ticks="0..200")
    ticks.insert(0, "demo", pd.Series([], dtype=object))
    t = gd.read([SAMPLE], ["ticks"], props=["X", "health"], ticks="0..200",
                meta={"ticks": ticks.iloc[:0]})["ticks"].compute()
    assert len(t) == len(ticks) and list(t.dtypes) == list(ticks.dtypes)


def test_read_equals_parse_many_on_two_worker_processes(client, demos, expected):
    frames = gd.read(demos, TABLES, demos_per_partition=1)
    assert all(f.npartitions == 40 for f in frames.values())
    computed = dask.compute(*frames.values())
    for table, got in zip(frames, computed):
        pd.testing.assert_frame_equal(got.reset_index(drop=True), expected[table])
        assert set(got["demo"]) <= set(names(demos))
    assert set(computed[0]["demo"]) == set(names(demos))
    # By default, groups by bytes: the 40 demos (15 MB) make one group per worker thread.
    by_default = gd.read(demos, TABLES)
    assert all(f.npartitions == 2 for f in by_default.values())
    for table, got in zip(by_default, dask.compute(*by_default.values())):
        pd.testing.assert_frame_equal(got.reset_index(drop=True), expected[table])
    # Several demos per partition, or a quarter of the bytes per partition: the same rows.
    grouped = gd.read(demos, ["damages"], demos_per_partition=8)["damages"]
    assert grouped.npartitions == 5
    pd.testing.assert_frame_equal(grouped.compute().reset_index(drop=True),
                                  expected["damages"])
    quarter = -(-sum(os.path.getsize(p) for p in demos) // 4)
    grouped = gd.read(demos, ["damages"], partition_bytes=quarter)["damages"]
    assert 3 <= grouped.npartitions <= 4
    pd.testing.assert_frame_equal(grouped.compute().reset_index(drop=True),
                                  expected["damages"])
    # A demo of partition_bytes or more is alone.
    assert gd.read(demos, ["damages"], partition_bytes=1)["damages"].npartitions == 40
    with pytest.raises(gamewire.BadArgumentError, match="not both"):
        gd.read(demos, ["damages"], partition_bytes=1, demos_per_partition=1)
    with pytest.raises(gamewire.BadArgumentError, match="partition_bytes"):
        gd.read(demos, ["damages"], partition_bytes=0)


def test_read_raises_or_skips_a_bad_demo(client, tmp_path):
    bad = tmp_path / "bad.dem"
    bad.write_bytes(b"this is not a demo")
    paths = [corpus(CS2[1]), bad]
    with pytest.raises(gamewire.NotADemoError, match="bad.dem"):
        gd.read(paths, ["rounds"])["rounds"].compute()
    rounds = gd.read(paths, ["rounds"], on_error="skip")["rounds"].compute()
    assert set(rounds["demo"]) == {"14065"}


def polars_expected(demos, table: str) -> pl.DataFrame:
    """`parse_many`'s table as polars, floats' NaN as null (Parquet holds nulls)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gamewire.DemoTruncatedWarning)
        frame = gamewire.parse_many(demos, [table], jobs=2, polars=True)[table]
    return frame.with_columns(pl.col(pl.Float32).fill_nan(None))


def in_order(frame: pl.DataFrame, columns, order) -> pl.DataFrame:
    """A read-back table in `parse_many`'s order: its columns, and the demos in `order` (the
    rows of one demo stay in file order)."""
    rank = {n: i for i, n in enumerate(order)}
    return (frame.select(columns)
            .with_columns(pl.col("demo").replace_strict(rank, return_dtype=pl.Int64).alias("_r"))
            .sort("_r", maintain_order=True).drop("_r"))


def read_back(root: Path, table: str) -> dict:
    """The table of a dataset as each reader gives it, as polars frames."""
    folder = root / table
    glob = str(folder / "*" / "*.parquet")
    arrow = ds.dataset(folder, format="parquet", partitioning=HIVE).to_table()
    pandas = pd.read_parquet(folder, partitioning=HIVE, dtype_backend="pyarrow")
    return {
        "pyarrow.dataset": pl.from_arrow(arrow),
        "pandas": pl.from_arrow(pa.Table.from_pandas(pandas, preserve_index=False)
                                .cast(arrow.schema)),
        "polars": pl.scan_parquet(glob, hive_partitioning=True,
                                  hive_schema={"demo": pl.String}).collect(),
        "duckdb": duckdb.sql(f"SELECT * FROM read_parquet('{glob}', hive_partitioning=true, "
                             "hive_types={'demo': VARCHAR})").pl(),
    }


def test_to_parquet_is_the_dataset_batch_writes(client, demos, tmp_path):
    out = tmp_path / "dataset"
    report = gd.to_parquet(demos, out, TABLES)
    assert list(report["demo"]) == names(demos)
    assert (report["status"] == "written").sum() == 39
    damaged = report[report["demo"] == "damaged"].iloc[0]
    assert damaged["status"] == "cut" and "truncated" in damaged["message"]
    for table in TABLES:
        parts = sorted(p.name for p in (out / table).iterdir())
        assert parts == sorted(f"demo={n}" for n in names(demos)), table
        want = polars_expected(demos, table)
        for reader, got in read_back(out, table).items():
            got = in_order(got, want.columns, names(demos))
            polars.testing.assert_frame_equal(got, want, check_dtypes=True)
    # The damaged demo's record: its cut and the tick reached.
    errors = ds.dataset(out / "_errors", format="parquet", partitioning=HIVE).to_table()
    errors = errors.to_pylist()
    assert [e["demo"] for e in errors] == ["damaged"]
    assert errors[0]["kind"] == "cut" and errors[0]["tick"] > 0
    assert "truncated" in errors[0]["message"]
    # Called again: nothing to do.
    again = gd.to_parquet(demos, out, TABLES)
    assert set(again["status"]) == {"already written"}

    # `gamewire batch --format parquet` writes the same dataset (layout, types, rows).
    cli = tmp_path / "cli"
    run = subprocess.run([str(gamewire_bin()), "batch", *map(str, demos), "--tables",
                          ",".join(TABLES), "--format", "parquet", "--out", str(cli), "-j", "2"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    for table in TABLES + ["_errors"]:
        assert sorted(os.listdir(cli / table)) == sorted(os.listdir(out / table)), table
        ours = ds.dataset(out / table, format="parquet", partitioning=HIVE).to_table()
        theirs = ds.dataset(cli / table, format="parquet", partitioning=HIVE).to_table()
        assert ours.schema.remove_metadata() == theirs.schema.remove_metadata(), table
        if table != "_errors":
            assert ours.sort_by("demo").equals(theirs.sort_by("demo")), table
    errors = ds.dataset(cli / "_errors", format="parquet", partitioning=HIVE).to_table()
    assert errors.column("kind").to_pylist() == ["cut"]


def test_a_killed_worker_is_recovered_and_the_dataset_is_complete(demos, tmp_path):
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    out = tmp_path / "dataset"
    result: dict = {}
    with distributed.Client(cluster) as c:
        before = set(c.run(os.getpid).values())
        job = threading.Thread(target=lambda: result.update(
            report=gd.to_parquet(demos * 3, out, ["players", "rounds", "damages"])))
        job.start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            done = list((out / "damages").glob("demo=*/part-0.parquet")) \
                if (out / "damages").is_dir() else []
            if len(done) >= 6:
                break
            time.sleep(0.005)
        victim = sorted(before)[0]
        os.kill(victim, signal.SIGKILL)
        killed_mid_job = job.is_alive()
        job.join(timeout=120)
        assert not job.is_alive()
        after = set(c.run(os.getpid).values())
    cluster.close()
    assert killed_mid_job, "the job ended before the worker was killed"
    assert victim not in after
    report = result["report"]
    # 120 demos: the 40, then their repeats named `-2` and `-3`.
    assert len(report) == 120 and set(report["status"]) == {"written", "cut"}
    every = list(report["demo"])
    for table in ["players", "rounds", "damages"]:
        parts = sorted(p.name for p in (out / table).iterdir())
        assert parts == sorted(f"demo={n}" for n in every), table
        want = polars_expected(demos * 3, table)
        got = pl.from_arrow(ds.dataset(out / table, format="parquet",
                                       partitioning=HIVE).to_table())
        polars.testing.assert_frame_equal(in_order(got, want.columns, every), want)
    # No temporary file is left where a reader would look.
    assert not [p for p in out.rglob("*") if p.name.endswith(".parquet") and p.name[0] == "."]


def test_bad_paths_are_records_or_errors(client, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copyfile(corpus(CS2[1]), folder / "good.dem")
    (folder / "garbage.dem").write_bytes(b"this is not a demo")
    (folder / "folder.dem").mkdir()            # a demo's name, but a folder: unreadable
    (folder / "dangling.dem").symlink_to(tmp_path / "gone.dem")
    missing = tmp_path / "missing.dem"
    given = [folder, missing]
    if os.geteuid() != 0:
        locked = folder / "locked.dem"
        shutil.copyfile(corpus(CS2[1]), locked)
        locked.chmod(0)
    out = tmp_path / "out"
    report = gd.to_parquet(given, out, ["rounds"])
    kinds = dict(zip(report["demo"], report["kind"]))
    assert kinds["good"] is None or pd.isna(kinds["good"])
    assert kinds["garbage"] == "not_a_demo"
    assert kinds["folder"] == "read"
    assert kinds["dangling"] == "missing" and kinds["missing"] == "missing"
    if os.geteuid() != 0:
        assert kinds["locked"] == "read"
    errors = ds.dataset(out / "_errors", format="parquet", partitioning=HIVE).to_table()
    assert sorted(errors.column("demo").to_pylist()) == sorted(
        n for n, k in kinds.items() if isinstance(k, str))
    for message in errors.column("message").to_pylist():
        assert message
    # read: a bad demo raises by default, naming it.
    with pytest.raises(FileNotFoundError, match="missing.dem"):
        gd.read([missing], ["rounds"])["rounds"].compute()
    # Nothing to read, or an output that cannot be written: a clear error, nothing sent.
    with pytest.raises(FileNotFoundError, match="no file matches"):
        gd.read(str(tmp_path / "nothing" / "*.dem"))
    with pytest.raises(FileNotFoundError, match="no demo in the folder"):
        gd.to_parquet(tmp_path / "in" / "folder.dem", out)
    blocker = tmp_path / "a-file"
    blocker.write_bytes(b"")
    with pytest.raises(OSError, match="cannot write to"):
        gd.to_parquet(folder / "good.dem", blocker / "out")
    # A failure raises with on_error="raise", once its record is written.
    with pytest.raises(gamewire.NotADemoError):
        gd.to_parquet(folder / "garbage.dem", tmp_path / "out2", on_error="raise")
    assert (tmp_path / "out2" / "_errors" / "demo=garbage" / "part-0.parquet").is_file()
