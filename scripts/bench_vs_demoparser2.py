#!/usr/bin/env python3
"""Speed comparison: `gamewire ticks` + `gamewire events` against demoparser2's
`parse_ticks` + `parse_events` on the same CS2 corpus demos, in one run.

Usage:
    python3 scripts/bench_vs_demoparser2.py [GAMEWIRE] [CORPUS_DIR] [--reps N] [--copies N]
                                            [--demo FILE ...] [--no-many]

Defaults (relative to the repository root): GAMEWIRE = target/release/gamewire (build it with
`cargo build --release -p gamewire-cli`), CORPUS_DIR = the corpus's cs2/ (GAMEWIRE_CORPUS, default
../shared/corpus), 7 repetitions. `--demo FILE` (repeatable) times these demos instead of the
folder's (a match-length demo made by `gamewire loop`: scripts/make_looped.sh); `--no-many` leaves
out the last part (one command over many demos).

What is timed, per demo, per repetition:
  * gamewire: two whole processes, wall clock, output discarded to /dev/null:
        gamewire ticks DEMO --props X,Y,Z,health,armor_value,team_num,pitch,yaw --humans-only --format jsonl
        gamewire events DEMO --format jsonl
    (process start, reading the file, the full parse and writing JSON Lines are all included;
    `--humans-only`: demoparser2's rows are those of the players with a steam id.)
  * demoparser2: IN-PROCESS in this Python interpreter (no interpreter start-up, no import),
    the DemoParser constructor plus
        parse_ticks(["X","Y","Z","health","armor_value","team_num","pitch","yaw"])
        parse_events(["all"])
    i.e. two full parses, returning pandas DataFrames.
Then the same as whole processes on both sides: one Python process per demo (`python -c`) that
starts the interpreter, imports demoparser2 and makes both calls, against our two processes; what
running one command, or one script, on one demo costs. (The interpreter's start and import alone
are printed for reference.)
Also, when the example binary `target/release/examples/ticks_events` exists (build it with
`cargo build --release -p gamewire-query --example ticks_events`), the same two passes
in-process in Rust (a `Query` of the ticks table, a `Query` of the events table: the library work of
the two commands without process start and output writing), best of the repetitions, against
demoparser2's in-process best from the same run: what a tool embedding the library sees.
Last, one command over many demos, as an analyst runs it on a folder of matches: both gamewire
commands once with every readable demo as arguments (`gamewire ticks D1 D2 ... ` and
`gamewire events D1 D2 ...`, the two processes' wall clock), on all cores (-j default) and on
one worker thread (-j 1), against demoparser2's in-process calls on each of those demos in turn
(summed), interleaved, best of the repetitions; once on the readable demos as they are, once on
COPIES copies of them (default 10; the paths repeated). Copies are demos of one game build, so
gamewire builds their send tables once and shares them, as it does in any batch of one build's
matches (distinct builds build once each).
The best (minimum) of the repetitions is kept for each side; the median is printed too. CPU time
(user+sys over all threads: child rusage for gamewire, process_time() for demoparser2) is printed
as well, since wall time on a shared machine is noisy.
MB/s = demo bytes / best time of (ticks + events) (MB = 10^6 bytes). Demos demoparser2 cannot
read are timed for gamewire only and left out of the ratio. Ratio = our MB/s / demoparser2's,
per demo and over the readable demos together (total bytes / total best time).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def corpus_root() -> Path:
    """The corpus: GAMEWIRE_CORPUS (a relative value is taken from the repository root), else
    ../shared/corpus beside the repository, as for the tests (crates/corpus)."""
    return Path(os.path.normpath(REPO / (os.environ.get("GAMEWIRE_CORPUS") or "../shared/corpus")))


PROPS = ["X", "Y", "Z", "health", "armor_value", "team_num", "pitch", "yaw"]


CPU = {"ours": [], "peer": []}  # (demo name, cpu seconds) per repetition


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def time_ours(gamewire: str, demo: Path) -> tuple[float, float]:
    """Wall time of the two processes (ticks, events)."""
    out = []
    c0 = children_cpu()
    for args in (
        ["ticks", str(demo), "--props", ",".join(PROPS), "--humans-only", "--format", "jsonl"],
        ["events", str(demo), "--format", "jsonl"],
    ):
        t0 = time.perf_counter()
        p = subprocess.run([gamewire, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        out.append(time.perf_counter() - t0)
        if p.returncode != 0:
            raise RuntimeError(f"gamewire {args[0]} failed on {demo.name}: {p.stderr.decode()[-300:]}")
    CPU["ours"].append((demo.name, children_cpu() - c0))
    return out[0], out[1]


def time_peer(demo: Path) -> tuple[float, float]:
    """In-process time of (DemoParser() + parse_ticks, parse_events)."""
    from demoparser2 import DemoParser  # noqa: PLC0415

    c0 = time.process_time()
    t0 = time.perf_counter()
    dp = DemoParser(str(demo))
    dp.parse_ticks(PROPS)
    t1 = time.perf_counter()
    dp.parse_events(["all"])
    t2 = time.perf_counter()
    CPU["peer"].append((demo.name, time.process_time() - c0))
    return t1 - t0, t2 - t1


PEER_SCRIPT = (
    "import sys\n"
    "from demoparser2 import DemoParser\n"
    "dp = DemoParser(sys.argv[1])\n"
    "dp.parse_ticks(sys.argv[2].split(','))\n"
    "dp.parse_events(['all'])\n"
)


def time_peer_process(demo: Path | None, reps: int) -> float:
    """Best wall time of a whole Python process doing what a one-demo demoparser2 script does:
    start the interpreter, import demoparser2, then (with a demo) DemoParser + parse_ticks +
    parse_events. Without a demo: start and import only."""
    script = PEER_SCRIPT if demo else "import demoparser2\n"
    argv = [sys.executable, "-c", script] + ([str(demo), ",".join(PROPS)] if demo else [])
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        best = min(best, time.perf_counter() - t0)
    return best


def time_ours_many(gamewire: str, demos: list[Path], jobs: int | None) -> tuple[float, float]:
    """Wall and CPU time of the two commands run once over all `demos` (-j `jobs`)."""
    j = ["-j", str(jobs)] if jobs else []
    paths = [str(d) for d in demos]
    c0 = children_cpu()
    t0 = time.perf_counter()
    for args in (
        ["ticks", *paths, "--props", ",".join(PROPS), "--humans-only", "--format", "jsonl", *j],
        ["events", *paths, "--format", "jsonl", *j],
    ):
        p = subprocess.run([gamewire, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise RuntimeError(f"gamewire {args[0]} failed: {p.stderr.decode()[-300:]}")
    return time.perf_counter() - t0, children_cpu() - c0


def time_peer_many(demos: list[Path]) -> tuple[float, float]:
    """Wall and CPU time of demoparser2's in-process calls on each of `demos` in turn."""
    c0 = time.process_time()
    t0 = time.perf_counter()
    for demo in demos:
        time_peer(demo)
    return time.perf_counter() - t0, time.process_time() - c0


