#!/bin/sh
# t0710-probe-plan: `probes --plan`, Eichenberger and Lobo's edge-profiling
# plans priced on a recorded run.  Every expected number is derived by
# hand from testdata/fig1.c (its header comment gives the blocks and the
# edge counts; objdump -d of the build gives the offsets used below, all
# blocks <= 8 instructions, so one cycle each at issue width 8) and from
# the rules written in analysis/plan.h.
. "$LSTOP/tests/lib.sh"
t_need_recorder
cd "$T_TMP" || exit 1

"$LOOPSCOPE" record -q -o f.lsc -- "$TESTDATA/fig1" >f.stdout
t_eq "record fig1" 0 $?
t_eq "fig1 prints its checksum (670 + 28 + 25)" 723 "$(cat f.stdout)"

# rows FUNC: weights,scheme,probes,profiled,new_blocks,counted,executions,
# cycles,reconstructed,edges per plan (the percent column left out).
rows() {
	"$LOOPSCOPE" probes --plan --format=csv --function="$1" f.lsc |
		awk -F, -v f="$1" '$1 == f { print $2","$3","$4","$5","$6","$7","$8","$9","$11","$12 }'
}

# --- fig1: the paper's figure 1 --------------------------------------
# Nodes: outside, v1 +0x0, v2 +0xa, v4 +0x12, v5 +0x17, v3 +0x1c, v6 +0x23.
# Tie order (source, then target, outside first, blocks by address):
#   IN, e12, e13, e24, e25, e46, e56, e33, e36, OUT.
# Guess: entry 100; v1's branch: v3 is a loop header (the self-loop), so
# e13 is predicted: e13 = 60, e12 = 40; v2's: no call, no return, no
# header: the fall-through e24 = 24, e25 = 16; v3 = 10 * 60 = 600, its
# exit e36 gets 10%: 60, the self-loop 540; e46 = 24, e56 = 16, v6 = 100.
# Modified: outputs of v1, v2, v3 (two outputs each) times 1.1.
# Trees (Kruskal, heaviest first, ties in tie order):
#   unit:  IN e12 e13 e24 e25 e46 in the tree; e56, e33, e36, OUT profiled;
#   guess/modified: e33 (self) profiled; IN, OUT, e13 tree; e36 closes
#          outside-v1-v3-v6: profiled; e12 e24 tree, e46 profiled; e25
#          tree, e56 profiled: {e46, e56, e33, e36}, figure 1c's choice;
#   exact: IN, e33 (self: profiled), OUT, e12, e13, e36 (closes a cycle),
#          e24, e46 (closes), e25, e56 (closes): {e46, e56, e33, e36}.
"$LOOPSCOPE" probes --plan --format=json --function=fig1 f.lsc >f.json
t_eq "plan json exits 0" 0 $?
edges() {	# edges FILE: from>to guess/modified profiled-by, one a line
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["functions"][0]["edges"]:
    print("%s>%s %g/%g %s" % (e["from"].split("+")[-1], e["to"].split("+")[-1],
          e["guess"], e["modified"], ",".join(e["profiled"]) or "-"))' "$1" | tr '\n' ' '
}
t_eq "fig1: edges in tie order, guessed weights, the trees that profile each" \
"outside>0x0 100/100 - 0x0>0xa 40/44 - 0x0>0x1c 60/66 - 0xa>0x12 24/26.4 - 0xa>0x17 16/17.6 - 0x12>0x23 24/24 guess,modified,exact 0x17>0x23 16/16 unit,guess,modified,exact 0x1c>0x1c 540/594 unit,guess,modified,exact 0x1c>0x23 60/66 unit,guess,modified,exact 0x23>outside 100/100 unit " \
	"$(edges f.json)"
t_eq "fig1: every tree's 4 counters give back all 10 counts" \
	'{"profiled": 4, "reconstructed": 10, "unplaceable": 0} x4' \
	"$(python3 -c '
import json
t = json.load(open("f.json"))["functions"][0]["trees"]
v = set(json.dumps(t[w]) for w in ("unit", "guess", "modified", "exact"))
print(" ".join(v), "x%d" % len(t))')"

