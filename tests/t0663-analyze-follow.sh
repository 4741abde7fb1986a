#!/bin/sh
# t0663-analyze-follow.sh - the second pass begun beside the learning
# pass (analysis/loops_follow.c): the same profile bytes as one pass.
#
# The oracle is `analyze -j1`, whose second pass starts once the
# learning pass ended and runs the thread's blocks in order on one
# detector (t0640, t0646 and unit_loops check it against hand counts,
# t0208 its blocks against libipt).  At two jobs a worker runs the
# second pass from the stream's start behind the learning pass, with a
# copy of what it knew at a cut, on the chunks it took; it takes later
# copies on where their new facts name no block it ran, and starts over
# where they do; at the end its piece stands for the second pass's first
# pieces where no fact it did not know names a block it ran.
# LOOPSCOPE_FOLLOW=1 begins it at the first cut (the learning pass then
# on one thread), LOOPSCOPE_FOLLOW=step too, the learning pass waiting
# at each cut until the worker took every chunk before it (so that what
# it did is the same from run to run), unset where the facts stopped
# coming (the default).  LOOPSCOPE_HALVES=0: the halves (t0662) would
# take the longer streams instead.
#
# Expected numbers: testdata/lp_late's hand count.  Its work(1) runs an
# outer loop one trip, in the stream's first chunk, whose head is
# learned only at work(3), at its end: a worker that ran work(1) knowing
# less must not count (follow_first 0).  Without work(1) (lp_late N 0 A)
# the late facts name only blocks the worker, stepping, has not run: its
# piece stands for every piece before the last cut, the stream's chunks
# (info's stream line) less one.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

# (as t0659: a field read before it is set reads 2, not 0)
MALLOC_PERTURB_=253
export MALLOC_PERTURB_
LOOPSCOPE_HALVES=0
export LOOPSCOPE_HALVES

# follow_same B [OPTS]: B's profile with the second pass following, at
# two and three jobs, from the first cut, stepping, by default, and with
# the snapshots thinned: -j1's bytes.
follow_same() {
	b=$1
	shift
	"$LOOPSCOPE" analyze -q -j1 "$@" -o j1.lsprof "$b" 2>j1.err
	t_eq "$b: analyze -j1 $* runs" 0 $?
	for j in 2 3; do
		for f in 1 step ""; do
			LOOPSCOPE_FOLLOW=$f "$LOOPSCOPE" analyze -q -j$j "$@" -o jf.lsprof "$b" \
				2>jf.err
			t_ok "$b: -j$j $* following (${f:-default}): -j1's profile" \
				cmp j1.lsprof jf.lsprof
		done
	done
	LOOPSCOPE_FOLLOW=step LOOPSCOPE_SNAP_BYTES=3000 "$LOOPSCOPE" \
		analyze -q -j2 "$@" -o jf.lsprof "$b" 2>jf.err
	t_ok "$b: ... stepping, the snapshots thinned: -j1's profile" cmp j1.lsprof jf.lsprof
}

for a in "lp_late" "lp_late 200000 0"; do
	n=$(echo "$a" | tr ' ' _)
	# shellcheck disable=SC2086
	"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o "$n.lsc" -- \
		"$TD/"$a >/dev/null 2>&1 </dev/null
	t_ok "$n: recorded" test -s "$n.lsc"
	follow_same "$n.lsc"
done
# The stepping worker's choices, on lp_late in chunks of 32 KB: the
# program's start up (the loader, libc's, which vary with the size of the
# environment it is given) teaches its facts before the first cut, so
# that the worker starts once (follow_restarts 1) and later facts come
# only from lp_late's own loops.  (In chunks of 4 KB they came at two or
# at three cuts with one variable more in the environment, and the
# third start turned the worker off: the counts were the environment's.)
# - lp_late 1500000: work(3)'s outer head, learned after the last cut,
#   names a block of work(1) the worker ran: no piece of its kept.
# - lp_late 1500000 0 600000: work(3)'s facts, learned in the chunk
#   before a cut (busy runs on after it), name only blocks the worker,
#   stepping, has not run: it takes them on once (follow_more 1) and its
#   piece stands for every piece before the last cut, the stream's
#   chunks (info's stream line) less one.
for a in "lp_late 1500000" "lp_late 1500000 0 600000"; do
	n=$(echo "$a" | tr ' ' _)
	# shellcheck disable=SC2086
	"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 32768 -o "$n.lsc" -- \
		"$TD/"$a >/dev/null 2>&1 </dev/null
	t_ok "$n: recorded" test -s "$n.lsc"
