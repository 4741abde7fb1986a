#!/bin/sh
# t0940-deps: `loopscope deps`, loop-carried dependences and verdicts
# (Prospector, Kim et al.) of testdata/deps/kern.c recorded with --mem.
#
# Every expected number below is derived by hand from kern.c and its -O0
# code (objdump -d build/testdata/deps/kern: every scalar lives in its
# frame, `i++` is one `addl $1, mem`, a for loop's test is the block its
# init jumps to, so an entry runs the header trips + 1 times).  Counts
# follow Prospector 3.1: at each iteration end (each header execution,
# and the entry's end) one occurrence per address and instruction pair;
# a nested entry's history joins its parent's iteration at its end.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

"$LOOPSCOPE" record --mem -q -o k0.lsc -- "$TD/deps/kern" >/dev/null 2>&1
"$LOOPSCOPE" record --mem -q -o k3.lsc -- "$TD/deps/kern" 3 >/dev/null 2>&1
t_ok "deps runs on kern (input 0)" "$LOOPSCOPE" deps --format=csv k0.lsc
cp "$T_TMP/last.out" k0.csv
t_ok "deps runs on kern (input 3)" "$LOOPSCOPE" deps --format=csv k3.lsc
cp "$T_TMP/last.out" k3.csv

# rows F LINE: the dependences of kern.c's loop at LINE as
# "kind var src_line dst_line count dmin note", sorted.
rows() {
	awk -F, -v l="$2" '$1 ~ /kern\.c$/ && $2 == l && $8 != "" {
		print $8, $9, $13, $16, $17, $18, $20 }' "$1" | sort
}
# verdict F LINE
verdict() {
	awk -F, -v l="$2" '$1 ~ /kern\.c$/ && $2 == l { print $7; exit }' "$1"
}
# deciding F LINE: the deciding dependences as "kind var count dmin dtyp".
deciding() {
	awk -F, -v l="$2" '$1 ~ /kern\.c$/ && $2 == l && $21 == 1 {
		print $8, $9, $17, $18, $19 }' "$1" | sort | tr '\n' ';'
}

# Figure 4 / table 3b.  The outer loop (line 17; stack variables are
# named from DWARF, fig4:i being the slot whose DW_OP_fbreg is its offset
# from the frame's CFA): 3 iterations (i = 1, 2, then the failing test).
# i is written once per iteration by `++i` (17) after being read by the
# test (17), the ++i itself (17), and the inner loop's four address
# computations (19, 19, 20, 20): at the end of iteration 2 each read
# site gets one RAW from iteration 1's write and one WAR to iteration 2's
# write, and WAW once; at the end of iteration 3 the test reads i again:
# RAW to the test 2.  j is written by `j = 1` (18) before any read in
# each outer iteration: one carried WAW (iteration 2 vs 1), a temporary
# in the loop's frame.  B[i+1][j] read at i = 1 (B[2][1], B[2][2]) is
# written at i = 2: WAR count 2.  A: no address of A is both written and
# accessed in another outer iteration.
cat >fig4-outer.exp <<'EOF'
RAW fig4:i 17 17 1 1 IV
RAW fig4:i 17 17 2 1 IV
RAW fig4:i 17 19 1 1 IV
RAW fig4:i 17 19 1 1 IV
RAW fig4:i 17 20 1 1 IV
RAW fig4:i 17 20 1 1 IV
WAR B[] 20 20 2 1 
WAR fig4:i 17 17 1 1 IV
WAR fig4:i 17 17 1 1 IV
WAR fig4:i 19 17 1 1 IV
WAR fig4:i 19 17 1 1 IV
WAR fig4:i 20 17 1 1 IV
WAR fig4:i 20 17 1 1 IV
WAW fig4:i 17 17 1 1 IV
WAW fig4:j 18 18 1 1 temp
EOF
rows k0.csv 17 >fig4-outer.out
t_ok "table 3b, loop i (line 17): every dependence" cmp fig4-outer.exp fig4-outer.out
# The inner loop (line 18), entered twice with 3 header executions each:
# j has the same pattern per entry (reads: test 18, ++j 18, body 19, 19,
# 20, 20; write ++j 18) -> RAW/WAR/WAW 1 per entry at the end of
# iteration 2, plus the test's RAW at iteration 3: 2 per entry.  A[i][j]
# written at j = 1 is A[i][j-1] read at j = 2: RAW 1 per entry.
cat >fig4-inner.exp <<'EOF'
RAW A[] 19 19 2 1 
RAW fig4:j 18 18 2 1 IV
RAW fig4:j 18 18 4 1 IV
RAW fig4:j 18 19 2 1 IV
RAW fig4:j 18 19 2 1 IV
RAW fig4:j 18 20 2 1 IV
RAW fig4:j 18 20 2 1 IV
WAR fig4:j 18 18 2 1 IV
WAR fig4:j 18 18 2 1 IV
WAR fig4:j 19 18 2 1 IV
WAR fig4:j 19 18 2 1 IV
WAR fig4:j 20 18 2 1 IV
WAR fig4:j 20 18 2 1 IV
WAW fig4:j 18 18 2 1 IV
EOF
rows k0.csv 18 >fig4-inner.out
t_ok "table 3b, loop j (line 18): every dependence" cmp fig4-inner.exp fig4-inner.out
t_eq "fig4 outer: parallelizable after duplicating B" duplicate-array "$(verdict k0.csv 17)"
t_eq "fig4 outer: decided by B's WAR" "WAR B[] 2 1 1;" "$(deciding k0.csv 17)"
t_eq "fig4 inner: not parallelizable" not-parallelizable "$(verdict k0.csv 18)"
t_eq "fig4 inner: decided by A's RAW" "RAW A[] 2 1 1;" "$(deciding k0.csv 18)"

