#!/bin/sh
# Compressed perf.data (perf record -z: PERF_RECORD_COMPRESSED, one zstd
# stream cut into records, formats/perfdata_z.c).  The files are written
# here by perf with a software event (no PT needed).  Oracles:
#  - perf report -D on the same file: every record inside the COMPRESSED
#    ones with its (offset, size) -- perf names the COMPRESSED record's
#    offset as we do -- and its "Aggregated stats" count per type;
#  - the pid/tid/period of every SAMPLE perf report -D prints;
#  - perf report's "COMPRESSED events" count (more than one: records
#    straddle the cut between two COMPRESSED records).
. "$LSTOP/tests/lib.sh"
T=$BUILD/tests
cd "$T_TMP" || exit 1
if ! command -v perf >/dev/null ||
   ! perf record -q -z -e cpu-clock -o probe.data -- true 2>/dev/null ||
   ! perf report -D -i probe.data 2>/dev/null | grep -q 'COMPRESSED events'; then
	echo "ok 1 # SKIP perf record -z does not work here"
	exit 0
fi
# A call chain per sample makes ~1 MB of records, several COMPRESSED ones.
perf record -q -z -g -c 20000 -e cpu-clock -o z.data -- \
	sh -c 'i=0; while [ $i -lt 60000 ]; do i=$((i+1)); done' 2>/dev/null
perf report -D -i z.data >perf.d 2>/dev/null
ncomp=$(sed -n 's/^ *COMPRESSED events: *\([0-9]*\).*/\1/p' perf.d | head -1)
t_ok "perf wrote more than one COMPRESSED record ($ncomp)" test "${ncomp:-0}" -gt 1

"$T/lspd_dump" z.data >dump.out 2>dump.err
t_eq "lspd_dump reads the compressed perf.data" 0 $?
sed -n 's/^\([0-9]* \)\{0,1\}0x\([0-9a-f]*\) \[0x\([0-9a-f]*\)\]: PERF_RECORD_.*/\2 \3/p' perf.d |
	sort >perf.seq
awk '$1 == "rec" && $3 != 81 { printf "%x %x\n", $2, $4 }' dump.out | sort >got.seq
t_ok "(offset, size) of all $(wc -l <perf.seq) records equal perf report -D's" cmp perf.seq got.seq
nsamp=$(sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' perf.d | head -1)
t_eq "SAMPLE count = perf's aggregated stats ($nsamp)" "$nsamp" \
	"$(awk '$1 == "count" && $2 == 9 { print $3 }' dump.out)"
t_eq "MMAP2 count = perf's aggregated stats" \
	"$(sed -n 's/^ *MMAP2 events: *\([0-9]*\).*/\1/p' perf.d | head -1)" \
	"$(awk '$1 == "count" && $2 == 10 { print $3 }' dump.out)"
sed -n 's/.*PERF_RECORD_SAMPLE([^)]*): \([0-9]*\)\/\([0-9]*\): 0x[0-9a-f]* period: \([0-9]*\) .*/\1 \2 \3/p' perf.d |
	sort >perf.samp
awk '$1 == "sample" { print $2, $3, $4 }' dump.out | sort >got.samp
t_ok "pid/tid/period of every sample equal perf report -D's" cmp perf.samp got.samp
t_eq "every sample has its call chain" 0 \
	"$(awk '$1 == "sample" && $5 == 0' dump.out | wc -l)"

"$LOOPSCOPE" import -q --sample -o z.lsc z.data
t_eq "loopscope import --sample reads the compressed file" 0 $?
"$T/lsb_dump" z.lsc >info.out
t_eq "samples in the bundle = perf's count" "$nsamp" \
	"$(awk '$1 == "samples" { print $2 }' info.out)"

# Damage: the zstd frame magic (28 b5 2f fd, RFC 8878) that starts the
# first COMPRESSED payload flipped; the file cut in the middle of that
# record.  The first COMPRESSED record is at the lowest offset perf
# report -D gives to more than one record; its size is its header's u16
# at byte 6 (perf_event_header), read with od.
off=$(for h in $(awk '{ print $1 }' perf.seq | uniq -d); do printf '%d\n' "0x$h"; done |
	sort -n | head -1)
t_ok "perf names an offset shared by several records ($off)" test "$off" -gt 0
t_eq "the zstd frame magic follows its 8-byte header" "28 b5 2f fd" \
	"$(od -A n -t x1 -j $((off + 8)) -N 4 z.data | sed 's/^ *//')"
size=$(od -A n -t u2 -j $((off + 6)) -N 2 z.data | tr -d ' ')
python3 - z.data bad.data $((off + 8)) <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[int(sys.argv[3])] ^= 0xff
open(sys.argv[2], "wb").write(d)
PY
t_fail "a damaged zstd payload is refused" "$T/lspd_dump" bad.data
t_grep "naming the file, the COMPRESSED record at offset $off and zstd's complaint" \
	"bad.data: COMPRESSED record at offset $off (.*): zstd: " "$T_TMP/last.err"
head -c $((off + size / 2)) z.data >cut.data
t_fail "a file cut inside a COMPRESSED record ($size bytes) is refused" \
	"$LOOPSCOPE" import -q --sample -o cut.lsc cut.data
t_grep "naming the file and the record" "cut.data: COMPRESSED record at offset $off .*cut short" \
	"$T_TMP/last.err"
