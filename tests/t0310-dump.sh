#!/bin/sh
# t0310-dump: `loopscope dump` and `info --decode` on a recording of
# nested and on the corrupt bundles of testdata/bad/.  Expected numbers
# come from libipt alone (tests/tools/ptcheck.c): packets, TNT bits, TIP,
# TIP.PGE, TIP.PGD, instructions and blocks of its block decoder.
. "$LSTOP/tests/lib.sh"
T=$BUILD/tests
BAD="$LSTOP/testdata/bad"
cd "$T_TMP" || exit 1

"$LOOPSCOPE" record -q -o n.lsc -- "$TESTDATA/nested" >/dev/null
t_eq "record nested" 0 $?
"$T/ptcheck" n.lsc >pc.out
t_eq "libipt decodes it without errors" 0 $?
pc() {	# pc FIELD: ptcheck's number
	awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' pc.out
}
tid=$(pc tid)

# Blocks (default).
"$LOOPSCOPE" dump n.lsc >b.out 2>b.err
t_eq "dump exits 0" 0 $?
t_eq "dump: block lines' instructions add up to libipt's ($(pc insn))" "$(pc insn)" \
	"$(awk '$2 ~ /-/ { s += $3 } END { print s + 0 }' b.out)"
t_eq "dump: no loss lines" 0 "$(grep -c ' loss at ' b.out)"
t_eq "dump: every line is thread $tid" "$(wc -l <b.out)" "$(awk -v t="$tid" '$1 == t' b.out | wc -l)"
t_grep "dump: the innermost loop of nest() runs back to its head" \
	" taken *[0-9a-f]* *nest+0x" b.out
t_grep "dump: main is named" " main+0x" b.out
t_eq "dump: the last block is exit_group's system call" "syscall" "$(tail -1 b.out | awk '{ print $4 }')"
"$LOOPSCOPE" dump --limit=7 n.lsc >l.out
t_eq "dump --limit=7: seven lines" 7 "$(wc -l <l.out)"
head -7 b.out >h.out
t_ok "dump --limit=7: the first seven of the full dump" cmp l.out h.out
"$LOOPSCOPE" dump --tid="$tid" --limit=7 n.lsc >lt.out
t_ok "dump --tid selects the thread" cmp l.out lt.out

# Instructions.
"$LOOPSCOPE" dump --insn --limit=200 n.lsc >i.out
t_eq "dump --insn exits 0" 0 $?
t_eq "dump --insn: one line per instruction of the 200 blocks" \
	"$(awk '$2 ~ /-/ { s += $3 } END { print s }' i.out)" \
	"$(grep -c '^    [0-9a-f]\{16\}  [0-9a-f][0-9a-f] ' i.out)"
t_grep "dump --insn: bytes, mnemonic, operands" "^    [0-9a-f]\{16\}  \([0-9a-f][0-9a-f] \)\+ *[a-z]" i.out
t_eq "dump --insn: no undecodable blocks" 0 "$(grep -c 'no code\|disassembled)' i.out)"

# Packets and queries.
"$LOOPSCOPE" dump --packets n.lsc >p.out
t_eq "dump --packets exits 0" 0 $?
t_eq "dump --packets: libipt's packet count" "$(pc packets)" "$(grep -c '^[0-9a-f]\{16\}  ' p.out)"
t_eq "dump --packets: TNT bits" "$(pc tnt)" \
	"$(awk '$2 ~ /^tnt/ { gsub(/[()]/, "", $4); s += $4 } END { print s + 0 }' p.out)"
t_eq "dump --packets: tip.pge" "$(pc pge)" "$(awk '$2 == "tip.pge"' p.out | wc -l)"
t_grep "dump --packets: reconstructed IPs" "tip.pge  [0-9]: [a-z0-9-]* *[0-9a-f]\{16\}  ip=[0-9a-f]\{16\}" p.out
"$LOOPSCOPE" dump --query n.lsc >q.out
t_eq "dump --query exits 0" 0 $?
q() {	# q FIELD: the total line's number
	awk -v f="$1" '$1 == "total" { for (i = 2; i < NF; i++) if ($i == f) print $(i + 1) }' q.out
}
t_eq "dump --query: TNT bits = libipt's packet count" "$(pc tnt)" "$(q tnt)"
t_eq "dump --query: indirect branches = TIP packets" "$(pc tip)" "$(q tip)"
t_eq "dump --query: enabled events = TIP.PGE" "$(pc pge)" "$(q enabled)"
t_eq "dump --query: disabled events = TIP.PGD" "$(pc pgd)" \
	"$(( $(q disabled) + $(q async_disabled) ))"
