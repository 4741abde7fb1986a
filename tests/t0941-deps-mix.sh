#!/bin/sh
# t0941-deps-mix: `loopscope deps` on testdata/deps/mix.c: accesses of
# different sizes matched by their bytes, and heap arrays.
#
# Every expected number is derived by hand from mix.c and its -O0 code
# (objdump -d build/testdata/deps/mix: in halves, `pu.h[0]` and
# `pu.h[1]` are 4-byte loads of pu and pu+4 on line 17, `pu.d = ...` one
# 8-byte movsd store to pu on line 18; i is a stack slot).  As in t0940, a
# for loop's entry runs its header trips + 1 times: iterations 1..4 run
# the bodies i = 0..3, iteration 5 only the failing test.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

"$LOOPSCOPE" record --mem -q -o mix.lsc -- "$TD/deps/mix" >/dev/null 2>&1
t_ok "deps runs on mix" "$LOOPSCOPE" deps --format=csv mix.lsc
cp "$T_TMP/last.out" mix.csv

# rows LINE VAR: "kind var src_line dst_line count dmin note", sorted.
rows() {
	awk -F, -v l="$1" -v v="$2" '$1 ~ /mix\.c$/ && $2 == l && $9 ~ v {
		print $8, $9, $13, $16, $17, $18, $20 }' mix.csv | sort
}
verdict() {
	awk -F, -v l="$1" '$1 ~ /mix\.c$/ && $2 == l { print $7; exit }' mix.csv
}
deciding() {
	awk -F, -v l="$1" '$1 ~ /mix\.c$/ && $2 == l && $21 == 1 {
		print $8, $9, $17, $18, $19 }' mix.csv | sort | tr '\n' ';'
}

# halves (loop line 16).  Iterations 2, 3, 4 read the two halves of the
# 8 bytes the previous iteration stored: the read of pu (bytes 0-3)
# overlaps that store at its own address, the read of pu+4 (bytes 4-7)
# only by its bytes: RAW 18 -> 17 on each, 3 times, distance 1.  The
# store overlaps both reads of the previous iteration: WAR 17 -> 18 from
# each of the two loads, 3 times; and the store before it: WAW 3.  With
# addresses as keys (before byte ranges) the RAW on pu+0x4 and the WAR
# from the pu+4 load were not found.  The heuristics group records by
# the variable at their target's address: pu's group holds all three
# kinds from one writing instruction not read by the test (a
# "reduction"); pu+0x4's RAW stands alone and decides the verdict.
cat >halves.exp <<'EOF2'
RAW pu 18 17 3 1 reduction
RAW pu+0x4 18 17 3 1 
WAR pu 17 18 3 1 reduction
WAR pu 17 18 3 1 reduction
WAW pu 18 18 3 1 reduction
EOF2
rows 16 '^pu' >halves.out
t_ok "halves: every dependence on pu, by overlapping bytes" cmp halves.exp halves.out
t_eq "halves: not parallelizable" not-parallelizable "$(verdict 16)"
t_eq "halves: decided by the RAW through the upper half alone" "RAW pu+0x4 3 1 1;" \
	"$(deciding 16)"

# heap2 (loop line 25): a[i] = a[i-1] + 1 for i = 1..7 reads in
# iterations 2..7 what the previous one wrote: RAW 26 -> 26, 6; b[i-1] =
# b[i] writes in iterations 2..7 what the previous one read: WAR 27 ->
# 27, 6.  Both arrays are heap blocks, named by the allocation the
# recorder saw return them: a from main's malloc on line 43, b from its
# calloc on line 44 (mix.c), several elements each ([]).
t_eq "heap2: not parallelizable, a's RAW 6 decides" "RAW heap@mix.c:43(main)[] 6 1 1;" \
	"$(deciding 25)"
t_eq "heap2: b's WAR, 6, named by the calloc" "WAR heap@mix.c:44(main)[] 27 27 6 1 " \
	"$(rows 25 '^heap@' | grep WAR)"
t_eq "heap2: both on the heap, no other heap dependence" "RAW
WAR" "$(awk -F, '$1 ~ /mix\.c$/ && $2 == 25 && $10 == "heap" { print $8 }' mix.csv | sort)"
# The allocations the recorder saw: main's malloc and calloc at least
# (the C library allocates too).
"$LOOPSCOPE" deps --format=json mix.lsc >mix.json 2>/dev/null
t_ok "allocation records counted apart from accesses" python3 -c '
import json, sys
sys.exit(json.load(open(sys.argv[1]))["allocs"] < 2)' mix.json

