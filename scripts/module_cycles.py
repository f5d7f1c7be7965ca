#!/usr/bin/env python3
"""Lists the import edges between the modules of one Rust crate and the
circles among them.

usage: scripts/module_cycles.py CRATE_SRC_DIR [--depth N] [--edges]

An edge A -> B means that module A names an item of module B: a `use
crate::...`, `use super::...` `use self::...` or `use child::...` (grouped imports expanded),
or a path such as `crate::b::Item` in code. Comments and `#[cfg(test)]`
modules at the end of a file are left out (test code may look anywhere).

Modules are named by their file (`src/parser/packets.rs` is
`parser::packets`). `--depth N` merges every module into its ancestor at
depth N (the default, 1, gives the crate's top-level modules: a parent and
its submodules are one module there); `--depth 0` keeps every module apart.
The exit status is 1 when a circle is found, 0 otherwise.
"""

import argparse
import re
import sys
from pathlib import Path


def module_name(src: Path, file: Path) -> str:
    rel = file.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "mod":
        parts.pop()
    if parts in (["lib"], ["main"]):
        return "crate"
    return "::".join(parts)


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    lines = []
    for line in text.split("\n"):
        # A `//` that starts a comment (not inside a string: good enough for
        # `use` lines and paths).
        cut = re.search(r'//(?=(?:[^"]*"[^"]*")*[^"]*$)', line)
        lines.append(line[: cut.start()] if cut else line)
    return "\n".join(lines)


def strip_tests(text: str) -> str:
    m = re.search(r"^#\[cfg\(test\)\]\s*(#\[[^\]]*\]\s*)*mod \w+\s*\{", text, flags=re.M)
    return text[: m.start()] if m else text


def expand(tree: str) -> list:
    """`a::{b, c::{d, e}}` -> [`a::b`, `a::c::d`, `a::c::e`]."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def walk(prefix: str, s: str):
        depth, start, parts = 0, 0, []
        for i, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:i])
                start = i + 1
        parts.append(s[start:])
        for part in parts:
            if not part:
                continue
            brace = part.find("{")
            if brace >= 0 and part.endswith("}"):
                walk(prefix + part[:brace], part[brace + 1 : -1])
            else:
                out.append(prefix + re.sub(r"\bas\w+$", "", part))

    walk("", tree)
    return out


def resolve(path: str, here: str, modules: set):
    """The module a path names an item of, or None (outside the crate)."""
    parts = path.split("::")
    if parts[0] == "crate":
        base = []
        parts = parts[1:]
    elif parts[0] in ("super", "self"):
        base = [] if here == "crate" else here.split("::")
        while parts and parts[0] in ("super", "self"):
            if parts[0] == "super":
                base = base[:-1]
            parts = parts[1:]
    else:
        # A path relative to this module (`use build::Stage;` for its
        # submodule `build`).
        base = [] if here == "crate" else here.split("::")
        if "::".join(base + parts[:1]) not in modules:
            return None
    # The longest prefix that is a module.
    full = base + parts
    for n in range(len(full), -1, -1):
        name = "::".join(full[:n]) if n else "crate"
        if name in modules:
            return name
    return None


def merge(name: str, depth: int) -> str:
    if depth <= 0 or name == "crate":
        return name
    return "::".join(name.split("::")[:depth])


def find_cycles(graph: dict) -> list:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path, help="the crate's src directory")
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--edges", action="store_true", help="print every edge")
    args = ap.parse_args()
    files = sorted(args.src.rglob("*.rs"))
    modules = {module_name(args.src, f) for f in files}
    edges = {}
    for f in files:
        here = module_name(args.src, f)
        text = strip_tests(strip_comments(f.read_text(encoding="utf-8")))
        targets = set()
        for m in re.finditer(r"\buse\s+([^;]*);", text):
            for path in expand(m.group(1)):
                targets.add(resolve(path, here, modules))
        for m in re.finditer(r"(?<![\w:])((?:crate|super)(?:::\w+)+)", text):
            targets.add(resolve(m.group(1), here, modules))
        a = merge(here, args.depth)
        for t in targets:
            if t is None:
                continue
            b = merge(t, args.depth)
            if a != b and b != "crate":
                edges.setdefault(a, set()).add(b)
    if args.edges:
        for a in sorted(edges):
            print(f"{a} -> {', '.join(sorted(edges[a]))}")
    cycles = find_cycles(edges)
    for c in cycles:
        print("circle: " + " <-> ".join(c))
    if not cycles:
        print(f"no circle among {len({merge(m, args.depth) for m in modules})} modules")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
