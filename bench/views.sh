#!/bin/sh
# bench/views.sh - what "one decode, a complete profile" saves: per
# program (xz -6 and bzip2 -9 of TEXT bytes of text, bench/inputs.sh),
# CPU seconds (user + system, best of REPEAT) of `analyze`, `analyze
# --cfg` (the executed CFG's records, in the same decode), `analyze
# --structural` (the structural loops found in the same decode), `report
# --structural` of the bundle (analyzed on the fly) and of the profile,
# and the profiles' sizes; the two reports must print the same bytes
# (said if not).  Then, per program, the views that read the graph
# records (`probes`, `export --edges/--bolt/--autofdo`, and `report
# --structural`, which finds the loops from them): CPU seconds from
# the bundle and from the `analyze --cfg` profile, which must print the
# same bytes (said if not).  Last, per program recorded with --sample
# (the trace and a native sampling run): `analyze --cpi` (the sampled CPI
# in the same decode) beside `analyze`, and `report --cpi`, `annotate`,
# `export --callgrind` and `html` from the bundle (analyzed on the fly)
# and from the `analyze --cpi` profile, which must print the same bytes
# (said if not; html after its input's name).  CPU=0 leaves the CPI part out, CPU=only runs
# just it.  The "wall" columns are the best wall seconds at the default
# --jobs (the online CPUs): `analyze --cfg` builds the graph on a thread
# of its own beside the detector, and a view given a bundle decodes on a
# second thread while it builds the graph.
# Usage: bench/views.sh [BUILD [REPEAT [TEXT]]]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
REP=${2:-3}
LS=$B/loopscope
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LOOPSCOPE_CACHE="$tmp/cache"
. "$top/bench/inputs.sh"
bench_inputs "$tmp" "${3:-1000000}" 10

best_of() {	# best_of FMT AWKEXPR CMD...: least AWKEXPR over REP runs timed with FMT
	fmt=$1 expr=$2
	shift 2
	best=
	i=0
	while [ "$i" -lt "$REP" ]; do
		/usr/bin/time -f "$fmt" -o "$tmp/t" "$@" >/dev/null 2>&1
		s=$(awk "{ printf \"%.2f\", $expr }" "$tmp/t")
		if [ -z "$best" ] || awk "BEGIN { exit !($s < $best) }"; then best=$s; fi
		i=$((i + 1))
	done
	echo "$best"
}

wall() { best_of '%e' '$1' "$@"; }		# best wall seconds
cpu() { best_of '%U %S' '$1 + $2' "$@"; }	# best user + system seconds

if [ "${CPI:-1}" = only ]; then :; else
printf '%-8s %8s %10s %10s %12s %12s %12s %10s %10s %10s %8s %8s\n' program insns analyze "+cfg" \
	"+structural" "rep(bundle)" "rep(profile)" "prof KB" "+cfg KB" "+struct KB" \
	"wall" "+cfg wall"
for prog in "xz -6" "bzip2 -9"; do
	n=${prog%% *}
	# shellcheck disable=SC2086
	"$LS" record -q -o "$tmp/$n.lsc" -- $prog -c "$tmp/text" >/dev/null 2>&1 </dev/null || continue
	a=$(cpu "$LS" analyze -q -j1 -o "$tmp/$n.lsprof" "$tmp/$n.lsc")
	c=$(cpu "$LS" analyze -q -j1 --cfg -o "$tmp/$n.c.lsprof" "$tmp/$n.lsc")
	s=$(cpu "$LS" analyze -q -j1 --structural -o "$tmp/$n.s.lsprof" "$tmp/$n.lsc")
	aw=$(wall "$LS" analyze -q -o "$tmp/$n.w.lsprof" "$tmp/$n.lsc")
	cw=$(wall "$LS" analyze -q --cfg -o "$tmp/$n.w.lsprof" "$tmp/$n.lsc")
	rb=$(cpu sh -c "'$LS' report --structural '$tmp/$n.lsc' >'$tmp/$n.b.txt'")
	rp=$(cpu sh -c "'$LS' report --structural '$tmp/$n.s.lsprof' >'$tmp/$n.p.txt'")
	# the header line names the bundle in both
	cmp -s "$tmp/$n.b.txt" "$tmp/$n.p.txt" || echo "$n: the reports differ" >&2
	insns=$(awk -F'\t' '$1 == "thread" { s += $6 } END { printf "%.3g", s }' "$tmp/$n.lsprof")
	printf '%-8s %8s %10s %10s %12s %12s %12s %10d %10d %10d %8s %8s\n' "$n" "$insns" "$a" "$c" \
		"$s" "$rb" "$rp" $(($(wc -c <"$tmp/$n.lsprof") / 1024)) \
		$(($(wc -c <"$tmp/$n.c.lsprof") / 1024)) $(($(wc -c <"$tmp/$n.s.lsprof") / 1024)) \
		"$aw" "$cw"
