#!/bin/sh
# bench/vgtool.sh - cost of the Valgrind tool "loopscope": wall time of a
# native run, valgrind --tool=none and --tool=loopscope, side by side, on a
# loop-heavy test program and on `xz -9 -c` of ~5 MB of text; plus the PT
# bytes per executed instruction (instructions from --lsc-verify=yes).
# usage: sh bench/vgtool.sh [BUILD]   (after `make`)
BUILD=${1:-build}
VGLIB=$BUILD/vglib
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ~5 MB of varied text: the man pages and docs of this machine, repeated.
{ find /usr/share/doc /usr/share/common-licenses -type f -name '*' \
	-size -200k 2>/dev/null | head -400 | xargs cat 2>/dev/null; } >"$tmp/text0"
while [ "$(wc -c <"$tmp/text0")" -lt 5000000 ]; do
	cat "$tmp/text0" "$tmp/text0" >"$tmp/text1" && mv "$tmp/text1" "$tmp/text0"
done
head -c 5000000 "$tmp/text0" >"$tmp/text"

secs() {	# secs CMD...: best wall seconds of three runs, output discarded
	for r in 1 2 3; do
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		echo "$s $e"
	done | awk '{ t = $2 - $1; if (NR == 1 || t < m) m = t }
		END { printf "%.2f", m }'
}

bench() {
	name=$1; shift
	n=$(secs "$@")
	z=$(secs valgrind --tool=none "$@")
	l=$(secs env VALGRIND_LIB="$VGLIB" valgrind --tool=loopscope \
		--lsc-out="$tmp/out.lsp" "$@")
	bytes=$(wc -c <"$tmp/out.lsp")
	env VALGRIND_LIB="$VGLIB" valgrind --tool=loopscope --lsc-verify=yes \
		--lsc-out="$tmp/v.lsp" "$@" >/dev/null 2>&1
	insns=$("$BUILD/tests/lspcheck" "$tmp/v.lsp" |
		awk '/^tid/ { s += $10 } END { printf "%.0f", s }')
	pt=$("$BUILD/tests/lspcheck" "$tmp/v.lsp" |
		awk '/^tid/ { s += $6 } END { printf "%.0f", s }')
	echo "$name: native ${n}s none ${z}s loopscope ${l}s" \
		"ratio $(echo "$l $z" | awk '{ printf "%.2f", $1 / $2 }')x" \
		"out ${bytes}B insns $insns" \
		"PT B/insn $(echo "$pt $insns" | awk '{ printf "%.4f", $1 / $2 }')"
}

bench "vg_threads" "$BUILD/testdata/vg_threads"
bench "spin" "$BUILD/testdata/spin"
bench "xz -9 -c 5MB" xz -9 -c "$tmp/text"
