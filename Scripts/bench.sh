#!/usr/bin/env bash
# Runs the Benchmarks package (package-benchmark: wall clock, malloc counts, peak resident memory) and compares the results with
# the checked-in thresholds in Benchmarks/Thresholds; exits non-zero on a regression.
#
#   Scripts/bench.sh             compare with the thresholds
#   Scripts/bench.sh --check-mallocs   the same, failing only on allocation counts (CI: times and memory on a
#                                shared machine are too noisy to fail a build on)
#   Scripts/bench.sh --update    measure and write new thresholds (then commit Benchmarks/Thresholds)
#   Scripts/bench.sh --run       just run and print the tables
#
# Benchmark filters must match whole names, e.g.: Scripts/bench.sh --run --filter "1 photo.*"
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
mode="${1:---check}"
shift || true
case "$mode" in
    --update) swift package --allow-writing-to-package-directory benchmark thresholds update --no-progress "$@" ;;
    --run) swift package benchmark --no-progress "$@" ;;
    --check|--check-mallocs)
        # package-benchmark writes each threshold file under the benchmark's name with spaces made underscores
        # (`thresholds update`), but `thresholds check` opens the raw name, so it found none of ours (every name
        # has spaces) and failed at once. Hand it a copy named as it looks (no Weft benchmark name has an
        # underscore or a slash of its own, so turning underscores back into spaces gives the raw name).
        raw=$(mktemp -d)
        trap 'rm -rf "$raw"' EXIT
        for file in Thresholds/*.p90.json; do
            name=$(basename "$file")
            cp "$file" "$raw/${name//_/ }"
        done
        # The check fails on deviations either way; one that is only better than the files passes here, with
        # a word to update them.
        log="$raw/check.log"
        if swift package benchmark thresholds check --no-progress --path "$raw" "$@" 2>&1 | tee "$log"; then
            exit 0
        fi
        if grep -aq "is BETTER than the defined thresholds" "$log" && ! grep -aq "is WORSE than" "$log"; then
            echo "bench.sh: better than the checked-in thresholds only; run Scripts/bench.sh --update to record it"
            exit 0
        fi
        if [ "$mode" = --check-mallocs ]; then
            # Each benchmark's regressions come as one table per metric after its "Deviations worse" line.
            # (The check itself must measure every metric: measuring fewer changes the allocation counts.)
            worse=$(awk '/^Deviations worse than threshold for/ { name = $0; sub(/^Deviations worse than threshold for /, "", name); inside = 1; next }
                         /^Deviations better than threshold for/ || /^The baseline/ { inside = 0 }
                         inside && /Malloc \(total\)/ { print name }' "$log")
            if [ -z "$worse" ]; then
                echo "bench.sh: no allocation count is worse than its threshold (times or memory are; not checked here)"
                exit 0
            fi
            echo "bench.sh: allocation counts worse than their thresholds in:" >&2
            echo "$worse" >&2
        fi
        exit 1 ;;
    *) echo "usage: Scripts/bench.sh [--check|--update|--run] [benchmark options]" >&2; exit 2 ;;
esac
