"""Bad input: the exception classes and the CLI's message text (`gamewire table` prints
`error: <path>: <message>`; the Python message is what follows `error: `)."""

from __future__ import annotations

import pytest

import gamewire
from conftest import CORPUS, corpus


def test_the_exception_classes():
    assert issubclass(gamewire.DemoError, ValueError)
    for cls in (gamewire.NotADemoError, gamewire.DemoTruncatedError, gamewire.UnknownNameError,
                gamewire.BadArgumentError):
        assert issubclass(cls, gamewire.DemoError), cls
        assert cls.__module__ == "gamewire" and cls.__doc__, cls
    # A wrong argument is a TypeError too; an unknown name is not a KeyError (it is about the
    # arguments, not a lookup: `except KeyError` around dict code must not swallow it).
    assert issubclass(gamewire.BadArgumentError, TypeError)
    assert not issubclass(gamewire.UnknownNameError, KeyError)
    assert issubclass(gamewire.DemoTruncatedWarning, UserWarning)


def test_missing_file(tmp_path):
    path = tmp_path / "nope.dem"
    with pytest.raises(FileNotFoundError) as e:
        gamewire.Demo(path)
    assert str(e.value) == f"cannot read {path}: No such file or directory (os error 2)"


def test_directory(tmp_path):
    with pytest.raises(OSError) as e:
        gamewire.Demo(tmp_path)
    assert str(e.value).startswith(f"cannot read {tmp_path}: ")


def test_not_a_demo(tmp_path):
    path = tmp_path / "notes.dem"
    path.write_bytes(b"hello, this is not a demo\n")
    with pytest.raises(gamewire.NotADemoError) as e:
        gamewire.Demo(path)
    assert str(e.value) == (
        f'{path}: not a Source 2 demo: the file starts with "hello, t", '
        'expected "PBDEMS2\\0" (frame 0 at byte 0, tick -1)'
    )


def test_empty_file(tmp_path):
    path = tmp_path / "empty.dem"
    path.write_bytes(b"")
    with pytest.raises(gamewire.NotADemoError) as e:
        gamewire.Demo(path)
    assert str(e.value).startswith(f"{path}: ")


def test_source1_demo(tmp_path):
    path = tmp_path / "old.dem"
    path.write_bytes(b"HL2DEMO\0" + bytes(1064))
    with pytest.raises(gamewire.NotADemoError, match="not a Source 2 demo"):
        gamewire.Demo(path)


def test_truncated_demo_keeps_what_comes_before_the_cut(tmp_path):
    whole_path = corpus("cs2/14065.dem")
    data = whole_path.read_bytes()
    path = tmp_path / "cut.dem"
    path.write_bytes(data[:280_000])
    demo = gamewire.Demo(path)  # the magic is fine: reading succeeds
    whole = gamewire.Demo(whole_path)
    expected = (
        f"{path}: the demo is truncated: frame payload needs 314 bytes, 65 left "
        "(frame 138 at byte 279931, tick 101); the result holds everything before the cut"
    )
    for call in (demo.header, demo.event_names, demo.players,
                 lambda: demo.ticks(["X"]), lambda: demo.events("round_freeze_end")):
        with pytest.warns(gamewire.DemoTruncatedWarning) as record:
            call()
        assert [str(w.message) for w in record] == [expected]
        # Attributed to this file, not to the package.
        assert record[0].filename == __file__
    with pytest.warns(gamewire.DemoTruncatedWarning):
        header = demo.header()
        ticks = demo.ticks(["X", "health"])
    assert header["last_tick"] == 100 and header["map_name"] == "de_nuke"
    last = int(ticks["tick"].max())
    assert last == 100
    full = whole.ticks(["X", "health"])
    full = full[full["tick"] <= last].reset_index(drop=True)
    assert ticks.equals(full)
    # A warning filter turns the cut into an exception.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", gamewire.DemoTruncatedWarning)
        with pytest.raises(gamewire.DemoTruncatedWarning, match="byte 279931"):
            demo.kills()
    # With strict=True the cut is an error, of its own class, for every method.
    strict = gamewire.Demo(path, strict=True)
    assert strict.strict and not demo.strict
    for call in (strict.header, strict.event_names, strict.players,
                 lambda: strict.ticks(["X"]), lambda: strict.tables(["kills", "rounds"])):
        with pytest.raises(gamewire.DemoTruncatedError) as e:
            call()
        assert str(e.value) == expected.split("; the result holds")[0]


