# t0636-stripped.sh - stripped binaries: functions without symbols named
# by their entry (module+0xVADDR), and debug files fetched by build-id
# from a real debuginfod server (DEBUGINFOD_URLS).
# Oracles: nm of the unstripped binary (every function's address), the
# unstripped binary's own profile of the same run (the runs are
# identical: same path, same environment, same code bytes), readelf -n
# (build-ids), and the debuginfod client's cache.
. "$LSTOP/tests/lib.sh"
t_need_recorder
cd "$T_TMP" || exit 1
mkdir run srv

# testdata/calls.c: main calls step and work directly; _start is the ELF
# entry; frame_dummy and __do_global_dtors_aux are reached through
# .init_array/.fini_array pointers, _init/_fini through DT_INIT/DT_FINI.
cp "$TESTDATA/calls" full
objcopy --only-keep-debug full srv/calls.debug
strip --strip-all -o stripped full
strip --strip-debug -o nodebug full
id=$(readelf -n full | sed -n 's/.*Build ID: //p')
t_ok "the stripped binary keeps the build-id $id" \
	test "$(readelf -n stripped | sed -n 's/.*Build ID: //p')" = "$id"
t_eq "the stripped binary has no .symtab and no DWARF" 0 \
	"$(readelf -SW stripped | grep -c '\.symtab\|\.debug_')"
t_eq "the --strip-debug one keeps .symtab, no DWARF" "1 0" \
	"$(readelf -SW nodebug | grep -c '\.symtab') $(readelf -SW nodebug | grep -c '\.debug_')"

# One path for all three, so the runs are the same run.
for b in full stripped nodebug; do
	cp "$b" run/calls
	"$LOOPSCOPE" record -q -o "$b.lsc" -- ./run/calls >/dev/null
	"$LOOPSCOPE" analyze -o "$b.lsprof" "$b.lsc" >/dev/null 2>&1
done
t_eq "the three runs execute the same instructions" 1 \
	"$(for b in full stripped nodebug; do "$LOOPSCOPE" report "$b.lsprof" | sed -n '1s/.*: \([0-9]*\) instr.*/\1/p'; done | sort -u | wc -l)"

# name -> expected stripped name, from nm of the unstripped binary.
nmname() {
	a=$(nm full | awk -v f="$1" '$3 == f {print $1}' | sed 's/^0*//')
	echo "calls+0x$a"
}
# "name self total calls" of each function of module calls, from JSON.
funcs() {	# funcs PROFILE
	"$LOOPSCOPE" report --format=json --module=calls "$1" | python3 -c '
import json, sys
for f in json.load(sys.stdin)["functions"]:
    print(f["name"], f["self_instructions"], f["total_instructions"], f["calls"])'
}
funcs full.lsprof >full.f
funcs stripped.lsprof >stripped.f
row() { awk -v n="$1" '$1 == n {print $2, $3, $4}' "$2"; }

# Functions entered by a call, a pointer, DT_INIT/DT_FINI or as the ELF
# entry: in the stripped run each is calls+0x<nm address> with the very
# counts the unstripped run gives it by name.
for f in main step work _start frame_dummy __do_global_dtors_aux _init _fini; do
	want=$(row "$f" full.f)
	n=$(nmname "$f")
	if [ -z "$want" ]; then
		t_eq "$f ran (in the unstripped profile)" "a row" "none"
		continue
	fi
	t_eq "stripped: $f is $n, self total calls as unstripped ($want)" "$want" "$(row "$n" stripped.f)"
done
# register_tm_clones is entered only by frame_dummy's tail jump: no call
# names it, so in the stripped run its code belongs to the function before
# it, deregister_tm_clones (called by __do_global_dtors_aux): their self
# counts add up there.
d=$(row deregister_tm_clones full.f | cut -d' ' -f1)
r=$(row register_tm_clones full.f | cut -d' ' -f1)
t_eq "stripped: register_tm_clones (a tail jump's target) is inside $(nmname deregister_tm_clones), $d + $r" \
	"$((d + r))" "$(row "$(nmname deregister_tm_clones)" stripped.f | cut -d' ' -f1)"
t_eq "stripped: no function of calls is unnamed" 0 \
	"$(awk '$1 == "" || $1 == "??"' stripped.f | wc -l)"

# Loops are labelled by their synthetic function in every view: work's
# loop (calls.c:16) and main's two loops (lines 22, 26).
W=$(nmname work)
M=$(nmname main)
loops() {	# loops PROFILE: "id function" of the loops of module calls
	"$LOOPSCOPE" report --format=csv --module=calls "$1" | awk -F, 'NR > 1 {print $1, $4}' | sort
}
t_eq "stripped: the loops of calls are in $W and $M (work, main)" \
	"$(loops full.lsprof | sed "s/ work\$/ $W/; s/ main\$/ $M/")" "$(loops stripped.lsprof)"
t_eq "stripped: 3 loops in module calls" 3 "$(loops stripped.lsprof | wc -l)"
"$LOOPSCOPE" report --function="$W" stripped.lsprof >fn.out
t_grep "stripped: --function=$W finds work's loop" "^Function $W " fn.out
"$LOOPSCOPE" report --tree stripped.lsprof >tree.out
t_eq "stripped: the tree shows $W under both of $M's loops" 2 \
	"$(grep -c "loop [0-9]*  $W  calls+0x" tree.out)"
