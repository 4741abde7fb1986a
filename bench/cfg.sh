#!/bin/sh
# bench/cfg.sh [NBLOCKS] - time of the dominator computation (Cooper,
# Harvey and Kennedy, analysis/dom.c) on a synthetic CFG of a million
# blocks (tests/tools/cfgbench.c: diamonds, loops every 8 and 64 blocks).
# Prints seconds and blocks per second.
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
make -s -C "$top" "$BUILD/tests/cfgbench" >/dev/null || exit 1
"$top/$BUILD/tests/cfgbench" "${1:-1000000}"
