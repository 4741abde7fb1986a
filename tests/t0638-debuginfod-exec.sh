# t0638-debuginfod-exec.sh - a bundle recorded with --no-embed analyzed
# where its executable is not: fetched by build-id from a real debuginfod
# server (DEBUGINFOD_URLS), by analyze and by loopscope-batch --local.
# Oracles: the profile of the same bundle analyzed with the executable at
# its recorded path (byte for byte: same bundle path, so the same source
# line), readelf -n (the build-id), the debuginfod client's cache, and
# testdata/calls.c (work's loop is at line 16).
. "$LSTOP/tests/lib.sh"
t_need_recorder
cd "$T_TMP" || exit 1
mkdir bin srv

cp "$TESTDATA/calls" bin/calls
id=$(readelf -n bin/calls | sed -n 's/.*Build ID: //p')
"$LOOPSCOPE" record -q --no-embed -o ne.lsc -- ./bin/calls >/dev/null
"$LOOPSCOPE" info ne.lsc >info.out
t_grep "the bundle only references calls ($id)" "$id referenced .*/bin/calls\$" info.out
t_ok "analyze with the executable at its recorded path" \
	"$LOOPSCOPE" analyze -q -o want.lsprof ne.lsc
"$LOOPSCOPE" report --min-percent=0 want.lsprof >want.rep
# loopscope-batch names bundles by their absolute path (the source line).
"$LOOPSCOPE" analyze -q -o want-abs.lsprof "$T_TMP/ne.lsc"
t_grep "... names work's loop from its DWARF (calls.c:16)" "calls\.c:16) in work" want.rep

# The executable moves to the server's directory: no local file matches.
mv bin/calls srv/calls
t_fail "without DEBUGINFOD_URLS analyze fails" "$LOOPSCOPE" analyze -q -o no.lsprof ne.lsc
t_grep "... naming the module and its build-id" \
	"cannot analyze 'ne.lsc': module '$T_TMP/bin/calls' (build-id $id) is not in the bundle" last.err
t_grep "... and where it was looked for" \
	"not at its recorded path, no --debug-dir given, debuginfod not asked (DEBUGINFOD_URLS is unset)" last.err
t_ok "... and no profile is written" test ! -e no.lsprof
t_fail "with --debug-dir elsewhere too" "$LOOPSCOPE" analyze -q --debug-dir=bin -o no.lsprof ne.lsc
t_grep "... which it names" "not in --debug-dir 'bin' (by path and name)" last.err
t_ok "--allow-missing analyzes anyway" "$LOOPSCOPE" analyze -q --allow-missing -o lost.lsprof ne.lsc
t_grep "... warning that the trace through calls is lost" \
	"holds no code for 1 executable mapping: '$T_TMP/bin/calls'" last.err

# A real server on a free local port, serving srv/.
t_debuginfod srv executable "$id"
t_eq "debuginfod on port $port serves the executable $id" 0 $?

t_ok "with DEBUGINFOD_URLS analyze fetches it" env DEBUGINFOD_URLS="$URL" \
	DEBUGINFOD_CACHE_PATH="$T_TMP/dc" "$LOOPSCOPE" analyze -q -o got.lsprof ne.lsc
t_ok "... into DEBUGINFOD_CACHE_PATH" test -s "$T_TMP/dc/$id/executable"
t_ok "... and the profile is the one with the executable in place, byte for byte" \
	cmp want.lsprof got.lsprof

# Another build at the recorded path (the analysis machine's own): the
# server's, of the recorded build-id, is taken instead.
cp "$TESTDATA/nested" bin/calls
t_fail "another build at the recorded path, no DEBUGINFOD_URLS: refused" \
	"$LOOPSCOPE" analyze -q -o no.lsprof ne.lsc
t_grep "... naming both files and that debuginfod was not asked" \
	"build-id mismatch: the trace ran '$T_TMP/bin/calls' with build-id $id, but '$T_TMP/bin/calls' has build-id .*; debuginfod not asked" last.err
