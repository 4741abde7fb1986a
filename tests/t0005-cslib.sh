# t0005-cslib.sh - capstone is loaded (dlopen) where a handle is first
# opened, not linked (decoder/cslib.c): a process that disassembles
# nothing (a view of a profile, loopscope's run of itself again for huge
# pages) never loads it, and where it cannot be loaded the commands that
# decode say which file and why, while those reading a profile still work.
. "$LSTOP/tests/lib.sh"
t_need_recorder
cd "$T_TMP" || exit 1

t_ok "records testdata/calls" t_record_prog calls
t_ok "analyzes it" "$LOOPSCOPE" analyze -q -o calls.lsprof calls.lsc

t_fail "the binary does not name capstone among the libraries it needs" \
	sh -c "objdump -p '$LOOPSCOPE' | grep NEEDED | grep -q capstone"

# The dynamic loader's own log (LD_DEBUG=files) names every library it
# loads, once per process: "calling init: <path>" when it runs.
loads() {
	env LD_DEBUG=files "$@" 2>&1 >/dev/null | grep -c 'calling init: .*libcapstone'
}
t_eq "report of a profile does not load capstone" "0" \
	"$(loads "$LOOPSCOPE" report calls.lsprof)"
t_eq "... nor export --callgrind of it" "0" \
	"$(loads "$LOOPSCOPE" export --callgrind -o cg.out calls.lsprof)"
t_eq "... nor --help" "0" "$(loads "$LOOPSCOPE" --help)"
# (one process decodes: LOOPSCOPE_HUGEPAGES=0, no run again)
t_eq "info --decode of a bundle loads it once" "1" \
	"$(LOOPSCOPE_HUGEPAGES=0 loads "$LOOPSCOPE" info --decode calls.lsc)"

# Where it cannot be loaded (LOOPSCOPE_CAPSTONE_LIB names another file).
nocs() {
	env LOOPSCOPE_CAPSTONE_LIB="$T_TMP/no/libcapstone.so" "$@"
}
t_fail "analyze fails where capstone cannot be loaded" \
	nocs "$LOOPSCOPE" analyze -q -o none.lsprof calls.lsc
nocs "$LOOPSCOPE" analyze -q -o none.lsprof calls.lsc 2>err.txt
t_grep "... naming the bundle, the library and the loader's reason" \
	"cannot decode 'calls.lsc': capstone ($T_TMP/no/libcapstone.so) cannot be loaded: .*No such file" \
	err.txt
t_fail "... and writes no profile" test -e none.lsprof
nocs "$LOOPSCOPE" info --decode calls.lsc >/dev/null 2>err2.txt
t_grep "info --decode says the same" "capstone ($T_TMP/no/libcapstone.so) cannot be loaded" err2.txt
t_ok "report of a profile still works without it" \
	nocs "$LOOPSCOPE" report calls.lsprof

# The library named by its path: the same profile as the build's soname.
cs=$(ldconfig -p 2>/dev/null | awk '/libcapstone\.so\./ { print $NF; exit }')
if [ -n "$cs" ] && [ -e "$cs" ]; then
	t_ok "analyze with LOOPSCOPE_CAPSTONE_LIB=$cs" \
		env LOOPSCOPE_CAPSTONE_LIB="$cs" "$LOOPSCOPE" analyze -q -o named.lsprof calls.lsc
	t_ok "... gives the same profile, byte for byte" cmp calls.lsprof named.lsprof
else
	t_n=$((t_n + 1))
	echo "ok $t_n # skip ldconfig names no capstone"
	t_n=$((t_n + 1))
	echo "ok $t_n # skip ldconfig names no capstone"
fi

