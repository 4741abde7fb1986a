/* profile_read.c - reads and validates a loop profile file
 * (formats/profile.md).
 *
 * The reader trusts nothing: every number is parsed strictly (digits
 * only, no overflow), every index is checked against what the file
 * defined before it, keys must be unique, records come in the specified
 * order and the end record's count must match, so a file cut at any byte
 * is reported.  Each record adds a bounded amount of memory, so memory
 * stays proportional to the file size whatever the file claims.  The
 * fields are parsed in profile_rdf.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/profile.h"
#include "formats/profile_int.h"
#include "ls_buf.h"
#include "ls_err.h"

static const struct {
	const char *name;
	int nf;			/* fields including the name */
} recs[LSP_R_NREC] = {
	[LSP_R_PROFILE] = { "profile", 4 },
	[LSP_R_PART] = { "part", 5 },	/* version 3 */
	[LSP_R_MODULE] = { "module", 4 },
	[LSP_R_THREAD] = { "thread", 8 + LSP_NCLASS },
	[LSP_R_FUNC] = { "func", 8 },
	[LSP_R_LOOP] = { "loop", 13 },	/* version 1: 8 */
	[LSP_R_LSTAT] = { "lstat", 11 + 2 * LSP_NCLASS },
	[LSP_R_TRIP] = { "trip", 5 },
	[LSP_R_EDGE] = { "edge", 6 },
	[LSP_R_TAIL] = { "tail", 8 },	/* versions 1 and 2: 6 */
	[LSP_R_CALL] = { "call", 8 },
	[LSP_R_FSTAT] = { "fstat", 7 },
	[LSP_R_VERDICT] = { "verdict", 4 },	/* version 3 */
	[LSP_R_DEP] = { "dep", 15 },	/* version 3 */
	[LSP_R_SVIEW] = { "sview", 2 },	/* version 4 */
	[LSP_R_SLOOP] = { "sloop", 17 },	/* version 4 */
	[LSP_R_STAIL] = { "stail", 4 },	/* version 4 */
	[LSP_R_SIRR] = { "sirr", 4 },	/* version 4 */
	[LSP_R_SENTRY] = { "sentry", 4 },	/* version 4 */
	[LSP_R_CGRAPH] = { "cgraph", 2 },	/* version 5 */
	[LSP_R_CFUNC] = { "cfunc", 5 },	/* version 5 */
	[LSP_R_CBLOCK] = { "cblock", 10 },	/* version 5 */
	[LSP_R_CEDGE] = { "cedge", 9 },	/* version 5 */
	[LSP_R_CPI] = { "cpi", 20 },	/* version 6: 19 (no cmd) */
	[LSP_R_CPIFUNC] = { "cpifunc", 10 },	/* version 6 */
	[LSP_R_CPILOOP] = { "cpiloop", 19 },	/* version 6 */
	[LSP_R_CPIINSN] = { "cpiinsn", 13 },	/* version 6 */
	[LSP_R_CPISRC] = { "cpisrc", 3 },	/* version 6 */
	[LSP_R_CPILINE] = { "cpiline", 7 },	/* version 6 */
	[LSP_R_CPICALL] = { "cpicall", 7 },	/* version 7 */
	[LSP_R_END] = { "end", 2 },
};

static int get_ic(struct lsp_rd *r, int i, uint64_t *ic)
{
	unsigned c;
	int err;

	for (c = 0; c < LSP_NCLASS; c++)
		if ((err = lsp_rd_u64(r, i + (int)c, "bad instruction class count", &ic[c])))
			return err;
	return 0;
}

/* The record's own index (module, thread, func, loop) must be the next. */
static int get_self(struct lsp_rd *r, size_t next)
{
	uint64_t v;
	int err = lsp_rd_u64(r, 1, "bad index", &v);

	if (err)
		return err;
	if (v != next)
		return lsp_rd_bad(r, -LS_ECORRUPT, "index out of sequence", r->f[1]);
	return 0;
}

