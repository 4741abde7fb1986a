#!/bin/sh
# t0630-loop-labels: each loop is labelled with its own source line, at
# -O2 as at -O0 (issue: at -O2 gcc rotates loops, and the head block
# starts at the body's first statement, often the inner loop's header).
#
# testdata/o2/labels.c, built -O2 (labels) and -O0 (labels_O0): nine
# loops (for, while, do-while; nests of two and three; one in an
# always_inline function; one whose body calls a function with a loop).
# The expected line of each loop is found in the source by its marker
# comment (/* L:name */, on the for/while line; a do-while's on its
# `} while (...)` line, the only line compilers give its test), not
# written here.  The loops are told apart by their trip counts, derived by
# hand in the source's header comment: f2_outer 7, f2_inner 11, f3_i 3,
# f3_j 5, f3_k 13, g 17, f4 19, f5 23, work 29.  At -O0 gcc tests at the
# top: the head (the test) runs once more per entry, so every trip count
# but the do-while's is one more.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
SRC=$LSTOP/testdata/o2/labels.c
TD=$TESTDATA/o2

t_need_recorder

marker() {	# marker NAME: the line of /* L:NAME */ in the source
	grep -n "/\* L:$1 \*/" "$SRC" | cut -d: -f1
}

check() {	# check BUILD PLUS: every loop's label by its trip count
	b=$1 plus=$2
	"$LOOPSCOPE" record -q -o "$b.lsc" -- "$TD/$b" >/dev/null 2>&1
	"$LOOPSCOPE" analyze -q -o "$b.lsprof" "$b.lsc"
	t_eq "$b: analyzed" 0 $?
	# id,module,head,function,file,line,head_file,head_line,first_line,
	# last_line,inlined_from,depth,entries,iterations,...,trip_min,trip_max,...
	"$LOOPSCOPE" report --format=csv --min-percent=0 "$b.lsprof" |
		awk -F, '$5 ~ /labels\.c$/ { print $19, $6, $8, $9, $10, $11 }' |
		sort -n >"$b.rows"
	t_eq "$b: nine loops in labels.c" 9 "$(wc -l <"$b.rows")"
	for lt in f2_outer:7 f2_inner:11 f3_i:3 f3_j:5 f3_k:13 g:17 f4:19 f5:23 work:29; do
		name=${lt%:*} trips=${lt#*:}
		[ "$name" != f3_k ] && trips=$((trips + plus))
		t_eq "$b: loop $name ($trips trips) is labelled with its line" \
			"$(marker "$name")" \
			"$(awk -v t="$trips" '$1 == t { print $2 }' "$b.rows")"
	done
	t_eq "$b: no two loops share a label" 9 \
		"$(awk '{ print $2 }' "$b.rows" | sort -u | wc -l)"
}

check labels 0
check labels_O0 1

# The lines each loop's own code spans at -O2, by hand from the source:
# from its header to its last statement; a do-while's from its first
# statement to its while; f4's loop holds only g, inlined (g's lines are
# g's loop's), so just its for line; g's loop says it sits in g.
for lt in f2_outer:7:22-25 f2_inner:11:24-25 f3_k:13:38-40 g:17:50-51 f4:19:58-58 \
	  work:29:66-67 f5:23:74-75; do
	name=${lt%%:*} rest=${lt#*:}
	trips=${rest%%:*} range=${rest#*:}
	t_eq "labels: loop $name spans lines $range" "$range" \
		"$(awk -v t="$trips" '$1 == t { print $4 "-" $5 }' labels.rows)"
done
t_eq "labels: g's loop is inlined from g, the others from nothing" "g" \
	"$(awk '$6 != "" { print $6 }' labels.rows)"

# The head's line is kept beside the label: at -O2 it is another line for
# most loops (what the label was before; the test above fails with it).
t_ok "labels: head lines differ from the labels at -O2" \
	test "$(awk '$2 != $3' labels.rows | wc -l)" -ge 5
"$LOOPSCOPE" report --format=json --min-percent=0 labels.lsprof >l.json
t_grep "JSON names the head's line" '"head_line": ' l.json

# A version 1 profile (no head fields: its line was the head's) still
# reads, with the head's line as the label.
# (Version 3's part record goes, and the end record's count with it; its
# tail records lose their labels.)
awk -F '\t' -v OFS='\t' 'NR == 1 { print "loopscope-profile 1"; next }
	$1 == "part" { dropped++; next }
	$1 == "tail" { print $1, $2, $3, $4, $5, $6; next }
	$1 == "end" { print $1, $2 - dropped; next }
	$1 == "loop" { print $1, $2, $3, $4, $5, $6, $9, $10; next } { print }' \
	labels.lsprof >v1.lsprof
"$LOOPSCOPE" report --format=csv --min-percent=0 v1.lsprof >v1.csv
t_eq "a version 1 profile reads" 0 $?
t_eq "its labels are the head lines" \
	"$(awk '{ print $3 }' labels.rows | sort -n | tr '\n' ' ')" \
	"$(awk -F, '$5 ~ /labels\.c$/ { print $6 }' v1.csv | sort -n | tr '\n' ' ')"

# Source paths (DW_AT_comp_dir): absolute in JSON; in text, relative to
# the current directory when under it, else absolute.
src=$(readlink -f "$SRC")
t_eq "JSON: the loop's file is the absolute source path" "$src" "$(python3 -c '
import json
for l in json.load(open("l.json"))["loops"]:
    if l["file"].endswith("labels.c"):
        print(l["file"]); break')"
"$LOOPSCOPE" report --min-percent=0 labels.lsprof >abs.txt
t_grep "text, outside the source tree: absolute" "^Loop [0-9]* at 0x[0-9a-f]* ($src:" abs.txt
(cd "$(dirname "$src")" && "$LOOPSCOPE" report --min-percent=0 "$T_TMP/labels.lsprof") >rel.txt
t_grep "text, beside the source: relative" "^Loop [0-9]* at 0x[0-9a-f]* (labels.c:" rel.txt

# --function=NAME finds a function inlined into others: its loops are in
# theirs (g, always_inline, lives in f4).
"$LOOPSCOPE" report --function=g labels.lsprof >g.txt
t_eq "--function=g: found though g was inlined" 0 $?
t_grep "--function=g: says where g went" "^g is inlined into f4: its loops are in f4's code$" g.txt
gid=$("$LOOPSCOPE" report --format=csv --min-percent=0 labels.lsprof | awk -F, '$11 == "g" { print $1 }')
t_grep "--function=g: lists g's loop ($gid)" "^$gid  *0x" g.txt
