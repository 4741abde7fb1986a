/* cmd_info.c - `loopscope info`: describes a trace bundle.
 *
 * Reads everything but the PT payloads' contents: metadata, modules,
 * executable mappings and threads from the events, per-stream chunk
 * totals, sample and memory-access counts; checks every checksum.  Exit
 * status 0 when the bundle is intact or was cut short but recovered (a
 * warning says what was lost), 1 when it cannot be read or a section is
 * damaged.
 *
 * --decode adds decode totals per stream from lsd_decode_stream().  It is
 * not the default: decoding costs about as much as running libipt over
 * the whole trace twice (the decoder's two passes), seconds per hundred
 * million instructions, while the rest of `info` only reads the file.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "decoder/decode.h"
#include "formats/bundle.h"
#include "ls_buf.h"
#include "ls_err.h"

static const char info_usage[] =
	"usage: loopscope info [--format=text|json] [--decode [--jobs=<n>]] [FILE]\n"
	"\n"
	"Describes a trace bundle (default: loopscope.lsc): metadata, modules,\n"
	"executable mappings, threads, PT streams, samples, memory accesses.\n"
	"\n"
	"    --format=text|json   output format (default text)\n"
	"    --decode             decode every stream: instructions, blocks, losses\n"
	"    --debug-dir=<dir>    with --decode: look for executables the bundle\n"
	"                         only references (record --no-embed) in <dir> too\n"
	"    -j, --jobs=<n>       with --decode: threads (1 to 256, default: the\n"
	"                         online CPUs); from 2, each stream's chunks are\n"
	"                         read and decompressed on a thread of their own\n"
	"    -h, --help           show this help\n";

struct thread {
	uint32_t pid, tid;
	uint64_t start, exit;
	uint32_t status;
	int started, exited;
};

struct info {
	FILE *out;
	int json;
	struct thread *th;
	size_t nth, cap;
	uint64_t nsamples, memacc;
	int nmmaps;
	int fail;		/* out of memory in a callback */
};

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void hex(char *dst, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(dst + 2 * i, "%02x", p[i]);
	dst[2 * n] = '\0';
}

static struct thread *thread_of(struct info *in, uint32_t pid, uint32_t tid)
{
	size_t i;

	for (i = 0; i < in->nth; i++)
		if (in->th[i].tid == tid && in->th[i].pid == pid)
			return &in->th[i];
	if (LS_GROW(in->th, in->nth + 1, in->cap, 16))
		return NULL;
	memset(&in->th[in->nth], 0, sizeof(in->th[0]));
	in->th[in->nth].pid = pid;
	in->th[in->nth].tid = tid;
	return &in->th[in->nth++];
}

static int on_event(const struct lsb_event *ev, void *arg)
{
	struct info *in = arg;
	struct thread *t;

	if (ev->type == LSB_EV_MMAP && (ev->prot & 4)) {
		const char *path = ev->name ? ev->name : "";

		if (in->json) {
			fprintf(in->out, "%s\n    {\"run\": %u, \"pid\": %" PRIu32
				", \"addr\": %" PRIu64 ", \"len\": %" PRIu64
				", \"pgoff\": %" PRIu64 ", \"path\": ",
				in->nmmaps ? "," : "", ev->run, ev->pid, ev->addr,
				ev->len, ev->pgoff);
			json_str(in->out, path);
			fputc('}', in->out);
		} else {
			if (!in->nmmaps)
				fprintf(in->out, "\nexecutable mappings:\n"
					"  %-6s %-8s %-18s %-10s %-10s %s\n",
					"run", "pid", "address", "length",
					"offset", "path");
			/* The traced run, or the separate sampling run of
			 * record --sample (its own mappings: ASLR). */
			fprintf(in->out, "  %-6s %-8" PRIu32 " 0x%016" PRIx64
				" %-10" PRIu64 " 0x%-8" PRIx64 " %s\n",
				ev->run ? "sample" : "trace", ev->pid, ev->addr, ev->len,
				ev->pgoff, path);
		}
		in->nmmaps++;
	}
	if (ev->type == LSB_EV_THREAD_START || ev->type == LSB_EV_THREAD_EXIT) {
		t = thread_of(in, ev->pid, ev->tid);
		if (!t) {
			in->fail = 1;
			return 1;
		}
		if (ev->type == LSB_EV_THREAD_START) {
			t->started = 1;
			t->start = ev->time;
		} else {
			t->exited = 1;
			t->exit = ev->time;
			t->status = ev->arg;
		}
	}
	return 0;
}

