/* term.c - progress line and colour for a terminal (cli/term.h).
 *
 * The decoder calls the progress hook once per chunk it reads (a few
 * hundred KB of PT), possibly on its own thread, so the hook takes a
 * lock, and draws at most four times a second, only after the first
 * second: a command that ends sooner prints nothing.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/term.h"
#include "decoder/decode.h"
#include "formats/bundle.h"

static int color_mode = CLI_COLOR_AUTO;

void cli_color_set(int mode)
{
	color_mode = mode;
}

int cli_color_parse(const char *s, int *mode)
{
	if (!strcmp(s, "auto"))
		*mode = CLI_COLOR_AUTO;
	else if (!strcmp(s, "always"))
		*mode = CLI_COLOR_ALWAYS;
	else if (!strcmp(s, "never"))
		*mode = CLI_COLOR_NEVER;
	else
		return -1;
	return 0;
}

int cli_color_on(FILE *f)
{
	const char *no = getenv("NO_COLOR");

	if (color_mode != CLI_COLOR_AUTO)
		return color_mode == CLI_COLOR_ALWAYS;
	/* no-color.org: present and not empty disables colour. */
	return !(no && no[0]) && isatty(fileno(f));
}

const char *cli_color(FILE *f, const char *role)
{
	static const struct { const char *role, *esc; } roles[] = {
		{ "err", "\033[1;31m" }, { "warn", "\033[1;33m" },
		{ "bold", "\033[1m" }, { "dim", "\033[2m" },
		{ "hot", "\033[1;35m" }, { "loop", "\033[1;36m" }, { "off", "\033[0m" },
	};
	size_t i;

	if (!cli_color_on(f))
		return "";
	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++)
		if (!strcmp(roles[i].role, role))
			return roles[i].esc;
	return "";
}

static struct {
	pthread_mutex_t lock;
	int enabled, shown;
	double delay;		/* seconds before the first line */
	double start, last_draw, pass_start;
	const struct lsb_reader *r;	/* the bundle being decoded */
	int group;		/* readers other than r count to its pass */
	unsigned passes;	/* decodes of it that make one line (0: 1) */
	uint64_t total, bytes, insns;	/* PT bytes of it, decoded so far */
	pthread_t watcher;
	int watching, stop;
	const char *path;
	int live;			/* the recorder reports its counts */
	uint64_t rec_pt, rec_acc, file;	/* its PT and access bytes, the bundle's */
} pg = { .lock = PTHREAD_MUTEX_INITIALIZER };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "12.3 MB" */
static void human(char *buf, size_t len, double n, const char *unit)
{
	static const char *pre[] = { "", "k", "M", "G", "T" };
	int i = 0;

	while (n >= 1000 && i < 4) {
		n /= 1000;
		i++;
	}
	snprintf(buf, len, i ? "%.1f %s%s" : "%.0f %s%s", n, pre[i], unit);
}

/* Draws the line for the current counts; with the lock held.  force:
 * whatever the time since the last line (the pass's final counts). */
static void draw(const char *what, int force)
{
	double t = now(), el = t - pg.pass_start;
	char a[32], b[32], c[32], d[32], eta[32] = "";

	if (t - pg.start < pg.delay || (!force && pg.shown && t - pg.last_draw < 0.25))
		return;
	pg.last_draw = t;
	human(a, sizeof(a), (double)pg.bytes, "B");
	human(c, sizeof(c), (double)pg.insns, "");
	human(d, sizeof(d), el > 0 ? pg.insns / el : 0, "");
	if (pg.total) {
		human(b, sizeof(b), (double)pg.total, "B");
		if (pg.bytes && pg.bytes < pg.total && el > 0) {
			double left = el * (double)(pg.total - pg.bytes) / (double)pg.bytes;

			snprintf(eta, sizeof(eta), ", %d:%02d left", (int)left / 60,
				 (int)left % 60);
		}
		fprintf(stderr, "\r\033[K%s%s%s: %s of %s of PT (%.0f%%), %s instructions, "
			"%s/s%s", cli_color(stderr, "dim"), what, cli_color(stderr, "off"), a,
			b, 100.0 * (double)pg.bytes / (double)pg.total, c, d, eta);
	} else {
		fprintf(stderr, "\r\033[K%s%s%s: bundle %s so far, %.0f s", cli_color(stderr, "dim"),
			what, cli_color(stderr, "off"), a, el);
	}
	fflush(stderr);
	pg.shown = 1;
}

/* The recording line; with the lock held.  force: draw whatever the
 * time since the last line (the final counts). */
