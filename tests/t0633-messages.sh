#!/bin/sh
# t0633-messages: small things a user meets (issue "Reports a developer
# can act on", item 7): an output in a missing directory names that
# directory (it said "input/output error"); counts of one are singular;
# --functions keeps a function above the threshold in any column (main,
# with 99% of the instructions in its callees, was hidden).
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1

"$LOOPSCOPE" record -q -o "$T_TMP/no/such/x.lsc" -- /bin/true >o 2>e
t_eq "record into a missing directory fails" 1 $?
t_grep "and names the directory" "^loopscope: cannot write '$T_TMP/no/such/x.lsc': no such directory '$T_TMP/no/such'$" e
Q=$T_REAL/quipper/perf.data.intel_pt-4.14
if [ -f "$Q" ]; then
	"$LOOPSCOPE" import -q "$Q" -o "$T_TMP/no/q.lsc" >o 2>e
	t_eq "import into a missing directory fails" 1 $?
	t_grep "and names the directory" "no such directory '$T_TMP/no'" e
fi

if command -v valgrind >/dev/null && [ -x "$BUILD/vglib/loopscope-amd64-linux" ]; then
	"$LOOPSCOPE" record -q -o c.lsc -- "$TESTDATA/lp_calls" >/dev/null 2>&1
	"$LOOPSCOPE" analyze -o c.lsprof c.lsc >o 2>e
	t_grep "analyze: one thread is 'thread'" "loops in 1 thread, " e
	"$LOOPSCOPE" report --functions c.lsprof >f.out
	# main's self share is small; its total (callees included) is
	# nearly all of the program's own code
	t_grep "--functions: main is listed (its total is above the threshold)" "^main  " f.out
	t_grep "--functions: the heading says what it keeps" "in any column" f.out
fi

# The trip-count histogram (item 10): with more distinct trip counts than
# --buckets, consecutive ones share a row, the rows cover every trip count
# from the least to the greatest (none left out), their entries are the
# histogram's, and the overflow bucket is the last row.  The exact
# histogram to compare with is the JSON's.
if [ -s c.lsprof ]; then
	"$LOOPSCOPE" report --format=json --min-percent=0 c.lsprof >h.json
	# --show-loader: the dynamic loader's loops are the ones with many
	# trip counts here.
	"$LOOPSCOPE" report --buckets=3 --min-percent=0 --show-loader c.lsprof >h.txt
	t_eq "--buckets=3: rows cover each loop's trip counts, in order, no row after the overflow" "" \
		"$(python3 - h.json h.txt <<'PY'
import json, re, sys
loops = {l['id']: l for l in json.load(open(sys.argv[1]))['loops']}
bad, cur, rows, checked = [], None, [], 0
def check(i, rows):
    global checked
    h = {int(k): v for k, v in loops[i]['trip_counts'].items()}
    if not h:
        return
    over = [r for r in rows if r[0].startswith('>=')]
    body = [r for r in rows if not r[0].startswith('>=')]
    if over and rows[-1] is not over[-1]:
        bad.append('%d: a row after the overflow' % i)
    if len(body) > 3:
        bad.append('%d: %d rows' % (i, len(body)))
    prev = None
    for lab, e in body:
        lo, _, hi = lab.partition('-')
        lo, hi = int(lo), int(hi or lo)
        if prev is not None and lo != prev + 1 and len(h) > 3:
            bad.append('%d: gap before %d' % (i, lo))
        if sum(v for k, v in h.items() if lo <= k <= hi) != e:
            bad.append('%d: %s has %d entries' % (i, lab, e))
        prev = hi
    if body and (int(body[0][0].split('-')[0]) != min(h) or prev != max(h)):
        bad.append('%d: rows span %s..%s, trips %d..%d' % (i, body[0][0], prev, min(h), max(h)))
    checked += len(h) > 3
for line in open(sys.argv[2]):
    m = re.match(r'^Loop (\d+) at ', line)
    if m:
        if cur is not None:
            check(cur, rows)
        cur, rows = int(m.group(1)), []
        continue
    m = re.match(r'^ +(>=\d+|\d+(?:-\d+)?) +(\d+)$', line)
    if m and cur is not None:
        rows.append((m.group(1), int(m.group(2))))
if cur is not None:
    check(cur, rows)
if not checked:
    bad.append('no loop with more than 3 trip counts')
print('; '.join(bad))
PY
)"
fi

# Each numeric option's valid range is in its command's help, and equals
# what the option accepts: one past each end is refused.
for c in "report:--min-percent:0 to 100" "report:--buckets:0 to 2^30" \
	 "analyze:--trip-limit:2 to 16777216" "analyze:--jobs:1 to 256" \
	 "record:--psb-period:256 to 1048576" \
	 "record:--chunk-size:4096 to" "record:--sample-freq:1 to 1000000" \
	 "graph:--min-percent:0 to 100" "report:--merge-threshold:1 to 1e9"; do
	cmd=${c%%:*} rest=${c#*:}
	opt=${rest%%:*} range=${rest#*:}
	"$LOOPSCOPE" "$cmd" -h >h.out 2>&1
	t_ok "$cmd -h gives $opt's range ($range)" \
		sh -c "grep -A1 -- '$opt' h.out | grep -q -- '$range'"
done
"$LOOPSCOPE" analyze --trip-limit=1 nothing.lsc >o 2>e
t_grep "--trip-limit=1 is refused, naming the range" "from 2 to 16777216" e
for j in 0 257 x; do
	"$LOOPSCOPE" analyze --jobs=$j nothing.lsc >o 2>e
	t_grep "--jobs=$j is refused, naming the range" "from 1 to 256" e
done
# One wording for every command's numbers (cli/opt_util.c).
t_grep "--jobs=x: the common wording" "option '--jobs' wants a number from 1 to 256, not 'x'" e
"$LOOPSCOPE" dump --limit=x nothing.lsc >o 2>e
t_grep "dump --limit=x: the common wording" "option '--limit' wants a number, not 'x'" e
"$LOOPSCOPE" record --psb-period 255 -o x.lsc -- /bin/true >o 2>e
t_grep "--psb-period 255 is refused, naming the range" "from 256 to 1048576" e
