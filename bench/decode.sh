#!/bin/bash
# bench/decode.sh - decoding cost per core, measured side by side in one
# process (tests/tools/ptbench.c): libipt's block decoder alone over each
# stream (with the building of its image, which our open does too), and
# our decoder (lsd_open: image + block heads from a sweep of
# the code and a packet scan; lsd_decode_stream: the one libipt pass,
# emitting static blocks to a no-op callback) on the same streams with the
# same image.  CPU seconds of one
# thread; each repetition runs libipt alone and ours one after the other,
# each with a new image (cold block caches on both sides); 5 repetitions
# for the testdata programs, 3 for the real ones.  The times and the first
# two ratios are the best of the repetitions (least disturbed by other
# load); "med" ratios are of the medians.  Bundles: testdata programs and real programs
# recorded with `loopscope record` (sw backend): xz and bzip2 compressing
# 2 MB of text, sqlite3 running a query script (as bench/record.sh).
# Columns: PT MB/s, instructions/s and blocks/s of the decode ("pass2"),
# then libipt's alone ("ipt": its blocks are its own, cut at every call
# and jump, not our static blocks);
# ratios decode / libipt and (open + decode) / libipt, with the per-block
# callback; "batch" the decode with the batch callback / libipt.  Each
# program starts with an empty build-id cache: "cold s" is the first
# open (the capstone sweep of every module), "open s" the best (the
# sweep's heads read back from the cache).  Target: both at
# most 1.25 on real programs (open is a constant per module for tiny ones).
# Last, bench/oracle.sh for two testdata programs: our instruction totals
# beside lackey's and callgrind's.
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

printf '%-20s %9s %11s %9s %8s %8s %8s %8s %8s %9s %9s %8s %9s %9s %7s %7s %7s %7s %7s %7s\n' program \
	"PT bytes" insns sblocks "ipt s" "pass2 s" "cold s" "open s" "MB/s" "insn/s" "blocks/s" \
	"ipt MB/s" "ipt ins/s" "ipt blk/s" p2/ipt all/ipt p2.med all.med batch b.med
run() {	# run REPEAT NAME CMD...
	local rep=$1 name=$2; shift 2
	"$LS" record -q -o "$tmp/b.lsc" -- "$@" >/dev/null 2>&1 </dev/null || {
		echo "$name: record failed" >&2; return; }
	rm -rf "$tmp/cache"
	LOOPSCOPE_CACHE="$tmp/cache" "$BENCH" -r "$rep" "$tmp/b.lsc" | awk -v n="$name" '{
		for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
		printf "%-20s %9d %11d %9d %8.3f %8.3f %8.3f %8.3f %8.2f %9.3g %9.3g %8.2f %9.3g %9.3g %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f\n",
			n, v["pt_bytes"], v["insns"], v["sblocks"], v["ipt_s"], v["pass2_s"],
			v["open_cold_s"], v["open_s"], v["pass2_mbs"], v["pass2_insn_s"],
			v["pass2_blocks_s"], v["ipt_mbs"], v["ipt_insn_s"], v["ipt_blocks_s"],
			v["ratio_pass2"], v["ratio_total"],
			v["ratio_pass2_med"], v["ratio_total_med"], v["ratio_batch"],
			v["ratio_batch_med"] }'
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
