#!/bin/sh
# t0600-cfg: the executed CFG, its edge counts, flow conservation, Knuth's
# probes, structural loops and the exports.  Expected numbers are hand
# counts written in the testdata sources (cfgif.c, gotonest.c, irred.c)
# and gcov's counters of the same run (testdata/cov/branches.c).
. "$LSTOP/tests/lib.sh"
T=$BUILD/tests
cd "$T_TMP" || exit 1

# Edge counts of pick() in cfgif.c: the if on line 13 goes one way 10
# times (i % 3 == 0 for i = 0, 3, ..., 27) and the other 20 times; the
# do-while test on line 17 goes back 29 times and leaves once.
"$LOOPSCOPE" record -q -o f.lsc -- "$TESTDATA/cfgif" >/dev/null
t_eq "record cfgif" 0 $?
"$T/cfgcheck" f.lsc --branches >f.out
pairs() {	# pairs LINE: the sorted counts of the branches of that line
	awk -v l="cfgif.c:$1" '$1 == "branch" && $2 == l { print $5 }' f.out | sort -n | tr '\n' ' '
}
t_eq "if on line 13: 10 and 20" "10 20 " "$(pairs 13)"
t_eq "loop test on line 17: 1 and 29" "1 29 " "$(pairs 17)"
t_grep "pick's loop: 30 iterations (29 back + 1 entry), 1 invocation" \
	"^loop pick+0x[0-9a-f]* depth=1 tails=1 back=29 .* iterations=30 invocations=1 " f.out
t_grep "flow conserved at every block" "^flow violations 0$" f.out

# The same counts through the edge export.
"$LOOPSCOPE" export --edges --format=csv f.lsc >e.csv
t_eq "export --edges csv exits 0" 0 $?
t_eq "csv header" "from_module,from_offset,from_function,from_function_offset,to_module,to_offset,to_function,to_function_offset,kind,why,flow,unreached,count" "$(head -1 e.csv)"
t_eq "csv: pick's taken and not-taken counts" "1 10 20 29 " \
	"$(awk -F, '$3 == "\"pick\"" && ($9 == "taken" || $9 == "nottaken") && $13 > 0 { print $13 }' e.csv | sort -n | tr '\n' ' ')"
"$LOOPSCOPE" export --edges f.lsc >e.json
t_ok "export --edges json parses" python3 -m json.tool e.json
t_eq "json and csv list the same edges" "$(($(wc -l <e.csv) - 1))" \
	"$(python3 -c 'import json,sys; print(len(json.load(open("e.json"))))')"

# BOLT fdata and AutoFDO text.
"$LOOPSCOPE" export --bolt --module=cfgif f.lsc -o f.fdata
t_eq "export --bolt exits 0" 0 $?
t_eq "every fdata line has 8 fields: is_sym name off is_sym name off mispreds count" 0 \
	"$(grep -cv '^[01] [^ ]* [0-9a-f]* [01] [^ ]* [0-9a-f]* 0 [0-9]*$' f.fdata)"
# The if's branch and fall-through (10 and 20), and each arm's way to the
# join (10 and 20 again).
t_eq "fdata: pick's edges counted 10 and 20" "10 10 20 20" \
	"$(awk '$2 == "pick" && $5 == "pick" && ($8 == 10 || $8 == 20) { print $8 }' f.fdata | sort -n | tr '\n' ' ' | sed 's/ $//')"
t_grep "fdata: main calls pick once" "^1 main [0-9a-f]* 1 pick 0 0 1$" f.fdata
"$LOOPSCOPE" export --autofdo --module=cfgif f.lsc -o f.afdo
t_eq "export --autofdo exits 0" 0 $?
t_ok "autofdo text: counted sections of ranges, addresses, branches" python3 -c '
import re, sys
L = open("f.afdo").read().split("\n")
i = 0
for pat in (r"[0-9a-f]+-[0-9a-f]+:\d+$", r"[0-9a-f]+:\d+$", r"[0-9a-f]+->[0-9a-f]+:\d+$"):
    n = int(L[i]); i += 1
    for k in range(n):
        assert re.match(pat, L[i]), L[i]; i += 1
assert L[i:] == [""], L[i:]
'
t_fail "export without a format is a usage error" "$LOOPSCOPE" export f.lsc
t_fail "export --format=xml is a usage error" "$LOOPSCOPE" export --edges --format=xml f.lsc

