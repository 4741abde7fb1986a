#!/bin/sh
# tests/run.sh - runs every unit test binary and every tNNNN-*.sh script.
# Each prints TAP-style lines ("ok ..." / "not ok ..."); a test program
# that exits non-zero without a "not ok" line counts as one failure.
# The last line is "N passed, N failed".
# TESTS='t06* unit_loops' runs only the tests whose names match one of
# the patterns (shell globs, without .sh or .c), for work on one part.
# The tests run LS_TEST_JOBS at a time (default: the online CPUs, at most
# 8; 1: one after the other); each one's lines come whole, in the order
# they end.
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$top/$BUILD" 2>/dev/null && pwd || echo "$BUILD")
export BUILD LSTOP="$top" LOOPSCOPE="$BUILD/loopscope" TESTDATA="$BUILD/testdata"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The decoder's cache of embedded executables goes where the tests can
# throw it away, not into the user's ~/.cache.  (Writers of the cache
# rename a finished file into place: tests may share it.)
export LOOPSCOPE_CACHE="$tmp/cache"

wanted() {
	[ -z "${TESTS:-}" ] && return 0
	set -f	# the patterns are for names, not for files here
	for pat in $TESTS; do
		case $1 in $pat) set +f; return 0 ;; esac
	done
	set +f
	return 1
}

# run_one N NAME CMD...: runs test N, writes its lines to $tmp/res.N and
# its counts to $tmp/cnt.N, then prints the lines (under a lock, so that
# a test's lines stay together).
run_one() {
	i=$1 name=$2; shift 2
	out="$tmp/out.$i" err="$tmp/err.$i" res="$tmp/res.$i"
	t0=$(date +%s)
	"$@" >"$out" 2>"$err" </dev/null
	rc=$?
	secs=$(($(date +%s) - t0))
	p=$(grep -c '^ok' "$out")
	f=$(grep -c '^not ok' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited with status $rc" >>"$out"
		f=1
	fi
	if [ "$f" -ne 0 ]; then
		{
			echo "--- $name: $p passed, $f failed ($secs s)"
			# (each failure with the "#" lines right after it, its
			# own diagnostics: a test's other "#" lines may be many)
			awk '/^not ok/ { print; k = 20; next }
			     /^#/ && k > 0 { print; k--; next }
			     { k = 0 }' "$out" | head -60
			tail -20 "$err"
		} >"$res"
	elif grep -q '^ok .*# skip' "$out"; then
		echo "--- $name: $p passed, skipped: $(sed -n 's/^ok .*# skip //p' "$out" | paste -sd';' -) ($secs s)" >"$res"
	else
		echo "--- $name: $p passed ($secs s)" >"$res"
	fi
	rm -f "$out" "$err"
	echo "$p $f" >"$tmp/cnt.$i"
	# (a lane killed while it held the lock would hold it for ever:
	# after a minute the lines go out anyway)
	w=0
	until mkdir "$tmp/lock" 2>/dev/null || [ "$w" -ge 600 ]; do
		sleep 0.1
		w=$((w + 1))
	done
	cat "$res"
	rmdir "$tmp/lock" 2>/dev/null
}

# The list: N, name, how to run it.
n=0
for t in "$top"/tests/unit/*.c; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .c)
	wanted "$name" || continue
	n=$((n + 1))
	printf '%s\t%s\t%s\n' "$n" "$name" "$BUILD/tests/$name" >>"$tmp/list"
done
for t in "$top"/tests/t[0-9]*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	wanted "$name" || continue
	n=$((n + 1))
	printf '%s\t%s\t%s\n' "$n" "$(basename "$t")" "$t" >>"$tmp/list"
done

# A lane takes the next test no other lane has claimed (mkdir is atomic),
# so the long tests do not all wait in one lane.
lane() {
	[ -e "$tmp/list" ] || return 0
	while IFS='	' read -r i name path; do
		mkdir "$tmp/claim.$i" 2>/dev/null || continue
		case $path in
		*.sh) run_one "$i" "$name" sh "$path" ;;
		*) run_one "$i" "$name" "$path" ;;
		esac
	done <"$tmp/list"
}

# (at most 8 by default: each test runs its own analyses, most of them
# on every CPU already)
jobs=${LS_TEST_JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
case $jobs in ''|*[!0-9]*|0) jobs=1 ;; esac
[ -n "${LS_TEST_JOBS:-}" ] || [ "$jobs" -le 8 ] || jobs=8
k=1
while [ "$k" -lt "$jobs" ]; do
	lane &
	k=$((k + 1))
done
lane
wait

pass=0
fail=0
i=1
while [ "$i" -le "$n" ]; do
	if [ -e "$tmp/cnt.$i" ]; then
		read -r p f <"$tmp/cnt.$i"
	else	# (a lane that died: the test never ran)
		name=$(sed -n "${i}p" "$tmp/list" | cut -f2)
		echo "--- $name: did not run"
		p=0 f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	i=$((i + 1))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
