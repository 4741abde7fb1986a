/* export_callgrind.c - `export --callgrind`: a bundle's exact executions
 * in Valgrind's callgrind format (valgrind.org/docs/manual/cl-format.html),
 * for KCachegrind and callgrind_annotate.
 *
 * Positions are "instr line": every executed instruction by its ELF
 * virtual address (as objdump prints it) with its source line, under its
 * function (fn=) and object (ob=); the event Ir is its executions, so
 * the costs sum to the run's instructions.  Calls are the executed CFG's
 * call edges with their counts, and as inclusive cost the instructions
 * executed in the callee (outermost activations).  Loops are annotated
 * the way callgrind annotates jumps: each loop's back branches are jcnd=
 * (or jump=) lines to its head with the times they looped back, which
 * KCachegrind draws as arrows, and a second event, Li, counts the loop's
 * iterations at its head instruction.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/cpi_util.h"
#include "cli/export_views.h"
#include "ls_buf.h"
#include "ls_err.h"

/* What one instruction gets besides its executions. */
struct cg_insn {
	uint64_t vaddr;
	const char *file;	/* from the symbols: valid while they are open */
	uint32_t line;
	uint64_t iters;		/* Li: iterations of the loop it heads */
	uint64_t back;		/* times it looped back to a head ... */
	uint32_t head;		/* ... this instruction (cpi index) */
	int32_t loop;		/* the profile loop it heads, or -1 */
};

/* Compressed names: "(id) name" the first time, "(id)" after. */
struct cg_names {
	char **names;
	size_t n, cap;
};

static void put_name(FILE *f, struct cg_names *nm, const char *key,
		     const char *name)
{
	size_t i;
	char *copy;

	for (i = 0; i < nm->n; i++)
		if (!strcmp(nm->names[i], name)) {
			fprintf(f, "%s=(%zu)\n", key, i + 1);
			return;
		}
	if (LS_GROW(nm->names, nm->n + 1, nm->cap, 256)) {
		fprintf(f, "%s=%s\n", key, name);	/* uncompressed is valid too */
		return;
	}
	if (!(copy = strdup(name))) {
		fprintf(f, "%s=%s\n", key, name);
		return;
	}
	nm->names[nm->n++] = copy;
	fprintf(f, "%s=(%zu) %s\n", key, nm->n, name);
}

/* Per instruction: address and line, and the loops' heads and back
 * branches of the profile (summed over threads). */
static int gather(const struct cli_cpi *c, struct cg_insn *ci)
{
	const struct lsp_profile *p = c->prof;
	size_t i, k, n = lsa_cpi_ninsns(c->cpi);
	uint32_t *head_of = malloc((p->n_loops + 1) * sizeof(*head_of));

	if (!head_of)
		return -LS_ENOMEM;
	for (i = 0; i < n; i++) {
		const struct lsa_cpi_insn *in = lsa_cpi_insn(c->cpi, i);
		struct lsd_symbol_info si;

		memset(&ci[i], 0, sizeof(ci[i]));
		ci[i].vaddr = in->addr;
		ci[i].loop = -1;
		if (lsd_symbols_lookup(c->cc.sym, in->module, in->off, 1, &si) >= 0) {
			if (si.vaddr)
				ci[i].vaddr = si.vaddr;
			ci[i].file = si.file;
			ci[i].line = si.line > 0 ? (uint32_t)si.line : 0;
		}
	}
	for (i = 0; i < p->n_loops; i++)
		head_of[i] = LSA_CPI_NONE;
	for (k = 0; k < c->ndyn; k++) {
		const struct lsa_cpi_loop *l = lsa_cpi_loop(c->cpi, k);
		size_t first;

		if (lsa_cpi_block_insns(c->cpi, l->header, &first)) {
			head_of[c->dyn_loop[k]] = (uint32_t)first;
			ci[first].iters = l->iterations;
			ci[first].loop = (int32_t)c->dyn_loop[k];
		}
	}
	for (k = 0; k < p->n_tails; k++) {
		const struct lsp_tail *t = &p->tails[k];
		uint32_t h = head_of[t->loop], at;

		if (h == LSA_CPI_NONE)
			continue;
		at = lsa_cpi_find(c->cpi, lsa_cpi_insn(c->cpi, h)->module, t->off);
		if (at != LSA_CPI_NONE) {
			ci[at].back += t->count;
			ci[at].head = h;
		}
	}
	free(head_of);
	return 0;
}

static const char *file_name(const struct cg_insn *ci)
{
	return ci->file ? ci->file : "???";
}

