#!/bin/sh
# t0542-oracle-resume: the test oracle built on libipt 2.0.5's instruction
# decoder (tests/tools/ptoracle.h) is not trusted where that decoder stops
# early: tracing disabled at an indirect call and re-enabled at the same IP
# (TIP.PGD X, TIP.PGE X; issue 19, item 5).  pt32rec --resume-icall writes
# testdata/m32/loop32's trace that way at each of its 13 indirect calls
# (loop32.c: one per iteration of _start's loop).  libipt 2.0.5's
# instruction decoder then finds 26 of the 892 instructions; its block
# decoder, and so loopscope, all 892 (t0540's hand count: the control flow
# is the same, only the packets of the indirect calls differ).
# Expected: ptcheck counts 13 such spots ("resumes"), prints "-" for the
# instruction decoder's counts and exits 0; the block decoder's count and
# every loopscope command give 892; ptcorrupt's per-chunk count is "-".
. "$LSTOP/tests/lib.sh"
T=$BUILD/tests
cd "$T_TMP" || exit 1
t_m32 res --resume-icall
case $? in 2) t_skip_m32 ;; esac
t_eq "pt32rec --resume-icall: 891 steps (t0540's hand count)" "steps 891" "$(cat res.rec)"
"$T/ptcheck" res.lsc >pc.txt
t_eq "ptcheck exits 0: the instruction decoder's early stop is not an error there" 0 $?
field() { awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) print $(i + 1) }' pc.txt; }
t_eq "ptcheck: 13 re-enables at the disable's IP (one per indirect call)" 13 "$(field resumes)"
t_eq "ptcheck: TIP.PGE and TIP.PGD 14 each (13 + the start and the exit)" "14 14" \
	"$(field pge) $(field pgd)"
t_eq "ptcheck: no TIP packets (every indirect call became PGD + PGE)" 0 "$(field tip)"
t_eq "ptcheck: the instruction decoder's counts are not given" "- - -" \
	"$(field insn_insn) $(field chunk_insn) $(field chunk_decerr)"
t_eq "ptcheck: libipt's block decoder: 892 instructions, no errors" "892 0" \
	"$(field insn) $(field decerr)"
"$T/ptcorrupt" chunks res.lsc >chunks.txt
t_grep "ptcorrupt chunks: '-' for the chunk's instruction decoder count" \
	"chunk 0 .* insn - decerr -\$" chunks.txt

"$LOOPSCOPE" info --decode --format=json res.lsc >info.json
t_eq "info --decode: 892 instructions, no losses" "892 0" "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["decode"]
print(sum(s["instructions"] for s in d), sum(s["losses"] for s in d))' info.json)"
"$LOOPSCOPE" report --format=json res.lsc >rep.json
t_eq "report: 892 instructions" 892 "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["total_instructions"])' rep.json)"

# The same trace with TIPs (t0540's): the oracle is trusted and agrees.
t_m32 tip
"$T/ptcheck" tip.lsc >pc.txt
t_eq "with TIPs: resumes 0, the instruction decoder counts 892" "0 892 892" \
	"$(field resumes) $(field insn_insn) $(field chunk_insn)"
