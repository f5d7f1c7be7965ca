"""`gamewire.parse_many`: many demos in parallel, one DataFrame per table with a `demo` column,
equal to the demos parsed one by one; bad demos raise or are skipped with a warning."""

from __future__ import annotations

import pandas as pd
import pytest

import gamewire
from conftest import CORPUS, DEMOS, corpus

PROPS = ["X", "Y", "Z", "health", "team_num"]


def one_by_one(paths, names, tables, **options):
    """The tables of each demo through `Demo`, with the `demo` column parse_many adds."""
    out = {}
    for path, name in zip(paths, names):
        for table, frame in gamewire.Demo(path).tables(tables, **options).items():
            frame.insert(0, "demo", pd.Series([name] * len(frame), dtype=object))
            out.setdefault(table, []).append(frame)
    return {t: pd.concat(parts, ignore_index=True) for t, parts in out.items()}


def test_equals_the_demos_one_by_one():
    paths = [corpus(rel) for rel, *_ in DEMOS]
    tables = ["ticks", "players", "chat", "rounds"]
    many = gamewire.parse_many(paths, tables, props=PROPS, jobs=2)
    names = [p.stem for p in paths]
    want = one_by_one(paths, names, tables, props=PROPS)
    assert set(many) == set(tables)
    for t in tables:
        pd.testing.assert_frame_equal(many[t], want[t])
    assert list(many["ticks"].columns[:1]) == ["demo"]
    # Every CS2 clip gives tick rows, tagged with its name.
    cs2 = {p.stem for p in paths if p.parent.name == "cs2"}
    assert cs2 <= set(many["ticks"]["demo"]), set(many["ticks"]["demo"])
    assert len(many["ticks"]) > 1000


def test_grenade_props_and_updated_fields():
    """`grenade_props` (the extra projectile props) and `updated_fields` through parse_many."""
    paths = [corpus("cs2/14011.dem"), corpus("cs2/14065.dem")]
    many = gamewire.parse_many(paths, ["grenades", "updated_fields"],
                               grenade_props=["m_nBounces"], jobs=2)
    assert list(many["grenades"].columns[:1]) == ["demo"]
    assert list(many["grenades"].columns[-1:]) == ["m_nBounces"]
    want = one_by_one(paths, [p.stem for p in paths], ["updated_fields"])
    pd.testing.assert_frame_equal(many["updated_fields"], want["updated_fields"])
    assert set(many["updated_fields"]["demo"]) == {"14011", "14065"}


def test_thread_count_does_not_change_the_result():
    paths = [corpus("cs2/14065.dem"), corpus("cs2/14132.dem"), corpus("cs2/14155.dem")]
    a = gamewire.parse_many(paths, ["ticks", "events"], props=PROPS, jobs=1)
    b = gamewire.parse_many(paths, ["ticks", "events"], props=PROPS, jobs=3)
    for t in a:
        pd.testing.assert_frame_equal(a[t], b[t])


def test_repeated_stems_get_numbered_names():
    path = corpus("cs2/14155.dem")
    many = gamewire.parse_many([path, path, path], "players")
    one = len(gamewire.Demo(path).players())
    assert one > 0
    assert list(many["players"]["demo"]) == ["14155"] * one + ["14155-2"] * one + ["14155-3"] * one


def test_polars():
    pl = pytest.importorskip("polars")
    paths = [corpus("cs2/14065.dem"), corpus("cs2/14155.dem")]
    many = gamewire.parse_many(paths, ["ticks"], props=PROPS, polars=True)
    frame = many["ticks"]
    assert isinstance(frame, pl.DataFrame)
    assert frame.columns[0] == "demo"
    pandas = gamewire.parse_many(paths, ["ticks"], props=PROPS)["ticks"]
    assert frame.height == len(pandas)
    assert frame["demo"].to_list() == list(pandas["demo"])


def test_bad_demos_raise_by_default(tmp_path):
    good = corpus("cs2/14155.dem")
    bad = tmp_path / "notes.dem"
    bad.write_bytes(b"hello, this is not a demo\n")
    with pytest.raises(gamewire.DemoError) as e:
        gamewire.parse_many([good, bad], "players")
    assert str(e.value).startswith(f"{bad}: not a Source 2 demo")
    missing = tmp_path / "nope.dem"
    with pytest.raises(FileNotFoundError) as e:
        gamewire.parse_many([missing, good], "players")
    assert str(e.value) == f"cannot read {missing}: No such file or directory (os error 2)"


