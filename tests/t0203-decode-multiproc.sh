# t0203-decode-multiproc.sh - one image per process (decoder/image.c): a
# bundle holding several processes whose executables lie at the same
# address decodes each stream with its own process's code.
#   lsb_merge (tests/tools) joins sw recordings of nested, calls and
#   threads into one bundle with distinct pids; under Valgrind the three
#   PIE executables are mapped at the same base.  Oracle: each stream's
#   instruction and block counts must equal those of the single-process
#   bundles (which t0201 checks against libipt and hand counts), and each
#   program's static blocks must be the same.
. "$LSTOP/tests/lib.sh"
TD=$BUILD/testdata
SB=$BUILD/tests/sbdump

for p in nested calls threads; do
	"$LOOPSCOPE" record -q --chunk-size 4096 -o "$T_TMP/$p.lsc" -- "$TD/$p" </dev/null >/dev/null 2>&1
	"$SB" -t "$T_TMP/$p.lsc" >"$T_TMP/$p.sb"
done
t_ok "three recordings merge into one bundle" \
	"$BUILD/tests/lsb_merge" "$T_TMP/m.lsc" "$T_TMP/nested.lsc" "$T_TMP/calls.lsc" "$T_TMP/threads.lsc"
"$LOOPSCOPE" info "$T_TMP/m.lsc" >"$T_TMP/m.info"
t_eq "nested and calls are mapped at the same address" 1 \
	"$(awk '$1 == "trace" && $6 ~ /testdata\/(nested|calls)$/ {print $3}' "$T_TMP/m.info" | sort -u | wc -l)"
t_eq "and have different pids" 2 \
	"$(awk '$1 == "trace" && $6 ~ /testdata\/(nested|calls)$/ {print $2}' "$T_TMP/m.info" | sort -u | wc -l)"

t_ok "the merged bundle decodes; blocks never overlap within a process" "$SB" -t "$T_TMP/m.lsc"
cp "$T_TMP/last.out" "$T_TMP/m.sb"
# Per-stream "insn N blocks B losses L" in stream order, singles concatenated.
streams() { awk '$1 == "stream" {print $4, $6, $8}' "$@"; }
t_eq "every stream's instructions, blocks and losses equal its single-process decode" \
	"$(streams "$T_TMP/nested.sb" "$T_TMP/calls.sb" "$T_TMP/threads.sb")" \
	"$(streams "$T_TMP/m.sb")"
t_eq "no losses" "losses 0" "$(awk '$1 == "streams" {print $7, $8}' "$T_TMP/m.sb")"
t_eq "the thread callback names each stream's thread: 7 streams, 3 processes" "7 3" \
	"$(awk '$1 == "thread" {n++; p[$4]} END {print n, length(p)}' "$T_TMP/m.sb")"
t_eq "threads: its 5 streams are one process" 1 \
	"$(awk '$1 == "thread" && $2 >= 2 {print $4}' "$T_TMP/m.sb" | sort -u | wc -l)"
for p in nested calls threads; do
	"$SB" -m "$p" "$T_TMP/$p.lsc" | grep '^0x' >"$T_TMP/$p.one"
	"$SB" -m "$p" "$T_TMP/m.lsc" | grep '^0x' >"$T_TMP/$p.many"
	t_ok "$p: its static blocks and counts are the same alone and merged" \
		cmp "$T_TMP/$p.one" "$T_TMP/$p.many"
done
# info --decode over the merged bundle: the total is the sum.
"$LOOPSCOPE" info --decode "$T_TMP/m.lsc" >"$T_TMP/m.dinfo" 2>&1
t_eq "info --decode: total instructions are the sum of the three" \
	"$(awk '$1 == "streams" {s += $4} END {print s}' "$T_TMP/nested.sb" "$T_TMP/calls.sb" "$T_TMP/threads.sb")" \
	"$(awk '$1 == "total" {print $2}' "$T_TMP/m.dinfo")"