static int rd_profile(struct lsp_rd *r)
{
	struct lsp_profile *p = r->p;
	uint32_t lim = 0, nruns = 0;
	int err;

	if ((err = lsp_rd_u32(r, 1, "bad trip limit", &lim)) ||
	    (err = lsp_rd_u32(r, 2, "bad run count", &nruns)) || (err = lsp_rd_str(r, 3, "source")))
		return err;
	if (lim < 1)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad trip limit", r->f[1]);
	if (nruns < 1)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad run count", r->f[2]);
	p->trip_limit = lim;
	p->nruns = nruns;
	free(p->source);
	p->source = strdup(r->f[3]);
	return p->source ? 0 : -LS_ENOMEM;
}

static int rd_part(struct lsp_rd *r)
{
	uint32_t run = 0, shard = 0, n = 0;
	size_t i;
	int err;

	if ((err = lsp_rd_u32(r, 1, "bad run", &run)) || (err = lsp_rd_str(r, 2, "bundle")) ||
	    (err = lsp_rd_u32(r, 3, "bad shard", &shard)) ||
	    (err = lsp_rd_u32(r, 4, "bad shard count", &n)))
		return err;
	if (run >= r->p->nruns)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad run index", r->f[1]);
	if (!*r->f[2])
		return lsp_rd_bad(r, -LS_ECORRUPT, "empty bundle id", NULL);
	if (n < 1 || shard >= n)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad shard", r->f[3]);
	/* parts are few (one per bundle or shard): a linear check */
	for (i = 0; i < r->p->n_parts; i++) {
		const struct lsp_part *q = &r->p->parts[i];

		if (strcmp(q->bundle, r->f[2]))
			continue;
		if (q->run != run || q->nshards != n)
			return lsp_rd_bad(r, -LS_ECORRUPT, "bundle in two runs or sharded two ways",
				   r->f[2]);
		if (q->shard == shard)
			return lsp_rd_bad(r, -LS_ECORRUPT, "duplicate part", r->f[2]);
	}
	return lsp_part_add(r->p, run, r->f[2], shard, n);
}

static int rd_module(struct lsp_rd *r)
{
	uint8_t id[LSP_BUILD_ID_MAX];
	const char *h = r->f[2];
	size_t n = 0, len = strlen(h), n0;
	int err, k;

	if ((err = get_self(r, r->p->n_modules)) || (err = lsp_rd_str(r, 3, "path")))
		return err;
	if (strcmp(h, "-")) {
		if (len % 2 || len > 2 * LSP_BUILD_ID_MAX || !len)
			return lsp_rd_bad(r, -LS_ECORRUPT, "bad build-id", h);
		for (n = 0; n < len / 2; n++) {
			unsigned v = 0;

			for (k = 0; k < 2; k++) {
				char c = h[2 * n + (size_t)k];
				int d = c >= '0' && c <= '9' ? c - '0' :
					c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

				if (d < 0)
					return lsp_rd_bad(r, -LS_ECORRUPT, "bad build-id", h);
				v = 16 * v + (unsigned)d;
			}
			id[n] = (uint8_t)v;
		}
	}
	n0 = r->p->n_modules;
	err = lsp_module_intern(r->p, id, n, r->f[3]);
	if (err >= 0 && (size_t)err < n0)
		return lsp_rd_bad(r, -LS_ECORRUPT, "duplicate module", h);
	return err < 0 ? err : 0;
}

