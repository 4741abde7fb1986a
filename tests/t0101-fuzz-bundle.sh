#!/bin/sh
# t0101-fuzz-bundle: the bundle reader's fuzz entry point over
# testdata/bad/* and 300 deterministic mutants of each (replay.c); under
# `make check SANITIZE=address,undefined` any memory error aborts it.
. "$LSTOP/tests/lib.sh"
"$BUILD/tests/fuzz_bundle" -m 300 "$LSTOP"/testdata/bad/*.lsc
