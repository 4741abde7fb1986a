#!/bin/sh
# t0200-native-oracle.sh - per-function instruction counts from our
# recorder + decoder + symbols equal those of a native single-stepping run.
#
# The oracle is tests/tools/sstep: the program runs natively (no
# Valgrind) under ptrace, single-stepped to the end, and every completed
# instruction of the main executable is counted per .symtab function
# (rep string instructions once per execution).  funccount decodes the
# recorded bundle with decoder/decode.h and attributes static blocks with
# decoder/symbols.h.  Valgrind changes which libc and ld.so paths run, so
# only the main executable is compared: each of its functions that has a
# size in .symtab (the program's own code; crt's size-less labels such as
# frame_dummy are covered by the total), and the executable's total.
# A hand count checks the oracle itself: straight() of testdata/straight.c,
# its instructions counted from objdump -d.
. "$LSTOP/tests/lib.sh"

TD=$BUILD/testdata
SSTEP=$BUILD/tests/sstep
FC=$BUILD/tests/funccount

if ! command -v valgrind >/dev/null || [ ! -x "$BUILD/vglib/loopscope-amd64-linux" ]; then
	echo "ok 1 # skip valgrind or the tool is missing"
	exit 0
fi

# Arguments, stdin and exclusions per program.  Programs that are not
# deterministic are skipped, saying why:
skip_vg_exitkill="main spins until the other thread has counted to 1000000: both loops' trip counts depend on scheduling (and ~6M steps)"
# 2.2M instructions in work(): ~90 s single-stepped; threads.c covers
# following threads.  LS_SLOW_TESTS=1 runs it (it matched: 2200044).
[ "${LS_SLOW_TESTS:-0}" = 1 ] ||
	skip_vg_threads="2.2M steps take ~90 s; set LS_SLOW_TESTS=1 to run it"
# cpimix runs other code natively than under Valgrind, by design (t0800);
# cpibench fills at least 1 MB: millions of steps.
skip_cpimix="runs other code natively than under Valgrind, by design (t0800)"
skip_cpibench="fills at least 1 MB word by word: millions of single steps (t0800 uses it)"
args_spin="3 100"
args_passthru=3
# Their defaults run 1.2M (lp_late) and 2.0M (lp_probe) instructions of
# their own, 51 and 80 s single-stepped here: smaller runs take the same
# paths.
args_lp_probe="2000 20"
args_lp_late="2000"
stdin_passthru="hello, oracle"
# vg_sig's main spins until a 1 ms interval timer fires: its trip count
# depends on time.  Its handlers run a fixed number of times and compare.
exclude_vg_sig="main"

var() { eval "printf '%s' \"\${$1_$2-}\""; }

# The program's own functions: FUNC symbols with a size, from .symtab.
own_functions() {
	readelf -sW "$1" | awk '$4 == "FUNC" && $3 != 0 && $7 != "UND" { print $8 }' |
		sed 's/@.*//' | sort -u
}

# Lines of FILE for the functions listed in OWN, minus EXCLUDE, and the
# total minus the excluded functions' counts.
select_lines() {	# select_lines OWN EXCLUDE FILE
	awk -v ex=" $2 " 'NR == FNR { own[$1] = 1; next }
		index(ex, " " $1 " ") { minus += $2; next }
		$1 == "total" { total = $2; next }
		own[$1] { print }
		END { print "total", total - minus }' "$1" "$3" | LC_ALL=C sort
}

progs=
for p in $(t_progs); do
	why=$(var skip "$p")
	if [ -n "$why" ]; then
		echo "# $p skipped: $why"
		continue
	fi
	progs="$progs $p"
done

# Single-stepping costs ~40 us an instruction (ld.so and libc included),
# so the native runs go in the background while the recordings run.
for p in $progs; do
	printf '%s\n' "$(var stdin "$p")" >"$T_TMP/$p.in"
	( "$SSTEP" -o "$T_TMP/$p.ss" "$TD/$p" $(var args "$p") <"$T_TMP/$p.in" \
		>"$T_TMP/$p.ss.stdout" 2>"$T_TMP/$p.ss.err"
	  echo $? >"$T_TMP/$p.ss.rc" ) &
done

for p in $progs; do
	"$LOOPSCOPE" record -q -o "$T_TMP/$p.lsc" -- "$TD/$p" $(var args "$p") \
		<"$T_TMP/$p.in" >"$T_TMP/$p.rec.stdout" 2>"$T_TMP/$p.rec.err"
	echo $? >"$T_TMP/$p.rec.rc"
	"$FC" "$T_TMP/$p.lsc" "$(readlink -f "$TD/$p")" >"$T_TMP/$p.fc" 2>"$T_TMP/$p.fc.err"
	echo $? >"$T_TMP/$p.fc.rc"
