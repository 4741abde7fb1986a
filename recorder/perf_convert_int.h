/* perf_convert_int.h - what perf_convert.c (perf.data) shares with
 * pevent_convert.c (libipt-sb's sideband files): the conversion state and
 * the record-to-bundle steps.  Not a public interface. */
#ifndef LSR_PERF_CONVERT_INT_H
#define LSR_PERF_CONVERT_INT_H

#include "perf_convert.h"

#define MAX_STREAMS 4096	/* AUXTRACE idx values we accept */
#define MAX_MODPATHS 65536	/* distinct executable mapping paths */
#define MAX_TIDS 65536		/* tid -> pid entries remembered */
#define AUX_PIECE (256u << 10)

struct modpath {
	char *path;
	uint8_t id[LSB_BUILD_ID_MAX];
	uint8_t id_len;
};

struct conv {
	struct lsb_writer *w;
	struct lspd_file *f;
	const char *path;
	const struct lsr_convert_opts *o;
	struct lsr_convert_stats *st;
	char *errbuf;
	size_t errlen;
	uint8_t *declared;		/* [MAX_STREAMS] */
	int per_cpu;			/* -1 unknown */
	struct modpath *mods;
	size_t nmods, capmods;
	struct { uint32_t tid, pid; } *tids;
	size_t ntids;
	uint8_t *aux;
	const char *sysroot;		/* sideband import: prefix of local files */
};

/* Starts a conversion into w (st zeroed, errbuf emptied). */
void lsr_conv_init(struct conv *c, struct lsb_writer *w,
		   const struct lsr_convert_opts *o, struct lsr_convert_stats *st,
		   char *errbuf, size_t errlen);
/* Frees what the conversion allocated (not c->f). */
void lsr_conv_release(struct conv *c);
/* Sets errbuf (printf-style) and returns err. */
int lsr_conv_fail(struct conv *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The writer's message for err; returns err. */
int lsr_conv_wfail(struct conv *c, int err);
/* key = v in decimal.  Returns 0 or a writer error. */
int lsr_conv_meta_u64(struct conv *c, const char *key, uint64_t v);
/* One record into events, samples, streams or metadata.  Returns 0 or a
 * negative LS_E* code with errbuf set. */
int lsr_conv_record(struct conv *c, const struct lspd_record *r);
/* Ends the streams, names the sample events and writes the modules.
 * Returns 0 or a negative LS_E* code with errbuf set. */
int lsr_conv_finish(struct conv *c);

#endif
