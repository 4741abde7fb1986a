/* ls_out.h - checked output files: written under a temporary name in the
 * same directory and renamed over the final name only when every write,
 * the flush and the close succeeded, so a full disk, a file size limit
 * or a crash never leaves half a file under the name a user asked for.
 *
 * One home for what profiles, reports, exports and the decoder's caches
 * all need (git's lockfile / commit_lock_file, in small).
 */
#ifndef LS_OUT_H
#define LS_OUT_H

#include <stdio.h>

struct ls_out {
	FILE *f;		/* write here */
	const char *path;	/* the final name (the caller's string) */
	char *tmp;		/* the temporary name; NULL when written in place */
};

/* Opens path for writing with fopen mode ("w" or "wb").  A regular file
 * or a new name is written as PATH.<pid>.tmp, renamed by ls_out_commit();
 * anything else that exists (a device such as /dev/full or /dev/null, a
 * pipe) is written in place, since renaming over it would replace it.
 * NULL or "-" is stdout.  Returns 0, or:
 *   -LS_EINVAL  o or mode is NULL
 *   -LS_ENOMEM  out of memory
 *   -LS_EIO     the file cannot be created (errno kept)
 */
int ls_out_open(struct ls_out *o, const char *path, const char *mode);

/* Flushes and closes o (stdout is flushed, not closed), checks that no
 * write failed, and renames the temporary over the final name.  o is
 * released either way.  Returns 0, or:
 *   -LS_EINVAL  o was not open
 *   -LS_EIO     a write, the close or the rename failed (errno kept:
 *               ENOSPC, EFBIG...); the temporary is removed and the
 *               final name left as it was
 */
int ls_out_commit(struct ls_out *o);

/* Closes o and removes the temporary, leaving the final name as it was
 * (after an error of the caller's own).  Safe on a closed o. */
void ls_out_abort(struct ls_out *o);

/* Ends a write whose writer returned err: ls_out_commit() when err >= 0,
 * else ls_out_abort().  After a writer's -LS_EIO, errno tells why the
 * stream failed (ENOSPC...).  Returns err, or the failure of the commit. */
int ls_out_finish(struct ls_out *o, int err);

/* Writes the n bytes at data to path through ls_out_open()/commit.
 * Returns 0 or a failure of those (errno kept). */
int ls_out_write_file(const char *path, const void *data, size_t n);

#endif
