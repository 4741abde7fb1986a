#!/bin/bash
# bench/detector.sh - the loop detector's speed per core, measured side by
# side in one process (tests/tools/anbench.c): the decoder alone (no-op
# callback), the detector alone (replaying up to 8M decoded blocks held in
# memory, one pass), the same blocks through analyze's two passes apart
# (the learning pass: structure alone, its memo of whole iterations; then
# the pass that knows what it learned) and decode + detector (`loopscope
# analyze`'s work: two passes, the loops learned, then profiled).  CPU seconds
# of one thread, best of 3 (1 for the real programs).  Bundles: testdata
# programs and real programs recorded with `loopscope record` (sw): xz and
# bzip2 compressing 2 MB of text, sqlite3 running a query script.
# Usage: bench/detector.sh [BUILD]   (make check builds tests/anbench)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
LS=$B/loopscope
BENCH=$B/tests/anbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$BENCH" ] || { echo "no $BENCH; run make check or make $B/tests/anbench" >&2; exit 1; }

. "$top/bench/inputs.sh"
bench_inputs "$tmp" 2000000 5000

printf '%-16s %11s %9s %9s %9s %9s %9s %12s %12s %12s %8s\n' program blocks "decode s" \
	"detect s" "learn s" "know s" "both s" "decode bl/s" "detect bl/s" "both bl/s" both/dec
run() {	# run REPEAT NAME CMD... (stdin from $in, default /dev/null)
	local rep=$1 name=$2; shift 2
	"$LS" record -q -o "$tmp/b.lsc" -- "$@" >/dev/null 2>&1 <"${in:-/dev/null}" || {
		echo "$name: record failed" >&2; return; }
	"$BENCH" -r "$rep" "$tmp/b.lsc" | awk -v n="$name" '{
		for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
		printf "%-16s %11d %9.3f %9.3f %9.3f %9.3f %9.3f %12.4g %12.4g %12.4g %8.2f\n",
			n, v["blocks"], v["decode_s"], v["detector_s"], v["learn_s"],
			v["know_s"], v["both_s"],
			v["decode_blocks_s"], v["detector_blocks_s"], v["both_blocks_s"],
			v["both_s"] / v["decode_s"] }'
}
run 3 nested "$B/testdata/nested"
run 3 lp_calls "$B/testdata/lp_calls"
run 3 spin "$B/testdata/spin" 200 20000
run 1 xz xz -9 -c "$tmp/text"
run 1 bzip2 bzip2 -9 -c "$tmp/text"
# (sqlite3 itself, its script on stdin: under `sh -c` the recording held
# the shell's blocks alone)
in=$tmp/q.sql run 1 sqlite3 sqlite3 :memory:
