# t0206-percpu-decode.sh - the decoder follows a per-CPU stream's thread
# switches, and a thread's runs on several CPUs reach the analyses in the
# order they ran.
#   Inputs: lp_trips and cfgif (one thread each) and lp_threads (main + 4
#   threads), recorded with the sw backend and --no-retcomp: 7 per-thread
#   streams of three processes.  tests/tools/lsb_percpu.c (t0205) turns
#   them into per-CPU bundles as perf records them (threads cut at their
#   TIP.PGDs and interleaved on each CPU, a TSC in every PSB+, CPU-wide
#   switch and ITRACE_START sideband with perf's lags, time.* meta).
#   Oracle: the same recordings as per-thread streams in one bundle
#   (lsb_merge, t0203): every static block must execute as often, every
#   thread must run as many instructions, and analyze must give the same
#   loop reports, structural report and CFG edges, however the threads
#   are spread over CPUs (1 CPU; 2 with migration; 3 pinned, one segment
#   a run).  A bundle without the time.* conversion (lsb_percpu -T)
#   cannot be followed: it must decode differently (the test can fail).
. "$LSTOP/tests/lib.sh"
TD=$BUILD/testdata
T=$BUILD/tests
cd "$T_TMP" || exit 1

# (a PSB every 1 KB: lsb_percpu -k 4096 cuts a CPU's stream at the
# first PSB from 4 KB on, or at 8 KB without one; with the recorder's
# default period of 4 KB a chunk without one came where the traced
# programs ran with an empty environment, env -i: "use a larger -k")
for p in lp_trips cfgif lp_threads; do
	"$LOOPSCOPE" record -q --no-retcomp --psb-period 1024 -o "$p.lsc" -- "$TD/$p" >/dev/null 2>&1
done
IN="lp_trips.lsc cfgif.lsc lp_threads.lsc"
"$T/lsb_merge" thr.lsc $IN
t_eq "the per-thread oracle bundle is made" 0 $?
"$T/sbdump" thr.lsc >thr.sb
awk '/^0x/ { print $1, $2, $3 }' thr.sb >thr.blocks
"$LOOPSCOPE" analyze -q -o thr.lsprof thr.lsc
for v in flat tree functions; do
	o=; [ "$v" = flat ] || o=--$v
	"$LOOPSCOPE" report $o thr.lsprof | tail -n +2 >thr.$v
done
"$LOOPSCOPE" report --structural thr.lsc 2>/dev/null | tail -n +2 >thr.struct
"$LOOPSCOPE" export --edges thr.lsc 2>/dev/null | sed 's/,$//' | sort >thr.edges
# instructions per tid, from the per-thread streams
"$LOOPSCOPE" info --decode thr.lsc 2>/dev/null |
	awk '/^decode:/ { d = 1; next } d && $1 ~ /^[0-9]+$/ { print $2, $3 }' | sort >thr.tids
t_eq "the oracle has 7 threads" 7 "$(wc -l <thr.tids)"
t_eq "and lp_threads' pthread_create loop: 4 iterations, 1 entry" "4 1" \
	"$(grep -A2 'lp_threads.c:25' thr.flat | awk 'NR == 3 { print $1, $4 }')"

