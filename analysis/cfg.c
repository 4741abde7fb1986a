/* cfg.c - the executed CFG: blocks, the edge table and the stream of
 * executed blocks with its shadow call stack (see cfg.h for the view). */
#include <stdlib.h>
#include <string.h>

#include "analysis/cfg_int.h"
#include "formats/profile.h"
#include "ls_buf.h"
#include "ls_err.h"

/* The names are the profile's (formats/profile.md, cedge records): one
 * table for both; none is "" here, as the exports print it. */
_Static_assert(LSA_CFG_KIND_MAX == LSP_CKIND_MAX && LSA_CFG_W_MAX == LSP_CWHY_MAX,
	       "edge kinds and whys as formats/profile_cgraph.c names them");

const char *lsa_cfg_kind_name(int kind)
{
	return kind >= 0 ? lsp_ckind_name((unsigned)kind) : "?";
}

const char *lsa_cfg_why_name(int why)
{
	return why == LSA_CFG_W_NONE ? "" : why > 0 ? lsp_cwhy_name((unsigned)why) : "?";
}

int lsa_cfg_is_flow(const struct lsa_cfg_edge *e)
{
	if (e->kind == LSA_CFG_IN || e->kind == LSA_CFG_OUT)
		return 1;
	return e->kind <= LSA_CFG_CALLRET &&
	       !(e->flags & (LSA_CFG_F_XFER | LSA_CFG_F_UNREACHED));
}

int lsa_cfg_new(struct lsa_cfg **pc, struct lsd_symbols *sym,
		const struct lsa_cfg_opts *o)
{
	struct lsa_cfg *c;

	if (!pc || LS_OPTS_BAD(o))
		return -LS_EINVAL;
	*pc = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -LS_ENOMEM;
	c->sym = sym;
	c->img = o ? o->img : NULL;
	if (o && o->obs)
		c->obs = *o->obs;
	c->jobs = o ? o->jobs : 0;
	c->w.prev = LSA_CFG_NONE;
	c->cur = LSA_CFG_NONE;
	*pc = c;
	return 0;
}

static uint64_t edge_hash(uint32_t from, uint32_t to, int kind, int why)
{
	uint64_t h = ((uint64_t)from << 32 | to) * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(kind << 8 | why) * 0xc2b2ae3d27d4eb4full;
	return h ^ (h >> 29);
}

static int rehash(struct lsa_cfg *c)
{
	size_t n = c->nslots ? 2 * c->nslots : 1024, i;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -LS_ENOMEM;
	for (i = 0; i < c->nedges; i++) {
		const struct lsa_cfg_edge *e = &c->edges[i];
		size_t k = edge_hash(e->from, e->to, e->kind, e->why) & (n - 1);

		while (s[k])
			k = (k + 1) & (n - 1);
		s[k] = (uint32_t)i + 1;
	}
	free(c->slots);
	c->slots = s;
	c->nslots = n;
	return 0;
}

long lsa_cfg_edge_add(struct lsa_cfg *c, uint32_t from, uint32_t to,
		      int kind, int why, uint64_t count)
{
	size_t k;
	struct lsa_cfg_edge *e;

	if (2 * (c->nedges + 1) > c->nslots && rehash(c) < 0)
		return -LS_ENOMEM;
	k = edge_hash(from, to, kind, why) & (c->nslots - 1);
	while (c->slots[k]) {
		e = &c->edges[c->slots[k] - 1];
		if (e->from == from && e->to == to && e->kind == kind && e->why == why) {
			e->count += count;
			return (long)(c->slots[k] - 1);
		}
		k = (k + 1) & (c->nslots - 1);
	}
	if (LS_GROW(c->edges, c->nedges + 1, c->capedges, 256))
		return -LS_ENOMEM;
	e = &c->edges[c->nedges];
	memset(e, 0, sizeof(*e));
	e->from = from;
	e->to = to;
	e->kind = (uint8_t)kind;
	e->why = (uint8_t)why;
	e->count = count;
	c->slots[k] = (uint32_t)++c->nedges;
	return (long)(c->nedges - 1);
}

static int grow_blocks(struct lsa_cfg *c, uint32_t id)
{
	size_t n = c->nblk ? c->nblk : 1024, i;
	struct lsa_cfg_block *b;
	uint32_t *a, (*ec)[2];

	while (n <= id)
		n *= 2;
	b = ls_reallocarray(c->blk, n, sizeof(*b));
	if (!b)
		return -LS_ENOMEM;
	c->blk = b;
	a = ls_reallocarray(c->active, n, sizeof(*a));
	if (!a)
		return -LS_ENOMEM;
	c->active = a;
	ec = ls_reallocarray(c->ecache, n, sizeof(*ec));
	if (!ec)
		return -LS_ENOMEM;
	c->ecache = ec;
	for (i = c->nblk; i < n; i++) {
		memset(&b[i], 0, sizeof(b[i]));
		b[i].func = LSA_CFG_NONE;
		a[i] = 0;
		ec[i][0] = ec[i][1] = 0;
	}
	c->nblk = n;
	return 0;
}

