#!/bin/sh
# t0220-decode-readahead: chunks read and decompressed on threads of
# their own (decoder/prefetch.c: the decode's at --jobs 2 and more, the
# open's scan's on up to 4) give the decode the same bytes as reading
# them on the decoding thread.
#
# Where the expected numbers come from:
#  - N, the chunks of the stream: `info`'s stream line (the bundle's index,
#    no decoding).  By default the open's scan keeps all N (30 KB, far
#    below the 32 MiB it may keep) for every decode, which reads none
#    ahead: analyze's two passes, decoding twice (LOOPSCOPE_TAPE_MAX=0),
#    read N chunks in all, the scan's (loopdump's chunk_reads), against 3N
#    with none kept.  With LOOPSCOPE_KEEP_CHUNKS=0 none is kept: with
#    --jobs=1 no chunk is read ahead; with 2 or 3 every chunk of the
#    stream is (the thread reads from chunk 0 on); a stream of one chunk
#    starts no thread (0).
#  - the decode's counts: those of --jobs=1 and of the reference path
#    (LOOPSCOPE_REFERENCE=1, libipt on every chunk; t0201/t0208 check it
#    against libipt's own decoders and native counts), line for line.
#  - the damaged bundle: one PT chunk's payload has one byte flipped (the
#    python edit below), so its checksum fails when it is read: exactly 1
#    decode loss, on the thread's read and then again on the decoding
#    thread's own read, which gives the error; the profiles of --jobs=1
#    and --jobs=2 are the same bytes.
#  - the heads the bundle keeps (PTHEADS, decoder/ptheads.c): the checks
#    above are of the open's scan, which LOOPSCOPE_PTHEADS=0 asks for; at
#    the end, by default, the open scans nothing and keeps no chunk:
#    --jobs=1 reads every chunk as it decodes it (none ahead), --jobs=2
#    all N ahead, and analyze's two decodes read 2N; at two jobs analyze
#    asks the open to read and keep them all the same (N reads).
. "$LSTOP/tests/lib.sh"
cd "$T_TMP" || exit 1
TD=$(readlink -f "$TESTDATA")

t_need_recorder

# spin 100 1000 in 4 KB chunks: 8 of them (30 KB of PT).
"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 4096 -o spin.lsc -- \
	"$TD/spin" 100 1000 >/dev/null 2>&1
t_eq "record spin in small chunks" 0 $?
n=$("$LOOPSCOPE" info spin.lsc | awk '$2 == "thread" { print $4 }')
t_ok "the stream has several chunks ($n)" test "${n:-0}" -ge 4

# (the scan's behaviour, whatever the bundle keeps: see the end)
export LOOPSCOPE_PTHEADS=0
ahead() { sed -n 's/.*, \([0-9]*\) read ahead$/\1/p' "$1"; }
kept() { sed -n 's/.*, \([0-9]*\) kept from the open.s scan, .*/\1/p' "$1"; }
# Kept by the open's scan (the default; LOOPSCOPE_KEEP_CHUNKS=1 too):
# nothing left to read ahead.
export LOOPSCOPE_KEEP_CHUNKS=1
for j in 1 2; do
	"$LOOPSCOPE" info --decode --jobs=$j spin.lsc >k$j.out 2>k$j.err
	t_eq "info --decode --jobs=$j, chunks kept" 0 $?
	t_eq "--jobs=$j: every chunk kept from the open's scan" "$n" "$(kept k$j.out)"
	t_eq "--jobs=$j: none read ahead" 0 "$(ahead k$j.out)"
