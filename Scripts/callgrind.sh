#!/usr/bin/env bash
# Counts instructions for one `weft bench` scenario with valgrind's callgrind: repeatable on a noisy machine
# (the same binary and inputs give the same count whatever else the machine does).
#
#   Scripts/callgrind.sh SCENARIO
#   Scripts/callgrind.sh --per-call FUNCTION SCENARIO [CALLS]
#
# SCENARIO as for Scripts/profile.sh. The first form: one timed repetition after one warm-up (the hand-written
# cell always runs too); writes out/callgrind-NAME.out and prints the total and the top functions, demangled.
#
# The second form counts only inside FUNCTION, and only the calls of timed repetitions: it runs the scenario
# with 1 and with 3 repetitions and prints the difference over 2 x CALLS (the calls in one repetition, 1000 by
# default: the cell scenarios' 1,000 cells), so the warm-up, the setup and the first calls (which publish what
# later calls reuse) drop out. FUNCTION is one of
#   spec      Layout.compute (a bare spec tree: "cold spec 1,000")
#   pass      LayoutPass.compute (a node tree: "cold nodes 1,000")
#   layout    Node.layoutThatFits ("unchanged", "one leaf, every cell")
#   apply     LayoutPass.apply
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || Scripts/setup.sh valgrind
if [[ "${1:-}" == "--per-call" ]]; then
    function="${2:?usage: Scripts/callgrind.sh --per-call FUNCTION SCENARIO [CALLS]}"
    scenario="${3:?usage: Scripts/callgrind.sh --per-call FUNCTION SCENARIO [CALLS]}"
    calls="${4:-1000}"
    case "$function" in
        spec) symbol='$s10WeftLayout0B0V7compute_2in5usingAcA0B7Element_p_AA9SizeRangeVAA0B7BuilderVztAA0B5ErrorVYKFZTf4nnnd_n' ;;
        pass) symbol='$s9WeftNodes10LayoutPassV7compute4root5rangeAcA4NodeC_0aC09SizeRangeVtAA14HierarchyErrorOYKFZTf4nnd_n' ;;
        layout) symbol='$s9WeftNodes4NodeC14layoutThatFitsy0A6Layout0G0VAE9SizeRangeVAE0G5ErrorVYKF' ;;
        apply) symbol='$s9WeftNodes10LayoutPassV5apply20deferringRemovalsForAC6ResultVAA4NodeCSg_tAA14HierarchyErrorOYKF' ;;
        *) echo "unknown FUNCTION '$function': spec, pass, layout or apply" >&2; exit 2 ;;
    esac
    swift build -c release --product weft >/dev/null
    # The symbol must exist (a renamed or re-specialized function would count nothing, silently).
    # (Counted, not `grep -q`: an early exit would make nm's write fail, and pipefail the test.)
    [[ $(nm .build/release/weft | grep -cF "$symbol") -gt 0 ]] || { echo "$function: symbol $symbol not in the binary" >&2; exit 1; }
    count() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect="$symbol" \
            .build/release/weft bench --only "$scenario" --repetitions "$1" 2>&1 \
            | sed -nE 's/^==[0-9]+== I *refs: *([0-9,]+).*/\1/p' | tr -d ,
    }
    one=$(count 1)
    three=$(count 3)
    [[ -n "$one" && -n "$three" ]] || { echo "callgrind printed no count" >&2; exit 1; }
    echo "$function in \"$scenario\": $(( (three - one) / (2 * calls) )) instructions per call ($one with 1 repetition, $three with 3, $calls calls per repetition)"
    exit 0
fi
scenario="${1:?usage: Scripts/callgrind.sh SCENARIO}"
name=$(echo "$scenario" | tr -c 'A-Za-z0-9\n' '-' | tr -s '-')
mkdir -p out
swift build -c release --product weft >/dev/null
valgrind --tool=callgrind --callgrind-out-file="out/callgrind-$name.out" \
    .build/release/weft bench --only "$scenario" --repetitions 1 2>&1 | grep -E "^==[0-9]+== (Collected|I *refs)" || true
callgrind_annotate "out/callgrind-$name.out" 2>/dev/null | swift demangle --simplified | sed -n '1,45p' | cut -c1-160
