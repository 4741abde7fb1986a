/* lsr_perfrun - exercises recorder/perf_run.h and perf_convert.h as the
 * record command uses them:
 *   lsr_perfrun sample|pt PERF.DATA OUT.lsc -- CMD...
 * runs perf record (sampling run, or the hardware pt backend), prints
 * "status N" (the command's exit status), then converts PERF.DATA into
 * OUT.lsc (LSB_RUN_SAMPLE for a sampling run) and prints "samples N". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ls_err.h"
#include "formats/bundle.h"
#include "recorder/perf_convert.h"
#include "recorder/perf_run.h"

int main(int argc, char **argv)
{
	struct lsr_perf_run pr;
	struct lsr_convert_opts co;
	struct lsr_convert_stats st;
	struct lsb_writer *w;
	char err[512] = "";
	int sample, rc, e;

	if (argc < 6 || strcmp(argv[4], "--")) {
		fprintf(stderr, "usage: lsr_perfrun sample|pt PERF.DATA OUT.lsc -- CMD...\n");
		return 2;
	}
	sample = !strcmp(argv[1], "sample");
	memset(&pr, 0, sizeof(pr));
	pr.size = sizeof(pr);
	pr.output = argv[2];
	pr.quiet = 1;
	rc = sample ? lsr_perf_record_sample(&pr, argv + 5)
		    : lsr_perf_record_pt(&pr, argv + 5);
	if (rc < 0) {
		fprintf(stderr, "lsr_perfrun: perf record: %s\n", ls_errstr(rc));
		return rc == -LS_ENOPT ? 77 : 1;
	}
	printf("status %d\n", rc);
	printf("hw_cycles %d\n", lsr_have_hw_cycles());
	e = lsb_writer_open(&w, argv[3], NULL);
	if (e < 0) {
		fprintf(stderr, "lsr_perfrun: %s\n", ls_errstr(e));
		return 1;
	}
	memset(&co, 0, sizeof(co));
	co.size = sizeof(co);
	co.run = sample ? LSB_RUN_SAMPLE : LSB_RUN_TRACE;
	co.embed = 1;
	e = lsr_perf_convert(w, argv[2], &co, &st, err, sizeof(err));
	if (e < 0) {
		fprintf(stderr, "lsr_perfrun: %s\n", err);
		lsb_writer_close(w);
		return 1;
	}
	e = lsb_writer_close(w);
	if (e < 0) {
		fprintf(stderr, "lsr_perfrun: close: %s\n", ls_errstr(e));
		return 1;
	}
	printf("samples %" PRIu64 "\nmodules %" PRIu32 "\nembedded %" PRIu32 "\n",
	       st.samples, st.modules, st.embedded);
	return 0;
}
