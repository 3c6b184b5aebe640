/*
 * cpu_hist2d.c - numpy.histogram2d(x, y, bins, range) on the CPU.
 *
 * numpy 2.x's histogram2d is histogramdd (lib/_histograms_impl.py), whose
 * rules differ from np.histogram's in two ways that change counts:
 *  - the edges are np.linspace(lo, hi, n + 1) with no dtype: a given range
 *    (python floats) makes float64 edges whatever the data's type, and the
 *    data's own range (a.min(), a.max(), scalars of its type) makes them in
 *    that type (f16 and f32; float64 for integers). The arithmetic is
 *    np.histogram's linspace in both cases, so hist_edges (cpu_hist.c)
 *    computes them: for a given range with the bin type f64, for the data's
 *    range in its own type;
 *  - a value's bin is np.searchsorted(edges, v, side='right') - 1, compared
 *    in double (every type converts exactly but 64-bit integers, which numpy
 *    too rounds to double), with a value equal to the last edge moved into
 *    the last bin. No estimate-and-correct as np.histogram does: repeated
 *    edges (f16 ranges of many bins) give empty bins, as in numpy.
 * A point's bin is hist2d_bin.h's, the arithmetic the GPU's kernels
 * (cuda/hist2d_kernels.cu) share. A record is counted where both values
 * are in [edge 0, edge n]; one with a NaN (numpy's searchsorted puts it
 * past the end) goes to nan, any other outside the range to outside.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "acc.h"
#include "hist2d_bin.h"

void hist2d_edges(const struct gs_job *job, int axis, double *edges)
{
	struct gs_job j = *job;

	if (axis) {
		j.bins = job->ybins;
		j.lo = job->ylo;
		j.hi = job->yhi;
	}
	/* linspace of python floats: float64, then no rounding to a bin type */
	if (!j.data_range)
		j.dtype.type = GS_F64;
	j.span = 0;
	j.ranged = true;
	hist_edges(&j, edges);
}

/* A CPU thread counts into 16-bit counters (struct h2thread), a quarter
 * of the result's 64-bit ones: at 4096 x 4096 bins 32 MiB a thread
 * instead of 128, so that 16 threads' tables fit the accumulators' limit
 * (ENGINE_ACC_LIMIT, 1 GiB: 64-bit tables left 6 threads) and more of
 * them stay in cache. A counter that wraps to 0 appends its bin to the
 * thread's list of wraps, each worth 65536 when the thread's counts are
 * added into the result (h2thread_merge_part): the counts stay exact,
 * and the list holds at most one entry per 65536 points. 5e7 f32 normals
 * over -4:4 on 2 threads (the 2-core VM below, best of 5, CPU seconds of
 * the slower thread), 64-bit against 16-bit: counting 0.43 against 0.38 s
 * at 1024 x 1024 bins, 0.64 against 0.50 at 4096 x 4096; there the
 * tables' zeroing 0.19 against 0.01 s (one thread zeroed both), their
 * merge 0.04 against 0.02.
 *
 * Points are binned a block at a time into codes, then counted: the
 * counting loop, free of the binning's work, keeps many increments of a
 * large table in flight at once, and fetches the counts a few points
 * ahead where the table is larger than CODE_NEAR bins. One thread, 20M
 * f32 normals over -4:4 (an EPYC VM, 512 KiB of L2), 64-bit counts:
 * 1024 x 1024 bins 1.75 s of CPU counted point by point, 0.47 s so; 16
 * bins 0.26 s either way. */
#define CODE_BLOCK 1024
#define CODE_AHEAD 16

#define CODE_NEAR 65536	/* bins whose counts stay in cache: no prefetch */

struct h2thread {
	uint64_t nan, outside;
	uint32_t *wrap;		/* a bin per wrap of its counter */
	uint64_t nwrap, cap;
	uint64_t failed;	/* the list could not grow: thread_error */
	uint16_t counts[];	/* counts[ix * ny + iy] mod 65536 */
};

#define WRAP_VALUE 65536u

static __attribute__((noinline, cold)) void
wrap_add(struct h2thread *t, uint32_t bin)
{
	if (t->nwrap == t->cap) {
		uint64_t cap = t->cap ? 2 * t->cap : 256;
		uint32_t *w = realloc(t->wrap, cap * sizeof(*w));

		if (!w) {
			t->failed = 1;
			return;
		}
		t->wrap = w;
		t->cap = cap;
	}
	t->wrap[t->nwrap++] = bin;
}