static int rd_thread(struct lsp_rd *r)
{
	struct lsp_thread t;
	int err;

	memset(&t, 0, sizeof(t));
	if ((err = get_self(r, r->p->n_threads)) ||
	    (err = lsp_rd_u32(r, 2, "bad run", &t.run)) ||
	    (err = lsp_rd_u32(r, 3, "bad pid", &t.pid)) ||
	    (err = lsp_rd_u32(r, 4, "bad tid", &t.tid)) ||
	    (err = lsp_rd_u64(r, 5, "bad instruction count", &t.insns)) ||
	    (err = lsp_rd_u64(r, 6, "bad outside count", &t.outside)) ||
	    (err = lsp_rd_u64(r, 7, "bad loss count", &t.losses)) ||
	    (err = get_ic(r, 8, t.outside_ic)))
		return err;
	if (t.run >= r->p->nruns)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad run index", r->f[2]);
	if (t.outside > t.insns)
		return lsp_rd_bad(r, -LS_ECORRUPT, "more instructions outside loops than in the thread",
			   r->f[6]);
	err = lsp_thread_add(r->p, &t);
	return err < 0 ? err : 0;
}

static int rd_func(struct lsp_rd *r)
{
	uint32_t mod = 0, line = 0;
	uint64_t off, va;
	size_t n0;
	int err;

	if ((err = get_self(r, r->p->n_funcs)) ||
	    (err = lsp_rd_idx(r, 2, "module", r->p->n_modules, 0, &mod)) ||
	    (err = lsp_rd_hex(r, 3, "bad offset", &off)) ||
	    (err = lsp_rd_hex(r, 4, "bad address", &va)) ||
	    (err = lsp_rd_str(r, 5, "name")) || (err = lsp_rd_str(r, 6, "file")) ||
	    (err = lsp_rd_u32(r, 7, "bad line", &line)))
		return err;
	n0 = r->p->n_funcs;
	err = lsp_func_intern(r->p, mod, off, va, r->f[5], r->f[6], line);
	if (err >= 0 && (size_t)err < n0)
		return lsp_rd_bad(r, -LS_ECORRUPT, "duplicate function", r->f[3]);
	return err < 0 ? err : 0;
}

static int rd_loop(struct lsp_rd *r)
{
	uint32_t mod = 0, fn = 0, line = 0, hline = 0, first = 0, last = 0;
	uint64_t off, va;
	size_t n0;
	int err;

	if ((err = get_self(r, r->p->n_loops)) ||
	    (err = lsp_rd_idx(r, 2, "module", r->p->n_modules, 0, &mod)) ||
	    (err = lsp_rd_hex(r, 3, "bad offset", &off)) ||
	    (err = lsp_rd_hex(r, 4, "bad address", &va)) ||
	    (err = lsp_rd_idx(r, 5, "function", r->p->n_funcs, 1, &fn)) ||
	    (err = lsp_rd_str(r, 6, "file")) || (err = lsp_rd_u32(r, 7, "bad line", &line)))
		return err;
	/* Version 2 adds the head's file and line; in version 1 the loop's
	 * line was its head's. */
	if (r->version >= 2 && ((err = lsp_rd_str(r, 8, "head file")) ||
				(err = lsp_rd_u32(r, 9, "bad head line", &hline)) ||
				(err = lsp_rd_u32(r, 10, "bad first line", &first)) ||
				(err = lsp_rd_u32(r, 11, "bad last line", &last)) ||
				(err = lsp_rd_str(r, 12, "inline chain"))))
		return err;
	n0 = r->p->n_loops;
	err = lsp_loop_intern(r->p, mod, off, va, fn, r->f[6], line);
	if (err >= 0 && (size_t)err < n0)
		return lsp_rd_bad(r, -LS_ECORRUPT, "duplicate loop", r->f[3]);
	if (err >= 0 && r->version >= 2) {
		uint32_t i = (uint32_t)err;

		if ((err = lsp_loop_set_lines(r->p, i, r->f[6], line, r->f[8], hline)) >= 0)
			err = lsp_loop_set_range(r->p, i, first, last, r->f[12]);
	}
	return err < 0 ? err : 0;
}

