/* prefetch.c - a stream's chunks read and decompressed on threads of
 * their own, ahead of the decode (struct lsd_opts.jobs > 1) or of open's
 * packet scan (lsd_opts.scan_jobs).
 *
 * Decoding reads each chunk of a stream in order (decode.c's run, open's
 * packet scan), and reading one is a pread and a zstd decompression:
 * about a tenth of a fast decode's time, and most of the scan's.  Here
 * one thread or more, each with a bundle reader of its own (a reader is
 * not thread-safe, and the caller keeps using its own), read the chunks
 * ahead, thread k of n taking chunks first + k, first + k + n, ...: the
 * chunks are compressed apart, so n threads decompress n at once.  A
 * chunk taken is handed over by swapping buffers, so memory stays at
 * PF_SLOTS chunks a thread, and the threads fewer where chunks are large
 * (PF_MEM).  Each thread opens its reader itself, off the caller's
 * thread.  Anything that does not go as planned (no thread, no second
 * reader, a chunk that does not read, chunks asked out of order) is read
 * again on the caller's own reader, which then gives the error and its
 * message exactly as without the threads.
 *
 * For open's scan of the heads (lsd_prefetch_start_scan()) a thread also
 * scans each chunk it reads for the IPs its packets name, into a set of
 * the slot's, which the caller merges into its own where it would have
 * scanned the chunk: the heads are a set, whatever the order (sqlite3's
 * scan, 9 ms of the calling thread at two jobs, beside the reading).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "ls_buf.h"
#include "ls_err.h"

/* Chunks read ahead by each thread: two keep it busy while one is
 * decoded. */
#define PF_SLOTS 2
/* The slots' memory at most, where chunks are large: as many threads as
 * fit, one at least (as one thread's two slots of the largest chunks
 * took before there were several). */
#define PF_MEM ((uint64_t)2 * LSB_MAX_CHUNK)

struct pf_slot {
	uint8_t *p;
	size_t cap;
	int64_t len;		/* bytes, or < 0: chunk unreadable here */
	int full;
	/* the heads its chunk names (scanned: ok), where the threads scan */
	struct lsd_addrset heads;
	int scanned;
};

struct lsd_prefetch;

struct pf_thread {
	struct lsd_prefetch *pf;
	pthread_t th;
	struct lsb_reader *r;	/* the thread's own */
	size_t first;		/* its first chunk; then every n-th */
	int started;
	struct pf_slot slot[PF_SLOTS];
};

struct lsd_prefetch {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *path;		/* the bundle's, for the threads' readers */
	size_t s, first, next, last;	/* stream; chunks [first, last]; the next to take */
	uint64_t taken;		/* chunks handed over */
	int stop;
	int scan;		/* the threads scan for heads too */
	/* the heads of the chunk taken last (the caller's), and which */
	struct lsd_addrset theads;
	size_t tc;
	int tscanned;
	unsigned n;		/* threads */
	struct pf_thread t[];
};

/* Chunk c of thread t's reader into slot sl.  Returns its length or a
 * negative LS_E* code. */
static int64_t pf_read(struct pf_thread *t, size_t c, struct pf_slot *sl)
{
	const struct lsb_chunk *ch = t->r ? lsb_reader_chunk(t->r, t->pf->s, c) : NULL;

	if (!ch || ch->raw_size > LSB_MAX_CHUNK)
		return -LS_ECORRUPT;
	/* (a kept chunk's slot gets a new buffer each time) */
	if (ls_fresh(&sl->p, &sl->cap, ch->raw_size) < 0)
		return -LS_ENOMEM;
	return lsb_reader_read_chunk(t->r, ch, sl->p, sl->cap);
}

/* The slot chunk c goes to: its thread's, in turn. */
static struct pf_slot *pf_slot(struct lsd_prefetch *pf, size_t c)
{
	size_t i = c - pf->first;

	return &pf->t[i % pf->n].slot[i / pf->n % PF_SLOTS];
}

static void *pf_main(void *arg)
{
	struct pf_thread *t = arg;
	struct lsd_prefetch *pf = t->pf;
	size_t c;

	/* (here, not on the caller's thread: a reader's open reads and
	 * inflates the bundle's index; where it fails, each of this
	 * thread's chunks is one the caller reads itself) */
	if (lsb_reader_open(&t->r, pf->path) < 0 || pf->s >= lsb_reader_nstreams(t->r)) {
		lsb_reader_close(t->r);
		t->r = NULL;
	}
	pthread_mutex_lock(&pf->mu);
	for (c = t->first; c <= pf->last && !pf->stop; c += pf->n) {
		struct pf_slot *sl = pf_slot(pf, c);
		int64_t len;

		while (sl->full && !pf->stop)
			pthread_cond_wait(&pf->cv, &pf->mu);
		if (pf->stop)
			break;
		/* The slot is the thread's until it is full. */
		pthread_mutex_unlock(&pf->mu);
		len = pf_read(t, c, sl);
		sl->scanned = 0;
		if (pf->scan && len > 0) {
			lsd_addrset_clear(&sl->heads);
			sl->scanned = lsd_heads_packets_into(&sl->heads, sl->p, (size_t)len) == 0;
		}
		pthread_mutex_lock(&pf->mu);
		sl->len = len;
		sl->full = 1;
		pthread_cond_broadcast(&pf->cv);
	}
	pthread_mutex_unlock(&pf->mu);
	return NULL;
}

