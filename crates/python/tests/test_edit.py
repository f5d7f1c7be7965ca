"""`Demo.cut`, `Demo.anonymize` and `Demo.rewrite`: the written demos read by demoparser2 0.42.0
(on the CS2 corpus demos it reads) hold what the input holds: every prop of the usual
`parse_ticks` call and every event of `parse_events(["all"])`, equal in the cut's range, and
equal but for the players' names and ids after anonymization."""

from __future__ import annotations

from pathlib import Path

import demoparser2  # installed by .ci/setup-python.sh
import pandas as pd
import pytest

import gamewire
from conftest import COMPARED, DP2_DEMOS, corpus
from test_demoparser2 import TICK_PROPS

COMPARED.update({"cut tick rows": 0, "cut event rows": 0, "anonymized tick rows": 0,
                 "anonymized event rows": 0})

# Event and tick columns that name or identify a player: what anonymization changes.
IDENTITY = ("name", "steamid", "xuid", "networkid", "account")


def identity(column: str) -> bool:
    return any(word in column.lower() for word in IDENTITY)


def ticks(path: Path) -> pd.DataFrame:
    frame = demoparser2.DemoParser(str(path)).parse_ticks(TICK_PROPS)
    return frame.sort_values(["tick", "steamid"], kind="stable").reset_index(drop=True)


def events(path: Path) -> dict:
    return dict(demoparser2.DemoParser(str(path)).parse_events(["all"]))


def in_range(frame: pd.DataFrame, first: int, last: int) -> pd.DataFrame:
    return frame[(frame["tick"] >= first) & (frame["tick"] <= last)].reset_index(drop=True)


@pytest.fixture(scope="module", params=DP2_DEMOS)
def source(request):
    return corpus(request.param)


