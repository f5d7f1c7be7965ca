"""`gamewire loop` read by demoparser2 0.42.0 and by `gamewire.Demo`: on the CS2 corpus demos
demoparser2 reads, each repeat of a looped demo holds, ticks moved by the repeat's shift, what
the demo holds: every prop of the usual `parse_ticks` call and every event of
`parse_events(["all"])` for demoparser2, the `ticks` table and the events for gamewire; and the
two readers agree on the looped demo's rows and positions.

The loop is written by the `gamewire` command line (the package has no loop call), the binary
cargo builds beside this tree (`target/debug` or `target/release`, or `GAMEWIRE_BIN`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import demoparser2  # installed by .ci/setup-python.sh
import pandas as pd
import pytest

import gamewire
from conftest import COMPARED, DP2_DEMOS, REPO, corpus
from test_demoparser2 import TICK_PROPS

COMPARED.update({"looped tick rows": 0, "looped event rows": 0})

TIMES = 3


def gamewire_bin() -> Path:
    given = os.environ.get("GAMEWIRE_BIN")
    candidates = [Path(given)] if given else [REPO / "target" / p / "gamewire"
                                              for p in ("debug", "release")]
    found = [p for p in candidates if p.is_file()]
    if not found:
        pytest.fail(f"no gamewire binary in {[str(p) for p in candidates]}: "
                    "run `cargo build -p gamewire-cli` (or set GAMEWIRE_BIN)")
    return max(found, key=lambda p: p.stat().st_mtime)


def ticks(path: Path) -> pd.DataFrame:
    frame = demoparser2.DemoParser(str(path)).parse_ticks(TICK_PROPS)
    return frame.sort_values(["tick", "steamid"], kind="stable").reset_index(drop=True)


def events(path: Path) -> dict:
    return dict(demoparser2.DemoParser(str(path)).parse_events(["all"]))


def repeat(frame: pd.DataFrame, first: int, last: int, shift: int) -> pd.DataFrame:
    """The rows of ticks first+shift..last+shift, their ticks moved back by shift."""
    rows = frame[(frame["tick"] >= first + shift) & (frame["tick"] <= last + shift)].copy()
    rows["tick"] = rows["tick"] - shift
    return rows.reset_index(drop=True)


def in_range(frame: pd.DataFrame, first: int, last: int) -> pd.DataFrame:
    return repeat(frame, first, last, 0)


@pytest.fixture(scope="module", params=DP2_DEMOS)
def looped(request, tmp_path_factory):
    source = corpus(request.param)
    out = tmp_path_factory.mktemp("loop") / "looped.dem"
    run = subprocess.run([str(gamewire_bin()), "loop", str(source), str(out),
                          "--times", str(TIMES)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert f"{TIMES} repeats of " in run.stderr, run.stderr
    return source, out


def span_of(source: Path) -> tuple[int, int, int]:
    """The demo's first and last tick and the ticks of one repeat."""
    frame = ticks(source)
    first, last = int(frame["tick"].min()), gamewire.Demo(source).header()["last_tick"]
    return first, last, last - first + 1


def test_demoparser2_reads_every_repeat_as_the_demo(looped):
    source, out = looped
    first, last, span = span_of(source)
    want, got = in_range(ticks(source), first, last), ticks(out)
    assert len(want) > 0
    assert int(got["tick"].max()) == last + (TIMES - 1) * span
    # demoparser2 makes a row of every player after each entity message of a tick. A later
    # repeat's head deletes the entities the previous repeat left in one message and creates
    # the first tick's in the next: in between, the players have no pawn, and demoparser2
    # reports one row of nulls for each at that tick. Those rows, and no others, are dropped.
    props = [c for c in TICK_PROPS if c in got.columns]
    empty = got[props].isna().all(axis=1)
    heads = {first + k * span for k in range(1, TIMES)}
    assert set(got.loc[empty, "tick"]) <= heads, got[empty]
    got = got[~empty].astype(want.dtypes.to_dict()).reset_index(drop=True)
    for k in range(TIMES):
        pd.testing.assert_frame_equal(repeat(got, first, last, k * span), want,
                                      obj=f"repeat {k}")
        COMPARED["looped tick rows"] += len(want)
    want_events, got_events = events(source), events(out)
    # demoparser2 makes `cs_win_panel_match` itself from the game rules' props when a packet
    # writes them (it is no game event of the demo: neither the clip nor the loop holds one,
    # gamewire's events table has none). A loop's head writes every prop at each repeat's
    # first tick, so demoparser2 reports one there; nowhere else.
    derived = got_events.pop("cs_win_panel_match", None)
    if derived is not None and "cs_win_panel_match" not in want_events:
        heads = {first + k * span for k in range(TIMES)}
        assert set(derived["tick"]) <= heads, derived
    assert set(got_events) == set(want_events)
    for name, frame in want_events.items():
        if "tick" not in frame.columns:
            continue
        # The events of a repeat's first tick: demoparser2 fills some keys (round_end's
        # reason and winner) from the game rules' props as it holds them when it reads the
        # event; the clip's first packet sends them as the baseline has them, a head writes
        # every prop, and demoparser2 has them (nulls in the clip, values in the loop). The
        # same events, by name, and every event after the first tick, key for key.
        want = in_range(frame, first + 1, last)
        for k in range(TIMES):
            got = repeat(got_events[name], first + 1, last, k * span)
            pd.testing.assert_frame_equal(got, want, obj=f"{name}, repeat {k}",
                                          check_dtype=len(want) > 0)
            COMPARED["looped event rows"] += len(want)
            at_head = repeat(got_events[name], first, first, k * span)
            # `player_first_connect` is demoparser2's too: the first time it sees a player.
            if name != "player_first_connect" or k == 0:
                assert len(at_head) == len(in_range(frame, first, first)), (name, k)


def test_gamewire_and_demoparser2_agree_on_the_looped_demo(looped):
    """The players' rows and places of every tick of the loop, by gamewire and by
    demoparser2 (that each repeat is the clip again is checked for gamewire's tables by
    crates/cli/tests/edit.rs)."""
    source, out = looped
    first, last, span = span_of(source)
    theirs = ticks(out)
    theirs = theirs[~theirs[["X", "Y", "Z", "health"]].isna().all(axis=1)]
    # demoparser2 gives the rows of the players with a steam id (not the bots).
    ours = gamewire.Demo(out).ticks("X,Y,Z,health")
    ours = ours[ours["name"].isin(set(theirs["name"]))]
    ours = ours.drop_duplicates(["tick", "name"], keep="last")
    both = ours.merge(theirs, on=["tick", "name"], suffixes=("", "_dp2"))
    assert len(both) == len(theirs) == len(ours) > 0
    assert set(both["tick"]) >= {first + k * span for k in range(TIMES)}
    for axis in ("X", "Y", "Z"):
        assert (both[axis] - both[f"{axis}_dp2"]).abs().max() < 1e-3, axis
    assert (both["health"] == both["health_dp2"]).all()
