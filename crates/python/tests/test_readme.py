"""The README's Python examples, run as written.

Each ```python block of README.md runs in a scratch directory where `match.dem` is the corpus
demo the README's outputs show (CS2 14065) and `demos/` is the corpus' CS2 folder; it must run
without an error or a warning.
"""

from __future__ import annotations

import os
import re
import runpy
import warnings

import pytest

from conftest import REPO, corpus

_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def _blocks() -> list[tuple[int, str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return [(text[:m.start()].count("\n") + 1, m.group(1)) for m in _BLOCK.finditer(text)]


def test_the_readme_has_python_examples():
    assert len(_blocks()) >= 1


@pytest.mark.parametrize("line,code", _blocks(), ids=lambda v: f"line{v}" if isinstance(v, int) else "")
def test_readme_python_block_runs(tmp_path, monkeypatch, line, code):
    os.symlink(corpus("cs2/14065.dem"), tmp_path / "match.dem")
    os.symlink(corpus("cs2/14065.dem").parent, tmp_path / "demos")
    script = tmp_path / f"readme_{line}.py"
    script.write_text(code, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        runpy.run_path(str(script), run_name="__main__")
