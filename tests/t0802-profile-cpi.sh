#!/bin/sh
# t0802-profile-cpi.sh - `analyze --cpi` puts the sampled-CPI results
# into the profile (formats/profile.md version 6: cpi, cpifunc, cpiloop,
# cpiinsn, cpisrc, cpiline; version 7: cpicall and the command line),
# computed in the one decode; `report --cpi`, `annotate`, `html` and
# `export --callgrind` print the same bytes from the profile as from the
# bundle (which they analyze on the fly as analyze --cpi does).  Where the
# numbers come from:
#  - testdata/cpichain.c's header: with an argument work() runs its outer
#    loop N = 5000 times and its inner loop and leaf() N * M = 5000000
#    times (M = 1000); leaf() is straight-line code, so each of its
#    instructions ran 5000000 times and its instructions are the ones
#    objdump lists for it (its addresses, independently of capstone);
#  - `info`: the bundle's sample count; `info --decode`: the instructions
#    of the trace (a decode of its own, without the CPI);
#  - cpichain.c's header again for the calls: work() calls leaf() N * M
#    times, and the instructions executed in leaf() for them are its
#    instruction count (objdump) times N * M;
#  - sums over the profile's own rows that the attribution keeps exact:
#    instruction costs add up to the attributed cost, the raw sample
#    counts to the attributed samples, executions to the instructions.
. "$LSTOP/tests/lib.sh"

TD=$BUILD/testdata
SRC=$LSTOP/testdata/cpichain.c
OUTER=$(grep -n 'OUTER \*/' "$SRC" | cut -d: -f1)
INNER=$(grep -n 'INNER \*/' "$SRC" | cut -d: -f1)

t_need_recorder
cd "$T_TMP" || exit 1

"$LOOPSCOPE" record -q --sample-freq=20000 -o c.lsc -- "$TD/cpichain" big >/dev/null 2>&1
t_eq "record --sample of cpichain" 0 $?
"$LOOPSCOPE" record -q --sample-freq=20000 -o t.lsc -- "$TD/lp_trips" >/dev/null 2>&1
"$LOOPSCOPE" record -q -o n.lsc -- "$TD/nested" >/dev/null 2>&1
for b in c t n; do
	t_ok "analyze --cpi $b.lsc" "$LOOPSCOPE" analyze -q --cpi -o $b.lsprof $b.lsc
done
t_ok "analyze --cpi --no-skid-fix" "$LOOPSCOPE" analyze -q --cpi --no-skid-fix -o c.raw.lsprof c.lsc
t_grep "the format version is 7" "^loopscope-profile 7$" c.lsprof
t_eq "one cpi record" 1 "$(grep -c '^cpi	' c.lsprof)"

# same NAME BUNDLE PROFILE ARGS...: the view prints the same bytes (and
# status) from the bundle and from its profile
same() {
	n=$1 b=$2 p=$3
	shift 3
	"$LOOPSCOPE" "$@" "$b" >b.out 2>b.err
	rb=$?
	"$LOOPSCOPE" "$@" "$p" >p.out 2>p.err
	t_eq "$n: $*: same status ($rb)" "$rb" "$?"
	t_ok "$n: $*: same bytes" cmp b.out p.out
}
for b in c t; do
	for v in "report --cpi" "report --cpi --format=json" "report --cpi --format=csv" \
		 "report --cpi --min-percent=0" "annotate" "annotate --format=json" \
		 "annotate --min-percent=0" "annotate --function=main --format=json" \
		 "annotate --module=libc.so.6 --min-percent=1" "export --callgrind"; do
		# shellcheck disable=SC2086
		same $b $b.lsc $b.lsprof $v
	done
done
for v in "report --cpi --no-skid-fix --format=json" "annotate --no-skid-fix --format=json" \
	 "export --callgrind"; do
	# shellcheck disable=SC2086
	same c.raw c.lsc c.raw.lsprof $v
done
# without samples: annotate's exact executions; report --cpi refuses both
same n n.lsc n.lsprof annotate
same n n.lsc n.lsprof annotate --format=json
same n n.lsc n.lsprof report --cpi
t_grep "report --cpi without samples says so" "no samples in 'n.lsprof'" p.err
same n n.lsc n.lsprof export --callgrind
t_grep "export --callgrind without samples: its calls" '^calls=' p.out
# html: the page names its input, otherwise the same
for b in c n; do
	"$LOOPSCOPE" html -q -o $b.b.html $b.lsc
	"$LOOPSCOPE" html -q -o $b.p.html $b.lsprof
	sed "s/$b\.lsprof/$b.lsc/g" $b.p.html >$b.ps.html
	t_ok "html $b: the same page from the profile" cmp $b.b.html $b.ps.html
	t_grep "html $b: with source lines" '"S":{"[0-9]' $b.p.html
