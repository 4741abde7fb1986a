#!/bin/sh
# t0600-loops.sh - the loop detector (analysis/loops.c) against hand counts.
#
# tests/tools/loopdump runs decoder + detector and prints the profile's
# rows unformatted.  Expected numbers come from:
# - the trip counts written in each testdata/lp_*.c (and nested.c) source;
# - objdump: the instructions of a straight-line loop body, from its head
#   to its back branch (range below), times its iterations, is its self;
# - tests/tools/sstep: native single-stepping gives each function's
#   executed instructions (the part of a function outside its loop is
#   then sstep minus the loop's iterations times its body);
# - the decoder's instruction totals per thread (themselves checked
#   against the recorder's own count and libipt in t0050/t0201).
. "$LSTOP/tests/lib.sh"

TD=$BUILD/testdata
LD=$BUILD/tests/loopdump
SSTEP=$BUILD/tests/sstep

if ! command -v valgrind >/dev/null || [ ! -x "$BUILD/vglib/loopscope-amd64-linux" ]; then
	echo "ok 1 # skip valgrind or the tool is missing"
	exit 0
fi

ALL="nested lp_trips lp_calls lp_recur lp_jmp lp_threads signals vg_sig vg_segv vg_flow dlopen calls"
for p in $ALL; do
	"$LOOPSCOPE" record -q -o "$T_TMP/$p.lsc" -- "$TD/$p" >/dev/null 2>&1
	"$LD" "$T_TMP/$p.lsc" "testdata/$p" >"$T_TMP/$p.ld" 2>"$T_TMP/$p.lderr"
done
for p in lp_trips lp_calls; do
	"$SSTEP" -o "$T_TMP/$p.ss" "$TD/$p" >/dev/null 2>&1
done

# The loop line of the loop headed in function $2 ("fn+0x..") of dump $1.
lp() {
	case $2 in
	*+*) grep "^loop $2:" "$T_TMP/$1.ld" ;;
	*) grep "^loop $2+" "$T_TMP/$1.ld" ;;
	esac
}
# Field $3 (entries, iterations, self, total, min, max, trips, head) of it.
lf() { lp "$1" "$2" | tr ' ' '\n' | sed -n "s/^$3=//p"; }
# Name (fn+0xoff:line) of the loop headed in function $2.
ln() { lp "$1" "$2" | awk '{print $2}'; }
ss() { awk -v f="$2" '$1 == f {print $2}' "$T_TMP/$1.ss"; }
# Instructions from address $2 to address $3 (inclusive) of binary $1.
range() {
	objdump -d --no-show-raw-insn --start-address="$(($2))" \
		--stop-address="$(($3 + 1))" "$1" | grep -c '^ *[0-9a-f]*:'
}
# The back-branch address of the loop in function $2 (one tail expected).
tail_of() { grep "^tail $(ln "$1" "$2") " "$T_TMP/$1.ld" | awk '{print $3}' | sort -u; }
body() { range "$TD/$1" "$(lf "$1" "$2" head)" "$(tail_of "$1" "$2")"; }

# Every thread: instructions outside loops + totals of top-level loops =
# the decoded instructions (the program total is accounted exactly once).
for p in $ALL; do
	t_eq "$p: every thread's outside + top-level totals = its instructions" "" \
		"$(awk '$1 == "thread" {
			split($3, a, "="); split($4, b, "="); split($5, c, "=")
			if (a[2] != b[2] + c[2]) print $0 }' "$T_TMP/$p.ld")"
	t_eq "$p: no frame mismatches" "0" \
		"$(awk '{for (i = 1; i < NF; i++) if ($i == "mismatches") print $(i + 1)}' "$T_TMP/$p.lderr")"
done

# nested.c: 10 x 20 x 30.
t_eq "nested: outer loop" "1 10 10:1" "$(lf nested 'nest+0xc' entries) $(lf nested 'nest+0xc' iterations) $(lf nested 'nest+0xc' trips)"
t_eq "nested: 3 loops in nest()" 3 "$(grep -c '^loop nest+' "$T_TMP/nested.ld")"
mid=$(grep '^loop nest+' "$T_TMP/nested.ld" | grep 'trips=20:10' | awk '{print $2}')
in=$(grep '^loop nest+' "$T_TMP/nested.ld" | grep 'trips=30:200' | awk '{print $2}')
out=$(ln nested 'nest+0xc')
t_ok "nested: middle loop: 10 entries of 20" test -n "$mid"
t_ok "nested: inner loop: 200 entries of 30" test -n "$in"
t_eq "nested: edges top -> outer -> middle -> inner" \
	"edge top -> $out 1|edge $out -> $mid 10|edge $mid -> $in 200" \
	"$(grep "^edge" "$T_TMP/nested.ld" | awk '{print $1, $2, $3, $4, $5}' | sort -t' ' -k5n | paste -sd'|')"
