#!/usr/bin/env bash
# Installs what the project needs beyond Swift itself. Safe to run more than once.
#
#   Scripts/setup.sh                 what the project's builds need: libjemalloc-dev (for the Jemalloc trait)
#   Scripts/setup.sh TOOL...         also these tools (perf, valgrind, wrk), by command name
set -euo pipefail

# Debian package names for the commands the scripts use.
package_for() {
    case "$1" in
        perf) echo linux-perf ;;
        *) echo "$1" ;;
    esac
}

need=()
for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || need+=("$(package_for "$tool")")
done
[ -f /usr/include/jemalloc/jemalloc.h ] || need+=(libjemalloc-dev)
if [ "${#need[@]}" -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${need[@]}"
fi
swift --version >/dev/null
