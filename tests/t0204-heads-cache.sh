# t0204-heads-cache.sh - the block heads swept from each module's code are
# kept in the build-id cache (DIR/<build-id>.heads, decoder/heads.c): a
# decode with the cache gives exactly the static blocks and counts of one
# without (the oracle: the cold decode, which sweeps with capstone), and a
# damaged or stale cache file is ignored and rewritten.  Also: the batch
# block callback (sbdump -B) sees exactly what the per-block one sees.
. "$LSTOP/tests/lib.sh"
SB=$BUILD/tests/sbdump
export LOOPSCOPE_CACHE="$T_TMP/cache"
"$LOOPSCOPE" record -q -o "$T_TMP/c.lsc" -- "$TESTDATA/calls" >/dev/null
"$LOOPSCOPE" record -q -o "$T_TMP/t.lsc" -- "$TESTDATA/threads" >/dev/null

t_ok "a decode with an empty cache works" "$SB" "$T_TMP/c.lsc"
cp "$T_TMP/last.out" "$T_TMP/cold.sb"
n=$(ls "$LOOPSCOPE_CACHE" | grep -c '\.heads$')
t_ok "and writes a .heads file per executed module ($n)" test "$n" -ge 3
mkdir "$T_TMP/good"
cp "$LOOPSCOPE_CACHE"/*.heads "$T_TMP/good/"
t_ok "a decode from the cache works" "$SB" "$T_TMP/c.lsc"
t_eq "with the same static blocks and counts" "$(cat "$T_TMP/cold.sb")" "$(cat "$T_TMP/last.out")"
same() {	# every .heads file equals the good copy
	for f in "$T_TMP"/good/*.heads; do
		cmp -s "$f" "$LOOPSCOPE_CACHE/$(basename "$f")" || return 1
	done
}
t_ok "and leaves the cache files as they were" same
t_ok "the batch callback gives the same result" "$SB" -B "$T_TMP/c.lsc"
t_eq "(static blocks, counts, first exits)" "$(cat "$T_TMP/cold.sb")" "$(cat "$T_TMP/last.out")"
# (its own cache: the damage below is to the files of c.lsc's modules)
LOOPSCOPE_CACHE="$T_TMP/cache2" "$SB" -t "$T_TMP/t.lsc" >"$T_TMP/t1.sb"
t_ok "also on a threaded program (per thread)" env LOOPSCOPE_CACHE="$T_TMP/cache2" "$SB" -t -B "$T_TMP/t.lsc"
t_eq "(per-thread totals too)" "$(cat "$T_TMP/t1.sb")" "$(cat "$T_TMP/last.out")"

# Damage every cache file in one way, decode, compare, and check that the
# files were rewritten.
damage() {	# damage NAME PYTHON-EXPR-ON-b  (b: the file's bytes)
	for f in "$LOOPSCOPE_CACHE"/*.heads; do
		python3 - "$f" "$2" <<'PY'
import sys, zlib, struct
p, expr = sys.argv[1], sys.argv[2]
b = bytearray(open(p, 'rb').read())
def recrc(x):
    x = bytearray(x[:-4])
    return x + struct.pack('<I', zlib.crc32(bytes(x)) & 0xffffffff)
b = eval(expr)
open(p, 'wb').write(bytes(b))
PY
	done
	t_ok "$1: the decode still works" "$SB" "$T_TMP/c.lsc"
	t_eq "$1: same static blocks and counts" "$(cat "$T_TMP/cold.sb")" "$(cat "$T_TMP/last.out")"
	t_ok "$1: the cache files are rebuilt" same
}
damage "a flipped byte" 'b[:100] + bytearray([b[100] ^ 0x10]) + b[101:]'
damage "a truncated file" 'b[:len(b) // 2]'
damage "an empty file" 'bytearray()'
damage "another format version (checksum valid)" 'recrc(b[:8] + struct.pack("<I", 99) + b[12:])'
damage "another capstone version (checksum valid)" 'recrc(b[:12] + struct.pack("<I", 0x10009) + b[16:])'
damage "another build-id (checksum valid)" 'recrc(b[:20] + bytearray([b[20] ^ 1]) + b[21:])'
damage "another module size (checksum valid)" 'recrc(b[:52] + struct.pack("<Q", 7) + b[60:])'
damage "a nonzero pad after the header (checksum valid)" 'recrc(b[:68] + bytearray([1]) + b[69:])'
damage "a range count past the end (checksum valid)" 'recrc(b[:60] + struct.pack("<Q", 1 << 40) + b[68:])'
damage "a target count past the end (checksum valid)" 'recrc(b[:88] + struct.pack("<Q", 1 << 40) + b[96:])'
damage "trailing garbage (checksum valid)" 'recrc(b + bytearray(12))'

# Without a usable cache directory the decode sweeps every time.
LOOPSCOPE_CACHE=/dev/null/x "$SB" "$T_TMP/c.lsc" >"$T_TMP/nocache.sb" 2>&1
t_eq "no cache directory: the same result" "$(cat "$T_TMP/cold.sb")" "$(cat "$T_TMP/nocache.sb")"

# The module files of the cache (DIR/<build-id>, what libipt reads) are
# taken only with the bundle's bytes: one damaged in its code (same size)
# is written again, and libipt's decode (the reference path, every chunk)
# gives the cold decode's blocks.
LOOPSCOPE_REFERENCE=1 "$SB" "$T_TMP/c.lsc" >"$T_TMP/ref.sb"
t_eq "the reference decode gives the cold decode's blocks" "$(cat "$T_TMP/cold.sb")" "$(cat "$T_TMP/ref.sb")"
id=$(readelf -n "$TESTDATA/calls" | sed -n 's/.*Build ID: //p')
mf=$LOOPSCOPE_CACHE/$id
cp "$mf" "$T_TMP/good.mod"
off=$(readelf -SW "$TESTDATA/calls" | awk '$2 == ".text" {print $5}')
python3 - "$mf" "$((0x$off))" <<'PY'
import sys
p, o = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, 'rb').read())
for i in range(o, o + 64):
    b[i] = 0xcc
open(p, 'wb').write(bytes(b))
PY
t_ok "(the module file damaged: its size kept)" test "$(stat -c %s "$mf")" = "$(stat -c %s "$T_TMP/good.mod")"
LOOPSCOPE_REFERENCE=1 "$SB" "$T_TMP/c.lsc" >"$T_TMP/ref2.sb"
t_eq "a damaged module file: the same blocks" "$(cat "$T_TMP/cold.sb")" "$(cat "$T_TMP/ref2.sb")"
t_ok "and the module file is written again" cmp "$mf" "$T_TMP/good.mod"
