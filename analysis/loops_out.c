/* loops_out.c - the detector's results into the profile, and its
 * callbacks for the decode (loops_analyze.c runs the passes). */
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_err.h"

/* The profile's index of bundle module m (-1: code of no module). */
static int module_p(struct lsa_loops *l, int32_t m, uint32_t *out)
{
	size_t n = lsb_reader_nmodules(l->r), slot = m < 0 ? n : (size_t)m;
	int i;

	if (!l->modidx) {
		l->modidx = calloc(n + 1, sizeof(*l->modidx));
		if (!l->modidx)
			return -LS_ENOMEM;
		l->nmod = n + 1;
	}
	if (slot >= l->nmod)
		return -LS_EINVAL;
	if (!l->modidx[slot]) {
		const struct lsb_module *bm = m < 0 ? NULL : lsb_reader_module(l->r, m);

		i = bm ? lsp_module_intern(l->p, bm->build_id, bm->build_id_len,
					   bm->path ? bm->path : "")
		       : lsp_module_intern(l->p, NULL, 0, "[unknown]");
		if (i < 0)
			return i;
		l->modidx[slot] = (uint32_t)i + 1;
	}
	*out = l->modidx[slot] - 1;
	return 0;
}

void lsa_loops_sym_lookup(struct lsa_loops *l, int32_t m, uint64_t off, int lines,
			  struct lsd_symbol_info *info)
{
	memset(info, 0, sizeof(*info));
	info->vaddr = off;
	if (l->sym && m >= 0 &&
	    lsd_symbols_lookup(l->sym, m, off, lines, info) < 0) {
		memset(info, 0, sizeof(*info));
		info->vaddr = off;
	}
}

static int func_p(struct lsa_loops *l, uint32_t f, uint32_t *out)
{
	struct lsa_funcdef *fd;
	struct lsd_symbol_info info;
	uint32_t mod;
	int err, i;

	if (f == LSA_NONE) {
		*out = LSP_NONE;
		return 0;
	}
	fd = &l->funcs[f];
	if (fd->pidx == LSA_NONE) {
		err = module_p(l, fd->module, &mod);
		if (err)
			return err;
		lsa_loops_sym_lookup(l, fd->module, fd->off, l->o.want_lines, &info);
		i = lsp_func_intern(l->p, mod, fd->off, info.vaddr,
				    info.function ? info.function : "",
				    info.file ? info.file : "",
				    info.line > 0 ? (uint32_t)info.line : 0);
		if (i < 0)
			return i;
		fd->pidx = (uint32_t)i;
	}
	*out = fd->pidx;
	return 0;
}

static int loop_p(struct lsa_loops *l, uint32_t loop, uint32_t *out)
{
	struct lsa_loopdef *ld = &l->loops[loop];

	if (ld->pidx == LSA_NONE) {
		const struct lsd_sblock *h = ld->head;
		uint64_t off = h->module < 0 ? h->start : h->mod_off;
		struct lsd_symbol_info info;
		uint32_t mod, func;
		int err, i;

		err = module_p(l, h->module, &mod);
		if (!err)
			err = func_p(l, ld->func, &func);
		if (err)
			return err;
		lsa_loops_sym_lookup(l, h->module, off, l->o.want_lines, &info);
		i = lsp_loop_intern(l->p, mod, off, info.vaddr, func,
				    info.file ? info.file : "",
				    info.line > 0 ? (uint32_t)info.line : 0);
		if (i < 0)
			return i;
		ld->pidx = (uint32_t)i;
	}
	*out = ld->pidx;
	return 0;
}

/* Module, file offset and ELF address of a block's last instruction. */
static int last_insn(struct lsa_loops *l, uint32_t sbid, uint32_t *mod,
		     uint64_t *off, uint64_t *vaddr)
{
	const struct lsd_sblock *sb = lsd_sblock(l->d, sbid);
	struct lsd_symbol_info info;
	int err;

	if (!sb)
		return -LS_EINVAL;
	err = module_p(l, sb->module, mod);
	if (err)
		return err;
	*off = sb->module < 0 ? sb->last : sb->mod_off + (sb->last - sb->start);
	lsa_loops_sym_lookup(l, sb->module, *off, 0, &info);
	*vaddr = info.vaddr;
	return 0;
}

/* An entry of a map keyed by (a, static block id), with the block's
 * address: rows go into the profile in the order (a, address), not in
 * the map's, which follows the static block ids, and those follow the
 * order in which the decoder made the blocks. */
