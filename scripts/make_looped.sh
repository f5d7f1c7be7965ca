#!/usr/bin/env bash
# Match-length demos from the corpus clips, and what the commands cost on them.
#
#   scripts/make_looped.sh [make|measure|all] [SIZE_MB ...]
#
# make:    `gamewire loop` writes target/looped/<game>-<N>mb.dem of about N MB (default 100
#          and 1000) from CS2 14155, Deadlock hltv_10423 and the Dota 2 corpus demo. The count
#          of repeats comes from the sizes of a 1- and a 2-repeat loop. A demo already there is
#          kept (delete target/looped/ to make them again). Never committed (target/).
# measure: wall time and peak RSS (/usr/bin/time -v) of `loop` itself, `rewrite`, `anonymize`,
#          `cut` (the middle half), `ticks` and `events` on each demo of the first size, as a
#          Markdown table on standard output.
# rewrite: CPU time (user + system, best of 3) of `stats` and of `rewrite` on each demo of
#          the first size, and the rewrite's throughput as a share of the full parse's, as
#          a Markdown table.
# all:     make and measure (default).
#
# Uses the release binary: build it first with `cargo build --release -p gamewire-cli`.
# GAMEWIRE_CORPUS as everywhere (default ../shared/corpus beside the repository).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
shift || true
if [ $# -gt 0 ]; then sizes=("$@"); else sizes=(100 1000); fi
bin=${GAMEWIRE_BIN:-target/release/gamewire}
corpus=${GAMEWIRE_CORPUS:-../shared/corpus}
out=target/looped
mkdir -p "$out"
[ -x "$bin" ] || { echo "no $bin: cargo build --release -p gamewire-cli" >&2; exit 2; }

demos=("cs2:$corpus/cs2/14155.dem" "deadlock:$corpus/deadlock/hltv_10423.dem"
       "dota2:$corpus/dota2/auto-20240102-2233-start.dem")

size() { stat -c %s "$1"; }

# The repeats that make about $2 MB of demo $1.
repeats_for() {
    local demo=$1 mb=$2 one two
    "$bin" loop "$demo" "$out/.probe1.dem" --times 1 2>/dev/null
    "$bin" loop "$demo" "$out/.probe2.dem" --times 2 2>/dev/null
    one=$(size "$out/.probe1.dem"); two=$(size "$out/.probe2.dem")
    rm -f "$out/.probe1.dem" "$out/.probe2.dem"
    python3 -c "import math; per=$two-$one; base=$one-per; print(max(1, math.ceil(($mb*1e6-base)/per)))"
}

# Runs a command under /usr/bin/time -v; prints "wall_s peak_mib".
timed() {
    local log
    log=$(mktemp)
    /usr/bin/time -v "$@" >/dev/null 2>"$log" || { cat "$log" >&2; rm -f "$log"; return 1; }
    python3 - "$log" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
secs = 0.0
for part in wall.split(":"):
    secs = secs * 60 + float(part)
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
print(f"{secs:.2f} {rss / 1024:.1f}")
PY
    rm -f "$log"
}

if [ "$mode" = make ] || [ "$mode" = all ]; then
    for mb in "${sizes[@]}"; do
        for entry in "${demos[@]}"; do
            game=${entry%%:*}; demo=${entry#*:}
            [ -s "$out/$game-${mb}mb.dem" ] && continue
            k=$(repeats_for "$demo" "$mb")
            "$bin" loop "$demo" "$out/$game-${mb}mb.dem" --times "$k"
        done
    done
fi

if [ "$mode" = measure ] || [ "$mode" = all ]; then
    mb=${sizes[0]}
    echo "| demo | MB | command | wall s | MB/s | peak RSS MiB |"
    echo "|---|---:|---|---:|---:|---:|"
    for entry in "${demos[@]}"; do
        game=${entry%%:*}; demo=${entry#*:}
        d="$out/$game-${mb}mb.dem"
        bytes=$(size "$d")
        mbs=$(python3 -c "print(f'{$bytes/1e6:.1f}')")
        last=$("$bin" info "$d" --format json | python3 -c "import json,sys; print(json.load(sys.stdin)['last_tick'])")
        k=$(repeats_for "$demo" "$mb")
        run() {
            local name=$1; shift
            read -r wall rss < <(timed "$@")
            rate=$(python3 -c "print(f'{$bytes/1e6/$wall:.0f}' if $wall > 0 else '-')")
            echo "| $game | $mbs | $name | $wall | $rate | $rss |"
        }
        run "loop --times $k" "$bin" loop "$demo" "$out/.m-loop.dem" --times "$k"
        run rewrite "$bin" rewrite "$d" "$out/.m-out.dem"
        run anonymize "$bin" anonymize "$d" "$out/.m-out.dem" --key bench
        run "cut (middle half)" "$bin" cut "$d" "$out/.m-out.dem" \
            --from-tick $((last / 4)) --to-tick $((3 * last / 4))
        run "ticks --props X,Y,Z,health" "$bin" ticks "$d" --props X,Y,Z,health
        run events "$bin" events "$d"
        rm -f "$out/.m-loop.dem" "$out/.m-out.dem"
    done
fi

# CPU seconds (user + system) of a command: the best of 3 runs.
cpu() {
    local best="" t log
    log=$(mktemp)
    for _ in 1 2 3; do
        /usr/bin/time -o "$log" -f "%U %S" "$@" >/dev/null 2>&1
        t=$(awk '{printf "%.2f", $1 + $2}' "$log")
        if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $t < $best else 1)"; then
            best=$t
        fi
    done
    rm -f "$log"
    echo "$best"
}

if [ "$mode" = rewrite ]; then
    mb=${sizes[0]}
    echo "| demo | MB | full packets | stats CPU s | rewrite CPU s | rewrite / stats throughput |"
    echo "|---|---:|---:|---:|---:|---:|"
    for entry in "${demos[@]}"; do
        game=${entry%%:*}
        d="$out/$game-${mb}mb.dem"
        [ -s "$d" ] || { echo "no $d: make it first" >&2; exit 2; }
        mbs=$(python3 -c "print(f'{$(size "$d")/1e6:.1f}')")
        # DEM_FullPacket frames (command 13) and their share of the file's bytes.
        fulls=$(python3 - "$d" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
def varint(at):
    value = shift = 0
    while True:
        b = data[at]; at += 1
        value |= (b & 0x7F) << shift; shift += 7
        if b < 0x80:
            return value, at
at, count, size = 16, 0, 0
while at < len(data):
    command, at = varint(at)
    _, at = varint(at)
    n, at = varint(at)
    if command & ~64 == 13:
        count += 1; size += n
    at += n
print(f"{count} ({100 * size / len(data):.0f} % of the bytes)")
PY
)
        s=$(cpu "$bin" stats "$d")
        r=$(cpu "$bin" rewrite "$d" "$out/.m-out.dem")
        rm -f "$out/.m-out.dem"
        echo "| $game | $mbs | $fulls | $s | $r | $(python3 -c "print(f'{$s/$r:.2f}')") |"
    done
fi
