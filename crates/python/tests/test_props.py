"""`Demo.props()`: the props a demo offers (`gamewire props`), friendly names and raw paths with
their class and type, in every game; every name it lists is one `ticks` takes."""

import pandas as pd
import pytest

import gamewire
from conftest import corpus

COLUMNS = ["name", "source", "class", "path", "type"]
TYPES = {"", "bool", "int64", "uint64", "float32", "string", "list<float32>", "list<string>",
         "list<uint64>"}


@pytest.mark.parametrize("rel", ["cs2/14065.dem", "deadlock/hltv_10423.dem",
                                 "dota2/auto-20240102-2233-start.dem"])
def test_props_lists_names_that_ticks_takes(rel):
    demo = gamewire.Demo(corpus(rel))
    frame = demo.props()
    assert list(frame.columns) == COLUMNS
    assert len(frame) > 0 and frame["name"].is_unique
    assert set(frame["source"]) <= {"friendly", "raw"}
    assert set(frame["type"]) <= TYPES, set(frame["type"]) - TYPES
    raw = frame[frame["source"] == "raw"]
    assert len(raw) > 0
    assert all(n == f"{c}.{p}" for n, c, p in zip(raw["name"], raw["class"], raw["path"])
               if "<i>" not in p)
    # Names listed are names `ticks` takes: a few of each source, in one call.
    sample = [n for n in frame.groupby("source")["name"].head(5) if "<i>" not in n]
    ticks = demo.ticks(sample, ticks="1..2")
    assert list(ticks.columns[-len(sample):]) == sample
    # polars holds the same rows.
    assert demo.props(polars=True).rows() == list(frame.itertuples(index=False, name=None))


def test_props_of_one_class_and_an_unknown_class():
    demo = gamewire.Demo(corpus("cs2/14065.dem"))
    every = demo.props()
    assert {"health", "X", "yaw"} <= set(every.loc[every["source"] == "friendly", "name"])
    assert "CCSPlayerPawn.m_iHealth" in set(every["name"])
    pawn = demo.props("CCSPlayerPawn")
    assert set(pawn["class"]) == {"CCSPlayerPawn"}
    assert "CCSPlayerPawn.m_iHealth" in set(pawn["name"])
    with pytest.raises(gamewire.UnknownNameError) as e:
        demo.props("CCSPlayerPawm")
    assert "CCSPlayerPawn" in str(e.value) and len(str(e.value)) < 600
    assert isinstance(pawn, pd.DataFrame)
