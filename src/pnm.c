/*
 * pnm.c - the header of a binary Netpbm image: "P5" (PGM, one channel) or
 * "P6" (PPM, three channels), then width, height and maxval as decimal
 * tokens separated by white space and '#' comments (to the end of the
 * line), then exactly one white-space byte. maxval <= 255 means one byte
 * per sample, else two, big-endian.
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
	if (n >= 2 && p[1] != '5' && p[1] != '6')
		return 0;
	if (n >= 3)
		return pnm_space(p[2]);
	return -1;
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
		return fmt_fail(h, 0, "not a binary pgm or ppm header");
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
	channels = p[1] == '6' ? 3 : 1;
	bytes = v[2] > 255 ? 2 : 1;
	/* width * height cannot overflow: both are below 2^32 */
	if (__builtin_mul_overflow(v[0] * v[1], channels * bytes, &h->payload))
		return fmt_fail(h, at[0], "image too large");
	h->len = i + 1;
	h->columns = (unsigned)channels;
	h->dtype.type = bytes == 2 ? GS_U16 : GS_U8;
	h->dtype.big_endian = bytes == 2;
	return 1;
}