def many_demos(gamewire: str, readable: list[Path], copies: int, reps: int) -> None:
    """One command over many demos: see the module docs."""
    print(f"\nOne command over many demos: `gamewire ticks D1 D2 ...` + `gamewire events D1 D2 ...` "
          f"(two processes, wall clock), against demoparser2's in-process calls on each demo in turn; "
          f"best of {reps} (median in brackets), ratio by wall time and by CPU time (user+sys):")
    for n in (1, copies):
        demos = readable * n
        mb = sum(d.stat().st_size for d in demos) / 1e6
        ours = {None: [], 1: []}
        peer = []
        for _ in range(reps):
            for jobs in ours:
                ours[jobs].append(time_ours_many(gamewire, demos, jobs))
            peer.append(time_peer_many(demos))
        pw = min(w for w, _ in peer)
        pc = min(c for _, c in peer)
        pm = statistics.median(w for w, _ in peer)
        print(f"  {len(demos)} demos ({len(readable)} x {n}), {mb:.2f} MB: demoparser2 {pw:.4f} s "
              f"[{pm:.4f}] = {mb / pw:5.1f} MB/s, CPU {pc:.4f} s")
        for jobs, runs in ours.items():
            w = min(x for x, _ in runs)
            c = min(x for _, x in runs)
            m = statistics.median(x for x, _ in runs)
            label = "all cores" if jobs is None else "-j 1     "
            print(f"    gamewire {label} {w:.4f} s [{m:.4f}] = {mb / w:6.1f} MB/s, CPU {c:.4f} s   "
                  f"ratio wall {pw / w:5.1f}x [median {pm / m:5.1f}x], CPU {pc / c:5.1f}x")


