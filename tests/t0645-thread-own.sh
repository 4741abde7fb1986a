#!/bin/sh
# t0645-thread-own: a thread's loop profile is decided by its own blocks,
# so that analyzing threads apart (--shard, or --jobs, which analyzes the
# shards of a bundle of several threads on threads of its own and merges
# them) gives the whole bundle's profile byte for byte.
#
# Expected numbers: the hand count in testdata/lp_tknow.c (thread A: count's
# loop, 1 entry of 200; thread B: no row for count's loop, which never
# iterates there, and its own loop of 3 iterations) and testdata/lp_threads.c
# (main and 4 workers: 5 threads, so at most 5 shards).  The oracle of the
# profiles is `analyze --jobs=1`, which runs the streams one after the
# other on one thread.
. "$LSTOP/tests/lib.sh"
TD=$BUILD/testdata
LD=$BUILD/tests/loopdump
cd "$T_TMP" || exit 1
t_need_recorder

"$LOOPSCOPE" record -q -o tk.lsc -- "$TD/lp_tknow" >/dev/null 2>&1
"$LD" tk.lsc lp_tknow >tk.ld 2>/dev/null
C=$(awk '$1 == "loop" && $2 ~ /^count\+/ {print $2}' tk.ld)
B=$(awk '$1 == "loop" && $2 ~ /^b_main\+/ {print $2}' tk.ld)
t_eq "lp_tknow: count's loop in thread A (1): 1 entry of 200" \
	"tloop 1 $C entries=1 iterations=200" "$(grep "^tloop [0-9]* $C " tk.ld)"
t_eq "... merged over threads: A's entry alone" "entries=1 iterations=200" \
	"$(grep "^loop $C " tk.ld | tr ' ' '\n' | grep -E '^(entries|iterations)=' | paste -sd' ')"
t_eq "... thread B (2): its own loop, 1 entry of 3" \
	"tloop 2 $B entries=1 iterations=3" "$(grep "^tloop [0-9]* $B " tk.ld)"
t_eq "... and no edge from B's loop into count's" "" "$(grep "^edge $B -> " tk.ld)"

"$LOOPSCOPE" analyze -q -j1 -o tk1.lsprof tk.lsc
for j in 2 3 8; do
	"$LOOPSCOPE" analyze -q -j$j -o tk$j.lsprof tk.lsc
	t_ok "lp_tknow: --jobs=$j gives --jobs=1's profile" cmp tk1.lsprof tk$j.lsprof
done
# 3 shards: one thread each (main, A, B by their streams' sizes).
for k in 0 1 2; do
	"$LOOPSCOPE" analyze -q -j1 --shard=$k/3 -o tks$k.lsprof tk.lsc
done
t_eq "lp_tknow: shard 2/3 holds thread B alone" 1 "$(grep -c '^thread	' tks2.lsprof)"
"$LOOPSCOPE" merge -o tkm.lsprof tks2.lsprof tks0.lsprof tks1.lsprof
t_ok "... and B without A's stream before it, merged with the others, is the whole" \
	cmp tk1.lsprof tkm.lsprof
LOOPSCOPE_REFERENCE=1 "$LOOPSCOPE" analyze -q -j3 -o tkr.lsprof tk.lsc
t_ok "lp_tknow: the reference path, on 3 jobs, too" cmp tk1.lsprof tkr.lsprof

"$LOOPSCOPE" record -q -o th.lsc -- "$TD/lp_threads" >/dev/null 2>&1
"$LOOPSCOPE" analyze -q -j1 -o th1.lsprof th.lsc
for j in 2 5 7; do
	"$LOOPSCOPE" analyze -q -j$j -o th$j.lsprof th.lsc
	t_ok "lp_threads (5 threads): --jobs=$j gives --jobs=1's profile" cmp th1.lsprof th$j.lsprof
done
t_grep "... a profile of the whole bundle: shard 0 of 1" "^part	0	[0-9a-f-]*	0	1$" th5.lsprof

# What concerns the whole bundle is said once, not once a shard: an
# executable the bundle only references (record --no-embed), gone since.
cp "$TD/lp_threads" lpt
"$LOOPSCOPE" record -q --no-embed -o ne.lsc -- ./lpt >/dev/null 2>&1
rm lpt
"$LOOPSCOPE" analyze -q -j1 --allow-missing -o ne1.lsprof ne.lsc 2>ne1.err
"$LOOPSCOPE" analyze -q -j5 --allow-missing -o ne5.lsprof ne.lsc 2>ne5.err
t_eq "--no-embed, executable gone: --jobs=5 warns of it once, as --jobs=1" "1 1" \
	"$(grep -c 'holds no code for 1 executable mapping' ne1.err) $(grep -c 'holds no code for 1 executable mapping' ne5.err)"
t_ok "... and gives --jobs=1's profile" cmp ne1.lsprof ne5.lsprof
t_fail "... without --allow-missing: refused" "$LOOPSCOPE" analyze -q -j5 -o ne.lsprof ne.lsc
t_eq "... saying so once" 1 "$(grep -c 'is not in the bundle' last.err)"
