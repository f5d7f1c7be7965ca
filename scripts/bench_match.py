#!/usr/bin/env python3
"""Match length: gamewire against source2-demo, haste and demoparser2 on demos of 100 MB and 1 GB,
in one run, and the table for docs/benchmarks.md.

Usage:
    python3 scripts/bench_match.py [--sizes 100,1000] [--rounds 3] [--reps 3] [--no-build]
                                   [--no-haste] [--peers-up-to MB]
                                   [--only full,analyst,batch,floor,profile]

Run it from anywhere; paths are the repository's. What it does, in order:

  1. Builds what it needs (release, at nice 10 so that the timings below get the CPU first):
     `gamewire` (gamewire-cli), the `ticks_events` example of gamewire-query, `compare/` once per
     game (source2-demo reads one game per build: compare/target/release/gamewire-compare-GAME),
     and haste with scripts/get_haste.sh (HASTE_GIT_URL passes through; without protoc or the
     network haste is left out and said so).
  2. Makes the looped demos that are missing (scripts/make_looped.sh make SIZE): CS2 14155,
     Deadlock hltv_10423 and the Dota 2 corpus demo repeated into target/looped/GAME-SIZEmb.dem.
  3. full: per game and size, whole processes under /usr/bin/time -v, interleaved (one run of
     each side per repetition, best wall time and highest peak RSS kept; 1 GB: one repetition):
       gamewire stats DEMO                     (the full parse command; when the binary has no
                                                `stats`, compare's one-thread full parse stands in)
       gamewire ticks DEMO --props X,Y,Z,health --format parquet -o OUT
       gamewire table events DEMO --format parquet -o OUT
       source2-demo 0.5.10: compare-GAME --only peer DEMO (entity + game event observers)
       haste 20e0501: gamewire-compare-haste haste DEMO (entity + packet callbacks; not CS2)
     and in-process on the 100 MB demos: compare-GAME --rounds R DEMO (gamewire with and without
     its helper thread against source2-demo, alternated) and gamewire-compare-haste bench.
  4. analyst: scripts/bench_vs_demoparser2.py on the 100 MB CS2 demo (demoparser2 0.42's
     parse_ticks of the 8 usual props + parse_events(["all"]) against `gamewire ticks` +
     `gamewire events`, whole process, and the ticks_events example in-process), with the Python
     of target/peers-venv (.ci/setup-demoparser2.sh), or PEERS_PYTHON.
  5. batch: `gamewire batch` of 8 links to the 100 MB CS2 demo (--tables kills,rounds,damages,
     Parquet), -j 1 against -j 2, interleaved.
  6. floor: compare-cs2 --floor on each 100 MB demo: a full parse next to snappy alone on the
     same frames and copies of the decompressed bytes and of the decoded state.
  7. profile: `perf record` of `gamewire stats` on each 100 MB demo (the full parse a user runs,
     its input streamed through a small buffer: compare's parse reads the whole file into fresh
     memory first, and the kernel zeroing those pages took up to a third of its samples), the
     samples grouped by where the time goes (snappy, field paths, field decoding, state writes,
     the rest).

Prints the machine (lscpu model name), the date, the load average before and after, the versions,
and Markdown tables. MB = 10^6 bytes.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GAMEWIRE = REPO / "target/release/gamewire"
TICKS_EVENTS = REPO / "target/release/examples/ticks_events"
COMPARE = REPO / "compare/target/release"
HASTE = REPO / "compare/haste/target/release/gamewire-compare-haste"
LOOPED = REPO / "target/looped"
# The Python with demoparser2 (.ci/setup-demoparser2.sh makes target/peers-venv).
PEERS_PY = Path(os.environ.get("PEERS_PYTHON") or REPO / "target/peers-venv/bin/python")
GAMES = {"cs2": "cs2", "deadlock": "deadlock", "dota2": "dota"}  # game -> compare feature


def sh(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=kw.pop("cwd", REPO), **kw)


def niced_cargo(args: list[str], cwd: Path = REPO) -> None:
    env = dict(os.environ, CARGO_PROFILE_DEV_DEBUG="0")
    sh(["nice", "-n", "10", "cargo", *args], cwd=cwd, env=env, check=True)


def build(want_haste: bool) -> str | None:
    """Builds everything; returns why haste is left out, or None."""
    niced_cargo(["build", "--release", "--locked", "-p", "gamewire-cli"])
    niced_cargo(["build", "--release", "--locked", "-p", "gamewire-query", "--example", "ticks_events"])
    for feature in GAMES.values():
        niced_cargo(["build", "--release", "--locked", "--no-default-features", "--features", feature],
                    cwd=REPO / "compare")
        shutil.copy2(COMPARE / "gamewire-compare", COMPARE / f"gamewire-compare-{feature}")
    if not want_haste:
        return "not asked for"
    p = sh(["nice", "-n", "10", "scripts/get_haste.sh"], capture_output=True, text=True)
    if p.returncode != 0:
        return f"scripts/get_haste.sh failed: {p.stderr.strip()[-300:]}"
    return None


def demo(game: str, mb: int) -> Path:
    return LOOPED / f"{game}-{mb}mb.dem"


def make_inputs(sizes: list[int]) -> None:
    for mb in sizes:
        if not all(demo(g, mb).is_file() for g in GAMES):
            sh(["scripts/make_looped.sh", "make", str(mb)], check=True, stdout=subprocess.DEVNULL)


def timed(cmd: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + system, every thread) and peak RSS (MiB) of one whole
    process, from /usr/bin/time -v, and its standard output."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as log:
        t0 = time.perf_counter()
        p = sh(["/usr/bin/time", "-v", "-o", log.name, *cmd], capture_output=True, text=True)
        wall = time.perf_counter() - t0
        text = log.read()
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {(p.stderr or p.stdout)[-400:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1)) / 1024
    cpu = sum(float(re.search(rf"{what} time \(seconds\): ([\d.]+)", text).group(1)) for what in ("User", "System"))
    return wall, cpu, rss, p.stdout


def has_stats() -> bool:
    return sh([str(GAMEWIRE), "stats", "--help"], capture_output=True).returncode == 0


def load() -> str:
    """The load averages over 1, 5 and 15 minutes."""
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def cpu_model() -> str:
    out = sh(["lscpu"], capture_output=True, text=True).stdout
    m = re.search(r"Model name:\s*(.+)", out)
    return m.group(1).strip() if m else "unknown"


def full(sizes: list[int], reps: int, rounds: int, haste_ok: bool, out_dir: Path,
         peers_up_to: int) -> list[str]:
    """Whole-process table and in-process runs; returns the Markdown rows."""
    stats = has_stats()
    rows = []
    for mb in sizes:
        for game, feature in GAMES.items():
            d = demo(game, mb)
            size = d.stat().st_size / 1e6
            compare = str(COMPARE / f"gamewire-compare-{feature}")
            sides = {
                "gamewire stats" if stats else "gamewire full parse (compare, one thread)":
                    [str(GAMEWIRE), "stats", str(d)] if stats else [compare, "--only", "ours1", str(d)],
                "gamewire ticks (Parquet)": [str(GAMEWIRE), "ticks", str(d), "--props", "X,Y,Z,health",
                                             "--format", "parquet", "-o", str(out_dir / "t.parquet")],
                "gamewire table events (Parquet)": [str(GAMEWIRE), "table", "events", str(d), "--format",
                                                    "parquet", "-o", str(out_dir / "e.parquet")],
                "source2-demo 0.5.10": [compare, "--only", "peer", str(d)],
            }
            if haste_ok and game != "cs2":
                sides["haste 20e0501"] = [str(HASTE), "haste", str(d)]
            if mb > peers_up_to:
                sides = {k: v for k, v in sides.items() if k.startswith("gamewire")}
            best: dict[str, tuple[float, float, float] | str] = {}
            for _ in range(1 if mb >= 1000 else reps):
                for name, cmd in sides.items():
                    if isinstance(best.get(name), str):
                        continue
                    try:
                        wall, cpu, rss, stdout = timed(cmd)
                        if "Err(" in stdout:
                            best[name] = "failed: " + stdout.strip()[-120:]
                            continue
                    except RuntimeError as e:
                        best[name] = f"failed: {str(e)[-120:]}"
                        continue
                    w0, c0, r0 = best.get(name, (float("inf"), float("inf"), 0.0))
                    best[name] = (min(w0, wall), min(c0, cpu), max(r0, rss))
            ours = best.get(next(iter(sides)))
            for name, b in best.items():
                if isinstance(b, str):
                    rows.append(f"| {game} | {size:.0f} | {name} | - | - | - | - | {b} |")
                    continue
                ratio = ""
                if name in ("source2-demo 0.5.10", "haste 20e0501") and isinstance(ours, tuple):
                    ratio = f"{b[0] / ours[0]:.2f}x (CPU {b[1] / ours[1]:.2f}x)"
                rows.append(f"| {game} | {size:.0f} | {name} | {b[0]:.2f} | {size / b[0]:.1f} | "
                            f"{b[1]:.2f} | {b[2]:.1f} | {ratio} |")
            print("\n".join(rows[-len(best):]), flush=True)
    print("\nWhole process, wall and CPU time (user + system) the best of the repetitions, peak RSS "
          "the highest; ratio: the peer's time over gamewire's full parse:")
    print("| game | MB | side | wall s | MB/s | CPU s | peak RSS MiB | gamewire's lead |")
    print("|---|---:|---|---:|---:|---:|---:|---|")
    print("\n".join(rows), flush=True)
    print(f"\nIn-process, one process per game, sides alternated, best of {rounds} (load {load()}):")
    for game, feature in GAMES.items():
        d = demo(game, min(sizes))
        p = sh([str(COMPARE / f"gamewire-compare-{feature}"), "--rounds", str(rounds), str(d)],
               capture_output=True, text=True, cwd=REPO / "compare")
        print(p.stdout.rstrip(), flush=True)
        if haste_ok and game != "cs2":
            p = sh([str(HASTE), "bench", "--rounds", str(rounds), str(d)], capture_output=True, text=True)
            print(p.stdout.rstrip(), flush=True)
    return rows


def analyst(reps: int) -> None:
    if not PEERS_PY.is_file():
        print(f"\nanalyst pass left out: no {PEERS_PY} (.ci/setup-demoparser2.sh)")
        return
    print(f"\nAnalyst pass on the 100 MB CS2 demo against demoparser2 (load {load()}):", flush=True)
    sh([str(PEERS_PY), "scripts/bench_vs_demoparser2.py", str(GAMEWIRE), "--demo", str(demo("cs2", 100)),
        "--reps", str(reps), "--no-many"], check=False)


def batch(reps: int) -> None:
    d = demo("cs2", 100)
    with tempfile.TemporaryDirectory(dir=REPO / "target") as tmp:
        tmp = Path(tmp)
        (tmp / "in").mkdir()
        for i in range(8):
            (tmp / "in" / f"m{i}.dem").symlink_to(d)
        mb = 8 * d.stat().st_size / 1e6
        best = {1: (float("inf"), 0.0), 2: (float("inf"), 0.0)}
        n = 0
        for _ in range(reps):
            for jobs in (1, 2):
                n += 1
                wall, _cpu, rss, _ = timed([str(GAMEWIRE), "batch", str(tmp / "in"), "--tables", "kills,rounds,damages",
                                      "--out", str(tmp / f"out{n}"), "--format", "parquet", "-j", str(jobs)])
                shutil.rmtree(tmp / f"out{n}", ignore_errors=True)
                best[jobs] = (min(best[jobs][0], wall), max(best[jobs][1], rss))
    print(f"\n`gamewire batch` of 8 x 100 MB CS2 (kills,rounds,damages, Parquet), best of {reps} "
          f"(load {load()}):")
    for jobs, (w, r) in best.items():
        print(f"  -j {jobs}: {w:.2f} s = {mb / w:.1f} MB/s, peak RSS {r:.1f} MiB")
    print(f"  -j 2 against -j 1: {best[1][0] / best[2][0]:.2f}x (target >= 1.8x)")


def floor(rounds: int) -> None:
    print(f"\nWhere the floor is (compare --floor, best of {rounds}, load {load()}):", flush=True)
    for game in GAMES:
        sh([str(COMPARE / "gamewire-compare-cs2"), "--floor", str(demo(game, 100)), str(rounds)])


# Symbol patterns, first match wins: where the time of a full parse goes. The release build
# inlines the field-path reader, the decoders and the state writes of one entity record into
# `entity::read_fields`: its own samples are that loop together, the functions it calls (a
# decoder, a node that grows, a path op) are counted apart.
BUCKETS = [
    ("snappy", r"snap::"),
    ("field loop (read_fields, inlined)", r"entity::read_fields"),
    ("field paths", r"fieldpath|field_path|FieldPath|huffman"),
    ("field decoding", r"decod|quantiz|read_value|bits::|BitReader|varint|read_bits|coord|normal|qangle"),
    ("state writes", r"FieldState|::set|set_sized|grow_node"),
    ("kernel: fresh pages, file reads", r"clear_page|page_fault|_copy_to_iter|copy_user|memset"),
    ("string tables", r"string_table|stringtable|memcmp|from_utf8"),
    ("protobuf and messages", r"prost|messages|packet|parse_message|Message"),
    ("allocation and freeing", r"malloc|free|realloc|mi_|alloc::|drop_in_place"),
]


def profile() -> None:
    if not shutil.which("perf"):
        print("\nprofile left out: no perf (apt-get install linux-perf)")
        return
    print(f"\nWhere the time goes (perf record of `gamewire stats`, load {load()}):")
    for game in GAMES:
        with tempfile.NamedTemporaryFile(suffix=".perf", dir=REPO / "target") as data:
            sh(["perf", "record", "-q", "-F", "999", "-o", data.name, "--",
                str(GAMEWIRE), "stats", str(demo(game, 100))],
               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            rep = sh(["perf", "report", "-i", data.name, "--stdio", "--no-children", "--sort", "symbol",
                      "--percent-limit", "0"], capture_output=True, text=True).stdout
        shares: dict[str, float] = {}
        top = []
        for line in rep.splitlines():
            m = re.match(r"\s*([\d.]+)%\s+\[.\]\s+(.+)", line)
            if not m:
                continue
            pct, sym = float(m.group(1)), m.group(2).strip()
            bucket = next((b for b, pat in BUCKETS if re.search(pat, sym)), "the rest")
            shares[bucket] = shares.get(bucket, 0.0) + pct
            if len(top) < 12:
                top.append(f"    {pct:5.1f}%  {bucket:<22} {sym[:110]}")
        parts = ", ".join(f"{b} {shares.get(b, 0.0):.1f}%" for b, _ in BUCKETS + [("the rest", "")])
        print(f"  {game}: {parts}")
        print("\n".join(top))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,1000")
    ap.add_argument("--rounds", type=int, default=3, help="in-process rounds per side")
    ap.add_argument("--reps", type=int, default=3, help="whole-process repetitions per side (1 GB: 1)")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--no-haste", action="store_true")
    ap.add_argument("--peers-up-to", type=int, default=10**6, metavar="MB",
                    help="time the peers whole-process only on demos of at most MB (default: all)")
    ap.add_argument("--only", default="full,analyst,batch,floor,profile")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    parts = set(a.only.split(","))
    haste_why = None if not a.no_haste else "not asked for"
    if not a.no_build:
        haste_why = build(not a.no_haste)
    elif not a.no_haste and not HASTE.is_file():
        haste_why = f"no {HASTE} (scripts/get_haste.sh)"
    make_inputs(sizes)
    version = sh([str(GAMEWIRE), "--version"], capture_output=True, text=True).stdout.strip()
    dp2 = "-"
    if PEERS_PY.is_file():
        dp2 = sh([str(PEERS_PY), "-c", "from importlib.metadata import version; print(version('demoparser2'))"],
                 capture_output=True, text=True).stdout.strip()
    print(f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, CPU {cpu_model()}, "
          f"{os.cpu_count()} cores, load average {load()}")
    print(f"{version}; source2-demo 0.5.10; haste 20e0501 "
          f"{'(left out: ' + haste_why + ')' if haste_why else ''}; demoparser2 {dp2}")
    for mb in sizes:
        print("  " + ", ".join(f"{g} {demo(g, mb).stat().st_size / 1e6:.1f} MB" for g in GAMES))
    with tempfile.TemporaryDirectory(dir=REPO / "target") as out_dir:
        if "full" in parts:
            full(sizes, a.reps, a.rounds, haste_why is None, Path(out_dir), a.peers_up_to)
    if "analyst" in parts:
        analyst(a.reps)
    if "batch" in parts:
        batch(a.reps)
    if "floor" in parts:
        floor(a.rounds)
    if "profile" in parts:
        profile()
    print(f"\nload average at the end {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
