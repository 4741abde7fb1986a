#!/bin/sh
# `import --raw-pt` of per-CPU captures with perf_event sideband, the way
# libipt's ptxed takes a perf recording: the real quipper recording
# (../shared/testdata-real/quipper: per-CPU intel_pt on cpus 0 and 3,
# CPU-wide context switches, a Core m7-6Y75) is cut into the files
# libipt's scripts make -- perf-read-aux.bash (each AUXTRACE payload),
# perf-read-sideband.bash (every kernel record, by the cpu `perf script
# --no-itrace -D` prints, into FILE-sideband-cpuN.pevent or, for cpu -1,
# FILE-sideband.pevent) -- and perf-get-opts.bash's options (cpuid,
# AUXTRACE_INFO's time and TSC:CTC fields, each event's sample_type by
# id, the MTC frequency of the intel_pt config), all read here with perf
# and cut with dd.  The oracle is the import of the perf.data itself
# (t0500, t0530): the same PT bytes, the same 224 events, the same
# samples, and the decoder's thread decisions and dump identical.
. "$LSTOP/tests/lib.sh"
Q=$T_REAL/quipper/perf.data.intel_pt-4.14
T=$BUILD/tests
cd "$T_TMP" || exit 1
if [ ! -r "$Q" ] || ! command -v perf >/dev/null; then
	echo "ok 1 # SKIP no $Q or no perf"
	exit 0
fi
perf script --no-itrace -i "$Q" -D >D 2>/dev/null
hex() { printf '%d' "0x$1"; }
# perf-read-sideband.bash: "CPU TIME 0xOFF [0xSIZE]: PERF_RECORD_TYPE".
sed -n 's/^\([0-9]*\) [0-9]* 0x\([0-9a-f]*\) \[0x\([0-9a-f]*\)\]: PERF_RECORD_\([A-Z_0-9]*\).*/\1 \2 \3 \4/p' D |
	grep -v ' AUXTRACE_INFO$\| AUXTRACE$\| FINISHED_ROUND$' >sb.list
while read -r cpu off size type; do
	if [ "$cpu" = 4294967295 ]; then f=q-sideband.pevent; else f=q-sideband-cpu$cpu.pevent; fi
	dd if="$Q" of=part bs=1 skip="$(hex "$off")" count="$(hex "$size")" status=none
	cat part >>"$f"
done <sb.list
t_eq "sideband files for cpus 0-3 and for no cpu" \
	"q-sideband-cpu0.pevent q-sideband-cpu1.pevent q-sideband-cpu2.pevent q-sideband-cpu3.pevent q-sideband.pevent" \
	"$(echo q-sideband*.pevent)"
# perf-read-aux.bash: the payload follows its AUXTRACE record.
sed -n 's/^[0-9]* [0-9]* 0x\([0-9a-f]*\) \[0x\([0-9a-f]*\)\]: PERF_RECORD_AUXTRACE size: 0x\([0-9a-f]*\) .* cpu: \([0-9]*\)$/\1 \2 \3 \4/p' D >aux.list
while read -r off h size cpu; do
	dd if="$Q" of="q-aux-cpu$cpu.bin" bs=1 skip=$(($(hex "$off") + $(hex "$h"))) \
		count="$(hex "$size")" status=none
done <aux.list
t_eq "PT of cpus 0 and 3 (12,240 and 137,728 bytes, quipper's README)" "12240 137728" \
	"$(wc -c <q-aux-cpu0.bin | tr -d ' ') $(wc -c <q-aux-cpu3.bin | tr -d ' ')"
# perf-get-opts.bash.
info() { sed -n "/PERF_RECORD_AUXTRACE_INFO/,/Filter string len/s/^ *$1 *//p" D; }
opts="--cpu $(perf script --header-only -i "$Q" 2>/dev/null | sed -n 's/^# cpuid : GenuineIntel,\([0-9]*\),\([0-9]*\),\([0-9]*\)$/\1\/\2\/\3/p')"
opts="$opts --pevent:time-shift $(info 'Time Shift') --pevent:time-mult $(info 'Time Mul[a-z]*plier')"
opts="$opts --pevent:time-zero $(info 'Time Zero') --cpuid-0x15.ebx $(info 'TSC:CTC numerator')"
opts="$opts --cpuid-0x15.eax $(info 'TSC:CTC denominator') --nom-freq $(info 'Max non-turbo ratio')"
perf script --header-only -i "$Q" 2>/dev/null |
	sed -n 's/^# event : .* id = { \([0-9, ]*\) }.* sample_type = \([A-Z_|]*\),.*/\1:\2/p' |
	awk -F: 'BEGIN { split("IP TID TIME ADDR READ CALLCHAIN ID CPU PERIOD STREAM_ID RAW BRANCH_STACK REGS_USER STACK_USER WEIGHT DATA_SRC IDENTIFIER", n, " ")
		for (i in n) bit[n[i]] = 2 ^ (i - 1) }
		{ t = 0; k = split($2, f, "|"); for (i = 1; i <= k; i++) t += bit[f[i]]
		  gsub(/,/, "", $1); k = split($1, ids, " ")
		  for (i = 1; i <= k; i++) { if (!z++) printf " --pevent:sample-config 0:%d", t
		  printf " --pevent:sample-config %s:%d", ids[i], t } }' >cfg.opts
