#!/bin/sh
# t0620-analyze.sh - `loopscope analyze` end to end on a recording:
# the profile file, the reports of a bundle (analyzed on the fly) and of
# its profile, the sums, merge of two runs, and the usage errors.
# Expected counts are lp_calls.c's and nested.c's hand counts (see their
# sources; t0600 checks the detector's rows in detail).
. "$LSTOP/tests/lib.sh"
TD=$BUILD/testdata
cd "$T_TMP" || exit 1

if ! command -v valgrind >/dev/null || [ ! -x "$BUILD/vglib/loopscope-amd64-linux" ]; then
	echo "ok 1 # skip valgrind or the tool is missing"
	exit 0
fi

"$LOOPSCOPE" record -q -o a.lsc -- "$TD/lp_calls" >/dev/null 2>&1
"$LOOPSCOPE" record -q -o b.lsc -- "$TD/lp_calls" >/dev/null 2>&1
t_ok "analyze writes a.lsprof by default" "$LOOPSCOPE" analyze a.lsc
t_grep "... and says what it found" "^loopscope: [0-9]* loops in 1 thread, [0-9]* instructions: 'a.lsprof'$" last.err
t_ok "the profile starts with the magic" grep -q '^loopscope-profile 7$' a.lsprof
t_ok "analyze -o, -q" "$LOOPSCOPE" analyze -q -o b.lsprof b.lsc
t_eq "-q prints nothing" "" "$(cat last.err)"

js() {	# js FILE EXPR
	python3 -c "import json,sys; d = json.load(open('$1')); L = {l['function'] + '@' + str(l['line']): l for l in d['loops']}; F = {f['name']: f for f in d['functions']}; print($2)"
}
"$LOOPSCOPE" report --format=json a.lsc >bundle.json 2>/dev/null
"$LOOPSCOPE" report --format=json a.lsprof >prof.json
t_ok "report of the bundle (analyzed on the fly) = report of its profile, but for the source" \
	sh -c "sed 's/\"a.lsc\"/X/;s/\"a.lsprof\"/X/' bundle.json >x1 && sed 's/\"a.lsc\"/X/;s/\"a.lsprof\"/X/' prof.json >x2 && cmp x1 x2"
# lp_calls.c: shared()'s loop (line 28): 3 entries of 2 + 7 of 5.
t_eq "json: shared()'s loop: 10 entries, 41 iterations, trip counts" "10 41 {'2': 3, '5': 7}" \
	"$(js prof.json "L['shared@27']['entries'], L['shared@27']['iterations'], L['shared@27']['trip_counts']")"
t_eq "json: its parents: loops B (3 entries) and C (7)" "[3, 7]" \
	"$(js prof.json "sorted(p['entries'] for p in L['shared@27']['parents'])")"
t_eq "json: leaf()'s loop at depth 2 under main's loop A" "2 5" \
	"$(js prof.json "L['leaf@18']['depth'], L['leaf@18']['parents'][0]['entries']")"
t_eq "json: main's loop-level instructions = its loops' self" \
	"$(js prof.json "L['main@41']['self_instructions'] + L['main@43']['self_instructions'] + L['main@45']['self_instructions']")" \
	"$(js prof.json "F['main']['loop_level_instructions']")"
t_eq "json: the loops main contains: A, B and C" \
	"$(js prof.json "sorted([L['main@41']['id'], L['main@43']['id'], L['main@45']['id']])")" \
	"$(js prof.json "sorted(F['main']['loops'])")"
# Sums: per thread, top-level edges' totals + outside = instructions (the
# profile file's own records: edge parent '-', thread insns and outside).
t_eq "profile: top-level loop totals + outside = the thread's instructions" "ok" \
	"$(awk -F'\t' '$1 == "thread" {i += $6; o += $7} $1 == "edge" && $2 == "-" {t += $6} END {print (t + o == i && i > 0) ? "ok" : t " + " o " != " i}' a.lsprof)"
t_eq "json: total_instructions = the decoded instructions (info --decode)" \
	"$("$LOOPSCOPE" info --decode a.lsc | awk '$1 == "total" && NF == 6 {print $2}')" \
	"$(js prof.json "d['total_instructions']")"