def test_corrupt_demo_is_an_error(tmp_path):
    data = bytearray(corpus("cs2/14065.dem").read_bytes())
    # 16 bytes in the middle of the compressed signon packet at byte 74263
    # overwritten with 0xff: corrupt, not cut.
    data[78_570:78_586] = b"\xff" * 16
    path = tmp_path / "bad.dem"
    path.write_bytes(bytes(data))
    demo = gamewire.Demo(path)
    with pytest.raises(gamewire.DemoError) as e:
        demo.ticks(["X"])
    # Corrupt: the base class itself, none of the subclasses.
    assert type(e.value) is gamewire.DemoError
    assert str(e.value).startswith(f"{path}: snappy decompression of frame payload failed")
    assert "(frame 11 at byte 74263, tick -1)" in str(e.value)


def test_unknown_player_prop():
    path = corpus("cs2/14065.dem")
    demo = gamewire.Demo(path)
    with pytest.raises(gamewire.UnknownNameError) as e:
        demo.ticks(["X", "helth"])
    msg = str(e.value)
    assert msg.startswith(f'{path}: unknown player prop "helth"; closest: health')
    assert len(msg) < 600, msg
    with pytest.raises(gamewire.UnknownNameError, match='unknown player prop "yaww"; closest: yaw'):
        demo.events("round_freeze_end", props=["yaww"])


def test_unknown_game_wide_prop():
    demo = gamewire.Demo(corpus("cs2/14065.dem"))
    with pytest.raises(gamewire.UnknownNameError) as e:
        demo.events(other=["total_round"])
    msg = str(e.value)
    assert 'unknown game-wide prop "total_round"; closest: ' in msg
    closest = msg.split("; closest: ")[1].split(" (")[0].split(", ")
    assert "total_rounds_played" in closest


def test_unknown_event():
    path = corpus("cs2/14065.dem")
    with pytest.raises(gamewire.UnknownNameError) as e:
        gamewire.Demo(path).events("player_deth")
    assert str(e.value) == (
        f'{path}: the demo declares no event "player_deth"; closest: player_death, '
        "player_decal, player_team, player_chat, player_hurt"
    )


def test_unknown_table():
    with pytest.raises(gamewire.UnknownNameError) as e:
        gamewire.Demo(corpus("cs2/14065.dem")).tables(["kills", "kils"])
    msg = str(e.value)
    assert msg.startswith('unknown table "kils"; valid tables: events, ticks, players, ')
    assert msg.endswith("; closest: kills, skins, ticks, bomb, chat")
    assert all(t in msg for t in gamewire.TABLES)




