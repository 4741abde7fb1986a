# t0801-cpi-chains.sh - `report --cpi` totals along call chains, over
# testdata/cpichain (main -> work(): outer loop -> inner loop -> leaf()).
# leaf() has no frame, so frame-pointer chains of its samples skip work()
# and its loops: totals must come from the trace's stacks.  Oracles:
#  - the per-instruction costs, samples and executions of `annotate
#    --format=json` (its own sums over the same run, per instruction);
#  - the hand counts of cpichain.c: main calls work() only, work() calls
#    leaf() only, and leaf() is called from work's inner loop only, so
#    every instruction of main, work and leaf runs under main, of work and
#    leaf under work; of work's instructions those run more than once
#    (N = 5000 outer iterations with an argument, see cpichain.c) are the outer loop's,
#    those run more than N times the inner loop's; leaf runs under both;
#  - the source: each loop's label is its for line (OUTER, INNER).
# Sums of costs are integers and checked exactly; samples (fractions
# after the skid fix) to the 3 decimals JSON prints, and without the
# skid fix against the raw sample counts, exactly.
. "$LSTOP/tests/lib.sh"
SRC=$LSTOP/testdata/cpichain.c
OUTER=$(grep -n 'OUTER \*/' "$SRC" | cut -d: -f1)
INNER=$(grep -n 'INNER \*/' "$SRC" | cut -d: -f1)
N=5000

"$LOOPSCOPE" record --sample-freq=20000 -o "$T_TMP/c.lsc" -- "$TESTDATA/cpichain" big >"$T_TMP/rec.out" 2>"$T_TMP/rec.err"
t_eq "record --sample-freq exits with the program's status" 0 $?
sed 's/^/# record: /' "$T_TMP/rec.err"
# perf records build-ids of the files with samples only, unless asked
# for all (--buildid-all): cpichain, libc and ld.so all have one.
t_eq "record --sample warns about no missing build-id" 0 "$(grep -c 'build-id' "$T_TMP/rec.err")"

t_ok "annotate --format=json" sh -c '"$LOOPSCOPE" annotate --format=json "$1" >"$2"' _ "$T_TMP/c.lsc" "$T_TMP/ann.json"
t_ok "annotate --no-skid-fix --format=json" sh -c '"$LOOPSCOPE" annotate --no-skid-fix --format=json "$1" >"$2"' _ "$T_TMP/c.lsc" "$T_TMP/raw.json"
# annotate leaves out functions without cost: main's instructions come
# from annotate --function=main.
t_ok "annotate --function=main --format=json" sh -c '"$LOOPSCOPE" annotate --function=main --format=json "$1" >"$2"' _ "$T_TMP/c.lsc" "$T_TMP/main.json"
t_ok "... --no-skid-fix" sh -c '"$LOOPSCOPE" annotate --no-skid-fix --function=main --format=json "$1" >"$2"' _ "$T_TMP/c.lsc" "$T_TMP/mainraw.json"
t_ok "report --cpi --format=json" sh -c '"$LOOPSCOPE" report --cpi --format=json "$1" >"$2"' _ "$T_TMP/c.lsc" "$T_TMP/rep.json"
t_ok "report --cpi --no-skid-fix --format=json" sh -c '"$LOOPSCOPE" report --cpi --no-skid-fix --format=json "$1" >"$2"' _ "$T_TMP/c.lsc" "$T_TMP/repraw.json"

# Prints "name value" lines: 1 where the report's figure equals the one
# summed from annotate's instructions.
cat >"$T_TMP/chk.py" <<'EOF'
import json, sys
ann = json.load(open(sys.argv[1])); rep = json.load(open(sys.argv[2]))
outer_line, inner_line, n, raw = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "raw"
main = json.load(open(sys.argv[7]))["instructions"]
I = [i for i in ann["instructions"] if i["function"] != "main"] + main
def S(pred, key):
    return sum(i[key] for i in I if pred(i))
fn = lambda *names: (lambda i: i["function"] in names)
work_x = lambda lo: (lambda i: i["function"] == "leaf" or
                     (i["function"] == "work" and i["executions"] > lo))
skey = "raw_samples" if raw else "samples"
def same(a, b):
    return int(round(a, 3) == round(b, 3))