# ra[i] = ra[i-1] + x, i = 1..15: iterations 2..15 read what the previous
# one wrote: RAW 14 at distance 1.
t_eq "a[i] = a[i-1] + x: not parallelizable" not-parallelizable "$(verdict k0.csv 28)"
t_eq "a[i] = a[i-1] + x: RAW 14, distance 1" "RAW ra[] 14 1 1;" "$(deciding k0.csv 28)"
# wa[i] = wa[i+1], i = 0..14: iterations 2..15 write what the previous
# one read: WAR 14.
t_eq "a[i] = a[i+1]: duplicate the array" duplicate-array "$(verdict k0.csv 35)"
t_eq "a[i] = a[i+1]: WAR 14, distance 1" "WAR wa[] 14 1 1;" "$(deciding k0.csv 35)"
# s += ra[i], 16 body iterations: 15 of each kind on s (sum:s).
t_eq "sum: a reduction" reduction "$(verdict k0.csv 44)"
t_eq "sum: s's three kinds, 15 each" \
	"RAW sum:s 15 1 1;WAR sum:s 15 1 1;WAW sum:s 15 1 1;" \
	"$(deciding k0.csv 44)"
# Mandelbrot: z escapes for i = 1 (at j = 3), 2 (j = 1), 3..7 (j = 0):
# outside++ in 7 of the 8 iterations, the 2nd to the 8th: 6 of each kind.
t_eq "mandel outer: a (conditional) reduction" reduction "$(verdict k0.csv 55)"
t_eq "mandel outer: outside, 6 of each kind" \
	"RAW outside 6 1 1;WAR outside 6 1 1;WAW outside 6 1 1;" "$(deciding k0.csv 55)"
# The inner loop: z = z*z + c carried by body iterations 2.. of each
# entry: i = 0 and 1 run 4 (3 each), i = 2 runs 2 (1), the rest 1: 7.
# z is tested after its update in the iteration: not an accumulator.
t_eq "mandel inner: not parallelizable" not-parallelizable "$(verdict k0.csv 57)"
t_eq "mandel inner: z's RAW 7" "RAW mandel:z 7 1 1;" "$(deciding k0.csv 57)"
# LU through double **: k (line 70) carries M's updates to the next k;
# i (71) and j (73) touch other rows / columns per iteration.
t_eq "lu k: not parallelizable" not-parallelizable "$(verdict k0.csv 70)"
t_eq "lu i (double **): parallelizable" parallelizable "$(verdict k0.csv 71)"
t_eq "lu j: parallelizable" parallelizable "$(verdict k0.csv 73)"
# A global temporary: tmp_out written then read in each of 8 iterations:
# WAW 7, privatize.  A callee's local: private by itself.
t_eq "temporary outside: privatize" privatization "$(verdict k0.csv 83)"
t_eq "temporary outside: tmp_out's WAW 7" "WAW tmp_out 7 1 1;" "$(deciding k0.csv 83)"
t_eq "temporary inside (callee's frame): parallelizable" parallelizable \
	"$(verdict k0.csv 99)"
