"""`gamewire.follow`: a demo written by another process in pieces of random size with pauses
is followed while it grows; the frames it yields, concatenated, are the tables of the finished
demo (every table; `events` row for row with null values aside), rows come before the demo is
complete, and a writer that stops leaves the rows before the cut with a warning."""

from __future__ import annotations

import subprocess
import sys
import time
import warnings
from pathlib import Path

import pandas
import pytest

import gamewire

from conftest import corpus, gathered, records

# A writer process: appends the demo to the file in pieces of random size with pauses, up to a
# byte count (the whole demo by default).
WRITER = r"""
import random, sys, time
src, dst, upto, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
data = open(src, "rb").read()[:upto]
rng = random.Random(seed)
with open(dst, "ab") as out:
    at = 0
    while at < len(data):
        n = rng.randint(1, 40 * 1024)
        out.write(data[at:at + n])
        out.flush()
        at += n
        time.sleep(rng.random() * 0.01)
"""


def start_writer(src: Path, dst: Path, upto: int, seed: int) -> subprocess.Popen:
    dst.write_bytes(b"")
    return subprocess.Popen([sys.executable, "-c", WRITER, str(src), str(dst), str(upto),
                             str(seed)])


@pytest.mark.parametrize("rel", ["cs2/14065.dem", "deadlock/hltv_10423.dem"])
def test_follow_gives_the_tables_of_the_finished_demo(tmp_path, rel):
    src = corpus(rel)
    whole = gamewire.Demo(src).tables(gamewire.TABLES, props=["X", "Y", "health"])
    dst = tmp_path / "growing.dem"
    writer = start_writer(src, dst, src.stat().st_size, 5)
    frames = list(gamewire.follow(dst, tables=gamewire.TABLES, every=0.05,
                                  props=["X", "Y", "health"]))
    assert writer.wait() == 0
    assert len(frames) >= 2
    for table, expected in whole.items():
        got = gathered(frames, table)
        if table == "events":
            assert records(got) == records(expected), table
        elif len(expected) == 0:
            assert len(got) == 0, table
        else:
            pandas.testing.assert_frame_equal(got, expected, check_dtype=True, obj=table)


def test_rows_come_before_the_demo_is_complete(tmp_path):
    src = corpus("cs2/14011.dem")
    data = src.read_bytes()
    dst = tmp_path / "early.dem"
    split = len(data) * 3 // 4
    dst.write_bytes(data[:split])
    followed = gamewire.follow(dst, tables=("kills", "ticks"), every=0.0, props=["X"])
    first = next(followed)
    # Three quarters of the demo are written: kills and ticks of it have come.
    assert len(first.get("kills", [])) + len(first.get("ticks", [])) > 0
    with open(dst, "ab") as out:
        out.write(data[split:])
    frames = [first, *followed]
    whole = gamewire.Demo(src).tables(("kills", "ticks"), props=["X"])
    for table in ("kills", "ticks"):
        pandas.testing.assert_frame_equal(gathered(frames, table), whole[table], obj=table)


def test_a_writer_that_stops_leaves_the_rows_before_the_cut(tmp_path):
    src = corpus("cs2/14065.dem")
    upto = src.stat().st_size // 2
    dst = tmp_path / "stopped.dem"
    writer = start_writer(src, dst, upto, 9)
    started = time.monotonic()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frames = list(gamewire.follow(dst, tables=("kills", "rounds"), every=0.05,
                                      idle_timeout=0.5))
    assert writer.wait() == 0
    assert time.monotonic() - started < 30
    assert any(issubclass(w.category, gamewire.DemoTruncatedWarning) for w in caught)
    half = tmp_path / "half.dem"
    half.write_bytes(src.read_bytes()[:upto])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = gamewire.Demo(half).tables(("kills", "rounds"))
    for table in ("kills", "rounds"):
        pandas.testing.assert_frame_equal(gathered(frames, table), whole[table], obj=table)
    with pytest.raises(gamewire.DemoTruncatedError):
        list(gamewire.follow(dst, tables=("kills",), idle_timeout=0.1, strict=True))


def test_follow_checks_its_arguments(tmp_path):
    demo = corpus("cs2/14065.dem")
    with pytest.raises(gamewire.BadArgumentError):
        gamewire.follow(demo, tables=("kills",), every="often")
    with pytest.raises(gamewire.UnknownNameError):
        gamewire.follow(demo, tables=("kils",))
    with pytest.raises(FileNotFoundError):
        gamewire.follow(tmp_path / "missing.dem")
