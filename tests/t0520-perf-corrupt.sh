#!/bin/sh
# Truncated and corrupted copies of a real perf.data (made here, in a temp
# dir): the reader and `loopscope import` must fail cleanly, naming the
# file, the record type and the offset; never crash (sanitizer reports
# exit with 99 here, so they are told apart from a clean error, 1).
. "$LSTOP/tests/lib.sh"
F=$T_REAL/quipper/perf.data.intel_pt-4.14
T=$BUILD/tests
export ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=exitcode=99:halt_on_error=1
cd "$T_TMP" || exit 1
if [ ! -r "$F" ]; then
	echo "ok 1 # SKIP no $F"
	exit 0
fi
size=$(wc -c <"$F")
"$T/lspd_dump" "$F" >good.out
# The data section starts at the file header's data.offset (bytes 40..47).
data=$(od -An -t u8 -j 40 -N 8 "$F" | tr -d ' ')
first=$(awk '$1 == "rec" { print $2; exit }' good.out)
t_eq "first record sits at data.offset ($data)" "$data" "$first"

# Cut inside the first MMAP record (offset and type from the parser's own
# good run, which t0500 checks against quipper).
mrec=$(awk '$1 == "rec" && $3 == 1 { print $2; exit }' good.out)
head -c $((mrec + 20)) "$F" >cut.data
"$T/lspd_dump" cut.data >/dev/null 2>cut.err
t_eq "cut inside an MMAP record: clean error" 1 $?
t_grep "names the file, the record type and offset $mrec" \
	"cut.data: MMAP record at offset $mrec" cut.err

# Cut inside the cpu 3 AUXTRACE payload.
arec=$(awk '$1 == "auxtrace" && $3 == 3 { print $7 - 48; exit }' good.out)
head -c $((arec + 48 + 1000)) "$F" >cutaux.data
"$T/lspd_dump" cutaux.data >/dev/null 2>cutaux.err
t_eq "cut inside an AUXTRACE payload: clean error" 1 $?
t_grep "names AUXTRACE and its offset $arec" "cutaux.data: AUXTRACE record at offset $arec" cutaux.err
"$LOOPSCOPE" import -q -o cut.lsc cutaux.data 2>imp.err
t_eq "loopscope import of it exits 1" 1 $?
t_grep "and says where" "AUXTRACE record at offset $arec" imp.err
t_ok "and leaves no bundle behind" test ! -e cut.lsc

# Header cut short.
head -c 50 "$F" >hdr.data
"$T/lspd_dump" hdr.data >/dev/null 2>hdr.err
t_eq "cut inside the file header: clean error" 1 $?
t_grep "names the file and an offset" "hdr.data: .* at offset" hdr.err

# A record whose size field is 0 (bytes 6-7 of the header): the first MMAP.
cp "$F" zero.data && chmod u+w zero.data
printf '\000\000' | dd of=zero.data bs=1 seek=$((mrec + 6)) conv=notrunc 2>/dev/null
"$T/lspd_dump" zero.data >/dev/null 2>zero.err
t_eq "record size 0: clean error" 1 $?
t_grep "names MMAP, offset and the size" "MMAP record at offset $mrec.*size 0" zero.err

# An AUXTRACE size far beyond the file (bytes 8..15 of the record).
cp "$F" huge.data && chmod u+w huge.data
printf '\377\377\377\377\377\377\000\000' | dd of=huge.data bs=1 seek=$((arec + 8)) conv=notrunc 2>/dev/null
"$T/lspd_dump" huge.data >/dev/null 2>huge.err
t_eq "huge AUXTRACE size: clean error" 1 $?
t_grep "names AUXTRACE at $arec" "AUXTRACE record at offset $arec" huge.err

# Every 1,999th cut and 64 single-byte corruptions: exit 0 or 1, never a
# crash or sanitizer report.
bad=0
n=0
cut=1
while [ "$cut" -lt "$size" ]; do
	head -c "$cut" "$F" >c.data
	"$T/lspd_dump" c.data >/dev/null 2>c.err
	rc=$?
	[ "$rc" -le 1 ] || { bad=$((bad + 1)); echo "# cut $cut: status $rc"; }
	n=$((n + 1))
	cut=$((cut + 1999))
done
t_eq "$n truncations: no crash" 0 "$bad"
bad=0
i=0
while [ "$i" -lt 64 ]; do
	pos=$(( (i * 7919 + 13) % (size < 40000 ? size : 40000) ))
	cp "$F" b.data && chmod u+w b.data
	printf '\377' | dd of=b.data bs=1 seek="$pos" conv=notrunc 2>/dev/null
	"$T/lspd_dump" b.data >/dev/null 2>b.err
	rc=$?
	[ "$rc" -le 1 ] || { bad=$((bad + 1)); echo "# byte $pos: status $rc"; }
	i=$((i + 1))
done
t_eq "64 corrupted bytes: no crash" 0 "$bad"
