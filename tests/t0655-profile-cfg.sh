#!/bin/sh
# t0655-profile-cfg.sh - `analyze --cfg` puts the executed control-flow
# graph into the profile (format version 5: cblock, cedge records,
# formats/profile.md) in the same decode as the loop records, and `merge`
# sums them: two runs give twice the counts, and the shards of a bundle of
# several threads merge to the bytes of the whole bundle's profile.
# Where the numbers come from:
#  - gotonest 10 5 11 (testdata/gotonest.c's header comment): its block H
#    runs N = 10 * 5 * 11 = 550 times, entered once by falling into it;
#    its back edges X (H to itself), Y and Z are taken (KX - 1) * KY * KZ
#    = 495, (KY - 1) * KZ = 44 and KZ - 1 = 10 times;
#  - H's instructions: objdump's listing of the block's offsets;
#  - flow conservation (analysis/cfg.h): at every block, the inflow of
#    the edges that carry flow equals its count equals their outflow.
. "$LSTOP/tests/lib.sh"

TD=$BUILD/testdata

t_need_recorder
cd "$T_TMP" || exit 1

# Blocks where inflow, count and outflow differ; prints their number.
cat >flow.awk <<'EOF'
BEGIN { FS = "\t" }
$1 == "cblock" { c[$2 " " $3] = $8 }
$1 == "cedge" && ($6 == "in" || $6 == "out" || ($6 != "call" && $6 != "ret" && $8 == 0)) && $9 > 0 {
	if ($2 != "-") out[$2 " " $3] += $9
	if ($4 != "-") in_[$4 " " $5] += $9
}
END { for (b in c) if (in_[b] != c[b] || out[b] != c[b]) n++; print n + 0 }
EOF

for a in "gotonest 10 5 11" "lp_threads" "vg_sig"; do
	n=${a%% *}
	# shellcheck disable=SC2086
	"$LOOPSCOPE" record -q -o "$n.lsc" -- "$TD/"$a >/dev/null 2>&1 </dev/null
	t_ok "$n: analyze --cfg" "$LOOPSCOPE" analyze -q --cfg -o "$n.lsprof" "$n.lsc"
	"$LOOPSCOPE" analyze -q -o "$n.plain.lsprof" "$n.lsc"
	t_ok "$n: it has blocks and edges" sh -c "grep -q '^cblock	' $n.lsprof && grep -q '^cedge	' $n.lsprof"
	t_eq "$n: flow is conserved at every block" 0 "$(awk -f flow.awk "$n.lsprof")"
	grep -v '^c\(graph\|func\|block\|edge\)	\|^end	' "$n.lsprof" >"$n.rows"
	grep -v '^end	' "$n.plain.lsprof" >"$n.plain.rows"
	t_ok "$n: the loop records are plain analyze's" cmp "$n.rows" "$n.plain.rows"
	# the header line names the file: one name for both
	mkdir -p c p && cp "$n.lsprof" "c/$n.lsprof" && cp "$n.plain.lsprof" "p/$n.lsprof"
	(cd c && "$LOOPSCOPE" report "$n.lsprof" >"../$n.r.txt" 2>/dev/null)
	(cd p && "$LOOPSCOPE" report "$n.lsprof" >"../$n.rp.txt" 2>/dev/null)
	t_grep "$n: ... a report" "^Flat loop profile of $n.lsprof: [1-9]" "$n.r.txt"
	t_ok "$n: report reads it as the plain profile" cmp "$n.r.txt" "$n.rp.txt"
done
t_grep "the format version is 7" "^loopscope-profile 7$" gotonest.lsprof
t_ok "plain analyze records no graph" sh -c "! grep -q '^c\(block\|edge\)	' gotonest.plain.lsprof"

# gotonest's H: the head of nest's loop, in the program's module (modules
# are numbered in build-id order, and the build id follows the build's path).
m=$(awk -F'\t' '$1 == "module" && $4 ~ /\/gotonest$/ { print $2 }' gotonest.lsprof)
f=$(awk -F'\t' '$1 == "func" && $6 == "nest" { print $2 }' gotonest.lsprof)
h=$(awk -F'\t' -v f="$f" '$1 == "loop" && $6 == f { print $4 }' gotonest.lsprof)
t_eq "gotonest: H runs 550 times (cblock count)" 550 \
	"$(awk -F'\t' -v h="$h" -v m="$m" '$1 == "cblock" && $2 == m && $3 == h { print $8 }' gotonest.lsprof)"
