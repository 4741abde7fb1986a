#!/bin/sh
# t0659-analyze-pieces.sh - one thread's second pass cut into pieces run
# side by side (analysis/loops_piece.c, loops_pieces.c): the same profile
# bytes as the one pass.
#
# The oracle is `analyze -j1`, whose second pass runs the thread's blocks
# in order on one detector (t0640, t0646 and unit_loops check that pass
# against hand counts, t0208 its blocks against libipt).  With --jobs
# above two the learning pass keeps the frames and paths every
# LOOPSCOPE_PIECE_BLOCKS blocks and the second pass cuts the stream
# there: each piece's worker starts from the cut's frames and paths with
# its counts at 0, and the calling thread joins the pieces in order.
# Pieces of 1, 3 and 17 blocks put cuts inside every kind of state
# the detector has (inside calls and returns, signal handlers, longjmp,
# recursion, tail calls, open loop entries of every depth, the memos'
# matching), on programs with nests, calls, threads, signals, longjmp,
# recursion, tail calls and irreducible loops (seven, fifteen with
# LS_SLOW_TESTS=1); with the workers on threads of their own and one after
# the other on the calling thread (LOOPSCOPE_PIECE_WORKERS=0).  Damaged
# streams (losses), a per-CPU bundle and the real recording of
# ../shared/testdata-real (whose per-CPU streams are not cut), and a
# sampled bundle with the graph beside (--cfg --structural --cpi) too.
# loopdump's "pieces" says the pieces were joined: the stream's blocks
# over the piece length, rounded up.  Pieces are cut with two jobs or
# more: the eager pass's (a worker starts from the eager state the
# cut's snapshot gives, loops_epiece.c), or with LOOPSCOPE_EAGER=0 the
# memos'; pieces_same runs both, on two jobs and on three, and the
# shards of several threads, which get their jobs each.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

# glibc fills what malloc and realloc return with the complement of this
# byte (2 here): a frame, entry or piece field that a worker reads before
# setting it then reads 2, not the 0 that fresh pages give, and the
# profile differs (a snapshot's frames once took a hand-over's kind
# so, and ran on freed counts one run in a hundred).
MALLOC_PERTURB_=253
export MALLOC_PERTURB_

# pieces_same B JOBS OPTS: analyze OPTS of B with JOBS jobs, pieces of
# several lengths, workers threaded and not: -j1's profile bytes.
pieces_same() {
	b=$1; j=$2; shift 2
	"$LOOPSCOPE" analyze -q -j1 "$@" -o j1.lsprof "$b" 2>j1.err
	t_eq "$b: analyze $* -j1 runs" 0 $?
	# the eager pass's pieces cut at chunks, each decoded where it runs
	# (the default), with every cut and with the cuts thinned
	for jj in 2 "$j"; do
		for sb in "" 3000; do
			LOOPSCOPE_SNAP_BYTES=$sb "$LOOPSCOPE" \
				analyze -q -j"$jj" "$@" -o jp.lsprof "$b" 2>jp.err
			t_ok "$b: pieces decoded where they run, -j$jj $* (snapshots ${sb:-64M}): -j1's profile" \
				cmp j1.lsprof jp.lsprof
		done
	done
	# the pieces of one decode's blocks (LOOPSCOPE_PIECE_DECODE=0, and the
	# memos' pass, LOOPSCOPE_EAGER=0)
	for e in 1 0; do
		for jj in 2 "$j"; do
			for pb in 1 17 ""; do
				LOOPSCOPE_PIECE_DECODE=0 LOOPSCOPE_EAGER=$e LOOPSCOPE_PIECE_BLOCKS=$pb \
					"$LOOPSCOPE" analyze -q -j"$jj" "$@" -o jp.lsprof "$b" 2>jp.err
				t_ok "$b: pieces of ${pb:-default} blocks, -j$jj $* (eager $e): -j1's profile" \
					cmp j1.lsprof jp.lsprof
			done
		done
		LOOPSCOPE_PIECE_DECODE=0 LOOPSCOPE_EAGER=$e LOOPSCOPE_PIECE_BLOCKS=3 \
			LOOPSCOPE_PIECE_WORKERS=0 \
			"$LOOPSCOPE" analyze -q -j"$j" "$@" -o jp.lsprof "$b" 2>jp.err
		t_ok "$b: pieces of 3 blocks on the calling thread (eager $e): -j1's profile" \
			cmp j1.lsprof jp.lsprof
	done
}

# blocks B: the blocks the detector saw (loopdump's statistics)
blocks() {
	"$BUILD/tests/loopdump" "$1" 2>&1 >/dev/null | sed -n 's/^blocks \([0-9]*\) .*/\1/p'
}

