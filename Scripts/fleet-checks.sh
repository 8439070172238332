#!/usr/bin/env bash
# Failover checks of the feed server fleet (issue 13), with the real components on loopback (Redis, two
# feed-server instances, nginx; see Scripts/fleet.sh), each bounded in time:
#
#   (a) a cell laid out by instance 1 is served from Redis by instance 2: 2's l2 hits go up by the page's
#       cells, its layout count does not, and the answers are the same;
#   (b) Redis killed (SIGKILL) under load through nginx, restarted later: no failed request, l2 hits stop
#       while it is down and come back after it returns;
#   (c) one instance killed (SIGKILL) under load through nginx: no failed request;
#   (d) a poisoned entry (one byte changed) and a truncated one, written with redis-cli, are detected
#       (weft_cache_l2_corrupt_total{reason="checksum"} and {reason="truncated"}), the cell laid out again,
#       and the answer is right.
#
# Usage: Scripts/fleet-checks.sh [--quick] [--server PATH]    (--quick: 12 s loads instead of 24 s)
# Prints each check's counts; exits 1 if any check fails. Needs redis-server, redis-cli, nginx, wrk, python3.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/Scripts/fleet.sh"
load_seconds=24
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) load_seconds=12; shift ;;
        --server) fleet_server="$2"; shift 2 ;;
        *) echo "usage: $0 [--quick] [--server PATH]" >&2; exit 2 ;;
    esac
done

package="$root/Examples/FeedServer"
fleet_state="$(mktemp -d "${TMPDIR:-/tmp}/weft-fleet-checks.XXXXXX")"
fleet_instances=2
fleet_pick_port
# A small in-process cache (about 250 photo cells of the load's 1,000 popular ones), so that under load the
# instances keep asking Redis and its loss shows in the hit rate.
fleet_cache_bytes=$((512 * 1024))
trap 'fleet_stop >/dev/null 2>&1; rm -rf "$fleet_state"' EXIT
failures=0

check() {  # check NAME CONDITION-EXIT-STATUS DETAILS
    if [ "$2" -eq 0 ]; then echo "PASS  $1: $3"; else echo "FAIL  $1: $3"; failures=$((failures + 1)); fi
}

# The sum of every series of metric $2 (all labels, or those starting with $3) at instance $1.
metric() {
    fleet_fetch "http://127.0.0.1:$(fleet_instance_port "$1")/metrics" | python3 -c '
import sys
name, prefix = sys.argv[1], sys.argv[2]
total = 0.0
for line in sys.stdin:
    if line.startswith("#"): continue
    parts = line.split()
    if len(parts) == 2 and (parts[0] == name or parts[0].startswith(name + "{" + prefix)): total += float(parts[1])
print(int(total))' "$2" "${3:-}"
}

post() {  # post INSTANCE BODY-FILE: prints the answer
    python3 - "http://127.0.0.1:$(fleet_instance_port "$1")/v1/layout" "$2" <<'EOF'
import sys, urllib.request
request = urllib.request.Request(sys.argv[1], data=open(sys.argv[2], "rb").read(), headers={"Content-Type": "application/json"})
sys.stdout.write(urllib.request.urlopen(request, timeout=5).read().decode())
EOF
}

rcli() { redis-cli -p "$(fleet_redis_port)" "$@"; }

# Waits (up to 5 s) until instance $1 has written at least $2 entries to Redis.
wait_writes() {
    for _ in $(seq 1 50); do
        [ "$(metric "$1" weft_cache_l2_writes_total)" -ge "$2" ] && return 0
        sleep 0.1
    done
    return 1
}

# A page of $2 photo cells whose texts hold the token $1 (new content for every run).
make_page() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
token, count = sys.argv[1], int(sys.argv[2])
cells = [{"type": "stack", "direction": "vertical", "children": [
    {"type": "text", "text": "%s cell %d" % (token, i), "fontSize": 14},
    {"type": "image", "size": [1080, 1080], "style": {"preferredSize": [375, 375]}}]} for i in range(count)]
print(json.dumps({"width": 375, "cells": cells}))
EOF
}

