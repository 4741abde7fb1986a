#!/bin/sh
# t0658-analyze-tee.sh - the graph of `analyze --cfg / --structural /
# --cpi` built on a thread of its own, beside the loop detector, from the
# same decoded blocks (lsd_decode_all_tee(), decoder/pipe.c).
#
# The oracle is the one-thread analysis: `analyze -j1` runs the detector
# and the graph one after the other on the calling thread, block by
# block in the decoder's order, and LOOPSCOPE_REFERENCE=1 does so with
# libipt's block decoder (t0208 checks both against libipt, t0655 the
# graph's counts against hand counts).  With 2 and 4 jobs the graph runs
# on its own thread: every profile must be the same bytes.  Bundles:
# programs with nests, calls, threads, signals and longjmp; a per-CPU
# bundle (lsb_percpu: threads move between streams); damaged streams
# (ptcorrupt: losses); a sampled bundle (--cpi).  teecheck compares the
# tee's callbacks with lsd_decode_all()'s, call for call, on 0, 1 and 2
# threads, and that a callback error on either side ends the decode with
# that error.  A view that builds the graph alone from a bundle (export
# --edges) pipes its decode too: its edges are those of -j1's profile.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

# jobs_same B OPTS: analyze OPTS of B on 1, 2 and 4 jobs and on the
# reference path: the same profile bytes.
jobs_same() {
	b=$1; shift
	"$LOOPSCOPE" analyze -q -j1 "$@" -o j1.lsprof "$b" 2>j1.err; rc1=$?
	t_eq "$b: analyze $* -j1 runs" 0 "$rc1"
	t_ok "$b: ... and its profile has the graph's edges" grep -q '^cedge	' j1.lsprof
	for j in 2 4; do
		"$LOOPSCOPE" analyze -q -j$j "$@" -o j$j.lsprof "$b" 2>j$j.err
		t_ok "$b: analyze $* -j$j gives -j1's profile" cmp j1.lsprof j$j.lsprof
	done
	LOOPSCOPE_REFERENCE=1 "$LOOPSCOPE" analyze -q -j2 "$@" -o jr.lsprof "$b" 2>jr.err
	t_ok "$b: ... and so does the reference path" cmp j1.lsprof jr.lsprof
}

for a in "gotonest 10 5 11" "lp_threads" "vg_sig" "lp_jmp" "lp_recur"; do
	n=${a%% *}
	# shellcheck disable=SC2086
	"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o "$n.lsc" -- \
		"$TD/"$a >/dev/null 2>&1 </dev/null
	t_ok "$n: recorded" test -s "$n.lsc"
	jobs_same "$n.lsc" --cfg --structural
	t_ok "$n: teecheck" "$BUILD/tests/teecheck" "$n.lsc"
	# a graph-only view of the bundle builds the graph with the decode
	# piped (lsa_cfg_opts.jobs): the edges of -j1's profile
	"$LOOPSCOPE" export --edges --format=csv "$n.lsc" >b.csv 2>/dev/null
	"$LOOPSCOPE" export --edges --format=csv j1.lsprof >p.csv 2>/dev/null
	t_ok "$n: export --edges of the bundle, as of the profile" cmp b.csv p.csv
done

# Per-CPU streams: two programs' threads on two CPUs, with migration.
t_percpu_bundle
t_ok "a per-CPU bundle" test -s pc.lsc
jobs_same pc.lsc --cfg --structural
t_ok "pc: teecheck" "$BUILD/tests/teecheck" pc.lsc

# Damaged streams: losses where the damage is.
"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o nested.lsc -- "$TD/nested" \
	>/dev/null 2>&1
t_damaged nested.lsc
for b in smash.lsc cut.lsc; do
	t_ok "$b written" test -s "$b"
	jobs_same "$b" --cfg
	t_ok "$b: teecheck" "$BUILD/tests/teecheck" "$b"
done
t_ok "smash.lsc: the profile counts its losses" \
	sh -c '"$1" info --decode --format=json smash.lsc | grep -q "\"losses\": [1-9]"' sh "$LOOPSCOPE"

# A sampled bundle: the CPI tables and the graph they share.
if "$LOOPSCOPE" record -q --sample-freq=2000 --psb-period 512 --chunk-size 4096 \
	-o s.lsc -- "$TD/spin" 20 100 >/dev/null 2>&1; then
	jobs_same s.lsc --cpi --cfg --structural
	t_ok "s: the profile has CPI records" grep -q '^cpifunc	' j1.lsprof
fi

