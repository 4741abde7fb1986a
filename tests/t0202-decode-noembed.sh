# t0202-decode-noembed.sh - bundles recorded with --no-embed decode from the
# files at their recorded paths, or from --debug-dir, and only when the
# build-id matches; a mismatch names both files.
. "$LSTOP/tests/lib.sh"
SB=$BUILD/tests/sbdump
mkdir -p "$T_TMP/bin" "$T_TMP/dbg"
cp "$BUILD/testdata/calls" "$T_TMP/bin/calls"
"$LOOPSCOPE" record -q --no-embed -o "$T_TMP/ne.lsc" -- "$T_TMP/bin/calls" >/dev/null
"$LOOPSCOPE" record -q -o "$T_TMP/em.lsc" -- "$T_TMP/bin/calls" >/dev/null
t_ok "a --no-embed bundle decodes from the recorded paths" "$SB" -m calls "$T_TMP/ne.lsc"
grep -v '^missing' "$T_TMP/last.out" >"$T_TMP/ne.sb"
"$SB" -m calls "$T_TMP/em.lsc" >"$T_TMP/em.sb"
t_eq "and gives the same static blocks and counts as the embedded bundle" \
	"$(cat "$T_TMP/em.sb")" "$(cat "$T_TMP/ne.sb")"
t_ok "the --no-embed bundle is much smaller (no ELF files inside)" \
	test "$(stat -c %s "$T_TMP/ne.lsc")" -lt "$(($(stat -c %s "$T_TMP/em.lsc") / 10))"

mv "$T_TMP/bin/calls" "$T_TMP/dbg/calls"
"$SB" -m calls "$T_TMP/ne.lsc" >"$T_TMP/gone.sb" 2>&1
t_grep "with the executable gone, its mapping is reported missing" "^missing 1\$" "$T_TMP/gone.sb"
t_ok "--debug-dir finds it by name" "$SB" -m calls -d "$T_TMP/dbg" "$T_TMP/ne.lsc"
t_eq "with the same result" "$(cat "$T_TMP/em.sb")" "$(grep -v '^missing' "$T_TMP/last.out")"

cp "$BUILD/testdata/nested" "$T_TMP/bin/calls"	# another program, same path
t_fail "a file with another build-id at the recorded path is refused" "$SB" -m calls "$T_TMP/ne.lsc"
t_grep "naming both files" "build-id mismatch: the trace ran '$T_TMP/bin/calls' with build-id [0-9a-f]*, but '$T_TMP/bin/calls' has build-id" "$T_TMP/last.err"

# The same through the command line: info --decode and dump --debug-dir.
"$LOOPSCOPE" info --decode "$T_TMP/em.lsc" >"$T_TMP/em.info"
want=$(awk '$1 == "total" {print $2}' "$T_TMP/em.info")
mv "$T_TMP/bin/calls" "$T_TMP/bin/other"	# the wrong build goes away
"$LOOPSCOPE" info --decode "$T_TMP/ne.lsc" >"$T_TMP/ne.info" 2>"$T_TMP/ne.err"
t_grep "info --decode warns about the one executable it cannot find" \
	"holds no code for 1 executable mapping: '$T_TMP/bin/calls'" "$T_TMP/ne.err"
t_ok "info --decode --debug-dir finds it" "$LOOPSCOPE" info --decode --debug-dir="$T_TMP/dbg" "$T_TMP/ne.lsc"
t_eq "and decodes the same instructions as the embedded bundle" "$want" \
	"$(awk '$1 == "total" {print $2}' "$T_TMP/last.out")"
t_eq "without a warning" "" "$(cat "$T_TMP/last.err")"
cp "$BUILD/testdata/nested" "$T_TMP/dbg/calls"
t_fail "dump with a wrong build in --debug-dir fails" "$LOOPSCOPE" dump --debug-dir="$T_TMP/dbg" "$T_TMP/ne.lsc"
t_grep "naming both files" "cannot decode '$T_TMP/ne.lsc': build-id mismatch: the trace ran '$T_TMP/bin/calls' with build-id [0-9a-f]*, but '$T_TMP/dbg/calls' has build-id" "$T_TMP/last.err"

# Embedded executables reach libipt as files of the build-id cache
# (decoder/image.c); without a usable cache libipt reads through a callback,
# with the same result.
"$SB" -m calls "$T_TMP/em.lsc" >/dev/null
t_ok "the cache holds the program by its build-id" test -s "$LOOPSCOPE_CACHE/$(readelf -n "$BUILD/testdata/calls" | awk '/Build ID/ {print $3}')"
LOOPSCOPE_CACHE=/proc/no-such-dir "$SB" -m calls "$T_TMP/em.lsc" >"$T_TMP/nocache.sb"
t_eq "no usable cache: the same static blocks and counts" "$(cat "$T_TMP/em.sb")" "$(cat "$T_TMP/nocache.sb")"
