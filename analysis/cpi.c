/* cpi.c - the sampled-CPI combiner: instruction table, sample placement
 * and predecessor attribution (cpi.h).  Loops and functions: cpi_agg.c. */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cpi_int.h"
#include "decoder/iclass.h"
#include "ls_buf.h"
#include "ls_err.h"

static const struct lsa_cfg_block *blk(const struct lsa_cpi *p, uint32_t id)
{
	return lsa_cfg_block(p->cfg, id);
}

/* Instruction boundaries of every executed block, disassembled from the
 * trace image (a block that cannot be read gets one-byte guesses, so its
 * instructions still exist; samples then only find its first bytes). */
static int build_insns(struct lsa_cpi *p, const struct lsd_image *img)
{
	size_t nb = lsa_cfg_nblocks(p->cfg), total = 0, id;
	csh cs[LSD_MODE_MAX] = { 0 };	/* one per execution mode */
	cs_insn *ci = NULL;
	uint8_t *code = NULL;
	size_t capcode = 0;
	int err = 0;

	p->first = calloc(nb + 1, sizeof(*p->first));
	if (!p->first)
		return -LS_ENOMEM;
	for (id = 0; id < nb; id++) {
		const struct lsa_cfg_block *b = blk(p, (uint32_t)id);

		p->first[id] = total;
		if (b && b->sb && b->count)
			total += b->sb->ninsn;
	}
	p->first[nb] = total;
	p->insns = calloc(total ? total : 1, sizeof(*p->insns));
	p->order = malloc((nb ? nb : 1) * sizeof(*p->order));
	if (!p->insns || !p->order)
		return -LS_ENOMEM;
	p->ninsns = total;
	for (id = 0; id < LSD_MODE_MAX && !err; id++)
		err = lsd_cs_open_mode(&cs[id], 0, (int)id);
	ci = err ? NULL : lsd_cs.malloc(cs[LSD_MODE_64]);
	if (!ci) {
		for (id = 0; id < LSD_MODE_MAX; id++)
			if (cs[id])
				lsd_cs.close(&cs[id]);
		return err ? err : -LS_ENOMEM;
	}
	for (id = 0; id < nb && !err; id++) {
		const struct lsa_cfg_block *b = blk(p, (uint32_t)id);
		const struct lsd_sblock *sb;
		size_t k, len, n = p->first[id + 1] - p->first[id];
		const uint8_t *c;
		uint64_t a;
		int got;

		if (!n)
			continue;
		sb = b->sb;
		p->order[p->norder++] = (uint32_t)id;
		len = (size_t)(sb->end - sb->start);
		if (len > capcode) {
			uint8_t *nc = realloc(code, len);

			if (!nc) {
				err = -LS_ENOMEM;
				break;
			}
			code = nc;
			capcode = len;
		}
		got = len ? lsd_image_read(img, code, len, sb->start) : -1;
		c = code;
		a = sb->start;
		len = got > 0 ? (size_t)got : 0;
		for (k = 0; k < n; k++) {
			struct lsa_cpi_insn *in = &p->insns[p->first[id] + k];
			uint64_t at = a;

			if (len && sb->mode < LSD_MODE_MAX &&
			    lsd_cs.disasm_iter(cs[sb->mode], &c, &len, &a, ci))
				in->len = (uint8_t)ci->size;
			else
				in->len = 1, a++;
			in->block = (uint32_t)id;
			in->mode = sb->mode;
			in->module = sb->module;
			in->addr = at;
			in->off = sb->mod_off + (at - sb->start);
			in->execs = b->count;
		}
		if (sb->module >= 0 && (size_t)sb->module < p->nmods)
			p->modran[sb->module] = 1;
	}
	free(code);
	lsd_cs.free(ci, 1);
	for (id = 0; id < LSD_MODE_MAX; id++)
		lsd_cs.close(&cs[id]);
	return err;
}

static const struct lsa_cpi *sort_ctx;

static int cmp_order(const void *a, const void *b)
{
	const struct lsd_sblock *x = blk(sort_ctx, *(const uint32_t *)a)->sb;
	const struct lsd_sblock *y = blk(sort_ctx, *(const uint32_t *)b)->sb;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->mod_off < y->mod_off ? -1 : x->mod_off > y->mod_off;
}

