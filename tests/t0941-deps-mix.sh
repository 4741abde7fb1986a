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
# 27, 6.  Both arrays come from malloc/calloc: heap storage.
t_eq "heap2: not parallelizable, a's RAW 6 decides" "RAW heap[] 6 1 1;" \
	"$(deciding 25 | sed 's/ 0x[0-9a-f]*//')"
t_eq "heap2: b's WAR, 6" "WAR heap[] 27 27 6 1 " \
	"$(rows 25 '^heap[[]' | grep WAR | sed 's/ 0x[0-9a-f]*//')"
t_eq "heap2: both on the heap, no other heap dependence" "RAW
WAR" "$(awk -F, '$1 ~ /mix\.c$/ && $2 == 25 && $10 == "heap" { print $8 }' mix.csv | sort)"
