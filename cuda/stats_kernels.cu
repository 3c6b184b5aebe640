/*
 * stats_kernels.cu - count, NaN count, min, max, exact sum and exact sum of
 * squares per column on the GPU (stats, and the min/max pass of hist), with
 * the same struct stats_col (src/acc.h) as src/cpu_stats.c for every input.
 *
 * Thread t of a grid of T threads takes column j = t % C of records t / C,
 * t / C + T / C, ...: the grid stride is a whole number of records (threads
 * past (T / C) * C idle), so a thread keeps one column and consecutive
 * threads still read consecutive elements.
 *
 * Floats (f16/bf16 read as raw bits and decoded exactly): each non-NaN value
 * v goes into two exact thread accumulators of cuda/exact.cuh, v and v*v
 * (an exact product: 48 bits for f32, so both take the 64-bit adder; 106
 * for f64); NaNs are only counted.
 * Integers: a thread sums v in an __int128 and v^2 (up to 2^128 for 64-bit
 * values) in 192 bits, a 128-bit low part and a carry word, as cpu_stats.c
 * does, and hands both to its exact accumulators once, at its end: no
 * thread sees more than 2^20 elements per kernel (the launch cap below), so
 * neither overflows.
 *
 * One column of f32 at a 16-byte aligned address (the common case) takes
 * a faster path: 16-byte vector loads, two per iteration, and exact.cuh's
 * exponent window for both sums (the squares of in-window values are
 * integers (s * 2^d)^2 in a 128-bit window sum of their own), with the
 * exact_thr pair above only for values outside the window, NaNs and the
 * infinities.
 *
 * Min and max are order-preserving unsigned keys of the bits (floats: -0
 * below +0, NaNs never get there; signed integers: the sign bit flipped), so
 * one 64-bit atomicMax does each, first in shared memory per block, then in
 * global memory. The device accumulator keeps the max key and the max of
 * the complemented keys (the min): 0 is the identity of both, which is what
 * the backend's cudaMemset leaves.
 *
 * merge_host decodes the keys into the double / int64 / uint64 that
 * cpu_stats.c stores and merges through stats_kernels.acc_merge, so the rule
 * for combining min, max and counts is the CPU's own.
 */
#include <stdint.h>
#include <string.h>
#include <type_traits>

#include "exact.cuh"
#include "vec128.cuh"

/* 256 threads, up to 4 blocks per SM (32 warps) to hide load latency. */
#define STATS_THREADS 256
#define STATS_BLOCKS_PER_SM 4
/* Shared memory is 2 * C exact accumulators of EXACT_SLOTS slots (2304
 * bytes per column) plus 24 bytes per column of NaN counts and keys: 64
 * columns take 148992 bytes, under the 227 KB a block may opt in to. */
#define STATS_MAX_COLUMNS 64
/* Elements per thread below which fewer blocks are launched: zeroing and
 * flushing the shared slots must not dominate small chunks. */
#define STATS_MIN_PER_THREAD 16
/* 1: one-column f32 takes the vector + window path; 0: the generic one
 * (0.14x CUB's plain float sum on the H100, about 150 instructions and one
 * 4-byte load in flight per element). */
#ifndef STATS_WINDOW
#define STATS_WINDOW 1
#endif

template <typename T>
constexpr bool is_int_v = std::is_integral_v<T>;

/* ---- one element --------------------------------------------------------- */

template <typename T>
__host__ __device__ static inline bool is_nan(T x)
{
	if constexpr (std::is_same_v<T, f16_bits>)
		return (x.v & 0x7fff) > 0x7c00;
	else if constexpr (std::is_same_v<T, bf16_bits>)
		return (x.v & 0x7fff) > 0x7f80;
	else if constexpr (std::is_same_v<T, float>)
		return (exact_bits_f32(x) & 0x7fffffffu) > 0x7f800000u;
	else
		return (exact_bits_f64(x) & ~(1ull << 63)) > 0x7ff0000000000000ull;
}

