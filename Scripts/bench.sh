#!/usr/bin/env bash
# Runs the Benchmarks package (package-benchmark: wall clock, CPU, malloc counts) and compares the results with
# the checked-in thresholds in Benchmarks/Thresholds; exits non-zero on a regression.
#
#   Scripts/bench.sh             compare with the thresholds
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
    --check)
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
        swift package benchmark thresholds check --no-progress --path "$raw" "$@" ;;
    *) echo "usage: Scripts/bench.sh [--check|--update|--run] [benchmark options]" >&2; exit 2 ;;
esac