done
LOOPSCOPE_REFERENCE=1 "$LOOPSCOPE" info --decode -j 2 spin.lsc >kref.out 2>&1
t_eq "the reference path takes the kept chunks too" "$n" "$(kept kref.out)"
"$LOOPSCOPE" info --format=json --decode -j2 spin.lsc >k2.json
t_grep "JSON: kept_chunks" "\"kept_chunks\": $n,\$" k2.json
unset LOOPSCOPE_KEEP_CHUNKS
"$LOOPSCOPE" info --decode spin.lsc >kd.out 2>&1
t_eq "kept by default" "$n" "$(kept kd.out)"
# Both passes of an analysis take them: each chunk decompressed once.
reads() { sed -n 's/^tape_blocks .* chunk_reads \([0-9]*\).*$/\1/p' "$1"; }
for k in 1 0; do
	LOOPSCOPE_KEEP_CHUNKS=$k LOOPSCOPE_TAPE_MAX=0 "$BUILD/tests/loopdump" -j 1 spin.lsc \
		>ld$k.out 2>ld$k.err
	t_eq "loopdump, LOOPSCOPE_KEEP_CHUNKS=$k" 0 $?
done
t_eq "two decodes of kept chunks read each once" "$n" "$(reads ld1.err)"
t_eq "not kept: read by the scan and each decode" $((3 * n)) "$(reads ld0.err)"
t_ok "kept or not: the same profile" cmp -s ld1.out ld0.out

# The open's scan reads its chunks ahead on as many threads as it has
# jobs, at most 4 (decoder/open.c) and at most one a chunk, each thread
# every so many chunks: every one of the n chunks comes from them from
# two jobs on (loopdump's scan_ahead and scan_threads), and the profile
# is the same.
scan() { sed -n 's/^scan_ahead \([0-9]*\) scan_threads \([0-9]*\)$/\1 \2/p' "$1"; }
t_eq "one job: the scan reads its chunks itself" "0 0" "$(scan ld1.err)"
"$LOOPSCOPE" analyze -q -j 1 -o s1.lsprof spin.lsc
for j in 2 3 8; do
	LOOPSCOPE_TAPE_MAX=0 "$BUILD/tests/loopdump" -j $j spin.lsc >lds$j.out 2>lds$j.err
	t_eq "loopdump -j $j" 0 $?
	"$LOOPSCOPE" analyze -q -j $j -o s$j.lsprof spin.lsc
	t_ok "analyze -j $j: the same profile as -j 1's" cmp -s s1.lsprof s$j.lsprof
done
t_eq "-j 2: the scan's chunks read ahead on 2 threads" "$n 2" "$(scan lds2.err)"
t_eq "-j 3: on 3 threads" "$n 3" "$(scan lds3.err)"
t_eq "-j 8: on 4 threads at most" "$n 4" "$(scan lds8.err)"
# ... which scan each chunk they read for its heads too (one process's
# stream), the calling thread merging their sets: every chunk's from two
# jobs on, none on one, and the profiles above the same.
heads() { sed -n 's/^scan_heads \([0-9]*\)$/\1/p' "$1"; }
t_eq "one job: the scan finds the heads itself" 0 "$(heads ld1.err)"
t_eq "-j 2: every chunk's heads scanned by the threads" "$n" "$(heads lds2.err)"
t_eq "-j 8: every chunk's heads scanned by the threads" "$n" "$(heads lds8.err)"
"$LOOPSCOPE" record -q --psb-period 512 --chunk-size 16384 -o two.lsc -- \
	"$TD/spin" 50 1000 >/dev/null 2>&1
t_eq "spin in two chunks" 2 "$("$LOOPSCOPE" info two.lsc | awk '$2 == "thread" { print $4 }')"
LOOPSCOPE_TAPE_MAX=0 "$BUILD/tests/loopdump" -j 8 two.lsc >two8.out 2>two8.err
t_eq "two chunks, -j 8: one thread a chunk" "2 2" "$(scan two8.err)"
"$LOOPSCOPE" analyze -q -j 1 -o two1.lsprof two.lsc
"$LOOPSCOPE" analyze -q -j 8 -o two8.lsprof two.lsc
t_ok "two chunks: the same profile with -j 8 and -j 1" cmp -s two1.lsprof two8.lsprof

# Not kept (LOOPSCOPE_KEEP_CHUNKS=0): read twice, the decode's read ahead
# on a thread.
export LOOPSCOPE_KEEP_CHUNKS=0
for j in 1 2 3; do
	"$LOOPSCOPE" info --decode --jobs=$j spin.lsc >j$j.out 2>j$j.err
	t_eq "info --decode --jobs=$j" 0 $?
