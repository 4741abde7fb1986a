#!/bin/bash
# bench/oracle.sh - whole-program instruction totals of one run, side by
# side: ours (the sw recording decoded by libipt, ptcheck's insn summed
# over threads), Valgrind's lackey ("guest instrs") and callgrind (Ir);
# then the main executable alone: ours (funccount) and native
# single-stepping (sstep), which must be equal.
# Whole-program totals differ by design: lackey and callgrind count every
# iteration of a rep string instruction (vg_flow: memset and memcpy of
# 100000 bytes make them +139%), Intel PT counts it once per execution;
# all three run libc/ld.so under Valgrind's CPU model, which is not the
# native one, so the native whole-program total is not comparable at all
# (other ifuncs, other paths in ld.so).  testdata/calls measured
# 136966 ours, lackey 138094 (+1128), callgrind 136864 (-102).
# Usage: BUILD=build bench/oracle.sh [PROG [ARGS...]]  (default: testdata/calls)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${BUILD:-$top/build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ $# -gt 0 ] || set -- "$B/testdata/calls"
prog=$(readlink -f "$(command -v "$1")")

"$B/loopscope" record -q -o "$tmp/b.lsc" -- "$@" >/dev/null 2>&1 </dev/null
ours=$("$B/tests/ptcheck" "$tmp/b.lsc" 2>/dev/null |
	awk '{ for (i = 1; i < NF; i++) if ($i == "insn") s += $(i + 1) } END { print s + 0 }')
lackey=$(valgrind --tool=lackey "$@" 2>&1 >/dev/null </dev/null |
	awk '/guest instrs:/ { gsub(",", "", $NF); print $NF }')
callgrind=$(valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" 2>&1 >/dev/null </dev/null |
	awk '/Collected :/ { print $NF }')
mod_ours=$("$B/tests/funccount" "$tmp/b.lsc" "$prog" 2>/dev/null | awk '$1 == "total" { print $2 }')
mod_native=$("$B/tests/sstep" "$@" 2>/dev/null </dev/null | awk '$1 == "total" { print $2 }')

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b) printf "%+.3f%%", 100 * (a - b) / b; else print "-" }'; }
echo "program: $*"
printf '%-34s %12s %10s\n' "whole program, instructions" count "vs ours"
printf '%-34s %12s %10s\n' "ours (sw + libipt, ptcheck)" "$ours" ""
printf '%-34s %12s %10s\n' "lackey guest instrs" "$lackey" "$(pct "$lackey" "$ours")"
printf '%-34s %12s %10s\n' "callgrind Ir" "$callgrind" "$(pct "$callgrind" "$ours")"
printf '%-34s %12s %10s\n' "main executable, instructions" "" ""
printf '%-34s %12s %10s\n' "ours (funccount total)" "$mod_ours" ""
printf '%-34s %12s %10s\n' "native single-step (sstep total)" "$mod_native" "$(pct "$mod_native" "$mod_ours")"
