# t0211-lines-cache.sh - the DWARF answers (source file, line, inlined
# functions) a module's lookups gave are kept in the build-id cache
# (DIR/<build-id>.lines, decoder/linecache.c) and answer the next
# analysis without the DWARF.  Oracles: addr2line -f -i on the binary for
# every instruction of inl's main (cold and warm), the cold lookups and
# profile themselves (a warm or damaged cache must change no byte), and an
# answer planted in the file (the warm lookup must be the file's).
. "$LSTOP/tests/lib.sh"
TD=$BUILD/testdata
SYMQ=$BUILD/tests/symq
export LOOPSCOPE_CACHE="$T_TMP/cache"
BIN=$TD/inl
"$LOOPSCOPE" record -q -o "$T_TMP/inl.lsc" -- "$BIN" >/dev/null
id=$(readelf -n "$BIN" | sed -n 's/.*Build ID: //p')
LC=$LOOPSCOPE_CACHE/$id.lines

# Every instruction of main, as vaddr and file offset.
objdump -d "$BIN" | awk '/<main>:$/ {w = 1; next} w && /^$/ {exit}
	w && /^ *[0-9a-f]+:/ {sub(":", "", $1); print $1}' >"$T_TMP/va"
offs=$(while read -r a; do t_v2off "$BIN" "$a"; done <"$T_TMP/va")
n=$(wc -l <"$T_TMP/va")
# addr2line's answers in symq's form: FILE:LINE<TAB>INLINED (innermost
# first, without the outermost function; "-": none).
while read -r a; do
	addr2line -f -i -e "$BIN" "0x$a" | sed 's/ (discriminator.*//; s|.*/||' >"$T_TMP/a2l"
	inl=$(awk 'NR % 2 == 1' "$T_TMP/a2l" | sed '$d' | paste -sd, -)
	printf '%s\t%s\n' "$(sed -n 2p "$T_TMP/a2l")" "${inl:--}"
done <"$T_TMP/va" >"$T_TMP/want"
t_ok "some of main's $n instructions are two inlined levels deep (addr2line)" \
	grep -q "sq,twice" "$T_TMP/want"

# shellcheck disable=SC2086
t_ok "lookups with an empty cache (the DWARF read)" "$SYMQ" -l "$T_TMP/inl.lsc" inl $offs
cut -f4,5 "$T_TMP/last.out" >"$T_TMP/cold"
cp "$T_TMP/last.out" "$T_TMP/cold.full"
t_eq "equal addr2line -i's lines and inlined chains" "$(cat "$T_TMP/want")" "$(cat "$T_TMP/cold")"
t_ok "and write $id.lines" test -s "$LC"
cp "$LC" "$T_TMP/good.lines"
# shellcheck disable=SC2086
t_ok "lookups from the cache" "$SYMQ" -l "$T_TMP/inl.lsc" inl $offs
t_eq "give the same answers" "$(cat "$T_TMP/cold.full")" "$(cat "$T_TMP/last.out")"
t_ok "and leave the file as it was (nothing new)" cmp "$LC" "$T_TMP/good.lines"

# The file answers: an answer planted in it (the first address looked up,
# its line made 54321, the checksum made again) is what a lookup gives.
plant() {	# plant PYTHON-EXPR-ON-b  (b: the file's bytes) < good > LC
	python3 - "$T_TMP/good.lines" "$LC" "$1" <<'PY'
import sys, zlib, struct
src, dst, expr = sys.argv[1:4]
b = bytearray(open(src, 'rb').read())
nstr = struct.unpack_from('<I', b, 100)[0]
e0 = 104 + nstr		# the first answer: vaddr, line, file, first, count
def recrc(x):
    x = bytearray(x[:-4])
    return x + struct.pack('<I', zlib.crc32(bytes(x)) & 0xffffffff)
b = eval(expr)
open(dst, 'wb').write(bytes(b))
PY
}
plant 'recrc(b[:e0 + 8] + struct.pack("<I", 54321) + b[e0 + 12:])'
first=$(echo "$offs" | head -1)
t_eq "a line planted in the file is the lookup's (the DWARF is not read)" \
	"$(head -1 "$T_TMP/cold" | sed 's/:[0-9]*\t/:54321\t/')" \
	"$("$SYMQ" -l "$T_TMP/inl.lsc" inl "$first" | cut -f4,5)"

