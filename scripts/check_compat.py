#!/usr/bin/env python3
"""demoparser2's own examples, run with demoparser2 and with `gamewire.compat`.

    python3 scripts/check_compat.py PEER_DIR [--demo DEMO ...] [--python PY] [--timeout S]

PEER_DIR is a checkout of demoparser2's public repository (github.com/LaihoE/demoparser): its
`examples/*/main.py` and `src/python/tests/signature_tests.py` are copied into a temporary
directory at check time (they are never part of this repository). For each example and each demo:

* the example's demo path (every string literal ending in `.dem`) becomes the demo's path;
* it runs twice in a fresh interpreter: as written (`from demoparser2 import DemoParser`), and with
  that import rewritten to `from gamewire.compat import DemoParser` (and `WantedPropState`);
* the run with gamewire is "identical" when its standard output and exit status equal those of the
  run with demoparser2.

The figure reported is N of M identical, where M counts the (example, demo) pairs on which
demoparser2 itself exits 0; the pairs where demoparser2 fails are listed apart, with whether the
gamewire run fails the same way (the same exception type on the last line of standard error).
`signature_tests.py` then runs with `unittest` on each demo, once per parser.

The demos default to the CS2 demos of the corpus that demoparser2 0.42.0 reads (cs2/14065,
14132, 14155; the corpus is `GAMEWIRE_CORPUS`, default `../shared/corpus` beside the repository).
PY (default: this interpreter) must import both `demoparser2` and `gamewire`, as the venv of
`.ci/setup-python.sh start` does (target/py-venv/bin/python).

Exit status: 0 when every pair demoparser2 runs is identical and the signature tests pass with
gamewire on every demo; 1 otherwise; 2 on bad usage. (demoparser2 0.42.0 itself fails one
signature test on these demos: `parse_event("player_death")` returns an empty list when the
demo has no death.)
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DEMOS = ["cs2/14065.dem", "cs2/14132.dem", "cs2/14155.dem"]

IMPORT = re.compile(r"^from demoparser2 import ", re.MULTILINE)
DEMO_LITERAL = re.compile(r"""(["'])([^"'\n]*\.dem)\1""")


def corpus_root() -> Path:
    value = os.environ.get("GAMEWIRE_CORPUS") or "../shared/corpus"
    return Path(os.path.normpath(REPO / value))


def with_demo(source: str, demo: Path) -> str:
    """The example with every `.dem` string literal replaced by the demo's path."""
    return DEMO_LITERAL.sub(lambda _m: repr(str(demo)), source)


def with_gamewire(source: str) -> str:
    return IMPORT.sub("from gamewire.compat import ", source)


def run(python: str, script: Path, cwd: Path, timeout: float) -> tuple[int, str, str]:
    env = dict(os.environ, PYTHONHASHSEED="0", COLUMNS="80", LINES="24")
    try:
        done = subprocess.run([python, script.name], cwd=cwd, capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return -1, "", f"timed out after {timeout} s"
    return done.returncode, done.stdout, done.stderr


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def exception_type(stderr: str) -> str:
    line = last_line(stderr)
    return line.split(":", 1)[0] if line else ""


def check_examples(peer: Path, demos: list[Path], python: str, timeout: float,
                   work: Path) -> tuple[int, int, list[str]]:
    examples = sorted(peer.glob("examples/*/main.py"))
    if not examples:
        raise SystemExit(f"no examples/*/main.py under {peer}")
    identical, total, lines = 0, 0, []
    for example in examples:
        name = example.parent.name
        source = example.read_text()
        for demo in demos:
            theirs_dir = work / f"{name}-{demo.stem}-demoparser2"
            ours_dir = work / f"{name}-{demo.stem}-gamewire"
            for d in (theirs_dir, ours_dir):
                d.mkdir(parents=True)
            original = with_demo(source, demo)
            (theirs_dir / "main.py").write_text(original)
            (ours_dir / "main.py").write_text(with_gamewire(original))
            t_rc, t_out, t_err = run(python, theirs_dir / "main.py", theirs_dir, timeout)
            o_rc, o_out, o_err = run(python, ours_dir / "main.py", ours_dir, timeout)
            what = f"{name} on {demo.name}"
            if t_rc != 0:
                same = o_rc != 0 and exception_type(o_err) == exception_type(t_err)
                lines.append(f"  demoparser2 fails  {what}: {last_line(t_err)[:100]}"
                             f" | gamewire {'fails the same way' if same else 'differs'}"
                             + ("" if same else f" (exit {o_rc}: {last_line(o_err)[:100]})"))
                continue
            total += 1
            if o_rc == 0 and o_out == t_out:
                identical += 1
                lines.append(f"  identical          {what}")
            else:
                lines.append(f"  DIFFERENT          {what}: exit {o_rc} "
                             f"{last_line(o_err)[:160]}")
                lines.append("    demoparser2 printed:\n" + indent(t_out))
                lines.append("    gamewire printed:\n" + indent(o_out))
    return identical, total, lines


def indent(text: str, limit: int = 30) -> str:
    rows = text.splitlines()
    shown = rows[:limit] + ([f"... ({len(rows) - limit} more lines)"] if len(rows) > limit else [])
    return "\n".join("      " + r for r in shown)


def check_signature_tests(peer: Path, demos: list[Path], python: str, timeout: float,
                          work: Path) -> tuple[bool, list[str]]:
    source_path = peer / "src/python/tests/signature_tests.py"
    if not source_path.is_file():
        raise SystemExit(f"no src/python/tests/signature_tests.py under {peer}")
    source = source_path.read_text()
    ok, lines = True, []
    for demo in demos:
        original = with_demo(source, demo)
        results = {}
        for parser, text in (("demoparser2", original), ("gamewire", with_gamewire(original))):
            d = work / f"signature-{demo.stem}-{parser}"
            d.mkdir(parents=True)
            (d / "signature_tests.py").write_text(text)
            results[parser] = run(python, d / "signature_tests.py", d, timeout)
        t_rc, _, t_err = results["demoparser2"]
        o_rc, _, o_err = results["gamewire"]
        if o_rc != 0:
            ok = False
        lines.append(f"  {'passes' if o_rc == 0 else 'FAILS '} with gamewire on {demo.name}: "
                     f"{last_line(o_err)} (demoparser2: {last_line(t_err)})")
        if o_rc != 0:
            lines.append(indent(o_err, 60))
    return ok, lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("peer", type=Path, help="a checkout of github.com/LaihoE/demoparser")
    ap.add_argument("--demo", action="append", type=Path,
                    help="a demo (default: cs2/14065, 14132, 14155 of the corpus)")
    ap.add_argument("--python", default=sys.executable,
                    help="an interpreter that imports demoparser2 and gamewire")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per run")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()
    if not args.peer.is_dir():
        print(f"not a directory: {args.peer}", file=sys.stderr)
        return 2
    demos = [d.resolve() for d in (args.demo or [corpus_root() / d for d in DEFAULT_DEMOS])]
    missing = [str(d) for d in demos if not d.is_file()]
    if missing:
        print(f"demo not found: {', '.join(missing)}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="gamewire-compat-"))
    try:
        identical, total, lines = check_examples(args.peer, demos, args.python, args.timeout,
                                                 work)
        print("demoparser2's examples (examples/*/main.py):")
        print("\n".join(lines))
        sig_ok, sig_lines = check_signature_tests(args.peer, demos, args.python, args.timeout,
                                                  work)
        print("demoparser2's signature tests (src/python/tests/signature_tests.py):")
        print("\n".join(sig_lines))
        print(f"{identical} of {total} examples identical (the example and demo pairs "
              "demoparser2 runs)")
        return 0 if identical == total and sig_ok else 1
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
