#!/usr/bin/env python3
"""Dask's overhead on one machine: the same tables of the same demos through
`gamewire.dask` on a LocalCluster, `gamewire.parse_many` and `gamewire batch`, in one run.

    target/py-venv/bin/python scripts/bench_dask.py [--gamewire PATH] [--corpus DIR]
        [--demos N] [--workers N] [--reps N] [--tables T,...] [--before MODULE]

The demos are N copies of the corpus CS2 demos (round-robin) in a temporary folder. Each rep
times, interleaved, every way of doing the work (best of the reps is reported, with the median):

  * parse_many     gamewire.parse_many(paths, tables, jobs=WORKERS): pandas DataFrames
  * dask read      gamewire.dask.read(paths, tables) computed together into pandas on a
                   LocalCluster of WORKERS processes, 1 thread each: partitions by bytes (the
                   default), and demos_per_partition 1 and 10
  * dask parquet   gamewire.dask.to_parquet(paths, out, tables) into a fresh folder
  * batch          gamewire batch DIR --tables ... --format parquet -j WORKERS --out fresh folder

With `--before MODULE` (an importable module with the same `read` and `to_parquet`, such as an
earlier `gamewire/dask.py` saved beside it in the package), its ways are timed too, interleaved
with the others, so that two versions are compared at the same load.

The cluster is started once, before the timings (its start-up time is printed apart), and each
worker has parsed the demos once before the first rep, as parse_many's process has (send tables
cached per process). Dask's overhead per demo is (dask read - parse_many) / N; the cost of a
task that does nothing on the same cluster is printed beside it (`read` runs 1 + len(tables)
tasks per partition, plus one per table and partition for the collection). Not a test: nothing
is asserted. Give the load average (printed) with any figure.
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
    a = ap.parse_args()

    import dask
    import distributed
    import gamewire
    import gamewire.dask as gd

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
        # Dask's own cost per task on this machine and load: tasks that do nothing.
        noop = []
        for _ in range(3):
            t = time.perf_counter()
            dask.compute(*[dask.delayed(int, pure=False)(i) for i in range(a.demos)])
            noop.append(time.perf_counter() - t)
        print(f"{a.demos} no-op tasks: best {min(noop):.3f} s "
              f"({min(noop) / a.demos * 1e3:.2f} ms per task)")

        def parse_many():
            gamewire.parse_many(paths, tables, jobs=a.workers)

        def dask_read(module, **grouping):
            def run():
                frames = module.read(paths, tables, **grouping)
                dask.compute(*frames.values())
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
            if label:
                # The earlier version's read has no grouping by bytes.
                ways[f"{label}dask read (1/partition)"] = dask_read(module, demos_per_partition=1)
            else:
                ways["dask read (by bytes)"] = dask_read(module)
                ways["dask read (1/partition)"] = dask_read(module, demos_per_partition=1)
            ways[f"{label}dask read (10/partition)"] = dask_read(module, demos_per_partition=10)
            ways[f"{label}dask to_parquet"] = dask_parquet(module)
        if binary.is_file():
            ways["gamewire batch -j"] = batch
        else:
            print(f"no gamewire binary at {binary}: the batch row is left out")
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
        client.close()
        cluster.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    base = min(times["parse_many(jobs)"])
    print(f"load average: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} "
          f"{os.getloadavg()[2]:.2f}; cores: {os.cpu_count()}")
    print(f"{'':36}{'best':>9}{'median':>9}{'MB/s':>8}{'/ parse_many':>14}{'ms/demo over':>14}")
    for name, ts in times.items():
        best = min(ts)
        over = (best - base) / a.demos * 1e3
        print(f"{name:36}{best:9.3f}{statistics.median(ts):9.3f}{mb / best:8.1f}"
              f"{best / base:14.3f}{over:14.2f}")


if __name__ == "__main__":
    main()
