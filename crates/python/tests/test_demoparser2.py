"""gamewire's Python API against demoparser2 0.42.0 on the CS2 corpus demos it can read
(14065, 14132, 14155; it fails on 14011 and 14150_ag2, see ../shared/corpus/SOURCES.md).

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


def test_parse_ticks_equal_row_by_row(pair):
    ours_df, dp, rel = pair
    ours = records(ours_df.parse_ticks(TICK_PROPS))
    theirs = records(dp.parse_ticks(TICK_PROPS))
    assert ours, f"{rel}: no tick rows"
    # Same rows in the same order: (tick, steamid) row by row.
    assert [(r["tick"], r["steamid"]) for r in ours] == [(r["tick"], r["steamid"]) for r in theirs]
    n = compare_rows(ours, theirs, TICK_PROPS + ["tick", "steamid", "name"], f"{rel} ticks")
    COUNTS["tick rows"] += len(ours)
    COUNTS["tick values"] += n


def test_parse_ticks_with_filters_equal(pair):
    ours_df, dp, rel = pair
    ticks = [1, 2, 50, 100, 120]
    ours = records(ours_df.parse_ticks(TICK_PROPS, ticks=ticks))
    theirs = records(dp.parse_ticks(TICK_PROPS, ticks=ticks))
    assert ours
    compare_rows(ours, theirs, TICK_PROPS + ["tick", "steamid", "name"], f"{rel} ticks filtered")
    steamid = ours[0]["steamid"]
    ours = records(ours_df.parse_ticks(["health"], players=[steamid]))
    theirs = records(dp.parse_ticks(["health"], players=[steamid]))
    compare_rows(ours, theirs, ["health", "tick", "steamid"], f"{rel} ticks of one player")


def test_list_game_events_equal(pair):
    ours_df, dp, rel = pair
    ours = ours_df.list_game_events()
    assert ours == sorted(set(dp.list_game_events())), rel
    COUNTS["event names"] += len(ours)


def test_parse_event_equal_for_every_listed_event(pair):
    ours_df, dp, rel = pair
    for ev in dp.list_game_events():
        for other in ([], OTHER_PROPS):
            theirs = records(dp.parse_event(ev, other=other) if other else dp.parse_event(ev))
            if ev == "server_cvar":
                fixed = cmp.detriangulate(theirs)
                assert fixed is not None, f"{rel} server_cvar: not demoparser2 0.42.0's shape"
                theirs = fixed
            ours = records(ours_df.parse_event(ev, other=other))
            what = f"{rel} {ev}" + (" with other props" if other else "")
            assert len(ours) == len(theirs), f"{what}: {len(ours)} vs {len(theirs)} rows"
            ours_cols = set().union(*(r.keys() for r in ours)) if ours else set()
            their_cols = set().union(*(r.keys() for r in theirs)) if theirs else set()
            only_theirs = their_cols - ours_cols
            assert not (ours and only_theirs), f"{what}: columns only in demoparser2: {only_theirs}"
            # Ours only: the event's keys demoparser2 drops never appear here (the query drops
            # them too); round_time, which demoparser2 silently leaves out, may.
            assert not (ours_cols - their_cols) & cmp.DP2_DROPPED_KEYS, what
            assert [r["tick"] for r in ours] == [r["tick"] for r in theirs], f"{what}: ticks differ"
            n = compare_rows(ours, theirs, sorted(ours_cols & their_cols), what)
            if not other:
                COUNTS["event rows"] += len(ours)
            COUNTS["event values"] += n


def test_parse_events_all_equal(pair):
    ours_df, dp, rel = pair
    ours = dict(ours_df.parse_events(["all"]))
    # demoparser2's "all" adds events it synthesizes from entity state (round_start,
    # round_end, player_first_connect) that its own list_game_events does not list; the
    # comparison covers the game events both list.
    listed = set(dp.list_game_events())
    theirs = {k: v for k, v in dp.parse_events(["all"]) if k in listed}
    assert set(ours) == listed, rel
    for ev, frame in theirs.items():
        t = records(frame)
        if ev == "server_cvar":
            t = cmp.detriangulate(t)
        o = records(ours[ev])
        common = sorted(set(o[0]) & set(t[0])) if o and t else []
        compare_rows(o, t, common, f"{rel} parse_events {ev}")


def test_list_updated_fields_equal(pair):
    """`list_updated_fields()` against demoparser2's: the same names, but for the differences
    scripts/compare_demoparser2.py explains (how demoparser2 tells weapon classes by their
    text), checked against the classes of `updated_fields()`."""
    ours_df, dp, rel = pair
    names = ours_df.list_updated_fields()
    assert names == sorted(names) and len(names) > 500, rel
    frame = ours_df.updated_fields()
    assert list(frame["name"]) == names
    ours = dict(zip(frame["name"], frame["classes"]))
    theirs = set(dp.list_updated_fields())
    explained, unexplained = cmp.updated_fields_differences(ours, theirs)
    assert not unexplained, f"{rel}: {unexplained[:10]}"
    assert len(explained) < 20, rel
    COUNTS["updated field names"] = COUNTS.get("updated field names", 0) + len(names)


def test_every_demoparser2_player_prop_equal(pair):
    """Every demoparser2 player prop name gamewire reads (scripts/compare_demoparser2.py's
    EVERY_TICK_PROP, the exceptions and their reasons in its NOT_COMPARED and
    PEER_EMPTY_FIRST_ROWS) through `parse_ticks`, in one call on each side: the same rows, every
    value equal, and null where demoparser2 has no column (a field this game build lacks)."""
    ours_df, dp, rel = pair
    props = [p for p in cmp.EVERY_TICK_PROP if p not in cmp.NOT_COMPARED]
    assert len(props) > 200
    ours = records(ours_df.parse_ticks(props))
    theirs_df = dp.parse_ticks(props)
    theirs = records(theirs_df)
    assert [(r["tick"], r["steamid"]) for r in ours] == [(r["tick"], r["steamid"]) for r in theirs]
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


@pytest.mark.parametrize("states", [{"is_alive": True}, {"health": 100},
                                    {"is_alive": True, "health": 100}, {"health": 50}])
def test_parse_ticks_prop_states_equal(pair, states):
    """`prop_states` keeps the rows where every prop has its value, as demoparser2 does.
    (demoparser2 0.42.0 also compares the value's type: `team_num`, an unsigned field, never
    equals a Python int there, so it keeps no row; and with two states, one of them also a
    wanted prop, it gives that prop's column as null: the props asked for here are not states.
    gamewire compares values, see test_parse_ticks_prop_states_compare_values.)"""
    ours_df, dp, rel = pair
    props = ["X", "yaw"]
    ours = records(ours_df.parse_ticks(
        props, prop_states=[gamewire.WantedPropState(k, v) for k, v in states.items()]))
    theirs = records(dp.parse_ticks(
        props, prop_states=[demoparser2.WantedPropState(k, v) for k, v in states.items()]))
    # A dict and (prop, value) pairs say the same.
    assert records(ours_df.parse_ticks(props, prop_states=states)) == ours
    assert records(ours_df.parse_ticks(props, prop_states=list(states.items()))) == ours
    compare_rows(ours, theirs, props + ["tick", "steamid", "name"], f"{rel} {states}")
    assert all(set(r) == set(props + ["tick", "steamid", "name"]) for r in ours)
    every = records(ours_df.parse_ticks(props))
    if states == {"is_alive": True}:
        assert len(ours) == len(every)
    if states == {"health": 50}:
        assert ours == []
    polars = ours_df.parse_ticks(props, prop_states=states, polars=True)
    assert polars.columns == props + ["tick", "steamid", "name"]
    assert len(polars) == len(ours)


def test_parse_ticks_prop_states_compare_values():
    demo = gamewire.Demo(str(corpus("cs2/14065.dem")))
    every = demo.parse_ticks(["X", "team_num"])
    assert set(every["team_num"]) == {2}
    team = demo.parse_ticks(["X"], prop_states={"team_num": 2})
    assert list(team.columns) == ["X", "tick", "steamid", "name"]
    assert len(team) == len(every)
    # A state prop that is also asked for stays a column, with its values.
    both = demo.parse_ticks(["X", "team_num"], prop_states={"team_num": 2, "is_alive": True})
    assert both.equals(every)
    assert len(demo.parse_ticks(["X"], prop_states={"team_num": 3})) == 0
    # A null never equals a value: a raw prop the pawn lacks keeps no row.
    assert len(demo.parse_ticks(["X"], prop_states={"stamina": 0.0})) == 0
    with pytest.raises(TypeError, match="WantedPropState"):
        demo.parse_ticks(["X"], prop_states=["team_num"])
