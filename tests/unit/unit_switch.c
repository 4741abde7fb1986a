/* unit_switch.c - the thread a per-CPU stream runs at a PT time, by the
 * rule of decoder/switch.c, on a hand-made timeline for one CPU.
 *
 * Times in TSC ticks, the kernel's order as the quipper recording shows it
 * (switch-out event before its TIP.PGD; the TSC of a TIP.PGE before its
 * switch-in event):
 *     100 in  A (ITRACE_START)     500 out A     510 in  U (untraced)
 *     600 out U                    700 in  B     900 out B
 *     905 in  A                   1000 out A
 * Expected threads, worked out by hand from the rule:
 *   enable at  90 (before anything): the next in, A
 *   enable at 100, 300 (A switched in, a system call's return): A
 *   enable at 695 (PGE 5 ticks before B's event, after U left): B
 *   enable at 800: B; enable at 1100 (after the last out): none
 *   PSB with tracing on at 520: U's event is the last, U
 *   PSB at 503 (3 after A's out, 7 before U's in): A (7 * 3 >= 3)
 *   PSB at 509 (9 after A's out, 1 before U's in): U (1 * 3 < 9)
 *   PSB at 901 (1 after B's out, 4 before A's in): B (4 * 3 >= 1)
 *   PSB at 1050 (after the last out, nothing next): A, still running
 */
#include <string.h>

#include "decoder/decode_int.h"
#include "tap.h"

static const struct lsd_swent ev[] = {
	{ 100, 1, 1, 0, 0, 1 }, { 500, 1, 1, 1, 0, 0 },
	{ 510, 9, 9, 2, 0, 1 }, { 600, 9, 9, 3, 0, 0 },
	{ 700, 2, 2, 4, 0, 1 }, { 900, 2, 2, 5, 0, 0 },
	{ 905, 1, 1, 6, 0, 1 }, { 1000, 1, 1, 7, 0, 0 },
};

static int who(const struct lsd_timeline *tl, uint64_t t, int running)
{
	const struct lsd_swent *e = lsd_switch_at(tl, t, running);

	return e ? (int)e->tid : 0;
}

int main(void)
{
	struct lsd_swent e[sizeof(ev) / sizeof(ev[0])];
	struct lsd_timeline tl = { e, sizeof(e) / sizeof(e[0]), sizeof(e) / sizeof(e[0]) };
	size_t k, n = tl.n;
	uint32_t next = UINT32_MAX;

	memcpy(e, ev, sizeof(e));
	/* next_in as lsd_switch_build() fills it */
	for (k = n; k-- > 0; ) {
		if (e[k].in)
			next = (uint32_t)k;
		e[k].next_in = next;
	}
	TAP_EQ(who(&tl, 90, 0), 1, "enable before any event: the first switched in");
	TAP_EQ(who(&tl, 100, 0), 1, "enable at A's switch-in: A");
	TAP_EQ(who(&tl, 300, 0), 1, "enable while A is switched in: A");
	TAP_EQ(who(&tl, 695, 0), 2, "enable just before B's switch-in: B, not U");
	TAP_EQ(who(&tl, 800, 0), 2, "enable while B is switched in: B");
	TAP_EQ(who(&tl, 1100, 0), 0, "enable after the last switch-out: nobody");
	TAP_EQ(who(&tl, 520, 1), 9, "PSB while U is switched in: U");
	TAP_EQ(who(&tl, 503, 1), 1, "PSB just after A's switch-out: A");
	TAP_EQ(who(&tl, 509, 1), 9, "PSB just before U's switch-in: U");
	TAP_EQ(who(&tl, 901, 1), 2, "PSB between B's out and A's in, nearer B's: B");
	TAP_EQ(who(&tl, 1050, 1), 1, "PSB after the last switch-out: A");
	TAP_EQ(who(NULL, 300, 0), 0, "no timeline: nobody");
	return TAP_DONE();
}