t_eq "nested: back branches: 9, 190, 5800" "9 190 5800" \
	"$(grep '^tail' "$T_TMP/nested.ld" | awk '{print $4}' | sort -n | paste -sd' ')"
inn=${in%%:*}
inner_self=$(grep "^loop $in " "$T_TMP/nested.ld" | tr ' ' '\n' | sed -n 's/^self=//p')
inner_head=$(grep "^loop $in " "$T_TMP/nested.ld" | tr ' ' '\n' | sed -n 's/^head=//p')
inner_tail=$(grep "^tail $in " "$T_TMP/nested.ld" | awk '{print $3}')
t_eq "nested: inner self = 6000 x its body (objdump)" \
	"$((6000 * $(range "$TD/nested" "$inner_head" "$inner_tail")))" "$inner_self"
t_eq "nested: loop-level instructions of nest() = sum of its loops' self" \
	"$(grep '^loop nest+' "$T_TMP/nested.ld" | tr ' ' '\n' | sed -n 's/^self=//p' | paste -sd+ | bc)" \
	"$(awk '$1 == "func" && $2 == "nest" {print $5}' "$T_TMP/nested.ld")"

# lp_trips.c: histograms bucket by bucket, early exits.
t_eq "lp_trips: vary(): 11 entries, 44 iterations" "11 44" "$(lf lp_trips vary entries) $(lf lp_trips vary iterations)"
t_eq "lp_trips: vary(): histogram" "1:2,2:1,3:2,4:1,5:3,6:1,9:1" "$(lf lp_trips vary trips)"
t_eq "lp_trips: vary(): min 1, max 9" "1 9" "$(lf lp_trips vary min) $(lf lp_trips vary max)"
t_eq "lp_trips: vary(): self = 44 x its body" "$((44 * $(body lp_trips vary)))" "$(lf lp_trips vary self)"
t_eq "lp_trips: vary() loop entered from main's loop, 11 times" "edge $(ln lp_trips main) -> $(ln lp_trips vary) 11" \
	"$(grep "^edge .* -> $(ln lp_trips vary) " "$T_TMP/lp_trips.ld" | awk '{print $1, $2, $3, $4, $5}')"
t_eq "lp_trips: main's loop calls vary() 11 times" "call $(ln lp_trips main) -> vary 11" "$(grep '^call' "$T_TMP/lp_trips.ld" | grep -- '-> vary')"
t_eq "lp_trips: find(): return from inside the loop: 3:1,7:1,10:1" "3 20 3:1,7:1,10:1" \
	"$(lf lp_trips find entries) $(lf lp_trips find iterations) $(lf lp_trips find trips)"
t_eq "lp_trips: find(): 17 back branches (20 iterations - 3 entries)" 17 "$(tail_of lp_trips find | xargs -I{} grep "^tail $(ln lp_trips find) {}" "$T_TMP/lp_trips.ld" | awk '{print $4}')"
t_eq "lp_trips: brk(): break: trip count 8" "1 8:1" "$(lf lp_trips brk entries) $(lf lp_trips brk trips)"
t_eq "lp_trips: cont(): continue: trip count 20" "1 20:1" "$(lf lp_trips cont entries) $(lf lp_trips cont trips)"
t_eq "lp_trips: first1(): trip counts 1, 1, 2, 1, 3 (two before the loop ever iterated)" \
	"5 8 1:3,2:1,3:1 1 3" \
	"$(lf lp_trips first1 entries) $(lf lp_trips first1 iterations) $(lf lp_trips first1 trips) $(lf lp_trips first1 min) $(lf lp_trips first1 max)"
t_eq "lp_trips: function self = native single-stepping, every function" "" \
	"$(awk 'NR == FNR {n[$1] = $2; next} $1 == "func" && ($2 in n) && n[$2] != $3 {print $2, n[$2], $3}' "$T_TMP/lp_trips.ss" "$T_TMP/lp_trips.ld")"

