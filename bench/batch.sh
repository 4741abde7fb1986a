#!/bin/bash
# bench/batch.sh [BUILD [N]] - loopscope-batch over 20 bundles: the sum of
# single analyses beside `batch --local` at 1 and N cores (default: the
# online CPUs) and, where a Slurm is reachable (sinfo answers, SLURM_CONF
# may point at it), the same through Slurm; wall seconds and the ratio of
# each to the sum.  Every merged profile is compared with analyze + merge.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$top/build}
N=${2:-$(getconf _NPROCESSORS_ONLN)}
LS=$B/loopscope
BATCH=$top/cluster/loopscope-batch
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export LOOPSCOPE_CACHE=$W/cache
progs="calls nested lp_trips lp_calls lp_recur recursion lp_threads threads signals inl"
i=0
for r in 1 2; do
	for p in $progs; do
		"$LS" record -q -o "$W/b$i.lsc" -- "$B/testdata/$p" >/dev/null 2>&1
		echo "$W/b$i.lsc" >>"$W/list"
		i=$((i + 1))
	done
done
now() { date +%s.%N; }
t0=$(now)
set --
while read -r b; do
	"$LS" analyze -q -j 1 -o "$b.lsprof" "$b"
	set -- "$@" "$b.lsprof"
done <"$W/list"
"$LS" merge -o "$W/ref.lsprof" "$@"
sum=$(echo "$(now) - $t0" | bc)
printf '%-24s %8s %8s %s\n' run wall_s ratio same
printf '%-24s %8.2f %8.2f %s\n' "sum of 20 analyses" "$sum" 1 yes
run() {	# run NAME batch-options...
	name=$1; shift
	rm -rf "$W/out.lsprof" "$W/out.lsprof.d"
	t0=$(now)
	"$BATCH" "$@" --loopscope="$LS" -o "$W/out.lsprof" @"$W/list" 2>/dev/null
	t=$(echo "$(now) - $t0" | bc)
	same=no; cmp -s "$W/ref.lsprof" "$W/out.lsprof" && same=yes
	printf '%-24s %8.2f %8.2f %s\n' "$name" "$t" "$(echo "$t / $sum" | bc -l)" "$same"
}
run "batch --local -j 1" --local -j 1
run "batch --local -j $N" --local -j "$N"
if command -v sinfo >/dev/null && sinfo -h >/dev/null 2>&1; then
	run "batch on Slurm" 
else
	echo "no Slurm reachable: skipped the Slurm run"
fi
