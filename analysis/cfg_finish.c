/* cfg_finish.c - turns the counted edges into per-function graphs:
 * functions, unreached static successors, the IN/OUT edges implied by
 * calls, returns and jumps between functions, and the edge indexes. */
#include <stdlib.h>
#include <string.h>

#include "analysis/cfg_int.h"
#include "ls_err.h"

/* qsort has no context argument in C11: the builder being finished is
 * reached through this pointer (one finish at a time). */
static const struct lsa_cfg *sort_cfg;
static const int32_t *sort_kmod;
static const uint64_t *sort_kstart;

static int by_start(const void *a, const void *b)
{
	uint64_t x = sort_cfg->blk[*(const uint32_t *)a].sb->start;
	uint64_t y = sort_cfg->blk[*(const uint32_t *)b].sb->start;

	return x < y ? -1 : x > y;
}

static int by_func(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_kmod[x] != sort_kmod[y])
		return sort_kmod[x] < sort_kmod[y] ? -1 : 1;
	if (sort_kstart[x] != sort_kstart[y])
		return sort_kstart[x] < sort_kstart[y] ? -1 : 1;
	return by_start(a, b);
}

uint32_t lsa_cfg_block_at(const struct lsa_cfg *c, uint64_t a)
{
	size_t lo = 0, hi = c->nexec;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t s = c->blk[c->by_addr[mid]].sb->start;

		if (s == a)
			return c->by_addr[mid];
		if (s < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return LSA_CFG_NONE;
}

/* The target of the conditional branch ending sb, from its bytes: Jcc
 * rel8 (70-7f), JRCXZ/LOOP rel8 (e0-e3), Jcc rel32 (0f 80-8f), after
 * any prefixes.  0 when unknown. */
static uint64_t cond_target(const struct lsa_cfg *c, const struct lsd_sblock *sb)
{
	uint8_t buf[16];
	size_t len = (size_t)(sb->end - sb->last), i = 0;

	if (!c->img || len == 0 || len > sizeof(buf) ||
	    lsd_image_read(c->img, buf, len, sb->last) != (int)len)
		return 0;
	while (i < len && (buf[i] == 0x2e || buf[i] == 0x3e || buf[i] == 0xf2 ||
			   buf[i] == 0xf3 || buf[i] == 0x66 || buf[i] == 0x67 ||
			   (buf[i] & 0xf0) == 0x40))
		i++;
	if (i + 2 == len && ((buf[i] >= 0x70 && buf[i] <= 0x7f) ||
			     (buf[i] >= 0xe0 && buf[i] <= 0xe3)))
		return sb->end + (uint64_t)(int64_t)(int8_t)buf[i + 1];
	if (i + 6 == len && buf[i] == 0x0f && buf[i + 1] >= 0x80 && buf[i + 1] <= 0x8f) {
		int32_t rel = (int32_t)((uint32_t)buf[i + 2] | (uint32_t)buf[i + 3] << 8 |
					(uint32_t)buf[i + 4] << 16 | (uint32_t)buf[i + 5] << 24);

		return sb->end + (uint64_t)(int64_t)rel;
	}
	return 0;
}

/* A conditional that only ever went one way: its other static successor
 * becomes an edge with count 0. */
static int add_unreached(struct lsa_cfg *c)
{
	uint8_t *seen = calloc(c->nblk ? c->nblk : 1, 1);
	size_t i, n0 = c->nedges;

	if (!seen)
		return -LS_ENOMEM;
	for (i = 0; i < n0; i++) {
		const struct lsa_cfg_edge *e = &c->edges[i];

		if (e->kind == LSA_CFG_TAKEN)
			seen[e->from] |= 1;
		else if (e->kind == LSA_CFG_NOTTAKEN)
			seen[e->from] |= 2;
	}
	for (i = 0; i < c->nblk; i++) {
		const struct lsd_sblock *sb = c->blk[i].sb;
		uint64_t to;
		int kind;
		long k;

		if (seen[i] == 1) {
			to = sb->end;
			kind = LSA_CFG_NOTTAKEN;
		} else if (seen[i] == 2) {
			to = cond_target(c, sb);
			kind = LSA_CFG_TAKEN;
		} else {
			continue;
		}
		if (!to)
			continue;
		k = lsa_cfg_edge_add(c, (uint32_t)i, lsa_cfg_block_at(c, to), kind, 0, 0);
		if (k < 0) {
			free(seen);
			return -LS_ENOMEM;
		}
		c->edges[k].flags |= LSA_CFG_F_UNREACHED;
		c->edges[k].to_addr = to;
	}
	free(seen);
	return 0;
}

/* Groups the executed blocks into functions (see cfg.h). */
static int group_functions(struct lsa_cfg *c)
{
	int32_t *kmod = malloc(c->nblk * sizeof(*kmod));
	uint64_t *kstart = malloc(c->nblk * sizeof(*kstart));
	const char **kname = calloc(c->nblk, sizeof(*kname));
	uint8_t *entry = calloc(c->nblk, 1);
	int32_t emod = -2;
	uint64_t eoff = 0;
	size_t i, j, nf = 0;
	int err = -LS_ENOMEM;

	c->fblocks = malloc((c->nexec ? c->nexec : 1) * sizeof(*c->fblocks));
	c->funcs = calloc(c->nexec ? c->nexec : 1, sizeof(*c->funcs));
	c->names = calloc(c->nexec ? c->nexec : 1, sizeof(*c->names));
	if (!kmod || !kstart || !kname || !entry || !c->fblocks || !c->funcs || !c->names)
		goto out;
	for (i = 0; i < c->nedges; i++) {
		const struct lsa_cfg_edge *e = &c->edges[i];

		if (e->to != LSA_CFG_NONE && (e->kind == LSA_CFG_CALL ||
		    (e->kind == LSA_CFG_IN && e->why == LSA_CFG_W_START)))
			entry[e->to] = 1;
	}
	for (i = 0; i < c->nexec; i++) {
		uint32_t id = c->by_addr[i];
		const struct lsd_sblock *sb = c->blk[id].sb;
		struct lsd_symbol_info si;

		if (entry[id]) {
			emod = sb->module;
			eoff = sb->mod_off;
		}
		kmod[id] = sb->module;
		if (c->sym && lsd_symbols_lookup(c->sym, sb->module, sb->mod_off, 0, &si) >= 0 &&
		    si.function) {
			kstart[id] = si.func_start;
			kname[id] = si.function;
		} else {
			kstart[id] = emod == sb->module ? eoff : sb->mod_off;
		}
	}
	memcpy(c->fblocks, c->by_addr, c->nexec * sizeof(*c->fblocks));
	sort_cfg = c;
	sort_kmod = kmod;
	sort_kstart = kstart;
	qsort(c->fblocks, c->nexec, sizeof(*c->fblocks), by_func);
	for (i = 0; i < c->nexec; i = j) {
		uint32_t id = c->fblocks[i];
		struct lsa_cfg_func *f = &c->funcs[nf];

		for (j = i; j < c->nexec && kmod[c->fblocks[j]] == kmod[id] &&
			    kstart[c->fblocks[j]] == kstart[id]; j++) {
			struct lsa_cfg_block *b = &c->blk[c->fblocks[j]];

			b->func = (uint32_t)nf;
			b->local = (uint32_t)(j - i);
			f->insns += b->count * b->sb->ninsn;
			if (!kname[id] && kname[c->fblocks[j]])
				kname[id] = kname[c->fblocks[j]];
		}
		f->module = kmod[id];
		f->start = kstart[id];
		f->blocks = &c->fblocks[i];
		f->nblocks = (uint32_t)(j - i);
		if (kname[id] && !(c->names[nf] = strdup(kname[id])))
			goto out;
		f->name = c->names[nf];
		nf++;
	}
	c->nfuncs = nf;
	err = 0;
out:
	free(kmod), free(kstart), free(kname), free(entry);
	return err;
}

/* Edges between functions carry no flow themselves: they become an OUT
 * edge of the source and an IN edge of the target.  Calls enter callees,
 * returns leave functions. */
static int add_implied(struct lsa_cfg *c)
{
	size_t i, n0 = c->nedges;

	for (i = 0; i < n0; i++) {
		struct lsa_cfg_edge e = c->edges[i];
		long r = 0;

		if (e.to != LSA_CFG_NONE)
			c->edges[i].to_addr = c->blk[e.to].sb->start;
		if (e.flags & LSA_CFG_F_UNREACHED)
			continue;
		if (e.kind == LSA_CFG_CALL) {
			r = lsa_cfg_edge_add(c, LSA_CFG_NONE, e.to, LSA_CFG_IN,
					     LSA_CFG_W_CALL, e.count);
			if (r >= 0)
				c->funcs[c->blk[e.to].func].calls += e.count;
		} else if (e.kind == LSA_CFG_RET) {
			r = lsa_cfg_edge_add(c, e.from, LSA_CFG_NONE, LSA_CFG_OUT,
					     LSA_CFG_W_RET, e.count);
		} else if (e.kind <= LSA_CFG_CALLRET &&
			   c->blk[e.from].func != c->blk[e.to].func) {
			c->edges[i].flags |= LSA_CFG_F_XFER;
			r = lsa_cfg_edge_add(c, e.from, LSA_CFG_NONE, LSA_CFG_OUT,
					     LSA_CFG_W_XFER, e.count);
			if (r >= 0)
				r = lsa_cfg_edge_add(c, LSA_CFG_NONE, e.to, LSA_CFG_IN,
						     LSA_CFG_W_XFER, e.count);
		}
		if (r < 0)
			return -LS_ENOMEM;
	}
	return 0;
}

int lsa_cfg_index_edges(struct lsa_cfg *c)
{
	size_t i, n = c->nblk;
	uint32_t *fo, *fi;

	c->out_off = calloc(n + 1, sizeof(uint32_t));
	c->in_off = calloc(n + 1, sizeof(uint32_t));
	c->out_list = malloc((c->nedges + 1) * sizeof(uint32_t));
	c->in_list = malloc((c->nedges + 1) * sizeof(uint32_t));
	fo = calloc(n + 1, sizeof(uint32_t));
	fi = calloc(n + 1, sizeof(uint32_t));
	if (!c->out_off || !c->in_off || !c->out_list || !c->in_list || !fo || !fi) {
		free(fo), free(fi);
		return -LS_ENOMEM;
	}
	for (i = 0; i < c->nedges; i++) {
		if (c->edges[i].from != LSA_CFG_NONE)
			c->out_off[c->edges[i].from + 1]++;
		if (c->edges[i].to != LSA_CFG_NONE)
			c->in_off[c->edges[i].to + 1]++;
	}
	for (i = 0; i < n; i++) {
		c->out_off[i + 1] += c->out_off[i];
		c->in_off[i + 1] += c->in_off[i];
	}
	for (i = 0; i < c->nedges; i++) {
		uint32_t f = c->edges[i].from, t = c->edges[i].to;

		if (f != LSA_CFG_NONE)
			c->out_list[c->out_off[f] + fo[f]++] = (uint32_t)i;
		if (t != LSA_CFG_NONE)
			c->in_list[c->in_off[t] + fi[t]++] = (uint32_t)i;
	}
	free(fo), free(fi);
	return 0;
}

int lsa_cfg_finish(struct lsa_cfg *c)
{
	size_t i;
	int err;

	if (!c)
		return -LS_EINVAL;
	if (c->finished)
		return 0;
	if ((err = lsa_cfg_ctx_end_all(c)) < 0)
		return err;
	c->finished = 1;
	c->by_addr = malloc((c->nblk ? c->nblk : 1) * sizeof(*c->by_addr));
	if (!c->by_addr)
		return -LS_ENOMEM;
	for (i = 0; i < c->nblk; i++)
		if (c->blk[i].sb)
			c->by_addr[c->nexec++] = (uint32_t)i;
	sort_cfg = c;
	qsort(c->by_addr, c->nexec, sizeof(*c->by_addr), by_start);
	if ((err = add_unreached(c)) < 0 || (err = group_functions(c)) < 0 ||
	    (err = add_implied(c)) < 0)
		return err;
	return lsa_cfg_index_edges(c);
}

size_t lsa_cfg_nblocks(const struct lsa_cfg *c)
{
	return c->nblk;
}

const struct lsa_cfg_block *lsa_cfg_block(const struct lsa_cfg *c, uint32_t id)
{
	return id < c->nblk ? &c->blk[id] : NULL;
}

size_t lsa_cfg_nedges(const struct lsa_cfg *c)
{
	return c->nedges;
}

const struct lsa_cfg_edge *lsa_cfg_edge(const struct lsa_cfg *c, size_t i)
{
	return i < c->nedges ? &c->edges[i] : NULL;
}

size_t lsa_cfg_edges_of(const struct lsa_cfg *c, uint32_t id, int out,
			const uint32_t **list)
{
	const uint32_t *off = out ? c->out_off : c->in_off;

	if (!c->finished || id >= c->nblk) {
		*list = NULL;
		return 0;
	}
	*list = (out ? c->out_list : c->in_list) + off[id];
	return off[id + 1] - off[id];
}

size_t lsa_cfg_nfuncs(const struct lsa_cfg *c)
{
	return c->nfuncs;
}

const struct lsa_cfg_func *lsa_cfg_func(const struct lsa_cfg *c, uint32_t i)
{
	return i < c->nfuncs ? &c->funcs[i] : NULL;
}

int lsa_cfg_check_flow(const struct lsa_cfg *c,
		       void (*cb)(void *arg, const struct lsa_cfg_violation *v),
		       void *arg)
{
	size_t i, k;
	int bad = 0;

	for (i = 0; i < c->nexec; i++) {
		struct lsa_cfg_violation v = { .block = c->by_addr[i] };
		const uint32_t *l;
		size_t n;

		v.count = c->blk[v.block].count;
		n = lsa_cfg_edges_of(c, v.block, 0, &l);
		for (k = 0; k < n; k++)
			if (lsa_cfg_is_flow(&c->edges[l[k]]))
				v.in += c->edges[l[k]].count;
		n = lsa_cfg_edges_of(c, v.block, 1, &l);
		for (k = 0; k < n; k++)
			if (lsa_cfg_is_flow(&c->edges[l[k]]))
				v.out += c->edges[l[k]].count;
		if (v.in != v.count || v.out != v.count) {
			bad++;
			if (cb)
				cb(arg, &v);
		}
	}
	return bad;
}
