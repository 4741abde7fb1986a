# t0001-record.sh - `loopscope record` with the sw backend on every testdata
# program: pass-through of stdio and status, libipt parses and decodes every
# stream (tests/tools/ptcheck.c), sideband counts from the programs' sources.
. "$LSTOP/tests/lib.sh"
TD=$BUILD/testdata
PTCHECK=$BUILD/tests/ptcheck

printf 'hello\n' | "$LOOPSCOPE" record -q -o "$T_TMP/p.lsc" -- "$TD/passthru" 7 \
	>"$T_TMP/out" 2>"$T_TMP/err"
t_eq "exit status of the program passes through (passthru.c exits 7)" 7 $?
t_eq "stdin and stdout pass through" HELLO "$(cat "$T_TMP/out")"
t_eq "stderr passes through" "to stderr" "$(cat "$T_TMP/err")"

for p in nested recursion calls threads signals syscall dlopen forkexec passthru; do
	t_ok "$p: records with sw" "$LOOPSCOPE" record -q -o "$T_TMP/$p.lsc" -- "$TD/$p" </dev/null
	t_ok "$p: libipt parses every packet and block-decodes every stream, whole and chunk by chunk" \
		"$PTCHECK" "$T_TMP/$p.lsc"
	"$PTCHECK" --events "$T_TMP/$p.lsc" >"$T_TMP/$p.ev"
	t_eq "$p: libipt's block and instruction decoders count the same instructions" 0 \
		"$("$PTCHECK" "$T_TMP/$p.lsc" | awk '{for (i = 1; i < NF; i++) {if ($i == "insn") a = $(i + 1); if ($i == "insn_insn") b = $(i + 1)}; if (a != b || a == 0) bad++} END {print bad + 0}')"
done

# threads.c creates 4 threads besides main: 5 streams, 5 thread starts.
t_eq "threads: one stream per thread (main + 4, from threads.c)" 5 \
	"$("$PTCHECK" "$T_TMP/threads.lsc" | grep -c '^tid ')"
t_grep "threads: 5 thread starts" "^thread_start 5 thread_exit 5 " "$T_TMP/threads.ev"
# signals.c raises SIGUSR1 8 times.
t_grep "signals: 8 signal deliveries (signals.c raises 8)" " signal 8\$" "$T_TMP/signals.ev"
# raise() delivers inside a system call, where tracing is already off
# (TIP.PGD): the handler starts with a TIP.PGE as on hardware, and every
# disable has its enable (exit_group's PGD pairs with the first PGE).
t_eq "signals: every TIP.PGD has its TIP.PGE" 1 \
	"$("$PTCHECK" "$T_TMP/signals.lsc" | awk '{for (i = 1; i < NF; i++) {if ($i == "pge") e = $(i + 1); if ($i == "pgd") d = $(i + 1)}} END {print (e == d && e > 8)}')"
# dlopen.c maps libdlk.so executable.
t_grep "dlopen: the dlopen'd library is an executable mapping" "^exec-map .*/libdlk.so\$" "$T_TMP/dlopen.ev"
# forkexec.c forks once and execs once; stdout shows child, parent, exec'd echo.
t_grep "forkexec: one fork and one exec recorded" " exec 1 fork 1 " "$T_TMP/forkexec.ev"
"$LOOPSCOPE" record -q -o "$T_TMP/fe.lsc" -- "$TD/forkexec" >"$T_TMP/fe.out" 2>&1
t_eq "forkexec: status 0 and output of child, parent and exec'd program" \
	"0:child parent 3 after-exec" "$?:$(tr '\n' ' ' <"$T_TMP/fe.out" | sed 's/ $//')"

