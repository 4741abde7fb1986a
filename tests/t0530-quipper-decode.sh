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

check() {	# check NAME PERF.DATA
	name=$1
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
}

check file "$Q/perf.data.intel_pt-4.14"
t_eq "file: cpu 0 and cpu 3 counts as recorded when the test was written" \
	"0 47456 507
3 329792 11552" "$(sort -n file.counts)"
if [ -r "$Q/perf.data.piped.intel_pt-4.14" ]; then
	check piped "$Q/perf.data.piped.intel_pt-4.14"
fi