struct bent {
	uint64_t a, start;
	uint32_t pid;
	const struct lsa_kent *e;
};

static int bent_cmp(const void *x, const void *y)
{
	const struct bent *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->start != q->start)
		return p->start < q->start ? -1 : 1;
	return p->pid < q->pid ? -1 : p->pid > q->pid;
}

/* The entries of m sorted by (a, block address), where a's loop (a
 * itself, or its high 32 bits where hi) is the profile's: two of the
 * detector's loops that are one of the profile's (same_row()) have
 * their rows together.  Returns 0 (*out to free) or -LS_ENOMEM. */
static int by_block(struct lsa_loops *l, const struct lsa_kmap *m, int hi,
		    struct bent **out, size_t *n)
{
	struct bent *v = malloc((m->n ? m->n : 1) * sizeof(*v));
	size_t i, k = 0;
	int err = 0;

	if (!v)
		return -LS_ENOMEM;
	for (i = 0; i < m->cap && !err; i++) {
		const struct lsa_kent *e = &m->t[i];
		const struct lsd_sblock *sb;
		uint32_t pl;

		if (e->a == LSA_KMAP_EMPTY || k == m->n)
			continue;
		if ((err = loop_p(l, (uint32_t)(hi ? e->a >> 32 : e->a), &pl)))
			break;
		sb = lsd_sblock(l->d, (size_t)e->b);
		v[k].a = hi ? (uint64_t)pl << 32 | (e->a & 0xffffffffu) : pl;
		v[k].start = sb ? sb->start : e->b;
		v[k].pid = sb ? sb->pid : 0;
		v[k++].e = e;
	}
	if (err) {
		free(v);
		return err;
	}
	qsort(v, k, sizeof(*v), bent_cmp);
	*out = v;
	*n = k;
	return 0;
}

static void copy_cls(uint64_t *dst, const struct lsa_cnt *c)
{
	memcpy(dst, &c->n[1], LSP_NCLASS * sizeof(*dst));
}

/* Entries of trip count 1 that ran before their head was known as one
 * (the detector learns heads at their first loop back): counted now.
 * Their instructions stay with the code around them and they add no
 * loop call graph edge: where they were entered from is not kept. */
static int early_add(struct lsa_loops *l, struct lsa_thr *t, uint32_t loop,
		     uint64_t n)
{
	struct lsa_lrow *r = lsa_loops_lrow(t, loop);

	if (!r)
		return -LS_ENOMEM;
	if (!r->entries || r->tmin > 1)
		r->tmin = 1;
	if (r->tmax < 1)
		r->tmax = 1;
	r->entries += n;
	r->iterations += n;
	if (l->o.trip_limit > 1) {
		uint64_t *v = lsa_kmap_get(&t->trips, loop, 1);

		if (!v)
			return -LS_ENOMEM;
		*v += n;
	} else {
		r->over_e += n;
		r->over_s += n;
	}
	return 0;
}

static int add_early_entries(struct lsa_loops *l, struct lsa_thr *t)
{
	size_t i;
	int err = 0;

	/* not when the code around it was the same cycle, entered at
	 * another block: the owner's head lies in this loop's body */
	for (i = 0; i < l->nloops && !err; i++) {
		uint32_t id = l->loops[i].hid;

		if (id < t->npre && t->pre[id] && lsa_loops_head(t, id) == i + 1 &&
		    lsa_loops_entry_ok(l, t, (uint32_t)i, t->preo[id]))
			err = early_add(l, t, (uint32_t)i, t->pre[id]);
	}
	if (!err)
		err = lsa_loops_more_put(t);
	for (i = 0; i < t->pre_more.cap && !err; i++) {
		const struct lsa_kent *e = &t->pre_more.t[i];
		uint32_t loop;

		if (e->a == LSA_KMAP_EMPTY || !lsa_loops_head(t, (uint32_t)e->a))
			continue;
		loop = t->head[e->a] - 1;
		if (lsa_loops_entry_ok(l, t, loop, (uint32_t)e->b))
			err = early_add(l, t, loop, e->v);
	}
	if (t->pre)
		memset(t->pre, 0, t->npre * sizeof(*t->pre));
	lsa_kmap_release(&t->pre_more);
	return err;
}

