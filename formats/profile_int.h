/* profile_int.h - shared by the profile reader and writer (not public). */
#ifndef LSP_PROFILE_INT_H
#define LSP_PROFILE_INT_H

#include <stddef.h>

#define LSP_MAGIC "loopscope-profile"

/* snprintf into errmsg when it has room; nothing when errlen is 0. */
void lsp_seterr(char *errmsg, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct lsp_profile;
struct lsp_dep;
/* Appends dependence d (strings copied) with no check for one like it
 * (the reader checks keys itself).  Returns 0 or -LS_ENOMEM. */
int lsp_dep_push(struct lsp_profile *p, const struct lsp_dep *d);

#endif
