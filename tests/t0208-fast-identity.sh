#!/bin/sh
# t0208-fast-identity: the fast path (decoder/fast.c) against the
# reference, libipt's block decoder on every chunk (LOOPSCOPE_REFERENCE=1):
# every command that decodes prints the same bytes either way.
#
# The oracle is libipt: the reference path is what every other decode
# test checks against native single-stepping, lackey and libipt's own
# decoders, so equal output here carries those checks over to the fast
# path.  Bundles: every testdata program, recorded with a PSB every 512
# bytes in 4 KB chunks (many chunk boundaries, each a fresh start for
# both paths, with the blocks after a chunk's last packet held back), a
# few without return compression, damaged streams (ptcorrupt), per-CPU
# streams (lsb_percpu) and the real quipper recording.  Compared: dump
# (every block with its exit and successor, every loss), info --decode
# (counts per thread and stream) on every bundle; analyze's profile (byte
# for byte), report --structural (CFG loops beside detected ones) and
# export --edges (every CFG edge count) on a dozen of every kind (each is
# a function of the blocks dump prints); on a sampled bundle, report
# --cpi and annotate.  Each bundle also says how many chunks the fast
# path took, so a fast path that gave up everywhere would fail the count
# checks.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

# fast_chunks BUNDLE: chunks the fast path decoded.
fast_chunks() {
	"$LOOPSCOPE" info --decode "$1" 2>/dev/null |
		sed -n 's/^  chunks: \([0-9]*\) by the fast path.*/\1/p'
}

# compare B: every decoding command on bundle B.
compare() {
	b=$1
	# vg_exitkill spins through 10^8 blocks (a 14 GB dump, 20 s of
	# libipt): for it, the totals per thread.
	case $b in
	vg_exitkill.lsc)
		t_same_ref "$b: info --decode" "$LOOPSCOPE" info --decode "$b"
		return ;;
	esac
	t_same_ref "$b: dump" sh -c '"$1" dump "$2" | cksum' sh "$LOOPSCOPE" "$b"
	t_same_ref "$b: info --decode" "$LOOPSCOPE" info --decode "$b"
	# Every analysis is a function of the blocks dump prints; these
	# check that on programs of every kind (calls, nests, threads,
	# signals, longjmp, recursion, irreducible and goto loops).
	case " $FULL " in
	*" ${b%.lsc} "*) ;;
	*) return ;;
	esac
	t_same_ref "$b: analyze's profile" sh -c '"$1" analyze -q -o p.lsprof "$2" && cat p.lsprof' \
		sh "$LOOPSCOPE" "$b"
	t_same_ref "$b: report --structural" "$LOOPSCOPE" report --structural "$b"
	t_same_ref "$b: export --edges" "$LOOPSCOPE" export --edges --format=csv "$b"
}
FULL="calls nested lp_calls lp_jmp lp_recur threads signals vg_sig irred gotonest nr_calls pc"

total_fast=0
for p in $(t_progs); do
	t_recorded "$p" --psb-period 512 --chunk-size 4096 || continue
	compare "$p.lsc"
	n=$(fast_chunks "$p.lsc")
	total_fast=$((total_fast + ${n:-0}))
done
# Hand-checked floor: every testdata bundle has more than one 4 KB chunk
# and ordinary user-space packets, so the fast path takes most of them.
t_ok "the fast path decoded chunks of the testdata bundles ($total_fast)" \
	test "$total_fast" -gt 100

# Without return compression: every return a TIP.
for p in calls lp_recur; do
	"$LOOPSCOPE" record -q --no-retcomp --psb-period 512 --chunk-size 4096 \
		-o "nr_$p.lsc" -- "$TD/$p" >/dev/null 2>&1
	compare "nr_$p.lsc"
done
t_ok "the fast path decodes a stream without return compression" \
	test "$(fast_chunks nr_calls.lsc)" -gt 0

# Damaged streams: smashed packets, a flipped byte, a cut stream.  The
# chunk with the damage goes to libipt, from its start; the fast path
# hands out nothing twice.
sid=$(t_first_stream nested.lsc)
"$BUILD/tests/ptcorrupt" write nested.lsc smash.lsc "$sid" smash:3000 smash:9000 >/dev/null 2>&1
"$BUILD/tests/ptcorrupt" write nested.lsc flip.lsc "$sid" flip:5000:0x40 flip:7001:0x01 >/dev/null 2>&1
"$BUILD/tests/ptcorrupt" write nested.lsc cut.lsc "$sid" cut:6000 >/dev/null 2>&1
for b in smash.lsc flip.lsc cut.lsc; do
	t_ok "$b written" test -s "$b"
	t_same_ref "$b: dump" "$LOOPSCOPE" dump "$b"
	t_same_ref "$b: info --decode" "$LOOPSCOPE" info --decode "$b"
	t_same_ref "$b: analyze's profile" sh -c '"$1" analyze -q -o p.lsprof "$2" && cat p.lsprof' \
		sh "$LOOPSCOPE" "$b"
done
t_ok "smash.lsc: a chunk goes to libipt" \
	sh -c '"$1" info --decode smash.lsc | grep -q "by the fast path, [1-9][0-9]* by libipt"' sh "$LOOPSCOPE"

# Per-CPU streams: with PT time the decoder follows thread switches,
# which libipt's block decoder does (no fast path); the same streams
# without time (no time.* conversion) go through the fast path.
t_percpu_bundle
t_ok "a per-CPU bundle of nested and calls on two CPUs" test -s pc.lsc
compare pc.lsc

# The real recording (per-CPU, without its binaries: every block is a
# loss, on either path).
Q=$T_REAL/quipper/perf.data.intel_pt-4.14
if [ -f "$Q" ]; then
	"$LOOPSCOPE" import -q "$Q" -o q.lsc >/dev/null 2>&1
	t_same_ref "quipper: dump" "$LOOPSCOPE" dump q.lsc
	t_same_ref "quipper: info --decode" "$LOOPSCOPE" info --decode q.lsc
fi

# A sampled bundle: CPI per loop and per instruction.
if "$LOOPSCOPE" record -q --sample-freq=2000 --psb-period 512 --chunk-size 4096 \
	-o s.lsc -- "$TD/spin" 20 100 >/dev/null 2>&1; then
	t_same_ref "sampled: report --cpi" "$LOOPSCOPE" report --cpi s.lsc
	t_same_ref "sampled: annotate" "$LOOPSCOPE" annotate s.lsc
fi
