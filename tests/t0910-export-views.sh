#!/bin/sh
# t0910-export-views: `export --callgrind` read back by Valgrind's own
# callgrind_annotate, and `export --speedscope` validated against
# speedscope's published schema (tests/data/).
#
# Expected numbers: testdata/lp_trips.c's hand count (its header): main
# calls vary() 11 times, whose loop iterates 44 times in all (the sum of
# counts[]); the program's instructions and every loop's iterations are
# the loop profile's (`report --format=json|csv`), which the loop
# detector computes from the block stream, where the callgrind export
# sums the executed CFG's instructions: two computations that must agree.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$TESTDATA
SCHEMA=$LSTOP/tests/data/speedscope-file-format-schema.json

t_need_recorder

"$LOOPSCOPE" record -q -o t.lsc -- "$TD/lp_trips" >/dev/null 2>&1
"$LOOPSCOPE" analyze -q -o t.lsprof t.lsc
"$LOOPSCOPE" report --format=json t.lsprof >r.json
"$LOOPSCOPE" report --format=csv t.lsprof >r.csv
total=$(python3 -c 'import json, sys; print(json.load(open("r.json"))["total_instructions"])')
iters=$(awk -F, 'NR > 1 { s += $14 } END { print s }' r.csv)
vary_self=$(python3 -c 'import json; print([f["self_instructions"] for f in json.load(open("r.json"))["functions"] if f["name"] == "vary"][0])')

t_ok "export --callgrind" "$LOOPSCOPE" export --callgrind -o cg.out t.lsc
t_grep "callgrind's first line" '^# callgrind format$' cg.out
if command -v callgrind_annotate >/dev/null 2>&1; then
	callgrind_annotate --threshold=100 cg.out >ann.txt 2>ann.err
	t_eq "callgrind_annotate reads it without a warning" "" "$(cat ann.err)"
	t_eq "program total Ir = the profile's $total instructions" "$total" \
		"$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }' ann.txt)"
	t_eq "program total Li = the loops' $iters iterations" "$iters" \
		"$(awk '/PROGRAM TOTALS/ { gsub(",", "", $3); print $3 }' ann.txt)"
	t_eq "vary's Ir = its self instructions in the profile ($vary_self)" "$vary_self" \
		"$(awk '/:vary / { gsub(",", "", $1); print $1; exit }' ann.txt)"
	callgrind_annotate --tree=caller cg.out >tree.txt 2>&1
	t_grep "vary called 11 times from main" '< .*lp_trips.c:main (11x)' tree.txt
	callgrind_annotate cg.out "$LSTOP/testdata/lp_trips.c" >src.txt 2>&1
	t_grep "vary's loop: 44 iterations at its head's line" \
		'^ *[0-9,]* ([ 0-9.]*%) *44 ([ 0-9.]*%)[[:space:]]*s += (long)i \* sink;' src.txt
else
	t_n=$((t_n + 1))
	echo "ok $t_n # skip callgrind_annotate is missing (Debian package valgrind)"
fi
t_grep "vary's back branch: a jcnd= line to its head" '^jcnd=' cg.out
t_fail "--callgrind of a profile without the CPI records" "$LOOPSCOPE" export --callgrind t.lsprof
t_grep "... says to analyze with --cpi or give the bundle" \
	"has no sampled-CPI records: run 'loopscope analyze --cpi'.*or give the bundle" "$T_TMP/last.err"
"$LOOPSCOPE" analyze -q --cpi -o t.cpi.lsprof t.lsc
t_ok "export --callgrind of an analyze --cpi profile" "$LOOPSCOPE" export --callgrind -o cgp.out t.cpi.lsprof
t_ok "... the bundle's bytes" cmp cg.out cgp.out

t_ok "export --speedscope of a profile" "$LOOPSCOPE" export --speedscope -o ss.json t.lsprof
t_ok "... valid against speedscope's schema" python3 "$LSTOP/tests/lib/schema_check.py" "$SCHEMA" ss.json
t_ok "... valid with the built-in draft-07 checks too" \
	env LS_SCHEMA_BUILTIN=1 python3 "$LSTOP/tests/lib/schema_check.py" "$SCHEMA" ss.json
python3 -c 'import json; d = json.load(open("ss.json")); del d["profiles"][0]["weights"]; json.dump(d, open("bad.json", "w"))'
t_fail "a file without weights is not valid" python3 "$LSTOP/tests/lib/schema_check.py" "$SCHEMA" bad.json
t_fail "... for the built-in checks either" \
	env LS_SCHEMA_BUILTIN=1 python3 "$LSTOP/tests/lib/schema_check.py" "$SCHEMA" bad.json
python3 -c '
import json
d = json.load(open("ss.json")); p = d["profiles"][0]; fr = d["shared"]["frames"]
print(sum(p["weights"]), p["endValue"])
for s, w in zip(p["samples"], p["weights"]):
    names = [fr[i]["name"] for i in s]
    if "vary" in names:
        print(" > ".join(n.split(" at ")[0] for n in names), w)
' >ss.txt
t_eq "weights sum to the $total instructions, endValue too" "$total $total" "$(sed -n 1p ss.txt)"
vary_loop=$(awk -F, '$4 == "vary" { print $1 }' r.csv)
main_loop=$(awk -F, '$4 == "main" { print $1 }' r.csv)
t_eq "vary's loop nested in main's driver loop, weight its self instructions" \
	"main > loop $main_loop > vary > loop $vary_loop $(awk -F, '$4 == "vary" { print $15 }' r.csv)" \
	"$(sed -n 2p ss.txt)"
t_ok "export --speedscope of a bundle" "$LOOPSCOPE" export --speedscope -o ss2.json t.lsc
# The same stacks and weights; only the names (the input file's) differ.
t_eq "... the same stacks and weights as from its profile" same "$(python3 -c '
import json
a, b = (json.load(open(f)) for f in ("ss.json", "ss2.json"))
for d in (a, b):
    del d["name"], d["profiles"][0]["name"]
print("same" if a == b else "differ")')"
