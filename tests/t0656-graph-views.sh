#!/bin/sh
# t0656-graph-views.sh - `probes` and the edge exports (--edges, --bolt,
# --autofdo) read the graph records of a profile (analyze --cfg,
# formats/profile.md version 5) and print the bytes they print from the
# bundle; a merge of runs prints the sums of the runs' counts; a profile
# without the graph is refused with the hint to analyze with --cfg.
# Where the numbers come from:
#  - testdata/calls.c's header: loop A calls step() and work(5) 100 times,
#    loop B calls work(10) 50 times: work is called 150 times and its loop
#    runs 100 * 5 + 50 * 10 = 1000 iterations, 150 of them the first of a
#    call, so its back branch is taken 1000 - 150 = 850 times (twice that,
#    1700, in the merge of two runs);
#  - testdata/lp_threads.c: 4 threads each run work()'s loop 1000 times:
#    its back branch is taken 4 * 999 = 3996 times;
#  - testdata/gotonest.c's header (10 5 11): nest's block H is entered
#    once by falling into it, its back edges X, Y, Z are taken
#    (10-1)*5*11 = 495, (5-1)*11 = 44 and 11-1 = 10 times;
#  - the sums: each run's own export, joined edge by edge.
. "$LSTOP/tests/lib.sh"

TD=$BUILD/testdata

t_need_recorder
cd "$T_TMP" || exit 1

VIEWS="probes|export --edges|export --edges --format=csv|export --bolt|export --autofdo"

# same NAME A B: every view prints the same bytes (and status) from A and B
same() {
	IFS='|'
	for v in $VIEWS; do
		IFS=' '
		# shellcheck disable=SC2086
		"$LOOPSCOPE" $v "$2" >a.out 2>a.err
		ra=$?
		# shellcheck disable=SC2086
		"$LOOPSCOPE" $v "$3" >b.out 2>b.err
		t_eq "$1: $v: same status" "$ra" "$?"
		t_ok "$1: $v: same bytes" cmp a.out b.out
		IFS='|'
	done
	IFS=' '
}

for a in "calls" "gotonest 10 5 11" "lp_threads" "vg_sig"; do
	n=${a%% *}
	# shellcheck disable=SC2086
	"$LOOPSCOPE" record -q -o "$n.lsc" -- "$TD/"$a >/dev/null 2>&1 </dev/null
	"$LOOPSCOPE" analyze -q --cfg -o "$n.lsprof" "$n.lsc"
	t_eq "$n: analyze --cfg" 0 $?
	same "$n: bundle and profile" "$n.lsc" "$n.lsprof"
done

# The numbers, read from the profiles.
"$LOOPSCOPE" export --bolt calls.lsprof >calls.fdata
t_grep "calls: main calls step 100 times" "^1 main [0-9a-f]* 1 step 0 0 100$" calls.fdata
t_grep "... work 100 times from loop A" "^1 main [0-9a-f]* 1 work 0 0 100$" calls.fdata
t_grep "... and 50 times from loop B" "^1 main [0-9a-f]* 1 work 0 0 50$" calls.fdata
"$LOOPSCOPE" export --bolt --module=calls calls.lsprof >calls2.fdata
t_ok "calls: the default module is the recorded program" cmp calls.fdata calls2.fdata
"$LOOPSCOPE" export --edges --format=csv calls.lsprof >calls.csv
back() {	# back FILE: the counts of work's taken branches to itself
	awk -F, '$3 == "\"work\"" && $7 == "\"work\"" && $9 == "taken" && $13 > 0 {
		print $13 }' "$1" | sort -n | paste -sd' '
}
t_eq "calls: work's back branch is taken 850 times" 850 "$(back calls.csv)"
"$LOOPSCOPE" probes lp_threads.lsprof >thr.probes
t_eq "lp_threads: probes exit 0 (every count reconstructed)" 0 $?
t_grep "lp_threads: work's back edge is a probe counting 3996" \
	"^  probe work+0x[0-9a-f]* *-> work+0x[0-9a-f]* *taken *3996$" thr.probes
h=$(awk -F'\t' '$1 == "func" && $6 == "nest" { f = $2 }
	$1 == "loop" && $6 == f { sub("^0x", "", $4); print $4 }' gotonest.lsprof)
"$LOOPSCOPE" export --edges --format=csv gotonest.lsprof >g.csv
t_eq "gotonest: edges into H: entry 1, Z 10, Y 44, X 495" "1 10 44 495" \
	"$(awk -F, -v h="$h" '$6 == h && $7 == "\"nest\"" && $11 == 1 { print $13 }' g.csv |
	   sort -n | paste -sd' ')"

# Two runs merged: every edge taken counts the sum of both runs'.
"$LOOPSCOPE" record -q -o calls2.lsc -- "$TD/calls" >/dev/null 2>&1 </dev/null
"$LOOPSCOPE" analyze -q --cfg -o calls2.lsprof calls2.lsc
"$LOOPSCOPE" merge -o sum.lsprof calls.lsprof calls2.lsprof
t_eq "merge of two runs" 0 $?
"$LOOPSCOPE" export --edges --format=csv calls2.lsc >calls2.csv
"$LOOPSCOPE" export --edges --format=csv sum.lsprof >sum.csv
# key: every column but count; reached edges (unreached 0) only, as a way
# one run left unreached and the other took is not unreached in the sum
t_eq "the sum's edges are the union of the runs', each the sum of their counts" "" \
	"$(awk -F, -v OFS=, 'FNR == 1 { next } $12 == 1 { next }
		{ k = $0; sub(",[0-9]*$", "", k) }
		FILENAME != "sum.csv" { want[k] += $13; next }
		{ got[k] = $13 }
		END { for (k in want) if (got[k] != want[k]) print "run", k, want[k], got[k]
		      for (k in got) if (!(k in want)) print "sum", k }' calls.csv calls2.csv sum.csv)"
t_eq "... work's back branch 1700 times" 1700 "$(back sum.csv)"
"$LOOPSCOPE" probes --quiet sum.lsprof >sum.probes
t_eq "... probes reconstruct every count of the sum" 0 $?
t_grep "... flow conserved" " 0 mismatches, 0 flow violations$" sum.probes

# The shards of a bundle of threads merge to the whole bundle's graph,
# also where one shard took a way the other left unreached.
"$LOOPSCOPE" analyze -q --cfg --shard=0/2 -o s0.lsprof lp_threads.lsc
"$LOOPSCOPE" analyze -q --cfg --shard=1/2 -o s1.lsprof lp_threads.lsc
"$LOOPSCOPE" merge -o s10.lsprof s0.lsprof s1.lsprof
same "lp_threads: merged shards and whole" s10.lsprof lp_threads.lsprof

# A profile without the graph, and --plan, which needs the code.
"$LOOPSCOPE" analyze -q -o plain.lsprof calls.lsc
for v in "probes" "export --edges" "export --bolt" "export --autofdo"; do
	# shellcheck disable=SC2086
	t_fail "$v of a profile without the graph fails" "$LOOPSCOPE" $v plain.lsprof
	t_grep "... saying to analyze with --cfg" \
		"^loopscope: 'plain.lsprof' has no control-flow graph: run 'loopscope analyze --cfg' on its bundle" last.err
done
t_fail "probes --plan of a profile fails" "$LOOPSCOPE" probes --plan calls.lsprof
t_grep "... saying it needs the bundle" "^loopscope: 'calls.lsprof' is a profile: --plan .* only the bundle holds$" last.err
