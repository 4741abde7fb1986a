#!/bin/bash
# bench/analyze.sh - what one analysis costs beside re-running the program,
# measured side by side in one run.  Per program: the native run,
# Valgrind's `none` tool and callgrind (a run under instrumentation),
# `loopscope record`; then on its bundle libipt's block decoder alone
# (tests/tools/ptbench.c), `info --decode` (the block stream alone) and
# `analyze` (decode and loop detector), each on the reference path
# (LOOPSCOPE_REFERENCE=1: libipt's block decoder on every chunk and the
# detector block by block, on one thread) and on the default path (the
# fast decode; the learning pass's memo, then the eager second pass with
# --jobs=1 and 2, pieces with the memos with 3 or more) with --jobs=1 and
# --jobs=N.
# Seconds are user + system CPU of the command, except the "wall" columns
# (elapsed) that show what --jobs gains (decode: the chunks read and
# decompressed on a thread of their own; analyze: that, and the decode on
# a thread beside the detector).  Every command runs REPEAT times (default
# 1; the issue's figures are REPEAT=3) and two tables come out, with the
# same columns: the first of the best of the REPEAT runs of each command
# (printed as each program is done), the second of their medians (the
# middle run; of an even REPEAT the lower middle), every ratio and rate
# there computed from the medians (libipt's from ptbench's ipt_med_s).
# The ratios: libipt / decode and reference / decode (the decode at
# --jobs=1), reference / analyze, callgrind / analyze and analyze /
# native (analyze at --jobs=1); then per path the seconds per 10^9
# instructions (libipt's, the decode's), the decode's instructions/s and
# blocks/s, then the analysis's (CPU seconds, --jobs=1).
# Programs: xz and bzip2
# compressing 2 MB of text, xz compressing 1 MB of base64 text of random
# bytes (the issue's input; B64=BYTES for another size), sqlite3 running
# a query script (bench/inputs.sh), a 5-point stencil and a sparse matrix-vector product
# (bench/kernels/, 10^9 instructions each, built -O2).  Every analyze's
# profile must equal the reference's byte for byte, and every decode's
# counts the reference decode's (said on stderr if not).
# BASE=PATH (a loopscope binary of another build, e.g. one built from the
# commit before the fast path, fe409f4, the build the issue measured)
# adds its `analyze` of the same bundles, in the same run, with a
# build-id cache of its own, run in turns with this build's --jobs=1
# (REPEAT times each): a last table of the two's CPU seconds (best,
# median) and their ratio.  Its profile is not compared (an older
# profile format).
# Usage: bench/analyze.sh [BUILD [REPEAT [JOBS]]]   (JOBS default: nproc)
# A quick run of the script itself: ONLY=REGEX runs only the programs
# whose name matches (e.g. ONLY=xz), TEXT=BYTES compresses that much text
# instead of 2 MB (e.g. ONLY=xz TEXT=20000 bench/analyze.sh build 3).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
REP=${2:-1}
REPEAT_WORD="$REP run(s) of each command"
J=${3:-$(nproc)}
LS=$B/loopscope
BENCH=$B/tests/ptbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$BENCH" ] || { echo "no $BENCH; run make check or make $B/tests/ptbench" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "no valgrind" >&2; exit 1; }

# Every binary timed runs from a copy in $tmp (with the build's vglib/
# beside it, for record): a file as the linker wrote it ran slower here
# than a copy of the same bytes (sqlite3's analyze -j1 0.52 against 0.45
# s, xz's 4.84 against 4.69, interleaved, 2026-12-03: its page cache as
# the linker left it), and an installed binary is a copy too.
mkdir -p "$tmp/bin" "$tmp/basebin"
cp "$LS" "$tmp/bin/loopscope" && cp "$BENCH" "$tmp/bin/ptbench" || exit 1
ln -s "$B/vglib" "$tmp/bin/vglib"
LS=$tmp/bin/loopscope
BENCH=$tmp/bin/ptbench
if [ -n "${BASE:-}" ]; then
	cp "$BASE" "$tmp/basebin/loopscope" || exit 1
	BASE_NAME=$BASE
	BASE=$tmp/basebin/loopscope
fi

. "$top/bench/inputs.sh"
bench_inputs "$tmp" "${TEXT:-2000000}" 5000
bench_b64 "$tmp" "${B64:-1000000}"
for k in stencil spmv; do
	cc -O2 -g -o "$tmp/$k" "$top/bench/kernels/$k.c" || exit 1
done
export LOOPSCOPE_CACHE="$tmp/cache"

