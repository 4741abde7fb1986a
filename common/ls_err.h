/* ls_err.h - the one error enum of loopscope.
 *
 * Every library function returns an int: >= 0 on success, a negative
 * LS_E* value on failure.  ls_errstr() turns a code into text.  Callers
 * that need more context (file, section, offset) get it from the module's
 * own error-message buffer (see e.g. lsb_reader_errmsg()).  One rule for
 * messages: a function on an object keeps its message in the object, read
 * with the module's *_errmsg() (a constructor sets *p even on failure when
 * the message matters, as lsb_reader_open() does); a function that leaves
 * no object writes a caller's buffer (char *errmsg, size_t errlen).  No
 * message travels in a public struct field.  A condition
 * a caller must tell apart (a build-id mismatch) has a code of its own:
 * callers test codes, never message text.
 */
#ifndef LS_ERR_H
#define LS_ERR_H

enum ls_error {
	LS_OK = 0,
	LS_EINVAL,	/* invalid argument (a caller's bug or a bad option) */
	LS_ENOMEM,	/* out of memory */
	LS_EIO,		/* a read or write failed; errno is kept */
	LS_ENOENT,	/* file or item not found */
	LS_EFORMAT,	/* not the expected file format (bad magic) */
	LS_EVERSION,	/* a format version we do not read */
	LS_ETRUNC,	/* input ends early */
	LS_ECORRUPT,	/* input is damaged (checksum, bounds, inconsistent) */
	LS_ELIMIT,	/* input exceeds a documented limit */
	LS_EZSTD,	/* zstd reported an error */
	LS_EPERF,	/* perf.data is malformed or unsupported */
	LS_EUNSUP,	/* a feature we do not support */
	LS_ECHILD,	/* a child process (valgrind, perf) failed */
	LS_EDECODE,	/* a PT decode error */
	LS_ENOPT,	/* no Intel PT on this machine */
	LS_ELF,		/* libelf/libdw reported an error */
	LS_EEOF,	/* end of a sequence (not an error for iterators) */
	LS_EEXIST,	/* the item is there already (a part merged twice) */
	LS_EBUILDID,	/* a file found for a module is another build (build-id) */
	LS_ERR_MAX
};

/* Option structs begin with `size_t size`, which the caller sets to
 * sizeof(the struct).  One rule everywhere: a function taking one
 * refuses with -LS_EINVAL a struct smaller than its own (a caller built
 * against an older header), and where the options are optional, NULL
 * means the defaults. */
#define LS_OPTS_BAD(o) ((o) && (o)->size < sizeof(*(o)))

/* Text for an error code; accepts the code negated or not.  Never NULL. */
const char *ls_errstr(int err);

#endif
