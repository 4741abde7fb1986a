/* unit_deps.c - the address tables and the access spools of the
 * dependence analysis (analysis/deps_tab.c).
 *
 * Tables: 200,000 addresses 8 bytes apart (the stride the hash must
 * spread) are found again after every growth, a cleared table holds
 * none of them, and a big table cleared with few entries (the per-entry
 * path) is empty too.  Runs: 1,000 entries 8 bytes apart, written by one
 * site in iterations 1, 2, ..., compact into one run whose elements read
 * back as they were put in; taking one out of the middle splits it in
 * two around it.  Spools: records encoded by hand from the LSP_MEMACC
 * layout of recorder/lsc_proto.h decode to the values put in; a record
 * cut in the middle of an access is counted as damaged and the next
 * record still decodes; an allocation record (size byte 0, then the
 * block's size) decodes with size 0.
 *
 * Overlaps: a table of strided runs and of entries 1 to 16 bytes long
 * at random addresses, compacted and split again, answers random
 * queries of 1 to 128 bytes with the entries a byte model of the same
 * table says overlap the query, in address order (the model is the
 * definition: every entry sharing a byte with the query), through its
 * near index and with the index marked incomplete (every byte probed),
 * across clears that reuse the index. */
#include <stdio.h>
#include <string.h>

#include "analysis/deps_int.h"
#include "tests/unit/rng.h"
#include "tests/unit/tap.h"

static size_t put_uleb(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		p[n++] = (uint8_t)(b | (v ? 0x80 : 0));
	} while (v);
	return n;
}

static size_t put_sleb(uint8_t *p, int64_t v)
{
	size_t n = 0;
	int more = 1;

	while (more) {
		uint8_t b = v & 0x7f;

		v >>= 7;	/* arithmetic on the compilers we use */
		more = !((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40)));
		p[n++] = (uint8_t)(b | (more ? 0x80 : 0));
	}
	return n;
}

static struct deps_ent g_tmp;

static const struct deps_ent *deps_tab_find(const struct deps_tab *t, uint64_t a)
{
	return deps_tab_peek(t, a, &g_tmp);
}

static void test_runs(void)
{
	struct deps_tab t;
	const struct deps_ent *e;
	struct deps_ent *m;
	uint32_t i;
	int isnew, ok = 1;

	memset(&t, 0, sizeof(t));
	t.cmin = t.next = 4096;
	for (i = 0; i < 1000 && ok; i++) {
		m = deps_tab_get(&t, 0x5000 + 8ull * i, &isnew);
		ok = m && isnew;
		if (ok) {
			m->w = 3;
			m->wit = i + 1;
			m->r[0] = 7;
			m->rit[0] = 2 * i;
			deps_tab_len(&t, m, 8);
		}
	}
	TAP_OK(ok, "1000 entries");
	t.next = 0;
	deps_tab_maybe_compact(&t);
	TAP_EQ(t.nrun, 1, "compact into one run");
	TAP_EQ(t.n, 0, "... leaving no entry");
	TAP_EQ(deps_tab_count(&t), 1000, "... of 1000 addresses");
	for (i = 0; i < 1000 && ok; i++) {
		e = deps_tab_find(&t, 0x5000 + 8ull * i);
		ok = e && e->addr == 0x5000 + 8ull * i && e->w == 3 && e->wit == i + 1 &&
		     e->r[0] == 7 && e->rit[0] == 2 * i && e->odepth == -1;
	}
	TAP_OK(ok, "every element reads back as put in");
	TAP_OK(!deps_tab_find(&t, 0x5004) && !deps_tab_find(&t, 0x5000 + 8000),
	       "between the elements and past the end: none");
	m = deps_tab_get(&t, 0x5000 + 8 * 500, &isnew);
	TAP_OK(m && !isnew && m->wit == 501, "taking element 500 out keeps its values");
	TAP_OK(t.nrun == 2 && t.n == 1 && deps_tab_count(&t) == 1000, "... and splits the run");
	e = deps_tab_find(&t, 0x5000 + 8 * 501);
	TAP_OK(e && e->wit == 502 && e->rit[0] == 1002, "the second run starts at element 501");
	deps_tab_release(&t);
}