/* Bits whose unsigned order is the order of the values (non-NaN floats,
 * -0 < +0). The half types go through f32, as cpu_stats.c's do. */
template <typename T>
__host__ __device__ static inline unsigned long long key_of(T x)
{
	if constexpr (std::is_same_v<T, double>) {
		unsigned long long u = exact_bits_f64(x);

		return u ^ (u >> 63 ? ~0ull : 1ull << 63);
	} else if constexpr (is_int_v<T>) {
		if constexpr (std::is_signed_v<T>)
			return (unsigned long long)(long long)x ^ 1ull << 63;
		else
			return (unsigned long long)x;
	} else {
		unsigned u;

		if constexpr (std::is_same_v<T, f16_bits>)
			u = exact_bits_f32(ieee_f16_to_f32(x.v));
		else if constexpr (std::is_same_v<T, bf16_bits>)
			u = (unsigned)x.v << 16;
		else
			u = exact_bits_f32(x);
		return u ^ (u >> 31 ? 0xffffffffu : 0x80000000u);
	}
}

/* The value of a key as cpu_stats.c stores it for type t. */
static union gs_scalar key_value(enum gs_type t, unsigned long long k)
{
	union gs_scalar v;

	if (t == GS_F64) {
		unsigned long long u = k ^ (k >> 63 ? 1ull << 63 : ~0ull);

		memcpy(&v.f, &u, sizeof v.f);
	} else if (type_is_float(t)) {
		unsigned u = (unsigned)k ^ (k >> 31 & 1 ? 0x80000000u : 0xffffffffu);

		v.f = ieee_f32_from_bits(u);
	} else if (type_is_signed(t)) {
		v.i = (long long)(k ^ 1ull << 63);
	} else {
		v.u = k;
	}
	return v;
}

/* ---- one thread's share -------------------------------------------------- */

/* slot: the block's shared slots of s1, then of s2. */
struct stats_thr {
	struct exact_thr s1, s2;
	unsigned long long nan, kmax, nkmin;	/* nkmin: max of ~key */
};

/* Elements t, t + di, ... of column j: records k0, k0 + kstep, ... */
template <typename T>
__host__ __device__ static void stats_fold_float(struct stats_thr *r,
						 const T *__restrict__ p,
						 size_t nrec, size_t C, size_t j,
						 size_t k0, size_t kstep,
						 long long *slot)
{
	size_t di = kstep * C;

	for (size_t k = k0, i = k0 * C + j; k < nrec; k += kstep, i += di) {
		T x = p[i];

		if (is_nan(x)) {
			r->nan++;
			continue;
		}
		struct exact_term v = exact_elem(x), v2 = exact_mul(v, v);
		unsigned long long key = key_of(x);

		r->s1.flags |= v.flags;
		r->s2.flags |= v2.flags;
		exact_thr_add64(&r->s1, (long long)v.m, v.e, slot);
		if constexpr (std::is_same_v<T, double>)	/* 106 bits */
			exact_thr_add(&r->s2, v2.m, v2.e, slot + EXACT_SLOTS);
		else						/* 48 bits */
			exact_thr_add64(&r->s2, (long long)v2.m, v2.e,
					slot + EXACT_SLOTS);
		r->kmax = key > r->kmax ? key : r->kmax;
		r->nkmin = ~key > r->nkmin ? ~key : r->nkmin;
	}
}

