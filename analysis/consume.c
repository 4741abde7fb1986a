/* consume.c - the registered consumers of one decode: the block stream
 * fanned out to them (decoder/fan.c), their finish in order. */
#include "analysis/consume.h"
#include "ls_err.h"

const struct lsd_callbacks lsa_consumers_none;

int lsa_consumers_add(struct lsa_consumers *s, const struct lsa_consumer *c)
{
	int err;

	if (!s || !c || !c->cb || s->n >= LSA_CONSUMERS_MAX)
		return -LS_EINVAL;
	if ((err = lsd_fan_add(&s->fan, c->cb, c->arg)) < 0)
		return err;
	s->c[s->n++] = *c;
	return 0;
}

int lsa_consumers_finish(struct lsa_consumers *s, struct lsp_profile *p)
{
	size_t i;
	int err = 0;

	if (!s || !p)
		return -LS_EINVAL;
	for (i = 0; i < s->n && err >= 0; i++)
		if (s->c[i].finish)
			err = s->c[i].finish(s->c[i].finish_arg ? s->c[i].finish_arg :
					     s->c[i].arg, p);
	return err;
}

void lsa_consumers_release(struct lsa_consumers *s)
{
	if (s)
		lsd_fan_release(&s->fan);
}
