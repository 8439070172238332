#!/usr/bin/env bash
# Installs what the project needs beyond Swift itself. Safe to run more than once.
#
#   Scripts/setup.sh                 what the project's builds need: libjemalloc-dev (for the Jemalloc trait);
#                                    HarfBuzz, FreeType, ICU and the default fonts (for WeftText)
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
# WeftText: HarfBuzz, FreeType and ICU headers (SwiftPM finds them with pkg-config), hb-shape for its tests,
# and the default fonts (Noto, Noto CJK, Noto Color Emoji, DejaVu).
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
[ -f /usr/include/harfbuzz/hb.h ] || need+=(libharfbuzz-dev)
[ -f /usr/include/freetype2/ft2build.h ] || need+=(libfreetype-dev)
[ -f /usr/include/unicode/ubrk.h ] || need+=(libicu-dev)
command -v hb-shape >/dev/null 2>&1 || need+=(libharfbuzz-bin)
[ -f /usr/share/fonts/truetype/noto/NotoSans-Regular.ttf ] || need+=(fonts-noto-core)
[ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || need+=(fonts-noto-cjk)
[ -f /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ] || need+=(fonts-noto-color-emoji)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
# The feed server fleet (Scripts/fleet.sh): Redis as the shared cache, nginx as the load balancer.
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v nginx >/dev/null 2>&1 || need+=(nginx)
if [ "${#need[@]}" -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq "${need[@]}"
fi
swift --version >/dev/null
