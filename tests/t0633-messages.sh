#!/bin/sh
# t0633-messages: small things a user meets (issue "Reports a developer
# can act on", item 7): an output in a missing directory names that
# directory (it said "input/output error"); counts of one are singular;
# --functions keeps a function above the threshold in any column (main,
# with 99% of the instructions in its callees, was hidden).
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1

"$LOOPSCOPE" record -q -o "$T_TMP/no/such/x.lsc" -- /bin/true >o 2>e
t_eq "record into a missing directory fails" 1 $?
t_grep "and names the directory" "^loopscope: cannot write '$T_TMP/no/such/x.lsc': no such directory '$T_TMP/no/such'$" e
Q=$T_REAL/quipper/perf.data.intel_pt-4.14
if [ -f "$Q" ]; then
	"$LOOPSCOPE" import -q "$Q" -o "$T_TMP/no/q.lsc" >o 2>e
	t_eq "import into a missing directory fails" 1 $?
	t_grep "and names the directory" "no such directory '$T_TMP/no'" e
fi

if command -v valgrind >/dev/null && [ -x "$BUILD/vglib/loopscope-amd64-linux" ]; then
	"$LOOPSCOPE" record -q -o c.lsc -- "$TESTDATA/lp_calls" >/dev/null 2>&1
	"$LOOPSCOPE" analyze -o c.lsprof c.lsc >o 2>e
	t_grep "analyze: one thread is 'thread'" "loops in 1 thread, " e
	"$LOOPSCOPE" report --functions c.lsprof >f.out
	# main's self share is small; its total (callees included) is
	# nearly all of the program's own code
	t_grep "--functions: main is listed (its total is above the threshold)" "^main  " f.out
	t_grep "--functions: the heading says what it keeps" "in any column" f.out
fi
