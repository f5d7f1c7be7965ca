"""The shape of the public API: what `import gamewire` exposes, the methods' signatures (the
first argument positional, every option keyword-only, named and ordered as the command line's
options), the errors of a wrong call (they name the method and the option, never the native
module's internals), and the dtypes of a table however it is loaded."""

import inspect
import json
import subprocess
import sys

import pandas as pd
import polars as pl
import pytest

import gamewire
from conftest import DEMOS, corpus

# Every option of the table methods and of parse_many, in the one order they all follow.
OPTIONS = ["name", "props", "other", "ticks", "players", "humans_only", "grenade_props",
           "jobs", "on_error", "strict", "polars"]

# The methods that return a table, and their one positional argument (None: none).
TABLE_METHODS = {
    "tables": "names", "events": "name", "ticks": "props", "grenades": None,
    "props": "cls", "header_table": None,
    **{t: None for t in gamewire.TABLES if t not in ("events", "ticks", "grenades")},
}

# Words of the native module's internals a message must never show.
INTERNALS = ("QuerySpec", "TicksSpec", "NativeDemo", "_gamewire", "extract", "FromPyObject")


def test_import_exposes_exactly_all():
    # A fresh interpreter: nothing else (gamewire.compat, a test) has touched the package.
    code = "import gamewire, json; print(json.dumps([dir(gamewire), gamewire.__all__]))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    names, all_ = json.loads(out)
    public = {n for n in names if not n.startswith("_")}
    assert public == {n for n in all_ if not n.startswith("__")}, public ^ set(all_)
    # Beside the dunders, only the private modules the package is built from.
    private = {n for n in names if n.startswith("_") and not n.startswith("__")}
    assert private <= {"_demo", "_gamewire"}, private
    for leak in ("os", "sys", "Any", "warnings", "annotations", "Union", "Iterable"):
        assert leak not in names, leak
    for name in all_:
        assert hasattr(gamewire, name), name
    assert len(all_) == len(set(all_))


def test_the_demoparser2_names_are_not_on_demo():
    for old in ("parse_event", "parse_events", "parse_ticks", "parse_header",
                "parse_player_info", "parse_grenades", "parse_skins", "parse_item_drops",
                "list_game_events", "list_updated_fields"):
        assert not hasattr(gamewire.Demo, old), old
    assert not hasattr(gamewire, "WantedPropState")


def signature(func):
    params = list(inspect.signature(func).parameters.values())
    return [p for p in params if p.name != "self"]


@pytest.mark.parametrize("method", sorted(TABLE_METHODS))
def test_first_argument_positional_every_option_keyword_only(method):
    func = getattr(gamewire.Demo, method)
    params = signature(func)
    first = TABLE_METHODS[method]
    positional = [p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD]
    assert positional == ([first] if first else []), (method, positional)
    options = [p.name for p in params if p.kind == p.KEYWORD_ONLY]
    assert all(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params), method
    # The command line's names, in the one order.
    assert set(options) <= set(OPTIONS), (method, set(options) - set(OPTIONS))
    assert options == sorted(options, key=OPTIONS.index), (method, options)
    assert options[-1] == "polars", method


def test_tables_and_parse_many_take_every_option_in_the_same_order():
    tables = [p.name for p in signature(gamewire.Demo.tables) if p.kind == p.KEYWORD_ONLY]
    assert tables == ["name", "props", "other", "ticks", "players", "humans_only",
                      "grenade_props", "polars"]
    many = signature(gamewire.parse_many)
    assert [p.name for p in many if p.kind == p.POSITIONAL_OR_KEYWORD] == ["paths", "tables"]
    many_options = [p.name for p in many if p.kind == p.KEYWORD_ONLY]
    assert many_options == tables[:-1] + ["jobs", "on_error", "strict", "polars"]
    # Each table method's options are those of `tables` for that table.
    assert [p.name for p in signature(gamewire.Demo.events)][1:] == ["props", "other", "polars"]
    assert [p.name for p in signature(gamewire.Demo.ticks)][1:] == [
        "ticks", "players", "humans_only", "polars"]
    assert [p.name for p in signature(gamewire.Demo.grenades)] == ["grenade_props", "polars"]


