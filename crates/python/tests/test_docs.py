"""docs/python.md says only what is true: its Python examples run on a corpus demo (`match.dem`
stands for cs2/14065.dem, `demos/` for the corpus's cs2 folder), and each error its `pycon`
examples show is raised with that class and that start of message."""

import re
import warnings

import pytest

import gamewire
from conftest import CORPUS, REPO, corpus

DOC = REPO / "docs" / "python.md"


def blocks(language: str) -> list:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(), flags=re.S)


def substitute(code: str) -> str:
    return (code.replace('"match.dem"', repr(str(corpus("cs2/14065.dem"))))
                .replace('"demos/"', repr(str(CORPUS / "cs2"))))


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_python_examples_run(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # what an example writes goes there
    code = substitute(blocks("python")[index])
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an example must not warn either
        exec(compile(code, f"docs/python.md example {index}", "exec"), namespace)
    assert any(not k.startswith("__") for k in namespace)


def test_pycon_examples_raise_what_they_show(tmp_path):
    demo = gamewire.Demo(corpus("cs2/14065.dem"))
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"hello, there: not a demo\n")
    shown = 0
    for block in blocks("pycon"):
        lines = block.strip().splitlines()
        for prompt, result in zip(lines, lines[1:]):
            if not prompt.startswith(">>> ") or not result.startswith("gamewire."):
                continue
            expr = prompt[4:].replace('"notes.txt"', repr(str(notes)))
            cls_name, message = result[len("gamewire."):].split(": ", 1)
            cls = getattr(gamewire, cls_name)
            with pytest.raises(cls) as e:
                eval(expr, {"gamewire": gamewire, "demo": demo})
            # The message as shown, up to where the example elides it (`...`) or names a path
            # of its own.
            start = message.split("...")[0]
            start = start.replace("notes.txt", str(notes)).replace("match.dem",
                                                                   str(demo.path))
            assert str(e.value).startswith(start.rstrip()), (str(e.value), start)
            shown += 1
    assert shown >= 3
