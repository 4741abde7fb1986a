#!/bin/sh
# t0920-terminal: what only a person at a terminal sees.  `script -qc`
# runs a command on a pseudo-terminal, so its stderr is a terminal; the
# same command with stderr in a file must print none of it.
#  - progress: decoding commands draw a line on stderr (PT bytes of the
#    bundle's, instructions, rate), erased when the pass ends; -q, or
#    stderr not a terminal, draws nothing.  LOOPSCOPE_PROGRESS_DELAY=0
#    draws from the start rather than after a second (no timing here).
#  - record's summary: the next command always, the top loops when stderr
#    is a terminal (the recording is small).
#  - colour: --color=always|never|auto and NO_COLOR.
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
t_grep "record on a terminal: progress" "recording.*: bundle .* so far" ptyr.lines
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
