/*
 * fmthdr.h - parsers of the headers that carry a type: .npy (npy.c) and
 * Netpbm P5/P6 and plain P2/P3 (pnm.c). Private to the input layer.
 *
 * Both work on bytes already in memory, so the stream (input.c) and the size
 * probe (which preads a file's first bytes) share them. A parser returns 1
 * with the header filled, 0 when it needs more bytes than it was given, or
 * -1 with msg/errpos saying what is wrong and where.
 */
#ifndef FMTHDR_H
#define FMTHDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gs.h"

/* Longest header we accept. numpy refuses headers over 10000 bytes by
 * default; Netpbm headers are short unless stuffed with comments. */
#define FMT_HEADER_MAX 16384

/* Most columns a header may give, as for -c: accumulators are per column. */
#define FMT_COLUMNS_MAX (1u << 20)

#define NPY_MAX_DIMS 64		/* numpy's NPY_MAXDIMS */

struct fmt_header {
	struct gs_dtype dtype;
	unsigned columns;	/* 0: the header says nothing about it */
	uint64_t payload;	/* data bytes the payload decodes to */
	size_t len;		/* header bytes, payload starts there */
	unsigned maxval;	/* pnm: largest sample allowed; 0: no limit */
	bool plain;		/* pnm P2/P3: the payload is decimal text */
	bool boolean;		/* npy |b1: a nonzero byte reads as 1 */
	bool fortran;		/* npy: column-major with > 1 axis over 1 */
	struct gs_record rec;	/* npy of a structured dtype: its fields
				 * (rec.n > 0; dtype is then u8) */
	int ndim;		/* npy: dims[0] is the records */
	uint64_t dims[NPY_MAX_DIMS];
	size_t errpos;		/* on error: offset of the offending byte */
	char msg[160];		/* on error: what is wrong */
};

/* 1 when p starts with the magic, 0 when it does not, -1 when n is too
 * short to tell (only asked while more bytes may come). */
int npy_magic(const uint8_t *p, size_t n);
int pnm_magic(const uint8_t *p, size_t n);	/* P2, P3, P5 or P6 */
int pgm_magic(const uint8_t *p, size_t n);	/* P2 or P5 */
int ppm_magic(const uint8_t *p, size_t n);	/* P3 or P6 */

int npy_parse(const uint8_t *p, size_t n, struct fmt_header *h);
int pnm_parse(const uint8_t *p, size_t n, struct fmt_header *h);

/* Netpbm white space: also what may follow the last image of a file. */
bool pnm_space(uint8_t c);

/* The raster of a plain (P2/P3) image turned into the samples a P5/P6
 * image of the same header holds (u8, or u16 big-endian). */
struct pnm_text {
	uint64_t left;		/* samples still to come */
	uint64_t extra;		/* samples found after the last one */
	uint64_t off;		/* operand offset of the next text byte */
	uint64_t tok;		/* where the current number began */
	uint32_t v;		/* its value so far (saturates) */
	bool in_num, in_comment;
};

void pnm_text_start(struct pnm_text *t, const struct fmt_header *h,
		    uint64_t off);

/* Convert text p[0..n) (end: nothing follows it) into whole samples in
 * out[0..cap). Sets *used (text bytes taken) and *made (output bytes).
 * Returns 1 when the raster is complete and the text has ended, 0 to be
 * called again, -1 with h->msg/errpos (an operand offset) on bad text. */
int pnm_text_run(struct pnm_text *t, const uint8_t *p, size_t n, bool end,
		 uint8_t *out, size_t cap, size_t *used, size_t *made,
		 struct fmt_header *h);

/* Binary samples p[0..n) checked against h->maxval; pos is p[0]'s offset
 * in the payload and *hi keeps the first byte of a 16-bit sample split
 * between calls. Returns the payload offset of the first sample above
 * maxval (its value in *val), or UINT64_MAX when there is none. */
uint64_t pnm_over_maxval(const struct fmt_header *h, uint64_t pos,
			 uint8_t *hi, const uint8_t *p, size_t n,
			 unsigned *val);

/* Shared by both parsers: fill h->msg/errpos and return -1. */
int fmt_fail(struct fmt_header *h, size_t pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
