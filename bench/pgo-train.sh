#!/bin/sh
# bench/pgo-train.sh - the training run of `make pgo`: BUILD's loopscope,
# built with -fprofile-generate, records programs with its Valgrind tool
# and analyzes each bundle as a user does (the fast path on one job and
# on two, the block stream alone, the reports), so that GCC's counts say
# which paths of the decoder and the detector are hot and which are not.
#
# The programs are testdata/'s own, written by hand for the tests: loop
# nests, calls direct, through pointers and through PLTs, recursion,
# irreducible loops, threads, signals, a busy loop.  None of bench/'s
# measured programs (xz, bzip2, sqlite3, the kernels) is among them, so
# what the bench measures of a profile-guided build is not a program the
# build was trained on.
#
# Usage: bench/pgo-train.sh BUILD
set -eu
B=${1:?usage: bench/pgo-train.sh BUILD}
LS=$B/loopscope
out=$B/pgo-train
[ -x "$LS" ] || { echo "pgo-train: no $LS" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
# (the Valgrind tool of this build, not an installed one)
LOOPSCOPE_VGLIB=$B/vglib
export LOOPSCOPE_VGLIB
n=0
for p in nested calls deepcalls deeptips pltnest recursion irred fig1 \
	lp_trips lp_calls cpimix signals threads spin; do
	prog=$B/testdata/$p
	[ -x "$prog" ] || { echo "pgo-train: no $prog" >&2; exit 1; }
	# (spin: a loop of one block, 2 million times, as a numeric
	# kernel's innermost; the others as the tests run them)
	case $p in
	spin) args="200 10000" ;;
	*) args= ;;
	esac
	# shellcheck disable=SC2086
	"$LS" record -q -o "$out/$p.lsc" -- "$prog" $args >/dev/null
	"$LS" analyze -q -j 1 -o "$out/$p.lsprof" "$out/$p.lsc"
	"$LS" analyze -q -j 2 -o "$out/$p.2.lsprof" "$out/$p.lsc"
	"$LS" info --decode "$out/$p.lsc" >/dev/null
	"$LS" report "$out/$p.lsprof" >/dev/null
	"$LS" report --tree "$out/$p.lsprof" >/dev/null
	n=$((n + 1))
done
# (the bundles are 1 MB each: only the counts are kept)
rm -rf "$out"
echo "pgo-train: trained on $n programs"