# timed OUT CMD...: runs CMD (stdin from $tmp/in, stdout discarded, stderr
# to $tmp/err) and writes "USER SYS WALL" seconds to OUT; returns CMD's
# status.  Bash's own timer, to the millisecond: GNU time prints 10 ms,
# as much as some whole decodes of bench/ take (sqlite3's).
timed() {
	local out=$1 TIMEFORMAT='%3U %3S %3R'
	shift
	{ time "$@" <"$tmp/in" >/dev/null 2>"$tmp/err"; } 2>"$out"
}
# measure CMD...: "CPU WALL MEDCPU MEDWALL", the best and the median of
# REP runs.
measure() {
	local i
	: >"$tmp/runs"
	for i in $(seq "$REP"); do
		timed "$tmp/t" "$@" || {
			echo "failed: $*" >&2; sed 's/^/  /' "$tmp/err" | head -3 >&2; echo "nan nan nan nan"; return; }
		awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$tmp/t" >>"$tmp/runs"
	done
	c=$(cut -d' ' -f1 "$tmp/runs" | sort -n | awk '{ v[NR] = $1 } END { print v[1], v[int((NR + 1) / 2)] }')
	w=$(cut -d' ' -f2 "$tmp/runs" | sort -n | awk '{ v[NR] = $1 } END { print v[1], v[int((NR + 1) / 2)] }')
	echo "${c% *} ${w% *} ${c#* } ${w#* }"
}
cpu() { measure "$@" | cut -d' ' -f1; }
# pair A B: each of the commands in files A and B (one word a line) run
# REP times, taking turns (a burst of noise on a shared host then falls on
# both, not on one alone): "BEST_A MED_A BEST_B MED_B", CPU seconds.
pair() {
	local i k ca cb cmd
	mapfile -t ca <"$1"
	mapfile -t cb <"$2"
	: >"$tmp/runs.a"
	: >"$tmp/runs.b"
	for i in $(seq "$REP"); do
		for k in a b; do
			if [ "$k" = a ]; then cmd=("${ca[@]}"); else cmd=("${cb[@]}"); fi
			timed "$tmp/t" "${cmd[@]}" ||
				{ echo "failed: ${cmd[*]}" >&2; echo "nan nan nan nan"; return; }
			awk '{ printf "%.3f\n", $1 + $2 }' "$tmp/t" >>"$tmp/runs.$k"
		done
	done
	for k in a b; do
		sort -n "$tmp/runs.$k" | awk '{ v[NR] = $1 } END { printf "%s %s ", v[1], v[int((NR + 1) / 2)] }'
	done
	echo
}
# both CMD...: "BEST MEDIAN" CPU seconds
both() { measure "$@" | cut -d' ' -f1,3; }