/* Two of the detector's loops can be one loop of the profile, whose key
 * is the head's address: heads that are two static blocks starting at
 * one instruction (a jump into overlapping code; a chunk decoded alone
 * that cut a block short; fuzz_decode found one).  Their rows of a
 * thread are one row, summed, as the tails' are (same_tail()): the row
 * of key (a, b) among those rows, kept in m as index + 1, or 0 with *v
 * to set once the row is added.  Returns 0 or -LS_ENOMEM. */
static int same_row(struct lsa_kmap *m, uint64_t a, uint64_t b, uint64_t **v)
{
	return (*v = lsa_kmap_get(m, a, b)) ? 0 : -LS_ENOMEM;
}

static void lstat_merge(struct lsp_lstat *d, const struct lsp_lstat *s)
{
	unsigned k;

	d->trip_min = d->trip_min < s->trip_min ? d->trip_min : s->trip_min;
	d->trip_max = d->trip_max > s->trip_max ? d->trip_max : s->trip_max;
	d->entries += s->entries;
	d->iterations += s->iterations;
	d->self += s->self;
	d->total += s->total;
	for (k = 0; k < LSP_NCLASS; k++) {
		d->self_ic[k] += s->self_ic[k];
		d->total_ic[k] += s->total_ic[k];
	}
	d->over_entries += s->over_entries;
	d->over_sum += s->over_sum;
}

static int put_loops(struct lsa_loops *l, struct lsa_thr *t, uint32_t th)
{
	struct lsa_kmap rows = { 0 };
	uint64_t *v;
	uint32_t i;
	int err;

	err = add_early_entries(l, t);
	if (err)
		return err;
	for (i = 0; i < t->nlr && i < l->nloops && !err; i++) {
		const struct lsa_lrow *r = &t->lr[i];
		struct lsp_lstat s;

		if (!r->entries)
			continue;
		memset(&s, 0, sizeof(s));
		err = loop_p(l, i, &s.loop);
		if (err)
			break;
		s.thread = th;
		s.entries = r->entries;
		s.iterations = r->iterations;
		s.self = r->self.n[0];
		s.total = r->total.n[0];
		copy_cls(s.self_ic, &r->self);
		copy_cls(s.total_ic, &r->total);
		s.trip_min = r->tmin;
		s.trip_max = r->tmax;
		s.over_entries = r->over_e;
		s.over_sum = r->over_s;
		if ((err = same_row(&rows, s.loop, 0, &v)))
			break;
		if (*v) {
			lstat_merge(&l->p->lstats[*v - 1], &s);
		} else if (!(err = lsp_add_lstat(l->p, &s))) {
			*v = l->p->n_lstats;
		}
	}
	lsa_kmap_release(&rows);
	return err;
}

/* Overlapping code (a jump into the middle of an instruction, as a
 * damaged or hostile trace may take) makes two static blocks that end
 * at the same instruction: their rows of a loop are one row of the
 * profile, whose key is the instruction (formats/profile.md).  The row
 * among the rows of this thread from index `from` on that already has
 * t's key, or NULL; by_block() keeps a loop's rows together (a loop of
 * the profile's: two of the detector's that are one, too). */
static struct lsp_tail *same_tail(struct lsp_profile *p, size_t from,
				  const struct lsp_tail *t)
{
	size_t i;

	for (i = p->n_tails; i-- > from && p->tails[i].loop == t->loop;)
		if (p->tails[i].off == t->off)
			return &p->tails[i];
	return NULL;
}

/* The same for a call row (its key: loop, module, callee, offset). */
static struct lsp_call *same_call(struct lsp_profile *p, size_t from,
				  const struct lsp_call *c)
{
	size_t i;

	for (i = p->n_calls; i-- > from && p->calls[i].loop == c->loop &&
			     p->calls[i].callee == c->callee;)
		if (p->calls[i].module == c->module && p->calls[i].off == c->off)
			return &p->calls[i];
	return NULL;
}

