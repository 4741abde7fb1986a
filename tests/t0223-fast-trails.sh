#!/bin/sh
# t0223-fast-trails: the fast path's trails (decoder/fast_trail.c): runs
# of TNT and TIP packets from a block, decoded once into their blocks and
# taken whole where the same bytes come again from the same block.  A
# trail carries its TIPs' targets (from its bytes and the last IP's high
# bits), its compressed returns to calls made before it (checked against
# libipt's return stack) and what it does to that stack, full or not.
#
# Programs: deeptips (every call through a pointer, 100 deep: trails
# below depth 64 with the return stack full, and on the way up past the
# returns it lost), deepcalls (direct calls, the same depth: TIPs only
# where the unwinding meets the lost returns), calls, recursion, pltnest
# (calls through the PLT, a library calling itself) and signals; calls
# and deeptips again without return compression (every return a TIP);
# each with the recorder's chunks and with a PSB every 512 bytes in 4 KB
# chunks (a trail never crosses a chunk's end).
#
# Oracles: the reference path (LOOPSCOPE_REFERENCE=1, libipt's block
# decoder on every chunk; t0201 checks it against libipt's instruction
# decoder, t0200 against native single-stepping): `dump` prints every
# block with its exit and successor, the same bytes either way, and so
# are `info --decode` and analyze's profile.  deeptips' hand count (its
# source): down() entered 2020 times, leaf() 4040, counted in the dump.
# loopdump's trail_blocks says trails were taken (a fast path that never
# took one would pass the identity checks through its block loop), and
# LOOPSCOPE_TRAILS=0 takes none and gives the same blocks.  tipmix's
# trails, which yield few blocks a look, rest (trail_rests), with the
# same blocks.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

# trails B: blocks loopdump's decodes took from trails.
trails() {
	"$BUILD/tests/loopdump" "$1" 2>&1 >/dev/null |
		sed -n 's/.* trail_blocks \([0-9]*\).*/\1/p'
}

# check B [TIPS]: the fast path against the reference on bundle B; with
# TIPS, trails were taken too (programs whose TIPs repeat: calls,
# recursion and signals make few, through the PLT to printf and the
# dynamic loader's, where no trail's bytes come twice).
check() {
	b=$1
	t_same_ref "$b: dump" sh -c '"$1" dump "$2" | cksum' sh "$LOOPSCOPE" "$b"
	t_same_ref "$b: info --decode" "$LOOPSCOPE" info --decode "$b"
	t_same_ref "$b: analyze's profile" sh -c '"$1" analyze -q -o p.lsprof "$2" && cat p.lsprof' \
		sh "$LOOPSCOPE" "$b"
	[ -n "${2:-}" ] || return
	n=$(trails "$b")
	t_ok "$b: trails taken ($n blocks)" test "${n:-0}" -gt 0
}

for p in deeptips deepcalls calls recursion pltnest signals; do
	"$LOOPSCOPE" record -q -o "$p.lsc" -- "$TD/$p" </dev/null >/dev/null 2>&1
	"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o "${p}_s.lsc" -- \
		"$TD/$p" </dev/null >/dev/null 2>&1
	t_ok "$p: recorded" test -s "$p.lsc" -a -s "${p}_s.lsc"
	case $p in
	deeptips|deepcalls|pltnest) tips=1 ;;
	*) tips= ;;
	esac
	check "$p.lsc" $tips
	check "${p}_s.lsc" $tips
done
for p in calls deeptips; do
	"$LOOPSCOPE" record -q --no-retcomp -o "nr_$p.lsc" -- "$TD/$p" </dev/null >/dev/null 2>&1
	t_ok "nr_$p: recorded" test -s "nr_$p.lsc"
	check "nr_$p.lsc" 1
done

# deeptips' hand count, on the fast path with its trails.
"$LOOPSCOPE" dump deeptips.lsc >d.out 2>&1
t_eq "deeptips: down() entered 20 * 101 times" 2020 \
	"$(awk '$NF == "down+0x0"' d.out | wc -l | tr -d ' ')"
t_eq "deeptips: leaf() entered 2 * 2020 times" 4040 \
	"$(awk '$NF == "leaf+0x0"' d.out | wc -l | tr -d ' ')"

# Without trails: none taken, the same blocks.
t_eq "LOOPSCOPE_TRAILS=0: no trail taken" 0 "$(LOOPSCOPE_TRAILS=0 trails deeptips.lsc)"
"$LOOPSCOPE" dump deeptips.lsc | cksum >a.sum
LOOPSCOPE_TRAILS=0 "$LOOPSCOPE" dump deeptips.lsc | cksum >b.sum
t_ok "LOOPSCOPE_TRAILS=0: the same blocks" cmp -s a.sum b.sum

# Trails that yield few blocks a look rest: tipmix calls one of four
# leaves through a pointer 300,000 times, the leaf and its branches
# picked by a pseudo-random sequence, so the TNT bits after each TIP
# vary and a window of 2^16 looks gives under 8 blocks each; the next
# 2^20 trails are not looked for.  The blocks are the reference's all
# the same; the 1,000 iterations of its default run stay under a window.
rests() {
	"$BUILD/tests/loopdump" "$1" 2>&1 >/dev/null |
		sed -n 's/.* trail_rests \([0-9]*\).*/\1/p'
}
"$LOOPSCOPE" record -q -o tipmix.lsc -- "$TD/tipmix" 300000 </dev/null >/dev/null 2>&1
"$LOOPSCOPE" record -q -o tipmix_d.lsc -- "$TD/tipmix" </dev/null >/dev/null 2>&1
t_ok "tipmix: recorded" test -s tipmix.lsc -a -s tipmix_d.lsc
check tipmix.lsc 1
n=$(rests tipmix.lsc)
t_ok "tipmix 300000: its trails rested ($n times)" test "${n:-0}" -ge 1
t_eq "tipmix 1000: its trails never rested" 0 "$(rests tipmix_d.lsc)"
"$LOOPSCOPE" dump tipmix.lsc | cksum >a.sum
LOOPSCOPE_TRAILS=0 "$LOOPSCOPE" dump tipmix.lsc | cksum >b.sum
t_ok "tipmix: the same blocks with trails resting and without trails" cmp -s a.sum b.sum
