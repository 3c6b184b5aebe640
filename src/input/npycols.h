/*
 * npycols.h - a Fortran-order (column-major) .npy payload handed out in
 * row-major order, as records (npycols.c). Private to the input layer.
 *
 * Element (r, c) of a column-major array of R records lies at r + R * f(c),
 * f(c) being the column-major index of the trailing axes that c counts in
 * row-major order: every column is a run of R elements. A regular file
 * is read by pread, runs of rows of each column into a scratch buffer and
 * scattered into records; a pipe or zstd stream cannot be, and is refused
 * before this is used.
 */
#ifndef NPYCOLS_H
#define NPYCOLS_H

#include <sys/types.h>
#include "fmthdr.h"

struct npy_cols {
	int fd;			/* a regular file */
	off_t data_at;		/* file offset of the payload */
	const struct fmt_header *h;	/* its header: dtype, columns, dims */
	uint8_t *scratch;	/* FMT_HEADER_MAX bytes */
	const char *name;	/* for errors */
};

/* Up to n bytes (0 < n, done + n <= the payload) in row-major order from
 * payload byte done on: whole records in batches, else (a read shorter than
 * a record, or not at a record's start) one element. Returns the count, or
 * -1 (read error, file shrank: err says where). */
ssize_t npy_cols_read(const struct npy_cols *c, uint8_t *buf, size_t n,
		      uint64_t done, struct gs_err *err);

#endif