static int put_maps(struct lsa_loops *l, struct lsa_thr *t, uint32_t th)
{
	struct bent *ents = NULL;
	size_t i, n = 0, from;
	int err = lsa_loops_maps_put(t);

	struct lsa_kmap rows = { 0 };
	uint64_t *v;

	/* (rows of one profile loop summed: same_row()) */
	for (i = 0; i < t->trips.cap && !err; i++) {
		const struct lsa_kent *e = &t->trips.t[i];
		struct lsp_trip tr = { 0, th, e->b, e->v };

		if (e->a == LSA_KMAP_EMPTY)
			continue;
		err = loop_p(l, (uint32_t)e->a, &tr.loop);
		if (!err)
			err = same_row(&rows, tr.loop, tr.trips, &v);
		if (!err && *v)
			l->p->trips[*v - 1].entries += tr.entries;
		else if (!err && !(err = lsp_add_trip(l->p, &tr)))
			*v = l->p->n_trips;
	}
	lsa_kmap_release(&rows);
	for (i = 0; i < t->edges.cap && !err; i++) {
		const struct lsa_kent *e = &t->edges.t[i];
		struct lsp_edge ed = { LSP_NONE, 0, th, 0, 0 };

		if (e->a == LSA_KMAP_EMPTY)
			continue;
		ed.count = t->erows[e->v - 1].count;
		ed.total = t->erows[e->v - 1].total;
		if (e->a)
			err = loop_p(l, (uint32_t)(e->a - 1), &ed.parent);
		if (!err)
			err = loop_p(l, (uint32_t)e->b, &ed.child);
		if (!err)
			err = same_row(&rows, (uint64_t)ed.parent + 1, ed.child, &v);
		if (!err && *v) {
			l->p->edges[*v - 1].count += ed.count;
			l->p->edges[*v - 1].total += ed.total;
		} else if (!err && !(err = lsp_add_edge(l->p, &ed))) {
			*v = l->p->n_edges;
		}
	}
	lsa_kmap_release(&rows);
	if (!err && (err = by_block(l, &t->tails, 0, &ents, &n)) != 0)
		return err;
	from = l->p->n_tails;
	for (i = 0; i < n && !err; i++) {
		const struct lsa_kent *e = ents[i].e;
		struct lsp_tail tl = { 0, th, 0, 0, e->v, 0, NULL }, *same;
		uint32_t mod;

		const struct lsd_sblock *sb = lsd_sblock(l->d, (size_t)e->b);
		int falls = lsd_sblock_falls(sb);
		struct lsd_symbol_info info;

		err = loop_p(l, (uint32_t)e->a, &tl.loop);
		if (!err)
			err = last_insn(l, (uint32_t)e->b, &mod, &tl.off, &tl.vaddr);
		if (!err && falls && !lsa_kmap_get(&l->falltail, tl.loop, tl.off))
			err = -LS_ENOMEM;
		/* the label it gives (label_loops()), kept so that merged
		 * profiles can label a loop whose best branch changed */
		if (!err && !falls && sb && sb->module >= 0) {
			lsa_loops_sym_lookup(l, sb->module, tl.off, l->o.want_lines, &info);
			if (info.file && info.line > 0) {
				tl.line = (uint32_t)info.line;
				tl.file = (char *)info.file;
			}
		}
		if (!err && (same = same_tail(l->p, from, &tl)) != NULL)
			same->count += tl.count;
		else if (!err)
			err = lsp_add_tail(l->p, &tl);
	}
	free(ents);
	ents = NULL;
	if (!err && ((err = lsa_loops_calls_flush(t)) != 0 ||
		     (err = by_block(l, &t->calls, 1, &ents, &n)) != 0))
		return err;
	from = l->p->n_calls;
	for (i = 0; i < n && !err; i++) {
		const struct lsa_kent *e = ents[i].e;
		struct lsp_call c = { 0, th, 0, 0, 0, LSP_NONE, e->v }, *same;

		err = loop_p(l, (uint32_t)(e->a >> 32), &c.loop);
		if (!err)
			err = func_p(l, (uint32_t)e->a, &c.callee);
		if (!err)
			err = last_insn(l, (uint32_t)e->b, &c.module, &c.off, &c.vaddr);
		if (!err && (same = same_call(l->p, from, &c)) != NULL)
			same->count += c.count;
		else if (!err)
			err = lsp_add_call(l->p, &c);
	}
	free(ents);
	return err;
}

static int put_funcs(struct lsa_loops *l, struct lsa_thr *t, uint32_t th)
{
	uint64_t *ll = calloc(l->nfuncs + 1, sizeof(*ll));
	uint32_t i;
	int err = 0;

	if (!ll)
		return -LS_ENOMEM;
	for (i = 0; i < t->nlr && i < l->nloops; i++)
		if (l->loops[i].func != LSA_NONE)
			ll[l->loops[i].func] += t->lr[i].self.n[0];
	for (i = 0; i < t->nfw && i < l->nfuncs && !err; i++) {
		const struct lsa_frow *r = &t->fw[i];
		struct lsp_fstat f = { 0, th, r->self, r->total, ll[i], r->calls };

		if (!r->self && !r->calls && !ll[i])
			continue;
		err = func_p(l, i, &f.func);
		if (!err)
			err = lsp_add_fstat(l->p, &f);
	}
	free(ll);
	return err;
}