def test_bad_demos_are_skipped_with_a_warning(tmp_path):
    good = corpus("cs2/14155.dem")
    bad = tmp_path / "bad.dem"
    bad.write_bytes(b"not a demo")
    missing = tmp_path / "nope.dem"
    with pytest.warns(RuntimeWarning) as record:
        many = gamewire.parse_many([bad, good, missing], "players", on_error="skip")
    messages = [str(w.message) for w in record]
    assert len(messages) == 2, messages
    assert messages[0].startswith(f"skipped: {bad}: not a Source 2 demo"), messages[0]
    assert messages[1].startswith(f"skipped: cannot read {missing}")
    assert set(many["players"]["demo"]) == {"14155"}
    # All skipped: an empty frame per table asked for.
    with pytest.warns(RuntimeWarning):
        empty = gamewire.parse_many([missing], ["kills", "rounds"], on_error="skip")
    assert set(empty) == {"kills", "rounds"}
    assert all(len(f) == 0 for f in empty.values())


def test_a_cut_demo_keeps_its_rows_with_a_warning(tmp_path):
    good = corpus("cs2/14155.dem")
    cut = tmp_path / "cut.dem"
    cut.write_bytes(good.read_bytes()[:150_000])
    with pytest.warns(gamewire.DemoTruncatedWarning) as record:
        many = gamewire.parse_many([cut, good], ["players", "ticks"], props=["health"])
    messages = [str(w.message) for w in record]
    assert len(messages) == 1 and messages[0].startswith(f"{cut}: the demo is truncated")
    ticks = many["ticks"]
    cut_rows = ticks[ticks["demo"] == "cut"].drop(columns="demo").reset_index(drop=True)
    whole = ticks[ticks["demo"] == "14155"].drop(columns="demo").reset_index(drop=True)
    assert 0 < len(cut_rows) < len(whole)
    assert cut_rows.equals(whole.iloc[: len(cut_rows)].reset_index(drop=True))
    assert set(many["players"]["demo"]) == {"cut", "14155"}


def test_a_directory_stands_for_its_demos():
    cs2 = CORPUS / "cs2"
    files = sorted(cs2.glob("*.dem"))
    assert len(files) == 5
    # One path (str or Path), or a list mixing directories and files.
    for paths in (cs2, str(cs2), [cs2]):
        many = gamewire.parse_many(paths, "rounds", jobs=2)
        want = gamewire.parse_many(files, "rounds", jobs=2)
        pd.testing.assert_frame_equal(many["rounds"], want["rounds"])
    assert set(want["rounds"]["demo"]) <= {f.stem for f in files}
    one = gamewire.parse_many(files[0], "players")
    assert set(one["players"]["demo"]) == {files[0].stem}
    # Found in file-name order.
    names = list(dict.fromkeys(gamewire.parse_many(cs2, "players")["players"]["demo"]))
    assert names == [f.stem for f in files]
    with pytest.raises(FileNotFoundError):
        gamewire.parse_many(cs2 / "nope", "players")


def test_bad_arguments():
    with pytest.raises(gamewire.BadArgumentError, match="^parse_many: on_error takes"):
        gamewire.parse_many([], "players", on_error="ignore")
    with pytest.raises(gamewire.BadArgumentError, match="^parse_many: jobs takes"):
        gamewire.parse_many([], "players", jobs=0)
    with pytest.raises(gamewire.BadArgumentError, match="^parse_many: paths takes"):
        gamewire.parse_many(5, "players")
    # A mistake in the query raises whatever on_error says, before any demo is parsed.
    for on_error in ("raise", "skip"):
        with pytest.raises(gamewire.UnknownNameError, match="closest"):
            gamewire.parse_many([corpus("cs2/14155.dem")], "kils", on_error=on_error)
        with pytest.raises(gamewire.BadArgumentError, match="the option ticks is not used"):
            gamewire.parse_many([corpus("cs2/14155.dem")], "kills", ticks=5, on_error=on_error)
    # An unknown prop is found on the demo; it raises with "skip" too.
    with pytest.raises(gamewire.UnknownNameError, match='"helth"'):
        gamewire.parse_many([corpus("cs2/14155.dem")], "ticks", props="helth", on_error="skip")


def test_strict_fails_a_cut_demo(tmp_path):
    good = corpus("cs2/14155.dem")
    cut = tmp_path / "cut.dem"
    cut.write_bytes(good.read_bytes()[:150_000])
    with pytest.raises(gamewire.DemoTruncatedError, match=f"^{cut}: the demo is truncated"):
        gamewire.parse_many([cut, good], "players", strict=True)
    with pytest.warns(RuntimeWarning, match=f"skipped: {cut}: the demo is truncated"):
        many = gamewire.parse_many([cut, good], "players", strict=True, on_error="skip")
    assert set(many["players"]["demo"]) == {"14155"}
