#!/bin/sh
# t0951-record-faults: record when things go wrong.  The traced command
# is testdata/fault_block: it writes its pid to a file, then blocks
# opening the FIFO ctl until the test writes to it, so every fault below
# hits a recording in progress at a known point, with no timing: the
# test waits for the pid file (polled, 20 s at most) and for processes.
# Expected statuses are the shell's for a death by signal N (128 + N:
# SIGINT 2, SIGKILL 9, SIGTERM 15, SIGSEGV 11) and the exit status the
# program itself returns; expected texts are our messages and
# strerror(3)'s ("File too large" for EFBIG).
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
t_need_recorder
# The recorder's temporary directories go here, where the test sees them.
mkdir tmp
TMPDIR=$T_TMP/tmp
export TMPDIR
mkfifo ctl

wait_pid_file() {	# the command wrote its pid (it is blocked on ctl)
	t_i=0
	while [ ! -s pid ] && [ $t_i -lt 400 ]; do
		sleep 0.05
		t_i=$((t_i + 1))
	done
	[ -s pid ]
}

start() {	# start OUT: record OUT in the background (SIGINT not ignored,
		# as a foreground job's); sets rp and tp (record's, the command's pid)
	rm -f pid
	env --default-signal=INT "$LOOPSCOPE" record -q -o "$1" -- \
		"$TESTDATA/fault_block" pid ctl 2>"$1.err" &
	rp=$!
	wait_pid_file
	tp=$(cat pid)
}

tmpdirs() {	# the recorder temporary directories left in $TMPDIR
	ls "$TMPDIR" | wc -l | tr -d ' '
}

