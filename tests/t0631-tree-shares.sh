#!/bin/sh
# t0631-tree-shares: under each parent, `report --tree` and `graph` show
# what a child loop ran while entered from that parent, never the child's
# whole total (which made a callee's loop look bigger than its caller).
#
# testdata/lp_calls.c (hand count in its header): shared()'s loop is
# entered 3 times from main's loop B, with 2 iterations each, and 7 times
# from loop C, with 5 each.  Its body is the instructions from the loop's
# head (the target of its back jump) to that jump, counted here in
# objdump's listing of shared(), not by loopscope: per parent, the loop
# runs entries x iterations x that many instructions.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$TESTDATA

t_need_recorder

# shared()'s loop body: from the jne's target to the jne.
body=$(objdump -d --no-show-raw-insn "$TD/lp_calls" | awk '
	/<shared>:/ { on = 1; next }
	on && /^$/ { exit }
	on { addr = $1; sub(/:$/, "", addr); a[n] = addr; m[n] = $2; tg[n] = $3; n++ }
	END { for (i = 0; i < n; i++) if (m[i] == "jne") { j = i; t = tg[i] }
	      for (i = 0; i < n; i++) if (a[i] == t) s = i
	      print j - s + 1 }')
t_eq "shared()'s loop body: 6 instructions in objdump's listing" 6 "$body"

"$LOOPSCOPE" record -q -o c.lsc -- "$TD/lp_calls" >/dev/null 2>&1
"$LOOPSCOPE" analyze -q -o c.lsprof c.lsc
"$LOOPSCOPE" report --tree --min-percent=0 c.lsprof >tree.txt
t_eq "report --tree" 0 $?
total=$(sed -n 's/^Loop call graph of .*: \([0-9]*\) instructions;.*/\1/p' tree.txt)
line=$(grep -n 'for (int i = 0; i < n; i++)' "$LSTOP/testdata/lp_calls.c" | sed -n 2p | cut -d: -f1)
for pe in "3 2" "7 5"; do
	set -- $pe
	want=$(awk -v n=$(( $1 * $2 * body )) -v t="$total" 'BEGIN { printf "%.2f", 100 * n / t }')
	t_grep "under the parent that entered it $1 times: $1 x $2 x $body instructions ($want%)" \
		"^ *$want%  loop [0-9]*  shared  .*lp_calls.c:$line  \[$1 entries\]" tree.txt
done
# No child above its parent, anywhere in the tree (below a loop entered
# from several parents the shares are estimates, "~", scaled to the part
# run from this one).
t_eq "no loop shows more than its parent" "" "$(awk '
	/^ *[0-9.]+%  loop / {
		# 2 x depth spaces, then the share in 6 columns and "%"
		d = index($0, "%") - 7; p = substr($0, d + 1, 6); sub(/~/, "", p); p += 0
		pct[d] = p; if (d > 2 && pct[d] > pct[d - 2] + 0.005) print
	}' tree.txt)"
"$LOOPSCOPE" graph --min-percent=0 c.lsprof >g.dot
t_grep "graph: each edge carries the share run from that parent" \
	"label=\"7\\\\n$(awk -v n=$((7 * 5 * body)) -v t="$total" 'BEGIN { printf "%.2f", 100 * n / t }')%\"" g.dot
