#!/bin/bash
# bench/threads.sh - what --jobs gains on a bundle of several threads,
# measured side by side in one run.  analyze cuts such a bundle into
# shards of whole threads analyzed side by side and merged in memory
# (cli/analyze_run.c), so the gain is bounded by the busiest thread's
# share of the trace.  Per program: the native run and callgrind (CPU
# seconds), `loopscope record`, then `analyze` at --jobs=1 and --jobs=N:
# CPU (user + system) and wall seconds, best of REPEAT (default 1), and
# the wall ratio; every --jobs=N profile must equal --jobs=1's byte for
# byte (said on stderr if not).  Programs: xz -T2 and xz -T4 at -1 over
# 6 and 12 MiB of text (3 MiB blocks; the "threads" column says how many
# threads xz ran: its own limits may give fewer workers than -T asks).
# Usage: bench/threads.sh [BUILD [REPEAT [JOBS]]]   (JOBS default: nproc)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
REP=${2:-1}
J=${3:-$(nproc)}
LS=$B/loopscope
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v valgrind >/dev/null || { echo "no valgrind" >&2; exit 1; }

. "$top/bench/inputs.sh"
bench_inputs "$tmp" 12582912 10
head -c 6291456 "$tmp/text" >"$tmp/text6"
export LOOPSCOPE_CACHE="$tmp/cache"

# best CMD...: "CPU WALL", the best of REP runs (stdout discarded).
best() {
	local i
	: >"$tmp/runs"
	for i in $(seq "$REP"); do
		/usr/bin/time -f '%U %S %e' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" </dev/null || {
			echo "failed: $*" >&2; sed 's/^/  /' "$tmp/err" | head -3 >&2; echo "nan nan"; return; }
		awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$tmp/t" >>"$tmp/runs"
	done
	echo "$(cut -d' ' -f1 "$tmp/runs" | sort -n | head -1) $(cut -d' ' -f2 "$tmp/runs" | sort -n | head -1)"
}

printf '%-14s %7s %9s | %6s %7s %7s | %7s %7s | %7s %7s | %6s\n' program threads insns \
	native callgr record "an1 cpu" "an1 wal" "anN cpu" "anN wal" "wal1/N"
run() {	# run NAME CMD...
	local name=$1; shift
	local nat cg rec a1 w1 aN wN thr insns
	nat=$(best "$@" | cut -d' ' -f1)
	cg=$(best valgrind --tool=callgrind -q --callgrind-out-file="$tmp/cg.out" "$@" | cut -d' ' -f1)
	rec=$(best "$LS" record -q -o "$tmp/b.lsc" -- "$@" | cut -d' ' -f1)
	"$LS" info --decode "$tmp/b.lsc" >"$tmp/info" 2>&1 </dev/null	# the build-id cache, warm
	insns=$(awk '$1 == "total" { print $2 }' "$tmp/info")
	thr=$("$LS" analyze --plan-shards=256 "$tmp/b.lsc")
	read -r a1 w1 <<<"$(best "$LS" analyze -q -j 1 -o "$tmp/f1.lsprof" "$tmp/b.lsc")"
	read -r aN wN <<<"$(best "$LS" analyze -q -j "$J" -o "$tmp/fn.lsprof" "$tmp/b.lsc")"
	cmp -s "$tmp/f1.lsprof" "$tmp/fn.lsprof" || echo "$name: --jobs=$J's profile differs from --jobs=1's" >&2
	awk -v n="$name" -v t="$thr" -v i="$insns" -v a="$nat" -v c="$cg" -v d="$rec" \
	    -v k="$a1" -v w1="$w1" -v kn="$aN" -v wn="$wN" 'BEGIN {
		printf "%-14s %7d %9.3g | %6.2f %7.2f %7.2f | %7.2f %7.2f | %7.2f %7.2f | %6.2f\n",
			n, t, i, a, c, d, k, w1, kn, wn, w1 / wn }'
}
echo "(analyze at --jobs=1 and --jobs=$J; threads: of the bundle)"
run "xz -T2 -1" xz -T2 -1 -c "$tmp/text6"
run "xz -T4 -1" xz -T4 -1 -c "$tmp/text"
