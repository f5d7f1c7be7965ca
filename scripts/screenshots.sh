#!/usr/bin/env bash
# The README's pictures, made from what ships with gamewire:
#
#   scripts/screenshots.sh            # every picture
#   scripts/screenshots.sh plots      # one picture per `gamewire plot` kind
#   scripts/screenshots.sh viewer     # the replay pages (CS2 sample, Teeworlds)
#
# plots: `gamewire plot --sample --kind KIND --width 640 --height 480` for
# positions, trails, heatmap, kills and grenades, into
# docs/images/plot-KIND.png. The plots draw no text and plotters' bitmap
# output for fixed input is fixed, so these files are exactly what the
# command writes: crates/cli/tests/plot.rs makes them again and compares
# them byte for byte (run this script after changing how plots look).
#
# viewer: the replay page on the sample demo as its browser test leaves it
# (crates/wasm/tests/browser.rs) into docs/images/viewer-cs2.png, and the
# Teeworlds replay page as its browser test leaves it
# (crates/cli/tests/tw_replay.rs: a demo the real 0.7.5 server records,
# played in Chromium), into docs/images/viewer-teeworlds.png. Needs
# `.ci/setup-teeworlds.sh start` and `.ci/setup-web.sh` first. The demo
# differs from run to run (ticks, chat), so this picture is not compared
# byte for byte.
#
# GAMEWIRE: the gamewire binary to use (default: built here with
# `cargo build -p gamewire-cli`, target/debug/gamewire).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
out=docs/images
mkdir -p "$out"

gamewire() {
    if [ -z "${GAMEWIRE:-}" ]; then
        cargo build -q -p gamewire-cli
        GAMEWIRE=target/debug/gamewire
    fi
    "$GAMEWIRE" "$@"
}

plots() {
    for kind in positions trails heatmap kills grenades; do
        gamewire plot --sample --kind "$kind" --width 640 --height 480 -o "$out/plot-$kind.png"
        echo "$out/plot-$kind.png: $(wc -c <"$out/plot-$kind.png") bytes"
    done
}

viewer() {
    rm -f target/web-test/sample.png
    cargo test -q -p gamewire-wasm --test browser
    [ -s target/web-test/sample.png ] || { echo "no screenshot: is the browser setup there?" >&2; exit 1; }
    cp target/web-test/sample.png "$out/viewer-cs2.png"
    echo "$out/viewer-cs2.png: $(wc -c <"$out/viewer-cs2.png") bytes"
    rm -f target/web-screenshots/teeworlds.png
    cargo test -q -p gamewire-cli --test tw_replay
    [ -s target/web-screenshots/teeworlds.png ] || { echo "no screenshot: is the browser setup there?" >&2; exit 1; }
    cp target/web-screenshots/teeworlds.png "$out/viewer-teeworlds.png"
    echo "$out/viewer-teeworlds.png: $(wc -c <"$out/viewer-teeworlds.png") bytes"
}

case "$what" in
    plots) plots ;;
    viewer) viewer ;;
    all) plots; viewer ;;
    *) echo "usage: $0 [all|plots|viewer]" >&2; exit 2 ;;
esac
