#!/bin/sh
# `import --raw-pt` with ptxed's options: ranges of the trace and of raw
# images, --cpu none|auto|F/M[/S], --mtc-freq, --nom-freq, --cpuid-0x15.*,
# --filter:addrN_*.  The trace and code are libipt's own loop-tnt example
# (libipt-dev's getting_started.md): the bytes written below follow its
# ptdump listing packet for packet (psb at 0, fup 3 0x100000 at 0x10,
# mode.exec 64-bit at 0x17, psbend at 0x19, tnt8 "!!." at 0x1b, tip.pgd 3
# 0x100013 at 0x1c) and its code, assembled by hand:
#   100000 mov rax,0 (48 c7 c0 00 00 00 00)  100007 jmp 10000d (eb 04)
#   100009 add rax,1 (48 83 c0 01)           10000d cmp rax,1 (48 83 f8 01)
#   100011 jle 100009 (7e f6)                100013 ret (c3)
# Expected: the addresses of ptxed's listing in that document (10
# instructions), read from it at test time where it is installed.
. "$LSTOP/tests/lib.sh"
T=$BUILD/tests
cd "$T_TMP" || exit 1
psb='\002\202\002\202\002\202\002\202\002\202\002\202\002\202\002\202'
fup_mode='\175\000\000\020\000\000\000\231\001\002\043'
printf '\110\307\300\000\000\000\000\353\004\110\203\300\001\110\203\370\001\176\366\303' >loop.bin
printf "$psb$fup_mode"'\034\141\023\000\020\000\000\000' >loop.pt
t_eq "the trace is 35 bytes (tip.pgd at 0x1c + 7)" 35 "$(wc -c <loop.pt)"
D=/usr/share/doc/libipt-dev/getting_started.md
cat >ptxed.addr <<'A'
100000
100007
10000d
100011
100009
10000d
100011
100009
10000d
100011
A
if [ -r "$D" ]; then
	sed -n '/ptxed --pt loop-tnt.pt --raw loop-tnt.bin:0x100000/,/disabled/s/^[[:space:]]*0x0*\([0-9a-f]*\) .*/\1/p' \
		"$D" >doc.addr
	t_ok "ptxed's listing in libipt's getting_started.md is the one above" cmp ptxed.addr doc.addr
fi
insns() {	# the addresses `dump --insn` prints for bundle $1
	"$LOOPSCOPE" dump --insn "$1" | sed -n 's/^    0*\([0-9a-f]*\)  .*/\1/p'
}

"$LOOPSCOPE" import -q -o l.lsc --raw-pt loop.pt --raw loop.bin:0x100000
t_eq "import --raw-pt loop.pt --raw loop.bin:0x100000 (ptxed's command)" 0 $?
t_eq "the same 10 instructions as ptxed" "$(cat ptxed.addr)" "$(insns l.lsc)"

# 1. --raw FILE:FROM-TO:ADDRESS: the code inside a page-cache dump, 0x300
# bytes of hlt before it and 0x100 after.
head -c 768 /dev/zero | tr '\0' '\364' >dump.img
cat loop.bin >>dump.img
head -c 256 /dev/zero | tr '\0' '\364' >>dump.img
"$LOOPSCOPE" import -q -o r.lsc --raw-pt loop.pt --raw dump.img:0x300-0x314:0x100000
t_eq "--raw dump.img:0x300-0x314:0x100000 imports" 0 $?
t_eq "and decodes as ptxed does" "$(cat ptxed.addr)" "$(insns r.lsc)"
t_grep "the module is the 20 bytes of the range" " 20 *dump.img" \
	"$("$LOOPSCOPE" info r.lsc >r.info; echo r.info)"
"$LOOPSCOPE" import -q -o r2.lsc --raw-pt loop.pt --raw dump.img:768:0x100000
t_eq "FROM alone (decimal) runs to the end of the file" "$(cat ptxed.addr)" "$(insns r2.lsc)"
"$LOOPSCOPE" import -q -o r3.lsc --raw-pt loop.pt --raw dump.img:0x100000
t_ok "the whole dump at the same address decodes otherwise (hlt at 0x100000)" \
	test "$(insns r3.lsc)" != "$(cat ptxed.addr)"
t_fail "a range past the end of the file fails" "$LOOPSCOPE" import -q -o x.lsc \
	--raw-pt loop.pt --raw dump.img:0x300-0x600:0x100000
t_grep "naming the file and its size (1044 bytes)" \
	"'dump.img': range 0x300-0x600 is not inside its 1044 bytes" "$T_TMP/last.err"
"$LOOPSCOPE" import -q -o x.lsc --raw-pt loop.pt --raw dump.img:0x314-0x300:0x100000 2>err
t_eq "TO below FROM is a usage error" 129 $?

# 2. --raw-pt FILE:FROM-TO: two captures back to back.
cat loop.pt loop.pt >two.pt
"$LOOPSCOPE" import -q -o t2.lsc --raw-pt two.pt --raw loop.bin:0x100000
t_ok "the whole file decodes more than one capture's 10 instructions" \
	test "$(insns t2.lsc | wc -l)" -gt 10