def test_broadcast_directory_is_a_demo_and_a_cut_one_keeps_what_comes_before(tmp_path):
    import shutil

    street = CORPUS / "deadlock/broadcast/street_test_60tps"
    assert (street / "sync.json").is_file(), street
    demo = gamewire.Demo(street)
    assert demo.header()["last_tick"] == 8861
    assert list(demo.rounds().columns)[:2] == ["round", "start_tick"]
    cut = tmp_path / "cut"
    shutil.copytree(street, cut)
    last = max((p for p in cut.iterdir() if (p / "delta.bin").is_file()), key=lambda p: int(p.name))
    data = (last / "delta.bin").read_bytes()
    (last / "delta.bin").write_bytes(data[: len(data) // 2])
    cut_demo = gamewire.Demo(cut)
    with pytest.warns(gamewire.DemoTruncatedWarning) as record:
        header = cut_demo.header()
    message = str(record[0].message)
    assert message.startswith(f"{cut}: ") and "delta.bin" in message, message
    assert 0 < header["last_tick"] <= 8861


def test_grenade_extra_props():
    demo = gamewire.Demo(corpus("cs2/14011.dem"))
    frame = demo.grenades(grenade_props=["m_nBounces", "CBodyComponent.m_vecZ"])
    assert list(frame.columns[-2:]) == ["m_nBounces", "CBodyComponent.m_vecZ"]
    assert str(frame["m_nBounces"].dtype) == "Int64"
    assert str(frame["CBodyComponent.m_vecZ"].dtype) == "float32"
    with pytest.raises(gamewire.UnknownNameError) as e:
        demo.grenades(grenade_props=["m_nBounse"])
    assert 'unknown grenade prop "m_nBounse"; closest: m_nBounces' in str(e.value)


def test_compressed_demos_read_as_the_demo_itself(tmp_path):
    """`.dem.gz` and `.dem.bz2` (made here with Python's own compressors) are
    decompressed on reading; `parse_many` finds them in a directory."""
    import bz2
    import gzip

    whole = corpus("cs2/14065.dem")
    data = whole.read_bytes()
    (tmp_path / "m.dem.gz").write_bytes(gzip.compress(data))
    (tmp_path / "m.dem.bz2").write_bytes(bz2.compress(data))
    plain = gamewire.Demo(whole)
    for name in ("m.dem.gz", "m.dem.bz2"):
        demo = gamewire.Demo(tmp_path / name)
        assert demo.size == len(data)
        assert demo.header() == plain.header()
        assert demo.kills().equals(plain.kills())
        assert demo.ticks(["X", "health"]).equals(plain.ticks(["X", "health"]))
    many = gamewire.parse_many(tmp_path, ["players"])["players"]
    assert len(plain.players()) > 0
    assert sorted(set(many["demo"])) == ["m", "m-2"]
    assert len(many) == 2 * len(plain.players())


def test_cut_compressed_demo_warns_with_the_stream_and_keeps_its_start(tmp_path):
    import gzip

    data = corpus("cs2/14065.dem").read_bytes()
    packed = gzip.compress(data)
    path = tmp_path / "cut.dem.gz"
    path.write_bytes(packed[: len(packed) * 9 // 10])
    with pytest.warns(gamewire.DemoTruncatedWarning) as record:
        demo = gamewire.Demo(path)
        header = demo.header()
    messages = [str(w.message) for w in record]
    assert any(f"gzip stream: " in m and f"of {len(packed) * 9 // 10} compressed bytes" in m
               for m in messages), messages
    assert header["map_name"] == "de_nuke" and 0 < header["last_tick"] < 185
    bad = tmp_path / "bad.dem.gz"
    bad.write_bytes(packed[:10] + bytes(200))
    with pytest.raises(gamewire.DemoError, match="gzip stream: "):
        gamewire.Demo(bad)


def test_demo_from_bytes():
    """A demo already in memory: plain or compressed bytes, named in messages."""
    import gzip

    path = corpus("cs2/14065.dem")
    data = path.read_bytes()
    plain = gamewire.Demo(path)
    for blob in (data, bytearray(data), memoryview(data), gzip.compress(data)):
        demo = gamewire.Demo.from_bytes(blob, name="mem.dem")
        assert demo.path == "mem.dem" and demo.size == len(data)
        assert demo.header() == plain.header()
        assert demo.ticks(["X", "health"]).equals(plain.ticks(["X", "health"]))
        assert demo.players().equals(plain.players())
    with pytest.raises(gamewire.NotADemoError, match=r"^<bytes>: not a Source 2 demo"):
        gamewire.Demo.from_bytes(b"hello, there")
    with pytest.raises(gamewire.DemoError, match=r"^x\.dem\.gz: gzip stream: "):
        gamewire.Demo.from_bytes(gzip.compress(data)[:12], name="x.dem.gz")
    cut = gamewire.Demo.from_bytes(data[:280_000], name="cut.dem")
    with pytest.warns(gamewire.DemoTruncatedWarning, match=r"^cut\.dem: the demo is truncated"):
        assert cut.header()["last_tick"] == 100