done

# The profile's records against independent numbers.
"$LOOPSCOPE" info c.lsc >info.txt
"$LOOPSCOPE" info --decode c.lsc >dec.txt 2>/dev/null
samples=$(awk '$1 == "samples:" { print $2 }' info.txt)
insns=$(awk '$1 == "total" && NF == 6 { print $2 }' dec.txt)
t_eq "cpi: the bundle's samples (info)" "$samples" "$(awk -F'\t' '$1 == "cpi" { print $5 }' c.lsprof)"
t_eq "cpi: the trace's instructions (info --decode)" "$insns" \
	"$(awk -F'\t' '$1 == "cpi" { print $13 }' c.lsprof)"
t_eq "cpi: attributed, unmapped, no module, not executed add up to the samples" "$samples" \
	"$(awk -F'\t' '$1 == "cpi" { print $6 + $7 + $8 + $9 }' c.lsprof)"
t_eq "cpiinsn: costs add up to the attributed cost" \
	"$(awk -F'\t' '$1 == "cpi" { print $12 }' c.lsprof)" \
	"$(awk -F'\t' '$1 == "cpiinsn" { s += $12 } END { printf "%d", s }' c.lsprof)"
t_eq "cpiinsn: raw samples add up to the attributed samples" \
	"$(awk -F'\t' '$1 == "cpi" { print $6 }' c.lsprof)" \
	"$(awk -F'\t' '$1 == "cpiinsn" { s += $11 } END { printf "%d", s }' c.lsprof)"
t_eq "cpiinsn: executions add up to the instructions" "$insns" \
	"$(awk -F'\t' '$1 == "cpiinsn" { s += $9 } END { printf "%d", s }' c.lsprof)"
leaf=$(awk -F'\t' '$1 == "cpifunc" && $4 == "leaf" { print $2 }' c.lsprof)
objdump -d --no-show-raw-insn "$TD/cpichain" | awk '/<leaf>:/ { on = 1; next } on && /^$/ { exit }
	on { sub(":", "", $1); printf "0x%s\n", $1 }' >leaf.objdump
awk -F'\t' -v f="$leaf" '$1 == "cpiinsn" && $2 == f { print $5 }' c.lsprof >leaf.prof
t_ok "leaf: its instructions are objdump's" cmp leaf.objdump leaf.prof
t_eq "leaf: each ran N * M = 5000000 times" "5000000" \
	"$(awk -F'\t' -v f="$leaf" '$1 == "cpiinsn" && $2 == f { print $9 }' c.lsprof | sort -u)"
t_eq "leaf: self instructions 14 * 5000000 (its total too)" \
	"$(($(wc -l <leaf.objdump) * 5000000)) $(($(wc -l <leaf.objdump) * 5000000))" \
	"$(awk -F'\t' '$1 == "cpifunc" && $4 == "leaf" { print $7, $10 }' c.lsprof)"
work=$(awk -F'\t' '$1 == "cpifunc" && $4 == "work" { print $2 }' c.lsprof)
t_eq "cpicall: work calls leaf N * M times, 14 * 5000000 instructions in it" \
	"5000000 $(($(wc -l <leaf.objdump) * 5000000))" \
	"$(awk -F'\t' -v w="$work" -v l="$leaf" '$1 == "cpicall" && $2 == w && $4 == l { print $6, $7 }' c.lsprof)"
t_eq "cpicall: ... into leaf's first instruction (objdump's)" "$(sed -n 1p leaf.objdump)" \
	"$(awk -F'\t' -v w="$work" -v l="$leaf" '$1 == "cpicall" && $2 == w && $4 == l { print $5 }' c.lsprof |
	   xargs -I@ awk -F'\t' -v l="$leaf" -v o=@ '$1 == "cpiinsn" && $2 == l && $4 == o { print $5 }' c.lsprof)"
t_eq "cpi: the recorded command line" "$TD/cpichain big" \
	"$(awk -F'\t' '$1 == "cpi" { print $20 }' c.lsprof)"
"$LOOPSCOPE" export --callgrind c.lsprof >cg.out
t_grep "export --callgrind: the command line" "^cmd: $TD/cpichain big$" cg.out
t_grep "export --callgrind: the calls to leaf" "^calls=5000000 $(sed -n 1p leaf.objdump) " cg.out
for l in "outer $OUTER 5000" "inner $INNER 5000000"; do
	set -- $l
	t_eq "the dynamic $1 loop: its label line $2, iterations $3" "$2 $3" \
		"$(awk -F'\t' -v ln="$2" '$1 == "cpiloop" && $3 == "dynamic" && $7 ~ /cpichain\.c$/ && $8 == ln { print $8, $10 }' c.lsprof)"