int lsa_loops_flush_thread(struct lsa_loops *l, struct lsa_thr *t)
{
	struct lsp_thread th;
	int i, err;

	memset(&th, 0, sizeof(th));
	th.run = l->run;
	th.pid = t->pid;
	th.tid = t->tid;
	th.insns = t->insns;
	th.outside = t->outside.n[0];
	copy_cls(th.outside_ic, &t->outside);
	th.losses = t->losses;
	i = lsp_thread_add(l->p, &th);
	if (i < 0)
		return i;
	err = put_loops(l, t, (uint32_t)i);
	if (!err)
		err = put_maps(l, t, (uint32_t)i);
	if (!err)
		err = put_funcs(l, t, (uint32_t)i);
	return err;
}

void lsa_thr_release(struct lsa_thr *t)
{
	free(t->path);
	free(t->fr);
	free(t->mem);
	free(t->os);
	free(t->lr);
	free(t->fw);
	free(t->erows);
	free(t->pre);
	free(t->preo);
	lsa_memo_release(&t->memo);
	lsa_cm_release(&t->cm);
	lsa_fm_release(&t->fm);
	lsa_kmap_release(&t->pre_more);
	free(t->pmc);
	t->pmc = NULL;
	t->pre = t->preo = NULL;
	t->npre = 0;
	lsa_kmap_release(&t->trips);
	lsa_kmap_release(&t->edges);
	lsa_kmap_release(&t->tails);
	lsa_kmap_release(&t->calls);
	t->cl_on = 0;
	lsa_kmap_release(&t->body);
	free(t->head);
	free(t->inb);
	free(t->inb2);
	free(t->notb);
	t->notb = NULL;
	free(t->nbl);
	t->nbl = NULL;
	free(t->lflag);
	t->lflag = NULL;
	free(t->ecls);
	t->ecls = NULL;
	free(t->eret);
	t->eret = NULL;
	lsa_kmap_release(&t->land);
	free(t->nbody);
	t->head = t->inb = t->inb2 = NULL;
	t->nk = 0;
	t->nbody = NULL;
	t->nnbody = 0;
	t->path = NULL;
	t->fr = NULL;
	t->mem = t->os = NULL;
	t->nmem = 0;
	t->lr = NULL;
	t->fw = NULL;
	t->erows = NULL;
	t->npath = t->cappath = t->nfr = t->capfr = 0;
	t->nos = t->capos = t->nlr = t->nfw = 0;
	t->nerows = t->caperows = 0;
}

/* ---- the decoder's callbacks ---- */

static int cb_block(void *arg, size_t stream, const struct lsd_block *b)
{
	return lsa_loops_block(arg, stream, b);
}

/* The decoder's batches: one call per batch, the blocks in order. */
static int cb_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	return lsa_loops_blocks(arg, stream, b, n);
}

static int cb_loss(void *arg, size_t stream, const struct lsd_loss *ls)
{
	struct lsa_loops *l = arg;
	struct lsa_thr *t = lsa_loops_thread(l, stream);

	(void)ls;
	if (!t)
		return -LS_ENOMEM;
	t->losses++;	/* a stream with nothing but losses still gets its row */
	return 0;
}

/* A thread's state is made on its first block or loss: a thread with
 * neither gets no row. */
static int cb_begin(void *arg, size_t stream, const struct lsb_stream *s)
{
	return lsa_loops_stream_begin(arg, stream, s && s->kind == LSB_STREAM_CPU,
				      s ? s->pid : 0, s ? s->tid : 0);
}

/* The thread a stream's blocks belong to (per-CPU streams: each time the
 * decoder sees another, see decode.h). */
static int cb_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	return lsa_loops_set_thread(arg, stream, pid, tid);
}

static int cb_end(void *arg, size_t stream, const struct lsd_stream_stats *st)
{
	(void)st;
	return lsa_loops_stream_end(arg, stream);	/* per-CPU: at finish */
}

const struct lsd_callbacks lsa_loops_callbacks = {
	.block = cb_block,
	.blocks = cb_blocks,
	.loss = cb_loss,
	.stream_begin = cb_begin,
	.stream_end = cb_end,
	.thread = cb_thread,
};
