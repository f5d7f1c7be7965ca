"""Shared fixtures of the gamewire Python tests.

Run from the repository root with the venv of `.ci/setup-python.sh start`:

    target/py-venv/bin/python -m pytest crates/python/tests -q

(`cargo test -p gamewire-python` does exactly that, see pytest.rs). The corpus is the directory
`GAMEWIRE_CORPUS` names (a relative value is taken from the repository root), by default
`../shared/corpus` beside the repository (read its `SOURCES.md`), as for the Rust tests
(crates/corpus); it is never copied into the repository.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
CORPUS = Path(os.path.normpath(REPO / (os.environ.get("GAMEWIRE_CORPUS") or "../shared/corpus")))

# Every Source 2 demo of the corpus with what SOURCES.md says about it:
# (path, map, network protocol, build, last tick = playback ticks).
DEMOS = [
    ("cs2/14011.dem", "cs_italy", 14011, 10072, 391),
    ("cs2/14065.dem", "de_nuke", 14065, 10231, 185),
    ("cs2/14132.dem", "de_ancient", 14132, 10679, 125),
    ("cs2/14150_ag2.dem", "de_train", 14150, 10750, 154),
    ("cs2/14155.dem", "de_dust2", 14155, 10772, 161),
    ("deadlock/hltv_10423.dem", "dl_midtown", 48, 10423, 148),
    ("dota2/auto-20240102-2233-start.dem", "start", 47, 9912, 812),
]

# The CS2 demos demoparser2 0.42.0 reads (it fails on 14011 and 14150_ag2).
DP2_DEMOS = ["cs2/14065.dem", "cs2/14132.dem", "cs2/14155.dem"]


def corpus(rel: str) -> Path:
    path = CORPUS / rel
    if not path.is_file():
        pytest.fail(f"corpus demo missing: {path} (set GAMEWIRE_CORPUS, or put the corpus at "
                    "../shared/corpus beside the repository)")
    return path


# What the demoparser2 comparison compared (filled by test_demoparser2.py), printed in the
# terminal summary so that `-q` runs (and the Rust wrapper's output) show it.
COMPARED: dict = {}


def gathered(batches: list, table: str):
    """One table's rows over the batches `gamewire.follow` yielded, as one DataFrame."""
    import pandas

    parts = [b[table] for b in batches if table in b]
    if not parts:
        return pandas.DataFrame()
    return pandas.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]


def records(frame) -> list:
    """The rows as dicts of their non-null values."""
    import pandas

    out = []
    for row in frame.to_dict("records"):
        out.append({k: v for k, v in row.items()
                    if not (v is None or v is pandas.NA or (isinstance(v, float) and v != v))})
    return out


def pytest_terminal_summary(terminalreporter):
    if COMPARED:
        terminalreporter.write_line(
            "compared with demoparser2: " + ", ".join(f"{v} {k}" for k, v in COMPARED.items()))
