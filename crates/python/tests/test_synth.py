"""Synthesized demos judged by two peers: every scenario of `examples/scenarios/` is written with
`gamewire.synth` (the built-in schema, and the schema of a CS2 corpus demo that demoparser2
reads), then read by demoparser2 0.42.0 and by awpy 3.1.1, each a parser of its own. Each peer
must agree with gamewire, and with the truth: the tables the scenario states (`[expected]`).

- demoparser2: `parse_ticks` (every player: X Y Z pitch yaw health armor_value team_num balance
  is_alive), `parse_event` (player_death, player_hurt, round_end, the bomb events, the grenade
  detonations, player_blind) and `parse_player_info`, against `Demo.ticks`, `Demo.events` and
  the `players` table.
- awpy: its `kills`, `rounds` and `damages`, against gamewire's tables of the same names, on the
  columns both have (awpy names a few differently; `SAME_AS_OURS` maps them).

The `Demo.sample()` and `gamewire.synth` API itself is checked here too (the sample is the
committed demo; a scenario with an error raises `ScenarioError` and writes no file).
"""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path

import awpy  # installed by .ci/setup-python.sh
import demoparser2
import pytest

import gamewire
from conftest import REPO, corpus

_spec = importlib.util.spec_from_file_location(
    "compare_demoparser2", REPO / "scripts" / "compare_demoparser2.py")
cmp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cmp)

LIBRARY = REPO / "examples" / "scenarios"
SCENARIOS = sorted(LIBRARY.glob("*.toml"))
# The built-in schema, and that of a corpus demo both peers read (see conftest.DP2_DEMOS).
SCHEMAS = [None, "cs2/14155.dem"]

TICK_PROPS = ["X", "Y", "Z", "pitch", "yaw", "health", "armor_value", "team_num", "balance",
              "is_alive"]
EVENTS = ["player_death", "player_hurt", "round_end", "round_start", "round_freeze_end",
          "bomb_beginplant", "bomb_abortplant", "bomb_planted", "bomb_begindefuse",
          "bomb_abortdefuse", "bomb_defused", "bomb_exploded", "bomb_dropped", "bomb_pickup",
          "hegrenade_detonate", "flashbang_detonate", "smokegrenade_detonate",
          "smokegrenade_expired", "inferno_startburn", "inferno_expire", "player_blind",
          "item_purchase"]

# awpy's column -> gamewire's column of the same meaning, per table.
SAME_AS_OURS = {
    "kills": {"tick": "tick", "attacker_name": "attacker_name", "victim_name": "victim_name",
              "assister_name": "assister_name", "attacker_steamid": "attacker_steamid",
              "victim_steamid": "victim_steamid", "headshot": "headshot",
              "penetrated": "penetrated", "noscope": "noscope", "thrusmoke": "thrusmoke",
              "assist_flash": "assistedflash", "weapon": "weapon", "hitgroup_name": "hitgroup"},
    "damages": {"tick": "tick", "attacker_name": "attacker_name", "victim_name": "victim_name",
                "attacker_steamid": "attacker_steamid", "victim_steamid": "victim_steamid",
                "dmg_health": "dmg_health", "dmg_armor": "dmg_armor", "weapon": "weapon",
                "health_post": "health", "armor_post": "armor", "hitgroup_name": "hitgroup"},
    "rounds": {"round_num": "round", "start_tick": "start_tick",
               "freeze_end_tick": "freeze_end_tick", "end_tick": "end_tick",
               "official_end_tick": "official_end_tick", "winner": "winner_team",
               "winner_side": "winner_side", "reason": "reason", "reason_name": "reason_name"},
}

COUNTS: dict = {}


def count(what: str, n: int) -> None:
    COUNTS[what] = COUNTS.get(what, 0) + n


def records(frame) -> list[dict]:
    return cmp.df_records(frame)


def truth(scenario: Path) -> dict:
    with open(scenario, "rb") as f:
        return tomllib.load(f)


@pytest.fixture(scope="module", params=[(s, schema) for s in SCENARIOS for schema in SCHEMAS],
                ids=lambda p: f"{p[0].stem}-{'builtin' if p[1] is None else Path(p[1]).stem}")
def synthesized(request, tmp_path_factory):
    scenario, schema = request.param
    out = tmp_path_factory.mktemp("synth") / f"{scenario.stem}.dem"
    report = gamewire.synth(scenario, out, schema=None if schema is None else corpus(schema))
    assert out.stat().st_size == report["bytes"]
    what = f"{scenario.stem} ({'built-in' if schema is None else schema} schema)"
    return out, gamewire.Demo(out), truth(scenario), what


# --- demoparser2 ---------------------------------------------------------------------------------

def test_demoparser2_ticks_agree_for_every_player(synthesized):
    path, demo, scenario, what = synthesized
    dp = demoparser2.DemoParser(str(path))
    ours = records(demo.ticks(TICK_PROPS))
    theirs = records(dp.parse_ticks(TICK_PROPS))
    assert ours and theirs, what
    key = ("tick", "name")
    ours_by = {tuple(r[k] for k in key): r for r in ours}
    theirs_by = {tuple(r[k] for k in key): r for r in theirs}
    assert len(ours_by) == len(ours) and len(theirs_by) == len(theirs), what
    assert set(ours_by) == set(theirs_by), (
        f"{what}: rows only gamewire has: {sorted(set(ours_by) - set(theirs_by))[:5]}, only "
        f"demoparser2 has: {sorted(set(theirs_by) - set(ours_by))[:5]}")
    names = {r["name"] for r in ours}
    assert names == {p["name"] for p in scenario["players"]}, what
    bad = []
    for k, t in theirs_by.items():
        o = ours_by[k]
        for p in TICK_PROPS + ["steamid"]:
            if not cmp.values_equal(o.get(p), t.get(p)):
                bad.append(f"tick {k[0]} {k[1]} {p}: gamewire {cmp.show(o.get(p))} vs "
                           f"demoparser2 {cmp.show(t.get(p))}")
    assert not bad, f"{what}: {len(bad)} values differ; first: {bad[:10]}"
    count("tick values", len(theirs) * (len(TICK_PROPS) + 1))


