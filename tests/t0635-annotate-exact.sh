#!/bin/sh
# t0635-annotate-exact: annotate on a bundle recorded without samples
# shows the exact executions of every instruction and the instructions
# executed per source line (as callgrind_annotate does), with no cost
# columns.  Oracles: native single-stepping (tests/tools/sstep.c) for
# main()'s instructions in all; for one line, loop A's bound in
# testdata/calls.c (100 iterations) times the instructions objdump -l
# lists under that line (step(i): a move and a call).
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")
t_need_recorder

"$LOOPSCOPE" record -q -o c.lsc -- "$TD/calls" >/dev/null 2>&1
"$LOOPSCOPE" annotate --function=main c.lsc >a.txt 2>a.err
t_eq "annotate without samples succeeds" 0 $?
t_grep "and says what it shows" "exact executions of every instruction" a.txt
n23=$(objdump -dl --no-show-raw-insn "$TD/calls" | awk '
	/<main>:/ { on = 1; next } on && /^$/ { exit }
	on && /calls\.c:[0-9]+/ { ln = $0; sub(/.*calls\.c:/, "", ln); sub(/ .*/, "", ln); next }
	on && ln == 23 && /^ +[0-9a-f]+:/ { n++ } END { print n + 0 }')
t_eq "objdump lists 2 instructions under calls.c:23" 2 "$n23"
t_grep "calls.c:23 ran 100 x $n23 instructions" "^ *$((100 * n23)) *calls.c:23  " a.txt

if [ -x "$BUILD/tests/sstep" ]; then
	"$BUILD/tests/sstep" -o ss.out "$TD/calls" >/dev/null 2>&1
	rc=$?
	if [ "$rc" = 125 ]; then
		echo "ok $((t_n += 1)) # skip ptrace is not permitted here"
	else
		"$LOOPSCOPE" annotate --format=json --function=main c.lsc >a.json
		# main's bytes by nm (start and size): the CFG's function may
		# run on into code without a line (_fini, reached only
		# indirectly), which single-stepping counts as its own.
		range=$(nm -S "$TD/calls" | awk '$4 == "main" { print $1, $2 }')
		t_eq "main's executions, summed, equal native single-stepping's count" \
			"$(awk '$1 == "main" { print $2 }' ss.out)" \
			"$(python3 -c '
import json, sys
lo, size = (int(x, 16) for x in sys.argv[1].split())
print(sum(i["executions"] for i in json.load(open("a.json"))["instructions"]
          if lo <= int(i["address"], 16) < lo + size))' "$range")"
	fi
fi
