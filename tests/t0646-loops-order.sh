#!/bin/sh
# t0646-loops-order: a loop's rows do not depend on the order in which its
# entries come.  analyze makes two passes (struct lsa_know in
# analysis/loops.h): the first learns each thread's loop heads and bodies,
# the second profiles knowing them from the thread's first block.  In one
# pass, testdata/lp_order with an argument (its outer loop making one trip
# before any entry goes back to its head) had that entry's inner loop at
# the top level and its instructions outside the outer loop.
#
# Expected numbers: the hand count in testdata/lp_order.c (outer: 2
# entries of trip counts 1 and 3, 4 iterations; inner: 4 entries of 50;
# every inner entry under outer); outer total = outer self + inner total,
# and the other order's rows, are independent of the detector's counting.
. "$LSTOP/tests/lib.sh"
TD=$BUILD/testdata
LD=$BUILD/tests/loopdump
cd "$T_TMP" || exit 1
t_need_recorder

for o in 1 0; do
	if [ $o = 1 ]; then
		"$LOOPSCOPE" record -q -o o$o.lsc -- "$TD/lp_order" x >/dev/null 2>&1
	else
		"$LOOPSCOPE" record -q -o o$o.lsc -- "$TD/lp_order" >/dev/null 2>&1
	fi
	"$LD" o$o.lsc lp_order >o$o.ld 2>o$o.st
	grep -E '^(loop|edge|tloop|tail) .*work' o$o.ld | sort >o$o.rows
done
# the loops: outer heads the lower address of work's two
OUT=$(awk '$1 == "loop" && $2 ~ /^work\+/ {print $3, $2}' o1.ld | sort | head -1 | cut -d' ' -f2)
IN=$(awk '$1 == "loop" && $2 ~ /^work\+/ {print $3, $2}' o1.ld | sort | tail -1 | cut -d' ' -f2)
row() { grep "^loop $2 " "$1" | tr ' ' '\n' | grep -E "^($3)=" | paste -sd' '; }
for o in 1 0; do
	w="lp_order (three trips first)"
	[ $o = 1 ] && w="lp_order (one trip first)"
	t_eq "$w: outer loop, 2 entries of trip counts 1 and 3, 4 iterations" \
		"entries=2 iterations=4 trips=1:1,3:1" "$(row o$o.ld "$OUT" 'entries|iterations|trips')"
	t_eq "... inner loop, 4 entries of 50" "entries=4 iterations=200 trips=50:4" \
		"$(row o$o.ld "$IN" 'entries|iterations|trips')"
	t_eq "... every inner entry under outer" "4" \
		"$(awk -v a="$OUT" -v b="$IN" '$1 == "edge" && $2 == a && $4 == b {print $5}' o$o.ld)"
	t_eq "... none at the top level" "" \
		"$(awk -v b="$IN" '$1 == "edge" && $2 == "top" && $4 == b' o$o.ld)"
	os=$(row o$o.ld "$OUT" self | cut -d= -f2)
	ot=$(row o$o.ld "$OUT" total | cut -d= -f2)
	is=$(row o$o.ld "$IN" self | cut -d= -f2)
	it=$(row o$o.ld "$IN" total | cut -d= -f2)
	t_eq "... outer total = outer self + inner total" "$ot" "$((os + it))"
	t_eq "... the inner loop's self is its total" "$it" "$is"
	t_grep "... the second pass knew every loop and body block" " know_new 0 " o$o.st
	LOOPSCOPE_REFERENCE=1 "$LOOPSCOPE" analyze -q -o r$o.lsprof o$o.lsc
	"$LOOPSCOPE" analyze -q -j1 -o f$o.lsprof o$o.lsc
	t_ok "... the fast path's profile is the reference's" cmp r$o.lsprof f$o.lsprof
done
t_ok "lp_order: both orders give work's loops the same rows" cmp o1.rows o0.rows
t_eq "... (and there are rows)" 8 "$(wc -l <o1.rows)"
