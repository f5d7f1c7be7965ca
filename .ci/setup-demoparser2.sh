#!/usr/bin/env bash
# The peers of the differential tests: demoparser2 (PyPI) in a venv inside the repo's
# ignored target dir, at a path the tests know: <repo>/target/peers-venv.
#   start: create the venv and install demoparser2==0.42.0 (+ pandas, pyarrow, polars) and
#          awpy==3.1.1; idempotent.
# awpy is the second peer of the synthesized demos (crates/python/tests/test_synth.py): a
# CS2 parser of its own (Rust, not demoparser2), whose kills, rounds and damages tables are
# its own reading of a match (rounds from the game rules' state, not the round events).
# Pinned at 3.1.1, the release tested; it needs Python 3.11 or later and polars 2.x, and
# leaves demoparser2 0.42.0 as it is.
#   stop:  nothing to stop.
# Used by crates/cli/tests/demoparser2_diff.rs, crates/query/tests/demoparser2.rs and
# scripts/compare_demoparser2.py, bench_vs_demoparser2.py and bench_batch.py.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=target/peers-venv
DP2_VERSION=0.42.0
AWPY_VERSION=3.1.1
PY=${PYTHON:-python3}

check() {
    "$VENV/bin/python" - "$DP2_VERSION" "$AWPY_VERSION" <<'PYEOF' 2>/dev/null
import sys
from importlib.metadata import version
import demoparser2, pandas, pyarrow, polars, awpy  # noqa: F401
ok = version("demoparser2") == sys.argv[1] and version("awpy") == sys.argv[2]
sys.exit(0 if ok else 1)
PYEOF
}

case "${1:-start}" in
start)
    if [ -x "$VENV/bin/python" ] && check; then
        echo "demoparser2 $DP2_VERSION and awpy $AWPY_VERSION already installed in $VENV"
        exit 0
    fi
    echo "creating $VENV with demoparser2==$DP2_VERSION"
    mkdir -p target
    if [ ! -x "$VENV/bin/python" ]; then
        rm -rf "$VENV"
        "$PY" -m venv "$VENV"
    fi
    "$VENV/bin/python" -m pip install --disable-pip-version-check --quiet \
        "demoparser2==$DP2_VERSION" "awpy==$AWPY_VERSION" pandas pyarrow polars
    check || { echo "demoparser2 $DP2_VERSION or awpy $AWPY_VERSION not importable from $VENV" >&2; exit 1; }
    echo "demoparser2 $DP2_VERSION and awpy $AWPY_VERSION installed in $VENV"
    ;;
stop)
    ;;
*)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