def test_return_annotations_are_dataframes_never_any():
    import typing

    hints_of = {name: typing.get_overloads(getattr(gamewire.Demo, name))
                for name in TABLE_METHODS} if hasattr(typing, "get_overloads") else {}
    for name in TABLE_METHODS:
        func = getattr(gamewire.Demo, name)
        ann = inspect.signature(func).return_annotation
        assert ann is not inspect.Signature.empty, name
        assert "Any" not in str(ann) and "DataFrame" in str(ann), (name, ann)
        overloads = hints_of.get(name)
        if overloads:  # Python 3.11+: polars=True gives polars', polars=False pandas'
            returns = [str(inspect.signature(o).return_annotation) for o in overloads]
            assert any("polars.DataFrame" in r for r in returns), (name, returns)
            assert any("pandas.DataFrame" in r for r in returns), (name, returns)
    for func in (gamewire.Demo.header, gamewire.Demo.event_names, gamewire.parse_many):
        ann = str(inspect.signature(func).return_annotation)
        assert "Any" not in ann, (func, ann)


@pytest.fixture(scope="module")
def demo():
    return gamewire.Demo(corpus("cs2/14065.dem"))


# (call, the exception class, the start of the message).
WRONG_CALLS = [
    (lambda d: d.ticks(5), gamewire.BadArgumentError,
     "Demo.ticks: props takes a name or a list of names, not 5"),
    (lambda d: d.ticks(["X", 5]), gamewire.BadArgumentError,
     "Demo.ticks: props takes names (str), not 5"),
    (lambda d: d.ticks(["X"], ticks=1.5), gamewire.BadArgumentError,
     'Demo.ticks: ticks takes ticks (ints, a range, or text such as "100..200"), not 1.5'),
    (lambda d: d.ticks(["X"], ticks=[1, None]), gamewire.BadArgumentError,
     "Demo.ticks: ticks takes ticks"),
    (lambda d: d.ticks(["X"], ticks=2**40), gamewire.BadArgumentError,
     "Demo.ticks: ticks takes ticks"),
    (lambda d: d.ticks(["X"], ticks="not a number"), gamewire.BadArgumentError,
     'Demo.ticks: bad ticks "not a number"'),
    (lambda d: d.ticks(["X"], ticks="200..100"), gamewire.BadArgumentError,
     'Demo.ticks: bad ticks "200..100"'),
    (lambda d: d.ticks(["X"], players=["abc"]), gamewire.BadArgumentError,
     "Demo.ticks: players takes steam ids (ints), not 'abc'"),
    (lambda d: d.ticks(["X"], players=-1), gamewire.BadArgumentError,
     "Demo.ticks: players takes steam ids"),
    (lambda d: d.ticks(["X"], humans_only="yes"), gamewire.BadArgumentError,
     "Demo.ticks: humans_only takes True or False, not 'yes'"),
    (lambda d: d.kills(polars="yes"), gamewire.BadArgumentError,
     "Demo.kills: polars takes True or False, not 'yes'"),
    (lambda d: d.events(5), gamewire.BadArgumentError,
     "Demo.events: name takes a name or a list of names, not 5"),
    (lambda d: d.props(5), gamewire.BadArgumentError,
     "Demo.props: cls takes a class name (str) or None, not 5"),
    (lambda d: d.tables(["kills"], props=["X"]), gamewire.BadArgumentError,
     "Demo.tables: the option props is not used by the tables asked for "
     "(it is used by: events, ticks)"),
    (lambda d: d.tables(["kills"], name="player_death"), gamewire.BadArgumentError,
     "Demo.tables: the option name is not used by the tables asked for (it is used by: events)"),
    (lambda d: d.tables(["kills"], ticks=5), gamewire.BadArgumentError,
     "Demo.tables: the option ticks is not used"),
    (lambda d: d.tables(["events"], humans_only=True), gamewire.BadArgumentError,
     "Demo.tables: the option humans_only is not used"),
    (lambda d: d.tables(["kills"], grenade_props="m_nBounces"), gamewire.BadArgumentError,
     "Demo.tables: the option grenade_props is not used"),
    (lambda d: d.tables(["kils"]), gamewire.UnknownNameError, 'unknown table "kils"'),
    (lambda d: d.tables(5), gamewire.BadArgumentError, "Demo.tables: names takes"),
    (lambda d: gamewire.Demo(5), gamewire.BadArgumentError,
     "Demo: path takes a path (str or os.PathLike), not 5"),
    (lambda d: gamewire.Demo(corpus("cs2/14065.dem"), strict=1), gamewire.BadArgumentError,
     "Demo: strict takes True or False, not 1"),
    (lambda d: gamewire.Demo.from_bytes("text"), gamewire.BadArgumentError,
     "Demo.from_bytes: data takes bytes, not 'text'"),
    (lambda d: gamewire.set_polars("yes"), gamewire.BadArgumentError,
     "set_polars: enabled takes True or False"),
    # Python's own checks name the method and the argument too.
    (lambda d: d.ticks(["X"], [1, 2]), TypeError, "Demo.ticks() takes 2 positional arguments"),
    (lambda d: d.ticks(["X"], player=["X"]), TypeError,
     "Demo.ticks() got an unexpected keyword argument 'player'"),
    (lambda d: d.events("player_hurt", ["X"]), TypeError, "Demo.events() takes from 1 to 2"),
    (lambda d: d.grenades(["m_nBounces"]), TypeError, "Demo.grenades() takes 1 positional"),
]