/* Closes frame f: its callee ran from f->insn_at to now.  Only the
 * outermost open activation of a call site adds, so a recursive call
 * site does not count its inner calls twice. */
static int close_frame(struct lsa_cfg *c, const struct lsa_cfg_frame *f)
{
	if (--c->active[f->callblk] == 0)
		c->blk[f->callblk].callee_insns += c->w.insns - f->insn_at;
	return c->obs.pop ? c->obs.pop(c->obs.arg, c->cur, f->callblk) : 0;
}

/* Pops frames above index keep (exclusive) as calls that never returned. */
static int unwind_to(struct lsa_cfg *c, size_t keep, int why)
{
	while (c->w.nframes > keep) {
		struct lsa_cfg_frame *f = &c->w.frames[--c->w.nframes];
		int err = close_frame(c, f);

		if (err < 0)
			return err;
		if (lsa_cfg_edge_add(c, f->callblk, LSA_CFG_NONE, LSA_CFG_OUT, why, 1) < 0)
			return -LS_ENOMEM;
		if (why == LSA_CFG_W_UNWOUND)
			c->st.unwound++;
		else
			c->st.noreturn++;
	}
	return 0;
}

static int push_frame(struct lsa_cfg *c, uint32_t callblk, uint64_t retaddr)
{
	if (LS_GROW(c->w.frames, c->w.nframes + 1, c->w.capframes, 64))
		return -LS_ENOMEM;
	c->w.frames[c->w.nframes].callblk = callblk;
	c->w.frames[c->w.nframes].retaddr = retaddr;
	c->w.frames[c->w.nframes].insn_at = c->w.insns;
	c->w.nframes++;
	c->active[callblk]++;
	if (c->w.nframes > c->st.max_depth)
		c->st.max_depth = c->w.nframes;
	return c->obs.push ? c->obs.push(c->obs.arg, c->cur, callblk) : 0;
}

/* A return landed on block id: pair it with the innermost open call whose
 * return address it is; calls above that one were skipped (longjmp). */
static int on_return(struct lsa_cfg *c, uint32_t id, uint64_t at)
{
	size_t j = c->w.nframes;
	int err;

	while (j > 0 && c->w.frames[j - 1].retaddr != at)
		j--;
	if (j == 0) {
		c->st.unmatched_rets++;
		return lsa_cfg_edge_add(c, LSA_CFG_NONE, id, LSA_CFG_IN,
					LSA_CFG_W_UNMATCHED, 1) < 0 ? -LS_ENOMEM : 0;
	}
	if ((err = unwind_to(c, j, LSA_CFG_W_UNWOUND)) < 0)
		return err;
	c->w.nframes--;
	if ((err = close_frame(c, &c->w.frames[j - 1])) < 0)
		return err;
	return lsa_cfg_edge_add(c, c->w.frames[j - 1].callblk, id, LSA_CFG_CALLRET,
				0, 1) < 0 ? -LS_ENOMEM : 0;
}

static int out_edge(struct lsa_cfg *c, uint32_t from, int why)
{
	return lsa_cfg_edge_add(c, from, LSA_CFG_NONE, LSA_CFG_OUT, why, 1) < 0 ?
	       -LS_ENOMEM : 0;
}

/* Counts one more of the edge (p, id, kind), why none: from p's edge
 * cache where it holds that edge, else the table (lsa_cfg_edge_add(),
 * which also makes it; edge indexes never move).  Returns the edge
 * index or -LS_ENOMEM. */
static inline long flow_edge(struct lsa_cfg *c, uint32_t p, uint32_t id, int kind)
{
	uint32_t *slot = &c->ecache[p][kind == LSA_CFG_NOTTAKEN];
	long r;

	if (*slot) {
		struct lsa_cfg_edge *e = &c->edges[*slot - 1];

		if (e->to == id && e->kind == kind && !e->why) {
			e->count++;
			return (long)*slot - 1;
		}
	}
	r = lsa_cfg_edge_add(c, p, id, kind, 0, 1);
	if (r >= 0)
		*slot = (uint32_t)r + 1;
	return r;
}

/* The edge from the previous block (exit prev_exit) to block id.
 * always_inline, as feed_one(): once per block. */
