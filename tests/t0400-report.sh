#!/bin/sh
# t0400-report: `loopscope report` and `graph` on the hand-built profile
# of tests/tools/mkprof.h, whose numbers are documented there: every
# expected value below is that table's count, or the count / 100 as a
# percentage of the 10000 instructions.
. "$LSTOP/tests/lib.sh"
T=$BUILD/tests
cd "$T_TMP" || exit 1

"$T/mkprof" p.lsprof
t_eq "mkprof writes the profile" 0 $?

# Flat profile (LoopProf figure 4).
"$LOOPSCOPE" report p.lsprof >flat.out 2>flat.err
t_eq "report exits 0" 0 $?
t_eq "flat: header" "Flat loop profile of p.lsprof: 10000 instructions, 2 threads, loops with >= 1.00% of the total" \
	"$(head -1 flat.out)"
t_eq "flat: loops sorted by total, loop 3 (0.50%) pruned" "0 1 2" \
	"$(awk '/^Loop / { printf "%s%s", s, $2; s = " " }' flat.out)"
t_grep "flat: loop 2's head, place and function" "^Loop 2 at 0x401120 (demo.c:32) in work$" flat.out
t_eq "flat: loop 2 iterations, self, total, entries" "690 5700 5700 132" \
	"$(awk '/^Loop 2 /{ getline; getline; print $1, $2, $3, $4 }' flat.out)"
t_eq "flat: loop 2 self and total %" "57.00 % 57.00 %" \
	"$(awk '/^Loop 2 /{ getline; getline; getline; print $1, $2, $3, $4 }' flat.out)"
t_eq "flat: loop 1 self and total %" "20.00 % 59.00 %" \
	"$(awk '/^Loop 1 /{ getline; getline; getline; print $1, $2, $3, $4 }' flat.out)"
t_eq "flat: loop 2 trip buckets: 3 x130 and the overflow bucket >=100 x2" "3:130 >=100:2" \
	"$(awk '/^Loop 2 /{ f = 1 } f && /TripCount/ { getline; a = $1 ":" $2; getline; print a, $1 ":" $2; exit }' flat.out)"
t_grep "flat: loop 2 trip min, max, mean (690 / 132)" "^  trip count min 3, max 150, mean 5.23$" flat.out
"$LOOPSCOPE" report --min-percent=0 p.lsprof >all.out
t_grep "--min-percent=0 keeps loop 3" "^Loop 3 at 0x401080 (demo.c:20) in main$" all.out
"$LOOPSCOPE" report --min-percent=58 p.lsprof >m58.out
t_eq "--min-percent=58 keeps loops 0 and 1" "0 1" \
	"$(awk '/^Loop / { printf "%s%s", s, $2; s = " " }' m58.out)"

# One thread.
"$LOOPSCOPE" report --thread=101 p.lsprof >t101.out
t_eq "--thread=101: its 2000 instructions, one loop" "2000 1" \
	"$(awk 'NR == 1 { print $6 } /^Loop / { n++ } END { printf " %d", n }' t101.out | tr -d '\n' | sed 's/^ //' | awk '{ print $1, $2 }')"
t_eq "--thread=101: loop 2 is all of its loop time (1800 = 90%)" "90.00 % 90.00 %" \
	"$(awk '/^Loop 2 /{ getline; getline; getline; print $1, $2, $3, $4 }' t101.out)"
"$LOOPSCOPE" report --thread=7 p.lsprof >t7.out 2>t7.err
t_eq "--thread=7: no such thread, status 1" 1 $?
t_grep "--thread=7: says so" "no thread with tid 7 in 'p.lsprof'" t7.err

# Tree (LoopProf figure 3).
"$LOOPSCOPE" report --tree p.lsprof >tree.out
# Under each parent, what the loop ran while entered from it: mkprof's
# edges 1 -> 2 (3900 instructions) and top -> 2 (1800, thread 1), not
# loop 2's whole 5700 under both.
cat >tree.exp <<'EOT'
Loop call graph of p.lsprof: 10000 instructions; % of the total run while entered from the parent, entries from the parent; loops with >= 1.00%
100.00%  (top level)  21.50% outside loops
   60.00%  loop 0  main  demo.c:12  [1 entries]
     59.00%  loop 1  main  demo.c:14  [10 entries]
       39.00%  loop 2  work  demo.c:32  [130 entries]
   18.00%  loop 2  work  demo.c:32  [2 entries]
EOT
t_ok "--tree: the loop call graph, indented" cmp tree.exp tree.out