# sweep2 (loop line 37): wrap[i % 8] += 1 for i = 0..15 reads and writes
# wrap[k] in iterations k + 1 and k + 9: for each of the 8 elements one
# RAW, WAR and WAW at distance 8 (the distance histogram: all 8 at 8).
# With compaction, part of wrap's history is a run by iteration 9, so
# these distances come from the run's iteration steps.
cat >sweep2.exp <<'EOF2'
RAW wrap[] 38 38 8 8 
WAR wrap[] 38 38 8 8 
WAW wrap[] 38 38 8 8 
EOF2
rows 37 '^wrap' >sweep2.out
t_ok "sweep2: wrap's three kinds, 8 each at distance 8" cmp sweep2.exp sweep2.out
t_eq "sweep2: decided by wrap's RAW" "RAW wrap[] 8 8 8;" "$(deciding 37)"
t_eq "sweep2: RAW's distances" "0 0 0 0 0 0 0 0 8 0 0 0 0 0 0 0 0" "$("$LOOPSCOPE" deps \
	--format=json mix.lsc | python3 -c '
import json, sys
for l in json.load(sys.stdin)["loops"]:
    if l["file"].endswith("mix.c") and l["line"] == 37:
        for d in l["deps"]:
            if d["kind"] == "RAW" and d["var"] == "wrap[]": print(*d["distances"])')"

# History compaction (--compact): strided runs of table entries held as
# one range must not change a single result.  The reference is the
# uncompacted debug mode (--compact=0); --compact=4 compacts each table
# every 4 new entries, so runs form, split (an address of a run is
# touched again) and re-form all the time.  On each kernel run, text
# output and CSV are compared byte for byte, and the JSON's table
# statistics show that compaction did happen: with --compact=0 the
# tables' entries are their addresses (max_entries = max_addrs), with
# --compact=4 fewer (kern's 16-element arrays give runs of up to 14).
"$LOOPSCOPE" record --mem -q -o k0.lsc -- "$TD/deps/kern" >/dev/null 2>&1
"$LOOPSCOPE" record --mem -q -o k3.lsc -- "$TD/deps/kern" 3 >/dev/null 2>&1
maxes() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(d["max_addrs"], d["max_entries"])' "$1"
}
for f in k0 k3 mix; do
	"$LOOPSCOPE" deps --compact=0 --format=csv $f.lsc >$f.c0.csv 2>/dev/null
	"$LOOPSCOPE" deps --compact=4 --format=csv $f.lsc >$f.c4.csv 2>/dev/null
	"$LOOPSCOPE" deps --compact=0 $f.lsc >$f.c0.txt 2>/dev/null
	"$LOOPSCOPE" deps --compact=4 $f.lsc >$f.c4.txt 2>/dev/null
	t_ok "$f: dependences found (csv rows)" test "$(wc -l <$f.c0.csv)" -gt 20
	t_ok "$f: compacted csv = uncompacted csv" cmp $f.c0.csv $f.c4.csv
	t_ok "$f: compacted text = uncompacted text" cmp $f.c0.txt $f.c4.txt
	"$LOOPSCOPE" deps --compact=0 --format=json $f.lsc >$f.c0.json 2>/dev/null
	"$LOOPSCOPE" deps --compact=4 --format=json $f.lsc >$f.c4.json 2>/dev/null
	# ... and every dependence's distance histogram (JSON).
	grep -v max_entries $f.c0.json >$f.c0.j
	grep -v max_entries $f.c4.json >$f.c4.j
	t_ok "$f: compacted json = uncompacted json, distances included" cmp $f.c0.j $f.c4.j
	set -- $(maxes $f.c0.json) $(maxes $f.c4.json)
	t_eq "$f: uncompacted, one entry per address" "$1" "$2"
	t_ok "$f: compacted, fewer entries ($4) than addresses ($3)" test "$4" -lt "$3"
	t_eq "$f: the same addresses either way" "$1" "$3"
done
t_fail "bad --compact" "$LOOPSCOPE" deps --compact=-1 mix.lsc
t_grep "bad --compact: named, in the common wording" \
	"option '--compact' wants a number from 0 to 1000000000, not '-1'" "$T_TMP/last.err"
t_ok "--help names --compact" "$LOOPSCOPE" deps --help
t_grep "--help: --compact" "--compact=<n>" "$T_TMP/last.out"