static void draw_record(int force)
{
	double t = now(), el = t - pg.pass_start;
	char a[32], b[32], c[40] = "", d[32] = "", r[32];

	if (t - pg.start < pg.delay || (!force && pg.shown && t - pg.last_draw < 0.25))
		return;
	pg.last_draw = t;
	human(b, sizeof(b), (double)pg.file, "B");
	/* A rate over less than a second says little. */
	if (el >= 1.0) {
		human(r, sizeof(r), (double)(pg.live ? pg.rec_pt : pg.file) / el, "B/s");
		snprintf(c, sizeof(c), ", %s%s", r, pg.live ? " of PT" : "");
	}
	fprintf(stderr, "\r\033[K%srecording%s: ", cli_color(stderr, "dim"),
		cli_color(stderr, "off"));
	if (pg.live) {
		human(a, sizeof(a), (double)pg.rec_pt, "B");
		if (pg.rec_acc)
			human(d, sizeof(d), (double)pg.rec_acc, "B");
		fprintf(stderr, "%s of PT%s%s%s, bundle %s, %d:%02d%s", a,
			*d ? ", " : "", d, *d ? " of accesses" : "", b, (int)el / 60,
			(int)el % 60, c);
	} else {
		fprintf(stderr, "bundle %s so far, %d:%02d%s", b, (int)el / 60,
			(int)el % 60, c);
	}
	fflush(stderr);
	pg.shown = 1;
}

void cli_progress_recorded(uint64_t pt_bytes, uint64_t acc_bytes)
{
	pthread_mutex_lock(&pg.lock);
	pg.live = 1;
	pg.rec_pt = pt_bytes;
	pg.rec_acc = acc_bytes;
	pthread_mutex_unlock(&pg.lock);
}

/* A pass over r's PT begins; with the lock held. */
static void pass_begin(const struct lsb_reader *r)
{
	size_t s;

	/* The first pass counts from the command's start, which includes
	 * opening the bundle. */
	pg.pass_start = pg.r ? now() : pg.start;
	pg.r = r;
	pg.total = pg.bytes = pg.insns = 0;
	for (s = 0; s < lsb_reader_nstreams(r); s++)
		pg.total += lsb_reader_stream_raw(r, s);
	if (pg.passes > 1)
		pg.total *= pg.passes;
}

static void on_chunk(void *arg, const struct lsb_reader *r, uint64_t bytes,
		     uint64_t insns)
{
	(void)arg;
	pthread_mutex_lock(&pg.lock);
	if (pg.enabled) {
		if ((r != pg.r && !pg.group) || pg.bytes >= pg.total) {
			/* Another bundle, or another pass over it: count anew. */
			pass_begin(r);
		}
		pg.bytes += bytes;
		pg.insns += insns;
		draw(pg.passes == 2 ? "decoding twice" : pg.passes > 2 ? "decoding thrice" :
		     "decoding", pg.shown && pg.bytes >= pg.total);
		if (pg.shown && pg.bytes >= pg.total) {
			/* The pass is done: what the command prints next
			 * starts on a clean line. */
			fputs("\r\033[K", stderr);
			fflush(stderr);
			pg.shown = 0;
		}
	}
	pthread_mutex_unlock(&pg.lock);
}

void cli_progress_clear(void)
{
	pthread_mutex_lock(&pg.lock);
	if (pg.shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		pg.shown = 0;
	}
	pthread_mutex_unlock(&pg.lock);
}

void cli_progress_init(void)
{
	const char *d = getenv("LOOPSCOPE_PROGRESS_DELAY");

	/* The delay is settable for the tests, which cannot wait for work
	 * that takes a second. */
	pg.delay = d && *d ? atof(d) : 1.0;
	pg.start = pg.pass_start = now();
	pg.enabled = isatty(STDERR_FILENO);
	if (pg.enabled) {
		lsd_set_progress(on_chunk, NULL);
		atexit(cli_progress_clear);
	}
}

void cli_progress_group(const struct lsb_reader *r)
{
	pthread_mutex_lock(&pg.lock);
	pg.group = r != NULL;
	if (r && pg.enabled)
		pass_begin(r);
	pthread_mutex_unlock(&pg.lock);
}

void cli_progress_passes(unsigned n)
{
	pthread_mutex_lock(&pg.lock);
	pg.passes = n;
	pg.r = NULL;	/* the next chunk begins the line's pass */
	pthread_mutex_unlock(&pg.lock);
}

void cli_progress_quiet(void)
{
	pthread_mutex_lock(&pg.lock);
	pg.enabled = 0;
	pthread_mutex_unlock(&pg.lock);
	lsd_set_progress(NULL, NULL);
	cli_progress_clear();
}

static void *watch(void *arg)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	struct stat sb;

	(void)arg;
	for (;;) {
		int stop;

		/* Looks at the file before it looks at stop: a recording
		 * gets at least one look, whatever its length. */
		pthread_mutex_lock(&pg.lock);
		stop = pg.stop;
		if (pg.enabled && !stat(pg.path, &sb)) {
			pg.file = (uint64_t)sb.st_size;
			draw_record(stop);
		}
		pthread_mutex_unlock(&pg.lock);
		if (stop)
			break;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int cli_progress_watch(const char *path)
{
	if (!pg.enabled)
		return 0;
	pg.path = path;
	pg.stop = 0;
	pg.pass_start = now();
	if (pthread_create(&pg.watcher, NULL, watch, NULL))
		return -1;
	pg.watching = 1;
	return 0;
}

void cli_progress_watch_stop(void)
{
	if (!pg.watching)
		return;
	pthread_mutex_lock(&pg.lock);
	pg.stop = 1;
	pthread_mutex_unlock(&pg.lock);
	pthread_join(pg.watcher, NULL);
	pg.watching = 0;
	cli_progress_clear();
}