t_eq "gotonest: edges into H (kind count): entry, Z, Y, X" "fall 1|taken 10|taken 44|taken 495" \
	"$(awk -F'\t' -v h="$h" -v m="$m" '$1 == "cedge" && $4 == m && $5 == h { print $6, $9 }' gotonest.lsprof |
	   sort -k2n | paste -sd'|')"
t_eq "gotonest: X is H's own back edge" 495 \
	"$(awk -F'\t' -v h="$h" -v m="$m" '$1 == "cedge" && $2 == m && $3 == h && $4 == m && $5 == h { print $9 }' gotonest.lsprof)"
if command -v objdump >/dev/null; then
	end=$(awk -F'\t' -v h="$h" -v m="$m" '$1 == "cblock" && $2 == m && $3 == h { print $4 }' gotonest.lsprof)
	t_eq "gotonest: H's instructions (ninsn) are objdump's between its offsets" \
		"$(objdump -d --start-address="$h" --stop-address="$end" "$TD/gotonest" |
		   grep -c '^ *[0-9a-f]*:	')" \
		"$(awk -F'\t' -v h="$h" -v m="$m" '$1 == "cblock" && $2 == m && $3 == h { print $6 }' gotonest.lsprof)"
fi

# Two runs of gotonest merge by summing: H 1100 times, X 990.
"$LOOPSCOPE" record -q -o gotonest2.lsc -- "$TD/gotonest" 10 5 11 >/dev/null 2>&1 </dev/null
"$LOOPSCOPE" analyze -q --cfg -o gotonest2.lsprof gotonest2.lsc
t_ok "merge of two runs" "$LOOPSCOPE" merge -o sum.lsprof gotonest.lsprof gotonest2.lsprof
t_eq "... H runs 1100 times" 1100 \
	"$(awk -F'\t' -v h="$h" -v m="$m" '$1 == "cblock" && $2 == m && $3 == h { print $8 }' sum.lsprof)"
t_eq "... X is taken 990 times" 990 \
	"$(awk -F'\t' -v h="$h" -v m="$m" '$1 == "cedge" && $2 == m && $3 == h && $4 == m && $5 == h { print $9 }' sum.lsprof)"
t_eq "... flow is conserved at every block" 0 "$(awk -f flow.awk sum.lsprof)"

# Shards of a bundle of several threads merge to the whole one's bytes.
"$LOOPSCOPE" analyze -q --cfg --shard=0/2 -o s0.lsprof lp_threads.lsc
"$LOOPSCOPE" analyze -q --cfg --shard=1/2 -o s1.lsprof lp_threads.lsc
t_ok "lp_threads: each shard has blocks" sh -c "grep -q '^cblock	' s0.lsprof && grep -q '^cblock	' s1.lsprof"
"$LOOPSCOPE" merge -o s10.lsprof s1.lsprof s0.lsprof 2>/dev/null
t_ok "lp_threads: merge of the shards = the whole bundle's profile" cmp s10.lsprof lp_threads.lsprof

# --structural and --cfg share one graph: the same records as each alone.
"$LOOPSCOPE" analyze -q --structural -o st.lsprof gotonest.lsc
t_ok "--structural --cfg" "$LOOPSCOPE" analyze -q --structural --cfg -o both.lsprof gotonest.lsc
grep '^c\(graph\|func\|block\|edge\)	' gotonest.lsprof >cfg.rows
grep -v '^end	' st.lsprof >st.rows
t_ok "... its graph records are --cfg's" sh -c "grep '^c\(graph\|func\|block\|edge\)	' both.lsprof | cmp - cfg.rows"
t_ok "... its other records are --structural's" \
	sh -c "grep -v '^c\(graph\|func\|block\|edge\)	\|^end	' both.lsprof | cmp - st.rows"