# (LS_SLOW_TESTS=1: eight programs more, of the same kinds)
progs='"nested" "lp_calls" "lp_jmp" "lp_recur" "vg_sig" "plt" "irred"'
[ "${LS_SLOW_TESTS:-0}" = 1 ] && progs="$progs"' "gotonest 10 5 11" "recursion"'
[ "${LS_SLOW_TESTS:-0}" = 1 ] && progs="$progs"' "deepcalls" "signals" "lp_order"'
[ "${LS_SLOW_TESTS:-0}" = 1 ] && progs="$progs"' "lp_trips" "midjump" "fig1"'
eval "set -- $progs"
for a in "$@"; do
	n=${a%% *}
	# shellcheck disable=SC2086
	"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o "$n.lsc" -- \
		"$TD/"$a >/dev/null 2>&1 </dev/null
	t_ok "$n: recorded" test -s "$n.lsc"
	pieces_same "$n.lsc" 3
done

# Several threads: each shard of threads gets two jobs, and cuts its
# threads' streams.
for n in lp_threads threads; do
	"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o "$n.lsc" -- \
		"$TD/$n" >/dev/null 2>&1 </dev/null
	t_ok "$n: recorded" test -s "$n.lsc"
	pieces_same "$n.lsc" 6
done

# The pieces were joined: as many as the stream's blocks make (one
# thread), and none where the learning pass kept no cut.
nb=$(blocks nested.lsc)
t_ok "nested: loopdump counts its blocks" test "${nb:-0}" -gt 1000
LOOPSCOPE_PIECE_DECODE=0 LOOPSCOPE_PIECE_BLOCKS=17 "$BUILD/tests/loopdump" -j 3 nested.lsc \
	>p.out 2>p.err
# (a cut at every 17th block, the stream's last too: where the blocks
# are a multiple of 17, an empty piece follows it)
t_eq "nested: pieces of 17 blocks: one after each 17th block and the first" \
	"pieces $(( nb / 17 + 1 ))" "$(grep -o 'pieces [0-9]*' p.err)"
t_eq "nested: ... whose second pass is the eager one, every block" \
	"eager_blocks $nb" "$(grep -o '^eager_blocks [0-9]*' p.err)"
# Two jobs cut as many (the eager pass's pieces on one worker and the
# decoding thread); with LOOPSCOPE_EAGER=0 the memos' pieces, no block
# eager.
LOOPSCOPE_PIECE_DECODE=0 LOOPSCOPE_PIECE_BLOCKS=17 "$BUILD/tests/loopdump" -j 2 nested.lsc \
	>e.out 2>e.err
t_eq "nested: -j 2: pieces of 17 blocks" \
	"pieces $(( nb / 17 + 1 ))" "$(grep -o 'pieces [0-9]*' e.err)"
t_eq "nested: -j 2: the eager pass took every block" \
	"eager_blocks $nb" "$(grep -o '^eager_blocks [0-9]*' e.err)"
LOOPSCOPE_EAGER=0 LOOPSCOPE_PIECE_BLOCKS=17 "$BUILD/tests/loopdump" -j 2 nested.lsc \
	>e.out 2>e.err
t_eq "nested: -j 2, LOOPSCOPE_EAGER=0: pieces of 17 blocks" \
	"pieces $(( nb / 17 + 1 ))" "$(grep -o 'pieces [0-9]*' e.err)"
t_eq "nested: ... the memos', no block eager" \
	"eager_blocks 0" "$(grep -o '^eager_blocks [0-9]*' e.err)"
# A join that finds a worker's state unlike its own (forced here at the
# fifth: LOOPSCOPE_PIECE_FAIL) makes the second pass again on one thread:
# -j1's profile, the retry counted; none without it.
t_grep "nested: -j 2: no second pass made again" "piece_retries 0$" e.err
for e in 1 0; do
	LOOPSCOPE_PIECE_DECODE=0 LOOPSCOPE_EAGER=$e LOOPSCOPE_PIECE_FAIL=5 \
		LOOPSCOPE_PIECE_BLOCKS=17 "$BUILD/tests/loopdump" -j 2 nested.lsc >f.out 2>f.err
	t_grep "nested: a join failing (eager $e): the second pass made again" \
		"piece_retries 1$" f.err
	LOOPSCOPE_PIECE_DECODE=0 LOOPSCOPE_EAGER=$e LOOPSCOPE_PIECE_FAIL=5 \
		LOOPSCOPE_PIECE_BLOCKS=17 "$LOOPSCOPE" analyze -q -j2 -o f.lsprof nested.lsc 2>f.err
	"$LOOPSCOPE" analyze -q -j1 -o f1.lsprof nested.lsc 2>/dev/null
	t_ok "nested: ... and -j1's profile" cmp f1.lsprof f.lsprof