/* The executed instruction covering (module, off), or LSA_CPI_NONE. */
uint32_t lsa_cpi_lookup(const struct lsa_cpi *p, int32_t mod, uint64_t off)
{
	size_t lo = 0, hi = p->norder, n, f;
	const struct lsd_sblock *sb;

	while (lo < hi) {	/* first block after (mod, off) */
		size_t mid = lo + (hi - lo) / 2;
		const struct lsd_sblock *m = blk(p, p->order[mid])->sb;

		if (m->module < mod || (m->module == mod && m->mod_off <= off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return LSA_CPI_NONE;
	sb = blk(p, p->order[lo - 1])->sb;
	if (sb->module != mod || off >= sb->mod_off + (sb->end - sb->start))
		return LSA_CPI_NONE;
	f = p->first[p->order[lo - 1]];
	n = p->first[p->order[lo - 1] + 1] - f;
	lo = 0;
	hi = n;
	while (lo < hi) {	/* first instruction after off */
		size_t mid = lo + (hi - lo) / 2;

		if (p->insns[f + mid].off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? (uint32_t)(f + lo - 1) : LSA_CPI_NONE;
}

uint32_t lsa_cpi_find(const struct lsa_cpi *p, int32_t mod, uint64_t off)
{
	return p ? lsa_cpi_lookup(p, mod, off) : LSA_CPI_NONE;
}

static int push_sample(struct lsa_cpi *p, const struct lsa_cpi_sample *s)
{
	if (LS_GROW(p->samples, p->nsamples + 1, p->capsamples, 1024))
		return -LS_ENOMEM;
	p->samples[p->nsamples++] = *s;
	return 0;
}

/* (module, offset) of ip in the sample's run; -1 if unmapped. */
static int locate(struct lsa_cpi *p, const struct lsb_sample *s, uint64_t ip,
		  size_t *mod, uint64_t *off)
{
	const struct lsd_image *img = s->run == LSB_RUN_SAMPLE ? &p->simg : p->timg;

	if (s->run == LSB_RUN_SAMPLE && !p->have_simg)
		return -1;
	return lsd_image_locate(img, ip, mod, off);
}

static int on_sample(const struct lsb_sample *s, void *arg)
{
	struct lsa_cpi *p = arg;
	struct lsa_cpi_sample cs;
	size_t mod;
	uint64_t off;

	p->st.samples++;
	p->st.cost += s->period;
	if (locate(p, s, s->ip, &mod, &off) < 0) {
		p->st.unmapped++;
		return 0;
	}
	if (mod >= p->nmods || !p->modran[mod]) {
		p->st.no_module++;
		return 0;
	}
	cs.insn = lsa_cpi_lookup(p, (int32_t)mod, off);
	if (cs.insn == LSA_CPI_NONE) {
		p->st.not_executed++;
		return 0;
	}
	cs.period = s->period;
	p->st.attributed++;
	p->st.cost_attributed += s->period;
	p->insns[cs.insn].raw_samples++;
	p->insns[cs.insn].raw_cost += s->period;
	return push_sample(p, &cs);
}

/* Splits one sample over the instructions it is charged to, calling cb
 * with each part; the parts' costs add up to the period exactly. */
int lsa_cpi_fragments(const struct lsa_cpi *p, const struct lsa_cpi_sample *s,
		  void (*cb)(void *arg, uint32_t insn, double samples,
			     uint64_t cost),
		  void *arg)
{
	const struct lsa_cpi_insn *in = &p->insns[s->insn];
	const uint32_t *l;
	size_t n, k, np = 0;
	uint64_t w = 0, given = 0;

	if (p->o.no_skid_fix) {
		cb(arg, s->insn, 1.0, s->period);
		return 0;
	}
	if (s->insn > p->first[in->block]) {
		cb(arg, s->insn - 1, 1.0, s->period);
		return 0;
	}
	n = lsa_cfg_edges_of(p->cfg, in->block, 0, &l);
	for (k = 0; k < n; k++) {
		const struct lsa_cfg_edge *e = lsa_cfg_edge(p->cfg, l[k]);

		if (lsa_cpi_is_pred(p, e))
			w += e->count, np++;
	}
	if (!w) {
		cb(arg, s->insn, 1.0, s->period);
		return 1;
	}
	/* Largest remainder: floors first, then one unit each to the
	 * largest remainders (ties: edge order). */
	{
		uint64_t *part = malloc(np * sizeof(*part)), *rem;
		uint32_t *who;
		size_t j = 0, left;

		rem = malloc(np * sizeof(*rem));
		who = malloc(np * sizeof(*who));
		if (!part || !rem || !who) {
			free(part);
			free(rem);
			free(who);
			return -LS_ENOMEM;
		}
		for (k = 0; k < n; k++) {
			const struct lsa_cfg_edge *e = lsa_cfg_edge(p->cfg, l[k]);
			unsigned __int128 x;

			if (!lsa_cpi_is_pred(p, e))
				continue;
			x = (unsigned __int128)s->period * e->count;
			part[j] = (uint64_t)(x / w);
			rem[j] = (uint64_t)(x % w);
			who[j] = (uint32_t)l[k];
			given += part[j++];
		}
		for (left = (size_t)(s->period - given); left; left--) {
			size_t best = 0;

			for (j = 1; j < np; j++)
				if (rem[j] > rem[best])
					best = j;
			part[best]++;
			rem[best] = 0;
		}
		for (j = 0; j < np; j++) {
			const struct lsa_cfg_edge *e = lsa_cfg_edge(p->cfg, who[j]);

			cb(arg, (uint32_t)(p->first[e->from + 1] - 1),
			   (double)e->count / (double)w, part[j]);
		}
		free(part);
		free(rem);
		free(who);
	}
	return 0;
}

/* An edge whose source instruction ran just before its target's head:
 * jumps and fall-throughs, calls (from the call instruction) and returns
 * (from the ret); not the call-to-return-site summary edge. */
int lsa_cpi_is_pred(const struct lsa_cpi *p, const struct lsa_cfg_edge *e)
{
	return e->from != LSA_CFG_NONE && e->count &&
	       e->kind != LSA_CFG_CALLRET && e->kind != LSA_CFG_IN &&
	       e->kind != LSA_CFG_OUT && !(e->flags & LSA_CFG_F_UNREACHED) &&
	       e->from < lsa_cfg_nblocks(p->cfg) &&
	       p->first[e->from + 1] > p->first[e->from];
}

static void charge(void *arg, uint32_t insn, double samples, uint64_t cost)
{
	struct lsa_cpi *p = arg;

	p->insns[insn].samples += samples;
	p->insns[insn].cost += cost;
}

static int event_unit(struct lsa_cpi *p, struct lsb_reader *r)
{
	const char *ev = lsb_reader_meta(r, "sample.events");
	size_t n;

	if (!ev)
		ev = "";
	n = strcspn(ev, ",");
	if (n >= sizeof(p->event))
		n = sizeof(p->event) - 1;
	memcpy(p->event, ev, n);
	p->event[n] = '\0';
	/* Software clocks count nanoseconds; everything else is taken as
	 * cycles (the recorder samples cycles:u where a PMU exists). */
	p->st.unit = strstr(p->event, "clock") ? LSA_CPI_NS : LSA_CPI_CYCLES;
	p->st.event = p->event;
	return 0;
}

int lsa_cpi_new(struct lsa_cpi **pc, const struct lsa_cfg *c,
		struct lsb_reader *r, const struct lsa_cpi_opts *o)
{
	struct lsa_cpi *p;
	size_t i;
	int err;

	if (!pc || !c || !r || !o || o->size < sizeof(*o) || !o->img)
		return -LS_EINVAL;
	*pc = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -LS_ENOMEM;
	p->o = *o;
	p->cfg = c;
	p->timg = o->img;
	p->nmods = lsb_reader_nmodules(r);
	p->modran = calloc(p->nmods + 1, 1);
	if (!p->modran) {
		lsa_cpi_free(p);
		return -LS_ENOMEM;
	}
	if ((err = build_insns(p, o->img)) < 0) {
		lsa_cpi_free(p);
		return err;
	}
	sort_ctx = p;
	qsort(p->order, p->norder, sizeof(*p->order), cmp_order);
	sort_ctx = NULL;
	for (i = 0; i < p->ninsns; i++)
		p->st.insns += p->insns[i].execs;
	event_unit(p, r);
	if (lsd_image_build_dir(&p->simg, r, 0, LSB_RUN_SAMPLE, o->debug_dir) >= 0)
		p->have_simg = 1;
	err = lsb_reader_samples(r, on_sample, p);
	if (err < 0 && err != -LS_ECORRUPT) {
		lsa_cpi_free(p);
		return err;
	}
	for (i = 0; i < p->nsamples; i++) {
		err = lsa_cpi_fragments(p, &p->samples[i], charge, p);
		if (err < 0) {
			lsa_cpi_free(p);
			return err;
		}
		p->st.no_pred += (uint64_t)err;
	}
	*pc = p;
	return 0;
}

void lsa_cpi_free(struct lsa_cpi *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nloops; i++)
		free(p->loops[i].blocks);
	free(p->loops);
	free(p->funcs);
	free(p->blockloop);
	free(p->first);
	free(p->insns);
	free(p->order);
	free(p->samples);
	free(p->modran);
	if (p->have_simg)
		lsd_image_release(&p->simg);
	free(p);
}

void lsa_cpi_get_stats(const struct lsa_cpi *p, struct lsa_cpi_stats *st)
{
	*st = p->st;
}

size_t lsa_cpi_ninsns(const struct lsa_cpi *p)
{
	return p->ninsns;
}

const struct lsa_cpi_insn *lsa_cpi_insn(const struct lsa_cpi *p, size_t i)
{
	return i < p->ninsns ? &p->insns[i] : NULL;
}

size_t lsa_cpi_block_insns(const struct lsa_cpi *p, uint32_t id, size_t *first)
{
	if (id >= lsa_cfg_nblocks(p->cfg)) {
		*first = 0;
		return 0;
	}
	*first = p->first[id];
	return p->first[id + 1] - p->first[id];
}

int lsa_cpi_block_agg(const struct lsa_cpi *p, uint32_t id,
		      struct lsa_cpi_agg *out)
{
	size_t f, n = lsa_cpi_block_insns(p, id, &f), k;

	memset(out, 0, sizeof(*out));
	for (k = 0; k < n; k++) {
		out->samples += p->insns[f + k].samples;
		out->cost += p->insns[f + k].cost;
		out->insns += p->insns[f + k].execs;
	}
	return n ? 0 : -LS_ENOENT;
}

double lsa_cpi_per(uint64_t cost, uint64_t execs)
{
	return execs ? (double)cost / (double)execs : 0.0;
}

const char *lsa_cpi_unit_name(int unit)
{
	return unit == LSA_CPI_NS ? "ns" : "cycles";
}
