# t0210-symbols.sh - functions, PLT entries, source lines and inlined
# functions of recorded modules (decoder/symbols.c through tests/tools/symq.c).
# Oracles: binutils run here on the same binaries -- nm for function
# starts, objdump -d for PLT entries and instruction addresses, readelf -l
# for the offset <-> vaddr mapping, addr2line (-i -f) for lines and
# inlined chains.
. "$LSTOP/tests/lib.sh"
TD=$BUILD/testdata
SYMQ=$BUILD/tests/symq

# symq's answer for one vaddr of BINARY in module MODULE of BUNDLE.
q() {	# q BUNDLE MODULE BINARY HEX_VADDR [symq options]
	qb=$1 qm=$2 qbin=$3 qv=$4
	shift 4
	"$SYMQ" "$@" "$qb" "$qm" "$(t_v2off "$qbin" "$qv")"
}

BIN=$TD/calls
"$LOOPSCOPE" record -q -o "$T_TMP/calls.lsc" -- "$BIN" >/dev/null
t_ok "record calls" test -s "$T_TMP/calls.lsc"

for f in main step work; do
	v=$(nm "$BIN" | awk -v f="$f" '$3 == f {print $1}')
	t_eq "calls: the start of $f (nm: $v) is $f+0x0" "$f+0x0" \
		"$(q "$T_TMP/calls.lsc" calls "$BIN" "$v" | cut -f2)"
	t_eq "calls: $f's vaddr comes back from its file offset" \
		"$(printf '%x' $((0x$v)))" "$(q "$T_TMP/calls.lsc" calls "$BIN" "$v" | cut -f3)"
done
# Two bytes into work is inside work.
v=$(nm "$BIN" | awk '$3 == "work" {print $1}')
t_eq "calls: work+2 is work+0x2" "work+0x2" \
	"$(q "$T_TMP/calls.lsc" calls "$BIN" "$(printf '%x' $((0x$v + 2)))" | cut -f2)"

# PLT entries as objdump names them: printf@plt (.plt) and
# __cxa_finalize@plt (.plt.got).
for p in printf __cxa_finalize; do
	v=$(objdump -d "$BIN" | sed -n "s/^0*\([0-9a-f]*\) <$p@plt>:\$/\1/p")
	t_eq "calls: objdump's <$p@plt> at $v is $p@plt+0x0" "$p@plt+0x0" \
		"$(q "$T_TMP/calls.lsc" calls "$BIN" "$v" | cut -f2)"
done