done

printf '\n%-8s %-28s %12s %12s %12s\n' program view "bundle s" "profile s" "bundle wall"
for prog in "xz -6" "bzip2 -9"; do
	n=${prog%% *}
	[ -f "$tmp/$n.c.lsprof" ] || continue
	for v in "probes" "export --edges --format=csv" "export --bolt" "export --autofdo" \
		"report --structural"; do
		# shellcheck disable=SC2086
		vb=$(cpu sh -c "'$LS' $v '$tmp/$n.lsc' >'$tmp/$n.vb.txt'")
		# shellcheck disable=SC2086
		vp=$(cpu sh -c "'$LS' $v '$tmp/$n.c.lsprof' >'$tmp/$n.vp.txt'")
		# shellcheck disable=SC2086
		vw=$(wall sh -c "'$LS' $v '$tmp/$n.lsc' >/dev/null")
		cmp -s "$tmp/$n.vb.txt" "$tmp/$n.vp.txt" || echo "$n: $v: the outputs differ" >&2
		printf '%-8s %-28s %12s %12s %12s\n' "$n" "$v" "$vb" "$vp" "$vw"
	done
done
fi

[ "${CPI:-1}" = 0 ] && exit 0
printf '\n%-8s %10s %10s %10s %10s\n' program analyze "+cpi" "prof KB" "+cpi KB"
for prog in "xz -6" "bzip2 -9"; do
	n=${prog%% *}
	# shellcheck disable=SC2086
	"$LS" record -q --sample -o "$tmp/$n.s.lsc" -- $prog -c "$tmp/text" >/dev/null 2>&1 </dev/null ||
		continue
	a=$(cpu "$LS" analyze -q -j1 -o "$tmp/$n.sa.lsprof" "$tmp/$n.s.lsc")
	c=$(cpu "$LS" analyze -q -j1 --cpi -o "$tmp/$n.cpi.lsprof" "$tmp/$n.s.lsc")
	printf '%-8s %10s %10s %10d %10d\n' "$n" "$a" "$c" $(($(wc -c <"$tmp/$n.sa.lsprof") / 1024)) \
		$(($(wc -c <"$tmp/$n.cpi.lsprof") / 1024))
done
printf '\n%-8s %-28s %12s %12s\n' program view "bundle s" "profile s"
for prog in "xz -6" "bzip2 -9"; do
	n=${prog%% *}
	[ -f "$tmp/$n.cpi.lsprof" ] || continue
	for v in "report --cpi" "report --cpi --format=json" "annotate" "annotate --format=json" \
		"export --callgrind" "html"; do
		if [ "$v" = html ]; then
			vb=$(cpu "$LS" html -q -o "$tmp/$n.vb.txt" "$tmp/$n.s.lsc")
			vp=$(cpu "$LS" html -q -o "$tmp/$n.vp0.txt" "$tmp/$n.cpi.lsprof")
			sed "s/$n\.cpi\.lsprof/$n.s.lsc/g" "$tmp/$n.vp0.txt" >"$tmp/$n.vp.txt"
		else
			# shellcheck disable=SC2086
			vb=$(cpu sh -c "'$LS' $v '$tmp/$n.s.lsc' >'$tmp/$n.vb.txt'")
			# shellcheck disable=SC2086
			vp=$(cpu sh -c "'$LS' $v '$tmp/$n.cpi.lsprof' >'$tmp/$n.vp.txt'")
		fi
		cmp -s "$tmp/$n.vb.txt" "$tmp/$n.vp.txt" || echo "$n: $v: the outputs differ" >&2
		printf '%-8s %-28s %12s %12s\n' "$n" "$v" "$vb" "$vp"
	done
done
