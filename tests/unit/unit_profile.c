/* unit_profile.c - the loop profile model, its file format
 * (formats/profile.md), merging and the aggregate view.
 *
 * Expected numbers are the hand-built profile's, documented in
 * tests/tools/mkprof.h; a merge of a profile with a copy of itself must
 * double every count and keep every key.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/profile.h"
#include "formats/profile_view.h"
#include "ls_err.h"
#include "tap.h"
#include "tests/tools/mkprof.h"

static char dir[] = "/tmp/unit_profile.XXXXXX";
static char path[256], path2[256];

static char *slurp(const char *file, size_t *len)
{
	FILE *f = fopen(file, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Files a and b hold the same bytes. */
static int same_bytes(const char *a, const char *b)
{
	size_t la = 0, lb = 0;
	char *ba = slurp(a, &la), *bb = slurp(b, &lb);
	int eq = ba && bb && la == lb && !memcmp(ba, bb, la);

	free(ba);
	free(bb);
	return eq;
}

/* Every array and string of a and b equal. */
static int same(const struct lsp_profile *a, const struct lsp_profile *b)
{
	size_t i;

#define SAMEN(x) if (a->n_##x != b->n_##x) return 0
	SAMEN(modules); SAMEN(threads); SAMEN(funcs); SAMEN(loops); SAMEN(lstats);
	SAMEN(trips); SAMEN(edges); SAMEN(tails); SAMEN(calls); SAMEN(fstats);
	if (a->trip_limit != b->trip_limit || a->nruns != b->nruns ||
	    strcmp(a->source, b->source))
		return 0;
	for (i = 0; i < a->n_modules; i++)
		if (a->modules[i].build_id_len != b->modules[i].build_id_len ||
		    memcmp(a->modules[i].build_id, b->modules[i].build_id, LSP_BUILD_ID_MAX) ||
		    strcmp(a->modules[i].path, b->modules[i].path))
			return 0;
	for (i = 0; i < a->n_funcs; i++) {
		const struct lsp_func *x = &a->funcs[i], *y = &b->funcs[i];

		if (x->module != y->module || x->off != y->off || x->vaddr != y->vaddr ||
		    strcmp(x->name, y->name) || strcmp(x->file, y->file) || x->line != y->line)
			return 0;
	}
	for (i = 0; i < a->n_loops; i++) {
		const struct lsp_loop *x = &a->loops[i], *y = &b->loops[i];

		if (x->module != y->module || x->head_off != y->head_off ||
		    x->head_vaddr != y->head_vaddr || x->func != y->func ||
		    strcmp(x->file, y->file) || x->line != y->line)
			return 0;
	}
#define SAMEROWS(x) \
	for (i = 0; i < a->n_##x; i++) \
		if (memcmp(&a->x[i], &b->x[i], sizeof(a->x[i]))) return 0
	SAMEROWS(threads); SAMEROWS(lstats); SAMEROWS(trips); SAMEROWS(edges);
	SAMEROWS(calls); SAMEROWS(fstats);
	if (a->n_tails != b->n_tails)
		return 0;
	for (i = 0; i < a->n_tails; i++) {
		const struct lsp_tail *x = &a->tails[i], *y = &b->tails[i];

		if (x->loop != y->loop || x->thread != y->thread || x->off != y->off ||
		    x->vaddr != y->vaddr || x->count != y->count || x->line != y->line ||
		    strcmp(x->file, y->file))
			return 0;
	}
	return 1;
}

static void test_roundtrip(struct lsp_profile *p)
{
	struct lsp_profile *q = NULL;
	char msg[256] = "";

	TAP_EQ(lsp_write(p, path, msg, sizeof(msg)), 0, "write: %s", msg);
	TAP_EQ(lsp_is_profile(path), 1, "the file has the profile magic");
	TAP_EQ(lsp_read(&q, path, msg, sizeof(msg)), 0, "read back: %s", msg);
	TAP_OK(q && same(p, q), "what was read equals what was written");
	if (q) {
		TAP_EQ(lsp_write(q, path2, msg, sizeof(msg)), 0, "write the copy");
		TAP_OK(same_bytes(path, path2),
		       "writing what was read gives the same bytes");
		TAP_EQ(strcmp(q->funcs[2].file, "odd\tdir/\"q\"\\.c"), 0,
		       "a tab, quotes and a backslash survive escaping");
	}
	lsp_free(q);
}

/* Version 3's rows: verdicts and dependences written, read back and
 * merged (counts add, the least distance, the graver verdict). */
static void test_deps_rows(void)
{
	struct lsp_profile *p, *q = NULL, *r = NULL;
	struct lsp_verdict v = { 1, LSP_V_DUPLICATE, 1u << LSP_V_PRIVATIZE };
	struct lsp_dep d = { 1, 1, 1, "", "B[]", 0x11d7, 0x11fe, "k.c", "k.c", 20, 20, 2, 1, 1 };
	char msg[256] = "";

	lsp_new(&p, 0);
	lsp_module_intern(p, NULL, 0, "m");
	lsp_loop_intern(p, 0, 0x10, 0x10, LSP_NONE, "k.c", 17);
	lsp_loop_intern(p, 0, 0x20, 0x20, LSP_NONE, "k.c", 18);
	TAP_EQ(lsp_set_verdict(p, &v), 0, "a verdict");
	v.loop = 7;
	TAP_EQ(lsp_set_verdict(p, &v), -LS_EINVAL, "a verdict of no loop");
	TAP_EQ(lsp_add_dep(p, &d), 0, "a dependence");
	d.note = "IV";
	d.var = "f:cfa-0x14";
	d.kind = 0;
	d.decides = 0;
	d.count = 5;
	d.dmin = 2;
	TAP_EQ(lsp_add_dep(p, &d), 0, "another");
	d.count = 1;
	d.dmin = 1;
	d.dtyp = 3;
	TAP_EQ(lsp_add_dep(p, &d), 0, "the same pair again");
	TAP_OK(p->n_deps == 2 && p->deps[1].count == 6 && p->deps[1].dmin == 1 &&
	       p->deps[1].dtyp == 1, "summed: count 6, dmin 1, dtyp of the larger count");
	TAP_EQ(lsp_write(p, path, msg, sizeof(msg)), 0, "write: %s", msg);
	TAP_EQ(lsp_read(&q, path, msg, sizeof(msg)), 0, "read back: %s", msg);
	TAP_OK(q && q->n_verdicts == 1 && q->verdicts[0].loop == 1 &&
	       q->verdicts[0].verdict == LSP_V_DUPLICATE &&
	       q->verdicts[0].needs == 1u << LSP_V_PRIVATIZE, "the verdict reads back");
	TAP_OK(q && q->n_deps == 2 && !strcmp(q->deps[0].var, "B[]") && q->deps[0].kind == 1 &&
	       q->deps[0].decides == 1 && q->deps[0].src_vaddr == 0x11d7 &&
	       !strcmp(q->deps[1].note, "IV") && q->deps[1].count == 6 &&
	       q->deps[1].src_line == 20, "the dependences read back");
	lsp_new(&r, 0);
	v.loop = 1;
	v.verdict = LSP_V_NOT;
	v.needs = 0;
	TAP_EQ(lsp_merge(r, p), 0, "merge into an empty profile");
	TAP_EQ(lsp_merge(r, q), 0, "merge the copy");
	TAP_OK(r->n_deps == 2 && r->deps[0].count == 4 && r->deps[1].count == 12,
	       "merged counts add");
	lsp_set_verdict(q, &v);
	TAP_EQ(lsp_merge(r, q), 0, "merge a run where it is not parallelizable");
	TAP_OK(r->n_verdicts == 1 && r->verdicts[0].verdict == LSP_V_NOT &&
	       r->verdicts[0].needs == 1u << LSP_V_PRIVATIZE, "the graver verdict wins");
	TAP_EQ(lsp_verdict_code("duplicate-array"), LSP_V_DUPLICATE, "verdict names");
	lsp_free(p);
	lsp_free(q);
	lsp_free(r);
}

static void test_intern(void)
{
	struct lsp_profile *p;
	uint8_t id[3] = { 1, 2, 3 };
	int i, ok = 1;

	lsp_new(&p, 0);
	TAP_EQ(p->trip_limit, LSP_TRIP_LIMIT, "trip limit 0 means the default");
	TAP_EQ(lsp_module_intern(p, id, 3, "a"), 0, "first module");
	TAP_EQ(lsp_module_intern(p, id, 3, "b"), 0, "same build-id, other path: same module");
	TAP_EQ(lsp_module_intern(p, NULL, 0, "vdso"), 1, "no build-id: keyed by path");
	TAP_EQ(lsp_module_intern(p, NULL, 0, "vdso"), 1, "... and found again");
	TAP_EQ(lsp_func_intern(p, 7, 0, 0, "", "", 0), -LS_EINVAL, "function of no module");
	TAP_EQ(lsp_loop_intern(p, 0, 0, 0, 5, "", 0), -LS_EINVAL, "loop of no function");
	for (i = 0; i < 50000 && ok; i++)
		ok = lsp_loop_intern(p, (uint32_t)(i & 1), (uint64_t)i * 16, 0, LSP_NONE, "", 0) == i;
	for (i = 0; i < 50000 && ok; i++)
		ok = lsp_loop_intern(p, (uint32_t)(i & 1), (uint64_t)i * 16, 0, LSP_NONE, "x", 0) == i;
	TAP_OK(ok, "50000 loops interned and found again by (module, offset)");
	/* An array changed behind the interning functions. */
	for (i = 10; i < (int)p->n_loops; i++) {
		free(p->loops[i].file);
		free(p->loops[i].head_file);
		free(p->loops[i].inlined_from);
	}
	p->n_loops = 10;
	TAP_EQ(lsp_loop_intern(p, 1, 16 * 20001, 0, LSP_NONE, "", 0), 10,
	       "a shrunk array makes the index rebuild");
	TAP_EQ(lsp_loop_intern(p, 0, 16 * 4, 0, LSP_NONE, "", 0), 4, "old keys still found");
	lsp_free(p);
}

static void test_view(const struct lsp_profile *p)
{
	struct lsp_view *v = NULL;
	const struct lsp_view_loop *l2;
	uint32_t *ids = NULL;
	int n;

	TAP_EQ(lsp_view_new(&v, p, LSP_VIEW_ALL), 0, "view of all threads");
	if (!v)
		return;
	l2 = &v->loops[2];
	TAP_EQ(v->total_insns, 10000, "program total: the threads' sum");
	TAP_EQ(l2->entries, 132, "loop 2 entries summed over threads");
	TAP_EQ(l2->iterations, 690, "loop 2 iterations");
	TAP_EQ(l2->self, 5700, "loop 2 self");
	TAP_EQ(l2->trip_min, 3, "trip minimum combined");
	TAP_EQ(l2->trip_max, 150, "trip maximum combined");
	TAP_EQ(l2->over_entries, 2, "overflow entries");
	TAP_EQ(l2->ntrips, 1, "one exact trip bucket");
	TAP_EQ(v->trips[l2->trip0].trips * 1000 + v->trips[l2->trip0].entries, 3130,
	       "3 trips x 130 entries");
	TAP_EQ(l2->depth, 1, "loop 2 is also entered at the top level (thread 101)");
	TAP_EQ(l2->nparents, 2, "loop 2 has two parents");
	TAP_EQ(v->parents[l2->parent0].loop, 1, "the parent with most entries first");
	TAP_EQ(v->loops[1].depth, 2, "loop 1 depth 2");
	TAP_EQ(v->loops[0].nchildren, 1, "loop 0 has one child");
	TAP_EQ(v->ntops, 3, "three top-level links");
	TAP_EQ(v->funcs[1].self, 5600, "work's self summed");
	n = lsp_view_sorted_loops(v, &ids);
	TAP_EQ(n, 4, "four loops");
	TAP_OK(n == 4 && ids[0] == 0 && ids[1] == 1 && ids[2] == 2 && ids[3] == 3,
	       "sorted by total instructions");
	free(ids);
	lsp_view_free(v);
	TAP_EQ(lsp_view_new(&v, p, 100), 0, "view of tid 100");
	if (v) {
		TAP_EQ(v->total_insns, 8000, "tid 100 instructions");
		TAP_EQ(v->loops[2].depth, 3, "loop 2 at depth 3 in tid 100");
		TAP_EQ(v->loops[2].entries, 130, "loop 2 entries of tid 100");
		lsp_view_free(v);
	}
	TAP_EQ(lsp_view_new(&v, p, 7), -LS_ENOENT, "no thread 7");
}

/* Parts: shards of one bundle join one run and become the whole bundle;
 * a part given twice is refused, and the result is in canonical order
 * (written, read back and sorted again: the same bytes). */
static void test_parts(void)
{
	struct lsp_profile *x = NULL, *y = NULL, *z = NULL, *w = NULL;
	char msg[256];
	size_t di = 9, si = 9;

	lsp_read(&x, path, msg, sizeof(msg));
	lsp_read(&y, path, msg, sizeof(msg));
	lsp_read(&z, path, msg, sizeof(msg));
	if (!x || !y || !z) {
		TAP_OK(0, "read three copies");
		goto out;
	}
	TAP_EQ(lsp_part_add(x, 0, "B", 2, 2), -LS_EINVAL, "shard 2 of 2: refused");
	TAP_EQ(lsp_part_add(x, 1, "B", 0, 2), -LS_EINVAL, "run 1 of a one-run profile: refused");
	lsp_part_add(x, 0, "B", 0, 2);
	lsp_part_add(y, 0, "B", 1, 2);
	lsp_part_add(z, 0, "B", 0, 2);
	TAP_EQ(lsp_part_conflict(x, y, NULL, NULL), 0, "shards 0/2 and 1/2: no conflict");
	TAP_EQ(lsp_merge(x, y), 0, "merge the two shards");
	TAP_EQ(x->nruns, 1, "... into one run");
	TAP_EQ(x->n_parts == 1 && x->parts[0].shard == 0 && x->parts[0].nshards == 1, 1,
	       "... which holds the whole bundle B (0/1)");
	TAP_EQ(lsp_part_conflict(x, z, &di, &si), 1, "shard 0/2 again: a conflict");
	TAP_EQ(di == 0 && si == 0, 1, "... naming both parts");
	TAP_EQ(lsp_merge(x, z), -LS_EEXIST, "... refused by the merge");
	TAP_EQ(lsp_write(x, path2, msg, sizeof(msg)), 0, "write the merge");
	lsp_read(&w, path2, msg, sizeof(msg));
	TAP_EQ(w && w->n_parts == 1 && lsp_sort(w) == 0 &&
	       lsp_write(w, path2, msg, sizeof(msg)) == 0, 1, "read back, sorted again");
	lsp_free(z);
	z = NULL;
	lsp_read(&z, path2, msg, sizeof(msg));
	TAP_EQ(z && z->n_loops == x->n_loops && z->n_threads == x->n_threads, 1,
	       "the same profile");
out:
	lsp_free(x);
	lsp_free(y);
	lsp_free(z);
	lsp_free(w);
}

static void test_merge(const struct lsp_profile *p)
{
	struct lsp_profile *a = NULL, *b = NULL, *c = NULL;
	struct lsp_view *v1 = NULL, *v2 = NULL;
	char msg[256];
	size_t i;
	int ok = 1;

	lsp_read(&a, path, msg, sizeof(msg));
	lsp_read(&b, path, msg, sizeof(msg));
	/* the merge is in canonical order: compare with p's */
	lsp_read(&c, path, msg, sizeof(msg));
	if (!a || !b || !c || lsp_sort(c) < 0) {
		TAP_OK(0, "read two copies");
		goto out;
	}
	TAP_EQ(lsp_merge(a, b), 0, "merge a profile with a copy of itself");
	TAP_EQ(a->nruns, 2, "two runs");
	TAP_EQ(a->n_loops, p->n_loops, "loops deduplicated by (module, offset)");
	TAP_EQ(a->n_modules, p->n_modules, "modules deduplicated by build-id");
	TAP_EQ(a->n_funcs, p->n_funcs, "functions deduplicated");
	TAP_EQ(a->n_threads, 2 * p->n_threads, "threads appended");
	TAP_EQ(a->threads[2].run, 1, "the copy's threads are run 1");
	lsp_view_new(&v1, c, LSP_VIEW_ALL);
	lsp_view_new(&v2, a, LSP_VIEW_ALL);
	TAP_EQ(v2->total_insns, 2 * v1->total_insns, "total instructions doubled");
	for (i = 0; i < p->n_loops; i++) {
		const struct lsp_view_loop *x = &v1->loops[i], *y = &v2->loops[i];
		size_t k;

		ok &= y->entries == 2 * x->entries && y->iterations == 2 * x->iterations &&
		      y->self == 2 * x->self && y->total == 2 * x->total &&
		      y->over_sum == 2 * x->over_sum && y->trip_min == x->trip_min &&
		      y->trip_max == x->trip_max && y->ntrips == x->ntrips &&
		      y->nparents == x->nparents && y->depth == x->depth;
		for (k = 0; k < x->ntrips; k++)
			ok &= v2->trips[y->trip0 + k].entries == 2 * v1->trips[x->trip0 + k].entries;
		for (k = 0; k < x->nparents; k++)
			ok &= v2->parents[y->parent0 + k].count == 2 * v1->parents[x->parent0 + k].count;
		for (k = 0; k < x->ntails; k++)
			ok &= v2->tails[y->tail0 + k].count == 2 * v1->tails[x->tail0 + k].count;
		for (k = 0; k < x->ncalls; k++)
			ok &= v2->calls[y->call0 + k].count == 2 * v1->calls[x->call0 + k].count;
	}
	for (i = 0; i < p->n_funcs; i++)
		ok &= v2->funcs[i].self == 2 * v1->funcs[i].self &&
		      v2->funcs[i].calls == 2 * v1->funcs[i].calls;
	TAP_OK(ok, "every loop, trip, edge, tail, call and function count doubled");
	b->trip_limit = 50;
	TAP_EQ(lsp_merge(a, b), -LS_EINVAL, "other trip limit: refused");
	TAP_EQ(a->nruns, 2, "... and nothing merged");
out:
	lsp_view_free(v1);
	lsp_view_free(v2);
	lsp_free(a);
	lsp_free(b);
	lsp_free(c);
}

/* The message of a failed read names the file, and the line when the
 * file got past its first bytes. */
static int names_place(const char *msg, int want_line)
{
	int line;
	char c;

	if (strncmp(msg, "t.lsprof:", 9))
		return 0;
	if (!want_line)
		return 1;
	return sscanf(msg + 9, "%d%c", &line, &c) == 2 && line > 0 && c == ':';
}

static void test_bad(void)
{
	struct lsp_profile *q;
	char msg[256], *buf, *mut;
	size_t len, i, k;
	int ok = 1, placed = 1, accepted = 0;
	unsigned seed = 12345;

	buf = slurp(path, &len);
	if (!buf) {
		TAP_OK(0, "read the file back");
		return;
	}
	for (i = 0; i < len; i++) {
		q = NULL;
		msg[0] = 0;
		if (lsp_read_mem(&q, buf, i, "t.lsprof", msg, sizeof(msg)) == 0) {
			ok = 0;
			lsp_free(q);
			printf("# accepted a file cut at %zu\n", i);
		} else if (!names_place(msg, i > 20)) {
			placed = 0;
			printf("# cut at %zu: %s\n", i, msg);
		}
	}
	TAP_OK(ok, "every one of the %zu truncations is rejected", len);
	TAP_OK(placed, "... naming the file and line");
	mut = malloc(len);
	for (i = 0; i < 3000 && mut; i++) {
		int nflip = 1 + (int)(i % 3), err;

		memcpy(mut, buf, len);
		for (k = 0; k < (size_t)nflip; k++) {
			seed = seed * 1103515245 + 12345;
			mut[(seed >> 8) % len] ^= (char)(1 + (seed >> 20) % 255);
		}
		q = NULL;
		msg[0] = 0;
		err = lsp_read_mem(&q, mut, len, "t.lsprof", msg, sizeof(msg));
		if (!err) {
			struct lsp_view *v = NULL;

			accepted++;
			if (lsp_view_new(&v, q, LSP_VIEW_ALL) == 0)
				lsp_view_free(v);
			lsp_free(q);
		} else if (!names_place(msg, 0)) {
			placed = 0;
			printf("# flip %zu: %s\n", i, msg);
		}
	}
	printf("# %d of 3000 mutated files still valid (flips inside counts)\n", accepted);
	TAP_OK(placed, "3000 files with flipped bytes: no crash, errors name the file");
	free(mut);
	free(buf);

	/* Specific messages. */
	{
		static const struct {
			const char *text, *want;
			int err;
		} cases[] = {
			{ "loopscope-profile 1\nprofile\t10\t1\t\nmodule\t0\t-\tm\n"
			  "loop\t0\t0\t0x10\t0x10\t-\t\t0\nedge\t-\t99\t0\t1\t5\nend\t4\n",
			  "t.lsprof:5: bad loop index '99'", -LS_ECORRUPT },
			{ "loopscope-profile 8\n", "t.lsprof:1: format version 8, this loopscope "
			  "reads versions 1 to 7", -LS_EVERSION },
			/* a part record is version 3's; a shard of no shard count */
			{ "loopscope-profile 2\nprofile\t10\t1\t\npart\t0\tB\t0\t1\nend\t2\n",
			  "t.lsprof:3: unknown record 'part'", -LS_ECORRUPT },
			{ "loopscope-profile 3\nprofile\t10\t1\t\npart\t0\tB\t2\t2\nend\t2\n",
			  "t.lsprof:3: bad shard '2'", -LS_ECORRUPT },
			{ "loopscope-profile 3\nprofile\t10\t1\t\npart\t0\tB\t1\t2\n"
			  "part\t0\tB\t1\t2\nend\t3\n",
			  "t.lsprof:4: duplicate part 'B'", -LS_ECORRUPT },
			/* version 3: verdicts and dependences (analyze --deps) */
			{ "loopscope-profile 2\nprofile\t10\t1\t\nmodule\t0\t-\tm\n"
			  "loop\t0\t0\t0x10\t0x10\t-\t\t0\t\t0\t0\t0\t\n"
			  "verdict\t0\treduction\t0\nend\t4\n",
			  "t.lsprof:5: unknown record 'verdict'", -LS_ECORRUPT },
			{ "loopscope-profile 3\nprofile\t10\t1\t\nmodule\t0\t-\tm\n"
			  "loop\t0\t0\t0x10\t0x10\t-\t\t0\t\t0\t0\t0\t\n"
			  "verdict\t0\tmaybe\t0\nend\t4\n",
			  "t.lsprof:5: unknown verdict 'maybe'", -LS_ECORRUPT },
			{ "loopscope-profile 3\nprofile\t10\t1\t\nmodule\t0\t-\tm\n"
			  "loop\t0\t0\t0x10\t0x10\t-\t\t0\t\t0\t0\t0\t\n"
			  "verdict\t0\treduction\t0\nverdict\t0\treduction\t0\nend\t5\n",
			  "t.lsprof:6: duplicate 'verdict'", -LS_ECORRUPT },
			{ "loopscope-profile 3\nprofile\t10\t1\t\nmodule\t0\t-\tm\n"
			  "loop\t0\t0\t0x10\t0x10\t-\t\t0\t\t0\t0\t0\t\n"
			  "dep\t0\tRAR\t1\t\tx\t0x1\tf.c\t1\t0x2\tf.c\t2\t3\t1\t1\nend\t4\n",
			  "t.lsprof:5: unknown dependence kind 'RAR'", -LS_ECORRUPT },
			{ "loopscope-profile 3\nprofile\t10\t1\t\nmodule\t0\t-\tm\n"
			  "loop\t0\t0\t0x10\t0x10\t-\t\t0\t\t0\t0\t0\t\n"
			  "dep\t0\tRAW\t1\t\tx\t0x1\tf.c\t1\t0x2\tf.c\t2\t3\t1\t1\n"
			  "dep\t0\tRAW\t0\t\tx\t0x1\tf.c\t1\t0x2\tf.c\t2\t4\t1\t1\nend\t5\n",
			  "t.lsprof:6: duplicate 'dep'", -LS_ECORRUPT },
			/* version 2: loop records carry the head's file and line */
			{ "loopscope-profile 2\nprofile\t10\t1\t\nmodule\t0\t-\tm\n"
			  "loop\t0\t0\t0x10\t0x10\t-\t\t0\nend\t3\n",
			  "t.lsprof:4: 8 fields instead of 13 in a 'loop'", -LS_ECORRUPT },
			{ "hello\n", "t.lsprof: not a loop profile (no 'loopscope-profile' line)",
			  -LS_EFORMAT },
			{ "loopscope-profile 1\nprofile\t10\t1\t\nmodule\t0\t-\tm\nmodule\t1\t-\tm\nend\t3\n",
			  "t.lsprof:4: duplicate module '-'", -LS_ECORRUPT },
			{ "loopscope-profile 1\nprofile\t10\t1\t\nend\t2\n",
			  "t.lsprof:3: record count does not match: the file lost records; count '2'",
			  -LS_ETRUNC },
			{ "loopscope-profile 1\nprofile\t10\t1\t\nend\t1\nend\t1\n",
			  "t.lsprof:4: data after the end record", -LS_ECORRUPT },
		};
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			int err;

			q = NULL;
			msg[0] = 0;
			err = lsp_read_mem(&q, cases[i].text, strlen(cases[i].text), "t.lsprof",
					   msg, sizeof(msg));
			TAP_EQ(err, cases[i].err, "case %zu: %s", i, msg);
			TAP_EQ(strcmp(msg, cases[i].want), 0, "case %zu message", i);
			lsp_free(q);
		}
	}
}

