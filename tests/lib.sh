# tests/lib.sh - helpers for the tNNNN-*.sh tests (sourced).
# Each check prints "ok N - what" or "not ok N - what".
set -u
: "${LOOPSCOPE:?run through tests/run.sh or make check}"
t_n=0
# Symbols come from the bundle and local files only, never from the
# debuginfod servers of the caller's environment (t0636 starts its own).
unset DEBUGINFOD_URLS
T_TMP=$(mktemp -d)
trap 'rm -rf "$T_TMP"' EXIT

t_ok() {	# t_ok "description" command...
	t_desc=$1; shift
	t_n=$((t_n + 1))
	if "$@" >"$T_TMP/last.out" 2>"$T_TMP/last.err"; then
		echo "ok $t_n - $t_desc"
	else
		echo "not ok $t_n - $t_desc"
		sed 's/^/#   /' "$T_TMP/last.err" | head -20
	fi
}

t_fail() {	# t_fail "description" command...   (must exit non-zero)
	t_desc=$1; shift
	t_n=$((t_n + 1))
	if "$@" >"$T_TMP/last.out" 2>"$T_TMP/last.err"; then
		echo "not ok $t_n - $t_desc (succeeded, expected failure)"
	else
		echo "ok $t_n - $t_desc"
	fi
}

