# Shared by Scripts/loadtest.sh and Scripts/server-checks.sh (sourced, not run): the work folder, stopping the
# server on exit, and building it. Expects $root (the repository), sets $package, $work and $server_pid.
package="$root/Examples/FeedServer"
work="$(mktemp -d "${TMPDIR:-/tmp}/weft-feed-server.XXXXXX")"
server_pid=""

# Stops the server started last (SIGTERM, then SIGKILL if it has not exited within 10 s).
stop_server() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 1 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server_pid" 2>/dev/null || true
    fi
    [ -z "$server_pid" ] || wait "$server_pid" 2>/dev/null || true
    server_pid=""
}

cleanup() {
    stop_server
    rm -rf "$work"
}
trap cleanup EXIT

# Sets $server to the release build of the feed server, building it, unless it is set already.
build_server() {
    [ -z "${server:-}" ] || return 0
    echo "== building the feed server (release)"
    if ! swift build -c release --package-path "$package" --product feed-server >"$work/build.log" 2>&1; then
        tail -40 "$work/build.log" >&2
        exit 1
    fi
    server="$(swift build -c release --package-path "$package" --show-bin-path)/feed-server"
}