t_ok "... with DEBUGINFOD_URLS: the server's build" env DEBUGINFOD_URLS="$URL" \
	DEBUGINFOD_CACHE_PATH="$T_TMP/dc2" "$LOOPSCOPE" analyze -q -o got2.lsprof ne.lsc
t_ok "... and the same profile, byte for byte" cmp want.lsprof got2.lsprof
rm bin/calls

# A server that does not answer: the message says it was asked.
t_fail "a URL with no server: analyze fails" env DEBUGINFOD_URLS=http://127.0.0.1:1 \
	DEBUGINFOD_CACHE_PATH="$T_TMP/dc3" "$LOOPSCOPE" analyze -q -o no.lsprof ne.lsc
t_grep "... saying the servers do not have it" \
	"'$T_TMP/bin/calls' (build-id $id) .* not on the debuginfod servers of DEBUGINFOD_URLS" last.err

# The client library is loaded when a lookup needs it: where it cannot
# be (LOOPSCOPE_DEBUGINFOD_LIB names a file that is not there), the
# commands say so rather than that the servers lack the module.
t_fail "no client library: analyze fails" env DEBUGINFOD_URLS="$URL" \
	LOOPSCOPE_DEBUGINFOD_LIB=libnone-such.so.0 DEBUGINFOD_CACHE_PATH="$T_TMP/dc5" \
	"$LOOPSCOPE" analyze -q -o nolib.lsprof ne.lsc
t_grep "... naming the module, debuginfod not asked" \
	"'$T_TMP/bin/calls' (build-id $id) .*debuginfod not asked (its client library, libdebuginfod.so.1, cannot be loaded)" last.err
DEBUGINFOD_URLS="$URL" LOOPSCOPE_DEBUGINFOD_LIB=libnone-such.so.0 \
	DEBUGINFOD_CACHE_PATH="$T_TMP/dc5" "$LOOPSCOPE" analyze -q --allow-missing \
	-o nolib.lsprof ne.lsc 2>nolib.err
t_grep "... and with --allow-missing, a warning that nothing is fetched" \
	"DEBUGINFOD_URLS is set, but debuginfod's client library (libdebuginfod.so.1) cannot be loaded" nolib.err

# loopscope-batch --local: its tasks get DEBUGINFOD_URLS and
# DEBUGINFOD_CACHE_PATH; the merged profile is 'merge' of analyze's.
BATCH=$LSTOP/cluster/loopscope-batch
"$LOOPSCOPE" merge -o want-m.lsprof want-abs.lsprof 2>/dev/null
t_fail "batch --local without DEBUGINFOD_URLS: the task fails" \
	sh "$BATCH" --local --loopscope="$LOOPSCOPE" -o b0.lsprof ne.lsc
t_grep "... its log names the module" "module '$T_TMP/bin/calls' (build-id $id)" b0.lsprof.d/log/task-0.log
t_ok "batch --local with DEBUGINFOD_URLS" env DEBUGINFOD_URLS="$URL" \
	DEBUGINFOD_CACHE_PATH="$T_TMP/dc4" sh "$BATCH" --local --loopscope="$LOOPSCOPE" \
	-o b1.lsprof ne.lsc
t_ok "... fetched into its DEBUGINFOD_CACHE_PATH" test -s "$T_TMP/dc4/$id/executable"
t_ok "... and the merged profile is merge of analyze's, byte for byte" cmp want-m.lsprof b1.lsprof
# Under sbatch --export=NONE the tasks see none of the caller's
# environment: the task script carries both settings itself.
cp b1.lsprof.d/part/0-0.lsprof part-before.lsprof
rm b1.lsprof.d/part/0-0.lsprof
t_ok "the task script alone, its environment emptied, runs the task" \
	env -i PATH="$PATH" LOOPSCOPE_CACHE="$LOOPSCOPE_CACHE" sh b1.lsprof.d/task.sh 0
t_ok "... giving the same partial profile" cmp part-before.lsprof b1.lsprof.d/part/0-0.lsprof
