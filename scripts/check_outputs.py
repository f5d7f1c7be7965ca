#!/usr/bin/env python3
"""Compare the output of two `gamewire` binaries, command by command, on the corpus.

    python3 scripts/check_outputs.py OLD_BINARY NEW_BINARY [--corpus DIR] [--tw-demo FILE ...]
        [--only exit|stdout|files|stderr ...] [--summary]
    python3 scripts/check_outputs.py --smoke NEW_BINARY [--corpus DIR]

Every command of the matrix below runs with both binaries on every corpus demo,
broadcast folder, capture and vector; standard output, the exit code and the
files a command writes must be byte-identical. Standard error is compared too,
except for `batch`, whose progress bar depends on timing. The corpus is found
through `GAMEWIRE_CORPUS` (default `../shared/corpus`). Teeworlds `.demo` files
are not part of the corpus; pass recordings with `--tw-demo`.

Exit status 0 when everything is identical, 1 otherwise (each difference is
printed with the command that showed it).

When outputs change on purpose (a renamed column, a new default), `--only`
restricts the comparison to some of the four outputs (`--only exit` finds
commands that started or stopped failing) and `--summary` prints, instead of
every command, how many differ per subcommand and what differs. `--smoke`
runs one binary over the matrix and lists the commands that exit non-zero
(a command of the matrix the binary no longer accepts shows up there).
"""
from __future__ import annotations

import argparse
import filecmp
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CS2_TABLES = [
    "events", "ticks", "players", "chat", "grenades", "rounds", "kills", "damages",
    "purchases", "user_commands", "shots", "bomb", "smokes", "infernos", "flashes",
    "footsteps", "item_drops", "skins", "updated_fields",
]
TICK_PROPS = {
    "cs2": "X,Y,Z,health,armor_value,team_num,pitch,yaw,is_alive,balance,active_weapon_name,inventory,velocity",
    "deadlock": "health,X,Y,Z,team_num,balance",
    "dota2": "hero_id,X,Y,health,team_num",
}


def sources2(corpus: Path) -> list[tuple[str, Path]]:
    out = []
    for game in ("cs2", "deadlock", "dota2"):
        for dem in sorted((corpus / game).glob("*.dem")):
            out.append((game, dem))
    for folder in sorted((corpus / "deadlock" / "broadcast").iterdir()):
        if folder.is_dir():
            out.append(("deadlock", folder))
    return out


def matrix(corpus: Path, tw_demos: list[Path]) -> list[list[str]]:
    cmds: list[list[str]] = []
    for game, demo in sources2(corpus):
        d = str(demo)
        cmds += [
            ["info", d], ["info", d, "--format", "json"],
            ["events", d], ["events", d, "--format", "csv"], ["events", d, "--list"],
            ["ticks", d, "--props", TICK_PROPS[game]],
            ["ticks", d, "--props", TICK_PROPS[game], "--format", "jsonl"],
            ["messages", d], ["messages", d, "--list"], ["messages", d, "--format", "csv"],
            ["entities", d, "--tick", "100"],
            ["schema", d],
            ["table", "header", d],
            ["props", d],
        ]
        tables = CS2_TABLES if game == "cs2" else ["events", "ticks", "players", "updated_fields"]
        if game == "dota2":
            tables = tables + ["combat_log"]
        for t in tables:
            extra = ["--props", TICK_PROPS[game]] if t in ("ticks", "events") else []
            for fmt in ("csv", "jsonl"):
                cmds.append(["table", t, d, "--format", fmt] + extra)
            cmds.append(["table", t, d, "--format", "parquet", "-o", "{out}/t.parquet"] + extra)
    cs2 = str(corpus / "cs2")
    cmds += [
        ["events", cs2, "-j", "1"],
        ["ticks", cs2, "--props", TICK_PROPS["cs2"], "-j", "1"],
    ]
    for fmt in ("csv", "jsonl", "parquet"):
        cmds.append(["batch", str(corpus), "--tables", ",".join(CS2_TABLES),
                     "--props", "X,Y,health", "--format", fmt, "--out", "{out}/batch", "-j", "1"])
    for pcap in sorted((corpus / "teeworlds" / "pcap").rglob("*.pcap")):
        cmds += [["tw", "pcap", str(pcap)], ["tw", "pcap", str(pcap), "--format", "jsonl"]]
    for capture in sorted((corpus / "teeworlds" / "captures").glob("*.jsonl")):
        for line in capture.read_text().splitlines()[:40]:
            rec = json.loads(line)
            base = ["tw", "decode", rec["hex"]] + (["--c2s"] if rec["dir"] == "c2s" else [])
            cmds += [base, base + ["--format", "jsonl"]]
    for demo in tw_demos:
        cmds += [["tw", "demo", str(demo)], ["tw", "demo", str(demo), "--objects"],
                 ["tw", "demo", str(demo), "--format", "jsonl"],
                 ["tw", "cut", str(demo), "--from", "10", "--to", "60", "-o", "{out}/cut.demo"]]
    vectors = json.loads((corpus / "bc" / "cf16_vectors.json").read_text())
    if isinstance(vectors, dict):
        vectors = vectors.get("vectors", [])
    for v in vectors[:60]:
        if isinstance(v, dict) and "value" in v:
            cmds.append(["tg", "cf16", "encode", repr(float(v["value"]))])
    for code in ("0x0000", "0x4b8d", "0x7fff", "0xffff", "0x8001"):
        cmds += [["tg", "cf16", "decode", code], ["tg", "cf16", "decode", code, "--format", "json"]]
    cmds += [["tg", "read", "1c 0102", "--as", "byte,short,cvec3"], ["tg", "read", "00", "--as", "byte,word"]]
    return cmds