"$LOOPSCOPE" import -q -o t0.lsc --raw-pt two.pt:0-35 --raw loop.bin:0x100000
t_eq "--raw-pt two.pt:0-35: the first alone" "$(cat ptxed.addr)" "$(insns t0.lsc)"
"$T/lsb_dump" t0.lsc >t0.info
t_grep "its stream holds 35 bytes" "^stream 0 .* 35$" t0.info
"$LOOPSCOPE" import -q -o t1.lsc --raw-pt two.pt:0x23 --raw loop.bin:0x100000
t_eq "--raw-pt two.pt:0x23: the second alone" "$(cat ptxed.addr)" "$(insns t1.lsc)"
t_fail "a trace range past its end fails" "$LOOPSCOPE" import -q -o x.lsc \
	--raw-pt two.pt:0x23-0x50 --raw loop.bin:0x100000
t_grep "naming the trace" "'two.pt': range 0x23-0x50 is not inside its 70 bytes" "$T_TMP/last.err"

# 3. --cpu and --filter reach libipt.  The same code, a trace that ends in
# a TIP.PGD whose IP is suppressed right after the FUP.  libipt then goes
# on to the next branch that needs trace (mov, jmp, cmp, jle: 4) -- unless
# the CPU has erratum SKL014 (a direct branch leaving the filter region
# gives a TIP.PGD without IP; libipt's pt_cpu_errata: family 6 model 78
# has it, model 61 does not) and a filter is configured: then the trace
# stops at the first branch out of the region [0x100000, 0x100008], the
# jmp (mov, jmp: 2).
printf "$psb$fup_mode"'\001' >skl.pt
F="--filter:addr0_cfg 1 --filter:addr0_a 0x100000 --filter:addr0_b=0x100008"
for c in "none:4" "6/78/3:4" "none $F:4" "6/61 $F:4" "6/78/3 $F:2" "6/0x4e $F:2"; do
	# shellcheck disable=SC2086
	"$LOOPSCOPE" import -q -o c.lsc --raw-pt skl.pt --raw loop.bin:0x100000 --cpu ${c%:*}
	t_eq "--cpu ${c%:*}: ${c##*:} instructions" "${c##*:}" "$(insns c.lsc | wc -l)"
done
"$T/lsb_dump" c.lsc >c.info
t_grep "cpu.model 78 in the metadata" "^meta cpu.model 78$" c.info
t_grep "filter 0's range in the metadata (a)" "^meta pt.addr0_a 0x100000$" c.info
t_grep "filter 0's range in the metadata (b)" "^meta pt.addr0_b 0x100008$" c.info
"$LOOPSCOPE" import -q -o n.lsc --raw-pt skl.pt --raw loop.bin:0x100000
"$T/lsb_dump" n.lsc >n.info
t_eq "no --cpu is none, ptxed's default: no cpu.* metadata" 0 "$(grep -c '^meta cpu\.' n.info)"
t_grep "and says so" "^meta import.cpu none$" n.info
"$LOOPSCOPE" import -q -o a.lsc --raw-pt skl.pt --raw loop.bin:0x100000 --cpu auto
"$T/lsb_dump" a.lsc >a.info
t_grep "--cpu auto: this machine's family (/proc/cpuinfo)" \
	"^meta cpu.family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1)$" a.info
t_grep "--cpu auto: this machine's model (/proc/cpuinfo)" \
	"^meta cpu.model $(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)$" a.info
"$LOOPSCOPE" import -q -o x.lsc --raw-pt skl.pt --raw loop.bin:0x100000 --cpu 6 2>err
t_eq "--cpu 6 (no model) fails" 1 $?
t_grep "saying what it wants" "bad cpu '6' (want none, auto or FAMILY/MODEL" err

# 4. Timing settings become the decoder's pt.* metadata.
"$LOOPSCOPE" import -q -o m.lsc --raw-pt loop.pt --raw loop.bin:0x100000 --cpu 6/78/3 \
	--mtc-freq 3 --nom-freq 0x18 --cpuid-0x15.eax 2 --cpuid-0x15.ebx=188
"$T/lsb_dump" m.lsc >m.info
t_eq "--mtc-freq, --nom-freq, --cpuid-0x15.eax/ebx as given" \
	"pt.mtc_freq 3 pt.nom_freq 24 pt.cpuid_0x15_eax 2 pt.cpuid_0x15_ebx 188" \
	"$(awk '$1 == "meta" && $2 ~ /^pt\./ { printf "%s%s %s", s, $2, $3; s = " " }' m.info)"
t_eq "and decoding is unchanged" "$(cat ptxed.addr)" "$(insns m.lsc)"
"$LOOPSCOPE" import -q -o x.lsc --raw-pt loop.pt --mtc-freq 16 2>err
t_eq "--mtc-freq 16 is a usage error" 129 $?
t_grep "in the common wording" "option '--mtc-freq' wants a number from 0 to 15, not '16'" err
"$LOOPSCOPE" import -q -o x.lsc --filter:addr4_cfg 1 --raw-pt loop.pt 2>err
t_eq "--filter:addr4_cfg (no filter 4) is a usage error" 129 $?
"$LOOPSCOPE" import -q -o x.lsc --nom-freq 3 perf.data 2>err
t_eq "--nom-freq without --raw-pt is a usage error" 129 $?
