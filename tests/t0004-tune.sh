# t0004-tune.sh - with LOOPSCOPE_HUGEPAGES=1 loopscope runs itself again
# with glibc's malloc advising huge pages (cli/tune.c; not by default),
# and nothing of it reaches a child or a result: a recorded program sees
# the environment the user gave loopscope, and a profile is the same byte
# for byte with huge pages, by default and with LOOPSCOPE_HUGEPAGES=0.
# Then it fixes malloc's thresholds (large blocks kept in the heap once
# freed), by default too.
. "$LSTOP/tests/lib.sh"
t_need_recorder
cd "$T_TMP" || exit 1

# What /usr/bin/env, recorded, printed of these two variables.
seen() {
	grep -E '^(GLIBC_TUNABLES|LOOPSCOPE_TUNED)=' "$1" | sort | tr '\n' ' '
}

env -u GLIBC_TUNABLES -u LOOPSCOPE_TUNED LOOPSCOPE_HUGEPAGES=1 "$LOOPSCOPE" record -q \
	-o e1.lsc -- /usr/bin/env >e1.out 2>e1.err
t_eq "a recorded program sees no GLIBC_TUNABLES where the user set none" \
	"" "$(seen e1.out)"
env -u LOOPSCOPE_TUNED GLIBC_TUNABLES=glibc.malloc.perturb=0 LOOPSCOPE_HUGEPAGES=1 \
	"$LOOPSCOPE" record -q -o e2.lsc -- /usr/bin/env >e2.out 2>e2.err
t_eq "... and the user's own GLIBC_TUNABLES as it was" \
	"GLIBC_TUNABLES=glibc.malloc.perturb=0 " "$(seen e2.out)"
# The run again's mark says how the environment was: it is put back
# (whether or not this kernel makes loopscope run itself again).
env -u GLIBC_TUNABLES LOOPSCOPE_TUNED==glibc.malloc.perturb=1 \
	"$LOOPSCOPE" record -q -o e3.lsc -- /usr/bin/env >e3.out 2>e3.err
t_eq "a run again puts GLIBC_TUNABLES back from its mark, and drops the mark" \
	"GLIBC_TUNABLES=glibc.malloc.perturb=1 " "$(seen e3.out)"
env GLIBC_TUNABLES=glibc.malloc.perturb=2 LOOPSCOPE_TUNED=- \
	"$LOOPSCOPE" record -q -o e4.lsc -- /usr/bin/env >e4.out 2>e4.err
t_eq "... or unsets it where the mark says it was not set" "" "$(seen e4.out)"

