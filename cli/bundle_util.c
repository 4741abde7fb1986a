/* bundle_util.c - what every command that reads a bundle does the same
 * way: open it with perf-like messages, and warn once about code it
 * cannot decode. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "decoder/decode.h"
#include "decoder/modfile.h"
#include "decoder/symbols.h"
#include "formats/bundle.h"
#include "ls_buf.h"
#include "ls_err.h"
#include "ls_out.h"

/* Names, in one warning, the executable mappings of the traced run whose
 * code the bundle does not hold: decoding through them can only count
 * losses, and this says why. */
#define MISSING_NAMED 4

struct missing_ctx {
	struct lsb_reader *r;
	const char *debug_dir;
	char **paths;		/* distinct, in event order */
	size_t n, cap;
};

static int on_missing_event(const struct lsb_event *ev, void *arg)
{
	struct missing_ctx *m = arg;
	size_t i, n = lsb_reader_nmodules(m->r);
	const char *path = ev->name ? ev->name : "(anonymous)";

	if (ev->type != LSB_EV_MMAP || !(ev->prot & 4) || ev->run != LSB_RUN_TRACE)
		return 0;
	for (i = 0; i < n; i++) {
		const struct lsb_module *mod = lsb_reader_module(m->r, i);

		void *data;
		size_t len;

		if (!ev->build_id_len || mod->build_id_len != ev->build_id_len ||
		    memcmp(mod->build_id, ev->build_id, ev->build_id_len))
			continue;
		if (mod->flags & LSB_MOD_EMBEDDED)
			return 0;
		/* Referenced only: present if the decoder will find it. */
		if (!lsd_modfile_find(mod, m->debug_dir, 1, &data, &len, NULL, 0)) {
			lsd_modfile_unmap(data, len);
			return 0;
		}
	}
	for (i = 0; i < m->n; i++)
		if (!strcmp(m->paths[i], path))
			return 0;
	if (LS_GROW(m->paths, m->n + 1, m->cap, 16))
		return 0;	/* a shorter warning */
	if ((m->paths[m->n] = strdup(path)))
		m->n++;
	return 0;
}

static int is_kernel_path(const char *p)
{
	return !strncmp(p, "[kernel", 7) || strstr(p, "/lib/modules/");
}

void cli_warn_missing_code(struct lsb_reader *r, const char *debug_dir)
{
	struct missing_ctx m = { .r = r, .debug_dir = debug_dir };
	const char *urls = getenv("DEBUGINFOD_URLS");
	char list[1024] = "";
	size_t i, k, len = 0;

	if (urls && *urls && !lsd_debuginfod_built())
		cli_warning("DEBUGINFOD_URLS is set, but this loopscope was built without "
			    "debuginfod support (elfutils/debuginfod.h was missing: install "
			    "libdebuginfod-dev and rebuild): debug files are not fetched");
	else if (urls && *urls && !lsd_debuginfod_usable())
		cli_warning("DEBUGINFOD_URLS is set, but debuginfod's client library "
			    "(libdebuginfod.so.1) cannot be loaded (Debian: install "
			    "libdebuginfod1): debug files are not fetched");

	lsb_reader_events(r, on_missing_event, &m);
	/* The program's own files first: the kernel's are expected missing. */
	for (i = k = 0; i < m.n; i++)
		if (!is_kernel_path(m.paths[i])) {
			char *t = m.paths[i];

			memmove(&m.paths[k + 1], &m.paths[k], (i - k) * sizeof(*m.paths));
			m.paths[k++] = t;
		}
	for (i = 0; i < m.n && i < MISSING_NAMED; i++)
		len += (size_t)snprintf(list + len, len < sizeof(list) ? sizeof(list) - len : 0,
					"%s'%s'", i ? ", " : "", m.paths[i]);
	if (m.n > MISSING_NAMED && len < sizeof(list))
		snprintf(list + len, sizeof(list) - len, " and %zu more", m.n - MISSING_NAMED);
	if (m.n)
		cli_warning("'%s' holds no code for %zu executable mapping%s: %s; "
			    "trace through %s is counted as lost",
			    lsb_reader_path(r), m.n, m.n > 1 ? "s" : "", list,
			    m.n > 1 ? "them" : "it");
	for (i = 0; i < m.n; i++)
		free(m.paths[i]);
	free(m.paths);
}

