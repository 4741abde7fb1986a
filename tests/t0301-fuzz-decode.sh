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
# Crashes bench/fuzz.sh found (its template: nested recorded as above),
# kept as replay files.
for f in "$LSTOP"/tests/fuzz/corpus/decode/*; do
	[ -f "$f" ] || continue
	LSD_FUZZ_BUNDLE=$T_TMP/seed.lsc "$BUILD/tests/fuzz_decode" "$f"
done

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