# Asked for huge pages (LOOPSCOPE_HUGEPAGES=1), where the kernel gives
# them to advised memory alone, the binary is run again once, with the
# tunable, for a bundle of 1 MiB or more, or of modules of 1 MiB of code
# or more (the exec costs more than a static program's few faults);
# elsewhere, by default, or when asked not to, never (strace shows the
# execs, where it is installed).
"$LOOPSCOPE" record -q -o big.lsc -- sqlite3 --version >/dev/null 2>&1
# (a static program: a bundle of a few KB, its modules' code too; and a
# dynamic one's bundle with its modules referenced, not embedded: a few
# KB, but libc's code, 1.9 MB)
"$LOOPSCOPE" record -q -o small.lsc -- "$BUILD/testdata/static/snest" >/dev/null 2>&1
"$LOOPSCOPE" record -q --no-embed -o ne.lsc -- "$BUILD/testdata/calls" >/dev/null 2>&1
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null &&
   [ "$(stat -c %s big.lsc)" -ge 1048576 ] && [ "$(stat -c %s small.lsc)" -lt 65536 ] &&
   [ "$(stat -c %s ne.lsc)" -lt 65536 ]; then
	execs() {
		strace -f -e trace=execve -o tr.txt "$@" >/dev/null 2>&1
		grep -c 'execve("/proc/self/exe"' tr.txt
	}
	# (an ASan build keeps its own allocator: nothing to tune)
	want=0
	grep -q '\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null &&
		! ldd "$LOOPSCOPE" | grep -q libasan && want=1
	t_eq "runs itself again $want time(s) on this kernel, for a bundle of 1 MiB" "$want" \
		"$(execs env -u GLIBC_TUNABLES LOOPSCOPE_HUGEPAGES=1 "$LOOPSCOPE" info big.lsc)"
	cp big.lsc loopscope.lsc
	t_eq "... or the default bundle, where no file is named" "$want" \
		"$(execs env -u GLIBC_TUNABLES LOOPSCOPE_HUGEPAGES=1 "$LOOPSCOPE" info)"
	rm -f loopscope.lsc
	t_eq "... or a small one whose modules hold 1 MiB of code or more" "$want" \
		"$(execs env -u GLIBC_TUNABLES LOOPSCOPE_HUGEPAGES=1 "$LOOPSCOPE" info ne.lsc)"
	t_eq "not for a small one of a static program" "0" \
		"$(execs env -u GLIBC_TUNABLES LOOPSCOPE_HUGEPAGES=1 "$LOOPSCOPE" info small.lsc)"
	t_eq "not by default (LOOPSCOPE_HUGEPAGES unset)" "0" \
		"$(execs env -u GLIBC_TUNABLES -u LOOPSCOPE_HUGEPAGES "$LOOPSCOPE" info big.lsc)"
	t_eq "not with LOOPSCOPE_HUGEPAGES=0" "0" \
		"$(execs env LOOPSCOPE_HUGEPAGES=0 "$LOOPSCOPE" info big.lsc)"
	t_eq "not where the user's GLIBC_TUNABLES sets hugetlb" "0" \
		"$(execs env GLIBC_TUNABLES=glibc.malloc.hugetlb=0 LOOPSCOPE_HUGEPAGES=1 \
			"$LOOPSCOPE" info big.lsc)"
	t_eq "not for --version" "0" "$(execs env LOOPSCOPE_HUGEPAGES=1 "$LOOPSCOPE" --version)"
	# malloc's thresholds fixed: its large blocks come from the heap,
	# none mapped on its own (by glibc's default the memos' and the
	# module images' are; thread stacks are mapped as stacks and not
	# counted), as long as the user's GLIBC_TUNABLES sets no threshold.
	# The decoder's chains and trails (23 and 8 MB here) are mapped on
	# their own whatever malloc does (lsd_fast_zmap(): calloc() would
	# write zeros over memory the heap had before): two mappings.
	maps() {
		strace -f -e trace=mmap -o tr.txt "$@" >/dev/null 2>&1
		grep 'MAP_PRIVATE|MAP_ANONYMOUS' tr.txt | grep -v STACK |
			awk -F', ' '$2 >= 1048576' | wc -l
	}
	if ldd "$LOOPSCOPE" | grep -q libasan; then
		for _ in 1 2 3; do
			t_n=$((t_n + 1))
			echo "ok $t_n # skip an ASan build keeps its own allocator"
		done
	else
		t_eq "no block of 1 MiB or more mapped on its own but the chains' and trails'" "2" \
			"$(maps env -u GLIBC_TUNABLES -u LOOPSCOPE_HUGEPAGES "$LOOPSCOPE" info --decode big.lsc)"
		t_ok "... as glibc's default maps them (LOOPSCOPE_HUGEPAGES=0)" \
			test "$(maps env LOOPSCOPE_HUGEPAGES=0 "$LOOPSCOPE" info --decode big.lsc)" -gt 2
		t_ok "... or the user's own threshold" \
			test "$(maps env GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072 \
				"$LOOPSCOPE" info --decode big.lsc)" -gt 2
	fi
else
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		t_n=$((t_n + 1))
		echo "ok $t_n # skip strace is missing, or the bundles are not the sizes wanted"
	done
fi

# Arguments are looked at for a bundle; a FIFO among them is not opened
# (an open would wait for its writer, a read would take what it writes).
mkfifo ff
(sleep 1; echo through >ff) &
timeout 60 "$LOOPSCOPE" record -q -o ff.lsc -- /bin/cat ff >ff.out 2>ff.err
t_eq "a FIFO named to the recorded command is left to it" "through" "$(cat ff.out)"
wait

"$LOOPSCOPE" record -q -o n.lsc -- "$BUILD/testdata/nested" >/dev/null 2>&1
t_ok "analyze with huge pages (LOOPSCOPE_HUGEPAGES=1)" \
	env LOOPSCOPE_HUGEPAGES=1 "$LOOPSCOPE" analyze -q -o a.lsprof n.lsc
t_ok "analyze by default" env -u LOOPSCOPE_HUGEPAGES "$LOOPSCOPE" analyze -q -o b.lsprof n.lsc
t_ok "analyze without any tuning (LOOPSCOPE_HUGEPAGES=0)" \
	env LOOPSCOPE_HUGEPAGES=0 "$LOOPSCOPE" analyze -q -o c.lsprof n.lsc
t_ok "the same profile byte for byte" cmp a.lsprof b.lsprof
t_ok "... all three" cmp a.lsprof c.lsprof
