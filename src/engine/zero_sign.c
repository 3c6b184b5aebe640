/*
 * zero_sign.c - the sign of a zero sum: see zero_sign.h.
 */
#include <stdlib.h>
#include <string.h>
#include "acc.h"
#include "operation.h"
#include "zero_sign.h"

/* Whether scan output record r of column col is a prefix of -0 only. */
static bool in_run(const struct zero_sign *zs, unsigned col, uint64_t r)
{
	uint64_t end = atomic_load_explicit(&zs->end[col],
					    memory_order_relaxed);

	/* the empty prefix is +0; a carry-in of -0 terms only is -0 */
	if (zs->job->exclusive)
		return (r >= 1 || zs->lead0[col]) && r <= end;
	return r < end;
}

/* Fix n records of scan output at out, the first of them record r; false
 * when no later record can need it (every run has ended before them). */
static bool fix(const struct zero_sign *zs, unsigned char *out, size_t n,
		uint64_t r)
{
	const struct gs_job *job = zs->job;
	size_t sz = type_size(job->out_type);

	for (size_t k = 0; k < n; k++, r++) {
		bool later = false;

		for (unsigned col = 0; col < job->columns; col++) {
			unsigned char *x = out + (k * job->columns + col) * sz;

			if (in_run(zs, col, r)) {
				memset(x, 0, sz);
				x[sz - 1] = 0x80;	/* little-endian -0 */
			}
			later |= in_run(zs, col, r + 1);
		}
		if (!later)
			return false;
	}
	return true;
}

/* Through a copy while outputs may still need their sign fixed (backends
 * write whole records, in order). */
int zero_sign_write(struct zero_sign *zs, const struct sink *sink,
		    const void *data, size_t n, struct gs_err *err)
{
	const unsigned char *buf = data;
	size_t rec = type_size(zs->job->out_type) * zs->job->columns;

	while (n > 0 && !zs->out_done) {
		size_t k = n / rec < zs->bounce_rec ? n / rec : zs->bounce_rec;

		if (k == 0)
			break;
		memcpy(zs->bounce, buf, k * rec);
		zs->out_done = !fix(zs, zs->bounce, k, zs->out_rec);
		zs->out_rec += k;
		if (sink->write(sink->ctx, zs->bounce, k * rec, err) < 0)
			return -1;
		buf += k * rec;
		n -= k * rec;
	}
	return n ? sink->write(sink->ctx, buf, n, err) : 0;
}

/* The bits of column col of record r at data, in the input's byte order
 * (a column of mixed records in its own type and order). */
static uint64_t elem_bits(const struct zero_sign *zs, const unsigned char *data,
			  size_t r, unsigned col, size_t *size)
{
	const struct gs_job *job = zs->job;
	const unsigned char *p = job->rec ? data + r * job->rec->size +
				 job->rec->off[col]
			       : data + (r * job->columns + col) * zs->size;
	struct gs_dtype d = job_col_dtype(job, col);
	uint64_t b = 0;

	*size = type_size(d.type);
	for (size_t k = 0; k < *size; k++) {
		size_t at = d.big_endian ? k : *size - 1 - k;

		b = b << 8 | p[at];
	}
	return b;
}

static bool is_nan(enum gs_type t, uint64_t b)
{
	switch (t) {
	case GS_F16: return (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
	case GS_BF16: return (b & 0x7f80) == 0x7f80 && (b & 0x7f);
	case GS_F32: return (b & 0x7f800000) == 0x7f800000 && (b & 0x7fffff);
	default: return (b >> 52 & 0x7ff) == 0x7ff && (b << 12);
	}
}

void zero_sign_chunk(struct zero_sign *zs, const struct chunk *c)
{
	const struct gs_job *job = zs->job;

	for (unsigned col = 0; col < job->columns && zs->live; col++) {
		if (atomic_load(&zs->end[col]) != UINT64_MAX)
			continue;
		for (size_t r = 0; r < c->nrec; r++) {
			size_t size;
			uint64_t b = elem_bits(zs, c->data, r, col, &size);

			if (b == (uint64_t)1 << (8 * size - 1) ||
			    (zs->skip_nan &&
			     is_nan(job_col_dtype(job, col).type, b)))
				continue;
			atomic_store(&zs->end[col], c->first_rec + r);
			zs->live--;
			break;
		}
	}
}

/* A scan from a carry-in: a column whose earlier records are not all -0
 * has no run left; one whose are starts the exclusive output with -0. */
static void from_carry(struct zero_sign *zs, const struct red_col *carry)
{
	for (unsigned col = 0; carry && col < zs->job->columns; col++) {
		if (carry[col].count == 0)
			continue;
		zs->lead0[col] = carry[col].u.sum.negzero;
		if (!carry[col].u.sum.negzero) {
			atomic_store(&zs->end[col], 0);
			zs->live--;
		}
	}
}

/* Whether a column of job's mixed records has a float sum. */
static bool any_column(const struct gs_job *job, const struct operation *op)
{
	for (unsigned col = 0; col < job->columns; col++) {
		struct gs_job cj = job_column(job, col);

		if (op->zero_sign(&cj))
			return true;
	}
	return false;
}

int zero_sign_init(struct zero_sign *zs, const struct gs_job *job,
		   const struct red_col *carry, struct gs_err *err)
{
	const struct operation *op = operation_of(job);

	zs->job = job;
	if (!op->zero_sign || !(job->rec ? any_column(job, op)
					 : op->zero_sign(job)))
		return 0;
	zs->on = true;
	zs->skip_nan = op->zero_sign_skips_nan;
	zs->size = type_size(job->dtype.type);
	zs->live = job->columns;
	zs->end = malloc(job->columns * sizeof(*zs->end));
	if (!zs->end)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	for (unsigned col = 0; col < job->columns; col++)
		atomic_init(&zs->end[col], UINT64_MAX);
	/* mixed records: a column whose own job has no float sum has no run */
	for (unsigned col = 0; job->rec && col < job->columns; col++) {
		struct gs_job cj = job_column(job, col);

		if (!op->zero_sign(&cj)) {
			atomic_store(&zs->end[col], 0);
			zs->live--;
		}
	}
	if (!op->stream)
		return 0;
	size_t rec = type_size(job->out_type) * job->columns;

	zs->bounce_rec = rec < 65536 ? 65536 / rec : 1;
	zs->bounce = malloc(zs->bounce_rec * rec);
	zs->lead0 = calloc(job->columns, sizeof(*zs->lead0));
	if (!zs->bounce || !zs->lead0)
		return gs_fail(err, GS_ERUNTIME, "", "out of memory");
	from_carry(zs, carry);
	return 0;
}

void zero_sign_apply(const struct zero_sign *zs, void *acc)
{
	if (!zs->on || !acc)
		return;
	const struct operation *op = operation_of(zs->job);

	if (!op->set_negzero)
		return;
	for (unsigned col = 0; col < zs->job->columns; col++)
		op->set_negzero(acc, col,
				atomic_load(&zs->end[col]) == UINT64_MAX);
}

void zero_sign_release(struct zero_sign *zs)
{
	free(zs->end);
	free(zs->lead0);
	free(zs->bounce);
}
