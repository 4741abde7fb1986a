#include "ls_err.h"

static const char *const ls_err_text[LS_ERR_MAX] = {
	[LS_OK] = "success",
	[LS_EINVAL] = "invalid argument",
	[LS_ENOMEM] = "out of memory",
	[LS_EIO] = "input/output error",
	[LS_ENOENT] = "not found",
	[LS_EFORMAT] = "not a file of the expected format",
	[LS_EVERSION] = "unsupported format version",
	[LS_ETRUNC] = "file is truncated",
	[LS_ECORRUPT] = "file is corrupt",
	[LS_ELIMIT] = "input exceeds a limit",
	[LS_EZSTD] = "zstd error",
	[LS_EPERF] = "malformed or unsupported perf.data",
	[LS_EUNSUP] = "unsupported feature",
	[LS_ECHILD] = "child process failed",
	[LS_EDECODE] = "trace decode error",
	[LS_ENOPT] = "no Intel PT on this machine",
	[LS_ELF] = "ELF/DWARF error",
	[LS_EEOF] = "end of data",
	[LS_EEXIST] = "already there",
	[LS_EBUILDID] = "build-id mismatch",
};

const char *ls_errstr(int err)
{
	if (err < 0)
		err = -err;
	if (err >= LS_ERR_MAX || !ls_err_text[err])
		return "unknown error";
	return ls_err_text[err];
}