# SIGTERM and SIGINT (sent with kill, not by a terminal) to record go to
# the command, which dies by them (their default action); the bundle is
# then closed properly.
for s in TERM:15 INT:2; do
	name=${s%:*} num=${s#*:}
	start "$name.lsc"
	kill -"$name" "$rp"
	wait "$rp"
	t_eq "SIG$name to record: its status is the command's death by it" $((128 + num)) $?
	"$LOOPSCOPE" info "$name.lsc" >"$name.info" 2>"$name.ierr"
	t_eq "SIG$name: the bundle reads (info exits 0)" 0 $?
	t_eq "SIG$name: ... with no warning (closed properly, not cut)" "" "$(cat "$name.ierr")"
	t_grep "SIG$name: ... and records the signal" "^  exit_signal *$num\$" "$name.info"
	t_grep "SIG$name: ... and the traced command's thread" "^  $tp/$tp " "$name.info"
	t_eq "SIG$name: no temporary directory left" 0 "$(tmpdirs)"
done

# kill -9 of record: the command dies with it (no orphan running on,
# blocked forever on ctl), the bundle cut short still reads, and the
# temporary directory left behind is swept by the next record.
start k.lsc
kill -KILL "$rp"
wait "$rp"
t_eq "kill -9 of record: status 137" 137 $?
t_i=0
while [ $t_i -lt 200 ] && [ -d /proc/"$tp" ] &&
      [ "$(cut -d' ' -f3 /proc/"$tp"/stat 2>/dev/null)" != Z ]; do
	sleep 0.05
	t_i=$((t_i + 1))
done
t_eq "... the traced command is gone (or a zombie nobody reaps)" gone \
	"$([ ! -d /proc/"$tp" ] || [ "$(cut -d' ' -f3 /proc/"$tp"/stat)" = Z ] && echo gone)"
"$LOOPSCOPE" info k.lsc >k.info 2>k.ierr
t_eq "... the bundle reads (info exits 0)" 0 $?
t_grep "... with a warning that it was cut short" "^loopscope: warning: 'k.lsc': truncated" k.ierr
"$LOOPSCOPE" analyze -q -o k.lsprof k.lsc 2>k.aerr
t_eq "... analyze of it, cut before its first PT chunk, exits 1" 1 $?
t_grep "... saying no trace data survived" \
	"^loopscope: no trace data survived in 'k.lsc': it ends at offset [0-9]*, before its first PT chunk$" k.aerr
t_eq "... and writes no profile" "" "$(ls k.lsprof 2>/dev/null)"
t_eq "... its temporary directory is left (no exit path ran)" 1 "$(tmpdirs)"
ls "$TMPDIR" >tmp.ls
t_grep "... named by its pid" "^loopscope-$rp-" tmp.ls
"$LOOPSCOPE" record -q -o t.lsc -- /bin/true 2>/dev/null
t_eq "the next record sweeps it" 0 "$(tmpdirs)"

# Two records to one path: while the first runs, the second refuses and
# touches nothing; analyze and info of the bundle being written read what
# is there (the command's PT waits in memory for its 1 MiB chunk).
start two.lsc
"$LOOPSCOPE" record -q -o two.lsc -- /bin/true 2>two2.err
t_eq "a second record to the same path exits 1" 1 $?
t_grep "... saying another process writes it" \
	"^loopscope: cannot write 'two.lsc': another process is writing it" two2.err
t_eq "... and moves nothing to two.lsc.old" "" "$(ls two.lsc.old 2>/dev/null)"
"$LOOPSCOPE" info two.lsc >/dev/null 2>two.ierr
t_eq "info of the bundle being written exits 0" 0 $?
t_grep "... and says it is still being written" \
	"^loopscope: warning: 'two.lsc' is still being written (a record or import is running): reading its first [0-9]* bytes$" two.ierr
"$LOOPSCOPE" analyze -q -o two.lsprof two.lsc 2>two.aerr
t_eq "analyze of it (no PT chunk yet) exits 1" 1 $?
t_grep "... saying it is still being written" \
	"^loopscope: no trace data in 'two.lsc' yet: it is still being written$" two.aerr
echo go >ctl
wait "$rp"
t_eq "the first record then ends as its command (status 0)" 0 $?
"$LOOPSCOPE" info two.lsc >two.info 2>two.ierr
t_eq "... its bundle is whole: no warning" "" "$(cat two.ierr)"
t_grep "... exit status 0" "^  exit_status *0$" two.info
t_ok "... and it analyzes" "$LOOPSCOPE" analyze -q -o two.lsprof two.lsc

# A file size limit while recording (ulimit -f: EFBIG, as a full disk):
# the command runs to its end (nested prints 343500 = sum over i<10,
# j<20, k<30 of i*j + k), record says which file and the command's exit
# status, and the bundle reads up to its last complete section.
(ulimit -f 400; exec "$LOOPSCOPE" record -q -o u.lsc -- "$TESTDATA/nested") \
	>u.out 2>u.err
t_eq "ulimit -f: record exits 1 (the command exited 0; no SIGXFSZ: 153)" 1 $?
t_eq "... the command ran to its end" 343500 "$(cat u.out)"
size=$(stat -c %s u.lsc)
t_grep "... the message names the file, the offset (its size) and EFBIG" \
	"^loopscope: cannot write the bundle: 'u.lsc': write at offset $size: File too large;" u.err
t_grep "... and the command's exit status" "ran to its end (exit status 0)" u.err
"$LOOPSCOPE" info u.lsc >u.info 2>u.ierr
t_eq "... the bundle reads (info exits 0)" 0 $?
t_grep "... cut at its last complete section" "^status: *truncated at offset" u.info
t_eq "... no temporary directory left" 0 "$(tmpdirs)"

# A command dying by a signal: Valgrind's "Process terminating with
# default action of signal 11" lines stay off its stderr, which holds the
# program's own line only (testdata/fault_segv.c).
"$LOOPSCOPE" record -q -o f.lsc -- "$TESTDATA/fault_segv" 2>f.err
t_eq "fault_segv: status 139 (SIGSEGV)" 139 $?
t_eq "... stderr is the program's line alone" \
	"fault_segv: storing through a null pointer" "$(cat f.err)"
