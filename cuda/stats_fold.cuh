/*
 * stats_fold.cuh - one GPU thread's share of stats (stats_kernels.cu): an
 * element's NaN test and order-preserving key, the exact sums of values and
 * squares of its column, generic or, for one column of f32, through the
 * 16-byte vector walk and exact.cuh's window. __host__ __device__, so that
 * tests/gpu/exact_host.cu runs a grid's threads on the host.
 */
#ifndef STATS_FOLD_CUH
#define STATS_FOLD_CUH

#include <type_traits>
#include "exact.cuh"
#include "vec128.cuh"

template <typename T>
constexpr bool is_int_v = std::is_integral_v<T>;

/* ---- one element --------------------------------------------------------- */

template <typename T>
__host__ __device__ static inline bool is_nan(T x)
{
	typedef dtype_fmt<T> F;

	return ieee_is_nan(exact_elem_bits(x), (uint64_t)F::emax << (F::p - 1));
}

/* Bits whose unsigned order is the order of the values (non-NaN floats,
 * -0 < +0). The half types go through f32, as cpu_stats.c's do. */
template <typename T>
__host__ __device__ static inline unsigned long long key_of(T x)
{
	if constexpr (std::is_same_v<T, double>) {
		return f64_ukey(x);
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
		return ukey32(u);
	}
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
	exact_win_fold(&w->s1, &r->s1, slot);
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
	unsigned key = ukey32(u);

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
		w->s1.b = e - EXACT_W32_SPAN;	/* as exact_win_add */
	}
	if (e >= w->s1.b) {
		w->s1.acc += exact_win_term(u, w->s1.b);
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
 * exact_win_add_first. */
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
	unsigned k0 = ukey32(a.x), k1 = ukey32(a.y),
		 k2 = ukey32(a.z), k3 = ukey32(a.w);
	unsigned hi = max(max(k0, k1), max(k2, k3));
	unsigned lo = min(min(k0, k1), min(k2, k3));

	*s1 += exact_win_term(a.x, b) + exact_win_term(a.y, b) +
	       exact_win_term(a.z, b) + exact_win_term(a.w, b);
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
	exact_win_init(&w.s1);
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

#endif