static int start(struct lsd_prefetch **ppf, const struct lsb_reader *r, size_t s,
		 size_t first, size_t last, unsigned nthreads, int scan);

int lsd_prefetch_start(struct lsd_prefetch **ppf, const struct lsb_reader *r, size_t s,
		       size_t first, size_t last, unsigned nthreads)
{
	return start(ppf, r, s, first, last, nthreads, 0);
}

int lsd_prefetch_start_scan(struct lsd_prefetch **ppf, const struct lsb_reader *r, size_t s,
			    size_t first, size_t last, unsigned nthreads)
{
	return start(ppf, r, s, first, last, nthreads, 1);
}

static int start(struct lsd_prefetch **ppf, const struct lsb_reader *r, size_t s,
		 size_t first, size_t last, unsigned nthreads, int scan)
{
	struct lsd_prefetch *pf;
	uint64_t big = 1, per;
	size_t n, c;
	unsigned k;

	*ppf = NULL;
	if (!r || !lsb_reader_path(r) || s >= lsb_reader_nstreams(r) || !nthreads)
		return -LS_EINVAL;
	n = lsb_reader_nchunks(r, s);
	if (last >= n)
		last = n ? n - 1 : 0;
	if (first >= last)
		return -LS_EINVAL;
	/* No more threads than chunks, nor slots than PF_MEM holds. */
	for (c = first; c <= last; c++) {
		const struct lsb_chunk *ch = lsb_reader_chunk(r, s, c);

		if (ch && ch->raw_size > big)
			big = ch->raw_size;
	}
	per = PF_MEM / (PF_SLOTS * big);
	if (nthreads > last - first + 1)
		nthreads = (unsigned)(last - first + 1);
	if (nthreads > per)
		nthreads = per ? (unsigned)per : 1;
	if (!(pf = calloc(1, sizeof(*pf) + nthreads * sizeof(pf->t[0]))))
		return -LS_ENOMEM;
	if (!(pf->path = strdup(lsb_reader_path(r)))) {
		free(pf);
		return -LS_ENOMEM;
	}
	pf->n = nthreads;
	pf->scan = scan;
	pf->tc = SIZE_MAX;
	pf->s = s;
	pf->first = pf->next = first;
	pf->last = last;
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->cv, NULL);
	for (k = 0; k < pf->n; k++) {
		pf->t[k].pf = pf;
		pf->t[k].first = first + k;
		if (pthread_create(&pf->t[k].th, NULL, pf_main, &pf->t[k]))
			break;
		pf->t[k].started = 1;
	}
	if (k < pf->n) {	/* the chunks must all come: none or all */
		lsd_prefetch_stop(pf);
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
	sl = pf_slot(pf, c);
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
		/* (its heads too: the slot gets the set taken before) */
		if (pf->scan) {
			struct lsd_addrset h = pf->theads;

			pf->theads = sl->heads;
			sl->heads = h;
			pf->tc = c;
			pf->tscanned = sl->scanned;
		}
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
	unsigned k;
	size_t i;

	if (!pf)
		return 0;
	pthread_mutex_lock(&pf->mu);
	pf->stop = 1;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	for (k = 0; k < pf->n; k++) {
		if (pf->t[k].started)
			pthread_join(pf->t[k].th, NULL);
		for (i = 0; i < PF_SLOTS; i++) {
			free(pf->t[k].slot[i].p);
			lsd_addrset_release(&pf->t[k].slot[i].heads);
		}
		lsb_reader_close(pf->t[k].r);
	}
	pthread_cond_destroy(&pf->cv);
	pthread_mutex_destroy(&pf->mu);
	taken = pf->taken;
	lsd_addrset_release(&pf->theads);
	free(pf->path);
	free(pf);
	return taken;
}

int lsd_prefetch_heads(struct lsd_prefetch *pf, size_t c, struct lsd_addrset *set)
{
	int err;

	if (!pf || !pf->scan || pf->tc != c || !pf->tscanned)
		return 0;
	pf->tscanned = 0;
	err = lsd_addrset_merge(set, &pf->theads);
	return err < 0 ? err : 1;
}

unsigned lsd_prefetch_threads(const struct lsd_prefetch *pf)
{
	return pf ? pf->n : 0;
}
