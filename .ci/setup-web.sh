#!/usr/bin/env bash
# The browser viewer (web/) and its browser test (crates/wasm/tests/browser.rs):
#   start: Debian's chromium and chromium-driver (apt; Playwright's own browser download
#          is not used), the wasm32-unknown-unknown target, the wasm-bindgen command line
#          of the version Cargo.lock holds (into target/tools, not globally), the npm
#          packages of web/tests (package-lock.json: playwright-core only), then
#          scripts/build_web.sh (web/pkg and web/sample.dem). Idempotent: what is there
#          already is kept.
#   stop:  nothing to stop.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-start}" in
start)
    t0=$SECONDS
    if [ ! -x /usr/bin/chromium ] || ! command -v chromedriver >/dev/null; then
        echo "installing chromium and chromium-driver"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq chromium chromium-driver >/dev/null
    fi
    /usr/bin/chromium --version 2>/dev/null | grep -v "unexpected operator" || true
    rustup target add wasm32-unknown-unknown
    want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
    have=$(target/tools/bin/wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
    if [ "$have" != "$want" ]; then
        echo "installing wasm-bindgen-cli $want into target/tools"
        # --locked first (the versions its authors tested); a registry that no longer
        # serves one of those (a yanked release) leaves the newest compatible ones.
        cargo install wasm-bindgen-cli --version "=$want" --locked --root target/tools \
            --target-dir target/tools-build \
            || cargo install wasm-bindgen-cli --version "=$want" --root target/tools \
                --target-dir target/tools-build
    fi
    (cd web/tests && npm ci --no-audit --no-fund)
    scripts/build_web.sh
    echo "web set up in $((SECONDS - t0)) s"
    ;;
stop)
    ;;
*)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
