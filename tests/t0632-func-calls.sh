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
for src in "$LSTOP"/testdata/*.c; do
	p=$(basename "$src" .c)
	case $p in vg_exitkill|cpibench) continue ;; esac	# 10^8 blocks; t0800's
	[ -x "$TD/$p" ] || continue
	a=; [ "$p" = spin ] && a="3 100"; [ "$p" = passthru ] && a=3
	echo | "$LOOPSCOPE" record -q -o "$p.lsc" -- "$TD/$p" $a >/dev/null 2>&1
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
