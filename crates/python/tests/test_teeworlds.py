"""`gamewire.teeworlds`: Teeworlds 0.7 captures of the corpus as DataFrames, with the columns
and values of `gamewire tw pcap --table NAME`."""

from __future__ import annotations

import pytest

import gamewire
from gamewire import teeworlds
from conftest import corpus

WALK = "teeworlds/pcap/075_tw_dm1_join_chat_walk_disconnect/075_tw_dm1_join_chat_walk_disconnect.pcap"
JOIN = ("teeworlds/pcap/075_tw_tinycave_other_player_join_round_start/"
        "075_tw_tinycave_other_player_join_round_start.pcap")


def test_a_capture_reads_into_its_tables():
    tables = teeworlds.read_pcap(corpus(WALK))
    for name in ("snapshots", "players", "messages", "chat", "kills", "summary"):
        assert name in tables, name
    # Object tables only for the types the capture has.
    assert "character" in tables and "player_info" in tables
    assert all(len(t) > 0 for n, t in tables.items() if n in ("character", "player_info"))

    summary = tables["summary"]
    assert list(summary.columns) == [
        "flows", "datagrams", "datagrams_with_errors", "snapshots", "snapshot_crc_ok"]
    row = summary.iloc[0]
    assert row["datagrams"] > 300
    assert row["datagrams_with_errors"] == 0
    assert row["snapshots"] == row["snapshot_crc_ok"] > 0

    snaps = tables["snapshots"]
    assert list(snaps.columns) == ["flow", "time", "tick", "items", "crc", "delta_tick", "crc_ok"]
    assert snaps["crc_ok"].all()
    assert str(snaps["tick"].dtype) == "Int64"  # the package's one integer type
    assert str(snaps["time"].dtype) == "float32"
    assert (snaps["time"] >= 0).all()

    chars = tables["character"]
    assert list(chars.columns[:6]) == ["flow", "time", "tick", "id", "object_tick", "x"]
    assert chars["health"].between(0, 10).all()
    # Each character row is of a snapshot in the snapshots table.
    assert set(chars["tick"]) <= set(snaps["tick"])


def test_chat_names_the_sender():
    chat = teeworlds.read_pcap(corpus(WALK), tables=["chat"])["chat"]
    assert list(chat.columns) == [
        "flow", "time", "tick", "client_id", "name", "mode", "target_id", "message"]
    players = chat[chat["client_id"] >= 0]
    assert len(players) >= 1
    assert players["name"].notna().all()
    assert set(chat["mode"]) <= {"all", "team", "whisper", "none"}


def test_players_of_a_capture_with_two():
    players = teeworlds.read(corpus(JOIN), tables="players")["players"]
    assert list(players.columns) == [
        "flow", "client_id", "name", "clan", "country", "team", "local", "first_tick", "left_tick"]
    assert players["client_id"].nunique() >= 2
    assert players["local"].sum() >= 1


def test_polars_and_the_same_rows():
    pandas_tables = teeworlds.read_pcap(corpus(WALK), tables=["messages", "character"])
    polars_tables = teeworlds.read_pcap(corpus(WALK), tables=["messages", "character"], polars=True)
    assert list(polars_tables) == ["messages", "character"]
    for name, frame in pandas_tables.items():
        other = polars_tables[name]
        assert other.columns == list(frame.columns)
        assert other.height == len(frame)
    messages = polars_tables["messages"]
    assert "sv_chat" in set(messages["message"].to_list())
    assert not any(m.startswith("snap") for m in messages["message"].drop_nulls().to_list())


def test_unknown_table_and_not_a_recording(tmp_path):
    with pytest.raises(gamewire.UnknownNameError) as e:
        teeworlds.read_pcap(corpus(WALK), tables=["charactr"])
    assert 'unknown table "charactr"' in str(e.value) and "character" in str(e.value)
    junk = tmp_path / "junk.pcap"
    junk.write_bytes(b"not a capture")
    with pytest.raises(gamewire.NotADemoError) as e:
        teeworlds.read(junk)
    assert str(e.value).startswith(f"{junk}: ")
    with pytest.raises(FileNotFoundError):
        teeworlds.read_demo(tmp_path / "nope.demo")
    demo = tmp_path / "junk.demo"
    demo.write_bytes(b"TWDEMO\0\4" + b"\0" * 10)
    with pytest.raises(gamewire.DemoTruncatedError) as e:
        teeworlds.read_demo(demo)
    assert "truncated" in str(e.value)
    with pytest.raises(gamewire.BadArgumentError):
        teeworlds.read_pcap(corpus(WALK), polars="yes")
