#!/bin/sh
# t0900-html: `loopscope html` writes one self-contained page that a real
# browser (Debian's chromium, headless) draws without a script error; its
# DOM, after the script ran, holds the loops, percentages, trip-count
# histograms and source lines.  The screenshot and the page are kept under
# $BUILD/artefacts/t0900-html/ for a person to look at.
#
# Expected numbers: testdata/lp_trips.c's hand count (its header): vary()'s
# loop has 11 entries, 44 iterations and the histogram 1:2 2:1 3:2 4:1 5:3
# 6:1 9:1; its two lines (the for line and the body) each run once per
# iteration, 44 times.  The percentages are the text report's (`report
# --format=csv`, 4 decimals) rounded to the page's 2.  The 10^4-loop
# profile is written here, so its counts are known.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$TESTDATA
ART=$BUILD/artefacts/t0900-html
mkdir -p "$ART"

t_need_recorder

"$LOOPSCOPE" record -q -o t.lsc -- "$TD/lp_trips" >/dev/null 2>&1
t_ok "html from a bundle" "$LOOPSCOPE" html -q -o r.html t.lsc
t_eq "no outside reference (no src=, href=, url(), @import, http)" "" \
	"$(grep -oE '(src|href)=|url\(|@import|https?://[^"]*' r.html | grep -v '^http://www.w3.org/2000/svg$')"
"$LOOPSCOPE" report --format=csv t.lsc >r.csv
vary=$(awk -F, '$4 == "vary" { print $1 }' r.csv)
top=$(sed -n 2p r.csv | cut -d, -f1)
# The page rounds 100 * n / total to 2 decimals (JavaScript's toFixed);
# rounding the csv's 4-decimal percentage again could differ (46.2950 from
# 46.29497), so the same double is formed here from the exact counts.
all=$("$LOOPSCOPE" report --format=json t.lsc | sed -n 's/.*"total_instructions": \([0-9]*\),.*/\1/p' | head -n 1)
toppct=$(sed -n 2p r.csv | awk -F, -v all="$all" '{ printf "%.2f", 100 * $17 / all }')
varypct=$(awk -F, -v all="$all" '$4 == "vary" { printf "%.2f", 100 * $15 / all }' r.csv)
t_ok "the csv names vary's loop and the top loop, the json the total" test -n "$vary" -a -n "$top" -a -n "$all"

# Chromium as root needs --no-sandbox; without a session bus it waits for
# one unless told there is none.
chrome() {
	DBUS_SESSION_BUS_ADDRESS=disabled: HOME=$T_TMP timeout 90 chromium --headless \
		--no-sandbox --disable-gpu --no-first-run --disable-extensions \
		--disable-dev-shm-usage --hide-scrollbars --user-data-dir="$T_TMP/chr" \
		"$@" 2>>chrome.err
}
echo '<p id="x">x</p><script>document.getElementById("x").textContent = "probe-ok"</script>' >probe.html
if ! command -v chromium >/dev/null 2>&1 ||
   ! chrome --dump-dom "file://$T_TMP/probe.html" | grep -q probe-ok; then
	t_n=$((t_n + 1))
	echo "ok $t_n # skip chromium cannot start here (apt-get install chromium)"
	exit 0
fi

chrome --dump-dom "file://$T_TMP/r.html#loop-$vary" >dom.html
t_grep "the script ran without an error" 'id="status" data-status="ok"' dom.html
t_grep "flat table: the top loop first, with its total share ($toppct%)" \
	"<tbody><tr><td class=\"txt\"><a class=\"lp\" data-loop=\"$top\">loop $top</a></td>.*<td>$toppct</td>" dom.html
t_grep "vary's card (opened by #loop-$vary): 44 iterations" \
	"<th class=\"txt\">iterations</th><td class=\"txt\">44</td>" dom.html
t_grep "... 11 entries" "<th class=\"txt\">entries</th><td class=\"txt\">11</td>" dom.html
t_grep "... self share $varypct%" "<th class=\"txt\">self</th><td class=\"txt\">264 ($varypct%)</td>" dom.html
t_grep "... the exact trip-count histogram" '>1:2 2:1 3:2 4:1 5:3 6:1 9:1<' dom.html
t_grep "... histogram bars: 3 entries of trip count 5" \
	'data-trips="5" data-entries="3"' dom.html
t_grep "... source line 28 (the for) ran 44 times" '<td>28</td><td>44</td>' dom.html
t_grep "... source line 29 (the body) ran 44 times" '<td>29</td><td>44</td>' dom.html
t_grep "tree: vary's loop under main's, 11 entries from it" \
	"<li data-loop=\"$vary\">.*loop $vary</a>  vary  .*\[11 entries\]" dom.html
t_grep "functions table: main" '<td class="txt">main</td>' dom.html
t_grep "loop call graph (SVG) with the top loop" "<rect [^>]*data-loop=\"$top\"" dom.html
t_grep "... drawn as SVG" '<svg [^>]*id="callgraph"' dom.html

