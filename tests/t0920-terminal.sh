#!/bin/sh
# t0920-terminal: what only a person at a terminal sees.  `script -qc`
# runs a command on a pseudo-terminal, so its stderr is a terminal; the
# same command with stderr in a file must print none of it.
#  - progress: decoding commands draw a line on stderr (PT bytes of the
#    bundle's, instructions, rate), erased when the pass ends; -q, or
#    stderr not a terminal, draws nothing.  LOOPSCOPE_PROGRESS_DELAY=0
#    draws from the start rather than after a second (no timing here).
#  - record's progress: PT (and access) bytes received, the bundle's size.
#  - record's summary: the next command always, the top loops when stderr
#    is a terminal (the recording is small).
#  - colour: --color=always|never|auto and NO_COLOR, of messages and of
#    report's text views (stdout a terminal).
# Expected numbers: the bundle's PT bytes are `info`'s; the instructions
# are the profile's total (report --format=json).
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$TESTDATA
t_need_recorder
if ! command -v script >/dev/null 2>&1; then
	t_n=$((t_n + 1))
	echo "ok $t_n # skip script(1) is missing (Debian package bsdutils)"
	exit 0
fi
export LOOPSCOPE_PROGRESS_DELAY=0
ESC=$(printf '\033')

"$LOOPSCOPE" record -o t.lsc -- "$TD/lp_trips" >/dev/null 2>rec.err
t_grep "record, stderr a file: the next command" "^next: loopscope report t.lsc" rec.err
t_eq "... no progress line, no top loops" "" "$(grep -c "recording\|top loops\|$ESC" rec.err | grep -v '^0$')"
"$LOOPSCOPE" analyze -q -o t.lsprof t.lsc
"$LOOPSCOPE" report --format=json t.lsprof >r.json
total=$(python3 -c 'import json; print(json.load(open("r.json"))["total_instructions"])')
# info's "pt RAW/STORED" line: the raw PT bytes, as the line shows them (kB)
ptk=$("$LOOPSCOPE" info t.lsc | awk '$1 == "pt" { split($2, a, "/"); printf "%.1f kB", a[1] / 1000 }')

script -qc "'$LOOPSCOPE' analyze -o a.lsprof t.lsc" /dev/null >pty.txt 2>&1
tr '\r' '\n' <pty.txt >pty.lines
t_grep "analyze on a terminal: a progress line" "decoding.*: .* of .* of PT (100%), .* instructions" pty.lines
# analyze decodes twice (the loops learned, then profiled: struct
# lsa_know): one line over both, the PT and the instructions twice over
pt2k=$("$LOOPSCOPE" info t.lsc | awk '$1 == "pt" { split($2, a, "/"); printf "%.1f kB", 2 * a[1] / 1000 }')
t_grep "... one line over its two decodes: $pt2k of PT, twice $total instructions" \
	"decoding twice.*: $pt2k of $pt2k of PT (100%), $(awk -v n="$total" 'BEGIN { printf "%.1f k", 2 * n / 1000 }') instructions" pty.lines
t_eq "... and no line of one decode" 0 "$(grep decoding pty.lines | grep -vc 'decoding twice')"
t_grep "... erased before the summary" "$ESC\[Kloopscope: [0-9]* loops" pty.lines
script -qc "'$LOOPSCOPE' analyze -q -o a.lsprof t.lsc" /dev/null >ptyq.txt 2>&1
t_eq "analyze -q on a terminal: nothing" "" "$(cat ptyq.txt)"
script -qc "'$LOOPSCOPE' -q info --decode t.lsc" /dev/null >ptyg.txt 2>&1
t_eq "loopscope -q (before the command): no progress" 0 "$(grep -c decoding ptyg.txt)"
script -qc "'$LOOPSCOPE' info --decode t.lsc" /dev/null >ptyi.txt 2>&1
tr '\r' '\n' <ptyi.txt >ptyi.lines
t_grep "info --decode on a terminal: progress, $ptk of PT, $total instructions" \
	"decoding.*: $ptk of $ptk of PT (100%), $(awk -v n="$total" 'BEGIN { printf "%.1f k", n / 1000 }') instructions" ptyi.lines
"$LOOPSCOPE" info --decode t.lsc >/dev/null 2>plain.err
t_eq "info --decode, stderr a file: no progress" 0 "$(grep -c decoding plain.err)"