static int on_sample(const struct lsb_sample *s, void *arg)
{
	(void)s;
	((struct info *)arg)->nsamples++;
	return 0;
}

static int on_memacc(uint32_t stream, const void *enc, size_t len, void *arg)
{
	(void)stream;
	(void)enc;
	((struct info *)arg)->memacc += len;
	return 0;
}

static double ratio(uint64_t raw, uint64_t stored)
{
	return stored ? (double)raw / (double)stored : 0.0;
}

static void print_header(struct info *in, struct lsb_reader *r,
			 const struct lsb_stats *st)
{
	const char *k, *v;
	char when[64] = "";
	time_t t = (time_t)st->created;
	struct tm tm;
	size_t i;

	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (in->json) {
		fputs("{\n  \"file\": ", in->out);
		json_str(in->out, lsb_reader_path(r));
		fprintf(in->out, ",\n  \"size\": %" PRIu64 ",\n  \"version\": \"%u.%u\","
			"\n  \"created\": \"%s\",\n  \"meta\": {",
			st->file_size, st->version_major, st->version_minor, when);
		for (i = 0; lsb_reader_meta_at(r, i, &k, &v) == 0; i++) {
			fprintf(in->out, "%s\n    ", i ? "," : "");
			json_str(in->out, k);
			fputs(": ", in->out);
			json_str(in->out, v);
		}
		fputs("\n  },\n  \"modules\": [", in->out);
	} else {
		fprintf(in->out, "file:     %s\nsize:     %" PRIu64
			" bytes, format %u.%u, created %s\n\nmetadata:\n",
			lsb_reader_path(r), st->file_size, st->version_major,
			st->version_minor, when);
		for (i = 0; lsb_reader_meta_at(r, i, &k, &v) == 0; i++)
			fprintf(in->out, "  %-16s %s\n", k, v);
		fprintf(in->out, "\nmodules: %zu\n", lsb_reader_nmodules(r));
	}
	for (i = 0; i < lsb_reader_nmodules(r); i++) {
		const struct lsb_module *m = lsb_reader_module(r, i);
		char id[2 * LSB_BUILD_ID_MAX + 1];
		const char *how = (m->flags & LSB_MOD_EMBEDDED) ? "embedded" : "referenced";

		hex(id, m->build_id, m->build_id_len);
		if (in->json) {
			fprintf(in->out, "%s\n    {\"build_id\": \"%s\", \"size\": %" PRIu64
				", \"embedded\": %s, \"vdso\": %s, \"path\": ",
				i ? "," : "", id, m->file_size,
				(m->flags & LSB_MOD_EMBEDDED) ? "true" : "false",
				(m->flags & LSB_MOD_VDSO) ? "true" : "false");
			json_str(in->out, m->path);
			fputc('}', in->out);
		} else {
			fprintf(in->out, "  %-40s %-10s %10" PRIu64 "  %s\n", id, how,
				m->file_size, m->path);
		}
	}
	if (in->json)
		fputs("\n  ],\n  \"mmaps\": [", in->out);
}