done
"$BUILD/tests/loopdump" nested.lsc >s.out 2>/dev/null
# (loopdump prints the detector's rows unsorted: the call rows of a
# loop come in the order the joiner met their callees)
sort s.out >s.sorted
sort p.out >p.sorted
t_ok "nested: loopdump's rows with pieces are -j1's" cmp s.sorted p.sorted
# Cuts at every block: the snapshots would take more than 64 MiB
# (nested's paths reach hundreds of entries), so every other one of them
# goes, as often as needed: fewer pieces, the same rows.
LOOPSCOPE_PIECE_DECODE=0 LOOPSCOPE_PIECE_BLOCKS=1 "$BUILD/tests/loopdump" -j 3 nested.lsc \
	>p.out 2>p.err
np=$(sed -n 's/.* pieces \([0-9]*\) .*/\1/p' p.err)
t_ok "nested: pieces of 1 block: thinned to fewer than its blocks" \
	test "${np:-0}" -gt 1 -a "${np:-0}" -lt "$nb"
sort p.out >p.sorted
t_ok "nested: ... and the same rows" cmp s.sorted p.sorted
LOOPSCOPE_PIECE_DECODE=0 LOOPSCOPE_PIECE_BLOCKS=0 "$BUILD/tests/loopdump" -j 3 nested.lsc \
	>/dev/null 2>p.err
t_grep "nested: LOOPSCOPE_PIECE_BLOCKS=0: no pieces" " pieces 0 " p.err

# Pieces decoded where they run (loops_dpieces.c, the default from two
# jobs): the learning pass cuts where each chunk's blocks begin, so
# vg_sig's stream of NC chunks (info's stream line) makes NC pieces, and
# the eager pass takes every block; the same rows as -j1.  Where the
# second pass began beside the learning pass (loops_follow.c: vg_sig's
# loop learns nothing after its first cuts) and its worker's state was
# taken, the FP pieces that worker's one stood for (follow_first) are
# one: NC - FP + 1.  Whether it was taken follows the threads' timing
# (stop 80: 21 pieces of 22 chunks in one make check; on a recording of
# 33 chunks, 2 pieces in 4 runs of 12); t0663 checks the worker itself.
nc=$("$LOOPSCOPE" info vg_sig.lsc | awk '$2 == "thread" { print $4 }')
nb=$(blocks vg_sig.lsc)
t_ok "vg_sig: several chunks ($nc)" test "${nc:-0}" -ge 8
"$BUILD/tests/loopdump" vg_sig.lsc >s.out 2>/dev/null
sort s.out >s.sorted
for j in 2 3; do
	"$BUILD/tests/loopdump" -j $j vg_sig.lsc >d.out 2>d.err
	fp=$(sed -n 's/.* follow_first \([0-9]*\).*/\1/p' d.err)
	np=$nc
	[ "${fp:-0}" -gt 0 ] && np=$((nc - fp + 1))
	t_grep "vg_sig: -j $j: a piece a chunk (the worker's one stood for ${fp:-0})" \
		" pieces $np " d.err
	t_grep "vg_sig: -j $j: ... the eager pass took every block" "^eager_blocks $nb " d.err
	t_grep "vg_sig: -j $j: ... none made again" "piece_retries 0$" d.err
	t_grep "vg_sig: -j $j: ... the workers' twins shared the pass's static blocks" \
		" pieces_named 0 " d.err
	sort d.out >d.sorted
	t_ok "vg_sig: -j $j: ... and -j1's rows" cmp s.sorted d.sorted
	# The twins' blocks named block by block instead (as before
	# lsd_twin_share(); where a share cannot be had)
	LOOPSCOPE_PIECE_SHARE=0 "$BUILD/tests/loopdump" -j $j vg_sig.lsc >d.out 2>d.err
	t_grep "vg_sig: -j $j, LOOPSCOPE_PIECE_SHARE=0: none made again" "piece_retries 0$" d.err
	sort d.out >d.sorted
	t_ok "vg_sig: -j $j, LOOPSCOPE_PIECE_SHARE=0: -j1's rows" cmp s.sorted d.sorted
