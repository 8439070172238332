#!/usr/bin/env bash
# A feed server fleet on one machine, on loopback: Redis (the shared second-level cell cache), N feed-server
# instances on ports of their own, and nginx in front as the load balancer.
#
# Usage: Scripts/fleet.sh start|run|stop|status [options]
#   start     builds the server (release), starts the fleet in the background and prints its address
#   run       the same, in the foreground: Ctrl-C (or SIGTERM) stops everything
#   stop      stops the fleet started with the same --state
#   status    each part's pid and health (GET /health of every instance, through nginx, PING to Redis)
# Options: --instances N (2), --port P (nginx's port, 8480; instances on P+1..P+N, Redis on P+100),
#   --no-redis (instances without the shared cache), --redis-memory SIZE (64mb), --redis-timeout SECONDS
#   (0.02), --cache-bytes N (each instance's in-process cache; default the server's), --state DIR (${TMPDIR:-/tmp}/weft-fleet), --server PATH (a feed-server binary; default: build it).
#
# Redis: loopback, its own port, no persistence (no RDB, no AOF), bounded by maxmemory with allkeys-lru.
# nginx: a generated config in the state folder, run as the current user with its own pid, log and temp
# paths. The upstream marks an instance failed after 1 error for 2 s (max_fails, fail_timeout), and a request
# that meets an error, a timeout, a 502 or a 503 is passed to the next instance (proxy_next_upstream), POSTs
# included (non_idempotent): a layout is a pure function of the request, so sending it twice is harmless.
# nginx open source has no active health checks: passive ones do the failing over, and `status` and the
# start-up read /health of every instance.
#
# Sourced (by Scripts/fleet-checks.sh and Scripts/loadtest.sh), it defines the fleet_* functions only.
set -euo pipefail

fleet_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fleet_instances=2
fleet_port=8480
fleet_redis=1
fleet_redis_memory=64mb
fleet_redis_timeout=0.02
fleet_state="${TMPDIR:-/tmp}/weft-fleet"
fleet_server=""
fleet_cache_bytes=""

# Reads the options shared by every command.
fleet_options() {
    while [ $# -gt 0 ]; do
        case "$1" in
            --instances) fleet_instances="$2"; shift 2 ;;
            --port) fleet_port="$2"; shift 2 ;;
            --no-redis) fleet_redis=0; shift ;;
            --redis-memory) fleet_redis_memory="$2"; shift 2 ;;
            --redis-timeout) fleet_redis_timeout="$2"; shift 2 ;;
            --state) fleet_state="$2"; shift 2 ;;
            --cache-bytes) fleet_cache_bytes="$2"; shift 2 ;;
            --server) fleet_server="$2"; shift 2 ;;
            *) echo "fleet.sh: unknown option '$1'" >&2; return 2 ;;
        esac
    done
    case "$fleet_instances" in ''|*[!0-9]*) echo "--instances: expected a whole number, got '$fleet_instances'" >&2; return 2 ;; esac
    case "$fleet_port" in ''|*[!0-9]*) echo "--port: expected a whole number, got '$fleet_port'" >&2; return 2 ;; esac
    if [ "$fleet_instances" -lt 1 ] || [ "$fleet_instances" -gt 16 ]; then
        echo "--instances: expected 1 to 16, got $fleet_instances" >&2
        return 2
    fi
}

# Sets $fleet_port to a base (20000 to 40000) whose ports (nginx's, the instances', Redis's) are all free now.
fleet_pick_port() {
    fleet_port="$(python3 - "$fleet_instances" <<'EOF'
import random, socket, sys
count = int(sys.argv[1])
for _ in range(200):
    base = random.randrange(20000, 40000, 200)
    sockets = []
    try:
        for port in [base + i for i in range(count + 1)] + [base + 100]:
            s = socket.socket()
            sockets.append(s)
            s.bind(("127.0.0.1", port))
        print(base)
        break
    except OSError:
        pass
    finally:
        for s in sockets: s.close()
EOF
)"
    [ -n "$fleet_port" ] || { echo "fleet.sh: found no free ports" >&2; return 1; }
}

fleet_instance_port() { echo $((fleet_port + $1)); }
fleet_redis_port() { echo $((fleet_port + 100)); }
fleet_url() { echo "http://127.0.0.1:$fleet_port"; }

# GETs a URL (python3, 2 s limit); fails unless it answers 200.
fleet_fetch() {
    python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=2).read().decode())' "$1"
}