template <typename T>
__host__ __device__ static void stats_fold_int(struct stats_thr *r,
					       const T *__restrict__ p,
					       size_t nrec, size_t C, size_t j,
					       size_t k0, size_t kstep,
					       long long *slot)
{
	size_t di = kstep * C;
	__int128 s1 = 0;
	unsigned __int128 lo = 0;	/* s2 = hi * 2^128 + lo */
	unsigned long long hi = 0;

	for (size_t k = k0, i = k0 * C + j; k < nrec; k += kstep, i += di) {
		T x = p[i];
		unsigned long long a = (unsigned long long)x;
		unsigned __int128 sq;

		if constexpr (std::is_signed_v<T>)
			a = x < 0 ? -a : a;	/* |x|, also for the minimum */
		sq = (unsigned __int128)a * a;
		unsigned long long key = key_of(x);

		s1 += (__int128)x;
		lo += sq;
		hi += lo < sq;
		r->kmax = key > r->kmax ? key : r->kmax;
		r->nkmin = ~key > r->nkmin ? ~key : r->nkmin;
	}
	exact_thr_add(&r->s1, s1, 0, slot);
	exact_thr_add_u128(&r->s2, lo, false, 0, slot + EXACT_SLOTS);
	exact_thr_add(&r->s2, (__int128)hi, 128, slot + EXACT_SLOTS);
}

/* Column j's share of thread t of a grid of nthr threads; false for a
 * thread past the last whole stride of records, which has none. */
template <typename T>
__host__ __device__ static bool stats_fold(struct stats_thr *r, const T *p,
					   size_t nrec, unsigned C, size_t t,
					   size_t nthr, long long *sh)
{
	size_t kstep = nthr / C, j = t % C;
	long long *slot = sh + 2 * j * EXACT_SLOTS;

	exact_thr_init(&r->s1, is_int_v<T> ? 0 : EXACT_EMIN);
	exact_thr_init(&r->s2, is_int_v<T> ? 0 : EXACT_EMIN);
	r->nan = r->kmax = r->nkmin = 0;
	if (t >= kstep * C)
		return false;
	if constexpr (is_int_v<T>)
		stats_fold_int(r, p, nrec, C, j, t / C, kstep, slot);
	else
		stats_fold_float(r, p, nrec, C, j, t / C, kstep, slot);
	return true;
}

/* ---- one column of f32: the window path ------------------------------------ */

/*
 * s1 is exact.cuh's window sum; s2 the squares of the values in it: a value
 * s * 2^(e - 150) with d = e - b in [0, 28] squares to (s << d)^2 units of
 * 2^(2b - 300), each below 2^104, and no thread takes more than 2^21 values
 * per kernel, so s2 < 2^125. Both move together with the window.
 */
struct stats_win {
	struct exact_w32 s1;
	unsigned __int128 s2;
	unsigned kmax, kmin;	/* 32-bit keys; kmax == 0: none seen */
};

static __host__ __device__ inline unsigned stats_key32(unsigned u)
{
	return u ^ ((unsigned)((int)u >> 31) | 0x80000000u);
}

static __host__ __device__ inline unsigned __int128 stats_win_sq(unsigned u,
								 int b)
{
	unsigned long long x = (unsigned long long)((u & 0x7fffff) | 0x800000)
			       << ((int)((u >> 23) & 0xff) - b);

	return (unsigned __int128)x * x;
}

/* Move the window's sums into the thread accumulators and empty them. */
static __host__ __device__ inline void stats_win_fold(struct stats_win *w,
						      struct stats_thr *r,
						      long long *slot)
{
	exact_w32_fold(&w->s1, &r->s1, slot);
	if (w->s2)
		exact_thr_add(&r->s2, (__int128)w->s2, 2 * (w->s1.b - 150),
			      slot + EXACT_SLOTS);
	w->s2 = 0;
}