static inline __attribute__((always_inline)) int
transition(struct lsa_cfg *c, uint32_t id, const struct lsd_sblock *sb)
{
	uint32_t p = c->w.prev;
	long r = 0;
	int err;

	if (p == LSA_CFG_NONE)
		return lsa_cfg_edge_add(c, LSA_CFG_NONE, id, LSA_CFG_IN,
					c->w.in_why, 1) < 0 ? -LS_ENOMEM : 0;
	switch (c->w.prev_exit) {
	case LSD_EXIT_FALL:
		r = flow_edge(c, p, id, LSA_CFG_FALL);
		break;
	case LSD_EXIT_COND_TAKEN:
		r = flow_edge(c, p, id, LSA_CFG_TAKEN);
		break;
	case LSD_EXIT_COND_NOT:
		r = flow_edge(c, p, id, LSA_CFG_NOTTAKEN);
		break;
	case LSD_EXIT_JUMP:
		r = flow_edge(c, p, id, LSA_CFG_JUMP);
		break;
	case LSD_EXIT_IJUMP:
		r = flow_edge(c, p, id, LSA_CFG_IJUMP);
		break;
	case LSD_EXIT_CALL:
	case LSD_EXIT_ICALL:
		r = flow_edge(c, p, id, LSA_CFG_CALL);
		if (r >= 0 && (err = push_frame(c, p, c->blk[p].sb->end)) < 0)
			return err;
		break;
	case LSD_EXIT_RET:
		r = flow_edge(c, p, id, LSA_CFG_RET);
		if (r >= 0 && (err = on_return(c, id, sb->start)) < 0)
			return err;
		break;
	case LSD_EXIT_SYSCALL:
		if (sb->start == c->blk[p].sb->end) {
			r = flow_edge(c, p, id, LSA_CFG_SYSRET);
			break;
		}
		r = out_edge(c, p, LSA_CFG_W_SYSCALL);
		if (r >= 0)
			r = lsa_cfg_edge_add(c, LSA_CFG_NONE, id, LSA_CFG_IN,
					     LSA_CFG_W_SYSCALL, 1);
		break;
	default:	/* ASYNC; GAP and END were closed when seen */
		r = out_edge(c, p, LSA_CFG_W_ASYNC);
		if (r >= 0)
			r = lsa_cfg_edge_add(c, LSA_CFG_NONE, id, LSA_CFG_IN,
					     LSA_CFG_W_ASYNC, 1);
		break;
	}
	return r < 0 ? -LS_ENOMEM : 0;
}

/* The walk of stream's thread loaded and open, before its blocks.
 * Returns 0 or -LS_ENOMEM. */
static int feed_begin(struct lsa_cfg *c, size_t stream)
{
	int err;

	if ((c->cur == LSA_CFG_NONE || c->w.stream != stream ||
	     c->sctx[stream] != c->cur) && (err = lsa_cfg_ctx_enter(c, stream)) < 0)
		return err;
	if (!c->w.open) {
		c->w.open = 1;
		c->w.stream = stream;
		c->w.prev = LSA_CFG_NONE;
		c->w.in_why = LSA_CFG_W_START;
		c->w.insns = 0;
		c->st.streams++;
	}
	return 0;
}

/* One block of the loaded walk.  always_inline: a batch runs it per
 * block, and the call was a fifth of its cost.  Returns 0, -LS_EINVAL
 * or -LS_ENOMEM. */
static inline __attribute__((always_inline)) int feed_one(struct lsa_cfg *c, const struct lsd_block *b)
{
	const struct lsd_sblock *sb = b->sb;
	uint32_t id;
	int err;

	if (!sb || sb->id == LSA_CFG_NONE)
		return -LS_EINVAL;
	id = sb->id;
	if (id >= c->nblk && (err = grow_blocks(c, id)) < 0)
		return err;
	c->blk[id].sb = sb;
	if ((err = transition(c, id, sb)) < 0)
		return err;
	c->blk[id].count++;
	c->w.insns += sb->ninsn;
	c->st.blocks++;
	c->st.insns += sb->ninsn;
	c->w.prev = id;
	c->w.prev_exit = b->exit;
	if (c->obs.block && (err = c->obs.block(c->obs.arg, c->cur, id)) < 0)
		return err;
	if (b->exit == LSD_EXIT_GAP || b->exit == LSD_EXIT_END) {
		if ((err = out_edge(c, id, b->exit == LSD_EXIT_GAP ?
				    LSA_CFG_W_GAP : LSA_CFG_W_END)) < 0)
			return err;
		c->w.prev = LSA_CFG_NONE;
		c->w.in_why = LSA_CFG_W_RESUME;
	}
	return 0;
}

