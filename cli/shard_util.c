/* shard_util.c - a bundle's identity and its shards, for `analyze --shard`
 * and the provenance merge checks (formats/profile.md, part records).
 *
 * A shard is a set of whole threads: the streams of one thread all go to
 * one shard, since the detector follows a thread's frames across its
 * streams.  Per-CPU streams hold several threads whose runs cross streams,
 * so such a bundle is one shard.  Cutting one thread's stream at PSB
 * chunks would need the loop detector's state stitched across the cut,
 * which nothing provides yet.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "formats/bundle.h"
#include "ls_crc32.h"

#define ID_SPAN 65536		/* bytes hashed at each end of the file */

/* CRC of len bytes of f at off; 0 and errno set on a read error. */
static int crc_at(FILE *f, uint64_t off, size_t len, uint32_t *crc)
{
	static char buf[ID_SPAN];

	if (fseeko(f, (off_t)off, SEEK_SET) || fread(buf, 1, len, f) != len)
		return -1;
	*crc = ls_crc32(0, buf, len);
	return 0;
}

int cli_bundle_id(const char *path, char *id, size_t len)
{
	uint32_t head = 0, tail = 0;
	struct stat st;
	uint64_t size;
	size_t span;
	FILE *f;

	/* The file's size and the CRCs of its first and last 64 KB: the
	 * header, and the index whose entries carry every section's CRC,
	 * so reading a large bundle whole is not needed to tell it apart. */
	f = fopen(path, "rb");
	if (!f || fstat(fileno(f), &st)) {
		cli_error("cannot read '%s': %s", path, strerror(errno));
		if (f)
			fclose(f);
		return 1;
	}
	size = (uint64_t)st.st_size;
	span = size < ID_SPAN ? (size_t)size : ID_SPAN;
	if (crc_at(f, 0, span, &head) || crc_at(f, size - span, span, &tail)) {
		cli_error("cannot read '%s': %s", path,
			  ferror(f) ? strerror(errno) : "file changed while read");
		fclose(f);
		return 1;
	}
	fclose(f);
	snprintf(id, len, "%" PRIu64 "-%08" PRIx32 "-%08" PRIx32, size, head, tail);
	return 0;
}

/* The thread groups of r: group[i] for stream i, from 0 in the order
 * their first streams come; bytes[g] the stored bytes of group g.
 * Returns the number of groups, 0 when a stream is per-CPU, -1 when out
 * of memory. */
static long thread_groups(struct lsb_reader *r, size_t *group, uint64_t *bytes)
{
	size_t n = lsb_reader_nstreams(r), i, k, c;
	long ng = 0;

	for (i = 0; i < n; i++) {
		const struct lsb_stream *s = lsb_reader_stream(r, i);

		if (!s || s->kind != LSB_STREAM_THREAD)
			return 0;
		for (k = 0; k < i; k++) {
			const struct lsb_stream *t = lsb_reader_stream(r, k);

			if (t->pid == s->pid && t->tid == s->tid)
				break;
		}
		group[i] = k < i ? group[k] : (size_t)ng++;
		if (k == i)
			bytes[group[i]] = 0;
		for (c = 0; c < lsb_reader_nchunks(r, i); c++)
			bytes[group[i]] += lsb_reader_chunk(r, i, c)->stored_size;
	}
	return ng;
}

int cli_shard_plan(struct lsb_reader *r, uint32_t want)
{
	size_t n = lsb_reader_nstreams(r);
	size_t *group = malloc((n + 1) * sizeof(*group));
	uint64_t *bytes = malloc((n + 1) * sizeof(*bytes));
	long ng;

	if (!group || !bytes) {
		free(group);
		free(bytes);
		return -1;
	}
	ng = thread_groups(r, group, bytes);
	free(group);
	free(bytes);
	if (ng < 0)
		return -1;
	if (ng == 0)
		return 1;
	return (uint32_t)ng < want ? (int)ng : (int)want;
}

int cli_shard_streams(struct lsb_reader *r, const char *path, uint32_t k,
		      uint32_t nshards, uint8_t **mask)
{
	size_t n = lsb_reader_nstreams(r), i, g;
	size_t *group = malloc((n + 1) * sizeof(*group));
	uint64_t *bytes = malloc((n + 1) * sizeof(*bytes)), *load = NULL;
	uint32_t *owner = NULL;
	long ng;
	int ret = 1;

	*mask = NULL;
	if (nshards <= 1) {	/* the whole bundle */
		free(group);
		free(bytes);
		return 0;
	}
	if (!group || !bytes)
		goto nomem;
	ng = thread_groups(r, group, bytes);
	if (ng == 0 && nshards > 1) {
		cli_error("'%s' has per-CPU streams, whose threads cross streams: "
			  "it is analyzed whole (--shard=0/1)", path);
		goto out;
	}
	owner = malloc(((size_t)ng + 1) * sizeof(*owner));
	load = calloc(nshards, sizeof(*load));
	*mask = calloc(n + 1, 1);
	if (!owner || !load || !*mask)
		goto nomem;
	/* Each thread, largest first (ties: the earlier), to the shard with
	 * the fewest bytes so far (ties: the lowest): the same plan on every
	 * machine, the shards' sizes balanced. */
	for (g = 0; g < (size_t)ng; g++)
		owner[g] = UINT32_MAX;
	for (;;) {
		size_t best = SIZE_MAX;
		uint32_t s, to = 0;

		for (g = 0; g < (size_t)ng; g++)
			if (owner[g] == UINT32_MAX && (best == SIZE_MAX || bytes[g] > bytes[best]))
				best = g;
		if (best == SIZE_MAX)
			break;
		for (s = 1; s < nshards; s++)
			if (load[s] < load[to])
				to = s;
		owner[best] = to;
		load[to] += bytes[best];
	}
	for (i = 0; i < n; i++)
		(*mask)[i] = ng > 0 && owner[group[i]] == k;
	ret = 0;
	goto out;
nomem:
	cli_error("out of memory");
out:
	if (ret) {
		free(*mask);
		*mask = NULL;
	}
	free(group);
	free(bytes);
	free(owner);
	free(load);
	return ret;
}
