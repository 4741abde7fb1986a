#!/bin/sh
# t0634-simd: a vectorized loop says so, with its SIMD share, since its
# trip counts are the machine's (one per vector), not the source's bound.
# testdata/o2/vec.c, built -O2: axpy's loop over 131072 floats runs 32768
# times (131072 / 4 floats an SSE register, by hand); its body's SIMD
# share is counted here from objdump's listing of axpy (instructions from
# the back jump's target to the jump, those on xmm registers), not by
# loopscope.  scalar()'s loop has no SIMD instruction and no marker.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$TESTDATA/o2

t_need_recorder

objdump -d --no-show-raw-insn "$TD/vec" | awk '
	/<axpy>:/ { on = 1; next } on && /^$/ { exit }
	on { addr = $1; sub(/:$/, "", addr); a[n] = addr; m[n] = $2; ops[n] = $3; tg[n] = $3; n++ }
	END { for (i = 0; i < n; i++) if (m[i] == "jne") { j = i; t = tg[i] }
	      for (i = 0; i < n; i++) if (a[i] == t) s = i
	      for (i = s; i <= j; i++) { k++; if (ops[i] ~ /xmm/) v++ }
	      printf "%d %d\n", k, v }' >body
read -r ninsn nsimd <body
t_ok "objdump: axpy's loop body holds packed SIMD instructions ($nsimd of $ninsn)" \
	test "${nsimd:-0}" -gt 0
want=$(awk -v a="$nsimd" -v b="$ninsn" 'BEGIN { printf "%.2f", 100 * a / b }')

"$LOOPSCOPE" record -q -o v.lsc -- "$TD/vec" >/dev/null 2>&1
"$LOOPSCOPE" analyze -q -o v.lsprof v.lsc
"$LOOPSCOPE" report --min-percent=0 v.lsprof >flat.txt
awk '/^Loop [0-9]+ at .* in axpy(,|$)/ { p = 1 } /^-----$/ { p = 0 } p' flat.txt >axpy.txt
t_grep "axpy's loop: 32768 iterations (131072 / 4)" "trip count min 32768, max 32768" axpy.txt
t_grep "axpy's loop: the simd marker with its share ($want%)" \
	"^  simd: $want% of its own instructions (vectorized: a trip count counts vector iterations)$" axpy.txt
awk '/^Loop [0-9]+ at .* in scalar(,|$)/ { p = 1 } /^-----$/ { p = 0 } p' flat.txt >scalar.txt
t_grep "scalar()'s loop: 1000 iterations" "trip count min 1000, max 1000" scalar.txt
t_eq "scalar()'s loop: no simd marker" 0 "$(grep -c simd scalar.txt)"
"$LOOPSCOPE" report --format=json --min-percent=0 v.lsprof >v.json
t_eq "JSON: simd_percent of axpy's loop" "$want" "$(python3 -c '
import json, sys
for l in json.load(open("v.json"))["loops"]:
    if l["function"] == "axpy":
        print("%.2f" % l["simd_percent"])')"
