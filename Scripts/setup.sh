#!/usr/bin/env bash
# Installs what the project needs beyond Swift itself. Safe to run more than once.
# The core package needs nothing more; later lanes add their packages here.
set -euo pipefail

need=()
for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || need+=("$tool")
done
if [ "${#need[@]}" -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${need[@]}"
fi
swift --version >/dev/null
