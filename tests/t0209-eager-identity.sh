#!/bin/sh
# t0209-eager-identity: the eager second pass (analysis/loops_eager.c,
# what analyze runs with one job) against the reference detector
# (LOOPSCOPE_REFERENCE=1: every block through the path design's per-block
# path and scan, no memo): analyze's profile is the same bytes; so is the
# eager pass's with its tight loop's runs cut every 7 blocks
# (LOOPSCOPE_ERUN_BLOCKS), and the memos' second pass at one job
# (LOOPSCOPE_EAGER=0, what the pieces of several jobs run).
#
# The oracle is the reference path, which t0600-t0640 check against hand
# counts and which t0208 holds the fast decoder to.  Bundles: every
# testdata program (calls, nests, threads, signals, longjmp and faults,
# whose landings the eager pass charges lazily, recursion, irreducible and
# goto loops), recorded with a PSB every 512 bytes in 4 KB chunks; two
# without return compression; damaged streams (ptcorrupt: holes in the
# trace, more landings); per-CPU streams.  Each eager run must have taken
# every block of its second pass (loopdump's eager_blocks), so a switch
# that stopped working fails here rather than comparing the memo path.
# Last, tests/tools/memocheck -E on xz's stream made hard for it (loops
# whose iterations repeat then vary, made-up calls and returns, nested
# loops left early, edits), eager against the per-block path.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1

t_need_recorder

# same B: the eager profile of bundle B equals the reference's, and the
# eager pass took the blocks its second pass saw; the memos' pass too.
same() {
	b=$1
	"$LOOPSCOPE" analyze -q -j1 -o eager.lsprof "$b" 2>eager.err; erc=$?
	LOOPSCOPE_REFERENCE=1 "$LOOPSCOPE" analyze -q -j1 -o ref.lsprof "$b" 2>ref.err; rrc=$?
	if [ "$erc" = "$rrc" ] && cmp -s eager.lsprof ref.lsprof && cmp -s eager.err ref.err; then
		echo "ok $((t_n += 1)) - $b: the eager profile is the reference's"
	else
		echo "not ok $((t_n += 1)) - $b: the eager profile is the reference's (status $erc against $rrc)"
		diff ref.lsprof eager.lsprof | head -10 | sed 's/^/#   /'
	fi
	# runs of the tight loop cut every 7 blocks (it sums a run's blocks
	# in 32 bits, and a run ends where they could reach 2^32: what its
	# local frames and loop entries hold is then made real, anywhere)
	LOOPSCOPE_ERUN_BLOCKS=7 "$LOOPSCOPE" analyze -q -j1 -o cut.lsprof "$b" 2>cut.err; crc=$?
	t_ok "$b: the eager profile with runs of 7 blocks is the reference's" \
		sh -c "[ $crc = $rrc ] && cmp -s cut.lsprof ref.lsprof && cmp -s cut.err ref.err"
	LOOPSCOPE_EAGER=0 "$LOOPSCOPE" analyze -q -j1 -o memo.lsprof "$b" 2>memo.err; mrc=$?
	t_ok "$b: the memos' profile at one job is the reference's" \
		sh -c "[ $mrc = $rrc ] && cmp -s memo.lsprof ref.lsprof && cmp -s memo.err ref.err"
	"$BUILD/tests/loopdump" -j 1 "$b" >/dev/null 2>st.err
	blocks=$(sed -n 's/^blocks \([0-9]*\) .*/\1/p' st.err)
	eager=$(sed -n 's/^eager_blocks \([0-9]*\) .*/\1/p' st.err)
	t_ok "$b: the eager pass took all $blocks blocks" test "${eager:-0}" = "${blocks:--1}"
	tails=$(sed -n 's/^eager_blocks .* eager_tails \([0-9]*\) .*/\1/p' st.err)
	nested=$(sed -n 's/^eager_blocks .* eager_nested \([0-9]*\) .*/\1/p' st.err)
	floops=$(sed -n 's/^eager_blocks .* eager_floops \([0-9]*\).*/\1/p' st.err)
}

