#!/usr/bin/env python3
"""Batch speed: `gamewire batch` against demoparser2 doing the same tables, in one run.

Usage:
    python3 scripts/bench_batch.py [--gamewire PATH] [--corpus DIR] [--copies N] [--reps N] [--jobs N]

Run it with the Python that has demoparser2 (target/peers-venv/bin/python after
.ci/setup-demoparser2.sh). Defaults: target/release/gamewire (build it with
`cargo build --release -p gamewire-cli`), the corpus (GAMEWIRE_CORPUS, default ../shared/corpus),
20 copies, 6 repetitions, 2 jobs.

What is timed (wall clock of whole processes, best and median of the repetitions, interleaved):
  * ours:  gamewire batch DIR --tables kills,rounds,damages --format parquet -j JOBS
  * peer:  crates/query/scripts/demoparser2_batch.py DIR JOBS, i.e. DemoParser(path).parse_events
           of the six events those tables come from (player_death, player_hurt, round_start,
           round_freeze_end, round_end, round_officially_ended) over a pool of JOBS processes.
on a directory of symbolic links: every CS2 demo demoparser2 can read, COPIES times (the ratio),
and separately every corpus demo (CS2, Deadlock, Dota 2) COPIES times (ours only: demoparser2
cannot read the rest). Peak RSS of our process is printed for both, to show that memory stays flat
in the number of demos. MB = 10^6 bytes of demo files.

When the venv of `.ci/setup-python.sh start` exists (target/py-venv), the Python package's
`gamewire.parse_many(paths, ["kills", "rounds", "damages"], jobs=JOBS)` is timed too, in-process
in that interpreter (best of the repetitions, after one warm-up call), on the same readable demos:
the same tables as DataFrames, against demoparser2's best whole-script time above.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def corpus_root() -> Path:
    """The corpus: GAMEWIRE_CORPUS (a relative value is taken from the repository root), else
    ../shared/corpus beside the repository, as for the tests (crates/corpus)."""
    return Path(os.path.normpath(REPO / (os.environ.get("GAMEWIRE_CORPUS") or "../shared/corpus")))


PEER_SCRIPT = REPO / "crates/query/scripts/demoparser2_batch.py"


def readable_by_demoparser2(demo: Path) -> bool:
    try:
        from demoparser2 import DemoParser  # noqa: PLC0415

        DemoParser(str(demo)).parse_events(["player_death", "round_end"])
        return True
    except Exception:  # noqa: BLE001 (demoparser2 raises bare Exceptions)
        return False


def link_copies(demos: list[Path], copies: int, into: Path) -> int:
    into.mkdir(parents=True, exist_ok=True)
    size = 0
    for i in range(copies):
        for d in demos:
            (into / f"{d.parent.name}_{d.stem}_{i}.dem").symlink_to(d.resolve())
            size += d.stat().st_size
    return size


TIME = "/usr/bin/time"


def run(cmd: list[str], rss: bool = False) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user+sys, with the process's own children) and peak RSS (KiB,
    through /usr/bin/time when `rss` and it exists, else 0) of one process."""
    if rss and os.path.exists(TIME):
        cmd = [TIME, "-f", "maxrss %M", *cmd]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    dt = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime - run.cpu_seen
    run.cpu_seen += cpu
    text = (out + err).decode(errors="replace")
    # Both print "... ok, 0 failed" / "... ok 0 failed": a skipped demo would skew the timing.
    if p.returncode != 0 or " 0 failed" not in text:
        sys.exit(f"failed: {' '.join(cmd)}\n{text[-500:]}")
    peak = 0
    for line in text.splitlines():
        if line.startswith("maxrss "):
            peak = int(line.split()[1])
    return dt, cpu, peak


run.cpu_seen = 0.0


