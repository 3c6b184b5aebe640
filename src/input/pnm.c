/*
 * pnm.c - Netpbm graymaps and pixmaps: "P5" (PGM, one channel) or "P6"
 * (PPM, three channels), then width, height and maxval as decimal tokens
 * separated by white space and '#' comments (to the end of the line), then
 * exactly one white-space byte. maxval <= 255 means one byte per sample,
 * else two, big-endian. The plain forms "P2" and "P3" have the same header
 * and then the samples as decimal text, separated by white space (netpbm's
 * reader skips comments there too); a plain file holds one image.
 */
#include "fmthdr.h"

/* Largest width, height or maxval token read; keeps products in range. */
#define PNM_DIM_MAX 0xffffffffu

bool pnm_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	       c == '\r';
}

int pnm_magic(const uint8_t *p, size_t n)
{
	if (n >= 1 && p[0] != 'P')
		return 0;
	if (n >= 2 && p[1] != '2' && p[1] != '3' && p[1] != '5' && p[1] != '6')
		return 0;
	if (n >= 3)
		return pnm_space(p[2]);
	return -1;
}

/* The graymaps (P2, P5: one channel) and the pixmaps (P3, P6: three) as
 * the two formats of one family: pnm_magic for one kind alone. */
int pgm_magic(const uint8_t *p, size_t n)
{
	return n >= 2 && (p[1] == '3' || p[1] == '6') ? 0 : pnm_magic(p, n);
}

int ppm_magic(const uint8_t *p, size_t n)
{
	return n >= 2 && (p[1] == '2' || p[1] == '5') ? 0 : pnm_magic(p, n);
}

/* Skip white space and comments up to the next token. Returns 1 at a
 * token, 0 when the bytes run out first, -1 when nothing separates the
 * token from what came before. */
static int pnm_gap(const uint8_t *p, size_t n, size_t *i, struct fmt_header *h)
{
	size_t start = *i;

	while (*i < n) {
		if (p[*i] == '#') {
			while (*i < n && p[*i] != '\n' && p[*i] != '\r')
				(*i)++;
		} else if (pnm_space(p[*i])) {
			(*i)++;
		} else if (*i == start) {
			return fmt_fail(h, *i, "expected white space");
		} else {
			return 1;
		}
	}
	return 0;
}

/* A decimal token; 0 when it may continue past the bytes given. */
static int pnm_number(const uint8_t *p, size_t n, size_t *i, uint64_t *v,
		      struct fmt_header *h)
{
	size_t start = *i;

	*v = 0;
	while (*i < n && p[*i] >= '0' && p[*i] <= '9') {
		*v = *v * 10 + (p[*i] - '0');
		if (*v > PNM_DIM_MAX)
			return fmt_fail(h, start, "number too large");
		(*i)++;
	}
	if (*i == n)
		return 0;
	if (*i == start)
		return fmt_fail(h, start, "expected a number");
	return 1;
}

static int pnm_check(const uint64_t v[3], const size_t at[3],
		     struct fmt_header *h)
{
	if (v[0] == 0)
		return fmt_fail(h, at[0], "width is 0");
	if (v[1] == 0)
		return fmt_fail(h, at[1], "height is 0");
	if (v[2] < 1 || v[2] > 65535)
		return fmt_fail(h, at[2], "maxval %llu is not in 1..65535",
				(unsigned long long)v[2]);
	return 0;
}

int pnm_parse(const uint8_t *p, size_t n, struct fmt_header *h)
{
	uint64_t v[3], channels, bytes;
	size_t i = 2, at[3];
	int k, r;

	if (n < 3)
		return 0;
	if (pnm_magic(p, n) != 1)
		return fmt_fail(h, 0, "not a pgm or ppm header");
	for (k = 0; k < 3; k++) {
		if ((r = pnm_gap(p, n, &i, h)) <= 0)
			return r;
		at[k] = i;
		if ((r = pnm_number(p, n, &i, &v[k], h)) <= 0)
			return r;
	}
	if (!pnm_space(p[i]))
		return fmt_fail(h, i, "expected one white-space byte after maxval");
	if (pnm_check(v, at, h) < 0)
		return -1;
	channels = p[1] == '3' || p[1] == '6' ? 3 : 1;
	bytes = v[2] > 255 ? 2 : 1;
	/* width * height cannot overflow: both are below 2^32 */
	if (__builtin_mul_overflow(v[0] * v[1], channels * bytes, &h->payload))
		return fmt_fail(h, at[0], "image too large");
	h->len = i + 1;
	h->maxval = (unsigned)v[2];
	h->plain = p[1] == '2' || p[1] == '3';
	h->columns = (unsigned)channels;
	h->dtype.type = bytes == 2 ? GS_U16 : GS_U8;
	h->dtype.big_endian = bytes == 2;
	return 1;
}

