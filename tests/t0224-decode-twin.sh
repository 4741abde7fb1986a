#!/bin/sh
# t0224-decode-twin.sh - runs of chunks decoded by a twin decoder
# (decoder/twin.c, lsd_decode_chunks()) are the whole stream's blocks,
# and lsd_chunk_starts() says where each chunk's begin.
#
# The oracle is the whole stream's decode (lsd_decode_stream(); t0201 and
# t0208 check it against libipt's own decoders and native counts): its
# blocks in order, each as static block, exit and next IP.  twincheck
# (tests/tools/twincheck.c) checks that the chunk starts run from 0 to the
# stream's blocks, and that a twin's decode of every chunk alone, of
# every two, and of the stream in three parts gives the oracle's blocks
# between those starts, block for block, once its static blocks are
# named by the first decoder's (lsd_sbmap_find()); and that a twin
# sharing the first decoder's static blocks (lsd_twin_share(), as the
# analysis' second pass on several jobs decodes its pieces:
# analysis/loops_dpieces.c, t0659) hands out the oracle's very records on
# the same runs, while one given a share of no block (taken before the
# first decoded anything) stops at once with -LS_EUNSUP, making none;
# and that the twin reads from the bundle only the chunks its first
# decoder did not keep from the open's scan (lsd_chunk_reads(): the
# others it takes where the first keeps them; twincheck counts the
# chunks of its runs, and the one after each, outside the kept prefix).
# Programs in chunks of 4 KB (nests, calls, signals, threads:
# a stream each), damaged streams (a smashed and a cut chunk: losses
# where the chunks begin and end), the stream decoded by libipt alone
# (LOOPSCOPE_REFERENCE=1), and the real recording of
# ../shared/testdata-real (per-CPU streams of a chunk each).
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

for n in nested lp_calls vg_sig lp_threads; do
	"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o "$n.lsc" -- \
		"$TD/$n" >/dev/null 2>&1 </dev/null
	t_ok "$n: recorded" test -s "$n.lsc"
	nc=$("$LOOPSCOPE" info "$n.lsc" | awk '$2 == "thread" { n += $4 } END { print n + 0 }')
	# (two at least: lp_calls' PT is 7.6 KB with an empty environment,
	# 8.2 KB with 20 variables, in chunks of 4 KB)
	t_ok "$n: its streams have several chunks ($nc)" test "$nc" -ge 2
	"$BUILD/tests/twincheck" "$n.lsc" >tw.out 2>tw.err
	t_eq "$n: twincheck runs" 0 $?
	t_grep "$n: ... every check holds" "^all ok$" tw.out
	t_ok "$n: ... and it checked the chunks' runs" grep -q "^ok .*twin's blocks" tw.out
	t_ok "$n: ... by a twin that shares the first's static blocks too" \
		grep -q "^ok .*sharing twin's blocks are the whole decode's, the same records" tw.out
	t_ok "$n: ... and one sharing none stopped at once" \
		grep -q "^ok .*a twin sharing no block stops at once" tw.out
	t_ok "$n: ... and the twin read no chunk its first decoder kept" \
		grep -q "^ok .*the twin read only the chunks its first decoder did not keep" tw.out
done

# None kept (LOOPSCOPE_KEEP_CHUNKS=0): the twin reads every chunk it
# decodes, and the one after each run of them.
LOOPSCOPE_KEEP_CHUNKS=0 "$BUILD/tests/twincheck" vg_sig.lsc >tw.out 2>tw.err
t_eq "vg_sig, no chunk kept: twincheck runs" 0 $?
t_grep "vg_sig, no chunk kept: every check holds" "^all ok$" tw.out
t_ok "vg_sig, no chunk kept: the twin read its chunks itself" \
	grep -q "^ok .*the twin read only the chunks its first decoder did not keep" tw.out

LOOPSCOPE_REFERENCE=1 "$BUILD/tests/twincheck" vg_sig.lsc >tw.out 2>tw.err
t_eq "vg_sig, libipt alone: twincheck runs" 0 $?
t_grep "vg_sig, libipt alone: every check holds" "^all ok$" tw.out

t_damaged vg_sig.lsc
for b in smash.lsc cut.lsc; do
	t_ok "$b written" test -s "$b"
	"$BUILD/tests/twincheck" "$b" >tw.out 2>tw.err
	t_eq "$b: twincheck runs" 0 $?
	t_grep "$b: every check holds" "^all ok$" tw.out
done

Q=$T_REAL/quipper/perf.data.intel_pt-4.14
if [ -f "$Q" ]; then
	"$LOOPSCOPE" import -q "$Q" -o q.lsc >/dev/null 2>&1
	t_ok "quipper: imported" test -s q.lsc
	"$BUILD/tests/twincheck" q.lsc >tw.out 2>tw.err
	t_eq "quipper: twincheck runs" 0 $?
	t_grep "quipper: every check holds" "^all ok$" tw.out
fi