def time_parse_many(folder: Path, reps: int, jobs: int) -> float | None:
    """Best in-process time of gamewire.parse_many over the demos in `folder`, or None without
    the package's venv."""
    python = REPO / "target/py-venv/bin/python"
    if not python.is_file():
        return None
    code = (
        "import sys, time, gamewire\n"
        "paths = sorted(sys.argv[1:-2]); reps, jobs = int(sys.argv[-2]), int(sys.argv[-1])\n"
        "gamewire.parse_many(paths, ['kills', 'rounds', 'damages'], jobs=jobs)\n"
        "best = float('inf')\n"
        "for _ in range(reps):\n"
        "    t = time.perf_counter(); gamewire.parse_many(paths, ['kills', 'rounds', 'damages'], jobs=jobs)\n"
        "    best = min(best, time.perf_counter() - t)\n"
        "print(best)\n"
    )
    paths = [str(p) for p in sorted(folder.iterdir())]
    out = subprocess.run([str(python), "-c", code, *paths, str(reps), str(jobs)], capture_output=True,
                         text=True, check=True)
    return float(out.stdout.strip())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gamewire", default=str(REPO / "target/release/gamewire"))
    ap.add_argument("--corpus", default=str(corpus_root()))
    ap.add_argument("--copies", type=int, default=20)
    ap.add_argument("--reps", type=int, default=6)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    corpus = Path(a.corpus)
    all_demos = sorted(p for d in ("cs2", "deadlock", "dota2") for p in (corpus / d).glob("*.dem"))
    readable = [d for d in all_demos if d.parent.name == "cs2" and readable_by_demoparser2(d)]
    print(f"demoparser2 reads {len(readable)} of {len(all_demos)} corpus demos: {', '.join(d.name for d in readable)}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        size_r = link_copies(readable, a.copies, tmp / "readable")
        size_a = link_copies(all_demos, a.copies, tmp / "all")
        # A fresh output directory per run: overwriting files costs more than writing new ones
        # (ext4 with discard), and would make our side depend on the previous run.
        outs = iter(range(10**6))
        ours = lambda d: [a.gamewire, "batch", str(d), "--tables", "kills,rounds,damages",  # noqa: E731
                          "--out", str(tmp / f"out{next(outs)}"), "--format", "parquet", "-j", str(a.jobs)]
        peer = [sys.executable, str(PEER_SCRIPT), str(tmp / "readable"), str(a.jobs)]
        t_ours, t_peer, t_all, c_ours, c_peer, rss_r, rss_a = [], [], [], [], [], [], []
        for _ in range(a.reps):
            dt, cpu, rss = run(ours(tmp / "readable"), rss=True)
            t_ours.append(dt)
            c_ours.append(cpu)
            rss_r.append(rss)
            dt, cpu, _ = run(peer)
            t_peer.append(dt)
            c_peer.append(cpu)
            dt, _, rss = run(ours(tmp / "all"), rss=True)
            t_all.append(dt)
            rss_a.append(rss)
        py_many = time_parse_many(tmp / "readable", a.reps, a.jobs)
    n_r, n_a = len(readable) * a.copies, len(all_demos) * a.copies
    mb_r, mb_a = size_r / 1e6, size_a / 1e6
    best = lambda xs: min(xs)  # noqa: E731
    med = statistics.median
    print(f"\n{n_r} demos demoparser2 reads ({mb_r:.1f} MB), {a.reps} interleaved runs, -j {a.jobs}:")
    print(f"  gamewire batch   best {best(t_ours):.3f} s ({mb_r / best(t_ours):6.1f} MB/s)   median {med(t_ours):.3f} s   peak RSS {max(rss_r) / 1024:.1f} MiB")
    print(f"  demoparser2      best {best(t_peer):.3f} s ({mb_r / best(t_peer):6.1f} MB/s)   median {med(t_peer):.3f} s")
    pairs = sorted(p / o for o, p in zip(t_ours, t_peer))
    print(f"  CPU time (user+sys, less sensitive to other load): gamewire best {best(c_ours):.3f} s, "
          f"demoparser2 best {best(c_peer):.3f} s, ratio {best(c_peer) / best(c_ours):.1f}x")
    print(f"  ratio: best/best {best(t_peer) / best(t_ours):.1f}x, median/median {med(t_peer) / med(t_ours):.1f}x, "
          f"run pairs {pairs[0]:.1f}x-{pairs[-1]:.1f}x (target >= 20x)")
    if py_many is not None:
        print(f"  gamewire.parse_many (Python, in-process, DataFrames) best {py_many:.3f} s "
              f"({mb_r / py_many:6.1f} MB/s), ratio to demoparser2's best {best(t_peer) / py_many:.1f}x")
    print(f"\n{n_a} demos, the whole corpus ({mb_a:.1f} MB; gamewire only):")
    print(f"  gamewire batch   best {best(t_all):.3f} s ({mb_a / best(t_all):6.1f} MB/s)   median {med(t_all):.3f} s   peak RSS {max(rss_a) / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