/* One shard of bundle "L": one thread (tid) of a loop at head line 5 with
 * three back branches at offsets 0x20, 0x30, 0x40 (lines 10, 20, 30 of
 * l.c) looping back x, y and z times; labelled as analyze labels it, by
 * its own most executed branch. */
static struct lsp_profile *shard(uint32_t k, uint32_t tid, uint64_t x, uint64_t y,
				 uint64_t z)
{
	static const uint8_t bid[4] = { 1, 2, 3, 4 };
	const uint64_t cnt[3] = { x, y, z }, off[3] = { 0x20, 0x30, 0x40 };
	const uint32_t line[3] = { 10, 20, 30 };
	struct lsp_thread t = { 0 };
	struct lsp_profile *p;
	uint32_t b = 0, i;

	if (lsp_new(&p, 16) < 0)
		return NULL;
	t.tid = tid;
	t.pid = 7;
	lsp_module_intern(p, bid, sizeof(bid), "/l");
	lsp_loop_intern(p, 0, 0x10, 0x10, LSP_NONE, "l.c", 5);
	lsp_thread_add(p, &t);
	for (i = 0; i < 3; i++) {
		struct lsp_tail tl = { 0, 0, off[i], off[i], cnt[i], line[i], (char *)"l.c" };

		lsp_add_tail(p, &tl);
		if (cnt[i] > cnt[b])
			b = i;
	}
	lsp_loop_set_lines(p, 0, "l.c", line[b], "l.c", 5);
	lsp_loop_set_range(p, 0, 5, line[b] > 30 ? line[b] : 30, "");
	lsp_part_add(p, 0, "L", k, 2);
	return p;
}

