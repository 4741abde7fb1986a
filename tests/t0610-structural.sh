#!/bin/sh
# t0610-structural.sh - `report --structural`: the structural loops of the
# executed CFG (dominators, OptiWISE's T=3 rule) beside the loop
# detector's, from one decode.  On every testdata program the two views
# agree on loop heads, iterations and entries for the program's own
# functions, except where this test says why (tests/lib/loopcmp.py lists
# the rows that are not "same"):
# - gotonest.c: one header with three back edges that T=3 splits into
#   three nested natural loops (see t0700 for the arithmetic); the loop
#   detector sees one loop per head, the outermost, and reports the two
#   inner ones as "inner".
# - irred.c: the cycle A <-> B is entered at A and at B: structurally an
#   irreducible region, no loop; dynamically one loop per entry block, 34
#   iterations each (n goes 0 -> 102 by 3 from A, 1 -> 103 from B...).
# - vg_sig.c: the interval timer interrupts the spin loop; where the
#   handler returns into the loop the CFG sees a flow into the header from
#   outside (a second invocation), the detector the same entry resumed.
# - vg_segv.c: siglongjmp back to the sigsetjmp in main's for loop enters
#   the loop's cycle a second way: structurally irreducible; the detector
#   sees the for loop (each landing is a non-local jump, no iteration):
#   1 entry, 10 iterations, as the source says.
. "$LSTOP/tests/lib.sh"

TD=$BUILD/testdata
CMP="python3 $LSTOP/tests/lib/loopcmp.py"

if ! command -v valgrind >/dev/null || [ ! -x "$BUILD/vglib/loopscope-amd64-linux" ]; then
	echo "ok 1 # skip valgrind or the tool is missing"
	exit 0
fi

rec() {	# rec NAME PROG ARGS...: records and reports --structural as JSON
	n=$1; shift
	"$LOOPSCOPE" record -q -o "$T_TMP/$n.lsc" -- "$@" >/dev/null 2>&1 </dev/null
	"$LOOPSCOPE" report --structural --format=json "$T_TMP/$n.lsc" >"$T_TMP/$n.json" 2>"$T_TMP/$n.err"
}

# Programs whose loops agree exactly: "same N" with N their loop count.
for p in nested:3 lp_trips:7 lp_calls:5 lp_recur:2 lp_jmp:3 lp_threads:3 \
	signals:2 calls:0 threads:0 syscall:0 vg_flow:0 cfgif:1 midjump:0; do
	n=${p%%:*}
	rec "$n" "$TD/$n"
	out=$($CMP "$T_TMP/$n.json" "$TD/$n")
	case $out in
	"same "*) t_ok "$n: every structural loop is a detected loop with the same counts ($out)" true ;;
	*) t_eq "$n: every structural loop is a detected loop with the same counts" "same ..." "$out" ;;
	esac
done

rec gotonest "$TD/gotonest" 10 5 11
t_eq "gotonest: the outer loop agrees; the T=3 inner loops share its header" \
	"nest+0x10 550 11 inner 0 0|nest+0x10 550 55 inner 0 0|same 1" \
	"$($CMP "$T_TMP/gotonest.json" "$TD/gotonest" | paste -sd'|')"

rec irred "$TD/irred"
t_eq "irred: irreducible structurally, one dynamic loop per entry" \
	"dynamic-only cycle 0x112d 34 1|dynamic-only cycle 0x1147 34 1|irreducible 2 cycle+0x4,cycle+0x1e|same 0" \
	"$($CMP "$T_TMP/irred.json" "$TD/irred" | sed 's/ 0x[0-9a-f]* / OFF /' | paste -sd'|' | sed 's/OFF/0x112d/;s/OFF/0x1147/')"

rec vg_sig "$TD/vg_sig"
t_eq "vg_sig: the spin loop: the signal's return is a second invocation only structurally" \
	"1" "$($CMP "$T_TMP/vg_sig.json" "$TD/vg_sig" | awk '$4 == "counts" && $3 == 2 && $6 == 1 && $2 == $5' | wc -l)"
t_eq "vg_sig: the other loops agree" "same 2" "$($CMP "$T_TMP/vg_sig.json" "$TD/vg_sig" | tail -1)"

rec vg_segv "$TD/vg_segv"
t_eq "vg_segv: main's for loop: 10 iterations dynamically; irreducible structurally" \
	"dynamic-only main 10 1|irreducible 3|same 0" \
	"$($CMP "$T_TMP/vg_segv.json" "$TD/vg_segv" | awk '{print $1, $2, $4, $5}' | sed 's/ *$//' | paste -sd'|')"

# The text view and its errors.
"$LOOPSCOPE" report --structural "$T_TMP/nested.lsc" >"$T_TMP/n.txt" 2>&1
t_ok "text: header line" grep -q '^Structural loops of .*merge threshold T=3' "$T_TMP/n.txt"
t_ok "text: nest's innermost loop, 6000 iterations, 200 invocations, = its detected loop" \
	grep -q '^nest+0x[0-9a-f]* .* 6000 *200 *30.00 .*= loop [0-9]*$' "$T_TMP/n.txt"
"$LOOPSCOPE" analyze -q "$T_TMP/nested.lsc" -o "$T_TMP/n.lsprof"
t_fail "a profile of a plain analyze is refused" "$LOOPSCOPE" report --structural "$T_TMP/n.lsprof"
t_grep "... saying how to make one with them" "holds no structural loops: run .loopscope analyze --structural. on its bundle" "$T_TMP/last.err"
"$LOOPSCOPE" report --structural --merge-threshold=0.5 "$T_TMP/nested.lsc" >/dev/null 2>&1
t_eq "a threshold below 1 is a usage error" 129 $?
# T = 1e9 never nests: gotonest's three back edges become one loop.
"$LOOPSCOPE" report --structural --format=json --merge-threshold=1000000000 \
	"$T_TMP/gotonest.lsc" >"$T_TMP/g1.json"
t_eq "gotonest with a huge T: one loop, as the detector sees it" "same 1" \
	"$($CMP "$T_TMP/g1.json" "$TD/gotonest")"