/* The calls made by call block b, after its last instruction's line. */
static void put_calls(FILE *f, const struct cli_cpi *c, const struct cg_insn *ci,
		      struct cg_names *obs, struct cg_names *fls, struct cg_names *fns,
		      uint32_t b, size_t last, int32_t mod)
{
	const struct lsa_cfg_block *cb = lsa_cfg_block(c->cc.cfg, b);
	const uint32_t *list;
	size_t i, n = lsa_cfg_edges_of(c->cc.cfg, b, 1, &list);
	uint64_t calls = 0, given = 0, share;
	char buf[256];

	for (i = 0; i < n; i++) {
		const struct lsa_cfg_edge *e = lsa_cfg_edge(c->cc.cfg, list[i]);

		if (e->kind == LSA_CFG_CALL && e->to != LSA_CFG_NONE)
			calls += e->count;
	}
	for (i = 0; i < n && calls; i++) {
		const struct lsa_cfg_edge *e = lsa_cfg_edge(c->cc.cfg, list[i]);
		const struct lsa_cfg_block *to;
		const struct lsa_cfg_func *fn;
		size_t first;

		if (e->kind != LSA_CFG_CALL || e->to == LSA_CFG_NONE)
			continue;
		to = lsa_cfg_block(c->cc.cfg, e->to);
		fn = lsa_cfg_func(c->cc.cfg, to->func);
		if (!fn || !lsa_cpi_block_insns(c->cpi, e->to, &first))
			continue;
		/* An indirect call site with several callees: its callee
		 * instructions are split by the calls (the graph keeps one
		 * sum per call block); the last callee gets the rest. */
		given += share = calls == e->count ? cb->callee_insns :
			 (uint64_t)((double)cb->callee_insns * e->count / calls);
		if (given > cb->callee_insns)
			share -= given - cb->callee_insns;
		if (fn->module >= 0 && fn->module != mod) {
			const struct lsb_module *m = lsb_reader_module(c->cc.r, (size_t)fn->module);

			put_name(f, obs, "cob", m && m->path ? m->path : "???");
		}
		put_name(f, fls, "cfi", file_name(&ci[first]));
		put_name(f, fns, "cfn", cli_cpi_func_name(c, to->func, buf, sizeof(buf)));
		fprintf(f, "calls=%" PRIu64 " 0x%" PRIx64 " %" PRIu32 "\n", e->count,
			ci[first].vaddr, ci[first].line);
		fprintf(f, "0x%" PRIx64 " %" PRIu32 " %" PRIu64 "\n", ci[last].vaddr,
			ci[last].line, share);
	}
}

static void put_func(FILE *f, const struct cli_cpi *c, const struct cg_insn *ci,
		     struct cg_names *nm, uint32_t fi)
{
	const struct lsa_cfg_func *fn = lsa_cfg_func(c->cc.cfg, fi);
	struct cg_names *obs = &nm[0], *fls = &nm[1], *fns = &nm[2];
	const char *fl = NULL;
	char buf[256];
	size_t b, j, first, n;

	for (b = 0; b < fn->nblocks; b++) {
		uint32_t id = fn->blocks[b];

		n = lsa_cpi_block_insns(c->cpi, id, &first);
		for (j = first; j < first + n; j++) {
			const struct lsa_cpi_insn *in = lsa_cpi_insn(c->cpi, j);
			const char *file = file_name(&ci[j]);

			if (!fl) {
				const struct lsb_module *m = fn->module >= 0 ?
					lsb_reader_module(c->cc.r, (size_t)fn->module) : NULL;

				put_name(f, obs, "ob", m && m->path ? m->path : "???");
				put_name(f, fls, "fl", fl = file);
				put_name(f, fns, "fn", cli_cpi_func_name(c, fi, buf, sizeof(buf)));
			} else if (strcmp(file, fl)) {
				/* Code inlined from another file (a header). */
				put_name(f, fls, "fi", fl = file);
			}
			if (ci[j].loop >= 0)
				fprintf(f, "# loop %" PRId32 ": head, %" PRIu64 " iterations\n",
					ci[j].loop, ci[j].iters);
			if (ci[j].back)
				fprintf(f, "%s=%" PRIu64 "/%" PRIu64 " 0x%" PRIx64 " %" PRIu32 "\n",
					ci[j].back < in->execs ? "jcnd" : "jump", ci[j].back,
					in->execs, ci[ci[j].head].vaddr, ci[ci[j].head].line);
			fprintf(f, "0x%" PRIx64 " %" PRIu32 " %" PRIu64, ci[j].vaddr,
				ci[j].line, in->execs);
			if (ci[j].iters)
				fprintf(f, " %" PRIu64, ci[j].iters);
			fputc('\n', f);
		}
		if (n)
			put_calls(f, c, ci, obs, fls, fns, id, first + n - 1,
				  fn->module);
	}
	if (fl)
		fputc('\n', f);
}

int export_callgrind(FILE *f, const struct cli_cpi *c, const char *cmd)
{
	size_t i, n = lsa_cpi_ninsns(c->cpi);
	struct cg_insn *ci = malloc((n + 1) * sizeof(*ci));
	struct cg_names nm[3];
	int err;

	if (!ci)
		return -LS_ENOMEM;
	if ((err = gather(c, ci)) < 0) {
		free(ci);
		return err;
	}
	memset(nm, 0, sizeof(nm));
	/* No summary line: callgrind_annotate then sums the costs itself. */
	fprintf(f, "# callgrind format\nversion: 1\ncreator: loopscope %s\n", LS_VERSION);
	fprintf(f, "cmd: %s\npositions: instr line\nevents: Ir Li\n", cmd ? cmd : "");
	fprintf(f, "# Ir: instructions executed (exact, from the trace)\n");
	fprintf(f, "# Li: loop iterations, at each loop's head\n\n");
	for (i = 0; i < lsa_cfg_nfuncs(c->cc.cfg); i++)
		put_func(f, c, ci, nm, (uint32_t)i);
	for (i = 0; i < 3; i++) {
		size_t k;

		for (k = 0; k < nm[i].n; k++)
			free(nm[i].names[k]);
		free(nm[i].names);
	}
	free(ci);
	return ferror(f) ? -LS_EIO : 0;
}
