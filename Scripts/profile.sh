#!/usr/bin/env bash
# Profiles one `weft bench` scenario with perf (cpu-clock: these machines have no hardware counters) over a
# release build, and writes a demangled report and a flame graph.
#
#   Scripts/profile.sh SCENARIO [REPETITIONS]
#
# SCENARIO is text from a `weft bench` label: "cold spec 10,000", "cold nodes 10,000", "unchanged",
# "one leaf, every cell", "wide", "deep", "huge nested", "parallel feed", "batch insert".
# Writes out/profile-NAME.txt (top symbols) and out/flame-NAME.svg. The flame graph renderer
# (Scripts/flamegraph.py) uses only Python's standard library: nothing to install.
set -euo pipefail
cd "$(dirname "$0")/.."
scenario="${1:?usage: Scripts/profile.sh SCENARIO [REPETITIONS]}"
repetitions="${2:-10}"
name=$(echo "$scenario" | tr -c 'A-Za-z0-9\n' '-' | tr -s '-')
mkdir -p out
command -v perf >/dev/null || Scripts/setup.sh perf
swift build -c release --product weft >/dev/null
perf record -e cpu-clock -g -o "out/perf-$name.data" -- .build/release/weft bench --only "$scenario" --repetitions "$repetitions"
perf report -i "out/perf-$name.data" --no-children --sort symbol --stdio 2>/dev/null \
    | swift demangle --simplified > "out/profile-$name.txt"
perf script -i "out/perf-$name.data" 2>/dev/null | swift demangle --simplified | python3 Scripts/flamegraph.py > "out/flame-$name.svg"
echo "top symbols (out/profile-$name.txt):"
grep -E '^ +[0-9]' "out/profile-$name.txt" | head -25 | cut -c1-150
echo "flame graph: out/flame-$name.svg"
