#!/bin/sh
# bench/fuzz.sh - runs the libFuzzer targets (`make fuzz`: tests/fuzz/
# fuzz_*.c built by clang with -fsanitize=fuzzer,address,undefined into
# build-fuzz/fuzz/) for RUNS executions each (libFuzzer's -runs=), at
# nice 19, from the seed corpus in the repo:
#   bundle    tests/fuzz/corpus/bundle/* and testdata/bad/*.lsc
#   profile   tests/fuzz/corpus/profile/*
#   perfdata  tests/fuzz/corpus/perfdata/* (cut from the quipper
#             recording of shared/testdata-real, and a perf cpu-clock run)
#   decode    the PT of testdata/static/snest recorded here (--psb-period
#             512), with that recording as the template (LSD_FUZZ_BUNDLE);
#             DECODE_PROG=testdata/pltleaf (a path under build/) records
#             that program instead: its calls through the PLT into
#             libplk.so (the modules over 64 KB, ld.so and libc, are left
#             out of each input's bundle: their code decodes as losses)
#   memacc    the first 4 KiB of testdata/static/skern's memory-access
#             records, recorded here with --mem, that recording the
#             template
# The templates are static programs without libc (testdata/static): a
# recording holds their own code alone (15 KB), so each input's bundle
# is small to write, read, sweep and analyse; the target reads the
# template once per process (tests/fuzz/fuzz_tmpl.h), fuzz_memacc its
# symbols too, and rewrites one tmpfs file per input.
# Each target's corpus grows in OUT/TARGET/corpus (the repo's is left as
# it is); a crash, leak or timeout stops that target and leaves its input
# in OUT/TARGET/crashes/ (libFuzzer's slow-unit-* files there, inputs
# that took over 10 s, are not counted).  Prints one line per target: executions,
# executions per second, seconds, libFuzzer's final cov: (edges) and ft:
# (features), and crash files.  Exits 1 if any target crashed.
# With -j JOBS a target runs as JOBS processes side by side, each for
# RUNS/JOBS executions (rounded up) on the one corpus directory, which
# libFuzzer re-reads every second, so each process takes up what the
# others found; the line then sums their executions and rates and gives
# the largest cov: and ft:, and a crash in one stops the others.
# Usage: bench/fuzz.sh [-r RUNS] [-t SECONDS] [-o OUT] [-j JOBS] [TARGET...]
#   -r RUNS     executions per target (default 1000000)
#   -t SECONDS  also stop a target after this long (default: no limit)
#   -o OUT      work directory (default /tmp/loopscope-fuzz)
#   -j JOBS     processes per target (default 1)
# (`make fuzz` and `make` first: the templates are recorded with
# build/loopscope and cut with build/tests/lsb_dump, which make check
# builds, or `make build/tests/lsb_dump`.)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=1000000
secs=0
out=/tmp/loopscope-fuzz
jobs=1
while getopts r:t:o:j: c; do
	case $c in
	r) runs=$OPTARG ;;
	t) secs=$OPTARG ;;
	o) out=$OPTARG ;;
	j) jobs=$OPTARG ;;
	*) sed -n 's/^# Usage: /usage: /p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
case $jobs in
''|*[!0-9]*|0) echo "fuzz.sh: -j wants a number of processes, not '$jobs'" >&2; exit 2 ;;
esac
targets=${*:-bundle profile perfdata decode memacc}
F=$top/build-fuzz/fuzz
B=$top/build
for t in $targets; do
	[ -x "$F/fuzz_$t" ] || { echo "no $F/fuzz_$t; run 'make fuzz'" >&2; exit 1; }
done
mkdir -p "$out" || exit 1
export LOOPSCOPE_CACHE="$out/cache"

# template T: the recording and the seed of the targets that decode
template() {
	for x in "$B/loopscope" "$B/tests/lsb_dump"; do
		[ -x "$x" ] || { echo "no $x; run 'make' and 'make $x'" >&2; exit 1; }
	done
	rm -rf "$out/tmpl.$1" && mkdir -p "$out/tmpl.$1" || exit 1
	case $1 in
	decode)
		"$B/loopscope" record -q --psb-period 512 -o "$out/tmpl.$1.lsc" \
			-- "$B/${DECODE_PROG:-testdata/static/snest}" >/dev/null
		[ -s "$out/tmpl.$1.lsc" ] || exit 1 ;;
	memacc)
		"$B/loopscope" record -q --mem --psb-period 512 -o "$out/tmpl.$1.lsc" \
			-- "$B/testdata/static/skern" >/dev/null 2>&1 || exit 1 ;;
	esac
	"$B/tests/lsb_dump" -x "$out/tmpl.$1" "$out/tmpl.$1.lsc" >/dev/null || exit 1
}

