#!/usr/bin/env bash
# Hostile-client checks of the feed server (Examples/FeedServer), on 127.0.0.1 only, each against a fresh
# server (issue 10): attackers sending the worst bodies while healthy probes run, slow-loris clients, idle
# sockets beyond the open-file limit, a shutdown with a client stalled halfway through its body, and memory
# under a stream of cells never seen before. Prints one line per check; exits 1 if any failed.
#
# Usage: Scripts/server-checks.sh [--quick] [--report] [--server PATH] [--only NAME[,NAME...]]
#   --quick    the CI version: short runs, shorter timeouts on the server (about 2 minutes in all)
#   --report   print only; never fail (to measure an older server)
#   --server   a feed-server binary to check instead of building this one (release)
#   --only     attack, slowloris, sockets, shutdown, memory (default: all)
# The long version (for a report) runs the memory check for 120 s per cell kind.
set -euo pipefail

quick=0
report=""
server=""
only="attack,slowloris,sockets,shutdown,memory"
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1; shift ;;
        --report) report="--report"; shift ;;
        --server) server="$2"; shift 2 ;;
        --only) only="$2"; shift 2 ;;
        *) echo "usage: $0 [--quick] [--report] [--server PATH] [--only NAME[,NAME...]]" >&2; exit 2 ;;
    esac
done

root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/Scripts/feed-server-common.sh"
hostile="$package/LoadTest/hostile.py"
failed=0