/* Any f32 (bits u), as stats_fold_float takes it. */
static __host__ __device__ inline void stats_win_add(struct stats_win *w,
						     struct stats_thr *r,
						     unsigned u, long long *slot)
{
	int e = (int)((u >> 23) & 0xff);
	long long m = (long long)(u & 0x7fffff);
	unsigned key = stats_key32(u);

	if (e == 0xff && m) {
		r->nan++;
		return;
	}
	w->kmax = key > w->kmax ? key : w->kmax;
	w->kmin = key < w->kmin ? key : w->kmin;
	if (e == 0xff) {
		r->s1.flags |= u >> 31 ? EXACT_NINF : EXACT_PINF;
		r->s2.flags |= EXACT_PINF;
		return;
	}
	if (e > w->s1.b + EXACT_W32_SPAN) {
		stats_win_fold(w, r, slot);
		w->s1.b = e - EXACT_W32_SPAN;	/* as exact_w32_add */
	}
	if (e >= w->s1.b) {
		w->s1.acc += exact_w32_term(u, w->s1.b);
		w->s2 += stats_win_sq(u, w->s1.b);
		return;
	}
	if (e == 0 && m == 0)
		return;
	m |= (long long)(e != 0) << 23;
	e = e ? e : 1;
	exact_thr_add64(&r->s1, u >> 31 ? -m : m, e - 150, slot);
	exact_thr_add64(&r->s2, m * m, 2 * (e - 150), slot + EXACT_SLOTS);
}

/* The first k of the eight f32 a.x .. c.w, one by one, as
 * exact_w32_add_first. */
static __host__ __device__ inline void stats_win_add_first(struct stats_win *w,
							   struct stats_thr *r,
							   uint4 a, uint4 c,
							   int k, long long *slot)
{
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
	for (int i = 0; i < k; i++) {
		stats_win_add(w, r, a.x, slot);
		vec128_shift(a, c);
	}
}

static __host__ __device__ inline void stats_win_add4(struct stats_win *w,
						      uint4 a, int b,
						      long long *s1,
						      unsigned __int128 *s2)
{
	unsigned k0 = stats_key32(a.x), k1 = stats_key32(a.y),
		 k2 = stats_key32(a.z), k3 = stats_key32(a.w);
	unsigned hi = max(max(k0, k1), max(k2, k3));
	unsigned lo = min(min(k0, k1), min(k2, k3));

	*s1 += exact_w32_term(a.x, b) + exact_w32_term(a.y, b) +
	       exact_w32_term(a.z, b) + exact_w32_term(a.w, b);
	*s2 += stats_win_sq(a.x, b) + stats_win_sq(a.y, b) +
	       stats_win_sq(a.z, b) + stats_win_sq(a.w, b);
	w->kmax = hi > w->kmax ? hi : w->kmax;
	w->kmin = lo < w->kmin ? lo : w->kmin;
}

/* Eight f32: branch-free when all lie in the window (no NaN among them
 * then either), one by one otherwise. */
static __host__ __device__ inline void stats_win_add8(struct stats_win *w,
						      struct stats_thr *r,
						      uint4 a, uint4 c,
						      long long *slot)
{
	int b = w->s1.b;

	if (exact_w32_in(a.x, b) & exact_w32_in(a.y, b) &
	    exact_w32_in(a.z, b) & exact_w32_in(a.w, b) &
	    exact_w32_in(c.x, b) & exact_w32_in(c.y, b) &
	    exact_w32_in(c.z, b) & exact_w32_in(c.w, b)) {
		long long s1 = 0;	/* eight terms < 2^52 */

		stats_win_add4(w, a, b, &s1, &w->s2);
		stats_win_add4(w, c, b, &s1, &w->s2);
		w->s1.acc += s1;
		return;
	}
	stats_win_add_first(w, r, a, c, 8, slot);
}

/* stats_fold for one column of f32 at a 16-byte aligned p: thread t of
 * nthr takes its share as vec128_walk gives it. */
static __host__ __device__ inline void stats_fold_win(struct stats_thr *r,
						      const float *p, size_t n,
						      size_t t, size_t nthr,
						      long long *slot)
{
	struct stats_win w;

	exact_thr_init(&r->s1, EXACT_EMIN);
	exact_thr_init(&r->s2, EXACT_EMIN);
	r->nan = r->kmax = r->nkmin = 0;
	exact_w32_init(&w.s1);
	w.s2 = 0;
	w.kmax = 0;
	w.kmin = ~0u;
	vec128_walk((const unsigned *)p, n, t, nthr,
		    [&w, r, slot](uint4 a, uint4 c) {
			    stats_win_add8(&w, r, a, c, slot);
		    },
		    [&w, r, slot](uint4 a, uint4 c, int k) {
			    stats_win_add_first(&w, r, a, c, k, slot);
		    });
	stats_win_fold(&w, r, slot);
	/* no real key is 0 (that would be the NaN 0xffffffff) */
	r->kmax = w.kmax;
	r->nkmin = w.kmax ? ~(unsigned long long)w.kmin : 0;
}

