#!/bin/sh
# t0641-memo-programs: t0640's memo identity checks (tests/tools/memocheck,
# its ten modes: t_memo_modes in tests/lib.sh) on real programs, whose
# streams are longer and more varied than the testdata programs': bzip2
# -9 compressing text by default;
# LS_SLOW_TESTS=1 more of it, xz -6 and sqlite3 building and querying an
# indexed table too (the bench's inputs, bench/inputs.sh).  Three bugs of
# the learning pass's memo that t0640 missed were found this way
# (2026-12-02: a call level's blocks lost where pending blocks were walked
# again, an interrupt's resume lost where a level's blocks went back, a
# call ended at a loop head whose iterations were collapsed).
# A fourth (a head's own return keyed as the return of a call it made)
# showed on a fresh recording; memocheck -L and -S, which hold the two
# learning passes' frames and paths to each other batch by batch, found
# where it began, and run here on the edited stream too.
#
# The oracle is the detector's per-block path, as in t0640: the profiles
# must be the same bytes, the memos must have taken blocks, and the second
# pass must meet nothing the first did not learn.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1

t_need_recorder

top=$LSTOP
. "$LSTOP/bench/inputs.sh"
if [ "${LS_SLOW_TESTS:-0}" = 1 ]; then
	bench_inputs . 200000 5000
else
	bench_inputs . 40000 500
fi

# record NAME CMD...: the program recorded into NAME.lsc.
record() {
	n=$1
	shift
	"$LOOPSCOPE" record -q -o "$n.lsc" -- "$@" >/dev/null 2>&1 </dev/null
	t_ok "$n: recorded" test -s "$n.lsc"
}

# lock NAME SEED MODE...: the two learning passes side by side on the
# stream memocheck makes (-L: compared where the memo is not matching;
# -S: made to stop at every batch end), their frames and paths the same
# at each (the first difference printed).
lock() {
	_n=$1
	_s=$2
	shift 2
	for _l in -L -S; do
		"$BUILD/tests/memocheck" "$_l" -s "$_s" "$@" "$_n.lsc" >mc.out 2>&1
		t_memo_relabel "$_n $_l seed $_s: "
	done
}

if command -v bzip2 >/dev/null; then
	record bzip2 bzip2 -9 -c text
	t_memo_modes "bzip2 " bzip2.lsc
	# the edits (stop 43's bug: a head's own return walked as a call's)
	lock bzip2 10 -e 30 -y
else
	echo "ok $((t_n += 1)) # skip bzip2 is not installed"
fi
if [ "${LS_SLOW_TESTS:-0}" = 1 ]; then
	if command -v xz >/dev/null; then
		record xz xz -6 -c text
		t_memo_modes "xz " xz.lsc
	fi
	if command -v sqlite3 >/dev/null; then
		record sqlite3 sqlite3 :memory: ".read q.sql"
		t_memo_modes "sqlite3 " sqlite3.lsc
	fi
fi