done
t_ok "cpiloop: a dynamic loop's detected loop has its head" sh -c '
	awk -F"\t" "\$1 == \"loop\" { h[\$2] = \$5 }
		\$1 == \"cpiloop\" && \$3 == \"dynamic\" { n++; if (h[\$19] != \$6) bad++ }
		END { exit !(n > 0 && !bad) }" "$1"' _ c.lsprof

# --cpi with --cfg and --structural builds one graph for all three: each
# analysis' records are the bytes it writes alone (and the loops too).
"$LOOPSCOPE" analyze -q --cfg -o c.cfg.lsprof c.lsc
"$LOOPSCOPE" analyze -q --structural -o c.st.lsprof c.lsc
"$LOOPSCOPE" analyze -q --cpi --cfg -o c.cc.lsprof c.lsc
"$LOOPSCOPE" analyze -q --cpi --cfg --structural -o c.all.lsprof c.lsc
recs() {	# recs FILE REGEX OUT: the records whose name matches, to OUT
	grep -E "^($2)	" "$1" >"$3"
}
G='cgraph|cfunc|cblock|cedge' S='sview|sloop|stail|sirr|sentry'
C='cpi|cpifunc|cpiloop|cpiinsn|cpisrc|cpiline|cpicall' L='module|thread|func|loop|lstat|tail'
recs c.cfg.lsprof "$G" c.cfg.g
recs c.cfg.lsprof "$L" c.cfg.l
recs c.lsprof "$C" c.c
recs c.st.lsprof "$S" c.st.s
for f in c.cc c.all; do
	recs $f.lsprof "$G" $f.g
	recs $f.lsprof "$C" $f.c
	recs $f.lsprof "$L" $f.l
	t_ok "$f: the graph records of analyze --cfg" cmp $f.g c.cfg.g
	t_ok "$f: the CPI records of analyze --cpi" cmp $f.c c.c
	t_ok "$f: the loops of analyze" cmp $f.l c.cfg.l
done
recs c.all.lsprof "$S" c.all.s
t_ok "c.all: the structural records of analyze --structural" cmp c.all.s c.st.s
t_eq "... some of each" "0 0 0" "$(for x in c.cfg.g c.c c.st.s; do [ -s $x ]; echo $?; done | xargs)"

# Merge drops the records and says so; --cpi needs the whole bundle.
t_ok "merge of an analyze --cpi profile" "$LOOPSCOPE" merge -o m.lsprof c.lsprof t.lsprof
t_grep "merge says it drops them" "sampled-CPI records (analyze --cpi) are dropped" last.err
t_eq "the merge has none" 0 "$(grep -c '^cpi' m.lsprof)"
t_fail "report --cpi of the merge" "$LOOPSCOPE" report --cpi m.lsprof
t_grep "... says to analyze with --cpi" "has no sampled-CPI records: run 'loopscope analyze --cpi'" last.err
t_fail "analyze --cpi --shard" "$LOOPSCOPE" analyze --cpi --shard=0/2 -o x.lsprof c.lsc
t_grep "... is refused" "\-\-cpi and \-\-shard" last.err
t_fail "analyze --no-skid-fix without --cpi" "$LOOPSCOPE" analyze --no-skid-fix -o x.lsprof c.lsc
t_fail "annotate --no-skid-fix of a profile with the skid fix" "$LOOPSCOPE" annotate --no-skid-fix c.lsprof
t_grep "... names the option to analyze with" "analyzed with the skid fix: give the bundle, or analyze it with 'loopscope analyze --cpi --no-skid-fix'" last.err

# The reader checks the records, naming file and line.
bad() {	# bad NAME SED-SCRIPT PATTERN: c.lsprof edited, then read
	sed "$2" c.lsprof >"$1"
	t_fail "$1: rejected" "$LOOPSCOPE" report --cpi "$1"
	t_grep "$1: message" "$3" last.err
}
c=$(grep -n '^cpi	' c.lsprof | cut -d: -f1)
f=$(grep -n '^cpifunc	' c.lsprof | sed -n 2p | cut -d: -f1)
l=$(grep -n '^cpiloop	' c.lsprof | sed -n 1p | cut -d: -f1)
i=$(grep -n '^cpiinsn	' c.lsprof | sed -n 2p | cut -d: -f1)
s=$(grep -n '^cpiline	' c.lsprof | sed -n 1p | cut -d: -f1)
bad unit.lsprof "${c}s/^cpi	ns	/cpi	furlongs	/;${c}s/^cpi	cycles	/cpi	furlongs	/" \
	"^loopscope: unit.lsprof:$c: unknown unit 'furlongs'$"
