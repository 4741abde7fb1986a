#!/bin/sh
# t0950-checked-writes: every command that writes a file or stdout checks
# each write and the close.  Into /dev/full (every write fails with
# ENOSPC) each exits 1 naming the file; /dev/full stays the device (a
# temporary renamed over it would replace it, as root can); under a file
# size limit (ulimit -f: EFBIG, not SIGXFSZ) an existing output keeps its
# old bytes and no temporary is left.  Also the command checks of record
# (126 as shells: found but not executable) and merge (an output that is
# an input).  Expected texts are strerror(3)'s: ENOSPC "No space left on
# device", EFBIG "File too large".
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
t_need_recorder

"$LOOPSCOPE" record -q -o n.lsc -- "$TESTDATA/nested" >/dev/null 2>&1
"$LOOPSCOPE" analyze -q -o n.lsprof n.lsc 2>/dev/null
cp n.lsc n0.lsc

full() {	# full WHAT NAME command...: exit 1, "cannot write 'NAME': No space..."
	what=$1 name=$2; shift 2
	"$@" >/dev/full 2>full.err
	t_eq "$what: exit status 1" 1 $?
	t_grep "$what: names '$name' and ENOSPC" \
		"^loopscope: cannot write '$name': No space left on device$" full.err
}
full "analyze -o /dev/full" /dev/full "$LOOPSCOPE" analyze -q -o /dev/full n.lsc
full "merge -o /dev/full" /dev/full "$LOOPSCOPE" merge -o /dev/full n.lsprof
full "export --edges -o /dev/full" /dev/full "$LOOPSCOPE" export --edges -o /dev/full n.lsc
full "export --bolt -o /dev/full" /dev/full "$LOOPSCOPE" export --bolt -o /dev/full n.lsc
full "export --speedscope -o /dev/full" /dev/full \
	"$LOOPSCOPE" export --speedscope -o /dev/full n.lsprof
full "export --callgrind -o /dev/full" /dev/full \
	"$LOOPSCOPE" export --callgrind -o /dev/full n.lsc
full "graph -o /dev/full" /dev/full "$LOOPSCOPE" graph -o /dev/full n.lsprof
full "html -o /dev/full" /dev/full "$LOOPSCOPE" html -o /dev/full n.lsprof
for c in "report n.lsprof" "report --tree n.lsprof" "report --format=json n.lsprof" \
	 "info n.lsc" "dump n.lsc" "probes n.lsc" "annotate n.lsc" "graph n.lsprof" \
	 "export --autofdo n.lsc"; do
	# shellcheck disable=SC2086
	full "$c > /dev/full" stdout "$LOOPSCOPE" $c
done
t_eq "/dev/full is still the character device" yes "$([ -c /dev/full ] && echo yes)"
t_ok "... and still fails writes" sh -c '! echo x >/dev/full'
# /dev/null through a link: written in place.  The old temporary renamed
# over the output replaced the link here (and /dev/null itself when named:
# as root, every later reader of /dev/null then read what others wrote;
# t0207's passthru read other tests' output that way under load).
ln -s /dev/null nul
t_ok "analyze -o a link to /dev/null" "$LOOPSCOPE" analyze -q -o nul n.lsc
t_eq "... leaves the link a link to the device" "yes yes" \
	"$([ -L nul ] && echo yes) $([ -c nul ] && echo yes)"
t_ok "html -o a link to /dev/null" "$LOOPSCOPE" html -o nul n.lsprof
t_eq "... too" "yes yes" "$([ -L nul ] && echo yes) $([ -c nul ] && echo yes)"

# A file size limit of one block (512 bytes in dash and POSIX mode, 1024
# in bash), below each output's size: EFBIG.
echo old >out.txt
for c in "analyze -q n.lsc" "export --edges n.lsc" "html n.lsprof" "graph n.lsprof"; do
	# shellcheck disable=SC2086
	(ulimit -f 1; exec "$LOOPSCOPE" $c -o out.txt) 2>fb.err
	t_eq "$c -o under ulimit -f: exit status 1 (no SIGXFSZ: 153)" 1 $?
	t_grep "$c: names the file and EFBIG" \
		"^loopscope: .*out.txt.*File too large" fb.err
	t_eq "$c: the old output is untouched" old "$(cat out.txt)"
	t_eq "$c: no temporary left" "out.txt" "$(ls out.txt*)"
done
"$LOOPSCOPE" export --edges n.lsc -o out.txt
"$LOOPSCOPE" export --edges n.lsc >ref.txt
t_ok "without the limit the same export replaces the file (as to stdout)" cmp ref.txt out.txt

# record: found but not executable, or a directory: 126 as sh; missing:
# 127.  Nothing is recorded (n.lsc is the bundle recorded above).
for c in /etc/passwd /etc "$T_TMP/none"; do
	"$LOOPSCOPE" record -o n.lsc -- "$c" 2>rec.err
	echo $? >rec.st
	sh -c "'$c'" 2>/dev/null
	t_eq "record -- $c: exit status as sh's" "$?" "$(cat rec.st)"
done
"$LOOPSCOPE" record -o n.lsc -- /etc/passwd 2>rec.err
t_grep "record -- /etc/passwd says permission denied" \
	"^loopscope: permission denied: '/etc/passwd'$" rec.err
"$LOOPSCOPE" record -o n.lsc -- /etc 2>rec.err
t_grep "record -- /etc says it is a directory" "^loopscope: is a directory: '/etc'$" rec.err
t_ok "the refused records left the bundle as it was" cmp n0.lsc n.lsc
t_eq "... and made no .old" "" "$(ls n.lsc.old 2>/dev/null)"

# record keeps the bundle it replaces as NAME.old (as perf).
"$LOOPSCOPE" record -q -o n.lsc -- "$TESTDATA/nested" >/dev/null 2>&1
t_ok "record over a bundle keeps the old one as n.lsc.old" cmp n0.lsc n.lsc.old

# merge: the output is an input (by its name or another).
cp n.lsprof a.lsprof
ln -s a.lsprof l.lsprof
"$LOOPSCOPE" merge -o a.lsprof a.lsprof a.lsprof 2>m.err
t_eq "merge -o A A A: exit status 1" 1 $?
t_grep "... says the output is an input" \
	"^loopscope: the output 'a.lsprof' is also an input: write the merge to another file$" m.err
t_ok "... and leaves A as it was" cmp n.lsprof a.lsprof
"$LOOPSCOPE" merge -o a.lsprof n.lsprof l.lsprof 2>m.err
t_eq "merge -o A B (a link to A): exit status 1" 1 $?
t_grep "... names the link" "is also an input ('l.lsprof')" m.err
t_ok "merge -o into a new file still works" "$LOOPSCOPE" merge -o b.lsprof n.lsprof