t_eq() {	# t_eq "description" expected actual
	t_n=$((t_n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $t_n - $1"
	else
		echo "not ok $t_n - $1"
		echo "#   expected: $2"
		echo "#   actual:   $3"
	fi
}

t_grep() {	# t_grep "description" pattern file
	t_n=$((t_n + 1))
	if grep -q -- "$2" "$3"; then
		echo "ok $t_n - $1"
	else
		echo "not ok $t_n - $1"
		echo "#   no '$2' in $3:"
		head -20 "$3" | sed 's/^/#   /'
	fi
}

# The file offset of an ELF vaddr, from readelf's PT_LOAD lines.
t_v2off() {	# t_v2off BINARY HEX_VADDR
	v=$((0x${2#0x}))
	readelf -lW "$1" | awk '$1 == "LOAD" {print $2, $3, $5}' |
	while read -r off va fsz; do
		if [ "$v" -ge $((va)) ] && [ "$v" -lt $((va + fsz)) ]; then
			printf '%x\n' $((v - va + off))
			break
		fi
	done
}

# The real recordings (../shared/testdata-real beside the checkout; CI
# clones with shared/ beside it).  Read-only: never written.
T_REAL=$LSTOP/../shared/testdata-real
[ -d "$T_REAL" ] || T_REAL=/work/shared/testdata-real

# t_debuginfod DIR KIND ID: a real debuginfod on a free local port,
# serving the files under DIR, stopped when the test ends.  Waits (20 s at
# most) until it serves KIND (debuginfo, executable) of build-id ID, each
# probe with a fresh client cache since a miss is cached for ten minutes.
# Sets URL and port; returns 1 if it never did.  Where debuginfod is not
# installed, skips (one counted line) and ends the test.
t_debuginfod() {
	if ! command -v debuginfod >/dev/null || ! command -v debuginfod-find >/dev/null; then
		echo "ok $((t_n += 1)) # skip the debuginfod server part: debuginfod is not installed"
		exit 0
	fi
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	debuginfod -d :memory: -p "$port" -F "$1" >"$T_TMP/dbgd.log" 2>&1 &
	t_dpid=$!
	trap 'kill "$t_dpid" 2>/dev/null; rm -rf "$T_TMP"' EXIT
	URL=http://127.0.0.1:$port
	t_i=0
	while [ $t_i -lt 100 ] &&
	      ! DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$T_TMP/probe$t_i \
		debuginfod-find "$2" "$3" >/dev/null 2>&1; do
		t_i=$((t_i + 1))
		sleep 0.2
	done
	[ $t_i -lt 100 ]
}

# t_need_recorder: a test that records with the sw backend skips (one
# counted "ok # skip" line) where Valgrind or our tool is missing.
t_need_recorder() {
	if ! command -v valgrind >/dev/null || [ ! -x "$BUILD/vglib/loopscope-amd64-linux" ]; then
		echo "ok 1 # skip valgrind or the tool is missing"
		exit 0
	fi
}

# t_first_stream B: the id of bundle B's first stream (1 where info says
# none), for ptcorrupt.
t_first_stream() {
	_sid=$("$LOOPSCOPE" info --format=json "$1" |
		sed -n 's/.*"streams": \[{"id": \([0-9]*\).*/\1/p')
	echo "${_sid:-1}"
}

# t_damaged B: B's first stream damaged into smash.lsc (two runs of
# bytes overwritten, at 3000 and 9000: losses and resets there) and
# cut.lsc (cut at 6000), in the cwd (tests/tools/ptcorrupt).
t_damaged() {
	_sid=$(t_first_stream "$1")
	"$BUILD/tests/ptcorrupt" write "$1" smash.lsc "$_sid" smash:3000 smash:9000 \
		>/dev/null 2>&1
	"$BUILD/tests/ptcorrupt" write "$1" cut.lsc "$_sid" cut:6000 >/dev/null 2>&1
}

# t_stat FILE NAME: the value after NAME among FILE's words (loopdump's
# statistics: "... NAME VALUE ...").
t_stat() {
	tr ' ' '\n' <"$1" | awk -v k="$2" 'p { print; exit } $0 == k { p = 1 }'
}

# t_record_prog P [OPTION...]: testdata program P recorded into P.lsc in
# the cwd with record's OPTIONs, run with the arguments and standard input
# t0200 gives it (spin 3 100; passthru 3 and a line on standard input);
# a program not built records nothing (no P.lsc).
t_record_prog() {
	_p=$1
	shift
	rm -f "$_p.lsc"
	[ -x "$TESTDATA/$_p" ] || return 1
	case $_p in
	spin) set -- "$@" -- "$TESTDATA/$_p" 3 100 ;;
	passthru) set -- "$@" -- "$TESTDATA/$_p" 3 ;;
	*) set -- "$@" -- "$TESTDATA/$_p" ;;
	esac
	echo "hello, recorder" | "$LOOPSCOPE" record -q -o "$_p.lsc" "$@" >/dev/null 2>&1
}

# t_progs [SKIP...]: the testdata programs built (testdata/P.c, a binary P
# in $TESTDATA), a name a line in the order of their sources, less those
# named in SKIP.
t_progs() {
	for _src in "$LSTOP"/testdata/*.c; do
		_p=$(basename "$_src" .c)
		[ -x "$TESTDATA/$_p" ] || continue
		case " $* " in *" $_p "*) continue ;; esac
		echo "$_p"
	done
}

# t_recorded P [OPTION...]: t_record_prog P OPTION..., and a failed check
# where it wrote no P.lsc.  Returns 0 where it wrote one.
t_recorded() {
	t_record_prog "$@"
	[ -s "$1.lsc" ] && return 0
	echo "not ok $((t_n += 1)) - $1: recorded"
	return 1
}

# t_percpu_bundle: pc.lsc in the cwd, testdata's nested and calls
# recorded and laid on two CPUs by lsb_percpu, with migration (threads
# move between streams).
t_percpu_bundle() {
	"$LOOPSCOPE" record -q --no-retcomp --psb-period 512 -o pc_a.lsc -- \
		"$TESTDATA/nested" >/dev/null 2>&1
	"$LOOPSCOPE" record -q --no-retcomp --psb-period 512 -o pc_b.lsc -- \
		"$TESTDATA/calls" >/dev/null 2>&1
	"$BUILD/tests/lsb_percpu" -c 2 -m -k 4096 pc.lsc pc_a.lsc pc_b.lsc >/dev/null 2>&1
}

# t_m32 NAME [pt32rec options]: NAME.lsc in the cwd, testdata/m32/loop32's
# trace written by pt32rec (its stdout in NAME.rec) and imported as a raw
# capture (t0540-t0543).  Returns 2 where the program is not built (gcc
# -m32 needs gcc-multilib) or does not run here (t_m32_runs), 1 where
# pt32rec or import fails.
T_M32=$TESTDATA/m32/loop32
# t_m32_runs: whether $T_M32 is built and runs: it exits 84 (loop32.c).
# Not where the kernel runs no 32-bit programs (no IA32 emulation, or it
# is turned off): there the exec fails, or a shell takes it for a script.
t_m32_runs() {
	[ -x "$T_M32" ] || return 1
	"$T_M32" >/dev/null 2>&1 </dev/null
	[ $? -eq 84 ]
}
t_m32() {
	name=$1
	shift
	t_m32_runs || return 2
	"$BUILD/tests/pt32rec" "$@" "$name.pt" "$T_M32" >"$name.rec" &&
		"$LOOPSCOPE" import -q --raw-pt "$name.pt" --cpu 6/78 --elf "$T_M32" -o "$name.lsc"
}
# t_skip_m32: the test's one counted skip line where t_m32 returned 2.
t_skip_m32() {
	echo "ok 1 # SKIP no $T_M32 (gcc -m32 needs gcc-multilib: make deps), or it does not run (a kernel without 32-bit programs)"
	exit 0
}

# t_fuzz_no_leak TARGET TEMPLATE DIR: the fuzz entry point TARGET
# (fuzz_decode, fuzz_memacc) gives each input in DIR the same result
# ($LSD_FUZZ_DIGEST's digest) run alone, after the others and in the
# reverse order: nothing of one input leaks into the next.  Leaves the
# digests, "name digest ...", sorted in the file alone.
t_fuzz_no_leak() {
	_fz=$1 _tm=$2 _dir=$3
	_dg() {
		LSD_FUZZ_DIGEST=1 LSD_FUZZ_BUNDLE=$_tm "$BUILD/tests/$_fz" "$@" |
			paste - - | awk '{ print $7, $2, $3 }'
	}
	_dg $(ls "$_dir"/* | sort) | sort >fwd
	_dg $(ls "$_dir"/* | sort -r) | sort >rev
	for _f in "$_dir"/*; do _dg "$_f"; done | sort >alone
	t_eq "a digest per input" "$(ls "$_dir" | wc -l)" "$(wc -l <alone)"
	t_ok "inputs run after others give what they give alone" cmp -s fwd alone
	t_ok "and in the reverse order" cmp -s rev alone
}

# t_memo_relabel LABEL: memocheck's output (mc.out), its TAP lines
# renumbered here and labelled "LABEL...".
t_memo_relabel() {
	while IFS= read -r _line; do
		case $_line in
		"ok "*) echo "ok $((t_n += 1)) - $1${_line#ok [0-9]* - }" ;;
		"not ok "*) echo "not ok $((t_n += 1)) - $1${_line#not ok [0-9]* - }" ;;
		*) echo "$_line" ;;
		esac
	done <mc.out
}

# t_memo_modes LABEL BUNDLE: tests/tools/memocheck's ten modes on BUNDLE,
# each on its own seed (1 to 10), its TAP lines renumbered here and
# labelled "LABELseed N: ..." (t0640, t0641).
t_memo_modes() {
	for _seed in 1 2 3 4 5 6 7 8 9 10; do
		case $_seed in
		1) _mode= ;;
		# two passes, as analyze makes them: the loops known
		# from the start (no trie goes stale for a loop found
		# later, every entry of trip count 1 one); the first
		# pass's own memo of whole iterations (loops_fmemo.c)
		# against the per-block path's learning, with and
		# without functions named
		2|3) _mode=-k ;;
		9) _mode="-k -y" ;;
		4) _mode="-e 30 -y" ;;
		# edits: exits changed to any kind (signals, holes,
		# returns made up) inside iterations the first pass's
		# memo keeps or matches
		5) _mode="-e 300 -k" ;;
		10) _mode="-e 30 -k -y" ;;
		# functions named: a stop pushes the frame's blocks it
		# matched itself, and hands a leaf call back whole
		# (loops_memo.c replay_frame, replay_leaf), a frame of
		# unknown function never
		6) _mode="-y" ;;
		# nested loops left early, inner trip counts equal or
		# varying: stops at every block of an iteration
		7) _mode="-x -y -k" ;;
		8) _mode="-x -k" ;;
		esac
		# shellcheck disable=SC2086
		"$BUILD/tests/memocheck" -s "$_seed" $_mode "$2" >mc.out 2>&1
		t_memo_relabel "$1seed $_seed: "
	done
}

# t_same_env NAME VAR=VALUE DROP CMD...: the command prints the same bytes
# on stdout and stderr (and exits alike) as it does with VAR=VALUE in its
# environment, once the sed script DROP has taken out of both outputs the
# lines that say which way it went.
t_same_env() {
	_name=$1; _env=$2; _drop=$3; shift 3
	"$@" >fast.out 2>fast.err; _frc=$?
	env "$_env" "$@" >ref.out 2>ref.err; _rrc=$?
	sed -i "$_drop" fast.out ref.out
	if [ "$_frc" = "$_rrc" ] && cmp -s fast.out ref.out && cmp -s fast.err ref.err; then
		echo "ok $((t_n += 1)) - $_name"
	else
		echo "not ok $((t_n += 1)) - $_name (status $_frc against $_rrc)"
		diff ref.out fast.out | head -10 | sed 's/^/#   /'
		diff ref.err fast.err | head -4 | sed 's/^/#   /'
	fi
}

# t_same_ref NAME CMD...: the command's output with the fast path and with the
# reference path are the same bytes (and so are their exit statuses).
t_same_ref() {
	_rname=$1; shift
	# (info --decode names the path that decoded each chunk)
	t_same_env "$_rname" LOOPSCOPE_REFERENCE=1 \
		'/^  chunks: /d; /"fast_chunks"\|"libipt_chunks"/d' "$@"
}
