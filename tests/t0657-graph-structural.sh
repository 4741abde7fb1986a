#!/bin/sh
# t0657-graph-structural.sh - `report --structural` of a profile with the
# graph records (analyze --cfg) but no structural records finds the
# structural loops from the records: the bytes of `report --structural`
# of the bundle; a merge of a profile with itself (a copy named as
# another bundle, so that merge takes it as a second run) keeps the loops
# with their counts doubled.
# Where the numbers come from:
#  - testdata/gotonest.c's header (10 5 11): nest's header H runs
#    10 * 5 * 11 = 550 times, entered once; its back edges Z, Y, X are
#    taken 11-1 = 10, (5-1)*11 = 44 and (10-1)*5*11 = 495 times, nested
#    (T = 3) as three loops of H: invocations 1, 11 and 55;
#  - the doubled counts: the single run's own report, field by field.
. "$LSTOP/tests/lib.sh"

TD=$BUILD/testdata

t_need_recorder
cd "$T_TMP" || exit 1

for a in "gotonest 10 5 11" "calls" "lp_threads" "irred"; do
	n=${a%% *}
	# shellcheck disable=SC2086
	"$LOOPSCOPE" record -q -o "$n.lsc" -- "$TD/"$a >/dev/null 2>&1 </dev/null
	"$LOOPSCOPE" analyze -q --cfg -o "$n.lsprof" "$n.lsc"
	t_ok "$n: no structural records" sh -c "! grep -q '^sview	' $n.lsprof"
	for f in text json; do
		"$LOOPSCOPE" report --structural --format=$f "$n.lsc" >b.out 2>b.err
		t_eq "$n: report --structural --format=$f of the bundle" 0 $?
		"$LOOPSCOPE" report --structural --format=$f "$n.lsprof" >p.out 2>p.err
		t_eq "$n: ... of the graph records" 0 $?
		t_ok "$n: ... the same bytes" cmp b.out p.out
	done
done
# another threshold is found from the records too
"$LOOPSCOPE" report --structural --merge-threshold=100 gotonest.lsc >b.out
"$LOOPSCOPE" report --structural --merge-threshold=100 gotonest.lsprof >p.out
t_ok "--merge-threshold=100: the same bytes" cmp b.out p.out
# irred.c: cycle() is one cycle entered at two blocks (t0610's count)
t_eq "irred: cycle()'s irreducible region and its two entries, from the records" \
	"2 cycle+0x1e,cycle+0x4" "$("$LOOPSCOPE" report --structural --format=json irred.lsprof |
	python3 -c '
import json, sys
for r in json.load(sys.stdin)["irreducible"]:
    e = r["entries"]
    if any(s.startswith("cycle+") for s in e):
        print(r["blocks"], ",".join(sorted(e)))
')"

# gotonest's three loops of H, from the records.
loops() {	# loops FILE: "depth tails-count iterations invocations" of nest's loops
	"$LOOPSCOPE" report --structural --format=json "$1" | python3 -c '
import json, sys
for l in json.load(sys.stdin)["loops"]:
    if l["header"].startswith("nest+"):
        print(l["depth"], "+".join(str(t["count"]) for t in l["tails"]), l["iterations"], l["invocations"])
' | paste -sd'|'
}
t_eq "gotonest: H's loops: Z, Y, X nested" "1 10 550 1|2 44 550 11|3 495 550 55" "$(loops gotonest.lsprof)"

# The merge of the profile with itself: the same loops, every count twice.
sed 's/^\(part	[0-9]*	\)/\1copy-/' gotonest.lsprof >copy.lsprof
t_ok "merge of the profile with a copy" "$LOOPSCOPE" merge -o twice.lsprof gotonest.lsprof copy.lsprof
t_ok "... keeps the graph, no structural records" \
	sh -c "grep -q '^cblock	' twice.lsprof && ! grep -q '^sview	' twice.lsprof"
t_eq "gotonest twice: H's loops, counts doubled" "1 20 1100 2|2 88 1100 22|3 990 1100 110" \
	"$(loops twice.lsprof)"
"$LOOPSCOPE" report --structural --format=json gotonest.lsprof >one.json
"$LOOPSCOPE" report --structural --format=json twice.lsprof >two.json
t_eq "every loop kept, every count doubled, the rest equal" "" "$(python3 -c '
import json
a, b = json.load(open("one.json")), json.load(open("two.json"))
assert b["total_instructions"] == 2 * a["total_instructions"]
if len(a["loops"]) != len(b["loops"]):
    print("loops", len(a["loops"]), len(b["loops"]))
for x, y in zip(a["loops"], b["loops"]):
    for k in x:
        want = x[k]
        if k in ("iterations", "invocations", "self_instructions", "total_instructions"):
            want = 2 * x[k]
        elif k == "tails":
            want = [{"block": t["block"], "count": 2 * t["count"]} for t in x[k]]
        elif k == "dynamic":
            want = dict(x[k], iterations=2 * x[k]["iterations"], entries=2 * x[k]["entries"])
        if y[k] != want:
            print(x["id"], k, want, y[k])
')"

# Without the graph and without structural records: refused, with the hint.
"$LOOPSCOPE" analyze -q -o plain.lsprof gotonest.lsc
t_fail "a profile without either" "$LOOPSCOPE" report --structural plain.lsprof
t_grep "... says to analyze with --structural" \
	"'plain.lsprof' holds no structural loops: run 'loopscope analyze --structural'" last.err
