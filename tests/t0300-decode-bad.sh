#!/bin/sh
# t0300-decode-bad: the decoder on damaged PT.  A recording of spin is
# cut into 4 KB chunks with a PSB every 512 bytes; ptcorrupt rewrites its
# stream with damage.  Expected numbers:
#  - the clean count: libipt alone (ptcheck's insn over the whole stream);
#  - the floor for a damaged stream: the chunks without damage, each
#    decoded alone by libipt with ptcheck's next-PSB stop rule
#    (ptcorrupt chunks), since a decoder that resyncs at the next PSB
#    after the damage finds at least those;
#  - losses: one per smashed spot (16 bytes of 02 00 ..., an undefined
#    opcode wherever the decoder stands in them), each in its own chunk.
# Random byte flips only must not crash (they may change the path
# silently: a flipped TNT bit is a valid trace).
. "$LSTOP/tests/lib.sh"
T=$BUILD/tests
cd "$T_TMP" || exit 1

"$LOOPSCOPE" record -q --chunk-size 4096 --psb-period 512 -o clean.lsc -- \
	"$TESTDATA/spin" 100 1000 >/dev/null
t_eq "record spin with small chunks" 0 $?
"$T/ptcorrupt" chunks clean.lsc >chunks.txt
t_eq "ptcorrupt counts every chunk alone" 0 $?
nchunks=$(wc -l <chunks.txt)
t_ok "the stream has at least 6 chunks ($nchunks)" test "$nchunks" -ge 6
sid=$(awk 'NR == 1 { print $4 }' chunks.txt)
clean=$("$T/ptcheck" clean.lsc | awk '{ for (i = 1; i < NF; i++) if ($i == "insn") print $(i + 1) }')

# jnum NAME FILE: the number after "NAME": in the stream line of info's
# --decode JSON (one stream here)
jnum() {
	grep '"instructions"' "$2" | sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" | head -1
}
decode() {	# decode FILE: info --decode as JSON into FILE.json
	"$LOOPSCOPE" info --decode --format=json "$1" >"$1.json" 2>"$1.err"
}
# chunk field: offset/size of chunk K
cfield() {
	awk -v k="$1" -v f="$2" '$6 == k { for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' chunks.txt
}
# floor K...: instructions of every chunk but K...
floor() {
	awk -v skip=" $* " 'index(skip, " " $6 " ") == 0 { s += $12 } END { print s + 0 }' chunks.txt
}

decode clean.lsc
t_eq "info --decode on the clean bundle exits 0" 0 $?
t_eq "clean: decoded instructions = libipt's ($clean)" "$clean" "$(jnum instructions clean.lsc.json)"
t_eq "clean: no losses" 0 "$(jnum losses clean.lsc.json)"
t_eq "clean: chunks alone add up to the whole" "$clean" "$(floor)"

# Two smashed spots, mid chunk 2 and mid chunk 4.
o2=$(( $(cfield 2 offset) + $(cfield 2 size) / 2 ))
o4=$(( $(cfield 4 offset) + $(cfield 4 size) / 2 ))
"$T/ptcorrupt" write clean.lsc smash2.lsc "$sid" smash:$o2 smash:$o4
t_eq "ptcorrupt smashes chunks 2 and 4" 0 $?
decode smash2.lsc
t_eq "smashed: info --decode exits 0" 0 $?
n=$(jnum instructions smash2.lsc.json)
t_eq "smashed: two losses" 2 "$(jnum losses smash2.lsc.json)"
t_ok "smashed: fewer instructions than clean ($n < $clean)" test "$n" -lt "$clean"
t_ok "smashed: at least the undamaged chunks ($n >= $(floor 2 4))" test "$n" -ge "$(floor 2 4)"
t_ok "smashed: lost bytes counted" test "$(jnum lost_bytes smash2.lsc.json)" -gt 0
"$LOOPSCOPE" dump smash2.lsc >smash2.dump 2>smash2.dump.err
t_eq "smashed: dump exits 0" 0 $?
t_eq "smashed: dump prints two loss lines" 2 "$(grep -c ' loss at offset ' smash2.dump)"
t_eq "smashed: dump's blocks hold the decoded instructions" "$n" \
	"$(awk '$2 ~ /-/ { s += $3 } END { print s + 0 }' smash2.dump)"
t_eq "smashed: a gap block before each loss" 2 "$(awk '$4 == "gap"' smash2.dump | wc -l)"

# A smashed PSB at the start of chunk 3.
o3=$(cfield 3 offset)
"$T/ptcorrupt" write clean.lsc psb.lsc "$sid" smash:$o3
decode psb.lsc
t_eq "smashed PSB: info --decode exits 0" 0 $?
n=$(jnum instructions psb.lsc.json)
t_eq "smashed PSB: one loss" 1 "$(jnum losses psb.lsc.json)"
t_ok "smashed PSB: between the undamaged chunks and clean ($(floor 3) <= $n < $clean)" \
	test "$n" -ge "$(floor 3)" -a "$n" -lt "$clean"

# A stream cut mid chunk 5, plus a smash in chunk 1: the cut is the end
# of the trace, not a loss.
o1=$(( $(cfield 1 offset) + $(cfield 1 size) / 2 ))
o5=$(( $(cfield 5 offset) + $(cfield 5 size) / 2 ))
"$T/ptcorrupt" write clean.lsc cut.lsc "$sid" smash:$o1 cut:$o5
decode cut.lsc
t_eq "cut: info --decode exits 0" 0 $?
n=$(jnum instructions cut.lsc.json)
t_eq "cut: one loss (the smash; the cut ends the stream)" 1 "$(jnum losses cut.lsc.json)"
rest=$(awk '$6 != 1 && $6 < 5 { s += $12 } END { print s + 0 }' chunks.txt)
t_ok "cut: between the chunks before the cut but 1 and clean ($rest <= $n < $clean)" \
	test "$n" -ge "$rest" -a "$n" -lt "$clean"

# Random flips: no crash, exit 0, every path ends cleanly.
size=$(awk '{ s += $10 } END { print s }' chunks.txt)
ok=0
for seed in 1 2 3 4 5 6 7 8; do
	ops=$(awk -v s=$seed -v n="$size" 'BEGIN { srand(s); for (i = 0; i < 6; i++) printf "flip:%d:%d ", int(rand() * n), 1 + int(rand() * 255) }')
	# shellcheck disable=SC2086
	"$T/ptcorrupt" write clean.lsc flip.lsc "$sid" $ops &&
		decode flip.lsc && "$LOOPSCOPE" dump flip.lsc >/dev/null 2>&1 &&
		"$LOOPSCOPE" dump --packets flip.lsc >/dev/null 2>&1 &&
		"$LOOPSCOPE" dump --query flip.lsc >/dev/null 2>&1 && ok=$((ok + 1))
done
t_eq "8 bundles with 6 random flips each: info --decode and dump exit 0" 8 "$ok"