t_eq "sample configs for id 0 and the 16 ids of the 4 events" 17 "$(tr ' ' '\n' <cfg.opts | grep -c '^[0-9]*:[0-9]*$')"
config=$(perf evlist -v -i "$Q" 2>/dev/null | grep intel_pt | tr ',' '\n' | sed -n 's/^ *config: //p')
opts="$opts $(cat cfg.opts) --mtc-freq $(($config >> 14 & 15))"
t_grep "the options hold the recording's time mult (1789569706, AUXTRACE_INFO)" \
	"time-mult 1789569706 " "$(echo "$opts" >opts; echo opts)"

# shellcheck disable=SC2086
"$LOOPSCOPE" import -q -o raw.lsc --raw-pt q-aux-cpu0.bin --raw-pt q-aux-cpu3.bin $opts \
	--pevent:primary q-sideband-cpu0.pevent --pevent:primary q-sideband-cpu3.pevent \
	--pevent:secondary q-sideband-cpu1.pevent --pevent:secondary q-sideband-cpu2.pevent \
	--pevent:secondary q-sideband.pevent 2>err
t_eq "import of two captures with their sideband succeeds" 0 $?
"$LOOPSCOPE" import -q -o direct.lsc "$Q"
mkdir r d
"$T/lsb_dump" -e -x r raw.lsc >raw.info
"$T/lsb_dump" -e -x d direct.lsc >direct.info
t_eq "per-CPU streams of cpus 0 and 3, as from the perf.data" \
	"$(awk '$1 == "stream" { print $3, $6, $7 }' direct.info)" \
	"$(awk '$1 == "stream" { print $3, $6, $7 }' raw.info)"
for cpu in 0 3; do
	t_ok "cpu $cpu: the same PT bytes" cmp \
		"d/stream.$(awk -v c=$cpu '$1 == "stream" && $6 == c { print $2 }' direct.info)" \
		"r/stream.$(awk -v c=$cpu '$1 == "stream" && $6 == c { print $2 }' raw.info)"
done
grep '^event ' direct.info | sort >d.ev
grep '^event ' raw.info | sort >r.ev
t_eq "224 events in the perf.data's import" 224 "$(wc -l <d.ev)"
t_ok "the same events (type, pid, tid, cpu, time, arg)" cmp d.ev r.ev
t_eq "the same samples (15 cycles samples, cpu -1)" \
	"$(grep '^samples ' direct.info)" "$(grep '^samples ' raw.info)"
t_eq "the same time conversion as perf's TIME_CONV" \
	"$(grep '^meta time\.' direct.info)" "$(grep '^meta time\.' raw.info)"
"$T/sbdump" -t -a direct.lsc >d.sb 2>/dev/null
"$T/sbdump" -t -a raw.lsc >r.sb 2>/dev/null
t_ok "the decoder's threads per stream and in lsd_decode_all() agree" cmp d.sb r.sb
"$LOOPSCOPE" dump direct.lsc >d.dump 2>/dev/null
"$LOOPSCOPE" dump raw.lsc >r.dump 2>/dev/null
t_ok "dump prints the same" cmp d.dump r.dump

# Ranges: both primaries as ranges of one file.
cat q-sideband-cpu0.pevent q-sideband-cpu3.pevent >both.pevent
n0=$(wc -c <q-sideband-cpu0.pevent | tr -d ' ')
# shellcheck disable=SC2086
"$LOOPSCOPE" import -q -o range.lsc --raw-pt q-aux-cpu0.bin --raw-pt q-aux-cpu3.bin $opts \
	--pevent:primary "both.pevent:0-$n0" --pevent:primary "both.pevent:$n0" \
	--pevent:secondary q-sideband-cpu1.pevent --pevent:secondary q-sideband-cpu2.pevent \
	--pevent:secondary q-sideband.pevent