"$LOOPSCOPE" report --functions --min-percent=0 stripped.lsprof >fs.out
t_grep "stripped: --functions lists $W" "^$W  *calls " fs.out
"$LOOPSCOPE" annotate --function="$W" stripped.lsc >an.out 2>an.err
t_grep "stripped: annotate --function=$W shows it" "$W" an.out

# The sweep for entries is cached by build-id beside the heads cache: the
# stripped run's analysis left it, a second analysis reads it, and a
# damaged one is ignored (swept again); the profile is the same each time.
EC="$LOOPSCOPE_CACHE/$id.entries"
t_ok "the entries sweep is cached: $id.entries" test -s "$EC"
"$LOOPSCOPE" analyze -o again.lsprof stripped.lsc >/dev/null 2>&1
t_ok "analyze with the cached sweep: the same profile" cmp stripped.lsprof again.lsprof
cp "$EC" ec.good
printf 'junk' | dd of="$EC" bs=1 seek=100 conv=notrunc 2>/dev/null
"$LOOPSCOPE" analyze -o again.lsprof stripped.lsc >/dev/null 2>&1
t_ok "a damaged cache file is ignored: the same profile" cmp stripped.lsprof again.lsprof
# The targets are kept ascending, each once (version 3): a file whose
# checksum holds but whose first two targets are swapped is not what
# we write, and is swept again (its CRC-32 from gzip's trailer, the same
# CRC; the header is 92 bytes, then 8 bytes a target, then the CRC).
t_ok "the sweep was written again, as before" cmp "$EC" ec.good
n=$(wc -c <ec.good)
t_ok "the cached sweep holds two targets or more" test "$n" -ge $((92 + 2 * 8 + 4))
{
	head -c 92 ec.good
	dd if=ec.good bs=1 skip=100 count=8 2>/dev/null
	dd if=ec.good bs=1 skip=92 count=8 2>/dev/null
	dd if=ec.good bs=1 skip=108 count=$((n - 108 - 4)) 2>/dev/null
} >ec.swap
gzip -c ec.swap | tail -c 8 | head -c 4 >>ec.swap
cp ec.swap "$EC"
"$LOOPSCOPE" analyze -o again.lsprof stripped.lsc >/dev/null 2>&1
t_ok "targets out of order: swept again, the same profile" cmp stripped.lsprof again.lsprof
t_ok "and the sweep written again" cmp "$EC" ec.good

# debuginfod: a real server on a free local port serves srv/calls.debug.
t_debuginfod srv debuginfo "$id"
t_eq "debuginfod on port $port serves $id" 0 $?

for b in stripped nodebug; do
	DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$T_TMP/cache-$b \
		"$LOOPSCOPE" analyze -o "$b-d.lsprof" "$b.lsc" >/dev/null 2>&1
	t_ok "$b: the debug file came into DEBUGINFOD_CACHE_PATH" \
		test -s "$T_TMP/cache-$b/$id/debuginfo"
	# Names, lines, line ranges, inline chains: the unstripped run's
	# reports, bar the first line (the input file's name).
	for view in "--min-percent=0 --show-loader" "--functions --min-percent=0" "--tree"; do
		# shellcheck disable=SC2086
		"$LOOPSCOPE" report $view full.lsprof | sed 1d >want.out
		# shellcheck disable=SC2086
		"$LOOPSCOPE" report $view "$b-d.lsprof" | sed 1d >got.out
		t_ok "$b + debuginfod: report $view as for the unstripped binary" \
			cmp want.out got.out
	done
done
# The client library (and libcurl, TLS, Kerberos behind it) is loaded
# when a lookup uses DEBUGINFOD_URLS, not at every start: ld.so's own
# account of the files it loads (LD_DEBUG=files).
LD_DEBUG=files "$LOOPSCOPE" report stripped.lsprof >/dev/null 2>ld.out
t_eq "without DEBUGINFOD_URLS libdebuginfod is not loaded" 0 "$(grep -c 'file=libdebuginfod' ld.out)"
DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$T_TMP/cache-ld LD_DEBUG=files \
	"$LOOPSCOPE" analyze -o ld.lsprof stripped.lsc >/dev/null 2>ld.out
t_grep "with it, a lookup loads it" 'file=libdebuginfod.*dynamically loaded' ld.out
t_ok "and its profile is the one with the debug file" cmp stripped-d.lsprof ld.lsprof
"$LOOPSCOPE" report --min-percent=0 stripped-d.lsprof >d.out
t_grep "stripped + debuginfod: work's loop at calls.c:16" "calls\.c:16) in work" d.out

# A server that is not there: the synthetic names, no failure.
DEBUGINFOD_URLS=http://127.0.0.1:1 DEBUGINFOD_CACHE_PATH=$T_TMP/cache-none \
	"$LOOPSCOPE" analyze -o none.lsprof stripped.lsc >/dev/null 2>&1
t_eq "no server at the URL: work is still $W" "$(row "$W" stripped.f)" \
	"$(funcs none.lsprof | awk -v n="$W" '$1 == n {print $2, $3, $4}')"
