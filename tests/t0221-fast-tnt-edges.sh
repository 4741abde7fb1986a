#!/bin/sh
# t0221-fast-tnt-edges: the fast path where a TNT packet's bits meet
# something else: the next TNT packet (a chain stops at a packet's last
# bit and the next packet's bits are taken before the block that needs
# them), a PSB+ between two TNT packets (the smallest PSB period, 256
# bytes, puts one every few dozen packets), a compressed return, the
# FUP + TIP of a signal (testdata/signals), and a call and its return
# inside one chain with libipt's return stack full (testdata/deepcalls:
# the call overwrites the oldest return address, and the unwinding meets
# the returns it lost as TIPs).
#
# Oracles: the reference path (LOOPSCOPE_REFERENCE=1, libipt's block
# decoder on every chunk; t0201 checks it against libipt's instruction
# decoder and t0200 against native single-stepping): `dump` prints every
# block with its exit and successor, the same bytes either way.  The chunk
# counts come from `info`'s stream line (the bundle's index): these
# programs hold only the packets the fast path models, so it must take
# every chunk, which makes a fast path that gave up at any of these edges
# fail here rather than pass through libipt.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

# NAME ARGS: recorded with a PSB every 256 bytes in 4 KB chunks.
for pa in "spin 30 300" "nested" "recursion" "signals" "calls" "deepcalls"; do
	set -- $pa
	p=$1
	shift
	"$LOOPSCOPE" record -q --psb-period 256 --chunk-size 4096 -o "$p.lsc" -- \
		"$TD/$p" "$@" </dev/null >/dev/null 2>&1
	t_ok "$p: recorded" test -s "$p.lsc"
	"$LOOPSCOPE" dump "$p.lsc" 2>&1 | cksum >fast.sum
	LOOPSCOPE_REFERENCE=1 "$LOOPSCOPE" dump "$p.lsc" 2>&1 | cksum >ref.sum
	t_ok "$p: dump, fast path = libipt, block for block" cmp -s fast.sum ref.sum
	n=$("$LOOPSCOPE" info "$p.lsc" | awk '$2 == "thread" { s += $4 } END { print s }')
	f=$("$LOOPSCOPE" info --decode -j 1 "$p.lsc" | sed -n 's/^  chunks: \([0-9]*\) by the fast path.*/\1/p')
	t_eq "$p: the fast path decodes every chunk" "$n" "$f"
done