done
LOOPSCOPE_REFERENCE=1 "$LOOPSCOPE" info --decode -j 2 spin.lsc >ref.out 2>&1
t_eq "info --decode on the reference path, -j 2" 0 $?
t_eq "LOOPSCOPE_KEEP_CHUNKS=0: none is kept" 0 "$(kept j2.out)"
t_eq "--jobs=1 reads no chunk ahead" 0 "$(ahead j1.out)"
t_eq "--jobs=2 reads every chunk ahead" "$n" "$(ahead j2.out)"
t_eq "--jobs=3 reads every chunk ahead" "$n" "$(ahead j3.out)"
t_eq "the reference path reads them ahead too" "$n" "$(ahead ref.out)"
sed '/^  chunks: /d' j1.out >j1.cmp
for f in j2 j3 ref k1 k2 kref; do
	sed '/^  chunks: /d' $f.out >$f.cmp
	t_ok "$f: every count as --jobs=1's" cmp -s j1.cmp $f.cmp
done
t_ok "no message" test ! -s j2.err
"$LOOPSCOPE" info --format=json --decode -j2 spin.lsc >j2.json
t_grep "JSON: read_ahead_chunks" "\"read_ahead_chunks\": $n,\$" j2.json
t_grep "JSON: bundle_heads (the scan asked for)" "\"bundle_heads\": 0\$" j2.json

# One chunk: nothing to read ahead of the decode.
"$LOOPSCOPE" record -q -o one.lsc -- "$TD/nested" >/dev/null 2>&1
t_eq "nested in one chunk" 1 "$("$LOOPSCOPE" info one.lsc | awk '$2 == "thread" { print $4 }')"
"$LOOPSCOPE" info --decode -j2 one.lsc >one.out 2>&1
t_eq "a single chunk starts no thread" 0 "$(ahead one.out)"

# analyze passes its --jobs on (from 3 jobs the chunks are read ahead):
# the same profile either way.
"$LOOPSCOPE" analyze -q -j 1 -o a1.lsprof spin.lsc 2>a1.err
t_eq "analyze -j 1" 0 $?
"$LOOPSCOPE" analyze -q -j 3 -o a2.lsprof spin.lsc 2>a2.err
t_eq "analyze -j 3" 0 $?
t_ok "analyze: the same profile with -j 1 and -j 3" cmp -s a1.lsprof a2.lsprof

