/* ls_dl.h - the calls of a library loaded with dlopen() (capstone,
 * debuginfod's client): loaded at their first use rather than linked,
 * so that a process that needs none of them does not pay for loading. */
#ifndef LS_DL_H
#define LS_DL_H

#include <dlfcn.h>
#include <string.h>

/* Function pointer fn = symbol name of handle h (dlsym()'s object
 * pointer copied into it: POSIX guarantees they convert); ok is cleared
 * where h has no such symbol. */
#define LS_DLSYM(h, fn, name, ok) do {					\
		void *p_ = dlsym((h), (name));				\
		_Static_assert(sizeof(p_) == sizeof(fn), "pointer sizes");	\
		memcpy(&(fn), &p_, sizeof(p_));				\
		if (!p_)						\
			(ok) = 0;					\
	} while (0)

#endif