static inline __attribute__((always_inline)) void
count_block(struct h2thread *t, uint64_t nb, const uint32_t *code, size_t m,
	    bool ahead)
{
	for (size_t j = 0; j < m; j++) {
		uint32_t c = code[j];

		if (ahead && j + CODE_AHEAD < m && code[j + CODE_AHEAD] < nb)
			__builtin_prefetch(&t->counts[code[j + CODE_AHEAD]], 1);
		if (c < nb) {
			if (!++t->counts[c])
				wrap_add(t, c);
		} else if (c == HIST2D_CODE_NAN) {
			t->nan++;
		} else {
			t->outside++;
		}
	}
}

static void count_codes(struct h2thread *t, uint64_t nb, const uint32_t *code,
			size_t m)
{
	if (nb <= CODE_NEAR)
		count_block(t, nb, code, m, false);
	else
		count_block(t, nb, code, m, true);
}

/* The points of nrec records of C values of type T (each converted to
 * double exactly by CONV): x and y are the record's first two values. */
#define HIST2D_LOOP(name, T, CONV)						\
static void name(struct h2thread *t, uint64_t nb, const struct h2axis *ax,\
		 const struct h2axis *ay, const void *data, size_t nrec,	\
		 unsigned C, uint32_t *code)					\
{										\
	const T *p = data;							\
	for (size_t k = 0; k < nrec; k += CODE_BLOCK) {				\
		size_t m = nrec - k < CODE_BLOCK ? nrec - k : CODE_BLOCK;	\
		for (size_t j = 0; j < m; j++, p += C)				\
			code[j] = hist2d_code(ax, ay, CONV(p[0]), CONV(p[1]));	\
		count_codes(t, nb, code, m);					\
	}									\
}

static inline double conv_f16(uint16_t x) { return f16_to_f32(x); }
static inline double conv_bf16(uint16_t x) { return bf16_to_f32(x); }
#define CONV_D(x) ((double)(x))

HIST2D_LOOP(points_u8, uint8_t, CONV_D)
HIST2D_LOOP(points_i8, int8_t, CONV_D)
HIST2D_LOOP(points_u16, uint16_t, CONV_D)
HIST2D_LOOP(points_i16, int16_t, CONV_D)
HIST2D_LOOP(points_u32, uint32_t, CONV_D)
HIST2D_LOOP(points_i32, int32_t, CONV_D)
HIST2D_LOOP(points_u64, uint64_t, CONV_D)
HIST2D_LOOP(points_i64, int64_t, CONV_D)
HIST2D_LOOP(points_f16, uint16_t, conv_f16)
HIST2D_LOOP(points_bf16, uint16_t, conv_bf16)
HIST2D_LOOP(points_f32, float, CONV_D)
HIST2D_LOOP(points_f64, double, CONV_D)

typedef void points_fn(struct h2thread *, uint64_t, const struct h2axis *,
		       const struct h2axis *, const void *, size_t, unsigned,
		       uint32_t *);
static points_fn *const points_loops[GS_NTYPES] = {
	[GS_U8] = points_u8, [GS_I8] = points_i8, [GS_U16] = points_u16,
	[GS_I16] = points_i16, [GS_U32] = points_u32, [GS_I32] = points_i32,
	[GS_U64] = points_u64, [GS_I64] = points_i64, [GS_F16] = points_f16,
	[GS_BF16] = points_bf16, [GS_F32] = points_f32, [GS_F64] = points_f64,
};

/* ---- the kernel table ------------------------------------------------- */

static size_t hist2d_acc_size(const struct gs_job *job)
{
	return sizeof(struct hist2d_acc) +
	       job->bins * job->ybins * sizeof(uint64_t);
}

/* Counts of many bins are scattered over MiBs (4096 x 4096: 32 MiB a
 * thread, 128 the result): huge pages, where the kernel gives them, save
 * a TLB miss on nearly every point and most of the page faults of the
 * memset. A hint, on the whole pages inside [p, p + n). */
static void huge_hint(void *p, size_t n)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t b = ((uintptr_t)p + n) & ~(huge - 1);

	if (b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
}