# A chunk that does not read: the thread's read fails, the decoding
# thread reads it again and reports it.
python3 - <<'EOF'
import struct
b = bytearray(open('spin.lsc', 'rb').read())
pos, k = b.find(b'LSCS'), 0
while pos >= 0 and pos + 48 <= len(b) and b[pos:pos + 4] == b'LSCS':
    typ = struct.unpack_from('<H', b, pos + 4)[0]
    stored = struct.unpack_from('<Q', b, pos + 24)[0]
    if typ == 3:            # PTCHUNK
        k += 1
        if k == 4:
            b[pos + 48 + stored // 2] ^= 0xff
    pos += 48 + stored
open('bad.lsc', 'wb').write(b)
EOF
t_ok "bad.lsc differs from spin.lsc" test "$(cmp bad.lsc spin.lsc | wc -l)" = 1
"$LOOPSCOPE" analyze -q -j 1 -o b1.lsprof bad.lsc 2>b1.err
t_eq "damaged: analyze -j 1" 0 $?
"$LOOPSCOPE" analyze -q -j 3 -o b2.lsprof bad.lsc 2>b2.err
t_eq "damaged: analyze -j 3" 0 $?
# (two jobs: the decode reads its chunks itself, the open's scan on two
# threads, one of which meets the damaged chunk)
"$LOOPSCOPE" analyze -q -j 2 -o bj2.lsprof bad.lsc 2>bj2.err
t_eq "damaged: analyze -j 2" 0 $?
t_ok "damaged: the same profile with -j 1 and -j 2" cmp -s b1.lsprof bj2.lsprof
t_ok "damaged: the same messages with -j 1 and -j 2" cmp -s b1.err bj2.err
t_grep "damaged: 1 decode loss" "': 1 decode losses" b2.err
t_ok "damaged: the same profile with -j 1 and -j 3" cmp -s b1.lsprof b2.lsprof
t_ok "damaged: the same messages" cmp -s b1.err b2.err
t_ok "damaged: not the clean profile" test "$(cmp a2.lsprof b2.lsprof | wc -l)" = 1

# The same with the chunks kept from the open's scan
# (LOOPSCOPE_KEEP_CHUNKS=1, the default): its read of the damaged chunk
# fails, so that chunk and those after it are read again by the decode,
# which reports it; the same profiles, messages.
export LOOPSCOPE_KEEP_CHUNKS=1
"$LOOPSCOPE" analyze -q -j 1 -o ka1.lsprof spin.lsc 2>ka1.err
t_ok "kept: the same profile as without" cmp -s a1.lsprof ka1.lsprof
for j in 1 3; do
	"$LOOPSCOPE" analyze -q -j $j -o kb$j.lsprof bad.lsc 2>kb$j.err
	t_eq "kept, damaged: analyze -j $j" 0 $?
	t_ok "kept, damaged: the profile as without, -j $j" cmp -s b1.lsprof kb$j.lsprof
	t_ok "kept, damaged: the messages as without, -j $j" cmp -s b1.err kb$j.err
done

# The heads the bundle keeps (the default): no scan, nothing kept; the
# decode reads each chunk as it goes, ahead of it at two jobs.
unset LOOPSCOPE_PTHEADS
for j in 1 2; do
	"$LOOPSCOPE" info --decode --jobs=$j spin.lsc >h$j.out 2>h$j.err
	t_eq "bundle's heads, --jobs=$j: none kept" 0 "$(kept h$j.out)"
	t_grep "bundle's heads, --jobs=$j: taken" "the bundle's for 1 of 1 streams" h$j.out
	sed '/^  chunks: /d; /^  heads of the packets: /d' h$j.out >h$j.cmp
	sed '/^  chunks: /d; /^  heads of the packets: /d' k1.out >k1.cmp
	t_ok "bundle's heads, --jobs=$j: the counts of the scan's" cmp -s k1.cmp h$j.cmp
done
t_eq "bundle's heads, --jobs=1: none read ahead" 0 "$(ahead h1.out)"
"$LOOPSCOPE" info --format=json --decode -j2 spin.lsc >h2.json
t_grep "bundle's heads: JSON bundle_heads" "\"bundle_heads\": 1\$" h2.json
t_eq "bundle's heads, --jobs=2: every chunk read ahead" "$n" "$(ahead h2.out)"
LOOPSCOPE_KEEP_CHUNKS=1 LOOPSCOPE_TAPE_MAX=0 "$BUILD/tests/loopdump" -j 1 spin.lsc >hd1.out 2>hd1.err
t_eq "bundle's heads: two decodes read each chunk twice" $((2 * n)) "$(reads hd1.err)"
t_ok "bundle's heads: the same profile" cmp -s ld1.out hd1.out
# (two jobs: analyze asks the open to read and keep the chunks all the
# same, lsd_opts.keep_chunks, so that its second pass's pieces read none)
LOOPSCOPE_KEEP_CHUNKS=1 LOOPSCOPE_TAPE_MAX=0 "$BUILD/tests/loopdump" -j 2 spin.lsc >hd2.out 2>hd2.err
t_eq "bundle's heads, two jobs: each chunk read once, at the open" "$n" "$(reads hd2.err)"
LOOPSCOPE_PTHEADS=0 LOOPSCOPE_KEEP_CHUNKS=1 LOOPSCOPE_TAPE_MAX=0 "$BUILD/tests/loopdump" -j 2 spin.lsc \
	>sd2.out 2>sd2.err
# (sorted: loopdump prints the rows as the joiner met them, which at two
# jobs depends on where the pipe's pieces fell; see t0659)
sort sd2.out >sd2.sorted
sort hd2.out >hd2.sorted
t_ok "bundle's heads, two jobs: the same rows as the scan's" cmp -s sd2.sorted hd2.sorted
