#!/bin/sh
# t0660-analyze-adapt.sh - the detector moved between the decode's thread
# and a thread of its own while a pass runs (lsd_decode_all_adapt(),
# decoder/pipe.c): the same profile bytes as one thread.
#
# The oracle is `analyze -j1`, whose passes decode and detect on one
# thread (t0640, t0646 and unit_loops check it against hand counts, t0208
# its blocks against libipt).  With --jobs above one a pass without
# other consumers times its decode and its detector over a window of
# blocks now and then, and moves the detector's calls to a second thread
# (through the queue) or back (after the queue is drained) as the window
# says.  LOOPSCOPE_PIPE_SWITCH=N switches every N blocks instead, so
# that switches fall everywhere: between the blocks of a batch's end and
# the next, beside losses, stream ends, thread switches of per-CPU
# streams.  With LOOPSCOPE_PIECE_BLOCKS=0 the second pass switches too
# (no pieces); so does the graph `probes --plan` builds.  loopdump's
# "pipe_to_thread" counts the moves; its "pipe_first" the passes begun
# with the detector on its thread (2 MiB of PT or more).
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

# adapt_same B [N...]: analyze B at -j2, switching every N blocks (7 and
# 100 if none given; a switch costs a drain of the queue, some 10 us),
# with pieces and without: -j1's profile bytes.
adapt_same() {
	b=$1
	shift
	[ $# -gt 0 ] || set -- 7 100
	"$LOOPSCOPE" analyze -q -j1 -o j1.lsprof "$b" 2>j1.err
	t_eq "$b: analyze -j1 runs" 0 $?
	for sw in "$@"; do
		for pb in 0 ""; do
			LOOPSCOPE_PIPE_SWITCH=$sw LOOPSCOPE_PIECE_BLOCKS=$pb \
				"$LOOPSCOPE" analyze -q -j2 -o ja.lsprof "$b" 2>ja.err
			t_ok "$b: switching every $sw blocks${pb:+, no pieces}: -j1's profile" \
				cmp j1.lsprof ja.lsprof
		done
	done
}

# moves B N: with LOOPSCOPE_PIPE_SWITCH=N, the moves loopdump counts
moves() {
	LOOPSCOPE_PIPE_SWITCH=$2 LOOPSCOPE_PIECE_BLOCKS=0 "$BUILD/tests/loopdump" \
		-j 2 "$1" 2>&1 >/dev/null | sed -n 's/^pipe_windows [0-9]* pipe_to_thread \([0-9]*\)$/\1/p'
}

for a in nested lp_calls vg_sig lp_threads irred; do
	"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o "$a.lsc" -- \
		"$TD/$a" >/dev/null 2>&1 </dev/null
	t_ok "$a: recorded" test -s "$a.lsc"
	adapt_same "$a.lsc"
done
# (after every block, too: between any two)
adapt_same nested.lsc 1

# The moves happened where asked: each pass starts on the decode's
# thread and switches after every N blocks (batches are cut there), so
# over nested's blocks (loopdump's count, the same in both passes) the
# detector moves off ceil(floor(blocks / N) / 2) times per pass.
nb=$("$BUILD/tests/loopdump" nested.lsc 2>&1 >/dev/null | sed -n 's/^blocks \([0-9]*\) .*/\1/p')
t_ok "nested: loopdump counts its blocks" test "${nb:-0}" -gt 1000
for sw in 1 7 100; do
	t_eq "nested: switching every $sw blocks: the moves of both passes" \
		"$(( 2 * ((nb / sw + 1) / 2) ))" "$(moves nested.lsc $sw)"
done
t_eq "nested: without the switch, fewer blocks than a window: no move" \
	"pipe_windows 0 pipe_to_thread 0 pipe_first 0" \
	"$("$BUILD/tests/loopdump" -j 2 nested.lsc 2>&1 >/dev/null | grep '^pipe_' | tr '\n' ' ' | sed 's/ $//')"
t_eq "nested: -j1: no window" "pipe_windows 0 pipe_to_thread 0 pipe_first 0" \
	"$("$BUILD/tests/loopdump" nested.lsc 2>&1 >/dev/null | grep '^pipe_' | tr '\n' ' ' | sed 's/ $//')"

# The graph of `probes --plan` (lsa_cfg_build(), its edge counts in the
# csv's executions) moves the same way: switched everywhere, the plans
# and counts of the graph built on the decode's thread alone (these
# bundles are shorter than a window).
for b in nested.lsc vg_sig.lsc; do
	"$LOOPSCOPE" probes --plan --format=csv "$b" >g1.csv 2>/dev/null
	t_ok "$b: probes --plan runs" test -s g1.csv
	for sw in 1 7; do
		LOOPSCOPE_PIPE_SWITCH=$sw "$LOOPSCOPE" probes --plan --format=csv \
			"$b" >gs.csv 2>/dev/null
		t_ok "$b: probes --plan switching every $sw blocks: the same plans and counts" \
			cmp g1.csv gs.csv
	done
done

# A pass longer than a window: spin (10 x 100000 trips of its inner loop,
# loopdump: over 2 million blocks) has its windows timed; where the
# detector runs is the timing's choice, the profile is the same.
"$LOOPSCOPE" record -q -o spin.lsc -- "$TD/spin" 10 100000 >/dev/null 2>&1 </dev/null
t_ok "spin: recorded" test -s spin.lsc
win=$("$BUILD/tests/loopdump" -j 2 spin.lsc 2>&1 >/dev/null | sed -n 's/^pipe_windows \([0-9]*\) .*/\1/p')
t_ok "spin: its learning pass timed a window ($win)" test "${win:-0}" -ge 1
"$LOOPSCOPE" analyze -q -j1 -o j1.lsprof spin.lsc 2>/dev/null
"$LOOPSCOPE" analyze -q -j2 -o ja.lsprof spin.lsc 2>/dev/null
t_ok "spin: -j2 with its windows: -j1's profile" cmp j1.lsprof ja.lsprof
# (a switch costs the queue's drain: every 1000 and 65536 blocks here)
adapt_same spin.lsc 1000 65536
first() { "$BUILD/tests/loopdump" -j "$2" "$1" 2>&1 >/dev/null | sed -n 's/^pipe_first //p'; }
t_eq "spin: its 0.2 MB of PT, below LSD_ADAPT_PIPED_PT (2 MiB): the window first" \
	0 "$(first spin.lsc 2)"

# A pass over 2 MiB of PT or more (LSD_ADAPT_PIPED_PT) begins with the
# detector on its thread, its first window later (after 2^22 blocks):
# spin 100 x 150000 is 3 MB of PT (`info`'s raw bytes).
"$LOOPSCOPE" record -q -o long.lsc -- "$TD/spin" 100 150000 >/dev/null 2>&1 </dev/null
pt=$("$LOOPSCOPE" info long.lsc | awk '$2 == "thread" { print $5 }')
t_ok "long: its PT is 2 MiB or more ($pt bytes)" test "${pt:-0}" -ge 2097152
t_eq "long: its learning pass began piped" 1 "$(first long.lsc 2)"
t_eq "long: -j1: no pipe" 0 "$(first long.lsc 1)"
"$LOOPSCOPE" analyze -q -j1 -o l1.lsprof long.lsc 2>/dev/null
"$LOOPSCOPE" analyze -q -j2 -o l2.lsprof long.lsc 2>/dev/null
t_ok "long: begun piped: -j1's profile" cmp l1.lsprof l2.lsprof
LOOPSCOPE_PIECE_BLOCKS=0 "$LOOPSCOPE" analyze -q -j2 -o l3.lsprof long.lsc 2>/dev/null
t_ok "long: begun piped, no pieces: -j1's profile" cmp l1.lsprof l3.lsprof

# Damaged streams: losses and resets between the moves.
t_damaged nested.lsc
for b in smash.lsc cut.lsc; do
	t_ok "$b written" test -s "$b"
	adapt_same "$b"
done

# Per-CPU streams (their threads switch between them) and the real
# recording of ../shared/testdata-real.
t_percpu_bundle
t_ok "a per-CPU bundle" test -s pc.lsc
adapt_same pc.lsc
Q=$T_REAL/quipper/perf.data.intel_pt-4.14
if [ -f "$Q" ]; then
	"$LOOPSCOPE" import -q "$Q" -o q.lsc >/dev/null 2>&1
	t_ok "quipper: imported" test -s q.lsc
	adapt_same q.lsc
fi
