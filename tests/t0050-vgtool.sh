#!/bin/sh
# t0050-vgtool.sh - the Valgrind tool "loopscope" writes Intel PT that
# libipt decodes exactly.
#
# Expected numbers come from independent sources: libipt's block decoder
# (run by build/tests/lspcheck) must count exactly the instructions the
# tool counted itself with --lsc-verify=yes (THREAD_EXIT insns), the
# whole stream must count the same as its PSB chunks decoded one by one,
# the client's stdout and exit status must equal a native run, and record
# counts follow from the test programs' sources (testdata/vg_*.c).
. "$LSTOP/tests/lib.sh"

VGLIB="$BUILD/vglib"
CHECK="$BUILD/tests/lspcheck"
TD="$BUILD/testdata"
OUT="$T_TMP/rec.lsp"

vg() {	# vg [tool options --] program args...
	VALGRIND_LIB="$VGLIB" valgrind -q --tool=loopscope --lsc-out="$OUT" \
		--lsc-verify=yes "$@"
}

# Every thread line: no errors, insns == verify == chunk_insns.
threads_exact() {
	awk '/^tid / {
		n++
		for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
		if (v["errors"] != 0 || v["chunk_errors"] != 0 ||
		    v["insns"] != v["verify"] || v["insns"] != v["chunk_insns"] ||
		    v["insns"] == 0) { print "bad: " $0 > "/dev/stderr"; bad = 1 }
	}
	END { if (!n) { print "no threads" > "/dev/stderr"; bad = 1 }
	      exit bad }' "$1"
}

field() {	# field NAME FILE: value after NAME on the records line
	awk -v k="$1" '/^records/ { for (i = 2; i < NF; i += 2)
		if ($i == k) print $(i + 1) }' "$2"
}

# record NAME CMD...: record (tool options in $VGOPTS), compare with a
# native run, check with lspcheck -s.
VGOPTS=
record() {
	name=$1; shift
	"$@" >"$T_TMP/native.out" 2>/dev/null
	nrc=$?
	vg $VGOPTS "$@" >"$T_TMP/vg.out" 2>"$T_TMP/vg.err"
	vrc=$?
	t_eq "$name: exit status as native" "$nrc" "$vrc"
	t_ok "$name: stdout as native" cmp "$T_TMP/native.out" "$T_TMP/vg.out"
	t_ok "$name: tool prints nothing" test ! -s "$T_TMP/vg.err"
	"$CHECK" -s "$OUT" >"$T_TMP/check.out" 2>"$T_TMP/check.err"
	crc=$?
	t_eq "$name: lspcheck passes" 0 "$crc"
	[ "$crc" -eq 0 ] || sed 's/^/#   /' "$T_TMP/check.err" | head -5
	t_ok "$name: decoded insns == verify == chunk sum, no errors" \
		threads_exact "$T_TMP/check.out"
	sed 's/^/# /' "$T_TMP/check.out"
}

if ! command -v valgrind >/dev/null || [ ! -x "$VGLIB/loopscope-amd64-linux" ]; then
	echo "ok 1 # skip valgrind or the tool is missing"
	exit 0
fi

record vg_flow "$TD/vg_flow"
t_eq "vg_flow: one thread" 1 "$(grep -c '^tid ' "$T_TMP/check.out")"
t_eq "vg_flow: one PT stream start" 1 "$(field thread_start "$T_TMP/check.out")"

# A tiny PSB period makes hundreds of chunks: every one must decode alone.
VGOPTS=--lsc-psb-period=256
record "vg_flow psb 256" "$TD/vg_flow"
VGOPTS=
# A chunk is cut at the first block entry after 256 bytes, and one block
# adds far less than 64 bytes: 256 <= chunk size < 320 but for the last.
chunks=$(awk '/^tid/ { print $4 }' "$T_TMP/check.out")
bytes=$(awk '/^tid/ { print $6 }' "$T_TMP/check.out")
t_ok "vg_flow psb 256: $chunks chunks for $bytes bytes" \
	test "$chunks" -ge $((bytes / 320)) -a "$chunks" -le $((bytes / 256 + 1))

# Without return compression every return is a TIP: libipt must still
# count exactly what the tool counted, with signals and threads too.
VGOPTS=--lsc-retcomp=no
record "vg_flow noretcomp" "$TD/vg_flow"
record "vg_sig noretcomp" "$TD/vg_sig"
record "vg_threads noretcomp" "$TD/vg_threads"
VGOPTS=

record vg_threads "$TD/vg_threads"
t_eq "vg_threads: five threads" 5 "$(grep -c '^tid ' "$T_TMP/check.out")"
t_eq "vg_threads: five THREAD_EXITs" 5 "$(field thread_exit "$T_TMP/check.out")"

record vg_sig "$TD/vg_sig"
# 20 raise(SIGUSR1) + 1 SIGALRM + 1 SIGUSR2 (vg_sig.c)
t_eq "vg_sig: 22 signals" 22 "$(field signal "$T_TMP/check.out")"

record vg_segv "$TD/vg_segv"
t_eq "vg_segv: 10 signals" 10 "$(field signal "$T_TMP/check.out")"

# exit(5) while a second thread spins: its trace ends enabled (FUP+PGD).
record vg_exitkill "$TD/vg_exitkill"
t_eq "vg_exitkill: two threads" 2 "$(grep -c '^tid ' "$T_TMP/check.out")"

record "/bin/true" /bin/true
record "xz -9" xz -9 -c "$LSTOP/tests/t0050-vgtool.sh"
record sort sort "$LSTOP/tests/run.sh"

if [ -x "$TD/forkexec" ]; then
	record forkexec "$TD/forkexec"
	t_eq "forkexec: one FORK" 1 "$(field fork "$T_TMP/check.out")"
	t_eq "forkexec: one EXEC" 1 "$(field exec "$T_TMP/check.out")"
	t_eq "forkexec: its count comes in one VERIFY" 1 \
		"$(field verify "$T_TMP/check.out")"
	t_eq "forkexec: only the parent is traced" 1 \
		"$(grep -c '^tid ' "$T_TMP/check.out")"
fi

VGOPTS=--lsc-mem=yes
record "vg_flow mem" "$TD/vg_flow"
VGOPTS=
t_ok "vg_flow mem: memory accesses recorded" \
	test "$(field accesses "$T_TMP/check.out")" -gt 100000

# Lackey counts rep iterations one by one and differs in libc paths: only
# report its total next to ours.
ours=$(vg "$TD/vg_flow" >/dev/null 2>&1; "$CHECK" "$OUT" | awk '/^tid/ { print $10 }')
lackey=$(valgrind --tool=lackey "$TD/vg_flow" 2>&1 >/dev/null |
	awk '/guest instrs:/ { gsub(",", "", $NF); print $NF }')
echo "# vg_flow: decoded insns $ours, lackey guest instrs $lackey"

t_fail "tool without --lsc-out fails" env VALGRIND_LIB="$VGLIB" \
	valgrind -q --tool=loopscope /bin/true
