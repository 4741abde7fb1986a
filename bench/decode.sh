#!/bin/bash
# bench/decode.sh - decoding cost per core, measured side by side in one
# process (tests/tools/ptbench.c) on the same streams with the same image:
#   ipt s   libipt's block decoder alone over each stream (end_on_call,
#           end_on_jump), nothing done with its blocks;
#   ref s   our decoder on the reference path (LOOPSCOPE_REFERENCE=1:
#           libipt's block decoder on every chunk, its blocks split into
#           static blocks), batch callback;
#   fast s  our decoder as it runs by default (the fast path over the
#           packets, libipt for the chunks it leaves), batch callback;
#   blk s   the same with a per-block callback.
# CPU seconds of one thread, best of the repetitions (5 for the testdata
# programs, 3 for the real ones), each repetition with new images (cold
# block caches on every side); i/f.med is libipt over fast of the medians.
# insn/s and blocks/s are the fast path's; "fast ch" and "ipt ch" the
# chunks each path decoded.  Each program starts with an empty build-id
# cache: "cold s" is the first open (the capstone sweep of every module),
# "open s" the best (the sweep's heads read back from the cache).  Bundles:
# testdata programs and real programs recorded with `loopscope record` (sw
# backend): xz and bzip2 compressing 2 MB of text, sqlite3 running a query
# script.  Last, bench/oracle.sh for two testdata programs: our
# instruction totals beside lackey's and callgrind's.
# Usage: bench/decode.sh [BUILD]   (run `make all` and build
# tests/ptbench first: `make check` does, or `make BUILD/tests/ptbench`)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
LS=$B/loopscope
BENCH=$B/tests/ptbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$BENCH" ] || { echo "no $BENCH; run make check or make $B/tests/ptbench" >&2; exit 1; }

. "$top/bench/inputs.sh"
bench_inputs "$tmp" 2000000 5000

printf '%-20s %9s %11s %8s %8s %8s %8s %8s %8s %8s %9s %9s %8s %8s %8s %7s %7s\n' program \
	"PT bytes" insns sblocks "ipt s" "ref s" "fast s" "blk s" "cold s" "open s" \
	"insn/s" "blocks/s" ipt/fast i/f.med ref/fast "fast ch" "ipt ch"
run() {	# run REPEAT NAME CMD...
	local rep=$1 name=$2; shift 2
	"$LS" record -q -o "$tmp/b.lsc" -- "$@" >/dev/null 2>&1 </dev/null || {
		echo "$name: record failed" >&2; return; }
	rm -rf "$tmp/cache"
	LOOPSCOPE_CACHE="$tmp/cache" "$BENCH" -r "$rep" "$tmp/b.lsc" | awk -v n="$name" '{
		for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
		printf "%-20s %9d %11d %8d %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %9.3g %9.3g %8.2f %8.2f %8.2f %7d %7d\n",
			n, v["pt_bytes"], v["insns"], v["sblocks"], v["ipt_s"], v["ref_s"],
			v["batch_s"], v["pass2_s"], v["open_cold_s"], v["open_s"],
			v["insns"] / v["batch_s"], v["blocks"] / v["batch_s"],
			v["ipt_s"] / v["batch_s"], 1 / v["ratio_batch_med"],
			v["ref_s"] / v["batch_s"], v["fast_chunks"], v["libipt_chunks"] }'
}

for p in nested recursion calls threads; do
	run 5 "$p" "$B/testdata/$p"
done
run 5 "spin 40" "$B/testdata/spin" 40
run 3 "xz -6 (2 MB text)" xz -6 -c "$tmp/text"
run 3 "bzip2 (2 MB text)" bzip2 -c "$tmp/text"
run 3 "sqlite3 (5k rows)" sqlite3 :memory: ".read $tmp/q.sql"

# Whole-program totals beside lackey's and callgrind's, every difference
# accounted for (bench/oracle.sh explains them; t0207 tests them).
for p in calls vg_flow; do
	echo
	BUILD="$B" bash "$top/bench/oracle.sh" "$B/testdata/$p"
done
