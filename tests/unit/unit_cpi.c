/* unit_cpi.c - natural loop bodies of analysis/cpi.h over a hand-fed
 * executed CFG: A -> B -> C, C loops back to B twice, then C -> D. */
#include <stdlib.h>
#include <string.h>

#include "analysis/cfg.h"
#include "analysis/cpi.h"
#include "ls_err.h"
#include "tap.h"

static struct lsd_sblock sb[5];

static void feed(struct lsa_cfg *c, int id, int exit, int next)
{
	struct lsd_block b = { .sb = &sb[id], .exit = (uint8_t)exit,
			       .next = next < 0 ? 0 : sb[next].start };

	lsa_cfg_feed(c, 0, &b);
}

int main(void)
{
	struct lsa_cfg *c;
	struct lsa_cfg_opts o = { .size = sizeof(o) };
	uint32_t *body = NULL, tail;
	int i, n;

	for (i = 0; i < 5; i++) {
		sb[i].start = sb[i].last = 0x1000 + 4 * (uint64_t)i;
		sb[i].end = sb[i].start + 4;
		sb[i].ninsn = 1;
		sb[i].id = (uint32_t)i;
		sb[i].module = 0;
		sb[i].mod_off = sb[i].start;
	}
	TAP_OK(lsa_cfg_new(&c, NULL, &o) == 0, "a graph");
	feed(c, 0, LSD_EXIT_FALL, 1);
	for (i = 0; i < 3; i++) {
		feed(c, 1, LSD_EXIT_FALL, 2);
		feed(c, 2, i < 2 ? LSD_EXIT_COND_TAKEN : LSD_EXIT_COND_NOT, i < 2 ? 1 : 3);
	}
	feed(c, 3, LSD_EXIT_END, -1);
	lsa_cfg_stream_end(c);
	TAP_OK(lsa_cfg_finish(c) == 0, "the graph finishes");

	tail = 2;
	n = lsa_cpi_natural_body(c, 1, &tail, 1, &body);
	TAP_EQ(n, 2, "header B, back branch C: body {B, C}");
	TAP_OK(n == 2 && body[0] == 1 && body[1] == 2, "... sorted block ids 1, 2");
	free(body);
	n = lsa_cpi_natural_body(c, 0, &tail, 1, &body);
	TAP_EQ(n, 3, "header A, tail C: the walk back from C stops at A: {A, B, C}");
	free(body);
	n = lsa_cpi_natural_body(c, 1, NULL, 0, &body);
	TAP_EQ(n, 1, "no tails: the header alone");
	free(body);
	TAP_EQ(lsa_cpi_natural_body(c, 4, &tail, 1, &body), -LS_EINVAL,
	       "a header that never executed is refused");
	TAP_EQ(lsa_cpi_natural_body(c, 1, NULL, 1, &body), -LS_EINVAL,
	       "tails counted but not given are refused");
	TAP_EQ(lsa_cpi_per(300, 100), 3.0, "cost per execution is cost / executions");
	TAP_EQ(lsa_cpi_per(5, 0), 0.0, "... and 0 when nothing executed");
	TAP_OK(!strcmp(lsa_cpi_unit_name(LSA_CPI_NS), "ns") &&
	       !strcmp(lsa_cpi_unit_name(LSA_CPI_CYCLES), "cycles"), "unit names");
	lsa_cfg_free(c);
	return TAP_DONE();
}
