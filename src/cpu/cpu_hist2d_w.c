/*
 * cpu_hist2d_w.c - weighted 2-D histograms on the CPU (hist2d --weights
 * COL): numpy.histogram2d(x, y, bins, range, weights=w), with each bin's
 * sum exact.
 *
 * A record is x, y and its weight (column job->wcol; x and y the first
 * two others, hist2dw_xy), all of the job's one type, in native byte
 * order. A point's bin is hist2d_bin.h's, as the counts' (cpu_hist2d.c);
 * the record's weight is added to it. Float weights go into a struct ksum
 * per bin (32 bytes: a 128-bit integer times a power of two while the
 * bin's terms fit one, else a struct xsum of its own), so a bin is the
 * exact sum of its weights, NaN and the infinities as flags, rounded once
 * when printed; integer weights into a 128-bit integer per bin. Both merge
 * exactly, so threads, chunks and states give the same bits in any
 * grouping. Records with a NaN in x or y, or outside the range, are in no
 * bin and counted in nan and outside as the counts count them; their
 * weights are in no sum, as in numpy.
 *
 * A ksum that must widen allocates; a failed allocation is kept in the
 * accumulator (hist2dw_failed) and ends the run (acc_error), never a
 * wrong sum.
 */
#include <stdlib.h>
#include <string.h>

#include "acc.h"
#include "hist2d_bin.h"
#include "ksum_state.h"

#define W2_BLOCK 1024	/* records at a time */

/* The per-thread scratch: both axes' edges, then a block's codes and
 * weights. */
struct w2block {
	uint32_t code[W2_BLOCK];
	union {
		double f[W2_BLOCK];
		int64_t i[W2_BLOCK];
		uint64_t u[W2_BLOCK];
	} w;
};

static bool w_float(const struct gs_job *job)
{
	return type_is_float(job->dtype.type);
}

static bool w_signed(const struct gs_job *job)
{
	return type_is_signed(job->dtype.type) && !job->dtype.boolean;
}

/* Element k of the record at p as a double: exact for every type but
 * 64-bit integers beyond 2^53, which convert as numpy compares them. */
static inline double elem_f64(enum gs_type t, const unsigned char *p)
{
	switch (t) {
	case GS_U8: return *p;
	case GS_I8: return (int8_t)*p;
	case GS_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
	case GS_I16: { int16_t v; memcpy(&v, p, 2); return v; }
	case GS_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
	case GS_I32: { int32_t v; memcpy(&v, p, 4); return v; }
	case GS_U64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
	case GS_I64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
	case GS_F16: { uint16_t v; memcpy(&v, p, 2); return f16_to_f32(v); }
	case GS_BF16: { uint16_t v; memcpy(&v, p, 2); return bf16_to_f32(v); }
	case GS_F32: { float v; memcpy(&v, p, 4); return v; }
	default: { double v; memcpy(&v, p, 8); return v; }
	}
}

/* An integer element as 64 bits: two's complement for signed types. */
static inline uint64_t elem_int(enum gs_type t, const unsigned char *p)
{
	switch (t) {
	case GS_U8: return *p;
	case GS_I8: return (uint64_t)(int64_t)(int8_t)*p;
	case GS_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
	case GS_I16: { int16_t v; memcpy(&v, p, 2); return (uint64_t)(int64_t)v; }
	case GS_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
	case GS_I32: { int32_t v; memcpy(&v, p, 4); return (uint64_t)(int64_t)v; }
	default: { uint64_t v; memcpy(&v, p, 8); return v; }
	}
}

/* The codes and weights of m records from p (rec bytes each). */
static void load_block(const struct gs_job *job, const struct h2axis *ax,
		       const struct h2axis *ay, const unsigned char *p,
		       size_t rec, size_t m, struct w2block *b)
{
	enum gs_type t = job->dtype.type;
	size_t sz = type_size(t);
	unsigned xc, yc;
	bool flt = w_float(job), boolean = job->dtype.boolean;

	hist2dw_xy(job, &xc, &yc);
	for (size_t i = 0; i < m; i++, p += rec) {
		double x = elem_f64(t, p + xc * sz), y = elem_f64(t, p + yc * sz);

		b->code[i] = hist2d_code(ax, ay, x, y);
		if (flt)
			b->w.f[i] = elem_f64(t, p + job->wcol * sz);
		else
			b->w.u[i] = elem_int(t, p + job->wcol * sz);
		if (boolean)
			b->w.u[i] = b->w.u[i] != 0;
	}
}