static void print_rest(struct info *in, struct lsb_reader *r,
		       const struct lsb_stats *st)
{
	uint64_t raw = st->pt_raw + st->mod_raw + st->side_raw;
	uint64_t stored = st->pt_stored + st->mod_stored + st->side_stored;
	size_t i, k;

	if (in->json)
		fputs("\n  ],\n  \"threads\": [", in->out);
	else
		fprintf(in->out, "\nthreads: %zu\n", in->nth);
	for (i = 0; i < in->nth; i++) {
		const struct thread *t = &in->th[i];

		if (in->json)
			fprintf(in->out, "%s\n    {\"pid\": %" PRIu32 ", \"tid\": %" PRIu32
				", \"start\": %" PRIu64 ", \"exit\": %" PRIu64
				", \"exited\": %s, \"status\": %" PRIu32 "}",
				i ? "," : "", t->pid, t->tid, t->start, t->exit,
				t->exited ? "true" : "false", t->status);
		else if (t->exited)
			fprintf(in->out, "  %" PRIu32 "/%" PRIu32 "  start %" PRIu64
				"  exit %" PRIu64 "  status %" PRIu32 "\n",
				t->pid, t->tid, t->start, t->exit, t->status);
		else
			fprintf(in->out, "  %" PRIu32 "/%" PRIu32 "  start %" PRIu64
				"  (no exit recorded)\n", t->pid, t->tid, t->start);
	}
	if (in->json)
		fputs("\n  ],\n  \"streams\": [", in->out);
	else
		fprintf(in->out, "\nstreams: %zu\n  %-6s %-7s %-10s %7s %12s %12s %6s\n",
			lsb_reader_nstreams(r), "id", "kind", "tid/cpu", "chunks",
			"raw", "stored", "ratio");
	for (i = 0; i < lsb_reader_nstreams(r); i++) {
		const struct lsb_stream *s = lsb_reader_stream(r, i);
		size_t n = lsb_reader_nchunks(r, i);
		uint64_t sr = 0, ss = 0;
		int cpu = s->kind == LSB_STREAM_CPU;
		char who[32];

		for (k = 0; k < n; k++) {
			sr += lsb_reader_chunk(r, i, k)->raw_size;
			ss += lsb_reader_chunk(r, i, k)->stored_size;
		}
		if (in->json) {
			fprintf(in->out, "%s\n    {\"id\": %" PRIu32 ", \"kind\": \"%s\", "
				"\"pid\": %" PRIu32 ", \"%s\": %" PRId64 ", \"chunks\": %zu, "
				"\"raw\": %" PRIu64 ", \"stored\": %" PRIu64 "}",
				i ? "," : "", s->id, cpu ? "cpu" : "thread", s->pid,
				cpu ? "cpu" : "tid",
				cpu ? (int64_t)s->cpu : (int64_t)s->tid, n, sr, ss);
		} else {
			if (cpu)
				snprintf(who, sizeof(who), "cpu %" PRId32, s->cpu);
			else
				snprintf(who, sizeof(who), "%" PRIu32, s->tid);
			fprintf(in->out, "  %-6" PRIu32 " %-7s %-10s %7zu %12" PRIu64
				" %12" PRIu64 " %6.2f\n", s->id,
				cpu ? "cpu" : "thread", who, n, sr, ss, ratio(sr, ss));
		}
	}
	if (in->json) {
		/* The closing brace comes from cmd_info(), after --decode. */
		fprintf(in->out, "\n  ],\n  \"samples\": %" PRIu64 ",\n  \"memacc_bytes\": %"
			PRIu64 ",\n  \"sections\": %" PRIu64 ",\n  \"raw\": %" PRIu64
			",\n  \"stored\": %" PRIu64 ",\n  \"truncated_at\": %" PRIu64
			",\n  \"lost_bytes\": %" PRIu64 ",\n  \"damaged\": %" PRIu64,
			in->nsamples, in->memacc, st->sections, raw, stored,
			st->truncated_at, st->lost_bytes, st->damaged);
		return;
	}
	fprintf(in->out, "\nsamples:  %" PRIu64 "\nmemory accesses: %" PRIu64 " bytes\n",
		in->nsamples, in->memacc);
	fprintf(in->out, "\ntotal:    %" PRIu64 " sections, %" PRIu64 " bytes raw, %"
		PRIu64 " stored, ratio %.2f\n"
		"  pt %" PRIu64 "/%" PRIu64 ", modules %" PRIu64 "/%" PRIu64
		", sideband %" PRIu64 "/%" PRIu64 " (raw/stored)\n",
		st->sections, raw, stored, ratio(raw, stored), st->pt_raw,
		st->pt_stored, st->mod_raw, st->mod_stored, st->side_raw,
		st->side_stored);
	if (st->truncated_at)
		fprintf(in->out, "status:   truncated at offset %" PRIu64 ", %" PRIu64
			" bytes lost\n", st->truncated_at, st->lost_bytes);
	if (st->damaged)
		fprintf(in->out, "status:   %" PRIu64 " damaged sections\n", st->damaged);
}