header() {
	printf '%-16s %8s %8s | %6s %6s %6s %6s | %6s %6s %6s %6s %6s %6s | %6s %6s %6s %6s %6s | %6s %6s %6s %6s %6s | %6s %6s %8s %8s | %6s %8s %8s\n' \
		program insns blocks native none callgr record libipt "dec rf" dec "dwall1" "dec j$J" "dwallN" \
		"an rf" an "wall1" "an j$J" "wallN" "ipt/d" "rf/d" "rf/an" "cg/an" "an/nat" \
		"i s/1e9" "d s/1e9" "d insn/s" "d blk/s" "a s/1e9" "a insn/s" "a blk/s"
}
# row NAME INSNS BLOCKS NAT NONE CG REC IPT DREF D1 DW1 DN DWN AREF A1 W1 AN WN:
# one line of the table, the ratios and rates from these figures
row() {
	awk -v n="$1" -v i="$2" -v bl="$3" -v a="$4" -v b="$5" -v c="$6" \
	    -v d="$7" -v e="$8" -v f="$9" -v g="${10}" -v gw="${11}" -v gn="${12}" -v gwn="${13}" \
	    -v h="${14}" -v k="${15}" -v w1="${16}" -v kn="${17}" -v wn="${18}" 'BEGIN {
		printf "%-16s %8.3g %8.3g | %6.2f %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f %6.2f %6.1f | %6.3f %6.3f %8.3g %8.3g | %6.2f %8.3g %8.3g\n",
			n, i, bl, a, b, c, d, e, f, g, gw, gn, gwn, h, k, w1, kn, wn,
			e / g, f / g, h / k, c / k, k / (a > 0.005 ? a : 0.005),
			e / (i / 1e9), g / (i / 1e9), i / g, bl / g,
			k / (i / 1e9), i / k, bl / k }'
}
echo "best of $REPEAT_WORD"
header
: >"$tmp/medians"
: >"$tmp/base"
run() {	# run NAME STDIN CMD...
	local name=$1 in=$2; shift 2
	[ -n "${ONLY:-}" ] && ! [[ $name =~ $ONLY ]] && return
	cp "$in" "$tmp/in"
	local nat none cg rec ipt dref d1 dw1 dN dwN md1 mdw1 mdN mdwN
	local aref a1 w1 aN wN ma1 mw1 maN mwN insns blocks
	local mnat mnone mcg mrec mipt mdref maref
	read -r nat mnat <<<"$(both "$@")"
	read -r none mnone <<<"$(both valgrind --tool=none -q "$@")"
	read -r cg mcg <<<"$(both valgrind --tool=callgrind -q --callgrind-out-file="$tmp/cg.out" "$@")"
	read -r rec mrec <<<"$(both "$LS" record -q -o "$tmp/b.lsc" -- "$@")"
	"$LS" info --decode "$tmp/b.lsc" >"$tmp/info" 2>&1 </dev/null	# the build-id cache, warm
	insns=$(awk '$1 == "total" { print $2 }' "$tmp/info")
	blocks=$(awk '$1 == "total" { print $3 }' "$tmp/info")
	read -r ipt mipt <<<"$("$BENCH" -r "$REP" "$tmp/b.lsc" </dev/null | awk '{
		for (i = 1; i < NF; i += 2) { if ($i == "ipt_s") b = $(i + 1); if ($i == "ipt_med_s") m = $(i + 1) }
		print b, m }')"
	read -r dref mdref <<<"$(LOOPSCOPE_REFERENCE=1 both "$LS" info --decode -j 1 "$tmp/b.lsc")"
	read -r d1 dw1 md1 mdw1 <<<"$(measure "$LS" info --decode -j 1 "$tmp/b.lsc")"
	read -r dN dwN mdN mdwN <<<"$(measure "$LS" info --decode -j "$J" "$tmp/b.lsc")"
	for j in 1 "$J"; do
		"$LS" info --decode -j "$j" "$tmp/b.lsc" 2>&1 </dev/null | sed '/^  chunks: /d' >"$tmp/dj"
		LOOPSCOPE_REFERENCE=1 "$LS" info --decode -j 1 "$tmp/b.lsc" 2>&1 </dev/null |
			sed '/^  chunks: /d' | cmp -s - "$tmp/dj" ||
			echo "$name: info --decode -j $j differs from the reference's" >&2
	done
	read -r aref maref <<<"$(LOOPSCOPE_REFERENCE=1 both "$LS" analyze -q -o "$tmp/r.lsprof" "$tmp/b.lsc")"
	read -r a1 w1 ma1 mw1 <<<"$(measure "$LS" analyze -q -j 1 -o "$tmp/f1.lsprof" "$tmp/b.lsc")"
	read -r aN wN maN mwN <<<"$(measure "$LS" analyze -q -j "$J" -o "$tmp/fn.lsprof" "$tmp/b.lsc")"
	if [ -n "${BASE:-}" ]; then
		local base mbase pa pma
		# (this build's --jobs=1 timed again, in turns with the base)
		printf '%s\n' env LOOPSCOPE_CACHE="$tmp/cache-base" "$BASE" analyze -q \
			-o "$tmp/b.lsprof" "$tmp/b.lsc" >"$tmp/cmd.a"
		printf '%s\n' "$LS" analyze -q -j 1 -o "$tmp/f1.lsprof" "$tmp/b.lsc" >"$tmp/cmd.b"
		read -r base mbase pa pma <<<"$(pair "$tmp/cmd.a" "$tmp/cmd.b")"
		awk -v n="$name" -v b="$base" -v mb="$mbase" -v a="$pa" -v ma="$pma" 'BEGIN {
			printf "%-16s | %8.2f %8.2f | %8.2f %8.2f | %6.2f %6.2f\n",
				n, b, mb, a, ma, b / a, mb / ma }' >>"$tmp/base"
	fi
	cmp -s "$tmp/r.lsprof" "$tmp/f1.lsprof" || echo "$name: --jobs=1's profile differs from the reference's" >&2
	cmp -s "$tmp/r.lsprof" "$tmp/fn.lsprof" || echo "$name: --jobs=$J's profile differs from the reference's" >&2
	row "$name" "$insns" "$blocks" "$nat" "$none" "$cg" "$rec" "$ipt" "$dref" "$d1" "$dw1" \
		"$dN" "$dwN" "$aref" "$a1" "$w1" "$aN" "$wN"
	row "$name" "$insns" "$blocks" "$mnat" "$mnone" "$mcg" "$mrec" "$mipt" "$mdref" "$md1" \
		"$mdw1" "$mdN" "$mdwN" "$maref" "$ma1" "$mw1" "$maN" "$mwN" >>"$tmp/medians"
}
: >"$tmp/none.in"
run "xz -6, 2 MB" "$tmp/none.in" xz -6 -c "$tmp/text"
run "bzip2 -9, 2 MB" "$tmp/none.in" bzip2 -9 -c "$tmp/text"
run "xz -6, b64 1 MB" "$tmp/none.in" xz -6 -c "$tmp/b64"
run "sqlite3, 5k rows" "$tmp/q.sql" sqlite3 :memory:
run "stencil 384x384" "$tmp/none.in" "$tmp/stencil"
run "spmv 20000" "$tmp/none.in" "$tmp/spmv"
echo
echo "median of $REPEAT_WORD"
header
cat "$tmp/medians"
if [ -n "${BASE:-}" ]; then
	echo
	echo "analyze by $BASE_NAME against this build's --jobs=1 (CPU s; the two in turns)"
	printf '%-16s | %8s %8s | %8s %8s | %6s %6s\n' program "base" "base med" "an j1" \
		"an med" "base/an" "med"
	cat "$tmp/base"
fi
