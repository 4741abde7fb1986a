#!/bin/sh
# t0402-fuzz-profile: the profile reader's fuzz entry point over the
# hand-built profile of tests/tools/mkprof.h and 3000 deterministic
# mutants of it (replay.c: flips, truncations, insertions); what reads
# must write, read back, merge and view.  Under `make check
# SANITIZE=address,undefined` any memory error aborts it.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
"$BUILD/tests/mkprof" p.lsprof
"$BUILD/tests/fuzz_profile" -m 3000 p.lsprof
# Version 3's verdict and dep records (analyze --deps) too: the same
# profile with two verdicts and two dependences before its end record.
awk -F'\t' -v OFS='\t' '$1 == "end" {
	print "verdict", 0, "duplicate-array", 8
	print "verdict", 1, "not-parallelizable", 24
	print "dep", 0, "WAR", 1, "", "B[]", "0x401100", "demo.c", 20, "0x401108", "demo.c", 20, 2, 1, 1
	print "dep", 1, "RAW", 0, "IV", "main:cfa-0x14", "0x401044", "demo\\tx.c", 14, "0x401048", "demo.c", 14, 9, 1, 1
	print "end", $2 + 4; next } { print }' p.lsprof >d.lsprof
t_ok "the profile with verdicts reads" "$LOOPSCOPE" report --parallel --min-percent=0 d.lsprof
"$BUILD/tests/fuzz_profile" -m 3000 d.lsprof
# Version 4's structural records (analyze --structural): two loops on one
# header, their back edges, an irreducible region with two entries.
awk -F'\t' -v OFS='\t' '$1 == "end" {
	print "sview", 3
	print "sloop", 0, 5, "-", 1, "same", 0, "0x10", "main+0x10", "demo.c:3", 4, 10, 2, 20, 40, 5, 12.5
	print "sloop", 1, 5, 0, 2, "inner", "-", "0x10", "main+0x10", "demo\\tx.c:3", 2, 10, 5, 20, 20, 2, 6.25
	print "stail", 0, 7, 8
	print "stail", 1, 6, 5
	print "sirr", 0, 2, 30
	print "sentry", 0, "f+0x4", "-"
	print "sentry", 0, "f+0x1e", "x.c:9"
	print "end", $2 + 8; next } { print }' p.lsprof >s.lsprof
t_ok "the profile with structural records reads" "$LOOPSCOPE" report --structural s.lsprof
"$BUILD/tests/fuzz_profile" -m 3000 s.lsprof
# The seed corpus of bench/fuzz.sh (tests/fuzz/corpus/profile/: the two
# profiles above, and any crash the fuzzer found, kept as a replay file).
"$BUILD/tests/fuzz_profile" -m 300 "$LSTOP"/tests/fuzz/corpus/profile/*
# Version 5's graph records (analyze --cfg): one function of module 0
# with two blocks, the edges of a loop entered by a call and left by a
# return.
awk -F'\t' -v OFS='\t' '$1 == "end" {
	print "cgraph", 0
	print "cfunc", 0, 0, "0x10", "f"
	print "cblock", 0, "0x10", "0x18", "0x16", 3, 0, 10, 0, "f.c:3"
	print "cblock", 0, "0x18", "0x20", "0x1e", 2, 0, 1, 40, "f.c:4"
	print "cedge", "-", "0x0", 0, "0x10", "in", "call", 0, 1
	print "cedge", 0, "0x10", 0, "0x10", "taken", "-", 0, 9
	print "cedge", 0, "0x10", 0, "0x18", "nottaken", "-", 0, 1
	print "cedge", 0, "0x18", "-", "0x0", "out", "ret", 0, 1
	print "end", $2 + 8; next } { print }' p.lsprof >c.lsprof
t_ok "the profile with graph records reads" "$LOOPSCOPE" report c.lsprof
t_ok "... and merges keeping them" sh -c "'$LOOPSCOPE' merge -o cm.lsprof c.lsprof && grep -q '^cedge	0	0x10	0	0x10	taken	-	0	9$' cm.lsprof"
"$BUILD/tests/fuzz_profile" -m 1000 c.lsprof
# The sampled-CPI records (analyze --cpi; version 7: with the command
# line and the calls): two functions (one of no module), a detected and
# a structural loop, three instructions, a source file, the detected
# loop's two lines, and main's block calling the other 5 times.
awk -F'\t' -v OFS='\t' '$1 == "end" {
	print "cpi", "ns", "cpu-clock:u", 1, 10, 7, 1, 1, 1, 1, 1000, 700, 500, 0.5, 50, 40, 0.5, 50, 40, "demo -x"
	print "cpifunc", 0, 0, "main", 1, 100, 80, 7, 700, 500
	print "cpifunc", 1, "-", "[vdso]+0x10", 0.5, 10, 5, 0.5, 10, 5
	print "cpiloop", 0, "dynamic", 0, "-", "0x401020", "demo.c", 12, "demo.c:12", 10, 1, 100, 80, 2, 200, 160, 1.5, 150, 0
	print "cpiloop", 1, "structural", 0, 2, "0x401020", "demo.c", 12, "demo.c:12", 10, 1, 100, 80, 2, 200, 160, 1.5, 150, "-"
	print "cpiloop", 2, "structural", 0, "-", "0x401020", "demo.c", 12, "demo.c:12", 10, 1, 100, 80, 2, 200, 160, 1.5, 150, "-"
	print "cpiinsn", 0, 1, "0x1020", "0x401020", "demo.c", 12, "addq $1, %rax", 10, 0.33333333333333331, 1, 33, 30
	print "cpiinsn", 0, 0, "0x1024", "0x401024", "demo.c", 13, "jne 0x401020", 10, 0.5, 1, 50, 40
	print "cpiinsn", 1, 1, "0x10", "0x10", "", 0, "(bad)", 5, 0, 0, 0, 0
	print "cpisrc", 0, "demo.c"
	print "cpiline", 0, 0, 12, 10, 10, 33
	print "cpiline", 0, 0, 13, 10, 10, 50
	print "cpicall", 0, "0x1020", 1, "0x10", 5, 5
	print "end", $2 + 13; next } { print }' p.lsprof >cpi.lsprof
t_ok "the profile with CPI records reads" "$LOOPSCOPE" report --cpi cpi.lsprof
t_ok "... annotate reads them" "$LOOPSCOPE" annotate --min-percent=0 cpi.lsprof
t_ok "... and html" "$LOOPSCOPE" html -q -o cpi.html cpi.lsprof
t_ok "... and export --callgrind" sh -c "'$LOOPSCOPE' export --callgrind cpi.lsprof >cpi.cg"
t_grep "... its command line" "^cmd: demo -x$" cpi.cg
t_grep "... and the call" "^calls=5 0x10 0$" cpi.cg
"$BUILD/tests/fuzz_profile" -m 1000 cpi.lsprof