/* A per-CPU stream's totals per thread (the decoder's thread callback). */
struct cpu_thread {
	uint32_t pid, tid;
	uint64_t insns, blocks, losses;
};

struct cpu_threads {
	struct cpu_thread *t;
	size_t n, cap, cur;
	int nomem;
	/* Static blocks executed, by id: the count does not depend on the
	 * order in which the decoder made them, nor on blocks it made and
	 * dropped (the end of a chunk). */
	uint8_t *seen;
	size_t nseen, capseen;
	const struct lsd_decoder *d;	/* whose static blocks they are */
};

static int ct_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	struct cpu_threads *c = arg;
	size_t i;

	(void)stream;
	for (i = 0; i < c->n && (c->t[i].pid != pid || c->t[i].tid != tid); i++)
		;
	if (i == c->n) {
		if (LS_GROW(c->t, c->n + 1, c->cap, 8)) {
			c->nomem = 1;
			return -LS_ENOMEM;
		}
		memset(&c->t[c->n], 0, sizeof(c->t[0]));
		c->t[c->n].pid = pid;
		c->t[c->n++].tid = tid;
	}
	c->cur = i;
	return 0;
}

/* Grows c->seen to hold static block id.  Returns 0 or -LS_ENOMEM. */
static int ct_seen_grow(struct cpu_threads *c, uint32_t id)
{
	size_t old = c->capseen;

	if (LS_GROW(c->seen, (size_t)id + 1, c->capseen, 4096)) {
		c->nomem = 1;
		return -LS_ENOMEM;
	}
	memset(c->seen + old, 0, c->capseen - old);
	return 0;
}

/* Makes c->seen hold every static block id the decoder has made so far:
 * no block handed out can have a larger one.  Returns 0 or -LS_ENOMEM. */
static int ct_seen_fit(struct cpu_threads *c)
{
	size_t n = lsd_nsblocks(c->d);

	return n > c->capseen ? ct_seen_grow(c, (uint32_t)(n - 1)) : 0;
}

/* A per-thread stream's blocks: the decoder counts its instructions and
 * blocks itself (struct lsd_stream_stats), so all that is left per block
 * is the mark of its static block, a load and a store. */
static int ct_marks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct cpu_threads *c = arg;
	uint8_t *seen;
	size_t i;

	(void)stream;
	if (ct_seen_fit(c))
		return -LS_ENOMEM;
	seen = c->seen;
	/* four at a time: the loop's own count and test were a third of
	 * its instructions */
	for (i = 0; i + 4 <= n; i += 4) {
		seen[b[i].id] = 1;
		seen[b[i + 1].id] = 1;
		seen[b[i + 2].id] = 1;
		seen[b[i + 3].id] = 1;
	}
	for (; i < n; i++)
		seen[b[i].id] = 1;
	return 0;
}

/* ct_marks() over the runs the decoder hands out by reference (its chains
 * where it keeps them, not copied into one array). */
