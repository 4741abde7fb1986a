#!/bin/sh
# t0301-fuzz-decode: the decoder's fuzz entry point (tests/fuzz/fuzz_decode.c)
# over the real PT of a recorded testdata program and 300 deterministic
# mutants of it (replay.c: flips, truncations, inserted bytes), decoded
# against that recording's program and vDSO, and fed to the loop detector
# and the executed CFG (the profile must read back).  Under
# `make check SANITIZE=address,undefined` any memory error aborts it.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
"$LOOPSCOPE" record -q --psb-period 512 -o seed.lsc -- "$TESTDATA/nested" >/dev/null
t_eq "record nested as the template" 0 $?
mkdir x && "$BUILD/tests/lsb_dump" -x x seed.lsc >/dev/null
t_ok "its PT stream is extracted" test -s x/stream.1
LSD_FUZZ_BUNDLE=$T_TMP/seed.lsc "$BUILD/tests/fuzz_decode" -m 300 x/stream.1

# bench/fuzz.sh's template: testdata/static/snest (static, no libc; its
# exit status is not 0), recorded as bench/fuzz.sh does, and 300 mutants
# of its PT; then the crashes bench/fuzz.sh found, kept as replay files.
"$LOOPSCOPE" record -q --psb-period 512 -o st.lsc -- "$TESTDATA/static/snest" >/dev/null
t_ok "record snest as the template" test -s st.lsc
mkdir xs && "$BUILD/tests/lsb_dump" -x xs st.lsc >/dev/null
t_ok "its PT stream is extracted" test -s xs/stream.1
LSD_FUZZ_BUNDLE=$T_TMP/st.lsc "$BUILD/tests/fuzz_decode" -m 300 xs/stream.1
# The stream three times over: three chunks (fuzz_decode cuts them at
# the first PSB from 256 bytes on), whose pieces two jobs replay from the
# learning pass's tape, recorded chunk by chunk; the harness aborts where
# a profile of two or three jobs differs from one's.
cat xs/stream.1 xs/stream.1 xs/stream.1 >xs/triple
LSD_FUZZ_BUNDLE=$T_TMP/st.lsc LSD_FUZZ_KEEP=$T_TMP/triple.lsc \
	"$BUILD/tests/fuzz_decode" xs/triple >/dev/null
t_eq "the stream three times over: three chunks" 3 \
	"$("$LOOPSCOPE" info triple.lsc | awk '$2 == "thread" { print $4 }')"
"$BUILD/tests/loopdump" -j 2 triple.lsc >/dev/null 2>tri.err
t_eq "... whose three pieces two jobs replay from the tape" "3 3" \
	"$(sed -n 's/.* pieces \([0-9]*\) pieces_named [0-9]* pieces_taped \([0-9]*\) .*/\1 \2/p' tri.err)"
LSD_FUZZ_BUNDLE=$T_TMP/st.lsc "$BUILD/tests/fuzz_decode" -m 300 xs/triple
for f in "$LSTOP"/tests/fuzz/corpus/decode/*; do
	[ -f "$f" ] || continue
	LSD_FUZZ_BUNDLE=$T_TMP/st.lsc "$BUILD/tests/fuzz_decode" "$f"
done

# Nothing of one input leaks into the next: each input's digest (the
# decode's callbacks and counts, the loop profile, $LSD_FUZZ_DIGEST) is
# the same run alone, after the others, and in the reverse order.  The
# inputs: the stream cut at several lengths, whole, and the replay files.
mkdir in
for n in 30 60 100 150 200 250; do
	head -c $n xs/stream.1 >in/cut$n
done
cp xs/stream.1 in/whole
cp "$LSTOP"/tests/fuzz/corpus/decode/* in/ 2>/dev/null
t_fuzz_no_leak fuzz_decode "$T_TMP/st.lsc" in

# The same over a per-CPU stream: two processes (nested, calls) recorded
# without return compression, spread by lsb_percpu over one CPU with their
# switch sideband, so that every mutant is followed across switches (the
# query-decoder head scan, lsd_decode_all side by side).
for p in nested calls; do
	"$LOOPSCOPE" record -q --no-retcomp --psb-period 512 -o "pc_$p.lsc" -- "$TESTDATA/$p" >/dev/null
done
"$BUILD/tests/lsb_percpu" -c 1 -k 4096 pc.lsc pc_nested.lsc pc_calls.lsc >/dev/null
t_eq "a per-CPU template of nested and calls" 0 $?
mkdir xc && "$BUILD/tests/lsb_dump" -x xc pc.lsc >/dev/null
t_ok "its PT stream is extracted" test -s xc/stream.0
LSD_FUZZ_BUNDLE=$T_TMP/pc.lsc "$BUILD/tests/fuzz_decode" -m 300 xc/stream.0
t_eq "300 mutants of the per-CPU stream decode and analyze without a crash" 0 $?
