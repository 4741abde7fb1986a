/* consume.h - analyses as consumers of one decode.
 *
 * `analyze` is the one expensive pass (DESIGN.md): the loop detector
 * (analysis/loops.h) drives the decode, and every other analysis the
 * user asked for is registered here as a passive consumer of the same
 * block stream.  Each consumer gets the decoder's callbacks in stream
 * order, then, once the decode ended, its finish callback writes its
 * results into the profile, so reports read them without decoding
 * again.  Consumers are called in the order they were added.
 *
 * Functions return >= 0 on success or a negative LS_E* code.
 */
#ifndef LSA_CONSUME_H
#define LSA_CONSUME_H

#include <stddef.h>

#include "decoder/decode.h"
#include "formats/profile.h"

#define LSA_CONSUMERS_MAX LSD_FAN_MAX

struct lsa_consumer {
	const char *name;	/* for messages */
	/* The stream callbacks (each may be NULL) and their argument. */
	const struct lsd_callbacks *cb;
	void *arg;
	/* After the decode, the loop profile p complete (loops, threads;
	 * not yet in canonical order): adds the results to p.  May be
	 * NULL.  Returns >= 0 or a negative LS_E* code. */
	int (*finish)(void *arg, struct lsp_profile *p);
	void *finish_arg;	/* finish's argument (NULL: arg) */
};

struct lsa_consumers {
	/* First: a pointer to the set is one to its fan (the decode's
	 * callbacks are the fan's, decoder/fan.c). */
	struct lsd_fan fan;
	struct lsa_consumer c[LSA_CONSUMERS_MAX];
	size_t n;
};

/* Adds consumer c (copied) to the set s (zeroed by the caller).
 * Returns 0, or -LS_EINVAL (NULL, or LSA_CONSUMERS_MAX are there). */
int lsa_consumers_add(struct lsa_consumers *s, const struct lsa_consumer *c);
/* Callbacks to pass to the decode with the set as arg: each calls every
 * consumer's, and stops at the first error (lsd_fan_callbacks: the set
 * begins with its fan). */
#define lsa_consumers_callbacks lsd_fan_callbacks
/* No stream callbacks: for a consumer that reads a graph another
 * consumer of the set feeds (analyze --cpi --cfg build one graph). */
extern const struct lsd_callbacks lsa_consumers_none;
/* Calls every consumer's finish in order.  Returns the first error. */
int lsa_consumers_finish(struct lsa_consumers *s, struct lsp_profile *p);
/* The memory a decode through s took (its fan's copy of the decoder's
 * runs), once the decode is over; s stays usable. */
void lsa_consumers_release(struct lsa_consumers *s);

#endif