# (vg_exitkill spins through 10^8 blocks: t0208 keeps it to totals)
for p in $(t_progs vg_exitkill); do
	t_recorded "$p" --psb-period 512 --chunk-size 4096 || continue
	same "$p.lsc"
	# pltleaf calls plk_add 100 times through its PLT stub: the calls
	# after the first (which classifies the stub and plk_add) go whole
	# through the tight loop's local frame, stub, jump and function
	# (and so do calls through the PLT in ld.so and libc)
	[ "$p" = pltleaf ] &&
		t_ok "pltleaf: the eager pass took calls through the PLT whole ($tails)" \
			test "${tails:-0}" -ge 99
	# pltnest's plk_add3 calls plk_add twice through its stub, 50 times
	# (testdata/pltnest.c): 100 calls nested in a call the tight loop
	# takes whole, all but those of the first iteration or so taken so
	# (more come from libc's and ld.so's nested calls)
	[ "$p" = pltnest ] &&
		t_ok "pltnest: the eager pass took nested calls whole ($nested)" \
			test "${nested:-0}" -ge 98
	# lp_fcall's calls of functions that run a loop open that loop's
	# entry in the tight loop's local frame: sum_to's 151 entries, and
	# the first loop of each of the 50 calls of loop_calls, two_loops and
	# nest2, 301 (testdata/lp_fcall.c; outer_h's own loop comes after
	# sum_to's, and is left to the frame made real); libc's and ld.so's
	# calls open more.  The rows are the hand count's.
	if [ "$p" = lp_fcall ]; then
		t_ok "lp_fcall: the eager pass opened callees' loops in local frames ($floops)" \
			test "${floops:-0}" -ge 301
		"$BUILD/tests/loopdump" -j 1 "$p.lsc" lp_fcall 2>/dev/null >fc.ld
		for want in "sum_to 151 356" "loop_calls 50 150" "outer_h 50 100" "main 1 50"; do
			set -- $want
			t_eq "lp_fcall: $1's loop: $2 entries, $3 iterations" "entries=$2 iterations=$3" \
				"$(awk -v f="$1" '$1 == "loop" && index($2, f "+") == 1 {print $4, $5}' fc.ld)"
		done
		t_eq "lp_fcall: two_loops' two loops: 50 entries of 2 each" \
			"entries=50 iterations=100
entries=50 iterations=100" \
			"$(awk '$1 == "loop" && $2 ~ /^two_loops\+/ {print $4, $5}' fc.ld)"
		t_eq "lp_fcall: nest2's loops: 100 entries of 2 inside 50 of 2" \
			"entries=100 iterations=200
entries=50 iterations=100" \
			"$(awk '$1 == "loop" && $2 ~ /^nest2\+/ {print $4, $5}' fc.ld)"
	fi
done

for p in calls lp_recur; do
	"$LOOPSCOPE" record -q --no-retcomp --psb-period 512 --chunk-size 4096 \
		-o "nr_$p.lsc" -- "$TESTDATA/$p" >/dev/null 2>&1
	same "nr_$p.lsc"
done

sid=$(t_first_stream nested.lsc)
"$BUILD/tests/ptcorrupt" write nested.lsc smash.lsc "$sid" smash:3000 smash:9000 >/dev/null 2>&1
"$BUILD/tests/ptcorrupt" write nested.lsc flip.lsc "$sid" flip:5000:0x40 flip:7001:0x01 >/dev/null 2>&1
"$BUILD/tests/ptcorrupt" write nested.lsc cut.lsc "$sid" cut:6000 >/dev/null 2>&1
for b in smash.lsc flip.lsc cut.lsc; do
	t_ok "$b written" test -s "$b"
	same "$b"
done

t_percpu_bundle
t_ok "a per-CPU bundle of nested and calls on two CPUs" test -s pc.lsc
same pc.lsc

# memocheck -E: the eager pass against the per-block path on xz's stream
# made hard (see memocheck.c): repeats that vary, made-up calls, returns
# and exits, nested loops left early, with and without functions named.
"$LOOPSCOPE" record -q -o xz.lsc -- xz -6 -c "$LSTOP/README.md" >/dev/null 2>&1 </dev/null
t_ok "xz recorded" test -s xz.lsc
seed=0
for mode in "-k" "-x -k" "-e 300 -k" "-y -k" "-y -x -k" "-y -e 50 -k"; do
	seed=$((seed + 1))
	# shellcheck disable=SC2086
	"$BUILD/tests/memocheck" -s $seed -E $mode xz.lsc >mc.out 2>&1
	t_memo_relabel "xz: memocheck -E $mode, seed $seed: "
done
