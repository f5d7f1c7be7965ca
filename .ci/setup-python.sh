#!/usr/bin/env bash
# The Python package (crates/python): a venv at <repo>/target/py-venv with the
# freshly built gamewire wheel and what its pytest suite needs.
#   start: create the venv and install the pinned tools once (maturin, pytest, pandas,
#          pyarrow, polars, demoparser2==0.42.0 and awpy==3.1.1 for the comparison tests, dask,
#          distributed and duckdb for the dataset tests); then always
#          build the abi3 wheel with `maturin build --release` (its own cargo target dir,
#          target/py-build, so an unchanged tree rebuilds in seconds) and force-reinstall
#          it, so the venv always holds the current code. Idempotent.
#   stop:  nothing to stop.
# Used by crates/python/tests/pytest.rs (`cargo test -p gamewire-python`), which runs
# `target/py-venv/bin/python -m pytest crates/python/tests -q` from the repo root.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=target/py-venv
WHEELS=target/py-wheels
PY=${PYTHON:-python3}
# Pinned so that CI sees what was tested. maturin >= 1.9.4 sets PYO3_BUILD_EXTENSION_MODULE
# (no libpython link in the wheel); demoparser2 0.42.0 is the peer the comparison tests use;
# awpy 3.1.1 (a parser of its own in Rust, with its own kill, round and damage logic) is the second
# peer of the synthesized demos (it needs Python 3.11 or later and polars 2.x). dask and
# distributed run `gamewire.dask` on a LocalCluster in test_dask.py (the package's `dask` extra;
# dask[dataframe] needs nothing beyond pandas, numpy and pyarrow, pinned here); duckdb is one of
# the four readers of the Parquet dataset that test reads back.
PACKAGES=(
    "maturin==1.16.0"
    "pytest==9.2.0"
    "numpy==2.4.6"
    "pandas==3.1.1"
    "pyarrow==26.0.1"
    "polars==2.1.0"
    "demoparser2==0.42.0"
    "awpy==3.1.1"
    "dask==2026.8.0"
    "distributed==2026.8.0"
    "duckdb==2.0.1"
)

tools_ok() {
    "$VENV/bin/python" - "${PACKAGES[@]}" <<'PYEOF' 2>/dev/null
import sys
from importlib.metadata import version
for spec in sys.argv[1:]:
    name, want = spec.split("==")
    if version(name) != want:
        sys.exit(1)
import awpy, dask.dataframe, demoparser2, distributed, duckdb, pandas, polars, pyarrow, pytest  # noqa: F401
PYEOF
}

case "${1:-start}" in
start)
    t0=$SECONDS
    mkdir -p target
    if [ -x "$VENV/bin/python" ] && tools_ok; then
        echo "python tools already installed in $VENV"
    else
        echo "creating $VENV with ${PACKAGES[*]}"
        if [ ! -x "$VENV/bin/python" ]; then
            rm -rf "$VENV"
            "$PY" -m venv "$VENV"
        fi
        "$VENV/bin/python" -m pip install --disable-pip-version-check --quiet "${PACKAGES[@]}"
        tools_ok || { echo "the pinned python tools are not importable from $VENV" >&2; exit 1; }
    fi
    echo "building the gamewire wheel (maturin build --release, abi3)"
    rm -rf "$WHEELS"
    CARGO_TARGET_DIR="$PWD/target/py-build" "$VENV/bin/maturin" build --release --locked \
        -m crates/python/Cargo.toml --out "$WHEELS" \
        --interpreter "$VENV/bin/python" --quiet
    wheels=("$WHEELS"/gamewire-*.whl)
    [ -f "${wheels[0]}" ] || { echo "maturin produced no wheel in $WHEELS" >&2; exit 1; }
    "$VENV/bin/python" -m pip install --disable-pip-version-check --quiet \
        --force-reinstall --no-deps "${wheels[0]}"
    "$VENV/bin/python" -c "import gamewire; print('gamewire', gamewire.__version__, 'installed from', gamewire.__file__)"
    echo "python setup done in $((SECONDS - t0)) s"
    ;;
stop)
    ;;
*)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