static int ct_span_marks(void *arg, size_t stream, const struct lsd_bspan *s, size_t ns)
{
	struct cpu_threads *c = arg;
	uint8_t *seen;
	size_t j;

	(void)stream;
	if (ct_seen_fit(c))
		return -LS_ENOMEM;
	seen = c->seen;
	/* Marks are idempotent: each run in groups of four, the last one
	 * ending at the run's end (it may mark again what the one before
	 * did), and a run of fewer at its first, middle and last block: no
	 * count left over to branch on. */
	for (j = 0; j < ns; j++) {
		const struct lsd_block *b = s[j].b;
		size_t n = s[j].n, i;

		if (s[j].again)		/* marked when first handed out */
			continue;
		if (n >= 4) {
			for (i = 0; i + 4 < n; i += 4) {
				seen[b[i].id] = 1;
				seen[b[i + 1].id] = 1;
				seen[b[i + 2].id] = 1;
				seen[b[i + 3].id] = 1;
			}
			b += n - 4;
			seen[b[0].id] = 1;
			seen[b[1].id] = 1;
			seen[b[2].id] = 1;
			seen[b[3].id] = 1;
		} else {
			seen[b[0].id] = 1;
			seen[b[n / 2].id] = 1;
			seen[b[n - 1].id] = 1;
		}
	}
	return 0;
}

/* A per-CPU stream's blocks: the marks and the current thread's totals. */
static int ct_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	struct cpu_threads *c = arg;
	uint8_t *seen;
	size_t i;
	uint64_t insns = 0;

	(void)stream;
	if (ct_seen_fit(c))
		return -LS_ENOMEM;
	seen = c->seen;
	/* one pass, a store per block, in locals the stores cannot alias:
	 * the distinct blocks are counted at the end */
	for (i = 0; i < n; i++) {
		const struct lsd_sblock *sb = b[i].sb;

		seen[sb->id] = 1;
		insns += sb->ninsn;
	}
	if (c->cur < c->n) {
		c->t[c->cur].insns += insns;
		c->t[c->cur].blocks += n;
	}
	return 0;
}

static int ct_loss(void *arg, size_t stream, const struct lsd_loss *l)
{
	struct cpu_threads *c = arg;

	(void)stream, (void)l;
	if (c->cur < c->n)
		c->t[c->cur].losses++;
	return 0;
}

/* The per-thread lines under a per-CPU stream's. */
static void print_cpu_threads(struct info *in, const struct cpu_threads *c,
			      const struct lsd_stream_stats *st)
{
	size_t i;

	if (in->json) {
		fprintf(in->out, ", \"switches\": %" PRIu64 ", \"threads\": [", st->switches);
		for (i = 0; i < c->n; i++)
			fprintf(in->out, "%s{\"pid\": %" PRIu32 ", \"tid\": %" PRIu32
				", \"instructions\": %" PRIu64 ", \"blocks\": %" PRIu64
				", \"losses\": %" PRIu64 "}", i ? ", " : "", c->t[i].pid,
				c->t[i].tid, c->t[i].insns, c->t[i].blocks, c->t[i].losses);
		fputs("]", in->out);
		return;
	}
	for (i = 0; i < c->n; i++)
		fprintf(in->out, "    %-4s tid %-6" PRIu32 " %14" PRIu64 " %12" PRIu64
			" %7" PRIu64 "\n", "", c->t[i].tid, c->t[i].insns,
			c->t[i].blocks, c->t[i].losses);
	fprintf(in->out, "    %-4s %" PRIu64 " thread switches\n", "", st->switches);
}

/* --decode: per stream totals of the block-stream decoder, and per thread
 * for a per-CPU stream; jobs > 1 reads the chunks on a thread of their
 * own.  Returns 0, or -1 after an error message. */
