# t0800-cpi.sh - the sampled-CPI combiner (OptiWISE): `annotate` and
# `report --cpi` over testdata/cpibench (figure 1: a load that misses the
# cache on most iterations next to cheap arithmetic, and a loop of
# independent arithmetic).  The oracle is the hardware: a dependent
# random walk over 128 MB (4x the last-level cache) costs a memory latency
# per load, the arithmetic about a cycle, so the load's cost per
# execution must beat its loop's median instruction by 10x or more and the
# arithmetic loop must cost the least per instruction.  Orderings and
# factors only, never absolute times (cpu-clock here: ns; cycles with a
# PMU: CPI).  Sums are checked exactly (costs are integers).
. "$LSTOP/tests/lib.sh"
SRC=$LSTOP/testdata/cpibench.c
MISS=$(grep -n 'MISS \*/' "$SRC" | cut -d: -f1)

"$LOOPSCOPE" record -q --sample-freq=20000 -o "$T_TMP/b.lsc" -- "$TESTDATA/cpibench" >"$T_TMP/out" 2>"$T_TMP/err"
t_eq "record --sample-freq exits with the program's status" 0 $?
"$LOOPSCOPE" info "$T_TMP/b.lsc" >"$T_TMP/info"
t_grep "the frequency is kept in the metadata" "sample.freq *20000" "$T_TMP/info"

t_ok "annotate --format=json" sh -c '"$LOOPSCOPE" annotate --format=json "$1" >"$2"' _ "$T_TMP/b.lsc" "$T_TMP/ann.json"
t_ok "annotate --no-skid-fix --format=json" sh -c '"$LOOPSCOPE" annotate --no-skid-fix --format=json "$1" >"$2"' _ "$T_TMP/b.lsc" "$T_TMP/raw.json"
t_ok "report --cpi --format=json" sh -c '"$LOOPSCOPE" report --cpi --format=json "$1" >"$2"' _ "$T_TMP/b.lsc" "$T_TMP/rep.json"

# What the hardware decides, and the sums, in one script per file: it
# prints "name value" lines the checks below compare.
cat >"$T_TMP/ann.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); miss = int(sys.argv[2]); fix = sys.argv[3] == "fix"
print("unit_ok", int(d["unit"] in ("ns", "cycles") and
                     d["unit"] == ("ns" if "clock" in d["event"] else "cycles")))
ins = d["instructions"]
print("insn_sum_exact", int(sum(i["cost"] for i in ins) == d["cost_attributed"]))
print("account_exact", int(d["attributed"] + d["unmapped"] + d["no_module"] +
                           d["not_executed"] == d["samples"]))