static void test_tab(void)
{
	struct deps_tab t;
	uint32_t i;
	int isnew, ok = 1;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < 200000 && ok; i++) {
		struct deps_ent *e = deps_tab_get(&t, 0x7ff000000000ull + 8ull * i, &isnew);

		ok = e && isnew && e->odepth == -1;
		if (ok)
			e->w = i + 1;
	}
	TAP_OK(ok, "200000 addresses added");
	for (i = 0; i < 200000 && ok; i++) {
		const struct deps_ent *e = deps_tab_find(&t, 0x7ff000000000ull + 8ull * i);

		ok = e && e->w == i + 1;
	}
	TAP_OK(ok, "... and found again with their entries");
	TAP_OK(!deps_tab_find(&t, 0x7ff000000004ull), "an address between them is not");
	TAP_EQ(deps_tab_get(&t, 0x7ff000000008ull, &isnew) != NULL && !isnew, 1,
	       "getting a present address adds nothing");
	deps_tab_clear(&t);
	TAP_EQ(t.n, 0, "cleared");
	TAP_OK(!deps_tab_find(&t, 0x7ff000000000ull) &&
	       !deps_tab_find(&t, 0x7ff000000000ull + 8ull * 199999), "a cleared table finds none");
	/* Few entries in the big index: cleared one by one. */
	for (i = 0; i < 10; i++)
		deps_tab_get(&t, 0x1000 + 4ull * i, &isnew);
	deps_tab_clear(&t);
	ok = 1;
	for (i = 0; i < 10; i++)
		ok = ok && !deps_tab_find(&t, 0x1000 + 4ull * i);
	TAP_OK(ok && t.n == 0, "a few entries cleared from a big index");
	TAP_OK(deps_tab_get(&t, 0x1000, &isnew) && isnew && t.n == 1, "and it takes new ones");
	deps_tab_release(&t);
}

/* The overlaps test's window and its model: mlen[a] the length of the
 * entry at W0 + a (0: none). */
#define W0 0x10000ull
#define WN 4096u
static uint8_t mlen[WN];
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)(rng_next(&rng) % n);
}

static int put(struct deps_tab *t, uint64_t a, unsigned len, uint64_t k)
{
	int isnew;
	struct deps_ent *e = deps_tab_get(t, W0 + a, &isnew);

	if (!e)
		return 0;
	if (isnew) {
		/* Fields a run may share: k steps its iteration. */
		e->w = 1;
		e->wit = k;
	}
	deps_tab_len(t, e, len);
	if (len > mlen[a])
		mlen[a] = (uint8_t)len;
	return 1;
}

/* Whether t's runs are in address order through rix, each pool slot
 * once, their ranges disjoint. */
static int runs_ordered(const struct deps_tab *t)
{
	static uint8_t seen[1u << 16];
	uint32_t i;
	int ok = t->nrun <= sizeof(seen);

	memset(seen, 0, sizeof(seen));
	for (i = 0; ok && i < t->nrun; i++) {
		const struct deps_run *r = deps_run_at(t, i), *q;

		ok = t->rix[i] < t->nrun && !seen[t->rix[i]]++ && r->n > 0;
		if (ok && i) {
			q = deps_run_at(t, i - 1);
			ok = q->p.addr + (q->n - 1) * q->stride < r->p.addr;
		}
	}
	return ok;
}

/* How many of n random queries answered as the model does. */
static unsigned queries(struct deps_tab *t, unsigned n, int bad)
{
	static struct deps_ent buf[DEPS_MAXOV];
	const struct deps_ent *out[DEPS_MAXOV];
	unsigned q, good = 0;

	for (q = 0; q < n; q++) {
		uint64_t qa = 64 + rnd(WN - 256);
		unsigned ql = rnd(4) ? 1u << rnd(5) : 1 + rnd(128), a, want = 0;
		size_t got, i;
		int same = 1;

		if (rnd(2))
			qa &= ~(uint64_t)(ql - 1 < 8 ? ql - 1 : 7);
		if (bad)
			t->nearbad = 1;
		got = deps_tab_overlaps(t, W0 + qa, ql, out, buf);
		for (a = qa > 255 ? (unsigned)qa - 255 : 0; a < qa + ql; a++)
			if (mlen[a] && a + mlen[a] > qa) {
				if (want >= got || out[want]->addr != W0 + a)
					same = 0;
				want++;
			}
		for (i = 0; same && i < got; i++)
			same = out[i]->len == mlen[out[i]->addr - W0];
		good += same && got == want;
	}
	return good;
}

static void test_overlaps(int bad)
{
	struct deps_tab t;
	unsigned round, g, k, ok = 1, good = 0, asked = 0, ordered = 1, removed = 0;

	memset(&t, 0, sizeof(t));
	memset(mlen, 0, sizeof(mlen));
	t.cmin = t.next = 4096;
	for (round = 0; round < 6; round++) {
		if (round == 3) {
			deps_tab_clear(&t);
			memset(mlen, 0, sizeof(mlen));
		}
		/* Sweeps over arrays: runs once compacted. */
		for (g = 0; g < 8; g++) {
			unsigned len = 1u << rnd(4), n = 8 + rnd(40);
			uint64_t base = (64 + rnd(WN - 64 - 16 * 48)) & ~7ull;

			for (k = 0; k < n; k++)
				ok &= (unsigned)put(&t, base + (uint64_t)k * (len < 8 ? 8 : len), len, k + 1);
		}
		t.next = 0;
		deps_tab_maybe_compact(&t);
		good += queries(&t, 1000, bad);
		/* Scattered accesses of every size, some splitting runs. */
		for (k = 0; k < 300; k++) {
			uint32_t before = t.nrun;

			ok &= (unsigned)put(&t, 32 + rnd(WN - 64), 1u << rnd(5), 1000 + k);
			removed += t.nrun < before;
			ordered &= (unsigned)runs_ordered(&t);
		}
		good += queries(&t, 1000, bad);
		t.next = 0;
		deps_tab_maybe_compact(&t);
		good += queries(&t, 1000, bad);
		asked += 3000;
	}
	TAP_OK(ok, "overlaps%s: the table took every access", bad ? " (every byte)" : "");
	TAP_OK(t.nrun > 0, "... and holds runs");
	TAP_OK(ordered && removed > 0, "... in address order after splits and %u removals",
	       removed);
	TAP_EQ(good, asked, "... every query answered as the byte model does");
	deps_tab_release(&t);
}

