#!/bin/bash
# bench/oracle.sh - whole-program instruction totals of one run, side by
# side, and every difference accounted for: ours (the sw recording decoded
# by our decoder, tests/tools/insncount), Valgrind's lackey ("guest
# instrs", with VEX's default chasing and with --vex-guest-chase=no) and
# callgrind (Ir, --skip-plt=no); then the main executable alone: ours
# (funccount) and native single-stepping (sstep), which must be equal.
#
# Every run gets the same environment (env -i, VALGRIND_LIB = build/vglib
# as loopscope record sets it), so ld.so runs the same code under every
# tool.  Then, per instruction (t0207 tests it):
#  - lackey --vex-guest-chase=no equals ours at every instruction but the
#    rep-prefixed string ones, which Intel PT sees once per execution and
#    Valgrind once per iteration plus one: "rep extra" below;
#  - lackey with chasing counts more: VEX builds superblocks through both
#    arms of a conditional branch and lackey's per-instruction counter
#    runs for the arm not taken too ("chase extra", all in ld.so);
#  - callgrind counts as lackey without chasing, less the last block
#    before exit_group (a block is counted when it completes).
# The native whole-program total is not comparable: Valgrind's CPU model
# makes ld.so and libc choose other ifuncs and paths.
# Usage: BUILD=build bench/oracle.sh [PROG [ARGS...]]  (default: testdata/calls)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${BUILD:-$top/build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ $# -gt 0 ] || set -- "$B/testdata/calls"
prog=$(readlink -f "$(command -v "$1")")
shift
set -- "$prog" "$@"
VG=$B/vglib
E="env -i PATH=/usr/bin:/bin"

$E "$B/loopscope" record -q -o "$tmp/b.lsc" -- "$@" >/dev/null 2>&1 </dev/null
"$B/tests/insncount" "$tmp/b.lsc" 2>/dev/null |
	awk '$1 != "total" { print $4, $2, $3 }' | LC_ALL=C sort >"$tmp/ours"
ours=$(awk '{ s += $2 } END { print s + 0 }' "$tmp/ours")
lk() {	# lk CHASE PROG [ARGS...]: per-instruction lackey counts
	local chase=$1

	shift
	$E VALGRIND_LIB="$VG" valgrind --tool=lackey --vex-guest-chase="$chase" \
		--trace-mem=yes --log-file="$tmp/lk" "$@" >/dev/null 2>&1 </dev/null
	awk '/^I/ { split($2, a, ","); n[a[1]]++ }
		END { for (k in n) { x = k; sub(/^0+/, "", x); print x, n[k] } }' "$tmp/lk" |
		LC_ALL=C sort
}
lk no "$@" >"$tmp/lk.no"
lk yes "$@" >"$tmp/lk.yes"
tot() { awk '{ s += $2 } END { print s + 0 }' "$1"; }
lk_no=$(tot "$tmp/lk.no")
lk_yes=$(tot "$tmp/lk.yes")
# Rep extra: lackey's count less ours at rep string instructions; other:
# what differs elsewhere (0, or the run was not deterministic).
read -r rep other < <(LC_ALL=C join -a1 -a2 -e 0 -o 0,1.2,1.3,2.2 "$tmp/ours" "$tmp/lk.no" |
	awk '$3 == 1 { r += $4 - $2; next } $2 != $4 { o++ } END { print r + 0, o + 0 }')
callgrind=$($E VALGRIND_LIB="$VG" valgrind --tool=callgrind --skip-plt=no \
	--callgrind-out-file="$tmp/cg.out" "$@" 2>&1 >/dev/null </dev/null |
	awk '/Collected :/ { print $NF }')
mod_ours=$("$B/tests/funccount" "$tmp/b.lsc" "$prog" 2>/dev/null | awk '$1 == "total" { print $2 }')
mod_native=$("$B/tests/sstep" "$@" 2>/dev/null </dev/null | awk '$1 == "total" { print $2 }')

d() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+d", a - b }'; }
echo "program: $*"
printf '%-40s %12s %10s\n' "whole program, instructions" count "- ours"
printf '%-40s %12s %10s\n' "ours (sw + our decoder, insncount)" "$ours" ""
printf '%-40s %12s %10s\n' "lackey --vex-guest-chase=no" "$lk_no" "$(d "$lk_no" "$ours")"
printf '%-40s %12s %10s\n' "  of which rep extra / other" "$rep / $other" ""
printf '%-40s %12s %10s\n' "lackey (default: chasing)" "$lk_yes" "$(d "$lk_yes" "$ours")"
printf '%-40s %12s %10s\n' "  of which chase extra" "$(d "$lk_yes" "$lk_no")" ""
printf '%-40s %12s %10s\n' "callgrind Ir (--skip-plt=no)" "$callgrind" "$(d "$callgrind" "$ours")"
printf '%-40s %12s %10s\n' "  less than lackey without chasing" "$(d "$lk_no" "$callgrind")" ""
printf '%-40s %12s %10s\n' "main executable, instructions" "" ""
printf '%-40s %12s %10s\n' "ours (funccount total)" "$mod_ours" ""
printf '%-40s %12s %10s\n' "native single-step (sstep total)" "$mod_native" "$(d "$mod_native" "$mod_ours")"
