/* profile_rdf.c - the loop profile reader's fields (profile_read.c and
 * the readers of the later records): numbers parsed strictly (digits
 * only, no overflow), indexes checked against what the file defined,
 * strings unescaped, keys unique; every failure names the file, the line
 * and the field. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/profile.h"
#include "formats/profile_int.h"
#include "ls_err.h"

int lsp_rd_bad(struct lsp_rd *r, int err, const char *what, const char *val)
{
	if (val)
		lsp_seterr(r->errmsg, r->errlen, "%s:%zu: %s '%.40s'", r->name,
			   r->line, what, val);
	else
		lsp_seterr(r->errmsg, r->errlen, "%s:%zu: %s", r->name, r->line, what);
	return err;
}

static uint64_t khash(const uint64_t *k)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	int i;

	for (i = 0; i < 4; i++) {
		h = (h ^ k[i]) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

/* Adds key k; returns 1 if it was new, 0 if present, -LS_ENOMEM. */
int lsp_rd_key(struct lsp_rd_keys *s, uint64_t t, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t k[4] = { t + 1, a, b, c };	/* t + 1: all-zero means empty */
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256, j;
		uint64_t (*nk)[4] = calloc(cap, sizeof(*nk));

		if (!nk)
			return -LS_ENOMEM;
		for (j = 0; j < s->cap; j++) {
			if (!s->k[j][0])
				continue;
			for (i = khash(s->k[j]) & (cap - 1); nk[i][0]; i = (i + 1) & (cap - 1))
				;
			memcpy(nk[i], s->k[j], sizeof(nk[i]));
		}
		free(s->k);
		s->k = nk;
		s->cap = cap;
	}
	for (i = khash(k) & (s->cap - 1); s->k[i][0]; i = (i + 1) & (s->cap - 1))
		if (!memcmp(s->k[i], k, sizeof(k)))
			return 0;
	memcpy(s->k[i], k, sizeof(k));
	s->n++;
	return 1;
}

int lsp_rd_u64(struct lsp_rd *r, int i, const char *what, uint64_t *out)
{
	const char *s = r->f[i];
	uint64_t v = 0;

	if (!*s)
		return lsp_rd_bad(r, -LS_ECORRUPT, "empty", what);
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return lsp_rd_bad(r, -LS_ECORRUPT, what, r->f[i]);
		v = 10 * v + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

int lsp_rd_u32(struct lsp_rd *r, int i, const char *what, uint32_t *out)
{
	uint64_t v = 0;	/* (set where no error; GCC cannot tell, inlined otherwise) */
	int err = lsp_rd_u64(r, i, what, &v);

	if (err)
		return err;
	if (v >= UINT32_MAX)	/* UINT32_MAX is LSP_NONE, written "-" */
		return lsp_rd_bad(r, -LS_ECORRUPT, what, r->f[i]);
	*out = (uint32_t)v;
	return 0;
}

int lsp_rd_hex(struct lsp_rd *r, int i, const char *what, uint64_t *out)
{
	const char *s = r->f[i];
	uint64_t v = 0;
	int n = 0;

	if (s[0] != '0' || s[1] != 'x' || !s[2])
		return lsp_rd_bad(r, -LS_ECORRUPT, what, s);
	for (s += 2; *s; s++, n++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' :
			*s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;

		if (d < 0 || n >= 16)
			return lsp_rd_bad(r, -LS_ECORRUPT, what, r->f[i]);
		v = 16 * v + (uint64_t)d;
	}
	*out = v;
	return 0;
}

/* An index below n, or "-" for LSP_NONE when none_ok. */
int lsp_rd_idx(struct lsp_rd *r, int i, const char *what, size_t n, int none_ok,
		   uint32_t *out)
{
	char msg[64];
	int err;

	if (!strcmp(r->f[i], "-") && none_ok) {
		*out = LSP_NONE;
		return 0;
	}
	snprintf(msg, sizeof(msg), "bad %s index", what);
	err = lsp_rd_u32(r, i, msg, out);
	if (err)
		return err;
	if (*out >= n)
		return lsp_rd_bad(r, -LS_ECORRUPT, msg, r->f[i]);
	return 0;
}

/* Undoes the writer's escapes in place. */
int lsp_rd_str(struct lsp_rd *r, int i, const char *what)
{
	char *s = r->f[i], *d = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*d++ = *s;
			continue;
		}
		s++;
		if (*s == '\\')
			*d++ = '\\';
		else if (*s == 't')
			*d++ = '\t';
		else if (*s == 'n')
			*d++ = '\n';
		else if (*s == 'r')
			*d++ = '\r';
		else if (*s == 'x' && s[1] && s[2]) {
			unsigned v;
			char hx[3] = { s[1], s[2], 0 };

			if (sscanf(hx, "%2x", &v) != 1 || !v || !strchr("0123456789abcdef", s[1]) ||
			    !strchr("0123456789abcdef", s[2]))
				return lsp_rd_bad(r, -LS_ECORRUPT, "bad escape in", what);
			*d++ = (char)v;
			s += 2;
		} else {
			return lsp_rd_bad(r, -LS_ECORRUPT, "bad escape in", what);
		}
	}
	*d = '\0';
	return 0;
}