# --no-retcomp (intel_pt's noretcomp): every return is a TIP.  Each program
# is recorded with and without; Valgrind runs it the same way both times,
# so our decoder must count the same instructions per function of the
# program (tests/tools/funccount.c).  Expected packet counts come from the
# decoded block exits of the same bundle (`loopscope dump`, 4th column):
# libipt's query decoder (`dump --query`, which needs no code) hands out
# one TNT bit per conditional branch (exits taken + not-taken) and, with
# --no-retcomp, one TIP per return, indirect jump and indirect call (exits
# ret + ijump + icall); TIP.PGE/PGD are counted apart (enabled/disabled).
# With return compression a return that matches the call stack is a taken
# bit instead of a TIP: in that bundle the TNT bits beyond the conditional
# branches are the returns that have no TIP.  (Two runs under Valgrind
# need not take the same paths in ld.so and libc, so the two bundles'
# packet counts are not compared with each other.)
FC=$BUILD/tests/funccount
q() { awk -v f="$1" '$1 == "total" { for (i = 2; i < NF; i++) if ($i == f) print $(i + 1) }' "$2"; }
exits() { "$LOOPSCOPE" dump "$1" | awk -v want="$2" 'BEGIN { n = split(want, w, ",") }
	{ for (i = 1; i <= n; i++) if ($4 == w[i]) c++ } END { print c + 0 }'; }
for p in lp_trips cfgif; do
	"$LOOPSCOPE" record -q -o "$T_TMP/rc.lsc" -- "$TD/$p" >/dev/null
	t_ok "$p: records with --no-retcomp" \
		"$LOOPSCOPE" record -q --no-retcomp -o "$T_TMP/norc.lsc" -- "$TD/$p"
	"$FC" "$T_TMP/rc.lsc" "$TD/$p" >"$T_TMP/rc.fc"
	"$FC" "$T_TMP/norc.lsc" "$TD/$p" >"$T_TMP/norc.fc"
	t_ok "$p: the same instructions per function with and without --no-retcomp" \
		cmp "$T_TMP/rc.fc" "$T_TMP/norc.fc"
	t_eq "$p: meta pt.retcomp says 1 and 0" "1 0" \
		"$("$BUILD/tests/lsb_dump" "$T_TMP/rc.lsc" | awk '$2 == "pt.retcomp" {print $3}') $("$BUILD/tests/lsb_dump" "$T_TMP/norc.lsc" | awk '$2 == "pt.retcomp" {print $3}')"
	"$LOOPSCOPE" dump --query "$T_TMP/rc.lsc" >"$T_TMP/rc.q"
	"$LOOPSCOPE" dump --query "$T_TMP/norc.lsc" >"$T_TMP/norc.q"
	t_eq "$p --no-retcomp: TIPs = ret + ijump + icall exits" \
		"$(exits "$T_TMP/norc.lsc" ret,ijump,icall)" "$(q tip "$T_TMP/norc.q")"
	t_eq "$p --no-retcomp: TNT bits = taken + not-taken exits" \
		"$(exits "$T_TMP/norc.lsc" taken,not-taken)" "$(q tnt "$T_TMP/norc.q")"
	ntip=$(($(exits "$T_TMP/rc.lsc" ret,ijump,icall) - $(q tip "$T_TMP/rc.q")))
	t_eq "$p: with return compression, TNT bits - conditional branches = returns without a TIP ($ntip)" \
		"$ntip" $(($(q tnt "$T_TMP/rc.q") - $(exits "$T_TMP/rc.lsc" taken,not-taken)))
	t_ok "$p: and some returns are compressed" test "$ntip" -gt 0
	t_eq "$p: no query errors" "0 0" "$(q errors "$T_TMP/rc.q") $(q errors "$T_TMP/norc.q")"
done

# Bad command lines.
t_fail "unknown option is refused" "$LOOPSCOPE" record --frobnicate -- true
t_grep "unknown option is named" "unknown option '--frobnicate'" "$T_TMP/last.err"
t_fail "missing command is refused" "$LOOPSCOPE" record -o "$T_TMP/x.lsc"
"$LOOPSCOPE" record -o "$T_TMP/x.lsc" -- /nonexistent/prog 2>"$T_TMP/nf.err"
t_eq "a command that does not exist exits 127" 127 $?
t_grep "and is named" "command not found: '/nonexistent/prog'" "$T_TMP/nf.err"
# The FIFO to the tool goes under $TMPDIR (recorder/record_sw.c): a
# TMPDIR that does not exist is named; one that does is left empty.
t_fail "sw: a missing TMPDIR is refused" env TMPDIR="$T_TMP/nodir" \
	"$LOOPSCOPE" record --backend=sw -q -o "$T_TMP/td.lsc" -- true
t_grep "and named" "cannot create a temporary directory in $T_TMP/nodir" "$T_TMP/last.err"
mkdir "$T_TMP/tmpd"
t_ok "sw: records with TMPDIR set" env TMPDIR="$T_TMP/tmpd" \
	"$LOOPSCOPE" record --backend=sw -q -o "$T_TMP/td.lsc" -- true
t_eq "and leaves TMPDIR empty" "" "$(ls -A "$T_TMP/tmpd")"
if [ ! -e /sys/bus/event_source/devices/intel_pt ]; then
	t_fail "--backend=pt without Intel PT is refused" "$LOOPSCOPE" record --backend=pt -o "$T_TMP/x.lsc" -- true
	t_grep "and says why" "no /sys/bus/event_source/devices/intel_pt" "$T_TMP/last.err"
fi
t_ok "record -h prints usage" "$LOOPSCOPE" record -h
t_grep "usage names the options" "--backend <name>" "$T_TMP/last.out"
t_ok "help record prints the same usage" "$LOOPSCOPE" help record
t_grep "usage names --mem" "--mem" "$T_TMP/last.out"
t_grep "usage names --no-retcomp" "--no-retcomp" "$T_TMP/last.out"

# A program killed by a signal: loopscope exits 128 + signal, bundle kept.
"$LOOPSCOPE" record -q -o "$T_TMP/k.lsc" -- sh -c 'kill -TERM $$' 2>/dev/null
t_eq "a program killed by SIGTERM gives exit status 143" 143 $?

# kill -9 of the recorder: the bundle is readable up to its last complete
# chunk, and what is there decodes without error.
# spin.c with 1000-iteration bursts 500 times a second writes PT slowly, so
# what is on disk after ~2 s stays small and quick to check.
"$LOOPSCOPE" record -q --chunk-size 4096 -o "$T_TMP/cut.lsc" -- "$TD/spin" 100000 1000 2000 \
	>/dev/null 2>&1 &
rec=$!
sleep 3
vg=$(pgrep -P $rec)
kill -9 $rec
[ -n "$vg" ] && kill -9 $vg 2>/dev/null
wait $rec 2>/dev/null
t_ok "info reads a bundle whose recorder was killed with -9" "$LOOPSCOPE" info "$T_TMP/cut.lsc"
t_grep "and says it is truncated" "truncated" "$T_TMP/last.out"
t_ok "the chunks present decode with libipt, no errors" "$PTCHECK" "$T_TMP/cut.lsc"