loop = [i for i in ins if i["function"] == "chase" and i["executions"] == 1000000]
loop.sort(key=lambda i: int(i["address"], 16))
cpe = sorted(i["cost_per_execution"] for i in loop)
med = cpe[len(cpe) // 2] if len(cpe) % 2 else (cpe[len(cpe)//2 - 1] + cpe[len(cpe)//2]) / 2
top = max(loop, key=lambda i: i["cost_per_execution"])
load = [k for k, i in enumerate(loop) if i["line"] == miss and "(%" in i["disassembly"]]
k = loop.index(top)
# Charged to the predecessor, the load's cost sits on the load (samples
# land after it) or on the instruction before it (samples on the load);
# where they landed, on the load or after it.
near = load and (k - load[0] in ((0, -1) if fix else (0, 1)))
print("loop_insns", int(len(loop) >= 4))
# Per source line and per block: the load's line costs the most per
# instruction of the program's lines; the loop is one block of 8.
# Lines run a handful of times are left out: one sample on them is noise.
lines = [l for l in d["lines"] if l["file"].endswith("cpibench.c") and l["instructions"] >= 100000]
print("line_top", max(lines, key=lambda l: l["cost_per_instruction"])["line"] if lines else 0)
print("loop_block", int(any(b["ninsns"] == len(loop) and b["executions"] == 1000000 for b in d["blocks"])))
print("factor_ok", int(top["cost_per_execution"] >= 10 * med))
print("top_at_load", int(bool(near)))
sys.stderr.write("chase: top %s %s %.2f %s/exec, next %.2f, median %.3f, factor %s, %d samples of %d\n" % (
    top["address"], top["disassembly"], top["cost_per_execution"], d["unit"], cpe[-2], med,
    "inf" if med == 0 else "%.0f" % (top["cost_per_execution"] / med),
    round(sum(i["samples"] for i in loop)), d["samples"]))
EOF
python3 "$T_TMP/ann.py" "$T_TMP/ann.json" "$MISS" fix >"$T_TMP/ann.res" 2>"$T_TMP/ann.msg"
cat "$T_TMP/ann.msg" | sed 's/^/# /'
python3 "$T_TMP/ann.py" "$T_TMP/raw.json" "$MISS" raw >"$T_TMP/raw.res" 2>"$T_TMP/raw.msg"
cat "$T_TMP/raw.msg" | sed 's/^/# no skid fix: /'
val() { awk -v k="$2" '$1 == k {print $2}' "$1"; }
t_eq "annotate's unit is ns with cpu-clock, cycles otherwise" 1 "$(val "$T_TMP/ann.res" unit_ok)"
t_eq "chase's loop has its instructions (8 with gcc 12 -O1), each executed 1000000 times" 1 "$(val "$T_TMP/ann.res" loop_insns)"
t_eq "the costliest instruction of chase's loop costs >= 10x the loop's median" 1 "$(val "$T_TMP/ann.res" factor_ok)"
t_eq "... and it is the missing load (line $MISS), charged by predecessor attribution" 1 "$(val "$T_TMP/ann.res" top_at_load)"
t_eq "without the skid fix the factor holds too" 1 "$(val "$T_TMP/raw.res" factor_ok)"
t_eq "... on the load or the instruction after it, where samples land" 1 "$(val "$T_TMP/raw.res" top_at_load)"
t_eq "per source line: the load's line has the highest cost per instruction of the hot lines" "$MISS" "$(val "$T_TMP/ann.res" line_top)"
t_eq "per block: chase's loop is one block of those instructions" 1 "$(val "$T_TMP/ann.res" loop_block)"
t_eq "instruction costs add up to the attributed cost exactly" 1 "$(val "$T_TMP/ann.res" insn_sum_exact)"
t_eq "... also without the skid fix" 1 "$(val "$T_TMP/raw.res" insn_sum_exact)"
t_eq "attributed + unmapped + other module + never executed = all samples" 1 "$(val "$T_TMP/ann.res" account_exact)"

cat >"$T_TMP/rep.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for fam in ("dynamic", "structural"):
    L = d[fam]["loops"]
    print(fam + "_sum_exact", int(sum(l["top_cost"] for l in L) + d[fam]["outside"]["cost"] ==
                                  d["cost_attributed"]))
    cpi = {}
    for l in L:
        if l["function"] in ("chase", "fill", "arith"):
            cpi[l["function"]] = l["total"]["cost_per_instruction"]
    print(fam + "_three", len(cpi))
    print(fam + "_arith_lowest", int(len(cpi) == 3 and cpi["arith"] < min(cpi["fill"], cpi["chase"])))
    print(fam + "_chase_highest", int(len(cpi) == 3 and cpi["chase"] > max(cpi["fill"], cpi["arith"])))
    sys.stderr.write("%s loops, %s per instruction: %s\n" % (fam, d["unit"],
                     ", ".join("%s %.3f" % kv for kv in sorted(cpi.items()))))
    ok = all(("cost" in l["self"] and "samples" in l["total"] and
              "cost_per_instruction" in l["total"]) for l in L)
    print(fam + "_fields", int(ok))
F = d["functions"]
print("func_self_exact", int(sum(f["self"]["cost"] for f in F) == d["cost_attributed"]))
print("func_fields", int(all("cost_per_instruction" in f["self"] and "samples" in f["total"] for f in F)))
EOF
python3 "$T_TMP/rep.py" "$T_TMP/rep.json" >"$T_TMP/rep.res" 2>"$T_TMP/rep.msg"
sed 's/^/# /' "$T_TMP/rep.msg"
for fam in dynamic structural; do
	t_eq "$fam: top-level loop costs + the cost outside loops = the attributed cost, exactly" 1 "$(val "$T_TMP/rep.res" ${fam}_sum_exact)"
	t_eq "$fam: chase, fill and arith each have a loop" 3 "$(val "$T_TMP/rep.res" ${fam}_three)"
	t_eq "$fam: the arithmetic loop has the lowest cost per instruction" 1 "$(val "$T_TMP/rep.res" ${fam}_arith_lowest)"
	t_eq "$fam: the missing-load loop has the highest" 1 "$(val "$T_TMP/rep.res" ${fam}_chase_highest)"
	t_eq "$fam: loops carry samples, cost and cost_per_instruction, self and total" 1 "$(val "$T_TMP/rep.res" ${fam}_fields)"
done
t_eq "function self costs add up to the attributed cost exactly" 1 "$(val "$T_TMP/rep.res" func_self_exact)"
t_eq "functions carry samples, cost and cost_per_instruction, self and total" 1 "$(val "$T_TMP/rep.res" func_fields)"

"$LOOPSCOPE" report --cpi "$T_TMP/b.lsc" >"$T_TMP/rep.txt" 2>"$T_TMP/rep.err"
t_grep "the text report accounts for every sample" "^samples: .* attributed; .* not attributed" "$T_TMP/rep.txt"
# The loop's label is its own for line, the line above the load.
FOR=$((MISS - 1))
t_eq "cpibench.c:$FOR is chase's for" 1 "$(sed -n "${FOR}p" "$SRC" | grep -c 'for (long i = 0; i < iters')"
t_grep "the text report lists chase's loop with its for line" "chase  *cpibench.c:$FOR " "$T_TMP/rep.txt"
t_eq "no warning when the runs match" 0 "$(wc -c <"$T_TMP/rep.err")"
"$LOOPSCOPE" report --cpi --format=csv "$T_TMP/b.lsc" >"$T_TMP/rep.csv"
t_grep "CSV has the same fields" "^kind,family,id,head,function,.*cost_per_instruction_self,cost_per_instruction_total" "$T_TMP/rep.csv"
t_grep "CSV rows for loops and functions" "^loop,dynamic,.*,chase," "$T_TMP/rep.csv"
# From elsewhere: the relative source name is found above the binary.
(cd "$T_TMP" && "$LOOPSCOPE" annotate --function=chase b.lsc >ann.txt)
t_grep "annotate interleaves the source line of the load" "cpibench.c:$MISS .*MISS" "$T_TMP/ann.txt"

# Samples from another binary: the traced run is sh, which execs cpibench
# untraced; the native sampling run samples cpibench.  They must be
# counted and warned about, not given numbers.
"$LOOPSCOPE" record -q --sample-freq=20000 -o "$T_TMP/x.lsc" -- sh -c 'exec "$0" 300000 64 1000' "$TESTDATA/cpibench" >/dev/null 2>&1
"$LOOPSCOPE" report --cpi --format=json "$T_TMP/x.lsc" >"$T_TMP/x.json" 2>"$T_TMP/x.err"
t_grep "samples of another binary: a clear warning" "could not be attributed to the trace" "$T_TMP/x.err"
t_eq "... and they are counted as in modules the trace never executed (>= 90%)" 1 \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(int(d["no_module"] >= 0.9 * d["samples"]))' "$T_TMP/x.json")"
t_eq "... and no loop of cpibench gets numbers" 0 "$(grep -c '"chase"' "$T_TMP/x.json")"
# Same binary, other code: cpimix runs traced() under Valgrind, native()
# natively.
"$LOOPSCOPE" record -q --sample-freq=20000 -o "$T_TMP/m.lsc" -- "$TESTDATA/cpimix" >/dev/null 2>&1
"$LOOPSCOPE" annotate --format=json "$T_TMP/m.lsc" >"$T_TMP/m.json" 2>"$T_TMP/m.err"
t_grep "samples on code the trace never ran: a warning" "at addresses it never executed" "$T_TMP/m.err"
t_eq "... counted as never executed (>= 90%)" 1 \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(int(d["not_executed"] >= 0.9 * d["samples"]))' "$T_TMP/m.json")"
t_eq "... and native() has no instructions in the annotation" 0 "$(grep -c '"function": "native"' "$T_TMP/m.json")"

# Inputs CPI cannot use.
"$LOOPSCOPE" analyze -o "$T_TMP/b.lsprof" "$T_TMP/b.lsc" >/dev/null 2>&1
"$LOOPSCOPE" report --cpi "$T_TMP/b.lsprof" >/dev/null 2>"$T_TMP/p.err"
t_grep "report --cpi of a profile without the CPI records says to analyze with --cpi" \
	"has no sampled-CPI records: run 'loopscope analyze --cpi'" "$T_TMP/p.err"
"$LOOPSCOPE" record -q -o "$T_TMP/n.lsc" -- "$TESTDATA/straight" >/dev/null 2>&1
# Without samples annotate shows the exact executions (t0635 checks
# them), and says how to get the cost; report --cpi still needs samples.
t_ok "annotate of a bundle without samples shows its executions" "$LOOPSCOPE" annotate "$T_TMP/n.lsc"
t_grep "... saying how to record samples for the cost" "record with --sample" "$T_TMP/last.out"
t_fail "report --cpi of a bundle without samples fails" "$LOOPSCOPE" report --cpi "$T_TMP/n.lsc"
t_grep "... saying how to record them" "record --sample" "$T_TMP/last.err"
t_fail "--no-skid-fix without --cpi is a usage error" "$LOOPSCOPE" report --no-skid-fix "$T_TMP/b.lsc"
"$LOOPSCOPE" report "$T_TMP/b.lsc" >"$T_TMP/plain.txt"
t_eq "report without --cpi prints no CPI columns" 0 "$(grep -c 'ns/insn\|CPI' "$T_TMP/plain.txt")"
