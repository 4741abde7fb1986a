/* export_callgrind.c - `export --callgrind`: a bundle's exact executions
 * in Valgrind's callgrind format (valgrind.org/docs/manual/cl-format.html),
 * for KCachegrind and callgrind_annotate, from the sampled-CPI records of
 * its profile (analyze --cpi: formats/profile.md), so reading needs
 * neither the bundle nor its binaries.
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
#include "cli/export_views.h"
#include "ls_buf.h"
#include "ls_err.h"

/* What one instruction (cpiinsn row) gets besides its executions. */
struct cg_insn {
	uint64_t iters;		/* Li: iterations of the loop it heads */
	uint64_t back;		/* times it looped back to a head ... */
	size_t head;		/* ... this instruction (row) */
	uint32_t loop;		/* the profile loop it heads, or LSP_NONE */
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

/* What the export reads: the profile, and its rows indexed. */
struct cg {
	const struct lsp_profile *p;
	struct cg_insn *ci;
	size_t *blocks, nblocks;	/* lsp_cpi_blocks() */
	size_t *by_off;			/* rows by (module, off, block start desc) */
	uint64_t *bstart;		/* per row, its block's first offset */
	size_t *fstart;			/* per cpifunc, its first row (rows by func) */
};

static uint32_t row_module(const struct lsp_profile *p, size_t i)
{
	return p->cpifuncs[p->cpiinsns[i].func].module;
}

static const struct cg *sort_cg;

static int by_off(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const struct lsp_profile *p = sort_cg->p;
	uint32_t mx = row_module(p, x), my = row_module(p, y);

	if (mx != my)
		return mx < my ? -1 : 1;
	if (p->cpiinsns[x].off != p->cpiinsns[y].off)
		return p->cpiinsns[x].off < p->cpiinsns[y].off ? -1 : 1;
	if (sort_cg->bstart[x] != sort_cg->bstart[y])	/* the later block first */
		return sort_cg->bstart[x] > sort_cg->bstart[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The row of (module, off): of the blocks holding that instruction the
 * one that starts last, as the analysis looks instructions up
 * (lsa_cpi_find()); SIZE_MAX for none. */
static size_t find_row(const struct cg *g, uint32_t mod, uint64_t off)
{
	const struct lsp_profile *p = g->p;
	size_t lo = 0, hi = p->n_cpiinsns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, r = g->by_off[mid];
		uint32_t m = row_module(p, r);

		if (m < mod || (m == mod && p->cpiinsns[r].off < off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->n_cpiinsns && row_module(p, g->by_off[lo]) == mod &&
	    p->cpiinsns[g->by_off[lo]].off == off)
		return g->by_off[lo];
	return SIZE_MAX;
}

/* The row of the first instruction of cpiloop l's header: the block of
 * its function at its head's address. */
static size_t head_row(const struct cg *g, const struct lsp_cpiloop *l)
{
	const struct lsp_profile *p = g->p;
	size_t i;

	for (i = g->fstart[l->func]; i < p->n_cpiinsns && p->cpiinsns[i].func == l->func; i++)
		if (p->cpiinsns[i].first && p->cpiinsns[i].vaddr == l->vaddr)
			return i;
	return SIZE_MAX;
}

/* Per row: the loops' heads and back branches of the profile (summed
 * over threads). */
static int gather(struct cg *g)
{
	const struct lsp_profile *p = g->p;
	size_t i, k, n = p->n_cpiinsns, *head_of;
	int err;

	g->ci = calloc(n + 1, sizeof(*g->ci));
	g->by_off = malloc((n + 1) * sizeof(*g->by_off));
	g->bstart = malloc((n + 1) * sizeof(*g->bstart));
	g->fstart = malloc((p->n_cpifuncs + 1) * sizeof(*g->fstart));
	head_of = malloc((p->n_loops + 1) * sizeof(*head_of));
	if (!g->ci || !g->by_off || !g->bstart || !g->fstart || !head_of) {
		free(head_of);
		return -LS_ENOMEM;
	}
	if ((err = lsp_cpi_blocks(p, &g->blocks, &g->nblocks)) < 0) {
		free(head_of);
		return err;
	}
	for (i = 0; i < p->n_cpifuncs; i++)
		g->fstart[i] = n;
	for (i = n; i--; )	/* rows by function: its first */
		g->fstart[p->cpiinsns[i].func] = i;
	for (i = 0; i < n; i++) {
		g->ci[i].loop = LSP_NONE;
		g->by_off[i] = i;
		g->bstart[i] = p->cpiinsns[i].first || !i ? p->cpiinsns[i].off : g->bstart[i - 1];
	}
	sort_cg = g;
	qsort(g->by_off, n, sizeof(*g->by_off), by_off);
	for (i = 0; i < p->n_loops; i++)
		head_of[i] = SIZE_MAX;
	/* a detected loop's head is the first instruction of its header */
	for (k = 0; k < p->n_cpiloops; k++) {
		const struct lsp_cpiloop *l = &p->cpiloops[k];
		size_t h;

		if (l->family != LSP_CPI_DYNAMIC || l->loop == LSP_NONE ||
		    (h = head_row(g, l)) == SIZE_MAX)
			continue;
		head_of[l->loop] = h;
		g->ci[h].iters = l->iterations;
		g->ci[h].loop = l->loop;
	}
	for (k = 0; k < p->n_tails; k++) {
		const struct lsp_tail *t = &p->tails[k];
		size_t h = head_of[t->loop], at;

		if (h == SIZE_MAX)
			continue;
		at = find_row(g, row_module(p, h), t->off);
		if (at != SIZE_MAX) {
			g->ci[at].back += t->count;
			g->ci[at].head = h;
		}
	}
	free(head_of);
	return 0;
}

static const char *file_name(const struct lsp_cpiinsn *in)
{
	return in->file[0] ? in->file : "???";
}

static const char *module_path(const struct lsp_profile *p, uint32_t m)
{
	return m != LSP_NONE && p->modules[m].path[0] ? p->modules[m].path : "???";
}

/* The calls of the block starting at row b (calls from *next on, the
 * rows of that block), after its last instruction (row last). */
static void put_calls(FILE *f, const struct cg *g, struct cg_names *nm, size_t *next,
		      size_t b, size_t last)
{
	const struct lsp_profile *p = g->p;
	const struct lsp_cpiinsn *from = &p->cpiinsns[b], *lin = &p->cpiinsns[last];
	uint32_t mod = p->cpifuncs[from->func].module;

	for (; *next < p->n_cpicalls; ++*next) {
		const struct lsp_cpicall *c = &p->cpicalls[*next];
		const struct lsp_cpiinsn *e;
		uint32_t cm = p->cpifuncs[c->callee].module;
		size_t er;

		if (c->func != from->func || c->block != from->off)
			return;
		/* the reader checked the entry */
		er = lsp_cpi_block_row(p, g->blocks, g->nblocks, c->callee, c->entry);
		if (er == SIZE_MAX)
			continue;
		e = &p->cpiinsns[er];
		if (cm != LSP_NONE && cm != mod)
			put_name(f, &nm[0], "cob", module_path(p, cm));
		put_name(f, &nm[1], "cfi", file_name(e));
		put_name(f, &nm[2], "cfn", p->cpifuncs[c->callee].name);
		fprintf(f, "calls=%" PRIu64 " 0x%" PRIx64 " %" PRIu32 "\n", c->count,
			e->vaddr, e->line);
		fprintf(f, "0x%" PRIx64 " %" PRIu32 " %" PRIu64 "\n", lin->vaddr, lin->line,
			c->insns);
	}
}

/* The rows from *row of one function (its blocks in order). */
static void put_func(FILE *f, const struct cg *g, struct cg_names *nm, size_t *row,
		     size_t *next)
{
	const struct lsp_profile *p = g->p;
	uint32_t fi = p->cpiinsns[*row].func;
	const struct lsp_cpifunc *fn = &p->cpifuncs[fi];
	const char *fl = NULL;
	size_t j, b = *row;

	for (j = *row; j < p->n_cpiinsns && p->cpiinsns[j].func == fi; j++) {
		const struct lsp_cpiinsn *in = &p->cpiinsns[j];
		const struct cg_insn *ci = &g->ci[j];
		const char *file = file_name(in);

		if (in->first)
			b = j;
		if (!fl) {
			put_name(f, &nm[0], "ob", module_path(p, fn->module));
			put_name(f, &nm[1], "fl", fl = file);
			put_name(f, &nm[2], "fn", fn->name);
		} else if (strcmp(file, fl)) {
			/* Code inlined from another file (a header). */
			put_name(f, &nm[1], "fi", fl = file);
		}
		if (ci->loop != LSP_NONE)
			fprintf(f, "# loop %" PRIu32 ": head, %" PRIu64 " iterations\n",
				ci->loop, ci->iters);
		if (ci->back)
			fprintf(f, "%s=%" PRIu64 "/%" PRIu64 " 0x%" PRIx64 " %" PRIu32 "\n",
				ci->back < in->execs ? "jcnd" : "jump", ci->back, in->execs,
				p->cpiinsns[ci->head].vaddr, p->cpiinsns[ci->head].line);
		fprintf(f, "0x%" PRIx64 " %" PRIu32 " %" PRIu64, in->vaddr, in->line, in->execs);
		if (ci->iters)
			fprintf(f, " %" PRIu64, ci->iters);
		fputc('\n', f);
		/* the block ends: its calls */
		if (j + 1 == p->n_cpiinsns || p->cpiinsns[j + 1].first ||
		    p->cpiinsns[j + 1].func != fi)
			put_calls(f, g, nm, next, b, j);
	}
	fputc('\n', f);
	*row = j;
}

int export_callgrind(FILE *f, const struct lsp_profile *p)
{
	struct cg g = { .p = p };
	struct cg_names nm[3];
	size_t i, row = 0, next = 0;
	int err;

	if ((err = gather(&g)) >= 0) {
		memset(nm, 0, sizeof(nm));
		/* No summary line: callgrind_annotate then sums the costs itself. */
		fprintf(f, "# callgrind format\nversion: 1\ncreator: loopscope %s\n",
			LS_VERSION);
		fprintf(f, "cmd: %s\npositions: instr line\nevents: Ir Li\n", p->cpi.cmd);
		fprintf(f, "# Ir: instructions executed (exact, from the trace)\n");
		fprintf(f, "# Li: loop iterations, at each loop's head\n\n");
		while (row < p->n_cpiinsns)
			put_func(f, &g, nm, &row, &next);
		for (i = 0; i < 3; i++) {
			size_t k;

			for (k = 0; k < nm[i].n; k++)
				free(nm[i].names[k]);
			free(nm[i].names);
		}
	}
	free(g.ci);
	free(g.blocks);
	free(g.by_off);
	free(g.bstart);
	free(g.fstart);
	if (err < 0)
		return err;
	return ferror(f) ? -LS_EIO : 0;
}