static void add128(uint64_t *s, const uint64_t *t)
{
	uint64_t lo = s[0] + t[0];

	s[1] += t[1] + (lo < s[0]);
	s[0] = lo;
}

/* A code in no bin into nan or outside; true for one in a bin. */
static inline bool in_bin(struct hist2d_acc *h, uint32_t c, uint64_t nb)
{
	if (c < nb)
		return true;
	if (c == HIST2D_CODE_NAN)
		h->nan++;
	else
		h->outside++;
	return false;
}

static void fold(const struct gs_job *job, struct hist2d_acc *h,
		 const struct w2block *b, size_t m)
{
	uint64_t nb = h->nx * h->ny, hi = w_signed(job) ? ~0ull : 0;

	if (w_float(job)) {
		struct ksum *k = hist2dw_ksum(h);

		for (size_t i = 0; i < m; i++)
			if (in_bin(h, b->code[i], nb) &&
			    !ksum_add_f64(&k[b->code[i]], b->w.f[i]))
				*hist2dw_failed(h) = 1;
		return;
	}
	for (size_t i = 0; i < m; i++) {
		uint64_t w[2] = { b->w.u[i], b->w.i[i] < 0 ? hi : 0 };

		if (in_bin(h, b->code[i], nb))
			add128(hist2dw_isum(h) + 2 * b->code[i], w);
	}
}

/* ---- the kernel table ------------------------------------------------- */

static size_t bin_bytes(const struct gs_job *job)
{
	return w_float(job) ? sizeof(struct ksum) : 2 * sizeof(uint64_t);
}

static size_t hist2dw_acc_size(const struct gs_job *job)
{
	return sizeof(struct hist2d_acc) + 2 * sizeof(uint64_t) +
	       job->bins * job->ybins * bin_bytes(job);
}

static void hist2dw_acc_init(const struct gs_job *job, void *acc)
{
	struct hist2d_acc *h = acc;

	memset(h, 0, hist2dw_acc_size(job));	/* a zeroed ksum is 0 */
	h->nx = job->bins;
	h->ny = job->ybins;
}

/* A failed widening is flagged by whichever parts meet one, at once: an
 * atomic store of the one value 1. */
static void hist2dw_acc_merge_part(const struct gs_job *job, void *acc,
				   const void *src, int part, int parts)
{
	struct hist2d_acc *h = acc, *s = (struct hist2d_acc *)src;
	uint64_t lo, hi;

	if (part == 0) {
		h->nan += s->nan;
		h->outside += s->outside;
		if (*hist2dw_failed(s))
			__atomic_store_n(hist2dw_failed(h), 1, __ATOMIC_RELAXED);
	}
	hist2d_part(h->nx * h->ny, part, parts, &lo, &hi);
	if (!w_float(job)) {
		for (uint64_t i = lo; i < hi; i++)
			add128(hist2dw_isum(h) + 2 * i, hist2dw_isum(s) + 2 * i);
		return;
	}
	for (uint64_t i = lo; i < hi; i++)
		if (!ksum_merge(&hist2dw_ksum(h)[i], &hist2dw_ksum(s)[i]))
			__atomic_store_n(hist2dw_failed(h), 1, __ATOMIC_RELAXED);
}

static void hist2dw_acc_merge(const struct gs_job *job, void *acc,
			      const void *src)
{
	hist2dw_acc_merge_part(job, acc, src, 0, 1);
}

static void hist2dw_acc_free(const struct gs_job *job, void *acc)
{
	struct hist2d_acc *h = acc;

	if (!w_float(job))
		return;
	for (uint64_t i = 0; i < h->nx * h->ny; i++)
		if (hist2dw_ksum(h)[i].wide)
			ksum_free(&hist2dw_ksum(h)[i]);
}

