#!/bin/sh
# t0312-fuzz-memacc: the memory-access entry point (tests/fuzz/
# fuzz_memacc.c: MEMACC records written with a template's streams into a
# bundle, then the CFG, structural loops, dependences and the loop
# profile with their verdicts, which must read back, else abort()) over
# the records of testdata/static/skern recorded here with --mem, as
# bench/fuzz.sh does: the first 4 KiB of them and 100 deterministic
# mutants (replay.c), and any crash bench/fuzz.sh found, kept in
# tests/fuzz/corpus/memacc/; then testdata/deps/kern's (dynamic: libc and
# ld.so embedded).  Under `make check SANITIZE=address,undefined` any
# memory error aborts it.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
"$LOOPSCOPE" record --mem -q --psb-period 512 -o s.lsc -- "$TESTDATA/static/skern" >/dev/null 2>&1
t_eq "record skern --mem as the template" 0 $?
mkdir xs && "$BUILD/tests/lsb_dump" -x xs s.lsc >/dev/null
t_ok "its memory-access records are extracted" test -s xs/memacc
head -c 4096 xs/memacc >sseed
LSD_FUZZ_BUNDLE=$T_TMP/s.lsc "$BUILD/tests/fuzz_memacc" -m 100 sseed
t_eq "100 mutants of its first 4 KiB analyze without a crash" 0 $?
for f in "$LSTOP"/tests/fuzz/corpus/memacc/*; do
	[ -f "$f" ] || continue
	LSD_FUZZ_BUNDLE=$T_TMP/s.lsc "$BUILD/tests/fuzz_memacc" "$f"
done

# Nothing of one input leaks into the next (the symbols are loaded once
# per process): each input's digest (the dependences handed out, the
# profile with their verdicts; $LSD_FUZZ_DIGEST) is the same run alone,
# after the others, and in the reverse order.  The inputs: the records
# cut at several lengths, whole, and the replay files.
mkdir in
for n in 50 300 1000 2500 4096; do
	head -c $n xs/memacc >in/cut$n
done
cp xs/memacc in/whole
cp "$LSTOP"/tests/fuzz/corpus/memacc/* in/ 2>/dev/null
t_fuzz_no_leak fuzz_memacc "$T_TMP/s.lsc" in
t_ok "the inputs give different results" test "$(cut -d' ' -f2 alone | sort -u | wc -l)" -gt 3

# A dynamic template: kern with ld.so and libc embedded, 20 mutants.
"$LOOPSCOPE" record --mem -q --psb-period 512 -o k.lsc -- "$TESTDATA/deps/kern" >/dev/null 2>&1
t_eq "record kern --mem as the template" 0 $?
mkdir x && "$BUILD/tests/lsb_dump" -x x k.lsc >/dev/null
t_ok "its memory-access records are extracted" test -s x/memacc
head -c 4096 x/memacc >seed
LSD_FUZZ_BUNDLE=$T_TMP/k.lsc "$BUILD/tests/fuzz_memacc" -m 20 seed
t_eq "20 mutants of its first 4 KiB analyze without a crash" 0 $?

# All the records, unmutated, make the bundle the entry point analyzes:
# `loopscope deps` counts as many accesses in it as in the recording
# itself (its first line), so the input reaches the analysis whole.
LSD_FUZZ_KEEP=$T_TMP/kept.lsc LSD_FUZZ_BUNDLE=$T_TMP/k.lsc "$BUILD/tests/fuzz_memacc" x/memacc >/dev/null
want=$("$LOOPSCOPE" deps k.lsc 2>/dev/null | sed -n '1s/ memory accesses,.*//p')
got=$("$LOOPSCOPE" deps kept.lsc 2>/dev/null | sed -n '1s/ memory accesses,.*//p')
t_ok "the recording has memory accesses" test "${want:-0}" -gt 0
t_eq "the entry point's bundle has as many as the recording" "$want" "$got"
