#!/bin/sh
# t0540-m32: 32-bit code (issue 19, item 1).  testdata/m32/loop32 (gcc
# -m32, static, no libc) is single-stepped natively by pt32rec, which
# writes the PT stream hardware would (MODE.Exec CS.D=1) with the Valgrind
# tool's encoder; `import --raw-pt` makes a bundle of it.  The code has
# bytes that decode differently in 64-bit mode (inc ecx = 41, a REX prefix
# there; pusha/popa, invalid there), so every command must disassemble it
# as 32-bit code, as libipt's MODE.Exec says.
#
# Expected numbers, by hand from loop32.c and `objdump -d` of the binary:
#   _start 202 = 6 (prologue) + 13 iterations x 15 + 1 (call sys_exit);
#   add    592 = 4 (i = 0: test, jle, add, ret) + sum over b = 1..12 of
#                (6 before the loop + 6 per iteration x b + 4 after)
#              = 4 + 12 x 10 + 6 x 78;
#   twice  56 = 7 calls x 8; thrice 36 = 6 calls x 6; sys_exit 5 (the
#   int $0x80 never completes a step): 891 in all.  sstep (native
#   single-step) must say the same.  PT counts the int $0x80 too (tracing
#   stops at its far transfer): 892, which libipt's own decoder (ptcheck)
#   must say as well.
#   Loops: _start's 13 iterations, 1 entry; add's 0 + 1 + ... + 12 = 78
#   iterations in 12 entries (i = 1..12).
#   Classes (iclass.c's table) in _start's loop, callees included:
#   branch 104 = jle 13 + jg 78 + jne 13; call 26 = 13 direct + 13
#   indirect; ret 26 = 13 (add) + 7 (twice) + 6 (thrice); load 96 = ops[]
#   13 + ret 26 + popa 7 + pop ebp 13 + mov 8(ebp) 13 + add's mov -4(ebp)
#   12 and leave 12.  Outside any loop: the call of sys_exit, the int.
. "$LSTOP/tests/lib.sh"
P=$T_M32
T=$BUILD/tests
cd "$T_TMP" || exit 1
t_m32_runs || t_skip_m32

"$T/sstep" -o ss.txt "$P" >/dev/null 2>&1
t_eq "the program exits 84 natively (loop32.c)" 84 $?
for f in "_start 202" "add 592" "twice 56" "thrice 36" "sys_exit 5" "total 891"; do
	t_grep "sstep: $f (hand count)" "^$f\$" ss.txt
done

t_m32 l32
t_eq "pt32rec and import --raw-pt of the 32-bit stream" 0 $?
t_eq "pt32rec: 891 steps (the hand count)" "steps 891" "$(cat l32.rec)"
"$T/ptcheck" l32.lsc >pc.txt
t_eq "ptcheck: libipt decodes it without errors" 0 $?
t_grep "ptcheck: libipt's decoder counts 892 instructions (891 + int)" \
	" insn 892 blocks .* decerr 0 insn_insn 892 " pc.txt

"$LOOPSCOPE" info --decode --format=json l32.lsc >info.json
t_eq "info --decode exits 0" 0 $?
js() {	# js FILE PYTHON-EXPRESSION-OF-d
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"
}
t_eq "info --decode: 892 instructions" 892 "$(js info.json 'sum(s["instructions"] for s in d["decode"])')"
t_eq "info --decode: no losses" 0 "$(js info.json 'sum(s["losses"] for s in d["decode"])')"

"$LOOPSCOPE" report --format=json l32.lsc >rep.json
t_eq "report exits 0" 0 $?
t_eq "report: 892 instructions" 892 "$(js rep.json 'd["total_instructions"]')"
loop() {	# loop HEAD FIELD
	js rep.json "[l for l in d['loops'] if l['head'] == '$1'][0]$2"
}
# The heads: objdump -d (_start's loop at mov %ebx,%edx, add's at the
# store to sink).
head_s=0x$(objdump -d "$P" | awk '/call.*<add>/ { sub(":", "", $1); print $1 }')
head_s=$(printf '0x%x' $((head_s - 2)))
head_a=0x$(objdump -d "$P" | awk '/mov +%e[a-z]+,0x[0-9a-f]+$/ && !h { sub(":", "", $1); h = $1 } END { print h }')
t_eq "_start's loop: 13 iterations, 1 entry" "13 1" \
	"$(loop "$head_s" "['iterations']") $(loop "$head_s" "['entries']")"
t_eq "add's loop: 78 iterations, 12 entries" "78 12" \
	"$(loop "$head_a" "['iterations']") $(loop "$head_a" "['entries']")"
t_eq "classes of _start's loop: branch call ret load" "104 26 26 96" \
	"$(loop "$head_s" "['total_classes']['branch']") $(loop "$head_s" "['total_classes']['call']") $(loop "$head_s" "['total_classes']['ret']") $(loop "$head_s" "['total_classes']['load']")"
t_eq "outside the loops: call 1, other 1 (int \$0x80)" "1 1" \
	"$(js rep.json 'd["outside_classes"]["call"]') $(js rep.json 'd["outside_classes"]["other"]')"

"$LOOPSCOPE" dump --insn l32.lsc >insn.txt
t_eq "dump --insn exits 0" 0 $?
t_eq "dump --insn: 892 instructions" 892 "$(grep -c '^    [0-9a-f]\{16\}  [0-9a-f][0-9a-f] ' insn.txt)"
t_eq "dump --insn: nothing left undisassembled" 0 "$(grep -c 'no code\|disassembled)' insn.txt)"
t_eq "dump --insn: inc ecx once per iteration of add's loop (78)" 78 \
	"$(grep -c '  41  *inc  *ecx ' insn.txt)"
t_eq "dump --insn: pushal in each of twice()'s 7 calls" 7 "$(grep -c ' pushal ' insn.txt)"
t_eq "dump --insn: 32-bit registers (push ebp, never rbp)" "13 0" \
	"$(grep -c ' push  *ebp .*twice+\|push  *ebp .*thrice+' insn.txt) $(grep -c 'rbp' insn.txt)"

# annotate disassembles each instruction again (AT&T) in its block's mode;
# the function counts are the hand counts above.
"$LOOPSCOPE" annotate --min-percent=0 l32.lsc >ann.txt 2>&1
t_eq "annotate exits 0" 0 $?
for f in "add: 592" "_start: 202" "twice: 56" "thrice: 36"; do
	t_grep "annotate: $f instructions (hand count)" "^$f instructions executed" ann.txt
done
t_grep "annotate: incl %ecx, 78 executions" "^  *78   [0-9a-f]*:  incl %ecx\$" ann.txt
t_grep "annotate: pushal, 7 executions" "^  *7   [0-9a-f]*:  pushal\$" ann.txt
t_eq "annotate: nothing it cannot disassemble" 0 "$(grep -c '(bad)' ann.txt)"
