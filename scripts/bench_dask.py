#!/usr/bin/env python3
"""Dask's overhead on one machine: the same tables of the same demos through
`gamewire.dask` on a LocalCluster, `gamewire.parse_many` and `gamewire batch`, in one run.

    target/py-venv/bin/python scripts/bench_dask.py [--gamewire PATH] [--corpus DIR]
        [--demos N] [--workers N] [--reps N] [--tables T,...] [--before MODULE] [--only W,...]

The demos are N copies of the corpus CS2 demos (round-robin) in a temporary folder. Each rep
times, interleaved, every way of doing the work (best of the reps is reported, with the median):

  * parse_many     gamewire.parse_many(paths, tables, jobs=WORKERS): pandas DataFrames
  * dask read      gamewire.dask.read(paths, tables) computed together into pandas on a
                   LocalCluster of WORKERS processes, 1 thread each: partitions by bytes (the
                   default), and demos_per_partition 1 and 10
  * dask parquet   gamewire.dask.to_parquet(paths, out, tables) into a fresh folder
  * batch          gamewire batch DIR --tables ... --format parquet -j WORKERS --out fresh folder
  * dask no-op     the bound: the graph `read` builds by default (one task per group of demos,
                   a getitem per table and partition, `from_delayed`, computed together) on the
                   same cluster, whose group tasks parse nothing: each returns the frames of its
                   group, computed once before the timings and held in its worker's memory
                   ("same frames"), or those frames emptied ("empty frames")

With `--before MODULE` (an importable module with the same `read` and `to_parquet`, such as an
earlier `gamewire/dask.py` saved beside it in the package), its ways are timed too, interleaved
with the others, so that two versions are compared at the same load. `--only` keeps the ways
whose names hold one of the words given (parse_many is always timed: the ratios are to it).

The cluster is started once, before the timings (its start-up time is printed apart), and each
worker has parsed the demos once before the first rep, as parse_many's process has (send tables
cached per process). Dask's overhead per demo is (dask read - parse_many) / N. The no-op rows
are the part of it that is Dask's own: the same graph shape, scheduling, moving and
concatenating the same frames, with nothing parsed. After the timings, traced runs of `read`
(`distributed.get_task_stream`) split one run: the graph built on the client, `compute` to the
first parse task, the parse tasks, and the last parse task's end to the frames on the client;
and one group task is timed step by step on its worker (parse, merge, pandas, pickle). Not a
test: nothing is asserted. Give the load average (printed) with any figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _same(frames):
    """A group task that parses nothing: its result is the frames it is given, which its
    worker already holds."""
    return frames


def _emptied(frames):
    return {t: f.iloc[:0] for t, f in frames.items()}


def _steps(group, query, tables):
    """On a worker: a group task's steps timed (seconds), and the bytes of its pickled
    result."""
    import pickle

    from gamewire._demo import _pandas_frame
    from gamewire.dask import _merge, _parse

    t0 = time.perf_counter()
    parsed: dict = {t: [] for t in tables}
    for path, name in group:
        columns, _ = _parse(path, query, None, False)
        for t in tables:
            if columns is not None and columns.get(t) is not None:
                parsed[t].append((name, columns[t]))
    t1 = time.perf_counter()
    merged = {t: _merge(parsed[t]) for t in tables if parsed[t]}
    t2 = time.perf_counter()
    frames = {t: _pandas_frame(m) for t, m in merged.items() if m is not None}
    t3 = time.perf_counter()
    size = len(pickle.dumps(frames, protocol=5))
    t4 = time.perf_counter()
    return {"demos": len(group), "parse": t1 - t0, "merge": t2 - t1, "pandas": t3 - t2,
            "pickle": t4 - t3, "bytes": size, "rows": sum(len(f) for f in frames.values())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gamewire", type=Path, default=None,
                    help="the gamewire binary (default: target/release/gamewire)")
    ap.add_argument("--corpus", type=Path,
                    default=Path(os.environ.get("GAMEWIRE_CORPUS") or REPO / "../shared/corpus"))
    ap.add_argument("--demos", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--tables", default="kills,rounds,damages")
    ap.add_argument("--before", default=None,
                    help="a module whose read/to_parquet are timed too (an earlier version)")
    ap.add_argument("--only", default=None,
                    help="time only the ways whose names hold one of these words (a,b,...)")
    a = ap.parse_args()

    import dask
    import dask.dataframe as dd
    import distributed
    import gamewire
    import gamewire.dask as gd
    from gamewire._demo import _query

    binary = a.gamewire or REPO / "target/release/gamewire"
    sources = sorted((a.corpus / "cs2").glob("*.dem"))
    if not sources:
        raise SystemExit(f"no CS2 demo in {a.corpus / 'cs2'}")
    tables = a.tables.split(",")
    work = Path(tempfile.mkdtemp(prefix="gamewire-bench-dask-"))
    try:
        folder = work / "demos"
        folder.mkdir()
        paths = []
        for i in range(a.demos):
            src = sources[i % len(sources)]
            dst = folder / f"{i:04d}_{src.stem}.dem"
            shutil.copyfile(src, dst)
            paths.append(str(dst))
        mb = sum(os.path.getsize(p) for p in paths) / 1e6
        print(f"{a.demos} demos ({mb:.1f} MB, copies of {len(sources)} corpus CS2 demos), "
              f"tables {','.join(tables)}, {a.workers} workers, best of {a.reps}")
        print(f"gamewire {gamewire.__version__} from {gamewire.__file__}; batch: {binary}")

        t0 = time.perf_counter()
        cluster = distributed.LocalCluster(n_workers=a.workers, threads_per_worker=1,
                                           processes=True, dashboard_address=":0")
        client = distributed.Client(cluster)
        print(f"LocalCluster start-up: {time.perf_counter() - t0:.2f} s (not in the figures)")
        # The bound: the frames of `read`'s default groups, held on the workers.
        query = _query("bench_dask", ("tables", tables))
        groups = gd._groups(paths, gd._names_of(paths), None, None, None)
        held = [client.submit(gd._frames, g, query, tables, None, False, "raise", pure=False)
                for g in groups]
        empty = [client.submit(_emptied, h, pure=False) for h in held]
        distributed.wait(held + empty)
        holders = {w for ws in client.who_has(held).values() for w in ws}
        print(f"{len(groups)} groups of {[len(g) for g in groups]} demos, their frames held on "
              f"{len(holders)} workers")

        def parse_many():
            gamewire.parse_many(paths, tables, jobs=a.workers)

        def dask_read(module, **grouping):
            def run():
                frames = module.read(paths, tables, **grouping)
                dask.compute(*frames.values())
            return run

        def dask_noop(frames):
            def run():
                tasks = [dask.delayed(_same, pure=False)(f) for f in frames]
                with dask.config.set({"dataframe.convert-string": False}):
                    parts = [dd.from_delayed([task[t] for task in tasks], meta=gd.meta(t),
                                             verify_meta=False) for t in tables]
                dask.compute(*parts)
            return run

        runs = [0]

        def dask_parquet(module):
            def run():
                runs[0] += 1
                module.to_parquet(paths, work / f"dask-{runs[0]}", tables)
            return run

        def batch():
            runs[0] += 1
            subprocess.run([str(binary), "batch", str(folder), "--tables", ",".join(tables),
                            "--format", "parquet", "-j", str(a.workers),
                            "--out", str(work / f"batch-{runs[0]}")],
                           check=True, capture_output=True)

        ways = {"parse_many(jobs)": parse_many}
        versions = [("", gd)]
        if a.before:
            import importlib

            versions.insert(0, ("before: ", importlib.import_module(a.before)))
        for label, module in versions:
            ways[f"{label}dask read (by bytes)"] = dask_read(module)
            if not label:
                ways["dask read (1/partition)"] = dask_read(module, demos_per_partition=1)
            ways[f"{label}dask read (10/partition)"] = dask_read(module, demos_per_partition=10)
            ways[f"{label}dask to_parquet"] = dask_parquet(module)
        ways["dask no-op (same frames)"] = dask_noop(held)
        ways["dask no-op (empty frames)"] = dask_noop(empty)
        if binary.is_file():
            ways["gamewire batch -j"] = batch
        else:
            print(f"no gamewire binary at {binary}: the batch row is left out")
        if a.only:
            words = a.only.split(",")
            ways = {k: v for k, v in ways.items()
                    if k == "parse_many(jobs)" or any(w in k for w in words)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # Warm-up: every process has built the send tables of the demos' builds.
            for run in ways.values():
                run()
            times: dict = {k: [] for k in ways}
            for _ in range(a.reps):
                for name, run in ways.items():
                    t = time.perf_counter()
                    run()
                    times[name].append(time.perf_counter() - t)
            traces = [trace(client, gd, paths, tables) for _ in range(a.reps)]
            steps = [client.gather([client.submit(_steps, g, query, tables, pure=False)
                                    for g in groups]) for _ in range(3)]
        client.close()
        cluster.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"read, traced (best of {len(traces)} each, ms):")
    for key in traces[0]:
        print(f"  {key:52}{min(t[key] for t in traces) * 1e3:9.1f}")
    print("a group task's steps on its worker (best of 3, ms):")
    for i, group in enumerate(steps[0]):
        best = {k: min(s[i][k] for s in steps) for k in ("parse", "merge", "pandas", "pickle")}
        print(f"  group {i}: {group['demos']} demos, {group['rows']} rows, "
              f"{group['bytes'] / 1e3:.1f} kB pickled: "
              + ", ".join(f"{k} {v * 1e3:.1f}" for k, v in best.items()))

    base = min(times["parse_many(jobs)"])
    print(f"load average: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f}; cores: {os.cpu_count()}")
    print(f"{'':36}{'best':>9}{'median':>9}{'MB/s':>8}{'/ parse_many':>14}{'ms/demo over':>14}")
    for name, ts in times.items():
        best = min(ts)
        over = (best - base) / a.demos * 1e3
        print(f"{name:36}{best:9.3f}{statistics.median(ts):9.3f}{mb / best:8.1f}"
              f"{best / base:14.3f}{over:14.2f}")
    read, noop = times.get("dask read (by bytes)"), times.get("dask no-op (same frames)")
    if read and noop:
        median = statistics.median
        gap = median(read) - median(times["parse_many(jobs)"])
        print(f"dask read (by bytes) - parse_many: {(min(read) - base) * 1e3:.1f} ms (best), "
              f"{gap * 1e3:.1f} ms (median); Dask's own, the no-op graph: "
              f"{min(noop) * 1e3:.1f} ms (best), {median(noop) * 1e3:.1f} ms (median)")


def trace(client, gd, paths, tables) -> dict:
    """One traced run of `read` (by bytes): where its time goes, in seconds."""
    import dask
    import distributed

    t0 = time.time()
    frames = gd.read(paths, tables)
    t1 = time.time()
    with distributed.get_task_stream(client) as stream:
        dask.compute(*frames.values())
    t2 = time.time()
    tasks = stream.data
    parse = [s for s in tasks if "gamewire-parse" in str(s["key"])]
    start = min(min(x["start"] for x in s["startstops"]) for s in parse)
    end = max(max(x["stop"] for x in s["startstops"]) for s in parse)
    longest = max(max(x["stop"] for x in s["startstops"])
                  - min(x["start"] for x in s["startstops"]) for s in parse)
    return {
        "graph built on the client (read)": t1 - t0,
        "compute called to the first parse task": start - t1,
        "parse tasks, longest": longest,
        "parse tasks, first start to last end": end - start,
        "last parse end to the frames on the client": t2 - end,
        "whole run": t2 - t0,
    }


if __name__ == "__main__":
    main()
