# t0201-decode.sh - the decoder (decoder/decode.c) against libipt's own
# instruction decoder and against hand counts.
#   sbdump: our static blocks with execution counts; fails if two static
#   blocks overlap or chunk-by-chunk decoding differs from whole streams.
#   ptcheck insn_insn: libipt's pt_insn decoder alone over the same stream.
. "$LSTOP/tests/lib.sh"
TD=$BUILD/testdata
SB=$BUILD/tests/sbdump
PTCHECK=$BUILD/tests/ptcheck

sum_insn_insn() {
	"$PTCHECK" "$1" | awk '{for (i = 1; i < NF; i++) if ($i == "insn_insn") s += $(i + 1)} END {print s + 0}'
}

for p in nested recursion calls threads signals syscall dlopen midjump passthru; do
	# Small chunks: many chunk boundaries to decode across.
	"$LOOPSCOPE" record -q --chunk-size 4096 -o "$T_TMP/$p.lsc" -- "$TD/$p" </dev/null >/dev/null 2>&1
	t_ok "$p: static blocks never overlap; chunk-by-chunk equals whole streams" \
		"$SB" -m "$p" "$T_TMP/$p.lsc"
	cp "$T_TMP/last.out" "$T_TMP/$p.sb"
	t_eq "$p: no decode losses" "losses 0" "$(awk '$1 == "streams" {print $7, $8}' "$T_TMP/$p.sb")"
	t_eq "$p: executed instructions equal libipt's instruction decoder's" \
		"$(sum_insn_insn "$T_TMP/$p.lsc")" "$(awk '$1 == "streams" {print $4}' "$T_TMP/$p.sb")"
done

# The tests below read module offsets as ELF addresses: true when the
# executable's text segment has offset == vaddr, which we check.
text_ok() {
	readelf -lW "$1" | grep ' LOAD .* R E ' | head -1 | {
		read -r _ off vaddr _
		[ $((off)) -eq $((vaddr)) ] && echo ok || echo no
	}
}
# Address of symbol $2 in $1, as 0x%x; "start end" (decimal) with -S.
sym() { printf '0x%x' "$((0x$(nm "$1" | awk -v s="$2" '$3 == s {print $1}')))"; }
sym_range() {
	set -- $(nm -S "$1" | awk -v s="$2" '$4 == s {print $1, $2}')
	echo "$((0x$1)) $((0x$1 + 0x$2))"
}
# Exec counts of sbdump lines whose offset lies in [lo, hi).
counts_in() {	# counts_in FILE lo hi
	while read -r off n execs _; do
		case $off in 0x*) ;; *) continue ;; esac
		[ $((off)) -ge "$2" ] && [ $((off)) -lt "$3" ] && echo "$execs"
	done <"$1"
}

# midjump.c: hand count (see its source): [midjump_a] 1 insn once,
# [midjump_b .. jl] 4 insns 5 times: the jump into the middle of the first
# block split it.
t_eq "midjump: text offset == vaddr" ok "$(text_ok "$TD/midjump")"
a=$(sym "$TD/midjump" midjump_a)
b=$(sym "$TD/midjump" midjump_b)
t_eq "midjump: the block at midjump_a is 1 instruction run once" "1 1" \
	"$(awk -v a="$a" '$1 == a {print $2, $3}' "$T_TMP/midjump.sb")"
t_eq "midjump: the block at midjump_b is 4 instructions run 5 times" "4 5" \
	"$(awk -v b="$b" '$1 == b {print $2, $3}' "$T_TMP/midjump.sb")"

# nested.c: loops of 10, 20 and 30 iterations.  Whatever the compiler's
# block layout, the executions of nest()'s blocks are 1 (entry), 10 and
# 10 (outer loop head and latch), 200 and 200 (middle), 6000 (innermost
# body, 10 * 20 * 30), 1 (return): derived from the trip counts.
t_eq "nested: text offset == vaddr" ok "$(text_ok "$TD/nested")"
range=$(sym_range "$TD/nested" nest)
t_eq "nested: executions of nest()'s static blocks" "1 1 10 10 200 200 6000" \
	"$(counts_in "$T_TMP/nested.sb" $range | sort -n | tr '\n' ' ' | sed 's/ $//')"

# threads.c: 4 workers run the same 1000-iteration loop: in run(), the
# loop body's block runs 4000 times over all streams.
range=$(sym_range "$TD/threads" run)
t_eq "threads: run()'s loop body runs 4 * 1000 times" 4000 \
	"$(counts_in "$T_TMP/threads.sb" $range | sort -n | tail -1)"