static void hist2d_acc_init(const struct gs_job *job, void *acc)
{
	struct hist2d_acc *h = acc;

	if (job->bins * job->ybins > CODE_NEAR)
		huge_hint(h, hist2d_acc_size(job));
	memset(h, 0, hist2d_acc_size(job));
	h->nx = job->bins;
	h->ny = job->ybins;
}

static void hist2d_acc_merge(const struct gs_job *job, void *acc,
			     const void *src)
{
	struct hist2d_acc *h = acc;
	const struct hist2d_acc *s = src;

	(void)job;
	h->nan += s->nan;
	h->outside += s->outside;
	for (uint64_t i = 0; i < h->nx * h->ny; i++)
		h->counts[i] += s->counts[i];
}

/* Bins [*lo, *hi) of part of parts of n, cut at multiples of 8 bins (a
 * cache line of 64-bit counts) so that two threads write no line in
 * common. */
void hist2d_part(uint64_t n, int part, int parts, uint64_t *lo, uint64_t *hi)
{
	*lo = n * (uint64_t)part / (uint64_t)parts & ~(uint64_t)7;
	*hi = part + 1 == parts ? n
				: n * (uint64_t)(part + 1) / (uint64_t)parts &
				  ~(uint64_t)7;
}

/* ---- a CPU thread's counts (struct h2thread) --------------------------- */

static uint64_t nbins(const struct gs_job *job)
{
	return job->bins * job->ybins;
}

static size_t h2thread_size(const struct gs_job *job)
{
	return sizeof(struct h2thread) + nbins(job) * sizeof(uint16_t);
}

static void h2thread_init(const struct gs_job *job, void *acc)
{
	if (nbins(job) > CODE_NEAR)
		huge_hint(acc, h2thread_size(job));
	memset(acc, 0, h2thread_size(job));
}

static void h2thread_free(const struct gs_job *job, void *acc)
{
	(void)job;
	free(((struct h2thread *)acc)->wrap);
}

static void h2thread_merge_part(const struct gs_job *job, void *acc,
				const void *src, int part, int parts)
{
	struct hist2d_acc *h = acc;
	const struct h2thread *t = src;
	uint64_t lo, hi;

	(void)job;
	if (part == 0) {
		h->nan += t->nan;
		h->outside += t->outside;
	}
	hist2d_part(h->nx * h->ny, part, parts, &lo, &hi);
	for (uint64_t i = lo; i < hi; i++)
		h->counts[i] += t->counts[i];
	for (uint64_t k = 0; k < t->nwrap; k++)
		if (t->wrap[k] >= lo && t->wrap[k] < hi)
			h->counts[t->wrap[k]] += WRAP_VALUE;
}

static int h2thread_error(const struct gs_job *job, const void *acc,
			  struct gs_err *err)
{
	(void)job;
	if (!((const struct h2thread *)acc)->failed)
		return 0;
	return gs_fail(err, GS_ERUNTIME, "hist2d", "out of memory for a "
		       "thread's counts");
}

/* Both axes' edges, made again by each call (a few thousand at most,
 * against a chunk's records), and a block's codes. */
static size_t hist2d_scratch_size(const struct gs_job *job)
{
	return (job->bins + 1 + job->ybins + 1) * sizeof(double) +
	       CODE_BLOCK * sizeof(uint32_t);
}

static void hist2d_cpu_add(const struct gs_job *job, void *acc, void *scratch,
			   const void *data, const void *data2, size_t nrec)
{
	double *ex = scratch, *ey = ex + job->bins + 1;
	struct h2axis ax, ay;

	(void)data2;
	hist2d_edges(job, 0, ex);
	hist2d_edges(job, 1, ey);
	ax = h2axis_make(ex, ex[0], ex[job->bins], job->bins);
	ay = h2axis_make(ey, ey[0], ey[job->ybins], job->ybins);
	points_loops[job->dtype.type](acc, nbins(job), &ax, &ay, data, nrec,
				      job->columns,
				      (uint32_t *)(ey + job->ybins + 1));
}

const struct acc_kernels hist2d_kernels = {
	.acc_size = hist2d_acc_size,
	.acc_init = hist2d_acc_init,
	.acc_merge = hist2d_acc_merge,
	.scratch_size = hist2d_scratch_size,
	.cpu_add = hist2d_cpu_add,
	.thread_size = h2thread_size,
	.thread_init = h2thread_init,
	.thread_free = h2thread_free,
	.thread_error = h2thread_error,
	.merge_part = h2thread_merge_part,
};