@pytest.mark.parametrize("part", ["first half", "middle third", "second half"])
def test_a_cut_reads_as_its_range_of_the_demo(source, part, tmp_path):
    demo = gamewire.Demo(source)
    last = demo.header()["last_tick"]
    first, to = {"first half": (1, last // 2), "middle third": (last // 3, 2 * last // 3),
                 "second half": (last // 2, last)}[part]
    out = tmp_path / "cut.dem"
    report = demo.cut(out, first, to)
    assert (report["from_tick"], report["to_tick"]) == (first, to)
    assert report["frames_written"] > 0 and report["warnings"] == [], report
    want, got = in_range(ticks(source), first, to), in_range(ticks(out), first, to)
    assert len(want) > 0
    pd.testing.assert_frame_equal(got, want)
    assert ticks(out)["tick"].max() <= to
    COMPARED["cut tick rows"] += len(want)
    want_events, got_events = events(source), events(out)
    for name, frame in want_events.items():
        want = in_range(frame, first, to)
        if len(want) == 0:
            continue
        assert name in got_events, name
        got = in_range(got_events[name], first, to)
        pd.testing.assert_frame_equal(got, want, obj=name)
        COMPARED["cut event rows"] += len(want)


def test_an_anonymized_demo_reads_as_the_demo_but_for_names_and_ids(source, tmp_path):
    demo = gamewire.Demo(source)
    out = tmp_path / "anon.dem"
    report = demo.anonymize(out, key="a key")
    assert report["frames_written"] > 0
    want, got = ticks(source), ticks(out)
    keep = [c for c in want.columns if not identity(c)]
    assert "X" in keep and "health" in keep
    pd.testing.assert_frame_equal(got[keep], want[keep])
    COMPARED["anonymized tick rows"] += len(want)
    names = set(want["name"])
    assert names and not names & set(got["name"]), names & set(got["name"])
    want_events, got_events = events(source), events(out)
    assert set(got_events) == set(want_events)
    for name, frame in want_events.items():
        other = got_events[name]
        keep = [c for c in frame.columns if not identity(c) and c != "text"]
        pd.testing.assert_frame_equal(other[keep], frame[keep], obj=name)
        COMPARED["anonymized event rows"] += len(frame)
    # gamewire's players table: pseudonyms, the same for the same key.
    players = gamewire.Demo(out).players()
    assert not set(players["name"]) & names
    again = tmp_path / "again.dem"
    demo.anonymize(again, key="a key")
    assert list(gamewire.Demo(again).players()["name"]) == list(players["name"])


def test_a_rewrite_gives_the_same_tables(tmp_path):
    source = corpus("cs2/14155.dem")
    out = tmp_path / "rewrite.dem"
    report = gamewire.Demo(source).rewrite(out)
    assert report["frames_written"] == report["frames_read"], report
    a, b = gamewire.Demo(source), gamewire.Demo(out)
    for table in ("players", "kills", "damages"):
        pd.testing.assert_frame_equal(getattr(b, table)(), getattr(a, table)(), obj=table)
    pd.testing.assert_frame_equal(b.ticks("X,Y,Z,health"), a.ticks("X,Y,Z,health"))


def test_wrong_calls_raise_the_package_errors_and_leave_no_file(tmp_path):
    demo = gamewire.Demo(corpus("cs2/14065.dem"))
    out = tmp_path / "out.dem"
    with pytest.raises(gamewire.BadArgumentError, match="Demo.cut: give from_tick and to_tick"):
        demo.cut(out, 5)
    with pytest.raises(gamewire.BadArgumentError, match="Demo.cut: from_tick takes a tick"):
        demo.cut(out, "5", 10)
    with pytest.raises(gamewire.BadArgumentError, match="not both"):
        demo.cut(out, 5, 10, round=1)
    with pytest.raises(gamewire.BadArgumentError, match=r"the first tick \(10\) is after"):
        demo.cut(out, 10, 5)
    with pytest.raises(gamewire.BadArgumentError, match="has no round 2: it has rounds 1 to 1"):
        demo.cut(out, round=2)
    with pytest.raises(gamewire.BadArgumentError, match="needs a CS2 demo"):
        gamewire.Demo(corpus("deadlock/hltv_10423.dem")).cut(out, round=1)
    with pytest.raises(gamewire.BadArgumentError, match="Demo.anonymize: key takes"):
        demo.anonymize(out, key=5)
    with pytest.raises(gamewire.BadArgumentError, match="Demo.anonymize: keep_chat takes"):
        demo.anonymize(out, keep_chat="yes")
    with pytest.raises(OSError):
        demo.rewrite(tmp_path / "no" / "such" / "dir.dem")
    with pytest.raises(gamewire.BadArgumentError, match="cannot write a demo to"):
        demo.rewrite(tmp_path)
    assert list(tmp_path.iterdir()) == []
    # A CS2 round from the rounds table (14065 ends inside round 1, from its freeze end).
    report = demo.cut(out, round=1)
    assert (report["from_tick"], report["to_tick"]) == (142, demo.header()["last_tick"])
    assert [p.name for p in tmp_path.iterdir()] == ["out.dem"]


def test_demoparser2_reads_a_rewrite_as_the_demo(source, tmp_path):
    # Every prop demoparser2 finds updated in the demo, and every event.
    out = tmp_path / "rewrite.dem"
    gamewire.Demo(source).rewrite(out)
    want_parser, got_parser = demoparser2.DemoParser(str(source)), demoparser2.DemoParser(str(out))
    props = want_parser.list_updated_fields()
    assert len(props) > 100 and got_parser.list_updated_fields() == props
    want, got = want_parser.parse_ticks(props), got_parser.parse_ticks(props)
    assert len(want) > 0
    pd.testing.assert_frame_equal(got, want)
    COMPARED["rewritten tick values"] = COMPARED.get("rewritten tick values", 0) + want.size
    want_events, got_events = events(source), events(out)
    assert set(got_events) == set(want_events)
    for name, frame in want_events.items():
        pd.testing.assert_frame_equal(got_events[name], frame, obj=name)
