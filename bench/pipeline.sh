#!/bin/bash
# bench/pipeline.sh - what one analysis costs beside re-running the program,
# measured side by side in one run: per program the native run, Valgrind's
# `none` tool and callgrind (the cost of a run under instrumentation),
# `loopscope record`, then on its bundle libipt's block decoder alone
# (tests/tools/ptbench.c), `info --decode` (the block stream alone) and
# `analyze` (decode + loop detector), each on the reference path
# (LOOPSCOPE_REFERENCE=1: libipt's block decoder on every chunk) and on
# the fast path (the default), and `report --structural` (decode, loop
# detector and CFG).  Seconds are user + system CPU of the command (one
# core; nothing here runs threads), best of REPEAT (default 1); the last
# columns are ratios to the native run and the fast analyze's seconds per
# 10^9 instructions.  Programs: xz and bzip2 compressing 2 MB of text,
# sqlite3 running a query script (bench/inputs.sh), and a 5-point stencil
# (bench/kernels/stencil.c, 1.05e9 instructions, built -O2).
# Usage: bench/pipeline.sh [BUILD [REPEAT]]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
REP=${2:-1}
LS=$B/loopscope
BENCH=$B/tests/ptbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$BENCH" ] || { echo "no $BENCH; run make check or make $B/tests/ptbench" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "no valgrind" >&2; exit 1; }

. "$top/bench/inputs.sh"
bench_inputs "$tmp" 2000000 5000
cc -O2 -g -o "$tmp/stencil" "$top/bench/kernels/stencil.c" || exit 1
export LOOPSCOPE_CACHE="$tmp/cache"

# cpu CMD...: the best user + system CPU seconds of REP runs (stdin from
# $tmp/in, stdout discarded).
cpu() {
	local best= t i
	for i in $(seq "$REP"); do
		/usr/bin/time -f '%U %S' -o "$tmp/t" "$@" <"$tmp/in" >/dev/null 2>"$tmp/err" || {
			echo "failed: $*" >&2; sed 's/^/  /' "$tmp/err" | head -3 >&2; echo nan; return; }
		t=$(awk '{ printf "%.3f", $1 + $2 }' "$tmp/t")
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$t
		fi
	done
	echo "$best"
}

printf '%-18s %9s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %8s %8s %8s %7s\n' program insns \
	native none callgr record libipt "dec ref" "dec" "an ref" analyze struct \
	"dec/ipt" "an/nat" "an/callg" "s/1e9"
run() {	# run NAME STDIN CMD...
	local name=$1 in=$2; shift 2
	cp "$in" "$tmp/in"
	local nat none cg rec ipt dref dec aref an st insns
	nat=$(cpu "$@")
	none=$(cpu valgrind --tool=none -q "$@")
	cg=$(cpu valgrind --tool=callgrind -q --callgrind-out-file="$tmp/cg.out" "$@")
	rec=$(cpu "$LS" record -q -o "$tmp/b.lsc" -- "$@")
	"$LS" info --decode "$tmp/b.lsc" >/dev/null 2>&1	# the build-id cache, warm
	ipt=$("$BENCH" -r 1 "$tmp/b.lsc" </dev/null | awk '{ for (i = 1; i < NF; i += 2) if ($i == "ipt_s") print $(i + 1) }')
	insns=$("$LS" info --decode "$tmp/b.lsc" </dev/null | awk '$1 == "total" { print $2 }')
	dref=$(LOOPSCOPE_REFERENCE=1 cpu "$LS" info --decode "$tmp/b.lsc")
	dec=$(cpu "$LS" info --decode "$tmp/b.lsc")
	aref=$(LOOPSCOPE_REFERENCE=1 cpu "$LS" analyze -q -o "$tmp/r.lsprof" "$tmp/b.lsc")
	an=$(cpu "$LS" analyze -q -o "$tmp/f.lsprof" "$tmp/b.lsc")
	st=$(cpu "$LS" report --structural "$tmp/b.lsc")
	cmp -s "$tmp/r.lsprof" "$tmp/f.lsprof" || echo "$name: the two paths' profiles differ" >&2
	awk -v n="$name" -v i="$insns" -v a="$nat" -v b="$none" -v c="$cg" -v d="$rec" \
	    -v e="$ipt" -v f="$dref" -v g="$dec" -v h="$aref" -v k="$an" -v s="$st" 'BEGIN {
		printf "%-18s %9.3g %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %8.2f %8.1f %8.2f %7.2f\n",
			n, i, a, b, c, d, e, f, g, h, k, s, g / e, k / a, k / c, k / (i / 1e9) }'
}

: >"$tmp/none.in"
run "xz -6, 2 MB" "$tmp/none.in" xz -6 -c "$tmp/text"
run "bzip2 -9, 2 MB" "$tmp/none.in" bzip2 -9 -c "$tmp/text"
run "sqlite3, 5k rows" "$tmp/q.sql" sqlite3 :memory:
run "stencil 384x384" "$tmp/none.in" "$tmp/stencil"
