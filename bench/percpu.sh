#!/bin/sh
# bench/percpu.sh - what following per-CPU streams costs: the same threads
# decoded from per-thread streams and from per-CPU streams, side by side
# (tests/tools/cpubench.c: lsd_open, then lsd_decode_all() to a no-op
# batch callback; best CPU seconds of 3).  xz and bzip2 compress 2 MB of
# text, recorded with `record --no-retcomp`; tests/tools/lsb_merge.c puts
# their streams in one per-thread bundle, tests/tools/lsb_percpu.c spreads
# them over 1 CPU, and over 2 with migrating threads (a run of 1 to 3
# system-call segments between switches).  Columns: open and decode
# seconds, and each divided by the per-thread bundle's.  The per-CPU open
# walks the packets with libipt's query decoder (heads_cpu.c) where a CPU
# ran several processes; the decode stops at every switch-in.
# Usage: bench/percpu.sh [BUILD]  (make all build/tests/cpubench
# build/tests/lsb_merge build/tests/lsb_percpu first; make check does)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in cpubench lsb_merge lsb_percpu; do
	[ -x "$B/tests/$t" ] || { echo "no $B/tests/$t; run make check" >&2; exit 1; }
done
. "$top/bench/inputs.sh"
bench_inputs "$tmp" 2000000 5000
"$B/loopscope" record -q --no-retcomp -o "$tmp/xz.lsc" -- xz -6 -c "$tmp/text" >/dev/null
"$B/loopscope" record -q --no-retcomp -o "$tmp/bz.lsc" -- bzip2 -c "$tmp/text" >/dev/null
"$B/tests/lsb_merge" "$tmp/thr.lsc" "$tmp/xz.lsc" "$tmp/bz.lsc"
"$B/tests/lsb_percpu" -c 1 "$tmp/one.lsc" "$tmp/xz.lsc" "$tmp/bz.lsc" >"$tmp/one.sched"
"$B/tests/lsb_percpu" -c 2 -m "$tmp/mig.lsc" "$tmp/xz.lsc" "$tmp/bz.lsc" >"$tmp/mig.sched"
printf '%-28s %12s %10s %9s %9s %9s %9s\n' bundle insns switches "open s" "decode s" open/thr dec/thr
base=$("$B/tests/cpubench" "$tmp/thr.lsc")
for b in thr one mig; do
	"$B/tests/cpubench" "$tmp/$b.lsc" | awk -v n="$b" -v base="$base" '
	BEGIN { split(base, f, " "); bo = f[2]; bd = f[4]
		name["thr"] = "per thread (xz, bzip2)"; name["one"] = "1 CPU"
		name["mig"] = "2 CPUs, migrating" }
	{ printf "%-28s %12.0f %10d %9.3f %9.3f %9.2f %9.2f\n", name[n], $8, $10, $2, $4,
		$2 / bo, $4 / bd }'
done
