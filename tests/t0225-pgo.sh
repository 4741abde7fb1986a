#!/bin/sh
# t0225-pgo: `make pgo` builds a profile-guided loopscope (GCC's
# -fprofile-generate, bench/pgo-train.sh's training run, -fprofile-use)
# into PGO_BUILD without a warning, and that binary is this one in all it
# prints: the oracle is this build's output on the same bundles, byte for
# byte (analyze on one job and two, dump, info --decode), as bench/'s
# programs are held to it in doc/performance.md.  The refusals run always;
# the build (about 2 minutes on 2 cores) with LS_SLOW_TESTS=1.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1

t_need_recorder
# (GCC: __GNUC__ defined and __clang__ not, as the Makefile asks)
if ! printf '#if !defined(__GNUC__) || defined(__clang__)\n#error\n#endif\n' |
	${CC:-cc} -E -x c - >/dev/null 2>&1; then
	echo "ok 1 # skip ${CC:-cc} is not GCC"
	exit 0
fi

P=$T_TMP/pgo
t_fail "make pgo refuses PGO_BUILD=BUILD (it would remove that build)" \
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$LSTOP" --no-print-directory pgo \
	PGO_BUILD="$BUILD" SANITIZE=
t_ok "... and leaves it there" test -x "$BUILD/loopscope"
# (false(1) --version names the Free Software Foundation, as GCC's does:
# the compiler's macros, not its banner, say what it is)
t_fail "make pgo refuses a compiler that is not GCC" \
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$LSTOP" --no-print-directory pgo \
	PGO_BUILD="$T_TMP/notgcc" CC=false SANITIZE=
t_ok "... before it builds anything" test ! -e "$T_TMP/notgcc"
# The build itself compiles loopscope twice around a training run: about
# 2 minutes of both cores on the 2-core VM, a slow check (make check stays
# within CI's 15 minutes), run with LS_SLOW_TESTS=1.
if [ "${LS_SLOW_TESTS:-0}" != 1 ]; then
	echo "ok $((t_n + 1)) # skip the profile-guided build (about 2 minutes of both cores); LS_SLOW_TESTS=1 builds it"
	exit 0
fi
# (a build of its own: not the caller's make's jobs, sanitizers or flags)
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$LSTOP" --no-print-directory -j2 pgo \
	PGO_BUILD="$P" SANITIZE= CFLAGS='-O2 -g' >pgo.log 2>&1
rc=$?
t_eq "make pgo succeeds" 0 "$rc"
[ "$rc" = 0 ] || tail -20 pgo.log | sed 's/^/#   /'
t_fail "... without a warning" grep -q 'warning:' pgo.log
t_grep "its training ran on testdata's 14 programs" 'pgo-train: trained on 14 programs' pgo.log
t_ok "... and left GCC's counts for the detector and the decoder" \
	test -s "$P/analysis/loops_erun.gcda" -a -s "$P/decoder/fast.gcda"
t_grep "the objects were compiled again with them" 'fprofile-use.*-c analysis/loops_erun.c' pgo.log
t_ok "the profile-guided binary is there" test -x "$P/loopscope"
[ -x "$P/loopscope" ] || exit 0

for p in nested calls pltnest deeptips signals threads; do
	t_record_prog "$p" || continue
	for j in 1 2; do
		"$LOOPSCOPE" analyze -q -j $j -o a.lsprof "$p.lsc" 2>a.err
		"$P/loopscope" analyze -q -j $j -o b.lsprof "$p.lsc" 2>b.err
		t_ok "$p: analyze -j$j's profile is this build's" \
			sh -c 'cmp -s a.lsprof b.lsprof && cmp -s a.err b.err'
	done
	"$LOOPSCOPE" dump "$p.lsc" >a.out 2>&1
	"$P/loopscope" dump "$p.lsc" >b.out 2>&1
	t_ok "$p: dump is this build's" cmp -s a.out b.out
	"$LOOPSCOPE" info --decode "$p.lsc" >a.out 2>&1
	"$P/loopscope" info --decode "$p.lsc" >b.out 2>&1
	t_ok "$p: info --decode is this build's" cmp -s a.out b.out
done
