/*
 * npycols.c - Fortran-order .npy payloads read column by column (see
 * npycols.h).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "npycols.h"

/* f(c): row-major index c over dims[1..] as a column-major one. */
static uint64_t cols_fidx(const struct fmt_header *h, uint64_t c)
{
	uint64_t f = 0;
	int k;

	for (k = h->ndim - 1; k >= 1; k--) {
		uint64_t i = c % h->dims[k];

		c /= h->dims[k];
		f = f * h->dims[k] + i;
	}
	return f;
}

static int cols_pread(const struct npy_cols *c, void *buf, size_t n,
		      uint64_t at, struct gs_err *err)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = pread(c->fd, (uint8_t *)buf + got, n - got,
			  c->data_at + (off_t)(at + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return gs_fail(err, GS_ERUNTIME, c->name,
				       "read error at byte %llu: %s",
				       (unsigned long long)(c->data_at + at + got),
				       strerror(errno));
		if (r == 0)
			return gs_fail(err, GS_ERUNTIME, c->name,
				       "file shrank while being read (at byte %llu)",
				       (unsigned long long)(c->data_at + at + got));
		got += (size_t)r;
	}
	return 0;
}

/* Whole records from record r on into out: k rows of every column. */
static int cols_rows(const struct npy_cols *c, uint8_t *out, uint64_t r,
		     size_t k, struct gs_err *err)
{
	const struct fmt_header *h = c->h;
	size_t isz = type_size(h->dtype.type), cols = h->columns, col, i;
	uint64_t rows = h->dims[0];

	for (col = 0; col < cols; col++) {
		if (cols_pread(c, c->scratch, k * isz,
			       (r + rows * cols_fidx(h, col)) * isz, err) < 0)
			return -1;
		for (i = 0; i < k; i++)
			memcpy(out + (i * cols + col) * isz, c->scratch + i * isz,
			       isz);
	}
	return 0;
}

ssize_t npy_cols_read(const struct npy_cols *c, uint8_t *buf, size_t n,
		      uint64_t done, struct gs_err *err)
{
	const struct fmt_header *h = c->h;
	size_t isz = type_size(h->dtype.type), cols = h->columns;
	uint64_t e = done / isz, r = e / cols, rows = h->dims[0], k;

	if (e % cols == 0 && n >= cols * isz) {
		k = n / (cols * isz);
		k = k > FMT_HEADER_MAX / isz ? FMT_HEADER_MAX / isz : k;
		k = k > rows - r ? rows - r : k;
		n = (size_t)k * cols * isz;
		if (cols_rows(c, buf, r, (size_t)k, err) < 0)
			return -1;
	} else {
		n = isz;
		if (cols_pread(c, buf, isz,
			       (r + rows * cols_fidx(h, e % cols)) * isz, err) < 0)
			return -1;
	}
	return (ssize_t)n;
}