int lsa_cfg_feed(struct lsa_cfg *c, size_t stream, const struct lsd_block *b)
{
	int err;

	if (!c || !b || !b->sb || c->finished)
		return -LS_EINVAL;
	if ((err = feed_begin(c, stream)) < 0)
		return err;
	return feed_one(c, b);
}

int lsa_cfg_feed_n(struct lsa_cfg *c, size_t stream, const struct lsd_block *b,
		   size_t n)
{
	size_t i;
	int err;

	if (!c || (n && !b) || c->finished)
		return -LS_EINVAL;
	if (!n)
		return 0;
	/* a batch is one thread's (the decoder hands it over before a
	 * thread switch), so its walk is loaded once */
	if ((err = feed_begin(c, stream)) < 0)
		return err;
	for (i = 0; i < n; i++)
		if ((err = feed_one(c, &b[i])) < 0)
			return err;
	return 0;
}

int lsa_cfg_stream_end(struct lsa_cfg *c)
{
	int err = 0, why;

	if (!c || !c->w.open)
		return 0;
	if (c->w.prev != LSA_CFG_NONE) {
		why = c->w.prev_exit == LSD_EXIT_SYSCALL ? LSA_CFG_W_SYSCALL :
		      c->w.prev_exit == LSD_EXIT_ASYNC ? LSA_CFG_W_ASYNC : LSA_CFG_W_END;
		err = out_edge(c, c->w.prev, why);
	}
	if (!err)
		err = unwind_to(c, 0, LSA_CFG_W_NORETURN);
	if (!err && c->obs.end)
		err = c->obs.end(c->obs.arg, c->cur);
	c->w.open = 0;
	c->w.prev = LSA_CFG_NONE;
	c->w.nframes = 0;
	if (c->cur != LSA_CFG_NONE)
		c->ctx[c->cur].ended = 1;
	return err;
}

static int cb_block(void *arg, size_t stream, const struct lsd_block *b)
{
	return lsa_cfg_feed(arg, stream, b);
}

static int cb_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	return lsa_cfg_feed_n(arg, stream, b, n);
}

static int cb_begin(void *arg, size_t stream, const struct lsb_stream *s)
{
	return lsa_cfg_ctx_stream(arg, stream, s && s->kind == LSB_STREAM_CPU);
}

/* A per-thread stream's end ends its thread's walk; a per-CPU stream's
 * threads may go on in another stream and end at finish. */
static int cb_end(void *arg, size_t stream, const struct lsd_stream_stats *st)
{
	struct lsa_cfg *c = arg;
	int err;

	(void)st;
	if (lsa_cfg_ctx_cpu(c, stream) || stream >= c->nstreams ||
	    c->sctx[stream] == LSA_CFG_NONE)
		return 0;
	if ((err = lsa_cfg_ctx_enter(c, stream)) < 0)
		return err;
	return lsa_cfg_stream_end(c);
}

/* Another thread's blocks follow on a per-CPU stream. */
static int cb_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	return lsa_cfg_ctx_thread(arg, stream, pid, tid);
}

const struct lsd_callbacks lsa_cfg_callbacks = {
	.block = cb_block,
	.blocks = cb_blocks,
	.stream_begin = cb_begin,
	.stream_end = cb_end,
	.thread = cb_thread,
};

int lsa_cfg_build(struct lsa_cfg *c, struct lsd_decoder *d)
{
	int err;

	if (!c || !d)
		return -LS_EINVAL;
	/* the graph's callbacks touch neither d nor its reader: they may
	 * run on a thread of their own beside the decode, where that costs
	 * less */
	if ((err = c->jobs > 1 ? lsd_decode_all_adapt(d, &lsa_cfg_callbacks, c, NULL, NULL) :
		   lsd_decode_all(d, &lsa_cfg_callbacks, c, NULL)) < 0 ||
	    (err = lsa_cfg_ctx_end_all(c)) < 0)
		return err;
	return lsa_cfg_finish(c);
}

void lsa_cfg_get_stats(const struct lsa_cfg *c, struct lsa_cfg_stats *st)
{
	*st = c->st;
}

void lsa_cfg_free(struct lsa_cfg *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; c->names && i < c->nfuncs; i++)
		free(c->names[i]);
	free(c->names);
	free(c->own_sb);
	lsa_cfg_ctx_free(c);
	free(c->blk), free(c->active), free(c->ecache), free(c->edges), free(c->slots);
	free(c->w.frames), free(c->funcs), free(c->fblocks), free(c->by_addr);
	free(c->out_off), free(c->in_off), free(c->out_list), free(c->in_list);
	free(c);
}
