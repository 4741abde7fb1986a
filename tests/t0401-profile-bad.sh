#!/bin/sh
# t0401-profile-bad: damaged, cut and foreign profile files give one
# clear message naming the file (and line) and exit status 1, never a
# crash.  The good file is the hand-built one of tests/tools/mkprof.h.
. "$LSTOP/tests/lib.sh"
T=$BUILD/tests
cd "$T_TMP" || exit 1

"$T/mkprof" p.lsprof
t_eq "mkprof writes the profile" 0 $?

bad() {	# bad NAME PATTERN [report options]: status 1, message matches
	name=$1 pat=$2; shift 2
	"$LOOPSCOPE" report "$@" "$name" >o.out 2>o.err
	t_eq "$name: status 1" 1 $?
	t_grep "$name: message" "$pat" o.err
}

bad missing.lsprof "^loopscope: cannot open 'missing.lsprof': no such file; run 'loopscope record'"
sed 's/^edge	1	2	0	130	3900$/edge	1	99	0	130	3900/' p.lsprof >idx.lsprof
bad idx.lsprof "^loopscope: idx.lsprof:26: bad loop index '99'$"
sed 's/^loopscope-profile [0-9]*$/loopscope-profile 8/' p.lsprof >ver.lsprof
bad ver.lsprof "^loopscope: ver.lsprof:1: format version 8, this loopscope reads versions 1 to 7$"
sed '/^trip	2	0/d' p.lsprof >lost.lsprof
bad lost.lsprof "^loopscope: lost.lsprof:41: record count does not match"
head -c 1000 p.lsprof >cut.lsprof
bad cut.lsprof "^loopscope: cut.lsprof:[0-9]*: file ends within a line$"
head -n 20 p.lsprof >cut2.lsprof
bad cut2.lsprof "^loopscope: cut2.lsprof:21: file ends before the end record$"
sed 's/^func	1	0	0x1100/func	1	0	0x1000/' p.lsprof >dup.lsprof
bad dup.lsprof "^loopscope: dup.lsprof:8: duplicate function '0x1000'$"
sed 's/^lstat	2	0	130	390	3900	3900/lstat	2	0	130	390	3900	390/' p.lsprof >self.lsprof
bad self.lsprof "^loopscope: self.lsprof:17: self count above the total '3900'$"
sed 's/^trip	0	0	10	1$/trip	0	0	10	1x/' p.lsprof >num.lsprof
bad num.lsprof "^loopscope: num.lsprof:20: bad entries '1x'$"
sed 's/^tail	0	0	0x1070/tail	0	5	0x1070/' p.lsprof >thr.lsprof
bad thr.lsprof "^loopscope: thr.lsprof:29: bad thread index '5'$"
sed 's/^func	2	0	0x1200	0x401200	helper	odd\\t/func	2	0	0x1200	0x401200	helper	odd\\q/' p.lsprof >esc.lsprof
bad esc.lsprof "^loopscope: esc.lsprof:9: bad escape in 'file'$"
printf 'loopscope-profile 1\nprofile\t10\t1\t\nend\t1' >nonl.lsprof
bad nonl.lsprof "^loopscope: nonl.lsprof:3: file ends within a line$"
bad /dev/null "/dev/null"
# Every tenth truncation through the CLI too (the unit test does all).
size=$(wc -c <p.lsprof)
ok=1
n=0
while [ "$n" -lt "$size" ]; do
	head -c "$n" p.lsprof >t.lsprof
	"$LOOPSCOPE" report t.lsprof >/dev/null 2>t.err
	st=$?
	if [ "$st" -ne 1 ] || ! grep -q "t.lsprof" t.err; then
		ok=0
		echo "# cut at $n: status $st: $(cat t.err)"
	fi
	n=$((n + 10))
done
t_eq "every tenth truncation: status 1, message names the file" 1 "$ok"

# Merge refuses other trip limits, and names both files.
sed 's/^profile	100	/profile	50	/' p.lsprof >lim.lsprof
"$LOOPSCOPE" merge -o m.lsprof p.lsprof lim.lsprof 2>m.err
t_eq "merge: other trip limit, status 1" 1 $?
t_grep "merge: says which" "cannot merge 'lim.lsprof': its trip limit is 50, that of 'p.lsprof' 100" m.err
t_fail "merge: no output written" test -e m.lsprof
"$LOOPSCOPE" merge -o m.lsprof p.lsprof idx.lsprof 2>m.err
t_eq "merge: a bad input, status 1" 1 $?
t_grep "merge: names it" "idx.lsprof:26: bad loop index" m.err
"$LOOPSCOPE" merge -o /nonexistent/dir/m.lsprof p.lsprof 2>m.err
t_eq "merge: unwritable output, status 1" 1 $?
t_grep "merge: names the output" "cannot write '/nonexistent/dir/m.lsprof': No such file or directory" m.err
"$LOOPSCOPE" graph idx.lsprof >/dev/null 2>g.err
t_eq "graph: a bad profile, status 1" 1 $?
t_grep "graph: names the line" "idx.lsprof:26: bad loop index" g.err
