#!/bin/sh
# t0650-profile-structural.sh - `analyze --structural` puts the structural
# loops into the profile (format version 4 and later, formats/profile.md), found in
# the same decode as the loop profile, and `report --structural` of that
# profile prints, byte for byte, what it prints for the bundle (which is
# analyzed so on the fly).  The numbers of the views themselves come from
# t0610 (loopcmp.py rows) and t0700; here, where they are checked in the
# records, they come from testdata/gotonest.c's header comment and
# testdata/irred.c (see t0610's comment).
. "$LSTOP/tests/lib.sh"

TD=$BUILD/testdata

if ! command -v valgrind >/dev/null || [ ! -x "$BUILD/vglib/loopscope-amd64-linux" ]; then
	echo "ok 1 # skip valgrind or the tool is missing"
	exit 0
fi
cd "$T_TMP" || exit 1

# Several bundles: one thread and several, signals, an irreducible cycle,
# a header with three back edges.
for a in "nested" "gotonest 10 5 11" "irred" "lp_threads" "vg_sig"; do
	n=${a%% *}
	# shellcheck disable=SC2086
	"$LOOPSCOPE" record -q -o "$n.lsc" -- "$TD/"$a >/dev/null 2>&1 </dev/null
	"$LOOPSCOPE" report --structural "$n.lsc" >"$n.b.txt" 2>/dev/null
	"$LOOPSCOPE" report --structural --format=json --min-percent=0 "$n.lsc" >"$n.b.json" 2>/dev/null
	t_ok "$n: analyze --structural" "$LOOPSCOPE" analyze -q --structural -o "$n.lsprof" "$n.lsc"
	"$LOOPSCOPE" report --structural "$n.lsprof" >"$n.p.txt" 2>"$n.p.err"
	"$LOOPSCOPE" report --structural --format=json --min-percent=0 "$n.lsprof" >"$n.p.json" 2>>"$n.p.err"
	t_ok "$n: text from the profile = text from the bundle" cmp "$n.b.txt" "$n.p.txt"
	t_ok "$n: JSON from the profile = JSON from the bundle" cmp "$n.b.json" "$n.p.json"
	# a report that cannot fail by being empty: the header line and rows
	t_grep "$n: ... and it is a report" "^Structural loops of $n.lsc: [1-9]" "$n.p.txt"
	# the loop profile itself is the one plain analyze writes
	"$LOOPSCOPE" analyze -q -o "$n.plain.lsprof" "$n.lsc"
	grep -v '^s[a-z]*	\|^end	' "$n.lsprof" >"$n.rows"
	grep -v '^end	' "$n.plain.lsprof" >"$n.plain.rows"
	t_ok "$n: the loop records are plain analyze's" cmp "$n.rows" "$n.plain.rows"
done

# gotonest 10 5 11 (testdata/gotonest.c): H runs 550 times; the loops Z
# within Y within X share the header nest+0x10: Z is entered once, Y
# 1 + 10 (Z's back edge taken KZ - 1 = 10 times), X 11 + 44 (Y taken
# (KY - 1) * KZ = 44 times); their back edges: 10, 44, (KX - 1) * KY * KZ
# = 495.  The detector sees one loop (the outer one, "same"), the two
# inner ones share its header.
t_eq "gotonest: the sloop records of nest (match iterations invocations)" \
	"same 550 1|inner 550 11|inner 550 55" \
	"$(awk -F'\t' '$1 == "sloop" && $9 ~ /^nest\+/ { print $6, $12, $13 }' gotonest.lsprof | paste -sd'|')"
t_eq "gotonest: their back edges (stail counts)" "10|44|495" \
	"$(awk -F'\t' '$1 == "sloop" && $9 ~ /^nest\+/ { s[$2] = 1 }
	   $1 == "stail" && ($2 in s) { print $4 }' gotonest.lsprof | paste -sd'|')"
