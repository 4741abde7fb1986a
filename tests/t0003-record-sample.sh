# t0003-record-sample.sh - `record --sample` with the sw backend: a second,
# native run under perf's sampler adds samples to the bundle; the user sees
# the traced run's output once.  (The conversion's exactness against
# `perf script` is t0510's; this checks the wiring.)
. "$LSTOP/tests/lib.sh"
DUMP=$BUILD/tests/lsb_dump

"$LOOPSCOPE" record -q --sample -o "$T_TMP/s.lsc" -- "$BUILD/testdata/spin" 150 >"$T_TMP/out" 2>"$T_TMP/err"
t_eq "record --sample exits with the program's status (0)" 0 $?
t_eq "the program's output appears once (spin prints one line)" 1 "$(wc -l <"$T_TMP/out")"
"$DUMP" "$T_TMP/s.lsc" >"$T_TMP/dump"
t_eq "samples were recorded (spin 150 runs ~5 ms natively: ~20 at perf's default 4000 Hz, >= 5)" 1 \
	"$(awk '$1 == "samples" {print ($2 >= 5)}' "$T_TMP/dump")"
t_grep "every sample has a period" "^sample_noperiod 0\$" "$T_TMP/dump"
t_grep "every sample has a thread id" "^sample_notid 0\$" "$T_TMP/dump"
if perf stat -e cycles:u true >/dev/null 2>&1 && ! perf stat -e cycles:u true 2>&1 | grep -q 'not supported'; then
	t_grep "the sampling event is cycles on a machine with a PMU" "^meta sample.events .*cycles" "$T_TMP/dump"
else
	t_grep "the sampling event is cpu-clock without a PMU" "^meta sample.events .*cpu-clock" "$T_TMP/dump"
fi
t_grep "the sampling run's exit status is kept" "^meta sample.exit_status 0\$" "$T_TMP/dump"
t_ok "the trace itself still decodes with libipt" "$BUILD/tests/ptcheck" "$T_TMP/s.lsc"