# wrk through nginx for $1 seconds in the background; its report goes to $fleet_state/wrk-$2.txt.
start_load() {
    WEFT_PAGES_DIR="$fleet_state/pages" wrk --latency -t 2 -c 16 -d "${1}s" -s "$package/LoadTest/post_pages.lua" \
        "$(fleet_url)/v1/layout" >"$fleet_state/wrk-$2.txt" 2>&1 &
    load_pid=$!
}

# "requests N, errors ...": wrk's totals; sets $load_failed to the count of failed requests.
load_report() {
    local file="$fleet_state/wrk-$1.txt"
    local requests errors
    requests="$(awk '$1 == "WEFT" && $2 == "requests" { print $3 }' "$file")"
    errors="$(awk '$1 == "WEFT" && $2 == "errors" { $1 = ""; $2 = ""; sub(/^ +/, ""); print }' "$file")"
    load_failed="$(echo "$errors" | tr ' ' '\n' | awk -F= '{ s += $2 } END { print s + 0 }')"
    [ -n "$requests" ] || load_failed=1
    echo "$requests requests, $errors"
}

fleet_build
echo "== generating the pages"
python3 "$package/LoadTest/make_pages.py" "$fleet_state/pages" >/dev/null
fleet_start
token="$(date +%s%N)"

echo "== (a) a cell laid out by instance 1 is served from Redis by instance 2"
make_page "a$token" 10 >"$fleet_state/page-a.json"
answer1="$(post 1 "$fleet_state/page-a.json")"
wait_writes 1 10 || true
hits_before="$(metric 2 weft_cache_l2_hits_total)"; laid_before="$(metric 2 weft_cells_laid_out_total)"
answer2="$(post 2 "$fleet_state/page-a.json")"
hits_after="$(metric 2 weft_cache_l2_hits_total)"; laid_after="$(metric 2 weft_cells_laid_out_total)"
ok=0; [ "$((hits_after - hits_before))" -eq 10 ] && [ "$laid_after" -eq "$laid_before" ] && [ "$answer1" = "$answer2" ] || ok=1
check "(a) shared cache" $ok "instance 2: l2 hits +$((hits_after - hits_before)) (10 cells), cells laid out +$((laid_after - laid_before)), answers identical: $([ "$answer1" = "$answer2" ] && echo yes || echo no)"

echo "== (b) Redis killed under load, then restarted"
# Level 1 hits, level 1 misses and level 2 hits, summed over the instances.
# One scrape of each instance, so that a snapshot takes milliseconds.
counts() {
    python3 - "$(fleet_instance_port 1)" "$(fleet_instance_port 2)" <<'EOF'
import sys, urllib.request
names = ["weft_cache_hits_total", "weft_cache_misses_total", "weft_cache_l2_hits_total"]
totals = dict.fromkeys(names, 0.0)
for port in sys.argv[1:]:
    text = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % port, timeout=2).read().decode()
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in totals: totals[parts[0]] += float(parts[1])
print(" ".join(str(int(totals[name])) for name in names))
EOF
}
# The fleet-wide hit rate and l2 hits between two `counts`.
phase() {
    python3 -c 'import sys
a, b = [int(x) for x in sys.argv[1].split()], [int(x) for x in sys.argv[2].split()]
l1h, l1m, l2h = b[0] - a[0], b[1] - a[1], b[2] - a[2]
print("%.1f%% (%d l2 hits)" % (100.0 * (l1h + l2h) / (l1h + l1m) if l1h + l1m else 0, l2h))' "$1" "$2"
}
third=$((load_seconds / 3))
start_load "$((5 * third))" b  # long enough for a slow restart to leave load after it
sleep 1
c0="$(counts)"
sleep "$((third - 1))"
c1="$(counts)"
kill -KILL "$(cat "$fleet_state/redis.pid")"
sleep 0.5
c2="$(counts)"
sleep "$((third - 1))"
c3="$(counts)"
fleet_start_redis
sleep 0.5
c4="$(counts)"
wait "$load_pid" || true
c5="$(counts)"
failed_get="$(( $(metric 1 weft_cache_l2_failures_total 'op="get"') + $(metric 2 weft_cache_l2_failures_total 'op="get"') ))"
load_report b >"$fleet_state/report.txt"; report="$(cat "$fleet_state/report.txt")"
down_l2=$(( $(echo "$c3" | cut -d' ' -f3) - $(echo "$c2" | cut -d' ' -f3) ))
before_l2=$(( $(echo "$c1" | cut -d' ' -f3) - $(echo "$c0" | cut -d' ' -f3) ))
after_l2=$(( $(echo "$c5" | cut -d' ' -f3) - $(echo "$c4" | cut -d' ' -f3) ))
ok=0; [ "$load_failed" -eq 0 ] && [ "$before_l2" -gt 0 ] && [ "$down_l2" -eq 0 ] && [ "$after_l2" -gt 0 ] || ok=1
check "(b) Redis killed" $ok "$report; fleet hit rate $(phase "$c0" "$c1") before the kill, $(phase "$c2" "$c3") while down, $(phase "$c4" "$c5") after the restart; lookups that failed: $failed_get"