int cli_open_bundle(const char *file, struct lsb_reader **pr)
{
	struct lsb_stats st;
	int err = lsb_reader_open(pr, file);

	if (err == -LS_ENOENT) {
		cli_error("no such file '%s'; run 'loopscope record' first", file);
		lsb_reader_close(*pr);
		return -1;
	}
	if (err < 0) {
		cli_error("%s", *pr ? lsb_reader_errmsg(*pr) : ls_errstr(err));
		lsb_reader_close(*pr);
		return -1;
	}
	lsb_reader_stats(*pr, &st);
	if (st.truncated_at && lsb_writer_busy(file))
		cli_warning("'%s' is still being written (a record or import is running): "
			    "reading its first %" PRIu64 " bytes", file, st.truncated_at);
	else if (st.truncated_at)
		cli_warning("%s", lsb_reader_errmsg(*pr));
	return 0;
}

int cli_no_trace(struct lsb_reader *r, const char *path)
{
	struct lsb_stats bs;

	lsb_reader_stats(r, &bs);
	if (bs.pt_raw)
		return 0;
	if (bs.truncated_at && lsb_writer_busy(path))
		cli_error("no trace data in '%s' yet: it is still being written", path);
	else if (bs.truncated_at)
		cli_error("no trace data survived in '%s': it ends at offset %" PRIu64
			  ", before its first PT chunk", path, bs.truncated_at);
	else
		cli_error("'%s' holds no trace data (no PT chunk)", path);
	return 1;
}

void cli_reader_error(struct lsb_reader *r, int err)
{
	if (err == -LS_ECORRUPT || err == -LS_EIO || err == -LS_EZSTD ||
	    err == -LS_ETRUNC || err == -LS_EFORMAT)
		cli_error("%s", lsb_reader_errmsg(r));
	else
		cli_error("'%s': %s", lsb_reader_path(r), ls_errstr(err));
}

const char *cli_create_problem(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat st;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st) < 0)
		snprintf(buf, len, "no such directory '%s'", dir);
	else if (!S_ISDIR(st.st_mode))
		snprintf(buf, len, "'%s' is not a directory", dir);
	else if (access(dir, W_OK) < 0)
		snprintf(buf, len, "directory '%s' is not writable", dir);
	else
		return NULL;
	return buf;
}

/* The heads the open writer keeps (one writer at a time in a command). */
static struct lsd_pt_heads *writer_heads;

int cli_writer_open(struct lsb_writer **pw, const char *path,
		    const struct lsb_writer_opts *wo)
{
	struct lsb_writer_opts o;
	char why[4200];
	int err, e;

	if (wo && wo->size >= sizeof(o)) {
		o = *wo;
	} else {
		memset(&o, 0, sizeof(o));
		o.size = sizeof(o);
	}
	/* (without memory for them, a bundle without heads: a decode scans) */
	lsd_pt_heads_free(writer_heads);
	if ((writer_heads = lsd_pt_heads_new()) != NULL) {
		o.heads = lsd_pt_heads_cb;
		o.heads_arg = writer_heads;
	}
	if ((err = lsb_writer_open(pw, path, &o)) >= 0)
		return 0;
	lsd_pt_heads_free(writer_heads);
	writer_heads = NULL;
	e = errno;
	cli_error("cannot write '%s': %s", path,
		  err == -LS_EEXIST ? "another process is writing it (a record or import "
		  "still running?)" :
		  err != -LS_EIO ? ls_errstr(err) :
		  cli_create_problem(path, why, sizeof(why)) ? why : strerror(e));
	return 1;
}

