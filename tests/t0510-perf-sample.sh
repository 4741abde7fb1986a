#!/bin/sh
# Sampling run through recorder/perf_run.h + perf_convert.h (LSB_RUN_SAMPLE):
# `perf record -e cycles:u|cpu-clock:u -g` of a busy loop.  The oracle for
# the sample count is `perf script` on the same perf.data (one line per
# sample with -F tid,period).
. "$LSTOP/tests/lib.sh"
T=$BUILD/tests
cd "$T_TMP" || exit 1
if ! command -v perf >/dev/null || ! perf record -q -e cpu-clock:u -o probe.data -- true 2>/dev/null; then
	echo "ok 1 # SKIP perf record does not work here"
	exit 0
fi
cat >busy.c <<'C'
int main(void)
{
	volatile unsigned long s = 0;
	unsigned long i;

	for (i = 0; i < 100000000UL; i++)
		s += i;
	return 3;	/* the status perf must pass back */
}
C
cc -O0 -o busy busy.c || exit 1
"$T/lsr_perfrun" sample s.data s.lsc -- ./busy >run.out 2>run.err
t_eq "lsr_perfrun converts the sampling run" 0 $?
t_grep "the command's exit status (3, busy.c) comes back" "^status 3$" run.out
expect=$(perf script -i s.data -F tid,period 2>/dev/null | grep -c .)
"$T/lsb_dump" s.lsc >info.out
t_eq "samples in the bundle = perf script's count ($expect)" "$expect" \
	"$(awk '$1 == "samples" { print $2 }' info.out)"
t_ok "more than 10 samples in a ~0.2 s busy loop" test "$expect" -gt 10
t_eq "every sample has a period" 0 "$(awk '$1 == "sample_noperiod" { print $2 }' info.out)"
t_eq "every sample has a tid" 0 "$(awk '$1 == "sample_notid" { print $2 }' info.out)"
t_eq "period sum = perf script's" \
	"$(perf script -i s.data -F period 2>/dev/null | awk '{ s += $1 } END { print s }')" \
	"$("$T/lspd_dump" s.data | awk '$1 == "sample" { s += $4 } END { print s }')"
t_grep "the busy program is an embedded module" "^module $T_TMP/busy [0-9a-f]* 1 " info.out
t_grep "the sample event is named" "^meta sample.events .*-clock\|^meta sample.events .*cycles" info.out
