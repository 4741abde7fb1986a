#!/bin/sh
# t0662-analyze-halves.sh - the learning pass of one thread's stream in
# two parts (analysis/loops_halves.c): the same profile bytes as one
# pass.
#
# The oracle is `analyze -j1`, whose learning pass runs the thread's
# blocks in order on one detector (t0640, t0646 and unit_loops check the
# profile it leads to against hand counts, t0208 its blocks against
# libipt).  At two jobs the calling thread decodes and learns the chunks
# before a cut; a worker learns the chunks after it from a twin decoder,
# as excursions above the frame live at the cut, and the calling thread
# takes the worker's facts in order.  LOOPSCOPE_HALVES=1 runs it on any
# stream of two chunks or more, whatever its spine; LOOPSCOPE_HALVES_AT
# moves the cut (percent of the chunks), so that it falls inside every
# kind of state: calls, loops open at several depths, recursion, longjmp
# (the worker stops where a longjmp leaves its excursion: the calling
# thread learns the rest), a signal handler's return, deep calls.
# Programs in chunks of 4 KB, damaged streams (losses), and the
# snapshots thinned.  loopdump's counters say which path ran: excursions
# taken from the worker, blocks it learned, the calling thread's own
# decode of the rest, passes made again whole; and that the second pass's
# pieces, cut where the worker's counts say the chunks begin and named
# by the blocks it made, joined without a retry.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

# (as t0659: a field read before it is set reads 2, not 0)
MALLOC_PERTURB_=253
export MALLOC_PERTURB_

# halves_same B: the halves' profile at several cuts is -j1's; the
# counters of the last are in hs.err.
halves_same() {
	b=$1
	"$LOOPSCOPE" analyze -q -j1 -o j1.lsprof "$b" 2>j1.err
	t_eq "$b: analyze -j1 runs" 0 $?
	for at in ${CUTS:-30 70}; do
		LOOPSCOPE_HALVES=1 LOOPSCOPE_HALVES_AT=$at "$LOOPSCOPE" \
			analyze -q -j2 -o jh.lsprof "$b" 2>jh.err
		t_ok "$b: the learning pass in halves, cut at $at%: -j1's profile" \
			cmp j1.lsprof jh.lsprof
	done
	LOOPSCOPE_HALVES=1 LOOPSCOPE_SNAP_BYTES=3000 "$LOOPSCOPE" \
		analyze -q -j2 -o jh.lsprof "$b" 2>jh.err
	t_ok "$b: ... with the snapshots thinned: -j1's profile" cmp j1.lsprof jh.lsprof
	LOOPSCOPE_HALVES=1 "$BUILD/tests/loopdump" -j 2 "$b" >/dev/null 2>hs.err
	t_eq "$b: loopdump -j 2 runs" 0 $?
	t_eq "$b: ... its second pass joined its pieces without a retry" \
		0 "$(t_stat hs.err piece_retries)"
}

# chunks B: the chunks of B's thread streams
chunks() {
	"$LOOPSCOPE" info "$1" | awk '$2 == "thread" { n += $4 } END { print n + 0 }'
}

# xz -6 over this README, in chunks of 4 KB: a real program's calls and
# loops, cut at every tenth of its chunks.
"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o xz.lsc -- \
	xz -6 -c "$LSTOP/README.md" >/dev/null 2>&1 </dev/null
t_ok "xz: recorded" test -s xz.lsc
t_ok "xz: its stream has many chunks ($(chunks xz.lsc))" test "$(chunks xz.lsc)" -ge 40
CUTS="5 15 25 35 45 55 65 75 85 95" halves_same xz.lsc
t_ok "xz: excursions taken from the worker" test "$(t_stat hs.err halves_exc)" -gt 0
t_ok "xz: ... most of its blocks the worker's" \
	test "$(t_stat hs.err halves_skip)" -gt "$(( $(t_stat hs.err blocks) / 4 ))"