static void test_spool(void)
{
	struct deps_spool s;
	uint8_t rec[64];
	uint64_t damaged = 0;
	uint32_t len;
	size_t n = 0;

	memset(&s, 0, sizeof(s));
	s.f = tmpfile();
	if (!s.f) {
		TAP_OK(0, "tmpfile");
		return;
	}
	/* Record 1: (icount 5, iaddr 0x401000, daddr 0x7ffc0010, 8, write),
	 * then (7, 0x400ff8, 0x7ffc0000, 4, read): deltas from 0, then from
	 * the first. */
	n += put_uleb(rec + n, 5);
	n += put_sleb(rec + n, 0x401000);
	n += put_sleb(rec + n, 0x7ffc0010);
	rec[n++] = 8 << 1 | 1;
	n += put_uleb(rec + n, 2);
	n += put_sleb(rec + n, -8);
	n += put_sleb(rec + n, -16);
	rec[n++] = 4 << 1;
	len = (uint32_t)n;
	fwrite(&len, sizeof(len), 1, s.f);
	fwrite(rec, 1, n, s.f);
	/* Record 2: one access and half of another (damaged). */
	n = 0;
	n += put_uleb(rec + n, 9);
	n += put_sleb(rec + n, 0x401004);
	n += put_sleb(rec + n, 0x601040);
	rec[n++] = 1 << 1;
	n += put_uleb(rec + n, 1);
	len = (uint32_t)n;
	fwrite(&len, sizeof(len), 1, s.f);
	fwrite(rec, 1, n, s.f);
	/* Record 3: the prev values start over; then an allocation of 24
	 * bytes at 0x4a000 returning to 0x401234 at index 14. */
	n = 0;
	n += put_uleb(rec + n, 12);
	n += put_sleb(rec + n, 0x401010);
	n += put_sleb(rec + n, 0x601048);
	rec[n++] = 2 << 1 | 1;
	n += put_uleb(rec + n, 2);
	n += put_sleb(rec + n, 0x401234 - 0x401010);
	n += put_sleb(rec + n, 0x4a000 - 0x601048);
	rec[n++] = 0;
	n += put_uleb(rec + n, 24);
	len = (uint32_t)n;
	fwrite(&len, sizeof(len), 1, s.f);
	fwrite(rec, 1, n, s.f);
	rewind(s.f);

	TAP_EQ(deps_spool_next(&s, &damaged), 1, "access 1");
	TAP_OK(s.icount == 5 && s.iaddr == 0x401000 && s.daddr == 0x7ffc0010 && s.size == 8 &&
	       s.write, "... 5 0x401000 0x7ffc0010 8 write");
	TAP_EQ(deps_spool_next(&s, &damaged), 1, "access 2");
	TAP_OK(s.icount == 7 && s.iaddr == 0x400ff8 && s.daddr == 0x7ffc0000 && s.size == 4 &&
	       !s.write, "... deltas applied: 7 0x400ff8 0x7ffc0000 4 read");
	TAP_EQ(deps_spool_next(&s, &damaged), 1, "access 3 (record 2)");
	TAP_OK(s.icount == 9 && s.daddr == 0x601040 && s.size == 1, "... from zero again");
	TAP_EQ(deps_spool_next(&s, &damaged), 1, "the cut access is skipped: record 3");
	TAP_EQ(damaged, 1, "... and counted");
	TAP_OK(s.icount == 12 && s.iaddr == 0x401010 && s.daddr == 0x601048 && s.size == 2 &&
	       s.write, "... 12 0x401010 0x601048 2 write");
	TAP_EQ(deps_spool_next(&s, &damaged), 1, "the allocation record");
	TAP_OK(s.icount == 14 && s.iaddr == 0x401234 && s.daddr == 0x4a000 && s.size == 0 &&
	       s.asize == 24, "... 14 0x401234 0x4a000, size 0, 24 bytes");
	TAP_EQ(deps_spool_next(&s, &damaged), 0, "the end");
	TAP_EQ(damaged, 1, "nothing more damaged");
	deps_spool_release(&s);
}

int main(void)
{
	test_tab();
	test_runs();
	test_overlaps(0);
	test_overlaps(1);
	test_spool();
	return TAP_DONE();
}