script -qc "'$LOOPSCOPE' record -o s.lsc -- '$TD/lp_trips'" /dev/null >ptyr.txt 2>&1
tr '\r' '\n' <ptyr.txt >ptyr.lines
# record's line: the sw recorder reports the PT (and access) bytes it
# received; the last line, drawn when the command ended, has them all:
# info's "pt" raw bytes (and "memory accesses" bytes), as the line shows
# them (kB), and from the first second on the PT rate (a loaded machine
# takes that long).  Before the first PT record arrives: the bundle's size.
sptk=$("$LOOPSCOPE" info s.lsc | awk '$1 == "pt" { split($2, a, "/"); printf "%.1f kB", a[1] / 1000 }')
t_grep "record on a terminal: progress, before any PT: the bundle's size" \
	"recording.*: bundle [0-9.]* [kM]*B so far, [0-9]*:[0-5][0-9]" ptyr.lines
t_eq "record on a terminal: the last line, all $sptk of PT" \
	"$sptk of PT, bundle" \
	"$(grep 'recording' ptyr.lines | tail -1 | sed -n "s/.*recording[^:]*: \(.* of PT, bundle\) [0-9.]* [kM]*B, [0-9]*:[0-5][0-9]\(, [0-9.]* [kMG]*B\/s of PT\)\{0,1\}\$/\1/p")"
script -qc "'$LOOPSCOPE' record --mem -o m.lsc -- '$TD/lp_trips'" /dev/null >ptym.txt 2>&1
tr '\r' '\n' <ptym.txt >ptym.lines
mptk=$("$LOOPSCOPE" info m.lsc | awk '$1 == "pt" { split($2, a, "/"); printf "%.1f kB", a[1] / 1000 }')
macc=$("$LOOPSCOPE" info m.lsc | awk '/^memory accesses:/ { printf "%.1f kB", $3 / 1000 }')
t_eq "record --mem: the last line, $mptk of PT and $macc of accesses" \
	"$mptk of PT, $macc of accesses" \
	"$(grep 'recording' ptym.lines | tail -1 | sed -n "s/.*recording[^:]*: \(.* of accesses\), bundle [0-9.]* [kM]*B, [0-9]*:[0-5][0-9]\(, [0-9.]* [kMG]*B\/s of PT\)\{0,1\}\$/\1/p")"
t_grep "... the top loops" "top loops.* of [0-9]* instructions" ptyr.lines
t_eq "... five of them" 5 "$(grep -c '%.*loop [0-9]*  ' ptyr.lines)"
t_grep "... and the next command" "^next: loopscope report s.lsc" ptyr.lines

"$LOOPSCOPE" --color=always html -q -o x.html nothere.lsc 2>col.err
t_grep "--color=always: the error's prefix in red" "^$ESC\[1;31mloopscope:$ESC\[0m cannot open" col.err
script -qc "'$LOOPSCOPE' html -q -o x.html nothere.lsc" /dev/null >ptyc.txt 2>&1
t_grep "auto on a terminal: colour" "$ESC\[1;31mloopscope:" ptyc.txt
script -qc "NO_COLOR=1 '$LOOPSCOPE' html -q -o x.html nothere.lsc" /dev/null >ptyn.txt 2>&1
t_eq "NO_COLOR: none" 0 "$(grep -c "$ESC" ptyn.txt)"
script -qc "'$LOOPSCOPE' --color=never html -q -o x.html nothere.lsc" /dev/null >ptyv.txt 2>&1
t_eq "--color=never: none" 0 "$(grep -c "$ESC" ptyv.txt)"
"$LOOPSCOPE" html -q -o x.html nothere.lsc 2>auto.err
t_eq "auto, stderr a file: none" 0 "$(grep -c "$ESC" auto.err)"
t_fail "--color=sometimes is refused" "$LOOPSCOPE" --color=sometimes info t.lsc