# check NAME OPTIONS...: a per-CPU bundle decodes and analyzes as thr.lsc.
check() {
	name=$1
	shift
	"$T/lsb_percpu" -k 4096 "$@" "$name.lsc" $IN >"$name.sched"
	t_eq "$name: lsb_percpu $*" 0 $?
	"$T/sbdump" -t -a "$name.lsc" >"$name.sb" 2>"$name.sberr"
	t_eq "$name: sbdump -a: whole = chunk by chunk = side by side, no overlap" 0 $?
	awk '/^0x/ { print $1, $2, $3 }' "$name.sb" >"$name.blocks"
	t_eq "$name: every static block executes as often as per thread ($(wc -l <thr.blocks) blocks)" \
		"" "$(cmp thr.blocks "$name.blocks" 2>&1)"
	t_eq "$name: the same instructions and blocks, no loss" \
		"$(grep '^streams ' thr.sb | cut -d' ' -f3-)" "$(grep '^streams ' "$name.sb" | cut -d' ' -f3-)"
	"$LOOPSCOPE" info --decode "$name.lsc" 2>/dev/null |
		awk '$1 == "tid" { print $2, $3 }' | sort >"$name.tids"
	t_eq "$name: info --decode, instructions per thread as per thread" \
		"$(cat thr.tids)" "$(awk '{ s[$1] += $2 } END { for (t in s) print t, s[t] }' "$name.tids" | sort)"
	# The thread of every enable.  lsb_percpu writes a run's switch-in
	# event 600 ns after the TSC before its first TIP.PGE (and the
	# thread's first ITRACE_START on a CPU 1000 ns before that event);
	# the run's later enables follow system calls, with no event.  So the
	# rule must name, at as many enables as the tool made runs, an event
	# 600 ns after (or its ITRACE_START 400 ns before; 1 ns of rounding in
	# the conversion), and elsewhere an earlier event, the run's.
	"$T/swcheck" "$name.lsc" >"$name.sw"
	t_eq "$name: a decision at every TIP.PGE" \
		"$("$LOOPSCOPE" dump --query "$name.lsc" | awk '$1 == "total" { for (i = 2; i < NF; i++) if ($i == "enabled") print $(i + 1) }')" \
		"$(grep -c ' enable ' "$name.sw")"
	t_eq "$name: one run start per run ($(awk '$1 == "threads" { print $6 }' "$name.sched"))" \
		"$(awk '$1 == "threads" { print $6 }' "$name.sched")" \
		"$(awk '$3 == "enable" && (($7 >= 599 && $7 <= 601) || ($7 >= -401 && $7 <= -399))' "$name.sw" | wc -l)"
	t_eq "$name: the other enables name an earlier event" 0 \
		"$(awk '$3 == "enable" && !(($7 >= 599 && $7 <= 601) || $7 <= -399)' "$name.sw" | wc -l)"
	t_eq "$name: PSBs within a run name the thread switched in before them" 0 \
		"$(awk '$3 == "psb" && ($7 > 0 || $5 == "-")' "$name.sw" | wc -l)"
	"$LOOPSCOPE" analyze -q -o "$name.lsprof" "$name.lsc"
	t_eq "$name: analyze exits 0" 0 $?
	for v in flat tree functions; do
		o=; [ "$v" = flat ] || o=--$v
		"$LOOPSCOPE" report $o "$name.lsprof" | tail -n +2 >"$name.$v"
		t_eq "$name: report ${o:-(flat)} as per thread" "" "$(diff thr.$v "$name.$v")"
	done
	"$LOOPSCOPE" report --structural "$name.lsc" 2>/dev/null | tail -n +2 >"$name.struct"
	t_eq "$name: report --structural as per thread" "" "$(diff thr.struct "$name.struct")"
	"$LOOPSCOPE" export --edges "$name.lsc" 2>/dev/null | sed 's/,$//' | sort >"$name.edges"
	t_eq "$name: the same CFG edges and counts ($(wc -l <thr.edges))" "" \
		"$(cmp thr.edges "$name.edges" 2>&1)"
}

check one -c 1
check mig -c 2 -m
check pin -c 3 -r 1
t_ok "mig: some thread runs on both CPUs" \
	test "$(awk '$1 == "all-thread" { print $2, $6 }' mig.sb | sort -u | awk '{ print $2 }' | sort | uniq -d | wc -l)" -gt 0
t_ok "one: the CPU switches threads ($(grep -c ' thread switches' one.sb 2>/dev/null) lines)" \
	test "$("$LOOPSCOPE" info --decode one.lsc 2>/dev/null | awk '$2 == "thread" && $3 == "switches" { print $1 }')" -gt 6

# dump --tid finds a worker thread's blocks in both CPU streams.
w=$(awk 'NR == 3 { print $1 }' thr.tids)
t_eq "mig: dump --tid=$w prints the blocks of its stream alone" \
	"$("$LOOPSCOPE" dump --tid="$w" thr.lsc | grep -c '^[0-9]* *[0-9a-f]\{16\}-')" \
	"$("$LOOPSCOPE" dump --tid="$w" mig.lsc | grep -c '^[0-9]* *[0-9a-f]\{16\}-')"

# Without PT time the switches cannot be followed: the same bundle decodes
# other code with the first thread's image.
"$T/lsb_percpu" -k 4096 -c 2 -m -T notime.lsc $IN >/dev/null
"$T/sbdump" notime.lsc >notime.sb 2>/dev/null
t_ok "-T: without time.* the decode differs from the per-thread one" \
	test "$(grep '^streams ' notime.sb | cut -d' ' -f3-)" != "$(grep '^streams ' thr.sb | cut -d' ' -f3-)"