# Waits up to 10 s for `fleet_fetch $1` to succeed while process $2 lives.
fleet_wait_http() {
    for _ in $(seq 1 100); do
        fleet_fetch "$1" >/dev/null 2>&1 && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# Sets $fleet_server to the release build, building it unless given.
fleet_build() {
    [ -z "$fleet_server" ] || return 0
    local package="$fleet_root/Examples/FeedServer"
    mkdir -p "$fleet_state"
    echo "== building the feed server (release)"
    if ! swift build -c release --package-path "$package" --product feed-server >"$fleet_state/build.log" 2>&1; then
        tail -40 "$fleet_state/build.log" >&2
        return 1
    fi
    fleet_server="$(swift build -c release --package-path "$package" --show-bin-path)/feed-server"
}

# Starts Redis on its port: loopback only, no persistence, maxmemory with allkeys-lru.
fleet_start_redis() {
    local port
    port="$(fleet_redis_port)"
    redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no --maxmemory "$fleet_redis_memory" \
        --maxmemory-policy allkeys-lru --dir "$fleet_state" --daemonize no --protected-mode yes \
        >"$fleet_state/redis.log" 2>&1 &
    echo $! >"$fleet_state/redis.pid"
    for _ in $(seq 1 100); do
        [ "$(redis-cli -p "$port" ping 2>/dev/null)" = "PONG" ] && return 0
        sleep 0.1
    done
    echo "redis-server did not answer on 127.0.0.1:$port" >&2
    cat "$fleet_state/redis.log" >&2
    return 1
}

# Starts instance $1 (1-based) on its port.
fleet_start_instance() {
    local i="$1" port redis_flags=()
    port="$(fleet_instance_port "$i")"
    if [ "$fleet_redis" = 1 ]; then
        redis_flags=(--redis "127.0.0.1:$(fleet_redis_port)" --redis-timeout "$fleet_redis_timeout"
                     --cache-version "$(cat "$fleet_state/cache-version")")
    fi
    [ -z "$fleet_cache_bytes" ] || redis_flags+=(--cache-bytes "$fleet_cache_bytes")
    "$fleet_server" --host 127.0.0.1 --port "$port" "${redis_flags[@]}" >>"$fleet_state/server-$i.log" 2>&1 &
    echo $! >"$fleet_state/server-$i.pid"
    if ! fleet_wait_http "http://127.0.0.1:$port/health" "$!"; then
        echo "instance $i did not become healthy on 127.0.0.1:$port" >&2
        tail -20 "$fleet_state/server-$i.log" >&2
        return 1
    fi
}

# Writes nginx's config and starts it in the foreground of a background job (so that its pid is ours).
fleet_start_nginx() {
    local conf="$fleet_state/nginx.conf" user_line="" i
    mkdir -p "$fleet_state/nginx-temp"
    # As root, workers would switch to "nobody", who cannot use our temp paths: keep the current user.
    [ "$(id -u)" -ne 0 ] || user_line="user $(id -un);"
    {
        echo "$user_line"
        echo "worker_processes 1;"
        echo "daemon off;"
        echo "pid $fleet_state/nginx.pid;"
        echo "error_log $fleet_state/nginx-error.log warn;"
        echo "events { worker_connections 4096; }"
        echo "http {"
        echo "    access_log off;"
        for kind in client_body proxy fastcgi uwsgi scgi; do
            echo "    ${kind}_temp_path $fleet_state/nginx-temp/$kind;"
        done
        echo "    client_max_body_size 2m;"
        echo "    upstream weft {"
        for i in $(seq 1 "$fleet_instances"); do
            echo "        server 127.0.0.1:$(fleet_instance_port "$i") max_fails=1 fail_timeout=2s;"
        done
        echo "        keepalive 64;"
        echo "    }"
        echo "    server {"
        echo "        listen 127.0.0.1:$fleet_port;"
        echo "        location / {"
        echo "            proxy_pass http://weft;"
        echo "            proxy_http_version 1.1;"
        echo "            proxy_set_header Connection \"\";"
        echo "            # A layout is a pure function of its request: retrying a POST elsewhere is harmless."
        echo "            proxy_next_upstream error timeout http_502 http_503 non_idempotent;"
        echo "            proxy_next_upstream_tries $((fleet_instances + 1));"
        echo "            proxy_connect_timeout 1s;"
        echo "            proxy_read_timeout 10s;"
        echo "        }"
        echo "    }"
        echo "}"
    } >"$conf"
    nginx -c "$conf" -p "$fleet_state" -e "$fleet_state/nginx-error.log" >"$fleet_state/nginx.out" 2>&1 &
    echo $! >"$fleet_state/nginx.pid.job"
    if ! fleet_wait_http "$(fleet_url)/health" "$!"; then
        echo "nginx did not answer on $(fleet_url)" >&2
        cat "$fleet_state/nginx.out" "$fleet_state/nginx-error.log" >&2 2>/dev/null || true
        return 1
    fi
}

# Starts everything; on failure stops what was started.
fleet_start() {
    for tool in nginx python3; do
        command -v "$tool" >/dev/null || { echo "fleet.sh: $tool is not installed (Scripts/setup.sh)" >&2; return 1; }
    done
    [ "$fleet_redis" = 0 ] || command -v redis-server >/dev/null || { echo "fleet.sh: redis-server is not installed" >&2; return 1; }
    if [ -f "$fleet_state/fleet.env" ]; then
        echo "fleet.sh: a fleet seems to run with state in $fleet_state (stop it first)" >&2
        return 1
    fi
    fleet_build
    mkdir -p "$fleet_state"
    # The deployment's cache version: this build's hash, so that another build never reads these layouts.
    sha256sum "$fleet_server" | cut -c1-16 >"$fleet_state/cache-version"
    echo "instances=$fleet_instances port=$fleet_port redis=$fleet_redis" >"$fleet_state/fleet.env"
    trap 'fleet_stop >/dev/null 2>&1' ERR
    if [ "$fleet_redis" = 1 ]; then fleet_start_redis; fi
    for i in $(seq 1 "$fleet_instances"); do fleet_start_instance "$i"; done
    fleet_start_nginx
    trap - ERR
    echo "== fleet up: nginx $(fleet_url), $fleet_instances instances on $(fleet_instance_port 1)..$(fleet_instance_port "$fleet_instances")$([ "$fleet_redis" = 1 ] && echo ", Redis 127.0.0.1:$(fleet_redis_port) ($fleet_redis_memory, allkeys-lru)"); state in $fleet_state"
}

# Stops a process by its pid file: SIGTERM, then SIGKILL after 10 s.
fleet_stop_pid() {
    local file="$1" pid
    [ -f "$file" ] || return 0
    pid="$(cat "$file")"
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$file"
}

fleet_stop() {
    local file
    fleet_stop_pid "$fleet_state/nginx.pid.job"
    for file in "$fleet_state"/server-*.pid; do [ -e "$file" ] && fleet_stop_pid "$file"; done
    fleet_stop_pid "$fleet_state/redis.pid"
    rm -f "$fleet_state/fleet.env"
}

fleet_status() {
    local i pid state
    [ -f "$fleet_state/fleet.env" ] || { echo "no fleet in $fleet_state"; return 1; }
    for file in "$fleet_state"/server-*.pid; do
        [ -e "$file" ] || continue
        i="${file##*/server-}"; i="${i%.pid}"; pid="$(cat "$file")"
        state="down"
        fleet_fetch "http://127.0.0.1:$(fleet_instance_port "$i")/health" >/dev/null 2>&1 && state="healthy"
        echo "instance $i   pid $pid, 127.0.0.1:$(fleet_instance_port "$i"): $state"
    done
    if [ -f "$fleet_state/redis.pid" ]; then
        echo "redis        pid $(cat "$fleet_state/redis.pid"), 127.0.0.1:$(fleet_redis_port): $(redis-cli -p "$(fleet_redis_port)" ping 2>&1 | head -1)"
    fi
    state="down"
    fleet_fetch "$(fleet_url)/health" >/dev/null 2>&1 && state="answering"
    echo "nginx        pid $(cat "$fleet_state/nginx.pid.job" 2>/dev/null), $(fleet_url): $state"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    command="${1:-}"
    [ $# -eq 0 ] || shift
    fleet_options "$@"
    case "$command" in
        start) fleet_start ;;
        run)
            trap 'fleet_stop; exit 0' INT TERM
            trap 'fleet_stop' EXIT
            fleet_start
            echo "== Ctrl-C stops the fleet"
            while true; do sleep 1; done
            ;;
        stop) fleet_stop; echo "== fleet stopped ($fleet_state)" ;;
        status) fleet_status ;;
        *) echo "usage: $0 start|run|stop|status [--instances N] [--port P] [--no-redis] [--redis-memory SIZE] [--redis-timeout SECONDS] [--cache-bytes N] [--state DIR] [--server PATH]" >&2; exit 2 ;;
    esac
fi
