"""`gamewire.follow` on a live HTTP broadcast: the corpus's Deadlock broadcasts served by the test
relay (`.ci/broadcast_server.py`, a real HTTP server on 127.0.0.1, started here as a process),
releasing one fragment every few ms. The iterator yields several batches while the broadcast goes
on, and the batches concatenated are the tables `Demo` reads from the broadcast's folder; the same
after a 500, a reset connection and a relay restarted mid-match."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas
import pytest

import gamewire

from conftest import REPO, corpus, gathered, records

RELAY = REPO / ".ci" / "broadcast_server.py"

BROADCASTS = ["deadlock/broadcast/dl_midtown_2025-02-27", "deadlock/broadcast/street_test_60tps"]

# Tables with rows in these broadcasts: some made as the fragments come, some at the end.
TABLES = ("events", "ticks", "user_commands", "kills", "players", "updated_fields")
PROPS = ["X", "Y", "health"]


class Relay:
    """The relay serving a broadcast folder, as a process; its URL from its first line."""

    def __init__(self, folder: Path, interval_ms: int, *options: str):
        self.process = subprocess.Popen(
            [sys.executable, str(RELAY), "--dir", str(folder), "--port", "0",
             "--interval-ms", str(interval_ms), *options],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)
        assert self.process.stdout is not None
        port = int(self.process.stdout.readline())
        self.url = f"http://127.0.0.1:{port}"

    def __enter__(self) -> "Relay":
        return self

    def __exit__(self, *exc) -> None:
        self.process.kill()
        self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def broadcast(rel: str) -> Path:
    """A broadcast folder of the corpus (found by its sync.json)."""
    return corpus(f"{rel}/sync.json").parent


def assert_same_tables(batches: list, whole: dict) -> None:
    for table, expected in whole.items():
        got = gathered(batches, table)
        if table == "events":
            # A column first seen in a later batch is absent from the earlier ones.
            assert records(got) == records(expected), table
        elif len(expected) == 0:
            assert len(got) == 0, table
        else:
            pandas.testing.assert_frame_equal(got, expected, check_dtype=True, obj=table)


@pytest.mark.parametrize("rel", BROADCASTS)
def test_follow_over_http_gives_the_tables_of_the_folder(rel):
    folder = broadcast(rel)
    whole = gamewire.Demo(folder).tables(TABLES, props=PROPS)
    assert len(whole["ticks"]) > 1000 and len(whole["user_commands"]) > 1000
    with Relay(folder, 30, "--end", "stop") as relay:
        batches = list(gamewire.follow(relay.url, tables=TABLES, every=0.0, props=PROPS,
                                       idle_timeout=10))
    # Rows came in several batches, as the fragments arrived.
    assert len(batches) > 1
    assert sum("ticks" in b for b in batches) > 1
    assert_same_tables(batches, whole)


def test_follow_over_http_after_faults_and_an_idle_end():
    folder = broadcast(BROADCASTS[0])
    tables = ("events", "ticks", "players")
    whole = gamewire.Demo(folder).tables(tables, props=PROPS)
    # dl_midtown's fragments are 35 to 40; no DEM_Stop: the end is the idle time-out.
    with Relay(folder, 30, "--end", "idle", "--fault", "500@36", "--fault", "reset@37",
               "--fault", "restart@39", "--restart-ms", "300") as relay:
        batches = list(gamewire.follow(relay.url, tables=tables, every=0.05, props=PROPS,
                                       idle_timeout=1.0))
    assert len(batches) > 1
    assert_same_tables(batches, whole)