# Test programs of calls and loops, in two or three chunks each (the
# start up's length goes with the environment the program is given:
# lp_calls' PT is 7.6 KB with none, 8.2 KB with 20 variables, against
# chunks of 4 KB): cut after the first chunk, and after the second where
# there is one (LOOPSCOPE_HALVES_AT takes that percent of the chunks,
# rounded down).
for n in nested lp_calls lp_recur deepcalls irred lp_trips; do
	"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o "$n.lsc" -- \
		"$TD/$n" >/dev/null 2>&1 </dev/null
	t_ok "$n: recorded" test -s "$n.lsc"
	t_ok "$n: its stream has several chunks ($(chunks "$n.lsc"))" \
		test "$(chunks "$n.lsc")" -ge 2
	CUTS="50 90" halves_same "$n.lsc"
done
# (a call from the frame at the cut, learned by the worker; these
# programs call in every chunk)
for n in lp_calls lp_recur deepcalls; do
	LOOPSCOPE_HALVES=1 "$BUILD/tests/loopdump" -j 2 "$n.lsc" >/dev/null 2>hs.err
	t_ok "$n: excursions taken from the worker" test "$(t_stat hs.err halves_exc)" -gt 0
	t_ok "$n: ... their blocks learned by it, not by the calling thread" \
		test "$(t_stat hs.err halves_skip)" -gt 0
	t_eq "$n: ... no pass made again" 0 "$(t_stat hs.err halves_redo)"
done
LOOPSCOPE_HALVES=0 "$BUILD/tests/loopdump" -j 2 lp_calls.lsc >/dev/null 2>hs.err
t_eq "lp_calls, LOOPSCOPE_HALVES=0: no excursion taken" 0 "$(t_stat hs.err halves_exc)"
"$BUILD/tests/loopdump" -j 1 lp_calls.lsc >/dev/null 2>hs.err
t_eq "lp_calls, one job: no excursion taken" 0 "$(t_stat hs.err halves_exc)"

# longjmp and a signal's return leave an excursion by the frames below
# it: the worker stops there, and the calling thread learns the rest
# itself, or (where it had begun to skip that excursion) makes the
# pass again whole.
for n in lp_jmp vg_sig; do
	"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o "$n.lsc" -- \
		"$TD/$n" >/dev/null 2>&1 </dev/null
	t_ok "$n: recorded" test -s "$n.lsc"
	halves_same "$n.lsc"
done
LOOPSCOPE_HALVES=1 LOOPSCOPE_HALVES_AT=10 "$BUILD/tests/loopdump" -j 2 vg_sig.lsc \
	>/dev/null 2>hs.err
t_ok "vg_sig: the worker stopped at the handler's return; the rest the calling thread's" \
	test "$(( $(t_stat hs.err halves_off) + $(t_stat hs.err halves_redo) ))" -gt 0

# Several threads' streams: not in halves (each learns on its own).
"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o thr.lsc -- \
	"$TD/lp_threads" >/dev/null 2>&1 </dev/null
LOOPSCOPE_HALVES=1 "$BUILD/tests/loopdump" -j 2 thr.lsc >/dev/null 2>hs.err
t_eq "lp_threads: several streams, no halves" 0 "$(t_stat hs.err halves_exc)"
halves_same thr.lsc

# Damaged streams: losses where a chunk was smashed or cut, the same on
# both sides of the cut.
t_damaged lp_calls.lsc
for b in smash.lsc cut.lsc; do
	t_ok "$b written" test -s "$b"
	halves_same "$b"
done

