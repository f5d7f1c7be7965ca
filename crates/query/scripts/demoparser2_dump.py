#!/usr/bin/env python3
"""demoparser2's events and ticks of one demo as JSON, for crates/query/tests/demoparser2.rs.

Usage: demoparser2_dump.py DEMO PLAYER_PROPS OTHER_PROPS TICK_PROPS

PLAYER_PROPS, OTHER_PROPS and TICK_PROPS are comma-separated prop names. Prints one JSON object:

    {"events": [{"name": NAME, "columns": [...], "dtypes": [...], "rows": [[...], ...]}, ...],
     "ticks": {"columns": [...], "dtypes": [...], "rows": [[...], ...]}}

with one entry per event name demoparser2 lists (`list_game_events()`), each from
`parse_event(NAME, player=PLAYER_PROPS, other=OTHER_PROPS)`, and the ticks from
`parse_ticks(TICK_PROPS)`. Values are plain JSON: NaN/None/NA become null, numpy scalars become
numbers and booleans. `server_cvar` rows are de-triangulated as in
scripts/compare_demoparser2.py (demoparser2 0.42.0 repeats the convars of one message, see that
script's documentation); the event is left out if its rows do not have that shape.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def detriangulate_fn():
    spec = importlib.util.spec_from_file_location(
        "compare_demoparser2", REPO / "scripts" / "compare_demoparser2.py"
    )
    if spec is None or spec.loader is None:
        raise SystemExit("cannot load scripts/compare_demoparser2.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.detriangulate


def plain(v):
    if v is None:
        return None
    try:
        import pandas as pd  # noqa: PLC0415

        if v is pd.NA or v is pd.NaT:
            return None
    except ImportError:
        pass
    if hasattr(v, "item") and not isinstance(v, (list, dict, str, bytes)):
        try:
            v = v.item()
        except (ValueError, AttributeError):
            pass
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def records(df) -> tuple[list[str], list[str], list[dict]]:
    """Column names, their pandas dtypes (`int32`, `float32`, `bool`, `str`, ...), rows."""
    if isinstance(df, list):  # demoparser2 returns [] when there is nothing
        return [], [], []
    cols = [str(c) for c in df.columns]
    dtypes = [str(df[c].dtype) for c in df.columns]
    rows = [{str(k): plain(v) for k, v in r.items()} for r in df.to_dict("records")]
    return cols, dtypes, rows


def main() -> int:
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    from demoparser2 import DemoParser  # noqa: PLC0415

    demo, player, other, tick_props = sys.argv[1:]
    split = lambda s: [p for p in s.split(",") if p]  # noqa: E731
    parser = DemoParser(demo)
    out: dict = {"events": []}
    for name in parser.list_game_events():
        cols, dtypes, rows = records(
            parser.parse_event(name, player=split(player), other=split(other))
        )
        if name == "server_cvar":
            fixed = detriangulate_fn()(rows)
            if fixed is None:
                continue
            rows = fixed
        out["events"].append(
            {
                "name": name,
                "columns": cols,
                "dtypes": dtypes,
                "rows": [[r.get(c) for c in cols] for r in rows],
            }
        )
    cols, dtypes, rows = records(parser.parse_ticks(split(tick_props)))
    out["ticks"] = {
        "columns": cols,
        "dtypes": dtypes,
        "rows": [[r.get(c) for c in cols] for r in rows],
    }
    json.dump(out, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