/* Shards whose threads loop back most through different branches: the
 * merged best branch is neither shard's (20 + 19 through line 20 beats 21
 * and 20), and the label is that branch's line, as analyze would give the
 * whole bundle (counts made up so; the rule is label_loops()'s). */
static void test_shard_labels(void)
{
	struct lsp_profile *a = shard(0, 1, 21, 20, 0), *b = shard(1, 2, 0, 19, 20);

	TAP_EQ(a && b && a->loops[0].line == 10 && b->loops[0].line == 30, 1,
	       "shards labelled by their own best branches: lines 10 and 30");
	TAP_EQ(a && b ? lsp_merge(a, b) : -1, 0, "merge the two shards");
	TAP_EQ(a ? a->loops[0].line : 0, 20, "the merged label is line 20, of the branch "
	       "neither shard looped back through most");
	TAP_EQ(a && a->loops[0].first_line == 5 && a->loops[0].last_line == 30, 1,
	       "the line range is both shards' (5-30)");
	lsp_free(a);
	lsp_free(b);
}


/* Version 6's sampled-CPI records: written and read back the same (reals
 * to the bit), renumbered with the loops by lsp_sort(), checked (a loop's
 * parent must be a loop of its family), dropped by merge. */
static void test_cpi_rows(void)
{
	struct lsp_profile *p = NULL, *q = NULL, *m = NULL;
	struct lsp_cpi c = { .unit = LSP_CPI_NS, .event = "cpu-clock:u", .skid_fix = 1,
			     .samples = 10, .attributed = 7, .unmapped = 1, .no_module = 1,
			     .not_executed = 1, .no_pred = 1, .cost = 1000, .cost_attributed = 700,
			     .insns = 500, .cmd = "a -x" };
	/* f calls itself at its one block (recursion), 3 times, 30 instructions */
	struct lsp_cpicall cc = { 0, 0x10, 0, 0x10, 3, 30 };
	size_t *rows = NULL, nrows = 0;
	struct lsp_cpifunc f = { 0, "f", { 0.1 + 0.2, 300, 200 }, { 7.0 / 3, 700, 500 } };
	struct lsp_cpiloop l = { LSP_CPI_DYNAMIC, 0, LSP_NONE, 0x1010, "a.c", 7, "a.c:7", 40,
				 { 1, 100, 80 }, { 2, 200, 160 }, 1.5, 150, 1 };
	struct lsp_cpiinsn in = { 0, 1, 0x10, 0x1010, "a.c", 7, "addq $1, %rax", 40,
				  1.0 / 3, 1, 33, 30 };
	struct lsp_cpiline ln = { 1, 0, 7, 40, 80, 100 };
	char msg[256] = "";
	int m0;

	TAP_EQ(lsp_new(&p, 16), 0, "a profile for the CPI rows");
	if (!p)
		return;
	m0 = lsp_module_intern(p, NULL, 0, "/bin/a");
	/* loops met in the other order than the canonical one */
	lsp_loop_intern(p, (uint32_t)m0, 0x20, 0x1020, LSP_NONE, "a.c", 9);
	lsp_loop_intern(p, (uint32_t)m0, 0x10, 0x1010, LSP_NONE, "a.c", 7);
	TAP_EQ(lsp_set_cpi(p, &c), 0, "the cpi record");
	TAP_EQ(lsp_add_cpifunc(p, &f), 0, "a function");
	TAP_EQ(lsp_add_cpiloop(p, &l), 0, "a dynamic loop");
	l.family = LSP_CPI_STRUCTURAL;
	l.loop = LSP_NONE;
	l.parent = 0;
	TAP_EQ(lsp_add_cpiloop(p, &l), 0, "a structural loop");
	TAP_EQ(lsp_add_cpiinsn(p, &in), 0, "an instruction");
	TAP_EQ(lsp_add_cpisrc(p, "/src/a.c"), 0, "a source file");
	TAP_EQ(lsp_add_cpiline(p, &ln), 0, "a line of loop 1");
	TAP_EQ(lsp_add_cpicall(p, &cc), 0, "a call");
	cc.count = 0;
	TAP_EQ(lsp_add_cpicall(p, &cc), -LS_EINVAL, "... not one of no calls");
	TAP_EQ(lsp_cpi_blocks(p, &rows, &nrows), 0, "the block rows");
	TAP_EQ(nrows, 1, "... one");
	TAP_EQ(lsp_cpi_block_row(p, rows, nrows, 0, 0x10), 0, "... found by (func, off)");
	TAP_EQ(lsp_cpi_block_row(p, rows, nrows, 0, 0x11), SIZE_MAX, "... not at another off");
	free(rows);
	TAP_EQ(lsp_check(p, msg, sizeof(msg)), -LS_ECORRUPT,
	       "a structural loop's parent must be a structural loop");
	TAP_EQ(strcmp(msg, "profile as written:9: bad parent (no cpiloop of the family, "
		      "or itself) '0'"), 0, "... named at its line: %s", msg);
	p->cpiloops[1].parent = LSP_NONE;
	msg[0] = '\0';
	TAP_EQ(lsp_check(p, msg, sizeof(msg)), 0, "the rows pass: %s", msg);
	TAP_EQ(lsp_sort(p), 0, "sorted");
	TAP_EQ(p->cpiloops[0].loop, 0, "the dynamic loop follows its loop (0x10 first)");
	TAP_EQ(p->cpilines[0].loop, 0, "... and so does its line");
	TAP_EQ(lsp_write(p, path, msg, sizeof(msg)), 0, "write: %s", msg);
	TAP_EQ(lsp_read(&q, path, msg, sizeof(msg)), 0, "read back: %s", msg);
	if (q) {
		TAP_OK(q->has_cpi && q->cpi.samples == 10 && !strcmp(q->cpi.event, "cpu-clock:u") &&
		       q->n_cpifuncs == 1 && q->n_cpiloops == 2 && q->n_cpiinsns == 1 &&
		       q->n_cpisrcs == 1 && q->n_cpilines == 1 && q->n_cpicalls == 1,
		       "every row is back");
		TAP_OK(q->cpi.calls && !strcmp(q->cpi.cmd, "a -x") && q->cpicalls[0].count == 3 &&
		       q->cpicalls[0].insns == 30 && q->cpicalls[0].entry == 0x10,
		       "the command line and the call (version 7)");
		TAP_OK(q->cpifuncs[0].self.samples == 0.1 + 0.2 &&
		       q->cpifuncs[0].total.samples == 7.0 / 3 &&
		       q->cpiinsns[0].samples == 1.0 / 3, "reals to the bit");
		TAP_EQ(strcmp(q->cpiinsns[0].dis, "addq $1, %rax"), 0, "the disassembly");
		TAP_EQ(lsp_write(q, path2, msg, sizeof(msg)), 0, "write the copy");
		TAP_OK(same_bytes(path, path2),
		       "writing what was read gives the same bytes");
	}
	TAP_EQ(lsp_new(&m, 16), 0, "a merge");
	if (m && q) {
		TAP_EQ(lsp_merge(m, q), 0, "merge the profile");
		TAP_OK(!m->has_cpi && !m->n_cpiinsns && !m->n_cpilines && !m->n_cpicalls,
		       "merge drops the CPI rows");
	}
	lsp_free(m);
	lsp_free(q);
	lsp_free(p);
}

