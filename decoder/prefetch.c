/* prefetch.c - a stream's chunks read and decompressed on a thread of
 * their own, ahead of the decode (struct lsd_opts.jobs > 1).
 *
 * Decoding reads each chunk of a stream in order (decode.c's run, open's
 * packet scan), and reading one is a pread and a zstd decompression:
 * about a tenth of a fast decode's time, on the decoding thread.  Here a
 * second thread, with a bundle reader of its own (a reader is not
 * thread-safe, and the decoding thread keeps using its own), reads chunk
 * c + 1 and c + 2 while chunk c is decoded.  A chunk taken is handed over
 * by swapping buffers, so memory stays at PF_SLOTS chunks.  Anything
 * that does not go as planned (no thread, no second reader, a chunk that
 * does not read, chunks asked out of order) is read again on the caller's
 * own reader, which then gives the error and its message exactly as
 * without the thread.
 */
#include <pthread.h>
#include <stdlib.h>

#include "decoder/decode_int.h"
#include "ls_err.h"

/* Chunks read ahead: two keep the thread busy while one is decoded. */
#define PF_SLOTS 2

struct pf_slot {
	uint8_t *p;
	size_t cap;
	int64_t len;		/* bytes, or < 0: chunk unreadable here */
	int full;
};

struct lsd_prefetch {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct lsb_reader *r;	/* the thread's own */
	size_t s, next, last;	/* stream; the next chunk to take; the last */
	uint64_t taken;		/* chunks handed over */
	int stop;
	struct pf_slot slot[PF_SLOTS];
};

/* Chunk c of the thread's reader into slot sl.  Returns its length or a
 * negative LS_E* code. */
static int64_t pf_read(struct lsd_prefetch *pf, size_t c, struct pf_slot *sl)
{
	const struct lsb_chunk *ch = lsb_reader_chunk(pf->r, pf->s, c);

	if (!ch || ch->raw_size > LSB_MAX_CHUNK)
		return -LS_ECORRUPT;
	if (sl->cap < ch->raw_size) {
		void *p = realloc(sl->p, ch->raw_size ? ch->raw_size : 1);

		if (!p)
			return -LS_ENOMEM;
		sl->p = p;
		sl->cap = ch->raw_size;
	}
	return lsb_reader_read_chunk(pf->r, ch, sl->p, sl->cap);
}

static void *pf_main(void *arg)
{
	struct lsd_prefetch *pf = arg;
	size_t c;

	pthread_mutex_lock(&pf->mu);
	for (c = pf->next; c <= pf->last && !pf->stop; c++) {
		struct pf_slot *sl = &pf->slot[c % PF_SLOTS];
		int64_t len;

		while (sl->full && !pf->stop)
			pthread_cond_wait(&pf->cv, &pf->mu);
		if (pf->stop)
			break;
		/* The slot is the thread's until it is full. */
		pthread_mutex_unlock(&pf->mu);
		len = pf_read(pf, c, sl);
		pthread_mutex_lock(&pf->mu);
		sl->len = len;
		sl->full = 1;
		pthread_cond_broadcast(&pf->cv);
	}
	pthread_mutex_unlock(&pf->mu);
	return NULL;
}

int lsd_prefetch_start(struct lsd_prefetch **ppf, const char *path, size_t s,
		       size_t first, size_t last)
{
	struct lsd_prefetch *pf;

	size_t n;

	*ppf = NULL;
	if (!path)
		return -LS_EINVAL;
	if (!(pf = calloc(1, sizeof(*pf))))
		return -LS_ENOMEM;
	if (lsb_reader_open(&pf->r, path) < 0 ||
	    s >= lsb_reader_nstreams(pf->r)) {
		lsb_reader_close(pf->r);
		free(pf);
		return -LS_EIO;
	}
	n = lsb_reader_nchunks(pf->r, s);
	if (last >= n)
		last = n ? n - 1 : 0;
	if (first >= last) {
		lsb_reader_close(pf->r);
		free(pf);
		return -LS_EINVAL;
	}
	pf->s = s;
	pf->next = first;
	pf->last = last;
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->cv, NULL);
	if (pthread_create(&pf->th, NULL, pf_main, pf)) {
		pthread_cond_destroy(&pf->cv);
		pthread_mutex_destroy(&pf->mu);
		lsb_reader_close(pf->r);
		free(pf);
		return -LS_ENOMEM;
	}
	*ppf = pf;
	return 0;
}

int64_t lsd_prefetch_take(struct lsd_prefetch *pf, size_t s, size_t c,
			  uint8_t **p, size_t *cap)
{
	struct pf_slot *sl;
	int64_t len;

	if (!pf || s != pf->s || c != pf->next || c > pf->last)
		return LSD_PF_MISS;
	sl = &pf->slot[c % PF_SLOTS];
	pthread_mutex_lock(&pf->mu);
	while (!sl->full)
		pthread_cond_wait(&pf->cv, &pf->mu);
	len = sl->len;
	if (len >= 0) {
		uint8_t *tp = *p;
		size_t tc = *cap;

		*p = sl->p;
		*cap = sl->cap;
		sl->p = tp;
		sl->cap = tc;
		pf->taken++;
	}
	sl->full = 0;
	pf->next++;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	return len >= 0 ? len : LSD_PF_MISS;
}

uint64_t lsd_prefetch_stop(struct lsd_prefetch *pf)
{
	uint64_t taken;
	size_t i;

	if (!pf)
		return 0;
	pthread_mutex_lock(&pf->mu);
	pf->stop = 1;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	pthread_join(pf->th, NULL);
	pthread_cond_destroy(&pf->cv);
	pthread_mutex_destroy(&pf->mu);
	for (i = 0; i < PF_SLOTS; i++)
		free(pf->slot[i].p);
	lsb_reader_close(pf->r);
	taken = pf->taken;
	free(pf);
	return taken;
}