# Costs, blocks of one cycle; executions: v1 100, v2 50, v4 30, v5 20,
# v3 150 (3 per entry), v6 100.  P = 5 plain, 2 pipelined; after: 4, 2.
# unit {e56 20, e33 100, e36 50, OUT 100}: counted 270.
#   along: e56, OUT merged (one-output v5, v6): (P-1)*(20+100); e33, e36
#          new blocks: P*150 -> 4*120 + 5*150 = 1230; 1*120 + 2*150 = 420.
#   before: v5 (1 probe, 20), v3 (2, 150), v6 (1, 100): executions
#          20 + 2*150 + 100 = 420 plain, 270 pipelined; (P-1)*270.
#   after: updates atop v6 (100) and v3 (150), OUT falls back to before
#          in v6 (100): 350 executions; 3*250 + 4*100 = 1150; 250 + 100.
# guess, modified, exact {e46 30, e56 20, e33 100, e36 50}: counted 200.
#   along: e46, e56 merged: 4*50 + 5*150 = 950; 1*50 + 2*150 = 350.
#   before: v4 30, v5 20, v3 2*150: 350 executions, 4*200 = 800;
#          pipelined 200, 200.
#   after: atop v6 (100) and v3 (150): 250; 3*250 = 750; 250.
fig1_plans() {	# the 6 rows of one of guess, modified, exact
	for s in "along,plain,4,2,200,200,950.000" "along,swp,4,2,200,200,350.000" \
		 "before,plain,4,0,200,350,800.000" "before,swp,4,0,200,200,200.000" \
		 "after,plain,4,0,200,250,750.000" "after,swp,4,0,200,250,250.000"; do
		echo "$1,$s,10,10"
	done
}
t_eq "fig1: every plan's profiled edges, new blocks, counts, executions, cycles" \
"unit,along,plain,4,2,270,270,1230.000,10,10
unit,along,swp,4,2,270,270,420.000,10,10
unit,before,plain,4,0,270,420,1080.000,10,10
unit,before,swp,4,0,270,270,270.000,10,10
unit,after,plain,4,0,270,350,1150.000,10,10
unit,after,swp,4,0,270,350,350.000,10,10
$(fig1_plans guess)
$(fig1_plans modified)
$(fig1_plans exact)" "$(rows fig1)"

"$LOOPSCOPE" probes --plan --function=fig1 f.lsc >f.txt
t_eq "text exits 0" 0 $?
# Least cycles: guess before-swp, 200 (modified ties, and comes later).
t_grep "fig1: best is guess before-swp, 200 cycles" \
	"^  best: guess before-swp, 200.0 cycles, .* (with exact weights: guess before-swp, 200.0 cycles)$" f.txt
t_grep "fig1: the self-loop is profiled by every tree" \
	"^  fig1+0x1c -> fig1+0x1c  *taken  *100  *540.0  *594.0  unit guess modified exact$" f.txt
t_grep "fig1: program line" \
	"^program: 1 functions, 10 edges, 0 mismatches in 4 trees, 0 flow violations;" f.txt

# The cost parameters.  --probe-latency=6: guess along = 5*50 + 6*150 =
# 1150.  --issue-width=1: blocks as long as their instructions (v4, v5:
# 2, v3: 3, v6: 1), guess along = 3*30 + 3*20 + 5*150 = 900, before =
# (5-2)*30 + (5-2)*20 + (5-3)*150 = 450, after = (4-1)*100 + (4-3)*150
# = 450.
t_eq "--probe-latency=6: guess along 1150" "guess,along,plain,4,2,200,200,1150.000,10,10" \
	"$("$LOOPSCOPE" probes --plan --format=csv --function=fig1 --probe-latency=6 f.lsc |
	   awk -F, '$1 == "fig1" && $2 == "guess" && $3 == "along" && $4 == "plain" { print $2","$3","$4","$5","$6","$7","$8","$9","$11","$12 }')"
t_eq "--issue-width=1: guess along 900, before 450, after 450" "900.000 450.000 450.000 " \
	"$("$LOOPSCOPE" probes --plan --format=csv --function=fig1 --issue-width=1 f.lsc |
	   awk -F, '$1 == "fig1" && $2 == "guess" && $4 == "plain" { printf "%s ", $9 }')"
t_eq "--swp-latency=3: unit along-swp = 2*120 + 3*150 = 690" "690.000" \
	"$("$LOOPSCOPE" probes --plan --format=csv --function=fig1 --swp-latency=3 f.lsc |
	   awk -F, '$1 == "fig1" && $2 == "unit" && $3 == "along" && $4 == "swp" { print $9 }')"
t_eq "--update-latency=2: unit after = 1*250 + 4*100 = 650" "650.000" \
	"$("$LOOPSCOPE" probes --plan --format=csv --function=fig1 --update-latency=2 f.lsc |
	   awk -F, '$1 == "fig1" && $2 == "unit" && $3 == "after" && $4 == "plain" { print $9 }')"