def digest_tree(root: Path) -> dict[str, str]:
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*")) if p.is_file()
    }


def run(binary: str, args: list[str], out: Path) -> tuple[int, bytes, bytes, dict[str, str]]:
    out.mkdir(parents=True, exist_ok=True)
    argv = [a.replace("{out}", str(out)) for a in args]
    p = subprocess.run([binary] + argv, capture_output=True, timeout=600)
    stderr = p.stderr.replace(str(out).encode(), b"{out}")
    return p.returncode, p.stdout, stderr, digest_tree(out)


def smoke(binary: str, cmds: list[list[str]]) -> int:
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, cmd in enumerate(cmds):
            code, _, err, _ = run(binary, cmd, Path(tmp) / f"run{i}")
            if code != 0:
                bad += 1
                print(f"EXIT {code}: gamewire {' '.join(cmd)}")
                print("  ", err[:300])
    print(f"{len(cmds)} commands, {len(cmds) - bad} exit 0, {bad} do not")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old", nargs="?")
    ap.add_argument("new", nargs="?")
    ap.add_argument("--corpus", default=os.environ.get("GAMEWIRE_CORPUS", "../shared/corpus"))
    ap.add_argument("--tw-demo", action="append", default=[], type=Path)
    ap.add_argument("--only", action="append", choices=["exit", "stdout", "files", "stderr"],
                    help="compare only these outputs (repeatable; default: all four)")
    ap.add_argument("--summary", action="store_true",
                    help="count the differences per subcommand instead of listing every command")
    ap.add_argument("--smoke", metavar="BINARY", help="run one binary; list the commands that fail")
    a = ap.parse_args()
    corpus = Path(a.corpus)
    cmds = matrix(corpus, a.tw_demo)
    if a.smoke:
        return smoke(a.smoke, cmds)
    if not (a.old and a.new):
        ap.error("give OLD_BINARY and NEW_BINARY, or --smoke BINARY")
    compared = set(a.only or ["exit", "stdout", "files", "stderr"])
    bad = 0
    tally: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, cmd in enumerate(cmds):
            old = run(a.old, cmd, Path(tmp) / f"old{i}")
            new = run(a.new, cmd, Path(tmp) / f"new{i}")
            what = [n for n, o, w in (("exit", old[0], new[0]), ("stdout", old[1], new[1]),
                                      ("files", old[3], new[3]), ("stderr", old[2], new[2]))
                    if o != w and n in compared and not (n == "stderr" and cmd[0] == "batch")]
            if what:
                bad += 1
                sub = " ".join(cmd[:2]) if cmd[0] in ("table", "tw", "tg") else cmd[0]
                for n in what:
                    tally.setdefault(sub, {}).setdefault(n, 0)
                    tally[sub][n] += 1
                if a.summary:
                    continue
                print(f"DIFFERS ({', '.join(what)}): gamewire {' '.join(cmd)}")
                if "exit" in what:
                    print(f"  exit: old {old[0]}, new {new[0]}")
                if "stderr" in what:
                    print("  old:", old[2][:300])
                    print("  new:", new[2][:300])
    if a.summary:
        for sub, counts in sorted(tally.items()):
            print(f"{sub}: " + ", ".join(f"{n} {c}" for n, c in sorted(counts.items())))
    print(f"{len(cmds)} commands, {len(cmds) - bad} identical, {bad} different")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
