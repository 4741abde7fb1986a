#!/bin/sh
# t0207-lackey-oracle.sh - the whole program, instruction by instruction:
# every instruction of the main executable, ld.so, libc and Valgrind's
# preload ran as many times in our decode as Valgrind's lackey counts.
#
# t0200 compares the main executable with a native run; ld.so and libc
# run other paths under Valgrind's CPU model, so for them the oracle is
# another Valgrind tool on the same model: lackey --trace-mem=yes prints
# an "I ADDRESS,SIZE" line for every instruction it executes.  Both runs
# get the same environment (env -i, with VALGRIND_LIB pointing both at
# build/vglib, which loopscope record sets), so ld.so sees the same
# variables and the same LD_PRELOAD, and Valgrind places every object at
# the same address.  --vex-guest-chase=no: with chasing, VEX may build a
# superblock through both arms of a conditional branch, and lackey's
# per-instruction counters then count the arm that did not run too (on
# testdata/calls 544 instructions, all in ld.so cmp/jcc pairs, by
# bench/oracle.sh; the last check below shows this comparison sees them).  Rep-prefixed string instructions are
# the one expected difference: Intel PT, and so our decode, sees one per
# execution, lackey one per iteration plus one.  tests/tools/insncount
# prints our count per instruction address.
. "$LSTOP/tests/lib.sh"

# Absolute, as loopscope record hands the program to Valgrind: ld.so
# runs other code for a relative path.
TD=$(readlink -f "$BUILD/testdata")
VG=$(readlink -f "$BUILD/vglib")	# as record sets it: LD_PRELOAD is in it
IC=$BUILD/tests/insncount

if ! command -v valgrind >/dev/null || [ ! -x "$BUILD/vglib/loopscope-amd64-linux" ] ||
   [ ! -x "$BUILD/vglib/lackey-amd64-linux" ]; then
	echo "ok 1 # skip valgrind, lackey or our tool is missing"
	exit 0
fi

# Deterministic single-process programs (t0200's list, less the ones
# whose paths depend on time or scheduling: vg_sig spins on a timer,
# threads and lp_threads take lock paths by scheduling; forkexec's child
# is recorded by us and not traced by lackey).
progs="straight calls nested recursion midjump syms signals syscall vg_flow
	vg_segv inl gotonest irred cfgif lp_calls lp_jmp lp_recur lp_trips
	passthru dlopen"

# ours: "ADDRESS COUNT REP OBJECT" into OUT; returns insncount's status.
ours() {	# ours BUNDLE OUT
	"$IC" "$1" >"$2.raw" 2>"$2.err"
	set -- "$1" "$2" $?
	awk '$1 != "total" { o = $1; sub(/:[0-9a-f]+$/, "", o)
		print $4, $2, $3, o }' "$2.raw" | LC_ALL=C sort >"$2"
	return "$3"
}
lackey() {	# lackey LOG
	awk '/^I/ { split($2, a, ","); n[a[1]]++ }
		END { for (k in n) { x = k; sub(/^0+/, "", x); print x, n[k] } }' "$1" |
		LC_ALL=C sort
}
# "same S rep R other O": instructions counted alike, rep string
# instructions lackey counts more often, and all the others that differ.
compare() {	# compare OURS LACKEY
	LC_ALL=C join -a1 -a2 -e 0 -o 0,1.2,1.3,2.2 "$1" "$2" |
		awk '$2 == $4 { s++; next }
			$3 == 1 && $4 > $2 { r++; next }
			{ o++; if (o <= 5) print "#   differs: " $0 > "/dev/stderr" }
			END { printf "same %d rep %d other %d\n", s, r, o }'
}

for p in $progs; do
	args=
	[ "$p" = passthru ] && args=3
	env -i PATH=/usr/bin:/bin "$LOOPSCOPE" record -q -o "$T_TMP/$p.lsc" -- \
		"$TD/$p" $args </dev/null >/dev/null 2>&1
	rc_rec=$?
	env -i PATH=/usr/bin:/bin VALGRIND_LIB="$VG" valgrind --tool=lackey \
		--vex-guest-chase=no --trace-mem=yes --log-file="$T_TMP/$p.lk" \
		"$TD/$p" $args </dev/null >/dev/null 2>&1
	rc_lk=$?
	t_eq "$p: exit status recorded and under lackey" "$rc_lk" "$rc_rec"
	ours "$T_TMP/$p.lsc" "$T_TMP/$p.o"
	t_eq "$p: insncount decodes without losses or errors" 0 "$?"
	sed 's/^/#   insncount: /' "$T_TMP/$p.o.err" | head -5
	lackey "$T_TMP/$p.lk" >"$T_TMP/$p.l"
	res=$(compare "$T_TMP/$p.o" "$T_TMP/$p.l")
	echo "# $p: $res; instructions ours $(awk '{ s += $2 } END { print s }' "$T_TMP/$p.o")," \
		"lackey $(awk '{ s += $2 } END { print s }' "$T_TMP/$p.l")"
	t_eq "$p: every instruction but rep strings ran as often as lackey counts" 0 \
		"$(echo "$res" | awk '{ print $6 }')"
	# ld.so alone runs rep stos/movs on every start-up: the exception
	# is exercised, not vacuous.
	t_ok "$p: rep string instructions ran, counted once per execution" \
		test "$(echo "$res" | awk '{ print $4 }')" -ge 2
done

# vg_flow's own rep strings, hand counted from testdata/vg_flow.c: reps()
# runs 5 times (n = 1000..1004); rep movsb and rep stosb move n bytes, one
# lackey count a byte plus the last check (rcx = 0): 5 * 1000 + 10 + 5 =
# 5015 each; rep stosb with rcx = 0 once a call: 5; repe cmpsb compares
# b[n..n+99] with a[n..n+99], equal (b is a's copy there, and d[40] = 1
# writes the 1 already in it), so it runs out its 100: 101 a call, 505.
# Ours: 5 each.
t_eq "vg_flow: its rep strings, lackey's count (hand count) and ours" \
	"5 5 5 5015 5 5015 5 505" \
	"$(LC_ALL=C join -o 0,1.2,1.3,2.2,1.4 "$T_TMP/vg_flow.o" "$T_TMP/vg_flow.l" |
		awk -v exe="$(readlink -f "$TD/vg_flow")" '$3 == 1 && $5 == exe { print $2, $4 }' |
		LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"

# The comparison sees a difference when there is one: with VEX chasing
# into conditional branches lackey over-counts untaken arms.
env -i PATH=/usr/bin:/bin VALGRIND_LIB="$VG" valgrind --tool=lackey \
	--vex-guest-chase=yes --trace-mem=yes --log-file="$T_TMP/chase.lk" \
	"$TD/calls" </dev/null >/dev/null 2>&1
lackey "$T_TMP/chase.lk" >"$T_TMP/chase.l"
t_ok "calls: with --vex-guest-chase=yes the comparison finds other differences" \
	test "$(compare "$T_TMP/calls.o" "$T_TMP/chase.l" 2>/dev/null | awk '{ print $6 }')" -gt 0

echo "1..$t_n"