# merge: a bundle merged twice is refused, naming both inputs; a copy of
# its profile without the part record (as version 2 files are: no
# provenance) merges as a second run, every count doubled.
"$LOOPSCOPE" merge -o ab.lsprof a.lsprof a.lsprof 2>twice.err
t_eq "merge a.lsprof twice: status 1" 1 $?
t_grep "... naming both inputs" "^loopscope: cannot merge 'a.lsprof': it holds bundle [0-9a-f-]*, which 'a.lsprof' holds already" twice.err
awk -F '\t' '$1 == "part" { next } $1 == "end" { print "end\t" $2 - 1; next } { print }' a.lsprof >anon.lsprof
t_ok "merge two runs" "$LOOPSCOPE" merge -o ab.lsprof a.lsprof anon.lsprof
"$LOOPSCOPE" report --format=json ab.lsprof >ab.json
t_eq "merge: total instructions doubled" "$(($(js prof.json "d['total_instructions']") * 2))" "$(js ab.json "d['total_instructions']")"
t_eq "merge: shared()'s loop doubled: entries, iterations, histogram, self, total" \
	"$(js prof.json "L['shared@27']['entries'] * 2, L['shared@27']['iterations'] * 2, {k: v * 2 for k, v in L['shared@27']['trip_counts'].items()}, L['shared@27']['self_instructions'] * 2, L['shared@27']['total_instructions'] * 2")" \
	"$(js ab.json "L['shared@27']['entries'], L['shared@27']['iterations'], L['shared@27']['trip_counts'], L['shared@27']['self_instructions'], L['shared@27']['total_instructions']")"
t_eq "merge: every loop's counts doubled" "ok" \
	"$(python3 -c "
import json
a = json.load(open('prof.json')); b = json.load(open('ab.json'))
k = lambda l: (l['function'], l['head'])
A = {k(l): l for l in a['loops']}; B = {k(l): l for l in b['loops']}
bad = [x for x in A if any(B[x][f] != 2 * A[x][f] for f in ('entries', 'iterations', 'self_instructions', 'total_instructions'))]
print('ok' if set(A) == set(B) and not bad else bad)")"
t_ok "merge of a second recording of the same binaries" "$LOOPSCOPE" merge -o ab2.lsprof a.lsprof b.lsprof
t_eq "merge: the hand-counted loops are doubled across runs (ASLR: keyed by build-id + offset)" "20 82" \
	"$("$LOOPSCOPE" report --format=json ab2.lsprof | python3 -c "import json,sys; d = json.load(sys.stdin); l = [l for l in d['loops'] if l['function'] == 'shared'][0]; print(l['entries'], l['iterations'])")"
t_eq "merge: two threads (one per run)" 2 "$(js ab.json "len(d['threads'])")"

# Usage and errors.
"$LOOPSCOPE" analyze --bogus a.lsc >/dev/null 2>err; t_eq "unknown option: status 129" 129 $?
t_grep "... names it" "unknown option '--bogus'" err
"$LOOPSCOPE" analyze --trip-limit=1 a.lsc >/dev/null 2>err; t_eq "--trip-limit=1: status 129" 129 $?
"$LOOPSCOPE" analyze missing.lsc >/dev/null 2>err; t_eq "a missing bundle: status 1" 1 $?
t_grep "... with the record hint" "loopscope record" err
head -c 5000 a.lsc >cut.lsc
"$LOOPSCOPE" analyze -q cut.lsc -o cut.lsprof >/dev/null 2>err
# 5000 bytes hold no PT chunk (the modules come first): nothing to
# analyze is an error (issue 19); a cut after some PT is t0952's.
t_eq "a bundle cut short before any PT: status 1" 1 $?
t_grep "... with a warning" "warning" err
t_grep "... saying no trace data survived" "no trace data survived in 'cut.lsc'" err
t_ok "analyze --help" "$LOOPSCOPE" analyze --help
t_grep "--help names --trip-limit" "trip-limit" last.out
# --trip-limit: nested's inner loop of 30 goes to the overflow bucket.
"$LOOPSCOPE" record -q -o n.lsc -- "$TD/nested" >/dev/null 2>&1
"$LOOPSCOPE" analyze -q --trip-limit=25 -o n.lsprof n.lsc
"$LOOPSCOPE" report --format=json n.lsprof >n.json
t_eq "--trip-limit=25: the 30-trip loop in the overflow bucket (200 entries, sum 6000)" "{} 200 6000" \
	"$(python3 -c "
