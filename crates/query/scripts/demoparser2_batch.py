#!/usr/bin/env python3
# Usage: demoparser2_batch.py DIR N  (the peer side of the README batch benchmark;
# demoparser2 0.42.0 from .ci/setup-demoparser2.sh, target/peers-venv).
# demoparser2 doing the batch's tables (kills, rounds, damages) on the same files, one process, sequential and with a pool of N.
import sys, time, glob, os
from concurrent.futures import ProcessPoolExecutor
from demoparser2 import DemoParser
def one(p):
    try:
        d = DemoParser(p)
        d.parse_events(["player_death", "player_hurt", "round_start", "round_freeze_end", "round_end", "round_officially_ended"])
        return True
    except Exception as e:
        return False
files = sorted(glob.glob(sys.argv[1] + "/*.dem"))
n = int(sys.argv[2])
size = sum(os.path.getsize(f) for f in files)
t = time.time()
with ProcessPoolExecutor(n) as ex:
    res = list(ex.map(one, files))
dt = time.time() - t
print(f"demoparser2 {sum(res)} ok {len(res)-sum(res)} failed, {size/1e6:.1f} MB in {dt:.2f} s ({size/1e6/dt:.1f} MB/s) with {n} processes")