"$T/lsb_dump" -e range.lsc | grep '^event ' | sort >g.ev
t_ok "primaries given as FILE:FROM-TO and FILE:FROM: the same events" cmp d.ev g.ev

# Errors.
# shellcheck disable=SC2086
"$LOOPSCOPE" import -q -o x.lsc --raw-pt q-aux-cpu0.bin --raw-pt q-aux-cpu3.bin $opts \
	--pevent:primary q-sideband-cpu0.pevent 2>err
t_eq "two captures and one primary file fail" 1 $?
t_grep "saying why" "2 raw PT captures and 1 primary sideband files" err
head -c 100 q-sideband-cpu3.pevent >cut.pevent
# shellcheck disable=SC2086
"$LOOPSCOPE" import -q -o x.lsc --raw-pt q-aux-cpu3.bin $opts --pevent:primary cut.pevent 2>err
t_eq "a sideband file cut inside a record fails" 1 $?
t_grep "naming the file and the offset" "cut.pevent: .* at offset" err
"$LOOPSCOPE" import -q -o x.lsc --raw-pt q-aux-cpu3.bin --pevent:sample-config 7 2>err
t_eq "--pevent:sample-config without :TYPE is a usage error" 129 $?
"$LOOPSCOPE" import -q -o x.lsc --raw-pt q-aux-cpu3.bin --pevent:time-mult 0 2>err
t_eq "--pevent:time-mult 0 is a usage error" 129 $?
# shellcheck disable=SC2086
"$LOOPSCOPE" import -q -o o.lsc --raw-pt q-aux-cpu3.bin --pevent:primary q-sideband-cpu3.pevent \
	$opts --pevent:tsc-offset 1000
"$T/lsb_dump" o.lsc >o.info
t_grep "--pevent:tsc-offset is kept for the decoder" "^meta time.tsc_offset 1000$" o.info
t_grep "one capture with a primary file is the CPU its records name (3)" \
	"^stream 0 2 0 0 3 137728$" o.info
"$LOOPSCOPE" import -q -o o2.lsc --raw-pt q-aux-cpu3.bin --pevent:primary q-sideband-cpu3.pevent
"$T/lsb_dump" o2.lsc >o2.info
t_grep "without a sample type no record names a CPU: the primary's rank (0)" \
	"^stream 0 2 0 0 0 137728$" o2.info
t_grep "and ptxed's default conversion, time = TSC" "^meta time.mult 1$" o2.info

# --pevent:sysroot: one MMAP record (perf_event.h: pid, tid, addr, len,
# pgoff, filename; misc 0, an executable mapping; sample_type 0, no
# trailer) of /x/straight, a testdata program copied under root/.  The
# build-id expected is the one readelf -n prints for the program.
mkdir -p root/x && cp "$TESTDATA/straight" root/x/straight
python3 - <<'PY'
import struct
name = b"/x/straight\0"
name += b"\0" * (-len(name) % 8)
body = struct.pack("<IIQQQ", 7, 7, 0x555555554000, 0x2000, 0) + name
open("mm.pevent", "wb").write(struct.pack("<IHH", 1, 0, 8 + len(body)) + body)
PY
bid=$(readelf -n root/x/straight | sed -n 's/^ *Build ID: //p')
"$LOOPSCOPE" import -q -o s1.lsc --raw-pt q-aux-cpu0.bin --pevent:primary mm.pevent \
	--pevent:sysroot root
"$T/lsb_dump" s1.lsc >s1.info
t_grep "with --pevent:sysroot root the mapped /x/straight is embedded ($bid)" \
	"^module /x/straight $bid 1 " s1.info
"$LOOPSCOPE" import -q -o s2.lsc --raw-pt q-aux-cpu0.bin --pevent:primary mm.pevent
"$T/lsb_dump" s2.lsc >s2.info
t_eq "without it /x/straight is not found" 0 "$(grep -c '^module ' s2.info)"
t_grep "its mapping is an event all the same" "^events_type 3 1$" s2.info
"$LOOPSCOPE" import -q -o x.lsc --raw-pt q-aux-cpu0.bin --pevent:primary mm.pevent:0-4096 2>err
t_eq "a sideband range past the end of its file fails" 1 $?
t_grep "naming the file and its size" \
	"mm.pevent: range 0x0-0x1000 is not inside its $(wc -c <mm.pevent | tr -d ' ') bytes" err