# --- selfloop: the aliasing case of section 4.1 -----------------------
# s0 +0x0 (jump), s1 +0x4 (the self-loop), s2 +0xa (return); 4 calls of
# 7 trips: s1 28, s1->s1 24, s1->s2 4.  Every tree profiles the self-loop
# (a self-loop is never in a tree) and the cycle outside-s0-s1-s2-outside
# closes on its last edge in tie order, OUT (4): counted 28.  Guess: s1 a
# header, 10 * 100; s1->s1 900, s1->s2 100.
#   along: s1->s1 a new block (s1 has two outputs): 5*24, OUT merged in
#          s2: 4*4 -> 136; pipelined 2*24 + 1*4 = 52.
#   before: s1 (28) and s2 (4): 32 executions, 4*32 = 128; 32, 32.
#   after: atop s1 (28, a dummy count on entry), OUT before in s2 (4):
#          32; 3*28 + 4*4 = 100; 28 + 4 = 32.
sl_plans() {
	for s in "along,plain,2,1,28,28,136.000" "along,swp,2,1,28,28,52.000" \
		 "before,plain,2,0,28,32,128.000" "before,swp,2,0,28,32,32.000" \
		 "after,plain,2,0,28,32,100.000" "after,swp,2,0,28,32,32.000"; do
		echo "$1,$s,5,5"
	done
}
t_eq "selfloop: every plan" "$(sl_plans unit)
$(sl_plans guess)
$(sl_plans modified)
$(sl_plans exact)" "$(rows selfloop)"
"$LOOPSCOPE" probes --plan --format=json --function=selfloop f.lsc >s.json
t_eq "selfloop: guessed weights 10 trips per entry" \
	"outside>0x0 100/100 - 0x0>0x4 100/100 - 0x4>0x4 900/990 unit,guess,modified,exact 0x4>0xa 100/110 - 0xa>outside 100/100 unit,guess,modified,exact " \
	"$(edges s.json)"

# --- crit: critical edges ----------------------------------------------
# c1 +0x0, c2 +0xa, c3 +0x12, c4 +0x1a, c5 +0x1e; counts (fig1.c): IN 40,
# c1c2 20, c1c3 20, c2c3 10, c2c4 10, c3c4 15, c3c5 15, c4c5 25, OUT 40.
# Critical: c1c3, c2c3, c2c4, c3c4, c3c5 (two-output source, two-input
# target); along puts a new block on each of them it profiles.
# unit: IN c1c2 c1c3 tree, c2c3 P, c2c4 tree, c3c4 P, c3c5 tree, c4c5 P,
#   OUT P: counted 10+15+25+40 = 90; along: new c2c3, c3c4: 5*25, merged
#   c4c5, OUT: 4*65 -> 385; 2*25 + 65 = 115.  before: c2 20, c3 30, c4
#   25, c5 40: 115, 4*115 = 460; 115.  after: atop c3 30, c4 25, c5 40,
#   OUT before in c5 40: 135; 3*95 + 4*40 = 445; 135.
# guess: c1 -> c2 60 (fall-through), c1c3 40, c2c3 36, c2c4 24; c3 = 76:
#   c5 only returns, so c3c4 is predicted: 45.6, c3c5 30.4; c4c5 69.6.
#   Tree IN OUT c4c5 c1c2 c3c4; profiled c1c3 c2c3 c3c5 c2c4: counted 55;
#   along: 4 new blocks, 5*55 = 275, 2*55 = 110; before: c1 40, c2 2*20,
#   c3 30: 110 executions, 4*90 = 360; 90, 90; after: atop c3 30, c4 25,
#   c5 40: 95, 3*95 = 285; 95.  modified: the same order, the same tree.
# exact: IN OUT c4c5 c1c2 c1c3 tree; c3c4 c3c5 c2c3 c2c4 profiled, all
#   critical: counted 50; along 4 new blocks, 250, 100; before: c2 2*20,
#   c3 2*30: 100, 4*50 = 200; 50, 50; after: 95, 285; 95.
crit_guess() {
	for s in "along,plain,4,4,55,55,275.000" "along,swp,4,4,55,55,110.000" \
		 "before,plain,4,0,55,110,360.000" "before,swp,4,0,55,90,90.000" \
		 "after,plain,4,0,55,95,285.000" "after,swp,4,0,55,95,95.000"; do
		echo "$1,$s,9,9"
	done
}
t_eq "crit: every plan" \
"unit,along,plain,4,2,90,90,385.000,9,9
unit,along,swp,4,2,90,90,115.000,9,9
unit,before,plain,4,0,90,115,460.000,9,9
unit,before,swp,4,0,90,115,115.000,9,9
unit,after,plain,4,0,90,135,445.000,9,9
unit,after,swp,4,0,90,135,135.000,9,9
$(crit_guess guess)
$(crit_guess modified)
exact,along,plain,4,4,50,50,250.000,9,9
exact,along,swp,4,4,50,50,100.000,9,9
exact,before,plain,4,0,50,100,200.000,9,9
exact,before,swp,4,0,50,50,50.000,9,9
exact,after,plain,4,0,50,95,285.000,9,9
exact,after,swp,4,0,50,95,95.000,9,9" "$(rows crit)"
"$LOOPSCOPE" probes --plan --function=crit f.lsc >c.txt
t_grep "crit: best guess before-swp 90, exact weights 50" \
	"^  best: guess before-swp, 90.0 cycles, .* (with exact weights: exact before-swp, 50.0 cycles)$" c.txt