/* ---- the device accumulator ---------------------------------------------- */

/* Per column, after the 2 * C exact sums (s1 of column j is sum 2j, s2 is
 * 2j + 1) and the record count. */
struct stats_dcol {
	unsigned long long nan, kmax, nkmin;
};

struct stats_dev {
	struct exact_acc *sum;
	unsigned long long *count;
	struct stats_dcol *col;
};

static struct stats_dev stats_dev_at(void *dacc, unsigned C)
{
	struct stats_dev d;

	d.sum = (struct exact_acc *)dacc;
	d.count = (unsigned long long *)(d.sum + 2 * C);
	d.col = (struct stats_dcol *)(d.count + 1);
	return d;
}

static size_t stats_shared_bytes(unsigned C)
{
	return 2 * C * EXACT_SLOTS * sizeof(long long) +
	       3 * C * sizeof(unsigned long long);
}

/* ---- the kernel ------------------------------------------------------------ */

/*
 * Shared memory: the 2 * C accumulators' slots, then nan[C], kmax[C] and
 * nkmin[C], all zeroed here and added to the device accumulator at the end.
 */
template <typename T>
__global__ void __launch_bounds__(STATS_THREADS)
stats_kernel(const T *__restrict__ p, size_t nrec, unsigned C,
	     struct stats_dev d)
{
	extern __shared__ long long sh[];
	unsigned long long *mm = (unsigned long long *)(sh + 2 * C * EXACT_SLOTS);
	size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	struct stats_thr r;

	bool mine = true;

	exact_block_zero(sh, 2 * C * EXACT_SLOTS + 3 * C);
	__syncthreads();
	if constexpr (STATS_WINDOW && std::is_same_v<T, float>)
		if (C == 1 && (uintptr_t)p % 16 == 0)
			stats_fold_win(&r, p, nrec, t,
				       (size_t)gridDim.x * blockDim.x, sh);
		else
			mine = stats_fold(&r, p, nrec, C, t,
					  (size_t)gridDim.x * blockDim.x, sh);
	else
		mine = stats_fold(&r, p, nrec, C, t,
				  (size_t)gridDim.x * blockDim.x, sh);
	if (mine) {
		unsigned j = (unsigned)(t % C);
		long long *slot = sh + 2 * j * EXACT_SLOTS;

		exact_thr_finish(&r.s1, slot, &d.sum[2 * j]);
		exact_thr_finish(&r.s2, slot + EXACT_SLOTS, &d.sum[2 * j + 1]);
		if (r.nan)
			atomicAdd(&mm[j], r.nan);
		if (r.kmax)
			atomicMax(&mm[C + j], r.kmax);
		if (r.nkmin)
			atomicMax(&mm[2 * C + j], r.nkmin);
	}
	__syncthreads();
	exact_block_flush(sh, d.sum, 2 * C);
	for (unsigned j = threadIdx.x; j < C; j += blockDim.x) {
		if (mm[j])
			atomicAdd(&d.col[j].nan, mm[j]);
		if (mm[C + j])
			atomicMax(&d.col[j].kmax, mm[C + j]);
		if (mm[2 * C + j])
			atomicMax(&d.col[j].nkmin, mm[2 * C + j]);
	}
	if (t == 0)
		*d.count += nrec;	/* kernels of one stream run in order */
}

/* ---- launchers ------------------------------------------------------------ */