t_eq "dump --query: no errors" 0 "$(q errors)"

# info --decode.
"$LOOPSCOPE" info --decode n.lsc >d.out
t_eq "info --decode exits 0" 0 $?
t_grep "info --decode: libipt's instructions, no losses" \
	"^  [0-9]* *$tid *$(pc insn) *[0-9]* *0 *0 *0$" d.out
"$LOOPSCOPE" info --decode --format=json n.lsc >d.json
t_ok "info --decode --format=json is JSON" python3 -m json.tool d.json
t_grep "info --decode JSON: instructions" "\"instructions\": $(pc insn)," d.json
t_eq "info without --decode does not decode" 0 "$("$LOOPSCOPE" info n.lsc | grep -c '^decode:')"

# Bad input.
"$LOOPSCOPE" dump none.lsc 2>e.err
t_eq "missing file: exit status 1" 1 $?
t_grep "missing file: hint to record" "no such file 'none.lsc'; run 'loopscope record' first" e.err
"$LOOPSCOPE" dump --bogus n.lsc 2>e.err
t_eq "unknown option: exit status 129" 129 $?
t_grep "unknown option: named" "unknown option '--bogus'" e.err
"$LOOPSCOPE" dump --packets --insn n.lsc 2>e.err
t_eq "--packets with --insn: exit status 129" 129 $?
"$LOOPSCOPE" dump --limit=x n.lsc 2>e.err
t_eq "--limit=x: exit status 129" 129 $?
"$LOOPSCOPE" dump --stream=999 n.lsc 2>e.err
t_eq "no such stream: exit status 1" 1 $?
t_grep "no such stream: named" "no stream with id 999 in 'n.lsc'" e.err
t_ok "dump -h" "$LOOPSCOPE" dump -h
t_grep "usage names --packets" "--packets" "$T_TMP/last.out"
t_ok "loopscope help dump" "$LOOPSCOPE" help dump
t_ok "dump is in the command list" sh -c "'$LOOPSCOPE' --help | grep -q '^   dump '"

for mode in "" --packets --query --insn; do
	"$LOOPSCOPE" dump $mode "$BAD/bad-magic.lsc" 2>e.err
	t_eq "bad-magic ($mode): exit status 1" 1 $?
	t_grep "bad-magic ($mode): names the file and offset" \
		"'$BAD/bad-magic.lsc': not a loopscope trace bundle (bad magic at offset 0)" e.err
	"$LOOPSCOPE" dump $mode "$BAD/bad-section-crc.lsc" >/dev/null 2>e.err
	t_eq "bad-section-crc ($mode): exit status 1" 1 $?
	t_grep "bad-section-crc ($mode): names file, section, offset" \
		"'$BAD/bad-section-crc.lsc': section #1 (PTCHUNK) at offset 100: payload checksum mismatch" e.err
done
"$LOOPSCOPE" dump "$BAD/oversize-length.lsc" >/dev/null 2>e.err
t_eq "oversize-length (damaged EVENTS): exit status 1" 1 $?
t_grep "oversize-length: names the section" "section #3 (EVENTS) at offset 235" e.err
"$LOOPSCOPE" info --decode "$BAD/bad-section-crc.lsc" >/dev/null 2>e.err
t_eq "info --decode of a damaged bundle: exit status 1" 1 $?
"$LOOPSCOPE" dump --packets "$BAD/truncated-mid-chunk.lsc" >t.out 2>e.err
t_eq "truncated-mid-chunk: recovered, exit status 0" 0 $?
t_grep "truncated-mid-chunk: warning names section and offset" \
	"warning: '$BAD/truncated-mid-chunk.lsc': truncated: section #4 (PTCHUNK) at offset 309" e.err