/* The loop and thread fields every row starts with, and the key check. */
static int rd_lt(struct lsp_rd *r, enum lsp_rec t, uint32_t *loop, uint32_t *th,
		 uint64_t k2, uint64_t k3)
{
	int err;

	if ((err = lsp_rd_idx(r, 1, "loop", r->p->n_loops, 0, loop)) ||
	    (err = lsp_rd_idx(r, 2, "thread", r->p->n_threads, 0, th)))
		return err;
	err = lsp_rd_key(&r->keys, t, ((uint64_t)*loop << 32) | *th, k2, k3);
	if (err == 0)
		return lsp_rd_bad(r, -LS_ECORRUPT, "duplicate", recs[t].name);
	return err < 0 ? err : 0;
}

static int rd_lstat(struct lsp_rd *r)
{
	struct lsp_lstat s;
	int err;

	memset(&s, 0, sizeof(s));
	if ((err = lsp_rd_u64(r, 3, "bad entries", &s.entries)) ||
	    (err = lsp_rd_u64(r, 4, "bad iterations", &s.iterations)) ||
	    (err = lsp_rd_u64(r, 5, "bad self count", &s.self)) ||
	    (err = lsp_rd_u64(r, 6, "bad total count", &s.total)) ||
	    (err = lsp_rd_u64(r, 7, "bad trip minimum", &s.trip_min)) ||
	    (err = lsp_rd_u64(r, 8, "bad trip maximum", &s.trip_max)) ||
	    (err = lsp_rd_u64(r, 9, "bad overflow entries", &s.over_entries)) ||
	    (err = lsp_rd_u64(r, 10, "bad overflow sum", &s.over_sum)) ||
	    (err = get_ic(r, 11, s.self_ic)) ||
	    (err = get_ic(r, 11 + LSP_NCLASS, s.total_ic)))
		return err;
	if (s.self > s.total)
		return lsp_rd_bad(r, -LS_ECORRUPT, "self count above the total", r->f[5]);
	if (s.entries && s.trip_min > s.trip_max)
		return lsp_rd_bad(r, -LS_ECORRUPT, "trip minimum above the maximum", r->f[7]);
	if (s.over_entries > s.entries)
		return lsp_rd_bad(r, -LS_ECORRUPT, "more overflow entries than entries", r->f[9]);
	if ((err = rd_lt(r, LSP_R_LSTAT, &s.loop, &s.thread, 0, 0)))
		return err;
	if (LS_GROW(r->lstat_line, r->p->n_lstats + 1, r->cap_lstat_line, 64))
		return -LS_ENOMEM;
	r->lstat_line[r->p->n_lstats] = r->line;
	return lsp_add_lstat(r->p, &s);
}

static int rd_trip(struct lsp_rd *r)
{
	struct lsp_trip t;
	int err;

	memset(&t, 0, sizeof(t));

	if ((err = lsp_rd_u64(r, 3, "bad trip count", &t.trips)) ||
	    (err = lsp_rd_u64(r, 4, "bad entries", &t.entries)))
		return err;
	if (t.trips >= r->p->trip_limit)
		return lsp_rd_bad(r, -LS_ECORRUPT, "trip count not below the trip limit", r->f[3]);
	if ((err = rd_lt(r, LSP_R_TRIP, &t.loop, &t.thread, t.trips, 0)))
		return err;
	return lsp_add_trip(r->p, &t);
}

static int rd_edge(struct lsp_rd *r)
{
	struct lsp_edge e;
	int err;

	memset(&e, 0, sizeof(e));	/* padding too: rows compare with memcmp */

	if ((err = lsp_rd_idx(r, 1, "loop", r->p->n_loops, 1, &e.parent)) ||
	    (err = lsp_rd_u64(r, 4, "bad count", &e.count)) ||
	    (err = lsp_rd_u64(r, 5, "bad total", &e.total)))
		return err;
	/* rd_lt reads fields 1 and 2; an edge's are child (2) and thread (3). */
	if ((err = lsp_rd_idx(r, 2, "loop", r->p->n_loops, 0, &e.child)) ||
	    (err = lsp_rd_idx(r, 3, "thread", r->p->n_threads, 0, &e.thread)))
		return err;
	err = lsp_rd_key(&r->keys, LSP_R_EDGE, e.parent, e.child, e.thread);
	if (err <= 0)
		return err ? err : lsp_rd_bad(r, -LS_ECORRUPT, "duplicate", "edge");
	return lsp_add_edge(r->p, &e);
}