command -v python3 >/dev/null 2>&1 || { echo "python3 is needed" >&2; exit 1; }
build_server
python3 "$package/LoadTest/make_pages.py" "$work/pages" >/dev/null

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_server [ulimit-n] [flags...]: starts the server on a free port (under an open-file limit if the first
# argument is a number), sets $url and $server_pid, and waits for /health.
start_server() {
    local limit=""
    if [[ "${1:-}" =~ ^[0-9]+$ ]]; then limit="$1"; shift; fi
    local port
    port="$(free_port)"
    url="http://127.0.0.1:$port"
    if [ -n "$limit" ]; then
        (ulimit -n "$limit" && exec "$server" --host 127.0.0.1 --port "$port" "$@") >"$work/server.log" 2>&1 &
    else
        "$server" --host 127.0.0.1 --port "$port" "$@" >"$work/server.log" 2>&1 &
    fi
    server_pid=$!
    for _ in $(seq 1 100); do
        if python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' "$url/health" 2>/dev/null; then
            return 0
        fi
        kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
        sleep 0.1
    done
    echo "the server did not start" >&2
    exit 1
}

check() { "$@" || failed=1; }

# The flags given that this server knows (an older one, measured with --report, lacks some).
known() {
    local flag
    for flag in "$@"; do
        if [[ "$flag" == --* ]] && ! "$server" --help 2>&1 | grep -q -- "$flag"; then skip=1; continue; fi
        if [ "${skip:-0}" = 1 ]; then skip=0; continue; fi
        printf '%s\n' "$flag"
    done
}

wants() { [[ ",$only," == *",$1,"* ]]; }

if wants attack; then
    # The issue's bound is 2x; the quick version (CI, 5 s windows on a machine it may share) allows 3x plus
    # 15 ms, which still catches a server without its protections (probes then wait for the attack: 503s, or
    # 10x and more; with --slow-job 100, nested: 324 ms). The 15 ms is what the server's design lets the attack
    # cost a probe: each new costly request holds a core at normal priority until its job is handed off to the
    # idle class (slow job 5 ms, found by a monitor that looks every 2.5 ms), two attackers can hold both cores
    # at once, and a probe arriving then waits behind them. That adds to a probe's wait rather than multiplying
    # it: on a quiet machine, where the probes' p99 alone is 1-4 ms, the nested attack (a small body, so not
    # idle from its start as the 1 MB ones are) measured 7-22 ms under attack, 3.2-4.8x.
    seconds=10; ratio=2; allowance=0; [ "$quick" = 1 ] && { seconds=5; ratio=3; allowance=15; }
    for kinds in array cells escapes text wide nested flexnest bidi; do
        start_server
        # On a shared machine a burst of other work can land in the attacked windows alone: a kind fails only
        # if it fails three times.
        ok=1
        for attempt in 1 2 3; do
            if python3 "$hostile" attack "$url" --pages "$work/pages" --kinds "$kinds" --seconds "$seconds" --max-ratio "$ratio" --allowance-ms "$allowance" $report; then
                ok=1; break
            fi
            ok=0
        done
        [ "$ok" = 1 ] || failed=1
        stop_server
    done
fi

if wants slowloris; then
    if [ "$quick" = 1 ]; then
        mapfile -t flags < <(known --header-timeout 2 --body-timeout 3)
        start_server "${flags[@]}"
        check python3 "$hostile" slowloris "$url" --seconds 20 --within 6 $report
    else
        start_server
        check python3 "$hostile" slowloris "$url" --seconds 60 --within 40 $report
    fi
    stop_server
fi

if wants sockets; then
    # A low open-file limit (soft and hard): 400 idle sockets are more than it allows.
    start_server 256
    check python3 "$hostile" sockets "$url" --pid "$server_pid" --sockets 400 $report
    stop_server
fi

if wants shutdown; then
    # SIGTERM with a client stalled halfway through its body and a full request being answered: the server
    # must answer the full one and exit once the grace period is over.
    grace=2
    mapfile -t flags < <(known --shutdown-grace "$grace" --max-elements 100000 --max-body-bytes 8388608 --timeout 30)
    start_server "${flags[@]}"
    check python3 - "$url" "$server_pid" "$grace" "$work/pages" $report <<'EOF'
import glob, http.client, json, os, signal, socket, sys, threading, time, urllib.parse
url, pid, grace, pages = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
report = "--report" in sys.argv
parts = urllib.parse.urlsplit(url)
stalled = socket.create_connection((parts.hostname, parts.port))
stalled.sendall(b"POST /v1/layout HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"type\": ")
cells = []
for path in sorted(glob.glob(os.path.join(pages, "page-*.json")))[:60]:
    cells += json.loads(open(path).read().replace("@FRESH@", "shutdown"))["cells"]
body = json.dumps({"cells": [dict(cell, id="c%d" % i) for i, cell in enumerate(cells)]})
answer = {}
def full():
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    connection.request("POST", "/v1/layout", body=body, headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    answer["status"] = response.status
    answer["cells"] = len(json.loads(response.read())["cells"]) if response.status == 200 else 0
thread = threading.Thread(target=full)
thread.start()
time.sleep(0.3)  # the page is sent and being laid out
start = time.monotonic()
os.kill(pid, signal.SIGTERM)
exited = None
while time.monotonic() - start < 30:
    try:
        os.kill(pid, 0)
        with open("/proc/%d/stat" % pid) as stat:
            if stat.read().split(")")[1].split()[0] == "Z":
                raise ProcessLookupError
    except ProcessLookupError:
        exited = time.monotonic() - start
        break
    time.sleep(0.05)
thread.join(60)
ok = exited is not None and exited <= grace + 5 and answer.get("status") == 200 and answer.get("cells") == len(cells)
print("shutdown SIGTERM with a client stalled mid-body and a page of %d cells in flight: %s; the page was answered %s "
      "with %s cells: %s" % (len(cells), "exited after %.1f s (grace %g s)" % (exited, grace) if exited is not None
      else "still running after 30 s", answer.get("status"), answer.get("cells"), "ok" if ok else "FAILED"))
sys.exit(0 if ok or report else 1)
EOF
    stop_server
fi

if wants memory; then
    seconds=120; [ "$quick" = 1 ] && seconds=15
    cache=$((64 << 20))
    text_cache=$((16 << 20))
    for kind in tiny photo; do
        mapfile -t flags < <(known --cache-bytes "$cache" --text-cache-bytes "$text_cache")
        start_server "${flags[@]}"
        check python3 "$hostile" memory "$url" --pid "$server_pid" --cache-bytes "$cache" \
            --text-cache-bytes "$text_cache" --kind "$kind" --seconds "$seconds" $report
        stop_server
    done
fi

if [ "$failed" = 1 ]; then
    echo "server checks: FAILED" >&2
    exit 1
fi
echo "server checks: ok"
