/* unit_deps.c - the address tables and the access spools of the
 * dependence analysis (analysis/deps_tab.c).
 *
 * Tables: 200,000 addresses 8 bytes apart (the stride the hash must
 * spread) are found again after every growth, a cleared table holds
 * none of them, and a big table cleared with few entries (the per-entry
 * path) is empty too.  Spools: records encoded by hand from the
 * LSP_MEMACC layout of recorder/lsc_proto.h decode to the values put in;
 * a record cut in the middle of an access is counted as damaged and the
 * next record still decodes. */
#include <stdio.h>
#include <string.h>

#include "analysis/deps_int.h"
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
		struct deps_ent *e = deps_tab_find(&t, 0x7ff000000000ull + 8ull * i);

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
	/* Record 3: the prev values start over. */
	n = 0;
	n += put_uleb(rec + n, 12);
	n += put_sleb(rec + n, 0x401010);
	n += put_sleb(rec + n, 0x601048);
	rec[n++] = 2 << 1 | 1;
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
	TAP_EQ(deps_spool_next(&s, &damaged), 0, "the end");
	deps_spool_release(&s);
}

int main(void)
{
	test_tab();
	test_spool();
	return TAP_DONE();
}
