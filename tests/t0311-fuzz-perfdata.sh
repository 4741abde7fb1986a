#!/bin/sh
# t0311-fuzz-perfdata: the perf.data entry point (tests/fuzz/fuzz_perfdata.c:
# the reader's every record and AUXTRACE payload, then the import into a
# bundle, which must read back and verify, else abort()) over the seed
# corpus tests/fuzz/corpus/perfdata/ (with any crash that bench/fuzz.sh
# found, kept there as a replay file) and 300 deterministic mutants of
# each (replay.c).  Under `make check SANITIZE=address,undefined` any
# memory error or undefined behaviour aborts it.
. "$LSTOP/tests/lib.sh"
C=$LSTOP/tests/fuzz/corpus/perfdata
cd "$T_TMP" || exit 1
"$BUILD/tests/fuzz_perfdata" -m 300 "$C"/*
t_eq "the perf.data corpus and its mutants read and import without a crash" 0 $?

# The seeds are what they say, so the mutants start from real files.
# quipper-piped-cut.data is perf.data.piped.intel_pt-4.14 (shared/
# testdata-real/quipper) cut by hand: every perf-own record but
# FINISHED_ROUND, the first 3 of each kernel record type, and both
# AUXTRACE records with their payloads cut to 512 bytes (size field
# patched).  So it imports as 2 per-CPU streams (cpu 0 and 3, as quipper's
# parse lists the AUXTRACE records) of 512 bytes each.
"$LOOPSCOPE" import -o q.lsc "$C/quipper-piped-cut.data" 2>/dev/null
t_eq "the cut quipper recording imports" 0 $?
t_eq "its two AUXTRACE streams, 512 bytes each, cpu 0 and 3" \
	"0 cpu 0 512
3 cpu 3 512" "$("$LOOPSCOPE" info q.lsc | awk '/^streams:/ { s = 1; next }
	s && $1 ~ /^[0-9]+$/ { print $1, $2, $4, $6 } /^$/ { s = 0 }')"
# cpu-clock-nested.data: `perf record -e cpu-clock -c 50000 -- nested`, a
# file-mode perf.data (header, attr and feature sections), no PT; its one
# attr is PERF_TYPE_SOFTWARE (1) with perf's sample_type for a fixed
# period, IP|TID|TIME (1|2|4 = 7).
t_ok "the file-mode seed reads to its end" "$BUILD/tests/lspd_dump" "$C/cpu-clock-nested.data"
t_grep "its attr: cpu-clock, type 1, sample_type 7" "^attr 0 1 7 cpu-clock$" "$T_TMP/last.out"
