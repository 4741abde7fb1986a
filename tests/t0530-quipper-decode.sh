#!/bin/sh
# t0530-quipper-decode: real Intel PT (../shared/testdata-real/quipper,
# recorded with `perf record -e intel_pt//` on a Core m7-6Y75; README
# there) decoded down to control-flow queries.  The binaries are not
# included, so instructions cannot be decoded: `info --decode` and `dump`
# must say which code is missing, count the trace as lost and exit 0.
# Expected numbers: libipt's packet decoder (ptpkt_count) over the
# streams as lsb_dump extracts them; the query decoder (dump --query)
# must hand out every TNT bit and every TIP packet (as an indirect
# branch or inside an enabled/disabled/async event) exactly once.  When
# this test was written ptpkt_count gave 47,456 TNT bits and 507 TIPs for
# cpu 0 and 329,792 / 11,552 for cpu 3; those are checked too.
. "$LSTOP/tests/lib.sh"
Q=$T_REAL/quipper
T=$BUILD/tests
cd "$T_TMP" || exit 1
if [ ! -r "$Q/perf.data.intel_pt-4.14" ]; then
	echo "ok 1 # SKIP no $Q"
	exit 0
fi

check() {	# check NAME PERF.DATA PSBS
	name=$1
	psbs=$3
	"$LOOPSCOPE" import -q -o "$name.lsc" "$2" >/dev/null 2>&1
	t_eq "$name: import succeeds" 0 $?
	mkdir "$name.x" && "$T/lsb_dump" -x "$name.x" "$name.lsc" >"$name.info"
	"$LOOPSCOPE" dump --query "$name.lsc" >"$name.q" 2>"$name.qerr"
	t_eq "$name: dump --query exits 0" 0 $?
	for sid in $(awk '$1 == "stream" { print $2 }' "$name.info"); do
		cpu=$(awk -v s="$sid" '$1 == "stream" && $2 == s { print $6 }' "$name.info")
		"$T/ptpkt_count" "$name.x/stream.$sid" >"$name.pk.$sid"
		pk() { awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' "$name.pk.$sid"; }
		qq() { awk -v s="$sid" -v f="$1" '$1 == "stream" && $2 == s { for (i = 3; i < NF; i++) if ($i == f) print $(i + 1) }' "$name.q"; }
		t_eq "$name cpu $cpu: query TNT bits = packet decoder's ($(pk tnt_bits))" "$(pk tnt_bits)" "$(qq tnt)"
		t_eq "$name cpu $cpu: query TIPs (indirect + events) = TIP packets of all kinds ($(pk tip))" \
			"$(pk tip)" "$(qq tip_all)"
		t_eq "$name cpu $cpu: no query errors" 0 "$(qq errors)"
		echo "$cpu $(pk tnt_bits) $(pk tip)" >>"$name.counts"
	done
	"$LOOPSCOPE" dump --packets "$name.lsc" >"$name.p"
	t_eq "$name: dump --packets exits 0" 0 $?
	t_eq "$name: dump --packets, no packet errors" 0 "$(grep -c '  error: ' "$name.p")"
	t_eq "$name: dump --packets prints every packet" \
		"$(cat "$name".pk.* | awk '{ s += $2 } END { print s }')" \
		"$(grep -c '^[0-9a-f]\{16\}  ' "$name.p")"

	"$LOOPSCOPE" info --decode --format=json "$name.lsc" >"$name.json" 2>"$name.err"
	t_eq "$name: info --decode exits 0" 0 $?
	t_ok "$name: info --decode JSON parses" python3 -m json.tool "$name.json"
	t_grep "$name: the warning names the missing program" \
		"warning: '$name.lsc' holds no code for .*'/usr/bin/coreutils'" "$name.err"
	t_grep "$name: ... and libc" "no code for .*and [0-9]* more" "$name.err"
	losses=$(sed -n 's/.*"losses": \([0-9]*\).*/\1/p' "$name.json" | awk '{ s += $1 } END { print s + 0 }')
	t_ok "$name: the missing code counts as losses ($losses)" test "$losses" -gt 0
	"$LOOPSCOPE" dump "$name.lsc" >"$name.d" 2>"$name.derr"
	t_eq "$name: dump exits 0" 0 $?
	t_eq "$name: dump prints one loss line per loss" "$losses" "$(grep -c ' loss at offset ' "$name.d")"
	t_eq "$name: one warning, not one per mapping" 1 "$(grep -c warning "$name.derr")"

	# Who runs on each CPU.  The recording traced echo alone (perf record
	# -- echo: the intel_pt event follows that task), the one thread of
	# the sideband's COMM/EXIT events (3174 in the file, 3587 piped, as
	# quipper's own parse says); the CPU-wide switch events name other
	# tasks too (pid 1760 is the first switched in on cpu 3 of the file).
	# At every TIP.PGE and every PSB with tracing on, the switch rule must
	# name echo: one decision per enable (dump --query's enabled count),
	# and PSBS such PSBs on cpu 3 (as found when the test was written).
	echo=$("$LOOPSCOPE" info "$name.lsc" | sed -n '/^threads: 1$/{n;s|^ *\([0-9]*\)/\([0-9]*\) .*|\1 \2|p}')
	"$T/swcheck" "$name.lsc" >"$name.sw"
	t_eq "$name: swcheck exits 0" 0 $?
	en=$(awk '$1 == "total" { for (i = 2; i < NF; i++) if ($i == "enabled") print $(i + 1) }' "$name.q")
	t_eq "$name: one decision per enable ($en)" "$en" "$(grep -c ' enable ' "$name.sw")"
	t_eq "$name: $psbs PSBs with tracing on, on cpu 3" "$psbs" "$(grep -c '^1 3 psb ' "$name.sw")"
	t_eq "$name: every decision names echo ($echo)" "$(wc -l <"$name.sw")" \
		"$(awk -v e="$echo" '$5 " " $6 == e' "$name.sw" | wc -l)"
	# The lags the rule relies on (decoder/switch.c): a switch-in's event
	# 0.4 to 0.7 us after its TIP.PGE's TSC; the first enable on each CPU
	# 1.7 to 2.2 us after its ITRACE_START.
	t_eq "$name: switch-in events follow their enables by 300..800 ns" $((en - 2)) \
		"$(awk '$3 == "enable" && $7 >= 300 && $7 <= 800' "$name.sw" | wc -l)"
	t_eq "$name: ... and the first enables follow ITRACE_START by 1.6..2.2 us" 2 \
		"$(awk '$3 == "enable" && $7 <= -1600 && $7 >= -2200' "$name.sw" | wc -l)"
	"$T/sbdump" -t -a "$name.lsc" >"$name.sb" 2>/dev/null
	t_eq "$name: sbdump -a exits 0 (same counts side by side)" 0 $?
	t_eq "$name: the decoder tells one thread per stream, echo's" \
		"thread 0 pid ${echo% *} tid ${echo#* }
thread 1 pid ${echo% *} tid ${echo#* }" "$(grep '^thread ' "$name.sb")"
	# Side by side in time order: echo ran on cpu 3 (stream 1) first, its
	# first enable there before the one on cpu 0 (by swcheck's TSCs, about
	# 1 ms in the file, 0.6 ms piped).
	first3=$(awk '$2 == 3 && $3 == "enable" { print $4; exit }' "$name.sw")
	first0=$(awk '$2 == 0 && $3 == "enable" { print $4; exit }' "$name.sw")
	t_ok "$name: echo ran on cpu 3 first ($first3 < $first0)" test "$first3" -lt "$first0"
	t_eq "$name: lsd_decode_all() tells cpu 3's thread first" \
		"all-thread 1 pid ${echo% *} tid ${echo#* }
all-thread 0 pid ${echo% *} tid ${echo#* }" "$(grep '^all-thread ' "$name.sb")"
	t_eq "$name: dump's thread lines name echo" "2 2" \
		"$(grep -c ' thread pid ' "$name.d") $(grep -c " thread pid ${echo% *} tid ${echo#* }\$" "$name.d")"
}

check file "$Q/perf.data.intel_pt-4.14" 8
t_eq "file: cpu 0 and cpu 3 counts as recorded when the test was written" \
	"0 47456 507
3 329792 11552" "$(sort -n file.counts)"
if [ -r "$Q/perf.data.piped.intel_pt-4.14" ]; then
	check piped "$Q/perf.data.piped.intel_pt-4.14" 4
fi
