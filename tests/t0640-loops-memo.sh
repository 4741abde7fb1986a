#!/bin/sh
# t0640-loops-memo: the loop detector's iteration memo (analysis/
# loops_memo.c), its call memo (loops_cmemo.c) and its learning pass's
# memo of whole iterations (loops_fmemo.c) give the profile the per-block
# path gives, byte for byte, on streams made to be hard for them.
#
# The oracle is the detector's own per-block path (lsa_loops_opts.
# reference, also LOOPSCOPE_REFERENCE=1), which every other loop test
# checks against hand counts, native single-stepping and gcov.
# tests/tools/memocheck decodes each testdata program's bundle and replays
# a perturbed copy of its blocks (windows replayed as loops whose
# iterations repeat and then vary, dropped and swapped blocks, exits
# changed to any kind, blocks moved to a second thread, batches of random
# sizes; and, with -x, nested loops made of the stream, each left in the
# middle of an iteration, inner trip counts equal or varying) through
# both, with the functions named (-y) and without, in one pass and in the
# two that analyze makes (-k: the loops learned first, the first pass of
# each with its own path: with -k the learning memo's knowledge must
# give the profile the per-block learning gives, and the second pass
# must meet nothing the first did not learn); each run must also show
# that the memos took blocks, so a memo that never engaged would fail.  The call memo (analysis/
# loops_cmemo.c) the same way, on each bundle's own stream with sparse
# edits (memocheck -e: blocks dropped, doubled, swapped, exits changed,
# moved to a second thread), with the functions named (-y: spans and
# calls counted) and without.  Then analyze's profile of real
# bundles (xz, threads, signals, a per-CPU bundle) with the memo, on one
# thread and with decoding on a second (--jobs), against the reference's;
# t0208 compares every testdata bundle's the same way.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

for p in nested lp_calls lp_jmp lp_recur lp_trips threads signals irred \
	 gotonest recursion calls midjump; do
	[ -x "$TD/$p" ] || continue
	"$LOOPSCOPE" record -q -o "$p.lsc" -- "$TD/$p" </dev/null >/dev/null 2>&1
	[ -s "$p.lsc" ] || { echo "not ok $((t_n += 1)) - $p: recorded"; continue; }
	t_memo_modes "" "$p.lsc"
done

# A real program's bundle and the threaded ones: analyze's profile with
# the memo, on one thread and with decoding on a second (--jobs), equals
# the reference's (LOOPSCOPE_REFERENCE=1: no memo, one thread).
"$LOOPSCOPE" record -q -o xz.lsc -- xz -6 -c "$LSTOP/README.md" >/dev/null 2>&1 </dev/null
[ -s xz.lsc ] || echo "not ok $((t_n += 1)) - xz recorded"
"$BUILD/tests/lsb_percpu" -c 2 -m -k 4096 pc.lsc nested.lsc calls.lsc >/dev/null 2>&1
for b in xz threads lp_threads signals pc; do
	[ -s "$b.lsc" ] || "$LOOPSCOPE" record -q -o "$b.lsc" -- "$TD/$b" </dev/null >/dev/null 2>&1
	[ -s "$b.lsc" ] || continue
	LOOPSCOPE_REFERENCE=1 "$LOOPSCOPE" analyze -q -o ref.lsprof "$b.lsc"
	for j in 1 2 4; do
		"$LOOPSCOPE" analyze -q -j $j -o j.lsprof "$b.lsc"
		t_ok "$b: analyze --jobs=$j's profile equals the reference's" cmp j.lsprof ref.lsprof
	done
done
for seed in 7 14 37; do
	names=
	[ $seed = 14 ] && names=-y
	# shellcheck disable=SC2086
	"$BUILD/tests/memocheck" -s $seed $names xz.lsc >mc.out
	t_grep "xz: memocheck on a perturbed stream, seed $seed $names" "^ok 1" mc.out
done
# xz's stream with nested loops made of it, left early (memocheck -x).
for seed in 5 9; do
	names=
	[ $seed = 5 ] && names=-y
	# shellcheck disable=SC2086
	"$BUILD/tests/memocheck" -s $seed -x $names xz.lsc >mc.out
	t_grep "xz: memocheck with nested loops left early, seed $seed $names" "^ok 1" mc.out
	# outer iterations with inner ones iterating in them, taken whole
	# (flat iterations, analysis/loops_mflat.c)
	t_grep "xz: memocheck -x, seed $seed: flat iterations taken" "memo_flat [1-9]" mc.out
done
# xz's encoder loop nests loops whose iterations hold more blocks of its
# function than a trie lists (31): the learning memo takes them as wide
# levels, each block checked as it is taken against the path below the
# level's head (analysis/loops_fmatch.c).  The memocheck -k runs above
# fail where that check is left out (the learning differs from the
# per-block path's); this one fails where wide levels never begin.
"$BUILD/tests/loopdump" xz.lsc >ld.out 2>ld.err
t_grep "xz: the learning memo began wide levels" "^learn_wide [1-9]" ld.err
# The learning memo's tries dropped at their bound of nodes and rebuilt
# as they run (analysis/loops_fmemo.c's fm_clear(), which a trace this
# short never reaches at the bound of 2^18): at 2,048 nodes
# (LOOPSCOPE_FM_NODES) they are dropped over a thousand times, and what
# the memo learns must still be what the per-block path learns, and the
# profile the same bytes.
LOOPSCOPE_FM_NODES=2048 "$BUILD/tests/loopdump" xz.lsc >ld.out 2>ld.err
t_grep "xz: the tries dropped at a bound of 2,048 nodes" "learn_clears [1-9][0-9][0-9]" ld.err
for seed in 1 3; do
	LOOPSCOPE_FM_NODES=2048 "$BUILD/tests/memocheck" -s $seed -k xz.lsc >mc.out
	t_grep "xz: memocheck -k, seed $seed, the tries dropped at 2,048 nodes" "^ok 1" mc.out
	t_grep "xz: memocheck -k, seed $seed, 2,048 nodes: the same loops and bodies learned" "^ok 3" mc.out
done
"$LOOPSCOPE" analyze -q -j 1 -o fm1.lsprof xz.lsc
LOOPSCOPE_FM_NODES=2048 "$LOOPSCOPE" analyze -q -j 1 -o fm2.lsprof xz.lsc
t_ok "xz: the profile with the tries dropped at 2,048 nodes is the same bytes" \
	cmp fm1.lsprof fm2.lsprof
# nested.c's middle loop holds the inner loop's 30 iterations in each of
# its 200: flat iterations the memo takes whole (the profile is the
# reference's: t0208), in both passes' runs and at -j2 (at -j1 the memos'
# pass only where the eager one is off: LOOPSCOPE_EAGER=0).
for j in 1 2; do
	LOOPSCOPE_EAGER=0 "$BUILD/tests/loopdump" -j $j nested.lsc >ld.out 2>ld.err
	t_grep "nested: loopdump -j $j: flat iterations taken" "memo_flat [1-9]" ld.err
done
# xz's stream with sparse edits: calls the call memo took, then left.
for seed in 3 11; do
	"$BUILD/tests/memocheck" -s $seed -e 200 -y xz.lsc >mc.out
	t_grep "xz: memocheck with edits, seed $seed" "^ok 1" mc.out
	t_grep "xz: the call memo took calls, seed $seed" "cmemo_blocks [1-9][0-9]* in [1-9]" mc.out
done
