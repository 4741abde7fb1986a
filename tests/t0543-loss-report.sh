#!/bin/sh
# t0543-loss-report: losses are reported as ptxed reports decode errors
# (issue 19, item 2): the stream offset of the packet, libipt's own error
# (not what the resync after it met) and an IP.
#  - An overflow: pt32rec --ovf=50 writes testdata/m32/loop32's trace with
#    OVF + FUP after the 50th conditional branch (FUP at its successor, so
#    no instruction is lost: 892 still, t0540's hand count).  The loss must
#    be at the OVF packet's offset, which pt32rec prints and libipt's
#    packet decoder (`dump --packets`) shows, not at the chunk's start (0);
#    its IP is the last instruction decoded, the 50th conditional branch,
#    a jcc in `objdump -d`.
#  - The real recordings (../shared/testdata-real/quipper, no binaries):
#    libipt's block decoder alone over each whole stream (ptcheck; it
#    prints offset, IP and message of every decode error, as ptxed does)
#    finds errors at the same offsets as `dump`'s losses, and where it says
#    "no memory mapped at this address", dump says the same with the same
#    IP.  No loss says "trace stream does not match query" (what a resync
#    used to overwrite the error with).
. "$LSTOP/tests/lib.sh"
T=$BUILD/tests
cd "$T_TMP" || exit 1

t_m32 o --ovf=50
rc=$?
if [ $rc != 2 ]; then
	t_eq "pt32rec --ovf=50 and import succeed" 0 $rc
	ovf=$(awk '$1 == "ovf" { print $2 }' o.rec)
	"$LOOPSCOPE" dump --packets o.lsc >pk.txt
	t_eq "libipt's packet decoder: one OVF, at the offset pt32rec wrote it ($ovf)" \
		"$(printf '%016x' "$ovf")" "$(awk '$2 == "ovf" { print $1 }' pk.txt)"
	"$LOOPSCOPE" dump o.lsc >d.txt
	t_eq "dump: one loss" 1 "$(grep -c ' loss at offset ' d.txt)"
	t_grep "dump: the overflow at the OVF packet ($ovf), not at the chunk's start" \
		" loss at offset $ovf: 0 bytes, 0 instructions (overflow), ip [0-9a-f]\{16\}\$" d.txt
	ip=$(sed -n 's/.* loss at offset .*, ip 0*\([0-9a-f]*\)$/\1/p' d.txt)
	objdump -d "$T_M32" >od.txt
	t_grep "the loss's IP ($ip) is a conditional branch (objdump)" \
		"^ *$ip:.*	j\(g\|le\|ne\) " od.txt
	"$LOOPSCOPE" info --decode --format=json o.lsc >info.json
	t_eq "info --decode: 892 instructions, 1 loss of 0 bytes" "892 1 0" "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["decode"]
print(sum(s["instructions"] for s in d), sum(s["losses"] for s in d), sum(s["lost_bytes"] for s in d))' info.json)"
else
	echo "ok - # SKIP no $T_M32 (gcc-multilib), or it does not run here"
fi

q=$T_REAL/quipper/perf.data.intel_pt-4.14
if [ -r "$q" ]; then
	"$LOOPSCOPE" import -q -o q.lsc "$q" >/dev/null 2>&1
	"$T/ptcheck" q.lsc >/dev/null 2>pc.err
	sed -n 's/^decode error at offset \([0-9]*\), ip \([0-9a-f]*\): \(.*\)/\1 \2 \3/p' pc.err >oracle.txt
	"$LOOPSCOPE" dump q.lsc >qd.txt 2>/dev/null
	sed -n 's/.* loss at offset \([0-9]*\): [0-9]* bytes, [0-9]* instructions (\(.*\)), ip \([0-9a-f-]*\)$/\1 \3 \2/p' \
		qd.txt >losses.txt
	n=$(wc -l <oracle.txt)
	t_ok "libipt's block decoder finds decode errors ($n)" test "$n" -gt 0
	t_eq "dump's loss offsets are libipt's error offsets" \
		"$(cut -d' ' -f1 oracle.txt | sort -n)" "$(cut -d' ' -f1 losses.txt | sort -n)"
	grep ' no memory mapped at this address$' oracle.txt >nomap.txt
	t_ok "libipt says 'no memory mapped' for most ($(wc -l <nomap.txt))" \
		test "$(wc -l <nomap.txt)" -ge $((n - 2))
	t_eq "dump: each of those with libipt's offset, IP and message" "" \
		"$(grep -v -x -F -f losses.txt nomap.txt)"
	t_eq "no loss says 'trace stream does not match query'" 0 \
		"$(grep -c 'does not match query' qd.txt)"
else
	echo "ok - # SKIP no $q"
fi
