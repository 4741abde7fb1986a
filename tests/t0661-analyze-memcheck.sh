#!/bin/sh
# t0661-analyze-memcheck.sh - the analysis's threaded paths under
# Valgrind's memcheck: no read of memory never written, no invalid
# access, and -j1's profile bytes.
#
# ASan does not see a read of memory malloc or realloc returned that
# nothing wrote (it fills it with 0xbe, which no field here tests for),
# and such a read in a worker made a wrong profile or a crash once in a
# hundred runs (a frame of a piece set from a snapshot left the
# hand-over's kind and the memo's serial as the grown array held them:
# memcheck reported 7 errors there).  So every path that starts state
# from a snapshot or hands it between threads runs here: the pieces of
# the eager pass and of the memos' (LOOPSCOPE_EAGER=0) with workers on
# threads and on the calling thread, the learning pass piped to another
# thread (-j2) and in halves (a worker's log), the shards of several
# threads, and the consumers beside (--cfg --structural).  The oracle for the profiles is `analyze -j1`
# (t0659 and t0209 hold it to hand counts and libipt's blocks).
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder
# (memcheck cannot run a sanitized build: ASan and TSan map the shadow
# memory that Valgrind's own allocator takes; those builds check this
# their own way)
if ldd "$LOOPSCOPE" | grep -q 'libasan\|libtsan'; then
	echo "ok 1 # skip a sanitized build (memcheck runs the plain one)"
	exit 0
fi

# (the process's huge-page tuning re-executes it: memcheck would follow
# the first process only)
LOOPSCOPE_HUGEPAGES=0
export LOOPSCOPE_HUGEPAGES

# clean DESC ENVS -- ARGS: analyze ARGS under memcheck with the
# environment ENVS: no error, and the profile -j1's (j1.lsprof).
clean() {
	d=$1; shift
	env_=""
	while [ "$1" != "--" ]; do env_="$env_ $1"; shift; done
	shift
	# shellcheck disable=SC2086
	env $env_ valgrind -q --error-exitcode=99 --exit-on-first-error=no \
		"$LOOPSCOPE" analyze -q -o mc.lsprof "$@" >mc.out 2>mc.err
	rc=$?
	t_eq "$d: no memcheck error" 0 "$rc"
	[ "$rc" = 0 ] || sed 's/^/# /' mc.err | head -40
	t_ok "$d: -j1's profile" cmp j1.lsprof mc.lsprof
}

for n in nested lp_threads vg_sig; do
	"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o "$n.lsc" -- \
		"$TD/$n" >/dev/null 2>&1 </dev/null
	t_ok "$n: recorded" test -s "$n.lsc"
done

"$LOOPSCOPE" analyze -q -j1 -o j1.lsprof nested.lsc
clean "nested: eager pieces of 17 blocks, -j3" LOOPSCOPE_EAGER=1 \
	LOOPSCOPE_PIECE_BLOCKS=17 -- -j3 nested.lsc
clean "nested: the memos' pieces of 17 blocks, -j3" LOOPSCOPE_EAGER=0 \
	LOOPSCOPE_PIECE_BLOCKS=17 -- -j3 nested.lsc
clean "nested: the memos' pieces of 3 blocks on the calling thread" LOOPSCOPE_EAGER=0 \
	LOOPSCOPE_PIECE_BLOCKS=3 LOOPSCOPE_PIECE_WORKERS=0 -- -j3 nested.lsc
clean "nested: -j2, the learning pass piped" -- -j2 nested.lsc

"$LOOPSCOPE" analyze -q -j1 -o j1.lsprof lp_threads.lsc
clean "lp_threads: the memos' pieces of 17 blocks, -j6 (shards)" LOOPSCOPE_EAGER=0 \
	LOOPSCOPE_PIECE_BLOCKS=17 -- -j6 lp_threads.lsc
clean "lp_threads: eager pieces of 17 blocks, -j6 (shards)" LOOPSCOPE_EAGER=1 \
	LOOPSCOPE_PIECE_BLOCKS=17 -- -j6 lp_threads.lsc

"$LOOPSCOPE" analyze -q -j1 --cfg --structural -o j1.lsprof vg_sig.lsc
clean "vg_sig: eager pieces of 17 blocks, -j3 --cfg --structural" \
	LOOPSCOPE_PIECE_BLOCKS=17 -- -j3 --cfg --structural vg_sig.lsc

# The learning pass in halves (loops_halves.c): a worker's log of
# excursions taken by the calling thread, and where the worker stopped
# (vg_sig's handler returns below its excursion) the rest its own.
"$LOOPSCOPE" analyze -q -j1 -o j1.lsprof nested.lsc
clean "nested: -j2, the learning pass in halves" LOOPSCOPE_HALVES=1 -- -j2 nested.lsc
"$LOOPSCOPE" analyze -q -j1 -o j1.lsprof vg_sig.lsc
clean "vg_sig: -j2, the learning pass in halves, its worker stopped" LOOPSCOPE_HALVES=1 \
	LOOPSCOPE_HALVES_AT=10 -- -j2 vg_sig.lsc
