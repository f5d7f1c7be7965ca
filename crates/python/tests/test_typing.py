"""The package is typed (PEP 561): it ships `py.typed` and a stub of the native module whose
names are exactly the native module's, with the same signatures where Python can see them."""

import ast
import inspect
from pathlib import Path

import gamewire
from gamewire import _gamewire

PACKAGE = Path(gamewire.__file__).parent


def stub_tree() -> ast.Module:
    return ast.parse((PACKAGE / "_gamewire.pyi").read_text())


def test_installed_package_ships_the_marker_and_the_stub():
    assert (PACKAGE / "py.typed").is_file()
    assert (PACKAGE / "_gamewire.pyi").is_file()


def test_stub_names_are_the_native_modules():
    tree = stub_tree()
    names = set()
    typed_dicts = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and [ast.unparse(b) for b in node.bases] == ["TypedDict"]:
            typed_dicts.add(node.name)  # the shape of a dict argument, not a native class
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    native = {n for n in dir(_gamewire) if not n.startswith("_") or n == "__version__"}
    assert native <= names, native - names
    # Stub-only helpers are type aliases, not module attributes.
    aliases = {
        node.targets[0].id
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }
    assert names - native == set(), names - native
    assert aliases == {"Column", "HeaderValue"}
    assert typed_dicts == {"Query"}


def test_stub_methods_are_the_native_classs():
    tree = stub_tree()
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "NativeDemo"]
    stub = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
    native = {n for n, _ in inspect.getmembers(_gamewire.NativeDemo) if not n.startswith("_")}
    assert native == stub - {"__new__", "__repr__"}, (native, stub)
    bases = {n.name: [ast.unparse(b) for b in n.bases]
             for n in tree.body if isinstance(n, ast.ClassDef) and n.name.endswith("Error")}
    assert bases == {
        "DemoError": ["ValueError"],
        "NotADemoError": ["DemoError"],
        "DemoTruncatedError": ["DemoError"],
        "UnknownNameError": ["DemoError"],
        "BadArgumentError": ["DemoError", "TypeError"],
        "ScenarioError": ["ValueError"],
    }
    for name, stub_bases in bases.items():
        native = getattr(_gamewire, name)
        assert [b.__name__ for b in native.__bases__] == stub_bases, name