int cli_writer_close(struct lsb_writer *w)
{
	int err = lsb_writer_close(w);

	lsd_pt_heads_free(writer_heads);
	writer_heads = NULL;
	return err;
}

int cli_out_open(struct ls_out *o, const char *path)
{
	char why[4200];
	int err;

	if ((err = ls_out_open(o, path, "w")) < 0) {
		int e = errno;

		cli_error("cannot write '%s': %s", path, err != -LS_EIO ? ls_errstr(err) :
			  cli_create_problem(path, why, sizeof(why)) ? why : strerror(e));
		return 1;
	}
	return 0;
}

int cli_out_finish(struct ls_out *o, int err)
{
	const char *path = o->path;

	if ((err = ls_out_finish(o, err)) < 0) {
		cli_error("cannot write '%s': %s", path,
			  err == -LS_EIO ? strerror(errno) : ls_errstr(err));
		return 1;
	}
	return 0;
}

/* Walks the trace run's executable mappings for cli_need_referenced(). */
struct need_ctx {
	struct lsb_reader *r;
	uint8_t *seen;		/* per module: 1 mapped executable, 2 checked */
};

static int on_need_event(const struct lsb_event *ev, void *arg)
{
	struct need_ctx *c = arg;
	size_t i, n = lsb_reader_nmodules(c->r);

	if (ev->type != LSB_EV_MMAP || !(ev->prot & 4) || ev->run != LSB_RUN_TRACE ||
	    !ev->build_id_len)
		return 0;
	for (i = 0; i < n; i++) {
		const struct lsb_module *mod = lsb_reader_module(c->r, i);

		if (mod->build_id_len == ev->build_id_len &&
		    !memcmp(mod->build_id, ev->build_id, ev->build_id_len))
			c->seen[i] = 1;
	}
	return 0;
}

int cli_need_referenced(struct lsb_reader *r, const char *debug_dir)
{
	size_t i, n = lsb_reader_nmodules(r), bad = 0;
	struct need_ctx c = { .r = r };
	char msg[1024];

	/* An imported perf.data never held the binaries: its missing ones
	 * stay warnings (counted as lost), as perf report does. */
	if (!lsb_reader_meta(r, "recorder") || !n)
		return 0;
	if (!(c.seen = calloc(n, 1))) {
		cli_error("out of memory");
		return -1;
	}
	lsb_reader_events(r, on_need_event, &c);
	for (i = 0; i < n; i++) {
		const struct lsb_module *mod = lsb_reader_module(r, i);
		void *data;
		size_t len;

		if (!c.seen[i] || (mod->flags & LSB_MOD_EMBEDDED) || !mod->path ||
		    is_kernel_path(mod->path))
			continue;
		if (!lsd_modfile_find(mod, debug_dir, 1, &data, &len, msg, sizeof(msg))) {
			lsd_modfile_unmap(data, len);
			continue;
		}
		cli_error("cannot analyze '%s': %s", lsb_reader_path(r), msg);
		bad++;
	}
	free(c.seen);
	if (bad)
		cli_error("give --debug-dir=<dir> holding %s, or set DEBUGINFOD_URLS to "
			 "servers that have %s; --allow-missing counts the trace through %s "
			 "as lost instead", bad > 1 ? "them" : "it", bad > 1 ? "them" : "it",
			 bad > 1 ? "them" : "it");
	return bad ? -1 : 0;
}

struct lsd_symbols *cli_symbols_open(struct lsb_reader *r, const struct lsd_decoder *d,
				     const char *debug_dir)
{
	struct lsd_symbols *sym;
	size_t i, n = lsb_reader_nmodules(r), len;
	const void *data;
	uint32_t crc;

	if (lsd_symbols_open(&sym, r, debug_dir) < 0)
		return NULL;
	for (i = 0; i < n; i++)
		if (!lsd_module_bytes(d, i, &data, &len)) {
			lsd_symbols_lend(sym, i, data, len);
			if (!lsd_module_crc(d, i, &crc))
				lsd_symbols_lend_crc(sym, i, crc);
		}
	return sym;
}