# lp_calls.c: loops across calls; shared() from two loops; flat() charged to C.
A=$(ln lp_calls 'main+0x18'); SH=$(ln lp_calls shared); LF=$(ln lp_calls leaf)
B=$(grep "^call .* -> shared 3$" "$T_TMP/lp_calls.ld" | awk '{print $2}')
C=$(grep "^call .* -> flat 7$" "$T_TMP/lp_calls.ld" | awk '{print $2}')
t_ok "lp_calls: loop B calls shared() 3 times, loop C calls flat() 7 times" test -n "$B" -a -n "$C"
t_eq "lp_calls: leaf()'s loop: 5 entries of 4, entered from loop A" "5 4:5 edge $A -> $LF 5" \
	"$(lf lp_calls leaf entries) $(lf lp_calls leaf trips) $(grep "^edge .* -> $LF " "$T_TMP/lp_calls.ld" | awk '{print $1, $2, $3, $4, $5}')"
t_eq "lp_calls: shared()'s loop: 3 entries of 2 and 7 of 5" "10 2:3,5:7" "$(lf lp_calls shared entries) $(lf lp_calls shared trips)"
rs=$(body lp_calls shared)
t_eq "lp_calls: shared()'s loop entered 3 times from B with 3x2 bodies" "3 $((3 * 2 * rs))" \
	"$(grep "^edge $B -> $SH " "$T_TMP/lp_calls.ld" | awk '{print $5, $6}')"
t_eq "lp_calls: shared()'s loop entered 7 times from C with 7x5 bodies" "7 $((7 * 5 * rs))" \
	"$(grep "^edge $C -> $SH " "$T_TMP/lp_calls.ld" | awk '{print $5, $6}')"
# Outside its loop, each call of shared() runs the same instructions:
# sstep(shared) = 10 x rest + 41 iterations x body.
rest=$((($(ss lp_calls shared) - 41 * rs) / 10))
cs=$(grep "^loop $C " "$T_TMP/lp_calls.ld" | tr ' ' '\n' | sed -n 's/^self=//p')
ct=$(grep "^loop $C " "$T_TMP/lp_calls.ld" | tr ' ' '\n' | sed -n 's/^total=//p')
ch=$(grep "^loop $C " "$T_TMP/lp_calls.ld" | tr ' ' '\n' | sed -n 's/^head=//p')
ctail=$(grep "^tail $C " "$T_TMP/lp_calls.ld" | awk '{print $3}')
t_eq "lp_calls: C's self = 7 x its body + flat() (sstep) + shared() outside its loop" \
	"$((7 * $(range "$TD/lp_calls" "$ch" "$ctail") + $(ss lp_calls flat) + 7 * rest))" "$cs"
t_eq "lp_calls: C's total = its self + 7 x 5 bodies of shared()'s loop" "$((cs + 35 * rs))" "$ct"
t_eq "lp_calls: flat() has no loop-level instructions" "0" "$(awk '$1 == "func" && $2 == "flat" {print $5}' "$T_TMP/lp_calls.ld")"
t_eq "lp_calls: function self = native single-stepping, every function" "" \
	"$(awk 'NR == FNR {n[$1] = $2; next} $1 == "func" && ($2 in n) && n[$2] != $3 {print $2, n[$2], $3}' "$T_TMP/lp_calls.ss" "$T_TMP/lp_calls.ld")"

# lp_recur.c: recursion is no loop; loops in recursive functions are.
t_eq "lp_recur: no loop in fib(), even(), odd()" 0 "$(grep -c '^loop \(fib\|even\|odd\)+' "$T_TMP/lp_recur.ld")"
t_eq "lp_recur: rec(): 6 entries of 4, all top-level" "6 4:6 6" \
	"$(lf lp_recur rec entries) $(lf lp_recur rec trips) $(grep "^edge top -> $(ln lp_recur rec) " "$T_TMP/lp_recur.ld" | awk '{print $5}')"
R2=$(ln lp_recur rec2)
t_eq "lp_recur: rec2(): 15 entries of 2, 14 of them inside itself" "15 2:15 14 1" \
	"$(lf lp_recur rec2 entries) $(lf lp_recur rec2 trips) $(grep "^edge $R2 -> $R2 " "$T_TMP/lp_recur.ld" | awk '{print $5}') $(grep "^edge top -> $R2 " "$T_TMP/lp_recur.ld" | awk '{print $5}')"
t_eq "lp_recur: rec2()'s total counts its nested entries once (= self)" "$(lf lp_recur rec2 self)" "$(lf lp_recur rec2 total)"