static int hist2dw_acc_error(const struct gs_job *job, const void *acc,
			     struct gs_err *err)
{
	(void)job;
	if (!*hist2dw_failed((struct hist2d_acc *)acc))
		return 0;
	return gs_fail(err, GS_ERUNTIME, "hist2d", "out of memory for a "
		       "bin's exact sum");
}

static size_t hist2dw_scratch_size(const struct gs_job *job)
{
	return (job->bins + 1 + job->ybins + 1) * sizeof(double) +
	       sizeof(struct w2block);
}

static void hist2dw_cpu_add(const struct gs_job *job, void *acc,
			    void *scratch, const void *data, const void *data2,
			    size_t nrec)
{
	double *ex = scratch, *ey = ex + job->bins + 1;
	struct w2block *b = (struct w2block *)(ey + job->ybins + 1);
	size_t rec = type_size(job->dtype.type) * job->columns;
	const unsigned char *p = data;
	struct h2axis ax, ay;

	(void)data2;
	hist2d_edges(job, 0, ex);
	hist2d_edges(job, 1, ey);
	ax = h2axis_make(ex, ex[0], ex[job->bins], job->bins);
	ay = h2axis_make(ey, ey[0], ey[job->ybins], job->ybins);
	for (size_t k = 0; k < nrec; k += W2_BLOCK) {
		size_t m = nrec - k < W2_BLOCK ? nrec - k : W2_BLOCK;

		load_block(job, &ax, &ay, p + k * rec, rec, m, b);
		fold(job, acc, b, m);
	}
}

/* ---- the state: u64 nan, u64 outside, then each bin [x bin][y bin]: a
 * ksum (ksum_state.h) for float weights, two u64 (low first) of the
 * 128-bit sum for integer ones ------------------------------------------ */

static void put64(unsigned char **p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*(*p)++ = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char **p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)*(*p)++ << (8 * i);
	return v;
}

size_t hist2dw_state_bytes(const struct gs_job *job, const void *acc)
{
	struct hist2d_acc *h = (struct hist2d_acc *)acc;
	uint64_t n = h->nx * h->ny;
	size_t b = 16;

	if (!w_float(job))
		return b + 16 * n;
	for (uint64_t i = 0; i < n; i++)
		b += ks_bytes(&hist2dw_ksum(h)[i]);
	return b;
}

void hist2dw_state_put(const struct gs_job *job, const void *acc,
		       unsigned char *p)
{
	struct hist2d_acc *h = (struct hist2d_acc *)acc;
	uint64_t n = h->nx * h->ny;

	put64(&p, h->nan);
	put64(&p, h->outside);
	for (uint64_t i = 0; i < n; i++) {
		if (w_float(job)) {
			put_ksum(&p, &hist2dw_ksum(h)[i]);
		} else {
			put64(&p, hist2dw_isum(h)[2 * i]);
			put64(&p, hist2dw_isum(h)[2 * i + 1]);
		}
	}
}

int hist2dw_state_get(struct gs_job *job, void *acc, const unsigned char *p,
		      size_t bytes)
{
	struct hist2d_acc *h = acc;
	const unsigned char *end = p + bytes;
	uint64_t n = h->nx * h->ny;

	if (bytes < 16 || (!w_float(job) && bytes != 16 + 16 * n))
		return -1;
	h->nan = get64(&p);
	h->outside = get64(&p);
	for (uint64_t i = 0; i < n; i++) {
		if (!w_float(job)) {
			hist2dw_isum(h)[2 * i] = get64(&p);
			hist2dw_isum(h)[2 * i + 1] = get64(&p);
		} else if (!get_ksum(&p, end, &hist2dw_ksum(h)[i])) {
			return -1;
		}
	}
	return p == end ? 0 : -1;
}

const struct acc_kernels hist2dw_kernels = {
	.acc_size = hist2dw_acc_size,
	.acc_init = hist2dw_acc_init,
	.acc_merge = hist2dw_acc_merge,
	.merge_part = hist2dw_acc_merge_part,
	.scratch_size = hist2dw_scratch_size,
	.cpu_add = hist2dw_cpu_add,
	.acc_free = hist2dw_acc_free,
	.acc_error = hist2dw_acc_error,
};
