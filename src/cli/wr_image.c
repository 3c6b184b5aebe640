/*
 * wr_image.c - pgm and png (writer.h): a result's image of grey levels,
 * 8 or 16 bits a sample (the result's bits; by default 16 for pgm, 8 for
 * png). Samples of 16 bits are two bytes, most significant first, as both
 * formats say.
 *
 * pgm is Netpbm's binary P5 (maxval 255 or 65535). png is grey (colour
 * type 0), one IDAT of the rows (each after filter byte 0, none)
 * compressed by zlib, every chunk with its CRC-32 (zlib's crc32, the
 * polynomial PNG names): no libpng, as zlib is linked already for gzip.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "writer.h"

static int no_image(const struct cli *c, struct gs_err *err)
{
	return gs_fail(err, GS_EUSAGE, c->cmd, "its result is no image: "
		       "-f %s is for hist2d", format_name(c->format));
}

/* Bytes a sample: r's bits, or the format's own (2 for pgm, 1 for png). */
static unsigned sample_bytes(const struct wresult *r, unsigned own)
{
	return r->bits ? r->bits / 8 : own;
}

/* Row y's samples into p, each of n bytes, big-endian; the end of them. */
static unsigned char *put_row(const struct wresult *r, uint64_t y,
			      unsigned n, unsigned char *p)
{
	unsigned maxval = n == 2 ? 65535 : 255;

	for (uint64_t x = 0; x < r->width; x++) {
		unsigned v = r->pixel(r->ctx, y, x, maxval);

		if (n == 2)
			*p++ = (unsigned char)(v >> 8);
		*p++ = (unsigned char)v;
	}
	return p;
}

static int pgm_put(const struct cli *c, const struct wresult *r,
		   struct sbuf *b, struct gs_err *err)
{
	unsigned n = sample_bytes(r, 2);
	unsigned char *line;

	if (!r->pixel)
		return no_image(c, err);
	line = malloc(r->width ? r->width * n : 1);
	if (!line)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory for the image");
	sb_addf(b, "P5\n%llu %llu\n%u\n", (unsigned long long)r->width,
		(unsigned long long)r->height, n == 2 ? 65535 : 255);
	for (uint64_t y = 0; y < r->height; y++)
		sb_addn(b, line, (size_t)(put_row(r, y, n, line) - line));
	free(line);
	return b->oom ? gs_fail(err, GS_ERUNTIME, "", "out of memory") : 0;
}

static void be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* One chunk: length, type, data, and the CRC of type and data. */
static void png_chunk(struct sbuf *b, const char *type, const void *data,
		      uint32_t n)
{
	unsigned char w[4];
	uLong crc = crc32(0L, (const Bytef *)type, 4);

	be32(w, n);
	sb_addn(b, w, 4);
	sb_addn(b, type, 4);
	if (n) {	/* IEND has no data, and no pointer to it */
		crc = crc32(crc, data, n);
		sb_addn(b, data, n);
	}
	be32(w, (uint32_t)crc);
	sb_addn(b, w, 4);
}

/* The rows of n-byte samples, each after its filter byte (0: none),
 * into raw. */
static void png_rows(const struct wresult *r, unsigned n, unsigned char *raw)
{
	for (uint64_t y = 0; y < r->height; y++) {
		*raw++ = 0;
		raw = put_row(r, y, n, raw);
	}
}

static int png_put(const struct cli *c, const struct wresult *r,
		   struct sbuf *b, struct gs_err *err)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
					      0x1a, '\n' };
	unsigned char ihdr[13];
	unsigned char *raw, *z;
	uLongf zn;
	unsigned bytes = sample_bytes(r, 1);
	size_t n;
	int rc = 0;

	if (!r->pixel)
		return no_image(c, err);
	/* PNG's sizes are 31-bit; hist2d's bins stop far below */
	if (r->width > 0x7fffffff || r->height > 0x7fffffff)
		return gs_fail(err, GS_EUSAGE, c->cmd, "an image of %llux%llu "
			       "pixels is too big for PNG",
			       (unsigned long long)r->width,
			       (unsigned long long)r->height);
	n = (size_t)(r->width * bytes + 1) * r->height;
	zn = compressBound(n);
	raw = malloc(n);
	z = malloc(zn);
	if (!raw || !z) {
		free(raw);
		free(z);
		return gs_fail(err, GS_ERUNTIME, "", "out of memory for the image");
	}
	png_rows(r, bytes, raw);
	if (compress2(z, &zn, raw, n, Z_DEFAULT_COMPRESSION) != Z_OK) {
		rc = gs_fail(err, GS_ERUNTIME, c->cmd, "zlib failed to compress "
			     "the image");
	} else {
		be32(ihdr, (uint32_t)r->width);
		be32(ihdr + 4, (uint32_t)r->height);
		ihdr[8] = (unsigned char)(8 * bytes);	/* bits per sample */
		ihdr[9] = 0;	/* grey */
		ihdr[10] = ihdr[11] = ihdr[12] = 0;	/* deflate, filter 0, no interlace */
		sb_addn(b, sig, sizeof(sig));
		png_chunk(b, "IHDR", ihdr, sizeof(ihdr));
		png_chunk(b, "IDAT", z, (uint32_t)zn);
		png_chunk(b, "IEND", NULL, 0);
		if (b->oom)
			rc = gs_fail(err, GS_ERUNTIME, "", "out of memory");
	}
	free(raw);
	free(z);
	return rc;
}

/* --per-file: one image per operand would make no one file */
static int image_join(struct wjoin *j, struct gs_err *err)
{
	return gs_fail(err, GS_EUSAGE, j->c->cmd, "-f %s writes one image, "
		       "not --per-file's", format_name(j->c->format));
}

const struct wformat wr_pgm = { .put = pgm_put, .start = image_join };
const struct wformat wr_png = { .put = png_put, .start = image_join };
