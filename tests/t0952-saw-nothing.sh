#!/bin/sh
# t0952-saw-nothing: an analysis that saw nothing fails; one that saw part
# of the trace warns and succeeds; a profile whose numbers contradict each
# other is rejected with file:line.
#
# The bundle is testdata/nested recorded with 4 KiB chunks, so its PT is
# several PTCHUNK sections; their offsets are where the section magic
# "LSCS" is followed by type 3 (formats/bundle.md, "Section header").
# Hand counts of testdata/nested.c: the outer loop is entered once and
# iterates 10 times, the middle one is entered 10 times and iterates 200,
# the inner one 200 entries and 6000 iterations; a trip-count histogram
# row is (loop, thread, trips, entries): 1 x 10, 10 x 20, 200 x 30.
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
t_need_recorder

"$LOOPSCOPE" record -q --chunk-size=4096 -o n.lsc -- "$TESTDATA/nested" >/dev/null 2>&1
grep -obUaP 'LSCS\x03\x00' n.lsc | cut -d: -f1 >chunks
t_ok "the bundle has at least two PT chunks" test "$(wc -l <chunks)" -ge 2
first=$(sed -n 1p chunks)
second=$(sed -n 2p chunks)

head -c "$first" n.lsc >cut0.lsc
"$LOOPSCOPE" analyze -q -o cut0.lsprof cut0.lsc 2>cut0.err
t_eq "cut before the first PT chunk: analyze exits 1" 1 $?
t_grep "... saying no trace data survived, and where the bundle ends" \
	"^loopscope: no trace data survived in 'cut0.lsc': it ends at offset $first, before its first PT chunk$" cut0.err
t_eq "... and writes no profile" "" "$(ls cut0.lsprof 2>/dev/null)"
t_fail "report of it fails too" "$LOOPSCOPE" report cut0.lsc
# The other commands that decode the trace say the same, not 0 blocks.
"$LOOPSCOPE" info --decode cut0.lsc >cut0.iout 2>cut0.ierr
t_eq "info --decode of it exits 1" 1 $?
t_grep "... saying no trace data survived" \
	"^loopscope: no trace data survived in 'cut0.lsc': it ends at offset $first, before its first PT chunk$" cut0.ierr
t_grep "... after the bundle's own description (info alone still describes it)" "^streams:" cut0.iout
t_ok "info without --decode describes it (exit 0)" "$LOOPSCOPE" info cut0.lsc
"$LOOPSCOPE" dump cut0.lsc >/dev/null 2>cut0.derr
t_eq "dump of it exits 1" 1 $?
t_grep "... saying no trace data survived" "^loopscope: no trace data survived in 'cut0.lsc'" cut0.derr
"$LOOPSCOPE" dump --packets cut0.lsc >/dev/null 2>cut0.perr
t_eq "dump --packets of it exits 1" 1 $?

# 50 bytes into the second chunk: the first chunk survives.
head -c $((second + 50)) n.lsc >cut1.lsc
"$LOOPSCOPE" analyze -q -o cut1.lsprof cut1.lsc 2>cut1.err
t_eq "cut inside the second PT chunk: analyze exits 0" 0 $?
t_grep "... with a warning naming the cut chunk" \
	"^loopscope: warning: 'cut1.lsc': truncated: section #[0-9]* (PTCHUNK) at offset $second needs [0-9]* bytes, 50 present" cut1.err
"$LOOPSCOPE" analyze -q -o n.lsprof n.lsc
part=$(awk -F'\t' '$1 == "thread" { print $6 }' cut1.lsprof)
whole=$(awk -F'\t' '$1 == "thread" { print $6 }' n.lsprof)
t_ok "... and counts some of the instructions, not all ($part of $whole)" \
	test "$part" -gt 0 -a "$part" -lt "$whole"

# The reader checks entries and iterations against the histogram.
line=$(grep -n "$(printf '^lstat\t[0-9]*\t0\t10\t200\t')" n.lsprof | cut -d: -f1)
t_ok "the middle loop's lstat row (10 entries, 200 iterations) is there" test -n "$line"
sed "${line}s/^\\(lstat\t[0-9]*\t0\t10\t\\)200\t/\\1201\t/" n.lsprof >it.lsprof
"$LOOPSCOPE" report it.lsprof >/dev/null 2>it.err
t_eq "iterations 201 against a histogram of 10 x 20: exit 1" 1 $?
t_grep "... file:line of the lstat row" \
	"^loopscope: it.lsprof:$line: iterations are not the trip-count histogram's sum plus the overflow sum: '201'$" it.err
sed "${line}s/^\\(lstat\t[0-9]*\t0\t\\)10\t/\\111\t/" n.lsprof >en.lsprof
"$LOOPSCOPE" report en.lsprof >/dev/null 2>en.err
t_eq "entries 11 against a histogram of 10 entries: exit 1" 1 $?
t_grep "... file:line of the lstat row" \
	"^loopscope: en.lsprof:$line: entries are not the trip-count histogram's plus the overflow entries: '11'$" en.err
t_ok "the profile as written reads" "$LOOPSCOPE" report n.lsprof
