#!/bin/sh
# tests/run.sh - runs every unit test binary and every tNNNN-*.sh script.
# Each prints TAP-style lines ("ok ..." / "not ok ..."); a test program
# that exits non-zero without a "not ok" line counts as one failure.
# The last line is "N passed, N failed".
# TESTS='t06* unit_loops' runs only the tests whose names match one of
# the patterns (shell globs, without .sh or .c), for work on one part.
BUILD=${BUILD:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$top/$BUILD" 2>/dev/null && pwd || echo "$BUILD")
export BUILD LSTOP="$top" LOOPSCOPE="$BUILD/loopscope" TESTDATA="$BUILD/testdata"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The decoder's cache of embedded executables goes where the tests can
# throw it away, not into the user's ~/.cache.
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

run_one() {
	name=$1; shift
	out="$tmp/out"
	t0=$(date +%s)
	"$@" >"$out" 2>"$tmp/err"
	rc=$?
	secs=$(($(date +%s) - t0))
	p=$(grep -c '^ok' "$out")
	f=$(grep -c '^not ok' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name exited with status $rc" >>"$out"
		f=1
	fi
	if [ "$f" -ne 0 ]; then
		echo "--- $name: $p passed, $f failed ($secs s)"
		grep '^not ok\|^#' "$out" | head -40
		tail -20 "$tmp/err"
	elif grep -q '^ok .*# skip' "$out"; then
		echo "--- $name: $p passed, skipped: $(sed -n 's/^ok .*# skip //p' "$out" | paste -sd';' -) ($secs s)"
	else
		echo "--- $name: $p passed ($secs s)"
	fi
	pass=$((pass + p))
	fail=$((fail + f))
}

for t in "$top"/tests/unit/*.c; do
	[ -e "$t" ] || continue
	n=$(basename "$t" .c)
	wanted "$n" || continue
	run_one "$n" "$BUILD/tests/$n"
done
for t in "$top"/tests/t[0-9]*.sh; do
	[ -e "$t" ] || continue
	wanted "$(basename "$t" .sh)" || continue
	run_one "$(basename "$t")" sh "$t"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