chrome --window-size=1280,1400 --screenshot="$ART/report.png" "file://$T_TMP/r.html" >/dev/null
t_eq "screenshot taken (a PNG)" "PNG" "$(dd if="$ART/report.png" bs=1 skip=1 count=3 2>/dev/null)"
cp r.html "$ART/report.html"

# A bundle with samples: the flat table gets the sampled time and cost
# per instruction, the source lines their cost (the sampling is a native
# run: how many samples land is not fixed, so this needs one attributed).
"$LOOPSCOPE" record -q --sample-freq=20000 -o s.lsc -- "$TD/lp_trips" >/dev/null 2>&1
"$LOOPSCOPE" report --cpi s.lsc >cpi.txt 2>/dev/null
if [ "$(sed -n 's/^samples: .*, \([0-9]*\) attributed.*/\1/p' cpi.txt)" -gt 0 ] 2>/dev/null; then
	"$LOOPSCOPE" html -q -o s.html s.lsc 2>/dev/null
	chrome --dump-dom "file://$T_TMP/s.html#loop-$vary" >sdom.html
	t_grep "samples: drawn without an error" 'id="status" data-status="ok"' sdom.html
	t_grep "samples: the flat table's time % column" '>time %</th>' sdom.html
	t_grep "samples: ... and cost per instruction (ns with cpu-clock)" '>ns/insn</th>' sdom.html
	t_grep "samples: source lines with their cost" '<th>cost (ns)</th>' sdom.html
else
	t_n=$((t_n + 1))
	echo "ok $t_n # skip no sample of the native run landed in the trace"
fi

# A profile file: every view but the source lines, which need the bundle.
"$LOOPSCOPE" analyze -q -o t.lsprof t.lsc
t_ok "html from a profile" "$LOOPSCOPE" html -q -o p.html t.lsprof
chrome --dump-dom "file://$T_TMP/p.html" >pdom.html
t_grep "profile: drawn without an error" 'id="status" data-status="ok"' pdom.html
t_grep "profile: says where the source lines come from" 'source lines need the bundle' pdom.html

# Dependence verdicts (analyze --deps of testdata/deps/kern recorded with
# --mem, as t0940 does; the verdicts and deciding dependences are t0940's
# hand counts): fig4's outer loop (kern.c:17) duplicate-array by B's WAR,
# count 2 at distance 1, line 20 to 20; raw1's loop (28) not parallelizable
# by ra's RAW, 14 at distance 1, line 29 to 29; lu's i loop (71)
# parallelizable, with no deciding dependence.  #loop-N marks loop N's
# row in the flat table (drawn however far down it is) and opens its card.
"$LOOPSCOPE" record --mem -q -o k.lsc -- "$TD/deps/kern" >/dev/null 2>&1
"$LOOPSCOPE" analyze --deps -q -o k.lsprof k.lsc
kid() { awk -F'\t' -v l="$1" '$1 == "loop" && $7 ~ /kern\.c$/ && $8 == l { print $2 }' k.lsprof; }
id17=$(kid 17) id28=$(kid 28) id71=$(kid 71)
t_ok "html of a profile with verdicts" "$LOOPSCOPE" html -q -o k.html k.lsprof
# split the DOM: a line per table row, a line per card's start
cards() { sed 's/<tr/\n<tr/g; s/<\/table>/\n&/g; s/<div class="card/\n&/g' "$1"; }
chrome --dump-dom "file://$T_TMP/k.html#loop-$id17" | cards /dev/stdin >k17.dom
chrome --dump-dom "file://$T_TMP/k.html#loop-$id28" | cards /dev/stdin >k28.dom
t_grep "verdicts: drawn without an error" 'id="status" data-status="ok"' k17.dom
t_grep "flat table: a parallel column" '>parallel</th>' k17.dom
vd='<td class="txt"><span class="vd" data-verdict'
t_grep "flat: fig4 outer's row (marked by #loop-$id17): duplicate-array" \
	"^<tr class=\"sel\"><td class=\"txt\"><a class=\"lp\" data-loop=\"$id17\">.*$vd=\"duplicate-array\"[^>]*>duplicate-array</span></td></tr>" k17.dom
t_grep "flat: raw1's row: not-parallelizable" \
	"^<tr class=\"sel\"><td class=\"txt\"><a class=\"lp\" data-loop=\"$id28\">.*$vd=\"not-parallelizable\"[^>]*>not-parallelizable</span></td></tr>" k28.dom
t_grep "flat: lu's i loop: parallelizable" \
	"^<tr><td class=\"txt\"><a class=\"lp\" data-loop=\"$id71\">.*$vd=\"parallelizable\"[^>]*>parallelizable</span></td></tr>" k17.dom