/*
 * Fold nrec records in launches of at most exact_launch_cap(blocks) / C
 * records, blocks * 2^26 / C. A thread then takes at most that over T / C
 * records (T = 256 * blocks threads; T / C >= 4, so the floor loses at most
 * half), 2^19 + 1, and a block's threads of one column at most 256 times
 * that, under EXACT_BLOCK_TERMS. Each launch is followed by exact_normalize,
 * as exact.cuh requires.
 */
template <typename T>
static cudaError_t stats_launch_t(const struct gs_job *job, void *dacc,
				  const void *d, size_t nrec, int nsm,
				  cudaStream_t s)
{
	unsigned C = job->columns;
	struct stats_dev dev = stats_dev_at(dacc, C);
	size_t shared = stats_shared_bytes(C);
	unsigned blocks = exact_grid(nrec * C, shared, nsm, STATS_THREADS,
				     STATS_BLOCKS_PER_SM, STATS_MIN_PER_THREAD);
	size_t piece = exact_launch_cap(blocks) / C;

	if (shared > DEFAULT_SHARED_BYTES)
		CUDA_RET(cudaFuncSetAttribute(stats_kernel<T>,
					      cudaFuncAttributeMaxDynamicSharedMemorySize,
					      (int)shared));
	for (size_t r0 = 0; r0 < nrec; r0 += piece) {
		size_t n = nrec - r0 < piece ? nrec - r0 : piece;

		stats_kernel<T><<<blocks, STATS_THREADS, shared, s>>>(
			(const T *)d + r0 * C, n, C, dev);
		CUDA_LAUNCHED();
		CUDA_RET(exact_normalize(dev.sum, 2 * C, s));
	}
	return cudaSuccess;
}

static cudaError_t stats_launch(const struct gs_job *job, void *dacc,
				const void *d, const void * /* d2 */,
				size_t nrec, int nsm, cudaStream_t s)
{
	if (nrec == 0)
		return cudaSuccess;
	return dtype_dispatch(job->dtype.type, [&](auto tag) {
		return stats_launch_t<DTYPE_OF(tag)>(job, dacc, d, nrec, nsm, s);
	});
}

/* ---- the ops table ---------------------------------------------------------- */

static bool stats_supports(const struct gs_job *job, const char **why)
{
	if (job->columns > STATS_MAX_COLUMNS) {
		*why = "stats: the CUDA kernels take at most 64 columns";
		return false;
	}
	if (job->dtype.type >= GS_NTYPES) {
		*why = "stats: unknown element type";
		return false;
	}
	return true;
}

static size_t stats_dev_acc_bytes(const struct gs_job *job)
{
	unsigned C = job->columns;

	return 2 * C * sizeof(struct exact_acc) + sizeof(unsigned long long) +
	       C * sizeof(struct stats_dcol);
}

/* Column by column: the device's share as a struct stats_col, merged by the
 * CPU's own rule (a share with no values leaves min and max alone). */
static void stats_merge_host(const struct gs_job *job, void *acc,
			     const void *hacc)
{
	unsigned C = job->columns;
	struct stats_dev d = stats_dev_at((void *)hacc, C);
	struct stats_col *cols = (struct stats_col *)acc;
	struct gs_job one = *job;
	enum gs_type t = job->dtype.type;

	one.columns = 1;
	for (unsigned j = 0; j < C; j++) {
		struct stats_col c;

		memset(&c, 0, sizeof c);
		xsum_init(&c.s1);
		xsum_init(&c.s2);
		c.count = *d.count;
		c.nan = d.col[j].nan;
		c.min = key_value(t, ~d.col[j].nkmin);
		c.max = key_value(t, d.col[j].kmax);
		exact_to_xsum(&d.sum[2 * j], &c.s1);
		exact_to_xsum(&d.sum[2 * j + 1], &c.s2);
		stats_kernels.acc_merge(&one, &cols[j], &c);
	}
}

const struct gpu_ops gpu_stats_ops = {
	stats_supports,
	stats_dev_acc_bytes,
	stats_launch,
	stats_merge_host,
};
