/* dump.h - the packet and query views of `loopscope dump` (dump_pt.c). */
#ifndef CLI_DUMP_H
#define CLI_DUMP_H

#include <intel-pt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/bundle.h"

/* Counts of libipt's query decoder over one stream. */
struct dump_query {
	uint64_t tnt, tip, events, errors;
	uint64_t ev[ptev_mnt + 1];
};

/* The whole raw PT of stream i of r, its chunks concatenated, in a
 * malloc'd buffer.  Returns 0, -LS_ENOMEM or a reader error. */
int dump_read_stream(struct lsb_reader *r, size_t i, uint8_t **pbuf,
		     size_t *plen);
/* Prints every packet of buf (at most limit, 0: all) to out, resyncing
 * at the next PSB after an error.  Returns 0, 1 when there were errors,
 * or -LS_ENOMEM. */
int dump_packets(FILE *out, struct lsb_reader *r, const uint8_t *buf,
		 size_t len, uint64_t limit);
/* Counts what the query decoder hands out for buf into *c. */
void dump_query_stream(struct lsb_reader *r, const uint8_t *buf, size_t len,
		       struct dump_query *c);
void dump_query_add(struct dump_query *total, const struct dump_query *c);
/* One line of counts for `who`. */
void dump_query_print(FILE *f, const char *who, const struct dump_query *c);

#endif
