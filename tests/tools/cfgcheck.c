/* cfgcheck.c BUNDLE [--branches] - the executed CFG of a bundle as the
 * tests read it: flow conservation violations, structural loops,
 * irreducible regions, and (--branches) every conditional branch with its
 * source line and taken / not-taken counts (unreached ones as 0). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis/cfg.h"
#include "analysis/sloops.h"
#include "decoder/decode.h"
#include "decoder/image.h"
#include "decoder/symbols.h"
#include "formats/bundle.h"

static void loc(const struct lsa_cfg *c, uint32_t id, char *buf, size_t n)
{
	const struct lsa_cfg_block *b = lsa_cfg_block(c, id);
	const struct lsa_cfg_func *f = lsa_cfg_func(c, b->func);

	snprintf(buf, n, "%s+0x%" PRIx64, f->name ? f->name : "?", b->sb->mod_off - f->start);
}

int main(int argc, char **argv)
{
	struct lsb_reader *r;
	struct lsd_decoder *d;
	struct lsd_symbols *sym = NULL;
	struct lsd_image img;
	struct lsa_cfg *c;
	struct lsa_sloops *s;
	struct lsd_opts o = { .size = sizeof(o) };
	struct lsa_cfg_opts co = { .size = sizeof(co), .img = &img };
	int branches = argc > 2 && !strcmp(argv[2], "--branches");
	size_t i, k;
	char h[256], t[256];

	if (argc < 2 || lsb_reader_open(&r, argv[1]) < 0 || lsd_open(&d, r, &o) < 0 ||
	    lsd_symbols_open(&sym, r, NULL) < 0 ||
	    lsd_image_build(&img, r, 0, LSB_RUN_TRACE) < 0 ||
	    lsa_cfg_new(&c, sym, &co) < 0 ||
	    lsa_cfg_build(c, d) < 0 ||
	    lsa_sloops_find(&s, c, NULL) < 0) {
		fprintf(stderr, "cfgcheck: cannot analyze %s\n", argc > 1 ? argv[1] : "");
		return 1;
	}
	printf("flow violations %d\n", lsa_cfg_check_flow(c, NULL, NULL));
	for (i = 0; i < lsa_sloops_count(s); i++) {
		const struct lsa_sloop *L = lsa_sloops_get(s, i);
		uint64_t back = 0;

		for (k = 0; k < L->ntails; k++)
			back += L->tail_counts[k];
		loc(c, L->header, h, sizeof(h));
		printf("loop %s depth=%u tails=%u back=%" PRIu64 " blocks=%u static=%" PRIu64
		       " iterations=%" PRIu64 " invocations=%" PRIu64 " self=%" PRIu64
		       " total=%" PRIu64 " coverage=%.2f\n", h, L->depth, L->ntails, back,
		       L->nblocks, L->static_insns, L->iterations, L->invocations,
		       L->self_insns, L->total_insns, L->coverage);
	}
	for (i = 0; i < lsa_sloops_nirreducible(s); i++) {
		const struct lsa_sloop_irr *ir = lsa_sloops_irreducible(s, i);

		loc(c, ir->blocks[0], h, sizeof(h));
		printf("irreducible %s blocks=%u entries=%u\n", h, ir->nblocks, ir->nentries);
	}
	for (i = 0; branches && i < lsa_cfg_nedges(c); i++) {
		const struct lsa_cfg_edge *e = lsa_cfg_edge(c, i);
		const struct lsd_sblock *sb;
		struct lsd_symbol_info si;

		if (e->kind != LSA_CFG_TAKEN && e->kind != LSA_CFG_NOTTAKEN)
			continue;
		sb = lsa_cfg_block(c, e->from)->sb;
		if (lsd_symbols_lookup(sym, sb->module, sb->mod_off + (sb->last - sb->start),
				       1, &si) < 0 || !si.file)
			continue;
		loc(c, e->from, t, sizeof(t));
		printf("branch %s:%d %s %s %" PRIu64 "\n", strrchr(si.file, '/') ?
		       strrchr(si.file, '/') + 1 : si.file, si.line, t,
		       lsa_cfg_kind_name(e->kind), e->count);
	}
	lsa_sloops_free(s);
	lsa_cfg_free(c);
	lsd_image_release(&img);
	lsd_symbols_close(sym);
	lsd_close(d);
	lsb_reader_close(r);
	return 0;
}
