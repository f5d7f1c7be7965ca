#!/usr/bin/env bash
# Builds the browser viewer's WebAssembly: crates/wasm for wasm32 in release,
# then wasm-bindgen's JavaScript glue (--target web: a plain ES module the
# worker imports) into web/pkg/, and copies the sample demo to web/sample.dem
# (both gitignored). The wasm-bindgen command line must be the version of the
# wasm-bindgen crate in Cargo.lock: it is looked for in target/tools/bin
# (where .ci/setup-web.sh installs it), then on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
bindgen=target/tools/bin/wasm-bindgen
[ -x "$bindgen" ] || bindgen=$(command -v wasm-bindgen || true)
if [ -z "$bindgen" ]; then
    echo "error: no wasm-bindgen command line; install it with .ci/setup-web.sh start" >&2
    exit 1
fi
have=$("$bindgen" --version | awk '{ print $2 }')
if [ "$have" != "$want" ]; then
    echo "error: $bindgen is $have, Cargo.lock's wasm-bindgen is $want" >&2
    exit 1
fi

cargo build --locked --release --target wasm32-unknown-unknown -p gamewire-wasm
rm -rf web/pkg.partial
"$bindgen" --target web --no-typescript --out-dir web/pkg.partial \
    target/wasm32-unknown-unknown/release/gamewire_wasm.wasm
rm -rf web/pkg
mv web/pkg.partial web/pkg
cp crates/synth/sample/sample.dem web/sample.dem.partial
mv web/sample.dem.partial web/sample.dem
echo "built web/pkg ($(du -k web/pkg/gamewire_wasm_bg.wasm | cut -f1) KiB of wasm) and web/sample.dem"