t_grep "card of fig4 outer: its verdict" \
	"^<tr><th class=\"txt\">parallel</th>$vd=\"duplicate-array\"" k17.dom
dep='<tr><td class="txt">%s</td><td>%s</td><td>%s</td><td>%s</td><td class="txt at">%s</td><td class="txt at">%s</td><td class="txt at">%s</td></tr>'
# the card's lines: from its start to the next card's
card() { awk -v id="$2" '/^<div class="card/ { on = index($0, "id=\"loop-" id "\"") > 0 } on' "$1"; }
t_eq "card of fig4 outer: the one deciding dependence, B's WAR" \
	"$(printf "$dep" WAR 2 1 1 'B[]' kern.c:20 kern.c:20)" \
	"$(card k17.dom "$id17" | grep '^<tr><td class="txt">[RW]A[RW]<')"
t_grep "card of raw1: not-parallelizable" \
	"^<tr><th class=\"txt\">parallel</th>$vd=\"not-parallelizable\"" k28.dom
t_eq "card of raw1: the one deciding dependence, ra's RAW" \
	"$(printf "$dep" RAW 14 1 1 'ra[]' kern.c:29 kern.c:29)" \
	"$(card k28.dom "$id28" | grep '^<tr><td class="txt">[RW]A[RW]<')"
t_eq "a profile without verdicts: no parallel column" 0 "$(grep -c '>parallel</th>' dom.html)"
# html --deps from the bundle: the same verdicts in the page's data.
t_ok "html --deps of the bundle" "$LOOPSCOPE" html --deps -q -o kb.html k.lsc
t_grep "html --deps: fig4 outer's verdict and dependence in the data" \
	'"fn":"fig4","at":"[^"]*kern.c:17",.*"vd":"duplicate-array","vn":\[\],"dep":\[\["WAR",2,1,1,"B\[\]","kern.c:20","kern.c:20"\]\]}' kb.html
t_fail "html --deps of a profile is refused" "$LOOPSCOPE" html --deps -o x.html k.lsprof
t_grep "... saying why" "'k.lsprof' is a profile: --deps needs the bundle" "$T_TMP/last.err"

# 10^4 loops: 100 chains of 100 nested loops, each loop 2 iterations of 10
# instructions of its own.  The page draws a page of rows, not 10^4.
awk 'BEGIN {
	z = "0\t0\t0\t0\t0\t0\t0\t0"
	print "loopscope-profile 2"; print "profile\t1024\t1\tmany.lsc"; n = 1
	print "module\t0\t-\t/bin/many"; n++
	print "thread\t0\t0\t1\t1\t100000\t0\t0\t" z "\t0"; n++
	print "func\t0\t0\t0x1000\t0x1000\tmany\tmany.c\t1"; n++
	for (i = 0; i < 10000; i++) {
		printf "loop\t%d\t0\t0x%x\t0x%x\t0\tmany.c\t%d\tmany.c\t%d\t%d\t%d\t\n", i, 4096 + 16 * i, 4096 + 16 * i, i + 2, i + 2, i + 2, i + 2; n++ }
	for (i = 0; i < 10000; i++) {
		t = 10 * (100 - i % 100)
		printf "lstat\t%d\t0\t1\t2\t10\t%d\t2\t2\t0\t0\t%s\t10\t%s\t%d\n", i, t, z, z, t; n++ }
	for (i = 0; i < 10000; i++) { printf "trip\t%d\t0\t2\t1\n", i; n++ }
	for (i = 0; i < 10000; i++) {
		printf "edge\t%s\t%d\t0\t1\t%d\n", i % 100 ? i - 1 : "-", i, 10 * (100 - i % 100); n++ }
	print "fstat\t0\t0\t100000\t100000\t100000\t1"; n++
	print "end\t" n }' >many.lsprof
t_ok "html of 10^4 loops" "$LOOPSCOPE" html -q -o many.html many.lsprof
chrome --dump-dom "file://$T_TMP/many.html" >mdom.html
t_grep "10^4 loops: drawn without an error" 'id="status" data-status="ok"' mdom.html
# (a source cell of the flat table: <td class="txt at"><span title=...)
t_eq "10^4 loops: the flat table draws 25 rows" 25 \
	"$(grep -o '<td class="txt at"><span' mdom.html | wc -l)"
t_grep "10^4 loops: the rest on demand" 'show more (9975 of 10000 not shown)' mdom.html
t_grep "10^4 loops: a chain's top loop has 1.00% of the instructions" \
	'<td>1.00</td>' mdom.html

t_fail "a missing input fails" "$LOOPSCOPE" html -o x.html nothere.lsc
t_grep "... naming it" "nothere.lsc" "$T_TMP/last.err"
t_fail "an unwritable output fails" "$LOOPSCOPE" html -o nodir/x.html t.lsprof
t_grep "... naming it" "nodir/x.html" "$T_TMP/last.err"
t_ok "--help" "$LOOPSCOPE" html --help