echo "== (c) one instance killed under load"
start_load "$load_seconds" c
sleep "$third"
kill -KILL "$(cat "$fleet_state/server-2.pid")"
wait "$load_pid" || true
load_report c >"$fleet_state/report.txt"; report="$(cat "$fleet_state/report.txt")"
survivor="$(metric 1 weft_http_requests_total 'route="/v1/layout",status="200"')"
ok=0; [ "$load_failed" -eq 0 ] || ok=1
check "(c) instance killed" $ok "$report (instance 2 killed after ${third} s; instance 1 has answered $survivor layouts in all)"
rm -f "$fleet_state/server-2.pid"
fleet_start_instance 2

echo "== (d) a poisoned and a truncated entry are detected and laid out again"
# One-cell pages of new content: the only key in Redis after instance 1's layout is theirs.
damage() {  # damage NAME MODE: lays out a new cell on 1, damages its entry, asks 2; prints the counts
    local name="$1" mode="$2" key
    rcli flushall >/dev/null
    make_page "$name$token" 1 >"$fleet_state/page-$name.json"
    local before_writes expected got corrupt_before laid_before
    before_writes="$(metric 1 weft_cache_l2_writes_total)"
    expected="$(post 1 "$fleet_state/page-$name.json")"
    wait_writes 1 "$((before_writes + 1))" || true
    key="$(rcli --scan --pattern 'weft:cell:*' | head -1)"
    python3 - "$(fleet_redis_port)" "$key" "$mode" <<'EOF'
import socket, sys
port, key, mode = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3]
def command(sock, *args):
    sock.sendall(b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args))
    data = b""
    while True:
        data += sock.recv(1 << 20)
        if data.startswith(b"$-1") or data.startswith(b"+") or data.startswith(b"-"): return data
        if data.startswith(b"$"):
            length = int(data[1:data.index(b"\r\n")])
            start = data.index(b"\r\n") + 2
            if len(data) >= start + length + 2: return data[start:start + length]
sock = socket.create_connection(("127.0.0.1", port))
entry = command(sock, b"GET", key)
if mode == "poison":
    damaged = entry[:-4] + bytes([entry[-4] ^ 0x20]) + entry[-3:]
else:
    damaged = entry[:-7]
assert command(sock, b"SET", key, damaged).startswith(b"+OK")
EOF
    corrupt_before="$(metric 2 weft_cache_l2_corrupt_total)"
    laid_before="$(metric 2 weft_cells_laid_out_total)"
    got="$(post 2 "$fleet_state/page-$name.json")"
    reason="$( [ "$mode" = poison ] && echo checksum || echo truncated )"
    d_corrupt="$(( $(metric 2 weft_cache_l2_corrupt_total "reason=\"$reason\"") ))"
    d_laid="$(( $(metric 2 weft_cells_laid_out_total) - laid_before ))"
    d_total="$(( $(metric 2 weft_cache_l2_corrupt_total) - corrupt_before ))"
    ok=0; [ "$d_total" -eq 1 ] && [ "$d_laid" -eq 1 ] && [ "$got" = "$expected" ] && [ "$d_corrupt" -ge 1 ] || ok=1
    check "(d) $mode entry" $ok "instance 2: corrupt entries +$d_total (reason=\"$reason\" $d_corrupt in all), cells laid out again +$d_laid, answer correct: $([ "$got" = "$expected" ] && echo yes || echo no)"
}
damage p poison
damage t truncate

echo
if [ "$failures" -gt 0 ]; then
    echo "== fleet checks: $failures FAILED"
    tail -5 "$fleet_state"/server-*.log >&2 || true
    exit 1
fi
echo "== fleet checks: all passed"