static int print_decode(struct info *in, struct lsb_reader *r, const char *debug_dir,
			unsigned jobs)
{
	struct lsd_opts o = { .size = sizeof(o), .debug_dir = debug_dir, .jobs = jobs };
	char msg[600];
	struct lsd_callbacks cb = { .blocks = ct_marks, .spans = ct_span_marks };
	struct lsd_callbacks ccb = {
		.thread = ct_thread, .blocks = ct_blocks, .loss = ct_loss,
	};
	struct cpu_threads ct = { 0 };
	struct lsd_decoder *d;
	struct lsd_stream_stats t;
	size_t i;
	int err;

	cli_warn_missing_code(r, debug_dir);
	err = lsd_open_msg(&d, r, &o, msg, sizeof(msg));
	if (err < 0) {
		cli_error("cannot decode '%s': %s", lsb_reader_path(r),
			  err == -LS_EBUILDID || (err == -LS_EUNSUP && msg[0]) ? msg :
			  err == -LS_ECORRUPT || err == -LS_EIO || err == -LS_EZSTD ?
			  lsb_reader_errmsg(r) : ls_errstr(err));
		return -1;
	}
	memset(&t, 0, sizeof(t));
	ct.d = d;
	if (in->json)
		fputs(",\n  \"decode\": [", in->out);
	else
		fprintf(in->out, "\ndecode:\n  %-6s %-10s %14s %12s %7s %12s %12s\n",
			"id", "tid/cpu", "instructions", "blocks", "losses",
			"lost bytes", "lost insns");
	for (i = 0; i < lsb_reader_nstreams(r); i++) {
		const struct lsb_stream *s = lsb_reader_stream(r, i);
		int cpu = s->kind == LSB_STREAM_CPU;
		struct lsd_stream_stats st;
		char who[32];

		memset(&st, 0, sizeof(st));
		ct.n = 0;
		ct.cur = 0;
		err = lsd_decode_stream(d, i, cpu ? &ccb : &cb, &ct, &st);
		if (err < 0) {
			free(ct.t);
			free(ct.seen);
			if (in->json)
				fputs("\n  ]", in->out);
			cli_error("cannot decode stream %" PRIu32 " of '%s': %s", s->id,
				  lsb_reader_path(r),
				  err == -LS_ECORRUPT || err == -LS_EIO || err == -LS_EZSTD ?
				  lsb_reader_errmsg(r) : ls_errstr(err));
			lsd_close(d);
			return -1;
		}
		t.insns += st.insns;
		t.blocks += st.blocks;
		t.losses += st.losses;
		t.lost_bytes += st.lost_bytes;
		t.lost_insns += st.lost_insns;
		t.fast_chunks += st.fast_chunks;
		t.libipt_chunks += st.libipt_chunks;
		t.read_ahead += st.read_ahead;
		t.kept += st.kept;
		if (in->json) {
			fprintf(in->out, "%s\n    {\"id\": %" PRIu32 ", \"%s\": %" PRId64
				", \"instructions\": %" PRIu64 ", \"blocks\": %" PRIu64
				", \"losses\": %" PRIu64 ", \"lost_bytes\": %" PRIu64
				", \"lost_instructions\": %" PRIu64, i ? "," : "",
				s->id, cpu ? "cpu" : "tid",
				cpu ? (int64_t)s->cpu : (int64_t)s->tid, st.insns,
				st.blocks, st.losses, st.lost_bytes, st.lost_insns);
			if (cpu)
				print_cpu_threads(in, &ct, &st);
			fputs("}", in->out);
			continue;
		}
		if (cpu)
			snprintf(who, sizeof(who), "cpu %" PRId32, s->cpu);
		else
			snprintf(who, sizeof(who), "%" PRIu32, s->tid);
		fprintf(in->out, "  %-6" PRIu32 " %-10s %14" PRIu64 " %12" PRIu64
			" %7" PRIu64 " %12" PRIu64 " %12" PRIu64 "\n", s->id, who,
			st.insns, st.blocks, st.losses, st.lost_bytes, st.lost_insns);
		if (cpu)
			print_cpu_threads(in, &ct, &st);
	}
	free(ct.t);
	for (i = 0; i < ct.capseen; i++)
		ct.nseen += ct.seen[i];
	free(ct.seen);
	if (in->json)
		fprintf(in->out, "\n  ],\n  \"static_blocks\": %zu,\n  \"fast_chunks\": %"
			PRIu64 ",\n  \"libipt_chunks\": %" PRIu64 ",\n  \"kept_chunks\": %"
			PRIu64 ",\n  \"read_ahead_chunks\": %" PRIu64 ",\n  \"bundle_heads\": %"
			PRIu64, ct.nseen, t.fast_chunks, t.libipt_chunks, t.kept, t.read_ahead,
			lsd_heads_from_bundle(d));
	else
		fprintf(in->out, "  %-6s %-10s %14" PRIu64 " %12" PRIu64 " %7" PRIu64
			" %12" PRIu64 " %12" PRIu64 "\n  static blocks: %zu executed\n"
			"  chunks: %" PRIu64 " by the fast path, %" PRIu64
			" by libipt's block decoder, %" PRIu64 " kept from the open's scan, %"
			PRIu64 " read ahead\n  heads of the packets: the bundle's for %" PRIu64
			" of %zu streams, the rest scanned\n", "total",
			"", t.insns, t.blocks, t.losses, t.lost_bytes, t.lost_insns,
			ct.nseen, t.fast_chunks, t.libipt_chunks, t.kept, t.read_ahead,
			lsd_heads_from_bundle(d), lsb_reader_nstreams(r));
	lsd_close(d);
	return 0;
}