# A damaged or stale file is ignored: the answers are the DWARF's, and the
# file is written again as the cold lookups wrote it.
damage() {	# damage NAME PYTHON-EXPR-ON-b
	plant "$2"
	# shellcheck disable=SC2086
	"$SYMQ" -l "$T_TMP/inl.lsc" inl $offs >"$T_TMP/d.out" 2>&1
	t_eq "$1: the same answers" "$(cat "$T_TMP/cold.full")" "$(cat "$T_TMP/d.out")"
	t_ok "$1: the file is written again" cmp "$LC" "$T_TMP/good.lines"
}
damage "a flipped byte" 'b[:120] + bytearray([b[120] ^ 0x10]) + b[121:]'
damage "a truncated file" 'b[:len(b) // 2]'
damage "an empty file" 'bytearray()'
damage "another format version (checksum valid)" 'recrc(b[:8] + struct.pack("<I", 99) + b[12:])'
damage "another build-id (checksum valid)" 'recrc(b[:16] + bytearray([b[16] ^ 1]) + b[17:])'
damage "another DWARF file length (checksum valid)" 'recrc(b[:80] + struct.pack("<Q", 7) + b[88:])'
damage "another DWARF file's CRC (checksum valid)" 'recrc(b[:88] + bytearray([b[88] ^ 1]) + b[89:])'
damage "an answer count past the end (checksum valid)" 'recrc(b[:92] + struct.pack("<I", 1 << 19) + b[96:])'
damage "a file name past the strings (checksum valid)" 'recrc(b[:e0 + 12] + struct.pack("<I", nstr + 5) + b[e0 + 16:])'
damage "an inlined chain past the references (checksum valid)" 'recrc(b[:e0 + 16] + struct.pack("<II", 0, 99) + b[e0 + 24:])'
damage "trailing garbage (checksum valid)" 'recrc(b + bytearray(12))'

# The same build-id with other DWARF (a debug file made with compressed
# sections): the file's answers are not taken for it.
mkdir -p "$T_TMP/s" "$T_TMP/dd/.build-id/$(echo "$id" | cut -c1-2)"
objcopy --strip-all "$BIN" "$T_TMP/s/inl"
objcopy --only-keep-debug --compress-debug-sections=zlib "$BIN" \
	"$T_TMP/dd/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
"$LOOPSCOPE" record -q -o "$T_TMP/s.lsc" -- "$T_TMP/s/inl" >/dev/null
plant 'recrc(b[:e0 + 8] + struct.pack("<I", 54321) + b[e0 + 12:])'
t_eq "a stripped build's debug file: its own DWARF's answer, not the planted one" \
	"$(head -1 "$T_TMP/cold")" \
	"$("$SYMQ" -l -d "$T_TMP/dd" "$T_TMP/s.lsc" inl "$first" | cut -f4,5)"

# Profiles: an analysis with the cache empty, one from it, and one
# without a cache directory are the same bytes (the program's loop and
# libc's, whose lines come from its debug file where one is installed).
export LOOPSCOPE_CACHE="$T_TMP/cache3"
t_ok "analyze with an empty cache" "$LOOPSCOPE" analyze -o "$T_TMP/p1.lsp" "$T_TMP/inl.lsc"
t_ok "analyze from the cache" "$LOOPSCOPE" analyze -o "$T_TMP/p2.lsp" "$T_TMP/inl.lsc"
t_ok "the same profile" cmp "$T_TMP/p1.lsp" "$T_TMP/p2.lsp"
t_ok "analyze without a cache directory" env LOOPSCOPE_CACHE=/dev/null/x \
	"$LOOPSCOPE" analyze -o "$T_TMP/p3.lsp" "$T_TMP/inl.lsc"
t_ok "the same profile" cmp "$T_TMP/p1.lsp" "$T_TMP/p3.lsp"
t_eq "the loop's line, from the cache (main's for loop in inl.c)" \
	"inl.c:$(grep -n 'for (long i = 0' "$LSTOP/testdata/inl.c" | cut -d: -f1)" \
	"$("$LOOPSCOPE" report --format=csv "$T_TMP/p2.lsp" 2>/dev/null |
	   awk -F, '$2 ~ /testdata\/inl$/ && $4 == "main" {print $5 ":" $6}' | sed 's|.*/||')"