# Per function (Sato et al. figures 4-5) and function vs loop level (table 2).
"$LOOPSCOPE" report --function=main p.lsprof >fn.out
cat >fn.exp <<'EOT'
Function main (demo.c:10) in /usr/bin/demo: self 2100 (21.00%), total 8000 (80.00%), 1 calls
ID   InstAddr           B     [%]          cnt
0    0x401020
1    0x401040
C    0x401050             work                 130
1    0x401060           B   20.00          120
C    0x401068             helper               10
0    0x401070           B    1.00            9
3    0x401080
3    0x401090           B    0.50            4
EOT
t_ok "--function=main: heads, back branches, call sites by address" cmp fn.exp fn.out
"$LOOPSCOPE" report --function=nosuch p.lsprof >/dev/null 2>nf.err
t_eq "--function=nosuch: status 1" 1 $?
t_grep "--function=nosuch: says so" "no function 'nosuch' in 'p.lsprof'" nf.err
"$LOOPSCOPE" report --functions p.lsprof >fs.out
t_grep "--functions: work 56% self, 57% total, 57% loop level" \
	"^work  *demo  *56.00  *57.00  *57.00$" fs.out
t_grep "--functions: main, loop level = loops 0, 1, 3 (21.50%)" \
	"^main  *demo  *21.00  *80.00  *21.50$" fs.out
t_grep "--functions: Sum" "^Sum  *78.00  *78.50$" fs.out
t_eq "--functions: helper (0.50%) pruned" 0 "$(grep -c '^helper' fs.out)"

# Folded stacks.
"$LOOPSCOPE" report --folded --thread=100 p.lsprof >fold.out
t_grep "--folded: loop nesting across the call into work" \
	"^main;loop@demo.c:12;loop@demo.c:14;work;loop@demo.c:32 3900$" fold.out
t_eq "--folded: counts add up to the thread's 8000 instructions" 8000 \
	"$(awk '{ s += $NF } END { print s }' fold.out)"

# JSON (schema in loopscope-report(1)).
"$LOOPSCOPE" report --format=json p.lsprof >r.json
t_ok "--format=json is valid JSON" python3 -m json.tool r.json
js() {	# js EXPR: a value of the report, e.g. js 'd["total_instructions"]'
	python3 -c "import json,sys; d = json.load(open('r.json')); L = {l['id']: l for l in d['loops']}; F = {f['name']: f for f in d['functions']}; print($1)"
}
t_eq "json: total_instructions" 10000 "$(js 'd["total_instructions"]')"
t_eq "json: four loops (no pruning by default)" 4 "$(js 'len(d["loops"])')"
t_eq "json: loop 2 head, function, file, line" "0x401120 work demo.c 32" \
	"$(js 'L[2]["head"], L[2]["function"], L[2]["file"], L[2]["line"]' | tr -d "(),'")"
t_eq "json: loop 2 entries, iterations, self, total" "132 690 5700 5700" \
	"$(js 'L[2]["entries"], L[2]["iterations"], L[2]["self_instructions"], L[2]["total_instructions"]' | tr -d '(),')"
t_eq "json: loop 2 trip_counts" "{'3': 130}" "$(js 'L[2]["trip_counts"]')"
t_eq "json: loop 2 overflow bucket" "2 300" "$(js 'L[2]["overflow"]["entries"], L[2]["overflow"]["iterations"]' | tr -d '(),')"
t_eq "json: loop 2 depth 1 (entered at the top level by tid 101)" 1 "$(js 'L[2]["depth"]')"
t_eq "json: loop 2 parents" "[{'id': 1, 'entries': 130}, {'id': None, 'entries': 2}]" "$(js 'L[2]["parents"]')"
t_eq "json: loop 1 depth" 2 "$(js 'L[1]["depth"]')"
t_eq "json: loop 1 children" "[{'id': 2, 'entries': 130}]" "$(js 'L[1]["children"]')"
t_eq "json: loop 2 tails summed over threads" 558 "$(js 'L[2]["tails"][0]["count"]')"
t_eq "json: loop 2 calls memcpy" "memcpy 130" "$(js 'L[2]["calls"][0]["callee"], L[2]["calls"][0]["count"]' | tr -d "(),'")"
t_eq "json: loop 2 self loads (a quarter)" 1425 "$(js 'L[2]["self_classes"]["load"]')"
t_eq "json: work's self, total, loop level" "5600 5700 5700" \
	"$(js 'F["work"]["self_instructions"], F["work"]["total_instructions"], F["work"]["loop_level_instructions"]' | tr -d '(),')"
t_eq "json: helper's file, escapes undone" 'odd	dir/"q"\.c' "$(js 'F["helper"]["file"]')"
t_eq "json: two threads" "100 101" "$(js '" ".join(str(t["tid"]) for t in d["threads"])')"

