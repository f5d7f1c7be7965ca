"""The values of `gamewire.Demo`'s tables against demoparser2 0.42.0 on the CS2 corpus demos it
can read (14065, 14132, 14155; it fails on 14011 and 14150_ag2, see ../shared/corpus/SOURCES.md).
`gamewire.compat` (tests in test_compat*.py) answers with demoparser2's names and shapes; here
`Demo`'s own calls are checked to hold the same values, row by row on the keys both have.

The semantics are those of scripts/compare_demoparser2.py (the CLI-level comparison), whose
helpers are imported here: values equal when both are null, ints exactly, floats within 1e-3;
`server_cvar` rows of demoparser2 are de-triangulated first (its 0.42.0 duplication bug);
event keys demoparser2 drops are not expected; `hitgroup` is a name on both sides. The one
difference of the Python API: steam ids are uint64 here and strings in demoparser2's events,
so `*_steamid` event values are compared as strings.
"""

from __future__ import annotations

import importlib.util

import demoparser2  # installed by .ci/setup-python.sh
import pytest

import gamewire
from conftest import COMPARED, DP2_DEMOS, REPO, corpus


_spec = importlib.util.spec_from_file_location(
    "compare_demoparser2", REPO / "scripts" / "compare_demoparser2.py")
cmp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cmp)

TICK_PROPS = cmp.TICK_PROPS  # X, Y, Z, health, armor_value, team_num, pitch, yaw
OTHER_PROPS = ["total_rounds_played", "is_bomb_planted", "is_bomb_dropped", "is_freeze_period",
               "is_warmup_period", "is_match_started", "game_phase", "round_win_status",
               "round_win_reason", "round_start_time", "game_time"]

# Counts of what was compared, shown in pytest's terminal summary (see conftest.py).
COUNTS = COMPARED
COUNTS.update({"tick rows": 0, "tick values": 0, "event rows": 0, "event values": 0,
               "event names": 0})


@pytest.fixture(scope="module", params=DP2_DEMOS)
def pair(request):
    path = str(corpus(request.param))
    return gamewire.Demo(path), demoparser2.DemoParser(path), request.param


def records(frame) -> list[dict]:
    return cmp.df_records(frame)


def compare_rows(ours: list[dict], theirs: list[dict], columns, what: str) -> int:
    """Row i of ours against row i of theirs on `columns`; returns the values compared."""
    assert len(ours) == len(theirs), f"{what}: {len(ours)} rows vs demoparser2 {len(theirs)}"
    bad = []
    n = 0
    for i, (o, t) in enumerate(zip(ours, theirs)):
        for c in columns:
            ov, tv = o.get(c), t.get(c)
            if c.endswith("_steamid") and ov is not None:
                ov = str(ov)
            if c == "hitgroup" and isinstance(ov, int) and not isinstance(ov, bool):
                ov = cmp.HIT_GROUP.get(ov, str(ov))
            n += 1
            if not cmp.values_equal(ov, tv):
                bad.append(f"row {i} tick {t.get('tick')} {c}: gamewire {cmp.show(ov)} "
                           f"vs demoparser2 {cmp.show(tv)}")
    assert not bad, f"{what}: {len(bad)} values differ; first: {bad[:10]}"
    return n


def keyed(rows: list[dict], keys=("tick", "steamid")) -> dict:
    return {tuple(r[k] for k in keys): r for r in rows}


def compare_ticks(ours_rows: list[dict], theirs_rows: list[dict], columns, what: str) -> int:
    """demoparser2's rows, each against ours of the same (tick, steam id): ours may hold more
    rows (gamewire's have a row per player slot, bots included)."""
    ours = keyed(ours_rows)
    missing = [k for k in keyed(theirs_rows) if k not in ours]
    assert not missing, f"{what}: rows of demoparser2 not in gamewire's: {missing[:5]}"
    matched = [ours[(r["tick"], r["steamid"])] for r in theirs_rows]
    return compare_rows(matched, theirs_rows, columns, what)


def test_ticks_equal_row_by_row(pair):
    demo, dp, rel = pair
    ours = records(demo.ticks(TICK_PROPS))
    theirs = records(dp.parse_ticks(TICK_PROPS))
    assert ours and theirs, f"{rel}: no tick rows"
    n = compare_ticks(ours, theirs, TICK_PROPS + ["tick", "steamid", "name"], f"{rel} ticks")
    COUNTS["tick rows"] += len(theirs)
    COUNTS["tick values"] += n


