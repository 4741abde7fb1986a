#!/bin/sh
# t0222-analyze-tape: analyze's second pass takes the first pass's blocks
# from a tape (decoder/tape.c) instead of decoding again, where the tape
# holds them (at most LOOPSCOPE_TAPE_MAX bytes, 128 MiB by default) and
# they are worth holding (a word for every 4 bytes of PT at most: a chain
# or trail the decoder hands out again is one word).
#
# The oracles: the same analysis with no tape (LOOPSCOPE_TAPE_MAX=0: both
# passes decode) and the reference path (LOOPSCOPE_REFERENCE=1: libipt's
# block decoder, the detector block by block; t0208/t0209 hold the rest
# to it), every profile the same bytes; and, below the profile, tapecheck:
# the replay's calls are the recorded decode's, every field of every
# block and the batches too, and a second decode's blocks are the same.
# Where the tape held the whole decode, loopdump's tape_blocks equals its
# blocks (the second pass took every block from it); where it did not,
# tape_blocks is 0, tape_drop says why, and the second pass decoded.
# Chunk by chunk (two jobs record the learning pass's decode so, on the
# decoding thread): tapecheck -c replays each stream's chunks alone, one,
# two and all at a time, and they must give the whole replay's blocks
# and losses and each chunk the decoder's count of blocks; analyze -j2's
# profile is -j1's, and where its learning pass recorded the whole tape
# the second pass's pieces replayed it (loopdump's pieces_taped: every
# piece but the one a following pass ran, where it ran: follow_first).
# Bundles: every testdata program (threads, signals, longjmp, faults,
# calls through the PLT) in 4 KB chunks with a PSB every 512 bytes;
# damaged streams (ptcorrupt: losses replayed in their place); a per-CPU
# bundle (thread switches replayed); the real quipper recording.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

# same B [TAPE_MAX]: B's profile with the tape (bounded by TAPE_MAX bytes
# if given) is that of no tape and the reference's; $tb, $nb loopdump's
# tape_blocks and blocks with that bound.
# bounded CMD...: CMD with LOOPSCOPE_TAPE_MAX=$max where max is set.
bounded() {
	if [ -n "$max" ]; then
		LOOPSCOPE_TAPE_MAX=$max "$@"
	else
		"$@"
	fi
}
same() {
	b=$1
	max=${2:-}
	bounded "$LOOPSCOPE" analyze -q -j1 -o tape.lsprof "$b" 2>tape.err; trc=$?
	bounded "$BUILD/tests/loopdump" -j 1 "$b" >/dev/null 2>st.err
	LOOPSCOPE_TAPE_MAX=0 "$LOOPSCOPE" analyze -q -j1 -o dec.lsprof "$b" 2>dec.err; drc=$?
	LOOPSCOPE_REFERENCE=1 "$LOOPSCOPE" analyze -q -j1 -o ref.lsprof "$b" 2>ref.err; rrc=$?
	t_ok "$b: the profile with the tape is that of two decodes" \
		sh -c "[ $trc = $drc ] && cmp -s tape.lsprof dec.lsprof && cmp -s tape.err dec.err"
	t_ok "$b: ... and the reference's" \
		sh -c "[ $trc = $rrc ] && cmp -s tape.lsprof ref.lsprof"
	tb=$(sed -n 's/^tape_blocks \([0-9]*\) .*/\1/p' st.err)
	nb=$(sed -n 's/^blocks \([0-9]*\) .*/\1/p' st.err)
	why=$(sed -n 's/^tape_blocks .* tape_drop \([a-z]*\) .*/\1/p' st.err)
	# (tapecheck exits 1 where a replay differs)
	"$BUILD/tests/tapecheck" "$b" ${max:+"$max"} >tc.out 2>tc.err; tcrc=$?
	t_ok "$b: tapecheck: the replay's blocks are the decode's, field by field" \
		sh -c "[ $tcrc = 0 ] && grep -q '^again ' tc.out"
	# chunk by chunk, as two jobs record it: each chunk's records, one,
	# two or all at a time, replay the whole's blocks and losses
	"$BUILD/tests/tapecheck" -c "$b" ${max:+"$max"} >tcc.out 2>tcc.err; tcrc=$?
	t_ok "$b: tapecheck -c: chunks replayed alone are the decode's" \
		sh -c "[ $tcrc = 0 ] && grep -q '^again ' tcc.out"
	ck=$(sed -n 's/^chunks \([a-z]*\).*/\1/p' tcc.out)
	# two jobs: the second pass's pieces replay the learning pass's
	# tape where it holds their chunks (pieces_taped), the profile the
	# same bytes
	bounded "$LOOPSCOPE" analyze -q -j2 -o tape2.lsprof "$b" 2>tape2.err; t2rc=$?
	bounded "$BUILD/tests/loopdump" -j 2 "$b" >/dev/null 2>st2.err
	t_ok "$b: two jobs' profile is one's" \
		sh -c "[ $t2rc = $drc ] && cmp -s tape2.lsprof dec.lsprof && cmp -s tape2.err dec.err"
	np=$(sed -n 's/.* pieces \([0-9]*\) .*/\1/p' st2.err)
	nt=$(sed -n 's/.* pieces_taped \([0-9]*\) .*/\1/p' st2.err)
	ff=$(sed -n 's/.* follow_first \([0-9]*\).*/\1/p' st2.err)
	tb2=$(sed -n 's/^tape_blocks \([0-9]*\) .*/\1/p' st2.err)
	echo "# $b: chunks ${ck:-?} pieces ${np:-?} taped ${nt:-?} followed ${ff:-?} tape ${tb2:-?}/${nb:-?}"
	# (where the learning pass at two jobs recorded it whole: its
	# decode was piped, not in halves; the first pieces, where a
	# following pass ran them beside it, are one piece of its own)
	if [ "${tb2:--1}" = "${nb:--2}" ] && [ "$ck" = ones ]; then
		t_eq "$b: two jobs: every piece not followed replayed the tape" \
			"$((${np:-0} - (${ff:-0} > 0)))" "${nt:--1}"
	fi
}

