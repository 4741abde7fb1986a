#!/bin/sh
# t0222-analyze-tape: analyze's second pass takes the first pass's blocks
# from a tape (decoder/tape.c) instead of decoding again, where the tape
# holds them (at most LOOPSCOPE_TAPE_MAX bytes, 128 MiB by default).
#
# The oracle: the same analysis with no tape (LOOPSCOPE_TAPE_MAX=0: both
# passes decode) and the reference path (LOOPSCOPE_REFERENCE=1: libipt's
# block decoder, the detector block by block; t0208/t0209 hold the rest
# to it); every profile the same bytes.  Where the tape held the whole
# decode, loopdump's tape_blocks equals its blocks (the second pass took
# every block from it); where it could not (a bound of one segment, 8 MiB,
# about 2M blocks, below spin 3 1000000's 3M), tape_blocks is 0 and the
# second pass decoded.  Bundles: every testdata program (threads, signals,
# longjmp, faults, calls through the PLT) in 4 KB chunks with a PSB every
# 512 bytes; damaged streams (ptcorrupt: losses replayed in their place);
# a per-CPU bundle (thread switches replayed).
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

# same B [TAPE_MAX]: B's profile with the tape (bounded by TAPE_MAX bytes
# if given) is that of no tape and the reference's; $tb, $nb loopdump's
# tape_blocks and blocks with that bound.
same() {
	b=$1
	if [ -n "${2:-}" ]; then
		LOOPSCOPE_TAPE_MAX=$2 "$LOOPSCOPE" analyze -q -j1 -o tape.lsprof "$b" 2>tape.err
		trc=$?
		LOOPSCOPE_TAPE_MAX=$2 "$BUILD/tests/loopdump" -j 1 "$b" >/dev/null 2>st.err
	else
		"$LOOPSCOPE" analyze -q -j1 -o tape.lsprof "$b" 2>tape.err; trc=$?
		"$BUILD/tests/loopdump" -j 1 "$b" >/dev/null 2>st.err
	fi
	LOOPSCOPE_TAPE_MAX=0 "$LOOPSCOPE" analyze -q -j1 -o dec.lsprof "$b" 2>dec.err; drc=$?
	LOOPSCOPE_REFERENCE=1 "$LOOPSCOPE" analyze -q -j1 -o ref.lsprof "$b" 2>ref.err; rrc=$?
	t_ok "$b: the profile with the tape is that of two decodes" \
		sh -c "[ $trc = $drc ] && cmp -s tape.lsprof dec.lsprof && cmp -s tape.err dec.err"
	t_ok "$b: ... and the reference's" \
		sh -c "[ $trc = $rrc ] && cmp -s tape.lsprof ref.lsprof"
	tb=$(sed -n 's/^tape_blocks \([0-9]*\) .*/\1/p' st.err)
	nb=$(sed -n 's/^blocks \([0-9]*\) .*/\1/p' st.err)
}

for src in "$LSTOP"/testdata/*.c; do
	p=$(basename "$src" .c)
	[ -x "$TD/$p" ] || continue
	# (vg_exitkill spins through 10^8 blocks, cpibench fills 1 MB)
	case $p in vg_exitkill|cpibench) continue ;; esac
	t_record_prog "$p" --psb-period 512 --chunk-size 4096
	[ -s "$p.lsc" ] || { echo "not ok $((t_n += 1)) - $p: recorded"; continue; }
	same "$p.lsc"
	t_ok "$p: the second pass took all its $nb blocks from the tape" \
		test "${tb:--1}" = "${nb:--2}"
done

sid=$(t_first_stream nested.lsc)
"$BUILD/tests/ptcorrupt" write nested.lsc smash.lsc "$sid" smash:3000 smash:9000 >/dev/null 2>&1
"$BUILD/tests/ptcorrupt" write nested.lsc cut.lsc "$sid" cut:6000 >/dev/null 2>&1
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

# 3M blocks (the inner loop's one block 3 x 10^6 times): one segment of
# tape cannot hold them, the second pass decodes; the default bound can.
"$LOOPSCOPE" record -q -o big.lsc -- "$TD/spin" 3 1000000 >/dev/null 2>&1
t_ok "spin 3 1000000 recorded" test -s big.lsc
same big.lsc 1
t_eq "big.lsc, a tape of one segment: dropped, the second pass decoded" 0 "$tb"
t_ok "big.lsc: over 3M blocks ($nb)" test "${nb:-0}" -gt 3000000
same big.lsc
t_ok "big.lsc, the default bound: all its $nb blocks from the tape" \
	test "${tb:--1}" = "${nb:--2}"