# Colour in report's text views (flat, --tree, --functions) when stdout is
# a terminal: headers bold (ESC[1m), loop labels cyan (ESC[1;36m), shares
# of >= 10% magenta (ESC[1;35m).  The expected counts come from the plain
# output (stdout a file): its "Loop N" labels, its percentages >= 10.
# Colour only adds escapes: without them the terminal's output is the
# file's, byte for byte (script turns \n into \r\n: the \r are dropped).
nocol() { sed "s/$ESC\[[0-9;]*m//g"; }
# (--show-loader: the loader's loops are the ones of lp_trips's run with
# shares of 10% and more)
for name in flat --tree --functions; do
	case $name in
	flat) view=--show-loader ;;
	--tree) view="--tree --show-loader" ;;
	*) view=$name ;;
	esac
	"$LOOPSCOPE" report $view t.lsprof >plain$name.txt 2>/dev/null
	script -qc "'$LOOPSCOPE' report $view t.lsprof 2>/dev/null" /dev/null | tr -d '\r' >tty$name.txt
	t_ok "report $view on a terminal: colour" grep -q "$ESC" tty$name.txt
	t_eq "report $view on a terminal: the plain output plus escapes" \
		"$(cat plain$name.txt)" "$(nocol <tty$name.txt)"
	t_eq "report $view: the header bold" "${ESC}[1m$(head -1 plain$name.txt)${ESC}[0m" \
		"$(head -1 tty$name.txt)"
	script -qc "'$LOOPSCOPE' report --color=never $view t.lsprof 2>/dev/null" /dev/null |
		tr -d '\r' >never$name.txt
	t_ok "report --color=never $view on a terminal: byte-identical to a file" \
		cmp plain$name.txt never$name.txt
	script -qc "'$LOOPSCOPE' --color=never report $view t.lsprof 2>/dev/null" /dev/null |
		tr -d '\r' >gnever$name.txt
	t_ok "loopscope --color=never report $view: byte-identical" cmp plain$name.txt gnever$name.txt
	script -qc "NO_COLOR=1 '$LOOPSCOPE' report $view t.lsprof 2>/dev/null" /dev/null |
		tr -d '\r' >nocolor$name.txt
	t_ok "NO_COLOR=1 report $view on a terminal: byte-identical" cmp plain$name.txt nocolor$name.txt
	# stderr a terminal, stdout a file: auto does not colour
	script -qc "'$LOOPSCOPE' report $view t.lsprof >out$name.txt 2>/dev/null" /dev/null >/dev/null
	t_ok "report $view, stdout a file (stderr a terminal): byte-identical" \
		cmp plain$name.txt out$name.txt
done
# flat: every loop label, and exactly the percentages >= 10, coloured
t_eq "flat: each 'Loop N' label cyan" "$(grep -c '^Loop [0-9]' plainflat.txt)" \
	"$(grep -c "^${ESC}\[1;36mLoop [0-9]*${ESC}\[0m at " ttyflat.txt)"
hot() { awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9][0-9]%?$/ && $i + 0 >= 10) n++ } END { print n + 0 }'; }
t_eq "flat: the self and total shares >= 10% magenta" \
	"$(grep '^  *[0-9.]* %  *[0-9.]* %$' plainflat.txt | hot)" \
	"$(grep -o "${ESC}\[1;35m *[0-9.]* %${ESC}\[0m" ttyflat.txt | wc -l)"
t_ok "flat, tree, functions: some share is hot (the test can tell)" \
	test "$(grep -o "${ESC}\[1;35m" ttyflat.txt | wc -l)" -gt 0 -a \
	"$(grep -o "${ESC}\[1;35m" tty--tree.txt | wc -l)" -gt 0 -a \
	"$(grep -o "${ESC}\[1;35m" tty--functions.txt | wc -l)" -gt 0
t_eq "tree: each loop label cyan" "$(grep -c '  loop [0-9]' plain--tree.txt)" \
	"$(grep -c "  ${ESC}\[1;36mloop [0-9]*${ESC}\[0m  " tty--tree.txt)"
t_eq "tree: the shares >= 10% magenta" \
	"$(grep '%  loop ' plain--tree.txt | awk '{ print $1 }' | tr -d '~' | hot)" \
	"$(grep -c "${ESC}\[1;35m *~*[0-9.]*%${ESC}\[0m  " tty--tree.txt)"
t_eq "functions: the self and total shares >= 10% magenta" \
	"$(sed -n '3,$p' plain--functions.txt | grep -v '^Sum ' | awk '{ print $(NF-2), $(NF-1) }' | hot)" \
	"$(grep -o "${ESC}\[1;35m *[0-9.]*${ESC}\[0m" tty--functions.txt | wc -l)"
"$LOOPSCOPE" report --color=always --show-loader t.lsprof >always.txt 2>/dev/null
t_ok "report --color=always to a file: colour" grep -q "$ESC" always.txt
t_eq "... the same escapes as on a terminal" "$(cat ttyflat.txt)" "$(cat always.txt)"
for f in --format=json --format=csv --folded; do
	t_eq "report $f --color=always: never coloured" 0 \
		"$("$LOOPSCOPE" report $f --color=always t.lsprof 2>/dev/null | grep -c "$ESC")"
done
t_fail "report --color=sometimes is refused" "$LOOPSCOPE" report --color=sometimes t.lsprof
t_grep "... naming the value" "--color wants auto, always or never, not 'sometimes'" "$T_TMP/last.err"
