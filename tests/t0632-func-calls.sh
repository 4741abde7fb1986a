#!/bin/sh
# t0632-func-calls: functions reached through the PLT.  A call into a
# stub no symbol covers (the PLT of a stripped library: libc's own calls
# to its IFUNC-chosen string functions) and on by the stub's jump used to
# leave the function called with 0 calls and an inclusive total counted
# from the thread's first instruction (264,360 of a 135,016-instruction
# run for __strchrnul_avx2 in testdata/calls).
#
# Oracles: the invariant (no function's inclusive total above its
# thread's instructions) on every testdata program; and callgrind's call
# counts (`--skip-plt=no`, run under the same Valgrind CPU model as the
# recording, so ld.so picks the same implementations) for every libc
# string/memory implementation callgrind saw called in testdata/calls
# and testdata/plt (strspn 13 times through strspn@plt, by hand); the
# hand counts of testdata/pltleaf (a library's leaf called through its
# PLT stub 100 times).
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

# funcs B: "name calls total thread_total" per function of bundle B.
funcs() {
	"$LOOPSCOPE" report --format=json --min-percent=0 "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for f in d["functions"]:
    print(f["name"] or "?", f["calls"], f["total_instructions"], d["total_instructions"])'
}

bad=
for p in $(t_progs vg_exitkill cpibench); do	# 10^8 blocks; t0800's
	t_record_prog "$p"
	funcs "$p.lsc" >"$p.f" 2>/dev/null || { bad="$bad $p(report)"; continue; }
	over=$(awk '$3 > $4 { print $1 }' "$p.f" | tr '\n' ' ')
	[ -n "$over" ] && bad="$bad $p:$over"
done
t_eq "no function's inclusive total above its thread's instructions" "" "$bad"

for p in calls plt; do
	valgrind --tool=callgrind --skip-plt=no --callgrind-out-file="$p.cg" \
		"$TD/$p" >/dev/null 2>&1
	python3 - "$p.cg" >"$p.cgcalls" <<'PY'
import re, sys, collections
calls, names, cur = collections.Counter(), {}, None
for line in open(sys.argv[1]):
    m = re.match(r'^(c?fn)=\((\d+)\)(?: (.*))?$', line.rstrip())
    if m:
        kind, i, n = m.groups()
        if n:
            names[i] = n
        if kind == 'cfn':
            cur = i
        continue
    m = re.match(r'^calls=(\d+)', line)
    if m and cur:
        calls[names.get(cur, cur)] += int(m.group(1))
for k, v in sorted(calls.items()):
    if re.match(r'^__(str|mem|wcs)\w*_(avx|evex|sse|erms)', k):
        print(k, v)
PY
	t_ok "$p: callgrind saw libc's string functions called" test -s "$p.cgcalls"
	while read -r name n; do
		t_eq "$p: $name called $n times, as callgrind counts" "$n" \
			"$(awk -v f="$name" '$1 == f { s += $2 } END { print s + 0 }' "$p.f")"
	done <"$p.cgcalls"
done
t_eq "plt: strspn@plt called 13 times (hand count)" 13 \
	"$(awk '$1 == "strspn@plt" { print $2 }' plt.f)"
# pltleaf: 100 calls of plk_add through plk_add@plt (hand count in
# testdata/pltleaf.c; objdump -d: the stub is one jmp, plk_add a lea and
# a ret), so the stub's inclusive total is 300 instructions, plk_add's
# 200; plk_sum through its stub once.  Most of these calls the eager pass
# takes whole, with the stub's jump (t0209).
t_eq "pltleaf: plk_add@plt 100 calls, 300 instructions in all" "100 300" \
	"$(awk '$1 == "plk_add@plt" { print $2, $3 }' pltleaf.f)"
t_eq "pltleaf: plk_add 100 calls, 200 instructions in all" "100 200" \
	"$(awk '$1 == "plk_add" { print $2, $3 }' pltleaf.f)"
t_eq "pltleaf: plk_sum@plt and plk_sum called once each" "1 1" \
	"$(awk '$1 == "plk_sum@plt" { a = $2 } $1 == "plk_sum" { b = $2 } END { print a, b }' pltleaf.f)"

# pltnest: calls of the library that call it again through its own PLT
# (hand counts in testdata/pltnest.c): plk_add3, plk_d4 .. plk_d1 50
# calls each, plk_add 150, plk_rec 200 (50 from main, 150 of itself,
# direct), each stub as many as main and the library call through it.  Inclusive
# totals where no stub's first call runs ld.so's resolver (the library
# binds lazily): plk_add's and plk_d1's, every instruction of each
# executed once a call (straight-line code: objdump -d's count n; the
# stub one jmp): plk_add 150 n(plk_add), plk_d1 50 (n(plk_d1) + 1 +
# n(plk_add)).
ninsn() {
	objdump -d "$TD/libplk.so" | awk -v f="<$1>:" '$2 == f { p = 1; next } p && /^$/ { exit }
		p && /^ +[0-9a-f]+:/ { n++ } END { print n + 0 }'
}
na=$(ninsn plk_add)
nd=$(ninsn plk_d1)
t_ok "pltnest: objdump counts plk_add ($na) and plk_d1 ($nd)" test "$na" -gt 0 -a "$nd" -gt 0
for fc in plk_add3:50 plk_d4:50 plk_d3:50 plk_d2:50 plk_d1:50 plk_add:150 plk_rec:200 \
	plk_add3@plt:50 plk_d4@plt:50 plk_d3@plt:50 plk_d2@plt:50 plk_d1@plt:50 \
	plk_add@plt:150 plk_rec@plt:50; do
	f=${fc%%:*}
	t_eq "pltnest: $f called ${fc#*:} times" "${fc#*:}" \
		"$(awk -v f="$f" '$1 == f { print $2 }' pltnest.f)"
done
t_eq "pltnest: plk_add's inclusive instructions" $((150 * na)) \
	"$(awk '$1 == "plk_add" { print $3 }' pltnest.f)"
t_eq "pltnest: plk_d1's inclusive instructions" $((50 * (nd + 1 + na))) \
	"$(awk '$1 == "plk_d1" { print $3 }' pltnest.f)"