# (vg_exitkill spins through 10^8 blocks, cpibench fills 1 MB)
for p in $(t_progs vg_exitkill cpibench); do
	t_recorded "$p" --psb-period 512 --chunk-size 4096 || continue
	same "$p.lsc"
	t_ok "$p: the second pass took all its $nb blocks from the tape" \
		test "${tb:--1}" = "${nb:--2}"
done

t_damaged nested.lsc
for b in smash.lsc cut.lsc; do
	t_ok "$b written" test -s "$b"
	same "$b"
	t_ok "$b: the second pass took all its $nb blocks from the tape" \
		test "${tb:--1}" = "${nb:--2}"
done

t_percpu_bundle
t_ok "a per-CPU bundle of nested and calls on two CPUs" test -s pc.lsc
same pc.lsc
t_ok "pc.lsc: the second pass took all its $nb blocks from the tape" \
	test "${tb:--1}" = "${nb:--2}"

# The real recording (per-CPU, without its binaries: every block a loss).
Q=$T_REAL/quipper/perf.data.intel_pt-4.14
if [ -f "$Q" ]; then
	"$LOOPSCOPE" import -q "$Q" -o q.lsc >/dev/null 2>&1
	t_ok "quipper imported" test -s q.lsc
	same q.lsc
fi

# 3M blocks (the inner loop's one block 3 x 10^6 times) in chains of
# conditional branches: the default bound holds them, under 2^20 words
# (the tape looks at its worth from there on).
"$LOOPSCOPE" record -q -o big.lsc -- "$TD/spin" 3 1000000 >/dev/null 2>&1
t_ok "spin 3 1000000 recorded" test -s big.lsc
same big.lsc
t_ok "big.lsc: over 3M blocks ($nb)" test "${nb:-0}" -gt 3000000
t_ok "big.lsc: the second pass took all its blocks from the tape" \
	test "${tb:--1}" = "${nb:--2}"
w=$(sed -n 's/^tape_words \([0-9]*\) .*/\1/p' tc.out)
refs=$(sed -n 's/^tape_words [0-9]* tape_refs \([0-9]*\) .*/\1/p' tc.out)
t_ok "big.lsc: its chains named, not written out: $w words for $nb blocks" \
	test "${w:-0}" -gt 0 -a "$((${w:-0} * 4))" -lt "${nb:-0}" -a "${refs:-0}" -gt 0
# 21M blocks: at 3.5M words a segment (8 MiB, 2^21 words) cannot hold
# them; the default bound could, but a word for 1.2 bytes of PT is not
# worth it (its chains decode as fast as they replay): dropped either
# way, each for its reason, and the second pass decoded.
"$LOOPSCOPE" record -q -o huge.lsc -- "$TD/spin" 3 7000000 >/dev/null 2>&1
t_ok "spin 3 7000000 recorded" test -s huge.lsc
same huge.lsc 1
t_eq "huge.lsc, a tape of one segment: dropped, the second pass decoded" 0 "$tb"
t_eq "huge.lsc, a tape of one segment: dropped for its bound" bound "$why"
t_eq "huge.lsc: tapecheck's tape of one segment dropped too" "replayed none" \
	"$(grep '^replayed' tc.out)"
same huge.lsc
t_eq "huge.lsc, the default bound: dropped, the second pass decoded" 0 "$tb"
t_eq "huge.lsc, the default bound: dropped as not worth its words" worth "$why"
t_ok "huge.lsc: over 21M blocks ($nb)" test "${nb:-0}" -gt 21000000

