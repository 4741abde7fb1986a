#!/bin/sh
# t0101-fuzz-bundle: the bundle reader's fuzz entry point over
# testdata/bad/* and the seed corpus of bench/fuzz.sh, tests/fuzz/corpus/
# bundle/ (--no-embed recordings of nested and of the static snest, the
# latter with the heads its packets name, a PTHEADS section; and any
# crash the fuzzer found, kept as a replay file), and 300 deterministic
# mutants of each
# (replay.c); under `make check SANITIZE=address,undefined` any memory
# error aborts it.
. "$LSTOP/tests/lib.sh"
"$BUILD/tests/fuzz_bundle" -m 300 "$LSTOP"/testdata/bad/*.lsc "$LSTOP"/tests/fuzz/corpus/bundle/*