# CSV.
"$LOOPSCOPE" report --format=csv p.lsprof >r.csv
t_eq "csv: header and four loops" 5 "$(wc -l <r.csv)"
t_grep "csv: loop 2" "^2,/usr/bin/demo,0x401120,work,demo.c,32,demo.c,32,0,0,,1,132,690,5700,57.0000,5700,57.0000,3,150,5.2273,2,0.0000$" r.csv

# Graph.
"$LOOPSCOPE" graph -o g.dot p.lsprof
t_eq "graph exits 0" 0 $?
t_grep "graph: a node per loop with %, function, place" 'l2 \[label="loop 2  57.00%\\nself 57.00%\\nwork\\ndemo.c:32"\]' g.dot
# edges: entries, and the share run from that parent (mkprof: 3900, 1800)
t_grep "graph: edges with entries and share" 'l1 -> l2 \[label="130\\n39.00%"\]' g.dot
t_grep "graph: top-level edges" 'top -> l2 \[label="2\\n18.00%"\]' g.dot
t_eq "graph: loop 3 pruned at 1%" 0 "$(grep -c 'l3' g.dot)"
if command -v dot >/dev/null 2>&1; then
	t_ok "graph: dot accepts the DOT" dot -Tsvg -o g2.svg g.dot
	"$LOOPSCOPE" graph -T svg -o g.svg p.lsprof
	t_grep "graph -T svg writes SVG" "<svg" g.svg
fi
PATH=/nonexistent "$LOOPSCOPE" graph -T svg -o x.svg p.lsprof 2>nodot.err
t_eq "graph -T svg without dot: status 1" 1 $?
t_grep "graph -T svg without dot: says why" "'dot' (Graphviz) is not installed" nodot.err

# Merge: a profile merged with itself doubles every count (mkprof's
# profile names no bundle, so nothing tells the copies apart).  The merge
# is in canonical order, loops by head offset: mkprof's loop 2 (work's, at
# 0x1120) comes after loop 3 (0x1080) there, as loop 3.
"$LOOPSCOPE" merge p.lsprof p.lsprof -o m.lsprof
t_eq "merge exits 0" 0 $?
"$LOOPSCOPE" report --format=json m.lsprof >r.json
t_eq "merge: total doubled" 20000 "$(js 'd["total_instructions"]')"
t_eq "merge: still four loops" 4 "$(js 'len(d["loops"])')"
t_eq "merge: loop 2 entries, iterations, self doubled" "264 1380 11400" \
	"$(js 'L[3]["entries"], L[3]["iterations"], L[3]["self_instructions"]' | tr -d '(),')"
t_eq "merge: loop 3 is work's, at 0x401120" "0x401120 work" "$(js 'L[3]["head"], L[3]["function"]')"
t_eq "merge: trip histogram doubled" "{'3': 260}" "$(js 'L[3]["trip_counts"]')"
t_eq "merge: edges doubled" "[{'id': 1, 'entries': 260}, {'id': None, 'entries': 4}]" "$(js 'L[3]["parents"]')"
t_eq "merge: two runs, four threads" "2 4" "$(js 'd["runs"], len(d["threads"])' | tr -d '(),')"
"$LOOPSCOPE" report m.lsprof >mflat.out
t_eq "merge: the same percentages" "$(sed 1d flat.out | sed 's/^Loop [0-9]* at/Loop at/' | grep -v 'Entries:$' | grep -v '^ *[0-9]* *[0-9]* *[0-9]* *[0-9]*$' | grep -v '^ *[0-9>=]* *[0-9]*$' | grep -v 'trip count')" \
	"$(sed 1d mflat.out | sed 's/^Loop [0-9]* at/Loop at/' | grep -v 'Entries:$' | grep -v '^ *[0-9]* *[0-9]* *[0-9]* *[0-9]*$' | grep -v '^ *[0-9>=]* *[0-9]*$' | grep -v 'trip count')"

# Help and usage.
for c in report graph merge; do
	"$LOOPSCOPE" $c --help >h.out
	t_eq "$c --help exits 0" 0 $?
	t_grep "$c --help prints the usage" "^usage: loopscope $c" h.out
	"$LOOPSCOPE" $c --no-such-option p.lsprof >u.out 2>u.err
	t_eq "$c: an unknown option gives status 129" 129 $?
	t_grep "$c: ... and the usage" "^usage: loopscope $c" u.err
done
"$LOOPSCOPE" report --tree --functions p.lsprof 2>/dev/null
t_eq "report: two views at once is a usage error" 129 $?
"$LOOPSCOPE" report --min-percent=abc p.lsprof 2>/dev/null
t_eq "report: a bad --min-percent is a usage error" 129 $?
