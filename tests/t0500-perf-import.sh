#!/bin/sh
# perf.data reader and `loopscope import` on real Intel PT recordings
# (../shared/testdata-real/quipper, recorded by others on a Core m7-6Y75).
# Expected numbers come from independent sources, read here at test time:
#  - record counts and AUXTRACE sizes/cpus: quipper's own parse
#    (perf.data.intel_pt-4.14.parse.out.pb_text);
#  - AUXTRACE bytes: quipper's trace_data strings, located in the perf.data
#    by a byte search (python3) and cut out with dd;
#  - piped file: the (type, size) sequence of kernel records (type < 64)
#    `perf report -D` prints (perf 6.1 stops after its AUXTRACE record, so
#    the sequence up to there is compared; its pipe-mode offsets are
#    shifted and it prints perf's own records out of file order, so those
#    are left out) and the AUXTRACE size perf prints;
#  - PT packets: libipt's pt_pkt decoder (ptpkt_count) over the dd-cut bytes.
. "$LSTOP/tests/lib.sh"
Q=$T_REAL/quipper
F=$Q/perf.data.intel_pt-4.14
P=$Q/perf.data.piped.intel_pt-4.14
PB=$F.parse.out.pb_text
T=$BUILD/tests
cd "$T_TMP" || exit 1
if [ ! -r "$F" ]; then
	echo "ok 1 # SKIP no $F"
	exit 0
fi

# 1. Record counts per type: quipper lists each event's header type.
grep -A1 '^  header {' "$PB" | awk '$1 == "type:" { c[$2]++ } END { for (t in c) print "count", t, c[t] }' |
	sort -k2n >expect.counts
"$T/lspd_dump" "$F" >dump.out 2>dump.err
t_eq "lspd_dump reads the file-mode perf.data" 0 $?
grep '^count ' dump.out | sort -k2n >got.counts
t_eq "record counts per type match quipper's parse ($(wc -l <expect.counts) types)" \
	"$(cat expect.counts)" "$(cat got.counts)"

# 2. AUXTRACE cpu and size: quipper's auxtrace_event blocks.
awk '/^  auxtrace_event \{/ { a = 1 } a && $1 == "size:" { s = $2 } a && $1 == "cpu:" { print "cpu", $2, "size", s; a = 0 }' \
	"$PB" | sort >expect.aux
awk '$1 == "auxtrace" { print "cpu", $3, "size", $5 }' dump.out | sort >got.aux
t_eq "AUXTRACE cpus and sizes match quipper" "$(cat expect.aux)" "$(cat got.aux)"
t_grep "cpu 0 has 12,240 bytes (README)" "cpu 0 size 12240" got.aux
t_grep "cpu 3 has 137,728 bytes (README)" "cpu 3 size 137728" got.aux

# 3. Quipper's trace bytes, found in the perf.data independently.
python3 - "$PB" "$F" >quipper.off <<'PY'
import codecs, re, sys
pb = open(sys.argv[1], encoding="latin-1").read()
data = open(sys.argv[2], "rb").read()
for m in re.finditer(r'auxtrace_event \{.*?cpu: (\d+).*?trace_data: "((?:[^"\\]|\\.)*)"', pb, re.S):
	raw = codecs.escape_decode(m.group(2).encode("latin-1"))[0]
	print(m.group(1), data.find(raw), len(raw))
PY
t_eq "quipper's two trace payloads are found in the file" 2 "$(awk '$2 > 0' quipper.off | wc -l)"
while read -r cpu off len; do
	dd if="$F" of="q.$cpu" bs=1 skip="$off" count="$len" 2>/dev/null
done <quipper.off
t_eq "parser's payload offsets equal where quipper's bytes are" \
	"$(awk '{ print $1, $2 }' quipper.off | sort)" \
	"$(awk '$1 == "auxtrace" { print $3, $7 }' dump.out | sort)"