done
wait

# sstep exits 125 for its own failures: ptrace not permitted (a seccomp
# profile, ptrace_scope 3) is a skip, not a failure.
if [ "$(cat "$T_TMP/straight.ss.rc" 2>/dev/null)" = 125 ] &&
   grep -q 'PTRACE\|ptrace' "$T_TMP/straight.ss.err"; then
	echo "ok 1 # skip ptrace single-stepping is not permitted here"
	exit 0
fi

for p in $progs; do
	exe=$TD/$p
	own_functions "$exe" >"$T_TMP/$p.own"
	t_eq "$p: exit status natively and recorded" "$(cat "$T_TMP/$p.ss.rc")" \
		"$(cat "$T_TMP/$p.rec.rc")"
	t_eq "$p: funccount decodes without losses" 0 "$(cat "$T_TMP/$p.fc.rc")"
	sed 's/^/#   funccount: /' "$T_TMP/$p.fc.err" | head -5
	ex=$(var exclude "$p")
	select_lines "$T_TMP/$p.own" "$ex" "$T_TMP/$p.ss" >"$T_TMP/$p.ss.sel"
	select_lines "$T_TMP/$p.own" "$ex" "$T_TMP/$p.fc" >"$T_TMP/$p.fc.sel"
	t_ok "$p: per-function instruction counts equal the native single-step counts" \
		cmp -s "$T_TMP/$p.ss.sel" "$T_TMP/$p.fc.sel"
	# The numbers, side by side: native, decoded.
	LC_ALL=C sort "$T_TMP/$p.ss" >"$T_TMP/$p.ss.s"
	LC_ALL=C sort "$T_TMP/$p.fc" >"$T_TMP/$p.fc.s"
	LC_ALL=C join -a1 -a2 -e - -o 0,1.2,2.2 "$T_TMP/$p.ss.s" "$T_TMP/$p.fc.s" |
		awk -v p="$p" '{ printf "# %-12s %-24s native %-8s decoded %s\n", p, $1, $2, $3 }'
	for f in $ex; do
		echo "# $p: $f excluded (not deterministic): native" \
			"$(awk -v f="$f" '$1 == f { print $2 }' "$T_TMP/$p.ss")" \
			"decoded $(awk -v f="$f" '$1 == f { print $2 }' "$T_TMP/$p.fc")"
	done
	grep -v '^sstep: pid .* exec' "$T_TMP/$p.ss.err" | sed 's/^/#   stderr: /' | head -5
done

# forkexec: the oracle stops counting at the exec, as the recorder does.
case " $progs " in
*" forkexec "*)
	t_grep "forkexec: sstep stops counting at the exec" "exec'd: counting stopped" \
		"$T_TMP/forkexec.ss.err" ;;
esac

# Hand count from objdump: the instructions of straight() outside its
# loop run once a call, the loop body 100 times (straight.c), 3 calls.
if [ -x "$TD/straight" ]; then
	objdump -d --no-show-raw-insn "$TD/straight" |
		awk '/^[0-9a-f]+ <straight>:$/ { on = 1; next } on && /^$/ { exit }
		     on && /^ *[0-9a-f]+:/ { print }' >"$T_TMP/straight.dis"
	# The backward jump closes the loop: its target .. itself is the body.
	n=$(wc -l <"$T_TMP/straight.dis")
	set -- $(awk '$2 ~ /^j/ && $3 ~ /^[0-9a-f]+$/ { a = $1; sub(/:$/, "", a); print a, $3 }' \
		"$T_TMP/straight.dis" | while read -r a t; do
			[ $((0x$t)) -lt $((0x$a)) ] && echo "$t $a"; done)
	body=0
	while read -r a _; do
		a=${a%:}
		[ $((0x$a)) -ge $((0x$1)) ] && [ $((0x$a)) -le $((0x$2)) ] &&
			body=$((body + 1))
	done <"$T_TMP/straight.dis"
	expected=$((3 * ((n - body) + 100 * body)))
	echo "# straight: $n instructions, loop body $body (objdump -d): 3 * ($((n - body)) + 100 * $body) = $expected"
	t_eq "straight: sstep counts the objdump hand count" "$expected" \
		"$(awk '$1 == "straight" { print $2 }' "$T_TMP/straight.ss")"
	t_eq "straight: decoded count equals the hand count" "$expected" \
		"$(awk '$1 == "straight" { print $2 }' "$T_TMP/straight.fc")"
fi
