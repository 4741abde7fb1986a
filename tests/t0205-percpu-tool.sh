# t0205-percpu-tool.sh - tests/tools/lsb_percpu.c makes per-CPU bundles
# (as perf's per-CPU intel_pt recordings are) from per-thread sw
# recordings made with --no-retcomp, for testing a decoder that follows
# context switches where there is no PT hardware.
#   Inputs: lp_trips and cfgif (one thread each) and lp_threads (main + 4
#   threads): 7 thread streams, three processes.
#   Oracles: libipt's query decoder (`dump --query`) over the inputs and
#   the outputs: every TNT bit, TIP (tip_all: indirect branches and the
#   TIPs of enable/disable events) and TIP.PGE must be in exactly one
#   output stream, without errors.  The schedule (runs, switch and
#   ITRACE_START events) is computed here from each input stream's
#   TIP.PGE count (its segments) by the rule lsb_percpu.c states, not
#   taken from the tool.  Events (`lsb_dump -e`) and TSC packets (`dump
#   --packets`) are checked for order and consistency.  A one-process
#   input decodes with our decoder (one image for the whole CPU stream, as
#   it does today) to exactly the instructions and blocks of the
#   per-thread recording.
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
	"$LOOPSCOPE" dump --query "$p.lsc" >"$p.q"
done
IN="lp_trips.lsc cfgif.lsc lp_threads.lsc"
# The value after field NAME on the lines whose first field is WHAT.
fld() { awk -v w="$1" -v f="$2" '$1 == w { for (i = 2; i < NF; i++) if ($i == f) print $(i + 1) }' "$3"; }
sum() { awk '{ s += $1 } END { print s + 0 }'; }

"$LOOPSCOPE" record -q -o rc.lsc -- "$TD/cfgif" >/dev/null 2>&1
t_fail "an input with compressed returns is refused" "$T/lsb_percpu" x.lsc rc.lsc
t_grep "and the message says how to record it" "record --no-retcomp" "$T_TMP/last.err"
t_ok "and no output is left" test ! -e x.lsc

# check NAME NCPU MIGRATE RUN INPUTS...: make NAME.lsc and check it.
check() {
	name=$1 ncpu=$2 mig=$3 run=$4
	shift 4
	opt="-c $ncpu -r $run -k 4096"
	[ "$mig" = 1 ] && opt="$opt -m"
	# shellcheck disable=SC2086
	t_ok "$name: lsb_percpu $opt" "$T/lsb_percpu" $opt "$name.lsc" "$@"
	cp "$T_TMP/last.out" "$name.out"
	"$LOOPSCOPE" dump --query "$name.lsc" >"$name.q"
	"$T/lsb_dump" -e "$name.lsc" >"$name.d"
	"$LOOPSCOPE" dump --packets "$name.lsc" >"$name.p"
	for f in "$@"; do cat "${f%.lsc}.q"; done >"$name.inq"

	t_eq "$name: streams are cpu 0..$((ncpu - 1)), kind 2 (CPU)" \
		"$(seq 0 $((ncpu - 1)) | sed 's/.*/& 2 &/')" \
		"$(awk '$1 == "stream" { print $2, $3, $6 }' "$name.d")"
	t_eq "$name: no query errors in any stream" "$ncpu" \
		"$(fld stream errors "$name.q" | grep -c '^0$')"
	for f in tnt tip_all enabled disabled; do
		t_eq "$name: $f summed over the CPU streams = over the inputs' thread streams" \
			"$(fld stream $f "$name.inq" | sum)" "$(fld stream $f "$name.q" | sum)"
	done

	# The schedule: thread k's j-th run is max(1, RUN - 1 + j % 3) of
	# its segments (TIP.PGEs); with -m on cpu (k + j) % NCPU, else k %
	# NCPU.  Each run has 4 switch events (idle out, in, out, idle in),
	# and each thread one ITRACE_START per cpu it runs on.
	want=$(fld stream enabled "$name.inq" | awk -v R="$run" -v N="$ncpu" -v M="$mig" '
		{ j = 0; s = 0
		  while (s < $1) { l = R - 1 + j % 3; if (l < 1) l = 1; s += l; j++ }
		  runs += j; it += j == 0 ? 0 : M ? (j < N ? j : N) : 1 }
		END { print runs, 4 * runs, it }')
	t_eq "$name: runs, switch events, ITRACE_STARTs as the schedule implies ($want)" "$want" \
		"$(fld threads runs "$name.out") $(grep -c '^event 9 ' "$name.d") $(grep -c '^event 10 ' "$name.d")"
	t_eq "$name: the tool counts the same" "$want" \
		"$(fld threads runs "$name.out") $(fld threads switches "$name.out") $(fld threads itrace "$name.out")"
	t_eq "$name: the idle task has half the switches" "$(($(echo "$want" | cut -d' ' -f2) / 2))" \
		"$(awk '$1 == "event" && $2 == 9 && $3 == 0' "$name.d" | wc -l)"
	t_eq "$name: segments = TIP.PGEs of the inputs" \
		"$(fld stream enabled "$name.inq" | sum)" "$(fld threads segments "$name.out")"

	# Per cpu the switches go idle out, T in, T out, idle in; a thread
	# is switched out where it was switched in, and is never in on two
	# CPUs at once; event times increase (sw events keep their sequence
	# numbers, all before).
	t_eq "$name: switch events pair up per cpu, no thread runs twice at once" "ok" \
		"$(awk '$1 == "event" && ($2 == 9 || $2 == 10) {
			if ($6 <= last) bad = "time " $6 " after " last
			last = $6
			if ($2 == 10) next
			c = $5; out = $7 == 1; s = st[c] + 0
			if ($3 == 0 && out && s == 0) st[c] = 1
			else if ($3 != 0 && !out && s == 1 && !(($4) in on)) { st[c] = 2; on[$4] = c; who[c] = $4 }
			else if ($3 != 0 && out && s == 2 && who[c] == $4 && on[$4] == c) { st[c] = 3; delete on[$4] }
			else if ($3 == 0 && !out && s == 3) st[c] = 0
			else bad = bad " bad: " $0
		} END { for (c in st) if (st[c] != 0) bad = bad " cpu " c " ends in state " st[c]
			print bad == "" ? "ok" : bad }' "$name.d")"
	t_eq "$name: every ITRACE_START comes just before its thread's switch-in" "ok" \
		"$(awk '$1 == "event" && ($2 == 9 || $2 == 10) {
			if (prev10 && !($2 == 9 && $7 == 0 && $4 " " $5 == p)) bad = 1
			prev10 = $2 == 10; p = $4 " " $5
		} END { print bad || prev10 ? "bad" : "ok" }' "$name.d")"

	# TSC packets increase per stream; every segment has one (PSB+
	# before each TIP.PGE).
	t_eq "$name: TSCs increase within every stream" "ok" \
		"$(awk '$1 == "stream" { last = "" }
			$2 == "tsc" { v = $3
				if (last != "" && (length(v) < length(last) || (length(v) == length(last) && v <= last))) bad = 1
				last = v }
			END { print bad ? "bad" : "ok" }' "$name.p")"
	t_eq "$name: a PSB+ with a TSC before every TIP.PGE" "ok" \
		"$(awk '$1 == "stream" { t = 0 } $2 == "tsc" { t = 1 } $2 == "tip.pge" { if (!t) bad = 1; t = 0 }
			END { print bad ? "bad" : "ok" }' "$name.p")"
	t_eq "$name: every chunk starts at a PSB, several per stream" "ok" \
		"$(awk '$1 == "cpu" { if ($6 != $8 || $6 < 2) bad = 1 } END { print bad ? "bad" : "ok" }' "$name.out")"
	t_eq "$name: time conversion meta of the quipper recording" "31 1789569706 18446744041015200657" \
		"$(awk '$1 == "meta" && $2 ~ /^time\./ { printf "%s%s", s, $3; s = " " }' "$name.d")"
}

