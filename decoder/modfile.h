/* modfile.h - finding the file that holds a module the bundle only
 * references (recorded with --no-embed), or its separate debug info, and
 * checking it is the build that ran. */
#ifndef LSD_MODFILE_H
#define LSD_MODFILE_H

#include <stddef.h>
#include <stdint.h>

#include "formats/bundle.h"

#define LSD_SYS_DEBUG_DIR "/usr/lib/debug"

/* Maps PATH copy-on-write (libelf writes into an elf_memory() image when
 * libdw decompresses compressed debug sections).  Returns 0, -LS_ENOENT,
 * -LS_EIO. */
int lsd_modfile_map(const char *path, void **data, size_t *len);
void lsd_modfile_unmap(void *data, size_t len);
/* Maps PATH if its build-id is m's (for a module without a GNU build-id,
 * the hash of its bytes the recorder gave it).  Returns 0, -LS_ENOENT,
 * -LS_EIO, or -LS_EBUILDID for another build, with errmsg naming both
 * files. */
int lsd_modfile_try(const struct lsb_module *m, const char *path, void **data,
		    size_t *len, char *errmsg, size_t errlen);
/* DIR/.build-id/xx/rest.debug for m into out; -1 if it does not fit. */
int lsd_modfile_buildid_path(char *out, size_t cap, const char *dir,
			     const struct lsb_module *m);
/* Finds m's bytes: the recorded path, DEBUG_DIR/path, DEBUG_DIR/basename,
 * and unless code_only (the code must be there, which .debug files lack)
 * DEBUG_DIR/.build-id/... and /usr/lib/debug/.build-id/...; when none is
 * of m's build, the executable of m's build-id from the debuginfod
 * servers of DEBUGINFOD_URLS (a new client each call; the client's cache
 * makes the next call local).  Returns 0, -LS_ENOENT (nothing found;
 * errmsg names the module and each place looked at), -LS_ENOMEM, or the
 * most telling error of lsd_modfile_try(). */
int lsd_modfile_find(const struct lsb_module *m, const char *debug_dir,
		     int code_only, void **data, size_t *len, char *errmsg,
		     size_t errlen);
/* lsd_modfile_find() that also copies the path of the file it took into
 * used (usedlen bytes). */
int lsd_modfile_find_path(const struct lsb_module *m, const char *debug_dir,
			  int code_only, void **data, size_t *len, char *used,
			  size_t usedlen, char *errmsg, size_t errlen);

#endif
