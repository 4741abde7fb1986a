#!/bin/sh
# t0953-full-disk: a real full disk, a 400 KiB tmpfs mounted in a private
# mount namespace (unshare -m: the mount is gone with the test, whatever
# happens), so root only; skipped elsewhere (t0950 and t0951 cover the
# same paths with /dev/full and ulimit -f).  Expected texts: ENOSPC is
# strerror's "No space left on device"; nested prints 343500 (the sum
# over i<10, j<20, k<30 of i*j + k, testdata/nested.c).
if [ -z "${T0953_INNER:-}" ]; then
	if [ "$(id -u)" != 0 ] || ! unshare -m --propagation private true 2>/dev/null; then
		echo "ok 1 # skip needs root and unshare -m (a private tmpfs)"
		exit 0
	fi
	T0953_INNER=1 exec unshare -m --propagation private sh "$0"
fi
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
t_need_recorder
mkdir d
if ! mount -t tmpfs -o size=400k tmpfs d; then
	echo "ok 1 # skip cannot mount a tmpfs here"
	exit 0
fi
# lib.sh's clean-up cannot remove a mount point: unmount first.
trap 'umount "$T_TMP/d" 2>/dev/null; rm -rf "$T_TMP"' EXIT

# record fills the disk: the command runs to its end, record names the
# file, the offset (what fit) and ENOSPC, and the bundle reads.
"$LOOPSCOPE" record -q -o d/n.lsc -- "$TESTDATA/nested" >r.out 2>r.err
t_eq "record onto a full disk: exit status 1 (the command exited 0)" 1 $?
t_eq "... the command ran to its end" 343500 "$(cat r.out)"
size=$(stat -c %s d/n.lsc)
t_grep "... the message names the file, the offset (its size) and ENOSPC" \
	"^loopscope: cannot write the bundle: 'd/n.lsc': write at offset $size: No space left on device;" r.err
"$LOOPSCOPE" info d/n.lsc >i.out 2>i.err
t_eq "... the bundle reads (info exits 0)" 0 $?
t_grep "... cut at its last complete section" "^status: *truncated at offset" i.out
rm -f d/n.lsc

# Outputs onto the full disk: each command fails naming the file, the
# old output stays, and no temporary is left.
"$LOOPSCOPE" record -q -o n.lsc -- "$TESTDATA/nested" >/dev/null 2>&1
"$LOOPSCOPE" analyze -q -o n.lsprof n.lsc
echo old >d/out
dd if=/dev/zero of=d/fill bs=4k 2>/dev/null
for c in "analyze -q n.lsc" "merge n.lsprof" "export --edges n.lsc" "html n.lsprof"; do
	# shellcheck disable=SC2086
	"$LOOPSCOPE" $c -o d/out 2>o.err
	t_eq "$c -o onto the full disk: exit status 1" 1 $?
	t_grep "... names the file and ENOSPC" \
		"^loopscope: cannot write 'd/out': No space left on device$" o.err
	t_eq "... the old output stays" old "$(cat d/out)"
	t_eq "... and no temporary is left" "fill out" "$(ls d | tr '\n' ' ' | sed 's/ $//')"
done
