# t0637-module-filter.sh - finding things (issue 18, item 10): report
# --module=NAME, the dynamic loader's loops hidden by default from the
# flat profile and --tree (--show-loader), annotate --module, and
# --functions columns that stay aligned under long module names.
# Oracles: testdata/calls.c's three loops by hand (loop A, loop B, work's
# loop); the JSON view, which keeps every loop, for the loader's loops
# (their count and the sum of their self instructions); line lengths for
# the alignment of fixed-width columns.
. "$LSTOP/tests/lib.sh"
t_need_recorder
cd "$T_TMP" || exit 1

# A long file name: wider than the 16 columns --functions gave modules.
LONG=a_program_whose_file_name_is_rather_long_for_columns
cp "$TESTDATA/calls" "$LONG"
"$LOOPSCOPE" record -q -o c.lsc -- "./$LONG" >/dev/null
"$LOOPSCOPE" analyze -o c.lsprof c.lsc >/dev/null 2>&1

# --module: calls.c has three loops (loop A, loop B, work's for).
"$LOOPSCOPE" report --module="$LONG" --min-percent=0 c.lsprof >m.out
t_eq "--module=$LONG: the 3 loops of calls.c" 3 "$(grep -c '^Loop ' m.out)"
t_eq "--module=$LONG: all in main or work" 3 "$(grep -c '^Loop .* in \(main\|work\),' m.out)"
t_grep "--module: the header says which module" "^Only the loops of module $LONG;" m.out
t_eq "--module=$LONG --format=csv: 3 rows" 3 \
	"$("$LOOPSCOPE" report --module="$LONG" --format=csv c.lsprof | tail -n +2 | wc -l)"
"$LOOPSCOPE" report --module=libc --format=csv c.lsprof | tail -n +2 >libc.csv
t_ok "--module=libc (a name up to its dot): libc.so.6's loops" test -s libc.csv
t_eq "... and no other module's" "" "$(awk -F, '$2 !~ /\/libc\.so\.6$/' libc.csv)"
"$LOOPSCOPE" report --module="$LONG" --functions --min-percent=0 c.lsprof >mf.out
t_eq "--module --functions: only the module's functions" "" \
	"$(sed -n '4,$p' mf.out | grep -v '^Sum' | grep -v " $LONG ")"
t_grep "--module --functions: work is there" "^work  *$LONG " mf.out
t_fail "--module=nope: an error" "$LOOPSCOPE" report --module=nope c.lsprof
t_grep "... naming the module and the file" "no module 'nope' in 'c.lsprof'" "$T_TMP/last.err"
t_fail "--function=main --module=libc: main is not libc's" \
	"$LOOPSCOPE" report --function=main --module=libc c.lsprof
t_grep "... says so" "no function 'main' in module 'libc' of 'c.lsprof'" "$T_TMP/last.err"
t_ok "--function=work --module=$LONG finds it" \
	"$LOOPSCOPE" report --function=work --module="$LONG" c.lsprof
t_fail "--module with --cpi: refused" "$LOOPSCOPE" report --cpi --module=libc c.lsc
t_fail "--show-loader with --functions: refused" \
	"$LOOPSCOPE" report --show-loader --functions c.lsprof

# The loader: its loops (module ld-linux*) from the JSON, which keeps all.
"$LOOPSCOPE" report --format=json c.lsprof >c.json
set -- $(python3 - c.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ld = [l for l in d["loops"] if l["module"].rsplit("/", 1)[-1].startswith("ld-linux")]
print(len(ld), sum(l["self_instructions"] for l in ld), d["total_instructions"],
      ",".join(str(l["id"]) for l in ld))
PY
)
N=$1 S=$2 TOT=$3 IDS=$4
t_ok "the loader ran loops here ($N, $S instructions of their own)" test "$N" -gt 0
PCT=$(awk -v s="$S" -v t="$TOT" 'BEGIN { printf "%.2f", 100 * s / t }')
LD=$(python3 -c 'import json,sys; print(next(l["module"] for l in json.load(open("c.json"))["loops"] if "/ld-linux" in l["module"]).rsplit("/",1)[-1])')
HDR="Hidden: $N loops of the dynamic loader $LD, $S instructions ($PCT%) in their own code; --show-loader shows them"
"$LOOPSCOPE" report --min-percent=0 c.lsprof >flat.out
"$LOOPSCOPE" report --min-percent=0 --show-loader c.lsprof >all.out
t_eq "flat: the header counts the hidden loops and their own instructions" "$HDR" \
	"$(sed -n 2p flat.out)"
t_eq "flat: none of the $N loader loops is printed" "" \
	"$(grep '^Loop ' flat.out | awk '{print $2}' | grep -x -F "$(echo "$IDS" | tr , '\n')")"
t_eq "--show-loader: the $N loops come back" "$N" \
	"$(($(grep -c '^Loop ' all.out) - $(grep -c '^Loop ' flat.out)))"
t_eq "--show-loader: no Hidden line" 0 "$(grep -c '^Hidden:' all.out)"
"$LOOPSCOPE" report --tree --min-percent=0 c.lsprof >tree.out
t_eq "tree: the same header line" "$HDR" "$(sed -n 2p tree.out)"
t_eq "tree: no loader loop" "" \
	"$(sed -n 's/.*  loop \([0-9]*\) .*/\1/p' tree.out | grep -x -F "$(echo "$IDS" | tr , '\n')")"
# calls.c's loops: A and B at the top, work's loop under each.
t_eq "tree: calls.c's nest stays whole (A, B at depth 1, work's under each)" \
	"4 2" "$(grep -c ' main  \| work  ' tree.out) $(grep -c '^    [ 0-9.~]*%  loop [0-9]*  main ' tree.out)"
"$LOOPSCOPE" report --tree --min-percent=0 --show-loader c.lsprof >treeall.out
t_ok "tree --show-loader: the loader's loops are there" \
	grep -q "loop $(echo "$IDS" | cut -d, -f1) " treeall.out

# --functions: every row as long as the header, whatever the module name.
"$LOOPSCOPE" report --functions --min-percent=0 c.lsprof >f.out
t_eq "--functions: rows and header of one width under a ${#LONG}-character module name" 1 \
	"$(sed -n '2,$p' f.out | awk '{print length($0)}' | sort -u | wc -l)"
t_grep "--functions: the long name whole" " $LONG " f.out

# annotate --module: only that module's functions.
"$LOOPSCOPE" annotate --module="$LONG" --min-percent=0 c.lsc >an.out
t_grep "annotate --module: work is annotated" "work" an.out
t_eq "annotate --module: no libc function" 0 "$(grep -c 'libc\.so' an.out)"
t_fail "annotate --module=nope: an error" "$LOOPSCOPE" annotate --module=nope c.lsc
t_grep "... naming the module" "no module 'nope' in 'c.lsc'" "$T_TMP/last.err"