def test_demoparser2_events_agree(synthesized):
    path, demo, scenario, what = synthesized
    dp = demoparser2.DemoParser(str(path))
    listed = set(dp.list_game_events())
    assert set(demo.event_names()) == listed, what
    kills = scenario.get("expected", {}).get("kills")
    if kills is not None:
        assert ("player_death" in listed) == bool(kills), what
    for ev in EVENTS:
        if ev not in listed:
            continue
        ours = records(demo.events(ev))
        theirs = records(dp.parse_event(ev))
        assert len(ours) == len(theirs), f"{what} {ev}: {len(ours)} vs {len(theirs)} rows"
        assert [r["tick"] for r in ours] == [r["tick"] for r in theirs], f"{what} {ev}: ticks"
        common = sorted(set().union(*(r.keys() for r in ours)) &
                        set().union(*(r.keys() for r in theirs))) if ours else []
        bad = []
        for i, (o, t) in enumerate(zip(ours, theirs)):
            for c in common:
                ov, tv = o.get(c), t.get(c)
                if c.endswith("_steamid") and ov is not None:
                    ov = str(ov)
                if c == "hitgroup" and isinstance(ov, int) and not isinstance(ov, bool):
                    ov = cmp.HIT_GROUP.get(ov, str(ov))
                if not cmp.values_equal(ov, tv):
                    bad.append(f"row {i} tick {t.get('tick')} {c}: gamewire {cmp.show(ov)} vs "
                               f"demoparser2 {cmp.show(tv)}")
        assert not bad, f"{what} {ev}: {len(bad)} values differ; first: {bad[:10]}"
        count("event values", len(ours) * len(common))
    if kills:
        deaths = records(dp.parse_event("player_death"))
        assert [(r.get("attacker_name"), r["user_name"]) for r in deaths] == [
            (k.get("attacker_name"), k["victim_name"]) for k in kills], what


def test_demoparser2_player_info_agrees(synthesized):
    path, demo, scenario, what = synthesized
    dp = demoparser2.DemoParser(str(path))
    theirs = records(dp.parse_player_info())
    ours = records(demo.players())
    stated = {p["name"]: p for p in scenario["players"]}
    assert {r["name"] for r in theirs} == set(stated), what
    by_name = {r["name"]: r for r in ours}
    for r in theirs:
        o = by_name[r["name"]]
        assert str(o["steamid"]) == str(r["steamid"]), (what, r)
        assert o["team"] == r["team_number"], (what, r)
        assert int(r["steamid"]) == stated[r["name"]].get("steamid", 0), (what, r)
    count("player info rows", len(theirs))


# --- awpy ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("table", ["kills", "rounds", "damages"])
def test_awpy_tables_agree(synthesized, table):
    path, demo, scenario, what = synthesized
    theirs = records(getattr(awpy.Demo(str(path)), table))
    ours = records(getattr(demo, table)())
    stated = scenario.get("expected", {}).get(table)
    if stated is not None:
        assert len(theirs) == len(stated), f"{what} {table}: awpy {len(theirs)} rows, the " \
                                           f"scenario states {len(stated)}"
    assert len(ours) == len(theirs), f"{what} {table}: gamewire {len(ours)} vs awpy {len(theirs)}"
    bad = []
    for i, (o, t) in enumerate(zip(ours, theirs)):
        for theirs_col, ours_col in SAME_AS_OURS[table].items():
            ov, tv = o.get(ours_col), t.get(theirs_col)
            if not cmp.values_equal(ov, tv):
                bad.append(f"row {i} {theirs_col}: gamewire {cmp.show(ov)} vs awpy {cmp.show(tv)}")
    assert not bad, f"{what} {table}: {len(bad)} values differ; first: {bad[:10]}"
    count(f"awpy {table} values", len(theirs) * len(SAME_AS_OURS[table]))


# --- the API -------------------------------------------------------------------------------------

def test_sample_is_the_shipped_demo():
    demo = gamewire.Demo.sample()
    assert demo.path == "<sample>"
    assert demo.header()["map_name"] == truth(LIBRARY / "sample.toml")["map"]
    kills = demo.kills()
    assert len(kills) == len(truth(LIBRARY / "sample.toml")["expected"]["kills"])
    assert len(set(demo.players()["name"])) == 10


def test_synth_takes_text_and_writes_the_same_demo(tmp_path):
    text = (LIBRARY / "pistol_round.toml").read_text()
    a = gamewire.synth(LIBRARY / "pistol_round.toml", tmp_path / "a.dem")
    b = gamewire.synth(text, tmp_path / "b.dem")
    assert a == b
    assert (tmp_path / "a.dem").read_bytes() == (tmp_path / "b.dem").read_bytes()


def test_synth_refuses_a_bad_scenario_and_writes_nothing(tmp_path):
    text = (LIBRARY / "pistol_round.toml").read_text().replace(
        'victim = "Fir", weapon = "glock"', 'victim = "Nobody", weapon = "glock"', 1)
    assert "Nobody" in text
    out = tmp_path / "bad.dem"
    with pytest.raises(gamewire.ScenarioError) as e:
        gamewire.synth(text, out)
    assert "Nobody" in str(e.value) and "line" in str(e.value)
    assert not out.exists() and list(tmp_path.iterdir()) == []