done
nc=$("$LOOPSCOPE" info lp_late_1500000_0_600000.lsc | awk '$2 == "thread" { print $4 }')
t_ok "lp_late 1500000 0 600000: several chunks ($nc)" test "${nc:-0}" -ge 8
for i in 1 2; do
	LOOPSCOPE_FOLLOW=step "$BUILD/tests/loopdump" -j 2 lp_late_1500000.lsc >/dev/null 2>l1.err
	t_eq "lp_late: the late head names a block the worker ran: no piece of its kept ($i)" \
		0 "$(t_stat l1.err follow_first)"
	t_eq "lp_late: ... one start ($i)" 1 "$(t_stat l1.err follow_restarts)"
	LOOPSCOPE_FOLLOW=step "$BUILD/tests/loopdump" -j 2 lp_late_1500000_0_600000.lsc \
		>/dev/null 2>l0.err
	t_eq "lp_late 1500000 0 600000: the worker's piece for every piece before the last cut ($i)" \
		$((nc - 1)) "$(t_stat l0.err follow_first)"
	t_eq "lp_late 1500000 0 600000: ... it went on knowing more, once, without starting over ($i)" \
		"1 1" "$(t_stat l0.err follow_more) $(t_stat l0.err follow_restarts)"
	t_eq "lp_late 1500000 0 600000: ... joined without a retry" 0 \
		"$(t_stat l0.err piece_retries)"
done
follow_same lp_late_1500000_0_600000.lsc
# LOOPSCOPE_FOLLOW=0: none
LOOPSCOPE_FOLLOW=0 "$BUILD/tests/loopdump" -j 2 lp_late_200000_0.lsc >/dev/null 2>l0.err
t_eq "lp_late 200000 0: LOOPSCOPE_FOLLOW=0: no worker" 0 "$(t_stat l0.err follow_begun)"
# The default begins it where the facts stopped coming: lp_late's busy
# loop (every block a repeat from its second iteration on) is.  (Counted
# where the learning pass hands it its first knowledge, follow_begun:
# whether the worker's thread took it, follow_restarts, before the
# stream's last six chunks were learned depends on when it ran.)
"$BUILD/tests/loopdump" -j 2 lp_late_200000_0.lsc >/dev/null 2>l0.err
t_eq "lp_late 200000 0: by default, a worker begun" 1 "$(t_stat l0.err follow_begun)"

# Programs with nests, calls, longjmp, recursion, signals, PLT calls and
# irreducible loops, in chunks of 4 KB.
for a in nested lp_calls lp_jmp lp_recur vg_sig plt irred; do
	"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o "$a.lsc" -- \
		"$TD/$a" >/dev/null 2>&1 </dev/null
	t_ok "$a: recorded" test -s "$a.lsc"
	follow_same "$a.lsc"
done

# Damaged streams: losses, resets and landings at the damage.
t_damaged nested.lsc
for b in smash.lsc cut.lsc; do
	t_ok "$b written" test -s "$b"
	follow_same "$b"
done

# Several threads, and per-CPU streams: no worker, the same profile.
"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o lp_threads.lsc -- \
	"$TD/lp_threads" >/dev/null 2>&1 </dev/null
follow_same lp_threads.lsc
LOOPSCOPE_FOLLOW=1 "$BUILD/tests/loopdump" -j 2 lp_threads.lsc >/dev/null 2>t.err
t_eq "lp_threads: several threads: no worker" 0 "$(t_stat t.err follow_begun)"
t_percpu_bundle
t_ok "a per-CPU bundle" test -s pc.lsc
follow_same pc.lsc

# With the graph beside the learning pass (--cfg): no worker.
follow_same lp_late_200000_0.lsc --cfg --structural
