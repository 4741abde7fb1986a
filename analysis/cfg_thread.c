/* cfg_thread.c - one walk through the graph per thread.
 *
 * The graph is built from each thread's blocks in order: the last block
 * (the edge to the next), the open calls (a return's edge to its call
 * site) and the instruction count.  A per-thread stream is one thread; a
 * per-CPU stream switches between threads, and lsd_decode_all() moves
 * between streams, so each thread keeps its walk in a context and the one
 * whose blocks come is loaded into struct lsa_cfg.  The per-block counts
 * of open calls (lsa_cfg.active) are the loaded thread's: a context's
 * calls leave them when it is saved and come back when it is loaded.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/cfg_int.h"
#include "ls_buf.h"
#include "ls_err.h"

static int stream_slot(struct lsa_cfg *c, size_t stream)
{
	size_t n, i;
	uint32_t *s;
	uint8_t *k;

	if (stream < c->nstreams)
		return 0;
	n = stream + 8;
	s = ls_reallocarray(c->sctx, n, sizeof(*s));
	if (!s)
		return -LS_ENOMEM;
	c->sctx = s;
	k = realloc(c->scpu, n);
	if (!k)
		return -LS_ENOMEM;
	c->scpu = k;
	for (i = c->nstreams; i < n; i++) {
		s[i] = LSA_CFG_NONE;
		k[i] = 0;
	}
	c->nstreams = n;
	return 0;
}

static uint32_t ctx_new(struct lsa_cfg *c, uint32_t pid, uint32_t tid, int shared)
{
	struct lsa_cfg_ctx *x;

	if (LS_GROW32(c->ctx, c->nctx + 1, c->capctx, 8))
		return LSA_CFG_NONE;
	x = &c->ctx[c->nctx];
	memset(x, 0, sizeof(*x));
	x->pid = pid;
	x->tid = tid;
	x->shared = (uint8_t)shared;
	x->w.prev = LSA_CFG_NONE;
	return c->nctx++;
}

/* Saves the loaded walk into its context. */
static void ctx_save(struct lsa_cfg *c)
{
	size_t i;

	if (c->cur == LSA_CFG_NONE)
		return;
	for (i = 0; i < c->w.nframes; i++)
		c->active[c->w.frames[i].callblk]--;
	c->ctx[c->cur].w = c->w;
	memset(&c->w, 0, sizeof(c->w));
	c->w.prev = LSA_CFG_NONE;
	c->cur = LSA_CFG_NONE;
}

/* Loads context k's walk (the loaded one saved first). */
static void ctx_load(struct lsa_cfg *c, uint32_t k)
{
	size_t i;

	if (c->cur == k)
		return;
	ctx_save(c);
	c->w = c->ctx[k].w;
	memset(&c->ctx[k].w, 0, sizeof(c->ctx[k].w));
	for (i = 0; i < c->w.nframes; i++)
		c->active[c->w.frames[i].callblk]++;
	c->cur = k;
}

int lsa_cfg_ctx_stream(struct lsa_cfg *c, size_t stream, int cpu)
{
	if (stream_slot(c, stream) < 0)
		return -LS_ENOMEM;
	c->scpu[stream] = (uint8_t)!!cpu;
	c->sctx[stream] = LSA_CFG_NONE;	/* a thread's stream: made at its first block */
	return 0;
}

int lsa_cfg_ctx_cpu(const struct lsa_cfg *c, size_t stream)
{
	return stream < c->nstreams && c->scpu[stream];
}

int lsa_cfg_ctx_thread(struct lsa_cfg *c, size_t stream, uint32_t pid, uint32_t tid)
{
	uint32_t k;

	if (stream_slot(c, stream) < 0)
		return -LS_ENOMEM;
	if (!c->scpu[stream])
		return 0;
	/* Few threads, and this runs at switches only. */
	for (k = 0; k < c->nctx; k++)
		if (c->ctx[k].shared && !c->ctx[k].ended &&
		    c->ctx[k].pid == pid && c->ctx[k].tid == tid)
			break;
	if (k == c->nctx && (k = ctx_new(c, pid, tid, 1)) == LSA_CFG_NONE)
		return -LS_ENOMEM;
	c->sctx[stream] = k;
	return 0;
}

int lsa_cfg_ctx_enter(struct lsa_cfg *c, size_t stream)
{
	uint32_t k;

	if (stream_slot(c, stream) < 0)
		return -LS_ENOMEM;
	k = c->sctx[stream];
	if (k == LSA_CFG_NONE || c->ctx[k].ended) {
		k = ctx_new(c, 0, 0, c->scpu[stream]);
		if (k == LSA_CFG_NONE)
			return -LS_ENOMEM;
		c->sctx[stream] = k;
	}
	ctx_load(c, k);
	c->w.stream = stream;
	return 0;
}

int lsa_cfg_ctx_end_all(struct lsa_cfg *c)
{
	uint32_t k;
	int err = 0;

	if (c->cur != LSA_CFG_NONE)
		err = lsa_cfg_stream_end(c);
	for (k = 0; k < c->nctx && err >= 0; k++) {
		if (c->ctx[k].ended || !c->ctx[k].w.open)
			continue;
		ctx_load(c, k);
		err = lsa_cfg_stream_end(c);
	}
	return err;
}

void lsa_cfg_ctx_free(struct lsa_cfg *c)
{
	uint32_t k;

	for (k = 0; k < c->nctx; k++)
		free(c->ctx[k].w.frames);
	free(c->ctx);
	free(c->sctx);
	free(c->scpu);
	c->ctx = NULL;
	c->sctx = NULL;
	c->scpu = NULL;
	c->nctx = c->capctx = 0;
	c->nstreams = 0;
}
