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
