/* sbdump.c - the static blocks of a bundle with their execution counts,
 * from our decoder (decoder/decode.h):
 *   sbdump FILE.lsc            one line per static block executed in the
 *                              module whose path ends in the file's name
 *                              given by -m, or in every module:
 *     MODULE_OFFSET NINSN EXECS FIRST_EXIT
 *   then "streams S insn N blocks B losses L" for the whole-stream decode
 *   and "chunks insn N blocks B losses L" for chunk-by-chunk decoding.
 * "missing N" first when N executable mappings have no bytes.
 * -t prints "thread S pid P tid T" (the thread callback) and "stream S
 * insn N blocks B losses L" for each stream's whole decode.
 * -d DIR looks for modules the bundle only references in DIR too.
 * -B takes the blocks through the batch callback instead (same output).
 * -a also decodes with lsd_decode_all() (per-CPU streams side by side, in
 * time order) and prints "all insn N blocks B losses L", and with -t its
 * thread callbacks as "all-thread S pid P tid T", in the order they come.
 * Checks: executed static blocks never overlap (each instruction is in one).
 * Exit 1 if they do, if whole-stream and chunk decoding disagree, or (-a)
 * if lsd_decode_all() executes any static block another number of times. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode.h"
#include "ls_err.h"

struct acc {
	uint64_t *execs;
	uint8_t *exit0;
	size_t cap;
};

static int on_block(void *arg, size_t stream, const struct lsd_block *b)
{
	struct acc *a = arg;

	(void)stream;
	if (b->sb->id >= a->cap) {
		size_t ncap = (b->sb->id + 1) * 2;
		uint64_t *ne = realloc(a->execs, ncap * sizeof(*ne));
		uint8_t *nx;

		if (!ne)
			return -LS_ENOMEM;
		a->execs = ne;
		nx = realloc(a->exit0, ncap);
		if (!nx)
			return -LS_ENOMEM;
		a->exit0 = nx;
		memset(a->execs + a->cap, 0, (ncap - a->cap) * sizeof(*ne));
		memset(a->exit0 + a->cap, 0xff, ncap - a->cap);
		a->cap = ncap;
	}
	if (a->exit0[b->sb->id] == 0xff)
		a->exit0[b->sb->id] = b->exit;
	a->execs[b->sb->id]++;
	return 0;
}

/* -B: the same, a batch at a time. */
static int on_blocks(void *arg, size_t stream, const struct lsd_block *b, size_t n)
{
	size_t i;
	int err = 0;

	if (!n)
		return -LS_EINVAL;	/* batches are never empty */
	for (i = 0; i < n && !err; i++)
		err = on_block(arg, stream, &b[i]);
	return err;
}

/* -t: the thread of each stream, from the thread callback. */
static int on_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	(void)arg;
	printf("thread %zu pid %" PRIu32 " tid %" PRIu32 "\n", stream, pid, tid);
	return 0;
}

static int on_all_thread(void *arg, size_t stream, uint32_t pid, uint32_t tid)
{
	(void)arg;
	printf("all-thread %zu pid %" PRIu32 " tid %" PRIu32 "\n", stream, pid, tid);
	return 0;
}

static int cmp_start(const void *x, const void *y)
{
	const struct lsd_sblock *const *a = x, *const *b = y;

	/* By process first: each process has its own static blocks. */
	if ((*a)->pid != (*b)->pid)
		return (*a)->pid < (*b)->pid ? -1 : 1;
	return (*a)->start < (*b)->start ? -1 : (*a)->start > (*b)->start;
}