# The probe: without LOOPSCOPE_HALVES=1 the worker first decodes from
# the cut with the calls and returns alone followed, window after window
# (LOOPSCOPE_HALVES_PROBE blocks each; 2^18 by default), and the halves
# run where a window has at most half its blocks at the spine; not where
# a window has more, no fewer than the window before (the rule itself:
# unit_halves).  testdata/lp_probe's hand count: lp_probe 500000 0 runs
# spin's loop of 500000 iterations and calls nothing, so a cut at 45% of
# its chunks has about 250,000 blocks of that loop after it, every one at
# the spine: two windows of 1,000, both all at the spine, and no halves.
# lp_probe 1000 20000 then calls deep() 20,000 times: a cut at 45% falls
# among those calls, where main's loop is the spine, two blocks in each
# of deep's 64-iteration loops (about 67 blocks), and the first window
# (deep's rest at the cut, at most a call's blocks, then main's)
# pays.  Either way, -j1's profile.
for a in "500000 0" "1000 20000"; do
	n=lp_probe_$(echo "$a" | tr ' ' _)
	"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o "$n.lsc" -- \
		"$TD/lp_probe" $a >/dev/null 2>&1 </dev/null
	t_ok "lp_probe $a: recorded" test -s "$n.lsc"
	t_ok "lp_probe $a: 16 chunks or more, as the halves need ($(chunks "$n.lsc"))" \
		test "$(chunks "$n.lsc")" -ge 16
	"$LOOPSCOPE" analyze -q -j1 -o j1.lsprof "$n.lsc" 2>j1.err
	LOOPSCOPE_HALVES_PROBE=1000 "$LOOPSCOPE" analyze -q -j2 -o jp.lsprof "$n.lsc" 2>jp.err
	t_ok "lp_probe $a: -j2 after the probe: -j1's profile" cmp j1.lsprof jp.lsprof
	LOOPSCOPE_HALVES_PROBE=1000 "$BUILD/tests/loopdump" -j 2 "$n.lsc" >/dev/null 2>hs.err
	t_eq "lp_probe $a: loopdump -j 2 runs" 0 $?
done
LOOPSCOPE_HALVES_PROBE=1000 "$BUILD/tests/loopdump" -j 2 lp_probe_500000_0.lsc >/dev/null 2>hs.err
t_eq "lp_probe 500000 0: the probe read two windows" 2 "$(t_stat hs.err halves_probe)"
t_eq "lp_probe 500000 0: ... and said no" 1 "$(t_stat hs.err halves_no)"
t_eq "lp_probe 500000 0: ... no excursion taken" 0 "$(t_stat hs.err halves_exc)"
LOOPSCOPE_HALVES_PROBE=1000 "$BUILD/tests/loopdump" -j 2 lp_probe_1000_20000.lsc >/dev/null 2>hs.err
t_eq "lp_probe 1000 20000: the probe read one window" 1 "$(t_stat hs.err halves_probe)"
t_eq "lp_probe 1000 20000: ... and said yes" 0 "$(t_stat hs.err halves_no)"
t_ok "lp_probe 1000 20000: ... excursions taken from the worker" \
	test "$(t_stat hs.err halves_exc)" -gt 0
LOOPSCOPE_HALVES=1 "$BUILD/tests/loopdump" -j 2 lp_probe_500000_0.lsc >/dev/null 2>hs.err
t_eq "lp_probe 500000 0, LOOPSCOPE_HALVES=1: no probe" 0 "$(t_stat hs.err halves_probe)"
# ... and past a damaged stretch after the cut (two runs of bytes
# overwritten, then the stream cut, each well past 45% of lp_probe 1000
# 20000's 280 KB of trace: the probe's decode meets the losses), the
# same losses as -j1's, so the same profile.
"$BUILD/tests/ptcorrupt" write lp_probe_1000_20000.lsc psmash.lsc \
	"$(t_first_stream lp_probe_1000_20000.lsc)" smash:150000 smash:200000 >/dev/null 2>&1
"$BUILD/tests/ptcorrupt" write lp_probe_1000_20000.lsc pcut.lsc \
	"$(t_first_stream lp_probe_1000_20000.lsc)" cut:150000 >/dev/null 2>&1
for b in psmash.lsc pcut.lsc; do
	t_ok "$b written" test -s "$b"
	"$LOOPSCOPE" analyze -q -j1 -o j1.lsprof "$b" 2>"$b.err"
	LOOPSCOPE_HALVES_PROBE=1000 "$LOOPSCOPE" analyze -q -j2 -o jp.lsprof "$b" 2>jp.err
	t_ok "$b: -j2 after the probe: -j1's profile" cmp j1.lsprof jp.lsprof
	LOOPSCOPE_HALVES_PROBE=1000 "$BUILD/tests/loopdump" -j 2 "$b" >/dev/null 2>hs.err
	t_eq "$b: the probe read one window and said yes" "1 0" \
		"$(t_stat hs.err halves_probe) $(t_stat hs.err halves_no)"
done
t_ok "psmash.lsc: its losses said (the damage is real)" \
	grep -q "2 decode losses" psmash.lsc.err
