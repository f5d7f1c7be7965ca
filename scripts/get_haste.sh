#!/usr/bin/env bash
# haste (github.com/blukai/haste), the Dota 2 and Deadlock parser that calls itself the
# fastest, brought beside the repository to be timed against gamewire. It is not on
# crates.io and its newest commit needs a dungers revision that is not published, so this
# takes three repositories at commits that build together (haste of 2024-10-11):
#
#   haste         20e0501  (github.com/blukai/haste)
#   dungers       5419784  (github.com/blukai/dungers, haste's bit buffer and varints)
#   valveprotos   63620c4  (github.com/blukai/valveprotos-rs, the game's protobufs)
#
# into target/peers/haste/ (ignored, never committed), rewrites haste's two git
# dependencies into paths to those checkouts (in the checkout only), and builds
# compare/haste/, our benchmark binary that runs haste and gamewire on the same demo.
# valveprotos compiles .proto files with `protoc` (Debian: protobuf-compiler).
#
#   scripts/get_haste.sh            # clone (once), pin, build; prints the binary's path
#
# HASTE_GIT_URL: where to clone from, `{name}` standing for the repository's name
# (default https://github.com/blukai/{name}.git; a local mirror works, e.g.
# /srv/mirror/blukai+{name}/repo).
set -euo pipefail
cd "$(dirname "$0")/.."
url=${HASTE_GIT_URL:-https://github.com/blukai/\{name\}.git}
dir=target/peers/haste
command -v protoc >/dev/null || { echo "no protoc: apt-get install protobuf-compiler" >&2; exit 2; }
mkdir -p "$dir"

# Clones (once) and checks out `rev`; a checkout already there is left as it is, so that
# cargo does not rebuild it. A fresh clone has no work tree (`--no-checkout`) even when
# its HEAD is already `rev`, so it is always checked out.
checkout() {
    local name=$1 rev=$2 to=$3 fresh=0
    if [ ! -d "$dir/$to/.git" ]; then
        git clone --quiet --no-checkout "${url//\{name\}/$name}" "$dir/$to"
        fresh=1
    fi
    if [ $fresh = 1 ] || [ "$(git -C "$dir/$to" rev-parse HEAD 2>/dev/null)" != "$(git -C "$dir/$to" rev-parse "$rev^{commit}")" ]; then
        git -C "$dir/$to" checkout --quiet --force "$rev"
    fi
}

checkout haste 20e0501 haste
checkout dungers 5419784 dungers
checkout valveprotos-rs 63620c4 valveprotos

# haste names its two git dependencies in its workspace manifest; point them at the
# checkouts beside it (in the checkout's manifest only; done once).
grep -q '^dungers = { git' "$dir/haste/Cargo.toml" && sed -i -E \
    -e 's|^dungers = \{ git = "[^"]*", rev = "[^"]*" \}|dungers = { path = "../dungers" }|' \
    -e 's|^valveprotos = \{ git = "[^"]*", rev = "[^"]*" \}|valveprotos = { path = "../valveprotos" }|' \
    "$dir/haste/Cargo.toml"
grep -q '^dungers = { path' "$dir/haste/Cargo.toml" &&
    grep -q '^valveprotos = { path' "$dir/haste/Cargo.toml" ||
    { echo "haste's manifest did not take the path rewrite" >&2; exit 1; }

(cd compare/haste && nice -n 10 cargo build --release --quiet)
echo compare/haste/target/release/gamewire-compare-haste