# (a) one CPU: two processes and a multithreaded one interleaved.
check one 1 0 2 $IN
t_eq "one: 7 threads, 3 processes switched in" "7 3" \
	"$(awk '$1 == "event" && $2 == 9 && $3 != 0 { t[$4]; p[$3] } END { print length(t), length(p) }' one.d)"
# (b) two CPUs with migration, runs of 2, 3, 4 segments.
check mig 2 1 3 $IN
t_ok "mig: some thread runs on both CPUs" test "$(awk '$1 == "event" && $2 == 9 && $3 != 0 { print $4, $5 }' mig.d |
	sort -u | awk '{ n[$1]++ } END { for (t in n) if (n[t] > 1) k++; print k + 0 }')" -gt 0
# (c) three CPUs without migration, runs of 1, 1, 2: thread k stays on cpu k % 3.
check pin 3 0 1 $IN
t_eq "pin: every thread on one cpu, its index mod 3" "ok" \
	"$(awk '$1 == "event" && $2 == 10 { if ($4 in c) bad = 1; c[$4] = $5; if ($5 != n++ % 3) bad = 1 }
		END { print bad ? "bad" : "ok" }' pin.d)"

# One process (lp_threads) over two CPUs with migration: our decoder gives
# each CPU stream the image of the process it finds there, here the right
# one, so the decode must equal the per-thread recording's exactly.
check one_proc 2 1 2 lp_threads.lsc
"$T/sbdump" -t lp_threads.lsc >threads.sb
t_ok "one_proc: decodes, whole and chunk by chunk alike" "$T/sbdump" -t one_proc.lsc
cp "$T_TMP/last.out" one_proc.sb
t_eq "one_proc: instructions, blocks and losses as the per-thread recording" \
	"$(awk '$1 == "streams" { $2 = "" } $1 == "streams" || $1 == "chunks"' threads.sb)" \
	"$(awk '$1 == "streams" { $2 = "" } $1 == "streams" || $1 == "chunks"' one_proc.sb)"
# (sbdump's 4th column, the exit of a block's first execution, depends on
# which thread ran it first, so it may differ.)
awk '/^0x/ { print $1, $2, $3 }' threads.sb >threads.blocks
awk '/^0x/ { print $1, $2, $3 }' one_proc.sb >one_proc.blocks
t_ok "one_proc: the same static blocks, each executed as often" cmp threads.blocks one_proc.blocks