F = {f["name"]: f for f in rep["functions"]}
out = []
def check(name, agg, pred):
    out.append((name + "_cost", int(agg["cost"] == S(pred, "cost"))))
    out.append((name + "_samples", same(agg["samples"], S(pred, skey))))
    out.append((name + "_insns", int(agg["instructions"] == S(pred, "executions"))))
    sys.stderr.write("%s: cost %d, samples %.3f, instructions %d\n" % (
        name, agg["cost"], agg["samples"], agg["instructions"]))
check("main", F["main"]["total"], fn("main", "work", "leaf"))
check("work", F["work"]["total"], fn("work", "leaf"))
check("leaf", F["leaf"]["total"], fn("leaf"))
out.append(("leaf_sampled", int(F["leaf"]["self"]["samples"] >= 1)))
for fam in ("dynamic", "structural"):
    L = rep[fam]["loops"]
    W = [l for l in L if l["function"] == "work"]
    o = [l for l in W if l["parent"] is None]
    i = [l for l in W if o and l["parent"] == o[0]["id"]]
    out.append((fam + "_nest", int(len(W) == 2 and len(o) == 1 and len(i) == 1)))
    if len(o) == 1 and len(i) == 1:
        out.append((fam + "_labels", int(o[0]["line"] == outer_line and i[0]["line"] == inner_line)))
        check(fam + "_outer", o[0]["total"], work_x(1))
        check(fam + "_inner", i[0]["total"], work_x(n))
    # Every loop: total >= self, >= its nested loops', <= everything.
    byid = {l["id"]: l for l in L}
    ok = True
    for l in L:
        t = l["total"]
        ok &= t["cost"] >= l["self"]["cost"] and t["instructions"] >= l["self"]["instructions"]
        ok &= t["cost"] <= rep["cost_attributed"] and t["instructions"] <= rep["instructions"]
        p = byid.get(l["parent"])
        if p:
            ok &= p["total"]["cost"] >= t["cost"] and p["total"]["instructions"] >= t["instructions"]
            ok &= p["total"]["samples"] >= t["samples"] - 1e-6
    out.append((fam + "_bounds", int(ok)))
    out.append((fam + "_top_exact", int(sum(l["top_cost"] for l in L) + rep[fam]["outside"]["cost"] ==
                                        rep["cost_attributed"])))
ok = all(f["total"]["cost"] >= f["self"]["cost"] and f["total"]["cost"] <= rep["cost_attributed"] and
         f["total"]["instructions"] <= rep["instructions"] for f in rep["functions"])
out.append(("func_bounds", int(ok)))
for k, v in out:
    print(k, v)
EOF
python3 "$T_TMP/chk.py" "$T_TMP/ann.json" "$T_TMP/rep.json" "$OUTER" "$INNER" "$N" fix "$T_TMP/main.json" >"$T_TMP/fix.res" 2>"$T_TMP/fix.msg"
sed 's/^/# /' "$T_TMP/fix.msg"
python3 "$T_TMP/chk.py" "$T_TMP/raw.json" "$T_TMP/repraw.json" "$OUTER" "$INNER" "$N" raw "$T_TMP/mainraw.json" >"$T_TMP/raw.res" 2>"$T_TMP/raw.msg"
val() { awk -v k="$2" '$1 == k {print $2}' "$1"; }
t_eq "leaf() has samples (a frame-pointer chain would lose work() for them)" 1 "$(val "$T_TMP/fix.res" leaf_sampled)"
for m in fix raw; do
	[ $m = fix ] && w="" || w=" (no skid fix: raw sample counts)"
	for x in main work leaf; do
		t_eq "$x's total cost = the cost of the instructions run under it$w" 1 "$(val "$T_TMP/$m.res" ${x}_cost)"
		t_eq "$x's total samples = their samples$w" 1 "$(val "$T_TMP/$m.res" ${x}_samples)"
		t_eq "$x's total instructions = their executions$w" 1 "$(val "$T_TMP/$m.res" ${x}_insns)"
	done
	for fam in dynamic structural; do
		t_eq "$fam: work has an outer loop and an inner loop nested in it$w" 1 "$(val "$T_TMP/$m.res" ${fam}_nest)"
		for x in outer inner; do
			t_eq "$fam: the $x loop's total cost = its instructions' and leaf's$w" 1 "$(val "$T_TMP/$m.res" ${fam}_${x}_cost)"
			t_eq "$fam: the $x loop's total samples = theirs$w" 1 "$(val "$T_TMP/$m.res" ${fam}_${x}_samples)"
			t_eq "$fam: the $x loop's total instructions = their executions$w" 1 "$(val "$T_TMP/$m.res" ${fam}_${x}_insns)"
		done
		t_eq "$fam: every loop's total is >= its self, >= its nested loops', <= the whole$w" 1 "$(val "$T_TMP/$m.res" ${fam}_bounds)"
		t_eq "$fam: top-level costs + the cost outside every loop = the attributed cost$w" 1 "$(val "$T_TMP/$m.res" ${fam}_top_exact)"
	done
	t_eq "every function's total is >= its self and <= the whole$w" 1 "$(val "$T_TMP/$m.res" func_bounds)"