/* ---- plain raster ------------------------------------------------------- */

void pnm_text_start(struct pnm_text *t, const struct fmt_header *h,
		    uint64_t off)
{
	*t = (struct pnm_text){ .off = off };
	t->left = h->payload / (h->maxval > 255 ? 2 : 1);
}

/* The number that just ended: one more sample, or one too many. */
static int text_sample(struct pnm_text *t, uint8_t *out, size_t *made,
		       struct fmt_header *h)
{
	t->in_num = false;
	if (t->left == 0) {
		t->extra++;
		return 0;
	}
	if (t->v > h->maxval)
		return fmt_fail(h, t->tok, "sample %s%u at byte %llu is above maxval %u",
				t->v > 65535 ? "over " : "",
				t->v > 65535 ? 65535 : t->v,
				(unsigned long long)t->tok, h->maxval);
	if (h->maxval > 255)
		out[(*made)++] = (uint8_t)(t->v >> 8);
	out[(*made)++] = (uint8_t)t->v;
	t->left--;
	return 0;
}

/* The text has ended: every sample there, and none more. */
static int text_end(struct pnm_text *t, struct fmt_header *h)
{
	uint64_t want = h->payload / (h->maxval > 255 ? 2 : 1);

	if (t->left || t->extra)
		return fmt_fail(h, t->off, "header says %llu samples, file has %llu",
				(unsigned long long)want,
				(unsigned long long)(want - t->left + t->extra));
	return 1;
}

int pnm_text_run(struct pnm_text *t, const uint8_t *p, size_t n, bool end,
		 uint8_t *out, size_t cap, size_t *used, size_t *made,
		 struct fmt_header *h)
{
	size_t bytes = h->maxval > 255 ? 2 : 1, i;
	/* a sample is taken only with room for it in out */
	bool room;

	*made = 0;
	for (i = 0; i < n; i++, t->off++) {
		uint8_t c = p[i];

		if (t->in_comment) {
			t->in_comment = c != '\n' && c != '\r';
		} else if (c >= '0' && c <= '9') {
			if (!t->in_num)
				t->tok = t->off, t->v = 0;
			t->in_num = true;
			t->v = t->v > 65535 ? t->v : t->v * 10 + (c - '0');
		} else if (!pnm_space(c) && c != '#') {
			*used = i;
			return fmt_fail(h, t->off, "expected a decimal sample at byte %llu",
					(unsigned long long)t->off);
		} else {
			room = !t->left || cap - *made >= bytes;
			if (t->in_num && !room)
				break;
			if (t->in_num && text_sample(t, out, made, h) < 0) {
				*used = i;
				return -1;
			}
			t->in_comment = c == '#';
		}
	}
	*used = i;
	if (i < n || !end)
		return 0;
	room = !t->left || cap - *made >= bytes;
	if (t->in_num && !room)
		return 0;
	if (t->in_num && text_sample(t, out, made, h) < 0)
		return -1;
	if (*made)	/* hand the samples out before any error at the end */
		return 0;
	return text_end(t, h);
}

/* ---- maxval of binary samples --------------------------------------------- */

uint64_t pnm_over_maxval(const struct fmt_header *h, uint64_t pos,
			 uint8_t *hi, const uint8_t *p, size_t n,
			 unsigned *val)
{
	size_t i;

	if (h->maxval <= 255) {
		for (i = 0; i < n; i++)
			if (p[i] > h->maxval) {
				*val = p[i];
				return pos + i;
			}
		return UINT64_MAX;
	}
	for (i = 0; i < n; i++, pos++) {
		if (pos % 2 == 0) {
			*hi = p[i];
			continue;
		}
		*val = (unsigned)*hi << 8 | p[i];
		if (*val > h->maxval)
			return pos - 1;
	}
	return UINT64_MAX;
}