# --- the whole program -------------------------------------------------
"$LOOPSCOPE" probes --plan --format=json f.lsc >all.json
t_eq "whole-program json exits 0" 0 $?
t_ok "program totals are the sums of the functions' plans, percent = cycles / baseline" python3 -c '
import json
d = json.load(open("all.json"))
base = d["baseline"]["value"]
assert d["baseline"]["unit"] == "instructions" and base > 0
P = d["program"]["plans"]
assert len(P) == 24
for i, p in enumerate(P):
    for k in ("profiled", "new_blocks", "counted", "executions"):
        assert p[k] == sum(f["plans"][i][k] for f in d["functions"]), (i, k)
    assert abs(p["cycles"] - sum(f["plans"][i]["cycles"] for f in d["functions"])) < 1e-3 * len(d["functions"])
    assert abs(p["percent"] - 100 * p["cycles"] / base) < 1e-5
assert d["program"]["mismatches"] == 0 and d["program"]["flow_violations"] == 0
'
"$LOOPSCOPE" probes --plan --format=csv f.lsc >all.csv
t_eq "csv: 24 rows per function and 24 for the program" \
	"$((24 * $(python3 -c 'import json; print(len(json.load(open("all.json"))["functions"]))') + 24 + 1))" \
	"$(wc -l <all.csv)"
t_eq "csv header" "function,weights,scheme,probes,profiled,new_blocks,counted,executions,cycles,percent,reconstructed,edges" \
	"$(head -1 all.csv)"

# Kirchhoff and every tree's reconstruction on every testdata recording.
for p in straight calls nested recursion syms inl midjump syscall threads signals dlopen spin cfgif irred fig1 "gotonest 10 5 11"; do
	set -- $p
	[ -x "$TESTDATA/$1" ] || continue
	"$LOOPSCOPE" record -q -o p.lsc -- "$TESTDATA/$@" >/dev/null 2>&1
	"$LOOPSCOPE" probes --plan --quiet p.lsc >p.out 2>p.err
	t_eq "$1: every plan reconstructs every count, flow conserved" 0 $?
	t_grep "$1: program line" " 0 mismatches in 4 trees, 0 flow violations;" p.out
done

# Usage errors and bad input.
"$LOOPSCOPE" probes --plan --format=xml f.lsc >/dev/null 2>e.err
t_eq "--format=xml is a usage error" 129 $?
t_grep "names the bad format" "unknown format 'xml'" e.err
"$LOOPSCOPE" probes --format=csv f.lsc >/dev/null 2>e.err
t_eq "--format without --plan is a usage error" 129 $?
"$LOOPSCOPE" probes --plan --probe-latency=-1 f.lsc >/dev/null 2>e.err
t_eq "a negative latency is a usage error" 129 $?
t_grep "names the option" "option '--probe-latency' wants a number from 0 to 1000, not '-1'" e.err
"$LOOPSCOPE" probes --plan --issue-width=0 f.lsc >/dev/null 2>e.err
t_eq "issue width 0 is a usage error" 129 $?
t_fail "an unknown function is an error" "$LOOPSCOPE" probes --plan --function=nosuch f.lsc
"$LOOPSCOPE" probes --plan --function=nosuch f.lsc 2>e.err >/dev/null
t_grep "names function and file" "no function 'nosuch' executed in 'f.lsc'" e.err
t_fail "a missing bundle is an error" "$LOOPSCOPE" probes --plan missing.lsc
