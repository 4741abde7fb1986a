#!/bin/sh
# t0312-fuzz-memacc: the memory-access entry point (tests/fuzz/
# fuzz_memacc.c: MEMACC records written with a template's streams into a
# bundle, then the CFG, structural loops, dependences and the loop
# profile with their verdicts, which must read back, else abort()) over
# the records of testdata/deps/kern recorded here with --mem: the first
# 4 KiB of them and 20 deterministic mutants (replay.c), and any crash
# bench/fuzz.sh found, kept in tests/fuzz/corpus/memacc/.  Under `make
# check SANITIZE=address,undefined` any memory error aborts it.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
"$LOOPSCOPE" record --mem -q --psb-period 512 -o k.lsc -- "$TESTDATA/deps/kern" >/dev/null 2>&1
t_eq "record kern --mem as the template" 0 $?
mkdir x && "$BUILD/tests/lsb_dump" -x x k.lsc >/dev/null
t_ok "its memory-access records are extracted" test -s x/memacc
head -c 4096 x/memacc >seed
LSD_FUZZ_BUNDLE=$T_TMP/k.lsc "$BUILD/tests/fuzz_memacc" -m 20 seed
t_eq "20 mutants of its first 4 KiB analyze without a crash" 0 $?
for f in "$LSTOP"/tests/fuzz/corpus/memacc/*; do
	[ -f "$f" ] || continue
	LSD_FUZZ_BUNDLE=$T_TMP/k.lsc "$BUILD/tests/fuzz_memacc" "$f"
done

# All the records, unmutated, make the bundle the entry point analyzes:
# `loopscope deps` counts as many accesses in it as in the recording
# itself (its first line), so the input reaches the analysis whole.
LSD_FUZZ_KEEP=$T_TMP/kept.lsc LSD_FUZZ_BUNDLE=$T_TMP/k.lsc "$BUILD/tests/fuzz_memacc" x/memacc >/dev/null
want=$("$LOOPSCOPE" deps k.lsc 2>/dev/null | sed -n '1s/ memory accesses,.*//p')
got=$("$LOOPSCOPE" deps kept.lsc 2>/dev/null | sed -n '1s/ memory accesses,.*//p')
t_ok "the recording has memory accesses" test "${want:-0}" -gt 0
t_eq "the entry point's bundle has as many as the recording" "$want" "$got"
