#!/bin/sh
# t0541-totals: every command that counts a bundle's instructions counts
# the same (issue 19, item 1): `info --decode` (the decoder's stream
# statistics), `report` (the loop detector's profile) and `dump --insn`
# (capstone's disassembly of every executed static block, in the block's
# execution mode) give one total on every bundle: the 32-bit one of t0540
# (892, its hand count), testdata programs recorded with the sw recorder,
# and the real recordings of ../shared/testdata-real (no binaries there:
# all of their trace is lost, so the three say 0).
# `dump --insn` is counted as instruction lines, plus the instructions of
# a block it could not disassemble ("(no code)", "(N of M instructions
# disassembled)"), which must not happen where the bundle has the code.
# By default three programs: threads, signals, fork+exec (two processes);
# LS_SLOW_TESTS=1: every testdata program but cpibench, cpimix and spin
# (millions of instructions: gigabytes of dump --insn) and gotonest and
# vg_exitkill (they exit non-zero on purpose).
. "$LSTOP/tests/lib.sh"
T=$BUILD/tests
cd "$T_TMP" || exit 1

insn_of_dump() {	# FILE: instructions dump --insn shows, and undisassembled
	awk '/^[0-9]+ +[0-9a-f]+-[0-9a-f]+ +[0-9]+ / { n = $3; next }
	     /^    [0-9a-f]+  \(no code\)/ { s += n; miss += n; next }
	     /instructions disassembled\)/ { gsub(/[()]/, ""); s += $4 - $2; miss += $4 - $2; next }
	     /^    [0-9a-f]+  [0-9a-f][0-9a-f] / { s++ }
	     END { print s + 0, miss + 0 }' "$1"
}

# check NAME BUNDLE [WANT]: the three totals agree (and equal WANT).
check() {
	"$LOOPSCOPE" info --decode --format=json "$2" >"$1.info" 2>/dev/null
	t_eq "$1: info --decode exits 0" 0 $?
	i=$(python3 -c 'import json, sys
print(sum(s["instructions"] for s in json.load(open(sys.argv[1]))["decode"]))' "$1.info")
	"$LOOPSCOPE" report --format=json "$2" >"$1.rep" 2>/dev/null
	r=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["total_instructions"])' "$1.rep")
	"$LOOPSCOPE" dump --insn "$2" >"$1.dump" 2>/dev/null
	t_eq "$1: dump --insn exits 0" 0 $?
	set -- "$1" "$2" "${3:-$i}" $(insn_of_dump "$1.dump")
	t_eq "$1: info, report, dump --insn agree ($3)" "$3 $3 $3" "$i $r $4"
	if [ "$i" -gt 0 ]; then
		t_eq "$1: dump --insn disassembles every instruction" 0 "$5"
	fi
}

t_m32 l32
case $? in
2)	echo "ok - # SKIP no $T_M32 (gcc-multilib), or it does not run here" ;;
*)	t_eq "32-bit bundle imports" 0 $?
	check m32 l32.lsc 892 ;;	# t0540's hand count
esac

for q in "$T_REAL"/quipper/perf.data.intel_pt-4.14 "$T_REAL"/quipper/perf.data.piped.intel_pt-4.14; do
	[ -r "$q" ] || continue
	name=real-$(basename "$q")
	"$LOOPSCOPE" import -q -o "$name.lsc" "$q" >/dev/null 2>&1
	t_eq "$name imports" 0 $?
	check "$name" "$name.lsc" 0	# no binaries: everything is lost
done

if [ "${LS_SLOW_TESTS:-0}" = 1 ]; then
	progs=$(cd "$TESTDATA" && for p in *; do [ -f "$p" ] && [ -x "$p" ] &&
		case $p in *.so) ;; cpibench|cpimix|spin|gotonest|vg_exitkill) ;; *) echo "$p" ;; esac; done)
else
	progs="threads signals forkexec"
fi
t_need_recorder
for p in $progs; do
	"$LOOPSCOPE" record -q -o "$p.lsc" -- "$TESTDATA/$p" >/dev/null 2>&1
	t_eq "$p: record exits 0" 0 $?
	check "$p" "$p.lsc"
done