done
t_eq "the loops are labelled with their for lines ($OUTER, $INNER)" 1 "$(val "$T_TMP/fix.res" dynamic_labels)"
t_eq "... structural ones too" 1 "$(val "$T_TMP/fix.res" structural_labels)"

# One definition of the loops' totals (and so of outside them) in both
# reports: work's loops have the flat report's total instructions.
"$LOOPSCOPE" report --format=json "$T_TMP/c.lsc" >"$T_TMP/flat.json"
t_eq "work's loops: --cpi's total instructions = the flat report's" 1 "$(python3 -c '
import json, sys
f = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
a = sorted(l["total_instructions"] for l in f["loops"] if l["function"] == "work")
b = sorted(l["total"]["instructions"] for l in r["dynamic"]["loops"] if l["function"] == "work")
print(int(len(a) == 2 and a == b))' "$T_TMP/flat.json" "$T_TMP/rep.json")"

"$LOOPSCOPE" report --cpi --min-percent=0 "$T_TMP/c.lsc" >"$T_TMP/all.txt"
t_grep "the text report lists the outer loop at its for line" "work  *cpichain.c:$OUTER " "$T_TMP/all.txt"
t_eq "report --cpi prints no '?:0'" 0 "$(grep -c '?:0' "$T_TMP/all.txt")"
# Without debug info no line is known: the loops are named by module and
# head offset, as the flat report names them.
cp "$TESTDATA/cpichain" "$T_TMP/nodebug"
strip --strip-debug "$T_TMP/nodebug"
"$LOOPSCOPE" record -q --sample-freq=20000 -o "$T_TMP/s.lsc" -- "$T_TMP/nodebug" big >/dev/null 2>&1
"$LOOPSCOPE" report --cpi --min-percent=0 "$T_TMP/s.lsc" >"$T_TMP/s.txt" 2>&1
t_eq "without debug info report --cpi prints no '?:0'" 0 "$(grep -c '?:0' "$T_TMP/s.txt")"
HEAD=$(python3 -c '
import json, sys
f = json.load(open(sys.argv[1]))
W = [l for l in f["loops"] if l["function"] == "work"]
print(max(W, key=lambda l: l["total_instructions"])["head_offset"] if W else "none")' "$T_TMP/flat.json")
t_grep "... the outer loop is nodebug+$HEAD, its head" "work  *nodebug+$HEAD " "$T_TMP/s.txt"

# Hand count: leaf() runs N * M = 5000000 times (cpichain.c, with an
# argument), each time all its instructions (no branch), as many as
# objdump lists.
NL=$(objdump -d --no-show-raw-insn "$TESTDATA/cpichain" | awk '/<leaf>:/ {on = 1; next} on && /^$/ {exit} on && /^ *[0-9a-f]+:/ {n++} END {print n + 0}')
t_eq "leaf's total instructions = $NL (objdump) x 5000000" "$((NL * 5000000))" \
	"$(python3 -c 'import json,sys; print([f for f in json.load(open(sys.argv[1]))["functions"] if f["name"] == "leaf"][0]["total"]["instructions"])' "$T_TMP/rep.json")"