# Parents as positions among nest's loops: the ids are profile-wide, and
# the program's module need not come first (modules go in build-id order).
t_eq "gotonest: the depth follows the parent" "- 1|0 2|1 3" \
	"$(awk -F'\t' '$1 == "sloop" && $9 ~ /^nest\+/ { k[$2] = n++
	   print ($4 == "-" ? "-" : ($4 in k) ? k[$4] : "?" $4), $5 }' gotonest.lsprof | paste -sd'|')"
# irred.c: the cycle A <-> B entered at both, two blocks, no loop
t_eq "irred: one irreducible region of cycle's, 2 blocks, entered at A and B" \
	"2|cycle+0x4 cycle+0x1e" \
	"$(awk -F'\t' '$1 == "sirr" { r[$2] = $3 } $1 == "sentry" && $3 ~ /^cycle\+/ { e[$2] = e[$2] " " $3 }
	   END { for (i in e) print r[i] "|" substr(e[i], 2) }' irred.lsprof)"
t_grep "the format version is 7" "^loopscope-profile 7$" nested.lsprof
t_grep "the merge threshold is recorded" "^sview	3$" nested.lsprof

# Another merge threshold: T = 1e9 never nests (t0610), both ways.
"$LOOPSCOPE" report --structural --merge-threshold=1e9 gotonest.lsc >g9.b.txt 2>/dev/null
t_ok "--merge-threshold=1e9 into the profile" \
	"$LOOPSCOPE" analyze -q --structural --merge-threshold=1e9 -o g9.lsprof gotonest.lsc
t_ok "... reads back as the bundle's report with that T" \
	sh -c "'$LOOPSCOPE' report --structural g9.lsprof | cmp - g9.b.txt"
t_eq "... nest is one loop there" "same 550 1" \
	"$(awk -F'\t' '$1 == "sloop" && $9 ~ /^nest\+/ { print $6, $12, $13 }' g9.lsprof)"
t_fail "a profile of T=3 asked for T=2" "$LOOPSCOPE" report --structural --merge-threshold=2 gotonest.lsprof
t_grep "... says which T it holds" "holds the structural loops of merge threshold 3, not 2" last.err

# Options that do not go together.
t_fail "--structural with --shard is refused" "$LOOPSCOPE" analyze -q --structural --shard=0/2 nested.lsc
t_grep "... saying why" "structural loops of the whole bundle" last.err
t_fail "--merge-threshold alone is refused" "$LOOPSCOPE" analyze -q --merge-threshold=2 nested.lsc
t_grep "... saying with what" "merge-threshold goes with --structural" last.err

# merge drops them (the structural loops of a sum are not a sum): the
# merged profile is the merge of the plain one, byte for byte.
"$LOOPSCOPE" merge -o m1.lsprof nested.lsprof 2>/dev/null
"$LOOPSCOPE" merge -o m2.lsprof nested.plain.lsprof 2>/dev/null
t_ok "merge of a profile with structural records = merge without them" cmp m1.lsprof m2.lsprof
t_ok "... which has none, and the loops" sh -c "! grep -q '^s[a-z]*	' m1.lsprof && grep -q '^loop	' m1.lsprof"

# Damaged records are rejected naming the line.
bad() {	# bad NAME SED-SCRIPT PATTERN: nested.lsprof edited, then read
	sed "$2" nested.lsprof >"$1"
	t_fail "$1: rejected" "$LOOPSCOPE" report --structural "$1"
	t_grep "$1: message" "$3" last.err
}
first=$(grep -n '^sloop	0	' nested.lsprof | cut -d: -f1)
bad depth.lsprof "${first}s/^\(sloop	0	[0-9]*	-	\)1	/\12	/" "^loopscope: depth.lsprof:$first: bad depth '2'$"
bad match.lsprof "${first}s/	same	/	twin	/" "^loopscope: match.lsprof:$first: unknown match 'twin'$"
bad real.lsprof "${first}s/	[0-9.e+-]*\$/	-1/" "^loopscope: real.lsprof:$first: bad coverage '-1'$"
bad noview.lsprof '/^sview	/d' "^loopscope: noview.lsprof:[0-9]*: record before 'sview': 'sloop'$"
bad v3.lsprof '1s/ 7$/ 3/' "^loopscope: v3.lsprof:[0-9]*: unknown record 'sview'$"