int main(void)
{
	struct lsp_profile *p = NULL;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/a.lsprof", dir);
	snprintf(path2, sizeof(path2), "%s/b.lsprof", dir);
	TAP_EQ(mkprof_build(&p), 0, "build the profile of mkprof.h");
	if (!p)
		return 1;
	test_intern();
	test_deps_rows();
	test_cpi_rows();
	test_roundtrip(p);
	test_view(p);
	test_merge(p);
	test_parts();
	test_shard_labels();
	test_bad();
	{
		char msg[256] = "";
		struct lsp_trip t = { 0, 0, 10, 5 };

		TAP_EQ(lsp_check(p, msg, sizeof(msg)), 0, "lsp_check passes the good profile");
		lsp_add_trip(p, &t);
		TAP_EQ(lsp_check(p, msg, sizeof(msg)), -LS_ECORRUPT,
		       "lsp_check finds a repeated trip row");
		TAP_EQ(strcmp(msg, "profile as written:24: duplicate 'trip'"), 0,
		       "... naming its line: %s", msg);
	}
	TAP_EQ(lsp_is_profile(dir), 0, "a directory is no profile");
	TAP_EQ(lsp_is_profile("/nonexistent/x"), -LS_ENOENT, "missing file");
	lsp_free(p);
	unlink(path);
	unlink(path2);
	rmdir(dir);
	return TAP_DONE();
}
