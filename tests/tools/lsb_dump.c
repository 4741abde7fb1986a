/* lsb_dump - what a bundle holds, read back through lsb_reader_* (a test
 * stand-in for `loopscope info`):
 *   meta KEY VALUE
 *   stream ID KIND PID TID CPU RAW_BYTES
 *   module PATH BUILD_ID_HEX FLAGS SIZE
 *   events N / samples N / sample_noperiod N / sample_notid N
 *   events_type TYPE N
 * With -x DIR each stream's raw PT bytes go to DIR/stream.ID, and its
 * memory-access records, if any, to DIR/memacc in fuzz_memacc's input
 * form (a u16 little-endian length, cut at 65535, then the bytes).  With -e,
 * every event of the traced run too, in file order, after the modules:
 *   event TYPE PID TID CPU TIME ARG */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_err.h"
#include "formats/bundle.h"

static uint64_t nev, nsamp, noperiod, notid, evtype[16];
static int print_events;

static int on_event(const struct lsb_event *ev, void *arg)
{
	(void)arg;
	if (print_events && ev->run == LSB_RUN_TRACE)
		printf("event %u %" PRIu32 " %" PRIu32 " %" PRId32 " %" PRIu64
		       " %" PRIu32 "\n", (unsigned)ev->type, ev->pid, ev->tid,
		       ev->cpu, ev->time, ev->arg);
	nev++;
	evtype[ev->type < 16 ? ev->type : 0]++;
	return 0;
}

static int on_mem(uint32_t stream, const void *enc, size_t len, void *arg)
{
	const char *xdir = arg;
	static FILE *o;
	uint8_t hdr[2];

	(void)stream;
	if (!o) {
		char p[4096];

		snprintf(p, sizeof(p), "%s/memacc", xdir);
		if (!(o = fopen(p, "wb")))
			return 1;
	}
	len = len > 65535 ? 65535 : len;
	hdr[0] = (uint8_t)len;
	hdr[1] = (uint8_t)(len >> 8);
	return fwrite(hdr, 1, 2, o) != 2 || fwrite(enc, 1, len, o) != len || fflush(o);
}

static int on_sample(const struct lsb_sample *s, void *arg)
{
	(void)arg;
	nsamp++;
	noperiod += s->period == 0;
	notid += s->tid == 0;
	return 0;
}

int main(int argc, char **argv)
{
	struct lsb_reader *r;
	const char *xdir = NULL, *path, *k, *v;
	size_t i, j;
	int err;

	if (argc > 1 && !strcmp(argv[1], "-e")) {
		print_events = 1;
		argc--;
		argv++;
	}
	if (argc == 4 && !strcmp(argv[1], "-x")) {
		xdir = argv[2];
		path = argv[3];
	} else if (argc == 2) {
		path = argv[1];
	} else {
		fprintf(stderr, "usage: lsb_dump [-e] [-x DIR] BUNDLE\n");
		return 2;
	}
	err = lsb_reader_open(&r, path);
	if (err < 0) {
		fprintf(stderr, "lsb_dump: %s\n", r ? lsb_reader_errmsg(r) : ls_errstr(err));
		lsb_reader_close(r);
		return 1;
	}
	for (i = 0; i < lsb_reader_nmeta(r); i++)
		if (lsb_reader_meta_at(r, i, &k, &v) >= 0)
			printf("meta %s %s\n", k, v);
	for (i = 0; i < lsb_reader_nstreams(r); i++) {
		const struct lsb_stream *s = lsb_reader_stream(r, i);
		uint64_t raw = 0;
		FILE *o = NULL;

		if (xdir) {
			char p[4096];

			snprintf(p, sizeof(p), "%s/stream.%" PRIu32, xdir, s->id);
			o = fopen(p, "wb");
		}
		for (j = 0; j < lsb_reader_nchunks(r, i); j++) {
			const struct lsb_chunk *c = lsb_reader_chunk(r, i, j);
			void *buf = malloc(c->raw_size ? c->raw_size : 1);
			int64_t n = buf ? lsb_reader_read_chunk(r, c, buf, c->raw_size) : -1;

			if (n < 0) {
				fprintf(stderr, "lsb_dump: chunk: %s\n", lsb_reader_errmsg(r));
				return 1;
			}
			if (o)
				fwrite(buf, 1, (size_t)n, o);
			raw += (uint64_t)n;
			free(buf);
		}
		if (o)
			fclose(o);
		printf("stream %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRId32
		       " %" PRIu64 "\n", s->id, s->kind, s->pid, s->tid, s->cpu, raw);
	}
	for (i = 0; i < lsb_reader_nmodules(r); i++) {
		const struct lsb_module *m = lsb_reader_module(r, i);

		printf("module %s ", m->path);
		for (j = 0; j < m->build_id_len; j++)
			printf("%02x", m->build_id[j]);
		printf(" %" PRIu32 " %" PRIu64 "\n", m->flags, m->file_size);
	}
	if (lsb_reader_events(r, on_event, NULL) < 0 ||
	    lsb_reader_samples(r, on_sample, NULL) < 0 ||
	    (xdir && lsb_reader_memacc(r, on_mem, (void *)xdir) < 0)) {
		fprintf(stderr, "lsb_dump: %s\n", lsb_reader_errmsg(r));
		return 1;
	}
	printf("events %" PRIu64 "\nsamples %" PRIu64 "\nsample_noperiod %" PRIu64
	       "\nsample_notid %" PRIu64 "\n", nev, nsamp, noperiod, notid);
	for (i = 0; i < 16; i++)
		if (evtype[i])
			printf("events_type %zu %" PRIu64 "\n", i, evtype[i]);
	lsb_reader_close(r);
	return 0;
}