int main(int argc, char **argv)
{
	struct lsb_reader *r = NULL;
	struct lsd_decoder *d = NULL;
	struct lsd_callbacks cb = { .block = on_block };
	struct acc whole = { 0 }, chunks = { 0 }, all = { 0 };
	int doall = 0;
	const char *mod = NULL;
	int threads = 0;
	struct lsd_opts o = { .size = sizeof(o) };
	char msg[600];
	uint64_t wi = 0, wb = 0, wl = 0, ci = 0, cbk = 0, cl = 0;
	const struct lsd_sblock **sorted;
	size_t i, s, n;
	int err, bad = 0;

	while (argc >= 3 && (!strcmp(argv[1], "-t") || !strcmp(argv[1], "-B") ||
			     !strcmp(argv[1], "-a"))) {
		if (argv[1][1] == 'a') {
			doall = 1;
		} else if (argv[1][1] == 't') {
			threads = 1;
			cb.thread = on_thread;
		} else {
			cb.blocks = on_blocks;
		}
		argv++;
		argc--;
	}
	while (argc >= 4 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-m"))
			mod = argv[2];
		else if (!strcmp(argv[1], "-d"))
			o.debug_dir = argv[2];
		else
			break;
		argv += 2;
		argc -= 2;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: sbdump [-t] [-B] [-a] [-m MODULE_NAME] [-d DEBUG_DIR] FILE.lsc\n");
		return 2;
	}
	err = lsb_reader_open(&r, argv[1]);
	if (err < 0) {
		fprintf(stderr, "sbdump: %s\n", r ? lsb_reader_errmsg(r) : ls_errstr(err));
		lsb_reader_close(r);
		return 2;
	}
	err = lsd_open_msg(&d, r, &o, msg, sizeof(msg));
	if (err < 0) {
		fprintf(stderr, "sbdump: %s\n", msg);
		return 2;
	}
	if (lsd_missing_mappings(d))
		printf("missing %llu\n", (unsigned long long)lsd_missing_mappings(d));
	for (s = 0; s < lsb_reader_nstreams(r); s++) {
		struct lsd_stream_stats st;

		cb.thread = threads ? on_thread : NULL;
		err = lsd_decode_stream(d, s, &cb, &whole, &st);
		if (err < 0)
			return 2;
		wi += st.insns;
		wb += st.blocks;
		wl += st.losses;
		if (threads)
			printf("stream %zu insn %" PRIu64 " blocks %" PRIu64 " losses %" PRIu64 "\n",
			       s, st.insns, st.blocks, st.losses);
		cb.thread = NULL;	/* once per stream is enough to print */
		for (i = 0; i < lsb_reader_nchunks(r, s); i++) {
			err = lsd_decode_chunk(d, s, i, &cb, &chunks, &st);
			if (err < 0)
				return 2;
			ci += st.insns;
			cbk += st.blocks;
			cl += st.losses;
		}
	}
	if (doall) {
		struct lsd_stream_stats *st = calloc(lsb_reader_nstreams(r) + 1, sizeof(*st));
		uint64_t ai = 0, ab = 0, al = 0;

		cb.thread = threads ? on_all_thread : NULL;
		if (!st || lsd_decode_all(d, &cb, &all, st) < 0)
			return 2;
		for (s = 0; s < lsb_reader_nstreams(r); s++) {
			ai += st[s].insns;
			ab += st[s].blocks;
			al += st[s].losses;
		}
		printf("all insn %" PRIu64 " blocks %" PRIu64 " losses %" PRIu64 "\n", ai, ab, al);
		for (i = 0; i < lsd_nsblocks(d); i++)
			if ((i < whole.cap ? whole.execs[i] : 0) != (i < all.cap ? all.execs[i] : 0)) {
				fprintf(stderr, "block %zu: %" PRIu64 " times alone, %" PRIu64
					" in lsd_decode_all()\n", i, i < whole.cap ? whole.execs[i] : 0,
					i < all.cap ? all.execs[i] : 0);
				bad = 1;
			}
		free(st);
		free(all.execs);
		free(all.exit0);
	}
	/* The executed static blocks: the table may also hold a block that
	 * was split but never delivered (held back at a chunk's end). */
	sorted = calloc(lsd_nsblocks(d) + 1, sizeof(*sorted));
	if (!sorted)
		return 2;
	for (i = n = 0; i < lsd_nsblocks(d); i++)
		if ((i < whole.cap && whole.execs[i]) || (i < chunks.cap && chunks.execs[i]))
			sorted[n++] = lsd_sblock(d, i);
	qsort(sorted, n, sizeof(*sorted), cmp_start);
	for (i = 0; i < n; i++) {
		const struct lsd_sblock *sb = sorted[i];
		const struct lsb_module *m;
		const char *base;

		if (i + 1 < n && sb->pid == sorted[i + 1]->pid &&
		    sb->end > sorted[i + 1]->start) {
			fprintf(stderr, "overlap: [%#" PRIx64 ", %#" PRIx64 ") and %#" PRIx64 "\n",
				sb->start, sb->end, sorted[i + 1]->start);
			bad = 1;
		}
		if (sb->module < 0 || sb->id >= whole.cap || !whole.execs[sb->id])
			continue;
		m = lsb_reader_module(r, (size_t)sb->module);
		base = strrchr(m->path, '/');
		base = base ? base + 1 : m->path;
		if (mod && strcmp(base, mod))
			continue;
		printf("%#" PRIx64 " %u %" PRIu64 " %s\n", sb->mod_off, sb->ninsn,
		       whole.execs[sb->id], lsd_exit_name(whole.exit0[sb->id]));
	}
	printf("streams %zu insn %" PRIu64 " blocks %" PRIu64 " losses %" PRIu64 "\n",
	       lsb_reader_nstreams(r), wi, wb, wl);
	printf("chunks insn %" PRIu64 " blocks %" PRIu64 " losses %" PRIu64 "\n", ci, cbk, cl);
	if (wi != ci || wb != cbk)
		bad = 1;
	free(sorted);
	free(whole.execs);
	free(whole.exit0);
	free(chunks.execs);
	free(chunks.exit0);
	lsd_close(d);
	lsb_reader_close(r);
	return bad;
}