# the log of process k of target directory $w: $w/log for one process,
# as before -j
log_of() {
	if [ "$jobs" -gt 1 ]; then echo "$w/log.$1"; else echo "$w/log"; fi
}

printf '%-9s %10s %8s %8s %7s %7s %7s\n' target execs exec/s seconds cov ft crashes
bad=0
for t in $targets; do
	w=$out/$t
	mkdir -p "$w/corpus" "$w/crashes" "$w/seeds" || exit 1
	case $t in
	bundle) cp "$top"/tests/fuzz/corpus/bundle/* "$top"/testdata/bad/*.lsc "$w/seeds/" ;;
	decode)
		template decode
		cp "$out/tmpl.decode/stream.1" "$w/seeds/" ;;
	memacc)
		template memacc
		head -c 4096 "$out/tmpl.memacc/memacc" >"$w/seeds/memacc" ;;
	*) cp "$top/tests/fuzz/corpus/$t"/* "$w/seeds/" ;;
	esac
	n0=$(find "$w/crashes" -type f ! -name "slow-unit-*" | wc -l)
	t0=$(date +%s)
	per=$(((runs + jobs - 1) / jobs))
	pids=
	k=1
	while [ "$k" -le "$jobs" ]; do
		lg=$(log_of "$k")
		LSD_FUZZ_BUNDLE=$out/tmpl.$t.lsc nice -n 19 "$F/fuzz_$t" -runs="$per" \
			-max_total_time="$secs" -timeout=60 -print_final_stats=1 \
			-artifact_prefix="$w/crashes/" "$w/corpus" "$w/seeds" >"$lg" 2>&1 &
		pids="$pids $!"
		k=$((k + 1))
	done
	# until all are done, or a crash file stops the rest
	while :; do
		left=
		for p in $pids; do
			kill -0 "$p" 2>/dev/null && left="$left $p"
		done
		[ -z "$left" ] && break
		if [ "$(find "$w/crashes" -type f ! -name "slow-unit-*" | wc -l)" -gt "$n0" ]; then
			sleep 5		# the crashing process writes its stats
			kill $left 2>/dev/null
		fi
		sleep 1
	done
	wait
	el=$(($(date +%s) - t0))
	ex=0 eps=0 cov= ft=
	k=1
	while [ "$k" -le "$jobs" ]; do
		lg=$(log_of "$k")
		k=$((k + 1))
		e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$lg" | tail -1)
		# a process stopped by the others' crash: its last status line
		[ -n "$e" ] || e=$(sed -n 's/^#\([0-9][0-9]*\)[^0-9].*/\1/p' "$lg" | tail -1)
		r=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$lg" | tail -1)
		c=$(grep -o 'cov: [0-9]*' "$lg" | tail -1 | cut -d' ' -f2)
		f=$(grep -o 'ft: [0-9]*' "$lg" | tail -1 | cut -d' ' -f2)
		ex=$((ex + ${e:-0}))
		eps=$((eps + ${r:-0}))
		[ -n "$c" ] && { [ -z "$cov" ] || [ "$c" -gt "$cov" ]; } && cov=$c
		[ -n "$f" ] && { [ -z "$ft" ] || [ "$f" -gt "$ft" ]; } && ft=$f
	done
	nc=$(find "$w/crashes" -type f ! -name "slow-unit-*" | wc -l)
	printf '%-9s %10s %8s %8s %7s %7s %7s\n' "$t" "${ex:-?}" "${eps:-?}" "$el" \
		"${cov:-?}" "${ft:-?}" "$nc"
	if [ "$nc" -ne 0 ]; then
		bad=1
		find "$w/crashes" -type f ! -name "slow-unit-*" | sed 's/^/  crash: /'
		k=1
		while [ "$k" -le "$jobs" ]; do
			grep -m1 -A8 'ERROR: \|runtime error\|deadly signal' "$(log_of "$k")"
			k=$((k + 1))
		done | sed 's/^/  /'
	fi
done
exit $bad
