#!/usr/bin/env bash
# Runs the Benchmarks package (package-benchmark: wall clock, malloc counts, peak resident memory) and compares the results with
# the checked-in thresholds in Benchmarks/Thresholds; exits non-zero on a regression.
#
#   Scripts/bench.sh             compare with the thresholds
#   Scripts/bench.sh --check-mallocs   the same for allocation counts only (CI: times and memory on a shared
#                                machine are too noisy to fail a build on); like the check, it fails when a
#                                benchmark crashes or a threshold file is missing
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
            if [ "$mode" = --check-mallocs ]; then
                # Only the malloc count is compared (every metric is still measured: measuring fewer changes
                # the allocation counts). A file without it would compare nothing: refuse it.
                python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
if "mallocCountTotal" not in d: sys.exit("bench.sh: no mallocCountTotal in " + sys.argv[1])
json.dump({"mallocCountTotal": d["mallocCountTotal"]}, open(sys.argv[2], "w"))' "$file" "$raw/${name//_/ }"
            else
                cp "$file" "$raw/${name//_/ }"
            fi
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
        exit 1 ;;
    *) echo "usage: Scripts/bench.sh [--check|--update|--run] [benchmark options]" >&2; exit 2 ;;
esac