# Kirchhoff and Knuth's reconstruction on every testdata recording.
for p in straight calls nested recursion syms inl midjump syscall threads signals dlopen spin cfgif irred "gotonest 10 5 11"; do
	set -- $p
	[ -x "$TESTDATA/$1" ] || continue
	"$LOOPSCOPE" record -q -o p.lsc -- "$TESTDATA/$@" >/dev/null 2>&1
	"$LOOPSCOPE" probes --quiet p.lsc >p.out 2>p.err
	t_eq "$1: probes reconstruct every edge count, flow conserved" 0 $?
	t_grep "$1: total line" " 0 mismatches, 0 flow violations$" p.out
done

# OptiWISE's rule, T = 3, on gotonest's three back edges to one header:
# X = {H} within Y = {H, b} within Z = {H, b, c}, counts (gotonest.c)
# X = (KX-1)*KY*KZ, Y = (KY-1)*KZ, Z = KZ-1.
loops() {	# loops KX KY KZ: the "depth back iterations" of nest's loops
	"$LOOPSCOPE" record -q -o g.lsc -- "$TESTDATA/gotonest" "$@" >/dev/null
	"$T/cfgcheck" g.lsc | awk '$2 ~ /^nest\+/ { sub("depth=", "", $3); sub("back=", "", $5);
		sub("iterations=", "", $8); printf "%s/%s/%s ", $3, $5, $8 }'
}
# 2 2 11: X = 22, Y = 11, Z = 10; Y < 3*Z = 30 and X < 3*(Y+Z) = 63:
# nothing nested, one loop with back edges 22+11+10 = 43, 44 iterations.
t_eq "2 2 11: one loop" "1/43/44 " "$(loops 2 2 11)"
# 2 5 11: X = 55, Y = 44, Z = 10; Y >= 30 nested, X < 3*(44+10) = 162
# merged with Z: outer back 55+10 = 65, inner back 44; 110 iterations.
t_eq "2 5 11: two loops" "1/65/110 2/44/110 " "$(loops 2 5 11)"
# 10 5 11: X = 495 >= 162 and Y = 44 >= 30 nested; then X >= 3*44 = 132
# nested in Y: three loops, back 10, 44, 495; 550 iterations.
t_eq "10 5 11: three loops" "1/10/550 2/44/550 3/495/550 " "$(loops 10 5 11)"

# An irreducible cycle (entered at A once, at B once).
"$LOOPSCOPE" record -q -o i.lsc -- "$TESTDATA/irred" >/dev/null
"$T/cfgcheck" i.lsc >i.out
t_grep "irred: cycle() is reported irreducible with two entries" \
	"^irreducible cycle+0x[0-9a-f]* blocks=2 entries=2$" i.out
t_eq "irred: no natural loop in cycle()" 0 "$(grep -c '^loop cycle' i.out)"

# gcov cross-check: the --coverage build's own counters of the recorded
# run, written into this directory (GCOV_PREFIX), against our branch
# counts, line by line (the sorted arc counts of each line).
COV=$TESTDATA/cov
cp "$COV/branches.gcno" . 2>/dev/null
GCOV_PREFIX=$PWD GCOV_PREFIX_STRIP=99 "$LOOPSCOPE" record -q -o c.lsc -- "$COV/branches" >/dev/null
t_eq "record the --coverage build" 0 $?
t_ok "gcov wrote its counters here" test -f branches.gcda
gcov -b -c --json-format --stdout branches.gcda >gcov.json 2>gcov.err
python3 -c '
import json, sys
for line in open("gcov.json"):
    d = json.loads(line)
    for f in d["files"]:
        if not f["file"].endswith("branches.c"): continue
        for l in f["lines"]:
            if l["branches"]:
                print(l["line_number"], " ".join(str(c) for c in sorted(b["count"] for b in l["branches"])))
' >gcov.out
"$T/cfgcheck" c.lsc --branches | awk '$1 == "branch" && $2 ~ /^branches.c:/ {
	split($2, a, ":"); print a[2], $5 }' | sort -k1,1n -k2,2n |
	awk '{ if ($1 != l && l != "") { print l, s; s = "" } l = $1; s = s (s == "" ? "" : " ") $2 }
	     END { if (l != "") print l, s }' >ours.out
t_ok "gcov reports branches" test -s gcov.out
t_eq "every line's branch counts equal gcov's" "$(cat gcov.out)" "$(cat ours.out)"

# export's default module is the recorded program (the command line's
# first word), not ld.so which runs more instructions in a short program.
"$LOOPSCOPE" record -q -o dm.lsc -- "$TESTDATA/cfgif" >/dev/null 2>&1
"$LOOPSCOPE" export --bolt dm.lsc >dm.fdata 2>/dev/null
"$LOOPSCOPE" export --bolt --module=cfgif dm.lsc >dm2.fdata 2>/dev/null
t_ok "export: the default module is the recorded program" cmp dm.fdata dm2.fdata