def test_ticks_with_filters_equal(pair):
    demo, dp, rel = pair
    ticks = [1, 2, 50, 100, 120]
    ours = records(demo.ticks(TICK_PROPS, ticks=ticks))
    theirs = records(dp.parse_ticks(TICK_PROPS, ticks=ticks))
    assert ours
    compare_ticks(ours, theirs, TICK_PROPS + ["tick", "steamid", "name"], f"{rel} ticks filtered")
    steamid = theirs[0]["steamid"]
    ours = records(demo.ticks(["health"], players=[steamid]))
    theirs = records(dp.parse_ticks(["health"], players=[steamid]))
    compare_rows(ours, theirs, ["health", "tick", "steamid"], f"{rel} ticks of one player")


def test_event_names_equal(pair):
    demo, dp, rel = pair
    ours = demo.event_names()
    assert ours == sorted(set(dp.list_game_events())), rel
    COUNTS["event names"] += len(ours)


def test_events_equal_for_every_listed_event(pair):
    demo, dp, rel = pair
    for ev in dp.list_game_events():
        for other in ([], OTHER_PROPS):
            theirs = records(dp.parse_event(ev, other=other) if other else dp.parse_event(ev))
            if ev == "server_cvar":
                fixed = cmp.detriangulate(theirs)
                assert fixed is not None, f"{rel} server_cvar: not demoparser2 0.42.0's shape"
                theirs = fixed
            ours = records(demo.events(ev, other=other))
            what = f"{rel} {ev}" + (" with other props" if other else "")
            assert len(ours) == len(theirs), f"{what}: {len(ours)} vs {len(theirs)} rows"
            ours_cols = set().union(*(r.keys() for r in ours)) if ours else set()
            their_cols = set().union(*(r.keys() for r in theirs)) if theirs else set()
            assert [r["tick"] for r in ours] == [r["tick"] for r in theirs], f"{what}: ticks differ"
            # The values of the columns both have (the event's keys, the game-wide props, the
            # player names and steam ids).
            common = sorted(ours_cols & their_cols)
            assert not theirs or "tick" in common
            n = compare_rows(ours, theirs, common, what)
            if not other:
                COUNTS["event rows"] += len(ours)
            COUNTS["event values"] += n


def test_updated_field_names_equal(pair):
    """The names of `updated_fields()` against demoparser2's `list_updated_fields`: the same
    names, but for the differences scripts/compare_demoparser2.py explains (how demoparser2
    tells weapon classes by their text), checked against the classes of `updated_fields()`."""
    demo, dp, rel = pair
    frame = demo.updated_fields()
    names = list(frame["name"])
    assert names == sorted(names) and len(names) > 500, rel
    ours = dict(zip(frame["name"], frame["classes"]))
    theirs = set(dp.list_updated_fields())
    explained, unexplained = cmp.updated_fields_differences(ours, theirs)
    assert not unexplained, f"{rel}: {unexplained[:10]}"
    assert len(explained) < 20, rel
    COUNTS["updated field names"] = COUNTS.get("updated field names", 0) + len(names)


def test_every_demoparser2_player_prop_equal(pair):
    """Every demoparser2 player prop name gamewire reads (scripts/compare_demoparser2.py's
    EVERY_TICK_PROP, the exceptions and their reasons in its NOT_COMPARED and
    PEER_EMPTY_FIRST_ROWS) through `ticks`, in one call on each side: every value equal on the
    rows both have, and null where demoparser2 has no column (a field this game build lacks)."""
    demo, dp, rel = pair
    props = [p for p in cmp.EVERY_TICK_PROP if p not in cmp.NOT_COMPARED]
    assert len(props) > 200
    ours_all = keyed(records(demo.ticks(props)))
    theirs_df = dp.parse_ticks(props)
    theirs = records(theirs_df)
    ours = [ours_all[(r["tick"], r["steamid"])] for r in theirs]
    bad, n = [], 0
    for p in props:
        for i, (o, t) in enumerate(zip(ours, theirs)):
            if p not in theirs_df.columns:
                ok = cmp.norm(o.get(p)) is None
            elif p in cmp.PEER_EMPTY_FIRST_ROWS and cmp.norm(t.get(p)) is None:
                continue
            elif p in cmp.JSON_PROPS:
                # Lists of dicts on both sides; null before the first command (demoparser2: []).
                ok = cmp.values_equal(o.get(p) if o.get(p) is not None else [], t.get(p))
            else:
                ok = cmp.values_equal(o.get(p), t.get(p))
            n += 1
            if not ok:
                bad.append(f"row {i} tick {t.get('tick')} {p}: gamewire {cmp.show(o.get(p))} vs "
                           f"demoparser2 {cmp.show(t.get(p)) if p in theirs_df.columns else '-'}")
    assert not bad, f"{rel}: {len(bad)} values differ; first: {bad[:10]}"
    COUNTS["every-prop values"] = COUNTS.get("every-prop values", 0) + n
