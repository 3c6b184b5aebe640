/*
 * wr_image.c - pgm and png (writer.h): a result's image of grey levels.
 *
 * pgm is Netpbm's binary P5 at 16 bits (maxval 65535, each sample two
 * bytes, most significant first, as the format says). png is 8-bit grey
 * (colour type 0), one IDAT of the rows (each after filter byte 0, none)
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

static int pgm_put(const struct cli *c, const struct wresult *r,
		   struct sbuf *b, struct gs_err *err)
{
	if (!r->pixel)
		return no_image(c, err);
	sb_addf(b, "P5\n%llu %llu\n65535\n", (unsigned long long)r->width,
		(unsigned long long)r->height);
	for (uint64_t y = 0; y < r->height; y++)
		for (uint64_t x = 0; x < r->width; x++) {
			unsigned v = r->pixel(r->ctx, y, x, 65535);
			unsigned char s[2] = { (unsigned char)(v >> 8),
					       (unsigned char)v };

			sb_addn(b, s, 2);
		}
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

/* The rows, each after its filter byte (0: none), into raw; its size. */
static size_t png_rows(const struct wresult *r, unsigned char *raw)
{
	size_t k = 0;

	for (uint64_t y = 0; y < r->height; y++) {
		raw[k++] = 0;
		for (uint64_t x = 0; x < r->width; x++)
			raw[k++] = (unsigned char)r->pixel(r->ctx, y, x, 255);
	}
	return k;
}

static int png_put(const struct cli *c, const struct wresult *r,
		   struct sbuf *b, struct gs_err *err)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n',
					      0x1a, '\n' };
	unsigned char ihdr[13];
	unsigned char *raw, *z;
	uLongf zn;
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
	n = (size_t)(r->width + 1) * r->height;
	zn = compressBound(n);
	raw = malloc(n);
	z = malloc(zn);
	if (!raw || !z) {
		free(raw);
		free(z);
		return gs_fail(err, GS_ERUNTIME, "", "out of memory for the image");
	}
	png_rows(r, raw);
	if (compress2(z, &zn, raw, n, Z_DEFAULT_COMPRESSION) != Z_OK) {
		rc = gs_fail(err, GS_ERUNTIME, c->cmd, "zlib failed to compress "
			     "the image");
	} else {
		be32(ihdr, (uint32_t)r->width);
		be32(ihdr + 4, (uint32_t)r->height);
		ihdr[8] = 8;	/* bits per sample */
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
static int image_join(const struct cli *c, const struct sbuf *body,
		      const char *const *names, int n, struct sbuf *b,
		      struct gs_err *err)
{
	return gs_fail(err, GS_EUSAGE, c->cmd, "-f %s writes one image, not "
		       "--per-file's", format_name(c->format));
}

const struct wformat wr_pgm = { pgm_put, image_join };
const struct wformat wr_png = { png_put, image_join };
