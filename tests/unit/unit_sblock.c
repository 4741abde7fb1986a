/* unit_sblock.c - static blocks do not depend on the order in which block
 * heads are discovered or dynamic blocks are split (decoder/sblock.c).
 *
 * Code (hand-assembled, at 0x1000):
 *   0x1000  48 01 c0   add %rax,%rax
 *   0x1003  48 ff c1   inc %rcx          <- target of the jne below
 *   0x1006  48 39 d1   cmp %rdx,%rcx
 *   0x1009  75 f8      jne 0x1003
 *   0x100b  c3         ret
 * Dynamic blocks as libipt reports them for one run of the loop:
 *   D1 [0x1000 .. 0x1009] 4 insns (first pass, from the top)
 *   D2 [0x1003 .. 0x1009] 3 insns (after the jne is taken)
 *   D3 [0x100b .. 0x100b] 1 insn
 * Expected static blocks (by hand): [0x1000] 1 insn, [0x1003 .. 0x1009]
 * 3 insns, [0x100b] 1 insn, whatever the order.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder/decode_int.h"
#include "tap.h"

static uint8_t code[] = {
	0x48, 0x01, 0xc0, 0x48, 0xff, 0xc1, 0x48, 0x39, 0xd1, 0x75, 0xf8, 0xc3,
	0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
};

struct dynb { uint64_t start, last; uint32_t ninsn; };

static const struct dynb dyn[3] = {
	{ 0x1000, 0x1009, 4 }, { 0x1003, 0x1009, 3 }, { 0x100b, 0x100b, 1 },
};

static void setup(struct lsd_decoder *d, struct lsd_space *sp,
		  struct lsd_image *img, struct lsd_mapping *map,
		  struct lsd_module_bytes *mb)
{
	memset(d, 0, sizeof(*d));
	memset(sp, 0, sizeof(*sp));
	memset(img, 0, sizeof(*img));
	sp->img = img;
	d->sp = sp;
	mb->data = code;
	mb->len = sizeof(code);
	map->start = 0x1000;
	map->end = 0x1000 + sizeof(code);
	map->pgoff = 0;
	map->module = 0;
	img->maps = map;
	img->nmaps = 1;
	img->mods = mb;
	img->nmods = 1;
	if (lsd_cs_open_mode(&d->cs[LSD_MODE_64], LSD_CS_DETAIL, LSD_MODE_64) < 0)
		abort();
}

/* Runs both passes with the given orders; writes "start:ninsn:last" of the
 * static blocks sorted by start into out. */
static void run(const int *head_order, const int *split_order, char *out,
		size_t outlen)
{
	struct lsd_decoder d;
	struct lsd_space sp;
	struct lsd_image img;
	struct lsd_mapping map;
	struct lsd_module_bytes mb;
	struct lsd_sblock *const *ids;
	size_t i, j, n, pos = 0;

	setup(&d, &sp, &img, &map, &mb);
	for (i = 0; i < 3; i++)
		lsd_addrset_add(&sp.heads, dyn[head_order[i]].start);
	for (i = 0; i < 3; i++) {
		const struct dynb *b = &dyn[split_order[i]];

		lsd_split(&d, b->start, b->last, b->ninsn, &ids, NULL);
	}
	n = d.sbt.n;
	out[0] = '\0';
	for (j = 0x1000; j < 0x1010; j++) {
		for (i = 0; i < n; i++) {
			const struct lsd_sblock *sb = lsd_sb(&d, i);

			if (sb->start == j)
				pos += (size_t)snprintf(out + pos, outlen - pos, "%llx:%u:%llx ",
							(unsigned long long)sb->start, sb->ninsn,
							(unsigned long long)sb->last);
		}
	}
	lsd_sbtab_release(&d);
	lsd_space_release(&sp);
	lsd_cs.close(&d.cs[LSD_MODE_64]);
}

int main(void)
{
	static const int fwd[3] = { 0, 1, 2 }, rev[3] = { 2, 1, 0 }, mix[3] = { 1, 2, 0 };
	const char *want = "1000:1:1000 1003:3:1009 100b:1:100b ";
	char a[256], b[256], c[256];

	run(fwd, fwd, a, sizeof(a));
	run(rev, rev, b, sizeof(b));
	run(mix, fwd, c, sizeof(c));
	TAP_OK(!strcmp(a, want), "discovery order 1: static blocks as counted by hand (%s)", a);
	TAP_OK(!strcmp(b, want), "discovery order 2 (reversed): same static blocks (%s)", b);
	TAP_OK(!strcmp(c, want), "discovery order 3 (mixed): same static blocks (%s)", c);
	TAP_OK(!strcmp(a, b) && !strcmp(b, c), "all orders give identical tables");
	return TAP_DONE();
}
