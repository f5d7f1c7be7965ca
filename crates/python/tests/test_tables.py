"""Every table and the header on every corpus demo, with their dtypes; pandas and polars agree;
the one-pass `tables()` agrees with the single-table methods."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import polars as pl
import pytest

import gamewire
from conftest import DEMOS, corpus

TICK_PROPS = ["X", "Y", "Z", "health", "armor_value", "team_num", "pitch", "yaw"]

# The dtypes a column may have: pandas' nullable Int64 / UInt64 / boolean (whether or not the
# column holds nulls), float32, object.
ALLOWED = {"Int64", "UInt64", "float32", "boolean", "object"}

# Columns every fixed-schema table has (README "Analyst tables"); the query crate may add
# more, so these are checked as a subset, in this order.
SCHEMAS = {
    "players": ["slot", "userid", "name", "steamid", "fake_player", "is_hltv", "first_tick",
                "team_num", "score", "kills_total", "deaths_total", "assists_total",
                "damage_total", "mvps", "ping", "rank"],
    "chat": ["tick", "entity_index", "name", "steamid", "text", "all_chat", "kind"],
    "grenades": ["grenade_id", "entity_index", "grenade_type", "thrower_name",
                 "thrower_steamid", "start_tick", "end_tick", "tick", "x", "y", "z"],
    "rounds": ["round", "start_tick", "freeze_end_tick", "end_tick", "official_end_tick",
               "winner", "winner_side", "reason", "reason_name", "message"],
    "kills": ["tick",
              "attacker_name", "attacker_steamid", "attacker_team",
              "victim_name", "victim_steamid", "victim_team",
              "assister_name", "assister_steamid", "assister_team",
              "weapon", "headshot", "penetrated", "wallbang", "assistedflash", "noscope",
              "thrusmoke", "attackerblind", "attackerinair", "distance", "dmg_health",
              "dmg_armor", "hitgroup"],
    "damages": ["tick", "attacker_name", "attacker_steamid", "attacker_team",
                "victim_name", "victim_steamid", "victim_team", "weapon", "dmg_health",
                "dmg_armor", "health", "armor", "hitgroup"],
    "purchases": ["tick", "name", "steamid", "team", "weapon", "loadout"],
}

DEMO_IDS = [d[0] for d in DEMOS]


@pytest.fixture(scope="module", params=DEMOS, ids=DEMO_IDS)
def demo_case(request):
    rel, *expected = request.param
    return gamewire.Demo(corpus(rel)), rel, expected


def table_of(demo: gamewire.Demo, name: str, **kw):
    if name == "ticks":
        return demo.ticks(TICK_PROPS, **kw)
    return getattr(demo, name)(**kw)


def check_dtypes(frame: pd.DataFrame) -> None:
    for col, dtype in frame.dtypes.items():
        assert str(dtype) in ALLOWED, f"column {col} has dtype {dtype}"
        if str(dtype) == "object":
            # Text, or a list column (`updated_fields.classes`, inventories): lists of
            # strings or numbers; an input history is a list of records.
            item = dict if col == "input_history" or col.endswith("usercmd_input_history") else (str, int, float)
            bad = [v for v in frame[col] if v is not None and not isinstance(v, str)
                   and not (isinstance(v, list)
                            and all(isinstance(x, item) for x in v))]
            assert not bad, f"object column {col} holds non-strings {bad[:3]}"


def test_header(demo_case):
    demo, rel, (map_name, protocol, build, last_tick) = demo_case
    h = demo.header()
    assert h["map_name"] == map_name
    assert h["network_protocol"] == protocol
    assert h["build_num"] == build
    assert h["playback_ticks"] == last_tick
    assert h["last_tick"] == last_tick
    assert h["reached_stop"] is True
    assert h["frames"] > 0
    assert h["tick_rate"] == (30.0 if rel.startswith("dota2") else 64.0)
    assert math.isclose(h["tick_interval"] * h["tick_rate"], 1.0, rel_tol=1e-6)
    assert isinstance(h["server_name"], str) and isinstance(h["demo_version_name"], str)


# Rows of `gamewire table user_commands` (CSV lines without the header) on the CS2 clips.
USER_COMMAND_ROWS = {"cs2/14011.dem": 390, "cs2/14065.dem": 184, "cs2/14155.dem": 160}


def test_user_commands_are_those_of_the_command_line(demo_case):
    demo, rel, _ = demo_case
    if rel in USER_COMMAND_ROWS:
        frame = demo.user_commands()
        assert len(frame) == USER_COMMAND_ROWS[rel]
        assert isinstance(frame["input_history"].dropna().iloc[0], list)


@pytest.mark.parametrize("name", gamewire.TABLES)
def test_every_table(demo_case, name):
    demo, rel, _ = demo_case
    frame = table_of(demo, name)
    assert isinstance(frame, pd.DataFrame)
    check_dtypes(frame)
    assert frame.columns.is_unique
    if name in SCHEMAS:
        cols = list(frame.columns)
        missing = [c for c in SCHEMAS[name] if c not in cols]
        assert not missing, f"{name} lacks {missing}"
        assert sorted(SCHEMAS[name], key=cols.index) == SCHEMAS[name], f"{name} order"
    if name == "ticks":
        assert list(frame.columns) == ["tick", "slot", "steamid", "name"] + TICK_PROPS
        assert str(frame["steamid"].dtype) == "UInt64"
        if len(frame):  # no player rows (Deadlock, Dota 2): no values to type the props by
            for c in ("X", "Y", "Z", "pitch", "yaw"):
                assert frame[c].dtype == np.float32
        if rel.startswith("cs2"):
            assert frame["tick"].is_monotonic_increasing
            assert frame["yaw"].dropna().between(-180, 180).all()
    if name == "events":
        assert list(frame.columns[:2]) == ["event_name", "tick"]
        assert sorted(set(frame["event_name"])) == demo.event_names()
    if name == "players":
        assert len(frame) > 0
        assert str(frame["steamid"].dtype) == "UInt64"


def test_tables_in_one_pass_equal_single_calls(demo_case):
    demo, _, _ = demo_case
    everything = demo.tables(props=TICK_PROPS)
    assert list(everything) == list(gamewire.TABLES)
    for name in gamewire.TABLES:
        single = table_of(demo, name)
        if name == "events":
            single = demo.events(props=TICK_PROPS)
        pd.testing.assert_frame_equal(everything[name], single, obj=name)


def polars_rows(frame: pl.DataFrame) -> list[dict]:
    return frame.to_dicts()


def pandas_rows(frame: pd.DataFrame) -> list[dict]:
    out = []
    for r in frame.astype(object).to_dict("records"):
        row = {}
        for k, v in r.items():
            if v is pd.NA or (isinstance(v, float) and math.isnan(v)):
                v = None
            elif hasattr(v, "item"):
                v = v.item()
            row[k] = v
        out.append(row)
    return out


@pytest.mark.parametrize("name", gamewire.TABLES)
def test_polars_equals_pandas(demo_case, name):
    demo, _, _ = demo_case
    pdf = table_of(demo, name)
    plf = table_of(demo, name, polars=True)
    assert isinstance(plf, pl.DataFrame)
    assert plf.columns == list(pdf.columns)
    kinds = {"Int64": pl.Int64, "UInt64": pl.UInt64, "float32": pl.Float32,
             "boolean": pl.Boolean, "object": pl.String}
    for col, dtype in pdf.dtypes.items():
        if isinstance(plf.schema[col], pl.List):  # vectors, inventories: lists in an object column
            assert str(dtype) == "object", col
            continue
        assert plf.schema[col] == kinds[str(dtype)], col
    assert polars_rows(plf) == pandas_rows(pdf)


def test_set_polars_switches_the_default():
    demo = gamewire.Demo(corpus("cs2/14065.dem"))
    try:
        gamewire.set_polars(True)
        assert isinstance(demo.rounds(), pl.DataFrame)
        assert isinstance(demo.rounds(polars=False), pd.DataFrame)
    finally:
        gamewire.set_polars(False)
    assert isinstance(demo.rounds(), pd.DataFrame)


def test_nullable_columns():
    # 14065 has one round_freeze_end and no round_start: the round's start and end are null.
    rounds = gamewire.Demo(corpus("cs2/14065.dem")).rounds()
    assert len(rounds) == 1
    assert str(rounds["start_tick"].dtype) == "Int64"
    assert rounds["start_tick"].isna().all()
    assert rounds["freeze_end_tick"].tolist() == [142]
    assert rounds["winner_side"].tolist() == [None]
    prl = gamewire.Demo(corpus("cs2/14065.dem")).rounds(polars=True)
    assert prl["start_tick"].null_count() == 1 and prl["freeze_end_tick"].to_list() == [142]


def test_ticks_filters():
    demo = gamewire.Demo(corpus("cs2/14155.dem"))
    full = demo.ticks(["X", "health"])
    some = demo.ticks(["X", "health"], ticks=[10, 20, 99999])
    assert sorted(set(some["tick"])) == [10, 20]
    pd.testing.assert_frame_equal(
        some, full[full["tick"].isin([10, 20])].reset_index(drop=True))
    steamid = int(full["steamid"].dropna().iloc[0])
    mine = full[full["steamid"] == steamid].reset_index(drop=True)
    pd.testing.assert_frame_equal(demo.ticks(["X", "health"], players=[steamid]), mine)
    pd.testing.assert_frame_equal(demo.ticks(["X", "health"], players=str(steamid)), mine)
    assert len(demo.ticks(["X"], players=[1])) == 0
    assert set(demo.ticks("health", ticks=5)["tick"]) == {5}


def test_ticks_take_ints_lists_ranges_and_the_command_lines_text():
    demo = gamewire.Demo(corpus("cs2/14155.dem"))
    full = demo.ticks(["health"])

    def rows(ticks):
        return full[full["tick"].isin(ticks)].reset_index(drop=True)

    for ticks, want in [
        (7, [7]),
        ([7, 9], [7, 9]),
        (range(100, 110), list(range(100, 110))),
        (range(100, 110, 3), [100, 103, 106, 109]),
        ("100..109", list(range(100, 110))),
        ("5, 100..102", [5, 100, 101, 102]),
        (" 5 ,100..102 ", [5, 100, 101, 102]),
        ([5, "100..102"], [5, 100, 101, 102]),
        (np.int64(7), [7]),
        (np.array([7, 9]), [7, 9]),
    ]:
        pd.testing.assert_frame_equal(demo.ticks(["health"], ticks=ticks), rows(want),
                                      obj=repr(ticks))


def test_names_take_one_name_a_list_or_the_command_lines_text():
    demo = gamewire.Demo(corpus("cs2/14155.dem"))
    want = demo.ticks(["X", "health"], ticks=5)
    for props in ("X,health", " X , health ", ["X", "health"], ("X", "health"), ["X, health"]):
        pd.testing.assert_frame_equal(demo.ticks(props, ticks=5), want, obj=repr(props))


def test_vectors_angles_and_inventories_are_lists():
    demo = gamewire.Demo(corpus("cs2/14065.dem"))
    props = ["CCSPlayerPawn.m_angEyeAngles", "aim_punch_angle", "pitch", "yaw"]
    frame = demo.ticks(props)
    assert len(frame) == 185
    assert str(frame["aim_punch_angle"].dtype) == "object"
    for angles, pitch, yaw in zip(frame["CCSPlayerPawn.m_angEyeAngles"], frame["pitch"],
                                  frame["yaw"]):
        assert isinstance(angles, list) and len(angles) == 3
        assert angles[:2] == [pytest.approx(pitch), pytest.approx(yaw)]
    assert all(v == [0.0, 0.0, 0.0] for v in frame["aim_punch_angle"])
    inventory = demo.ticks(["inventory"])["inventory"]
    assert all(v == ["knife_t", "Glock-18", "C4 Explosive"] for v in inventory)
    assert demo.ticks(["inventory"], polars=True).schema["inventory"] == pl.List(pl.String)
    ids = demo.ticks(["inventory_as_ids"])["inventory_as_ids"]
    assert all(v == [59, 4, 49] for v in ids)
    assert demo.ticks(["inventory_as_ids"], polars=True).schema["inventory_as_ids"] == \
        pl.List(pl.UInt64)
    plf = demo.ticks(props, polars=True)
    assert plf.schema["aim_punch_angle"] == pl.List(pl.Float32)
    assert plf["CCSPlayerPawn.m_angEyeAngles"].to_list() == [
        pytest.approx(v) for v in frame["CCSPlayerPawn.m_angEyeAngles"]]


def test_user_command_input_history_is_a_list_of_dicts():
    # 14150_ag2 (which demoparser2 cannot read) carries one command per tick for its player.
    demo = gamewire.Demo(corpus("cs2/14150_ag2.dem"))
    frame = demo.ticks(["usercmd_input_history", "usercmd_viewangle_y", "yaw"])
    history = frame["usercmd_input_history"]
    assert history.iloc[0] is None  # no command before the first row
    entries = [e for h in history.iloc[1:] for e in h]
    assert entries and all(set(e) == {"x", "y", "z", "render_tick_count", "render_tick_fraction",
                                      "player_tick_count", "player_tick_fraction"}
                           for e in entries)
    # The client's render ticks only move forward; the last entry's yaw is the command's.
    ticks = [e["render_tick_count"] for e in entries]
    assert ticks == sorted(ticks) and ticks[-1] > ticks[0]
    for h, yaw in zip(history.iloc[1:], frame["usercmd_viewangle_y"].iloc[1:]):
        assert h[-1]["y"] == pytest.approx(yaw, abs=1e-3)
    plf = demo.ticks(["usercmd_input_history"], polars=True)
    assert isinstance(plf.schema["usercmd_input_history"], pl.List)
    assert plf["usercmd_input_history"].to_list()[1:] == list(history.iloc[1:])


def test_events_with_player_and_game_props():
    # 14011 (a bot match) has 3 player_hurt events, between bots: the player columns are
    # filled for bots too (steam id 0).
    demo = gamewire.Demo(corpus("cs2/14011.dem"))
    hurt = demo.events("player_hurt", props=["X", "health"],
                       other=["total_rounds_played", "game_time"])
    assert len(hurt) == 3
    assert set(hurt["event_name"]) == {"player_hurt"}
    for col in ("userid", "attacker", "attacker_name", "attacker_steamid", "attacker_X",
                "attacker_health", "user_name", "user_steamid", "user_X", "user_health",
                "dmg_health", "hitgroup", "total_rounds_played", "game_time"):
        assert col in hurt.columns, col
    assert str(hurt["user_steamid"].dtype) == "UInt64"
    assert hurt["user_name"].notna().all() and hurt["attacker_name"].notna().all()
    assert hurt["hitgroup"].tolist() == ["chest", "chest", "chest"]
    assert hurt["game_time"].dtype == np.float32
    check_dtypes(hurt)
    # Same rows as the damages table.
    assert hurt["tick"].tolist() == demo.damages()["tick"].tolist()
    # A list of names.
    two = demo.events(["player_hurt", "player_footstep"])
    assert set(two["event_name"]) <= {"player_hurt", "player_footstep"}
    pd.testing.assert_frame_equal(demo.events("player_hurt, player_footstep"), two)


def test_demo_attributes():
    demo = gamewire.Demo(corpus("cs2/14065.dem"))
    assert demo.path.endswith("14065.dem")
    assert demo.size == corpus("cs2/14065.dem").stat().st_size
    assert "14065.dem" in repr(demo)
    assert gamewire.__version__
    # A str works as well as a pathlib.Path.
    assert gamewire.Demo(str(corpus("cs2/14065.dem"))).header()["map_name"] == "de_nuke"