def process_floor(gamewire: str, reps: int) -> float:
    """Best wall time of `gamewire --version`: the cost of starting a process, for reference."""
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        subprocess.run([gamewire, "--version"], stdout=subprocess.DEVNULL, check=True)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gamewire", nargs="?", default="target/release/gamewire")
    ap.add_argument("corpus", nargs="?", default=str(corpus_root() / "cs2"))
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--copies", type=int, default=10)
    ap.add_argument("--demo", action="append", default=[], help="a demo to time (repeatable)")
    ap.add_argument("--no-many", action="store_true", help="leave out one command over many demos")
    args = ap.parse_args()
    gamewire = Path(args.gamewire)
    if not gamewire.is_absolute() and not gamewire.exists():
        gamewire = REPO / gamewire
    corpus = Path(args.corpus)
    if not corpus.is_absolute() and not corpus.exists():
        corpus = REPO / corpus
    if not gamewire.is_file():
        print(f"error: gamewire binary not found: {gamewire}", file=sys.stderr)
        return 2
    demos = [Path(d).resolve() for d in args.demo] or sorted(corpus.glob("*.dem"))
    if not demos:
        print(f"error: no .dem files in {corpus}", file=sys.stderr)
        return 2
    from importlib.metadata import version  # noqa: PLC0415

    import demoparser2  # noqa: F401, PLC0415 - imported before timing

    print(f"gamewire {gamewire} (whole process: ticks + events)\n"
          f"demoparser2 {version('demoparser2')} (in-process: DemoParser + parse_ticks + parse_events(['all']))\n"
          f"{args.reps} repetitions, best kept (median in brackets), MB = 10^6 bytes\n")
    hdr = f"{'demo':16} {'MB':>7} {'gamewire s':>18} {'MB/s':>8} {'demoparser2 s':>18} {'MB/s':>8} {'ratio':>7}"
    print(hdr)
    print("-" * len(hdr))
    tot_bytes = tot_ours = tot_peer = 0.0
    breakdown = []
    by_name = {d.name: d for d in demos}
    for demo in demos:
        size = demo.stat().st_size
        # Peer readability first (one untimed try).
        try:
            time_peer(demo)
            peer_ok = True
        except Exception as e:  # noqa: BLE001
            peer_ok, peer_err = False, f"{type(e).__name__}: {e}"
        ours_t, peer_t, ours_parts, peer_parts = [], [], [], []
        for _ in range(args.reps):  # interleaved so both sides see the same machine load
            o = time_ours(str(gamewire), demo)
            ours_parts.append(o)
            ours_t.append(sum(o))
            if peer_ok:
                p = time_peer(demo)
                peer_parts.append(p)
                peer_t.append(sum(p))
        breakdown.append((demo.name, [min(x[i] for x in ours_parts) for i in (0, 1)],
                          [min(x[i] for x in peer_parts) for i in (0, 1)] if peer_ok else None))
        mb = size / 1e6
        ob, om = min(ours_t), statistics.median(ours_t)
        line = f"{demo.name:16} {mb:7.3f} {ob:8.4f} [{om:7.4f}] {mb / ob:8.1f}"
        if peer_ok:
            pb, pm = min(peer_t), statistics.median(peer_t)
            line += f" {pb:8.4f} [{pm:7.4f}] {mb / pb:8.1f} {pb / ob:6.1f}x"
            tot_bytes += mb
            tot_ours += ob
            tot_peer += pb
        else:
            line += f"   demoparser2 failed ({peer_err})"
        print(line, flush=True)
    print("\nbest time per part, seconds (gamewire: ticks process / events process; "
          "demoparser2: DemoParser()+parse_ticks / parse_events)")
    for name, o, p in breakdown:
        ps = f"{p[0]:.4f} / {p[1]:.4f}" if p else "-"
        print(f"  {name:16} gamewire {o[0]:.4f} / {o[1]:.4f}   demoparser2 {ps}")
    print(f"  process start floor (gamewire --version, best of {args.reps}): "
          f"{process_floor(str(gamewire), args.reps):.4f} s")
    print("\nCPU time (user+sys, all threads; less sensitive to other load on the machine), best of the "
          "repetitions:")
    cpu_b = cpu_o = cpu_p = 0.0
    for demo in demos:
        o = [c for n, c in CPU["ours"] if n == demo.name]
        p = [c for n, c in CPU["peer"] if n == demo.name]
        mb = demo.stat().st_size / 1e6
        line = f"  {demo.name:16} gamewire {min(o):.4f} s = {mb / max(min(o), 1e-9):6.1f} MB/cpu-s"
        if p:
            line += (f"   demoparser2 {min(p):.4f} s = {mb / max(min(p), 1e-9):6.1f} MB/cpu-s"
                     f"   ratio {min(p) / max(min(o), 1e-9):5.1f}x")
            cpu_b, cpu_o, cpu_p = cpu_b + mb, cpu_o + min(o), cpu_p + min(p)
        print(line)
    if cpu_p:
        print(f"  {'readable total':16} gamewire {cpu_b / cpu_o:6.1f} MB/cpu-s, demoparser2 "
              f"{cpu_b / cpu_p:6.1f} MB/cpu-s, ratio {cpu_p / cpu_o:.1f}x")
    in_process = REPO / "target/release/examples/ticks_events"
    if in_process.is_file():
        print("\nIn-process (library: parse + collect, no process start, no output), best of "
              f"{args.reps}, against demoparser2's in-process best above:")
        lib_b = lib_o = lib_p = 0.0
        for name, _o, p in breakdown:
            demo = by_name[name]
            out = subprocess.run([str(in_process), str(demo), str(args.reps)], capture_output=True,
                                 text=True, check=True).stdout.split()
            t, e = float(out[0]), float(out[1])
            mb = demo.stat().st_size / 1e6
            line = f"  {name:16} gamewire {t:.4f} / {e:.4f} s = {mb / (t + e):6.1f} MB/s"
            if p:
                line += f"   demoparser2 {sum(p):.4f} s = {mb / sum(p):5.1f} MB/s   ratio {sum(p) / (t + e):5.1f}x"
                lib_b, lib_o, lib_p = lib_b + mb, lib_o + t + e, lib_p + sum(p)
            print(line)
        if lib_p:
            print(f"  {'readable total':16} gamewire {lib_b / lib_o:6.1f} MB/s, demoparser2 "
                  f"{lib_b / lib_p:6.1f} MB/s, ratio {lib_p / lib_o:.1f}x")
    if breakdown and any(p for _n, _o, p in breakdown):
        reps = min(args.reps, 5)
        print(f"\nWhole process on both sides (what running one command or one script on one demo "
              f"costs), best of {reps}: our two processes (best of each, above) against one Python "
              f"process that starts, imports demoparser2 and runs both calls "
              f"(python -c; start + import alone: {time_peer_process(None, reps):.4f} s):")
        w_b = w_o = w_p = 0.0
        for name, o, p in breakdown:
            if not p:
                continue
            demo = by_name[name]
            t = time_peer_process(demo, reps)
            mb = demo.stat().st_size / 1e6
            print(f"  {name:16} gamewire {sum(o):.4f} s = {mb / sum(o):6.1f} MB/s   demoparser2 "
                  f"{t:.4f} s = {mb / t:5.1f} MB/s   ratio {t / sum(o):5.1f}x")
            w_b, w_o, w_p = w_b + mb, w_o + sum(o), w_p + t
        if w_p:
            print(f"  {'readable total':16} gamewire {w_b / w_o:6.1f} MB/s, demoparser2 "
                  f"{w_b / w_p:6.1f} MB/s, ratio {w_p / w_o:.1f}x")
    if tot_peer:
        print("-" * len(hdr))
        print(f"{'readable total':16} {tot_bytes:7.3f} {tot_ours:8.4f} {'':9} {tot_bytes / tot_ours:8.1f}"
              f" {tot_peer:8.4f} {'':9} {tot_bytes / tot_peer:8.1f} {tot_peer / tot_ours:6.1f}x")
        print(f"\ngamewire {tot_bytes / tot_ours:.1f} MB/s vs demoparser2 {tot_bytes / tot_peer:.1f} MB/s: "
              f"ratio {tot_peer / tot_ours:.1f}x (target >= 20x)")
        readable = [by_name[name] for name, _o, p in breakdown if p]
        if not args.no_many:
            many_demos(str(gamewire), readable, args.copies, min(args.reps, 5))
    return 0


if __name__ == "__main__":
    sys.exit(main())
