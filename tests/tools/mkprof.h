/* mkprof.h - a hand-built loop profile with known numbers, for the
 * profile unit test and the report tests (through tests/tools/mkprof.c).
 *
 * Program: main (demo.c:10) has loop 0 (demo.c:12) holding loop 1
 * (demo.c:14), which calls work() 130 times; work's loop 2 (demo.c:32)
 * runs 3 times per call and calls memcpy.  Loop 3 (demo.c:20) is a small
 * second top-level loop of main.  A second thread (tid 101) runs work's
 * loop twice with 150 iterations, above the trip limit of 100.
 *
 *   thread 100: 8000 instructions, 1950 outside loops
 *   thread 101: 2000 instructions,  200 outside loops
 *
 *   loop  entries iterations   self  total  trips
 *   0           1         10    100   6000  10 x1
 *   1          10        130   2000   5900  13 x10
 *   2    130 + 2  390 + 300   3900+1800  3900+1800  3 x130, >=100 x2 (sum 300)
 *   3           1          5     50     50  5 x1
 *
 * Edges: top->0 1, 0->1 10, 1->2 130, top->3 1 (thread 100); top->2 2
 * (thread 101).  Percentages of the total 10000 are the counts / 100.
 */
#ifndef LS_MKPROF_H
#define LS_MKPROF_H

#include <string.h>

#include "formats/profile.h"

struct mkprof_ls {
	uint32_t loop, thread;
	uint64_t entries, iterations, self, total, tmin, tmax, oe, os;
};

static int mkprof_build(struct lsp_profile **pp)
{
	static const uint8_t id0[20] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
					 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
					 0x11, 0x12, 0x13, 0x14 };
	static const uint8_t id1[4] = { 0xaa, 0xbb, 0xcc, 0xdd };
	static const struct mkprof_ls ls[] = {
		{ 0, 0, 1, 10, 100, 6000, 10, 10, 0, 0 },
		{ 1, 0, 10, 130, 2000, 5900, 13, 13, 0, 0 },
		{ 2, 0, 130, 390, 3900, 3900, 3, 3, 0, 0 },
		{ 3, 0, 1, 5, 50, 50, 5, 5, 0, 0 },
		{ 2, 1, 2, 300, 1800, 1800, 150, 150, 2, 300 },
	};
	static const struct lsp_trip trips[] = {
		{ 0, 0, 10, 1 }, { 1, 0, 13, 10 }, { 2, 0, 3, 130 }, { 3, 0, 5, 1 },
	};
	static const struct lsp_edge edges[] = {
		{ LSP_NONE, 0, 0, 1, 6000 }, { 0, 1, 0, 10, 5900 }, { 1, 2, 0, 130, 3900 },
		{ LSP_NONE, 3, 0, 1, 50 }, { LSP_NONE, 2, 1, 2, 1800 },
	};
	static const struct lsp_tail tails[] = {
		{ 0, 0, 0x1070, 0x401070, 9, 0, "" }, { 1, 0, 0x1060, 0x401060, 120, 0, "" },
		{ 2, 0, 0x1140, 0x401140, 260, 0, "" }, { 3, 0, 0x1090, 0x401090, 4, 0, "" },
		{ 2, 1, 0x1140, 0x401140, 298, 0, "" },
	};
	static const struct lsp_call calls[] = {
		{ 1, 0, 0, 0x1050, 0x401050, 1, 130 },
		{ 0, 0, 0, 0x1068, 0x401068, 2, 10 },
		{ 2, 0, 0, 0x1130, 0x401130, 3, 130 },
	};
	static const struct lsp_fstat fstats[] = {
		{ 0, 0, 2100, 8000, 2150, 1 },
		{ 1, 0, 3800, 3900, 3900, 130 },
		{ 2, 0, 50, 50, 0, 10 },
		{ 3, 0, 100, 100, 0, 130 },
		{ 1, 1, 1800, 1800, 1800, 2 },
	};
	struct lsp_thread th;
	struct lsp_profile *p;
	size_t i;
	int err = 0;

	if ((err = lsp_new(&p, 100)) < 0)
		return err;
	p->source = strdup("demo.lsc");
	lsp_module_intern(p, id0, sizeof(id0), "/usr/bin/demo");
	lsp_module_intern(p, id1, sizeof(id1), "/lib/libc.so.6");
	lsp_func_intern(p, 0, 0x1000, 0x401000, "main", "demo.c", 10);
	lsp_func_intern(p, 0, 0x1100, 0x401100, "work", "demo.c", 30);
	/* Separators and quotes, for the escaping in files and JSON. */
	lsp_func_intern(p, 0, 0x1200, 0x401200, "helper", "odd\tdir/\"q\"\\.c", 50);
	lsp_func_intern(p, 1, 0x9000, 0x9000, "memcpy", "", 0);
	lsp_loop_intern(p, 0, 0x1020, 0x401020, 0, "demo.c", 12);
	lsp_loop_intern(p, 0, 0x1040, 0x401040, 0, "demo.c", 14);
	lsp_loop_intern(p, 0, 0x1120, 0x401120, 1, "demo.c", 32);
	lsp_loop_intern(p, 0, 0x1080, 0x401080, 0, "demo.c", 20);
	memset(&th, 0, sizeof(th));
	th.pid = th.tid = 100;
	th.insns = 8000;
	th.outside = th.outside_ic[5] = 1950;
	lsp_thread_add(p, &th);
	th.tid = 101;
	th.insns = 2000;
	th.outside = th.outside_ic[5] = 200;
	th.losses = 1;
	lsp_thread_add(p, &th);
	for (i = 0; i < sizeof(ls) / sizeof(ls[0]) && !err; i++) {
		struct lsp_lstat s;

		memset(&s, 0, sizeof(s));
		s.loop = ls[i].loop;
		s.thread = ls[i].thread;
		s.entries = ls[i].entries;
		s.iterations = ls[i].iterations;
		s.self = ls[i].self;
		s.total = ls[i].total;
		s.trip_min = ls[i].tmin;
		s.trip_max = ls[i].tmax;
		s.over_entries = ls[i].oe;
		s.over_sum = ls[i].os;
		/* A quarter loads, the rest integer arithmetic. */
		s.self_ic[0] = s.self / 4;
		s.self_ic[5] = s.self - s.self / 4;
		s.total_ic[0] = s.total / 4;
		s.total_ic[5] = s.total - s.total / 4;
		err = lsp_add_lstat(p, &s);
	}
	for (i = 0; i < sizeof(trips) / sizeof(trips[0]) && !err; i++)
		err = lsp_add_trip(p, &trips[i]);
	for (i = 0; i < sizeof(edges) / sizeof(edges[0]) && !err; i++)
		err = lsp_add_edge(p, &edges[i]);
	for (i = 0; i < sizeof(tails) / sizeof(tails[0]) && !err; i++)
		err = lsp_add_tail(p, &tails[i]);
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]) && !err; i++)
		err = lsp_add_call(p, &calls[i]);
	for (i = 0; i < sizeof(fstats) / sizeof(fstats[0]) && !err; i++)
		err = lsp_add_fstat(p, &fstats[i]);
	if (err || !p->source || p->n_modules != 2 || p->n_funcs != 4 || p->n_loops != 4) {
		lsp_free(p);
		return err ? err : -1;
	}
	*pp = p;
	return 0;
}

#endif
