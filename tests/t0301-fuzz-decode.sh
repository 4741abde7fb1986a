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