t_grep "temporary inside: its slot is the callee's stack" \
	"^[^,]*kern.c,99,.*,WAW,twice:t,stack,.*,91,.*,91,7,1,1,callee-stack,0$" k0.csv
# keep(i) 6 times writes the global last: WAW 5.
t_eq "calling a function writing a global: privatize" privatization \
	"$(verdict k0.csv 113)"
t_eq "calling a function writing a global: last's WAW 5" "WAW last 5 1 1;" \
	"$(deciding k0.csv 113)"
# p = p->next over 5 nodes: the test reads p 6 times, 5 after a write of
# the previous iteration; a plain store: no induction variable.
t_eq "linked list: not parallelizable" not-parallelizable "$(verdict k0.csv 125)"
t_grep "linked list: p's RAW to the test, 5" \
	"kern.c,125,.*,RAW,list:p,stack,.*,125,.*,125,5,1,1,,1" k0.csv
# Input dependent: key[i] = i (input 0) or i % 3: iterations i = 3..15
# read hist[i % 3] written at i - 3: RAW 13 at distance 3.
t_eq "input 0: histogram loop parallelizable" parallelizable "$(verdict k0.csv 137)"
t_eq "input 3: not parallelizable" not-parallelizable "$(verdict k3.csv 137)"
t_eq "input 3: hist's RAW 13 at distance 3" "RAW hist[] 13 3 3;" "$(deciding k3.csv 137)"
# split(fd, 8): loops in the frames of n = 8, 4, 2: 7 entries of 3 header
# executions; the halves are disjoint, i is each frame's own.
t_eq "recursive split: parallelizable" parallelizable "$(verdict k0.csv 150)"
t_eq "recursive split: 7 entries, 21 iterations" "7 21" \
	"$(awk -F, '$1 ~ /kern\.c$/ && $2 == 150 { print $5, $6; exit }' k0.csv)"

t_ok "deps --format=json" sh -c "'$LOOPSCOPE' deps --format=json k0.lsc >k0.json"
# The merge by instruction index: every recorded access's instruction
# address (the recorder's) is in the decoded block at its index, none
# falls outside the trace, none is damaged.
t_eq "every access placed at its instruction (mismatched, unplaced, damaged)" "0 0 0" \
	"$(python3 -c 'import json; d = json.load(open("k0.json"))
print(d["mismatched"], d["unplaced"], d["damaged"])')"

# Text and JSON carry the same.
t_ok "json parses" python3 -c 'import json; json.load(open("k0.json"))'
t_eq "json: fig4 outer's verdict" duplicate-array "$(python3 -c '
import json
for l in json.load(open("k0.json"))["loops"]:
    if l["file"].endswith("kern.c") and l["line"] == 17: print(l["verdict"])')"
"$LOOPSCOPE" deps k0.lsc >k0.txt 2>/dev/null
t_grep "text: the loop line" "^loop kern.c:17 in fig4 .*: duplicate-array" k0.txt
t_grep "text: the deciding WAR starred" "^  \* WAR B\[\]  *kern.c:20@0x[0-9a-f]* -> kern.c:20@" k0.txt

# No memory accesses: a clear error.
"$LOOPSCOPE" record -q -o nomem.lsc -- "$TD/deps/kern" >/dev/null 2>&1
t_fail "no memory accesses: fails" "$LOOPSCOPE" deps nomem.lsc
t_grep "no memory accesses: says so, with the fix" \
	"'nomem.lsc' holds no memory accesses: record it with 'loopscope record --mem'" \
	"$T_TMP/last.err"