static int rd_tail(struct lsp_rd *r)
{
	struct lsp_tail t;
	int err;

	memset(&t, 0, sizeof(t));

	if ((err = lsp_rd_hex(r, 3, "bad offset", &t.off)) ||
	    (err = lsp_rd_hex(r, 4, "bad address", &t.vaddr)) ||
	    (err = lsp_rd_u64(r, 5, "bad count", &t.count)) ||
	    (err = rd_lt(r, LSP_R_TAIL, &t.loop, &t.thread, t.off, 0)))
		return err;
	/* version 3: the label it gives (line 0 and "" or both set) */
	if (r->version >= 3) {
		if ((err = lsp_rd_u32(r, 6, "bad line", &t.line)) ||
		    (err = lsp_rd_str(r, 7, "file")))
			return err;
		t.file = r->f[7];
		if (!t.line != !*t.file)
			return lsp_rd_bad(r, -LS_ECORRUPT, "bad line", r->f[6]);
	}
	return lsp_add_tail(r->p, &t);
}

static int rd_call(struct lsp_rd *r)
{
	struct lsp_call c;
	int err;

	memset(&c, 0, sizeof(c));

	if ((err = lsp_rd_idx(r, 3, "module", r->p->n_modules, 0, &c.module)) ||
	    (err = lsp_rd_hex(r, 4, "bad offset", &c.off)) ||
	    (err = lsp_rd_hex(r, 5, "bad address", &c.vaddr)) ||
	    (err = lsp_rd_idx(r, 6, "function", r->p->n_funcs, 1, &c.callee)) ||
	    (err = lsp_rd_u64(r, 7, "bad count", &c.count)) ||
	    (err = rd_lt(r, LSP_R_CALL, &c.loop, &c.thread,
			 ((uint64_t)c.module << 32) | c.callee, c.off)))
		return err;
	return lsp_add_call(r->p, &c);
}

static int rd_fstat(struct lsp_rd *r)
{
	struct lsp_fstat s;
	int err;

	memset(&s, 0, sizeof(s));

	if ((err = lsp_rd_idx(r, 1, "function", r->p->n_funcs, 0, &s.func)) ||
	    (err = lsp_rd_idx(r, 2, "thread", r->p->n_threads, 0, &s.thread)) ||
	    (err = lsp_rd_u64(r, 3, "bad self count", &s.self)) ||
	    (err = lsp_rd_u64(r, 4, "bad total count", &s.total)) ||
	    (err = lsp_rd_u64(r, 5, "bad loop-level count", &s.loop_level)) ||
	    (err = lsp_rd_u64(r, 6, "bad call count", &s.calls)))
		return err;
	if (s.self > s.total)
		return lsp_rd_bad(r, -LS_ECORRUPT, "self count above the total", r->f[3]);
	err = lsp_rd_key(&r->keys, LSP_R_FSTAT, s.func, s.thread, 0);
	if (err <= 0)
		return err ? err : lsp_rd_bad(r, -LS_ECORRUPT, "duplicate", "fstat");
	return lsp_add_fstat(r->p, &s);
}

static int rd_verdict(struct lsp_rd *r)
{
	struct lsp_verdict v;
	int err, code;

	memset(&v, 0, sizeof(v));
	if ((err = lsp_rd_idx(r, 1, "loop", r->p->n_loops, 0, &v.loop)) ||
	    (err = lsp_rd_u32(r, 3, "bad needs", &v.needs)))
		return err;
	if ((code = lsp_verdict_code(r->f[2])) < 0)
		return lsp_rd_bad(r, -LS_ECORRUPT, "unknown verdict", r->f[2]);
	if (v.needs >> LSP_V_MAX)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad needs", r->f[3]);
	v.verdict = (uint32_t)code;
	err = lsp_rd_key(&r->keys, LSP_R_VERDICT, v.loop, 0, 0);
	if (err <= 0)
		return err ? err : lsp_rd_bad(r, -LS_ECORRUPT, "duplicate", "verdict");
	return lsp_set_verdict(r->p, &v);
}

