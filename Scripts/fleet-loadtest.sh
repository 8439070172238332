#!/usr/bin/env bash
# The fleet mode of Scripts/loadtest.sh (called by it with --fleet N): starts Scripts/fleet.sh's fleet of N
# instances (with Redis unless --no-redis) in a folder of its own, drives nginx with the same wrk load, then
# prints requests per second, p50/p99 latency, and the fleet-wide hit rate and per-level counts summed over
# every instance's /metrics, and stops the fleet.
#
# Usage: Scripts/fleet-loadtest.sh INSTANCES SECONDS THREADS CONNECTIONS SERVER PAGES-DIR [fleet.sh options]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/Scripts/fleet.sh"
[ $# -ge 6 ] || { echo "usage: $0 INSTANCES SECONDS THREADS CONNECTIONS SERVER PAGES-DIR [fleet.sh options]" >&2; exit 2; }
instances="$1" duration="$2" threads="$3" connections="$4" pages="$6"
fleet_server="$5"
fleet_state="$(mktemp -d "${TMPDIR:-/tmp}/weft-fleet-load.XXXXXX")"
shift 6
fleet_options --instances "$instances" "$@"
fleet_pick_port
trap 'fleet_stop >/dev/null 2>&1; rm -rf "$fleet_state"' EXIT

fleet_start
echo "== wrk through nginx: ${duration}s, $threads threads, $connections connections"
WEFT_PAGES_DIR="$pages" wrk --latency -t "$threads" -c "$connections" -d "${duration}s" \
    -s "$root/Examples/FeedServer/LoadTest/post_pages.lua" "$(fleet_url)/v1/layout" | tee "$fleet_state/wrk.txt"

for i in $(seq 1 "$instances"); do
    fleet_fetch "http://127.0.0.1:$(fleet_instance_port "$i")/metrics" >"$fleet_state/metrics-$i.txt"
done
value() { awk -v key="$1" '$1 == "WEFT" && $2 == key { print $3 }' "$fleet_state/wrk.txt"; }

echo
echo "== weft feed server fleet load test"
echo "machine            $(nproc) cores, $(uname -sm); wrk, nginx, Redis and the servers share them"
echo "fleet              $instances instances behind nginx, $([ "$fleet_redis" = 1 ] && echo "Redis as the shared cache" || echo "no Redis"), in-process caches of ${fleet_cache_bytes:-67108864} bytes"
echo "load               wrk ${duration}s, $threads threads, $connections connections; pages of 20 photo cells, width 375"
echo "requests           $(value requests) in $(value seconds) s ($(value rps) per second)"
echo "latency            p50 $(value p50_ms) ms, p99 $(value p99_ms) ms, max $(value max_ms) ms"
echo "wrk errors         $(awk '$1 == "WEFT" && $2 == "errors" { $1 = ""; $2 = ""; sub(/^ +/, ""); print }' "$fleet_state/wrk.txt")"
python3 - "$fleet_state"/metrics-*.txt <<'PY'
import sys
totals, per = {}, []
for path in sys.argv[1:]:
    mine = {}
    for line in open(path):
        parts = line.split()
        if line.startswith("#") or len(parts) != 2: continue
        name = parts[0].split("{")[0]
        mine[name] = mine.get(name, 0) + float(parts[1])
        if parts[0].startswith("weft_cache_l2_failures_total{"):
            kind = parts[0].split('kind="')[1].split('"')[0]
            op = parts[0].split('op="')[1].split('"')[0]
            mine["failure %s %s" % (op, kind)] = mine.get("failure %s %s" % (op, kind), 0) + float(parts[1])
        if parts[0].startswith("weft_http_requests_total{") and 'route="/v1/layout"' in parts[0]:
            status = parts[0].split('status="')[1].split('"')[0]
            mine["status " + status] = mine.get("status " + status, 0) + float(parts[1])
    per.append(mine)
    for key, value in mine.items(): totals[key] = totals.get(key, 0) + value
get = lambda key, d=totals: d.get(key, 0)
l1h, l1m, l2h, l2m = get("weft_cache_hits_total"), get("weft_cache_misses_total"), get("weft_cache_l2_hits_total"), get("weft_cache_l2_misses_total")
looked = l1h + l1m
print("statuses           %s" % " ".join("%s: %d" % (k[7:], v) for k, v in sorted(totals.items()) if k.startswith("status ")))
print("fleet hit rate     %.1f%% of %d cell lookups (l1 %d hits; l2 %d hits, %d misses; %d cells laid out)" % (
    100 * (l1h + l2h) / looked if looked else 0, looked, l1h, l2h, l2m, get("weft_cells_laid_out_total")))
print("l2 failures        %d (%s); %d corrupt entries" % (get("weft_cache_l2_failures_total"),
    ", ".join("%s: %d" % (k[8:], v) for k, v in sorted(totals.items()) if k.startswith("failure ")) or "none",
    get("weft_cache_l2_corrupt_total")))
print("per instance       %s" % ", ".join("%d requests" % sum(v for k, v in m.items() if k.startswith("status ")) for m in per))
PY