# Damaged MEMACC: one byte of the first MEMACC section's payload flipped
# (its CRC no longer matches): the section is skipped and counted.
python3 - k0.lsc bad.lsc <<'EOF'
import struct, sys, zlib
b = bytearray(open(sys.argv[1], "rb").read())
i = 0
while True:
    i = b.find(b"LSCS", i)
    assert i >= 0, "no MEMACC section"
    h = b[i:i + 48]
    if len(h) == 48 and struct.unpack_from("<H", h, 4)[0] == 7 and \
       zlib.crc32(h[:44]) == struct.unpack_from("<I", h, 44)[0]:
        stored = struct.unpack_from("<Q", h, 24)[0]
        b[i + 48 + stored // 2] ^= 0x55
        break
    i += 4
open(sys.argv[2], "wb").write(b)
EOF
t_ok "damaged MEMACC: still succeeds" "$LOOPSCOPE" deps bad.lsc
t_grep "damaged MEMACC: counted in a warning" \
	"warning: 'bad.lsc': 1 damaged memory-access records skipped" "$T_TMP/last.err"

t_ok "--help" "$LOOPSCOPE" deps --help
t_grep "--help names --format" "--format=<f>" "$T_TMP/last.out"
t_fail "bad --format" "$LOOPSCOPE" deps --format=xml k0.lsc
t_grep "bad --format: named" "unknown format 'xml'" "$T_TMP/last.err"

# analyze --deps: the profile carries the verdicts; report shows them.
t_ok "analyze --deps" "$LOOPSCOPE" analyze --deps -q -o k0.lsprof k0.lsc
t_grep "the profile is version 7" "^loopscope-profile 7$" k0.lsprof
# fig4's outer loop's profile index, and its verdict record (needs: bit 3,
# duplicating an array, alone: i is an IV, j a temporary of its frame).
id17=$(awk -F'\t' '$1 == "loop" && $7 ~ /kern\.c$/ && $8 == 17 { print $2 }' k0.lsprof)
t_grep "the verdict record of fig4's outer loop" \
	"^verdict	$id17	duplicate-array	8$" k0.lsprof
t_grep "its deciding dependence: B's WAR, 2" \
	"^dep	$id17	WAR	1		B\[\]	0x[0-9a-f]*	.*kern.c	20	0x[0-9a-f]*	.*kern.c	20	2	1	1$" k0.lsprof
# The dependences read the graph the first decode built beside the
# detector: its own, or the one the graph records and structural loops
# share, threaded or not; the records are the same every way.
grep -E '^(verdict|dep)	' k0.lsprof >k0.deps
for o in "--jobs=1" "--structural" "--cfg"; do
	"$LOOPSCOPE" analyze --deps $o -q -o k0o.lsprof k0.lsc
	t_eq "analyze --deps $o: the same dependence records" "" \
		"$(grep -E '^(verdict|dep)	' k0o.lsprof | diff - k0.deps)"
done
t_grep "... and --cfg's graph records beside them" "^cblock	" k0o.lsprof
"$LOOPSCOPE" report --min-percent=0 k0.lsprof >flat.txt
t_grep "flat report: the verdict line" \
	"^  parallel: duplicate-array (WAR B\[\] kern.c:20 -> kern.c:20 x2)$" flat.txt
"$LOOPSCOPE" report --parallel --min-percent=0 k0.lsprof >par.txt
t_grep "report --parallel: fig4's loops" \
	"^  0\.[0-9][0-9]%  duplicate-array  *$id17  .*kern.c:17 in fig4$" par.txt
# Parallelizable in some way before the first not-parallelizable line.
t_eq "report --parallel: every parallelizable loop before the first not" "" \
	"$(awk '/^ *[0-9.]+%/ { if ($2 == "not-parallelizable") seen = 1;
		else if (seen) print }' par.txt)"
t_eq "report --format=json: the verdict field" duplicate-array "$("$LOOPSCOPE" report \
	--format=json k0.lsprof | python3 -c '
import json, sys
for l in json.load(sys.stdin)["loops"]:
    if l["file"].endswith("kern.c") and l["line"] == 17: print(l["verdict"])')"
"$LOOPSCOPE" report --format=csv k0.lsprof >csv.out
t_grep "report --format=csv: the verdict column" "^$id17,.*,duplicate-array$" csv.out
# Merged runs: input 0 and 3.  The histogram loop is not parallelizable in
# the merge (a dependence of one run holds) and its RAW keeps count 13.
"$LOOPSCOPE" analyze --deps -q -o k3.lsprof k3.lsc
t_ok "merge" "$LOOPSCOPE" merge -o m.lsprof k0.lsprof k3.lsprof
id137=$(awk -F'\t' '$1 == "loop" && $7 ~ /kern\.c$/ && $8 == 137 { print $2 }' m.lsprof)
t_grep "merge: input_dep's verdict is the graver" \
	"^verdict	$id137	not-parallelizable	" m.lsprof
t_grep "merge: hist's RAW, 13 (from the one run)" \
	"^dep	$id137	RAW	1		hist\[\]	.*	13	3	3$" m.lsprof
t_grep "merge: fig4's WAR summed over both runs, 4" \
	"^dep	$id17	WAR	1		B\[\]	.*	4	1	1$" m.lsprof
t_fail "analyze --deps of a bundle without accesses fails" \
	"$LOOPSCOPE" analyze --deps -q -o n.lsprof nomem.lsc
