/* unit_cfgobs.c - the graph builder's observer (analysis/cfg.h): the
 * calls it gets for a hand-fed walk.  Blocks: A (0x1000, calls F), R
 * (0x1004, A's return site), F (0x2000, calls G), G (0x3000, returns
 * straight to R, skipping F's frame as a longjmp would).  Walk: A F G R,
 * then R calls F, and the thread ends inside F. */
#include <stdio.h>
#include <string.h>

#include "analysis/cfg.h"
#include "ls_err.h"
#include "tap.h"

enum { A, R, F, G, NB };

static struct lsd_sblock sb[NB];
static char log_[256];
static int fail_block = -1;

static void note(const char *what, uint32_t ctx, uint32_t id)
{
	size_t n = strlen(log_);

	snprintf(log_ + n, sizeof(log_) - n, "%s%s%u", n ? " " : "", what,
		 ctx == 0 ? id : 99);
}

static int ob_block(void *arg, uint32_t ctx, uint32_t id)
{
	(void)arg;
	note("b", ctx, id);
	return (int)id == fail_block ? -LS_ENOMEM : 0;
}

static int ob_push(void *arg, uint32_t ctx, uint32_t callblk)
{
	(void)arg;
	note("p", ctx, callblk);
	return 0;
}

static int ob_pop(void *arg, uint32_t ctx, uint32_t callblk)
{
	(void)arg;
	note("o", ctx, callblk);
	return 0;
}

static int ob_end(void *arg, uint32_t ctx)
{
	(void)arg;
	note("e", ctx, 0);
	return 0;
}

static int feed(struct lsa_cfg *c, int id, int exit, int next)
{
	struct lsd_block b = { .sb = &sb[id], .exit = (uint8_t)exit,
			       .next = next < 0 ? 0 : sb[next].start };

	return lsa_cfg_feed(c, 0, &b);
}

int main(void)
{
	static const uint64_t at[NB] = { 0x1000, 0x1004, 0x2000, 0x3000 };
	struct lsa_cfg_observer obs = { .block = ob_block, .push = ob_push,
					.pop = ob_pop, .end = ob_end };
	struct lsa_cfg_opts o = { .size = sizeof(o), .obs = &obs };
	struct lsa_cfg *c;
	int i;

	for (i = 0; i < NB; i++) {
		sb[i].start = sb[i].last = at[i];
		sb[i].end = at[i] + 4;
		sb[i].ninsn = 1;
		sb[i].id = (uint32_t)i;
		sb[i].mod_off = at[i];
	}
	TAP_OK(lsa_cfg_new(&c, NULL, &o) == 0, "a graph with an observer");
	feed(c, A, LSD_EXIT_CALL, F);
	feed(c, F, LSD_EXIT_CALL, G);
	feed(c, G, LSD_EXIT_RET, R);
	feed(c, R, LSD_EXIT_CALL, F);
	feed(c, F, LSD_EXIT_END, -1);
	lsa_cfg_stream_end(c);
	/* Each block after the transition into it: a call pushes before its
	 * callee's first block, a return pops (the skipped frame first)
	 * before its return site; the end pops the open call, then ends. */
	TAP_OK(!strcmp(log_, "b0 p0 b2 p2 b3 o2 o0 b1 p1 b2 o1 e0"),
	       "blocks, pushes, pops (unwound first) and the end in walk order");
	if (strcmp(log_, "b0 p0 b2 p2 b3 o2 o0 b1 p1 b2 o1 e0"))
		printf("# got %s\n", log_);
	TAP_OK(lsa_cfg_finish(c) == 0, "the graph finishes");
	TAP_EQ(lsa_cfg_block(c, A)->callee_insns, 2, "A's callee ran F and G: 2 instructions");
	lsa_cfg_free(c);

	log_[0] = '\0';
	fail_block = F;
	TAP_OK(lsa_cfg_new(&c, NULL, &o) == 0, "another graph");
	TAP_EQ(feed(c, A, LSD_EXIT_CALL, F), 0, "the observer's 0 goes on");
	TAP_EQ(feed(c, F, LSD_EXIT_RET, R), -LS_ENOMEM, "its error comes back from the feed");
	lsa_cfg_free(c);
	return TAP_DONE();
}
