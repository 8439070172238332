#!/usr/bin/env bash
# Counts instructions for one `weft bench` scenario with valgrind's callgrind: repeatable on a noisy machine
# (the same binary and inputs give the same count whatever else the machine does).
#
#   Scripts/callgrind.sh SCENARIO
#
# SCENARIO as for Scripts/profile.sh. One timed repetition after one warm-up; the hand-written cell always
# runs too. Writes out/callgrind-NAME.out and prints the total and the top functions, demangled.
set -euo pipefail
cd "$(dirname "$0")/.."
scenario="${1:?usage: Scripts/callgrind.sh SCENARIO}"
name=$(echo "$scenario" | tr -c 'A-Za-z0-9\n' '-' | tr -s '-')
mkdir -p out
command -v valgrind >/dev/null || Scripts/setup.sh valgrind
swift build -c release --product weft >/dev/null
valgrind --tool=callgrind --callgrind-out-file="out/callgrind-$name.out" \
    .build/release/weft bench --only "$scenario" --repetitions 1 2>&1 | grep -E "^==[0-9]+== (Collected|I *refs)" || true
callgrind_annotate "out/callgrind-$name.out" 2>/dev/null | swift demangle --simplified | sed -n '1,45p' | cut -c1-160
