#!/bin/sh
# bench/deps.sh - what `loopscope deps` costs on a numeric kernel with
# about 10^8 memory accesses: the 5-point stencil of bench/kernels/
# (-O2, 384 x 384, SWEEPS sweeps; 5 accesses per inner iteration, so
# 137 sweeps make 1.0e8).  Side by side: the native run, `valgrind
# --tool=none`, `loopscope record` without and with --mem (wall seconds,
# and the slowdown of --mem over record), the bytes per recorded access
# (encoded, and in the compressed bundle), then `loopscope deps`: CPU
# seconds, accesses per second and peak RSS, with history compaction (the
# default) and without (--compact=0), and whether the two results are
# identical.  For context, Intel Advisor documents its dependencies
# analysis at 5x to 100x the native run (Intel Advisor user guide,
# "Minimize Analysis Overhead"); loopscope's overhead is the
# recording plus an offline pass.
# Usage: sh bench/deps.sh [BUILD [SWEEPS]]   (after `make`)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
SWEEPS=${2:-137}
LS=$B/loopscope
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v valgrind >/dev/null || { echo "no valgrind" >&2; exit 1; }
export LOOPSCOPE_CACHE="$tmp/cache"
cc -O2 -g -o "$tmp/stencil" "$top/bench/kernels/stencil.c" || exit 1

# wall CMD...: elapsed seconds of one run, output discarded.
wall() {
	s=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	e=$(date +%s.%N)
	echo "$s $e" | awk '{ printf "%.2f", $2 - $1 }'
}

n=$(wall "$tmp/stencil" 384 "$SWEEPS")
z=$(wall valgrind --tool=none "$tmp/stencil" 384 "$SWEEPS")
r=$(wall "$LS" record -q -o "$tmp/s.lsc" -- "$tmp/stencil" 384 "$SWEEPS")
m=$(wall "$LS" record --mem -q -o "$tmp/m.lsc" -- "$tmp/stencil" 384 "$SWEEPS")
sb=$(wc -c <"$tmp/s.lsc")
mb=$(wc -c <"$tmp/m.lsc")
/usr/bin/time -f "%U %S %M" -o "$tmp/time" "$LS" deps --format=json "$tmp/m.lsc" \
	>"$tmp/d.json" 2>/dev/null
acc=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["accesses"])' \
	"$tmp/d.json")
read -r us ss kb <"$tmp/time"
# The same without history compaction (--compact=0): the tables then
# hold one entry per address; the results must not differ.
/usr/bin/time -f "%U %S %M" -o "$tmp/time0" "$LS" deps --compact=0 --format=json \
	"$tmp/m.lsc" >"$tmp/d0.json" 2>/dev/null
read -r us0 ss0 kb0 <"$tmp/time0"
same=$(python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ea, eb = a.pop("max_entries"), b.pop("max_entries")
print("max_addrs", a["max_addrs"], "max_entries", ea, "(uncompacted", str(eb) + ");",
      "results", "identical" if a == b else "DIFFERENT")' "$tmp/d.json" "$tmp/d0.json")
echo "stencil 384x384, $SWEEPS sweeps: $acc memory accesses"
echo "  native ${n}s, valgrind none ${z}s, record ${r}s, record --mem ${m}s" \
	"($(echo "$m $r" | awk '{ printf "%.2f", $1 / $2 }')x record," \
	"$(echo "$m $n" | awk '{ printf "%.0f", $1 / $2 }')x native)"
raw=$("$LS" info "$tmp/m.lsc" | awk '/^memory accesses:/ { print $3 }')
echo "  accesses: $(echo "$raw $acc" | awk '{ printf "%.2f", $1 / $2 }') B each encoded," \
	"$(echo "$mb $sb $acc" | awk '{ printf "%.3f", ($1 - $2) / $3 }') B compressed" \
	"(bundle ${sb} B without, ${mb} B with)"
echo "  deps: $(echo "$us $ss" | awk '{ printf "%.2f", $1 + $2 }')s CPU," \
	"$(echo "$acc $us $ss" | awk '{ printf "%.2f", $1 / ($2 + $3) / 1e6 }')M accesses/s," \
	"peak RSS $((kb / 1024)) MB"
echo "  deps --compact=0 (no history compaction):" \
	"$(echo "$us0 $ss0" | awk '{ printf "%.2f", $1 + $2 }')s CPU, peak RSS $((kb0 / 1024)) MB"
echo "  tables: $same"
echo "  (Intel Advisor, dependencies analysis: 5-100x the native run, as documented)"
