/* unit_adapt.c - when the adaptive pipe (decoder/pipe_adapt.c) looks
 * again, by the rule of lsd_adapt_choose(), on windows of made-up costs.
 *
 * A window of N = 2^19 blocks; "dear" costs 3 ns a block on each side
 * (both above LSD_ADAPT_COPY_NS: piped), "cheap" 0.5 ns a block of calls
 * and 0.8 of decode (here).  Expected, worked out by hand from the rule
 * (the interval doubles from LSD_ADAPT_FIRST, F, up to LSD_ADAPT_EVERY,
 * E = 16 F, and falls back to F where a window chooses otherwise than
 * the one before):
 *   dear (first window): piped, next after F
 *   dear: piped, 2F;  dear: piped, 4F;  cheap: here, F (it changed)
 *   cheap: here, 2F;  cheap 4F, 8F, 16F, then 16F again (capped)
 *   dear: piped, F;  cheap: here, F;  dear: piped, F (a phase each time)
 *   one side cheap only (calls 3 ns, decode 0.5): here, F
 *   calls exactly 1 ns a block (not above the bound): here, 2F
 *   a window whose calls took longer than the window (a clock step):
 *   the decode counted as 0, here, 4F. */
#include "decoder/pipe_int.h"
#include "tap.h"

#define N ((uint64_t)1 << 19)

static struct lsd_adapt_iv iv = { LSD_ADAPT_FIRST, -1 };

/* A window whose calls took cb and decode dec ns a block (tenths). */
static void win(uint64_t cb10, uint64_t dec10, int piped, uint64_t left, const char *what)
{
	uint64_t l = 0;
	int r = lsd_adapt_choose(&iv, N, N * (cb10 + dec10) / 10, N * cb10 / 10, &l);

	TAP_EQ(r, piped, "%s: %s", what, piped ? "piped" : "here");
	TAP_EQ(l, left, "%s: the next window after %llu blocks", what, (unsigned long long)left);
}

int main(void)
{
	const uint64_t F = LSD_ADAPT_FIRST;
	uint64_t l = 0;

	TAP_EQ(LSD_ADAPT_EVERY, 16 * F, "(the hand count's E is 16 F)");
	win(30, 30, 1, F, "dear, first");
	win(30, 30, 1, 2 * F, "dear again");
	win(30, 30, 1, 4 * F, "dear, third");
	win(5, 8, 0, F, "cheap after dear: looked at again soon");
	win(5, 8, 0, 2 * F, "cheap again");
	win(5, 8, 0, 4 * F, "cheap, third");
	win(5, 8, 0, 8 * F, "cheap, fourth");
	win(5, 8, 0, 16 * F, "cheap, fifth");
	win(5, 8, 0, 16 * F, "cheap, sixth: at the most");
	win(30, 30, 1, F, "dear after cheap");
	win(5, 8, 0, F, "cheap after dear");
	win(30, 30, 1, F, "dear after cheap, again");
	win(30, 5, 0, F, "calls dear, decode cheap");
	win(10, 30, 0, 2 * F, "calls at the bound");
	/* (calls longer than the whole window) */
	TAP_EQ(lsd_adapt_choose(&iv, N, N, 2 * N, &l), 0, "a clock step: here");
	TAP_EQ(l, 4 * F, "a clock step: the next window after 4F");
	return TAP_DONE();
}
