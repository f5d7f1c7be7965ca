"""The GIL is released while parsing: several threads parse at once (the same `Demo` and
different ones) and every result equals the one computed alone. A correctness test: nothing
here depends on timing."""

from __future__ import annotations

import threading

import pandas as pd

import gamewire
from conftest import DEMOS, corpus

PROPS = ["X", "Y", "Z", "health", "yaw"]


def work(demo: gamewire.Demo):
    return {
        "ticks": demo.ticks(PROPS),
        "events": demo.events(props=["health"]),
        "header": demo.header(),
    }


def check(results, expected):
    pd.testing.assert_frame_equal(results["ticks"], expected["ticks"])
    pd.testing.assert_frame_equal(results["events"], expected["events"])
    assert results["header"] == expected["header"]


def run_threads(demos):
    barrier = threading.Barrier(len(demos))
    results: list = [None] * len(demos)
    errors: list = []

    def target(i, demo):
        try:
            barrier.wait(timeout=60)
            results[i] = work(demo)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=target, args=(i, d)) for i, d in enumerate(demos)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a parsing thread did not finish"
    assert not errors, errors
    return results


def test_threads_on_different_demos():
    demos = [gamewire.Demo(corpus(rel)) for rel, *_ in DEMOS]
    expected = [work(d) for d in demos]
    for got, want in zip(run_threads(demos), expected):
        check(got, want)


def test_threads_on_one_demo():
    demo = gamewire.Demo(corpus("cs2/14150_ag2.dem"))
    expected = work(demo)
    for got in run_threads([demo] * 4):
        check(got, expected)


def test_python_runs_while_a_thread_parses():
    # A thread parses in a loop while this thread keeps running Python code; both finish
    # and the parser's results are all equal.
    demo = gamewire.Demo(corpus("cs2/14011.dem"))
    expected = work(demo)
    out = []
    t = threading.Thread(target=lambda: out.extend(work(demo) for _ in range(3)))
    t.start()
    spins = 0
    while t.is_alive():
        spins += 1  # Python bytecode running beside the parser
        t.join(timeout=0.001)
    t.join()
    assert len(out) == 3
    for got in out:
        check(got, expected)