# lp_jmp.c: longjmp out of a nest; then a loop of system calls.
O=$(grep '^loop run+' "$T_TMP/lp_jmp.ld" | grep 'trips=3:1' | awk '{print $2}')
I=$(grep '^loop run+' "$T_TMP/lp_jmp.ld" | grep 'entries=3 ' | awk '{print $2}')
t_ok "lp_jmp: outer loop trip count 3, inner loop 3 entries" test -n "$O" -a -n "$I"
t_eq "lp_jmp: inner trip counts 5, 5, 4" "4:1,5:2" "$(grep "^loop $I " "$T_TMP/lp_jmp.ld" | tr ' ' '\n' | sed -n 's/^trips=//p')"
t_eq "lp_jmp: the nest is top-level, the inner loop inside it" "edge top -> $O 1|edge $O -> $I 3" \
	"$(grep "^edge .* -> $O " "$T_TMP/lp_jmp.ld" | awk '{print $1, $2, $3, $4, $5}')|$(grep "^edge .* -> $I " "$T_TMP/lp_jmp.ld" | awk '{print $1, $2, $3, $4, $5}')"
t_eq "lp_jmp: main has one loop (the longjmp landing is no iteration)" 1 "$(grep -c '^loop main+' "$T_TMP/lp_jmp.ld")"
t_eq "lp_jmp: the system-call loop: 6 iterations, top-level" "6:1 edge top -> $(ln lp_jmp main) 1" \
	"$(lf lp_jmp main trips) $(grep "^edge .* -> $(ln lp_jmp main) " "$T_TMP/lp_jmp.ld" | awk '{print $1, $2, $3, $4, $5}')"
t_eq "lp_jmp: one unwind" 1 "$(awk '{for (i = 1; i < NF; i++) if ($i == "unwinds") print $(i + 1)}' "$T_TMP/lp_jmp.lderr")"

# lp_threads.c: the same loop in 4 threads.
W=$(ln lp_threads work)
t_eq "lp_threads: merged: 4 entries, 4000 iterations" "4 4000 1000:4" \
	"$(lf lp_threads work entries) $(lf lp_threads work iterations) $(lf lp_threads work trips)"
t_eq "lp_threads: per thread: 1 entry of 1000 in 4 threads" \
	"4" "$(grep "^tloop [0-9]* $W entries=1 iterations=1000$" "$T_TMP/lp_threads.ld" | awk '{print $2}' | sort -u | wc -l)"
t_eq "lp_threads: main creates and joins in loops of 4" "4:1 4:1" \
	"$(grep '^loop main+' "$T_TMP/lp_threads.ld" | tr ' ' '\n' | sed -n 's/^trips=//p' | paste -sd' ')"
t_eq "lp_threads: work()'s self = 4000 x its body" "$((4000 * $(body lp_threads work)))" "$(lf lp_threads work self)"

# Signals: a handler's frame ends where the interrupted code resumes.
t_eq "signals: the handler's loop: 8 entries of 10, inside main's loop" \
	"8 10:8 edge $(ln signals main) -> $(ln signals handler) 8" \
	"$(lf signals handler entries) $(lf signals handler trips) $(grep "^edge .* -> $(ln signals handler) " "$T_TMP/signals.ld" | awk '{print $1, $2, $3, $4, $5}')"
t_eq "signals: 8 handler frames ended by sigreturn" 8 "$(awk '{for (i = 1; i < NF; i++) if ($i == "unwinds") print $(i + 1)}' "$T_TMP/signals.lderr")"
t_eq "vg_sig: on_usr1's loop: 20 entries of 10 from main's raise loop" \
	"20 10:20 edge $(grep '^loop main+' "$T_TMP/vg_sig.ld" | grep 'trips=20:1' | awk '{print $2}') -> $(ln vg_sig on_usr1) 20" \
	"$(lf vg_sig on_usr1 entries) $(lf vg_sig on_usr1 trips) $(grep "^edge .* -> $(ln vg_sig on_usr1) " "$T_TMP/vg_sig.ld" | awk '{print $1, $2, $3, $4, $5}')"
t_eq "vg_sig: the spin loop the timer interrupts is entered once" 1 \
	"$(grep '^loop main+' "$T_TMP/vg_sig.ld" | grep -v 'trips=20:1' | tr ' ' '\n' | sed -n 's/^entries=//p')"
