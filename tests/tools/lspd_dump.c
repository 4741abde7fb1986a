/* lspd_dump - prints what formats/perfdata.c reads from a perf.data file,
 * for the shell tests:
 *   rec OFFSET TYPE SIZE  every record, in file order
 *   count TYPE N          records per type number, in type order
 *   auxtrace IDX CPU TID SIZE OFFSET PAYLOAD_OFFSET
 *   sample PID TID PERIOD NCALLCHAIN
 *   attr I TYPE SAMPLE_TYPE NAME
 *   pt KEY VALUE          AUXTRACE_INFO words
 *   feature NAME VALUE
 * With -x DIR it also writes each AUXTRACE payload to DIR/aux.IDX (appended
 * in file order).  Exits 1 with the reader's message on an error. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ls_err.h"
#include "formats/perfdata.h"

int main(int argc, char **argv)
{
	static uint64_t counts[LSPD_REC_MAX];
	struct lspd_file *f;
	struct lspd_record r;
	const char *xdir = NULL, *path;
	uint64_t nsamples = 0;
	size_t i;
	int err;

	if (argc == 4 && !strcmp(argv[1], "-x")) {
		xdir = argv[2];
		path = argv[3];
	} else if (argc == 2) {
		path = argv[1];
	} else {
		fprintf(stderr, "usage: lspd_dump [-x DIR] perf.data\n");
		return 2;
	}
	err = lspd_open(&f, path);
	if (err < 0) {
		fprintf(stderr, "lspd_dump: %s (%s)\n", lspd_errmsg(f), ls_errstr(err));
		lspd_close(f);
		return 1;
	}
	while ((err = lspd_next(f, &r)) > 0) {
		counts[r.type < LSPD_REC_MAX ? r.type : LSPD_REC_MAX - 1]++;
		printf("rec %" PRIu64 " %" PRIu32 " %u\n", r.offset, r.type, r.size);
		if (r.type == LSPD_REC_AUXTRACE) {
			printf("auxtrace %" PRIu32 " %" PRId32 " %" PRIu32 " %" PRIu64
			       " %" PRIu64 " %" PRIu64 "\n", r.u.auxtrace.idx,
			       r.u.auxtrace.cpu, r.u.auxtrace.tid, r.u.auxtrace.size,
			       r.u.auxtrace.offset, r.offset + r.size);
			if (xdir) {
				char p[4096], buf[8192];
				FILE *o;
				int64_t n;

				snprintf(p, sizeof(p), "%s/aux.%" PRIu32, xdir,
					 r.u.auxtrace.idx);
				o = fopen(p, "ab");
				if (!o) {
					perror(p);
					return 1;
				}
				while ((n = lspd_read_aux(f, buf, sizeof(buf))) > 0)
					fwrite(buf, 1, (size_t)n, o);
				fclose(o);
				if (n < 0) {
					err = (int)n;
					break;
				}
			}
		} else if (r.type == 9) {
			nsamples++;
			printf("sample %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64 "\n",
			       r.u.sample.sid.pid, r.u.sample.sid.tid,
			       r.u.sample.period, r.u.sample.nr_callchain);
		} else if (r.type == LSPD_REC_AUXTRACE_INFO) {
			for (i = 0; i < r.u.auxtrace_info.npriv; i++)
				printf("pt %zu %" PRIu64 "\n", i, r.u.auxtrace_info.priv[i]);
		}
	}
	if (err < 0) {
		fprintf(stderr, "lspd_dump: %s (%s)\n", lspd_errmsg(f), ls_errstr(err));
		lspd_close(f);
		return 1;
	}
	for (i = 0; i < LSPD_REC_MAX; i++)
		if (counts[i])
			printf("count %zu %" PRIu64 "\n", i, counts[i]);
	for (i = 0; i < lspd_nattrs(f); i++) {
		const struct lspd_attr *a = lspd_attr(f, i);

		printf("attr %zu %" PRIu32 " %" PRIu64 " %s\n", i, a->type,
		       a->sample_type, a->name ? a->name : "-");
	}
	printf("buildids %zu\n", lspd_nbuild_ids(f));
	if (lspd_feature_string(f, LSPD_FEAT_CPUID))
		printf("feature cpuid %s\n", lspd_feature_string(f, LSPD_FEAT_CPUID));
	if (lspd_feature_string(f, LSPD_FEAT_HOSTNAME))
		printf("feature hostname %s\n",
		       lspd_feature_string(f, LSPD_FEAT_HOSTNAME));
	lspd_close(f);
	return 0;
}
