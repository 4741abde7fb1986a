/* loops_thread.c - the loop detector's threads and streams: which thread
 * state a stream's blocks go to (a per-CPU stream's change at switches),
 * a thread's end, and the detector's making and freeing. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/loops_int.h"
#include "ls_buf.h"
#include "ls_err.h"

static struct lsa_sref *sref_of(struct lsa_loops *l, size_t stream)
{
	if (stream >= l->nsref) {
		size_t n = stream + 8, i;
		struct lsa_sref *p = ls_reallocarray(l->sref, n, sizeof(*p));

		if (!p)
			return NULL;
		for (i = l->nsref; i < n; i++) {
			p[i].slot = LSA_NONE;
			p[i].cpu = 0;
		}
		l->sref = p;
		l->nsref = n;
	}
	return &l->sref[stream];
}

/* A new thread slot, zeroed.  Returns its index, or LSA_NONE. */
static uint32_t slot_new(struct lsa_loops *l, uint32_t pid, uint32_t tid)
{
	struct lsa_thr *t;

	if (LS_GROW(l->thr, l->nthr + 1, l->capthr, 8))
		return LSA_NONE;
	t = &l->thr[l->nthr];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	return (uint32_t)l->nthr++;
}

int lsa_loops_stream_begin(struct lsa_loops *l, size_t stream, int cpu,
			   uint32_t pid, uint32_t tid)
{
	struct lsa_sref *r = sref_of(l, stream);

	if (!r)
		return -LS_ENOMEM;
	r->cpu = (uint8_t)!!cpu;
	r->slot = cpu ? LSA_NONE : slot_new(l, pid, tid);
	return cpu || r->slot != LSA_NONE ? 0 : -LS_ENOMEM;
}

int lsa_loops_set_thread(struct lsa_loops *l, size_t stream, uint32_t pid,
			 uint32_t tid)
{
	struct lsa_sref *r = sref_of(l, stream);
	size_t i;

	if (!r)
		return -LS_ENOMEM;
	if (!r->cpu) {
		struct lsa_thr *t = lsa_loops_slot(l, stream);

		if (!t)
			return -LS_ENOMEM;
		t->pid = pid;
		t->tid = tid;
		return 0;
	}
	/* Few threads, and this runs at switches only. */
	for (i = 0; i < l->nthr; i++)
		if (l->thr[i].shared && !l->thr[i].done &&
		    l->thr[i].pid == pid && l->thr[i].tid == tid)
			break;
	if (i == l->nthr) {
		if ((i = slot_new(l, pid, tid)) == LSA_NONE)
			return -LS_ENOMEM;
		l->thr[i].shared = 1;
	}
	r->slot = (uint32_t)i;
	return 0;
}

struct lsa_thr *lsa_loops_slot(struct lsa_loops *l, size_t stream)
{
	struct lsa_sref *r = sref_of(l, stream);

	if (!r)
		return NULL;
	if (r->slot == LSA_NONE) {
		/* Blocks before any thread was named: the stream's own. */
		if ((r->slot = slot_new(l, 0, 0)) == LSA_NONE)
			return NULL;
		l->thr[r->slot].shared = r->cpu;
	}
	return &l->thr[r->slot];
}

struct lsa_thr *lsa_loops_thread(struct lsa_loops *l, size_t stream)
{
	struct lsa_thr *t = lsa_loops_slot(l, stream);

	if (!t)
		return NULL;
	if (!t->used) {
		t->used = 1;
		if (lsa_loops_frame_push(l, t, 0, LSA_NONE, 0) || lsa_know_give(l, t))
			return NULL;
	}
	return t;
}

struct lsa_thr *lsa_loops_wk_thread(struct lsa_loops *l, size_t kslot)
{
	struct lsa_thr *t;

	if (!l->nthr && slot_new(l, 0, 0) == LSA_NONE)
		return NULL;
	t = &l->thr[0];
	lsa_thr_release(t);
	memset(t, 0, sizeof(*t));
	t->used = 1;	/* (its frames come from the piece's cut) */
	return lsa_know_give_slot(l, t, kslot) ? NULL : t;
}

/* Closes thread t's frames and writes its rows into the profile. */
int lsa_loops_thread_end(struct lsa_loops *l, struct lsa_thr *t)
{
	int err = 0;

	if (!t->used || t->done)
		return 0;
	err = l->learn ? lsa_loops_learn_stop(l, t) : lsa_loops_memo_stop(l, t);
	if (!err)
		err = lsa_cm_stop(l, t);
	if (err)
		return err;
	t->deep = 0;
	while (t->nfr && !err)
		err = lsa_loops_frame_pop(l, t);
	/* (a learning pass writes no rows) */
	if (!err)
		err = l->learn ? lsa_know_take(l, t) : lsa_loops_flush_thread(l, t);
	t->done = 1;
	l->st.learn_memo_blocks += t->fm.taken;
	l->st.learn_memo_iters += t->fm.iters;
	l->st.learn_wide += t->fm.nwide;
	l->st.learn_clears += t->fm.nclear;
	l->st.learn_again += t->fm.again;
	l->st.memo_again += t->memo.again;
	lsa_thr_release(t);
	return err;
}

