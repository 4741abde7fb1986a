#!/bin/sh
# t0100-bundle-bad: `loopscope info` on the corrupt bundles of testdata/bad/
# (made by tests/tools/mkbad.c from one small valid bundle; offsets and
# section numbers below follow from its layout: STREAM #0 at 32, PTCHUNK
# #1 at 100, META #2, EVENTS #3 at 235, PTCHUNK #4 at 309).
. "$LSTOP/tests/lib.sh"
BAD="$LSTOP/testdata/bad"

bad() {	# bad NAME PHRASE: exit status 1, message names the file and PHRASE
	"$LOOPSCOPE" info "$BAD/$1" >"$T_TMP/$1.out" 2>"$T_TMP/$1.err"
	t_eq "$1: exit status 1" 1 $?
	t_grep "$1: message names the file" "'$BAD/$1'" "$T_TMP/$1.err"
	t_grep "$1: message says: $2" "$2" "$T_TMP/$1.err"
}

bad bad-magic.lsc "not a loopscope trace bundle (bad magic at offset 0)"
bad future-version.lsc "file header at offset 0: format version 7.0, this loopscope reads 1.x"
bad truncated-header.lsc "truncated file header at offset 0 (20 of 32 bytes)"
bad bad-section-crc.lsc "section #1 (PTCHUNK) at offset 100: payload checksum mismatch"
bad oversize-length.lsc "section #3 (EVENTS) at offset 235: header differs .*4611686018427387904 raw"
t_grep "bad-section-crc.lsc: still lists both chunks (the damaged one fails when read)" \
	"^  1 *thread *42 *2 *200 " "$T_TMP/bad-section-crc.lsc.out"

# Cut short (as by kill -9): recovered, so exit status 0 with a warning
# naming the section and offset; the complete sections are all listed.
f=truncated-mid-chunk.lsc
"$LOOPSCOPE" info "$BAD/$f" >"$T_TMP/t.out" 2>"$T_TMP/t.err"
t_eq "$f: recovered, exit status 0" 0 $?
t_grep "$f: warning names the file" "warning: '$BAD/$f'" "$T_TMP/t.err"
t_grep "$f: warning names section, offset, lost bytes" \
	"section #4 (PTCHUNK) at offset 309 needs 69 bytes, 58 present; data ends there, 58 bytes lost" "$T_TMP/t.err"
t_grep "$f: stdout says truncated" "truncated at offset 309, 58 bytes lost" "$T_TMP/t.out"
t_grep "$f: the metadata before the cut" "cmdline *[/]bin/true" "$T_TMP/t.out"
t_grep "$f: the mapping before the cut" "0x0000000000400000 4096" "$T_TMP/t.out"
t_grep "$f: the first chunk of the stream (100 bytes)" "^  1 *thread *42 *1 *100 " "$T_TMP/t.out"
t_grep "$f: 4 complete sections" "^total: *4 sections" "$T_TMP/t.out"

"$LOOPSCOPE" info "$T_TMP/none.lsc" 2>"$T_TMP/none.err"
t_eq "missing file: exit status 1" 1 $?
t_grep "missing file: hint to record" "no such file '$T_TMP/none.lsc'; run 'loopscope record' first" "$T_TMP/none.err"
mkfifo "$T_TMP/fifo.lsc"
timeout 30 "$LOOPSCOPE" info "$T_TMP/fifo.lsc" 2>"$T_TMP/fifo.err"
t_eq "a FIFO: exit status 1, not a wait for its writer (timeout: 124)" 1 $?
t_grep "... it is not a regular file" "'$T_TMP/fifo.lsc': not a regular file" "$T_TMP/fifo.err"
"$LOOPSCOPE" info --bogus 2>"$T_TMP/u.err"
t_eq "unknown option: exit status 129" 129 $?
t_ok "info -h" "$LOOPSCOPE" info -h
t_grep "usage names --format" "--format=text|json" "$T_TMP/last.out"
