#!/usr/bin/env python3
"""Memory over a long live run: a looped Deadlock match served as an HTTP broadcast.

    python3 scripts/bench_live.py                  # --minutes 3,30 --rounds 1

For each length it makes (once, kept in target/live/, never committed):

  1. target/live/deadlock-<M>min.dem: `gamewire loop` of the corpus's Deadlock broadcast capture
     deadlock/broadcast/street_test_60tps (21 s of a 12-player match at 60 ticks/s; --base names
     another demo or broadcast of the corpus) repeated for at least M minutes of match time, as
     scripts/make_looped.sh makes its demos;
  2. target/live/deadlock-<M>min/: that demo written as a broadcast folder with
     `gamewire broadcast` (3-second fragments, as CSTV+);

then serves the folder with the test relay (.ci/broadcast_server.py, every fragment released at
once unless --interval-ms says otherwise, ending with DEM_Stop) and runs each command on the
relay's URL, one relay per run:

    gamewire events URL --follow --format jsonl        (to /dev/null)
    gamewire ticks URL --props X,Y,Z,health --follow   (CSV, to /dev/null)
    gamewire ticks URL --props X,Y,Z,health -o target/live/ticks.parquet
    gamewire table kills URL

It measures the peak resident memory of the gamewire process (its rusage maxrss) and samples its
resident memory (/proc/PID/status) every 100 ms, printing the peak and the resident memory at a
quarter, half and three quarters of the run: memory that stays flat over the 30 minutes, and the
same peak as over 3, is bounded. Lengths alternate within a round.

Uses the release binary: build it first with `cargo build --release -p gamewire-cli`
(GAMEWIRE_BIN names another). GAMEWIRE_CORPUS as everywhere (default ../shared/corpus).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "target" / "live"
RELAY = REPO / ".ci" / "broadcast_server.py"
PROPS = "X,Y,Z,health"


def corpus() -> Path:
    return Path(os.path.normpath(REPO / (os.environ.get("GAMEWIRE_CORPUS") or "../shared/corpus")))


def make(binary: Path, base: str, minutes: float) -> Path:
    """The broadcast folder of a looped Deadlock demo of at least `minutes` minutes."""
    OUT.mkdir(parents=True, exist_ok=True)
    tag = f"deadlock-{minutes:g}min"
    demo = OUT / f"{tag}.dem"
    folder = OUT / tag
    if not demo.is_file():
        subprocess.run([str(binary), "loop", str(corpus() / base),
                        str(demo), "--minutes", f"{minutes:g}"], check=True,
                       stderr=subprocess.DEVNULL)
    if not (folder / "sync.json").is_file():
        subprocess.run([str(binary), "broadcast", str(demo), str(folder)], check=True,
                       stderr=subprocess.DEVNULL)
    return folder


def describe(folder: Path) -> dict:
    sync = json.loads((folder / "sync.json").read_text())
    fragments = sum(1 for p in folder.iterdir() if p.name.isdigit() and p.name != "0")
    size = sum(f.stat().st_size for f in folder.rglob("*.bin"))
    ticks = sync["maxtick"] - sync["tick"] + 1
    return {"fragments": fragments, "mib": size / 2**20,
            "minutes": ticks / sync["tps"] / 60}


class Relay:
    """The test relay serving `folder`, as a process; its URL from its first line."""

    def __init__(self, folder: Path, interval_ms: float):
        self.process = subprocess.Popen(
            [sys.executable, str(RELAY), "--dir", str(folder), "--port", "0",
             "--interval-ms", str(interval_ms), "--end", "stop"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        assert self.process.stdout is not None
        self.url = f"http://127.0.0.1:{int(self.process.stdout.readline())}"

    def __enter__(self) -> "Relay":
        return self

    def __exit__(self, *exc) -> None:
        self.process.kill()
        self.process.wait()


def resident_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def measure(argv: list[str]) -> dict:
    """Runs `argv` (output to /dev/null): wall time, peak RSS and RSS samples, in MiB."""
    started = time.monotonic()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    samples: list[int] = []
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            kib = resident_kib(process.pid)
            if kib is not None:
                samples.append(kib)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert process.stderr is not None
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    done.set()
    sampler.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0 or err:
        raise SystemExit(f"{' '.join(argv)}: exit {process.returncode}: {err.decode()}")
    at = lambda q: samples[min(len(samples) - 1, int(q * len(samples)))] / 1024 if samples else 0.0
    return {"wall": wall, "peak": usage.ru_maxrss / 1024, "cpu": usage.ru_utime + usage.ru_stime,
            "q1": at(0.25), "q2": at(0.5), "q3": at(0.75)}


def commands(binary: Path, url: str) -> list[tuple[str, list[str]]]:
    b = str(binary)
    return [
        ("events URL --follow --format jsonl", [b, "events", url, "--follow", "--format", "jsonl"]),
        (f"ticks URL --props {PROPS} --follow", [b, "ticks", url, "--props", PROPS, "--follow"]),
        (f"ticks URL --props {PROPS} -o ticks.parquet",
         [b, "ticks", url, "--props", PROPS, "-o", str(OUT / "ticks.parquet")]),
        ("table kills URL", [b, "table", "kills", url]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", default="3,30", help="match lengths, comma-separated")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--base", default="deadlock/broadcast/street_test_60tps",
                        help="the corpus demo or broadcast looped (delete target/live/ after "
                             "changing it)")
    parser.add_argument("--interval-ms", type=float, default=0.0,
                        help="the relay's pace (0: every fragment at once)")
    args = parser.parse_args()
    binary = Path(os.environ.get("GAMEWIRE_BIN") or REPO / "target/release/gamewire")
    if not binary.is_file():
        raise SystemExit(f"no {binary}: cargo build --release -p gamewire-cli")
    lengths = [float(m) for m in args.minutes.split(",")]
    folders = {m: make(binary, args.base, m) for m in lengths}
    for m, folder in folders.items():
        d = describe(folder)
        print(f"{folder.name}: {d['minutes']:.1f} minutes of match, {d['fragments']} fragments, "
              f"{d['mib']:.0f} MiB of fragments")
    results: dict[tuple[str, float], list[dict]] = {}
    for _ in range(args.rounds):
        names = [name for name, _ in commands(binary, "URL")]
        for i, name in enumerate(names):
            for m in lengths:
                with Relay(folders[m], args.interval_ms) as relay:
                    argv = commands(binary, relay.url)[i][1]
                    results.setdefault((name, m), []).append(measure(argv))
    load = os.getloadavg()
    print(f"\nload average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"{os.cpu_count()} CPUs; lowest peak of {args.rounds} round(s)\n")
    print("| command | minutes | wall s | CPU s | RSS at 1/4, 1/2, 3/4 MiB | peak RSS MiB |")
    print("|---|---:|---:|---:|---|---:|")
    for (name, m), runs in results.items():
        best = min(runs, key=lambda r: r["peak"])
        print(f"| `{name}` | {describe(folders[m])['minutes']:.1f} | {best['wall']:.1f} | "
              f"{best['cpu']:.1f} | {best['q1']:.1f}, {best['q2']:.1f}, {best['q3']:.1f} | "
              f"{best['peak']:.1f} |")


if __name__ == "__main__":
    main()