done
# Snapshots past their memory (LOOPSCOPE_SNAP_BYTES): every other cut
# goes, as often as needed (a cut every 2nd, 4th ... chunk): fewer
# pieces, the same rows.  (4,000 bytes: vg_sig's cuts in its loop take
# 920 each and the one at its next to last chunk 2,744, a cut the
# learning pass makes only where the decode told that chunk's start
# before its blocks came, which depends on the threads' timing; with
# 1,500 that one cut alone was past the bound and every cut went.)
LOOPSCOPE_SNAP_BYTES=4000 "$BUILD/tests/loopdump" -j 2 vg_sig.lsc >d.out 2>d.err
np=$(sed -n 's/.* pieces \([0-9]*\) .*/\1/p' d.err)
t_ok "vg_sig: snapshots thinned: fewer pieces ($np), more than one" \
	test "${np:-0}" -gt 1 -a "${np:-0}" -lt "$nc"
sort d.out >d.sorted
t_ok "vg_sig: ... and -j1's rows" cmp s.sorted d.sorted
# A stream of one chunk (nested in the recorder's default chunks) would
# be one piece: its blocks are copied to pieces instead, every
# LOOPSCOPE_PIECE_BLOCKS (here 17) of them, with no LOOPSCOPE_PIECE_DECODE.
"$LOOPSCOPE" record -q -o nested1.lsc -- "$TD/nested" >/dev/null 2>&1 </dev/null
n1=$("$LOOPSCOPE" info nested1.lsc | awk '$2 == "thread" { print $4 }')
t_eq "nested1: one chunk" 1 "$n1"
nb1=$(blocks nested1.lsc)
LOOPSCOPE_PIECE_BLOCKS=17 "$BUILD/tests/loopdump" -j 2 nested1.lsc >d.out 2>d.err
t_eq "nested1: -j 2: pieces of 17 blocks copied" \
	"pieces $(( nb1 / 17 + 1 ))" "$(grep -o 'pieces [0-9]*' d.err)"
# A join that fails (the 2nd: LOOPSCOPE_PIECE_FAIL) makes the pass again
# on one thread: counted, -j1's profile.
LOOPSCOPE_PIECE_FAIL=2 "$BUILD/tests/loopdump" -j 2 vg_sig.lsc >f.out 2>f.err
t_grep "vg_sig: a join failing: the second pass made again" "piece_retries 1$" f.err
LOOPSCOPE_PIECE_FAIL=2 "$LOOPSCOPE" analyze -q -j2 -o f.lsprof vg_sig.lsc 2>f.err
"$LOOPSCOPE" analyze -q -j1 -o f1.lsprof vg_sig.lsc 2>/dev/null
t_ok "vg_sig: ... and -j1's profile" cmp f1.lsprof f.lsprof

# A stream whose blocks the learning pass took nearly all as repeats
# (spin: 98% of them, one inner loop of 10 x 100000 trips): the second
# pass stays on the decoding thread, no pieces (LSA_HERE_PCT), the same
# rows and profile (nested, above, took 45% as repeats, and was cut).
"$LOOPSCOPE" record -q -o spin.lsc -- "$TD/spin" 10 100000 >/dev/null 2>&1 </dev/null
t_ok "spin: recorded" test -s spin.lsc
"$BUILD/tests/loopdump" -j 3 spin.lsc >p.out 2>p.err
t_grep "spin: -j 3, repeats: no pieces" " pieces 0 " p.err
"$BUILD/tests/loopdump" spin.lsc >s.out 2>/dev/null
t_ok "spin: ... and -j1's rows" cmp s.out p.out
pieces_same spin.lsc 3
pieces_same spin.lsc 3 --cfg --structural

# Per-CPU streams are not cut: the same profile.
t_percpu_bundle
t_ok "a per-CPU bundle" test -s pc.lsc
pieces_same pc.lsc 3

# The real recording (per-CPU streams, none cut; without its binaries
# every block is a loss): the same profile.
Q=$T_REAL/quipper/perf.data.intel_pt-4.14
if [ -f "$Q" ]; then
	"$LOOPSCOPE" import -q "$Q" -o q.lsc >/dev/null 2>&1
	t_ok "quipper: imported" test -s q.lsc
	pieces_same q.lsc 3
fi

# Damaged streams: losses, resets and landings at the damage.
t_damaged nested.lsc
for b in smash.lsc cut.lsc; do
	t_ok "$b written" test -s "$b"
	pieces_same "$b" 3
done

# A sampled bundle, the graph on a thread of its own beside the pieces.
if "$LOOPSCOPE" record -q --sample-freq=2000 --psb-period 512 --chunk-size 4096 \
	-o s.lsc -- "$TD/spin" 20 100 >/dev/null 2>&1; then
	pieces_same s.lsc 3 --cpi --cfg --structural
fi