int cmd_info(int argc, char **argv)
{
	const char *file = "loopscope.lsc";
	struct info in = { .out = stdout };
	struct lsb_reader *r;
	struct lsb_stats st;
	char damage[512] = "";
	int i, nfile = 0, ret = 0, decode = 0;
	const char *debug_dir = NULL;
	uint32_t jobs = cli_online_cpus();

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help"))
			return cli_usage(info_usage, 0);
		if (!strcmp(a, "--format=json")) {
			in.json = 1;
		} else if (!strcmp(a, "--format=text")) {
			in.json = 0;
		} else if (!strcmp(a, "--decode")) {
			decode = 1;
		} else if (!strncmp(a, "--debug-dir=", 12)) {
			debug_dir = a + 12;
		} else if (!strcmp(a, "--debug-dir") && i + 1 < argc) {
			debug_dir = argv[++i];
		} else if (!strncmp(a, "--jobs=", 7) || !strcmp(a, "--jobs") ||
			   !strncmp(a, "-j", 2)) {
			/* --jobs=N, --jobs N, -jN, -j N */
			const char *v = a[6] == '=' ? a + 7 : a[1] == 'j' && a[2] ? a + 2 :
					i + 1 < argc ? argv[++i] : "";

			if (cli_opt_u32("--jobs", v, 10, 1, 256, &jobs))
				return cli_usage(info_usage, 1);
		} else if (!strcmp(a, "--")) {
			if (i + 1 < argc) {
				file = argv[++i];
				nfile++;
			}
		} else if (a[0] == '-' && a[1]) {
			cli_error("unknown option '%s'", a);
			return cli_usage(info_usage, 1);
		} else {
			file = a;
			nfile++;
		}
	}
	if (nfile > 1) {
		cli_error("info takes one file");
		return cli_usage(info_usage, 1);
	}

	if (cli_open_bundle(file, &r))
		return 1;
	lsb_reader_stats(r, &st);
	/* Checksums first, so damage is reported once, by the first
	 * damaged section, whatever the walks below run into. */
	if (lsb_reader_verify(r) < 0 || st.damaged) {
		snprintf(damage, sizeof(damage), "%s", lsb_reader_errmsg(r));
		ret = 1;
	}
	print_header(&in, r, &st);
	lsb_reader_events(r, on_event, &in);
	lsb_reader_samples(r, on_sample, &in);
	lsb_reader_memacc(r, on_memacc, &in);
	lsb_reader_stats(r, &st);
	print_rest(&in, r, &st);
	/* A damaged bundle is not decoded: its error is the answer; nor one
	 * with no PT left (as analyze: zero blocks would look like a run) */
	if (decode && !ret && (cli_no_trace(r, file) || print_decode(&in, r, debug_dir, jobs)))
		ret = 1;
	if (in.json)
		fputs("\n}\n", in.out);
	if (in.fail) {
		cli_error("out of memory");
		ret = 1;
	}
	if (ret && damage[0])
		cli_error("%s", damage);
	if (ret && st.damaged)
		cli_error("%" PRIu64 " damaged section(s) were left out; re-record to get them back",
			  st.damaged);
	free(in.th);
	lsb_reader_close(r);
	return ret;
}