import json; d = json.load(open('n.json'))
l = [l for l in d['loops'] if l['function'] == 'nest' and l['iterations'] == 6000][0]
print(l['trip_counts'], l['overflow']['entries'], l['overflow']['iterations'])" 2>&1)"

# Damaged PT: the decoder resyncs at the next PSB; the trace goes on in
# the same function, so the detector keeps its frames and the block after
# the hole is no iteration.  spin 200 1000: an outer loop of 200
# iterations around an inner one of 1000 (testdata/spin.c); a smash of 16
# bytes in the 4th chunk loses a few hundred to a few thousand
# instructions: one inner entry spans the hole, every other one is whole.
"$LOOPSCOPE" record -q --chunk-size 4096 --psb-period 512 -o s.lsc -- "$TD/spin" 200 1000 >/dev/null 2>&1
sid=$("$BUILD/tests/ptcorrupt" chunks s.lsc | awk 'NR == 1 { print $4 }')
off=$("$BUILD/tests/ptcorrupt" chunks s.lsc | awk 'NR == 4 { for (i = 1; i < NF; i++) if ($i == "offset") print $(i + 1) + 100 }')
"$BUILD/tests/ptcorrupt" write s.lsc bad.lsc "$sid" "smash:$off" >/dev/null
"$LOOPSCOPE" analyze -o bad.lsprof bad.lsc >/dev/null 2>err
t_eq "damaged PT: analyze succeeds" 0 $?
t_grep "... warning of the loss" "warning: 'bad.lsc': 1 decode losses" err
t_eq "... and no frame mismatch" "" "$(grep 'matched no call frame' err)"
t_eq "damaged PT: outside + top-level totals = instructions still" "ok" \
	"$(awk -F'\t' '$1 == "thread" {i += $6; o += $7; l += $8} $1 == "edge" && $2 == "-" {t += $6} END {print (t + o == i && l == 1) ? "ok" : t " + " o " != " i " or losses " l}' bad.lsprof)"
"$LOOPSCOPE" report --format=json bad.lsprof >bad.json
t_eq "damaged PT: one outer entry; inner entries of 1000 but the one around the hole" "ok" \
	"$(python3 -c "
import json; d = json.load(open('bad.json'))
m = sorted((l for l in d['loops'] if l['function'] == 'main'), key=lambda l: l['entries'])
o, i = m[0], m[1]
t = i['trip_counts']
good = (len(m) == 2 and o['entries'] == 1 and 195 <= o['iterations'] <= 200 and
        i['entries'] == o['iterations'] and t.get('1000') == i['entries'] - 1 and len(t) == 2)
print('ok' if good else (o['entries'], o['iterations'], i['entries'], t))")"

# A real hardware recording without its binaries (the quipper perf.data
# of ../shared/testdata-real): every stream decodes to losses only, which
# analyze reports; the profile has the thread's row and no loop.
if [ -n "${T_REAL:-}" ] && [ -f "$T_REAL/quipper/perf.data.intel_pt-4.14" ]; then
	"$LOOPSCOPE" import -q "$T_REAL/quipper/perf.data.intel_pt-4.14" -o q.lsc >/dev/null 2>&1
	"$LOOPSCOPE" analyze -o q.lsprof q.lsc >/dev/null 2>err
	t_eq "quipper: analyze succeeds without binaries" 0 $?
	losses=$("$LOOPSCOPE" info --decode q.lsc 2>/dev/null | awk '$1 == "total" && NF == 6 {print $4}')
	t_grep "quipper: it warns of the losses info --decode counts ($losses)" "warning: 'q.lsc': $losses decode losses" err
	# Both CPUs ran echo alone (t0530): one thread row, 3174, with the
	# losses of both streams.
	t_eq "quipper: one thread (echo, on cpu 0 and 3), no instructions, no loop" \
		"1 3174 0 $losses 0" \
		"$(awk -F'\t' '$1 == "thread" {n++; t = $5; i += $6; s += $8} $1 == "loop" {l++} END {print n + 0, t, i + 0, s + 0, l + 0}' q.lsprof)"
else
	echo "ok 99 # skip no ../shared/testdata-real"
fi