bad sum.lsprof "${c}s/^\(cpi	[a-z]*	[^	]*	[01]	\)\([0-9]*\)/\19\2/" \
	"^loopscope: sum.lsprof:$c: the samples are not attributed, unmapped, no module and not executed, summed:"
bad twice.lsprof "${c}p" "^loopscope: twice.lsprof:$((c + 1)): duplicate 'cpi'$"
bad nocpi.lsprof "${c}d" "^loopscope: nocpi.lsprof:$c: record before 'cpi': 'cpifunc'$"
bad self.lsprof "${f}s/^\(cpifunc	[0-9]*	[-0-9]*	[^	]*	[^	]*	[0-9]*	\)[0-9]*/\199999999999999/" \
	"^loopscope: self.lsprof:$f: self above total"
bad fam.lsprof "${l}s/	dynamic	/	lateral	/" "^loopscope: fam.lsprof:$l: unknown family 'lateral'$"
bad parent.lsprof "${l}s/^\(cpiloop	\([0-9]*\)	[a-z]*	[0-9]*	\)[-0-9]*/\1\2/" \
	"^loopscope: parent.lsprof:$l: bad cpiloop index"
bad orphan.lsprof "${l}s/^\(cpiloop	[0-9]*	[a-z]*	[0-9]*	\)[-0-9]*/\199999/" \
	"^loopscope: orphan.lsprof:$l: bad parent (no cpiloop of the family, or itself) '99999'$"
bad execs.lsprof "${i}s/^\(cpiinsn	[0-9]*	\)0\(	.*	\)\([0-9]*\)\(	[^	]*	[0-9]*	[0-9]*	[0-9]*\)$/\10\299\4/" \
	"^loopscope: execs.lsprof:$i: executions differ within a block '99'$"
bad order.lsprof "${s}p" "^loopscope: order.lsprof:$((s + 1)): cpiline out of order or repeated"
bad v5.lsprof '1s/ 7$/ 5/' "^loopscope: v5.lsprof:$c: unknown record 'cpi'$"
k=$(grep -n '^cpicall	' c.lsprof | sed -n 2p | cut -d: -f1)
kw=$(grep -n "^cpicall	$work	" c.lsprof | sed -n 1p | cut -d: -f1)
bad v6call.lsprof '1s/ 7$/ 6/' "^loopscope: v6call.lsprof:$c: 20 fields instead of 19 in a 'cpi'$"
bad callcount.lsprof "${k}s/	[0-9]*	\([0-9]*\)$/	0	\1/" "^loopscope: callcount.lsprof:$k: bad count '0'$"
bad callorder.lsprof "${k}{h;d};${kw}G" \
	"^loopscope: callorder.lsprof:$kw: no block of the cpifunc there, or cpicall out of order: '0x"
bad calltwice.lsprof "${k}p" "^loopscope: calltwice.lsprof:$((k + 1)): a second cpicall of the block to"
bad callentry.lsprof "${k}s/^\(cpicall	[^	]*	[^	]*	[^	]*	\)0x[0-9a-f]*/\10x1/" \
	"^loopscope: callentry.lsprof:$k: no block of the callee at '0x1'$"
bad callinsns.lsprof "${k}s/	[0-9]*$/	99999999999999/" \
	"^loopscope: callinsns.lsprof:$k: the block's calls above the instructions of 'cpi'"
# A version 6 file (no cmd, no cpicall rows) still reads; the export
# needs the calls and says so.
n6=$(grep -vc '^cpicall	' c.lsprof)
sed '1s/ 7$/ 6/; /^cpicall	/d; s/^\(cpi	.*\)	[^	]*$/\1/' c.lsprof |
	sed "\$s/.*/end	$((n6 - 2))/" >v6.lsprof
t_ok "a version 6 profile reads" sh -c '"$1" report --cpi --format=json v6.lsprof >v6.json' _ "$LOOPSCOPE"
"$LOOPSCOPE" report --cpi --format=json c.lsprof >v7.json
t_ok "... the same report as its version 7" cmp v6.json v7.json
t_fail "export --callgrind of a version 6 profile" "$LOOPSCOPE" export --callgrind v6.lsprof
t_grep "... says to analyze it again" "has no call records (profile version 6): run 'loopscope analyze --cpi'" last.err