@pytest.mark.parametrize("call,cls,start", WRONG_CALLS, ids=[w[2][:50] for w in WRONG_CALLS])
def test_a_wrong_call_names_the_method_and_the_option(demo, call, cls, start):
    with pytest.raises(cls) as e:
        call(demo)
    message = str(e.value)
    assert message.startswith(start), message
    assert not any(word in message for word in INTERNALS), message
    if cls is gamewire.BadArgumentError:
        # Caught as a TypeError or a ValueError, whichever the caller expects.
        assert isinstance(e.value, TypeError) and isinstance(e.value, ValueError)


def test_ticks_beyond_the_demos_end_name_the_last_tick(demo):
    with pytest.raises(gamewire.BadArgumentError) as e:
        demo.ticks(["X"], ticks=999999)
    assert "999999" in str(e.value) and "185" in str(e.value), str(e.value)
    with pytest.raises(gamewire.BadArgumentError, match="185"):
        demo.ticks(["X"], ticks="1000..2000")


LOADERS = ["method", "tables", "parse_many"]


def load(path, table: str, how: str, use_polars: bool):
    options = {"props": ["X", "health", "team_num"]} if table == "ticks" else {}
    if how == "method":
        demo = gamewire.Demo(path)
        if table == "ticks":
            return demo.ticks(options["props"], polars=use_polars)
        return getattr(demo, table)(polars=use_polars)
    if how == "tables":
        return gamewire.Demo(path).tables([table], polars=use_polars, **options)[table]
    frame = gamewire.parse_many([path], [table], polars=use_polars, **options)[table]
    return frame.drop("demo") if use_polars else frame.drop(columns=["demo"])


def dtypes(frame, use_polars: bool) -> dict:
    if use_polars:
        return {k: str(v) for k, v in frame.schema.items()}
    return {k: str(v) for k, v in frame.dtypes.items()}


@pytest.mark.parametrize("use_polars", [False, True], ids=["pandas", "polars"])
@pytest.mark.parametrize("rel", [d[0] for d in DEMOS])
def test_a_table_has_the_same_dtypes_however_it_is_loaded(rel, use_polars):
    path = corpus(rel)
    for table in gamewire.TABLES:
        seen = {how: dtypes(load(path, table, how, use_polars), use_polars) for how in LOADERS}
        assert seen["tables"] == seen["method"], (table, seen)
        assert seen["parse_many"] == seen["method"], (table, seen)
    if not use_polars:
        # pandas: integers and booleans are the nullable types whatever the rows hold.
        for table in ("kills", "rounds", "players"):
            for col, dtype in dtypes(load(path, table, "method", False), False).items():
                assert dtype not in ("int64", "uint64", "bool"), (table, col, dtype)


def test_pandas_and_polars_types_agree():
    frame = gamewire.Demo(corpus("cs2/14011.dem")).kills()
    polars_frame = gamewire.Demo(corpus("cs2/14011.dem")).kills(polars=True)
    pairs = {"Int64": pl.Int64, "UInt64": pl.UInt64, "float32": pl.Float32,
             "boolean": pl.Boolean, "object": pl.String}
    for col, dtype in frame.dtypes.items():
        assert polars_frame.schema[col] == pairs[str(dtype)], col
    assert isinstance(frame, pd.DataFrame)
