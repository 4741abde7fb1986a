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