# 4. Import, read back through lsb_reader_*, count packets.
"$LOOPSCOPE" import -q -o q.lsc "$F"
t_eq "loopscope import of the file-mode perf.data succeeds" 0 $?
mkdir -p x && "$T/lsb_dump" -x x q.lsc >info.out
t_eq "bundle holds two PT streams" 2 "$(grep -c '^stream ' info.out)"
for cpu in 0 3; do
	size=$(awk -v c=$cpu '$1 == "cpu" && $2 == c { print $4 }' expect.aux)
	sid=$(awk -v c=$cpu '$1 == "stream" && $6 == c { print $2 }' info.out)
	t_eq "stream of cpu $cpu holds quipper's $size bytes" "$size" \
		"$(awk -v c=$cpu '$1 == "stream" && $6 == c { print $7 }' info.out)"
	t_ok "stream of cpu $cpu is byte-identical to the dd-cut payload" cmp "q.$cpu" "x/stream.$sid"
	"$T/ptpkt_count" "q.$cpu" >pk.q.$cpu 2>&1
	t_eq "libipt decodes every packet of the dd-cut cpu $cpu payload" 0 $?
	"$T/ptpkt_count" "x/stream.$sid" >pk.b.$cpu 2>&1
	t_eq "libipt decodes every packet of bundle stream (cpu $cpu)" 0 $?
	t_eq "packet/TNT/TIP/FUP/PSB counts of cpu $cpu agree: $(cat pk.q.$cpu)" \
		"$(cat pk.q.$cpu)" "$(cat pk.b.$cpu)"
done
t_grep "meta cpu from the cpuid feature (GenuineIntel,6,78,3)" "^meta cpu.model 78$" info.out
t_grep "meta pt.tsc_ctc_ratio_n from AUXTRACE_INFO (quipper priv word 12 = 100)" \
	"^meta pt.tsc_ctc_ratio_n $(grep unparsed_binary_blob_priv_data "$PB" | sed -n 13p | awk '{ print $2 }')$" info.out
t_eq "samples in the bundle = SAMPLE records quipper lists" \
	"$(awk '$2 == 9 { print $3 }' expect.counts)" "$(awk '$1 == "samples" { print $2 }' info.out)"
t_eq "66 build-ids (quipper build_ids entries)" "$(grep -c '^build_ids {' "$PB")" \
	"$(awk '$1 == "buildids" { print $2 }' dump.out)"

# 5. Pipe mode: from the path and from stdin.
if [ -r "$P" ]; then
	"$T/lspd_dump" "$P" >pdump.out 2>pdump.err
	t_eq "lspd_dump reads the piped perf.data" 0 $?
	"$T/lspd_dump" - <"$P" >pdump2.out 2>&1
	t_ok "piped file read from stdin gives the same records" cmp pdump.out pdump2.out
	perf report -D -i "$P" 2>/dev/null |
		sed -n 's/^0x[0-9a-f]*@pipe \[0x\([0-9a-f]*\)\]: event: \([0-9]*\)$/\2 \1/p' |
		awk '$1 < 64' >perf.seq
	n=$(wc -l <perf.seq)
	grep '^rec ' pdump.out | awk '$3 < 64 { printf "%s %x\n", $3, $4 }' | head -n "$n" >got.seq
	t_ok "first $n kernel records (type, size) equal perf report -D's" cmp perf.seq got.seq
	psz=$(perf report -D -i "$P" 2>/dev/null | sed -n 's/.*PERF_RECORD_AUXTRACE size: \(0x[0-9a-f]*\) .*cpu: 0$/\1/p' | head -1)
	t_eq "piped AUXTRACE of cpu 0 has perf's size $psz" "$(printf %d "$psz")" \
		"$(awk '$1 == "auxtrace" && $3 == 0 { print $5 }' pdump.out)"
	"$LOOPSCOPE" import -q -o p.lsc - <"$P"
	t_eq "loopscope import - reads the pipe from stdin" 0 $?
	"$T/lsb_dump" p.lsc >pinfo.out
	t_eq "piped bundle stream bytes = parser's AUXTRACE sizes" \
		"$(awk '$1 == "auxtrace" { print $3, $5 }' pdump.out | sort)" \
		"$(awk '$1 == "stream" { print $6, $7 }' pinfo.out | sort)"
fi
t_fail "import of a missing file fails" "$LOOPSCOPE" import -o m.lsc no-such.data
t_grep "and names it" "no-such.data" "$T_TMP/last.err"
