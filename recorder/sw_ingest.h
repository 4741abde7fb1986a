/* sw_ingest.h - turns the Valgrind tool's record stream (lsc_proto.h)
 * into bundle sections as it arrives. */
#ifndef LSR_SW_INGEST_H
#define LSR_SW_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "formats/bundle.h"
#include "recorder/record.h"

struct lsr_tidmap {
	uint32_t tid;
	uint32_t stream;
};

struct lsr_modcache {
	char *path;
	uint8_t build_id[LSB_BUILD_ID_MAX];
	uint8_t build_id_len;
	int ok;				/* build-id read and module written */
};

struct lsr_ingest {
	struct lsb_writer *w;
	struct lsr_stats *st;
	int embed;
	uint32_t pid;
	int hello_seen, end_seen, exec_seen;
	uint32_t exit_status;
	struct lsr_tidmap *tids;
	size_t ntids, captids;
	struct lsr_modcache *mods;
	size_t nmods, capmods;
	char errmsg[256];		/* read it with lsr_ingest_errmsg() */
	char missing[256];		/* first executable file we could not read */
};

void lsr_ingest_init(struct lsr_ingest *in, struct lsb_writer *w,
		     struct lsr_stats *st, int embed);
void lsr_ingest_release(struct lsr_ingest *in);
/* Consumes the complete records at the start of buf; *used gets the bytes
 * consumed (a partial record at the end is left for the next call).
 * Returns -LS_ECORRUPT for a malformed record stream (message from
 * lsr_ingest_errmsg()), -LS_EVERSION for a tool of another protocol
 * version, or an error of the bundle writer. */
int lsr_ingest_feed(struct lsr_ingest *in, const uint8_t *buf, size_t len,
		    size_t *used);
/* Why the last call failed ("" if it did not say).  Never NULL. */
const char *lsr_ingest_errmsg(const struct lsr_ingest *in);

#endif
