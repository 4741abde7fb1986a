# t0002-install.sh - `make install PREFIX=...` installs a loopscope that
# finds its Valgrind tool and records from the installed tree.
. "$LSTOP/tests/lib.sh"
P=$T_TMP/prefix
t_ok "make install PREFIX=... succeeds" make -C "$LSTOP" --no-print-directory install \
	BUILD="$BUILD" PREFIX="$P"
t_ok "the binary is installed" test -x "$P/bin/loopscope"
t_ok "the Valgrind tool is installed" test -x "$P/libexec/loopscope/loopscope-amd64-linux"
t_ok "man pages are installed" test -f "$P/share/man/man1/loopscope-record.1" -a \
	-f "$P/share/man/man5/loopscope-trace.5"
t_ok "the installed loopscope records (tool found under libexec)" \
	env -u LOOPSCOPE_VGLIB "$P/bin/loopscope" record -q -o "$T_TMP/i.lsc" -- "$BUILD/testdata/nested"
t_ok "and its bundle decodes with libipt" "$BUILD/tests/ptcheck" "$T_TMP/i.lsc"