t_grep "... with the record hint" "record it with 'loopscope record --mem'" "$T_TMP/last.err"

# record --mem-only: the accesses of fig4 and raw1 alone.  Their loops
# touch no memory in callees, so their dependences are the same; war1's
# loop (35) then has none.
"$LOOPSCOPE" record --mem-only=fig4,raw1 -q -o ko.lsc -- "$TD/deps/kern" >/dev/null 2>&1
"$LOOPSCOPE" deps --format=csv ko.lsc >ko.csv 2>/dev/null
rows ko.csv 17 >fig4-only.out
t_ok "--mem-only=fig4,raw1: table 3b's loop i unchanged" cmp fig4-outer.exp fig4-only.out
t_eq "--mem-only=fig4,raw1: raw1's RAW unchanged" "RAW ra[] 14 1 1;" "$(deciding ko.csv 28)"
t_eq "--mem-only=fig4,raw1: war1's loop has no dependence" "" "$(rows ko.csv 35)"
acc() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["accesses"])' "$1"; }
"$LOOPSCOPE" deps --format=json ko.lsc >ko.json 2>/dev/null
t_ok "--mem-only=fig4,raw1: fewer accesses than --mem" \
	test "$(acc ko.json)" -lt "$(acc k0.json)"
t_fail "--mem-only with a space is refused" "$LOOPSCOPE" record --mem-only="a b" -o x.lsc -- true

# Signals (testdata/vg_sig.c): 20 handlers run from raise() before the
# spin loop (line 51), one from the interval timer during it.  A handler
# is a frame of its own: the loop keeps one entry across the timer's
# handler, whose ticks++ (line 24) the loop's test then reads: RAW,
# exactly once.  main's frame survives the handlers: spin is named.
"$LOOPSCOPE" record --mem -q -o sig.lsc -- "$TD/vg_sig" >/dev/null 2>&1
"$LOOPSCOPE" deps --format=csv sig.lsc >sig.csv 2>/dev/null
t_eq "signals: the spin loop, one entry" 1 \
	"$(awk -F, '$1 ~ /vg_sig\.c$/ && $2 == 51 { print $5; exit }' sig.csv)"
t_grep "signals: the handler's ticks++ reaches the loop's test once" \
	"vg_sig.c,51,.*,RAW,ticks,global,.*,24,.*,51,1,1,1,,1$" sig.csv
t_grep "signals: main's spin named through the handlers" \
	"vg_sig.c,51,.*,RAW,main:spin,stack," sig.csv

# Stripped, its DWARF in a separate debug file found through --debug-dir
# (DEBUG_DIR/.build-id/xx/rest.debug): the same run as kern's own, so
# the same rows of kern.c: stack slots named from the debug file's DWARF
# (fig4:i), not as CFA offsets, globals from its .symtab (tmp_out), not as
# heap.
if command -v objcopy >/dev/null && command -v strip >/dev/null; then
	id=$(readelf -n "$TD/deps/kern" | sed -n 's/.*Build ID: //p')
	mkdir -p "dbg/.build-id/$(echo "$id" | cut -c1-2)"
	objcopy --only-keep-debug "$TD/deps/kern" "dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
	strip --strip-all -o kern.stripped "$TD/deps/kern"
	"$LOOPSCOPE" record --mem -q -o ks.lsc -- ./kern.stripped >/dev/null 2>&1
	"$LOOPSCOPE" deps --format=csv --debug-dir=dbg ks.lsc 2>/dev/null >ks.csv
	# kern.c's loops and accesses, without the percent of the run (ld.so
	# runs a little longer for the longer path)
	own() { awk -F, -v OFS=, '$1 ~ /kern\.c$/ && $12 ~ /kern\.c$/ && $15 ~ /kern\.c$/ {
		$4 = ""; print }' "$1"; }
	own k0.csv >k0.own
	own ks.csv >ks.own
	t_eq "stripped, --debug-dir: fig4's loop i as kern's own" "$(rows k0.csv 17)" "$(rows ks.csv 17)"
	t_ok "stripped, --debug-dir: every row of kern.c as kern's own" cmp k0.own ks.own
	t_grep "stripped, --debug-dir: stack slots named (fig4:i)" ",RAW,fig4:i,stack," ks.csv
	t_grep "stripped, --debug-dir: globals named from its .symtab (tmp_out)" \
		",WAW,tmp_out,global," ks.csv
fi
