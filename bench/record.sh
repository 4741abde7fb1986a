#!/bin/bash
# bench/record.sh - recording cost, measured side by side in one run:
# native time, `valgrind --tool=none` time, `loopscope record` (sw) time,
# bundle bytes, executed instructions (decoded by libipt via ptcheck), and
# bytes per executed instruction: of the PT streams as stored (compressed)
# and of the whole bundle (which also embeds the executables: a constant
# ~1 MB that dominates for tiny programs).
# Usage: bench/record.sh [BUILD]   (run `make` first)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
LS=$B/loopscope
PTCHECK=$B/tests/ptcheck
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/bench/inputs.sh"
bench_inputs "$tmp" 4000000 20000

secs() {	# secs CMD... : wall seconds of one run, output discarded
	local s e
	s=$(date +%s.%N)
	"$@" >/dev/null 2>&1 </dev/null
	e=$(date +%s.%N)
	echo "$s $e" | awk '{printf "%.3f", $2 - $1}'
}

printf '%-22s %8s %8s %8s %7s %7s %10s %12s %9s %9s\n' program native none sw sw/none sw/nat bundle insns PT-B/insn B/insn
run() {	# run NAME CMD...
	local name=$1; shift
	local nat none sw size insn
	nat=$(secs "$@")
	none=$(secs valgrind --tool=none -q "$@")
	sw=$(secs "$LS" record -q -o "$tmp/b.lsc" -- "$@")
	size=$(stat -c %s "$tmp/b.lsc")
	insn=$("$PTCHECK" "$tmp/b.lsc" 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "insn_insn") s += $(i + 1)} END {print s + 0}')
	pt=$("$LS" info --format=json "$tmp/b.lsc" | awk -F'"stored": ' '/"kind": "thread"/ {split($2, a, "}"); s += a[1]} END {print s + 0}')
	printf '%-22s %8s %8s %8s %7s %7s %10s %12s %9s %9s\n' "$name" "$nat" "$none" "$sw" \
		"$(awk -v a="$sw" -v b="$none" 'BEGIN{printf "%.2f", a / b}')" \
		"$(awk -v a="$sw" -v b="$nat" 'BEGIN{printf "%.1f", a / b}')" \
		"$size" "$insn" \
		"$(awk -v a="$pt" -v b="$insn" 'BEGIN{if (b) printf "%.5f", a / b; else print "-"}')" \
		"$(awk -v a="$size" -v b="$insn" 'BEGIN{if (b) printf "%.4f", a / b; else print "-"}')"
}

for p in nested recursion calls threads signals syscall dlopen; do
	run "$p" "$B/testdata/$p"
done
run "spin 40" "$B/testdata/spin" 40
run "xz -6 (4 MB text)" xz -6 -c "$tmp/text"
run "bzip2 (4 MB text)" bzip2 -c "$tmp/text"
run "sqlite3 (20k rows)" sqlite3 :memory: ".read $tmp/q.sql"
