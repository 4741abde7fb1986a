/* record_pt.c - the pt backend: perf records intel_pt into a temporary
 * perf.data, which is converted into the bundle. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ls_err.h"
#include "recorder/perf_convert.h"
#include "recorder/perf_run.h"
#include "recorder/record.h"

/* The pt backend: perf records intel_pt (and, with --sample, cycles in the
 * same run) into a temporary perf.data, which is converted. */
int lsr_record_pt(const struct lsr_opts *o, struct lsb_writer *w,
		  struct lsr_stats *st, char *errbuf, size_t errlen)
{
	const char *pt_config;
	struct lsr_perf_run pr;
	struct lsr_convert_opts co;
	struct lsr_convert_stats cs;
	char dir[4096], data[4200], config[512], ev[96];
	char *args[80];
	size_t n = 0, i;
	int status, err;

	if (!o || LS_OPTS_BAD(o) || !w || !st || !o->argv || !o->argv[0])
		return -LS_EINVAL;
	memset(st, 0, sizeof(*st));
	errbuf[0] = '\0';
	pt_config = o->pt_config;
	/* --no-retcomp is one more event term, after the user's. */
	if (o->no_retcomp) {
		int k = snprintf(config, sizeof(config), "%s%snoretcomp",
				 pt_config ? pt_config : "",
				 pt_config && *pt_config ? "," : "");

		if (k < 0 || (size_t)k >= sizeof(config)) {
			snprintf(errbuf, errlen, "--pt-config is too long");
			return -LS_EINVAL;
		}
		pt_config = config;
	}
	if (lsr_mkdtemp(dir, sizeof(dir), "loopscope-perf") < 0) {
		snprintf(errbuf, errlen, "cannot create a temporary directory");
		return -LS_EIO;
	}
	snprintf(data, sizeof(data), "%s/perf.data", dir);
	if (o->sample) {
		if (o->sample_freq)
			snprintf(ev, sizeof(ev), "cpu/cycles,call-graph=fp,freq=%u/u",
				 (unsigned)o->sample_freq);
		else
			snprintf(ev, sizeof(ev), "cpu/cycles,call-graph=fp/u");
		args[n++] = "-e";
		args[n++] = ev;
	}
	for (i = 0; o->perf_args && o->perf_args[i] && n + 1 < 80; i++)
		args[n++] = o->perf_args[i];
	args[n] = NULL;
	memset(&pr, 0, sizeof(pr));
	pr.size = sizeof(pr);
	pr.output = data;
	pr.pt_config = pt_config;
	pr.perf_args = args;
	pr.quiet = 1;
	status = lsr_perf_record_pt(&pr, o->argv);
	if (status < 0) {
		snprintf(errbuf, errlen, "perf record failed: %s", ls_errstr(status));
		err = status;
		goto out;
	}
	st->wait_status = (status & 0xff) << 8;
	memset(&co, 0, sizeof(co));
	co.size = sizeof(co);
	co.run = LSB_RUN_TRACE;
	co.embed = o->embed;
	co.note = o->note;
	co.note_arg = o->note_arg;
	err = lsr_perf_convert(w, data, &co, &cs, errbuf, errlen);
	st->pt_bytes = cs.pt_bytes;
	st->threads = cs.streams;
	st->modules = cs.modules;
	st->tool_ended = 1;
out:
	unlink(data);
	rmdir(dir);
	return err;
}