static int rd_dep(struct lsp_rd *r)
{
	struct lsp_dep d;
	uint64_t h = 0;
	const char *s;
	int err;

	memset(&d, 0, sizeof(d));
	if ((err = lsp_rd_idx(r, 1, "loop", r->p->n_loops, 0, &d.loop)) ||
	    (err = lsp_rd_u32(r, 3, "bad decides flag", &d.decides)) ||
	    (err = lsp_rd_str(r, 4, "note")) || (err = lsp_rd_str(r, 5, "variable")) ||
	    (err = lsp_rd_hex(r, 6, "bad address", &d.src_vaddr)) ||
	    (err = lsp_rd_str(r, 7, "file")) || (err = lsp_rd_u32(r, 8, "bad line", &d.src_line)) ||
	    (err = lsp_rd_hex(r, 9, "bad address", &d.dst_vaddr)) ||
	    (err = lsp_rd_str(r, 10, "file")) || (err = lsp_rd_u32(r, 11, "bad line", &d.dst_line)) ||
	    (err = lsp_rd_u64(r, 12, "bad count", &d.count)) ||
	    (err = lsp_rd_u64(r, 13, "bad distance", &d.dmin)) ||
	    (err = lsp_rd_u64(r, 14, "bad distance", &d.dtyp)))
		return err;
	for (d.kind = 0; d.kind < 3 && strcmp(r->f[2], lsp_dep_kind_name(d.kind)); d.kind++)
		;
	if (d.kind == 3)
		return lsp_rd_bad(r, -LS_ECORRUPT, "unknown dependence kind", r->f[2]);
	if (d.decides > 1)
		return lsp_rd_bad(r, -LS_ECORRUPT, "bad decides flag", r->f[3]);
	if (!d.count || !d.dmin)
		return lsp_rd_bad(r, -LS_ECORRUPT, "dependence count or distance 0", r->f[12]);
	d.note = r->f[4];
	d.var = r->f[5];
	d.src_file = r->f[7];
	d.dst_file = r->f[10];
	for (s = d.var; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
	err = lsp_rd_key(&r->keys, LSP_R_DEP, (uint64_t)d.loop << 2 | d.kind, d.src_vaddr,
		      d.dst_vaddr ^ h);
	if (err <= 0)
		return err ? err : lsp_rd_bad(r, -LS_ECORRUPT, "duplicate", "dep");
	return lsp_dep_push(r->p, &d);
}

static int (*const rd_fn[LSP_R_NREC])(struct lsp_rd *) = {
	[LSP_R_PROFILE] = rd_profile, [LSP_R_PART] = rd_part, [LSP_R_MODULE] = rd_module,
	[LSP_R_THREAD] = rd_thread,
	[LSP_R_FUNC] = rd_func, [LSP_R_LOOP] = rd_loop, [LSP_R_LSTAT] = rd_lstat,
	[LSP_R_TRIP] = rd_trip, [LSP_R_EDGE] = rd_edge, [LSP_R_TAIL] = rd_tail,
	[LSP_R_CALL] = rd_call, [LSP_R_FSTAT] = rd_fstat, [LSP_R_VERDICT] = rd_verdict,
	[LSP_R_DEP] = rd_dep,
};

/* Fields of record type t, its name included, in r's version. */
static int nf_of(const struct lsp_rd *r, int t)
{
	if (t == LSP_R_TAIL && r->version < 3)
		return 6;
	if (t == LSP_R_CPI && r->version < 7)
		return 19;	/* no cmd */
	return t == LSP_R_LOOP && r->version < 2 ? 8 : recs[t].nf;
}

/* One record line (NUL-terminated, no newline); *last is the previous
 * record's type and becomes this one's. */
static int rd_line(struct lsp_rd *r, char *s, int *last)
{
	int t, err;
	uint64_t n;
	char *tab;

	r->nf = 0;
	for (;;) {
		if (r->nf == LSP_RD_MAXF)
			return lsp_rd_bad(r, -LS_ECORRUPT, "too many fields", NULL);
		r->f[r->nf++] = s;
		tab = strchr(s, '\t');
		if (!tab)
			break;
		*tab = '\0';
		s = tab + 1;
	}
	for (t = 0; t < LSP_R_NREC; t++)
		if (!strcmp(r->f[0], recs[t].name))
			break;
	if (t == LSP_R_NREC || ((t == LSP_R_PART || t == LSP_R_VERDICT || t == LSP_R_DEP) &&
				r->version < 3) || (t >= LSP_R_SVIEW && t < LSP_R_END && r->version < 4) ||
	    (t >= LSP_R_CGRAPH && t < LSP_R_END && r->version < 5) ||
	    (t >= LSP_R_CPI && t < LSP_R_END && r->version < 6) ||
	    (t == LSP_R_CPICALL && r->version < 7))
		return lsp_rd_bad(r, -LS_ECORRUPT, "unknown record", r->f[0]);
	if (r->nf != nf_of(r, t)) {
		char msg[80];

		snprintf(msg, sizeof(msg), "%d fields instead of %d in a", r->nf, nf_of(r, t));
		return lsp_rd_bad(r, -LS_ECORRUPT, msg, recs[t].name);
	}
	/* Records come in type order, the profile record first, once. */
	if (t < *last || (t == LSP_R_PROFILE) != (*last < 0))
		return lsp_rd_bad(r, -LS_ECORRUPT, "record out of order:", recs[t].name);
	*last = t;
	if (t == LSP_R_END) {
		if ((err = lsp_rd_u64(r, 1, "bad record count", &n)))
			return err;
		if (n != r->nrec)
			return lsp_rd_bad(r, -LS_ETRUNC, "record count does not match: the file "
				   "lost records; count", r->f[1]);
		/* Every record is there: now the numbers must agree. */
		if ((err = lsp_rd_check_cpi(r)) < 0)
			return err;
		return lsp_rd_check_trips(r);
	}
	r->nrec++;
	return t >= LSP_R_CPI ? lsp_rd_cpi(r, t) :
	       t >= LSP_R_CGRAPH ? lsp_rd_cgraph(r, t) :
	       t >= LSP_R_SVIEW ? lsp_rd_sview(r, t) : rd_fn[t](r);
}

static int rd_all(struct lsp_rd *r, const char *buf, size_t len)
{
	size_t pos = 0, mlen = strlen(LSP_MAGIC), ll;
	const char *nl;
	char *line = NULL;
	int last = -1, err = 0;
	uint64_t ver;

	nl = memchr(buf, '\n', len);
	if (len < mlen + 1 || memcmp(buf, LSP_MAGIC " ", mlen + 1)) {
		lsp_seterr(r->errmsg, r->errlen, "%s: not a loop profile (no '%s' line)",
			   r->name, LSP_MAGIC);
		return -LS_EFORMAT;
	}
	r->line = 1;
	if (!nl)
		return lsp_rd_bad(r, -LS_ETRUNC, "file ends in the first line", NULL);
	/* The version: digits up to the newline. */
	ll = (size_t)(nl - buf) - mlen - 1;
	line = malloc(len + 1);
	if (!line)
		return -LS_ENOMEM;
	memcpy(line, buf + mlen + 1, ll);
	line[ll] = '\0';
	r->f[0] = line;
	if ((err = lsp_rd_u64(r, 0, "bad format version", &ver)))
		goto out;
	if (ver < 1 || ver > LSP_VERSION) {
		lsp_seterr(r->errmsg, r->errlen, "%s:1: format version %" PRIu64
			   ", this loopscope reads versions 1 to %d", r->name, ver,
			   LSP_VERSION);
		err = -LS_EVERSION;
		goto out;
	}
	r->version = ver;
	pos = (size_t)(nl - buf) + 1;
	while (pos < len) {
		r->line++;
		if (last == LSP_R_END) {
			err = lsp_rd_bad(r, -LS_ECORRUPT, "data after the end record", NULL);
			goto out;
		}
		nl = memchr(buf + pos, '\n', len - pos);
		if (!nl) {
			err = lsp_rd_bad(r, -LS_ETRUNC, "file ends within a line", NULL);
			goto out;
		}
		ll = (size_t)(nl - buf) - pos;
		if (memchr(buf + pos, '\0', ll)) {
			err = lsp_rd_bad(r, -LS_ECORRUPT, "NUL byte in the line", NULL);
			goto out;
		}
		memcpy(line, buf + pos, ll);
		line[ll] = '\0';
		if ((err = rd_line(r, line, &last)))
			goto out;
		pos += ll + 1;
	}
	if (last != LSP_R_END) {
		r->line++;
		err = lsp_rd_bad(r, -LS_ETRUNC, "file ends before the end record", NULL);
	}
out:
	free(line);
	return err;
}

int lsp_read_mem(struct lsp_profile **pp, const char *buf, size_t len,
		 const char *name, char *errmsg, size_t errlen)
{
	struct lsp_rd r;
	int err;

	if (!pp || (!buf && len))
		return -LS_EINVAL;
	memset(&r, 0, sizeof(r));
	r.name = name ? name : "profile";
	r.errmsg = errmsg;
	r.errlen = errlen;
	if ((err = lsp_new(&r.p, 0)) < 0)
		return err;
	err = rd_all(&r, buf ? buf : "", len);
	free(r.keys.k);
	free(r.lstat_line);
	if (err == -LS_ENOMEM)
		lsp_seterr(errmsg, errlen, "%s: out of memory", r.name);
	if (err < 0) {
		lsp_free(r.p);
		return err;
	}
	*pp = r.p;
	return 0;
}

int lsp_read(struct lsp_profile **pp, const char *path, char *errmsg, size_t errlen)
{
	size_t len = 0, cap = 0, got;
	char *buf = NULL;
	FILE *f;
	int err;

	if (!pp || !path)
		return -LS_EINVAL;
	f = fopen(path, "rb");
	if (!f) {
		err = errno == ENOENT ? -LS_ENOENT : -LS_EIO;
		lsp_seterr(errmsg, errlen, "%s: %s", path, strerror(errno));
		return err;
	}
	/* Read to the end rather than trusting a size: pipes and files that
	 * grow while read work alike. */
	do {
		if (LS_GROW(buf, len + 1, cap, 65536)) {
			free(buf);
			fclose(f);
			lsp_seterr(errmsg, errlen, "%s: out of memory", path);
			return -LS_ENOMEM;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	if (ferror(f)) {
		lsp_seterr(errmsg, errlen, "%s: read error: %s", path, strerror(errno));
		free(buf);
		fclose(f);
		return -LS_EIO;
	}
	fclose(f);
	err = lsp_read_mem(pp, buf, len, path, errmsg, errlen);
	free(buf);
	return err;
}

int lsp_check(const struct lsp_profile *p, char *errmsg, size_t errlen)
{
	struct lsp_profile *q = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	if (!p)
		return -LS_EINVAL;
	/* The reader's rules are the specification: apply exactly them to
	 * the file this profile would become. */
	f = open_memstream(&buf, &len);
	if (!f)
		return -LS_ENOMEM;
	err = lsp_write_file(p, f, "profile", errmsg, errlen);
	if (fclose(f) && !err)
		err = -LS_ENOMEM;
	if (!err)
		err = lsp_read_mem(&q, buf, len, "profile as written", errmsg, errlen);
	lsp_free(q);
	free(buf);
	return err;
}