# Lines: every instruction of work() against addr2line; and the one of
# `acc += i;` in work (its second occurrence in calls.c) by name.
# work_lines BUNDLE RECORDED_BINARY: symq's line for each instruction of
# work in $BIN (the uncompressed build), against addr2line's there; sets
# n (instructions) and bad (lines that differ).
work_lines() {
	bad=0
	n=0
	for a in $(objdump -d "$BIN" | awk '/<work>:$/ {w = 1; next} w && /^$/ {exit}
			w && /^ *[0-9a-f]+:/ {sub(":", "", $1); print $1}'); do
		want=$(addr2line -e "$BIN" "0x$a" | sed 's/ (discriminator.*//; s|.*/||')
		got=$(q "$1" calls "$2" "$a" -l | cut -f4)
		n=$((n + 1))
		if [ "$want" != "$got" ]; then
			bad=$((bad + 1))
			echo "# work 0x$a: addr2line $want, symq $got"
		fi
	done
}
work_lines "$T_TMP/calls.lsc" "$BIN"
t_eq "calls: lines of all $n instructions of work equal addr2line's" 0 "$bad"
line=$(grep -n 'acc += i;' "$LSTOP/testdata/calls.c" | sed -n '2s/:.*//p')
a=$(objdump -dl "$BIN" | awk -v l="calls.c:$line" '/<work>:$/ {w = 1}
	w && index($0, l) {f = 1; next} f && /^ *[0-9a-f]+:/ {sub(":", "", $1); print $1; exit}')
t_eq "calls: addr2line puts 0x$a at calls.c:$line (acc += i; in work)" \
	"calls.c:$line" "$(addr2line -e "$BIN" "0x$a" | sed 's/ (discriminator.*//; s|.*/||')"
t_eq "calls: symq puts 0x$a at calls.c:$line in work" \
	"work	calls.c:$line" \
	"$(q "$T_TMP/calls.lsc" calls "$BIN" "$a" -l | awk -F'\t' '{sub(/\+.*/, "", $2); print $2 "\t" $4}')"

# The same with the debug sections compressed (objcopy
# --compress-debug-sections: SHF_COMPRESSED, which libdw decompresses
# through libelf, writing into the image: the module is read from a copy,
# where an uncompressed one is read where the bundle holds it).
mkdir -p "$T_TMP/z"
objcopy --compress-debug-sections=zlib "$TD/calls" "$T_TMP/z/calls"
t_ok "calls, compressed: readelf -S flags .debug_info C (compressed)" \
	sh -c "readelf -SW '$T_TMP/z/calls' | grep -q ' \.debug_info .* C '"
"$LOOPSCOPE" record -q -o "$T_TMP/z.lsc" -- "$T_TMP/z/calls" >/dev/null
work_lines "$T_TMP/z.lsc" "$T_TMP/z/calls"
t_eq "calls, compressed: lines of all $n instructions of work equal addr2line's on the uncompressed build" 0 "$bad"
# Lent as analyze lends the decoder's bytes: read in place when nothing
# is compressed, else copied (libelf writes the decompressed sections'
# headers into the image); the lines as above either way.
wa=$(objdump -d "$BIN" | awk '/<work>:$/ {w = 1; next} w && /^ *[0-9a-f]+:/ {sub(":", "", $1); print $1; exit}')
# (each in a cache of lines of its own, empty: the lines come from the
# DWARF, not from the answers an earlier lookup of the build-id kept)
for z in calls.lsc z.lsc; do
	t_eq "$z, its bytes lent: work's first line as addr2line's" \
		"$(addr2line -e "$BIN" "0x$wa" | sed 's/ (discriminator.*//; s|.*/||')" \
		"$(export LOOPSCOPE_CACHE="$T_TMP/c1-$z"; q "$T_TMP/$z" calls "$BIN" "$wa" -l -L | cut -f4)"
	t_ok "$z: symq -L exits 0 (the lent bytes not written)" \
		sh -c "LOOPSCOPE_CACHE='$T_TMP/c2-$z' '$SYMQ' -l -L '$T_TMP/$z' calls $(t_v2off "$BIN" "$wa")"
done
t_eq "calls, compressed: work is found" "work+0x0" \
	"$(q "$T_TMP/z.lsc" calls "$T_TMP/z/calls" "$(nm "$BIN" | awk '$3 == "work" {print $1}')" | cut -f2)"

# Inlined chains: inl.c inlines sq into twice into main.  For every
# instruction of main, the chain addr2line -i -f prints (innermost first,
# without the outermost main) is symq's, and its first line is symq's line.
BIN=$TD/inl
"$LOOPSCOPE" record -q -o "$T_TMP/inl.lsc" -- "$BIN" >/dev/null
bad=0
n=0
deep=0
for a in $(objdump -d "$BIN" | awk '/<main>:$/ {w = 1; next} w && /^$/ {exit}
		w && /^ *[0-9a-f]+:/ {sub(":", "", $1); print $1}'); do
	addr2line -f -i -e "$BIN" "0x$a" | sed 's/ (discriminator.*//; s|.*/||' >"$T_TMP/a2l"
	want_line=$(sed -n 2p "$T_TMP/a2l")
	want_inl=$(awk 'NR % 2 == 1' "$T_TMP/a2l" | sed '$d' | paste -sd, -)
	[ -n "$want_inl" ] || want_inl=-
	got=$(q "$T_TMP/inl.lsc" inl "$BIN" "$a" -l)
	got_line=$(echo "$got" | cut -f4)
	got_inl=$(echo "$got" | cut -f5)
	n=$((n + 1))
	[ "$want_inl" = "sq,twice" ] && deep=$((deep + 1))
	if [ "$want_line $want_inl" != "$got_line $got_inl" ] ||
	   [ "$(echo "$got" | cut -f2 | sed 's/+.*//')" != main ]; then
		bad=$((bad + 1))
		echo "# inl 0x$a: addr2line $want_line $want_inl, symq $got_line $got_inl"
	fi
done
t_eq "inl: lines and inlined chains of all $n instructions of main equal addr2line -i's" 0 "$bad"
t_ok "inl: some addresses are two inlined levels deep (sq in twice)" test "$deep" -gt 0

# Reference-only modules (--no-embed): read from the recorded path, or
# DEBUG_DIR/<path>, only when the build-id matches.
mkdir -p "$T_TMP/bin"
cp "$TD/calls" "$T_TMP/bin/calls"
BIN=$T_TMP/bin/calls
"$LOOPSCOPE" record -q --no-embed -o "$T_TMP/ref.lsc" -- "$BIN" >/dev/null
v=$(nm "$BIN" | awk '$3 == "work" {print $1}')
t_eq "--no-embed: work found through the recorded path" "work+0x0" \
	"$(q "$T_TMP/ref.lsc" calls "$BIN" "$v" | cut -f2)"
mkdir -p "$T_TMP/dbg$T_TMP/bin"
mv "$BIN" "$T_TMP/dbg$BIN"
cp "$TD/spin" "$BIN"
t_fail "--no-embed: another build at the recorded path is refused" \
	"$SYMQ" "$T_TMP/ref.lsc" calls "$(t_v2off "$T_TMP/dbg$BIN" "$v")"
t_grep "the message names the file found and the recorded module" \
	"build-id mismatch: the trace ran '$BIN' with build-id [0-9a-f]*, but '$BIN' has build-id [0-9a-f]*" "$T_TMP/last.err"
t_eq "--no-embed: DEBUG_DIR/<path> with the right build-id is taken" "work+0x0" \
	"$("$SYMQ" -d "$T_TMP/dbg" "$T_TMP/ref.lsc" calls "$(t_v2off "$T_TMP/dbg$BIN" "$v")" | cut -f2)"
rm -f "$BIN"
t_fail "--no-embed: a module found nowhere fails" \
	"$SYMQ" "$T_TMP/ref.lsc" calls 1000
t_grep "and says so" "not in the bundle" "$T_TMP/last.err"

# Nested and aliased symbols (syms.c): the innermost sized symbol, then
# global over weak over local, then the first name.  Addresses from nm.
BIN=$TD/syms
"$LOOPSCOPE" record -q -o "$T_TMP/syms.lsc" -- "$BIN" >/dev/null
addr() { nm "$BIN" | awk -v f="$1" '$3 == f {print $1}'; }
plus() { printf '%x' $((0x$1 + $2)); }
sq() { q "$T_TMP/syms.lsc" syms "$BIN" "$1" | cut -f2; }
t_eq "syms: outer+0 is outer" "outer+0x0" "$(sq "$(addr outer)")"
t_eq "syms: inner (outer+8) is inner, not outer+0x8" "inner+0x0" "$(sq "$(addr inner)")"
t_eq "syms: inner+7 is inner+0x7" "inner+0x7" "$(sq "$(plus "$(addr inner)" 7)")"
t_eq "syms: past inner's 8 bytes is outer again" "outer+0x10" "$(sq "$(plus "$(addr outer)" 16)")"
t_eq "syms: global b_glob wins over weak a_weak and local a_loc" "b_glob+0x0" "$(sq "$(addr a_loc)")"
t_eq "syms: of two globals, the first name (c_two, not d_two)" "c_two+0x3" "$(sq "$(plus "$(addr d_two)" 3)")"

# Separate debug info of an embedded stripped module (objcopy
# --only-keep-debug / --strip-all --add-gnu-debuglink): functions and lines
# come from the debug file, found through .gnu_debuglink next to the
# binary or through DEBUG_DIR/.build-id/xx/rest.debug.
mkdir -p "$T_TMP/s"
BIN=$T_TMP/s/calls
objcopy --only-keep-debug "$TD/calls" "$T_TMP/s/calls.debug"
objcopy --strip-all --add-gnu-debuglink="$T_TMP/s/calls.debug" "$TD/calls" "$BIN"
"$LOOPSCOPE" record -q -o "$T_TMP/s.lsc" -- "$BIN" >/dev/null
v=$(nm "$TD/calls" | awk '$3 == "work" {print $1}')
t_eq "stripped + debuglink: work and its line from calls.debug" \
	"work+0x0	$(addr2line -e "$TD/calls" "0x$v" | sed 's|.*/||')" \
	"$(q "$T_TMP/s.lsc" calls "$BIN" "$v" -l | cut -f2,4)"
id=$(readelf -n "$BIN" | sed -n 's/.*Build ID: //p')
mkdir -p "$T_TMP/dd/.build-id/$(echo "$id" | cut -c1-2)"
mv "$T_TMP/s/calls.debug" "$T_TMP/dd/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
# Without it, work has no symbol; main calls it directly, so the call's
# target names it by its address, nm's v without the leading zeros.
t_eq "stripped, no debug file: work named by its entry, calls+0x$(echo "$v" | sed 's/^0*//')" \
	"calls+0x$(echo "$v" | sed 's/^0*//')+0x0	??:0" \
	"$(q "$T_TMP/s.lsc" calls "$BIN" "$v" -l | cut -f2,4)"
t_eq "stripped + DEBUG_DIR/.build-id: work and its line" \
	"work+0x0	$(addr2line -e "$TD/calls" "0x$v" | sed 's|.*/||')" \
	"$(q "$T_TMP/s.lsc" calls "$BIN" "$v" -l -d "$T_TMP/dd" | cut -f2,4)"

# libc (embedded, stripped): printf from .dynsym (nm -D), and when the
# distribution's debug file is installed (/usr/lib/debug/.build-id), its
# line as addr2line reads it from that file.
LIBC=$(ldd "$TD/calls" | awk '/libc\.so/ {print $3}')
v=$(nm -D "$LIBC" | awk '$3 ~ /^printf@@/ {print $1}')
t_eq "libc: printf (nm -D: $v) is printf+0x0" "printf+0x0" \
	"$(q "$T_TMP/calls.lsc" libc.so.6 "$LIBC" "$v" | cut -f2)"
id=$(readelf -n "$LIBC" | sed -n 's/.*Build ID: //p')
dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
if [ -e "$dbg" ]; then
	t_eq "libc: printf's line from $dbg equals addr2line's" \
		"$(addr2line -e "$dbg" "0x$v" | sed 's/ (discriminator.*//; s|.*/||')" \
		"$(q "$T_TMP/calls.lsc" libc.so.6 "$LIBC" "$v" -l | cut -f4)"
else
	echo "ok $((t_n += 1)) - # SKIP no libc debug file $dbg"
fi
