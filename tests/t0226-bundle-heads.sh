#!/bin/sh
# t0226-bundle-heads: the block heads the packets name, kept in the bundle
# as it is written (PTHEADS, formats/bundle.md; decoder/ptheads.c), against
# the open's scan of every chunk's packets (LOOPSCOPE_PTHEADS=0, the only
# way before 2026-12-06): every decoding command prints the same bytes
# either way.
#
# The oracle is the scan: what every decode test (t0201, t0208 and the
# rest) has checked against native single-stepping and libipt.  Bundles:
# every testdata program recorded with a PSB every 512 bytes in 4 KB
# chunks (so each has many chunks, and heads first named in a later
# chunk than the one that first runs the code around them), two without
# return compression (every return a TIP), and the real quipper
# recording imported.  info --decode says for how many streams the open
# took the bundle's heads: all of a recording's (a writer that kept none,
# or an open that ignored them, fails the count).  Where a chunk's stored
# bytes or the section are damaged, or the bundle is cut short, the open
# scans instead (0 of 1) and prints what the scan gives.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

# same_scan NAME CMD...: CMD prints the same with the bundle's heads as
# with the scan's (the lines that say which were taken, and which chunks
# the scan kept, aside).
same_scan() {
	_sname=$1; shift
	t_same_env "$_sname" LOOPSCOPE_PTHEADS=0 \
		'/^  chunks: /d; /^  heads of the packets: /d' "$@"
}

# taken B: "N of M", the streams whose heads the open of B took from it.
taken() {
	"$LOOPSCOPE" info --decode "$1" 2>/dev/null |
		sed -n "s/^  heads of the packets: the bundle's for \([0-9]* of [0-9]*\) streams.*/\1/p"
}

compare() {
	b=$1
	t_eq "$b: the open took the bundle's heads" "1 of 1" "$(taken "$b")"
	same_scan "$b: dump" sh -c '"$1" dump "$2" | cksum' sh "$LOOPSCOPE" "$b"
	same_scan "$b: info --decode" "$LOOPSCOPE" info --decode "$b"
	case " $FULL " in
	*" ${b%.lsc} "*) ;;
	*) return ;;
	esac
	same_scan "$b: analyze's profile" sh -c '"$1" analyze -q -o p.lsprof "$2" && cat p.lsprof' \
		sh "$LOOPSCOPE" "$b"
	same_scan "$b: analyze -j2's profile" \
		sh -c '"$1" analyze -q -j2 -o p.lsprof "$2" && cat p.lsprof' sh "$LOOPSCOPE" "$b"
	same_scan "$b: report --structural" "$LOOPSCOPE" report --structural "$b"
}
FULL="calls nested lp_calls lp_jmp lp_recur threads signals vg_sig irred gotonest nr_calls"

# (vg_exitkill spins through 10^8 blocks: t0208 has it)
for p in $(t_progs vg_exitkill); do
	t_recorded "$p" --psb-period 512 --chunk-size 4096 || continue
	# (a threaded program has a stream a thread: all of them)
	n=$("$LOOPSCOPE" info "$p.lsc" | sed -n 's/^streams: \([0-9]*\)/\1/p')
	if [ "${n:-1}" != 1 ]; then
		t_eq "$p.lsc: the open took the bundle's heads" "$n of $n" "$(taken "$p.lsc")"
		same_scan "$p.lsc: dump" sh -c '"$1" dump "$2" | cksum' sh "$LOOPSCOPE" "$p.lsc"
		continue
	fi
	compare "$p.lsc"
done

for p in calls lp_recur; do
	"$LOOPSCOPE" record -q --no-retcomp --psb-period 512 --chunk-size 4096 \
		-o "nr_$p.lsc" -- "$TD/$p" >/dev/null 2>&1
	compare "nr_$p.lsc"
done

# Damage.  flip FILE TYPE AT: FILE with the byte at AT of its first
# section of TYPE's payload inverted (bundle.md: a 32-byte file header,
# then sections of a 48-byte header, whose type is the u16 at 4 and
# stored size the u64 at 24, and their payloads).
flip() {
	python3 - "$@" <<'EOF'
import struct, sys
f, typ, at = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
b = bytearray(open(f, "rb").read())
off = 32
while off + 48 <= len(b):
    t = struct.unpack_from("<H", b, off + 4)[0]
    st = struct.unpack_from("<Q", b, off + 24)[0]
    if t == typ and st > at:
        b[off + 48 + at] ^= 0xff
        open(f, "wb").write(b)
        sys.exit(0)
    off += 48 + st
sys.exit(1)
EOF
}
cp nested.lsc chunk.lsc
t_ok "a byte of nested's first chunk flipped" flip chunk.lsc 3 20
cp nested.lsc heads.lsc
t_ok "a byte of nested's PTHEADS flipped" flip heads.lsc 9 1
# (cut where the PTHEADS section begins: every chunk there, no heads)
heads_at() {
	python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read()
off = 32
while off + 48 <= len(b):
    if struct.unpack_from("<H", b, off + 4)[0] == 9:
        print(off)
        sys.exit(0)
    off += 48 + struct.unpack_from("<Q", b, off + 24)[0]
sys.exit(1)
EOF
}
at=$(heads_at nested.lsc)
t_ok "nested.lsc has a PTHEADS section ($at)" test -n "$at"
head -c "${at:-0}" nested.lsc >cut.lsc
# (a damaged section keeps info --decode and dump from decoding: the
# error is the answer; analyze goes on, the chunk a loss)
for b in chunk.lsc heads.lsc; do
	same_scan "$b: dump" "$LOOPSCOPE" dump "$b"
	same_scan "$b: analyze's profile" sh -c '"$1" analyze -q -o p.lsprof "$2"; cat p.lsprof' \
		sh "$LOOPSCOPE" "$b"
done
t_ok "chunk.lsc: the damaged chunk is a loss" \
	sh -c '"$1" analyze -o p.lsprof chunk.lsc 2>&1 | grep -q "1 decode losses"' sh "$LOOPSCOPE"
t_ok "heads.lsc: the damaged section is reported" \
	sh -c '"$1" info heads.lsc 2>&1 | grep -q "(PTHEADS).*checksum"' sh "$LOOPSCOPE"
t_eq "cut.lsc: the open scans" "0 of 1" "$(taken cut.lsc)"
same_scan "cut.lsc: dump" sh -c '"$1" dump "$2" | cksum' sh "$LOOPSCOPE" cut.lsc
same_scan "cut.lsc: info --decode" "$LOOPSCOPE" info --decode cut.lsc
same_scan "cut.lsc: analyze's profile" sh -c '"$1" analyze -q -o p.lsprof "$2"; cat p.lsprof' \
	sh "$LOOPSCOPE" cut.lsc

# The real recording (per-CPU streams, imported from perf.data).
Q=$T_REAL/quipper/perf.data.intel_pt-4.14
if [ -f "$Q" ]; then
	"$LOOPSCOPE" import -q "$Q" -o q.lsc >/dev/null 2>&1
	t_ok "quipper: imported" test -s q.lsc
	same_scan "quipper: dump" sh -c '"$1" dump "$2" | cksum' sh "$LOOPSCOPE" q.lsc
	same_scan "quipper: info --decode" "$LOOPSCOPE" info --decode q.lsc
fi
