#!/usr/bin/env bash
# Load test of the feed server (Examples/FeedServer): builds it in release, starts it on 127.0.0.1 on a free
# port, drives POST /v1/layout with wrk for a bounded time with pages of 20 photo cells at width 375 (200
# pre-generated page bodies, each with 4 new posts per request and 16 drawn from 1,000 popular ones), then
# prints requests per second, p50 and p99 latency and the cache hit rate read from /metrics, and stops the
# server (SIGTERM: a graceful shutdown).
#
# Usage: Scripts/loadtest.sh [--duration SECONDS] [--threads N] [--connections N] [--server PATH]   (15, 2, 32)
#                            [--fleet N [--no-redis] [--cache-bytes N]]
# (--server: a feed-server binary to drive instead of building this one, such as an older build to compare.)
# (--fleet N: drive a fleet of N instances through nginx, with Redis as their shared cache unless --no-redis;
# see Scripts/fleet.sh; --cache-bytes sets each instance's in-process cache. The hit rate is then fleet-wide:
# cells found in either level over cells looked up.)
# Needs python3 (to generate the pages) and wrk (installed with apt-get if missing). Traffic goes to
# 127.0.0.1 only.
set -euo pipefail

duration=15
threads=2
connections=32
server=""
fleet=0
fleet_extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --connections) connections="$2"; shift 2 ;;
        --server) server="$2"; shift 2 ;;
        --fleet) fleet="$2"; shift 2 ;;
        --no-redis) fleet_extra+=(--no-redis); shift ;;
        --cache-bytes) fleet_extra+=(--cache-bytes "$2"); shift 2 ;;
        *) echo "usage: $0 [--duration SECONDS] [--threads N] [--connections N] [--server PATH] [--fleet N [--no-redis] [--cache-bytes N]]" >&2; exit 2 ;;
    esac
done
case "$fleet" in ''|*[!0-9]*) echo "--fleet: expected a number of instances, got '$fleet'" >&2; exit 2 ;; esac
case "$duration" in ''|*[!0-9]*) echo "--duration: expected whole seconds, got '$duration'" >&2; exit 2 ;; esac
if [ "$duration" -lt 1 ] || [ "$duration" -gt 600 ]; then
    echo "--duration: expected 1 to 600 seconds, got $duration" >&2
    exit 2
fi

root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/Scripts/feed-server-common.sh"

if ! command -v wrk >/dev/null 2>&1; then
    echo "== installing wrk"
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq wrk
fi
command -v python3 >/dev/null 2>&1 || { echo "python3 is needed to generate the pages" >&2; exit 1; }

build_server

echo "== generating the pages"
python3 "$package/LoadTest/make_pages.py" "$work/pages"

if [ "$fleet" -gt 0 ]; then
    "$root/Scripts/fleet-loadtest.sh" "$fleet" "$duration" "$threads" "$connections" "$server" "$work/pages" ${fleet_extra[@]+"${fleet_extra[@]}"}
    exit 0
fi

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
url="http://127.0.0.1:$port"

fetch() {
    python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1"
}

echo "== starting the server on 127.0.0.1:$port"
"$server" --host 127.0.0.1 --port "$port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
    if fetch "$url/health" >/dev/null 2>&1; then break; fi
    if ! kill -0 "$server_pid" 2>/dev/null; then cat "$work/server.log" >&2; exit 1; fi
    sleep 0.1
done
fetch "$url/health" >/dev/null

echo "== wrk: ${duration}s, $threads threads, $connections connections"
WEFT_PAGES_DIR="$work/pages" wrk --latency -t "$threads" -c "$connections" -d "${duration}s" \
    -s "$package/LoadTest/post_pages.lua" "$url/v1/layout" | tee "$work/wrk.txt"

fetch "$url/metrics" >"$work/metrics.txt"
metric() { awk -v name="$1" '$1 == name { print $2 }' "$work/metrics.txt"; }
hits="$(metric weft_cache_hits_total)"
misses="$(metric weft_cache_misses_total)"
evictions="$(metric weft_cache_evictions_total)"
statuses="$(grep '^weft_http_requests_total{route="/v1/layout"' "$work/metrics.txt" | sed 's/.*status="\([0-9]*\)"} \(.*\)/\1: \2/' | paste -sd ' ' -)"
value() { awk -v key="$1" '$1 == "WEFT" && $2 == key { print $3 }' "$work/wrk.txt"; }

kill -TERM "$server_pid"
exit_status=0
wait "$server_pid" || exit_status=$?
server_pid=""

echo
echo "== weft feed server load test"
echo "machine            $(nproc) cores, $(uname -sm)"
echo "load               wrk ${duration}s, $threads threads, $connections connections; pages of 20 photo cells, width 375"
echo "requests           $(value requests) in $(value seconds) s ($(value rps) per second)"
echo "latency            p50 $(value p50_ms) ms, p99 $(value p99_ms) ms, max $(value max_ms) ms"
echo "statuses           $statuses"
if [[ "$statuses" == *"499:"* ]]; then
    echo "                   (499: requests in flight when wrk closed its connections at the end; nobody waits for them)"
fi
echo "wrk errors         $(awk '$1 == "WEFT" && $2 == "errors" { $1 = ""; $2 = ""; sub(/^ +/, ""); print }' "$work/wrk.txt")"
python3 - "$hits" "$misses" "$evictions" <<'EOF'
import sys
hits, misses, evictions = (float(x or 0) for x in sys.argv[1:4])
rate = 100 * hits / (hits + misses) if hits + misses else 0
print("cache hit rate     %.1f%% (%d hits, %d misses of cells, %d evictions)" % (rate, hits, misses, evictions))
EOF
echo "server stopped     by SIGTERM (graceful shutdown), exit status $exit_status"