int lsa_loops_stream_end(struct lsa_loops *l, size_t stream)
{
	if (!l)
		return -LS_EINVAL;
	/* A per-CPU stream's threads may go on in another stream. */
	if (stream >= l->nsref || l->sref[stream].cpu ||
	    l->sref[stream].slot == LSA_NONE)
		return 0;
	return lsa_loops_thread_end(l, &l->thr[l->sref[stream].slot]);
}

int lsa_loops_describe(struct lsa_loops *l, int stop, char **out)
{
	size_t i, len;
	uint32_t k;
	FILE *f;
	int err = 0;

	if (!l || !out)
		return -LS_EINVAL;
	*out = NULL;
	for (i = 0; stop && l->learn && i < l->nthr && !err; i++)
		if (l->thr[i].fm.on)
			err = lsa_loops_learn_stop(l, &l->thr[i]);
	if (err)
		return err;
	if (!(f = open_memstream(out, &len)))
		return -LS_ENOMEM;
	for (i = 0; i < l->nthr; i++) {
		const struct lsa_thr *t = &l->thr[i];

		fprintf(f, "thread %zu: %u frames, %u path entries, %" PRIu64 " deep, %s\n",
			i, t->nfr, t->npath, t->deep, t->fm.on || t->memo.on ? "matching" : "stopped");
		for (k = 0; k < t->nfr; k++)
			fprintf(f, " frame %u: base %u func %d cur %d ret %#" PRIx64 "%s\n", k,
				t->fr[k].base, (int)t->fr[k].func, (int)t->fr[k].cur, t->fr[k].ret,
				t->fr[k].async ? " async" : "");
		for (k = 0; k < t->npath; k++)
			fprintf(f, " %u%s", t->path[k].sb->id,
				lsa_loops_head(t, t->path[k].sb->id) ? "H" : "");
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		return -LS_ENOMEM;
	}
	return 0;
}

int lsa_loops_finish(struct lsa_loops *l)
{
	size_t i;
	int err = 0;

	if (!l)
		return -LS_EINVAL;
	for (i = 0; i < l->nthr && !err; i++)
		err = lsa_loops_thread_end(l, &l->thr[i]);
	return err;
}

int lsa_loops_new(struct lsa_loops **pl, struct lsd_decoder *d,
		  struct lsb_reader *r, struct lsd_symbols *sym,
		  struct lsp_profile *p, uint32_t run,
		  const struct lsa_loops_opts *o)
{
	struct lsa_loops *l;

	if (!pl || !d || !r || !p || LS_OPTS_BAD(o))
		return -LS_EINVAL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -LS_ENOMEM;
	l->d = d;
	l->r = r;
	l->sym = sym;
	l->p = p;
	l->run = run;
	/* (no block's counters yet) */
	l->erun_cap = (size_t)lsa_env_num("LOOPSCOPE_ERUN_BLOCKS", UINT32_MAX);
	if (!l->erun_cap)
		l->erun_cap = UINT32_MAX;
	l->erun_max = l->erun_cap;
	if (o)
		l->o = *o;
	if (!l->o.trip_limit)
		l->o.trip_limit = p->trip_limit ? p->trip_limit : LSP_TRIP_LIMIT;
	l->freeacc = l->freeinst = l->freekid = LSA_NONE;
	l->memo = !l->o.reference && !lsd_env_reference();
	*pl = l;
	return 0;
}

int lsa_loops_one_stream(const struct lsa_loops *l, size_t chunks)
{
	const struct lsb_stream *s = lsb_reader_nstreams(l->r) == 1 ?
				     lsb_reader_stream(l->r, 0) : NULL;

	return s && s->kind == LSB_STREAM_THREAD && lsd_stream_alone(l->d, 0) > 0 &&
	       lsb_reader_nchunks(l->r, 0) >= chunks;
}

void lsa_loops_get_stats(const struct lsa_loops *l, struct lsa_loops_stats *st)
{
	if (l && st)
		*st = l->st;
}

void lsa_loops_free(struct lsa_loops *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->nthr; i++)
		lsa_thr_release(&l->thr[i]);
	free(l->thr);
	free(l->sref);
	free(l->sbloop);
	free(l->sbfunc);
	free(l->sbc);
	free(l->sbc32);
	free(l->loops);
	free(l->funcs);
	free(l->modidx);
	lsa_kmap_release(&l->funcidx);
	lsa_kmap_release(&l->body);
	lsa_kmap_release(&l->falltail);
	free(l->acc);
	free(l->sq);
	free(l->inst);
	free(l->kid);
	free(l);
}
