/* unit_halves.c - the probe of the learning pass in halves
 * (analysis/loops_halves.h, lsa_hw_probe_rule()): whether the halves pay,
 * window after window of blocks after the cut, from the share of each
 * window's blocks at the spine.  Expected answers from the rule as
 * loops_halves.h states it: at most half at the spine pays; more than
 * half, and no less than the window before, does not; a falling share
 * gets another window, up to HW_PROBE_WINDOWS; a window cut short by the
 * stream's end is the last. */
#include <stdint.h>

#include "analysis/loops_halves.h"
#include "tap.h"

/* The halves' probe (analysis/loops_halves.h): window after window of
 * w blocks, s of them at the spine.  The sequences are those the
 * probe's decode counted on bench/'s bundles (2^18 blocks a window):
 * bzip2 -9's cut, 100% at the spine, then 69%, then none; the
 * stencil's and spmv's, all of every window; xz's 5%. */
static void t_probe(void)
{
	const uint64_t W = 1u << 18;
	uint64_t sh = 0, prev = 0;

	/* falling, then at most half: pays at the third window */
	TAP_EQ(lsa_hw_probe_rule(0, W, W, 0, W, &sh), 0, "probe: all at the spine, first window: another");
	TAP_EQ(sh, 1024, "probe: ... its share 1024/1024");
	prev = sh;
	TAP_EQ(lsa_hw_probe_rule(1, W, 180908, prev, W, &sh), 0,
	       "probe: 69%% after 100%%: falling, another");
	TAP_EQ(sh, 706, "probe: ... its share 180908 * 1024 / 2^18 = 706");
	prev = sh;
	TAP_EQ(lsa_hw_probe_rule(2, W, 0, prev, W, &sh), 1, "probe: none at the spine: they pay");
	/* all, twice: not */
	TAP_EQ(lsa_hw_probe_rule(1, W, W, 1024, W, &sh), -1,
	       "probe: all at the spine twice: they do not pay");
	/* rising: not */
	TAP_EQ(lsa_hw_probe_rule(1, W, W * 3 / 4, 600, W, &sh), -1,
	       "probe: 75%% after 59%%: rising, they do not pay");
	/* half exactly pays, at once */
	TAP_EQ(lsa_hw_probe_rule(0, W, W / 2, 0, W, &sh), 1, "probe: half at the spine: they pay");
	TAP_EQ(lsa_hw_probe_rule(0, W, W / 2 + 1, 0, W, &sh), 0,
	       "probe: one block more than half, first window: another");
	TAP_EQ(lsa_hw_probe_rule(0, W, W / 20, 0, W, &sh), 1, "probe: 5%%: they pay");
	/* falling for as long as the windows last */
	TAP_EQ(lsa_hw_probe_rule(HW_PROBE_WINDOWS - 2, W, W - 2, 1024, W, &sh), 0,
	       "probe: falling, a window before the last: another");
	TAP_EQ(lsa_hw_probe_rule(HW_PROBE_WINDOWS - 1, W, W - 3, 1024, W, &sh), -1,
	       "probe: falling still at the last window: they do not pay");
	/* the stream ends inside a window */
	TAP_EQ(lsa_hw_probe_rule(0, 1000, 900, 0, W, &sh), -1,
	       "probe: the stream ends, 90%% of its last window at the spine: not");
	TAP_EQ(lsa_hw_probe_rule(3, 1000, 400, 1024, W, &sh), 1,
	       "probe: the stream ends, 40%%: they pay");
}

int main(void)
{
	t_probe();
	return TAP_DONE();
}