# An input without the graph: the merge has none, and says so.
"$LOOPSCOPE" merge -o mixed.lsprof gotonest.lsprof gotonest2.lsc 2>mixed.err
t_ok "a merge with an input without the graph has none" sh -c "! grep -q '^c\(block\|edge\)	' mixed.lsprof"
t_grep "... and warns" "warning: the control-flow graph (analyze --cfg) is dropped: not every input has it" mixed.err

# Runs that split H at another head (gotonest2's H made two blocks, by
# hand): their graphs are no sum of rows, so the merge has none and says why.
awk -F'\t' -v OFS='\t' -v h="$h" -v m="$m" '$1 == "cblock" && $2 == m && $3 == h {
	print $1, $2, $3, "0x1150", $3, 3, $7, $8, $9, $10
	print $1, $2, "0x1150", $4, $5, $6 - 3, $7, $8, $9, $10; next }
	$1 == "end" { print "end", $2 + 1; next } { print }' gotonest2.lsprof >split.lsprof
t_ok "a run split otherwise reads" "$LOOPSCOPE" report split.lsprof
"$LOOPSCOPE" merge -o msplit.lsprof gotonest.lsprof split.lsprof 2>msplit.err
t_ok "... merges without the graph" sh -c "! grep -q '^c\(block\|edge\)	' msplit.lsprof && grep -q '^loop	' msplit.lsprof"
t_grep "... and warns why" "dropped: the inputs split the code into blocks at other heads" msplit.err

# Damaged records are rejected naming the line.
bad() {	# bad NAME SED-SCRIPT PATTERN: gotonest.lsprof edited, then read
	sed "$2" gotonest.lsprof >"$1"
	t_fail "$1: rejected" "$LOOPSCOPE" report "$1"
	t_grep "$1: message" "$3" last.err
}
b=$(grep -n '^cblock	' gotonest.lsprof | sed -n 2p | cut -d: -f1)
e=$(grep -n '^cedge	[0-9].*	0	[1-9][0-9]*$' gotonest.lsprof | sed -n 1p | cut -d: -f1)
bad order.lsprof "${b}s/^cblock	0	0x[0-9a-f]*	/cblock	0	0x0	/" \
	"^loopscope: order.lsprof:$b: cblock out of order or overlapping '0x0'$"
bad end.lsprof "${b}s/^\(cblock	0	\(0x[0-9a-f]*\)	\)0x[0-9a-f]*	/\1\2	/" \
	"^loopscope: end.lsprof:$b: block end not after its start '0x[0-9a-f]*'$"
bad kind.lsprof "${e}s/	\(fall\|taken\|nottaken\|jump\|ijump\|callret\|call\|ret\|out\)	/	leap	/" \
	"^loopscope: kind.lsprof:$e: unknown edge kind 'leap'$"
bad noblock.lsprof "${e}s/^cedge	0	0x[0-9a-f]*	/cedge	0	0x1	/" \
	"^loopscope: noblock.lsprof:$e: edge end is no block '0x1'$"
bad zero.lsprof "${e}s/	[0-9]*\$/	0/" "^loopscope: zero.lsprof:$e: bad count '0'$"
bad v4.lsprof '1s/ 7$/ 4/' "^loopscope: v4.lsprof:[0-9]*: unknown record 'cgraph'$"
# the records version 5 gained for the views (cgraph, cfunc, last, the
# unreached ways)
g=$(grep -n '^cgraph	' gotonest.lsprof | cut -d: -f1)
u=$(grep -n '^cedge	.*	2	0$' gotonest.lsprof | sed -n 1p | cut -d: -f1)
bad last.lsprof "${b}s/^\(cblock	0	0x[0-9a-f]*	\(0x[0-9a-f]*\)	\)0x[0-9a-f]*	/\1\2	/" \
	"^loopscope: last.lsprof:$b: last instruction outside its block '0x[0-9a-f]*'$"
bad nocgraph.lsprof "${g}d" "^loopscope: nocgraph.lsprof:$g: graph record before cgraph 'cfunc'$"
bad twice.lsprof "${g}p" "^loopscope: twice.lsprof:$((g + 1)): cgraph repeated$"
bad taken.lsprof "${u}s/	0\$/	1/" "^loopscope: taken.lsprof:$u: bad count '1'$"
